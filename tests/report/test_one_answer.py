"""One answer per question: a release's decision reads the same in the report's HTML,
the e-mail, results.json (its ``verdict``, ``comparisons`` and ``ledger``), the CSV
tables and ``reportgen history`` (the example's three archived releases).

The oracle of each check is another output written by ``reportgen run``: these tests
pin agreement, the numbers themselves are checked against scipy, statsmodels and
enumeration in tests/stats and tests/report/test_release_verdicts.py."""

from __future__ import annotations

import csv
import html
import json
import re

import pytest

from reportgen.analysis.ledger.words import release_decision
from reportgen.analysis.release import ReleaseComparison
from reportgen.report.mail import build_summary, read_report_folder


def _text(path) -> str:
    raw = path.read_text(encoding="utf-8")
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", raw)))


@pytest.mark.parametrize("label", ["v2.0", "v9.1", "v10.0"])
def test_the_decision_reads_the_same_everywhere(example_releases, label):
    folder = example_releases[label]
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    verdict = results["verdict"]
    decision = release_decision(ReleaseComparison.from_dict(verdict)).plain()
    # the report's first section and the e-mail's text part say it word for word
    assert decision in _text(folder / "report.html")
    summary = build_summary(read_report_folder(folder), charts=False)
    assert decision in re.sub(r"\s+", " ", summary.text)
    assert results["ledger"]["decision"] == verdict["decision"]
    assert results["ledger"]["family"]["scope"] == "release"
    # the pair's comparison rows, the verdict rows and tables/verdicts.csv: one number
    pairs = {
        (c["dataset"], c["metric"]): c
        for c in results["comparisons"]
        if {c["system_a"], c["system_b"]} == {verdict["baseline"], verdict["candidate"]}
    }
    with open(folder / "tables" / "verdicts.csv", newline="", encoding="utf-8") as f:
        table = {(r["dataset"], r["metric"]): r for r in csv.DictReader(f)}
    for row in verdict["rows"]:
        key = (row["dataset"], row["metric"])
        c = pairs[key]
        assert c["system_a"] == verdict["candidate"]
        assert c["p_adjusted"] == row["p_adjusted"] and c["correction"] == row["correction"]
        assert (c["ci_adjusted_low"], c["ci_adjusted_high"]) == (
            row["ci_adjusted_low"],
            row["ci_adjusted_high"],
        )
        assert c["significant"] == (row["verdict"] in ("improved", "regressed"))
        assert float(table[key]["p_adjusted"]) == pytest.approx(row["p_adjusted"], rel=1e-12)
        assert table[key]["verdict"] == row["verdict"]
        # the MDE is the ledger's noise figure of the unit
        noise = next(n for n in results["ledger"]["noise"] if (n["dataset"], n["metric"]) == key)
        assert row["mde"] == pytest.approx(noise["mde"], rel=1e-12)

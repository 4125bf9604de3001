"""One voice (issue 40): two consecutive releases of real systems (claude-3 haiku →
sonnet, then sonnet → opus with a margin), their history, their e-mails and ``compare``
of the same pair, all through the command line as a user runs them. Each verdict shows
the same Δ, the same interval with the same label, the same p and the same verdict in
the console of ``run`` (and its gate), the report's HTML, the e-mail, ``reportgen
history`` and its history.json; ``compare`` says what ``analyze`` says with the same
options.

The oracle of each number is the release's own results.json read with ``json`` (its
``verdict`` rows); the formatting is reportgen's one formatter, whose rules are tested in
tests/test_format.py and tests/report/test_claims.py. The numbers themselves are checked
against scipy, statsmodels and enumeration in tests/stats and
tests/report/test_release_verdicts.py.
"""

from __future__ import annotations

import contextlib
import email
import html
import io
import json
import re
from pathlib import Path

import pytest

from reportgen import format as fmt
from reportgen.analysis import AnalysisOptions, analyze
from reportgen.analysis.ledger import Interval
from reportgen.cli import main
from reportgen.data import load

pytestmark = pytest.mark.e2e

HAIKU, SONNET, OPUS = (
    "claude-3-haiku-20240307",
    "claude-3-sonnet-20240229",
    "claude-3-opus-20240229",
)
RELEASES = (
    ("v1", HAIKU, SONNET, ["--gate", "regression"]),
    ("v2", SONNET, OPUS, ["--gate", "non-inferiority", "--margin", "0.05"]),
)


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def _text(raw: str, cells: bool = True) -> str:
    """What a reader reads of an HTML page: the text between the tags, spaces collapsed
    (``cells``: a tag ends a word, as a table cell does; else tags are dropped, as bold
    names inside a sentence are)."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " " if cells else "", raw)))


@pytest.fixture(scope="module")
def runs(shared_data, tmp_path_factory):
    base = tmp_path_factory.mktemp("one-voice")
    data = [str(shared_data / "eval-arena" / f) for f in ("humaneval+.jsonl", "mbpp+.jsonl")]
    out: dict = {"data": data}
    for label, baseline, candidate, extra in RELEASES:
        folder = base / label
        code, printed = _run(
            ["run", *data, "--template", "release", "--baseline", baseline]
            + ["--candidate", candidate, "--release", label, "--out", str(folder)]
            + ["--format", "html", "--seed", "7", "--quiet"]
            + extra
        )
        eml = base / f"{label}.eml"
        assert (
            _run(
                ["email", str(folder), "--to", "a@example.org", "--from", "b@example.org"]
                + ["--eml", str(eml), "--quiet"]
            )[0]
            == 0
        )
        message = email.message_from_bytes(eml.read_bytes())
        text = next(
            p.get_payload(decode=True).decode()
            for p in message.walk()
            if p.get_content_type() == "text/plain"
        )
        out[label] = {
            "folder": folder,
            "code": code,
            "console": printed,
            "results": json.loads((folder / "results.json").read_text(encoding="utf-8")),
            "email": re.sub(r"\s+", " ", text),
            "subject": message["Subject"],
        }
    history = base / "history"
    code, printed = _run(
        ["history", str(out["v1"]["folder"]), str(out["v2"]["folder"]), "--out", str(history)]
        + ["--format", "html", "--quiet"]
    )
    assert code == 0
    out["history"] = {
        "folder": history,
        "console": printed,
        "json": json.loads((history / "history.json").read_text(encoding="utf-8")),
        "html": _text((history / "report.html").read_text(encoding="utf-8")),
    }
    code, printed = _run(["compare", SONNET, OPUS, *data, "--seed", "7"])
    assert code == 0
    out["compare"] = printed
    return out


def _expected(row: dict, verdict: dict) -> dict[str, str]:
    """What every output must show of one verdict row of results.json."""
    p = bool(row["proportion"])
    decided = Interval(
        row["ci_adjusted_low"],
        row["ci_adjusted_high"],
        row["confidence_adjusted"],
        row["ci_adjusted_kind"],
        1 - verdict["alpha"],
        row["correction"],
    )
    return {
        "name": f"{row['dataset']} / {row['metric']}",
        "delta": fmt.difference(row["diff"], proportion=p),
        "interval": decided.text(proportion=p),
        "label": decided.label(),
        "p": fmt.p_equals(row["p_adjusted"], "p adj."),
        "verdict": row["verdict"],
    }


@pytest.mark.parametrize("label", ["v1", "v2"])
def test_every_verdict_reads_the_same_in_console_report_and_email(runs, label):
    run = runs[label]
    verdict = run["results"]["verdict"]
    assert run["code"] == 0  # both gates pass (test_the_gate_says_what_it_guarantees)
    raw = (run["folder"] / "report.html").read_text(encoding="utf-8")
    report = _text(raw)
    for row in verdict["rows"]:
        e = _expected(row, verdict)
        # the release family of two: Šidák's simultaneous interval, labelled so
        assert e["label"] == "95% simultaneous CI (Šidák)"
        pieces = f"Δ {e['delta']} {e['interval']}"
        console = f"  {e['name']}: {e['verdict']}: {pieces}; {e['label']}; {e['p']};"
        assert console in run["console"]
        mail = f"{e['name']}: {e['verdict']} {pieces}, {e['label']}, {e['p']},"
        assert mail in run["email"]
        # the report's verdict table: the same cells in its row, the label in its note
        assert re.search(
            re.escape(row["dataset"]) + r".{0,80}" + re.escape(e["verdict"]), report
        ), e
        assert f"{e['delta']} {e['interval']}" in report
        assert f"read off the interval in the row, the {e['label']}" in report
        if row.get("margin") is not None:
            bound = Interval(row["ni_bound"], None, row["ni_level"], "unadjusted")
            shown = f"{bound.label()}: {bound.text(proportion=True)}"
            assert shown in run["console"] and shown in run["email"]
            assert bound.text(proportion=True) in report
    # the decision sentence, first, in all three (its words are tested in
    # test_release_verdicts.py)
    decision = run["console"].split("decision: ", 1)[1].split("\n", 1)[0]
    assert decision in _text(raw, cells=False) and decision in run["email"]


def test_the_gate_says_what_it_guarantees(runs):
    # by hand: α = 0.05, so each unit's one-sided bound is at 1 − α/2 = 97.5%, and the
    # release's family of two is held to a family-wise 5%
    assert (
        "gate non-inferiority: false-pass rate ≤ 2.5% per unit (one-sided 97.5% bounds)\n"
        "gate non-inferiority: passed\n"
    ) in runs["v2"]["console"]
    rows = runs["v2"]["results"]["verdict"]["rows"]
    assert all(r["verdict"] in ("improved", "non-inferior") for r in rows)
    assert (
        "gate regression: false-alarm rate ≤ 5% for the whole release (simultaneous 95% "
        "intervals)\ngate regression: passed\n"
    ) in runs["v1"]["console"]
    assert not any(r["verdict"] == "regressed" for r in runs["v1"]["results"]["verdict"]["rows"])


def test_history_shows_the_release_verdicts_as_they_are(runs):
    # the step v1 → v2 follows sonnet (v1's candidate) to opus (v2's): v2's own release
    # compared exactly these two, so the history shows its verdicts unchanged
    verdict = runs["v2"]["results"]["verdict"]
    changes = {(c["dataset"], c["metric"]): c for c in runs["history"]["json"]["changes"]}
    for row in verdict["rows"]:
        e = _expected(row, verdict)
        c = changes[(row["dataset"], row["metric"])]
        assert c["diff"] == row["diff"] and c["p_adjusted"] == row["p_adjusted"]
        assert (c["ci_low"], c["ci_high"]) == (row["ci_adjusted_low"], row["ci_adjusted_high"])
        assert c["verdict"] == row["verdict"]
        assert e["delta"] in runs["history"]["html"] and e["interval"] in runs["history"]["html"]
    significant = sum(r["verdict"] in ("improved", "regressed") for r in verdict["rows"])
    assert (
        f"{len(verdict['rows'])} changes tested, {significant} significant"
        in (runs["history"]["console"])
    )


def test_compare_says_what_analyze_says_with_the_same_options(runs):
    lines = runs["compare"].splitlines()
    # the family first: each dataset × metric alone, a family of one, no adjustment
    assert lines[0] == "family: within each dataset × metric, 1 comparison: no adjustment, α = 0.05"
    table = load(runs["data"])
    analysis = analyze(
        table,
        AnalysisOptions(seed=7, order="first-vs-rest", baseline=SONNET, systems=(SONNET, OPUS)),
    )
    expected = [c.sentence().plain() for u in analysis.ledger.compared for c in u.claims]
    assert lines[1:] == expected
    # Δ is the release's difference, whichever system is named first
    for row in runs["v2"]["results"]["verdict"]["rows"]:
        line = next(x for x in lines if f" on {row['dataset']} / {row['metric']}" in x)
        delta = float(re.search(r"Δ = ([+−-][\d.]+) pts", line).group(1).replace("−", "-"))
        opus_first = line.startswith(OPUS)
        assert delta == pytest.approx(100 * row["diff"] * (1 if opus_first else -1), abs=0.05)
        # never "better" beside a negative Δ (pass@1: higher is better)
        if " is better than " in line:
            assert delta > 0


def test_the_email_subject_is_the_headline(runs):
    subject = " ".join(runs["v2"]["subject"].split())
    assert subject.startswith("Release v2: claude-3-opus-20240229 against claude-3-sonnet")
    assert "better: improved on humaneval+ by" in subject
    assert "Report folder: v2 (release v2)" in runs["v2"]["email"]
    assert "Report folder: v1 (release v1)" in runs["v1"]["email"]


def test_the_folders_hold_what_they_say(runs):
    # the same results.json the console spoke from (read back with the typed reader)
    from reportgen.report.folder.reader import read_report_folder

    for label in ("v1", "v2"):
        ledger = read_report_folder(Path(runs[label]["folder"])).ledger
        assert ledger.release is not None
        assert ledger.release.decision == runs[label]["results"]["verdict"]["decision"]
        assert ledger.family.describe() in runs[label]["email"]

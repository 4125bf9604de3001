"""`reportgen history`: three archived release reports of the bundled example (v2.0,
v9.1, v10.0, kept in checkpoint folders) give a trend report in release order with the
significant changes flagged. The flags are checked against an independent computation
from the raw CSV files: scipy's paired t test per dataset × metric and statsmodels'
Holm-Šidák adjustment across the 13 of each step."""

from __future__ import annotations

import json
import math
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from reportgen.cli import main
from reportgen.report.export import external_references
from reportgen.report.folder.manifest import manifest_digest
from reportgen.report.history import build_entries, build_history

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
DIRECTION = {
    "edit_distance": "lower",
    "edit_similarity": "higher",
    "identifier_f1": "higher",
    "pass": "higher",
}


def _scrambled(example_releases) -> list[str]:
    # lexicographic order would be v10.0 < v2.0 < v9.1
    return [str(example_releases[k]) for k in ("v10.0", "v2.0", "v9.1")]


def _reference_flags(
    before: str, after: str, method: str = "holm-sidak"
) -> dict[tuple[str, str], tuple[float, str]]:
    """(dataset, metric) -> (adjusted p, verdict), from the raw files: the paired t test
    on per-item scores (item means over the runs of the unit tests), adjusted by
    statsmodels' ``method`` across the 13 dataset × metrics."""
    frames = [
        pd.read_csv(EXAMPLE / "codecompletion.csv"),
        pd.read_csv(EXAMPLE / "unittests_runs.csv"),
    ]
    rows = pd.concat(frames, ignore_index=True)
    items = rows.groupby(["dataset", "metric", "system", "item"])["score"].mean()
    keys, pvalues, diffs = [], [], []
    for (dataset, metric), block in items.groupby(level=["dataset", "metric"]):
        wide = block.droplevel(["dataset", "metric"]).unstack("system")
        a, b = wide[after].to_numpy(float), wide[before].to_numpy(float)
        keys.append((dataset, metric))
        pvalues.append(stats.ttest_rel(a, b).pvalue)
        diffs.append(float(np.mean(a - b)))
    adjusted = multipletests(pvalues, alpha=0.05, method=method)[1]
    out = {}
    for key, p, d in zip(keys, adjusted, diffs):
        better = d > 0 if DIRECTION[key[1]] == "higher" else d < 0
        verdict = (
            ("improved" if better else "regressed") if p <= 0.05 else "no detectable difference"
        )
        out[key] = (float(p), verdict)
    return out


def test_history_orders_by_release_label_naturally(example_releases):
    entries, used = build_entries(_scrambled(example_releases))
    assert used == "release"
    assert [e.label for e in entries] == ["v2.0", "v9.1", "v10.0"]
    assert [e.system for e in entries] == [
        "starcoder2-3b|fim|4k",
        "starcoder2-15b|fim|4k",
        "starcoder2-15b|fim|8k",
    ]
    assert all(e.followed_because == "candidate of the release report" for e in entries)
    given, _ = build_entries(_scrambled(example_releases), order="given")
    assert [e.label for e in given] == ["v10.0", "v2.0", "v9.1"]
    created, _ = build_entries(_scrambled(example_releases), order="created")
    # the fixture made them in release order, one after the other
    assert [e.label for e in created] == ["v2.0", "v9.1", "v10.0"]


@pytest.mark.parametrize("recompute", ["auto", "always"])
def test_history_flags_match_scipy_and_statsmodels(example_releases, recompute):
    history = build_history(_scrambled(example_releases), recompute=recompute)
    assert len(history.changes) == 26
    expected_method = "stored" if recompute == "auto" else "recomputed"
    assert {c.method for c in history.changes} == {expected_method}
    # stored: each step is the release report's own verdict, decided in the release's
    # family (Šidák, the single-step form of Holm-Šidák); recomputed: Holm-Šidák over
    # the step, the later report's correction
    family = "sidak" if recompute == "auto" else "holm-sidak"
    for before, after in (
        ("starcoder2-3b|fim|4k", "starcoder2-15b|fim|4k"),
        ("starcoder2-15b|fim|4k", "starcoder2-15b|fim|8k"),
    ):
        reference = _reference_flags(before, after, family)
        step = {
            (c.dataset, c.metric): c
            for c in history.changes
            if c.system_before == before and c.system_after == after
        }
        assert set(step) == set(reference)
        for key, (p_adj, verdict) in reference.items():
            assert step[key].verdict == verdict, key
            assert step[key].p_adjusted == pytest.approx(p_adj, rel=1e-6, abs=1e-300)
            assert step[key].test == "paired t"
    flagged = {(c.from_release, c.to_release) for c in history.changes if c.significant}
    # the 3b -> 15b step improves everywhere; 15b fim 4k -> 8k is the example's near-tie
    assert flagged == {("v2.0", "v9.1")}
    assert sum(c.verdict == "improved" for c in history.changes) == 13


def test_history_trend_has_each_release_mean_with_its_interval(example_releases):
    history = build_history(_scrambled(example_releases))
    assert len(history.trend) == 3 * 13
    raw = pd.read_csv(EXAMPLE / "codecompletion.csv")
    sel = raw[(raw.dataset == "python") & (raw.metric == "edit_similarity")]
    for row in (r for r in history.trend if (r.dataset, r.metric) == ("python", "edit_similarity")):
        assert row.mean == pytest.approx(sel[sel.system == row.system].score.mean())
        assert row.ci_low < row.mean < row.ci_high


def test_history_falls_back_to_intervals_when_the_data_changed(example_releases, tmp_path):
    """With the per-item data changed since (a wrong hash in the manifests) and stored
    tests skipped, each change comes from the two intervals: the closed form
    z = Δ / sqrt(se1² + se2²), se = half-width / z(0.975), then Holm-Šidák."""
    copies = []
    for label, folder in example_releases.items():
        copy = tmp_path / label
        shutil.copytree(folder, copy)
        manifest = json.loads((copy / "manifest.json").read_text())
        for source in manifest["inputs"]:
            for f in source["files"]:
                f["sha256"] = "0" * 64
        # sealed again: the report is intact, only its inputs are not what it read
        manifest["manifest_sha256"] = manifest_digest(manifest)
        (copy / "manifest.json").write_text(json.dumps(manifest))
        copies.append(str(copy))
    history = build_history(copies, recompute="always")
    assert {c.method for c in history.changes} == {"intervals"}
    assert any("has changed since" in n for n in history.notes)
    z975 = stats.norm.ppf(0.975)
    step = [c for c in history.changes if c.from_release == "v2.0"]
    by_key = {(r.release, r.dataset, r.metric): r for r in history.trend}
    raw = []
    for c in step:
        a = by_key[("v2.0", c.dataset, c.metric)]
        b = by_key[("v9.1", c.dataset, c.metric)]
        se = math.hypot((a.ci_high - a.ci_low) / (2 * z975), (b.ci_high - b.ci_low) / (2 * z975))
        raw.append(2 * stats.norm.sf(abs(b.mean - a.mean) / se))
        assert c.p_value == pytest.approx(raw[-1], rel=1e-9, abs=1e-300)
    adjusted = multipletests(raw, method="holm-sidak")[1]
    assert [c.p_adjusted for c in step] == pytest.approx(list(adjusted), rel=1e-9, abs=1e-300)


def test_history_command_writes_the_trend_report(example_history):
    # `reportgen history` of the releases given out of order (tests/report/conftest.py)
    out, printed = example_history
    assert "releases: v2.0 → v9.1 → v10.0; 26 changes tested, 13 significant" in printed
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert names == {
        "report.html",
        "history.json",
        "manifest.json",
        "tables/trend.csv",
        "tables/changes.csv",
    }
    doc = json.loads((out / "history.json").read_text())
    assert [r["label"] for r in doc["reports"]] == ["v2.0", "v9.1", "v10.0"]
    changes = pd.read_csv(out / "tables" / "changes.csv")
    assert len(changes) == 26 and changes["significant"].sum() == 13
    html = (out / "report.html").read_text()
    assert external_references(html) == []

    class Sections(HTMLParser):
        ids: list[str] = []

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "section":
                self.ids.append(attrs.get("id"))

    parser = Sections()
    parser.feed(html)
    assert parser.ids == ["releases", "trends", "changes", "methods"]
    assert html.count("<svg") >= 13  # one trend chart per dataset × metric
    # the manifest lists the three results.json it was made from: verify passes
    assert main(["verify", str(out)]) == 0


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (
            ["--system", "v99=some-model"],
            r"--system names a release not among the reports: "
            r"v99",
        ),
        (["--system", "no-such-system"], r"system 'no-such-system' is not in this report"),
        (["--system", "=x"], r"--system '=x': expected NAME or RELEASE=NAME"),
    ],
)
def test_history_bad_options_exit_2(example_releases, tmp_path, capsys, extra, pattern):
    code = main(
        ["history", *_scrambled(example_releases), "--out", str(tmp_path / "h"), "--quiet", *extra]
    )
    err = capsys.readouterr().err
    assert code == 2 and re.search(pattern, err), err
    assert not (tmp_path / "h").exists()


def test_history_needs_two_distinct_reports(example_releases, tmp_path, capsys):
    one = str(example_releases["v2.0"])
    assert main(["history", one, "--out", str(tmp_path / "h")]) == 2
    assert "a history needs at least two report folders" in capsys.readouterr().err
    assert main(["history", one, one, "--out", str(tmp_path / "h")]) == 2
    assert "the same report folder is given twice" in capsys.readouterr().err
    twin = tmp_path / "twin"
    shutil.copytree(one, twin)
    assert main(["history", one, str(twin), "--out", str(tmp_path / "h")]) == 2
    assert "two reports have the release label 'v2.0'" in capsys.readouterr().err
    assert main(["history", one, str(tmp_path), "--out", str(tmp_path / "h")]) == 2
    assert "has no results.json" in capsys.readouterr().err


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda r: r["systems"][0].__setitem__("mean", "abc"), "systems/0/mean"),
        (lambda r: r.__setitem__("systems", 5), "systems"),
    ],
)
def test_history_refuses_a_results_json_that_breaks_the_schema(
    example_releases, tmp_path, capsys, edit, field
):
    # reference: the shipped JSON Schema (jsonschema's validator names the field)
    bad = tmp_path / "bad"
    shutil.copytree(example_releases["v9.1"], bad)
    results = json.loads((bad / "results.json").read_text(encoding="utf-8"))
    edit(results)
    (bad / "results.json").write_text(json.dumps(results), encoding="utf-8")
    code = main(["history", str(example_releases["v2.0"]), str(bad), "--out", str(tmp_path / "h")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"not a valid results.json: at {field}" in err
    assert str(bad / "results.json") in err
    assert not (tmp_path / "h").exists()


def test_history_of_evaluation_reports_needs_the_system_named(example_releases, tmp_path, capsys):
    """Reports without a release candidate: the followed system must be named."""
    copies = []
    for label in ("v2.0", "v9.1"):
        copy = tmp_path / label
        shutil.copytree(example_releases[label], copy)
        results = json.loads((copy / "results.json").read_text())
        del results["verdict"]
        (copy / "results.json").write_text(json.dumps(results))
        copies.append(str(copy))
    assert main(["history", *copies, "--out", str(tmp_path / "h")]) == 2
    assert "cannot tell which system release 'v2.0' is about" in capsys.readouterr().err
    # (results.json edited to drop the verdict: shown only with allow_edited)
    history = build_history(
        copies,
        follow=["v2.0=granite-3b|fim|4k", "v9.1=starcoder2-3b|fim|4k"],
        allow_edited=True,
    )
    assert [e.system for e in history.entries] == ["granite-3b|fim|4k", "starcoder2-3b|fim|4k"]
    # the v2.0 report compared exactly these two: its stored tests are used
    assert {c.method for c in history.changes} == {"stored"}


def test_history_says_what_each_release_said(example_releases):
    # history = release: every step read from a release report carries that release's
    # own verdict, adjusted p-value and the interval the verdict was read off (the
    # oracle is the release's results.json, written by `reportgen run`)
    history = build_history(_scrambled(example_releases))
    for change in history.changes:
        folder = example_releases[change.to_release]
        verdict = json.loads((folder / "results.json").read_text(encoding="utf-8"))["verdict"]
        assert verdict["candidate"] == change.system_after
        row = next(
            r
            for r in verdict["rows"]
            if (r["dataset"], r["metric"]) == (change.dataset, change.metric)
        )
        assert change.verdict == row["verdict"]
        assert change.p_adjusted == row["p_adjusted"]
        assert (change.decided.low, change.decided.high) == (
            row["ci_adjusted_low"],
            row["ci_adjusted_high"],
        )
        assert change.source == f"{change.to_release}'s release verdict"
        # and the interval agrees with the decision
        excludes = change.decided.low > 0 or change.decided.high < 0
        assert excludes == change.significant


def test_an_edited_release_is_flagged_on_its_steps(example_releases, monkeypatch):
    """A release whose results.json is not what reportgen wrote (the digest check of
    issue 44 answers through ``_edited``): the releases table's steps, the changes, the
    warning block and history.json say so."""
    from reportgen.report import history as hs

    why = "results.json differs from the SHA-256 in its manifest (allowed by the user)"
    edited = str(example_releases["v9.1"])
    monkeypatch.setattr(
        hs,
        "_edited",
        lambda folder, label, allow_edited: why if str(folder.path) == edited else None,
    )
    history = build_history(_scrambled(example_releases))
    overview, changes = hs.overview(history).html, hs.changes(history).html
    warning = f"Warning: the results.json of v9.1 is not what reportgen wrote ({why})"
    for html in (overview, changes):
        assert '<div class="rg-warning">' in html and warning in html
        assert "v2.0 → v9.1 (edited)" in html and "v9.1 → v10.0 (edited)" in html
    doc = history.to_results()
    assert [r["edited"] for r in doc["reports"]] == [None, why, None]
    assert {c["edited"] for c in doc["changes"]} == {f"v9.1: {why}"}


def test_history_console_prints_the_warning_of_an_edited_release(monkeypatch, tmp_path, capsys):
    from reportgen.report import history as hs

    line = "Warning: the results.json of v9.1 is not what reportgen wrote (edited)"
    result = hs.HistoryResult(
        tmp_path, ("report.html",), ("v2.0", "v9.1"), 13, 13, None, {}, (line,)
    )
    monkeypatch.setattr(hs, "run_history", lambda spec, progress=None: result)
    assert main(["history", "a", "b", "--out", str(tmp_path / "h"), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "releases: v2.0 → v9.1; 13 changes tested, 13 significant\n" in out
    assert f"reportgen: warning: {line} (--allow-edited)\n" in err  # a warning, on stderr


def test_history_json_keeps_format_1_and_adds_the_interval_kind(example_history):
    # the fields of history.json format 1, in their order (what reportgen 0.1 wrote),
    # come first; the interval's kind and label, the marginal interval, the margin's
    # bound, the warning and the sentence are added after them
    out, _ = example_history
    doc = json.loads((out / "history.json").read_text())
    format_1 = [
        "from", "to", "system_before", "system_after", "dataset", "metric", "direction",
        "proportion", "method", "test", "source", "mean_before", "mean_after", "diff",
        "ci_low", "ci_high", "confidence", "p_value", "p_adjusted", "correction", "alpha",
        "paired", "margin", "verdict", "significant",
    ]  # fmt: skip
    trend_1 = [
        "release", "position", "role", "system", "dataset", "metric", "direction", "mean",
        "ci_low", "ci_high", "confidence", "ci_method", "n", "runs",
    ]  # fmt: skip
    assert doc["format_version"] == 1 and doc["kind"] == "history"
    for change in doc["changes"]:
        assert list(change)[: len(format_1)] == format_1
        # a stored release verdict keeps the verdict's simultaneous interval
        assert change["ci_kind"] == "simultaneous"
        assert change["ci_label"] == "95% simultaneous CI (Šidák)"
        assert change["sentence"].startswith(f"{change['from']} → {change['to']}, ")
        assert change["ci_label"] in change["sentence"]
    for point in doc["trend"]:
        assert list(point)[: len(trend_1)] == trend_1
    assert all("edited" in r for r in doc["reports"])

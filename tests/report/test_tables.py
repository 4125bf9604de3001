"""Outputs that scale (issue 35): a results.json of many systems keeps its long tables
in ``tables/*.parquet`` (reportgen.report.folder.tables). The oracle of every round trip is
the in-memory analysis (``Analysis.comparisons()``, ``Analysis.to_results()``), which
does not go through the columnar path; the readers (history, e-mail) must answer the
same from a referenced folder as from the single-file form of the same report."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.cli import main
from reportgen.data import load
from reportgen.errors import InputError
from reportgen.report.folder.tables import (
    TABLE_ROWS_MAX,
    TableRows,
    read_table,
    resolve_tables,
    split_results,
    write_analysis,
    write_results,
)
from reportgen.report.history import build_history
from reportgen.report.mail import build_summary, read_report_folder
from reportgen.report.pipeline import analyze_into, resolve_run

# several layers together (data, analysis, sections): tests/conftest.py's tiers
pytestmark = pytest.mark.integration

#: 20 MB: the bound of issue 35 on a 1,000-system results.json.
MAX_RESULTS_BYTES = 20 * 2**20


def _binary_csv(path: Path, systems: int, items: int, seed: int, datasets: int = 1) -> Path:
    """A logistic ability model (as benchmarks/workloads_scale.py draws it): one 0/1
    score per system × item × dataset."""
    rng = np.random.default_rng(seed)
    frames = []
    for d in range(datasets):
        ability, difficulty = rng.normal(size=systems), rng.normal(size=items)
        p = 1 / (1 + np.exp(-(ability[None, :] - difficulty[:, None])))
        x = (rng.random((items, systems)) < p).astype(int)
        frames.append(
            pd.DataFrame(
                {
                    "system": np.repeat([f"sys{j:04d}" for j in range(systems)], items),
                    "item": np.tile([f"q{i}" for i in range(items)], systems),
                    "score": x.T.ravel(),
                    "dataset": f"bench{d}",
                    "metric": "acc",
                }
            )
        )
    pd.concat(frames).to_csv(path, index=False)
    return path


def _same(a: object, b: object) -> bool:
    """Equal as JSON values (1 == 1.0; NaN written as None on both sides)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, TableRows)) and isinstance(b, (list, tuple, TableRows)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b and type(a) in (type(b), int, float) and type(b) in (type(a), int, float)


@pytest.fixture(scope="module")
def wide(tmp_path_factory) -> dict[str, object]:
    """150 systems × 30 binary items (11,175 pairs: above TABLE_ROWS_MAX) through
    `analyze_into`, what `reportgen analyze --out` runs."""
    base = tmp_path_factory.mktemp("wide")
    data = _binary_csv(base / "wide.csv", 150, 30, seed=150)
    spec = resolve_run([str(data)], analysis=AnalysisOptions(seed=3), release_report=False)
    done = analyze_into(spec, str(base / "out"))
    return {"data": data, "out": done.out, "analysis": done.analysis, "results": done.results}


def test_comparisons_table_round_trips_the_in_memory_rows(wide):
    # oracle: Analysis.comparisons(), the rows the single-file results.json holds
    analysis, out = wide["analysis"], wide["out"]
    expected = analysis.comparisons()
    assert len(expected) == 11_175 > TABLE_ROWS_MAX
    written = json.loads((out / "results.json").read_text(encoding="utf-8"))
    ref = written["comparisons"]
    assert ref["path"] == "tables/comparisons.parquet" and ref["rows"] == len(expected)
    assert ref["significant"] == sum(r["significant"] for r in expected)
    got = TableRows(out, ref)
    assert len(got) == len(expected)
    rows = list(got)
    assert [list(r) for r in rows[:1]] == [list(expected[0])]  # same columns, same order
    assert all(_same(g, e) for g, e in zip(rows, expected, strict=True))
    # the Parquet file itself, as pandas reads it
    frame = pd.read_parquet(out / "tables" / "comparisons.parquet")
    assert list(frame.columns) == list(expected[0])
    assert frame["p_adjusted"].tolist() == [r["p_adjusted"] for r in expected]
    # the table is described where a dashboard looks for it
    described = written["tables"]["comparisons"]
    assert described["rows"] == len(expected)
    assert [c["name"] for c in described["columns"]] == list(expected[0])


def test_neighbours_are_each_system_against_the_next(wide):
    written = json.loads((wide["out"] / "results.json").read_text(encoding="utf-8"))
    order = [r["system"] for r in written["systems"]]
    expected = {frozenset(p) for p in zip(order, order[1:])}
    neighbours = written["comparisons"]["neighbours"]
    assert {frozenset((r["system_a"], r["system_b"])) for r in neighbours} == expected
    assert len(neighbours) == 149
    by_pair = {frozenset((r["system_a"], r["system_b"])): r for r in wide["analysis"].comparisons()}
    for row in neighbours:
        assert _same(row, by_pair[frozenset((row["system_a"], row["system_b"]))])


def test_results_json_of_the_wide_analysis_is_small_and_valid(wide):
    out = wide["out"]
    size = (out / "results.json").stat().st_size
    # every pair as JSON records would be about 1.2 kB a row
    assert size < 4 * 2**20
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert "tables/comparisons.parquet" in manifest["outputs"]
    # the readers' view equals the in-memory document, table for table
    resolved = resolve_tables(json.loads((out / "results.json").read_text()), out)
    full = wide["analysis"].to_results()
    for key in ("comparisons", "rankings", "items", "systems", "ledger"):
        assert _same(list(resolved[key]) if key == "comparisons" else resolved[key], full[key])


def test_every_table_round_trips_through_its_file(tmp_path):
    # two datasets of 9 systems: an ordered ranking across lists (sign tests), rank
    # distributions, leaderboards and items; max_rows=0 moves every table out
    data = _binary_csv(tmp_path / "two.csv", 9, 40, seed=9, datasets=2)
    analysis = analyze(load([data]), AnalysisOptions(seed=5, n_resamples=499))
    full = analysis.to_results()
    written = write_results(tmp_path, full, max_rows=0)
    assert set(written.tables) == {
        "comparisons",
        "ranking_pairs",
        "ranking_edges",
        "ranking_sign_tests",
        "win_rates",
        "rank_probabilities",
        "items",
    } - ({"ranking_edges"} if not _edges(full) else set())
    on_disk = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert on_disk == json.loads(json.dumps(written.document))
    resolved = resolve_tables(on_disk, tmp_path)
    for key in full:
        value = resolved[key]
        value = list(value) if isinstance(value, TableRows) else value
        assert _same(json.loads(json.dumps(value, default=list)), full[key]), key
    # a where-filtered reference reads only its dataset × metric
    board = next(r for r in on_disk["rankings"] if r["kind"] == "leaderboard")
    frame = read_table(tmp_path, board["win_rates"]["pairs"])
    assert set(frame["dataset"]) == {board["dataset"]} and len(frame) == 9 * 8


def test_columns_from_the_arrays_equal_the_dict_rows(tmp_path):
    # write_analysis makes the long tables from the analysis' arrays (never as dicts);
    # the oracle is Analysis.to_results(), which makes them as dict rows
    data = _binary_csv(tmp_path / "two.csv", 9, 40, seed=9, datasets=2)
    analysis = analyze(load([data]), AnalysisOptions(seed=5, n_resamples=499))
    written = write_analysis(tmp_path, analysis, max_rows=0)
    for name in ("comparisons", "ranking_pairs", "win_rates", "rank_probabilities", "items"):
        assert (tmp_path / "tables" / f"{name}.parquet").is_file(), name
    assert json.loads((tmp_path / "results.json").read_text()) == json.loads(json.dumps(written))
    resolved = resolve_tables(written, tmp_path)
    full = analysis.to_results()
    for key in full:
        value = resolved[key]
        value = list(value) if isinstance(value, TableRows) else value
        assert _same(json.loads(json.dumps(value, default=list)), full[key]), key


def _edges(document: dict) -> list:
    ordered = next(r for r in document["rankings"] if r["kind"] == "ordered")
    return ordered["graph"]["edges"]


def test_small_results_are_written_as_before(tmp_path):
    data = _binary_csv(tmp_path / "small.csv", 6, 30, seed=6)
    analysis = analyze(load([data]), AnalysisOptions(seed=5, n_resamples=499))
    full = analysis.to_results()
    split = split_results(full)
    assert split.tables == {} and split.document == full
    write_results(tmp_path, full)
    assert not (tmp_path / "tables").exists()
    assert json.loads((tmp_path / "results.json").read_text()) == json.loads(json.dumps(full))


def test_split_leaves_the_in_memory_document_alone(wide):
    full = wide["analysis"].to_results()
    before = json.dumps(full)
    split = split_results(full, max_rows=0)
    assert json.dumps(full) == before
    assert isinstance(full["comparisons"], list) and isinstance(split.document["comparisons"], dict)


def test_cli_analyze_writes_the_tables_and_counts_from_the_analysis(wide, tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["analyze", str(wide["data"]), "--out", str(out), "--seed", "3"]) == 0
    text = capsys.readouterr().out
    expected = wide["analysis"].comparisons()
    assert f"{len(expected):,} comparisons" in text
    assert f"{sum(r['significant'] for r in expected)} significant" in text
    assert "ordered ranking over 1 list: " in text
    assert pq.read_metadata(out / "tables" / "comparisons.parquet").num_rows == len(expected)


def test_report_folder_of_reportgen_run_writes_parquet_not_csv(wide, tmp_path):
    # the notebook's last step (sections.write_outputs) on the wide analysis: the long
    # tables in Parquet, no CSV copy of them, the small ones in CSV as before
    from types import SimpleNamespace

    from reportgen.report.sections import write_outputs

    full = {**wide["analysis"].to_results(), "report": {"title": "t", "release": None}}
    report = SimpleNamespace(close=lambda: None, output_dir=tmp_path, results=full, verdicts=None)
    write_outputs(report)
    tables = {p.name for p in (tmp_path / "tables").iterdir()}
    assert {"comparisons.parquet", "ranking_pairs.parquet", "win_rates.parquet"} <= tables
    assert "comparisons.csv" not in tables and "ranking_pairs.csv" not in tables
    assert {"systems.csv", "rank_intervals.csv"} <= tables
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert written["report"]["title"] == "t"
    assert _same(list(TableRows(tmp_path, written["comparisons"])), full["comparisons"])


def test_a_missing_table_is_a_clear_error(wide, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(wide["out"], copy)
    (copy / "tables" / "comparisons.parquet").unlink()
    with pytest.raises(
        InputError, match=r"refers to tables/comparisons\.parquet, which is missing"
    ):
        read_report_folder(copy)


# --------------------------------------------------------------------- the readers


def _evaluation_copies(example_releases, tmp_path: Path, *, referenced: bool) -> list[str]:
    """v2.0 and v9.1 without their verdicts (history then reads the stored comparison
    rows), in the single-file form or with every table in tables/*.parquet."""
    copies = []
    for label in ("v2.0", "v9.1"):
        copy = tmp_path / ("ref" if referenced else "inline") / label
        shutil.copytree(example_releases[label], copy)
        results = json.loads((copy / "results.json").read_text())
        del results["verdict"]
        if referenced:
            write_results(copy, results, max_rows=0)
            assert (copy / "tables" / "comparisons.parquet").is_file()
        else:
            (copy / "results.json").write_text(json.dumps(results))
        copies.append(str(copy))
    return copies


def test_history_reads_stored_comparisons_from_a_referenced_folder(example_releases, tmp_path):
    follow = ["v2.0=granite-3b|fim|4k", "v9.1=starcoder2-3b|fim|4k"]
    # the copies' results.json were edited (their verdict dropped): allow_edited
    inline = build_history(
        _evaluation_copies(example_releases, tmp_path, referenced=False),
        follow=follow,
        allow_edited=True,
    )
    ref = build_history(
        _evaluation_copies(example_releases, tmp_path, referenced=True),
        follow=follow,
        allow_edited=True,
    )
    assert {c.method for c in ref.changes} == {"stored"}  # read from the Parquet rows
    assert len(ref.changes) == len(inline.changes) == 13
    for a, b in zip(ref.changes, inline.changes, strict=True):
        assert _same(a.to_dict(), b.to_dict())


def test_mail_reads_a_referenced_folder_as_the_single_file(example_releases, tmp_path):
    inline, ref = (
        read_report_folder(_evaluation_copies(example_releases, tmp_path, referenced=r)[1])
        for r in (False, True)
    )
    assert isinstance(ref.results["comparisons"], TableRows)
    # the ledger read back from the Parquet tables holds the same claims
    leads = [(u.name, u.lead()) for u in ref.ledger.compared]
    assert leads == [(u.name, u.lead()) for u in inline.ledger.compared]
    assert any(c is not None for _, c in leads)  # the leader against the runner-up
    for u in inline.ledger.units:
        other = ref.ledger.unit(u.dataset, u.metric)
        assert other is not None and other.proportion == u.proportion
    a = build_summary(ref, charts=False)
    b = build_summary(inline, charts=False)
    # the same words; only the folder named in the text differs
    assert (a.subject, a.text) == (b.subject, b.text.replace("/inline/", "/ref/"))


@pytest.mark.slow
def test_results_json_of_1000_systems_stays_under_20_mb(tmp_path):
    """Issue 35: 1,000 systems × 50 binary items (499,500 comparisons, 605 MB of JSON
    before) through `reportgen analyze`: results.json at most 20 MB, every comparison
    in tables/comparisons.parquet."""
    data = _binary_csv(tmp_path / "s1000.csv", 1000, 50, seed=1000)
    assert main(["analyze", str(data), "--out", str(tmp_path / "out"), "--seed", "1"]) == 0
    out = tmp_path / "out"
    assert (out / "results.json").stat().st_size <= MAX_RESULTS_BYTES
    written = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert written["comparisons"]["rows"] == 499_500
    assert pq.read_metadata(out / "tables" / "comparisons.parquet").num_rows == 499_500
    assert len(written["comparisons"]["neighbours"]) == 999

"""The ranking across datasets with partial overlap: which datasets and systems it uses
(choose_rank_lists), checked against brute-force enumeration of every dataset subset, and
the choice recorded in results.json (``--rank-lists``)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from reportgen.analysis import AnalysisOptions, analyze, choose_rank_lists
from reportgen.cli import main
from reportgen.data import load
from reportgen.errors import InputError


def _brute_force_best(coverage: dict[str, set[str]], systems: list[str]) -> int:
    """The largest systems × datasets over every non-empty subset of datasets (>= 2
    systems scored on all of the subset), by enumeration (2^d subsets)."""
    best = 0
    names = list(coverage)
    for k in range(1, len(names) + 1):
        for subset in itertools.combinations(names, k):
            common = set(systems).intersection(*(coverage[d] for d in subset))
            if len(common) >= 2:
                best = max(best, len(common) * k)
    return best


def _score(selection, coverage: dict[str, set[str]], systems: list[str]) -> int:
    common = set(systems).intersection(*(coverage[d] for d in selection.datasets))
    # the systems reported are exactly those scored on every chosen dataset
    assert set(selection.systems) == common
    return len(common) * len(selection.datasets) if len(common) >= 2 else 0


@pytest.mark.parametrize("seed", range(40))
def test_choose_rank_lists_against_brute_force_on_nested_coverage(seed):
    # brute-force enumeration of all 2^d dataset subsets; nested coverage (systems
    # added to a growing suite over time) is where the polynomial search is exact
    rng = np.random.default_rng(seed)
    n_datasets, n_systems = int(rng.integers(2, 8)), int(rng.integers(3, 25))
    datasets = [f"d{k}" for k in range(n_datasets)]
    systems = [f"s{k}" for k in range(n_systems)]
    # system s covers the datasets introduced up to its own introduction time
    start = rng.integers(0, n_datasets, size=n_systems)
    order = rng.permutation(n_datasets)
    coverage = {
        datasets[order[j]]: {s for s, t in zip(systems, start) if t >= j} for j in range(n_datasets)
    }
    coverage = {d: coverage[d] for d in datasets}
    selection = choose_rank_lists({d: sorted(v) for d, v in coverage.items()}, systems)
    best = _brute_force_best(coverage, systems)
    if best == 0:
        return
    assert _score(selection, coverage, systems) == best


@pytest.mark.parametrize("seed", range(40))
def test_choose_rank_lists_against_brute_force_on_random_coverage(seed):
    # brute-force enumeration: on arbitrary coverage the search is a heuristic (the exact
    # problem is a maximum edge biclique, NP-hard), so it must be valid and never better
    # than the optimum, and it must reach it when one system set covers every dataset
    rng = np.random.default_rng(1000 + seed)
    n_datasets, n_systems = int(rng.integers(2, 7)), int(rng.integers(3, 15))
    datasets = [f"d{k}" for k in range(n_datasets)]
    systems = [f"s{k}" for k in range(n_systems)]
    present = rng.random((n_datasets, n_systems)) < rng.uniform(0.3, 0.95)
    coverage = {d: {s for s, p in zip(systems, row) if p} for d, row in zip(datasets, present)}
    selection = choose_rank_lists({d: sorted(v) for d, v in coverage.items()}, systems)
    best = _brute_force_best(coverage, systems)
    got = _score(selection, coverage, systems)
    assert got <= best
    if len(set(systems).intersection(*coverage.values())) == len(systems):
        assert selection.how == "all" and got == best
    # every left-out dataset and system is listed with a reason
    assert {d for d, _ in selection.left_out_datasets} == set(datasets) - set(selection.datasets)
    assert {s for s, _ in selection.left_out_systems} == set(systems) - set(selection.systems)
    assert all(reason for _, reason in selection.left_out_datasets + selection.left_out_systems)


def test_choose_rank_lists_given_and_unknown():
    cov = {"a": ["s1", "s2"], "b": ["s1", "s2", "s3"], "c": ["s3"]}
    sel = choose_rank_lists(cov, ["s1", "s2", "s3"], given=["b"])
    assert (sel.how, sel.datasets, sel.systems) == ("given", ("b",), ("s1", "s2", "s3"))
    assert dict(sel.left_out_datasets)["a"] == "not named in --rank-lists"
    with pytest.raises(InputError) as exc:
        choose_rank_lists(cov, ["s1", "s2", "s3"], given=["nosuch"])
    assert "nosuch" in str(exc.value) and "a, b, c" in exc.value.hint


def _partial_overlap_csv(folder) -> str:
    """Six systems on three datasets: s1..s3 everywhere, s4 and s5 on d1 and d2 only,
    s6 on d3 only. Best set: d1 + d2 with five systems (10 > 3 systems × 3 datasets)."""
    rng = np.random.default_rng(7)
    rows = []
    plan = {
        "d1": ["s1", "s2", "s3", "s4", "s5"],
        "d2": ["s1", "s2", "s3", "s4", "s5"],
        "d3": ["s1", "s2", "s3", "s6"],
    }
    skill = {"s1": 0.8, "s2": 0.6, "s3": 0.4, "s4": 0.5, "s5": 0.55, "s6": 0.3}
    for dataset, systems in plan.items():
        for item in range(60):
            for s in systems:
                rows.append(
                    {
                        "system": s,
                        "dataset": dataset,
                        "item": f"{dataset}-{item}",
                        "metric": "acc",
                        "score": float(rng.random() < skill[s]),
                    }
                )
    path = folder / "scores.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def test_ranking_with_partial_overlap_records_its_selection(tmp_path):
    table = load(_partial_overlap_csv(tmp_path))
    analysis = analyze(table, AnalysisOptions(seed=3, n_resamples=199))
    ranking = analysis.ranking
    assert ranking is not None
    sel = ranking.selection
    assert sel.how == "largest" and sel.datasets == ("d1", "d2")
    assert sel.systems == ("s1", "s2", "s3", "s4", "s5")
    assert set(ranking.systems) == set(sel.systems)
    assert dict(sel.left_out_systems) == {"s6": "no score on d1, d2"}
    assert [d for d, _ in sel.left_out_datasets] == ["d3"]
    doc = analysis.to_results()
    ordered = next(r for r in doc["rankings"] if r["kind"] == "ordered")
    assert ordered["selection"]["how"] == "largest"
    assert ordered["selection"]["datasets"] == ["d1", "d2"]

    given = analyze(table, AnalysisOptions(seed=3, n_resamples=199, rank_lists=("d1", "d3")))
    assert given.ranking is not None
    assert given.ranking.selection.how == "given"
    assert given.ranking.selection.systems == ("s1", "s2", "s3")
    assert given.ranking.selection.left_out_datasets == (("d2", "not named in --rank-lists"),)


def test_cli_rank_lists_flag(tmp_path):
    path = _partial_overlap_csv(tmp_path)
    out = tmp_path / "out"
    code = main(
        [
            "analyze",
            str(path),
            "--out",
            str(out),
            "--seed",
            "1",
            "--n-resamples",
            "99",
            "--rank-lists",
            "d1,d2",
        ]
    )
    assert code == 0
    doc = json.loads((out / "results.json").read_text())
    assert doc["config"]["rank_lists"] == ["d1", "d2"]
    ordered = next(r for r in doc["rankings"] if r["kind"] == "ordered")
    assert ordered["selection"]["datasets"] == ["d1", "d2"]
    assert main(["analyze", str(path), "--out", str(tmp_path / "bad"), "--rank-lists", "d9"]) == 2

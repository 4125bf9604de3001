"""Who leads each benchmark and who is tied with the leader (reportgen.analysis.leaders),
on the shared eval-arena benchmarks, whose system sets only partly overlap: the leader
and the tie against a brute-force scan of the results.json comparison rows, the blocks of
datasets that share their systems against an enumeration of every pair of blocks, the
ranking's leader against its own pairs, and the results.json section read back."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.analysis.leaders import MIN_BLOCK_FILL, Leaders, overlap_blocks
from reportgen.data import load
from reportgen.report.folder.manifest import validate_results

# several layers together (data, analysis): tests/conftest.py's tiers
pytestmark = pytest.mark.integration

#: Three benchmarks of the shared data: humaneval+ and mbpp+ share 37 systems,
#: terminal-bench-2.0 none.
FILES = ("humaneval+.jsonl", "mbpp+.jsonl", "terminal-bench-2.0.jsonl")


@pytest.fixture(scope="module")
def arena(shared_data):
    table = load([str(shared_data / "eval-arena" / f) for f in FILES])
    return analyze(table, AnalysisOptions(seed=2, n_resamples=499))


def test_benchmark_leaders_against_a_scan_of_the_comparison_rows(arena):
    # reference: the best mean by numpy, and the systems tied with it by a plain loop
    # over the unit's results.json comparison rows (significant is the ledger's decision)
    found = arena.leaders
    assert [(b.dataset, b.metric) for b in found.benchmarks] == [
        (u.dataset, u.metric) for u in arena.compared
    ]
    for b, unit in zip(found.benchmarks, arena.compared):
        means = np.asarray(unit.means)
        best = int(np.argmax(means))  # higher is better on pass1
        assert b.leader == unit.systems[best]
        assert b.mean == pytest.approx(means[best])
        assert (b.ci_low, b.ci_high) == pytest.approx(
            (unit.intervals.ci_low[best], unit.intervals.ci_high[best])
        )
        tied = set()
        for row in unit.comparison_records():
            if b.leader in (row["system_a"], row["system_b"]) and not row["significant"]:
                tied.add(row["system_b"] if row["system_a"] == b.leader else row["system_a"])
        assert set(b.tied) == tied
        order = {s: k for k, s in enumerate(unit.systems[k] for k in unit.order())}
        assert list(b.tied) == sorted(b.tied, key=order.__getitem__)  # best first
        assert b.n_systems == len(unit.systems) and b.n_items == unit.n_items
        runner = unit.systems[unit.order()[1]]
        assert b.runner_up == runner
        assert b.ahead_of_runner_up == (runner not in tied)
        assert b.not_compared == ()  # all pairs compared


def test_ranking_leader_against_its_own_pairs(arena):
    # reference: the ranking's pair columns, scanned for the pairs of its first system
    ranking = arena.ranking
    leader = arena.leaders.ranking
    assert ranking is not None and leader is not None
    cols = ranking.pair_columns()
    tied = {
        (b if a == ranking.systems[0] else a)
        for a, b, sig in zip(cols["system_a"], cols["system_b"], cols["significant"])
        if ranking.systems[0] in (a, b) and not sig
    }
    assert leader.leader == ranking.systems[0] and set(leader.tied) == tied
    assert leader.datasets == ("humaneval+", "mbpp+") and leader.n_ranked == 37
    assert leader.n_lists == 2


def test_blocks_and_partial_on_partly_overlapping_benchmarks(arena):
    found = arena.leaders
    assert found.partial  # the ranking covers 37 of 78 systems
    assert [b.datasets for b in found.blocks] == [("humaneval+", "mbpp+"), ("terminal-bench-2.0",)]
    pair, alone = found.blocks
    # the block's rows: the 37 systems scored on both in the ranking's order, then the
    # rest by mean position; every system of the two datasets once
    assert pair.ordered_by == "ranking" and pair.complete == 37
    assert list(pair.systems[:37]) == list(arena.ranking.systems)
    members = set(arena.table.systems_of("humaneval+", "pass1")) | set(
        arena.table.systems_of("mbpp+", "pass1")
    )
    assert set(pair.systems) == members and len(pair.systems) == len(members)
    assert alone.ordered_by == "mean" and alone.complete == len(alone.systems) == 7


@pytest.fixture(scope="module")
def example_analysis():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "examples"
    table = load(root / "data", config=root / "reportgen.toml")
    return analyze(table, AnalysisOptions(seed=1, n_resamples=199))


def test_leaders_not_partial_when_every_system_is_scored_everywhere(example_analysis):
    found = example_analysis.leaders
    assert not found.partial and len(found.blocks) == 1
    assert found.ranking is not None and found.ranking.n_ranked == 12


def _fill(block, coverage):
    union = set().union(*(coverage[d] for d in block))
    return min(len(coverage[d]) / len(union) for d in block)


@pytest.mark.parametrize("seed", range(30))
def test_overlap_blocks_against_enumeration_of_merges(seed):
    # brute force: every block keeps each of its columns at least MIN_BLOCK_FILL full,
    # the blocks partition the datasets, and no two blocks (every pair enumerated)
    # could be merged into one that does and shares a system
    rng = np.random.default_rng(seed)
    n_datasets = int(rng.integers(2, 8))
    families = [[f"f{j}-s{k}" for k in range(int(rng.integers(3, 20)))] for j in range(3)]
    coverage = {}
    for d in range(n_datasets):
        family = families[int(rng.integers(0, 3))]
        keep = rng.random(len(family)) < rng.uniform(0.4, 1.0)
        coverage[f"d{d}"] = [s for s, k in zip(family, keep) if k] or family[:1]
    blocks = overlap_blocks(coverage)
    assert sorted(d for b in blocks for d in b) == sorted(coverage)
    sets = {d: set(v) for d, v in coverage.items()}
    for block in blocks:
        assert _fill(block, sets) >= MIN_BLOCK_FILL - 1e-12
    for a, b in itertools.combinations(blocks, 2):
        ua, ub = set().union(*(sets[d] for d in a)), set().union(*(sets[d] for d in b))
        assert not (ua & ub) or _fill(a + b, sets) < MIN_BLOCK_FILL


def test_overlap_blocks_edge_cases():
    assert overlap_blocks({}) == []
    assert overlap_blocks({"a": ["s"]}) == [("a",)]
    # disjoint system sets of the same size: never merged (half of each column empty)
    assert overlap_blocks({"a": ["s1", "s2"], "b": ["t1", "t2"]}) == [("a",), ("b",)]
    # identical sets merge whatever their order; blocks keep the datasets' order
    cov = {"c": ["x", "y"], "a": ["s", "t"], "b": ["x", "y"], "d": ["s", "t", "u"]}
    assert overlap_blocks(cov) == [("c", "b"), ("a", "d")]


def test_leaders_section_of_results_json_reads_back(arena):
    results = arena.to_results()
    validate_results(results)
    back = Leaders.from_dict(results["leaders"])
    assert back == arena.leaders


def test_benchmark_leaders_tie_against_scipy_exact_mcnemar(arena):
    # scipy: binomtest(only_a, only_a + only_b, 0.5) is the exact McNemar p of a pair.
    # Holm-Šidák rejects every p below the Bonferroni level α/m, so a pair the analysis
    # left tied with the leader has its exact p above it
    for b, unit in zip(arena.leaders.benchmarks, arena.compared):
        if unit.modality != "binary" or not b.tied:
            continue
        view = arena.table.paired(unit.dataset, unit.metric, [b.leader, b.tied[-1]])
        x = view.item_means()
        only_a = int(np.sum((x[:, 0] == 1) & (x[:, 1] == 0)))
        only_b = int(np.sum((x[:, 0] == 0) & (x[:, 1] == 1)))
        p = stats.binomtest(only_a, only_a + only_b, 0.5).pvalue
        assert p > 0.05 / unit.comparisons.n_pairs

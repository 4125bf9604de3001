"""Groups of systems that do not differ (maximal cliques of the non-significance graph)
and compact letters, computed without exponential enumeration.

References: brute-force enumeration of every subset (small graphs), networkx
``find_cliques`` (Bron–Kerbosch) on the real eval-arena comparisons, and Piepho's (2004)
insert-absorb algorithm as the paper states it (implemented here, in the test).
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from reportgen.data import load
from reportgen.stats.pairwise import compare_paired
from reportgen.stats.ranking import (
    MAX_GROUPS,
    compact_letter_display,
    maximal_groups,
    ordered_ranking,
)


def _brute_force_maximal_cliques(A: np.ndarray) -> set[tuple[int, ...]]:
    """Every subset that is a clique and is contained in no larger clique."""
    B = len(A)
    cliques = [
        c
        for r in range(1, B + 1)
        for c in itertools.combinations(range(B), r)
        if all(A[i, j] for i, j in itertools.combinations(c, 2))
    ]
    as_sets = [set(c) for c in cliques]
    return {c for c, s in zip(cliques, as_sets) if not any(s < t for t in as_sets)}


def _insert_absorb(B: int, significant: list[tuple[int, int]]) -> list[frozenset[int]]:
    """Piepho (2004, §2): insert (split a shared letter) then absorb (drop subsets)."""
    columns: list[frozenset[int]] = [frozenset(range(B))]
    for i, j in significant:
        inserted: list[frozenset[int]] = []
        for col in columns:
            if i in col and j in col:
                inserted.extend((col - {i}, col - {j}))
            else:
                inserted.append(col)
        unique = list(dict.fromkeys(inserted))
        columns = [c for c in unique if not any(c < other for other in unique)]
    return sorted(columns, key=sorted)


def _random_graph(rng: np.random.Generator, B: int, kind: str) -> np.ndarray:
    if kind == "interval":
        # systems ordered by mean; i, j not different when their means are close
        means = np.sort(rng.normal(size=B))[::-1]
        A = np.abs(means[:, None] - means[None, :]) < rng.uniform(0.2, 1.5)
    else:
        A = rng.random((B, B)) < rng.uniform(0.2, 0.9)
        A = np.triu(A, 1)
        A = A | A.T
    np.fill_diagonal(A, True)
    return A


@pytest.mark.parametrize("kind", ["interval", "random"])
def test_maximal_groups_against_brute_force_enumeration(kind: str) -> None:
    rng = np.random.default_rng(11)
    methods = set()
    for _ in range(150):
        B = int(rng.integers(1, 10))
        A = _random_graph(rng, B, kind)
        got = maximal_groups(A)
        methods.add(got.method)
        assert got.complete
        assert set(got.groups) == _brute_force_maximal_cliques(A)
        assert list(got.groups) == sorted(got.groups)
    # interval graphs take the O(B^2) path; random ones mostly do not
    assert methods == ({"consecutive"} if kind == "interval" else {"consecutive", "enumerated"})


def test_compact_letter_display_against_insert_absorb() -> None:
    # reference: Piepho's insert-absorb algorithm, run as the paper states it
    rng = np.random.default_rng(5)
    for _ in range(200):
        B = int(rng.integers(1, 9))
        A = _random_graph(rng, B, "interval" if rng.random() < 0.5 else "random")
        names = [f"s{k}" for k in range(B)]
        significant = [(i, j) for i, j in itertools.combinations(range(B), 2) if not A[i, j]]
        cld = compact_letter_display(names, [(names[i], names[j]) for i, j in significant])
        expected = _insert_absorb(B, significant)
        assert [{names.index(s) for s in g} for g in cld.groups] == [set(c) for c in expected]
        assert cld.complete
        # share a letter <=> not significantly different
        for i, j in itertools.combinations(range(B), 2):
            share = bool(set(cld.letters[i]) & set(cld.letters[j]))
            assert share == bool(A[i, j])


def test_maximal_groups_fallback_beyond_the_bound() -> None:
    # Moon & Moser (1965): the complement of k disjoint triangles has 3^k maximal
    # cliques; 3^8 = 6,561 > MAX_GROUPS, and the graph is not an interval graph
    k = 8
    B = 3 * k
    A = np.ones((B, B), dtype=bool)
    for t in range(k):
        block = slice(3 * t, 3 * t + 3)
        A[block, block] = False
    np.fill_diagonal(A, True)
    assert 3**k > MAX_GROUPS
    got = maximal_groups(A)
    assert got.method == "consecutive-fallback" and not got.complete
    for group in got.groups:
        # each fallback group is a run of consecutive systems that do not differ ...
        assert list(group) == list(range(group[0], group[-1] + 1))
        assert all(A[i, j] for i, j in itertools.combinations(group, 2))
        # ... and cannot be extended by its neighbours
        for extra in (group[0] - 1, group[-1] + 1):
            if 0 <= extra < B:
                assert not all(A[extra, j] for j in group)
    # every system is in some group
    assert set().union(*map(set, got.groups)) == set(range(B))
    cld = compact_letter_display([f"s{i}" for i in range(B)], ~A)
    assert not cld.complete and cld.to_dict()["complete"] is False


def test_maximal_groups_1000_systems_in_mean_order() -> None:
    # the leaderboard case: 1,000 systems whose non-differences are an interval
    # structure; reference: the maximal runs by definition, checked pair by pair
    means = np.sort(np.random.default_rng(3).uniform(0, 1, 1000))[::-1]
    A = np.abs(means[:, None] - means[None, :]) < 0.05
    got = maximal_groups(A)
    assert got.method == "consecutive" and got.complete
    starts = [g[0] for g in got.groups]
    assert starts == sorted(set(starts))
    for g in got.groups[:50]:
        assert means[g[0]] - means[g[-1]] < 0.05
        if g[-1] + 1 < len(means):
            assert means[g[0]] - means[g[-1] + 1] >= 0.05


@pytest.mark.parametrize("benchmark", ["humaneval+", "mbpp+", "lcb_codegen", "cruxeval_output"])
def test_ordered_ranking_groups_against_networkx_on_eval_arena(shared_data, benchmark):
    # reference: networkx find_cliques (Bron–Kerbosch) on the same graph, and
    # insert-absorb for the letters: today's results wherever they finish
    table = load(shared_data / "eval-arena" / f"{benchmark}.jsonl")
    [dataset] = table.datasets
    samples = table.paired(dataset, table.metrics_of(dataset)[0])
    X = samples.item_means()
    result = compare_paired(X, systems=samples.systems, rng=1)
    ranking = ordered_ranking(X.mean(axis=0), result)
    g = nx.Graph()
    g.add_nodes_from(ranking.systems)
    g.add_edges_from((a, b) for a, b, _ in ranking.edges)
    expected = sorted(
        tuple(sorted(c, key=ranking.systems.index)) for c in nx.find_cliques(g) if len(c) >= 2
    )
    expected.sort(key=lambda c: [ranking.systems.index(s) for s in c])
    assert list(ranking.cliques) == expected
    B = len(ranking.systems)
    significant = [
        (i, j)
        for i, j in itertools.combinations(range(B), 2)
        if not g.has_edge(ranking.systems[i], ranking.systems[j])
    ]
    columns = _insert_absorb(B, significant)
    letters = compact_letter_display(
        ranking.systems, [(ranking.systems[i], ranking.systems[j]) for i, j in significant]
    )
    assert [tuple(ranking.systems.index(s) for s in grp) for grp in letters.groups] == [
        tuple(sorted(c)) for c in columns
    ]
    assert ranking.letters == letters.letters

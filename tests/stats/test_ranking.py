"""Tests of reportgen.stats.ranking against independent references: exhaustive
enumeration of bootstrap resamples, scipy (rankdata, studentized_range, kendalltau,
norm), numpy quantiles, networkx maximal cliques, closed forms, the MCDA R package's
published TOPSIS example, and coverage simulations."""

from __future__ import annotations

import itertools
import json
import math
import time

import networkx as nx
import numpy as np
import pytest
from scipy import stats

from reportgen.data import load
from reportgen.errors import DegenerateDataWarning, InputError, OneSidedWarning
from reportgen.stats.pairwise import compare_paired
from reportgen.stats.ranking import (
    compact_letter_display,
    ordered_ranking,
    rank_agreement,
    rank_distributions,
    simultaneous_rank_intervals,
    topsis,
)

# ============================================================================ helpers


def _exact_paired_rank_probs(X: np.ndarray) -> np.ndarray:
    """P(rank = r) of each system over all n**n equally likely bootstrap index
    sequences (brute-force enumeration), min-rank ties, higher is better."""
    n, B = X.shape
    idx = np.array(list(itertools.product(range(n), repeat=n)))
    sums = X[idx].sum(axis=1)  # (n**n, B)
    ranks = stats.rankdata(-sums, method="min", axis=1).astype(int)
    return np.stack([np.bincount(ranks[:, j] - 1, minlength=B) for j in range(B)]) / len(idx)


def _exact_unpaired_rank_probs(arrays: list[np.ndarray]) -> np.ndarray:
    """Same for independent resampling of each system: the bootstrap means of every
    system enumerated, then all combinations (product measure)."""
    means = []
    for x in arrays:
        idx = np.array(list(itertools.product(range(len(x)), repeat=len(x))))
        means.append(x[idx].mean(axis=1))
    grids = np.meshgrid(*means, indexing="ij")
    M = np.stack([g.ravel() for g in grids], axis=1)
    ranks = stats.rankdata(-M, method="min", axis=1).astype(int)
    B = len(arrays)
    return np.stack([np.bincount(ranks[:, j] - 1, minlength=B) for j in range(B)]) / len(M)


def _mc_tolerance(p: np.ndarray, R: int) -> np.ndarray:
    """4.5 Monte Carlo standard errors of a proportion, plus a floor for p near 0/1."""
    return 4.5 * np.sqrt(p * (1 - p) / R) + 1e-3


# ============================================================================ rank distributions


def test_rank_distributions_against_enumeration_paired() -> None:
    # reference: all 5**5 bootstrap index sequences enumerated (_exact_paired_rank_probs)
    X = np.array(
        [[0.9, 0.1, 0.5], [0.2, 0.8, 0.4], [0.7, 0.6, 0.55], [0.4, 0.3, 0.6], [1.0, 0.2, 0.45]]
    )
    R = 20000
    res = rank_distributions(X, paired=True, n_resamples=R, rng=3)
    exact = _exact_paired_rank_probs(X)
    assert np.all(np.abs(res.probabilities() - exact) <= _mc_tolerance(exact, R))
    assert np.allclose(res.p_best, res.probabilities()[:, 0])
    assert res.rank_counts.sum(axis=1).tolist() == [R] * 3


def test_rank_distributions_against_enumeration_paired_binary_ties() -> None:
    # reference: enumeration; 0/1 scores give exact ties in resamples (min rank)
    X = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0]], dtype=float)
    R = 20000
    res = rank_distributions(X, paired=True, n_resamples=R, rng=4)
    exact = _exact_paired_rank_probs(X)
    assert np.all(np.abs(res.probabilities() - exact) <= _mc_tolerance(exact, R))
    # systems 1 and 2 tie on the data: both observed rank 1 (scipy rankdata "min")
    assert res.rank.tolist() == stats.rankdata(-X.mean(axis=0), method="min").tolist()


def test_rank_distributions_against_enumeration_unpaired() -> None:
    # reference: independent enumeration of each system's 4**4 or 3**3 resamples
    arrays = [
        np.array([0.2, 0.9, 0.5, 0.4]),
        np.array([0.6, 0.3, 0.7]),
        np.array([1.0, 0.0, 1.0, 1.0]),
    ]  # the last is binary (binomial path)
    R = 20000
    res = rank_distributions(arrays, paired=False, n_resamples=R, rng=5)
    exact = _exact_unpaired_rank_probs(arrays)
    assert np.all(np.abs(res.probabilities() - exact) <= _mc_tolerance(exact, R))


def test_rank_distributions_against_numpy_quantiles() -> None:
    # numpy: np.quantile(ranks, q, method="inverted_cdf") on the expanded rank sample
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 6)) + np.linspace(0, 0.6, 6)
    res = rank_distributions(X, paired=True, n_resamples=3000, rng=1, confidence=0.9)
    for i in range(6):
        sample = np.repeat(np.arange(1, 7), res.rank_counts[i])
        assert res.ci_low[i] == np.quantile(sample, 0.05, method="inverted_cdf")
        assert res.ci_high[i] == np.quantile(sample, 0.95, method="inverted_cdf")
        assert res.median_rank[i] == np.quantile(sample, 0.5, method="inverted_cdf")
        assert res.mean_rank[i] == pytest.approx(sample.mean())
    # scipy: rankdata(-means, method="min")
    assert res.rank.tolist() == stats.rankdata(-X.mean(axis=0), method="min").tolist()


def test_rank_distributions_direction_lower_mirrors_higher() -> None:
    # closed form: ranking -X with "higher" equals ranking X with "lower" (same draws)
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 4))
    hi = rank_distributions(-X, paired=True, n_resamples=500, rng=9)
    lo = rank_distributions(X, paired=True, n_resamples=500, rng=9, direction="lower")
    assert np.array_equal(hi.rank_counts, lo.rank_counts)
    assert np.array_equal(hi.rank, lo.rank)


def test_rank_distributions_edge_cases() -> None:
    # constant scores: every resample ties all systems -> rank 1 for all, P(best) = 1
    res = rank_distributions(np.ones((5, 3)), paired=True, n_resamples=200, rng=0)
    assert res.rank.tolist() == [1, 1, 1] and res.p_best.tolist() == [1.0, 1.0, 1.0]
    # separated systems: deterministic ranks
    X = np.column_stack([np.full(4, 3.0), np.full(4, 2.0), np.full(4, 1.0)])
    res = rank_distributions(X, paired=True, n_resamples=100, rng=0)
    assert res.rank_counts.tolist() == [[100, 0, 0], [0, 100, 0], [0, 0, 100]]
    assert res.ci_low.tolist() == res.ci_high.tolist() == [1, 2, 3]
    # one item per unpaired system is allowed (a point mass)
    res = rank_distributions(
        [np.array([0.3]), np.array([0.5])], paired=False, n_resamples=50, rng=0
    )
    assert res.rank.tolist() == [2, 1] and res.p_best.tolist() == [0.0, 1.0]
    d = res.to_dict()
    json.dumps(d)
    assert d["systems"][1]["rank_probabilities"] == [1.0, 0.0]
    assert res.order() == ("system 2", "system 1")


def test_rank_distributions_input_validation() -> None:
    with pytest.raises(InputError, match="direction"):
        rank_distributions(np.ones((3, 2)), paired=True, direction="up")  # type: ignore
    with pytest.raises(InputError, match="items × systems"):
        rank_distributions(np.ones((3, 2, 2)), paired=True)
    with pytest.raises(InputError, match="at least 2"):
        rank_distributions(np.ones((3, 1)), paired=True)
    with pytest.raises(InputError, match="NaN"):
        rank_distributions(np.array([[1.0, np.nan], [0.0, 1.0]]), paired=True)
    with pytest.raises(InputError, match="no items"):
        rank_distributions([np.array([1.0]), np.array([])], paired=False)
    with pytest.raises(InputError, match="n_resamples"):
        rank_distributions(np.ones((3, 2)), paired=True, n_resamples=0)
    with pytest.raises(InputError, match="confidence"):
        rank_distributions(np.ones((3, 2)), paired=True, confidence=1.5)
    with pytest.raises(InputError, match="names"):
        rank_distributions(np.ones((3, 2)), paired=True, systems=["a"])


@pytest.mark.slow
def test_rank_distributions_speed_50_systems_10000_items() -> None:
    # target of issue 5: 50 systems × 10,000 items × R = 10,000 paired in under 5 s
    rng = np.random.default_rng(0)
    X = (rng.random((10000, 50)) < np.linspace(0.3, 0.7, 50)).astype(float)
    start = time.perf_counter()
    res = rank_distributions(X, paired=True, n_resamples=10000, rng=1)
    assert time.perf_counter() - start < 5.0
    assert res.rank_counts.sum() == 10000 * 50


# ============================================================================ simultaneous


def test_simultaneous_rank_intervals_against_closed_form_two_systems() -> None:
    # closed form: one pair, q = z_{0.975} = scipy.stats.norm.ppf(0.975); se of the
    # difference sqrt(0.3**2 + 0.4**2) = 0.5, so a difference of 1.0 gives z = 2 > 1.96
    res = simultaneous_rank_intervals(np.array([1.0, 0.0]), np.array([0.3, 0.4]))
    assert res.critical_value == pytest.approx(stats.norm.ppf(0.975), rel=1e-12)
    assert res.critical_value_exact
    assert (res.ci_low.tolist(), res.ci_high.tolist()) == ([1, 2], [1, 2])
    res = simultaneous_rank_intervals(np.array([0.97, 0.0]), np.array([0.3, 0.4]))
    assert (res.ci_low.tolist(), res.ci_high.tolist()) == ([1, 1], [2, 2])


def test_simultaneous_rank_intervals_against_studentized_range() -> None:
    # scipy: studentized_range.ppf(0.95, 6, inf) / sqrt(2) is the Tukey critical value of
    # 6 independent equal-SE means; the simulated one (SEs equal up to 1e-9, forcing the
    # simulation) must agree within its Monte Carlo error (~0.01 at 20,000 draws)
    ref = stats.studentized_range.ppf(0.95, 6, np.inf) / math.sqrt(2)
    ses = np.ones(6)
    ses[-1] += 1e-9
    res = simultaneous_rank_intervals(np.zeros(6), ses, n_simulations=40000, rng=7)
    assert not res.critical_value_exact and res.n_simulations == 40000
    assert res.critical_value == pytest.approx(ref, abs=0.03)
    exact = simultaneous_rank_intervals(np.zeros(6), np.ones(6))
    assert exact.critical_value_exact
    assert exact.critical_value == pytest.approx(ref, rel=1e-12)


def test_simultaneous_rank_intervals_against_hand_computation() -> None:
    # closed form: equal SE 0.3 -> sd of a difference 0.3*sqrt(2); q = studentized range
    # / sqrt(2); 3 - 1 and 3 - 0.9 exceed q*sd ~ 0.99 but 1 - 0.9 does not
    res = simultaneous_rank_intervals(
        np.array([1.0, 3.0, 0.9]), np.full(3, 0.3), systems=["b", "a", "c"]
    )
    assert res.ci_low.tolist() == [2, 1, 2] and res.ci_high.tolist() == [3, 1, 3]
    assert res.rank.tolist() == [2, 1, 3]
    assert res.n_better.tolist() == [1, 0, 1] and res.n_worse.tolist() == [0, 2, 0]
    # Bonferroni: q = norm.ppf(1 - 0.05 / 6) for 3 pairs; Šidák: norm.ppf((1 + 0.95**(1/3))/2)
    bon = simultaneous_rank_intervals(
        np.array([1.0, 3.0, 0.9]), np.full(3, 0.3), method="bonferroni"
    )
    assert bon.critical_value == pytest.approx(stats.norm.ppf(1 - 0.05 / 6))
    sid = simultaneous_rank_intervals(np.array([1.0, 3.0, 0.9]), np.full(3, 0.3), method="sidak")
    assert sid.critical_value == pytest.approx(stats.norm.ppf((1 + 0.95 ** (1 / 3)) / 2))
    assert sid.critical_value < bon.critical_value
    # direction "lower": the smallest mean is best
    low = simultaneous_rank_intervals(np.array([1.0, 3.0, 0.9]), np.full(3, 0.3), direction="lower")
    assert low.ci_low.tolist() == [1, 3, 1] and low.ci_high.tolist() == [2, 3, 2]


def _coverage(
    theta: np.ndarray,
    ses: np.ndarray,
    q: float,
    trials: int,
    rng: np.random.Generator,
    cov: np.ndarray | None = None,
) -> tuple[float, float, bool]:
    """Share of trials whose intervals contain every true rank; share with no
    significant pair; whether the observed rank was always inside."""
    true_rank = stats.rankdata(-theta, method="min")
    covered = no_sig = 0
    observed_inside = True
    for _ in range(trials):
        if cov is None:
            est = theta + ses * rng.standard_normal(len(theta))
            res = simultaneous_rank_intervals(est, ses, critical_value=q)
        else:
            est = rng.multivariate_normal(theta, cov)
            res = simultaneous_rank_intervals(est, covariance=cov, critical_value=q)
        covered += bool(np.all((res.ci_low <= true_rank) & (true_rank <= res.ci_high)))
        no_sig += bool(np.all(res.ci_low == 1) and np.all(res.ci_high == len(theta)))
        observed_inside &= bool(np.all((res.ci_low <= res.rank) & (res.rank <= res.ci_high)))
    return covered / trials, no_sig / trials, observed_inside


def test_simultaneous_rank_intervals_coverage_simulation() -> None:
    # simulation of size: estimates ~ N(theta, se^2); the intervals must contain all true
    # ranks in >= 95% of trials (minus 3 MC SEs), and with all theta equal the share of
    # trials with no significant pair must be 95% (the definition of q) within 4 MC SEs
    rng = np.random.default_rng(11)
    ses = np.array([0.5, 1.0, 1.0, 1.5, 2.0])
    q = simultaneous_rank_intervals(np.zeros(5), ses, n_simulations=200000, rng=1).critical_value
    trials = 1500
    se_mc = math.sqrt(0.05 * 0.95 / trials)
    cov, _, inside = _coverage(np.array([0.0, 1.0, 2.0, 3.5, 5.0]), ses, q, trials, rng)
    assert cov >= 0.95 - 3 * se_mc and inside
    _, no_sig, inside = _coverage(np.zeros(5), ses, q, trials, rng)
    assert abs(no_sig - 0.95) <= 4 * se_mc and inside


def test_simultaneous_rank_intervals_coverage_simulation_correlated() -> None:
    # simulation of size with correlated (paired) estimates and the covariance option
    rng = np.random.default_rng(12)
    sd = np.array([1.0, 1.2, 0.8, 1.0])
    corr = np.full((4, 4), 0.7) + 0.3 * np.eye(4)
    cov = corr * np.outer(sd, sd)
    q = simultaneous_rank_intervals(
        np.zeros(4), covariance=cov, n_simulations=200000, rng=2
    ).critical_value
    trials = 1500
    se_mc = math.sqrt(0.05 * 0.95 / trials)
    _, no_sig, inside = _coverage(np.zeros(4), sd, q, trials, rng, cov=cov)
    assert abs(no_sig - 0.95) <= 4 * se_mc and inside
    # a diagonal covariance is the same as independent SEs
    a = simultaneous_rank_intervals(np.array([0.0, 3.0, 1.0]), np.array([0.5, 0.5, 0.6]), rng=3)
    b = simultaneous_rank_intervals(
        np.array([0.0, 3.0, 1.0]), covariance=np.diag([0.25, 0.25, 0.36]), rng=3
    )
    assert a.critical_value == b.critical_value
    assert a.ci_low.tolist() == b.ci_low.tolist() and a.ci_high.tolist() == b.ci_high.tolist()


@pytest.mark.slow
def test_simultaneous_rank_intervals_coverage_simulation_large() -> None:
    # larger simulation of size: 12 systems, 20,000 trials, spaced and equal theta
    rng = np.random.default_rng(13)
    ses = np.linspace(0.5, 2.0, 12)
    q = simultaneous_rank_intervals(np.zeros(12), ses, n_simulations=400000, rng=1).critical_value
    trials = 20000
    se_mc = math.sqrt(0.05 * 0.95 / trials)
    cov, _, inside = _coverage(np.linspace(0, 6, 12), ses, q, trials, rng)
    assert cov >= 0.95 - 3 * se_mc and inside
    _, no_sig, inside = _coverage(np.zeros(12), ses, q, trials, rng)
    assert abs(no_sig - 0.95) <= 4 * se_mc and inside


def test_simultaneous_rank_intervals_edge_cases() -> None:
    # zero SEs: ranks known exactly (pairs decided by the means), with a warning
    with pytest.warns(DegenerateDataWarning, match="zero standard error"):
        res = simultaneous_rank_intervals(np.array([2.0, 1.0, 2.0]), np.zeros(3))
    assert res.ci_low.tolist() == [1, 3, 1] and res.ci_high.tolist() == [2, 3, 2]
    # ties in the estimates: every tie-breaking of the observed ranks is inside
    res = simultaneous_rank_intervals(np.array([1.0, 1.0, 5.0]), np.full(3, 0.1))
    assert res.ci_low.tolist() == [2, 2, 1] and res.ci_high.tolist() == [3, 3, 1]
    json.dumps(res.to_dict())
    assert res.to_records()[2]["rank_ci_high"] == 1


def test_simultaneous_rank_intervals_input_validation() -> None:
    m = np.array([1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="exactly one of ses and covariance"):
        simultaneous_rank_intervals(m)
    with pytest.raises(InputError, match="exactly one of ses and covariance"):
        simultaneous_rank_intervals(m, np.ones(3), covariance=np.eye(3))
    with pytest.raises(InputError, match="shape"):
        simultaneous_rank_intervals(m, np.ones(2))
    with pytest.raises(InputError, match="non-negative"):
        simultaneous_rank_intervals(m, np.array([1.0, -1.0, 1.0]))
    with pytest.raises(InputError, match="non-negative"):
        simultaneous_rank_intervals(m, np.array([1.0, np.nan, 1.0]))
    with pytest.raises(InputError, match="NaN"):
        simultaneous_rank_intervals(np.array([1.0, np.nan]), np.ones(2))
    with pytest.raises(InputError, match="method"):
        simultaneous_rank_intervals(m, np.ones(3), method="holm")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="positive semi-definite"):
        simultaneous_rank_intervals(m, covariance=np.array([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]]))
    with pytest.raises(InputError, match="symmetric"):
        simultaneous_rank_intervals(m, covariance=np.array([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]]))
    with pytest.raises(InputError, match="critical_value"):
        simultaneous_rank_intervals(m, np.ones(3), critical_value=-1.0)
    with pytest.raises(InputError, match="at least 2"):
        simultaneous_rank_intervals(np.array([1.0]), np.ones(1))


# ============================================================================ ordered ranking


def _check_cliques(res, sig_of) -> None:
    """Brute force: every pair inside a clique is non-significant, every non-significant
    pair lies in some clique, cliques are maximal, isolated systems have no edge."""
    names = res.systems
    for clique in res.cliques:
        for a, b in itertools.combinations(clique, 2):
            assert not sig_of(a, b)
        for outside in set(names) - set(clique):
            assert any(sig_of(outside, member) for member in clique)
    for a, b in itertools.combinations(names, 2):
        if not sig_of(a, b):
            assert any(a in c and b in c for c in res.cliques)
    for s in names:
        assert (s in res.isolated) == all(sig_of(s, t) for t in names if t != s)


def test_ordered_ranking_against_hand_built_case() -> None:
    # hand-built: means d > a > c > b > e; significant (p <= 0.05): all pairs except
    # d-a, a-c, d-c (a clique of 3) and c-b; e is different from everyone
    names = ["a", "b", "c", "d", "e"]
    means = np.array([0.8, 0.5, 0.7, 0.9, 0.1])
    P = np.full((5, 5), 0.001)
    np.fill_diagonal(P, np.nan)
    for x, y, p in (("d", "a", 0.5), ("a", "c", 0.2), ("d", "c", 0.06), ("c", "b", 0.3)):
        i, j = names.index(x), names.index(y)
        P[i, j] = P[j, i] = p
    res = ordered_ranking(means, P, systems=names)
    assert res.systems == ("d", "a", "c", "b", "e")
    assert res.rank.tolist() == [1, 2, 3, 4, 5]
    assert res.cliques == (("d", "a", "c"), ("c", "b"))
    assert res.isolated == ("e",)
    assert res.letters == ("a", "a", "ab", "b", "c")
    assert res.edges == (("d", "a", 0.5), ("d", "c", 0.06), ("a", "c", 0.2), ("c", "b", 0.3))
    g = res.graph()
    assert isinstance(g, nx.Graph) and not g.is_directed()
    assert g.nodes["d"]["rank"] == 1 and g.edges["a", "c"]["p_adjusted"] == 0.2
    d = res.to_dict()
    json.dumps(d)
    assert d["nodes"][0] == {"system": "d", "mean": 0.9, "rank": 1}
    assert d["edges"][0] == {"source": "d", "target": "a", "p_adjusted": 0.5}
    recs = res.to_records()
    assert recs[2]["cliques"] == [0, 1] and recs[4]["isolated"]
    _check_cliques(res, lambda x, y: P[names.index(x), names.index(y)] <= 0.05)


def test_ordered_ranking_against_brute_force_on_humaneval(shared_data) -> None:
    # real data: exact McNemar on humaneval+ (49 systems × 164 items), Holm-Šidák;
    # reference: brute-force check of every pair against PairwiseResult.significant()
    table = load(shared_data / "eval-arena" / "humaneval+.jsonl")
    paired = table.paired("humaneval+", "pass1")
    X = np.asarray(paired.scores, dtype=float)
    pw = compare_paired(X, systems=list(paired.systems))
    sig = dict(zip(zip(pw.system_a, pw.system_b), pw.significant()))

    def sig_of(a: str, b: str) -> bool:
        return bool(sig[(a, b)] if (a, b) in sig else sig[(b, a)])

    res = ordered_ranking(X.mean(axis=0), pw)
    assert len(res.systems) == X.shape[1]
    assert np.all(np.diff(res.mean) <= 0)  # best first
    assert res.alpha == pw.alpha and res.order == "all-pairs" and not res.directed
    _check_cliques(res, sig_of)
    # cliques equal networkx's maximal cliques of the non-significance graph (size >= 2)
    g = nx.Graph()
    g.add_nodes_from(pw.systems)
    g.add_edges_from(p for p, s in sig.items() if not s)
    ref = {frozenset(c) for c in nx.find_cliques(g) if len(c) >= 2}
    assert {frozenset(c) for c in res.cliques} == ref
    best = [min(res.systems.index(s) for s in c) for c in res.cliques]
    assert best == sorted(best)  # by best member's mean
    # letters: two systems share a letter iff not significantly different
    for (i, a), (j, b) in itertools.combinations(enumerate(res.systems), 2):
        assert bool(set(res.letters[i]) & set(res.letters[j])) == (not sig_of(a, b))
    json.dumps(res.to_dict())


def test_ordered_ranking_one_sided_successive_is_directed() -> None:
    # seed 000 §7.1: with successive comparisons, right-tailed tests in descending order
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4)) + np.array([0.0, 0.1, 0.8, 0.85])
    order = np.argsort(-X.mean(axis=0))
    Xs = X[:, order]
    with pytest.warns(OneSidedWarning):
        pw = compare_paired(Xs, order="successive", alternative="greater")
    res = ordered_ranking(Xs.mean(axis=0), pw)
    assert res.directed and isinstance(res.graph(), nx.DiGraph)
    assert res.cliques == () and res.letters is None and res.notes
    # every edge goes from the better to the next system and is non-significant
    p = dict(zip(zip(pw.system_a, pw.system_b), pw.p_adjusted))
    for a, b, pv in res.edges:
        assert res.systems.index(a) + 1 == res.systems.index(b)
        assert p[(a, b)] > pw.alpha and pv == pytest.approx(p[(a, b)])
    n_nonsig = int((~pw.significant()).sum())
    assert len(res.edges) == n_nonsig


def test_ordered_ranking_edge_cases() -> None:
    # all pairs significant: no cliques, every system isolated, one letter each
    P = np.array([[np.nan, 0.01], [0.01, np.nan]])
    res = ordered_ranking(np.array([0.2, 0.4]), P)
    assert res.cliques == () and res.isolated == ("system 2", "system 1")
    assert res.letters == ("a", "b")
    # NaN p-value (untestable pair) is not significant; lower is better
    P = np.array([[np.nan, np.nan, 0.5], [np.nan, np.nan, 0.01], [0.5, 0.01, np.nan]])
    res = ordered_ranking(np.array([1.0, 2.0, 3.0]), P, direction="lower", order="first-vs-rest")
    assert res.systems == ("system 1", "system 2", "system 3")
    assert res.edges == (("system 1", "system 3", 0.5),)
    # ties in the means keep the input order and share the min rank
    P = np.array([[np.nan, 0.9], [0.9, np.nan]])
    res = ordered_ranking(np.array([0.5, 0.5]), P, systems=["x", "y"])
    assert res.systems == ("x", "y") and res.rank.tolist() == [1, 1]
    assert res.cliques == (("x", "y"),) and res.letters == ("a", "a")


def test_ordered_ranking_input_validation() -> None:
    P = np.array([[np.nan, 0.2], [0.2, np.nan]])
    with pytest.raises(InputError, match="shape"):
        ordered_ranking(np.array([1.0, 2.0, 3.0]), P)
    with pytest.raises(InputError, match="symmetric"):
        ordered_ranking(np.array([1.0, 2.0]), np.array([[np.nan, 0.2], [0.3, np.nan]]))
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        ordered_ranking(np.array([1.0, 2.0]), np.array([[np.nan, 2.0], [2.0, np.nan]]))
    with pytest.raises(InputError, match="all-pairs"):
        ordered_ranking(
            np.array([1.0, 2.0, 3.0]),
            np.array([[np.nan, 0.2, np.nan], [0.2, np.nan, 0.1], [np.nan, 0.1, np.nan]]),
        )
    with pytest.raises(InputError, match="alpha"):
        ordered_ranking(np.array([1.0, 2.0]), P, alpha=1.5)
    with pytest.raises(InputError, match="order"):
        ordered_ranking(np.array([1.0, 2.0]), P, order="pairs")  # type: ignore[arg-type]
    pw = compare_paired(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]]))
    with pytest.raises(InputError, match="but the comparisons used"):
        ordered_ranking(np.array([1.0, 2.0]), pw, order="successive")
    with pytest.raises(InputError, match="means for the 2 systems"):
        ordered_ranking(np.array([1.0, 2.0, 3.0]), pw)
    with pytest.raises(InputError, match="do not match"):
        ordered_ranking(np.array([1.0, 2.0]), pw, systems=["p", "q"])


# ============================================================================ letters


def test_compact_letter_display_against_textbook_example() -> None:
    # the staircase of a Tukey HSD letter display (e.g. Piepho 2004, Fig. 1 pattern):
    # A > B > C > D, significant A-C, A-D, B-D -> groups {A,B}, {B,C}, {C,D}
    cld = compact_letter_display(["A", "B", "C", "D"], [("A", "C"), ("D", "A"), ("B", "D")])
    assert cld.letters == ("a", "ab", "bc", "c")
    assert cld.groups == (("A", "B"), ("B", "C"), ("C", "D"))
    # a non-staircase pattern: only B-C significant -> {A,B,D} = a, {A,C,D} = b
    cld = compact_letter_display(["A", "B", "C", "D"], [("B", "C")])
    assert cld.letters == ("ab", "a", "b", "ab")
    json.dumps(cld.to_dict())
    assert cld.to_records()[0] == {"system": "A", "letters": "ab"}


def test_compact_letter_display_against_networkx_cliques() -> None:
    # networkx: find_cliques of the non-significance graph are exactly the letter groups;
    # the defining property (share a letter iff not significant) on random patterns
    rng = np.random.default_rng(21)
    for _trial in range(60):
        B = int(rng.integers(2, 9))
        names = [f"s{k}" for k in range(B)]
        S = np.triu(rng.random((B, B)) < rng.uniform(0.1, 0.9), k=1)
        S = S | S.T
        cld = compact_letter_display(names, S)
        g = nx.Graph()
        g.add_nodes_from(range(B))
        g.add_edges_from((i, j) for i in range(B) for j in range(i + 1, B) if not S[i, j])
        ref = {frozenset(names[k] for k in c) for c in nx.find_cliques(g)}
        assert {frozenset(grp) for grp in cld.groups} == ref
        for i, j in itertools.combinations(range(B), 2):
            assert bool(set(cld.letters[i]) & set(cld.letters[j])) == (not S[i, j])
        assert all(cld.letters)  # >= 1 letter each
        assert "a" in cld.letters[0]  # best gets "a"
        firsts = [min(names.index(s) for s in grp) for grp in cld.groups]
        assert firsts == sorted(firsts)


def test_compact_letter_display_edge_cases() -> None:
    cld = compact_letter_display(["only"], [])
    assert cld.letters == ("a",)
    cld = compact_letter_display(["x", "y", "z"], [])
    assert cld.letters == ("a", "a", "a")
    # 60 mutually different systems: labels run a..z, A..Z, then a1, ... comma-separated
    names = [f"s{k}" for k in range(60)]
    cld = compact_letter_display(names, list(itertools.combinations(names, 2)))
    assert cld.letters[0] == "a" and cld.letters[26] == "A" and cld.letters[52] == "a1"


def test_compact_letter_display_input_validation() -> None:
    with pytest.raises(InputError, match="unknown system"):
        compact_letter_display(["a", "b"], [("a", "c")])
    with pytest.raises(InputError, match="itself"):
        compact_letter_display(["a", "b"], [("a", "a")])
    with pytest.raises(InputError, match="distinct"):
        compact_letter_display(["a", "a"], [])
    with pytest.raises(InputError, match="symmetric"):
        compact_letter_display(["a", "b"], np.array([[False, True], [False, False]]))
    with pytest.raises(InputError, match="no systems"):
        compact_letter_display([], [])


# ============================================================================ TOPSIS


def test_topsis_against_closed_form_2x2() -> None:
    # closed form: columns have norm 5, v = [[0.6, 0.15], [0.45, 0.2]];
    # benefit/benefit: S+ = (0.05, 0.15), S- = (0.15, 0.05) -> C = (0.75, 0.25)
    X = np.array([[4.0, 3.0], [3.0, 4.0]])
    res = topsis(X, weights=[0.75, 0.25])
    assert res.score == pytest.approx([0.75, 0.25], abs=1e-12)
    assert res.distance_ideal == pytest.approx([0.05, 0.15], abs=1e-12)
    assert res.rank.tolist() == [1, 2]
    # second metric a cost: system 1 is the ideal itself -> C = (1, 0)
    res = topsis(X, weights=[3, 1], directions=["higher", "lower"])
    assert res.score == pytest.approx([1.0, 0.0], abs=1e-12)
    assert res.weights == pytest.approx([0.75, 0.25])


def test_topsis_against_mcda_r_package_example() -> None:
    # R package MCDA, example of TOPSIS(): Corsa/Clio/Fiesta, weights (0.35, 0.25, 0.25,
    # 0.15), criteria (min, max, max, max); the example lists the weighted normalised
    # positive and negative ideal solutions
    X = np.array([[5490, 51.4, 8.5, 285], [6500, 70.6, 7, 288], [6489, 54.3, 7.5, 290]])
    res = topsis(
        X,
        directions=["lower", "higher", "higher", "higher"],
        weights=[0.35, 0.25, 0.25, 0.15],
        systems=["Corsa", "Clio", "Fiesta"],
    )
    assert res.ideal == pytest.approx(
        [0.179573776, 0.171636015, 0.159499658, 0.087302767], abs=1e-9
    )
    assert res.anti_ideal == pytest.approx(
        [0.212610118, 0.124958799, 0.131352659, 0.085797547], abs=1e-9
    )
    # closeness from the published ideal points (independent of the code's own ones)
    norm = np.sqrt((X**2).sum(axis=0))
    V = X / norm * np.array([0.35, 0.25, 0.25, 0.15])
    sp = np.sqrt(((V - [0.179573776, 0.171636015, 0.159499658, 0.087302767]) ** 2).sum(1))
    sm = np.sqrt(((V - [0.212610118, 0.124958799, 0.131352659, 0.085797547]) ** 2).sum(1))
    assert res.score == pytest.approx(sm / (sp + sm), abs=1e-8)
    assert res.order() == ("Clio", "Corsa", "Fiesta")
    json.dumps(res.to_dict())


def test_topsis_edge_cases() -> None:
    with pytest.warns(DegenerateDataWarning, match="identical"):
        res = topsis(np.ones((3, 2)))
    assert np.isnan(res.score).all()
    with pytest.warns(DegenerateDataWarning, match="zeros"):
        res = topsis(np.array([[1.0, 0.0], [2.0, 0.0]]))
    assert res.score == pytest.approx([0.0, 1.0])
    # negative means (aggregate scores can be negative): order is kept
    res = topsis(np.array([[-0.1], [0.2], [0.05]]))
    assert res.order() == ("system 2", "system 3", "system 1")


def test_topsis_input_validation() -> None:
    with pytest.raises(InputError, match="2-D"):
        topsis(np.ones(3))
    with pytest.raises(InputError, match="NaN"):
        topsis(np.array([[1.0, np.nan]]))
    with pytest.raises(InputError, match="directions"):
        topsis(np.ones((2, 2)), directions=["higher"])
    with pytest.raises(InputError, match="direction"):
        topsis(np.ones((2, 2)), directions="up")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="weights"):
        topsis(np.ones((2, 2)), weights=[1.0])
    with pytest.raises(InputError, match="non-negative"):
        topsis(np.ones((2, 2)), weights=[1.0, -1.0])


# ============================================================================ agreement


def test_rank_agreement_against_scipy_kendalltau() -> None:
    # scipy: kendalltau(positions_a, positions_b); brute force for the swapped pairs
    rng = np.random.default_rng(8)
    names = [f"s{k}" for k in range(9)]
    for _ in range(20):
        a = list(rng.permutation(names))
        b = list(rng.permutation(names))
        res = rank_agreement(a, b)
        ref = stats.kendalltau([a.index(s) for s in names], [b.index(s) for s in names])
        assert res.tau == pytest.approx(ref.statistic, abs=1e-12)
        assert res.p_value == pytest.approx(ref.pvalue, rel=1e-9)
        brute = {(x, y) for x, y in itertools.combinations(a, 2) if b.index(y) < b.index(x)}
        assert set(res.swapped) == brute
        assert res.concordant + res.discordant == 36


def test_rank_agreement_edge_cases() -> None:
    res = rank_agreement(["a", "b", "c"], ["a", "b", "c"])
    assert res.tau == 1.0 and res.swapped == ()
    res = rank_agreement(["a", "b", "c"], ["c", "b", "a"])
    assert res.tau == -1.0 and len(res.swapped) == 3
    json.dumps(res.to_dict())
    assert res.to_records()[0] == {"first_in_a": "a", "first_in_b": "b"}


def test_rank_agreement_input_validation() -> None:
    with pytest.raises(InputError, match="different systems"):
        rank_agreement(["a", "b"], ["a", "c"])
    with pytest.raises(InputError, match="repeats"):
        rank_agreement(["a", "a"], ["a", "a"])
    with pytest.raises(InputError, match="at least 2"):
        rank_agreement(["a"], ["a"])


@pytest.mark.parametrize("every_pair", [True, False])
def test_simulated_max_statistic_against_gathering_every_pair(every_pair):
    # reference: the plain form, max_k |Z_ia − Z_ib| / sd_k over a gathered copy of
    # every pair, with the same normal draws (the same generator state)
    from reportgen.stats import ranking as ranking_module

    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 40)) + rng.normal(size=(150, 1))
    C = np.cov(X, rowvar=False) / 150
    ia, ib = np.triu_indices(40, 1)
    sd = np.sqrt(C[ia, ia] + C[ib, ib] - 2 * C[ia, ib])
    keep = np.ones(len(ia), bool) if every_pair else (np.arange(len(ia)) % 5 != 0)
    ia, ib, sd = ia[keep], ib[keep], sd[keep]
    w, V = np.linalg.eigh(C)
    root = V * np.sqrt(np.clip(w, 0, None))
    Z = np.random.default_rng(9).standard_normal((3000, 40)) @ root.T
    expected = np.quantile((np.abs(Z[:, ia] - Z[:, ib]) / sd).max(axis=1), 0.9)
    got = ranking_module._simulate_max_stat(
        C, ia, ib, sd, 0.9, 3000, np.random.default_rng(9), 2**28
    )
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n, R", [(10_000, 4000), (100_000, 2000)])
def test_rank_distributions_normal_resampling_against_the_bootstrap(n, R):
    # reference: the item bootstrap of the same data; each rank probability agrees
    # within Monte Carlo error (two independent estimates: 4.5 SE over 36 cells)
    rng = np.random.default_rng(3)
    latent = rng.normal(size=(n, 1))
    accuracy = stats.norm.ppf([0.70, 0.705, 0.71, 0.72, 0.72, 0.60])
    X = (latent * 0.8 + rng.normal(size=(n, 6)) * 0.6 < accuracy).astype(float)
    X[:, 4] = X[:, 3]  # identical systems: ties
    boot = rank_distributions(X, paired=True, n_resamples=R, rng=1, resampling="bootstrap")
    normal = rank_distributions(X, paired=True, n_resamples=R, rng=2)  # auto: normal
    assert (boot.resampling, normal.resampling) == ("bootstrap", "normal")
    pb, pn = boot.probabilities(), normal.probabilities()
    se = np.sqrt(np.maximum(pb * (1 - pb), 1 / R) * 2 / R)
    assert np.max(np.abs(pb - pn) / se) < 4.5
    # identical systems tie in every draw, as in the bootstrap
    np.testing.assert_array_equal(normal.rank_counts[3], normal.rank_counts[4])
    assert normal.to_dict()["resampling"] == "normal"


def test_rank_distributions_resampling_switch_and_validation():
    from reportgen.stats.ranking import NORMAL_RESAMPLING_ITEMS

    X = np.random.default_rng(0).normal(size=(50, 3))
    assert rank_distributions(X, paired=True, n_resamples=50, rng=1).resampling == "bootstrap"
    big = np.random.default_rng(0).normal(size=(NORMAL_RESAMPLING_ITEMS, 3))
    assert rank_distributions(big, paired=True, n_resamples=50, rng=1).resampling == "normal"
    with pytest.raises(InputError, match="resampling='exact' is not valid"):
        rank_distributions(X, paired=True, n_resamples=50, resampling="exact")


@pytest.mark.parametrize(
    "paired,resampling", [(True, "bootstrap"), (True, "normal"), (False, "auto")]
)
def test_rank_distributions_in_chunks_hold_their_memory_bound(paired, resampling):
    # closed-form bound: resamples × systems float64 would be 8 * R * B bytes; chunked
    # within max_memory the peak stays far below it, and the counts do not depend on
    # the chunking (each chunk continues the generator's stream)
    import tracemalloc

    rng = np.random.default_rng(4)
    B, n, R = 300, 40, 4000
    X = (rng.random((n, B)) < np.linspace(0.2, 0.8, B)).astype(float)
    samples = X if paired else [X[:, j] for j in range(B)]
    options = dict(paired=paired, n_resamples=R, rng=9)
    if paired:
        options["resampling"] = resampling
    small = rank_distributions(samples, max_memory=2**20, **options)
    large = rank_distributions(samples, max_memory=2**30, **options)
    np.testing.assert_array_equal(small.rank_counts, large.rank_counts)
    tracemalloc.start()
    rank_distributions(samples, max_memory=2**20, **options)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 8 * R * B / 2  # 9.6 MB would be the whole matrix


@pytest.mark.parametrize("systems", [12, 70])
@pytest.mark.parametrize("every_pair", [True, False])
def test_max_pair_terms_against_every_pair(systems, every_pair):
    # reference: the plain form, max(0, max_k |Z_ia − Z_ib| / sd_k) over a gathered copy
    # of every pair; the same bits (the bound only skips terms that cannot be larger)
    from reportgen.stats import ranking as ranking_module

    rng = np.random.default_rng(systems)
    X = rng.normal(size=(60, systems)) + rng.normal(size=(60, 1))
    X[:, 3] = X[:, 2] + 0.01 * rng.normal(size=60)  # a pair with a small sd
    C = np.cov(X, rowvar=False) / 60
    ia, ib = np.triu_indices(systems, 1)
    sd = np.sqrt(C[ia, ia] + C[ib, ib] - 2 * C[ia, ib])
    keep = np.ones(len(ia), bool) if every_pair else rng.random(len(ia)) < 0.3
    ia, ib, sd = ia[keep], ib[keep], sd[keep]
    pair_sd = np.full((systems, systems), np.inf)
    pair_sd[ia, ib] = sd
    w, V = np.linalg.eigh(C)
    Z = rng.standard_normal((700, systems)) @ (V * np.sqrt(np.clip(w, 0, None))).T
    expected = np.maximum(0.0, (np.abs(Z[:, ia] - Z[:, ib]) / sd).max(axis=1))
    np.testing.assert_array_equal(ranking_module._max_pair_terms(Z, pair_sd), expected)
    # a NaN spreads to its rows, as in the plain form
    Z[5, 4] = np.nan
    expected = np.maximum(0.0, (np.abs(Z[:, ia] - Z[:, ib]) / sd).max(axis=1))
    np.testing.assert_array_equal(ranking_module._max_pair_terms(Z, pair_sd), expected)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_nonsignificant_edges_against_a_loop(alternative):
    # reference: one pair at a time in Python, the undirected edge from the better-ranked
    # system, NaN as None, sorted by (source, target)
    from reportgen.stats.ranking import _nonsignificant_edges, _Tests

    rng = np.random.default_rng(4)
    B = 30
    src, dst = np.triu_indices(B, 1)
    p = rng.random(len(src)) * 0.2
    p[rng.random(len(p)) < 0.1] = np.nan
    tests = _Tests(tuple(f"s{i}" for i in range(B)), "all-pairs", alternative, 0.05, src, dst, p)
    perm = rng.permutation(B)
    pos = np.argsort(perm)
    expected = []
    for s, t, pv in zip(src, dst, p, strict=True):
        if not pv <= 0.05:
            if alternative == "two-sided" and pos[t] < pos[s]:
                s, t = t, s
            expected.append((int(pos[s]), int(pos[t]), None if np.isnan(pv) else float(pv)))
    expected.sort(key=lambda e: (e[0], e[1]))
    assert _nonsignificant_edges(tests, perm) == expected


def test_rank_agreement_pvalue_against_scipy_kendalltau():
    # scipy: stats.kendalltau(arange(n), positions).pvalue, exact up to 33 systems (and
    # at most one discordant pair), the normal approximation beyond; random orderings,
    # the identity, one swap and the reversal
    from reportgen.stats.ranking import rank_agreement

    rng = np.random.default_rng(45)
    for n in [*range(2, 40), 60, 120, 250]:
        names = [f"s{k}" for k in range(n)]
        swapped = list(range(n))
        swapped[0], swapped[1] = swapped[1], swapped[0]
        for perm in (rng.permutation(n), np.arange(n), np.array(swapped), np.arange(n)[::-1]):
            res = rank_agreement(names, [names[k] for k in perm])
            positions = np.argsort(perm)
            ref = stats.kendalltau(np.arange(n), positions)
            assert res.tau == pytest.approx(float(ref.statistic), rel=1e-12, abs=1e-15)
            assert res.p_value == pytest.approx(float(ref.pvalue), rel=1e-12, abs=1e-300)

"""Calibration scenarios of intervals and combined tests: the coverage of every interval,
the size and family-wise error of the harmonic-mean p combination, and the power
predicted by :mod:`reportgen.stats.power` against simulated power
(``tools/validation.py``)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import special
from validation_base import (
    ALPHA,
    CONFIDENCE,
    CORPUS_PREVALENCE,
    CORPUS_SENS,
    CORPUS_SPEC,
    DISTRIBUTIONS,
    INTERVAL_RESAMPLES,
    RESAMPLING_BLOCK,
    TEST_RESAMPLES,
    Estimate,
    Kind,
    Scenario,
    _analytic_block,
    _blocks,
    _covered,
    _errors,
    _even_pairs,
    _interleave,
    _latent_binary,
    _paired_continuous,
    _rate,
    _rejections,
    _Silent,
)
from validation_size import (
    CORPUS_BLOCK,
    _binary_counts,
    _classifier,
    _equicorrelated_z,
    _population_f1_macro,
    _unpaired_samples,
)

from reportgen.stats.aggregation import (
    harmonic_mean_pvalue,
)
from reportgen.stats.corpus import corpus_bootstrap_interval, corpus_compare_paired
from reportgen.stats.means import mean_intervals
from reportgen.stats.pairwise import compare_paired, compare_unpaired
from reportgen.stats.power import power_at
from reportgen.stats.ranking import rank_distributions, simultaneous_rank_intervals
from reportgen.stats.runs import (
    cluster_bootstrap_interval,
    clustered_mean_interval,
    pooled_runs_bootstrap,
)


def _mean_coverage(
    method: str, dist: str, n: int, p: float | None = None
) -> Callable[[int, np.random.Generator], Estimate]:
    """Per-system mean intervals; columns are independent systems. ``p`` None with a
    binary method: p ~ Uniform(0.05, 0.95) per system (average coverage)."""

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        resampling = method in ("percentile", "bca")
        block = RESAMPLING_BLOCK if resampling else _analytic_block(n)
        with _Silent():
            for k in _blocks(reps, block):
                if dist == "binary":
                    truth = rng.uniform(0.05, 0.95, k) if p is None else np.full(k, p)
                    X = (rng.random((n, k)) < truth).astype(np.float64)
                else:
                    truth = np.zeros(k)
                    X = _errors(dist, (n, k), rng)
                r = mean_intervals(X, method=method, n_resamples=INTERVAL_RESAMPLES, rng=rng)
                hits += _covered(r.ci_low, r.ci_high, truth)
        return _rate(hits, reps)

    return simulate


def _paired_diff_coverage(
    method: str, dist: str, n: int
) -> Callable[[int, np.random.Generator], Estimate]:
    shift = 0.1 if dist == "binary" else 0.3

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        block = RESAMPLING_BLOCK if method == "bootstrap" else _analytic_block(n)
        with _Silent():
            for pairs in _blocks(reps, block):
                if dist == "binary":
                    X = _latent_binary(n, pairs, 0.75, 0.65, 0.5, rng)
                else:
                    X = _paired_continuous(dist, n, pairs, rng, shift=shift)
                r = compare_paired(
                    X,
                    method=method,
                    order="successive",
                    correction="none",
                    modality="binary" if dist == "binary" else "continuous",
                    n_resamples=INTERVAL_RESAMPLES,
                    rng=rng,
                )
                hits += _covered(_even_pairs(r.ci_low), _even_pairs(r.ci_high), shift)
        return _rate(hits, reps)

    return simulate


def _unpaired_diff_coverage(
    method: str, dist: str, n: int
) -> Callable[[int, np.random.Generator], Estimate]:
    shift = 0.1 if dist == "binary" else 0.3

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        block = RESAMPLING_BLOCK if method == "bootstrap" else _analytic_block(n, 1e6)
        with _Silent():
            for pairs in _blocks(reps, block):
                if dist == "binary":
                    arrays = []
                    for _ in range(pairs):
                        arrays += [
                            (rng.random(n) < 0.6).astype(np.float64),
                            (rng.random(n) < 0.5).astype(np.float64),
                        ]
                else:
                    arrays = _unpaired_samples(dist, n, pairs, rng, shift=shift)
                r = compare_unpaired(
                    arrays,
                    method=method,
                    order="successive",
                    correction="none",
                    n_resamples=INTERVAL_RESAMPLES,
                    modality="binary" if dist == "binary" else "continuous",
                    rng=rng,
                )
                hits += _covered(_even_pairs(r.ci_low), _even_pairs(r.ci_high), shift)
        return _rate(hits, reps)

    return simulate


RUNS = 5


def _clustered_data(
    binary: bool, items: int, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, float]:
    """``(items, k, RUNS)`` scores of k independent systems with item effects, and the
    true mean. Binary: item success rates Beta(4, 1) (mean 0.8); continuous: N(0, 1) item
    effects plus N(0, 1) run noise (intra-item correlation 0.5), mean 0."""
    if binary:
        p = rng.beta(4.0, 1.0, size=(items, k, 1))
        return (rng.random((items, k, RUNS)) < p).astype(np.float64), 0.8
    return (rng.standard_normal((items, k, 1)) + rng.standard_normal((items, k, RUNS))), 0.0


def _clustered_coverage(
    what: str, binary: bool, items: int
) -> Callable[[int, np.random.Generator], Estimate]:
    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for k in _blocks(
                reps, RESAMPLING_BLOCK if what.startswith(("bootstrap", "pooled")) else 500
            ):
                X, truth = _clustered_data(binary, items, k, rng)
                if what in ("cr1", "naive"):
                    values = X.transpose(0, 2, 1).reshape(items * RUNS, k)
                    r = clustered_mean_interval(values, np.repeat(np.arange(items), RUNS))
                    low, high = (
                        (r.ci_low, r.ci_high) if what == "cr1" else (r.naive_low, r.naive_high)
                    )
                elif what.startswith("bootstrap"):
                    r = cluster_bootstrap_interval(
                        X, method=what.split("-")[1], n_resamples=INTERVAL_RESAMPLES, rng=rng
                    )
                    low, high = r.ci_low, r.ci_high
                else:
                    stats_ = np.stack([X, np.ones_like(X)], axis=-1)
                    r = pooled_runs_bootstrap(stats_, n_resamples=INTERVAL_RESAMPLES, rng=rng)
                    low, high = (
                        (r.ci_low, r.ci_high)
                        if what == "pooled"
                        else (r.run_ci_low[:, 0], r.run_ci_high[:, 0])
                    )
                hits += _covered(low, high, truth)
        return _rate(hits, reps)

    return simulate


def _corpus_coverage(
    what: str, method: str, n: int
) -> Callable[[int, np.random.Generator], Estimate]:
    truth_a = _population_f1_macro(CORPUS_PREVALENCE, CORPUS_SENS, CORPUS_SPEC)
    truth_b = _population_f1_macro(CORPUS_PREVALENCE, 0.6, 0.85)

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for pairs in _blocks(reps, CORPUS_BLOCK // 2):
                y = (rng.random(n) < CORPUS_PREVALENCE).astype(np.int64)
                pa = _classifier(y, pairs, CORPUS_SENS, CORPUS_SPEC, rng)
                pb = _classifier(y, pairs, 0.6, 0.85, rng)
                pred = np.empty((n, 2 * pairs), dtype=np.int64)
                pred[:, 0::2], pred[:, 1::2] = pa, pb
                counts = _binary_counts(y, pred)
                if what == "interval":
                    r = corpus_bootstrap_interval(
                        counts[:, 0::2],
                        "f1-macro",
                        method=method,
                        n_resamples=INTERVAL_RESAMPLES,
                        rng=rng,
                    )
                    hits += _covered(r.ci_low, r.ci_high, truth_a)
                else:
                    r = corpus_compare_paired(
                        counts,
                        "f1-macro",
                        order="successive",
                        correction="none",
                        ci_method=method,
                        n_resamples=INTERVAL_RESAMPLES,
                        rng=rng,
                    )
                    hits += _covered(
                        _even_pairs(r.ci_low), _even_pairs(r.ci_high), truth_a - truth_b
                    )
        return _rate(hits, reps)

    return simulate


RANK_THETA = np.array([0.0, 0.1, 0.2, 0.2, 0.4])


RANK_THETA_BINARY = np.array([0.5, 0.55, 0.6, 0.6, 0.7])


RANK_THETA_DISTINCT = np.array([0.0, 0.1, 0.2, 0.3, 0.4])


def _true_rank_range(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Best and worst rank each system can have given the true means (ties: a range)."""
    better = (theta[None, :] > theta[:, None]).sum(axis=1)
    worse = (theta[None, :] < theta[:, None]).sum(axis=1)
    return 1 + better, len(theta) - worse


def _rank_data(
    binary: bool, paired: bool, n: int, theta: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """``n × B`` scores with true means ``theta``; paired systems share item effects."""
    B = len(theta)
    if binary:
        rho = 0.5 if paired else 0.0
        z = rng.standard_normal((n, 1)) if paired else np.zeros((n, 1))
        e = rng.standard_normal((n, B))
        latent = math.sqrt(rho) * z + math.sqrt(1 - rho) * e
        return (latent < special.ndtri(theta)).astype(np.float64)
    u = rng.standard_normal((n, 1)) if paired else np.zeros((n, 1))
    return theta + u + rng.standard_normal((n, B))


def _rank_interval_coverage(
    binary: bool, paired: bool, n: int, method: str = "tukey"
) -> Callable[[int, np.random.Generator], Estimate]:
    theta = RANK_THETA_BINARY if binary else RANK_THETA
    best, worst = _true_rank_range(theta)

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for _ in range(reps):
                X = _rank_data(binary, paired, n, theta, rng)
                means = X.mean(axis=0)
                if paired:  # as reportgen.analysis._ranking does
                    r = simultaneous_rank_intervals(
                        means,
                        covariance=np.cov(X, rowvar=False) / n,
                        method=method,
                        n_simulations=5000,
                        rng=rng,
                    )
                else:
                    r = simultaneous_rank_intervals(
                        means, X.std(axis=0, ddof=1) / math.sqrt(n), method=method, rng=rng
                    )
                hits += int(np.all((r.ci_low <= best) & (r.ci_high >= worst)))
        return _rate(hits, reps)

    return simulate


def _rank_distribution_coverage(
    paired: bool, n: int, joint: bool, theta: np.ndarray | None = None
) -> Callable[[int, np.random.Generator], Estimate]:
    theta = RANK_THETA_DISTINCT if theta is None else theta
    true_rank, _ = _true_rank_range(theta)

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        shares: list[float] = []
        with _Silent():
            for _ in range(reps):
                X = _rank_data(False, paired, n, theta, rng)
                r = rank_distributions(
                    X if paired else list(X.T), paired=paired, n_resamples=TEST_RESAMPLES, rng=rng
                )
                inside = (r.ci_low <= true_rank) & (true_rank <= r.ci_high)
                shares.append(inside.mean())
                hits += int(np.all(inside))
        if joint:
            return _rate(hits, reps)
        # the systems of one replication are dependent: bounds from the spread of the
        # per-replication shares, not a binomial count
        values = np.asarray(shares)
        return Estimate(float(values.mean()), reps, float(values.std(ddof=1) / math.sqrt(reps)))

    return simulate


# Over 100 lines of code: the table of coverage scenarios, one `add` per row of
# docs/validation.md; a list reads best in one place.
def _coverage_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    ns = (10, 30, 100, 1000)

    def add(
        key: str,
        group: str,
        routine: str,
        setting: str,
        kind: Kind,
        reps: int,
        fn: Callable[[int, np.random.Generator], Estimate],
    ) -> None:
        out.append(
            Scenario(
                "coverage/" + key, "coverage", group, routine, setting, CONFIDENCE, kind, reps, fn
            )
        )

    # per-system means
    for method, name, kind in (
        ("wilson", "Wilson (auto for binary)", "two-sided"),
        ("clopper-pearson", "Clopper-Pearson", "at-least"),
    ):
        for p in (0.5, 0.9, None):
            for n in ns:
                setting = (
                    "p ~ Uniform(0.05, 0.95) per system (average coverage)"
                    if p is None
                    else f"Bernoulli({p})"
                ) + f"; n = {n}"
                add(
                    f"mean/{method}/p={'uniform' if p is None else p}/n={n}",
                    "per-system mean, binary",
                    f"mean_intervals(method={method!r}): {name}",
                    setting,
                    kind,
                    4000,
                    _mean_coverage(method, "binary", n, p),
                )
    for method, name in (
        ("t", "t"),
        ("percentile", "bootstrap percentile"),
        ("bca", "bootstrap BCa (auto for continuous)"),
    ):
        for dist in ("normal", "lognormal", "t3"):
            for n in ns:
                add(
                    f"mean/{method}/{dist}/n={n}",
                    "per-system mean, continuous",
                    f"mean_intervals(method={method!r}): {name}",
                    f"{DISTRIBUTIONS[dist]}; n = {n}",
                    "two-sided",
                    4000 if method == "t" else 2000,
                    _mean_coverage(method, dist, n),
                )
    # differences
    for method, name in (("auto", "paired t interval"), ("bootstrap", "paired bootstrap BCa")):
        for dist in ("normal", "skewdiff", "t3"):
            for n in ns:
                label = (
                    "A − B = 0.3 + centred lognormal"
                    if dist == "skewdiff"
                    else f"A − B = 0.3 + difference of two {DISTRIBUTIONS[dist]} errors"
                )
                add(
                    f"paired-diff/{method}/{dist}/n={n}",
                    "difference, paired",
                    f"compare_paired(method={method!r}): {name}",
                    f"{label}; n = {n}",
                    "two-sided",
                    4000 if method == "auto" else 2000,
                    _paired_diff_coverage(method, dist, n),
                )
    for method, name in (("auto", "Tango score interval"), ("bootstrap", "paired bootstrap BCa")):
        for n in ns:
            add(
                f"paired-diff/{method}/binary/n={n}",
                "difference, paired",
                f"compare_paired(method={method!r}): {name}",
                f"binary, P(A) = 0.75, P(B) = 0.65, latent correlation 0.5; n = {n}",
                "two-sided",
                4000 if method == "auto" else 2000,
                _paired_diff_coverage(method, "binary", n),
            )
    for method, name in (("auto", "Welch interval"), ("bootstrap", "two-sample bootstrap BCa")):
        for dist in ("normal", "lognormal", "behrens"):
            for n in ns:
                if method == "bootstrap" and n == 1000 and dist != "normal":
                    continue  # resampling one system at a time is slow at n = 1000
                label = (
                    "A ~ N(0.3, 2²) with n items, B ~ N(0, 1) with 3n"
                    if dist == "behrens"
                    else f"A − 0.3 and B i.i.d. {DISTRIBUTIONS[dist]}"
                )
                add(
                    f"unpaired-diff/{method}/{dist}/n={n}",
                    "difference, unpaired",
                    f"compare_unpaired(method={method!r}): {name}",
                    f"{label}; n = {n}",
                    "two-sided",
                    4000 if method == "auto" else 2000,
                    _unpaired_diff_coverage(method, dist, n),
                )
    for method, name in (
        ("auto", "Newcombe hybrid score"),
        ("bootstrap", "two-sample bootstrap BCa"),
    ):
        for n in ns:
            add(
                f"unpaired-diff/{method}/binary/n={n}",
                "difference, unpaired",
                f"compare_unpaired(method={method!r}): {name}",
                f"binary, P(A) = 0.6, P(B) = 0.5; n = {n} each",
                "two-sided",
                4000 if method == "auto" else 2000,
                _unpaired_diff_coverage(method, "binary", n),
            )
    # clustered and repeated runs
    for what, name, kind in (
        ("cr1", "clustered_mean_interval: cluster-robust CR1, t(G − 1)", "two-sided"),
        ("bootstrap-percentile", "cluster_bootstrap_interval(method='percentile')", "two-sided"),
        ("bootstrap-bca", "cluster_bootstrap_interval(method='bca')", "two-sided"),
        ("pooled", "pooled_runs_bootstrap: pooled-runs interval (seed 004)", "at-least"),
        ("per-run", "pooled_runs_bootstrap: per-run interval (run 1)", "two-sided"),
        (
            "naive",
            "clustered_mean_interval: naive i.i.d. interval (shown for contrast)",
            "two-sided",
        ),
    ):
        for binary in (True, False):
            for items in (10, 30, 100):
                data = (
                    "binary, item success rates Beta(4, 1)"
                    if binary
                    else "continuous, item effects N(0, 1) + run noise N(0, 1)"
                )
                add(
                    f"clustered/{what}/{'binary' if binary else 'continuous'}/G={items}",
                    "clustered (items × 5 runs)",
                    name,
                    f"{data}; {items} items × {RUNS} runs",
                    kind,
                    4000 if what in ("cr1", "naive") else 2000,
                    _clustered_coverage(what, binary, items),
                )
    # corpus metrics
    for what, routine in (
        ("interval", "corpus_bootstrap_interval('f1-macro')"),
        ("difference", "corpus_compare_paired('f1-macro') interval"),
    ):
        for method in ("percentile", "bca"):
            for n in (30, 100, 1000):
                add(
                    f"corpus/{what}/{method}/n={n}",
                    "corpus metric (F1)",
                    f"{routine}, {method}",
                    "macro F1 of the population counts"
                    + (" (A − B)" if what == "difference" else "")
                    + f"; n = {n}",
                    "two-sided",
                    2000,
                    _corpus_coverage(what, method, n),
                )
    # ranks
    for binary in (False, True):
        for paired in (True, False):
            for n in (30, 100, 1000):
                theta = RANK_THETA_BINARY if binary else RANK_THETA
                add(
                    f"rank/simultaneous/{'binary' if binary else 'continuous'}/"
                    f"{'paired' if paired else 'unpaired'}/n={n}",
                    "ranks",
                    "simultaneous_rank_intervals (Tukey), all ranks jointly",
                    f"5 systems, true means {theta.tolist()} ("
                    f"{'binary' if binary else 'normal'}, "
                    f"{'paired: covariance' if paired else 'unpaired: SEs'}); n = {n}",
                    "at-least",
                    2000,
                    _rank_interval_coverage(binary, paired, n),
                )
    for method in ("bonferroni", "sidak"):
        add(
            f"rank/simultaneous-{method}/continuous/paired/n=100",
            "ranks",
            f"simultaneous_rank_intervals(method={method!r}), all ranks jointly",
            f"5 systems, true means {RANK_THETA.tolist()} (normal, paired); n = 100",
            "at-least",
            2000,
            _rank_interval_coverage(False, True, 100, method),
        )
    for joint in (False, True):
        for n in (30, 300):
            add(
                f"rank/bootstrap-{'joint' if joint else 'marginal'}/paired/n={n}",
                "ranks",
                "rank_distributions: percentile rank interval, "
                + ("all systems jointly" if joint else "each system"),
                f"5 systems, true means {RANK_THETA_DISTINCT.tolist()} (normal, paired); n = {n}",
                "at-least",
                1000,
                _rank_distribution_coverage(True, n, joint),
            )
    # from 10,000 paired items the sums are drawn from their normal approximation
    # (issue 18): means √n closer together keep the ranks uncertain
    for n in (10_000, 100_000):
        theta = RANK_THETA_DISTINCT * math.sqrt(300 / n)
        add(
            f"rank/normal-marginal/paired/n={n}",
            "ranks",
            "rank_distributions (normal resampling from 10,000 items): percentile rank "
            "interval, each system",
            f"5 systems, true means {np.round(theta, 4).tolist()} (normal, paired); n = {n:,}",
            "at-least",
            1000,
            _rank_distribution_coverage(True, n, False, theta),
        )
    return out


def _hmp_size(K: int, rho: float) -> Callable[[int, np.random.Generator], Estimate]:
    """The whole family (L = K): one-sided z p-values, equicorrelated."""

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        for size in _blocks(reps, max(1, int(2e7 // K))):
            p = (
                special.ndtr(-_equicorrelated_z(size, K, rho, rng))
                if rho
                else rng.random((size, K))
            )
            hits += _rejections(harmonic_mean_pvalue(p).p_adjusted)
        return _rate(hits, reps)

    return simulate


def _raw_hmp_size(K: int) -> Callable[[int, np.random.Generator], Estimate]:
    """Reference: the raw harmonic mean of K uniform p-values compared with α directly."""

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        p = rng.random((reps, K))
        return _rate(_rejections(harmonic_mean_pvalue(p).hmp), reps)

    return simulate


def _hmp_groups(groups: int, K: int) -> Callable[[int, np.random.Generator], Estimate]:
    """FWER over ``groups`` groups of K p-values each, L = groups × K (seed 000 §6.2)."""

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        p = rng.random((reps, groups, K))
        adjusted = harmonic_mean_pvalue(p, L=groups * K).p_adjusted
        return _rate(int(np.sum(np.any(adjusted <= ALPHA, axis=1))), reps)

    return simulate


def _hmp_ranking(
    systems: int, lists: int, n: int
) -> Callable[[int, np.random.Generator], Estimate]:
    """End to end as in the ordered ranking: raw paired-t p-values of all pairs on each
    of ``lists`` lists, combined per pair by the HMP with L = pairs × lists."""

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        pairs = systems * (systems - 1) // 2
        with _Silent():
            for _ in range(reps):
                raw = np.column_stack(
                    [
                        compare_paired(
                            rng.standard_normal((n, 1)) + rng.standard_normal((n, systems)),
                            correction="none",
                        ).p_value
                        for _ in range(lists)
                    ]
                )
                adjusted = harmonic_mean_pvalue(raw, L=pairs * lists).p_adjusted
                hits += int(np.any(adjusted <= ALPHA))
        return _rate(hits, reps)

    return simulate


def _hmp_scenarios() -> list[Scenario]:
    out = []
    routine = "harmonic_mean_pvalue: asymptotically exact HMP (Landau), p_adjusted"
    for K in (2, 5, 10, 100, 1000):
        out.append(
            Scenario(
                f"hmp/independent/L={K}",
                "hmp",
                "whole family (L = K)",
                routine,
                f"K = L = {K} independent uniform p-values",
                ALPHA,
                "at-most",
                40000 if K <= 100 else 10000,
                _hmp_size(K, 0.0),
            )
        )
    for K in (10, 100):
        out.append(
            Scenario(
                f"hmp/raw-hmp-reference/L={K}",
                "hmp",
                "reference: the raw HMP (not used)",
                "HarmonicMeanPResult.hmp ≤ 0.05, the raw harmonic mean without the Landau tail",
                f"K = L = {K} independent uniform p-values",
                ALPHA,
                "at-most",
                40000,
                _raw_hmp_size(K),
            )
        )
    for rho in (0.5, 0.9):
        for K in (5, 50):
            out.append(
                Scenario(
                    f"hmp/equicorrelated-{rho}/L={K}",
                    "hmp",
                    "whole family (L = K)",
                    routine,
                    f"K = L = {K} one-sided z p-values, equicorrelated ρ = {rho}",
                    ALPHA,
                    "at-most",
                    20000,
                    _hmp_size(K, rho),
                )
            )
    for groups, K in ((10, 3), (45, 4)):
        out.append(
            Scenario(
                f"hmp/groups/{groups}x{K}",
                "hmp",
                "groups (L = pairs × lists)",
                routine,
                f"{groups} groups of K = {K} independent uniform p-values, L = {groups * K}: "
                "FWER over the groups",
                ALPHA,
                "at-most",
                20000,
                _hmp_groups(groups, K),
            )
        )
    out.append(
        Scenario(
            "hmp/ranking/k=5/lists=3",
            "hmp",
            "end to end",
            "paired t on each list, HMP over 3 lists per pair, L = 10 × 3",
            "5 identical paired systems on 3 lists of n = 40 items: FWER over the 10 pairs",
            ALPHA,
            "at-most",
            2000,
            _hmp_ranking(5, 3, 40),
        )
    )
    return out


def _power_prediction(
    design: str, n: int, delta: float, **nuisance: float
) -> tuple[float, Callable[[int, np.random.Generator], Estimate]]:
    """reportgen's predicted power and a simulation of the engine's default test."""
    predicted = float(power_at(n, delta, design=design, **nuisance).power)  # type: ignore[arg-type]

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for pairs in _blocks(reps, _analytic_block(n, 1e6)):
                if design == "paired-continuous":
                    sd = nuisance.get("sd", 1.0)
                    u = rng.standard_normal((n, pairs))
                    X = _interleave(u + delta + sd * rng.standard_normal((n, pairs)), u)
                    r = compare_paired(X, order="successive", correction="none")
                elif design == "paired-binary":
                    p_b = nuisance["baseline"]
                    p_a = p_b + delta
                    rho = nuisance["correlation"]
                    p11 = p_a * p_b + rho * math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
                    cells = np.array([p11, p_a - p11, p_b - p11, 1 - p_a - p_b + p11])
                    cell = rng.choice(4, size=(n, pairs), p=cells)
                    X = _interleave(
                        (cell <= 1).astype(float), ((cell == 0) | (cell == 2)).astype(float)
                    )
                    r = compare_paired(X, modality="binary", order="successive", correction="none")
                elif design == "unpaired-continuous":
                    sd, sd_b = nuisance.get("sd", 1.0), nuisance.get("sd_b", 1.0)
                    arrays = []
                    for _ in range(pairs):
                        arrays += [
                            delta + sd * rng.standard_normal(n),
                            sd_b * rng.standard_normal(n),
                        ]
                    r = compare_unpaired(arrays, order="successive", correction="none")
                else:
                    p_b = nuisance["baseline"]
                    arrays = []
                    for _ in range(pairs):
                        arrays += [
                            (rng.random(n) < p_b + delta).astype(float),
                            (rng.random(n) < p_b).astype(float),
                        ]
                    r = compare_unpaired(
                        arrays, modality="binary", order="successive", correction="none"
                    )
                hits += _rejections(_even_pairs(r.p_value))
        return _rate(hits, reps)

    return predicted, simulate


def _power_scenarios() -> list[Scenario]:
    out = []
    cases = [
        ("paired-continuous", 30, 0.5, {"sd": 1.0}, "Δ = 0.5 + N(0, 1); n = 30"),
        ("paired-continuous", 100, 0.2, {"sd": 1.0}, "Δ = 0.2 + N(0, 1); n = 100"),
        (
            "paired-binary",
            100,
            0.1,
            {"baseline": 0.6, "correlation": 0.4},
            "P(A) = 0.7, P(B) = 0.6, phi 0.4; n = 100",
        ),
        (
            "paired-binary",
            300,
            0.05,
            {"baseline": 0.7, "correlation": 0.6},
            "P(A) = 0.75, P(B) = 0.7, phi 0.6; n = 300",
        ),
        (
            "unpaired-continuous",
            30,
            0.7,
            {"sd": 1.0, "sd_b": 1.5},
            "A ~ N(0.7, 1), B ~ N(0, 1.5²); n = 30 each",
        ),
        (
            "unpaired-continuous",
            200,
            0.25,
            {"sd": 1.0, "sd_b": 1.0},
            "A ~ N(0.25, 1), B ~ N(0, 1); n = 200 each",
        ),
        ("unpaired-binary", 200, 0.1, {"baseline": 0.5}, "P(A) = 0.6, P(B) = 0.5; n = 200 each"),
        ("unpaired-binary", 50, 0.2, {"baseline": 0.6}, "P(A) = 0.8, P(B) = 0.6; n = 50 each"),
    ]
    for design, n, delta, nuisance, setting in cases:
        predicted, fn = _power_prediction(design, n, delta, **nuisance)
        out.append(
            Scenario(
                f"power/{design}/n={n}/delta={delta}",
                "power",
                design,
                f"power_at(design={design!r}) vs the engine's test",
                setting,
                predicted,
                "two-sided",
                4000,
                fn,
            )
        )
    return out

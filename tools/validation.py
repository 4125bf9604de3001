"""Statistical calibration of reportgen, and the generator of ``docs/validation.md``.

Run from the repository root::

    .venv/bin/python tools/validation.py --jobs 2        # full run, 10-16 min on 2 cores
    .venv/bin/python tools/validation.py --quick         # 1/5 of the replications
    .venv/bin/python tools/validation.py --only 'size/paired-*' --out /tmp/v.md
    .venv/bin/python tools/validation.py --from-json raw.json   # re-render saved results

Every *scenario* simulates data for which the truth is known, runs one reportgen routine on
it many times and measures a rate: the rejection rate of a test under its null (size),
the family-wise error or false discovery rate of a multiplicity correction, the coverage
of an interval, or the rejection rate under an alternative whose power reportgen
predicts. The rate is compared with **Monte Carlo bounds**: the central 99% interval of
Binomial(N, nominal)/N, the rates a procedure that is exactly at its nominal level would
produce with N replications (for false discovery *proportions*, which are not binary,
nominal ± 2.576 × the simulated standard error). Procedures that are conservative by
construction (exact tests of discrete data, Bonferroni, ...) are checked one-sidedly:
size at most the upper bound, coverage at least the lower bound.

With a hundred rows a correct procedure lands outside its 99% bounds about once per
hundred rows by chance, so a row outside its bounds that has no documented explanation is
re-run once with a fresh seed and twice the replications (the *confirmation*); it counts
as inside only if the confirmation is inside. Rows with a documented reason
(:data:`EXPLANATIONS`) are reported as "outside, explained" with that reason.

Simulations are vectorised across replications: one call of a routine carries many
independent simulated systems (columns) or pairs, and only the raw p-values of the
disjoint pairs ``(0, 1), (2, 3), ...`` are used (``order="successive"``, every second
pair, ``correction="none"``), so no multiple-comparison correction touches a measured
size. Resampling tests share their random signs or bootstrap counts across the pairs of
one call, so calls carry at most :data:`RESAMPLING_BLOCK` pairs, keeping that shared
Monte Carlo noise negligible next to the binomial error.

This module is imported by ``tests/calibration`` (the fast subset in CI and the full
families, marked slow), so the tests and the document measure the same thing.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import fnmatch
import json
import math
import os
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from validation_base import (  # noqa: E402
    ALPHA,
    CONFIDENCE,
    DISTRIBUTIONS,
    FAMILIES,
    FAMILY_TITLES,
    INTERVAL_RESAMPLES,
    QUICK_DIVISOR,
    RESAMPLING_BLOCK,
    SEED,
    TEST_RESAMPLES,
    Estimate,
    Explanation,
    Kind,  # noqa: F401 (re-exported)
    Row,
    Scenario,
    _blocks,
    _even_pairs,
    _latent_binary,
    _paired_continuous,
    _rejections,
    _Silent,
    mc_bounds,
)
from validation_coverage import (  # noqa: E402
    RANK_THETA,  # noqa: F401 (re-exported)
    RUNS,  # noqa: F401 (re-exported)
    _clustered_data,  # noqa: F401 (re-exported)
    _coverage_scenarios,
    _hmp_scenarios,
    _power_scenarios,
    _true_rank_range,  # noqa: F401 (re-exported)
)
from validation_intervals import _fcr_scenarios, _interval_scenarios  # noqa: E402
from validation_robust import _robust_scenarios, robust_power  # noqa: E402
from validation_size import (  # noqa: E402
    _fdr_scenarios,
    _fwer_scenarios,
    _size_scenarios,
    _unpaired_samples,
)

from reportgen.stats.pairwise import compare_paired, compare_unpaired  # noqa: E402

__all__ = [
    "ALPHA",
    "CONFIDENCE",
    "EXPLANATIONS",
    "Estimate",
    "Explanation",
    "PowerTable",
    "Report",
    "Row",
    "Scenario",
    "evaluate",
    "main",
    "mc_bounds",
    "power_table",
    "render_markdown",
    "run",
    "scenarios",
]


# ============================================================================ registry


def scenarios(families: Sequence[str] | None = None, only: str | None = None) -> list[Scenario]:
    """Every scenario of the given families (default all), optionally filtered by an
    fnmatch pattern on the key."""
    builders = {
        "size": lambda: _size_scenarios() + _robust_scenarios(),
        "fwer": _fwer_scenarios,
        "fdr": lambda: _fdr_scenarios() + _fcr_scenarios(),
        "coverage": lambda: _coverage_scenarios() + _interval_scenarios(),
        "hmp": _hmp_scenarios,
        "power": _power_scenarios,
    }
    chosen = FAMILIES if families is None else tuple(families)
    out: list[Scenario] = []
    for family in chosen:
        out.extend(builders[family]())
    if only is not None:
        out = [s for s in out if fnmatch.fnmatchcase(s.key, only)]
    return out


def scenario(key: str) -> Scenario:
    """The scenario with this key."""
    family = key.split("/", 1)[0]
    for s in scenarios([family]):
        if s.key == key:
            return s
    raise KeyError(key)


def _seed_for(seed: int, key: str, attempt: int) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(key.encode()), attempt])


def explanation_for(row_key: str, side: str | None) -> Explanation | None:
    """The documented reason for a row outside its bounds on ``side``, if any."""
    for e in EXPLANATIONS:
        if e.matches(row_key) and e.direction in (side, "either"):
            return e
    return None


def evaluate(
    s: Scenario, *, seed: int = SEED, reps: int | None = None, confirm: bool = True
) -> Row:
    """Simulate one scenario and judge it against its Monte Carlo bounds.

    A row outside its bounds without a documented explanation is re-run once with a
    fresh seed and twice the replications (``confirm``).
    """
    reps = s.reps if reps is None else int(reps)
    start = time.perf_counter()
    est = s.simulate(reps, _seed_for(seed, s.key, 0))
    row = _assemble(s, seed, est, time.perf_counter() - start)
    if row.inside or row.explanation is not None or not confirm:
        return row
    start = time.perf_counter()
    est2 = s.simulate(2 * reps, _seed_for(seed, s.key, 1))
    return _assemble(s, seed, est, row.seconds, (est2, time.perf_counter() - start))


def _assemble(
    s: Scenario,
    seed: int,
    est: Estimate,
    seconds: float,
    confirmation: tuple[Estimate, float] | None = None,
) -> Row:
    """A :class:`Row` from simulated estimates (the first run and the confirmation)."""
    low, high = mc_bounds(s.nominal, est.reps, s.kind, est.se)
    row = Row(s, est, low, high, seed, seconds)
    if row.inside:
        return row
    explanation = explanation_for(s.key, row.side)
    if explanation is not None:
        return Row(s, est, low, high, seed, seconds, explanation=explanation)
    second = None
    if confirmation is not None:
        est2, seconds2 = confirmation
        low2, high2 = mc_bounds(s.nominal, est2.reps, s.kind, est2.se)
        second = Row(s, est2, low2, high2, seed, seconds2)
    return Row(s, est, low, high, seed, seconds, confirmation=second)


# ============================================================================ power table


@dataclass(frozen=True)
class PowerTable:
    """Rejection rates of several tests on the same simulated data, by effect size."""

    title: str
    setting: str
    effects: tuple[float, ...]
    effect_label: str
    tests: tuple[str, ...]
    power: np.ndarray  # tests × effects
    reps: int


def _power_curves_paired(
    dist: str, n: int, effects: Sequence[float], reps: int, rng: np.random.Generator
) -> PowerTable:
    tests = [
        ("auto", "paired t (auto)"),
        ("permutation", "sign-flip permutation"),
        ("bootstrap", "paired bootstrap"),
        ("sign", "sign test"),
    ]
    hits = np.zeros((len(tests), len(effects)))
    sd = {
        "normal": math.sqrt(2),
        "t3": math.sqrt(6),
        "lognormal": math.sqrt(2 * (math.e - 1) * math.e),
    }[dist]
    with _Silent():
        for j, d in enumerate(effects):
            for pairs in _blocks(reps, RESAMPLING_BLOCK):
                X = _paired_continuous(dist, n, pairs, rng, shift=d * sd)
                for i, (method, _) in enumerate(tests):
                    r = compare_paired(
                        X,
                        method=method,
                        modality="continuous",
                        order="successive",
                        correction="none",
                        n_resamples=TEST_RESAMPLES,
                        rng=rng,
                    )
                    hits[i, j] += _rejections(_even_pairs(r.p_value))
    return PowerTable(
        f"paired continuous, {DISTRIBUTIONS[dist]}",
        f"A = u + e_A + δ·sd(Δ), B = u + e_B, errors {DISTRIBUTIONS[dist]}; n = {n}",
        tuple(effects),
        "paired d = δ / sd(Δ)",
        tuple(t for _, t in tests),
        hits / reps,
        reps,
    )


def _power_curves_paired_binary(
    n: int, effects: Sequence[float], reps: int, rng: np.random.Generator
) -> PowerTable:
    tests = ["exact McNemar (auto)", "paired bootstrap", "two-proportion z ignoring pairing"]
    hits = np.zeros((len(tests), len(effects)))
    with _Silent():
        for j, d in enumerate(effects):
            for pairs in _blocks(reps, RESAMPLING_BLOCK):
                X = _latent_binary(n, pairs, 0.6 + d, 0.6, 0.5, rng)
                for i, method in enumerate(("auto", "bootstrap")):
                    r = compare_paired(
                        X,
                        method=method,
                        modality="binary",
                        order="successive",
                        correction="none",
                        n_resamples=TEST_RESAMPLES,
                        rng=rng,
                    )
                    hits[i, j] += _rejections(_even_pairs(r.p_value))
                r = compare_unpaired(
                    list(X.T), modality="binary", order="successive", correction="none"
                )
                hits[2, j] += _rejections(_even_pairs(r.p_value))
    return PowerTable(
        "paired binary",
        f"P(B) = 0.6, P(A) = 0.6 + δ, latent correlation 0.5; n = {n}",
        tuple(effects),
        "δ = P(A) − P(B)",
        tuple(tests),
        hits / reps,
        reps,
    )


def _power_curves_unpaired(
    dist: str, n: int, effects: Sequence[float], reps: int, rng: np.random.Generator
) -> PowerTable:
    tests = [
        ("auto", "Welch t (auto)"),
        ("permutation", "label-shuffle permutation"),
        ("bootstrap", "two-sample bootstrap"),
    ]
    hits = np.zeros((len(tests), len(effects)))
    sd = {"normal": 1.0, "lognormal": math.sqrt((math.e - 1) * math.e), "t3": math.sqrt(3)}[dist]
    with _Silent():
        for j, d in enumerate(effects):
            for pairs in _blocks(reps, RESAMPLING_BLOCK):
                arrays = _unpaired_samples(dist, n, pairs, rng, shift=d * sd)
                for i, (method, _) in enumerate(tests):
                    r = compare_unpaired(
                        arrays,
                        method=method,
                        modality="continuous",
                        order="successive",
                        correction="none",
                        n_resamples=TEST_RESAMPLES,
                        rng=rng,
                    )
                    hits[i, j] += _rejections(_even_pairs(r.p_value))
    return PowerTable(
        f"unpaired continuous, {DISTRIBUTIONS[dist]}",
        f"A = e + δ·sd(e), B = e, {DISTRIBUTIONS[dist]}; n = {n} each",
        tuple(effects),
        "Cohen's d = δ",
        tuple(t for _, t in tests),
        hits / reps,
        reps,
    )


def _power_curves_unpaired_binary(
    n: int, effects: Sequence[float], reps: int, rng: np.random.Generator
) -> PowerTable:
    tests = [
        ("auto", "two-proportion z (auto)"),
        ("permutation", "exact label shuffle (hypergeometric)"),
        ("bootstrap", "two-sample bootstrap"),
    ]
    hits = np.zeros((len(tests), len(effects)))
    with _Silent():
        for j, d in enumerate(effects):
            for pairs in _blocks(reps, RESAMPLING_BLOCK):
                arrays = []
                for _ in range(pairs):
                    arrays += [
                        (rng.random(n) < 0.5 + d).astype(float),
                        (rng.random(n) < 0.5).astype(float),
                    ]
                for i, (method, _) in enumerate(tests):
                    r = compare_unpaired(
                        arrays,
                        method=method,
                        modality="binary",
                        order="successive",
                        correction="none",
                        n_resamples=TEST_RESAMPLES,
                        rng=rng,
                    )
                    hits[i, j] += _rejections(_even_pairs(r.p_value))
    return PowerTable(
        "unpaired binary",
        f"P(B) = 0.5, P(A) = 0.5 + δ; n = {n} each",
        tuple(effects),
        "δ = P(A) − P(B)",
        tuple(t for _, t in tests),
        hits / reps,
        reps,
    )


def power_table(*, reps: int = 1000, seed: int = SEED) -> list[PowerTable]:
    """Power of the alternative tests on the same simulated effects (one table per
    design), to back the automatic choices of ``method="auto"``."""
    rng = _seed_for(seed, "power-table", 0)
    d = (0.0, 0.2, 0.4, 0.6, 0.8)
    return [
        _power_curves_paired("normal", 30, d, reps, rng),
        _power_curves_paired("t3", 30, d, reps, rng),
        _power_curves_paired("lognormal", 30, d, reps, rng),
        _power_curves_paired_binary(100, (0.0, 0.05, 0.1, 0.15, 0.2), reps, rng),
        _power_curves_unpaired("normal", 30, d, reps, rng),
        _power_curves_unpaired("lognormal", 30, d, reps, rng),
        _power_curves_unpaired_binary(50, (0.0, 0.1, 0.2, 0.3), reps, rng),
        *(PowerTable(**table) for table in robust_power(reps, rng)),
    ]


# ============================================================================ explanations


_SKEW_WARNING = (
    "for continuous metrics whose per-item scores or paired differences are strongly "
    "skewed (sample skewness above about 2: latency, cost, length, counts) and fewer than "
    "about 100 items, the `Per dataset × metric` section should say that p-values near α "
    "and interval ends are approximate."
)
_SMALL_BOOTSTRAP_WARNING = (
    "with `method='bootstrap'`, or a bootstrap interval of a mean (`ci_method` "
    "'percentile', 'bca', or the default 'auto' for continuous scores), on fewer than 30 "
    "items, the `Per dataset × metric` section should say that bootstrap p-values are too "
    "small and intervals too narrow at this size, and suggest `method='auto'` and "
    "`ci_method='t'`."
)

#: Documented reasons for rows outside their bounds: each was investigated (closed
#: forms, enumeration, or an independent implementation) and is a property of the
#: method or of the setting, not a defect of the code. Order matters: the first
#: matching pattern wins.
EXPLANATIONS: tuple[Explanation, ...] = (
    # ------------------------------------------------------------------ size
    Explanation(
        "size/paired-continuous/auto/judge/n=10|size/paired-continuous/bootstrap/judge/n=10",
        "below",
        "Ten items scored 1–5 (judge-like: many ties and zero differences). Up to 16 "
        "non-zero differences, a t or bootstrap p below α stands only where the exact "
        "sign-flip test of the non-zero differences agrees (issue 41: seven differences of "
        "+0.1 and one of −0.1 gave t p = 0.02 where the exact p is 0.070), and that test "
        "is conservative on so few discrete values (the sign-flip permutation row: 0.015). "
        "The paired t test alone rejected 0.045 of the time here and the bootstrap 0.083 "
        "(too many); both are now at most α, so the error rate is kept.",
    ),
    Explanation(
        "size/robust/trimmed/lognormal-loss/n=30",
        "above",
        "Yuen's trimmed t of the 20% trimmed mean of −(lognormal(0, 1) − its mean) "
        "(skewness −6.2) at n = 30: the trimmed mean of so skewed a distribution is still "
        "skewed at 30 items, and the test rejects about 0.067 of the time (0.0665 in a "
        "separate run of 20,000 reps), against 0.15–0.17 for the mean's t test on the same "
        "data; within bounds from n = 100 (0.053). Wilcox (2012, §4.4.5) gives a "
        "bootstrap-t for trimmed means of small skewed samples; reportgen does not use it.",
        _SKEW_WARNING,
    ),
    Explanation(
        "size/robust/hodges-lehmann/*",
        "above",
        "The Wilcoxon signed-rank test is exact for differences symmetric about the "
        "shift; these are heavily skewed, and centred on their pseudo-median (the "
        "Hodges-Lehmann estimand), where the statistic's null variance, which assumes "
        "symmetry, is slightly off: 0.059–0.061 on the lognormal-loss differences at n = "
        "30, 100 and 200 (inside on the rare-loss ones). Its level for the pseudo-median "
        "is asymptotic, not exact, on skewed data; the mean's test on the same data rejects "
        "0.15–0.17 of the time.",
    ),
    Explanation(
        "size/margin/paired-continuous/lognormal-loss/n=*",
        "above",
        "Non-inferiority at the margin when the candidate's differences are "
        "−(lognormal(0, 1) − its mean): skewness −6.2, kurtosis 114, the mean carried by "
        "rare large losses that a sample of 30–200 items often lacks. The shifted paired "
        "t test rejects 0.151, 0.111 and 0.095 of the time at n = 30, 100 and 200 "
        "(simulated, 40,000 reps); reportgen flags such a unit `skewed` and rejects only "
        "where the studentized bootstrap (Hall 1992) rejects too, which brings it to "
        "about 0.09, 0.08 and 0.076. No test of a mean holds its level over all skewed "
        "distributions at a fixed n (Bahadur & Savage 1956, Ann. Math. Stat. 27:1115); "
        "the rare-loss rows (skewness −2.3) are inside. The gate, the decision line and "
        "the e-mail should show the `skewed` flag.",
        _SKEW_WARNING,
    ),
    Explanation(
        "size/paired-continuous/auto/rareloss/n=*",
        "below",
        "Two-sided test of a zero mean difference with rare large losses (skewness −2.3): "
        "the paired t test alone rejects 0.089, 0.063 and 0.057 of the time at n = 30, "
        "100 and 200 (simulated); a unit flagged `skewed` rejects only where the "
        "studentized bootstrap rejects too, which is conservative on the short tail "
        "(0.03 at n = 100 and 200): below α, so the error rate is kept.",
    ),
    Explanation(
        "size/paired-continuous/*/skewdiff/n=*",
        "above",
        "Equal means but a strongly skewed difference (centred lognormal(0, 1), skewness "
        "6.2; its median is below its mean). A test of a zero *mean* difference on such "
        "data converges slowly: the skewness error of the two-sided t test vanishes only "
        "as n grows (Edgeworth expansion; Hall 1992, §2.6): the paired t test alone "
        "rejected 0.169, 0.120 and 0.087 of the time at n = 10, 30 and 100. From 20 items "
        "`method='auto'` flags such differences `skewed` and rejects only where the "
        "studentized bootstrap agrees, which brings n = 30 to about 0.07 and n = 100 "
        "within bounds (below 20 items the sample skewness is not judged). The "
        "null-shifted bootstrap inherits the skewness "
        "(and its small-n narrowness, note on bootstrap tests), and the sign-flip "
        "permutation test assumes a *symmetric* difference, so here it tests symmetry, not "
        "a zero mean. No test in reportgen is exact for this null; all are within bounds "
        "by n = 1000.",
        _SKEW_WARNING,
    ),
    Explanation(
        "size/*-continuous/bootstrap/*/n=[13]0",
        "above",
        "Null-shifted bootstrap tests at small n. The bootstrap distribution of a mean "
        "uses the plug-in SD (divisor n) and normal-like quantiles, so with n items the "
        "test behaves like a z test: for normal data its size is "
        "P(|t_{n−1}| > 1.96·√((n−1)/n)) = 0.096 at n = 10, 0.064 at n = 30 and 0.054 at "
        "n = 100 (closed form), which the simulated rates match. This is the known "
        "first-order accuracy of the method (Efron & Tibshirani 1993, §16.4), not an "
        "implementation error. Paired, up to 16 non-zero differences, a bootstrap p below "
        "α stands only where the exact sign-flip test agrees (issue 41), which brings the "
        "paired rows at n = 10 within bounds.",
        _SMALL_BOOTSTRAP_WARNING,
    ),
    Explanation(
        "size/unpaired-continuous/permutation/behrens/n=*",
        "above",
        "A label-shuffle test is exact for *exchangeable* samples (equal distributions), "
        "not for equal means with unequal variances and sizes (the Behrens-Fisher "
        "problem; Romano 1990). With σ_A = 2, n_B = 3 n_A its permutation distribution "
        "has variance (n_Aσ²_A + n_Bσ²_B)/(n_A + n_B)·(1/n_A + 1/n_B) = 2.33/n_A against "
        "the true 4.33/n_A, so its asymptotic size is P(|Z| > 1.96·√(2.33/4.33)) = "
        "0.150 (closed form), which the simulated rates match at every n. Welch's t "
        "(`method='auto'`) is valid here.",
        "with `method='permutation'` on unpaired continuous data whose groups differ in "
        "size and in SD (each by more than about 1.5×), the `Per dataset × metric` "
        "section should say that the permutation test compares distributions, not means, "
        "and that Welch's t (`method='auto'`) tests the means.",
    ),
    Explanation(
        "size/unpaired-binary/auto/*/n=*",
        "above",
        "The two-proportion z test (pooled variance, no continuity correction) is slightly "
        "liberal on the binomial lattice: exact enumeration of every (k_A, k_B) with "
        "binomial weights (scipy) gives size 0.0519 at p = 0.5, n = 30, 0.0560 at "
        "p = 0.5, n = 100 and 0.0544 at p = 0.9, n = 30; the excess shrinks as n grows. "
        "It stays below 0.06 here; the exact label-shuffle test (`method='permutation'`, "
        "hypergeometric) is valid at any n.",
    ),
    Explanation(
        "size/runs-differ/*/n=10|size/friedman/chi2/*/N=5",
        "below",
        "χ² approximations with few blocks are conservative: Cochran's Q with 10 items and "
        "Friedman's χ² with 5 blocks reject less often than α (Iman & Davenport 1980, the "
        "reason Demšar 2006 recommends their F statistic, whose rows are inside). "
        "Conservative, so the error rate is still below α.",
    ),
    Explanation(
        "size/paired-continuous/auto/lognormal/n=*|size/paired-continuous/auto/t3/n=[13]0",
        "below",
        "The paired t test is conservative when the per-item differences are symmetric "
        "but heavy-tailed and peaked (here the difference of two i.i.d. lognormal or t(3) "
        "errors): Efron (1969, *JASA* 64:1278) shows Student's t is conservative under "
        "such symmetry, the more so the smaller n. Conservative, so the error rate is "
        "still below α; the permutation test (`method='permutation'`) is exact here.",
    ),
    Explanation(
        "size/unpaired-continuous/auto/lognormal/n=[13]0",
        "below",
        "Welch's t on two equally skewed samples of 10–30 is conservative: the skewness "
        "cancels in the difference of means, but the variance estimate is right-skewed "
        "and positively correlated with |x̄_A − x̄_B|, which shrinks large t values. "
        "Conservative, so the error rate is still below α.",
    ),
    Explanation(
        "size/*-binary/*/n=[13]0",
        "below",
        "Discrete data with few events: with 10–30 items per system and success rates "
        "near 0 or 1, many samples cannot reach p ≤ 0.05 (e.g. both systems perfect gives "
        "p = 1). Exact enumeration of the two-proportion z test for p = 0.9, n = 10 gives "
        "size 0.009 (scipy binomial probabilities of every table); where the rarer score is "
        "so few that no exact test could reject (issue 41), reportgen takes the exact "
        "label-shuffle p, and the enumeration of that rule gives 0.0015, which the "
        "simulation matches. Conservative, so the error rate is still below α.",
    ),
    # ------------------------------------------------------------------ coverage
    Explanation(
        "coverage/mean/wilson/p=0.[59]/n=*",
        "either",
        "Coverage of a binomial interval at a *fixed* p is a saw-tooth in p and n "
        "(Brown, Cai & DasGupta 2001). Exact coverage of the Wilson interval by "
        "enumeration of k (statsmodels `proportion_confint(method='wilson')`): p = 0.5: "
        "0.979 (n = 10), 0.957 (30), 0.943 (100); p = 0.9: 0.930 (10), 0.974 (30), "
        "0.936 (100), 0.949 (1000); the simulated rates match these. Wilson is calibrated "
        "on average over p: see the p ~ Uniform rows (exact averages 0.956, 0.953, "
        "0.951), which are inside.",
    ),
    Explanation(
        "coverage/unpaired-diff/auto/lognormal/n=[13]0",
        "above",
        "The Welch interval over-covers with two equally skewed small samples, the "
        "interval side of the conservative Welch test (size note on Welch's t).",
    ),
    Explanation(
        "coverage/*-diff/auto/binary/n=10",
        "above",
        "With 10 items the counts take few values and the score intervals (Tango for "
        "paired, Newcombe for unpaired proportions), like every interval of discrete data, "
        "over-cover at these p; conservative.",
    ),
    Explanation(
        "coverage/*-diff/bootstrap/binary/n=[13]0",
        "below",
        "Bootstrap intervals of a difference of proportions with 10–30 items: the "
        "bootstrap distribution of a few discordant items is lumpy and too narrow (the "
        "small-n bootstrap narrowness of the continuous rows, plus discreteness). The "
        "default intervals (Tango, Newcombe) are calibrated here.",
        _SMALL_BOOTSTRAP_WARNING,
    ),
    Explanation(
        "coverage/mean/*/lognormal/n=*|coverage/unpaired-diff/bootstrap/lognormal/n=*",
        "below",
        "Skewed data (lognormal(0, 1), skewness 6.2): every interval for a mean built "
        "from the sample's own spread under-covers until n is large, because the sample "
        "mean and SD are positively correlated and the sampling distribution of the mean "
        "is skewed (t: 0.83 at n = 10, 0.90 at 30, 0.93 at 100). BCa corrects only part "
        "of it (Efron & Tibshirani 1993, §14.3).",
        _SKEW_WARNING,
    ),
    Explanation(
        "coverage/paired-diff/*/skewdiff/n=*",
        "below",
        "Skewed per-item differences (centred lognormal, skewness 6.2): see the lognormal "
        "note; the same under-coverage as for one mean.",
        _SKEW_WARNING,
    ),
    Explanation(
        "coverage/mean/bca/t3/n=*|coverage/paired-diff/bootstrap/t3/n=*",
        "below",
        "Heavy tails (t with 3 df; finite variance, infinite fourth moment). The bootstrap "
        "BCa interval's acceleration and bias correction are estimated from the same "
        "few extreme items and make the interval too short, even at n = 1000. "
        "scipy.stats.bootstrap(method='BCa'), an independent implementation, gives the "
        "same coverage on the same data: 0.917 against reportgen's 0.916 on 4,000 samples "
        "of 100, 0.936 against 0.937 on 1,500 samples of 1,000 (and a test in "
        "tests/calibration at n = 30). The t interval is calibrated here.",
        "the default `ci_method='auto'` uses BCa for continuous scores; with heavy-tailed "
        "scores (sample kurtosis well above 3) the `Per dataset × metric` section should "
        "note that the t interval (`ci_method='t'`) covers better.",
    ),
    Explanation(
        "coverage/mean/percentile/*/n=[13]0|coverage/mean/bca/*/n=[13]0|"
        "coverage/*-diff/bootstrap/*/n=[13]0",
        "below",
        "Bootstrap intervals at small n are too narrow: the bootstrap distribution of a "
        "mean has the plug-in variance (divisor n) and normal-like quantiles, so for "
        "normal data the percentile interval covers P(|t_{n−1}| ≤ 1.96·√((n−1)/n)) = "
        "0.904 at n = 10 and 0.936 at n = 30 (closed form), which the simulation "
        "matches; BCa does not remove this. First-order accuracy of the method.",
        _SMALL_BOOTSTRAP_WARNING,
    ),
    Explanation(
        "coverage/clustered/bootstrap-*/*/G=[13]0|coverage/clustered/per-run/*/G=[13]0",
        "below",
        "Bootstrap over 10–30 items: the cluster bootstrap resamples the G items and the "
        "per-run interval bootstraps the items of one run, so both share the small-n "
        "narrowness of every bootstrap of a mean (closed form for normal data: 0.904 at "
        "10, 0.936 at 30 items; note on bootstrap intervals).",
        "with repeated runs on fewer than about 30 items, the `Repeated runs` section "
        "should say that the bootstrap intervals are somewhat too narrow and point to the "
        "cluster-robust interval.",
    ),
    Explanation(
        "coverage/clustered/cr1/*/G=[13]0",
        "below",
        "With equal cluster sizes the CR1 interval with t(G − 1) quantiles *is* the t "
        "interval of the G item means (identity checked against scipy `ttest_1samp` in "
        "tests/calibration). The item means of Beta(4, 1) success rates are skewed "
        "(skewness −1.1), so with 10–30 items it shares the t interval's under-coverage "
        "on skewed data (Cameron & Miller 2015, §VI, on few clusters).",
    ),
    Explanation(
        "coverage/clustered/naive/*",
        "below",
        "By design: the naive interval treats the 5 runs of an item as independent and is "
        "shown only for contrast. Its coverage is P(|Z| ≤ 1.96/√deff) with the design "
        "effect deff = 1 + (m − 1)·ICC: 0.742 for the continuous setting (ICC 0.5, "
        "deff 3) and 0.871 for the binary one (ICC 1/6, deff 1.67) (closed form), which "
        "the simulation matches. The report never uses it for a claim.",
    ),
    Explanation(
        "coverage/corpus/*/percentile/n=30",
        "below",
        "Percentile bootstrap of macro F1 over 30 items (about 9 positives): the small-n "
        "narrowness of the bootstrap plus a lumpy distribution of a ratio metric; the BCa "
        "interval (the analysis default for corpus metrics) is inside here.",
        "corpus metrics (F1) on fewer than about 50 items: the `Per dataset × metric` "
        "section should say their intervals are approximate.",
    ),
    Explanation(
        "coverage/rank/bootstrap-joint/*",
        "below",
        "By design: the percentile intervals of the bootstrap rank distributions are "
        "per-system intervals (each covers its own system's rank, see the marginal rows, "
        "inside), not simultaneous ones, so all five together cover less than 95%. "
        "`simultaneous_rank_intervals` is the joint statement (its rows are inside).",
        "the rank-distribution intervals (`Exploration`) must be labelled as per-system "
        "intervals; only the simultaneous rank intervals support a statement about the "
        "whole ranking.",
    ),
    Explanation(
        "coverage/corpus/*/n=30",
        "above",
        "Macro F1 of 30 items (about 9 positives) is very discrete and its bootstrap "
        "distribution is wide; the intervals over-cover (conservative).",
    ),
    # ------------------------------------------------------------------ HMP
    Explanation(
        "hmp/equicorrelated-*",
        "above",
        "The Landau calibration of the HMP is exact for independent p-values as L grows; "
        "under dependence it is only approximate (Wilson 2019; Goeman, Rosenblatt & "
        "Nichols 2019, *PNAS* 116:23382). With 50 one-sided tests equicorrelated at "
        "ρ = 0.5 the size is about 0.055 (up to 0.006 above α); a combination "
        "valid under any dependence needs a factor up to e·log L (Vovk & Wang 2020), far "
        "too conservative. In reportgen the combined lists are different datasets, whose "
        "p-values for one pair are independent under the null; the end-to-end ranking row "
        "is inside.",
        "the `Across datasets` ordered ranking should say that HMP-combined p-values "
        "assume the lists are independent (different item sets) and are slightly "
        "optimistic when the same items enter several lists.",
    ),
    Explanation(
        "hmp/raw-hmp-reference/*",
        "above",
        "Reference row, not a reportgen decision rule: the raw harmonic mean of the "
        "p-values compared with α directly is anti-conservative (Wilson 2019, and its "
        "correction), which is why reportgen uses the asymptotically exact Landau "
        "version (`p_value`, `p_adjusted`), whose rows above are within bounds.",
    ),
)


# ============================================================================ the report


@dataclass(frozen=True)
class Report:
    rows: tuple[Row, ...]
    power: tuple[PowerTable, ...]
    seed: int
    quick: bool
    started: str
    commit: str
    seconds: float


def _commit() -> str:
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "reportgen"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return sha + (" (reportgen/ modified)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _evaluate_task(
    args: tuple[str, int, int | None],
) -> tuple[Estimate, float, tuple[Estimate, float] | None]:
    """Worker: simulate one scenario; returns picklable estimates (a Row holds the
    scenario's closure, which does not pickle)."""
    key, seed, reps = args
    row = evaluate(scenario(key), seed=seed, reps=reps)
    c = row.confirmation
    return row.estimate, row.seconds, None if c is None else (c.estimate, c.seconds)


def run(
    *,
    families: Sequence[str] | None = None,
    only: str | None = None,
    quick: bool = False,
    seed: int = SEED,
    jobs: int = 1,
    power: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Evaluate the scenarios (and the power table) and return a :class:`Report`."""
    started = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    t0 = time.perf_counter()
    chosen = scenarios(families, only)
    reps_of = {s.key: (max(200, s.reps // QUICK_DIVISOR) if quick else None) for s in chosen}
    rows: list[Row] = []
    if jobs > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # fresh interpreters with one BLAS thread each, so the workers do not
        # oversubscribe the cores
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            tasks = [(s.key, seed, reps_of[s.key]) for s in chosen]
            for s, (est, seconds, conf) in zip(chosen, pool.map(_evaluate_task, tasks)):
                row = _assemble(s, seed, est, seconds, conf)
                rows.append(row)
                if progress:
                    progress(_progress_line(row, len(rows), len(chosen)))
    else:
        for s in chosen:
            row = evaluate(s, seed=seed, reps=reps_of[s.key])
            rows.append(row)
            if progress:
                progress(_progress_line(row, len(rows), len(chosen)))
    tables: list[PowerTable] = []
    if power and (families is None or "power" in families) and only is None:
        start = time.perf_counter()
        tables = power_table(reps=200 if quick else 1000, seed=seed)
        if progress:
            progress(f"power table: {time.perf_counter() - start:.1f} s")
    return Report(
        tuple(rows), tuple(tables), seed, quick, started, _commit(), time.perf_counter() - t0
    )


def report_to_json(report: Report) -> dict[str, Any]:
    """The raw simulation results of a report (to re-render without re-simulating)."""

    def est(e: Estimate) -> dict[str, Any]:
        return {"value": e.value, "reps": e.reps, "se": e.se}

    return {
        "seed": report.seed,
        "quick": report.quick,
        "started": report.started,
        "commit": report.commit,
        "seconds": report.seconds,
        "rows": [
            {
                "key": r.scenario.key,
                "estimate": est(r.estimate),
                "seconds": r.seconds,
                "confirmation": None
                if r.confirmation is None
                else {"estimate": est(r.confirmation.estimate), "seconds": r.confirmation.seconds},
            }
            for r in report.rows
        ],
        "power": [
            {
                "title": t.title,
                "setting": t.setting,
                "effects": list(t.effects),
                "effect_label": t.effect_label,
                "tests": list(t.tests),
                "power": t.power.tolist(),
                "reps": t.reps,
            }
            for t in report.power
        ],
    }


def report_from_json(data: dict[str, Any]) -> Report:
    """A report from :func:`report_to_json` output, judged with the current scenarios
    and explanations (rows whose key no longer exists are dropped)."""
    known = {s.key: s for s in scenarios()}

    def est(d: dict[str, Any]) -> Estimate:
        return Estimate(float(d["value"]), int(d["reps"]), d["se"])

    rows = []
    for r in data["rows"]:
        if r["key"] not in known:
            continue
        conf = r["confirmation"]
        rows.append(
            _assemble(
                known[r["key"]],
                data["seed"],
                est(r["estimate"]),
                r["seconds"],
                None if conf is None else (est(conf["estimate"]), conf["seconds"]),
            )
        )
    power = [
        PowerTable(
            t["title"],
            t["setting"],
            tuple(t["effects"]),
            t["effect_label"],
            tuple(t["tests"]),
            np.asarray(t["power"]),
            t["reps"],
        )
        for t in data["power"]
    ]
    return Report(
        tuple(rows),
        tuple(power),
        data["seed"],
        data["quick"],
        data["started"],
        data["commit"],
        data["seconds"],
    )


def _progress_line(row: Row, done: int, total: int) -> str:
    est = row.estimate
    return (
        f"[{done}/{total}] {row.scenario.key}: {est.value:.4f} "
        f"[{row.low:.4f}, {row.high:.4f}] {row.status} ({row.seconds:.1f} s)"
    )


def _fmt(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.3f}"


def _bounds_text(row: Row) -> str:
    if row.scenario.kind == "at-most":
        return f"≤ {row.high:.3f}"
    if row.scenario.kind == "at-least":
        return f"≥ {row.low:.3f}"
    return f"{row.low:.3f} – {row.high:.3f}"


def _status_text(row: Row, notes: dict[str, int]) -> str:
    status = row.status
    if status == "inside (confirmed)":
        c = row.confirmation
        assert c is not None
        return f"inside on confirmation ({_fmt(c.estimate.value)} with {c.estimate.reps} reps)"
    if status == "outside, explained":
        assert row.explanation is not None
        return f"**outside** ({row.side}), see note {notes[row.explanation.pattern]}"
    if status == "OUTSIDE":
        extra = ""
        if row.confirmation is not None:
            extra = f"; confirmation {_fmt(row.confirmation.estimate.value)}"
        return f"**OUTSIDE ({row.side}), unexplained**{extra}"
    return "inside"


# Over 100 lines of code: the validation page's sections (size, coverage, calibration
# gates, explanations) written in the order they appear in docs/validation.md.
def render_markdown(report: Report) -> str:
    """``docs/validation.md`` from a report."""
    rows = report.rows
    notes: dict[str, int] = {}
    for row in rows:
        if row.status == "outside, explained" and row.explanation is not None:
            notes.setdefault(row.explanation.pattern, len(notes) + 1)
    by_pattern = {e.pattern: e for e in EXPLANATIONS}
    counts = {
        k: sum(r.status == k for r in rows)
        for k in ("inside", "inside (confirmed)", "outside, explained", "OUTSIDE")
    }
    mode = "quick (replications ÷ 5)" if report.quick else "full"
    lines = [
        "# Statistical validation of reportgen",
        "",
        "<!-- generated by tools/validation.py; edit the script, not this file -->",
        "",
        "Every statistical routine the reports use is run many times on simulated data "
        "whose truth is known, and the rate it achieves (size of a test, family-wise "
        "error or false discovery rate of a correction, coverage of an interval, power "
        "predicted by `reportgen.stats.power`) is compared with Monte Carlo bounds.",
        "",
        "Regenerate from the repository root (`--jobs 2` uses two processes: 10–16 "
        "minutes measured on a shared 2-core machine; `--quick` runs a fifth of the "
        "replications; "
        "`--json FILE` keeps the raw results and `--from-json FILE` re-renders them):",
        "",
        "```bash",
        ".venv/bin/python tools/validation.py --out docs/validation.md",
        "```",
        "",
        f"- Generated: {report.started}; commit {report.commit}; mode {mode}; master seed "
        f"{report.seed}; run time {report.seconds / 60:.1f} min.",
        f"- Rows: {len(rows)}; inside their bounds: {counts['inside']}; inside on "
        f"confirmation: {counts['inside (confirmed)']}; outside with a documented reason: "
        f"{counts['outside, explained']}; **unexplained: {counts['OUTSIDE']}**.",
        "",
    ]
    warnings_used: dict[str, list[int]] = {}
    for pattern, number in notes.items():
        w = by_pattern[pattern].warning
        if w:
            warnings_used.setdefault(w, []).append(number)
    if warnings_used:
        lines += [
            "## Warnings the reports carry",
            "",
            "Every row outside its bounds is a property of the method or of the "
            "setting, not a defect of the code (see the notes at the end). Where it "
            "can mislead a reader, the report says so: "
            "`reportgen/report/caveats.py` checks each list's data and options and "
            "puts a warning box in the section named below "
            "(`tests/report/test_caveats.py`):",
            "",
        ]
        for w, numbers in warnings_used.items():
            refs = ", ".join(str(n) for n in numbers)
            lines.append(f"- {w[0].upper() + w[1:]} (note{'s' if len(numbers) > 1 else ''} {refs})")
        lines.append("")
    lines += [
        "## How to read the tables",
        "",
        "- **Bounds.** Each rate is estimated from N independent replications (column N). "
        "The bounds are the central 99% interval of Binomial(N, nominal)/N: the rates a "
        "procedure exactly at its nominal level produces 99 times in 100. For false "
        "discovery *proportions* (not 0/1) the bounds are nominal ± 2.576 × the "
        "simulated standard error. Procedures that are conservative by construction "
        "(exact tests of discrete data, Bonferroni, Holm, Clopper-Pearson, simultaneous "
        "rank intervals, the HMP) are checked on one side only: `≤ upper` for an error "
        "rate, `≥ lower` for a coverage.",
        "- **Confirmation.** About one row in a hundred lands outside 99% bounds by "
        "chance. A row outside its bounds without a documented reason is re-run once "
        "with a fresh seed and twice the replications; it is reported inside only if "
        "that confirmation is inside.",
        "- **Vectorised replications.** One call of a routine carries many independent "
        "simulated systems or pairs; sizes are measured on the raw p-values of disjoint "
        'pairs `(0, 1), (2, 3), …` (`order="successive"`, every second pair, '
        f'`correction="none"`), so no multiple-comparison correction enters a size. '
        f"Resampling routines get at most {RESAMPLING_BLOCK} pairs per call (they share "
        "their random signs or bootstrap counts within a call).",
        f"- **Resamples.** Permutation and bootstrap tests use R = {TEST_RESAMPLES} "
        f"(the Monte Carlo p-value (k + 1)/(R + 1) is valid for any R), bootstrap "
        f"intervals R = {INTERVAL_RESAMPLES}; reports default to 9999.",
        "- **Seeds.** Each row draws from `numpy.random.default_rng([seed, "
        "crc32(key), attempt])`, so a row is reproducible on its own: "
        "`.venv/bin/python tools/validation.py --only 'KEY'`.",
        "",
    ]
    for family in FAMILIES:
        fam_rows = [r for r in rows if r.scenario.family == family]
        if not fam_rows:
            continue
        lines += [f"## {FAMILY_TITLES[family]}", ""]
        lines += _family_intro(family)
        groups: dict[str, list[Row]] = {}
        for r in fam_rows:
            groups.setdefault(r.scenario.group, []).append(r)
        for group, grows in groups.items():
            lines += [f"### {group}", ""]
            routines: dict[str, list[Row]] = {}
            for r in grows:
                routines.setdefault(r.scenario.routine, []).append(r)
            nominal_head = "predicted" if family == "power" else "nominal"
            for routine, rrows in routines.items():
                lines += [
                    f"`{routine}`" if "(" in routine else f"*{routine}*",
                    "",
                    f"| setting | N | {nominal_head} | estimate | bounds | result | key |",
                    "|---|---:|---:|---:|---|---|---|",
                ]
                for r in rrows:
                    s = r.scenario
                    lines.append(
                        f"| {s.setting} | {r.estimate.reps} | {_fmt(s.nominal)} | "
                        f"{_fmt(r.estimate.value)} | {_bounds_text(r)} | "
                        f"{_status_text(r, notes)} | `{s.key}` |"
                    )
                lines.append("")
    if report.power:
        lines += [
            "## Power of the tests against each other",
            "",
            "Rejection rates at α = 0.05 (two-sided) of the alternative tests on the "
            "*same* simulated data, by effect size; the first column (effect 0) is "
            "the size. Monte Carlo standard error at most "
            f"{0.5 / math.sqrt(report.power[0].reps):.3f}. These back the automatic "
            'choices of `method="auto"` (see the conclusions below the tables).',
            "",
        ]
        for t in report.power:
            lines += [
                f"### {t.title}",
                "",
                f"{t.setting}; {t.reps} replications per effect; effect = {t.effect_label}.",
                "",
            ]
            lines.append("| test | " + " | ".join(f"{e:g}" for e in t.effects) + " |")
            lines.append("|---|" + "---:|" * len(t.effects))
            for name, powers in zip(t.tests, t.power):
                lines.append(f"| {name} | " + " | ".join(f"{p:.3f}" for p in powers) + " |")
            lines.append("")
        lines += POWER_CONCLUSIONS + [""]
    if notes:
        lines += ["## Notes on the rows outside their bounds", ""]
        for pattern, number in notes.items():
            e = by_pattern[pattern]
            keys = [
                r.scenario.key
                for r in rows
                if r.explanation is not None and r.explanation.pattern == pattern
            ]
            side = "on either side of" if e.direction == "either" else f"{e.direction}"
            lines += [
                f"{number}. **`{pattern}`** ({len(keys)} row(s) {side} the bounds). "
                f"{e.text}" + (f" *Report warning:* {e.warning}" if e.warning else ""),
                "",
            ]
    unexplained = [r for r in rows if r.status == "OUTSIDE"]
    if unexplained:
        lines += ["## Unexplained rows", ""]
        for r in unexplained:
            lines.append(
                f"- `{r.scenario.key}`: {_fmt(r.estimate.value)} outside {_bounds_text(r)}"
            )
        lines.append("")
    lines += NOT_COVERED + [""]
    return "\n".join(lines)


def _family_intro(family: str) -> list[str]:
    text = FAMILY_INTROS.get(family)
    return [text, ""] if text else []


FAMILY_INTROS: dict[str, str] = {
    "size": (
        "Rejection rate at α = 0.05 when the null hypothesis is true, two-sided tests. "
        "*Exchangeable* settings (A and B identically distributed given the item) are the "
        "null of every test; *equal means but different shapes* (keys `skewdiff`, "
        "`behrens`, `skewmix`) is the null of the t tests and the bootstrap only — "
        "permutation tests test exchangeability and the sign test tests "
        "P(A > B) = P(A < B), so there they answer a different question (see the notes). "
        "Cauchy data have no mean: their rows check only that no test rejects more than α "
        "under exchangeability; discrete (judge-like) scores make permutation tests "
        "conservative, so those rows are checked one-sidedly."
    ),
    "fwer": (
        "Probability of at least one false rejection among the true nulls, at α = 0.05, "
        "for the four FWER corrections of `adjust_pvalues` and end to end through "
        "`compare_paired`. Šidák and Holm-Šidák are exact under independence (two-sided "
        "check); the other settings only require FWER ≤ α."
    ),
    "fdr": (
        "Mean false discovery proportion (0 when nothing is rejected) at q = 0.05. Under "
        "independence BH has FDR exactly α·m0/m (Benjamini & Hochberg 1995), so it is "
        "checked two-sidedly against that; under positive dependence (PRDS) BH and under "
        "any dependence BY only guarantee ≤ α·m0/m. With no false null (m1 = 0) the FDR "
        "is the FWER, a binomial rate."
    ),
    "coverage": (
        "Share of 95% intervals containing the true value. Per-system intervals cover the "
        "population mean; difference intervals the true difference (0.3 score units, or "
        "0.1 for accuracies); clustered intervals the population mean of items × 5 runs; "
        "corpus intervals the macro F1 of the population counts; simultaneous rank "
        "intervals must contain *every* system's true rank (for tied true means, the "
        "whole range of ranks the tie allows) at once. The pooled-runs interval of seed "
        "004 has the width of a *single* run (it resamples one run's worth of rows from "
        "the pooled runs), so as an interval for the mean over 5 runs it over-covers by "
        "design and is checked one-sidedly."
    ),
    "hmp": (
        "Wilson's (2019) harmonic-mean p-value as `harmonic_mean_pvalue` implements it: "
        "the *asymptotically exact* version (the Landau tail with location log L + 0.874 "
        "and scale π/2, `harmonicmeanp` ≥ 3.0), not the raw HMP compared with α, which is "
        "anti-conservative. Rejection of `p_adjusted ≤ 0.05` under the global null."
    ),
    "power": (
        "Power predicted by `power_at` (the engine's default test of each design) against "
        "the rejection rate of that test in simulation, two-sided α = 0.05; the bounds "
        "are the binomial 99% interval around the *predicted* power."
    ),
}

POWER_CONCLUSIONS: list[str] = [
    "Conclusions (the fast tests in `tests/calibration` assert the first two):",
    "",
    "- **Paired continuous → paired t.** On normal differences the paired t and the "
    "sign-flip permutation test have the same power; the bootstrap looks a few points "
    "stronger only because its size at n = 30 is too large (0.064 in closed form, see the "
    "notes); the sign test loses about a third of the information (asymptotic relative "
    "efficiency 2/π). With heavy tails (t(3)) all four are close and the permutation test "
    "is exact, so `method='permutation'` is the safe alternative. With peaked, long-tailed "
    "differences (difference of two lognormals) the sign test is far stronger, but it "
    "tests P(A > B) = P(A < B), not the mean: `method='sign'` is for claims about winning "
    "items.",
    "- **Paired binary → exact McNemar.** Ignoring the pairing (a two-proportion z test on "
    "paired data) loses power and is conservative; the bootstrap's few extra points come "
    "with a size that is not controlled at small n.",
    "- **Unpaired continuous → Welch.** Welch and the label shuffle have equal power on "
    "normal data; on skewed data the permutation and bootstrap tests gain a few points, "
    "but the permutation test is invalid for equal means with unequal variances and sizes "
    "(size 0.15) and the bootstrap is liberal at small n, while Welch is valid in every "
    "unpaired null tested.",
    "- **Unpaired binary → two-proportion z.** It is clearly more powerful than the exact "
    "(hypergeometric) label shuffle, which is conservative, at the price of a size excess "
    "below 0.01 on the binomial lattice; the exact test is the choice for small samples.",
    "- **Heavily skewed differences → a robust estimand** (issue 41). On rare large losses "
    "(skewness −2.3 and −6.2) a comparison of means is flagged `skewed` and never called "
    "significant, so its rate of significant calls at a shift of 0.3 SD stays near 0 "
    "(up to about 0.2 where the flag does not fire at n = 200); the 20% trimmed mean "
    "(Yuen) and the Hodges-Lehmann shift (Wilcoxon) detect the same shift from their own "
    "null with power 0.55–0.92 at n = 30 and 0.97 or more from n = 100, the trimmed mean "
    "the stronger of the two. They answer another question (the typical item, not the "
    "average), and each report names the estimand it decides.",
]

NOT_COVERED: list[str] = [
    "## Not covered here",
    "",
    "- Descriptive outputs with no error rate to calibrate: effect sizes, win rates, "
    "Bradley-Terry strengths (their bootstrap intervals describe the resampled fits), the "
    "noise profile of a benchmark, item analysis, TOPSIS, compact letter displays.",
    "- The exactness of the closed-form routines (t, Welch, McNemar, Wilson, "
    "Clopper-Pearson, Tango, Newcombe, the corrections, power) against scipy and "
    "statsmodels is checked value by value in `tests/stats`; this document checks "
    "their *statistical* calibration.",
]


# ============================================================================ CLI


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help=f"replications ÷ {QUICK_DIVISOR} (a few minutes)"
    )
    parser.add_argument(
        "--out",
        default=str(ROOT / "docs" / "validation.md"),
        help="markdown file to write (default docs/validation.md)",
    )
    parser.add_argument("--seed", type=int, default=SEED, help="master seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--family", action="append", choices=FAMILIES, help="only these families (repeatable)"
    )
    parser.add_argument("--only", help="only scenarios whose key matches this pattern")
    parser.add_argument(
        "--no-power-table", action="store_true", help="skip the power comparison table"
    )
    parser.add_argument("--json", help="also save the raw results to this JSON file")
    parser.add_argument(
        "--from-json", help="re-render the markdown from saved raw results instead of simulating"
    )
    args = parser.parse_args(argv)
    if args.from_json:
        report = report_from_json(json.loads(Path(args.from_json).read_text("utf-8")))
    else:
        report = run(
            families=args.family,
            only=args.only,
            quick=args.quick,
            seed=args.seed,
            jobs=args.jobs,
            power=not args.no_power_table,
            progress=lambda line: print(line, file=sys.stderr, flush=True),
        )
    if args.json:
        Path(args.json).write_text(json.dumps(report_to_json(report), indent=1), encoding="utf-8")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_markdown(report), encoding="utf-8")
    bad = [r for r in report.rows if r.status == "OUTSIDE"]
    print(
        f"wrote {out}: {len(report.rows)} rows, {len(bad)} unexplained, "
        f"{report.seconds / 60:.1f} min",
        file=sys.stderr,
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

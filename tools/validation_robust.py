"""Calibration scenarios of the robust estimands and of the skewed-unit rule (issue 41
item 4): the size of the 20% trimmed mean's test (Yuen) and of the Hodges-Lehmann
shift's (Wilcoxon signed-rank) under their own null, the rate at which a comparison of
means on the same skewed differences is *called significant* (never on an
approximation), and the power of the three estimands at a shift of 0.3 SD
(``tools/validation.py``).

The differences are those of the skewed size rows (``validation_size.
SKEWED_DIFFERENCES``): rare large losses (skewness −2.3) and −(lognormal(0, 1) − its
mean) (skewness −6.2). Each estimand's own null centres them on its population value:
the 20% trimmed mean (the integral of the quantile function over [0.2, 0.8], / 0.6) or
the pseudo-median (the median of (X₁ + X₂)/2, solved from the convolution), computed
numerically with scipy once.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from scipy import integrate, optimize, stats
from validation_base import (
    ALPHA,
    Estimate,
    Scenario,
    _blocks,
    _even_pairs,
    _interleave,
    _rate,
    _rejections,
    _Silent,
)
from validation_size import SKEWED_DIFFERENCES, _skewed_difference

from reportgen.stats.pairwise import compare_paired

#: Pairs per call of the rank estimand (each pair ranked on its own).
ROBUST_BLOCK = 200
ESTIMANDS = {
    "trimmed": "20% trimmed mean (Yuen)",
    "hodges-lehmann": "Hodges-Lehmann shift (Wilcoxon signed-rank)",
}


def _quantile(dist: str, u: float) -> float:
    """The quantile function of the skewed differences (``validation_size``)."""
    if dist == "lognormal-loss":  # −(L − e^{1/2}), L lognormal(0, 1)
        return -(math.exp(float(stats.norm.ppf(1 - u))) - math.exp(0.5))

    def cdf(x: float) -> float:  # 0.3 Z + 0.3 − 3 B, B ~ Bernoulli(0.1)
        return 0.9 * stats.norm.cdf((x - 0.3) / 0.3) + 0.1 * stats.norm.cdf((x + 2.7) / 0.3)

    return float(optimize.brentq(lambda x: cdf(x) - u, -10, 10, xtol=1e-13))


@functools.cache
def population_value(estimand: str, dist: str) -> float:
    """The estimand of the distribution of differences: its 20% trimmed mean or its
    pseudo-median (Hodges-Lehmann's population value)."""
    if estimand == "mean":
        return 0.0
    if estimand == "trimmed":
        value, _ = integrate.quad(lambda u: _quantile(dist, u), 0.2, 0.8, limit=200)
        return value / 0.6
    if dist == "rareloss":  # X1 + X2 = 0.3 (Z1 + Z2) + 0.6 − 3 (B1 + B2)
        weights, shifts = (0.81, 0.18, 0.01), (0.6, -2.4, -5.4)

        def sum_cdf(s: float) -> float:
            return sum(
                w * stats.norm.cdf((s - m) / (0.3 * math.sqrt(2))) for w, m in zip(weights, shifts)
            )

        return float(optimize.brentq(lambda s: sum_cdf(s) - 0.5, -10, 10, xtol=1e-13)) / 2
    # lognormal-loss: X1 + X2 = 2 e^{1/2} − (L1 + L2); the median of L1 + L2 by
    # convolution, P(L1 + L2 <= s) = ∫ F(s − x) f(x) dx

    def sum_cdf_l(s: float) -> float:
        value, _ = integrate.quad(
            lambda x: stats.lognorm.cdf(s - x, 1.0) * stats.lognorm.pdf(x, 1.0), 0, s, limit=200
        )
        return value

    median = float(optimize.brentq(lambda s: sum_cdf_l(s) - 0.5, 0.5, 20, xtol=1e-12))
    return (2 * math.exp(0.5) - median) / 2


def _sd(dist: str) -> float:
    return math.sqrt(0.09 + 9 * 0.09) if dist == "rareloss" else math.sqrt((math.e - 1) * math.e)


def _rates(
    estimand: str, dist: str, n: int, shift: float, decided: bool
) -> Callable[[int, np.random.Generator], Estimate]:
    """Rejections (raw p <= α, or ``significant()`` when ``decided``) of the two-sided
    paired test of ``estimand`` on differences centred on its own null plus ``shift``
    SDs."""
    center = population_value(estimand, dist)
    step = shift * _sd(dist)

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        block = ROBUST_BLOCK if estimand == "hodges-lehmann" else 2000
        with _Silent():
            for pairs in _blocks(reps, block):
                u = rng.standard_normal((n, pairs))
                d = _skewed_difference(dist, (n, pairs), rng) - center + step
                r = compare_paired(
                    _interleave(u + d, u),
                    modality="continuous",
                    order="successive",
                    correction="none",
                    estimand=estimand,  # type: ignore[arg-type]
                    n_resamples=999,
                    rng=rng,
                )
                hits += (
                    int(np.count_nonzero(_even_pairs(r.significant())))
                    if decided
                    else _rejections(_even_pairs(r.p_value))
                )
        return _rate(hits, reps)

    return simulate


def _robust_scenarios() -> list[Scenario]:
    """Size rows (family ``size``): each robust estimand under its own null, and the
    mean's *decisions* (significant, not raw p) under its own."""
    out: list[Scenario] = []
    for dist, setting in SKEWED_DIFFERENCES.items():
        for n in (30, 100, 200):
            for estimand, name in ESTIMANDS.items():
                center = population_value(estimand, dist)
                out.append(
                    Scenario(
                        f"size/robust/{estimand}/{dist}/n={n}",
                        "size",
                        "robust estimands (heavily skewed differences)",
                        f"compare_paired(estimand={estimand!r}): {name}",
                        f"{setting}, centred on its {name.split(' (')[0]} ({center:+.4f}); "
                        f"n = {n}, two-sided",
                        ALPHA,
                        "two-sided",
                        4000 if estimand == "hodges-lehmann" else 10000,
                        _rates(estimand, dist, n, 0.0, decided=False),
                    )
                )
            out.append(
                Scenario(
                    f"size/robust/mean-decisions/{dist}/n={n}",
                    "size",
                    "robust estimands (heavily skewed differences)",
                    "compare_paired(estimand='mean').significant(): never on an approximation",
                    f"{setting}, mean 0; n = {n}, two-sided: comparisons called significant "
                    "(a flagged one never is)",
                    ALPHA,
                    "at-most",
                    10000,
                    _rates("mean", dist, n, 0.0, decided=True),
                )
            )
    return out


def robust_power(reps: int, rng: np.random.Generator) -> list[dict]:
    """The power at a shift of 0.3 SD of the differences from each estimand's own null,
    one table per distribution (columns n = 30, 100, 200), with the mean's rate of
    *significant* calls on the same shift (a flagged pair never called): the fields of
    ``validation.PowerTable``."""
    tests = (
        "mean (paired t; significant calls, flagged never)",
        "20% trimmed mean (Yuen)",
        "Hodges-Lehmann (Wilcoxon signed-rank)",
    )
    ns = (30, 100, 200)
    out = []
    for dist, setting in SKEWED_DIFFERENCES.items():
        power = np.array(
            [
                [_rates(e, dist, n, 0.3, decided=e == "mean")(reps, rng).value for n in ns]
                for e in ("mean", "trimmed", "hodges-lehmann")
            ]
        )
        out.append(
            {
                "title": f"robust estimands, {dist}: power at a shift of 0.3 SD",
                "setting": f"paired differences {setting}, centred on each estimand's own "
                "null and shifted by 0.3 of their SD (the candidate better)",
                "effects": ns,
                "effect_label": "n items",
                "tests": tests,
                "power": power,
                "reps": reps,
            }
        )
    return out

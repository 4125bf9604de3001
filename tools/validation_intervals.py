"""Calibration scenarios of the adjusted intervals (issue 41): the simultaneous coverage
of the intervals of Bonferroni, Šidák (simultaneous) and Holm, Holm-Šidák (step-down
compatible, Strassburger & Bretz 2008), and the false coverage rate of the BH and BY
intervals (Benjamini & Yekutieli 2005), for all-pairs families of paired t tests
(``tools/validation.py``).

A family is k systems scored on n = 30 shared items (an item effect, a system's true
mean and N(0, 1) noise), every pair compared (m = k(k − 1)/2 = 3, 6, 10). The t
statistics of a block of families are computed at once; each family's decisions and
intervals come from reportgen's :func:`reportgen.stats.multiplicity.interval_plan`, the
code every comparison of a report goes through (``PairsMixin.adjusted_interval``), so
the rows measure it; ``end-to-end`` rows run :func:`reportgen.stats.pairwise.
compare_paired` itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import stats
from validation_base import ALPHA, CONFIDENCE, Estimate, Scenario, _rate, _Silent

from reportgen.stats.multiplicity import interval_plan
from reportgen.stats.pairwise import compare_paired

#: Items of every simulated family.
FAMILY_ITEMS = 30

#: The true system means of a family of k systems, by configuration (the noise of a
#: difference has SD √2, its mean's SE is √(2/30) ≈ 0.26).
CONFIGS: dict[str, tuple[str, Callable[[int], np.ndarray]]] = {
    "null": ("every system alike (global null)", lambda k: np.zeros(k)),
    "spread": ("true means evenly spread from 0 to 2", lambda k: np.linspace(0.0, 2.0, k)),
    "one-better": (
        "one system better by 1, the others alike",
        lambda k: np.r_[1.0, np.zeros(k - 1)],
    ),
}

#: The corrections whose intervals promise simultaneous coverage.
SIMULTANEOUS = {
    "holm-sidak": "Holm-Šidák (step-down compatible)",
    "holm": "Holm (step-down compatible)",
    "bonferroni": "Bonferroni (simultaneous)",
    "sidak": "Šidák (simultaneous)",
}
FCR = {"fdr_bh": "Benjamini-Hochberg (FCR)", "fdr_by": "Benjamini-Yekutieli (FCR)"}


def _families(k: int, theta: np.ndarray, reps: int, rng: np.random.Generator):
    """Per family: the pairs' true differences, estimates, two-sided p-values, 95%
    t intervals and their df (vectorised over the families)."""
    n = FAMILY_ITEMS
    ia, ib = np.triu_indices(k, 1)
    X = rng.normal(size=(reps, n, 1)) + theta + rng.normal(size=(reps, n, k))
    D = X[:, :, ia] - X[:, :, ib]
    d = D.mean(axis=1)
    se = D.std(axis=1, ddof=1) / math.sqrt(n)
    p = 2 * stats.t.sf(np.abs(d / se), n - 1)
    q = stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1)
    return theta[ia] - theta[ib], d, p, d - q * se, d + q * se, np.full(len(ia), n - 1.0)


def _covered(low: np.ndarray, high: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Whether each interval covers (NaN: unbounded on that side)."""
    return (np.nan_to_num(low, nan=-np.inf) <= true) & (true <= np.nan_to_num(high, nan=np.inf))


def _simultaneous(
    method: str, k: int, config: str
) -> Callable[[int, np.random.Generator], Estimate]:
    """The share of families whose adjusted intervals all cover their true differences."""
    theta = CONFIGS[config][1](k)

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        true, d, p, low, high, df = _families(k, theta, reps, rng)
        hits = 0
        for r in range(reps):
            plan = interval_plan(p[r], alpha=ALPHA, method=method)  # type: ignore[arg-type]
            lo, hi = plan.intervals(d[r], p[r], ci_low=low[r], ci_high=high[r], df=df)
            hits += bool(_covered(lo, hi, true).all())
        return _rate(hits, reps)

    return simulate


def _simultaneous_end_to_end(
    method: str, k: int, config: str
) -> Callable[[int, np.random.Generator], Estimate]:
    """The same through :func:`compare_paired` (its own t intervals, guards and plan)."""
    theta = CONFIGS[config][1](k)
    n = FAMILY_ITEMS

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for _ in range(reps):
                X = rng.normal(size=(n, 1)) + theta + rng.normal(size=(n, k))
                r = compare_paired(X, correction=method)  # type: ignore[arg-type]
                lo, hi = r.adjusted_interval()
                true = theta[r.index_a] - theta[r.index_b]
                hits += bool(_covered(lo, hi, true).all())
        return _rate(hits, reps)

    return simulate


def _false_coverage(
    method: str, k: int, config: str
) -> Callable[[int, np.random.Generator], Estimate]:
    """The false coverage rate: the mean over families of the share of the selected
    (significant) comparisons whose interval misses the true difference (0 when none
    is selected; Benjamini & Yekutieli 2005)."""
    theta = CONFIGS[config][1](k)

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        true, d, p, low, high, df = _families(k, theta, reps, rng)
        share = np.zeros(reps)
        for r in range(reps):
            plan = interval_plan(p[r], alpha=ALPHA, method=method)  # type: ignore[arg-type]
            lo, hi = plan.intervals(d[r], p[r], ci_low=low[r], ci_high=high[r], df=df)
            selected = plan.significant
            if selected.any():
                share[r] = float(np.mean(~_covered(lo, hi, true)[selected]))
        return Estimate(float(share.mean()), reps, float(share.std(ddof=1) / math.sqrt(reps)))

    return simulate


def _interval_scenarios() -> list[Scenario]:
    """The coverage rows (family ``coverage``) and the false-coverage rows (``fdr``)."""
    out: list[Scenario] = []
    for method, name in SIMULTANEOUS.items():
        for k in (3, 4, 5):
            m = k * (k - 1) // 2
            for config, (setting, _) in CONFIGS.items():
                out.append(
                    Scenario(
                        f"coverage/adjusted/{method}/m={m}/{config}",
                        "coverage",
                        "adjusted intervals, together (all pairs, paired t)",
                        f"interval_plan(method={method!r}): {name}",
                        f"{k} systems × {FAMILY_ITEMS} items, all {m} pairs; {setting}; "
                        "every interval of the family covers",
                        1 - ALPHA,
                        "at-least",
                        2000,
                        _simultaneous(method, k, config),
                    )
                )
        out.append(
            Scenario(
                f"coverage/adjusted-end-to-end/{method}/m=10/spread",
                "coverage",
                "adjusted intervals, together (all pairs, paired t)",
                f"compare_paired(correction={method!r}).adjusted_interval()",
                f"5 systems × {FAMILY_ITEMS} items, all 10 pairs; "
                f"{CONFIGS['spread'][0]}; every interval of the family covers",
                1 - ALPHA,
                "at-least",
                1000,
                _simultaneous_end_to_end(method, 5, "spread"),
            )
        )
    return out


def _fcr_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    for method, name in FCR.items():
        for k in (3, 5):
            m = k * (k - 1) // 2
            for config, (setting, _) in CONFIGS.items():
                out.append(
                    Scenario(
                        f"fdr/fcr/{method}/m={m}/{config}",
                        "fdr",
                        "false coverage rate of the FCR-adjusted intervals (all pairs)",
                        f"interval_plan(method={method!r}): {name}",
                        f"{k} systems × {FAMILY_ITEMS} items, all {m} pairs; {setting}; the "
                        "share of the significant comparisons whose interval misses",
                        ALPHA,
                        "at-most",
                        4000,
                        _false_coverage(method, k, config),
                    )
                )
    return out

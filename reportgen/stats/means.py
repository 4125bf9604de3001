"""Confidence intervals for the mean score of each system.

======================  =============================================================
method                  interval
======================  =============================================================
``wilson``              Wilson score interval (binary scores)
``clopper-pearson``     exact Clopper-Pearson interval from the beta distribution
                        (binary scores)
``t``                   mean ± t_{n−1} · s/√n
``percentile``          bootstrap percentile interval
``bca``                 bootstrap bias-corrected and accelerated interval
``auto``                Wilson for binary scores, BCa for continuous ones
======================  =============================================================

The bootstrap resamples items. Systems scored on the same items (a 2-D matrix) share one
matrix of bootstrap counts, so one ``(resamples × items) @ (items × systems)`` product
per chunk gives every system's resampled means; systems each on their own items are
grouped by size and resampled the same way.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.names import CIMethod
from reportgen.plaintext import count
from reportgen.records import columns_to_records, floats, ints
from reportgen.stats import _dist
from reportgen.stats._common import TabularMixin, system_names
from reportgen.stats._degenerate import power_of_two_scale
from reportgen.stats._resampling import (
    DEFAULT_MAX_MEMORY,
    NORMAL_RESAMPLING_ITEMS,
    bca_interval,
    bootstrap_weighted_sums,
    chunk_sizes,
    exact_product,
    normal_sums,
    normal_sums_adequate,
)
from reportgen.stats.intervals import t_interval, wilson_interval

__all__ = [
    "BootstrapMeans",
    "CIMethod",
    "MeanIntervals",
    "bootstrap_means",
    "clopper_pearson_interval",
    "mean_intervals",
]

_NAMES = {
    "wilson": "Wilson",
    "clopper-pearson": "Clopper-Pearson",
    "t": "t",
    "percentile": "bootstrap percentile",
    "bca": "bootstrap BCa",
}


@dataclass(frozen=True)
class MeanIntervals(TabularMixin):
    """Mean and confidence interval of each system.

    Attributes
    ----------
    systems
        Names, one per entry of the arrays.
    mean, ci_low, ci_high
        The mean score and its two-sided interval at ``confidence``.
    n
        Items per system.
    method
        The interval used (the resolved name, e.g. ``"Wilson"``, ``"bootstrap BCa"``).
    n_resamples
        Bootstrap resamples, or ``None`` for analytic intervals.
    """

    systems: tuple[str, ...]
    mean: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n: np.ndarray
    method: str
    confidence: float
    n_resamples: int | None = None

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (NaN as None)."""
        return columns_to_records(
            {
                "system": self.systems,
                "mean": floats(self.mean),
                "ci_low": floats(self.ci_low),
                "ci_high": floats(self.ci_high),
                "ci_method": self.method,
                "confidence": self.confidence,
                "n": ints(self.n),
                "n_resamples": self.n_resamples,
            }
        )


def clopper_pearson_interval(
    successes: np.ndarray, n: np.ndarray, *, confidence: float | np.ndarray = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Exact (Clopper-Pearson) interval for a binomial proportion (``confidence`` may
    give one level per entry); NaN where ``n = 0``.

    Notes
    -----
    :math:`[B(\\alpha/2; k, n-k+1),\\; B(1-\\alpha/2; k+1, n-k)]` with B the beta
    quantile function, 0 when k = 0 and 1 when k = n (Clopper & Pearson 1934); the
    ``method="beta"`` interval of statsmodels' ``proportion_confint``.

    References
    ----------
    .. [1] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
           illustrated in the case of the binomial. Biometrika 26(4), 404-413.

    Examples
    --------
    >>> lo, hi = clopper_pearson_interval(np.array(7), np.array(10))
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.3475, 0.9333)
    >>> from scipy import stats
    >>> ci = stats.binomtest(7, 10).proportion_ci(method="exact")
    >>> round(float(ci.low), 4), round(float(ci.high), 4)
    (0.3475, 0.9333)
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    alpha = 1 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, _dist.beta_ppf(alpha / 2, k, n - k + 1), 0.0)
        high = np.where(k < n, _dist.beta_ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    bad = n <= 0
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def _samples_iv(
    samples: np.ndarray | Sequence[np.ndarray],
    systems: Sequence[str] | None,
    confidence: float,
    n_resamples: int,
) -> tuple[list[np.ndarray], bool, tuple[str, ...]]:
    """Check the shared inputs; return the per-system arrays, whether they come from one
    items × systems matrix (so resampling is shared), and the names."""
    if not 0 < confidence < 1:
        raise InputError(f"confidence={confidence!r} must be between 0 and 1 (exclusive)")
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 1:
        raise InputError(f"n_resamples={n_resamples!r} must be a positive integer")
    if isinstance(samples, np.ndarray) and samples.ndim == 2:
        arrays = [samples[:, j].astype(np.float64) for j in range(samples.shape[1])]
        shared = True
    else:
        arrays = [np.asarray(s, dtype=np.float64).ravel() for s in samples]
        shared = False
    if any(np.isnan(a).any() for a in arrays):
        raise InputError("scores contain NaN", hint="drop missing scores first")
    return arrays, shared, system_names(systems, len(arrays))


def mean_intervals(
    samples: np.ndarray | Sequence[np.ndarray],
    *,
    systems: Sequence[str] | None = None,
    method: CIMethod = "auto",
    confidence: float = 0.95,
    n_resamples: int = 9999,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> MeanIntervals:
    """Mean and confidence interval of every system.

    Parameters
    ----------
    samples
        An ``(n_items, n_systems)`` matrix (systems scored on the same items), or one 1-D
        array per system. No NaN (average repeated runs per item first).
    systems
        Names; default ``"system 1"``, ...
    method
        See the module table. The binary methods need scores in {0, 1}.
    confidence
        Level of the two-sided intervals.
    n_resamples, rng, max_memory
        Bootstrap resamples, generator or seed, and the memory bound of one chunk.

    Returns
    -------
    MeanIntervals

    Raises
    ------
    InputError
        Unknown method, a binary method on non-binary scores, NaN scores.

    Warns
    -----
    DegenerateDataWarning
        Systems with fewer than 2 items (their interval is NaN, except the binary
        methods which are defined from 1 item).

    References
    ----------
    .. [1] Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
           inference. J. Amer. Statist. Assoc. 22(158), 209-212.
    .. [2] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
           illustrated in the case of the binomial. Biometrika 26(4), 404-413.
    .. [3] Efron, B. (1987). Better bootstrap confidence intervals. J. Amer. Statist. Assoc.
           82(397), 171-185.
    """
    if method not in get_args(CIMethod):
        raise InputError(
            f"method={method!r} is not valid", hint=f"use one of: {', '.join(get_args(CIMethod))}"
        )
    arrays, shared, names = _samples_iv(samples, systems, confidence, n_resamples)
    binary = all(bool(np.all((a == 0) | (a == 1))) for a in arrays)
    if method == "auto":
        method = "wilson" if binary else "bca"
    if method in ("wilson", "clopper-pearson") and not binary:
        raise InputError(
            f"method={method!r} needs binary (0/1) scores",
            hint="use 't', 'percentile' or 'bca' for continuous scores",
        )
    n = np.array([len(a) for a in arrays], dtype=np.int64)
    # continuous scores divided by a power of two (exact): no square under- or
    # overflows at any scale (1e-300 to 1e300), every number multiplied back below
    unit = 1.0
    if not binary and arrays:
        pooled = np.concatenate(arrays)
        unit = power_of_two_scale(pooled) if np.isfinite(pooled).all() else 1.0
        arrays = [a / unit for a in arrays]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.array([a.mean() if len(a) else np.nan for a in arrays])
    min_n = 1 if method in ("wilson", "clopper-pearson") else 2
    if (n < min_n).any():
        warnings.warn(
            f"systems with fewer than {count(min_n, 'item')} get a NaN interval: "
            f"{', '.join(names[i] for i in np.flatnonzero(n < min_n))}",
            DegenerateDataWarning,
            stacklevel=2,
        )
    used_resamples = None
    if method == "wilson":
        low, high = wilson_interval(mean * n, n, confidence=confidence)
    elif method == "clopper-pearson":
        low, high = clopper_pearson_interval(np.round(mean * n), n, confidence=confidence)
    elif method == "t":
        sd = np.array([a.std(ddof=1) if len(a) > 1 else np.nan for a in arrays])
        with np.errstate(invalid="ignore", divide="ignore"):
            low, high = t_interval(mean, sd / np.sqrt(n), n - 1, confidence=confidence)
        low, high = np.where(sd == 0, mean, low), np.where(sd == 0, mean, high)
    else:
        generator = np.random.default_rng(rng)
        low, high = _bootstrap(
            arrays, mean, shared, method, confidence, int(n_resamples), generator, max_memory
        )
        used_resamples = int(n_resamples)
    low = np.where(n < min_n, np.nan, low) * unit
    high = np.where(n < min_n, np.nan, high) * unit
    mean = mean * unit
    return MeanIntervals(
        names,
        mean,
        np.asarray(low, dtype=np.float64),
        np.asarray(high, dtype=np.float64),
        n,
        _NAMES[method],
        float(confidence),
        used_resamples,
    )


def _replicates(
    arrays: list[np.ndarray], shared: bool, R: int, rng: np.random.Generator, max_memory: int
) -> np.ndarray:
    """``(R, n_systems)`` bootstrap means; systems of equal size share the resampling
    counts when scored on the same items (``shared``), else each size group is resampled
    alone. Systems with fewer than 2 items get NaN columns."""
    reps = np.full((R, len(arrays)), np.nan)
    groups: dict[int, list[int]] = {}
    if shared:
        groups[len(arrays[0])] = list(range(len(arrays)))
    else:
        for j, a in enumerate(arrays):
            groups.setdefault(len(a), []).append(j)
    for size, members in groups.items():
        if size < 2:
            continue
        X = exact_product(np.column_stack([arrays[j] for j in members]), size)
        done = 0
        for rows in chunk_sizes(R, 16 * size + 8 * len(members), max_memory):
            reps[done : done + rows, members] = bootstrap_weighted_sums(rng, rows, X) / size
            done += rows
    return reps


def _bootstrap(
    arrays: list[np.ndarray],
    mean: np.ndarray,
    shared: bool,
    method: str,
    confidence: float,
    R: int,
    rng: np.random.Generator,
    max_memory: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile or BCa intervals from :func:`_replicates`."""
    reps = _replicates(arrays, shared, R, rng, max_memory)
    low = np.full(len(arrays), np.nan)
    high = np.full(len(arrays), np.nan)
    ok = np.array([len(a) >= 2 for a in arrays])
    if not ok.any():
        return low, high
    cols = np.flatnonzero(ok)
    if method == "percentile":
        alpha = (1 - confidence) / 2
        low[cols], high[cols] = np.percentile(
            reps[:, cols], [100 * alpha, 100 * (1 - alpha)], axis=0
        )
    else:
        accel = np.zeros(len(cols))
        for k, j in enumerate(cols):
            dev = arrays[j] - mean[j]
            with np.errstate(invalid="ignore", divide="ignore"):
                accel[k] = (dev**3).sum() / (6 * ((dev**2).sum()) ** 1.5)
        low[cols], high[cols] = bca_interval(
            reps[:, cols], mean[cols], np.nan_to_num(accel), confidence
        )
    return low, high


@dataclass(frozen=True)
class BootstrapMeans(TabularMixin):
    """The bootstrap distribution of each system's mean (Ackerman et al. 2025, §3, option 2).

    ``replicates`` is ``(n_resamples, n_systems)``; ``ci_low``/``ci_high`` are its
    percentile interval at ``confidence``; ``resampling`` says how the replicates were
    drawn: ``"bootstrap"`` (items resampled) or ``"normal"`` (the normal approximation
    of the resampled means, from 10,000 paired items).
    """

    systems: tuple[str, ...]
    mean: np.ndarray
    replicates: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    confidence: float
    n_resamples: int
    resampling: str = "bootstrap"

    def to_records(self) -> list[dict[str, Any]]:
        """Per system: the mean, the quartiles of the bootstrap means and the interval
        (the replicates themselves are not included)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a system without replicates: NaN
            q = np.nanquantile(self.replicates, [0.0, 0.25, 0.5, 0.75, 1.0], axis=0)
        return columns_to_records(
            {
                "system": self.systems,
                "mean": floats(self.mean),
                "min": floats(q[0]),
                "q1": floats(q[1]),
                "median": floats(q[2]),
                "q3": floats(q[3]),
                "max": floats(q[4]),
                "ci_low": floats(self.ci_low),
                "ci_high": floats(self.ci_high),
                "confidence": self.confidence,
                "n_resamples": self.n_resamples,
                "resampling": self.resampling,
            }
        )


def bootstrap_means(
    samples: np.ndarray | Sequence[np.ndarray],
    *,
    systems: Sequence[str] | None = None,
    confidence: float = 0.95,
    n_resamples: int = 9999,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    resampling: Literal["auto", "bootstrap", "normal"] = "auto",
) -> BootstrapMeans:
    """Bootstrap replicates of every system's mean, items resampled (shared by the
    systems of a 2-D matrix), for the "bootstrap means" boxplots of Ackerman et al. 2025, §3.

    Parameters are those of :func:`mean_intervals`, and ``resampling``: for a 2-D
    (paired) matrix of at least :data:`~reportgen.stats._resampling.NORMAL_RESAMPLING_ITEMS`
    items, ``"auto"`` draws the resampled means from their normal approximation
    :math:`N(\bar x, \\hat\\Sigma / n)`, as :func:`~reportgen.stats.ranking.rank_distributions`
    does (the multivariate central limit theorem for the bootstrap; cost independent of
    the items: 100,000 items × 9,999 resamples took 3 s to resample) where
    :func:`~reportgen.stats._resampling.normal_sums_adequate` holds (enough successes
    and failures of 0/1 scores, light enough tails, enough items where two systems
    differ), else resamples; ``"bootstrap"``
    always resamples items; ``"normal"`` always approximates (paired only). Systems
    with fewer than 2 items get NaN replicates.

    References
    ----------
    .. [1] Efron, B. (1979). Bootstrap methods: another look at the jackknife. Ann. Statist. 7(1),
           1-26.
    .. [2] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §3.
    """
    arrays, shared, names = _samples_iv(samples, systems, confidence, n_resamples)
    if resampling not in ("auto", "bootstrap", "normal"):
        raise InputError(
            f"resampling={resampling!r} is not valid", hint="use 'auto', 'bootstrap' or 'normal'"
        )
    size = len(arrays[0]) if arrays else 0
    normal = (
        shared
        and size >= 2
        and (
            resampling == "normal"
            or (
                resampling == "auto"
                and size >= NORMAL_RESAMPLING_ITEMS
                and normal_sums_adequate(np.column_stack(arrays), pairs=False)
            )
        )
    )
    generator = np.random.default_rng(rng)
    if normal:
        reps = normal_sums(np.column_stack(arrays), int(n_resamples), generator) / size
    else:
        reps = _replicates(arrays, shared, int(n_resamples), generator, max_memory)
    alpha = (1 - confidence) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns (n < 2)
        low, high = np.nanpercentile(reps, [100 * alpha, 100 * (1 - alpha)], axis=0)
    with np.errstate(invalid="ignore"):
        mean = np.array([a.mean() if len(a) else np.nan for a in arrays])
    return BootstrapMeans(
        names,
        mean,
        reps,
        low,
        high,
        float(confidence),
        int(n_resamples),
        "normal" if normal else "bootstrap",
    )

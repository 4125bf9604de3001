"""The bootstrap of repeated runs pooled per item: items and runs resampled together, the
interval of the pooled mean and of the per-run spread.

Private to :mod:`reportgen.stats.runs`, which re-exports the public names."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.plaintext import count
from reportgen.records import columns_to_records, floats, ints
from reportgen.stats._common import TabularMixin, system_names
from reportgen.stats._resampling import (
    DEFAULT_MAX_MEMORY,
    chunk_sizes,
    exact_product,
)
from reportgen.stats._runs_inputs import (
    Metric,
    _apply_metric,
    _check_metric,
    _confidence_iv,
    _float_array,
    _percentile_interval,
    _resampling_iv,
)


@dataclass(frozen=True)
class PooledRunsResult(TabularMixin):
    """Instance-level bootstrap over pooled runs, and per run (Fraile-Hernández & Peñas 2025).

    Attributes
    ----------
    systems
        One name per system.
    estimate
        The metric on the sums over every observed (item, run) row.
    bootstrap_mean, ci_low, ci_high, se
        Mean of the bootstrap distribution (the estimate of performance of
        Fraile-Hernández & Peñas 2025), its percentile interval and standard deviation.
    run_estimate, run_bootstrap_mean, run_ci_low, run_ci_high
        ``(n_systems, n_runs)``: the same for each run alone.
    n_items, n_pooled
        Items with data (the sample size l drawn per resample) and pooled rows (n·l
        without missing runs).
    """

    systems: tuple[str, ...]
    estimate: np.ndarray
    bootstrap_mean: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    se: np.ndarray
    run_estimate: np.ndarray
    run_bootstrap_mean: np.ndarray
    run_ci_low: np.ndarray
    run_ci_high: np.ndarray
    n_items: np.ndarray
    n_runs: int
    n_pooled: np.ndarray
    confidence: float
    n_resamples: int

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system for the pooled runs (NaN as None)."""
        return columns_to_records(
            {
                "system": self.systems,
                "estimate": floats(self.estimate),
                "bootstrap_mean": floats(self.bootstrap_mean),
                "ci_low": floats(self.ci_low),
                "ci_high": floats(self.ci_high),
                "se": floats(self.se),
                "n_items": ints(self.n_items),
                "n_runs": self.n_runs,
                "n_pooled": ints(self.n_pooled),
                "ci_method": "pooled-runs bootstrap percentile",
                "confidence": self.confidence,
                "n_resamples": self.n_resamples,
            }
        )

    def run_records(self) -> list[dict[str, Any]]:
        """One dict per system and run (run is the 0-based index along the runs axis)."""
        return columns_to_records(
            {  # system-major: every run of the first system, then the next
                "system": [s for s in self.systems for _ in range(self.n_runs)],
                "run": list(range(self.n_runs)) * len(self.systems),
                "estimate": floats(self.run_estimate),
                "bootstrap_mean": floats(self.run_bootstrap_mean),
                "ci_low": floats(self.run_ci_low),
                "ci_high": floats(self.run_ci_high),
                "confidence": self.confidence,
                "n_resamples": self.n_resamples,
            }
        )


def _multinomial_counts(
    rng: np.random.Generator, rows: int, n_categories: int, n_draws: int
) -> np.ndarray:
    """``rows × n_categories`` float64 counts of ``n_draws`` uniform draws with
    replacement from ``n_categories`` (each row a Multinomial(n_draws, 1/n_categories)).
    Peak memory: 8 bytes per draw and 16 per category, per row."""
    draws = rng.integers(0, n_categories, size=(rows, n_draws), dtype=np.int64)
    draws += (np.arange(rows, dtype=np.int64) * n_categories)[:, None]
    counts = np.bincount(draws.ravel(), minlength=rows * n_categories)
    del draws
    return counts.reshape(rows, n_categories).astype(np.float64)


def _resampled_sums(
    rng: np.random.Generator, pool: np.ndarray, n_draws: int, n_resamples: int, max_memory: int
) -> np.ndarray:
    """``(R, m)`` sums of ``n_draws`` rows drawn with replacement from ``pool`` (P × m)."""
    P, m = pool.shape
    out = np.empty((n_resamples, m))
    operand = exact_product(pool, n_draws)
    done = 0
    for size in chunk_sizes(n_resamples, 8 * n_draws + 16 * P + 8 * m, max_memory):
        out[done : done + size] = operand.weighted_sums(_multinomial_counts(rng, size, P, n_draws))
        done += size
    return out


def _stats_iv(stats_: Any) -> np.ndarray:
    """``(n_items, n_runs, k)`` or ``(n_items, n_systems, n_runs, k)`` -> 4-D
    ``(n_items, n_systems, n_runs, k)``."""
    X = _float_array(stats_, "stats")
    if X.ndim == 3:
        X = X[:, None, :, :]
    elif X.ndim != 4:
        raise InputError(
            f"stats must be (n_items, n_runs, k) or (n_items, n_systems, "
            f"n_runs, k), got shape {X.shape}",
            hint="for a plain mean use k = 2 statistics (score, 1): "
            "np.stack([scores, np.ones_like(scores)], axis=-1)",
        )
    if X.shape[2] < 1 or X.shape[3] < 1:
        raise InputError(f"stats has no runs or no statistics (shape {X.shape})")
    return X


def _pooled_distribution(
    X: np.ndarray, metric: Metric, R: int, rng: np.random.Generator, max_memory: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Replicates ``(R, n_systems)`` of Algorithm 1, the observed metric on all rows,
    and the draws per resample (items with data) for stats ``X`` (4-D)."""
    n_items, n_sys, n_runs, k = X.shape
    row_ok = ~np.isnan(X).any(axis=3)  # (items, systems, runs)
    totals = np.where(row_ok[..., None], X, 0.0).sum(axis=(0, 2))  # (systems, k)
    estimate = _apply_metric(metric, totals)
    l = (row_ok.any(axis=2)).sum(axis=0)  # items with data per system
    reps = np.full((R, n_sys), np.nan)
    if row_ok.all() and n_items:
        pool = X.transpose(0, 2, 1, 3).reshape(n_items * n_runs, n_sys * k)
        sums = _resampled_sums(rng, pool, n_items, R, max_memory).reshape(R, n_sys, k)
        reps = _apply_metric(metric, sums)
    else:
        for j in range(n_sys):
            if l[j] < 1:
                continue
            pool = X[:, j][row_ok[:, j]]  # (P_j, k) observed rows
            sums = _resampled_sums(rng, pool, int(l[j]), R, max_memory)
            reps[:, j] = _apply_metric(metric, sums[:, None, :])[:, 0]
    return reps, estimate, l


def _per_run_distribution(
    X: np.ndarray,
    metric: Metric,
    R: int,
    rng: np.random.Generator,
    max_memory: int,
    confidence: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Estimate, bootstrap mean and percentile limits ``(n_systems, n_runs)`` of each run
    bootstrapped alone (items resampled)."""
    n_items, n_sys, n_runs, k = X.shape
    row_ok = ~np.isnan(X).any(axis=3)
    sums_all = np.where(row_ok[..., None], X, 0.0).sum(axis=0)  # (systems, runs, k)
    est = _apply_metric(metric, sums_all)
    boot_mean = np.full((n_sys, n_runs), np.nan)
    low = np.full((n_sys, n_runs), np.nan)
    high = np.full((n_sys, n_runs), np.nan)
    if row_ok.all() and n_items:
        # one bootstrap of the items serves every run and system
        pool = X.reshape(n_items, n_sys * n_runs * k)
        sums = _resampled_sums(rng, pool, n_items, R, max_memory)
        reps = _apply_metric(metric, sums.reshape(R, n_sys, n_runs, k))
        boot_mean = _nanmean0(reps)
        low, high = _percentile_interval(reps, confidence)
    else:
        for j in range(n_sys):
            for r in range(n_runs):
                ok = row_ok[:, j, r]
                if not ok.any():
                    continue
                rows = X[ok, j, r, :]
                sums = _resampled_sums(rng, rows, int(ok.sum()), R, max_memory)
                reps = _apply_metric(metric, sums)
                boot_mean[j, r] = _nanmean0(reps[:, None])[0]
                lo, hi = _percentile_interval(reps[:, None], confidence)
                low[j, r], high[j, r] = lo[0], hi[0]
    return est, boot_mean, low, high


def _nanmean0(reps: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(reps, axis=0)


def _warn_nan_replicates(reps: np.ndarray) -> None:
    bad = np.isnan(reps).any(axis=0)
    if bad.any():
        warnings.warn(
            f"the metric is undefined (NaN) on some resamples of "
            f"{count(int(bad.sum()), 'system')}: those resamples are left out of the "
            "interval",
            DegenerateDataWarning,
            stacklevel=3,
        )


def pooled_runs_bootstrap(
    stats: np.ndarray,
    *,
    metric: Metric | None = None,
    n_resamples: int = 9999,
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    systems: Sequence[str] | None = None,
) -> PooledRunsResult:
    """Instance-level bootstrap over the pooled runs (Algorithm 1 of Fraile-Hernández &
    Peñas 2025).

    Parameters
    ----------
    stats
        Per-(item, run) sufficient statistics, ``(n_items, n_runs, k)`` for one system or
        ``(n_items, n_systems, n_runs, k)``. For a plain mean k = 2: ``(score, 1)``; for
        F1: ``(tp, fp, fn)``. A row with any NaN is a missing run.
    metric
        Function from summed statistics ``(..., k)`` to the metric ``(...)``, vectorised
        over the leading axes; default ``sums[..., 0] / sums[..., 1]``.
    n_resamples, confidence, rng, max_memory
        Bootstrap resamples B, interval level, random generator or seed, and the bound on
        the working memory of one chunk of resamples (bytes).
    systems
        Names of the systems.

    Returns
    -------
    PooledRunsResult

    Raises
    ------
    InputError
        Bad shapes or options, or a metric that does not reduce the last axis.

    Warns
    -----
    DegenerateDataWarning
        The metric is NaN on some resamples (e.g. F1 with no positives drawn).

    Notes
    -----
    Algorithm 1 of Fraile-Hernández & Peñas (2025, *Information* 16:817): concatenate the
    predictions of all n runs into one set of n·l (item, run) rows; for b = 1..B draw l
    rows with replacement, compute the metric :math:`F_b`; report
    :math:`\\bar F = B^{-1}\\sum_b F_b` and the percentile interval
    :math:`[F_{(\\alpha/2)}, F_{(1-\\alpha/2)}]`. Each resample is a count vector
    :math:`W \\sim \\mathrm{Mult}(l, 1/(nl))` over the pooled rows, so the resampled
    sums are :math:`W^\\top T` for the rows' statistics T and the metric is computed on
    sums: a plain mean and corpus-level metrics share the code. Per-run intervals
    (§3.2–3.4 of the paper) bootstrap each run's l rows alone.

    Interpretation: each resample has the size of *one* run, and rows of the same item
    from different runs are drawn independently, so the interval describes the score a
    single run of l items would get, item and run noise together; it does not narrow as
    runs are added (Fraile-Hernández & Peñas 2025, the table of CI against runs). For the
    uncertainty of the mean over all runs use :func:`cluster_bootstrap_interval`.

    References
    ----------
    .. [1] Fraile-Hernández, J. M. & Peñas, A. (2025). On measuring large language models
           performance with inferential statistics. Information 16(9), 817.
           https://doi.org/10.3390/info16090817 (§3.5, Algorithm 1).
    .. [2] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> scores = np.array([[1, 1], [0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    >>> r = pooled_runs_bootstrap(np.stack([scores, np.ones_like(scores)], -1),
    ...                           n_resamples=2000, rng=0)
    >>> float(r.estimate[0]), r.run_estimate[0].tolist()
    (0.6, [0.6, 0.6])
    """
    X = _stats_iv(stats)
    fn = _check_metric(metric)
    conf = _confidence_iv(confidence)
    R, max_memory, gen = _resampling_iv(n_resamples, max_memory, rng)
    names = system_names(systems, X.shape[1])
    reps, estimate, l = _pooled_distribution(X, fn, R, gen, max_memory)
    _warn_nan_replicates(reps)
    low, high = _percentile_interval(reps, conf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(reps, axis=0, ddof=1)
    run_est, run_mean, run_low, run_high = _per_run_distribution(X, fn, R, gen, max_memory, conf)
    n_pooled = (~np.isnan(X).any(axis=3)).sum(axis=(0, 2))
    return PooledRunsResult(
        names,
        estimate,
        _nanmean0(reps),
        low,
        high,
        se,
        run_est,
        run_mean,
        run_low,
        run_high,
        l.astype(np.int64),
        X.shape[2],
        n_pooled.astype(np.int64),
        conf,
        R,
    )

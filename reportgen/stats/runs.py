"""Repeated runs of non-deterministic systems, and clustered observations.

A non-deterministic system scored several times on each item gives a score array
``(n_items, n_runs)`` for one system or ``(n_items, n_systems, n_runs)`` for several
(:attr:`reportgen.data.PairedSamples.scores`); NaN marks a run a system did not make on an
item. The runs of one item are not independent observations: they share the item's
difficulty. This module answers the questions such data raise:

- :func:`clustered_mean_interval`: the mean of clustered observations with the analytic
  cluster-robust (sandwich) standard error, exactly as statsmodels computes it, beside the
  naive i.i.d. one.
- :func:`cluster_bootstrap_interval`: the bootstrap that resamples items and keeps each
  item's runs together (percentile or BCa), vectorised over systems.
- :func:`variance_components`, :func:`variance_components_paired`,
  :func:`variance_components_from_counts`: how much of the uncertainty of a mean comes
  from the choice of items (data noise) and how much from the runs (prediction noise).
- :func:`pooled_runs_bootstrap`: Algorithm 1 of Fraile-Hernández & Peñas (2025)
  (instance-level bootstrap over the pooled runs) on per-(item, run) sufficient
  statistics, so corpus-level metrics such as F1 plug in.
- :func:`runs_differ_test`: do the runs of a system differ from each other (Cochran's Q
  for binary scores, Friedman for continuous)?
- :func:`ci_width_by_runs`: the table of Fraile-Hernández & Peñas (2025): the interval
  against the number of runs.

Every resampling is a matrix product of bootstrap counts with per-item (or per-row) sums,
chunked to stay within ``max_memory`` bytes; there is no Python loop over resamples.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
from scipy import special, stats

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats._common import TabularMixin, system_names
from reportgen.stats._common import finite_or_none as _num
from reportgen.stats._resampling import (
    DEFAULT_MAX_MEMORY,
    bca_interval,
    bootstrap_counts,
    chunk_sizes,
    exact_product,
)

__all__ = [
    "BootstrapMethod",
    "ClusterBootstrapResult",
    "ClusteredMeanResult",
    "Distribution",
    "PooledRunsResult",
    "RunsDifferResult",
    "RunsWidthResult",
    "VarianceComponentsResult",
    "WidthMethod",
    "ci_width_by_runs",
    "cluster_bootstrap_interval",
    "clustered_mean_interval",
    "pooled_runs_bootstrap",
    "runs_differ_test",
    "variance_components",
    "variance_components_from_counts",
    "variance_components_paired",
]

Distribution = Literal["t", "normal"]
BootstrapMethod = Literal["percentile", "bca"]
WidthMethod = Literal["pooled", "cluster"]
Modality = Literal["binary", "continuous"]
Metric = Callable[[np.ndarray], np.ndarray]


# ============================================================================ inputs


def _confidence_iv(confidence: Any) -> float:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float, np.floating))
        or not 0 < confidence < 1
    ):
        raise InputError(
            f"confidence={confidence!r} must be between 0 and 1 (exclusive)",
            hint="e.g. confidence=0.95 for a 95% interval",
        )
    return float(confidence)


def _choice_iv(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise InputError(
            f"{name}={value!r} is not valid", hint=f"use one of: {', '.join(map(repr, choices))}"
        )
    return str(value)


def _resampling_iv(
    n_resamples: Any, max_memory: Any, rng: Any
) -> tuple[int, int, np.random.Generator]:
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, (int, np.integer))
        or n_resamples < 1
    ):
        raise InputError(
            f"n_resamples={n_resamples!r} must be a positive integer",
            hint="9999 is a good default; at least 4000 bootstrap resamples are "
            "advised (clawRxiv 2604.01973)",
        )
    if (
        isinstance(max_memory, bool)
        or not isinstance(max_memory, (int, np.integer))
        or max_memory < 2**20
    ):
        raise InputError(
            f"max_memory={max_memory!r} must be an integer of at least 1 MiB (1048576 bytes)"
        )
    try:
        generator = np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"rng={rng!r} is not a numpy Generator or a seed",
            hint="pass numpy.random.default_rng(seed), an int seed or None",
        ) from exc
    return int(n_resamples), int(max_memory), generator


def _float_array(values: Any, name: str) -> np.ndarray:
    try:
        X = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"{name} must be numeric", hint="pass a numpy array of floats (NaN for a missing run)"
        ) from exc
    if np.isinf(X).any():
        raise InputError(
            f"{name} contains infinite values",
            hint="scores must be finite; use NaN for a missing run",
        )
    return X


def _scores_iv(scores: Any, name: str = "scores") -> np.ndarray:
    """``(n_items, n_runs)`` or ``(n_items, n_systems, n_runs)`` -> 3-D
    ``(n_items, n_systems, n_runs)``."""
    X = _float_array(scores, name)
    if X.ndim == 2:
        X = X[:, None, :]
    elif X.ndim != 3:
        raise InputError(
            f"{name} must be (n_items, n_runs) or (n_items, n_systems, n_runs), got shape "
            f"{X.shape}",
            hint="PairedSamples.scores of a dataset with a 'run' column has "
            "this shape; for one run per item add a runs axis of 1",
        )
    if X.shape[2] < 1:
        raise InputError(f"{name} has no runs (shape {X.shape})")
    return X


def _check_metric(metric: Metric | None) -> Metric:
    if metric is None:
        return _ratio_metric
    if not callable(metric):
        raise InputError(
            f"metric={metric!r} is not callable",
            hint="pass a function from summed statistics (..., k) to the "
            "metric value (...), e.g. lambda s: s[..., 0] / s[..., 1]",
        )
    return metric


def _ratio_metric(sums: np.ndarray) -> np.ndarray:
    """The default metric: ``sums[..., 0] / sums[..., 1]`` (a mean from (score, 1))."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[..., 0] / sums[..., 1]


def _apply_metric(metric: Metric, sums: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.asarray(metric(sums), dtype=np.float64)
    if out.shape != sums.shape[:-1]:
        raise InputError(
            f"metric returned shape {out.shape} for sums of shape {sums.shape}",
            hint="the metric must reduce only the last axis: (..., k) -> (...), "
            "e.g. lambda s: 2 * s[..., 0] / (2 * s[..., 0] + s[..., 1] + "
            "s[..., 2]) for F1 from (tp, fp, fn)",
        )
    return out


# ============================================================ clustered mean (analytic)


@dataclass(frozen=True)
class ClusteredMeanResult(TabularMixin):
    """The mean of clustered observations, per system, with its cluster-robust interval.

    Attributes
    ----------
    systems
        One name per column of ``values``.
    mean
        Mean of the observed values (NaN excluded).
    se, ci_low, ci_high, df
        Cluster-robust standard error (statsmodels' small-sample correction
        :math:`G/(G-1)`), the interval at ``confidence``, and the degrees of freedom of
        its quantile (:math:`G - 1` with ``distribution="t"``, ``inf`` with ``"normal"``).
    se_naive, naive_low, naive_high
        The i.i.d. standard error :math:`s/\\sqrt N` (ddof 1) and its interval (t with
        :math:`N - 1` df, or normal): what ignoring the clusters would report.
    n_observations, n_clusters
        N and G per system (clusters with at least one observed value).
    """

    systems: tuple[str, ...]
    mean: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    df: np.ndarray
    se_naive: np.ndarray
    naive_low: np.ndarray
    naive_high: np.ndarray
    n_observations: np.ndarray
    n_clusters: np.ndarray
    confidence: float
    distribution: Distribution

    def design_effect(self) -> np.ndarray:
        """``(se / se_naive)²``: how many times the clustering inflates the variance
        (Kish's design effect; about :math:`1 + (m - 1)\\rho` for clusters of size m
        with intra-cluster correlation ρ)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.se / self.se_naive) ** 2

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (NaN as None)."""
        deff = self.design_effect()
        return [
            {
                "system": s,
                "mean": _num(self.mean[j]),
                "se": _num(self.se[j]),
                "ci_low": _num(self.ci_low[j]),
                "ci_high": _num(self.ci_high[j]),
                "df": _num(self.df[j]),
                "se_naive": _num(self.se_naive[j]),
                "naive_low": _num(self.naive_low[j]),
                "naive_high": _num(self.naive_high[j]),
                "design_effect": _num(deff[j]),
                "n_observations": int(self.n_observations[j]),
                "n_clusters": int(self.n_clusters[j]),
                "confidence": self.confidence,
                "distribution": self.distribution,
                "ci_method": "cluster-robust (CR1) " + self.distribution,
            }
            for j, s in enumerate(self.systems)
        ]


def _cluster_codes(clusters: Any, n_obs: int) -> np.ndarray:
    c = np.asarray(clusters)
    if c.ndim != 1 or len(c) != n_obs:
        raise InputError(
            f"clusters must be 1-D with one label per observation ({n_obs}), got shape {c.shape}",
            hint="for runs grouped by item use np.repeat(np.arange(n_items), "
            "n_runs) with values = scores.reshape(n_items * n_runs)",
        )
    if c.dtype.kind == "f" and np.isnan(c).any():
        raise InputError("clusters contain NaN", hint="every observation needs a cluster")
    if c.dtype.kind == "O" and any(x is None for x in c):
        raise InputError("clusters contain None", hint="every observation needs a cluster")
    try:
        _, inverse = np.unique(c, return_inverse=True)
    except TypeError as exc:
        raise InputError(
            "clusters mix label types that cannot be compared",
            hint="use labels of one type (all strings or all integers)",
        ) from exc
    return inverse.reshape(-1)


def clustered_mean_interval(
    values: np.ndarray,
    clusters: np.ndarray,
    *,
    confidence: float = 0.95,
    distribution: Distribution = "t",
    systems: Sequence[str] | None = None,
) -> ClusteredMeanResult:
    """Mean of clustered observations with the analytic cluster-robust standard error.

    Parameters
    ----------
    values
        ``(n_obs,)`` or ``(n_obs, n_systems)``; NaN marks a missing observation (dropped
        for that system only).
    clusters
        ``(n_obs,)`` cluster labels (item ids for runs grouped by item; passage ids for
        items grouped by passage). Any comparable labels.
    confidence
        Level of the two-sided intervals.
    distribution
        ``"t"`` (default): quantiles of Student's t with :math:`G - 1` degrees of freedom
        (statsmodels ``use_t=True``); ``"normal"``: standard normal quantiles
        (statsmodels' default ``use_t=False``, and Miller 2024's 1.96).
    systems
        Names of the columns.

    Returns
    -------
    ClusteredMeanResult

    Raises
    ------
    InputError
        Shapes that do not match, infinite values, NaN cluster labels, bad options.

    Warns
    -----
    DegenerateDataWarning
        Fewer than 2 clusters (the standard error is NaN), or zero variance (the interval
        is the single point ``mean``).

    Notes
    -----
    With residuals :math:`e_i = y_i - \\bar y` and cluster sums :math:`E_g = \\sum_{i \\in
    g} e_i`, the intercept-only OLS sandwich is

    .. math:: \\widehat{\\mathrm{Var}}(\\bar y) = \\frac{G}{G-1}\\,\\frac{N-1}{N-K}\\,
              \\frac{\\sum_g E_g^2}{N^2}, \\qquad K = 1,

    the CR1 estimator of ``statsmodels.OLS(y, ones).fit(cov_type="cluster",
    cov_kwds={"groups": clusters})`` (whose defaults ``use_correction=True`` and
    ``df_correction=True`` give the :math:`G/(G-1)` factor and :math:`G - 1` inference
    degrees of freedom). We default to the t quantile with :math:`G - 1` df, as
    Cameron & Miller (2015, *J. Human Resources* 50:317, §VI) recommend for few clusters;
    with many clusters the two choices agree. Without the correction, the same quantity
    is Miller (2024, "Adding error bars to evals", arXiv:2411.00640, clustered standard
    errors): :math:`SE^2_{CLT} + n^{-2}\\sum_c\\sum_i\\sum_{j \\ne i} e_{ic}e_{jc}`.

    Runs grouped by item: for ``scores`` of shape ``(n_items, n_systems, n_runs)`` pass
    ``values = scores.transpose(0, 2, 1).reshape(-1, n_systems)`` and
    ``clusters = np.repeat(np.arange(n_items), n_runs)``.

    References
    ----------
    .. [1] Liang, K.-Y. & Zeger, S. L. (1986). Longitudinal data analysis using generalized linear
           models. Biometrika 73(1), 13-22 (the cluster-robust variance).
    .. [2] Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
           evaluations. arXiv:2411.00640.

    Examples
    --------
    >>> y = np.array([1., 1., 1., 0., 0., 0., 1., 0.])
    >>> r = clustered_mean_interval(y, [0, 0, 1, 1, 2, 2, 3, 3])
    >>> round(float(r.mean[0]), 3), round(float(r.se[0]), 4), round(float(r.se_naive[0]), 4)
    (0.5, 0.2041, 0.189)
    >>> import statsmodels.api as sm
    >>> fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster",
    ...                                      cov_kwds={"groups": [0, 0, 1, 1, 2, 2, 3, 3]})
    >>> round(float(fit.bse[0]), 4), round(float(np.sqrt(y.var(ddof=1) / 8)), 4)
    (0.2041, 0.189)
    """
    conf = _confidence_iv(confidence)
    dist = _choice_iv("distribution", distribution, get_args(Distribution))
    Y = _float_array(values, "values")
    if Y.ndim == 1:
        Y = Y[:, None]
    elif Y.ndim != 2:
        raise InputError(f"values must be (n_obs,) or (n_obs, n_systems), got shape {Y.shape}")
    codes = _cluster_codes(clusters, Y.shape[0])
    names = system_names(systems, Y.shape[1])

    mask = ~np.isnan(Y)
    N = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(mask, Y, 0.0).sum(axis=0) / N
    resid = np.where(mask, Y - mean, 0.0)
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    if len(codes):
        starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
        cluster_sums = np.add.reduceat(resid[order], starts, axis=0)
        present = np.add.reduceat(mask[order].astype(np.int64), starts, axis=0) > 0
        G = present.sum(axis=0)
    else:
        cluster_sums = np.zeros((0, Y.shape[1]))
        G = np.zeros(Y.shape[1], dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(
            G >= 2, G / (G - 1) * (cluster_sums**2).sum(axis=0) / N.astype(np.float64) ** 2, np.nan
        )
        var_naive = np.where(N >= 2, (resid**2).sum(axis=0) / (N - 1) / N, np.nan)
    se, se_naive = np.sqrt(var), np.sqrt(var_naive)
    if dist == "t":
        df = np.where(G >= 2, G - 1, np.nan).astype(np.float64)
        df_naive = np.where(N >= 2, N - 1, np.nan).astype(np.float64)
        q = stats.t.ppf(0.5 + conf / 2, df)
        q_naive = stats.t.ppf(0.5 + conf / 2, df_naive)
    else:
        df = np.full(len(names), np.inf)
        q = q_naive = float(special.ndtri(0.5 + conf / 2))
    if (G < 2).any():
        warnings.warn(
            f"{int((G < 2).sum())} system(s) have fewer than 2 clusters: the "
            "cluster-robust standard error is NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    if ((var == 0) & (G >= 2)).any():
        warnings.warn(
            "zero variance: the interval is the single point of the mean",
            DegenerateDataWarning,
            stacklevel=2,
        )
    return ClusteredMeanResult(
        names,
        mean,
        se,
        mean - q * se,
        mean + q * se,
        df,
        se_naive,
        mean - q_naive * se_naive,
        mean + q_naive * se_naive,
        N.astype(np.int64),
        G.astype(np.int64),
        conf,
        dist,  # type: ignore[arg-type]
    )


# ============================================================ cluster bootstrap


@dataclass(frozen=True)
class ClusterBootstrapResult(TabularMixin):
    """Cluster (item) bootstrap interval of each system's mean over its observed runs.

    Attributes
    ----------
    systems
        One name per system.
    mean
        Mean of every observed (item, run) score: :math:`\\sum_i S_i / \\sum_i C_i`.
    ci_low, ci_high
        The interval at ``confidence`` (``method``: percentile or BCa).
    se
        Standard deviation of the bootstrap replicates.
    n_items, n_observations
        Items with at least one observed run, and observed (item, run) scores.
    """

    systems: tuple[str, ...]
    mean: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    se: np.ndarray
    n_items: np.ndarray
    n_observations: np.ndarray
    method: BootstrapMethod
    confidence: float
    n_resamples: int

    @property
    def ci_method(self) -> str:
        return "cluster bootstrap " + ("BCa" if self.method == "bca" else "percentile")

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (NaN as None)."""
        return [
            {
                "system": s,
                "mean": _num(self.mean[j]),
                "ci_low": _num(self.ci_low[j]),
                "ci_high": _num(self.ci_high[j]),
                "se": _num(self.se[j]),
                "n_items": int(self.n_items[j]),
                "n_observations": int(self.n_observations[j]),
                "ci_method": self.ci_method,
                "confidence": self.confidence,
                "n_resamples": self.n_resamples,
            }
            for j, s in enumerate(self.systems)
        ]


def _item_sums(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-item sums and counts of observed runs: two ``(n_items, n_systems)`` arrays."""
    mask = ~np.isnan(X)
    return np.where(mask, X, 0.0).sum(axis=2), mask.sum(axis=2).astype(np.float64)


def _cluster_replicates(
    S: np.ndarray, C: np.ndarray, n_resamples: int, rng: np.random.Generator, max_memory: int
) -> np.ndarray:
    """``(R, n_systems)`` replicates of ``ΣS/ΣC`` with items drawn with replacement:
    bootstrap counts ``W`` times the item sums and the item counts."""
    n, n_sys = S.shape
    constant = bool(np.all(C[0, 0] == C)) if C.size else True
    data = S if constant else np.concatenate([S, C], axis=1)
    reps = np.empty((n_resamples, n_sys))
    operand = exact_product(data, n)
    done = 0
    for size in chunk_sizes(n_resamples, 16 * n + 8 * 2 * data.shape[1], max_memory):
        W = bootstrap_counts(rng, size, n)
        prod = operand.weighted_sums(W)
        del W
        with np.errstate(invalid="ignore", divide="ignore"):
            if constant:
                reps[done : done + size] = prod / (n * C[0, 0])
            else:
                reps[done : done + size] = prod[:, :n_sys] / prod[:, n_sys:]
        done += size
    return reps


def _percentile_interval(reps: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1 - confidence) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN
        low, high = np.nanpercentile(reps, [100 * alpha, 100 * (1 - alpha)], axis=0)
    return low, high


def _ratio_acceleration(S: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Jackknife acceleration of ``ΣS/ΣC`` over the items a system has data on
    (Efron & Tibshirani 1993, eq. 14.15)."""
    valid = C > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        loo = (S.sum(axis=0) - S) / (C.sum(axis=0) - C)
        loo = np.where(valid, loo, np.nan)
        dev = np.nanmean(loo, axis=0) - loo
        dev = np.where(valid, dev, 0.0)
        a = (dev**3).sum(axis=0) / (6 * ((dev**2).sum(axis=0)) ** 1.5)
    return np.nan_to_num(a)


def cluster_bootstrap_interval(
    scores: np.ndarray,
    *,
    method: BootstrapMethod = "percentile",
    n_resamples: int = 9999,
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    systems: Sequence[str] | None = None,
) -> ClusterBootstrapResult:
    """Bootstrap interval of the mean that resamples items and keeps their runs together.

    Parameters
    ----------
    scores
        ``(n_items, n_runs)`` for one system or ``(n_items, n_systems, n_runs)``; NaN
        marks a missing run.
    method
        ``"percentile"`` or ``"bca"`` (bias-corrected and accelerated, acceleration by
        the jackknife over items).
    n_resamples, confidence, rng, max_memory
        Bootstrap resamples, interval level, random generator or seed, and the bound on
        the working memory of one chunk of resamples (bytes).
    systems
        Names of the systems.

    Returns
    -------
    ClusterBootstrapResult

    Warns
    -----
    DegenerateDataWarning
        A system with fewer than 2 items with data (NaN interval) or with identical
        scores everywhere (the interval is the point).

    Notes
    -----
    With per-item sums :math:`S_i = \\sum_r x_{ir}` and counts :math:`C_i` of observed runs,
    the statistic is the ratio :math:`\\hat\\theta = \\sum_i S_i / \\sum_i C_i` (the mean
    of all observed scores; with no missing run, the mean of the item means). A
    resample draws n items with replacement, :math:`W \\sim \\mathrm{Mult}(n, 1/n)`, and
    :math:`\\hat\\theta^* = W^\\top S / W^\\top C`: one matrix product serves every
    system. All systems share the resampled items (a paired bootstrap); an item a
    system has no run on is drawn like the others and adds nothing to its sums (a
    cluster of size 0), and its BCa jackknife leaves out only items with runs. This is the
    cluster bootstrap of Davison & Hinkley (1997, §3.8) and evalci's ``cluster_ci``
    (Chandrabhas (evalci), §3.4); it accounts for the correlation of an item's runs that an i.i.d.
    bootstrap over all observations ignores (Miller 2024). BCa: Efron & Tibshirani
    (1993, §14.3) with :math:`\\hat a = \\sum_i d_i^3 / (6(\\sum_i d_i^2)^{3/2})`,
    :math:`d_i = \\bar\\theta_{(\\cdot)} - \\hat\\theta_{(i)}`, the leave-one-item-out
    estimates.

    References
    ----------
    .. [1] Field, C. A. & Welsh, A. H. (2007). Bootstrapping clustered data. J. R. Statist. Soc. B
           69(3), 369-390.
    .. [2] Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
           evaluations. arXiv:2411.00640.
    .. [3] Chandrabhas, S. K. evalci: a Python library for statistically rigorous comparison of
           language model evaluations, §3.4. https://doi.org/10.5281/zenodo.21201815

    Examples
    --------
    >>> scores = np.array([[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1]])
    >>> r = cluster_bootstrap_interval(scores, n_resamples=2000, rng=0)
    >>> round(float(r.mean[0]), 3), bool(r.ci_low[0] < 0.533 < r.ci_high[0])
    (0.533, True)
    """
    X = _scores_iv(scores)
    meth = _choice_iv("method", method, get_args(BootstrapMethod))
    conf = _confidence_iv(confidence)
    R, max_memory, gen = _resampling_iv(n_resamples, max_memory, rng)
    names = system_names(systems, X.shape[1])
    S, C = _item_sums(X)
    keep = C.sum(axis=1) > 0  # items with no run of any system carry no data
    S, C = S[keep], C[keep]
    n_items = (C > 0).sum(axis=0)
    n_obs = C.sum(axis=0).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = S.sum(axis=0) / C.sum(axis=0)
    small = n_items < 2
    if small.any():
        warnings.warn(
            f"{int(small.sum())} system(s) have fewer than 2 items with scores: "
            "their interval is NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    if S.shape[0] == 0:
        nan = np.full(len(names), np.nan)
        return ClusterBootstrapResult(
            names,
            mean,
            nan,
            nan,
            nan,
            n_items.astype(np.int64),
            n_obs,
            meth,  # type: ignore[arg-type]
            conf,
            R,
        )
    _warn_constant(X, small)
    reps = _cluster_replicates(S, C, R, gen, max_memory)
    if meth == "percentile":
        low, high = _percentile_interval(reps, conf)
    else:
        low, high = bca_interval(reps, mean, _ratio_acceleration(S, C), conf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # systems without replicates
        se = np.nanstd(reps, axis=0, ddof=1) if R > 1 else np.full(len(names), np.nan)
    nan = np.full(len(names), np.nan)
    return ClusterBootstrapResult(
        names,
        mean,
        np.where(small, nan, low),
        np.where(small, nan, high),
        np.where(small, nan, se),
        n_items.astype(np.int64),
        n_obs,
        meth,  # type: ignore[arg-type]
        conf,
        R,
    )


def _warn_constant(X: np.ndarray, skip: np.ndarray) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        span = np.nanmax(X, axis=(0, 2)) - np.nanmin(X, axis=(0, 2))
    constant = (span == 0) & ~skip
    if constant.any():
        warnings.warn(
            f"{int(constant.sum())} system(s) score the same value everywhere: "
            "the interval is that single point",
            DegenerateDataWarning,
            stacklevel=3,
        )


# ============================================================ variance components


@dataclass(frozen=True)
class VarianceComponentsResult(TabularMixin):
    """Data noise and prediction noise of a mean score (or of a paired difference).

    Attributes
    ----------
    systems
        One name per system (per pair for :func:`variance_components_paired`).
    paired
        Whether ``mean`` is a paired difference of two systems.
    mean
        Mean of the item means (paired: mean of the item differences).
    n
        Items used (with at least one run; paired: of both systems).
    k
        Runs per item: the harmonic mean over items, :math:`1/\\overline{(1/k_i)}`, which
        is what enters the variance (the ``count`` of
        :func:`variance_components_from_counts`; paired: the effective k with which
        ``var_prediction / k`` gives the prediction part of ``se_total²·n``).
    var_data, var_prediction
        Per-observation components: :math:`\\hat\\sigma^2_x`, the variance across items of
        the expected item score (eval-arena's var(E(A))), and :math:`\\hat\\sigma^2_\\epsilon`,
        the expected variance of one run around its item's expectation (E(var(A))).
        Unbiased; ``var_data`` can be slightly negative when the items barely differ.
    se_total, se_data, se_prediction
        Standard errors of ``mean`` as measured (n items, k runs each) and its two parts:
        :math:`se_{total}^2 = se_{data}^2 + se_{prediction}^2` with
        :math:`se_{data}^2 = \\hat\\sigma^2_x / n` (0 when ``var_data`` < 0) and
        :math:`se_{prediction}^2 = \\hat\\sigma^2_\\epsilon / (k n)`.
    source
        ``"runs"`` (scores per run) or ``"counts"`` (shares of ``count`` samples).
    """

    systems: tuple[str, ...]
    paired: bool
    mean: np.ndarray
    n: np.ndarray
    k: np.ndarray
    var_data: np.ndarray
    var_prediction: np.ndarray
    se_total: np.ndarray
    se_data: np.ndarray
    se_prediction: np.ndarray
    source: Literal["runs", "counts"]

    def se_with_runs(self, runs: float | np.ndarray) -> np.ndarray:
        """Projected standard error of the mean with ``runs`` runs per item on the same
        number of items: :math:`\\sqrt{(\\hat\\sigma^2_x + \\hat\\sigma^2_\\epsilon / k')/n}`
        (Miller 2024: more runs shrink only the prediction part)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sqrt(
                (
                    np.maximum(self.var_data, 0)
                    + self.var_prediction / np.asarray(runs, dtype=np.float64)
                )
                / self.n
            )

    def prediction_share(self) -> np.ndarray:
        """``se_prediction² / se_total²``: the share of the variance due to the runs."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.se_prediction**2 / self.se_total**2

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (pair), NaN as None."""
        share = self.prediction_share()
        return [
            {
                "system": s,
                "paired": self.paired,
                "mean": _num(self.mean[j]),
                "n": int(self.n[j]),
                "k": _num(self.k[j]),
                "var_data": _num(self.var_data[j]),
                "var_prediction": _num(self.var_prediction[j]),
                "se_total": _num(self.se_total[j]),
                "se_data": _num(self.se_data[j]),
                "se_prediction": _num(self.se_prediction[j]),
                "prediction_share": _num(share[j]),
                "source": self.source,
            }
            for j, s in enumerate(self.systems)
        ]


def _within(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Item means, unbiased within-item variances (NaN where fewer than 2 runs) and run
    counts, each ``(n_items, n_systems)``."""
    mask = ~np.isnan(X)
    k = mask.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(mask, X, 0.0).sum(axis=2) / k
        dev = np.where(mask, X - means[:, :, None], 0.0)
        within = np.where(k >= 2, (dev**2).sum(axis=2) / (k - 1), np.nan)
    return means, within, k.astype(np.float64)


@dataclass(frozen=True)
class _Parts:
    mean: np.ndarray
    n: np.ndarray
    s2: np.ndarray  # sample variance (ddof 1) of the item means / differences
    var_prediction: np.ndarray
    pred_of_mean: np.ndarray  # prediction part of Var(mean) times n


def _pooled_within(
    within: np.ndarray, k: np.ndarray, valid: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Mean within-item variance over items with >= 2 runs, and the mean of 1/k_i over
    the valid items."""
    has = valid & (k >= 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        sw = np.where(has, within, 0.0).sum(axis=0) / has.sum(axis=0)
        inv_k = np.where(valid, 1.0 / np.where(valid, k, 1.0), 0.0).sum(axis=0) / valid.sum(axis=0)
    return sw, inv_k


def _moments(values: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, values, 0.0).sum(axis=0) / n
        s2 = np.where(valid, values - mean, 0.0)
        s2 = (s2**2).sum(axis=0) / (n - 1)
    return mean, n, np.where(n >= 2, s2, np.nan)


def _finish(
    parts: _Parts, names: tuple[str, ...], paired: bool, source: str, k_eff: np.ndarray
) -> VarianceComponentsResult:
    n = parts.n.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        var_total_of_mean = parts.s2 / n
        var_data = parts.s2 - parts.pred_of_mean
        se_pred = np.sqrt(parts.pred_of_mean / n)
        se_data = np.sqrt(np.maximum(var_data, 0.0) / n)
    small = parts.n < 2
    if small.any():
        warnings.warn(
            f"{int(small.sum())} system(s) have fewer than 2 items: their "
            "variance components are NaN",
            DegenerateDataWarning,
            stacklevel=3,
        )
    one_run = np.isnan(parts.var_prediction) & ~small
    if one_run.any():
        warnings.warn(
            f"{int(one_run.sum())} system(s) have a single run per item: "
            "data and prediction noise cannot be separated (NaN); se_total is "
            "still the standard error of the mean",
            DegenerateDataWarning,
            stacklevel=3,
        )
    nan = np.full(len(names), np.nan)
    return VarianceComponentsResult(
        names,
        paired,
        parts.mean,
        parts.n.astype(np.int64),
        np.where(small, nan, k_eff),
        np.where(small, nan, var_data),
        np.where(small, nan, parts.var_prediction),
        np.sqrt(var_total_of_mean),
        np.where(small, nan, se_data),
        np.where(small, nan, se_pred),
        source,  # type: ignore[arg-type]
    )


def _single_parts(
    means: np.ndarray, within: np.ndarray, k: np.ndarray
) -> tuple[_Parts, np.ndarray]:
    valid = k >= 1
    mean, n, s2 = _moments(means, valid)
    sw, inv_k = _pooled_within(within, k, valid)
    return _Parts(mean, n, s2, sw, sw * inv_k), _harmonic_k(k, valid, inv_k)


def _harmonic_k(k: np.ndarray, valid: np.ndarray, inv_k: np.ndarray) -> np.ndarray:
    """``1 / mean(1/k_i)``, exactly k when every item has k runs."""
    k_max = np.where(valid, k, -np.inf).max(axis=0, initial=-np.inf)
    k_min = np.where(valid, k, np.inf).min(axis=0, initial=np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(k_max == k_min, k_max, 1.0 / inv_k)


def variance_components(
    scores: np.ndarray, *, systems: Sequence[str] | None = None
) -> VarianceComponentsResult:
    """Split the variance of a mean score into data noise and prediction noise.

    Parameters
    ----------
    scores
        ``(n_items, n_runs)`` for one system or ``(n_items, n_systems, n_runs)``; NaN
        marks a missing run. Items with no run are ignored.
    systems
        Names of the systems.

    Returns
    -------
    VarianceComponentsResult

    Warns
    -----
    DegenerateDataWarning
        Fewer than 2 items (everything NaN), or one run per item (only ``se_total``).

    Notes
    -----
    Item i has expected score :math:`x_i` (over runs) and runs :math:`s_{ir} = x_i +
    \\epsilon_{ir}`. The estimate is the mean of the item means
    :math:`\\hat\\mu = n^{-1}\\sum_i \\bar s_i` (the pooled mean when every item has k
    runs), and by the law of total variance (Miller 2024, "Adding error bars to evals",
    arXiv:2411.00640, resampling section)

    .. math:: \\mathrm{Var}(\\hat\\mu) = \\frac{1}{n}\\Big(\\sigma^2_x +
              \\frac{\\sigma^2_\\epsilon}{k}\\Big).

    Estimators, unbiased in both n and k: :math:`\\hat\\sigma^2_\\epsilon` is the mean over
    items of the within-item variance with ddof 1 (the small-k correction
    :math:`k/(k-1)` of the plug-in variance); the sample variance (ddof 1) of the item
    means :math:`s^2_{\\bar s}` is unbiased for :math:`\\sigma^2_x + \\sigma^2_\\epsilon/k`,
    so :math:`\\hat\\sigma^2_x = s^2_{\\bar s} - \\hat\\sigma^2_\\epsilon / k` and
    :math:`se_{total}^2 = s^2_{\\bar s}/n`. These are eval-arena's
    ``SingleExperimental.from_samples_unbiasedNK`` (Wang 2025, "Measuring all the noises
    of LLM evals", arXiv:2512.21326). With unequal run counts :math:`1/k` is replaced by
    the mean of :math:`1/k_i` (items with one run count in it but not in
    :math:`\\hat\\sigma^2_\\epsilon`).

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
           evaluations. arXiv:2411.00640.

    Examples
    --------
    >>> scores = np.array([[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1]])
    >>> r = variance_components(scores)
    >>> float(r.k[0]), int(r.n[0])
    (3.0, 5)
    >>> bool(np.isclose(r.se_data[0] ** 2 + r.se_prediction[0] ** 2, r.se_total[0] ** 2))
    True

    By hand: the SE of the mean of the item means, and the within-item part.

    >>> item_means = scores.mean(axis=1)
    >>> within = scores.var(axis=1, ddof=1).mean()
    >>> round(float(r.se_total[0]), 4), round(float(np.sqrt(item_means.var(ddof=1) / 5)), 4)
    (0.17, 0.17)
    >>> round(float(r.se_prediction[0]), 4), round(float(np.sqrt(within / 3 / 5)), 4)
    (0.1155, 0.1155)
    """
    X = _scores_iv(scores)
    names = system_names(systems, X.shape[1])
    means, within, k = _within(X)
    parts, k_eff = _single_parts(means, within, k)
    return _finish(parts, names, False, "runs", k_eff)


def variance_components_paired(
    scores_a: np.ndarray, scores_b: np.ndarray, *, systems: Sequence[str] | None = None
) -> VarianceComponentsResult:
    """Data noise and prediction noise of the paired difference of two systems' means.

    Parameters
    ----------
    scores_a, scores_b
        ``(n_items, n_runs_a)`` and ``(n_items, n_runs_b)`` on the same items (in the
        same order), or ``(n_items, n_pairs, n_runs_*)`` for several pairs at once; the
        run counts may differ. NaN marks a missing run; items without a run of both
        systems are ignored.
    systems
        Names of the pairs (default ``"pair 1"``, ...).

    Returns
    -------
    VarianceComponentsResult
        With ``paired=True``; ``mean`` is the mean of the item differences
        :math:`\\bar s_{A,i} - \\bar s_{B,i}`.

    Notes
    -----
    The runs of A and of B are independent given the item, so with
    :math:`d_i = \\bar s_{A,i} - \\bar s_{B,i}`

    .. math:: \\mathrm{Var}(\\bar d) = \\frac{1}{n}\\Big(\\sigma^2_{x,A-B} +
              \\frac{\\sigma^2_{\\epsilon,A}}{k_A} + \\frac{\\sigma^2_{\\epsilon,B}}{k_B}\\Big),

    where :math:`\\sigma^2_{x,A-B}` is the variance across items of the expected
    difference (paired data noise, reduced by the correlation of the systems over items).
    Estimated as in :func:`variance_components`: :math:`se_{total}^2 = s_d^2/n`,
    ``var_prediction`` :math:`= \\hat\\sigma^2_{\\epsilon,A} + \\hat\\sigma^2_{\\epsilon,B}`,
    ``var_data`` :math:`= s^2_d - \\hat\\sigma^2_{\\epsilon,A}/k_A -
    \\hat\\sigma^2_{\\epsilon,B}/k_B`; eval-arena's ``Paired.from_samples_unbiasedK`` with
    the item variance taken with ddof 1 (Wang 2025; Miller 2024, paired differences). If
    run r of A and run r of B share randomness (same seed or sampled prompt), the two
    are not independent and this split is not valid.

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
           evaluations. arXiv:2411.00640.
    """
    A = _scores_iv(scores_a, "scores_a")
    B = _scores_iv(scores_b, "scores_b")
    if A.shape[:2] != B.shape[:2]:
        raise InputError(
            f"scores_a {A.shape} and scores_b {B.shape} must have the same items (and pairs)",
            hint="both systems must be scored on the same items, in the same order",
        )
    names = system_names(systems, A.shape[1], prefix="pair")
    mA, wA, kA = _within(A)
    mB, wB, kB = _within(B)
    valid = (kA >= 1) & (kB >= 1)
    mean, n, s2 = _moments(mA - mB, valid)
    swA, invA = _pooled_within(wA, kA, valid)
    swB, invB = _pooled_within(wB, kB, valid)
    var_pred = swA + swB
    pred_of_mean = swA * invA + swB * invB
    with np.errstate(invalid="ignore", divide="ignore"):
        k_eff = np.where(var_pred > 0, var_pred / pred_of_mean, 2.0 / (invA + invB))
    return _finish(_Parts(mean, n, s2, var_pred, pred_of_mean), names, True, "runs", k_eff)


def variance_components_from_counts(
    share: np.ndarray, count: np.ndarray | int, *, systems: Sequence[str] | None = None
) -> VarianceComponentsResult:
    """Variance components from the share of ``count`` Bernoulli samples per item.

    Parameters
    ----------
    share
        ``(n_items,)`` or ``(n_items, n_systems)``: the fraction of an item's samples that
        succeeded (eval-arena's ``pass1`` with ``count``); NaN marks an item not scored.
    count
        Samples per item: a scalar, one per system ``(n_systems,)`` (e.g.
        ``table.system_attributes["count"]``), or ``(n_items, n_systems)``.
    systems
        Names of the systems.

    Returns
    -------
    VarianceComponentsResult
        With ``source="counts"``; identical to :func:`variance_components` on the 0/1
        runs the shares summarise.

    Raises
    ------
    InputError
        Shares outside [0, 1], counts that are not positive integers, or
        ``share × count`` not a whole number of successes.

    Notes
    -----
    For 0/1 runs the within-item variance with ddof 1 is
    :math:`\\hat p_i(1-\\hat p_i)\\,c_i/(c_i - 1)`, the unbiased estimate of
    :math:`p_i(1-p_i)` (Miller 2024, resampling section; eval-arena's
    ``from_bernoulli_prob_self`` correction :math:`K/(K-1)`). Systems with ``count`` 1
    have no within-item information: their components are NaN (with a
    :class:`DegenerateDataWarning`) and only ``se_total`` is given.

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
           evaluations. arXiv:2411.00640.

    Examples
    --------
    >>> r = variance_components_from_counts(np.array([0.2, 1.0, 0.6, 0.0]), 5)
    >>> round(float(r.var_prediction[0]), 4)  # mean of p(1-p)·5/4: (0.2 + 0 + 0.3 + 0)/4
    0.125
    """
    P = _float_array(share, "share")
    if P.ndim == 1:
        P = P[:, None]
    elif P.ndim != 2:
        raise InputError(f"share must be (n_items,) or (n_items, n_systems), got shape {P.shape}")
    observed = ~np.isnan(P)
    if ((P[observed] < 0) | (P[observed] > 1)).any():
        raise InputError("share must be between 0 and 1 (the fraction of samples solved)")
    c = _float_array(count, "count")
    try:
        c = np.broadcast_to(c, P.shape)
    except ValueError as exc:
        raise InputError(
            f"count of shape {c.shape} does not broadcast to share {P.shape}",
            hint="pass a scalar, one count per system, or one per item and system",
        ) from exc
    if (
        np.isnan(c[observed]).any()
        or (c[observed] < 1).any()
        or (c[observed] != np.round(c[observed])).any()
    ):
        raise InputError(
            "count must be a positive integer for every scored item",
            hint="count is the number of samples behind each share",
        )
    successes = P * c
    off = np.abs(successes - np.round(successes))
    if (off[observed] > 1e-3).any():
        i, j = np.argwhere(observed & (off > 1e-3))[0]
        raise InputError(
            f"share {P[i, j]!r} × count {c[i, j]:g} is not a whole number of "
            f"successes (item {i}, system {j})",
            hint="share must be successes / count",
        )
    names = system_names(systems, P.shape[1])
    k = np.where(observed, c, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        within = np.where(observed & (c >= 2), P * (1 - P) * c / (c - 1), np.nan)
    parts, k_eff = _single_parts(P, within, k)
    return _finish(parts, names, False, "counts", k_eff)


# ============================================================ pooled-runs bootstrap


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
        return [
            {
                "system": s,
                "estimate": _num(self.estimate[j]),
                "bootstrap_mean": _num(self.bootstrap_mean[j]),
                "ci_low": _num(self.ci_low[j]),
                "ci_high": _num(self.ci_high[j]),
                "se": _num(self.se[j]),
                "n_items": int(self.n_items[j]),
                "n_runs": self.n_runs,
                "n_pooled": int(self.n_pooled[j]),
                "ci_method": "pooled-runs bootstrap percentile",
                "confidence": self.confidence,
                "n_resamples": self.n_resamples,
            }
            for j, s in enumerate(self.systems)
        ]

    def run_records(self) -> list[dict[str, Any]]:
        """One dict per system and run (run is the 0-based index along the runs axis)."""
        return [
            {
                "system": s,
                "run": r,
                "estimate": _num(self.run_estimate[j, r]),
                "bootstrap_mean": _num(self.run_bootstrap_mean[j, r]),
                "ci_low": _num(self.run_ci_low[j, r]),
                "ci_high": _num(self.run_ci_high[j, r]),
                "confidence": self.confidence,
                "n_resamples": self.n_resamples,
            }
            for j, s in enumerate(self.systems)
            for r in range(self.n_runs)
        ]


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
            f"{int(bad.sum())} system(s): those resamples are left out of the "
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


# ============================================================ do the runs differ?


@dataclass(frozen=True)
class RunsDifferResult(TabularMixin):
    """Test that the runs of each system have the same expected score.

    Attributes
    ----------
    systems
        One name per system.
    test
        ``"Cochran's Q"`` (binary) or ``"Friedman"`` (continuous).
    statistic, df, p_value
        The chi-square statistic, its degrees of freedom (n_runs − 1) and p-value.
    n_items, n_dropped
        Items used (every run observed) and items dropped for a missing run.
    n_runs
        Runs compared.
    """

    systems: tuple[str, ...]
    test: str
    modality: Modality
    statistic: np.ndarray
    df: int
    p_value: np.ndarray
    n_items: np.ndarray
    n_dropped: np.ndarray
    n_runs: int

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (NaN as None)."""
        return [
            {
                "system": s,
                "test": self.test,
                "modality": self.modality,
                "statistic": _num(self.statistic[j]),
                "df": self.df,
                "p_value": _num(self.p_value[j]),
                "n_items": int(self.n_items[j]),
                "n_dropped": int(self.n_dropped[j]),
                "n_runs": self.n_runs,
            }
            for j, s in enumerate(self.systems)
        ]


def _cochran_q(x: np.ndarray) -> float:
    n, k = x.shape
    col = x.sum(axis=0)
    row = x.sum(axis=1)
    total = row.sum()
    denom = k * total - (row**2).sum()
    if denom == 0:
        return math.nan
    return float((k - 1) * (k * (col**2).sum() - total**2) / denom)


def _friedman(x: np.ndarray) -> float:
    n, k = x.shape
    ranks = stats.rankdata(x, axis=1)
    rank_sums = ranks.sum(axis=0)
    chisq = 12.0 / (n * k * (k + 1)) * (rank_sums**2).sum() - 3.0 * n * (k + 1)
    # tie correction: a group of t tied values adds t^3 - t = sum over its members of t^2 - 1
    tie_size = (x[:, :, None] == x[:, None, :]).sum(axis=2)
    ties = float((tie_size.astype(np.float64) ** 2 - 1).sum())
    c = 1.0 - ties / (n * k * (k * k - 1))
    if c <= 0:
        return math.nan
    return float(chisq / c)


def runs_differ_test(
    scores: np.ndarray, *, modality: Modality | None = None, systems: Sequence[str] | None = None
) -> RunsDifferResult:
    """Do the runs of a system differ systematically (RQ1 of Fraile-Hernández & Peñas (2025))?

    Parameters
    ----------
    scores
        ``(n_items, n_runs)`` or ``(n_items, n_systems, n_runs)``, at least 2 runs.
        Items with a missing (NaN) run are dropped for that system and counted.
    modality
        ``"binary"`` (Cochran's Q) or ``"continuous"`` (Friedman); default binary when
        every score is 0 or 1.
    systems
        Names of the systems.

    Returns
    -------
    RunsDifferResult

    Warns
    -----
    DegenerateDataWarning
        Fewer than 2 complete items (NaN), or no item whose runs differ (statistic NaN,
        p = 1: no evidence that runs differ).

    Notes
    -----
    Items are blocks and runs are treatments. Cochran (1950):
    :math:`Q = (k-1)\\,(k\\sum_j C_j^2 - N^2)/(kN - \\sum_i R_i^2)` with run totals
    :math:`C_j`, item totals :math:`R_i` and :math:`N = \\sum C_j`; statsmodels
    ``cochrans_q``. Friedman (1937) with the tie correction:
    :math:`\\chi^2_F = [12/(nk(k+1))\\sum_j R_j^2 - 3n(k+1)] / [1 - \\sum(t^3 - t)/(nk(k^2-1))]`
    with rank sums :math:`R_j` within items; scipy ``friedmanchisquare`` (which needs
    k >= 3; for k = 2 it is :math:`(W-L)^2/(W+L)`, the squared sign-test z). Both are
    referred to :math:`\\chi^2_{k-1}`. A small p-value says the runs are not exchangeable
    (e.g. a drifting API or a seed that matters), so one run does not represent the
    system.

    References
    ----------
    .. [1] Cochran, W. G. (1950). The comparison of percentages in matched samples. Biometrika
           37(3-4), 256-266.
    .. [2] Friedman, M. (1937). The use of ranks to avoid the assumption of normality implicit in
           the analysis of variance. J. Amer. Statist. Assoc. 32(200), 675-701.
    .. [3] Fraile-Hernández, J. M. & Peñas, A. (2025). On measuring large language models
           performance with inferential statistics. Information 16(9), 817.
           https://doi.org/10.3390/info16090817
    """
    X = _scores_iv(scores)
    names = system_names(systems, X.shape[1])
    n_runs = X.shape[2]
    if n_runs < 2:
        raise InputError(
            f"at least 2 runs are needed to compare runs, got {n_runs}",
            hint="scores must be (n_items, n_runs) or (n_items, n_systems, "
            "n_runs) with n_runs >= 2",
        )
    observed = X[~np.isnan(X)]
    binary = bool(np.all((observed == 0) | (observed == 1)))
    if modality is None:
        mod: Modality = "binary" if binary else "continuous"
    else:
        mod = _choice_iv("modality", modality, get_args(Modality))  # type: ignore[assignment]
        if mod == "binary" and not binary:
            raise InputError(
                "modality='binary' but the scores are not all 0 or 1",
                hint="use modality='continuous' (Friedman) or leave it None",
            )
    n_sys = X.shape[1]
    statistic = np.full(n_sys, np.nan)
    p = np.full(n_sys, np.nan)
    complete = ~np.isnan(X).any(axis=2)  # (items, systems)
    n_used = complete.sum(axis=0)
    n_dropped = (~complete).sum(axis=0)
    no_variation = []
    for j in range(n_sys):
        if n_used[j] < 2:
            continue
        x = X[complete[:, j], j, :]
        statistic[j] = _cochran_q(x) if mod == "binary" else _friedman(x)
        if np.isnan(statistic[j]):
            no_variation.append(j)
            p[j] = 1.0
        else:
            p[j] = stats.chi2.sf(statistic[j], n_runs - 1)
    if (n_used < 2).any():
        warnings.warn(
            f"{int((n_used < 2).sum())} system(s) have fewer than 2 items with "
            "every run observed: NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    if no_variation:
        warnings.warn(
            f"{len(no_variation)} system(s) score every item the same in all runs: "
            "the statistic is undefined, p = 1",
            DegenerateDataWarning,
            stacklevel=2,
        )
    return RunsDifferResult(
        names,
        "Cochran's Q" if mod == "binary" else "Friedman",
        mod,
        statistic,
        n_runs - 1,
        p,
        n_used.astype(np.int64),
        n_dropped.astype(np.int64),
        n_runs,
    )


# ============================================================ CI width against runs


@dataclass(frozen=True)
class RunsWidthResult(TabularMixin):
    """The interval of each system's mean using only the first k runs, k = 1..n_runs.

    Attributes
    ----------
    systems
        One name per system.
    runs
        ``(n_runs,)`` the k of each row: 1, 2, ..., n_runs.
    estimate
        ``(n_runs, n_systems)`` mean of the observed scores of the first k runs.
    ci_low, ci_high, width
        ``(n_runs, n_systems)`` percentile interval at ``confidence`` and its width.
    method
        ``"pooled"`` (:func:`pooled_runs_bootstrap`) or ``"cluster"``
        (:func:`cluster_bootstrap_interval`).
    """

    systems: tuple[str, ...]
    runs: np.ndarray
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    width: np.ndarray
    method: WidthMethod
    confidence: float
    n_resamples: int

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system and number of runs (NaN as None)."""
        return [
            {
                "system": s,
                "runs": int(k),
                "estimate": _num(self.estimate[i, j]),
                "ci_low": _num(self.ci_low[i, j]),
                "ci_high": _num(self.ci_high[i, j]),
                "width": _num(self.width[i, j]),
                "method": self.method,
                "confidence": self.confidence,
                "n_resamples": self.n_resamples,
            }
            for j, s in enumerate(self.systems)
            for i, k in enumerate(self.runs)
        ]


def ci_width_by_runs(
    scores: np.ndarray,
    *,
    method: WidthMethod = "cluster",
    n_resamples: int = 9999,
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    systems: Sequence[str] | None = None,
) -> RunsWidthResult:
    """Interval and its width using the first k runs, for k = 1..n_runs (the table of
    Fraile-Hernández & Peñas 2025).

    Parameters
    ----------
    scores
        ``(n_items, n_runs)`` or ``(n_items, n_systems, n_runs)``; NaN marks a missing
        run. Runs are taken in the order of the last axis.
    method
        ``"cluster"`` (default): :func:`cluster_bootstrap_interval` (percentile), the
        interval of the mean over the runs used, which narrows while prediction noise
        dominates and levels off at the data noise. ``"pooled"``: the interval of
        :func:`pooled_runs_bootstrap` (Algorithm 1 of Fraile-Hernández & Peñas 2025), which
        keeps the width of a single run whatever k.
    n_resamples, confidence, rng, max_memory
        As in the two bootstraps.
    systems
        Names of the systems.

    Returns
    -------
    RunsWidthResult

    Notes
    -----
    Fraile-Hernández & Peñas (2025, §4, the running example) report the interval for
    runs (1), (1, 2), ... to show whether one run is enough: if the width barely changes
    after the first runs, more runs buy little. The widths are from
    independent resamples for each k, so they carry Monte Carlo noise of about
    :math:`1/\\sqrt{2B}` relative.

    References
    ----------
    .. [1] Fraile-Hernández, J. M. & Peñas, A. (2025). On measuring large language models
           performance with inferential statistics. Information 16(9), 817.
           https://doi.org/10.3390/info16090817 (§4, the running example).
    .. [2] Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
           evaluations. arXiv:2411.00640.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=(200, 1))
    >>> scores = (rng.uniform(size=(200, 4)) < p).astype(float)
    >>> table = ci_width_by_runs(scores, n_resamples=1000, rng=1)
    >>> table.runs.tolist(), bool(table.width[-1, 0] < table.width[0, 0])
    ([1, 2, 3, 4], True)
    """
    X = _scores_iv(scores)
    meth = _choice_iv("method", method, get_args(WidthMethod))
    conf = _confidence_iv(confidence)
    R, max_memory, gen = _resampling_iv(n_resamples, max_memory, rng)
    names = system_names(systems, X.shape[1])
    n_runs, n_sys = X.shape[2], X.shape[1]
    estimate = np.full((n_runs, n_sys), np.nan)
    low = np.full((n_runs, n_sys), np.nan)
    high = np.full((n_runs, n_sys), np.nan)
    for i in range(n_runs):  # a handful of k, not a loop over resamples
        part = X[:, :, : i + 1]
        S, C = _item_sums(part)
        with np.errstate(invalid="ignore", divide="ignore"):
            estimate[i] = S.sum(axis=0) / C.sum(axis=0)
        if meth == "cluster":
            keep = C.sum(axis=1) > 0
            if keep.sum() < 1:
                continue
            reps = _cluster_replicates(S[keep], C[keep], R, gen, max_memory)
            reps[:, (C[keep] > 0).sum(axis=0) < 2] = np.nan
        else:
            stats_ = np.stack([part, np.where(np.isnan(part), np.nan, 1.0)], axis=-1)
            reps, _, _ = _pooled_distribution(stats_, _ratio_metric, R, gen, max_memory)
        low[i], high[i] = _percentile_interval(reps, conf)
    if np.isnan(low).any():
        warnings.warn(
            "some intervals are NaN (fewer than 2 items with scores in the runs used)",
            DegenerateDataWarning,
            stacklevel=2,
        )
    return RunsWidthResult(
        names,
        np.arange(1, n_runs + 1),
        estimate,
        low,
        high,
        high - low,
        meth,  # type: ignore[arg-type]
        conf,
        R,
    )

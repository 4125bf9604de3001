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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_args

import numpy as np
from scipy import special

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.plaintext import count, verb
from reportgen.records import columns_to_records, floats, ints
from reportgen.stats import _dist
from reportgen.stats._common import Modality, TabularMixin, system_names
from reportgen.stats._rank_common import average_ranks
from reportgen.stats._resampling import (
    DEFAULT_MAX_MEMORY,
    bca_interval,
    bootstrap_counts,
    chunk_sizes,
    exact_product,
)
from reportgen.stats._runs_inputs import (
    BootstrapMethod,
    Distribution,
    WidthMethod,
    _choice_iv,
    _confidence_iv,
    _float_array,
    _percentile_interval,
    _ratio_metric,
    _resampling_iv,
    _scores_iv,
)
from reportgen.stats._runs_pooled import (
    PooledRunsResult,
    _pooled_distribution,
    pooled_runs_bootstrap,
)
from reportgen.stats._runs_variance import (
    VarianceComponentsResult,
    variance_components,
    variance_components_from_counts,
    variance_components_paired,
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
        return columns_to_records(
            {
                "system": self.systems,
                "mean": floats(self.mean),
                "se": floats(self.se),
                "ci_low": floats(self.ci_low),
                "ci_high": floats(self.ci_high),
                "df": floats(self.df),
                "se_naive": floats(self.se_naive),
                "naive_low": floats(self.naive_low),
                "naive_high": floats(self.naive_high),
                "design_effect": floats(self.design_effect()),
                "n_observations": ints(self.n_observations),
                "n_clusters": ints(self.n_clusters),
                "confidence": self.confidence,
                "distribution": self.distribution,
                "ci_method": "cluster-robust (CR1) " + self.distribution,
            }
        )


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
        q = _dist.t_ppf(0.5 + conf / 2, df)
        q_naive = _dist.t_ppf(0.5 + conf / 2, df_naive)
    else:
        df = np.full(len(names), np.inf)
        q = q_naive = float(special.ndtri(0.5 + conf / 2))
    if (G < 2).any():
        warnings.warn(
            f"{count(int((G < 2).sum()), 'system')}"
            f" {verb(int((G < 2).sum()), 'have', 'has')} fewer than 2 clusters: the "
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
        return columns_to_records(
            {
                "system": self.systems,
                "mean": floats(self.mean),
                "ci_low": floats(self.ci_low),
                "ci_high": floats(self.ci_high),
                "se": floats(self.se),
                "n_items": ints(self.n_items),
                "n_observations": ints(self.n_observations),
                "ci_method": self.ci_method,
                "confidence": self.confidence,
                "n_resamples": self.n_resamples,
            }
        )


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
            f"{count(int(small.sum()), 'system')}"
            f" {verb(int(small.sum()), 'have', 'has')} fewer than 2 items with scores: "
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
            f"{count(int(constant.sum()), 'system')}"
            f" {verb(int(constant.sum()), 'score', 'scores')} the same value everywhere: "
            "the interval is that single point",
            DegenerateDataWarning,
            stacklevel=3,
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
        return columns_to_records(
            {
                "system": self.systems,
                "test": self.test,
                "modality": self.modality,
                "statistic": floats(self.statistic),
                "df": self.df,
                "p_value": floats(self.p_value),
                "n_items": ints(self.n_items),
                "n_dropped": ints(self.n_dropped),
                "n_runs": self.n_runs,
            }
        )


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
    ranks = average_ranks(x, axis=1)
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
            p[j] = _dist.chi2_sf(statistic[j], n_runs - 1)
    if (n_used < 2).any():
        warnings.warn(
            f"{count(int((n_used < 2).sum()), 'system')}"
            f" {verb(int((n_used < 2).sum()), 'have', 'has')} fewer than 2 items with "
            "every run observed: NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    if no_variation:
        warnings.warn(
            f"{count(len(no_variation), 'system')}"
            f" {verb(len(no_variation), 'score', 'scores')} every item the same in all runs: "
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
        runs = len(self.runs)
        return columns_to_records(
            {  # system-major: every number of runs of the first system, then the next
                "system": [s for s in self.systems for _ in range(runs)],
                "runs": ints(np.tile(np.asarray(self.runs), len(self.systems))),
                "estimate": floats(np.asarray(self.estimate).T),
                "ci_low": floats(np.asarray(self.ci_low).T),
                "ci_high": floats(np.asarray(self.ci_high).T),
                "width": floats(np.asarray(self.width).T),
                "method": self.method,
                "confidence": self.confidence,
                "n_resamples": self.n_resamples,
            }
        )


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

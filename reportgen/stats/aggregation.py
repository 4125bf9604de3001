"""Aggregation across metrics and datasets (Ackerman et al. 2025, §6; clawRxiv 2604.01973,
§6; Demšar 2006).

- :func:`aggregate_metrics` (Ackerman et al. 2025, §6.1): paired score matrices of K metrics on the
  same items and systems → one aggregate score matrix (pooled z-scores, signed so that
  higher is better, weighted average). It is a metric like any other: pass it to
  :func:`reportgen.stats.pairwise.compare_paired`.
- :func:`harmonic_mean_pvalue` (Ackerman et al. 2025, §6.2): Wilson's (2019) harmonic mean
  p-value of the K per-list p-values of a pair, asymptotically exact through the Landau
  distribution, adjusted for the L = |Ω| × K tests of the family.
- :func:`aggregate_effect_sizes` (Ackerman et al. 2025, §6.2): Turner & Bernard's (2006) inverse-SD
  weighted average of effect sizes.
- :func:`aggregate_unpaired_means` (Ackerman et al. 2025, §6.3): standardized per-system
  means across unpaired lists, from summary statistics only.
- :func:`sign_test_wins` (clawRxiv 2604.01973, §6): the sign test for "A wins on more
  subtasks than B".
- :func:`friedman_nemenyi` (Demšar 2006): Friedman test over blocks (datasets) and the
  Nemenyi critical difference, with the data of a critical-difference diagram.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
from scipy import special

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.records import columns_to_records, floats, ints
from reportgen.stats import _dist
from reportgen.stats._common import TabularMixin, system_names
from reportgen.stats._common import finite_or_none as _num
from reportgen.stats._degenerate import power_of_two_scale
from reportgen.stats._rank_common import average_ranks

__all__ = [
    "LANDAU_SCALE",
    "Direction",
    "EffectSizeAggregate",
    "FriedmanNemenyiResult",
    "HarmonicMeanPResult",
    "MetricAggregate",
    "SignTestResult",
    "UnpairedMeansAggregate",
    "aggregate_effect_sizes",
    "aggregate_metrics",
    "aggregate_unpaired_means",
    "friedman_nemenyi",
    "harmonic_mean_pvalue",
    "hmp_landau_location",
    "nemenyi_q",
    "sign_test_wins",
]

Direction = Literal["higher", "lower"]
Ties = Literal["drop", "count"]

#: Scale of the Landau distribution of the HMP (Wilson 2019): π/2.
LANDAU_SCALE: float = math.pi / 2


# ============================================================================ helpers


def _weights_iv(weights: Any, k: int, name: str = "weights") -> np.ndarray:
    """``weights`` as a float array of length ``k``, non-negative, normalised to sum 1."""
    if weights is None:
        return np.full(k, 1.0 / k)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (k,):
        raise InputError(
            f"{name} has shape {w.shape}, expected ({k},)",
            hint=f"give one weight per metric or list ({k})",
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise InputError(
            f"{name}={w.tolist()} must be finite, non-negative and not all zero",
            hint="weights are normalised to sum to 1",
        )
    return w / w.sum()


def _directions_iv(directions: Any, k: int) -> tuple[Direction, ...]:
    if isinstance(directions, str):
        directions = [directions]
    dirs = tuple(directions)
    if len(dirs) != k:
        raise InputError(
            f"{len(dirs)} directions for {k} metrics",
            hint="give one direction ('higher' or 'lower') per metric",
        )
    for d in dirs:
        if d not in get_args(Direction):
            raise InputError(
                f"direction {d!r} is not valid", hint="use 'higher' (higher is better) or 'lower'"
            )
    return dirs


def _signs(directions: tuple[str, ...]) -> np.ndarray:
    """I_j of Ackerman et al. 2025, §6: +1 when higher is better, −1 when lower is better."""
    return np.array([1.0 if d == "higher" else -1.0 for d in directions])


def _names(names: Sequence[str] | str | None, count: int, prefix: str) -> tuple[str, ...]:
    return system_names(names, count, prefix=prefix, hint=f"give one name per {prefix}")


# ============================================================================ §6.1


@dataclass(frozen=True)
class MetricAggregate(TabularMixin):
    """An aggregate metric (Ackerman et al. 2025, §6.1).

    Attributes
    ----------
    scores
        The aggregate score matrix, same shape as each input (items × systems, or
        items × systems × runs); higher is better. Usable as a metric by
        :func:`~reportgen.stats.pairwise.compare_paired`.
    metrics
        Metric names.
    directions
        ``"higher"`` or ``"lower"`` is better, per metric.
    weights
        Metric weights, normalised to sum to 1.
    means, sds
        Pooled mean and SD (ddof = 1) of each metric over every system's scores.
    constant
        Metrics with zero pooled SD (they contribute 0 to the aggregate).
    """

    scores: np.ndarray
    metrics: tuple[str, ...]
    directions: tuple[Direction, ...]
    weights: np.ndarray
    means: np.ndarray
    sds: np.ndarray
    constant: tuple[str, ...] = ()

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per metric: name, direction, weight, pooled mean and SD."""
        return columns_to_records(
            {
                "metric": self.metrics,
                "direction": self.directions,
                "weight": floats(self.weights, nan_as_none=False),
                "mean": floats(self.means),
                "sd": floats(self.sds),
                "constant": [m in self.constant for m in self.metrics],
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (the per-metric records; the matrix is not included)."""
        return {
            "method": "pooled z-score, direction-signed weighted mean (Ackerman et al. 2025, §6.1)",
            "shape": list(self.scores.shape),
            "metrics": self.to_records(),
        }


def aggregate_metrics(
    matrices: Sequence[Any] | np.ndarray,
    *,
    directions: Sequence[Direction] | Direction,
    weights: Sequence[float] | np.ndarray | None = None,
    metrics: Sequence[str] | None = None,
) -> MetricAggregate:
    """Aggregate K paired metrics into one score matrix (Ackerman et al. 2025, §6.1).

    Parameters
    ----------
    matrices
        K score matrices of the same shape (items × systems, or items × systems × runs),
        scored on the same items and systems; or one array of shape ``(K, ...)``.
    directions
        Per metric, ``"higher"`` or ``"lower"`` is better.
    weights
        Metric weights (non-negative); normalised to sum to 1. Default: equal.
    metrics
        Metric names (default ``"metric 1"``, ...).

    Returns
    -------
    MetricAggregate
        ``scores`` is the aggregate matrix (higher is better).

    Raises
    ------
    InputError
        Shapes differ, a matrix has a non-finite value, fewer than two scores, bad
        directions or weights.

    Warns
    -----
    DegenerateDataWarning
        A metric is constant (pooled SD 0): its standardized values are all 0, so it
        contributes 0 to the aggregate.

    Notes
    -----
    With :math:`V_{ibj}` the score of item i, system b on metric j, the pooled mean
    :math:`\\bar V_{\\cdot j}` and SD :math:`S_{\\cdot j}` (ddof = 1) over all items and
    systems, :math:`I_j = +1` (higher better) or :math:`-1`, and weights
    :math:`w_j` summing to 1,

    .. math:: V_{ib,\\mathrm{agg}} = \\sum_j w_j I_j
              \\frac{V_{ibj} - \\bar V_{\\cdot j}}{S_{\\cdot j}}.

    The aggregate is unchanged by any affine rescaling :math:`a V + c` (a > 0) of a
    metric, and by negating a metric together with flipping its direction. Because the
    standardization is common to all systems, the pairing across items is kept, so
    paired tests apply.

    References
    ----------
    .. [1] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §6.1.

    Examples
    --------
    >>> acc = np.array([[1., 0.], [0., 0.], [1., 1.]])
    >>> err = np.array([[0.1, 0.5], [0.7, 0.9], [0.2, 0.3]])
    >>> agg = aggregate_metrics([acc, err], directions=["higher", "lower"])
    >>> agg.scores.shape
    (3, 2)
    >>> bool(agg.scores[0, 0] > agg.scores[1, 1])
    True

    By hand: pooled means 0.5 and 0.45, pooled SDs (ddof 1) of all six values each.

    >>> by_hand = 0.5 * (1 - 0.5) / np.std(acc, ddof=1) + 0.5 * (0.45 - 0.1) / np.std(err, ddof=1)
    >>> round(float(agg.scores[0, 0]), 4), round(float(by_hand), 4)
    (1.0242, 1.0242)
    """
    arrays = [np.asarray(m, dtype=np.float64) for m in matrices]
    k = len(arrays)
    if k == 0:
        raise InputError("no metric matrices given", hint="give at least one matrix")
    shape = arrays[0].shape
    for j, a in enumerate(arrays):
        if a.shape != shape:
            raise InputError(
                f"metric {j + 1} has shape {a.shape}, metric 1 has {shape}",
                hint="paired aggregation needs the same items and systems "
                "for every metric; use aggregate_unpaired_means or "
                "harmonic_mean_pvalue for unpaired lists",
            )
        if not np.all(np.isfinite(a)):
            raise InputError(
                f"metric {j + 1} has missing or infinite scores",
                hint="drop the incomplete items from every metric first",
            )
    if len(shape) not in (2, 3) or arrays[0].size < 2:
        raise InputError(
            f"score matrices must be items × systems (× runs) with at least "
            f"two scores, got shape {shape}"
        )
    dirs = _directions_iv(directions, k)
    w = _weights_iv(weights, k)
    names = _names(metrics, k, "metric")
    # each metric divided by a power of two (exact): the same standardized scores for
    # metrics of any scale (1e-300 to 1e300), whose squares would under- or overflow
    units = np.array([power_of_two_scale(a) for a in arrays])
    V = np.stack([a / u for a, u in zip(arrays, units)])  # K × items × systems (× runs)
    flat = V.reshape(k, -1)
    means = flat.mean(axis=1)
    sds = flat.std(axis=1, ddof=1)
    # a constant metric: the spread is zero up to rounding of the mean (in the metric's
    # own scale: its values are at most 1 in magnitude here)
    constant = sds <= 1e-12 * np.maximum(1.0, np.abs(means))
    if constant.any():
        bad = [names[j] for j in np.flatnonzero(constant)]
        warnings.warn(
            f"{'metric' if len(bad) == 1 else 'metrics'} {', '.join(bad)} "
            f"{'is' if len(bad) == 1 else 'are'} constant (pooled SD 0); "
            f"{'it contributes' if len(bad) == 1 else 'they contribute'} 0 to the aggregate",
            DegenerateDataWarning,
            stacklevel=2,
        )
    safe_sd = np.where(constant, 1.0, sds)
    coef = np.where(constant, 0.0, w * _signs(dirs) / safe_sd)
    expand = (slice(None),) + (None,) * len(shape)
    agg = np.sum(coef[expand] * (V - means[expand]), axis=0)
    return MetricAggregate(
        scores=agg,
        metrics=names,
        directions=dirs,
        weights=w,
        means=means * units,
        sds=sds * units,
        constant=tuple(names[j] for j in np.flatnonzero(constant)),
    )


# ============================================================================ §6.2 HMP


def hmp_landau_location(L: int) -> float:
    """Location of Wilson's Landau distribution for ``L`` tests:
    :math:`\\log L + 1 + \\psi(1) - \\log(2/\\pi) \\approx \\log L + 0.874`.

    References
    ----------
    .. [1] Wilson, D. J. (2019). The harmonic mean p-value for combining dependent tests. Proc.
           Natl. Acad. Sci. USA 116(4), 1195-1200.
    """
    return math.log(L) + 1.0 + float(special.digamma(1.0)) - math.log(2.0 / math.pi)


@dataclass(frozen=True)
class HarmonicMeanPResult(TabularMixin):
    """Harmonic mean p-values of one or many groups of K p-values.

    Attributes
    ----------
    hmp
        The weighted harmonic mean :math:`\\mathring p_R = 1/\\sum_j w_j/p_j`, shape
        ``p.shape[:-1]``.
    p_value
        Wilson's asymptotically exact HMP :math:`p_{\\mathring p_R}` (R package
        ``harmonicmeanp`` ≥ 3.0, ``p.hmp``), to be compared with
        ``alpha * group_weight``.
    p_adjusted
        ``min(1, p_value / group_weight)``: the multiplicity-adjusted p-value, to be
        compared with ``alpha`` directly (controls the strong-sense FWER over the L
        tests).
    weights
        The within-group weights of the K p-values (sum 1).
    L
        Number of tests in the whole family.
    group_weight
        :math:`w_R = K/L`, the share of the family's weight carried by each group.
    location, scale
        Parameters of the Landau distribution used (``scipy.stats.landau`` loc, scale).
    """

    hmp: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    weights: np.ndarray
    L: int
    group_weight: float
    location: float
    scale: float = LANDAU_SCALE

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per group (leading axes flattened in C order)."""
        return columns_to_records(
            {
                "hmp": floats(self.hmp),
                "p_value": floats(self.p_value),
                "p_adjusted": floats(self.p_adjusted),
                "L": self.L,
                "group_weight": self.group_weight,
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the method, its parameters and the per-group records."""
        return {
            "method": "harmonic mean p-value (Wilson 2019), Landau tail",
            "L": self.L,
            "group_weight": self.group_weight,
            "weights": [float(x) for x in self.weights],
            "landau_location": self.location,
            "landau_scale": self.scale,
            "groups": self.to_records(),
        }


def harmonic_mean_pvalue(
    p: Any, *, weights: Sequence[float] | np.ndarray | None = None, L: int | None = None
) -> HarmonicMeanPResult:
    """Combine K p-values per group with Wilson's (2019) harmonic mean p-value.

    Parameters
    ----------
    p
        p-values, shape ``(..., K)``: the last axis holds the K p-values of one group
        (e.g. one system pair's p-values on K metrics or datasets); the leading axes
        are groups (e.g. the |Ω| pairs), all computed at once. NaN in a group gives NaN
        results for that group.
    weights
        Weights of the K p-values within a group (non-negative, normalised to sum to 1;
        default equal): the metric weights :math:`w_j` of Ackerman et al. 2025, §6.2.
    L
        Total number of tests in the family, at least K (default K: the group is the
        whole family). For Ackerman et al. 2025, §6.2, ``L = |Ω| × K`` with |Ω| compared pairs.

    Returns
    -------
    HarmonicMeanPResult
        ``hmp``, ``p_value`` (compare with ``alpha * group_weight``) and
        ``p_adjusted`` (compare with ``alpha``).

    Raises
    ------
    InputError
        p outside [0, 1], K = 0, L < K or not an integer, bad weights.

    Notes
    -----
    The family has L tests with weights summing to 1. Each group R of K of them carries
    the weight :math:`w_R = K/L` (every group equally), split within the group by
    ``weights``: test j of the group has family weight :math:`w_R w_j`. Wilson's HMP of
    the group is :math:`\\mathring p_R = w_R / \\sum_{j} w_R w_j / p_j
    = 1/\\sum_j w_j/p_j`, and with

    .. math:: x = \\sum_{j \\in R} \\frac{w_R w_j}{p_j} = \\frac{w_R}{\\mathring p_R},
        \\qquad \\bar\\Lambda_L(x) = \\Pr[X > x],\\;
        X \\sim \\mathrm{Landau}(\\mu_L = \\log L + 1 + \\psi(1) - \\log\\tfrac{2}{\\pi},\\,
        \\sigma = \\tfrac{\\pi}{2}),

    the asymptotically exact p-value is
    :math:`p_{\\mathring p_R} = \\max(\\mathring p_R,\\, w_R \\bar\\Lambda_L(x))`, which
    is significant at level α when :math:`\\le \\alpha w_R` (``harmonicmeanp`` 3.0,
    ``p.hmp(p, w, L)``, which corrects the 2019 paper's errata). The adjusted p-value
    is ``p_value / w_R = max(1/x, Λ̄_L(x))``, capped at 1. For the whole family
    (K = L) this is Wilson's headline test :math:`\\Pr[X > 1/\\mathring p]`.

    **Landau parametrisation.** Wilson's Landau(μ, σ) is the stable law with α = 1,
    β = +1 in Nolan's S0 (Zolotarev M) parametrisation (R ``FMStable``,
    ``setParam(alpha=1, location=mu, logscale=log(sigma), pm=0)``). SciPy's standard
    ``landau`` has characteristic function :math:`\\exp(-|t| - i\\tfrac{2}{\\pi} t
    \\log|t|)`, so ``landau(loc=μ, scale=σ)`` has
    :math:`\\exp(i\\mu t - \\sigma|t|[1 + i\\tfrac{2}{\\pi}\\operatorname{sign}(t)
    \\log(\\sigma|t|)])`: exactly S0(1, 1, σ, μ). Hence
    :math:`\\bar\\Lambda_L(x)` = ``scipy.stats.landau.sf(x, loc=μ_L, scale=π/2)``,
    whose right tail is :math:`\\approx 1/x` (:math:`2\\sigma/(\\pi x)`), matching
    :math:`\\Pr[1/U > x] = 1/x` for one uniform p-value. μ_L is
    :func:`hmp_landau_location`: the sum of L i.i.d. :math:`1/(L U_i)` minus
    :math:`\\log L` converges to S1(1, 1, π/2, 1 − γ) = S0(…, 1 − γ + log(π/2)).

    **K = 1.** For a single p-value with weight :math:`w_R = 1/L`, ``p_adjusted`` =
    ``min(1, max(L p, Λ̄_L(1/(L p))))``: never below Bonferroni's ``min(1, L p)``, and
    :math:`\\to L p` relative to it as p → 0 (the Landau tail is 1/x).

    The HMP is valid under positive dependence between the p-values (Wilson 2019);
    its weights need not be equal but must be fixed before seeing the data.

    References
    ----------
    .. [1] Wilson, D. J. (2019). The harmonic mean p-value for combining dependent tests. Proc.
           Natl. Acad. Sci. USA 116(4), 1195-1200 (and its 2019 correction).
    .. [2] Wilson, D. J. harmonicmeanp: harmonic mean p-values and model averaging by mean
           maximum likelihood. R package, version 3.0 (``p.hmp``).
    .. [3] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §6.2.

    Examples
    --------
    >>> res = harmonic_mean_pvalue(np.array([[0.01, 0.04], [0.5, 0.9]]), L=6)
    >>> res.hmp.round(4)                  # 1 / (0.5/0.01 + 0.5/0.04), 1 / (0.5/0.5 + 0.5/0.9)
    array([0.016 , 0.6429])
    >>> res.p_adjusted.round(4)
    array([0.061, 1.   ])

    The first by hand: x = w_R / hmp with w_R = K/L = 2/6, against the Landau tail.

    >>> from scipy import special, stats
    >>> x = (2 / 6) / (1 / (0.5 / 0.01 + 0.5 / 0.04))
    >>> mu = np.log(6) + 1 + special.digamma(1) - np.log(2 / np.pi)
    >>> round(float(max(1 / x, stats.landau.sf(x, loc=mu, scale=np.pi / 2))), 4)
    0.061
    """
    P = np.asarray(p, dtype=np.float64)
    if P.ndim == 0 or P.shape[-1] == 0:
        raise InputError(
            f"p has shape {P.shape}; the last axis must hold the K >= 1 p-values of a group"
        )
    k = P.shape[-1]
    finite = P[~np.isnan(P)]
    if np.any((finite < 0) | (finite > 1)):
        raise InputError(
            "p-values must lie in [0, 1]", hint=f"got values from {finite.min()} to {finite.max()}"
        )
    w = _weights_iv(weights, k)
    if L is None:
        L = k
    if isinstance(L, bool) or not isinstance(L, (int, np.integer)) or k > L:
        raise InputError(
            f"L={L!r} must be an integer >= K = {k}",
            hint="L is the total number of tests in the family, e.g. "
            "(number of compared pairs) × K",
        )
    L = int(L)
    w_r = k / L
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(w > 0, w / P, np.where(np.isnan(P), np.nan, 0.0))
    s = np.sum(terms, axis=-1)  # Σ w_j / p_j  (inf if a p is 0)
    x = w_r * s  # Landau argument w_R / HMP
    with np.errstate(divide="ignore"):
        hmp = 1.0 / s
    loc = hmp_landau_location(L)
    tail = _dist.landau_sf(x, loc, LANDAU_SCALE)
    tail = np.where(np.isinf(x), 0.0, tail)
    p_value = np.maximum(hmp, w_r * tail)
    p_adjusted = np.minimum(1.0, p_value / w_r)
    nan = np.isnan(s)
    p_value = np.where(nan, np.nan, p_value)
    p_adjusted = np.where(nan, np.nan, p_adjusted)
    return HarmonicMeanPResult(
        hmp=hmp,
        p_value=p_value,
        p_adjusted=p_adjusted,
        weights=w,
        L=L,
        group_weight=w_r,
        location=loc,
    )


# ============================================================================ §6.2 effects


@dataclass(frozen=True)
class EffectSizeAggregate(TabularMixin):
    """Inverse-SD weighted effect sizes (Turner & Bernard 2006).

    Attributes
    ----------
    effect_size
        The aggregate effect, shape ``effects.shape[:-1]``.
    weights
        The effective weight of each constituent effect, :math:`(w_j/s_j) /
        \\sum_k (w_k/s_k)`, shape of the broadcast inputs.
    """

    effect_size: np.ndarray
    weights: np.ndarray

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per group (leading axes flattened in C order)."""
        e = floats(self.effect_size)
        w = self.weights.reshape(len(e), -1)
        return columns_to_records({"effect_size": e, "weights": [floats(row) for row in w]})

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the method and the per-group records."""
        return {
            "method": "inverse-SD weighted mean (Turner & Bernard 2006)",
            "groups": self.to_records(),
        }


def aggregate_effect_sizes(
    effects: Any, sds: Any, *, weights: Sequence[float] | np.ndarray | None = None
) -> EffectSizeAggregate:
    """Aggregate effect sizes across lists, weighting by inverse SD (Ackerman et al. 2025, §6.2).

    Parameters
    ----------
    effects
        Effect sizes, shape ``(..., K)`` (e.g. pairs × lists): Cohen's d, paired d or
        Cohen's h of one pair on each of K lists, signed so that positive favours the
        same system on every list.
    sds
        The SD in the denominator of each effect, computed on the standardized metric
        values (Ackerman et al. 2025, §6.1); broadcastable to ``effects``. Must be positive.
    weights
        Optional metric weights :math:`w_j` (normalised to sum 1; default equal).

    Returns
    -------
    EffectSizeAggregate

    Raises
    ------
    InputError
        Shapes do not broadcast, an SD is zero or negative, bad weights.

    Notes
    -----
    .. math:: e_{ab} = \\frac{\\sum_j (w_j / s_{ab,j})\\, e_{ab,j}}
                              {\\sum_j w_j / s_{ab,j}}

    so that less variable effects get more weight (Turner, H. M. & Bernard, R. M.
    (2006). Calculating and synthesizing effect sizes. Contemporary Issues in
    Communication Science and Disorders 33, 42–55; Ackerman et al. 2025, §6.2). The aggregate is a
    convex combination of the constituents, so Cohen's thresholds still apply. NaN
    effects or SDs give a NaN aggregate for their group.

    References
    ----------
    .. [1] Turner, H. M. & Bernard, R. M. (2006). Calculating and synthesizing effect sizes.
           Contemp. Issues Commun. Sci. Disord. 33, 42-55.
    .. [2] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §6.2.

    Examples
    --------
    >>> round(float(aggregate_effect_sizes([0.2, 0.8], [1.0, 3.0]).effect_size), 6)
    0.35
    >>> round((0.2 / 1.0 + 0.8 / 3.0) / (1 / 1.0 + 1 / 3.0), 6)  # weights 1/SD, by hand
    0.35
    """
    e = np.asarray(effects, dtype=np.float64)
    s = np.asarray(sds, dtype=np.float64)
    try:
        e, s = np.broadcast_arrays(e, s)
    except ValueError:
        raise InputError(
            f"effects (shape {np.shape(effects)}) and sds (shape {np.shape(sds)}) do not broadcast"
        ) from None
    if e.ndim == 0 or e.shape[-1] == 0:
        raise InputError("effects must have a last axis of K >= 1 lists")
    if np.any(s[~np.isnan(s)] <= 0):
        raise InputError(
            "sds must be positive", hint="an effect with zero SD is undefined; drop that list"
        )
    w = _weights_iv(weights, e.shape[-1])
    inv = w / s
    total = inv.sum(axis=-1, keepdims=True)
    eff_w = inv / total
    agg = np.sum(eff_w * e, axis=-1)
    return EffectSizeAggregate(effect_size=agg, weights=eff_w)


# ============================================================================ §6.3


@dataclass(frozen=True)
class UnpairedMeansAggregate(TabularMixin):
    """Standardized aggregate means of systems over unpaired lists (Ackerman et al. 2025, §6.3).

    Attributes
    ----------
    systems, lists
        Names.
    scores
        :math:`\\hat V_b = \\sum_j w_j I_j \\hat V_{bj}`, one per system (higher better).
    standardized
        :math:`\\hat V_{bj} = \\bar V_{bj} / (S_{\\cdot j}\\sqrt{\\sum_b 1/n_{bj}})`,
        systems × lists.
    pooled_sd
        :math:`S_{\\cdot j}`, per list.
    denominator
        :math:`S_{\\cdot j}\\sqrt{\\sum_b 1/n_{bj}}`, per list.
    weights, directions
        Per list.
    """

    systems: tuple[str, ...]
    lists: tuple[str, ...]
    scores: np.ndarray
    standardized: np.ndarray
    pooled_sd: np.ndarray
    denominator: np.ndarray
    weights: np.ndarray
    directions: tuple[Direction, ...]

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system: name, aggregate score and per-list standardized means."""
        return columns_to_records(
            {
                "system": self.systems,
                "score": floats(self.scores),
                "standardized": [
                    dict(zip(self.lists, floats(row))) for row in np.asarray(self.standardized)
                ],
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per-list parameters and per-system records."""
        return {
            "method": "standardized unpaired means (Ackerman et al. 2025, §6.3)",
            "lists": [
                {
                    "list": lst,
                    "weight": float(self.weights[j]),
                    "direction": self.directions[j],
                    "pooled_sd": _num(self.pooled_sd[j]),
                    "denominator": _num(self.denominator[j]),
                }
                for j, lst in enumerate(self.lists)
            ],
            "systems": self.to_records(),
        }


def aggregate_unpaired_means(
    means: Any,
    sds: Any,
    ns: Any,
    *,
    directions: Sequence[Direction] | Direction,
    weights: Sequence[float] | np.ndarray | None = None,
    systems: Sequence[str] | None = None,
    lists: Sequence[str] | None = None,
) -> UnpairedMeansAggregate:
    """Standardized aggregate means from summary statistics (Ackerman et al. 2025, §6.3).

    Parameters
    ----------
    means, sds, ns
        Systems × lists (B × K) arrays: each system's sample mean, sample SD (ddof = 1)
        and sample size on each unpaired score sample list (dataset or metric).
    directions
        Per list, ``"higher"`` or ``"lower"`` is better.
    weights
        List weights (normalised to sum to 1; default equal) — the same as those of
        :func:`harmonic_mean_pvalue`.
    systems, lists
        Names.

    Returns
    -------
    UnpairedMeansAggregate

    Raises
    ------
    InputError
        Shapes differ, non-finite values, negative SD, a size below 1, or no residual
        degrees of freedom on a list (:math:`\\sum_b n_{bj} \\le B`).

    Warns
    -----
    DegenerateDataWarning
        A list's pooled SD is 0: its standardized means are NaN, and so are the
        aggregates.

    Notes
    -----
    Following Ackerman et al. 2025, §6.3 step by step, for list j:

    .. math:: S_{\\cdot j} = \\sqrt{\\frac{\\sum_b (n_{bj} - 1) S_{bj}^2}
                                          {\\sum_b n_{bj} - B}},\\qquad
              \\hat V_{bj} = \\frac{\\bar V_{bj}}{S_{\\cdot j}\\sqrt{\\sum_b 1/n_{bj}}},
              \\qquad \\hat V_b = \\sum_j w_j I_j \\hat V_{bj}.

    :math:`S_{\\cdot j}\\sqrt{\\sum_b 1/n_{bj}}` generalises the denominator of the
    independent-samples t-test, :math:`S_p\\sqrt{1/n_1 + 1/n_2}`, to B systems. As the
    seed writes, the means are divided by this SD but not centred: centring list j at
    any constant :math:`c_j` would shift every system's aggregate by the same
    :math:`w_j I_j c_j / D_j`, so differences and the ordering of systems do not depend
    on it. Units and scale of a list cancel (rescaling a list's scores leaves
    :math:`\\hat V_{bj}` unchanged).

    References
    ----------
    .. [1] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §6.3.

    Examples
    --------
    >>> agg = aggregate_unpaired_means([[0.5, 10.], [0.6, 8.]], [[0.5, 4.], [0.5, 4.]],
    ...                                [[100, 50], [100, 50]],
    ...                                directions=["higher", "lower"])
    >>> agg.systems, bool(agg.scores[1] > agg.scores[0])
    (('system 1', 'system 2'), True)

    By hand: list j's denominator is the pooled SD times sqrt(sum of 1/n).

    >>> d_acc = np.sqrt((99 * 0.25 + 99 * 0.25) / 198) * np.sqrt(2 / 100)
    >>> d_err = np.sqrt((49 * 16 + 49 * 16) / 98) * np.sqrt(2 / 50)
    >>> [round(float(v), 4) for v in agg.scores], round(float(0.5 * 0.5 / d_acc - 5 / d_err), 4)
    ([-2.7145, -0.7574], -2.7145)
    """
    M = np.asarray(means, dtype=np.float64)
    S = np.asarray(sds, dtype=np.float64)
    N = np.asarray(ns, dtype=np.float64)
    M, S, N = (a.reshape(-1, 1) if a.ndim == 1 else a for a in (M, S, N))
    if M.ndim != 2 or S.shape != M.shape or N.shape != M.shape:
        raise InputError(
            f"means, sds and ns must be systems × lists arrays of the same "
            f"shape, got {np.shape(means)}, {np.shape(sds)}, {np.shape(ns)}"
        )
    b, k = M.shape
    for name, arr in (("means", M), ("sds", S), ("ns", N)):
        if not np.all(np.isfinite(arr)):
            raise InputError(
                f"{name} has missing or infinite values",
                hint="every system needs summary statistics on every list",
            )
    if np.any(S < 0):
        raise InputError("sds must be non-negative")
    if np.any(N < 1) or np.any(np.round(N) != N):
        raise InputError("ns must be positive integers (sample sizes)")
    dirs = _directions_iv(directions, k)
    w = _weights_iv(weights, k)
    sys_names = _names(systems, b, "system")
    list_names = _names(lists, k, "list")
    dof = N.sum(axis=0) - b
    if np.any(dof <= 0):
        bad = [list_names[j] for j in np.flatnonzero(dof <= 0)]
        raise InputError(
            f"{'list' if len(bad) == 1 else 'lists'} {', '.join(bad)} "
            f"{'has' if len(bad) == 1 else 'have'} no degrees of freedom for a "
            "pooled SD (sum of n <= number of systems)",
            hint="each list needs more observations than systems",
        )
    pooled = np.sqrt(np.sum((N - 1) * S**2, axis=0) / dof)
    denom = pooled * np.sqrt(np.sum(1.0 / N, axis=0))
    zero = denom <= 0
    if zero.any():
        warnings.warn(
            f"{'list' if zero.sum() == 1 else 'lists'} "
            f"{', '.join(list_names[j] for j in np.flatnonzero(zero))} "
            f"{'has' if zero.sum() == 1 else 'have'} pooled SD 0; "
            f"{'its' if zero.sum() == 1 else 'their'} standardized means are NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        z = M / np.where(zero, np.nan, denom)
    scores = z @ (w * _signs(dirs))
    return UnpairedMeansAggregate(
        systems=sys_names,
        lists=list_names,
        scores=scores,
        standardized=z,
        pooled_sd=pooled,
        denominator=denom,
        weights=w,
        directions=dirs,
    )


# ===================================================================== clawRxiv 2604.01973, §6


@dataclass(frozen=True)
class SignTestResult(TabularMixin):
    """Sign test of "A wins on more subtasks than B" (clawRxiv 2604.01973, §6).

    Attributes
    ----------
    wins_a, wins_b, ties
        Subtasks won by A, by B, tied.
    n
        Binomial size used: ``wins_a + wins_b`` (``ties="drop"``) or the total number
        of subtasks (``ties="count"``).
    p_value
        Two-sided :math:`\\min(1, 2\\Pr[X \\ge \\max(W_A, W_B)])`, X ~ Binom(n, 1/2).
    ties_handling
        ``"drop"`` or ``"count"``.
    """

    wins_a: np.ndarray
    wins_b: np.ndarray
    ties: np.ndarray
    n: np.ndarray
    p_value: np.ndarray
    ties_handling: Ties

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per comparison (flattened in C order)."""
        return columns_to_records(
            {
                "wins_a": ints(self.wins_a),
                "wins_b": ints(self.wins_b),
                "ties": ints(self.ties),
                "n": ints(self.n),
                "p_value": floats(self.p_value),
                "ties_handling": self.ties_handling,
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the test name and the records."""
        return {
            "test": "exact sign test on subtask wins (clawRxiv 2604.01973, §6)",
            "alternative": "two-sided",
            "comparisons": self.to_records(),
        }


def sign_test_wins(
    wins_a: Any, wins_b: Any, *, total: Any = None, ties: Ties = "drop"
) -> SignTestResult:
    """Exact two-sided sign test on the number of subtasks each system wins.

    Parameters
    ----------
    wins_a, wins_b
        Numbers of subtasks (datasets, metrics) won by A and by B; integers or arrays
        of them (broadcast together).
    total
        Number of subtasks K (default ``wins_a + wins_b``); ``total − wins_a − wins_b``
        subtasks are ties.
    ties
        ``"drop"`` (default): the classical sign test, ties removed, n = W_A + W_B.
        ``"count"``: the formula of clawRxiv 2604.01973 with n = K, the total number of
        subtasks, including ties — valid but conservative when there are ties (under the null
        the ties lower both win counts), and 1 whenever ``max(W_A, W_B) <= K/2``.

    Returns
    -------
    SignTestResult

    Raises
    ------
    InputError
        Negative or non-integer counts, wins exceeding the total, unknown ``ties``.

    Notes
    -----
    .. math:: p = \\min\\{1,\\; 2 \\Pr[X \\ge \\max(W_A, W_B)]\\},\\quad
              X \\sim \\mathrm{Binom}(n, 1/2)

    (clawRxiv 2604.01973, §6; equal to ``scipy.stats.binomtest(W_A, n).pvalue``, since the null
    distribution is symmetric). With no ties, K = 22, W_A = 14 gives p = 0.286. With
    n = 0 (every subtask tied, or none) p = 1.

    References
    ----------
    .. [1] Dixon, W. J. & Mood, A. M. (1946). The statistical sign test. J. Amer. Statist. Assoc.
           41(236), 557-566.
    .. [2] Multiple-testing corrections for modern language model benchmark suites (2026). clawRxiv
           2604.01973. §6.

    Examples
    --------
    >>> round(float(sign_test_wins(14, 8).p_value), 3)
    0.286
    >>> from scipy import stats
    >>> round(float(stats.binomtest(14, 22).pvalue), 3)
    0.286
    """
    if ties not in get_args(Ties):
        raise InputError(f"ties={ties!r} is not valid", hint="use 'drop' or 'count'")
    arrays = []
    for name, value in (("wins_a", wins_a), ("wins_b", wins_b)):
        arr = np.asarray(value, dtype=np.float64)
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
            raise InputError(f"{name}={value!r} must be non-negative integers")
        arrays.append(arr)
    a, b = np.broadcast_arrays(*arrays)
    if total is None:
        k = a + b
    else:
        k = np.asarray(total, dtype=np.float64)
        if not np.all(np.isfinite(k)) or np.any(k != np.round(k)):
            raise InputError(f"total={total!r} must be integers")
        a, b, k = np.broadcast_arrays(a, b, k)
        if np.any(a + b > k):
            raise InputError(
                "wins_a + wins_b exceeds total",
                hint="total is the number of subtasks, ties included",
            )
    tie = k - a - b
    n = a + b if ties == "drop" else k
    top = np.maximum(a, b)
    p = np.minimum(1.0, 2.0 * _dist.binom_sf(top - 1, n, 0.5))
    p = np.where(n == 0, 1.0, p)

    def as_int(x: np.ndarray) -> np.ndarray:
        return x.astype(np.int64)

    return SignTestResult(
        wins_a=as_int(a),
        wins_b=as_int(b),
        ties=as_int(tie),
        n=as_int(np.asarray(n)),
        p_value=p,
        ties_handling=ties,
    )


# ============================================================================ Demšar 2006


@dataclass(frozen=True)
class FriedmanNemenyiResult(TabularMixin):
    """Friedman test and Nemenyi critical difference (Demšar 2006).

    Attributes
    ----------
    systems
        System names.
    average_ranks
        Mean rank of each system over the blocks (1 = best; ties get average ranks).
    statistic, df, p_value
        Friedman's :math:`\\chi^2_F` (tie-corrected), its k − 1 degrees of freedom and
        chi-square p-value.
    iman_davenport, iman_davenport_p_value
        Iman & Davenport's :math:`F_F` and its p-value on (k − 1, (k − 1)(N − 1)) df
        (Demšar's recommended, less conservative version).
    q_alpha
        Studentized range quantile / √2 at ``1 − alpha`` for k systems, infinite df.
    critical_difference
        :math:`CD = q_\\alpha\\sqrt{k(k+1)/(6N)}`.
    nemenyi_p
        k × k matrix of Nemenyi two-sided p-values of the rank differences.
    groups
        Maximal sets (of size ≥ 2) of systems, consecutive in rank order, whose average
        ranks differ by less than CD: the bars of a critical-difference diagram.
    alpha, n_blocks, direction
        The options and the number N of blocks.
    """

    systems: tuple[str, ...]
    average_ranks: np.ndarray
    statistic: float
    df: int
    p_value: float
    iman_davenport: float
    iman_davenport_p_value: float
    q_alpha: float
    critical_difference: float
    nemenyi_p: np.ndarray
    groups: tuple[tuple[str, ...], ...]
    alpha: float
    n_blocks: int
    direction: Direction

    def order(self) -> tuple[str, ...]:
        """Systems from best (lowest average rank) to worst."""
        return tuple(self.systems[i] for i in np.argsort(self.average_ranks, kind="stable"))

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system, best first: name and average rank."""
        idx = np.argsort(self.average_ranks, kind="stable")
        return columns_to_records(
            {
                "system": tuple(self.systems[i] for i in idx),
                "average_rank": floats(np.asarray(self.average_ranks)[idx], nan_as_none=False),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the tests, CD and the data of a critical-difference diagram."""
        return {
            "test": "Friedman",
            "statistic": _num(self.statistic),
            "df": self.df,
            "p_value": _num(self.p_value),
            "iman_davenport": _num(self.iman_davenport),
            "iman_davenport_p_value": _num(self.iman_davenport_p_value),
            "post_hoc": "Nemenyi",
            "alpha": self.alpha,
            "q_alpha": self.q_alpha,
            "critical_difference": self.critical_difference,
            "n_blocks": self.n_blocks,
            "n_systems": len(self.systems),
            "direction": self.direction,
            "systems": self.to_records(),
            "groups": [list(g) for g in self.groups],
            "nemenyi_p": [[_num(v) for v in row] for row in self.nemenyi_p],
        }


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Demšar's :math:`q_\\alpha`: the ``1 − alpha`` quantile of the studentized range of
    k means with infinite df, divided by √2.

    References
    ----------
    .. [1] Nemenyi, P. B. (1963). Distribution-free multiple comparisons. PhD thesis, Princeton
           University.
    .. [2] Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. J.
           Mach. Learn. Res. 7, 1-30 (§3.2.2).
    """
    return _dist.studentized_range_ppf(1.0 - alpha, k) / math.sqrt(2.0)


def friedman_nemenyi(
    scores: Any,
    *,
    alpha: float = 0.05,
    direction: Direction = "higher",
    systems: Sequence[str] | None = None,
) -> FriedmanNemenyiResult:
    """Friedman test over blocks and the Nemenyi critical difference (Demšar 2006).

    Parameters
    ----------
    scores
        Systems × blocks matrix (k × N): e.g. each system's mean score on each of N
        datasets. Systems are ranked within each block.
    alpha
        Level of the Nemenyi critical difference.
    direction
        ``"higher"`` (default): the highest score gets rank 1; ``"lower"``: the lowest.
    systems
        System names.

    Returns
    -------
    FriedmanNemenyiResult

    Raises
    ------
    InputError
        Not a 2-D array, fewer than 2 systems or blocks, non-finite values, bad options.

    Warns
    -----
    DegenerateDataWarning
        Every block is fully tied: the Friedman statistic is undefined (NaN).

    Notes
    -----
    With :math:`r_{ij}` the rank of system j in block i (average ranks for ties) and
    :math:`R_j = \\frac1N\\sum_i r_{ij}`,

    .. math:: \\chi^2_F = \\frac{\\frac{12N}{k(k+1)}\\left[\\sum_j R_j^2 -
              \\frac{k(k+1)^2}{4}\\right]}{1 - \\frac{\\sum (t^3 - t)}{N k (k^2 - 1)}},
              \\qquad F_F = \\frac{(N-1)\\chi^2_F}{N(k-1) - \\chi^2_F},

    the denominator of :math:`\\chi^2_F` correcting for tie groups of size t (as SciPy's
    ``friedmanchisquare``). Two systems differ (Nemenyi) when
    :math:`|R_i - R_j| \\ge CD = q_\\alpha\\sqrt{k(k+1)/(6N)}`, with
    :math:`q_\\alpha` the studentized range quantile divided by √2; the p-value of a
    pair is :math:`\\Pr[Q_{k,\\infty} \\ge \\sqrt2 |R_i - R_j| /
    \\sqrt{k(k+1)/(6N)}]` (Demšar 2006, §3.2.2).

    References
    ----------
    .. [1] Friedman, M. (1937). The use of ranks to avoid the assumption of normality implicit in
           the analysis of variance. J. Amer. Statist. Assoc. 32(200), 675-701.
    .. [2] Iman, R. L. & Davenport, J. M. (1980). Approximations of the critical region of the
           Friedman statistic. Commun. Statist. Theory Methods 9(6), 571-595.
    .. [3] Nemenyi, P. B. (1963). Distribution-free multiple comparisons. PhD thesis, Princeton
           University.
    .. [4] Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. J.
           Mach. Learn. Res. 7, 1-30 (§3.2.2; Table 5a, the critical values of the Nemenyi
           test).

    Examples
    --------
    >>> scores = [[0.9, 0.8, 0.7, 0.9], [0.6, 0.5, 0.6, 0.4], [0.3, 0.2, 0.5, 0.1]]
    >>> res = friedman_nemenyi(scores, systems=["a", "b", "c"])
    >>> res.average_ranks
    array([1., 2., 3.])
    >>> from scipy import stats
    >>> float(res.statistic), float(stats.friedmanchisquare(*scores).statistic)
    (8.0, 8.0)
    >>> round(res.critical_difference, 3)  # q = 2.343 (Demšar 2006, Table 5a) * sqrt(3*4/(6*4))
    1.657
    """
    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise InputError(
            f"scores must be a systems × blocks matrix with at least 2 of each, got shape {X.shape}"
        )
    if not np.all(np.isfinite(X)):
        raise InputError(
            "scores has missing or infinite values",
            hint="the Friedman test needs every system on every block",
        )
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InputError(f"alpha={alpha!r} must be between 0 and 1 (exclusive)")
    if direction not in get_args(Direction):
        raise InputError(f"direction={direction!r} is not valid", hint="use 'higher' or 'lower'")
    k, n = X.shape
    names = system_names(systems, k)
    signed = -X if direction == "higher" else X
    ranks = average_ranks(signed, axis=0)  # rank within each block (column)
    avg = ranks.mean(axis=1)
    # tie correction: Σ (t³ − t) over tie groups of every block
    ties = 0.0
    for col in np.sort(signed, axis=0).T:
        _, counts = np.unique(col, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
    correction = 1.0 - ties / (n * k * (k * k - 1))
    raw = 12.0 * n / (k * (k + 1)) * (np.sum(avg**2) - k * (k + 1) ** 2 / 4.0)
    if correction <= 0:
        warnings.warn(
            "every block is fully tied; the Friedman statistic is undefined",
            DegenerateDataWarning,
            stacklevel=2,
        )
        chi2 = p_chi2 = ff = p_ff = math.nan
    else:
        chi2 = float(raw / correction)
        p_chi2 = float(_dist.chi2_sf(chi2, k - 1))
        den = n * (k - 1) - chi2
        ff = (n - 1) * chi2 / den if den > 0 else math.inf
        p_ff = float(_dist.f_sf(ff, k - 1, (k - 1) * (n - 1))) if den > 0 else 0.0
    q = nemenyi_q(k, float(alpha))
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    cd = q * se
    diff = np.abs(avg[:, None] - avg[None, :])
    iu = np.triu_indices(k, 1)
    pm = np.ones((k, k))
    pv = _dist.studentized_range_sf(math.sqrt(2.0) * diff[iu] / se, k)
    pm[iu] = np.clip(pv, 0.0, 1.0)
    pm[(iu[1], iu[0])] = pm[iu]
    order = np.argsort(avg, kind="stable")
    sorted_r = avg[order]
    groups: list[tuple[str, ...]] = []
    last_end = -1
    for i in range(k):
        j = i
        while j + 1 < k and sorted_r[j + 1] - sorted_r[i] < cd:
            j += 1
        if j > i and j > last_end:
            groups.append(tuple(names[order[m]] for m in range(i, j + 1)))
            last_end = j
    return FriedmanNemenyiResult(
        systems=names,
        average_ranks=avg,
        statistic=chi2,
        df=k - 1,
        p_value=p_chi2,
        iman_davenport=float(ff),
        iman_davenport_p_value=p_ff,
        q_alpha=q,
        critical_difference=cd,
        nemenyi_p=pm,
        groups=tuple(groups),
        alpha=float(alpha),
        n_blocks=n,
        direction=direction,
    )

"""The noise profile of a benchmark (eval-arena, Wang et al. 2024): how large a difference
between two systems has to be before it is more than noise.

Every pair of systems of one dataset × metric is compared with the two-sided exact sign
test, and the pairs are summarised into benchmark-level figures:

- ``p5_min``: the smallest accuracy difference of a pair with p < 0.05, and ``p5_max``:
  the largest difference of a pair with p >= 0.05 (both in items and as a share of n);
- the implied SD of the null hypothesis, ``p5_min / (sqrt(2) * 1.96)``;
- the median standard errors of one system's accuracy and of a paired difference over
  the *close* pairs;
- the data behind eval-arena's two figures (p-value vs |difference|, and |A − B| vs
  A + B with the curves where the exact test reaches α = 0.05, 0.1, 0.2);
- with a known number of samples per item (``count``, or a runs axis), the split of the
  variance of a system's mean into data noise (sampling items) and prediction noise
  (sampling the answers);
- with model families and sizes, eval-arena's signal-to-noise ratio per doubling of size.

Discordant counts of all pairs come from matrix products (binary: ``Xᵀ(1 − X)``;
fractional: one product per score level, e.g. 11 for shares of 10 samples), not from a
loop over pairs; only scores with more than 64 distinct levels are compared as explicit
differences, in memory-bounded chunks of pairs.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
from scipy import special

from reportgen.errors import DataWarning, DegenerateDataWarning, InputError
from reportgen.plaintext import count, verb
from reportgen.records import bools, columns_to_records, floats, ints
from reportgen.stats import _dist
from reportgen.stats._common import TabularMixin, system_names
from reportgen.stats._common import finite_or_none as _num
from reportgen.stats._resampling import DEFAULT_MAX_MEMORY, chunk_sizes

__all__ = [
    "BOUNDARY_ALPHAS",
    "NULL_SD_DIVISOR",
    "NoiseProfile",
    "PredictionNoise",
    "SignalToNoise",
    "noise_profile",
    "prediction_noise",
    "sign_test_boundary",
    "signal_to_noise",
]

#: The significance levels of eval-arena's |A − B| vs A + B figure.
BOUNDARY_ALPHAS: tuple[float, ...] = (0.05, 0.1, 0.2)

#: ``sqrt(2) * 1.96``: p5 divided by this is the implied SD of the null (Wang et al. 2024).
NULL_SD_DIVISOR: float = math.sqrt(2) * 1.96

#: The level that defines p5_min and p5_max.
P5_ALPHA: float = 0.05

#: Share of the pairs used as "close" when no pair is non-significant.
CLOSE_QUANTILE: float = 0.2

#: Score levels closer than this (relative to the score range) are one level (ties).
_LEVEL_TOL: float = 1e-9

#: Above this many distinct score levels, wins are counted from explicit differences.
_MAX_LEVELS: int = 64

SnrSE = Literal["paired", "sign-test"]
Modality = Literal["binary", "continuous"]


def _median(values: np.ndarray) -> float:
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    return float(np.median(values)) if values.size else math.nan


# ============================================================================ results


@dataclass(frozen=True)
class PredictionNoise(TabularMixin):
    """Data noise and prediction noise of each system's mean score.

    All ``*_var`` arrays are variances of a system's mean score (one entry per system);
    ``total_var = data_var + prediction_var`` exactly.

    Attributes
    ----------
    systems
        System names.
    n_items
        Items per system.
    samples
        Samples (``count``, or runs) behind each system's item scores: the smallest
        per-item number when it varies across items.
    total_var
        :math:`s^2_x / n`: sample variance (ddof 1) of the item scores over n.
    prediction_var
        :math:`\\frac{1}{n^2}\\sum_i \\hat\\sigma^2_i / k_i`: the part from sampling the
        k answers per item; NaN when some item has fewer than 2 samples.
    data_var
        ``total_var − prediction_var``: the part from sampling items. An unbiased
        estimate, so it can come out negative when the prediction noise dominates.
    """

    systems: tuple[str, ...]
    n_items: int
    samples: np.ndarray
    total_var: np.ndarray
    data_var: np.ndarray
    prediction_var: np.ndarray

    @property
    def se_total(self) -> np.ndarray:
        """``sqrt(total_var)``: the SE of each system's mean score."""
        return np.sqrt(self.total_var)

    @property
    def se_data(self) -> np.ndarray:
        """``sqrt(max(data_var, 0))``."""
        return np.sqrt(np.clip(self.data_var, 0, None))

    @property
    def se_prediction(self) -> np.ndarray:
        """``sqrt(prediction_var)``."""
        return np.sqrt(self.prediction_var)

    @property
    def prediction_share(self) -> np.ndarray:
        """``prediction_var / total_var`` (NaN when the total is 0 or undefined)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.total_var > 0, self.prediction_var / self.total_var, np.nan)

    @property
    def n_systems_split(self) -> int:
        """Systems whose variance could be split (every item has >= 2 samples)."""
        return int(np.count_nonzero(~np.isnan(self.prediction_var)))

    def summary(self) -> dict[str, Any]:
        """Medians over the systems whose variance could be split (NaN → None)."""
        ok = ~np.isnan(self.prediction_var)
        return {
            "n_systems": len(self.systems),
            "n_systems_split": self.n_systems_split,
            "median_se_total": _num(_median(self.se_total[ok])),
            "median_se_data": _num(_median(self.se_data[ok])),
            "median_se_prediction": _num(_median(self.se_prediction[ok])),
            "median_prediction_share": _num(_median(self.prediction_share[ok])),
        }

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (NaN → None)."""
        return columns_to_records(
            {
                "system": self.systems,
                "n_items": self.n_items,
                "samples": ints(self.samples),
                "total_var": floats(self.total_var),
                "data_var": floats(self.data_var),
                "prediction_var": floats(self.prediction_var),
                "se_total": floats(self.se_total),
                "se_data": floats(self.se_data),
                "se_prediction": floats(self.se_prediction),
                "prediction_share": floats(self.prediction_share),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """The summary plus the per-system records under ``"systems"``."""
        return {**self.summary(), "systems": self.to_records()}


@dataclass(frozen=True)
class SignalToNoise(TabularMixin):
    """eval-arena's signal-to-noise ratio of same-family pairs of different sizes.

    Arrays have one entry per pair; system ``index_a[k]`` is the larger model.

    Attributes
    ----------
    systems
        System names (``index_a``/``index_b`` point into it).
    family, size_a, size_b
        The family of each pair and the sizes (billions of parameters) of its models.
    diff, se_diff
        ``acc(A) − acc(B)`` and its standard error (``se``).
    doublings
        ``log2(size_a / size_b)``.
    snr
        ``diff / se_diff / doublings``.
    n_items
        Items of the benchmark; ``snr / sqrt(n_items)`` is the ratio per √size
        (Wang et al. (2024) compares benchmarks "for their sizes").
    se
        ``"paired"`` (SE of the mean per-item difference) or ``"sign-test"``
        (``sqrt(A + B) / n``, eval-arena's ``signal_noise.py``).
    """

    systems: tuple[str, ...]
    index_a: np.ndarray
    index_b: np.ndarray
    family: tuple[str, ...]
    size_a: np.ndarray
    size_b: np.ndarray
    diff: np.ndarray
    se_diff: np.ndarray
    doublings: np.ndarray
    snr: np.ndarray
    n_items: int
    se: SnrSE

    @property
    def n_pairs(self) -> int:
        return len(self.index_a)

    @property
    def median_snr(self) -> float:
        """Median of ``snr`` over the pairs (NaN without pairs)."""
        return _median(self.snr)

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per pair (NaN → None)."""
        root = math.sqrt(self.n_items) if self.n_items else math.nan
        return columns_to_records(
            {
                "family": self.family,
                "system_a": tuple(self.systems[k] for k in self.index_a),
                "system_b": tuple(self.systems[k] for k in self.index_b),
                "size_a": floats(self.size_a, nan_as_none=False),
                "size_b": floats(self.size_b, nan_as_none=False),
                "doublings": floats(self.doublings, nan_as_none=False),
                "diff": floats(self.diff),
                "se_diff": floats(self.se_diff),
                "snr": floats(self.snr),
                "snr_per_sqrt_n": floats(np.asarray(self.snr) / root),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        root = math.sqrt(self.n_items) if self.n_items else math.nan
        return {
            "se": self.se,
            "n_pairs": self.n_pairs,
            "median_snr": _num(self.median_snr),
            "median_snr_per_sqrt_n": _num(self.median_snr / root),
            "pairs": self.to_records(),
        }


@dataclass(frozen=True)
class NoiseProfile:
    """The noise profile of one dataset × metric over all pairs of systems.

    Per-pair arrays have one entry per pair ``(index_a[k], index_b[k])``, ``a < b``.

    Attributes
    ----------
    systems
        System names.
    n_items
        Items (n).
    modality
        ``"binary"`` (0/1 scores) or ``"continuous"`` (fractional, e.g. pass1 as the
        share of k samples).
    test
        The test behind ``p_value``; for binary data the exact McNemar test and the
        exact sign test are the same test.
    means
        Mean score of each system.
    diff
        ``means[a] − means[b]`` per pair.
    abs_diff_items
        ``|sum(x_a) − sum(x_b)| = n |diff|``, the difference in items: ``|b − c|``
        (eval-arena's |A − B|) for binary data, exact integers there.
    a_wins, b_wins
        Items where A scores higher than B, and the reverse (eval-arena's A and B; for
        binary data the discordant counts b and c).
    p_value
        Two-sided exact sign test of ``a_wins`` out of ``a_wins + b_wins`` at 1/2.
    se_diff
        SE of the mean per-item difference, ``sqrt(var0(x_a − x_b) / n)``.
    se_system
        SE of each system's mean, ``sqrt(var0(x) / n)`` (binary: ``sqrt(p(1 − p)/n)``).
    p5_min, p5_min_items, p5_max, p5_max_items
        Smallest ``|diff|`` among pairs with p < 0.05 and largest ``|diff|`` among pairs
        with p >= 0.05, as a share of n and in items (NaN when no such pair).
    null_sd, null_sd_items
        ``p5_min / (sqrt(2) * 1.96)`` as a share of n and in items.
    close, close_rule
        Mask of the close pairs and the rule that chose them.
    se_system_median, se_diff_median
        Medians over the close pairs of the SE of one system (both systems of every
        close pair) and of the paired difference.
    boundary_alphas, boundary_totals, boundary_abs_diff
        For each α and each total ``m = A + B`` in ``0..n``, the smallest ``|A − B|``
        with two-sided exact p < α (NaN where none is possible):
        ``boundary_abs_diff[i, m]`` for ``boundary_alphas[i]``.
    prediction
        Data vs prediction noise, when the samples per item are known; else ``None``.
    signal_to_noise
        When model families were given; else ``None``.
    notes
        Conventions worth stating in a report.
    """

    systems: tuple[str, ...]
    n_items: int
    modality: Modality
    test: str
    means: np.ndarray
    index_a: np.ndarray
    index_b: np.ndarray
    diff: np.ndarray
    abs_diff_items: np.ndarray
    a_wins: np.ndarray
    b_wins: np.ndarray
    p_value: np.ndarray
    se_diff: np.ndarray
    se_system: np.ndarray
    p5_min: float
    p5_min_items: float
    p5_max: float
    p5_max_items: float
    null_sd: float
    null_sd_items: float
    close: np.ndarray
    close_rule: str
    se_system_median: float
    se_diff_median: float
    boundary_alphas: tuple[float, ...]
    boundary_totals: np.ndarray
    boundary_abs_diff: np.ndarray
    prediction: PredictionNoise | None = None
    signal_to_noise: SignalToNoise | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_pairs(self) -> int:
        return len(self.index_a)

    @property
    def alpha(self) -> float:
        """The level of :attr:`n_significant` and of p5 (:data:`P5_ALPHA`)."""
        return P5_ALPHA

    @property
    def n_significant(self) -> int:
        """Pairs whose p-value is below the p5 level (:data:`P5_ALPHA`)."""
        return int(np.count_nonzero(self.p_value < P5_ALPHA))

    @property
    def n_close_pairs(self) -> int:
        """Pairs that are close by :attr:`close_rule`."""
        return int(np.count_nonzero(self.close))

    def min_significant_diff(self, alpha: float = P5_ALPHA) -> float:
        """Smallest ``|diff|`` (share of n) among pairs with p < ``alpha`` (NaN if none);
        ``p5_min`` is this at 0.05."""
        sel = self.p_value < alpha
        return float(self.abs_diff_items[sel].min()) / self.n_items if sel.any() else math.nan

    def max_nonsignificant_diff(self, alpha: float = P5_ALPHA) -> float:
        """Largest ``|diff|`` (share of n) among pairs with p >= ``alpha`` (NaN if none);
        ``p5_max`` is this at 0.05."""
        sel = self.p_value >= alpha
        return float(self.abs_diff_items[sel].max()) / self.n_items if sel.any() else math.nan

    def pair_records(self) -> list[dict[str, Any]]:
        """One dict per pair: the data of the p-value vs difference and the |A − B| vs
        A + B figures (NaN → None)."""
        a, b = np.asarray(self.index_a, dtype=np.intp), np.asarray(self.index_b, dtype=np.intp)
        means, a_wins, b_wins = np.asarray(self.means), self.a_wins, self.b_wins
        return columns_to_records(
            {
                "system_a": tuple(self.systems[k] for k in a),
                "system_b": tuple(self.systems[k] for k in b),
                "mean_a": floats(means[a]),
                "mean_b": floats(means[b]),
                "diff": floats(self.diff),
                "abs_diff": floats(np.asarray(self.abs_diff_items) / self.n_items),
                "abs_diff_items": floats(self.abs_diff_items),
                "a_wins": ints(a_wins),
                "b_wins": ints(b_wins),
                "sum_wins": ints(np.add(a_wins, b_wins)),
                "abs_diff_wins": ints(np.abs(np.subtract(a_wins, b_wins))),
                "p_value": floats(self.p_value),
                "significant": bools(np.asarray(self.p_value) < P5_ALPHA),
                "se_diff": floats(self.se_diff),
                "close": bools(self.close),
            }
        )

    def boundary_records(self) -> list[dict[str, Any]]:
        """One dict per (α, A + B) with the smallest significant |A − B| (or None)."""
        alphas, totals = self.boundary_alphas, self.boundary_totals
        return columns_to_records(
            {
                "alpha": [a for a in alphas for _ in totals],
                "sum_wins": ints(np.tile(np.asarray(totals), len(alphas))),
                "min_abs_diff_wins": floats(self.boundary_abs_diff),
            }
        )

    def to_dict(self, *, include_figure_data: bool = False) -> dict[str, Any]:
        """The ``noise`` section of results.json for this dataset × metric (NaN → None).

        Summary figures only, unless ``include_figure_data``: then also ``"pairs"``
        (:meth:`pair_records`) and ``"boundaries"`` (:meth:`boundary_records`).
        """
        out: dict[str, Any] = {
            "n_items": self.n_items,
            "n_systems": self.n_systems,
            "n_pairs": self.n_pairs,
            "modality": self.modality,
            "test": self.test,
            "alpha": P5_ALPHA,
            "n_significant": self.n_significant,
            "p5_min": _num(self.p5_min),
            "p5_min_items": _num(self.p5_min_items),
            "p5_max": _num(self.p5_max),
            "p5_max_items": _num(self.p5_max_items),
            "null_sd": _num(self.null_sd),
            "null_sd_items": _num(self.null_sd_items),
            "close_rule": self.close_rule,
            "n_close_pairs": self.n_close_pairs,
            "se_system_median": _num(self.se_system_median),
            "se_diff_median": _num(self.se_diff_median),
            "prediction_noise": None if self.prediction is None else self.prediction.to_dict(),
            "signal_to_noise": None
            if self.signal_to_noise is None
            else self.signal_to_noise.to_dict(),
            "notes": list(self.notes),
        }
        if include_figure_data:
            out["pairs"] = self.pair_records()
            out["boundaries"] = self.boundary_records()
        return out


# ============================================================================ inputs


@dataclass(frozen=True)
class _Data:
    X: np.ndarray  # items × systems item scores (means over runs)
    names: tuple[str, ...]
    modality: Modality
    item_pred_var: np.ndarray | None  # items × systems: estimated Var(item score | item)
    samples: np.ndarray | None  # items × systems: samples behind each item score


def _counts_iv(counts: Any, shape: tuple[int, int]) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    n, s = shape
    if c.ndim == 1 and c.shape == (s,) or c.ndim == 0 or c.shape == shape:
        c = np.broadcast_to(c, shape)
    else:
        raise InputError(
            f"counts has shape {c.shape}; scores has {n} items × {s} systems",
            hint="give one count for all, one per system, or an items × systems array",
        )
    if np.isnan(c).any() or (c < 1).any() or (c != np.round(c)).any():
        raise InputError(
            "counts must be positive integers (samples behind each score)",
            hint="use count = 1 for a single sample per item",
        )
    return c.astype(np.int64)


def _data_iv(
    scores: Any, systems: Sequence[str] | None, counts: Any, min_systems: int = 2
) -> _Data:
    S = np.asarray(scores, dtype=np.float64)
    if S.ndim not in (2, 3):
        raise InputError(
            f"scores must be items × systems (or items × systems × runs), got shape {S.shape}"
        )
    n, n_sys = S.shape[:2]
    names = system_names(systems, n_sys)
    if n_sys < min_systems:
        raise InputError(
            f"a noise profile needs at least {min_systems} systems, got {n_sys}",
            hint="pairs need two systems scored on the same items",
        )
    if n < 1:
        raise InputError("scores have no items")
    pred_var = samples = None
    if S.ndim == 3:
        if counts is not None:
            raise InputError(
                "counts given with a runs axis",
                hint="the runs axis already says how many samples each item has; drop counts",
            )
        k = np.sum(~np.isnan(S), axis=2)
        if (k == 0).any():
            raise InputError(
                "some item has no run for some system (all NaN)",
                hint="drop items not scored by every system",
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # ddof 1 with one run
            X = np.nanmean(S, axis=2)
            var = np.nanvar(S, axis=2, ddof=1)
        pred_var = np.where(k >= 2, var / k, np.nan)
        samples = k.astype(np.int64)
    else:
        X = S
        if np.isnan(X).any():
            raise InputError("scores contain NaN", hint="drop items not scored by every system")
        if counts is not None:
            samples = _counts_iv(counts, X.shape)
            if ((X < 0) | (X > 1)).any():
                raise InputError("with counts, scores must be shares in [0, 1]")
            passed = X * samples
            if (np.abs(passed - np.round(passed)) > 1e-6 * samples).any():
                raise InputError(
                    "some score is not a share of its count of samples "
                    "(score × count is not an integer)",
                    hint="check that counts match the scores (pass1 = passed / count)",
                )
            with np.errstate(invalid="ignore", divide="ignore"):
                # unbiased: E[x(1 − x)] = p(1 − p)(1 − 1/k), so x(1 − x)/(k − 1)
                # estimates p(1 − p)/k, the variance of the share of k samples
                pred_var = np.where(samples >= 2, X * (1 - X) / (samples - 1), np.nan)
    binary = bool(np.all((X == 0) | (X == 1)))
    return _Data(X, names, "binary" if binary else "continuous", pred_var, samples)


def _alphas_iv(alphas: Sequence[float]) -> tuple[float, ...]:
    out = tuple(float(a) for a in alphas)
    if not out or any(not 0 < a < 1 for a in out):
        raise InputError(
            f"boundary_alphas={alphas!r} must be levels between 0 and 1",
            hint=f"e.g. {BOUNDARY_ALPHAS}",
        )
    return out


# ============================================================================ pieces


def sign_test_boundary(totals: Any, *, alpha: float = 0.05) -> np.ndarray:
    """Smallest ``|A − B|`` at which the two-sided exact sign test gives p < ``alpha``,
    for each total ``m = A + B``.

    Parameters
    ----------
    totals
        Non-negative integers ``m`` (number of non-tied items).
    alpha
        Significance level, 0 < alpha < 1.

    Returns
    -------
    numpy.ndarray
        Float array shaped like ``totals``; NaN where no split of ``m`` reaches p < alpha
        (small m).

    Notes
    -----
    With ``j = min(A, B)`` the two-sided p-value is :math:`\\min(1, 2F(j; m, 1/2))`, which
    increases with j, so the boundary is ``m − 2 j*`` with j* the largest j with
    :math:`2F(j; m, 1/2) < \\alpha`. eval-arena draws the continuity-corrected chi-square
    approximation :math:`1 + \\sqrt{m\\,\\chi^2_{1,1-\\alpha}}` instead; this is the exact
    curve of the test whose p-values are reported.

    References
    ----------
    .. [1] Dixon, W. J. & Mood, A. M. (1946). The statistical sign test. J. Amer. Statist. Assoc.
           41(236), 557-566.
    .. [2] Wang, S. I., Gu, A., Madaan, L., Hupkes, D., Liu, J., Wei, Y., Jain, N., Lai, Y., Sootla,
           S., Press, O., Rozière, B. & Synnaeve, G. (2024). Eval-Arena: noise and errors on LLM
           evaluations. https://github.com/crux-eval/eval-arena

    Examples
    --------
    >>> sign_test_boundary([5, 6, 10, 20], alpha=0.05)
    array([nan,  6.,  8., 10.])

    By hand with scipy: 5-0 gives p = 2/32 > 0.05; 6-0 gives 2/64; 9-1 is significant but
    8-2 is not; 15-5 is but 14-6 is not.

    >>> from scipy import stats
    >>> [round(float(stats.binomtest(k, m).pvalue), 4) for k, m in
    ...  [(5, 5), (6, 6), (9, 10), (8, 10), (15, 20), (14, 20)]]
    [0.0625, 0.0312, 0.0215, 0.1094, 0.0414, 0.1153]
    """
    if not 0 < alpha < 1:
        raise InputError(f"alpha={alpha!r} must be between 0 and 1 (exclusive)")
    m = np.asarray(totals, dtype=np.float64)
    if np.isnan(m).any() or (m < 0).any() or (m != np.round(m)).any():
        raise InputError("totals must be non-negative integers")
    half = alpha / 2
    # start at the normal approximation of j* (within a few items of it), then step
    # until F(j) < half <= F(j + 1), with F the exact binomial cdf: I_{1/2}(m − j, j + 1)
    # (scipy.special.betainc, a ufunc), only where j still moves. scipy.stats' discrete
    # ppf searched step by step: 2.3 s for the 100,001 totals of 100,000 items.
    j = np.floor((m + special.ndtri(half) * np.sqrt(m)) / 2) - 1
    j = np.clip(j, -1.0, np.floor(m / 2))
    moving = np.arange(m.size)
    flat_j, flat_m = j.reshape(-1), m.reshape(-1)
    for _ in range(m.size + 2):  # each pass moves every unsettled j by one
        if not moving.size:
            break
        jj, mm = flat_j[moving], flat_m[moving]
        up = (jj + 1 <= mm / 2) & (2 * _binom_half_cdf(jj + 1, mm) < alpha)
        down = ~up & (jj >= 0) & (2 * _binom_half_cdf(jj, mm) >= alpha)
        flat_j[moving] = jj + up - down
        moving = moving[up | down]
    j = flat_j.reshape(m.shape)
    return np.where(j >= 0, m - 2 * j, np.nan)


def _binom_half_cdf(k: np.ndarray, m: np.ndarray) -> np.ndarray:
    """P(K <= k) for K ~ Bin(m, 1/2), as the regularized incomplete beta function
    I_{1/2}(m − k, k + 1); 0 for k < 0 and 1 for k >= m."""
    inside = (k >= 0) & (k < m)
    with np.errstate(invalid="ignore"):
        value = special.betainc(np.where(inside, m - k, 1.0), np.where(inside, k + 1, 1.0), 0.5)
    return np.where(inside, value, np.where(k < 0, 0.0, 1.0))


def _sign_pvalue(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two-sided exact sign test (= exact McNemar): ``min(1, 2 F(min(a, b); a + b, 1/2))``,
    equal to scipy ``binomtest(a, a + b, 0.5)`` (symmetric null); 1 without any win."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return np.minimum(1.0, 2 * _dist.binom_cdf(np.minimum(a, b), a + b, 0.5))


def _win_matrix(X: np.ndarray, binary: bool, max_memory: int) -> np.ndarray:
    """``W[i, j]`` = items where system i scores higher than system j."""
    n, s = X.shape
    if binary:
        return np.rint(X.T @ (1.0 - X))
    lo, hi = float(X.min()), float(X.max())
    tol = _LEVEL_TOL * max(1.0, hi - lo)
    values = np.unique(X)
    # one level per run of values closer than tol (float noise such as 0.30000000000000004)
    starts = np.concatenate([[True], np.diff(values) > tol])
    level_of = np.cumsum(starts) - 1
    n_levels = int(level_of[-1]) + 1
    codes = level_of[np.searchsorted(values, X)]
    if n_levels <= _MAX_LEVELS:
        W = np.zeros((s, s))
        below = np.zeros((n, s))
        for level in range(n_levels):
            at = (codes == level).astype(np.float64)
            if level:
                W += at.T @ below
            below += at
        return np.rint(W)
    # many distinct values: count from explicit differences, in chunks of pairs
    ia, ib = np.triu_indices(s, k=1)
    W = np.zeros((s, s))
    start = 0
    for size in chunk_sizes(len(ia), 16 * n, max_memory):
        sl = slice(start, start + size)
        D = codes[:, ia[sl]] - codes[:, ib[sl]]
        W[ia[sl], ib[sl]] = (D > 0).sum(axis=0)
        W[ib[sl], ia[sl]] = (D < 0).sum(axis=0)
        start += size
    return W


def prediction_noise(
    scores: Any, counts: Any = None, *, systems: Sequence[str] | None = None
) -> PredictionNoise:
    """Split the variance of each system's mean score into data and prediction noise.

    Parameters
    ----------
    scores
        ``(n_items, n_systems)`` shares of passed samples (with ``counts``), or
        ``(n_items, n_systems, n_runs)`` scores of repeated runs (NaN for a missing run).
    counts
        With 2-D scores: samples behind each score — one integer, one per system, or an
        items × systems array. Not allowed with a runs axis.
    systems
        Names of the systems.

    Returns
    -------
    PredictionNoise

    Raises
    ------
    InputError
        Bad shapes or counts, scores that are not shares of their count, 2-D scores
        without counts.

    Warns
    -----
    DegenerateDataWarning
        Systems with an item scored from a single sample (their prediction noise cannot
        be estimated: NaN), or fewer than 2 items (every variance NaN).

    Notes
    -----
    An item score :math:`x_i` is the mean of :math:`k_i` samples with per-sample mean
    :math:`p_i` and variance :math:`\\sigma^2_i` (Bernoulli: :math:`p_i(1-p_i)`). With
    items drawn from a population, the law of total variance gives (Miller 2024,
    *Adding Error Bars to Evals*, arXiv:2411.00640, resampling K answers per question;
    eval-arena ``noise.md``; Wang et al. 2025, *Measuring all the noises of LLM evals*,
    arXiv:2512.21326)

    .. math:: \\operatorname{Var}(\\bar x) = \\frac{\\operatorname{Var}(p_i)}{n}
              + \\frac{1}{n}\\operatorname{E}\\Big[\\frac{\\sigma^2_i}{k_i}\\Big]
              \\quad\\text{(data noise + prediction noise).}

    Estimators: total :math:`s_x^2/n` (ddof 1, unbiased for the left side); prediction
    :math:`\\frac{1}{n^2}\\sum_i \\hat\\sigma^2_i/k_i` with the per-item sample variance
    :math:`\\hat\\sigma^2_i` (ddof 1) of the k samples — for Bernoulli samples
    :math:`\\hat\\sigma^2_i/k_i = x_i(1-x_i)/(k_i-1)`, the small-k correction of the plug-in
    :math:`x_i(1-x_i)/k_i`, whose expectation is :math:`p_i(1-p_i)(k_i-1)/k_i^2`; data
    noise is the difference. Each is unbiased (conditionally on the items' :math:`p_i`,
    the data part estimates :math:`\\frac{1}{n}\\cdot\\frac{1}{n-1}\\sum_i (p_i-\\bar p)^2`).
    eval-arena's ``estimators.Single.from_samples_unbiasedK`` reports the same split for a
    single sample (prediction variance × k) with ddof 0 across items.

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
           evaluations. arXiv:2411.00640.
    .. [2] Wang, S. I., Gu, A., Madaan, L., Hupkes, D., Liu, J., Wei, Y., Jain, N., Lai, Y., Sootla,
           S., Press, O., Rozière, B. & Synnaeve, G. (2024). Eval-Arena: noise and errors on LLM
           evaluations. https://github.com/crux-eval/eval-arena

    Examples
    --------
    >>> x = np.array([[0.2, 1.0], [0.6, 0.0], [1.0, 0.0], [0.4, 1.0]])
    >>> r = prediction_noise(x, counts=5)
    >>> r.total_var.round(5), r.prediction_var.round(5), r.data_var.round(5)
    (array([0.02917, 0.08333]), array([0.01, 0.  ]), array([0.01917, 0.08333]))

    By hand for the first system: the variance (ddof 1) of the item means over n = 4,
    and the mean of p(1 - p)/(k - 1) over the items, over n.

    >>> p = x[:, 0]
    >>> round(float(p.var(ddof=1) / 4), 5), round(float((p * (1 - p) / 4).mean() / 4), 5)
    (0.02917, 0.01)
    """
    S = np.asarray(scores, dtype=np.float64)
    if S.ndim == 2 and counts is None:
        raise InputError(
            "prediction noise needs the number of samples behind each score",
            hint="pass counts (eval-arena's `count`) or scores with a runs axis",
        )
    data = _data_iv(S, systems, counts, min_systems=1)
    return _prediction_noise(data, stacklevel=3)


def _prediction_noise(data: _Data, stacklevel: int) -> PredictionNoise:
    assert data.item_pred_var is not None and data.samples is not None
    X = data.X
    n = X.shape[0]
    if n < 2:
        warnings.warn(
            "fewer than 2 items: the variance over items is undefined (NaN)",
            DegenerateDataWarning,
            stacklevel=stacklevel,
        )
        total = np.full(X.shape[1], np.nan)
    else:
        total = X.var(axis=0, ddof=1) / n
    pred = data.item_pred_var.sum(axis=0) / n**2  # NaN if any item has k < 2
    single = np.isnan(pred)
    if single.any():
        warnings.warn(
            f"{count(int(single.sum()), 'system')}"
            f" {verb(int(single.sum()), 'have', 'has')} items scored from a single "
            "sample: their prediction noise is not estimable (NaN) "
            f"({', '.join(np.asarray(data.names)[single])})",
            DegenerateDataWarning,
            stacklevel=stacklevel,
        )
    return PredictionNoise(data.names, n, data.samples.min(axis=0), total, total - pred, pred)


def _family_pairs(
    names: tuple[str, ...], families: Mapping[str, Any]
) -> list[tuple[int, int, str, float, float]]:
    info: dict[int, tuple[str, float]] = {}
    index = {name: k for k, name in enumerate(names)}
    for system, value in families.items():
        try:
            family, size = value
            size = float(size)
        except (TypeError, ValueError):
            raise InputError(
                f"families[{system!r}] = {value!r} is not (family, size)",
                hint="map each system to (family name, size in billions), "
                "e.g. {'llama-70b': ('llama', 70)}",
            ) from None
        if not (math.isfinite(size) and size > 0):
            raise InputError(f"families[{system!r}]: size {size!r} must be positive")
        if system in index:
            info[index[system]] = (str(family), size)
    pairs = []
    members = sorted(info)
    for x, i in enumerate(members):
        for j in members[x + 1 :]:
            (fam_i, size_i), (fam_j, size_j) = info[i], info[j]
            if fam_i != fam_j or size_i == size_j:
                continue
            big, small = (i, j) if size_i > size_j else (j, i)
            pairs.append((big, small, fam_i, max(size_i, size_j), min(size_i, size_j)))
    return pairs


def signal_to_noise(
    scores: Any,
    families: Mapping[str, tuple[str, float]],
    *,
    systems: Sequence[str] | None = None,
    se: SnrSE = "paired",
) -> SignalToNoise:
    """Signal-to-noise of a benchmark: size effects within model families (Wang et al. 2024).

    Parameters
    ----------
    scores
        ``(n_items, n_systems)`` scores (or ``items × systems × runs``, averaged).
    families
        System name → ``(family, size in billions)``. Systems missing from it, and
        entries for systems not in ``systems``, are ignored.
    systems
        Names of the columns (needed to match ``families``).
    se
        ``"paired"``: SE of the mean per-item difference; ``"sign-test"``: the SD of the
        sign test's null, ``sqrt(A + B)/n`` (eval-arena ``signal_noise.py``).

    Returns
    -------
    SignalToNoise

    Warns
    -----
    DataWarning
        No two systems of one family with different sizes.
    DegenerateDataWarning
        A pair with zero standard error (ratio ±inf, or NaN if the difference is 0).

    Notes
    -----
    For every pair of the same family with sizes :math:`s_A > s_B`:
    :math:`\\mathrm{SNR} = \\frac{\\mathrm{acc}(A) - \\mathrm{acc}(B)}
    {\\mathrm{SE}(\\mathrm{acc}(A) - \\mathrm{acc}(B))\\,\\log_2(s_A/s_B)}`
    (eval-arena, "signal to noise": A the bigger model, normalised per doubling). The
    paired SE is :math:`\\sqrt{\\operatorname{var}_0(x_A - x_B)/n}`; for binary data with
    b, c discordant items :math:`\\sqrt{b + c - (b - c)^2/n}\\,/\\,n`. All pairs of a
    family are used (eval-arena uses successive sizes); the summary is the median.

    References
    ----------
    .. [1] Wang, S. I., Gu, A., Madaan, L., Hupkes, D., Liu, J., Wei, Y., Jain, N., Lai, Y., Sootla,
           S., Press, O., Rozière, B. & Synnaeve, G. (2024). Eval-Arena: noise and errors on LLM
           evaluations. https://github.com/crux-eval/eval-arena

    Examples
    --------
    >>> x = np.array([[1, 0]] * 20 + [[0, 1]] * 10 + [[1, 1]] * 70, dtype=float)
    >>> r = signal_to_noise(x, {"m-70b": ("m", 70), "m-7b": ("m", 7)},
    ...                     systems=["m-70b", "m-7b"])
    >>> round(float(r.snr[0]), 4)      # 0.1 / (sqrt(29)/100) / log2(10)
    0.559
    """
    if se not in get_args(SnrSE):
        raise InputError(
            f"se={se!r} is not valid", hint=f"use one of: {', '.join(get_args(SnrSE))}"
        )
    if not isinstance(families, Mapping):
        raise InputError("families must be a mapping system → (family, size)")
    data = _data_iv(scores, systems, None)
    return _signal_to_noise(data, families, se, stacklevel=3)


def _signal_to_noise(
    data: _Data,
    families: Mapping[str, Any],
    se: SnrSE,
    stacklevel: int,
    se_diff_all: np.ndarray | None = None,
    wins: np.ndarray | None = None,
) -> SignalToNoise:
    X = data.X
    n = X.shape[0]
    pairs = _family_pairs(data.names, families)
    if not pairs:
        warnings.warn(
            "no two systems of one family with different sizes: no signal-to-noise ratio",
            DataWarning,
            stacklevel=stacklevel,
        )
    ia = np.array([p[0] for p in pairs], dtype=np.intp)
    ib = np.array([p[1] for p in pairs], dtype=np.intp)
    means = X.mean(axis=0)
    diff = means[ia] - means[ib]
    if se == "paired":
        D = X[:, ia] - X[:, ib]
        se_diff = np.sqrt(D.var(axis=0) / n) if len(pairs) else np.empty(0)
    else:
        W = _win_matrix(X, data.modality == "binary", DEFAULT_MAX_MEMORY) if wins is None else wins
        se_diff = np.sqrt(W[ia, ib] + W[ib, ia]) / n
    size_a = np.array([p[3] for p in pairs], dtype=np.float64)
    size_b = np.array([p[4] for p in pairs], dtype=np.float64)
    doublings = np.log2(size_a / size_b) if len(pairs) else np.empty(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        snr = diff / se_diff / doublings
    zero = se_diff == 0
    if zero.any():
        warnings.warn(
            f"{count(int(zero.sum()), 'same-family pair')} with zero standard error: "
            "their ratio is ±inf (NaN if the accuracies are equal)",
            DegenerateDataWarning,
            stacklevel=stacklevel,
        )
    return SignalToNoise(
        data.names,
        ia,
        ib,
        tuple(p[2] for p in pairs),
        size_a,
        size_b,
        diff,
        se_diff,
        doublings,
        snr,
        n,
        se,
    )


# ============================================================================ profile


# Over 100 lines of code: eval-arena's profile of all pairs (sign tests, pairwise SDs,
# the p-value curve) computed from one set of pair arrays; splitting it would pass
# those arrays through several signatures.
def noise_profile(
    scores: Any,
    *,
    systems: Sequence[str] | None = None,
    counts: Any = None,
    families: Mapping[str, tuple[str, float]] | None = None,
    snr_se: SnrSE = "paired",
    boundary_alphas: Sequence[float] = BOUNDARY_ALPHAS,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> NoiseProfile:
    """The noise profile of one dataset × metric: eval-arena's analysis of all pairs.

    Parameters
    ----------
    scores
        ``(n_items, n_systems)`` paired scores — binary 0/1, or fractional (e.g. pass1 as
        the share of ``count`` samples) — or ``(n_items, n_systems, n_runs)`` with
        repeated runs (averaged per item; NaN for a missing run).
    systems
        Names of the columns; default ``"system 1"``, ...
    counts
        Samples behind each 2-D score (one integer, one per system, or items ×
        systems), e.g. eval-arena's ``count``. With counts (or a runs axis) the profile
        includes the data vs prediction noise split (:func:`prediction_noise`).
    families
        System → ``(family, size in billions)``; adds the signal-to-noise ratio
        (:func:`signal_to_noise`, with ``se=snr_se``).
    snr_se
        Standard error used by the signal-to-noise ratio.
    boundary_alphas
        Levels of the |A − B| vs A + B boundary curves.
    max_memory
        Bound on working memory (bytes) when wins are counted pair by pair.

    Returns
    -------
    NoiseProfile

    Raises
    ------
    InputError
        Bad shapes, NaN in 2-D scores, fewer than 2 systems, no items, bad counts,
        families or levels.

    Warns
    -----
    DegenerateDataWarning, DataWarning
        From the prediction-noise split and the signal-to-noise ratio (see there).

    Notes
    -----
    **Test.** For each pair, A = items where system a scores higher than b and B the
    reverse; ties are dropped and the two-sided exact sign test gives
    :math:`p = \\min(1, 2F(\\min(A, B); A + B, 1/2))` (scipy ``binomtest(A, A + B)``).
    For binary scores A and B are the discordant counts and this *is* the exact McNemar
    test. For fractional scores it is the sign test on wins and losses (an item counts
    as a win when its score is higher, whatever the margin); eval-arena's ``arena.py``
    instead passes the truncated expected win counts :math:`\\lfloor\\sum_i
    p_{ia}(1-p_{ib})\\rfloor` to ``binomtest``. Because the sign test ignores margins,
    for fractional scores p5_min can be much smaller than for binary data of the same n
    (a small mean difference made of many small wins).

    **p5.** ``p5_min`` = min ``|acc(a) − acc(b)|`` over pairs with p < 0.05, and
    ``p5_max`` = max over pairs with p >= 0.05, as a share of n; ``*_items`` are the same
    in items, ``|A − B|`` for binary data (eval-arena ``report_agg.py``: ``diff[pvalue <
    0.05].abs().min() / N`` and ``diff[pvalue > 0.05].abs().max() / N``; the exact sign
    test's p-values are multiples of :math:`2^{1-m}` and never equal 0.05, so the
    choice of < vs <=, or > vs >=, cannot change them). This reproduces the published
    humaneval+ figures (11 items = 6.71 %, 16 items = 9.76 %) and mbpp+ (16 = 4.23 %,
    21 = 5.56 %). Percentages are ``100 * p5_min``; fields keep fractions.

    **Null SD.** :math:`p5_{\\min} / (\\sqrt 2 \\cdot 1.96)` (Wang et al. 2024): the SD of one
    system's accuracy under the null, since 1.96 SDs of a difference of two such
    accuracies is the smallest significant difference.

    **Standard errors.** ``se_system`` :math:`= \\sqrt{\\operatorname{var}_0(x)/n}`
    (binary: :math:`\\sqrt{p(1-p)/n}`); ``se_diff``, the SE of the mean per-item
    difference :math:`d_i = x_{ia} - x_{ib}`, is :math:`\\sqrt{\\operatorname{var}_0(d)/n}`
    — for binary data :math:`\\operatorname{var}_0(d) = (b+c)/n - ((b-c)/n)^2`, so
    :math:`\\mathrm{SE} = \\sqrt{b + c - (b-c)^2/n}\\,/\\,n` (eval-arena ``std(E(A-B))``;
    ddof 1 would scale it by :math:`\\sqrt{n/(n-1)}`). The benchmark figures are the
    medians over the *close* pairs: those with ``|diff| <= p5_max`` (differences in the
    range where a non-significant result occurs); when no pair is non-significant, the
    20 % of pairs with the smallest ``|diff|``.

    **Boundaries.** :func:`sign_test_boundary` for each α and ``m = 0..n``.

    References
    ----------
    .. [1] Wang, S. I., Gu, A., Madaan, L., Hupkes, D., Liu, J., Wei, Y., Jain, N., Lai, Y., Sootla,
           S., Press, O., Rozière, B. & Synnaeve, G. (2024). Eval-Arena: noise and errors on LLM
           evaluations. https://github.com/crux-eval/eval-arena (``noise.md``).
    .. [2] Dixon, W. J. & Mood, A. M. (1946). The statistical sign test. J. Amer. Statist. Assoc.
           41(236), 557-566.
    .. [3] McNemar, Q. (1947). Note on the sampling error of the difference between correlated
           proportions or percentages. Psychometrika 12(2), 153-157.

    Examples
    --------
    >>> x = np.array([[1, 0]] * 20 + [[0, 1]] * 10 + [[1, 1]] * 70, dtype=float)
    >>> prof = noise_profile(x, systems=["a", "b"])
    >>> int(prof.a_wins[0]), int(prof.b_wins[0]), round(float(prof.p_value[0]), 4)
    (20, 10, 0.0987)
    >>> from scipy import stats
    >>> round(float(stats.binomtest(10, 30).pvalue), 4)
    0.0987
    >>> prof.p5_min, prof.p5_max, prof.p5_max_items     # no pair reaches p < 0.05
    (nan, 0.1, 10.0)
    >>> round(prof.se_diff_median, 5)                  # sqrt(30 - 10**2/100) / 100
    0.05385
    """
    alphas = _alphas_iv(boundary_alphas)
    if snr_se not in get_args(SnrSE):
        raise InputError(
            f"snr_se={snr_se!r} is not valid", hint=f"use one of: {', '.join(get_args(SnrSE))}"
        )
    if families is not None and not isinstance(families, Mapping):
        raise InputError("families must be a mapping system → (family, size)")
    if max_memory < 2**20:
        raise InputError(f"max_memory={max_memory!r} is below 1 MiB")
    data = _data_iv(scores, systems, counts)
    X = data.X
    n, n_sys = X.shape
    binary = data.modality == "binary"
    ia, ib = (a.astype(np.intp) for a in np.triu_indices(n_sys, k=1))

    W = _win_matrix(X, binary, max_memory)
    a_wins, b_wins = W[ia, ib].astype(np.int64), W[ib, ia].astype(np.int64)
    p = _sign_pvalue(a_wins, b_wins)

    sums = X.sum(axis=0)
    means = sums / n
    diff = means[ia] - means[ib]
    abs_items = np.abs(sums[ia] - sums[ib])
    if binary:
        abs_items = np.rint(abs_items)
    Xc = X - means
    C = Xc.T @ Xc / n  # covariance, ddof 0
    var_sys = np.clip(np.diag(C), 0, None)
    se_system = np.sqrt(var_sys / n)
    var_d = np.clip(var_sys[ia] + var_sys[ib] - 2 * C[ia, ib], 0, None)
    se_diff = np.sqrt(var_d / n)

    sig = p < P5_ALPHA
    p5_min_items = float(abs_items[sig].min()) if sig.any() else math.nan
    p5_max_items = float(abs_items[~sig].max()) if (~sig).any() else math.nan
    p5_min, p5_max = p5_min_items / n, p5_max_items / n
    if (~sig).any():
        close = abs_items <= p5_max_items
        close_rule = "pairs with |diff| <= p5_max"
    else:
        k = max(1, math.ceil(CLOSE_QUANTILE * len(ia)))
        close = np.zeros(len(ia), dtype=bool)
        close[np.argsort(abs_items, kind="stable")[:k]] = True
        close_rule = "no non-significant pair: the 20% of pairs with the smallest |diff|"
    se_system_median = _median(np.concatenate([se_system[ia[close]], se_system[ib[close]]]))
    se_diff_median = _median(se_diff[close])

    totals = np.arange(n + 1)
    boundary = np.vstack([sign_test_boundary(totals, alpha=a) for a in alphas])

    notes = [
        "exact McNemar test (= sign test on the discordant items)"
        if binary
        else "exact sign test on wins and losses of the item scores; ties dropped"
    ]
    prediction = None
    if data.item_pred_var is not None:
        prediction = _prediction_noise(data, stacklevel=3)
    snr = None
    if families is not None:
        snr = _signal_to_noise(data, families, snr_se, stacklevel=3, wins=W)
    test = (
        "exact McNemar (sign test on discordant items)"
        if binary
        else "exact sign test (wins vs losses, ties dropped)"
    )
    return NoiseProfile(
        data.names,
        n,
        data.modality,
        test,
        means,
        ia,
        ib,
        diff,
        abs_items,
        a_wins,
        b_wins,
        p,
        se_diff,
        se_system,
        p5_min,
        p5_min_items,
        p5_max,
        p5_max_items,
        p5_min / NULL_SD_DIVISOR,
        p5_min_items / NULL_SD_DIVISOR,
        close,
        close_rule,
        se_system_median,
        se_diff_median,
        alphas,
        totals,
        boundary,
        prediction,
        snr,
        tuple(notes),
    )

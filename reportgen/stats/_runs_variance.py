"""Variance components of repeated runs: the between-item and within-item (run-to-run)
variance of a system's scores, of a pair's differences, and from binary counts.

Private to :mod:`reportgen.stats.runs`, which re-exports the public names."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.plaintext import count, verb
from reportgen.records import columns_to_records, floats, ints
from reportgen.stats._common import TabularMixin, system_names
from reportgen.stats._runs_inputs import (
    _float_array,
    _scores_iv,
)


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
        """``se_prediction² / se_total²``: the share of the variance due to the runs
        (the ratio squared, so that SEs of 1e298 do not overflow)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.se_prediction / self.se_total) ** 2

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (pair), NaN as None."""
        return columns_to_records(
            {
                "system": self.systems,
                "paired": self.paired,
                "mean": floats(self.mean),
                "n": ints(self.n),
                "k": floats(self.k),
                "var_data": floats(self.var_data),
                "var_prediction": floats(self.var_prediction),
                "se_total": floats(self.se_total),
                "se_data": floats(self.se_data),
                "se_prediction": floats(self.se_prediction),
                "prediction_share": floats(self.prediction_share()),
                "source": self.source,
            }
        )


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
            f"{count(int(small.sum()), 'system')}"
            f" {verb(int(small.sum()), 'have', 'has')} fewer than 2 items: their "
            "variance components are NaN",
            DegenerateDataWarning,
            stacklevel=3,
        )
    one_run = np.isnan(parts.var_prediction) & ~small
    if one_run.any():
        warnings.warn(
            f"{count(int(one_run.sum()), 'system')}"
            f" {verb(int(one_run.sum()), 'have', 'has')} a single run per item: "
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

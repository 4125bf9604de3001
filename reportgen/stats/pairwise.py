"""Pairwise comparison of systems on one sample list (one dataset × metric).

The automatic test follows Table 1 of Ackerman et al. (2025):

=========  ==========  ===========================  ===========================  ==========================
paired     modality    test                         effect size                  CI of the difference
=========  ==========  ===========================  ===========================  ==========================
no         continuous  Welch t                      Cohen's d (pooled SD)        Welch t interval
no         binary      two-proportion z (pooled)    Cohen's h                    Newcombe hybrid score
yes        continuous  paired t                     paired d = mean(Δ)/sd(Δ)     t interval of mean(Δ)
yes        binary      exact McNemar (binomial on   paired d = mean(Δ)/sd(Δ)     Tango score interval
                       the discordant items)
=========  ==========  ===========================  ===========================  ==========================

``method="permutation"``: paired sign-flip of the differences (every one of the 2^n
sign vectors when 2^n <= ``n_resamples``, else Monte Carlo with p = (k+1)/(R+1); for
binary data the sign-flip distribution is binomial on the discordant items, so the exact
answer is used); unpaired label shuffle (exact through the hypergeometric distribution
for binary data; exact enumeration of the splits when there are at most ``n_resamples``
of them; else Monte Carlo). The CI is the design's analytic one above.

``method="bootstrap"``: null-shifted bootstrap of the mean difference (paired: items
resampled, all systems together; unpaired: each system's items resampled on their own),
with the BCa interval from the same resamples. ``method="sign"`` (paired only): the
exact sign test on wins and losses, ties dropped — the test for fractional scores such
as the share of k samples solved.

All pairs are computed together: sign or bootstrap-count matrices multiply the
``items × systems`` score matrix once per chunk of resamples, and the statistic of a
pair is the difference of two columns.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast, get_args

import numpy as np

from reportgen.errors import DegenerateDataWarning, InputError, OneSidedWarning
from reportgen.names import ESTIMANDS, Alternative, EffectLevel, Estimand, Method, Order
from reportgen.plaintext import count, verb
from reportgen.records import bools, columns_to_records, floats, ints, nonempty, optional
from reportgen.stats._common import (
    Modality,
    PairsMixin,
    ResamplingOptions,
    choices_iv,
    modality_iv,
    resampling_fields,
    resampling_iv,
    system_index,
    system_names,
    unpaired_samples_iv,
)
from reportgen.stats._degenerate import (
    constant_differences,
    hypergeometric_floor,
    min_paired_items,
    min_split_p,
    min_unpaired_items,
    power_of_two_scale,
    sign_flip_constant_p,
    skew_flags,
    split_constant_p,
)
from reportgen.stats._null_tests import (
    binomial_pvalue,
    hypergeometric_pvalue,
    t_pvalue,
    t_statistic,
    z_pvalue,
)
from reportgen.stats._pair_checks import (
    EXACT_CHECK_ITEMS,
    RARE_SCORES,
    _count_extreme,
    _exact_sign_flip_p,
    _hull,
    _paired_pair_notes,
    _paired_robust,
    _skew_hull,
    _unpaired_bootstrap_t,
    _unpaired_pair_notes,
    _unpaired_robust,
    _unpaired_skew_flags,
    skewed_note,
)
from reportgen.stats._resampling import (
    DEFAULT_MAX_MEMORY,
    bca_interval,
    bootstrap_weighted_sums,
    chunk_sizes,
    enumerate_signs,
    enumerate_splits,
    exact_product,
    random_signs,
    random_splits,
)
from reportgen.stats.intervals import (
    newcombe_unpaired_interval,
    t_interval,
    tango_paired_interval,
    welch_interval,
)
from reportgen.stats.multiplicity import CORRECTIONS, Correction, IntervalPlan, adjust_pvalues

__all__ = [
    "EFFECT_THRESHOLDS",
    "Alternative",
    "EffectLevel",
    "Method",
    "Order",
    "PairwiseResult",
    "binomial_pvalue",
    "compare_paired",
    "compare_unpaired",
    "comparison_pairs",
    "effect_magnitude",
]


#: Cohen's (1988) conventional thresholds for d and h.
EFFECT_THRESHOLDS: dict[str, float] = {"small": 0.2, "medium": 0.5, "large": 0.8}


def effect_magnitude(effect: np.ndarray) -> np.ndarray:
    """``"negligible"``, ``"small"``, ``"medium"`` or ``"large"`` by Cohen's thresholds
    on ``|effect|`` (``""`` for NaN).

    References
    ----------
    .. [1] Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.
           Erlbaum.
    """
    e = np.abs(np.asarray(effect, dtype=np.float64))
    labels = np.full(e.shape, "", dtype=object)
    labels[e < 0.2] = "negligible"
    labels[(e >= 0.2) & (e < 0.5)] = "small"
    labels[(e >= 0.5) & (e < 0.8)] = "medium"
    labels[e >= 0.8] = "large"
    return labels


@dataclass(frozen=True)
class PairwiseResult(PairsMixin):
    """Every comparison of one sample list. Arrays have one entry per pair.

    Attributes
    ----------
    systems
        System names; ``index_a``/``index_b`` point into it (a pair compares
        ``systems[index_a[k]]`` with ``systems[index_b[k]]``).
    paired, modality, method, alternative, order
        The design and the options used.
    test
        Name of the test, e.g. ``"exact McNemar"``, ``"paired t"``,
        ``"paired sign-flip permutation (Monte Carlo)"``.
    statistic
        The test statistic: t or z; for exact McNemar and the sign test the number of
        items A wins; for permutation and bootstrap tests the mean difference.
    p_value, p_adjusted
        Raw p-value and p-value adjusted within this sample list by ``correction``.
    mean_a, mean_b, diff
        Means and ``mean_a − mean_b``.
    ci_low, ci_high, ci_method, confidence
        Two-sided interval of ``diff`` at ``confidence``, and how it was computed.
    effect_size, effect_size_kind
        Standardised effect (Cohen's d, Cohen's h or paired d), sign as ``diff``.
    n_a, n_b
        Items per system (equal when paired).
    a_only, b_only
        Paired binary data: items only A (resp. only B) got right — the discordant
        counts; ``None`` otherwise.
    exact
        Whether the p-values are exact (closed form or full enumeration) rather than
        Monte Carlo.
    n_resamples
        Resamples used by a Monte Carlo or bootstrap method, else ``None``.
    decision_level
        The per-comparison level of each decision when the family is larger than this
        result (set by :meth:`with_adjusted`), else None (:meth:`decision_levels`
        computes it from this result's pairs).
    ci_adjusted
        The intervals that agree with the adjusted decisions when the family decided
        on intervals of its own (a release), else None (:meth:`adjusted_interval`
        computes them).
    pair_notes
        One plain sentence per pair where the data are degenerate or too few ("" where
        not): identical systems (p = 1), a difference that does not vary (its exact
        sign-flip p), fewer items than an exact test needs to reach ``alpha`` (with the
        number needed), a system with too few items to be tested (p NaN). Empty tuple
        when no pair has one.
    min_items
        The fewest items (per system when unpaired, equal sizes) with which an exact
        test of this design can reach ``alpha``; comparisons of fewer items take the
        exact test's p-value, so they are never significant.
    skewed
        Per pair, whether the item differences are heavily skewed (continuous data:
        sample skewness of the paired differences, or of the two samples' mean
        difference when unpaired, so large that the t test's one-sided size at α/2 is off by more
        than half of α/2 at this n; :func:`reportgen.stats._degenerate.skew_flags`);
        ``None`` for binary data.
    estimand
        What ``diff`` estimates (:data:`reportgen.names.Estimand`): the difference of
        means (default), of 20% trimmed means, or the Hodges-Lehmann shift.
    approximate
        Per pair, whether its p-value and interval are only approximate: a difference
        of means on heavily skewed differences (``skewed``), where no test holds its
        level at this n (Bahadur & Savage 1956). Such a pair is never significant
        (:meth:`significant`) and its adjusted interval contains 0; ``None`` when no
        pair can be (binary data, a robust estimand, the sign test).
    pair_tests
        The test of each pair where some pair's p-value comes from another test than
        ``test`` (an exact sign-flip or label-shuffle p of too few non-zero
        differences, the studentized bootstrap beside a skewed t test), else empty:
        :meth:`test_of` gives each pair's.
    interval_plan
        How the adjusted intervals are made when the family is larger than this result
        (set by :meth:`with_adjusted`), else None (:meth:`plan` makes it from these
        pairs).
    ci_df
        The degrees of freedom of each marginal interval that is a t interval (paired t:
        n − 1; Welch: Welch-Satterthwaite), so that it is carried to other levels by t
        quantiles; None when no interval is a t interval.
    """

    systems: tuple[str, ...]
    index_a: np.ndarray
    index_b: np.ndarray
    paired: bool
    modality: Modality
    method: str
    alternative: Alternative
    order: Order
    test: str
    statistic: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    correction: Correction
    alpha: float
    mean_a: np.ndarray
    mean_b: np.ndarray
    diff: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    ci_method: str
    confidence: float
    effect_size: np.ndarray
    effect_size_kind: str
    effect_threshold: EffectLevel
    n_a: np.ndarray
    n_b: np.ndarray
    exact: bool
    n_resamples: int | None = None
    a_only: np.ndarray | None = None
    b_only: np.ndarray | None = None
    notes: tuple[str, ...] = field(default=())
    decision_level: np.ndarray | None = None
    ci_adjusted: tuple[np.ndarray, np.ndarray] | None = None
    pair_notes: tuple[str, ...] = field(default=())
    min_items: int | None = None
    skewed: np.ndarray | None = None
    estimand: Estimand = "mean"
    approximate: np.ndarray | None = None
    pair_tests: tuple[str, ...] = field(default=())
    interval_plan: IntervalPlan | None = None
    ci_df: np.ndarray | None = None

    def note(self, k: int) -> str:
        """The note of pair ``k`` ("" when none)."""
        return self.pair_notes[k] if self.pair_notes else ""

    def test_of(self, k: int) -> str:
        """The test whose p-value pair ``k`` reports."""
        return self.pair_tests[k] if self.pair_tests else self.test

    def tests(self) -> Any:
        """Each pair's test (:meth:`test_of`): ``test`` itself when every pair has it,
        else one name per pair."""
        return list(self.pair_tests) if self.pair_tests else self.test

    def effect_magnitude(self) -> np.ndarray:
        """Cohen's label of each effect size (:func:`effect_magnitude`)."""
        return effect_magnitude(self.effect_size)

    def effect_significant(self) -> np.ndarray:
        """``|effect_size| >= `` the ``effect_threshold`` level (Cohen's thresholds)."""
        return (
            np.nan_to_num(np.abs(self.effect_size), nan=0.0)
            >= EFFECT_THRESHOLDS[self.effect_threshold]
        )

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per pair with the field names of results.json (NaN as None)."""
        n = self.n_pairs
        return columns_to_records(
            {
                "system_a": self.system_a,
                "system_b": self.system_b,
                "test": self.tests(),
                "method": self.method,
                "paired": self.paired,
                "modality": self.modality,
                "alternative": self.alternative,
                "statistic": floats(self.statistic),
                "p_value": floats(self.p_value),
                "p_adjusted": floats(self.p_adjusted),
                "correction": self.correction,
                "alpha": self.alpha,
                "significant": bools(self.significant()),
                "effect_size": floats(self.effect_size),
                "effect_size_kind": self.effect_size_kind,
                "effect_magnitude": nonempty(self.effect_magnitude()),
                "effect_threshold": self.effect_threshold,
                "effect_significant": bools(self.effect_significant()),
                "mean_a": floats(self.mean_a),
                "mean_b": floats(self.mean_b),
                "diff": floats(self.diff),
                **self.interval_columns(),
                "n_a": ints(self.n_a),
                "n_b": ints(self.n_b),
                "exact": self.exact,
                "n_resamples": self.n_resamples,
                "a_only": optional(ints, self.a_only, n),
                "b_only": optional(ints, self.b_only, n),
                "note": nonempty(self.pair_notes or [""] * n),
                "skewed": optional(bools, self.skewed, n),
                "estimand": self.estimand,
                "approximate": bools(self.approximate_pairs()),
            }
        )


# ============================================================================ inputs


def comparison_pairs(
    n_systems: int, order: Order = "all-pairs", baseline: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays ``(a, b)`` of the comparisons in Ackerman et al. 2025, §4.2's orders.

    ``all-pairs``: (i, j) for i < j; ``first-vs-rest``: (baseline, j) for every other
    j; ``successive``: (i, i + 1).

    References
    ----------
    .. [1] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §4.2.

    Examples
    --------
    >>> comparison_pairs(3)
    (array([0, 0, 1]), array([1, 2, 2]))
    >>> comparison_pairs(3, "first-vs-rest", baseline=1)
    (array([1, 1]), array([0, 2]))
    """
    if order not in get_args(Order):
        raise InputError(
            f"unknown order {order!r}", hint=f"use one of: {', '.join(get_args(Order))}"
        )
    if order == "all-pairs":
        a, b = np.triu_indices(n_systems, k=1)
    elif order == "first-vs-rest":
        if not 0 <= baseline < n_systems:
            raise InputError(f"baseline index {baseline} is out of range for {n_systems} systems")
        b = np.array([j for j in range(n_systems) if j != baseline], dtype=np.intp)
        a = np.full(b.shape, baseline, dtype=np.intp)
    else:
        a = np.arange(n_systems - 1)
        b = a + 1
    return a.astype(np.intp), b.astype(np.intp)


@dataclass(frozen=True)
class _Options(ResamplingOptions):
    order: Order
    alternative: Alternative
    correction: Correction
    alpha: float
    effect_threshold: EffectLevel
    estimand: Estimand = "mean"


def _options_iv(
    *,
    method: str,
    order: str,
    alternative: str,
    correction: str,
    alpha: float,
    confidence: float,
    n_resamples: int,
    effect_threshold: str,
    rng: Any,
    max_memory: int,
    estimand: str = "mean",
) -> _Options:
    choices_iv(
        {
            "method": (method, get_args(Method)),
            "order": (order, get_args(Order)),
            "alternative": (alternative, get_args(Alternative)),
            "correction": (correction, CORRECTIONS),
            "effect_threshold": (effect_threshold, get_args(EffectLevel)),
            "estimand": (estimand, ESTIMANDS),
        }
    )
    resampling_iv(
        alpha=alpha, confidence=confidence, n_resamples=n_resamples, max_memory=max_memory
    )
    return _Options(
        method=method,
        order=cast(Order, order),
        alternative=cast(Alternative, alternative),
        correction=cast(Correction, correction),
        alpha=float(alpha),
        effect_threshold=cast(EffectLevel, effect_threshold),
        estimand=cast(Estimand, estimand),
        **resampling_fields(
            confidence=confidence, n_resamples=n_resamples, rng=rng, max_memory=max_memory
        ),
    )


def _baseline_index(baseline: int | str | None, names: tuple[str, ...]) -> int:
    return 0 if baseline is None else system_index(baseline, names, "baseline")


def _warn_one_sided(alternative: str) -> None:
    if alternative != "two-sided":
        warnings.warn(
            f"alternative={alternative!r}: a one-sided test is valid only if the direction "
            "was fixed before looking at the data (Ackerman et al. 2025, §4.2)",
            OneSidedWarning,
            stacklevel=3,
        )


# ============================================================================ paired


# Over 100 lines of code: the choice of Table 1 (modality × method) with each branch's
# test, interval and degenerate cases side by side; its shared steps are helpers
# (_paired_continuous_test, _skew_hull, _paired_pair_notes, _warn_paired_degenerate,
# reportgen.stats._null_tests).
def compare_paired(
    scores: np.ndarray,
    *,
    systems: Sequence[str] | None = None,
    modality: Modality | None = None,
    method: Method = "auto",
    order: Order = "all-pairs",
    baseline: int | str | None = None,
    alternative: Alternative = "two-sided",
    correction: Correction = "holm-sidak",
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 9999,
    effect_threshold: EffectLevel = "medium",
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    estimand: Estimand = "mean",
) -> PairwiseResult:
    """Compare systems scored on the same items.

    Parameters
    ----------
    scores
        ``(n_items, n_systems)`` matrix, no NaN (average repeated runs first).
    systems
        Names of the columns; default ``"system 1"``, ...
    modality
        ``"binary"`` or ``"continuous"``; default: binary if every score is 0 or 1.
    method
        ``"auto"`` (Table 1), ``"permutation"``, ``"bootstrap"`` or ``"sign"``
        (module docstring).
    order, baseline
        Which pairs: all pairs (default), the baseline (name or index; default the
        first) against every other system, or successive systems.
    alternative
        ``"two-sided"``; ``"greater"`` tests mean_a > mean_b, ``"less"`` the reverse.
    correction
        Multiplicity correction across the pairs of this call.
    alpha, confidence
        Significance level for ``significant()``; level of the intervals.
    n_resamples
        Monte Carlo or bootstrap resamples (also the limit of exact enumeration).
    effect_threshold
        Cohen level an effect must reach for ``effect_significant()``.
    rng
        ``numpy.random.Generator`` or seed; used only by resampling methods.
    max_memory
        Bound on the working memory of resampling, in bytes.
    estimand
        What ``diff`` estimates for continuous scores: ``"mean"`` (Table 1's tests),
        ``"trimmed"`` (the 20% trimmed mean of the differences, Tukey & McLaughlin's
        trimmed t) or ``"hodges-lehmann"`` (the median of the Walsh averages, Wilcoxon's
        signed-rank test); :mod:`reportgen.stats.robust`. A robust estimand sets the
        test whatever ``method`` says; 0/1 scores are compared as proportions.

    Returns
    -------
    PairwiseResult

    Raises
    ------
    InputError
        Bad options, NaN scores, fewer than 2 systems.

    Warns
    -----
    DegenerateDataWarning
        Fewer than 2 items, or pairs whose differences are all equal (zero variance):
        their statistic is NaN or infinite as documented in Notes.

    Notes
    -----
    Paired t: :math:`t = \\bar\\Delta / (s_\\Delta/\\sqrt n)`, df = n − 1 (scipy
    ``ttest_rel``). If every difference is 0, p = 1 and t = NaN; if they are all the same
    non-zero value, t = ±inf and p = 0 (two-sided). Exact McNemar: with b items only A
    solved and c only B solved, :math:`p = \\min(1, 2 F(\\min(b, c); b + c, 1/2))`
    (statsmodels ``mcnemar(exact=True)``); one-sided :math:`P(K \\ge b)` or
    :math:`P(K \\le b)`. Paired d: :math:`\\bar\\Delta / s_\\Delta` (Ackerman et al. 2025, Table 1).

    References
    ----------
    .. [1] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, Table 1.
    .. [2] McNemar, Q. (1947). Note on the sampling error of the difference between correlated
           proportions or percentages. Psychometrika 12(2), 153-157.
    .. [3] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.
    .. [4] Efron, B. (1987). Better bootstrap confidence intervals. J. Amer. Statist. Assoc.
           82(397), 171-185.
    """
    opts = _options_iv(
        method=method,
        order=order,
        alternative=alternative,
        correction=correction,
        alpha=alpha,
        confidence=confidence,
        n_resamples=n_resamples,
        effect_threshold=effect_threshold,
        rng=rng,
        max_memory=max_memory,
        estimand=estimand,
    )
    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2:
        raise InputError(
            f"scores must be an items × systems matrix, got shape {X.shape}",
            hint="average repeated runs per item first (PairedSamples.item_means())",
        )
    if np.isnan(X).any():
        raise InputError("scores contain NaN", hint="drop items not scored by every system")
    n, n_sys = X.shape
    names = system_names(systems, n_sys)
    if n_sys < 2:
        raise InputError("at least 2 systems are needed for a comparison")
    mod = modality_iv(X, modality)
    ia, ib = comparison_pairs(n_sys, opts.order, _baseline_index(baseline, names))
    _warn_one_sided(opts.alternative)
    # exact division by a power of two: no SD under- or overflows at any scale
    unit = power_of_two_scale(X) if np.isfinite(X).all() else 1.0
    X = X / unit
    means = X.mean(axis=0) if n else np.full(n_sys, np.nan)
    mean_a, mean_b = means[ia], means[ib]
    diff = mean_a - mean_b
    d_mean, d_sd, wins, losses = _difference_moments(X, ia, ib, opts.max_memory)
    top = np.abs(X).max(axis=0) if n else np.zeros(n_sys)
    constant = constant_differences(d_sd, np.maximum(top[ia], top[ib])) & (n >= 2)
    identical = constant & (wins == 0) & (losses == 0)
    d_sd = np.where(constant, 0.0, d_sd)
    d_mean = np.where(identical, 0.0, d_mean)
    with np.errstate(invalid="ignore", divide="ignore"):
        effect = np.where((d_sd == 0) & (d_mean == 0), 0.0, d_mean / d_sd)
    # a variance (t test, bootstrap) needs 2 items; exact tests are defined from 1 item
    min_items = (
        2 if opts.method == "bootstrap" or (opts.method == "auto" and mod == "continuous") else 1
    )
    _warn_paired_degenerate(n, min_items, constant, names, ia, ib)
    notes: list[str] = []
    a_only = b_only = None
    if mod == "binary":
        a_wins = X.T @ (1.0 - X)  # row system right, column system wrong
        a_only, b_only = a_wins[ia, ib], a_wins[ib, ia]
        ci_low, ci_high = tango_paired_interval(a_only, b_only, n, confidence=opts.confidence)
        ci_method = "Tango score interval"
    else:
        se = d_sd / np.sqrt(n) if n else np.full(len(ia), np.nan)
        ci_low, ci_high = t_interval(d_mean, se, n - 1, confidence=opts.confidence)
        ci_low = np.where(d_sd == 0, d_mean, ci_low)
        ci_high = np.where(d_sd == 0, d_mean, ci_high)
        ci_method = "paired t interval"
    robust = opts.estimand != "mean" and mod == "continuous"
    robust_df = None
    if opts.estimand != "mean" and mod == "binary":
        notes.append(
            f"estimand {opts.estimand!r} applies to continuous scores; 0/1 scores are "
            "compared as proportions (the mean)"
        )
        opts = replace(opts, estimand="mean")
    if robust:
        statistic, p, diff, ci_low, ci_high, robust_df, test, ci_method = _paired_robust(
            X, ia, ib, n, opts
        )
        exact, used_resamples = True, None
    elif mod == "binary" and opts.method in ("auto", "permutation"):
        assert a_only is not None and b_only is not None
        statistic = a_only.astype(np.float64)
        p = binomial_pvalue(a_only, a_only + b_only, opts.alternative)
        test = (
            "exact McNemar"
            if opts.method == "auto"
            else "paired sign-flip permutation (exact, binomial)"
        )
        exact, used_resamples = True, None
    elif opts.method == "bootstrap":
        statistic = diff
        p, ci_low, ci_high = _paired_bootstrap(X, ia, ib, diff, opts)
        exact, used_resamples = False, opts.n_resamples
        test = "paired bootstrap (null-shifted)"
        ci_method = "paired bootstrap BCa"
    else:
        statistic, p, test, exact, used_resamples = _paired_continuous_test(
            X, ia, ib, n, diff, d_mean, d_sd, wins, losses, constant, opts, notes
        )
    needed = min_paired_items(opts.alpha, opts.alternative)
    guard = _paired_guards(
        X, ia, ib, n, d_mean, d_sd, wins, losses, constant, identical, min_items, needed, mod,
        test, p, ci_low, ci_high, opts,
    )  # fmt: skip
    p, ci_low, ci_high, pair_notes, pair_tests, skewed = guard.values()
    if skewed is not None and skewed.any() and opts.method == "auto":
        exact, used_resamples = False, opts.n_resamples
        ci_method = "paired t interval (hull with the studentized bootstrap's where skewed)"
    if n < min_items:
        p = np.full(len(ia), np.nan)
        statistic = np.full(len(ia), np.nan)
    if unit != 1.0:
        mean_a, mean_b, diff = mean_a * unit, mean_b * unit, diff * unit
        ci_low, ci_high = np.asarray(ci_low) * unit, np.asarray(ci_high) * unit
        if opts.method in ("permutation", "bootstrap"):
            statistic = diff
    n_arr = np.full(len(ia), n, dtype=np.int64)
    t_interval_df = np.full(len(ia), n - 1.0) if ci_method.startswith("paired t") else robust_df
    return _pairwise_result(
        opts,
        systems=names,
        index_a=ia,
        index_b=ib,
        paired=True,
        modality=mod,
        test=test,
        statistic=statistic,
        p_value=p,
        mean_a=mean_a,
        mean_b=mean_b,
        diff=diff,
        ci_low=ci_low,
        ci_high=ci_high,
        ci_method=ci_method,
        effect_size=effect,
        effect_size_kind="paired d",
        n_a=n_arr,
        n_b=n_arr,
        exact=exact,
        n_resamples=used_resamples,
        a_only=None if a_only is None else a_only.astype(np.int64),
        b_only=None if b_only is None else b_only.astype(np.int64),
        notes=tuple(notes),
        pair_notes=tuple(pair_notes) if any(pair_notes) else (),
        min_items=needed,
        skewed=skewed,
        ci_df=t_interval_df,
        pair_tests=tuple(pair_tests),
        approximate=None
        if skewed is None or opts.method == "sign" or opts.estimand != "mean"
        else np.asarray(skewed, dtype=bool),
        estimand=opts.estimand,
    )


def _warn_paired_degenerate(
    n: int,
    min_items: int,
    constant: np.ndarray,
    names: tuple[str, ...],
    ia: np.ndarray,
    ib: np.ndarray,
) -> None:
    """Warn of too few items and of pairs whose differences do not vary."""
    if n < min_items:
        warnings.warn(
            f"{count(n, 'item')}: this test needs at least {min_items}; results are NaN",
            DegenerateDataWarning,
            stacklevel=3,
        )
    if constant.any():
        k = int(np.argmax(constant))
        warnings.warn(
            f"{count(int(constant.sum()), 'pair')} {verb(int(constant.sum()), 'have', 'has')} differences with zero variance "
            f"(e.g. {names[ia[k]]} vs {names[ib[k]]}): identical systems give "
            f"p = 1, a constant non-zero difference its exact sign-flip p (2/2^{n} "
            "two-sided)",
            DegenerateDataWarning,
            stacklevel=3,
        )


def _paired_continuous_test(
    X: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    n: int,
    diff: np.ndarray,
    d_mean: np.ndarray,
    d_sd: np.ndarray,
    wins: np.ndarray,
    losses: np.ndarray,
    constant: np.ndarray,
    opts: _Options,
    notes: list[str],
) -> tuple[np.ndarray, np.ndarray, str, bool, int | None]:
    """The paired t test (``auto``), the sign test or the sign-flip permutation test:
    statistic, p, test name, whether exact and the resamples used."""
    if opts.method == "auto":
        with np.errstate(invalid="ignore", divide="ignore"):
            t = t_statistic(d_mean, d_sd / np.sqrt(n), 0.0)
        t = np.where(constant & (d_mean == 0), np.nan, t)
        return t, t_pvalue(t, n - 1, opts.alternative), "paired t", True, None
    if opts.method == "sign":
        notes.append("sign test: items where both systems score the same are dropped")
        p = binomial_pvalue(wins, wins + losses, opts.alternative)
        return wins.astype(np.float64), p, "sign test (exact, ties dropped)", True, None
    p, exact, used_resamples = _paired_permutation(X, ia, ib, opts)
    test = "paired sign-flip permutation " + ("(exact)" if exact else "(Monte Carlo)")
    return diff, p, test, exact, used_resamples


@dataclass
class _Guarded:
    """What :func:`_paired_guards` returns, in this order."""

    p: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    pair_notes: list[str]
    pair_tests: list[str]
    skewed: np.ndarray | None

    def values(self) -> tuple[Any, ...]:
        return (self.p, self.ci_low, self.ci_high, self.pair_notes, self.pair_tests, self.skewed)


def _paired_guards(
    X: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    n: int,
    d_mean: np.ndarray,
    d_sd: np.ndarray,
    wins: np.ndarray,
    losses: np.ndarray,
    constant: np.ndarray,
    identical: np.ndarray,
    min_items: int,
    needed: int,
    mod: str,
    test: str,
    p: Any,
    ci_low: Any,
    ci_high: Any,
    opts: _Options,
) -> _Guarded:
    """The exact guards of the paired tests, from counts, and the skewed pairs.

    The information of a paired comparison is in its non-zero differences (the
    discordant items of 0/1 scores): with k of them the exact sign-flip test's smallest
    two-sided p is 2/2^k, whatever the number of items. A pair with fewer than
    :func:`min_paired_items` takes the exact sign-flip p of its non-zero differences
    (continuous scores; exact McNemar is that test already for 0/1 scores), so it is
    never significant, and its note says how many are needed. A difference that does
    not vary takes its exact sign-flip p and interval (unbounded when 2/2^n cannot
    reach the interval's level, else the difference itself: every other shift is
    rejected). Up to :data:`EXACT_CHECK_ITEMS` non-zero differences, a t or bootstrap p
    below alpha is replaced by the exact sign-flip p where that is larger (the t
    distribution of a handful of discrete differences is not theirs). Heavily skewed
    differences (``method="auto"``) get the larger p and the
    hull of the intervals of t and the studentized bootstrap."""
    p = np.array(p, dtype=np.float64)
    ci_low, ci_high = np.array(ci_low, dtype=np.float64), np.array(ci_high, dtype=np.float64)
    pair_notes = [""] * len(ia)
    pair_tests = [test] * len(ia)
    nonzero = wins + losses
    testable = n >= min_items
    few = (nonzero < needed) & ~identical & testable
    skewed = None if mod == "binary" else skew_flags(X, ia, ib, opts.alpha) & ~constant & ~few
    if skewed is not None and opts.method != "sign" and opts.estimand == "mean" and skewed.any():
        hull = opts.method == "auto"
        if hull:
            p, ci_low, ci_high = _skew_hull(
                X, ia, ib, d_mean, d_sd, skewed, p, ci_low, ci_high, opts
            )
        for j in np.flatnonzero(skewed).tolist():
            if hull:
                pair_tests[j] = "paired t and studentized bootstrap (the larger p)"
            pair_notes[j] = skewed_note(n, None, hull)
    flip_name = "paired sign-flip permutation (exact)"
    if mod == "continuous" and opts.method != "sign":
        # a difference that does not vary: its exact sign-flip p, whatever the method
        # (t would be infinite, the bootstrap distribution a point), and its interval
        moving = constant & ~identical & testable
        p = np.where(constant, sign_flip_constant_p(n, d_mean, opts.alternative), p)
        unbounded = 2.0 ** (1 - n) > 1 - opts.confidence
        ci_low = np.where(moving, np.nan if unbounded else d_mean, ci_low)
        ci_high = np.where(moving, np.nan if unbounded else d_mean, ci_high)
        # too few non-zero differences: their exact sign-flip p
        for j in np.flatnonzero(few & ~constant).tolist():
            D = X[:, ia[j]] - X[:, ib[j]]
            p[j] = _exact_sign_flip_p(D[D != 0], opts.alternative)
        for j in np.flatnonzero((few | constant) & ~identical & testable).tolist():
            pair_tests[j] = flip_name
        # a handful of non-zero differences: a t or bootstrap p below alpha stands only
        # if the exact sign-flip test agrees (seven differences of +0.1 and one of -0.1:
        # t gives 0.02, the exact p is 18/256 = 0.070)
        if opts.method in ("auto", "bootstrap"):
            check = ~few & ~constant & testable & (nonzero <= EXACT_CHECK_ITEMS)
            check &= np.nan_to_num(p, nan=1.0) <= opts.alpha
            for j in np.flatnonzero(check).tolist():
                D = X[:, ia[j]] - X[:, ib[j]]
                p[j] = max(p[j], _exact_sign_flip_p(D[D != 0], opts.alternative))
                pair_tests[j] = f"{test} and exact sign-flip (the larger p)"
    elif mod == "binary" and opts.method == "bootstrap":
        # 0/1 scores: the exact test of the discordant items is McNemar's
        p = np.where(few, binomial_pvalue(wins, nonzero, opts.alternative), p)
        for j in np.flatnonzero(few).tolist():
            pair_tests[j] = "exact McNemar"
    _paired_pair_notes(
        pair_notes, p, n, nonzero, min_items, needed, identical, constant, few, mod, opts
    )
    return _Guarded(p, ci_low, ci_high, pair_notes, pair_tests, skewed)


def _pairwise_result(opts: Any, **fields: Any) -> PairwiseResult:
    """A PairwiseResult with the fields every design takes from its options (method,
    alternative, order, correction, alpha, confidence, effect threshold), the p-values
    adjusted for the family, and the statistics and interval limits as float arrays."""
    p = np.asarray(fields.pop("p_value"), dtype=np.float64)
    for name in ("statistic", "ci_low", "ci_high"):
        fields[name] = np.asarray(fields[name], dtype=np.float64)
    tests = tuple(fields.pop("pair_tests", ()))
    if len(set(tests)) == 1:  # one test for every pair: the result's
        fields["test"] = tests[0]
    fields["pair_tests"] = tests if len(set(tests)) > 1 else ()
    return PairwiseResult(
        **fields,
        p_value=p,
        p_adjusted=adjust_pvalues(p, method=opts.correction),
        method=opts.method,
        alternative=opts.alternative,
        order=opts.order,
        correction=opts.correction,
        alpha=opts.alpha,
        confidence=opts.confidence,
        effect_threshold=opts.effect_threshold,
    )


def _difference_moments(
    X: np.ndarray, ia: np.ndarray, ib: np.ndarray, max_memory: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, SD (ddof 1), wins and losses of the item differences of every pair,
    computed on explicit differences (no cancellation) in chunks of pairs; for 0/1
    scores from the counts of discordant items (one matrix product: the differences
    are −1, 0 or 1, so their sum is wins − losses and their sum of squares wins +
    losses)."""
    n = X.shape[0]
    n_pairs = len(ia)
    if n >= 2 and np.all((X == 0) | (X == 1)):
        # W[a, b] = items a solves and b does not; exact integers in float64 below 2**53
        W = X.T @ (1.0 - X)
        wins, losses = W[ia, ib].astype(np.int64), W[ib, ia].astype(np.int64)
        d_mean = (wins - losses) / n
        squares = (wins + losses) - n * d_mean**2  # Σ (D − mean)², D ∈ {−1, 0, 1}
        return d_mean, np.sqrt(np.maximum(squares, 0.0) / (n - 1)), wins, losses
    d_mean, d_sd = np.empty(n_pairs), np.empty(n_pairs)
    wins, losses = np.empty(n_pairs, dtype=np.int64), np.empty(n_pairs, dtype=np.int64)
    # systems as rows: each pair's differences are one contiguous row, reduced in place
    # (six times faster than column reductions over 100,000 items)
    Xt = np.ascontiguousarray(X.T)
    start = 0
    for size in chunk_sizes(n_pairs, max(1, n) * 8 * 2, max_memory):
        sl = slice(start, start + size)
        D = Xt[ia[sl]] - Xt[ib[sl]]
        wins[sl] = np.count_nonzero(D > 0, axis=1)
        losses[sl] = np.count_nonzero(D < 0, axis=1)
        if n:
            mean = D.mean(axis=1)
            d_mean[sl] = mean
            D -= mean[:, None]
            d_sd[sl] = np.sqrt(np.einsum("ij,ij->i", D, D) / (n - 1)) if n >= 2 else np.nan
        else:
            d_mean[sl] = d_sd[sl] = np.nan
        start += size
    return d_mean, d_sd, wins, losses


def _paired_permutation(
    X: np.ndarray, ia: np.ndarray, ib: np.ndarray, opts: _Options
) -> tuple[np.ndarray, bool, int | None]:
    """Sign-flip test of the summed differences; signs × scores once for all systems."""
    n, n_sys = X.shape
    observed = X.sum(axis=0)
    obs = observed[ia] - observed[ib]
    scale = np.abs(X).sum(axis=0)
    tol = 1e-9 * (scale[ia] + scale[ib]) + 1e-12
    count = np.zeros(len(ia), dtype=np.int64)
    # per resample row: the signs (int8 draws + float64, or float64 when enumerated), the
    # system sums, and the pair statistics with their comparison masks
    bytes_per_row = 9 * n + 8 * n_sys + 10 * len(ia)
    exact = n < 62 and 2**n <= opts.n_resamples
    operand = exact_product(X, n)
    if exact:
        total, done = 2**n, 0
        for size in chunk_sizes(total, bytes_per_row, opts.max_memory):
            sums = operand.weighted_sums(enumerate_signs(n, done, done + size))
            count += _count_extreme(sums[:, ia] - sums[:, ib], obs, tol, opts.alternative)
            done += size
        return count / total, True, None
    for size in chunk_sizes(opts.n_resamples, bytes_per_row, opts.max_memory):
        sums = operand.weighted_sums(random_signs(opts.rng, size, n))
        count += _count_extreme(sums[:, ia] - sums[:, ib], obs, tol, opts.alternative)
    return (count + 1) / (opts.n_resamples + 1), False, opts.n_resamples


def _paired_bootstrap(
    X: np.ndarray, ia: np.ndarray, ib: np.ndarray, diff: np.ndarray, opts: _Options
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Null-shifted paired bootstrap p-value and BCa interval of the mean difference."""
    n, n_sys = X.shape
    R = opts.n_resamples
    means = np.empty((R, n_sys))
    done = 0
    operand = exact_product(X, n)
    for size in chunk_sizes(R, 16 * n + 8 * n_sys, opts.max_memory):
        means[done : done + size] = bootstrap_weighted_sums(opts.rng, size, operand) / n
        done += size
    tol = 1e-9 * (np.abs(X).mean(axis=0)[ia] + np.abs(X).mean(axis=0)[ib]) + 1e-15
    p = np.empty(len(ia))
    low, high = np.empty(len(ia)), np.empty(len(ia))
    start = 0
    for size in chunk_sizes(len(ia), 8 * (R + n) * 2, opts.max_memory):
        sl = slice(start, start + size)
        reps = means[:, ia[sl]] - means[:, ib[sl]]
        centred = reps - diff[sl]
        count = _count_extreme(centred, diff[sl], tol[sl], opts.alternative)
        p[sl] = (count + 1) / (R + 1)
        D = X[:, ia[sl]] - X[:, ib[sl]]
        dev = D - D.mean(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            accel = (dev**3).sum(axis=0) / (6 * ((dev**2).sum(axis=0)) ** 1.5)
        accel = np.nan_to_num(accel)
        low[sl], high[sl] = bca_interval(reps, diff[sl], accel, opts.confidence)
        start += size
    return p, low, high


# ============================================================================ unpaired


# Over 100 lines of code: the choice of Table 1 (modality × method) with each branch's
# test, interval and degenerate cases side by side; its shared steps are helpers
# (_pooled_z_test, _welch_t_test, _exact_shuffle_where, _hull, _unpaired_pair_notes,
# reportgen.stats._null_tests).
def compare_unpaired(
    samples: Sequence[np.ndarray],
    *,
    systems: Sequence[str] | None = None,
    modality: Modality | None = None,
    method: Method = "auto",
    order: Order = "all-pairs",
    baseline: int | str | None = None,
    alternative: Alternative = "two-sided",
    correction: Correction = "holm-sidak",
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 9999,
    effect_threshold: EffectLevel = "medium",
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    estimand: Estimand = "mean",
) -> PairwiseResult:
    """Compare systems each scored on its own items (independent samples).

    Parameters are those of :func:`compare_paired`, except ``samples``: one 1-D array
    of scores per system (no NaN). ``method="sign"`` is not available (no pairs).

    Notes
    -----
    Welch t: :math:`t = (\\bar x_a - \\bar x_b)/\\sqrt{s_a^2/n_a + s_b^2/n_b}` with
    Welch-Satterthwaite df (scipy ``ttest_ind(equal_var=False)``). Two-proportion z with
    pooled variance: :math:`z = (\\hat p_a - \\hat p_b)/\\sqrt{\\hat p(1-\\hat p)(1/n_a +
    1/n_b)}` (statsmodels ``proportions_ztest``); if both systems score all 0 or all 1,
    z = NaN and p = 1. Cohen's d uses the pooled SD
    :math:`\\sqrt{((n_a-1)s_a^2 + (n_b-1)s_b^2)/(n_a+n_b-2)}`; Cohen's h is
    :math:`2\\arcsin\\sqrt{\\hat p_a} - 2\\arcsin\\sqrt{\\hat p_b}` (Ackerman et al. 2025, Table 1).

    References
    ----------
    .. [1] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, Table 1.
    .. [2] Welch, B. L. (1947). The generalization of 'Student's' problem when several different
           population variances are involved. Biometrika 34(1-2), 28-35.
    .. [3] Newcombe, R. G. (1998). Interval estimation for the difference between independent
           proportions: comparison of eleven methods. Statist. Med. 17(8), 873-890 (method 10).
    .. [4] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.
    """
    opts = _options_iv(
        method=method,
        order=order,
        alternative=alternative,
        correction=correction,
        alpha=alpha,
        confidence=confidence,
        n_resamples=n_resamples,
        effect_threshold=effect_threshold,
        rng=rng,
        max_memory=max_memory,
        estimand=estimand,
    )
    if opts.method == "sign":
        raise InputError(
            "method='sign' needs paired data",
            hint="use method='auto', 'permutation' or 'bootstrap' for unpaired samples",
        )
    arrays, names = unpaired_samples_iv(samples, systems)
    mod = modality_iv(np.concatenate(arrays), modality)
    ia, ib = comparison_pairs(len(arrays), opts.order, _baseline_index(baseline, names))
    _warn_one_sided(opts.alternative)
    # exact division by a power of two: no variance under- or overflows at any scale
    pooled_values = np.concatenate(arrays)
    unit = power_of_two_scale(pooled_values) if np.isfinite(pooled_values).all() else 1.0
    arrays = [x / unit for x in arrays]
    n = np.array([len(s) for s in arrays], dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.array([s.mean() if len(s) else np.nan for s in arrays])
        var = np.array([s.var(ddof=1) if len(s) > 1 else np.nan for s in arrays])
    top = np.array([np.abs(s).max() if len(s) else 0.0 for s in arrays])
    # a sample that does not vary (beyond rounding) has variance 0
    var = np.where(constant_differences(np.sqrt(var), top) & (n > 1), 0.0, var)
    # a variance (Welch, bootstrap) needs 2 items per system; exact tests need 1
    min_items = (
        2 if opts.method == "bootstrap" or (opts.method == "auto" and mod == "continuous") else 1
    )
    if (n < min_items).any():
        warnings.warn(
            f"systems with fewer than {count(min_items, 'item')}: their comparisons are "
            f"NaN ({', '.join(names[i] for i in np.flatnonzero(n < min_items))})",
            DegenerateDataWarning,
            stacklevel=2,
        )
    mean_a, mean_b = means[ia], means[ib]
    diff = mean_a - mean_b
    n_a, n_b = n[ia], n[ib]
    exact = True
    used_resamples: int | None = None
    degenerate = np.zeros(len(ia), dtype=bool)
    if mod == "binary":
        k = np.array([s.sum() for s in arrays])
        k_a, k_b = k[ia], k[ib]
        ci_low, ci_high = newcombe_unpaired_interval(k_a, n_a, k_b, n_b, confidence=opts.confidence)
        ci_method = "Newcombe hybrid score"
        with np.errstate(invalid="ignore"):
            effect = 2 * np.arcsin(np.sqrt(mean_a)) - 2 * np.arcsin(np.sqrt(mean_b))
        effect_kind = "Cohen's h"
    else:
        ci_low, ci_high = welch_interval(
            mean_a, var[ia], n_a, mean_b, var[ib], n_b, confidence=opts.confidence
        )
        ci_method = "Welch t interval"
        with np.errstate(invalid="ignore", divide="ignore"):
            pooled = np.sqrt(((n_a - 1) * var[ia] + (n_b - 1) * var[ib]) / (n_a + n_b - 2))
            effect = np.where((pooled == 0) & (diff == 0), 0.0, diff / pooled)
        effect_kind = "Cohen's d"

    robust_df = None
    if opts.estimand != "mean" and mod == "binary":
        opts = replace(opts, estimand="mean")  # 0/1 scores: proportions
    if opts.estimand != "mean":
        statistic, p, diff, ci_low, ci_high, robust_df, test, ci_method = _unpaired_robust(
            arrays, ia, ib, opts
        )
    elif opts.method == "auto" and mod == "binary":
        statistic, p, degenerate = _pooled_z_test(diff, k_a, n_a, k_b, n_b, opts.alternative)
        test = "two-proportion z"
    elif opts.method == "auto":
        statistic, p = _welch_t_test(diff, var[ia], n_a, var[ib], n_b, opts.alternative)
        test = "Welch t"
    elif opts.method == "permutation" and mod == "binary":
        statistic = diff
        p = hypergeometric_pvalue(k_a, n_a, k_b, n_b, opts.alternative)
        test = "label-shuffle permutation (exact, hypergeometric)"
    elif opts.method == "permutation":
        statistic = diff
        p, exact, used_resamples = _unpaired_permutation(arrays, ia, ib, diff, opts)
        test = "label-shuffle permutation " + ("(exact)" if exact else "(Monte Carlo)")
    else:
        statistic = diff
        p, ci_low, ci_high = _unpaired_bootstrap(arrays, ia, ib, diff, opts)
        exact, used_resamples = False, opts.n_resamples
        test = "independent bootstrap (null-shifted)"
        ci_method = "two-sample bootstrap BCa"
    small = (n_a < min_items) | (n_b < min_items)
    # fewer items than the exact test needs to reach alpha: its p-value (never below
    # alpha), computed exactly (the splits are fewer than 2 / alpha); for 0/1 scores
    # the successes (or failures) count too: 4 of 2,000 cannot give p below 0.125
    floor = min_split_p(n_a, n_b, opts.alternative)
    if mod == "binary":
        # only where it can matter: few of the rarer score, a small group, or (one-sided
        # tests, whose most extreme table can be likely when the groups are lopsided) a
        # p below alpha; two-sided, 64 of each score in groups of 64 put the floor far
        # below any alpha
        total = k_a + k_b
        rare = np.minimum(np.minimum(total, n_a + n_b - total), np.minimum(n_a, n_b))
        check = rare < RARE_SCORES
        if opts.alternative != "two-sided":
            check |= np.nan_to_num(p, nan=1.0) <= opts.alpha
        check = np.flatnonzero(check)
        if len(check):
            floor[check] = np.maximum(
                floor[check],
                hypergeometric_floor(total[check], n_a[check], n_b[check], opts.alternative),
            )
    few = (floor > opts.alpha) & ~small
    pair_tests = [test] * len(ia)
    if few.any() and opts.method != "permutation":
        counts = (k_a, k_b) if mod == "binary" else None
        p = _exact_shuffle_where(few, p, arrays, ia, ib, diff, n_a, n_b, counts, opts)
        shuffle = "label-shuffle permutation (exact" + (", hypergeometric)" if counts else ")")
        for j in np.flatnonzero(few).tolist():
            pair_tests[j] = shuffle
    p = np.where(small, np.nan, p)
    statistic = np.where(small, np.nan, statistic)
    p = np.asarray(p, dtype=np.float64)
    needed = min_unpaired_items(opts.alpha, opts.alternative)
    pair_notes = _unpaired_pair_notes(
        names, ia, ib, n_a, n_b, var, diff, small, few, floor, degenerate, min_items, mod, opts,
        successes=k_a + k_b if mod == "binary" else None,
    )  # fmt: skip
    skewed = None
    if mod == "continuous":
        skewed = _unpaired_skew_flags(arrays, ia, ib, opts.alpha) & ~small & ~few
        use = skewed & (var[ia] > 0) & (var[ib] > 0)
        hull = opts.method == "auto" and opts.estimand == "mean"
        if hull and use.any():
            # as for paired data: p the larger of Welch's and the two-sample studentized
            # bootstrap's, the interval the hull (approximate: never significant)
            ks = np.flatnonzero(use)
            b_p, b_low, b_high = _unpaired_bootstrap_t(arrays, ia[ks], ib[ks], diff[ks], opts)
            p, ci_low, ci_high = _hull(ks, p, ci_low, ci_high, b_p, b_low, b_high)
            exact, used_resamples = False, opts.n_resamples
            ci_method = "Welch t interval (hull with the studentized bootstrap's where skewed)"
            for j in ks.tolist():
                pair_tests[j] = "Welch t and studentized bootstrap (the larger p)"
        if opts.estimand == "mean":
            for j in np.flatnonzero(skewed).tolist():
                pair_notes[j] = skewed_note(int(n_a[j]), int(n_b[j]), hull and bool(use[j]))
    if unit != 1.0:
        mean_a, mean_b, diff = mean_a * unit, mean_b * unit, diff * unit
        ci_low, ci_high = np.asarray(ci_low) * unit, np.asarray(ci_high) * unit
        if opts.method in ("permutation", "bootstrap"):
            statistic = diff
    welch_df = robust_df
    if ci_method.startswith("Welch t"):
        with np.errstate(invalid="ignore", divide="ignore"):
            se2_a, se2_b = var[ia] / n_a, var[ib] / n_b
            welch_df = (se2_a + se2_b) ** 2 / (se2_a**2 / (n_a - 1) + se2_b**2 / (n_b - 1))
    return _pairwise_result(
        opts,
        systems=names,
        index_a=ia,
        index_b=ib,
        paired=False,
        modality=mod,
        test=test,
        statistic=statistic,
        p_value=p,
        mean_a=mean_a,
        mean_b=mean_b,
        diff=diff,
        ci_low=ci_low,
        ci_high=ci_high,
        ci_method=ci_method,
        effect_size=np.asarray(effect, dtype=np.float64),
        effect_size_kind=effect_kind,
        n_a=n_a,
        n_b=n_b,
        exact=exact,
        n_resamples=used_resamples,
        pair_notes=tuple(pair_notes) if any(pair_notes) else (),
        min_items=needed,
        skewed=skewed,
        ci_df=welch_df,
        pair_tests=tuple(pair_tests),
        approximate=None
        if skewed is None or opts.estimand != "mean"
        else np.asarray(skewed, dtype=bool),
        estimand=opts.estimand,
    )


def _pooled_z_test(
    diff: np.ndarray,
    k_a: np.ndarray,
    n_a: np.ndarray,
    k_b: np.ndarray,
    n_b: np.ndarray,
    alternative: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two-proportion z test with pooled variance: z, p and the pairs where both
    systems score all 0 or all 1 (z undefined, p = 1)."""
    pooled_p = (k_a + k_b) / (n_a + n_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = t_statistic(diff, np.sqrt(pooled_p * (1 - pooled_p) * (1 / n_a + 1 / n_b)), 0.0)
    degenerate = (pooled_p == 0) | (pooled_p == 1)
    z = np.where(degenerate, np.nan, z)
    p = np.where(degenerate, 1.0, z_pvalue(z, alternative))
    if degenerate.any():
        warnings.warn(
            f"{count(int(degenerate.sum()), 'pair')} where both systems score all 0 "
            "or all 1: z is undefined, p = 1",
            DegenerateDataWarning,
            stacklevel=3,
        )
    return z, p, degenerate


def _welch_t_test(
    diff: np.ndarray,
    var_a: np.ndarray,
    n_a: np.ndarray,
    var_b: np.ndarray,
    n_b: np.ndarray,
    alternative: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Welch's t test: t and p; two constant samples get the exact label-shuffle p."""
    se2_a, se2_b = var_a / n_a, var_b / n_b
    with np.errstate(invalid="ignore", divide="ignore"):
        t = t_statistic(diff, np.sqrt(se2_a + se2_b), 0.0)
        df = (se2_a + se2_b) ** 2 / (se2_a**2 / (n_a - 1) + se2_b**2 / (n_b - 1))
    zero = (se2_a + se2_b) == 0
    if zero.any():
        warnings.warn(
            f"{count(int(zero.sum()), 'pair')} where both systems have zero variance: "
            "equal means give p = 1, different means the exact label-shuffle p",
            DegenerateDataWarning,
            stacklevel=3,
        )
    t = np.where(zero & (diff == 0), np.nan, t)
    df = np.where(zero, np.inf, df)
    p = np.where(zero & (diff == 0), 1.0, t_pvalue(t, df, alternative))
    # two constant samples: the exact label-shuffle p, not 0
    p = np.where(zero, split_constant_p(n_a, n_b, diff, alternative), p)
    return t, p


def _exact_shuffle_where(
    few: np.ndarray,
    p: Any,
    arrays: list[np.ndarray],
    ia: np.ndarray,
    ib: np.ndarray,
    diff: np.ndarray,
    n_a: np.ndarray,
    n_b: np.ndarray,
    counts: tuple[np.ndarray, np.ndarray] | None,
    opts: _Options,
) -> np.ndarray:
    """``p`` with the exact label-shuffle p where the samples are too few to reach alpha
    (``few``): hypergeometric for 0/1 scores (``counts`` of successes), else every split
    enumerated."""
    p = np.array(p, dtype=np.float64)
    ks = np.flatnonzero(few)
    if counts is not None:
        k_a, k_b = counts
        p[ks] = hypergeometric_pvalue(k_a[ks], n_a[ks], k_b[ks], n_b[ks], opts.alternative)
    else:
        most = int(max(math.comb(int(a) + int(b), int(a)) for a, b in zip(n_a[ks], n_b[ks])))
        exact_opts = replace(opts, n_resamples=max(opts.n_resamples, most))
        p[ks] = _unpaired_permutation(arrays, ia[ks], ib[ks], diff[ks], exact_opts)[0]
    return p


def _unpaired_permutation(
    arrays: list[np.ndarray], ia: np.ndarray, ib: np.ndarray, diff: np.ndarray, opts: _Options
) -> tuple[np.ndarray, bool, int | None]:
    """Label-shuffle test of the difference of means.

    Pairs are grouped by their sizes (n_a, n_b); within a group one matrix of random
    splits (rows of 0/1 indicators of the items given to A) is shared by every pair, so
    the shuffled sums of all systems come from two matrix products per chunk. Exact
    enumeration of the splits when there are at most ``n_resamples`` of them.
    """
    p = np.full(len(ia), np.nan)
    sizes = np.array([len(x) for x in arrays])
    groups: dict[tuple[int, int], list[int]] = {}
    for k, (i, j) in enumerate(zip(ia, ib)):
        groups.setdefault((int(sizes[i]), int(sizes[j])), []).append(k)
    all_exact = True
    for (na, nb), members in groups.items():
        if na < 1 or nb < 1:
            continue
        ks = np.array(members)
        a_sys, a_col = np.unique(ia[ks], return_inverse=True)
        b_sys, b_col = np.unique(ib[ks], return_inverse=True)
        XA = np.column_stack([arrays[s] for s in a_sys])  # na × systems on side A
        XB = np.column_stack([arrays[s] for s in b_sys])  # nb × systems on side B
        total = XA.sum(axis=0)[a_col] + XB.sum(axis=0)[b_col]
        scale = np.abs(XA).sum(axis=0)[a_col] + np.abs(XB).sum(axis=0)[b_col]
        tol = 1e-9 * scale / min(na, nb) + 1e-12
        count = np.zeros(len(ks), dtype=np.int64)
        n_splits = math.comb(na + nb, na)
        exact = n_splits <= opts.n_resamples
        bytes_per_row = 9 * (na + nb) + 8 * (len(a_sys) + len(b_sys)) + 10 * len(ks)
        total_rows = n_splits if exact else opts.n_resamples
        splits_all = enumerate_splits(na, nb) if exact else None
        A, B = exact_product(XA, na), exact_product(XB, nb)
        done = 0
        for size in chunk_sizes(total_rows, bytes_per_row, opts.max_memory):
            M = (
                splits_all[done : done + size]
                if splits_all is not None
                else random_splits(opts.rng, size, na, nb)
            )
            # sum given to A of each pair: A's items kept by the split plus B's items moved
            sums = A.weighted_sums(M[:, :na])[:, a_col] + B.weighted_sums(M[:, na:])[:, b_col]
            null = sums / na - (total - sums) / nb
            count += _count_extreme(null, diff[ks], tol, opts.alternative)
            done += size
        if exact:
            p[ks] = count / n_splits
        else:
            all_exact = False
            p[ks] = (count + 1) / (opts.n_resamples + 1)
    return p, all_exact, None if all_exact else opts.n_resamples


def _unpaired_bootstrap(
    arrays: list[np.ndarray], ia: np.ndarray, ib: np.ndarray, diff: np.ndarray, opts: _Options
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Null-shifted independent bootstrap and two-sample BCa interval: each system's
    items are resampled once per replicate and shared by all its pairs."""
    R = opts.n_resamples
    means = np.empty((R, len(arrays)))
    binary = all(bool(np.all((x == 0) | (x == 1))) for x in arrays)
    for b, x in enumerate(arrays):
        if binary and len(x):
            # the mean of n draws with replacement from 0/1 data is Binomial(n, p)/n
            means[:, b] = opts.rng.binomial(len(x), x.mean(), size=R) / len(x)
            continue
        done = 0
        for size in chunk_sizes(R, 8 * 2 * max(1, len(x)), opts.max_memory):
            if len(x):
                draws = opts.rng.integers(0, len(x), size=(size, len(x)))
                means[done : done + size, b] = x[draws].mean(axis=1)
            else:
                means[done : done + size, b] = np.nan
            done += size
    reps = means[:, ia] - means[:, ib]
    scale = np.array([np.abs(x).mean() if len(x) else 0.0 for x in arrays])
    tol = 1e-9 * (scale[ia] + scale[ib]) + 1e-15
    count = _count_extreme(reps - diff, diff, tol, opts.alternative)
    p = (count + 1) / (R + 1)
    # two-sample jackknife acceleration (scipy.stats.bootstrap's multi-sample BCa)
    num = np.zeros(len(arrays))
    den = np.zeros(len(arrays))
    for b, x in enumerate(arrays):
        if len(x) > 1:
            u = x - x.mean()
            num[b] = (u**3).sum() / len(x) ** 3
            den[b] = (u**2).sum() / len(x) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        accel = (num[ia] - num[ib]) / (6 * (den[ia] + den[ib]) ** 1.5)
    accel = np.nan_to_num(accel)
    low, high = bca_interval(reps, diff, accel, opts.confidence)
    return p, low, high

"""Non-inferiority and equivalence with a margin: tests, intervals that agree with them,
release decisions over a family, and the items needed to show non-inferiority.

A release compares each *candidate* with a *baseline*; ``diff`` is always
``candidate − baseline`` on the metric's own scale and ``margin`` (δ > 0) is in the same
units (``0.01`` is one point of accuracy). For a metric where higher is better:

* **non-inferiority**: :math:`H_0: \\Delta \\le -\\delta` against :math:`\\Delta > -\\delta`
  (a loss larger than the margin is ruled out). For lower-is-better metrics
  :math:`H_0: \\Delta \\ge \\delta`.
* **equivalence** (two one-sided tests, Schuirmann 1987): both :math:`H_0: \\Delta \\le
  -\\delta` and :math:`H_0: \\Delta \\ge \\delta` rejected; the p-value is the larger of
  the two one-sided p-values.

The tests, per design of Table 1 of Ackerman et al. (2025) (``method="auto"``):

=========  ==========  ==============================================  =========================
paired     modality    test at a non-zero null                         superiority (Δ = 0)
=========  ==========  ==============================================  =========================
yes        binary      Tango (1998) / Nam (1997) score test            exact McNemar
yes        continuous  paired t of the differences shifted by δ        paired t
no         binary      Farrington & Manning (1990) score test          pooled two-proportion z
no         continuous  Welch t shifted by δ                            Welch t
=========  ==========  ==============================================  =========================

``method="permutation"`` (continuous scores): the sign-flip test of the differences
shifted by the null value (paired; valid when the differences are symmetric about their
mean), or the label shuffle of the candidate's scores shifted by it (unpaired; a shift
model), exact by enumeration when there are at most ``n_resamples`` sign vectors or
splits. For 0/1 scores a shifted score is not a 0/1 score and the shuffle is not exact at
a non-zero null, so the score tests above are used at the margins and the exact
permutation test (binomial, hypergeometric) at 0. ``method="bootstrap"``: the
null-shifted bootstrap of the mean difference (paired: items resampled together;
unpaired: each system on its own), at every null value from the same resamples.

For binary data there is no exact test *conditional* on the discordant items for a
non-zero difference: given m discordant items the number the candidate wins is
Binomial(m, p₁₀/(p₁₀ + p₀₁)), and that proportion depends on the nuisance p₁₀ + p₀₁,
not on Δ alone (a conditional exact test exists for a ratio margin p₁₀/p₀₁, not for a
difference). Exact size is therefore not available at the margin; the score tests' size
at the margin is checked by exact enumeration and simulation in the calibration suite.

**Intervals that agree with the tests.** Every interval is the inversion of the test it
sits beside, so that "the interval lies above −δ" is the same statement as "the
non-inferiority test rejects at half the interval's α", and "the interval excludes 0" the
same as "the superiority test rejects at its α". For paired t and Welch t this is the t
interval; for the score tests the score intervals (Tango; Farrington-Manning); for the
resampling tests the limits are order statistics of the same resamples. Where the
superiority test is exact and the interval a score interval (binary data), the interval
is extended to 0, or cut at 0, in the rare cases where the two disagree about 0.

**One interval decides, one-sided tests at α/2.** :func:`margin_decisions` reads every
claim of a family (improved, regressed, non-inferior, equivalent) off one two-sided
interval per comparison. One-sided claims are therefore made at half the family's α, as
ICH E9 (1998, §5.5) asks so that they agree with the two-sided interval ("the approach
of setting type I errors for one-sided tests at half the conventional type I error used
in two-sided tests is preferable"), and switching between superiority and
non-inferiority on the same interval needs no further adjustment (CPMP 2000).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import special

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.names import ESTIMANDS, Estimand
from reportgen.plaintext import count
from reportgen.records import bools, columns_to_records, floats, ints, optional
from reportgen.stats._common import (
    Modality,
    TabularMixin,
    choices_iv,
    modality_iv,
    system_names,
    unpaired_samples_iv,
)
from reportgen.stats._degenerate import (
    hypergeometric_floor,
    min_paired_items,
    power_of_two_scale,
)
from reportgen.stats._margin_inputs import (
    DIRECTIONS,
    MARGIN_DESIGNS,
    MARGIN_METHODS,
    VERDICTS,
    VERDICTS_WITH_MARGIN,
    Direction,
    MarginDesign,
    MarginMethod,
    _margin_iv,
    _Options,
    _options_iv,
    _roles_iv,
)
from reportgen.stats._margin_inversion import (
    _FMInverter,
    _HullInverter,
    _Inverter,
    _paired_bootstrap_thresholds,
    _paired_flip_thresholds,
    _ScaledInverter,
    _skewed_differences,
    _studentized_thresholds,
    _TangoInverter,
    _threshold_sides,
    _ThresholdInverter,
    _TInverter,
    _unpaired_bootstrap_thresholds,
    _unpaired_shuffle_thresholds,
    _unpaired_skew,
)
from reportgen.stats._margin_power import (
    MarginPowerResult,
    noninferiority_power,
    noninferiority_required_n,
)
from reportgen.stats._null_tests import (
    binomial_pvalue,
    hypergeometric_pvalue,
    score_sides,
    t_sides,
)
from reportgen.stats._pair_checks import EXACT_CHECK_ITEMS, _exact_sign_flip_p
from reportgen.stats._resampling import (
    DEFAULT_MAX_MEMORY,
)
from reportgen.stats.intervals import (
    farrington_manning_statistic,
    tango_statistic,
)
from reportgen.stats.multiplicity import CORRECTIONS, Correction

__all__ = [
    "DIRECTIONS",
    "MARGIN_DESIGNS",
    "MARGIN_METHODS",
    "VERDICTS",
    "VERDICTS_WITH_MARGIN",
    "Direction",
    "MarginDecisions",
    "MarginDesign",
    "MarginMethod",
    "MarginPowerResult",
    "MarginResult",
    "margin_decisions",
    "margin_paired",
    "margin_unpaired",
    "noninferiority_power",
    "noninferiority_required_n",
    "single_step_correction",
]


# ============================================================================ result


@dataclass(frozen=True)
class MarginResult(TabularMixin):
    """Candidates against one baseline, with a margin. Arrays have one entry per
    candidate.

    Attributes
    ----------
    systems
        All system names; ``baseline`` and ``candidates`` are among them.
    baseline, candidates
        The reference system and the systems compared with it.
    paired, modality, method, direction
        The design and the options used; ``direction`` says whether higher or lower
        scores are better.
    margin
        δ > 0 in the units of the scores, or None (then only the superiority test and
        the interval are computed; the margin p-values are NaN).
    test, superiority_test
        The test at the margins and the test at Δ = 0.
    mean_candidate, mean_baseline, diff
        Means and ``diff = mean_candidate − mean_baseline``.
    n_candidate, n_baseline
        Items per system (equal when paired).
    statistic_lower, p_lower
        The test of :math:`H_0: \\Delta \\le -\\delta` against :math:`\\Delta > -\\delta`:
        statistic (z or t; the shifted mean difference for resampling tests) and raw
        one-sided p-value.
    statistic_upper, p_upper
        The test of :math:`H_0: \\Delta \\ge \\delta` against :math:`\\Delta < \\delta`.
    p_greater, p_less
        One-sided raw p-values of the superiority test at 0 (``Δ > 0``, ``Δ < 0``).
    confidence, ci_low, ci_high, ci_method
        The two-sided interval of Δ at ``confidence`` that inverts these tests
        (:meth:`interval` gives it at any level).
    a_only, b_only
        Paired binary data: items only the candidate (resp. only the baseline) got
        right; None otherwise.
    exact, n_resamples, notes
        Whether the resampling p-values are exact; resamples used; remarks.
    skewed
        Per candidate, whether its item differences from the baseline are heavily
        skewed (continuous data; :func:`reportgen.stats._degenerate.skew_flags`: a
        one-sided t test at α/2 would be off by more than half its level at this n).
        With ``method="auto"`` on paired continuous data a test of those candidates
        rejects only where the studentized bootstrap (Hall 1992) rejects too (each p
        the larger of the two, the interval their hull; ``test`` says so); their size
        can stay above its level for the most skewed differences at small n (see
        docs/validation.md), so a release does not decide a mean on them
        (:func:`reportgen.analysis.release.release_comparison`: *inconclusive*).
        ``None`` for binary data.
    estimand
        What ``diff`` estimates (:data:`reportgen.names.Estimand`): the difference of
        means, the 20% trimmed mean of the differences (Yuen), or the Hodges-Lehmann
        shift (Wilcoxon).
    """

    systems: tuple[str, ...]
    baseline: str
    candidates: tuple[str, ...]
    paired: bool
    modality: Modality
    method: str
    direction: Direction
    margin: float | None
    test: str
    superiority_test: str
    mean_candidate: np.ndarray
    mean_baseline: np.ndarray
    diff: np.ndarray
    n_candidate: np.ndarray
    n_baseline: np.ndarray
    statistic_lower: np.ndarray
    p_lower: np.ndarray
    statistic_upper: np.ndarray
    p_upper: np.ndarray
    p_greater: np.ndarray
    p_less: np.ndarray
    confidence: float
    ci_low: np.ndarray
    ci_high: np.ndarray
    ci_method: str
    exact: bool
    n_resamples: int | None = None
    a_only: np.ndarray | None = None
    b_only: np.ndarray | None = None
    notes: tuple[str, ...] = ()
    _inverter: _Inverter | None = field(default=None, repr=False, compare=False)
    skewed: np.ndarray | None = None
    estimand: Estimand = "mean"

    @property
    def n_candidates(self) -> int:
        return len(self.candidates)

    @property
    def p_superiority(self) -> np.ndarray:
        """Two-sided p-value of :math:`H_0: \\Delta = 0`: twice the smaller one-sided
        p-value (capped at 1), so that it agrees with the two-sided interval."""
        return np.minimum(1.0, 2 * np.minimum(self.p_greater, self.p_less))

    @property
    def p_noninferiority(self) -> np.ndarray:
        """Raw one-sided p-value of non-inferiority: ``p_lower`` when higher is better,
        ``p_upper`` when lower is better."""
        return self.p_lower if self.direction == "higher" else self.p_upper

    @property
    def p_equivalence(self) -> np.ndarray:
        """Raw TOST p-value: the larger of the two one-sided p-values (Schuirmann 1987)."""
        return np.maximum(self.p_lower, self.p_upper)

    def interval(self, confidence: float) -> tuple[np.ndarray, np.ndarray]:
        """The two-sided interval of Δ at ``confidence`` that inverts this result's
        tests (at the level a family of comparisons needs; see :func:`margin_decisions`)."""
        if not (isinstance(confidence, (int, float)) and 0 < confidence < 1):
            raise InputError(
                f"confidence={confidence!r} must be between 0 and 1 (exclusive)",
                hint="e.g. confidence=0.95",
            )
        if self._inverter is None:  # pragma: no cover - every constructor sets it
            raise InputError("this result cannot compute intervals at other levels")
        a = (1 - confidence) / 2
        low, high = self._inverter.limits(a)
        low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
        return _align_at_zero(low, high, self.p_greater, self.p_less, a)

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per candidate with snake_case names (NaN as None)."""
        n = len(self.candidates)
        return columns_to_records(
            {
                "baseline": self.baseline,
                "candidate": self.candidates,
                "test": self.test,
                "superiority_test": self.superiority_test,
                "method": self.method,
                "paired": self.paired,
                "modality": self.modality,
                "direction": self.direction,
                "margin": self.margin,
                "mean_baseline": floats(self.mean_baseline),
                "mean_candidate": floats(self.mean_candidate),
                "diff": floats(self.diff),
                "n_baseline": ints(self.n_baseline),
                "n_candidate": ints(self.n_candidate),
                "statistic_lower": floats(self.statistic_lower),
                "p_lower": floats(self.p_lower),
                "statistic_upper": floats(self.statistic_upper),
                "p_upper": floats(self.p_upper),
                "p_superiority": floats(self.p_superiority),
                "p_noninferiority": floats(self.p_noninferiority),
                "p_equivalence": floats(self.p_equivalence),
                "ci_low": floats(self.ci_low),
                "ci_high": floats(self.ci_high),
                "ci_method": self.ci_method,
                "confidence": self.confidence,
                "exact": self.exact,
                "n_resamples": self.n_resamples,
                "a_only": optional(ints, self.a_only, n),
                "b_only": optional(ints, self.b_only, n),
                "skewed": optional(bools, self.skewed, n),
                "estimand": self.estimand,
            }
        )


def _align_at_zero(
    low: np.ndarray, high: np.ndarray, p_greater: np.ndarray, p_less: np.ndarray, a: float
) -> tuple[np.ndarray, np.ndarray]:
    """Make the interval agree with the superiority test about 0.

    Needed only where the test at 0 is not the one the interval inverts (exact McNemar
    or the exact label shuffle next to a score interval): if the test does not reject
    Δ = 0 at ``a`` on either side, the interval is extended to 0; if it rejects, the
    interval is cut at 0 on the side of the evidence.
    """
    with np.errstate(invalid="ignore"):
        up, down = p_greater <= a, p_less <= a
        low = np.where(up & (low <= 0) & (high > 0), np.nextafter(0.0, 1.0), low)
        high = np.where(down & (high >= 0) & (low < 0), np.nextafter(0.0, -1.0), high)
        low = np.where(~up & ~down & (low > 0), 0.0, low)
        high = np.where(~up & ~down & (high < 0), 0.0, high)
    return low, high


# ============================================================================ inputs


def _warn_degenerate(message: str, stacklevel: int = 3) -> None:
    warnings.warn(message, DegenerateDataWarning, stacklevel=stacklevel)


# ============================================================================ paired


# Over 100 lines of code: one branch per method, each giving the tests at −δ, +δ and 0
# and the interval's inverter; the long branches are helpers (_paired_t_sides,
# reportgen.stats._null_tests, reportgen.stats._margin_inversion).
def margin_paired(
    scores: np.ndarray,
    *,
    margin: float | None,
    systems: Sequence[str] | None = None,
    baseline: int | str | None = None,
    candidates: Sequence[int | str] | None = None,
    direction: Direction = "higher",
    modality: Modality | None = None,
    method: MarginMethod = "auto",
    estimand: Estimand = "mean",
    confidence: float = 0.95,
    n_resamples: int = 9999,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> MarginResult:
    """Non-inferiority and equivalence tests of candidates against a baseline scored on
    the same items.

    Parameters
    ----------
    scores
        ``(n_items, n_systems)`` matrix, no NaN (average repeated runs first).
    margin
        δ > 0 in the units of the scores (below 1 for 0/1 scores), or None for the
        superiority test and the interval only.
    systems
        Names of the columns; default ``"system 1"``, ...
    baseline, candidates
        The reference system (name or column index; default the first) and the systems
        compared with it (default every other one).
    direction
        ``"higher"`` (default) or ``"lower"``: which scores are better. It decides which
        one-sided test is the non-inferiority test.
    modality
        ``"binary"`` or ``"continuous"``; default: binary if every score is 0 or 1.
    method
        ``"auto"`` (the table in the module docstring), ``"permutation"`` or
        ``"bootstrap"``.
    estimand
        What the margin bounds for continuous scores: ``"mean"`` (default),
        ``"trimmed"`` (the 20% trimmed mean of the differences, trimmed t tests at the
        shifted nulls) or ``"hodges-lehmann"`` (the Hodges-Lehmann shift, Wilcoxon tests
        of the shifted scores); :mod:`reportgen.stats.robust`. A robust estimand sets the
        tests whatever ``method`` says; 0/1 scores are compared as proportions.
    confidence
        Level of the two-sided interval in the result (:meth:`MarginResult.interval`
        gives others).
    n_resamples, rng, max_memory
        Resampling: resamples (also the limit of exact enumeration), generator or seed,
        and the bound on working memory in bytes.

    Returns
    -------
    MarginResult

    Raises
    ------
    InputError
        Bad options (a margin that is not a positive number, or not below 1 for 0/1
        scores), NaN scores, fewer than 2 systems.

    Warns
    -----
    DegenerateDataWarning
        Fewer items than the test needs, or differences with zero variance: the
        affected p-values are NaN (or 0/1 for a constant difference, as documented in
        Notes).

    Notes
    -----
    With :math:`D_i` = candidate − baseline on item i, :math:`\\bar D`, :math:`s_D`:

    * paired t at null value v: :math:`t = (\\bar D - v)/(s_D/\\sqrt n)`, df = n − 1
      (statsmodels ``ttost_paired``). A constant difference (:math:`s_D = 0`) gives
      t = ±∞ (p = 0 or 1) unless it equals v.
    * Tango's score statistic at v (:func:`~reportgen.stats.intervals.tango_statistic`)
      with b, c the items only the candidate, only the baseline, got right; at 0 the
      exact McNemar test :math:`P(K \\ge b)`, :math:`K \\sim \\mathrm{Bin}(b + c, 1/2)`.
    * Sign-flip test at v of :math:`D_i - v`: the statistic of sign vector s is
      :math:`\\sum s_i (D_i - v)`, linear in v, so one set of sign vectors gives the
      p-value at every v and the interval's limits as order statistics.
    * Null-shifted bootstrap at v: :math:`p = (\\#\\{\\bar D^* - \\bar D \\ge \\bar D - v\\}
      + 1)/(R + 1)`; the interval is the corresponding basic bootstrap interval.

    References
    ----------
    .. [1] Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
           approach for assessing the equivalence of average bioavailability. J. Pharmacokinet.
           Biopharm. 15(6), 657-680.
    .. [2] Tango, T. (1998). Equivalence test and confidence interval for the difference in
           proportions for the paired-sample design. Statist. Med. 17(8), 891-908.
    .. [3] Nam, J. (1997). Establishing equivalence of two treatments and sample size requirements
           in matched-pairs design. Biometrics 53(4), 1422-1430.

    Examples
    --------
    >>> x = np.array([[1, 1], [1, 0], [0, 1], [1, 1], [0, 0]] * 40)
    >>> r = margin_paired(x, margin=0.1, systems=["v1", "v2"], baseline="v1")
    >>> r.test, round(float(r.diff[0]), 3), round(float(r.p_noninferiority[0]), 4)
    ('Tango score', 0.0, 0.0131)

    By hand: 40 items each way of 200; Tango's restricted MLE of the discordant cells
    under ``diff = -0.1`` found by maximising the likelihood numerically.

    >>> from scipy import optimize, stats
    >>> def nll(t):
    ...     p10, p11 = t
    ...     p01 = p10 - 0.1
    ...     p00 = 1 - p10 - p11 - p01
    ...     if min(p10, p11, p01, p00) <= 0:
    ...         return np.inf
    ...     return -(80 * np.log(p11) + 40 * np.log(p10) + 40 * np.log(p01) + 40 * np.log(p00))
    >>> p10, _ = optimize.minimize(nll, [0.25, 0.35], method="Nelder-Mead",
    ...                            options={"xatol": 1e-10, "fatol": 1e-12}).x
    >>> z = 0.1 / np.sqrt((p10 + (p10 - 0.1) - 0.01) / 200)
    >>> round(float(stats.norm.sf(z)), 4)
    0.0131
    """
    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2:
        raise InputError(
            f"scores must be an items × systems matrix, got shape {X.shape}",
            hint="average repeated runs per item first",
        )
    if np.isnan(X).any():
        raise InputError("scores contain NaN", hint="drop items not scored by every system")
    # exact division by a power of two: no SD under- or overflows at any scale
    unit = power_of_two_scale(X) if np.isfinite(X).all() else 1.0
    if unit != 1.0:
        if margin is not None:
            _margin_iv(margin, False)  # its message names the margin as given
        X = X / unit
        margin = None if margin is None else float(margin) / unit
    n, n_sys = X.shape
    names = system_names(systems, n_sys)
    if n_sys < 2:
        raise InputError("at least 2 systems are needed for a comparison")
    mod = modality_iv(X, modality)
    opts = _options_iv(
        margin=_margin_iv(margin, mod == "binary"),
        direction=direction,
        method=method,
        confidence=confidence,
        n_resamples=n_resamples,
        rng=rng,
        max_memory=max_memory,
    )
    b_idx, cand = _roles_iv(names, baseline, candidates)
    estimand = _estimand_iv(estimand, mod)
    base = X[:, b_idx]
    D = X[:, cand] - base[:, None]  # items × candidates
    k = len(cand)
    mean_c = X[:, cand].mean(axis=0) if n else np.full(k, np.nan)
    mean_b = np.full(k, base.mean() if n else np.nan)
    diff = mean_c - mean_b
    n_arr = np.full(k, n, dtype=np.int64)
    delta = opts.margin
    notes: list[str] = []
    a_only = b_only = None
    exact, used = True, None

    # fewer items than any exact test needs to reach the one-sided level: the exact
    # sign-flip test (its p-values are never below 2^-n, its interval unbounded), so
    # no claim rests on the t distribution of a handful of items
    needed = min_paired_items(1 - opts.confidence, "two-sided")
    few = mod == "continuous" and 1 <= n < needed and opts.method in ("auto", "bootstrap")
    if few:
        notes.append(
            f"{count(n, 'paired item')}: fewer than the {needed} with which an exact test can "
            f"reach the level of a {opts.confidence:.0%} interval; the exact sign-flip "
            "test is used, so no claim is made"
        )
    if mod == "binary" and opts.method != "bootstrap":
        a_only = (D > 0).sum(axis=0).astype(np.int64)
        b_only = (D < 0).sum(axis=0).astype(np.int64)
        if n < 1:
            _warn_degenerate(f"{count(n, 'item')}: the tests need at least 1; results are NaN")
        stat_l, p_l, stat_u, p_u = score_sides(
            delta, lambda v: tango_statistic(np.asarray(v, dtype=np.float64), a_only, b_only, n_arr)
        )
        m = a_only + b_only
        # at 0 the exact McNemar test, as pairwise runs it
        p_g, p_s = binomial_pvalue(a_only, m, "greater"), binomial_pvalue(a_only, m, "less")
        inverter: _Inverter = _TangoInverter(
            a_only.astype(np.float64), b_only.astype(np.float64), n_arr.astype(np.float64)
        )
        test, ci_method = "Tango score", "Tango score interval"
        sup_test = (
            "exact McNemar"
            if opts.method == "auto"
            else "paired sign-flip permutation (exact, binomial)"
        )
        if opts.method == "permutation":
            notes.append(
                "0/1 scores: the margin tests are Tango's score test (a shifted "
                "0/1 score is not a 0/1 score, so sign flips are not exact at a "
                "non-zero null); the test at 0 is the exact sign-flip test"
            )
        if n < 1:
            nan = np.full(k, np.nan)
            stat_l, p_l, stat_u, p_u, p_g, p_s = nan, nan, nan, nan, nan, nan
    elif estimand != "mean" and not few:
        sides, inverter, test, ci_method, diff = _robust_sides(
            estimand, delta, opts, paired_differences=D
        )
        stat_l, p_l, stat_u, p_u, p_g, p_s = sides
        sup_test = test
    elif opts.method == "auto" and not few:
        sides, inverter, test, ci_method, exact, used = _paired_t_sides(D, diff, delta, opts, notes)
        stat_l, p_l, stat_u, p_u, p_g, p_s = sides
        sup_test = test
    elif opts.method == "permutation" or few:
        lower, upper, exact = _paired_flip_thresholds(D, opts)
        used = None if exact else opts.n_resamples
        inverter = _ThresholdInverter(lower, upper, exact)
        stat_l, p_l, stat_u, p_u, p_g, p_s = _threshold_sides(inverter, diff, delta)
        test = sup_test = "paired sign-flip permutation " + (
            "(exact)" if exact else "(Monte Carlo)"
        )
        ci_method = "sign-flip test inversion"
        if n < 1:
            _warn_degenerate("0 items: results are NaN")
    else:
        if n < 2:
            _warn_degenerate(f"{count(n, 'item')}: the bootstrap needs at least 2; results are NaN")
        lower, upper = _paired_bootstrap_thresholds(X, b_idx, cand, diff, opts)
        exact, used = False, opts.n_resamples
        inverter = _ThresholdInverter(lower, upper, False)
        stat_l, p_l, stat_u, p_u, p_g, p_s = _threshold_sides(inverter, diff, delta)
        test = sup_test = "paired bootstrap (null-shifted)"
        ci_method = "basic bootstrap (test inversion)"
        if n < 2:
            nan = np.full(k, np.nan)
            stat_l, p_l, stat_u, p_u, p_g, p_s = nan, nan, nan, nan, nan, nan
    return _finish(
        names,
        b_idx,
        cand,
        True,
        mod,
        opts,
        test,
        sup_test,
        mean_c,
        mean_b,
        diff,
        n_arr,
        n_arr,
        stat_l,
        p_l,
        stat_u,
        p_u,
        p_g,
        p_s,
        ci_method,
        exact,
        used,
        a_only,
        b_only,
        notes,
        inverter,
        skewed=None if mod == "binary" else _skewed_differences(D, 1 - opts.confidence),
        unit=unit,
        estimand=estimand,
    )


def _paired_t_sides(
    D: np.ndarray, diff: np.ndarray, delta: float | None, opts: _Options, notes: list[str]
) -> tuple[tuple[np.ndarray, ...], _Inverter, str, str, bool, int | None]:
    """The paired t tests at −δ, +δ and 0 of the differences ``D`` (items × candidates):
    their statistics and one-sided p-values, the interval's inverter, the test and
    interval names, whether exact and the resamples used. A constant difference gets its
    exact sign-flip p; heavily skewed ones the studentized bootstrap too."""
    n, k = D.shape
    exact: bool = True
    used: int | None = None
    if n < 2:
        _warn_degenerate(
            f"{count(n, 'item')}: the paired t test needs at least 2; results are NaN", stacklevel=4
        )
    sd = D.std(axis=0, ddof=1) if n >= 2 else np.full(k, np.nan)
    if n >= 2:
        # rounding noise of a constant difference (x + 0.1 − x) is zero variance
        sd = np.where(sd <= 1e-12 * np.abs(D).max(axis=0), 0.0, sd)
    se = sd / math.sqrt(n) if n else np.full(k, np.nan)
    df = np.full(k, n - 1, dtype=np.float64)
    if n >= 2 and (sd == 0).any():
        _warn_degenerate(
            f"{count(int((sd == 0).sum()), 'candidate')} whose differences from "
            "the baseline have zero variance: the exact sign-flip p (2^-n or 1) "
            "unless the difference equals the null value",
            stacklevel=4,
        )
    stat_l, p_l, stat_u, p_u, p_g, p_s = t_sides(diff, se, df, delta)
    p_g, p_s = np.array(p_g, dtype=np.float64), np.array(p_s, dtype=np.float64)
    if n >= 2 and (sd == 0).any():
        # a difference that does not vary: the exact sign-flip p of the shifted
        # constant (2^-n in its direction, 1 against it), never 0
        tail = 2.0**-n

        def flip_p(v: float, greater: bool) -> np.ndarray:
            gap = diff - v
            hit = gap > 0 if greater else gap < 0
            return np.where(gap == 0, 1.0, np.where(hit, tail, 1.0))

        zero = sd == 0
        p_g, p_s = (
            np.where(zero, flip_p(0.0, True), p_g),
            np.where(zero, flip_p(0.0, False), p_s),
        )
        if delta is not None:
            p_l = np.where(zero, flip_p(-delta, True), p_l)
            p_u = np.where(zero, flip_p(delta, False), p_u)
    inverter: _Inverter = _TInverter(diff, se, df)
    test = "paired t"
    ci_method = "paired t interval"
    # a handful of non-zero differences: the test at 0 stands only where the exact
    # sign-flip test of them agrees (the interval is aligned with it at 0)
    nonzero = (D != 0).sum(axis=0)
    for j in np.flatnonzero((nonzero <= EXACT_CHECK_ITEMS) & (sd > 0)).tolist():
        d = D[:, j][D[:, j] != 0]
        p_g[j] = max(p_g[j], _exact_sign_flip_p(d, "greater"))
        p_s[j] = max(p_s[j], _exact_sign_flip_p(d, "less"))
    skewed = _skewed_differences(D, 1 - opts.confidence) & (sd > 0)
    if skewed.any():
        lower, upper = _studentized_thresholds(D, diff, se, opts)
        boot = _ThresholdInverter(lower, upper, False)
        _, b_l, _, b_u, b_g, b_s = _threshold_sides(boot, diff, delta)
        # reject only where both the t test and the studentized bootstrap reject
        # (each p the larger of the two, the interval their hull): under skewness
        # the bootstrap-t corrects the t test's O(1/sqrt(n)) error; under symmetric
        # heavy tails, whose sample skewness is large too, the t test is the
        # conservative one
        p_l, p_u = (
            np.where(skewed, np.maximum(p_l, b_l), p_l),
            np.where(skewed, np.maximum(p_u, b_u), p_u),
        )
        p_g, p_s = (
            np.where(skewed, np.maximum(p_g, b_g), p_g),
            np.where(skewed, np.maximum(p_s, b_s), p_s),
        )
        inverter = _HullInverter(skewed, inverter, boot)
        exact, used = False, opts.n_resamples
        test = "paired t (and studentized bootstrap where the differences are skewed)"
        ci_method = "paired t interval (hull with the studentized bootstrap's where skewed)"
        notes.append(
            f"{count(int(skewed.sum()), 'candidate')} with heavily skewed differences: a "
            "test rejects only if the studentized bootstrap (Hall 1992) rejects too"
        )
    return (stat_l, p_l, stat_u, p_u, p_g, p_s), inverter, test, ci_method, exact, used


def _estimand_iv(estimand: str, mod: str) -> Estimand:
    """The estimand checked; 0/1 scores are compared as proportions (the mean)."""
    choices_iv({"estimand": (estimand, ESTIMANDS)})
    return "mean" if mod == "binary" else estimand  # type: ignore[return-value]


@dataclass(frozen=True)
class _PerColumnInverter(_Inverter):
    """Limits of a rank test's interval, one comparison at a time: ``interval(k, level)``
    gives comparison k's two-sided interval at ``level`` (each end one-sided at half)."""

    k: int
    interval: Any

    def limits(self, a: float) -> tuple[np.ndarray, np.ndarray]:
        pairs = [self.interval(j, 2 * a) for j in range(self.k)]
        return np.array([lo for lo, _ in pairs]), np.array([hi for _, hi in pairs])


def _robust_sides(
    estimand: str,
    delta: float | None,
    opts: _Options,
    *,
    paired_differences: np.ndarray | None = None,
    baseline_sample: np.ndarray | None = None,
    candidate_samples: list[np.ndarray] | None = None,
) -> tuple[tuple[np.ndarray, ...], _Inverter, str, str, np.ndarray]:
    """The tests at −δ, +δ and 0 of a robust estimand (:mod:`reportgen.stats.robust`):
    the trimmed mean's t tests (shifted, as the mean's) or the Wilcoxon tests of the
    shifted scores; their statistics (t, or the shifted Hodges-Lehmann estimate) and
    one-sided p-values, the interval's inverter, the test and interval names, and the
    estimates (candidate − baseline)."""
    from reportgen.stats import robust as R

    paired = paired_differences is not None
    sides: tuple[np.ndarray, ...]
    if estimand == "trimmed":
        if paired_differences is not None:
            est, se, df = R.trimmed_paired(paired_differences)
            test = "Yuen trimmed t (20% trimmed mean of the differences)"
        else:
            assert baseline_sample is not None and candidate_samples is not None
            base = R.trimmed_parts(baseline_sample)
            parts = np.array([R.trimmed_parts(x) for x in candidate_samples]).reshape(-1, 3)
            est, se, df = R.yuen_combine(parts[:, 0], parts[:, 1], parts[:, 2], *base)
            test = "Yuen-Welch trimmed t (20% trimmed means)"
        sides = t_sides(est, se, df, delta)
        return sides, _TInverter(est, se, df), test, "trimmed t interval", est
    if paired:
        D = np.asarray(paired_differences)
        columns = [D[:, j] for j in range(D.shape[1])]

        def pvalue(j: int, shift: float, alternative: str) -> float:
            return R.signed_rank_pvalue(columns[j] - shift, alternative)

        def interval(j: int, level: float) -> tuple[float, float]:
            return R.signed_rank_interval(columns[j], level)

        est = np.array([R.hodges_lehmann_paired(c) for c in columns])
        test, ci_method = "Wilcoxon signed-rank (Hodges-Lehmann shift)", "Hodges-Lehmann interval"
    else:
        assert baseline_sample is not None and candidate_samples is not None
        b, cs = baseline_sample, candidate_samples

        def pvalue(j: int, shift: float, alternative: str) -> float:
            return R.rank_sum_pvalue(cs[j] - shift, b, alternative)

        def interval(j: int, level: float) -> tuple[float, float]:
            return R.rank_sum_interval(cs[j], b, level)

        est = np.array([R.hodges_lehmann_unpaired(c, b) for c in cs])
        test, ci_method = "Wilcoxon rank-sum (Hodges-Lehmann shift)", "Hodges-Lehmann interval"
    k = len(est)
    p_g = np.array([pvalue(j, 0.0, "greater") for j in range(k)])
    p_s = np.array([pvalue(j, 0.0, "less") for j in range(k)])
    nan = np.full(k, np.nan)
    if delta is None:
        sides = (nan, nan, nan, nan, p_g, p_s)
    else:
        p_l = np.array([pvalue(j, -delta, "greater") for j in range(k)])
        p_u = np.array([pvalue(j, delta, "less") for j in range(k)])
        sides = (est + delta, p_l, est - delta, p_u, p_g, p_s)
    return sides, _PerColumnInverter(k, interval), test, ci_method, est


def _unpaired_binary_sides(
    arrays: list[np.ndarray],
    b_idx: int,
    cand: np.ndarray,
    n_c: np.ndarray,
    n_b: np.ndarray,
    delta: float | None,
    opts: _Options,
    notes: list[str],
) -> tuple[tuple[np.ndarray, ...], _Inverter, str]:
    """The tests of 0/1 scores of independent samples: Farrington-Manning score tests at
    −δ and +δ, and at 0 the two-proportion z test (``auto``) or the exact label shuffle;
    their statistics and one-sided p-values, the interval's inverter and the test at 0."""
    k = len(cand)
    ks = np.array([s.sum() for s in arrays])
    k_c, k_b = ks[cand], np.full(k, ks[b_idx])
    small = (n_c < 1) | (n_b < 1)
    if small.any():
        _warn_degenerate("systems without items: their comparisons are NaN", stacklevel=4)
    stat_l, p_l, stat_u, p_u = score_sides(
        delta,
        lambda v: farrington_manning_statistic(np.asarray(v, dtype=np.float64), k_c, n_c, k_b, n_b),
    )
    if opts.method == "auto":
        z0 = farrington_manning_statistic(np.zeros(k), k_c, n_c, k_b, n_b)
        degenerate = np.isnan(z0) & ~small
        if degenerate.any():
            _warn_degenerate(
                f"{count(int(degenerate.sum()), 'candidate')} where both systems "
                "score all 0 or all 1: z is undefined at 0, p = 1",
                stacklevel=4,
            )
        p_g = np.where(degenerate, 1.0, special.ndtr(-z0))
        p_s = np.where(degenerate, 1.0, special.ndtr(z0))
        sup_test = "two-proportion z"
        # too few 1s (or 0s) for any exact test to reach the interval's level: the
        # exact label shuffle at 0, as the comparison engine takes it (issue 41)
        floor = hypergeometric_floor(k_c + k_b, n_c, n_b, "two-sided")
        rare = (floor > 1 - opts.confidence) & ~small
        if rare.any():
            p_g = np.where(rare, hypergeometric_pvalue(k_c, n_c, k_b, n_b, "greater"), p_g)
            p_s = np.where(rare, hypergeometric_pvalue(k_c, n_c, k_b, n_b, "less"), p_s)
            sup_test = "two-proportion z (exact label shuffle where the 1s or 0s are too few)"
    else:
        # at 0 the exact label shuffle, as pairwise runs it
        p_g = hypergeometric_pvalue(k_c, n_c, k_b, n_b, "greater")
        p_s = hypergeometric_pvalue(k_c, n_c, k_b, n_b, "less")
        sup_test = "label-shuffle permutation (exact, hypergeometric)"
        notes.append(
            "0/1 scores: the margin tests are Farrington-Manning score tests "
            "(a shifted 0/1 score is not a 0/1 score, so the shuffle is not "
            "exact at a non-zero null); the test at 0 is the exact shuffle"
        )
    nan = np.full(k, np.nan)
    stat_l, p_l, stat_u, p_u, p_g, p_s = (
        np.where(small, nan, x) for x in (stat_l, p_l, stat_u, p_u, p_g, p_s)
    )
    inverter = _FMInverter(
        k_c.astype(np.float64),
        n_c.astype(np.float64),
        k_b.astype(np.float64),
        n_b.astype(np.float64),
    )
    return (stat_l, p_l, stat_u, p_u, p_g, p_s), inverter, sup_test


def _welch_se_df(
    var_c: np.ndarray, n_c: np.ndarray, var_b: np.ndarray, n_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The SE of the difference of means and the Welch-Satterthwaite df (infinite where
    both systems have zero variance), with the warnings of degenerate samples."""
    small = (n_c < 2) | (n_b < 2)
    if small.any():
        _warn_degenerate("systems with fewer than 2 items: their comparisons are NaN", stacklevel=4)
    se2_c, se2_b = var_c / n_c, var_b / n_b
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(se2_c + se2_b)
        df = (se2_c + se2_b) ** 2 / (se2_c**2 / (n_c - 1) + se2_b**2 / (n_b - 1))
    zero = se == 0
    if zero.any():
        _warn_degenerate(
            f"{count(int(zero.sum()), 'candidate')} where both systems have zero "
            "variance: t is ±inf (p = 0 or 1) unless the difference "
            "equals the null value",
            stacklevel=4,
        )
    return se, np.where(zero, np.inf, df)


def _finish(
    names: tuple[str, ...],
    b_idx: int,
    cand: np.ndarray,
    paired: bool,
    mod: Modality,
    opts: _Options,
    test: str,
    sup_test: str,
    mean_c: np.ndarray,
    mean_b: np.ndarray,
    diff: np.ndarray,
    n_c: np.ndarray,
    n_b: np.ndarray,
    stat_l: np.ndarray,
    p_l: np.ndarray,
    stat_u: np.ndarray,
    p_u: np.ndarray,
    p_g: np.ndarray,
    p_s: np.ndarray,
    ci_method: str,
    exact: bool,
    used: int | None,
    a_only: np.ndarray | None,
    b_only: np.ndarray | None,
    notes: list[str],
    inverter: _Inverter,
    *,
    skewed: np.ndarray | None = None,
    unit: float = 1.0,
    estimand: Estimand = "mean",
) -> MarginResult:
    f = lambda x: np.asarray(x, dtype=np.float64)  # noqa: E731
    if unit != 1.0:
        # back to the data's units: everything measured on the scores' scale (the t and
        # score statistics are unitless, the resampling statistics are shifted means)
        mean_c, mean_b, diff = f(mean_c) * unit, f(mean_b) * unit, f(diff) * unit
        if opts.method in ("permutation", "bootstrap"):
            stat_l, stat_u = f(stat_l) * unit, f(stat_u) * unit
        inverter = _ScaledInverter(inverter, unit)
        opts = replace(opts, margin=None if opts.margin is None else opts.margin * unit)
    result = MarginResult(
        names,
        names[b_idx],
        tuple(names[j] for j in cand),
        paired,
        mod,
        opts.method,
        opts.direction,
        opts.margin,
        test,
        sup_test,
        f(mean_c),
        f(mean_b),
        f(diff),
        np.asarray(n_c, dtype=np.int64),
        np.asarray(n_b, dtype=np.int64),
        f(stat_l),
        f(np.clip(p_l, 0, 1)),
        f(stat_u),
        f(np.clip(p_u, 0, 1)),
        f(np.clip(p_g, 0, 1)),
        f(np.clip(p_s, 0, 1)),
        opts.confidence,
        np.full(len(cand), np.nan),
        np.full(len(cand), np.nan),
        ci_method,
        exact,
        used,
        a_only,
        b_only,
        tuple(notes),
        inverter,
        None if skewed is None else np.asarray(skewed, dtype=bool),
        estimand,
    )
    low, high = result.interval(opts.confidence)
    object.__setattr__(result, "ci_low", low)
    object.__setattr__(result, "ci_high", high)
    return result


# ============================================================================ unpaired


# Over 100 lines of code: the choice of method (score, Welch t, bootstrap) for
# independent samples with each branch's degenerate cases beside it, as in
# margin_paired; shared steps are helpers.
def margin_unpaired(
    samples: Sequence[np.ndarray],
    *,
    margin: float | None,
    systems: Sequence[str] | None = None,
    baseline: int | str | None = None,
    candidates: Sequence[int | str] | None = None,
    direction: Direction = "higher",
    modality: Modality | None = None,
    method: MarginMethod = "auto",
    estimand: Estimand = "mean",
    confidence: float = 0.95,
    n_resamples: int = 9999,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> MarginResult:
    """Non-inferiority and equivalence tests of candidates against a baseline, each
    scored on its own items (independent samples).

    Parameters are those of :func:`margin_paired`, except ``samples``: one 1-D array of
    scores per system (no NaN).

    Notes
    -----
    * Welch t at null value v: :math:`t = (\\bar x_c - \\bar x_b - v)/\\sqrt{s_c^2/n_c +
      s_b^2/n_b}` with Welch-Satterthwaite df (statsmodels ``ttost_ind(...,
      usevar="unequal")``).
    * Farrington-Manning score statistic at v
      (:func:`~reportgen.stats.intervals.farrington_manning_statistic`); at 0 it is the
      pooled two-proportion z test of the comparison engine. With
      ``method="permutation"`` the test at 0 is the exact label shuffle
      (hypergeometric, Fisher's one-sided tests).
    * Label shuffle at v of the candidate's scores minus v pooled with the baseline's:
      the shuffled difference is linear in v (one set of splits gives every v).
    * Null-shifted independent bootstrap, each system resampled on its own (0/1 scores:
      binomial draws).

    References
    ----------
    .. [1] Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
           approach for assessing the equivalence of average bioavailability. J. Pharmacokinet.
           Biopharm. 15(6), 657-680.
    .. [2] Farrington, C. P. & Manning, G. (1990). Test statistics and sample size formulae for
           comparative binomial trials with null hypothesis of non-zero risk difference or non-unity
           relative risk. Statist. Med. 9(12), 1447-1454.
    .. [3] Welch, B. L. (1947). The generalization of 'Student's' problem when several different
           population variances are involved. Biometrika 34(1-2), 28-35.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.normal(0.0, 1, 200), rng.normal(0.05, 1, 150)
    >>> r = margin_unpaired([a, b], margin=0.3, systems=["old", "new"], baseline="old")
    >>> r.test, round(float(r.p_equivalence[0]), 3)
    ('Welch t', 0.023)
    >>> from statsmodels.stats.weightstats import ttost_ind
    >>> round(float(ttost_ind(b, a, -0.3, 0.3, usevar="unequal")[0]), 3)
    0.023
    """
    arrays, names = unpaired_samples_iv(samples, systems)
    mod = modality_iv(np.concatenate(arrays), modality)
    # exact division by a power of two: no variance under- or overflows at any scale
    pooled_values = np.concatenate(arrays)
    unit = power_of_two_scale(pooled_values) if np.isfinite(pooled_values).all() else 1.0
    if unit != 1.0:
        if margin is not None:
            _margin_iv(margin, False)
        arrays = [x / unit for x in arrays]
        margin = None if margin is None else float(margin) / unit
    opts = _options_iv(
        margin=_margin_iv(margin, mod == "binary"),
        direction=direction,
        method=method,
        confidence=confidence,
        n_resamples=n_resamples,
        rng=rng,
        max_memory=max_memory,
    )
    b_idx, cand = _roles_iv(names, baseline, candidates)
    k = len(cand)
    sizes = np.array([len(s) for s in arrays], dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.array([s.mean() if len(s) else np.nan for s in arrays])
        var = np.array([s.var(ddof=1) if len(s) > 1 else np.nan for s in arrays])
    mean_c, mean_b = means[cand], np.full(k, means[b_idx])
    diff = mean_c - mean_b
    n_c, n_b = sizes[cand], np.full(k, sizes[b_idx])
    delta = opts.margin
    notes: list[str] = []
    exact, used = True, None

    estimand = _estimand_iv(estimand, mod)
    if estimand != "mean":
        sides, inverter, test, ci_method, diff = _robust_sides(
            estimand,
            delta,
            opts,
            baseline_sample=arrays[b_idx],
            candidate_samples=[arrays[j] for j in cand],
        )
        stat_l, p_l, stat_u, p_u, p_g, p_s = sides
        sup_test = test
    elif mod == "binary" and opts.method != "bootstrap":
        sides, inverter, sup_test = _unpaired_binary_sides(
            arrays, b_idx, cand, n_c, n_b, delta, opts, notes
        )
        stat_l, p_l, stat_u, p_u, p_g, p_s = sides
        test, ci_method = "Farrington-Manning score", "Farrington-Manning score interval"
    elif opts.method == "auto":
        se, df = _welch_se_df(var[cand], n_c, np.full(k, var[b_idx]), n_b)
        stat_l, p_l, stat_u, p_u, p_g, p_s = t_sides(diff, se, df, delta)
        inverter = _TInverter(diff, se, df)
        test = sup_test = "Welch t"
        ci_method = "Welch t interval"
    elif opts.method == "permutation":
        lower, upper, exact = _unpaired_shuffle_thresholds(arrays, b_idx, cand, opts)
        used = None if exact else opts.n_resamples
        inverter = _ThresholdInverter(lower, upper, exact)
        stat_l, p_l, stat_u, p_u, p_g, p_s = _threshold_sides(inverter, diff, delta)
        test = sup_test = "label-shuffle permutation " + ("(exact)" if exact else "(Monte Carlo)")
        ci_method = "label-shuffle test inversion"
    else:
        small = (n_c < 2) | (n_b < 2)
        if small.any():
            _warn_degenerate("systems with fewer than 2 items: their comparisons are NaN")
        lower, upper = _unpaired_bootstrap_thresholds(arrays, b_idx, cand, diff, opts)
        exact, used = False, opts.n_resamples
        inverter = _ThresholdInverter(lower, upper, False)
        stat_l, p_l, stat_u, p_u, p_g, p_s = _threshold_sides(inverter, diff, delta)
        nan = np.full(k, np.nan)
        stat_l, p_l, stat_u, p_u, p_g, p_s = (
            np.where(small, nan, x) for x in (stat_l, p_l, stat_u, p_u, p_g, p_s)
        )
        test = sup_test = "independent bootstrap (null-shifted)"
        ci_method = "basic bootstrap (test inversion)"
    return _finish(
        names,
        b_idx,
        cand,
        False,
        mod,
        opts,
        test,
        sup_test,
        mean_c,
        mean_b,
        diff,
        n_c,
        n_b,
        stat_l,
        p_l,
        stat_u,
        p_u,
        p_g,
        p_s,
        ci_method,
        exact,
        used,
        None,
        None,
        notes,
        inverter,
        skewed=None if mod == "binary" else _unpaired_skew(arrays, b_idx, cand, opts),
        unit=unit,
        estimand=estimand,
    )


# ============================================================================ family


def single_step_correction(correction: Correction) -> str:
    """The correction whose per-comparison level the intervals of a family use.

    Holm's and Holm-Šidák's step-down procedures have no informative simultaneous
    intervals that agree with every decision (Strassburger & Bretz 2008: compatible
    intervals collapse to the null value for the rejected hypotheses), so their
    single-step forms are used: Bonferroni for ``holm``, Šidák for ``holm-sidak``. The
    others are returned unchanged.

    References
    ----------
    .. [1] Šidák, Z. (1967). Rectangular confidence regions for the means of multivariate normal
           distributions. J. Amer. Statist. Assoc. 62(318), 626-633.
    .. [2] Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J.
           Statist. 6(2), 65-70.

    Examples
    --------
    >>> single_step_correction("holm-sidak")
    'sidak'
    """
    choices_iv({"correction": (correction, CORRECTIONS)})
    return {"holm": "bonferroni", "holm-sidak": "sidak"}.get(correction, correction)


@dataclass(frozen=True)
class MarginDecisions:
    """The decisions of a family of candidate-vs-baseline comparisons, every one read
    off a two-sided interval at the family's per-comparison level.

    One entry per comparison (the candidates of the given results, in order).

    Attributes
    ----------
    alpha, correction, interval_correction
        The family's α, the correction asked for, and the one the intervals use
        (:func:`single_step_correction`).
    m
        Comparisons in the family (those with a finite superiority p-value).
    confidence
        Level of every interval: ``1 − α₁`` with α₁ the per-comparison two-sided level
        (Bonferroni α/m, Šidák :math:`1 - (1 - α)^{1/m}`, none α; for ``fdr_bh`` the
        false-coverage-rate level Rα/m of Benjamini & Yekutieli (2005), R the number of
        significant superiority tests, at least 1; ``fdr_by`` divides by
        :math:`\\sum_{k \\le m} 1/k`).
    ci_low, ci_high
        The intervals of ``candidate − baseline``.
    p_superiority, p_superiority_adjusted
        Two-sided p of Δ = 0 and its adjusted value (significant iff ≤ α).
    p_noninferiority, p_noninferiority_adjusted, p_equivalence, p_equivalence_adjusted
        Raw one-sided p-values and adjusted ones, compared with α/2 (NaN without a
        margin).
    improved, regressed, noninferior, equivalent
        The claims: the interval lies on the better side of 0, on the worse side, above
        −δ (below δ when lower is better), inside (−δ, δ).
    verdict
        ``improved`` > ``regressed`` > ``non-inferior`` > ``inconclusive`` with a
        margin; ``improved`` / ``regressed`` / ``no detectable difference`` without.
    margin, direction
        Per comparison (NaN / None when no margin).
    """

    alpha: float
    correction: str
    interval_correction: str
    m: int
    confidence: float
    diff: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_superiority: np.ndarray
    p_superiority_adjusted: np.ndarray
    p_noninferiority: np.ndarray
    p_noninferiority_adjusted: np.ndarray
    p_equivalence: np.ndarray
    p_equivalence_adjusted: np.ndarray
    improved: np.ndarray
    regressed: np.ndarray
    noninferior: np.ndarray
    equivalent: np.ndarray
    verdict: tuple[str, ...]
    margin: np.ndarray
    direction: tuple[str, ...]

    @property
    def alpha_one_sided(self) -> float:
        """The level of the one-sided claims (non-inferiority, equivalence): α/2."""
        return self.alpha / 2


def _level_function(correction: str, m: int, alpha_fdr_base: np.ndarray | None) -> tuple[Any, Any]:
    """(L, L_inverse): the per-comparison two-sided level L(α) of a family level α, and
    the smallest α with ``q <= L(α)`` (1 if none)."""
    if correction == "none" or m <= 1 and correction in ("bonferroni", "sidak"):
        return (lambda a: a), (lambda q: np.where(q <= 1, q, 1.0))
    if correction == "bonferroni":
        return (lambda a: a / m), (lambda q: m * q)  # uncapped: callers cap at 1
    if correction == "sidak":

        def inv(q: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(q < 1, -np.expm1(m * np.log1p(-np.minimum(q, 1.0))), 1.0)

        return (lambda a: -np.expm1(np.log1p(-a) / m)), inv
    # fdr_bh / fdr_by: L(α) = max(R(α), 1) α / m', R(α) = #{BH-adjusted p <= α}
    assert alpha_fdr_base is not None
    factor = float(np.sum(1.0 / np.arange(1, m + 1))) if correction == "fdr_by" else 1.0
    a_sorted = np.sort(alpha_fdr_base[np.isfinite(alpha_fdr_base)])
    mm = m * factor

    def level(a: float) -> float:
        r = int(np.searchsorted(a_sorted, a, side="right"))
        return max(r, 1) * a / mm

    def inverse(q: np.ndarray) -> np.ndarray:
        out = np.ones(q.shape)
        starts = np.concatenate([[0.0], a_sorted])
        ends = np.concatenate([a_sorted, [np.inf]])
        for idx, qi in np.ndenumerate(q):
            if not np.isfinite(qi):
                out[idx] = np.nan
                continue
            for r in range(len(starts)):
                cand = max(starts[r], qi * mm / max(r, 1))
                if cand < ends[r] or (r == len(starts) - 1):
                    out[idx] = min(1.0, cand) if cand <= 1 else 1.0
                    break
        return out

    return level, inverse


def margin_decisions(
    results: Sequence[MarginResult], *, alpha: float = 0.05, correction: Correction = "holm-sidak"
) -> MarginDecisions:
    r"""Release decisions for a family of comparisons, each read off one interval.

    Parameters
    ----------
    results
        Margin results (one per dataset × metric of a release, say); their candidates
        are the family, in order. Each result keeps its own margin (or None) and
        direction.
    alpha
        Family-wise error rate (or false discovery rate for ``fdr_*``).
    correction
        The correction of the family; step-down corrections use their single-step form
        (:func:`single_step_correction`).

    Returns
    -------
    MarginDecisions

    Notes
    -----
    Every comparison gets a two-sided interval at :math:`1 - α_1`, the per-comparison
    level of the correction, computed by inverting its own tests
    (:meth:`MarginResult.interval`). With the two-sided single-step corrections the m
    intervals cover every true difference together with probability at least 1 − α
    (Bonferroni always; Šidák for independent comparisons and for normal statistics of
    any correlation, Šidák 1967), so *all* claims read off them — improved, regressed,
    non-inferior, equivalent — are together wrong with probability at most α.

    The claims, for a higher-is-better metric (mirrored when lower is better):
    improved iff the interval lies above 0, regressed iff below, non-inferior iff
    above −δ, equivalent iff inside (−δ, δ). As p-values, with q the two-sided-scale
    p-value (the two-sided superiority p, or twice a one-sided p) and L the level
    function (α/m, :math:`1-(1-α)^{1/m}`, ...), the adjusted p-value is the smallest
    family α at which the claim is made, :math:`L^{-1}(q)`; superiority's is compared
    with α (it is the usual single-step adjusted p-value), one-sided claims' are
    reported halved and compared with α/2 (ICH E9 1998, §5.5). So "adjusted p ≤ α"
    and "the interval excludes 0", and "adjusted non-inferiority p ≤ α/2" and "the
    interval lies above −δ", are the same statement. Bonferroni's adjusted one-sided
    p-value is thus :math:`\min(1, m p)`, its usual form.

    References
    ----------
    .. [1] ICH E9 (1998). Statistical principles for clinical trials, §5.5.
    .. [2] CPMP (2000). Points to consider on switching between superiority and
           non-inferiority. CPMP/EWP/482/99.
    .. [3] Šidák, Z. (1967). Rectangular confidence regions for the means of multivariate normal
           distributions. J. Amer. Statist. Assoc. 62(318), 626-633.
    .. [4] Strassburger, K. & Bretz, F. (2008). Compatible simultaneous lower confidence bounds for
           the Holm procedure and other Bonferroni-based closed tests. Statist. Med. 27(24),
           4914-4927.
    .. [5] Benjamini, Y. & Yekutieli, D. (2005). False discovery rate-adjusted multiple confidence
           intervals for selected parameters. J. Amer. Statist. Assoc. 100(469), 71-81.
    """
    choices_iv({"correction": (correction, CORRECTIONS)})
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InputError(
            f"alpha={alpha!r} must be between 0 and 1 (exclusive)", hint="e.g. alpha=0.05"
        )
    results = list(results)
    if not results:
        raise InputError("no comparison in the family", hint="give at least one MarginResult")
    method = single_step_correction(correction)

    def cat(name: str) -> np.ndarray:
        return np.concatenate([np.asarray(getattr(r, name), dtype=np.float64) for r in results])

    p_g, p_s, p_l, p_u = cat("p_greater"), cat("p_less"), cat("p_lower"), cat("p_upper")
    diff = cat("diff")
    margin = np.concatenate(
        [np.full(r.n_candidates, np.nan if r.margin is None else r.margin) for r in results]
    )
    direction = tuple(d for r in results for d in [r.direction] * r.n_candidates)
    higher = np.array([d == "higher" for d in direction])
    p_sup = np.minimum(1.0, 2 * np.minimum(p_g, p_s))
    finite = np.isfinite(p_sup)
    m = int(finite.sum())
    bh = None
    if method in ("fdr_bh", "fdr_by"):
        from reportgen.stats.multiplicity import adjust_pvalues

        bh = adjust_pvalues(
            np.where(finite, p_sup, np.nan), method="fdr_bh" if method == "fdr_bh" else "fdr_by"
        )
    level_fn, inverse = _level_function(method, max(m, 1), bh)
    alpha1 = float(level_fn(float(alpha)))
    confidence = 1 - alpha1

    def adjusted_one_sided(p: np.ndarray) -> np.ndarray:
        q = 2 * p
        with np.errstate(invalid="ignore"):
            out = np.minimum(1.0, np.where(q <= 1, inverse(np.minimum(q, 1.0)) / 2, 1.0))
        if method == "none":
            out = p.copy()
        return np.where(np.isfinite(p), out, np.nan)

    p_sup_adj = np.where(finite, np.minimum(1.0, inverse(np.where(finite, p_sup, 1.0))), np.nan)
    p_better = np.where(higher, p_g, p_s)
    p_worse = np.where(higher, p_s, p_g)
    p_ni = np.where(higher, p_l, p_u)
    p_eq = np.maximum(p_l, p_u)
    better_adj, worse_adj = adjusted_one_sided(p_better), adjusted_one_sided(p_worse)
    p_ni_adj, p_eq_adj = adjusted_one_sided(p_ni), adjusted_one_sided(p_eq)

    lows, highs = [], []
    for r in results:
        lo, hi = r.interval(confidence)
        lows.append(lo)
        highs.append(hi)
    ci_low, ci_high = np.concatenate(lows), np.concatenate(highs)

    half = alpha / 2
    # claims from the interval; the p-values above say the same (tests check it)
    with np.errstate(invalid="ignore"):
        improved = np.where(higher, ci_low > 0, ci_high < 0)
        regressed = np.where(higher, ci_high < 0, ci_low > 0)
        noninferior = np.where(higher, ci_low > -margin, ci_high < margin)
        equivalent = (ci_low > -margin) & (ci_high < margin)
    has_margin = np.isfinite(margin)
    noninferior &= has_margin
    equivalent &= has_margin
    verdict = []
    for k in range(len(diff)):
        if improved[k]:
            verdict.append("improved")
        elif regressed[k]:
            verdict.append("regressed")
        elif not has_margin[k]:
            verdict.append("no detectable difference")
        elif noninferior[k]:
            verdict.append("non-inferior")
        else:
            verdict.append("inconclusive")
    del better_adj, worse_adj, half
    return MarginDecisions(
        float(alpha),
        correction,
        method,
        m,
        confidence,
        diff,
        ci_low,
        ci_high,
        p_sup,
        p_sup_adj,
        p_ni,
        np.where(has_margin, p_ni_adj, np.nan),
        p_eq,
        np.where(has_margin, p_eq_adj, np.nan),
        improved,
        regressed,
        noninferior,
        equivalent,
        tuple(verdict),
        margin,
        direction,
    )

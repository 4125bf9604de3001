"""The checks of a pair beside its test (:mod:`reportgen.stats.pairwise`): the exact
guards counted on what carries the information (non-zero differences, discordant items,
the rarer 0/1 score) and their notes, the studentized bootstrap beside a t test on
heavily skewed differences (its p and interval, their hull), and the robust estimands'
tests of every pair (:mod:`reportgen.stats.robust`).

Kept apart from the engine so that each module stays one family of things; every
function takes the checked options of :func:`reportgen.stats.pairwise._options_iv`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from reportgen.plaintext import count
from reportgen.stats._degenerate import (
    MIN_SKEW_ITEMS,
    edgeworth_size_error,
    min_unpaired_items,
    sign_flip_constant_p,
    studentized_replicates,
)
from reportgen.stats._null_tests import t_pvalue, t_statistic
from reportgen.stats._resampling import (
    bootstrap_counts,
    chunk_sizes,
    enumerate_signs,
    exact_product,
)
from reportgen.stats.intervals import t_interval

if TYPE_CHECKING:
    from reportgen.stats.pairwise import _Options

__all__ = [
    "EXACT_CHECK_ITEMS",
    "RARE_SCORES",
    "skewed_note",
]


#: Up to this many non-zero paired differences, a t or bootstrap p-value below alpha
#: is checked against the exact sign-flip test (2^16 sign vectors at most).
EXACT_CHECK_ITEMS = 16


#: Below this many of the rarer score (1s or 0s) of two unpaired 0/1 samples, the
#: smallest p the exact test can give is checked for every pair (else only for pairs
#: whose p is below alpha, where the check can change a decision).
RARE_SCORES = 64


def _paired_robust(
    X: np.ndarray, ia: np.ndarray, ib: np.ndarray, n: int, opts: _Options
) -> tuple[Any, ...]:
    """The robust estimand of every pair (:mod:`reportgen.stats.robust`): statistic, p,
    estimate, interval, the interval's df (trimmed t) or None, and the names of the
    test and of the interval.

    The trimmed mean's pairs are taken in chunks of differences (vectorised); the
    Hodges-Lehmann shift's one pair at a time (its ranks count by sorting). Kept values
    that do not vary (every difference within the trimmed range equal) take the exact
    sign-flip p of those h values, as a constant difference does."""
    from reportgen.stats.robust import (
        hodges_lehmann_paired,
        signed_rank_interval,
        signed_rank_pvalue,
        trimmed_paired,
    )

    k = len(ia)
    estimate, low, high = np.empty(k), np.empty(k), np.empty(k)
    if opts.estimand == "trimmed":
        se, df = np.empty(k), np.empty(k)
        start = 0
        for size in chunk_sizes(k, max(1, n) * 8 * 3, opts.max_memory):
            sl = slice(start, start + size)
            estimate[sl], se[sl], df[sl] = trimmed_paired(X[:, ia[sl]] - X[:, ib[sl]])
            start += size
        with np.errstate(invalid="ignore", divide="ignore"):
            t = t_statistic(estimate, se, 0.0)
        p = t_pvalue(t, df, opts.alternative)
        low, high = t_interval(estimate, se, df, confidence=opts.confidence)
        flat = (se == 0) & (estimate != 0)
        if flat.any():  # the kept values do not vary: their exact sign-flip p
            kept = df[flat] + 1
            p = np.where(flat, 1.0, p)
            p[flat] = sign_flip_constant_p(kept, estimate[flat], opts.alternative)
            unbounded = 2.0 ** (1 - kept) > 1 - opts.confidence
            low[flat] = np.where(unbounded, np.nan, estimate[flat])
            high[flat] = np.where(unbounded, np.nan, estimate[flat])
        test = "Yuen trimmed t (20% trimmed mean of the differences)"
        return t, p, estimate, low, high, df, test, "trimmed t interval (Tukey-McLaughlin)"
    p = np.empty(k)
    for j in range(k):
        d = X[:, ia[j]] - X[:, ib[j]]
        estimate[j] = hodges_lehmann_paired(d)
        p[j] = signed_rank_pvalue(d, opts.alternative)
        low[j], high[j] = signed_rank_interval(d, 1 - opts.confidence)
    test = "Wilcoxon signed-rank (Hodges-Lehmann shift)"
    return estimate, p, estimate, low, high, None, test, "Hodges-Lehmann interval (Walsh averages)"


def _skew_hull(
    X: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    d_mean: np.ndarray,
    d_sd: np.ndarray,
    skewed: np.ndarray,
    p: Any,
    ci_low: Any,
    ci_high: Any,
    opts: _Options,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The paired t test's p-values and intervals where the differences are heavily
    skewed: the larger p and the hull of the intervals of t and the studentized
    bootstrap (Hall 1992).

    The bootstrap-t's one-sided errors are O(1/n), the t distribution's O(1/sqrt(n))
    under skewness; sample skewness is also large for symmetric heavy tails, where the t
    test is conservative and the bootstrap-t is not: requiring both keeps the size of
    each (intersection test)."""
    ks = np.flatnonzero(skewed)
    p = np.array(p, dtype=np.float64)
    ci_low, ci_high = np.array(ci_low, dtype=np.float64), np.array(ci_high, dtype=np.float64)
    b_p, b_low, b_high = _bootstrap_t(X, ia[ks], ib[ks], d_mean[ks], d_sd[ks], opts)
    p[ks] = np.maximum(p[ks], b_p)
    ci_low[ks] = np.minimum(ci_low[ks], b_low)
    ci_high[ks] = np.maximum(ci_high[ks], b_high)
    return p, ci_low, ci_high


def _paired_pair_notes(
    pair_notes: list[str],
    p: np.ndarray,
    n: int,
    nonzero: np.ndarray,
    min_items: int,
    needed: int,
    identical: np.ndarray,
    constant: np.ndarray,
    few: np.ndarray,
    mod: str,
    opts: _Options,
) -> None:
    """The note of each pair the paired test could not test as usual (too few items,
    identical or constant differences, too few non-zero differences to reach alpha),
    written into ``pair_notes``."""
    two_sided = opts.alternative == "two-sided"
    for k in range(len(pair_notes)):
        if n < min_items:
            pair_notes[k] = (
                f"{count(n, 'item')}: this test needs at least {min_items}; not testable"
            )
        elif identical[k]:
            pair_notes[k] = f"identical scores on all {n} items: no difference, p = 1"
        elif constant[k] and mod == "continuous":
            pair_notes[k] = (
                f"the same difference on all {n} items: exact sign-flip p "
                f"= {p[k]:.3g} ({'2' if two_sided else '1'}/2^{n})"
            )
        elif few[k]:
            k_nz = int(nonzero[k])
            floor = min(1.0, 2.0 ** (1 - k_nz) if two_sided else 2.0**-k_nz)
            flip = "; p is the exact sign-flip p" if mod == "continuous" else ""
            if k_nz == n:
                pair_notes[k] = (
                    f"{count(n, 'paired item')} cannot reach alpha = {opts.alpha:g} with an "
                    f"exact test (smallest p {floor:.3g}); at least {needed} are needed{flip}"
                )
                continue
            what, needs = (
                (f"only {k_nz} of {n} items are discordant", "discordant items")
                if mod == "binary"
                else (f"only {k_nz} of {n} paired differences are non-zero", "non-zero differences")
            )
            pair_notes[k] = (
                f"{what}: no exact test can reach alpha = {opts.alpha:g} (smallest p "
                f"{floor:.3g}); at least {needed} {needs} are needed{flip}"
            )


def skewed_note(n_a: int, n_b: int | None, hull: bool) -> str:
    """The note of a comparison of means whose differences are heavily skewed.

    References
    ----------
    .. [1] Bahadur, R. R. & Savage, L. J. (1956). The nonexistence of certain statistical
           procedures in nonparametric problems. Ann. Math. Statist. 27(4), 1115-1122.

    Examples
    --------
    >>> skewed_note(30, None, False)[:52]
    'approximate (skewed): heavily skewed differences, so'
    """
    items = f"{n_a} items" if n_b is None else f"{n_a} and {n_b} items"
    return (
        "approximate (skewed): heavily skewed differences, so no test of the mean holds its "
        f"level with {items}; not counted as significant"
        + (
            " (p is the larger of the t test's and the studentized bootstrap's, the "
            "interval their hull)"
            if hull
            else ""
        )
        + '; [metrics.NAME] estimand = "trimmed" or "hodges-lehmann" decides it'
    )


def _exact_sign_flip_p(d: np.ndarray, alternative: str) -> float:
    """The exact sign-flip p-value of the differences ``d`` (all 2^k sign vectors of
    its k values; above 20 values, the bound 2/2^k of the most extreme one: α below
    2e-6, enumeration too long for a guard).

    References
    ----------
    .. [1] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.
    """
    k = len(d)
    if k == 0:
        return 1.0
    if k > 20:
        return float(min(1.0, 2.0 ** (1 - k) if alternative == "two-sided" else 2.0**-k))
    sums = enumerate_signs(k) @ d
    obs = np.array([d.sum()])
    tol = np.array([1e-9 * np.abs(d).sum() + 1e-300])
    return float(_count_extreme(sums[:, None], obs, tol, alternative)[0] / 2**k)


def _bootstrap_t(
    X: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    d_mean: np.ndarray,
    d_sd: np.ndarray,
    opts: _Options,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Studentized bootstrap p-value and equal-tailed percentile-t interval of the mean
    difference of the pairs (Hall 1992; Efron & Tibshirani 1993, §12.5): with
    :math:`t^*` the replicates of :func:`reportgen.stats._degenerate.
    studentized_replicates`, one-sided p-values :math:`(\#\{t^* \ge t\} + 1)/(R + 1)`
    and :math:`(\#\{t^* \le t\} + 1)/(R + 1)` (two-sided: twice the smaller), and
    the interval :math:`[\bar D - \mathrm{se}\,q^*_{1-a/2},\ \bar D - \mathrm{se}\,
    q^*_{a/2}]`."""
    n = X.shape[0]
    D = X[:, ia] - X[:, ib]
    t_star = studentized_replicates(D, opts.rng, opts.n_resamples, opts.max_memory)
    se = d_sd / np.sqrt(n)
    t_obs = d_mean / se
    R = t_star.shape[0]
    upper = ((t_star >= t_obs).sum(axis=0) + 1) / (R + 1)
    lower = ((t_star <= t_obs).sum(axis=0) + 1) / (R + 1)
    if opts.alternative == "greater":
        p = upper
    elif opts.alternative == "less":
        p = lower
    else:
        p = np.minimum(1.0, 2 * np.minimum(upper, lower))
    a = 1 - opts.confidence
    # ±inf (a resample of one repeated value) as NaN, in place: no second R × pairs
    # matrix (770 MB for the 9,600 pairs tested so at 1,000 systems)
    finite = t_star
    finite[~np.isfinite(finite)] = np.nan
    q_low, q_high = _column_nanquantiles(finite, [a / 2, 1 - a / 2])
    return p, d_mean - se * q_high, d_mean - se * q_low


def _column_nanquantiles(M: np.ndarray, q: list[float]) -> np.ndarray:
    """``np.nanquantile(M, q, axis=0)``, the same bits: the columns without NaN (as a
    rule every one) by ``np.quantile`` along the axis at once, the others by
    ``np.nanquantile``, which takes each column apart in Python (9,600 columns of the
    pairs of 1,000 systems: seconds)."""
    out = np.empty((len(q), M.shape[1]))
    clean = ~np.isnan(M).any(axis=0)
    # a few columns at a time: np.quantile partitions a copy of what it is given
    for start in range(0, M.shape[1], _QUANTILE_COLUMNS):
        cols = slice(start, start + _QUANTILE_COLUMNS)
        ok = clean[cols]
        block = out[:, cols]
        if ok.all():
            block[...] = np.quantile(M[:, cols], q, axis=0)
            continue
        if ok.any():
            block[:, ok] = np.quantile(M[:, cols][:, ok], q, axis=0)
        block[:, ~ok] = np.nanquantile(M[:, cols][:, ~ok], q, axis=0)
    return out


#: Columns :func:`_column_nanquantiles` takes at once.
_QUANTILE_COLUMNS = 256


def _count_extreme(
    null: np.ndarray, observed: np.ndarray, tol: np.ndarray, alternative: str
) -> np.ndarray:
    """How many rows of ``null`` are at least as extreme as ``observed`` (column-wise),
    with a tolerance for floating-point ties."""
    if alternative == "two-sided":
        return (np.abs(null) >= np.abs(observed) - tol).sum(axis=0)
    if alternative == "greater":
        return (null >= observed - tol).sum(axis=0)
    return (null <= observed + tol).sum(axis=0)


def _unpaired_robust(
    arrays: list[np.ndarray], ia: np.ndarray, ib: np.ndarray, opts: _Options
) -> tuple[Any, ...]:
    """The robust estimand of every pair of independent samples
    (:mod:`reportgen.stats.robust`): statistic, p, estimate, interval, the interval's df
    (Yuen-Welch t) or None, and the names of the test and of the interval. Each
    system's trimmed parts are computed once and shared by its pairs."""
    from reportgen.stats.robust import (
        hodges_lehmann_unpaired,
        rank_sum_interval,
        rank_sum_pvalue,
        trimmed_parts,
        yuen_combine,
    )

    k = len(ia)
    if opts.estimand == "trimmed":
        parts = np.array([trimmed_parts(x) for x in arrays]).reshape(len(arrays), 3)
        m, d, h = parts[:, 0], parts[:, 1], parts[:, 2]
        estimate, se, df = yuen_combine(m[ia], d[ia], h[ia], m[ib], d[ib], h[ib])
        with np.errstate(invalid="ignore", divide="ignore"):
            t = t_statistic(estimate, se, 0.0)
        p = t_pvalue(t, df, opts.alternative)
        low, high = t_interval(estimate, se, df, confidence=opts.confidence)
        test = "Yuen-Welch trimmed t (20% trimmed means)"
        return t, p, estimate, low, high, df, test, "Yuen-Welch trimmed t interval"
    estimate, p, low, high = np.empty(k), np.empty(k), np.empty(k), np.empty(k)
    for j in range(k):
        a, b = arrays[ia[j]], arrays[ib[j]]
        estimate[j] = hodges_lehmann_unpaired(a, b)
        p[j] = rank_sum_pvalue(a, b, opts.alternative)
        low[j], high[j] = rank_sum_interval(a, b, 1 - opts.confidence)
    test = "Wilcoxon rank-sum (Hodges-Lehmann shift)"
    return estimate, p, estimate, low, high, None, test, "Hodges-Lehmann interval (differences)"


def _unpaired_pair_notes(
    names: tuple[str, ...],
    ia: np.ndarray,
    ib: np.ndarray,
    n_a: np.ndarray,
    n_b: np.ndarray,
    var: np.ndarray,
    diff: np.ndarray,
    small: np.ndarray,
    few: np.ndarray,
    floor: np.ndarray,
    degenerate: np.ndarray,
    min_items: int,
    mod: str,
    opts: _Options,
    successes: np.ndarray | None = None,
) -> list[str]:
    """The note of each pair the unpaired test could not test as usual (too few items,
    too few 1s or 0s, constant or all-0/all-1 samples)."""
    pair_notes = [""] * len(ia)
    needed = min_unpaired_items(opts.alpha, opts.alternative)
    for q in range(len(ia)):
        if small[q]:
            short = names[ia[q]] if n_a[q] < min_items else names[ib[q]]
            pair_notes[q] = (
                f"{short} has {count(min(n_a[q], n_b[q]), 'item')}; this test needs at least "
                f"{min_items} per system: not testable"
            )
        elif mod == "continuous" and var[ia[q]] == 0 and var[ib[q]] == 0 and diff[q] == 0:
            pair_notes[q] = "both systems score the same on every item: no difference, p = 1"
        elif mod == "binary" and opts.method == "auto" and degenerate[q]:
            pair_notes[q] = "both systems score all 0 or all 1: no difference, p = 1"
        elif few[q]:
            replaced = "; p is the exact label-shuffle p" if opts.method != "permutation" else ""
            if successes is None or min(n_a[q], n_b[q]) < needed:
                pair_notes[q] = (
                    f"{n_a[q]} and {n_b[q]} items cannot reach alpha = {opts.alpha:g} with "
                    f"an exact test (smallest p {floor[q]:.3g}); at least {needed} per "
                    "system are needed" + replaced
                )
            else:
                total = int(n_a[q] + n_b[q])
                k = int(successes[q])
                rare, what = (k, "scores of 1") if k <= total - k else (total - k, "scores of 0")
                pair_notes[q] = (
                    f"only {rare} {what} among the {total} items of the two systems: no "
                    f"exact test can reach alpha = {opts.alpha:g} (smallest p "
                    f"{floor[q]:.3g})" + replaced
                )
    return pair_notes


def _hull(
    ks: np.ndarray,
    p: Any,
    ci_low: Any,
    ci_high: Any,
    b_p: np.ndarray,
    b_low: np.ndarray,
    b_high: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At the pairs ``ks``: the larger of two p-values and the hull of two intervals
    (the bounds missing in one taken from the other)."""
    p = np.array(p, dtype=np.float64)
    ci_low = np.array(ci_low, dtype=np.float64)
    ci_high = np.array(ci_high, dtype=np.float64)
    p[ks] = np.maximum(p[ks], b_p)
    ci_low[ks] = np.fmin(ci_low[ks], b_low)
    ci_high[ks] = np.fmax(ci_high[ks], b_high)
    return p, ci_low, ci_high


def _unpaired_bootstrap_t(
    arrays: list[np.ndarray],
    ia: np.ndarray,
    ib: np.ndarray,
    diff: np.ndarray,
    opts: _Options,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Two-sample studentized bootstrap of the Welch statistic (Hall 1992, §3.5; Efron &
    Tibshirani 1993, §16.4): each system's items resampled on their own (shared by its
    pairs), :math:`t^* = ((\bar a^* - \bar b^*) - (\bar a - \bar b)) /
    \sqrt{s_a^{*2}/n_a + s_b^{*2}/n_b}`; p-values and the percentile-t interval as
    :func:`_bootstrap_t`."""
    R = opts.n_resamples
    used = np.unique(np.concatenate([ia, ib]))
    m_star: dict[int, np.ndarray] = {}
    v_star: dict[int, np.ndarray] = {}
    for s in used.tolist():
        x = arrays[s]
        n = len(x)
        C = x - x.mean()
        parts = exact_product(np.column_stack([C, C * C]), n)
        m1, m2 = np.empty(R), np.empty(R)
        done = 0
        for size in chunk_sizes(R, 16 * n + 32, opts.max_memory):
            sums = parts.weighted_sums(bootstrap_counts(opts.rng, size, n))
            m1[done : done + size] = sums[:, 0] / n
            m2[done : done + size] = sums[:, 1] / n
            done += size
        m_star[s] = m1
        v_star[s] = np.maximum(m2 - m1 * m1, 0.0) * n / (n - 1) / n
    k = len(ia)
    p, low, high = np.empty(k), np.empty(k), np.empty(k)
    a = 1 - opts.confidence
    for q, (i, j) in enumerate(zip(ia.tolist(), ib.tolist())):
        se_star = np.sqrt(v_star[i] + v_star[j])
        num = m_star[i] - m_star[j]  # centred resamples: the shift is already removed
        with np.errstate(invalid="ignore", divide="ignore"):
            t_star = np.where(se_star > 0, num / se_star, np.nan)
        x, y = arrays[i], arrays[j]
        se = math.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
        t_obs = diff[q] / se
        finite = t_star[np.isfinite(t_star)]
        upper = (np.sum(finite >= t_obs) + 1) / (len(finite) + 1)
        lower_p = (np.sum(finite <= t_obs) + 1) / (len(finite) + 1)
        if opts.alternative == "greater":
            p[q] = upper
        elif opts.alternative == "less":
            p[q] = lower_p
        else:
            p[q] = min(1.0, 2 * min(upper, lower_p))
        q_low, q_high = np.quantile(finite, [a / 2, 1 - a / 2])
        low[q], high[q] = diff[q] - se * q_high, diff[q] - se * q_low
    return p, low, high


def _unpaired_skew_flags(
    arrays: list[np.ndarray], ia: np.ndarray, ib: np.ndarray, alpha: float
) -> np.ndarray:
    r"""Per pair, whether the difference of two sample means is heavily skewed: its
    skewness is :math:`(\kappa_{3a}/n_a^2 - \kappa_{3b}/n_b^2) / (s_a^2/n_a +
    s_b^2/n_b)^{3/2}` (third cumulants of independent means add), and the flag is set
    when the Welch test's one-sided size at α/2 is off by more than half of α/2
    (:func:`reportgen.stats._degenerate.edgeworth_size_error` with n = 1, the skewness
    being that of the mean already)."""
    k3 = np.array(
        [((x - x.mean()) ** 3).mean() if len(x) >= MIN_SKEW_ITEMS else 0.0 for x in arrays]
    )
    v = np.array([x.var() if len(x) >= MIN_SKEW_ITEMS else 0.0 for x in arrays])
    n = np.array([max(1, len(x)) for x in arrays], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = (k3[ia] / n[ia] ** 2 - k3[ib] / n[ib] ** 2) / (v[ia] / n[ia] + v[ib] / n[ib]) ** 1.5
    return np.asarray(edgeworth_size_error(np.nan_to_num(g), 1, alpha) > alpha / 4)

"""Degenerate and tiny samples: the scale of the scores, differences that do not vary,
and the fewest items with which an exact test can reach α.

Shared by :mod:`reportgen.stats.pairwise` and :mod:`reportgen.stats.margins`, so that a
constant difference gets its exact sign-flip p-value (never 0), a comparison of fewer
items than any exact test needs is never called significant, and scores rescaled by any
factor give the same p-values and intervals (in their own units).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "MIN_SKEW_ITEMS",
    "ROUNDING_ULPS",
    "constant_differences",
    "edgeworth_size_error",
    "hypergeometric_floor",
    "min_paired_items",
    "min_split_p",
    "min_unpaired_items",
    "power_of_two_scale",
    "sample_skewness",
    "sign_flip_constant_p",
    "skew_flags",
    "split_constant_p",
    "split_counts",
    "studentized_replicates",
]

#: Differences whose SD is within this many units in the last place of the scores are
#: rounding noise (``x + 0.1 − x`` is not exactly 0.1): they do not vary.
ROUNDING_ULPS = 64

#: The fewest items whose sample skewness :func:`skew_flags` judges.
MIN_SKEW_ITEMS = 20


def power_of_two_scale(values: np.ndarray) -> float:
    """The power of two just above the largest finite ``|value|`` (1 for 0/1 data, empty
    or all-zero input).

    Dividing by a power of two is exact in floating point, so scores divided by it keep
    every digit while their squares neither underflow (scores of 1e-170, e.g. sequence
    likelihoods) nor overflow (1e300): every statistic computed on the divided scores,
    multiplied back where it carries units, is the same for any rescaling of the data.

    Examples
    --------
    >>> power_of_two_scale(np.array([0.3, -3.0])), power_of_two_scale(np.array([0.0, 1.0]))
    (4.0, 1.0)
    """
    v = np.abs(np.asarray(values, dtype=np.float64))
    v = v[np.isfinite(v)]
    if v.size == 0:
        return 1.0
    top = float(v.max())
    if top == 0.0 or bool(np.all((v == 0) | (v == 1))):
        return 1.0
    _, exponent = math.frexp(top)
    return math.ldexp(1.0, exponent)


def constant_differences(d_sd: np.ndarray, magnitude: np.ndarray) -> np.ndarray:
    """Whether each pair's item differences do not vary: their SD is 0 or within
    rounding of the scores' ``magnitude`` (the larger of the two systems' largest
    ``|score|``).

    References
    ----------
    .. [1] Higham, N. J. (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed.
           SIAM, §1.9 and §4.2 (rounding errors of differences and sums).
    """
    eps = np.finfo(np.float64).eps
    d_sd = np.asarray(d_sd, dtype=np.float64)
    return np.asarray(d_sd <= ROUNDING_ULPS * eps * np.asarray(magnitude), dtype=bool)


def sign_flip_constant_p(n: int | np.ndarray, d_mean: np.ndarray, alternative: str) -> np.ndarray:
    """Exact sign-flip p-value of ``n`` equal non-zero differences (1 where ``d_mean`` is 0).

    The observed sum is the most extreme of the :math:`2^n` sign vectors: two-sided
    :math:`p = 2/2^n` (the observed vector and its negation), one-sided :math:`1/2^n` in
    the direction of the difference and 1 against it (Pitman 1937).

    References
    ----------
    .. [1] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.

    Examples
    --------
    >>> sign_flip_constant_p(5, np.array([0.1, 0.0, -0.1]), "two-sided").tolist()
    [0.0625, 1.0, 0.0625]
    >>> sign_flip_constant_p(5, np.array([0.1, -0.1]), "greater").tolist()
    [0.03125, 1.0]
    """
    d = np.asarray(d_mean, dtype=np.float64)
    n_arr = np.broadcast_to(np.asarray(n, dtype=np.float64), d.shape)
    tail = np.exp2(-n_arr)
    if alternative == "two-sided":
        p = np.minimum(1.0, 2 * tail)
    elif alternative == "greater":
        p = np.where(d > 0, tail, 1.0)
    else:
        p = np.where(d < 0, tail, 1.0)
    return np.where(d == 0, 1.0, p)


def split_constant_p(
    n_a: np.ndarray, n_b: np.ndarray, diff: np.ndarray, alternative: str
) -> np.ndarray:
    """Exact label-shuffle p-value of two samples that are each constant (1 where the
    constants are equal).

    Only the observed split (and, with equal sizes, its mirror) is as extreme as the
    observed difference: :math:`p = c / \\binom{n_a + n_b}{n_a}` with c = 2 for a
    two-sided test of equal sizes, else 1 in the direction of the difference. The
    binomial coefficients come from :func:`split_counts`: exact integers for small
    samples, log-gamma beyond (O(1) per pair, whatever the sizes).

    References
    ----------
    .. [1] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.

    Examples
    --------
    >>> split_constant_p(np.array([3]), np.array([3]), np.array([1.0]), "two-sided").tolist()
    [0.1]
    """
    d = np.asarray(diff, dtype=np.float64)
    total = split_counts(np.asarray(n_a).reshape(d.shape), np.asarray(n_b).reshape(d.shape))
    with np.errstate(divide="ignore"):
        if alternative == "two-sided":
            p = np.minimum(1.0, np.where(np.asarray(n_a) == np.asarray(n_b), 2.0, 1.0) / total)
        elif alternative == "greater":
            p = np.where(d > 0, 1.0 / total, 1.0)
        else:
            p = np.where(d < 0, 1.0 / total, 1.0)
    return np.where(d == 0, 1.0, p)


#: Below this many items in the smaller sample :func:`split_counts` multiplies exact
#: integers (math.comb); beyond it every split p-value is below 4.3e-18.
_EXACT_SPLIT_ITEMS = 30

#: The natural log of the largest finite float: a coefficient beyond it is inf, as
#: ``float(math.comb(...))`` would overflow.
_LOG_MAX_FLOAT = math.log(np.finfo(np.float64).max)


def split_counts(n_a: np.ndarray, n_b: np.ndarray) -> np.ndarray:
    """The number of splits :math:`\\binom{n_a + n_b}{n_a}` of each pair of sample sizes,
    as floats (inf beyond the float range).

    Exact (the correctly rounded float of the integer) when the smaller sample has at
    most 30 items, where a split p-value can sit on a level such as 1/40 = 0.025; else
    :math:`\\exp(\\ln\\Gamma(n_a + n_b + 1) - \\ln\\Gamma(n_a + 1) - \\ln\\Gamma(n_b + 1))`,
    within a relative 1e-8 of it (the rounding of log-gammas of millions of items;
    every such coefficient is above 4.6e17, so its split p-values are below 4.3e-18). Each
    distinct pair of sizes is computed once: 14,042 items per system take microseconds,
    where ``math.comb(28084, 14042)`` took 14 ms for a number of 8,450 digits.

    References
    ----------
    .. [1] Abramowitz, M. & Stegun, I. A. (1964). Handbook of Mathematical Functions. NBS,
           6.1.1 and 24.1.1 (the binomial coefficient through the gamma function).

    Examples
    --------
    >>> split_counts(np.array([3, 1, 40]), np.array([3, 39, 40])).tolist()[:2]
    [20.0, 40.0]
    >>> from math import comb
    >>> bool(abs(split_counts(np.array([40]), np.array([40]))[0] / comb(80, 40) - 1) < 1e-12)
    True
    """
    from scipy.special import gammaln

    a = np.asarray(n_a, dtype=np.int64)
    b = np.asarray(n_b, dtype=np.int64)
    out = np.empty(np.broadcast(a, b).shape, dtype=np.float64)
    a, b = np.broadcast_to(a, out.shape), np.broadcast_to(b, out.shape)
    small = np.minimum(a, b) <= _EXACT_SPLIT_ITEMS
    if small.any():
        pairs, inverse = np.unique(np.stack([a[small], b[small]]), axis=1, return_inverse=True)
        exact = np.array([_comb_float(int(x), int(y)) for x, y in pairs.T], dtype=np.float64)
        out[small] = exact[np.ravel(inverse)]
    if not small.all():
        x, y = a[~small].astype(np.float64), b[~small].astype(np.float64)
        log_total = gammaln(x + y + 1) - gammaln(x + 1) - gammaln(y + 1)
        with np.errstate(over="ignore"):
            out[~small] = np.where(log_total > _LOG_MAX_FLOAT, np.inf, np.exp(log_total))
    return out


def _comb_float(a: int, b: int) -> float:
    """:math:`\\binom{a+b}{a}` as a float (inf beyond the float range)."""
    try:
        return float(math.comb(a + b, a))
    except OverflowError:
        return math.inf


def min_paired_items(alpha: float, alternative: str) -> int:
    """The fewest paired items with which the exact sign-flip test can reach ``alpha``:
    the smallest n with :math:`2/2^n \\le \\alpha` (two-sided) or :math:`1/2^n \\le
    \\alpha` (one-sided). Below it no test that does not assume a distribution can
    reject, so no comparison of fewer items is called significant.

    References
    ----------
    .. [1] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.

    Examples
    --------
    >>> min_paired_items(0.05, "two-sided"), min_paired_items(0.05, "greater")
    (6, 5)
    """
    tails = 2.0 if alternative == "two-sided" else 1.0
    n = 1
    while tails / 2.0**n > alpha:
        n += 1
    return n


def min_unpaired_items(alpha: float, alternative: str) -> int:
    """The fewest items per system (equal sizes) with which the exact label-shuffle test
    can reach ``alpha``: the smallest n with :math:`c/\\binom{2n}{n} \\le \\alpha`, c = 2
    two-sided and 1 one-sided.

    References
    ----------
    .. [1] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.

    Examples
    --------
    >>> min_unpaired_items(0.05, "two-sided"), min_unpaired_items(0.05, "greater")
    (4, 3)
    """
    tails = 2.0 if alternative == "two-sided" else 1.0
    n = 1
    while tails / math.comb(2 * n, n) > alpha:
        n += 1
    return n


def min_split_p(n_a: np.ndarray, n_b: np.ndarray, alternative: str) -> np.ndarray:
    """The smallest p-value the exact label-shuffle test of sizes ``n_a`` and ``n_b`` can
    give (:func:`split_constant_p` of a non-zero difference).

    References
    ----------
    .. [1] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.
    """
    d = np.ones(np.shape(n_a)) if alternative != "less" else -np.ones(np.shape(n_a))
    return split_constant_p(n_a, n_b, d, alternative)


def hypergeometric_floor(
    successes: np.ndarray, n_a: np.ndarray, n_b: np.ndarray, alternative: str
) -> np.ndarray:
    """The smallest p-value the exact label-shuffle test of 0/1 scores can give when
    ``successes`` of the ``n_a + n_b`` items score 1 (the margins fixed): the test's
    p-value at the most extreme table (every 1 in A, or as few as possible).

    4 successes among 2 × 1,000 items cannot give a two-sided p below 0.125 (the
    chance that 4 shuffled 1s all land on one side), however many items there are:
    the information of 0/1 scores is in the rarer value.

    References
    ----------
    .. [1] Fisher, R. A. (1935). The logic of inductive inference. J. R. Statist. Soc. 98(1),
           39-82 (the exact test of a 2 × 2 table conditional on its margins).

    Examples
    --------
    >>> hypergeometric_floor(np.array([4]), np.array([1000]), np.array([1000]), "two-sided")
    array([0.12462491])
    >>> round(2 * (1000 * 999 * 998 * 997) / (2000 * 1999 * 1998 * 1997), 8)  # by hand
    0.12462491
    """
    from reportgen.stats._null_tests import hypergeometric_pvalue

    k = np.asarray(successes, dtype=np.float64)
    a = np.asarray(n_a, dtype=np.float64)
    b = np.asarray(n_b, dtype=np.float64)
    most = np.minimum(k, a)  # as many 1s in A as the margins allow
    least = np.maximum(0.0, k - b)  # as few
    with np.errstate(invalid="ignore", divide="ignore"):
        high = hypergeometric_pvalue(most, a, k - most, b, alternative)
        low = hypergeometric_pvalue(least, a, k - least, b, alternative)
    if alternative == "greater":
        return np.asarray(high)
    if alternative == "less":
        return np.asarray(low)
    return np.asarray(np.minimum(high, low))


def edgeworth_size_error(skewness: np.ndarray, n: np.ndarray | int, alpha: float) -> np.ndarray:
    """First-order error of a one-sided t test's size at ``alpha / 2`` for differences
    of the given ``skewness`` over ``n`` items:
    :math:`|\\gamma|\\,(2z^2 + 1)\\,\\varphi(z) / (6\\sqrt n)`, z the :math:`1 - \\alpha/2`
    normal quantile (the :math:`n^{-1/2}` term of the Edgeworth expansion of the
    studentized mean; Hall 1992, §2.6).

    References
    ----------
    .. [1] Hall, P. (1992). The Bootstrap and Edgeworth Expansion. Springer, §2.6 (eq. 2.52).
    """
    from reportgen.stats._dist import norm_isf, norm_pdf

    z = float(norm_isf(alpha / 2))
    g = np.abs(np.asarray(skewness, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(
            g * (2 * z * z + 1) * norm_pdf(z) / (6 * np.sqrt(np.asarray(n, dtype=float)))
        )


def sample_skewness(D: np.ndarray) -> np.ndarray:
    """Column-wise sample skewness :math:`g_1 = m_3 / m_2^{3/2}` (scipy ``skew``,
    ``bias=True``); 0 for columns that do not vary.

    References
    ----------
    .. [1] Joanes, D. N. & Gill, C. A. (1998). Comparing measures of sample skewness and
           kurtosis. J. R. Statist. Soc. D 47(1), 183-189 (g_1).
    """
    D = np.asarray(D, dtype=np.float64)
    return _row_skewness(np.ascontiguousarray(D.T))


def _row_skewness(R: np.ndarray) -> np.ndarray:
    """:func:`sample_skewness` of each row of ``R`` (rows contiguous: one pass of
    products, no ``**3``, which numpy computes with ``pow``)."""
    dev = R - R.mean(axis=1, keepdims=True)
    d2 = dev * dev
    m2 = d2.mean(axis=1)
    m3 = np.einsum("ij,ij->i", d2, dev) / R.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.where(m2 > 0, m3 / m2**1.5, 0.0)
    return np.nan_to_num(g)


def skew_flags(
    X: np.ndarray, ia: np.ndarray, ib: np.ndarray, alpha: float, *, chunk: int | None = None
) -> np.ndarray:
    """Per pair, whether the item differences ``X[:, a] − X[:, b]`` are heavily skewed:
    their :func:`edgeworth_size_error` exceeds half of ``alpha / 2``, i.e. a one-sided
    t test at α/2 would be off by more than half its level (at n = 30 a skewness beyond
    about 0.8, at 100 beyond 1.5, at 200 beyond 2.1). Below :data:`MIN_SKEW_ITEMS`
    items nothing is flagged: the sample skewness of so few items says little (a
    sample of 10 normal differences passes the threshold a third of the time).

    References
    ----------
    .. [1] Hall, P. (1992). The Bootstrap and Edgeworth Expansion. Springer, §2.6.
    """
    n = X.shape[0]
    out = np.zeros(len(ia), dtype=bool)
    if n < MIN_SKEW_ITEMS:
        return out
    # systems as contiguous rows, pairs in chunks of about 32 MB of differences
    XT = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
    step = chunk or max(1, (1 << 22) // n)
    for start in range(0, len(ia), step):
        sl = slice(start, start + step)
        g = _row_skewness(XT[ia[sl]] - XT[ib[sl]])
        out[sl] = edgeworth_size_error(g, n, alpha) > alpha / 4
    return out


def studentized_replicates(
    D: np.ndarray, rng: np.random.Generator, n_resamples: int, max_memory: int
) -> np.ndarray:
    """Bootstrap-t replicates :math:`t^*_r = (\\bar D^*_r - \\bar D)/\\mathrm{se}^*_r` of
    each column of ``D`` (items × columns), ``n_resamples`` × columns; a resample of
    one repeated value has ±inf (0 at the mean).

    The studentized bootstrap estimates the distribution of the t statistic itself, so
    its one-sided errors are :math:`O(n^{-1})` where the t distribution's are
    :math:`O(n^{-1/2})` under skewness.

    References
    ----------
    .. [1] Hall, P. (1992). The Bootstrap and Edgeworth Expansion. Springer, §3.5.
    .. [2] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
           Chapman & Hall, §12.5 (bootstrap-t).

    Examples
    --------
    >>> D = np.array([[0.1], [0.4], [-0.2], [0.3], [2.0]])
    >>> t = studentized_replicates(D, np.random.default_rng(0), 200, 2**20)
    >>> t.shape, bool(np.isfinite(t).mean() > 0.95)
    ((200, 1), True)
    """
    from reportgen.stats._resampling import bootstrap_counts, chunk_sizes, exact_product

    D = np.asarray(D, dtype=np.float64)
    n, k = D.shape
    C = D - D.mean(axis=0)  # centred: no cancellation in the resampled variances
    parts = exact_product(np.hstack([C, C * C]), n)
    out = np.empty((n_resamples, k))
    done = 0
    for size in chunk_sizes(n_resamples, 16 * n + 24 * k, max_memory):
        # in place, two arrays of size × k beside the sums: the same operations in the
        # same order as m1 / sqrt(max(m2 − m1², 0) · n / (n − 1) / n), without the six
        # temporaries that expression makes (the peak of 1,000 systems' bootstrap-t)
        sums = parts.weighted_sums(bootstrap_counts(rng, size, n))
        sums /= n
        m1, m2 = sums[:, :k], sums[:, k:]
        var = np.multiply(m1, m1)
        np.subtract(m2, var, out=var)
        np.maximum(var, 0.0, out=var)
        var *= n
        var /= n - 1
        t = out[done : done + size]
        np.divide(var, n, out=t)
        np.sqrt(t, out=t)
        with np.errstate(invalid="ignore", divide="ignore"):
            np.divide(m1, t, out=t)
        flat = ~(var > 0)  # one repeated value (or NaN): ±inf by the mean's side, 0 at it
        if flat.any():
            side = m1[flat]
            t[flat] = np.where(side > 0, np.inf, np.where(side < 0, -np.inf, 0.0))
        done += size
    return out

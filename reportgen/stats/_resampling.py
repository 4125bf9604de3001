"""Vectorised resampling primitives: sign matrices, bootstrap counts, chunking, BCa.

Every resampling statistic here is linear in the data, so one matrix product of a
``(resamples × items)`` matrix of signs or bootstrap counts with the ``(items × systems)``
score matrix gives the resampled sums of *every* system at once; the statistic of a pair
is then the difference of two columns. Resamples are drawn in chunks so that memory stays
below ``max_memory`` bytes whatever the number of resamples.

Chunking must not change the numbers, but a BLAS sums the products of a matrix product
in an order that depends on the shape of the call (OpenBLAS, for one, switches to a
"small matrix" kernel below about 10^6 multiply-adds on Skylake-X and later), so the same
resample row could come out different in its last bits in chunks of 20 rows and of 2,000.
:class:`ExactProduct` removes the dependence: the scores are split into a few slices
whose products with integer weights are exact in float64, so every summation order
gives the same result.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy import special

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "NORMAL_RESAMPLING_ITEMS",
    "ExactProduct",
    "bca_interval",
    "bootstrap_counts",
    "bootstrap_weighted_sums",
    "chunk_sizes",
    "enumerate_signs",
    "enumerate_splits",
    "exact_product",
    "normal_sums",
    "normal_sums_adequate",
    "random_signs",
    "random_splits",
]

#: Default bound on the working memory of one resampling step (bytes).
DEFAULT_MAX_MEMORY = 256 * 2**20


@dataclass(frozen=True)
class ExactProduct:
    """Scores prepared for products with integer weight matrices whose result does not
    depend on the BLAS, its threads or the shape of the call (see :func:`exact_product`).

    Attributes
    ----------
    parts
        ``(n, k * m)``: the ``k`` slices of the ``(n, m)`` scores side by side.
    n_slices
        ``k`` (1 for integer-valued scores: then ``parts`` is the scores themselves).
    exact
        Whether the slices add up to the scores exactly (``False`` only when the scores
        span more binary orders of magnitude than the slices hold, or are not finite).
    """

    parts: np.ndarray
    n_slices: int
    exact: bool

    @property
    def shape(self) -> tuple[int, int]:
        """``(n, m)`` of the scores."""
        n, km = self.parts.shape
        return n, km // max(1, self.n_slices)

    def weighted_sums(self, weights: np.ndarray) -> np.ndarray:
        """``weights @ scores`` (``(rows, n) @ (n, m)``), slice by slice, the slices'
        exact sums added in a fixed order."""
        m = self.shape[1]
        product = weights @ self.parts
        if self.n_slices == 1:
            return product
        out = product[:, :m].copy()
        for k in range(1, self.n_slices):
            out += product[:, k * m : (k + 1) * m]
        return out

    @functools.cached_property
    def distinct_rows(self) -> tuple[ExactProduct, np.ndarray] | None:
        """The distinct rows of integer scores of small range (0/1 scores, counts) and
        each item's row, when there are at most a quarter as many as items; else None.
        A weighted sum over the items is then the same sum over the distinct rows with
        the weights of their items added up: exact either way, so the same bits
        (:func:`bootstrap_weighted_sums`)."""
        n, width = self.parts.shape
        if not self.exact or self.n_slices != 1 or n < 8 or width == 0:
            return None
        X = self.parts
        low, high = X.min(axis=0), X.max(axis=0)
        radix = high - low + 1
        if (radix > 2**20).any() or np.log2(radix).sum() > 62 or not np.array_equal(X, np.rint(X)):
            return None
        place = np.cumprod(np.concatenate([[1], radix[:-1]])).astype(np.int64)
        code = (X - low).astype(np.int64) @ place
        _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
        if 4 * len(first) > n:
            return None
        return ExactProduct(X[first], 1, True), inverse.astype(np.intp)


def exact_product(scores: np.ndarray, weight_bound: int, *, max_slices: int = 4) -> ExactProduct:
    """Split ``scores`` so that ``W @ scores`` is exact slice by slice for every integer
    matrix ``W`` whose rows have absolute sums at most ``weight_bound``.

    Parameters
    ----------
    scores
        ``(n, m)`` float scores.
    weight_bound
        Bound on :math:`\\sum_i |w_{ri}|` of every weight row: ``n`` for bootstrap
        counts and sign vectors, the number of draws for other multinomial counts.
    max_slices
        Most slices kept (4 keep at least 4 × 32 bits below each column's largest
        value, for up to 2^21 items).

    Returns
    -------
    ExactProduct
        ``exact_product(X, n).weighted_sums(W)`` stands for ``W @ X``.

    Notes
    -----
    The splitting of Ozaki et al. (2012): with :math:`\\beta = 53 - \\lceil\\log_2
    b\\rceil` (b the weight bound) and, per column, :math:`u = 2^{e - \\beta}` where
    :math:`2^{e}` bounds the column's remaining magnitude, the slice
    :math:`\\mathrm{rint}(x / u)\\,u` holds integers times u of at most
    :math:`2^\\beta` in magnitude, so every partial sum of a weighted sum is an
    integer times u below :math:`2^{53} u`: exact in float64 in any order, with or
    without fused multiply-adds. The remainder is split again. The slices' sums are
    added largest first, in one fixed order, so the product is a function of the
    weights and the scores alone (and within one rounding of the exact sum). Integer
    scores (0/1, counts) need one slice, which costs nothing. Scores spanning more than
    ``max_slices`` × β binary orders keep their first slices: the dropped remainder is
    below :math:`2^{-4\\beta}` of the column's largest value.

    References
    ----------
    .. [1] Ozaki, K., Ogita, T., Oishi, S. & Rump, S. M. (2012). Error-free transformations of
           matrix multiplication by using fast routines of matrix multiplication and its
           applications. Numer. Algorithms 59(1), 95-118.
    """
    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2 or X.size == 0 or not np.isfinite(X).all():
        return ExactProduct(X if X.ndim == 2 else X.reshape(len(X), -1), 1, False)
    beta = 53 - max(0, math.ceil(math.log2(max(1, int(weight_bound)))))
    slices: list[np.ndarray] = []
    rest = X
    for _ in range(max_slices):
        top = np.abs(rest).max(axis=0)
        if not top.any():
            break
        _, exponent = np.frexp(top)
        unit = np.ldexp(1.0, np.maximum(exponent - beta, -1074))
        piece = np.rint(rest / unit) * unit
        slices.append(piece)
        rest = rest - piece
    exact = not np.abs(rest).max(axis=0).any() if slices else True
    if len(slices) <= 1:
        return ExactProduct(X, 1, exact)
    return ExactProduct(np.concatenate(slices, axis=1), len(slices), exact)


def chunk_sizes(total: int, bytes_per_row: int, max_memory: int) -> Iterator[int]:
    """Split ``total`` rows into chunks of at most ``max_memory // bytes_per_row`` rows."""
    rows = max(1, int(max_memory // max(1, bytes_per_row)))
    done = 0
    while done < total:
        step = min(rows, total - done)
        yield step
        done += step


def enumerate_signs(n: int, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Rows ``start:stop`` of the ``2**n × n`` matrix of all ±1 sign vectors (row ``k``
    is the binary expansion of ``k``; row 0 is all +1, the identity).

    References
    ----------
    .. [1] Fisher, R. A. (1935). The Design of Experiments, §21. Oliver & Boyd.
    .. [2] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.

    Examples
    --------
    All 2**n sign vectors, each once (by hand: the rows of ±1 for n = 2):

    >>> enumerate_signs(2).astype(int).tolist()
    [[1, 1], [-1, 1], [1, -1], [-1, -1]]
    """
    stop = 2**n if stop is None else stop
    codes = np.arange(start, stop, dtype=np.int64)[:, None]
    bits = (codes >> np.arange(n, dtype=np.int64)) & 1
    return 1.0 - 2.0 * bits


def random_signs(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """A ``rows × n`` matrix of independent fair ±1 signs (float64). Peak memory is
    9 bytes per entry (the int8 draws and the float64 result).

    References
    ----------
    .. [1] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.
    .. [2] Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero. Stat. Appl.
           Genet. Mol. Biol. 9(1), article 39.
    """
    signs = rng.integers(0, 2, size=(rows, n), dtype=np.int8).astype(np.float64)
    signs *= -2.0
    signs += 1.0
    return signs


def random_splits(rng: np.random.Generator, rows: int, n_a: int, n_b: int) -> np.ndarray:
    """A ``rows × (n_a + n_b)`` float64 matrix whose rows are independent uniformly random
    0/1 indicators with exactly ``n_a`` ones: the items a label shuffle gives to A.

    References
    ----------
    .. [1] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.
    .. [2] Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero. Stat. Appl.
           Genet. Mol. Biol. 9(1), article 39.
    """
    base = np.zeros((rows, n_a + n_b), dtype=np.int8)
    base[:, :n_a] = 1
    return rng.permuted(base, axis=1).astype(np.float64)


def enumerate_splits(n_a: int, n_b: int) -> np.ndarray:
    """Every 0/1 indicator of ``n_a`` of ``n_a + n_b`` items, one per row (float64).

    References
    ----------
    .. [1] Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
           populations. Suppl. J. R. Statist. Soc. 4(1), 119-130.

    Examples
    --------
    The C(3, 1) = 3 ways to put one of three items in the first group:

    >>> enumerate_splits(1, 2).astype(int).tolist()
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    """
    import itertools

    rows = list(itertools.combinations(range(n_a + n_b), n_a))
    out = np.zeros((len(rows), n_a + n_b))
    out[np.repeat(np.arange(len(rows)), n_a), np.array(rows, dtype=np.intp).ravel()] = 1.0
    return out


def bootstrap_counts(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """A ``rows × n`` matrix of bootstrap multiplicities: each row counts how often each
    of ``n`` items is drawn in ``n`` draws with replacement (a Multinomial(n, 1/n)).
    Peak memory is 16 bytes per entry (int64 draws, then int64 counts and the float64
    result, never all three).

    References
    ----------
    .. [1] Efron, B. (1979). Bootstrap methods: another look at the jackknife. Ann. Statist. 7(1),
           1-26.
    .. [2] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    """
    draws = rng.integers(0, n, size=(rows, n), dtype=np.int64)
    draws += (np.arange(rows, dtype=np.int64) * n)[:, None]
    counts = np.bincount(draws.ravel(), minlength=rows * n)
    del draws
    return counts.reshape(rows, n).astype(np.float64)


#: Bootstrap draws made at a time by :func:`bootstrap_weighted_sums` (4 MB of int64).
_DRAW_BLOCK = 2**19


def bootstrap_weighted_sums(
    rng: np.random.Generator, rows: int, product: ExactProduct
) -> np.ndarray:
    """``product.weighted_sums(bootstrap_counts(rng, rows, n))``: the bootstrap sums of
    ``rows`` resamples of the ``n`` items, from the same draws and with the same bits.

    When the scores have few distinct rows (:attr:`ExactProduct.distinct_rows`: 0/1
    scores of a few systems have at most 2^k), each resample's draws are counted per
    distinct row instead of per item, a few rows of draws at a time: the counts of
    ``rows × n`` items are never made, and the sums, exact in both forms, are equal.
    Otherwise it is the product of :func:`bootstrap_counts`.

    References
    ----------
    .. [1] Efron, B. (1979). Bootstrap methods: another look at the jackknife. Ann. Statist. 7(1),
           1-26.
    .. [2] Ozaki, K., Ogita, T., Oishi, S. & Rump, S. M. (2012). Error-free transformations of
           matrix multiplication by using fast routines of matrix multiplication and its
           applications. Numer. Algorithms 59(1), 95-118.

    Examples
    --------
    >>> X = exact_product(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]] * 4), 12)
    >>> a = bootstrap_weighted_sums(np.random.default_rng(0), 5, X)
    >>> b = X.weighted_sums(bootstrap_counts(np.random.default_rng(0), 5, 12))
    >>> bool(np.array_equal(a, b))
    True
    """
    n = product.shape[0]
    distinct = product.distinct_rows
    if distinct is None:
        return product.weighted_sums(bootstrap_counts(rng, rows, n))
    patterns, row_of_item = distinct
    u = patterns.shape[0]
    out = np.empty((rows, product.shape[1]))
    step = max(1, _DRAW_BLOCK // n)
    for start in range(0, rows, step):
        k = min(step, rows - start)
        # the draws of bootstrap_counts, row block by row block (the same stream)
        cells = row_of_item[rng.integers(0, n, size=(k, n), dtype=np.int64)]
        cells += (np.arange(k, dtype=np.intp) * u)[:, None]
        counts = np.bincount(cells.ravel(), minlength=k * u).reshape(k, u)
        out[start : start + k] = patterns.weighted_sums(counts.astype(np.float64))
    return out


def bca_interval(
    replicates: np.ndarray, observed: np.ndarray, acceleration: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """Bias-corrected and accelerated bootstrap interval, column by column.

    Parameters
    ----------
    replicates
        ``(resamples, k)`` bootstrap replicates of ``k`` statistics.
    observed
        ``(k,)`` the statistics on the data.
    acceleration
        ``(k,)`` the jackknife acceleration :math:`\\hat a`.

    Notes
    -----
    Efron & Tibshirani (1993), §14.3: :math:`\\hat z_0 = \\Phi^{-1}(\\#\\{\\theta^* <
    \\hat\\theta\\}/B)` (ties counted half, as scipy does), and the interval is the
    :math:`\\alpha_{1,2} = \\Phi(\\hat z_0 + (\\hat z_0 + z_\\alpha)/(1 - \\hat a(\\hat z_0 +
    z_\\alpha)))` quantiles of the replicates. Columns whose replicates are all equal
    give that value as both limits. A replicate within a relative 1e-12 of the observed
    value counts as a tie, so rounding does not move the interval (the same interval
    for scores rescaled by any factor).

    References
    ----------
    .. [1] Efron, B. (1987). Better bootstrap confidence intervals. J. Amer. Statist. Assoc.
           82(397), 171-185.
    .. [2] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall,
           ch. 14 (BCa).
    """
    replicates = np.asarray(replicates, dtype=np.float64)
    # a replicate within rounding of the observed value is a tie (integer scores give
    # exact ties; the same scores times 1e160 give ties up to the last bits)
    tol = 1e-12 * np.maximum(np.abs(observed), np.nanmax(np.abs(replicates), axis=0, initial=0.0))
    below = (replicates < observed - tol).mean(axis=0)
    at_or_below = (replicates <= observed + tol).mean(axis=0)
    z0 = special.ndtri((below + at_or_below) / 2)
    alpha = (1 - confidence) / 2
    z_lo, z_hi = special.ndtri(alpha), special.ndtri(1 - alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        a1 = special.ndtr(z0 + (z0 + z_lo) / (1 - acceleration * (z0 + z_lo)))
        a2 = special.ndtr(z0 + (z0 + z_hi) / (1 - acceleration * (z0 + z_hi)))
    low = np.full(observed.shape, np.nan)
    high = np.full(observed.shape, np.nan)
    for j in range(replicates.shape[1]):
        column = replicates[:, j]
        if np.all(column == column[0]):
            low[j] = high[j] = column[0]
        elif np.isfinite(a1[j]) and np.isfinite(a2[j]):
            low[j], high[j] = np.percentile(column, [100 * a1[j], 100 * a2[j]])
    return low, high


#: Items from which paired bootstraps (rank distributions, the bootstrap means) draw the
#: sums from their normal approximation instead of resampling items
#: (``resampling="auto"``).
NORMAL_RESAMPLING_ITEMS = 10_000


#: Each kind of a 0/1 column (successes, failures), and the items on which two columns
#: differ, at least this many for :func:`normal_sums_adequate`.
NORMAL_MIN_COUNT = 30

#: Largest skewness of a resampled mean (sample skewness / sqrt(n)) of a column or of
#: the difference of two columns for :func:`normal_sums_adequate`.
NORMAL_MAX_MEAN_SKEWNESS = 0.05


def normal_sums_adequate(X: np.ndarray, *, pairs: bool = True, chunk: int = 64) -> bool:
    """Whether :func:`normal_sums` may stand for resampling the items of ``X``
    (items × systems): every 0/1 column has at least :data:`NORMAL_MIN_COUNT` successes
    and as many failures; every other column, and the difference of every two columns,
    has a resampled mean of skewness at most :data:`NORMAL_MAX_MEAN_SKEWNESS` (sample
    skewness / sqrt(n): heavy tails such as lognormal(0, 3) fail); and, with ``pairs``
    (the joint distribution matters, as for ranks), every two columns that differ at
    all differ on at least :data:`NORMAL_MIN_COUNT` items (else the bootstrap of their
    difference is a small discrete count: a system that solves one item more is never
    behind in the bootstrap, but behind 16% of the time under the normal
    approximation; identical columns stay identical under both).

    The normal approximation's error in a tail probability of a mean is about its
    skewness times :math:`(z^2 - 1)\varphi(z)/6` (Edgeworth; Hall 1992, §2.2), and the
    binomial's normal approximation needs about 30 of each kind of outcome; below
    either, the items are resampled.

    References
    ----------
    .. [1] Hall, P. (1992). The Bootstrap and Edgeworth Expansion. Springer, §2.2.
    .. [2] Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a
           binomial proportion. Statist. Sci. 16(2), 101-133 (the normal approximation's
           failure for few successes).

    Examples
    --------
    >>> X = np.zeros((10_000, 2)); X[:10, 0] = 1; X[:5000, 1] = 1
    >>> normal_sums_adequate(X)  # 10 successes in the first column
    False
    """
    X = np.asarray(X, dtype=np.float64)
    n, B = X.shape
    if n < 2 * NORMAL_MIN_COUNT:
        return False
    binary = (X == 0) | (X == 1)
    col_binary = binary.all(axis=0)
    if col_binary.any():
        k = X[:, col_binary].sum(axis=0)
        if np.any(np.minimum(k, n - k) < NORMAL_MIN_COUNT):
            return False
    limit = NORMAL_MAX_MEAN_SKEWNESS * math.sqrt(n)
    if (~col_binary).any() and np.any(np.abs(_skewness(X[:, ~col_binary])) > limit):
        return False
    if not pairs:
        return True
    ia, ib = np.triu_indices(B, k=1)
    if col_binary.all():
        # differing items from one product: W[a, b] = items a solves and b does not
        W = X.T @ (1.0 - X)
        differ = W[ia, ib] + W[ib, ia]
        return bool(np.all((differ == 0) | (differ >= NORMAL_MIN_COUNT)))
    Xt = np.ascontiguousarray(X.T)
    for start in range(0, len(ia), chunk):
        D = Xt[ia[start : start + chunk]] - Xt[ib[start : start + chunk]]
        differ = np.count_nonzero(D, axis=1)
        if np.any((differ > 0) & (differ < NORMAL_MIN_COUNT)):
            return False
        if np.any(np.abs(_skewness(D.T)) > limit):
            return False
    return True


def _skewness(A: np.ndarray) -> np.ndarray:
    """Column-wise sample skewness (0 for a constant column)."""
    dev = A - A.mean(axis=0)
    m2 = np.einsum("ij,ij->j", dev, dev) / A.shape[0]
    m3 = (dev**3).mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nan_to_num(np.where(m2 > 0, m3 / m2**1.5, 0.0))


def normal_sums(X: np.ndarray, R: int, rng: np.random.Generator) -> np.ndarray:
    """``R`` draws of the bootstrap sums of the columns of ``X`` from their normal
    approximation :math:`N(n\\bar x, n\\hat\\Sigma)` (rounded for 0/1 scores), with
    :math:`\\hat\\Sigma` the covariance of the rows (ddof 0): the covariance of the
    bootstrap sums, whose distribution tends to this normal as the items grow.

    References
    ----------
    .. [1] Bickel, P. J. & Freedman, D. A. (1981). Some asymptotic theory for the bootstrap.
           Ann. Statist. 9(6), 1196-1217 (the bootstrap of a mean is asymptotically normal).
    .. [2] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
           Hall, ch. 5.
    """
    return NormalSums(X).draw(R, rng)


class NormalSums:
    """:func:`normal_sums` in chunks: the square root of the covariance is computed once,
    and consecutive :meth:`draw` calls continue the generator's stream, so drawing R rows
    in chunks gives the same rows as one call of R."""

    def __init__(self, X: np.ndarray) -> None:
        self.n = X.shape[0]
        centred = X - X.mean(axis=0)
        cov = centred.T @ centred  # n × Σ̂ (ddof 0)
        w, V = np.linalg.eigh(cov)
        self.root = V * np.sqrt(np.clip(w, 0, None))
        self.total = X.sum(axis=0)
        self.binary = bool(np.all((X == 0) | (X == 1)))

    def draw(self, R: int, rng: np.random.Generator) -> np.ndarray:
        sums = self.total + rng.standard_normal((R, self.root.shape[0])) @ self.root.T
        if self.binary:
            sums = np.clip(np.rint(sums), 0, self.n)
        return sums

"""Vectorised resampling primitives: sign matrices, bootstrap counts, chunking, BCa.

Every resampling statistic here is linear in the data, so one matrix product of a
``(resamples × items)`` matrix of signs or bootstrap counts with the ``(items × systems)``
score matrix gives the resampled sums of *every* system at once; the statistic of a pair
is then the difference of two columns. Resamples are drawn in chunks so that memory stays
below ``max_memory`` bytes whatever the number of resamples.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy import special

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "bca_interval",
    "bootstrap_counts",
    "chunk_sizes",
    "enumerate_signs",
    "enumerate_splits",
    "random_signs",
    "random_splits",
]

#: Default bound on the working memory of one resampling step (bytes).
DEFAULT_MAX_MEMORY = 256 * 2**20


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
    is the binary expansion of ``k``; row 0 is all +1, the identity)."""
    stop = 2 ** n if stop is None else stop
    codes = np.arange(start, stop, dtype=np.int64)[:, None]
    bits = (codes >> np.arange(n, dtype=np.int64)) & 1
    return 1.0 - 2.0 * bits


def random_signs(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """A ``rows × n`` matrix of independent fair ±1 signs (float64). Peak memory is
    9 bytes per entry (the int8 draws and the float64 result)."""
    signs = rng.integers(0, 2, size=(rows, n), dtype=np.int8).astype(np.float64)
    signs *= -2.0
    signs += 1.0
    return signs


def random_splits(rng: np.random.Generator, rows: int, n_a: int, n_b: int) -> np.ndarray:
    """A ``rows × (n_a + n_b)`` float64 matrix whose rows are independent uniformly random
    0/1 indicators with exactly ``n_a`` ones: the items a label shuffle gives to A."""
    base = np.zeros((rows, n_a + n_b), dtype=np.int8)
    base[:, :n_a] = 1
    return rng.permuted(base, axis=1).astype(np.float64)


def enumerate_splits(n_a: int, n_b: int) -> np.ndarray:
    """Every 0/1 indicator of ``n_a`` of ``n_a + n_b`` items, one per row (float64)."""
    import itertools

    rows = list(itertools.combinations(range(n_a + n_b), n_a))
    out = np.zeros((len(rows), n_a + n_b))
    out[np.repeat(np.arange(len(rows)), n_a), np.array(rows, dtype=np.intp).ravel()] = 1.0
    return out


def bootstrap_counts(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """A ``rows × n`` matrix of bootstrap multiplicities: each row counts how often each
    of ``n`` items is drawn in ``n`` draws with replacement (a Multinomial(n, 1/n)).
    Peak memory is 16 bytes per entry (int64 draws, then int64 counts and the float64
    result, never all three)."""
    draws = rng.integers(0, n, size=(rows, n), dtype=np.int64)
    draws += (np.arange(rows, dtype=np.int64) * n)[:, None]
    counts = np.bincount(draws.ravel(), minlength=rows * n)
    del draws
    return counts.reshape(rows, n).astype(np.float64)


def bca_interval(replicates: np.ndarray, observed: np.ndarray, acceleration: np.ndarray,
                 confidence: float) -> tuple[np.ndarray, np.ndarray]:
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
    give that value as both limits.
    """
    replicates = np.asarray(replicates, dtype=np.float64)
    below = (replicates < observed).mean(axis=0)
    at_or_below = (replicates <= observed).mean(axis=0)
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

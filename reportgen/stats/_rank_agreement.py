"""Rankings across metrics and their agreement: TOPSIS (closeness to the ideal system over
several metrics) and the rank correlation of two orderings.

Private to :mod:`reportgen.stats.ranking`, which re-exports the public names."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.plaintext import count
from reportgen.records import columns_to_records, floats, ints
from reportgen.stats import _dist
from reportgen.stats._common import TabularMixin, system_names
from reportgen.stats._common import finite_or_none as _num
from reportgen.stats._degenerate import power_of_two_scale
from reportgen.stats._rank_common import (
    Direction,
    _direction_iv,
    _min_ranks,
)


@dataclass(frozen=True)
class TopsisResult(TabularMixin):
    """TOPSIS closeness of each system to the ideal.

    Attributes
    ----------
    systems, metrics
        Row and column names.
    score
        Relative closeness :math:`C_i = S_i^- / (S_i^+ + S_i^-)` in [0, 1]; higher is
        better. NaN if every system is identical on every weighted metric.
    rank
        Rank by score (1 = best, ties get the minimum rank).
    distance_ideal, distance_anti_ideal
        :math:`S_i^+` and :math:`S_i^-`.
    ideal, anti_ideal
        The weighted normalised ideal and anti-ideal points (one value per metric).
    weights
        Weights normalised to sum to 1.
    directions
        ``"higher"`` (benefit) or ``"lower"`` (cost) per metric.
    """

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    score: np.ndarray
    rank: np.ndarray
    distance_ideal: np.ndarray
    distance_anti_ideal: np.ndarray
    ideal: np.ndarray
    anti_ideal: np.ndarray
    weights: np.ndarray
    directions: tuple[str, ...]

    def order(self) -> tuple[str, ...]:
        """System names by descending score (ties in input order)."""
        return tuple(
            self.systems[i] for i in np.argsort(-np.nan_to_num(self.score, nan=-1), kind="stable")
        )

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (NaN as None)."""
        return columns_to_records(
            {
                "system": self.systems,
                "topsis_score": floats(self.score),
                "rank": ints(self.rank),
                "distance_ideal": floats(self.distance_ideal),
                "distance_anti_ideal": floats(self.distance_anti_ideal),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per-metric weights, directions, ideal points and the records."""
        return {
            "kind": "topsis",
            "metrics": [
                {
                    "metric": k,
                    "weight": float(self.weights[j]),
                    "direction": self.directions[j],
                    "ideal": _num(self.ideal[j]),
                    "anti_ideal": _num(self.anti_ideal[j]),
                }
                for j, k in enumerate(self.metrics)
            ],
            "systems": self.to_records(),
        }


def topsis(
    matrix: np.ndarray,
    *,
    directions: Direction | Sequence[Direction] = "higher",
    weights: Sequence[float] | np.ndarray | None = None,
    systems: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
) -> TopsisResult:
    """TOPSIS scores of a systems × metrics matrix of means (Ackerman et al. 2025, §7.4).

    Parameters
    ----------
    matrix
        ``(B, K)`` mean score of each system (row) on each metric (column).
    directions
        ``"higher"`` (benefit) or ``"lower"`` (cost): one for all metrics or one each.
    weights
        Non-negative metric weights (normalised to sum 1); default equal.
    systems, metrics
        Names; default ``"system 1"``, ... and ``"metric 1"``, ...

    Returns
    -------
    TopsisResult

    Raises
    ------
    InputError
        A non-2-D or non-finite matrix, wrong number of directions or weights, negative
        or all-zero weights.

    Warns
    -----
    DegenerateDataWarning
        A metric column of zeros (it contributes nothing), or all systems identical
        (scores NaN).

    Notes
    -----
    Hwang & Yoon (1981), *Multiple Attribute Decision Making*, Springer: vector
    normalisation :math:`r_{ij} = x_{ij}/\\sqrt{\\sum_i x_{ij}^2}`, weighting
    :math:`v_{ij} = w_j r_{ij}`, ideal :math:`A^+_j = \\max_i v_{ij}` for a benefit and
    :math:`\\min_i v_{ij}` for a cost metric (anti-ideal :math:`A^-` the reverse),
    Euclidean distances :math:`S_i^\\pm = \\lVert v_i - A^\\pm\\rVert` and closeness
    :math:`C_i = S_i^-/(S_i^+ + S_i^-)`. Ackerman et al. (2025, §7.4) used pymcdm, whose
    ``TOPSIS`` takes a normalisation function: compare with it only under vector normalisation.

    References
    ----------
    .. [1] Hwang, C.-L. & Yoon, K. (1981). Multiple Attribute Decision Making. Springer (TOPSIS).
    .. [2] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §7.4.

    Examples
    --------
    >>> res = topsis(np.array([[4.0, 3.0], [3.0, 4.0]]), weights=[0.75, 0.25])
    >>> [round(float(c), 6) for c in res.score]
    [0.75, 0.25]

    By hand: both columns have norm 5, weighted rows (0.6, 0.15) and (0.45, 0.2); the
    ideal is (0.6, 0.2), the anti-ideal (0.45, 0.15): distances 0.05 and 0.15.

    >>> round(0.15 / (0.05 + 0.15), 6)
    0.75
    """
    X = np.asarray(matrix, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise InputError(f"matrix must be systems × metrics (2-D), got shape {X.shape}")
    if not np.isfinite(X).all():
        raise InputError(
            "matrix contains NaN or infinite values",
            hint="give the mean of every system on every metric",
        )
    B, K = X.shape
    dirs = (directions,) * K if isinstance(directions, str) else tuple(directions)
    if len(dirs) != K:
        raise InputError(f"{len(dirs)} directions for {K} metrics")
    for d in dirs:
        _direction_iv(d)
    w = np.ones(K) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if w.shape != (K,):
        raise InputError(f"{w.size} weights for {K} metrics")
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise InputError("weights must be finite, non-negative and not all zero")
    w = w / w.sum()
    names = system_names(systems, B)
    metric_names = system_names(metrics, K, prefix="metric", hint="give one name per metric")
    # each column divided by a power of two first (exact; the normalisation below makes
    # TOPSIS scale-free): no square under- or overflows for means of 1e-300 or 1e300
    X = X / np.array([power_of_two_scale(X[:, j]) for j in range(K)])
    norm = np.sqrt((X**2).sum(axis=0))
    if (norm == 0).any():
        warnings.warn(
            (
                "a metric column of zeros contributes nothing to TOPSIS: "
                if (norm == 0).sum() == 1
                else "metric columns of zeros contribute nothing to TOPSIS: "
            )
            + ", ".join(metric_names[j] for j in np.flatnonzero(norm == 0)),
            DegenerateDataWarning,
            stacklevel=2,
        )
    V = np.divide(X, norm, out=np.zeros_like(X), where=norm > 0) * w
    benefit = np.array([d == "higher" for d in dirs])
    ideal = np.where(benefit, V.max(axis=0), V.min(axis=0))
    anti = np.where(benefit, V.min(axis=0), V.max(axis=0))
    s_plus = np.sqrt(((V - ideal) ** 2).sum(axis=1))
    s_minus = np.sqrt(((V - anti) ** 2).sum(axis=1))
    total = s_plus + s_minus
    if (total == 0).any():
        warnings.warn(
            "all systems are identical on the weighted metrics: TOPSIS scores are NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(total > 0, s_minus / total, np.nan)
    rank = _min_ranks(np.nan_to_num(score, nan=-1.0), "higher")
    return TopsisResult(names, metric_names, score, rank, s_plus, s_minus, ideal, anti, w, dirs)


@dataclass(frozen=True)
class RankAgreement(TabularMixin):
    """Agreement of two orderings of the same systems.

    Attributes
    ----------
    tau
        Kendall's τ = (concordant − discordant) / (n(n − 1)/2) (no ties in an ordering,
        so τ-a = τ-b).
    p_value
        Two-sided p-value of τ = 0 (scipy ``kendalltau``, exact for small n).
    n
        Number of systems.
    concordant, discordant
        Pair counts.
    swapped
        The discordant pairs, each as (system first in ``order_a``, system first in
        ``order_b``).
    """

    tau: float
    p_value: float
    n: int
    concordant: int
    discordant: int
    swapped: tuple[tuple[str, str], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (NaN as None)."""
        return {
            "kind": "rank_agreement",
            "tau": _num(self.tau),
            "p_value": _num(self.p_value),
            "n": self.n,
            "concordant": self.concordant,
            "discordant": self.discordant,
            "swapped": [list(p) for p in self.swapped],
        }

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per swapped pair."""
        return columns_to_records(
            {
                "first_in_a": tuple(a for a, _ in self.swapped),
                "first_in_b": tuple(b for _, b in self.swapped),
            }
        )


def rank_agreement(order_a: Sequence[str], order_b: Sequence[str]) -> RankAgreement:
    """Kendall's τ between two orderings of the same systems (Ackerman et al. 2025, §7.4).

    Parameters
    ----------
    order_a, order_b
        The same system names, each best first (e.g. ``OrderedRanking.systems`` and
        ``TopsisResult.order()``).

    Returns
    -------
    RankAgreement

    Raises
    ------
    InputError
        Orderings of different systems, repeated names, fewer than 2 systems.

    Notes
    -----
    Kendall (1938), *Biometrika* 30: τ = (C − D) / (n(n − 1)/2) over the n(n − 1)/2 pairs,
    C concordant (same relative order in both) and D discordant. The p-value is that of
    scipy's ``kendalltau`` on the positions (exact null distribution up to 33 systems,
    the normal approximation beyond; Kendall 1970, ch. 4).

    References
    ----------
    .. [1] Kendall, M. G. (1938). A new measure of rank correlation. Biometrika 30(1-2), 81-93.
    .. [2] Kendall, M. G. (1970). Rank Correlation Methods, 4th ed. Griffin, ch. 4.

    Examples
    --------
    >>> res = rank_agreement(["a", "b", "c", "d"], ["a", "c", "b", "d"])
    >>> round(res.tau, 4), res.swapped
    (0.6667, (('b', 'c'),))
    >>> from scipy import stats
    >>> round(float(stats.kendalltau([1, 2, 3, 4], [1, 3, 2, 4]).statistic), 4)  # (5 - 1) / 6
    0.6667
    """
    a = tuple(str(s) for s in order_a)
    b = tuple(str(s) for s in order_b)
    if len(set(a)) != len(a) or len(set(b)) != len(b):
        raise InputError("an ordering repeats a system")
    if set(a) != set(b):
        only = sorted(set(a) ^ set(b))
        raise InputError(
            "the orderings rank different systems", hint=f"in only one of them: {', '.join(only)}"
        )
    n = len(a)
    if n < 2:
        raise InputError(f"{count(n, 'system')}: agreement needs at least 2")
    pos_b = {s: k for k, s in enumerate(b)}
    pb = np.array([pos_b[s] for s in a])
    i, j = np.triu_indices(n, k=1)  # a ranks i before j
    disc = pb[i] > pb[j]
    D = int(disc.sum())
    C = len(i) - D
    swapped = tuple((a[x], a[y]) for x, y in zip(i[disc], j[disc]))
    return RankAgreement((C - D) / len(i), _kendall_pvalue(n, D), n, C, D, swapped)


def _kendall_pvalue(n: int, discordant: int) -> float:
    """Two-sided p-value of Kendall's τ between two orderings of ``n`` systems without
    ties, ``discordant`` pairs apart (what ``scipy.stats.kendalltau`` gives, without
    importing scipy.stats): exact up to 33 systems, or when at most one pair is out of
    order, from the number of permutations with each count of inversions (Kendall
    1970, ch. 4: the counts for n follow from those for n − 1 by adding the new
    element's 0 to n − 1 inversions); beyond, the normal approximation with variance
    n(n − 1)(2n + 5)/18."""
    total = n * (n - 1) // 2
    tail = min(discordant, total - discordant)
    if n <= 33 or tail <= 1:
        from fractions import Fraction  # here: 7 ms of every analyze's start otherwise

        counts = [1] + [0] * tail  # permutations of 1 element by inversions, up to the tail
        for m in range(2, n + 1):
            prefix = list(itertools.accumulate(counts))
            counts = [prefix[k] - (prefix[k - m] if k >= m else 0) for k in range(tail + 1)]
        return float(min(Fraction(1), Fraction(2 * sum(counts), math.factorial(n))))
    z = (total - 2 * discordant) / math.sqrt(n * (n - 1) * (2 * n + 5) / 18)
    return float(min(1.0, 2 * _dist.norm_sf(abs(z))))

"""Ranks of systems: bootstrap rank distributions, simultaneous rank intervals, the
ordered-ranking graph with cliques, compact letter displays, and a TOPSIS cross-check.

============================== ===========================================================
function                       what it gives
============================== ===========================================================
:func:`rank_distributions`     bootstrap distribution of each system's rank (Ackerman 2025)
:func:`simultaneous_rank_      confidence intervals that contain *all* true ranks at once
intervals`                     (Al Mohamad, Goeman & van Zwet 2022, Tukey-based)
:func:`ordered_ranking`        systems by mean, the graph of non-significant pairs, its
                               maximal cliques and isolated systems (Ackerman 2025, §7.1)
:func:`compact_letter_display` letters shared by systems that do not differ significantly
                               (Piepho 2004, insert-absorb)
:func:`topsis`                 TOPSIS closeness scores of a systems × metrics matrix
                               (Hwang & Yoon 1981; Ackerman et al. 2025, §7.4)
:func:`rank_agreement`         Kendall τ between two orderings and the pairs they swap
============================== ===========================================================

Rank 1 is the best system. ``direction="higher"`` (the default) means higher scores are
better; ``"lower"`` reverses every ordering. Ties get the *minimum* rank (competition
ranking, scipy ``rankdata(method="min")``): two systems tied for best both get rank 1, so
ranks stay integers and ``P(rank = 1)`` is the probability of being best *or tied for best*.
"""

from __future__ import annotations

import math
import string
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
from scipy import special, stats

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats._common import TabularMixin, system_names
from reportgen.stats._common import finite_or_none as _num
from reportgen.stats._resampling import (
    DEFAULT_MAX_MEMORY,
    NORMAL_RESAMPLING_ITEMS,
    NormalSums,
    bootstrap_counts,
    chunk_sizes,
    exact_product,
    normal_sums_adequate,
)

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from reportgen.stats.pairwise import PairwiseResult

__all__ = [
    "NORMAL_RESAMPLING_ITEMS",
    "MAX_GROUPS",
    "CompactLetterDisplay",
    "Direction",
    "MaximalGroups",
    "OrderedRanking",
    "RankAgreement",
    "RankDistributions",
    "RankIntervalMethod",
    "RankIntervals",
    "TopsisResult",
    "compact_letter_display",
    "maximal_groups",
    "ordered_ranking",
    "rank_agreement",
    "rank_distributions",
    "simultaneous_rank_intervals",
    "topsis",
]

Direction = Literal["higher", "lower"]
RankIntervalMethod = Literal["tukey", "bonferroni", "sidak"]
_Order = Literal["all-pairs", "first-vs-rest", "successive"]
_Alternative = Literal["two-sided", "greater", "less"]


# ============================================================================ helpers


def _direction_iv(direction: str) -> Direction:
    if direction not in get_args(Direction):
        raise InputError(
            f"direction={direction!r} is not valid",
            hint="use 'higher' (higher scores are better) or 'lower'",
        )
    return direction  # type: ignore[return-value]


def _confidence_iv(confidence: float) -> float:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float, np.floating))
        or not 0 < confidence < 1
    ):
        raise InputError(
            f"confidence={confidence!r} must be between 0 and 1 (exclusive)",
            hint="0.95 gives 95% intervals",
        )
    return float(confidence)


def _positive_int_iv(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name}={value!r} must be a positive integer")
    return int(value)


def _min_ranks(values: np.ndarray, direction: Direction) -> np.ndarray:
    """Competition ("min") ranks along the last axis, rank 1 = best."""
    key = -values if direction == "higher" else values
    return stats.rankdata(key, method="min", axis=-1).astype(np.int64)


def _quantile_from_counts(counts: np.ndarray, p: float) -> np.ndarray:
    """Smallest rank r with F(r) >= p for each row of rank counts (the inverted-CDF
    quantile of a discrete distribution; ranks are 1-based)."""
    cum = np.cumsum(counts, axis=1)
    total = cum[:, -1:]
    # integer counts: compare cum >= p * total with a guard against rounding of p * total
    reached = cum >= p * total - 1e-9 * total
    return np.argmax(reached, axis=1).astype(np.int64) + 1


# ============================================================================ rank distributions


@dataclass(frozen=True)
class RankDistributions(TabularMixin):
    """Bootstrap distribution of the rank of every system.

    Attributes
    ----------
    systems
        Names, one per entry of the arrays (input order).
    mean
        Observed mean score of each system.
    rank
        Observed rank (1 = best, ties get the minimum rank).
    rank_counts
        ``(n_systems, n_systems)`` integers: ``rank_counts[i, r - 1]`` is the number of
        resamples in which system ``i`` had rank ``r``; each row sums to ``n_resamples``.
    median_rank, mean_rank
        Median (inverted-CDF, an integer) and mean of the bootstrap ranks.
    p_best
        Share of resamples in which the system has rank 1 (best or tied for best).
    ci_low, ci_high
        Percentile interval of the rank at ``confidence``: the ``(1 − c)/2`` and
        ``(1 + c)/2`` inverted-CDF quantiles of the bootstrap ranks (integers).
    paired
        Whether items were resampled jointly for all systems.
    direction, confidence, n_resamples
        The options used.
    ties
        How ties are ranked (always ``"min"``).
    """

    systems: tuple[str, ...]
    mean: np.ndarray
    rank: np.ndarray
    rank_counts: np.ndarray
    median_rank: np.ndarray
    mean_rank: np.ndarray
    p_best: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    paired: bool
    direction: Direction
    confidence: float
    n_resamples: int
    ties: str = "min"
    resampling: str = "bootstrap"

    def probabilities(self) -> np.ndarray:
        """``rank_counts / n_resamples``: row ``i`` is the distribution of system ``i``'s
        rank over ranks 1..n_systems."""
        return self.rank_counts / self.n_resamples

    def order(self) -> tuple[str, ...]:
        """System names by observed rank (best first; ties by mean rank, then input)."""
        keys = np.lexsort((np.arange(len(self.systems)), self.mean_rank, self.rank))
        return tuple(self.systems[i] for i in keys)

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (NaN as None); ``rank_probabilities[r - 1]`` is P(rank = r)."""
        probs = self.probabilities()
        return [
            {
                "system": s,
                "mean": _num(self.mean[i]),
                "rank": int(self.rank[i]),
                "median_rank": int(self.median_rank[i]),
                "mean_rank": float(self.mean_rank[i]),
                "p_best": float(self.p_best[i]),
                "rank_ci_low": int(self.ci_low[i]),
                "rank_ci_high": int(self.ci_high[i]),
                "confidence": self.confidence,
                "ci_method": "bootstrap percentile",
                "resampling": self.resampling,
                "rank_probabilities": [float(v) for v in probs[i]],
                "paired": self.paired,
                "direction": self.direction,
                "n_resamples": self.n_resamples,
                "ties": self.ties,
            }
            for i, s in enumerate(self.systems)
        ]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the options and ``systems`` as :meth:`to_records`."""
        return {
            "kind": "rank_distributions",
            "paired": self.paired,
            "direction": self.direction,
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "ties": self.ties,
            "resampling": self.resampling,
            "systems": self.to_records(),
        }


def rank_distributions(
    samples: np.ndarray | Sequence[np.ndarray],
    *,
    paired: bool,
    systems: Sequence[str] | None = None,
    direction: Direction = "higher",
    n_resamples: int = 10000,
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    resampling: Literal["auto", "bootstrap", "normal"] = "auto",
) -> RankDistributions:
    """Bootstrap distribution of each system's rank (Ackerman et al. 2025, §3, option 3).

    Parameters
    ----------
    samples
        ``paired=True``: an ``(n_items, n_systems)`` matrix (systems scored on the same
        items). ``paired=False``: one 1-D array of scores per system (a 2-D matrix is
        taken column by column). No NaN; average repeated runs per item first.
    paired
        Resample items jointly for all systems (one bootstrap count matrix times the
        score matrix), or each system on its own items independently.
    systems
        Names; default ``"system 1"``, ...
    direction
        ``"higher"`` if higher scores are better, else ``"lower"``.
    n_resamples
        Bootstrap resamples R.
    confidence
        Level of the percentile rank intervals.
    rng
        ``numpy.random.Generator`` or seed.
    max_memory
        Bound on the working memory of one chunk of resamples, in bytes.
    resampling
        Paired data: ``"bootstrap"`` (resample the items), ``"normal"`` (draw the
        vector of sums from its normal approximation, see Notes), or ``"auto"``
        (default): normal from :data:`NORMAL_RESAMPLING_ITEMS` items on, where the
        bootstrap's cost (items × resamples) is large, when the approximation holds
        (:func:`~reportgen.stats._resampling.normal_sums_adequate`: enough successes
        and failures, light enough tails, and every two systems differing on enough
        items, so near-ties are resampled), else the bootstrap. Unpaired data always
        use the bootstrap (0/1 scores: exactly).

    Returns
    -------
    RankDistributions

    Raises
    ------
    InputError
        Bad options, NaN scores, fewer than 2 systems, a system without items, a paired
        matrix that is not 2-D.

    Notes
    -----
    Paired: with :math:`C` the ``(R × n)`` matrix of bootstrap multiplicities
    (Multinomial(n, 1/n) rows) and :math:`X` the ``(n × B)`` scores, the resampled sums
    are :math:`S = CX` and row :math:`r` of :math:`S` is ranked (ranking sums is ranking
    means, as every system has the same n). Unpaired: each system's mean is resampled
    independently; for 0/1 scores the mean of n draws is drawn directly as
    Binomial(n, p̂)/n, which has exactly the bootstrap distribution. Ties within a
    resample get the minimum rank (for 0/1 scores the paired sums are exact integers, so
    ties are exact). The percentile interval is
    :math:`[F^{-1}((1-c)/2), F^{-1}((1+c)/2)]` with :math:`F^{-1}(p) = \\min\\{r: F(r)
    \\ge p\\}` of the bootstrap rank distribution F. It is a per-system interval, not a
    simultaneous one (see :func:`simultaneous_rank_intervals`). Efron & Tibshirani
    (1993), *An Introduction to the Bootstrap*, ch. 13; Hall & Miller (2009), "Using the
    bootstrap to quantify the authority of an empirical ranking", *Ann. Statist.* 37.

    With ``resampling="normal"`` the resampled sums are drawn from
    :math:`N(n\\bar x, n\\hat\\Sigma)` (:math:`\\hat\\Sigma` the covariance of the
    per-item scores, ddof 0: the covariance of the bootstrap sums), the multivariate
    central limit theorem for the bootstrap; for 0/1 scores they are rounded to
    integers, so systems with identical scores still tie. This costs :math:`R B^2`
    instead of :math:`R n B`; at 10,000 items its rank probabilities equal the
    bootstrap's within Monte Carlo error (``tests/stats/test_ranking.py``).

    References
    ----------
    .. [1] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §3.
    .. [2] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> X = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 0], [1, 0, 1]], dtype=float)
    >>> res = rank_distributions(X, paired=True, n_resamples=2000, rng=1)
    >>> res.rank.tolist(), res.rank_counts.sum(axis=1).tolist()
    ([1, 2, 3], [2000, 2000, 2000])
    >>> float(res.p_best[0])
    1.0
    """
    direction = _direction_iv(direction)
    confidence = _confidence_iv(confidence)
    R = _positive_int_iv("n_resamples", n_resamples)
    if max_memory < 2**20:
        raise InputError(f"max_memory={max_memory!r} is below 1 MiB")
    generator = np.random.default_rng(rng)
    if paired:
        X = np.asarray(samples, dtype=np.float64)
        if X.ndim != 2:
            raise InputError(
                f"paired samples must be an items × systems matrix, got shape {X.shape}",
                hint="average repeated runs per item first, or "
                "pass paired=False with one array per system",
            )
        arrays = [X[:, j] for j in range(X.shape[1])]
    else:
        if isinstance(samples, np.ndarray) and samples.ndim == 2:
            arrays = [samples[:, j].astype(np.float64) for j in range(samples.shape[1])]
        else:
            arrays = [np.asarray(s, dtype=np.float64).ravel() for s in samples]
        X = None
    B = len(arrays)
    if B < 2:
        raise InputError(f"{B} system(s): ranking needs at least 2")
    names = system_names(systems, B)
    for name, a in zip(names, arrays):
        if len(a) == 0:
            raise InputError(f"system {name!r} has no items", hint="drop it before ranking")
        if np.isnan(a).any():
            raise InputError(
                "scores contain NaN",
                hint="drop items not scored by every system (paired) or missing scores (unpaired)",
            )
    mean = np.array([a.mean() for a in arrays])
    if resampling not in ("auto", "bootstrap", "normal"):
        raise InputError(
            f"resampling={resampling!r} is not valid", hint="use 'auto', 'bootstrap' or 'normal'"
        )
    normal = (
        paired
        and X is not None
        and (
            resampling == "normal"
            or (
                resampling == "auto"
                and X.shape[0] >= NORMAL_RESAMPLING_ITEMS
                and normal_sums_adequate(X)
            )
        )
    )
    # the resampled statistics come in chunks of rows (resamples) within max_memory, and
    # each chunk's ranks are counted at once: nothing of size resamples × systems is held
    counts = np.zeros((B, B), dtype=np.int64)
    offsets = np.arange(B, dtype=np.int64) * B

    def count(reps: np.ndarray) -> None:
        ranks = _min_ranks(reps, direction)
        counts[:] += np.bincount((ranks - 1 + offsets).ravel(), minlength=B * B).reshape(B, B)

    per_row = 48 * B  # a chunk's statistics, their ranks and the bincount's indices
    if normal:
        assert X is not None
        sums = NormalSums(X)
        for size in chunk_sizes(R, per_row + 8 * B, max_memory):
            count(sums.draw(size, generator))
        observed = X.sum(axis=0)
    elif paired:
        assert X is not None
        n = X.shape[0]
        operand = exact_product(X, n)
        # chunks of at most ~96 MiB: the bincount inside bootstrap_counts scatters into
        # the chunk's count matrix, which is faster when that matrix stays small
        for size in chunk_sizes(R, 16 * n + per_row, min(max_memory, 96 * 2**20)):
            count(operand.weighted_sums(bootstrap_counts(generator, size, n)))
        observed = X.sum(axis=0)
    else:
        # one stream per system, so that chunking the resamples leaves each system's
        # draws as one call would make them
        streams = [np.random.default_rng(int(k)) for k in generator.integers(0, 2**63, B)]
        biggest = max(len(x) for x in arrays)
        for size in chunk_sizes(R, per_row + 16 * biggest, max_memory):
            reps = np.empty((size, B))
            for b, x in enumerate(arrays):
                if np.all((x == 0) | (x == 1)):
                    reps[:, b] = streams[b].binomial(len(x), x.mean(), size=size) / len(x)
                else:  # one system: gathering the drawn items beats counts @ x
                    draws = streams[b].integers(0, len(x), size=(size, len(x)))
                    reps[:, b] = x[draws].mean(axis=1)
            count(reps)
        observed = mean
    alpha = (1 - confidence) / 2
    mean_rank = counts @ np.arange(1, B + 1) / R
    return RankDistributions(
        names,
        mean,
        _min_ranks(observed, direction),
        counts,
        _quantile_from_counts(counts, 0.5),
        mean_rank,
        counts[:, 0] / R,
        _quantile_from_counts(counts, alpha),
        _quantile_from_counts(counts, 1 - alpha),
        bool(paired),
        direction,
        confidence,
        R,
        resampling="normal" if normal else "bootstrap",
    )


# ============================================================================ simultaneous


@dataclass(frozen=True)
class RankIntervals(TabularMixin):
    """Simultaneous confidence intervals for the ranks of all systems.

    Attributes
    ----------
    systems
        Names, one per entry of the arrays (input order).
    mean, se
        The estimates and their standard errors (``se`` from the covariance diagonal
        when a covariance was given).
    rank
        Observed rank (1 = best, ties get the minimum rank).
    ci_low, ci_high
        Integer rank bounds; with probability at least ``confidence`` every system's
        true rank lies in its interval at the same time.
    n_better, n_worse
        Systems significantly better (resp. worse) than this one.
    critical_value
        The multiplier q of the pairwise intervals
        :math:`\\hat\\theta_i - \\hat\\theta_j \\pm q\\,\\mathrm{se}(\\hat\\theta_i -
        \\hat\\theta_j)`.
    method
        ``"tukey"`` (max-|z| critical value, exact or simulated), ``"bonferroni"``,
        ``"sidak"`` or ``"given"`` (a critical value passed in).
    critical_value_exact
        Whether q is exact (studentized range, one pair, Bonferroni, Šidák, given)
        rather than simulated.
    n_simulations
        Draws used to simulate q, or ``None``.
    direction, confidence
        The options used.
    """

    systems: tuple[str, ...]
    mean: np.ndarray
    se: np.ndarray
    rank: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_better: np.ndarray
    n_worse: np.ndarray
    critical_value: float
    method: str
    critical_value_exact: bool
    n_simulations: int | None
    direction: Direction
    confidence: float

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (NaN as None)."""
        return [
            {
                "system": s,
                "mean": _num(self.mean[i]),
                "se": _num(self.se[i]),
                "rank": int(self.rank[i]),
                "rank_ci_low": int(self.ci_low[i]),
                "rank_ci_high": int(self.ci_high[i]),
                "n_better": int(self.n_better[i]),
                "n_worse": int(self.n_worse[i]),
                "confidence": self.confidence,
                "ci_method": f"simultaneous ({self.method})",
                "critical_value": self.critical_value,
                "direction": self.direction,
            }
            for i, s in enumerate(self.systems)
        ]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the options and ``systems`` as :meth:`to_records`."""
        return {
            "kind": "simultaneous_rank_intervals",
            "method": self.method,
            "critical_value": self.critical_value,
            "critical_value_exact": self.critical_value_exact,
            "n_simulations": self.n_simulations,
            "direction": self.direction,
            "confidence": self.confidence,
            "systems": self.to_records(),
        }


def simultaneous_rank_intervals(
    means: np.ndarray,
    ses: np.ndarray | None = None,
    *,
    covariance: np.ndarray | None = None,
    systems: Sequence[str] | None = None,
    direction: Direction = "higher",
    confidence: float = 0.95,
    method: RankIntervalMethod = "tukey",
    n_simulations: int = 20000,
    critical_value: float | None = None,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> RankIntervals:
    """Simultaneous confidence intervals for ranks (Al Mohamad, Goeman & van Zwet 2022).

    Parameters
    ----------
    means
        ``(B,)`` estimates :math:`\\hat\\theta_i` (e.g. mean scores).
    ses
        ``(B,)`` standard errors of independent estimates (unpaired systems).
    covariance
        ``(B, B)`` covariance matrix of the estimates instead of ``ses`` — for systems
        scored on the same items (e.g. ``np.cov(X, rowvar=False) / n``).
    systems
        Names; default ``"system 1"``, ...
    direction
        ``"higher"`` if higher is better (rank 1 = largest mean), else ``"lower"``.
    confidence
        Simultaneous level :math:`1 - \\alpha`.
    method
        How the critical value q of the pairwise intervals is obtained (Notes).
    n_simulations
        Normal draws used to simulate the Tukey critical value when it has no closed form.
    critical_value
        Use this q instead (e.g. ``result.critical_value`` of an earlier call with the
        same standard errors); ``method`` is then reported as ``"given"``.
    rng, max_memory
        Generator or seed for the simulation; memory bound of one chunk (bytes).

    Returns
    -------
    RankIntervals

    Raises
    ------
    InputError
        Shapes that do not match, NaN or negative standard errors, both or neither of
        ``ses`` and ``covariance``, a covariance that is not symmetric positive
        semi-definite, bad options.

    Notes
    -----
    With :math:`\\sigma_{ij} = \\mathrm{sd}(\\hat\\theta_i - \\hat\\theta_j)`
    (:math:`\\sqrt{s_i^2 + s_j^2}` for independent estimates), the pairwise
    intervals :math:`\\hat\\theta_i - \\hat\\theta_j \\pm q\\sigma_{ij}` hold for all
    pairs at once with probability :math:`1-\\alpha` when q is the :math:`1-\\alpha`
    quantile of :math:`M = \\max_{i<j} |Z_i - Z_j| / \\sigma_{ij}`, Z ~ N(0, Σ) (Tukey's
    construction). System j is *significantly better* than i when
    :math:`\\hat\\theta_j - \\hat\\theta_i > q\\sigma_{ij}` (strict; higher is better),
    and the rank interval is (Al Mohamad et al. 2022)

    .. math:: [\\,1 + \\#\\{j: j \\text{ sig. better than } i\\},\\;
              B - \\#\\{j: j \\text{ sig. worse than } i\\}\\,].

    Critical value q: ``method="tukey"`` uses the studentized range when the estimates
    are independent with equal SEs (:math:`q = q_{1-\\alpha; B, \\infty}/\\sqrt 2`, scipy
    ``studentized_range``), :math:`z_{1-\\alpha/2}` when there is one pair, and otherwise
    the empirical :math:`1-\\alpha` quantile of M over ``n_simulations`` draws (Monte
    Carlo error of a few thousandths to hundredths). ``"bonferroni"``:
    :math:`z_{1-\\alpha/(2K)}`; ``"sidak"``: :math:`z_{(1 + (1-\\alpha)^{1/K})/2}`, K the
    number of pairs — both conservative and exact. Pairs with :math:`\\sigma_{ij} = 0`
    are excluded from M and differ significantly iff their means differ. The observed
    rank, under any tie-breaking, always lies inside its interval. The intervals assume
    normal estimates with known SEs (large n).

    References
    ----------
    .. [1] Al Mohamad, D., Goeman, J. J. & van Zwet, E. W. (2022). Simultaneous confidence intervals
           for ranks with application to ranking institutions. Biometrics 78(1), 238-247 (R
           package ICRanks, ``Method = "Tukey"``).

    Examples
    --------
    >>> res = simultaneous_rank_intervals(np.array([3.0, 1.0, 0.9]), np.array([0.3, 0.3, 0.3]))
    >>> res.ci_low.tolist(), res.ci_high.tolist()
    ([1, 2, 2], [1, 3, 3])
    """
    direction = _direction_iv(direction)
    confidence = _confidence_iv(confidence)
    if method not in get_args(RankIntervalMethod):
        raise InputError(
            f"method={method!r} is not valid",
            hint=f"use one of: {', '.join(get_args(RankIntervalMethod))}",
        )
    n_sim = _positive_int_iv("n_simulations", n_simulations)
    m = np.asarray(means, dtype=np.float64)
    if m.ndim != 1 or len(m) < 2:
        raise InputError(f"means must be a 1-D array of at least 2 systems, got shape {m.shape}")
    B = len(m)
    if np.isnan(m).any():
        raise InputError("means contain NaN", hint="drop systems without a mean first")
    if (ses is None) == (covariance is None):
        raise InputError(
            "give exactly one of ses and covariance",
            hint="ses for independent estimates, covariance for paired ones",
        )
    independent = covariance is None
    if independent:
        s = np.asarray(ses, dtype=np.float64)
        if s.shape != (B,):
            raise InputError(f"ses has shape {s.shape}, expected ({B},) like means")
        if np.isnan(s).any() or (s < 0).any() or not np.isfinite(s).all():
            raise InputError(
                "ses must be finite and non-negative",
                hint="systems with fewer than 2 items have no SE; drop them",
            )
        C = np.diag(s**2)
    else:
        C = np.asarray(covariance, dtype=np.float64)
        if C.shape != (B, B):
            raise InputError(f"covariance has shape {C.shape}, expected ({B}, {B})")
        if not np.isfinite(C).all() or not np.allclose(C, C.T, rtol=1e-10, atol=0):
            raise InputError("covariance must be finite and symmetric")
        eig = np.linalg.eigvalsh(C)
        if eig.min() < -1e-9 * max(1.0, float(np.abs(eig).max())):
            raise InputError(
                "covariance is not positive semi-definite",
                hint="use the sample covariance of the per-item scores / n",
            )
        C = (C + C.T) / 2
        s = np.sqrt(np.clip(np.diag(C), 0, None))
    ia, ib = np.triu_indices(B, k=1)
    sd = np.sqrt(np.clip(C[ia, ia] + C[ib, ib] - 2 * C[ia, ib], 0, None))
    positive = sd > 0
    K = int(positive.sum())
    alpha = 1 - confidence
    exact, used_sim = True, None
    label: str = method
    if critical_value is not None:
        q = float(critical_value)
        if not q > 0 or not math.isfinite(q):
            raise InputError(f"critical_value={critical_value!r} must be a positive number")
        label = "given"
    elif K == 0:
        q = float("nan")
    elif method == "bonferroni":
        q = float(special.ndtri(1 - alpha / (2 * K)))
    elif method == "sidak":
        q = float(special.ndtri((1 + confidence ** (1 / K)) / 2))
    elif K == 1:
        q = float(special.ndtri(1 - alpha / 2))
    elif independent and np.all(s == s[0]) and s[0] > 0:
        q = float(stats.studentized_range.ppf(confidence, B, np.inf) / math.sqrt(2))
    else:
        q = _simulate_max_stat(
            C,
            ia[positive],
            ib[positive],
            sd[positive],
            confidence,
            n_sim,
            np.random.default_rng(rng),
            max_memory,
        )
        exact, used_sim = False, n_sim
    if K == 0 and np.all(sd == 0):
        warnings.warn(
            "every pairwise difference has zero standard error: systems with "
            "different means are ranked without uncertainty",
            DegenerateDataWarning,
            stacklevel=2,
        )
    d = m[ia] - m[ib]  # positive: ia has the larger mean
    with np.errstate(invalid="ignore"):
        sig = np.where(positive, np.abs(d) > q * sd, d != 0)
    a_larger = sig & (d > 0)
    b_larger = sig & (d < 0)
    larger_than = np.zeros((B, B), dtype=bool)  # [i, j]: θ_i significantly > θ_j
    larger_than[ia[a_larger], ib[a_larger]] = True
    larger_than[ib[b_larger], ia[b_larger]] = True
    better = larger_than if direction == "higher" else larger_than.T
    n_better = better.sum(axis=0)  # j better than i: better[j, i]
    n_worse = better.sum(axis=1)
    return RankIntervals(
        system_names(systems, B),
        m,
        s,
        _min_ranks(m, direction),
        1 + n_better,
        B - n_worse,
        n_better,
        n_worse,
        q,
        label,
        exact,
        used_sim,
        direction,
        confidence,
    )


#: Simulated rows processed together in :func:`_simulate_max_stat`'s loop over systems
#: (a block of rows × systems stays in cache).
_MAX_STAT_ROWS = 256


def _simulate_max_stat(
    C: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    sd: np.ndarray,
    confidence: float,
    n_sim: int,
    rng: np.random.Generator,
    max_memory: int,
) -> float:
    """The ``confidence`` quantile of max_k |Z_ia − Z_ib| / sd_k for Z ~ N(0, C), over
    the pairs ``ia < ib`` given.

    The maximum runs over the systems a, each against the systems after it (a slice, no
    gathered copy of every pair), on blocks of :data:`_MAX_STAT_ROWS` simulated rows:
    the same values as gathering ``Z[:, ia] − Z[:, ib]`` for all pairs at once, with
    memory and time in B instead of B² per row (1,000 systems: about 10x faster).
    """
    w, V = np.linalg.eigh(C)
    root = V * np.sqrt(np.clip(w, 0, None))  # C = root @ root.T
    B = C.shape[0]
    # sd of pair (a, b > a), +inf where the pair is not given (its term is then 0)
    pair_sd = np.full((B, B), np.inf)
    pair_sd[ia, ib] = sd
    stat = np.empty(n_sim)
    done = 0
    for size in chunk_sizes(n_sim, 8 * 4 * B, max_memory):
        Z = rng.standard_normal((size, B)) @ root.T
        for start in range(0, size, _MAX_STAT_ROWS):
            block = Z[start : start + _MAX_STAT_ROWS]
            best = np.zeros(block.shape[0])
            for a in range(B - 1):
                np.maximum(
                    best,
                    (np.abs(block[:, a, None] - block[:, a + 1 :]) / pair_sd[a, a + 1 :]).max(
                        axis=1
                    ),
                    out=best,
                )
            stat[done + start : done + start + block.shape[0]] = best
        done += size
    return float(np.quantile(stat, confidence))


# ============================================================================ ordered ranking


@dataclass(frozen=True)
class OrderedRanking(TabularMixin):
    """Systems ordered by mean with the graph of non-significant pairs (Ackerman et al. 2025, §5.1).

    Attributes
    ----------
    systems
        Names, best first (descending mean for ``direction="higher"``).
    mean, rank
        Mean and rank (1 = best, ties get the minimum rank), aligned with ``systems``.
    edges
        ``(source, target, p_adjusted)`` of every compared pair that is *not*
        significant (``p_adjusted > alpha`` or NaN, then ``None``). Two-sided: source is
        the better of the two; one-sided: the system the alternative says is better.
    cliques
        Maximal cliques of at least ``min_clique_size`` systems of the (undirected)
        graph — groups whose members are pairwise not significantly different — each
        best first, listed by the mean of their best member (best first). Empty unless
        ``order == "all-pairs"``.
    isolated
        Systems with no edge: significantly different from every system compared with.
    letters
        Compact letter display (:func:`compact_letter_display`) aligned with ``systems``,
        or ``None`` unless ``order == "all-pairs"``.
    directed
        Whether the tests were one-sided (the graph is a DiGraph).
    direction, alpha, order, alternative
        The options used.
    """

    systems: tuple[str, ...]
    mean: np.ndarray
    rank: np.ndarray
    edges: tuple[tuple[str, str, float | None], ...]
    cliques: tuple[tuple[str, ...], ...]
    isolated: tuple[str, ...]
    letters: tuple[str, ...] | None
    directed: bool
    direction: Direction
    alpha: float
    order: str
    alternative: str
    min_clique_size: int = 2
    notes: tuple[str, ...] = field(default=())

    def graph(self) -> nx.Graph:
        """The graph of non-significant pairs as a networkx ``Graph`` (``DiGraph`` when
        one-sided); nodes carry ``mean`` and ``rank``, edges ``p_adjusted``."""
        import networkx as nx

        g = nx.DiGraph() if self.directed else nx.Graph()
        for i, s in enumerate(self.systems):
            g.add_node(s, mean=float(self.mean[i]), rank=int(self.rank[i]))
        for a, b, p in self.edges:
            g.add_edge(a, b, p_adjusted=p)
        return g

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system, best first: mean, rank, letters, the cliques it is in
        (indices into ``cliques``) and whether it is isolated."""
        return [
            {
                "system": s,
                "mean": _num(self.mean[i]),
                "rank": int(self.rank[i]),
                "letters": None if self.letters is None else self.letters[i],
                "cliques": [k for k, c in enumerate(self.cliques) if s in c],
                "isolated": s in self.isolated,
            }
            for i, s in enumerate(self.systems)
        ]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: nodes (system, mean, rank), edges (source, target, p_adjusted),
        cliques, isolated, letters and the options."""
        return {
            "kind": "ordered_ranking",
            "direction": self.direction,
            "alpha": self.alpha,
            "order": self.order,
            "alternative": self.alternative,
            "directed": self.directed,
            "min_clique_size": self.min_clique_size,
            "nodes": [
                {"system": s, "mean": _num(self.mean[i]), "rank": int(self.rank[i])}
                for i, s in enumerate(self.systems)
            ],
            "edges": [{"source": a, "target": b, "p_adjusted": p} for a, b, p in self.edges],
            "cliques": [list(c) for c in self.cliques],
            "isolated": list(self.isolated),
            "letters": None if self.letters is None else list(self.letters),
            "notes": list(self.notes),
        }


def ordered_ranking(
    means: np.ndarray,
    comparisons: PairwiseResult | np.ndarray,
    *,
    systems: Sequence[str] | None = None,
    direction: Direction = "higher",
    alpha: float | None = None,
    order: _Order | None = None,
    alternative: _Alternative | None = None,
    min_clique_size: int = 2,
) -> OrderedRanking:
    """Order systems by mean and build the graph of non-significant pairs with its
    cliques (Ackerman et al. 2025, §7.1 steps 2–4, §5.1).

    Parameters
    ----------
    means
        ``(B,)`` (aggregate) mean of each system, aligned with the systems of
        ``comparisons``.
    comparisons
        A :class:`~reportgen.stats.pairwise.PairwiseResult` (its ``p_adjusted``,
        ``alpha``, ``order`` and ``alternative`` are used), or a ``(B, B)`` matrix of
        adjusted p-values, NaN for pairs not compared: symmetric for two-sided tests;
        for one-sided tests entry ``[i, j]`` is the p-value of "i is better than j".
    systems
        Names; default those of the PairwiseResult, else ``"system 1"``, ...
    direction
        ``"higher"`` if higher means are better, else ``"lower"``.
    alpha
        Significance level; default the PairwiseResult's, else 0.05.
    order, alternative
        The comparison order and alternative of the tests; default the PairwiseResult's,
        else ``"all-pairs"`` and ``"two-sided"``. Given with a PairwiseResult they must
        agree with it.
    min_clique_size
        Smallest clique reported.

    Returns
    -------
    OrderedRanking

    Raises
    ------
    InputError
        Shapes or names that do not match, options contradicting the PairwiseResult,
        an asymmetric matrix for two-sided tests, p-values outside [0, 1].

    Notes
    -----
    A pair is significant when ``p_adjusted <= alpha`` (as
    :meth:`PairwiseResult.significant`); a NaN p-value is not significant. Edges join the
    non-significant pairs; the graph is directed when the tests were one-sided (Ackerman et
    al. 2025, §5.1). Cliques are the maximal cliques of the undirected graph
    (:func:`maximal_groups`: the maximal runs of consecutive systems when the graph is
    an interval graph in mean order, else Bron–Kerbosch up to :data:`MAX_GROUPS`
    cliques, past which the consecutive runs are given with a note) and are reported
    only for all-pairs comparisons —
    with fewer comparisons an uncompared pair is not evidence of similarity.
    Ackerman et al. (2025, §7.1) ask for two-sided tests with all pairs and right-tailed
    tests with the other orders, the systems being in descending order of their means.

    References
    ----------
    .. [1] Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025). Statistical multi-metric
           evaluation and ranking of LLM-based systems. arXiv:2501.18243, §5.1, §7.1.

    Examples
    --------
    >>> p = np.array([[np.nan, 0.3, 0.01], [0.3, np.nan, 0.2], [0.01, 0.2, np.nan]])
    >>> res = ordered_ranking(np.array([0.9, 0.8, 0.5]), p, systems=["a", "b", "c"])
    >>> res.cliques, res.letters
    ((('a', 'b'), ('b', 'c')), ('a', 'ab', 'b'))
    """
    from reportgen.stats.pairwise import PairwiseResult

    direction = _direction_iv(direction)
    min_clique_size = _positive_int_iv("min_clique_size", min_clique_size)
    m = np.asarray(means, dtype=np.float64)
    if m.ndim != 1 or len(m) < 2:
        raise InputError(f"means must be a 1-D array of at least 2 systems, got shape {m.shape}")
    if isinstance(comparisons, PairwiseResult):
        tests = _tests_of_result(
            comparisons,
            len(m),
            systems=systems,
            direction=direction,
            alpha=alpha,
            order=order,
            alternative=alternative,
        )
    else:
        tests = _tests_of_matrix(
            comparisons, len(m), systems=systems, alpha=alpha, order=order, alternative=alternative
        )
    if not 0 < tests.alpha < 1:
        raise InputError(f"alpha={tests.alpha!r} must be between 0 and 1 (exclusive)")
    finite = tests.p[~np.isnan(tests.p)]
    if ((finite < 0) | (finite > 1)).any():
        raise InputError("p-values must lie in [0, 1]")
    if np.isnan(m).any():
        raise InputError("means contain NaN", hint="drop systems without a mean first")

    # best first; ties keep the input order
    perm = np.argsort(-m if direction == "higher" else m, kind="stable")
    ranked = tuple(tests.names[i] for i in perm)
    edge_list = _nonsignificant_edges(tests, perm)
    edges = tuple((ranked[s], ranked[t], pv) for s, t, pv in edge_list)
    linked = {k for s, t, _ in edge_list for k in (s, t)}
    isolated = tuple(ranked[k] for k in range(len(m)) if k not in linked)
    notes: list[str] = []
    letters = None
    cliques: tuple[tuple[str, ...], ...] = ()
    if tests.order == "all-pairs":
        adjacency = np.zeros((len(m), len(m)), dtype=bool)
        if edge_list:
            e = np.asarray([(a, b) for a, b, _ in edge_list], dtype=np.int64)
            adjacency[e[:, 0], e[:, 1]] = adjacency[e[:, 1], e[:, 0]] = True
        groups = maximal_groups(adjacency)
        cliques = tuple(
            tuple(ranked[k] for k in c) for c in groups.groups if len(c) >= min_clique_size
        )
        letters = _letters_from_groups(ranked, groups).letters
        if not groups.complete:
            notes.append(_FALLBACK_NOTE)
    else:
        notes.append(f"order={tests.order!r}: cliques and letters need all-pairs comparisons")
    return OrderedRanking(
        ranked,
        m[perm],
        _min_ranks(m, direction)[perm],
        edges,
        cliques,
        isolated,
        letters,
        tests.alternative != "two-sided",
        direction,
        tests.alpha,
        tests.order,
        tests.alternative,
        min_clique_size,
        tuple(notes),
    )


@dataclass(frozen=True)
class _Tests:
    """The compared pairs of :func:`ordered_ranking`, whatever their source: an edge
    ``src[k] -> dst[k]`` ("src is not shown better than dst" when one-sided) with its
    adjusted p-value ``p[k]``."""

    names: tuple[str, ...]
    order: str
    alternative: str
    alpha: float
    src: np.ndarray
    dst: np.ndarray
    p: np.ndarray


def _tests_of_result(
    res: PairwiseResult,
    n: int,
    *,
    systems: Sequence[str] | None,
    direction: Direction,
    alpha: float | None,
    order: _Order | None,
    alternative: _Alternative | None,
) -> _Tests:
    """The pairs of a PairwiseResult, checked against the arguments given beside it."""
    if len(res.systems) != n:
        raise InputError(
            f"{n} means for the {len(res.systems)} systems of the comparisons",
            hint="give one mean per system, in the order of PairwiseResult.systems",
        )
    names = res.systems if systems is None else system_names(systems, n)
    if names != res.systems:
        raise InputError(
            "systems do not match PairwiseResult.systems",
            hint="omit systems to use the comparisons' names",
        )
    for opt, given, actual in (
        ("order", order, res.order),
        ("alternative", alternative, res.alternative),
    ):
        if given is not None and given != actual:
            raise InputError(
                f"{opt}={given!r} but the comparisons used {actual!r}",
                hint=f"omit {opt} to use the comparisons' setting",
            )
    ia, ib = np.asarray(res.index_a), np.asarray(res.index_b)
    src, dst = ia, ib
    if res.alternative != "two-sided":
        # the alternative names which system should be better: mean_a > mean_b for
        # "greater", which is "a better" when higher is better
        a_better = (res.alternative == "greater") == (direction == "higher")
        src, dst = (ia, ib) if a_better else (ib, ia)
    return _Tests(
        tuple(names),
        res.order,
        res.alternative,
        res.alpha if alpha is None else float(alpha),
        src,
        dst,
        np.asarray(res.p_adjusted, dtype=np.float64),
    )


def _tests_of_matrix(
    comparisons: np.ndarray,
    n: int,
    *,
    systems: Sequence[str] | None,
    alpha: float | None,
    order: _Order | None,
    alternative: _Alternative | None,
) -> _Tests:
    """The pairs of a matrix of adjusted p-values (NaN: not compared)."""
    P = np.asarray(comparisons, dtype=np.float64)
    if P.shape != (n, n):
        raise InputError(
            f"p-value matrix has shape {P.shape}, expected ({n}, {n})",
            hint="or pass the PairwiseResult itself",
        )
    names = system_names(systems, n)
    order_ = "all-pairs" if order is None else order
    alt = "two-sided" if alternative is None else alternative
    if order_ not in get_args(_Order):
        raise InputError(
            f"order={order_!r} is not valid", hint=f"use one of: {', '.join(get_args(_Order))}"
        )
    if alt not in get_args(_Alternative):
        raise InputError(
            f"alternative={alt!r} is not valid",
            hint=f"use one of: {', '.join(get_args(_Alternative))}",
        )
    off = ~np.eye(n, dtype=bool)
    if alt == "two-sided":
        if not np.array_equal(np.isnan(P), np.isnan(P.T)) or not np.allclose(
            np.nan_to_num(P), np.nan_to_num(P.T)
        ):
            raise InputError("the p-value matrix of two-sided tests must be symmetric")
        src, dst = np.nonzero(np.triu(~np.isnan(P), k=1))
    else:
        src, dst = np.nonzero(~np.isnan(P) & off)
    if order_ == "all-pairs":
        # every pair must be compared (two-sided: once; one-sided: at least one way)
        compared = ~np.isnan(P) | ~np.isnan(P.T)
        if not compared[off].all():
            raise InputError(
                "order='all-pairs' but some pairs have no p-value (NaN)",
                hint="fill the matrix or give the order used",
            )
    return _Tests(
        tuple(names), order_, alt, 0.05 if alpha is None else float(alpha), src, dst, P[src, dst]
    )


def _nonsignificant_edges(tests: _Tests, perm: np.ndarray) -> list[tuple[int, int, Any]]:
    """The edges of the pairs that are not significant (a NaN p-value is not), as
    positions in the ranking (best first), sorted; an undirected edge runs from the
    better-ranked system."""
    pos = np.empty(len(perm), dtype=np.int64)
    pos[perm] = np.arange(len(perm))
    directed = tests.alternative != "two-sided"
    nonsig = ~(tests.p <= tests.alpha)
    edge_list = []
    for s, t, pv in zip(tests.src[nonsig], tests.dst[nonsig], tests.p[nonsig]):
        if not directed and pos[t] < pos[s]:
            s, t = t, s
        edge_list.append((int(pos[s]), int(pos[t]), _num(pv)))
    edge_list.sort(key=lambda e: (e[0], e[1]))
    return edge_list


# ============================================================================ groups

#: The most maximal groups (cliques) enumerated when the graph of non-significant
#: pairs is not an interval graph in mean order; past it, the consecutive groups are
#: reported instead (:func:`maximal_groups`).
MAX_GROUPS = 2000


@dataclass(frozen=True)
class MaximalGroups:
    """Maximal groups of systems that are pairwise not significantly different.

    Attributes
    ----------
    groups
        Index tuples (ascending: best first), sorted by their members' indices.
    method
        ``"consecutive"``: the graph is an interval graph in mean order, its maximal
        cliques are the maximal runs of consecutive systems, found in ``O(B^2)``;
        ``"enumerated"``: the maximal cliques, all of them (at most ``max_groups``);
        ``"consecutive-fallback"``: more than ``max_groups`` maximal cliques exist, the
        maximal runs of consecutive, pairwise non-different systems are given instead.
    complete
        Whether two systems share a group if and only if they are not significantly
        different (``False`` only for the fallback).
    """

    groups: tuple[tuple[int, ...], ...]
    method: Literal["consecutive", "enumerated", "consecutive-fallback"]
    complete: bool


def _consecutive_runs(A: np.ndarray) -> list[tuple[int, ...]]:
    """The maximal runs ``[i..j]`` of consecutive indices that are pairwise adjacent."""
    B = len(A)
    runs: list[tuple[int, ...]] = []
    j = 0
    previous = -1
    for i in range(B):
        j = max(j, i)
        # extend while the next index is adjacent to every member of [i..j]
        while j + 1 < B and A[i : j + 1, j + 1].all():
            j += 1
        if j > previous:
            runs.append(tuple(range(i, j + 1)))
            previous = j
    return runs


def maximal_groups(adjacency: np.ndarray, *, max_groups: int = MAX_GROUPS) -> MaximalGroups:
    """Maximal cliques of the graph of non-significant pairs, without exponential work.

    Parameters
    ----------
    adjacency
        ``(B, B)`` symmetric boolean matrix, systems in rank order (best first):
        ``True`` where two systems are *not* significantly different (the diagonal is
        ignored).
    max_groups
        The most cliques enumerated when the fast path does not apply.

    Returns
    -------
    MaximalGroups

    Notes
    -----
    A graph has exponentially many maximal cliques in the worst case (Moon & Moser
    1965), so Bron–Kerbosch enumeration (Bron & Kerbosch 1973) cannot be run blindly
    on hundreds of systems. Non-significance between ordered means is almost always an
    *interval* structure: if systems i < j are not different, neither are any two
    systems ranked between them. That holds exactly when every edge ``(i, j)``,
    ``j > i + 1``, has the edges ``(i + 1, j)`` and ``(i, j - 1)`` (by induction on
    ``j - i``), checked in ``O(B^2)``; the maximal cliques are then exactly the maximal
    runs of consecutive systems whose members are pairwise adjacent (a clique spans an
    interval whose pairs are all edges), found in ``O(B^2)`` — the groups of
    consecutive systems of the compact letter display (Piepho 2004). Otherwise the
    cliques are enumerated (Bron–Kerbosch with Tomita's pivot, Tomita et al. 2006, on
    integer bitsets) up to ``max_groups`` cliques and ``10 * max_groups`` steps; past
    that bound the maximal consecutive runs are returned with ``complete=False``: systems
    sharing a group are still not
    different, but some non-different pairs then share no group.

    References
    ----------
    .. [1] Bron, C. & Kerbosch, J. (1973). Finding all cliques of an undirected graph. Commun. ACM
           16(9), 575-577.
    .. [2] Moon, J. W. & Moser, L. (1965). On cliques in graphs. Israel J. Math. 3, 23-28.
    .. [3] Tomita, E., Tanaka, A. & Takahashi, H. (2006). The worst-case time complexity for
           generating all maximal cliques and computational experiments. Theor. Comput. Sci.
           363(1), 28-42.
    .. [4] Piepho, H.-P. (2004). An algorithm for a letter-based representation of all-pairwise
           comparisons. J. Comput. Graph. Statist. 13(2), 456-466.

    Examples
    --------
    >>> A = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
    >>> maximal_groups(A)
    MaximalGroups(groups=((0, 1), (1, 2)), method='consecutive', complete=True)
    """
    A = np.asarray(adjacency, dtype=bool).copy()
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InputError(f"adjacency must be a square matrix, got shape {A.shape}")
    if not np.array_equal(A, A.T):
        raise InputError("adjacency must be symmetric")
    np.fill_diagonal(A, True)
    E = np.triu(A, k=2)  # edges (i, j) with j > i + 1
    i, j = np.nonzero(E)
    if A[i + 1, j].all() and A[i, j - 1].all():
        return MaximalGroups(tuple(_consecutive_runs(A)), "consecutive", True)
    np.fill_diagonal(A, False)
    found = _bron_kerbosch(A, max_groups=max_groups, max_steps=10 * max_groups)
    if found is None:
        np.fill_diagonal(A, True)
        return MaximalGroups(tuple(_consecutive_runs(A)), "consecutive-fallback", False)
    return MaximalGroups(tuple(sorted(found)), "enumerated", True)


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _bron_kerbosch(
    A: np.ndarray, *, max_groups: int, max_steps: int
) -> list[tuple[int, ...]] | None:
    """Maximal cliques by Bron–Kerbosch with Tomita's pivot, on integer bitsets, without
    recursion; ``None`` once more than ``max_groups`` cliques or ``max_steps`` calls."""
    B = len(A)
    # bit k of neighbours[i] is A[i, k]
    packed = np.packbits(A, axis=1, bitorder="little")
    neighbours = [int.from_bytes(row.tobytes(), "little") for row in packed]
    found: list[tuple[int, ...]] = []
    stack: list[tuple[tuple[int, ...], int, int]] = [((), (1 << B) - 1, 0)]
    steps = 0
    while stack:
        clique, P, X = stack.pop()
        steps += 1
        if steps > max_steps:
            return None
        if not P:
            if not X:
                found.append(tuple(sorted(clique)))
                if len(found) > max_groups:
                    return None
            continue
        pivot = max(_bits(P | X), key=lambda u: (P & neighbours[u]).bit_count())
        for v in _bits(P & ~neighbours[pivot]):
            stack.append(((*clique, v), P & neighbours[v], X & neighbours[v]))
            P &= ~(1 << v)
            X |= 1 << v
    return found


# ============================================================================ letters


@dataclass(frozen=True)
class CompactLetterDisplay(TabularMixin):
    """Letters shared by systems that are not significantly different.

    Attributes
    ----------
    systems
        Names, in the order given (best first).
    letters
        The letters of each system joined into one string (``"ab"``), aligned with
        ``systems``. Past 52 groups, labels are ``a1, b1, ...`` and the joined string
        separates them with ``","``.
    groups
        Members of each letter, in letter order (each group best first).
    labels
        The letter of each group.
    complete
        Whether two systems share a letter if and only if they are not significantly
        different; ``False`` when the groups are the fallback of
        :func:`maximal_groups` (then sharing a letter still means "not different").
    """

    systems: tuple[str, ...]
    letters: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]
    labels: tuple[str, ...]
    complete: bool = True

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system: ``system`` and ``letters``."""
        return [{"system": s, "letters": self.letters[i]} for i, s in enumerate(self.systems)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: systems with letters, and the groups by letter."""
        return {
            "kind": "compact_letter_display",
            "systems": self.to_records(),
            "groups": {lab: list(g) for lab, g in zip(self.labels, self.groups)},
            "complete": self.complete,
        }


_FALLBACK_NOTE = (
    f"more than {MAX_GROUPS:,} maximal groups of systems that do not differ: "
    "the groups (and letters) shown are the runs of consecutive systems in "
    "mean order that do not differ pairwise; two systems that share no group "
    "may still not differ (see the pairwise comparisons)"
)


def _letters_from_groups(names: tuple[str, ...], groups: MaximalGroups) -> CompactLetterDisplay:
    columns = list(groups.groups)  # sorted by their members' indices
    labels = tuple(_label(k) for k in range(len(columns)))
    sep = "," if len(columns) > 52 else ""
    member: list[list[int]] = [[] for _ in names]
    for k, c in enumerate(columns):
        for s in c:
            member[s].append(k)
    letters = tuple(sep.join(labels[k] for k in ks) for ks in member)
    named = tuple(tuple(names[s] for s in c) for c in columns)
    return CompactLetterDisplay(names, letters, named, labels, groups.complete)


def _label(k: int) -> str:
    letters = string.ascii_lowercase + string.ascii_uppercase
    return letters[k] if k < 52 else f"{string.ascii_lowercase[k % 26]}{k // 26 - 1}"


def compact_letter_display(
    systems_in_order: Sequence[str], significant_pairs: Sequence[tuple[str, str]] | np.ndarray
) -> CompactLetterDisplay:
    """Compact letter display (Piepho 2004): one letter per maximal group of systems
    that are pairwise not significantly different.

    Parameters
    ----------
    systems_in_order
        System names, best first (e.g. by descending mean).
    significant_pairs
        The significantly different pairs: ``(name, name)`` tuples, or a symmetric
        ``(B, B)`` boolean matrix aligned with ``systems_in_order``.

    Returns
    -------
    CompactLetterDisplay

    Raises
    ------
    InputError
        Unknown or duplicate names, a pair of a system with itself, a matrix of the
        wrong shape or not symmetric.

    Notes
    -----
    Piepho's insert-absorb algorithm (2004, §2) ends with exactly the maximal groups
    of mutually non-significant systems (the maximal cliques of the non-significance
    graph), so two systems share a letter if and only if they are not significantly
    different, and every system gets at least one letter. Those groups are computed
    here directly by :func:`maximal_groups`, in ``O(B^2)`` when they are runs of
    consecutive systems (the usual case) and by bounded enumeration otherwise —
    insert-absorb itself does work exponential in the number of systems in the worst
    case. Past :data:`MAX_GROUPS` groups the letters are the consecutive runs and
    :attr:`CompactLetterDisplay.complete` is ``False``. Letters are named in the order
    of their best member (then the next member, ...), so the best system gets ``a``.

    References
    ----------
    .. [1] Piepho, H.-P. (2004). An algorithm for a letter-based representation of all-pairwise
           comparisons. J. Comput. Graph. Statist. 13(2), 456-466.

    Examples
    --------
    >>> cld = compact_letter_display(["A", "B", "C", "D"], [("A", "C"), ("A", "D"), ("B", "D")])
    >>> cld.letters
    ('a', 'ab', 'bc', 'c')
    """
    names = tuple(str(s) for s in systems_in_order)
    B = len(names)
    if B == 0:
        raise InputError("no systems to letter")
    if len(set(names)) != B:
        raise InputError("system names must be distinct")
    index = {s: k for k, s in enumerate(names)}
    pairs: list[tuple[int, int]] = []
    if isinstance(significant_pairs, np.ndarray) and significant_pairs.ndim == 2:
        S = significant_pairs.astype(bool)
        if S.shape != (B, B) or not np.array_equal(S, S.T):
            raise InputError(
                f"the significance matrix must be symmetric ({B}, {B}), got shape {S.shape}"
            )
        return _letters_from_groups(names, maximal_groups(~S))
    else:
        for pair in significant_pairs:
            if len(pair) != 2:
                raise InputError(f"significant pair {pair!r} must have two systems")
            a, b = (str(x) for x in pair)
            for x in (a, b):
                if x not in index:
                    raise InputError(
                        f"unknown system {x!r} in significant_pairs",
                        hint=f"systems: {', '.join(names)}",
                    )
            if a == b:
                raise InputError(f"pair ({a!r}, {b!r}) compares a system with itself")
            i, j = sorted((index[a], index[b]))
            pairs.append((i, j))
        pairs = sorted(set(pairs))
    adjacency = np.ones((B, B), dtype=bool)
    if pairs:
        ij = np.asarray(pairs, dtype=np.int64)
        adjacency[ij[:, 0], ij[:, 1]] = adjacency[ij[:, 1], ij[:, 0]] = False
    return _letters_from_groups(names, maximal_groups(adjacency))


# ============================================================================ TOPSIS


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
        return [
            {
                "system": s,
                "topsis_score": _num(self.score[i]),
                "rank": int(self.rank[i]),
                "distance_ideal": _num(self.distance_ideal[i]),
                "distance_anti_ideal": _num(self.distance_anti_ideal[i]),
            }
            for i, s in enumerate(self.systems)
        ]

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
    norm = np.sqrt((X**2).sum(axis=0))
    if (norm == 0).any():
        warnings.warn(
            "metric column(s) of zeros contribute nothing to TOPSIS: "
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


# ============================================================================ agreement


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
        return [{"first_in_a": a, "first_in_b": b} for a, b in self.swapped]


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
    C concordant (same relative order in both) and D discordant. The p-value is scipy's
    ``kendalltau`` on the positions (exact null distribution when n is small).

    References
    ----------
    .. [1] Kendall, M. G. (1938). A new measure of rank correlation. Biometrika 30(1-2), 81-93.

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
        raise InputError(f"{n} system(s): agreement needs at least 2")
    pos_b = {s: k for k, s in enumerate(b)}
    pb = np.array([pos_b[s] for s in a])
    i, j = np.triu_indices(n, k=1)  # a ranks i before j
    disc = pb[i] > pb[j]
    D = int(disc.sum())
    C = len(i) - D
    swapped = tuple((a[x], a[y]) for x, y in zip(i[disc], j[disc]))
    p_value = float(stats.kendalltau(np.arange(n), pb).pvalue)
    return RankAgreement((C - D) / len(i), p_value, n, C, D, swapped)

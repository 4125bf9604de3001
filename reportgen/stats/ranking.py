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
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
from scipy import special

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.records import columns_to_records, floats, ints, optional
from reportgen.stats import _dist
from reportgen.stats._common import TabularMixin, system_names
from reportgen.stats._rank_agreement import (
    RankAgreement,
    TopsisResult,
    rank_agreement,
    topsis,
)
from reportgen.stats._rank_common import (
    Direction,
    RankIntervalMethod,
    _Alternative,
    _confidence_iv,
    _direction_iv,
    _min_ranks,
    _Order,
    _positive_int_iv,
    _quantile_from_counts,
)
from reportgen.stats._rank_groups import (
    _FALLBACK_NOTE,
    MAX_GROUPS,
    CompactLetterDisplay,
    MaximalGroups,
    _letters_from_groups,
    compact_letter_display,
    maximal_groups,
)
from reportgen.stats._resampling import (
    DEFAULT_MAX_MEMORY,
    NORMAL_RESAMPLING_ITEMS,
    NormalSums,
    bootstrap_weighted_sums,
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
        return columns_to_records(
            {
                "system": self.systems,
                "mean": floats(self.mean),
                "rank": ints(self.rank),
                "median_rank": ints(self.median_rank),
                "mean_rank": floats(self.mean_rank, nan_as_none=False),
                "p_best": floats(self.p_best, nan_as_none=False),
                "rank_ci_low": ints(self.ci_low),
                "rank_ci_high": ints(self.ci_high),
                "confidence": self.confidence,
                "ci_method": "bootstrap percentile",
                "resampling": self.resampling,
                "rank_probabilities": np.asarray(self.probabilities(), dtype=np.float64).tolist(),
                "paired": self.paired,
                "direction": self.direction,
                "n_resamples": self.n_resamples,
                "ties": self.ties,
            }
        )

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


# Over 100 lines of code: the three modalities' resampling (paired rows, unpaired
# per-system draws, runs) beside the chunked rank counting they share, so the memory
# bound can be read in one place.
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
        raise InputError(f"{B} system{'' if B == 1 else 's'}: ranking needs at least 2")
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
            count(bootstrap_weighted_sums(generator, size, operand))
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
        return columns_to_records(
            {
                "system": self.systems,
                "mean": floats(self.mean),
                "se": floats(self.se),
                "rank": ints(self.rank),
                "rank_ci_low": ints(self.ci_low),
                "rank_ci_high": ints(self.ci_high),
                "n_better": ints(self.n_better),
                "n_worse": ints(self.n_worse),
                "confidence": self.confidence,
                "ci_method": f"simultaneous ({self.method})",
                "critical_value": self.critical_value,
                "direction": self.direction,
            }
        )

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
    C, s, independent = _covariance_iv(ses, covariance, B)
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
        q = _dist.studentized_range_ppf(confidence, B) / math.sqrt(2)
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


def _covariance_iv(
    ses: np.ndarray | None, covariance: np.ndarray | None, B: int
) -> tuple[np.ndarray, np.ndarray, bool]:
    """The covariance of the ``B`` means, their SEs, and whether they are independent
    (``ses`` given), from exactly one of ``ses`` and ``covariance``."""
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
    return C, s, independent


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

    The maximum of each simulated row is :func:`_max_pair_terms` of it: the largest of
    the same terms ``|Z_a − Z_b| / sd`` as gathering ``Z[:, ia] − Z[:, ib]`` for all
    pairs at once gives (the same bits), on blocks of :data:`_MAX_STAT_ROWS` rows, with
    memory in B instead of B² per row.
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
            stat[done + start : done + start + block.shape[0]] = _max_pair_terms(block, pair_sd)
        done += size
    return float(np.quantile(stat, confidence))


#: Systems at each end of a simulated row whose pairs :func:`_max_pair_terms` computes
#: first, for a large lower bound of the row's maximum.
_EXTREMES = 16


def _max_pair_terms(Z: np.ndarray, pair_sd: np.ndarray) -> np.ndarray:
    """For each row of ``Z`` (rows × B), the largest ``|Z_a − Z_b| / pair_sd[a, b]`` over
    ``a < b`` (``pair_sd`` +inf where a pair is not compared: its term is 0), and 0
    without any pair.

    Exactly the largest of the terms one by one (each term is computed as that
    expression, a maximum does not round), with most of them skipped by a bound that
    cannot be wrong in floating point: the terms of system ``a`` against the systems
    after it are at most ``max(|Z_a − max_{b>a} Z_b|, |Z_a − min_{b>a} Z_b|)`` over the
    smallest ``pair_sd[a, b > a]`` (rounding is monotone), so where that is not above the
    largest term found so far, system ``a`` of that row is not computed. The pairs
    among each row's :data:`_EXTREMES` highest and lowest values come first (their
    terms are the largest as a rule). 1,000 systems × 50 items: three quarters of the
    (row, system) terms skipped, the simulation about 1.8x faster.
    """
    r, B = Z.shape
    best = np.zeros(r)
    if B < 2 or not r:
        return best
    T = np.ascontiguousarray(Z.T)  # systems × rows: each system's values contiguous
    K = _EXTREMES
    if B > 2 * K:
        sym = np.minimum(pair_sd, pair_sd.T)  # |Z_a − Z_b| = |Z_b − Z_a|: either order
        part = np.argpartition(Z, (K - 1, B - K), axis=1)
        ends = np.concatenate([part[:, :K], part[:, B - K :]], axis=1)
        values = np.take_along_axis(Z, ends, axis=1)
        terms = (
            np.abs(values[:, :, None] - values[:, None, :])
            / sym[ends[:, :, None], ends[:, None, :]]
        )
        best = terms.reshape(r, -1).max(axis=1)
        del terms, sym
    # the largest and smallest value after each system, per row
    after_max = np.maximum.accumulate(T[::-1], axis=0)[::-1]
    after_min = np.minimum.accumulate(T[::-1], axis=0)[::-1]
    buffer = np.empty((B - 1, r))
    flat = buffer.reshape(-1)
    for a in range(B - 1):
        sd_a = pair_sd[a, a + 1 :]
        smallest = sd_a.min()
        with np.errstate(invalid="ignore"):
            bound = (
                np.maximum(np.abs(T[a] - after_max[a + 1]), np.abs(T[a] - after_min[a + 1]))
                / smallest
            )
        # NaN (a non-finite value) is never skipped: the terms then decide, as one by one
        need = ~(bound <= best)
        k = int(np.count_nonzero(need))
        if not k:
            continue
        if 2 * k > r:  # most rows: in place, no gathered copy
            out = buffer[: B - a - 1]
            np.subtract(T[a], T[a + 1 :], out=out)
            np.abs(out, out=out)
            np.divide(out, sd_a[:, None], out=out)
            np.maximum(best, out.max(axis=0), out=best)
        else:  # the rows that need it, gathered into the same buffer (no allocation)
            rows = np.flatnonzero(need)
            sub = flat[: (B - a - 1) * k].reshape(B - a - 1, k)
            np.take(T[a + 1 :], rows, axis=1, out=sub, mode="clip")
            np.subtract(T[a, rows], sub, out=sub)
            np.abs(sub, out=sub)
            np.divide(sub, sd_a[:, None], out=sub)
            best[rows] = np.maximum(best[rows], sub.max(axis=0))
    return best


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
        return columns_to_records(
            {
                "system": self.systems,
                "mean": floats(self.mean),
                "rank": ints(self.rank),
                "letters": optional(list, self.letters, len(self.systems)),
                "cliques": [
                    [k for k, c in enumerate(self.cliques) if s in c] for s in self.systems
                ],
                "isolated": [s in self.isolated for s in self.systems],
            }
        )

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
            "nodes": columns_to_records(
                {"system": self.systems, "mean": floats(self.mean), "rank": ints(self.rank)}
            ),
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
    adjusted p-value ``p[k]`` and, from a comparison result, its decision
    ``significant[k]`` (else ``p <= alpha``, :func:`reportgen.stats.multiplicity.rejects`)."""

    names: tuple[str, ...]
    order: str
    alternative: str
    alpha: float
    src: np.ndarray
    dst: np.ndarray
    p: np.ndarray
    significant: np.ndarray | None = None

    def decided(self) -> np.ndarray:
        from reportgen.stats.multiplicity import rejects

        return self.significant if self.significant is not None else rejects(self.p, self.alpha)


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
        # the comparisons' own decisions (an approximate pair is never significant)
        np.asarray(res.significant(), dtype=bool) if alpha is None else None,
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
    nonsig = ~tests.decided()
    source, target = pos[tests.src[nonsig]], pos[tests.dst[nonsig]]
    if not directed:
        swap = target < source
        source, target = np.where(swap, target, source), np.where(swap, source, target)
    # sorted by (source, target), ties in the order given: a stable sort on two keys
    order = np.lexsort((target, source))
    p_values = [None if math.isnan(v) else v for v in tests.p[nonsig][order].tolist()]
    return list(zip(source[order].tolist(), target[order].tolist(), p_values, strict=True))

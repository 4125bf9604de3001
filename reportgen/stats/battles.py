"""Pairwise battles: who beat whom, with ties (Chatbot Arena, MT-bench pairwise judges).

A battle is one comparison of two systems on one prompt by one judge (a person or an
LLM) with one of three outcomes: A wins, B wins, or a tie (the arena's ``tie`` and
``tie (bothbad)`` alike). The battles of a dataset are summarised by counts per pair
(:func:`battle_counts`), from which

- :func:`bradley_terry_battles` fits the Bradley-Terry model with each tie as half a
  win for each side (Chatbot Arena's ``compute_mle_elo`` counts a tie so), with
  bootstrap intervals from resampling battles;
- :func:`battle_tests` tests each pair that met on the battles between them: the exact
  sign test of its decisive battles (ties carry no information about which is better,
  Dixon & Mood 1946), with the Clopper-Pearson interval of the share of decisive battles
  A won, corrected as the family says, each adjusted interval agreeing with its
  decision;
- :meth:`BattleCounts.decisive_share` is the arena's win-fraction matrix (ties left
  out) and :meth:`BattleCounts.win_rate` the win rate with ties as half.

Battles between two systems that never met say nothing about their order except
through others; systems of two groups that never met at all cannot be ordered
(:meth:`BattleCounts.components`): their ratings are fitted per group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reportgen.errors import InputError
from reportgen.names import Correction
from reportgen.records import columns_to_records, floats, ints
from reportgen.stats._common import PairsMixin, TabularMixin, system_names
from reportgen.stats._null_tests import binomial_pvalue
from reportgen.stats._resampling import DEFAULT_MAX_MEMORY
from reportgen.stats.leaderboard import (
    BradleyTerry,
    Scale,
    _bradley_terry_result,
    _bt_iv,
    _check_rng,
    _no_intervals,
    _point_fit,
    _refit_resamples,
)
from reportgen.stats.means import clopper_pearson_interval
from reportgen.stats.multiplicity import adjust_pvalues, decision_levels

__all__ = [
    "BattleCounts",
    "BattleTests",
    "battle_counts",
    "battle_tests",
    "bradley_terry_battles",
]

#: The test of a pair of systems from the battles between them.
SIGN_TEST = "exact sign test"


@dataclass(frozen=True)
class BattleCounts(TabularMixin):
    """The battles of one dataset counted per pair.

    Attributes
    ----------
    systems
        System names.
    wins
        ``(s, s)``: ``wins[a, b]`` battles that ``a`` won against ``b``.
    ties
        ``(s, s)`` symmetric: tied battles between ``a`` and ``b`` (both kinds).
    both_bad
        ``(s, s)`` symmetric: of those, the ties judged "both bad" (``tie (bothbad)``).
    """

    systems: tuple[str, ...]
    wins: np.ndarray
    ties: np.ndarray
    both_bad: np.ndarray

    @property
    def n_battles(self) -> int:
        """All battles counted."""
        return int(round(self.wins.sum() + np.triu(self.ties, 1).sum()))

    @property
    def played(self) -> np.ndarray:
        """``(s, s)``: battles between each pair (wins either way and ties)."""
        return self.wins + self.wins.T + self.ties

    def decisive_share(self) -> np.ndarray:
        """``(s, s)``: the share of the decisive battles between ``a`` and ``b`` that
        ``a`` won, ties left out (Chatbot Arena's win-fraction matrix); NaN where the two
        never had a decisive battle."""
        decisive = self.wins + self.wins.T
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(decisive > 0, self.wins / decisive, np.nan)

    def win_rate(self) -> np.ndarray:
        """``(s, s)``: ``a``'s win rate against ``b`` with each tie as half a win; NaN
        where they never met."""
        played = self.played
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(played > 0, (self.wins + self.ties / 2) / played, np.nan)

    def components(self) -> tuple[tuple[int, ...], ...]:
        """The groups of systems linked by battles (connected components of the graph
        "a and b met"), largest first; systems of different groups were never compared,
        directly or through others."""
        s = len(self.systems)
        linked = self.played > 0
        seen = np.zeros(s, dtype=bool)
        groups = []
        for start in range(s):
            if seen[start]:
                continue
            group, frontier = {start}, [start]
            seen[start] = True
            while frontier:
                nxt = np.flatnonzero(linked[frontier].any(axis=0) & ~seen)
                seen[nxt] = True
                group.update(nxt.tolist())
                frontier = nxt.tolist()
            groups.append(tuple(sorted(group)))
        return tuple(sorted(groups, key=lambda g: (-len(g), g[0])))

    def subset(self, index: Sequence[int]) -> BattleCounts:
        """The counts of the systems ``index`` (in that order)."""
        k = np.asarray(index, dtype=np.intp)
        cut = np.ix_(k, k)
        return BattleCounts(
            tuple(self.systems[i] for i in k),
            self.wins[cut],
            self.ties[cut],
            self.both_bad[cut],
        )

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per pair that met (``a`` before ``b`` in the systems' order)."""
        a, b = np.nonzero(np.triu(self.played > 0, 1))
        share = self.decisive_share()
        rate = self.win_rate()
        return columns_to_records(
            {
                "system_a": tuple(self.systems[k] for k in a),
                "system_b": tuple(self.systems[k] for k in b),
                "wins_a": ints(self.wins[a, b]),
                "wins_b": ints(self.wins[b, a]),
                "ties": ints(self.ties[a, b]),
                "ties_both_bad": ints(self.both_bad[a, b]),
                "decisive_share_a": floats(share[a, b]),
                "win_rate_a": floats(rate[a, b]),
            }
        )


def battle_counts(
    index_a: Any,
    index_b: Any,
    outcome: Any,
    *,
    systems: Sequence[str],
    both_bad: Any = None,
) -> BattleCounts:
    """Count battles per pair.

    Parameters
    ----------
    index_a, index_b
        The two systems of each battle (indices into ``systems``), different.
    outcome
        Per battle: 1 (A won), 0 (B won) or 0.5 (a tie).
    systems
        The names of the systems.
    both_bad
        Per battle, whether a tie was judged "both bad" (default: none).

    Raises
    ------
    InputError
        Arrays of different lengths, an index out of range, a battle of a system with
        itself, or an outcome other than 0, 0.5 and 1.

    References
    ----------
    .. [1] Chiang, W.-L. et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by
           human preference. Proc. ICML (battles, their outcomes and ties).

    Examples
    --------
    >>> c = battle_counts([0, 0, 1], [1, 1, 0], [1, 0.5, 1], systems=["x", "y"])
    >>> c.wins.tolist(), c.ties.tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]])
    """
    a = np.asarray(index_a, dtype=np.intp)
    b = np.asarray(index_b, dtype=np.intp)
    y = np.asarray(outcome, dtype=np.float64)
    names = system_names(systems, len(systems))
    s = len(names)
    if not (a.shape == b.shape == y.shape) or a.ndim != 1:
        raise InputError(
            f"index_a, index_b and outcome must be 1-D of one length, got shapes "
            f"{a.shape}, {b.shape}, {y.shape}",
            hint="one entry per battle",
        )
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= s):
        raise InputError(f"a system index is outside 0..{s - 1}", hint="index into systems")
    if np.any(a == b):
        raise InputError(
            "a battle of a system with itself", hint="leave out battles whose two sides are one"
        )
    if not np.isin(y, (0.0, 0.5, 1.0)).all():
        raise InputError(
            "outcomes must be 1 (A won), 0 (B won) or 0.5 (a tie)",
            hint=f"got {np.unique(y[~np.isin(y, (0.0, 0.5, 1.0))])[:5].tolist()}",
        )
    bad = np.zeros(a.shape, dtype=bool) if both_bad is None else np.asarray(both_bad, bool)
    wins = np.zeros((s, s))
    ties = np.zeros((s, s))
    worse = np.zeros((s, s))
    np.add.at(wins, (a[y == 1.0], b[y == 1.0]), 1.0)
    np.add.at(wins, (b[y == 0.0], a[y == 0.0]), 1.0)
    tie = y == 0.5
    np.add.at(ties, (a[tie], b[tie]), 1.0)
    np.add.at(worse, (a[tie & bad], b[tie & bad]), 1.0)
    return BattleCounts(names, wins, ties + ties.T, worse + worse.T)


# ============================================================================ Bradley-Terry


def _cell_arrays(counts: BattleCounts) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The battles as cells (pair × outcome): for each ordered cell the two systems, the
    share of a win credited to the first, and the count. A resample of battles is a
    multinomial draw over the cells."""
    a, b = np.nonzero(counts.wins)
    ta, tb = np.nonzero(np.triu(counts.ties, 1))
    first = np.concatenate([a, ta])
    second = np.concatenate([b, tb])
    credit = np.concatenate([np.ones(a.size), np.full(ta.size, 0.5)])
    n = np.concatenate([counts.wins[a, b], counts.ties[ta, tb]])
    return first, second, credit, n


def _wins_matrix(counts: BattleCounts) -> np.ndarray:
    """The win matrix Bradley-Terry fits: wins, plus half a win each way per tie."""
    W = counts.wins + counts.ties / 2.0
    np.fill_diagonal(W, 0.0)
    return W


def bradley_terry_battles(
    counts: BattleCounts,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
    scale: Scale = "elo",
    anchor: str | None = None,
    prior: float = 0.0,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> BradleyTerry:
    """Bradley-Terry ratings from battles, with bootstrap intervals.

    Parameters
    ----------
    counts
        The battles counted per pair (:func:`battle_counts`).
    n_resamples
        Bootstrap resamples of the battles (0: no intervals).
    confidence
        Level of the percentile intervals.
    rng
        ``numpy.random.Generator`` or seed of the bootstrap.
    scale
        ``"elo"`` (default): :math:`1000 + 400\\log_{10}\\pi_a`, log-strengths centred
        to mean 0; ``"log"``: :math:`\\log\\pi_a` centred to mean 0.
    anchor
        A system fixed at 1000 (``"log"``: 0) instead of the mean.
    prior
        Virtual ties added to every pair (``prior/2`` wins each way); 0 (default) is
        the maximum-likelihood estimate.
    max_memory
        Bound (bytes) on the working memory of one chunk of resamples.

    Returns
    -------
    BradleyTerry
        ``n_items`` is the number of battles; ``wins`` the fitted win matrix (ties as
        half a win each way).

    Raises
    ------
    InputError
        Bad options; systems in groups that never met (fit each group apart,
        :meth:`BattleCounts.components`).

    Warns
    -----
    DegenerateDataWarning
        When the maximum-likelihood estimate does not exist (a system that never lost
        within its group): ``DEGENERATE_PRIOR`` virtual ties per pair are added.

    Notes
    -----
    The model: :math:`P(a \\text{ beats } b) = \\sigma(\\theta_a - \\theta_b)`. A tie is
    counted as half a win for each side, as Chatbot Arena's ``compute_mle_elo`` does by
    duplicating every battle and giving one copy of a tie to each side (Chiang et al.
    2024): the log-likelihood is :math:`\\sum_{a \\ne b} W_{ab} \\log\\sigma(\\theta_a -
    \\theta_b)` with :math:`W_{ab}` = wins of a over b + half the ties between them,
    maximised by the Newton iterations of :func:`reportgen.stats.bradley_terry`; the
    same maximum as the arena's logistic regression without its L2 penalty. Davidson's
    (1970) tie model would estimate a tie propensity as well; the half-win convention
    keeps the arena's ratings and treats a tie as evidence that the two are close.

    The bootstrap resamples battles with replacement. Battles in one cell (a pair and an
    outcome) are exchangeable, so a resample is one multinomial draw of the battle count
    over the cells, with probabilities their shares: the same distribution as drawing
    battles, at a cost independent of their number. Intervals are percentile intervals
    of the refitted ratings.

    References
    ----------
    .. [1] Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block designs: I. The
           method of paired comparisons. Biometrika 39(3/4), 324-345.
    .. [2] Chiang, W.-L. et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by
           human preference. Proc. ICML (Bradley-Terry with ties as half wins).
    .. [3] Davidson, R. R. (1970). On extending the Bradley-Terry model to accommodate ties in
           paired comparison experiments. JASA 65(329), 317-328.
    .. [4] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> c = battle_counts([0, 0, 1, 0], [1, 1, 0, 1], [1, 1, 1, 0.5], systems=["a", "b"])
    >>> bt = bradley_terry_battles(c, n_resamples=0)
    >>> round(float(bt.win_probability()[0, 1]), 4)  # 2.5 of 4 battles: odds 2.5 : 1.5
    0.625
    """
    names = counts.systems
    anchor_index = _bt_iv(n_resamples, confidence, scale, prior, anchor, names)
    s = len(names)
    if s < 2:
        raise InputError("Bradley-Terry needs at least 2 systems", hint="give battles of 2+")
    groups = counts.components()
    if len(groups) > 1:
        raise InputError(
            f"the battles form {len(groups)} groups of systems that never met",
            hint="fit each group apart (BattleCounts.components, subset)",
        )
    generator = _check_rng(rng)
    W = _wins_matrix(counts)
    point = _point_fit(W, prior, scale, anchor_index, never_lost="never lost")
    notes = [
        "each tie counts as half a win for each side (Chatbot Arena's convention)",
        *point.notes,
    ]
    intervals = _no_intervals(s)
    total = counts.n_battles
    if n_resamples > 0 and total > 0:
        first, second, credit, n = _cell_arrays(counts)
        decided = credit == 1.0
        share = n / n.sum()

        def draw_wins(rows: int) -> np.ndarray:
            drawn = generator.multinomial(total, share, size=rows).astype(np.float64)
            Wb = np.zeros((rows, s * s))
            # each group of cells hits distinct entries, so plain fancy indexing adds
            Wb[:, first[decided] * s + second[decided]] += drawn[:, decided]
            half = drawn[:, ~decided] / 2.0
            Wb[:, first[~decided] * s + second[~decided]] += half
            Wb[:, second[~decided] * s + first[~decided]] += half
            return Wb.reshape(rows, s, s)

        intervals = _refit_resamples(
            draw_wins,
            n_resamples,
            s,
            bytes_per_resample=8 * (n.size + 12 * s * s),
            max_memory=max_memory,
            prior=prior,
            scale=scale,
            anchor=anchor_index,
            confidence=confidence,
        )
    return _bradley_terry_result(
        names,
        total,
        W,
        point,
        intervals,
        scale=scale,
        anchor=anchor,
        confidence=confidence,
        n_resamples=n_resamples,
        rng=rng,
        notes=notes,
        bootstrap="battles (multinomial over pair × outcome cells)",
    )


# ============================================================================ pair tests


@dataclass(frozen=True)
class BattleTests(PairsMixin):
    """Each pair that met, tested on the battles between them.

    Attributes
    ----------
    systems
        System names; pairs index into them (``a`` before ``b`` in the order given).
    index_a, index_b
        The two systems of each pair.
    wins_a, wins_b, ties
        The battles ``a`` won, ``b`` won and the ties.
    estimate
        The share of the decisive battles that ``a`` won (ties left out); NaN without a
        decisive battle.
    ci_low, ci_high, confidence
        Its Clopper-Pearson interval at ``confidence`` (marginal: goes with the raw p).
    p_value
        The exact two-sided sign test of ``wins_a`` among the decisive battles (twice the
        smaller binomial tail at 1/2); NaN without a decisive battle.
    p_adjusted, correction, alpha
        The adjusted p-value within the family, its correction and level.
    decision_level
        The per-comparison level of each decision
        (:func:`reportgen.stats.multiplicity.decision_levels`), or None (this family's).
    test
        :data:`SIGN_TEST`.
    """

    systems: tuple[str, ...]
    index_a: np.ndarray
    index_b: np.ndarray
    wins_a: np.ndarray
    wins_b: np.ndarray
    ties: np.ndarray
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    confidence: float
    p_value: np.ndarray
    p_adjusted: np.ndarray
    correction: str
    alpha: float
    decision_level: np.ndarray | None = None
    test: str = SIGN_TEST
    #: the family's decisions and interval levels when set by a larger family
    #: (:meth:`with_adjusted`), else None (this family's, :meth:`plan`)
    interval_plan: Any = None

    @property
    def decisive(self) -> np.ndarray:
        """The decisive battles of each pair."""
        return self.wins_a + self.wins_b

    def adjusted_interval(self) -> tuple[np.ndarray, np.ndarray]:
        """The Clopper-Pearson interval at each pair's decision level: it excludes 1/2
        exactly when the pair is significant (the central two-sided sign-test p-value is
        at most the level iff the interval at that level excludes 1/2)."""
        level = self.decision_levels()
        low, high = clopper_pearson_interval(self.wins_a, self.decisive, confidence=1.0 - level)
        significant = self.significant()
        # p equal to its level: the interval ends at 1/2; keep it off, as decided
        low = np.where(significant & (self.estimate > 0.5) & (low <= 0.5), 0.5 + 1e-12, low)
        high = np.where(significant & (self.estimate < 0.5) & (high >= 0.5), 0.5 - 1e-12, high)
        return low, high

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per pair (NaN → None)."""
        low, high = self.adjusted_interval()
        return columns_to_records(
            {
                "system_a": self.system_a,
                "system_b": self.system_b,
                "wins_a": ints(self.wins_a),
                "wins_b": ints(self.wins_b),
                "ties": ints(self.ties),
                "estimate": floats(self.estimate),
                "ci_low": floats(self.ci_low),
                "ci_high": floats(self.ci_high),
                "ci_adjusted_low": floats(low),
                "ci_adjusted_high": floats(high),
                "confidence": self.confidence,
                "confidence_adjusted": floats(1.0 - self.decision_levels()),
                "test": self.test,
                "p_value": floats(self.p_value),
                "p_adjusted": floats(self.p_adjusted),
                "correction": self.correction,
                "significant": [bool(v) for v in self.significant()],
            }
        )


def battle_tests(
    counts: BattleCounts,
    *,
    order: Sequence[int] | None = None,
    alpha: float = 0.05,
    correction: Correction = "holm-sidak",
    confidence: float = 0.95,
) -> BattleTests:
    """Test every pair of systems that met on the battles between them.

    Parameters
    ----------
    counts
        The battles counted per pair.
    order
        The systems' order (indices): each pair's ``a`` comes first in it (the ranking,
        so that A is the higher-ranked system). Default: ``counts.systems``' order.
    alpha, correction
        The family's level and multiple-comparison correction; the family is the pairs
        tested here (re-adjust across a larger family with :meth:`with_adjusted`).
    confidence
        Level of the marginal intervals.

    Returns
    -------
    BattleTests

    Notes
    -----
    Given the number of decisive battles between A and B, A's wins are Binomial(n, p)
    and the two are equally strong iff p = 1/2; ties are left out (the sign test's
    treatment of zero differences, Dixon & Mood 1946). The two-sided p-value is twice the
    smaller tail, the test the Clopper-Pearson interval inverts: the interval at level
    1 − λ excludes 1/2 exactly when p ≤ λ, so the interval at each pair's decision level
    agrees with the corrected decision.

    References
    ----------
    .. [1] Dixon, W. J. & Mood, A. M. (1946). The statistical sign test. JASA 41(236),
           557-566.
    .. [2] Clopper, C. J. & Pearson, E. S. (1934). Biometrika 26(4), 404-413.

    Examples
    --------
    >>> c = battle_counts([0] * 9 + [1], [1] * 9 + [0], [1] * 9 + [1], systems=["a", "b"])
    >>> t = battle_tests(c)
    >>> int(t.wins_a[0]), int(t.wins_b[0]), round(float(t.p_value[0]), 4)
    (9, 1, 0.0215)
    """
    if not 0 < alpha < 1 or not 0 < confidence < 1:
        raise InputError(
            f"alpha={alpha!r} and confidence={confidence!r} must lie in (0, 1)",
            hint="e.g. alpha=0.05, confidence=0.95",
        )
    s = len(counts.systems)
    rank = np.arange(s) if order is None else np.asarray(order, dtype=np.intp)
    if sorted(rank.tolist()) != list(range(s)):
        raise InputError("order must list every system index once", hint=f"0..{s - 1}")
    position = np.empty(s, dtype=np.intp)
    position[rank] = np.arange(s)
    met = np.triu(counts.played > 0, 1)
    i, j = np.nonzero(met)
    first = position[i] < position[j]
    a = np.where(first, i, j)
    b = np.where(first, j, i)
    keep = np.lexsort((position[b], position[a]))
    a, b = a[keep], b[keep]
    wins_a, wins_b = counts.wins[a, b], counts.wins[b, a]
    ties = counts.ties[a, b]
    decisive = wins_a + wins_b
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = np.where(decisive > 0, wins_a / decisive, np.nan)
    p = np.where(
        decisive > 0,
        binomial_pvalue(wins_a.astype(np.int64), decisive.astype(np.int64), "two-sided"),
        np.nan,
    )
    low, high = clopper_pearson_interval(wins_a, decisive, confidence=confidence)
    adjusted = adjust_pvalues(p, method=correction) if p.size else p
    levels = decision_levels(p, alpha=alpha, method=correction) if p.size else p
    return BattleTests(
        systems=counts.systems,
        index_a=a.astype(np.intp),
        index_b=b.astype(np.intp),
        wins_a=wins_a,
        wins_b=wins_b,
        ties=ties,
        estimate=estimate,
        ci_low=low,
        ci_high=high,
        confidence=float(confidence),
        p_value=p,
        p_adjusted=adjusted,
        correction=correction,
        alpha=float(alpha),
        decision_level=levels,
    )

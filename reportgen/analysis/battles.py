"""The analysis of battles: ratings, the win-rate matrix and a decided claim per pair.

For each dataset of battles (:class:`reportgen.data.BattleTable`) :func:`analyze_battles`
gives a :class:`BattleResult`:

- the Bradley-Terry ratings with bootstrap intervals, ties as half wins
  (:func:`reportgen.stats.battles.bradley_terry_battles`): the ranking;
- the counts and the win-rate matrix of every pair;
- one :class:`BattleClaim` per pair that met, decided once: the exact sign test of the
  decisive battles between them, the share of those A won with its Clopper-Pearson
  interval, the adjusted p-value within the family and the interval at the family's
  decision level (it excludes 1/2 exactly when the claim is significant), with the
  interval's kind. A is the higher-rated system of the pair.

The family is what the analysis' ``correct_across`` says: each dataset of battles
(``"sample-list"``) or every comparison of the analysis, scores and battles together
(``"all"``). Systems in groups that never met, directly or through others, cannot be
ordered: each such group is analysed as a dataset of its own, ``"<dataset> (group k of
n)"``, with a note.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from reportgen.analysis.ledger.claims import Interval, interval_kind
from reportgen.analysis.options import AnalysisOptions
from reportgen.data import BattleTable
from reportgen.names import IntervalKind
from reportgen.records import fields_record
from reportgen.stats.battles import (
    BattleCounts,
    BattleTests,
    battle_counts,
    battle_tests,
    bradley_terry_battles,
)
from reportgen.stats.leaderboard import BradleyTerry

__all__ = [
    "BattleAnalysis",
    "BattleClaim",
    "BattleResult",
    "analyze_battles",
]

#: The stream of a battle dataset's generator (unit streams are 0-8).
_BATTLE_STREAM = 9
#: The most bootstrap refits of the ratings (Chatbot Arena draws 100 to 1,000).
_MAX_RESAMPLES = 1000
#: What a claim's estimate is.
ESTIMATE = "share of decisive battles won by A (ties left out)"


@dataclass(frozen=True)
class BattleClaim:
    """One pair's claim from the battles between them, decided once.

    Attributes
    ----------
    dataset
        The dataset of battles (a group's name when its systems never met the rest).
    system_a, system_b
        The pair, A the higher-rated of the two.
    wins_a, wins_b, ties
        The battles A won, B won, and the ties.
    estimate
        The share of the decisive battles A won (:data:`ESTIMATE`); None without one.
    ci_low, ci_high, confidence
        Its Clopper-Pearson interval at ``confidence`` (goes with the raw p-value).
    ci_adjusted_low, ci_adjusted_high, confidence_adjusted, interval_kind
        The interval at the family's decision level for this pair: it excludes 1/2
        exactly when ``significant``; ``interval_kind`` says what it promises.
    test, p_value, p_adjusted, correction
        The exact sign test of the decisive battles, its raw and adjusted p-values and
        the correction of the family.
    significant
        Whether the adjusted p-value is at most the family's α.
    reason
        Why the pair could not be tested (no decisive battle), else None.
    """

    dataset: str
    system_a: str
    system_b: str
    wins_a: int
    wins_b: int
    ties: int
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    ci_adjusted_low: float | None
    ci_adjusted_high: float | None
    confidence_adjusted: float | None
    interval_kind: IntervalKind
    test: str
    p_value: float | None
    p_adjusted: float | None
    correction: str
    significant: bool
    reason: str | None = None

    @property
    def battles(self) -> int:
        return self.wins_a + self.wins_b + self.ties

    def decided_interval(self, alpha: float) -> Interval:
        """The interval of the share A won that the decision is read off, with its kind
        (:class:`reportgen.analysis.ledger.Interval`; ``alpha`` is the family's)."""
        kind = self.interval_kind
        level = self.confidence_adjusted
        return Interval(
            self.ci_adjusted_low,
            self.ci_adjusted_high,
            level,
            kind,
            level if kind == "unadjusted" else 1.0 - alpha,
            self.correction,
        )

    def to_dict(self) -> dict[str, Any]:
        return fields_record(self)


@dataclass(frozen=True)
class BattleResult:
    """The analysis of one dataset of battles.

    Attributes
    ----------
    dataset
        The dataset (``"<dataset> (group k of n)"`` for a group of systems that never
        met the others).
    systems
        The systems, best first (by Bradley-Terry rating).
    counts
        The battles counted per pair, systems in ranking order.
    ratings
        The Bradley-Terry ratings with their intervals.
    tests
        Every pair that met, tested (A the higher-rated), adjusted within the family.
    claims
        One decided claim per pair (the same numbers as ``tests``).
    judges
        The distinct judges of the battles.
    notes
        What the reader should know (groups that never met, ties, judges).
    """

    dataset: str
    systems: tuple[str, ...]
    counts: BattleCounts
    ratings: BradleyTerry
    tests: BattleTests
    claims: tuple[BattleClaim, ...]
    judges: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def n_battles(self) -> int:
        return self.counts.n_battles

    @property
    def leader(self) -> str:
        """The highest-rated system."""
        return self.systems[0]

    def rating_of(self, system: str) -> float:
        return float(self.ratings.rating[self.ratings.systems.index(system)])

    def claim(self, a: str, b: str) -> BattleClaim | None:
        """The claim of the pair ``a``, ``b`` (either order), or None if they never met."""
        for c in self.claims:
            if {c.system_a, c.system_b} == {a, b}:
                return c
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (results.json ``battles``): ratings, pairs with their claims, and
        the win-rate matrix (ties left out, and ties as half wins)."""
        share = self.counts.decisive_share()
        rate = self.counts.win_rate()
        return {
            "dataset": self.dataset,
            "n_battles": self.n_battles,
            "n_systems": len(self.systems),
            "judges": list(self.judges),
            "ties": "half a win for each side in the ratings; left out of the pair tests",
            "ratings": self.ratings.to_dict(),
            "pairs": [c.to_dict() for c in self.claims],
            "win_rate_matrix": {
                "systems": list(self.systems),
                "decisive_share": [[_number(v) for v in row] for row in share],
                "win_rate": [[_number(v) for v in row] for row in rate],
                "battles": [[int(v) for v in row] for row in self.counts.played],
            },
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class BattleAnalysis:
    """Every dataset of battles of an analysis.

    Attributes
    ----------
    results
        One :class:`BattleResult` per dataset (or group) of battles.
    family
        ``"each dataset"`` (each dataset of battles is a family) or ``"analysis"``
        (scores and battles corrected together).
    correction, alpha
        The family's correction and level.
    """

    results: tuple[BattleResult, ...] = ()
    family: Literal["each dataset", "analysis"] = "each dataset"
    correction: str = "holm-sidak"
    alpha: float = 0.05

    def __bool__(self) -> bool:
        return bool(self.results)

    @property
    def claims(self) -> tuple[BattleClaim, ...]:
        return tuple(c for r in self.results for c in r.claims)

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "correction": self.correction,
            "alpha": self.alpha,
            "datasets": [r.to_dict() for r in self.results],
        }


def _number(value: float) -> float | None:
    return None if not np.isfinite(value) else float(value)


def _rng(seed: int, dataset: str) -> np.random.Generator:
    key = [seed, zlib.crc32(dataset.encode()), zlib.crc32(b"battles"), _BATTLE_STREAM]
    return np.random.default_rng(np.random.SeedSequence(key))


def _groups(dataset: str, counts: BattleCounts) -> list[tuple[str, BattleCounts, list[str]]]:
    """The counts of each group of systems that met, each named, with its notes."""
    groups = counts.components()
    if len(groups) == 1:
        return [(dataset, counts, [])]
    out = []
    for k, group in enumerate(groups, start=1):
        if len(group) < 2:
            continue
        name = f"{dataset} (group {k} of {len(groups)})"
        note = (
            f"{dataset}: the battles form {len(groups)} groups of systems that never met, "
            "directly or through others; each group is rated on its own, and ratings of "
            "different groups are not comparable"
        )
        out.append((name, counts.subset(group), [note]))
    return out


def analyze_battles(
    battles: BattleTable | None, options: AnalysisOptions, seed: int
) -> BattleAnalysis:
    """Analyse every dataset of battles (module notes); the family is each dataset.
    With ``options.systems`` only the battles among those systems count.

    Returns an empty :class:`BattleAnalysis` when there are no battles.
    """
    if battles is None:
        return BattleAnalysis(correction=options.correction, alpha=options.alpha)
    results = []
    for dataset in battles.datasets:
        data = battles.of(dataset)
        counts = battle_counts(
            data.index_a,
            data.index_b,
            data.outcome,
            systems=data.systems,
            both_bad=data.both_bad,
        )
        if options.systems is not None:  # --systems: the battles among those only
            keep = [k for k, s in enumerate(counts.systems) if s in options.systems]
            if len(keep) < 2:
                continue
            counts = counts.subset(keep)
        for name, part, notes in _groups(dataset, counts):
            results.append(_analyze_group(name, part, data.judges, notes, options, seed))
    return BattleAnalysis(tuple(results), "each dataset", options.correction, options.alpha)


def _analyze_group(
    dataset: str,
    counts: BattleCounts,
    judges: tuple[str, ...],
    notes: list[str],
    options: AnalysisOptions,
    seed: int,
) -> BattleResult:
    import warnings

    from reportgen.errors import DegenerateDataWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateDataWarning)
        ratings = bradley_terry_battles(
            counts,
            n_resamples=min(options.n_resamples, _MAX_RESAMPLES),
            confidence=options.confidence,
            rng=_rng(seed, dataset),
        )
    notes = list(notes)
    notes.extend(f"{dataset}: {w.message}" for w in caught)
    order = np.argsort(-ratings.rating, kind="stable")
    ranked = counts.subset(order.tolist())
    ratings = _reordered(ratings, order)
    tests = battle_tests(
        ranked,
        alpha=options.alpha,
        correction=options.correction,
        confidence=options.confidence,
    )
    ties = int(np.triu(ranked.ties, 1).sum())
    if ties:
        bad = int(np.triu(ranked.both_bad, 1).sum())
        notes.append(
            f"{dataset}: {ties:,} tied battle{'s' if ties != 1 else ''}"
            + (f" ({bad:,} judged both bad)" if bad else "")
            + " count as half a win for each side in the ratings and are left out of the "
            "pair tests"
        )
    result = BattleResult(dataset, ranked.systems, ranked, ratings, tests, (), judges, tuple(notes))
    return replace(result, claims=_claims(result))


def _reordered(bt: BradleyTerry, order: np.ndarray) -> BradleyTerry:
    """The ratings with the systems in ``order``."""
    return replace(
        bt,
        systems=tuple(bt.systems[i] for i in order),
        rating=bt.rating[order],
        ci_low=bt.ci_low[order],
        ci_high=bt.ci_high[order],
        se=bt.se[order],
        wins=bt.wins[np.ix_(order, order)],
    )


def _claims(result: BattleResult, family: int | None = None) -> tuple[BattleClaim, ...]:
    """The claims of ``result``'s tests; ``family``: the size of the family they were
    decided in (default: the dataset's testable pairs)."""
    tests = result.tests
    low, high = tests.adjusted_interval()
    levels = tests.decision_levels()
    significant = tests.significant()
    if family is None:
        family = int(np.count_nonzero(~np.isnan(tests.p_value)))
    kind = interval_kind(tests.correction, family)

    def num(values: np.ndarray, k: int) -> float | None:
        value = float(values[k])
        return value if np.isfinite(value) else None

    claims = []
    for k in range(tests.n_pairs):
        testable = np.isfinite(tests.p_value[k])
        claims.append(
            BattleClaim(
                dataset=result.dataset,
                system_a=tests.systems[tests.index_a[k]],
                system_b=tests.systems[tests.index_b[k]],
                wins_a=int(tests.wins_a[k]),
                wins_b=int(tests.wins_b[k]),
                ties=int(tests.ties[k]),
                estimate=num(tests.estimate, k),
                ci_low=num(tests.ci_low, k),
                ci_high=num(tests.ci_high, k),
                confidence=tests.confidence,
                ci_adjusted_low=num(low, k),
                ci_adjusted_high=num(high, k),
                confidence_adjusted=None if not testable else float(1.0 - levels[k]),
                interval_kind=kind,
                test=tests.test,
                p_value=num(tests.p_value, k),
                p_adjusted=num(tests.p_adjusted, k),
                correction=tests.correction,
                significant=bool(significant[k]),
                reason=None if testable else "not testable: every battle between them was a tie",
            )
        )
    return tuple(claims)


def with_family(
    analysis: BattleAnalysis,
    adjusted: Any,
    levels: Any,
    correction: str,
    size: int | None = None,
) -> BattleAnalysis:
    """The battles re-decided in a larger family (``correct_across="all"``): ``adjusted``
    and ``levels`` hold one value per pair, in the order of :attr:`BattleAnalysis.claims`;
    ``size`` is the number of tests in the whole family."""
    adjusted = np.asarray(adjusted, dtype=np.float64)
    levels = np.asarray(levels, dtype=np.float64)
    start = 0
    family = int(np.count_nonzero(~np.isnan(levels))) if size is None else size
    results = []
    for result in analysis.results:
        n = result.tests.n_pairs
        tests = result.tests.with_adjusted(
            adjusted[start : start + n], correction, levels[start : start + n]
        )
        start += n
        updated = replace(result, tests=tests)
        results.append(replace(updated, claims=_claims(updated, family)))
    return replace(analysis, results=tuple(results), family="analysis", correction=correction)


def battle_pvalues(analysis: BattleAnalysis) -> np.ndarray:
    """The raw p-values of every pair, in the order of :attr:`BattleAnalysis.claims`."""
    if not analysis.results:
        return np.zeros(0)
    return np.concatenate([r.tests.p_value for r in analysis.results])

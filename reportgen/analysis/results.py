"""The typed results of an analysis: the tree :func:`reportgen.analysis.analyze` returns.

An :class:`~reportgen.analysis.Analysis` holds one :class:`UnitResult` per dataset ×
metric (its intervals, comparisons, noise, power, rank uncertainty, repeated runs, ...),
the ranking across datasets (:class:`RankingAcrossLists`), the metric aggregates
(:class:`MetricAggregate`), the TOPSIS cross-checks (:class:`TopsisCheck`) and, for a
release report, the release comparison
(:class:`reportgen.analysis.release.ReleaseComparison`). Every field is a frozen result
object of :mod:`reportgen.stats` or of this module; the report reads them and computes
nothing. Each class has a ``to_dict`` giving its part of ``results.json``
(:func:`reportgen.analysis.serialize.to_results` assembles the document).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from reportgen.plaintext import n_of, verb
from reportgen.stats.aggregation import FriedmanNemenyiResult, SignTestResult
from reportgen.stats.corpus import CorpusComparisonResult, CorpusIntervalResult
from reportgen.stats.leaderboard import BradleyTerry, ItemAnalysis, WinRates
from reportgen.stats.means import BootstrapMeans, MeanIntervals
from reportgen.stats.noise import NoiseProfile
from reportgen.stats.pairwise import PairwiseResult
from reportgen.stats.power import PowerCurve, PowerResult, SamplePowerResult
from reportgen.stats.ranking import (
    CompactLetterDisplay,
    OrderedRanking,
    RankAgreement,
    RankDistributions,
    RankIntervals,
    TopsisResult,
)
from reportgen.stats.robust import ESTIMAND_LABELS
from reportgen.stats.runs import (
    ClusterBootstrapResult,
    ClusteredMeanResult,
    PooledRunsResult,
    RunsDifferResult,
    RunsWidthResult,
    VarianceComponentsResult,
)

__all__ = [
    # the result types of reportgen.stats the report renders, re-exported so that the
    # report layer reads results from here only (import-linter: report does not import
    # reportgen.stats)
    "PairwiseResult",
    "PowerResult",
    "FLIPPED_ALTERNATIVE",
    "ClusterIntervals",
    "Direction",
    "GroupComparison",
    "HyperparameterComparison",
    "HyperparameterLevel",
    "Leaderboard",
    "ListSelection",
    "MetricAggregate",
    "Modality",
    "RankUncertainty",
    "RankingAcrossLists",
    "RunsResult",
    "TopsisCheck",
    "UnitResult",
]

Direction = Literal["higher", "lower"]
Design = Literal["paired", "unpaired"]
Modality = Literal["binary", "continuous", "corpus"]

#: The alternative seen from the other side (B against A, or lower-is-better scores).
FLIPPED_ALTERNATIVE = {"two-sided": "two-sided", "greater": "less", "less": "greater"}


def _quality_alternative(raw: str, direction: str) -> str:
    """A raw-scale alternative in quality terms ("greater": A better than B)."""
    return raw if direction == "higher" else FLIPPED_ALTERNATIVE[raw]


@dataclass(frozen=True)
class Leaderboard:
    """Win rates and Bradley-Terry ratings of one dataset × metric of proportions on
    paired items (Bradley & Terry 1952; the noise analysis of Wang et al. 2024)."""

    win_rates: WinRates
    bradley_terry: BradleyTerry

    def to_dict(self, dataset: str, metric: str, *, pairs: bool = True) -> dict[str, Any]:
        """``pairs=False``: ``win_rates.pairs`` left empty (:meth:`pair_columns`)."""
        if pairs:
            win_rates = self.win_rates.to_dict()
        else:  # WinRates.to_dict without its s(s - 1) pair records
            win_rates = {
                "n_items": self.win_rates.n_items,
                "ties": "excluded from win_rate",
                "systems": self.win_rates.to_records(),
                "pairs": [],
            }
        return {
            "dataset": dataset,
            "metric": metric,
            "kind": "leaderboard",
            "win_rates": win_rates,
            "bradley_terry": self.bradley_terry.to_dict(),
        }

    def pair_columns(self) -> dict[str, np.ndarray]:
        """``win_rates.pairs`` of :meth:`to_dict` by column (every ordered pair a ≠ b,
        in the same order; NaN where a record has None)."""
        w = self.win_rates
        s = len(w.systems)
        a, b = np.nonzero(~np.eye(s, dtype=bool))  # row-major: a, then b
        names = np.asarray(w.systems, dtype=object)
        return {
            "system_a": names[a],
            "system_b": names[b],
            "wins_a": np.asarray(w.wins, dtype=np.float64)[a, b],
            "wins_b": np.asarray(w.wins, dtype=np.float64)[b, a],
            "pair_win_rate": np.asarray(w.pair_win_rate, dtype=np.float64)[a, b],
        }


@dataclass(frozen=True)
class RankUncertainty:
    """How certain the ranks of one dataset × metric are: bootstrap rank distributions,
    simultaneous rank intervals and (all pairs compared) the compact letter display of
    the pairwise tests."""

    distributions: RankDistributions
    intervals: RankIntervals
    letters: CompactLetterDisplay | None = None

    def letter_of(self) -> dict[str, str]:
        if self.letters is None:
            return {}
        return dict(zip(self.letters.systems, self.letters.letters))

    def to_dict(self, dataset: str, metric: str, *, probabilities: bool = True) -> dict[str, Any]:
        """The ``rankings`` entry of kind ``ranks``; ``probabilities=False`` leaves each
        system's ``rank_probabilities`` out (:meth:`probability_columns`)."""
        distribution = self.distributions.to_dict()
        if not probabilities:
            for row in distribution["systems"]:
                row.pop("rank_probabilities", None)
        out: dict[str, Any] = {
            "kind": "ranks",
            "dataset": dataset,
            "metric": metric,
            "distribution": distribution,
            "simultaneous": self.intervals.to_dict(),
        }
        if self.letters is not None:
            out["letters"] = self.letters.to_dict()
        return out

    def probability_columns(self) -> dict[str, np.ndarray]:
        """Each system's ``rank_probabilities`` in long form: ``system``, ``rank``
        (1..s) and ``probability`` (P(rank = rank)), system by system as in
        :meth:`to_dict`."""
        d = self.distributions
        probs = np.asarray(d.probabilities(), dtype=np.float64)
        s, ranks = probs.shape
        return {
            "system": np.repeat(np.asarray(d.systems, dtype=object), ranks),
            "rank": np.tile(np.arange(1, ranks + 1, dtype=np.int64), s),
            "probability": probs.ravel(),
        }


@dataclass(frozen=True)
class RunsResult:
    """What repeated runs tell about one dataset × metric (Miller 2024; Bowyer et al.
    2025): cluster bootstrap and cluster-robust intervals, the split of each variance into
    data and prediction noise, the pooled-runs bootstrap with per-run intervals, whether
    runs differ, and the interval width against the number of runs used."""

    n_runs: int
    n_items: int
    cluster_bootstrap: ClusterBootstrapResult
    clustered_se: ClusteredMeanResult
    variance_components: VarianceComponentsResult
    paired_variance_components: VarianceComponentsResult | None
    runs_differ: RunsDifferResult
    pooled_runs: PooledRunsResult
    ci_width_by_runs: RunsWidthResult

    def to_dict(self, dataset: str, metric: str) -> dict[str, Any]:
        return {
            "dataset": dataset,
            "metric": metric,
            "n_runs": self.n_runs,
            "n_items": self.n_items,
            "cluster_bootstrap": self.cluster_bootstrap.to_records(),
            "clustered_se": self.clustered_se.to_records(),
            "variance_components": self.variance_components.to_records(),
            "paired_variance_components": (
                []
                if self.paired_variance_components is None
                else self.paired_variance_components.to_records()
            ),
            "runs_differ": self.runs_differ.to_records(),
            "pooled_runs": self.pooled_runs.to_records(),
            "per_run": self.pooled_runs.run_records(),
            "ci_width_by_runs": self.ci_width_by_runs.to_records(),
        }


@dataclass(frozen=True)
class ClusterIntervals:
    """Cluster-robust intervals of each system's mean, items grouped by an item-metadata
    column (one :class:`~reportgen.stats.runs.ClusteredMeanResult` per system)."""

    cluster_by: str
    intervals: tuple[ClusteredMeanResult, ...]

    def to_dict(self, dataset: str, metric: str) -> dict[str, Any]:
        rows = [row for result in self.intervals for row in result.to_records()]
        return {
            "dataset": dataset,
            "metric": metric,
            "cluster_by": self.cluster_by,
            "systems": rows,
        }


@dataclass(frozen=True)
class GroupComparison:
    """The comparisons of one dataset × metric on the items of one level of the
    ``group_by`` columns; ``comparisons`` is None (with a ``note``) when the level has
    too few items."""

    group: Mapping[str, str]
    n_items: int
    comparisons: PairwiseResult | None = None
    means: Mapping[str, float] | None = None
    note: str | None = None

    def to_dict(self, dataset: str, metric: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dataset": dataset,
            "metric": metric,
            "group": dict(self.group),
            "n_items": self.n_items,
        }
        if self.means is not None:
            out["means"] = dict(self.means)
        out["comparisons"] = [] if self.comparisons is None else self.comparisons.to_records()
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class HyperparameterLevel:
    """One pooled level of the compared hyperparameters."""

    level: Mapping[str, str]
    name: str
    systems: tuple[str, ...]
    mean: float
    n: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": dict(self.level),
            "name": self.name,
            "systems": list(self.systems),
            "mean": self.mean,
            "n": self.n,
        }


@dataclass(frozen=True)
class HyperparameterComparison:
    """Condition and compare for one dataset × metric and one combination of the
    ``condition_on`` attributes: the pooled levels, best first, and the best level
    tested against each other one (right-tailed, in quality terms)."""

    condition: Mapping[str, str]
    compare: tuple[str, ...]
    levels: tuple[HyperparameterLevel, ...]
    comparisons: PairwiseResult | None = None
    note: str | None = None

    def to_dict(self, dataset: str, metric: str) -> dict[str, Any]:
        records = [] if self.comparisons is None else self.comparisons.to_records()
        for row in records:
            row["alternative"] = "greater"  # in quality terms: the first level is better
        out: dict[str, Any] = {
            "dataset": dataset,
            "metric": metric,
            "condition": dict(self.condition),
            "compare": list(self.compare),
            "levels": [lv.to_dict() for lv in self.levels],
            "comparisons": records,
        }
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class UnitResult:
    """Everything computed for one dataset × metric.

    Attributes
    ----------
    dataset, metric, direction
        The unit and whether higher or lower is better.
    pairing
        ``"paired"`` (the systems compared on the same items) or ``"unpaired"``.
    modality
        ``"binary"`` (0/1 item scores), ``"continuous"``, or ``"corpus"`` for a
        corpus-level metric computed from predictions (``derived_from`` names the metric
        whose predictions it uses).
    proportion
        Whether every item score lies in [0, 1] (a rate, shown in percent and its
        differences in percentage points).
    n_runs
        Runs per item when the dataset has repeated runs (scores are averaged over the
        runs of each item first), else None.
    n_excluded_items
        Items left out of the paired comparisons because not every system has them.
    intervals
        Each system's mean with its confidence interval (the corpus metric's value for a
        corpus unit), in the order the systems were analysed.
    comparisons
        The pairwise comparisons (None with fewer than 2 systems); differences are
        ``system_a − system_b`` on the metric's own scale.
    power, mde_curve
        The minimum detectable effect at the observed number of items, and over a grid
        of item counts.
    exploration
        Bootstrap distribution of each system's mean (items resampled).
    noise, leaderboard, items
        For proportions on paired items: the noise profile, win rates and Bradley-Terry
        ratings, and the item analysis.
    ranks
        Rank distributions, simultaneous rank intervals and compact letters.
    graph
        All pairs compared: the systems ordered by mean with the graph of
        non-significant pairs and its maximal cliques (Ackerman et al. 2025), from the
        final adjusted p-values.
    runs, clusters, groups, hyperparameters
        Repeated runs, cluster-robust intervals, comparisons within item groups and
        between hyperparameter levels, where asked for.
    caveats
        Settings of this unit where the calibration of a method is known to be off
        (plain sentences).
    degenerate_reason
        One plain sentence when some or all of this unit's comparisons are degenerate
        or not testable (every system scores the same on every item; identical
        systems; a difference that does not vary; too few items to reach α, with the
        number needed; a system with too few items to be tested), else None. The
        per-comparison sentences are ``comparisons.pair_notes`` (``note`` in
        results.json).
    """

    dataset: str
    metric: str
    direction: Direction
    pairing: Design
    modality: Modality
    intervals: MeanIntervals | CorpusIntervalResult
    proportion: bool = False
    n_runs: int | None = None
    n_excluded_items: int = 0
    comparisons: PairwiseResult | CorpusComparisonResult | None = None
    derived_from: str | None = None
    power: SamplePowerResult | None = None
    mde_curve: PowerCurve | None = None
    exploration: BootstrapMeans | None = None
    noise: NoiseProfile | None = None
    leaderboard: Leaderboard | None = None
    items: ItemAnalysis | None = None
    ranks: RankUncertainty | None = None
    graph: OrderedRanking | None = None
    runs: RunsResult | None = None
    clusters: ClusterIntervals | None = None
    groups: tuple[GroupComparison, ...] = ()
    hyperparameters: tuple[HyperparameterComparison, ...] = ()
    caveats: tuple[str, ...] = ()
    degenerate_reason: str | None = None

    @property
    def name(self) -> str:
        """``dataset / metric``."""
        return f"{self.dataset} / {self.metric}"

    @property
    def skewed_note(self) -> str | None:
        """One sentence when some comparisons have heavily skewed differences
        (``comparisons.skewed``), else None."""
        result = self.comparisons
        if not isinstance(result, PairwiseResult) or result.skewed is None:
            return None
        k = int(np.sum(result.skewed))
        if not k:
            return None
        if result.estimand != "mean" or not result.approximate_pairs().any():
            return (
                f"{n_of(k, result.n_pairs, 'comparison')} {verb(k, 'have', 'has')} heavily "
                f"skewed differences, decided on the {ESTIMAND_LABELS[result.estimand]}"
            )
        return (
            f"{n_of(k, result.n_pairs, 'comparison')} {verb(k, 'have', 'has')} heavily skewed "
            "differences: the mean is not decidable from these items, so their p-values and "
            "intervals are approximate (skewed) and they are not counted as significant; "
            f'[metrics.{self.metric}] estimand = "trimmed" or "hodges-lehmann" decides them'
        )

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(self.intervals.systems)

    @property
    def means(self) -> np.ndarray:
        """Each system's mean (the corpus metric's value), aligned with :attr:`systems`."""
        if isinstance(self.intervals, CorpusIntervalResult):
            return np.asarray(self.intervals.value, dtype=np.float64)
        return np.asarray(self.intervals.mean, dtype=np.float64)

    @property
    def n_items(self) -> int:
        """Items of the system with the most (all of them when paired)."""
        n = np.atleast_1d(np.asarray(self.intervals.n))
        return int(n.max()) if n.size else 0

    @property
    def ci_method(self) -> str:
        """The interval of each system's mean, as written in results.json."""
        if isinstance(self.intervals, CorpusIntervalResult):
            return self.intervals.ci_method
        return self.intervals.method + ("" if self.n_runs is None else " (item means over runs)")

    @property
    def test(self) -> str:
        return "" if self.comparisons is None else self.comparisons.test

    def better(self, a: float, b: float) -> bool:
        """Whether a mean of ``a`` is better than ``b`` on this metric."""
        return a > b if self.direction == "higher" else a < b

    def order(self) -> list[int]:
        """Indices of :attr:`systems`, best mean first (NaN last)."""
        sign = -1.0 if self.direction == "higher" else 1.0
        key = np.where(np.isnan(self.means), np.inf, sign * self.means)
        return [int(k) for k in np.argsort(key, kind="stable")]

    def system_records(self) -> list[dict[str, Any]]:
        """The unit's rows of the ``systems`` section of results.json."""
        runs = 1 if self.n_runs is None else self.n_runs
        if isinstance(self.intervals, CorpusIntervalResult):
            return [
                {
                    "dataset": self.dataset,
                    "metric": self.metric,
                    "system": r["system"],
                    "mean": r["value"],
                    "ci_low": r["ci_low"],
                    "ci_high": r["ci_high"],
                    "ci_method": r["ci_method"],
                    "confidence": r["confidence"],
                    "n": r["n"],
                    "runs": runs,
                    "derived_from": self.derived_from,
                    "n_resamples": r["n_resamples"],
                }
                for r in self.intervals.to_records()
            ]
        return [
            {
                "dataset": self.dataset,
                "metric": self.metric,
                **record,
                "ci_method": self.ci_method,
                "runs": runs,
                "proportion": bool(self.proportion),
            }
            for record in self.intervals.to_records()
        ]

    def comparison_records(self) -> list[dict[str, Any]]:
        """The unit's rows of the ``comparisons`` section of results.json; the
        ``alternative`` is in quality terms (``"greater"``: A better than B)."""
        if self.comparisons is None:
            return []
        runs = 1 if self.n_runs is None else self.n_runs
        rows = []
        for row in self.comparisons.to_records():
            rows.append(
                {
                    "dataset": self.dataset,
                    "direction": self.direction,
                    "proportion": bool(self.proportion),
                    "pairing": self.pairing,
                    "modality": "corpus",
                    **row,
                    "runs": runs,
                    "metric": self.metric,
                    "derived_from": self.derived_from,
                    "alternative": _quality_alternative(row["alternative"], self.direction),
                }
            )
        return rows

    def item_columns(self) -> dict[str, np.ndarray]:
        """The ``items`` rows of the unit's item analysis (``items[].items`` of
        results.json) by column, in the same order (NaN where a record has None)."""
        it = self.items
        if it is None:
            return {}
        solver = np.asarray(it.weakest_solver, dtype=np.intp)
        names = np.asarray([*it.systems, None], dtype=object)  # -1: no solver
        return {
            "item": np.asarray(it.items, dtype=object),
            "mean_score": np.asarray(it.mean_score, dtype=np.float64),
            "share_solving": np.asarray(it.share_solving, dtype=np.float64),
            "n_solving": np.asarray(it.n_solving, dtype=np.int64),
            "tau": np.asarray(it.tau, dtype=np.float64),
            "min_quality_solving": np.asarray(it.min_quality_solving, dtype=np.float64),
            "weakest_solver": names[np.where(solver >= 0, solver, len(it.systems))],
        }

    def comparison_columns(self) -> dict[str, Any]:
        """:meth:`comparison_records` by column: the same keys, each a numpy array
        with one entry per pair (NaN where a row has None) or, for a value shared by
        every row, that value. Half a million comparisons take a fraction of a second
        here against several seconds and 0.9 GB as dicts; the writer of
        ``tables/comparisons.parquet`` uses it. The two agree value for value
        (``tests/report/test_tables.py``)."""
        result = self.comparisons
        if not isinstance(result, PairwiseResult):  # corpus metrics: few pairs
            rows = self.comparison_records()
            keys = dict.fromkeys(k for r in rows for k in r)
            return {k: np.array([r.get(k) for r in rows], dtype=object) for k in keys}
        c = result
        names = np.asarray(c.systems, dtype=object)
        plan = c.plan()
        adj_low, adj_high = c.adjusted_interval()
        magnitude = np.asarray(c.effect_magnitude(), dtype=object)
        magnitude[magnitude == ""] = None

        def count(values: np.ndarray | None) -> Any:
            return None if values is None else np.asarray(values, dtype=np.int64)

        runs = 1 if self.n_runs is None else self.n_runs
        return {
            "dataset": self.dataset,
            "direction": self.direction,
            "proportion": bool(self.proportion),
            "pairing": self.pairing,
            "modality": c.modality,
            "system_a": names[c.index_a],
            "system_b": names[c.index_b],
            "test": c.test if not c.pair_tests else np.asarray(c.pair_tests, dtype=object),
            "method": c.method,
            "paired": c.paired,
            "alternative": _quality_alternative(c.alternative, self.direction),
            "statistic": np.asarray(c.statistic, dtype=np.float64),
            "p_value": np.asarray(c.p_value, dtype=np.float64),
            "p_adjusted": np.asarray(c.p_adjusted, dtype=np.float64),
            "correction": c.correction,
            "alpha": c.alpha,
            "significant": np.asarray(c.significant(), dtype=bool),
            "effect_size": np.asarray(c.effect_size, dtype=np.float64),
            "effect_size_kind": c.effect_size_kind,
            "effect_magnitude": magnitude,
            "effect_threshold": c.effect_threshold,
            "effect_significant": np.asarray(c.effect_significant(), dtype=bool),
            "mean_a": np.asarray(c.mean_a, dtype=np.float64),
            "mean_b": np.asarray(c.mean_b, dtype=np.float64),
            "diff": np.asarray(c.diff, dtype=np.float64),
            "ci_low": np.asarray(c.ci_low, dtype=np.float64),
            "ci_high": np.asarray(c.ci_high, dtype=np.float64),
            "ci_adjusted_low": np.asarray(adj_low, dtype=np.float64),
            "ci_adjusted_high": np.asarray(adj_high, dtype=np.float64),
            "confidence_adjusted": 1.0 - np.asarray(plan.level, dtype=np.float64),
            "ci_adjusted_kind": plan.kind,
            "ci_method": c.ci_method,
            "confidence": c.confidence,
            "n_a": np.asarray(c.n_a, dtype=np.int64),
            "n_b": np.asarray(c.n_b, dtype=np.int64),
            "exact": c.exact,
            "n_resamples": c.n_resamples,
            "a_only": count(c.a_only),
            "b_only": count(c.b_only),
            "note": np.array([c.note(k) or None for k in range(c.n_pairs)], dtype=object),
            "skewed": None if c.skewed is None else np.asarray(c.skewed, dtype=bool),
            "estimand": c.estimand,
            "approximate": np.asarray(c.approximate_pairs(), dtype=bool),
            "runs": runs,
            "metric": self.metric,
            "derived_from": self.derived_from,
        }

    def exploration_dict(self) -> dict[str, Any] | None:
        if self.exploration is None:
            return None
        return {
            "dataset": self.dataset,
            "metric": self.metric,
            "kind": "bootstrap-means",
            "n_resamples": self.exploration.n_resamples,
            "confidence": self.exploration.confidence,
            "systems": self.exploration.to_records(),
        }

    def power_dict(self) -> dict[str, Any] | None:
        if self.power is None:
            return None
        out = {"dataset": self.dataset, "metric": self.metric, **self.power.to_dict()}
        if self.mde_curve is not None:
            out["curve"] = [{"n": p["n"], "mde": p["delta"]} for p in self.mde_curve.to_records()]
        return out


@dataclass(frozen=True)
class MetricAggregate:
    """The metrics of one dataset with paired metrics combined into one score per item:
    each metric standardised over the pooled scores, signed by its direction and averaged
    with the metric weights."""

    dataset: str
    metrics: tuple[str, ...]
    directions: tuple[str, ...]
    weights: tuple[float, ...]
    n_items: int
    systems: tuple[str, ...]
    means: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "metric-aggregate",
            "dataset": self.dataset,
            "metrics": list(self.metrics),
            "directions": list(self.directions),
            "weights": [float(w) for w in self.weights],
            "n_items": self.n_items,
            "systems": [{"system": s, "mean": float(m)} for s, m in zip(self.systems, self.means)],
        }


@dataclass(frozen=True)
class TopsisCheck:
    """TOPSIS closeness of each system on one dataset's metrics, and how well its order
    agrees with the metric aggregate (Kendall's τ): a check of the aggregation (Hwang &
    Yoon 1981)."""

    dataset: str
    result: TopsisResult
    agreement: RankAgreement
    aggregate: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "topsis",
            "dataset": self.dataset,
            **self.result.to_dict(),
            "agreement": self.agreement.to_dict(),
        }


@dataclass(frozen=True)
class ListSelection:
    """Which datasets and systems the ranking across datasets uses.

    Attributes
    ----------
    how
        ``"all"`` (every system is scored on every dataset), ``"largest"`` (the datasets
        chosen to maximise systems × datasets) or ``"given"`` (``rank_lists``).
    datasets
        The datasets ranked over.
    systems
        The systems scored on all of them.
    left_out_datasets, left_out_systems
        ``(name, reason)`` of every dataset and system not in the ranking.
    """

    how: Literal["all", "largest", "given"]
    datasets: tuple[str, ...]
    systems: tuple[str, ...]
    left_out_datasets: tuple[tuple[str, str], ...] = ()
    left_out_systems: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "how": self.how,
            "datasets": list(self.datasets),
            "systems": list(self.systems),
            "left_out_datasets": [{"dataset": d, "reason": r} for d, r in self.left_out_datasets],
            "left_out_systems": [{"system": s, "reason": r} for s, r in self.left_out_systems],
        }


@dataclass(frozen=True)
class RankingAcrossLists:
    """The ordered ranking of the systems over one or more score lists: aggregate, order,
    pairwise tests, graph of indistinguishable systems (Ackerman et al. 2025).

    Attributes
    ----------
    selection
        The datasets and systems ranked (and those left out, with the reason).
    lists
        The score lists: a dataset's metric aggregate, or one dataset × metric.
    method
        How the pairwise evidence was obtained (one list: its test and correction;
        several: Wilson's harmonic-mean p over the lists).
    systems, scores
        Systems best first and their aggregate score.
    list_means
        Mean of each system (rows, best first) on each list (columns), on the
        higher-is-better scale of the list.
    index_a, index_b, p_adjusted, effect_size
        The compared pairs (indices into ``systems``), their adjusted p-values (NaN:
        not testable) and combined effect sizes.
    graph
        The graph of pairs that are not significantly different, with its groups.
    letters
        Compact letter display (all pairs compared), else None.
    sign_tests, friedman
        Across several lists: the sign test of list wins for every pair ("A wins on
        more lists than B") and the Friedman test with the Nemenyi critical difference
        (Demšar 2006); ``sign_index`` holds the pairs of ``sign_tests`` (indices into
        ``systems``).
    """

    selection: ListSelection
    lists: tuple[str, ...]
    method: str
    order: str
    alternative: str
    alpha: float
    systems: tuple[str, ...]
    scores: np.ndarray
    list_means: np.ndarray
    index_a: np.ndarray
    index_b: np.ndarray
    p_adjusted: np.ndarray
    effect_size: np.ndarray
    graph: OrderedRanking
    letters: CompactLetterDisplay | None = None
    sign_tests: SignTestResult | None = None
    sign_index: tuple[np.ndarray, np.ndarray] | None = None
    friedman: FriedmanNemenyiResult | None = None
    notes: tuple[str, ...] = field(default=())

    def significant(self) -> np.ndarray:
        from reportgen.stats.multiplicity import rejects

        return rejects(self.p_adjusted, self.alpha)

    @property
    def sign_tests_decidable(self) -> bool:
        """Whether a sign test of wins across the lists can reach α at all: its
        smallest two-sided p, when one system wins every list, is 2^(1 − n lists)."""
        return self.sign_tests is not None and 2.0 ** (1 - len(self.lists)) <= self.alpha

    def letter_of(self) -> dict[str, str]:
        if self.letters is None:
            return {}
        return dict(zip(self.letters.systems, self.letters.letters))

    def pair_columns(self) -> dict[str, np.ndarray]:
        """The ``pairs`` of :meth:`to_dict` by column (NaN where a record has None)."""
        names = np.asarray(self.systems, dtype=object)
        return {
            "system_a": names[np.asarray(self.index_a, dtype=np.intp)],
            "system_b": names[np.asarray(self.index_b, dtype=np.intp)],
            "p_adjusted": np.asarray(self.p_adjusted, dtype=np.float64),
            "effect_size": np.asarray(self.effect_size, dtype=np.float64),
            "significant": np.asarray(self.significant(), dtype=bool),
        }

    def to_dict(self, *, pairs: bool = True) -> dict[str, Any]:
        """The ``rankings`` entry of kind ``ordered``; ``pairs=False`` leaves its
        ``pairs`` empty (:meth:`pair_columns`)."""
        sig = self.significant()
        entry: dict[str, Any] = {
            "kind": "ordered",
            "lists": list(self.lists),
            "method": self.method,
            "order": self.order,
            "alternative": self.alternative,
            "alpha": self.alpha,
            "systems": [
                {"system": s, "score": float(self.scores[r]), "rank": r + 1}
                for r, s in enumerate(self.systems)
            ],
            "pairs": [
                {
                    "system_a": self.systems[i],
                    "system_b": self.systems[j],
                    "p_adjusted": float(self.p_adjusted[k]),
                    "effect_size": float(self.effect_size[k]),
                    "significant": bool(sig[k]),
                }
                for k, (i, j) in enumerate(zip(self.index_a, self.index_b))
            ]
            if pairs
            else [],
            "graph": self.graph.to_dict(),
            "selection": self.selection.to_dict(),
        }
        if self.letters is not None:
            entry["letters"] = self.letters.to_dict()
        if len(self.lists) > 1 and self.sign_tests is not None and self.sign_index is not None:
            a, b = self.sign_index
            rows = [
                {
                    "system_a": self.systems[i],
                    "system_b": self.systems[j],
                    "wins_a": int(wa),
                    "wins_b": int(wb),
                    "p_value": float(p),
                }
                for i, j, wa, wb, p in zip(
                    a, b, self.sign_tests.wins_a, self.sign_tests.wins_b, self.sign_tests.p_value
                )
            ]
            across: dict[str, Any] = {"n_lists": len(self.lists), "sign_tests": rows}
            if self.friedman is not None:
                across["friedman_nemenyi"] = self.friedman.to_dict()
            entry["across_lists"] = across
        return entry

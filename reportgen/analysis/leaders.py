"""Who leads each benchmark, and who is tied with the leader; which benchmarks share
their systems; what the ranking across datasets covers.

A collection of benchmarks whose system sets only partly overlap (eval-arena style: each
model scored on some of the benchmarks) has no single answer to "who leads": the ranking
across datasets (:class:`reportgen.analysis.results.RankingAcrossLists`) covers the
datasets and systems its selection chose, and says nothing of the rest. The answer is
then one per benchmark, which :func:`benchmark_leaders` reads off each dataset ×
metric's own comparisons, decided once by the analysis (never re-decided here):

* :class:`BenchmarkLeader`: the leader of one dataset × metric (the best mean), its mean
  and interval, the systems whose comparison with it is not significant (tied with it),
  the runner-up and whether the leader is significantly ahead of it, the numbers of
  systems and items;
* :class:`OverlapBlock`: datasets grouped by the systems they share
  (:func:`overlap_blocks`), each block shown as its own matrix in its own rank order, so
  that no column of a matrix is mostly empty;
* :class:`Leaders`: both, and whether the ranking across datasets covers less than every
  dataset and system (:attr:`Leaders.partial`), in which case the report answers per
  benchmark first.

The report renders these objects (:mod:`reportgen.report.render.leaders`); results.json
has them in its ``leaders`` section (:meth:`Leaders.to_dict`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from reportgen.records import fields_record, from_record

if TYPE_CHECKING:
    from reportgen.analysis._core import Analysis
    from reportgen.analysis.results import RankingAcrossLists, UnitResult

__all__ = [
    "BenchmarkLeader",
    "Leaders",
    "MIN_BLOCK_FILL",
    "OverlapBlock",
    "RankingLeader",
    "benchmark_leaders",
    "headline_units",
    "overlap_blocks",
]

#: The smallest share of a block's systems that each of its datasets must score: a
#: block's matrix has no column that is mostly empty ("–").
MIN_BLOCK_FILL = 2 / 3

OrderedBy = Literal["ranking", "mean", "mean position"]


@dataclass(frozen=True)
class BenchmarkLeader:
    """The leader of one dataset × metric and the systems tied with it.

    Attributes
    ----------
    dataset, metric, direction, proportion
        The unit, whether higher or lower is better, and whether its scores are rates
        (shown in percent).
    leader
        The system with the best mean.
    mean, ci_low, ci_high
        Its mean and confidence interval (the interval of the unit's system table).
    tied
        The systems whose comparison with the leader is not significant (after the
        family's correction), best mean first.
    n_systems, n_items
        Systems scored on the unit, and items (of the system with the most).
    runner_up
        The second-best mean, or None (one system).
    ahead_of_runner_up
        Whether the leader is significantly better than the runner-up (None: not
        compared).
    not_compared
        Systems whose pair with the leader was not tested (comparison orders other than
        all pairs), best first.
    """

    dataset: str
    metric: str
    direction: str
    proportion: bool
    leader: str
    mean: float
    ci_low: float
    ci_high: float
    tied: tuple[str, ...]
    n_systems: int
    n_items: int
    runner_up: str | None = None
    ahead_of_runner_up: bool | None = None
    not_compared: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """``dataset / metric``."""
        return f"{self.dataset} / {self.metric}"

    def to_dict(self) -> dict[str, Any]:
        return fields_record(self)


@dataclass(frozen=True)
class OverlapBlock:
    """Datasets that share their systems, shown as one matrix.

    Attributes
    ----------
    datasets
        The datasets of the block, in the order of the analysis.
    units
        Its ``(dataset, metric)`` columns.
    systems
        Its rows, best first: the systems scored on every column (:attr:`complete` of
        them) in the order :attr:`ordered_by` says, then the others by their mean
        position over the columns they are scored on.
    complete
        How many of :attr:`systems` (the first ones) are scored on every column.
    ordered_by
        ``"ranking"`` (the ranking across datasets ranks exactly this block's
        datasets), ``"mean"`` (one column) or ``"mean position"`` (each system's mean
        position over the columns, 0 = best).
    """

    datasets: tuple[str, ...]
    units: tuple[tuple[str, str], ...]
    systems: tuple[str, ...]
    complete: int
    ordered_by: OrderedBy

    def to_dict(self) -> dict[str, Any]:
        return {
            "datasets": list(self.datasets),
            "units": [{"dataset": d, "metric": m} for d, m in self.units],
            "systems": list(self.systems),
            "complete": self.complete,
            "ordered_by": self.ordered_by,
        }


@dataclass(frozen=True)
class RankingLeader:
    """The first system of the ranking across datasets, and its scope.

    Attributes
    ----------
    datasets
        The datasets ranked over (the ranking's selection).
    n_lists
        Score lists of the ranking (a dataset's metric aggregate or one dataset ×
        metric each).
    n_ranked
        Systems ranked: those scored on every one of :attr:`datasets`.
    leader
        The first system.
    tied
        The ranked systems whose combined comparison with the leader is not
        significant, in rank order.
    runner_up, ahead_of_runner_up
        The second system, and whether the leader is significantly better than it
        (None: not compared).
    """

    datasets: tuple[str, ...]
    n_lists: int
    n_ranked: int
    leader: str
    tied: tuple[str, ...]
    runner_up: str | None = None
    ahead_of_runner_up: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return fields_record(self)


@dataclass(frozen=True)
class Leaders:
    """The answer per benchmark (module docstring).

    Attributes
    ----------
    benchmarks
        One :class:`BenchmarkLeader` per dataset × metric of the central matrix, in the
        order of the analysis.
    blocks
        The datasets grouped by the systems they share (:func:`overlap_blocks`).
    ranking
        The leader of the ranking across datasets with its scope, or None (no ranking,
        or fewer than 2 systems ranked).
    partial
        Whether the ranking across datasets covers less than every dataset or every
        system (or there is none while there are several datasets): a report then
        answers per benchmark first.
    n_systems, n_datasets
        Systems and datasets of the analysis.
    """

    benchmarks: tuple[BenchmarkLeader, ...]
    blocks: tuple[OverlapBlock, ...]
    ranking: RankingLeader | None
    partial: bool
    n_systems: int
    n_datasets: int

    def leader_of(self, dataset: str, metric: str) -> BenchmarkLeader | None:
        for b in self.benchmarks:
            if (b.dataset, b.metric) == (dataset, metric):
                return b
        return None

    @property
    def leaders(self) -> tuple[str, ...]:
        """Every system that leads some dataset × metric, once each."""
        return tuple(dict.fromkeys(b.leader for b in self.benchmarks))

    def to_dict(self) -> dict[str, Any]:
        """The ``leaders`` section of results.json."""
        return {
            "partial": self.partial,
            "n_systems": self.n_systems,
            "n_datasets": self.n_datasets,
            "benchmarks": [b.to_dict() for b in self.benchmarks],
            "blocks": [b.to_dict() for b in self.blocks],
            "ranking": None if self.ranking is None else self.ranking.to_dict(),
        }

    @classmethod
    def from_dict(cls, section: Mapping[str, Any]) -> Leaders:
        """The leaders of a results.json ``leaders`` section (:meth:`to_dict`), for the
        readers of a stored report (the e-mail, the history).

        >>> same = Leaders.from_dict(Leaders((), (), None, True, 3, 2).to_dict())
        >>> same.partial, same.n_systems, same.benchmarks
        (True, 3, ())
        """
        ranking = section.get("ranking")
        return cls(
            benchmarks=tuple(from_record(BenchmarkLeader, b) for b in section["benchmarks"]),
            blocks=tuple(
                OverlapBlock(
                    datasets=tuple(b["datasets"]),
                    units=tuple((u["dataset"], u["metric"]) for u in b["units"]),
                    systems=tuple(b["systems"]),
                    complete=int(b["complete"]),
                    ordered_by=b["ordered_by"],
                )
                for b in section["blocks"]
            ),
            ranking=None if ranking is None else from_record(RankingLeader, ranking),
            partial=bool(section["partial"]),
            n_systems=int(section.get("n_systems", 0)),
            n_datasets=int(section.get("n_datasets", 0)),
        )


# --------------------------------------------------------------------------- building


def headline_units(analysis: Analysis) -> list[UnitResult]:
    """The units of the central matrix: every compared dataset × metric measured per
    item (corpus metrics computed from predictions stay in the appendix), or every such
    unit when none is compared."""
    units = [u for u in analysis.compared if u.derived_from is None]
    return units or [u for u in analysis.units if u.derived_from is None]


def _leader(unit: UnitResult) -> BenchmarkLeader | None:
    order = unit.order()
    means = unit.means
    if not order or not np.isfinite(means[order[0]]):
        return None
    names = unit.systems
    best = order[0]
    leader = names[best]
    ranked = [names[k] for k in order]
    tied: list[str] = []
    untested: list[str] = []
    runner_up = ranked[1] if len(ranked) > 1 else None
    ahead: bool | None = None
    result = unit.comparisons
    if result is not None and len(ranked) > 1:
        systems = result.systems
        ia = np.asarray(result.index_a, dtype=np.intp)
        ib = np.asarray(result.index_b, dtype=np.intp)
        k = systems.index(leader) if leader in systems else -1
        mine = (ia == k) | (ib == k)
        other = np.where(ia == k, ib, ia)[mine]
        significant = np.asarray(result.significant(), dtype=bool)[mine]
        decided = {systems[j]: bool(s) for j, s in zip(other.tolist(), significant.tolist())}
        for name in ranked[1:]:
            if name not in decided:
                untested.append(name)
            elif not decided[name]:
                tied.append(name)
        if runner_up in decided:
            ahead = decided[runner_up]
    n = np.atleast_1d(np.asarray(unit.intervals.n))
    return BenchmarkLeader(
        dataset=unit.dataset,
        metric=unit.metric,
        direction=unit.direction,
        proportion=bool(unit.proportion),
        leader=leader,
        mean=float(means[best]),
        ci_low=float(unit.intervals.ci_low[best]),
        ci_high=float(unit.intervals.ci_high[best]),
        tied=tuple(tied),
        n_systems=len(names),
        n_items=int(n.max()) if n.size else 0,
        runner_up=runner_up,
        ahead_of_runner_up=ahead,
        not_compared=tuple(untested),
    )


def overlap_blocks(
    coverage: Mapping[str, Sequence[str]], *, min_fill: float = MIN_BLOCK_FILL
) -> list[tuple[str, ...]]:
    """The datasets grouped into blocks that share their systems.

    Parameters
    ----------
    coverage
        For each dataset (in order), the systems scored on it.
    min_fill
        The smallest share of a block's systems (the union over its datasets) that each
        of its datasets must score.

    Returns
    -------
    list of tuple of str
        The blocks, each in the order of ``coverage``, ordered by their first dataset.
        Every dataset scores at least ``min_fill`` of its block's systems, so a block's
        matrix has no column that is mostly empty; a dataset that shares too little
        with every other is a block of its own.

    Notes
    -----
    Agglomerative: starting from one block per dataset, the two blocks whose systems
    overlap most (Jaccard index of their system sets) are merged, as long as the
    merged block keeps every column at least ``min_fill`` full; blocks that share no
    system are never merged. At most d − 1 merges of d datasets, each looking at the
    pairs of blocks: polynomial, never an enumeration of the partitions (their number
    grows faster than exponentially).

    Examples
    --------
    >>> cov = {"a": ["s1", "s2", "s3"], "b": ["s1", "s2", "s3", "s4"], "c": ["t1", "t2"]}
    >>> overlap_blocks(cov)
    [('a', 'b'), ('c',)]
    """
    names = list(coverage)
    sets = {d: frozenset(coverage[d]) for d in names}
    blocks: list[list[str]] = [[d] for d in names]

    def union(block: Sequence[str]) -> frozenset[str]:
        return frozenset().union(*(sets[d] for d in block))

    while len(blocks) > 1:
        best: tuple[float, int, int] | None = None
        unions = [union(b) for b in blocks]
        for i in range(len(blocks)):
            for j in range(i + 1, len(blocks)):
                shared = len(unions[i] & unions[j])
                if not shared:
                    continue
                merged = unions[i] | unions[j]
                if any(len(sets[d]) < min_fill * len(merged) for d in blocks[i] + blocks[j]):
                    continue
                score = shared / len(merged)
                if best is None or score > best[0]:
                    best = (score, i, j)
        if best is None:
            break
        _, i, j = best
        blocks[i] = blocks[i] + blocks[j]
        del blocks[j]
    position = {d: k for k, d in enumerate(names)}
    out = [tuple(sorted(b, key=position.__getitem__)) for b in blocks]
    return sorted(out, key=lambda b: position[b[0]])


def _ranking_leader(ranking: RankingAcrossLists | None) -> RankingLeader | None:
    """The leader of the ranking across datasets: the pairs of its first system, as the
    ranking decided them (its adjusted combined p-values)."""
    if ranking is None or len(ranking.systems) < 2:
        return None
    ia = np.asarray(ranking.index_a, dtype=np.intp)
    ib = np.asarray(ranking.index_b, dtype=np.intp)
    mine = (ia == 0) | (ib == 0)
    other = np.where(ia == 0, ib, ia)[mine]
    significant = np.asarray(ranking.significant(), dtype=bool)[mine]
    decided = dict(zip(other.tolist(), significant.tolist()))
    tied = tuple(ranking.systems[j] for j in sorted(decided) if not decided[j])
    return RankingLeader(
        datasets=tuple(ranking.selection.datasets),
        n_lists=len(ranking.lists),
        n_ranked=len(ranking.systems),
        leader=ranking.systems[0],
        tied=tied,
        runner_up=ranking.systems[1],
        ahead_of_runner_up=None if 1 not in decided else bool(decided[1]),
    )


def _positions(units: Sequence[UnitResult]) -> dict[str, list[float]]:
    """Each system's position in each unit it is scored on: 0 for the best mean, 1 for
    the worst (NaN means last)."""
    positions: dict[str, list[float]] = {}
    for unit in units:
        order = unit.order()
        n = max(len(order) - 1, 1)
        for position, k in enumerate(order):
            positions.setdefault(unit.systems[k], []).append(position / n)
    return positions


def _block(
    analysis: Analysis, datasets: Sequence[str], units: Sequence[UnitResult]
) -> OverlapBlock:
    positions = _positions(units)
    members = [s for s in analysis.table.systems if s in positions]
    complete = [s for s in members if len(positions[s]) == len(units)]
    rest = [s for s in members if len(positions[s]) < len(units)]
    ranking = analysis.ranking

    def by_position(names: list[str]) -> list[str]:
        return sorted(names, key=lambda s: (float(np.mean(positions[s])), -len(positions[s])))

    ordered_by: OrderedBy
    if ranking is not None and set(ranking.selection.datasets) == set(datasets):
        ranked = [s for s in ranking.systems if s in set(complete)]
        complete = ranked + by_position([s for s in complete if s not in set(ranked)])
        ordered_by = "ranking"
    else:
        complete = by_position(complete)
        ordered_by = "mean" if len(units) == 1 else "mean position"
    return OverlapBlock(
        datasets=tuple(datasets),
        units=tuple((u.dataset, u.metric) for u in units),
        systems=tuple(complete + by_position(rest)),
        complete=len(complete),
        ordered_by=ordered_by,
    )


def benchmark_leaders(analysis: Analysis) -> Leaders:
    """The answer per benchmark of ``analysis`` (module docstring;
    :attr:`reportgen.analysis.Analysis.leaders` caches it).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from reportgen.data import AdapterResult, build_score_table
    >>> from reportgen.analysis import analyze, AnalysisOptions
    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame(
    ...     [(s, "qa", "acc", f"i{k}", float(rng.random() < p))
    ...      for s, p in (("a", 0.9), ("b", 0.85), ("c", 0.3)) for k in range(80)],
    ...     columns=["system", "dataset", "metric", "item", "score"])
    >>> table = build_score_table(AdapterResult(frame))
    >>> found = analyze(table, AnalysisOptions(seed=1, n_resamples=199)).leaders
    >>> top = found.benchmarks[0]
    >>> top.leader, top.tied, top.n_systems, found.partial
    ('a', ('b',), 3, False)
    """
    units = headline_units(analysis)
    benchmarks = tuple(b for b in (_leader(u) for u in units) if b is not None)
    coverage: dict[str, list[str]] = {}
    for unit in units:
        coverage.setdefault(unit.dataset, [])
        coverage[unit.dataset] += [s for s in unit.systems if s not in coverage[unit.dataset]]
    blocks = tuple(
        _block(analysis, block, [u for u in units if u.dataset in set(block)])
        for block in overlap_blocks(coverage)
    )
    ranking = analysis.ranking
    # the systems analysed (a release compares two of those loaded)
    analysed = {s for systems in coverage.values() for s in systems}
    n_systems, n_datasets = len(analysed) or len(analysis.table.systems), len(coverage)
    if ranking is None:
        partial = n_datasets > 1
    else:
        partial = (
            len(ranking.selection.datasets) < n_datasets
            or len(ranking.selection.systems) < n_systems
        )
    return Leaders(benchmarks, blocks, _ranking_leader(ranking), partial, n_systems, n_datasets)

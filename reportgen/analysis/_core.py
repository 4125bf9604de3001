"""One call that runs the analysis of a score table: :func:`analyze`.

For every (dataset, metric) it compares the systems pairwise
(:mod:`reportgen.stats.pairwise`), summarises each system with a confidence interval, and
corrects the p-values for multiplicity within each dataset × metric (default) or across
the whole analysis; then it ranks the systems across datasets. The result is an
:class:`Analysis`: a tree of frozen typed results (:mod:`reportgen.analysis.results`);
:meth:`Analysis.to_results` gives the ``results.json`` contract of docs/results.md.

Conventions
-----------
* **Direction.** ``diff = mean_a − mean_b`` on the metric's own scale. ``alternative =
  "greater"`` tests that system A is *better* than B: a higher mean for a
  higher-is-better metric, a lower mean for a lower-is-better one.
* **Repeated runs.** Scores are averaged over the runs of each item first, so items stay
  the independent units (a cluster-robust analysis); binary scores averaged over runs
  are fractional and analysed as continuous.
* **Pairing.** ``"auto"`` follows :attr:`reportgen.data.PairingInfo.recommended`;
  ``"paired"`` or ``"unpaired"`` forces it.
* **Randomness.** Each dataset × metric gets its own generator seeded from the master
  seed and the (dataset, metric) names, so results do not depend on which other units
  are analysed or in what order. The master seed is recorded in the results.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from reportgen.analysis._groups import validate_columns
from reportgen.analysis._ranking import rank_across
from reportgen.analysis._units import (
    UnitOutput,
    analyze_unit,
    ordered_systems,
    with_graph,
)
from reportgen.analysis.battles import (
    BattleAnalysis,
    analyze_battles,
    battle_pvalues,
    with_family,
)
from reportgen.analysis.leaders import Leaders
from reportgen.analysis.ledger import Ledger
from reportgen.analysis.options import AnalysisOptions
from reportgen.analysis.release import ReleaseComparison
from reportgen.analysis.results import (
    MetricAggregate,
    RankingAcrossLists,
    TopsisCheck,
    UnitResult,
)
from reportgen.data import ScoreTable
from reportgen.errors import InputError, OneSidedWarning
from reportgen.execution import Execution, blas_threads, map_units
from reportgen.names import CORRECTION_NAMES
from reportgen.plaintext import count, did_you_mean, listed, n_of
from reportgen.stats.multiplicity import (
    IntervalPlan,
    adjust_pvalues,
    decision_levels,
    interval_plan,
)

__all__ = ["Analysis", "analyze", "analyze_release", "check_options"]


@dataclass(frozen=True)
class Analysis:
    """The result of :func:`analyze`: every number a report shows.

    Attributes
    ----------
    table
        The score table analysed.
    options
        The options used.
    seed, created
        The master seed actually used; when the analysis ran (ISO 8601, UTC).
    units
        One :class:`~reportgen.analysis.results.UnitResult` per dataset × metric with at
        least one system (and one per corpus metric computed from predictions), in the
        order of :meth:`ScoreTable.pairs`.
    ranking
        The ranking across datasets, or None (fewer than 2 systems share a dataset).
    aggregates
        The metric aggregate of each dataset whose metrics are paired.
    topsis
        The TOPSIS cross-check of each dataset with several metrics.
    release
        The release comparison of :func:`reportgen.analysis.analyze_release`, else None.
    notes
        What the reader should know about choices the analysis made.
    battles
        The analysis of the battles the inputs hold (ratings, win rates and a claim per
        pair, :mod:`reportgen.analysis.battles`); empty without battles.
    """

    table: ScoreTable
    options: AnalysisOptions
    seed: int
    created: str
    units: tuple[UnitResult, ...]
    ranking: RankingAcrossLists | None = None
    aggregates: tuple[MetricAggregate, ...] = ()
    topsis: tuple[TopsisCheck, ...] = ()
    release: ReleaseComparison | None = None
    notes: tuple[str, ...] = field(default=())
    battles: BattleAnalysis = field(default_factory=BattleAnalysis)

    @property
    def compared(self) -> tuple[UnitResult, ...]:
        """The units with comparisons (at least 2 systems)."""
        return tuple(u for u in self.units if u.comparisons is not None)

    def unit(self, dataset: str, metric: str) -> UnitResult:
        """The unit of ``dataset`` × ``metric``.

        Raises
        ------
        InputError
            No such unit.
        """
        for u in self.units:
            if (u.dataset, u.metric) == (dataset, metric):
                return u
        raise InputError(
            f"no results for dataset {dataset!r}, metric {metric!r}",
            hint="units: " + ", ".join(u.name for u in self.units[:20]),
        )

    @functools.cached_property
    def ledger(self) -> Ledger:
        """Every claim of this analysis, decided once
        (:class:`reportgen.analysis.ledger.Ledger`): the family, the comparisons with
        their adjusted intervals, the release verdicts, one noise figure per dataset ×
        metric and the methods used. Every output renders it."""
        from reportgen.analysis.ledger import build_ledger

        return build_ledger(self)

    @functools.cached_property
    def leaders(self) -> Leaders:
        """Who leads each dataset × metric and who is tied with the leader, the blocks
        of datasets that share their systems, and whether the ranking across datasets
        covers less than everything (:class:`reportgen.analysis.leaders.Leaders`)."""
        from reportgen.analysis.leaders import benchmark_leaders

        return benchmark_leaders(self)

    def comparisons(self) -> list[dict[str, Any]]:
        """Every comparison row (the ``comparisons`` section of results.json)."""
        return [row for u in self.units for row in u.comparison_records()]

    def to_results(self) -> dict[str, Any]:
        """The ``results.json`` document (docs/results.md); NaN values are None."""
        from reportgen.analysis.serialize import to_results

        return to_results(self)


def check_options(table: ScoreTable, options: AnalysisOptions) -> None:
    """The checks of ``options`` against ``table`` that :func:`analyze` makes before any
    work (``reportgen run`` makes them before the notebook starts).

    Raises
    ------
    InputError
        An unknown baseline or system, an unknown attribute column, a ``rank_lists``
        name that is not a dataset, or ``pairing="paired"`` on a dataset × metric whose
        systems share no item.
    """

    for name in (options.baseline, *(options.systems or ())):
        if name is not None and name not in table.systems:
            raise InputError(f"unknown system {name!r}", hint=did_you_mean(name, table.systems))
    for name in options.rank_lists or ():
        if name not in table.datasets:
            raise InputError(
                f"--rank-lists names {name!r}, which is not a dataset",
                hint=f"datasets: {', '.join(table.datasets)}",
            )
    validate_columns(
        table,
        group_by=options.group_by,
        compare_by=options.compare_by,
        condition_on=options.condition_on,
    )
    if options.pairing == "paired":
        for dataset, metric in table.pairs():
            systems = ordered_systems(table.systems_of(dataset, metric), options)
            if len(systems) >= 2 and table.pairing(dataset, metric, systems).n_common < 1:
                raise InputError(
                    f"pairing='paired' but no item of dataset {dataset!r}, metric "
                    f"{metric!r} was scored for all of {', '.join(systems[:5])}"
                    + (" …" if len(systems) > 5 else ""),
                    hint="use --pairing auto (or unpaired), or select systems scored on "
                    "the same items",
                )


def analyze(
    table: ScoreTable,
    options: AnalysisOptions | None = None,
    *,
    execution: Execution | None = None,
    progress: Callable[[int, int], None] | None = None,
    _decide: _Decide | None = None,
) -> Analysis:
    """Compare the systems of every (dataset, metric) of ``table``.

    Parameters
    ----------
    table
        The validated scores (:func:`reportgen.data.load`).
    options
        See :class:`AnalysisOptions`; the defaults: automatic test choice, all pairs,
        two-sided, Holm-Šidák within each dataset × metric, α = 0.05.
    execution
        Where the (dataset, metric) units run (:class:`reportgen.execution.Execution`):
        serially in this process (default), in ``jobs`` local worker processes, or on a
        Dask cluster. The results are the same whatever the setting, and it is not
        recorded in them.
    progress
        Called as ``progress(done, total)`` each time a (dataset, metric) unit is done.

    Returns
    -------
    Analysis

    Raises
    ------
    InputError
        Bad options (e.g. an unknown baseline), or forced pairing impossible.
    ConfigError
        ``execution`` asks for Dask, which is not installed.

    Notes
    -----
    The units are independent: each draws from its own generator
    (:func:`reportgen.analysis.unit_rng`) and their outputs are merged in the order of
    ``table.pairs()``, so a parallel run gives the same numbers as a serial one. Warnings
    raised in worker processes are raised again here, in unit order. The steps across
    units (``correct_across="all"``, the aggregates and rankings) run in this process
    after the units. Everything runs with one BLAS thread
    (:func:`reportgen.execution.blas_threads`): a BLAS's last bits depend on its thread
    count, so this keeps the numbers the same on machines with different numbers of
    cores.
    """
    options = options or AnalysisOptions()
    seed = (
        options.seed
        if options.seed is not None
        else int(cast(int, np.random.SeedSequence().entropy)) % (2**63)
    )
    check_options(table, options)
    if options.alternative != "two-sided":
        warnings.warn(
            f"alternative={options.alternative!r} (system A "
            f"{'better' if options.alternative == 'greater' else 'worse'} than B): "
            "a one-sided test is valid only if its direction was fixed before "
            "looking at the data",
            OneSidedWarning,
            stacklevel=2,
        )
    with blas_threads(1):  # the same bits whatever the executor (execution.blas_threads)
        return _analyze(table, options, seed, execution, progress, _decide)


#: A family that decides its claims itself (a release): units in, (units, release) out.
_Decide = Callable[[list[UnitResult], int], tuple[list[UnitResult], ReleaseComparison]]


def _analyze(
    table: ScoreTable,
    options: AnalysisOptions,
    seed: int,
    execution: Execution | None,
    progress: Callable[[int, int], None] | None,
    decide: _Decide | None = None,
) -> Analysis:
    """:func:`analyze` after its checks: the units, then the steps across units.

    ``decide`` (a release) replaces the comparisons' decisions by its family's before
    anything is derived from them (the graphs, tie groups and rankings), so that every
    part of the analysis shows the same decision."""
    family = _family_size(table, options) if options.correct_across == "all" else None
    tasks = [(dataset, metric, options, seed, family) for dataset, metric in table.pairs()]
    outputs: list[UnitOutput] = map_units(
        analyze_unit, table, tasks, execution=execution, progress=progress
    )
    units = [u for out in outputs for u in out.units]
    notes: list[str] = []
    for out in outputs:
        for note in out.notes:  # a note given by several units is kept once
            if note not in notes:
                notes.append(note)
    notes = merge_unit_notes(notes, [f"{d} / {m}" for d, m in table.pairs()])
    compared = [k for k, u in enumerate(units) if u.comparisons is not None]
    battles = analyze_battles(table.battles, options, seed)
    for group in battles.results:
        notes.extend(n for n in group.notes if n not in notes)
    if options.correct_across == "all" and (compared or battles.claims):
        raw = np.concatenate(
            [units[k].comparisons.p_value for k in compared]  # type: ignore[union-attr]
            + [battle_pvalues(battles)]
        )
        adjusted = adjust_pvalues(raw, method=options.correction)
        levels = decision_levels(raw, alpha=options.alpha, method=options.correction)
        # one plan for the whole family: step-down intervals depend on every decision
        plan = interval_plan(raw, alpha=options.alpha, method=options.correction)
        start = 0
        for k in compared:
            result = units[k].comparisons
            if result is None:
                continue
            n = result.n_pairs
            part = slice(start, start + n)
            units[k] = replace(
                units[k],
                comparisons=result.with_adjusted(
                    adjusted[part], options.correction, levels[part], plan=plan[part]
                ),
            )
            start += n
        if battles.claims:  # the battles' pairs come last in the family
            battles = with_family(
                battles,
                adjusted[start:],
                levels[start:],
                options.correction,
                int(np.count_nonzero(~np.isnan(raw))),
            )
        if decide is None:  # a release states its own family (the ledger's), not this one
            notes.append(
                f"p-values adjusted with {CORRECTION_NAMES.get(options.correction)} across "
                f"all {count(len(raw), 'comparison')} of the analysis"
            )
    release = None
    if decide is not None:
        units, release = decide(units, seed)
    units = [with_graph(u) for u in units]  # from the final adjusted p-values
    across = rank_across(table, options, seed, units)
    units = [
        replace(u, ranks=across.ranks[(u.dataset, u.metric)])
        if (u.dataset, u.metric) in across.ranks and u.derived_from is None
        else u
        for u in units
    ]
    notes.extend(across.notes)
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return Analysis(
        table,
        options,
        seed,
        created,
        tuple(units),
        across.ranking,
        tuple(across.aggregates),
        tuple(across.topsis),
        release,
        tuple(notes),
        battles,
    )


_UNIT_NOTE = re.compile(r"(?P<head>[^(]*?)(?: \((?P<detail>.*)\))?")


def merge_unit_notes(notes: Sequence[str], units: Sequence[str]) -> list[str]:
    """The notes of the dataset × metrics (``"<dataset> / <metric>: <what> (<why>)"``)
    that say the same thing merged into one note: "On 6 of 13 dataset × metrics, <what>:
    a (<why>), b (<why>) ..." instead of six near-identical ones; a note said of one
    dataset × metric only, and any other note, stays as it is, in its place.

    >>> merge_unit_notes(["x / m: t intervals (kurtosis 9)", "y / m: t intervals "
    ...                   "(kurtosis 5)", "seed 3"], ["x / m", "y / m", "z / m"])
    ['On 2 of 3 dataset × metrics, t intervals: x / m (kurtosis 9) and y / m (kurtosis 5)', \
'seed 3']
    """
    known = set(units)
    parsed: list[tuple[str, str, str] | None] = []
    for note in notes:
        unit, sep, body = note.partition(": ")
        match = _UNIT_NOTE.fullmatch(body) if sep and unit in known else None
        parsed.append(None if match is None else (unit, match["head"], match["detail"] or ""))
    groups: dict[str, list[tuple[str, str]]] = {}
    for entry in parsed:
        if entry is not None:
            groups.setdefault(entry[1], []).append((entry[0], entry[2]))
    out: list[str] = []
    done: set[str] = set()
    for note, entry in zip(notes, parsed):
        if entry is None or len(groups[entry[1]]) == 1:
            out.append(note)
            continue
        if entry[1] in done:
            continue
        done.add(entry[1])
        group = groups[entry[1]]
        names = [f"{u} ({why})" if why else u for u, why in group]
        out.append(
            f"On {n_of(len(group), len(known), 'dataset × metric')}, {entry[1]}: "
            f"{listed(names, len(names))}"
        )
    return out


def _family_size(table: ScoreTable, options: AnalysisOptions) -> int:
    """The comparisons of the whole analysis (the family of ``correct_across="all"``):
    the pairs of every dataset × metric under ``options.order``, and those of the corpus
    metrics computed from predictions."""
    total = 0
    for dataset, metric in table.pairs():
        k = len(ordered_systems(table.systems_of(dataset, metric), options))
        if k < 2:
            continue
        pairs = k * (k - 1) // 2 if options.order == "all-pairs" else k - 1
        corpus = len(options.corpus_metrics or ()) if table.has_predictions(dataset, metric) else 0
        total += pairs * (1 + corpus)
    return max(total, 1)


def analyze_release(
    table: ScoreTable,
    options: AnalysisOptions | None = None,
    *,
    baseline: str,
    candidate: str,
    release: str | None = None,
    execution: Execution | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Compare a release candidate with its baseline on every dataset × metric.

    The analysis of :func:`analyze` restricted to the two systems, with every comparison
    oriented candidate − baseline (``system_a`` is the candidate), plus
    :attr:`Analysis.release`: a verdict per dataset × metric and every dataset × metric
    of the data where either system is missing.

    Parameters
    ----------
    table
        The scores.
    options
        The analysis options; ``systems``, ``baseline`` and ``order`` are set here. The
        multiplicity correction runs across ``options.correct_across`` (a release report
        passes ``"all"``: one family of all its dataset × metric comparisons).
    baseline, candidate
        The two systems (:func:`reportgen.analysis.release.resolve_release_systems`
        resolves defaults).
    release
        The release label, recorded with the verdicts.

    Raises
    ------
    InputError
        A system that is not in the data, or the same system twice.
    """
    from reportgen.analysis.release import release_comparison, resolve_release_systems

    baseline, candidate = resolve_release_systems(
        table.systems, baseline=baseline, candidate=candidate
    )
    options = replace(
        options or AnalysisOptions(),
        systems=(candidate, baseline),
        baseline=None,
        order="all-pairs",
    )
    coverage = [(d, m, table.systems_of(d, m)) for d, m in table.pairs()]

    def decide(units: list[UnitResult], seed: int) -> tuple[list[UnitResult], ReleaseComparison]:
        comparison = release_comparison(
            units,
            coverage,
            baseline=baseline,
            candidate=candidate,
            release=release,
            table=table,
            options=options,
            seed=seed,
        )
        by_unit = {(v.dataset, v.metric): v for v in comparison.verdicts}
        aligned = [
            _with_release_claim(u, by_unit.get((u.dataset, u.metric)), candidate) for u in units
        ]
        return aligned, comparison

    return analyze(table, options, execution=execution, progress=progress, _decide=decide)


def _with_release_claim(unit: UnitResult, verdict: Any, candidate: str) -> UnitResult:
    """The unit with its baseline-candidate comparison as the release decided it.

    A release is one family (all its dataset × metric units, decided on the
    simultaneous intervals of :func:`reportgen.stats.margins.margin_decisions`), so the
    pair shows the verdict's test, p-values, correction and intervals wherever the
    report shows it: in the verdict table and in the per-dataset sections alike.
    """
    result = unit.comparisons
    if verdict is None or result is None or unit.derived_from is not None:
        return unit
    if result.n_pairs != 1 or verdict.p_value is None:
        return unit
    sign = 1.0 if result.systems[result.index_a[0]] == candidate else -1.0

    def oriented(low: float | None, high: float | None) -> tuple[np.ndarray, np.ndarray]:
        lo = np.nan if low is None else sign * low
        hi = np.nan if high is None else sign * high
        return (np.array([lo]), np.array([hi])) if sign > 0 else (np.array([hi]), np.array([lo]))

    ci_low, ci_high = oriented(verdict.ci_low, verdict.ci_high)
    level = 1.0 - float(verdict.confidence_adjusted)
    decided = np.array([verdict.verdict in ("improved", "regressed")])
    plan = IntervalPlan(
        verdict.ci_adjusted_kind or "simultaneous",
        decided,
        np.array([level]),
        np.array([level]),
        np.zeros(1, bool),
    )
    return replace(
        unit,
        comparisons=replace(
            result,
            test=verdict.test,
            p_value=np.array([verdict.p_value], dtype=np.float64),
            p_adjusted=np.array(
                [np.nan if verdict.p_adjusted is None else verdict.p_adjusted], dtype=np.float64
            ),
            correction=verdict.correction,
            ci_low=ci_low,
            ci_high=ci_high,
            confidence=float(verdict.confidence),
            decision_level=np.array([level]),
            ci_adjusted=oriented(verdict.ci_adjusted_low, verdict.ci_adjusted_high),
            interval_plan=plan,
            estimand=verdict.estimand,
        ),
    )

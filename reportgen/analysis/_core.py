"""One call that runs the analysis of a score table: :func:`analyze`.

For every (dataset, metric) sample list it compares the systems pairwise
(:mod:`reportgen.stats.pairwise`), summarises each system with a confidence interval, and
corrects the p-values for multiplicity within each sample list (default) or across the
whole analysis. :meth:`Analysis.to_results` gives the ``results.json`` contract of
DESIGN.md.

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
* **Randomness.** Each sample list gets its own generator seeded from the master seed
  and the (dataset, metric) names, so results do not depend on which other sample lists
  are analysed or in what order. The master seed is recorded in the results.
"""

from __future__ import annotations

import datetime as _dt
import warnings
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

import numpy as np

from reportgen.analysis._groups import condition_and_compare, group_comparisons, validate_columns
from reportgen.analysis._ranking import ranking_sections
from reportgen.data import ScoreTable
from reportgen.errors import DegenerateDataWarning, InputError, OneSidedWarning
from reportgen.execution import Execution, blas_threads, map_units
from reportgen.jsonsafe import json_safe
from reportgen.stats._resampling import DEFAULT_MAX_MEMORY
from reportgen.stats._common import resampling_iv
from reportgen.stats.corpus import (
    classification_statistics,
    corpus_bootstrap_interval,
    corpus_compare_paired,
    corpus_metric,
)
from reportgen.stats.means import CIMethod, mean_intervals
from reportgen.stats.leaderboard import bradley_terry, item_analysis, win_rates
from reportgen.stats.noise import noise_profile
from reportgen.stats.pairwise import comparison_pairs
from reportgen.stats.power import mde_for_sample
from reportgen.stats.runs import (
    ci_width_by_runs,
    cluster_bootstrap_interval,
    clustered_mean_interval,
    pooled_runs_bootstrap,
    runs_differ_test,
    variance_components,
    variance_components_paired,
)
from reportgen.stats.multiplicity import CORRECTIONS, Correction, adjust_pvalues
from reportgen.stats.pairwise import (
    Alternative,
    EffectLevel,
    Method,
    Order,
    compare_paired,
    compare_unpaired,
)

__all__ = ["Analysis", "AnalysisOptions", "SampleListResult", "analyze", "check_options"]

Pairing = Literal["auto", "paired", "unpaired"]
CorrectAcross = Literal["sample-list", "all"]

_FLIP = {"two-sided": "two-sided", "greater": "less", "less": "greater"}


@dataclass(frozen=True)
class AnalysisOptions:
    """Options of :func:`analyze`; every field has the CLI flag of the same name.

    Attributes
    ----------
    pairing
        ``"auto"`` (detected), ``"paired"`` or ``"unpaired"``.
    method
        ``"auto"`` (Table 1 of seed 000), ``"permutation"``, ``"bootstrap"``, ``"sign"``.
    order, baseline
        ``"all-pairs"``, ``"first-vs-rest"`` (against ``baseline``, default the first
        system) or ``"successive"``.
    alternative
        ``"two-sided"``, ``"greater"`` (A better than B) or ``"less"``.
    correction, correct_across
        Multiplicity correction, within each sample list or across ``"all"``
        comparisons of the analysis.
    alpha, confidence
        Significance level; level of every interval.
    n_resamples
        Permutation / bootstrap resamples.
    effect_threshold
        Cohen level (small/medium/large) an effect must reach to count as large enough.
    ci_method
        Interval of each system's mean: ``"auto"`` (Wilson for binary scores, bootstrap
        BCa for continuous ones), ``"wilson"``, ``"clopper-pearson"``, ``"t"``,
        ``"percentile"`` or ``"bca"``.
    corpus_metrics
        Corpus-level metrics computed where the data carry predictions and references
        (:func:`reportgen.stats.corpus.corpus_metric` names, e.g. ``"f1-macro"``); each is
        analysed like a metric of its own (bootstrap intervals, approximate-randomization
        tests).
    power, detect_delta
        For the ``power`` section: the smallest difference each dataset × metric detects
        with this power at ``alpha``, and (if given) the items needed to detect a
        difference of ``detect_delta``.
    cluster_by
        An item-metadata column grouping items (e.g. a passage or a source document):
        the ``clusters`` section then gives each system's cluster-robust interval.
    group_by
        Item-metadata columns (e.g. difficulty): the ``groups`` section compares the
        systems within each level (seed 000 §10.1).
    compare_by, condition_on
        System attributes (hyperparameters): within each combination of
        ``condition_on``, systems sharing the ``compare_by`` values are pooled and the
        best level is tested against the others (seed 000 §10.2); the
        ``hyperparameters`` section.
    seed
        Master seed; ``None`` draws one (and records it).
    systems
        Analyse only these systems (in this order); default all.
    max_memory
        Bound on the working memory of one resampling step, in bytes (at least 1 MiB;
        default 256 MiB): resamples are drawn in chunks of at most this size, which
        changes the peak memory, never the numbers. With ``jobs`` worker processes each
        may use this much.
    """

    pairing: Pairing = "auto"
    method: Method = "auto"
    order: Order = "all-pairs"
    baseline: str | None = None
    alternative: Alternative = "two-sided"
    correction: Correction = "holm-sidak"
    correct_across: CorrectAcross = "sample-list"
    alpha: float = 0.05
    confidence: float = 0.95
    n_resamples: int = 9999
    effect_threshold: EffectLevel = "medium"
    ci_method: CIMethod = "auto"
    corpus_metrics: tuple[str, ...] = ("f1-macro",)
    power: float = 0.8
    detect_delta: float | None = None
    cluster_by: str | None = None
    group_by: tuple[str, ...] = ()
    compare_by: tuple[str, ...] = ()
    condition_on: tuple[str, ...] = ()
    seed: int | None = None
    systems: tuple[str, ...] | None = None
    max_memory: int = DEFAULT_MAX_MEMORY

    def __post_init__(self) -> None:
        for name, choices in (("pairing", get_args(Pairing)),
                              ("correct_across", get_args(CorrectAcross)),
                              ("correction", CORRECTIONS),
                              ("ci_method", get_args(CIMethod))):
            if getattr(self, name) not in choices:
                raise InputError(f"{name}={getattr(self, name)!r} is not valid",
                                 hint=f"use one of: {', '.join(choices)}")
        for name in self.corpus_metrics:
            corpus_metric(name)  # unknown names raise, listing the known ones
        if not 0 < self.power < 1:
            raise InputError(f"power={self.power!r} must be between 0 and 1 (exclusive)",
                             hint="e.g. power=0.8")
        resampling_iv(confidence=self.confidence, n_resamples=self.n_resamples,
                      max_memory=2**20, alpha=self.alpha)  # bad values fail here, early
        if self.seed is not None and (isinstance(self.seed, bool) or
                                      not isinstance(self.seed, int) or self.seed < 0):
            raise InputError(f"seed={self.seed!r} must be a non-negative integer")
        if isinstance(self.max_memory, bool) or not isinstance(self.max_memory, int) \
                or self.max_memory < 2**20:
            raise InputError(f"max_memory={self.max_memory!r} is not valid",
                             hint="a whole number of bytes, at least 1 MiB (1048576); "
                                  "reportgen.execution.parse_memory_size reads '512MB'")


@dataclass(frozen=True)
class SampleListResult:
    """The comparisons of one (dataset, metric)."""

    dataset: str
    metric: str
    direction: Literal["higher", "lower"]
    pairing: Literal["paired", "unpaired"]
    runs: int
    n_excluded_items: int
    result: Any  # PairwiseResult, or CorpusComparisonResult for corpus-level metrics
    derived_from: str | None = None  # the metric whose predictions a corpus metric uses

    def records(self) -> list[dict[str, Any]]:
        rows = []
        for row in self.result.to_records():
            rows.append({"dataset": self.dataset, "direction": self.direction,
                         "pairing": self.pairing, "modality": "corpus", **row,
                         "runs": self.runs, "metric": self.metric,
                         "derived_from": self.derived_from,
                         "alternative": _quality_alternative(row["alternative"],
                                                             self.direction)})
        return rows


def _quality_alternative(raw: str, direction: str) -> str:
    return raw if direction == "higher" else _FLIP[raw]


@dataclass(frozen=True)
class Analysis:
    """The result of :func:`analyze`.

    Attributes
    ----------
    sample_lists
        One :class:`SampleListResult` per (dataset, metric) with at least 2 systems.
    systems
        One row per dataset × metric × system: mean, CI, n, runs.
    seed
        The master seed actually used.
    noise
        One noise profile (seed 002) per dataset × metric whose item scores are
        proportions (binary, or shares of k samples) on paired items.
    runs
        Per dataset × metric with repeated runs: cluster bootstrap and cluster-robust
        intervals, the split of the variance of each mean and of each compared
        difference into data and prediction noise, seed 004's pooled-runs bootstrap with
        per-run intervals, whether runs differ (Cochran's Q / Friedman), and the CI
        width against the number of runs used.
    clusters
        Per dataset × metric, when ``options.cluster_by`` names an item-metadata column:
        cluster-robust intervals of each system's mean beside the naive ones.
    groups
        Per dataset × metric × level of ``options.group_by``: the comparisons on the items
        of that level.
    hyperparameters
        Per dataset × metric × condition group: the pooled levels of the compared
        hyperparameters and the best level against each other.
    aggregates
        The metric aggregate of each dataset whose metrics are paired (seed 000 §6.1).
    objects
        The result objects behind the sections, for charts (not in results.json), keyed
        by ``(kind, dataset, metric)`` with ``"*"`` for "all": ``("ordered", "*", "*")``
        :class:`~reportgen.stats.ranking.OrderedRanking`, ``("friedman", "*", "*")``,
        ``("topsis", dataset, "*")``, and per dataset × metric ``"noise"``,
        ``"bradley_terry"``, ``"item_analysis"``, ``"rank_distributions"``,
        ``"rank_intervals"``, ``"letters"``, ``"ci_width_by_runs"``.
    rankings
        The ordered ranking across all datasets and metrics (seed 000 §7: aggregate,
        order, pairwise tests or harmonic-mean p across lists, graph, cliques, letters,
        sign tests and Friedman/Nemenyi across lists), TOPSIS cross-checks, rank
        distributions and simultaneous rank intervals per dataset × metric, and
        leaderboards (seed 002: win rates, Bradley-Terry ratings on the Elo scale with
        bootstrap CIs) per dataset × metric of proportions on paired items.
    items
        Item analysis (seed 002) per dataset × metric of proportions on paired items:
        items solved by no system or by one, suspect items (negative Kendall τ between
        item correctness and Bradley-Terry rating), difficulty, weakest solver.
    power
        Per dataset × metric: the minimum detectable effect at ``options.power`` and the
        items needed for ``options.detect_delta``, from the observed nuisance parameters
        (:func:`reportgen.stats.power.mde_for_sample`).
    """

    table: ScoreTable
    options: AnalysisOptions
    seed: int
    created: str
    sample_lists: tuple[SampleListResult, ...]
    systems: tuple[dict[str, Any], ...]
    noise: tuple[dict[str, Any], ...] = field(default=())
    power: tuple[dict[str, Any], ...] = field(default=())
    runs: tuple[dict[str, Any], ...] = field(default=())
    clusters: tuple[dict[str, Any], ...] = field(default=())
    groups: tuple[dict[str, Any], ...] = field(default=())
    hyperparameters: tuple[dict[str, Any], ...] = field(default=())
    rankings: tuple[dict[str, Any], ...] = field(default=())
    items: tuple[dict[str, Any], ...] = field(default=())
    aggregates: tuple[dict[str, Any], ...] = field(default=())
    notes: tuple[str, ...] = field(default=())
    objects: dict[tuple[str, str, str], Any] = field(default_factory=dict, compare=False,
                                                     repr=False)

    def comparisons(self) -> list[dict[str, Any]]:
        """Every comparison row (the ``comparisons`` section of results.json)."""
        return [row for sl in self.sample_lists for row in sl.records()]

    def comparisons_frame(self):
        import pandas as pd
        return pd.DataFrame.from_records(self.comparisons())

    def sample_list(self, dataset: str, metric: str) -> SampleListResult:
        for sl in self.sample_lists:
            if (sl.dataset, sl.metric) == (dataset, metric):
                return sl
        raise InputError(f"no comparison for dataset {dataset!r}, metric {metric!r}")

    def to_results(self) -> dict[str, Any]:
        """The ``results.json`` document (DESIGN.md); NaN values are None."""
        from reportgen import __version__
        summary = self.table.summary()
        config = asdict(self.options)
        config["seed"] = self.seed
        config["metrics"] = {m["name"]: {"direction": m["direction"],
                                         "modality": m["modality"], "weight": m["weight"]}
                             for m in summary["metrics"]}
        config["datasets"] = {d["name"]: {"weight": d["weight"]}
                              for d in summary["datasets"]}
        data = {
            "inputs": summary["inputs"],
            "systems": list(self.table.systems),
            "datasets": [d["name"] for d in summary["datasets"]],
            "metrics": [m["name"] for m in summary["metrics"]],
            "items": {d["name"]: d["n_items"] for d in summary["datasets"]},
            "pairing": [m["pairing"] for d in summary["datasets"] for m in d["metrics"]],
            "exclusions": summary["exclusions"],
            "problems": summary["problems"],
            "skipped_inputs": summary["skipped_inputs"],
            "descriptive": summary["descriptive"],
            "system_attributes": _records(self.table.system_attributes.reset_index()),
        }
        return json_safe({"reportgen_version": __version__, "created": self.created,
                "seed": self.seed, "config": config, "data": data,
                "systems": list(self.systems), "comparisons": self.comparisons(),
                "noise": list(self.noise), "power": list(self.power),
                "runs": list(self.runs), "clusters": list(self.clusters),
                "groups": list(self.groups), "hyperparameters": list(self.hyperparameters),
                "aggregates": list(self.aggregates), "rankings": list(self.rankings),
                "items": list(self.items),
                "notes": list(self.notes)})


def _records(frame: Any) -> list[dict[str, Any]]:
    return [json_safe({str(k): v for k, v in row.items()})
            for row in frame.to_dict("records")]


def unit_rng(seed: int, dataset: str, metric: str, stream: int = 0) -> np.random.Generator:
    """The generator of one (dataset, metric): a function of the master seed, the names
    and the stream (0: comparisons, 1: per-system intervals) only, so it is stable across
    runs, processes and the set of units analysed."""
    key = [seed, zlib.crc32(dataset.encode()), zlib.crc32(metric.encode()), stream]
    return np.random.default_rng(np.random.SeedSequence(key))


def check_options(table: ScoreTable, options: AnalysisOptions) -> None:
    """The checks of ``options`` against ``table`` that :func:`analyze` makes before any
    work (``reportgen run`` makes them before the notebook starts).

    Raises
    ------
    InputError
        An unknown baseline or system, an unknown attribute column, or ``pairing=
        "paired"`` on a dataset × metric whose systems share no item.
    """
    for name in (options.baseline, *(options.systems or ())):
        if name is not None and name not in table.systems:
            raise InputError(f"unknown system {name!r}",
                             hint=f"systems: {', '.join(table.systems)}")
    validate_columns(table, group_by=options.group_by, compare_by=options.compare_by,
                     condition_on=options.condition_on)
    if options.pairing == "paired":
        for dataset, metric in table.pairs():
            systems = _ordered_systems(table.systems_of(dataset, metric), options)
            if len(systems) >= 2 and table.pairing(dataset, metric, systems).n_common < 1:
                raise InputError(
                    f"pairing='paired' but no item of dataset {dataset!r}, metric "
                    f"{metric!r} was scored for all of {', '.join(systems[:5])}"
                    + (" …" if len(systems) > 5 else ""),
                    hint="use --pairing auto (or unpaired), or select systems scored on "
                         "the same items")


def analyze(table: ScoreTable, options: AnalysisOptions | None = None, *,
            execution: Execution | None = None,
            progress: Callable[[int, int], None] | None = None) -> Analysis:
    """Compare the systems of every (dataset, metric) of ``table``.

    Parameters
    ----------
    table
        The validated scores (:func:`reportgen.data.load`).
    options
        See :class:`AnalysisOptions`; defaults follow seed 000 (automatic test choice,
        all pairs, two-sided, Holm-Šidák within each sample list, α = 0.05).
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
    The units are independent: each draws from its own generator (:func:`unit_rng`) and
    their outputs are merged in the order of ``table.pairs()``, so a parallel run gives
    the same numbers as a serial one. Warnings raised in worker processes are raised
    again here, in unit order. The steps across units (``correct_across="all"``, the
    aggregates and rankings) run in this process after the units. Everything runs with
    one BLAS thread (:func:`reportgen.execution.blas_threads`): a BLAS's last bits
    depend on its thread count, so this keeps the numbers the same on machines with
    different numbers of cores.
    """
    options = options or AnalysisOptions()
    seed = options.seed if options.seed is not None else \
        int(np.random.SeedSequence().entropy) % (2**63)
    check_options(table, options)
    if options.alternative != "two-sided":
        warnings.warn(f"alternative={options.alternative!r} (system A "
                      f"{'better' if options.alternative == 'greater' else 'worse'} than B): "
                      "a one-sided test is valid only if its direction was fixed before "
                      "looking at the data (seed 000 §4.2)", OneSidedWarning, stacklevel=2)
    with blas_threads(1):  # the same bits whatever the executor (execution.blas_threads)
        return _analyze(table, options, seed, execution, progress)


def _analyze(table: ScoreTable, options: AnalysisOptions, seed: int,
             execution: Execution | None,
             progress: Callable[[int, int], None] | None) -> Analysis:
    """:func:`analyze` after its checks: the units, then the steps across units."""
    tasks = [(dataset, metric, options, seed) for dataset, metric in table.pairs()]
    outputs = map_units(_analyze_unit, table, tasks, execution=execution,
                        progress=progress)
    merged = _UnitOutput.merge(outputs)
    lists, notes, objects = merged.lists, merged.notes, merged.objects
    ranking_entries = merged.leaderboards
    if options.correct_across == "all" and lists:
        raw = np.concatenate([sl.result.p_value for sl in lists])
        adjusted = adjust_pvalues(raw, method=options.correction)
        start, updated = 0, []
        for sl in lists:
            k = sl.result.n_pairs
            updated.append(SampleListResult(
                sl.dataset, sl.metric, sl.direction, sl.pairing, sl.runs,
                sl.n_excluded_items,
                sl.result.with_adjusted(adjusted[start:start + k], options.correction),
                sl.derived_from))
            start += k
        lists = updated
        notes.append(f"p-values adjusted with {options.correction} across all "
                     f"{len(raw)} comparisons of the analysis")
    aggregates, ordered, ranking_notes = ranking_sections(table, options, seed, unit_rng,
                                                          lists, objects)
    ranking_entries = ordered + ranking_entries
    notes.extend(ranking_notes)
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return Analysis(table, options, seed, created, tuple(lists), tuple(merged.systems),
                    tuple(merged.noise), tuple(merged.power), tuple(merged.runs),
                    tuple(merged.clusters), tuple(merged.groups),
                    tuple(merged.hyperparameters), tuple(ranking_entries),
                    tuple(merged.items), tuple(aggregates), tuple(notes), objects)


@dataclass
class _UnitOutput:
    """Everything one (dataset, metric) unit contributes to an :class:`Analysis`; the
    units' outputs are merged in the order of :meth:`ScoreTable.pairs`, so the merged
    analysis does not depend on where or in what order the units ran."""

    lists: list[SampleListResult] = field(default_factory=list)
    systems: list[dict[str, Any]] = field(default_factory=list)
    noise: list[dict[str, Any]] = field(default_factory=list)
    power: list[dict[str, Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    clusters: list[dict[str, Any]] = field(default_factory=list)
    groups: list[dict[str, Any]] = field(default_factory=list)
    hyperparameters: list[dict[str, Any]] = field(default_factory=list)
    leaderboards: list[dict[str, Any]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    objects: dict[tuple[str, str, str], Any] = field(default_factory=dict)

    @classmethod
    def merge(cls, outputs: list[_UnitOutput]) -> _UnitOutput:
        """The outputs concatenated in the given order. A note already given by an
        earlier unit (e.g. that ``cluster_by`` names no metadata column) is kept once."""
        merged = cls()
        for out in outputs:
            for name in ("lists", "systems", "noise", "power", "runs", "clusters",
                         "groups", "hyperparameters", "leaderboards", "items"):
                getattr(merged, name).extend(getattr(out, name))
            for note in out.notes:
                if note not in merged.notes:
                    merged.notes.append(note)
            merged.objects.update(out.objects)
        return merged


def _analyze_unit(table: ScoreTable, dataset: str, metric: str, options: AnalysisOptions,
                  seed: int) -> _UnitOutput:
    """The analysis of one (dataset, metric): a module-level function of picklable
    arguments, so it can run in a worker process (:func:`reportgen.execution.map_units`).
    Its randomness comes from :func:`unit_rng` of the unit's names only."""
    out = _UnitOutput()
    systems = _ordered_systems(table.systems_of(dataset, metric), options)
    out.systems.extend(_system_rows(table, dataset, metric, systems, options, seed,
                                    out.notes))
    if len(systems) < 2:
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneSidedWarning)  # analyze warns once
        unit = _compare_unit(table, dataset, metric, systems, options, seed)
        out.lists.append(unit)
        if table.has_predictions(dataset, metric) and options.corpus_metrics:
            corpus_lists, corpus_rows = _corpus_units(table, dataset, metric, systems,
                                                      options, seed)
            out.lists.extend(corpus_lists)
            out.systems.extend(corpus_rows)
    if unit.pairing == "paired":
        profile = _noise_entry(table, dataset, metric, systems, out.objects)
        if profile is not None:
            out.noise.append(profile)
            board, items = _leaderboard_entries(table, dataset, metric, systems, options,
                                                seed, out.objects)
            out.leaderboards.append(board)
            out.items.append(items)
    out.power.append(_power_entry(table, unit, systems, options))
    if table.runs_of(dataset) is not None and unit.pairing == "paired":
        repeated = _systems_with_runs(table, dataset, metric, systems, out.notes)
        if repeated:
            out.runs.append(_runs_entry(table, unit, repeated, options, seed, out.objects))
    if options.cluster_by is not None:
        entry = _cluster_entry(table, dataset, metric, systems, options, out.notes)
        if entry is not None:
            out.clusters.append(entry)
    if options.group_by or options.compare_by:
        common = _test_options(options, unit.direction,
                               unit_rng(seed, dataset, metric, stream=3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OneSidedWarning)
            if options.group_by:
                out.groups.extend(group_comparisons(
                    table, dataset, metric, systems, options.group_by, unit.pairing,
                    common))
            if options.compare_by:
                out.hyperparameters.extend(condition_and_compare(
                    table, dataset, metric, systems, options.compare_by,
                    options.condition_on, unit.pairing, unit.direction, common))
    return out


def _ordered_systems(present: tuple[str, ...], options: AnalysisOptions) -> list[str]:
    systems = list(present) if options.systems is None else \
        [s for s in options.systems if s in present]
    if options.baseline is not None and options.baseline in systems:
        systems.remove(options.baseline)
        systems.insert(0, options.baseline)
    return systems


def _test_options(options: AnalysisOptions, direction: str,
                  rng: np.random.Generator) -> dict[str, Any]:
    """The keyword options of compare_paired/compare_unpaired for one unit; the
    alternative is turned from quality terms into raw-scale terms."""
    alternative = options.alternative if direction == "higher" else \
        _FLIP[options.alternative]
    return dict(method=options.method, order=options.order, baseline=0,
                alternative=alternative, correction=options.correction, alpha=options.alpha,
                confidence=options.confidence, n_resamples=options.n_resamples,
                effect_threshold=options.effect_threshold, rng=rng,
                max_memory=options.max_memory)


def _compare_unit(table: ScoreTable, dataset: str, metric: str, systems: list[str],
                  options: AnalysisOptions, seed: int) -> SampleListResult:
    info = table.pairing(dataset, metric, systems)
    pairing = info.recommended if options.pairing == "auto" else options.pairing
    direction = table.metrics[metric].direction
    runs = table.runs_of(dataset)
    common = _test_options(options, direction, unit_rng(seed, dataset, metric))
    if pairing == "paired":
        view = table.paired(dataset, metric, systems)
        scores = view.item_means()
        modality = table.modality(dataset, metric) if runs is None else None
        if modality == "binary" and not np.all((scores == 0) | (scores == 1)):
            modality = None
        result = compare_paired(scores, systems=view.systems, modality=modality, **common)
        excluded = view.n_excluded
    else:
        uview = table.unpaired(dataset, metric, systems)
        samples = uview.item_means()
        result = compare_unpaired(samples, systems=uview.systems, **common)
        excluded = 0
    return SampleListResult(dataset, metric, direction, pairing,
                            1 if runs is None else len(runs), excluded, result)


def _system_rows(table: ScoreTable, dataset: str, metric: str, systems: list[str],
                 options: AnalysisOptions, seed: int,
                 notes: list[str]) -> list[dict[str, Any]]:
    """Mean and CI of each system on all its items (:func:`reportgen.stats.means.
    mean_intervals`). With repeated runs the item means over runs are the units, so the
    interval is clustered by item."""
    if not systems:
        return []
    view = table.unpaired(dataset, metric, systems)
    runs = table.runs_of(dataset)
    method = options.ci_method
    samples = view.item_means()
    binary = all(bool(np.all((s == 0) | (s == 1))) for s in samples)
    if method in ("wilson", "clopper-pearson") and not binary:
        notes.append(f"{dataset} / {metric}: scores are not 0/1 (per item), so the "
                     f"{method} interval was replaced by the bootstrap BCa interval")
        method = "bca"
    result = mean_intervals(samples, systems=view.systems, method=method,
                            confidence=options.confidence, n_resamples=options.n_resamples,
                            rng=unit_rng(seed, dataset, metric, stream=1),
                            max_memory=options.max_memory)
    rows = []
    for record in result.to_records():
        rows.append({"dataset": dataset, "metric": metric, **record,
                     "ci_method": record["ci_method"] + ("" if runs is None else
                                                         " (item means over runs)"),
                     "runs": 1 if runs is None else len(runs)})
    return rows


def _corpus_units(table: ScoreTable, dataset: str, metric: str, systems: list[str],
                  options: AnalysisOptions, seed: int
                  ) -> tuple[list[SampleListResult], list[dict[str, Any]]]:
    """Corpus-level metrics from the predictions of (dataset, metric): intervals for each
    system and approximate-randomization comparisons, one sample list per metric."""
    view = table.predictions(dataset, metric, systems)
    stats = classification_statistics(view.predictions, view.references)
    runs_axis = None if view.runs is None else 2
    runs = 1 if view.runs is None else len(view.runs)
    interval = "percentile" if options.ci_method == "percentile" else "bca"
    lists, rows = [], []
    for name in options.corpus_metrics:
        cm = corpus_metric(name)
        key = f"{metric}:{name}"
        intervals = corpus_bootstrap_interval(
            stats.counts, cm, systems=view.systems, method=interval,
            confidence=options.confidence, n_resamples=options.n_resamples,
            runs_axis=runs_axis, rng=unit_rng(seed, dataset, key, stream=1),
            max_memory=options.max_memory)
        for record in intervals.to_records():
            rows.append({"dataset": dataset, "metric": name, "system": record["system"],
                         "mean": record["value"], "ci_low": record["ci_low"],
                         "ci_high": record["ci_high"], "ci_method": record["ci_method"],
                         "confidence": record["confidence"], "n": record["n"],
                         "runs": runs, "derived_from": metric,
                         "n_resamples": record["n_resamples"]})
        if len(view.systems) < 2:
            continue
        result = corpus_compare_paired(
            stats.counts, cm, systems=view.systems, order=options.order, baseline=0,
            alternative=options.alternative, correction=options.correction,
            alpha=options.alpha, ci_method=interval, confidence=options.confidence,
            n_resamples=options.n_resamples, runs_axis=runs_axis,
            rng=unit_rng(seed, dataset, key), max_memory=options.max_memory)
        lists.append(SampleListResult(dataset, name, "higher", "paired", runs,
                                      view.n_excluded, result, derived_from=metric))
    return lists, rows


def _noise_entry(table: ScoreTable, dataset: str, metric: str, systems: list[str],
                 objects: dict) -> dict[str, Any] | None:
    """Seed 002's noise profile where item scores are proportions (0/1, or shares of k
    samples): per-system ``count`` attributes (eval-arena) or the runs axis give the
    prediction noise; ``family`` and ``size`` attributes give the signal-to-noise."""
    view = table.paired(dataset, metric, systems)
    scores = view.scores
    if scores.ndim == 3 and scores.shape[2] == 1:
        scores = scores[:, :, 0]  # one run: no prediction noise to estimate from runs
    if np.nanmin(scores) < 0 or np.nanmax(scores) > 1:
        return None
    attrs = table.system_attributes
    counts = None
    if view.runs is None and "count" in attrs.columns:
        values = attrs["count"].reindex(list(view.systems))
        if values.notna().all():
            counts = values.to_numpy(dtype=np.float64).astype(np.int64)
    families = None
    if {"family", "size"} <= set(attrs.columns):
        fam = attrs.reindex(list(view.systems))
        families = {s: (str(f), float(z)) for s, f, z in
                    zip(view.systems, fam["family"], fam["size"])
                    if isinstance(f, str) and _notna(z)}
    try:
        profile = noise_profile(scores, systems=view.systems, counts=counts,
                                families=families or None)
    except InputError:
        return None  # e.g. counts that do not match the scores: no profile, no crash
    objects[("noise", dataset, metric)] = profile
    return {"dataset": dataset, "metric": metric, **profile.to_dict()}


def _notna(value: Any) -> bool:
    try:
        return value is not None and not np.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _power_entry(table: ScoreTable, unit: SampleListResult, systems: list[str],
                 options: AnalysisOptions) -> dict[str, Any]:
    """The minimum detectable effect of one dataset × metric in its own design."""
    dataset, metric = unit.dataset, unit.metric
    modality = unit.result.modality
    if unit.pairing == "paired":
        scores: Any = table.paired(dataset, metric, systems).item_means()
    else:
        scores = list(table.unpaired(dataset, metric, systems).item_means())
    design = f"{unit.pairing}-{modality}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)  # NaN MDE is reported
        result = mde_for_sample(scores, design=design, delta=options.detect_delta,  # type: ignore[arg-type]
                                power=options.power, alpha=options.alpha)
    return {"dataset": dataset, "metric": metric, **result.to_dict()}


_RUN_ANALYSES = ("the run analyses (data vs prediction noise, whether the runs differ, "
                 "the CI width by number of runs)")


def _systems_with_runs(table: ScoreTable, dataset: str, metric: str, systems: list[str],
                       notes: list[str]) -> list[str]:
    """The systems with at least 2 runs of some item: the run analyses apply to them only
    (a run axis with one value, e.g. Inspect's default epochs=1 or HELM's single train
    trial, has nothing to compare); a note says where they do not apply."""
    view = table.paired(dataset, metric, systems)
    counts = view.run_counts().max(axis=0)
    repeated = [name for name, k in zip(view.systems, counts, strict=True) if k >= 2]
    single = [name for name in view.systems if name not in repeated]
    if not repeated:
        notes.append(f"{dataset} / {metric}: every system has one run per item, so "
                     f"{_RUN_ANALYSES} do not apply")
    elif single:
        shown = ", ".join(single[:5]) + (f" and {len(single) - 5} more" if len(single) > 5
                                         else "")
        notes.append(f"{dataset} / {metric}: {_RUN_ANALYSES} cover the {len(repeated)} "
                     f"system(s) with at least 2 runs; not {shown} (one run per item)")
    return repeated


def _runs_entry(table: ScoreTable, unit: SampleListResult, systems: list[str],
                options: AnalysisOptions, seed: int, objects: dict) -> dict[str, Any]:
    """Everything repeated runs tell about one dataset × metric (seed 004, Miller 2024)."""
    dataset, metric = unit.dataset, unit.metric
    view = table.paired(dataset, metric, systems)
    scores = view.scores  # items × systems × runs, NaN for a missing run
    names = view.systems
    n_items, n_systems, n_runs = scores.shape
    rng = unit_rng(seed, dataset, metric, stream=2)
    common = dict(n_resamples=options.n_resamples, confidence=options.confidence,
                  rng=rng, max_memory=options.max_memory, systems=names)
    observations = scores.transpose(0, 2, 1).reshape(n_items * n_runs, n_systems)
    clusters = np.repeat(np.arange(n_items), n_runs)
    stats = np.stack([np.nan_to_num(scores), (~np.isnan(scores)).astype(np.float64)],
                     axis=-1)
    stats[np.isnan(scores)] = np.nan  # a missing run is a missing row of the pool
    ia, ib = comparison_pairs(n_systems, options.order, 0)
    pair_names = [f"{names[i]} vs {names[j]}" for i, j in zip(ia, ib)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)  # NaN entries say it
        pooled = pooled_runs_bootstrap(stats, **common)
        widths = ci_width_by_runs(scores, **common)
        objects[("ci_width_by_runs", dataset, metric)] = widths
        entry = {
            "dataset": dataset, "metric": metric, "n_runs": n_runs, "n_items": n_items,
            "cluster_bootstrap": cluster_bootstrap_interval(
                scores, method="bca", **common).to_records(),
            "clustered_se": clustered_mean_interval(
                observations, clusters, confidence=options.confidence,
                systems=names).to_records(),
            "variance_components": variance_components(scores, systems=names).to_records(),
            "paired_variance_components": variance_components_paired(
                scores[:, ia, :], scores[:, ib, :], systems=pair_names).to_records()
            if len(ia) else [],
            "runs_differ": runs_differ_test(scores, systems=names).to_records(),
            "pooled_runs": pooled.to_records(),
            "per_run": pooled.run_records(),
            "ci_width_by_runs": widths.to_records(),
        }
    return entry


def _cluster_entry(table: ScoreTable, dataset: str, metric: str, systems: list[str],
                   options: AnalysisOptions, notes: list[str]) -> dict[str, Any] | None:
    """Cluster-robust intervals of each system's mean, items grouped by a metadata
    column."""
    column = options.cluster_by
    meta = table.item_metadata
    if column not in meta.columns:
        message = (f"cluster_by={column!r} is not an item-metadata column "
                   f"(item metadata: {', '.join(meta.columns) or 'none'})")
        if message not in notes:
            notes.append(message)
        return None
    uview = table.unpaired(dataset, metric, systems)
    rows = []
    for name, items, values in zip(uview.systems, uview.items, uview.item_means()):
        labels = meta.loc[[(dataset, i) for i in items], column].to_numpy(dtype=object)
        labels = np.where(pd_isna(labels), "<missing>", labels)
        result = clustered_mean_interval(values, labels.astype(str),
                                         confidence=options.confidence, systems=[name])
        rows.extend(result.to_records())
    return {"dataset": dataset, "metric": metric, "cluster_by": column, "systems": rows}


def pd_isna(values: np.ndarray) -> np.ndarray:
    import pandas as pd
    return pd.isna(values)


#: Bootstrap resamples of the Bradley-Terry intervals (each resample is a full fit).
_BT_RESAMPLES = 2000


def _leaderboard_entries(table: ScoreTable, dataset: str, metric: str, systems: list[str],
                         options: AnalysisOptions, seed: int, objects: dict
                         ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Seed 002's leaderboard and item analysis of a paired list of proportions."""
    view = table.paired(dataset, metric, systems)
    scores = view.item_means()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)  # notes in the results
        rates = win_rates(scores, systems=view.systems)
        bt = bradley_terry(scores, systems=view.systems,
                           n_resamples=min(options.n_resamples, _BT_RESAMPLES),
                           confidence=options.confidence,
                           rng=unit_rng(seed, dataset, metric, stream=4),
                           max_memory=options.max_memory)
        items = item_analysis(scores, systems=view.systems, items=view.items,
                              quality=bt.rating)
    objects[("bradley_terry", dataset, metric)] = bt
    objects[("item_analysis", dataset, metric)] = items
    board = {"dataset": dataset, "metric": metric, "kind": "leaderboard",
             "win_rates": rates.to_dict(), "bradley_terry": bt.to_dict()}
    return board, {"dataset": dataset, "metric": metric, **items.to_dict()}

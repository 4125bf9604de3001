"""The analysis of one (dataset, metric) unit: a module-level function of picklable
arguments (:func:`analyze_unit`), so it can run in a worker process
(:func:`reportgen.execution.map_units`). Its randomness comes from :func:`unit_rng` of the
unit's names only."""

from __future__ import annotations

import warnings
import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from reportgen.analysis._caveats import list_caveats, runs_caveats
from reportgen.analysis._groups import condition_and_compare, group_comparisons
from reportgen.analysis.options import AnalysisOptions
from reportgen.analysis.results import (
    FLIPPED_ALTERNATIVE,
    ClusterIntervals,
    Leaderboard,
    RunsResult,
    UnitResult,
)
from reportgen.data import ScoreTable
from reportgen.errors import (
    DegenerateDataWarning,
    InputError,
    OneSidedWarning,
    ReportgenError,
)
from reportgen.plaintext import count
from reportgen.stats._degenerate import power_of_two_scale
from reportgen.stats.corpus import (
    classification_statistics,
    corpus_bootstrap_interval,
    corpus_compare_paired,
    corpus_metric,
)
from reportgen.stats.leaderboard import bradley_terry, item_analysis, win_rates
from reportgen.stats.means import MeanIntervals, bootstrap_means, mean_intervals
from reportgen.stats.multiplicity import single_step_level
from reportgen.stats.noise import NoiseProfile, noise_profile
from reportgen.stats.pairwise import (
    PairwiseResult,
    compare_paired,
    compare_unpaired,
    comparison_pairs,
)
from reportgen.stats.power import (
    PowerCurve,
    SamplePowerResult,
    mde_curve,
    mde_for_sample,
)
from reportgen.stats.ranking import ordered_ranking
from reportgen.stats.runs import (
    ci_width_by_runs,
    cluster_bootstrap_interval,
    clustered_mean_interval,
    pooled_runs_bootstrap,
    runs_differ_test,
    variance_components,
    variance_components_paired,
)

__all__ = ["UnitOutput", "analyze_unit", "ordered_systems", "test_options", "unit_rng"]


#: Bootstrap resamples of the Bradley-Terry intervals (each resample is a full fit).
_BT_RESAMPLES = 2000
#: Bootstrap resamples of the exploration boxplots of each system's mean.
_EXPLORATION_RESAMPLES = 2000
#: Points of the MDE curve (items from an eighth to four times the observed number).
_CURVE_POINTS = 12


def unit_rng(seed: int, dataset: str, metric: str, stream: int = 0) -> np.random.Generator:
    """The generator of one (dataset, metric): a function of the master seed, the names
    and the stream only (0: comparisons, 1: per-system intervals, 2: runs, 3: groups,
    4: Bradley-Terry, 5: ordered ranking, 6: rank uncertainty, 7: exploration, 8: the
    release's margin tests), so it is
    stable across runs, processes and the set of units analysed."""
    key = [seed, zlib.crc32(dataset.encode()), zlib.crc32(metric.encode()), stream]
    return np.random.default_rng(np.random.SeedSequence(key))


@dataclass
class UnitOutput:
    """What one (dataset, metric) contributes: its unit and those of the corpus metrics
    computed from its predictions, and notes."""

    units: list[UnitResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def ordered_systems(present: tuple[str, ...], options: AnalysisOptions) -> list[str]:
    """The systems of a unit in analysis order: ``options.systems`` (if given) in its
    order, the ``baseline`` first."""
    systems = (
        list(present) if options.systems is None else [s for s in options.systems if s in present]
    )
    if options.baseline is not None and options.baseline in systems:
        systems.remove(options.baseline)
        systems.insert(0, options.baseline)
    return systems


def _in_rank_order(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    direction: str,
    options: AnalysisOptions,
) -> list[str]:
    """The systems best mean first, so that every pairwise row has the higher-ranked
    system as A and the rows come in rank order: ``A − B`` then has one sign
    convention in every table. The order is kept where it carries meaning: systems the
    caller listed (``options.systems``, e.g. a release's candidate and baseline), a
    one-sided alternative (its direction is A against B), and ``first-vs-rest``'s
    baseline (first; the others follow in rank order)."""
    if options.systems is not None or options.alternative != "two-sided" or len(systems) < 2:
        return systems
    samples = table.unpaired(dataset, metric, systems).item_means()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN: ranked last
        means = np.array([np.nanmean(s) if s.size else np.nan for s in samples])
    sign = -1.0 if direction == "higher" else 1.0
    # means equal up to rounding (the same scores times 1e160) are ties: kept in order
    top = float(np.nanmax(np.abs(means), initial=0.0))
    key = np.round(sign * means / top, 12) if top > 0 else sign * means
    key = np.where(np.isnan(means), np.inf, key)
    ranked = [systems[int(k)] for k in np.argsort(key, kind="stable")]
    if options.order == "first-vs-rest":  # the baseline (default: the first) stays first
        ranked.remove(systems[0])
        ranked.insert(0, systems[0])
    return ranked


def test_options(
    options: AnalysisOptions, direction: str, rng: np.random.Generator, estimand: str = "mean"
) -> dict[str, Any]:
    """The keyword options of compare_paired/compare_unpaired for one unit; the
    alternative is turned from quality terms into raw-scale terms; ``estimand`` is the
    metric's (``[metrics.NAME] estimand``)."""
    alternative = (
        options.alternative if direction == "higher" else FLIPPED_ALTERNATIVE[options.alternative]
    )
    return dict(
        estimand=estimand,
        method=options.method,
        order=options.order,
        baseline=0,
        alternative=alternative,
        correction=options.correction,
        alpha=options.alpha,
        confidence=options.confidence,
        n_resamples=options.n_resamples,
        effect_threshold=options.effect_threshold,
        rng=rng,
        max_memory=options.max_memory,
    )


# Over 100 lines of code: the sequence of one unit's analysis (degenerate checks,
# intervals, pairwise tests, ranks, power, runs, items), each step one call.
def analyze_unit(
    table: ScoreTable,
    dataset: str,
    metric: str,
    options: AnalysisOptions,
    seed: int,
    family_size: int | None = None,
) -> UnitOutput:
    """Everything computed for one (dataset, metric).

    ``family_size`` is the number of comparisons of the whole analysis when they are
    corrected together (``correct_across="all"``): the minimum detectable effect is
    computed at the per-comparison level of that family
    (:func:`reportgen.stats.multiplicity.single_step_level`), the level at which the
    decisions are made; else the family is the unit's own pairs."""
    out = UnitOutput()
    systems = ordered_systems(table.systems_of(dataset, metric), options)
    if not systems:
        return out
    direction = table.metrics[metric].direction
    systems = _in_rank_order(table, dataset, metric, systems, direction, options)
    runs = table.runs_of(dataset)
    n_runs = None if runs is None else len(runs)
    intervals, binary, proportion = _intervals(
        table, dataset, metric, systems, options, seed, out.notes
    )
    base: dict[str, Any] = dict(
        dataset=dataset,
        metric=metric,
        direction=direction,
        n_runs=n_runs,
        intervals=intervals,
        proportion=proportion,
    )
    if len(systems) < 2:
        info = table.pairing(dataset, metric, systems)
        out.units.append(
            UnitResult(
                pairing=info.recommended, modality="binary" if binary else "continuous", **base
            )
        )
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneSidedWarning)  # analyze warns once
        # the unit's degenerate_reason says it, with the unit's name
        warnings.simplefilter("ignore", DegenerateDataWarning)
        pairing, comparisons, excluded = _compare(table, dataset, metric, systems, options, seed)
        corpus = []
        if table.has_predictions(dataset, metric) and options.corpus_metrics:
            corpus = _corpus_units(table, dataset, metric, systems, options, seed)
    fields: dict[str, Any] = dict(
        pairing=pairing,
        modality=comparisons.modality,
        comparisons=comparisons,
        n_excluded_items=excluded,
        degenerate_reason=degenerate_reason(table, dataset, metric, systems, comparisons),
        **base,
    )
    fields["exploration"] = _exploration(table, dataset, metric, systems, pairing, options, seed)
    if pairing == "paired":
        noise = _noise(table, dataset, metric, systems)
        if noise is not None:
            fields["noise"] = noise
            fields["leaderboard"], fields["items"] = _leaderboard(
                table, dataset, metric, systems, options, seed
            )
    m = family_size if options.correct_across == "all" and family_size else comparisons.n_pairs
    level = single_step_level(options.alpha, method=options.correction, m=max(int(m), 1))
    fields["power"] = _power(
        table, dataset, metric, systems, pairing, comparisons.modality, options, level
    )
    fields["mde_curve"] = _mde_curve(fields["power"], options, level)
    if runs is not None and pairing == "paired":
        repeated = _systems_with_runs(table, dataset, metric, systems, out.notes)
        if repeated:
            fields["runs"] = _runs(table, dataset, metric, repeated, options, seed)
    if options.cluster_by is not None:
        fields["clusters"] = _clusters(table, dataset, metric, systems, options, out.notes)
    if options.group_by or options.compare_by:
        common = test_options(
            options,
            direction,
            unit_rng(seed, dataset, metric, stream=3),
            table.metrics[metric].estimand,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OneSidedWarning)
            if options.group_by:
                fields["groups"] = tuple(
                    group_comparisons(
                        table, dataset, metric, systems, options.group_by, pairing, common
                    )
                )
            if options.compare_by:
                fields["hyperparameters"] = tuple(
                    condition_and_compare(
                        table,
                        dataset,
                        metric,
                        systems,
                        options.compare_by,
                        options.condition_on,
                        pairing,
                        direction,
                        common,
                    )
                )
    unit = UnitResult(**fields)
    caveats = list_caveats(table, unit)
    if unit.runs is not None:
        caveats += runs_caveats(unit.runs.n_items)
    out.units.append(replace(unit, caveats=tuple(caveats)))
    out.units.extend(replace(c, caveats=tuple(list_caveats(table, c))) for c in corpus)
    return out


def degenerate_reason(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    comparisons: PairwiseResult,
) -> str | None:
    """One sentence on the degenerate or untestable comparisons of a unit (None when
    every comparison is an ordinary test): the whole unit when every system scores one
    value on every item, else the comparisons' own notes, counted."""
    samples = table.unpaired(dataset, metric, systems).item_means()
    # one value everywhere, from each system's extremes (no sort of every score)
    finite = [s[~np.isnan(s)] for s in samples]
    lows = [float(s.min()) for s in finite if s.size]
    highs = [float(s.max()) for s in finite if s.size]
    if lows and min(lows) == max(highs) and all(len(s) >= 2 for s in samples):
        return (
            f"every system scores {lows[0]:g} on every item: no differences "
            "(p = 1 for every comparison)"
        )
    skewed = comparisons.skewed
    notes = [
        note
        for k, note in enumerate(comparisons.pair_notes)
        if note and not (skewed is not None and skewed[k])  # skewed: see skewed_note
    ]
    if not notes:
        return None
    distinct = list(dict.fromkeys(notes))
    total = comparisons.n_pairs
    head = (
        f"all {total} comparisons"
        if len(notes) == total and total > 1
        else "the comparison"
        if total == 1
        else f"{len(notes)} of {total} comparisons"
    )
    if len(distinct) == 1:
        return f"{head}: {distinct[0]}"
    shown = "; ".join(distinct[:2]) + ("; ..." if len(distinct) > 2 else "")
    return f"{head} are degenerate or not testable ({shown})"


def _compare(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    options: AnalysisOptions,
    seed: int,
) -> tuple[Any, Any, int]:
    info = table.pairing(dataset, metric, systems)
    pairing = info.recommended if options.pairing == "auto" else options.pairing
    direction = table.metrics[metric].direction
    runs = table.runs_of(dataset)
    estimand = table.metrics[metric].estimand
    common = test_options(options, direction, unit_rng(seed, dataset, metric), estimand)
    if pairing == "paired":
        view = table.paired(dataset, metric, systems)
        scores = view.item_means()
        modality = table.modality(dataset, metric) if runs is None else None
        if modality == "binary" and not np.all((scores == 0) | (scores == 1)):
            modality = None
        result = compare_paired(scores, systems=view.systems, modality=modality, **common)
        return pairing, result, view.n_excluded
    uview = table.unpaired(dataset, metric, systems)
    result = compare_unpaired(uview.item_means(), systems=uview.systems, **common)
    return pairing, result, 0


def _intervals(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    options: AnalysisOptions,
    seed: int,
    notes: list[str],
) -> tuple[MeanIntervals, bool, bool]:
    """Mean and CI of each system on all its items (:func:`reportgen.stats.means.
    mean_intervals`). With repeated runs the item means over runs are the units, so the
    interval is clustered by item. Also whether every item score is 0 or 1, and whether
    every one lies in [0, 1] (a proportion)."""
    view = table.unpaired(dataset, metric, systems)
    method = options.ci_method
    samples = view.item_means()
    binary = all(bool(np.all((s == 0) | (s == 1))) for s in samples)
    if method in ("wilson", "clopper-pearson") and not binary:
        notes.append(
            f"{dataset} / {metric}: scores are not 0/1 (per item), so the "
            f"{method} interval was replaced by the bootstrap BCa interval"
        )
        method = "bca"
    if method == "auto" and not binary:
        why = _bca_miscalibrated(samples)
        if why:
            # the calibration suite's diagnostic (analysis/_caveats.py) says BCa
            # under-covers here: the default uses the interval that covers, and says so
            notes.append(
                f"{dataset} / {metric}: the systems' means have t intervals, not BCa "
                f"intervals, which cover less than their level there ({why})"
            )
            method = "t"
    result = mean_intervals(
        samples,
        systems=view.systems,
        method=method,
        confidence=options.confidence,
        n_resamples=options.n_resamples,
        rng=unit_rng(seed, dataset, metric, stream=1),
        max_memory=options.max_memory,
    )
    return result, binary, _shown_as_percent(samples)


#: The largest score below which scores in [0, 1] are not shown in percent: every one
#: would read "0.0%" (scores of 1e-300, a rate of rare events).
PERCENT_FLOOR = 0.01


def _shown_as_percent(samples: Any) -> bool:
    """Whether a unit's scores are proportions, shown in percent and their differences
    in points: every score in [0, 1] and the largest at least :data:`PERCENT_FLOOR`
    (or all 0: everyone failed). Tiny scores keep their own digits (scale invariance
    through the outputs: 1e-300 times the scores reads as 1e-300 times the numbers).

    >>> _shown_as_percent([np.array([0.0, 1.0, 1.0])]), _shown_as_percent([np.array([0.2, 0.7])])
    (True, True)
    >>> _shown_as_percent([np.array([1e-300, 3e-300])]), _shown_as_percent([np.array([1.2, 0.5])])
    (False, False)
    """
    finite = [s[~np.isnan(s)] for s in samples]
    if not all(bool(np.all((x >= 0) & (x <= 1))) for x in finite):
        return False
    largest = max((float(x.max()) for x in finite if x.size), default=0.0)
    return largest >= PERCENT_FLOOR or largest == 0.0


def _bca_miscalibrated(samples: Any) -> str:
    """Why BCa intervals of these per-system samples would under-cover (the thresholds
    of :mod:`reportgen.analysis._caveats`), or "" when they do not."""
    from reportgen.analysis._caveats import BOOTSTRAP_ITEMS, KURTOSIS_LIMIT, moments

    sizes = [int(np.sum(~np.isnan(x))) for x in samples]
    if sizes and 2 <= min(sizes) < BOOTSTRAP_ITEMS:
        return f"only {min(sizes)} items"
    kurtosis = [float(moments(np.asarray(x, dtype=float))[1][0]) for x in samples if len(x) > 3]
    worst = max((k for k in kurtosis if np.isfinite(k)), default=float("nan"))
    if np.isfinite(worst) and worst > KURTOSIS_LIMIT:
        return f"heavy-tailed scores, kurtosis up to {worst:.0f} (normal: 3)"
    return ""


def _exploration(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    pairing: str,
    options: AnalysisOptions,
    seed: int,
) -> Any:
    """The bootstrap distribution of each system's mean (items resampled together when
    paired), for the exploration charts."""
    if pairing == "paired":
        samples: Any = table.paired(dataset, metric, systems).item_means()
        names = systems
    else:
        view = table.unpaired(dataset, metric, systems)
        samples, names = view.item_means(), list(view.systems)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return bootstrap_means(
            samples,
            systems=names,
            confidence=options.confidence,
            n_resamples=min(options.n_resamples, _EXPLORATION_RESAMPLES),
            rng=unit_rng(seed, dataset, metric, stream=7),
            max_memory=options.max_memory,
        )


def _corpus_units(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    options: AnalysisOptions,
    seed: int,
) -> list[UnitResult]:
    """Corpus-level metrics from the predictions of (dataset, metric): intervals for each
    system and approximate-randomization comparisons, one unit per metric."""
    view = table.predictions(dataset, metric, systems)
    stats = classification_statistics(view.predictions, view.references)
    runs_axis = None if view.runs is None else 2
    n_runs = None if view.runs is None else len(view.runs)
    interval: Literal["percentile", "bca"] = (
        "percentile" if options.ci_method == "percentile" else "bca"
    )
    units = []
    for name in options.corpus_metrics:
        cm = corpus_metric(name)
        key = f"{metric}:{name}"
        intervals = corpus_bootstrap_interval(
            stats.counts,
            cm,
            systems=view.systems,
            method=interval,
            confidence=options.confidence,
            n_resamples=options.n_resamples,
            runs_axis=runs_axis,
            rng=unit_rng(seed, dataset, key, stream=1),
            max_memory=options.max_memory,
        )
        comparisons = None
        if len(view.systems) >= 2:
            comparisons = corpus_compare_paired(
                stats.counts,
                cm,
                systems=view.systems,
                order=options.order,
                baseline=0,
                alternative=options.alternative,
                correction=options.correction,
                alpha=options.alpha,
                ci_method=interval,
                confidence=options.confidence,
                n_resamples=options.n_resamples,
                runs_axis=runs_axis,
                rng=unit_rng(seed, dataset, key),
                max_memory=options.max_memory,
            )
        units.append(
            UnitResult(
                dataset=dataset,
                metric=name,
                direction="higher",
                pairing="paired",
                modality="corpus",
                intervals=intervals,
                proportion=cm.proportion,
                n_runs=n_runs,
                n_excluded_items=view.n_excluded,
                comparisons=comparisons,
                derived_from=metric,
            )
        )
    return units


def with_graph(unit: UnitResult) -> UnitResult:
    """``unit`` with its ordered ranking (graph of non-significant pairs, cliques) when
    every pair was compared; run after the final p-value adjustment."""
    result = unit.comparisons
    if (
        not isinstance(result, PairwiseResult)
        or result.order != "all-pairs"
        or len(result.systems) < 2
    ):
        return unit
    by_name = dict(zip(unit.systems, unit.means))
    means = np.array([by_name.get(name, np.nan) for name in result.systems])
    if not np.isfinite(means).all():
        return unit  # a system without a mean: no order to draw
    try:
        graph = ordered_ranking(means, result, direction=unit.direction)
    except ReportgenError:
        return unit  # e.g. NaN means of degenerate systems: no graph
    return replace(unit, graph=graph)


def _noise(table: ScoreTable, dataset: str, metric: str, systems: list[str]) -> NoiseProfile | None:
    """The noise profile where item scores are proportions (0/1, or shares of k
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
        families = {
            s: (str(f), float(z))
            for s, f, z in zip(view.systems, fam["family"], fam["size"])
            if isinstance(f, str) and _notna(z)
        }
    try:
        return noise_profile(scores, systems=view.systems, counts=counts, families=families or None)
    except InputError:
        return None  # e.g. counts that do not match the scores: no profile, no crash


def _notna(value: Any) -> bool:
    try:
        return value is not None and not np.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _power(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    pairing: str,
    modality: str,
    options: AnalysisOptions,
    level: float,
) -> SamplePowerResult:
    """The minimum detectable effect of one dataset × metric in its own design, at the
    per-comparison ``level`` of its family."""
    if pairing == "paired":
        scores: Any = table.paired(dataset, metric, systems).item_means()
    else:
        scores = list(table.unpaired(dataset, metric, systems).item_means())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)  # NaN MDE is reported
        return mde_for_sample(
            scores,
            design=f"{pairing}-{modality}",  # type: ignore[arg-type]
            delta=options.detect_delta,
            power=options.power,
            alpha=level,
        )


def _mde_curve(
    power: SamplePowerResult, options: AnalysisOptions, level: float
) -> PowerCurve | None:
    """The MDE from an eighth to four times the observed number of items."""
    m = power.mde
    try:
        n0 = float(m.n)
        if not np.isfinite(n0) or n0 < 2:
            return None
        grid = np.unique(np.round(np.geomspace(max(10.0, n0 / 8), n0 * 4, _CURVE_POINTS)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return mde_curve(
                grid,
                design=m.design,
                power=options.power,
                alpha=level,
                baseline=None if m.baseline is None or np.isnan(m.baseline) else m.baseline,
                discordance=None
                if m.discordance is None or np.isnan(m.discordance)
                else m.discordance,
                sd=None if m.sd is None or np.isnan(m.sd) else m.sd,
            )
    except (ReportgenError, TypeError, ValueError):
        return None


_RUN_ANALYSES = (
    "the run analyses (data vs prediction noise, whether the runs differ, "
    "the CI width by number of runs)"
)


def _systems_with_runs(
    table: ScoreTable, dataset: str, metric: str, systems: list[str], notes: list[str]
) -> list[str]:
    """The systems with at least 2 runs of some item: the run analyses apply to them only
    (a run axis with one value, e.g. Inspect's default epochs=1 or HELM's single train
    trial, has nothing to compare); a note says where they do not apply."""
    view = table.paired(dataset, metric, systems)
    counts = view.run_counts().max(axis=0)
    repeated = [name for name, k in zip(view.systems, counts, strict=True) if k >= 2]
    single = [name for name in view.systems if name not in repeated]
    if not repeated:
        notes.append(
            f"{dataset} / {metric}: every system has one run per item, so "
            f"{_RUN_ANALYSES} do not apply"
        )
    elif single:
        shown = ", ".join(single[:5]) + (f" and {len(single) - 5} more" if len(single) > 5 else "")
        notes.append(
            f"{dataset} / {metric}: {_RUN_ANALYSES} cover the "
            f"{count(len(repeated), 'system')} with at least 2 runs; not {shown} (one run "
            "per item)"
        )
    return repeated


def _runs(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    options: AnalysisOptions,
    seed: int,
) -> RunsResult:
    """Everything repeated runs tell about one dataset × metric (Miller 2024)."""
    view = table.paired(dataset, metric, systems)
    scores = view.scores  # items × systems × runs, NaN for a missing run
    # divided by a power of two (exact): no variance under- or overflows at any scale
    # (1e-300 to 1e300); the results are multiplied back (_in_units)
    unit = power_of_two_scale(scores)
    scores = scores / unit
    names = view.systems
    n_items, n_systems, n_runs = scores.shape
    rng = unit_rng(seed, dataset, metric, stream=2)
    common: dict[str, Any] = dict(
        n_resamples=options.n_resamples,
        confidence=options.confidence,
        rng=rng,
        max_memory=options.max_memory,
        systems=names,
    )
    observations = scores.transpose(0, 2, 1).reshape(n_items * n_runs, n_systems)
    clusters = np.repeat(np.arange(n_items), n_runs)
    stats = np.stack([np.nan_to_num(scores), (~np.isnan(scores)).astype(np.float64)], axis=-1)
    stats[np.isnan(scores)] = np.nan  # a missing run is a missing row of the pool
    ia, ib = comparison_pairs(n_systems, options.order, 0)
    pair_names = [f"{names[i]} vs {names[j]}" for i, j in zip(ia, ib)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)  # NaN entries say it
        pooled = pooled_runs_bootstrap(stats, **common)
        widths = ci_width_by_runs(scores, **common)
        paired_parts = (
            variance_components_paired(scores[:, ia, :], scores[:, ib, :], systems=pair_names)
            if len(ia)
            else None
        )
        return RunsResult(
            n_runs=n_runs,
            n_items=n_items,
            cluster_bootstrap=_in_units(
                cluster_bootstrap_interval(scores, method="bca", **common), unit
            ),
            clustered_se=_in_units(
                clustered_mean_interval(
                    observations, clusters, confidence=options.confidence, systems=names
                ),
                unit,
            ),
            variance_components=_in_units(variance_components(scores, systems=names), unit),
            paired_variance_components=None
            if paired_parts is None
            else _in_units(paired_parts, unit),
            runs_differ=runs_differ_test(scores, systems=names),
            pooled_runs=_in_units(pooled, unit),
            ci_width_by_runs=_in_units(widths, unit),
        )


#: Fields of the run analyses in the scores' units, and those in squared units.
_IN_UNITS = frozenset(
    {
        "mean", "se", "ci_low", "ci_high", "se_naive", "naive_low", "naive_high", "estimate",
        "bootstrap_mean", "run_estimate", "run_bootstrap_mean", "run_ci_low", "run_ci_high",
        "width", "se_total", "se_data", "se_prediction",
    }
)  # fmt: skip
_IN_SQUARED_UNITS = frozenset({"var_data", "var_prediction"})


def _in_units(result: Any, unit: float) -> Any:
    """A run analysis computed on scores divided by ``unit``, back in the scores' units
    (variances in squared units: inf where they exceed the float range, as 1e300² does)."""
    from dataclasses import fields as dataclass_fields

    if unit == 1.0:
        return result
    changes = {}
    for f in dataclass_fields(result):
        if f.name in _IN_UNITS or f.name in _IN_SQUARED_UNITS:
            value = np.asarray(getattr(result, f.name), dtype=np.float64)
            with np.errstate(over="ignore"):
                changes[f.name] = value * (unit * unit if f.name in _IN_SQUARED_UNITS else unit)
    return replace(result, **changes)


def _clusters(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    options: AnalysisOptions,
    notes: list[str],
) -> ClusterIntervals | None:
    """Cluster-robust intervals of each system's mean, items grouped by a metadata
    column."""
    import pandas as pd

    column = options.cluster_by or ""
    meta = table.item_metadata
    if column not in meta.columns:
        message = (
            f"cluster_by={column!r} is not an item-metadata column "
            f"(item metadata: {', '.join(meta.columns) or 'none'})"
        )
        if message not in notes:
            notes.append(message)
        return None
    uview = table.unpaired(dataset, metric, systems)
    results = []
    for name, items, values in zip(uview.systems, uview.items, uview.item_means()):
        labels = meta.loc[[(dataset, i) for i in items], column].to_numpy(dtype=object)
        labels = np.where(pd.isna(labels), "<missing>", labels)
        results.append(
            clustered_mean_interval(
                values, labels.astype(str), confidence=options.confidence, systems=[name]
            )
        )
    return ClusterIntervals(column, tuple(results))


def _leaderboard(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    options: AnalysisOptions,
    seed: int,
) -> tuple[Leaderboard, Any]:
    """Win rates, Bradley-Terry ratings and the item analysis of a paired list of
    proportions."""
    view = table.paired(dataset, metric, systems)
    scores = view.item_means()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)  # notes in the results
        rates = win_rates(scores, systems=view.systems)
        bt = bradley_terry(
            scores,
            systems=view.systems,
            n_resamples=min(options.n_resamples, _BT_RESAMPLES),
            confidence=options.confidence,
            rng=unit_rng(seed, dataset, metric, stream=4),
            max_memory=options.max_memory,
        )
        items = item_analysis(scores, systems=view.systems, items=view.items, quality=bt.rating)
    return Leaderboard(rates, bt), items

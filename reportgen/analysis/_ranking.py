"""The ranking of the systems across datasets (the ordered-ranking procedure of Ackerman
et al. 2025), the metric aggregates, the TOPSIS cross-checks and the rank uncertainty of
each dataset × metric, used by :func:`reportgen.analysis.analyze`.

0. **Choose the datasets** (:func:`choose_rank_lists`): every dataset when some systems
   are scored on all of them; otherwise the datasets that maximise systems × datasets
   (or those the user names), with the systems scored on all of them.
1. **Aggregate within datasets** where the metrics are paired: pooled standardisation per
   metric, direction, metric weights, element-wise average. A dataset whose metrics are
   not paired contributes each metric as its own list.
2. **Order systems** by the aggregate mean: with one list, its mean; with several
   (unpaired) lists, the standardised aggregate from summary statistics, with the
   dataset (× metric) weights.
3. **Pairwise tests** in that order: two-sided for all pairs, right-tailed for
   first-vs-rest and successive. With several lists, each list is tested and the raw
   p-values of a pair are combined by Wilson's (2019) harmonic-mean p-value, adjusted for
   the L = pairs × lists tests; effect sizes are combined with inverse-SD weights.
4. **The graph** of non-significant pairs, its groups and a compact letter display
   (Piepho 2004); across lists the sign test of "A wins on more lists than B" and
   Friedman with the Nemenyi critical difference (Demšar 2006).

Rank uncertainty (bootstrap rank distributions and simultaneous rank intervals, Al
Mohamad et al. 2022) is given per dataset × metric, and a TOPSIS cross-check (Hwang &
Yoon 1981) per dataset with several metrics.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from reportgen.analysis._units import ordered_systems, unit_rng
from reportgen.analysis.options import AnalysisOptions
from reportgen.analysis.results import (
    ListSelection,
    MetricAggregate,
    RankingAcrossLists,
    RankUncertainty,
    TopsisCheck,
    UnitResult,
)
from reportgen.data import ScoreTable
from reportgen.errors import DegenerateDataWarning, InputError, OneSidedWarning
from reportgen.plaintext import count, verb
from reportgen.stats._degenerate import power_of_two_scale
from reportgen.stats.aggregation import (
    aggregate_effect_sizes,
    aggregate_metrics,
    aggregate_unpaired_means,
    friedman_nemenyi,
    harmonic_mean_pvalue,
    sign_test_wins,
)
from reportgen.stats.multiplicity import rejects
from reportgen.stats.pairwise import (
    PairwiseResult,
    compare_paired,
    compare_unpaired,
    comparison_pairs,
)
from reportgen.stats.ranking import (
    compact_letter_display,
    ordered_ranking,
    rank_agreement,
    rank_distributions,
    simultaneous_rank_intervals,
    topsis,
)

__all__ = ["RankingOutput", "choose_rank_lists", "rank_across"]


@dataclass
class _List:
    """One score sample list of the procedure, on the higher-is-better scale."""

    name: str
    dataset: str
    metrics: tuple[str, ...]
    weight: float
    paired: bool
    scores: Any  # items × systems matrix (paired) or one array per system


@dataclass
class RankingOutput:
    """The steps across units: aggregates, the ranking across datasets, the TOPSIS
    checks, the rank uncertainty per (dataset, metric), and notes."""

    aggregates: list[MetricAggregate] = field(default_factory=list)
    ranking: RankingAcrossLists | None = None
    topsis: list[TopsisCheck] = field(default_factory=list)
    ranks: dict[tuple[str, str], RankUncertainty] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- selection


def choose_rank_lists(
    coverage: Mapping[str, Sequence[str]],
    systems: Sequence[str],
    *,
    given: Sequence[str] | None = None,
) -> ListSelection:
    """The datasets and systems of the ranking across datasets.

    Parameters
    ----------
    coverage
        For each dataset (in order), the systems scored on all of its metrics.
    systems
        Every system, in order.
    given
        Datasets named by the user (``--rank-lists``), or None to choose.

    Returns
    -------
    ListSelection
        ``how="all"`` when every system is scored on every dataset; ``"given"``
        for the named datasets; else ``"largest"``: the datasets that maximise the
        number of systems × datasets (ties: more datasets, then the earlier ones).

    Raises
    ------
    InputError
        A named dataset that does not exist.

    Notes
    -----
    Choosing the best set exactly is the maximum edge biclique problem, which is
    NP-hard (Peeters 2003), so the search looks at polynomially many candidates: the
    sets reached by dropping, one at a time, the dataset whose removal gains most (from
    all datasets down to one), and the set of datasets of each system. The best of them
    is taken; on data where systems were added to a fixed suite over time (nested
    coverage) this is the optimum.

    Examples
    --------
    >>> cov = {"a": ["s1", "s2", "s3"], "b": ["s1", "s2", "s3"], "c": ["s1"]}
    >>> sel = choose_rank_lists(cov, ["s1", "s2", "s3"])
    >>> sel.how, sel.datasets, sel.systems
    ('largest', ('a', 'b'), ('s1', 's2', 's3'))
    """
    datasets = list(coverage)
    sets = {d: set(coverage[d]) for d in datasets}

    def members(chosen: Sequence[str]) -> list[str]:
        common = set(systems)
        for d in chosen:
            common &= sets[d]
        return [s for s in systems if s in common]

    how: Literal["all", "largest", "given"]
    if given is not None:
        unknown = [d for d in given if d not in sets]
        if unknown:
            raise InputError(
                f"--rank-lists names {', '.join(map(repr, unknown))}, which "
                f"{'is not a dataset' if len(unknown) == 1 else 'are not datasets'}",
                hint=f"datasets: {', '.join(datasets)}",
            )
        chosen = [d for d in datasets if d in set(given)]
        how = "given"
    elif len(members(datasets)) == len(systems) >= 2:
        chosen, how = datasets, "all"
    else:
        chosen, how = _largest(datasets, systems, sets, members), "largest"
    ranked = members(chosen)
    left_datasets = []
    for d in datasets:
        if d in chosen:
            continue
        if how == "given":
            reason = "not named in --rank-lists"
        else:
            missing = sum(s not in sets[d] for s in ranked)
            reason = (
                f"{missing} of the {len(ranked)} ranked systems have no score on it"
                if missing
                else "adding it leaves fewer systems × datasets"
            )
        left_datasets.append((d, reason))
    left_systems = []
    for s in systems:
        if s in ranked:
            continue
        lacking = [d for d in chosen if s not in sets[d]]
        shown = ", ".join(lacking[:3]) + (
            f" and {len(lacking) - 3} more" if len(lacking) > 3 else ""
        )
        left_systems.append((s, f"no score on {shown}"))
    return ListSelection(
        how, tuple(chosen), tuple(ranked), tuple(left_datasets), tuple(left_systems)
    )


def _largest(
    datasets: list[str], systems: Sequence[str], sets: dict[str, set[str]], members: Any
) -> list[str]:
    """The candidate set of datasets with the most systems × datasets."""
    candidates: list[list[str]] = []
    current = list(datasets)
    while current:
        candidates.append(list(current))
        if len(current) == 1:
            break
        gains = [
            (len(members([d for d in current if d != drop])) * (len(current) - 1), -k)
            for k, drop in enumerate(current)
        ]
        _, minus_k = max(gains)
        current.pop(-minus_k)
    for s in systems:
        mine = [d for d in datasets if s in sets[d]]
        if mine:
            candidates.append(mine)

    def score(chosen: list[str]) -> tuple[int, int, tuple[int, ...]]:
        n = len(members(chosen))
        size = n * len(chosen) if n >= 2 else 0
        return size, len(chosen), tuple(-datasets.index(d) for d in chosen)

    return max(candidates, key=score)


# --------------------------------------------------------------------------- lists


def _dataset_list(
    table: ScoreTable, dataset: str, systems: list[str]
) -> tuple[list[_List], MetricAggregate | None]:
    """The ranking lists of one dataset, and its metric aggregate when its metrics are
    paired."""
    metrics = list(table.metrics_of(dataset))
    paired = all(table.pairing(dataset, m, systems).recommended == "paired" for m in metrics)
    if paired:
        views = [table.paired(dataset, m, systems) for m in metrics]
        common_items = set(views[0].items)
        for v in views[1:]:
            common_items &= set(v.items)
        items = [i for i in views[0].items if i in common_items]
        if len(items) >= 2:
            matrices = []
            for v in views:
                index = {item: k for k, item in enumerate(v.items)}
                matrices.append(v.item_means()[[index[i] for i in items]])
            directions = [table.metrics[m].direction for m in metrics]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateDataWarning)
                agg = aggregate_metrics(
                    matrices,
                    directions=directions,
                    weights=[table.metrics[m].weight for m in metrics],
                    metrics=metrics,
                )
            lst = _List(
                f"{dataset} (aggregate)" if len(metrics) > 1 else f"{dataset} / {metrics[0]}",
                dataset,
                tuple(metrics),
                table.dataset_weights[dataset],
                True,
                agg.scores,
            )
            aggregate = MetricAggregate(
                dataset,
                tuple(metrics),
                tuple(directions),
                tuple(float(w) for w in agg.weights),
                len(items),
                tuple(systems),
                agg.scores.mean(axis=0),
            )
            return [lst], aggregate
    lists = []
    for metric in metrics:  # unpaired dataset: each metric is a list of its own
        view = table.unpaired(dataset, metric, systems)
        sign = 1.0 if table.metrics[metric].direction == "higher" else -1.0
        pooled = np.concatenate(view.item_means())
        sd = pooled.std(ddof=1) if len(pooled) > 1 and pooled.std() > 0 else 1.0
        samples = [sign * (x - pooled.mean()) / sd for x in view.item_means()]
        lists.append(
            _List(
                f"{dataset} / {metric}",
                dataset,
                (metric,),
                table.dataset_weights[dataset] * table.metrics[metric].weight,
                False,
                samples,
            )
        )
    return lists, None


def _means(lst: _List) -> np.ndarray:
    if lst.paired:
        return lst.scores.mean(axis=0)
    return np.array([x.mean() for x in lst.scores])


def _compare(
    lst: _List,
    order: np.ndarray,
    systems: list[str],
    options: AnalysisOptions,
    *,
    alternative: str,
    correction: str,
    rng: np.random.Generator,
) -> PairwiseResult:
    names = [systems[k] for k in order]
    common: dict[str, Any] = dict(
        method=options.method,
        order=options.order,
        baseline=0,
        alternative=alternative,
        correction=correction,
        alpha=options.alpha,
        confidence=options.confidence,
        n_resamples=options.n_resamples,
        effect_threshold=options.effect_threshold,
        rng=rng,
        max_memory=options.max_memory,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneSidedWarning)  # the order comes from the data
        warnings.simplefilter("ignore", DegenerateDataWarning)  # each unit says it
        if lst.paired:
            return compare_paired(lst.scores[:, order], systems=names, **common)
        return compare_unpaired([lst.scores[k] for k in order], systems=names, **common)


def _effect_sd(lst: _List, order: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """The denominator of each pair's Cohen's d (Turner & Bernard 2006 weights)."""
    if lst.paired:
        X = lst.scores[:, order]
        return (X[:, ia] - X[:, ib]).std(axis=0, ddof=1)
    arrays = [lst.scores[k] for k in order]
    var = np.array([a.var(ddof=1) if len(a) > 1 else np.nan for a in arrays])
    n = np.array([len(a) for a in arrays])
    return np.sqrt(((n[ia] - 1) * var[ia] + (n[ib] - 1) * var[ib]) / (n[ia] + n[ib] - 2))


# --------------------------------------------------------------------------- the steps


def rank_across(
    table: ScoreTable, options: AnalysisOptions, seed: int, units: Sequence[UnitResult]
) -> RankingOutput:
    """The steps of an analysis across its units."""
    out = RankingOutput()
    if not table.datasets:  # battles only: they rank themselves (analysis.battles)
        return out
    systems = (
        list(table.systems)
        if options.systems is None
        else [s for s in options.systems if s in table.systems]
    )
    coverage = {}
    for dataset in table.datasets:
        present = set(systems)
        for metric in table.metrics_of(dataset):
            present &= set(ordered_systems(table.systems_of(dataset, metric), options))
        coverage[dataset] = [s for s in systems if s in present]
    for dataset in table.datasets:
        if len(coverage[dataset]) >= 2:
            _, aggregate = _dataset_list(table, dataset, coverage[dataset])
            if aggregate is not None:
                out.aggregates.append(aggregate)
    out.topsis = _topsis_checks(table, out.aggregates)
    selection = choose_rank_lists(coverage, systems, given=options.rank_lists)
    if len(selection.systems) < 2:
        out.notes.append(
            "ranking across datasets skipped: fewer than 2 systems are scored on the same datasets"
        )
    else:
        if selection.how == "largest":
            out.notes.append(
                f"ranking across datasets: not every system is scored on every dataset, "
                f"so {count(len(selection.systems), 'system')} "
                f"{verb(len(selection.systems), 'are', 'is')} ranked over the "
                f"{count(len(selection.datasets), 'dataset')} they share "
                f"({', '.join(selection.datasets)}); "
                f"{count(len(selection.left_out_systems), 'system')} and "
                f"{count(len(selection.left_out_datasets), 'dataset')}"
                f" {verb(len(selection.left_out_datasets), 'are', 'is')} left out "
                "(--rank-lists chooses the datasets)"
            )
        out.ranking = _ordered(table, options, seed, selection, out.notes)
    out.ranks = _rank_uncertainty(table, options, seed, units, out.notes)
    return out


# Over 100 lines of code: the ordered ranking across lists (standardised means, their
# pooled SDs, the pair tests and the graph) built from one set of per-list arrays.
def _ordered(
    table: ScoreTable,
    options: AnalysisOptions,
    seed: int,
    selection: ListSelection,
    notes: list[str],
) -> RankingAcrossLists:
    systems = list(selection.systems)
    lists: list[_List] = []
    for dataset in selection.datasets:
        lists.extend(_dataset_list(table, dataset, systems)[0])
    alternative: Literal["two-sided", "greater"] = (
        "two-sided" if options.order == "all-pairs" else "greater"
    )
    if alternative == "greater":
        notes.append(
            "ordered ranking: the right-tailed tests follow an order taken from "
            "the observed means, so their p-values are optimistic; use --order "
            "all-pairs for two-sided tests"
        )
    weights = np.array([lst.weight for lst in lists], dtype=np.float64)
    means = np.column_stack([_means(lst) for lst in lists])  # systems × lists
    scores = (
        means[:, 0]
        if len(lists) == 1
        else _standardised_scores(lists, systems, means, weights, notes)
    )
    order = np.argsort(-scores, kind="stable")
    ordered_names = [systems[k] for k in order]
    rng = unit_rng(seed, "*", "ordered-ranking", stream=5)
    results = [
        _compare(
            lst,
            order,
            systems,
            options,
            alternative=alternative,
            correction="none" if len(lists) > 1 else options.correction,
            rng=rng,
        )
        for lst in lists
    ]
    ia, ib = results[0].index_a, results[0].index_b
    p_adjusted, effects, method = _combined_tests(lists, results, order, weights, options)
    B = len(systems)
    untested = np.isnan(p_adjusted)
    if untested.any():
        first = np.flatnonzero(untested)[0]
        notes.append(
            f"ordered ranking: {count(int(untested.sum()), 'pair')} could not be tested "
            f"(too few items, e.g. {ordered_names[ia[first]]} vs "
            f"{ordered_names[ib[first]]}); they count as not significantly "
            "different"
        )
    pmatrix = np.full((B, B), np.nan)
    for k, (i, j) in enumerate(zip(ia, ib)):
        p = 1.0 if untested[k] else p_adjusted[k]
        pmatrix[i, j] = p
        if alternative == "two-sided":
            pmatrix[j, i] = p
    graph = ordered_ranking(
        scores[order],
        pmatrix,
        systems=ordered_names,
        alpha=options.alpha,
        order=options.order,
        alternative=alternative,
    )
    decided = rejects(p_adjusted, options.alpha)
    significant = [
        (ordered_names[i], ordered_names[j]) for k, (i, j) in enumerate(zip(ia, ib)) if decided[k]
    ]
    letters = (
        compact_letter_display(ordered_names, significant) if options.order == "all-pairs" else None
    )
    sign_tests = sign_index = friedman = None
    list_means = means[order]
    if len(lists) > 1:
        a, b = comparison_pairs(len(ordered_names), "all-pairs")
        wins_a = (list_means[a] > list_means[b]).sum(axis=1)
        wins_b = (list_means[a] < list_means[b]).sum(axis=1)
        sign_tests = sign_test_wins(wins_a, wins_b, total=list_means.shape[1])
        sign_index = (a, b)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            friedman = friedman_nemenyi(list_means, alpha=options.alpha, systems=ordered_names)
    return RankingAcrossLists(
        selection=selection,
        lists=tuple(lst.name for lst in lists),
        method=method,
        order=options.order,
        alternative=alternative,
        alpha=options.alpha,
        systems=tuple(ordered_names),
        scores=np.asarray(scores[order], dtype=np.float64),
        list_means=list_means,
        index_a=np.asarray(ia),
        index_b=np.asarray(ib),
        p_adjusted=np.asarray(p_adjusted, dtype=np.float64),
        effect_size=np.asarray(effects, dtype=np.float64),
        graph=graph,
        letters=letters,
        sign_tests=sign_tests,
        sign_index=sign_index,
        friedman=friedman,
    )


def _standardised_scores(
    lists: list[_List],
    systems: list[str],
    means: np.ndarray,
    weights: np.ndarray,
    notes: list[str],
) -> np.ndarray:
    """The systems' aggregate of their standardised means over several lists (a list
    whose scores are constant within every system orders no system)."""
    sds = np.column_stack(
        [
            lst.scores.std(axis=0, ddof=1)
            if lst.paired
            else np.array([x.std(ddof=1) if len(x) > 1 else 0.0 for x in lst.scores])
            for lst in lists
        ]
    )
    ns = np.column_stack(
        [
            np.full(len(systems), lst.scores.shape[0])
            if lst.paired
            else np.array([len(x) for x in lst.scores])
            for lst in lists
        ]
    )
    # a system with one item has no SD; its weight n - 1 = 0 in the pooled SD
    sds = np.where(ns <= 1, 0.0, sds)
    # a list on which every system scores the same on every item (a benchmark all
    # fail) has pooled SD 0: nothing to standardise, so it orders no system
    flat = ~(((ns - 1) * sds**2).sum(axis=0) > 0)
    if flat.any():
        names = ", ".join(lists[j].name for j in np.flatnonzero(flat))
        notes.append(
            f"ordered ranking: {names}: every system's scores are constant "
            "(no variation within any system), so the list cannot be standardised "
            "and does not enter the aggregate order; its comparisons are reported "
            "as they are"
        )
    keep = ~flat
    if keep.any():
        scores = aggregate_unpaired_means(
            means[:, keep],
            sds[:, keep],
            ns[:, keep],
            directions=["higher"] * int(keep.sum()),
            weights=weights[keep],
            systems=systems,
            lists=[lst.name for lst, k in zip(lists, keep) if k],
        ).scores
    else:
        scores = np.zeros(len(systems))
    return np.asarray(scores, dtype=np.float64)


def _combined_tests(
    lists: list[_List],
    results: list[PairwiseResult],
    order: np.ndarray,
    weights: np.ndarray,
    options: AnalysisOptions,
) -> tuple[np.ndarray, np.ndarray, str]:
    """The adjusted p-values, effect sizes and method of the ordered pairs: one list's
    own, or the harmonic-mean p and aggregate effect sizes over several lists."""
    ia, ib = results[0].index_a, results[0].index_b
    if len(lists) == 1:
        p_adjusted = results[0].p_adjusted
        effects = results[0].effect_size
        method = f"{results[0].test}, {options.correction}"
    else:
        raw = np.column_stack([r.p_value for r in results])  # pairs × lists
        hmp = harmonic_mean_pvalue(
            raw, weights=weights / weights.sum(), L=raw.shape[0] * raw.shape[1]
        )
        p_adjusted = np.asarray(hmp.p_adjusted, dtype=np.float64)
        sds = np.column_stack([_effect_sd(lst, order, ia, ib) for lst in lists])
        # two systems with identical scores on a list: no effect size there (NaN)
        sds = np.where(sds > 0, sds, np.nan)
        effects = aggregate_effect_sizes(
            np.column_stack([r.effect_size for r in results]), sds, weights=weights
        ).effect_size
        method = "harmonic-mean p over lists (Wilson 2019), L = pairs × lists"
    return p_adjusted, effects, method


def _topsis_checks(table: ScoreTable, aggregates: Sequence[MetricAggregate]) -> list[TopsisCheck]:
    """TOPSIS on the systems × metrics means against the aggregate order."""
    checks = []
    for agg in aggregates:
        if len(agg.metrics) < 2:
            continue
        systems = list(agg.systems)
        matrix = np.column_stack(
            [
                np.array([r.mean() for r in table.unpaired(agg.dataset, m, systems).item_means()])
                for m in agg.metrics
            ]
        )
        result = topsis(
            matrix,
            directions=list(agg.directions),  # type: ignore[arg-type]
            weights=list(agg.weights),
            systems=systems,
            metrics=list(agg.metrics),
        )
        by_aggregate = [systems[k] for k in np.argsort(-agg.means, kind="stable")]
        by_topsis = [systems[k] for k in np.argsort(-np.asarray(result.score), kind="stable")]
        checks.append(
            TopsisCheck(
                agg.dataset,
                result,
                rank_agreement(by_aggregate, by_topsis),
                tuple(float(m) for m in agg.means),
            )
        )
    return checks


def _rank_uncertainty(
    table: ScoreTable,
    options: AnalysisOptions,
    seed: int,
    units: Sequence[UnitResult],
    notes: list[str],
) -> dict[tuple[str, str], RankUncertainty]:
    """Bootstrap rank distributions and simultaneous rank intervals per dataset ×
    metric, with the compact letter display of its comparisons (all pairs)."""
    out = {}
    for unit in units:
        result = unit.comparisons
        if unit.derived_from is not None or not isinstance(result, PairwiseResult):
            continue  # corpus metrics: ranks of their own are not computed
        names = list(result.systems)
        paired = unit.pairing == "paired"
        # ranks are scale-free: the scores divided by a power of two (exact) so that no
        # variance under- or overflows (1e-300 to 1e300); means and SEs multiplied back
        if paired:
            samples: Any = table.paired(unit.dataset, unit.metric, names).item_means()
            scale = power_of_two_scale(samples)
            samples = samples / scale
            means = samples.mean(axis=0)
            ses = samples.std(axis=0, ddof=1) / np.sqrt(samples.shape[0])
            # paired systems: their means are correlated through the shared items
            covariance = np.cov(samples, rowvar=False) / samples.shape[0]
        else:
            samples = list(table.unpaired(unit.dataset, unit.metric, names).item_means())
            scale = power_of_two_scale(np.concatenate(samples)) if samples else 1.0
            samples = [x / scale for x in samples]
            means = np.array([x.mean() for x in samples])
            ses = np.array(
                [x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else np.nan for x in samples]
            )
            covariance = None
        if not np.all(np.isfinite(ses)):
            short = [n for n, se in zip(names, ses) if not np.isfinite(se)]
            notes.append(
                f"{unit.dataset} / {unit.metric}: no rank distributions or rank "
                f"intervals (fewer than 2 items for {', '.join(short[:3])})"
            )
            continue
        rng = unit_rng(seed, unit.dataset, unit.metric, stream=6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            dist = rank_distributions(
                samples,
                paired=paired,
                systems=names,
                direction=unit.direction,
                n_resamples=options.n_resamples,
                confidence=options.confidence,
                rng=rng,
                max_memory=options.max_memory,
            )
            intervals = simultaneous_rank_intervals(
                means,
                None if covariance is not None else ses,
                covariance=covariance,
                systems=names,
                direction=unit.direction,
                confidence=options.confidence,
                rng=rng,
            )
        letters = None
        if result.order == "all-pairs":
            sign = 1.0 if unit.direction == "higher" else -1.0
            in_order = [names[k] for k in np.argsort(-sign * means, kind="stable")]
            significant = [
                (names[i], names[j])
                for i, j, s in zip(result.index_a, result.index_b, result.significant())
                if s
            ]
            letters = compact_letter_display(in_order, significant)
        if scale != 1.0:
            dist = replace(dist, mean=dist.mean * scale)
            intervals = replace(intervals, mean=intervals.mean * scale, se=intervals.se * scale)
        out[(unit.dataset, unit.metric)] = RankUncertainty(dist, intervals, letters)
    return out

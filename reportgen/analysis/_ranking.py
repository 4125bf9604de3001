"""The ordered-ranking procedure of seed 000 §7.1–7.2 and the rank sections of
results.json, used by :func:`reportgen.analysis.analyze`.

1. **Aggregate within datasets** where the metrics are paired (§6.1): pooled
   standardisation per metric, direction, metric weights, element-wise average. A
   dataset whose metrics are not paired contributes each metric as its own list.
2. **Order systems** by the aggregate mean: with one list, its mean; with several
   (unpaired) lists, the standardised aggregate of §6.3 from summary statistics, with
   the dataset (× metric) weights.
3. **Pairwise tests** in that order: two-sided for all pairs, right-tailed for
   first-vs-rest and successive. With several lists, each list is tested and the raw
   p-values of a pair are combined by Wilson's harmonic-mean p-value, adjusted for the
   L = |Ω| × K tests (§6.2); effect sizes are combined with inverse-SD weights.
4. **The graph** of non-significant pairs, its maximal cliques and isolated systems,
   and a compact letter display; plus across lists the sign test of "A wins on more
   lists than B" (seed 001 §6) and Friedman with the Nemenyi critical difference.

Rank uncertainty (bootstrap rank distributions and simultaneous rank intervals) is
given per dataset × metric, and a TOPSIS cross-check (§7.4) per dataset with several
metrics.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from reportgen.data import ScoreTable
from reportgen.errors import DegenerateDataWarning, OneSidedWarning
from reportgen.stats.aggregation import (
    aggregate_effect_sizes,
    aggregate_metrics,
    aggregate_unpaired_means,
    friedman_nemenyi,
    harmonic_mean_pvalue,
    sign_test_wins,
)
from reportgen.stats.pairwise import compare_paired, compare_unpaired, comparison_pairs
from reportgen.stats.ranking import (
    compact_letter_display,
    ordered_ranking,
    rank_agreement,
    rank_distributions,
    simultaneous_rank_intervals,
    topsis,
)

__all__ = ["ranking_sections"]


@dataclass
class _List:
    """One score sample list of the procedure, on the higher-is-better scale."""

    name: str
    dataset: str
    metrics: tuple[str, ...]
    weight: float
    paired: bool
    scores: Any  # items × systems matrix (paired) or one array per system


def _common_systems(table: ScoreTable) -> list[str]:
    common = set(table.systems)
    for dataset, metric in table.pairs():
        common &= set(table.systems_of(dataset, metric))
    return [s for s in table.systems if s in common]


def _lists(table: ScoreTable, systems: list[str]) -> tuple[list[_List], list[dict]]:
    """The lists of step 1 and the `aggregates` entries of the paired datasets."""
    lists: list[_List] = []
    aggregates: list[dict] = []
    for dataset in table.datasets:
        metrics = list(table.metrics_of(dataset))
        paired = all(table.pairing(dataset, m, systems).recommended == "paired"
                     for m in metrics)
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
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DegenerateDataWarning)
                    agg = aggregate_metrics(
                        matrices, directions=[table.metrics[m].direction for m in metrics],
                        weights=[table.metrics[m].weight for m in metrics], metrics=metrics)
                lists.append(_List(f"{dataset} (aggregate)" if len(metrics) > 1 else
                                   f"{dataset} / {metrics[0]}", dataset, tuple(metrics),
                                   table.dataset_weights[dataset], True, agg.scores))
                aggregates.append({
                    "kind": "metric-aggregate", "dataset": dataset, "metrics": metrics,
                    "directions": [table.metrics[m].direction for m in metrics],
                    "weights": [float(w) for w in agg.weights], "n_items": len(items),
                    "systems": [{"system": s, "mean": float(m)}
                                for s, m in zip(systems, agg.scores.mean(axis=0))]})
                continue
        for metric in metrics:  # unpaired dataset: each metric is a list of its own
            view = table.unpaired(dataset, metric, systems)
            sign = 1.0 if table.metrics[metric].direction == "higher" else -1.0
            pooled = np.concatenate(view.item_means())
            sd = pooled.std(ddof=1) if len(pooled) > 1 and pooled.std() > 0 else 1.0
            samples = [sign * (x - pooled.mean()) / sd for x in view.item_means()]
            lists.append(_List(f"{dataset} / {metric}", dataset, (metric,),
                               table.dataset_weights[dataset] * table.metrics[metric].weight,
                               False, samples))
    return lists, aggregates


def _means(lst: _List) -> np.ndarray:
    if lst.paired:
        return lst.scores.mean(axis=0)
    return np.array([x.mean() for x in lst.scores])


def _compare(lst: _List, order: np.ndarray, systems: list[str], options: Any, *,
             alternative: str, correction: str, rng: np.random.Generator):
    names = [systems[k] for k in order]
    common = dict(method=options.method, order=options.order, baseline=0,
                  alternative=alternative, correction=correction, alpha=options.alpha,
                  confidence=options.confidence, n_resamples=options.n_resamples,
                  effect_threshold=options.effect_threshold, rng=rng,
                  max_memory=options.max_memory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneSidedWarning)  # the order comes from §7.1
        if lst.paired:
            return compare_paired(lst.scores[:, order], systems=names, **common)
        return compare_unpaired([lst.scores[k] for k in order], systems=names, **common)


def _effect_sd(lst: _List, order: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """The denominator of each pair's Cohen's d (Turner & Bernard weights)."""
    if lst.paired:
        X = lst.scores[:, order]
        return (X[:, ia] - X[:, ib]).std(axis=0, ddof=1)
    arrays = [lst.scores[k] for k in order]
    var = np.array([a.var(ddof=1) if len(a) > 1 else np.nan for a in arrays])
    n = np.array([len(a) for a in arrays])
    return np.sqrt(((n[ia] - 1) * var[ia] + (n[ib] - 1) * var[ib]) / (n[ia] + n[ib] - 2))


def ranking_sections(table: ScoreTable, options: Any, seed: int, unit_rng: Any,
                     sample_lists: Any, objects: dict | None = None
                     ) -> tuple[list[dict], list[dict], list[str]]:
    """``aggregates`` and ``rankings`` entries, and notes; the result objects behind them
    go into ``objects`` (keyed as :attr:`reportgen.analysis.Analysis.objects`)."""
    objects = {} if objects is None else objects
    notes: list[str] = []
    systems = _common_systems(table)
    if len(systems) < 2:
        notes.append("ordered ranking skipped: fewer than 2 systems are scored on every "
                     "dataset × metric")
        return [], _rank_uncertainty(table, options, unit_rng, sample_lists, seed,
                                     objects, notes), notes
    lists, aggregates = _lists(table, systems)
    alternative = "two-sided" if options.order == "all-pairs" else "greater"
    if alternative == "greater":
        notes.append("ordered ranking: the right-tailed tests of seed 000 §7.1 follow an "
                     "order taken from the observed means, so their p-values are "
                     "optimistic; use --order all-pairs for two-sided tests")
    weights = np.array([lst.weight for lst in lists], dtype=np.float64)
    means = np.column_stack([_means(lst) for lst in lists])  # systems × lists
    if len(lists) == 1:
        scores = means[:, 0]
    else:
        sds = np.column_stack([
            lst.scores.std(axis=0, ddof=1) if lst.paired else
            np.array([x.std(ddof=1) for x in lst.scores]) for lst in lists])
        ns = np.column_stack([
            np.full(len(systems), lst.scores.shape[0]) if lst.paired else
            np.array([len(x) for x in lst.scores]) for lst in lists])
        # a system with one item has no SD; its weight n - 1 = 0 in the pooled SD
        sds = np.where(ns <= 1, 0.0, sds)
        scores = aggregate_unpaired_means(means, sds, ns, directions=["higher"] * len(lists),
                                          weights=weights, systems=systems,
                                          lists=[lst.name for lst in lists]).scores
    order = np.argsort(-scores, kind="stable")
    ordered_names = [systems[k] for k in order]
    rng = unit_rng(seed, "*", "ordered-ranking", stream=5)
    results = [_compare(lst, order, systems, options, alternative=alternative,
                        correction="none" if len(lists) > 1 else options.correction,
                        rng=rng) for lst in lists]
    ia, ib = results[0].index_a, results[0].index_b
    if len(lists) == 1:
        p_adjusted = results[0].p_adjusted
        effects = results[0].effect_size
        method = f"{results[0].test}, {options.correction}"
    else:
        raw = np.column_stack([r.p_value for r in results])  # pairs × lists
        hmp = harmonic_mean_pvalue(raw, weights=weights / weights.sum(),
                                   L=raw.shape[0] * raw.shape[1])
        p_adjusted = np.asarray(hmp.p_adjusted, dtype=np.float64)
        sds = np.column_stack([_effect_sd(lst, order, ia, ib) for lst in lists])
        # two systems with identical scores on a list: no effect size there (NaN)
        sds = np.where(sds > 0, sds, np.nan)
        effects = aggregate_effect_sizes(np.column_stack([r.effect_size for r in results]),
                                         sds, weights=weights).effect_size
        method = "harmonic-mean p over lists (Wilson 2019), L = pairs × lists"
    B = len(systems)
    untested = np.isnan(p_adjusted)
    if untested.any():
        notes.append(f"ordered ranking: {int(untested.sum())} pair(s) could not be tested "
                     "(too few items, e.g. "
                     f"{ordered_names[ia[np.flatnonzero(untested)[0]]]} vs "
                     f"{ordered_names[ib[np.flatnonzero(untested)[0]]]}); they count as "
                     "not significantly different")
    pmatrix = np.full((B, B), np.nan)
    for k, (i, j) in enumerate(zip(ia, ib)):
        p = 1.0 if untested[k] else p_adjusted[k]
        pmatrix[i, j] = p
        if alternative == "two-sided":
            pmatrix[j, i] = p
    ordered = ordered_ranking(scores[order], pmatrix, systems=ordered_names,
                              alpha=options.alpha, order=options.order,
                              alternative=alternative)
    objects[("ordered", "*", "*")] = ordered
    significant = [(ordered_names[i], ordered_names[j]) for k, (i, j) in
                   enumerate(zip(ia, ib)) if p_adjusted[k] <= options.alpha]
    entry: dict[str, Any] = {
        "kind": "ordered", "lists": [lst.name for lst in lists], "method": method,
        "order": options.order, "alternative": alternative, "alpha": options.alpha,
        "systems": [{"system": s, "score": float(scores[k]), "rank": r + 1}
                    for r, (s, k) in enumerate(zip(ordered_names, order))],
        "pairs": [{"system_a": ordered_names[i], "system_b": ordered_names[j],
                   "p_adjusted": _num(p_adjusted[k]), "effect_size": _num(effects[k]),
                   "significant": bool(p_adjusted[k] <= options.alpha)}
                  for k, (i, j) in enumerate(zip(ia, ib))],
        "graph": ordered.to_dict()}
    if options.order == "all-pairs":
        entry["letters"] = compact_letter_display(ordered_names, significant).to_dict()
    rankings = [entry]
    if len(lists) > 1:
        entry["across_lists"] = _across_lists(means[order], ordered_names, lists, options,
                                              objects)
    rankings.extend(_topsis_entries(table, systems, aggregates, objects))
    rankings.extend(_rank_uncertainty(table, options, unit_rng, sample_lists, seed, objects,
                                      notes))
    return aggregates, rankings, notes


def _across_lists(means: np.ndarray, names: list[str], lists: list[_List],
                  options: Any, objects: dict) -> dict[str, Any]:
    """Sign test of wins over lists for every pair; Friedman and Nemenyi."""
    a, b = comparison_pairs(len(names), "all-pairs")
    wins_a = (means[a] > means[b]).sum(axis=1)
    wins_b = (means[a] < means[b]).sum(axis=1)
    signs = sign_test_wins(wins_a, wins_b, total=means.shape[1])
    sign_rows = [{"system_a": names[i], "system_b": names[j], "wins_a": int(wa),
                  "wins_b": int(wb), "p_value": _num(p)}
                 for i, j, wa, wb, p in zip(a, b, wins_a, wins_b, signs.p_value)]
    out: dict[str, Any] = {"n_lists": len(lists), "sign_tests": sign_rows}
    if len(lists) >= 2 and len(names) >= 2:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            fn = friedman_nemenyi(means, alpha=options.alpha, systems=names)
            objects[("friedman", "*", "*")] = fn
            out["friedman_nemenyi"] = fn.to_dict()
    return out


def _topsis_entries(table: ScoreTable, systems: list[str],
                    aggregates: list[dict], objects: dict) -> list[dict]:
    """TOPSIS on the systems × metrics means vs the aggregate order (seed 000 §7.4)."""
    entries = []
    for agg in aggregates:
        metrics = agg["metrics"]
        if len(metrics) < 2:
            continue
        dataset = agg["dataset"]
        matrix = np.column_stack([
            np.array([r.mean() for r in table.unpaired(dataset, m, systems).item_means()])
            for m in metrics])
        result = topsis(matrix, directions=agg["directions"], weights=agg["weights"],
                        systems=systems, metrics=metrics)
        objects[("topsis", dataset, "*")] = result
        by_aggregate = [s["system"] for s in sorted(agg["systems"],
                                                    key=lambda s: -s["mean"])]
        by_topsis = [systems[k] for k in np.argsort(-np.asarray(result.score),
                                                    kind="stable")]
        entries.append({"kind": "topsis", "dataset": dataset, **result.to_dict(),
                        "agreement": rank_agreement(by_aggregate, by_topsis).to_dict()})
    return entries


def _rank_uncertainty(table: ScoreTable, options: Any, unit_rng: Any, sample_lists: Any,
                      seed: int, objects: dict, notes: list[str] | None = None
                      ) -> list[dict]:
    """Bootstrap rank distributions and simultaneous rank intervals per dataset ×
    metric, with the compact letter display of its comparisons (all pairs)."""
    entries = []
    for sl in sample_lists:
        if sl.derived_from is not None:
            continue  # corpus metrics: ranks of their own are not computed
        result = sl.result
        names = list(result.systems)
        paired = sl.pairing == "paired"
        if paired:
            samples: Any = table.paired(sl.dataset, sl.metric, names).item_means()
            means = samples.mean(axis=0)
            ses = samples.std(axis=0, ddof=1) / np.sqrt(samples.shape[0])
            # paired systems: their means are correlated through the shared items
            covariance = np.cov(samples, rowvar=False) / samples.shape[0]
        else:
            samples = list(table.unpaired(sl.dataset, sl.metric, names).item_means())
            means = np.array([x.mean() for x in samples])
            ses = np.array([x.std(ddof=1) / np.sqrt(len(x)) for x in samples])
            covariance = None
        if not np.all(np.isfinite(ses)):
            if notes is not None:
                short = [n for n, se in zip(names, ses) if not np.isfinite(se)]
                notes.append(f"{sl.dataset} / {sl.metric}: no rank distributions or rank "
                             f"intervals (fewer than 2 items for {', '.join(short[:3])})")
            continue
        rng = unit_rng(seed, sl.dataset, sl.metric, stream=6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            dist = rank_distributions(samples, paired=paired, systems=names,
                                      direction=sl.direction,
                                      n_resamples=options.n_resamples,
                                      confidence=options.confidence, rng=rng,
                                      max_memory=options.max_memory)
            intervals = simultaneous_rank_intervals(
                means, None if covariance is not None else ses, covariance=covariance,
                systems=names, direction=sl.direction, confidence=options.confidence,
                rng=rng)
        objects[("rank_distributions", sl.dataset, sl.metric)] = dist
        objects[("rank_intervals", sl.dataset, sl.metric)] = intervals
        entry = {"kind": "ranks", "dataset": sl.dataset, "metric": sl.metric,
                 "distribution": dist.to_dict(), "simultaneous": intervals.to_dict()}
        if result.order == "all-pairs":
            sign = 1.0 if sl.direction == "higher" else -1.0
            in_order = [names[k] for k in np.argsort(-sign * means, kind="stable")]
            significant = [(names[i], names[j]) for i, j, s in
                           zip(result.index_a, result.index_b, result.significant()) if s]
            letters = compact_letter_display(in_order, significant)
            objects[("letters", sl.dataset, sl.metric)] = letters
            entry["letters"] = letters.to_dict()
        entries.append(entry)
    return entries


def _num(value: Any) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value

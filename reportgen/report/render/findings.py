"""What the reader should take away, in plain sentences and the metric's own units: the
key findings of an evaluation report, and the central matrix (systems × dataset × metric)
with the order of its rows.

The sentences are built from the typed analysis (:class:`reportgen.analysis.Analysis`);
they are HTML (names escaped and set in bold); :func:`plain` turns one into text for the
e-mail subject and the console.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from reportgen import format as fmt
from reportgen.analysis import Analysis, ReleaseComparison, ReleaseVerdict, UnitResult
from reportgen.analysis.release import NotCompared
from reportgen.analysis.results import PairwiseResult, RankingAcrossLists
from reportgen.plaintext import count, listed, n_of, shown, verb
from reportgen.report.render.ties import tie_labels

__all__ = [
    "MatrixCell",
    "MatrixColumn",
    "PairView",
    "central_matrix",
    "decision_style",
    "flips_line",
    "key_findings",
    "not_compared_lines",
    "overall_order",
    "pair_view",
    "plain",
    "release_decision",
    "release_headline",
    "unit_name",
]

#: Units listed one by one in the key findings; above it they are summarised.
MAX_UNIT_LINES = 6
#: Names listed in a tie group before "and N more".
MAX_NAMES = 4


def _e(text: object) -> str:
    # a bidirectional control or line separator in a name is shown, not obeyed
    return html.escape(shown(text, keep_lines=True), quote=False)


def _b(name: str) -> str:
    return f"<strong>{_e(name)}</strong>"


def plain(sentence: str) -> str:
    """The text of an HTML sentence."""
    return html.unescape(re.sub(r"<[^>]+>", "", sentence))


def unit_name(unit: UnitResult | ReleaseVerdict) -> str:
    return f"{unit.dataset} / {unit.metric}"


def _list(names: Sequence[str]) -> str:
    shown = [_e(n) for n in names]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _names(names: Sequence[str], limit: int = MAX_NAMES) -> str:
    shown = [_b(n) for n in names[:limit]]
    if len(names) > limit:
        shown.append(f"{len(names) - limit} more")
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " and " + shown[-1]


@dataclass(frozen=True)
class PairView:
    """One compared pair of a unit, oriented ``a − b`` (``a`` the better system), with
    the adjusted interval (it agrees with ``significant``)."""

    a: str
    b: str
    diff: float
    ci_low: float
    ci_high: float
    p_adjusted: float
    significant: bool
    effect_size: float


def pair_view(unit: UnitResult, a: str, b: str) -> PairView | None:
    """The comparison of ``a`` with ``b`` in ``unit``, oriented ``a − b``; None when
    the pair was not compared."""
    result = unit.comparisons
    if result is None:
        return None
    names = result.systems
    sig = result.significant()
    adj_low, adj_high = result.adjusted_interval()  # the interval that agrees with sig
    effect = result.effect_size if isinstance(result, PairwiseResult) else None
    for k, (i, j) in enumerate(zip(result.index_a, result.index_b)):
        pair = (names[i], names[j])
        if pair not in ((a, b), (b, a)):
            continue
        sign = 1.0 if pair == (a, b) else -1.0
        lo, hi = float(adj_low[k]), float(adj_high[k])
        if sign < 0:
            lo, hi = -hi, -lo
        es = float("nan") if effect is None else sign * float(effect[k])
        return PairView(
            a,
            b,
            sign * float(result.diff[k]),
            lo,
            hi,
            float(result.p_adjusted[k]),
            bool(sig[k]),
            es,
        )
    return None


def _signed_interval(pair: PairView, proportion: bool) -> str:
    return fmt.interval(pair.ci_low, pair.ci_high, proportion=proportion, signed=True)


def _p(p: float) -> str:
    return fmt.p_equals(p, "p adj.")


# --------------------------------------------------------------------------- evaluation


def key_findings(analysis: Analysis, *, per_benchmark: bool = False) -> list[str]:
    """The key findings of an evaluation: who leads, whether the leaders are
    distinguishable, the largest reliable gaps, the noise floor and what was left out.
    HTML sentences, most important first.

    ``per_benchmark``: who leads is answered per benchmark elsewhere (the table and
    the ranking's scope of :mod:`reportgen.report.render.leaders`, when
    ``analysis.leaders.partial``): the lines on the leaders and on the ranking's
    selection are left out."""
    lines: list[str] = []
    ranking = analysis.ranking
    units = [u for u in analysis.compared if u.modality != "corpus"]
    if not per_benchmark:
        if ranking is not None and len(ranking.systems) >= 2 and len(ranking.lists) > 1:
            lines.append(_overall_line(ranking))
        if len(units) <= MAX_UNIT_LINES:
            lines.extend(_unit_lines(units))
        else:
            lines.append(_leaders_summary(units))
    gaps = _gaps_line(units)
    if gaps:
        lines.append(gaps)
    floor = _noise_line(units, analysis.options.power)
    if floor:
        lines.append(floor)
    if per_benchmark:
        pass
    elif ranking is not None and ranking.selection.how in ("largest", "given"):
        sel = ranking.selection
        lines.append(
            f"The ranking across datasets uses {len(sel.systems)} systems scored on all of "
            f"{_list(sel.datasets)}; "
            f"{count(len(sel.left_out_systems), 'other system')} "
            f"{verb(len(sel.left_out_systems), 'appear', 'appears')} in the tables only"
            + (
                f"; {_list([d for d, _ in sel.left_out_datasets])} "
                f"{'is' if len(sel.left_out_datasets) == 1 else 'are'} left out of it"
                if sel.left_out_datasets
                else ""
            )
            + "."
        )
    elif ranking is None and len(analysis.table.systems) >= 2 and len(analysis.table.datasets) > 1:
        lines.append("No ranking across datasets: fewer than 2 systems share a dataset.")
    return lines


def _overall_line(ranking: RankingAcrossLists) -> str:
    leader, runner = ranking.systems[0], ranking.systems[1]
    letters = tie_labels(ranking.letters)
    scope = f"over {len(ranking.lists)} datasets"
    tied = []
    if ranking.letters is not None:  # those sharing a tie group with the leader
        mine = [set(g) for g in ranking.letters.groups if leader in g]
        tied = [s for s in ranking.systems[1:] if any(s in g for g in mine)]
    else:
        for k, (i, j) in enumerate(zip(ranking.index_a, ranking.index_b)):
            if {i, j} == {0, 1} and not ranking.significant()[k]:
                tied = [runner]
    if tied:
        return (
            f"{_b(leader)} ranks first {scope}, but is not significantly better than "
            f"{_names(tied)} (tie group “{_e(letters.get(leader, 'a'))}”)."
        )
    p = next(
        (
            float(ranking.p_adjusted[k])
            for k, (i, j) in enumerate(zip(ranking.index_a, ranking.index_b))
            if {i, j} == {0, 1}
        ),
        float("nan"),
    )
    return (
        f"{_b(leader)} ranks first {scope} and is significantly better than every "
        f"other system (runner-up {_b(runner)}: combined {_p(p)})."
    )


def _ranked(unit: UnitResult) -> list[str]:
    names = unit.systems
    return [names[k] for k in unit.order()]


def _unit_line(unit: UnitResult) -> str | None:
    order = _ranked(unit)
    if len(order) < 2:
        return None
    leader, runner = order[0], order[1]
    k = unit.systems.index(leader)
    value = fmt.value(unit.means[k], proportion=unit.proportion)
    ci = fmt.interval(
        unit.intervals.ci_low[k], unit.intervals.ci_high[k], proportion=unit.proportion
    )
    head = f"{_e(unit_name(unit))}: {_b(leader)} leads with {value} {ci}"
    pair = pair_view(unit, leader, runner)
    runner_value = fmt.value(unit.means[unit.systems.index(runner)], proportion=unit.proportion)
    if pair is None:
        return f"{head}; runner-up {_b(runner)} at {runner_value}."
    delta = (
        f"{fmt.difference(pair.diff, proportion=unit.proportion)} "
        f"{_signed_interval(pair, unit.proportion)}"
    )
    if pair.significant:
        return (
            f"{head}, significantly ahead of {_b(runner)} ({runner_value}) by "
            f"{delta}, {_p(pair.p_adjusted)}."
        )
    return (
        f"{head}; {_b(runner)} ({runner_value}) is not significantly different "
        f"(Δ {delta}, {_p(pair.p_adjusted)})."
    )


def _unit_lines(units: Sequence[UnitResult]) -> list[str]:
    """One sentence per outcome (the leader significantly ahead of its runner-up, or
    not) instead of one near-identical sentence per dataset × metric. The sentence lists
    the dataset × metrics with their numbers: "**A** leads and is significantly ahead of
    the runner-up **B** on 6 of 6 dataset × metrics: x (82.3 vs 75.4, +6.88 [...], p
    adj. < 0.001), ..." when the same two systems lead everywhere, each one's pair in its
    parentheses otherwise. A dataset × metric alone with its outcome, or whose first two
    were not compared, keeps its own sentence (:func:`_unit_line`)."""
    groups: dict[bool, list[tuple[UnitResult, PairView]]] = {}
    alone: list[UnitResult] = []
    for unit in units:
        order = _ranked(unit)
        if len(order) < 2:
            continue
        pair = pair_view(unit, order[0], order[1])
        if pair is None:
            alone.append(unit)
        else:
            groups.setdefault(pair.significant, []).append((unit, pair))
    lines: list[str] = []
    for significant in (True, False):
        group = groups.get(significant, [])
        if len(group) == 1:
            alone.insert(0, group[0][0])
        if len(group) < 2:
            continue
        one_pair = len({(p.a, p.b) for _, p in group}) == 1
        if one_pair:
            details = [f"{_e(unit_name(u))} ({_pair_numbers(u, p)})" for u, p in group]
        else:
            joined = " over " if significant else " and "
            details = [
                f"{_e(unit_name(u))} ({_b(p.a)}{joined}{_b(p.b)}: {_pair_numbers(u, p)})"
                for u, p in group
            ]
        where = (
            f"{n_of(len(group), len(units), 'dataset × metric')}: {listed(details, len(details))}"
        )
        a, b = group[0][1].a, group[0][1].b
        if significant and one_pair:
            head = f"{_b(a)} leads and is significantly ahead of the runner-up {_b(b)} on"
        elif significant:
            head = "The leader is significantly ahead of the runner-up on"
        elif one_pair:
            head = f"{_b(a)} leads, but the runner-up {_b(b)} is not significantly different, on"
        else:
            head = "The leader is not significantly different from the runner-up on"
        lines.append(f"{head} {where}.")
    lines.extend(line for u in alone if (line := _unit_line(u)) is not None)
    return lines


def _pair_numbers(unit: UnitResult, pair: PairView) -> str:
    """``82.3 vs 75.4, +6.88 [+4.84, +8.92], p adj. < 0.001``: the two means, the
    difference with its adjusted interval and the adjusted p-value."""
    p = unit.proportion
    means = (
        f"{fmt.value(unit.means[unit.systems.index(pair.a)], proportion=p)} vs "
        f"{fmt.value(unit.means[unit.systems.index(pair.b)], proportion=p)}"
    )
    return (
        f"{means}, {fmt.difference(pair.diff, proportion=p)} "
        f"{_signed_interval(pair, p)}, {_p(pair.p_adjusted)}"
    )


def _leaders_summary(units: Sequence[UnitResult]) -> str:
    counts: dict[str, int] = {}
    separated = 0
    for unit in units:
        order = _ranked(unit)
        counts[order[0]] = counts.get(order[0], 0) + 1
        pair = pair_view(unit, order[0], order[1]) if len(order) > 1 else None
        separated += bool(pair is not None and pair.significant)
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    parts = [f"{_b(name)} on {n}" for name, n in ranked[:MAX_NAMES]]
    if len(ranked) > MAX_NAMES:
        parts.append(f"{len(ranked) - MAX_NAMES} other systems on the rest")
    on = "none" if separated == 0 else ("all" if separated == len(units) else f"{separated}")
    return (
        f"Leaders of the {len(units)} dataset × metrics: {', '.join(parts)}; the leader "
        f"is significantly better than its runner-up on {on} of them."
    )


def _gaps_line(units: Sequence[UnitResult], top: int = 3) -> str | None:
    """The largest significant differences (by standardised effect), one per unit."""
    found = []
    for unit in units:
        result = unit.comparisons
        if not isinstance(result, PairwiseResult) or result.n_pairs == 0:
            continue
        effect = result.effect_size
        sig = result.significant()
        size = np.where(sig & np.isfinite(effect), np.abs(effect), -np.inf)
        k = int(np.argmax(size))
        if not np.isfinite(size[k]):
            continue
        a, b = result.systems[result.index_a[k]], result.systems[result.index_b[k]]
        better_a = unit.better(float(result.mean_a[k]), float(result.mean_b[k]))
        a, b = (a, b) if better_a else (b, a)
        pair = pair_view(unit, a, b)
        if pair is not None:
            found.append((float(size[k]), unit, pair))
    if not found:
        return None
    found.sort(key=lambda t: -t[0])
    parts = []
    for _, unit, pair in found[:top]:
        parts.append(
            f"{_b(pair.a)} over {_b(pair.b)} on {_e(unit_name(unit))} "
            f"({fmt.difference(pair.diff, proportion=unit.proportion)} "
            f"{_signed_interval(pair, unit.proportion)})"
        )
    return "Largest reliable gaps: " + "; ".join(parts) + "."


def _noise_line(units: Sequence[UnitResult], power: float) -> str | None:
    by_metric: dict[str, list[tuple[float, bool]]] = {}
    for unit in units:
        if unit.power is None:
            continue
        mde = abs(float(unit.power.mde.delta))
        if np.isfinite(mde):
            by_metric.setdefault(unit.metric, []).append((mde, unit.proportion))
    if not by_metric:
        return None
    parts = []
    for metric, values in by_metric.items():
        lo, hi = min(v for v, _ in values), max(v for v, _ in values)
        proportion = all(p for _, p in values)
        text = fmt.difference(lo, proportion=proportion).lstrip("+")
        if hi > lo * 1.05:
            text = (
                fmt.difference(lo, proportion=proportion).lstrip("+").removesuffix(" pts")
                + "–"
                + fmt.difference(hi, proportion=proportion).lstrip("+")
            )
        parts.append(f"{text} on {_e(metric)}")
    return (
        f"Noise floor (a property of the design): a true difference of {'; '.join(parts)} "
        f"is detected with {power:.0%} power at the family's per-comparison level; "
        "smaller ones are likely to go undetected (minimum detectable effect)."
    )


# --------------------------------------------------------------------------- release

#: Verdicts of one kind named one by one in the decision line; above it they are counted.
MAX_DECISION_ITEMS = 4


def _where(v: ReleaseVerdict, one_metric: bool) -> str:
    return _e(v.dataset if one_metric else unit_name(v))


def _size(v: ReleaseVerdict) -> str:
    """The size of a change in the metric's units, unsigned: ``9.0 pts``."""
    return fmt.difference(abs(v.diff or 0.0), proportion=v.proportion).lstrip("+")


def _change(v: ReleaseVerdict, one_metric: bool) -> str:
    """``MBPP by 9.0 pts (63.8% → 54.8%)``: the size of a significant change in the
    metric's units, with the two values (and the direction when lower is better)."""
    size = _size(v)
    values = (
        f"{fmt.value(v.mean_baseline, proportion=v.proportion)} → "
        f"{fmt.value(v.mean_candidate, proportion=v.proportion)}"
    )
    lower = "; lower is better" if v.direction == "lower" else ""
    return f"{_where(v, one_metric)} by {size} ({values}{lower}{_flags(v)})"


def _flags(v: ReleaseVerdict) -> str:
    """What the reader must know about how a verdict was reached: heavily skewed
    differences (the studentized bootstrap had to agree), a degenerate comparison."""
    out = ""
    if v.skewed:
        out += "; heavily skewed differences: p and interval approximate"
    if v.note:
        out += f"; {_e(v.note)}"
    return out


def _open(v: ReleaseVerdict) -> str:
    """What the verdict's interval leaves open: ``a loss of up to 8.7 pts and a gain of
    up to 0.5 pts are not ruled out`` (the interval the verdict is read off)."""
    return fmt.leaves_open(
        v.ci_adjusted_low, v.ci_adjusted_high, direction=v.direction, proportion=v.proportion
    )


def _loss_left(v: ReleaseVerdict) -> float:
    """The largest loss the verdict's interval leaves open (0 when it rules out any)."""
    worse = v.ci_adjusted_low if v.direction == "higher" else v.ci_adjusted_high
    if worse is None:
        return float("inf")
    return max(0.0, -worse if v.direction == "higher" else worse)


def _missed(v: ReleaseVerdict, one_metric: bool) -> str:
    diff = fmt.difference(v.diff, proportion=v.proportion)
    return f"{_where(v, one_metric)} ({diff}; {_open(v)}{_flags(v)})"


def _margin(v: ReleaseVerdict) -> str:
    """The margin in the metric's units, unsigned: ``2.0 pts``."""
    return fmt.difference(v.margin or 0.0, proportion=v.proportion).lstrip("+")


def _judged(v: ReleaseVerdict, one_metric: bool) -> str:
    """``MBPP (+0.5 pts; a loss over 2.0 pts ruled out)``: a verdict at a margin."""
    diff = fmt.difference(v.diff, proportion=v.proportion)
    ruled = "ruled out" if v.verdict == "non-inferior" else "not ruled out"
    equivalent = "; within ±" + _margin(v) if v.equivalent else ""
    return (
        f"{_where(v, one_metric)} ({diff}; a loss over {_margin(v)} {ruled}{equivalent}{_flags(v)})"
    )


def flips_line(comparison: ReleaseComparison) -> str | None:
    """``Items: humaneval+ lost 13, gained 28 of 164; ...``: per paired dataset × metric,
    the items the candidate lost and gained (HTML); None without paired comparisons.

    Above :data:`MAX_DECISION_ITEMS` dataset × metrics only those where the candidate
    lost the largest share of items are named, and the line says that the report's
    verdict table has every one (the example's 13 made a paragraph of the decision box)."""
    flips = list(comparison.flips)
    if not flips:
        return None
    one_metric = len({f.metric for f in flips}) == 1
    shown = flips
    if len(flips) > MAX_DECISION_ITEMS:
        worst = sorted(flips, key=lambda f: -f.n_lost / max(f.n_items, 1))
        shown = worst[:MAX_DECISION_ITEMS]
    parts = [
        f"{_e(f.dataset if one_metric else f.name)} lost {f.n_lost}, gained "
        f"{f.n_gained} of {f.n_items}"
        for f in shown
    ]
    if len(shown) < len(flips):
        return (
            "Items, where the candidate lost the largest share: "
            + "; ".join(parts)
            + f" (the report's verdict table has all {len(flips)} dataset × metrics)."
        )
    return "Items: " + "; ".join(parts) + "."


def _some(items: Sequence[str], noun: str) -> str:
    """The first :data:`MAX_DECISION_ITEMS` items, then how many more ``noun`` (a
    singular noun: the plural agrees with the count)."""
    shown = list(items[:MAX_DECISION_ITEMS])
    if len(items) > MAX_DECISION_ITEMS:
        shown.append(count(len(items) - MAX_DECISION_ITEMS, f"more {noun}"))
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def release_decision(comparison: ReleaseComparison) -> str:
    """The release in one HTML sentence, first: whether the candidate is better, the
    regressions and improvements with their size in the metric's units (baseline →
    candidate), what showed no detectable difference and what its interval leaves open
    (the interval each verdict is read off), and whether anything was not compared. The
    first words reflect the worst dataset × metric: never "is better" while a loss is
    left open somewhere.

    Examples of the first words: "v2.1 is not better than v2.0: regressed on MBPP by
    9.0 pts (63.8% → 54.8%)"; "v2.1 is better than v2.0: improved on ..."; "v2.1 is
    not detectably different from v2.0: ..."; "v2.1 was not compared with v2.0 on
    everything: ...".
    """
    c = comparison
    cand, base = _b(c.candidate), _b(c.baseline)
    if not c.verdicts:
        return (
            f"{cand} could not be compared with {base}: the two systems share no "
            f"dataset × metric ({len(c.not_compared)} not compared, listed below)."
        )
    one_metric = len({v.metric for v in c.verdicts}) == 1
    noun = "dataset" if one_metric else "dataset × metric"
    regressed = [_change(v, one_metric) for v in c.regressions]
    improved = [_change(v, one_metric) for v in c.improvements]
    inconclusive = [_judged(v, one_metric) for v in c.inconclusive]
    noninferior = [_judged(v, one_metric) for v in c.noninferior]
    flat = [v for v in c.verdicts if v.verdict == "no detectable difference"]
    parts = []
    if regressed:
        parts.append("regressed on " + _some(regressed, noun))
    if improved:
        parts.append("improved on " + _some(improved, noun))
    if inconclusive:
        parts.append("inconclusive on " + _some(inconclusive, noun))
    if noninferior:
        parts.append("non-inferior on " + _some(noninferior, noun))
    if flat and len(flat) <= MAX_DECISION_ITEMS:
        parts.append(
            "no detectable difference on " + _some([_missed(v, one_metric) for v in flat], noun)
        )
    elif flat:
        worst = max(flat, key=_loss_left)
        which = (
            f"the {len(flat)} others"
            if regressed or improved
            else f"all {len(flat)} dataset × metrics" + (" compared" if c.not_compared else "")
        )
        text = f"no detectable difference on {which}"
        if _loss_left(worst) > 0:
            loss = (
                "no bound on a loss"
                if _loss_left(worst) == float("inf")
                else f"a loss of up to {fmt.amount(_loss_left(worst), proportion=worst.proportion)}"
            )
            text += f" (the largest left open: {loss} on {_where(worst, one_metric)})"
        parts.append(text)
    if regressed:
        head = f"{cand} is not better than {base}"
    elif c.not_compared:
        head = (
            f"{cand} was compared with {base} on only {len(c.verdicts)} of "
            f"{len(c.verdicts) + len(c.not_compared)} dataset × metrics"
        )
    elif c.partial:
        n = len(c.partial)
        head = (
            f"{cand} was compared with {base} on part of the items of {n} dataset × "
            f"metric{'s' if n != 1 else ''}"
        )
    elif inconclusive:
        head = f"{cand} is not shown to be non-inferior to {base}"
    elif improved and any(_loss_left(v) > 0 for v in flat):
        # never "is better" while a loss is left open elsewhere: the worst unit decides
        others = len(c.verdicts) - len(improved)
        head = (
            f"{cand} improved on {len(improved)} of {len(c.verdicts)} dataset × metrics "
            f"over {base}, and a loss is not ruled out on the "
            + ("other" if others == 1 else "others")
        )
    elif improved:
        head = f"{cand} is better than {base}"
    elif noninferior and not flat:
        head = f"{cand} is non-inferior to {base}"
    else:
        head = f"{cand} is not detectably different from {base}"
    tail = ""
    if c.not_compared:
        names = [_e(n.dataset if one_metric else n.name) for n in c.not_compared]
        tail = f"; not compared on {_some(names, noun)}"
    if c.partial:
        names = [_e(p.dataset if one_metric else p.name) for p in c.partial]
        tail += f"; on part of the items only on {_some(names, noun)}"
    return f"{head}: " + "; ".join(parts) + tail + "."


def decision_style(comparison: ReleaseComparison) -> str:
    """The style of the decision block: ``regressed``, ``improved``, ``incomplete``
    (something was not compared, or a loss over a margin is not ruled out) or ``nodiff``
    (a non-inferior release is styled ``improved``: it passes); the report and the
    e-mail colour the decision by it."""
    decision = comparison.decision
    if decision in ("incomplete", "not compared", "inconclusive"):
        return "incomplete"
    if decision == "non-inferior":
        return "improved"
    return decision if decision in ("regressed", "improved") else "nodiff"


def release_headline(comparison: ReleaseComparison) -> str:
    """The decision in a few plain words, for an e-mail subject: ``not better: regressed
    on MBPP by 9.0 pts``, ``better: improved on ...``, ``no detectable difference in 4
    comparisons`` (one per dataset × metric), with ``K of N not compared`` when the
    comparison is partial."""
    c = comparison
    one_metric = len({v.metric for v in c.verdicts}) == 1
    total = len(c.verdicts) + len(c.not_compared)
    missing = f"; {len(c.not_compared)} of {total} not compared" if c.not_compared else ""
    if c.partial:
        missing += f"; {len(c.partial)} on part of the items only"
    if not c.verdicts:
        return f"nothing compared: the two systems share none of {total} comparisons"

    def first(items: Sequence[ReleaseVerdict]) -> str:
        more = f" and {len(items) - 1} more" if len(items) > 1 else ""
        return f"{plain(_where(items[0], one_metric))} by {_size(items[0])}{more}"

    if c.regressions:
        return f"not better: regressed on {first(c.regressions)}{missing}"
    if c.inconclusive:
        return (
            f"not shown non-inferior: a loss over the margin is not ruled out on "
            f"{plain(_where(c.inconclusive[0], one_metric))}"
            + (f" and {len(c.inconclusive) - 1} more" if len(c.inconclusive) > 1 else "")
            + missing
        )
    if c.improvements:
        open_loss = [
            v for v in c.verdicts if v.verdict == "no detectable difference" and _loss_left(v) > 0
        ]
        if open_loss:
            n = len(open_loss)
            return (
                f"improved on {first(c.improvements)}; a loss not ruled out on "
                f"{n} other{'s' if n != 1 else ''}{missing}"
            )
        head = "better" if not c.not_compared else "improved where compared"
        return f"{head}: improved on {first(c.improvements)}{missing}"
    n = len(c.verdicts)
    if len(c.noninferior) == n:
        return f"non-inferior in {n} comparison{'s' if n != 1 else ''}{missing}"
    return f"no detectable difference in {n} comparison{'s' if n != 1 else ''}{missing}"


def not_compared_lines(comparison: ReleaseComparison) -> list[str]:
    """One HTML line per reason a dataset × metric was not compared, naming them and
    the systems there whose names are closest to the missing ones, then one per dataset
    × metric compared on part of its items only (with the counts)."""
    by_reason: dict[str, list[NotCompared]] = {}
    for entry in comparison.not_compared:
        by_reason.setdefault(entry.reason, []).append(entry)
    lines = []
    for reason, entries in by_reason.items():
        names = _list([n.name for n in entries])
        closest = list(dict.fromkeys(s for n in entries for s in n.closest))
        hint = f" Closest names there: {_names(closest)} (a renamed run?)." if closest else ""
        lines.append(f"{names}: {_e(reason)}.{hint}")
    lines.extend(f"{_e(p.name)}: {_e(p.reason)}." for p in comparison.partial)
    return lines


# --------------------------------------------------------------------------- matrix


def _headline_units(analysis: Analysis) -> list[UnitResult]:
    """The units of the central matrix: every compared dataset × metric measured per
    item (corpus metrics stay in the appendix), or every unit when none is compared."""
    units = [u for u in analysis.compared if u.derived_from is None]
    return units or [u for u in analysis.units if u.derived_from is None]


def overall_order(analysis: Analysis) -> list[str]:
    """Every system, best first: the order of the ranking across datasets, then the
    systems it leaves out by their mean position over the dataset × metrics they are
    scored on (1 = best)."""
    positions: dict[str, list[float]] = {}
    for unit in _headline_units(analysis):
        order = unit.order()
        n = max(len(order) - 1, 1)
        for position, k in enumerate(order):
            positions.setdefault(unit.systems[k], []).append(position / n)
    ranked = list(analysis.ranking.systems) if analysis.ranking is not None else []
    rest = [s for s in analysis.table.systems if s not in set(ranked)]
    rest.sort(
        key=lambda s: (
            float(np.mean(positions[s])) if s in positions else 2.0,
            -len(positions.get(s, ())),
        )
    )
    return ranked + rest


@dataclass(frozen=True)
class MatrixColumn:
    """One dataset × metric of the central matrix."""

    dataset: str
    metric: str
    proportion: bool
    direction: str

    @property
    def label(self) -> str:
        return f"{self.dataset} / {self.metric}"

    @property
    def unit_label(self) -> str:
        """The unit of its values: ``%`` for proportions."""
        return "%" if self.proportion else ""


@dataclass(frozen=True)
class MatrixCell:
    """One system on one dataset × metric: mean, interval, tie-group letters, and
    whether it is the best value of its column."""

    mean: float
    ci_low: float
    ci_high: float
    letters: str
    best: bool

    def text(self, proportion: bool) -> tuple[str, str]:
        """The value and its interval as shown (percent for proportions, without the
        unit; 3 significant digits otherwise)."""
        value = fmt.value(self.mean, proportion=proportion).removesuffix("%")
        return value, fmt.interval(self.ci_low, self.ci_high, proportion=proportion)


def central_matrix(
    analysis: Analysis,
) -> tuple[list[MatrixColumn], dict[str, dict[int, MatrixCell]]]:
    """The systems × dataset × metric matrix of real values: the columns, and for each
    system its cells by column index (absent where it has no score)."""
    columns: list[MatrixColumn] = []
    cells: dict[str, dict[int, MatrixCell]] = {}
    for j, unit in enumerate(_headline_units(analysis)):
        columns.append(MatrixColumn(unit.dataset, unit.metric, unit.proportion, unit.direction))
        letters = tie_labels(unit.ranks.letters) if unit.ranks is not None else {}
        means = unit.means
        order = unit.order()
        best = unit.systems[order[0]] if order and np.isfinite(means[order[0]]) else None
        for k, name in enumerate(unit.systems):
            cells.setdefault(name, {})[j] = MatrixCell(
                float(means[k]),
                float(unit.intervals.ci_low[k]),
                float(unit.intervals.ci_high[k]),
                letters.get(name, ""),
                name == best,
            )
    return columns, cells

"""The ledger's words: the key findings of an evaluation, the decision of a release and
the lines around them, each a :class:`reportgen.sentences.Sentence` built from the
ledger's decided claims and verdicts. The report, the e-mail, the console and the
history show these sentences (as HTML or plain text) and never word a claim themselves.

Words come from intervals ("a loss of up to 8.7 pts is not ruled out"), never from
post-hoc power; numbers are rounded by :mod:`reportgen.format` only.
"""

from __future__ import annotations

from collections.abc import Sequence

from reportgen import format as fmt
from reportgen.analysis.battles import BattleAnalysis, BattleClaim, BattleResult
from reportgen.analysis.leaders import BenchmarkLeader, Leaders, RankingLeader
from reportgen.analysis.ledger.claims import Claim
from reportgen.analysis.ledger.core import Ledger, OverallRanking, UnitLedger
from reportgen.analysis.ledger.ties import tie_labels
from reportgen.analysis.release import UNDECIDABLE, ReleaseComparison, ReleaseVerdict
from reportgen.names import CORRECTION_NAMES
from reportgen.plaintext import count, n_of, verb
from reportgen.sentences import Name, Part, Sentence, joined

__all__ = [
    "TIED_NAMES",
    "battle_findings",
    "ranking_scope_line",
    "tied_with_leader",
    "battles_lines",
    "battles_note",
    "elo",
    "share_with_interval",
    "MAX_DECISION_ITEMS",
    "MAX_NAMES",
    "MAX_UNIT_LINES",
    "decision_style",
    "flips_line",
    "gaps_line",
    "key_findings",
    "lead_sentences",
    "noise_line",
    "not_compared_lines",
    "ordering_line",
    "release_decision",
    "release_headline",
    "summary_line",
    "verdict_pieces",
]

#: Units listed one by one in the key findings; above it they are summarised.
MAX_UNIT_LINES = 6
#: Names listed in a tie group before "and N more".
MAX_NAMES = 4
#: Verdicts of one kind named one by one in the decision line; above it they are counted.
MAX_DECISION_ITEMS = 4
#: Pairs named in a merged sentence before "N more dataset × metrics".
MAX_PAIRS = 4


def _names(names: Sequence[str], limit: int = MAX_NAMES) -> Sentence:
    parts: list[Part | Sentence] = [Name(n) for n in names[:limit]]
    if len(names) > limit:
        parts.append(f"{len(names) - limit} more")
    return joined(parts)


def _listed(items: Sequence[str], limit: int) -> str:
    shown = list(items[:limit])
    if len(items) > limit:
        shown.append(f"{len(items) - limit:,} more")
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


# --------------------------------------------------------------------------- evaluation


def key_findings(ledger: Ledger, *, per_benchmark: bool = False) -> list[Sentence]:
    """The key findings of an evaluation: who leads, whether the leaders are
    distinguishable, the largest reliable gaps, the noise floor and what was left out.
    Most important first.

    ``per_benchmark``: who leads is answered per benchmark elsewhere (page 1's table of
    :mod:`reportgen.analysis.leaders`, when the ranking across datasets covers only some
    datasets or systems): the lines on the leaders and on the ranking's selection are
    left out."""
    lines: list[Sentence] = []
    ranking = ledger.ranking
    units = [u for u in ledger.compared if u.modality != "corpus"]
    if not per_benchmark:
        if ranking is not None and len(ranking.systems) >= 2 and len(ranking.lists) > 1:
            lines.append(_overall_line(ranking))
        if len(units) <= MAX_UNIT_LINES:
            lines.extend(lead_sentences(units, numbers=True))
        else:
            lines.append(_leaders_summary(units))
    gaps = gaps_line(units)
    if gaps:
        lines.append(gaps)
    floor = noise_line(units, ledger.meta.power)
    if floor:
        lines.append(floor)
    if per_benchmark:
        return lines
    if ranking is not None and ranking.selection is not None:
        sel = ranking.selection
        if sel.how in ("largest", "given"):
            left = len(sel.left_out_systems)
            tail = ""
            if sel.left_out_datasets:
                gone = [d for d, _ in sel.left_out_datasets]
                tail = f"; {_listed(gone, len(gone))} {verb(len(gone), 'are', 'is')} left out of it"
            lines.append(
                Sentence.of(
                    f"The ranking across datasets uses {len(sel.systems)} systems scored on all "
                    f"of {_listed(list(sel.datasets), len(sel.datasets))}; "
                    f"{count(left, 'other system')} {verb(left, 'appear', 'appears')} in the "
                    f"tables only{tail}."
                )
            )
    elif ranking is None and len(ledger.meta.systems) >= 2 and len(ledger.meta.datasets) > 1:
        lines.append(
            Sentence.of("No ranking across datasets: fewer than 2 systems share a dataset.")
        )
    return lines


def _overall_line(ranking: OverallRanking) -> Sentence:
    leader, runner = ranking.systems[0], ranking.systems[1]
    letters = tie_labels(ranking.letters)
    scope = f"over {len(ranking.lists)} datasets"
    tied = list(ranking.tied_with_leader())
    if tied:
        return Sentence.of(
            Name(leader),
            f" ranks first {scope}, but is not significantly better than ",
            _names(tied),
            f" (tie group “{letters.get(leader, 'a')}”).",
        )
    found = ranking.pair(leader, runner)
    p = None if found is None else found[0]
    return Sentence.of(
        Name(leader),
        f" ranks first {scope} and is significantly better than every other system (runner-up ",
        Name(runner),
        f": combined {fmt.p_equals(p, 'p adj.')}).",
    )


def _pair_numbers(claim: Claim) -> str:
    """``82.3 vs 75.4, +6.9 pts [+4.8, +8.9], p adj. < 0.001``: the two means, the
    difference with the interval its decision is read off and the p-value it is read
    off."""
    p = claim.proportion
    means = f"{fmt.value(claim.mean_a, proportion=p)} vs {fmt.value(claim.mean_b, proportion=p)}"
    return f"{means}, {claim.interval_text()}, {claim.p_text()}"


def _unit_line(unit: UnitLedger) -> Sentence | None:
    ranked = [s for s in unit.standing if s.mean is not None] or list(unit.standing)
    if len(ranked) < 2:
        return None
    first, second = ranked[0], ranked[1]
    value = fmt.value(first.mean, proportion=unit.proportion)
    ci = fmt.interval(first.ci_low, first.ci_high, proportion=unit.proportion)
    head = Sentence.of(f"{unit.name}: ", Name(first.system), f" leads with {value} {ci}")
    claim = unit.claim(first.system, second.system)
    runner_value = fmt.value(second.mean, proportion=unit.proportion)
    if claim is None:
        return Sentence.of(head, "; runner-up ", Name(second.system), f" at {runner_value}.")
    delta = claim.interval_text()
    if claim.approximate:
        return Sentence.of(
            head,
            "; ",
            Name(second.system),
            f" ({runner_value}): no decision, heavily skewed differences (Δ {delta}, "
            f"{claim.p_text()}, approximate).",
        )
    if claim.significant:
        return Sentence.of(
            head,
            ", significantly ahead of ",
            Name(second.system),
            f" ({runner_value}) by {delta}, {claim.p_text()}.",
        )
    return Sentence.of(
        head,
        "; ",
        Name(second.system),
        f" ({runner_value}) is not significantly different (Δ {delta}, {claim.p_text()}).",
    )


def lead_sentences(units: Sequence[UnitLedger], *, numbers: bool) -> list[Sentence]:
    """The leader against the runner-up of every unit, one sentence per outcome (the
    leader significantly ahead of its runner-up, or not) instead of one near-identical
    sentence per dataset × metric: "**A** leads and is significantly ahead of the
    runner-up **B** on 6 of 6 dataset × metrics: x (82.3 vs 75.4, ...), ..." when the
    same two systems lead everywhere, each pair named before its own dataset × metrics
    otherwise.

    With ``numbers`` each dataset × metric carries its means, difference, interval and
    p (the report's key findings); without, the dataset × metrics are named only (the
    e-mail, whose blocks carry the numbers). A dataset × metric alone with its outcome,
    or whose first two were not compared, keeps its own sentence."""
    groups: dict[bool, list[tuple[UnitLedger, Claim]]] = {}
    alone: list[UnitLedger] = []
    total = 0
    for unit in units:
        claim = unit.lead()
        ranked = [s for s in unit.standing if s.mean is not None]
        if len(ranked) < 2:
            continue
        total += 1
        if claim is None or claim.approximate:
            alone.append(unit)
        else:
            groups.setdefault(claim.significant, []).append((unit, claim))
    lines: list[Sentence] = []
    for significant in (True, False):
        group = groups.get(significant, [])
        if numbers and len(group) == 1:
            alone.insert(0, group[0][0])
        if not group or (numbers and len(group) < 2):
            continue
        pairs: dict[tuple[str, ...], list[tuple[UnitLedger, Claim]]] = {}
        for unit, claim in group:
            key = claim.systems if significant else tuple(sorted(claim.systems))
            pairs.setdefault(key, []).append((unit, claim))
        where = n_of(len(group), total, "dataset × metric")
        if len(pairs) == 1:
            a, b = group[0][1].systems
            details = [f"{u.name} ({_pair_numbers(c)})" if numbers else u.name for u, c in group]
            listed = _listed(details, len(details) if numbers else 6)
            if significant:
                head = Sentence.of(
                    Name(a), " leads and is significantly ahead of the runner-up ", Name(b)
                )
            else:
                head = Sentence.of(
                    "No significant difference between the first two, ",
                    Name(a),
                    " and ",
                    Name(b),
                )
            lines.append(Sentence.of(head, f" on {where}: {listed}."))
            continue
        joiner = " over " if significant else " and "
        parts: list[Sentence] = []
        ordered = sorted(pairs.values(), key=len, reverse=True)
        for members in ordered[: len(ordered) if numbers else MAX_PAIRS]:
            a, b = members[0][1].systems
            names = [f"{u.name} ({_pair_numbers(c)})" if numbers else u.name for u, c in members]
            parts.append(
                Sentence.of(
                    Name(a), joiner, Name(b), f" on {_listed(names, len(names) if numbers else 6)}"
                )
            )
        left = sum(len(m) for m in ordered[MAX_PAIRS:]) if not numbers else 0
        if left:
            parts.append(Sentence.of(f"{count(left, 'more dataset × metric')} in the report"))
        head_text = (
            "The leader is significantly ahead of the runner-up"
            if significant
            else "No significant difference between the first two"
        )
        lines.append(Sentence.of(f"{head_text} on {where}: ", joined(parts, "; ", "; "), "."))
    if numbers:
        lines.extend(line for u in alone if (line := _unit_line(u)) is not None)
    else:
        for unit in alone:
            claim = unit.lead()
            ranked = [s for s in unit.standing if s.mean is not None]
            if claim is not None and claim.approximate:
                lines.append(
                    Sentence.of(
                        f"{unit.name}: no decision between the first two, ",
                        Name(ranked[0].system),
                        " and ",
                        Name(ranked[1].system),
                        " (heavily skewed differences).",
                    )
                )
            else:
                lines.append(
                    Sentence.of(
                        f"{unit.name}: ",
                        Name(ranked[0].system),
                        " leads; the runner-up ",
                        Name(ranked[1].system),
                        " was not compared with it.",
                    )
                )
    return lines


def _leaders_summary(units: Sequence[UnitLedger]) -> Sentence:
    counts: dict[str, int] = {}
    separated = 0
    for unit in units:
        ranked = [s for s in unit.standing if s.mean is not None]
        if not ranked:
            continue
        counts[ranked[0].system] = counts.get(ranked[0].system, 0) + 1
        claim = unit.lead()
        separated += bool(claim is not None and claim.significant)
    ranked_names = sorted(counts.items(), key=lambda kv: -kv[1])
    parts: list[Part | Sentence] = [
        Sentence.of(Name(name), f" on {n}") for name, n in ranked_names[:MAX_NAMES]
    ]
    if len(ranked_names) > MAX_NAMES:
        parts.append(f"{count(len(ranked_names) - MAX_NAMES, 'other system')} on the rest")
    on = "none" if separated == 0 else ("all" if separated == len(units) else f"{separated}")
    return Sentence.of(
        f"Leaders of the {len(units)} dataset × metrics: ",
        joined(parts, ", ", ", "),
        f"; the leader is significantly better than its runner-up on {on} of them.",
    )


def gaps_line(units: Sequence[UnitLedger], top: int = 3) -> Sentence | None:
    """The largest significant differences (by standardised effect), one per unit."""
    import numpy as np

    found: list[tuple[float, UnitLedger, Claim]] = []
    for unit in units:
        claims = unit.claims
        if claims is None or len(claims) == 0 or unit.derived_from is not None:
            continue
        effect = np.asarray(
            [np.nan if v is None else float(v) for v in claims.column("effect_size")], dtype=float
        )
        sig = claims.significant()
        size = np.where(sig & np.isfinite(effect), np.abs(effect), -np.inf)
        k = int(np.argmax(size))
        if not np.isfinite(size[k]):
            continue
        found.append((float(size[k]), unit, claims[k].better_first()))
    if not found:
        return None
    found.sort(key=lambda t: -t[0])
    parts = [
        Sentence.of(
            Name(c.system_a),
            " over ",
            Name(c.system_b),
            f" on {unit.name} ({c.interval_text()})",
        )
        for _, unit, c in found[:top]
    ]
    return Sentence.of("Largest reliable gaps: ", joined(parts, "; ", "; "), ".")


def noise_line(units: Sequence[UnitLedger], power: float) -> Sentence | None:
    """The noise floor of each metric: the minimum detectable effects of its units."""
    by_metric: dict[str, list[tuple[float, bool]]] = {}
    for unit in units:
        figure = unit.noise
        if figure is None or figure.mde is None:
            continue
        by_metric.setdefault(unit.metric, []).append((figure.mde, unit.proportion))
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
        parts.append(f"{text} on {metric}")
    return Sentence.of(
        f"Noise floor (a property of the design): a true difference of {'; '.join(parts)} "
        f"is detected with {power:.0%} power at the family's per-comparison level; "
        "smaller ones are likely to go undetected (minimum detectable effect)."
    )


def summary_line(ledger: Ledger) -> Sentence:
    """What an analysis decided, in one line: a release's decision, else its comparisons
    counted with their family ("1,711 comparisons in 1 dataset × metric, 986
    significant (Holm-Šidák within each dataset × metric ...)")."""
    if ledger.release is not None:
        return release_decision(ledger.release)
    return Sentence.of(
        f"{count(ledger.n_comparisons, 'comparison')} in "
        f"{count(len(ledger.compared), 'dataset × metric')}, {ledger.n_significant:,} "
        f"significant ({ledger.family.describe()})"
    )


def ordering_line(ranking: OverallRanking, *, limit: int = 12) -> Sentence:
    """``ordered ranking over 2 lists: A ≈ B > C``: systems best first, ``≈`` between
    neighbours that are not significantly different, ``>`` where they are."""
    decided = {frozenset((a, b)): s for a, b, _, s, _ in ranking.pairs()}
    names = list(ranking.systems)
    parts: list[Part | Sentence] = [Name(names[0])] if names else []
    for a, b in zip(names[: limit - 1], names[1:limit]):
        parts.append(" > " if decided.get(frozenset((a, b)), False) else " ≈ ")
        parts.append(Name(b))
    tail = f" ... ({len(names) - limit} more)" if len(names) > limit else ""
    n = len(ranking.lists)
    return Sentence.of(f"ordered ranking over {count(n, 'list')}: ", *parts, tail)


# --------------------------------------------------------------------------- release


def _where(v: ReleaseVerdict, one_metric: bool) -> str:
    return v.dataset if one_metric else v.name


def _size(v: ReleaseVerdict) -> str:
    """The size of a change in the metric's units, unsigned: ``9.0 pts``."""
    return fmt.difference(abs(v.diff or 0.0), proportion=v.proportion).lstrip("+")


def _flags(v: ReleaseVerdict) -> str:
    """What the reader must know about how a verdict was reached: heavily skewed
    differences, a degenerate comparison."""
    out = ""
    if v.skewed and not v.note:
        out += "; heavily skewed differences: p and interval approximate"
    if v.note:
        out += f"; {v.note}"
    return out


def _change(v: ReleaseVerdict, one_metric: bool) -> str:
    """``MBPP by 9.0 pts (63.8% → 54.8%)``."""
    values = (
        f"{fmt.value(v.mean_baseline, proportion=v.proportion)} → "
        f"{fmt.value(v.mean_candidate, proportion=v.proportion)}"
    )
    lower = "; lower is better" if v.direction == "lower" else ""
    return f"{_where(v, one_metric)} by {_size(v)} ({values}{lower}{_flags(v)})"


def _open(v: ReleaseVerdict) -> str:
    """What the verdict's interval leaves open: ``a loss of up to 8.7 pts and a gain of
    up to 0.5 pts are not ruled out``."""
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


def _judged(v: ReleaseVerdict, one_metric: bool) -> str:
    """``MBPP (+0.5 pts; a loss over 2.0 pts ruled out)``: a verdict at a margin, or an
    inconclusive one for skewed differences."""
    diff = fmt.difference(v.diff, proportion=v.proportion)
    if v.undecidable:  # a mean on heavily skewed differences: no verdict, at any margin
        why = (v.note or UNDECIDABLE).removeprefix("inconclusive: ")
        return f"{_where(v, one_metric)} ({diff}; {why})"
    if v.margin is None:  # inconclusive without a margin: not decidable (its note says why)
        return f"{_where(v, one_metric)} ({diff}{_flags(v)})"
    ruled = "ruled out" if v.verdict == "non-inferior" else "not ruled out"
    equivalent = "; within ±" + v.margin_text() if v.equivalent else ""
    return (
        f"{_where(v, one_metric)} ({diff}; a loss over {v.margin_text()} {ruled}"
        f"{equivalent}{_flags(v)})"
    )


def flips_line(comparison: ReleaseComparison) -> Sentence | None:
    """``Items: humaneval+ lost 13, gained 28 of 164; ...``: per paired dataset × metric,
    the items the candidate lost and gained; None without paired comparisons. Above
    :data:`MAX_DECISION_ITEMS` dataset × metrics only those where the candidate lost the
    largest share are named."""
    flips = list(comparison.flips)
    if not flips:
        return None
    one_metric = len({f.metric for f in flips}) == 1
    shown = flips
    if len(flips) > MAX_DECISION_ITEMS:
        worst = sorted(flips, key=lambda f: -f.n_lost / max(f.n_items, 1))
        shown = worst[:MAX_DECISION_ITEMS]
    parts = [
        f"{f.dataset if one_metric else f.name} lost {f.n_lost:,}, gained {f.n_gained:,} of "
        f"{f.n_items:,}"
        for f in shown
    ]
    if len(shown) < len(flips):
        return Sentence.of(
            "Items, where the candidate lost the largest share: "
            + "; ".join(parts)
            + f" (the report's verdict table has all {len(flips)} dataset × metrics)."
        )
    return Sentence.of("Items: " + "; ".join(parts) + ".")


def _some(items: Sequence[str], noun: str) -> str:
    """The first :data:`MAX_DECISION_ITEMS` items, then how many more ``noun``."""
    shown = list(items[:MAX_DECISION_ITEMS])
    if len(items) > MAX_DECISION_ITEMS:
        shown.append(count(len(items) - MAX_DECISION_ITEMS, f"more {noun}"))
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def release_decision(comparison: ReleaseComparison) -> Sentence:
    """The release in one sentence, first: whether the candidate is better, the
    regressions and improvements with their size in the metric's units (baseline →
    candidate), what showed no detectable difference and what its interval leaves open
    (the interval each verdict is read off), and whether anything was not compared. The
    first words reflect the worst dataset × metric: never "is better" while a loss is
    left open somewhere."""
    c = comparison
    cand, base = Name(c.candidate), Name(c.baseline)
    if not c.verdicts:
        return Sentence.of(
            cand,
            " could not be compared with ",
            base,
            f": the two systems share no dataset × metric ({len(c.not_compared)} not "
            "compared, listed below).",
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
    head: Sentence
    if regressed:
        head = Sentence.of(cand, " is not better than ", base)
    elif c.not_compared:
        head = Sentence.of(
            cand,
            " was compared with ",
            base,
            f" on only {len(c.verdicts)} of {len(c.verdicts) + len(c.not_compared)} "
            "dataset × metrics",
        )
    elif c.partial:
        head = Sentence.of(
            cand,
            " was compared with ",
            base,
            f" on part of the items of {count(len(c.partial), 'dataset × metric')}",
        )
    elif inconclusive:
        head = Sentence.of(cand, " is not shown to be non-inferior to ", base)
    elif improved and any(_loss_left(v) > 0 for v in flat):
        others = len(c.verdicts) - len(improved)
        head = Sentence.of(
            cand,
            f" improved on {len(improved)} of {len(c.verdicts)} dataset × metrics over ",
            base,
            ", and a loss is not ruled out on the " + ("other" if others == 1 else "others"),
        )
    elif improved:
        head = Sentence.of(cand, " is better than ", base)
    elif noninferior and not flat:
        head = Sentence.of(cand, " is non-inferior to ", base)
    else:
        head = Sentence.of(cand, " is not detectably different from ", base)
    tail = ""
    if c.not_compared:
        names = [n.dataset if one_metric else n.name for n in c.not_compared]
        tail = f"; not compared on {_some(names, noun)}"
    if c.partial:
        names = [p.dataset if one_metric else p.name for p in c.partial]
        tail += f"; on part of the items only on {_some(names, noun)}"
    return Sentence.of(head, ": " + "; ".join(parts) + tail + ".")


def decision_style(comparison: ReleaseComparison) -> str:
    """The style of the decision block: ``regressed``, ``improved``, ``incomplete``
    (something was not compared, or a loss over a margin is not ruled out) or ``nodiff``
    (a non-inferior release is styled ``improved``: it passes)."""
    decision = comparison.decision
    if decision in ("incomplete", "not compared", "inconclusive"):
        return "incomplete"
    if decision == "non-inferior":
        return "improved"
    return decision if decision in ("regressed", "improved") else "nodiff"


def release_headline(comparison: ReleaseComparison) -> str:
    """The decision in a few plain words, for an e-mail subject: ``not better: regressed
    on MBPP by 9.0 pts``, ``better: improved on ...``, ``no detectable difference in 4
    comparisons``, with ``K of N not compared`` when the comparison is partial."""
    c = comparison
    one_metric = len({v.metric for v in c.verdicts}) == 1
    total = len(c.verdicts) + len(c.not_compared)
    missing = f"; {len(c.not_compared)} of {total} not compared" if c.not_compared else ""
    if c.partial:
        missing += f"; {len(c.partial)} on part of the items only"
    if not c.verdicts:
        return f"nothing compared: the two systems share none of {count(total, 'comparison')}"

    def first(items: Sequence[ReleaseVerdict]) -> str:
        more = f" and {len(items) - 1} more" if len(items) > 1 else ""
        return f"{_where(items[0], one_metric)} by {_size(items[0])}{more}"

    if c.regressions:
        return f"not better: regressed on {first(c.regressions)}{missing}"
    if c.inconclusive:
        v = c.inconclusive[0]
        what = (
            "a loss over the margin is not ruled out on"
            if v.margin is not None and not v.undecidable
            else "not decidable on"
        )
        return (
            f"not shown to be non-inferior: {what} {_where(v, one_metric)}"
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
        return f"non-inferior in {count(n, 'comparison')}{missing}"
    return f"no detectable difference in {count(n, 'comparison')}{missing}"


def not_compared_lines(comparison: ReleaseComparison) -> list[Sentence]:
    """One line per reason a dataset × metric was not compared, naming them and the
    systems there whose names are closest to the missing ones, then one per dataset ×
    metric compared on part of its items only (with the counts)."""
    by_reason: dict[str, list[str]] = {}
    closest_of: dict[str, list[str]] = {}
    for entry in comparison.not_compared:
        by_reason.setdefault(entry.reason, []).append(entry.name)
        closest_of.setdefault(entry.reason, []).extend(entry.closest)
    lines = []
    for reason, names in by_reason.items():
        closest = list(dict.fromkeys(closest_of[reason]))
        line = Sentence.of(f"{_listed(names, len(names))}: {reason}.")
        if closest:
            line = Sentence.of(
                line, " Closest names there: ", _names(closest), " (a renamed run?)."
            )
        lines.append(line)
    lines.extend(Sentence.of(f"{p.name}: {p.reason}.") for p in comparison.partial)
    return lines


def verdict_pieces(v: ReleaseVerdict) -> tuple[list[str], str]:
    """The numbers of one verdict as short pieces kept whole on a line (the e-mail's
    block, the console): the difference with the interval the verdict is read off (with
    its label), the p-value it is read off, baseline → candidate, the items lost and
    gained, the margin and the one-sided bound a verdict at a margin is read off; and
    what the reader must know about how it was reached."""
    p = v.proportion
    values = (
        f"{fmt.value(v.mean_baseline, proportion=p)} → {fmt.value(v.mean_candidate, proportion=p)}"
    )
    if v.direction == "lower":
        values += " (lower is better)"
    decided = v.decided_interval()
    parts = [
        f"Δ {fmt.difference(v.diff, proportion=p)} {decided.text(proportion=p)}",
        decided.label(),
        v.p_text(),
        values,
    ]
    if v.n_lost is not None:
        parts.append(f"lost {v.n_lost:,}, gained {v.n_gained or 0:,} items")
    if v.margin is not None:
        parts.append(
            f"margin {v.margin_text(signed=True)}" + (", equivalent" if v.equivalent else "")
        )
    bound = v.ni_interval()
    if bound is not None:
        parts.append(f"{bound.label()}: {bound.text(proportion=p)}")
    flags = []
    if v.skewed and not v.note:
        flags.append("heavily skewed differences: p and interval approximate")
    if v.note:
        flags.append(str(v.note))
    return parts, "; ".join(flags)


# --------------------------------------------------------------------------- battles


def share_with_interval(share: object, low: object, high: object) -> str:
    """A share of battles in percent with its interval in brackets.

    >>> share_with_interval(0.6547, 0.5139, 0.7786)
    '65.5% [51.4, 77.9]'
    """
    return f"{fmt.percent(share)} {fmt.interval(low, high, proportion=True)}"


def elo(value: object) -> str:
    """A rating on the Elo scale, in whole points (``1151``, ``−12``); ``–`` for NaN.

    >>> elo(1151.4), elo(float("nan"))
    ('1151', '–')
    """
    x = float(value)  # type: ignore[arg-type]
    return "–" if x != x else fmt.fixed(x, 1.0, 0)


def _rating(result: BattleResult, system: str) -> str:
    bt = result.ratings
    k = bt.systems.index(system)
    interval = f" [{elo(bt.ci_low[k])}, {elo(bt.ci_high[k])}]" if bt.n_resamples else ""
    return f"{elo(bt.rating[k])}{interval}"


def _pair_sentence(claim: BattleClaim, alpha: float) -> Sentence:
    """How the leader fares against the runner-up, from their claim."""
    a, b = Name(claim.system_a), Name(claim.system_b)
    decisive = claim.wins_a + claim.wins_b
    if claim.reason is not None:
        return Sentence.of(a, " and ", b, f" cannot be told apart: {claim.reason}")
    decided = claim.decided_interval(alpha)
    won = (
        f"won {claim.wins_a} of their {count(decisive, 'decisive battle')} "
        f"({fmt.percent(claim.estimate)}, {decided.label()} "
        f"{fmt.interval(decided.low, decided.high, proportion=True)}; "
        f"{fmt.p_equals(claim.p_adjusted, 'p adj.')})"
    )
    if claim.significant:
        return Sentence.of(a, " is better than ", b, f": it {won}")
    return Sentence.of(a, " is not distinguishable from ", b, f": it {won}")


def battle_findings(analysis: BattleAnalysis | None) -> list[Sentence]:
    """The key findings of the battles, one or two per dataset: the leader with its
    rating, the leader against the runner-up, and how many pairs differ."""
    if not analysis:
        return []
    lines = []
    correction = CORRECTION_NAMES.get(analysis.correction, analysis.correction)
    for result in analysis.results:
        judges = f" by {count(len(result.judges), 'judge')}" if result.judges else ""
        head = Sentence.of(
            f"{result.dataset} ({count(result.n_battles, 'battle')}{judges}): ",
            Name(result.leader),
            f" leads the Bradley-Terry ratings ({_rating(result, result.leader)} Elo)",
        )
        runner = result.systems[1] if len(result.systems) > 1 else None
        claim = None if runner is None else result.claim(result.leader, runner)
        if claim is not None:
            head = Sentence.of(head, "; ", _pair_sentence(claim, analysis.alpha))
        elif runner is not None:
            head = Sentence.of(
                head,
                "; it never met ",
                Name(runner),
                ", the runner-up, in a battle: their order rests on the battles with others",
            )
        lines.append(Sentence.of(head, "."))
        tested = [c for c in result.claims if c.reason is None]
        if len(tested) > 1:
            differ = sum(c.significant for c in tested)
            lines.append(
                Sentence.of(
                    f"{result.dataset}: {n_of(differ, len(tested), 'pair')} that met "
                    f"{verb(differ, 'differ', 'differs')} significantly ({correction}, "
                    f"α = {analysis.alpha:g}, exact sign test of the decisive battles)."
                )
            )
    return lines


def battles_lines(analysis: BattleAnalysis | None) -> list[Sentence]:
    """The console's lines of the battles (``reportgen analyze``): per dataset the
    leader and how many pairs differ, as the claims decided."""
    if not analysis:
        return []
    lines = []
    for result in analysis.results:
        tested = [c for c in result.claims if c.reason is None]
        differ = sum(c.significant for c in tested)
        lines.append(
            Sentence.of(
                f"battles: {result.dataset}: {count(result.n_battles, 'battle')}, ",
                Name(result.leader),
                f" leads ({elo(result.rating_of(result.leader))} Elo); "
                f"{n_of(differ, len(tested), 'pair')} {verb(differ, 'differ', 'differs')} "
                "significantly",
            )
        )
    return lines


def battles_note(analysis: BattleAnalysis) -> Sentence:
    """What the battles are, for the key findings' note."""
    battles = sum(r.n_battles for r in analysis.results)
    systems = {s for r in analysis.results for s in r.systems}
    correction = CORRECTION_NAMES.get(analysis.correction, analysis.correction)
    return Sentence.of(
        f"{count(battles, 'battle')} between {count(len(systems), 'system')} in "
        f"{count(len(analysis.results), 'dataset')} of battles; ratings are Bradley-Terry "
        "(Elo scale, ties as half wins) and a pair differs significantly when the sign test "
        f"of its decisive battles, adjusted with the {correction} correction, is at most "
        f"α = {analysis.alpha:g}."
    )


# --------------------------------------------------------------------------- benchmarks

#: Names of the systems tied with a leader written out before "and N more".
TIED_NAMES = 2


def tied_with_leader(b: BenchmarkLeader) -> str:
    """``21 of 48: a, b and 19 more``, or what the leader is ahead of: the systems not
    significantly different from a benchmark's leader, as its own comparisons decided."""
    others = b.n_systems - 1
    if others == 0:
        return "– (one system)"
    if not b.tied:
        if b.not_compared:
            return f"none of the {count(others - len(b.not_compared), 'other')} compared"
        return f"none: ahead of {'the other' if others == 1 else f'all {others:,} others'}"
    names = list(b.tied[:TIED_NAMES])
    if len(b.tied) > TIED_NAMES:
        names.append(f"{len(b.tied) - TIED_NAMES:,} more")
    return f"{len(b.tied):,} of {others:,}: {_listed(names, len(names))}"


def ranking_scope_line(leaders: Leaders) -> Sentence | None:
    """The ranking across datasets with its scope in the same sentence: "Across
    humaneval+ and mbpp+ (the 37 systems scored on both), **A** ranks first; 12 of the
    other 36 are not significantly different from it."; then, when the runner-up is not
    one of them, that the leader is significantly better than it. A ranking over one
    dataset is that dataset's own order: its scope is said without a ranking. None
    without a ranking."""
    r: RankingLeader | None = leaders.ranking
    if r is None:
        if leaders.n_datasets > 1:
            return Sentence.of("No ranking across datasets: fewer than 2 systems share a dataset.")
        return None
    if len(r.datasets) < 2:
        return Sentence.of(
            "No ranking across benchmarks: the largest set of systems scored on the same "
            f"benchmarks is the {r.n_ranked:,} of {r.datasets[0]} alone, so each benchmark "
            "is answered on its own (the table above)."
        )
    scope = "both" if len(r.datasets) == 2 else f"all {len(r.datasets)}"
    where = _listed(list(r.datasets), len(r.datasets))
    others = r.n_ranked - 1
    systems = (
        f"the {count(r.n_ranked, 'system')}"
        if r.n_ranked == leaders.n_systems
        else f"the {r.n_ranked:,} of {count(leaders.n_systems, 'system')}"
    )
    head = Sentence.of(
        f"Across {where} ({systems} scored on {scope}), ", Name(r.leader), " ranks first"
    )
    if not r.tied:
        return Sentence.of(head, " and is significantly better than every other one.")
    line = Sentence.of(
        head,
        f"; {len(r.tied):,} of the other {others:,} {verb(len(r.tied), 'are', 'is')} not "
        "significantly different from it.",
    )
    if r.ahead_of_runner_up and r.runner_up is not None:
        line = Sentence.of(
            line, " It is significantly better than the runner-up ", Name(r.runner_up), "."
        )
    return line

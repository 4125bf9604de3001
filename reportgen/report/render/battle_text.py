"""Sentences and table rows read off the battles' decided claims
(:mod:`reportgen.analysis.battles`): who leads, whether the leaders are told apart, how
many pairs differ. Formatting only: every number, test and decision comes from the
analysis.

>>> from reportgen.report.render.battle_text import share_with_interval
>>> share_with_interval(0.6547, 0.5139, 0.7786)
'65.5% [51.4, 77.9]'
"""

from __future__ import annotations

from typing import Any

from reportgen import format as fmt
from reportgen.analysis.battles import BattleAnalysis, BattleClaim, BattleResult
from reportgen.names import CORRECTION_NAMES
from reportgen.plaintext import count, verb
from reportgen.report.render.html import escape

__all__ = [
    "battle_findings",
    "battles_console",
    "battles_note",
    "claim_row",
    "elo",
    "rating_rows",
    "share_with_interval",
]


def share_with_interval(share: Any, low: Any, high: Any) -> str:
    """A share of battles in percent with its interval in brackets."""
    return f"{fmt.percent(share)} {fmt.interval(low, high, proportion=True)}"


def elo(value: Any) -> str:
    """A rating on the Elo scale, in whole points (``1151``, ``−12``); ``–`` for NaN."""
    x = float(value)
    return "–" if x != x else fmt.fixed(x, 1.0, 0)


def _rating(result: BattleResult, system: str) -> str:
    bt = result.ratings
    k = bt.systems.index(system)
    interval = f" [{elo(bt.ci_low[k])}, {elo(bt.ci_high[k])}]" if bt.n_resamples else ""
    return f"{elo(bt.rating[k])}{interval}"


def _pair_sentence(claim: BattleClaim) -> str:
    """How the leader fares against the runner-up, from their claim."""
    a, b = escape(claim.system_a), escape(claim.system_b)
    decisive = claim.wins_a + claim.wins_b
    if claim.reason is not None:
        return f"{a} and {b} cannot be told apart: {escape(claim.reason)}"
    won = (
        f"won {claim.wins_a} of their {count(decisive, 'decisive battle')} "
        f"({share_with_interval(claim.estimate, claim.ci_adjusted_low, claim.ci_adjusted_high)}"
        f", {escape(claim.interval_kind)} {fmt.percent(claim.confidence_adjusted)} interval"
        f"; {fmt.p_equals(claim.p_adjusted, 'adjusted p')})"
    )
    if claim.significant:
        return f"{a} beats {b}: it {won}"
    return f"{a} is not distinguishable from {b}: it {won}"


def battle_findings(analysis: BattleAnalysis) -> list[str]:
    """The key findings of the battles (HTML lines), one or two per dataset: the leader
    with its rating, the leader against the runner-up, and how many pairs differ."""
    lines = []
    correction = CORRECTION_NAMES.get(analysis.correction, analysis.correction)
    for result in analysis.results:
        judges = f" by {count(len(result.judges), 'judge')}" if result.judges else ""
        head = (
            f"<b>{escape(result.dataset)}</b> ({count(result.n_battles, 'battle')}{judges}): "
            f"{escape(result.leader)} leads the Bradley-Terry ratings "
            f"({_rating(result, result.leader)} Elo)"
        )
        runner = result.systems[1] if len(result.systems) > 1 else None
        claim = None if runner is None else result.claim(result.leader, runner)
        if claim is not None:
            head += "; " + _pair_sentence(claim)
        elif runner is not None:
            head += (
                f"; it never met {escape(runner)}, the runner-up, in a battle: their order "
                "rests on the battles with others"
            )
        lines.append(head + ".")
        tested = [c for c in result.claims if c.reason is None]
        if len(tested) > 1:
            differ = sum(c.significant for c in tested)
            lines.append(
                f"{escape(result.dataset)}: {differ} of {count(len(tested), 'pair')} that met "
                f"{verb(len(tested), 'differ', 'differs')} significantly ({escape(correction)}, "
                f"α = {analysis.alpha:g}, exact "
                "sign test of the decisive battles)."
            )
    return lines


def battles_console(analysis: BattleAnalysis) -> str:
    """The console's lines of the battles (``reportgen analyze``): per dataset the
    leader and how many pairs differ, as the claims decided."""
    lines = []
    for result in analysis.results:
        tested = [c for c in result.claims if c.reason is None]
        differ = sum(c.significant for c in tested)
        lines.append(
            f"battles: {result.dataset}: {count(result.n_battles, 'battle')}, "
            f"{result.leader} leads ({elo(result.rating_of(result.leader))} Elo); "
            f"{differ} of {count(len(tested), 'pair')} "
            f"{verb(len(tested), 'differ', 'differs')} significantly\n"
        )
    return "".join(lines)


def battles_note(analysis: BattleAnalysis) -> str:
    """What the battles are, for the key findings' note (HTML)."""
    battles = sum(r.n_battles for r in analysis.results)
    systems = {s for r in analysis.results for s in r.systems}
    correction = CORRECTION_NAMES.get(analysis.correction, analysis.correction)
    return (
        f"{count(battles, 'battle')} between {count(len(systems), 'system')} in "
        f"{count(len(analysis.results), 'dataset')} of battles; ratings are Bradley-Terry "
        "(Elo scale, ties as half wins) and a pair differs significantly when the sign test "
        f"of its decisive battles, adjusted with the {escape(correction)} correction, is at "
        f"most α = {analysis.alpha:g}."
    )


def rating_rows(result: BattleResult) -> list[dict[str, Any]]:
    """The rows of a ratings table, best first."""
    bt = result.ratings
    played = result.counts.played.sum(axis=1)
    rows = []
    for k, system in enumerate(bt.systems):
        rows.append(
            {
                "rank": k + 1,
                "system": system,
                "rating": elo(bt.rating[k]),
                "interval": f"[{elo(bt.ci_low[k])}, {elo(bt.ci_high[k])}]"
                if bt.n_resamples
                else "–",
                "battles": int(played[result.systems.index(system)]),
            }
        )
    return rows


def claim_row(claim: BattleClaim) -> dict[str, Any]:
    """One pair's row: the battles, the share A won with its adjusted interval, the
    p-values and the decision, as the claim holds them."""
    return {
        "pair": f"{claim.system_a} vs {claim.system_b}",
        "record": f"{claim.wins_a}–{claim.wins_b}–{claim.ties}",
        "share": "–"
        if claim.estimate is None
        else share_with_interval(claim.estimate, claim.ci_adjusted_low, claim.ci_adjusted_high),
        "p": fmt.p_value(claim.p_value),
        "p_adjusted": fmt.p_value(claim.p_adjusted),
        "decision": "significant"
        if claim.significant
        else ("not testable" if claim.reason else "not significant"),
    }

"""Table rows of the battles' decided claims (:mod:`reportgen.analysis.battles`): the
ratings and each pair's record. Formatting only: every number, test and decision comes
from the analysis, every sentence from the ledger's words
(:mod:`reportgen.analysis.ledger.words`).
"""

from __future__ import annotations

from typing import Any

from reportgen import format as fmt
from reportgen.analysis.battles import BattleClaim, BattleResult
from reportgen.analysis.ledger.words import elo, share_with_interval

__all__ = ["claim_row", "rating_rows"]


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

"""The battles section: ratings, the pairs decided from their battles, the win-rate matrix.

Inputs with pairwise outcomes (arena votes, MT-bench pairwise judgments) are analysed
by :func:`reportgen.analysis.battles.analyze_battles`; this module shows that analysis
and decides nothing: every rating, interval, p-value and decision is the analysis'.
"""

from __future__ import annotations

from functools import partial

from reportgen import format as fmt
from reportgen.analysis.battles import ESTIMATE, BattleResult
from reportgen.names import CORRECTION_NAMES
from reportgen.plaintext import count
from reportgen.report.render.battle_text import claim_row, rating_rows
from reportgen.report.render.html import Col, HTMLBlock, escape, h3, note, section, slug, table
from reportgen.report.sections._base import MAX_BT_SYSTEMS, Report, _try_chart, _with_figures

__all__ = ["battles"]

#: Systems up to which the win-rate matrix is shown as a table (all in results.json).
MATRIX_SYSTEMS = 12

_RATING_COLUMNS = [
    Col("rank", "#", numeric=True),
    Col("system", "system"),
    Col("rating", "rating (Elo)", numeric=True),
    Col("interval", "bootstrap interval", numeric=True),
    Col("battles", "battles", fmt=lambda v: escape(fmt.count(v)), numeric=True),
]
_PAIR_COLUMNS = [
    Col("pair", "A vs B"),
    Col("record", "A won–B won–ties", numeric=True),
    Col("share", "A's share of decisive battles [adjusted interval]", numeric=True),
    Col("p", "p", numeric=True),
    Col("p_adjusted", "p adj.", numeric=True),
    Col("decision", "decision"),
]


@_with_figures
def battles(report: Report) -> HTMLBlock | None:
    """Per dataset of battles: the Bradley-Terry ratings with their intervals (table and
    chart), each pair's claim from the battles between them, and the win-rate matrix."""
    analysis = report.analysis.battles
    if not analysis:
        return None
    correction = CORRECTION_NAMES.get(analysis.correction, analysis.correction)
    family = (
        "every comparison of the analysis"
        if analysis.family == "analysis"
        else "the pairs of each dataset of battles"
    )
    body = [
        note(
            "Ratings: Bradley-Terry maximum likelihood on the Elo scale (mean 1000), each tie "
            "counted as half a win for each side as Chatbot Arena does, with bootstrap "
            f"{report.confidence:.0%} intervals from resampling the battles. Pairs: the exact "
            "sign test of the decisive battles between the two (ties left out); the "
            f"estimate is the {ESTIMATE} with its Clopper-Pearson interval at the level the "
            f"{escape(correction)} correction decided it (family: {family}, α = "
            f"{analysis.alpha:g}): it excludes 50% exactly when the pair is significant. A is "
            "the higher-rated system of each pair."
        )
    ]
    for result in analysis.results:
        body.extend(_dataset(result, report))
    return section("Battles", body, sid="battles")


def _dataset(result: BattleResult, report: Report) -> list[str]:
    from reportgen.charts import bradley_terry_chart

    judges = f", {count(len(result.judges), 'judge')}" if result.judges else ""
    out = [
        h3(result.dataset, slug("battles", result.dataset)),
        note(
            f"{count(result.n_battles, 'battle')} between {count(len(result.systems), 'system')}"
            f"{judges}."
        ),
        table(rating_rows(result), _RATING_COLUMNS, stack=True),
    ]
    if len(result.systems) <= MAX_BT_SYSTEMS and result.ratings.n_resamples:
        out.append(
            _try_chart(
                partial(
                    bradley_terry_chart,
                    result.ratings,
                    title=f"{result.dataset}: Bradley-Terry ratings",
                ),
                f"Ratings with bootstrap {report.confidence:.0%} intervals from "
                f"{result.ratings.n_resamples:,} resamples of the battles.",
                report,
            )
        )
    claims = sorted(result.claims, key=lambda c: (not c.significant, c.p_value or 1.0))
    shown = claims[: report.max_table_rows]
    more = (
        f" The {len(shown)} pairs with the smallest p-values of {len(claims)} are listed; "
        "every pair is in results.json (<code>battles</code>)."
        if len(shown) < len(claims)
        else ""
    )
    out.append(
        table(
            [claim_row(c) for c in shown],
            _PAIR_COLUMNS,
            caption=f"{result.dataset}: each pair that met, significant pairs first.{more}",
            stack=True,
        )
    )
    if len(result.systems) <= MATRIX_SYSTEMS:
        out.append(_matrix(result))
    out.extend(note(escape(n)) for n in result.notes)
    return out


def _matrix(result: BattleResult) -> str:
    """The share of decisive battles the row system won against the column system."""
    share = result.counts.decisive_share()
    played = result.counts.played
    rows = []
    columns = [Col("system", "row won vs column")]
    columns.extend(Col(f"c{j}", f"{j + 1}", numeric=True) for j in range(len(result.systems)))
    for i, name in enumerate(result.systems):
        row: dict[str, str] = {"system": f"{i + 1}. {name}"}
        for j in range(len(result.systems)):
            row[f"c{j}"] = "" if i == j or played[i, j] == 0 else fmt.percent(share[i, j])
        rows.append(row)
    return table(
        rows,
        columns,
        caption=f"{result.dataset}: the share of their decisive battles (ties left out) the row "
        "system won against the column system; empty where they never met.",
    )

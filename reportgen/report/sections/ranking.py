"""The ordered ranking across datasets (:func:`across_datasets`)."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from reportgen import format as fmt
from reportgen.analysis.results import RankingAcrossLists
from reportgen.plaintext import count
from reportgen.report.render.html import (
    Col,
    HTMLBlock,
    charts_row,
    effect_cell,
    escape,
    h3,
    note,
    num_cell,
    p_cell,
    section,
    table,
)
from reportgen.report.sections._base import (
    MAX_GRAPH_SYSTEMS,
    MIN_FRIEDMAN_LISTS,
    Report,
    _try_chart,
    _with_figures,
)


@_with_figures
def across_datasets(report: Report) -> HTMLBlock | None:
    """The ordered ranking across datasets and metrics (Ackerman et al. 2025): graph, cliques,
    harmonic-mean p, sign tests and the Friedman/Nemenyi critical difference."""
    rk = report.analysis.ranking
    if rk is None or len(rk.lists) < 2:
        return None
    n_systems, n_lists = len(rk.systems), len(rk.lists)
    body = [
        f"<p>{n_systems} systems ordered over {n_lists} lists "
        f"({', '.join(escape(x) for x in rk.lists)}). Pairwise evidence: "
        f"{escape(rk.method)}.</p>"
    ]
    neighbours = {frozenset(p) for p in zip(rk.systems[:-1], rk.systems[1:])}
    body += _ranking_graph(report, rk)
    body += _combined_pairs(report, rk, neighbours)
    body += _friedman(report, rk)
    body += _sign_tests(report, rk, neighbours)
    return section("Across datasets", body, sid="across-datasets")


def _ranking_graph(report: Report, rk: RankingAcrossLists) -> list[str]:
    """The graph of indistinguishable systems and its cliques (up to
    :data:`MAX_GRAPH_SYSTEMS` systems), else a note."""
    from reportgen.charts import clique_chart, connected_graph_chart

    n_systems, n_lists = len(rk.systems), len(rk.lists)
    body: list[str] = []
    # the lists are aggregated as standardised means (Ackerman et al. 2025, §4.3)
    axis = "standardised mean (SD units)"
    if n_systems <= MAX_GRAPH_SYSTEMS:
        body.append(
            charts_row(
                _try_chart(
                    partial(
                        connected_graph_chart,
                        rk.graph,
                        title=f"Across {n_lists} lists: systems by standardised mean",
                        value_title=axis,
                    ),
                    "An arc joins two systems whose combined evidence is not significant.",
                    report,
                ),
                _try_chart(
                    partial(
                        clique_chart,
                        rk.graph,
                        title=f"Across {n_lists} lists: groups of systems",
                        value_title=axis,
                    ),
                    "Maximal cliques of the graph.",
                    report,
                ),
            )
        )
    else:
        body.append(
            note(
                f"{count(n_systems, 'system')}: the graph of indistinguishable systems "
                "is replaced by the tie groups of the Results table (systems sharing "
                "a tie group are not significantly different)."
            )
        )
    return body


def _combined_pairs(
    report: Report, rk: RankingAcrossLists, neighbours: set[frozenset[str]]
) -> list[str]:
    """The harmonic-mean p and combined effect size of each pair (only the neighbours
    in the order when there are more than the table shows)."""
    body: list[str] = []
    ranking = report.analysis.ledger.ranking
    assert ranking is not None
    pairs: list[dict[str, Any]] = [
        {
            "system_a": a,
            "system_b": b,
            "p_adjusted": math.nan if p is None else p,
            "effect_size": e,
            "significant": sig,
        }
        for a, b, p, sig, e in ranking.pairs()
    ]
    if len(pairs) > report.max_table_rows:
        pairs = [p for p in pairs if frozenset((p["system_a"], p["system_b"])) in neighbours]
    else:
        pairs.sort(key=lambda p: (math.isnan(float(p["p_adjusted"])), float(p["p_adjusted"])))
    body.append(
        note(
            "The harmonic-mean p combines the lists' p-values assuming they "
            "are independent (different items in each list); it is slightly "
            "optimistic when the same items enter several lists."
        )
    )
    body.append(
        table(
            pairs,
            [
                Col("system_a", "A"),
                Col("system_b", "B"),
                Col("significant", "", lambda v: "significant" if v else "–"),
                Col("p_adjusted", "harmonic-mean p (adj.)", p_cell, True),
                Col("effect_size", "combined effect size", effect_cell, True),
            ],
        )
    )
    return body


def _friedman(report: Report, rk: RankingAcrossLists) -> list[str]:
    """The Friedman test and the critical-difference diagram (from MIN_FRIEDMAN_LISTS lists)."""
    from reportgen.charts import critical_difference_chart

    n_lists = len(rk.lists)
    body: list[str] = []
    fn = rk.friedman
    if fn is not None and n_lists >= MIN_FRIEDMAN_LISTS:
        body.append(h3("Friedman test and critical difference", "critical-difference"))
        body.append(
            f"<p>Friedman χ² = {num_cell(fn.statistic)}, {escape(fmt.p_equals(fn.p_value))} "
            f"over {n_lists} lists; "
            f"Nemenyi critical difference {num_cell(fn.critical_difference, 3)} "
            "in mean rank.</p>"
        )
        body.append(
            charts_row(
                _try_chart(
                    partial(
                        critical_difference_chart,
                        fn,
                        title=f"Across {n_lists} lists: critical difference diagram",
                    ),
                    "Mean rank over lists; systems joined by a bar are "
                    "within the critical difference.",
                    report,
                )
            )
        )
    elif fn is not None:
        body.append(
            note(
                f"Friedman test and critical-difference diagram: not drawn "
                f"over {n_lists} lists (at least {MIN_FRIEDMAN_LISTS} needed for "
                f"ranks over lists to mean something; Demšar 2006). They are in "
                f"results.json."
            )
        )
    return body


def _sign_tests(
    report: Report, rk: RankingAcrossLists, neighbours: set[frozenset[str]]
) -> list[str]:
    """Wins across lists with their sign tests, where the sign test can reach α."""
    n_lists = len(rk.lists)
    body: list[str] = []
    signs = []
    if rk.sign_tests is not None and rk.sign_index is not None:
        st = rk.sign_tests
        signs = [
            {
                "system_a": rk.systems[i],
                "system_b": rk.systems[j],
                "wins_a": int(wa),
                "wins_b": int(wb),
                "p_value": p,
            }
            for i, j, wa, wb, p in zip(*rk.sign_index, st.wins_a, st.wins_b, st.p_value)
        ]
    if signs and rk.sign_tests_decidable:
        body.append(h3("Wins across lists (sign test)", "sign-tests"))
        shown = (
            [s for s in signs if frozenset((s["system_a"], s["system_b"])) in neighbours]
            if len(signs) > report.max_table_rows
            else signs
        )
        body.append(
            table(
                shown,
                [
                    Col("system_a", "A"),
                    Col("system_b", "B"),
                    Col("wins_a", "lists A wins", str, True),
                    Col("wins_b", "lists B wins", str, True),
                    Col("p_value", "sign test p", p_cell, True),
                ],
            )
        )
        body.append(
            note(
                "“A wins on more lists than B” needs the sign test; it ignores "
                "the size of the differences."
            )
        )
    elif signs:
        body.append(
            note(
                f"Wins across lists: with {n_lists} lists the sign test cannot "
                f"reach α = {rk.alpha:g} (its smallest p-value is "
                f"{2.0 ** (1 - n_lists):.3g}), so its table is left out; the counts are in "
                "results.json."
            )
        )
    return body

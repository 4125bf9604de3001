"""Per dataset × metric: the systems with intervals, the pairwise table, graph and
PWPP (:func:`per_sample_list`), and the comparisons across metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from reportgen import format as fmt
from reportgen.analysis.ledger import UnitLedger, tie_heading, tie_labels
from reportgen.analysis.results import PairwiseResult, UnitResult
from reportgen.plaintext import count, n_of
from reportgen.report.render.html import (
    Col,
    HTMLBlock,
    Tab,
    charts_row,
    count_cell,
    effect_cell,
    escape,
    h3,
    note,
    num_cell,
    p_cell,
    print_only,
    screen_only,
    section,
    slug,
    table,
    tabs,
)
from reportgen.report.sections._base import (
    MAX_GRAPH_SYSTEMS,
    MAX_PWPP_SYSTEMS,
    TOPSIS_SHOWN_BELOW,
    Report,
    _caveats,
    _direction_word,
    _list_title,
    _rank_ci,
    _sample_lists,
    _sorted_by_quality,
    _standardised_cell,
    _try_chart,
    _unit_print_rows,
    _why,
    _with_figures,
)

# --------------------------------------------------------------------------- per list


@_with_figures
def per_sample_list(report: Report) -> HTMLBlock | None:
    """For each dataset × metric: the systems with intervals, the pairwise table, the
    connected graph of non-significant pairs with its cliques, and the PWPP."""
    # one unit at a time on screen (a tab per dataset × metric), every one in print
    panels = [
        Tab(
            slug("list", sl.dataset, sl.metric),
            sl.dataset,
            sl.metric,
            "\n".join(part for part in _sample_list(report, sl) if part),
        )
        for sl in _sample_lists(report)
    ]
    body = [tabs(panels, label="Dataset × metric shown")]
    orientation = (
        "A is the candidate and B the baseline: differences are candidate − baseline"
        if report.analysis.release is not None
        else "A is the higher-ranked system of each pair (rows in rank order); A − B is "
        "on the metric's own scale, so it is negative where lower is better"
    )
    family = report.analysis.ledger.family
    return section(
        "Per dataset × metric",
        body,
        sid="per-dataset-metric",
        intro=f"{orientation}; proportions are in percent and their "
        "differences in percentage points (pts). “p adj.” is the p-value after the "
        f"multiple-comparison correction ({escape(family.describe())}) and the "
        f"adjusted interval beside it ({escape(family.intervals_text())}) agrees with "
        "it: it excludes 0 exactly when the pair is significant; “p (unadj.)” is the "
        "raw p-value. The marginal "
        f"{report.confidence:.0%} intervals, which go with the raw p-values, are in "
        f"<code>{_comparisons_file(report)}</code>.",
        fold=f"{count(len(_sample_lists(report)), 'dataset × metric')}: systems with "
        "intervals and rank intervals, pairwise tests, graphs",
    )


def _sample_list(report: Report, sl: UnitResult) -> list[str]:
    """One dataset × metric: its heading and design line, its caveats, the systems with
    their intervals, rank intervals and tie groups, the pairs, and the graph and PWPP."""
    from reportgen.charts import connected_graph_chart, pwpp_chart

    body: list[str] = []
    result = sl.comparisons
    assert result is not None
    sid = slug("list", sl.dataset, sl.metric)
    body.append(h3(_list_title(sl), sid))
    unit = report.analysis.ledger.unit(sl.dataset, sl.metric)
    assert unit is not None and unit.claims is not None
    claims = unit.claims
    test = result.test
    body.append(
        f"<p>{escape(sl.pairing)} · {escape(sl.modality)} · "
        f"{escape(_direction_word(sl.direction))} · test: {escape(test)} "
        f"({escape(_why(sl))}) · "
        f"{n_of(claims.n_significant, len(claims), 'pair')} significant"
        + (
            ""
            if not sl.n_excluded_items
            else f" · {count(sl.n_excluded_items, 'item')} excluded (not shared)"
        )
        + "</p>"
    )
    rows = _sorted_by_quality(sl.system_records(), sl.direction)
    # degenerate or skewed comparisons are said where the comparisons are shown
    told = [x for x in (sl.degenerate_reason, sl.skewed_note) if x]
    body.append(_caveats([*told, *sl.caveats]))
    cld = None if sl.ranks is None else sl.ranks.letters
    letters = tie_labels(cld)
    ranks = _rank_ci(sl)
    for row in rows:
        row["letters"] = letters.get(row["system"], "")
        row["rank_ci"] = ranks.get(row["system"], "")
    proportion = bool(sl.proportion)
    cols = [
        Col("system", "system"),
        Col("mean", "mean", partial(fmt.value, proportion=proportion), True),
        Col("ci", f"{report.confidence:.0%} CI", escape, True),
        Col("n", "n", count_cell, True),
    ]
    for row in rows:
        row["ci"] = fmt.interval(row.get("ci_low"), row.get("ci_high"), proportion=proportion)
    if ranks:
        cols.append(Col("rank_ci", "rank [CI]", escape, True))
    if letters:
        cols.append(Col("letters", tie_heading(cld)))
    printed = _unit_print_rows(report)
    body.append(table(rows, cols, print_rows=printed))
    if len(rows) > printed:
        body.append(
            print_only(
                note(
                    f"The PDF lists the best {printed} of the {len(rows)} systems (and the "
                    "pairs among them below); the HTML report and "
                    "<code>tables/systems.csv</code> have all of them."
                )
            )
        )
    body.append(_pairwise_table(report, unit, [r["system"] for r in rows], printed))
    figures = []
    if sl.graph is not None and 3 <= len(sl.graph.systems) <= MAX_GRAPH_SYSTEMS:
        figures.append(
            _try_chart(
                partial(
                    connected_graph_chart,
                    sl.graph,
                    title=f"{sl.dataset} / {sl.metric}: systems by mean",
                    value_title=f"mean {sl.metric}" + (" (%)" if sl.proportion else ""),
                    scale=100.0 if sl.proportion else 1.0,
                ),
                "Systems at their mean; an arc joins two systems that are not "
                "significantly different (the thicker, the larger its adjusted p).",
                report,
                phone="table",
            )
        )
    if (
        isinstance(result, PairwiseResult)
        and len(result.systems) >= 3
        and len(result.systems) <= MAX_PWPP_SYSTEMS
    ):
        pwpp = _try_chart(
            partial(
                pwpp_chart,
                list(claims),
                level=report.analysis.ledger.family.alpha,
                direction=sl.direction,
                title=f"{sl.dataset} / {sl.metric}: pairwise p-values",
            ),
            "Pairwise p-value plot: adjusted p-values of every pair on the emmeans "
            "scale, placed between the two means (HTML report only).",
            report,
            phone="table",
        )
        figures.append(screen_only(pwpp))
    body.append(charts_row(*figures))
    return body


def _comparisons_file(report: Report) -> str:
    """Where every pair is written: ``tables/comparisons.csv``, or the Parquet file when
    there are more than :data:`reportgen.report.folder.tables.TABLE_ROWS_MAX` comparisons."""
    from reportgen.report.folder.tables import TABLE_ROWS_MAX

    n = sum(
        int(u.comparisons.n_pairs) for u in report.analysis.compared if u.comparisons is not None
    )
    return f"tables/comparisons.{'parquet' if n > TABLE_ROWS_MAX else 'csv'}"


def _pairwise_table(report: Report, unit: UnitLedger, order: Sequence[str], printed: int) -> str:
    """The unit's claims as a table: the decision beside each pair, the difference with
    the interval the decision is read off (its label in the heading), the adjusted and
    the raw p; each system against the next in the ranking when there are more than
    ``max_table_rows`` pairs, and then the PDF lists those among the first ``printed``
    systems."""
    assert unit.claims is not None
    total = len(unit.claims)
    footer = ""
    print_rows = None
    if total <= report.max_table_rows:
        claims = list(unit.claims)
    else:  # the neighbours' claims only, picked by column (500,000 pairs at 1,000 systems)
        print_rows = max(printed - 1, 1)
        neighbours = {frozenset(p) for p in zip(order[:-1], order[1:])}
        pairs = zip(unit.claims.system_a(), unit.claims.system_b())
        claims = [unit.claims[k] for k, p in enumerate(pairs) if frozenset(p) in neighbours]
        footer = note(
            f"{total:,} pairs: the table shows each system against the next in the "
            f"ranking; every pair is in <code>{_comparisons_file(report)}</code>"
            + (" and results.json." if _comparisons_file(report).endswith(".csv") else ".")
        )
    proportion = bool(unit.proportion)
    labels = list(dict.fromkeys(c.adjusted.short_label() for c in claims))
    cols = [
        Col("system_a", "A"),
        Col("system_b", "B"),
        # the decision beside the pair: in view on a phone before any scrolling
        Col("verdict", "", escape, css=lambda r: "sig" if r["significant"] else ""),
        Col("diff", "A − B", partial(fmt.difference, proportion=proportion), True),
        Col("ci", labels[0] if len(labels) == 1 else "adjusted interval", escape, True),
        Col("p_adjusted", "p adj.", p_cell, True),
        Col("p_value", "p (unadj.)", p_cell, True),
        Col("effect", "effect size", escape, True),
    ]
    if any(c.note for c in claims):
        cols.append(Col("note", "note", escape))
    shown = [
        {
            "system_a": c.system_a,
            "system_b": c.system_b,
            "significant": c.significant,
            "diff": c.diff,
            "ci": c.adjusted.text(proportion=proportion),
            "p_adjusted": c.p_adjusted,
            "p_value": c.p_value,
            "effect": f"{effect_cell(c.effect_size)} {escape(c.effect_size_kind or '')}".strip(),
            "verdict": c.outcome() if c.significant or c.approximate else "–",
            "note": c.note or "",
        }
        for c in claims
    ]
    return table(shown, cols, print_rows=print_rows) + footer


# --------------------------------------------------------------------------- across metrics


@_with_figures
def across_metrics(report: Report) -> HTMLBlock | None:
    """The p-value heatmap of pairs × metrics and the metric aggregate of each dataset
    (Ackerman et al. 2025), with the TOPSIS cross-check."""
    from reportgen.charts import pvalue_heatmap, topsis_scatter

    aggregates = [a for a in report.analysis.aggregates if len(a.metrics) >= 2]
    if not aggregates:
        return None
    ledger = report.analysis.ledger
    body = []
    for agg in aggregates:
        dataset = agg.dataset
        body.append(h3(f"{dataset}: {len(agg.metrics)} metrics", slug("metrics", dataset)))
        claims = [c for m in agg.metrics for c in ledger.claims(dataset, m)]
        figures = [
            screen_only(
                _try_chart(
                    partial(
                        pvalue_heatmap,
                        claims,
                        columns="metric",
                        max_pairs=60,
                        title=f"{dataset}: adjusted p-values by metric",
                    ),
                    "Adjusted p-value of each pair on each metric; the colour marks which "
                    "system is better where the difference is significant (HTML report only).",
                    report,
                    phone="table",
                )
            )
        ]
        check = next((t for t in report.analysis.topsis if t.dataset == dataset), None)
        if check is not None and check.agreement.tau < TOPSIS_SHOWN_BELOW:
            scores = dict(zip(agg.systems, agg.means))
            figures.append(
                _try_chart(
                    partial(
                        topsis_scatter,
                        check.result,
                        [scores[s] for s in check.result.systems],
                        tau=check.agreement.tau,
                    ),
                    "TOPSIS closeness against the aggregate score: a cross-check of the "
                    f"aggregation (Hwang & Yoon 1981), shown because its order disagrees "
                    f"(Kendall τ = {check.agreement.tau:.2f}).",
                    report,
                    phone="table",
                )
            )
        elif check is not None:
            body.append(
                note(
                    f"TOPSIS cross-check (Hwang & Yoon 1981): Kendall τ = "
                    f"{check.agreement.tau:.2f} with the aggregate order, so it "
                    "is not drawn."
                )
            )
        body.append(charts_row(*figures))
        sys_rows = sorted(
            ({"system": s, "mean": m} for s, m in zip(agg.systems, agg.means)),
            key=lambda s: -s["mean"],
        )
        body.append(
            table(
                sys_rows,
                [
                    Col("system", "system"),
                    # standardised scores: one scale for the column, three decimals
                    # (significant digits gave 0.4199 beside 0.004604)
                    Col("mean", "aggregate (standardised)", _standardised_cell, True),
                ],
            )
        )
        weights = ", ".join(
            f"{escape(m)} ({escape(d)}, weight {num_cell(w, 3)})"
            for m, d, w in zip(agg.metrics, agg.directions, agg.weights)
        )
        body.append(
            note(
                f"Aggregate: each metric standardised over the pooled scores, "
                f"signed by its direction and averaged with weights: {weights}."
            )
        )
    return section(
        "Across metrics",
        body,
        sid="across-metrics",
        fold="p-values by metric and the metric aggregate of each dataset",
    )

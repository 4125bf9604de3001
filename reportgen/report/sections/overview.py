"""The first pages: the key findings (:func:`summary`) and the central results matrix
(:func:`results_matrix`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from reportgen.analysis.ledger.ties import tie_labels
from reportgen.plaintext import count
from reportgen.report.render.html import (
    HTMLBlock,
    charts_row,
    escape,
    note,
    print_only,
    section,
)
from reportgen.report.sections._base import (
    MATRIX_COLUMNS,
    MATRIX_PRINT_ROWS,
    Report,
    _try_chart,
    _with_figures,
)

# --------------------------------------------------------------------------- Summary


@_with_figures
def summary(report: Report) -> HTMLBlock | None:
    """Key findings, first: who leads, whether the leaders are distinguishable, the
    largest reliable gaps, the noise floor, in plain sentences and the metric's units
    (:func:`reportgen.analysis.ledger.words.key_findings`). The table of contents follows it."""
    from reportgen.analysis.ledger.words import battle_findings, battles_note, key_findings
    from reportgen.report.export import CONTENTS_MARKER

    analysis = report.analysis
    table_ = report.table
    ledger = analysis.ledger
    lines = [line.html() for line in [*key_findings(ledger), *battle_findings(analysis.battles)]]
    body: list[str] = []
    if lines:
        body.append(
            '<div class="rg-findings"><ul>'
            + "".join(f"<li>{line}</li>" for line in lines)
            + "</ul></div>"
        )
    n_units = len(analysis.compared)
    if analysis.battles:
        body.append(note(battles_note(analysis.battles).html()))
    if table_.datasets or not analysis.battles:
        body.append(
            note(
                f"{count(len(table_.systems), 'system')}, "
                f"{count(len(table_.datasets), 'dataset')}, "
                f"{count(len(table_.metrics), 'metric')} "
                f"({count(n_units, 'dataset × metric')} compared); "
                f"{report.confidence:.0%} intervals; a difference is significant when its "
                f"adjusted p-value is at most α = {ledger.family.alpha:g} (family: "
                f"{escape(ledger.family.describe())}). Proportions are shown in percent and "
                "their differences in percentage points (pts)."
            )
        )
    if report.warnings:
        body.append(
            f'<div class="rg-warning">{count(len(report.warnings), "warning")} while '
            'reading and analysing the data: see <a href="#data">Data</a>.</div>'
        )
    block = section("Key findings", body, sid="summary")
    return None if block is None else HTMLBlock(block.html + CONTENTS_MARKER)


#: Systems drawn in the overview chart (all of them are in the matrix).
OVERVIEW_SYSTEMS = 30


@_with_figures
def results_matrix(report: Report) -> HTMLBlock | None:
    """The central table: systems × dataset × metric of real values with intervals and
    tie-group letters, in the order of the overall ranking, the best value of each
    column in bold; and the overview chart (means with intervals, small multiples)."""
    from reportgen.charts.overview import means_overview_chart
    from reportgen.report.render.findings import central_matrix, overall_order

    analysis = report.analysis
    columns, cells = central_matrix(analysis)
    if not columns:
        return None
    order = [s for s in overall_order(analysis) if s in cells]
    ranking = analysis.ranking
    ranked = {} if ranking is None else {s: k + 1 for k, s in enumerate(ranking.systems)}
    # one lettering per list: over one list the cells' tie groups are the ranking's
    overall_letters = (
        {} if ranking is None or len(ranking.lists) < 2 else tie_labels(ranking.letters)
    )
    body = [
        _matrix_table(part, cells, order, ranked, overall_letters)
        for part in _column_chunks(columns)
    ]
    if len(order) > MATRIX_PRINT_ROWS:
        body.append(
            print_only(
                note(
                    f"The PDF lists the first {MATRIX_PRINT_ROWS} of the {len(order)} systems; the "
                    "HTML report lists all of them, and <code>tables/systems.csv</code> holds "
                    "every mean and interval."
                )
            )
        )
    what = [
        "Each cell: the mean (percent for proportions) with its "
        f"{report.confidence:.0%} interval; bold: the best value of the column; ↑/↓: "
        "higher or lower is better."
    ]
    if any(cells[n][j].letters for n in order for j in cells[n]):
        what.append(
            "Superscripts: tie groups of that dataset × metric (letters; numbers "
            "when there are more than 8 groups): systems sharing one are not "
            "significantly different (compact letter display)."
        )
    if ranking is not None:
        what.append(
            f"Rows follow the ranking across {count(len(ranking.lists), 'dataset')} "
            + ("(#, with its own tie groups after the name)" if overall_letters else "(#)")
            + (
                "; systems outside it follow by their mean position."
                if len(ranked) < len(order)
                else "."
            )
        )
    else:
        what.append("Rows follow each system's mean position over the dataset × metrics.")
    if len(body) > 1:
        what.append(
            # no count: the PDF splits a table too wide for its page further
            f"The {len(columns)} dataset × metrics are split into tables of the same rows."
        )
    body.append(note(" ".join(what)))
    shown = order[:OVERVIEW_SYSTEMS]
    chart_rows = []
    for j, c in enumerate(columns):
        scale = 100.0 if c.proportion else 1.0
        panel = c.label + (" (%)" if c.proportion else "")
        for name in shown:
            cell = cells[name].get(j)
            if cell is None:
                continue
            chart_rows.append(
                {
                    "panel": panel,
                    "system": name,
                    "mean": cell.mean * scale,
                    "ci_low": cell.ci_low * scale,
                    "ci_high": cell.ci_high * scale,
                    "best": cell.best,
                }
            )
    if chart_rows:
        more = (
            f" The first {len(shown)} of {len(order)} systems are drawn; all are in the table."
            if len(shown) < len(order)
            else ""
        )
        body.append(
            charts_row(
                _try_chart(
                    partial(
                        means_overview_chart,
                        chart_rows,
                        shown,
                        columns=4 if len(columns) > 3 else len(columns),
                    ),
                    f"Each system's mean with its {report.confidence:.0%} interval per dataset × "
                    "metric, in the order of the table; the best of each panel in red." + more,
                    report,
                )
            )
        )
    return section("Results", body, sid="results")


def _column_chunks(columns: Sequence[Any]) -> list[list[tuple[int, Any]]]:
    """The matrix columns (with their index) split into tables of at most
    :data:`MATRIX_COLUMNS`, keeping the metrics of a dataset together when they fit."""
    chunks: list[list[tuple[int, Any]]] = [[]]
    datasets = list(dict.fromkeys(c.dataset for c in columns))
    for d in datasets:
        group = [(j, c) for j, c in enumerate(columns) if c.dataset == d]
        if chunks[-1] and len(chunks[-1]) + len(group) > MATRIX_COLUMNS:
            chunks.append([])
        for item in group:
            if len(chunks[-1]) == MATRIX_COLUMNS:
                chunks.append([])
            chunks[-1].append(item)
    return [c for c in chunks if c]


def _matrix_table(
    part: Sequence[tuple[int, Any]],
    cells: Mapping[str, Mapping[int, Any]],
    order: Sequence[str],
    ranked: Mapping[str, int],
    overall_letters: Mapping[str, str],
) -> str:
    """One table of the central matrix: the columns ``part`` for every system."""
    columns = [c for _, c in part]
    datasets = list(dict.fromkeys(c.dataset for c in columns))
    grouped = any(sum(c.dataset == d for c in columns) > 1 for d in datasets)

    def label(c: Any, text: str) -> str:
        unit = f" ({c.unit_label})" if c.unit_label else ""
        arrow = "↑" if c.direction == "higher" else "↓"
        return f'<th class="num">{escape(text)}{unit} {arrow}</th>'

    if grouped:
        head_top = ['<th rowspan="2">#</th><th rowspan="2">system</th>']
        for d in datasets:
            span = sum(c.dataset == d for c in columns)
            head_top.append(f'<th colspan="{span}" class="rg-group">{escape(d)}</th>')
        thead = (
            "<tr>"
            + "".join(head_top)
            + "</tr><tr>"
            + "".join(label(c, c.metric) for c in columns)
            + "</tr>"
        )
    else:
        thead = (
            "<tr><th>#</th><th>system</th>" + "".join(label(c, c.label) for c in columns) + "</tr>"
        )
    rows_html = []
    for position, name in enumerate(order):
        rank = ranked.get(name)
        letters = overall_letters.get(name, "")
        row = [
            f'<td class="num">{"" if rank is None else rank}</td>',
            f'<td class="{"rg-name rg-long" if len(name) > 40 else "rg-name"}">'
            f"{escape(name)}"
            + (f' <sup class="rg-letters">{escape(letters)}</sup>' if letters else "")
            + "</td>",
        ]
        for j, c in part:
            cell = cells[name].get(j)
            if cell is None:
                row.append('<td class="num rg-missing">–</td>')
                continue
            value, ci = cell.text(c.proportion)
            shown = f"<strong>{escape(value)}</strong>" if cell.best else escape(value)
            sup = f'<sup class="rg-letters">{escape(cell.letters)}</sup>' if cell.letters else ""
            row.append(
                f'<td class="num{" rg-best" if cell.best else ""}">{shown}{sup}'
                f'<br><span class="rg-ci">{escape(ci)}</span></td>'
            )
        hidden = ' class="rg-screen-only"' if position >= MATRIX_PRINT_ROWS else ""
        rows_html.append(f"<tr{hidden}>" + "".join(row) + "</tr>")
    return (
        f'<div class="rg-table-wrap"><table class="rg-table rg-matrix"><thead>{thead}'
        f"</thead><tbody>{''.join(rows_html)}</tbody></table></div>"
    )

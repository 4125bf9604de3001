"""The first pages: the key findings (:func:`summary`) and the central results matrix
(:func:`results_matrix`).
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import Any

from reportgen.analysis.ledger.ties import tie_labels
from reportgen.plaintext import count
from reportgen.report.render.html import (
    HTMLBlock,
    escape,
    note,
    print_only,
    section,
)
from reportgen.report.sections._base import (
    MATRIX_COLUMNS,
    MATRIX_PRINT_ROWS,
    Report,
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
    body: list[str] = []
    per_benchmark = analysis.leaders.partial
    if per_benchmark:  # the benchmarks do not share their systems: answered one by one
        from reportgen.analysis.ledger.words import ranking_scope_line
        from reportgen.report.render.leaders import leaders_table

        body.append(leaders_table(analysis.leaders, confidence=report.confidence))
        scope = ranking_scope_line(analysis.leaders)
        sentences = ([scope] if scope else []) + key_findings(ledger, per_benchmark=True)
    else:
        sentences = key_findings(ledger)
    sentences += battle_findings(analysis.battles)
    lines = [line.html() for line in sentences]
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
                "adjusted p-value is at most α (family: "
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
    if block is None:
        return None
    html = block.html
    if per_benchmark:  # the PDF's results follow the contents, on page 2 (print CSS)
        html = html.replace('class="rg-section"', 'class="rg-section rg-flow"', 1)
    return HTMLBlock(html + CONTENTS_MARKER)


@_with_figures
def results_matrix(report: Report) -> HTMLBlock | None:
    """The central table: systems × dataset × metric of real values with intervals and
    tie-group letters, in the order of the overall ranking, the best value of each
    column in bold; and the overview chart (means with intervals, small multiples)."""
    from reportgen.report.render.findings import central_matrix, overall_order
    from reportgen.report.sections.blocks import overview_figure

    analysis = report.analysis
    if len(analysis.leaders.blocks) > 1:  # datasets that do not share their systems
        from reportgen.report.sections.blocks import block_results

        return block_results(report)
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
    body.append(overview_figure(report, columns, cells, order))
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
    *,
    printed: Container[str] | None = None,
) -> str:
    """One table of the central matrix: the columns ``part`` for every system; the PDF
    lists the first :data:`MATRIX_PRINT_ROWS` rows, or those of ``printed``."""
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
        shown_in_print = position < MATRIX_PRINT_ROWS if printed is None else name in printed
        hidden = "" if shown_in_print else ' class="rg-screen-only"'
        rows_html.append(f"<tr{hidden}>" + "".join(row) + "</tr>")
    return (
        f'<div class="rg-table-wrap"><table class="rg-table rg-matrix"><thead>{thead}'
        f"</thead><tbody>{''.join(rows_html)}</tbody></table></div>"
    )

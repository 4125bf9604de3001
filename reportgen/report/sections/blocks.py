"""The Results section of benchmarks that do not share their systems: one matrix per
block of datasets with a common system set, each in its own rank order, or a
leaderboard per benchmark when nothing overlaps (:attr:`Leaders.blocks
<reportgen.analysis.leaders.Leaders.blocks>`); and the overview chart of every
dataset × metric, each panel drawing its own systems (the leader, those tied with it,
the release pair) and saying how many it leaves out.

On a screen each block is a tab (:func:`reportgen.report.render.html.tabs`, no script);
printed, every block shows, each listing its first :data:`BLOCK_PRINT_ROWS` systems and
every benchmark's leader.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from reportgen.analysis.leaders import BenchmarkLeader, Leaders, OverlapBlock
from reportgen.analysis.ledger.ties import tie_labels
from reportgen.plaintext import count, listed
from reportgen.report.render.html import (
    HTMLBlock,
    Tab,
    charts_row,
    escape,
    h3,
    note,
    print_only,
    section,
    slug,
    tabs,
)
from reportgen.report.sections._base import Report, _try_chart

__all__ = [
    "BLOCK_PRINT_ROWS",
    "MIN_PANEL_SYSTEMS",
    "OVERVIEW_SYSTEMS",
    "PANEL_SYSTEMS",
    "block_results",
    "overview_figure",
    "panel_systems",
]

#: Systems a block's matrix lists in the PDF (best first), besides every benchmark's
#: leader; the HTML lists all of them.
BLOCK_PRINT_ROWS = 25
#: Systems the overview chart draws on one shared axis; above, each panel draws its own.
OVERVIEW_SYSTEMS = 30
#: The most systems a panel draws of its own: the leader and those tied with it.
PANEL_SYSTEMS = 12
#: The fewest a panel draws: a leader ahead of everyone is drawn with the next best.
MIN_PANEL_SYSTEMS = 6


def _title(block: OverlapBlock) -> str:
    return listed(list(block.datasets), len(block.datasets))


def _order_note(block: OverlapBlock, ranked_lists: int) -> str:
    n, k = len(block.systems), block.complete
    if len(block.units) == 1:
        return f"{count(n, 'system')}, best mean first (#)."
    scope = "both" if len(block.datasets) == 2 else "all of them"
    if block.ordered_by == "ranking":
        how = (
            f"in the order of the ranking across {count(ranked_lists, 'list')} (#, with "
            "its own tie groups after the name)"
        )
    else:
        how = "by their mean position over the dataset × metrics (#; 0 is the best on each)"
    text = f"{count(n, 'system')}: the {k:,} scored on {scope} {how}"
    if k < n:
        text += f", then the {n - k:,} scored on part of them by their mean position"
    return text + "."


def _printed(block: OverlapBlock, leaders: Leaders) -> set[str]:
    """The systems a block's matrix lists in the PDF: its first rows and the leader of
    each of its dataset × metrics."""
    units = set(block.units)
    chosen = set(block.systems[:BLOCK_PRINT_ROWS])
    chosen.update(b.leader for b in leaders.benchmarks if (b.dataset, b.metric) in units)
    return chosen


def block_results(report: Report) -> HTMLBlock | None:
    """The Results section when the analysis has several blocks of datasets
    (:func:`reportgen.report.sections.results_matrix` hands over to it): a tab per block
    with its matrix and its chart, and one note on how to read them."""
    from reportgen.report.render.findings import central_matrix
    from reportgen.report.sections.overview import _column_chunks, _matrix_table

    analysis = report.analysis
    leaders = analysis.leaders
    columns, cells = central_matrix(analysis)
    if not columns:
        return None
    ranking = analysis.ranking
    index = {(c.dataset, c.metric): j for j, c in enumerate(columns)}
    panels = []
    for block in leaders.blocks:
        part = [(index[u], columns[index[u]]) for u in block.units if u in index]
        if not part:
            continue
        order = [s for s in block.systems if s in cells]
        if block.ordered_by == "ranking" and ranking is not None:
            ranked = {s: k + 1 for k, s in enumerate(ranking.systems)}
            letters = tie_labels(ranking.letters) if len(ranking.lists) > 1 else {}
        else:
            ranked = {s: k + 1 for k, s in enumerate(order[: block.complete])}
            letters = {}
        printed = _printed(block, leaders)
        sid = slug("results", *block.datasets)
        body = [h3(f"{_title(block)}", sid)]
        n_lists = 0 if ranking is None else len(ranking.lists)
        body.append(note(escape(_order_note(block, n_lists))))
        if len(part) == 1:  # one benchmark: its leaderboard, a line per system
            j, column = part[0]
            body.append(_leaderboard(column, j, cells, order, printed, report.confidence))
        else:
            for chunk in _column_chunks([c for _, c in part]):
                local = [(part[k][0], c) for k, c in chunk]
                body.append(_matrix_table(local, cells, order, ranked, letters, printed=printed))
        if len(order) > len(printed):
            body.append(
                print_only(
                    note(
                        f"The PDF lists {len(printed)} of the {len(order)} systems (the first "
                        f"{min(BLOCK_PRINT_ROWS, len(order))} and every leader); the HTML "
                        "report lists all of them, and <code>tables/systems.csv</code> holds "
                        "every mean and interval."
                    )
                )
            )
        body.append(overview_figure(report, [c for _, c in part], cells, order))
        label = " · ".join(block.datasets)
        panels.append(Tab(sid, label, "", "\n".join(p for p in body if p)))
    what = (
        f"The datasets are grouped by the systems they share: {count(len(panels), 'block')}, "
        "each a table of its own in its own rank order (one per benchmark where none "
        "shares enough). Each cell: the mean (percent for proportions) with its "
        f"{report.confidence:.0%} interval; bold: the best value of the column; ↑/↓: "
        "higher or lower is better; superscripts: tie groups of that dataset × metric "
        "(letters; numbers when there are more than 8 groups): systems sharing one are "
        "not significantly different (compact letter display)."
    )
    body = [note(what), tabs(panels, label="Benchmarks shown")]
    return section("Results", body, sid="results")


def _leaderboard(
    column: Any,
    j: int,
    cells: Mapping[str, Mapping[int, Any]],
    order: Sequence[str],
    printed: set[str],
    confidence: float,
) -> str:
    """One benchmark's systems, best first, a line each: rank, name, mean, interval and
    tie groups (the matrix's cells, read across); rows not in ``printed`` are left out
    of the PDF."""
    unit = f" ({column.unit_label})" if column.unit_label else ""
    arrow = "↑" if column.direction == "higher" else "↓"
    # numbered tie groups (analysis.ledger.ties) hold digits, letters none
    numbered = any(ch.isdigit() for s in order for ch in cells[s][j].letters)
    ties = "tie groups (numbered)" if numbered else "tie group"
    head = (
        f'<tr><th>#</th><th>system</th><th class="num">{escape(column.label)}{unit} '
        f'{arrow}</th><th class="num">{confidence:.0%} CI</th><th>{ties}</th></tr>'
    )
    rows = []
    for k, name in enumerate(order):
        cell = cells[name][j]
        value, ci = cell.text(column.proportion)
        shown = f"<strong>{escape(value)}</strong>" if cell.best else escape(value)
        hidden = "" if name in printed else ' class="rg-screen-only"'
        rows.append(
            f'<tr{hidden}><td class="num">{k + 1}</td>'
            f'<td class="{"rg-name rg-long" if len(name) > 40 else "rg-name"}">'
            f"{escape(name)}</td>"
            f'<td class="num{" rg-best" if cell.best else ""}">{shown}</td>'
            f'<td class="num">{escape(ci)}</td><td>{escape(cell.letters)}</td></tr>'
        )
    return (
        '<div class="rg-table-wrap"><table class="rg-table rg-matrix rg-board">'
        f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def panel_systems(
    benchmark: BenchmarkLeader | None, ranked: Sequence[str], extra: Sequence[str] = ()
) -> list[str]:
    """The systems one panel of the overview chart draws, best first: the leader and
    those tied with it (at most :data:`PANEL_SYSTEMS`), the next best up to
    :data:`MIN_PANEL_SYSTEMS`, and the systems of ``extra`` (the release pair) scored
    there; ``ranked`` is every system of the panel, best first.

    >>> from types import SimpleNamespace as NS
    >>> panel_systems(NS(leader="a", tied=("c",)), ["a", "b", "c", "d"])
    ['a', 'b', 'c', 'd']
    >>> panel_systems(NS(leader="a", tied=()), list("abcdefghij"), extra=["j"])
    ['a', 'b', 'c', 'd', 'e', 'f', 'j']
    """
    chosen: list[str] = []
    if benchmark is not None:
        chosen = [benchmark.leader, *benchmark.tied][:PANEL_SYSTEMS]
    for name in ranked:
        if len(chosen) >= MIN_PANEL_SYSTEMS:
            break
        if name not in chosen:
            chosen.append(name)
    chosen += [s for s in extra if s in ranked and s not in chosen]
    position = {s: k for k, s in enumerate(ranked)}
    return sorted((s for s in chosen if s in position), key=position.__getitem__)


def overview_figure(
    report: Report,
    columns: Sequence[Any],
    cells: Mapping[str, Mapping[int, Any]],
    order: Sequence[str],
) -> str:
    """The overview chart of ``columns`` (:class:`~reportgen.report.render.findings.
    MatrixColumn`, with their cells by column index of the central matrix): every
    system of ``order`` on one axis up to :data:`OVERVIEW_SYSTEMS` of them; beyond,
    each panel draws its own (:func:`panel_systems`) and says how many of its systems
    it draws."""
    from reportgen.charts.overview import means_overview_chart
    from reportgen.report.render.findings import central_matrix

    analysis = report.analysis
    all_columns, _ = central_matrix(analysis)
    index = {(c.dataset, c.metric): j for j, c in enumerate(all_columns)}
    shared = len(order) <= OVERVIEW_SYSTEMS
    extra = [s for s in (report.candidate, report.baseline) if s]
    rows: list[dict[str, Any]] = []
    left_out = 0
    for c in columns:
        j = index[(c.dataset, c.metric)]
        scale = 100.0 if c.proportion else 1.0
        panel = c.label + (" (%)" if c.proportion else "")
        scored = [s for s in order if j in cells.get(s, {})]
        if shared:
            drawn = scored
        else:
            unit = analysis.unit(c.dataset, c.metric)
            ranked = [unit.systems[k] for k in unit.order()]
            drawn = panel_systems(analysis.leaders.leader_of(c.dataset, c.metric), ranked, extra)
            left_out += len(ranked) - len(drawn)
            panel += f" · {len(drawn)} of {len(ranked)}"
        for position, name in enumerate(drawn):
            cell = cells[name][j]
            rows.append(
                {
                    "panel": panel,
                    "system": name,
                    "position": position,
                    "mean": cell.mean * scale,
                    "ci_low": cell.ci_low * scale,
                    "ci_high": cell.ci_high * scale,
                    "best": cell.best,
                }
            )
    if not rows:
        return ""
    if shared:
        caption = (
            f"Each system's mean with its {report.confidence:.0%} interval per dataset × "
            "metric, in the order of the table; the best of each panel in red."
        )
    else:
        caption = (
            f"Each dataset × metric's leader (red) and the systems tied with it, with their "
            f"{report.confidence:.0%} intervals: at most {PANEL_SYSTEMS}, and the next "
            f"best up to {MIN_PANEL_SYSTEMS}"
            + (", and the release pair" if extra else "")
            + f"; each panel's title says how many of its systems it draws ({left_out:,} "
            "left out in all; every one is in the table)."
        )
    build = partial(
        means_overview_chart,
        rows,
        list(dict.fromkeys(r["system"] for r in rows)),
        columns=4 if len(columns) > 3 else len(columns),
        shared=shared,
    )
    return charts_row(_try_chart(build, caption, report))

"""The sections of the report notebooks: one function per section, each taking the
:class:`Report` made by :func:`prepare` and returning an :class:`HTMLBlock` (shown by
Jupyter and exported as is) or ``None`` when the section has nothing to show.

The notebook templates (``notebook_templates/evaluation.ipynb``, ``release.ipynb``) are
thin recipes of calls to these functions; copy a template and drop, reorder or add cells
to make a report of your own. Every number comes from :func:`reportgen.analysis.analyze`
(the ``results.json`` of the report); this module only formats it: tables, claim
sentences and charts rendered to inline SVG with the report's theme.

The HTML building blocks (sections, tables, figures) are in :mod:`reportgen.report.html`,
numbers and p-values are formatted by :mod:`reportgen.report.format`.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np

from reportgen.analysis.results import PairwiseResult, UnitResult
from reportgen.errors import ConfigError
from reportgen.report import format as fmt
from reportgen.report.html import (
    Col,
    FigurePool,
    HTMLBlock,
    charts_row,
    count_cell,
    escape,
    h3,
    note,
    num_cell,
    p_cell,
    pct_cell,
    print_only,
    screen_only,
    section,
    slug,
    table,
    theme_uses_bundled_font,
    try_figure,
)

__all__ = [
    "HTMLBlock",
    "Report",
    "across_datasets",
    "across_metrics",
    "appendix",
    "data_section",
    "exploration",
    "groups_and_hyperparameters",
    "items_section",
    "methods",
    "noise_and_power",
    "noise_detail",
    "per_sample_list",
    "prepare",
    "provenance",
    "release_details",
    "release_summary",
    "repeated_runs",
    "results_matrix",
    "summary",
    "write_outputs",
]


#: Above this many systems the connected graph of non-significant pairs is replaced by the
#: compact letter display (an unreadable hairball otherwise).
MAX_GRAPH_SYSTEMS = 15
#: The pairwise p-value plot needs 3 systems to say more than the table, and stays legible
#: up to this many.
MAX_PWPP_SYSTEMS = 15
#: The Friedman test and critical-difference diagram need ranks over this many lists.
MIN_FRIEDMAN_LISTS = 3
#: Bradley-Terry ratings are drawn up to this many systems (all are in results.json).
MAX_BT_SYSTEMS = 60
#: TOPSIS is drawn only when its order disagrees with the aggregate (Kendall τ below this).
TOPSIS_SHOWN_BELOW = 0.9


def _try_chart(build: Callable[[], Any], caption: str | None, report: Report) -> str:
    return try_figure(build, caption, theme=report.theme, pool=report.figures)


_Section = TypeVar("_Section", bound=Callable[..., Any])


def _with_figures(function: _Section) -> _Section:
    """A section whose charts may render in the report's :class:`FigurePool`: the block
    it returns has its placeholders replaced by the figures."""

    @functools.wraps(function)
    def wrapper(report: Report, *args: Any, **kwargs: Any) -> Any:
        block = function(report, *args, **kwargs)
        if report.figures is None or not isinstance(block, HTMLBlock):
            return block
        return HTMLBlock(report.figures.resolve(block.html), block.text)

    return cast("_Section", wrapper)


# --------------------------------------------------------------------------- the report


@dataclass
class Report:
    """Everything the sections show: the table, the analysis, its results document,
    the report's title and theme, and (for release reports) the verdicts."""

    table: Any
    analysis: Any
    results: dict[str, Any]
    title: str
    theme: Any
    output_dir: Path
    release: str | None = None
    baseline: str | None = None
    candidate: str | None = None
    verdicts: list[dict[str, Any]] | None = None
    warnings: list[str] = field(default_factory=list)
    max_table_rows: int = 40
    inputs: tuple[str, ...] = ()
    config_path: str | None = None
    #: Worker processes rendering the charts (None: in this process).
    figures: FigurePool | None = None

    @property
    def alpha(self) -> float:
        return float(self.analysis.options.alpha)

    @property
    def confidence(self) -> float:
        return float(self.analysis.options.confidence)

    def close(self) -> None:
        """Stop the chart workers (:meth:`FigurePool.close`); charts drawn afterwards
        render in this process. Safe to call twice."""
        if self.figures is not None:
            self.figures.close()
            self.figures = None

    def unit(self, dataset: str, metric: str) -> UnitResult | None:
        """The results of one dataset × metric, or None."""
        for u in self.analysis.units:
            if (u.dataset, u.metric) == (dataset, metric):
                return u
        return None


def prepare(
    data: Sequence[str],
    *,
    config: str | None = None,
    load_options: Mapping[str, Any] | None = None,
    analysis_options: Mapping[str, Any] | None = None,
    title: str = "Evaluation report",
    release: str | None = None,
    theme: str = "default",
    output_dir: str = ".",
    baseline: str | None = None,
    candidate: str | None = None,
    release_report: bool = False,
    max_table_rows: int = 40,
    execution: Mapping[str, Any] | None = None,
    figure_workers: int | str = 0,
) -> Report:
    """Load the data, run the analysis and gather what the sections show.

    Parameters
    ----------
    data
        Result files or folders (:func:`reportgen.data.load`).
    config
        TOML config file (metric directions, weights, ...), or None.
    load_options, analysis_options
        Keyword arguments of :class:`reportgen.data.LoadOptions` and
        :class:`reportgen.analysis.AnalysisOptions`.
    title, release, theme
        The report's title, release label and chart/CSS theme.
    output_dir
        Where :func:`write_outputs` writes ``results.json`` and ``tables/``.
    baseline, candidate, release_report
        A release report compares ``candidate`` with ``baseline`` only
        (:func:`reportgen.analysis.release.resolve_release_systems` fills in missing
        names), corrected across all its dataset × metric comparisons.
    max_table_rows
        Longest pairwise table shown per dataset × metric; longer ones show the pairs
        of neighbours in the ranking (every pair is in ``tables/comparisons.csv``, or
        ``tables/comparisons.parquet`` above 10,000 pairs).
    execution
        Where the dataset × metric units run: keyword arguments of
        :class:`reportgen.execution.Execution` (``{"jobs": 4}``, ``{"executor":
        "dask", "scheduler": "tcp://host:8786"}``); default serial. The numbers do not
        depend on it.
    figure_workers
        Processes that render the charts while the sections are built
        (:class:`~reportgen.report.html.FigurePool`): 0 (default) renders them in this
        process; ``"auto"`` uses two when this process may run on two cores or more
        (the report notebooks ask for it). They start now, so they are ready when the
        analysis is. The report is the same either way.
    """
    from reportgen.analysis import AnalysisOptions, analyze, analyze_release
    from reportgen.analysis.release import resolve_release_systems
    from reportgen.charts.render import load_theme
    from reportgen.data import LoadOptions, load
    from reportgen.execution import Execution

    theme_obj = load_theme(theme)
    pool = _figure_pool(figure_workers, bundled_font=theme_uses_bundled_font(theme_obj.config))
    try:
        caught: list[str] = []
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            table = load(
                list(data), options=LoadOptions(**dict(load_options or {})), config=config or None
            )
            options = {
                k: tuple(v) if isinstance(v, list) else v
                for k, v in dict(analysis_options or {}).items()
            }
            if release_report:
                baseline, candidate = resolve_release_systems(
                    table.systems,
                    baseline=baseline or options.pop("baseline", None),
                    candidate=candidate,
                    release=release,
                )
                options.setdefault("correct_across", "all")
                analysis = analyze_release(
                    table,
                    AnalysisOptions(**options),
                    baseline=baseline,
                    candidate=candidate,
                    release=release,
                    execution=Execution.from_mapping(execution),
                )
            else:
                analysis = analyze(
                    table, AnalysisOptions(**options), execution=Execution.from_mapping(execution)
                )
        for record in records:
            if issubclass(
                record.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning)
            ):
                continue
            text = str(record.message)
            if text not in caught:
                caught.append(text)
    except BaseException:  # the workers stop with the failure
        if pool is not None:
            pool.close()
        raise
    results = analysis.to_results()
    verdicts = None
    if analysis.release is not None:
        verdicts = [v.to_dict() for v in analysis.release.verdicts]
    results["report"] = {"title": title, "release": release, "theme": theme_obj.name}
    return Report(
        table=table,
        analysis=analysis,
        results=results,
        title=title,
        theme=theme_obj,
        output_dir=Path(output_dir),
        release=release,
        baseline=baseline,
        candidate=candidate,
        verdicts=verdicts,
        warnings=caught,
        max_table_rows=max_table_rows,
        inputs=tuple(str(d) for d in data),
        config_path=config or None,
        figures=pool,
    )


def _figure_pool(workers: int | str, *, bundled_font: bool = False) -> FigurePool | None:
    from reportgen.execution import usable_cores

    if workers == "auto":
        workers = 2 if usable_cores() >= 2 else 0
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ConfigError(
            f"figure_workers={workers!r} must be a whole number >= 0 or 'auto'",
            hint="0 renders the charts in the notebook's process",
        )
    return FigurePool(workers, bundled_font=bundled_font) if workers else None


# --------------------------------------------------------------------------- outputs


def write_outputs(report: Report) -> HTMLBlock:
    """Write ``results.json`` (validated against its schema) and ``tables/*.csv`` to
    the report's output folder and stop the chart workers (the notebooks' last step:
    :meth:`Report.close`); returns a short note for the notebook."""
    import pandas as pd

    from reportgen.report.output import write_csv
    from reportgen.report.tables import write_results

    report.close()
    out = report.output_dir
    out.mkdir(parents=True, exist_ok=True)
    # the long tables (more than TABLE_ROWS_MAX rows) go to tables/<name>.parquet
    columnar = write_results(out, report.results).tables
    tables_dir = out / "tables"
    tables_dir.mkdir(exist_ok=True)
    written = [f"{name}.parquet" for name in columnar]
    for name, rows in _csv_tables(report, skip=frozenset(columnar)).items():
        if rows:  # a table written in Parquet is not also a CSV
            write_csv(pd.DataFrame.from_records(rows), tables_dir / f"{name}.csv")
            written.append(f"{name}.csv")
    return HTMLBlock("", text=f"wrote results.json and tables/ ({', '.join(written)})")


def _flat(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if not isinstance(v, (list, dict))} for row in rows]


def _csv_tables(
    report: Report, skip: frozenset[str] = frozenset()
) -> dict[str, list[dict[str, Any]]]:
    r = report.results
    tables: dict[str, list[dict[str, Any]]] = {
        "systems": _flat(r["systems"]),
        "comparisons": [] if "comparisons" in skip else _flat(r["comparisons"]),
        "power": _flat(r["power"]),
        "noise": _flat(r["noise"]),
        "groups": _flat(r["groups"]),
        "hyperparameters": _flat(r["hyperparameters"]),
    }
    ordered = [x for x in r["rankings"] if x.get("kind") == "ordered"]
    if ordered:
        tables["ranking"] = ordered[0]["systems"]
        tables["ranking_pairs"] = [] if "ranking_pairs" in skip else ordered[0]["pairs"]
    tables["aggregates"] = [
        {"dataset": a["dataset"], **s} for a in r["aggregates"] for s in a["systems"]
    ]
    tables["rank_intervals"] = [
        {"dataset": x["dataset"], "metric": x["metric"], **s}
        for x in r["rankings"]
        if x.get("kind") == "ranks"
        for s in _flat(x["simultaneous"]["systems"])
    ]
    tables["items"] = [
        {"dataset": x["dataset"], "metric": x["metric"], **i}
        for x in ([] if "items" in skip else r["items"])
        for i in x.get("items", [])
    ]
    if report.verdicts:
        tables["verdicts"] = report.verdicts
    verdict = r.get("verdict") or {}
    flips = [
        {
            "dataset": f["dataset"],
            "metric": f["metric"],
            "item": i["item"],
            "baseline_score": i["baseline_score"],
            "candidate_score": i["candidate_score"],
            "change": i["change"],
        }
        for f in verdict.get("flips", ())
        for i in f["items"]
    ]
    if flips:
        tables["flips"] = flips
    return tables


# --------------------------------------------------------------------------- helpers


def _direction_word(direction: str) -> str:
    return "higher is better" if direction == "higher" else "lower is better"


def _rank_ci(unit: UnitResult) -> dict[str, str]:
    """``rank [low, high]`` of each system: its simultaneous rank interval."""
    if unit.ranks is None:
        return {}
    iv = unit.ranks.intervals
    return {
        s: f"{int(iv.rank[k])} [{int(iv.ci_low[k])}, {int(iv.ci_high[k])}]"
        for k, s in enumerate(iv.systems)
    }


def _sorted_by_quality(rows: list[dict[str, Any]], direction: str) -> list[dict[str, Any]]:
    sign = -1.0 if direction == "higher" else 1.0
    return sorted(
        rows, key=lambda r: sign * (r["mean"] if r["mean"] is not None else -sign * math.inf)
    )


def _ci(row: Mapping[str, Any]) -> str:
    return f"[{num_cell(row.get('ci_low'))}, {num_cell(row.get('ci_high'))}]"


def _sample_lists(report: Report) -> list[UnitResult]:
    return list(report.analysis.compared)


def _list_title(sl: Any) -> str:
    return f"{sl.dataset} / {sl.metric}"


def _why(sl: Any) -> str:
    result = sl.comparisons
    modality = sl.modality
    if sl.derived_from is not None or not isinstance(result, PairwiseResult):
        return (
            f"corpus-level metric computed from the predictions of "
            f"{sl.derived_from}: approximate randomization over items"
        )
    method = result.method
    if method != "auto":
        return f"{method} chosen with --method"
    if sl.n_runs is not None and sl.n_runs > 1:
        return (
            f"{sl.n_runs} runs per item averaged first (items are the independent "
            "units), so the item means are analysed as continuous"
        )
    return {
        ("paired", "binary"): "paired 0/1 outcomes: exact test on the discordant items",
        ("paired", "continuous"): "paired continuous scores: test on the per-item differences",
        ("unpaired", "binary"): "different items per system, 0/1 outcomes: test of two proportions",
        ("unpaired", "continuous"): "different items per system, continuous scores: Welch's t test",
    }.get((sl.pairing, modality), "")


# --------------------------------------------------------------------------- Summary


@_with_figures
def summary(report: Report) -> HTMLBlock | None:
    """Key findings, first: who leads, whether the leaders are distinguishable, the
    largest reliable gaps, the noise floor, in plain sentences and the metric's units
    (:func:`reportgen.report.findings.key_findings`). The table of contents follows it."""
    from reportgen.report.export import CONTENTS_MARKER
    from reportgen.report.findings import key_findings

    analysis = report.analysis
    table_ = report.table
    lines = key_findings(analysis)
    body: list[str] = []
    if lines:
        body.append(
            '<div class="rg-findings"><ul>'
            + "".join(f"<li>{line}</li>" for line in lines)
            + "</ul></div>"
        )
    n_units = len(analysis.compared)
    body.append(
        note(
            f"{len(table_.systems)} systems, {len(table_.datasets)} dataset(s), "
            f"{len(table_.metrics)} metric(s) ({n_units} dataset × metric compared); "
            f"{report.confidence:.0%} intervals; a difference is significant when its "
            f"p-value adjusted with the {escape(_correction_name(report))} is at most "
            f"α = {report.alpha:g}. Proportions are shown in percent and their differences "
            "in percentage points (pts)."
        )
    )
    if report.warnings:
        body.append(
            f'<div class="rg-warning">{len(report.warnings)} warning(s) while '
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
    from reportgen.report.findings import central_matrix, overall_order

    analysis = report.analysis
    columns, cells = central_matrix(analysis)
    if not columns:
        return None
    order = [s for s in overall_order(analysis) if s in cells]
    ranking = analysis.ranking
    ranked = {} if ranking is None else {s: k + 1 for k, s in enumerate(ranking.systems)}
    overall_letters = {} if ranking is None else ranking.letter_of()
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
            "Superscript letters: tie groups of that dataset × metric: systems "
            "sharing a letter are not significantly different (compact letter "
            "display)."
        )
    if ranking is not None:
        what.append(
            f"Rows follow the ranking across {len(ranking.lists)} dataset(s) "
            "(#, with its own tie groups after the name)"
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
            f"The {len(columns)} dataset × metrics are split over {len(body)} "
            "tables of the same rows."
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


#: Value columns of one matrix table (more are split into several tables with the same
#: rows, so a printed page stays readable without scrolling).
MATRIX_COLUMNS = 7
#: Systems the PDF's matrix lists (in the ranking's order); the HTML lists all. About
#: two A4 pages per table: a leaderboard of hundreds of systems would otherwise fill a
#: dozen pages with rows a reader of the PDF does not look up.
MATRIX_PRINT_ROWS = 60
#: Systems above which the Data section's systems table is HTML-only; the PDF lists the
#: names in a compact paragraph.
DATA_PRINT_SYSTEMS = 40
#: Systems above which a dataset × metric's noise charts (a point per pair, one rating
#: per system) are HTML-only: at hundreds of systems each fills a page of the PDF.
NOISE_PRINT_SYSTEMS = 60
#: Items named per list (solved by none, by one, suspect) in the HTML, and in the PDF.
ITEMS_LISTED, ITEMS_PRINTED = 30, 10
#: Systems the PDF lists in a dataset × metric's table of the appendix (the best first;
#: the HTML lists all; the Results matrix has every system's value).
UNIT_PRINT_ROWS = 30
#: Systems above which the Bradley-Terry chart (a row per system, a page of its own
#: beyond about 30) is HTML-only.
BT_PRINT_SYSTEMS = 30


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


def _correction_name(report: Report) -> str:
    from reportgen.report.claims import CORRECTION_NAMES

    name = report.analysis.options.correction
    label = CORRECTION_NAMES.get(name) or "no"
    across = report.analysis.options.correct_across
    scope = "within each dataset × metric" if across == "sample-list" else "across all comparisons"
    return f"{label} correction {scope}"


# --------------------------------------------------------------------------- Data


@_with_figures
def data_section(report: Report) -> HTMLBlock | None:
    """Systems, datasets, metrics, pairing, exclusions and warnings."""
    s = report.table.summary()
    body = [
        f"<p>{s['n_rows']:,} scores from {len(s['inputs'])} input(s): "
        f"{s['n_systems']} systems, {s['n_datasets']} datasets, "
        f"{s['n_metrics']} metrics.</p>"
    ]
    body.append(
        table(
            s["inputs"],
            [
                Col("path", "input"),
                Col("format", "format"),
                Col("rows", "rows", lambda v: f"{v:,}", True),
            ],
        )
    )
    if s.get("skipped_inputs"):
        body.append(h3("Skipped inputs", "skipped-inputs"))
        body.append(
            note(
                "These inputs hold no usable result and were left out "
                "(--strict-inputs makes this an error):"
            )
        )
        body.append(
            table(
                s["skipped_inputs"],
                [Col("path", "input"), Col("format", "format"), Col("reason", "why skipped")],
            )
        )
    body.append(h3("Datasets and pairing", "datasets-and-pairing"))
    rows = []
    for d in s["datasets"]:
        for m in d["metrics"]:
            info = m["pairing"]
            rows.append(
                {
                    "dataset": d["name"],
                    "metric": m["metric"],
                    "modality": m["modality"],
                    "pairing": info["kind"],
                    "analysed": info["recommended"],
                    "systems": m["n_systems"],
                    "items": m["n_items"],
                    "common": info["n_common"],
                    "runs": d["runs"] or 1,
                    "weight": d["weight"],
                }
            )
    body.append(
        table(
            rows,
            [
                Col("dataset", "dataset"),
                Col("metric", "metric"),
                Col("modality", "modality"),
                Col("pairing", "pairing"),
                Col("analysed", "analysed as"),
                Col("systems", "systems", str, True),
                Col("items", "items", str, True),
                Col("common", "common items", str, True),
                Col("runs", "runs", str, True),
                Col("weight", "dataset weight", num_cell, True),
            ],
        )
    )
    body.append(h3("Metrics", "metrics"))
    body.append(
        table(
            s["metrics"],
            [
                Col("name", "metric"),
                Col("direction", "direction"),
                Col("direction_source", "direction from"),
                Col("modality", "modality"),
                Col("modality_source", "modality from"),
                Col("weight", "weight", num_cell, True),
            ],
        )
    )
    if s.get("descriptive"):
        body.extend(_descriptive_block(s["descriptive"]))
    body.append(h3("Systems", "systems"))
    attrs = report.table.system_attributes
    sys_rows = []
    shown = report.table.systems
    release = report.analysis.release
    if release is not None:  # the two compared systems, not everything loaded
        shown = [release.candidate, release.baseline]
        if len(report.table.systems) > 2:
            body.append(
                note(
                    f"The data hold {len(report.table.systems)} systems; this "
                    f"release report compares the candidate "
                    f"<strong>{escape(release.candidate)}</strong> with the "
                    f"baseline <strong>{escape(release.baseline)}</strong>."
                )
            )
    for name in shown:
        row = {"system": name}
        if name in attrs.index:
            row.update({str(k): v for k, v in attrs.loc[name].items()})
        sys_rows.append(row)
    extra = [
        Col(
            str(c),
            str(c),
            lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else escape(v),
        )
        for c in attrs.columns
    ]
    systems_table = table(sys_rows, [Col("system", "system"), *extra])
    if len(sys_rows) > DATA_PRINT_SYSTEMS:
        body.append(screen_only(systems_table))
        body.append(
            print_only(
                f'<p class="rg-names">{len(sys_rows)} systems: '
                + " · ".join(escape(r["system"]) for r in sys_rows)
                + (". Their attributes are in the HTML report." if extra else ".")
                + "</p>"
            )
        )
    else:
        body.append(systems_table)
    if s["item_metadata"]:
        names = (
            ", ".join(escape(c) for c in s["item_metadata"])
            if isinstance(s["item_metadata"], list)
            else escape(s["item_metadata"])
        )
        body.append(note(f"Item metadata columns: {names}."))
    excluded = _excluded_rows(s)
    if s["exclusions"] or excluded:
        body.append(h3("Exclusions", "exclusions"))
        if s["exclusions"]:
            body.append(
                table(
                    s["exclusions"],
                    [
                        Col("reason", "reason"),
                        Col("count", "rows", str, True),
                        Col("dataset", "dataset"),
                        Col("metric", "metric"),
                        Col("system", "system"),
                        Col("source", "source"),
                    ],
                )
            )
        if excluded:
            body.append(
                note(
                    "Items outside the set shared by all systems, left out of "
                    "the paired comparisons:"
                )
            )
            body.append(
                table(
                    excluded,
                    [
                        Col("dataset", "dataset"),
                        Col("metric", "metric"),
                        Col("system", "system"),
                        Col("excluded", "items excluded", str, True),
                    ],
                )
            )
    problems = list(s["problems"])
    if problems or report.warnings or report.analysis.notes:
        body.append(h3("Warnings and notes", "warnings"))
        items = [
            f"<li>{escape(p.get('message', p))}"
            f"{(' (' + escape(p['location']) + ')') if p.get('location') else ''}</li>"
            for p in problems
        ]
        items += [f"<li>{escape(w)}</li>" for w in report.warnings]
        items += [f"<li>{escape(n)}</li>" for n in report.analysis.notes]
        body.append('<div class="rg-warning"><ul>' + "".join(items) + "</ul></div>")
    return section(
        "Data",
        body,
        sid="data",
        fold="Inputs, systems, datasets and metrics, pairing, exclusions, warnings",
    )


#: Longest list of descriptive statistics shown row by row; beyond it, one row per
#: statistic summarises the (system, dataset) means (all rows are in results.json).
_DESCRIPTIVE_ROWS = 30


def _descriptive_block(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Statistics the evaluation recorded but that are not compared (HELM's token counts,
    run times, ...): every mean when they are few, else their range per statistic."""
    out = [h3("Descriptive statistics", "descriptive")]
    intro = (
        "Recorded by the evaluation (token counts, run times, ...), shown as means "
        "over the items; never tested or ranked. Name one with --metric to compare it."
    )
    if len(rows) <= _DESCRIPTIVE_ROWS:
        out.append(note(intro))
        out.append(
            table(
                rows,
                [
                    Col("dataset", "dataset"),
                    Col("system", "system"),
                    Col("statistic", "statistic"),
                    Col("mean", "mean", num_cell, True),
                    Col("n", "items", str, True),
                ],
            )
        )
        return out
    by_stat: dict[str, list[float]] = {}
    for row in rows:
        if row.get("mean") is not None:
            by_stat.setdefault(str(row["statistic"]), []).append(float(row["mean"]))
    summary = [
        {
            "statistic": name,
            "cells": len(v),
            "min": min(v),
            "median": float(np.median(v)),
            "max": max(v),
        }
        for name, v in sorted(by_stat.items())
    ]
    out.append(
        note(
            intro + f" {len(rows):,} system × dataset means, summarised per "
            "statistic; all of them are in results.json (data.descriptive)."
        )
    )
    out.append(
        table(
            summary,
            [
                Col("statistic", "statistic"),
                Col("cells", "system × dataset", str, True),
                Col("min", "min of means", num_cell, True),
                Col("median", "median", num_cell, True),
                Col("max", "max of means", num_cell, True),
            ],
        )
    )
    return out


def _excluded_rows(summary_: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for d in summary_["datasets"]:
        for m in d["metrics"]:
            for system, n in (m["pairing"].get("excluded_per_system") or {}).items():
                if n:
                    rows.append(
                        {
                            "dataset": d["name"],
                            "metric": m["metric"],
                            "system": system,
                            "excluded": n,
                        }
                    )
    return rows


# --------------------------------------------------------------------------- Exploration


@_with_figures
def exploration(report: Report) -> HTMLBlock | None:
    """Distributions of item scores (continuous metrics) or of bootstrap means (0/1
    metrics), and rank distributions. Simultaneous rank intervals are in the tables of
    :func:`per_sample_list`."""
    from reportgen.charts import (
        bootstrap_mean_chart,
        distribution_chart,
        rank_distribution_chart,
    )

    body: list[str] = []
    for sl in _sample_lists(report):
        if sl.derived_from is not None:
            continue
        names = list(sl.systems)
        view = report.table.unpaired(sl.dataset, sl.metric, names)
        samples = view.item_means()
        figures = []
        boot = sl.exploration
        if sl.modality == "binary" and boot is not None:
            figures.append(
                _try_chart(
                    partial(
                        bootstrap_mean_chart,
                        boot,
                        metric=sl.metric,
                        direction=sl.direction,
                        title=f"{sl.metric}: bootstrap means",
                    ),
                    "Bootstrap distribution of each system's mean (items resampled), with "
                    f"its {report.confidence:.0%} percentile interval.",
                    report,
                )
            )
        else:
            values = dict(zip(view.systems, samples))
            figures.append(
                _try_chart(
                    partial(
                        distribution_chart,
                        values,
                        metric=sl.metric,
                        direction=sl.direction,
                        title=f"{sl.metric}: item scores",
                    ),
                    "Item scores of each system (boxplot).",
                    report,
                )
            )
        dist = None if sl.ranks is None else sl.ranks.distributions
        if dist is not None:
            figures.append(
                _try_chart(
                    partial(
                        rank_distribution_chart, dist, title=f"{sl.metric}: rank distributions"
                    ),
                    "Rank of each system over bootstrap resamples of the items. Each "
                    "system's spread is a per-system interval: together they say less than "
                    "95% about the whole ranking; the simultaneous rank intervals (rank [CI] "
                    "in the tables below) are the joint statement.",
                    report,
                )
            )
        body.append(h3(_list_title(sl), slug("explore", sl.dataset, sl.metric)))
        body.append(charts_row(*figures))
    if body:  # the Results overview shows every mean with its interval in the PDF
        body = [note("Shown in the HTML report only."), screen_only("".join(body))]
    return section(
        "Exploration",
        body,
        sid="exploration",
        fold="Distributions of scores (or bootstrap means) and of ranks, per dataset × metric",
    )


# --------------------------------------------------------------------------- per list


@_with_figures
def per_sample_list(report: Report) -> HTMLBlock | None:
    """For each dataset × metric: the systems with intervals, the pairwise table, the
    connected graph of non-significant pairs with its cliques, and the PWPP."""
    from reportgen.charts import connected_graph_chart, pwpp_chart

    body: list[str] = []
    for sl in _sample_lists(report):
        result = sl.comparisons
        assert result is not None
        sid = slug("list", sl.dataset, sl.metric)
        body.append(h3(_list_title(sl), sid))
        n_sig = int(np.sum(result.significant()))
        test = result.test
        body.append(
            f"<p>{escape(sl.pairing)} · {escape(sl.modality)} · "
            f"{escape(_direction_word(sl.direction))} · test: {escape(test)} "
            f"({escape(_why(sl))}) · {n_sig} of {result.n_pairs} pairs significant"
            + (
                ""
                if not sl.n_excluded_items
                else f" · {sl.n_excluded_items} items excluded (not shared)"
            )
            + "</p>"
        )
        rows = _sorted_by_quality(sl.system_records(), sl.direction)
        body.append(_caveats(sl.caveats))
        letters = {} if sl.ranks is None else sl.ranks.letter_of()
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
            cols.append(Col("letters", "tie group"))
        body.append(table(rows, cols, print_rows=UNIT_PRINT_ROWS))
        if len(rows) > UNIT_PRINT_ROWS:
            body.append(
                print_only(
                    note(
                        f"The PDF lists the best {UNIT_PRINT_ROWS} of the {len(rows)} systems; the "
                        "HTML report and <code>tables/systems.csv</code> have all of them."
                    )
                )
            )
        body.append(_pairwise_table(report, sl, [r["system"] for r in rows]))
        figures = []
        if sl.graph is not None and 3 <= len(sl.graph.systems) <= MAX_GRAPH_SYSTEMS:
            figures.append(
                _try_chart(
                    partial(
                        connected_graph_chart,
                        sl.graph,
                        title=f"{sl.dataset} / {sl.metric}: pairs not significantly different",
                        value_title=f"mean {sl.metric}" + (" (%)" if sl.proportion else ""),
                        scale=100.0 if sl.proportion else 1.0,
                    ),
                    "Systems at their mean; an arc joins two systems that are not "
                    "significantly different (the thicker, the larger its adjusted p).",
                    report,
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
                    result,
                    direction=sl.direction,
                    title=f"{sl.metric}: pairwise p-values",
                ),
                "Pairwise p-value plot: adjusted p-values of every pair on the emmeans "
                "scale, placed between the two means (HTML report only).",
                report,
            )
            figures.append(screen_only(pwpp))
        body.append(charts_row(*figures))
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
        "adjusted interval beside it agrees with it: it excludes 0 exactly when the "
        "pair is significant; “p (unadj.)” is the raw p-value. The marginal "
        f"{report.confidence:.0%} intervals, which go with the raw p-values, are in "
        f"<code>{_comparisons_file(report)}</code>.",
        fold=f"{len(_sample_lists(report))} dataset × metric(s): systems with "
        "intervals and rank intervals, pairwise tests, graphs",
    )


def _caveats(sentences: Sequence[str]) -> str:
    """Calibration caveats (reportgen.report.caveats) as a warning box."""
    if not sentences:
        return ""
    items = "".join(f"<li>{escape(x)}</li>" for x in sentences)
    return f'<div class="rg-warning rg-caveat"><ul>{items}</ul></div>'


def _comparisons_file(report: Report) -> str:
    """Where every pair is written: ``tables/comparisons.csv``, or the Parquet file when
    there are more than :data:`reportgen.report.tables.TABLE_ROWS_MAX` comparisons."""
    from reportgen.report.tables import TABLE_ROWS_MAX

    n = sum(int(u.comparisons.n_pairs) for u in report.analysis.compared)
    return f"tables/comparisons.{'parquet' if n > TABLE_ROWS_MAX else 'csv'}"


def _pairwise_table(report: Report, sl: Any, order: Sequence[str]) -> str:
    rows = sl.comparison_records()
    footer = ""
    if len(rows) > report.max_table_rows:
        neighbours = {frozenset(p) for p in zip(order[:-1], order[1:])}
        rows = [r for r in rows if frozenset((r["system_a"], r["system_b"])) in neighbours]
        footer = note(
            f"{len(sl.comparison_records()):,} pairs: the table shows each system "
            "against "
            "the next in the ranking; every pair is in "
            f"<code>{_comparisons_file(report)}</code>"
            + (" and results.json." if _comparisons_file(report).endswith(".csv") else ".")
        )
    proportion = bool(sl.proportion)
    levels = {r.get("confidence_adjusted") for r in rows} - {None}
    adjusted = f"{levels.pop():.1%} CI (adj.)" if len(levels) == 1 else "CI (adj.)"
    cols = [
        Col("system_a", "A"),
        Col("system_b", "B"),
        Col("diff", "A − B", partial(fmt.difference, proportion=proportion), True),
        Col("ci", adjusted, escape, True),
        Col("p_adjusted", "p adj.", p_cell, True),
        Col("p_value", "p (unadj.)", p_cell, True),
        Col("effect", "effect size", escape, True),
        Col("verdict", "", escape, css=lambda r: "sig" if r["significant"] else ""),
    ]
    shown = []
    for r in rows:
        ci = fmt.interval(
            r.get("ci_adjusted_low"), r.get("ci_adjusted_high"), proportion=proportion, signed=True
        )
        shown.append(
            {
                **r,
                "ci": ci,
                "effect": f"{num_cell(r.get('effect_size'), 2)} "
                f"{escape(r.get('effect_size_kind') or '')}".strip(),
                "verdict": "significant" if r["significant"] else "–",
            }
        )
    return table(shown, cols) + footer


# --------------------------------------------------------------------------- across metrics


@_with_figures
def across_metrics(report: Report) -> HTMLBlock | None:
    """The p-value heatmap of pairs × metrics and the metric aggregate of each dataset
    (Ackerman et al. 2025), with the TOPSIS cross-check."""
    from reportgen.charts import pvalue_heatmap, topsis_scatter

    aggregates = [a for a in report.analysis.aggregates if len(a.metrics) >= 2]
    if not aggregates:
        return None
    comparisons = report.analysis.comparisons()
    body = []
    for agg in aggregates:
        dataset = agg.dataset
        body.append(h3(f"{dataset}: {len(agg.metrics)} metrics", slug("metrics", dataset)))
        rows = [r for r in comparisons if r["dataset"] == dataset and r["metric"] in agg.metrics]
        figures = [
            screen_only(
                _try_chart(
                    partial(
                        pvalue_heatmap,
                        rows,
                        columns="metric",
                        alpha=report.alpha,
                        max_pairs=60,
                        title=f"{dataset}: adjusted p-values by metric",
                    ),
                    "Adjusted p-value of each pair on each metric; the colour marks which "
                    "system is better where the difference is significant (HTML report only).",
                    report,
                )
            )
        ]
        check = next((t for t in report.analysis.topsis if t.dataset == dataset), None)
        topsis_obj = None if check is None else check.result
        if check is not None and check.agreement.tau < TOPSIS_SHOWN_BELOW:
            scores = dict(zip(agg.systems, agg.means))
            figures.append(
                _try_chart(
                    partial(topsis_scatter, topsis_obj, [scores[s] for s in topsis_obj.systems]),
                    "TOPSIS closeness against the aggregate score: a cross-check of the "
                    f"aggregation (Hwang & Yoon 1981), shown because its order disagrees "
                    f"(Kendall τ = {check.agreement.tau:.2f}).",
                    report,
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


# --------------------------------------------------------------------------- across datasets


def _standardised_cell(value: Any) -> str:
    """A standardised score with three decimals (no "−0.000"), "–" when missing.

    >>> [_standardised_cell(v) for v in (0.4199, 0.004604, -0.05087, -1e-4, None)]
    ['0.420', '0.005', '−0.051', '0.000', '–']
    """
    x = fmt.number(value)  # "–" for missing values, as elsewhere
    if x == "–":
        return x
    rounded = round(float(value), 3)
    return escape(fmt.fixed(rounded if rounded != 0 else 0.0, 1.0, 3))


@_with_figures
def across_datasets(report: Report) -> HTMLBlock | None:
    """The ordered ranking across datasets and metrics (Ackerman et al. 2025): graph, cliques,
    harmonic-mean p, sign tests and the Friedman/Nemenyi critical difference."""
    from reportgen.charts import (
        clique_chart,
        connected_graph_chart,
        critical_difference_chart,
    )

    rk = report.analysis.ranking
    if rk is None or len(rk.lists) < 2:
        return None
    n_systems, n_lists = len(rk.systems), len(rk.lists)
    body = [
        f"<p>{n_systems} systems ordered over {n_lists} lists "
        f"({', '.join(escape(x) for x in rk.lists)}). Pairwise evidence: "
        f"{escape(rk.method)}.</p>"
    ]
    # the lists are aggregated as standardised means (Ackerman et al. 2025, §4.3)
    axis = "standardised mean (SD units)"
    if n_systems <= MAX_GRAPH_SYSTEMS:
        body.append(
            charts_row(
                _try_chart(
                    partial(
                        connected_graph_chart,
                        rk.graph,
                        title="Ordered ranking across datasets",
                        value_title=axis,
                    ),
                    "An arc joins two systems whose combined evidence is not significant.",
                    report,
                ),
                _try_chart(
                    partial(
                        clique_chart,
                        rk.graph,
                        title="Groups of indistinguishable systems",
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
                f"{n_systems} systems: the graph of "
                "indistinguishable systems is replaced by the tie-group letters "
                "of the Results table (systems sharing a letter are not "
                "significantly different)."
            )
        )
    significant = rk.significant()
    pairs = [
        {
            "system_a": rk.systems[i],
            "system_b": rk.systems[j],
            "p_adjusted": rk.p_adjusted[k],
            "effect_size": rk.effect_size[k],
            "significant": bool(significant[k]),
        }
        for k, (i, j) in enumerate(zip(rk.index_a, rk.index_b))
    ]
    neighbours = {frozenset(p) for p in zip(rk.systems[:-1], rk.systems[1:])}
    if len(pairs) > report.max_table_rows:
        pairs = [p for p in pairs if frozenset((p["system_a"], p["system_b"])) in neighbours]
    else:
        pairs.sort(key=lambda p: (math.isnan(p["p_adjusted"]), np.nan_to_num(p["p_adjusted"])))
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
                Col("p_adjusted", "harmonic-mean p (adj.)", p_cell, True),
                Col("effect_size", "combined effect size", lambda v: num_cell(v, 2), True),
                Col("significant", "", lambda v: "significant" if v else "–"),
            ],
        )
    )
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
                    partial(critical_difference_chart, fn),
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
    smallest = 2.0 ** (1 - n_lists)  # two-sided sign test: all n lists won by one side
    if signs and smallest <= report.alpha:
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
                f"reach α = {report.alpha:g} (its smallest p-value is "
                f"{smallest:.3g}), so its table is left out; the counts are in "
                "results.json."
            )
        )
    return section("Across datasets", body, sid="across-datasets")


# --------------------------------------------------------------------------- noise, power


@_with_figures
def noise_and_power(report: Report) -> HTMLBlock | None:
    """The noise floor in a few lines: per dataset × metric, its items and the minimum
    detectable effect (MDE) in the metric's units; the benchmark-noise charts are in
    :func:`noise_detail`."""
    units = [u for u in _sample_lists(report) if u.power is not None and u.derived_from is None]
    if not units:
        return None
    power = report.analysis.options.power
    ledger = report.analysis.ledger
    rows = []
    for u in units:
        assert u.power is not None
        figure = ledger.noise_of(u.dataset, u.metric)
        row = {
            "list": u.name,
            "n": u.n_items,
            "design": f"{u.pairing}, {u.modality}",
            "mde": "–" if figure is None else fmt.amount(figure.mde, proportion=u.proportion),
            "level": "–" if figure is None else f"{figure.level:.3g}",
        }
        needed = u.power.required
        row["n_required"] = None if needed is None else needed.n
        rows.append(row)
    cols = [
        Col("list", "dataset / metric"),
        Col("n", "items", count_cell, True),
        Col("design", "design"),
        Col("mde", f"MDE ({power:.0%} power)", escape, True),
        Col("level", "at α′", escape, True),
    ]
    delta = report.analysis.options.detect_delta
    if delta is not None and any(r["n_required"] is not None for r in rows):
        cols.append(Col("n_required", f"items for Δ = {delta:g}", count_cell, True))
    body = [
        table(rows, cols),
        note(
            "MDE: the smallest true difference one comparison of this design detects "
            f"with {power:.0%} power at α′, the per-comparison level of the family "
            f"({escape(ledger.family.describe())}), from the observed variability "
            "(median over pairs). It is a property of the evaluation, not of a result: "
            "a difference that is not significant is not shown to be smaller than it; "
            "the adjusted interval of each comparison says what is left open."
            + (
                ""
                if report.analysis.release is not None
                else " The benchmark noise of each dataset × metric is in the appendix."
            )
        ),
    ]
    return section("Noise and power", body, sid="noise-and-power")


@_with_figures
def noise_detail(report: Report) -> HTMLBlock | None:
    """Benchmark noise per dataset × metric (Wang et al. 2024): p-value against
    difference, |A − B| against A + B, Bradley-Terry ratings, the MDE curve."""
    from reportgen.charts import (
        bradley_terry_chart,
        difference_vs_sum_chart,
        power_curve_chart,
        pvalue_vs_difference_chart,
    )

    body: list[str] = []
    curve_unit = next((u for u in _sample_lists(report) if u.mde_curve is not None), None)
    if curve_unit is not None and curve_unit.mde_curve is not None:
        body.append(h3(f"MDE by number of items: {curve_unit.name}", "power-curve"))
        body.append(
            charts_row(
                _try_chart(
                    partial(
                        power_curve_chart,
                        curve_unit.mde_curve,
                        proportion=bool(curve_unit.proportion),
                    ),
                    f"MDE by number of items for {escape(curve_unit.name)}.",
                    report,
                )
            )
        )
    for unit in report.analysis.units:
        profile = unit.noise
        if profile is None:
            continue
        body.append(
            h3(f"Noise: {unit.dataset} / {unit.metric}", slug("noise", unit.dataset, unit.metric))
        )
        result = unit.comparisons
        decided = (
            ""
            if result is None
            else f"{int(np.sum(result.significant()))} of {result.n_pairs} pairs are "
            "significantly different after the family's correction (the pairwise "
            "table). "
        )
        body.append(
            f"<p>{decided}Benchmark noise (Wang et al. 2024, unadjusted sign tests at "
            f"α = {num_cell(profile.alpha, 2)}): the smallest difference whose p-value "
            f"falls below α is {fmt.amount(profile.p5_min, proportion=True)}–"
            f"{fmt.amount(profile.p5_max, proportion=True)} (p5_min–p5_max); null SD "
            f"{fmt.amount(profile.null_sd, proportion=True)}; "
            f"{profile.n_close_pairs} close pairs. The noise figure of this dataset × "
            "metric is its MDE (Noise and power).</p>"
        )
        if len(unit.systems) < 3:
            continue  # one pair: the numbers say it all
        figures = [
            _try_chart(
                partial(pvalue_vs_difference_chart, profile),
                "p-value of each pair against its difference.",
                report,
            )
        ]
        if profile.modality == "binary":
            figures.append(
                _try_chart(
                    partial(difference_vs_sum_chart, profile),
                    "|A − B| against A + B (discordant items) with the "
                    "exact significance boundaries.",
                    report,
                )
            )
        bt = None if unit.leaderboard is None else unit.leaderboard.bradley_terry
        bt_chart = ""
        if bt is not None and len(unit.systems) <= MAX_BT_SYSTEMS:
            bt_chart = _try_chart(
                partial(bradley_terry_chart, bt),
                "Bradley-Terry ratings (Elo scale) with bootstrap intervals.",
                report,
            )
        n = len(unit.systems)
        if n > NOISE_PRINT_SYSTEMS:
            body.append(screen_only(charts_row(*figures, bt_chart)))
            body.append(print_only(note(f"The charts of its {n} systems are in the HTML report.")))
        elif bt_chart and n > BT_PRINT_SYSTEMS:
            body.append(charts_row(*figures))
            body.append(screen_only(charts_row(bt_chart)))
            body.append(
                print_only(
                    note(f"The Bradley-Terry chart of its {n} systems is in the HTML report.")
                )
            )
        else:
            body.append(charts_row(*figures, bt_chart))
    return section(
        "Benchmark noise",
        body,
        sid="benchmark-noise",
        fold="p-values against differences, discordant items and "
        "Bradley-Terry ratings per dataset × metric",
    )


# --------------------------------------------------------------------------- items


@_with_figures
def items_section(report: Report) -> HTMLBlock | None:
    """Items solved by no system or one, suspect items, difficulty (Wang et al. 2024)."""
    from reportgen.charts import difficulty_histogram_chart

    body: list[str] = []
    for unit in report.analysis.units:
        obj = unit.items
        if obj is None:
            continue
        body.append(h3(f"{unit.dataset} / {unit.metric}", slug("items", unit.dataset, unit.metric)))
        unsolved, by_one, suspect = obj.unsolved, obj.solved_by_one, obj.suspect()
        facts = [
            f"{len(obj.items)} items",
            f"{len(unsolved)} solved by no system",
            f"{len(by_one)} by exactly one",
            f"{len(suspect)} suspect (negative Kendall τ with system quality)",
        ]
        body.append("<p>" + "; ".join(facts) + ".</p>")
        listing: list[tuple[str, Sequence[str]]] = []
        if unsolved:
            listing.append(("solved by none", unsolved))
        if by_one:
            listing.append(("solved by one", [f"{i} ({s})" for i, s in by_one.items()]))
        if suspect:
            listing.append(("suspect", suspect))
        for label, values in listing:
            # the HTML names up to ITEMS_LISTED, the PDF up to ITEMS_PRINTED
            first = ", ".join(escape(v) for v in values[:ITEMS_PRINTED])
            rest = ", ".join(escape(v) for v in values[ITEMS_PRINTED:ITEMS_LISTED])
            screen = f'<span class="rg-screen-only">, {rest}</span>' if rest else ""
            more = []
            if len(values) > ITEMS_LISTED:
                more.append(
                    f'<span class="rg-screen-only"> … ({len(values) - ITEMS_LISTED}'
                    " more in tables/items.csv)</span>"
                )
            if len(values) > ITEMS_PRINTED:
                more.append(
                    f'<span class="rg-print-only"> … '
                    f"({len(values) - ITEMS_PRINTED} more in tables/items.csv)"
                    "</span>"
                )
            body.append(f"<p><strong>{escape(label)}:</strong> {first}{screen}{''.join(more)}</p>")
        body.append(
            charts_row(
                _try_chart(
                    partial(difficulty_histogram_chart, obj),
                    "Share of systems solving each item.",
                    report,
                )
            )
        )
    return section(
        "Items",
        body,
        sid="items",
        fold="Items solved by no system or one, suspect items, difficulty",
    )


# --------------------------------------------------------------------------- runs


@_with_figures
def repeated_runs(report: Report) -> HTMLBlock | None:
    """Repeated runs: run-to-run variation, variance split, CI width by runs (Miller 2024)."""
    from reportgen.charts import ci_width_by_runs_chart

    body: list[str] = []
    for unit in report.analysis.units:
        runs = unit.runs
        if runs is None:
            continue
        d, m = unit.dataset, unit.metric
        body.append(h3(f"{d} / {m}: {runs.n_runs} runs × {runs.n_items} items", slug("runs", d, m)))
        body.append(_caveats([c for c in unit.caveats if "cluster-robust" in c]))
        pooled, differ = runs.pooled_runs, runs.runs_differ
        vc = runs.variance_components
        share = vc.prediction_share()
        proportion = bool(unit.proportion)
        rows = []
        for j, s in enumerate(vc.systems):
            p = pooled.systems.index(s) if s in pooled.systems else None
            r = differ.systems.index(s) if s in differ.systems else None
            rows.append(
                {
                    "system": s,
                    "mean": vc.mean[j],
                    "ci": ""
                    if p is None
                    else fmt.interval(pooled.ci_low[p], pooled.ci_high[p], proportion=proportion),
                    "share": share[j],
                    "test": None if r is None else differ.test,
                    "p": None if r is None else differ.p_value[r],
                }
            )
        body.append(
            table(
                rows,
                [
                    Col("system", "system"),
                    Col("mean", "mean", partial(fmt.value, proportion=proportion), True),
                    Col("ci", "pooled-runs CI", escape, True),
                    Col("share", "variance from runs", pct_cell, True),
                    Col("test", "runs differ: test"),
                    Col("p", "p", p_cell, True),
                ],
            )
        )
        body.append(
            note(
                "Pooled-runs CI: instance-level bootstrap over items with all "
                "runs pooled (Miller 2024). “Variance from runs”: share of the "
                "mean's variance due to run-to-run (prediction) noise."
            )
        )
        widths = runs.ci_width_by_runs
        if widths is not None:
            body.append(
                charts_row(
                    _try_chart(
                        partial(ci_width_by_runs_chart, widths, proportion=bool(unit.proportion)),
                        "CI width against the number of runs used.",
                        report,
                    )
                )
            )
    return section(
        "Repeated runs", body, sid="repeated-runs", fold="Run-to-run variation per dataset × metric"
    )


# --------------------------------------------------------------------------- groups


@_with_figures
def groups_and_hyperparameters(report: Report) -> HTMLBlock | None:
    """Comparisons within item groups and by hyperparameter (Ackerman et al. 2025)."""
    units = report.analysis.units
    body: list[str] = []
    groups = [(u, g) for u in units for g in u.groups]
    if groups:
        body.append(h3("Within item groups", "item-groups"))
        rows = [
            {
                "dataset": u.dataset,
                "metric": u.metric,
                "group": _levels(g.group),
                "n": g.n_items,
                "significant": 0
                if g.comparisons is None
                else int(np.count_nonzero(g.comparisons.significant())),
                "pairs": 0 if g.comparisons is None else g.comparisons.n_pairs,
                "note": g.note or "",
            }
            for u, g in groups
        ]
        body.append(
            table(
                rows,
                [
                    Col("dataset", "dataset"),
                    Col("metric", "metric"),
                    Col("group", "group"),
                    Col("n", "items", str, True),
                    Col("significant", "significant pairs", str, True),
                    Col("pairs", "pairs", str, True),
                ]
                + ([Col("note", "note")] if any(r["note"] for r in rows) else []),
            )
        )
    hyper = [(u, h) for u in units for h in u.hyperparameters]
    if hyper:
        body.append(h3("Hyperparameters", "hyperparameters"))
    for u, h in hyper:
        title = f"{u.dataset} / {u.metric}: {', '.join(h.compare)}"
        if h.condition:
            title += " given " + _levels(h.condition)
        body.append(f"<h4>{escape(title)}</h4>")
        if h.levels:
            body.append(
                table(
                    [
                        {
                            "level": lv.name,
                            "mean": lv.mean,
                            "n": lv.n,
                            "systems": ", ".join(lv.systems),
                        }
                        for lv in h.levels
                    ],
                    [
                        Col("level", "level"),
                        Col("mean", "pooled mean", num_cell, True),
                        Col("n", "n", str, True),
                        Col("systems", "systems"),
                    ],
                )
            )
        if h.comparisons is not None and h.comparisons.n_pairs:
            c = h.comparisons
            body.append(
                table(
                    [
                        {
                            "best": c.systems[c.index_a[k]],
                            "other": c.systems[c.index_b[k]],
                            "diff": c.diff[k],
                            "ci": f"[{num_cell(c.ci_low[k])}, {num_cell(c.ci_high[k])}]",
                            "p": c.p_adjusted[k],
                        }
                        for k in range(c.n_pairs)
                    ],
                    [
                        Col("best", "best level"),
                        Col("other", "other level"),
                        Col("diff", "difference", num_cell, True),
                        Col("ci", "CI", escape, True),
                        Col("p", "p adj.", p_cell, True),
                    ],
                )
            )
        if h.note:
            body.append(note(h.note))
    return section(
        "Groups and hyperparameters",
        body,
        sid="groups-and-hyperparameters",
        fold="Comparisons within item groups and by hyperparameter",
    )


def _levels(values: Mapping[str, Any]) -> str:
    """``column = level`` pairs of a group or condition, comma-separated."""
    return ", ".join(f"{k} = {v}" for k, v in values.items())


# --------------------------------------------------------------------------- methods


@_with_figures
def appendix(report: Report) -> HTMLBlock | None:
    """The start of the appendix: the detail behind the body, folded in HTML."""
    return HTMLBlock(
        '<section class="rg-section rg-appendix-start" id="appendix">'
        '<h2>Appendix</h2><p class="rg-note">The detail behind the '
        "results: per dataset × metric tables and charts, noise, items, "
        "runs, data and inputs. In the HTML report each part is folded: "
        "click its summary line to open it.</p></section>"
    )


#: The papers the report's methods come from, cited as (authors, year).
REFERENCES = (
    (
        "Ackerman et al. (2025)",
        "Statistical multi-metric evaluation and ranking of "
        "LLM-based systems: the test choice, the metric aggregation, the ordered ranking "
        "with its graph of indistinguishable systems.",
    ),
    ("Al Mohamad, Goeman & van Zwet (2022)", "Simultaneous confidence intervals for ranks."),
    (
        "Bradley & Terry (1952)",
        "Rank analysis of incomplete block designs: the method of paired comparisons.",
    ),
    (
        "Demšar (2006)",
        "Statistical comparisons of classifiers over multiple data sets "
        "(Friedman test, Nemenyi critical difference).",
    ),
    (
        "Dror, Baumer, Shlomov & Reichart (2018)",
        "The hitchhiker's guide to testing "
        "statistical significance in natural language processing.",
    ),
    ("Efron & Tibshirani (1993)", "An introduction to the bootstrap."),
    ("Holm (1979)", "A simple sequentially rejective multiple test procedure."),
    (
        "McNemar (1947)",
        "Note on the sampling error of the difference between correlated "
        "proportions or percentages.",
    ),
    (
        "Miller (2024)",
        "Adding error bars to evals: a statistical approach to language "
        "model evaluations (clustered and repeated-run intervals).",
    ),
    (
        "Piepho (2004)",
        "An algorithm for a letter-based representation of all-pairwise "
        "comparisons (tie-group letters).",
    ),
    ("Wang et al. (2024)", "Eval-Arena: noise and errors on LLM evaluations."),
    (
        "Wilson (1927)",
        "Probable inference, the law of succession, and statistical "
        "inference (the interval of a proportion).",
    ),
    ("Wilson (2019)", "The harmonic mean p-value for combining dependent tests."),
    (
        "Šidák (1967)",
        "Rectangular confidence regions for the means of multivariate normal distributions.",
    ),
    (
        "Strassburger & Bretz (2008)",
        "Compatible simultaneous lower confidence bounds for the Holm procedure and other "
        "Bonferroni-based closed tests.",
    ),
    (
        "Schuirmann (1987)",
        "A comparison of the two one-sided tests procedure and the power approach for "
        "assessing the equivalence of average bioavailability.",
    ),
    (
        "Miettinen (1976)",
        "Estimability and estimation in case-referent studies (test-based confidence limits).",
    ),
    ("Dunn (1961)", "Multiple comparisons among means (the Bonferroni correction)."),
    (
        "Berger (1982)",
        "Multiparameter hypothesis testing and acceptance sampling (the intersection-union test).",
    ),
    (
        "Benjamini & Hochberg (1995)",
        "Controlling the false discovery rate: a practical and powerful approach to "
        "multiple testing.",
    ),
    (
        "Benjamini & Yekutieli (2001)",
        "The control of the false discovery rate in multiple testing under dependency.",
    ),
    (
        "Benjamini & Yekutieli (2005)",
        "False discovery rate-adjusted multiple confidence intervals for selected parameters.",
    ),
    (
        "Tango (1998)",
        "Equivalence test and confidence interval for the difference in proportions for "
        "the paired-sample design.",
    ),
    ("Newcombe (1998)", "Interval estimation for the difference between independent proportions."),
    (
        "Welch (1947)",
        "The generalization of 'Student's' problem when several different population "
        "variances are involved.",
    ),
    ("Student (1908)", "The probable error of a mean."),
)

#: Words in a test's or an interval's name -> the reference the Methods cite for it.
_METHOD_REFERENCES = (
    ("mcnemar", "McNemar (1947)"),
    ("tango", "Tango (1998)"),
    ("newcombe", "Newcombe (1998)"),
    ("welch", "Welch (1947)"),
    ("paired t", "Student (1908)"),
    ("wilson", "Wilson (1927)"),
    ("bootstrap", "Efron & Tibshirani (1993)"),
    ("bca", "Efron & Tibshirani (1993)"),
)

#: The words of the report a reader may not know.
GLOSSARY = (
    (
        "interval",
        "a range that holds the true mean (or difference) with the stated "
        "confidence, e.g. 95%: the narrower, the more precise.",
    ),
    ("pts", "percentage points: the difference of two percentages (63.8% → 54.8% is −9.0 pts)."),
    (
        "p adj.",
        "the p-value adjusted for the number of comparisons made (multiple "
        "comparisons); a difference is significant when it is at most α.",
    ),
    (
        "tie group",
        "systems sharing a letter are not significantly different from each "
        "other (compact letter display).",
    ),
    (
        "MDE",
        "minimum detectable effect: the smallest true difference one comparison detects "
        "with the stated power at the family's per-comparison level; a property of the "
        "design, never evidence that an observed difference is small.",
    ),
    (
        "adjusted interval",
        "the interval beside an adjusted p-value: it excludes 0 exactly when the "
        "comparison is significant after the multiple-comparison correction.",
    ),
    (
        "paired",
        "every system was scored on the same items, so each comparison uses the "
        "per-item differences (more sensitive than comparing means).",
    ),
)


def methods(report: Report) -> HTMLBlock | None:
    """How the numbers were made, from the ledger (:attr:`Analysis.ledger`): exactly the
    tests, corrections, intervals, margins and family the claims used, each with its
    reference, and nothing about analyses the report does not show; a glossary. Which
    test where, the inputs with hashes and the versions are in :func:`provenance`."""
    from reportgen import __version__

    analysis = report.analysis
    ledger = analysis.ledger
    opts = analysis.options
    family = ledger.family
    cited: list[str] = []

    def cite(key: str) -> str:
        if key not in cited:
            cited.append(key)
        return key

    def listed(kind: str) -> str:
        parts = []
        for m in (m for m in ledger.methods if m.kind == kind):
            for word, key in _METHOD_REFERENCES:
                if word in m.name.lower():
                    cite(key)
            n = len(m.units)
            where = f" ({n} dataset × metric{'s' if n != 1 else ''})" if n else ""
            parts.append(f"{m.name}{where}")
        return "; ".join(parts) or "none"

    text: list[str] = []
    release = analysis.release
    if release is not None:
        text.append(
            f"The candidate {release.candidate} is compared with the baseline "
            f"{release.baseline} on every dataset × metric both were scored on, as "
            f"candidate − baseline, with {listed('test')}."
        )
        text.append(
            f"The release is one family: {family.describe()}. Every verdict is read off "
            f"the simultaneous interval at that family's level, which inverts the "
            f"comparison's own test: improved or regressed when it excludes 0 "
            f"({cite('Šidák (1967)')}; single-step because a step-down correction has no "
            f"intervals that agree with its decisions, {cite('Strassburger & Bretz (2008)')})."
        )
        if release.has_margin:
            text.append(
                f"Margins ({listed('margin')}): non-inferior when the one-sided "
                f"{1 - report.alpha / 2:.1%} bound lies above −δ, unadjusted, since "
                "“every dataset × metric is non-inferior” is an intersection-union test "
                f"of size α/2 ({cite('Berger (1982)')}); equivalent when the interval "
                f"lies within ±δ, two one-sided tests ({cite('Schuirmann (1987)')})."
            )
    else:
        text.append(
            "Every pair of systems is compared per dataset × metric with the test the "
            f"design and the kind of score call for ({cite('Ackerman et al. (2025)')}, "
            f"{cite('Dror, Baumer, Shlomov & Reichart (2018)')}): {listed('test')}."
        )
        for key in _correction_keys(family.correction):
            cite(key)
        cite("Miettinen (1976)")
        text.append(
            f"Multiplicity: {family.describe()}; the interval beside each decision is "
            f"{family.intervals}."
        )
    text.append(
        f"Intervals: {opts.confidence:.0%} for each system's mean; {listed('interval')} for "
        "the differences."
    )
    if ledger.noise:
        level = max(n.level for n in ledger.noise)
        text.append(
            f"MDEs are at {opts.power:.0%} power and the family's per-comparison level "
            f"(α′ ≤ {level:.3g})."
        )
    if release is None and analysis.ranking is not None:
        text.append(
            "Systems are ranked across datasets by an aggregate of standardised means "
            f"with the harmonic-mean p of {cite('Wilson (2019)')} and the critical "
            f"difference of {cite('Demšar (2006)')}; tie groups follow "
            f"{cite('Piepho (2004)')}."
        )
    if release is None and any(u.noise is not None for u in analysis.units):
        text.append(f"Benchmark noise follows {cite('Wang et al. (2024)')}.")
    if any(u.runs is not None for u in analysis.units):
        text.append(f"Repeated runs follow {cite('Miller (2024)')}.")
    text.append(
        f"reportgen {__version__}, seed {analysis.seed}: the same data, options and seed "
        "give the same numbers."
    )
    body = [f"<p>{escape(' '.join(text))}</p>"]
    body.append(h3("Glossary", "glossary"))
    body.append(
        '<dl class="rg-glossary">'
        + "".join(f"<dt>{escape(term)}</dt><dd>{escape(text)}</dd>" for term, text in GLOSSARY)
        + "</dl>"
    )
    body.append(h3("References", "references"))
    references = dict(REFERENCES)
    body.append(
        '<ul class="rg-references">'
        + "".join(
            f"<li>{escape(who)}. {escape(references[who])}</li>"
            for who in sorted(cited)
            if who in references
        )
        + "</ul>"
    )
    return section("Methods", body, sid="methods")


def _correction_keys(correction: str) -> tuple[str, ...]:
    """The references of a correction and of its adjusted intervals, as the References
    list names them."""
    return {
        "holm": ("Holm (1979)", "Strassburger & Bretz (2008)"),
        "holm-sidak": ("Holm (1979)", "Šidák (1967)", "Strassburger & Bretz (2008)"),
        "sidak": ("Šidák (1967)",),
        "bonferroni": ("Dunn (1961)",),
        "fdr_bh": ("Benjamini & Hochberg (1995)", "Benjamini & Yekutieli (2005)"),
        "fdr_by": ("Benjamini & Yekutieli (2001)", "Benjamini & Yekutieli (2005)"),
    }.get(correction, ())


def provenance(report: Report) -> HTMLBlock | None:
    """Which test where and why, the inputs with their sha256, the config and the
    versions of the packages (appendix)."""
    from reportgen.report.archive import build_manifest

    opts = report.analysis.options
    body = [
        f"<p>α = {opts.alpha:g}; {opts.confidence:.0%} intervals; "
        f"{opts.n_resamples:,} resamples where resampling is used; "
        f"{escape(_correction_name(report))}; comparison order {escape(opts.order)}; "
        f"alternative {escape(opts.alternative)}; effects count as relevant from a "
        f"{escape(opts.effect_threshold)} Cohen level; seed "
        f"{report.analysis.seed}.</p>"
    ]
    rows = []
    for sl in _sample_lists(report):
        rows.append(
            {
                "list": _list_title(sl),
                "pairing": sl.pairing,
                "modality": sl.modality,
                "test": sl.test,
                "ci": "" if sl.comparisons is None else sl.comparisons.ci_method,
                "why": _why(sl),
            }
        )
    body.append(
        table(
            rows,
            [
                Col("list", "dataset / metric"),
                Col("pairing", "pairing"),
                Col("modality", "modality"),
                Col("test", "test"),
                Col("ci", "difference CI"),
                Col("why", "why"),
            ],
        )
    )
    ci_methods = sorted({u.ci_method for u in report.analysis.units})
    body.append(
        note(f"Intervals of each system's mean: {', '.join(escape(m) for m in ci_methods)}.")
    )
    manifest = build_manifest(report.table.sources, parameters={}, seed=report.analysis.seed)
    files = [
        {"path": f["path"], "sha256": f["sha256"], "bytes": f["bytes"], "rows": i.get("rows")}
        for i in manifest["inputs"]
        for f in i["files"]
    ]
    body.append(h3("Inputs", "inputs"))
    body.append(
        table(
            files,
            [
                Col("path", "file"),
                Col("rows", "rows", lambda v: "" if v is None else f"{v:,}", True),
                Col("bytes", "bytes", lambda v: f"{v:,}", True),
                Col("sha256", "sha256", lambda v: f"<code>{escape(v)}</code>"),
            ],
        )
    )
    if report.config_path:
        body.append(note(f"Config: <code>{escape(report.config_path)}</code>."))
    packages = manifest["environment"]["packages"]
    body.append(
        note(
            "Versions: "
            + ", ".join(f"{escape(k)} {escape(v)}" for k, v in packages.items() if v)
            + f"; Python {escape(manifest['environment']['python'])}."
        )
    )
    return section(
        "Tests, inputs and versions",
        body,
        sid="provenance",
        fold="Which test where and why, input files with sha256, versions",
    )


# --------------------------------------------------------------------------- release

_VERDICT_CSS = {
    "improved": "improved",
    "regressed": "regressed",
    "no detectable difference": "nodiff",
    "non-inferior": "noninferior",
    "inconclusive": "inconclusive",
}
#: Items listed per dataset × metric in the appendix's "Items lost and gained" (losses
#: and gains each); every changed item is in tables/flips.csv.
MAX_FLIP_ITEMS = 25
#: Item ids listed per dataset × metric when the scores are 0/1 and the items have no
#: metadata (every change is ±1: the ids are the whole story).
MAX_FLIP_IDS = 200


@_with_figures
def release_summary(report: Report) -> HTMLBlock | None:
    """The release decision first: one sentence saying whether the candidate is better
    (:func:`reportgen.report.findings.release_decision`), every dataset × metric that was
    not compared (never silent), and the verdict table in the metric's units, oriented
    candidate − baseline. The table of contents follows it."""
    from reportgen.report.export import CONTENTS_MARKER
    from reportgen.report.findings import (
        decision_style,
        flips_line,
        not_compared_lines,
        release_decision,
    )

    comparison = report.analysis.release
    if comparison is None:
        return None
    items = flips_line(comparison)
    body = [
        f'<div class="rg-decision rg-decision-{decision_style(comparison)}"><p>'
        f"{release_decision(comparison)}</p>"
        + (f'<p class="rg-flips">{items}</p>' if items else "")
        + "</div>"
    ]
    missing = not_compared_lines(comparison)
    if missing:
        n = len(comparison.not_compared) + len(comparison.partial)
        what = (
            "Not compared"
            if not comparison.partial
            else ("Partial" if not comparison.not_compared else "Not compared or partial")
        )
        body.append(
            f'<div class="rg-warning rg-not-compared"><p><strong>{what} '
            f"({n} dataset × metric{'s' if n != 1 else ''})</strong>: the verdict "
            "covers only what both systems were scored on.</p><ul>"
            + "".join(f"<li>{line}</li>" for line in missing)
            + "</ul></div>"
        )
    if comparison.verdicts:
        body.append(_verdict_table(report, comparison))
    block = section("Release decision", body, sid="release-verdict")
    return None if block is None else HTMLBlock(block.html + CONTENTS_MARKER)


def _verdict_table(report: Report, comparison: Any) -> str:
    """The verdicts in the metric's units with the interval each is read off, the margin
    and equivalence (with margins) and the items lost and gained (paired data)."""
    from reportgen.report.claims import CORRECTION_NAMES

    margins, flips = comparison.has_margin, bool(comparison.flips)
    one_metric = len({v.metric for v in comparison.verdicts}) == 1
    # at most 10 columns, so the table stays on a portrait page of the PDF: the metric
    # joins the dataset when there are several, and the MDE goes when every verdict has
    # a margin (it explains "no detectable difference", which a margin replaces)
    show_mde = not all(v.margin is not None for v in comparison.verdicts)
    rows = []
    for v in comparison.verdicts:
        p = v.proportion
        rows.append(
            {
                "dataset": v.dataset if one_metric else v.name,
                "baseline": fmt.value(v.mean_baseline, proportion=p),
                "candidate": fmt.value(v.mean_candidate, proportion=p),
                "diff": fmt.difference(v.diff, proportion=p),
                "ci": fmt.interval(
                    v.ci_adjusted_low, v.ci_adjusted_high, proportion=p, signed=True
                ),
                "p_adjusted": v.p_adjusted,
                "mde": "–" if v.mde is None else fmt.difference(v.mde, proportion=p).lstrip("+"),
                "margin": "–"
                if v.margin is None
                else "±"
                + fmt.difference(v.margin, proportion=p).lstrip("+")
                + (" (equivalent)" if v.equivalent else ""),
                "ni_bound": "–" if v.ni_bound is None else fmt.difference(v.ni_bound, proportion=p),
                "items": "–" if v.n_lost is None else f"−{v.n_lost} / +{v.n_gained}",
                "verdict": v.verdict
                + (
                    " (lower is better)"
                    if v.direction == "lower" and v.verdict != "no detectable difference"
                    else ""
                ),
                "_css": _VERDICT_CSS[v.verdict],
            }
        )
    levels = sorted(
        {v.confidence_adjusted or v.confidence for v in comparison.verdicts}, reverse=True
    )
    cols = [
        Col("dataset", "dataset" if one_metric else "dataset / metric"),
        Col("baseline", "baseline", escape, True),
        Col("candidate", "candidate", escape, True),
        Col("diff", "candidate − baseline", escape, True),
        Col("ci", f"{levels[0]:.1%} CI" if len(levels) == 1 else "CI", escape, True),
        Col("p_adjusted", "p adj.", p_cell, True),
    ]
    if show_mde:
        cols.append(Col("mde", "MDE (design)", escape, True))
    if margins:
        cols += [
            Col("margin", "margin", escape, True),
            Col("ni_bound", f"one-sided {1 - report.alpha / 2:.1%} bound", escape, True),
        ]
    if flips:
        cols.append(Col("items", "items lost / gained", escape, True))
    cols.append(Col("verdict", "verdict", escape, css=lambda r: r["_css"]))
    asked = report.analysis.options.correction
    used = comparison.interval_correction or asked
    name = CORRECTION_NAMES.get(used) or "no"
    step = (
        f" (the single-step form of the {CORRECTION_NAMES.get(asked)} correction asked "
        f"for: a step-down correction has no intervals that agree with its decisions)"
        if used != asked
        else ""
    )
    m = len(comparison.verdicts)
    text = (
        f"Differences are candidate − baseline; proportions in percent, their "
        f"differences in percentage points (pts). Each verdict is read off the interval "
        f"beside it: the {name} simultaneous interval of the {m} comparisons"
        f"{step}, at level {levels[0]:.1%} for a family level of "
        f"{1 - report.alpha:.0%}. Improved or regressed: the interval excludes 0 (the "
        f"adjusted p-value is at most α = {report.alpha:g})."
    )
    if margins:
        text += (
            f" Non-inferior: the one-sided {1 - report.alpha / 2:.1%} bound (unadjusted) "
            "lies on the right side of −margin (a loss larger than the margin is ruled "
            "out); inconclusive: it does not. The non-inferiority gate passes when every "
            "dataset × metric is improved or non-inferior: an intersection-union test of "
            f"size α/2 = {report.alpha / 2:g}, which needs no adjustment (Berger 1982). "
            "Equivalent (beside the margin): the interval lies within ±margin (two "
            "one-sided tests)."
        )
    text += (
        " No detectable difference: the interval contains 0; what it leaves open (a "
        "loss or a gain up to its ends) is not ruled out."
    )
    if show_mde:
        level = next((n.level for n in report.analysis.ledger.noise), report.alpha)
        text += (
            f" MDE (design): the smallest true difference one comparison of this design "
            f"detects with {report.analysis.options.power:.0%} power at the family's "
            f"per-comparison level α′ = {level:.3g}; a property of the evaluation, "
            "not of the result: it says nothing about how large an undetected "
            "difference is (the interval does)."
        )
    if one_metric:
        text += f" Metric: {escape(comparison.verdicts[0].metric)}."
    if flips:
        text += (
            " Items lost / gained: items the baseline scored better / worse than the "
            "candidate (every one is in <code>tables/flips.csv</code>)."
        )
    return table(rows, cols) + note(text)


@_with_figures
def release_flips(report: Report) -> HTMLBlock | None:
    """The items the candidate lost and gained per paired dataset × metric, with the
    items' metadata: the largest losses and gains first (every changed item is in
    ``tables/flips.csv``)."""
    comparison = report.analysis.release
    if comparison is None or not comparison.flips:
        return None
    meta = report.analysis.table.item_metadata
    body = [
        note(
            "Items whose score changed from the baseline to the candidate. Lost: "
            "the baseline scored better; gained: the candidate did. Tables show the "
            f"largest changes first, at most {MAX_FLIP_ITEMS} of each; every changed "
            "item is in <code>tables/flips.csv</code>."
        )
    ]
    for flip in comparison.flips:
        body.append(
            h3(f"{flip.name}: lost {flip.n_lost}, gained {flip.n_gained} of {flip.n_items} items")
        )
        scores = set(flip.baseline_score) | set(flip.candidate_score)
        binary = scores <= {0.0, 1.0}
        rows = []
        for r, lost in zip(flip.to_records(), flip.lost):
            rows.append(
                {
                    "item": r["item"],
                    "baseline": f"{r['baseline_score']:.4g}",
                    "candidate": f"{r['candidate_score']:.4g}",
                    "change": f"{r['change']:+.4g}",
                    "lost": lost,
                    **_item_meta(meta, flip.dataset, r["item"]),
                }
            )
        extra = sorted(
            {k for r in rows for k in r} - {"item", "baseline", "candidate", "change", "lost"}
        )[:3]
        lost_rows = [r for r in rows if r["lost"]]
        gained_rows = [r for r in rows if not r["lost"]]
        if not binary:
            gained_rows = gained_rows[::-1]  # the largest gain first
        if binary and not extra:
            # 0/1 scores without metadata: every change is ±1, so the ids say it all
            for label, chosen in (("Lost", lost_rows), ("Gained", gained_rows)):
                if chosen:
                    shown = ", ".join(escape(r["item"]) for r in chosen[:MAX_FLIP_IDS])
                    more = (
                        f" and {len(chosen) - MAX_FLIP_IDS} more"
                        if len(chosen) > MAX_FLIP_IDS
                        else ""
                    )
                    body.append(
                        f'<p class="rg-flip-ids"><strong>{label} '
                        f"({len(chosen)})</strong>: {shown}{more}.</p>"
                    )
            continue
        cols = [
            Col("item", "item"),
            Col("baseline", "baseline", escape, True),
            Col("candidate", "candidate", escape, True),
            Col("change", "change", escape, True),
        ] + [Col(k, k, _meta_cell) for k in extra]
        for label, chosen in (("Lost", lost_rows), ("Gained", gained_rows)):
            if chosen:
                which = "largest" if not binary else "first"
                more = (
                    f" (the {MAX_FLIP_ITEMS} {which} of {len(chosen)})"
                    if len(chosen) > MAX_FLIP_ITEMS
                    else f" ({len(chosen)})"
                )
                body.append(
                    f"<p><strong>{label}{more}</strong></p>" + table(chosen[:MAX_FLIP_ITEMS], cols)
                )
    n = sum(f.n_lost + f.n_gained for f in comparison.flips)
    return section(
        "Items lost and gained",
        body,
        sid="release-flips",
        fold=f"{n} changed items in {len(comparison.flips)} dataset × "
        f"metric(s), with their metadata",
    )


def _meta_cell(value: Any) -> str:
    text = str(value)
    return escape(text if len(text) <= 80 else text[:79] + "…")


def _item_meta(meta: Any, dataset: str, item: str) -> dict[str, Any]:
    """The item-metadata columns of one item (empty when there are none)."""
    if meta is None or meta.empty:
        return {}
    try:
        row = meta.loc[(dataset, item)]
    except (KeyError, TypeError):
        return {}
    if getattr(row, "ndim", 1) != 1:
        row = row.iloc[0]
    return {str(k): v for k, v in row.items() if v is not None and v == v}


def verdict_sentence(v: Mapping[str, Any]) -> str:
    """One verdict of results.json in words and the metric's units (the e-mail's list)."""
    p = bool(v.get("proportion", False))
    where = f"{v['dataset']} / {v['metric']}"
    low, high = _decision_interval(v)
    diff = (
        f"{fmt.difference(v['diff'], proportion=p)} "
        f"{fmt.interval(low, high, proportion=p, signed=True)}"
    )
    values = (
        f"{fmt.value(v['mean_baseline'], proportion=p)} → "
        f"{fmt.value(v['mean_candidate'], proportion=p)}"
    )
    p_text = fmt.p_equals(v["p_adjusted"], "p adj.")
    items = "" if v.get("n_lost") is None else f"; lost {v['n_lost']} items, gained {v['n_gained']}"
    if v.get("margin") is not None:
        margin = fmt.difference(v["margin"], proportion=p).lstrip("+")
        p_text += f", margin ±{margin}" + ("; equivalent" if v.get("equivalent") else "")
    if v["verdict"] == "no detectable difference":
        left = fmt.leaves_open(low, high, direction=v.get("direction", "higher"), proportion=p)
        return f"{where}: no detectable difference ({values}, {diff}, {p_text}); {left}{items}."
    return f"{where}: {v['verdict']} ({values}, {diff}, {p_text}){items}."


def _decision_interval(v: Mapping[str, Any]) -> tuple[Any, Any]:
    """The interval a verdict row of results.json was read off: ``ci_adjusted_*``, or
    ``ci_low``/``ci_high`` in a file written before they had fields of their own."""
    if "ci_adjusted_low" in v:
        return v.get("ci_adjusted_low"), v.get("ci_adjusted_high")
    return v.get("ci_low"), v.get("ci_high")


@_with_figures
def release_details(report: Report) -> HTMLBlock | None:
    """The forest plot of candidate − baseline by verdict."""
    from reportgen.charts import forest_plot

    comparison = report.analysis.release
    if comparison is None or not comparison.verdicts:
        return None
    body = [
        charts_row(
            _try_chart(
                partial(
                    forest_plot,
                    [
                        {**v.to_dict(), "ci_low": v.ci_adjusted_low, "ci_high": v.ci_adjusted_high}
                        for v in comparison.verdicts
                    ],
                    title=f"{report.candidate} − {report.baseline}",
                ),
                "Difference candidate − baseline per dataset × metric with the interval "
                "its verdict is read off (the release's simultaneous interval), coloured "
                "by verdict.",
                report,
            )
        )
    ]
    return section("Differences", body, sid="release-differences")

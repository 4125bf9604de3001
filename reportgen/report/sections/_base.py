"""The report object every section reads (:class:`Report`, made by :func:`prepare`), the
layout constants and the helpers the sections share.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from reportgen import format as fmt
from reportgen.analysis.results import PairwiseResult, UnitResult
from reportgen.config import TITLES, default
from reportgen.errors import ConfigError
from reportgen.report.render.html import (
    FigurePool,
    HTMLBlock,
    Phone,
    escape,
    num_cell,
    theme_uses_bundled_font,
    try_figure,
)

if TYPE_CHECKING:
    from reportgen.analysis import Analysis, AnalysisOptions
    from reportgen.charts.render import Theme
    from reportgen.data import LoadOptions, ScoreTable
    from reportgen.execution import Execution

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


def _try_chart(
    build: Callable[[], Any], caption: str | None, report: Report, *, phone: Phone = "chart"
) -> str:
    """:func:`~reportgen.report.render.html.try_figure` in the report's theme and pool;
    ``phone="table"`` for the appendix's charts (a phone shows their numbers)."""
    return try_figure(build, caption, theme=report.theme, pool=report.figures, phone=phone)


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

    table: ScoreTable
    analysis: Analysis
    results: dict[str, Any]
    title: str
    theme: Theme
    output_dir: Path
    release: str | None = None
    baseline: str | None = None
    candidate: str | None = None
    verdicts: list[dict[str, Any]] | None = None
    warnings: list[str] = field(default_factory=list)
    max_table_rows: int = default("max_table_rows")
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
    load_options: LoadOptions | Mapping[str, Any] | None = None,
    analysis_options: AnalysisOptions | Mapping[str, Any] | None = None,
    title: str = TITLES["evaluation"],
    release: str | None = None,
    theme: str = default("theme"),
    output_dir: str = ".",
    baseline: str | None = None,
    candidate: str | None = None,
    release_report: bool = False,
    max_table_rows: int = default("max_table_rows"),
    execution: Execution | Mapping[str, Any] | None = None,
    figure_workers: int | str = 0,
    analysis_file: str = "",
    analysis_sha256: str = "",
) -> Report:
    """Load the data, run the analysis and gather what the sections show.

    Parameters
    ----------
    data
        Result files or folders (:func:`reportgen.data.load`).
    config
        TOML config file (metric directions, weights, ...), or None.
    load_options, analysis_options
        How the data are read and analysed: the options given by key (the notebook's
        parameters: what ``reportgen run`` resolved), or typed
        :class:`reportgen.data.LoadOptions` and :class:`reportgen.analysis.AnalysisOptions`;
        resolved once with the config file's sections and the declared defaults
        (:func:`reportgen.report.runspec.resolve_run`) when the analysis is made here.
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
        Where the dataset × metric units run: an
        :class:`reportgen.execution.Execution` or its keywords (``{"jobs": 4}``, ``{"executor":
        "dask", "scheduler": "tcp://host:8786"}``); default serial. The numbers do not
        depend on it.
    figure_workers
        Processes that render the charts while the sections are built
        (:class:`~reportgen.report.render.html.FigurePool`): 0 (default) renders them in this
        process; ``"auto"`` uses two when this process may run on two cores or more
        (the report notebooks ask for it). They start now, so they are ready when the
        analysis is. The report is the same either way.
    analysis_file, analysis_sha256
        The data and analysis ``reportgen run`` made before the notebook started
        (:func:`reportgen.report.prepared.hand_over`): taken over instead of loading and
        analysing again. Empty, missing or not matching the digest: loaded and analysed
        here (:func:`reportgen.report.prepared.load_and_analyse`).
    """
    from reportgen.charts.render import load_theme
    from reportgen.report.prepared import load_and_analyse, take_over
    from reportgen.report.runspec import resolve_run

    theme_obj = load_theme(theme)
    pool = _figure_pool(figure_workers, bundled_font=theme_uses_bundled_font(theme_obj.config))
    try:
        prepared = take_over(analysis_file, analysis_sha256) if analysis_file else None
        if prepared is None:  # not handed over: a notebook run by hand
            spec = resolve_run(
                data,
                config=config or None,
                load=load_options,
                analysis=_with_baseline(analysis_options, baseline),
                execution=execution,
                report={"release": release, "candidate": candidate},
                release_report=release_report,
            )
            prepared = load_and_analyse(spec, reraise=False)
    except BaseException:  # the workers stop with the failure
        if pool is not None:
            pool.close()
        raise
    table, analysis, caught = prepared.table, prepared.analysis, list(prepared.warnings)
    if prepared.release is not None:
        baseline, candidate = prepared.release.baseline, prepared.release.candidate
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


def _with_baseline(
    options: AnalysisOptions | Mapping[str, Any] | None, baseline: str | None
) -> AnalysisOptions | Mapping[str, Any] | None:
    """The analysis options with a release's ``baseline`` parameter in them (the
    baseline is an analysis option: :func:`reportgen.report.runspec.resolve_run` moves it
    to the release)."""
    if baseline is None:
        return options
    if options is None or isinstance(options, Mapping):
        return {**dict(options or {}), "baseline": baseline}
    from dataclasses import replace

    return replace(options, baseline=baseline)


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
#: the HTML lists all; the Results matrix has every system's value), and its pairwise
#: table the pairs among them; with more than :data:`UNIT_PRINT_FEW` dataset × metrics,
#: :data:`UNIT_PRINT_ROWS_MANY` (11 benchmarks of 200 systems: 28 pages of appendix
#: at 30).
UNIT_PRINT_ROWS = 30
UNIT_PRINT_FEW = 6
UNIT_PRINT_ROWS_MANY = 20


def _unit_print_rows(report: Report) -> int:
    """Systems the PDF lists per dataset × metric of the appendix."""
    many = len(report.analysis.compared) > UNIT_PRINT_FEW
    return UNIT_PRINT_ROWS_MANY if many else UNIT_PRINT_ROWS


#: Systems above which the Bradley-Terry chart (a row per system, a page of its own
#: beyond about 30) is HTML-only.
BT_PRINT_SYSTEMS = 30


def _caveats(sentences: Sequence[str]) -> str:
    """Calibration caveats (reportgen.report.caveats) as a warning box."""
    if not sentences:
        return ""
    items = "".join(f"<li>{escape(x)}</li>" for x in sentences)
    return f'<div class="rg-warning rg-caveat"><ul>{items}</ul></div>'


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

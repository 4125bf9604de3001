"""The HTML building blocks of the report, the history report and their sections:
escaping, sections and headings, tables, notes and chart figures.

Conventions (what :mod:`reportgen.report.export` expects): a section is
``<section class="rg-section" id=...><h2>...</h2>...</section>``, subsections ``<h3>``,
tables ``<table class="rg-table">`` with numeric cells ``<td class="num">``, charts
``<figure class="rg-chart"><svg>...</svg><figcaption>...</figcaption></figure>``.
"""

from __future__ import annotations

import base64
import html
import itertools
import json
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from reportgen import format as fmt
from reportgen.errors import ReportgenError
from reportgen.plaintext import shown

__all__ = [
    "Col",
    "MAIL_TABLE",
    "TableLayout",
    "FigurePool",
    "HTMLBlock",
    "Phone",
    "charts_row",
    "count_cell",
    "details",
    "escape",
    "figure",
    "render_figure",
    "h3",
    "Tab",
    "tabs",
    "note",
    "num_cell",
    "p_cell",
    "pct_cell",
    "screen_only",
    "section",
    "slug",
    "strip_tags",
    "table",
    "theme_uses_bundled_font",
    "try_figure",
    "bundled_font_suffices",
    "BUNDLED_FONT",
    "BUNDLED_FONT_CHARS",
]


@dataclass(frozen=True)
class HTMLBlock:
    """A piece of the report: HTML for the notebook and the export, text for consoles."""

    html: str
    text: str = ""

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": self.html, "text/plain": self.text or strip_tags(self.html)}

    def __str__(self) -> str:
        return self.text or strip_tags(self.html)


def strip_tags(text: str) -> str:
    """The text of an HTML fragment; charts become ``[chart]``."""
    text = re.sub(r"<svg.*?</svg>", "[chart]", text, flags=re.DOTALL)
    return re.sub(r"\s+\n", "\n", re.sub(r"<[^>]+>", "", text)).strip()


def escape(value: Any) -> str:
    """``str(value)`` escaped for HTML text and attributes; a control, bidirectional or
    line-separator character in it (a name holding U+202E) shown as a visible escape
    (:func:`reportgen.plaintext.shown`), so it cannot rearrange the text around it."""
    return html.escape(shown(value, keep_lines=True), quote=True)


def slug(*parts: str) -> str:
    """An HTML id from names: lower case, runs of other characters as one ``-``."""
    text = "-".join(parts).lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-") or "section"


def section(
    title: str,
    body: Iterable[str],
    *,
    sid: str | None = None,
    intro: str | None = None,
    fold: str | None = None,
) -> HTMLBlock | None:
    """A ``<section>`` with its ``<h2>``; None when ``body`` has nothing to show.

    ``fold`` (an appendix section) puts the body in a ``<details>`` block whose summary
    is ``fold`` (HTML): folded on screen without any script, shown open when printed.
    """
    parts = [p for p in body if p]
    if not parts:
        return None
    css = "rg-section rg-appendix" if fold else "rg-section"
    head = f'<section class="{css}" id="{escape(sid or slug(title))}"><h2>{escape(title)}</h2>'
    if intro:
        head += f"<p>{intro}</p>"
    inner = "\n".join(parts)
    if fold:
        inner = details(fold, inner)
    return HTMLBlock(head + inner + "</section>")


def screen_only(body: str) -> str:
    """HTML shown on screen and left out of the PDF (detail that would cost pages)."""
    return f'<div class="rg-screen-only">{body}</div>' if body else ""


def print_only(body: str) -> str:
    """HTML shown in the PDF only (e.g. what stands in there for detail left out)."""
    return f'<div class="rg-print-only">{body}</div>' if body else ""


def details(summary: str, body: str) -> str:
    """A folded block: ``summary`` (HTML) shown, ``body`` (HTML) on a click."""
    return (
        f'<details class="rg-fold"><summary>{summary}</summary>'
        f'<div class="rg-fold-body">{body}</div></details>'
    )


@dataclass(frozen=True)
class Tab:
    """One panel of :func:`tabs`: the ``id`` of its heading (a slug), its group (e.g. the
    dataset) and name (e.g. the metric; empty: the group alone names the tab) for the tab
    bar, and its HTML (starting with the heading)."""

    sid: str
    group: str
    name: str
    body: str


def tabs(panels: Sequence[Tab], *, label: str) -> str:
    """Panels of which a screen shows one at a time, chosen in a bar of links; without
    a script, so the report stays self-contained (its check refuses any script).

    Each tab links to an anchor at the top of the group, inside its panel: the panel
    holding the document's ``:target`` is shown and the others hide (``:has``, in the
    exporter's layout CSS); with no target inside, the first panel shows. So a link to a
    panel's heading from anywhere (the contents, a bookmark, an e-mail) selects that
    panel too, the Back button goes back to the panel before, and a browser without
    ``:has`` shows every panel. Printed (and in the PDF, which leaves the bar out as
    ``rg-screen-only``) every panel shows in full. The tab bar groups the tabs by
    ``group`` when several panels share one (a row per dataset), else shows
    "group / name"; the shown tab is marked by a ``<style media="screen">`` of one rule
    per panel (the PDF leaves it out too). One panel or none: the panels as they are.
    """
    if len(panels) < 2:
        return "\n".join(p.body for p in panels)
    groups: dict[str, list[Tab]] = {}
    for panel in panels:
        groups.setdefault(panel.group, []).append(panel)
    grouped = 1 < len(groups) < len(panels)

    def full(panel: Tab) -> str:
        return f"{panel.group} / {panel.name}" if panel.name else panel.group

    def link(panel: Tab, text: str, first: bool) -> str:
        css = "rg-tab rg-tab-first" if first else "rg-tab"
        return (
            f'<a class="{css}" href="#tab-{escape(panel.sid)}" data-tab="{escape(panel.sid)}"'
            f' title="{escape(full(panel))}">{escape(text)}</a>'
        )

    if grouped:
        rows = [
            '<div class="rg-tab-row"><span class="rg-tab-group">'
            f"{escape(group)}</span>"
            + "".join(link(p, p.name, p is panels[0]) for p in members)
            + "</div>"
            for group, members in groups.items()
        ]
    else:
        rows = [
            '<div class="rg-tab-row">'
            + "".join(link(p, full(p), p is panels[0]) for p in panels)
            + "</div>"
        ]
    many = " rg-tab-bar-many" if len(panels) > 12 else ""
    bar = (
        f'<nav class="rg-tab-bar rg-screen-only{many}" aria-label="{escape(label)}">'
        + "".join(rows)
        + "</nav>"
    )
    shown = ",\n".join(
        f'.rg-tabs:has(> [data-panel="{escape(p.sid)}"] :target) a[data-tab="{escape(p.sid)}"]'
        for p in panels
    )
    style = f'<style media="screen">\n{shown} {{ {TAB_SHOWN_CSS} }}\n</style>'
    body = "\n".join(
        f'<div class="rg-tab-panel" data-panel="{escape(p.sid)}">'
        f'<span class="rg-tab-anchor" id="tab-{escape(p.sid)}"></span>{p.body}</div>'
        for p in panels
    )
    return f'<div class="rg-tabs">{style}{bar}\n{body}</div>'


#: How the shown tab looks (the bar's other tabs are styled by the theme's CSS).
TAB_SHOWN_CSS = (
    "background: var(--accent, #333); border-color: var(--accent, #333); color: var(--bg, #fff);"
)


def h3(title: str, sid: str | None = None) -> str:
    return f'<h3 id="{escape(sid or slug(title))}">{escape(title)}</h3>'


def note(text: str) -> str:
    """A note paragraph; ``text`` is HTML."""
    return f'<p class="rg-note">{text}</p>'


def num_cell(value: Any, digits: int = 4) -> str:
    return escape(fmt.number(value, digits))


def effect_cell(value: Any, digits: int = 2) -> str:
    return escape(fmt.effect(value, digits))


def count_cell(value: Any) -> str:
    return escape(fmt.count(value))


def p_cell(value: Any) -> str:
    return escape(fmt.p_value(value))


def pct_cell(value: Any) -> str:
    return escape(fmt.percent(value))


@dataclass(frozen=True)
class Col:
    """A table column: key in the row, header, formatter (returns HTML), numeric
    alignment, and an optional CSS class per row."""

    key: str
    label: str
    fmt: Callable[[Any], str] = escape
    numeric: bool = False
    css: Callable[[Mapping[str, Any]], str] | None = None


@dataclass(frozen=True)
class TableLayout:
    """How :func:`table` frames its rows: the report's (a ``rg-table`` in a wrapper, head
    and body sections) or the e-mail's (:data:`MAIL_TABLE`)."""

    wrapper: str = "rg-table-wrap"
    opening: str = '<table class="rg-table">'
    #: ``<thead>``/``<tbody>`` around the header row and the rows
    sections: bool = True
    #: the header cells carry their column's alignment class (mail clients read no CSS
    #: selector such as ``th:nth-child``; the e-mail's CSS is inlined per element)
    aligned_head: bool = False


#: The e-mail's table: a presentation table (read as layout by screen readers in mail
#: clients) whose every cell carries its class, for the CSS inliner.
MAIL_TABLE = TableLayout(
    wrapper="scroll",
    opening='<table role="presentation" class="data" width="100%">',
    sections=False,
    aligned_head=True,
)


def table(
    rows: Sequence[Mapping[Any, Any]],
    columns: Sequence[Col],
    *,
    caption: str | None = None,
    print_rows: int | None = None,
    layout: TableLayout = TableLayout(),
    stack: bool = False,
) -> str:
    """An HTML table of ``rows`` (formatting only; values are escaped); with
    ``print_rows``, the rows after the first ``print_rows`` are left out of the PDF; with
    ``stack``, each cell carries its column's label (``data-label``) and the theme shows
    the rows as stacked cards on a phone (class ``rg-stack``)."""
    if not rows:
        return ""
    if layout.aligned_head:
        head = "".join(
            f'<th class="{"num" if c.numeric else ""}">{escape(c.label)}</th>' for c in columns
        )
    else:
        head = "".join(f"<th>{escape(c.label)}</th>" for c in columns)
    body = []
    for position, row in enumerate(rows):
        cells = []
        for c in columns:
            classes = ["num"] if c.numeric else []
            if c.css is not None:
                extra = c.css(row)
                if extra:
                    classes.append(extra)
            if layout.aligned_head:  # every cell names its class, an empty one too
                cls = f' class="{" ".join(classes)}"'
            else:
                cls = f' class="{" ".join(classes)}"' if classes else ""
            label = f' data-label="{escape(c.label)}"' if stack else ""
            cells.append(f"<td{cls}{label}>{c.fmt(row.get(c.key))}</td>")
        hidden = print_rows is not None and position >= print_rows
        body.append(
            ('<tr class="rg-screen-only">' if hidden else "<tr>") + "".join(cells) + "</tr>"
        )
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    opening = layout.opening
    if stack:  # the theme stacks the rows into labelled cards on a phone
        opening = opening.replace('class="rg-table"', 'class="rg-table rg-stack"', 1)
    if layout.sections:
        inner = f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody>"
    else:
        inner = f"<tr>{head}</tr>{''.join(body)}"
    return f'<div class="{layout.wrapper}">{opening}{cap}{inner}</table></div>'


#: An SVG larger than this (thousands of marks: a scatter of every pair of 60 systems) is
#: drawn as a PNG instead: smaller, and fast to lay out in the PDF.
DENSE_SVG_BYTES = 300_000
#: Pixels per SVG pixel of a rasterised chart (sharp on screens and in print).
RASTER_SCALE = 2.0


#: A chart drawing more rows than this is rendered straight to PNG: at 300 to 700 bytes
#: a row (a point with its tooltip, a boundary step), its SVG would pass DENSE_SVG_BYTES
#: and be drawn twice (the p-values of the 666 pairs of 37 systems: 460 KB of SVG; the
#: 477 rows of |A − B| against A + B for 25 systems: 146 KB, kept as SVG).
DENSE_ROWS = 600

#: Keys under which a Vega-Lite view summarises its rows (it then draws fewer marks).
_SUMMARISING = frozenset({"aggregate", "bin", "density", "regression", "loess"})


def _data_rows(spec: Mapping[str, Any]) -> int:
    """Marks a Vega-Lite spec draws, about: the rows of inline data (its own or a named
    dataset) of every view, layered and concatenated ones included, except views that
    aggregate or bin their rows."""
    datasets = spec.get("datasets") or {}

    def summarises(node: Any) -> bool:
        if isinstance(node, Mapping):
            return any(
                k in _SUMMARISING or (k not in ("data", "datasets") and summarises(v))
                for k, v in node.items()
            )
        if isinstance(node, list):
            return any(summarises(v) for v in node)
        return False

    def rows(node: Any) -> int:
        if isinstance(node, list):
            return sum(rows(v) for v in node)
        if not isinstance(node, Mapping):
            return 0
        data = node.get("data")
        own = 0
        if isinstance(data, Mapping):
            values = data.get("values")
            if not isinstance(values, list):
                values = datasets.get(data.get("name"))
            if isinstance(values, list) and not summarises(node):
                own = len(values)
        return own + sum(
            rows(node[k]) for k in ("layer", "hconcat", "vconcat", "concat", "spec") if k in node
        )

    return rows(spec)


def figure(
    chart: Any,
    caption: str | None = None,
    *,
    theme: Any = None,
    pool: FigurePool | None = None,
    phone: Phone = "chart",
) -> str:
    """A chart rendered to inline SVG in a ``<figure>`` (``caption`` is HTML); a dense
    chart (more than :data:`DENSE_ROWS` data rows, or an SVG over
    :data:`DENSE_SVG_BYTES`) as an embedded PNG of the same size. With a ``pool`` the
    chart is rendered in one of its worker processes and a placeholder is returned,
    which :meth:`FigurePool.resolve` replaces by the same figure. ``phone``: what a
    phone shows of a chart wider than its screen (:func:`render_figure`)."""
    from reportgen.charts.render import chart_spec

    spec = chart_spec(chart, theme)
    if pool is not None:
        return pool.submit(spec, caption, phone)
    return render_figure(spec, caption, phone=phone)


#: What a phone shows of a chart wider than its screen: the chart laid out to fit it
#: (else its table), its table, or the wide chart (scrolling in its frame).
Phone = Literal["chart", "table", "none"]


def render_figure(spec: Mapping[str, Any], caption: str | None, *, phone: Phone = "chart") -> str:
    """The ``<figure>`` of a Vega-Lite spec that already carries its theme
    (:func:`reportgen.charts.render.chart_spec`; see :func:`figure`). Only vl-convert
    is needed here (not Altair), so a :class:`FigurePool` worker starts in a tenth of a
    second; nothing is fetched (``allowed_base_urls=[]``).

    A chart wider than a phone's screen
    (:data:`~reportgen.report.render.phone.PHONE_WIDTH`) comes with a second figure for
    narrow screens: with ``phone="chart"`` the chart laid out again to fit
    (:func:`reportgen.report.render.phone.narrow_spec`) or, when it cannot fit, the
    table of its numbers (:func:`reportgen.report.render.phone.chart_table`); with
    ``phone="table"`` (the appendix's detail: no second drawing, a few kilobytes) the
    table. The page's CSS shows one of the two by the screen's width; the PDF leaves
    the narrow one out (``rg-screen-only``)."""
    from reportgen.report.render.phone import PHONE_WIDTH, chart_table

    wide, width = _render_one(spec, caption, "rg-chart")
    if phone == "none" or width <= PHONE_WIDTH:
        return wide
    narrow = _narrow_figure(spec, caption, width) if phone == "chart" else ""
    if not narrow:
        narrow = chart_table(spec, caption)
    return wide.replace('class="rg-chart"', 'class="rg-chart rg-wide-only"', 1) + narrow


def _render_one(
    spec: Mapping[str, Any], caption: str | None, css: str, *, hover: bool = True
) -> tuple[str, float]:
    """The ``<figure class=css>`` of a themed spec (inline SVG, or a PNG when dense) and
    its width in CSS pixels; ``hover``: each mark's tooltip as its SVG title (a phone
    has no pointer to hover with)."""
    import vl_convert

    from reportgen.report.render.svg import hover_titles

    cap = f"<figcaption>{caption}</figcaption>" if caption else ""
    if _data_rows(spec) <= DENSE_ROWS:
        svg = vl_convert.vegalite_to_svg(dict(spec), allowed_base_urls=[])
        svg = re.sub(r"^<\?xml[^>]*>\s*", "", svg)
        if len(svg) <= DENSE_SVG_BYTES:
            found = re.search(r'<svg\b[^>]*?\swidth="([0-9.]+)', svg[:2000])
            width = float(found.group(1)) if found else 0.0
            # each mark's tooltip (full names included) shown on hover: no script needed
            svg = hover_titles(svg) if hover else svg
            return f'<figure class="{css}">{svg}{cap}</figure>', width
    data = compact_png(
        vl_convert.vegalite_to_png(dict(spec), scale=RASTER_SCALE, allowed_base_urls=[])
    )
    # the PNG header holds its size in pixels: the figure keeps the chart's own size
    width, height = (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))
    png = base64.b64encode(data).decode("ascii")
    return (
        f'<figure class="{css}"><img src="data:image/png;base64,{png}" '
        f'width="{width / RASTER_SCALE:.0f}" height="{height / RASTER_SCALE:.0f}" '
        f'alt="{escape(strip_tags(caption or "chart"))}">{cap}</figure>',
        width / RASTER_SCALE,
    )


def _narrow_figure(spec: Mapping[str, Any], caption: str | None, width: float) -> str:
    """The phone's figure of a chart ``width`` pixels wide, laid out narrower (at most
    two tries: the first guesses the room of the axes and legends from the wide chart,
    the second takes off what the first was too wide); "" when it does not fit."""
    from reportgen.report.render.phone import (
        NARROW_CSS,
        PHONE_FIT,
        PHONE_MIN_PLOT,
        PHONE_WIDTH,
        narrow_spec,
    )

    plot = _plot_width(spec)
    overhead = width - plot if plot is not None and 0 < width - plot < PHONE_FIT else 80.0
    # the narrow layout takes less room beside the plot (legends below, row names above,
    # shorter labels): the first guess starts no lower than the smallest plot
    guess = max(int(PHONE_FIT - overhead), PHONE_MIN_PLOT + 40)
    for _ in range(2):
        if guess < PHONE_MIN_PLOT:
            break
        html, drawn = _render_one(narrow_spec(dict(spec), guess), caption, NARROW_CSS, hover=False)
        if drawn <= PHONE_WIDTH:
            return html
        guess = int(guess - (drawn - PHONE_FIT) - 2)
    return ""


def _plot_width(spec: Mapping[str, Any]) -> float | None:
    """The width of a chart's plot as the spec sets it (one view or a layer; a wrapped
    facet: its columns times its panels' width), or None."""
    width = spec.get("width")
    if isinstance(width, (int, float)):
        return float(width)
    inner = spec.get("spec")
    if "facet" in spec and isinstance(inner, Mapping) and isinstance(inner.get("width"), int):
        columns = spec.get("columns")
        return float(inner["width"]) * (columns if isinstance(columns, int) else 1)
    return None


def _warm_up() -> None:
    """Start a worker's Vega engine (its first chart takes about 0.4 s more)."""
    import vl_convert

    vl_convert.vegalite_to_svg({"mark": "point", "data": {"values": [{}]}})


#: The font vl-convert carries inside its own library (Liberation Sans 2, with the
#: metrics of Arial): the default theme's chart font.
BUNDLED_FONT = "Liberation Sans"


def _chars(*spans: tuple[int, int]) -> frozenset[str]:
    return frozenset(chr(c) for a, b in spans for c in range(a, b + 1))


#: Characters every Liberation Sans has (1.07 and 2.x): Latin with Latin-1 and
#: Latin Extended-A, Greek, basic Cyrillic, the common punctuation and the signs the
#: report writes. A chart with any other character is measured with the system's fonts.
BUNDLED_FONT_CHARS = _chars(
    (0x20, 0x7E), (0xA0, 0x17F), (0x391, 0x3A1), (0x3A3, 0x3C9), (0x400, 0x45F),
    (0x2013, 0x2014), (0x2018, 0x2019), (0x201C, 0x201D), (0x2020, 0x2022), (0x2026, 0x2026),
    (0x2030, 0x2030), (0x2039, 0x203A), (0x2190, 0x2190), (0x2192, 0x2192),
    (0x2212, 0x2212), (0x221E, 0x221E), (0x2248, 0x2248), (0x2260, 0x2260),
    (0x2264, 0x2265),
)  # fmt: skip

_FONT_KEY = re.compile(r'"(?:font|[A-Za-z]+Font)"\s*:\s*"((?:[^"\\]|\\.)*)"')


def bundled_font_suffices(spec: Mapping[str, Any]) -> bool:
    """Whether vl-convert's own Liberation Sans measures every text of a themed
    ``spec`` as the system's fonts would: the spec names a font, every font it names
    (``font``, ``labelFont``, ``titleFont``, ...) is Liberation Sans first, and every
    character of its strings is one of :data:`BUNDLED_FONT_CHARS`.

    >>> bundled_font_suffices({"config": {"font": "Liberation Sans, Arial"}, "title": "Δ ≈ 3"})
    True
    >>> bundled_font_suffices({"config": {"font": "Liberation Sans"}, "title": "模型"})
    False
    >>> bundled_font_suffices({"config": {"font": "DejaVu Sans"}})
    False
    >>> bundled_font_suffices({"title": "no font named"})
    False
    """
    text = json.dumps(spec, ensure_ascii=False, default=str)
    fonts = [json.loads(f'"{m}"') for m in _FONT_KEY.findall(text)]
    if not fonts or any(_first_family(f) != BUNDLED_FONT.lower() for f in fonts):
        return False
    return all(c in BUNDLED_FONT_CHARS or c < " " for c in set(text))


def _first_family(font: str) -> str:
    return font.split(",")[0].strip().strip("'\"").strip().lower()


def theme_uses_bundled_font(config: Mapping[str, Any]) -> bool:
    """Whether a theme's chart config names only :data:`BUNDLED_FONT` (first in every
    font list), so that a :class:`FigurePool` may draw its charts with that font alone.

    >>> theme_uses_bundled_font({"font": "Liberation Sans, Arimo, Arial, sans-serif"})
    True
    >>> theme_uses_bundled_font({"font": "Liberation Sans", "axis": {"labelFont": "Roboto"}})
    False
    """
    return bundled_font_suffices({"config": dict(config)})


_FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<!-- written by reportgen for its chart workers: a font folder without fonts -->
<fontconfig><dir>{folder}</dir></fontconfig>
"""


def _start_worker(parent: int, conf: str | None) -> None:
    """Worker initializer: end with the parent (:func:`reportgen.execution.die_with_parent`,
    even when it is killed with SIGKILL) and, given ``conf``, draw with the bundled font
    only (:func:`_bundled_font_only`)."""
    from reportgen.execution import die_with_parent

    die_with_parent(parent)
    if conf is not None:
        _bundled_font_only(conf)


def _bundled_font_only(conf: str) -> None:
    """Worker initializer: vl-convert's font database sees no system font, only the
    fonts it carries in memory (it reads ``FONTCONFIG_FILE`` on first use).

    A system font is a file that vl-convert opens, maps and closes again for every
    glyph it measures (about 11,000 times for one chart with a few hundred labels):
    measured on the bundled example's 51 charts, 8.7 s (5.6 s of it in the kernel)
    with DejaVu Sans from the system against 1.8 s with the bundled Liberation Sans."""
    import os

    os.environ["FONTCONFIG_FILE"] = conf


class FigurePool:
    """Worker processes that render a section's charts while the section is built.

    vl-convert draws one chart at a time per process (30-200 ms for a chart with a few
    dozen labels, most of it measuring text), so the report renders in ``workers``
    processes: :func:`figure` with ``pool=`` submits the chart and returns a
    placeholder, and :meth:`resolve` waits for the section's charts and puts them in
    place. The figures are the same as rendered in the calling process (the same
    function draws them). The workers start ("spawn") when the pool is made, so they
    are ready by the time the analysis is done; :meth:`close` (or the pool's garbage
    collection) stops them.

    With ``bundled_font=True`` (the theme's charts are in :data:`BUNDLED_FONT`, see
    :func:`theme_uses_bundled_font`) the workers see no system font: vl-convert then
    measures text with the copy of Liberation Sans it holds in memory instead of
    reopening a font file for every glyph, four to five times faster. A chart with a
    character that font lacks, or another font, is drawn in the calling process
    (:func:`bundled_font_suffices`), so the figures stay the same either way.
    """

    _TOKEN = re.compile(r"<!--rg-figure-(\d+)-->")

    def __init__(self, workers: int = 2, *, bundled_font: bool = False) -> None:
        import multiprocessing
        import os
        import shutil
        import tempfile
        import weakref
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import resource_tracker
        from pathlib import Path
        from xml.sax.saxutils import escape as xml_escape

        # The pool's queues start multiprocessing's resource tracker unless it runs
        # already; a tracker the pool started is stopped with it (see close).
        self._owns_tracker = getattr(resource_tracker._resource_tracker, "_fd", 0) is None
        self._folder: str | None = None
        conf: str | None = None
        if bundled_font:
            self._folder = tempfile.mkdtemp(prefix="reportgen-fonts-")
            conf = str(Path(self._folder) / "fonts.conf")
            Path(conf).write_text(_FONTS_CONF.format(folder=xml_escape(self._folder)), "utf-8")
        self._executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(), conf),
        )
        self._futures: dict[int, Any] = {}
        self._done: dict[int, str] = {}
        self._keys = itertools.count()
        self._closer = weakref.finalize(
            self, _shut_down, self._executor, self._folder, shutil.rmtree
        )
        for _ in range(workers):
            self._executor.submit(_warm_up)

    @property
    def bundled_font(self) -> bool:
        """Whether the workers draw with vl-convert's own font only."""
        return self._folder is not None

    def submit(self, spec: Mapping[str, Any], caption: str | None, phone: Phone = "chart") -> str:
        """Start rendering a themed spec (:func:`render_figure`); its placeholder."""
        key = next(self._keys)
        if self.bundled_font and not bundled_font_suffices(spec):
            self._done[key] = render_figure(spec, caption, phone=phone)
        else:
            self._futures[key] = self._executor.submit(
                partial(render_figure, phone=phone), dict(spec), caption
            )
        return f"<!--rg-figure-{key}-->"

    def resolve(self, text: str) -> str:
        """``text`` with each placeholder replaced by its figure (waiting for it); a
        chart that failed to render raises its error here."""

        def figure_of(match: re.Match[str]) -> str:
            key = int(match[1])
            if key in self._done:
                return self._done.pop(key)
            return str(self._futures.pop(key).result())

        return self._TOKEN.sub(figure_of, text)

    def close(self) -> None:
        """Stop the workers and wait until they have exited (charts not yet drawn are
        cancelled); then stop the resource tracker if the pool started it, and remove
        the workers' font configuration.

        The tracker ignores SIGTERM: a Jupyter kernel that still has it as a child
        waits about 2.6 s at shutdown before it is killed (measured on every report,
        whose notebook ends with :func:`~reportgen.report.sections.write_outputs`,
        which closes the pool). Safe to call twice."""
        import shutil
        from multiprocessing import resource_tracker

        if not self._closer.alive:
            return
        self._closer.detach()
        self._futures.clear()
        self._done.clear()
        _shut_down(self._executor, self._folder, shutil.rmtree, wait=True)
        stop = getattr(resource_tracker._resource_tracker, "_stop", None)
        if self._owns_tracker and stop is not None:
            stop()


def _shut_down(
    executor: Any, folder: str | None, rmtree: Callable[..., None], *, wait: bool = False
) -> None:
    executor.shutdown(wait=wait, cancel_futures=True)
    if folder is not None:  # the pool made it (tempfile.mkdtemp): fonts.conf only
        rmtree(folder, ignore_errors=True)


def compact_png(data: bytes) -> bytes:
    """A chart's PNG as a palette PNG on white (128 colours): a fifth to a tenth of the
    size of the RGBA rendering, with no visible loss on flat-coloured charts; the
    original when that is not smaller."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        background = Image.new("RGB", image.size, "white")
        background.paste(image, mask=image.getchannel("A") if "A" in image.mode else None)
        out = io.BytesIO()
        background.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(
            out, "PNG", optimize=True
        )
    return out.getvalue() if len(out.getvalue()) < len(data) else data


def charts_row(*figures: str) -> str:
    """Figures side by side (they wrap on narrow screens)."""
    inner = "".join(f for f in figures if f)
    return f'<div class="rg-charts">{inner}</div>' if inner else ""


def try_figure(
    build: Callable[[], Any],
    caption: str | None,
    *,
    theme: Any,
    pool: FigurePool | None = None,
    phone: Phone = "chart",
) -> str:
    """Build and render a chart; a chart that cannot be drawn for these data (e.g. one
    system) becomes a note instead of failing the report. ``pool``: see
    :class:`FigurePool`; ``phone``: see :func:`render_figure`.

    Altair's debug mode (a JSON-schema check of every object as it is built, including
    each row of inline data) is off while the report builds its charts: it took 0.17 s
    per chart of 1,700 pairs, a quarter of a large report's chart time. The chart
    builders are tested with validation on (``tests/charts``), and vl-convert rejects an
    invalid spec anyway."""
    from altair.utils.schemapi import debug_mode

    try:
        with warnings.catch_warnings(), debug_mode(False):
            warnings.simplefilter("ignore")
            chart = build()
            return figure(chart, caption, theme=theme, pool=pool, phone=phone)
    except ReportgenError as exc:
        return note(f"Chart not drawn: {escape(exc)}")

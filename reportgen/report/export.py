"""Export an executed report notebook to one self-contained HTML file and to a PDF.

The archive HTML (:func:`notebook_to_html`) is a single file that needs no script and no
network: the theme's CSS is inlined in one ``<style>``, charts are inline SVG (or PNG as
``data:`` URIs), and a table of contents links every ``h2``/``h3``. Only what a reader
should see is exported: rich outputs (``text/html``, ``image/svg+xml``, ``image/png``,
``image/jpeg``, Vega-Lite specs rendered to SVG, ``text/markdown``) and Markdown cells;
code, ``text/plain``-only results and streams are left out. Cells tagged ``remove`` are
left out entirely; code cells tagged ``remove-output`` contribute nothing.

The PDF (:func:`html_to_pdf`) is rendered from the same HTML by WeasyPrint with a print
stylesheet generated here: page size and margins, running header (title, release), "page
N of M" footer, page numbers in the table of contents, and page breaks that never split a
chart or a table row.

:func:`external_references` lists everything in a document that would need the network
or a script; the pipeline refuses to write an archive HTML for which it is not empty.

>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("## Summary")])
>>> html = notebook_to_html(nb, title="Release 1.2")
>>> '<a href="#summary">Summary</a>' in html
True
>>> external_references(html)
[]
"""

from __future__ import annotations

import base64
import html as _html
import json
import os
import re
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from reportgen.charts.render import Theme, load_theme
from reportgen.errors import ConfigError, ReportgenError
from reportgen.report._pdf_charts import ChartDrawer, chart_boxes, overlay_charts, take_charts
from reportgen.report._pdf_tables import FIXED_TABLE_CSS, fix_table_widths, text_metrics

__all__ = ["external_references", "html_to_pdf", "notebook_to_html"]

#: Layout rules the exporter's own markup needs, whatever the theme; the theme's
#: ``report.css`` comes after them and may override any of them.
_LAYOUT_CSS = """\
*, *::before, *::after { box-sizing: border-box; }
@media screen { .rg-table-wrap { overflow-x: auto; } }
.rg-table-wrap { margin: 1rem 0; max-width: 100%; }
/* a long name wraps anywhere rather than push the table off the printed page; on a
   screen the table scrolls instead and no word is broken */
@media print { td:first-child, td.rg-long { overflow-wrap: anywhere; } }
td.rg-long { white-space: normal !important; min-width: 12em; }
.rg-table-wrap > table { margin: 0; }
figure.rg-chart { margin: 1.25rem auto; max-width: 100%; text-align: center; }
figure.rg-chart > svg, figure.rg-chart > img { display: block; margin: 0 auto;
  max-width: 100%; height: auto; }
figure.rg-chart > figcaption { margin-top: .4rem; }
.rg-charts { display: flex; flex-wrap: wrap; justify-content: center;
  align-items: flex-start; gap: .5rem 1.5rem; margin: 1rem 0; }
.rg-charts > figure.rg-chart { margin: .5rem 0; min-width: 0; }
.rg-toc ol { list-style: none; margin: 0; padding-left: 0; }
.rg-toc ol ol { padding-left: 1.25rem; }
.rg-meta { margin: .5rem 0 0; }
.rg-meta > div { display: inline-block; margin: 0 1.5rem .15rem 0; }
.rg-meta dt, .rg-meta dd { display: inline; margin: 0 .3rem 0 0; }
/* vl-convert lays chart text out with Arial/Times metrics (Liberation fonts); wider
   fallbacks such as DejaVu Sans would make labels overlap axis titles. */
svg text[font-family="sans-serif"] { font-family: "Liberation Sans", Arimo, Arial,
  Helvetica, "DejaVu Sans Condensed", sans-serif; }
svg text[font-family="serif"] { font-family: "Liberation Serif", Tinos, "Times New Roman",
  Times, "DejaVu Serif Condensed", serif; }
.rg-print-only { display: none; }
@media print {
  .rg-screen-only, tr.rg-screen-only { display: none; }
  .rg-print-only { display: block; }
  span.rg-print-only { display: inline; }
  .rg-charts { display: block; text-align: center; }
  .rg-charts > figure.rg-chart { display: inline-block; vertical-align: top;
    margin: .5rem .6rem; }
}
/* the contents: a sidebar on wide screens (_WIDE_SCREEN_CSS), else a folded block */
.rg-sidebar { display: none; }
"""

#: The contents as a sidebar beside the report on screens of 1200 px and wider, where
#: the folded block in the body hides; in its own ``<style media=...>`` element, which
#: the PDF export leaves out with the sidebar (WeasyPrint reads media types only).
_WIDE_MEDIA = "screen and (min-width: 1200px)"
_WIDE_SCREEN_CSS = """\
.rg-sidebar { display: block; position: fixed; top: 0; left: 0; bottom: 0;
  width: 16rem; overflow-y: auto; padding: 1.5rem 1rem 2rem 1.25rem;
  border-right: 1px solid var(--rule-light, #dde1e6); background: var(--bg, #fff);
  font-size: .85rem; line-height: 1.35; }
.rg-sidebar ol { list-style: none; margin: 0; padding-left: 0; }
.rg-sidebar ol ol { padding-left: .9rem; }
.rg-sidebar li { margin: .2rem 0; }
.rg-sidebar a { text-decoration: none; }
.rg-sidebar a:hover { text-decoration: underline; }
/* after the theme's CSS, and "html body" outweighs its "body" rule */
html body { padding-left: 18rem; max-width: calc(1100px + 18rem); }
.rg-body .rg-toc { display: none; }
"""


class _ScreenOnly(HTMLParser):
    """The spans of ``html`` the PDF does not show: elements of class ``rg-screen-only``
    or ``rg-sidebar`` and ``<style media="screen ...">`` elements (whole, with what they
    hold)."""

    _VOID = frozenset(
        {
            "area",
            "base",
            "br",
            "col",
            "embed",
            "hr",
            "img",
            "input",
            "link",
            "meta",
            "source",
            "track",
            "wbr",
        }
    )

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self._lines = [0]
        for line in html.splitlines(keepends=True):
            self._lines.append(self._lines[-1] + len(line))
        self.spans: list[tuple[int, int]] = []
        self._depth = 0  # open elements inside the one being dropped
        self._start = 0
        self.feed(html)
        self.close()
        if self._depth:  # an element left open: drop nothing rather than too much
            self.spans = []

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._VOID:
            return
        if self._depth:
            self._depth += 1
            return
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if (
            "rg-screen-only" in classes
            or "rg-sidebar" in classes
            or (tag == "style" and (values.get("media") or "").startswith("screen"))
        ):
            self._depth, self._start = 1, self._offset()

    def handle_endtag(self, tag: str) -> None:
        if not self._depth or tag in self._VOID:
            return
        self._depth -= 1
        if not self._depth:
            end = self._offset()
            self.spans.append((self._start, end + len(f"</{tag}>")))


def _print_html(html: str) -> str:
    """``html`` without what only a screen shows (see :class:`_ScreenOnly`): WeasyPrint
    would parse it and lay nothing out (about a tenth of a large report's PDF time)."""
    parts, last = [], 0
    for start, end in _ScreenOnly(html).spans:
        parts.append(html[last:start])
        last = end
    parts.append(html[last:])
    return "".join(parts)


_PAGE_SIZE = re.compile(
    r"(?:(?:a[0-6]|b[4-5]|jis-b[4-5]|letter|legal|ledger)(?:\s+(?:portrait|landscape))?"
    r"|\d+(?:\.\d+)?(?:mm|cm|in|pt)\s+\d+(?:\.\d+)?(?:mm|cm|in|pt))",
    re.IGNORECASE,
)
_PAGE_SIZES_HINT = (
    "use A4, A3, A5, B5, letter, legal or ledger, optionally followed by "
    "'landscape', or a width and a height such as '210mm 297mm'"
)

_WEASYPRINT_HINT = (
    "WeasyPrint cannot load ({error}); it needs the Pango, HarfBuzz and font libraries "
    "of the system. On Debian/Ubuntu: apt-get install libpango-1.0-0 libpangoft2-1.0-0 "
    "libharfbuzz0b fonts-dejavu-core (and fonts-liberation, the fonts chart labels are "
    "measured with). Or write the HTML report only (--format html)."
)

#: Tables with more columns than this get a landscape page of their own in the PDF.
_WIDE_TABLE_COLUMNS = 10
_MARGIN_FONTS = '"Liberation Sans", Arimo, Arial, Helvetica, "DejaVu Sans", sans-serif'

_VEGALITE_MIME = re.compile(r"application/vnd\.vegalite\.v\d+(?:\.\d+)*\+json")
_IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif")


# --------------------------------------------------------------------------------------
# notebook -> HTML


#: A word of the report's text longer than this is cut to its start and end (a system
#: name of 10,000 characters would push every table off the page); the full names stay
#: in tables/*.csv and results.json.
MAX_WORD = 100
_TEXT_NODE = re.compile(r">([^<]+)<")
_LONG_WORD = re.compile(r"[^\s<>]{" + str(MAX_WORD + 1) + ",}")


def cut_long_words(html: str) -> str:
    """``html`` with every run of more than :data:`MAX_WORD` non-space characters in a
    text node (not in tags or attributes) cut to its first 60 and last 30 characters
    around "…"; entities are never split.

    >>> cut = cut_long_words("<td>" + "x" * 500 + "</td>")
    >>> cut == "<td>" + "x" * 60 + "…" + "x" * 30 + "</td>"
    True
    """

    def cut_word(match: re.Match[str]) -> str:
        word = match.group()
        start, end = word[:60], word[-30:]
        amp = start.rfind("&")  # never leave half an entity at either end
        if amp != -1 and ";" not in start[amp:]:
            start = start[:amp]
        semi = end.find(";")
        if semi != -1 and "&" not in end[:semi]:
            end = end[semi + 1 :]
        return f"{start}…{end}"

    return _TEXT_NODE.sub(lambda m: ">" + _LONG_WORD.sub(cut_word, m.group(1)) + "<", html)


def notebook_to_html(
    nb: Mapping[str, Any],
    *,
    title: str,
    release: str | None = None,
    theme: str | Path | Theme = "default",
    meta: Sequence[tuple[str, str]] = (),
    created: str | None = None,
) -> str:
    """One self-contained HTML5 document from an executed report notebook.

    Parameters
    ----------
    nb
        The executed notebook (an ``nbformat`` notebook node or the same structure as
        plain dicts).
    title
        The report title: the ``<title>``, the ``h1`` and the PDF's running header.
    release
        The release label shown under the title, if any.
    theme
        A bundled theme name, a theme folder, or a :class:`~reportgen.charts.render.Theme`;
        its ``report.css`` is inlined.
    meta
        ``(label, value)`` pairs shown as a small definition list in the header block,
        e.g. ``[("seed", "20240611"), ("reportgen", "0.4.0")]``.
    created
        When the report was made, shown as is (an ISO 8601 timestamp is customary).

    Returns
    -------
    str
        The document: one ``<style>``, a header block, a table of contents
        (``<nav class="rg-toc">``) linking every ``h2`` and ``h3`` of the body, then the
        body. A heading without an ``id`` is linked through the ``id`` of the
        ``<section>`` it opens, else gets a unique one made from its text (a later
        heading repeating an ``id`` is renamed). Tables not already in a
        ``<div class="rg-table-wrap">`` are wrapped in one (scrollable when too wide);
        a table of more than 10 columns adds ``rg-wide`` to it (a landscape page in
        the PDF). The ids inside each inline SVG are prefixed so charts never share
        clip paths or gradients.

    Raises
    ------
    ReportgenError
        A cell has an ``error`` output (the notebook failed; the message names the
        cell), or an output cannot be embedded.
    ConfigError
        The title is empty, or the theme's CSS would end the ``<style>`` element early.

    Notes
    -----
    Nothing is removed from the outputs: a ``<script>`` or a network reference produced
    by a section stays in the document, where :func:`external_references` reports it.
    """
    _title_iv(title)
    loaded = load_theme(theme)
    if re.search(r"</style", loaded.css, re.IGNORECASE):
        raise ConfigError(
            f"the report.css of theme {loaded.name!r} contains '</style', "
            "which would end the report's <style> element early",
            hint="remove it from the theme's report.css",
        )
    body, headings = _finish_body(cut_long_words("\n".join(_notebook_fragments(nb))))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="reportgen">',
        f"<title>{_esc(title)}</title>",
        f"<style>\n{_LAYOUT_CSS}\n{loaded.css}\n</style>",
        f'<style media="{_WIDE_MEDIA}">\n{_WIDE_SCREEN_CSS}</style>',
        "</head>",
        "<body>",
        _sidebar_html(headings),
        _header_html(title, release, created, meta),
        *_body_with_contents(body, _toc_html(headings)),
        "</body>",
        "</html>",
        "",
    ]
    return "\n".join(part for part in parts if part)


#: Where a section asks for the table of contents (after the key findings); without it
#: the contents come first.
CONTENTS_MARKER = "<!-- rg:contents -->"


def _body_with_contents(body: str, toc: str) -> list[str]:
    """The contents and the ``<main>`` body: the contents in place of
    :data:`CONTENTS_MARKER` (the key findings come first), else before the body."""
    if CONTENTS_MARKER in body:
        before, after = body.split(CONTENTS_MARKER, 1)
        return [f'<main class="rg-body">\n{before}\n{toc}\n{after}\n</main>']
    return [toc, f'<main class="rg-body">\n{body}\n</main>']


def _title_iv(title: str) -> None:
    if not isinstance(title, str) or not title.strip():
        raise ConfigError(
            f"the report title must be a non-empty string, got {title!r}",
            hint="pass a title such as 'Release 2.1 evaluation'",
        )


def _esc(text: object) -> str:
    return _html.escape(str(text), quote=True)


def _header_html(
    title: str, release: str | None, created: str | None, meta: Sequence[tuple[str, str]]
) -> str:
    lines = ['<header class="rg-header">', f'<h1 class="rg-title">{_esc(title)}</h1>']
    facts = []
    if release is not None:
        facts.append(f'<span class="rg-release">Release {_esc(release)}</span>')
    if created is not None:
        facts.append(f'<span class="rg-created">Created {_esc(created)}</span>')
    if facts:
        lines.append(f'<p class="rg-subtitle">{" · ".join(facts)}</p>')
    if meta:
        items = "".join(
            f"<div><dt>{_esc(label)}</dt><dd>{_esc(value)}</dd></div>" for label, value in meta
        )
        lines.append(f'<dl class="rg-meta">{items}</dl>')
    lines.append("</header>")
    return "\n".join(lines)


def _sidebar_html(headings: Sequence[_Heading]) -> str:
    """The contents as a sidebar, shown beside the report on wide screens only (the CSS
    of :data:`_LAYOUT_CSS`; the folded block in the body is hidden there)."""
    items = _toc_items(headings)
    if not items:
        return ""
    return "\n".join(
        [
            '<nav class="rg-sidebar" aria-label="Contents (sidebar)">',
            '<p class="rg-toc-title">Contents</p>',
            "<ol>",
            *items,
            "</ol>",
            "</nav>",
        ]
    )


def _toc_html(headings: Sequence[_Heading]) -> str:
    items = _toc_items(headings)
    if not items:
        return ""
    # on screen a folded block (no script); printed, details are shown open
    return "\n".join(
        [
            '<nav class="rg-toc" aria-label="Contents">',
            "<details>",
            '<summary class="rg-toc-title">Contents</summary>',
            "<ol>",
            *items,
            "</ol>",
            "</details>",
            "</nav>",
        ]
    )


def _toc_items(headings: Sequence[_Heading]) -> list[str]:
    """The ``<li>`` lines of the contents: every h2 and h3 outside a folded block."""
    headings = [h for h in headings if not h.folded]
    if not headings:
        return []
    lines: list[str] = []
    open_sub = False
    for position, heading in enumerate(headings):
        link = f'<a href="#{_esc(heading.anchor)}">{_esc(heading.text)}</a>'
        if heading.level == 3 and position > 0:
            if not open_sub:
                lines.append("<ol>")
                open_sub = True
            lines.append(f'<li class="rg-toc-h3">{link}</li>')
            continue
        if open_sub:
            lines.append("</ol>")
            open_sub = False
        if position > 0:
            lines.append("</li>")
        lines.append(f'<li class="rg-toc-h{heading.level}">{link}')
    if open_sub:
        lines.append("</ol>")
    lines.append("</li>")
    return lines


# --- cells and outputs -----------------------------------------------------------------


def _notebook_fragments(nb: Mapping[str, Any]) -> list[str]:
    fragments: list[str] = []
    for index, cell in enumerate(nb.get("cells", [])):
        kind = cell.get("cell_type")
        tags = set(cell.get("metadata", {}).get("tags", []) or [])
        if kind == "code":
            _raise_on_error(index, cell)
            if "remove" in tags or "remove-output" in tags:
                continue
            for output in cell.get("outputs", []):
                fragment = _output_html(index, output)
                if fragment:
                    fragments.append(fragment)
        elif "remove" in tags:
            continue
        elif kind == "markdown":
            source = _joined(cell.get("source", ""))
            fragments.append(_markdown(_inline_attachments(source, cell.get("attachments"))))
        elif kind == "raw":
            metadata = cell.get("metadata", {})
            if "text/html" in (metadata.get("format"), metadata.get("raw_mimetype")):
                fragments.append(_joined(cell.get("source", "")))
    return fragments


def _raise_on_error(index: int, cell: Mapping[str, Any]) -> None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            count = cell.get("execution_count")
            where = f"cell {index}" + (f" (In [{count}])" if count is not None else "")
            raise ReportgenError(
                f"the notebook failed in {where}: {output.get('ename', 'Error')}: "
                f"{output.get('evalue', '')}; open the executed notebook to see the "
                "traceback"
            )


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _output_html(index: int, output: Mapping[str, Any]) -> str | None:
    if output.get("output_type") not in ("display_data", "execute_result"):
        return None
    data = output.get("data", {})
    if "text/html" in data:
        return _joined(data["text/html"])
    if "image/svg+xml" in data:
        return _figure(_inline_svg(index, _joined(data["image/svg+xml"])))
    for mime in _IMAGE_MIMES:
        if mime in data:
            encoded = "".join(_joined(data[mime]).split())
            size = output.get("metadata", {}).get(mime, {})
            width = size.get("width") if isinstance(size, Mapping) else None
            width_attr = f' width="{int(width)}"' if isinstance(width, int | float) else ""
            return _figure(
                f'<img src="data:{mime};base64,{_esc(encoded)}"{width_attr} alt="chart">'
            )
    for mime, spec in data.items():
        if _VEGALITE_MIME.fullmatch(mime):
            return _figure(_vegalite_svg(index, spec))
    if "text/markdown" in data:
        return _markdown(_joined(data["text/markdown"]))
    return None


def _figure(content: str) -> str:
    return f'<figure class="rg-chart">\n{content}\n</figure>'


def _inline_svg(index: int, svg: str) -> str:
    # An SVG file may start with an XML declaration, comments and a DOCTYPE; none of
    # them is allowed inside an HTML body, so the inline copy starts at <svg.
    match = re.search(r"<svg[\s>]", svg, re.IGNORECASE)
    if match is None:
        raise ReportgenError(
            f"an image/svg+xml output of cell {index} has no <svg> "
            "element; fix the code that displays it"
        )
    return svg[match.start() :].strip()


def _vegalite_svg(index: int, spec: Any) -> str:
    import vl_convert

    try:
        if isinstance(spec, str):
            spec = json.loads(spec)
        return _inline_svg(index, vl_convert.vegalite_to_svg(spec, allowed_base_urls=[]))
    except ValueError as exc:  # vl-convert's message, then a JavaScript stack trace
        detail = " ".join(str(exc).splitlines()[:2])
        raise ReportgenError(
            f"the Vega-Lite chart shown by cell {index} cannot be "
            f"rendered offline ({detail}); give the chart inline data "
            "or display it as SVG"
        ) from None


def _inline_attachments(source: str, attachments: Mapping[str, Any] | None) -> str:
    for name, bundle in (attachments or {}).items():
        for mime in _IMAGE_MIMES:
            if mime in bundle:
                encoded = "".join(_joined(bundle[mime]).split())
                source = source.replace(f"attachment:{name}", f"data:{mime};base64,{encoded}")
                break
    return source


@lru_cache(maxsize=1)
def _markdown_renderer() -> Callable[[str], str]:
    import mistune

    # escape=False: raw HTML in Markdown cells passes through, as in Jupyter.
    return mistune.create_markdown(escape=False, plugins=["strikethrough", "table"])


def _markdown(text: str) -> str:
    return str(_markdown_renderer()(text))


# --- the body: heading ids, table wrappers, SVG ids -----------------------------------


@dataclass
class _Heading:
    level: int
    start: int
    end: int
    tag: str
    attrs: list[tuple[str, str | None]]
    own_id: str | None
    section_id: str | None
    text_parts: list[str] = field(default_factory=list)
    anchor: str = ""
    folded: bool = False  # inside a <details>: left out of the contents

    @property
    def text(self) -> str:
        return " ".join("".join(self.text_parts).split())


@dataclass
class _SvgTag:
    svg: int
    start: int
    end: int
    raw: str


@dataclass
class _OpenTag:
    tag: str
    attrs: list[tuple[str, str | None]]
    start: int
    end: int


class _BodyScanner(HTMLParser):
    """One pass over the body HTML that records where the exporter edits it."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._text = text
        self.id_counts: Counter[str] = Counter()
        self.headings: list[_Heading] = []
        self.svg_tags: list[_SvgTag] = []
        self.svg_ids: list[set[str]] = []
        self.edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
        self._svg_depth = 0
        self._table_depth = 0
        self._table_wrapper: _OpenTag | int = 0  # the sections' own wrapper, or our edit
        self._row_cells = 0
        self._table_columns = 0
        self._heading: _Heading | None = None
        self._opened: _OpenTag | None = None  # the start tag just before, if nothing else
        self._details_depth = 0

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closes=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closes=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, closes: bool) -> None:
        start = self._offset()
        raw = self.get_starttag_text() or ""
        element_id = dict(attrs).get("id")
        if tag == "svg" and self._svg_depth == 0:
            self.svg_ids.append(set())
        if self._svg_depth or tag == "svg":
            if element_id:
                self.svg_ids[-1].add(element_id)
            self.svg_tags.append(_SvgTag(len(self.svg_ids) - 1, start, start + len(raw), raw))
            if tag == "svg" and not closes:
                self._svg_depth += 1
            self._opened = None
            return
        if element_id:
            self.id_counts[element_id] += 1
        before, self._opened = self._opened, _OpenTag(tag, attrs, start, start + len(raw))
        if tag in ("h2", "h3") and not closes and self._heading is None:
            section_id = (
                dict(before.attrs).get("id")
                if before is not None and before.tag == "section"
                else None
            )
            self._heading = _Heading(
                int(tag[1]),
                start,
                start + len(raw),
                tag,
                attrs,
                element_id,
                section_id,
                folded=self._details_depth > 0,
            )
        elif tag == "details" and not closes:
            self._details_depth += 1
        elif tag == "table" and not closes:
            if self._table_depth == 0:
                self._open_table(start, before)
            self._table_depth += 1
        elif tag == "tr" and self._table_depth == 1:
            self._row_cells = 0
        elif tag in ("td", "th") and self._table_depth == 1:
            span = dict(attrs).get("colspan") or "1"
            self._row_cells += int(span) if span.isdigit() else 1
            self._table_columns = max(self._table_columns, self._row_cells)

    def handle_endtag(self, tag: str) -> None:
        self._opened = None
        if self._svg_depth:
            if tag == "svg":
                self._svg_depth -= 1
            return
        if self._heading is not None and tag == self._heading.tag:
            self.headings.append(self._heading)
            self._heading = None
        elif tag == "details" and self._details_depth:
            self._details_depth -= 1
        elif tag == "table" and self._table_depth:
            self._table_depth -= 1
            if self._table_depth == 0:
                end = self._text.find(">", self._offset())
                self._close_table(len(self._text) if end < 0 else end + 1)

    def handle_data(self, data: str) -> None:
        if data.strip():
            self._opened = None
        if self._heading is not None:
            self._heading.text_parts.append(data)

    def finish(self) -> None:
        self.close()
        if self._heading is not None:
            self.headings.append(self._heading)
        if self._table_depth:
            self._close_table(len(self._text))

    def _open_table(self, start: int, before: _OpenTag | None) -> None:
        self._table_columns = 0
        if before is not None and before.tag == "div" and "rg-table-wrap" in _classes(before):
            self._table_wrapper = before  # already wrapped by the section
            return
        self._table_wrapper = len(self.edits)
        self.edits.append((start, start, '<div class="rg-table-wrap">'))

    def _close_table(self, end: int) -> None:
        wrapper = self._table_wrapper
        wide = self._table_columns > _WIDE_TABLE_COLUMNS
        if isinstance(wrapper, _OpenTag):
            if wide and "rg-wide" not in _classes(wrapper):
                attrs = [(k, v) for k, v in wrapper.attrs if k != "class"]
                attrs.insert(0, ("class", " ".join([*_classes(wrapper), "rg-wide"])))
                self.edits.append((wrapper.start, wrapper.end, _start_tag("div", attrs)))
            return
        if wide:
            start = self.edits[wrapper][0]
            self.edits[wrapper] = (start, start, '<div class="rg-table-wrap rg-wide">')
        self.edits.append((end, end, "</div>"))


def _classes(tag: _OpenTag) -> list[str]:
    return (dict(tag.attrs).get("class") or "").split()


def _finish_body(body: str) -> tuple[str, list[_Heading]]:
    scanner = _BodyScanner(body)
    scanner.feed(body)
    scanner.finish()
    edits = list(scanner.edits)
    edits += _heading_edits(scanner.headings, scanner.id_counts)
    edits += _svg_id_edits(scanner.svg_tags, scanner.svg_ids, set(scanner.id_counts))
    # Apply from the end so earlier offsets stay valid; at one offset, closing wrappers
    # (inserted at a table's end) go before opening ones (at the next table's start).
    pieces = []
    cursor = len(body)
    for start, end, text in sorted(
        edits, key=lambda e: (e[0], e[1], e[2] != "</div>"), reverse=True
    ):
        pieces.append(body[end:cursor])
        pieces.append(text)
        cursor = start
    pieces.append(body[:cursor])
    return "".join(reversed(pieces)), scanner.headings


def _heading_edits(headings: list[_Heading], id_counts: Counter[str]) -> list[tuple[int, int, str]]:
    taken = set(id_counts)
    used: set[str] = set()
    edits = []
    for heading in headings:
        if heading.own_id and heading.own_id not in used:
            heading.anchor = heading.own_id  # a later heading with the same id is renamed
        elif (
            heading.own_id is None
            and heading.section_id
            and id_counts[heading.section_id] == 1
            and heading.section_id not in used
        ):
            heading.anchor = heading.section_id  # the section's own id names it already
        else:
            heading.anchor = _unique_slug(heading.text, taken)
            attrs = [(k, v) for k, v in heading.attrs if k != "id"]
            attrs.insert(0, ("id", heading.anchor))
            edits.append((heading.start, heading.end, _start_tag(heading.tag, attrs)))
        taken.add(heading.anchor)
        used.add(heading.anchor)
    return edits


def _unique_slug(text: str, taken: set[str]) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    base = "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower()))[:60].strip("-")
    base = base or "section"
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    return slug


def _start_tag(tag: str, attrs: Sequence[tuple[str, str | None]]) -> str:
    rendered = "".join(
        f" {name}" if value is None else f' {name}="{_esc(value)}"' for name, value in attrs
    )
    return f"<{tag}{rendered}>"


def _svg_id_edits(
    tags: list[_SvgTag], svg_ids: list[set[str]], body_ids: set[str]
) -> list[tuple[int, int, str]]:
    # Vega numbers clip paths and gradients per process ("clip1", "gradient_0"), so two
    # inline charts can define the same id and the second would use the first's clip
    # path. Each SVG's ids get a prefix of their own.
    edits = []
    for tag in tags:
        ids = svg_ids[tag.svg]
        if not ids:
            continue
        prefix = f"rg-svg{tag.svg + 1}-"
        while any(f"{prefix}{name}" in body_ids for name in ids):
            prefix = f"r{prefix}"
        raw = _prefix_svg_ids(tag.raw, ids, prefix)
        if raw != tag.raw:
            edits.append((tag.start, tag.end, raw))
    return edits


def _prefix_svg_ids(raw: str, ids: set[str], prefix: str) -> str:
    def own(name: str) -> str:
        return f"{prefix}{name}" if name in ids else name

    # One start tag at a time: its id, url(#...) references, and href="#..." links.
    raw = re.sub(
        r"""(\sid\s*=\s*)(["'])(.*?)\2""",
        lambda m: f"{m[1]}{m[2]}{own(_html.unescape(m[3]))}{m[2]}",
        raw,
    )
    raw = re.sub(
        r"""url\(\s*(["']?)#([^"')\s]+)\1\s*\)""", lambda m: f"url({m[1]}#{own(m[2])}{m[1]})", raw
    )
    return re.sub(
        r"""(\s(?:xlink:)?href\s*=\s*)(["'])#(.*?)\2""",
        lambda m: f"{m[1]}{m[2]}#{own(_html.unescape(m[3]))}{m[2]}",
        raw,
    )


# --------------------------------------------------------------------------------------
# HTML -> PDF


def html_to_pdf(
    html: str,
    path: str | os.PathLike[str],
    *,
    title: str,
    release: str | None = None,
    page_size: str = "A4",
) -> int:
    """Render the report HTML to a PDF with WeasyPrint; return the number of pages.

    Parameters
    ----------
    html
        The document from :func:`notebook_to_html`.
    path
        Where to write the PDF; written to a temporary file in the same folder and
        renamed into place, so a failure never leaves a partial PDF.
    title, release
        The running header of every page after the first (title left, release right).
    page_size
        A CSS page size: ``A4`` (default), ``A3``, ``A5``, ``B5``, ``letter``, ``legal``,
        ``ledger``, optionally followed by ``landscape``, or a width and a height
        (``"210mm 297mm"``).

    Returns
    -------
    int
        The number of pages.

    Raises
    ------
    ReportgenError
        WeasyPrint cannot be imported (the message names the Debian packages it needs,
        and the ``--format html`` alternative).
    ConfigError
        Unknown ``page_size``, or an empty title.

    Notes
    -----
    Nothing is fetched while rendering: only ``data:`` URLs are resolved. The print
    stylesheet keeps every figure on one page, never splits a table row, repeats the
    table header on each page, keeps headings with what follows, and shows page
    numbers in the table of contents (``target-counter``). reportgen's tables are laid
    out with column widths measured here (:mod:`reportgen.report._pdf_tables`), and the
    charts in the default font are drawn by vl-convert in another process while
    WeasyPrint lays the pages out, then placed in their boxes with pikepdf
    (:mod:`reportgen.report._pdf_charts`); should that fail, WeasyPrint draws them.
    """
    _title_iv(title)
    size = _page_size_iv(page_size)
    weasyprint = _import_weasyprint()
    printed = base = _print_html(html)
    drawer = None
    if _pikepdf_available():  # else WeasyPrint draws every chart (slower)
        taken, charts = take_charts(base)
        if charts:
            try:
                drawer = ChartDrawer(charts)
                printed = taken
            except OSError:  # no process to draw them: WeasyPrint draws them
                drawer = None
    try:
        document = _render(weasyprint, printed, title, release, size)
        data = document.write_pdf()
        if drawer is not None:
            try:
                data = overlay_charts(data, chart_boxes(document), drawer.pdfs())
            except Exception:  # noqa: BLE001 - WeasyPrint draws the charts instead
                document = _render(weasyprint, base, title, release, size)
                data = document.write_pdf()
    finally:
        if drawer is not None:
            drawer.close()
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(document.pages)


def _render(weasyprint: Any, printed: str, title: str, release: str | None, size: str) -> Any:
    """The laid-out WeasyPrint document of the print HTML (``_print_html``): SVG charts
    as images, reportgen's tables with measured widths, the print stylesheet."""
    fetcher = weasyprint.URLFetcher(allowed_protocols=("data",))
    printed = _svgs_as_images(printed)
    metrics = text_metrics()
    if metrics is not None:  # else WeasyPrint measures the tables itself (slower)
        printed = fix_table_widths(printed, metrics)
    return weasyprint.HTML(string=printed, url_fetcher=fetcher, media_type="print").render(
        stylesheets=[
            weasyprint.CSS(
                string=_print_css(title=title, release=release, page_size=size), url_fetcher=fetcher
            )
        ]
    )


def _pikepdf_available() -> bool:
    try:
        import pikepdf  # noqa: F401
    except ImportError:
        return False
    return True


_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL | re.IGNORECASE)


def _svgs_as_images(html: str) -> str:
    """Each inline SVG chart as an ``<img>`` of a ``data:image/svg+xml`` URI, for the PDF
    only: WeasyPrint then parses the chart with an XML parser and draws it without
    cascading the page's CSS over every SVG element, which is about a third faster on a
    chart-heavy report, and the drawing is the same (the charts carry their own fonts
    and sizes)."""

    def image(match: re.Match[str]) -> str:
        svg = match.group(0)
        if "xmlns=" not in svg[:500]:
            svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        return f'<img class="rg-svg" alt="chart" src="data:image/svg+xml;base64,{data}">'

    return _SVG.sub(image, html)


def _page_size_iv(page_size: str) -> str:
    normalized = " ".join(str(page_size).split())
    if not _PAGE_SIZE.fullmatch(normalized):
        raise ConfigError(f"unknown page size {page_size!r}", hint=_PAGE_SIZES_HINT)
    return normalized


def _import_weasyprint() -> Any:
    try:
        import weasyprint
    except (ImportError, OSError) as exc:  # OSError: Pango/GObject shared libraries missing
        raise ReportgenError(_WEASYPRINT_HINT.format(error=exc)) from None
    return weasyprint


def _css_string(text: str) -> str:
    # Escape what could end the string (quote, backslash, newline) and every other
    # unprintable character; the space after a hex escape ends it and is consumed.
    escaped = "".join(
        f"\\{ord(ch):x} " if ch in '"\\' or not ch.isprintable() else ch for ch in text
    )
    return f'"{escaped}"'


def _print_css(*, title: str, release: str | None = None, page_size: str = "A4") -> str:
    """The print stylesheet :func:`html_to_pdf` adds on top of the theme.

    ``title`` and ``release`` are embedded as escaped CSS strings; ``page_size`` must
    already be valid (see :func:`html_to_pdf`).
    """
    release_css = _css_string(release) if release else '""'
    return f"""\
@page {{
  size: {page_size};
  margin: 18mm 15mm 17mm 15mm;
  font-family: {_MARGIN_FONTS}; font-size: 8pt; color: #555;
  @top-left {{ content: {_css_string(title)}; vertical-align: bottom;
    padding-bottom: 3mm; }}
  @top-right {{ content: {release_css}; vertical-align: bottom; padding-bottom: 3mm; }}
  @bottom-center {{ content: "page " counter(page) " of " counter(pages);
    vertical-align: top; padding-top: 3mm; }}
}}
@page :first {{
  @top-left {{ content: none; }}
  @top-right {{ content: none; }}
}}
@page rg-wide {{ size: {_landscape(page_size)}; }}
.rg-wide {{ page: rg-wide; }}
.rg-wide th {{ hyphens: auto; }}
body {{ max-width: none; margin: 0; padding: 0; }}
h1, h2, h3, h4, h5, h6, figcaption, .rg-toc-title {{ break-after: avoid; }}
h1, h2, h3, h4, h5, h6 {{ break-inside: avoid; }}
figure, .rg-note, tr, .rg-toc li {{ break-inside: avoid; }}
thead {{ display: table-header-group; }}
tfoot {{ display: table-footer-group; }}
p, li {{ orphans: 2; widows: 2; }}
.rg-table-wrap {{ overflow: visible; }}
figure svg, figure img {{ max-width: 100%; max-height: 78vh; height: auto; }}
.rg-toc a::after {{ content: leader(".") target-counter(attr(href), page); }}
.rg-toc details > ol {{ columns: 2; column-gap: 8mm; font-size: 8.5pt; }}
a {{ color: inherit; text-decoration: none; }}
{FIXED_TABLE_CSS}"""


def _landscape(page_size: str) -> str:
    words = page_size.lower().split()
    if words[-1] in ("portrait", "landscape"):
        words = words[:-1]
    if len(words) == 2:  # width and height: the larger one becomes the width
        first, second = words
        return f"{first} {second}" if _mm(first) >= _mm(second) else f"{second} {first}"
    return f"{words[0]} landscape"


def _mm(length: str) -> float:
    # _PAGE_SIZE admits only two-letter units.
    return float(length[:-2]) * {"mm": 1.0, "cm": 10.0, "in": 25.4, "pt": 25.4 / 72}[length[-2:]]


# --------------------------------------------------------------------------------------
# self-containment check

#: Elements that load something or run code, whatever their attributes.
_FORBIDDEN_ELEMENTS = frozenset(
    {"script", "link", "iframe", "frame", "frameset", "object", "embed", "applet", "portal"}
)
#: Attributes whose value is a URL (or a list of them, for srcset/ping/archive).
_URL_ATTRIBUTES = frozenset(
    {
        "href",
        "src",
        "xlink:href",
        "srcset",
        "action",
        "formaction",
        "poster",
        "background",
        "data",
        "ping",
        "manifest",
        "codebase",
        "archive",
        "longdesc",
        "lowsrc",
        "dynsrc",
        "imagesrcset",
    }
)
#: SVG presentation attributes that take url(...) values.
_CSS_URL_ATTRIBUTES = frozenset(
    {
        "style",
        "fill",
        "stroke",
        "clip-path",
        "mask",
        "filter",
        "marker-start",
        "marker-mid",
        "marker-end",
        "cursor",
    }
)
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*?))\s*\)""", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"@import\b[^;]*", re.IGNORECASE)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def external_references(html: str) -> list[str]:
    """Everything in ``html`` that would need the network or a script.

    Parameters
    ----------
    html
        A complete document or a fragment.

    Returns
    -------
    list of str
        One readable entry per reference, in document order (duplicates once): any
        ``<script>``, ``<link>``, ``<iframe>``, ``<frame>``, ``<object>``, ``<embed>``,
        ``<applet>``; an event handler attribute (``onload``, ...); a ``href``,
        ``src``, ``xlink:href``, ``srcset``, ``action`` (and similar) value that is
        neither a ``#fragment`` nor a ``data:`` URI; a CSS
        ``url(...)`` (in ``<style>``, a ``style`` attribute or an SVG paint attribute)
        that is neither; any ``@import``; a ``<meta http-equiv="refresh">``; an
        ``<?xml-stylesheet?>``. Empty for a self-contained document.

    Notes
    -----
    XML namespace declarations (``xmlns="http://www.w3.org/2000/svg"``) name a
    vocabulary and are never fetched, so they are not references.

    Examples
    --------
    >>> external_references('<svg xmlns="http://www.w3.org/2000/svg"><a href="#x"/></svg>')
    []
    >>> external_references('<img src="https://example.org/a.png">')
    ['<img src="https://example.org/a.png">']
    """
    finder = _ReferenceFinder()
    finder.feed(html)
    finder.close()
    return list(dict.fromkeys(finder.found))


def _is_local(url: str) -> bool:
    value = url.strip()
    return value == "" or value.startswith("#") or value[:5].lower() == "data:"


def _short(value: str, limit: int = 160) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _css_references(css: str, where: str) -> list[str]:
    css = _CSS_COMMENT.sub("", css)
    found = [f"{_short(m[0].strip())} in {where}" for m in _CSS_IMPORT.finditer(css)]
    for match in _CSS_URL.finditer(css):
        url = next(group for group in match.groups() if group is not None)
        if not _is_local(url):
            found.append(f"url({_short(url)}) in {where}")
    return found


def _srcset_urls(value: str) -> list[str]:
    # Candidates are "URL [descriptor]" separated by commas; a data: URI contains a
    # comma itself, so split only where a comma is followed by white space.
    return [part.split()[0] for part in re.split(r",\s+", value.strip()) if part.split()]


class _ReferenceFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _FORBIDDEN_ELEMENTS:
            source = next(((k, v) for k, v in attrs if k in ("src", "href", "data") and v), None)
            self.found.append(
                f'<{tag} {source[0]}="{_short(source[1])}">' if source else f"<{tag}> element"
            )
            return
        values = dict(attrs)
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "refresh":
            self.found.append(f'<meta http-equiv="refresh" content="{values.get("content")}">')
        for name, value in attrs:
            if value is None:
                continue
            if name.startswith("on"):  # an event handler is a script
                self.found.append(f'<{tag} {name}="{_short(value)}">')
            elif name in _URL_ATTRIBUTES:
                urls = _srcset_urls(value) if name in ("srcset", "imagesrcset") else [value]
                self.found += [
                    f'<{tag} {name}="{_short(url)}">' for url in urls if not _is_local(url)
                ]
            elif name in _CSS_URL_ATTRIBUTES:
                self.found += _css_references(value, f"the {name} attribute of <{tag}>")
        if tag == "style":
            self._in_style = True

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self._in_style = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.found += _css_references(data, "a <style> element")

    def handle_pi(self, data: str) -> None:
        if data.lstrip().lower().startswith("xml-stylesheet"):
            self.found.append(f"<?{_short(data.rstrip('?'))}?>")

"""HTML -> PDF: the report's HTML rendered by WeasyPrint with a print stylesheet made
here (page size and margins, running header with the title and release, "page N of M"
footer, page numbers in the table of contents, page breaks that never split a chart or
a table row); what only a screen shows is left out first, charts are drawn by
:mod:`reportgen.report.pdf.charts` and wide tables laid out by
:mod:`reportgen.report.pdf.tables`."""

from __future__ import annotations

import base64
import os
import re
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from reportgen.errors import ConfigError, ReportgenError
from reportgen.report.export.page import title_iv
from reportgen.report.pdf.charts import ChartDrawer, chart_boxes, overlay_charts, take_charts
from reportgen.report.pdf.tables import (
    FIXED_TABLE_CSS,
    NARROW,
    PROBE_ATTRIBUTE,
    fix_table_widths,
    probe_html,
    text_metrics,
)

__all__ = ["html_to_pdf"]


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


_MARGIN_FONTS = '"Liberation Sans", Arimo, Arial, Helvetica, "DejaVu Sans", sans-serif'


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
    out with column widths measured here (:mod:`reportgen.report.pdf.tables`), and the
    charts in the default font are drawn by vl-convert in another process while
    WeasyPrint lays the pages out, then placed in their boxes with pikepdf
    (:mod:`reportgen.report.pdf.charts`); should that fail, WeasyPrint draws them.
    """
    title_iv(title)
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
    css = weasyprint.CSS(
        string=_print_css(title=title, release=release, page_size=size), url_fetcher=fetcher
    )
    metrics = text_metrics()
    if metrics is not None:  # else WeasyPrint measures the tables itself (slower)
        rooms, narrow = _table_rooms(weasyprint, printed, css, fetcher)
        printed = fix_table_widths(printed, metrics, rooms, narrow)
    return weasyprint.HTML(string=printed, url_fetcher=fetcher, media_type="print").render(
        stylesheets=[css]
    )


#: Em kept free of a table's room: the measured widths' rounding, a border's half.
_ROOM_SPARE_EM = 0.05


def _table_rooms(
    weasyprint: Any, printed: str, css: Any, fetcher: Any
) -> tuple[list[float | None], dict[int, float]]:
    """Per table of ``printed`` (as :func:`~reportgen.report.pdf.tables.probe_html`
    numbers them), the width it may take in em of its own font: its containing block
    (a portrait or a landscape page's line, less what holds it) over its font size, as
    WeasyPrint lays out the probe, which has the report's structure and stylesheets
    without the tables' rows and the other elements. None for a table the probe did not
    lay out (a table inside a table). And for each table on a landscape page, the room
    it would have on a portrait page."""
    probe, count = probe_html(printed)
    rooms: list[float | None] = [None] * count
    narrow: dict[int, float] = {}
    if not count:
        return rooms, narrow
    document = weasyprint.HTML(string=probe, url_fetcher=fetcher, media_type="print").render(
        stylesheets=[css]
    )

    def walk(box: Any, holder: Any) -> None:
        element = getattr(box, "element", None)
        if getattr(box, "element_tag", None) == "table" and element is not None:
            number = element.get(PROBE_ATTRIBUTE) or ""
            twin = number.endswith(NARROW)
            number = number.removesuffix(NARROW)
            font = float(box.style["font_size"])
            if number.isdigit() and int(number) < count and holder is not None and font > 0:
                k, room = int(number), float(holder.width) / font - _ROOM_SPARE_EM
                if twin:
                    narrow.setdefault(k, room)
                elif rooms[k] is None:
                    rooms[k] = room
        children = getattr(box, "children", None) or ()
        # a table's wrapper box has the table's width: the room is its holder's
        keep = holder if type(box).__name__ == "TableWrapperBox" else box
        for child in children:
            walk(child, keep)

    for page in document.pages:
        walk(page._page_box, None)
    return rooms, narrow


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
body {{ max-width: none; margin: 0; padding: 0; }}
h1, h2, h3, h4, h5, h6, figcaption, .rg-toc-title {{ break-after: avoid; }}
h1, h2, h3, h4, h5, h6 {{ break-inside: avoid; }}
figure, .rg-note, tr, .rg-toc li {{ break-inside: avoid; }}
thead {{ display: table-header-group; }}
tfoot {{ display: table-footer-group; }}
p, li {{ orphans: 2; widows: 2; }}
.rg-table-wrap {{ overflow: visible; }}
/* a heading, the paragraph under it (kept whole) and the first chart of a row stay on
   one page: the charts of a row are lines of it that may go to the next page one by
   one (the default orphans and widows of 2 made a row of two charts unbreakable, and
   left the heading alone at the bottom of a page: benchmark noise, a page of 3 lines) */
.rg-charts {{ orphans: 1; widows: 1; }}
h3 + p {{ break-inside: avoid; }}
/* page 1 filled by the per-benchmark answer: the contents it pushes to page 2 are
   followed by the results there, not by a page of their own */
#summary.rg-flow ~ #results {{ break-before: auto !important; }}
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

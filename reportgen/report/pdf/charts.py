"""The PDF's charts, drawn by vl-convert and placed with pikepdf instead of drawn by
WeasyPrint.

WeasyPrint draws an SVG in Python, node by node, and its text letter by letter: the 34
charts of the bundled example took 3.7 s of its 10 s PDF, the 27 of 11 eval-arena
benchmarks 3.5 s. vl-convert (svg2pdf, in Rust) draws the same SVG as a PDF page in
about 20 ms with the Liberation Sans it carries in memory. So :func:`take_charts` puts
an empty image of each chart's size in its place (WeasyPrint lays the page out exactly
as before), a :class:`ChartDrawer` process draws the charts on the other core while
WeasyPrint lays out the document, and :func:`overlay_charts` draws each chart's page in
its placeholder's box (a form XObject, with pikepdf). The charts stay vector, their
text is text (searchable, selectable), and the example's PDF takes 40 % less time
(1.3 MB instead of 0.9 MB: svg2pdf writes its groups as forms).

Only charts vl-convert can draw with its own font are taken (:func:`drawable`: every
font family Liberation Sans first, every character one that font has); any other SVG
(another theme's font, CJK names) is left to WeasyPrint, which draws it with the
system's fonts, as before.
"""

from __future__ import annotations

import base64
import html as _html
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reportgen.report.render.html import (
    _FONTS_CONF,
    BUNDLED_FONT,
    BUNDLED_FONT_CHARS,
    _first_family,
)

__all__ = [
    "PLACEHOLDER",
    "ChartDrawer",
    "ChartLayoutError",
    "chart_boxes",
    "drawable",
    "overlay_charts",
    "take_charts",
]

#: The id prefix of a chart's placeholder image (``rg-pdf-chart-0``, ...).
PLACEHOLDER = "rg-pdf-chart-"
_SVG = re.compile(r"<svg\b.*?</svg\s*>", re.DOTALL | re.IGNORECASE)
_SVG_START = re.compile(r"<svg\b[^>]*>", re.IGNORECASE)
_FAMILY = re.compile(r"""font-family\s*(?:=\s*(?:"([^"]*)"|'([^']*)')|:\s*([^;"']+))""", re.I)
#: Pixels (CSS) to points.
_PT = 0.75


class ChartLayoutError(Exception):
    """The placeholders' boxes in WeasyPrint's layout disagree with its anchors (a
    WeasyPrint whose box tree changed): the caller draws the charts with WeasyPrint."""


def drawable(svg: str) -> bool:
    """Whether vl-convert draws ``svg`` with the font it carries as the system would:
    it names fonts, every font family it names is Liberation Sans first, and each of
    its characters (markup included, entities decoded) is one that font has.

    >>> drawable('<svg><text font-family="Liberation Sans, Arial">p ≤ 0.05</text></svg>')
    True
    >>> drawable('<svg><text font-family="DejaVu Serif">a</text></svg>')
    False
    >>> drawable('<svg><text font-family="Liberation Sans">模型</text></svg>')
    False
    """
    families = [a or b or c for a, b, c in _FAMILY.findall(svg)]
    if not families or any(_first_family(f) != BUNDLED_FONT.lower() for f in families):
        return False
    return all(c in BUNDLED_FONT_CHARS or c < " " for c in set(_html.unescape(svg)))


def take_charts(html: str) -> tuple[str, list[str]]:
    """``html`` with every :func:`drawable` inline SVG replaced by an image of an empty
    SVG of the same size (``<img class="rg-svg" id="rg-pdf-chart-K" ...>``, as the
    exporter draws SVGs in the PDF anyway), and the charts taken, in order."""
    charts: list[str] = []

    def placeholder(match: re.Match[str]) -> str:
        svg = match.group(0)
        start = _SVG_START.match(svg)
        if start is None or not drawable(svg):
            return svg
        head = start.group(0)
        if "xmlns=" not in head:
            head = head.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
        data = base64.b64encode((head + "</svg>").encode("utf-8")).decode("ascii")
        key = len(charts)
        charts.append(svg)
        return (
            f'<img class="rg-svg" id="{PLACEHOLDER}{key}" alt="chart" '
            f'src="data:image/svg+xml;base64,{data}">'
        )

    return _SVG.sub(placeholder, html), charts


#: Seconds the drawing process may take before the charts are left to WeasyPrint.
DRAW_TIMEOUT = 600


class ChartDrawer:
    """A process (``python -m reportgen.report.pdf.charts FOLDER``) that draws SVG
    charts as one-page PDFs with vl-convert while the caller goes on: a plain
    subprocess, so a script that calls :func:`~reportgen.report.pdf.html_to_pdf` at
    its top level is never imported again (as a multiprocessing "spawn" worker would
    do). The charts and their PDFs go through a private temporary folder, removed by
    :meth:`close`."""

    def __init__(self, svgs: Sequence[str]) -> None:
        from xml.sax.saxutils import escape

        self._folder = Path(tempfile.mkdtemp(prefix="reportgen-charts-"))
        self._count = len(svgs)
        for key, svg in enumerate(svgs):
            (self._folder / f"chart-{key}.svg").write_text(svg, encoding="utf-8")
        # a font configuration without fonts: vl-convert then measures and embeds the
        # Liberation Sans it carries (a system font file is reopened for every glyph)
        fonts = self._folder / "fonts"
        fonts.mkdir()
        conf = self._folder / "fonts.conf"
        conf.write_text(_FONTS_CONF.format(folder=escape(str(fonts))), encoding="utf-8")
        try:
            self._process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "reportgen.report.pdf.charts",
                    str(self._folder),
                    str(os.getpid()),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env={**os.environ, "FONTCONFIG_FILE": str(conf)},
            )
        except OSError:
            shutil.rmtree(self._folder, ignore_errors=True)
            raise

    def pdfs(self) -> list[bytes]:
        """The charts' PDFs, in order, once the process is done.

        Raises
        ------
        RuntimeError
            The process failed, timed out or left a chart out.
        """
        try:
            _, err = self._process.communicate(timeout=DRAW_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.communicate()
            raise RuntimeError("drawing the charts timed out") from None
        if self._process.returncode != 0:
            raise RuntimeError(err.decode("utf-8", "replace").strip()[-500:])
        return [(self._folder / f"chart-{k}.pdf").read_bytes() for k in range(self._count)]

    def close(self) -> None:
        """Stop the process if it still runs and remove the folder. Safe to call twice."""
        if self._process.poll() is None:
            self._process.kill()
            self._process.communicate()
        shutil.rmtree(self._folder, ignore_errors=True)


def _draw(folder: Path) -> None:
    """The drawing process: ``chart-K.svg`` -> ``chart-K.pdf`` in ``folder``."""
    import vl_convert

    for svg in sorted(folder.glob("chart-*.svg")):
        text = svg.read_text(encoding="utf-8")
        if "xmlns=" not in text[:500]:
            text = text.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
        pdf = bytes(vl_convert.svg_to_pdf(text))
        partial = svg.with_suffix(".part")
        partial.write_bytes(pdf)
        partial.replace(svg.with_suffix(".pdf"))


def chart_boxes(document: Any) -> dict[int, tuple[int, float, float, float, float]]:
    """Where WeasyPrint laid each placeholder out: ``key -> (page index, x, y, width,
    height)`` of its content box, in CSS pixels from the page's top left.

    The boxes come from WeasyPrint's layout tree (``Page._page_box``, not public) and
    are checked against its public ``Page.anchors`` (the placeholder's border box, or
    its top left corner in older WeasyPrints): every placeholder anchor must have its
    box, in the same place. Without the layout tree the anchors' rectangles are used.

    Raises
    ------
    ChartLayoutError
        A placeholder without a box, or a box away from its anchor.
    """
    anchors: dict[int, tuple[int, tuple[float, ...]]] = {}
    for index, page in enumerate(document.pages):
        for name, where in page.anchors.items():
            if name.startswith(PLACEHOLDER) and name[len(PLACEHOLDER) :].isdigit():
                anchors[int(name[len(PLACEHOLDER) :])] = (index, tuple(map(float, where)))
    try:
        found = _laid_out(document)
    except (AttributeError, ImportError, TypeError):  # no layout tree: the anchors' boxes
        if any(len(where) != 4 for _, where in anchors.values()):
            raise ChartLayoutError("no layout tree, and anchors without sizes") from None
        return {
            key: (index, x0, y0, x1 - x0, y1 - y0)
            for key, (index, (x0, y0, x1, y1)) in anchors.items()
        }
    for key, (index, where) in anchors.items():
        place = found.get(key)
        if place is None or place[0] != index:
            raise ChartLayoutError(f"chart {key}: no box on page {index + 1}")
        corners = place[5]
        if any(abs(a - b) > 1 for a, b in zip(where, corners)):
            raise ChartLayoutError(f"chart {key}: box {corners}, anchor {where}")
    return {key: place[:5] for key, place in found.items()}


def _laid_out(document: Any) -> dict[int, tuple[Any, ...]]:
    """The placeholders' content boxes from WeasyPrint's layout tree, with their border
    boxes' corners (what ``Page.anchors`` gives)."""
    from weasyprint.formatting_structure.boxes import ReplacedBox

    found: dict[int, tuple[Any, ...]] = {}
    for index, page in enumerate(document.pages):
        stack = [page._page_box]
        while stack:
            box = stack.pop()
            element = getattr(box, "element", None)
            if isinstance(box, ReplacedBox) and element is not None:
                ident = element.get("id") or ""
                if ident.startswith(PLACEHOLDER) and ident[len(PLACEHOLDER) :].isdigit():
                    x, y = float(box.border_box_x()), float(box.border_box_y())
                    corners = (x, y, x + float(box.border_width()), y + float(box.border_height()))
                    found[int(ident[len(PLACEHOLDER) :])] = (
                        index,
                        float(box.content_box_x()),
                        float(box.content_box_y()),
                        float(box.width),
                        float(box.height),
                        corners,
                    )
            stack.extend(getattr(box, "children", None) or ())
    return found


def overlay_charts(
    pdf: bytes,
    boxes: Mapping[int, tuple[int, float, float, float, float]],
    charts: Sequence[bytes],
) -> bytes:
    """``pdf`` with ``charts[k]`` (a one-page PDF) drawn in the box of placeholder
    ``k`` (:func:`chart_boxes`), scaled to it, as a form XObject; written with object
    streams."""
    import pikepdf

    sources = []  # qpdf copies a foreign page's streams when the target is written
    with pikepdf.open(io.BytesIO(pdf)) as target:
        for key, (index, x, y, width, height) in sorted(boxes.items()):
            page = target.pages[index]
            left, top = float(page.mediabox[0]), float(page.mediabox[3])
            source = pikepdf.open(io.BytesIO(charts[key]))
            sources.append(source)
            page.add_overlay(
                source.pages[0],
                pikepdf.Rectangle(
                    left + x * _PT,
                    top - (y + height) * _PT,
                    left + (x + width) * _PT,
                    top - y * _PT,
                ),
            )
        out = io.BytesIO()
        target.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    for source in sources:
        source.close()
    return out.getvalue()


if __name__ == "__main__":  # the ChartDrawer process
    if len(sys.argv) > 2:  # ends with the process that started it, even on SIGKILL
        from reportgen.execution import die_with_parent

        die_with_parent(int(sys.argv[2]))
    _draw(Path(sys.argv[1]))

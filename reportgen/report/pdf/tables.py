"""Column widths of the PDF's tables, measured here instead of by WeasyPrint.

WeasyPrint's automatic table layout shapes the text of every cell three times: for its
narrowest width (min-content), its widest (max-content), then for the line itself. On a
report made of tables that is a third of the PDF's time (the 56 pages of 11 eval-arena
benchmarks: 15.8 s of layout with it, 10.4 s without). reportgen's own tables
(``<table class="rg-table">``) know their text, so :func:`fix_table_widths` measures each
column from the font's advance widths (:class:`TextMetrics`, read with fontTools), gives
every column the width CSS's automatic layout would give it (its widest line when the
table fits the page, else its narrowest unbreakable run plus a share of the rest, in
proportion to what it would take), and marks the table ``rg-fixed``: the print
stylesheet lays such tables out with ``table-layout: fixed`` in one pass, in the font the
widths were measured in (Liberation Sans, whose metrics are Arial's).

The widths are CSS expressions, not lengths: ``em`` of the table's own font size, and a
share of ``100%`` (the table's width), so nothing here needs to know the theme's font
size or the page's width::

    table  width: max(Σmin em, min(100%, Σmax em))
    column width: calc(min_i em + (max_i − min_i) / (Σmax − Σmin) × (100% − Σmin em))

When the table fits, it is Σmax em wide and each column gets its widest line; when it
does not, it takes the whole line and the columns share what is left above their
narrowest runs. Text is measured with a safety margin, so a cell's text never runs into
the next cell (the tests check every cell of the example's PDF against WeasyPrint's own
layout); what cannot be measured (no Liberation Sans on the machine) keeps WeasyPrint's
automatic layout.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

__all__ = ["FIXED_TABLE_CSS", "TextMetrics", "fix_table_widths", "text_metrics"]

#: The family the measured tables are printed in (and measured with).
FAMILY = "Liberation Sans"
#: The print rules of the tables :func:`fix_table_widths` marks: one-pass layout, the
#: measured font, the horizontal padding the widths include, and long runs broken
#: rather than drawn over the next cell.
FIXED_TABLE_CSS = f"""\
table.rg-fixed {{ table-layout: fixed; font-family: "{FAMILY}", Arimo, Arial, sans-serif; }}
table.rg-fixed th, table.rg-fixed td {{ padding-left: .5em !important;
  padding-right: .5em !important; overflow-wrap: anywhere; }}
"""
#: Both paddings of a cell (``FIXED_TABLE_CSS``; the themes draw no vertical rules)
#: and a twentieth of an em to spare, in em.
_CELL_EXTRA = 1.0 + 0.05
#: Measured widths are scaled by this: Pango may round an advance up to its grid.
_MARGIN = 1.005
#: Font-size factors of the inline elements reportgen's tables use (the themes' CSS):
#: tie-group letters ``sup`` at .72em, interval lines ``.rg-ci`` at .82em; any other
#: ``sup``/``sub``/``small`` at the browsers' "smaller" (.83em), ``code`` in a
#: monospaced font at .88em.
_SIZES = {"rg-letters": 0.72, "rg-ci": 0.82}
_SMALLER = 0.83
_MONO_ADVANCE = 0.6 * 0.88
#: The narrowest widths the layout CSS allows: a first-column cell breaks anywhere (one
#: glyph), a ``td.rg-long`` cell is at least 12em wide.
_ANYWHERE_MIN_EM = 1.0
_RG_LONG_MIN_EM = 12.0
#: Classes whose cells the themes set in bold (weight 600 or more).
_BOLD_CLASSES = frozenset({"sig", "improved", "regressed", "rg-best"})
#: Where a line may break inside a word besides spaces (UAX #14: after hyphens,
#: solidus and vertical bar), so a system name "claude-3-opus" wraps at its hyphens.
_BREAK_AFTER = frozenset("-/|\u2010\u2013")
#: Font files to try when ``fc-match`` is not there (Debian, Fedora, Arch, macOS).
_FONT_DIRS = (
    "/usr/share/fonts/truetype/liberation",
    "/usr/share/fonts/truetype/liberation2",
    "/usr/share/fonts/liberation-sans",
    "/usr/share/fonts/liberation",
    "/usr/share/fonts/TTF",
    "/Library/Fonts",
)


@dataclass(frozen=True)
class TextMetrics:
    """Advance widths, in em, of the regular and bold faces of one font family.

    A character missing from the font is drawn by a fallback font; it is counted as
    ``fallback`` em (one em: wider than any Latin glyph), and East Asian wide characters
    as one em too.
    """

    regular: Mapping[str, float]
    bold: Mapping[str, float]
    fallback: float = 1.0
    _cache: dict[tuple[str, bool], float] = field(default_factory=dict, compare=False)

    def width(self, text: str, *, bold: bool = False) -> float:
        """The width of ``text`` on one line, in em (no kerning: an upper bound)."""
        key = (text, bold)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        table = self.bold if bold else self.regular
        total = 0.0
        for char in text:
            advance = table.get(char)
            if advance is None:
                advance = (
                    self.fallback
                    if unicodedata.east_asian_width(char) in "WF" or not unicodedata.combining(char)
                    else 0.0
                )
            total += advance
        if len(self._cache) < 200_000:
            self._cache[key] = total
        return total


@lru_cache(maxsize=1)
def text_metrics() -> TextMetrics | None:
    """The metrics of :data:`FAMILY` (regular and bold) as installed on this machine, or
    None when it is not installed (or fontTools cannot read it): the PDF's tables then
    keep WeasyPrint's automatic layout."""
    regular, bold = _font_file(bold=False), _font_file(bold=True)
    if regular is None or bold is None:
        return None
    try:
        return TextMetrics(regular=_advances(regular), bold=_advances(bold))
    except Exception:  # noqa: BLE001 - an unreadable font: measure nothing
        return None


def _font_file(*, bold: bool) -> Path | None:
    """The file of :data:`FAMILY`'s regular or bold face: fontconfig's match when it is
    that family (not a substitute), else a file of the usual name in the usual places."""
    fc_match = shutil.which("fc-match")
    if fc_match is not None:
        pattern = FAMILY + (":weight=bold" if bold else ":weight=regular")
        try:
            out = subprocess.run(
                [fc_match, "--format=%{family}\n%{file}", pattern],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        lines = out.splitlines()
        if len(lines) == 2 and FAMILY in lines[0].split(",") and Path(lines[1]).is_file():
            return Path(lines[1])
    name = f"LiberationSans-{'Bold' if bold else 'Regular'}.ttf"
    for folder in _FONT_DIRS:
        candidate = Path(folder) / name
        if candidate.is_file():
            return candidate
    return None


def _advances(path: Path) -> dict[str, float]:
    from fontTools.ttLib import TTFont

    with TTFont(str(path), lazy=True) as font:
        per_em = float(font["head"].unitsPerEm)
        metrics = font["hmtx"].metrics
        return {
            chr(code): metrics[glyph][0] / per_em
            for code, glyph in font.getBestCmap().items()
            if glyph in metrics
        }


# --------------------------------------------------------------------------- tables


@dataclass
class _Cell:
    row: int
    col: int
    span: int
    nowrap: bool
    #: the narrowest the theme lets the cell be, when not its longest run (a cell that
    #: may break anywhere: one glyph; a long-text cell: its min-width)
    min_em: float | None
    #: per line, its runs of text: (text, size factor, bold, monospaced)
    lines: list[list[tuple[str, float, bool, bool]]] = field(default_factory=lambda: [[]])

    def widths(self, metrics: TextMetrics) -> tuple[float, float]:
        """(narrowest, widest) width of the cell's text, in em of the table's font."""
        widest = narrowest = 0.0
        for line in self.lines:
            chars = [
                (char, scale * (_MONO_ADVANCE if mono else metrics.width(char, bold=bold)))
                for text, scale, bold, mono in line
                for char in text
            ]
            total = run = longest = 0.0  # the line, the current unbreakable run, the longest
            for k, (char, advance) in enumerate(chars):
                total += advance
                if char == " ":
                    longest, run = max(longest, run), 0.0
                    continue
                run += advance
                # UAX #14: no break between a hyphen and a digit ("claude-3" stays whole)
                if char in _BREAK_AFTER and not (k + 1 < len(chars) and chars[k + 1][0].isdigit()):
                    longest, run = max(longest, run), 0.0
            longest = max(longest, run)
            widest = max(widest, total)
            if self.nowrap:
                narrowest = max(narrowest, total)
            elif self.min_em is not None:
                narrowest = max(narrowest, self.min_em)
            else:
                narrowest = max(narrowest, longest)
        return narrowest, widest


class _TableCells(HTMLParser):
    """The cells of one table: their grid position, span, wrapping and styled text."""

    def __init__(self, *, matrix: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.matrix = matrix
        self.cells: list[_Cell] = []
        self.nested = False
        self._row = -1
        self._taken: dict[tuple[int, int], bool] = {}
        self._col = 0
        self._cell: _Cell | None = None
        self._stack: list[tuple[str, float, bool, bool]] = []  # tag, scale, bold, mono
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = set((values.get("class") or "").split())
        if tag == "table":
            self._depth += 1
            if self._depth > 1:
                self.nested = True
            return
        if tag == "tr":
            self._row += 1
            self._col = 0
            return
        if tag in ("td", "th"):
            while self._taken.get((self._row, self._col)):
                self._col += 1
            span = _int(values.get("colspan"))
            for k in range(_int(values.get("rowspan"))):
                for j in range(span):
                    self._taken[(self._row + k, self._col + j)] = True
            nowrap = "num" in classes or (self.matrix and tag == "td")
            self._cell = _Cell(
                self._row,
                self._col,
                span,
                nowrap=nowrap and "rg-long" not in classes,
                min_em=_RG_LONG_MIN_EM
                if "rg-long" in classes
                else (_ANYWHERE_MIN_EM if tag == "td" and self._col == 0 else None),
            )
            self.cells.append(self._cell)
            self._col += span
            self._stack = [(tag, 1.0, tag == "th" or bool(classes & _BOLD_CLASSES), False)]
            return
        if self._cell is None or tag in _VOID:
            if tag == "br" and self._cell is not None:
                self._cell.lines.append([])
            return
        _, scale, bold, mono = self._stack[-1]
        if tag in ("sup", "sub", "small") or classes & _SIZES.keys():
            factor = next((_SIZES[c] for c in classes if c in _SIZES), _SMALLER)
            scale *= factor
        if tag in ("strong", "b", "th") or classes & _BOLD_CLASSES:
            bold = True
        if tag in ("code", "kbd", "samp", "tt"):
            mono = True
        self._stack.append((tag, scale, bold, mono))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" and self._cell is not None:
            self._cell.lines.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._depth -= 1
        elif tag in ("td", "th"):
            self._cell = None
        elif self._cell is not None and len(self._stack) > 1 and self._stack[-1][0] == tag:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        if self._cell is None or not data:
            return
        _, scale, bold, mono = self._stack[-1]
        text = re.sub(r"\s+", " ", data)  # white space collapses to one space
        self._cell.lines[-1].append((text, scale, bold, mono))


_VOID = frozenset({"br", "img", "wbr", "hr", "input", "col", "meta", "link"})


def _int(value: str | None) -> int:
    return int(value) if value and value.isdigit() and int(value) > 0 else 1


def _column_widths(cells: list[_Cell], metrics: TextMetrics) -> tuple[list[float], list[float]]:
    """Per column: (narrowest, widest) width in em, cell padding included, spans spread
    over their columns where the columns alone are too narrow."""
    columns = max((c.col + c.span for c in cells), default=0)
    low, high = [0.0] * columns, [0.0] * columns
    spanning = []
    for cell in cells:
        narrowest, widest = cell.widths(metrics)
        narrowest, widest = narrowest * _MARGIN + _CELL_EXTRA, widest * _MARGIN + _CELL_EXTRA
        if cell.span == 1:
            low[cell.col] = max(low[cell.col], narrowest)
            high[cell.col] = max(high[cell.col], widest)
        else:
            spanning.append((cell, narrowest, widest))
    for cell, narrowest, widest in spanning:
        cols = range(cell.col, cell.col + cell.span)
        for need, widths in ((narrowest, low), (widest, high)):
            short = need - sum(widths[c] for c in cols)
            if short > 0:
                for c in cols:
                    widths[c] += short / cell.span
    for c in range(columns):  # an empty column still has its padding
        low[c] = max(low[c], _CELL_EXTRA)
        high[c] = max(high[c], low[c])
    return low, high


_TABLE = re.compile(r"<table\b[^>]*>.*?</table\s*>", re.DOTALL | re.IGNORECASE)
_TABLE_START = re.compile(r"<table\b([^>]*)>", re.IGNORECASE)
_CAPTION = re.compile(r"<caption\b.*?</caption\s*>", re.DOTALL | re.IGNORECASE)
_CLASS = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def fix_table_widths(html: str, metrics: TextMetrics) -> str:
    """``html`` with every ``rg-table`` given measured column widths (module docstring);
    other tables, and tables holding a table, are left to WeasyPrint's automatic layout.

    >>> m = TextMetrics(regular={c: 0.5 for c in "abc "}, bold={c: 0.6 for c in "abc "})
    >>> out = fix_table_widths('<table class="rg-table"><tr><td>abc</td></tr></table>', m)
    >>> 'class="rg-table rg-fixed"' in out and "<colgroup>" in out
    True
    """
    return _TABLE.sub(lambda match: _fixed(match.group(0), metrics), html)


def _fixed(table: str, metrics: TextMetrics) -> str:
    start = _TABLE_START.match(table)
    if start is None:
        return table
    attributes = start.group(1)
    found = _CLASS.search(attributes)
    classes = (found.group(1) or found.group(2) or "").split() if found else []
    if "rg-table" not in classes or "rg-fixed" in classes or "style=" in attributes.lower():
        return table
    parser = _TableCells(matrix="rg-matrix" in classes)
    parser.feed(table)
    parser.close()
    if parser.nested or not parser.cells:
        return table
    low, high = _column_widths(parser.cells, metrics)
    sum_low, sum_high = sum(low), sum(high)
    flex = sum_high - sum_low
    cols = "".join(
        f'<col style="width: calc({lo:.3f}em + {(hi - lo) / flex:.5f} * (100% - {sum_low:.3f}em))">'
        if flex > 1e-9
        else f'<col style="width: {lo:.3f}em">'
        for lo, hi in zip(low, high)
    )
    width = f"max({sum_low:.3f}em, min(100%, {sum_high:.3f}em))"
    assert found is not None  # "rg-table" was among the classes
    head = (
        attributes[: found.start()]
        + f'class="{" ".join([*classes, "rg-fixed"])}" style="width: {width}"'
        + attributes[found.end() :]
    )
    rest = table[start.end() :]
    caption = _CAPTION.match(rest.lstrip())
    if caption is not None:
        lead = len(rest) - len(rest.lstrip())
        cut = lead + caption.end()
        return f"<table{head}>{rest[:cut]}<colgroup>{cols}</colgroup>{rest[cut:]}"
    return f"<table{head}><colgroup>{cols}</colgroup>{rest}"

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

A table is laid out to the page it is printed on. The PDF export first lays out a probe
(:func:`probe_html`: the tables emptied, only their ancestors kept), which gives each
table its font size and the width of its line (a portrait or a landscape page); a table
whose narrowest layout (Σmin) is wider than that is printed as column groups
(:func:`column_groups`), tables of the same rows one after the other, each repeating
the columns that name the row (the matrix's rank and system) and holding as many other
columns as fit. A table the exporter put on a landscape page (more than 10 columns)
goes back to a portrait page when its widest layout (Σmax) fits one.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

__all__ = [
    "FIXED_TABLE_CSS",
    "TextMetrics",
    "column_groups",
    "fix_table_widths",
    "NARROW",
    "PROBE_ATTRIBUTE",
    "probe_html",
    "text_metrics",
]

#: The family the measured tables are printed in (and measured with).
FAMILY = "Liberation Sans"
#: The print rules of the tables :func:`fix_table_widths` marks: one-pass layout, the
#: measured font, the horizontal padding the widths include, and long runs broken
#: rather than drawn over the next cell.
FIXED_TABLE_CSS = f"""\
table.rg-fixed {{ table-layout: fixed; font-family: "{FAMILY}", Arimo, Arial, sans-serif; }}
table.rg-fixed th, table.rg-fixed td {{ padding-left: .5em !important;
  padding-right: .5em !important; overflow-wrap: anywhere; }}
table.rg-fixed.rg-continued {{ margin-top: .9em !important; }}
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
#: The narrowest a ``td.rg-long`` cell may be (the layout CSS), in em; any cell is at
#: least as wide as its longest unbroken run: no word is broken inside (issue 42).
_RG_LONG_MIN_EM = 12.0
#: The widest a cell's longest unbroken run may be, as a share of its table's room;
#: a longer one (a name without a place to wrap) is set smaller, down to
#: :data:`_MIN_SCALE` of the table's font.
_RUN_SHARE = 0.45
_MIN_SCALE = 0.7
#: Classes whose cells the themes set in bold (weight 600 or more).
_BOLD_CLASSES = frozenset({"sig", "improved", "regressed", "rg-best"})
#: Where a line may break inside a word besides spaces (UAX #14: after hyphens,
#: solidus and vertical bar; after an underscore, where :func:`_fixed` puts a
#: ``<wbr>``), so a system name "claude-3-opus" wraps at its hyphens and a metric
#: "edit_distance" after its underscore.
_BREAK_AFTER = frozenset("-/|_\u2010\u2013")
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
    #: where the cell is in the table's text: its start tag, and the end of its end tag
    #: (or where the next cell or row starts, when the end tag is left out)
    start: int = 0
    start_tag_end: int = 0
    end: int = 0
    header: bool = False
    classes: frozenset[str] = frozenset()
    #: the cell's font size against the table's (a long run set smaller)
    scale: float = 1.0

    def widths(self, metrics: TextMetrics) -> tuple[float, float]:
        """(narrowest, widest) width of the cell's text, in em of the table's font."""
        narrowest, widest = self._widths(metrics)
        return narrowest * self.scale, widest * self.scale

    def _widths(self, metrics: TextMetrics) -> tuple[float, float]:
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
            else:
                narrowest = max(narrowest, longest, self.min_em or 0.0)
        return narrowest, widest


class _TableCells(HTMLParser):
    """The cells of one table: their grid position, span, wrapping and styled text."""

    def __init__(self, *, matrix: bool, text: str = "") -> None:
        super().__init__(convert_charrefs=True)
        self.matrix = matrix
        self.cells: list[_Cell] = []
        self.nested = False
        #: the table has ``<col>`` or ``<colgroup>`` of its own (never split)
        self.has_cols = False
        self._text = text
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
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
        if tag in ("col", "colgroup"):
            self.has_cols = True
        if tag == "tr":
            self._close_cell()
            self._row += 1
            self._col = 0
            return
        if tag in ("td", "th"):
            self._close_cell()
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
                min_em=_RG_LONG_MIN_EM if "rg-long" in classes else None,
            )
            start = self._offset()
            self._cell.start = start
            self._cell.start_tag_end = start + len(self.get_starttag_text() or "")
            self._cell.header = tag == "th"
            self._cell.classes = frozenset(classes)
            size = _FONT_SIZE.search(values.get("style") or "")
            if size is not None:  # set smaller by _shrunk
                self._cell.scale = float(size.group(1)) / 100
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
        if tag in ("tr", "thead", "tbody", "tfoot", "table"):
            self._close_cell()
        if tag == "table":
            self._depth -= 1
        elif tag in ("td", "th"):
            if self._cell is not None:
                close = self._text.find(">", self._offset())
                self._cell.end = close + 1 if close >= 0 else len(self._text)
            self._cell = None
        elif self._cell is not None and len(self._stack) > 1 and self._stack[-1][0] == tag:
            self._stack.pop()

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def _close_cell(self) -> None:
        """End the open cell where the next tag starts (its end tag was left out)."""
        if self._cell is not None and not self._cell.end:
            self._cell.end = self._offset()
        self._cell = None

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


def fix_table_widths(
    html: str,
    metrics: TextMetrics,
    rooms: Sequence[float | None] | None = None,
    narrow_rooms: Mapping[int, float] | None = None,
) -> str:
    """``html`` with every ``rg-table`` given measured column widths (module docstring);
    other tables, and tables holding a table, are left to WeasyPrint's automatic layout.

    ``rooms`` holds, per table of ``html`` (as :func:`probe_html` numbers them), the
    width it may take in em of its own font (the PDF export measures it on the probe;
    None: unknown). A
    table whose narrowest layout is wider than its room is split into column groups
    that each fit (:func:`column_groups`), with its label columns (the system) repeated
    in each. ``narrow_rooms`` holds, for a table on a landscape page (an ``rg-wide``
    wrapper), the room it would have on a portrait page: a table whose widest layout
    fits it goes back to a portrait page (the landscape page is for a table that needs
    it, never for a count of columns).

    >>> m = TextMetrics(regular={c: 0.5 for c in "abc "}, bold={c: 0.6 for c in "abc "})
    >>> out = fix_table_widths('<table class="rg-table"><tr><td>abc</td></tr></table>', m)
    >>> 'class="rg-table rg-fixed"' in out and "<colgroup>" in out
    True
    """
    parts, last = [], 0
    for k, match in enumerate(_TABLE.finditer(html)):
        before = html[last : match.start()]
        room = rooms[k] if rooms is not None and k < len(rooms) else None
        narrow = (narrow_rooms or {}).get(k)
        if narrow is not None:
            wrapper = _last_wide_wrapper(before)
            if wrapper is not None and _widest(match.group(0), metrics) <= narrow:
                start, end = wrapper.span(2)
                before = before[:start] + _drop_wide(wrapper.group(2)) + before[end:]
                room = narrow
        parts += [before, _fixed(match.group(0), metrics, room)]
        last = match.end()
    parts.append(html[last:])
    return "".join(parts)


def _last_wide_wrapper(before: str) -> re.Match[str] | None:
    """The ``rg-wide`` wrapper's start tag that ends ``before`` (right before a table)."""
    start = before.rfind("<div", max(0, len(before) - 2000))
    return None if start < 0 else _WIDE_WRAPPER.fullmatch(before, start)


def _widest(table: str, metrics: TextMetrics) -> float:
    """The width of ``table`` with every column at its widest line, in em (infinite for a
    table that is not measured)."""
    start = _TABLE_START.match(table)
    found = _CLASS.search(start.group(1)) if start is not None else None
    classes = (found.group(1) or found.group(2) or "").split() if found else []
    if "rg-table" not in classes:
        return float("inf")
    parser = _TableCells(matrix="rg-matrix" in classes, text=table)
    parser.feed(table)
    parser.close()
    if parser.nested or not parser.cells:
        return float("inf")
    return sum(_column_widths(parser.cells, metrics)[1])


#: The attribute that numbers the tables of :func:`probe_html`.
PROBE_ATTRIBUTE = "data-rg-probe"
#: The suffix of the number of a table's twin on a portrait page (:func:`probe_html`).
NARROW = "n"
#: The start tag of a wrapper that puts a table on a landscape page (class ``rg-wide``,
#: reportgen.report.export.body): its class in group 2.
_WIDE_WRAPPER = re.compile(
    r"""<div\b[^>]*?\bclass\s*=\s*(["'])((?:(?!\1).)*\brg-wide\b(?:(?!\1).)*)\1[^>]*>\s*""",
    re.IGNORECASE | re.DOTALL,
)
_PROBE_NUMBER = re.compile(rf'({PROBE_ATTRIBUTE}="\d+)"')


def _drop_wide(classes: str) -> str:
    return " ".join(c for c in classes.split() if c != "rg-wide")


def probe_html(html: str) -> tuple[str, int]:
    """The probe of ``html``: each table :func:`fix_table_widths` looks at emptied to one
    empty cell and numbered (:data:`PROBE_ATTRIBUTE`, in the order ``rooms`` takes), and
    of the body only the elements that hold such a table (a table's width depends on
    its ancestors, never on its siblings: the report floats nothing). Laid out with the
    same stylesheets, each table has the font and the containing width it has in the
    report, at a small part of the cost. A table on a landscape page (in an ``rg-wide``
    wrapper) has a twin on a portrait page, numbered ``K`` + :data:`NARROW`. Returns
    the probe and the number of tables.

    >>> probe, n = probe_html(
    ...     '<html><head><style>p{}</style></head><body><p>text</p>'
    ...     '<div class="w"><table class="t"><tr><td>1</td></tr></table></div>'
    ...     '</body></html>'
    ... )
    >>> n, probe.split("<body>")[1].removesuffix("</body></html>")
    (1, '<div class="w"><table class="t" data-rg-probe="0"><tr><td></td></tr></table></div>')
    """
    counter = iter(range(len(html) + 1))

    def empty(match: re.Match[str]) -> str:
        start = _TABLE_START.match(match.group(0))
        attributes = start.group(1) if start is not None else ""
        return f'<table{attributes} {PROBE_ATTRIBUTE}="{next(counter)}"></table>'

    probe = _TABLE.sub(empty, html)
    count = next(counter)
    body = re.search(r"<body\b[^>]*>", probe, re.IGNORECASE)
    if body is None:
        return probe, count
    skeleton = _Skeleton()
    skeleton.feed(probe[body.end() :])
    skeleton.close()
    return probe[: body.end()] + skeleton.text() + "</body></html>", count


class _Skeleton(HTMLParser):
    """The elements of a body that hold a probe table (:func:`probe_html`), with their
    start tags as written; a probe table gets its one empty cell back."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self._stack: list[tuple[str, str, list[str], bool]] = [("", "", [], False)]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raw = self.get_starttag_text() or f"<{tag}>"
        if tag in _VOID:
            return
        probe = tag == "table" and any(k == PROBE_ATTRIBUTE for k, _ in attrs)
        self._stack.append((tag, raw, ["<tr><td></td></tr>"] if probe else [], probe))

    def handle_endtag(self, tag: str) -> None:
        if not any(open_tag == tag for open_tag, *_ in self._stack[1:]):
            return  # an end tag without its start: ignored, as browsers do
        while len(self._stack) > 1:
            name, raw, inner, keep = self._stack.pop()
            if keep:
                parent = self._stack[-1]
                held = "".join(inner)
                parent[2].append(f"{raw}{held}</{name}>")
                wide = _WIDE_WRAPPER.fullmatch(raw)
                if wide is not None:  # its twin on a portrait page
                    narrow = raw[: wide.start(2)] + _drop_wide(wide.group(2)) + raw[wide.end(2) :]
                    # a page of its own name (the default page's size): a page of no
                    # name would go on with the landscape page before it
                    narrow = narrow.replace("<div", '<div style="page: rg-narrow"', 1)
                    held = _PROBE_NUMBER.sub(lambda m: f'{m.group(1)}{NARROW}"', held)
                    parent[2].append(f"{narrow}{held}</{name}>")
                self._stack[-1] = (parent[0], parent[1], parent[2], True)
            if name == tag:
                break

    def text(self) -> str:
        while len(self._stack) > 1:
            self.handle_endtag(self._stack[-1][0])
        return "".join(self._stack[0][2])


def _fixed(table: str, metrics: TextMetrics, room: float | None = None) -> str:
    start = _TABLE_START.match(table)
    if start is None:
        return table
    attributes = start.group(1)
    found = _CLASS.search(attributes)
    classes = (found.group(1) or found.group(2) or "").split() if found else []
    if "rg-table" not in classes or "rg-fixed" in classes or "style=" in attributes.lower():
        return table
    table = _underscore_breaks(table)
    parser = _TableCells(matrix="rg-matrix" in classes, text=table)
    parser.feed(table)
    parser.close()
    if parser.nested or not parser.cells:
        return table
    if room is not None:
        smaller = _shrunk(table, parser.cells, metrics, _RUN_SHARE * room)
        if smaller != table:
            table = smaller
            parser = _TableCells(matrix="rg-matrix" in classes, text=table)
            parser.feed(table)
            parser.close()
    low, high = _column_widths(parser.cells, metrics)
    if room is not None and sum(low) > room and not parser.has_cols and len(low) > 1:
        keys = _label_columns(parser.cells, low, room)
        groups = column_groups(low, high, room, keys=keys, atoms=_atoms(parser.cells, keys))
        if len(groups) > 1:
            return "\n".join(
                _fixed(_part(table, parser.cells, set(group), first=k == 0), metrics)
                for k, group in enumerate(groups)
            )
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


_TEXT_NODE = re.compile(r">([^<]*_[^<]*)<")
_FONT_SIZE = re.compile(r"font-size:\s*([0-9.]+)%")


def _underscore_breaks(table: str) -> str:
    """``table`` with a ``<wbr>`` after each underscore of its text (not its tags): a
    name such as "edit_distance" may wrap there, never inside a word.

    >>> _underscore_breaks('<td class="a_b">edit_distance</td>')
    '<td class="a_b">edit_<wbr>distance</td>'
    """
    return _TEXT_NODE.sub(lambda m: ">" + m.group(1).replace("_", "_<wbr>") + "<", table)


def _shrunk(table: str, cells: Sequence[_Cell], metrics: TextMetrics, cap: float) -> str:
    """``table`` with each body cell whose longest unbroken run is wider than ``cap``
    (em of the table's font) set smaller, to fit ``cap`` (at most down to
    :data:`_MIN_SCALE`): a long name keeps its words whole and leaves room for the
    other columns."""
    edits = []
    for cell in cells:
        if cell.header or cell.nowrap:
            continue
        narrowest = cell.widths(metrics)[0] * _MARGIN + _CELL_EXTRA
        if narrowest <= cap:
            continue
        scale = max(_MIN_SCALE, (cap - _CELL_EXTRA) / max(narrowest - _CELL_EXTRA, 1e-9))
        tag = table[cell.start : cell.start_tag_end]
        if "style=" in tag.lower():
            continue
        new = tag[:-1].rstrip("/ ") + f' style="font-size: {100 * scale:.0f}%">'
        edits.append((cell.start, cell.start_tag_end, new))
    out = table
    for begin, end, text in sorted(edits, reverse=True):
        out = out[:begin] + text + out[end:]
    return out


# ------------------------------------------------------------------ column groups

#: The label columns repeated in every column group take at most this share of the room
#: (else only the first column is repeated).
_LABEL_SHARE = 0.6


def column_groups(
    low: Sequence[float],
    high: Sequence[float],
    room: float,
    *,
    keys: Sequence[int] = (0,),
    atoms: Sequence[Sequence[int]] | None = None,
) -> list[list[int]]:
    """The columns of a table too wide for its ``room`` split into as few groups as fit,
    each group the label columns ``keys`` followed by consecutive other columns.

    Parameters
    ----------
    low, high
        Per column, its narrowest and widest width (the units of ``room``).
    room
        The width a table may take.
    keys
        The label columns, repeated in every group (the system's name).
    atoms
        Runs of consecutive other columns kept in one group when they fit (the metrics
        of one dataset under a spanning header); default: every column alone.

    Returns
    -------
    list of list of int
        The columns of each group, in order. Groups fit by their narrowest widths
        whenever a single column does; among the fewest groups, the ones whose widest
        group (by widest widths) is the narrowest, so groups come out alike and text
        wraps as little as possible. A column wider than the room alone gets a group of
        its own.

    >>> column_groups([2, 3, 3, 3, 3], [2, 4, 4, 4, 4], 10, keys=[0])
    [[0, 1, 2], [0, 3, 4]]
    >>> column_groups([2, 3, 3, 3, 3], [2, 4, 4, 4, 4], 9, keys=[0], atoms=[[1, 2, 3], [4]])
    [[0, 1, 2], [0, 3, 4]]
    """
    keyset = set(keys)
    rest = [c for c in range(len(low)) if c not in keyset]
    if not rest:
        return [list(range(len(low)))]
    capacity = room - sum(low[c] for c in keys)
    units = _units(rest, atoms, low, capacity)

    def unit_low(unit: Sequence[int]) -> float:
        return sum(low[c] for c in unit)

    def unit_high(unit: Sequence[int]) -> float:
        return sum(high[c] for c in unit)

    def pack(limit: float) -> list[list[Sequence[int]]]:
        """Greedy consecutive packing: every group within ``capacity`` by its narrowest
        widths and within ``limit`` by its widest (a unit that fits neither alone gets
        a group of its own); the fewest groups for these prefix-closed constraints."""
        groups: list[list[Sequence[int]]] = []
        lo = hi = 0.0
        for unit in units:
            ul, uh = unit_low(unit), unit_high(unit)
            if groups and lo + ul <= capacity and hi + uh <= limit:
                groups[-1].append(unit)
                lo, hi = lo + ul, hi + uh
            else:
                groups.append([unit])
                lo, hi = ul, uh
        return groups

    fewest = len(pack(float("inf")))
    top = sum(unit_high(u) for u in units)
    bottom = max(unit_high(u) for u in units)
    for _ in range(40):  # the smallest widest group that still needs only `fewest`
        middle = (bottom + top) / 2
        if len(pack(middle)) <= fewest:
            top = middle
        else:
            bottom = middle
    return [
        sorted([*keys, *(c for unit in group for c in unit)]) for group in pack(top * (1 + 1e-9))
    ]


def _units(
    rest: Sequence[int],
    atoms: Sequence[Sequence[int]] | None,
    low: Sequence[float],
    capacity: float,
) -> list[list[int]]:
    """The other columns as units to pack: each atom that fits the room whole, else its
    columns one by one; columns in no atom alone."""
    units: list[list[int]] = []
    placed: set[int] = set()
    by_start = {min(a): sorted(a) for a in (atoms or ()) if a}
    for c in rest:
        if c in placed:
            continue
        atom = [x for x in by_start.get(c, [c]) if x in rest and x not in placed]
        if len(atom) > 1 and sum(low[x] for x in atom) <= capacity:
            units.append(atom)
            placed.update(atom)
        else:
            units.append([c])
            placed.add(c)
    return units


def _label_columns(cells: Sequence[_Cell], low: Sequence[float], room: float) -> list[int]:
    """The leading columns that name a row, to repeat in every group: the first column,
    and the next ones up to the first whose body cells are text (the matrix's rank and
    system), when that is at most three columns and leaves room for the rest."""
    body = [c for c in cells if not c.header and c.span == 1]
    keys = [0]
    for col in range(3):
        column = [c for c in body if c.col == col]
        if not column:
            break
        if any("num" not in c.classes for c in column):
            keys = list(range(col + 1))
            break
    if sum(low[c] for c in keys) > _LABEL_SHARE * room:
        keys = [0]
    return keys


def _atoms(cells: Sequence[_Cell], keys: Sequence[int]) -> list[list[int]]:
    """Columns under one spanning header cell (a dataset's metrics), outside ``keys``."""
    keyset = set(keys)
    atoms = []
    for cell in cells:
        if cell.header and cell.span > 1:
            cols = [c for c in range(cell.col, cell.col + cell.span) if c not in keyset]
            if len(cols) > 1:
                atoms.append(cols)
    return atoms


_COLSPAN = re.compile(r"""\bcolspan\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)
_ID = re.compile(r"""\sid\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)


def _part(table: str, cells: Sequence[_Cell], keep: set[int], *, first: bool) -> str:
    """``table`` with only the columns ``keep``: other cells left out, a cell spanning
    kept and other columns spanning the kept ones only. Every part after the first
    leaves out the caption and the ids (of the table and its repeated cells), which
    the first part holds."""
    edits: list[tuple[int, int, str]] = []
    for cell in cells:
        kept = sum(1 for c in range(cell.col, cell.col + cell.span) if c in keep)
        if not kept:
            edits.append((cell.start, cell.end, ""))
            continue
        tag = table[cell.start : cell.start_tag_end]
        new = tag
        if kept < cell.span:
            found = _COLSPAN.search(new)
            if found is not None:
                new = new[: found.start()] + f'colspan="{kept}"' + new[found.end() :]
        if not first:
            new = _ID.sub("", new)
        if new != tag:
            edits.append((cell.start, cell.start_tag_end, new))
        if not first:
            inner = table[cell.start_tag_end : cell.end]
            stripped = _ID.sub("", inner)
            if stripped != inner:
                edits.append((cell.start_tag_end, cell.end, stripped))
    out = table
    for begin, end, text in sorted(edits, reverse=True):
        out = out[:begin] + text + out[end:]
    if not first:
        start = _TABLE_START.match(out)
        if start is not None:
            head = _ID.sub("", start.group(1))
            found = _CLASS.search(head)
            if found is not None:
                classes = (found.group(1) or found.group(2) or "").split()
                head = (
                    head[: found.start()]
                    + f'class="{" ".join([*classes, "rg-continued"])}"'
                    + head[found.end() :]
                )
            rest = out[start.end() :]
            caption = _CAPTION.match(rest.lstrip())
            if caption is not None:
                rest = rest.lstrip()[caption.end() :]
            out = f"<table{head}>{rest}"
    return out

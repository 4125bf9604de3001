"""Tables that fit (issue 34, item 1): every word of every page of the PDF lies inside the
page's margins, as ``pdftotext -bbox`` (poppler, independent of WeasyPrint and of the
widths measured in ``pdf/tables.py``) places it, on the bundled example's report, a
release report, the history of three releases and a report of all the shared eval-arena
benchmarks at once. Before the wide tables were split into column groups by their
measured widths, the example's second results table reached x = 583 pt on a 595 pt page
(its margin at 553) and the eval-arena one 598 pt, past the paper's edge.

The column groups themselves (:func:`reportgen.report.pdf.tables.column_groups`) are
checked against a brute-force enumeration of every way to cut the columns, and a split
table against its own cells."""

from __future__ import annotations

import itertools
import random
import re
import shutil
import subprocess
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reportgen.report.pdf.document import _print_css
from reportgen.report.pdf.tables import TextMetrics, column_groups, fix_table_widths

#: A word may reach this far past a margin (points): rounding of the glyph boxes.
TOLERANCE_PT = 0.5
_MM_PT = 72 / 25.4


def _page_margins_pt() -> tuple[float, float, float, float]:
    """(top, right, bottom, left) of the PDF's @page rule, in points, read from the
    print stylesheet the PDF is made with."""
    css = _print_css(title="t")
    page = re.search(r"@page\s*\{(.*?)@top-left", css, re.DOTALL)
    assert page is not None, css
    margin = re.search(r"(?<![-\w])margin:\s*([^;]+);", page.group(1))
    assert margin is not None, page.group(1)
    units = {"mm": _MM_PT, "cm": 10 * _MM_PT, "in": 72.0, "pt": 1.0}
    values = []
    for token in margin.group(1).split():
        found = re.fullmatch(r"([\d.]+)(mm|cm|in|pt)", token)
        assert found is not None, f"margin {token!r} in a unit the test does not read"
        values.append(float(found.group(1)) * units[found.group(2)])
    top, right, bottom, left = (values * 4)[:4] if len(values) == 1 else _four(values)
    return top, right, bottom, left


def _four(values: list[float]) -> tuple[float, float, float, float]:
    if len(values) == 2:
        return values[0], values[1], values[0], values[1]
    if len(values) == 3:
        return values[0], values[1], values[2], values[1]
    return values[0], values[1], values[2], values[3]


@dataclass(frozen=True)
class _Word:
    page: int
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    width: float
    height: float


def _words(pdf: Path) -> list[_Word]:
    """Every word of the PDF with its box, as ``pdftotext -bbox`` (poppler) reads it."""
    out = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    words = []
    for k, page in enumerate(re.split(r"<page ", out)[1:], start=1):
        size = re.match(r'width="([\d.]+)" height="([\d.]+)"', page)
        assert size is not None
        width, height = map(float, size.groups())
        for m in re.finditer(
            r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">'
            r"([^<]*)</word>",
            page,
        ):
            x0, y0, x1, y1 = map(float, m.groups()[:4])
            words.append(_Word(k, m.group(5), x0, y0, x1, y1, width, height))
    return words


def _title(folder: Path) -> str:
    import html

    found = re.search(r"<title>([^<]*)</title>", (folder / "report.html").read_text("utf-8"))
    return html.unescape(found.group(1)) if found else ""


def _outside(folder: Path) -> tuple[list[str], int]:
    """The words of the folder's report.pdf outside the page's margins, and the number
    of words. In the top margin of every page but the first stands the running header
    (the title, the release: the same words on every page), in the bottom margin the
    page number, as the stylesheet puts them."""
    top, right, bottom, left = _page_margins_pt()
    words = _words(folder / "report.pdf")
    out = []
    headers: dict[int, list[str]] = {}
    for w in words:
        where = f"p{w.page} {w.text!r} x {w.x0:.1f}-{w.x1:.1f} y {w.y0:.1f}-{w.y1:.1f}"
        if w.x0 < left - TOLERANCE_PT or w.x1 > w.width - right + TOLERANCE_PT:
            out.append(f"{where}: outside the left/right margins ({w.width:.0f} pt page)")
        elif w.y1 <= top + TOLERANCE_PT and w.page > 1:
            headers.setdefault(w.page, []).append(w.text)
        elif w.y0 < top - TOLERANCE_PT:
            out.append(f"{where}: across the top margin")
        elif w.y0 >= w.height - bottom - TOLERANCE_PT:
            if not re.fullmatch(r"page|of|\d+", w.text):
                out.append(f"{where}: in the bottom margin, not the page number")
        elif w.y1 > w.height - bottom + TOLERANCE_PT:
            out.append(f"{where}: across the bottom margin")
    title = _title(folder).split()
    for page, header in headers.items():
        if header[: len(title)] != title or header != headers[min(headers)]:
            out.append(f"p{page} {header}: in the top margin, not the running header")
    return out, len(words)


def _report(which: str, request) -> Path:
    """The shared reports of tests/report/conftest.py."""
    if which == "example":
        return request.getfixturevalue("example_report")[0]
    if which == "release":
        return request.getfixturevalue("example_releases")["v10.0"]
    if which == "history":
        return request.getfixturevalue("history_pdf")
    return request.getfixturevalue("arena_report")


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")
@pytest.mark.parametrize("which", ["example", "release", "history", "arena"])
def test_every_word_of_the_pdf_lies_inside_the_page_margins(which, request):
    outside, count = _outside(_report(which, request))
    assert count > 500  # the PDF's text was read
    assert not outside, f"{len(outside)} words outside the margins: {outside[:10]}"


def test_page_margins_are_read_from_the_print_stylesheet():
    top, right, bottom, left = _page_margins_pt()
    assert min(top, right, bottom, left) > 20  # some millimetres each, in points
    assert top > bottom  # the running header's room


# ------------------------------------------------------------------ column groups


def _fits(group, low, room):
    return sum(low[c] for c in group) <= room + 1e-9


def _brute_force_groups(low, high, room, keys):
    """Every way to cut the other columns into consecutive runs: the fewest runs that
    fit by the narrowest widths (a column too wide alone runs alone), and among those
    the smallest widest run by the widest widths."""
    rest = [c for c in range(len(low)) if c not in keys]
    best = None
    for cuts in range(len(rest)):
        for at in itertools.combinations(range(1, len(rest)), cuts):
            bounds = [0, *at, len(rest)]
            runs = [rest[a:b] for a, b in zip(bounds, bounds[1:])]
            if not all(len(r) == 1 or _fits([*keys, *r], low, room) for r in runs):
                continue
            widest = max(sum(high[c] for c in r) for r in runs)
            if best is None or widest < best[0] - 1e-9:
                best = (widest, runs)
        if best is not None:
            return len(best[1]), best[0]
    raise AssertionError("no cut")


@pytest.mark.parametrize("seed", range(40))
def test_column_groups_against_brute_force(seed):
    # reference: enumeration of all 2^(n-1) cuts of the columns (_brute_force_groups)
    rng = random.Random(seed)
    n = rng.randint(2, 9)
    low = [round(rng.uniform(1, 8), 2) for _ in range(n)]
    high = [round(lo + rng.uniform(0, 6), 2) for lo in low]
    keys = [0] if rng.random() < 0.6 else [0, 1][: min(2, n - 1)]
    room = round(sum(low[c] for c in keys) + rng.uniform(4, 25), 2)
    groups = column_groups(low, high, room, keys=keys)
    rest = [c for c in range(n) if c not in keys]
    # every group: the keys, then consecutive other columns; every other column once
    assert all(g[: len(keys)] == keys for g in groups)
    assert [c for g in groups for c in g[len(keys) :]] == rest
    assert all(len(g) == len(keys) + 1 or _fits(g, low, room) for g in groups)
    count, widest = _brute_force_groups(low, high, room, keys)
    assert len(groups) == count
    ours = max(sum(high[c] for c in g[len(keys) :]) for g in groups)
    assert ours == pytest.approx(widest, rel=1e-6)


def test_column_groups_keep_a_dataset_together_when_it_fits():
    low = [5, 3, 3, 3, 3, 3, 3]
    # datasets (1, 2, 3) and (4, 5, 6): 2 groups either way; cut between the datasets
    assert column_groups(low, low, 15, keys=[0], atoms=[[1, 2, 3], [4, 5, 6]]) == [
        [0, 1, 2, 3],
        [0, 4, 5, 6],
    ]
    # a dataset wider than the room alone is cut
    assert column_groups(low, low, 11, keys=[0], atoms=[[1, 2, 3, 4, 5, 6]]) == [
        [0, 1, 2],
        [0, 3, 4],
        [0, 5, 6],
    ]


class _Grid(HTMLParser):
    """The text of each table's rows, cell by cell."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_a_table_too_wide_for_its_room_is_split_with_its_labels_repeated():
    metrics = TextMetrics(
        regular=dict.fromkeys("abcdefghijklmnopqrstuvwxyz0123456789.# |", 0.5),
        bold=dict.fromkeys("abcdefghijklmnopqrstuvwxyz0123456789.# |", 0.55),
    )
    head = (
        '<tr><th rowspan="2">#</th><th rowspan="2">system</th>'
        '<th colspan="2" id="d1">one</th><th colspan="3">two</th></tr>'
        + "<tr>"
        + "".join(f'<th class="num">metric{k}</th>' for k in range(5))
        + "</tr>"
    )
    rows = "".join(
        f'<tr><td class="num">{r}</td><td id="s{r}">system{r}</td>'
        + "".join(f'<td class="num">{r}.{k}00</td>' for k in range(5))
        + "</tr>"
        for r in range(3)
    )
    table = (
        '<table class="rg-table rg-matrix"><caption>the matrix</caption>'
        f"<thead>{head}</thead><tbody>{rows}</tbody></table>"
    )
    whole = fix_table_widths(table, metrics, [200.0])
    assert whole.count("<table") == 1  # room enough: one table
    split = fix_table_widths(table, metrics, [28.0])
    parser = _Grid()
    parser.feed(split)
    tables = parser.tables
    assert len(tables) == 2
    assert split.count("<caption>") == 1 and split.count('id="s1"') == 1  # ids once
    assert split.count('id="d1"') == 1
    assert "rg-continued" in split.split("<table")[2]
    first, second = tables
    # the datasets stay whole: "one" (2 metrics) then "two" (3 metrics)
    assert first[0] == ["#", "system", "one"] and second[0] == ["#", "system", "two"]
    assert first[1] == ["metric0", "metric1"] and second[1] == ["metric2", "metric3", "metric4"]
    for r in range(3):
        assert first[2 + r] == [str(r), f"system{r}", f"{r}.000", f"{r}.100"]
        assert second[2 + r] == [str(r), f"system{r}", f"{r}.200", f"{r}.300", f"{r}.400"]
    # each part's measured widths sum to no more than the room
    for part in split.split("<table")[1:]:
        widths = re.search(r"max\(([\d.]+)em", part)
        assert widths is not None and float(widths.group(1)) <= 28.0


def test_a_landscape_table_that_fits_a_portrait_page_goes_back_to_one():
    metrics = TextMetrics(
        regular=dict.fromkeys("abc0123456789 ", 0.5), bold=dict.fromkeys("abc ", 0.6)
    )
    cells = "".join(f"<td>abc{k}</td>" for k in range(11))
    html = (
        f'<div class="rg-table-wrap rg-wide"><table class="rg-table"><tr>{cells}</tr></table></div>'
    )
    # "abc0".."abc9" and "abc10" at .5 em a character (+ 0.5 % to spare), 1.05 em of padding
    widest = 10 * (4 * 0.5 * 1.005 + 1.05) + (5 * 0.5 * 1.005 + 1.05)
    # fits a portrait line: the wrapper is no longer wide (a portrait page)
    narrow = fix_table_widths(html, metrics, [100.0], {0: widest + 0.1})
    assert narrow.startswith('<div class="rg-table-wrap">')
    # does not: it stays on its landscape page, whole
    kept = fix_table_widths(html, metrics, [100.0], {0: widest - 0.1})
    assert kept.startswith('<div class="rg-table-wrap rg-wide">') and kept.count("<table") == 1


@pytest.mark.integration  # WeasyPrint lays the probe out
def test_table_rooms_against_the_page_geometry():
    # reference: the closed form (page width - left and right margins - the wrapper's
    # indentation) / the table's font size, for a portrait A4 line, an indented one, and
    # the landscape page of an rg-wide wrapper with its portrait twin
    weasyprint = pytest.importorskip("weasyprint")
    from reportgen.report.pdf import document

    html = (
        "<html><head><style>table { font-size: 10pt; } .in { margin-left: 36pt; }"
        "@media print { .rg-wide table { font-size: 8pt; } }</style></head><body>"
        "<p>text</p><div class='rg-table-wrap'><table class='rg-table'><tr><td>a</td></tr>"
        "</table></div><div class='in'><table class='rg-table'><tr><td>b</td></tr></table>"
        "</div><div class='rg-table-wrap rg-wide'><table class='rg-table'><tr><td>c</td>"
        "</tr></table></div></body></html>"
    )
    css = weasyprint.CSS(string=_print_css(title="t"))
    fetcher = weasyprint.URLFetcher(allowed_protocols=("data",))
    rooms, narrow = document._table_rooms(weasyprint, html, css, fetcher)
    top, right, bottom, left = _page_margins_pt()
    a4 = (210 * _MM_PT, 297 * _MM_PT)
    portrait, landscape = a4[0] - left - right, a4[1] - left - right
    spare = document._ROOM_SPARE_EM
    assert rooms[0] == pytest.approx(portrait / 10 - spare, abs=1e-3)
    assert rooms[1] == pytest.approx((portrait - 36) / 10 - spare, abs=1e-3)
    assert rooms[2] == pytest.approx(landscape / 8 - spare, abs=1e-3)
    assert narrow == {2: pytest.approx(portrait / 10 - spare, abs=1e-3)}

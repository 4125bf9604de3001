"""``html.table(..., stack=True)``: the markup the themes stack into cards on a phone
(issue 34). The reference is the table without ``stack`` (the same cells and text)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from reportgen.report.render.html import Col, table

ROWS = [{"name": "gsm8k / acc", "verdict": "improved", "diff": "+3.1 pts"}]
COLS = [
    Col("name", "dataset / metric"),
    Col("verdict", "verdict", css=lambda r: r["verdict"]),
    Col("diff", 'candidate − "baseline" <adj>', numeric=True),
]


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str | None]] = []
        self.tables: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "td":
            self.cells.append(dict(attrs))
        elif tag == "table":
            self.tables.append(dict(attrs).get("class") or "")


def _parse(html: str) -> _Cells:
    parser = _Cells()
    parser.feed(html)
    return parser


def test_table_stack_labels_every_cell_with_its_escaped_header():
    stacked = _parse(table(ROWS, COLS, stack=True))
    assert stacked.tables == ["rg-table rg-stack"]
    # the parser unescapes attribute values: the header exactly as written
    assert [c["data-label"] for c in stacked.cells] == [c.label for c in COLS]
    assert [c.get("class") for c in stacked.cells] == [None, "improved", "num"]


def test_table_without_stack_is_unchanged():
    plain = table(ROWS, COLS)
    assert "data-label" not in plain and "rg-stack" not in plain
    stacked = table(ROWS, COLS, stack=True)
    # the same cells and text once the labels and the class are taken out
    assert re.sub(r' data-label="[^"]*"', "", stacked).replace(" rg-stack", "") == plain

"""The report's information design, checked on the rendered PDF and HTML: page 1 answers
the question (key findings with the leader, then the contents), the body stays short and
the appendix is folded in HTML, page and size budgets, and no heading is left alone at the
bottom of a page."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
EXAMPLE_CONFIG = ROOT / "examples" / "reportgen.toml"


def _pages(path: Path) -> list[str]:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    return [pdf[k].get_textpage().get_text_range() for k in range(len(pdf))]


class _Headings(HTMLParser):
    """The text of every h2/h3 of the body, and the order of a few landmarks."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[str] = []
        self.landmarks: list[str] = []
        self._tag: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag in ("h2", "h3"):
            self._tag, self._text = tag, []
        if tag == "nav" and "rg-toc" in (values.get("class") or ""):
            self.landmarks.append("contents")
        if tag == "section" and values.get("id"):
            self.landmarks.append(values["id"])
        if tag == "details":
            self.landmarks.append("details")

    def handle_endtag(self, tag):
        if tag == self._tag:
            self.headings.append(" ".join("".join(self._text).split()))
            self._tag = None

    def handle_data(self, data):
        if self._tag:
            self._text.append(data)


def _headings(html: str) -> _Headings:
    parser = _Headings()
    parser.feed(html)
    return parser


def _appendix_page(pages: list[str]) -> int:
    """The 1-based page where the appendix starts (its heading opens a page)."""
    for k, text in enumerate(pages):
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if "Appendix" in lines[:3] and k > 0:
            return k + 1
    raise AssertionError("no appendix page")


@pytest.fixture(scope="module")
def example(example_report):
    # the example's evaluation report of tests/report/conftest.py (shared with test_run.py)
    out, _, _ = example_report
    return out


def test_page_one_has_the_key_findings_with_the_leader_then_the_contents(example):
    results = json.loads((example / "results.json").read_text())
    ordered = next(r for r in results["rankings"] if r["kind"] == "ordered")
    leader = ordered["systems"][0]["system"]
    first = _pages(example / "report.pdf")[0]
    assert "Key findings" in first and leader in first
    lower = first.lower()  # the contents title is set in capitals by the theme
    assert lower.index("key findings") < lower.index(leader.lower()) < lower.index("contents")
    assert "Noise floor" in first and " pts" in first  # proportions in points
    assert "seed 0" not in first  # no internal documents cited


def test_example_page_budget_body_and_appendix(example):
    pages = _pages(example / "report.pdf")
    body = _appendix_page(pages) - 1
    assert body <= 12, f"{body} pages before the appendix"
    assert len(pages) <= 40, f"{len(pages)} pages in all"


@pytest.fixture(scope="module", params=["example", "release"])
def printed(request) -> Path:
    """The example's evaluation report and a release report (v10.0 of
    tests/report/conftest.py), each with its PDF."""
    if request.param == "example":
        return request.getfixturevalue("example")
    return request.getfixturevalue("example_releases")["v10.0"]


def _body_lines(page: str, html: str) -> list[str]:
    """A page's lines of text without its running header (the title, the release) and
    its "page N of M" footer, which the PDF's text puts last."""
    title = re.search(r"<title>([^<]*)</title>", html)
    header = {" ".join(title.group(1).split())} if title else set()
    lines = [" ".join(ln.split()) for ln in page.splitlines() if ln.strip()]
    return [
        ln
        for ln in lines
        if not re.fullmatch(r"page \d+ of \d+", ln) and not any(ln.startswith(h) for h in header)
    ]


def test_no_heading_is_the_last_thing_on_a_pdf_page(printed):
    # a heading and one line (a one-line note) above the page's end, its table on the
    # next page, is a heading without its content too: the last two lines are checked
    html = (printed / "report.html").read_text(encoding="utf-8")
    headings = set(_headings(html).headings)
    orphans = []
    for k, page in enumerate(_pages(printed / "report.pdf")):
        lines = _body_lines(page, html)
        orphans += [(k + 1, ln) for ln in lines[-2:] if ln in headings]
    assert not orphans, f"headings at the bottom of a page without their content: {orphans}"


def test_html_first_screen_is_the_findings_and_the_detail_is_folded(example):
    html = (example / "report.html").read_text(encoding="utf-8")
    marks = _headings(html).landmarks
    # key findings come first, the contents after them (folded), then the body
    assert marks.index("summary") < marks.index("contents") < marks.index("results")
    nav = html[html.index('<nav class="rg-toc"') :]
    assert nav.index("<details>") < nav.index("</nav>")
    # every appendix section after the appendix heading is folded, with no script
    after = marks[marks.index("appendix") + 1 :]
    sections = [m for m in after if m not in ("details", "contents")]
    assert sections and all(after[after.index(s) + 1] == "details" for s in sections)
    assert "<script" not in html


def test_p_values_in_running_text_read_p_less_than(example):
    """ "p = < 0.001" was printed for the Friedman test: every p-value in the report's
    text reads "p < 0.001" or "p = 0.012"."""
    text = "\n".join(_pages(example / "report.pdf"))
    assert "Friedman χ²" in text
    assert not re.search(r"\bp(?: adj\.)? = [<>]", text)
    assert re.search(r"Friedman χ² = [0-9.]+, p (< 0\.001|= [0-9.]+) over", text)


@pytest.mark.e2e
def test_eval_arena_budgets(arena_report):
    """All five shared eval-arena benchmarks at once (170 systems, tests/report/conftest.py):
    the report stays within its budgets and the ranking across datasets uses the largest
    group."""
    out = arena_report
    assert (out / "report.html").stat().st_size <= 8 * 2**20
    pages = _pages(out / "report.pdf")
    assert len(pages) <= 60
    results = json.loads((out / "results.json").read_text())
    ordered = next(r for r in results["rankings"] if r["kind"] == "ordered")
    assert ordered["selection"]["how"] == "largest"
    assert len(ordered["systems"]) >= 20
    assert ordered["systems"][0]["system"] in pages[0]


def test_no_page_but_the_last_is_less_than_a_quarter_full(printed):
    # the page before the appendix may be thin: the appendix starts on a page of its
    # own (a forced break), and the body's last words fall where they fall
    import numpy as np
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(printed / "report.pdf"))
    texts = _pages(printed / "report.pdf")
    appendix = next(
        (k for k, text in enumerate(texts) if "Appendix" in [x.strip() for x in text.splitlines()]),
        None,
    )
    thin = []
    for k in range(len(pdf) - 1):
        if appendix is not None and k == appendix - 1:
            continue
        image = np.asarray(pdf[k].render(scale=0.4).to_pil().convert("L"))
        h = image.shape[0]
        body = image[int(0.08 * h) : int(0.92 * h)]  # without the running header and footer
        ink = np.flatnonzero((body < 200).any(axis=1))
        used = 0.0 if ink.size == 0 else (ink[-1] - ink[0] + 1) / h
        if used < 0.25:
            thin.append((k + 1, round(used, 2)))
    assert not thin, f"pages less than a quarter full: {thin}"

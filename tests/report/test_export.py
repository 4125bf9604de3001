"""Export of an executed report notebook: the self-contained HTML, the PDF, and the
check for references that need the network or a script.

Oracles: the standard library's ``html.parser`` for the HTML structure, pypdfium2 (an
independent PDF reader, PDFium) for page counts, page sizes, text and pixels of the PDF,
and tinycss2 (the CSS tokenizer WeasyPrint uses) for the escaped CSS strings.
"""

from __future__ import annotations

import base64
import logging
import os
import re
import sys
import zlib
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from struct import pack

import altair as alt
import numpy as np
import pypdfium2 as pdfium
import pytest
import tinycss2
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat import v4

from reportgen.charts.render import load_theme, to_svg
from reportgen.errors import ConfigError, ReportgenError
from reportgen.report import export
from reportgen.report.export import external_references, notebook_to_html
from reportgen.report.pdf import document as pdf_document
from reportgen.report.pdf import html_to_pdf

TITLE = "Evaluation of release candidate 7"
RELEASE = "v7.0.0-rc1"
CODE_MARKER = "SECRET_CODE_SOURCE_MARKER"


# --- helpers ----------------------------------------------------------------------------


class _Tree(HTMLParser):
    """What the tests look at in a document, as the standard library parses it."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.ids: list[str] = []
        self.headings: list[tuple[str, str | None, str | None]] = []  # tag, id, section id
        self.toc_links: list[str] = []
        self.texts: dict[str, list[str]] = {"title": [], "h1": [], "style": []}
        self.decl: list[str] = []
        self._stack: list[tuple[str, dict[str, str | None]]] = []
        self._in_toc = False
        self.feed(text)
        self.close()

    def handle_decl(self, decl: str) -> None:
        self.decl.append(decl)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.tags[tag] += 1
        if values.get("id"):
            self.ids.append(values["id"])
        if tag == "nav" and "rg-toc" in (values.get("class") or ""):
            self._in_toc = True
        if self._in_toc and tag == "a":
            self.toc_links.append(values["href"])
        if tag in ("h2", "h3") and not self._in_toc:
            parent = self._stack[-1] if self._stack else ("", {})
            section = parent[1].get("id") if parent[0] == "section" else None
            self.headings.append((tag, values.get("id"), section))
        if tag not in ("meta", "br", "img", "path", "rect", "line", "wbr", "hr"):
            self._stack.append((tag, values))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(values["id"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "nav":
            self._in_toc = False
        while self._stack:
            if self._stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._stack and self._stack[-1][0] in self.texts:
            self.texts[self._stack[-1][0]].append(data)


def _html_output(html: str) -> dict:
    return v4.new_output("display_data", data={"text/html": html, "text/plain": "<HTML>"})


def _png_bytes(width: int = 4, height: int = 3) -> bytes:
    """A valid RGB PNG written by hand (zlib + CRC), independent of any imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return pack(">I", len(data)) + kind + data + pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def _chart(title: str = "Accuracy per system", *, height: int = 200, width: int = 300) -> alt.Chart:
    data = [
        {"system": s, "accuracy": a}
        for s, a in [("gpt-base", 0.61), ("rag-v2", 0.66), ("prompt-cot", 0.70)]
    ]
    return (
        alt.Chart(alt.Data(values=data))
        .mark_bar()
        .encode(x="accuracy:Q", y="system:N")
        .properties(title=title, width=width, height=height)
    )


def _figure(svg: str, caption: str) -> str:
    return f'<figure class="rg-chart">{svg}<figcaption>{caption}</figcaption></figure>'


def _table(columns: list[str], rows: list[list[object]]) -> str:
    head = "".join(f"<th>{c}</th>" for c in columns)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{v}</td>' if isinstance(v, float) else f"<td>{v}</td>" for v in row
        )
        + "</tr>"
        for row in rows
    )
    return f'<table class="rg-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _report_notebook() -> dict:
    """A small but realistic executed report notebook."""
    summary = (
        '<section class="rg-section" id="summary"><h2>Summary</h2>'
        "<p>rag-v2 is better than gpt-base on accuracy.</p>"
        '<p class="rg-note">Percentile bootstrap intervals over items.</p>'
        '<div class="rg-warning">12 items were excluded.</div></section>'
    )
    verdict = _table(
        ["dataset", "metric", "diff", "verdict"],
        [["mmlu", "accuracy", 0.021, "improved"], ["gsm8k", "f1", -0.03, "regressed"]],
    )
    comparisons = (
        '<section class="rg-section" id="comparisons"><h2>Comparisons</h2>'
        f"<h3>mmlu · accuracy</h3>{verdict}"
        f'<h3 id="means-chart">Means</h3>{_figure(to_svg(_chart()), "Means with CI")}'
        "</section>"
    )
    cells = [
        v4.new_markdown_cell("Report on **three** systems."),
        v4.new_code_cell(
            f"{CODE_MARKER} = show_summary(analysis)",
            outputs=[_html_output(summary)],
            execution_count=1,
        ),
        v4.new_code_cell(
            f"print('{CODE_MARKER}')",
            outputs=[v4.new_output("stream", name="stdout", text=CODE_MARKER)],
            execution_count=2,
        ),
        v4.new_code_cell(
            "show_comparisons(analysis)", outputs=[_html_output(comparisons)], execution_count=3
        ),
        v4.new_markdown_cell("## Methods\n\nExact McNemar tests.\n\n### Multiplicity\n\nHolm."),
    ]
    return v4.new_notebook(cells=cells)


def _pdf_pages_text(path: Path) -> list[str]:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    finally:
        pdf.close()


def _flat(text: str) -> str:
    return " ".join(text.replace("\ufffe", "-").split())


# --- notebook_to_html -----------------------------------------------------------------


def test_notebook_to_html_document_structure():
    html = notebook_to_html(
        _report_notebook(),
        title=TITLE,
        release=RELEASE,
        meta=[("seed", "20240611"), ("reportgen", "0.4.0")],
        created="2024-06-11T09:30:00Z",
    )
    tree = _Tree(html)
    assert tree.decl == ["DOCTYPE html"]
    assert tree.tags["style"] == 2  # the page, and the wide-screen sidebar (media)
    assert tree.tags["script"] == 0 and tree.tags["link"] == 0
    assert "".join(tree.texts["title"]) == TITLE
    assert "".join(tree.texts["h1"]) == TITLE
    assert '<meta charset="utf-8">' in html
    assert f"Release {RELEASE}" in html and "2024-06-11T09:30:00Z" in html
    assert "<dt>seed</dt><dd>20240611</dd>" in html
    # the theme's report.css is the inlined style (after the exporter's layout rules)
    assert load_theme("default").css.strip() in "".join(tree.texts["style"])


def test_notebook_to_html_toc_links_every_heading_with_unique_ids():
    html = notebook_to_html(_report_notebook(), title=TITLE)
    tree = _Tree(html)
    duplicated = [i for i, n in Counter(tree.ids).items() if n > 1]
    assert duplicated == []
    # every h2/h3 is reachable: by its own id or, first in a section, by the section's
    anchors = [own or section for _, own, section in tree.headings]
    assert None not in anchors
    assert tree.toc_links == [f"#{a}" for a in anchors]
    assert anchors == [
        "summary",
        "comparisons",
        "mmlu-accuracy",
        "means-chart",
        "methods",
        "multiplicity",
    ]
    assert set(anchors) <= set(tree.ids)


def test_notebook_to_html_contents_sidebar_on_wide_screens_only():
    html = notebook_to_html(_report_notebook(), title=TITLE)
    side = html[html.index('<nav class="rg-sidebar"') :]
    side = side[: side.index("</nav>")]
    block = html[html.index('<nav class="rg-toc"') :]
    block = block[: block.index("</nav>")]
    # the same links in both: every h2/h3 of the body, in order
    links = [part.split('"')[0] for part in block.split('href="')[1:]]
    assert [part.split('"')[0] for part in side.split('href="')[1:]] == links
    assert links == [
        "#summary",
        "#comparisons",
        "#mmlu-accuracy",
        "#means-chart",
        "#methods",
        "#multiplicity",
    ]
    # the sidebar shows on screens of 1200 px and wider, where the folded block hides;
    # elsewhere (narrow screens, print) it does not show
    css = html[html.index("<style>") : html.index("</style>")]
    assert ".rg-sidebar { display: none; }" in css
    wide = html[html.index('<style media="screen and (min-width: 1200px)">') :]
    wide = wide[: wide.index("</style>")]
    assert ".rg-sidebar { display: block; position: fixed;" in wide
    assert ".rg-body .rg-toc { display: none; }" in wide
    assert html.index('<nav class="rg-sidebar"') < html.index('<main class="rg-body">')
    # the PDF has neither (WeasyPrint reads media types, not widths)
    from reportgen.report.pdf.document import _print_html

    printed = _print_html(html)
    assert 'rg-sidebar"' not in printed and "min-width: 1200px" not in printed
    assert '<nav class="rg-toc"' in printed


def test_print_html_drops_what_only_a_screen_shows():
    from reportgen.report.pdf.document import _print_html

    html = (
        '<body><p>keep 1</p><div class="rg-screen-only"><div><img src="x.png">'
        "<p>drop</p></div></div><table><tr><td>keep 2</td></tr>"
        '<tr class="rg-screen-only"><td>drop</td></tr></table>'
        '<style media="screen and (min-width: 1200px)">.a { b: c }</style>'
        '<nav class="rg-sidebar"><ol><li>drop</li></ol></nav><p>keep &amp; 3</p></body>'
    )
    assert _print_html(html) == (
        "<body><p>keep 1</p><table><tr><td>keep 2</td></tr></table><p>keep &amp; 3</p></body>"
    )
    assert _print_html("<p>nothing to drop</p>\n<p>x</p>") == "<p>nothing to drop</p>\n<p>x</p>"
    # an element left open inside a dropped one: nothing is dropped, never the rest
    unclosed = '<div class="rg-screen-only"><p>open<div>x</div><p>after'
    assert _print_html(unclosed) == unclosed


def test_notebook_to_html_makes_heading_ids_unique():
    fragment = (
        '<div id="results"></div><h2>Results</h2><h2>Results</h2>'
        '<h3 id="dup">A</h3><h3 id="dup">B</h3><h3>Ünïcode & Co</h3><h3>!!!</h3>'
    )
    nb = v4.new_notebook(cells=[v4.new_code_cell("x", outputs=[_html_output(fragment)])])
    tree = _Tree(notebook_to_html(nb, title=TITLE))
    assert [i for i, n in Counter(tree.ids).items() if n > 1] == []
    assert tree.toc_links == ["#results-2", "#results-3", "#dup", "#b", "#unicode-co", "#section"]


def test_notebook_to_html_embeds_svg_png_and_vegalite_charts():
    svg = to_svg(_chart("Chart in HTML"))
    svg_file = (
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE svg PUBLIC '
        '"-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
        + to_svg(_chart("Chart as SVG output"))
    )
    png = base64.b64encode(_png_bytes()).decode()
    cells = [
        v4.new_code_cell("a", outputs=[_html_output(_figure(svg, "caption one"))]),
        v4.new_code_cell(
            "b",
            outputs=[
                v4.new_output(
                    "display_data", data={"image/svg+xml": svg_file, "text/plain": "<Figure>"}
                )
            ],
        ),
        v4.new_code_cell(
            "c",
            outputs=[
                v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"})
            ],
        ),
        v4.new_code_cell(
            "d",
            outputs=[
                v4.new_output(
                    "execute_result",
                    execution_count=4,
                    data={
                        "application/vnd.vegalite.v5+json": _chart("Chart as Vega-Lite").to_dict(),
                        "text/plain": "alt.Chart(...)",
                    },
                )
            ],
        ),
    ]
    html = notebook_to_html(v4.new_notebook(cells=cells), title=TITLE)
    tree = _Tree(html)
    assert tree.tags["svg"] == 3
    assert tree.tags["figure"] == 4
    for title in ("Chart in HTML", "Chart as SVG output", "Chart as Vega-Lite"):
        assert title in html
    assert f'src="data:image/png;base64,{png}"' in html
    assert "<?xml" not in html and "svg11.dtd" not in html
    assert external_references(html) == []


def test_notebook_to_html_prefixes_svg_ids_per_chart():
    clip = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" viewBox="0 0 10 10">'
        '<defs><clipPath id="clip1"><rect width="{w}" height="10"/></clipPath></defs>'
        '<g clip-path="url(#clip1)"><use href="#clip1"/></g></svg>'
    )
    fragment = _figure(clip.format(w=5), "one") + _figure(clip.format(w=9), "two")
    nb = v4.new_notebook(cells=[v4.new_code_cell("x", outputs=[_html_output(fragment)])])
    html = notebook_to_html(nb, title=TITLE)
    tree = _Tree(html)
    assert [i for i, n in Counter(tree.ids).items() if n > 1] == []
    assert 'id="rg-svg1-clip1"' in html and 'id="rg-svg2-clip1"' in html
    assert html.count('clip-path="url(#rg-svg1-clip1)"') == 1
    assert html.count('clip-path="url(#rg-svg2-clip1)"') == 1
    assert 'href="#rg-svg2-clip1"' in html
    assert 'xmlns="http://www.w3.org/2000/svg"' in html


def test_notebook_to_html_wraps_tables_for_scrolling():
    narrow = _table(["a", "b"], [[1, 2]])
    wide = _table([f"c{i}" for i in range(14)], [list(range(14))])
    nested = "<table><tr><td><table><tr><td>inner</td></tr></table></td></tr></table>"
    nb = v4.new_notebook(
        cells=[v4.new_code_cell("x", outputs=[_html_output(narrow + wide + nested)])]
    )
    html = notebook_to_html(nb, title=TITLE).split("<main", 1)[1]
    assert html.count('<div class="rg-table-wrap"><table') == 2
    assert html.count('<div class="rg-table-wrap rg-wide"><table') == 1
    assert html.count("</table></div>") == 3


def test_notebook_to_html_keeps_the_sections_own_table_wrapper():
    narrow = f'<div class="rg-table-wrap">{_table(["a", "b"], [[1, 2]])}</div>'
    wide = (
        f'<div class="rg-table-wrap" data-kind="x">\n'
        f"{_table([f'c{i}' for i in range(14)], [list(range(14))])}</div>"
    )
    nb = v4.new_notebook(cells=[v4.new_code_cell("x", outputs=[_html_output(narrow + wide)])])
    html = notebook_to_html(nb, title=TITLE).split("<main", 1)[1]
    assert html.count("rg-table-wrap") == 2
    assert '<div class="rg-table-wrap"><table' in html
    assert '<div class="rg-table-wrap rg-wide" data-kind="x">\n<table' in html
    assert html.count("</table></div>") == 2


def test_notebook_to_html_leaves_out_code_streams_and_plain_text():
    cells = [
        v4.new_code_cell(
            f"{CODE_MARKER}()",
            outputs=[
                v4.new_output("stream", name="stdout", text="STREAM_TEXT_MARKER"),
                v4.new_output(
                    "execute_result", execution_count=1, data={"text/plain": "PLAIN_TEXT_MARKER"}
                ),
                v4.new_output(
                    "display_data", data={"text/markdown": "*MARKDOWN_OUTPUT*", "text/plain": "md"}
                ),
            ],
            execution_count=1,
        ),
        v4.new_code_cell(
            "y",
            outputs=[_html_output("<p>REMOVED_OUTPUT_MARKER</p>")],
            metadata={"tags": ["remove-output"]},
        ),
        v4.new_markdown_cell("REMOVED_MARKDOWN_MARKER", metadata={"tags": ["remove"]}),
        v4.new_markdown_cell("KEPT_MARKDOWN ~~struck~~"),
    ]
    html = notebook_to_html(v4.new_notebook(cells=cells), title=TITLE)
    for marker in (
        CODE_MARKER,
        "STREAM_TEXT_MARKER",
        "PLAIN_TEXT_MARKER",
        "REMOVED_OUTPUT_MARKER",
        "REMOVED_MARKDOWN_MARKER",
    ):
        assert marker not in html
    assert "<em>MARKDOWN_OUTPUT</em>" in html
    assert "KEPT_MARKDOWN <del>struck</del>" in html


def test_notebook_to_html_inlines_markdown_attachments():
    png = base64.b64encode(_png_bytes()).decode()
    cell = v4.new_markdown_cell(
        "![logo](attachment:logo.png)", attachments={"logo.png": {"image/png": png}}
    )
    html = notebook_to_html(v4.new_notebook(cells=[cell]), title=TITLE)
    assert f'src="data:image/png;base64,{png}"' in html
    assert external_references(html) == []


def test_notebook_to_html_error_output_names_the_cell():
    error = v4.new_output(
        "error", ename="ZeroDivisionError", evalue="division by zero", traceback=["..."]
    )
    cells = [
        v4.new_markdown_cell("intro"),
        v4.new_code_cell("1", outputs=[]),
        v4.new_code_cell(
            "1/0", outputs=[error], execution_count=2, metadata={"tags": ["remove-output"]}
        ),
    ]
    with pytest.raises(
        ReportgenError,
        match=r"notebook failed in cell 2 \(In \[2\]\): ZeroDivisionError: "
        r"division by zero",
    ):
        notebook_to_html(v4.new_notebook(cells=cells), title=TITLE)


def test_notebook_to_html_escapes_title_release_and_meta():
    nasty = '<script>alert("x")</script> & <b>'
    html = notebook_to_html(
        v4.new_notebook(), title=nasty, release=nasty, meta=[(nasty, nasty)], created=nasty
    )
    tree = _Tree(html)
    assert tree.tags["script"] == 0 and tree.tags["b"] == 0
    assert "".join(tree.texts["title"]) == nasty
    assert external_references(html) == []


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1).filter(str.strip)
)
def test_notebook_to_html_title_round_trips(title):
    tree = _Tree(notebook_to_html(v4.new_notebook(), title=title))
    # html.parser unescapes character references in text; \r is normalised by no one
    assert "".join(tree.texts["title"]) == title
    assert tree.tags["title"] == 1 and tree.tags["h1"] == 1


def test_notebook_to_html_keeps_scripts_for_the_reference_check():
    fragment = '<section class="rg-section" id="s"><h2>S</h2><script>alert(1)</script></section>'
    nb = v4.new_notebook(cells=[v4.new_code_cell("x", outputs=[_html_output(fragment)])])
    html = notebook_to_html(nb, title=TITLE)
    assert "<script>alert(1)</script>" in html
    assert external_references(html) == ["<script> element"]


def test_notebook_to_html_input_validation(tmp_path):
    with pytest.raises(ConfigError, match="the report title must be a non-empty string"):
        notebook_to_html(v4.new_notebook(), title="  ")
    theme = tmp_path / "bad-theme"
    theme.mkdir()
    (theme / "theme.json").write_text('{"name": "bad", "config": {}}')
    (theme / "report.css").write_text("body { color: red } </style><script>x()</script>")
    with pytest.raises(ConfigError, match="contains '</style'"):
        notebook_to_html(v4.new_notebook(), title=TITLE, theme=theme)
    bad_svg = v4.new_output("display_data", data={"image/svg+xml": "<p>not svg</p>"})
    with pytest.raises(ReportgenError, match="output of cell 0 has no <svg> element"):
        notebook_to_html(
            v4.new_notebook(cells=[v4.new_code_cell("x", outputs=[bad_svg])]), title=TITLE
        )
    remote = {"data": {"url": "https://example.org/scores.csv"}, "mark": "point"}
    chart = v4.new_output("display_data", data={"application/vnd.vegalite.v5+json": remote})
    with pytest.raises(
        ReportgenError,
        match=r"chart shown by cell 1 cannot be rendered "
        r"offline \(.*External data url not allowed",
    ):
        notebook_to_html(
            v4.new_notebook(
                cells=[v4.new_markdown_cell("x"), v4.new_code_cell("x", outputs=[chart])]
            ),
            title=TITLE,
        )


@pytest.mark.parametrize("theme", ["default", "print"])
def test_theme_css_is_self_contained(theme):
    css = load_theme(theme).css
    assert external_references(f"<style>{css}</style>") == []
    assert "@import" not in css and "url(" not in css
    for selector in (
        ".rg-header",
        ".rg-toc",
        ".rg-note",
        ".rg-warning",
        ".improved",
        ".regressed",
        ".nodiff",
        "tbody tr:nth-child(even)",
        "figcaption",
        "@media print",
    ):
        assert selector in css, selector


# --- external_references ----------------------------------------------------------------


BAD_REFERENCES = [
    (
        "script",
        '<script src="https://cdn.example.org/vega.js"></script>',
        '<script src="https://cdn.example.org/vega.js">',
    ),
    ("inline script", "<script>console.log(1)</script>", "<script> element"),
    (
        "link stylesheet",
        '<link rel="stylesheet" href="https://fonts.example.org/a.css">',
        '<link href="https://fonts.example.org/a.css">',
    ),
    (
        "img http src",
        '<img src="http://example.org/chart.png">',
        '<img src="http://example.org/chart.png">',
    ),
    ("relative img", '<img src="chart.png">', '<img src="chart.png">'),
    (
        "css url in style",
        "<style>body { background: url('https://x.org/bg.png') }</style>",
        "url(https://x.org/bg.png) in a <style> element",
    ),
    (
        "css url in style attribute",
        '<div style="background:url(http://x.org/a.png)"></div>',
        "url(http://x.org/a.png) in the style attribute of <div>",
    ),
    (
        "@import",
        '<style>@import "https://x.org/theme.css";</style>',
        '@import "https://x.org/theme.css" in a <style> element',
    ),
    ("iframe", '<iframe src="https://x.org/embed"></iframe>', '<iframe src="https://x.org/embed">'),
    (
        "srcset",
        (
            '<img src="data:image/png;base64,AAAA" srcset="data:image/png;base64,AAAA '
            '1x, https://x.org/big.png 2x">'
        ),
        '<img srcset="https://x.org/big.png">',
    ),
    (
        "xlink:href to http",
        (
            '<svg xmlns="http://www.w3.org/2000/svg" '
            'xmlns:xlink="http://www.w3.org/1999/xlink">'
            '<image xlink:href="http://x.org/a.png"/></svg>'
        ),
        '<image xlink:href="http://x.org/a.png">',
    ),
    (
        "svg fill url",
        '<svg><rect fill="url(https://x.org/p.svg#g)"/></svg>',
        "url(https://x.org/p.svg#g) in the fill attribute of <rect>",
    ),
    (
        "object",
        '<object data="https://x.org/a.swf"></object>',
        '<object data="https://x.org/a.swf">',
    ),
    ("embed", '<embed src="https://x.org/a.pdf">', '<embed src="https://x.org/a.pdf">'),
    (
        "form action",
        '<form action="https://x.org/submit"></form>',
        '<form action="https://x.org/submit">',
    ),
    ("event handler", '<svg onload="fetch(1)"><rect/></svg>', '<svg onload="fetch(1)">'),
    ("javascript link", '<a href="javascript:alert(1)">x</a>', '<a href="javascript:alert(1)">'),
    (
        "meta refresh",
        '<meta http-equiv="refresh" content="0; url=https://x.org">',
        '<meta http-equiv="refresh" content="0; url=https://x.org">',
    ),
    ("encoded url", '<img src="&#104;ttp://x.org/a.png">', '<img src="http://x.org/a.png">'),
    (
        "xml-stylesheet",
        '<?xml-stylesheet href="https://x.org/s.css"?>',
        '<?xml-stylesheet href="https://x.org/s.css"?>',
    ),
]


@pytest.mark.parametrize(
    ("kind", "html", "expected"), BAD_REFERENCES, ids=[kind for kind, _, _ in BAD_REFERENCES]
)
def test_external_references_catches_each_kind(kind, html, expected):
    document = f"<!DOCTYPE html><html><body><p>before</p>{html}<p>after</p></body></html>"
    assert external_references(document) == [expected]


def test_external_references_ignores_local_and_namespaces():
    document = (
        '<!DOCTYPE html><html><head><style>.a { background: url("data:image/png;base64,AA") }'
        " .b { clip-path: url(#c) } /* url(http://commented.out) */</style></head><body>"
        '<a href="#summary">s</a><a href="">self</a>'
        '<img src="data:image/png;base64,AAAA" srcset="data:image/png;base64,AA,BB 2x">'
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'version="1.1"><defs><clipPath id="c"/></defs><g clip-path="url(#c)" '
        'style="fill: url(#g)"><use xlink:href="#c"/></g></svg>'
        "<p>see http://example.org and url(http://in.text) in prose</p></body></html>"
    )
    assert external_references(document) == []


def test_external_references_empty_for_exported_report():
    html = notebook_to_html(
        _report_notebook(), title=TITLE, release=RELEASE, meta=[("seed", "1")], created="now"
    )
    assert external_references(html) == []


# --- html_to_pdf ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def report_pdf(tmp_path_factory):
    html = notebook_to_html(
        _report_notebook(),
        title=TITLE,
        release=RELEASE,
        meta=[("seed", "20240611")],
        created="2024-06-11",
    )
    path = tmp_path_factory.mktemp("pdf") / "report.pdf"
    pages = html_to_pdf(html, path, title=TITLE, release=RELEASE)
    return path, pages


def test_html_to_pdf_page_count_and_text(report_pdf):
    path, pages = report_pdf
    pdf = pdfium.PdfDocument(str(path))
    assert len(pdf) == pages >= 1
    first = pdf[0]
    pixels = np.asarray(first.render(scale=1).to_pil().convert("L"), dtype=float)
    assert pixels.var() > 0  # not a blank page
    pdf.close()
    texts = [_flat(t) for t in _pdf_pages_text(path)]
    assert TITLE in texts[0]
    assert f"page 1 of {pages}" in texts[0]
    # the TOC shows the page number of each section: leader dots, then the number
    for name in ("Summary", "Comparisons", "Methods", "Multiplicity"):
        assert re.search(rf"{name} ?\.{{4,}} ?\d+", texts[0]), name


def test_html_to_pdf_running_header_and_page_numbers(tmp_path):
    filler = "".join(f"<p>Paragraph {i} of filler text for the page flow.</p>" for i in range(120))
    body = (
        f'<section class="rg-section" id="intro"><h2>Intro</h2>{filler}</section>'
        '<section class="rg-section" id="late"><h2>Late section</h2><p>end</p></section>'
    )
    nb = v4.new_notebook(cells=[v4.new_code_cell("x", outputs=[_html_output(body)])])
    html = notebook_to_html(nb, title=TITLE, release=RELEASE)
    pages = html_to_pdf(html, tmp_path / "r.pdf", title=TITLE, release=RELEASE)
    texts = [_flat(t) for t in _pdf_pages_text(tmp_path / "r.pdf")]
    assert pages == len(texts) >= 3
    for number, text in enumerate(texts[1:], start=2):
        assert TITLE in text and RELEASE in text
        assert f"page {number} of {pages}" in text
    late_page = next(i + 1 for i, t in enumerate(texts) if "Late section end" in t)
    assert late_page > 1
    toc_number = re.search(r"Late section \.+ ?(\d+)", texts[0])
    assert toc_number and int(toc_number[1]) == late_page


def test_html_to_pdf_long_table_repeats_header_row(tmp_path):
    rows = [[f"item-{i:03d}", float(i) / 7, "ROWTEXT"] for i in range(200)]
    table = _table(["HeaderItemColumn", "HeaderScoreColumn", "HeaderNoteColumn"], rows)
    nb = v4.new_notebook(
        cells=[
            v4.new_code_cell(
                "x",
                outputs=[
                    _html_output(
                        f'<section class="rg-section" id="items"><h2>Items</h2>{table}</section>'
                    )
                ],
            )
        ]
    )
    pages = html_to_pdf(notebook_to_html(nb, title=TITLE), tmp_path / "t.pdf", title=TITLE)
    texts = _pdf_pages_text(tmp_path / "t.pdf")
    table_pages = [t for t in texts if "ROWTEXT" in t]
    assert pages == len(texts) and len(table_pages) >= 3
    for text in table_pages:
        assert "HeaderItemColumn" in text and "HeaderNoteColumn" in text
    # no row lost or split: every item id appears exactly once over the pages
    joined = "\n".join(texts)
    assert all(joined.count(f"item-{i:03d}") == 1 for i in range(200))


@pytest.mark.parametrize("height", [520, 1600])  # fits a page; taller than a page
def test_html_to_pdf_keeps_a_tall_chart_on_one_page(tmp_path, height):
    filler = "".join(f"<p>FILLER line {i}.</p>" for i in range(28))
    chart = to_svg(_chart("TALLCHARTTITLE", height=height))
    body = f"<p>BEFOREMARKER</p>{filler}{_figure(chart, 'CHARTCAPTIONMARKER')}<p>AFTERMARKER</p>"
    nb = v4.new_notebook(cells=[v4.new_code_cell("x", outputs=[_html_output(body)])])
    html_to_pdf(notebook_to_html(nb, title=TITLE), tmp_path / "c.pdf", title=TITLE)
    texts = _pdf_pages_text(tmp_path / "c.pdf")

    def page_of(marker: str) -> int:
        found = [i for i, t in enumerate(texts) if marker in t]
        assert len(found) == 1, (marker, found)
        return found[0]

    chart_page = page_of("TALLCHARTTITLE")
    # the filler leaves too little room on the first page: the whole figure moved on
    assert page_of("BEFOREMARKER") < chart_page
    assert page_of("CHARTCAPTIONMARKER") == chart_page
    assert "gpt-base" in texts[chart_page] and "accuracy" in texts[chart_page]


def test_html_to_pdf_scales_wide_chart_to_text_width(tmp_path):
    chart = to_svg(_chart("WIDECHART", width=1600, height=120))
    nb = v4.new_notebook(
        cells=[v4.new_code_cell("x", outputs=[_html_output(_figure(chart, "wide"))])]
    )
    html_to_pdf(notebook_to_html(nb, title=TITLE), tmp_path / "w.pdf", title=TITLE)
    pdf = pdfium.PdfDocument(str(tmp_path / "w.pdf"))
    page = pdf[0]
    width = page.get_size()[0]
    # The chart's title is at its top-left corner and the last x-axis label near its right
    # edge: every character must lie within the text width (inside the page margins).
    text = page.get_textpage()
    content = text.get_text_range()
    boxes = [text.get_charbox(i) for i in range(text.count_chars())]
    boxes = [box for box in boxes if box[2] > box[0]]  # PDFium's generated spaces are empty
    pdf.close()
    margin = 15 * 72 / 25.4  # the print stylesheet's left and right margins, in points
    assert "WIDECHART" in content and "prompt-cot" in _flat(content)
    assert max(box[2] for box in boxes) <= width - margin + 1
    assert min(box[0] for box in boxes) >= margin - 1


def test_html_to_pdf_wide_table_gets_a_landscape_page(tmp_path):
    wide = _table([f"column_{i}" for i in range(16)], [[0.5] * 16 for _ in range(5)])
    nb = v4.new_notebook(
        cells=[
            v4.new_markdown_cell("Portrait text."),
            v4.new_code_cell("x", outputs=[_html_output(wide)]),
        ]
    )
    html_to_pdf(notebook_to_html(nb, title=TITLE), tmp_path / "l.pdf", title=TITLE)
    pdf = pdfium.PdfDocument(str(tmp_path / "l.pdf"))
    sizes = [pdf[i].get_size() for i in range(len(pdf))]
    pdf.close()
    assert sizes[0][0] < sizes[0][1]  # A4 portrait first
    assert any(w > h for w, h in sizes)  # the table's page is landscape


@pytest.mark.parametrize("theme", ["default", "print"])
def test_html_to_pdf_css_is_understood_by_weasyprint(theme, tmp_path, caplog):
    html = notebook_to_html(_report_notebook(), title=TITLE, theme=theme, meta=[("a", "b")])
    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        html_to_pdf(html, tmp_path / "x.pdf", title=TITLE, release=RELEASE)
    ignored = [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("weasyprint") and "HarfBuzz" not in r.getMessage()
    ]
    assert ignored == []


def test_html_to_pdf_input_validation(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown page size 'A9'(.|\n)*hint: use A4"):
        html_to_pdf("<p>x</p>", tmp_path / "x.pdf", title=TITLE, page_size="A9")
    with pytest.raises(ConfigError, match="unknown page size"):
        html_to_pdf("<p>x</p>", tmp_path / "x.pdf", title=TITLE, page_size="A4; } body {")
    with pytest.raises(ConfigError, match="the report title must be a non-empty string"):
        html_to_pdf("<p>x</p>", tmp_path / "x.pdf", title="")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("page_size", "portrait", "landscape"),
    [
        ("letter", (612, 792), (792, 612)),
        ("A5 landscape", (595, 420), (595, 420)),
        ("100mm 150mm", (283, 425), (425, 283)),
    ],
)
def test_html_to_pdf_page_sizes(tmp_path, page_size, portrait, landscape):
    # wide enough at its widest that no portrait page holds it: it keeps its landscape page
    wide = _table([f"column {i}" for i in range(12)], [[123456.789] * 12])
    nb = v4.new_notebook(
        cells=[v4.new_markdown_cell("text"), v4.new_code_cell("x", outputs=[_html_output(wide)])]
    )
    html_to_pdf(
        notebook_to_html(nb, title=TITLE), tmp_path / "s.pdf", title=TITLE, page_size=page_size
    )
    pdf = pdfium.PdfDocument(str(tmp_path / "s.pdf"))
    sizes = [tuple(round(v) for v in pdf[i].get_size()) for i in range(len(pdf))]
    pdf.close()
    # PDF points: letter is 8.5 x 11 in; A5 is 148 x 210 mm; 1 mm = 72 / 25.4 pt
    assert all(abs(a - b) <= 1 for a, b in zip(sizes[0], portrait, strict=True))
    assert all(abs(a - b) <= 1 for a, b in zip(sizes[-1], landscape, strict=True))


def test_html_to_pdf_writes_atomically(tmp_path, monkeypatch):
    import weasyprint

    target = tmp_path / "report.pdf"
    target.write_bytes(b"old pdf")

    def broken(self, *args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(weasyprint.document.Document, "write_pdf", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        html_to_pdf("<p>x</p>", target, title=TITLE)
    assert target.read_bytes() == b"old pdf"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.pdf"]


def test_html_to_pdf_without_weasyprint_names_the_system_packages(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "weasyprint", None)  # import weasyprint -> ImportError
    with pytest.raises(
        ReportgenError,
        match=r"libpango-1\.0-0 libpangoft2-1\.0-0 libharfbuzz0b "
        r"fonts-dejavu-core(.|\n)*--format html",
    ):
        html_to_pdf("<p>x</p>", tmp_path / "x.pdf", title=TITLE)
    assert not (tmp_path / "x.pdf").exists()


def test_html_to_pdf_never_fetches_from_the_network(tmp_path, monkeypatch):
    import urllib.request

    opened = []

    def record(self, request, *args, **kwargs):
        opened.append(getattr(request, "full_url", request))
        raise OSError("no network in tests")

    monkeypatch.setattr(urllib.request.OpenerDirector, "open", record)
    html = (
        '<html><head><link rel="stylesheet" href="http://127.0.0.1:9/a.css"></head>'
        '<body><img src="http://127.0.0.1:9/a.png"><p>ok</p></body></html>'
    )
    assert html_to_pdf(html, tmp_path / "n.pdf", title=TITLE) == 1
    assert opened == []


# --- the print stylesheet -------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")))
def test_css_string_round_trips_through_tinycss2(text):
    tokens = [
        t
        for t in tinycss2.parse_component_value_list(pdf_document._css_string(text))
        if t.type != "whitespace"
    ]
    assert len(tokens) == 1 and tokens[0].type == "string"
    # CSS normalises CR LF and lone CR/FF to LF only in the source; escapes keep them
    assert tokens[0].value == text


def _css_strings(tokens) -> list[str]:
    found = []
    for token in tokens:
        if token.type == "string":
            found.append(token.value)
        for child in (
            getattr(token, "content", None),
            getattr(token, "arguments", None),
            getattr(token, "prelude", None),
        ):
            if child:
                found += _css_strings(child)
    return found


def test_print_css_embeds_title_and_release_safely():
    title, release = 'Rel "9" } @page { x', "a\\b\nc;}"
    css = pdf_document._print_css(title=title, release=release, page_size="A4")
    rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    assert [r for r in rules if r.type == "error"] == []
    # exactly the rules written, in order: the strings did not open or close any
    assert [r.lower_at_keyword for r in rules if r.type == "at-rule"] == ["page", "page", "page"]
    strings = _css_strings(tinycss2.parse_component_value_list(css))
    assert strings.count(title) == 1 and strings.count(release) == 1


def test_notebook_file_round_trip(tmp_path):
    """A notebook written and read back by nbformat (lists of lines) exports the same."""
    import nbformat

    nb = _report_notebook()
    path = tmp_path / "report.ipynb"
    nbformat.write(nb, path)
    again = nbformat.read(path, as_version=4)
    assert notebook_to_html(again, title=TITLE, created="t") == notebook_to_html(
        nb, title=TITLE, created="t"
    )
    assert os.path.getsize(path) > 0


def test_long_words_are_cut_in_text_but_not_in_attributes():
    name = "m" * 10_000
    html = f'<p title="{name}">{name} &amp; more</p><img src="data:image/png;base64,{name}">'
    out = export.cut_long_words(html)
    assert f'<p title="{name}">' in out and f"base64,{name}" in out  # attributes untouched
    # the shortened word keeps its full text (up to 2,000 characters) for the hover
    full = "m" * 1999 + "… (10,000 characters)"
    short = "m" * 60 + "…" + "m" * 30
    assert f'<span class="rg-cut" title="{full}">{short}</span> &amp; more</p>' in out
    # an entity at either end of the cut is dropped whole, never split
    assert export.cut_long_words("<td>" + "&amp;" * 100 + "</td>").count(
        "&am"
    ) == export.cut_long_words("<td>" + "&amp;" * 100 + "</td>").count("&amp;")

"""The PDF's measured table widths (reportgen.report.pdf.tables), checked against the
independent reference WeasyPrint itself: its own text layout (Pango) for the widths of
strings, and its automatic table layout (CSS 2.1 / css-tables-3, as WeasyPrint implements
it) for the column widths of real report tables, which must come out the same, with no
text drawn outside its cell."""

from __future__ import annotations

from pathlib import Path

import pytest
from nbformat import v4

from reportgen.report.export import notebook_to_html
from reportgen.report.pdf import document as pdf_document
from reportgen.report.pdf import html_to_pdf
from reportgen.report.pdf.tables import (
    FAMILY,
    FIXED_TABLE_CSS,
    TextMetrics,
    fix_table_widths,
    text_metrics,
)

weasyprint = pytest.importorskip("weasyprint")
from weasyprint.formatting_structure import boxes as wp_boxes  # noqa: E402

# several layers together (data, analysis, sections): tests/conftest.py's tiers
pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
HUMANEVAL = ROOT.parent / "shared" / "data" / "eval-arena" / "humaneval+.jsonl"
EXAMPLE = ROOT / "examples" / "data"
EXAMPLE_CONFIG = ROOT / "examples" / "reportgen.toml"

METRICS = text_metrics()
needs_font = pytest.mark.skipif(METRICS is None, reason=f"{FAMILY} is not installed")


def _walk(box):
    yield box
    for child in getattr(box, "children", None) or []:
        yield from _walk(child)


def _render(html: str, css: str = ""):
    return weasyprint.HTML(string=html, media_type="print").render(
        stylesheets=[weasyprint.CSS(string=css)] if css else None
    )


@needs_font
@pytest.mark.parametrize("bold", [False, True])
@pytest.mark.parametrize(
    "text",
    [
        "0123456789",
        "[−3.83, +0.828]",
        "claude-3-opus-20240229+cot",
        "starcoder2-15b|fim|8k",
        "edit_similarity ↑",
        "p adj. < 0.001 significant",
        "HuggingFaceH4--starchat2-15b-v0.1",
        "Ünïcödé naïve café",
    ],
)
def test_text_width_against_pango(text, bold):
    # WeasyPrint (Pango with HarfBuzz) lays the string out on one line at 100 px
    weight = "bold" if bold else "normal"
    html = (
        f"<p><span style=\"white-space: nowrap; font: {weight} 100px '{FAMILY}'\">{text}</span></p>"
    )
    document = _render(html)
    pango = sum(
        b.width for b in _walk(document.pages[0]._page_box) if isinstance(b, wp_boxes.TextBox)
    )
    ours = METRICS.width(text, bold=bold) * 100
    # ours has no kerning: at most a hair narrower, never more than 2 % wider
    assert pango - 0.5 <= ours <= pango * 1.02 + 0.5, (ours, pango)


def test_text_metrics_counts_missing_and_wide_characters_as_one_em():
    metrics = TextMetrics(regular={"a": 0.5}, bold={"a": 0.6})
    assert metrics.width("aa") == pytest.approx(1.0)
    assert metrics.width("aa", bold=True) == pytest.approx(1.2)
    assert metrics.width("a漢") == pytest.approx(1.5)  # East Asian wide: 1 em
    assert metrics.width("aé") == pytest.approx(1.5)  # not in the font: the fallback, 1 em
    assert metrics.width("a\u0301") == pytest.approx(0.5)  # a combining mark adds nothing


_FAKE = TextMetrics(regular=dict.fromkeys("abc xyz-", 0.5), bold=dict.fromkeys("abc xyz-", 0.6))


def test_fix_table_widths_leaves_other_tables_alone():
    plain = "<table><tr><td>abc</td></tr></table>"
    styled = '<table class="rg-table" style="width: 50%"><tr><td>abc</td></tr></table>'
    nested = '<table class="rg-table"><tr><td><table><tr><td>x</td></tr></table></td></tr></table>'
    for html in (plain, styled, nested):
        assert fix_table_widths(html, _FAKE) == html


def test_fix_table_widths_css_widths():
    html = (
        '<table class="rg-table"><caption>cap</caption><thead><tr><th>a</th><th>a</th>'
        '<th class="num">b</th></tr></thead><tbody><tr><td>abc</td><td>abc xyz</td>'
        '<td class="num">abc xyz</td></tr></tbody></table>'
    )
    out = fix_table_widths(html, _FAKE)
    # the caption stays the table's first child, the columns follow it
    assert out.index("<caption>") < out.index("<colgroup>") < out.index("<thead>")
    assert 'class="rg-table rg-fixed"' in out

    def em(width: float) -> float:  # text width -> column width: margin and padding
        return width * 1.005 + 1.05

    # column 1: "abc" whole (1.5 em; no word is broken inside, issue 42); column 2
    # breaks at its space: "abc" to "abc xyz" (3.5 em); column 3 never breaks (class
    # num): 3.5 em
    low, high = [em(1.5), em(1.5), em(3.5)], [em(1.5), em(3.5), em(3.5)]
    assert f"max({sum(low):.3f}em, min(100%, {sum(high):.3f}em))" in out
    flex = sum(high) - sum(low)
    for lo, hi in zip(low, high):
        share = (hi - lo) / flex
        if hi > lo:
            assert f"calc({lo:.3f}em + {share:.5f} * (100% - {sum(low):.3f}em))" in out


def test_fix_table_widths_spreads_a_spanning_cell_over_its_columns():
    html = (
        '<table class="rg-table"><tr><th colspan="2">abcabcabcabc</th></tr>'
        "<tr><td>a</td><td>b</td></tr></table>"
    )
    out = fix_table_widths(html, _FAKE)
    # the header (12 bold letters that do not break, 7.2 em + padding) is wider than the
    # two columns' narrowest runs: they share what they lack, so the table is never
    # narrower than the header
    header = 7.2 * 1.005 + 1.05
    assert f"width: max({header:.3f}em," in out


def test_fix_table_widths_hyphen_before_a_digit_does_not_break():
    # UAX #14 (LB25): no break between a hyphen and a number
    m = TextMetrics(regular=dict.fromkeys("ab-3", 0.5), bold={})
    out = fix_table_widths(
        '<table class="rg-table"><tr><td>x</td><td>ab-3ab-ab</td></tr></table>', m
    )
    # the narrowest run of the second column is "ab-3ab-" (7 x 0.5 em), not "ab-"
    assert f"calc({3.5 * 1.005 + 1.05:.3f}em" in out


@pytest.fixture(scope="module")
def real_tables() -> str:
    """The print HTML of the central matrix of the example and of the per-benchmark
    tables of eval-arena's HumanEval+ (49 systems with long names)."""
    from reportgen.report import sections as rs

    body = []
    example = rs.prepare(
        [str(EXAMPLE)], config=str(EXAMPLE_CONFIG), analysis_options={"seed": 1, "n_resamples": 199}
    )
    body.append(rs.results_matrix(example))
    arena = rs.prepare([str(HUMANEVAL)], analysis_options={"seed": 1, "n_resamples": 199})
    body.append(rs.per_sample_list(arena))
    body.append(rs.data_section(arena))
    cells = [v4.new_code_cell("x", outputs=[_html(block)]) for block in body if block]
    html = notebook_to_html(v4.new_notebook(cells=cells), title="tables")
    return pdf_document._svgs_as_images(pdf_document._print_html(html))


def _html(block) -> dict:
    return v4.new_output("display_data", data={"text/html": block.html, "text/plain": "<HTML>"})


def _tables(document) -> list:
    return [
        b
        for page in document.pages
        for b in _walk(page._page_box)
        if isinstance(b, wp_boxes.TableBox)
    ]


@needs_font
def test_fixed_widths_against_weasyprint_automatic_layout(real_tables):
    css = pdf_document._print_css(title="t")
    fixed_html = fix_table_widths(real_tables, METRICS)
    assert fixed_html.count("rg-fixed") >= 5
    # the reference: WeasyPrint's automatic layout of the same tables in the same font
    auto_css = css + "table.rg-table { font-family: '" + FAMILY + "'; }"
    auto = _render(real_tables, auto_css)
    fixed = _render(fixed_html, css)
    assert len(fixed.pages) == len(auto.pages)
    auto_tables, fixed_tables = _tables(auto), _tables(fixed)
    assert len(auto_tables) == len(fixed_tables) >= 5
    for a, f in zip(auto_tables, fixed_tables):
        # widths in points: the same within 2 % of the table or 2 pt per column
        for wa, wf in zip(a.column_widths, f.column_widths):
            assert abs(wa - wf) <= max(2.0, 0.02 * sum(a.column_widths)), (
                a.column_widths,
                f.column_widths,
            )


@needs_font
def test_fixed_widths_never_draw_text_outside_its_cell(real_tables):
    document = _render(fix_table_widths(real_tables, METRICS), pdf_document._print_css(title="t"))
    cells = 0
    for table in _tables(document):
        assert "rg-fixed" in table.element.get("class")
        for cell in _walk(table):
            if not isinstance(cell, wp_boxes.TableCellBox):
                continue
            cells += 1
            left = cell.content_box_x()
            right = left + cell.width
            for text in _walk(cell):
                if isinstance(text, wp_boxes.TextBox):
                    assert left - 0.5 <= text.position_x, text.text
                    assert text.position_x + text.width <= right + 0.5, text.text
    assert cells > 500


def test_html_to_pdf_without_the_font_keeps_the_automatic_layout(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf_document, "text_metrics", lambda: None)
    table = '<table class="rg-table"><tr><th>system</th></tr><tr><td>gpt-4o</td></tr></table>'
    nb = v4.new_notebook(
        cells=[
            v4.new_code_cell(
                "x",
                outputs=[
                    v4.new_output("display_data", data={"text/html": table, "text/plain": "<HTML>"})
                ],
            )
        ]
    )
    pages = html_to_pdf(notebook_to_html(nb, title="t"), tmp_path / "a.pdf", title="t")
    assert pages == 1 and (tmp_path / "a.pdf").stat().st_size > 0


def test_print_css_lays_measured_tables_out_in_one_pass():
    css = pdf_document._print_css(title="t")
    assert FIXED_TABLE_CSS in css and "table-layout: fixed" in FIXED_TABLE_CSS

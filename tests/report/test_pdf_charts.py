"""The PDF's charts drawn by vl-convert and placed with pikepdf
(reportgen.report.pdf.charts), checked against the reference they replace: the same
page drawn by WeasyPrint itself (the pixels of the two renderings, the position of the
chart's text), and against WeasyPrint's public anchors for where the charts go."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import altair as alt
import numpy as np
import pypdfium2 as pdfium
import pytest
from nbformat import v4

from reportgen.charts.render import inline_data, to_svg
from reportgen.report.export import notebook_to_html
from reportgen.report.pdf import charts as _pdf_charts
from reportgen.report.pdf import document as pdf_document
from reportgen.report.pdf import html_to_pdf
from reportgen.report.pdf.charts import (
    PLACEHOLDER,
    ChartDrawer,
    chart_boxes,
    drawable,
    take_charts,
)

weasyprint = pytest.importorskip("weasyprint")
pikepdf = pytest.importorskip("pikepdf")


def _chart(title: str, *, width: int = 300, labels: tuple[str, ...] = ("gpt-base", "rag-v2")):
    rows = [{"system": s, "accuracy": 0.5 + 0.1 * k} for k, s in enumerate(labels)]
    return (
        alt.Chart(inline_data(rows))
        .mark_bar()
        .encode(x=alt.X("accuracy:Q"), y=alt.Y("system:N"))
        .properties(title=title, width=width, height=120)
    )


def _document(*svgs: str) -> str:
    body = "".join(
        f'<figure class="rg-chart">{svg}<figcaption>caption {k}</figcaption></figure>'
        f"<p>{'Filler text of the page. ' * 40}</p>"
        for k, svg in enumerate(svgs)
    )
    nb = v4.new_notebook(
        cells=[
            v4.new_code_cell(
                "x",
                outputs=[v4.new_output("display_data", data={"text/html": body, "text/plain": ""})],
            )
        ]
    )
    return notebook_to_html(nb, title="Charts")


def _pixels(path: Path, page: int = 0) -> np.ndarray:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return np.asarray(pdf[page].render(scale=100 / 72).to_pil().convert("L"), dtype=float)
    finally:
        pdf.close()


def _char_boxes(path: Path, text: str, page: int = 0) -> tuple[float, float, float, float]:
    """The box (left, bottom, right, top in points) of the first ``text`` on the page."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        page_text = pdf[page].get_textpage()
        whole = page_text.get_text_range()
        start = whole.index(text)
        boxes = [page_text.get_charbox(i) for i in range(start, start + len(text))]
    finally:
        pdf.close()
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def test_drawable_needs_the_bundled_font_and_its_characters():
    theme_font = 'font-family="Liberation Sans, Arimo, Arial, Helvetica, sans-serif"'
    assert drawable(f"<svg><text {theme_font}>Δ ≈ 3 · p ≤ 0.05</text></svg>")
    assert drawable('<svg><text style="font-family: Liberation Sans; fill: red">a</text></svg>')
    assert not drawable("<svg><rect/></svg>")  # names no font
    assert not drawable(f"<svg><text {theme_font}>&#27169;&#22411;</text></svg>")  # 模型
    assert not drawable('<svg><text font-family="Georgia, serif">a</text></svg>')
    assert drawable(to_svg(_chart("Accuracy")))  # the default theme's charts


def test_take_charts_keeps_the_size_and_leaves_other_svgs():
    drawn, other = to_svg(_chart("Drawn")), to_svg(_chart("Kept", labels=("模型", "b")))
    html, charts = take_charts(f"<p>a</p>{drawn}<p>b</p>{other}")
    assert charts == [drawn]
    assert f'id="{PLACEHOLDER}0"' in html and other in html
    # the placeholder is an empty SVG with the chart's own root element (size, viewBox)
    import base64
    import re

    data = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', html)[1]
    empty = base64.b64decode(data).decode()
    assert empty.endswith("></svg>") and "<text" not in empty
    assert re.search(r'width="(\d+)"', empty)[1] == re.search(r'width="(\d+)"', drawn)[1]


def test_chart_drawer_draws_every_chart_and_cleans_up():
    svgs = [to_svg(_chart(f"Chart {k}")) for k in range(3)]
    drawer = ChartDrawer(svgs)
    folder = drawer._folder
    pdfs = drawer.pdfs()
    drawer.close()
    assert len(pdfs) == 3 and all(p.startswith(b"%PDF") for p in pdfs)
    for pdf in pdfs:  # each is the chart: one page
        with pikepdf.open(io.BytesIO(pdf)) as doc:
            assert len(doc.pages) == 1
    assert not folder.exists()
    drawer.close()  # twice is fine


def test_chart_drawer_failure_is_an_error():
    drawer = ChartDrawer(["<svg this is not svg"])
    with pytest.raises(RuntimeError):
        drawer.pdfs()
    drawer.close()


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """One document with a chart at its size and one scaled to the text width, drawn
    by WeasyPrint (the reference) and by vl-convert + pikepdf."""
    html = _document(to_svg(_chart("Accuracy per system")), to_svg(_chart("Wide", width=1400)))
    folder = tmp_path_factory.mktemp("charts")
    reference, overlay = folder / "weasyprint.pdf", folder / "overlay.pdf"
    available = pdf_document._pikepdf_available
    pdf_document._pikepdf_available = lambda: False
    try:
        html_to_pdf(html, reference, title="Charts")
    finally:
        pdf_document._pikepdf_available = available
    html_to_pdf(html, overlay, title="Charts")
    return reference, overlay


def test_overlay_matches_weasyprint_drawing(both):
    reference, overlay = both
    assert len(pdfium.PdfDocument(str(reference))) == len(pdfium.PdfDocument(str(overlay)))
    a, b = _pixels(reference), _pixels(overlay)
    assert a.shape == b.shape
    # the same page up to anti-aliasing: mean difference under 2 grey levels of 255, and
    # under 1 % of the pixels differ by more than a quarter
    difference = np.abs(a - b)
    assert difference.mean() < 2.0 and (difference > 64).mean() < 0.01
    # the chart's text is text, where WeasyPrint drew it (within 1.5 points)
    for text in ("Accuracy per system", "gpt-base"):
        ours, theirs = _char_boxes(overlay, text), _char_boxes(reference, text)
        assert np.allclose(ours, theirs, atol=1.5), (text, ours, theirs)


def test_chart_boxes_against_the_public_anchors():
    html = _document(to_svg(_chart("A")), to_svg(_chart("B", width=1400)))
    printed, charts = take_charts(pdf_document._print_html(html))
    document = pdf_document._render(weasyprint, printed, "t", None, "A4")
    boxes = chart_boxes(document)
    assert sorted(boxes) == [0, 1]
    for key, (index, x, y, width, height) in boxes.items():
        anchor = document.pages[index].anchors[f"{PLACEHOLDER}{key}"]
        assert anchor[:2] == pytest.approx((x, y), abs=1)
        if len(anchor) == 4:
            assert (anchor[2] - anchor[0], anchor[3] - anchor[1]) == pytest.approx(
                (width, height), abs=1
            )
    # the wide chart is scaled to the text width (180 mm), keeping its proportions
    _, _, _, width, height = boxes[1]
    assert width == pytest.approx(180 / 25.4 * 96, abs=2)
    assert width / height == pytest.approx(_intrinsic_ratio(charts[1]), rel=0.01)


def _intrinsic_ratio(svg: str) -> float:
    import re

    w = float(re.search(r'width="([\d.]+)"', svg)[1])
    h = float(re.search(r'height="([\d.]+)"', svg)[1])
    return w / h


def test_html_to_pdf_lays_out_once_with_the_overlay(tmp_path, monkeypatch):
    calls = []
    render = pdf_document._render
    monkeypatch.setattr(pdf_document, "_render", lambda *a: calls.append(1) or render(*a))
    html_to_pdf(_document(to_svg(_chart("Once"))), tmp_path / "once.pdf", title="t")
    assert len(calls) == 1


def test_html_to_pdf_falls_back_to_weasyprint_when_drawing_fails(tmp_path, monkeypatch):
    def broken(self):
        raise RuntimeError("vl-convert failed")

    calls = []
    render = pdf_document._render
    monkeypatch.setattr(pdf_document, "_render", lambda *a: calls.append(1) or render(*a))
    monkeypatch.setattr(_pdf_charts.ChartDrawer, "pdfs", broken)
    html_to_pdf(_document(to_svg(_chart("Fallback title"))), tmp_path / "f.pdf", title="t")
    assert len(calls) == 2  # laid out again, with the charts as SVG images
    text = pdfium.PdfDocument(str(tmp_path / "f.pdf"))[0].get_textpage().get_text_range()
    assert "Fallback title" in text


def test_html_to_pdf_without_a_drawing_process_lets_weasyprint_draw(tmp_path, monkeypatch):
    def cannot_start(*args, **kwargs):
        raise OSError("no python")

    calls = []
    render = pdf_document._render
    monkeypatch.setattr(pdf_document, "_render", lambda *a: calls.append(1) or render(*a))
    monkeypatch.setattr(_pdf_charts.subprocess, "Popen", cannot_start)
    before = set(Path(tempfile.gettempdir()).glob("reportgen-charts-*"))
    html_to_pdf(_document(to_svg(_chart("No drawer"))), tmp_path / "n.pdf", title="t")
    assert len(calls) == 1  # laid out once, the chart as an SVG image
    text = pdfium.PdfDocument(str(tmp_path / "n.pdf"))[0].get_textpage().get_text_range()
    assert "No drawer" in text
    after = set(Path(tempfile.gettempdir()).glob("reportgen-charts-*"))
    assert after <= before  # its folder removed

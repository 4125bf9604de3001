"""The report sections: omitted when empty, escaped, and formatting that rounds only for
display."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reportgen import format as fmt
from reportgen.report import sections as rs
from reportgen.report.folder.manifest import validate_results
from reportgen.report.render.html import p_cell, pct_cell, theme_uses_bundled_font

# several layers together (data, analysis, sections): tests/conftest.py's tiers
pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    # one dataset, one 0/1 metric, three paired systems; one name carries markup
    folder = tmp_path_factory.mktemp("small")
    rng = np.random.default_rng(0)
    rows = ["system,dataset,metric,item,score"]
    for system, p in (("alpha", 0.8), ("beta", 0.5), ("<b>gamma</b>", 0.45)):
        for item in range(120):
            rows.append(f'"{system}",qa,acc,q{item},{int(rng.random() < p)}')
    path = folder / "scores.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return rs.prepare(
        [str(path)],
        analysis_options={"seed": 4, "n_resamples": 499},
        output_dir=str(folder / "out"),
        title="Small",
    )


def test_sections_without_content_are_omitted(small_report):
    assert rs.across_metrics(small_report) is None  # one metric
    assert rs.across_datasets(small_report) is None  # one list
    assert rs.repeated_runs(small_report) is None  # no runs
    assert rs.groups_and_hyperparameters(small_report) is None
    assert rs.release_summary(small_report) is None  # not a release report


def test_sections_escape_names_and_show_claims(small_report):
    block = rs.summary(small_report)
    assert block is not None
    assert "<b>gamma</b>" not in block.html and "&lt;b&gt;gamma&lt;/b&gt;" in block.html
    # the leader (alpha, about 0.8) against the runner-up, in percent and points
    assert "<strong>alpha</strong> leads with" in block.html
    assert "significantly ahead of <strong>beta</strong>" in block.html
    assert " pts " in block.html and "p adj." in block.html
    per_list = rs.per_sample_list(small_report)
    assert per_list.html.count("<h3") == 1
    # connected graph and PWPP (each with its table for a phone, render/phone.py)
    assert per_list.html.count('class="rg-chart rg-wide-only"') == 2
    assert per_list.html.count("rg-narrow-only rg-chart-table") == 2
    assert "<details" in per_list.html  # appendix detail is folded in HTML
    bundle = per_list._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    assert "<svg" not in bundle["text/plain"]


def test_results_matrix_orders_by_quality_and_marks_the_best(small_report):
    block = rs.results_matrix(small_report)
    assert block is not None
    rows = block.html.split("<tbody>")[1].split("</tr>")
    assert "alpha" in rows[0] and "<strong>" in rows[0]  # the best value of its column
    assert "&lt;b&gt;gamma&lt;/b&gt;" in block.html and "<b>gamma</b>" not in block.html
    unit = small_report.analysis.unit("qa", "acc")
    k = unit.systems.index("alpha")
    # the mean of alpha in percent with one decimal, from the typed result
    assert f"{100 * unit.means[k]:.1f}" in rows[0]
    assert 'class="rg-chart' in block.html  # the overview chart


def test_write_outputs_results_valid_and_tables(small_report):
    rs.write_outputs(small_report)
    out = small_report.output_dir
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    validate_results(results)
    assert results["report"]["title"] == "Small"
    lines = (out / "tables" / "comparisons.csv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 3  # header and the three pairs


@pytest.mark.parametrize(
    "value,expected",
    [
        (0.123456, "0.1235"),
        (12.3456, "12.35"),
        (-0.5, "−0.5000"),
        (0, "0"),
        (None, "–"),
        (float("nan"), "–"),
        (123456.0, "1.235e+05"),
        (0.00001234, "1.234e−05"),
    ],
)
def test_num_formatting_against_hand_rounding(value, expected):
    assert fmt.number(value) == expected


@pytest.mark.parametrize(
    "value,expected", [(140.0, "140"), (12000, "12,000"), (None, "–"), (2.5, "2.500")]
)
def test_count_formatting(value, expected):
    assert fmt.count(value) == expected


def test_dense_charts_are_embedded_as_png_of_the_svg_size():
    import base64
    import re

    import altair as alt
    import pandas as pd

    from reportgen.charts.render import to_svg
    from reportgen.report.render.html import DENSE_SVG_BYTES, figure

    rng = np.random.default_rng(1)
    dense = (
        alt.Chart(pd.DataFrame({"x": rng.random(4000), "y": rng.random(4000)}))
        .mark_point()
        .encode(x="x", y="y")
    )
    svg = to_svg(dense)
    assert len(svg) > DENSE_SVG_BYTES
    html = figure(dense, "dense")
    assert "<svg" not in html and 'src="data:image/png;base64,' in html
    width = re.search(r'<svg[^>]*?\swidth="([\d.]+)"', svg).group(1)
    assert f'width="{float(width):.0f}"' in html
    png = base64.b64decode(re.search(r"base64,([^\"]+)", html).group(1))
    assert png.startswith(b"\x89PNG")
    small = alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_point().encode(x="x", y="y")
    assert "<svg" in figure(small, "small")


def test_tables_leave_rows_out_of_the_pdf_only_past_their_print_budget():
    from reportgen.report.render.html import Col, print_only, table

    rows = [{"system": f"s{k}"} for k in range(7)]
    html = table(rows, [Col("system", "system")], print_rows=5)
    assert html.count('<tr class="rg-screen-only">') == 2  # s5, s6: HTML only
    assert html.index("s4") < html.index('<tr class="rg-screen-only">')
    assert "rg-screen-only" not in table(rows, [Col("system", "system")])
    assert print_only("x") == '<div class="rg-print-only">x</div>' and print_only("") == ""


def test_matrix_lists_every_system_in_html_and_the_first_ones_in_print():
    from reportgen.report.render.findings import MatrixCell, MatrixColumn
    from reportgen.report.sections._base import MATRIX_PRINT_ROWS
    from reportgen.report.sections.overview import _matrix_table

    names = [f"system {k}" for k in range(MATRIX_PRINT_ROWS + 5)]
    column = MatrixColumn("bench", "acc", True, "higher")
    cells = {n: {0: MatrixCell(0.5, 0.4, 0.6, "", False)} for n in names}
    html = _matrix_table([(0, column)], cells, names, {}, {})
    assert html.count("<tr") == 1 + len(names)  # header + every system
    assert html.count('<tr class="rg-screen-only">') == 5
    assert html.rindex("system 59<") < html.index('<tr class="rg-screen-only">')


def test_groups_and_hyperparameters_name_their_levels(tmp_path):
    """Within-group comparisons name ``column = level`` and hyperparameter comparisons
    their pooled levels, read from the typed results (the dict keys once drifted and the
    section printed ``None = None``)."""
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "examples" / "data" / "codecompletion.csv"
    report = rs.prepare(
        [str(data)],
        analysis_options={
            "seed": 1,
            "n_resamples": 199,
            "group_by": ("difficulty",),
            "compare_by": ("prompt_format",),
        },
        output_dir=str(tmp_path / "out"),
        title="G",
    )
    block = rs.groups_and_hyperparameters(report)
    assert block is not None
    html = block.html
    assert "None" not in html
    for level in ("easy", "medium"):
        assert f"difficulty = {level}" in html
    assert "Hyperparameters" in html and ": prompt_format</h4>" in html
    analysis = report.analysis
    n_groups = sum(len(u.groups) for u in analysis.units)
    assert html.count("difficulty = ") == n_groups > 0
    # every hyperparameter comparison shows its levels' pooled means
    h = next(h for u in analysis.units for h in u.hyperparameters)
    assert all(lv.name in html for lv in h.levels)


def test_repeated_runs_rows_agree_with_the_typed_results(tmp_path):
    """The runs table shows each system's mean, pooled-runs interval, share of variance
    from runs and the runs-differ p-value of the typed results, row by row."""
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "examples" / "data" / "unittests_runs.csv"
    report = rs.prepare(
        [str(data)],
        analysis_options={"seed": 2, "n_resamples": 199},
        output_dir=str(tmp_path / "out"),
        title="R",
    )
    block = rs.repeated_runs(report)
    assert block is not None
    unit = next(u for u in report.analysis.units if u.runs is not None)
    runs = unit.runs
    assert f"{runs.n_runs} runs × {runs.n_items} items" in block.html
    rows = block.html.split("<tbody>")[1].split("</tbody>")[0].split("</tr>")[:-1]
    assert len(rows) == len(runs.variance_components.systems)
    share = runs.variance_components.prediction_share()
    for j, system in enumerate(runs.variance_components.systems):
        row = next(r for r in rows if f">{system}<" in r)
        k = runs.pooled_runs.systems.index(system)
        # a 0/1 metric: the mean in percent, its interval in percent with one decimal
        assert unit.proportion
        assert f">{100 * runs.variance_components.mean[j]:.1f}%<" in row
        low, high = runs.pooled_runs.ci_low[k], runs.pooled_runs.ci_high[k]
        assert f"[{100 * low:.1f}, {100 * high:.1f}]" in row
        assert pct_cell(share[j]) in row
        r = runs.runs_differ.systems.index(system)
        assert p_cell(runs.runs_differ.p_value[r]) in row


def test_dense_layered_charts_go_straight_to_a_palette_png():
    """Rows are counted in every layer (the p-value scatter keeps its points in a layer),
    a view that aggregates draws few marks whatever its rows, and the PNG is a palette
    image (a fifth to a tenth of the RGBA size)."""
    import base64
    import io
    import re

    import altair as alt
    import pandas as pd
    from PIL import Image

    from reportgen.report.render.html import DENSE_ROWS, _data_rows, figure

    rng = np.random.default_rng(2)
    points = pd.DataFrame({"x": rng.random(DENSE_ROWS + 1), "y": rng.random(DENSE_ROWS + 1)})
    rule = pd.DataFrame({"y": [0.5]})
    layered = alt.layer(
        alt.Chart(points).mark_point().encode(x="x", y="y"),
        alt.Chart(rule).mark_rule().encode(y="y"),
    )
    from reportgen.charts.render import chart_spec

    assert _data_rows(chart_spec(layered)) == DENSE_ROWS + 2
    histogram = alt.Chart(points).mark_bar().encode(alt.X("x", bin=True), y="count()")
    assert _data_rows(chart_spec(histogram)) == 0
    html = figure(layered, "dense")
    png = base64.b64decode(re.search(r"base64,([^\"]+)", html).group(1))
    with Image.open(io.BytesIO(png)) as image:
        assert image.mode == "P"
    assert "<svg" in figure(histogram, "binned")


def _without_svg_ids(html: str) -> str:
    # vl-convert numbers gradients and clip paths per process (gradient_0, clip3, ...);
    # the export prefixes every figure's ids anyway
    import re

    return re.sub(r"(gradient|clip)_?\d+", r"\1", html)


@pytest.mark.parametrize("bundled_font", [False, True])
def test_figure_pool_renders_the_same_sections_as_this_process(
    small_report, tmp_path, bundled_font
):
    """Reference: every chart-bearing section rendered in the calling process (with the
    system's fonts); with two worker processes (FigurePool) the blocks hold the same
    figures in the same places, also when the workers see only vl-convert's own
    Liberation Sans (the default theme's font: the text measures the same)."""
    import dataclasses

    from reportgen.report.render.html import FigurePool

    assert theme_uses_bundled_font(small_report.theme.config)  # the default theme
    pool = FigurePool(2, bundled_font=bundled_font)
    try:
        pooled = dataclasses.replace(small_report, figures=pool)
        names = ("results_matrix", "per_sample_list", "noise_detail", "items_section")
        for name in names:
            serial = getattr(rs, name)(small_report)
            parallel = getattr(rs, name)(pooled)
            assert (serial is None) == (parallel is None), name
            if serial is None:
                continue
            assert "<!--rg-figure-" not in parallel.html
            assert _without_svg_ids(parallel.html) == _without_svg_ids(serial.html), name
        assert any("<svg" in getattr(rs, n)(pooled).html for n in names[:2])
    finally:
        pool.close()


def _labelled_bars(font: str, label: str = "a fairly long label, measured") -> dict:
    return {
        "data": {"values": [{"a": label, "b": 1}]},
        "mark": "bar",
        "encoding": {
            "y": {"field": "a", "type": "nominal"},
            "x": {"field": "b", "type": "quantitative"},
        },
        "config": {"font": font},
    }


def test_bundled_font_workers_see_no_system_font_and_get_only_what_that_font_draws():
    """The mechanism behind the fast workers, checked against this process (reference:
    vl-convert with the system's fonts). A worker of a ``bundled_font`` pool measures
    DejaVu Sans (a system font) differently from this process, so it does not see the
    system's fonts; yet ``submit`` gives the same figure as this process for a chart in
    DejaVu Sans or with characters Liberation Sans lacks, because it draws those here.
    The pool's font configuration is gone after ``close``."""
    import os

    from reportgen.report.render.html import FigurePool, bundled_font_suffices, render_figure

    dejavu = _labelled_bars("DejaVu Sans")
    cjk = _labelled_bars("Liberation Sans, Arial", "模型 A, a fairly long label")
    plain = _labelled_bars("Liberation Sans, Arial")
    assert not bundled_font_suffices(dejavu) and not bundled_font_suffices(cjk)
    assert bundled_font_suffices(plain)
    pool = FigurePool(1, bundled_font=True)
    folder = pool._folder
    try:
        assert folder is not None and os.listdir(folder) == ["fonts.conf"]
        in_worker = pool._executor.submit(render_figure, dejavu, None).result(timeout=120)
        assert _without_svg_ids(in_worker) != _without_svg_ids(render_figure(dejavu, None))
        for spec in (dejavu, cjk, plain):
            figure = pool.resolve(pool.submit(spec, None))
            assert _without_svg_ids(figure) == _without_svg_ids(render_figure(spec, None))
    finally:
        pool.close()
    assert not os.path.exists(folder)


def test_the_bundled_font_characters_are_in_liberation_sans():
    """Reference: the character map (cmap table, read by fontTools) of the system's
    Liberation Sans, the font the PDF draws chart text with; vl-convert carries a later
    version of the same font. A character outside this set sends its chart to the
    calling process."""
    import shutil
    import subprocess

    from reportgen.report.render.html import BUNDLED_FONT_CHARS

    ttlib = pytest.importorskip("fontTools.ttLib")
    if shutil.which("fc-match") is None:
        pytest.skip("fontconfig's fc-match is not installed")
    path = subprocess.run(
        ["fc-match", "-f", "%{file}", "Liberation Sans:style=Regular"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if "LiberationSans" not in path:
        pytest.skip("Liberation Sans is not installed (tools/system-deps.sh installs it)")
    cmap = ttlib.TTFont(path).getBestCmap()
    missing = sorted(c for c in BUNDLED_FONT_CHARS if ord(c) not in cmap)
    assert missing == []
    assert {"−", "≈", "≤", "Δ", "α", "τ", "×", "…", "é"} <= BUNDLED_FONT_CHARS


def test_figure_pool_raises_a_chart_error_where_the_figure_goes():
    """A spec vl-convert refuses fails the section as it does in the calling process."""
    from reportgen.report.render.html import FigurePool, render_figure

    bad = {"mark": "no-such-mark", "data": {"values": [{"x": 1}]}}
    with pytest.raises(ValueError) as in_process:
        render_figure(bad, None)
    pool = FigurePool(1)
    try:
        token = pool.submit(bad, None)
        with pytest.raises(type(in_process.value)):
            pool.resolve(f"<p>{token}</p>")
    finally:
        pool.close()


_CHILDREN_AFTER_CLOSE = """
import psutil
from reportgen.report.render.html import FigurePool

pool = FigurePool(2)
token = pool.submit({"mark": "point", "data": {"values": [{"x": 1}]}}, None)
assert "<svg" in pool.resolve(token)
during = len(psutil.Process().children(recursive=True))
pool.close()
pool.close()  # twice is fine
after = [p.cmdline() for p in psutil.Process().children(recursive=True)]
print(during, after)
"""


def test_closing_the_figure_pool_leaves_no_child_process():
    """Reference: the operating system's process table (psutil), in a fresh interpreter.
    After ``close`` neither a worker nor multiprocessing's resource tracker is left: the
    tracker ignores SIGTERM, and a Jupyter kernel with it as a child waited 2.6 s at
    shutdown on every report."""
    import subprocess
    import sys

    pytest.importorskip("psutil")
    done = subprocess.run(
        [sys.executable, "-c", _CHILDREN_AFTER_CLOSE],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    during, after = done.stdout.split(" ", 1)
    assert int(during) >= 3  # two workers and the tracker
    assert after.strip() == "[]"


def test_write_outputs_closes_the_figure_pool(small_report, tmp_path):
    """The notebooks' last step stops the chart workers; charts drawn afterwards render in
    the calling process."""
    import dataclasses

    from reportgen.report.render.html import FigurePool

    report = dataclasses.replace(small_report, figures=FigurePool(1), output_dir=tmp_path)
    rs.write_outputs(report)
    assert report.figures is None
    assert (tmp_path / "results.json").is_file()
    report.close()  # again: nothing to do
    block = rs.results_matrix(report)
    assert block is None or "<!--rg-figure-" not in block.html


def test_figure_workers_option_is_checked(tmp_path):
    from reportgen.errors import ConfigError

    with pytest.raises(ConfigError, match="figure_workers"):
        rs.prepare([], figure_workers=-1, output_dir=str(tmp_path))


def _views(node, tips=False):
    """Each view of a Vega-Lite spec with a mark, and whether a tooltip reaches it."""
    if isinstance(node, list):
        for x in node:
            yield from _views(x, tips)
        return
    if not isinstance(node, dict):
        return
    encoding = node.get("encoding") or {}
    if "tooltip" in encoding:
        tips = encoding["tooltip"] is not None
    if "mark" in node:
        yield node, tips
    for key in ("layer", "hconcat", "vconcat", "concat", "spec"):
        if key in node:
            yield from _views(node[key], tips)


def test_chart_marks_describe_only_rounded_tooltips(small_report, monkeypatch):
    """Issue 42: hovering showed raw floats ("x: 0.00852074754134"): the description
    Vega gives a mark without a tooltip is its raw encoded values. Every chart of the
    report's sections: a mark without a tooltip carries no ARIA description, and every
    number of a tooltip has a format unless it is a whole number in the chart's data."""
    from reportgen.report.render import html as render_html

    specs = []
    real = render_html.render_figure

    def grab(spec, caption, **kw):
        specs.append(spec)
        return real(spec, caption, **kw)

    monkeypatch.setattr(render_html, "render_figure", grab)
    for section in (rs.results_matrix, rs.per_sample_list, rs.noise_detail, rs.items_section):
        section(small_report)
    assert len(specs) >= 4
    for spec in specs:
        rows = [r for v in (spec.get("datasets") or {}).values() for r in v]
        for view, tipped in _views(spec):
            mark = view["mark"]
            if not tipped:
                assert isinstance(mark, dict) and mark.get("aria") is False, mark
                continue
            tips = (view.get("encoding") or {}).get("tooltip") or []
            for tip in tips if isinstance(tips, list) else [tips]:
                if tip.get("type") != "quantitative" or "format" in tip:
                    continue
                numbers = [r[tip["field"]] for r in rows if tip["field"] in r]
                assert all(float(x).is_integer() for x in numbers if x is not None), tip

"""Themes and offline rendering (vl-convert)."""

from __future__ import annotations

import re

import altair as alt
import pytest

from reportgen.charts.render import chart_spec, load_theme, theme_names, to_png, to_svg
from reportgen.errors import InputError


def _chart():
    data = alt.Data(values=[{"system": "A", "mean": 0.5}, {"system": "B", "mean": 0.7}])
    return alt.Chart(data).mark_bar().encode(x="mean:Q", y="system:N")


def test_bundled_themes():
    assert theme_names() == ["default", "print"]
    for name in theme_names():
        theme = load_theme(name)
        assert theme.config["range"]["category"] and "body" in theme.css


def test_theme_applied_under_the_chart_config():
    spec = chart_spec(_chart(), "print")
    assert spec["config"]["font"] == "DejaVu Serif"
    own = _chart().configure_axis(labelFontSize=20)
    spec = chart_spec(own, "print")
    assert spec["config"]["axis"]["labelFontSize"] == 20  # the chart wins
    assert spec["config"]["axis"]["gridColor"] == "#dddddd"  # the theme fills in


@pytest.mark.parametrize("theme", ["default", "print"])
def test_render_svg_and_png_offline(theme):
    svg = to_svg(_chart(), theme)
    assert svg.startswith("<svg")
    assert 'href="http' not in svg and "url(http" not in svg  # nothing fetched from outside
    png = to_png(_chart(), theme)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_theme_from_a_folder_and_errors(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "theme.json").write_text('{"name": "mine", "config": {"font": "x"}}')
    assert load_theme(tmp_path / "mine").config == {"font": "x"}
    with pytest.raises(InputError, match=r"(?s)unknown theme 'nope'.*default, print"):
        load_theme("nope")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "theme.json").write_text('{"name": "bad"}')
    with pytest.raises(InputError, match='needs a "config" object'):
        load_theme(tmp_path / "bad")
    with pytest.raises(InputError, match="has no theme.json"):
        load_theme(tmp_path)


@pytest.mark.parametrize(
    "css,where,what",
    [
        # a local server received this request before the check (the repro)
        (
            'h1 { color: red }\nbody {\n  background: image-set("http://127.0.0.1:9/x.png" 1x);\n}',
            (3, 15),
            "image-set(...)",
        ),
        (
            "body { background: -webkit-image-set('http://x/a.png' 1x) }",
            (1, 20),
            "-webkit-image-set(...)",
        ),
        ("body { background: URL(http://x/a.png) }", (1, 20), "url(...)"),
        ("body { background: u\\72l(http://x/a.png) }", (1, 20), "url(...)"),  # escaped name
        ("@media print { body { background: url(x.png) } }", (1, 35), "url(...)"),
        ('@import "https://x/a.css";', (1, 1), "@import"),
        ("@font-face { font-family: f; src: url(f.woff) }", (1, 1), "@font-face"),
        ('p { --v: image("x.png") }', (1, 10), "image(...)"),
    ],
)
def test_theme_css_that_loads_a_resource_is_refused_with_line_and_column(
    tmp_path, css, where, what
):
    # oracle: the positions counted by hand in each snippet (1-based line and column)
    folder = tmp_path / "leaky"
    folder.mkdir()
    (folder / "theme.json").write_text('{"name": "leaky", "config": {}}')
    (folder / "report.css").write_text(css)
    with pytest.raises(InputError, match=r"would load a resource: " + re.escape(what)) as exc:
        load_theme(folder)
    assert (exc.value.location.line, exc.value.location.column) == where
    assert exc.value.location.file.endswith("report.css")


def test_theme_css_without_loads_is_accepted(tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "theme.json").write_text('{"name": "plain", "config": {}}')
    # a URL in a comment or a string is not a load
    (folder / "report.css").write_text('/* url(http://x) */ p::after { content: "url(x)" }')
    assert load_theme(folder).css.startswith("/*")


def test_the_theme_is_an_argument_with_no_global_state():
    import reportgen.charts.render as render

    assert chart_spec(_chart())["config"]["font"].startswith("Liberation Sans,")  # the default
    assert chart_spec(_chart(), "print")["config"]["font"] == "DejaVu Serif"
    # a theme given once changes nothing for the next call
    assert chart_spec(_chart())["config"]["font"].startswith("Liberation Sans,")
    with pytest.raises(InputError, match="unknown theme 'nope'"):
        chart_spec(_chart(), "nope")
    assert not hasattr(render, "use_theme") and not hasattr(render, "_ACTIVE")


def test_chart_spec_cuts_long_names_the_same_way_in_data_and_domains():
    import altair as alt

    from reportgen.charts.render import MAX_LABEL, MAX_TITLE, chart_spec

    # two 10,000-character names that share their start and end: still two categories
    a = "model-" + "x" * 5000 + "A" + "x" * 4993 + "-end"
    b = "model-" + "x" * 5000 + "B" + "x" * 4993 + "-end"
    data = alt.Data(
        values=[{"system": a, "v": 1}, {"system": b, "v": 2}, {"system": "short", "v": 3}]
    )
    chart = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y("system:N", sort=[b, a, "short"], scale=alt.Scale(domain=[b, a, "short"])),
            x="v:Q",
        )
        .properties(title=a)
    )
    spec = chart_spec(chart)
    # inline rows are moved to the named datasets (not deep-copied by Altair)
    values = [row["system"] for row in spec["datasets"][spec["data"]["name"]]]
    domain = spec["encoding"]["y"]["scale"]["domain"]
    assert all(len(v) <= MAX_LABEL for v in values) and values[2] == "short"
    assert len(set(values)) == 3  # a digest tells the two cut names apart
    assert domain == spec["encoding"]["y"]["sort"] == [values[1], values[0], "short"]
    assert len(spec["title"]) <= MAX_TITLE  # a title has more room than a name
    assert svg_has_text(to_svg(chart), "short")


def svg_has_text(svg: str, text: str) -> bool:
    return f">{text}<" in svg


def test_inline_rows_move_to_named_datasets_with_the_same_drawing():
    """Reference: Altair's own ``to_dict`` of the chart, drawn by vl-convert. The spec
    with the rows under ``datasets`` draws the same SVG, and the chart is not changed."""
    import altair as alt
    import vl_convert

    from reportgen.charts.render import _detached_to_dict

    rows = [{"x": i, "y": (i * 7) % 11, "s": f"sys{i % 3}"} for i in range(40)]
    points = alt.Chart(alt.Data(values=rows)).mark_point().encode(x="x:Q", y="y:Q", color="s:N")
    rule = alt.Chart(alt.Data(values=[{"t": 5}])).mark_rule().encode(y="t:Q")
    chart = alt.layer(points, rule).properties(title="layers")
    before = chart.to_dict(validate=False)
    detached = _detached_to_dict(chart)
    assert sorted(detached["datasets"]) == ["rg-data-0", "rg-data-1"]
    assert detached["datasets"]["rg-data-0"] == rows
    assert vl_convert.vegalite_to_svg(detached) == vl_convert.vegalite_to_svg(before)
    assert chart.to_dict(validate=False) == before


def test_inline_data_rows_are_not_copied_when_charts_are_layered():
    """Reference: Altair's own ``to_dict`` (with schema validation) of the same chart built
    on a plain list. Rows given through ``inline_data`` stay the same object through
    layering and ``properties`` (Altair deep-copies lists, one call per value), and the
    chart's dict and drawing are those of the plain list."""
    import altair as alt
    import vl_convert

    from reportgen.charts.render import chart_spec, inline_data

    rows = [{"x": i, "y": (i * 7) % 11} for i in range(30)]

    def build(data):
        points = alt.Chart(data).mark_point().encode(x="x:Q", y="y:Q")
        rule = alt.Chart(alt.Data(values=[{"t": 5}])).mark_rule().encode(y="t:Q")
        return alt.layer(points, rule).properties(width=200, title="t")

    ours, plain = build(inline_data(rows)), build(alt.Data(values=list(rows)))
    assert ours.layer[0].data["values"] is not rows  # a tuple of the same rows ...
    kept = ours.layer[0].data["values"]
    assert ours.properties(height=100).layer[0].data["values"] is kept  # ... never copied
    assert plain.properties(height=100).layer[0].data["values"] is not plain.layer[0].data["values"]
    assert ours.to_dict() == plain.to_dict()
    spec = chart_spec(ours)
    assert spec["datasets"][spec["layer"][0]["data"]["name"]] == rows
    assert vl_convert.vegalite_to_svg(spec) == vl_convert.vegalite_to_svg(chart_spec(plain))


def test_chart_builders_pass_their_rows_through_inline_data():
    """Every module that builds charts uses ``inline_data``: a plain ``alt.Data(values=``
    brings back Altair's per-value deep copies."""
    import pathlib

    import reportgen

    root = pathlib.Path(reportgen.__file__).parent
    offenders = [
        str(path.relative_to(root))
        for path in sorted(root.rglob("*.py"))
        if path.name != "render.py" and "alt.Data(values=" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_encodings_are_channel_objects_as_fast_as_shorthands():
    """``encode(y="mean:Q")`` costs Altair a converter that hashes the schema of every
    Vega-Lite class (43,000 ``json.dumps`` for the benchmark-noise charts of 11
    eval-arena benchmarks, 1.1 s); ``encode(y=alt.Y("mean:Q"))`` is kept as is. Both give
    the same spec."""
    from reportgen.charts.render import inline_data

    rows = inline_data([{"x": 1.0, "s": "a"}])
    short = alt.Chart(rows).mark_point().encode(x="x:Q", text="s:N", y=alt.value(3))
    objects = (
        alt.Chart(rows).mark_point().encode(x=alt.X("x:Q"), text=alt.Text("s:N"), y=alt.YValue(3))
    )
    assert short.to_dict() == objects.to_dict()


def test_chart_builders_encode_with_channel_objects():
    import ast
    import pathlib

    import reportgen

    root = pathlib.Path(reportgen.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "encode"):
                continue
            for keyword in node.keywords:
                values = (
                    keyword.value.elts
                    if isinstance(keyword.value, (ast.List, ast.Tuple))
                    else [keyword.value]
                )
                for value in values:
                    text = ast.unparse(value)
                    if isinstance(value, (ast.Constant, ast.JoinedStr)) or text.startswith(
                        "alt.value("
                    ):
                        offenders.append(f"{path.relative_to(root)}:{node.lineno} {text}")
    assert offenders == []

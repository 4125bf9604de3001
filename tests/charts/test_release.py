"""The release forest plot."""

from __future__ import annotations

import pytest

from reportgen.charts.release import VERDICT_COLOURS, forest_plot
from reportgen.charts.render import to_png, to_svg
from reportgen.errors import InputError

ROWS = [
    {
        "dataset": "gsm8k",
        "metric": "acc",
        "diff": 0.031,
        "ci_low": 0.012,
        "ci_high": 0.05,
        "verdict": "improved",
        "mde": 0.02,
    },
    {
        "dataset": "mmlu",
        "metric": "acc",
        "diff": -0.004,
        "ci_low": -0.011,
        "ci_high": 0.003,
        "verdict": "no detectable difference",
        "mde": 0.009,
    },
    {
        "dataset": "python",
        "metric": "edit_distance",
        "diff": 2.5,
        "ci_low": 1.1,
        "ci_high": 3.9,
        "verdict": "regressed",
        "direction": "lower",
    },
]


def test_forest_plot_spec():
    spec = forest_plot(ROWS).to_dict()
    values = spec["data"]["values"]
    assert [(v["dataset"], v["diff"], v["ci_low"], v["ci_high"], v["verdict"]) for v in values] == [
        (r["dataset"], r["diff"], r["ci_low"], r["ci_high"], r["verdict"]) for r in ROWS
    ]
    assert spec["facet"]["row"]["field"] == "metric"
    assert spec["resolve"]["scale"] == {"x": "independent", "y": "independent"}
    layers = spec["spec"]["layer"]
    colour = layers[1]["encoding"]["color"]["scale"]
    assert colour["domain"] == ["improved", "regressed", "no detectable difference"]
    assert colour["range"] == [VERDICT_COLOURS[v] for v in colour["domain"]]
    assert layers[0]["encoding"]["x"]["datum"] == 0  # the no-difference line


def test_forest_plot_renders_and_validates():
    chart = forest_plot(ROWS)
    assert to_svg(chart).startswith("<svg") and to_png(chart)[:4] == b"\x89PNG"
    with pytest.raises(InputError, match="no comparisons to plot"):
        forest_plot([])
    with pytest.raises(InputError, match="lacks ci_low, ci_high"):
        forest_plot([{"dataset": "d", "metric": "m", "diff": 1.0}])


def test_forest_plot_draws_the_margin_on_the_loss_side():
    # by hand: a 2-point margin of a proportion is −2 pts when higher is better; a
    # margin of 0.5 on a lower-is-better metric is +0.5 (a loss is an increase)
    rows = [
        {**ROWS[0], "proportion": True, "margin": 0.02, "verdict": "non-inferior"},
        {**ROWS[2], "margin": 0.5, "verdict": "inconclusive"},
    ]
    spec = forest_plot(rows).to_dict()
    assert [v["margin"] for v in spec["data"]["values"]] == [-2.0, 0.5]
    tick = spec["spec"]["layer"][-1]
    assert tick["mark"]["type"] == "tick" and tick["encoding"]["x"]["field"] == "margin"
    assert "margin" in spec["title"]["subtitle"]
    # without margins there is no tick layer
    assert len(forest_plot(ROWS).to_dict()["spec"]["layer"]) == 3
    assert to_png(forest_plot(rows))[:4] == b"\x89PNG"

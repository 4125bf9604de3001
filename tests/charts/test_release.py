"""The release forest plot."""

from __future__ import annotations

from dataclasses import replace

import pytest

from reportgen.charts.release import VERDICT_COLOURS, forest_plot
from reportgen.charts.render import to_png, to_svg
from reportgen.errors import InputError


@pytest.fixture(scope="module")
def rows(release_verdict):
    return [
        release_verdict("gsm8k", "acc", 0.031, 0.012, 0.05, "improved", mde=0.02),
        release_verdict(
            "mmlu", "acc", -0.004, -0.011, 0.003, "no detectable difference", mde=0.009
        ),
        release_verdict("python", "edit_distance", 2.5, 1.1, 3.9, "regressed", direction="lower"),
    ]


def test_forest_plot_spec(rows):
    # the bar is the interval the verdict is read off (the release's simultaneous one),
    # never the marginal one
    spec = forest_plot(rows).to_dict()
    values = spec["data"]["values"]
    assert [(v["dataset"], v["diff"], v["ci_low"], v["ci_high"], v["verdict"]) for v in values] == [
        (r.dataset, r.diff, r.ci_adjusted_low, r.ci_adjusted_high, r.verdict) for r in rows
    ]
    assert spec["facet"]["row"]["field"] == "metric"
    assert spec["resolve"]["scale"] == {"x": "independent", "y": "independent"}
    layers = spec["spec"]["layer"]
    colour = layers[1]["encoding"]["color"]["scale"]
    assert colour["domain"] == ["improved", "regressed", "no detectable difference"]
    assert colour["range"] == [VERDICT_COLOURS[v] for v in colour["domain"]]
    assert layers[0]["encoding"]["x"]["datum"] == 0  # the no-difference line
    assert "simultaneous interval" in spec["title"]["subtitle"]


def test_forest_plot_renders_and_validates(rows):
    chart = forest_plot(rows)
    assert to_svg(chart).startswith("<svg") and to_png(chart)[:4] == b"\x89PNG"
    with pytest.raises(InputError, match="no comparisons to plot"):
        forest_plot([])


def test_forest_plot_draws_the_margin_and_the_bound_non_inferiority_is_read_off(rows):
    # by hand: a 2-point margin of a proportion is −2 pts when higher is better; a
    # margin of 0.5 on a lower-is-better metric is +0.5 (a loss is an increase); the
    # one-sided bound is drawn where the verdict reads it (−1.3 pts, below the bar's
    # lower end when the bar is the simultaneous interval)
    marked = [
        replace(
            rows[0],
            proportion=True,
            margin=0.02,
            verdict="non-inferior",
            ni_bound=0.013,
            ni_level=0.975,
        ),
        replace(rows[2], margin=0.5, verdict="inconclusive", ni_bound=3.9, ni_level=0.975),
    ]
    spec = forest_plot(marked).to_dict()
    values = spec["data"]["values"]
    assert [v["margin"] for v in values] == [-2.0, 0.5]
    assert [v["ni_bound"] for v in values] == pytest.approx([1.3, 3.9])
    tick, diamond = spec["spec"]["layer"][-2:]
    assert tick["mark"]["type"] == "tick" and tick["encoding"]["x"]["field"] == "margin"
    assert diamond["mark"]["shape"] == "diamond"
    assert diamond["encoding"]["x"]["field"] == "ni_bound"
    assert "margin" in spec["title"]["subtitle"]
    assert "one-sided 97.5% bound non-inferiority is read off" in spec["title"]["subtitle"]
    # without margins there is neither tick nor bound
    assert len(forest_plot(rows).to_dict()["spec"]["layer"]) == 3
    assert to_png(forest_plot(marked))[:4] == b"\x89PNG"

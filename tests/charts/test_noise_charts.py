"""Noise charts: specs (to_dict) carry the result objects' numbers; all render."""

from __future__ import annotations

import math
import re

import altair as alt
import numpy as np
import pytest
import vl_convert as vlc

from reportgen.charts.noise import (
    ci_width_by_runs_chart,
    difference_vs_sum_chart,
    difficulty_histogram_chart,
    power_curve_chart,
    pvalue_vs_difference_chart,
    topsis_scatter,
)
from reportgen.data import load
from reportgen.errors import InputError
from reportgen.stats.leaderboard import item_analysis
from reportgen.stats.noise import noise_profile
from reportgen.stats.power import mde_curve, power_curve
from reportgen.stats.ranking import rank_agreement, topsis
from reportgen.stats.runs import ci_width_by_runs


@pytest.fixture(scope="module")
def mbpp(shared_data):
    table = load(shared_data / "eval-arena" / "mbpp+.jsonl")
    return table.paired("mbpp+", "pass1")


@pytest.fixture(scope="module")
def profile(mbpp):
    return noise_profile(mbpp.scores, systems=mbpp.systems)


@pytest.fixture(scope="module")
def runs_result():
    rng = np.random.default_rng(0)
    scores = (rng.uniform(size=(80, 3, 1)) > rng.uniform(size=(80, 1, 4))).astype(float)
    return ci_width_by_runs(
        scores, n_resamples=199, rng=1, systems=["a rather long system name", "b", "c"]
    )


@pytest.fixture(scope="module")
def topsis_case(mbpp):
    rng = np.random.default_rng(2)
    res = topsis(rng.uniform(size=(len(mbpp.systems), 3)), systems=mbpp.systems)
    return res, rng.uniform(size=len(mbpp.systems))


def layers(spec):
    return spec.get("layer", [spec])


def values(layer, spec):
    data = layer.get("data", spec.get("data"))
    return data["values"]


def render(chart, tmp_path=None, name="chart"):
    svg = vlc.vegalite_to_svg(chart.to_json())
    assert svg.lstrip().startswith("<svg") and "</svg>" in svg
    png = vlc.vegalite_to_png(chart.to_json(), scale=2)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000
    if tmp_path is not None:
        (tmp_path / f"{name}.png").write_bytes(png)
    return png


# ============================================================================ p vs diff


def test_pvalue_chart_data_are_the_pairs(profile):
    chart = pvalue_vs_difference_chart(profile)
    assert isinstance(chart, alt.LayerChart)
    spec = chart.to_dict()
    points = layers(spec)[0]
    rows = values(points, spec)
    assert len(rows) == profile.n_pairs == 1711
    recs = profile.pair_records()
    for row, rec in zip(rows[:50], recs[:50]):
        assert row["system_a"] == rec["system_a"] and row["system_b"] == rec["system_b"]
        assert row["p_value"] == rec["p_value"]
        assert row["abs_diff_pct"] == pytest.approx(100 * rec["abs_diff"])
    enc = points["encoding"]
    assert enc["x"]["field"] == "abs_diff_pct" and enc["x"]["type"] == "quantitative"
    assert enc["y"]["field"] == "p_value" and enc["y"]["scale"]["type"] == "log"
    assert {t["field"] for t in enc["tooltip"]} >= {"system_a", "system_b", "p_value"}
    assert "59 systems" in spec["title"]["subtitle"][0]


def test_pvalue_chart_reference_lines(profile):
    spec = pvalue_vs_difference_chart(profile).to_dict()
    alpha_layer, p5_layer = layers(spec)[1], layers(spec)[2]
    assert [r["alpha"] for r in values(alpha_layer, spec)] == [0.05, 0.1, 0.2]
    assert alpha_layer["encoding"]["y"]["field"] == "alpha"
    p5 = {r["name"]: r["value_pct"] for r in values(p5_layer, spec)}
    assert p5["p5_min"] == pytest.approx(100 * profile.p5_min) == pytest.approx(4.23, abs=5e-3)
    assert p5["p5_max"] == pytest.approx(100 * profile.p5_max) == pytest.approx(5.56, abs=5e-3)
    assert p5_layer["encoding"]["x"]["field"] == "value_pct"


def test_pvalue_chart_log_axis_of_powers_of_ten_against_enumeration(profile):
    """Issue 42: the axis mixed "0.00001" and "1e-45", and "p5_min = 6.20%" was written
    over the points. Reference: the powers of ten from 1 down to the smallest p of the
    pairs and the α lines, enumerated, at most 8 of them; the labels all one kind."""
    import math

    spec = pvalue_vs_difference_chart(profile).to_dict()
    axis = layers(spec)[0]["encoding"]["y"]["axis"]
    smallest = min([r["p_value"] for r in values(layers(spec)[0], spec)] + [0.05])
    deepest = math.ceil(-math.log10(smallest))
    powers = [10.0**-k for k in range(deepest + 1)]
    assert set(axis["values"]) <= set(powers) and axis["values"][0] == 1.0
    assert len(axis["values"]) <= 8 and min(axis["values"]) >= 10.0**-deepest
    steps = {round(math.log10(a / b)) for a, b in zip(axis["values"], axis["values"][1:])}
    assert len(steps) == 1  # evenly spaced
    assert "format(datum.value, '.0e')" in axis["labelExpr"]
    # nothing written over the points: the p5 lines are named in the subtitle
    assert all(layer["mark"]["type"] != "text" for layer in layers(spec))
    assert any(line.startswith("black lines: p5_min = ") for line in spec["title"]["subtitle"])
    svg = vlc.vegalite_to_svg(spec)
    labels = re.findall(r"role-axis-label[^>]*>(.*?)</g>", svg, flags=re.S)
    ticks = re.findall(r">([^<]+)</text>", labels[1] if len(labels) > 1 else "")
    assert ticks and all(t == "1" or re.fullmatch(r"1e−\d+", t) for t in ticks), ticks


def test_pvalue_chart_drops_zero_pvalues():
    x = np.array([[1, 0]] * 20 + [[0, 1]] * 10 + [[1, 1]] * 70, dtype=float)
    prof = noise_profile(x, systems=["a", "b"])
    spec = pvalue_vs_difference_chart(prof).to_dict()
    assert len(values(layers(spec)[0], spec)) == 1
    # no pair reaches p < 0.05: only p5_max is drawn
    assert [r["name"] for r in values(layers(spec)[2], spec)] == ["p5_max"]


# ============================================================================ |A-B| vs A+B


def test_difference_vs_sum_chart(profile):
    spec = difference_vs_sum_chart(profile).to_dict()
    points, curves = layers(spec)
    rows = values(points, spec)
    assert len(rows) == 1711
    rec = profile.pair_records()
    assert [(r["sum_wins"], r["abs_diff_wins"]) for r in rows] == [
        (r["sum_wins"], r["abs_diff_wins"]) for r in rec
    ]
    assert points["encoding"]["x"]["field"] == "sum_wins"
    assert points["encoding"]["y"]["field"] == "abs_diff_wins"
    bounds = values(curves, spec)
    assert {b["alpha"] for b in bounds} == {0.05, 0.1, 0.2}
    top = max(r["sum_wins"] for r in rows)
    assert max(b["sum_wins"] for b in bounds) >= top
    truth = {
        (b["alpha"], b["sum_wins"]): b["min_abs_diff_wins"] for b in profile.boundary_records()
    }
    for b in bounds:
        assert b["min_abs_diff_wins"] == truth[(b["alpha"], b["sum_wins"])]
    assert curves["encoding"]["y"]["field"] == "min_abs_diff_wins"
    assert curves["encoding"]["color"]["field"] == "level"
    # every significant pair lies on or above the α = 0.05 curve
    b05 = {b["sum_wins"]: b["min_abs_diff_wins"] for b in bounds if b["alpha"] == 0.05}
    for r in rows:
        if r["p_value"] < 0.05:
            assert r["abs_diff_wins"] >= b05[r["sum_wins"]]


def test_difference_vs_sum_max_total(profile):
    spec = difference_vs_sum_chart(profile, max_total=profile.n_items).to_dict()
    bounds = values(layers(spec)[1], spec)
    assert len(bounds) == sum(
        b["min_abs_diff_wins"] is not None for b in profile.boundary_records()
    )


# ============================================================================ runs


def test_ci_width_by_runs_chart(runs_result):
    chart = ci_width_by_runs_chart(runs_result)
    spec = chart.to_dict()
    rows = values(spec, spec)
    assert len(rows) == 3 * 4
    by_key = {(r["system"], r["runs"]): r["width"] for r in rows}
    for j, s in enumerate(runs_result.systems):
        for i, k in enumerate(runs_result.runs):
            assert by_key[(s, int(k))] == pytest.approx(runs_result.width[i, j])
    enc = spec["encoding"]
    assert enc["x"]["field"] == "runs" and enc["y"]["field"] == "width"
    assert enc["color"]["field"] == "system"
    assert enc["color"]["legend"]["labelLimit"] >= 300
    assert spec["mark"]["type"] == "line"


def test_ci_width_by_runs_many_systems_no_legend():
    rng = np.random.default_rng(3)
    scores = (rng.uniform(size=(40, 20, 2)) > 0.5).astype(float)
    res = ci_width_by_runs(scores, n_resamples=99, rng=0)
    spec = ci_width_by_runs_chart(res).to_dict()
    assert spec["encoding"]["color"] == {"value": "gray"}
    assert spec["encoding"]["detail"]["field"] == "system"


# ============================================================================ power


def test_power_curve_chart_power_vs_n():
    curve = power_curve([50, 100, 200, 400], 0.1, design="paired-binary", discordance=0.3)
    chart = power_curve_chart(curve)
    spec = chart.to_dict()
    line, rule = layers(spec)
    rows = values(line, spec)
    assert [r["n"] for r in rows] == curve.n.tolist()
    assert [r["power"] for r in rows] == pytest.approx(curve.power.tolist())
    assert line["encoding"]["x"]["field"] == "n"
    assert line["encoding"]["y"]["field"] == "power"
    assert values(rule, spec) == [{"target": 0.8, "label": "power 80%"}]
    assert rule["encoding"]["y"]["field"] == "target"


def test_power_curve_chart_several_effects():
    curve = power_curve(
        [100, 200, 100, 200], [0.1, 0.1, 0.2, 0.2], design="paired-continuous", sd=1.0
    )
    spec = power_curve_chart(curve).to_dict()
    assert layers(spec)[0]["encoding"]["color"]["field"] == "effect"
    curve = power_curve(200, [0.05, 0.1, 0.2], design="paired-continuous", sd=1.0)
    spec = power_curve_chart(curve).to_dict()
    assert layers(spec)[0]["encoding"]["x"]["field"] == "delta"


def test_power_curve_chart_mde():
    curve = mde_curve([100, 400, 1600], design="unpaired-binary", baseline=0.7)
    spec = power_curve_chart(curve).to_dict()
    rows = values(spec, spec)
    assert [r["mde"] for r in rows] == pytest.approx(curve.delta.tolist())
    assert spec["encoding"]["y"]["field"] == "mde"
    assert "80%" in spec["title"]["subtitle"][0]


# ============================================================================ items


def test_difficulty_histogram_chart(mbpp):
    ia = item_analysis(mbpp.scores, systems=mbpp.systems)
    spec = difficulty_histogram_chart(ia).to_dict()
    bars = layers(spec)[0]
    rows = values(bars, spec)
    counts, edges = ia.difficulty_histogram(10)
    assert [r["count"] for r in rows] == counts.tolist()
    assert [r["bin_start"] for r in rows] == pytest.approx((100 * edges[:-1]).tolist())
    assert sum(r["count"] for r in rows) == 378
    assert bars["encoding"]["x"]["bin"] == "binned"
    assert bars["encoding"]["x2"]["field"] == "bin_end"
    sub = spec["title"]["subtitle"][0]
    assert f"no system: {len(ia.unsolved)}" in sub
    assert f"exactly one: {len(ia.solved_by_one)}" in sub


# ============================================================================ TOPSIS


def test_topsis_scatter(topsis_case):
    res, agg = topsis_case
    # the chart shows the analysis' τ; here the oracle's, by rank_agreement
    order = [res.systems[i] for i in np.argsort(-agg, kind="stable")]
    tau = rank_agreement(order, res.order()).tau
    spec = topsis_scatter(res, agg, tau=tau).to_dict()
    rows = values(spec, spec)
    assert [r["system"] for r in rows] == list(res.systems)
    assert [r["topsis_score"] for r in rows] == pytest.approx(res.score.tolist())
    assert [r["aggregate"] for r in rows] == pytest.approx(agg.tolist())
    assert f"Kendall τ = {tau:.3f}" in spec["title"]["text"]
    assert spec["encoding"]["x"]["field"] == "aggregate"
    assert spec["encoding"]["y"]["field"] == "topsis_score"
    # a mapping gives the same chart
    mapped = topsis_scatter(res, dict(zip(res.systems, agg)), tau=tau).to_dict()
    assert values(mapped, mapped) == rows


def test_topsis_scatter_identical_orders_tau_one():
    m = np.array([[0.9, 0.8], [0.5, 0.4], [0.1, 0.2]])
    res = topsis(m, systems=["x", "y", "z"])
    tau = rank_agreement(["x", "y", "z"], res.order()).tau
    spec = topsis_scatter(res, [3.0, 2.0, 1.0], tau=tau).to_dict()
    assert "Kendall τ = 1.000" in spec["title"]["text"]
    with pytest.raises(InputError):
        topsis_scatter(res, [1.0, 2.0], tau=tau)
    with pytest.raises(InputError):
        topsis_scatter(res, {"x": 1.0}, tau=tau)


# ============================================================================ rendering


def test_all_charts_render(profile, mbpp, runs_result, topsis_case, tmp_path):
    res, agg = topsis_case
    charts = {
        "pvalue": pvalue_vs_difference_chart(profile),
        "diff_sum": difference_vs_sum_chart(profile),
        "runs": ci_width_by_runs_chart(runs_result),
        "power": power_curve_chart(
            power_curve([50, 200], 0.1, design="paired-binary", discordance=0.3)
        ),
        "mde": power_curve_chart(mde_curve([100, 400], design="unpaired-binary", baseline=0.7)),
        "hist": difficulty_histogram_chart(item_analysis(mbpp.scores, systems=mbpp.systems)),
        "topsis": topsis_scatter(res, agg, tau=0.5),
    }
    for name, chart in charts.items():
        render(chart, tmp_path, name)
    assert math.isfinite(profile.p5_min)


def test_proportion_charts_draw_points_not_raw_proportions(runs_result):
    # one unit everywhere: differences of proportions in percentage points, as in the
    # tables (the oracle is the result's own raw values times 100)
    spec = ci_width_by_runs_chart(runs_result, proportion=True).to_dict()
    rows = values(spec, spec)
    by_key = {(r["system"], r["runs"]): r["width"] for r in rows}
    for j, s in enumerate(runs_result.systems):
        for i, k in enumerate(runs_result.runs):
            assert by_key[(s, int(k))] == pytest.approx(100 * runs_result.width[i, j])
    assert spec["encoding"]["y"]["title"].endswith("(pts)")
    curve = mde_curve([100, 400, 1600], design="unpaired-binary", baseline=0.7)
    spec = power_curve_chart(curve, proportion=True).to_dict()
    line = layers(spec)[0] if "layer" in spec else spec
    mdes = [r["mde"] for r in values(line, spec)]
    assert mdes == pytest.approx([100 * float(d) for d in curve.delta])
    assert line["encoding"]["y"]["title"] == "minimum detectable effect (pts)"

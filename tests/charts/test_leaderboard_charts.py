"""Rank-interval, Bradley-Terry and critical-difference charts: order, intervals, letters
and CD groups in the spec (``to_dict()``); rendering with vl-convert, including the
59-system MBPP+ leaderboard."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import vl_convert as vlc

from reportgen.charts.leaderboard import (
    bradley_terry_chart,
    critical_difference_chart,
    rank_interval_chart,
)
from reportgen.errors import InputError
from reportgen.stats.aggregation import friedman_nemenyi
from reportgen.stats.leaderboard import bradley_terry
from reportgen.stats.ranking import compact_letter_display, simultaneous_rank_intervals


@functools.cache
def _mbpp(path: str):
    from reportgen.data import load

    table = load(path)
    view = table.paired(table.datasets[0], "pass1")
    X = view.item_means()
    ri = simultaneous_rank_intervals(
        X.mean(axis=0), covariance=np.cov(X, rowvar=False) / X.shape[0], systems=view.systems, rng=0
    )
    bt = bradley_terry(X, systems=view.systems, n_resamples=100, rng=0)
    return ri, bt


def _small_intervals():
    return simultaneous_rank_intervals(
        np.array([1.0, 3.0, 0.9, 2.95]),
        np.array([0.3, 0.3, 0.3, 0.3]),
        systems=["c", "a", "d", "b"],
    )


def _layer(spec, mark):
    return [lay for lay in spec["layer"] if lay["mark"]["type"] == mark]


def _values(spec, layer):
    """Inline rows of a layer (altair hoists data shared by all layers to the top)."""
    return layer.get("data", spec.get("data"))["values"]


def test_rank_intervals_ordered_by_rank_with_intervals():
    ri = _small_intervals()
    spec = rank_interval_chart(ri).to_dict()
    (rule,) = _layer(spec, "rule")
    assert rule["encoding"]["y"]["sort"] == ["a", "b", "c", "d"]
    assert rule["encoding"]["x"]["field"] == "rank_ci_low"
    assert rule["encoding"]["x2"]["field"] == "rank_ci_high"
    rows = {r["system"]: r for r in _values(spec, rule)}
    for i, s in enumerate(ri.systems):
        assert (rows[s]["rank_ci_low"], rows[s]["rank_ci_high"]) == (
            int(ri.ci_low[i]),
            int(ri.ci_high[i]),
        )
    (point,) = _layer(spec, "point")
    assert point["encoding"]["x"]["field"] == "rank"
    assert rule["encoding"]["y"]["axis"]["labelLimit"] >= 300
    assert not _layer(spec, "text")


def test_rank_intervals_show_letters():
    ri = _small_intervals()
    cld = compact_letter_display(
        ["a", "b", "c", "d"], [("a", "c"), ("a", "d"), ("b", "c"), ("b", "d")]
    )
    spec = rank_interval_chart(ri, cld).to_dict()
    (text,) = _layer(spec, "text")
    assert text["encoding"]["text"]["field"] == "letters"
    got = {r["system"]: r["letters"] for r in _values(spec, text)}
    assert got == {"a": "a", "b": "a", "c": "b", "d": "b"}
    with pytest.raises(InputError, match="cover"):
        rank_interval_chart(ri, compact_letter_display(["a", "b"], []))
    with pytest.raises(InputError):
        rank_interval_chart(ri, ["a", "b", "c", "d"])


def test_bradley_terry_ordered_with_cis():
    rng = np.random.default_rng(0)
    p = np.array([0.3, 0.8, 0.55])
    X = (rng.random((300, 3)) < p).astype(float)
    bt = bradley_terry(X, systems=["low", "high", "mid"], n_resamples=200, rng=1)
    spec = bradley_terry_chart(bt).to_dict()
    (rule,) = _layer(spec, "rule")
    (point,) = _layer(spec, "point")
    assert point["encoding"]["y"]["sort"] == ["high", "mid", "low"]
    assert point["encoding"]["x"]["field"] == "rating"
    assert rule["encoding"]["x"]["field"] == "ci_low"
    assert rule["encoding"]["x2"]["field"] == "ci_high"
    rows = {r["system"]: r for r in _values(spec, point)}
    k = bt.systems.index("mid")
    assert rows["mid"]["rating"] == pytest.approx(bt.rating[k])
    assert rows["mid"]["ci_low"] == pytest.approx(bt.ci_low[k])
    assert "Elo" in point["encoding"]["x"]["title"]
    # no resamples: no interval layer
    spec = bradley_terry_chart(bradley_terry(X, n_resamples=0)).to_dict()
    assert not _layer(spec, "rule") and len(_layer(spec, "point")) == 1


def _friedman():
    rng = np.random.default_rng(0)
    S = np.linspace(0.9, 0.5, 6)[:, None] + rng.normal(0, 0.08, (6, 12))
    return friedman_nemenyi(S, systems=[f"sys-{i}" for i in range(6)])


def test_critical_difference_diagram():
    res = _friedman()
    spec = critical_difference_chart(res).to_dict()
    rules = _layer(spec, "rule")
    cd = _values(spec, rules[0])[0]
    assert cd["x2"] - cd["x"] == pytest.approx(res.critical_difference)
    texts = _layer(spec, "text")
    assert _values(spec, texts[0])[0]["label"].startswith("CD = ")
    bars = [lay for lay in rules if lay["mark"].get("strokeWidth") == 5]
    assert len(bars) == 1
    got = _values(spec, bars[0])
    assert [b["members"] for b in got] == [", ".join(g) for g in res.groups]
    ranks = dict(zip(res.systems, res.average_ranks))
    for b, g in zip(got, res.groups):
        assert b["x"] == pytest.approx(min(ranks[s] for s in g))
        assert b["x2"] == pytest.approx(max(ranks[s] for s in g))
        assert b["x2"] - b["x"] < res.critical_difference
    labels = _values(spec, texts[1])
    assert [r["system"] for r in labels] == list(res.order())
    assert [r["side"] for r in labels] == ["left"] * 3 + ["right"] * 3
    (point,) = _layer(spec, "point")
    assert point["encoding"]["x"]["field"] == "average_rank"
    assert rules[0]["encoding"]["x"]["axis"]["orient"] == "top"


def test_critical_difference_diagram_of_many_systems_fits_a_page():
    """37 systems (the 12 eval-arena benchmarks' ranking) drew a 2,160-pixel-wide
    diagram, shrunk to unreadable type in the PDF: the width stops at a page's, and
    the test's details are in the subtitle, not cut out of the title."""
    from reportgen.charts.leaderboard import CD_MAX_WIDTH

    rng = np.random.default_rng(1)
    S = np.linspace(0.9, 0.2, 37)[:, None] + rng.normal(0, 0.05, (37, 4))
    res = friedman_nemenyi(S, systems=[f"system-{i}" for i in range(37)])
    spec = critical_difference_chart(res).to_dict()
    assert spec["width"] == CD_MAX_WIDTH
    assert spec["title"]["text"] == "Critical difference diagram"
    assert spec["title"]["subtitle"].startswith("Friedman p < 0.001; Nemenyi CD = ")
    assert critical_difference_chart(_friedman()).to_dict()["width"] == 300


def test_every_chart_renders_to_svg_and_png():
    charts = [
        rank_interval_chart(_small_intervals()),
        critical_difference_chart(_friedman()),
        bradley_terry_chart(
            bradley_terry(
                (np.random.default_rng(2).random((80, 3)) < [0.3, 0.5, 0.7]).astype(float),
                n_resamples=20,
                rng=0,
            )
        ),
    ]
    for chart in charts:
        spec = chart.to_json()
        assert vlc.vegalite_to_svg(spec).lstrip().startswith("<svg")
        assert vlc.vegalite_to_png(spec, scale=2)[:8] == b"\x89PNG\r\n\x1a\n"


def test_mbpp_59_systems_render(shared_data, tmp_path):
    ri, bt = _mbpp(str(shared_data / "eval-arena" / "mbpp+.jsonl"))
    assert len(ri.systems) == 59
    for name, chart in (("ranks", rank_interval_chart(ri)), ("bt", bradley_terry_chart(bt))):
        spec = chart.to_dict()
        assert spec["height"] >= 59 * 14
        png = vlc.vegalite_to_png(chart.to_json(), scale=2)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        (tmp_path / f"{name}.png").write_bytes(png)

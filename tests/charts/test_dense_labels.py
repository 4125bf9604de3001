"""Dense neighbours stay readable (issue 34 item 5): in the connected graph and the clique
view, systems whose means are close keep their names a line apart at the size the chart
is drawn, measured in the spec (pixels from the scale's domain) and in the SVG vl-convert
draws; the label layout is the least-squares one; titles describe what is drawn."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
import vl_convert as vlc

from reportgen.charts.graph import (
    LABEL_FONT_SIZE,
    MIN_GAP,
    clique_chart,
    connected_graph_chart,
    spread_labels,
)
from reportgen.charts.render import chart_spec
from reportgen.stats.pairwise import compare_paired
from reportgen.stats.ranking import ordered_ranking


@functools.cache
def _closest(path: str, k: int = 15):
    """The ``k`` systems of a real benchmark whose means are closest together (a window of
    ``k`` consecutive systems in the ranking with the smallest spread of means)."""
    from reportgen.data import load

    table = load(path)
    view = table.paired(table.datasets[0], "pass1")
    X = view.item_means()
    order = np.argsort(-X.mean(axis=0), kind="stable")
    means = X.mean(axis=0)[order]
    start = int(np.argmin(means[: len(means) - k + 1] - means[k - 1 :]))
    pick = order[start : start + k]
    res = compare_paired(
        X[:, pick], systems=[view.systems[i] for i in pick], n_resamples=999, rng=0
    )
    return ordered_ranking(X[:, pick].mean(axis=0), res)


BENCHMARKS = ("mbpp+.jsonl", "humaneval+.jsonl", "lcb_codegen.jsonl")


def _pixels(spec: dict, layer_rows: list[dict], height: float) -> list[float]:
    """The labels' heights in pixels from the y scale's domain (top = 0)."""
    vertex = next(
        lay
        for lay in spec["layer"]
        if lay["mark"]["type"] == "point" and lay["encoding"]["y"]["field"] == "mean"
    )
    scale = vertex["encoding"]["y"]["scale"]
    lo, hi = scale["domain"]
    assert scale["nice"] is False  # else the drawn domain is not the one in the spec
    if scale["reverse"]:
        return [(r["label_y"] - lo) / (hi - lo) * height for r in layer_rows]
    return [(hi - r["label_y"]) / (hi - lo) * height for r in layer_rows]


def _text_rows(spec: dict) -> list[dict]:
    return [
        r
        for lay in spec["layer"]
        if lay["mark"]["type"] == "text"
        for r in spec["datasets"][lay["data"]["name"]]
    ]


@pytest.mark.parametrize("benchmark", BENCHMARKS)
@pytest.mark.parametrize("scale", [1.0, 100.0])
def test_graph_names_a_line_apart_in_the_spec(shared_data, benchmark, scale):
    """Fifteen systems of a real benchmark within a few points of each other: every name
    is at least MIN_GAP pixels from the next (a line of LABEL_FONT_SIZE), inside the
    plot, in rank order; drawn in percent (scale 100) as the report does (the spacing
    was computed in proportions there, 100 times too small: names lay on each other)."""
    ranking = _closest(str(shared_data / "eval-arena" / benchmark))
    spec = chart_spec(connected_graph_chart(ranking, scale=scale))
    rows = _text_rows(spec)
    assert len(rows) == len(ranking.systems)
    px = _pixels(spec, rows, spec["height"])
    by_rank = sorted(zip((ranking.systems.index(r["system"]) for r in rows), px))
    heights = [h for _, h in by_rank]
    assert heights == sorted(heights)  # best on top, in rank order
    assert min(np.diff(heights)) >= MIN_GAP - 1e-6
    assert MIN_GAP >= 1.2 * LABEL_FONT_SIZE
    assert min(heights) >= -1e-6 and max(heights) <= spec["height"] + 1e-6
    text_marks = [lay["mark"] for lay in spec["layer"] if lay["mark"]["type"] == "text"]
    assert all(m["fontSize"] == LABEL_FONT_SIZE for m in text_marks)


_TEXT_MARK = re.compile(
    r'<text aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="text mark"'
    r'[^>]*transform="translate\(([-0-9.e]+),([-0-9.e]+)\)"[^>]*font-size="([0-9.]+)px"'
)


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_graph_names_a_line_apart_in_the_drawn_svg(shared_data, benchmark):
    """The same in the SVG vl-convert draws with the report's theme: the text marks'
    baselines are at least one font size apart, so no two names overlap."""
    ranking = _closest(str(shared_data / "eval-arena" / benchmark))
    svg = vlc.vegalite_to_svg(chart_spec(connected_graph_chart(ranking, scale=100.0)))
    marks = _TEXT_MARK.findall(svg)
    assert len(marks) == len(ranking.systems)
    ys = sorted(float(y) for _, _, y, _ in marks)
    size = max(float(s) for *_, s in marks)
    assert min(np.diff(ys)) >= size
    # every name is drawn once, and its leader or its vertex is at its mean
    names = {re.search(r"system: ([^;]*);", label).group(1) for label, *_ in marks}
    assert names == set(ranking.systems)


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_clique_names_a_line_apart_in_each_panel(shared_data, benchmark):
    ranking = _closest(str(shared_data / "eval-arena" / benchmark))
    spec = chart_spec(clique_chart(ranking, scale=100.0))
    inner = spec["spec"]
    lay = next(x for x in inner["layer"] if x["mark"]["type"] == "point")
    lo, hi = lay["encoding"]["y"]["scale"]["domain"]
    height = inner["height"]
    rows = spec["datasets"][spec["data"]["name"]]
    panels: dict[int, list[float]] = {}
    for r in rows:
        panels.setdefault(r["column"], []).append((hi - r["label_y"]) / (hi - lo) * height)
    assert max(len(h) for h in panels.values()) >= 5  # a dense panel
    for heights in panels.values():
        heights.sort()
        assert len(heights) < 2 or min(np.diff(heights)) >= MIN_GAP - 1e-6
        assert min(heights) >= -1e-6 and max(heights) <= height + 1e-6
    # a moved name has a leader from its point, ending before the name starts
    assert any(r["label_y"] != r["mean"] for r in rows)
    rule = next(x for x in inner["layer"] if x["mark"]["type"] == "rule")
    assert {"filter": "datum.label_y != datum.mean"} in rule["transform"]
    text = next(x for x in inner["layer"] if x["mark"]["type"] == "text")
    start = 0.04 * inner["width"] + text["mark"]["dx"]
    assert 0.04 * inner["width"] < rule["encoding"]["x2"]["datum"] * inner["width"] < start


def _qp(targets, gap, height):
    # scipy.optimize.minimize(method="trust-constr"): min Σ (y − t)² subject to the
    # labels in the targets' order at least gap apart (LinearConstraint) within
    # [0, height] (Bounds); a convex QP, solved independently of the isotonic fit
    from scipy.optimize import Bounds, LinearConstraint, minimize

    t = np.asarray(targets, dtype=float)
    n = len(t)
    order = np.argsort(t, kind="stable")
    A = np.zeros((n - 1, n))
    for k, (i, j) in enumerate(zip(order[:-1], order[1:])):
        A[k, i], A[k, j] = -1.0, 1.0
    res = minimize(
        lambda y: np.sum((y - t) ** 2),
        np.linspace(0, height, n)[np.argsort(order)],
        jac=lambda y: 2 * (y - t),
        hess=lambda y: 2 * np.eye(n),
        constraints=[LinearConstraint(A, gap, np.inf)],
        bounds=Bounds(0, height),
        method="trust-constr",
        options={"gtol": 1e-10, "xtol": 1e-12, "maxiter": 5000},
    )
    return res.x, A


def test_spread_labels_against_scipy_trust_constr():
    rng = np.random.default_rng(7)
    for n in (2, 3, 5, 9, 15):
        for _ in range(5):
            height = float(rng.uniform(14 * n, 30 * n))
            targets = list(rng.uniform(-20, height + 20, n))
            # clusters of close means, as the real benchmarks have
            targets[: n // 2] = list(rng.normal(height / 3, 3, n // 2))
            got = np.array(spread_labels(targets, 14.0, height))
            want, A = _qp(targets, 14.0, height)
            assert np.all(A @ got >= 14.0 - 1e-9)
            assert got.min() >= -1e-9 and got.max() <= height + 1e-9
            t = np.asarray(targets)
            assert np.sum((got - t) ** 2) <= np.sum((want - t) ** 2) + 1e-6
            np.testing.assert_allclose(got, want, atol=1e-3)


def test_spread_labels_edge_cases():
    assert spread_labels([], 14.0, 100.0) == []
    assert spread_labels([50.0], 14.0, 100.0) == [50.0]
    # equal targets keep their given order; far apart ones do not move
    assert spread_labels([5.0, 5.0, 5.0], 10.0, 100.0) == [0.0, 10.0, 20.0]
    assert spread_labels([90.0, 10.0], 14.0, 100.0) == [90.0, 10.0]
    # more labels than fit: still a gap apart, from the top
    assert spread_labels([0.0] * 4, 14.0, 20.0) == [0.0, 14.0, 28.0, 42.0]


def test_arcs_spread_over_the_width(shared_data):
    """The arcs of fifteen close systems (nearly every pair not significant) reach out
    as far as their ranks are apart, over the whole width: not a band of arcs at the
    left edge, and thinner when there are many."""
    ranking = _closest(str(shared_data / "eval-arena" / "mbpp+.jsonl"))
    spec = chart_spec(connected_graph_chart(ranking))
    edge = next(lay for lay in spec["layer"] if lay["mark"]["type"] == "line")
    reach: dict[int, float] = {}
    for r in spec["datasets"][edge["data"]["name"]]:
        reach[r["edge"]] = min(reach.get(r["edge"], 0.0), r["x"])
    assert len(reach) > 40
    at_edge = sum(1 for x in reach.values() if x <= -0.95 + 1e-9)
    assert at_edge <= len(reach) // 10
    assert len({round(x, 3) for x in reach.values()}) > len(ranking.systems)
    widest = edge["encoding"]["strokeWidth"]["scale"]["range"][1]
    assert widest < 6.0


def test_graph_titles_describe_and_count_the_arcs(shared_data):
    """The title says what is drawn (not a verdict); the subtitle what an arc is and how
    many of the compared pairs have one."""
    ranking = _closest(str(shared_data / "eval-arena" / "humaneval+.jsonl"))
    n = len(ranking.systems)
    spec = connected_graph_chart(ranking, title="humaneval+ / pass1: systems by mean").to_dict()
    assert spec["title"]["text"] == "humaneval+ / pass1: systems by mean"
    assert spec["title"]["subtitle"].endswith(f": {len(ranking.edges)} of {n * (n - 1) // 2} pairs")
    assert "not significantly different at α = 0.05" in spec["title"]["subtitle"]
    clique = clique_chart(ranking).to_dict()
    assert clique["title"]["text"] == "Groups of systems"


def test_overview_rows_a_label_apart_with_thirty_real_systems(shared_data):
    """The mean-with-interval overview puts each system on a row of its own (nominal
    axis): with eval-arena's first 30 lcb_codegen systems, as the report draws them, the
    drawn names are at least one font size apart."""
    import json

    from reportgen.charts.overview import means_overview_chart

    names = list(
        dict.fromkeys(
            json.loads(line)["model"]
            for line in (shared_data / "eval-arena" / "lcb_codegen.jsonl").read_text().splitlines()
        )
    )[:30]
    rows = [
        {"panel": "lcb_codegen / pass1 (%)", "system": n, "mean": 30.0 + 0.01 * i}
        | {"ci_low": 25.0, "ci_high": 35.0, "best": i == 0}
        for i, n in enumerate(names)
    ]
    svg = vlc.vegalite_to_svg(chart_spec(means_overview_chart(rows, names)))
    labels = re.findall(
        r'<text text-anchor="end" transform="translate\(([-0-9.e]+),([-0-9.e]+)\)"'
        r'[^>]*font-size="([0-9.]+)px"[^>]*>([^<]+)</text>',
        svg,
    )
    ys = sorted(float(y) for _, y, _, text in labels if not re.fullmatch(r"[0-9.]+", text))
    assert len(ys) == 30
    assert min(np.diff(ys)) >= max(float(s) for _, _, s, _ in labels)

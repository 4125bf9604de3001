"""Connected graph and clique charts of an OrderedRanking: the spec (``to_dict()``) holds
exactly the non-significant pairs as edges, the best system's label is red bold, the
vertices sit at their means; every chart renders with vl-convert."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import vl_convert as vlc

from reportgen.charts.graph import clique_chart, connected_graph_chart
from reportgen.errors import InputError
from reportgen.stats.pairwise import compare_paired
from reportgen.stats.ranking import ordered_ranking


def _synthetic(**kw):
    rng = np.random.default_rng(3)
    p = np.array([0.85, 0.83, 0.6, 0.58, 0.3])
    X = (rng.random((200, 5)) < p).astype(float)
    names = ["alpha", "bravo", "charlie-with-a-long-name", "delta", "echo"]
    res = compare_paired(X, systems=names, n_resamples=999, rng=1, **kw)
    return res, ordered_ranking(X.mean(axis=0), res)


@functools.cache
def _humaneval(shared_data_str: str, k: int = 12):
    from reportgen.data import load

    table = load(shared_data_str)
    view = table.paired(table.datasets[0], "pass1")
    X = view.item_means()[:, :k]
    res = compare_paired(X, systems=view.systems[:k], n_resamples=999, rng=0)
    return res, ordered_ranking(X.mean(axis=0), res)


def _layers(chart):
    return chart.to_dict()["layer"]


def _values(layer):
    return layer["data"]["values"]


def _edge_layer(spec):
    return next(lay for lay in spec["layer"] if lay["mark"]["type"] == "line")


def _arcs(spec):
    """Each edge's points in drawing order: {(source, target): [(x, y), ...]}."""
    arcs = {}
    for row in sorted(_values(_edge_layer(spec)), key=lambda r: (r["edge"], r["t"])):
        arcs.setdefault((row["source"], row["target"]), []).append((row["x"], row["y"]))
    return arcs


def _nonsignificant_pairs(res):
    sig = res.significant()
    return {
        frozenset((res.systems[a], res.systems[b]))
        for a, b, s in zip(res.index_a, res.index_b, sig)
        if not s
    }


def _check_graph(res, ranking):
    spec = connected_graph_chart(ranking).to_dict()
    arcs = _arcs(spec)
    drawn = {frozenset(pair) for pair in arcs}
    assert len(drawn) == len(arcs)
    assert drawn == _nonsignificant_pairs(res)
    enc = _edge_layer(spec)["encoding"]
    assert enc["strokeWidth"]["field"] == "width_p"
    assert enc["strokeWidth"]["scale"]["domain"] == [ranking.alpha, 1.0]
    assert enc["detail"]["field"] == "edge" and enc["order"]["field"] == "t"
    # an arc runs from one vertex to the other, vertical = mean
    nodes = {
        r["system"]: r
        for r in _values(
            next(
                lay
                for lay in spec["layer"]
                if lay["mark"]["type"] == "point" and lay["encoding"]["y"]["field"] == "mean"
            )
        )
    }
    for (source, target), points in arcs.items():
        assert points[0] == pytest.approx((nodes[source]["x"], nodes[source]["mean"]))
        assert points[-1] == pytest.approx((nodes[target]["x"], nodes[target]["mean"]))
    for i, s in enumerate(ranking.systems):
        assert nodes[s]["mean"] == pytest.approx(float(ranking.mean[i]))
    return spec


def _best_label_layers(spec):
    return [
        lay
        for lay in spec["layer"]
        if lay["mark"]["type"] == "text" and lay["mark"].get("color") == "red"
    ]


def test_graph_edges_are_the_nonsignificant_pairs_synthetic():
    res, ranking = _synthetic()
    spec = _check_graph(res, ranking)
    # the clear gaps are significant, the close pairs are not
    drawn = {frozenset(pair) for pair in _arcs(spec)}
    assert frozenset(("alpha", "bravo")) in drawn
    assert frozenset(("alpha", "echo")) not in drawn
    assert spec["layer"][0]["mark"]["type"] == "line"


def test_graph_edges_are_the_nonsignificant_pairs_humaneval(shared_data):
    res, ranking = _humaneval(str(shared_data / "eval-arena" / "humaneval+.jsonl"))
    spec = _check_graph(res, ranking)
    assert 0 < len(_arcs(spec)) < len(res.index_a)


def test_best_system_label_is_red_bold_and_alone():
    _, ranking = _synthetic()
    spec = connected_graph_chart(ranking).to_dict()
    best = _best_label_layers(spec)
    assert len(best) == 1
    assert best[0]["mark"]["fontWeight"] == "bold"
    assert [r["system"] for r in _values(best[0])] == ["alpha"] == [ranking.systems[0]]
    others = [
        lay
        for lay in spec["layer"]
        if lay["mark"]["type"] == "text"
        and "color" not in lay["mark"]
        and "stroke" not in lay["mark"]
    ]
    assert len(others) == 1
    assert {r["system"] for r in _values(others[0])} == set(ranking.systems[1:])
    assert "title" in spec


def test_no_arc_crosses_a_name(shared_data):
    """The vertices are on one vertical line with the names to their right; every arc
    point lies on the left of it, so no edge is drawn over a name (with vertices spread
    over columns, edges crossed the names of the example's 12 systems). Names pushed
    away from their vertex get a leader from the vertex."""
    for _, ranking in (
        _synthetic(),
        _humaneval(str(shared_data / "eval-arena" / "humaneval+.jsonl")),
    ):
        spec = connected_graph_chart(ranking).to_dict()
        vertices = next(
            lay
            for lay in spec["layer"]
            if lay["mark"]["type"] == "point" and lay["encoding"]["y"]["field"] == "mean"
        )
        assert {r["x"] for r in _values(vertices)} == {0.0}
        assert all(x <= 0.0 for points in _arcs(spec).values() for x, _ in points)
        texts = [lay for lay in spec["layer"] if lay["mark"]["type"] == "text"]
        assert texts and all(lay["mark"]["align"] == "left" for lay in texts)
        assert all(r["label_x"] > 0 for lay in texts for r in _values(lay))
        moved = {r["system"] for r in _values(vertices) if r["label_y"] != r["mean"]}
        leaders = [lay for lay in spec["layer"] if lay["mark"]["type"] == "rule"]
        assert {r["system"] for lay in leaders for r in _values(lay)} == moved
        assert spec == connected_graph_chart(ranking).to_dict()  # deterministic


def test_y_is_mean_best_on_top_reversed_for_lower():
    _, ranking = _synthetic()
    enc = next(
        lay for lay in _layers(connected_graph_chart(ranking)) if lay["mark"]["type"] == "point"
    )["encoding"]
    assert enc["y"]["field"] == "mean" and enc["y"]["scale"]["reverse"] is False
    low = ordered_ranking(-ranking.mean, _sym(5), systems=ranking.systems, direction="lower")
    enc = next(
        lay for lay in _layers(connected_graph_chart(low)) if lay["mark"]["type"] == "point"
    )["encoding"]
    assert enc["y"]["scale"]["reverse"] is True


def _sym(n, p=0.5):
    P = np.full((n, n), p)
    np.fill_diagonal(P, np.nan)
    return P


def test_directed_graph_has_arrow_heads():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, ranking = _synthetic(order="successive", alternative="greater")
    assert ranking.directed
    spec = connected_graph_chart(ranking).to_dict()
    edges = _values(_edge_layer(spec))
    assert edges and all(e["directed"] for e in edges)
    heads = [
        lay
        for lay in spec["layer"]
        if lay["mark"]["type"] == "point" and "shape" in lay["encoding"]
    ]
    assert len(heads) == 1
    assert [(h["source"], h["target"]) for h in _values(heads[0])] == list(_arcs(spec))
    # undirected: no heads
    _, undirected = _synthetic()
    assert not [
        lay
        for lay in _layers(connected_graph_chart(undirected))
        if "shape" in lay.get("encoding", {})
    ]


def test_no_edges_when_everything_differs():
    P = _sym(3, 0.001)
    ranking = ordered_ranking(np.array([0.9, 0.5, 0.1]), P, systems=["a", "b", "c"])
    spec = connected_graph_chart(ranking).to_dict()
    assert not [lay for lay in spec["layer"] if lay["mark"]["type"] == "line"]
    assert clique_chart(ranking).to_dict()["data"]["values"][0]["group"] == "isolated"


def test_clique_chart_columns_in_descending_mean():
    P = np.array(
        [
            [np.nan, 0.3, 0.01, 0.01],
            [0.3, np.nan, 0.2, 0.01],
            [0.01, 0.2, np.nan, 0.01],
            [0.01, 0.01, 0.01, np.nan],
        ]
    )
    ranking = ordered_ranking(np.array([0.9, 0.8, 0.5, 0.2]), P, systems=["a", "b", "c", "d"])
    assert ranking.cliques == (("a", "b"), ("b", "c")) and ranking.isolated == ("d",)
    spec = clique_chart(ranking).to_dict()
    rows = spec["data"]["values"]
    cols = {}
    for r in rows:
        cols.setdefault(r["column"], []).append(r["system"])
    assert cols == {0: ["a", "b"], 1: ["b", "c"], 2: ["d"]}
    assert [r["group"] for r in rows] == ["clique 1"] * 2 + ["clique 2"] * 2 + ["isolated"]
    # one panel per group, wrapped; every panel has the same vertical scale (the mean)
    assert spec["facet"]["field"] == "column" and spec["columns"] == 3
    assert spec.get("resolve", {}).get("scale", {}).get("y", "shared") == "shared"
    layers = spec["spec"]["layer"]
    assert layers[0]["mark"]["type"] == "line"
    assert layers[1]["encoding"]["y"]["field"] == "mean"
    best = [lay for lay in layers if lay["mark"]["type"] == "text" and lay["mark"].get("color")]
    assert len(best) == 1 and best[0]["mark"]["color"] == "red"
    assert best[0]["mark"]["fontWeight"] == "bold"
    assert best[0]["transform"] == [{"calculate": "0.04", "as": "x"}, {"filter": "datum.best"}]
    assert [r["system"] for r in rows if r["best"]] == ["a"]


def test_clique_chart_fits_a_page_however_many_groups():
    """Twelve systems in eight overlapping cliques: four panels of PANEL_WIDTH pixels to
    a row (the single row of columns was 2,000 pixels wide, shrunk to unreadable type
    in the PDF); the drawing is at most 760 pixels wide."""
    import re

    from reportgen.charts.graph import PANEL_WIDTH, PANELS_PER_ROW

    means = np.linspace(0.9, 0.3, 12)
    P = np.full((12, 12), 0.001)
    for i in range(12):
        for j in range(12):
            if i != j and abs(i - j) <= 2:
                P[i, j] = 0.5
    names = [f"starcoder2-{i}b|fim|4k" for i in range(12)]
    ranking = ordered_ranking(means, P, systems=names)
    assert len(ranking.cliques) + len(ranking.isolated) > PANELS_PER_ROW
    spec = clique_chart(ranking).to_dict()
    assert spec["columns"] == PANELS_PER_ROW
    assert spec["spec"]["width"] == PANEL_WIDTH
    svg = vlc.vegalite_to_svg(spec)
    width = float(re.search(r'<svg[^>]*\bwidth="([0-9.]+)"', svg).group(1))
    assert width <= 760


def test_clique_chart_needs_all_pairs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, ranking = _synthetic(order="successive", alternative="greater")
    with pytest.raises(InputError, match="all-pairs"):
        clique_chart(ranking)
    with pytest.raises(InputError, match="OrderedRanking"):
        connected_graph_chart({"systems": []})


def test_charts_render_to_svg_and_png(shared_data):
    _, small = _synthetic()
    _, he = _humaneval(str(shared_data / "eval-arena" / "humaneval+.jsonl"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, directed = _synthetic(order="successive", alternative="greater")
    for chart in (
        connected_graph_chart(small),
        clique_chart(small),
        connected_graph_chart(he),
        clique_chart(he),
        connected_graph_chart(directed),
    ):
        spec = chart.to_json()
        assert vlc.vegalite_to_svg(spec).lstrip().startswith("<svg")
        assert vlc.vegalite_to_png(spec, scale=2)[:8] == b"\x89PNG\r\n\x1a\n"

"""Connected graph plot and clique view of an ordered ranking (Ackerman et al. 2025, §5.1).

=========================== ===============================================================
builder                     what it draws
=========================== ===============================================================
:func:`connected_graph_     systems as vertices on one vertical line at the height of their
chart`                      mean, names on the right, one arc on the left per pair that is
                            *not* significantly different (thicker = larger adjusted p),
                            the best system labelled in red bold
:func:`clique_chart`        every clique and every isolated system as a panel, best first,
                            members at their mean and joined by a line
=========================== ===============================================================

Both take a :class:`~reportgen.stats.ranking.OrderedRanking` and draw only what it holds
(no statistic is recomputed).
"""

from __future__ import annotations

import json
import math
from typing import Any

import altair as alt

from reportgen.charts.render import inline_data, label_chars, middle_cut
from reportgen.errors import InputError
from reportgen.plaintext import count
from reportgen.stats.ranking import OrderedRanking

__all__ = ["clique_chart", "connected_graph_chart"]

#: Room for a system name (pixels), and one unit of x in the connected graph.
COLUMN_WIDTH = 250
#: Vertical room per member of a clique (pixels).
ROW_HEIGHT = 18
#: Size of the systems' names (pixels), whatever the theme's text size: the names are
#: spread for it.
LABEL_FONT_SIZE = 11
#: Smallest vertical gap (pixels) between two names: a line of :data:`LABEL_FONT_SIZE`.
MIN_GAP = 14
BEST_COLOR = "red"
EDGE_COLOR = "#555555"
_STROKE_RANGE = (0.6, 6.0)


def _stroke_range(n_edges: int) -> tuple[float, float]:
    """The arcs' widths: :data:`_STROKE_RANGE` up to a dozen arcs, the widest thinner
    beyond (down to 2 px), so that many arcs stay apart instead of filling the area."""
    low, high = _STROKE_RANGE
    return low, round(max(2.0, min(high, high * math.sqrt(12 / max(1, n_edges)))), 3)


def _check(ranking: Any) -> OrderedRanking:
    if not isinstance(ranking, OrderedRanking):
        raise InputError(
            f"expected an OrderedRanking, got {type(ranking).__name__}",
            hint="build one with reportgen.stats.ranking.ordered_ranking",
        )
    return ranking


def _y(ranking: OrderedRanking, title: str, domain: tuple[float, float]) -> alt.Y:
    # the best system on top: reverse the scale when lower scores are better; the domain
    # is set (not "niced") so that a label's pixel height is known when it is placed
    return alt.Y(
        "mean:Q",
        title=title,
        scale=alt.Scale(
            domain=list(domain), nice=False, zero=False, reverse=ranking.direction == "lower"
        ),
    )


def _domain(means: list[float]) -> tuple[float, float]:
    """The vertical scale's domain: the means with 5 % of their range (at least 1 % of
    their size, or 1) above and below."""
    lo, hi = min(means), max(means)
    pad = 0.05 * (hi - lo) or 0.01 * abs(hi) or 1.0
    return lo - pad, hi + pad


def _isotonic(values: list[float]) -> list[float]:
    """The non-decreasing sequence closest to ``values`` in squared distance (pool
    adjacent violators; Barlow et al. 1972, ch. 1)."""
    blocks: list[list[float]] = []  # [mean, count]
    for v in values:
        blocks.append([v, 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            (m2, n2), (m1, n1) = blocks.pop(), blocks.pop()
            blocks.append([(m1 * n1 + m2 * n2) / (n1 + n2), n1 + n2])
    return [m for m, n in blocks for _ in range(int(n))]


def spread_labels(targets: list[float], gap: float, height: float) -> list[float]:
    """Pixel heights (0 at the top) for labels wanted at ``targets``: in the same order,
    at least ``gap`` apart, within ``[0, height]`` when they fit there, and as close to
    their targets as that allows (least squares).

    With ``y`` the targets sorted top to bottom, the heights are ``z_i + i·gap`` where
    ``z`` is the isotonic (non-decreasing) least-squares fit to ``y_i − i·gap``, clipped
    to ``[0, height − (n − 1)·gap]`` (clipping an isotonic fit gives the bounded one).

    >>> spread_labels([10.0, 11.0, 12.0, 100.0], 14.0, 200.0)
    [0.0, 14.0, 28.0, 100.0]
    >>> spread_labels([0.0, 0.0], 14.0, 200.0)
    [0.0, 14.0]
    """
    n = len(targets)
    order = sorted(range(n), key=lambda i: (targets[i], i))
    shifted = _isotonic([targets[i] - k * gap for k, i in enumerate(order)])
    upper = max(0.0, height - (n - 1) * gap)
    out = [0.0] * n
    for k, i in enumerate(order):
        out[i] = min(max(shifted[k], 0.0), upper) + k * gap
    return out


def _place_labels(
    rows: list[dict[str, Any]],
    key: str,
    domain: tuple[float, float],
    height: float,
    lower: bool,
) -> None:
    """Set ``label_y`` (in the units of ``mean``) of every row: the labels of each ``key``
    group spread :data:`MIN_GAP` pixels apart at ``height`` pixels (:func:`spread_labels`)."""
    lo, hi = domain
    span = (hi - lo) or 1.0

    def to_px(v: float) -> float:
        return (v - lo) / span * height if lower else (hi - v) / span * height

    def from_px(px: float) -> float:
        return lo + px / height * span if lower else hi - px / height * span

    groups: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(r[key], []).append(r)
    for members in groups.values():
        placed = spread_labels([to_px(r["mean"]) for r in members], MIN_GAP, height)
        for r, px in zip(members, placed):
            # a label left at its vertex keeps the mean exactly (no leader is drawn)
            r["label_y"] = r["mean"] if abs(px - to_px(r["mean"])) < 1e-6 else from_px(px)


def _labels(
    nodes: list[dict[str, Any]],
    x: Any,
    *,
    dx: int = 8,
    limit: int = COLUMN_WIDTH - 20,
) -> list[alt.Chart]:
    """Text layers at ``label_y``: the other systems in the default style, the best in
    red bold; a name longer than ``limit`` pixels is cut in the middle (``label``), the
    tooltip has it whole."""
    tooltip = [alt.Tooltip("system:N"), alt.Tooltip("mean:Q", format=".4g"), alt.Tooltip("rank:Q")]
    chars = label_chars(limit, LABEL_FONT_SIZE)
    for r in nodes:
        r["label"] = middle_cut(r["system"], chars)
    others = [r for r in nodes if not r["best"]]
    best = [r for r in nodes if r["best"]]
    layers = []
    styles: list[dict[str, Any]] = [{}, {"color": BEST_COLOR, "fontWeight": "bold"}]
    for rows, mark in zip((others, best), styles):
        if rows:
            layers.append(
                alt.Chart(inline_data(rows))
                .mark_text(
                    align="left",
                    baseline="middle",
                    dx=dx,
                    limit=limit,
                    fontSize=LABEL_FONT_SIZE,
                    **mark,
                )
                .encode(x=x, y=alt.Y("label_y:Q"), text=alt.Text("label:N"), tooltip=tooltip)
            )
    return layers


#: Points drawn along each arc of the connected graph.
ARC_POINTS = 24
#: Where the names of the connected graph start (x units: one is COLUMN_WIDTH pixels).
LEADER = 0.04


def _arc_height(n: int) -> int:
    return max(220, min(720, 20 * n + 40))


def _arcs(
    ranking: OrderedRanking, nodes: list[dict[str, Any]], height: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The points of each arc of :func:`connected_graph_chart` (a half sine from one
    system's mean to the other's, bulging left the farther apart they rank) and, for a
    directed ranking, the arrowhead near each target."""
    index = {s: i for i, s in enumerate(ranking.systems)}
    means = [r["mean"] for r in nodes]
    span = (max(means) - min(means)) or 1.0
    t = [k / (ARC_POINTS - 1) for k in range(ARC_POINTS)]
    edges: list[dict[str, Any]] = []
    heads: list[dict[str, Any]] = []
    for k, (a, b, p) in enumerate(ranking.edges):
        ya, yb = nodes[index[a]]["mean"], nodes[index[b]]["mean"]
        # the farther apart two systems are in the ranking, the farther left their arc
        # reaches (one unit of x is COLUMN_WIDTH pixels), so that the arcs of a
        # cluster of close means nest instead of lying on top of each other; the
        # reach grows with the rank distance over the whole width (a fixed step per
        # rank sent every arc beyond ten ranks to one edge, a grey band of 80 arcs)
        dy = abs(ya - yb) / span * height / COLUMN_WIDTH
        far = (abs(index[a] - index[b]) - 1) / max(1, len(ranking.systems) - 2)
        bulge = min(0.95, 0.06 + 0.7 * far + 0.15 * dy)
        common = {
            "edge": k,
            "source": a,
            "target": b,
            "p_adjusted": p,
            "width_p": 1.0 if p is None else float(p),
            "directed": ranking.directed,
        }
        for j, u in enumerate(t):
            x = -bulge * math.sin(math.pi * u)
            edges.append({**common, "t": j, "x": round(x, 6), "y": ya + (yb - ya) * u})
        if ranking.directed:
            up = (yb >= ya) != (ranking.direction == "lower")  # towards the target, drawn
            heads.append(
                {
                    **common,
                    "hx": -bulge * math.sin(math.pi * 0.85),
                    "hy": ya + (yb - ya) * 0.85,
                    "shape": "triangle-up" if up else "triangle-down",
                }
            )
    return edges, heads


def connected_graph_chart(
    ordered_ranking: OrderedRanking,
    *,
    title: str | None = None,
    value_title: str = "mean score",
    scale: float = 1.0,
) -> alt.LayerChart:
    """Connected graph plot of an ordered ranking (Ackerman et al. 2025, §5.1), drawn as an arc
    diagram.

    Parameters
    ----------
    ordered_ranking
        :func:`~reportgen.stats.ranking.ordered_ranking` result.
    title
        Chart title (default "Systems by mean"; the report's names the dataset and
        metric). The subtitle says what an arc is and how many of the compared pairs
        have one.
    value_title, scale
        The vertical axis' title and the factor the means are drawn at (100 draws
        proportions in percent, as the report's tables show them).

    Returns
    -------
    alt.LayerChart
        Layers, in order: edges (``line``, one per ``edge`` of :data:`ARC_POINTS`
        points; ``strokeWidth`` by ``p_adjusted``, fainter when there are many), arrow
        heads (``point``, only when ``ordered_ranking.directed``), vertices (``point``),
        labels of the other systems (``text``) and the best system's label (``text``,
        red bold).

    Notes
    -----
    Every vertex sits on one vertical line at the height of its mean, best on top, and
    its name to the right of it (names pushed apart where means are close). An edge
    joins every pair *not* significantly different at ``alpha`` (an edge with no
    p-value, NaN, is drawn at the full width), as a half-ellipse to the left of the
    vertices whose width grows with the distance of the two systems in the ranking.
    No edge therefore crosses a name: spreading the vertices over columns, as the
    paper's figure does, drew edges through the names once there were a dozen systems.
    When the tests were one-sided the edge points from the system the alternative says
    is better to the other, marked by a triangle near the target.
    """
    ranking = _check(ordered_ranking)
    best = ranking.systems[0]
    n = len(ranking.systems)
    nodes: list[dict[str, Any]] = [
        {
            "system": s,
            "mean": scale * float(ranking.mean[i]),
            "x": 0.0,
            "column": 0,
            "rank": int(ranking.rank[i]),
            "letters": None if ranking.letters is None else ranking.letters[i],
            "best": s == best,
        }
        for i, s in enumerate(ranking.systems)
    ]
    height = max(_arc_height(n), MIN_GAP * n)
    domain = _domain([r["mean"] for r in nodes])
    _place_labels(nodes, "column", domain, height, ranking.direction == "lower")
    edges, heads = _arcs(ranking, nodes, height)
    # x: one unit is COLUMN_WIDTH pixels; the arcs take what they need on the left
    left = max((-e["x"] for e in edges), default=0.0) + 0.08
    x_scale = alt.Scale(domain=[-left, 1.0])
    x = alt.X("x:Q", axis=None, scale=x_scale)
    y = _y(ranking, value_title, domain)
    layers: list[alt.Chart] = []
    edge_tooltip = [
        alt.Tooltip("source:N"),
        alt.Tooltip("target:N"),
        alt.Tooltip("p_adjusted:Q", format=".3g"),
    ]
    if edges:
        layers.append(
            alt.Chart(inline_data(edges))
            .mark_line(
                color=EDGE_COLOR, opacity=round(min(0.6, 4 / math.sqrt(len(ranking.edges))), 3)
            )
            .encode(
                x=x,
                y=alt.Y("y:Q"),
                detail=alt.Detail("edge:N"),
                order=alt.Order("t:Q"),
                strokeWidth=alt.StrokeWidth(
                    "width_p:Q",
                    title="adjusted p",
                    scale=alt.Scale(
                        domain=[ranking.alpha, 1.0], range=list(_stroke_range(len(ranking.edges)))
                    ),
                ),
                tooltip=edge_tooltip,
            )
        )
    if heads:
        layers.append(
            alt.Chart(inline_data(heads))
            .mark_point(filled=True, size=90, opacity=1, color=EDGE_COLOR)
            .encode(
                x=alt.X("hx:Q", axis=None, scale=x_scale),
                y=alt.Y("hy:Q"),
                shape=alt.Shape("shape:N", scale=None),
                tooltip=edge_tooltip,
            )
        )
    layers.append(
        alt.Chart(inline_data(nodes))
        .mark_point(filled=True, size=50, opacity=1)
        .encode(
            x=x,
            y=y,
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("mean:Q", format=".4g"),
                alt.Tooltip("rank:Q"),
                alt.Tooltip("letters:N"),
            ],
        )
    )
    # a name pushed away from its vertex (close means) gets a thin leader to it
    moved = [r for r in nodes if r["label_y"] != r["mean"]]
    if moved:
        layers.append(
            alt.Chart(inline_data(moved))
            .mark_rule(color="#999999", strokeWidth=0.8)
            .encode(x=x, y=y, x2=alt.datum(LEADER), y2=alt.Y2("label_y:Q"))
        )
    for row in nodes:
        row["label_x"] = LEADER
    layers.extend(_labels(nodes, alt.X("label_x:Q", axis=None, scale=x_scale), dx=4))
    # the title says what is drawn, the subtitle what an arc is and how many there are
    # (a title "not significantly different" read as the verdict while most pairs differed)
    return alt.layer(*layers).properties(
        title=alt.TitleParams(title or "Systems by mean", subtitle=_arc_subtitle(ranking)),
        width=round((left + 1.0) * COLUMN_WIDTH),
        height=height,
    )


def _compared_pairs(ranking: OrderedRanking) -> int | None:
    n = len(ranking.systems)
    if ranking.order == "all-pairs":
        return n * (n - 1) // 2
    if ranking.order in ("first-vs-rest", "successive"):
        return n - 1
    return None


def _arc_subtitle(ranking: OrderedRanking) -> str:
    """What an arc of :func:`connected_graph_chart` means, with the count of arcs.

    >>> from reportgen.stats.ranking import ordered_ranking
    >>> import numpy as np
    >>> P = np.array([[np.nan, 0.3, 0.01], [0.3, np.nan, 0.01], [0.01, 0.01, np.nan]])
    >>> _arc_subtitle(ordered_ranking(np.array([0.9, 0.8, 0.2]), P, systems=["a", "b", "c"]))
    'an arc joins two systems not significantly different at α = 0.05: 1 of 3 pairs'
    """
    pairs = _compared_pairs(ranking)
    arcs = len(ranking.edges)
    counted = f"{arcs} of {count(pairs, 'pair')}" if pairs else count(arcs, "pair")
    return (
        f"an arc joins two systems not significantly different at α = {ranking.alpha:g}"
        + (" (one-sided; the arrow points to the worse)" if ranking.directed else "")
        + f": {counted}"
    )


#: Width of one panel of the clique view (pixels): the vertex and its names.
PANEL_WIDTH = 170
#: Panels of the clique view per row: four fit the width of a page.
PANELS_PER_ROW = 4


def clique_chart(
    ordered_ranking: OrderedRanking,
    *,
    title: str | None = None,
    value_title: str = "mean score",
    scale: float = 1.0,
) -> alt.FacetChart:
    """The split view of Ackerman et al. 2025, §5.1: every clique and every isolated system as a
    panel, panels in descending mean of their best member, systems at their mean (one
    vertical scale for all panels), the members of a clique joined by a line.

    Parameters
    ----------
    ordered_ranking
        :func:`~reportgen.stats.ranking.ordered_ranking` result of all-pairs comparisons.
    title
        Chart title.
    value_title, scale
        As :func:`connected_graph_chart`.

    Returns
    -------
    alt.FacetChart
        Panels wrapped :data:`PANELS_PER_ROW` to a row (the paper's one row of columns
        is far wider than a page once there are more than four groups), each with the
        layers: the clique's line (``line``), its vertices (``point``), leaders from a
        vertex to its name where the name was moved (``rule``), the names of the
        other systems (``text``) and the best system's name (``text``, red bold). The
        data rows (top-level ``data``) carry ``group`` (``"clique 1"``, ... or
        ``"isolated"``), ``column`` (the panel, best group first), ``system``, ``mean``,
        ``rank``, ``best`` and ``label_y`` (the name's height, spread so that names do
        not overlap).

    Raises
    ------
    InputError
        The ranking has no cliques because its comparisons were not all pairs.
    """
    ranking = _check(ordered_ranking)
    if ranking.order != "all-pairs":
        raise InputError(
            f"order={ranking.order!r}: cliques need all-pairs comparisons",
            hint="use connected_graph_chart, or compare all pairs",
        )
    index = {s: i for i, s in enumerate(ranking.systems)}
    groups: list[tuple[str, tuple[str, ...]]] = []
    for k, c in enumerate(ranking.cliques):
        groups.append((f"clique {k + 1}", c))
    for s in ranking.isolated:
        groups.append(("isolated", (s,)))
    # descending mean = best member first in the ranking order; ties by size (larger first)
    groups.sort(key=lambda g: (min(index[s] for s in g[1]), -len(g[1])))
    best = ranking.systems[0]
    rows: list[dict[str, Any]] = []
    for col, (name, members) in enumerate(groups):
        for s in members:
            i = index[s]
            rows.append(
                {
                    "column": col,
                    "group": name,
                    "system": s,
                    "mean": scale * float(ranking.mean[i]),
                    "rank": int(ranking.rank[i]),
                    "best": s == best,
                }
            )
    n_rows = max((len(g[1]) for g in groups), default=1)
    height = max(160, ROW_HEIGHT * min(len(ranking.systems), 2 * n_rows) + 20, MIN_GAP * n_rows)
    domain = _domain([r["mean"] for r in rows])
    _place_labels(rows, "column", domain, height, ranking.direction == "lower")
    chars = label_chars(PANEL_WIDTH - 22, LABEL_FONT_SIZE)
    for r in rows:
        r["label"] = middle_cut(r["system"], chars)  # the tooltip has it whole
    x = alt.X("x:Q", axis=None, scale=alt.Scale(domain=[0, 1]))
    y = _y(ranking, value_title, domain)
    tooltip = [
        alt.Tooltip("group:N"),
        alt.Tooltip("system:N"),
        alt.Tooltip("mean:Q", format=".4g"),
        alt.Tooltip("rank:Q"),
    ]
    base = alt.Chart(inline_data(rows)).transform_calculate(x="0.04")
    text = {
        "align": "left",
        "baseline": "middle",
        "dx": 7,
        "limit": PANEL_WIDTH - 22,
        "fontSize": LABEL_FONT_SIZE,
    }
    layer = alt.layer(
        base.mark_line(opacity=0.5, strokeWidth=2).encode(x=x, y=y, order=alt.Order("mean:Q")),
        base.mark_point(filled=True, size=50, opacity=1).encode(x=x, y=y, tooltip=tooltip),
        # a name moved away from its point (close means) gets a thin leader to it, ending
        # where the name starts (x 0.04 plus the text's 7 px, less a pixel)
        base.transform_filter("datum.label_y != datum.mean")
        .mark_rule(color="#999999", strokeWidth=0.8)
        .encode(x=x, y=y, x2=alt.datum(0.04 + 6 / PANEL_WIDTH), y2=alt.Y2("label_y:Q")),
        base.transform_filter("!datum.best")
        .mark_text(**text)
        .encode(x=x, y=alt.Y("label_y:Q"), text=alt.Text("label:N"), tooltip=tooltip),
        base.transform_filter("datum.best")
        .mark_text(color=BEST_COLOR, fontWeight="bold", **text)
        .encode(x=x, y=alt.Y("label_y:Q"), text=alt.Text("label:N"), tooltip=tooltip),
    ).properties(width=PANEL_WIDTH, height=height)
    names = json.dumps([g[0] for g in groups])
    subtitle = (
        f"a panel per group of systems pairwise not significantly different at "
        f"α = {ranking.alpha:g} (a clique), and per system different from all others"
    )
    return layer.facet(
        facet=alt.Facet(
            "column:O",
            title=None,
            header=alt.Header(labelExpr=f"{names}[datum.value]", labelFontWeight="bold"),
        ),
        columns=min(PANELS_PER_ROW, len(groups)),
        spacing=8,
    ).properties(title=alt.TitleParams(title or "Groups of systems", subtitle=subtitle))

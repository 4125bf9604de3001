"""Connected graph plot and clique view of an ordered ranking (Ackerman et al. 2025, §5.1).

=========================== ===============================================================
builder                     what it draws
=========================== ===============================================================
:func:`connected_graph_     systems as vertices at the height of their mean, one edge per
chart`                      pair that is *not* significantly different (thicker = larger
                            adjusted p), the best system labelled in red bold
:func:`clique_chart`        every clique and every isolated system as a column, best
                            first, members at their mean and joined by a line
=========================== ===============================================================

Both take a :class:`~reportgen.stats.ranking.OrderedRanking` and draw only what it holds
(no statistic is recomputed). The horizontal position in the connected graph carries no
meaning: vertices are spread over a few columns so that close means do not overlap.
"""

from __future__ import annotations

import json
import math
from typing import Any

import altair as alt

from reportgen.charts.render import inline_data
from reportgen.errors import InputError
from reportgen.stats.ranking import OrderedRanking

__all__ = ["clique_chart", "connected_graph_chart", "graph_layout"]

#: Width of one column of vertices (pixels): room for a long system name.
COLUMN_WIDTH = 250
#: Vertical room per vertex row (pixels).
ROW_HEIGHT = 18
#: Smallest vertical gap (pixels) between two vertices sharing a column.
MIN_GAP = 14
BEST_COLOR = "red"
_STROKE_RANGE = (0.6, 6.0)


def _check(ranking: Any) -> OrderedRanking:
    if not isinstance(ranking, OrderedRanking):
        raise InputError(
            f"expected an OrderedRanking, got {type(ranking).__name__}",
            hint="build one with reportgen.stats.ranking.ordered_ranking",
        )
    return ranking


def _n_columns(n: int) -> int:
    return max(min(n, 3), min(6, math.ceil(n / 12)))


def _height(n: int, columns: int) -> int:
    return max(300, min(900, 12 * n + 40), ROW_HEIGHT * math.ceil(n / columns) + 40)


def graph_layout(ranking: OrderedRanking) -> list[dict[str, Any]]:
    """Deterministic vertex positions: ``system``, ``mean`` (the height), ``column``
    and ``x`` (column plus a small offset).

    Systems are placed best first, round robin over the columns: system i goes to column
    ``i % n_columns`` if its lowest vertex is at least ``MIN_GAP`` pixels away (at the
    chart's height), else to the next column with that room, else to the column where
    the gap is largest. Ties in mean therefore land side by side. Within a column the
    vertices are shifted by a quasi-random fraction (golden-ratio sequence) of a quarter
    column so that edges between vertices of one column do not lie on top of each other.
    """
    ranking = _check(ranking)
    n = len(ranking.systems)
    cols = _n_columns(n)
    means = [float(v) for v in ranking.mean]
    span = (max(means) - min(means)) or 1.0
    gap = MIN_GAP * span / _height(n, cols)
    last: list[float | None] = [None] * cols
    out = []
    for i, s in enumerate(ranking.systems):
        y = means[i]
        room = [math.inf if v is None else abs(v - y) for v in last]
        # round robin: the column of turn i if it has room, else the next one with room
        turn = [(i + k) % cols for k in range(cols)]
        free = [c for c in turn if room[c] >= gap]
        c = free[0] if free else max(turn, key=lambda k: room[k])
        last[c] = y
        shift = 0.25 * ((i * 0.6180339887498949) % 1.0)
        out.append({"system": s, "mean": y, "column": c, "x": round(c + shift, 4)})
    return out


def _node_values(ranking: OrderedRanking) -> list[dict[str, Any]]:
    layout = graph_layout(ranking)
    best = ranking.systems[0]
    for i, row in enumerate(layout):
        row.update(
            rank=int(ranking.rank[i]),
            letters=None if ranking.letters is None else ranking.letters[i],
            best=row["system"] == best,
        )
    return layout


def _y(ranking: OrderedRanking, title: str = "mean score") -> alt.Y:
    # the best system on top: reverse the scale when lower scores are better
    return alt.Y(
        "mean:Q", title=title, scale=alt.Scale(zero=False, reverse=ranking.direction == "lower")
    )


def _spread_labels(rows: list[dict[str, Any]], key: str, gap: float, sign: float) -> None:
    """Set ``label_y``: the mean, pushed away (downwards for ``sign`` 1) from the label
    above it in the same ``key`` group when closer than ``gap`` (rows best first)."""
    last: dict[Any, float] = {}
    for r in rows:
        y = r["mean"]
        prev = last.get(r[key])
        if prev is not None and sign * (prev - y) < gap:
            y = prev - sign * gap
        r["label_y"] = y
        last[r[key]] = y


def _gap(ranking: OrderedRanking, height: int) -> float:
    means = [float(v) for v in ranking.mean]
    # the scale domain is "niced" a little beyond the data: 1.2 covers that
    return 1.2 * MIN_GAP * ((max(means) - min(means)) or 1.0) / height


def _labels(
    nodes: list[dict[str, Any]],
    x: Any,
    *,
    dx: int = 8,
    limit: int = COLUMN_WIDTH - 20,
    halo: bool = False,
) -> list[alt.Chart]:
    """Text layers at ``label_y``: (a white halo under all labels,) the other systems in
    the default style, the best in red bold."""
    tooltip = [alt.Tooltip("system:N"), alt.Tooltip("mean:Q", format=".4g"), alt.Tooltip("rank:Q")]
    others = [r for r in nodes if not r["best"]]
    best = [r for r in nodes if r["best"]]
    layers = []
    if halo:
        # a wide white outline under every label interrupts the edges that pass under
        # it, so that the name stays readable (an edge can always be followed past it)
        layers.append(
            alt.Chart(inline_data(nodes))
            .mark_text(
                align="left",
                baseline="middle",
                dx=dx,
                limit=limit,
                stroke="white",
                strokeWidth=7,
                strokeJoin="round",
                fontWeight="bold",
            )
            .encode(x=x, y=alt.Y("label_y:Q"), text="system:N")
        )
    for rows, mark in ((others, {}), (best, {"color": BEST_COLOR, "fontWeight": "bold"})):
        if rows:
            layers.append(
                alt.Chart(inline_data(rows))
                .mark_text(align="left", baseline="middle", dx=dx, limit=limit, **mark)
                .encode(x=x, y=alt.Y("label_y:Q"), text="system:N", tooltip=tooltip)
            )
    return layers


def connected_graph_chart(
    ordered_ranking: OrderedRanking, *, title: str | None = None
) -> alt.LayerChart:
    """Connected graph plot of an ordered ranking (Ackerman et al. 2025, §5.1).

    Parameters
    ----------
    ordered_ranking
        :func:`~reportgen.stats.ranking.ordered_ranking` result.
    title
        Chart title; default names the significance level.

    Returns
    -------
    alt.LayerChart
        Layers, in order: edges (``rule``; ``strokeWidth`` by ``p_adjusted``, fainter
        when there are many), arrow heads (``point``, only when
        ``ordered_ranking.directed``), vertices (``point``), a white halo under all
        labels (``text``), labels of the other systems (``text``) and the best system's
        label (``text``, red bold).

    Notes
    -----
    Vertical position = the system's mean, best on top; the horizontal position is
    meaningless (:func:`graph_layout`). An edge joins every pair *not* significantly
    different at ``alpha`` (an edge with no p-value, NaN, is drawn at the full width);
    when the tests were one-sided the edge points from the system the alternative says
    is better to the other, marked by a triangle near the target.
    """
    ranking = _check(ordered_ranking)
    nodes = _node_values(ranking)
    n = len(nodes)
    cols = _n_columns(n)
    sign = -1.0 if ranking.direction == "lower" else 1.0
    _spread_labels(nodes, "column", _gap(ranking, _height(n, cols)), sign)
    pos = {r["system"]: r for r in nodes}
    edges = [
        {
            "source": a,
            "target": b,
            "p_adjusted": p,
            "width_p": 1.0 if p is None else float(p),
            "x": pos[a]["x"],
            "y": pos[a]["mean"],
            "x2": pos[b]["x"],
            "y2": pos[b]["mean"],
            "directed": ranking.directed,
        }
        for a, b, p in ranking.edges
    ]
    x_scale = alt.Scale(domain=[-0.3, cols - 0.3])
    x = alt.X("x:Q", axis=None, scale=x_scale)
    y = _y(ranking)
    layers: list[alt.Chart] = []
    if edges:
        layers.append(
            alt.Chart(inline_data(edges))
            .mark_rule(opacity=round(min(0.45, 4 / math.sqrt(len(edges))), 3))
            .encode(
                x=alt.X("x:Q", axis=None, scale=x_scale),
                y=alt.Y("y:Q"),
                x2="x2:Q",
                y2="y2:Q",
                strokeWidth=alt.StrokeWidth(
                    "width_p:Q",
                    title="adjusted p",
                    scale=alt.Scale(domain=[ranking.alpha, 1.0], range=list(_STROKE_RANGE)),
                ),
                tooltip=[
                    alt.Tooltip("source:N"),
                    alt.Tooltip("target:N"),
                    alt.Tooltip("p_adjusted:Q", format=".3g"),
                ],
            )
        )
        if ranking.directed:
            heads = [
                {
                    **e,
                    "hx": e["x"] + 0.85 * (e["x2"] - e["x"]),
                    "hy": e["y"] + 0.85 * (e["y2"] - e["y"]),
                    "shape": "triangle-down" if e["y2"] <= e["y"] else "triangle-up",
                }
                for e in edges
            ]
            if ranking.direction == "lower":
                flip = {"triangle-down": "triangle-up", "triangle-up": "triangle-down"}
                for h in heads:
                    h["shape"] = flip[h["shape"]]
            layers.append(
                alt.Chart(inline_data(heads))
                .mark_point(filled=True, size=110, opacity=1)
                .encode(
                    x=alt.X("hx:Q", axis=None, scale=x_scale),
                    y=alt.Y("hy:Q"),
                    shape=alt.Shape("shape:N", scale=None),
                    tooltip=[
                        alt.Tooltip("source:N"),
                        alt.Tooltip("target:N"),
                        alt.Tooltip("p_adjusted:Q", format=".3g"),
                    ],
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
    layers.extend(_labels(nodes, x, limit=int(0.75 * COLUMN_WIDTH) - 10, halo=True))
    kind = "one-sided, directed" if ranking.directed else "two-sided"
    default = (
        f"Systems not significantly different at α = {ranking.alpha:g} are joined "
        f"({kind}; edge width: adjusted p)"
    )
    return alt.layer(*layers).properties(
        title=title or default, width=COLUMN_WIDTH * cols, height=_height(n, cols)
    )


#: Width of one panel of the clique view (pixels): the vertex and its names.
PANEL_WIDTH = 170
#: Panels of the clique view per row: four fit the width of a page.
PANELS_PER_ROW = 4


def clique_chart(ordered_ranking: OrderedRanking, *, title: str | None = None) -> alt.FacetChart:
    """The split view of Ackerman et al. 2025, §5.1: every clique and every isolated system as a
    panel, panels in descending mean of their best member, systems at their mean (one
    vertical scale for all panels), the members of a clique joined by a line.

    Parameters
    ----------
    ordered_ranking
        :func:`~reportgen.stats.ranking.ordered_ranking` result of all-pairs comparisons.
    title
        Chart title.

    Returns
    -------
    alt.FacetChart
        Panels wrapped :data:`PANELS_PER_ROW` to a row (the paper's one row of columns
        is far wider than a page once there are more than four groups), each with the
        layers: the clique's line (``line``), its vertices (``point``), the names of the
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
    rows = []
    for col, (name, members) in enumerate(groups):
        for s in members:
            i = index[s]
            rows.append(
                {
                    "column": col,
                    "group": name,
                    "system": s,
                    "mean": float(ranking.mean[i]),
                    "rank": int(ranking.rank[i]),
                    "best": s == best,
                }
            )
    n_rows = max((len(g[1]) for g in groups), default=1)
    height = max(160, ROW_HEIGHT * min(len(ranking.systems), 2 * n_rows) + 20)
    sign = -1.0 if ranking.direction == "lower" else 1.0
    _spread_labels(rows, "column", _gap(ranking, height), sign)
    x = alt.X("x:Q", axis=None, scale=alt.Scale(domain=[0, 1]))
    y = _y(ranking)
    tooltip = [
        alt.Tooltip("group:N"),
        alt.Tooltip("system:N"),
        alt.Tooltip("mean:Q", format=".4g"),
        alt.Tooltip("rank:Q"),
    ]
    base = alt.Chart(inline_data(rows)).transform_calculate(x="0.04")
    text = {"align": "left", "baseline": "middle", "dx": 7, "limit": PANEL_WIDTH - 22}
    layer = alt.layer(
        base.mark_line(opacity=0.5, strokeWidth=2).encode(x=x, y=y, order=alt.Order("mean:Q")),
        base.mark_point(filled=True, size=50, opacity=1).encode(x=x, y=y, tooltip=tooltip),
        base.transform_filter("!datum.best")
        .mark_text(**text)
        .encode(x=x, y=alt.Y("label_y:Q"), text="system:N", tooltip=tooltip),
        base.transform_filter("datum.best")
        .mark_text(color=BEST_COLOR, fontWeight="bold", **text)
        .encode(x=x, y=alt.Y("label_y:Q"), text="system:N", tooltip=tooltip),
    ).properties(width=PANEL_WIDTH, height=height)
    names = json.dumps([g[0] for g in groups])
    default = (
        f"Groups of systems not significantly different at α = {ranking.alpha:g} "
        "(cliques) and isolated systems"
    )
    return layer.facet(
        facet=alt.Facet(
            "column:O",
            title=None,
            header=alt.Header(labelExpr=f"{names}[datum.value]", labelFontWeight="bold"),
        ),
        columns=min(PANELS_PER_ROW, len(groups)),
        spacing=8,
    ).properties(title=title or default)

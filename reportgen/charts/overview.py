"""The overview chart of a report: each system's mean with its interval on every dataset ×
metric, as small multiples that share the system axis (Tufte's small multiples; HELM's
leaderboard read as a picture).

=============================== ==========================================================
builder                         what it draws
=============================== ==========================================================
:func:`means_overview_chart`    one panel per dataset × metric, one row per system in the
                                order given (best on top), the mean as a point and its
                                interval as a bar; the best system of each panel filled
=============================== ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt

from reportgen.charts.render import inline_data, label_chars, middle_cut_expr
from reportgen.errors import InputError

__all__ = ["means_overview_chart"]

#: Pixels per system row.
ROW_HEIGHT = 14
#: Width of one panel (pixels).
PANEL_WIDTH = 150
#: Longest system label drawn in full (pixels); full names are in the table beside.
LABEL_LIMIT = 180


def means_overview_chart(
    rows: Sequence[Mapping[str, Any]],
    order: Sequence[str],
    *,
    columns: int = 4,
    title: str | None = None,
    shared: bool = True,
    panel_width: int = PANEL_WIDTH,
    label_limit: int = LABEL_LIMIT,
) -> alt.FacetChart:
    """Means with intervals of every system on every dataset × metric.

    Parameters
    ----------
    rows
        One mapping per system and panel with ``panel`` (e.g. ``"mbpp+ / pass1 (%)"``),
        ``system``, ``mean``, ``ci_low``, ``ci_high`` (already in the unit shown, e.g.
        percent) and ``best`` (True for the best system of the panel); with
        ``shared=False`` also ``position`` (the row of the system in its panel, 0 on
        top).
    order
        The systems, top to bottom (the overall ranking). Systems of ``rows`` not in it
        are not drawn.
    columns
        Panels per row.
    title
        Chart title.
    shared
        One system axis for every panel (each draws the same systems, in ``order``);
        False: each panel its own systems in its own order (``position``), for panels
        that draw different systems (each benchmark its leader and those tied with it).
    panel_width, label_limit
        Width of a panel and the longest system label, in pixels (a phone's layout
        passes narrower ones).

    Returns
    -------
    alt.FacetChart
        Panels with independent x scales (each metric keeps its own units) and a shared
        system axis (or one per panel); layers: interval (``rule``) and mean (``point``,
        filled for the best system).

    Raises
    ------
    InputError
        No row, or a row without the required fields.
    """
    needed: tuple[str, ...] = ("panel", "system", "mean", "ci_low", "ci_high", "best")
    if not shared:
        needed += ("position",)
    if not rows:
        raise InputError("the overview chart needs at least one row")
    missing = [k for k in needed if k not in rows[0]]
    if missing:
        raise InputError(
            f"overview rows lack {', '.join(missing)}", hint=f"each row needs {', '.join(needed)}"
        )
    keep = set(order)
    values = [{k: row[k] for k in needed} for row in rows if not shared or row["system"] in keep]
    for v in values:
        v["marker"] = "best of the panel" if v["best"] else "other systems"
    panels = list(dict.fromkeys(v["panel"] for v in values))
    y = alt.Y(
        "system:N",
        sort=list(order) if shared else alt.EncodingSortField("position", order="ascending"),
        title=None,
        # a long name is cut in the middle (Vega's labelLimit cuts its end: '-v0.1' and
        # '-v0.2' looked alike); the tooltip has it whole
        axis=alt.Axis(
            labelLimit=label_limit,
            labelExpr=middle_cut_expr("datum.label", label_chars(label_limit, 10)),
            grid=True,
            labelFontSize=10,
        ),
    )
    tooltip = [
        alt.Tooltip("panel:N", title="dataset × metric"),
        alt.Tooltip("system:N"),
        alt.Tooltip("mean:Q", format=".3g"),
        alt.Tooltip("ci_low:Q", format=".3g"),
        alt.Tooltip("ci_high:Q", format=".3g"),
    ]
    x = alt.X("ci_low:Q", title=None, scale=alt.Scale(zero=False, nice=True))
    base = alt.Chart()
    layer = alt.layer(
        base.mark_rule(strokeWidth=2, opacity=0.6).encode(
            x=x, x2=alt.X2("ci_high:Q"), y=y, tooltip=tooltip
        ),
        base.mark_point(size=30, filled=True).encode(
            x=alt.X("mean:Q", title=None),
            y=y,
            tooltip=tooltip,
            shape=alt.Shape(
                "marker:N",
                title=None,
                scale=alt.Scale(
                    domain=["best of the panel", "other systems"], range=["diamond", "circle"]
                ),
            ),
            color=alt.Color(
                "marker:N",
                title=None,
                scale=alt.Scale(
                    domain=["best of the panel", "other systems"], range=["#c0392b", "#34495e"]
                ),
                legend=alt.Legend(orient="top"),
            ),
        ),
    ).properties(
        width=panel_width,
        height=(
            max(60, ROW_HEIGHT * len(order))
            if shared
            else alt.Step(ROW_HEIGHT)  # each panel as tall as its own systems
        ),
    )
    chart = layer.facet(
        facet=alt.Facet(
            "panel:N",
            sort=panels,
            title=None,
            # "dataset / metric" on two lines: one line was cut at the panel's width
            header=alt.Header(
                labelFontWeight="bold",
                labelLimit=panel_width + (0 if shared else label_limit),
                labelExpr="split(datum.value, ' / ')",
            ),
        ),
        columns=max(1, min(columns, len(panels))),
        data=inline_data(values),
    ).resolve_scale(x="independent", y="shared" if shared else "independent")
    if title:
        chart = chart.properties(title=title)
    return chart

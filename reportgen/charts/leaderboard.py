"""Leaderboard charts: simultaneous rank intervals, Bradley-Terry ratings and the
critical-difference diagram.

=============================== ==========================================================
builder                         what it draws
=============================== ==========================================================
:func:`rank_interval_chart`     one horizontal interval per system (best on top) from
                                :class:`~reportgen.stats.ranking.RankIntervals`, observed
                                rank marked, optional compact letters beside each system
:func:`bradley_terry_chart`     Bradley-Terry ratings with their bootstrap intervals,
                                best on top (:class:`~reportgen.stats.leaderboard.
                                BradleyTerry`)
:func:`critical_difference_     Demšar's critical-difference diagram of a
chart`                          :class:`~reportgen.stats.aggregation.
                                FriedmanNemenyiResult`
=============================== ==========================================================

Systems sit on the y axis (long names stay readable, 59 systems fit); the builders only
draw the fields of the result objects.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np

from reportgen import format as fmt
from reportgen.charts.render import inline_data
from reportgen.errors import InputError
from reportgen.stats.aggregation import FriedmanNemenyiResult
from reportgen.stats.leaderboard import BradleyTerry
from reportgen.stats.ranking import CompactLetterDisplay, RankIntervals

__all__ = ["bradley_terry_chart", "critical_difference_chart", "rank_interval_chart"]

#: Pixels per system row.
ROW_HEIGHT = 16
#: Longest system label drawn in full (pixels).
LABEL_LIMIT = 400
WIDTH = 420


#: Widest critical-difference axis (pixels): with the names on both sides the
#: diagram then fits the width of a page.
CD_MAX_WIDTH = 420


def _height(n: int) -> int:
    return max(120, ROW_HEIGHT * n)


def _system_axis(order: list[str]) -> alt.Y:
    return alt.Y(
        "system:N", sort=order, title=None, axis=alt.Axis(labelLimit=LABEL_LIMIT, grid=False)
    )


def rank_interval_chart(
    rank_intervals: RankIntervals,
    letters: CompactLetterDisplay | None = None,
    *,
    title: str | None = None,
) -> alt.LayerChart:
    """Simultaneous rank confidence intervals, systems by rank (best on top).

    Parameters
    ----------
    rank_intervals
        :func:`~reportgen.stats.ranking.simultaneous_rank_intervals` result.
    letters
        Optional :class:`~reportgen.stats.ranking.CompactLetterDisplay` of the same
        systems: its letters are printed right of each interval.
    title
        Chart title; default names the level and method.

    Returns
    -------
    alt.LayerChart
        Layers: intervals (``rule`` from ``rank_ci_low`` to ``rank_ci_high``), observed
        ranks (``point``), and letters (``text``, only with ``letters``). Rank 1 is on
        the left; data rows are the result's ``to_records()`` (plus ``letters``).

    Raises
    ------
    InputError
        ``letters`` is not a CompactLetterDisplay or does not cover every system.
    """
    if not isinstance(rank_intervals, RankIntervals):
        raise InputError(
            f"expected RankIntervals, got {type(rank_intervals).__name__}",
            hint="build them with simultaneous_rank_intervals",
        )
    ri = rank_intervals
    records = ri.to_records()
    sign = -1.0 if ri.direction == "higher" else 1.0
    idx = np.lexsort((np.arange(len(ri.systems)), sign * ri.mean, ri.rank))
    order = [ri.systems[i] for i in idx]
    if letters is not None:
        if not isinstance(letters, CompactLetterDisplay):
            raise InputError(
                f"letters must be a CompactLetterDisplay, got {type(letters).__name__}"
            )
        by_name = dict(zip(letters.systems, letters.letters))
        missing = [s for s in ri.systems if s not in by_name]
        if missing:
            raise InputError(
                "the letters do not cover every system", hint=f"missing: {', '.join(missing[:5])}"
            )
        for r in records:
            r["letters"] = by_name[r["system"]]
    B = len(ri.systems)
    x_scale = alt.Scale(domain=[0.5, B + 0.5], nice=False)
    y = _system_axis(order)
    tooltip = [
        alt.Tooltip("system:N"),
        alt.Tooltip("rank:Q"),
        alt.Tooltip("rank_ci_low:Q", title="lowest rank"),
        alt.Tooltip("rank_ci_high:Q", title="highest rank"),
        alt.Tooltip("mean:Q", format=".4g"),
    ]
    if letters is not None:
        tooltip.append(alt.Tooltip("letters:N"))
    base = alt.Chart(inline_data(records))
    layers = [
        base.mark_rule(strokeWidth=3).encode(
            x=alt.X(
                "rank_ci_low:Q",
                scale=x_scale,
                title=f"rank (1 = best), simultaneous {ri.confidence:.0%} interval",
            ),
            x2=alt.X2("rank_ci_high:Q"),
            y=y,
            tooltip=tooltip,
        ),
        base.mark_point(filled=True, size=40, color="black").encode(
            x=alt.X("rank:Q", scale=x_scale), y=y, tooltip=tooltip
        ),
    ]
    if letters is not None:
        layers.append(
            base.mark_text(align="left", baseline="middle", dx=6).encode(
                x=alt.X("rank_ci_high:Q", scale=x_scale),
                y=y,
                text=alt.Text("letters:N"),
                tooltip=tooltip,
            )
        )
    default = f"Simultaneous {ri.confidence:.0%} rank intervals ({ri.method})" + (
        "; shared letter = not significantly different" if letters else ""
    )
    return alt.layer(*layers).properties(title=title or default, width=WIDTH, height=_height(B))


def bradley_terry_chart(bt: BradleyTerry, *, title: str | None = None) -> alt.LayerChart:
    """Bradley-Terry ratings with bootstrap intervals, best on top.

    Parameters
    ----------
    bt
        :func:`~reportgen.stats.leaderboard.bradley_terry` result.
    title
        Chart title; the default (the scale, items and resamples) becomes its subtitle.

    Returns
    -------
    alt.LayerChart
        Layers: intervals (``rule`` ``ci_low``–``ci_high``; absent without resamples)
        and ratings (``point``). Data rows are ``bt.to_records()`` (best first).
    """
    if not isinstance(bt, BradleyTerry):
        raise InputError(
            f"expected BradleyTerry, got {type(bt).__name__}",
            hint="build it with reportgen.stats.leaderboard.bradley_terry",
        )
    records = bt.to_records()
    order = [r["system"] for r in records]
    y = _system_axis(order)
    name = "Elo rating" if bt.scale == "elo" else "log-strength"
    tooltip = [
        alt.Tooltip("system:N"),
        alt.Tooltip("rank:Q"),
        alt.Tooltip("rating:Q", format=".1f" if bt.scale == "elo" else ".3f"),
        alt.Tooltip("ci_low:Q", format=".1f" if bt.scale == "elo" else ".3f"),
        alt.Tooltip("ci_high:Q", format=".1f" if bt.scale == "elo" else ".3f"),
    ]
    x_scale = alt.Scale(zero=False)
    layers = []
    with_ci = [r for r in records if r["ci_low"] is not None and r["ci_high"] is not None]
    if with_ci:
        layers.append(
            alt.Chart(inline_data(with_ci))
            .mark_rule(strokeWidth=3)
            .encode(
                x=alt.X(
                    "ci_low:Q",
                    scale=x_scale,
                    title=f"{name}, bootstrap {bt.confidence:.0%} interval",
                ),
                x2=alt.X2("ci_high:Q"),
                y=y,
                tooltip=tooltip,
            )
        )
    layers.append(
        alt.Chart(inline_data(records))
        .mark_point(filled=True, size=40, color="black")
        .encode(
            x=alt.X(
                "rating:Q",
                scale=x_scale,
                title=f"{name}, bootstrap {bt.confidence:.0%} interval" if with_ci else name,
            ),
            y=y,
            tooltip=tooltip,
        )
    )
    anchor = f", {bt.anchor} = {1000 if bt.scale == 'elo' else 0}" if bt.anchor else ""
    default = (
        f"Bradley-Terry {name}s ({bt.n_items} items, {bt.n_resamples} bootstrap resamples{anchor})"
    )
    # a title of the caller's (the dataset and metric) keeps the default as its subtitle
    return alt.layer(*layers).properties(
        title=alt.TitleParams(title, subtitle=default) if title else default,
        width=WIDTH,
        height=_height(len(records)),
    )


def _cd_values(res: FriedmanNemenyiResult) -> dict[str, list[dict[str, Any]]]:
    """Rows of the CD diagram in (average rank, row) coordinates; row 0 is the axis,
    rows grow downwards."""
    order = np.argsort(res.average_ranks, kind="stable")
    k = len(order)
    ranks = [float(res.average_ranks[i]) for i in order]
    names = [res.systems[i] for i in order]
    lo, hi = 1.0, float(k)
    n_groups = len(res.groups)
    first = 1.0 + 0.5 * n_groups  # first label row, below the bars
    half = (k + 1) // 2
    systems, elbows = [], []
    for j, (s, r) in enumerate(zip(names, ranks)):
        left = j < half
        row = first + (j if left else k - 1 - j)
        end = lo if left else hi
        systems.append(
            {
                "system": s,
                "average_rank": r,
                "position": j + 1,
                "row": row,
                "label_x": end,
                "side": "left" if left else "right",
            }
        )
        elbows.append({"system": s, "x": r, "y": 0.0, "x2": r, "y2": row})
        elbows.append({"system": s, "x": r, "y": row, "x2": end, "y2": row})
    index = dict(zip(names, ranks))
    bars = []
    for g, members in enumerate(res.groups):
        rs = [index[m] for m in members]
        bars.append(
            {
                "group": g + 1,
                "members": ", ".join(members),
                "x": min(rs),
                "x2": max(rs),
                "y": 0.5 + 0.5 * g,
            }
        )
    cd = float(res.critical_difference)
    cd_rows = [
        {"x": lo, "x2": lo + cd, "y": -0.8, "label": f"CD = {cd:.3g}", "critical_difference": cd}
    ]
    return {"systems": systems, "elbows": elbows, "bars": bars, "cd": cd_rows}


def critical_difference_chart(
    friedman_nemenyi_result: FriedmanNemenyiResult, *, title: str | None = None
) -> alt.LayerChart:
    """Critical-difference diagram (Demšar 2006, Fig. 1) of a Friedman–Nemenyi result.

    Parameters
    ----------
    friedman_nemenyi_result
        :func:`~reportgen.stats.aggregation.friedman_nemenyi` result.
    title
        Chart title; default gives the Friedman p-value and the CD.

    Returns
    -------
    alt.LayerChart
        Layers: the CD length (``rule`` from rank 1 to 1 + CD above the axis) and its
        label (``text``), elbow lines from each system's average rank on the axis to its
        label (``rule``), thick bars joining each group of ``groups`` — systems whose
        average ranks differ by less than CD (``rule``) — system labels on the left
        (best half) and right (``text``, with the average rank), and the average ranks
        on the axis (``point``). The x axis (on top) is the average rank, 1 = best at
        the left.
    """
    res = friedman_nemenyi_result
    if not isinstance(res, FriedmanNemenyiResult):
        raise InputError(
            f"expected FriedmanNemenyiResult, got {type(res).__name__}",
            hint="build it with reportgen.stats.aggregation.friedman_nemenyi",
        )
    v = _cd_values(res)
    k = len(res.systems)
    rows = max((r["row"] for r in v["systems"]), default=1.0)
    x_scale = alt.Scale(domain=[1, k], nice=False)
    y_scale = alt.Scale(domain=[-1.8, rows + 0.5], reverse=True, nice=False)
    x = alt.X(
        "x:Q",
        scale=x_scale,
        axis=alt.Axis(
            orient="top",
            title="average rank (1 = best)",
            values=list(range(1, k + 1)),
            grid=False,
            format="d",
        ),
    )
    y = alt.Y("y:Q", scale=y_scale, axis=None)
    cd = alt.Chart(inline_data(v["cd"]))
    elbows = alt.Chart(inline_data(v["elbows"]))
    labels = alt.Chart(
        inline_data(
            [{**r, "label": f"{r['system']} ({r['average_rank']:.2f})"} for r in v["systems"]]
        )
    )
    layers = [
        cd.mark_rule(strokeWidth=2).encode(
            x=x,
            x2=alt.X2("x2:Q"),
            y=y,
            tooltip=[alt.Tooltip("critical_difference:Q", format=".4g")],
        ),
        cd.mark_text(align="left", baseline="bottom", dy=-3).encode(
            x=alt.X("x:Q"), y=y, text=alt.Text("label:N")
        ),
        elbows.mark_rule(strokeWidth=1).encode(x=x, y=y, x2=alt.X2("x2:Q"), y2=alt.Y2("y2:Q")),
    ]
    if v["bars"]:
        layers.append(
            alt.Chart(inline_data(v["bars"]))
            .mark_rule(strokeWidth=5, strokeCap="round")
            .encode(x=x, x2=alt.X2("x2:Q"), y=y, tooltip=[alt.Tooltip("members:N")])
        )
    for side, align, dx in (("left", "right", -6), ("right", "left", 6)):
        layers.append(
            labels.transform_filter(alt.datum.side == side)
            .mark_text(align=align, baseline="middle", dx=dx, limit=LABEL_LIMIT)
            .encode(
                x=alt.X("label_x:Q", scale=x_scale),
                y=alt.Y("row:Q", scale=y_scale, axis=None),
                text=alt.Text("label:N"),
                tooltip=[alt.Tooltip("system:N"), alt.Tooltip("average_rank:Q", format=".3f")],
            )
        )
    layers.append(
        labels.mark_point(filled=True, size=30, color="black").encode(
            x=alt.X("average_rank:Q", scale=x_scale),
            y=alt.YDatum(0, scale=y_scale, axis=None),
            tooltip=[alt.Tooltip("system:N"), alt.Tooltip("average_rank:Q", format=".3f")],
        )
    )
    p_text = fmt.p_equals(float(res.p_value))
    # the details go in a subtitle: a chart title is cut at 60 characters
    subtitle = (
        f"Friedman {p_text}; Nemenyi CD = {res.critical_difference:.3g} at "
        f"α = {res.alpha:g}; {res.n_blocks} blocks"
    )
    return alt.layer(*layers).properties(
        title=alt.TitleParams(title or "Critical difference diagram", subtitle=subtitle),
        # 60 px per rank up to a page's width: 37 systems drew 2,160 px, shrunk to
        # unreadable type in the PDF (the names sit at the sides, not under the ranks)
        width=min(CD_MAX_WIDTH, max(300, 60 * (k - 1))),
        height=int(22 * (rows + 2.3)),
    )

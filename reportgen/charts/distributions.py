"""Distribution charts (Ackerman et al. 2025, §3): boxplots of each system's item scores, and the
bootstrap distribution of each system's rank.

==================================  =====================================================
builder                             what it shows
==================================  =====================================================
:func:`distribution_chart`          per system: min–max rule, q1–q3 bar, median tick and
                                    mean point of the observed item scores
:func:`rank_distribution_chart`     per system: P(rank = r) as shaded cells, the
                                    percentile rank interval as a rule, the median rank
                                    as a tick and the observed rank as a point
==================================  =====================================================

Systems are on the y axis (long names stay legible), best at the top. Only summaries are
plotted: five quantiles and the mean per system, or the non-zero rank probabilities, so
the specs stay small. No theme is applied here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import altair as alt
import numpy as np

from reportgen.charts.render import inline_data
from reportgen.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from reportgen.stats.means import BootstrapMeans
from reportgen.stats.ranking import RankDistributions

__all__ = ["distribution_chart", "distribution_summary", "rank_distribution_chart"]

_LABEL_LIMIT = 600
_STEP = 16  # pixels per system on the y axis


def _direction_iv(direction: str) -> str:
    if direction not in ("higher", "lower"):
        raise InputError(
            f"direction={direction!r} is not valid",
            hint="use 'higher' (higher scores are better) or 'lower'",
        )
    return direction


def distribution_summary(
    values_by_system: Mapping[str, Sequence[float] | np.ndarray],
    *,
    direction: str = "higher",
    group: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One row per system, best mean first: ``system``, ``n``, ``min``, ``q1``,
    ``median``, ``q3``, ``max``, ``mean`` (numpy linear quantiles, NaN dropped), ``order``
    (0 = best) and, with ``group``, the system's ``group`` label."""
    direction = _direction_iv(direction)
    if not values_by_system:
        raise InputError("no systems to plot")
    rows = []
    for name, values in values_by_system.items():
        x = np.asarray(values, dtype=np.float64).ravel()
        x = x[~np.isnan(x)]
        if x.size == 0:
            raise InputError(f"system {name!r} has no scores")
        q = np.quantile(x, [0.0, 0.25, 0.5, 0.75, 1.0])
        row: dict[str, Any] = {
            "system": str(name),
            "n": int(x.size),
            "min": float(q[0]),
            "q1": float(q[1]),
            "median": float(q[2]),
            "q3": float(q[3]),
            "max": float(q[4]),
            "mean": float(x.mean()),
        }
        if group is not None:
            label = group.get(name)
            row["group"] = "(no group)" if label is None else str(label)
        rows.append(row)
    sign = -1.0 if direction == "higher" else 1.0
    order = sorted(range(len(rows)), key=lambda i: (sign * rows[i]["mean"], i))
    rows = [rows[i] for i in order]
    for k, row in enumerate(rows):
        row["order"] = k
    return rows


def distribution_chart(
    values_by_system: Mapping[str, Sequence[float] | np.ndarray],
    *,
    metric: str,
    direction: str = "higher",
    group: Mapping[str, str] | None = None,
    title: str | None = None,
) -> alt.LayerChart:
    """Boxplots of the observed item scores of each system (Ackerman et al. 2025, §3, option 1).

    Parameters
    ----------
    values_by_system
        System name → its item scores (one score per item; NaN ignored).
    metric
        Name of the metric (x-axis title).
    direction
        ``"higher"`` if higher scores are better, else ``"lower"``: systems are ordered
        by mean, best at the top.
    group
        Optional system → group label; boxes are coloured by group (systems missing from
        the mapping get ``"(no group)"``).
    title
        Chart title; default ``"Item scores of each system: <metric>"``.

    Returns
    -------
    alt.LayerChart
        Layers: min–max ``rule``, q1–q3 ``bar``, median ``tick``, mean ``point``. The data
        are the rows of :func:`distribution_summary`, inline.
    """
    rows = distribution_summary(values_by_system, direction=direction, group=group)
    order = [r["system"] for r in rows]
    y = alt.Y(
        "system:N",
        scale=alt.Scale(domain=order),
        title=None,
        axis=alt.Axis(labelLimit=_LABEL_LIMIT),
    )
    tooltip = [
        alt.Tooltip("system:N"),
        alt.Tooltip("n:Q"),
        alt.Tooltip("mean:Q", format=".4g"),
        alt.Tooltip("min:Q", format=".4g"),
        alt.Tooltip("q1:Q", format=".4g"),
        alt.Tooltip("median:Q", format=".4g"),
        alt.Tooltip("q3:Q", format=".4g"),
        alt.Tooltip("max:Q", format=".4g"),
    ]
    if group is not None:
        tooltip.insert(1, alt.Tooltip("group:N"))
        colour: Any = alt.Color("group:N", title="group")
    else:
        colour = alt.ColorValue("#4c78a8")
    base = alt.Chart(inline_data(rows)).encode(y=y, tooltip=tooltip)
    whisker = base.mark_rule(color="#555555").encode(
        x=alt.X("min:Q", title=metric, scale=alt.Scale(zero=False)), x2=alt.X2("max:Q")
    )
    box = base.mark_bar(size=max(4, _STEP - 6)).encode(
        x=alt.X("q1:Q"), x2=alt.X2("q3:Q"), color=colour
    )
    median = base.mark_tick(color="black", thickness=2, size=max(4, _STEP - 4)).encode(
        x=alt.X("median:Q")
    )
    mean = base.mark_point(shape="diamond", filled=True, color="black", size=30).encode(
        x=alt.X("mean:Q")
    )
    better = "higher" if direction == "higher" else "lower"
    return alt.layer(whisker, box, median, mean).properties(
        title=alt.Title(
            title or f"Item scores of each system: {metric}",
            subtitle=f"ordered by mean ({better} is better); box q1–q3, "
            "tick median, diamond mean, rule min–max",
        ),
        width=400,
        height=alt.Step(_STEP),
    )


def bootstrap_mean_chart(
    bootstrap_means: BootstrapMeans,
    *,
    metric: str,
    direction: str = "higher",
    group: Mapping[str, str] | None = None,
    title: str | None = None,
) -> alt.LayerChart:
    """Boxplots of the bootstrap distribution of each system's mean, with its percentile
    interval as a red rule (Ackerman et al. 2025, §3, option 2).

    The replicates are summarised into quantiles before plotting (one row per system);
    the layers and ordering are those of :func:`distribution_chart`.
    """
    values = {
        s: bootstrap_means.replicates[:, j]
        for j, s in enumerate(bootstrap_means.systems)
        if not np.isnan(bootstrap_means.replicates[:, j]).all()
    }
    boxes = distribution_chart(
        values,
        metric=f"mean {metric}",
        direction=direction,
        group=group,
        title=title or f"Bootstrap distribution of the mean: {metric}",
    )
    order = [r["system"] for r in distribution_summary(values, direction=direction)]
    ci_rows = [
        {"system": r["system"], "ci_low": r["ci_low"], "ci_high": r["ci_high"]}
        for r in bootstrap_means.to_records()
        if r["system"] in values
    ]
    level = round(100 * bootstrap_means.confidence)
    ci = (
        alt.Chart(inline_data(ci_rows))
        .mark_rule(color="#d62728", strokeWidth=2)
        .encode(
            y=alt.Y(
                "system:N",
                scale=alt.Scale(domain=order),
                title=None,
                axis=alt.Axis(labelLimit=_LABEL_LIMIT),
            ),
            x=alt.X("ci_low:Q"),
            x2=alt.X2("ci_high:Q"),
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("ci_low:Q", format=".4g"),
                alt.Tooltip("ci_high:Q", format=".4g"),
            ],
        )
    )
    return alt.layer(boxes, ci).properties(
        title=alt.Title(
            title or f"Bootstrap distribution of the mean: {metric}",
            subtitle=f"{bootstrap_means.n_resamples} resamples; red: "
            f"{level}% percentile interval; box q1–q3, tick median, "
            "rule min–max",
        )
    )


def rank_distribution_chart(
    rank_distributions_result: RankDistributions, *, title: str | None = None
) -> alt.LayerChart:
    """Bootstrap rank distribution of each system (Ackerman et al. 2025, §3, option 3).

    Parameters
    ----------
    rank_distributions_result
        A :class:`reportgen.stats.ranking.RankDistributions`.
    title
        Chart title; default ``"Bootstrap rank distribution of each system"``.

    Returns
    -------
    alt.LayerChart
        Layers: one ``rect`` per (system, rank) with P(rank) > 0, shaded by probability;
        a ``rule`` over the percentile rank interval; a ``tick`` at the median rank; a
        ``point`` at the observed rank. Systems are on the y axis in
        ``RankDistributions.order()`` (best at the top); ranks on the x axis (1 = best).
    """
    res = rank_distributions_result
    probs = res.probabilities()
    order = list(res.order())
    B = len(res.systems)
    cells = []
    for i, s in enumerate(res.systems):
        for r in np.flatnonzero(probs[i] > 0):
            cells.append(
                {
                    "system": s,
                    "rank": int(r + 1),
                    "rank_start": float(r + 0.5),
                    "rank_end": float(r + 1.5),
                    "probability": float(probs[i, r]),
                }
            )
    summary = [
        {
            "system": s,
            "rank": int(res.rank[i]),
            "median_rank": int(res.median_rank[i]),
            "mean_rank": float(res.mean_rank[i]),
            "p_best": float(res.p_best[i]),
            "ci_low": int(res.ci_low[i]),
            "ci_high": int(res.ci_high[i]),
            "mean": None if np.isnan(res.mean[i]) else float(res.mean[i]),
        }
        for i, s in enumerate(res.systems)
    ]
    y = alt.Y(
        "system:N",
        scale=alt.Scale(domain=order),
        title=None,
        axis=alt.Axis(labelLimit=_LABEL_LIMIT),
    )
    x_scale = alt.Scale(domain=[0.5, B + 0.5], nice=False, zero=False)
    ticks = list(range(1, B + 1)) if B <= 30 else [1, *range(5, B + 1, 5)]
    x_axis = alt.Axis(values=ticks, format="d")
    heat = (
        alt.Chart(inline_data(cells))
        .mark_rect()
        .encode(
            x=alt.X("rank_start:Q", scale=x_scale, axis=x_axis, title="rank (1 = best)"),
            x2=alt.X2("rank_end:Q"),
            y=y,
            color=alt.Color(
                "probability:Q", title="P(rank)", scale=alt.Scale(scheme="greys", domain=[0, 1])
            ),
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("rank:O"),
                alt.Tooltip("probability:Q", format=".3f"),
            ],
        )
    )
    base = alt.Chart(inline_data(summary)).encode(
        y=y,
        tooltip=[
            alt.Tooltip("system:N"),
            alt.Tooltip("rank:Q", title="observed rank"),
            alt.Tooltip("median_rank:Q", format=".3~g"),
            alt.Tooltip("mean_rank:Q", format=".2f"),
            alt.Tooltip("ci_low:Q"),
            alt.Tooltip("ci_high:Q"),
            alt.Tooltip("p_best:Q", format=".3f"),
        ],
    )
    interval = base.mark_rule(color="#d62728", strokeWidth=2).encode(
        x=alt.X("ci_low:Q"), x2=alt.X2("ci_high:Q")
    )
    median = base.mark_tick(color="#d62728", thickness=2, size=max(4, _STEP - 4)).encode(
        x=alt.X("median_rank:Q")
    )
    observed = base.mark_point(shape="diamond", filled=True, color="#1f77b4", size=30).encode(
        x=alt.X("rank:Q")
    )
    level = f"{round(res.confidence * 100, 4):g}%"
    return alt.layer(heat, interval, median, observed).properties(
        title=alt.Title(
            title or "Bootstrap rank distribution of each system",
            subtitle=f"{res.n_resamples} resamples; shade P(rank), red rule "
            f"{level} percentile interval, red tick median rank, "
            "blue diamond observed rank",
        ),
        width=max(300, min(900, 12 * B)),
        height=alt.Step(_STEP),
    )

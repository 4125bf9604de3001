"""The release view: candidate − baseline differences with their intervals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt

from reportgen.charts.render import inline_data
from reportgen.errors import InputError

__all__ = ["VERDICT_COLOURS", "forest_plot"]

#: Colour of each verdict (any other verdict is drawn grey).
VERDICT_COLOURS: dict[str, str] = {
    "improved": "#1b7837",
    "regressed": "#b2182b",
    "no detectable difference": "#7f7f7f",
    "inconclusive": "#e08214",
    "non-inferior": "#5aae61",
}


def forest_plot(
    rows: Sequence[Mapping[str, Any]], *, verdict_key: str = "verdict", title: str | None = None
) -> alt.FacetChart:
    """Forest plot of candidate − baseline per dataset × metric, coloured by verdict.

    Parameters
    ----------
    rows
        One mapping per dataset × metric with ``dataset``, ``metric``, ``diff``,
        ``ci_low``, ``ci_high`` and the verdict under ``verdict_key`` (e.g. the
        comparison rows of results.json for the baseline against the candidate, with a
        verdict added); optional ``direction`` and ``mde`` are shown in the tooltip,
        and an optional ``margin`` δ is drawn as a tick at the largest loss it accepts
        (−δ when higher is better, +δ when lower is better). A
        row with a true ``proportion`` is drawn in percentage points (× 100), as the
        report's tables show it.

    Returns
    -------
    alt.FacetChart
        One panel per metric (metrics have their own units, so each panel has its own x
        scale), datasets on the y axis, the difference as a point, its interval as a
        rule, and a dashed rule at 0.
    """
    if not rows:
        raise InputError("no comparisons to plot")
    data = []
    for row in rows:
        missing = [k for k in ("dataset", "metric", "diff", "ci_low", "ci_high") if k not in row]
        if missing:
            raise InputError(
                f"a forest-plot row lacks {', '.join(missing)}",
                hint="rows need dataset, metric, diff, ci_low and ci_high",
            )
        scale = 100.0 if row.get("proportion") else 1.0
        data.append(
            {
                "dataset": str(row["dataset"]),
                "metric": str(row["metric"]),
                **{
                    k: None if row.get(k) is None else scale * float(row[k])
                    for k in ("diff", "ci_low", "ci_high", "mde")
                },
                "verdict": str(row.get(verdict_key) or "no verdict"),
                "direction": row.get("direction", "higher"),
            }
        )
        margin = row.get("margin")
        # the loss the margin allows: −δ when higher is better, +δ when lower is
        data[-1]["margin"] = (
            None
            if margin is None
            else scale * float(margin) * (-1.0 if data[-1]["direction"] == "higher" else 1.0)
        )
    proportions = [bool(row.get("proportion")) for row in rows]
    unit = " (pts)" if all(proportions) else (" (pts for proportions)" if any(proportions) else "")
    verdicts = sorted(
        {d["verdict"] for d in data},
        key=lambda v: (
            list(VERDICT_COLOURS).index(v) if v in VERDICT_COLOURS else len(VERDICT_COLOURS)
        ),
    )
    colour = alt.Color(
        "verdict:N",
        title="verdict",
        scale=alt.Scale(
            domain=verdicts, range=[VERDICT_COLOURS.get(v, "#bbbbbb") for v in verdicts]
        ),
    )
    base = alt.Chart().encode(
        y=alt.Y("dataset:N", title=None, axis=alt.Axis(labelLimit=300)),
        tooltip=[
            alt.Tooltip("dataset:N"),
            alt.Tooltip("metric:N"),
            alt.Tooltip("diff:Q", format="+.4g"),
            alt.Tooltip("ci_low:Q", format=".4g"),
            alt.Tooltip("ci_high:Q", format=".4g"),
            alt.Tooltip("verdict:N"),
            alt.Tooltip("direction:N", title="better"),
            alt.Tooltip("mde:Q", format=".4g", title="MDE"),
        ],
    )
    zero = alt.Chart().mark_rule(strokeDash=[4, 3], color="#555555").encode(x=alt.datum(0))
    interval = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("ci_low:Q", title=f"candidate − baseline{unit}"),
        x2=alt.X2("ci_high:Q"),
        color=colour,
    )
    point = base.mark_point(filled=True, size=60).encode(x=alt.X("diff:Q"), color=colour)
    layers = [zero, interval, point]
    margins = any(d["margin"] is not None for d in data)
    if margins:
        layers.append(
            base.mark_tick(color="#333333", thickness=2, size=16)
            .encode(x=alt.X("margin:Q"))
            .transform_filter("isValid(datum.margin)")
        )
    return (
        alt.layer(*layers, data=inline_data(data))
        .properties(width=360, height=alt.Step(22))
        .facet(
            row=alt.Row("metric:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left"))
        )
        .resolve_scale(x="independent", y="independent")
        .properties(
            title=alt.Title(
                title or "Candidate − baseline",
                subtitle="point: difference; bar: confidence interval; dashed: no "
                "difference; colour: verdict"
                + ("; tick: the largest loss the margin accepts" if margins else ""),
            )
        )
    )

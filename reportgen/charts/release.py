"""The release view: candidate − baseline differences with their intervals."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt

from reportgen.analysis.release import ReleaseVerdict
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


def forest_plot(verdicts: Sequence[ReleaseVerdict], *, title: str | None = None) -> alt.FacetChart:
    """Forest plot of candidate − baseline per dataset × metric, coloured by verdict:
    each verdict drawn with what it is read off.

    Parameters
    ----------
    verdicts
        The release's verdicts (:class:`reportgen.analysis.ReleaseVerdict`). Each is
        drawn as its difference (a point) and the interval improved, regressed and no
        detectable difference are read off (a bar: the release's simultaneous interval,
        :meth:`~reportgen.analysis.ReleaseVerdict.decided_interval`); a verdict at a
        margin also shows the unadjusted one-sided bound non-inferiority is read off
        (an open diamond, :meth:`~reportgen.analysis.ReleaseVerdict.ni_interval`) and
        the largest loss the margin accepts (a tick: −δ when higher is better, +δ when
        lower is). Proportions are drawn in percentage points (× 100), as the report's
        tables show them.
    title
        The chart's title.

    Returns
    -------
    alt.FacetChart
        One panel per metric (metrics have their own units, so each panel has its own x
        scale), datasets on the y axis, and a dashed rule at 0.
    """
    if not verdicts:
        raise InputError("no comparisons to plot")
    data = []
    for v in verdicts:
        scale = 100.0 if v.proportion else 1.0
        decided = v.decided_interval()
        bound = v.ni_interval()
        ni = None if bound is None else (bound.low if bound.low is not None else bound.high)

        def scaled(x: float | None, scale: float = scale) -> float | None:
            return None if x is None else scale * float(x)

        data.append(
            {
                "dataset": str(v.dataset),
                "metric": str(v.metric),
                "diff": scaled(v.diff),
                "ci_low": scaled(decided.low),
                "ci_high": scaled(decided.high),
                "mde": scaled(v.mde),
                "ni_bound": scaled(ni),
                "verdict": str(v.verdict),
                "direction": v.direction,
                # the loss the margin allows: −δ when higher is better, +δ when lower is
                "margin": None
                if v.margin is None
                else scale * float(v.margin) * (-1.0 if v.direction == "higher" else 1.0),
            }
        )
    proportions = [bool(v.proportion) for v in verdicts]
    unit = " (pts)" if all(proportions) else (" (pts for proportions)" if any(proportions) else "")
    names = sorted(
        {str(d["verdict"]) for d in data},
        key=lambda v: (
            list(VERDICT_COLOURS).index(v) if v in VERDICT_COLOURS else len(VERDICT_COLOURS)
        ),
    )
    colour = alt.Color(
        "verdict:N",
        title="verdict",
        scale=alt.Scale(domain=names, range=[VERDICT_COLOURS.get(v, "#bbbbbb") for v in names]),
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
            alt.Tooltip("ni_bound:Q", format="+.4g", title="one-sided bound"),
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
        layers.append(
            base.mark_point(shape="diamond", filled=False, size=70, strokeWidth=1.5)
            .encode(x=alt.X("ni_bound:Q"), color=colour)
            .transform_filter("isValid(datum.ni_bound)")
        )
    level = next((b.level for v in verdicts if (b := v.ni_interval()) is not None), None)
    subtitle = (
        "point: difference; bar: the release's simultaneous interval (improved, regressed "
        "and no detectable difference are read off it); dashed: no difference; colour: verdict"
    )
    if margins:
        shown = "" if level is None else f" {100 * level:.3g}%"
        subtitle += (
            f"; diamond: the unadjusted one-sided{shown} bound non-inferiority is read off; "
            "tick: the largest loss the margin accepts"
        )
    return (
        alt.layer(*layers, data=inline_data(data))
        .properties(width=360, height=alt.Step(22))
        .facet(
            row=alt.Row("metric:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left"))
        )
        .resolve_scale(x="independent", y="independent")
        .properties(title=alt.Title(title or "Candidate − baseline", subtitle=subtitle))
    )

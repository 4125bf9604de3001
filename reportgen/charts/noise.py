"""Charts of the noise of a benchmark: eval-arena's two pair figures (Wang et al. 2024), the
interval width against the runs used (Fraile-Hernández & Peñas (2025)), power / MDE curves, the item
difficulty histogram and TOPSIS against an aggregate score.

Every builder takes a result object of :mod:`reportgen.stats` and returns an Altair
spec (an ``alt.Chart``, or an ``alt.LayerChart`` when reference lines are layered over
the data). No statistic is recomputed here: the data are the result objects' numbers,
only rescaled for display (shares → %) or filtered (undefined values dropped). No theme
is applied.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np

from reportgen.charts.render import inline_data
from reportgen.errors import InputError
from reportgen.plaintext import count
from reportgen.stats.leaderboard import ItemAnalysis
from reportgen.stats.noise import P5_ALPHA, NoiseProfile
from reportgen.stats.power import PowerCurve
from reportgen.stats.ranking import TopsisResult
from reportgen.stats.runs import RunsWidthResult

__all__ = [
    "ci_width_by_runs_chart",
    "difference_vs_sum_chart",
    "difficulty_histogram_chart",
    "power_curve_chart",
    "pvalue_vs_difference_chart",
    "topsis_scatter",
]

#: Levels drawn as reference lines in the p-value chart (eval-arena's levels).
ALPHA_LINES: tuple[float, ...] = (0.05, 0.1, 0.2)

#: Above this many systems a per-system colour legend is dropped (lines stay grey,
#: names are in the tooltips).
MAX_LEGEND_SYSTEMS: int = 12

_LABEL_LIMIT = 400


def _finite(value: Any) -> bool:
    return value is not None and math.isfinite(float(value))


def _pct(value: float) -> float:
    return 100.0 * float(value)


# ============================================================================ Wang et al. (2024)


def _pair_rows(noise_profile: NoiseProfile) -> tuple[list[dict[str, Any]], int]:
    """The pairs of :func:`pvalue_vs_difference_chart` with a positive p and a finite
    difference, and how many others were left out."""
    rows: list[dict[str, Any]] = []
    dropped = 0
    for r in noise_profile.pair_records():
        p, d = r["p_value"], r["abs_diff"]
        if not (_finite(p) and p > 0 and _finite(d)):
            dropped += 1
            continue
        rows.append(
            {
                "system_a": r["system_a"],
                "system_b": r["system_b"],
                "abs_diff_pct": _pct(d),
                "abs_diff_items": r["abs_diff_items"],
                "p_value": p,
                "a_wins": r["a_wins"],
                "b_wins": r["b_wins"],
                "significant": "p < 0.05" if r["significant"] else "p ≥ 0.05",
            }
        )
    return rows, dropped


#: The most ticks of a log p-value axis; more powers of ten are labelled every k-th.
MAX_LOG_TICKS = 8


def log_p_axis(values: Sequence[float], *, title: str | None = None) -> alt.Axis:
    """An axis of p-values on a log scale with one kind of label: a tick at every
    k-th power of ten from 1 down to the smallest value (at most
    :data:`MAX_LOG_TICKS`), each written ``1e−k`` (Vega's default wrote "0.00001" and
    "1e-45" on one axis).

    >>> log_p_axis([0.5, 3e-12]).to_dict()["values"]
    [1.0, 0.01, 0.0001, 1e-06, 1e-08, 1e-10, 1e-12]
    """
    small = min((v for v in values if math.isfinite(v) and v > 0), default=0.01)
    deepest = max(1, math.ceil(-math.log10(small)))
    step = max(1, math.ceil(deepest / (MAX_LOG_TICKS - 1)))
    ticks = [10.0**-k for k in range(0, deepest + 1, step)]
    label = "datum.value >= 1 ? '1' : replace(format(datum.value, '.0e'), '-', '\u2212')"
    axis = alt.Axis(values=ticks, labelExpr=label)
    if title is not None:
        axis.title = title
    return axis


def pvalue_vs_difference_chart(
    noise_profile: NoiseProfile,
    *,
    alphas: Sequence[float] = ALPHA_LINES,
    width: int = 520,
    height: int = 340,
    title: str | None = None,
) -> alt.LayerChart:
    """p-value against the difference of every pair (eval-arena, Wang et al. 2024).

    x = ``|diff|`` in percentage points (``100 * abs_diff`` of
    :meth:`NoiseProfile.pair_records`), y = the exact test's p-value on a log scale;
    horizontal rules at ``alphas`` and vertical rules at ``p5_min`` and ``p5_max``
    (when defined). Pairs with a p-value of 0 (underflow) or undefined cannot be shown
    on a log scale and are left out; the subtitle says how many. ``title`` replaces the
    default title (the report's names the dataset and metric).
    """
    rows, dropped = _pair_rows(noise_profile)
    points = (
        alt.Chart(inline_data(rows))
        .mark_circle(size=22, opacity=0.55)
        .encode(
            x=alt.X(
                "abs_diff_pct:Q",
                title="|A − B| (pts)",
                scale=alt.Scale(zero=True),
            ),
            y=alt.Y(
                "p_value:Q",
                title="p-value (exact test, log scale)",
                scale=alt.Scale(type="log"),
                axis=log_p_axis([r["p_value"] for r in rows] + list(alphas)),
            ),
            color=alt.Color(
                "significant:N", title=f"at α = {P5_ALPHA:g}", sort=["p < 0.05", "p ≥ 0.05"]
            ),
            tooltip=[
                alt.Tooltip("system_a:N", title="system A"),
                alt.Tooltip("system_b:N", title="system B"),
                alt.Tooltip("abs_diff_pct:Q", title="|A − B| (pts)", format=".2f"),
                alt.Tooltip("abs_diff_items:Q", title="|diff| (items)", format=".4~g"),
                alt.Tooltip("a_wins:Q", title="A wins", format=".4~g"),
                alt.Tooltip("b_wins:Q", title="B wins", format=".4~g"),
                alt.Tooltip("p_value:Q", title="p-value", format=".3g"),
            ],
        )
    )
    alpha_rows = [{"alpha": float(a), "label": f"α = {float(a):g}"} for a in alphas]
    alpha_order = [str(r["label"]) for r in alpha_rows]
    alpha_rules = (
        alt.Chart(inline_data(alpha_rows))
        .mark_rule(color="gray")
        .encode(
            y=alt.Y("alpha:Q"),
            strokeDash=alt.StrokeDash("label:N", title="level", sort=alpha_order),
            tooltip=[alt.Tooltip("label:N", title="level")],
        )
    )
    p5_rows = [
        {
            "name": name,
            "value_pct": _pct(v),
            "label": f"{name} = {_pct(v):.2f}% (≈ {items:.1f} items)",
        }
        for name, v, items in (
            ("p5_min", noise_profile.p5_min, noise_profile.p5_min_items),
            ("p5_max", noise_profile.p5_max, noise_profile.p5_max_items),
        )
        if _finite(v)
    ]
    p5_base = alt.Chart(inline_data(p5_rows))
    p5_rules = p5_base.mark_rule(color="black").encode(
        x=alt.X("value_pct:Q"), tooltip=[alt.Tooltip("label:N", title="")]
    )
    subtitle = [
        (
            f"{count(noise_profile.n_pairs, 'pair')} of "
            f"{count(noise_profile.n_systems, 'system')}, "
            f"n = {count(noise_profile.n_items, 'item')}; {noise_profile.test}"
        )
    ]
    if p5_rows:  # named here, not written over the points
        subtitle.append("black lines: " + ", ".join(str(r["label"]) for r in p5_rows))
    if dropped:
        subtitle.append(f"{count(dropped, 'pair')} with p = 0 or undefined not shown")
    return (
        alt.layer(points, alpha_rules, p5_rules)
        .resolve_scale(strokeDash="independent")
        .properties(
            width=width,
            height=height,
            title=alt.TitleParams(title or "p-value vs difference of each pair", subtitle=subtitle),
        )
    )


def difference_vs_sum_chart(
    noise_profile: NoiseProfile,
    *,
    max_total: int | None = None,
    width: int = 520,
    height: int = 340,
    title: str | None = None,
) -> alt.LayerChart:
    """``|A − B|`` against ``A + B`` (the discordant counts, or wins and losses) of every
    pair, with the exact sign test's boundary for each α of ``boundary_records()``
    (eval-arena, Wang et al. 2024): a pair above the curve of α has p < α.

    The boundary is drawn for totals ``0..max_total`` (default: the largest ``A + B``
    of a pair plus 10 %, at most n), so the curves span the points, not all n items.
    ``title`` replaces the default title (the report's names the dataset and metric).
    """
    pairs = noise_profile.pair_records()
    rows = [
        {
            "system_a": r["system_a"],
            "system_b": r["system_b"],
            "sum_wins": r["sum_wins"],
            "abs_diff_wins": r["abs_diff_wins"],
            "a_wins": r["a_wins"],
            "b_wins": r["b_wins"],
            "p_value": r["p_value"],
        }
        for r in pairs
    ]
    if max_total is None:
        top = max((r["sum_wins"] for r in rows), default=0)
        max_total = min(noise_profile.n_items, math.ceil(top * 1.1) + 1)
    bounds = [
        {
            "alpha": b["alpha"],
            "level": f"α = {b['alpha']:g}",
            "sum_wins": b["sum_wins"],
            "min_abs_diff_wins": b["min_abs_diff_wins"],
        }
        for b in noise_profile.boundary_records()
        if b["min_abs_diff_wins"] is not None and b["sum_wins"] <= max_total
    ]
    levels = [f"α = {a:g}" for a in noise_profile.boundary_alphas]
    points = (
        alt.Chart(inline_data(rows))
        .mark_circle(size=22, opacity=0.5, color="#4c78a8")
        .encode(
            x=alt.X("sum_wins:Q", title="A + B (items where exactly one system is better)"),
            y=alt.Y("abs_diff_wins:Q", title="|A − B| (items)"),
            tooltip=[
                alt.Tooltip("system_a:N", title="system A"),
                alt.Tooltip("system_b:N", title="system B"),
                alt.Tooltip("a_wins:Q", title="A", format=".4~g"),
                alt.Tooltip("b_wins:Q", title="B", format=".4~g"),
                alt.Tooltip("p_value:Q", title="p-value", format=".3g"),
            ],
        )
    )
    curves = (
        alt.Chart(inline_data(bounds))
        .mark_line(strokeWidth=1.5)
        .encode(
            x=alt.X("sum_wins:Q"),
            y=alt.Y("min_abs_diff_wins:Q"),
            color=alt.Color("level:N", sort=levels, title="exact test boundary"),
            tooltip=[
                alt.Tooltip("level:N", title="level"),
                alt.Tooltip("sum_wins:Q", title="A + B", format=".4~g"),
                alt.Tooltip(
                    "min_abs_diff_wins:Q", title="smallest significant |A − B|", format=".4~g"
                ),
            ],
        )
    )
    return alt.layer(points, curves).properties(
        width=width,
        height=height,
        title=alt.TitleParams(
            title or "|A − B| vs A + B of each pair",
            subtitle=[
                (f"{noise_profile.n_pairs} pairs; above a curve: p < α (two-sided exact sign test)")
            ],
        ),
    )


# ================================================================ Fraile-Hernández & Peñas 2025


def ci_width_by_runs_chart(
    runs_width_result: RunsWidthResult,
    *,
    width: int = 420,
    height: int = 300,
    proportion: bool = False,
) -> alt.Chart:
    """Interval width against the number of runs used, one line per system
    (Fraile-Hernández & Peñas 2025). With ``proportion`` the widths are in percentage
    points and the means in percent, as the report's tables show them.

    Up to :data:`MAX_LEGEND_SYSTEMS` systems get a colour each; with more, the lines are
    grey and the system names are in the tooltips.
    """
    r = runs_width_result
    scale = 100.0 if proportion else 1.0
    rows = [
        {
            "system": x["system"],
            "runs": x["runs"],
            **{
                k: None if x[k] is None else scale * float(x[k])
                for k in ("width", "ci_low", "ci_high", "estimate")
            },
        }
        for x in r.to_records()
        if x["width"] is not None
    ]
    many = len(r.systems) > MAX_LEGEND_SYSTEMS
    color = (
        alt.ColorValue("gray")
        if many
        else alt.Color(
            "system:N",
            title="system",
            sort=list(r.systems),
            legend=alt.Legend(labelLimit=_LABEL_LIMIT),
        )
    )
    runs = [int(k) for k in r.runs]
    return (
        alt.Chart(inline_data(rows))
        .mark_line(point=True, opacity=0.6 if many else 1.0)
        .encode(
            x=alt.X(
                "runs:Q",
                title="runs used (first k)",
                # Altair's stubs leave out None, which it takes as "no domain"
                scale=alt.Scale(domain=[min(runs), max(runs)] if runs else None),  # type: ignore[arg-type]
                axis=alt.Axis(values=runs, format="d", tickMinStep=1),
            ),
            y=alt.Y(
                "width:Q",
                title=f"width of the {r.confidence:.0%} interval"
                + (" (pts)" if proportion else ""),
                scale=alt.Scale(zero=True),
            ),
            color=color,
            detail=alt.Detail("system:N"),
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("runs:Q", title="runs"),
                alt.Tooltip("width:Q", format=".4f"),
                alt.Tooltip("estimate:Q", title="mean", format=".4f"),
                alt.Tooltip("ci_low:Q", title="low", format=".4f"),
                alt.Tooltip("ci_high:Q", title="high", format=".4f"),
            ],
        )
        .properties(
            width=width,
            height=height,
            title=alt.TitleParams(
                "Interval width by the number of runs",
                subtitle=[
                    (f"{len(r.systems)} systems; {r.method} bootstrap, {r.n_resamples} resamples")
                ],
            ),
        )
    )


# ============================================================================ power


def _mde_curve_chart(
    power_curve: PowerCurve, proportion: bool, target: float, width: int, height: int
) -> alt.Chart:
    """The minimum detectable effect against n, for a curve solved for the effect."""
    pts = power_curve.points
    recs = power_curve.to_records()
    design = pts[0].design
    tp = pts[0].target_power
    scale = 100.0 if proportion else 1.0  # proportions: the MDE in points
    rows = [
        {"n": r["n"], "mde": scale * float(r["delta"]), "power": r["power"]}
        for r in recs
        if r["delta"] is not None and r["n"] is not None
    ]
    return (
        alt.Chart(inline_data(rows))
        .mark_line(point=True)
        .encode(
            # about 6 ticks: "900" and a flushed "1,000" overlapped at 11
            x=alt.X("n:Q", title="n (items)", axis=alt.Axis(tickCount=6)),
            y=alt.Y(
                "mde:Q",
                title="minimum detectable effect" + (" (pts)" if proportion else ""),
                scale=alt.Scale(zero=True),
            ),
            tooltip=[
                alt.Tooltip("n:Q", format=",.0f"),
                alt.Tooltip("mde:Q", title="MDE", format=".4f"),
                alt.Tooltip("power:Q", title="power reached", format=".3f"),
            ],
        )
        .properties(
            width=width,
            height=height,
            title=alt.TitleParams(
                "Minimum detectable effect by n",
                subtitle=[
                    (
                        f"{design}, α = {pts[0].alpha:g}, power "
                        f"{(tp if tp is not None else target):.0%}"
                    )
                ],
            ),
        )
    )


def power_curve_chart(
    power_curve: PowerCurve,
    *,
    target: float = 0.8,
    width: int = 420,
    height: int = 300,
    proportion: bool = False,
) -> alt.Chart | alt.LayerChart:
    """Power against n (one line per effect), or the MDE against n.

    A curve of :func:`~reportgen.stats.power.mde_curve` (every point solved for
    ``delta``) is drawn as MDE vs n, with its target power in the title. A curve of
    :func:`~reportgen.stats.power.power_curve` is drawn as power vs n, with a rule at
    ``target`` (80 %); if n is constant and the effect varies, x is the effect instead.
    """
    pts = power_curve.points
    if not pts:
        raise InputError("the power curve has no points")
    recs = power_curve.to_records()
    design = pts[0].design
    if all(p.solved_for == "delta" for p in pts):
        return _mde_curve_chart(power_curve, proportion, target, width, height)
    rows = [
        {
            "n": r["n"],
            "delta": r["delta"],
            "power": r["power"],
            "effect": f"Δ = {r['delta']:g}" if r["delta"] is not None else "Δ = ?",
        }
        for r in recs
        if r["power"] is not None and r["n"] is not None
    ]
    ns = {r["n"] for r in rows}
    deltas = {r["delta"] for r in rows}
    by_delta = len(ns) == 1 and len(deltas) > 1
    if by_delta:
        x = alt.X("delta:Q", title="effect (Δ)")
        color: Any = alt.ColorValue("#4c78a8")
        detail: Any = alt.Undefined
    else:
        x = alt.X("n:Q", title="n (items)", axis=alt.Axis(tickCount=6))
        if len(deltas) > 1:
            order = [f"Δ = {d:g}" for d in sorted(d for d in deltas if d is not None)]
            color = alt.Color("effect:N", title="effect", sort=order)
        else:
            color = alt.ColorValue("#4c78a8")
        detail = alt.Detail("effect:N")
    line = (
        alt.Chart(inline_data(rows))
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("power:Q", title="power", scale=alt.Scale(domain=[0, 1])),
            color=color,
            detail=detail,
            tooltip=[
                alt.Tooltip("n:Q", format=",.0f"),
                alt.Tooltip("delta:Q", title="Δ", format=".3~g"),
                alt.Tooltip("power:Q", format=".3f"),
            ],
        )
    )
    rule = (
        alt.Chart(inline_data([{"target": target, "label": f"power {target:.0%}"}]))
        .mark_rule(strokeDash=[4, 3], color="gray")
        .encode(y=alt.Y("target:Q"), tooltip=[alt.Tooltip("label:N", title="")])
    )
    sub = f"{design}, α = {pts[0].alpha:g}"
    if len(deltas) == 1 and not by_delta:
        sub += f", Δ = {next(iter(deltas)):g}"
    if by_delta:
        sub += f", n = {next(iter(ns)):g}"
    return alt.layer(line, rule).properties(
        width=width,
        height=height,
        title=alt.TitleParams("Power by effect" if by_delta else "Power by n", subtitle=[sub]),
    )


# ============================================================================ items


def difficulty_histogram_chart(
    item_analysis: ItemAnalysis, *, bins: int = 10, width: int = 420, height: int = 160
) -> alt.LayerChart:
    """Histogram of each item's mean score over the systems (for 0/1 scores, the share
    of systems solving it), from :meth:`ItemAnalysis.difficulty_histogram`, with the
    items solved by no system and by exactly one in the subtitle and count labels on
    the bars."""
    counts, edges = item_analysis.difficulty_histogram(bins)
    rows = [
        {
            "bin_start": _pct(edges[i]),
            "bin_end": _pct(edges[i + 1]),
            "count": int(counts[i]),
            "range": f"{_pct(edges[i]):g}–{_pct(edges[i + 1]):g}%",
        }
        for i in range(len(counts))
    ]
    n_none = len(item_analysis.unsolved)
    n_one = len(item_analysis.solved_by_one)
    base = alt.Chart(inline_data(rows))
    x = alt.X(
        "bin_start:Q",
        bin="binned",
        title="mean score over systems (% of systems solving, for 0/1 scores)",
        scale=alt.Scale(domain=[0, 100]),
        axis=alt.Axis(values=[_pct(e) for e in edges]),
    )
    bars = base.mark_bar().encode(
        x=x,
        x2=alt.X2("bin_end:Q"),
        y=alt.Y("count:Q", title="items"),
        tooltip=[alt.Tooltip("range:N", title="mean score"), alt.Tooltip("count:Q", title="items")],
    )
    labels = (
        base.transform_calculate(mid="(datum.bin_start + datum.bin_end) / 2")
        .mark_text(baseline="bottom", dy=-2)
        .encode(x=alt.X("mid:Q"), y=alt.Y("count:Q"), text=alt.Text("count:Q"))
    )
    return alt.layer(bars, labels).properties(
        width=width,
        height=height,
        title=alt.TitleParams(
            "Item difficulty",
            subtitle=[
                (
                    f"{len(item_analysis.items)} items, {len(item_analysis.systems)} "
                    f"systems; solved by no system: {n_none}, by exactly one: {n_one}"
                )
            ],
        ),
    )


# ============================================================================ TOPSIS


def _aggregate_iv(aggregate_scores: Any, systems: tuple[str, ...]) -> np.ndarray:
    if isinstance(aggregate_scores, Mapping):
        missing = [s for s in systems if s not in aggregate_scores]
        if missing:
            raise InputError(
                "aggregate_scores has no score for some systems",
                hint=f"missing: {', '.join(missing[:5])}",
            )
        return np.array([float(aggregate_scores[s]) for s in systems])
    values = np.asarray(aggregate_scores, dtype=np.float64)
    if values.shape != (len(systems),):
        raise InputError(
            f"aggregate_scores has shape {values.shape}, expected ({len(systems)},)",
            hint="give one score per system of the TOPSIS result (in its "
            "order) or a mapping system → score",
        )
    return values


def topsis_scatter(
    topsis_result: TopsisResult,
    aggregate_scores: Mapping[str, float] | Sequence[float] | np.ndarray,
    *,
    tau: float,
    aggregate_title: str = "aggregate score",
    width: int = 420,
    height: int = 360,
) -> alt.Chart:
    """TOPSIS score against an aggregate score, one point per system, with Kendall's τ
    between the two orderings in the title.

    ``aggregate_scores`` is a mapping system → score, or one score per system in the
    order of ``topsis_result.systems``; higher is better. ``tau`` is the analysis'
    agreement of the two orders (:attr:`reportgen.analysis.results.TopsisCheck.agreement`),
    shown as it is.
    """
    systems = topsis_result.systems
    agg = _aggregate_iv(aggregate_scores, systems)
    rows = [
        {
            "system": s,
            "aggregate": float(agg[i]) if math.isfinite(agg[i]) else None,
            "topsis_score": r["topsis_score"],
            "topsis_rank": r["rank"],
        }
        for i, (s, r) in enumerate(zip(systems, topsis_result.to_records()))
    ]
    tau_text = f"Kendall τ = {tau:.3f}" if math.isfinite(tau) else "Kendall τ undefined"
    return (
        alt.Chart(inline_data(rows))
        .mark_circle(size=50, opacity=0.8)
        .encode(
            x=alt.X("aggregate:Q", title=aggregate_title, scale=alt.Scale(zero=False)),
            y=alt.Y("topsis_score:Q", title="TOPSIS closeness", scale=alt.Scale(zero=False)),
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("aggregate:Q", title=aggregate_title, format=".4f"),
                alt.Tooltip("topsis_score:Q", title="TOPSIS", format=".4f"),
                alt.Tooltip("topsis_rank:Q", title="TOPSIS rank"),
            ],
        )
        .properties(
            width=width,
            height=height,
            title=alt.TitleParams(
                f"TOPSIS vs {aggregate_title} ({tau_text})",
                subtitle=[
                    (f"{len(systems)} systems; TOPSIS over {len(topsis_result.metrics)} metrics")
                ],
            ),
        )
    )

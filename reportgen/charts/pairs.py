"""Pairwise-comparison charts: the heatmap table (Ackerman et al. 2025, §5.2) and the pairwise
p-values plot (PWPP, Ackerman et al. 2025, §5.3, after R emmeans ``pwpp``).

================================  =======================================================
builder                           what it shows
================================  =======================================================
:func:`pvalue_heatmap`            rows = system pairs by aggregate significance, columns =
                                  metrics (or datasets); significant cells coloured by
                                  which system is better, adjusted p printed; others blank
:func:`pwpp_chart`                each pair a vertical segment joining its two systems
                                  (y, ordered by mean) at x = adjusted p on the emmeans
                                  scale (:func:`emmeans_p_scale`)
================================  =======================================================

Builders take the ledger's decided claims (:class:`reportgen.analysis.Claim`): a cell
or a segment is significant when its claim is, never by comparing a p-value with α here;
they never recompute a test. No theme is applied here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np

from reportgen import format as fmt
from reportgen.analysis.ledger import Claim
from reportgen.charts.render import inline_data
from reportgen.errors import InputError

__all__ = ["PWPP_TICKS", "emmeans_p_scale", "pvalue_heatmap", "pwpp_chart"]

_LABEL_LIMIT = 600
P_MIN = 5e-5
PWPP_TICKS = (0.0001, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0)
_A_BETTER = "first system better"
_B_BETTER = "second system better"


#: The complementary error function, elementwise (math.erfc: the axis scale needs no
#: numerical library).
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _phi(x: Any) -> Any:
    """The standard normal CDF, elementwise."""
    return 0.5 * _erfc(-np.asarray(x, dtype=np.float64) / math.sqrt(2.0))


def emmeans_p_scale(p: Any) -> Any:
    """The horizontal scale of emmeans ``pwpp``: :math:`x = \\Phi((\\ln p + 2.5)/3) /
    \\Phi(2.5/3)` with p clipped to ``[5e-5, 1]`` (0 at no p, 1 at p = 1; the region of
    small p is stretched). Vectorised; a scalar in gives a float out; NaN stays NaN.

    Lenth, R. (2024), emmeans: ``pwpp`` (``.pval.tran``), R package.
    """
    arr = np.asarray(p, dtype=np.float64)
    x = _phi((np.log(np.clip(arr, P_MIN, 1.0)) + 2.5) / 3.0) / _phi(2.5 / 3.0)
    return float(x) if np.ndim(x) == 0 else x


def _tick_axis(ticks: Sequence[float], title: str) -> alt.Axis:
    """An axis on the transformed scale whose ticks sit at the transform of ``ticks`` and
    are labelled with the p-values themselves."""
    positions = [float(emmeans_p_scale(t)) for t in ticks]
    expr = "''"
    for pos, t in zip(positions, ticks):
        expr = f"abs(datum.value - {pos!r}) < 1e-9 ? '{fmt.p_tick(t)}' : ({expr})"
    return alt.Axis(values=positions, labelExpr=expr, title=title, grid=True)


def _better_is_a(diff: float | None, direction: str) -> bool | None:
    if diff is None or (isinstance(diff, float) and math.isnan(diff)) or diff == 0:
        return None
    return (diff > 0) == (direction != "lower")


def _rows_of(claims: Iterable[Claim]) -> list[dict[str, Any]]:
    """The fields the charts draw, one dict per claim."""
    rows = [
        {
            "dataset": c.dataset,
            "metric": c.metric,
            "system_a": c.system_a,
            "system_b": c.system_b,
            "diff": c.diff,
            "direction": c.direction,
            "mean_a": c.mean_a,
            "mean_b": c.mean_b,
            "p_adjusted": c.p_adjusted,
            "significant": c.significant,
        }
        for c in claims
    ]
    if not rows:
        raise InputError("no comparisons to plot")
    return rows


# ============================================================================ heatmap


def _heatmap_cells(
    rows: Sequence[Mapping[str, Any]], columns: str
) -> tuple[dict[tuple[tuple[str, str], str], dict[str, Any]], list[str]]:
    """The cells of :func:`pvalue_heatmap`, keyed by (pair in its first orientation,
    column), and the columns in order of appearance."""
    pair_of: dict[frozenset[str], tuple[str, str]] = {}
    cells: dict[tuple[tuple[str, str], str], dict[str, Any]] = {}
    column_order: list[str] = []
    for r in rows:
        a, b = str(r["system_a"]), str(r["system_b"])
        key = frozenset((a, b))
        first, second = pair_of.setdefault(key, (a, b))
        swapped = (a, b) != (first, second)
        if columns == "both":
            col = f"{r.get('dataset')} / {r.get('metric')}"
        else:
            col = str(r.get(columns))
        if col not in column_order:
            column_order.append(col)
        if ((first, second), col) in cells:
            raise InputError(
                f"two comparisons of {first!r} and {second!r} in column {col!r}",
                hint="filter the rows to one dataset (or metric), or use columns='both'",
            )
        p = r.get("p_adjusted")
        p = float("nan") if p is None else float(p)
        sig = bool(r["significant"])  # as the ledger decided it
        direction = r.get("direction") or "higher"
        diff = r.get("diff")
        a_better = _better_is_a(None if diff is None else float(diff), direction)
        better = None if a_better is None else (a if a_better else b)
        first_better = None if better is None else better == first
        strength = None
        if sig:
            mag = -math.log10(max(p, 1e-300))
            strength = mag if first_better in (True, None) else -mag
        cells[((first, second), col)] = {
            "pair": f"{first}  vs  {second}",
            "column": col,
            "system_a": first,
            "system_b": second,
            "p_adjusted": None if math.isnan(p) else p,
            "diff": None if diff is None else (-float(diff) if swapped else float(diff)),
            "direction": direction,
            "significant": sig,
            "better": better,
            "side": None if first_better is None else (_A_BETTER if first_better else _B_BETTER),
            "strength": strength,
            "label": fmt.p_compact(p) if sig else None,
        }
    return cells, column_order


def pvalue_heatmap(
    claims: Iterable[Claim],
    *,
    columns: str = "metric",
    max_pairs: int | None = None,
    title: str | None = None,
) -> alt.LayerChart:
    """Heatmap table of pairwise comparisons (Ackerman et al. 2025, §5.2).

    Parameters
    ----------
    claims
        The ledger's claims (:class:`reportgen.analysis.Claim`), of one dataset and
        several metrics, or the like. A pair may appear as (a, b) or (b, a). A cell is
        coloured when its claim is significant.
    columns
        ``"metric"``, ``"dataset"`` or ``"both"`` (``"dataset / metric"``): what each
        column is. Two claims for the same pair and column raise.
    max_pairs
        Keep only the first ``max_pairs`` rows (the most significant pairs); the subtitle
        says how many were left out. Default: all.
    title
        Chart title.

    Returns
    -------
    alt.LayerChart
        A ``rect`` layer and a ``text`` layer (the adjusted p), both filtered to
        significant cells, so non-significant cells are blank. Inline data: one row per
        (pair, column) with ``pair``, ``column``, ``system_a``, ``system_b``,
        ``p_adjusted``, ``significant``, ``better`` (name of the better system or None),
        ``side`` (``"first system better"``/``"second system better"``), ``strength`` =
        ±(−log10 p) (+ when the pair's first system is better; None when not
        significant) and ``label`` (printed p). Pairs are ordered by descending
        aggregate significance: the sum over columns of −log10 ``p_adjusted`` (an
        ordering key, not a combined test), ties by name.
    """
    if columns not in ("metric", "dataset", "both"):
        raise InputError(
            f"columns={columns!r} is not valid", hint="use 'metric', 'dataset' or 'both'"
        )
    rows = _rows_of(claims)
    cells, column_order = _heatmap_cells(rows, columns)
    score: dict[tuple[str, str], float] = {}
    for (pair, _), c in cells.items():
        p = c["p_adjusted"]
        score[pair] = score.get(pair, 0.0) + (0.0 if p is None else -math.log10(max(p, 1e-300)))
    pairs = sorted(score, key=lambda pr: (-score[pr], pr))
    n_total = len(pairs)
    if max_pairs is not None:
        if max_pairs < 1:
            raise InputError(f"max_pairs={max_pairs!r} must be positive")
        pairs = pairs[:max_pairs]
    keep = set(pairs)
    data = [c for (pair, _), c in cells.items() if pair in keep]
    rank = {pr: k for k, pr in enumerate(pairs)}
    data.sort(key=lambda c: (rank[(c["system_a"], c["system_b"])], column_order.index(c["column"])))
    for c in data:
        c["order"] = rank[(c["system_a"], c["system_b"])]
    pair_labels = [f"{a}  vs  {b}" for a, b in pairs]
    strengths = [abs(c["strength"]) for c in data if c["strength"] is not None]
    top = min(max([*strengths, 2.0]), 10.0)  # p <= 1e-10 all get the darkest colour
    # the order is the scale domain (a custom sort list compiles to one nested
    # expression per entry, which overflows the stack for thousands of pairs)
    y = alt.Y(
        "pair:N",
        title=None,
        scale=alt.Scale(domain=pair_labels),
        axis=alt.Axis(labelLimit=_LABEL_LIMIT),
    )
    x = alt.X(
        "column:N",
        title=columns if columns != "both" else "dataset / metric",
        scale=alt.Scale(domain=column_order),
        axis=alt.Axis(orient="top", labelAngle=0, labelLimit=200),
    )
    tooltip = [
        alt.Tooltip("system_a:N", title="first"),
        alt.Tooltip("system_b:N", title="second"),
        alt.Tooltip("column:N"),
        alt.Tooltip("diff:Q", format=".4g"),
        alt.Tooltip("direction:N"),
        alt.Tooltip("p_adjusted:Q", format=".3g"),
        alt.Tooltip("better:N"),
    ]
    base = (
        alt.Chart(inline_data(data))
        .transform_filter("datum.significant")
        .encode(x=x, y=y, tooltip=tooltip)
    )
    rect = base.mark_rect(stroke="white", strokeWidth=0.5).encode(
        color=alt.Color(
            "strength:Q",
            title=["± −log10 p", "(+ first better)"],
            scale=alt.Scale(scheme="redblue", reverse=True, domain=[-top, top], clamp=True),
        )
    )
    text = base.mark_text(fontSize=10).encode(
        text=alt.Text("label:N"),
        color=alt.condition(
            f"abs(datum.strength) > {top * 0.6!r}", alt.value("white"), alt.value("black")
        ),
    )
    subtitle = [
        (
            "significant: red = first system better, blue = second better "
            "(direction-aware); blank = not significant; adjusted p printed"
        ),
        (
            "rows: system pairs (first vs second) by aggregate significance "
            "(sum of −log10 adjusted p)"
        ),
    ]
    if len(pairs) < n_total:
        subtitle.append(f"showing the {len(pairs)} most significant of {n_total} pairs")
    return alt.layer(rect, text).properties(
        title=alt.Title(title or "Pairwise comparisons", subtitle=subtitle),
        # wide enough for the column labels, which are written horizontally
        width=alt.Step(max(70, 7 * max(len(c) for c in column_order) + 10)),
        height=alt.Step(16),
    )


# ============================================================================ PWPP


def _pwpp_rows(
    rows: Sequence[Mapping[str, Any]], means: Mapping[str, float]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The segments of :func:`pwpp_chart` (one per pair with a p-value) and their two
    ends."""
    segments: list[dict[str, Any]] = []
    ends: list[dict[str, Any]] = []
    for k, r in enumerate(rows):
        p = r.get("p_adjusted")
        if p is None or math.isnan(float(p)):
            continue
        p = float(p)
        x = float(emmeans_p_scale(p))
        a, b = str(r["system_a"]), str(r["system_b"])
        seg = {
            "pair": k,
            "system_a": a,
            "system_b": b,
            "p_adjusted": p,
            "x": x,
            "significant": bool(r["significant"]),  # as the ledger decided it
            "mean_a": means.get(a),
            "mean_b": means.get(b),
        }
        segments.append(seg)
        ends.append(
            {
                "pair": k,
                "system": a,
                "x": x,
                "p_adjusted": p,
                "significant": seg["significant"],
                "other": b,
            }
        )
        ends.append(
            {
                "pair": k,
                "system": b,
                "x": x,
                "p_adjusted": p,
                "significant": seg["significant"],
                "other": a,
            }
        )
    return segments, ends


def pwpp_chart(
    claims: Sequence[Claim],
    *,
    level: float = 0.05,
    direction: str | None = None,
    ticks: Sequence[float] = PWPP_TICKS,
    title: str | None = None,
) -> alt.LayerChart:
    """Pairwise p-values plot (Ackerman et al. 2025, §5.3; R emmeans ``pwpp``).

    Parameters
    ----------
    claims
        The ledger's claims of one dataset × metric (:class:`reportgen.analysis.Claim`);
        a segment is red when its claim is significant.
    level
        Where the dashed reference rule is drawn (the family's α; a guide for the eye:
        the colours are the claims' decisions).
    direction
        ``"higher"`` or ``"lower"`` is better, for ordering systems (best at the top);
        default the claims' direction.
    ticks
        p-values labelled on the x axis (at their transformed positions).
    title
        Chart title.

    Returns
    -------
    alt.LayerChart
        Layers: one vertical ``rule`` per pair from ``system_a`` to ``system_b`` at
        ``x`` = :func:`emmeans_p_scale` of ``p_adjusted``; a ``point`` at each end; the
        reference ``rule``. Systems on the y axis ordered by mean. Pairs with no p-value
        are dropped.
    """
    rows = _rows_of(claims)
    keys = {(r.get("dataset"), r.get("metric")) for r in rows}
    if len(keys) > 1:
        raise InputError(
            f"claims of {len(keys)} (dataset, metric) sample lists",
            hint="a PWPP shows one sample list: give the claims of one",
        )
    if direction is None:
        direction = rows[0].get("direction") or "higher"
    if direction not in ("higher", "lower"):
        raise InputError(f"direction={direction!r} is not valid")
    means: dict[str, float] = {}
    for r in rows:
        for s, m in ((r["system_a"], r.get("mean_a")), (r["system_b"], r.get("mean_b"))):
            if m is not None and s not in means:
                means[str(s)] = float(m)
    systems = list(dict.fromkeys([str(r[k]) for r in rows for k in ("system_a", "system_b")]))
    sign = -1.0 if direction == "higher" else 1.0
    order = sorted(
        systems,
        key=lambda s: (
            sign * means.get(s, float("nan")) if s in means else math.inf,
            systems.index(s),
        ),
    )
    segments, ends = _pwpp_rows(rows, means)
    y_axis = alt.Axis(labelLimit=_LABEL_LIMIT)
    x_enc = alt.X(
        "x:Q",
        scale=alt.Scale(domain=[0, 1], nice=False),
        axis=_tick_axis(ticks, "adjusted p-value (emmeans pwpp scale)"),
    )
    sig_colour = alt.Color(
        "significant:N",
        title="significant",
        scale=alt.Scale(domain=[True, False], range=["#d62728", "#9e9e9e"]),
    )
    seg_tooltip = [
        alt.Tooltip("system_a:N"),
        alt.Tooltip("system_b:N"),
        alt.Tooltip("p_adjusted:Q", format=".3g"),
    ]
    lines = (
        alt.Chart(inline_data(segments))
        .mark_rule(opacity=0.5)
        .encode(
            x=x_enc,
            y=alt.Y("system_a:N", scale=alt.Scale(domain=order), title=None, axis=y_axis),
            y2=alt.Y2("system_b:N"),
            color=sig_colour,
            tooltip=seg_tooltip,
        )
    )
    dots = (
        alt.Chart(inline_data(ends))
        .mark_point(filled=True, size=14, opacity=0.7)
        .encode(
            x=alt.X("x:Q"),
            y=alt.Y("system:N"),
            color=sig_colour,
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("other:N", title="compared with"),
                alt.Tooltip("p_adjusted:Q", format=".3g"),
            ],
        )
    )
    alpha_rule = (
        alt.Chart(inline_data([{"alpha": level, "x": float(emmeans_p_scale(level))}]))
        .mark_rule(strokeDash=[4, 3], color="black")
        .encode(x=alt.X("x:Q"), tooltip=[alt.Tooltip("alpha:Q", format=".3~g")])
    )
    better = "higher" if direction == "higher" else "lower"
    return alt.layer(lines, dots, alpha_rule).properties(
        title=alt.Title(
            title or "Pairwise p-values plot",
            subtitle=f"each segment joins the two systems of a pair at its "
            f"adjusted p; systems by mean ({better} is better, best "
            f"at the top); red: significant; dashed rule at α = {level:g}",
        ),
        width=500,
        height=alt.Step(16),
    )

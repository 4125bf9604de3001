"""The release sections: the decision, the verdict table, the differences and the
items lost and gained.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from reportgen import format as fmt
from reportgen.plaintext import count
from reportgen.report.render.html import (
    Col,
    HTMLBlock,
    charts_row,
    escape,
    h3,
    note,
    p_cell,
    section,
    table,
)
from reportgen.report.sections._base import (
    Report,
    _try_chart,
    _with_figures,
)

# --------------------------------------------------------------------------- release

_VERDICT_CSS = {
    "improved": "improved",
    "regressed": "regressed",
    "no detectable difference": "nodiff",
    "non-inferior": "noninferior",
    "inconclusive": "inconclusive",
}
#: Items listed per dataset × metric in the appendix's "Items lost and gained" (losses
#: and gains each); every changed item is in tables/flips.csv.
MAX_FLIP_ITEMS = 25
#: Item ids listed per dataset × metric when the scores are 0/1 and the items have no
#: metadata (every change is ±1: the ids are the whole story).
MAX_FLIP_IDS = 200


@_with_figures
def release_summary(report: Report) -> HTMLBlock | None:
    """The release decision first: one sentence saying whether the candidate is better
    (:func:`reportgen.report.render.findings.release_decision`), every dataset × metric that was
    not compared (never silent), and the verdict table in the metric's units, oriented
    candidate − baseline. The table of contents follows it."""
    from reportgen.report.export import CONTENTS_MARKER
    from reportgen.report.render.findings import (
        decision_style,
        flips_line,
        not_compared_lines,
        release_decision,
    )

    comparison = report.analysis.release
    if comparison is None:
        return None
    items = flips_line(comparison)
    body = [
        f'<div class="rg-decision rg-decision-{decision_style(comparison)}"><p>'
        f"{release_decision(comparison)}</p>"
        + (f'<p class="rg-flips">{items}</p>' if items else "")
        + "</div>"
    ]
    missing = not_compared_lines(comparison)
    if missing:
        n = len(comparison.not_compared) + len(comparison.partial)
        what = (
            "Not compared"
            if not comparison.partial
            else ("Partial" if not comparison.not_compared else "Not compared or partial")
        )
        body.append(
            f'<div class="rg-warning rg-not-compared"><p><strong>{what} '
            f"({n} dataset × metric{'s' if n != 1 else ''})</strong>: the verdict "
            "covers only what both systems were scored on.</p><ul>"
            + "".join(f"<li>{line}</li>" for line in missing)
            + "</ul></div>"
        )
    if comparison.verdicts:
        body.append(_verdict_table(report, comparison))
    block = section("Release decision", body, sid="release-verdict")
    return None if block is None else HTMLBlock(block.html + CONTENTS_MARKER)


def _verdict_row(v: Any, one_metric: bool) -> dict[str, Any]:
    """One verdict's cells, in the metric's units."""
    p = v.proportion
    return {
        "dataset": v.dataset if one_metric else v.name,
        "baseline": fmt.value(v.mean_baseline, proportion=p),
        "candidate": fmt.value(v.mean_candidate, proportion=p),
        "diff": fmt.difference(v.diff, proportion=p),
        "ci": fmt.interval(v.ci_adjusted_low, v.ci_adjusted_high, proportion=p, signed=True),
        "p_adjusted": v.p_adjusted,
        "mde": "–" if v.mde is None else fmt.difference(v.mde, proportion=p).lstrip("+"),
        "margin": "–"
        if v.margin is None
        else fmt.margin(v.margin, direction=v.direction, proportion=p)
        + (" (equivalent)" if v.equivalent else ""),
        "ni_bound": "–" if v.ni_bound is None else fmt.difference(v.ni_bound, proportion=p),
        "items": "–" if v.n_lost is None else f"−{v.n_lost} / +{v.n_gained}",
        "verdict": v.verdict
        + (
            " (lower is better)"
            if v.direction == "lower" and v.verdict != "no detectable difference"
            else ""
        ),
        "_css": _VERDICT_CSS[v.verdict],
    }


def _verdict_table(report: Report, comparison: Any) -> str:
    """The verdicts in the metric's units with the interval each is read off, the margin
    and equivalence (with margins) and the items lost and gained (paired data)."""
    from reportgen.report.render.claims import CORRECTION_NAMES

    margins, flips = comparison.has_margin, bool(comparison.flips)
    one_metric = len({v.metric for v in comparison.verdicts}) == 1
    # at most 10 columns, so the table stays on a portrait page of the PDF: the metric
    # joins the dataset when there are several, and the MDE goes when every verdict has
    # a margin (it explains "no detectable difference", which a margin replaces)
    show_mde = not all(v.margin is not None for v in comparison.verdicts)
    rows = [_verdict_row(v, one_metric) for v in comparison.verdicts]
    levels = sorted(
        {v.confidence_adjusted or v.confidence for v in comparison.verdicts}, reverse=True
    )
    cols = [
        Col("dataset", "dataset" if one_metric else "dataset / metric"),
        # the decision beside the name: in view on a phone and before any scrolling
        Col("verdict", "verdict", escape, css=lambda r: r["_css"]),
        Col("baseline", "baseline", escape, True),
        Col("candidate", "candidate", escape, True),
        Col("diff", "candidate − baseline", escape, True),
        Col("ci", f"{levels[0]:.1%} CI" if len(levels) == 1 else "CI", escape, True),
        Col("p_adjusted", "p adj.", p_cell, True),
    ]
    if show_mde:
        cols.append(Col("mde", "MDE (design)", escape, True))
    if margins:
        cols += [
            Col("margin", "margin", escape, True),
            Col("ni_bound", f"one-sided {1 - report.alpha / 2:.1%} bound", escape, True),
        ]
    if flips:
        cols.append(Col("items", "items lost / gained", escape, True))
    asked = report.analysis.options.correction
    used = comparison.interval_correction or asked
    name = CORRECTION_NAMES.get(used) or "no"
    step = (
        f" (the single-step form of the {CORRECTION_NAMES.get(asked)} correction asked "
        f"for: a step-down correction has no intervals that agree with its decisions)"
        if used != asked
        else ""
    )
    m = len(comparison.verdicts)
    text = (
        f"Differences are candidate − baseline; proportions in percent, their "
        f"differences in percentage points (pts). Each verdict is read off the interval "
        f"in its row: the {name} simultaneous interval of the {m} comparisons"
        f"{step}, at level {levels[0]:.1%} for a family level of "
        f"{1 - report.alpha:.0%}. Improved or regressed: the interval excludes 0 (the "
        f"adjusted p-value is at most α = {report.alpha:g})."
    )
    if margins:
        text += (
            f" Non-inferior: the one-sided {1 - report.alpha / 2:.1%} bound (unadjusted) "
            "lies on the right side of −margin (a loss larger than the margin is ruled "
            "out); inconclusive: it does not. The non-inferiority gate passes when every "
            "dataset × metric is improved or non-inferior: an intersection-union test of "
            f"size α/2 = {report.alpha / 2:g}, which needs no adjustment (Berger 1982). "
            "Equivalent (beside the margin): the interval lies within ±margin (two "
            "one-sided tests)."
        )
    text += (
        " No detectable difference: the interval contains 0; what it leaves open (a "
        "loss or a gain up to its ends) is not ruled out."
    )
    if show_mde:
        level = next((n.level for n in report.analysis.ledger.noise), report.alpha)
        text += (
            f" MDE (design): the smallest true difference one comparison of this design "
            f"detects with {report.analysis.options.power:.0%} power at the family's "
            f"per-comparison level α′ = {level:.3g}; a property of the evaluation, "
            "not of the result: it says nothing about how large an undetected "
            "difference is (the interval does)."
        )
    if one_metric:
        text += f" Metric: {escape(comparison.verdicts[0].metric)}."
    if flips:
        text += (
            " Items lost / gained: items the baseline scored better / worse than the "
            "candidate (every one is in <code>tables/flips.csv</code>)."
        )
    return table(rows, cols, stack=True) + note(text)


@_with_figures
def release_flips(report: Report) -> HTMLBlock | None:
    """The items the candidate lost and gained per paired dataset × metric, with the
    items' metadata: the largest losses and gains first (every changed item is in
    ``tables/flips.csv``)."""
    comparison = report.analysis.release
    if comparison is None or not comparison.flips:
        return None
    meta = report.analysis.table.item_metadata
    body = [
        note(
            "Items whose score changed from the baseline to the candidate. Lost: "
            "the baseline scored better; gained: the candidate did. Tables show the "
            f"largest changes first, at most {MAX_FLIP_ITEMS} of each; every changed "
            "item is in <code>tables/flips.csv</code>."
        )
    ]
    for flip in comparison.flips:
        body.append(
            h3(f"{flip.name}: lost {flip.n_lost}, gained {flip.n_gained} of {flip.n_items} items")
        )
        scores = set(flip.baseline_score) | set(flip.candidate_score)
        binary = scores <= {0.0, 1.0}
        rows = []
        for r, lost in zip(flip.to_records(), flip.lost):
            rows.append(
                {
                    "item": r["item"],
                    "baseline": f"{r['baseline_score']:.4g}",
                    "candidate": f"{r['candidate_score']:.4g}",
                    "change": f"{r['change']:+.4g}",
                    "lost": lost,
                    **_item_meta(meta, flip.dataset, r["item"]),
                }
            )
        extra = sorted(
            {k for r in rows for k in r} - {"item", "baseline", "candidate", "change", "lost"}
        )[:3]
        lost_rows = [r for r in rows if r["lost"]]
        gained_rows = [r for r in rows if not r["lost"]]
        if not binary:
            gained_rows = gained_rows[::-1]  # the largest gain first
        if binary and not extra:
            # 0/1 scores without metadata: every change is ±1, so the ids say it all
            for label, chosen in (("Lost", lost_rows), ("Gained", gained_rows)):
                if chosen:
                    shown = ", ".join(escape(r["item"]) for r in chosen[:MAX_FLIP_IDS])
                    more = (
                        f" and {len(chosen) - MAX_FLIP_IDS} more"
                        if len(chosen) > MAX_FLIP_IDS
                        else ""
                    )
                    body.append(
                        f'<p class="rg-flip-ids"><strong>{label} '
                        f"({len(chosen)})</strong>: {shown}{more}.</p>"
                    )
            continue
        cols = [
            Col("item", "item"),
            Col("baseline", "baseline", escape, True),
            Col("candidate", "candidate", escape, True),
            Col("change", "change", escape, True),
        ] + [Col(k, k, _meta_cell) for k in extra]
        for label, chosen in (("Lost", lost_rows), ("Gained", gained_rows)):
            if chosen:
                which = "largest" if not binary else "first"
                more = (
                    f" (the {MAX_FLIP_ITEMS} {which} of {len(chosen)})"
                    if len(chosen) > MAX_FLIP_ITEMS
                    else f" ({len(chosen)})"
                )
                body.append(
                    f"<p><strong>{label}{more}</strong></p>" + table(chosen[:MAX_FLIP_ITEMS], cols)
                )
    n = sum(f.n_lost + f.n_gained for f in comparison.flips)
    return section(
        "Items lost and gained",
        body,
        sid="release-flips",
        fold=f"{count(n, 'changed item')} in "
        f"{count(len(comparison.flips), 'dataset × metric')}, with their metadata",
    )


def _meta_cell(value: Any) -> str:
    text = str(value)
    return escape(text if len(text) <= 80 else text[:79] + "…")


def _item_meta(meta: Any, dataset: str, item: str) -> dict[str, Any]:
    """The item-metadata columns of one item (empty when there are none)."""
    if meta is None or meta.empty:
        return {}
    try:
        row = meta.loc[(dataset, item)]
    except (KeyError, TypeError):
        return {}
    if getattr(row, "ndim", 1) != 1:
        row = row.iloc[0]
    return {str(k): v for k, v in row.items() if v is not None and v == v}


def verdict_sentence(v: Mapping[str, Any]) -> str:
    """One verdict of results.json in words and the metric's units (the e-mail's list)."""
    p = bool(v.get("proportion", False))
    where = f"{v['dataset']} / {v['metric']}"
    low, high = _decision_interval(v)
    diff = (
        f"{fmt.difference(v['diff'], proportion=p)} "
        f"{fmt.interval(low, high, proportion=p, signed=True)}"
    )
    values = (
        f"{fmt.value(v['mean_baseline'], proportion=p)} → "
        f"{fmt.value(v['mean_candidate'], proportion=p)}"
    )
    p_text = fmt.p_equals(v["p_adjusted"], "p adj.")
    items = (
        ""
        if v.get("n_lost") is None
        else f"; lost {count(int(v['n_lost']), 'item')}, gained {v['n_gained']}"
    )
    if v.get("margin") is not None:
        margin = fmt.margin(v["margin"], direction=v.get("direction", "higher"), proportion=p)
        p_text += f", margin {margin}" + ("; equivalent" if v.get("equivalent") else "")
    if v.get("skewed"):
        items += "; heavily skewed differences: p and interval approximate"
    if v.get("note"):
        items += f"; {v['note']}"
    if v["verdict"] == "no detectable difference":
        left = fmt.leaves_open(low, high, direction=v.get("direction", "higher"), proportion=p)
        return f"{where}: no detectable difference ({values}, {diff}, {p_text}); {left}{items}."
    return f"{where}: {v['verdict']} ({values}, {diff}, {p_text}){items}."


def _decision_interval(v: Mapping[str, Any]) -> tuple[Any, Any]:
    """The interval a verdict row of results.json was read off: ``ci_adjusted_*``, or
    ``ci_low``/``ci_high`` in a file written before they had fields of their own."""
    if "ci_adjusted_low" in v:
        return v.get("ci_adjusted_low"), v.get("ci_adjusted_high")
    return v.get("ci_low"), v.get("ci_high")


@_with_figures
def release_details(report: Report) -> HTMLBlock | None:
    """The forest plot of candidate − baseline by verdict."""
    from reportgen.charts import forest_plot

    comparison = report.analysis.release
    if comparison is None or not comparison.verdicts:
        return None
    body = [
        charts_row(
            _try_chart(
                partial(
                    forest_plot,
                    [
                        {**v.to_dict(), "ci_low": v.ci_adjusted_low, "ci_high": v.ci_adjusted_high}
                        for v in comparison.verdicts
                    ],
                    title=f"{report.candidate} − {report.baseline}",
                ),
                "Difference candidate − baseline per dataset × metric with the interval "
                "its verdict is read off (the release's simultaneous interval), coloured "
                "by verdict.",
                report,
            )
        )
    ]
    return section("Differences", body, sid="release-differences")

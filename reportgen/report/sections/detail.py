"""Noise and power, benchmark noise, items, repeated runs, groups and hyperparameters."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from reportgen import format as fmt
from reportgen.analysis.results import UnitResult
from reportgen.plaintext import count, n_of, verb
from reportgen.report.render.html import (
    Col,
    HTMLBlock,
    Tab,
    charts_row,
    count_cell,
    escape,
    h3,
    note,
    num_cell,
    p_cell,
    pct_cell,
    print_only,
    screen_only,
    section,
    slug,
    table,
    tabs,
)
from reportgen.report.sections._base import (
    BT_PRINT_SYSTEMS,
    ITEMS_LISTED,
    ITEMS_PRINTED,
    MAX_BT_SYSTEMS,
    NOISE_PRINT_SYSTEMS,
    Report,
    _caveats,
    _sample_lists,
    _try_chart,
    _with_figures,
)

# --------------------------------------------------------------------------- noise, power


@_with_figures
def noise_and_power(report: Report) -> HTMLBlock | None:
    """The noise floor in a few lines: per dataset × metric, its items and the minimum
    detectable effect (MDE) in the metric's units; the benchmark-noise charts are in
    :func:`noise_detail`."""
    units = [u for u in _sample_lists(report) if u.power is not None and u.derived_from is None]
    if not units:
        return None
    power = report.analysis.options.power
    ledger = report.analysis.ledger
    rows = []
    for u in units:
        assert u.power is not None
        figure = ledger.noise_of(u.dataset, u.metric)
        row = {
            "list": u.name,
            "n": u.n_items,
            "design": f"{u.pairing}, {u.modality}",
            "mde": "–" if figure is None else fmt.amount(figure.mde, proportion=u.proportion),
            "level": "–" if figure is None else f"{figure.level:.3g}",
        }
        needed = u.power.required
        row["n_required"] = None if needed is None else needed.n
        rows.append(row)
    cols = [
        Col("list", "dataset / metric"),
        Col("n", "items", count_cell, True),
        Col("design", "design"),
        Col("mde", f"MDE ({power:.0%} power)", escape, True),
        Col("level", "at α′", escape, True),
    ]
    delta = report.analysis.options.detect_delta
    if delta is not None and any(r["n_required"] is not None for r in rows):
        cols.append(Col("n_required", f"items for Δ = {delta:g}", count_cell, True))
    body = [
        table(rows, cols),
        note(
            "MDE: the smallest true difference one comparison of this design detects "
            f"with {power:.0%} power at α′, the per-comparison level of the family "
            f"({escape(ledger.family.describe())}), from the observed variability "
            "(median over pairs). It is a property of the evaluation, not of a result: "
            "a difference that is not significant is not shown to be smaller than it; "
            "the adjusted interval of each comparison says what is left open."
            + (
                ""
                if report.analysis.release is not None
                else " The benchmark noise of each dataset × metric is in the appendix."
            )
        ),
    ]
    return section("Noise and power", body, sid="noise-and-power")


@_with_figures
def noise_detail(report: Report) -> HTMLBlock | None:
    """Benchmark noise per dataset × metric (Wang et al. 2024): p-value against
    difference, |A − B| against A + B, Bradley-Terry ratings, the MDE curve."""
    from reportgen.charts import power_curve_chart

    body: list[str] = []
    curve_unit = next((u for u in _sample_lists(report) if u.mde_curve is not None), None)
    if curve_unit is not None and curve_unit.mde_curve is not None:
        body.append(h3(f"MDE by number of items: {curve_unit.name}", "power-curve"))
        body.append(
            charts_row(
                _try_chart(
                    partial(
                        power_curve_chart,
                        curve_unit.mde_curve,
                        proportion=bool(curve_unit.proportion),
                    ),
                    f"MDE by number of items for {escape(curve_unit.name)}.",
                    report,
                    phone="table",
                )
            )
        )
    panels: list[Tab] = []  # one dataset × metric at a time on a screen
    for unit in report.analysis.units:
        profile = unit.noise
        if profile is None:
            continue
        sid = slug("noise", unit.dataset, unit.metric)
        mark = len(body)
        body.append(h3(f"Noise: {unit.dataset} / {unit.metric}", sid))
        found = report.analysis.ledger.unit(unit.dataset, unit.metric)
        claims = None if found is None else found.claims
        decided = (
            ""
            if claims is None
            else f"{n_of(claims.n_significant, len(claims), 'pair')} "
            f"{verb(claims.n_significant, 'are', 'is')} significantly different after the "
            "family's correction (the pairwise table). "
        )
        body.append(
            f"<p>{decided}Benchmark noise (Wang et al. 2024, unadjusted sign tests at "
            f"α = {num_cell(profile.alpha, 2)}): the smallest difference whose p-value "
            f"falls below α is {fmt.amount(profile.p5_min, proportion=True)}–"
            f"{fmt.amount(profile.p5_max, proportion=True)} (p5_min–p5_max); null SD "
            f"{fmt.amount(profile.null_sd, proportion=True)}; "
            f"{profile.n_close_pairs} close pairs. The noise figure of this dataset × "
            "metric is its MDE (Noise and power).</p>"
        )
        if len(unit.systems) >= 3:  # one pair: the numbers say it all
            body += _noise_figures(unit, report)
        panels.append(Tab(sid, unit.dataset, unit.metric, "\n".join(body[mark:])))
        del body[mark:]
    body.append(tabs(panels, label="Dataset × metric shown"))
    return section(
        "Benchmark noise",
        body,
        sid="benchmark-noise",
        fold="p-values against differences, discordant items and "
        "Bradley-Terry ratings per dataset × metric",
    )


def _noise_figures(unit: UnitResult, report: Report) -> list[str]:
    """The charts of one dataset × metric's noise, those of many systems on screen only
    (:data:`NOISE_PRINT_SYSTEMS`, :data:`BT_PRINT_SYSTEMS`) with a note in print."""
    figures, bt_chart = _noise_charts(unit, report)
    n = len(unit.systems)
    if n > NOISE_PRINT_SYSTEMS:
        return [
            screen_only(charts_row(*figures, bt_chart)),
            print_only(note(f"The charts of its {n} systems are in the HTML report.")),
        ]
    if bt_chart and n > BT_PRINT_SYSTEMS:
        return [
            charts_row(*figures),
            screen_only(charts_row(bt_chart)),
            print_only(note(f"The Bradley-Terry chart of its {n} systems is in the HTML report.")),
        ]
    return [charts_row(*figures, bt_chart)]


def _noise_charts(unit: UnitResult, report: Report) -> tuple[list[str], str]:
    """The noise charts of one dataset × metric: p-value against difference, |A − B|
    against A + B (0/1 scores), and the Bradley-Terry chart ("" when not drawn)."""
    from reportgen.charts import (
        bradley_terry_chart,
        difference_vs_sum_chart,
        pvalue_vs_difference_chart,
    )

    profile, where = unit.noise, f"{unit.dataset} / {unit.metric}"
    assert profile is not None  # noise_detail draws only units with a noise profile
    figures = [
        _try_chart(
            partial(
                pvalue_vs_difference_chart,
                profile,
                title=f"{where}: p-value vs difference of each pair",
            ),
            "p-value of each pair against its difference.",
            report,
            phone="table",
        )
    ]
    if profile.modality == "binary":
        figures.append(
            _try_chart(
                partial(
                    difference_vs_sum_chart,
                    profile,
                    title=f"{where}: |A − B| vs A + B of each pair",
                ),
                "|A − B| against A + B (discordant items) with the exact significance boundaries.",
                report,
                phone="table",
            )
        )
    bt = None if unit.leaderboard is None else unit.leaderboard.bradley_terry
    bt_chart = ""
    if bt is not None and len(unit.systems) <= MAX_BT_SYSTEMS:
        bt_chart = _try_chart(
            partial(bradley_terry_chart, bt, title=f"{where}: Bradley-Terry ratings"),
            "Bradley-Terry ratings (Elo scale) with bootstrap intervals.",
            report,
            phone="table",
        )
    return figures, bt_chart


# --------------------------------------------------------------------------- items


@_with_figures
def items_section(report: Report) -> HTMLBlock | None:
    """Items solved by no system or one, suspect items, difficulty (Wang et al. 2024)."""
    from reportgen.charts import difficulty_histogram_chart

    body: list[str] = []
    panels: list[Tab] = []  # one dataset × metric at a time on a screen
    for unit in report.analysis.units:
        obj = unit.items
        if obj is None:
            continue
        sid = slug("items", unit.dataset, unit.metric)
        mark = len(body)
        body.append(h3(f"{unit.dataset} / {unit.metric}", sid))
        unsolved, by_one, suspect = obj.unsolved, obj.solved_by_one, obj.suspect()
        facts = [
            count(len(obj.items), "item"),
            f"{len(unsolved)} solved by no system",
            f"{len(by_one)} by exactly one",
            f"{len(suspect)} suspect (negative Kendall τ with system quality)",
        ]
        body.append("<p>" + "; ".join(facts) + ".</p>")
        listing: list[tuple[str, Sequence[str]]] = []
        if unsolved:
            listing.append(("solved by none", unsolved))
        if by_one:
            listing.append(("solved by one", [f"{i} ({s})" for i, s in by_one.items()]))
        if suspect:
            listing.append(("suspect", suspect))
        for label, values in listing:
            # the HTML names up to ITEMS_LISTED, the PDF up to ITEMS_PRINTED
            first = ", ".join(escape(v) for v in values[:ITEMS_PRINTED])
            rest = ", ".join(escape(v) for v in values[ITEMS_PRINTED:ITEMS_LISTED])
            screen = f'<span class="rg-screen-only">, {rest}</span>' if rest else ""
            more = []
            if len(values) > ITEMS_LISTED:
                more.append(
                    f'<span class="rg-screen-only"> … ({len(values) - ITEMS_LISTED}'
                    " more in tables/items.csv)</span>"
                )
            if len(values) > ITEMS_PRINTED:
                more.append(
                    f'<span class="rg-print-only"> … '
                    f"({len(values) - ITEMS_PRINTED} more in tables/items.csv)"
                    "</span>"
                )
            body.append(f"<p><strong>{escape(label)}:</strong> {first}{screen}{''.join(more)}</p>")
        body.append(
            charts_row(
                _try_chart(
                    partial(difficulty_histogram_chart, obj),
                    "Share of systems solving each item.",
                    report,
                    phone="table",
                )
            )
        )
        panels.append(Tab(sid, unit.dataset, unit.metric, "\n".join(body[mark:])))
        del body[mark:]
    body.append(tabs(panels, label="Dataset × metric shown"))
    return section(
        "Items",
        body,
        sid="items",
        fold="Items solved by no system or one, suspect items, difficulty",
    )


# --------------------------------------------------------------------------- runs


@_with_figures
def repeated_runs(report: Report) -> HTMLBlock | None:
    """Repeated runs: run-to-run variation, variance split, CI width by runs (Miller 2024)."""
    from reportgen.charts import ci_width_by_runs_chart

    body: list[str] = []
    for unit in report.analysis.units:
        runs = unit.runs
        if runs is None:
            continue
        d, m = unit.dataset, unit.metric
        body.append(h3(f"{d} / {m}: {runs.n_runs} runs × {runs.n_items} items", slug("runs", d, m)))
        body.append(_caveats([c for c in unit.caveats if "cluster-robust" in c]))
        pooled, differ = runs.pooled_runs, runs.runs_differ
        vc = runs.variance_components
        share = vc.prediction_share()
        proportion = bool(unit.proportion)
        rows = []
        for j, s in enumerate(vc.systems):
            p = pooled.systems.index(s) if s in pooled.systems else None
            r = differ.systems.index(s) if s in differ.systems else None
            rows.append(
                {
                    "system": s,
                    "mean": vc.mean[j],
                    "ci": ""
                    if p is None
                    else fmt.interval(pooled.ci_low[p], pooled.ci_high[p], proportion=proportion),
                    "share": share[j],
                    "test": None if r is None else differ.test,
                    "p": None if r is None else differ.p_value[r],
                }
            )
        body.append(
            table(
                rows,
                [
                    Col("system", "system"),
                    Col("mean", "mean", partial(fmt.value, proportion=proportion), True),
                    Col("ci", "pooled-runs CI", escape, True),
                    Col("share", "variance from runs", pct_cell, True),
                    Col("test", "runs differ: test"),
                    Col("p", "p", p_cell, True),
                ],
            )
        )
        body.append(
            note(
                "Pooled-runs CI: instance-level bootstrap over items with all "
                "runs pooled (Miller 2024). “Variance from runs”: share of the "
                "mean's variance due to run-to-run (prediction) noise."
            )
        )
        widths = runs.ci_width_by_runs
        if widths is not None:
            body.append(
                charts_row(
                    _try_chart(
                        partial(ci_width_by_runs_chart, widths, proportion=bool(unit.proportion)),
                        "CI width against the number of runs used.",
                        report,
                        phone="table",
                    )
                )
            )
    return section(
        "Repeated runs", body, sid="repeated-runs", fold="Run-to-run variation per dataset × metric"
    )


# --------------------------------------------------------------------------- groups


@_with_figures
def groups_and_hyperparameters(report: Report) -> HTMLBlock | None:
    """Comparisons within item groups and by hyperparameter (Ackerman et al. 2025)."""
    ledger = report.analysis.ledger
    body = _item_groups(ledger)
    hyper = [(u, h) for u in report.analysis.units for h in u.hyperparameters]
    if hyper:
        body.append(h3("Hyperparameters", "hyperparameters"))
    for u, h in hyper:
        body += _hyperparameter(ledger, u, h)
    return section(
        "Groups and hyperparameters",
        body,
        sid="groups-and-hyperparameters",
        fold="Comparisons within item groups and by hyperparameter",
    )


def _item_groups(ledger: Any) -> list[str]:
    """The comparisons within each item group, counted as the ledger decided them."""
    groups = [(u, g) for u in ledger.units for g in u.subsets if g.kind == "group"]
    if not groups:
        return []
    rows = [
        {
            "dataset": u.dataset,
            "metric": u.metric,
            "group": g.label,
            "n": g.n_items,
            "significant": 0 if g.claims is None else g.claims.n_significant,
            "pairs": 0 if g.claims is None else len(g.claims),
            "note": g.note or "",
        }
        for u, g in groups
    ]
    cols = [
        Col("dataset", "dataset"),
        Col("metric", "metric"),
        Col("group", "group"),
        Col("n", "items", str, True),
        Col("significant", "significant pairs", str, True),
        Col("pairs", "pairs", str, True),
    ]
    if any(r["note"] for r in rows):
        cols.append(Col("note", "note"))
    return [h3("Within item groups", "item-groups"), table(rows, cols)]


def _hyperparameter(ledger: Any, u: UnitResult, h: Any) -> list[str]:
    """One condition's pooled levels and the best level against each other, with the
    interval each decision is read off (the ledger's claims of the condition)."""
    title = f"{u.dataset} / {u.metric}: {', '.join(h.compare)}"
    if h.condition:
        title += " given " + _levels(h.condition)
    body = [f"<h4>{escape(title)}</h4>"]
    if h.levels:
        levels = [
            {"level": lv.name, "mean": lv.mean, "n": lv.n, "systems": ", ".join(lv.systems)}
            for lv in h.levels
        ]
        cols = [
            Col("level", "level"),
            Col("mean", "pooled mean", num_cell, True),
            Col("n", "n", str, True),
            Col("systems", "systems"),
        ]
        body.append(table(levels, cols))
    unit = ledger.unit(u.dataset, u.metric)
    condition = {str(k): str(v) for k, v in h.condition.items()}
    subset = next(
        (
            x
            for x in (() if unit is None else unit.subsets)
            if x.kind == "hyperparameter"
            and dict(x.levels) == condition
            and x.compare == tuple(h.compare)
        ),
        None,
    )
    if subset is not None and subset.claims is not None and len(subset.claims):
        claims = list(subset.claims)
        labels = list(dict.fromkeys(c.interval_label() for c in claims))
        rows = [
            {
                "best": c.system_a,
                "other": c.system_b,
                "diff": c.diff,
                "ci": c.adjusted.text(proportion=False),
                "p": c.p_adjusted,
            }
            for c in claims
        ]
        cols = [
            Col("best", "best level"),
            Col("other", "other level"),
            Col("diff", "difference", num_cell, True),
            Col("ci", labels[0] if len(labels) == 1 else "adjusted interval", escape, True),
            Col("p", "p adj.", p_cell, True),
        ]
        body.append(table(rows, cols))
    if h.note:
        body.append(note(h.note))
    return body


def _levels(values: Mapping[str, Any]) -> str:
    """``column = level`` pairs of a group or condition, comma-separated."""
    return ", ".join(f"{k} = {v}" for k, v in values.items())

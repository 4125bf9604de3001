"""The data, the exploration of the scores, the appendix heading and the provenance
(tests, inputs with hashes, versions).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from reportgen.plaintext import count, shown_path
from reportgen.report.render.html import (
    Col,
    HTMLBlock,
    charts_row,
    escape,
    h3,
    note,
    num_cell,
    print_only,
    screen_only,
    section,
    slug,
    table,
)
from reportgen.report.sections._base import (
    DATA_PRINT_SYSTEMS,
    Report,
    _list_title,
    _sample_lists,
    _try_chart,
    _why,
    _with_figures,
)

# --------------------------------------------------------------------------- Data


@_with_figures
def data_section(report: Report) -> HTMLBlock | None:
    """Systems, datasets, metrics, pairing, exclusions and warnings."""
    s = report.table.summary()
    body = [
        f"<p>{count(s['n_rows'], 'score')} from {count(len(s['inputs']), 'input')}: "
        f"{count(s['n_systems'], 'system')}, {count(s['n_datasets'], 'dataset')}, "
        f"{count(s['n_metrics'], 'metric')}.</p>"
    ]
    body += _inputs(s)
    body += _datasets_and_metrics(s)
    if s.get("descriptive"):
        body.extend(_descriptive_block(s["descriptive"]))
    body += _systems(report, s)
    body += _exclusions(s)
    body += _warnings(report, s)
    return section(
        "Data",
        body,
        sid="data",
        fold="Inputs, systems, datasets and metrics, pairing, exclusions, warnings",
    )


def _shown_path(path: Any) -> str:
    """An input's path in the report: relative, or its name (never private)."""
    return escape(shown_path(path))


def _inputs(s: Mapping[str, Any]) -> list[str]:
    """The inputs read, and those skipped."""
    body: list[str] = []
    body.append(
        table(
            s["inputs"],
            [
                Col("path", "input", _shown_path),
                Col("format", "format"),
                Col("rows", "rows", lambda v: f"{v:,}", True),
            ],
        )
    )
    if s.get("skipped_inputs"):
        body.append(h3("Skipped inputs", "skipped-inputs"))
        body.append(
            note(
                "These inputs hold no usable result and were left out "
                "(--strict-inputs makes this an error):"
            )
        )
        body.append(
            table(
                s["skipped_inputs"],
                [
                    Col("path", "input", _shown_path),
                    Col("format", "format"),
                    Col("reason", "why skipped"),
                ],
            )
        )
    return body


def _datasets_and_metrics(s: Mapping[str, Any]) -> list[str]:
    """Each dataset × metric's pairing and size, and each metric's direction and modality."""
    body: list[str] = []
    body.append(h3("Datasets and pairing", "datasets-and-pairing"))
    rows = []
    for d in s["datasets"]:
        for m in d["metrics"]:
            info = m["pairing"]
            rows.append(
                {
                    "dataset": d["name"],
                    "metric": m["metric"],
                    "modality": m["modality"],
                    "pairing": info["kind"],
                    "analysed": info["recommended"],
                    "systems": m["n_systems"],
                    "items": m["n_items"],
                    "common": info["n_common"],
                    "runs": d["runs"] or 1,
                    "weight": d["weight"],
                }
            )
    body.append(
        table(
            rows,
            [
                Col("dataset", "dataset"),
                Col("metric", "metric"),
                Col("modality", "modality"),
                Col("pairing", "pairing"),
                Col("analysed", "analysed as"),
                Col("systems", "systems", str, True),
                Col("items", "items", str, True),
                Col("common", "common items", str, True),
                Col("runs", "runs", str, True),
                Col("weight", "dataset weight", num_cell, True),
            ],
        )
    )
    body.append(h3("Metrics", "metrics"))
    body.append(
        table(
            s["metrics"],
            [
                Col("name", "metric"),
                Col("direction", "direction"),
                Col("direction_source", "direction from"),
                Col("modality", "modality"),
                Col("modality_source", "modality from"),
                Col("weight", "weight", num_cell, True),
            ],
        )
    )
    return body


def _systems(report: Report, s: Mapping[str, Any]) -> list[str]:
    """The systems (a release report's two) with their attributes, and the item metadata."""
    body: list[str] = []
    body.append(h3("Systems", "systems"))
    attrs = report.table.system_attributes
    sys_rows = []
    shown: Sequence[str] = report.table.systems
    release = report.analysis.release
    if release is not None:  # the two compared systems, not everything loaded
        shown = [release.candidate, release.baseline]
        if len(report.table.systems) > 2:
            body.append(
                note(
                    f"The data hold {len(report.table.systems)} systems; this "
                    f"release report compares the candidate "
                    f"<strong>{escape(release.candidate)}</strong> with the "
                    f"baseline <strong>{escape(release.baseline)}</strong>."
                )
            )
    for name in shown:
        row = {"system": name}
        if name in attrs.index:
            row.update({str(k): v for k, v in attrs.loc[name].items()})
        sys_rows.append(row)
    extra = [
        Col(
            str(c),
            str(c),
            lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else escape(v),
        )
        for c in attrs.columns
    ]
    systems_table = table(sys_rows, [Col("system", "system"), *extra])
    if len(sys_rows) > DATA_PRINT_SYSTEMS:
        body.append(screen_only(systems_table))
        body.append(
            print_only(
                f'<p class="rg-names">{count(len(sys_rows), "system")}: '
                + " · ".join(escape(r["system"]) for r in sys_rows)
                + (". Their attributes are in the HTML report." if extra else ".")
                + "</p>"
            )
        )
    else:
        body.append(systems_table)
    if s["item_metadata"]:
        names = (
            ", ".join(escape(c) for c in s["item_metadata"])
            if isinstance(s["item_metadata"], list)
            else escape(s["item_metadata"])
        )
        body.append(note(f"Item metadata columns: {names}."))
    return body


def _exclusions(s: Mapping[str, Any]) -> list[str]:
    """What was left out: excluded rows, and items outside the shared set."""
    body: list[str] = []
    excluded = _excluded_rows(s)
    if s["exclusions"] or excluded:
        body.append(h3("Exclusions", "exclusions"))
        if s["exclusions"]:
            body.append(
                table(
                    s["exclusions"],
                    [
                        Col("reason", "reason"),
                        Col("count", "rows", str, True),
                        Col("dataset", "dataset"),
                        Col("metric", "metric"),
                        Col("system", "system"),
                        Col("source", "source"),
                    ],
                )
            )
        if excluded:
            body.append(
                note(
                    "Items outside the set shared by all systems, left out of "
                    "the paired comparisons:"
                )
            )
            body.append(
                table(
                    excluded,
                    [
                        Col("dataset", "dataset"),
                        Col("metric", "metric"),
                        Col("system", "system"),
                        Col("excluded", "items excluded", str, True),
                    ],
                )
            )
    return body


def _warnings(report: Report, s: Mapping[str, Any]) -> list[str]:
    """The problems found in the data, the warnings of the run and the analysis' notes."""
    body: list[str] = []
    problems = list(s["problems"])
    if problems or report.warnings or report.analysis.notes:
        body.append(h3("Warnings and notes", "warnings"))
        items = [
            f"<li>{escape(p.get('message', p))}"
            f"{(' (' + escape(p['location']) + ')') if p.get('location') else ''}</li>"
            for p in problems
        ]
        items += [f"<li>{escape(w)}</li>" for w in report.warnings]
        items += [f"<li>{escape(n)}</li>" for n in report.analysis.notes]
        body.append('<div class="rg-warning"><ul>' + "".join(items) + "</ul></div>")
    return body


#: Longest list of descriptive statistics shown row by row; beyond it, one row per
#: statistic summarises the (system, dataset) means (all rows are in results.json).
_DESCRIPTIVE_ROWS = 30


def _descriptive_block(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Statistics the evaluation recorded but that are not compared (HELM's token counts,
    run times, ...): every mean when they are few, else their range per statistic."""
    out = [h3("Descriptive statistics", "descriptive")]
    intro = (
        "Recorded by the evaluation (token counts, run times, ...), shown as means "
        "over the items; never tested or ranked. Name one with --metric to compare it."
    )
    if len(rows) <= _DESCRIPTIVE_ROWS:
        out.append(note(intro))
        out.append(
            table(
                rows,
                [
                    Col("dataset", "dataset"),
                    Col("system", "system"),
                    Col("statistic", "statistic"),
                    Col("mean", "mean", num_cell, True),
                    Col("n", "items", str, True),
                ],
            )
        )
        return out
    by_stat: dict[str, list[float]] = {}
    for row in rows:
        if row.get("mean") is not None:
            by_stat.setdefault(str(row["statistic"]), []).append(float(row["mean"]))
    summary = [
        {
            "statistic": name,
            "cells": len(v),
            "min": min(v),
            "median": float(np.median(v)),
            "max": max(v),
        }
        for name, v in sorted(by_stat.items())
    ]
    out.append(
        note(
            intro + f" {len(rows):,} system × dataset means, summarised per "
            "statistic; all of them are in results.json (data.descriptive)."
        )
    )
    out.append(
        table(
            summary,
            [
                Col("statistic", "statistic"),
                Col("cells", "system × dataset", str, True),
                Col("min", "min of means", num_cell, True),
                Col("median", "median", num_cell, True),
                Col("max", "max of means", num_cell, True),
            ],
        )
    )
    return out


def _excluded_rows(summary_: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for d in summary_["datasets"]:
        for m in d["metrics"]:
            for system, n in (m["pairing"].get("excluded_per_system") or {}).items():
                if n:
                    rows.append(
                        {
                            "dataset": d["name"],
                            "metric": m["metric"],
                            "system": system,
                            "excluded": n,
                        }
                    )
    return rows


# --------------------------------------------------------------------------- Exploration


@_with_figures
def exploration(report: Report) -> HTMLBlock | None:
    """Distributions of item scores (continuous metrics) or of bootstrap means (0/1
    metrics), and rank distributions. Simultaneous rank intervals are in the tables of
    :func:`per_sample_list`."""
    from reportgen.charts import (
        bootstrap_mean_chart,
        distribution_chart,
        rank_distribution_chart,
    )

    body: list[str] = []
    for sl in _sample_lists(report):
        if sl.derived_from is not None:
            continue
        names = list(sl.systems)
        view = report.table.unpaired(sl.dataset, sl.metric, names)
        samples = view.item_means()
        figures = []
        boot = sl.exploration
        if sl.modality == "binary" and boot is not None:
            figures.append(
                _try_chart(
                    partial(
                        bootstrap_mean_chart,
                        boot,
                        metric=sl.metric,
                        direction=sl.direction,
                        title=f"{sl.dataset} / {sl.metric}: bootstrap means",
                    ),
                    "Bootstrap distribution of each system's mean (items resampled), with "
                    f"its {report.confidence:.0%} percentile interval.",
                    report,
                    phone="table",
                )
            )
        else:
            values = dict(zip(view.systems, samples))
            figures.append(
                _try_chart(
                    partial(
                        distribution_chart,
                        values,
                        metric=sl.metric,
                        direction=sl.direction,
                        title=f"{sl.dataset} / {sl.metric}: item scores",
                    ),
                    "Item scores of each system (boxplot).",
                    report,
                    phone="table",
                )
            )
        dist = None if sl.ranks is None else sl.ranks.distributions
        if dist is not None:
            figures.append(
                _try_chart(
                    partial(
                        rank_distribution_chart,
                        dist,
                        title=f"{sl.dataset} / {sl.metric}: rank distributions",
                    ),
                    "Rank of each system over bootstrap resamples of the items. Each "
                    "system's spread is a per-system interval: together they say less than "
                    "95% about the whole ranking; the simultaneous rank intervals (rank [CI] "
                    "in the tables below) are the joint statement.",
                    report,
                    phone="table",
                )
            )
        body.append(h3(_list_title(sl), slug("explore", sl.dataset, sl.metric)))
        body.append(charts_row(*figures))
    if body:  # the Results overview shows every mean with its interval in the PDF
        body = [note("Shown in the HTML report only."), screen_only("".join(body))]
    return section(
        "Exploration",
        body,
        sid="exploration",
        fold="Distributions of scores (or bootstrap means) and of ranks, per dataset × metric",
    )


# --------------------------------------------------------------------------- methods


@_with_figures
def appendix(report: Report) -> HTMLBlock | None:
    """The start of the appendix: the detail behind the body, folded in HTML."""
    return HTMLBlock(
        '<section class="rg-section rg-appendix-start" id="appendix">'
        '<h2>Appendix</h2><p class="rg-note">The detail behind the '
        "results: per dataset × metric tables and charts, noise, items, "
        "runs, data and inputs. In the HTML report each part is folded: "
        "click its summary line to open it.</p></section>"
    )


def provenance(report: Report) -> HTMLBlock | None:
    """Which test where and why, the inputs with their sha256, the config and the
    versions of the packages (appendix)."""
    from reportgen.report.folder.manifest import build_manifest

    opts = report.analysis.options
    body = [
        f"<p>α = {opts.alpha:g}; {opts.confidence:.0%} intervals; "
        f"{opts.n_resamples:,} resamples where resampling is used; "
        f"family: {escape(report.analysis.ledger.family.describe())}; comparison order "
        f"{escape(opts.order)}; "
        f"alternative {escape(opts.alternative)}; effects count as relevant from a "
        f"{escape(opts.effect_threshold)} Cohen level; seed "
        f"{report.analysis.seed}.</p>"
    ]
    rows = []
    for sl in _sample_lists(report):
        rows.append(
            {
                "list": _list_title(sl),
                "pairing": sl.pairing,
                "modality": sl.modality,
                "test": sl.test,
                "ci": "" if sl.comparisons is None else sl.comparisons.ci_method,
                "why": _why(sl),
            }
        )
    body.append(
        table(
            rows,
            [
                Col("list", "dataset / metric"),
                Col("pairing", "pairing"),
                Col("modality", "modality"),
                Col("test", "test"),
                Col("ci", "difference CI"),
                Col("why", "why"),
            ],
        )
    )
    ci_methods = sorted({u.ci_method for u in report.analysis.units})
    body.append(
        note(f"Intervals of each system's mean: {', '.join(escape(m) for m in ci_methods)}.")
    )
    manifest = build_manifest(report.table.sources, parameters={}, seed=report.analysis.seed)
    files = [
        {"path": f["path"], "sha256": f["sha256"], "bytes": f["bytes"], "rows": i.get("rows")}
        for i in manifest["inputs"]
        for f in i["files"]
    ]
    body.append(h3("Inputs", "inputs"))
    body.append(
        table(
            files,
            [
                Col("path", "file", _shown_path),
                Col("rows", "rows", lambda v: "" if v is None else f"{v:,}", True),
                Col("bytes", "bytes", lambda v: f"{v:,}", True),
                Col("sha256", "sha256", lambda v: f"<code>{escape(v)}</code>"),
            ],
        )
    )
    if report.config_path:
        body.append(note(f"Config: <code>{_shown_path(report.config_path)}</code>."))
    packages = manifest["environment"]["packages"]
    body.append(
        note(
            "Versions: "
            + ", ".join(f"{escape(k)} {escape(v)}" for k, v in packages.items() if v)
            + f"; Python {escape(manifest['environment']['python'])}."
        )
    )
    return section(
        "Tests, inputs and versions",
        body,
        sid="provenance",
        fold="Which test where and why, input files with sha256, versions",
    )

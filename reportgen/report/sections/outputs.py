"""The report's machine outputs: results.json (validated) and ``tables/*.csv``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reportgen.report.render.html import (
    HTMLBlock,
)
from reportgen.report.sections._base import (
    Report,
)

# --------------------------------------------------------------------------- outputs


def write_outputs(report: Report) -> HTMLBlock:
    """Write ``results.json`` (validated against its schema) and ``tables/*.csv`` to
    the report's output folder and stop the chart workers (the notebooks' last step:
    :meth:`Report.close`); returns a short note for the notebook."""
    import pandas as pd

    from reportgen.report.folder.output import write_csv
    from reportgen.report.folder.tables import write_results

    report.close()
    out = report.output_dir
    out.mkdir(parents=True, exist_ok=True)
    # the long tables (more than TABLE_ROWS_MAX rows) go to tables/<name>.parquet
    columnar = write_results(out, report.results).tables
    tables_dir = out / "tables"
    tables_dir.mkdir(exist_ok=True)
    written = [f"{name}.parquet" for name in columnar]
    for name, rows in _csv_tables(report, skip=frozenset(columnar)).items():
        if rows:  # a table written in Parquet is not also a CSV
            write_csv(pd.DataFrame.from_records(rows), tables_dir / f"{name}.csv")
            written.append(f"{name}.csv")
    return HTMLBlock("", text=f"wrote results.json and tables/ ({', '.join(written)})")


def _flat(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if not isinstance(v, (list, dict))} for row in rows]


def _csv_tables(
    report: Report, skip: frozenset[str] = frozenset()
) -> dict[str, list[dict[str, Any]]]:
    r = report.results
    tables: dict[str, list[dict[str, Any]]] = {
        "systems": _flat(r["systems"]),
        "comparisons": [] if "comparisons" in skip else _flat(r["comparisons"]),
        "power": _flat(r["power"]),
        "noise": _flat(r["noise"]),
        "groups": _flat(r["groups"]),
        "hyperparameters": _flat(r["hyperparameters"]),
    }
    ordered = [x for x in r["rankings"] if x.get("kind") == "ordered"]
    if ordered:
        tables["ranking"] = ordered[0]["systems"]
        tables["ranking_pairs"] = [] if "ranking_pairs" in skip else ordered[0]["pairs"]
    tables["aggregates"] = [
        {"dataset": a["dataset"], **s} for a in r["aggregates"] for s in a["systems"]
    ]
    tables["rank_intervals"] = [
        {"dataset": x["dataset"], "metric": x["metric"], **s}
        for x in r["rankings"]
        if x.get("kind") == "ranks"
        for s in _flat(x["simultaneous"]["systems"])
    ]
    tables["items"] = [
        {"dataset": x["dataset"], "metric": x["metric"], **i}
        for x in ([] if "items" in skip else r["items"])
        for i in x.get("items", [])
    ]
    if report.verdicts:
        tables["verdicts"] = report.verdicts
    verdict = r.get("verdict") or {}
    flips = [
        {
            "dataset": f["dataset"],
            "metric": f["metric"],
            "item": i["item"],
            "baseline_score": i["baseline_score"],
            "candidate_score": i["candidate_score"],
            "change": i["change"],
        }
        for f in verdict.get("flips", ())
        for i in f["items"]
    ]
    if flips:
        from reportgen.report.sections.item_text import flips_text_columns

        tables["flips"] = flips_text_columns(report, flips)  # with the items' text
    return tables

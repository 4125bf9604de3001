"""Plain-text rendering of :meth:`reportgen.data.ScoreTable.summary` for
``reportgen inspect``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reportgen.plaintext import shown

__all__ = ["format_summary"]


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "  ") -> str:
    cells = [[str(c) for c in header]] + [
        [("-" if c is None else shown(c)) for c in r] for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for row in cells:
        parts = [
            c.rjust(w) if c.replace(",", "").replace(".", "").isdigit() else c.ljust(w)
            for c, w in zip(row, widths)
        ]
        lines.append(indent + "  ".join(parts).rstrip())
    return "\n".join(lines)


def _names(names: Sequence[str], limit: int = 12) -> str:
    first = ", ".join(shown(n) for n in names[:limit])
    return first + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def format_summary(summary: dict[str, Any]) -> str:
    """The inspect report as text, one section per topic."""
    out: list[str] = []
    scored = bool(summary["datasets"]) or not summary.get("battles")
    parts = (_datasets, _metrics, _pairing) if scored else ()
    for part in (_inputs, *parts, _battles, _exclusions, _problems):
        out += part(summary)
    return "\n".join(out) + "\n"


def _battles(summary: dict[str, Any]) -> list[str]:
    """Each dataset of battles: battles, systems, outcomes, judges."""
    battles = summary.get("battles") or []
    if not battles:
        return []
    out = [f"\nBattles ({len(battles)} dataset{'s' if len(battles) != 1 else ''})"]
    rows = []
    for b in battles:
        o = b["outcomes"]
        rows.append(
            [
                b["dataset"],
                f"{b['n_battles']:,}",
                f"{b['n_systems']:,}",
                f"{o['model_a']:,}",
                f"{o['model_b']:,}",
                f"{o['tie']:,}",
                f"{o['tie (bothbad)']:,}",
                f"{b['judges']:,}",
            ]
        )
    header = ["dataset", "battles", "systems", "A won", "B won", "tie", "both bad", "judges"]
    out.append(_table(header, rows))
    return out


def _inputs(summary: dict[str, Any]) -> list[str]:
    """The files read, and the systems with their attributes."""
    out: list[str] = []
    inputs = summary["inputs"]
    out.append(f"Inputs ({len(inputs)}): {summary['n_rows']:,} scores")
    out.append(
        _table(
            ["path", "format", "rows"], [[i["path"], i["format"], f"{i['rows']:,}"] for i in inputs]
        )
    )
    systems = summary["systems"]
    out.append(f"\nSystems ({len(systems)}): {_names(systems)}")
    if summary["system_attributes"]:
        out.append(f"  attributes: {', '.join(summary['system_attributes'])}")
    return out


def _datasets(summary: dict[str, Any]) -> list[str]:
    """Each dataset's items, runs, weight and metrics."""
    out: list[str] = []
    datasets = summary["datasets"]
    out.append(f"\nDatasets ({len(datasets)})")
    out.append(
        _table(
            ["dataset", "items", "runs", "weight", "metrics"],
            [
                [
                    d["name"],
                    f"{d['n_items']:,}",
                    d["runs"],
                    f"{d['weight']:g}",
                    ", ".join(m["metric"] for m in d["metrics"]),
                ]
                for d in datasets
            ],
        )
    )
    if summary["item_metadata"]:
        out.append(f"  item metadata: {', '.join(summary['item_metadata'])}")
    return out


def _metrics(summary: dict[str, Any]) -> list[str]:
    """Each metric's modality and direction, and where they came from."""
    out: list[str] = []
    out.append(f"\nMetrics ({len(summary['metrics'])})")
    out.append(
        _table(
            ["metric", "modality", "direction", "weight"],
            [
                [
                    m["name"],
                    f"{m['modality']} ({m['modality_source']})",
                    f"{m['direction']} is better ({m['direction_source']})",
                    f"{m['weight']:g}",
                ]
                for m in summary["metrics"]
            ],
        )
    )
    return out


def _pairing(summary: dict[str, Any]) -> list[str]:
    """How each dataset × metric is paired and what is analysed."""
    out: list[str] = []
    out.append("\nPairing (per dataset × metric)")
    rows = []
    for d in summary["datasets"]:
        for m in d["metrics"]:
            p = m["pairing"]
            excluded = sum(p["excluded_per_system"].values())
            rows.append(
                [
                    d["name"],
                    m["metric"],
                    m["modality"],
                    p["kind"],
                    p["recommended"],
                    p["n_systems"],
                    f"{p['n_items']:,}",
                    f"{p['n_common']:,}",
                    excluded,
                ]
            )
    out.append(
        _table(
            [
                "dataset",
                "metric",
                "modality",
                "pairing",
                "analysed",
                "systems",
                "items",
                "common",
                "excluded",
            ],
            rows,
        )
    )
    return out


def _exclusions(summary: dict[str, Any]) -> list[str]:
    """The observations left out, by reason."""
    out: list[str] = []
    exclusions = summary["exclusions"]
    if exclusions:
        out.append(f"\nExclusions ({sum(e['count'] for e in exclusions):,} observations)")
        out.append(
            _table(
                ["reason", "count", "dataset", "metric", "system", "source"],
                [
                    [
                        e["reason"],
                        f"{e['count']:,}",
                        e["dataset"],
                        e["metric"],
                        e["system"],
                        e["source"],
                    ]
                    for e in exclusions
                ],
            )
        )
    return out


def _problems(summary: dict[str, Any]) -> list[str]:
    """The problems found, by severity."""
    out: list[str] = []
    problems = summary["problems"]
    out.append(f"\nProblems ({len(problems)})" if problems else "\nProblems: none found")
    for p in problems:
        where = f"[{p['dataset']}] " if p["dataset"] else ""
        loc = f" ({p['location']})" if p["location"] else ""
        out.append(f"  {p['severity']}: {where}{p['message']}{loc}")
    return out

"""The one serialiser of an :class:`~reportgen.analysis.Analysis`: :func:`to_results`
gives the ``results.json`` document (the machine contract of docs/results.md, validated
against ``reportgen/schemas/results.schema.json``)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from reportgen.jsonsafe import RESULTS_FORMAT_VERSION, json_safe

if TYPE_CHECKING:
    from reportgen.analysis._core import Analysis

__all__ = ["config_section", "to_results"]


def config_section(analysis: Analysis, summary: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``config`` section of results.json: the options as resolved, the seed used,
    and each metric's direction, modality and weight and each dataset's weight (JSON-safe,
    the form the manifest records too). ``summary`` is the table's summary when at hand."""
    summary = analysis.table.summary() if summary is None else summary
    config = asdict(analysis.options)
    config["seed"] = analysis.seed
    config["metrics"] = {
        m["name"]: {
            "direction": m["direction"],
            "modality": m["modality"],
            "weight": m["weight"],
            "estimand": m["estimand"],
        }
        for m in summary["metrics"]
    }
    config["datasets"] = {d["name"]: {"weight": d["weight"]} for d in summary["datasets"]}
    return json_safe(config)


def to_results(analysis: Analysis, *, long_tables: bool = True) -> dict[str, Any]:
    """The ``results.json`` document of ``analysis``; NaN values are None.

    ``long_tables=False`` leaves the per-pair tables empty (``comparisons``, the ordered
    ranking's ``pairs``, the leaderboards' ``win_rates.pairs``, the ``items`` of each
    item analysis) and the systems' rank probabilities out, for a writer that makes them
    from the analysis' arrays (:func:`reportgen.report.folder.tables.write_analysis`).

    Top level: ``reportgen_version``, ``created``, ``seed``, ``config`` (the options,
    resolved), ``data`` (inputs, systems, datasets, metrics, items, pairing, exclusions,
    problems), then the results: ``systems`` (one row per dataset × metric × system),
    ``comparisons`` (one row per compared pair), ``noise``, ``power`` (with the MDE
    curve), ``runs``, ``clusters``, ``groups``, ``hyperparameters``, ``aggregates``,
    ``rankings`` (the ordered ranking across datasets with its ``selection``, TOPSIS
    checks, rank uncertainty per dataset × metric, leaderboards), ``items``,
    ``exploration`` (bootstrap means), ``caveats``, ``notes``, ``battles`` (inputs with
    pairwise outcomes: ratings, win rates and a decided claim per pair,
    :meth:`reportgen.analysis.battles.BattleAnalysis.to_dict`), ``leaders`` (who leads
    each dataset × metric and who is tied with the leader, the blocks of datasets
    sharing their systems: :meth:`reportgen.analysis.leaders.Leaders.to_dict`),
    ``ledger`` (the family,
    one noise figure per dataset × metric and the methods used:
    :meth:`reportgen.analysis.ledger.Ledger.to_dict`) and ``verdict`` for a release
    comparison. ``comparisons``, ``verdict`` and ``ledger`` together serialise the
    ledger (:attr:`Analysis.ledger`).
    """
    from reportgen import __version__

    table = analysis.table
    summary = table.summary()
    config = config_section(analysis, summary)
    data = {
        "inputs": summary["inputs"],
        "systems": list(table.systems),
        "datasets": [d["name"] for d in summary["datasets"]],
        "metrics": [m["name"] for m in summary["metrics"]],
        "items": {d["name"]: d["n_items"] for d in summary["datasets"]},
        "pairing": [m["pairing"] for d in summary["datasets"] for m in d["metrics"]],
        "exclusions": summary["exclusions"],
        "problems": summary["problems"],
        "skipped_inputs": summary["skipped_inputs"],
        "descriptive": summary["descriptive"],
        "system_attributes": table.system_attributes.reset_index().to_dict("records"),
    }
    units = analysis.units
    rankings: list[dict[str, Any]] = []
    if analysis.ranking is not None:
        rankings.append(analysis.ranking.to_dict(pairs=long_tables))
    rankings.extend(check.to_dict() for check in analysis.topsis)
    rankings.extend(
        u.ranks.to_dict(u.dataset, u.metric, probabilities=long_tables)
        for u in units
        if u.ranks is not None
    )
    rankings.extend(
        u.leaderboard.to_dict(u.dataset, u.metric, pairs=long_tables)
        for u in units
        if u.leaderboard is not None
    )
    document: dict[str, Any] = {
        "format_version": RESULTS_FORMAT_VERSION,
        "reportgen_version": __version__,
        "created": analysis.created,
        "seed": analysis.seed,
        "config": config,
        "data": data,
        "systems": [row for u in units for row in u.system_records()],
        "comparisons": analysis.comparisons() if long_tables else [],
        "noise": [
            {"dataset": u.dataset, "metric": u.metric, **u.noise.to_dict()}
            for u in units
            if u.noise is not None
        ],
        "power": [row for u in units if (row := u.power_dict()) is not None],
        "runs": [u.runs.to_dict(u.dataset, u.metric) for u in units if u.runs is not None],
        "clusters": [
            u.clusters.to_dict(u.dataset, u.metric) for u in units if u.clusters is not None
        ],
        "groups": [g.to_dict(u.dataset, u.metric) for u in units for g in u.groups],
        "hyperparameters": [
            h.to_dict(u.dataset, u.metric) for u in units for h in u.hyperparameters
        ],
        "aggregates": [a.to_dict() for a in analysis.aggregates],
        "rankings": rankings,
        "items": [
            {"dataset": u.dataset, "metric": u.metric, **u.items.to_dict()}
            if long_tables
            else {"dataset": u.dataset, "metric": u.metric, **u.items.to_dict(), "items": []}
            for u in units
            if u.items is not None
        ],
        "exploration": [row for u in units if (row := u.exploration_dict()) is not None],
        "caveats": [
            {"dataset": u.dataset, "metric": u.metric, "text": text}
            for u in units
            for text in u.caveats
        ],
        "notes": list(analysis.notes),
        "degenerate": [
            {"dataset": u.dataset, "metric": u.metric, "reason": u.degenerate_reason}
            for u in units
            if u.degenerate_reason is not None
        ],
    }
    if analysis.battles:
        document["battles"] = analysis.battles.to_dict()
    document["ledger"] = analysis.ledger.to_dict()
    document["leaders"] = analysis.leaders.to_dict()
    if analysis.release is not None:
        document["verdict"] = analysis.release.to_dict()
    return json_safe(document)

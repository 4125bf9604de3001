"""Groups and hyperparameters, used by :func:`reportgen.analysis.analyze`.

* **Group by item metadata**: the systems are compared separately within each
  level (or combination of levels) of item-metadata columns such as difficulty —
  perhaps two systems differ only on hard items.
* **Condition and compare**: systems are defined by hyperparameters (system
  attributes such as model, prompt format, context size). Within each combination of
  the *condition* attributes, systems sharing the same values of the *compare*
  attributes are pooled; the pooled levels are ordered by mean and the best is tested
  against each other level with a right-tailed test (first-vs-rest of the ordered
  procedure of Ackerman et al. 2025). On paired data the pool of a level is the per-item
  mean over its systems, so the levels stay paired on the items; on unpaired data the
  pool is the concatenation of the systems' scores.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from reportgen.analysis.results import (
    GroupComparison,
    HyperparameterComparison,
    HyperparameterLevel,
)
from reportgen.data import ScoreTable
from reportgen.errors import DegenerateDataWarning, InputError, OneSidedWarning
from reportgen.stats.pairwise import compare_paired, compare_unpaired

__all__ = ["condition_and_compare", "group_comparisons", "validate_columns"]


def validate_columns(
    table: ScoreTable,
    *,
    group_by: Sequence[str],
    compare_by: Sequence[str],
    condition_on: Sequence[str],
) -> None:
    """Check the column names before any work, with the choices in the message."""
    meta = list(table.item_metadata.columns)
    for column in group_by:
        if column not in meta:
            raise InputError(
                f"group_by column {column!r} is not item metadata",
                hint=f"item-metadata columns: {', '.join(meta) or 'none'} "
                "(columns constant within each item)",
            )
    attrs = list(table.system_attributes.columns)
    for column in (*compare_by, *condition_on):
        if column not in attrs:
            raise InputError(
                f"hyperparameter {column!r} is not a system attribute",
                hint=f"system attributes: {', '.join(attrs) or 'none'} "
                "(columns constant within each system)",
            )
    overlap = set(compare_by) & set(condition_on)
    if overlap:
        raise InputError(
            f"{', '.join(sorted(overlap))} is both compared and conditioned on",
            hint="an attribute is either compared or conditioned on",
        )
    if condition_on and not compare_by:
        raise InputError(
            "condition_on needs compare_by",
            hint="name the hyperparameters to compare with --compare-by",
        )


def _grouped(frame: pd.DataFrame, columns: Sequence[str]) -> dict[tuple, list[int]]:
    """Row positions per combination of ``columns`` (always tuple keys, sorted)."""
    out: dict[tuple, list[int]] = {}
    for position, key in enumerate(frame[list(columns)].itertuples(index=False, name=None)):
        out.setdefault(tuple(_label(v) for v in key), []).append(position)
    return dict(sorted(out.items()))


def _label(values: Any) -> str:
    return "" if values is None or (isinstance(values, float) and np.isnan(values)) else str(values)


def group_comparisons(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    group_by: Sequence[str],
    pairing: str,
    common: dict[str, Any],
) -> tuple[GroupComparison, ...]:
    """The comparisons of (dataset, metric) within each level of ``group_by``."""
    meta = table.item_metadata
    entries = []
    if pairing == "paired":
        view = table.paired(dataset, metric, systems)
        scores = view.item_means()
        keys = meta.loc[[(dataset, i) for i in view.items], list(group_by)]
        for level, rows in _grouped(keys, group_by).items():
            label = dict(zip(group_by, level))
            if len(rows) < 2:
                entries.append(
                    GroupComparison(label, len(rows), note="fewer than 2 items in this group")
                )
                continue
            sub = scores[np.array(rows)]
            result = compare_paired(sub, systems=view.systems, **common)
            entries.append(
                GroupComparison(
                    label,
                    len(rows),
                    result,
                    {s: float(m) for s, m in zip(view.systems, sub.mean(axis=0))},
                )
            )
        return tuple(entries)
    uview = table.unpaired(dataset, metric, systems)
    per_system = []
    for items, values in zip(uview.items, uview.item_means()):
        keys = meta.loc[[(dataset, i) for i in items], list(group_by)]
        labels = [tuple(_label(v) for v in row) for row in keys.itertuples(index=False, name=None)]
        per_system.append((labels, values))
    levels = sorted({lv for keys, _ in per_system for lv in keys})
    for level in levels:
        samples = [
            values[np.array([k == level for k in keys], dtype=bool)] for keys, values in per_system
        ]
        label = dict(zip(group_by, level))
        n_items = int(sum(len(s) for s in samples))
        if min(len(s) for s in samples) < 1:
            entries.append(
                GroupComparison(label, n_items, note="some system has no item in this group")
            )
            continue
        result = compare_unpaired(samples, systems=uview.systems, **common)
        entries.append(
            GroupComparison(
                label, n_items, result, {s: float(x.mean()) for s, x in zip(uview.systems, samples)}
            )
        )
    return tuple(entries)


def condition_and_compare(
    table: ScoreTable,
    dataset: str,
    metric: str,
    systems: list[str],
    compare_by: Sequence[str],
    condition_on: Sequence[str],
    pairing: str,
    direction: str,
    common: dict[str, Any],
) -> tuple[HyperparameterComparison, ...]:
    """Condition and compare for one (dataset, metric): one result per condition
    group."""
    attrs = table.system_attributes.reindex(systems)
    conditions = _grouped(attrs, condition_on) if condition_on else {(): list(range(len(systems)))}
    entries = []
    for condition, members in conditions.items():
        condition_label = dict(zip(condition_on, condition))
        sub_attrs = attrs.iloc[members]
        pooled: list[np.ndarray] = []
        levels: list[HyperparameterLevel] = []
        for level, positions in _grouped(sub_attrs, compare_by).items():
            chosen = set(sub_attrs.index[positions])
            level_systems = [s for s in systems if s in chosen]
            label = dict(zip(compare_by, level))
            name = ", ".join(f"{k}={v}" for k, v in label.items())
            if pairing == "paired":
                view = table.paired(dataset, metric, systems)
                cols = [view.systems.index(s) for s in level_systems]
                pooled.append(view.item_means()[:, cols].mean(axis=1))
            else:
                uview = table.unpaired(dataset, metric, level_systems)
                pooled.append(np.concatenate(uview.item_means()))
            levels.append(
                HyperparameterLevel(
                    label, name, tuple(level_systems), float(pooled[-1].mean()), len(pooled[-1])
                )
            )
        if len(pooled) < 2:
            entries.append(
                HyperparameterComparison(
                    condition_label,
                    tuple(compare_by),
                    tuple(levels),
                    note="a single level of the compared hyperparameters here",
                )
            )
            continue
        sign = 1.0 if direction == "higher" else -1.0
        order = sorted(range(len(pooled)), key=lambda k: -sign * pooled[k].mean())
        ordered = [pooled[k] for k in order]
        ordered_names = [levels[k].name for k in order]
        # the best level against each other, right-tailed (Dror et al. 2019, ordered
        # procedure)
        options = {
            **common,
            "order": "first-vs-rest",
            "baseline": 0,
            "alternative": "greater" if direction == "higher" else "less",
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OneSidedWarning)  # the order comes from data
            warnings.simplefilter("ignore", DegenerateDataWarning)
            if pairing == "paired":
                result = compare_paired(np.column_stack(ordered), systems=ordered_names, **options)
            else:
                result = compare_unpaired(ordered, systems=ordered_names, **options)
        entries.append(
            HyperparameterComparison(
                condition_label, tuple(compare_by), tuple(levels[k] for k in order), result
            )
        )
    return tuple(entries)

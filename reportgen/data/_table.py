"""The canonical score table: validated once, then viewed as the statistics need it.

One row per observed score (docs/design.md, "The data contract"). :func:`build_score_table`
checks what adapters read and raises :class:`~reportgen.errors.InputError` with the file
and line of the first offending row; :class:`ScoreTable` then answers the questions the
statistics ask: which systems, datasets, metrics and items there are, whether systems are
paired on a dataset, which modality and direction a metric has, and the items × systems
(× runs) matrix or per-system arrays of one (dataset, metric).

Policies
--------
Missing scores
    An empty cell, ``NaN`` or ``null`` score means "this system was not scored on this
    item": with ``nan_policy="drop"`` (default) the row is dropped and counted in
    :attr:`ScoreTable.exclusions`; with ``"raise"`` it is an error. Infinite scores are
    always an error.
Pairing
    Within a (dataset, metric), systems are *paired* when all were scored on the same
    items, *unpaired* when no item is shared by all, and *partial* otherwise. Partial
    overlap is analysed paired on the common items when they are at least 2 and at least
    half of the smallest system's items (the excluded items are counted per system);
    otherwise unpaired. :attr:`PairingInfo.recommended` holds that choice; the analysis
    can force either.
Modality
    Binary if every score of the (dataset, metric) is 0 or 1, else continuous; the config
    overrides it (a metric declared binary with other values is an error).
Direction and weight
    From the config, else from the source (e.g. lm-eval's ``higher_is_better``), else
    from the name: a metric one of whose words is lower-is-better by convention
    (:data:`LOWER_IS_BETTER_WORDS`: loss, error, err, wer, cer, perplexity, latency,
    time, duration, cost, mae, mse, rmse, distance, ... as whole words of the name, e.g.
    ``latency_ms``, ``edit_distance``, ``error_rate``, ``evalLoss``) is lower-is-better,
    with one info problem naming the metrics and the config override; else higher is
    better. Weight 1 unless the config gives one.
Repeated runs
    A ``run`` column (seed, sample, epoch) adds a runs axis. Within a dataset every row
    has a run or none has; a dataset without runs has a single run.
Extra columns
    A column constant within each (dataset, item) and varying across items is *item
    metadata*; one constant within each system is a *system attribute*
    (hyperparameter); other columns stay in :attr:`ScoreTable.frame`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd

from reportgen.data._battles import BattleTable, build_battle_table
from reportgen.data._config import Direction, Modality, TableConfig
from reportgen.data._table_build import (
    KEY_COLUMNS,
    LABEL_COLUMNS,
    LOWER_IS_BETTER_WORDS,  # noqa: F401 (re-exported)
    REQUIRED_COLUMNS,
    Codes,
    MetricInfo,
    _apply_nan_policy,
    _check_declared_modality,
    _check_duplicates,
    _check_references,
    _check_required,
    _decimal_floats,  # noqa: F401 (re-exported)
    _duplicate_hints,
    _file_categories,
    _files_location,
    _first_rows,
    _Group,
    _groups,
    _has_duplicate_keys,  # noqa: F401 (re-exported)
    _kept_codes,
    _labels,
    _metric_infos,
    _nested_as_json,
    _pair_codes,
    _row_groups,  # noqa: F401 (re-exported)
    _runs,
    _scores,
    _skipped_problems,
    _split_extras,
    direction_note,  # noqa: F401 (re-exported)
    lower_is_better_by_name,  # noqa: F401 (re-exported)
)
from reportgen.data._texts import DEFAULT_TEXT_LIMIT, ItemTexts, split_texts
from reportgen.data.adapters._base import (
    SOURCE_FILE,
    SOURCE_LINE,
    AdapterResult,
    Exclusion,
    Problem,
    SkippedInput,
)
from reportgen.errors import InputError, Location
from reportgen.plaintext import count, did_you_mean, shown_path

__all__ = [
    "KEY_COLUMNS",
    "REQUIRED_COLUMNS",
    "MetricInfo",
    "PairedSamples",
    "PairingInfo",
    "PredictionSamples",
    "ScoreTable",
    "UnpairedSamples",
    "build_score_table",
]


PairingKind = Literal["paired", "partial", "unpaired"]


@dataclass(frozen=True)
class PairingInfo:
    """How the systems of one (dataset, metric) relate through their items.

    Attributes
    ----------
    kind
        ``"paired"`` (same items for every system), ``"partial"`` or ``"unpaired"``
        (no item common to all systems).
    recommended
        ``"paired"`` or ``"unpaired"``: what the analysis uses by default (module notes).
    n_items
        Items scored by at least one system (the union).
    n_common
        Items scored by every system (the intersection).
    items_per_system
        System -> number of items it was scored on.
    excluded_per_system
        System -> items dropped when the analysis is paired (items not scored by all).
    """

    dataset: str
    metric: str
    kind: PairingKind
    recommended: Literal["paired", "unpaired"]
    n_systems: int
    n_items: int
    n_common: int
    items_per_system: Mapping[str, int]
    excluded_per_system: Mapping[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "metric": self.metric,
            "kind": self.kind,
            "recommended": self.recommended,
            "n_systems": self.n_systems,
            "n_items": self.n_items,
            "n_common": self.n_common,
            "items_per_system": dict(self.items_per_system),
            "excluded_per_system": dict(self.excluded_per_system),
        }


@dataclass(frozen=True)
class PairedSamples:
    """Scores of several systems on the same items of one (dataset, metric).

    Attributes
    ----------
    scores
        ``(n_items, n_systems)`` floats, or ``(n_items, n_systems, n_runs)`` when the
        dataset has repeated runs; NaN marks a run a system did not make on an item.
    runs
        Run labels along the last axis, or ``None`` without a runs axis.
    n_excluded
        Items dropped because not every selected system was scored on them.
    """

    dataset: str
    metric: str
    systems: tuple[str, ...]
    items: tuple[str, ...]
    scores: np.ndarray
    runs: tuple[Any, ...] | None
    modality: Modality
    direction: Direction
    n_excluded: int = 0

    @property
    def n_items(self) -> int:
        return len(self.items)

    def item_means(self) -> np.ndarray:
        """``(n_items, n_systems)``: the scores averaged over runs (as is without runs)."""
        if self.runs is None:
            return self.scores
        return np.nanmean(self.scores, axis=2)

    def run_counts(self) -> np.ndarray:
        """``(n_items, n_systems)`` number of runs observed per item and system."""
        if self.runs is None:
            return np.ones(self.scores.shape, dtype=np.int64)
        return np.sum(~np.isnan(self.scores), axis=2)


@dataclass(frozen=True)
class UnpairedSamples:
    """Scores of several systems of one (dataset, metric), each on its own items.

    ``scores[b]`` is ``(n_b,)`` or, with repeated runs, ``(n_b, n_runs)`` with NaN for
    missing runs; ``items[b]`` names its rows.
    """

    dataset: str
    metric: str
    systems: tuple[str, ...]
    items: tuple[tuple[str, ...], ...]
    scores: tuple[np.ndarray, ...]
    runs: tuple[Any, ...] | None
    modality: Modality
    direction: Direction

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(s) for s in self.scores)

    def item_means(self) -> tuple[np.ndarray, ...]:
        """Per system, the scores averaged over runs (as is without runs)."""
        if self.runs is None:
            return self.scores
        return tuple(np.nanmean(s, axis=1) for s in self.scores)


@dataclass(frozen=True)
class PredictionSamples:
    """Predictions of several systems on the same items of one (dataset, metric), with
    each item's reference: the input of corpus-level metrics (F1, precision, recall).

    ``predictions`` is ``(n_items, n_systems)`` or, with repeated runs,
    ``(n_items, n_systems, n_runs)`` of labels (``None`` where a prediction or run is
    missing); ``references`` is ``(n_items,)``.
    """

    dataset: str
    metric: str
    systems: tuple[str, ...]
    items: tuple[str, ...]
    predictions: np.ndarray
    references: np.ndarray
    runs: tuple[Any, ...] | None
    n_excluded: int = 0


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """The validated long table of scores. Build it with :func:`build_score_table` or
    :func:`reportgen.data.load`, not directly.

    Attributes
    ----------
    frame
        One row per score: ``system, dataset, metric, item, score``, ``run`` when any
        dataset has runs, extra row-level columns, and the provenance columns ``_file``
        and ``_line``.
    systems, datasets
        Names in order of first appearance.
    metrics
        Metric name -> :class:`MetricInfo`.
    exclusions
        Observations left out, with reasons (missing scores, errored samples, ...).
    problems
        Non-fatal findings, for the report's Data section and ``reportgen inspect``.
    item_metadata
        Indexed by (dataset, item): the item-level extra columns.
    system_attributes
        Indexed by system: the system-level extra columns (hyperparameters).
    dataset_weights
        Dataset -> weight (config, default 1).
    sources
        One entry per input read: ``{"path", "format", "rows", "files"}``, where
        ``files`` lists every file the adapter parsed as ``{"path", "resolved",
        "sha256", "bytes"}``: the SHA-256 of the bytes read, computed as they were read
        (so a file edited later still shows the hash of what the results came from).
    skipped_inputs
        Inputs the adapters skipped (a cancelled or empty log next to good ones, a
        missing samples file, ...), each with the reason.
    descriptive
        Statistics the inputs record but that are not compared (HELM's token counts and
        run times, ...): ``{"system", "dataset", "statistic", "mean", "n"}`` rows.
    texts
        The items' text (input, output, target, explanation) where the inputs carry it
        (:class:`~reportgen.data._texts.ItemTexts`); never a score.
    battles
        The pairwise outcomes the inputs hold (:class:`reportgen.data.BattleTable`), or
        None. A table of battles only has no scores: its ``systems`` are the systems
        that battled and it has no dataset × metric.
    """

    frame: pd.DataFrame
    systems: tuple[str, ...]
    datasets: tuple[str, ...]
    metrics: Mapping[str, MetricInfo]
    exclusions: tuple[Exclusion, ...]
    problems: tuple[Problem, ...]
    item_metadata: pd.DataFrame
    system_attributes: pd.DataFrame
    dataset_weights: Mapping[str, float]
    sources: tuple[Mapping[str, Any], ...]
    _modality: Mapping[tuple[str, str], Modality] = field(repr=False)
    _groups: Mapping[tuple[str, str], _Group] = field(repr=False)
    _run_labels: Mapping[str, tuple[Any, ...] | None] = field(repr=False)
    skipped_inputs: tuple[SkippedInput, ...] = ()
    descriptive: tuple[Mapping[str, Any], ...] = ()
    texts: ItemTexts = field(default_factory=ItemTexts.none)
    battles: BattleTable | None = None

    # ------------------------------------------------------------------ structure

    def metrics_of(self, dataset: str) -> tuple[str, ...]:
        """Metrics scored on ``dataset``, in order of first appearance."""
        self._check_dataset(dataset)
        return tuple(m for d, m in self._groups if d == dataset)

    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Every (dataset, metric) present: the sample lists of Ackerman et al. 2025, §2.1."""
        return tuple(self._groups)

    def items_of(self, dataset: str) -> tuple[str, ...]:
        """Items of ``dataset`` scored on any metric by any system."""
        self._check_dataset(dataset)
        labels: dict[str, None] = {}
        for (d, _), group in self._groups.items():
            if d == dataset:
                labels.update(dict.fromkeys(group.items.tolist()))
        return tuple(labels)

    def systems_of(self, dataset: str, metric: str) -> tuple[str, ...]:
        """Systems scored on (dataset, metric), in the table's system order."""
        group = self._group(dataset, metric)
        present = self._present_codes(group)
        return tuple(self.systems[c] for c in present)

    def runs_of(self, dataset: str) -> tuple[Any, ...] | None:
        """Run labels of ``dataset``, or None when it has no repeated runs."""
        self._check_dataset(dataset)
        return self._run_labels[dataset]

    def modality(self, dataset: str, metric: str) -> Modality:
        """Binary or continuous for this (dataset, metric) (module notes)."""
        self._group(dataset, metric)
        return self._modality[(dataset, metric)]

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    # ------------------------------------------------------------------ pairing

    def pairing(
        self, dataset: str, metric: str, systems: Sequence[str] | None = None
    ) -> PairingInfo:
        """Detect how the (selected) systems of (dataset, metric) share items."""
        group = self._group(dataset, metric)
        codes = self._system_codes(dataset, metric, systems)
        n_items = len(group.items)
        # items x systems presence; several runs of one item count once
        present = np.zeros((n_items, len(codes)), dtype=bool)
        col_of = np.full(len(self.systems), -1, dtype=np.intp)
        col_of[codes] = np.arange(len(codes))
        column = col_of[group.system_codes]
        keep = column >= 0
        if keep.all():  # every system: no copy of the rows
            present[group.item_codes, column] = True
        else:
            present[group.item_codes[keep], column[keep]] = True
        per_item = present.sum(axis=1)
        n_union = int(np.count_nonzero(per_item))
        common = per_item == len(codes)
        n_common = int(np.count_nonzero(common))
        per_system = present.sum(axis=0)
        names = [self.systems[c] for c in codes]
        items_per_system = {n: int(k) for n, k in zip(names, per_system)}
        excluded = {n: int(k) - n_common for n, k in zip(names, per_system)}
        if n_common == n_union:
            kind: PairingKind = "paired"
        elif n_common == 0:
            kind = "unpaired"
        else:
            kind = "partial"
        smallest = int(per_system.min()) if len(per_system) else 0
        paired_ok = kind == "paired" or (n_common >= 2 and 2 * n_common >= smallest)
        return PairingInfo(
            dataset,
            metric,
            kind,
            "paired" if paired_ok else "unpaired",
            len(codes),
            n_union,
            n_common,
            items_per_system,
            excluded,
        )

    # ------------------------------------------------------------------ views

    def paired(
        self, dataset: str, metric: str, systems: Sequence[str] | None = None
    ) -> PairedSamples:
        """Items × systems (× runs) matrix of one (dataset, metric) on the items every
        selected system was scored on.

        Parameters
        ----------
        systems
            Systems to include, in this order; default: every system scored on it.

        Raises
        ------
        InputError
            If fewer than one item is common to the selected systems.
        """
        group = self._group(dataset, metric)
        codes = self._system_codes(dataset, metric, systems)
        order = [self.systems.index(s) for s in systems] if systems is not None else list(codes)
        col_of = np.full(len(self.systems), -1, dtype=np.intp)
        col_of[order] = np.arange(len(order))
        cols = col_of[group.system_codes]
        selected = cols >= 0
        # every system: the rows themselves, no copies
        keep: slice | np.ndarray = slice(None) if selected.all() else selected
        del selected
        item_codes = group.item_codes[keep]
        cols = cols[keep]
        n_items = len(group.items)
        present = np.zeros((n_items, len(order)), dtype=bool)
        present[item_codes, cols] = True
        common = np.asarray(present.all(axis=1), dtype=bool)
        any_present = present.any(axis=1)
        n_excluded = int(np.count_nonzero(any_present & ~common))
        if not common.any():
            raise InputError(
                f"no item of dataset {dataset!r}, metric {metric!r} was scored for all of "
                f"{', '.join(self.systems[c] for c in order)}",
                hint="compare these systems unpaired, or select systems scored on the same items",
            )
        new_index = np.cumsum(common) - 1
        rows: slice | np.ndarray = slice(None) if common.all() else common[item_codes]
        r_items = new_index[item_codes[rows]]
        r_cols = cols[rows]
        values = group.scores[keep][rows]
        runs = self._run_labels[dataset]
        if runs is None:
            scores = np.full((int(common.sum()), len(order)), np.nan)
            scores[r_items, r_cols] = values
        else:
            assert group.run_codes is not None
            scores = np.full((int(common.sum()), len(order), len(runs)), np.nan)
            scores[r_items, r_cols, group.run_codes[keep][rows]] = values
        return PairedSamples(
            dataset,
            metric,
            tuple(self.systems[c] for c in order),
            tuple(group.items[common].tolist()),
            scores,
            runs,
            self._modality[(dataset, metric)],
            self.metrics[metric].direction,
            n_excluded,
        )

    def unpaired(
        self, dataset: str, metric: str, systems: Sequence[str] | None = None
    ) -> UnpairedSamples:
        """One array per system of one (dataset, metric), each on all its own items."""
        group = self._group(dataset, metric)
        codes = self._system_codes(dataset, metric, systems)
        order = [self.systems.index(s) for s in systems] if systems is not None else list(codes)
        runs = self._run_labels[dataset]
        items_out, scores_out = [], []
        for code in order:
            mask = group.system_codes == code
            icodes = group.item_codes[mask]
            uniq, local = np.unique(icodes, return_inverse=True)
            # keep first-appearance order of items
            first = np.argsort(uniq)
            if runs is None:
                arr = np.full(len(uniq), np.nan)
                arr[local] = group.scores[mask]
            else:
                assert group.run_codes is not None
                arr = np.full((len(uniq), len(runs)), np.nan)
                arr[local, group.run_codes[mask]] = group.scores[mask]
            items_out.append(tuple(group.items[uniq[first]].tolist()))
            scores_out.append(arr[first])
        return UnpairedSamples(
            dataset,
            metric,
            tuple(self.systems[c] for c in order),
            tuple(items_out),
            tuple(scores_out),
            runs,
            self._modality[(dataset, metric)],
            self.metrics[metric].direction,
        )

    def has_predictions(self, dataset: str, metric: str) -> bool:
        """Whether the rows of (dataset, metric) carry predictions and references."""
        return self._group(dataset, metric).predictions is not None

    def predictions(
        self, dataset: str, metric: str, systems: Sequence[str] | None = None
    ) -> PredictionSamples:
        """Predictions and references of (dataset, metric) on the items every selected
        system was scored on (see :meth:`paired`).

        Raises
        ------
        InputError
            If these rows have no ``prediction``/``reference`` columns.
        """
        group = self._group(dataset, metric)
        if group.predictions is None or group.references is None:
            raise InputError(
                f"dataset {dataset!r}, metric {metric!r} has no predictions",
                hint="corpus-level metrics need prediction and reference "
                "columns (--prediction-col, --reference-col)",
            )
        view = self.paired(dataset, metric, systems)
        item_index = {item: k for k, item in enumerate(view.items)}
        col_of = {name: j for j, name in enumerate(view.systems)}
        shape = (len(view.items), len(view.systems)) + (
            () if view.runs is None else (len(view.runs),)
        )
        predictions = np.full(shape, None, dtype=object)
        references = np.full(len(view.items), None, dtype=object)
        for r in range(len(group.scores)):
            name = self.systems[group.system_codes[r]]
            k = item_index.get(group.items[group.item_codes[r]])
            if k is None or name not in col_of:
                continue
            where = (
                (k, col_of[name]) if view.runs is None else (k, col_of[name], group.run_codes[r])  # type: ignore[index]
            )
            value = group.predictions[r]
            predictions[where] = None if _is_missing(value) else value
            references[k] = group.references[r]
        return PredictionSamples(
            dataset,
            metric,
            view.systems,
            view.items,
            predictions,
            references,
            view.runs,
            view.n_excluded,
        )

    # ------------------------------------------------------------------ summary

    def summary(self) -> dict[str, Any]:
        """Everything ``reportgen inspect`` shows, as JSON-ready data."""
        datasets = []
        for dataset in self.datasets:
            runs = self._run_labels[dataset]
            entries = []
            for metric in self.metrics_of(dataset):
                info = self.pairing(dataset, metric)
                entries.append(
                    {
                        "metric": metric,
                        "modality": self.modality(dataset, metric),
                        "n_systems": info.n_systems,
                        "n_items": info.n_items,
                        "pairing": info.to_dict(),
                    }
                )
            datasets.append(
                {
                    "name": dataset,
                    "n_items": len(self.items_of(dataset)),
                    "weight": self.dataset_weights[dataset],
                    "runs": None if runs is None else len(runs),
                    "metrics": entries,
                }
            )
        return {
            "inputs": [dict(s) for s in self.sources],
            "n_rows": self.n_rows,
            "n_systems": len(self.systems),
            "n_datasets": len(self.datasets),
            "n_metrics": len(self.metrics),
            "systems": list(self.systems),
            "datasets": datasets,
            "metrics": [m.to_dict() for m in self.metrics.values()],
            "item_metadata": list(self.item_metadata.columns),
            "system_attributes": list(self.system_attributes.columns),
            "exclusions": [e.to_dict() for e in self.exclusions],
            "problems": [p.to_dict() for p in self.problems],
            "skipped_inputs": [s.to_dict() for s in self.skipped_inputs],
            "descriptive": [dict(d) for d in self.descriptive],
            "battles": [] if self.battles is None else self.battles.summary(),
        }

    # ------------------------------------------------------------------ internals

    def _check_dataset(self, dataset: str) -> None:
        if dataset not in self._run_labels:
            raise InputError(
                f"unknown dataset {dataset!r}", hint=f"known datasets: {', '.join(self.datasets)}"
            )

    def _group(self, dataset: str, metric: str) -> _Group:
        self._check_dataset(dataset)
        try:
            return self._groups[(dataset, metric)]
        except KeyError:
            raise InputError(
                f"metric {metric!r} is not scored on dataset {dataset!r}",
                hint=f"metrics of {dataset!r}: {', '.join(self.metrics_of(dataset))}",
            ) from None

    def _system_codes(self, dataset: str, metric: str, systems: Sequence[str] | None) -> np.ndarray:
        present = self._present_codes(self._groups[(dataset, metric)])
        if systems is None:
            return present
        codes = []
        for name in systems:
            if name not in self._system_index:
                raise InputError(f"unknown system {name!r}", hint=did_you_mean(name, self.systems))
            code = self._system_index[name]
            if code not in present:
                raise InputError(
                    f"system {name!r} has no score for dataset {dataset!r}, metric {metric!r}"
                )
            codes.append(code)
        if len(set(codes)) != len(codes):
            raise InputError(f"systems listed twice in {list(systems)!r}")
        return np.array(sorted(codes))

    def _present_codes(self, group: _Group) -> np.ndarray:
        """The system codes of ``group``, ascending (``np.unique(group.system_codes)``
        by one counting pass instead of a sort or hash of every row)."""
        counts = np.bincount(group.system_codes, minlength=len(self.systems))
        return np.flatnonzero(counts)

    @cached_property
    def _system_index(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.systems)}


# ====================================================================== building


def build_score_table(
    results: Sequence[AdapterResult] | AdapterResult,
    config: TableConfig | None = None,
    *,
    nan_policy: Literal["drop", "raise"] = "drop",
    min_systems: int = 2,
    text_limit: int = DEFAULT_TEXT_LIMIT,
    keep_text: bool = True,
) -> ScoreTable:
    """Validate what adapters read and build the :class:`ScoreTable`.

    Parameters
    ----------
    results
        One or several adapter results (several files are concatenated).
    config
        Metric and dataset properties; default: all inferred.
    nan_policy
        What a missing score means (module notes).
    min_systems
        Fewer systems than this is an error: 2 to compare, 1 to look at one system's
        data (``reportgen inspect``).
    text_limit, keep_text
        The most characters kept of one item text, and whether to keep any
        (``--text-limit``, ``--no-text``): the text columns ``input``, ``output``,
        ``target`` and ``explanation`` are taken out of the rows either way
        (:func:`~reportgen.data._texts.split_texts`).

    Raises
    ------
    InputError
        No rows; a required column missing; an empty system, dataset, metric or item;
        a non-numeric or infinite score; a missing score with ``nan_policy="raise"``; the
        same (system, dataset, metric, item, run) twice; a run given for some rows of a
        dataset and not others; a metric declared binary with other values; fewer than
        two systems or two items in the whole table.
    """
    if isinstance(results, AdapterResult):
        results = [results]
    if nan_policy not in ("drop", "raise"):
        raise InputError(f"nan_policy={nan_policy!r} is not valid", hint="use 'drop' or 'raise'")
    config = config or TableConfig()
    frames = [r.frame for r in results if len(r.frame)]
    sources = tuple(
        {
            "path": r.source,
            "format": r.format,
            "rows": len(r.frame),
            "files": [f.to_dict() for f in r.files],
        }
        for r in results
    )
    exclusions: list[Exclusion] = [e for r in results for e in r.exclusions]
    problems: list[Problem] = [p for r in results for p in r.problems]
    skipped = tuple(s for r in results for s in r.skipped)
    problems.extend(_skipped_problems(skipped))
    battles = build_battle_table([r.battles for r in results if r.battles is not None], problems)
    if battles is not None:
        exclusions.extend(battles.exclusions)
        if not frames:  # battles only: a table without scores
            return battles_only_table(results, battles, exclusions, problems, skipped, sources)
    df = _concatenated(results, frames, problems)

    _check_required(df)
    codes: Codes = {}
    for column in LABEL_COLUMNS:
        df[column], codes[column] = _labels(df, column)
    df, texts = split_texts(df, limit=text_limit, keep=keep_text)
    df["score"] = _scores(df)
    kept = df["score"].notna().to_numpy()
    df, dropped = _apply_nan_policy(df, nan_policy)
    if dropped:
        codes = _kept_codes(codes, kept)
    del kept
    exclusions.extend(dropped)
    if df.empty:
        raise InputError(
            f"every score is missing ({count(sum(e.count for e in dropped), 'row')})",
            location=_files_location(e.source for e in dropped),
            hint="check the score column: an empty cell, NaN or null means not scored",
        )
    run_labels = _runs(df)
    _check_duplicates(df, _duplicate_hints(results), codes)
    _check_references(df)

    systems = _systems_to_compare(df, min_systems, codes)
    datasets = tuple(codes["dataset"][1])

    groups, modality = _groups(df, systems, run_labels, codes)
    metrics = _metric_infos(df, config, modality, results, problems)
    _check_declared_modality(metrics, modality, groups, df)
    _nested_as_json(df)
    item_meta, system_attrs, row_extras = _split_extras(df, results, codes)
    _declared_system_attributes(config, systems, system_attrs)
    keep_cols = (
        [c for c in ("system", "dataset", "metric", "item", "run", "score") if c in df]
        + row_extras
        + [SOURCE_FILE, SOURCE_LINE]
    )
    frame = df[keep_cols]
    dataset_weights: dict[str, float] = {}
    for d in datasets:
        weight = config.datasets[d].weight if d in config.datasets else None
        dataset_weights[d] = 1.0 if weight is None else weight
    table = ScoreTable(
        frame,
        systems,
        datasets,
        metrics,
        tuple(exclusions),
        (),
        item_meta,
        system_attrs,
        dataset_weights,
        sources,
        modality,
        groups,
        run_labels,
        skipped,
        tuple(d for r in results for d in r.descriptive),
        texts,
    )
    problems.extend(_findings(table, config))
    return dataclasses.replace(table, problems=tuple(problems), battles=battles)


def battles_only_table(
    results: Sequence[AdapterResult],
    battles: BattleTable,
    exclusions: list[Exclusion],
    problems: list[Problem],
    skipped: tuple[SkippedInput, ...],
    sources: tuple[Mapping[str, Any], ...],
) -> ScoreTable:
    """The table of inputs that hold battles and no scores: no dataset × metric, the
    systems that battled, and the battles."""
    if len(battles.systems) < 2:
        raise InputError(
            f"only one system ({battles.systems[0]!r}) in the battles: there is nothing to compare",
            location=_files_location(battles.frame[SOURCE_FILE]),
            hint="give battles between at least two systems",
        )
    attributes: dict[str, dict[str, Any]] = {}
    for result in results:
        for name, values in result.system_attributes.items():
            attributes.setdefault(name, {}).update(values)
    system_attrs = pd.DataFrame.from_dict(attributes, orient="index").reindex(
        pd.Index(battles.systems, name="system")
    )
    empty = pd.DataFrame(
        {
            "system": pd.Series(dtype=str),
            "dataset": pd.Series(dtype=str),
            "metric": pd.Series(dtype=str),
            "item": pd.Series(dtype=str),
            "score": pd.Series(dtype=np.float64),
            SOURCE_FILE: pd.Series(dtype=str),
            SOURCE_LINE: pd.Series(dtype=np.int64),
        }
    )
    items = pd.DataFrame(index=pd.MultiIndex.from_arrays([[], []], names=["dataset", "item"]))
    return ScoreTable(
        empty,
        battles.systems,
        (),
        {},
        tuple(exclusions),
        tuple(problems),
        items,
        system_attrs,
        {},
        sources,
        {},
        {},
        {},
        skipped,
        tuple(d for r in results for d in r.descriptive),
        battles=battles,
    )


def _concatenated(
    results: Sequence[AdapterResult], frames: list[pd.DataFrame], problems: list[Problem]
) -> pd.DataFrame:
    """The adapters' rows in one frame, with the file and line of each row."""
    if not frames:
        paths = [str(r.source) for r in results if r.source]
        warned = [p for p in problems if p.severity == "warning"]
        because = f"; {warned[0].message}" if warned else ""
        raise InputError(
            "no scores found in the input" + because,
            location=_files_location(paths),
            hint="check that the files hold per-item results (not only "
            "aggregate metrics) and that the right --format is used",
        )
    df = (
        pd.concat(frames, ignore_index=True, sort=False)
        if len(frames) > 1
        else frames[0].reset_index(drop=True)
    )
    if SOURCE_FILE not in df:
        df[SOURCE_FILE] = "<input>"
    if SOURCE_LINE not in df:
        df[SOURCE_LINE] = -1
    # a category: the file of each row is one of a few names (a string per row took a
    # third of a two-million-row table); adapters that read one file give one already
    df[SOURCE_FILE] = _file_categories(df[SOURCE_FILE])
    df[SOURCE_LINE] = df[SOURCE_LINE].fillna(-1).astype(np.int64)
    return df


def _systems_to_compare(df: pd.DataFrame, min_systems: int, codes: Codes) -> tuple[str, ...]:
    """The systems, in order of appearance; too few of them, or of items, is an error."""
    systems = tuple(codes["system"][1])
    if len(systems) < min_systems:
        raise InputError(
            f"only one system ({systems[0]!r}) in the input: there is nothing to compare",
            location=_files_location(df[SOURCE_FILE]),
            hint="give results of at least two systems (several files or a "
            "table with several systems)",
        )
    # describing one system's results (``reportgen inspect``) works on one item too;
    # comparing needs two
    if min_systems >= 2 and _most_items(df, codes) < 2:
        raise InputError(
            "every dataset has a single item: no statistic can be computed",
            location=_files_location(df[SOURCE_FILE]),
            hint="give per-item results, one row per item, not aggregates",
        )
    return systems


def _most_items(df: pd.DataFrame, codes: Codes) -> int:
    """The largest number of distinct items of a dataset (as
    ``df.groupby("dataset")["item"].nunique().max()``)."""
    pairs = _pair_codes(df, "dataset", "item", codes)
    first = _first_rows(pairs)
    return int(np.bincount(codes["dataset"][0][first]).max(initial=0))


def _declared_system_attributes(
    config: TableConfig, systems: tuple[str, ...], system_attrs: pd.DataFrame
) -> None:
    """The family and size the config declares for a system, set in ``system_attrs``."""
    for name, spec in config.systems.items():
        if name not in systems:
            continue  # reported in the findings (_findings)
        for column, value in (("family", spec.family), ("size", spec.size)):
            if value is not None:
                if column not in system_attrs:
                    system_attrs[column] = pd.Series(None, index=system_attrs.index, dtype=object)
                system_attrs[column] = system_attrs[column].astype(object)
                system_attrs.loc[name, column] = value


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _merged_inputs(table: ScoreTable) -> list[Problem]:
    """A note per dataset × metric whose rows come from two or more input files that
    each hold several systems (two eval-arena files with the same benchmark id): their
    rows are merged into one dataset, which may be meant (one file per batch of models)
    or not (two variants of a benchmark). Files of one system each (a harness's output
    per model) and files of different metrics of the same items are how a dataset
    usually arrives, and are not named."""
    frame = table.frame
    files = frame[SOURCE_FILE]
    if not isinstance(files.dtype, pd.CategoricalDtype) or len(files.cat.categories) < 2:
        return []
    datasets, metrics = pd.Categorical(frame["dataset"]), pd.Categorical(frame["metric"])
    n_metrics = len(metrics.categories)
    unit = datasets.codes.astype(np.int64) * n_metrics + metrics.codes
    system = pd.Categorical(frame["system"]).codes.astype(np.int64)
    file = files.cat.codes.to_numpy().astype(np.int64)
    n_files, n_systems = len(files.cat.categories), int(system.max()) + 1
    # (unit, file, system) once each, then the systems of each (unit, file)
    keys = np.unique((unit * n_files + file) * n_systems + system)
    pairs, sizes = np.unique(keys // n_systems, return_counts=True)
    found = []
    for u in np.unique(pairs // n_files):
        mine = pairs // n_files == u
        several = [
            (str(files.cat.categories[k % n_files]), int(n))
            for k, n in zip(pairs[mine], sizes[mine])
            if n >= 2
        ]
        if len(several) < 2:
            continue
        dataset, metric = (
            str(datasets.categories[u // n_metrics]),
            metrics.categories[u % n_metrics],
        )
        parts = ", ".join(f"{shown_path(f)} ({count(n, 'system')})" for f, n in several)
        found.append(
            Problem(
                "info",
                f"metric {metric!r}: the rows of {count(len(several), 'input')} are merged "
                f"into this one dataset: {parts}; to keep them apart, give each its own "
                "dataset name in its file (eval-arena: the benchmark_id) or read them in "
                "separate runs",
                dataset=dataset,
            )
        )
    return found


def _findings(table: ScoreTable, config: TableConfig) -> list[Problem]:
    """Non-fatal problems worth showing: overlap, degenerate metrics, config typos, inputs
    merged into one dataset."""
    found: list[Problem] = _merged_inputs(table)
    for dataset, metric in table.pairs():
        info = table.pairing(dataset, metric)
        if info.n_systems < 2:
            (only,) = table.systems_of(dataset, metric)
            found.append(
                Problem(
                    "warning",
                    f"only one system ({only!r}) is scored on "
                    f"metric {metric!r}: nothing to compare there",
                    dataset=dataset,
                )
            )
        elif info.kind != "paired":
            excluded = {s: n for s, n in info.excluded_per_system.items() if n}
            detail = ", ".join(f"{s}: {n}" for s, n in list(excluded.items())[:6])
            found.append(
                Problem(
                    "warning",
                    f"metric {metric!r}: systems share {info.n_common} of {info.n_items} items "
                    f"({info.kind} overlap); analysed {info.recommended}"
                    + (
                        f", excluding items not scored by all ({detail})"
                        if info.recommended == "paired"
                        else ""
                    ),
                    dataset=dataset,
                )
            )
        group = table._groups[(dataset, metric)]
        if info.n_items < 2:
            found.append(
                Problem(
                    "warning",
                    f"metric {metric!r} has a single item: no statistic can be computed",
                    dataset=dataset,
                )
            )
        if len(group.scores) and np.all(group.scores == group.scores[0]):
            found.append(
                Problem(
                    "warning",
                    f"metric {metric!r} is constant "
                    f"({group.scores[0]:g} for every system and item): no "
                    "comparison can find a difference",
                    dataset=dataset,
                )
            )
        runs = table.runs_of(dataset)
        if runs is not None:
            counts = np.bincount(group.system_codes * len(group.items) + group.item_codes)
            counts = counts[counts > 0]
            if counts.min() != counts.max():
                found.append(
                    Problem(
                        "warning",
                        f"metric {metric!r}: the number of runs per "
                        f"item and system varies from {counts.min()} to "
                        f"{counts.max()}",
                        dataset=dataset,
                    )
                )
    present_metrics = set(table.metrics)
    for name in config.metrics:
        if name not in present_metrics:
            found.append(
                Problem(
                    "warning",
                    f"the config describes metric {name!r}, which "
                    f"is not in the data (metrics: {', '.join(table.metrics)})",
                    location=Location(config.source),
                )
            )
    for name in config.systems:
        if name not in table.systems:
            found.append(
                Problem(
                    "warning",
                    f"the config describes system {name!r}, which is not in the data",
                    location=Location(config.source),
                )
            )
    for name in config.datasets:
        if name not in table.datasets:
            found.append(
                Problem(
                    "warning",
                    f"the config describes dataset {name!r}, which "
                    f"is not in the data (datasets: {', '.join(table.datasets)})",
                    location=Location(config.source),
                )
            )
    return found

"""every_eval_ever records: aggregate ``<uuid>.json`` + instance-level ``<uuid>_samples.jsonl``.

`every_eval_ever <https://github.com/evaleval/every_eval_ever>`_ (EEE) is a common schema
that its converters write from lm-evaluation-harness, Inspect AI and HELM output (and
that leaderboards publish): per evaluation run, an *aggregate* JSON file
(``eval.schema.json``: ``schema_version``, ``evaluation_id``, ``model_info``,
``evaluation_results`` with each result's ``metric_config.lower_is_better``, and
``detailed_evaluation_results.file_path``) and an *instance-level* JSON-lines file
(``instance_level_eval.schema.json``, versions 0.2.0 to 0.3.0), one record per sample.

The adapter reads an aggregate file (with its samples file beside it), a samples file
alone, or a folder holding them (searched up to four levels down, as the EEE datastore
nests ``<benchmark>/<developer>/<model>/<uuid>.json``). It gives one row per
instance-level record:

========= ===========================================================================
column    taken from
========= ===========================================================================
system    the record's ``model_id``
dataset   the record's ``evaluation_name``
metric    the aggregate result the record belongs to: the one whose
          ``evaluation_result_id`` it names, else the only result, else the result
          with the record's ``evaluation_name``; named by its ``metric_config``
          (``metric_id``, else ``metric_name``, else ``evaluation_description``).
          Without an aggregate file: the record's ``evaluation_result_id`` (schema
          0.3.0; HELM's converter writes ``<metric>:<split>``), else ``score``.
item      ``sample_id``
score     ``evaluation.score`` (a boolean as 1/0, as schema 0.2.0 allows; ``null`` as
          missing)
run       ``metadata.epoch`` where records carry one (Inspect's converter writes it);
          else the order in which a sample repeats within one evaluation (HELM's
          converter writes one record per train trial, with no label); a second
          evaluation of the same model and ``evaluation_name`` (another
          ``evaluation_id``) adds its runs after the first one's, as two Inspect logs of
          one task and model do. Without repeats: no run column.
========= ===========================================================================

What the converters write, and what the adapter does about it:

- Inspect's converter writes the *epoch-reduced* score (``reductions``) on every epoch's
  record. Where all epochs of every sample of an evaluation carry one score, the
  adapter keeps one record per sample and says so: they are not independent runs (read
  the Inspect logs themselves, ``--format inspect``, for the per-epoch scores).
- The lm-eval converter writes ``evaluation.score`` 0.0 for a sample in which it found
  no metric value: ``metadata.lm_eval_metrics`` is then ``{}`` (lm-eval samples without
  a ``metrics`` list, i.e. before lm-eval 0.4.8), or, from schema 0.3.0, the record
  names no ``evaluation_result_id`` while the other records of its file do. Those
  records are excluded and counted, with a warning; they hold no score.

Directions come from ``metric_config.lower_is_better``. A ``sample_hash`` (a hash of the
input and reference) that differs between systems for one (dataset, sample_id, run)
means they were not scored on the same sample: the item is excluded for every system,
with a warning. An aggregate file whose samples file is missing is skipped with a warning (an
error with :attr:`LoadOptions.strict_inputs`); aggregate scores alone have no items.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from reportgen.data.adapters import _files, register_adapter
from reportgen.data.adapters._base import (
    SNIFF_BYTES,
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    Exclusion,
    LoadOptions,
    Problem,
    SkippedInput,
    drop_nonfinite,
    excerpt,
    head_text,
    read_json,
    read_jsonl,
    skip_input,
    to_float,
)
from reportgen.errors import InputError, Location
from reportgen.plaintext import count, verb

__all__ = ["EveryEvalEverAdapter"]

#: Folder levels searched below a given folder (the datastore's benchmark/developer/model).
_MAX_DEPTH = 4
_SAMPLES_SUFFIX = "_samples.jsonl"
_AGGREGATE_KEYS = (b'"schema_version"', b'"evaluation_results"', b'"model_info"')
_RECORD_KEYS = ("schema_version", "evaluation_id", "sample_id", "interaction_type")
_HASH_REASON = "sample_hash differs between systems"
_PLACEHOLDER_REASON = "no metric value in the record (the converter wrote a placeholder 0)"
_DEFAULT_METRIC = "score"
_HINT = (
    "every_eval_ever instance-level records need evaluation_id, model_id, "
    "evaluation_name, sample_id and evaluation.score (instance_level_eval.schema.json)"
)
_DUPLICATE_HINT = (
    "the same evaluation_id is in two every_eval_ever samples files (a file "
    "given twice, or one evaluation converted twice): pass each once"
)


@dataclass
class _Aggregate:
    """What the adapter needs from one aggregate ``<uuid>.json``."""

    path: Path
    evaluation_id: str
    model: str
    results: list[dict[str, Any]]
    samples_name: str | None
    #: ``detailed_evaluation_results.file_path`` as written (relative to the datastore
    #: root in schema 0.2.0: ``instance_level_data/<id>.Format.jsonl``)
    samples_path: str | None = None
    metrics: dict[str, str] = field(default_factory=dict)  # result key -> metric name
    directions: dict[str, Literal["higher", "lower"]] = field(default_factory=dict)


class EveryEvalEverAdapter(Adapter):
    """Read every_eval_ever aggregate and instance-level files (module docstring)."""

    name = "every-eval-ever"
    description = (
        "every_eval_ever records (aggregate <uuid>.json with its "
        "<uuid>_samples.jsonl, or samples files alone)"
    )
    priority = 20
    # a samples file is named by its aggregate, which may be given separately
    combine_inputs = True

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is not None:
            return _is_aggregate(path, head) or _is_samples(head)
        return any(True for _ in _find_files(path, limit=1))

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        return self.read_many([path], options)

    def read_many(self, paths: list[Path], options: LoadOptions) -> AdapterResult:
        files = _files_of(paths)
        aggregates = [_read_aggregate(f) for f in files if not f.name.endswith(".jsonl")]
        samples = [f for f in files if f.name.endswith(".jsonl")]
        skipped: list[SkippedInput] = []
        linked: dict[Path, _Aggregate] = {}
        for aggregate in aggregates:
            sample_path = _samples_of(aggregate)
            if sample_path is None:
                skipped.append(
                    skip_input(
                        options,
                        aggregate.path,
                        f"no instance-level file for evaluation {aggregate.evaluation_id!r} "
                        f"(expected {aggregate.samples_path or '<uuid>_samples.jsonl'} beside "
                        "it or below a folder above it): aggregate scores alone have no items",
                        hint="keep the <uuid>_samples.jsonl that detailed_evaluation_results "
                        "names next to its aggregate file",
                        format=self.name,
                    )
                )
                continue
            known = {os.path.realpath(p): p for p in samples}
            sample_path = known.get(os.path.realpath(sample_path), sample_path)
            linked[sample_path] = aggregate
            if sample_path not in samples:
                samples.append(sample_path)
        if not samples:
            raise InputError(
                "no every_eval_ever instance-level records to read",
                location=Location(str(files[0])),
                hint="reportgen compares per-sample scores: add the <uuid>_samples.jsonl files",
            )
        problems: list[Problem] = []
        columns: dict[str, list[Any]] = {
            k: []
            for k in (
                "system",
                "dataset",
                "metric",
                "item",
                "score",
                "run",
                "_hash",
                "_evaluation",
                "_placeholder",
                SOURCE_FILE,
                SOURCE_LINE,
            )
        }
        for path in samples:
            _read_samples(path, linked.get(path), columns)
        frame = _frame(columns)
        frame, exclusions = _exclude_placeholders(frame, problems)
        frame = _assign_runs(frame, problems)
        frame, hash_exclusions = _exclude_hash_mismatches(frame, problems)
        exclusions += hash_exclusions
        if frame["run"].nunique() <= 1:
            frame = frame.drop(columns="run")
        directions = _directions(linked.values(), problems)
        frame, dropped, more = drop_nonfinite(
            frame,
            np.isinf(frame["score"].to_numpy(dtype=np.float64)),
            options,
            harness="every_eval_ever",
            field="evaluation.score ({metric!r})",
            hint="check the converter or the run that wrote the record",
        )
        exclusions += dropped
        problems.extend(more)
        attributes = {a.model: {"evaluation_id": a.evaluation_id} for a in linked.values()}
        return AdapterResult(
            frame,
            directions=directions,
            exclusions=exclusions,
            problems=problems,
            system_attributes=attributes,
            skipped=skipped,
            duplicate_hint=_DUPLICATE_HINT,
        )


def _files_of(paths: list[Path]) -> list[Path]:
    """The every_eval_ever files given, or found in the folders given, each once."""
    files: list[Path] = []
    for path in paths:
        found = [path] if path.is_file() else list(_find_files(path))
        if not found:
            raise InputError(
                f"no every_eval_ever file in this folder or {_MAX_DEPTH} levels below",
                location=Location(str(path)),
                hint="point at an aggregate <uuid>.json, a <uuid>_samples.jsonl, or a "
                "folder holding them",
            )
        files.extend(f for f in found if f not in files)
    return files


def _directions(
    aggregates: Iterable[_Aggregate], problems: list[Problem]
) -> dict[str, Literal["higher", "lower"]]:
    """Each metric's direction (lower_is_better) from the aggregate files; a warning
    where they disagree (the first one read is used)."""
    directions: dict[str, Literal["higher", "lower"]] = {}
    for aggregate in aggregates:
        for metric, direction in aggregate.directions.items():
            if directions.setdefault(metric, direction) != direction:
                problems.append(
                    Problem(
                        "warning",
                        f"metric {metric!r}: the aggregate "
                        "files disagree on lower_is_better; using "
                        f"{directions[metric]!r} is better",
                        Location(str(aggregate.path)),
                    )
                )
    return directions


# --------------------------------------------------------------------------- finding files


def _is_aggregate(path: Path, head: bytes) -> bool:
    return path.suffix.lower() == ".json" and all(k in head for k in _AGGREGATE_KEYS)


def _is_samples(head: bytes) -> bool:
    line = head_text(head).lstrip("\ufeff").split("\n", 1)[0]
    if not line.lstrip().startswith("{"):
        return False
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # cut off, or nested past the parser's stack
        return False
    return isinstance(record, dict) and all(k in record for k in _RECORD_KEYS)


def _find_files(folder: Path, depth: int = 0, limit: int | None = None) -> Iterator[Path]:
    """EEE files in ``folder`` and up to :data:`_MAX_DEPTH` levels below, sorted. Only
    regular files are opened, without blocking (:mod:`._files`)."""
    found = 0
    subfolders = []
    for entry in _files.entries(folder):
        if entry.name.startswith("."):
            continue
        if entry.kind == "folder":
            if depth < _MAX_DEPTH:
                subfolders.append(entry.path)
            continue
        if not entry.name.endswith((".json", ".jsonl")):
            continue
        head = _files.read_head(entry.path, SNIFF_BYTES)
        if head is None:
            continue
        path = entry.path
        if _is_aggregate(path, head) or (entry.name.endswith(".jsonl") and _is_samples(head)):
            yield path
            found += 1
            if limit is not None and found >= limit:
                return
    for sub in subfolders:
        for path in _find_files(sub, depth + 1, limit):
            yield path
            found += 1
            if limit is not None and found >= limit:
                return


# --------------------------------------------------------------------------- aggregate


def _read_aggregate(path: Path) -> _Aggregate:
    data = read_json(path)
    where = Location(str(path))
    if not isinstance(data, dict) or not isinstance(data.get("evaluation_results"), list):
        raise InputError(
            "not an every_eval_ever aggregate file: no evaluation_results list",
            location=where,
            hint="pass the aggregate <uuid>.json an every_eval_ever converter "
            "wrote, or its <uuid>_samples.jsonl",
        )
    model_info = data.get("model_info")
    model = model_info.get("id") if isinstance(model_info, dict) else None
    details = data.get("detailed_evaluation_results")
    file_path = details.get("file_path") if isinstance(details, dict) else None
    aggregate = _Aggregate(
        path,
        str(data.get("evaluation_id") or path.stem),
        str(model or ""),
        [r for r in data["evaluation_results"] if isinstance(r, dict)],
        Path(file_path).name if isinstance(file_path, str) else None,
        file_path if isinstance(file_path, str) and file_path.strip() else None,
    )
    for index, result in enumerate(aggregate.results):
        config = result.get("metric_config")
        config = config if isinstance(config, dict) else {}
        name = next(
            (
                str(config[k])
                for k in ("metric_id", "metric_name", "evaluation_description")
                if isinstance(config.get(k), str) and config[k].strip()
            ),
            _DEFAULT_METRIC,
        )
        aggregate.metrics[_result_key(result, index)] = name
        lower = config.get("lower_is_better")
        if isinstance(lower, bool):
            aggregate.directions[name] = "lower" if lower else "higher"
    return aggregate


def _result_key(result: dict[str, Any], index: int) -> str:
    result_id = result.get("evaluation_result_id")
    return str(result_id) if isinstance(result_id, str) and result_id else f"#{index}"


#: How many folders above an aggregate file a relative ``file_path`` is looked up in.
_ROOT_LEVELS = 6


def _samples_of(aggregate: _Aggregate) -> Path | None:
    """The instance-level file of an aggregate: beside it (the converters' layout,
    ``<uuid>_samples.jsonl``), else ``detailed_evaluation_results.file_path`` taken
    relative to a folder above it (schema 0.2.0 datastores keep every record in
    ``instance_level_data/`` at the root, above ``data/<benchmark>/<developer>/<model>/``)."""
    folder = aggregate.path.parent
    for name in (aggregate.samples_name, aggregate.path.stem + _SAMPLES_SUFFIX):
        if name and (folder / name).is_file():
            return folder / name
    relative = aggregate.samples_path
    if relative and not Path(relative).is_absolute():
        for root in list(aggregate.path.parents)[:_ROOT_LEVELS]:
            candidate = root / relative
            if candidate.is_file():
                return candidate
    return None


def _metric_of(record: dict[str, Any], aggregate: _Aggregate | None) -> str:
    """The metric of a record: its aggregate result (module docstring)."""
    result_id = record.get("evaluation_result_id")
    if aggregate is None or not aggregate.results:
        # samples alone: schema 0.3.0 names the result a record belongs to
        # (HELM's converter: "<metric>:<split>"), 0.2.x does not
        return result_id if isinstance(result_id, str) and result_id else _DEFAULT_METRIC
    if isinstance(result_id, str) and result_id in aggregate.metrics:
        return aggregate.metrics[result_id]
    if len(aggregate.results) == 1:
        return next(iter(aggregate.metrics.values()))
    name = record.get("evaluation_name")
    for index, result in enumerate(aggregate.results):
        if result.get("evaluation_name") == name:
            return aggregate.metrics[_result_key(result, index)]
    return _DEFAULT_METRIC


# --------------------------------------------------------------------------- samples


def _read_samples(path: Path, aggregate: _Aggregate | None, columns: dict[str, list[Any]]) -> None:
    records, lines = read_jsonl(path)
    for lineno, record in zip(lines.tolist(), records, strict=True):
        where = Location(str(path), lineno)
        values = {}
        for key in ("model_id", "evaluation_name", "sample_id"):
            value = record.get(key)
            if (
                isinstance(value, bool)
                or not isinstance(value, (str, int))
                or not str(value).strip()
            ):
                raise InputError(
                    f"the record has no {key} (found {excerpt(value)})", location=where, hint=_HINT
                )
            values[key] = str(value).strip()
        evaluation = record.get("evaluation")
        if not isinstance(evaluation, dict) or "score" not in evaluation:
            raise InputError("the record has no evaluation.score", location=where, hint=_HINT)
        score = evaluation["score"]
        if score is None:
            number = np.nan
        elif isinstance(score, (bool, int, float)):
            number = to_float(score)
        else:
            raise InputError(
                f"evaluation.score is {json.dumps(score)[:60]}, not a number",
                location=where,
                hint=_HINT,
            )
        metadata = record.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        epoch = metadata.get("epoch")
        sample_hash = record.get("sample_hash")
        result_id = record.get("evaluation_result_id")
        columns["_evaluation"].append(str(record.get("evaluation_id") or path))
        # placeholder: the lm-eval converter found no metric value (module docstring);
        # "unlinked" records are told apart from their file's linked ones afterwards
        columns["_placeholder"].append(
            "none"
            if metadata.get("lm_eval_metrics") == "{}"
            else "unlinked"
            if not (isinstance(result_id, str) and result_id)
            else ""
        )
        columns["system"].append(values["model_id"])
        columns["dataset"].append(values["evaluation_name"])
        columns["metric"].append(_metric_of(record, aggregate))
        columns["item"].append(values["sample_id"])
        columns["score"].append(number)
        columns["run"].append(_epoch(epoch, where))
        columns["_hash"].append(sample_hash if isinstance(sample_hash, str) else None)
        columns[SOURCE_FILE].append(str(path))
        columns[SOURCE_LINE].append(lineno)


def _epoch(value: Any, where: Location) -> int | None:
    """``metadata.epoch`` (a string in the schema: metadata values are strings)."""
    if value is None:
        return None
    try:
        epoch = int(str(value))
    except ValueError:
        epoch = -1
    if not 0 <= epoch < 2**62:  # a run index, not a number of 400 digits
        raise InputError(
            f"metadata.epoch is {excerpt(value)}, not a whole number of epochs",
            location=where,
            hint='Inspect\'s converter writes the epoch as a number in a string, e.g. "1"',
        )
    return epoch


def _frame(columns: dict[str, list[Any]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "system": pd.Series(columns["system"], dtype=str),
            "dataset": pd.Series(columns["dataset"], dtype=str),
            "metric": pd.Series(columns["metric"], dtype=str),
            "item": pd.Series(columns["item"], dtype=str),
            "score": np.asarray(columns["score"], dtype=np.float64),
            # 0 = no metadata.epoch (epochs start at 1)
            "_epoch": np.asarray([0 if r is None else r for r in columns["run"]], dtype=np.int64),
            "_hash": pd.Series(columns["_hash"], dtype=object),
            "_evaluation": pd.Series(columns["_evaluation"], dtype=str),
            "_placeholder": pd.Series(columns["_placeholder"], dtype=str),
            SOURCE_FILE: pd.Series(columns[SOURCE_FILE], dtype=str),
            SOURCE_LINE: np.asarray(columns[SOURCE_LINE], dtype=np.int64),
        }
    )


def _exclude_placeholders(
    frame: pd.DataFrame, problems: list[Problem]
) -> tuple[pd.DataFrame, list[Exclusion]]:
    """Drop the records that hold no metric value (module docstring)."""
    kind = frame["_placeholder"]
    # an unlinked record is a placeholder only beside linked ones in its file
    linked_files = set(frame.loc[kind == "", SOURCE_FILE])
    drop = (kind == "none") | ((kind == "unlinked") & frame[SOURCE_FILE].isin(linked_files))
    frame = frame.drop(columns="_placeholder")
    if not drop.any():
        return frame, []
    dropped = frame[drop]
    for source, rows in dropped.groupby(SOURCE_FILE, sort=False):
        first = rows.iloc[0]
        how = (
            "metadata.lm_eval_metrics is {}"
            if kind[rows.index[0]] == "none"
            else "no evaluation_result_id, unlike the file's other records"
        )
        problems.append(
            Problem(
                "warning",
                f"{count(len(rows), 'record')} {verb(len(rows), 'hold', 'holds')} no metric "
                f"value ({how}): the converter "
                "found no metric in those lm-eval samples and wrote score 0; they are "
                "excluded. Read the lm-eval output itself (--format lm-eval) for its "
                "per-sample metrics",
                Location(str(source), int(first[SOURCE_LINE])),
                str(first["dataset"]),
            )
        )
    counts = dropped.groupby(["dataset", "metric", "system", SOURCE_FILE], sort=False).size()
    exclusions = [
        Exclusion(_PLACEHOLDER_REASON, int(n), dataset=d, metric=m, system=s, source=f)
        for (d, m, s, f), n in counts.items()
    ]
    return frame[~drop].reset_index(drop=True), exclusions


def _assign_runs(frame: pd.DataFrame, problems: list[Problem]) -> pd.DataFrame:
    """The run of each record (module docstring): epoch or repeat order, then evaluation."""
    if frame.empty:
        return frame.assign(run=np.ones(0, dtype=np.int64)).drop(columns=["_epoch", "_evaluation"])
    key = ["system", "dataset", "metric", "item"]
    within = [*key, "_evaluation"]
    has_epoch = frame["_epoch"] > 0
    # Inspect's converter: every epoch's record carries the epoch-reduced score
    repeated = frame[has_epoch].groupby(["_evaluation"], sort=False)["_epoch"].nunique() > 1
    collapsed: list[str] = []
    for evaluation in repeated[repeated].index:
        rows = frame[frame["_evaluation"] == evaluation]
        if (rows.groupby(key, sort=False)["score"].nunique() <= 1).all():
            collapsed.append(evaluation)
    if collapsed:
        in_collapsed = frame["_evaluation"].isin(collapsed)
        first = ~frame[within].duplicated() | ~in_collapsed
        example = frame[in_collapsed].iloc[0]
        problems.append(
            Problem(
                "warning",
                f"{count(len(collapsed), 'evaluation')} (e.g. {example['_evaluation']!r}) "
                f"{verb(len(collapsed), 'carry', 'carries')} one score on every epoch's "
                "record of each sample: Inspect's "
                "converter writes the epoch-reduced score there, so the epochs are "
                "not separate runs; one score per sample is kept. Read the Inspect "
                "logs themselves (--format inspect) for per-epoch scores",
                Location(str(example[SOURCE_FILE]), int(example[SOURCE_LINE])),
                str(example["dataset"]),
            )
        )
        frame = frame[first].reset_index(drop=True)
        frame.loc[frame["_evaluation"].isin(collapsed), "_epoch"] = 0
        has_epoch = frame["_epoch"] > 0
    # the run within one evaluation: the epoch, else the order of the sample's repeats
    order = frame.groupby(within, sort=False).cumcount().to_numpy() + 1
    run = np.where(has_epoch.to_numpy(), frame["_epoch"].to_numpy(), order)
    if (order > 1).any() and not has_epoch[order > 1].all():
        example = frame[(order > 1) & ~has_epoch.to_numpy()].iloc[0]
        problems.append(
            Problem(
                "info",
                "samples repeat within one evaluation without an epoch (e.g. sample_id "
                f"{example['item']!r}; HELM's converter writes one record per train "
                "trial): the k-th record of a sample is run k",
                Location(str(example[SOURCE_FILE]), int(example[SOURCE_LINE])),
                str(example["dataset"]),
            )
        )
    frame = frame.assign(run=run)
    # a second evaluation of the same model and dataset continues the runs
    unit = ["system", "dataset", "metric", "_evaluation"]
    span = frame.groupby(unit, sort=False)["run"].max().rename("_span").reset_index()
    span["_offset"] = span.groupby(unit[:-1], sort=False)["_span"].cumsum() - span["_span"]
    frame = frame.merge(span[[*unit, "_offset"]], on=unit, how="left", validate="m:1")
    frame["run"] = (frame["run"] + frame["_offset"]).astype(np.int64)
    return frame.drop(columns=["_offset", "_epoch", "_evaluation"])


def _exclude_hash_mismatches(
    frame: pd.DataFrame, problems: list[Problem]
) -> tuple[pd.DataFrame, list[Exclusion]]:
    """Drop the (dataset, sample_id) whose sample_hash differs between systems."""
    # each system's set of hashes of a sample must be the same: HELM's train trials of one
    # sample have different prompts (hashes), in an order that two evaluations need not share
    held = frame.loc[
        frame["_hash"].notna(), ["dataset", "item", "system", "_hash"]
    ].drop_duplicates()
    n_systems = held.groupby(["dataset", "item"], sort=False)["system"].transform("nunique")
    n_holders = held.groupby(["dataset", "item", "_hash"], sort=False)["system"].transform(
        "nunique"
    )
    bad = held.loc[(n_holders < n_systems).to_numpy(), ["dataset", "item"]].drop_duplicates()
    bad = pd.MultiIndex.from_frame(bad)
    if bad.empty:
        return frame.drop(columns="_hash"), []
    for dataset, items in bad.to_frame(index=False).groupby("dataset", sort=False)["item"]:
        ids = sorted(items)
        example = frame[(frame["dataset"] == dataset) & (frame["item"] == ids[0])].iloc[0]
        problems.append(
            Problem(
                "warning",
                f"{count(len(ids), 'sample')} {verb(len(ids), 'have', 'has')} a different "
                "sample_hash between systems "
                f"(e.g. sample_id {ids[0]!r}), so the systems were not scored on the "
                "same input; these items are excluded for every system",
                Location(str(example[SOURCE_FILE]), int(example[SOURCE_LINE])),
                str(dataset),
            )
        )
    key = pd.MultiIndex.from_frame(frame[["dataset", "item"]])
    drop = key.isin(bad)
    counts = frame[drop].groupby(["dataset", "metric", "system", SOURCE_FILE], sort=False).size()
    exclusions = [
        Exclusion(_HASH_REASON, int(n), dataset=d, metric=m, system=s, source=f)
        for (d, m, s, f), n in counts.items()
    ]
    return frame[~drop].drop(columns="_hash").reset_index(drop=True), exclusions


register_adapter(EveryEvalEverAdapter())

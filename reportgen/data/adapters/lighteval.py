"""lighteval output folders: ``results_<time>.json`` with the details Parquet files.

``lighteval <backend> MODEL TASKS --output-dir OUT --save-details`` (lighteval 0.10 and
later) writes ``OUT/results/<org>/<model>/results_<time>.json`` (``config_general`` with
the ``model_name``, ``results`` keyed ``"<task>|<fewshot>"`` plus ``"all"``, and
``config_tasks`` with each metric's ``higher_is_better`` and ``corpus_level_fn``) and,
per task, ``OUT/details/<org>/<model>/<time>/details_<task>|<fewshot>_<time>.parquet``:
one row per document with the struct columns ``doc`` (``query``, ``choices``,
``gold_index``, ``id``, ...), ``metric`` (the sample-level values, e.g. ``{"em": 1}``)
and ``model_response``.

The adapter reads such an output folder (results files searched four levels down), a
model's results folder, or one results file. It gives one row per (document, metric):

========= ===========================================================================
column    taken from
========= ===========================================================================
system    ``config_general.model_name``
dataset   the results key of the task, ``"<task>|<fewshot>"`` (``"all"`` is
          lighteval's average over tasks and is not a dataset)
metric    each key of the details' ``metric`` column (``em``, ``acc``, ...)
item      ``doc.id`` (the row number when the details have no id)
score     the sample-level value (a boolean as 1/0)
run       only when a model has several results files for one task: 0, 1, ... in the
          order of their time
========= ===========================================================================

A metric whose lighteval aggregate is a mean of the sample values (``corpus_level_fn``
``mean``) has per-item means equal to the results file's number. Sample values that are
not numbers are the inputs of a corpus-level metric (BLEU, corpus F1, ...): that metric
is skipped with a warning. A task whose details file is missing (the run without
``--save-details``) is skipped with a warning (an error with ``--strict-inputs``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from reportgen.data.adapters import _files, register_adapter
from reportgen.data.adapters._base import (
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    LoadOptions,
    Problem,
    SkippedInput,
    drop_nonfinite,
    excerpt,
    read_json,
    skip_input,
)
from reportgen.data.adapters._tabular import _read_parquet
from reportgen.errors import InputError, Location

__all__ = ["LightevalAdapter", "is_lighteval_results"]

_MAX_DEPTH = 4
_RESULTS_NAME = re.compile(r"^results_(?P<time>.+)\.json$")
_ALL = "all"
_HINT = (
    "lighteval writes results/<org>/<model>/results_<time>.json and, with "
    "--save-details, details/<org>/<model>/<time>/details_<task>|<fewshot>_<time>.parquet"
)


def is_lighteval_results(head: bytes) -> bool:
    """Whether the start of a JSON file is a lighteval results file, whatever its name:
    it opens with ``config_general`` (lighteval writes it first; no other harness
    writes the key)."""
    return bool(_FIRST_KEY.match(head.removeprefix(b"\xef\xbb\xbf")))


_FIRST_KEY = re.compile(rb'\A\s*\{\s*"config_general"\s*:')


@dataclass
class _Run:
    path: Path
    time: str
    system: str
    tasks: list[str]
    aggregates: dict[str, dict[str, Any]]
    directions: dict[str, bool] = field(default_factory=dict)
    #: (task, metric) -> lighteval's corpus-level aggregation (``"mean"``, ...)
    corpus_fns: dict[tuple[str, str], str] = field(default_factory=dict)


class LightevalAdapter(Adapter):
    name = "lighteval"
    description = "lighteval output (results_*.json with config_general + details parquet)"
    priority = 18
    combine_inputs = True

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is not None:
            return is_lighteval_results(head)
        return next(_find_results(path), None) is not None

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        return self.read_many([path], options)

    def read_many(self, paths: list[Path], options: LoadOptions) -> AdapterResult:
        files: list[Path] = []
        for path in paths:
            found = [path] if path.is_file() else list(_find_results(path))
            if not found:
                raise InputError(
                    f"no lighteval results_*.json in this folder or {_MAX_DEPTH} levels below",
                    location=Location(str(path)),
                    hint=f"point at lighteval's --output-dir; {_HINT}",
                )
            files.extend(f for f in found if f not in files)
        runs = sorted((_parse(f) for f in files), key=lambda r: (r.time, str(r.path)))
        problems: list[Problem] = []
        skipped: list[SkippedInput] = []
        frames = []
        seen: dict[tuple[str, str], int] = {}
        for run in runs:
            for task in run.tasks:
                details = _details_path(run, task)
                if details is None:
                    skipped.append(
                        skip_input(
                            options,
                            run.path,
                            f"task {task!r} of {run.system!r} has no details file "
                            f"(details_{task}_{run.time}.parquet)",
                            hint="run lighteval with --save-details and keep the details "
                            "folder beside the results folder",
                            format=self.name,
                        )
                    )
                    continue
                run_index = seen.get((run.system, task), -1) + 1
                seen[(run.system, task)] = run_index
                frames.append(_read_details(details, run, task, run_index, problems))
        if not frames:
            raise InputError(
                "no task of these lighteval results has a details file",
                location=Location(str(files[0])),
                hint="run lighteval with --save-details; " + _HINT,
            )
        frame = pd.concat(frames, ignore_index=True)
        nonfinite = frame.pop("_nonfinite").to_numpy(dtype=bool)
        frame, dropped, more = drop_nonfinite(
            frame,
            nonfinite,
            options,
            harness="lighteval",
            field="metric[{metric!r}] of the details",
            hint="check the metric's sample-level function",
        )
        problems.extend(more)
        if not (frame["run"] > 0).any():
            frame = frame.drop(columns="run")
        directions: dict[str, Literal["higher", "lower"]] = {}
        for run in runs:
            for metric, higher in run.directions.items():
                directions.setdefault(metric, "higher" if higher else "lower")
        return AdapterResult(
            frame,
            directions=directions,
            exclusions=dropped,
            problems=problems,
            system_attributes={
                r.system: {"lighteval_results": r.path.name} for r in runs if r.system
            },
            skipped=skipped,
            duplicate_hint="lighteval results of one model are read as repeated runs "
            "only when they come from different results files; pass each once",
        )


def _find_results(folder: Path, depth: int = 0) -> Iterator[Path]:
    """lighteval results files in ``folder`` and up to :data:`_MAX_DEPTH` levels below
    (the ``details`` folders hold none and are not entered). Only regular files are
    opened, without blocking (:mod:`._files`)."""
    subfolders = []
    for entry in _files.entries(folder):
        if entry.name.startswith("."):
            continue
        if entry.kind == "file" and entry.name.lower().endswith(".json"):
            # any name: a lighteval results file is told by its content
            head = _files.read_head(entry.path, 512)  # its first key says it
            if head is not None and is_lighteval_results(head):
                yield entry.path
        elif entry.kind == "folder" and depth < _MAX_DEPTH and entry.name != "details":
            subfolders.append(entry.path)
    for sub in subfolders:
        yield from _find_results(sub, depth + 1)


def _parse(path: Path) -> _Run:
    data = read_json(path)
    where = Location(str(path))
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise InputError(
            'no "results" object: not a lighteval results file', location=where, hint=_HINT
        )
    general = _object(data.get("config_general"))
    model = general.get("model_name") or _object(general.get("model_config")).get("model_name")
    if not isinstance(model, str) or not model:
        raise InputError(
            "config_general.model_name is missing: the file names no model",
            location=Location(str(path), None, "config_general.model_name"),
            hint=_HINT,
        )
    match = _RESULTS_NAME.match(path.name)
    # a renamed file keeps lighteval's <time> after its last underscore, if at all
    time = match["time"] if match else path.stem.rpartition("_")[2] if "_" in path.stem else ""
    tasks = [t for t in data["results"] if t != _ALL]
    run = _Run(path, time, model, tasks, data["results"])
    for task, config in _object(data.get("config_tasks")).items():
        metrics = _object(config).get("metrics")
        for metric in metrics if isinstance(metrics, list) else ():
            if not isinstance(metric, dict):
                continue
            names = metric.get("metric_name")
            how = metric.get("corpus_level_fn")
            for name in names if isinstance(names, list) else [names]:
                if not isinstance(name, str):
                    continue
                higher = metric.get("higher_is_better")
                if isinstance(higher, dict):
                    higher = higher.get(name)
                if isinstance(higher, bool):
                    run.directions.setdefault(name, higher)
                fn = how.get(name) if isinstance(how, dict) else how
                if isinstance(fn, str):
                    run.corpus_fns[(task, name)] = fn
    return run


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a field this adapter only
    reads hints from: names, directions)."""
    return value if isinstance(value, dict) else {}


def _details_path(run: _Run, task: str) -> Path | None:
    """``details/<org>/<model>/<time>/details_<task>_<time>.parquet`` for
    ``results/<org>/<model>/results_<time>.json`` (``:`` and ``|`` in the task written
    as ``__`` by some lighteval versions), else a file of that name below the output
    folder's ``details``."""
    names = [
        f"details_{task}_{run.time}.parquet",
        f"details_{re.sub(r'[:|]', '__', task)}_{run.time}.parquet",
    ]
    folder = run.path.parent
    parts: list[str] = []
    while folder.name != "results" and folder != folder.parent and len(parts) < _MAX_DEPTH:
        parts.insert(0, folder.name)
        folder = folder.parent
    if folder.name == "results":
        base = folder.parent / "details"
        for candidate in (base.joinpath(*parts, run.time), base.joinpath(*parts)):
            for name in names:
                if (candidate / name).is_file():
                    return candidate / name
        if base.is_dir():
            for name in names:
                found = sorted(base.rglob(name))
                if found:
                    return found[0]
    for name in names:
        for candidate in (run.path.parent / name, run.path.parent / run.time / name):
            if candidate.is_file():
                return candidate
    return None


def _read_details(
    path: Path, run: _Run, task: str, run_index: int, problems: list[Problem]
) -> pd.DataFrame:
    table = _read_parquet(path)
    if "metric" not in table.columns:
        raise InputError(
            'the details file has no "metric" column',
            location=Location(str(path)),
            hint=_HINT,
        )
    docs = table["doc"] if "doc" in table.columns else pd.Series([None] * len(table))
    items = [
        str(doc["id"]) if isinstance(doc, dict) and doc.get("id") not in (None, "") else str(k)
        for k, doc in enumerate(docs)
    ]
    rows: list[tuple[Any, ...]] = []
    corpus: dict[str, Any] = {}
    for k, (item, values) in enumerate(zip(items, table["metric"], strict=True)):
        if not isinstance(values, dict):
            raise InputError(
                f"metric of row {k + 1} is {excerpt(values)}, not a struct of metric values",
                location=Location(str(path), k + 1, "metric"),
                hint=_HINT,
            )
        for metric, value in values.items():
            if metric in corpus:
                continue
            score = _number(value)
            if score is None:
                corpus[metric] = value
                continue
            flag = value is not None and not math.isfinite(score)
            rows.append((run.system, task, metric, item, score, run_index, k + 1, flag))
    frame = pd.DataFrame(
        rows,
        columns=["system", "dataset", "metric", "item", "score", "run", SOURCE_LINE, "_nonfinite"],
    )
    if corpus:
        frame = frame[~frame["metric"].isin(list(corpus))]
        for metric, value in corpus.items():
            problems.append(
                Problem(
                    "warning",
                    f"metric {metric!r} of task {task!r} is skipped: its sample values are "
                    f"not numbers (e.g. {excerpt(value)}) but the inputs of a corpus-level "
                    "metric, which has no per-item score",
                    location=Location(str(path), None, "metric"),
                    dataset=task,
                )
            )
    frame[SOURCE_FILE] = str(path)
    frame["score"] = frame["score"].astype(np.float64)
    for metric in sorted(set(frame["metric"])):
        how = run.corpus_fns.get((task, metric))
        if how is not None and how != "mean":
            problems.append(
                Problem(
                    "warning",
                    f"metric {metric!r} of task {task!r}: lighteval aggregates it with "
                    f"{excerpt(how)}, not a mean, so the report's means differ from "
                    "lighteval's number",
                    dataset=task,
                )
            )
    return frame


def _number(value: Any) -> float | None:
    if value is None:
        return math.nan
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return float(value)
    return None


register_adapter(LightevalAdapter())

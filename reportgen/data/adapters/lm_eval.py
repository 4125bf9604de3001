"""lm-evaluation-harness output folders: ``results_<date>.json`` + ``samples_<task>_<date>.jsonl``.

``lm_eval --output_path OUT --log_samples`` writes, per run, ``OUT/<model>/results_<date>.json``
(aggregate scores, task configs, ``higher_is_better``, the model name) and one
``samples_<task>_<date>.jsonl`` per task beside it, with one line per document *and filter*.
(With ``--output_path NAME.json`` the results file is ``NAME_<date>.json`` and the samples
files sit beside it; pass that file, or its folder with ``--format lm-eval``.)

The adapter accepts such a folder (searched for ``results_*.json`` at most two folder
levels deep, so the output folder, a model folder, or a folder of output folders), or one
results file. It gives one row per (document, metric):

========= ======================================================================
column    taken from
========= ======================================================================
system    ``model_name`` of the results file (the ``pretrained=``/``model=``/...
          model argument; older files without it: the same rule applied to
          ``config.model_args``, else ``config.model``). If one name comes with
          different ``config.model``/``config.model_args`` in different files
          (e.g. two revisions of one checkpoint), each becomes
          ``"<name> [<model>: <model_args>]"``.
dataset   the task name (groups have no samples and are skipped)
metric    each per-sample metric key (``acc``, ``acc_norm``, ``exact_match``, ...)
item      ``doc_id`` as a string
score     the per-sample value (booleans as 0/1, ``null`` as missing)
run       only when a system has several results files for one task (e.g. two seeds):
          0, 1, ... in the order of the files' ``date``; every row then has a run
========= ======================================================================

Notes
-----
* **Filters.** A task's samples repeat every document once per filter (``strict-match``,
  ``flexible-extract``, ...; ``none`` without a filter list). One filter is kept per task:
  :attr:`LoadOptions.lm_eval_filter` where the task has it, else the first filter the
  samples list. A task whose only filter is another one uses that; naming a filter that a
  task with several filters lacks, or that no task has, is an error listing the filters.
* **Directions** come from the results file's ``higher_is_better``.
* **Item text** (unless ``--no-text``): ``input`` is the prompt (the context of the
  sample's first request in ``arguments``), ``target`` the sample's ``target``; a
  generation's ``output`` is ``resps[0][0]``, with the filtered answer as the
  ``explanation`` when the filter changed it; a multiple-choice sample's ``output`` is
  the continuation with the highest log-likelihood, its explanation every continuation
  with its log-likelihood, and an index ``target`` the continuation it points at.
* **Documents must match.** Each sample carries ``doc_hash``, a hash of the document. When
  the hashes of one (task, doc_id) differ between systems (or runs), they were not scored on
  the same document: the item is excluded for every system, with a warning.
* **Corpus-level metrics** store a non-numeric per-sample value that only the corpus
  aggregation turns into a score. Classification metrics whose values are (gold,
  prediction) label pairs and that lm-eval aggregates as such (``f1``, ``mcc``,
  ``macro_f1``, ...: the aggregation's name says F1 or MCC) are carried as
  predictions and references under the metric ``"<name> (labels)"`` (the per-item
  score is the exact match), so corpus metrics (``--corpus-metric``, default macro-F1)
  are computed from them with intervals and tests. The others (``bleu``, ``chrf``,
  ``ter``, squad's ``f1``, ...) are skipped with a warning naming lm-eval's
  aggregation.
"""

from __future__ import annotations

import glob
import math
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from reportgen.data._texts import TEXT_ROLES, as_text
from reportgen.data.adapters import _files, register_adapter
from reportgen.data.adapters._base import (
    SNIFF_BYTES,
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    Exclusion,
    LoadOptions,
    NotReadAlone,
    Problem,
    SkippedInput,
    drop_nonfinite,
    excerpt,
    head_text,
    read_json,
    read_jsonl,
    read_text,
    skip_input,
    to_float,
)
from reportgen.errors import InputError, Location
from reportgen.plaintext import count, verb

__all__ = ["LmEvalAdapter"]

#: How many folder levels below the given folder are searched for results files.
_MAX_DEPTH = 2
#: The model arguments lm-eval takes the model name from, in its order of preference.
_NAME_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")
_HASH_REASON = "doc_hash differs between systems"
_NO_FILTER = "none"
_LOG_SAMPLES_HINT = (
    "run lm_eval with --log_samples and keep the samples_<task>_<date>.jsonl "
    "files next to the results_<date>.json they belong to"
)
_DUPLICATE_HINT = (
    "lm-eval results of one model are read as repeated runs only when they "
    "come from different results files; pass each results file (or output "
    "folder) once"
)
#: lm-eval 0.4.0-0.4.2 name a task's samples file after the model arguments:
#: ``re.sub("/|=", "__", model_args) + "_" + task + ".jsonl"`` beside ``results.json``.
_ARGS_SEPARATORS = re.compile("/|=")
#: Keys only lm-eval's results files have (a reportgen results.json has none of them).
_RESULTS_KEYS = (b'"versions"', b'"configs"', b'"n-shot"', b'"higher_is_better"')


@dataclass
class _Sample:
    """The part of one samples line the adapter keeps."""

    line: int
    doc_id: str
    doc_hash: str | None
    values: dict[str, Any]
    #: input, output, target, explanation (:func:`_sample_texts`), or None (--no-text)
    texts: tuple[Any, Any, Any, Any] | None = None


@dataclass
class _TaskSamples:
    """One task of one results file: its samples file, grouped by filter."""

    task: str
    path: Path
    by_filter: dict[str, list[_Sample]] = field(default_factory=dict)


@dataclass
class _ResultsFile:
    """What the adapter needs from one ``results_*.json``."""

    path: Path
    name: str
    model: str
    model_args: str
    date: float
    lm_eval_version: str | None
    tasks: list[str]
    metrics: dict[str, list[str]]
    filters: dict[str, list[str]]
    directions: dict[str, dict[str, bool]]
    aggregations: dict[str, dict[str, str]]
    system: str = ""
    samples: dict[str, _TaskSamples] = field(default_factory=dict)


class LmEvalAdapter(Adapter):
    name = "lm-eval"
    description = (
        "lm-evaluation-harness output (results_*.json with the samples_*.jsonl of --log_samples)"
    )
    priority = 20
    # systems, repeated runs and doc_hash checks span every results file given
    combine_inputs = True

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is not None:
            return _looks_like_results(head, path.name)
        return next(_find_results(path), None) is not None

    def refuse(self, path: Path, head: bytes) -> NotReadAlone | None:
        if not _looks_like_samples(head):
            return None
        return _samples_alone_error(path)

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        return self.read_many([path], options)

    def read_many(self, paths: list[Path], options: LoadOptions) -> AdapterResult:
        files: list[Path] = []
        samples_given: list[Path] = []
        for path in paths:
            if path.is_file() and _looks_like_samples(_head(path)):
                samples_given.append(path)  # read with its results file, or refused below
                continue
            found = [path] if path.is_file() else list(_find_results(path, by_name=True))
            if not found:
                raise InputError(
                    f"no lm-eval results_*.json file in this folder or {_MAX_DEPTH} levels below",
                    location=Location(str(path)),
                    hint="point at the --output_path folder of lm_eval, a model folder "
                    "inside it, or one results_*.json file",
                )
            files.extend(f for f in found if f not in files)
        if not files:
            raise _samples_alone_error(samples_given[0])
        runs = sorted((_parse_results(f) for f in files), key=lambda r: (r.date, str(r.path)))
        _name_systems(runs)
        problems: list[Problem] = []
        skipped_inputs: list[SkippedInput] = []
        # one samples file is one run, however many results files point at it (a
        # results.json beside a results_<date>.json of the same evaluation)
        read_by: dict[tuple[str, str, str], Path] = {}
        for run in runs:
            for task in list(run.tasks):
                samples_file = _samples_path(run, task)
                key = (run.system, task, os.path.realpath(samples_file) if samples_file else "")
                if samples_file is not None and key in read_by:
                    run.tasks.remove(task)
                    problems.append(
                        Problem(
                            "info",
                            f"task {task!r} of {run.system!r}: {run.path.name} and "
                            f"{read_by[key].name} name the same samples file "
                            f"({samples_file.name}), read once as one run",
                            location=Location(str(run.path)),
                            dataset=task,
                        )
                    )
                    continue
                samples = _read_samples(run, task, options, skipped_inputs)
                if samples is None:
                    run.tasks.remove(task)
                else:
                    run.samples[task] = samples
                    if samples_file is not None:
                        read_by[key] = run.path
        read = {os.path.realpath(s.path) for run in runs for s in run.samples.values()}
        for given in samples_given:
            if os.path.realpath(given) not in read:
                raise _samples_alone_error(given)
        runs = [run for run in runs if run.tasks]
        if not runs:
            raise InputError(
                "no task of these lm-eval results has a per-sample file",
                location=Location(str(files[0])),
                hint=_LOG_SAMPLES_HINT,
            )
        chosen = _choose_filters(runs, options.lm_eval_filter, problems)
        run_index = _run_indices(runs, problems)
        rows, skipped = _collect_rows(runs, chosen, run_index)
        problems.extend(_skipped_problems(skipped, runs))
        frame = _frame(rows, with_run=any(i > 0 for i in run_index.values()))
        frame, nonfinite_exclusions, nonfinite_problems = drop_nonfinite(
            frame.drop(columns="_nonfinite"),
            frame["_nonfinite"].to_numpy(),
            options,
            harness="lm-eval",
            field="{metric!r} (samples_{dataset}_*.jsonl)",
            hint="fix the task's metric (e.g. a parse failure scored as infinity) and run "
            "lm_eval again",
        )
        problems.extend(nonfinite_problems)
        frame = _label_metrics(frame, runs, problems)
        frame, exclusions = _exclude_hash_mismatches(frame, problems)
        exclusions = nonfinite_exclusions + exclusions
        directions = _directions(runs, set(frame["metric"]), problems)
        problems.extend(_aggregation_problems(runs, frame))
        attributes = {
            run.system: {
                "model": run.model,
                "model_args": run.model_args,
                "lm_eval_version": run.lm_eval_version,
            }
            for run in runs
        }
        return AdapterResult(
            frame,
            directions=directions,
            exclusions=exclusions,
            problems=problems,
            system_attributes=attributes,
            skipped=skipped_inputs,
            duplicate_hint=_DUPLICATE_HINT,
        )


# ------------------------------------------------------------------------ finding files


def _is_results_name(name: str) -> bool:
    """``results_<date>.json`` (0.4.3 on) or ``results.json`` (0.4.0-0.4.2)."""
    return name.endswith(".json") and (name.startswith("results_") or name == "results.json")


#: A results file under any other name opens with its ``"results"`` object, whose first
#: entry holds ``"<metric>,<filter>"`` keys (0.4) or an ``"alias"``; this many bytes
#: of it are looked at (cheap enough for every JSON file of a folder).
_RENAMED_HEAD = 4096
_FIRST_KEY_RESULTS = re.compile(rb'\A\s*\{\s*"results"\s*:\s*\{')
_METRIC_FILTER_KEY = re.compile(rb'"[^"\\,]+,[^"\\,]+"\s*:|"alias"\s*:')


def _looks_like_results(head: bytes, name: str) -> bool:
    """Whether a file is an lm-eval results file, from its content: a ``.json`` whose
    first key is a ``"results"`` object of ``"<metric>,<filter>"`` entries (however the
    file is named), or under lm-eval's own names a ``"results"`` key (a plain
    ``results.json``, also the name of reportgen's own output, must also hold a key only
    lm-eval writes)."""
    if b'"results"' not in head or b'"reportgen_version"' in head:
        return False
    if b'"config_general"' in head:  # lighteval's results_<time>.json
        return False
    text = head.removeprefix(b"\xef\xbb\xbf")
    if _FIRST_KEY_RESULTS.match(text):
        start = text[:_RENAMED_HEAD]
        if _METRIC_FILTER_KEY.search(start) or any(key in head for key in _RESULTS_KEYS):
            return True
    if not _is_results_name(name):
        return False
    return name != "results.json" or any(key in head for key in _RESULTS_KEYS)


#: Keys of every line of a samples file (a JSON array of such records in 0.4.0-0.4.2).
_SAMPLE_KEYS = (b'"doc_id"', b'"arguments"', b'"resps"')


def _looks_like_samples(head: bytes) -> bool:
    """An lm-eval samples file (``samples_<task>_<date>.jsonl``, or the JSON array of
    0.4.0-0.4.2), from its first record."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text.startswith((b"{", b"[")):
        return False
    first = text[:SNIFF_BYTES].split(b"\n", 1)[0] if text.startswith(b"{") else text
    return all(key in first for key in _SAMPLE_KEYS)


def _head(path: Path, size: int = SNIFF_BYTES) -> bytes:
    """The first ``size`` bytes of a regular file, never blocking (:mod:`._files`)."""
    return _files.read_head(path, size) or b""


def _samples_alone_error(path: Path) -> NotReadAlone:
    """The error for a samples file given without the results file of its run."""
    beside = [f for f in _find_results(path.parent, _MAX_DEPTH) if f.parent == path.parent]
    task = _samples_task(path)
    what = f" of task {task!r}" if task else ""
    instead = (
        f"pass the results file beside it ({', '.join(f.name for f in beside[:3])}) or "
        "the folder holding both"
        if beside
        else "pass the results_<date>.json that the same lm_eval run wrote beside it (or "
        "the folder holding both); without it the model, the metrics' directions and "
        "the filters are unknown"
    )
    return NotReadAlone(
        f"this is an lm-evaluation-harness samples file (the per-document records{what} "
        "that --log_samples writes), not a results file",
        location=Location(str(path)),
        hint=instead,
    )


def _samples_task(path: Path) -> str | None:
    """The task of ``samples_<task>_<date>.jsonl``, when the file keeps that name."""
    match = re.fullmatch(r"samples_(.+)_[^_]+\.jsonl?", path.name)
    return match[1] if match else None


def _find_results(folder: Path, depth: int = 0, *, by_name: bool = False) -> Iterator[Path]:
    """Results files in ``folder`` and up to :data:`_MAX_DEPTH` levels below, sorted:
    ``.json`` files whose content is an lm-eval results file, whatever their name
    (``by_name``: also every file named as lm-eval names them, which reading then
    checks); regular files and folders only (:mod:`._files`)."""
    subfolders = []
    for entry in _files.entries(folder):
        if entry.name.startswith("."):
            continue
        if entry.kind == "file" and entry.name.lower().endswith(".json"):
            size = SNIFF_BYTES if _is_results_name(entry.name) else _RENAMED_HEAD
            if (by_name and _is_results_name(entry.name)) or _looks_like_results(
                _head(entry.path, size), entry.name
            ):
                yield entry.path
        elif entry.kind == "folder" and depth < _MAX_DEPTH:
            subfolders.append(entry.path)
    for sub in subfolders:
        yield from _find_results(sub, depth + 1, by_name=by_name)


def _date_id(path: Path) -> str | None:
    """The ``<date>`` of ``results_<date>.json`` (or ``NAME_<date>.json``)."""
    stem = path.stem
    return stem.rsplit("_", 1)[1] if "_" in stem else None


# ------------------------------------------------------------------------ results file


def _parse_results(path: Path) -> _ResultsFile:
    data = read_json(path)
    where = Location(str(path))
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise InputError(
            'not an lm-evaluation-harness results file: no "results" object',
            location=where,
            hint="pass the results_<date>.json that lm_eval --output_path wrote, "
            "or the folder holding it",
        )
    config = data.get("config")
    if not isinstance(config, dict):
        config = {}
    model = str(config.get("model") or "")
    model_args = _args_text(config.get("model_args"))
    name = data.get("model_name")
    if not isinstance(name, str) or not name.strip():
        name = _name_from_args(config.get("model_args")) or model
    if not name:
        raise InputError(
            "the results file names no model (no model_name, config.model_args or config.model)",
            location=where,
            hint="the file may be hand-edited; regenerate it with lm_eval",
        )
    tasks = _task_names(data, where)
    date = data.get("date")
    return _ResultsFile(
        path=path,
        name=name.strip(),
        model=model,
        model_args=model_args,
        date=float(date) if isinstance(date, (int, float)) else math.inf,
        lm_eval_version=_text_or_none(data.get("lm_eval_version")),
        tasks=tasks,
        metrics=_metric_names(data, tasks),
        filters=_filter_names(data, tasks),
        directions=_higher_is_better(data, tasks),
        aggregations=_aggregations(data, tasks),
    )


def _task_names(data: dict[str, Any], where: Location) -> list[str]:
    """Tasks with samples: the results entries that have a config (groups have none)."""
    results: dict[str, Any] = data["results"]
    configs = data.get("configs")
    if isinstance(configs, dict) and configs:
        tasks = [t for t in results if t in configs]
    else:
        groups = data.get("group_subtasks")
        groups = groups if isinstance(groups, dict) else {}
        tasks = [t for t in results if not groups.get(t)]
    if not tasks:
        raise InputError(
            "the results file lists no task (only groups, or nothing)",
            location=where,
            hint="the evaluation may have failed; rerun lm_eval with --log_samples",
        )
    return tasks


def _metric_names(data: dict[str, Any], tasks: list[str]) -> dict[str, list[str]]:
    """Metric names per task from the ``"acc,none"``-style keys of ``results``: what a
    samples line holds when it does not list its ``metrics`` (files before 0.4.8)."""
    out: dict[str, list[str]] = {}
    for task in tasks:
        entry = data["results"][task]
        names = out.setdefault(task, [])
        for key in entry if isinstance(entry, dict) else ():
            metric = str(key).split(",", 1)[0]
            if "," in str(key) and not metric.endswith("_stderr") and metric not in names:
                names.append(metric)
    return out


def _filter_names(data: dict[str, Any], tasks: list[str]) -> dict[str, list[str]]:
    """Filters per task, in the order of the ``"metric,filter"`` keys of ``results``: the
    order in which lm-eval (0.4.0-0.4.6) wrote each document once per filter."""
    out: dict[str, list[str]] = {}
    for task in tasks:
        entry = data["results"][task]
        names = out.setdefault(task, [])
        for key in entry if isinstance(entry, dict) else ():
            metric, sep, name = str(key).partition(",")
            if sep and not metric.endswith("_stderr") and name not in names:
                names.append(name)
    return out


def _higher_is_better(data: dict[str, Any], tasks: list[str]) -> dict[str, dict[str, bool]]:
    table = data.get("higher_is_better")
    if not isinstance(table, dict):
        return {}
    return {
        task: {str(m): v for m, v in table[task].items() if isinstance(v, bool)}
        for task in tasks
        if isinstance(table.get(task), dict)
    }


def _aggregations(data: dict[str, Any], tasks: list[str]) -> dict[str, dict[str, str]]:
    configs = data.get("configs")
    out: dict[str, dict[str, str]] = {}
    if not isinstance(configs, dict):
        return out
    for task in tasks:
        task_config = configs.get(task)
        metric_list = task_config.get("metric_list") if isinstance(task_config, dict) else None
        if isinstance(metric_list, list):
            out[task] = {
                str(m["metric"]): _aggregation_name(m["aggregation"])
                for m in metric_list
                if isinstance(m, dict)
                and isinstance(m.get("metric"), str)
                and isinstance(m.get("aggregation"), str)
            }
    return out


#: How a custom aggregation function is named: lm-eval writes its whole source into the
#: results file's configs (``aggregation: !function utils.span_f1_agg``).
_CUSTOM = "custom function "


def _aggregation_name(aggregation: str) -> str:
    """lm-eval's name of an aggregation, or for a custom function (its source code),
    ``custom function '<name>'``: never the code itself."""
    match = re.match(r"\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(", aggregation)
    if match:
        return f"{_CUSTOM}{match[1]!r}"
    return aggregation if len(aggregation) <= 80 else excerpt(aggregation)


def _shown(aggregation: str) -> str:
    return aggregation if aggregation.startswith(_CUSTOM) else repr(aggregation)


def _args_text(args: Any) -> str:
    if isinstance(args, dict):
        return ",".join(f"{k}={v}" for k, v in args.items())
    return "" if args is None else str(args)


def _name_from_args(args: Any) -> str | None:
    """lm-eval's rule for the model name: the first of :data:`_NAME_KEYS` given."""
    if isinstance(args, dict):
        pairs = {str(k): str(v) for k, v in args.items()}
    elif isinstance(args, str):
        pairs = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    else:
        return None
    return next((pairs[k] for k in _NAME_KEYS if pairs.get(k)), None)


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _name_systems(runs: list[_ResultsFile]) -> None:
    """Set each run's system: its model name, qualified where one name is ambiguous."""
    variants: dict[str, set[tuple[str, str]]] = {}
    for run in runs:
        variants.setdefault(run.name, set()).add((run.model, run.model_args))
    for run in runs:
        ambiguous = len(variants[run.name]) > 1
        run.system = f"{run.name} [{run.model}: {run.model_args}]" if ambiguous else run.name


# ------------------------------------------------------------------------ samples files


def _samples_path(run: _ResultsFile, task: str) -> Path | None:
    """The samples file of ``task``, in the naming of the lm-eval version that wrote it:
    ``samples_<task>_<date>.jsonl`` (0.4.3 on), ``samples_<task>_<date>.json`` (main
    between May and June 2024), ``<model_args>_<task>.jsonl`` (0.4.0-0.4.2)."""
    folder = run.path.parent
    date = _date_id(run.path)
    candidates = []
    if date is not None and run.path.name != "results.json":
        candidates += [
            folder / f"samples_{task}_{date}.jsonl",
            folder / f"samples_{task}_{date}.json",
        ]
    if run.model_args:
        candidates.append(folder / f"{_ARGS_SEPARATORS.sub('__', run.model_args)}_{task}.jsonl")
    # a model_args of thousands of characters makes a name too long: no such file
    found = next((c for c in candidates if _files.is_file(c)), None)
    if found is None and not _is_results_name(run.path.name):
        # a renamed results file whose name kept no date: the task's only samples file
        prefix = f"samples_{task}_"
        beside = [
            b
            for b in sorted(folder.glob(f"{glob.escape(prefix)}*.json*"))
            if b.name.endswith((".json", ".jsonl")) and "_" not in b.name[len(prefix) :]
        ]
        found = beside[0] if len(beside) == 1 else None
    return found


def _sample_records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line, record) of a samples file: JSON lines, or one JSON array (lm-eval 0.4.0 to
    0.4.2 write ``json.dumps(samples, indent=2)`` under a ``.jsonl`` name)."""
    with path.open("rb") as fh:
        head = head_text(fh.read(SNIFF_BYTES)).lstrip("\ufeff").lstrip()
    if not head.startswith("["):
        rows, numbers = read_jsonl(path)
        yield from zip(numbers.tolist(), rows, strict=True)
        return
    records = read_json(path)
    if not isinstance(records, list):  # pragma: no cover - read_json parsed a '['
        raise InputError("expected a JSON array of samples", location=Location(str(path)))
    # indent=2: each record starts on a line "  {"; number records by line where possible
    text = read_text(path)
    starts = [n for n, line in enumerate(text.split("\n"), 1) if line.rstrip() == "  {"]
    lines = starts if len(starts) == len(records) else [-1] * len(records)
    yield from zip(lines, records, strict=True)


def _read_samples(
    run: _ResultsFile, task: str, options: LoadOptions, skipped: list[SkippedInput]
) -> _TaskSamples | None:
    path = _samples_path(run, task)
    if path is None:
        date = _date_id(run.path)
        expected = (
            f"samples_{task}_{date}.jsonl"
            if run.path.name != "results.json"
            else f"{_ARGS_SEPARATORS.sub('__', run.model_args)}_{task}.jsonl"
        )
        skipped.append(
            skip_input(
                options,
                run.path,
                f"no per-sample file for task {task!r}: expected {expected} "
                "next to the results file",
                hint=_LOG_SAMPLES_HINT,
                format="lm-eval",
            )
        )
        return None
    fallback = run.metrics.get(task, [])
    filters = run.filters.get(task, [])
    out = _TaskSamples(task, path)
    occurrences: dict[str, int] = {}
    unfiltered: list[tuple[int, str]] = []
    for lineno, record in _sample_records(path):
        where = Location(str(path), lineno if lineno > 0 else None)
        if not isinstance(record, dict):
            raise InputError(
                f"a sample is a {type(record).__name__}, not an object",
                location=where,
                hint="regenerate the samples file with lm_eval",
            )
        doc_id = record.get("doc_id")
        if doc_id is None or isinstance(doc_id, (dict, list)):
            raise InputError(
                f"sample without a doc_id (found {_short(doc_id)})",
                location=where,
                hint="each line of an lm-eval samples file has doc_id; the "
                "file may be hand-edited, regenerate it",
            )
        metrics = record.get("metrics", fallback)
        if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
            raise InputError(
                f'"metrics" is {_short(metrics)}, expected a list of metric names',
                location=where,
                hint="regenerate the samples file with lm_eval --log_samples",
            )
        missing = [m for m in metrics if m not in record]
        if missing:
            raise InputError(
                f"sample lacks the value of {'metric' if len(missing) == 1 else 'metrics'} "
                f"{', '.join(missing)}",
                location=where,
                hint="the file may be truncated or hand-edited; regenerate it",
            )
        doc_hash = record.get("doc_hash")
        if "filter" in record:
            name = str(record["filter"])
        else:
            # lm-eval 0.4.0-0.4.6 write no filter key: every document once per filter,
            # in the order of the task's filters (the "metric,filter" keys of results)
            seen = occurrences.get(str(doc_id), 0)
            occurrences[str(doc_id)] = seen + 1
            name = filters[seen] if seen < len(filters) else f"#{seen + 1}"
            unfiltered.append((lineno, name))
        out.by_filter.setdefault(name, []).append(
            _Sample(
                lineno,
                str(doc_id),
                doc_hash if isinstance(doc_hash, str) else None,
                {str(m): record[m] for m in metrics},
                None if options.no_text else _sample_texts(record),
            )
        )
    if unfiltered:
        _check_filter_blocks(out, filters, occurrences, run)
    return out


def _pairs(arguments: Any) -> list[tuple[Any, Any]]:
    """The (context, continuation or generation arguments) of a sample's requests:
    ``{"gen_args_0": {"arg_0": ..., "arg_1": ...}}`` (0.4.3 on) or ``[[ctx, cont], ...]``
    (0.4.0-0.4.2)."""
    if isinstance(arguments, dict):
        return [(a.get("arg_0"), a.get("arg_1")) for a in arguments.values() if isinstance(a, dict)]
    if isinstance(arguments, list):
        return [
            (a[0], a[1] if len(a) > 1 else None) if isinstance(a, list) and a else (a, None)
            for a in arguments
        ]
    return []


def _loglikelihood(value: Any) -> float | None:
    """A response's log-likelihood: ``[ll, is_greedy]`` (a number, or its text in 0.4.3
    to 0.4.5), else None."""
    first = value[0] if isinstance(value, list) and value else value
    if isinstance(first, bool):
        return None
    if isinstance(first, (int, float)):
        return float(first)
    if isinstance(first, str):
        try:
            return float(first)
        except ValueError:
            return None
    return None


def _sample_texts(record: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    """A sample's item text: the prompt (``arguments``), what the model answered, the
    ``target``, and the explanation.

    A generation (``generate_until``) answered ``resps[0][0]``; when the task's filter
    extracted something else from it (``filtered_resps``), that is the explanation. A
    multiple-choice sample (log-likelihoods of several continuations of one context)
    answered the continuation with the highest log-likelihood, the explanation lists
    every continuation with its log-likelihood, and an index ``target`` is shown as
    the continuation it points at.
    """
    pairs = _pairs(record.get("arguments"))
    context = pairs[0][0] if pairs and isinstance(pairs[0][0], str) else None
    target = record.get("target")
    resps, filtered = record.get("resps"), record.get("filtered_resps")
    output = explanation = None
    if pairs and not isinstance(pairs[0][1], str):  # a generation: arg_1 holds its kwargs
        raw = resps[0] if isinstance(resps, list) and resps else None
        raw = raw[0] if isinstance(raw, list) and raw else raw
        output = raw if isinstance(raw, str) else None
        kept = filtered[0] if isinstance(filtered, list) and filtered else filtered
        if isinstance(kept, str) and kept != output:
            explanation = f"filtered: {kept}"
    elif len(pairs) > 1 and isinstance(filtered, list) and len(filtered) == len(pairs):
        scores = [_loglikelihood(v) for v in filtered]
        choices = [c if isinstance(c, str) else as_text(c) or "" for _, c in pairs]
        known = [v for v in scores if v is not None]
        if len(known) == len(scores):
            best = known.index(max(known))
            output = choices[best]
            explanation = "\n".join(f"{c!r}: {v:.4g}" for c, v in zip(choices, known))
        index = _index(target)
        if index is not None and 0 <= index < len(choices):
            target = choices[index]
    return context, output, target, explanation


def _index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _check_filter_blocks(
    samples: _TaskSamples, filters: list[str], occurrences: Mapping[str, int], run: _ResultsFile
) -> None:
    """Samples without a filter key must repeat every document once per filter."""
    counts = set(occurrences.values())
    if counts == {len(filters)} or (not filters and counts == {1}):
        if not filters:
            samples.by_filter = {_NO_FILTER: samples.by_filter.pop("#1")}
        return
    raise InputError(
        f"task {samples.task!r}: the samples have no filter key and repeat documents "
        f"{'/'.join(str(c) for c in sorted(counts))} "
        f"{'time' if sorted(counts) == [1] else 'times'}, but the results file lists "
        f"{count(len(filters), 'filter')} ({', '.join(filters) or 'none'}), so the scores "
        "cannot be "
        "assigned to filters",
        location=Location(str(samples.path)),
        hint=f"keep the samples file that was written with {run.path.name}; both come from "
        "one lm_eval run",
    )


def _choose_filters(
    runs: list[_ResultsFile], requested: str | None, problems: list[Problem]
) -> dict[str, str]:
    """The filter kept for each task (module notes)."""
    available: dict[str, list[str]] = {}
    for run in runs:
        for task, samples in run.samples.items():
            names = available.setdefault(task, [])
            names.extend(f for f in samples.by_filter if f not in names)
    if requested is not None and not any(requested in f for f in available.values()):
        found = sorted({f for names in available.values() for f in names})
        raise InputError(
            f"no task has the lm-eval filter {requested!r}",
            location=Location(str(runs[0].path.parent)),
            hint=f"filters in these results: {', '.join(found)}; pass one of "
            "them with --lm-eval-filter, or none for each task's first",
        )
    chosen: dict[str, str] = {}
    for task, names in available.items():
        if requested in names:
            chosen[task] = requested
        elif requested is None or len(names) == 1:
            chosen[task] = names[0]
            if len(names) > 1:
                problems.append(
                    Problem(
                        "info",
                        f"task {task!r}: scores use filter {names[0]!r} (the first of "
                        f"{', '.join(names)}); choose another with --lm-eval-filter",
                        dataset=task,
                    )
                )
        else:
            raise InputError(
                f"task {task!r} has no lm-eval filter {requested!r}",
                location=Location(str(runs[0].path.parent)),
                hint=f"its filters: {', '.join(names)}; pass one of them as "
                "--lm-eval-filter, or none for each task's first",
            )
    for run in runs:
        for task, samples in run.samples.items():
            if chosen[task] not in samples.by_filter:
                raise InputError(
                    f"task {task!r} has no samples for filter {chosen[task]!r} in this file "
                    f"(it has {', '.join(samples.by_filter)})",
                    location=Location(str(samples.path)),
                    hint="evaluate every system with the same task configuration, or pick a "
                    "filter all of them have with --lm-eval-filter",
                )
    return chosen


def _run_indices(runs: list[_ResultsFile], problems: list[Problem]) -> dict[tuple[int, str], int]:
    """(position of the results file, task) -> run index within (system, task)."""
    counts: dict[tuple[str, str], int] = {}
    index: dict[tuple[int, str], int] = {}
    for position, run in enumerate(runs):
        for task in run.tasks:
            key = (run.system, task)
            index[(position, task)] = counts.get(key, 0)
            counts[key] = counts.get(key, 0) + 1
    for (system, task), n in counts.items():
        if n > 1:
            problems.append(
                Problem(
                    "info",
                    f"system {system!r} has {n} results files for task {task!r}: they "
                    f"are read as repeated runs 0..{n - 1} in the order of their date",
                    dataset=task,
                )
            )
    return index


# ------------------------------------------------------------------------ rows


def _aggregation_names(runs: list[_ResultsFile]) -> dict[tuple[str, str], str]:
    """lm-eval's aggregation of every (task, metric) of the results files (``"mean"``,
    ``"f1"``, ``"bleu"``, ...)."""
    return {
        (task, metric): str(name)
        for run in runs
        for task, table in run.aggregations.items()
        for metric, name in table.items()
    }


#: Aggregations of lm-eval whose per-sample values are (gold, prediction) label pairs
#: (``f1``, ``mcc``/``matthews_corrcoef``, task-defined ``macro_f1``, ``micro_f1``, ...).
_LABEL_AGGREGATION = re.compile(r"f1|mcc|matthews", re.IGNORECASE)


def _is_label_aggregation(aggregation: str) -> bool:
    """One of lm-eval's classification aggregations over (gold, prediction) label pairs
    (``f1``, ``mcc``, ``matthews_corrcoef``, ...); a task's own function (whose pairs may
    be anything, e.g. span lists) is not."""
    return not aggregation.startswith(_CUSTOM) and bool(_LABEL_AGGREGATION.search(aggregation))


def _label_pair(value: Any) -> tuple[Any, Any] | None:
    """``(gold, prediction)`` when ``value`` is a pair of labels (numbers or text)."""
    if (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value)
    ):
        return value[0], value[1]
    return None


#: lm-eval's aggregation → the corpus metric of :mod:`reportgen.stats.corpus` that
#: computes the same number from the labels (scikit-learn's ``f1_score`` defaults to the
#: binary F1 of label 1, the last of sorted 0/1 labels).
_CORPUS_EQUIVALENT = {
    "f1": "f1-binary",
    "matthews_corrcoef": "mcc",
    "mcc": "mcc",
    "macro_f1": "f1-macro",
    "f1_macro": "f1-macro",
    "micro_f1": "f1-micro",
    "f1_micro": "f1-micro",
}

#: The per-item metric of a task's label pairs when all its label metrics share them.
LABELS_METRIC = "labels"


def label_metric_name(metric: str) -> str:
    """The per-item metric of one label-pair metric whose labels differ from the task's
    other label metrics: exact match of prediction and gold."""
    return f"{metric} (labels)"


def _label_metrics(
    frame: pd.DataFrame, runs: list[_ResultsFile], problems: list[Problem]
) -> pd.DataFrame:
    """Name the label-pair metrics of each task, with an info naming what they became.

    lm-eval stores the same (gold, prediction) pair under every classification metric of
    a multiple-choice task (``f1``, ``mcc``, ...). When a task's label metrics hold the
    same pairs for every sample, they are carried once, as :data:`LABELS_METRIC`;
    otherwise each becomes :func:`label_metric_name`."""
    if "prediction" not in frame:
        return frame
    carried = frame["reference"].notna()
    if not carried.any():
        return frame.drop(columns=["prediction", "reference"])
    aggregation = _aggregation_names(runs)
    keys = [c for c in ("system", "item", "run") if c in frame]
    parts = [frame[~carried]]
    for task, part in frame[carried].groupby("dataset", sort=False):
        metrics = list(dict.fromkeys(part["metric"]))
        pairs = [
            part[part["metric"] == m].set_index(keys)[["prediction", "reference"]].sort_index()
            for m in metrics
        ]
        shared = all(p.index.equals(pairs[0].index) and p.equals(pairs[0]) for p in pairs[1:])
        if shared:
            part = part[part["metric"] == metrics[0]].assign(metric=LABELS_METRIC)
            names = dict.fromkeys(metrics, LABELS_METRIC)
        else:
            names = {m: label_metric_name(m) for m in metrics}
            part = part.assign(metric=part["metric"].map(names))
        parts.append(part)
        how = []
        for metric in metrics:
            agg = aggregation.get((task, metric), "")
            same = _CORPUS_EQUIVALENT.get(agg)
            how.append(
                f"{metric} (aggregation {_shown(agg)}"
                + (f"; --corpus-metric {same} reproduces it)" if same else ")")
            )
        carried_as = (
            f"the metric {LABELS_METRIC!r}"
            if shared
            else "the metrics " + ", ".join(repr(n) for n in names.values())
        )
        problems.append(
            Problem(
                "info",
                f"task {task!r}: the per-sample (gold, prediction) labels of lm-eval's "
                f"{', '.join(how)} are carried as predictions and references under "
                f"{carried_as}, whose per-item score is their exact match; corpus "
                "metrics (--corpus-metric, default f1-macro) are computed from them",
                dataset=str(task),
            )
        )
    return pd.concat(parts, ignore_index=True)


def _collect_rows(
    runs: list[_ResultsFile], chosen: Mapping[str, str], run_index: Mapping[tuple[int, str], int]
) -> tuple[dict[str, list[Any]], dict[tuple[str, str], tuple[Any, Location]]]:
    """Rows of the frame as columns, and the (task, metric) pairs skipped as non-numeric
    with an example value and where it is.

    A metric whose values are (gold, prediction) label pairs and that lm-eval aggregates
    as a classification metric (:data:`_LABEL_AGGREGATION`) is carried with its labels
    in the ``prediction`` and ``reference`` columns, its score the exact match;
    :func:`_label_metrics` names it."""
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
            SOURCE_FILE,
            SOURCE_LINE,
            "prediction",
            "reference",
            "_nonfinite",
            *TEXT_ROLES,
        )
    }
    skipped: dict[tuple[str, str], tuple[Any, Location]] = {}
    aggregation = _aggregation_names(runs)
    for position, run in enumerate(runs):
        for task, samples in run.samples.items():
            for sample in samples.by_filter[chosen[task]]:
                for metric, value in sample.values.items():
                    score = _number(value)
                    prediction = reference = None
                    if score is None:
                        pair = (
                            _label_pair(value)
                            if _is_label_aggregation(aggregation.get((task, metric), ""))
                            else None
                        )
                        if pair is None:
                            skipped.setdefault(
                                (task, metric),
                                (value, Location(str(samples.path), sample.line, metric)),
                            )
                            continue
                        reference, prediction = pair
                        score = float(prediction == reference)
                    columns["system"].append(run.system)
                    columns["dataset"].append(task)
                    columns["metric"].append(metric)
                    columns["item"].append(sample.doc_id)
                    columns["score"].append(score)
                    columns["prediction"].append(prediction)
                    columns["reference"].append(reference)
                    columns["run"].append(run_index[(position, task)])
                    columns["_hash"].append(sample.doc_hash)
                    columns[SOURCE_FILE].append(str(samples.path))
                    columns[SOURCE_LINE].append(sample.line)
                    # Infinity or NaN written by lm-eval (null is a missing value)
                    columns["_nonfinite"].append(value is not None and not math.isfinite(score))
                    texts = sample.texts or _NO_TEXTS
                    for role, text in zip(TEXT_ROLES, texts, strict=True):
                        columns[role].append(text)
    if skipped:
        keep = [
            i
            for i, key in enumerate(zip(columns["dataset"], columns["metric"], strict=True))
            if key not in skipped
        ]
        columns = {k: [v[i] for i in keep] for k, v in columns.items()}
    return columns, skipped


_NO_TEXTS = (None, None, None, None)


def _number(value: Any) -> float | None:
    """A per-sample value as a float (``None`` -> NaN), or ``None`` if not a number."""
    if value is None:
        return math.nan
    if isinstance(value, (bool, int, float)):
        return to_float(value)
    return None


def _skipped_problems(
    skipped: Mapping[tuple[str, str], tuple[Any, Location]], runs: list[_ResultsFile]
) -> list[Problem]:
    """A named warning per corpus-level metric: its per-sample values are the inputs of a
    corpus aggregation (bleu, chrf, ter, f1 of (gold, prediction) pairs, ...)."""
    aggregation = _aggregation_names(runs)
    out = []
    for (task, metric), (value, where) in skipped.items():
        how = aggregation.get((task, metric))
        by = f" (lm-eval aggregates them with {_shown(how)})" if how else ""
        out.append(
            Problem(
                "warning",
                f"metric {metric!r} of task {task!r} is skipped: its "
                f"per-sample values are not numbers (e.g. "
                f"{_short(value)}) but the inputs of a corpus-level "
                f"metric{by}, which has no per-item score",
                location=where,
                dataset=task,
            )
        )
    return out


def _short(value: Any, limit: int = 60) -> str:
    return excerpt(value, limit)


def _frame(columns: dict[str, list[Any]], *, with_run: bool) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "system": pd.Series(columns["system"], dtype=str),
            "dataset": pd.Series(columns["dataset"], dtype=str),
            "metric": pd.Series(columns["metric"], dtype=str),
            "item": pd.Series(columns["item"], dtype=str),
            "score": np.asarray(columns["score"], dtype=np.float64),
            "run": np.asarray(columns["run"], dtype=np.int64),
            "_hash": pd.Series(columns["_hash"], dtype=object),
            SOURCE_FILE: pd.Series(columns[SOURCE_FILE], dtype=str),
            SOURCE_LINE: np.asarray(columns[SOURCE_LINE], dtype=np.int64),
            "_nonfinite": np.asarray(columns["_nonfinite"], dtype=bool),
        }
    )
    if any(p is not None for p in columns["prediction"]):
        frame["prediction"] = pd.Series(columns["prediction"], dtype=object)
        frame["reference"] = pd.Series(columns["reference"], dtype=object)
    for role in TEXT_ROLES:
        if any(t is not None for t in columns[role]):
            frame[role] = pd.Series(columns[role], dtype=object)
    return frame if with_run else frame.drop(columns="run")


def _exclude_hash_mismatches(
    frame: pd.DataFrame, problems: list[Problem]
) -> tuple[pd.DataFrame, list[Exclusion]]:
    """Drop the (task, doc_id) whose doc_hash differs between rows; drop the hash column."""
    hashed = frame[frame["_hash"].notna()]
    n_hashes = hashed.groupby(["dataset", "item"], sort=False)["_hash"].nunique()
    bad = n_hashes[n_hashes > 1]
    if bad.empty:
        return frame.drop(columns="_hash"), []
    for task, items in bad.reset_index().groupby("dataset", sort=False)["item"]:
        ids = sorted(items, key=_doc_order)
        example = frame[(frame["dataset"] == task) & (frame["item"] == ids[0])].iloc[0]
        problems.append(
            Problem(
                "warning",
                f"task {task!r}: {count(len(ids), 'document')} "
                f"{verb(len(ids), 'have', 'has')} a different doc_hash "
                f"between systems (e.g. doc_id {ids[0]}), so the systems were not "
                "scored on the same documents; these items are excluded for every "
                "system",
                location=Location(str(example[SOURCE_FILE]), int(example[SOURCE_LINE])),
                dataset=str(task),
            )
        )
    key = pd.MultiIndex.from_frame(frame[["dataset", "item"]])
    drop = key.isin(bad.index)
    counts = frame[drop].groupby(["dataset", "metric", "system", SOURCE_FILE], sort=False).size()
    exclusions = [
        Exclusion(_HASH_REASON, int(n), dataset=d, metric=m, system=s, source=f)
        for (d, m, s, f), n in counts.items()
    ]
    kept = frame[~drop].drop(columns="_hash").reset_index(drop=True)
    return kept, exclusions


def _doc_order(doc_id: str) -> tuple[int, int | str]:
    return (0, int(doc_id)) if doc_id.lstrip("-").isdigit() else (1, doc_id)


def _directions(
    runs: list[_ResultsFile], metrics: set[str], problems: list[Problem]
) -> dict[str, Literal["higher", "lower"]]:
    directions: dict[str, Literal["higher", "lower"]] = {}
    for run in runs:
        for task, table in run.directions.items():
            for metric, higher in table.items():
                if metric not in metrics:
                    continue
                direction: Literal["higher", "lower"] = "higher" if higher else "lower"
                previous = directions.setdefault(metric, direction)
                if previous != direction:
                    problems.append(
                        Problem(
                            "warning",
                            f"metric {metric!r}: higher_is_better of task {task!r} "
                            f"says {direction!r} is better, another task says "
                            f"{previous!r}; using {previous!r}",
                            dataset=task,
                        )
                    )
    return directions


def _aggregation_problems(runs: list[_ResultsFile], frame: pd.DataFrame) -> list[Problem]:
    """Numeric per-item metrics that lm-eval does not aggregate by a mean."""
    present = set(zip(frame["dataset"], frame["metric"], strict=True))
    seen: dict[tuple[str, str], str] = {}
    for run in runs:
        for task, table in run.aggregations.items():
            for metric, aggregation in table.items():
                if aggregation != "mean" and (task, metric) in present:
                    seen.setdefault((task, metric), aggregation)
    return [
        Problem(
            "warning",
            f"metric {metric!r} of task {task!r}: lm-eval aggregates it "
            f"with {_shown(aggregation)}, not a mean, so the report's means of "
            "the per-item values differ from lm-eval's number",
            dataset=task,
        )
        for (task, metric), aggregation in seen.items()
    ]


register_adapter(LmEvalAdapter())

"""HELM run folders: ``run_spec.json`` + ``per_instance_stats.json``.

`HELM <https://github.com/stanford-crfm/helm>`_'s ``helm-run`` writes one folder per run
(``benchmark_output/runs/<suite>/<run name>/``). This adapter reads such a run folder, a
``per_instance_stats.json`` (or ``run_spec.json``) inside one, or any folder holding run
folders up to three levels down (a suite folder, ``runs/``, ``benchmark_output/``).

Of a run folder two files are read (and ``scenario_state.json`` for the item text):

``run_spec.json``
    An object with ``name`` (e.g. ``"mmlu:subject=anatomy,method=multiple_choice_joint,
    model=openai_gpt2"``) and ``adapter_spec`` with ``model`` and ``model_deployment``.
``per_instance_stats.json``
    A list with one entry per (instance, perturbation, train trial): ``instance_id``,
    ``train_trial_index``, optionally ``perturbation`` (``name``, ``computed_on``,
    ``seed``, ...) and ``stats``, a list of HELM ``Stat`` objects: ``name`` (a
    ``MetricName``: ``name``, ``split``, ``sub_split``, ``perturbation``), ``count``,
    ``sum``, ``mean``, ...

Mapping to the data contract
----------------------------
system
    ``adapter_spec.model``. When the inputs read together hold one model under several
    deployments (``adapter_spec.model_deployment``), each becomes its own system
    ``"<model>@<deployment>"``. The deployment is recorded as the system attribute
    ``model_deployment``.
dataset
    The run name without its ``model=`` and ``model_deployment=`` arguments, e.g.
    ``"mmlu:subject=anatomy,method=multiple_choice_joint"``: every other argument
    (``data_augmentation=``, ``num_train_trials=``, ...) changes what is measured, so it
    stays. HELM reports the ``test`` split; instances of another split ``S`` (e.g.
    ``valid``) form their own dataset ``"<dataset>|split=S"``, a separate item population.
item
    ``instance_id``; when the instance's perturbation has a seed (HELM's
    ``seeds_per_instance`` > 1), ``"<instance_id>|seed=<seed>"``.
run
    ``train_trial_index`` (HELM's repeats with different few-shot examples), always
    present, ``0`` for single-trial runs.
metric
    The stat's ``name.name``, qualified by its perturbation as HELM does in its own stat
    names: ``"exact_match"`` for unperturbed instances,
    ``"exact_match|perturbation=lowercase"`` for the perturbed copies (same item ids, so
    original and perturbed scores pair up), plus ``|computed_on=<c>`` when that is not
    HELM's default ``perturbed``.
score
    The stat's ``mean`` (else ``sum / count``).
sub_split
    An item-metadata column, present when some stat has a ``sub_split``.

item text
    Read from the run's ``scenario_state.json`` when it is there (unless ``--no-text``):
    ``input`` is the instance's input text, ``output`` the first completion, ``target``
    the references tagged ``correct`` (as ``"A. text"`` when the run maps letters to
    choices, ``output_mapping``), ``explanation`` the choice the completion's letter
    names. Perturbed copies of an instance keep no text of their own.

Stats with ``count`` 0 (HELM writes e.g. ``training_co2_cost`` with no value) are left
out and counted in the exclusions. Aggregate files (``stats.json``) and the other files
of a run folder are not read.

Bookkeeping statistics and directions
-------------------------------------
HELM records, per instance, statistics that describe the run rather than score the
model: token counts (``num_prompt_tokens``, ``num_output_tokens``, ...), run times
(``inference_runtime``), ``batch_size``, ``num_train_instances``, ``prompt_truncated``,
``max_num_output_tokens``, ``finish_reason_*``, ``num_references``, ``training_*``, ...
They are never tested, ranked or aggregated as if higher were better: they become
*descriptive* statistics (their means per system and dataset, shown in the report's Data
section), unless :attr:`LoadOptions.metric` (``--metric``) names one. A suite's
``schema.json`` (written by ``helm-summarize`` into ``runs/<suite>/``) is read when it is
there: a metric it lists with ``lower_is_better`` true or false gets that direction
(bookkeeping statistics stay descriptive whatever it says); one it lists with
``lower_is_better`` null (no direction, e.g. ``num_trials``) is descriptive too; the
``main_name`` of a run's group (``run_groups[].environment``) is its main metric,
put first and named in an ``info`` problem. When the schema has metric groups
(``metric_groups``, listed per run group in ``run_groups[].metric_groups``), only the
metrics of the groups the runs' groups report are compared (``${main_name}`` resolved;
the efficiency and general-information groups excepted): those are HELM's own
leaderboard columns, and every other per-instance statistic (``logprob``,
``exact_match@5``, ...) is descriptive. Without a schema, ``logprob`` and ``max_prob``
(the inputs of HELM's perplexity and calibration metrics) are descriptive too.

Two suites with the same runs
-----------------------------
When one (system, dataset) comes from run folders in two suites (``runs/v3`` and
``runs/v4``), each such dataset is qualified with its suite, ``"<dataset>|suite=<suite>"``,
so that the suites are compared as distinct datasets.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NoReturn

import numpy as np
import pandas as pd

from reportgen.data._texts import TEXT_ROLES, as_text
from reportgen.data.adapters import _files, register_adapter
from reportgen.data.adapters._base import (
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    Exclusion,
    LoadOptions,
    NotReadAlone,
    Problem,
    drop_nonfinite,
    excerpt,
    parse_json_int,
    read_json,
    read_text,
    to_float,
)
from reportgen.errors import InputError, Location
from reportgen.plaintext import count, verb

__all__ = ["HelmAdapter"]

RUN_SPEC = "run_spec.json"
PER_INSTANCE_STATS = "per_instance_stats.json"
#: The requests and completions of a run, read for the item text.
SCENARIO_STATE = "scenario_state.json"
#: How deep below the given folder run folders are looked for (run folder = 0,
#: suite = 1, ``runs/`` = 2, ``benchmark_output/`` = 3).
MAX_DEPTH = 3
#: Folders the format detection looks into at most, so that sniffing a large unrelated
#: tree stays cheap.
_SNIFF_MAX_DIRS = 2000
_DEFAULT_SPLIT = "test"
_DEFAULT_COMPUTED_ON = "perturbed"
_MODEL_ARGS = ("model", "model_deployment")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_COUNT0_REASON = "HELM stat with count 0 (no value computed for the instance)"
SCHEMA = "schema.json"
#: HELM statistics that describe a run, not score a model (HELM's "general_information"
#: and "efficiency" metric groups, and the finish reasons): descriptive only.
_BOOKKEEPING = frozenset(
    {
        "batch_size",
        "prompt_truncated",
        "max_num_output_tokens",
        "num_references",
        "num_train_instances",
        "num_train_trials",
        "num_instances",
        "num_prompt_tokens",
        "num_completion_tokens",
        "num_output_tokens",
        "num_perplexity_tokens",
        "num_bytes",
        "inference_runtime",
        "inference_denoised_runtime",
        "inference_idealized_runtime",
        "num_completions",
        "num_tokens",
        # the log probability of the output and the calibration inputs: per-instance
        # quantities HELM aggregates into other metrics (perplexity, ECE)
        "logprob",
        "max_prob",
    }
)
_BOOKKEEPING_PREFIXES = ("finish_reason_", "training_", "num_", "inference_", "estimated_")
_DUPLICATE_HINT = (
    "HELM writes each instance once per run and train trial; the same run "
    "folder was probably given twice (a suite and a run inside it): pass "
    "each suite or run folder once"
)


@dataclass(frozen=True)
class _Run:
    """What the adapter needs from one run folder's ``run_spec.json``."""

    folder: Path
    name: str
    model: str
    deployment: str
    dataset: str
    groups: tuple[str, ...] = ()


class HelmAdapter(Adapter):
    name = "helm"
    description = "HELM run folders (run_spec.json + per_instance_stats.json), or suites of them"
    priority = 20

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is not None:
            if path.name == PER_INSTANCE_STATS:
                return True
            return path.name == RUN_SPEC and _files.is_file(path.parent / PER_INSTANCE_STATS)
        for visited, (folder, _depth) in enumerate(_walk(path), start=1):
            if _files.is_file(folder / PER_INSTANCE_STATS):
                return True
            if visited >= _SNIFF_MAX_DIRS:
                return False
        return False

    def refuse(self, path: Path, head: bytes) -> NotReadAlone | None:
        # a run's per_instance_stats.json (or run_spec.json) under another name: its model
        # and scenario are in the run folder's run_spec.json
        text = head.removeprefix(b"\xef\xbb\xbf").lstrip()[:4096]
        stats = text.startswith(b"[") and all(
            k in text for k in (b'"instance_id"', b'"stats"', b'"train_trial_index"')
        )
        spec = text.startswith(b"{") and b'"adapter_spec"' in text and b'"scenario_spec"' in text
        if not (stats or spec):
            return None
        what = PER_INSTANCE_STATS if stats else RUN_SPEC
        return NotReadAlone(
            f"this looks like a HELM {what} under another name: HELM's statistics are read "
            f"from a run folder, whose {RUN_SPEC} names the model and the scenario",
            location=Location(str(path)),
            hint=f"pass the run folder (benchmark_output/runs/<suite>/<run>) with its "
            f"{RUN_SPEC} and {PER_INSTANCE_STATS} under their own names",
        )

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        problems: list[Problem] = []
        runs = [_read_run_spec(folder) for folder in _run_folders(path, problems)]
        systems = _system_names(runs)
        runs = _separate_suites(runs, systems, problems)
        _check_unique_runs(runs, systems)
        schema = _Schema.read(runs, problems)
        columns: dict[str, list[Any]] = {
            k: []
            for k in (
                "system",
                "dataset",
                "metric",
                "item",
                "run",
                "score",
                "sub_split",
                SOURCE_FILE,
                SOURCE_LINE,
                *TEXT_ROLES,
            )
        }
        zero_counts: Counter[tuple[str, str, str, str]] = Counter()
        for run in runs:
            texts = {} if options.no_text else _scenario_texts(run)
            _read_per_instance_stats(
                run, systems[run.folder], columns, zero_counts, problems, texts
            )
        for column in ("sub_split", *TEXT_ROLES):
            if not any(v is not None for v in columns[column]):
                del columns[column]
        frame = pd.DataFrame(columns)
        reported = _reported_by_dataset(runs, schema)
        frame, descriptive = _split_descriptive(frame, schema, options.metric, problems, reported)
        frame = _main_metric_first(frame, runs, schema, problems)
        frame["score"] = frame["score"].astype(np.float64)
        frame["run"] = frame["run"].astype(np.int64)
        frame[SOURCE_LINE] = frame[SOURCE_LINE].astype(np.int64)
        # a bookkeeping stat without a value (training_co2_cost) excludes nothing compared
        exclusions = [
            Exclusion(_COUNT0_REASON, n, dataset=d, metric=m, system=s, source=f)
            for (d, m, s, f), n in zero_counts.items()
            if m.split("|", 1)[0] == options.metric
            or not _is_descriptive(m, schema, reported.get(d.split("|split=", 1)[0], frozenset()))
        ]
        frame, dropped, more = drop_nonfinite(
            frame,
            np.isinf(frame["score"].to_numpy(dtype=np.float64)),
            options,
            harness="HELM",
            field="stat {metric!r} (per_instance_stats.json)",
            hint="check the metric that produced it and run HELM again",
        )
        exclusions += dropped
        problems.extend(more)
        attributes = {systems[r.folder]: {"model_deployment": r.deployment} for r in runs}
        directions = {m: d for m, d in schema.directions.items() if m in set(frame["metric"])}
        return AdapterResult(
            frame,
            directions=directions,
            exclusions=exclusions,
            problems=problems,
            system_attributes=attributes,
            duplicate_hint=_DUPLICATE_HINT,
            descriptive=descriptive,
        )


# --------------------------------------------------------------------------- folders


def _walk(root: Path) -> Iterator[tuple[Path, int]]:
    """Folders under ``root`` (itself first), breadth first, at most :data:`MAX_DEPTH`
    levels down, not descending into run folders or hidden folders."""
    level = [root]
    for depth in range(MAX_DEPTH + 1):
        below: list[Path] = []
        for folder in level:
            yield folder, depth
            if depth == MAX_DEPTH or _is_run_folder(folder):
                continue
            below.extend(
                e.path
                for e in _files.entries(folder)
                if e.kind == "folder" and not e.name.startswith(".")
            )
        level = below


def _is_run_folder(folder: Path) -> bool:
    return _files.is_file(folder / PER_INSTANCE_STATS) or _files.is_file(folder / RUN_SPEC)


def _run_folders(path: Path, problems: list[Problem]) -> list[Path]:
    """The run folders to read for ``path``; runs without per-instance stats (failed or
    unfinished) are skipped with a warning."""
    if path.is_file():
        if path.name not in (PER_INSTANCE_STATS, RUN_SPEC):
            raise InputError(
                f"the HELM format reads run folders, {PER_INSTANCE_STATS} or {RUN_SPEC}, "
                f"not {path.name!r}",
                location=Location(str(path)),
                hint="pass the run folder (benchmark_output/runs/<suite>/<run>) or a suite "
                "folder instead",
            )
        if not (path.parent / PER_INSTANCE_STATS).is_file():
            raise InputError(
                f"{PER_INSTANCE_STATS} is missing next to {RUN_SPEC}",
                location=Location(str(path.parent / PER_INSTANCE_STATS)),
                hint="the run may have failed or not finished; HELM writes "
                f"{PER_INSTANCE_STATS} at the end of a run",
            )
        return [path.parent]
    found: list[Path] = []
    for folder, _depth in _walk(path):
        if (folder / PER_INSTANCE_STATS).is_file():
            found.append(folder)
        elif (folder / RUN_SPEC).is_file():
            problems.append(
                Problem(
                    "warning",
                    f"HELM run folder without {PER_INSTANCE_STATS} skipped (the run may have "
                    "failed or not finished)",
                    Location(str(folder)),
                )
            )
    if not found:
        raise InputError(
            f"no HELM run folder ({RUN_SPEC} + {PER_INSTANCE_STATS}) found here or up to "
            f"{MAX_DEPTH} levels below",
            location=Location(str(path)),
            hint="pass a run folder (benchmark_output/runs/<suite>/<run>), a suite folder "
            "or benchmark_output/; runs must have finished writing "
            f"{PER_INSTANCE_STATS}",
        )
    return found


# --------------------------------------------------------------------------- run_spec


def _read_run_spec(folder: Path) -> _Run:
    path = folder / RUN_SPEC
    if not path.is_file():
        raise InputError(
            f"{RUN_SPEC} is missing next to {PER_INSTANCE_STATS}",
            location=Location(str(path)),
            hint=f"copy the whole HELM run folder; {RUN_SPEC} names the model and the "
            "scenario of the run",
        )
    spec = read_json(path)
    if not isinstance(spec, dict):
        raise InputError(
            f"{RUN_SPEC} holds a JSON {_kind(spec)}, expected an object",
            location=Location(str(path), 1),
            hint="this is not a HELM run_spec.json; regenerate the run",
        )
    name = spec.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(
            f"{RUN_SPEC} has no run name (key 'name' = {name!r})",
            location=Location(str(path), None, "name"),
            hint="HELM writes the run name, e.g. 'mmlu:subject=anatomy,"
            "model=openai_gpt2'; regenerate the run or add it",
        )
    adapter_spec = spec.get("adapter_spec")
    if not isinstance(adapter_spec, dict):
        raise InputError(
            f"{RUN_SPEC} has no 'adapter_spec' object",
            location=Location(str(path), None, "adapter_spec"),
            hint="HELM writes adapter_spec with the model; regenerate the run",
        )
    model = _text_or_none(adapter_spec.get("model"))
    deployment = _text_or_none(adapter_spec.get("model_deployment"))
    if model is None and deployment is None:
        raise InputError(
            f"{RUN_SPEC} names no model (adapter_spec.model and "
            "adapter_spec.model_deployment are both missing or empty)",
            location=Location(str(path), None, "adapter_spec.model"),
            hint="add adapter_spec.model, the name of the evaluated model",
        )
    model_name = model or deployment or ""
    groups = spec.get("groups")
    groups = tuple(g for g in groups if isinstance(g, str)) if isinstance(groups, list) else ()
    return _Run(
        folder, name.strip(), model_name, deployment or model_name, _dataset_name(name), groups
    )


def _text_or_none(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _dataset_name(run_name: str) -> str:
    """The run name without its model arguments: ``"mmlu:subject=x,model=a_b"`` ->
    ``"mmlu:subject=x"``."""
    scenario, sep, args = run_name.strip().partition(":")
    if not sep:
        return scenario
    kept = [a for a in args.split(",") if a.partition("=")[0].strip() not in _MODEL_ARGS]
    return f"{scenario}:{','.join(kept)}" if kept else scenario


def _system_names(runs: list[_Run]) -> dict[Path, str]:
    """System name per run folder: the model, or ``model@deployment`` for a model read
    under several deployments."""
    deployments: dict[str, set[str]] = {}
    for run in runs:
        deployments.setdefault(run.model, set()).add(run.deployment)
    return {
        run.folder: (
            f"{run.model}@{run.deployment}" if len(deployments[run.model]) > 1 else run.model
        )
        for run in runs
    }


def _separate_suites(
    runs: list[_Run], systems: dict[Path, str], problems: list[Problem]
) -> list[_Run]:
    """Qualify a dataset with its suite where one system has it in several suites."""
    suites: dict[tuple[str, str], set[str]] = {}
    for run in runs:
        suites.setdefault((systems[run.folder], run.dataset), set()).add(run.folder.parent.name)
    clashing = {dataset for (_, dataset), names in suites.items() if len(names) > 1}
    if not clashing:
        return runs
    problems.extend(
        Problem(
            "info",
            f"HELM runs of dataset {dataset!r} come from several "
            "suites; each suite's runs are the dataset "
            f"'{dataset}|suite=<suite>'",
            dataset=dataset,
        )
        for dataset in sorted(clashing)
    )
    return [
        dataclasses.replace(run, dataset=f"{run.dataset}|suite={run.folder.parent.name}")
        if run.dataset in clashing
        else run
        for run in runs
    ]


def _check_unique_runs(runs: list[_Run], systems: dict[Path, str]) -> None:
    seen: dict[tuple[str, str], Path] = {}
    for run in runs:
        key = (systems[run.folder], run.dataset)
        if key in seen:
            raise InputError(
                f"two HELM runs of system {key[0]!r} on dataset {key[1]!r}: "
                f"{seen[key]} and {run.folder}",
                location=Location(str(run.folder / RUN_SPEC)),
                hint="the same run is in two suites (or was run twice); pass only the "
                "suite folder or run folders you want to compare",
            )
        seen[key] = run.folder


# --------------------------------------------------------------------------- per-instance stats


def _read_per_instance_stats(
    run: _Run,
    system: str,
    columns: dict[str, list[Any]],
    zero_counts: Counter[tuple[str, str, str, str]],
    problems: list[Problem],
    texts: dict[tuple[str, int], tuple[Any, ...]],
) -> None:
    path = run.folder / PER_INSTANCE_STATS
    file = str(path)
    n_records = 0
    for index, (line, record) in enumerate(_json_list(path), start=1):
        n_records += 1
        where = Location(file, line)
        if not isinstance(record, dict):
            raise InputError(
                f"entry {index} is a JSON {_kind(record)}, expected an object",
                location=where,
                hint="each entry holds instance_id, train_trial_index and stats",
            )
        item = _instance_id(record, index, where)
        trial = _train_trial(record, index, where)
        item = _item_key(item, record.get("perturbation"), index, where)
        text = (
            texts.get((item, trial), _NO_TEXT) if record.get("perturbation") is None else _NO_TEXT
        )
        stats = record.get("stats")
        if not isinstance(stats, list):
            raise InputError(
                f"entry {index} (instance {item!r}): 'stats' is {_kind(stats)}, expected a list",
                location=where,
                hint="each entry lists its stats under 'stats'",
            )
        for number, stat in enumerate(stats, start=1):
            metric, dataset, sub_split, score = _stat(stat, run.dataset, item, number, where)
            if score is None:
                zero_counts[(dataset, metric, system, file)] += 1
                continue
            columns["system"].append(system)
            columns["dataset"].append(dataset)
            columns["metric"].append(metric)
            columns["item"].append(item)
            columns["run"].append(trial)
            columns["score"].append(score)
            columns["sub_split"].append(sub_split)
            columns[SOURCE_FILE].append(file)
            columns[SOURCE_LINE].append(line)
            for role, value in zip(TEXT_ROLES, text, strict=True):
                columns[role].append(value)
    if n_records == 0:
        problems.append(
            Problem(
                "warning",
                f"{PER_INSTANCE_STATS} is an empty list: the run has no per-instance results",
                Location(file),
                run.dataset,
            )
        )


_NO_TEXT: tuple[Any, ...] = (None, None, None, None)


def _scenario_texts(run: _Run) -> dict[tuple[str, int], tuple[Any, ...]]:
    """The item text of a run from its ``scenario_state.json`` (when the run folder has
    one): per (instance id, train trial) of the unperturbed instances, the instance's
    input, the first completion, the correct references and, for a multiple-choice
    run, the choice the completion names (``output_mapping``)."""
    path = run.folder / SCENARIO_STATE
    if not path.is_file():
        return {}
    data = read_json(path)
    states = data.get("request_states") if isinstance(data, dict) else None
    out: dict[tuple[str, int], tuple[Any, ...]] = {}
    for state in states if isinstance(states, list) else ():
        if not isinstance(state, dict):
            continue
        instance = state.get("instance")
        if not isinstance(instance, dict) or instance.get("perturbation") is not None:
            continue
        key = (str(instance.get("id", "")).strip(), state.get("train_trial_index"))
        if not key[0] or not isinstance(key[1], int) or key in out:
            continue
        asked = instance.get("input")
        result = state.get("result")
        completions = result.get("completions") if isinstance(result, dict) else None
        first = completions[0] if isinstance(completions, list) and completions else None
        answer = first.get("text") if isinstance(first, dict) else None
        mapping = state.get("output_mapping")
        mapping = mapping if isinstance(mapping, dict) else {}
        letters = {str(v): str(k) for k, v in mapping.items()}
        correct = []
        for reference in instance.get("references") or ():
            if not isinstance(reference, dict) or "correct" not in (reference.get("tags") or ()):
                continue
            text = as_text((reference.get("output") or {}).get("text"))
            if text is not None:
                correct.append(f"{letters[text]}. {text}" if text in letters else text)
        answer = answer if isinstance(answer, str) else None
        chosen = None if answer is None else mapping.get(answer.strip())
        out[(key[0], key[1])] = (
            as_text(asked.get("text")) if isinstance(asked, dict) else None,
            answer,
            "\n".join(correct) or None,
            None if chosen is None or answer is None else f"{answer.strip()} = {as_text(chosen)}",
        )
    return out


def _instance_id(record: dict[str, Any], index: int, where: Location) -> str:
    value = record.get("instance_id")
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise InputError(
            f"entry {index} has no instance_id (found {excerpt(value)})",
            location=where,
            hint='each entry names its instance, e.g. "instance_id": "id12"',
        )
    return str(value).strip()


def _train_trial(record: dict[str, Any], index: int, where: Location) -> int:
    value = record.get("train_trial_index")
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not to_float(value).is_integer()
        or not 0 <= value < 2**63
    ):
        raise InputError(
            f"entry {index}: train_trial_index = {excerpt(value)} is not a "
            "non-negative whole number",
            location=where,
            hint="HELM numbers train trials 0, 1, ...; regenerate the run",
        )
    return int(value)


def _item_key(instance: str, perturbation: Any, index: int, where: Location) -> str:
    if perturbation is None:
        return instance
    if not isinstance(perturbation, dict):
        raise InputError(
            f"entry {index}: 'perturbation' is {_kind(perturbation)}, expected an object",
            location=where,
            hint="a perturbation is an object with at least a 'name'",
        )
    seed = perturbation.get("seed")
    return instance if seed is None else f"{instance}|seed={seed}"


def _stat(
    stat: Any, base_dataset: str, item: str, number: int, where: Location
) -> tuple[str, str, str | None, float | None]:
    """(metric, dataset, sub_split, score) of one stat; score None for count 0."""
    context = f"instance {item!r}, stat {number}"
    if not isinstance(stat, dict):
        raise InputError(
            f"{context} is {_kind(stat)}, expected an object",
            location=where,
            hint="each stat is an object with name, count, mean",
        )
    metric_name = stat.get("name")
    if not isinstance(metric_name, dict):
        metric_name = {"name": None, "given": metric_name}
    name = metric_name.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(
            f'{context} has no name (expected "name": {{"name": ...}}, found {stat.get("name")!r})',
            location=where,
            hint="each stat names its metric as name.name, e.g. "
            '"name": {"name": "exact_match", "split": "test"}',
        )
    name = name.strip()
    context = f"{context} ({name!r})"
    metric = name + _perturbation_qualifier(metric_name.get("perturbation"), context, where)
    split = metric_name.get("split")
    if split is not None and not isinstance(split, str):
        raise InputError(
            f"{context}: split = {split!r} is not text",
            location=where,
            hint="a split is a name such as 'test' or 'valid'",
        )
    dataset = (
        base_dataset if split in (None, "", _DEFAULT_SPLIT) else f"{base_dataset}|split={split}"
    )
    sub_split = metric_name.get("sub_split")
    sub_split = None if sub_split is None else str(sub_split)
    count = stat.get("count")
    if count is not None and (
        isinstance(count, bool)
        or not isinstance(count, (int, float))
        or not math.isfinite(to_float(count))
        or count < 0
    ):
        raise InputError(
            f"{context}: count = {count!r} is not a non-negative number",
            location=where,
            hint="count is how many values the stat holds",
        )
    if count == 0:
        return metric, dataset, sub_split, None
    mean = stat.get("mean")
    if mean is None:
        total = stat.get("sum")
        if count is None or total is None:
            raise InputError(
                f"{context} has no mean (and no sum and count to compute it)",
                location=where,
                hint="HELM writes mean for every stat with count > 0; regenerate the run",
            )
        if not _is_number(total):
            raise InputError(
                f"{context}: sum = {total!r} is not a number",
                location=where,
                hint="sum must be a number",
            )
        return metric, dataset, sub_split, to_float(total) / to_float(count)
    if not _is_number(mean):
        raise InputError(
            f"{context}: mean = {mean!r} is not a number",
            location=where,
            hint="the mean of a stat must be a JSON number; the file may have been edited by hand",
        )
    return metric, dataset, sub_split, to_float(mean)


def _perturbation_qualifier(perturbation: Any, context: str, where: Location) -> str:
    if perturbation is None:
        return ""
    if (
        not isinstance(perturbation, dict)
        or not isinstance(perturbation.get("name"), str)
        or not perturbation["name"].strip()
    ):
        raise InputError(
            f"{context}: the perturbation has no name (found {perturbation!r})",
            location=where,
            hint="a stat's name.perturbation is an object with a 'name'",
        )
    name: str = perturbation["name"]
    qualifier = f"|perturbation={name.strip()}"
    computed_on = perturbation.get("computed_on")
    if computed_on not in (None, _DEFAULT_COMPUTED_ON):
        qualifier += f"|computed_on={computed_on}"
    return qualifier


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return {
        dict: "object",
        list: "list",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


# --------------------------------------------------------------------------- schema.json


@dataclass(frozen=True)
class _Schema:
    """What a suite's ``schema.json`` says: metric directions, metrics without one, and
    the main metric of each run group."""

    directions: dict[str, Literal["higher", "lower"]]
    undirected: frozenset[str]
    main_metric: dict[str, str]
    #: Run group -> the metrics its metric groups report (HELM's leaderboard columns;
    #: empty when the schema lists no metric groups).
    reported: dict[str, frozenset[str]] = dataclasses.field(default_factory=dict)

    def reported_for(self, groups: tuple[str, ...]) -> frozenset[str]:
        """The metrics reported for a run of ``groups`` (empty: no metric groups)."""
        return frozenset().union(*(self.reported.get(g, frozenset()) for g in groups))

    @classmethod
    def read(cls, runs: list[_Run], problems: list[Problem]) -> _Schema:
        directions: dict[str, Literal["higher", "lower"]] = {}
        undirected: set[str] = set()
        main: dict[str, str] = {}
        reported: dict[str, set[str]] = {}
        run_groups = {g for run in runs for g in run.groups}
        for folder in sorted({run.folder.parent for run in runs}):
            path = folder / SCHEMA
            if not path.is_file():
                continue
            data = read_json(path)
            if not isinstance(data, dict):
                problems.append(
                    Problem(
                        "warning", f"{SCHEMA} is not a JSON object: not read", Location(str(path))
                    )
                )
                continue
            for metric in data.get("metrics") or ():
                if not isinstance(metric, dict) or not isinstance(metric.get("name"), str):
                    continue
                lower = metric.get("lower_is_better")
                if isinstance(lower, bool):
                    directions.setdefault(metric["name"], "lower" if lower else "higher")
                else:
                    undirected.add(metric["name"])
            for group in data.get("run_groups") or ():
                environment = group.get("environment") if isinstance(group, dict) else None
                if (
                    isinstance(environment, dict)
                    and isinstance(group.get("name"), str)
                    and isinstance(environment.get("main_name"), str)
                ):
                    main.setdefault(group["name"], environment["main_name"])
            for group, names in _reported_metrics(data, run_groups).items():
                reported.setdefault(group, set()).update(names)
        return cls(
            directions,
            frozenset(undirected - set(directions)),
            main,
            {g: frozenset(n) for g, n in reported.items()},
        )


#: HELM's metric groups that describe a run rather than score the model.
_BOOKKEEPING_GROUPS = ("efficiency", "general_information")


def _reported_metrics(schema: dict[str, Any], run_groups: set[str]) -> dict[str, set[str]]:
    """Run group -> the metric names of the metric groups it lists (``${main_name}``
    replaced by the group's main metric), except the bookkeeping groups (efficiency,
    general information), for the run groups in ``run_groups``."""
    groups = {
        g["name"]: g.get("metrics") or []
        for g in schema.get("metric_groups") or ()
        if isinstance(g, dict) and isinstance(g.get("name"), str)
    }
    out: dict[str, set[str]] = {}
    for run_group in schema.get("run_groups") or ():
        if not isinstance(run_group, dict) or run_group.get("name") not in run_groups:
            continue
        names = out.setdefault(str(run_group["name"]), set())
        environment = run_group.get("environment")
        main = environment.get("main_name") if isinstance(environment, dict) else None
        for group in run_group.get("metric_groups") or ():
            if not isinstance(group, str) or group.startswith(_BOOKKEEPING_GROUPS):
                continue
            for metric in groups.get(group, ()):
                name = metric.get("name") if isinstance(metric, dict) else None
                if name == "${main_name}":
                    name = main
                if isinstance(name, str) and "${" not in name:
                    names.add(name)
    return out


def _is_descriptive(metric: str, schema: _Schema, reported: frozenset[str] = frozenset()) -> bool:
    """Bookkeeping (even where schema.json gives it a direction, as it does for
    ``inference_runtime``), listed in schema.json without a direction, or, when the
    schema has metric groups for the run, not in ``reported`` (the metrics they
    report)."""
    base = metric.split("|", 1)[0]
    return (
        base in _BOOKKEEPING
        or base.startswith(_BOOKKEEPING_PREFIXES)
        or base in schema.undirected
        or bool(reported and base not in reported)
    )


def _reported_by_dataset(runs: list[_Run], schema: _Schema) -> dict[str, frozenset[str]]:
    """Dataset (without a ``|split=`` qualifier) -> the metrics its runs' groups report."""
    out: dict[str, frozenset[str]] = {}
    for run in runs:
        out[run.dataset] = out.get(run.dataset, frozenset()) | schema.reported_for(run.groups)
    return out


def _split_descriptive(
    frame: pd.DataFrame,
    schema: _Schema,
    named: str | None,
    problems: list[Problem],
    reported: dict[str, frozenset[str]],
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Move bookkeeping statistics out of the scores (module notes); ``named`` (the
    user's ``--metric``) stays a metric. ``reported``: dataset -> the metrics its metric
    groups report."""
    pairs = frame[["dataset", "metric"]].drop_duplicates() if len(frame) else frame
    described = [
        (d, m)
        for d, m in zip(pairs["dataset"], pairs["metric"], strict=True)
        if str(m).split("|", 1)[0] != named
        and _is_descriptive(
            str(m), schema, reported.get(str(d).split("|split=", 1)[0], frozenset())
        )
    ]
    if not described:
        return frame, []
    descriptive = list(dict.fromkeys(m for _, m in described))
    mask = pd.MultiIndex.from_frame(frame[["dataset", "metric"]]).isin(described)
    means = (
        frame[mask]
        .groupby(["system", "dataset", "metric"], sort=False)["score"]
        .agg(["mean", "count"])
    )
    rows = [
        {
            "system": str(system),
            "dataset": str(dataset),
            "statistic": str(metric),
            "mean": float(row["mean"]),
            "n": int(row["count"]),
        }
        for (system, dataset, metric), row in means.iterrows()
    ]
    names = sorted({str(m).split("|", 1)[0] for m in descriptive})
    problems.append(
        Problem(
            "info",
            f"{count(len(names), 'HELM bookkeeping statistic')} "
            f"{verb(len(names), 'are', 'is')} shown "
            "as descriptive data, not compared: "
            + ", ".join(names[:12])
            + (", ..." if len(names) > 12 else "")
            + "; name one with --metric to compare it",
        )
    )
    return frame[~mask].reset_index(drop=True), rows


def _main_metric_first(
    frame: pd.DataFrame, runs: list[_Run], schema: _Schema, problems: list[Problem]
) -> pd.DataFrame:
    """Put each dataset's main metric (schema.json) first, and name it."""
    main: dict[str, str] = {}
    for run in runs:
        name = next((schema.main_metric[g] for g in run.groups if g in schema.main_metric), None)
        if name is not None:
            main.setdefault(run.dataset, name)
    if not main or frame.empty:
        return frame
    for dataset, metric in main.items():
        problems.append(
            Problem(
                "info",
                f"HELM's main metric of this run is {metric!r} (schema.json)",
                dataset=dataset,
            )
        )
    is_main = [main.get(d) == m for d, m in zip(frame["dataset"], frame["metric"], strict=True)]
    order = np.argsort(~np.asarray(is_main, dtype=bool), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


# --------------------------------------------------------------------------- JSON with lines


def _json_list(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, element)`` for each element of the JSON list in ``path``, where
    ``line`` is the 1-based line on which the element starts.

    Elements are decoded one at a time so their lines are known; any syntax error is
    reported by :func:`read_json`, which names the line and column.
    """
    text = read_text(path)
    decoder = json.JSONDecoder(parse_constant=_json_constant, parse_int=parse_json_int)
    pos = _skip(text, 0)
    if pos == len(text) or text[pos] != "[":
        value = read_json(path)  # raises for an empty or invalid file
        raise InputError(
            f"{PER_INSTANCE_STATS} holds a JSON {_kind(value)}, expected a list",
            location=Location(str(path), text.count("\n", 0, pos) + 1),
            hint="HELM writes a list with one entry per instance and train "
            "trial; this file is not one",
        )
    line, counted = 1, 0
    pos = _skip(text, pos + 1)
    if pos < len(text) and text[pos] == "]":
        _check_trailing(text, pos + 1, path)
        return
    while True:
        try:
            value, end = decoder.raw_decode(text, pos)
        except (json.JSONDecodeError, RecursionError):  # read_json names the fault
            _raise_syntax_error(path)
        line += text.count("\n", counted, pos)
        counted = pos
        yield line, value
        pos = _skip(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip(text, pos + 1)
        elif pos < len(text) and text[pos] == "]":
            _check_trailing(text, pos + 1, path)
            return
        else:
            _raise_syntax_error(path)


def _skip(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    return match.end() if match else pos


def _check_trailing(text: str, pos: int, path: Path) -> None:
    if _skip(text, pos) != len(text):
        _raise_syntax_error(path)


def _raise_syntax_error(path: Path) -> NoReturn:
    read_json(path)  # names the line and column of the error
    raise InputError(
        "invalid JSON",
        location=Location(str(path)),  # pragma: no cover
        hint="the file may be truncated or hand-edited; regenerate it",
    )


def _json_constant(name: str) -> float:
    # JSON has no NaN/Infinity but Python's json writes them; the score table decides.
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


register_adapter(HelmAdapter())

"""EvalPlus results: ``<samples>_eval_results.json`` (HumanEval+, MBPP+).

``evalplus.evaluate --dataset humaneval --samples S.jsonl`` writes ``S_eval_results.json``
beside the samples (``eval_results.json`` inside a samples folder): ``{"date", "hash",
"eval": {task_id: [one result per sample: "task_id", "solution", "base_status",
"plus_status", "base_fail_tests", "plus_fail_tests"]}}``. A status is ``"pass"``,
``"fail"`` or ``"timeout"``; ``plus_status`` is ``null`` when only the base tests ran
(``--base-only``). The pass@k numbers are printed, not stored.

========= ===========================================================================
column    taken from
========= ===========================================================================
system    :attr:`LoadOptions.system`, else the file's name without
          ``_eval_results.json`` (the samples file's name, which EvalPlus's codegen
          makes from the model: ``<model>_<backend>_temp_<t>``); for
          ``eval_results.json``, its folder's name
dataset   :attr:`LoadOptions.dataset`, else the task ids' prefix (``HumanEval``,
          ``Mbpp``)
metric    ``base`` (the original tests pass) and, unless only the base tests ran,
          ``plus`` (the base *and* the EvalPlus tests pass, as EvalPlus counts it)
item      the ``task_id``
score     the share of the task's samples that pass: 0/1 for one (greedy) sample; with
          n samples per task, c/n, whose mean over tasks is EvalPlus's pass@1
========= ===========================================================================
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from reportgen.data.adapters import register_adapter
from reportgen.data.adapters._base import (
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    LoadOptions,
    Problem,
    excerpt,
    file_column,
    given_system,
    head_text,
    read_json,
)
from reportgen.errors import InputError, Location

__all__ = ["EvalPlusAdapter"]

_SUFFIX = "eval_results.json"
_PASS = "pass"
_STATUSES = ("pass", "fail", "timeout")
_HINT = (
    "EvalPlus writes <samples>_eval_results.json with `evalplus.evaluate --dataset "
    "humaneval|mbpp --samples <samples>.jsonl`; regenerate it"
)


class EvalPlusAdapter(Adapter):
    name = "evalplus"
    description = "EvalPlus <samples>_eval_results.json (eval[task_id][].base_status, plus_status)"
    priority = 16

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is None:
            return False
        text = head_text(head)  # any name: users rename what EvalPlus wrote
        return text.lstrip("\ufeff \t\r\n").startswith("{") and (
            '"eval"' in text and '"base_status"' in text
        )

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        data = read_json(path)
        tasks = data.get("eval") if isinstance(data, dict) else None
        if not isinstance(tasks, dict) or not tasks:
            raise InputError(
                'no "eval" object of task results: not an EvalPlus results file',
                location=Location(str(path)),
                hint=_HINT,
            )
        given = given_system(options, path)
        system = given or _system(path)
        dataset = options.dataset or _dataset(tasks)
        rows: list[tuple[Any, ...]] = []
        sizes: set[int] = set()
        base_only = None
        for task_id, results in tasks.items():
            where = Location(str(path), None, f"eval[{task_id!r}]")
            if not isinstance(results, list) or not results:
                raise InputError(
                    f"task {excerpt(task_id)} has no list of sample results",
                    location=where,
                    hint=_HINT + " (EvalPlus 0.3 or later: older files keep "
                    '"base"/"plus" lists; evaluate them again with a current EvalPlus)',
                )
            base = plus = 0
            for result in results:
                if not isinstance(result, dict):
                    raise InputError("a sample result is not an object", location=where, hint=_HINT)
                base_status = _status(result.get("base_status"), "base_status", where)
                plus_status = result.get("plus_status")
                this_base_only = plus_status is None
                if base_only is None:
                    base_only = this_base_only
                elif base_only != this_base_only:
                    raise InputError(
                        "some samples have a plus_status and some do not",
                        location=where,
                        hint="evaluate all samples alike (with or without --base-only)",
                    )
                base += base_status == _PASS
                if not this_base_only:
                    plus += base_status == _PASS and (
                        _status(plus_status, "plus_status", where) == _PASS
                    )
            n = len(results)
            sizes.add(n)
            rows.append((system, dataset, "base", str(task_id), base / n))
            if not base_only:
                rows.append((system, dataset, "plus", str(task_id), plus / n))
        frame = pd.DataFrame(rows, columns=["system", "dataset", "metric", "item", "score"])
        frame[SOURCE_FILE] = file_column(path, len(frame))
        frame[SOURCE_LINE] = -1
        problems = []
        if max(sizes) > 1:
            many = f"{min(sizes)} to {max(sizes)}" if len(sizes) > 1 else f"{max(sizes)}"
            problems.append(
                Problem(
                    "info",
                    f"{many} samples per task for {excerpt(system)}: each task's score "
                    "is the share of its samples that pass, whose mean is EvalPlus's pass@1",
                    location=Location(str(path)),
                    dataset=dataset,
                )
            )
        return AdapterResult(
            frame,
            directions={"base": "higher", "plus": "higher"},
            problems=problems,
            duplicate_hint="EvalPlus lists each task once per results file; give each "
            "file once and name the systems apart (their file names or --system)",
            named_by_path={} if given else {system: str(path)},
        )


def _system(path: Path) -> str:
    if path.name == _SUFFIX:
        return path.resolve().parent.name
    return path.name[: -len(_SUFFIX)].rstrip("_") or path.resolve().parent.name


def _dataset(tasks: dict[str, Any]) -> str:
    prefixes = {str(t).split("/", 1)[0] for t in tasks}
    return (
        prefixes.pop() if len(prefixes) == 1 and all("/" in str(t) for t in tasks) else "evalplus"
    )


def _status(value: Any, field: str, where: Location) -> str:
    if value not in _STATUSES:
        raise InputError(
            f"{field} = {excerpt(value)} is not one of {', '.join(_STATUSES)}",
            location=where,
            hint=_HINT,
        )
    return str(value)


register_adapter(EvalPlusAdapter())

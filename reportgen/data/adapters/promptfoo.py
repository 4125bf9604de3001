"""promptfoo evaluation output: ``promptfoo eval -o results.json`` (results version 3).

`promptfoo <https://www.promptfoo.dev>`_ writes ``{"evalId": ..., "results": {"version": 3,
"prompts": [...], "results": [...], "stats": {...}}, "config": {...}}``. Each entry of
``results.results`` is one test run against one prompt of one provider: ``promptIdx``
(an index into ``results.prompts``, one entry per prompt × provider), ``testIdx``,
``provider`` (``id``, ``label``), ``prompt`` (``label``), ``vars``, ``success``,
``score``, ``namedScores`` (the assertions' ``metric`` names), ``gradingResult`` (with
``componentResults``), ``error`` and ``failureReason`` (0 none, 1 an assertion failed,
2 the provider or an assertion raised an error).

========= ===========================================================================
column    taken from
========= ===========================================================================
system    the provider's ``label``, else its ``id``; when the evaluation has several
          prompts, ``"<provider> × <prompt label>"``
dataset   :attr:`LoadOptions.dataset`, else the config's ``description``, else
          ``promptfoo``
metric    ``pass`` (``success`` as 1/0), ``score``, and each ``namedScores`` key
item      the test: ``testIdx`` (with its ``description`` as item metadata)
score     as above
========= ===========================================================================

Item text (unless ``--no-text``): ``input`` is the prompt as sent (``prompt.raw``),
``output`` the provider's ``response.output``, ``target`` the test's variable
``expected``, ``answer`` or ``reference`` when it has one, ``explanation`` the grading
``reason`` (for ``pass`` and ``score``) or the reasons of a named metric's assertions.

A test run that errored (``failureReason`` 2; in files without it, an ``error`` and no
``gradingResult``) has no result: it is left out and counted per system, with a warning
(an error is not a failed test). With :attr:`LoadOptions.errors_as_failures`
(``--errors-as-failures``) it scores 0 for ``pass`` and ``score`` instead, as promptfoo's
own pass rate counts it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.data._texts import TEXT_ROLES, as_text
from reportgen.data.adapters import register_adapter
from reportgen.data.adapters._base import (
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    Exclusion,
    LoadOptions,
    Problem,
    drop_nonfinite,
    excerpt,
    file_column,
    head_text,
    read_json,
    to_float,
)
from reportgen.errors import InputError, Location

__all__ = ["PromptfooAdapter"]

_ERROR = 2  # promptfoo's ResultFailureReason.ERROR
_HINT = (
    "promptfoo writes this file with `promptfoo eval -o results.json` (or `promptfoo "
    "export`); regenerate it"
)
_NAME_LIMIT = 60


class PromptfooAdapter(Adapter):
    name = "promptfoo"
    description = "promptfoo eval output JSON (results.version 3: results.results[])"
    priority = 15

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is None or not path.name.lower().endswith(".json"):
            return False
        text = head_text(head)
        if not text.lstrip().startswith("{"):
            return False
        start = text[:2000]
        return '"version": 3' in start.replace('"version":3', '"version": 3') and (
            '"promptIdx"' in text or '"evalId"' in start or '"prompts"' in start
        )

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        data = read_json(path)
        body = _body(data, path)
        prompts = body.get("prompts") or []
        entries = body["results"]
        dataset = options.dataset or _dataset(data)
        names = _system_names(entries, prompts)
        rows: list[tuple[Any, ...]] = []
        flags: list[bool] = []  # a value written as NaN or infinite (not null)
        texts: list[tuple[Any, ...]] = []  # per row: input, output, target, explanation
        entry_text: tuple[Any, ...] = _NO_TEXT
        reasons: dict[str, str] = {}

        def add(system: str, metric: str, item: str, value: Any, where: Location) -> None:
            score = _number(value, metric, where)
            rows.append((system, dataset, metric, item, score))
            flags.append(value is not None and not math.isfinite(score))
            texts.append((*entry_text, reasons.get(metric)))

        errored: dict[str, int] = {}
        described: dict[str, str] = {}
        for position, entry in enumerate(entries):
            where = Location(str(path), None, f"results.results[{position}]")
            item = _test_number(entry, where)
            system = names[_key(entry)]
            case = entry.get("testCase")
            description = case.get("description") if isinstance(case, dict) else None
            if isinstance(description, str):
                described.setdefault(item, description)
            if not options.no_text:
                entry_text, reasons = _texts(entry)
            if _errored(entry):
                if not options.errors_as_failures:
                    errored[system] = errored.get(system, 0) + 1
                    continue
                add(system, "pass", item, 0, where)
                add(system, "score", item, 0, where)
                continue
            success = entry.get("success")
            if not isinstance(success, bool):
                raise InputError(
                    f"success = {excerpt(success)} is not true or false",
                    location=where,
                    hint=_HINT,
                )
            add(system, "pass", item, success, where)
            add(system, "score", item, entry.get("score"), where)
            named = entry.get("namedScores") or {}
            if not isinstance(named, dict):
                raise InputError("namedScores is not an object", location=where, hint=_HINT)
            for metric, value in named.items():
                name = f"{metric} (named)" if metric in ("pass", "score") else str(metric)
                add(system, name, item, value, where)
        frame = pd.DataFrame(rows, columns=["system", "dataset", "metric", "item", "score"])
        if frame.empty:
            raise InputError(
                "the promptfoo output holds no test result that ran",
                location=Location(str(path)),
                hint="every test errored; check the providers' errors in promptfoo's view",
            )
        frame["score"] = frame["score"].astype(np.float64)
        for role, column in zip(TEXT_ROLES, zip(*texts, strict=True), strict=True):
            if any(v is not None for v in column):
                frame[role] = pd.Series(column, dtype=object)
        frame[SOURCE_LINE] = -1
        frame[SOURCE_FILE] = str(path)
        frame, dropped, problems = drop_nonfinite(
            frame,
            np.asarray(flags, dtype=bool),
            options,
            harness="promptfoo",
            field="{metric!r}",
            hint="check the assertion that produced it",
        )
        if described:
            frame["description"] = frame["item"].map(described)
        frame[SOURCE_FILE] = file_column(path, len(frame))
        excluded, warned = _errored_runs(errored, dataset, path)
        exclusions = excluded + dropped
        problems.extend(warned)
        directions = {"pass": "higher", "score": "higher"}
        return AdapterResult(
            frame,
            directions=directions,  # type: ignore[arg-type]
            exclusions=exclusions,
            problems=problems,
            duplicate_hint="promptfoo lists each test once per prompt and provider; give "
            "each output file once",
        )


_NO_TEXT: tuple[Any, ...] = (None, None, None)


def _texts(entry: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, str]]:
    """A result's input (the prompt as sent, ``prompt.raw``), output
    (``response.output``; the error of an errored run) and target (the test's
    ``vars`` ``expected``, ``answer`` or ``reference``, when it has one), and the
    explanation of each metric: ``gradingResult.reason`` for ``pass`` and ``score``,
    each named metric's assertions' ``reason``."""
    prompt = entry.get("prompt")
    response = entry.get("response")
    output = response.get("output") if isinstance(response, dict) else None
    if output is None and isinstance(entry.get("error"), str) and _errored(entry):
        output = entry["error"]
    variables = entry.get("vars")
    variables = variables if isinstance(variables, dict) else {}
    target = next(
        (variables[k] for k in ("expected", "answer", "reference") if k in variables), None
    )
    reasons: dict[str, str] = {}
    grading = entry.get("gradingResult")
    if isinstance(grading, dict):
        if isinstance(grading.get("reason"), str):
            reasons["pass"] = reasons["score"] = grading["reason"]
        named: dict[str, list[str]] = {}
        for part in grading.get("componentResults") or ():
            assertion = part.get("assertion") if isinstance(part, dict) else None
            metric = assertion.get("metric") if isinstance(assertion, dict) else None
            if isinstance(metric, str) and isinstance(part.get("reason"), str):
                named.setdefault(metric, []).append(part["reason"])
        for metric, texts in named.items():
            name = f"{metric} (named)" if metric in ("pass", "score") else metric
            reasons[name] = "\n".join(texts)
    return (
        as_text(prompt.get("raw")) if isinstance(prompt, dict) else as_text(prompt),
        as_text(output),
        as_text(target),
    ), reasons


def _test_number(entry: Any, where: Location) -> str:
    """The item of a result: its test number (``testIdx``), as text."""
    if not isinstance(entry, dict):
        raise InputError(
            f"a result is {type(entry).__name__}, not an object", location=where, hint=_HINT
        )
    test = entry.get("testIdx")
    if isinstance(test, bool) or not isinstance(test, int):
        raise InputError(
            f"testIdx = {excerpt(test)} is not a test number", location=where, hint=_HINT
        )
    return str(test)


def _errored_runs(
    errored: dict[str, int], dataset: str, path: Path
) -> tuple[list[Exclusion], list[Problem]]:
    """The exclusion and the warning of each system's errored test runs."""
    exclusions = [
        Exclusion(
            "promptfoo test errored (failureReason 2): no result",
            count,
            dataset=dataset,
            system=system,
            source=str(path),
        )
        for system, count in errored.items()
    ]
    problems = [
        Problem(
            "warning",
            f"{count} test run{'s' if count != 1 else ''} of {excerpt(system)} "
            "errored (the provider or an assertion raised an error): left out, "
            "not scored as failures (--errors-as-failures scores them 0)",
            location=Location(str(path)),
            dataset=dataset,
        )
        for system, count in errored.items()
    ]
    return exclusions, problems


def _body(data: Any, path: Path) -> dict[str, Any]:
    """The object holding ``version``, ``prompts`` and ``results``: the file's ``results``
    (what ``promptfoo eval -o`` writes), or the file itself."""
    if isinstance(data, dict) and isinstance(data.get("results"), dict):
        body = data["results"]
    elif isinstance(data, dict):
        body = data
    else:
        raise InputError(
            f"expected a JSON object, found {type(data).__name__}",
            location=Location(str(path)),
            hint=_HINT,
        )
    version = body.get("version")
    if version != 3:
        raise InputError(
            f"promptfoo results version {excerpt(version)}: reportgen reads version 3",
            location=Location(str(path), None, "results.version"),
            hint="export the evaluation again with a promptfoo release of 2024 or later "
            "(`promptfoo export EVAL_ID -o results.json`)",
        )
    if not isinstance(body.get("results"), list):
        raise InputError(
            "results.results is not a list of test results",
            location=Location(str(path), None, "results.results"),
            hint=_HINT,
        )
    return body


def _dataset(data: Any) -> str:
    config = data.get("config") if isinstance(data, dict) else None
    description = config.get("description") if isinstance(config, dict) else None
    if isinstance(description, str) and 0 < len(description.strip()) <= 80:
        return description.strip()
    return "promptfoo"


def _key(entry: dict[str, Any]) -> tuple[str, str]:
    provider = entry.get("provider")
    if isinstance(provider, dict):
        name = provider.get("label") or provider.get("id") or ""
    else:
        name = provider if isinstance(provider, str) else ""
    prompt = entry.get("prompt")
    label = prompt.get("label") or prompt.get("raw") if isinstance(prompt, dict) else None
    return str(name or "provider"), str(label or entry.get("promptIdx", ""))


def _system_names(entries: list[Any], prompts: list[Any]) -> dict[tuple[str, str], str]:
    """System names: the provider, joined with the prompt's label where the evaluation
    has several prompts; long labels are shortened, kept apart by a number."""
    keys = list(dict.fromkeys(_key(e) for e in entries if isinstance(e, dict)))
    several = len({label for _, label in keys}) > 1
    names: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for provider, label in keys:
        name = provider
        if several:
            short = label if len(label) <= _NAME_LIMIT else label[: _NAME_LIMIT - 3] + "..."
            name = f"{provider} × {short}"
        base, k = name, 2
        while name in taken:
            name, k = f"{base} #{k}", k + 1
        taken.add(name)
        names[(provider, label)] = name
    return names


def _errored(entry: dict[str, Any]) -> bool:
    reason = entry.get("failureReason")
    if reason is not None:
        return reason == _ERROR
    return entry.get("error") is not None and entry.get("gradingResult") is None


def _number(value: Any, field: str, where: Location) -> float:
    if value is None:
        return math.nan
    if isinstance(value, bool):
        return float(value)
    if not isinstance(value, (int, float)):
        raise InputError(f"{field} = {excerpt(value)} is not a number", location=where, hint=_HINT)
    return to_float(value)  # an integer of 400 digits: infinite, then left out or an error


register_adapter(PromptfooAdapter())

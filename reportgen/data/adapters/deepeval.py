"""DeepEval test runs: ``.deepeval/.latest_test_run.json``.

`DeepEval <https://github.com/confident-ai/deepeval>`_ (``deepeval test run``, or
``evaluate()`` in a script) writes the last test run into the hidden folder ``.deepeval``
of the folder it ran in: ``{"testRunData": {"testCases": [...], "metricsScores": [...],
...}}``. Each test case has a ``name`` (``test_case_0``, ..., or the pytest test's name)
and ``metricsData``: one entry per metric with ``name``, ``score``, ``threshold``,
``success`` and, when the metric failed to run, ``error`` (releases before August 2024
call the list ``metricsMetadata`` and the name ``metric``; both are read).
``metricsScores`` lists each metric's scores again, with its pass, fail and error
counts. The same run without the ``testRunData`` wrapper
(``.deepeval/.latest_run_full.json``, or ``test_run_<time>.json`` in
``DEEPEVAL_RESULTS_FOLDER``) is read too; given a ``.deepeval`` folder, the adapter reads
its ``.latest_test_run.json`` only.

========= ===========================================================================
column    taken from
========= ===========================================================================
system    :attr:`LoadOptions.system` (``--system``), else the ``model`` of the run's
          ``hyperparameters`` (``evaluate(hyperparameters={"model": ...})``), else the
          name of the run's folder (the folder holding ``.deepeval``), with a note: the
          file records no model otherwise
dataset   :attr:`LoadOptions.dataset`, else the pytest file's name (``testFile``)
          without its suffix, else ``deepeval``
metric    each ``metricsData[].name`` (``Answer Relevancy``, ``Correctness [GEval]``,
          ...), and ``passed``: 1 when the test case passed (all its metrics did)
item      the test case's ``name`` (conversational test cases too)
score     ``metricsData[].score``; a metric entry with an ``error`` has no score: it
          is left out and counted (DeepEval counts it under ``errors``)
========= ===========================================================================

Item text (unless ``--no-text``): the test case's ``input``, ``actualOutput`` (output)
and ``expectedOutput`` (target), and each metric's ``reason`` as its explanation.

Directions: a metric's direction is read from its results when they settle it (DeepEval
passes a higher-is-better metric when ``score >= threshold``, a lower-is-better one, such
as Bias, Toxicity or Hallucination, when ``score <= threshold``); otherwise the name
decides for those DeepEval defines as lower-is-better.

A ``.latest_test_run.json`` that holds only ``testRunLink`` (the run was sent to
Confident AI, which keeps the results) is skipped with a warning. The hidden folder is
searched when a folder above it is given.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

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
    Problem,
    drop_nonfinite,
    excerpt,
    file_column,
    given_system,
    head_text,
    read_json,
    skip_input,
    to_float,
)
from reportgen.errors import InputError, Location

__all__ = ["DeepEvalAdapter", "LATEST_RUN", "HIDDEN_FOLDER"]

#: The folder DeepEval keeps its state in, and the file of the last test run.
HIDDEN_FOLDER = ".deepeval"
LATEST_RUN = ".latest_test_run.json"
#: DeepEval's metrics that pass when the score is at most the threshold.
_LOWER_IS_BETTER = ("bias", "toxicity", "hallucination", "pii leakage", "non-advice", "misuse")
_PASSED = "passed"
_HINT = (
    "DeepEval writes .deepeval/.latest_test_run.json with a testRunData object; "
    "regenerate it with `deepeval test run` or evaluate()"
)


class DeepEvalAdapter(Adapter):
    name = "deepeval"
    description = "DeepEval test runs (.deepeval/.latest_test_run.json: testRunData.testCases)"
    priority = 14

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is None:
            return _files.is_file(path / LATEST_RUN)
        if not path.name.endswith(".json"):
            return False
        text = head_text(head).lstrip()
        if not text.startswith("{"):
            return False
        start = text[:400]
        return (
            '"testRunData"' in start
            or start.startswith('{"testCases":')  # .latest_run_full.json, a results folder
            or (path.name == LATEST_RUN and '"testRunLink"' in start)
        )

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        file = path / LATEST_RUN if path.is_dir() else path
        data = read_json(file)
        if not isinstance(data, dict):
            raise InputError(
                f"expected a JSON object, found {type(data).__name__}",
                location=Location(str(file)),
                hint=_HINT,
            )
        run = data.get("testRunData", data if "testCases" in data else None)
        if run is None and "testRunLink" in data:
            skipped = skip_input(
                options,
                file,
                "the DeepEval run was sent to Confident AI: this file holds only its link "
                "(testRunLink), not the test cases",
                hint="run `deepeval logout` (or set DEEPEVAL_RESULTS_FOLDER) and run the "
                "evaluation again to keep the results locally",
                format=self.name,
            )
            return AdapterResult(_empty_frame(), skipped=[skipped])
        if not isinstance(run, dict) or not isinstance(run.get("testCases"), list):
            raise InputError(
                "no testRunData.testCases list: not a DeepEval test run",
                location=Location(str(file)),
                hint=_HINT,
            )
        system, note = _system(file, run, options)
        dataset = options.dataset or _dataset(run)
        rows, exclusions = _rows(run, file, system, dataset, text=not options.no_text)
        frame = pd.DataFrame(rows, columns=list(_COLUMNS))
        empty = [r for r in TEXT_ROLES if frame[r].isna().all()]
        frame = frame.drop(columns=empty)
        nonfinite = np.asarray(
            [isinstance(v, float) and not math.isfinite(v) for v in frame["score"]], dtype=bool
        )
        frame["score"] = frame["score"].astype(np.float64)
        frame[SOURCE_FILE] = str(file)
        frame, dropped, problems = drop_nonfinite(
            frame,
            nonfinite,
            options,
            harness="DeepEval",
            field="metricsData[{metric!r}].score",
            hint="check the metric that produced it and run the evaluation again",
        )
        frame[SOURCE_FILE] = file_column(file, len(frame))
        if note:
            problems.insert(0, Problem("info", note, location=Location(str(file))))
        if frame.empty:
            raise InputError(
                "the DeepEval test run holds no scored test case",
                location=Location(str(file)),
                hint="check that the evaluation ran its metrics (testRunData.testCases"
                "[].metricsData)",
            )
        attributes: dict[str, Any] = {}
        hyper = run.get("hyperparameters")
        if isinstance(hyper, dict):
            attributes = {str(k): v for k, v in hyper.items() if isinstance(v, (str, int, float))}
        return AdapterResult(
            frame,
            directions=_directions(run),
            exclusions=exclusions + dropped,
            problems=problems,
            system_attributes={system: attributes} if attributes else {},
            duplicate_hint="DeepEval names each test case once per run; give each run's "
            "file once, and name runs of different systems apart (their folders or "
            "--system)",
            named_by_path={system: str(file)} if note else {},
        )


_COLUMNS = ("system", "dataset", "metric", "item", "score", SOURCE_LINE, *TEXT_ROLES)


def _empty_frame() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in _COLUMNS})


def _system(file: Path, run: dict[str, Any], options: LoadOptions) -> tuple[str, str | None]:
    given = given_system(options, file)
    if given:
        return given, None
    hyper = run.get("hyperparameters")
    model = hyper.get("model") if isinstance(hyper, dict) else None
    if isinstance(model, str) and model.strip():
        return model.strip(), None
    folder = file.resolve().parent
    if folder.name == HIDDEN_FOLDER:
        folder = folder.parent
    return folder.name, (
        f"DeepEval records no model: the system is named {folder.name!r} after the "
        "run's folder; pass --system NAME to name it"
    )


def _dataset(run: dict[str, Any]) -> str:
    test_file = run.get("testFile")
    if isinstance(test_file, str) and test_file.strip():
        return Path(test_file).stem
    return "deepeval"


def _rows(
    run: dict[str, Any], file: Path, system: str, dataset: str, *, text: bool = True
) -> tuple[list[tuple[Any, ...]], list[Exclusion]]:
    rows: list[tuple[Any, ...]] = []
    errors: dict[str, int] = {}
    seen: set[str] = set()
    cases = [c for key in ("testCases", "conversationalTestCases") for c in _cases(run, key, file)]
    for position, case in enumerate(cases):
        where = Location(str(file), None, f"testCases[{position}]")
        if not isinstance(case, dict):
            raise InputError(
                f"a test case is {type(case).__name__}, not an object", location=where, hint=_HINT
            )
        name = case.get("name")
        if not isinstance(name, str) or not name:
            name = f"test_case_{case.get('order', position)}"
        if name in seen:
            raise InputError(
                f"two test cases are named {excerpt(name)}",
                location=where,
                hint="DeepEval names each test case of a run once; the file may have been "
                "edited or merged",
            )
        seen.add(name)
        texts = _case_texts(case) if text else (None, None, None)
        metrics = _metric_entries(case)
        for entry in metrics:
            metric = _metric_name(entry)
            if metric is None:
                raise InputError(
                    "a metricsData entry has no name",
                    location=where,
                    hint=_HINT,
                )
            score = entry.get("score")
            if entry.get("error") is not None and score is None:
                errors[metric] = errors.get(metric, 0) + 1
                continue
            reason = entry.get("reason") if text else None
            rows.append(
                (system, dataset, metric, name, _score(score, metric, where), -1, *texts, reason)
            )
        success = case.get("success")
        if isinstance(success, bool) and metrics:
            rows.append((system, dataset, _PASSED, name, float(success), -1, *texts, None))
    exclusions = [
        Exclusion(
            f"DeepEval metric {metric!r} raised an error (metricsData[].error)",
            count,
            dataset=dataset,
            metric=metric,
            system=system,
            source=str(file),
        )
        for metric, count in errors.items()
    ]
    return rows, exclusions


def _case_texts(case: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """A test case's ``input``, ``actualOutput`` and ``expectedOutput`` (a
    conversational case's ``turns`` as its input)."""
    asked = case.get("input", case.get("turns"))
    return as_text(asked), as_text(case.get("actualOutput")), as_text(case.get("expectedOutput"))


def _metric_entries(case: dict[str, Any]) -> list[Any]:
    """A test case's metric results: ``metricsData`` (DeepEval from August 2024), or
    ``metricsMetadata`` (earlier releases, each entry naming its ``metric``)."""
    entries = case.get("metricsData")
    if entries is None:
        entries = case.get("metricsMetadata")
    return entries if isinstance(entries, list) else []


def _metric_name(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    name = entry.get("name", entry.get("metric"))
    return name if isinstance(name, str) and name else None


def _score(value: Any, metric: str, where: Location) -> float:
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(
            f"metricsData[{metric!r}].score = {excerpt(value)} is not a number",
            location=where,
            hint=_HINT,
        )
    return to_float(value)  # an integer of 400 digits: infinite, then left out or an error


def _cases(run: dict[str, Any], key: str, file: Path) -> list[Any]:
    """The run's ``testCases`` or ``conversationalTestCases`` list (none when absent)."""
    cases = run.get(key)
    if cases is None:
        return []
    if not isinstance(cases, list):
        raise InputError(
            f"{key} is {excerpt(cases)}, not a list of test cases",
            location=Location(str(file), None, key),
            hint=_HINT,
        )
    return cases


def _directions(run: dict[str, Any]) -> dict[str, Literal["higher", "lower"]]:
    """Each metric's direction, from how DeepEval judged its scores against the threshold
    where that settles it, else from DeepEval's lower-is-better metrics."""
    votes: dict[str, set[str]] = {}
    for key in ("testCases", "conversationalTestCases"):
        cases = run.get(key)
        for case in cases if isinstance(cases, list) else ():
            for entry in _metric_entries(case if isinstance(case, dict) else {}):
                name = _metric_name(entry)
                if name is None:
                    continue
                score = entry.get("score")
                threshold, success = entry.get("threshold"), entry.get("success")
                votes.setdefault(name, set())
                if (
                    isinstance(score, (int, float))
                    and isinstance(threshold, (int, float))
                    and isinstance(success, bool)
                    and score != threshold
                    and not entry.get("strictMode")
                ):
                    votes[name].add("higher" if (score > threshold) == success else "lower")
    out: dict[str, Literal["higher", "lower"]] = {_PASSED: "higher"}
    for name, seen in votes.items():
        lower_by_name = any(name.lower().startswith(k) for k in _LOWER_IS_BETTER)
        if seen == {"higher"}:
            out[name] = "higher"
        elif seen == {"lower"} or lower_by_name:
            out[name] = "lower"
        elif not seen:
            out[name] = "higher"
    return out


register_adapter(DeepEvalAdapter())

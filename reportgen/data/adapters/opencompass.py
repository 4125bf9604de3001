"""OpenCompass work folders: ``results/<model>/<dataset>.json`` with per-item ``details``.

``opencompass CONFIG --dump-eval-details -w WORK`` writes, per run, ``WORK/<time>/`` with
``predictions/<model>/<dataset>.json`` (the prompts and answers),
``results/<model>/<dataset>.json`` (the dataset's scores, in percent, e.g. ``{"score":
87.5, "details": [...]}``) and ``summary/``. With ``--dump-eval-details`` each entry of
``details`` is one item: ``example_abbr``, ``pred``, ``answer`` and ``correct`` (a
boolean per sample; older releases keep ``details`` as an object keyed by the item's
index, some evaluators name the field ``is_correct``).

========= ===========================================================================
column    taken from
========= ===========================================================================
system    the model's abbreviation (the folder name under ``results/``)
dataset   the dataset's abbreviation (the file name)
metric    the results file's own metric when it has one number (``score``,
          ``accuracy``, ...), else ``accuracy``
item      ``example_abbr``, else the entry's index
score     the share of the item's samples that are correct (0/1 for one sample): the
          mean over items times 100 is OpenCompass's number
run       only when one model and dataset are in several ``<time>`` folders: 0, 1,
          ... in the order of the folders' names (their times)
========= ===========================================================================

A results file without ``details`` (a run without ``--dump-eval-details``) holds no
per-item result and is skipped with a warning. The ``predictions`` files hold no scores
and are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.data.adapters import _files, register_adapter
from reportgen.data.adapters._base import (
    SNIFF_BYTES,
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    LoadOptions,
    NotReadAlone,
    SkippedInput,
    excerpt,
    head_text,
    read_json,
    skip_input,
    to_float,
)
from reportgen.errors import InputError, Location

__all__ = ["OpenCompassAdapter"]

_MAX_DEPTH = 4
_CORRECT = ("correct", "is_correct")
_DEFAULT_METRIC = "accuracy"
_HINT = (
    "OpenCompass writes results/<model>/<dataset>.json with per-item details when run "
    "with --dump-eval-details"
)
_PREDICTIONS = re.compile(r'^\{\s*"0"\s*:\s*\{\s*"origin_prompt"')


class OpenCompassAdapter(Adapter):
    name = "opencompass"
    description = "OpenCompass results/<model>/<dataset>.json with --dump-eval-details"
    priority = 19
    combine_inputs = True

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is None:
            return next(_find_results(path), None) is not None
        return _is_results(path, head) or _is_predictions(path, head)

    def refuse(self, path: Path, head: bytes) -> NotReadAlone | None:
        # OpenCompass's results file moved out of its results/<model>/ folder, which
        # names the model: what it is and what to pass instead
        text = head_text(head).lstrip()
        start = text[:4096]
        if not (
            text.startswith("{") and '"details"' in start and '"example_abbr"' in text[:SNIFF_BYTES]
        ):
            return None
        return NotReadAlone(
            "this looks like an OpenCompass results file (a score and per-item details), "
            "but not inside its work folder's results/<model>/, whose folder names the model",
            location=Location(str(path)),
            hint="pass OpenCompass's work folder (or keep the file as "
            "results/<model>/<dataset>.json); " + _HINT,
        )

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        return self.read_many([path], options)

    def read_many(self, paths: list[Path], options: LoadOptions) -> AdapterResult:
        files: list[Path] = []
        skipped: list[SkippedInput] = []
        for path in paths:
            if path.is_file() and _is_predictions(path, _head(path)):
                skipped.append(
                    skip_input(
                        options,
                        path,
                        "an OpenCompass predictions file holds no scores",
                        hint="pass the run's results/<model>/<dataset>.json (with "
                        "--dump-eval-details), or its work folder",
                        format=self.name,
                    )
                )
                continue
            found = [path] if path.is_file() else list(_find_results(path))
            if not found and not path.is_file():
                raise InputError(
                    f"no OpenCompass results/<model>/<dataset>.json in this folder or "
                    f"{_MAX_DEPTH} levels below",
                    location=Location(str(path)),
                    hint=_HINT,
                )
            files.extend(f for f in found if f not in files)
        frames = []
        runs: dict[tuple[str, str], int] = {}
        for file in sorted(files, key=lambda f: (f.parent.parent.parent.name, str(f))):
            frame = _read_results(file, options, skipped)
            if frame is None:
                continue
            key = (str(frame["system"].iloc[0]), str(frame["dataset"].iloc[0]))
            runs[key] = runs.get(key, -1) + 1
            frame["run"] = runs[key]
            frames.append(frame)
        if not frames:
            raise InputError(
                "no OpenCompass results with per-item details",
                location=Location(str(paths[0])),
                hint="run opencompass with --dump-eval-details; " + _HINT,
            )
        frame = pd.concat(frames, ignore_index=True)
        if not (frame["run"] > 0).any():
            frame = frame.drop(columns="run")
        return AdapterResult(
            frame,
            directions=dict.fromkeys(set(frame["metric"]), "higher"),
            skipped=skipped,
            duplicate_hint="OpenCompass lists each item once per results file; give each "
            "work folder once",
        )


def _head(path: Path) -> bytes:
    return _files.read_head(path, SNIFF_BYTES) or b""


def _is_results(path: Path, head: bytes) -> bool:
    """``results/<model>/<dataset>.json`` holding ``details``, or (a run without
    ``--dump-eval-details``) beside OpenCompass's ``predictions`` folder."""
    if path.suffix != ".json" or path.parent.parent.name != "results":
        return False
    if not head_text(head).lstrip().startswith("{"):
        return False
    return b'"details"' in head or _files.is_folder(path.parent.parent.parent / "predictions")


def _is_predictions(path: Path, head: bytes) -> bool:
    return (
        path.suffix == ".json"
        and path.parent.parent.name == "predictions"
        and bool(_PREDICTIONS.match(head_text(head).lstrip()))
    )


def _find_results(folder: Path, depth: int = 0) -> Iterator[Path]:
    """``results/<model>/<dataset>.json`` files in ``folder`` (a run's ``<time>`` folder,
    or the work folder above them) up to :data:`_MAX_DEPTH` levels below (regular files
    and folders only, :mod:`._files`)."""
    for entry in _files.entries(folder):
        if entry.name.startswith(".") or entry.kind != "folder":
            continue
        path = entry.path
        if entry.name == "results":
            for model in _files.entries(path):
                if model.kind != "folder":
                    continue
                for file in _files.entries(model.path):
                    if (
                        file.kind == "file"
                        and file.name.endswith(".json")
                        and _is_results(file.path, _head(file.path))
                    ):
                        yield file.path
        elif depth < _MAX_DEPTH and entry.name not in ("predictions", "summary", "logs"):
            yield from _find_results(path, depth + 1)


def _read_results(
    path: Path, options: LoadOptions, skipped: list[SkippedInput]
) -> pd.DataFrame | None:
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(
            f"expected a JSON object, found {type(data).__name__}",
            location=Location(str(path)),
            hint=_HINT,
        )
    details = data.get("details")
    if details is None or (isinstance(details, (list, dict)) and not details):
        skipped.append(
            skip_input(
                options,
                path,
                "the OpenCompass results hold no per-item details"
                + (" (details is empty)" if details is not None else ""),
                hint="run opencompass with --dump-eval-details",
                format="opencompass",
            )
        )
        return None
    entries: list[tuple[str, Any]]
    if isinstance(details, list):
        entries = [(str(k), e) for k, e in enumerate(details)]
    elif isinstance(details, dict):
        entries = [(str(k), e) for k, e in details.items()]
    else:
        raise InputError(
            f"details is {excerpt(details)}, not a list or object of items",
            location=Location(str(path), None, "details"),
            hint=_HINT,
        )
    numbers = [
        k for k, v in data.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
    ]
    metric = numbers[0] if len(numbers) == 1 else _DEFAULT_METRIC
    system, dataset = path.parent.name, path.stem
    rows = []
    for index, entry in entries:
        where = Location(str(path), None, f"details[{index}]")
        if not isinstance(entry, dict):
            raise InputError(f"a details entry is {excerpt(entry)}", location=where, hint=_HINT)
        field = next((k for k in _CORRECT if k in entry), None)
        if field is None:
            raise InputError(
                "a details entry has no correct or is_correct field: the evaluator "
                f"records {excerpt(sorted(entry))}",
                location=where,
                hint="reportgen reads OpenCompass evaluators that mark each item correct or not",
            )
        values = entry[field] if isinstance(entry[field], list) else [entry[field]]
        if not values or not all(isinstance(v, (bool, int, float)) for v in values):
            raise InputError(
                f"{field} = {excerpt(entry[field])} is not true/false per sample",
                location=where,
                hint=_HINT,
            )
        item = entry.get("example_abbr", index)
        # an integer of 400 digits is infinite (validation names it), not an OverflowError
        rows.append(
            (system, dataset, metric, str(item), float(np.mean([to_float(v) for v in values])))
        )
    frame = pd.DataFrame(rows, columns=["system", "dataset", "metric", "item", "score"])
    frame[SOURCE_FILE] = str(path)
    frame[SOURCE_LINE] = -1
    return frame


register_adapter(OpenCompassAdapter())

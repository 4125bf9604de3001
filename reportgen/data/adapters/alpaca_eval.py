"""alpaca_eval annotations: a judge's preferences between each output and a reference.

``alpaca_eval evaluate --model_outputs outputs.json`` writes, per annotator,
``<output folder>/<annotator>/annotations.json`` (``annotations.json`` or
``<name>_annotations.json`` when saved apart): a JSON array with one record per
instruction: ``instruction``, ``output_1`` and ``generator_1`` (the reference, e.g.
``gpt4_1106_preview``), ``output_2`` and ``generator_2`` (the model evaluated),
``annotator`` and ``preference``.

Each record becomes the evaluated model's win score against the reference on that
instruction, as alpaca_eval's ``get_winrate`` scores it:

========= ===========================================================================
column    taken from
========= ===========================================================================
system    ``generator_2``
dataset   :attr:`LoadOptions.dataset`, else the ``annotator`` (alpaca_eval keeps one
          leaderboard per annotator: ``alpaca_eval_gpt4``,
          ``weighted_alpaca_eval_gpt4_turbo``, ...)
metric    ``win rate vs <generator_1>``
item      the ``instruction`` (up to 60 characters and a short hash of the whole
          text), so generators are paired by instruction
score     ``preference - 1``: 1 a win over the reference, 0 a loss, ``0.5`` a draw
          (``1.5``, or ``0`` in older files); a weighted annotator's preference in
          [1, 2] gives the probability of a win
========= ===========================================================================

The mean of a generator's scores is alpaca_eval's win rate (draws as half, divided by
100): ``get_winrate`` takes the mean of ``preference - 1`` over the records whose
preference lies in [1, 2], ``0`` counted as ``1.5``. A record without a preference (the
annotator failed: ``null``) or with another value is left out and counted, as
alpaca_eval leaves it out.

alpaca_eval's ``leaderboard.csv`` beside the annotations (win rates per model) holds no
per-instruction preference: it is skipped with the reason, so that a folder of both
reads the annotations.

The length-controlled win rate (Dubois et al. 2024) fits a regression of the
preference on the length difference of the outputs together with the instructions'
difficulties and alpaca_eval's annotations of its own "gamed" baselines, which it
downloads from Hugging Face (``df_gamed.csv``); ``annotations.json`` carries the
outputs but not those, so it is not computed: an ``info`` note says so, and the mean
length of each generator's outputs in the annotations is kept as a descriptive
statistic.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.data.adapters import register_adapter
from reportgen.data.adapters._base import (
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    Exclusion,
    LoadOptions,
    NotReadAlone,
    Problem,
    excerpt,
    file_column,
    head_text,
    read_json,
    skip_input,
)
from reportgen.errors import InputError, Location

__all__ = ["AlpacaEvalAdapter"]

_KEYS = ("instruction", "output_1", "output_2", "generator_2")
_OUTPUT_KEYS = ('"instruction"', '"output"', '"generator"')
_NO_PREFERENCE = "the annotator gave no preference (null)"
_NOT_A_PREFERENCE = "a preference outside [1, 2] (alpaca_eval leaves it out)"
_HINT = (
    "alpaca_eval writes annotations.json with `alpaca_eval evaluate --model_outputs "
    "outputs.json`; the file may be hand-edited, regenerate it"
)
_ITEM_CHARS = 60


def _first_object(head: bytes) -> str | None:
    text = head_text(head).lstrip("\ufeff \t\r\n")
    if not text.startswith("["):
        return None
    return text[1:].lstrip()[:8192]


def _is_annotations(head: bytes) -> bool:
    first = _first_object(head)
    return first is not None and first.startswith("{") and all(f'"{k}"' in first for k in _KEYS)


class AlpacaEvalAdapter(Adapter):
    name = "alpaca-eval"
    description = "alpaca_eval annotations.json (preferences against a reference generator)"
    priority = 13

    def sniff(self, path: Path, head: bytes | None) -> bool:
        return head is not None and (_is_annotations(head) or _is_leaderboard(head))

    def refuse(self, path: Path, head: bytes) -> NotReadAlone | None:
        first = _first_object(head)
        if first is None or not all(k in first for k in _OUTPUT_KEYS) or '"output_2"' in first:
            return None
        return NotReadAlone(
            "this is alpaca_eval's model outputs (instruction, output, generator), not its "
            "annotations: nothing has judged them yet",
            location=Location(str(path)),
            hint="run `alpaca_eval evaluate --model_outputs FILE` and pass the "
            "annotations.json it writes",
        )

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        with path.open("rb") as fh:
            head = fh.read(4096)
        if _is_leaderboard(head):
            # alpaca_eval writes leaderboard.csv beside annotations.json: its aggregates
            # hold no per-instruction preference
            skipped = skip_input(
                options,
                path,
                "alpaca_eval's leaderboard (win rates per model), which holds no "
                "per-instruction preferences",
                hint="pass the annotations.json that alpaca_eval wrote beside it",
                format=self.name,
            )
            return AdapterResult(_empty(), skipped=[skipped])
        data = read_json(path)
        if not isinstance(data, list) or not data:
            raise InputError(
                "expected a JSON array of annotations", location=Location(str(path)), hint=_HINT
            )
        return _annotations(data, path, options)


#: The columns of alpaca_eval's leaderboard.csv (its first column, the model, is unnamed).
_LEADERBOARD_COLUMNS = ("win_rate", "n_wins", "n_wins_base", "n_total")


def _is_leaderboard(head: bytes) -> bool:
    header = head_text(head).lstrip("\ufeff").split("\n", 1)[0].strip().split(",")
    return header[0] == "" and all(c in header for c in _LEADERBOARD_COLUMNS)


def _empty() -> pd.DataFrame:
    return pd.DataFrame(
        {c: pd.Series(dtype=object) for c in ("system", "dataset", "metric", "item")}
        | {"score": pd.Series(dtype=np.float64)}
    )


def _item_id(instruction: str) -> str:
    """The instruction itself, or its first 60 characters and a hash of all of it."""
    text = " ".join(instruction.split())
    if len(text) <= _ITEM_CHARS:
        return text
    digest = hashlib.sha256(instruction.encode("utf-8")).hexdigest()[:8]
    return f"{text[:_ITEM_CHARS].rstrip()}… #{digest}"


def _field(record: Any, key: str, k: int, path: Path) -> str:
    value = record.get(key) if isinstance(record, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise InputError(
            f"annotation {k + 1} has no {key} (found {excerpt(value)})",
            location=Location(str(path), None, f"[{k}].{key}"),
            hint=_HINT,
        )
    return value.strip()


# Over 100 lines of code: one pass over the annotations with the checks of each record,
# then the exclusions and the notes, in the order alpaca_eval's get_winrate works.
def _annotations(data: list[Any], path: Path, options: LoadOptions) -> AdapterResult:
    rows = []
    lengths: dict[tuple[str, str], list[int]] = {}
    missing: dict[tuple[str, str, str], int] = {}
    outside: dict[tuple[str, str, str], int] = {}
    for k, record in enumerate(data):
        if not isinstance(record, dict):
            raise InputError(
                f"annotation {k + 1} is not an object",
                location=Location(str(path), None, f"[{k}]"),
                hint=_HINT,
            )
        generator = _field(record, "generator_2", k, path)
        reference = _field(record, "generator_1", k, path)
        annotator = str(record.get("annotator") or "alpaca_eval")
        dataset = options.dataset or annotator
        metric = f"win rate vs {reference}"
        if "preference" not in record:
            raise InputError(
                f"annotation {k + 1} has no preference",
                location=Location(str(path), None, f"[{k}]"),
                hint=_HINT,
            )
        value = record["preference"]
        key = (generator, dataset, metric)
        output = record.get("output_2")
        if isinstance(output, str):
            lengths.setdefault((generator, dataset), []).append(len(output))
        if value is None or (isinstance(value, float) and math.isnan(value)):
            missing[key] = missing.get(key, 0) + 1
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(
                f"preference = {excerpt(value)} is not a number",
                location=Location(str(path), None, f"[{k}].preference"),
                hint="a preference is 1 (the reference is better), 2 (the model is), 1.5 "
                "(a draw), or between 1 and 2 for a weighted annotator",
            )
        preference = 1.5 if value == 0 else float(value)  # 0: a draw in older files
        if not 0.99 <= preference <= 2.01:  # alpaca_eval's validate_alpacaeval_preference
            outside[key] = outside.get(key, 0) + 1
            continue
        instruction = _field(record, "instruction", k, path)
        rows.append((generator, dataset, metric, _item_id(instruction), preference - 1.0, k + 1))
    frame = pd.DataFrame(
        rows, columns=["system", "dataset", "metric", "item", "score", SOURCE_LINE]
    )
    frame["score"] = frame["score"].astype(np.float64)
    frame[SOURCE_FILE] = file_column(path, len(frame))
    frame[SOURCE_LINE] = -1  # records of one JSON array: no line numbers
    exclusions = [
        Exclusion(_NO_PREFERENCE, n, d, m, s, str(path)) for (s, d, m), n in missing.items()
    ] + [Exclusion(_NOT_A_PREFERENCE, n, d, m, s, str(path)) for (s, d, m), n in outside.items()]
    problems = []
    for (system, dataset, _metric), n in missing.items():
        problems.append(
            Problem(
                "warning",
                f"{n} annotation{'s' if n != 1 else ''} of {excerpt(system)} without a "
                "preference (the annotator failed) left out, as alpaca_eval leaves them "
                "out of its win rate",
                Location(str(path)),
                dataset,
            )
        )
    datasets = list(dict.fromkeys(frame["dataset"]))
    for dataset in datasets:
        problems.append(
            Problem(
                "info",
                "alpaca_eval's length-controlled win rate is not computed: it needs the "
                "instructions' difficulties and alpaca_eval's annotations of its gamed "
                "baselines (df_gamed.csv on Hugging Face), which annotations.json does not "
                "carry; the win rate is alpaca_eval's (draws as half), and the mean output "
                "length is shown as descriptive data",
                Location(str(path)),
                dataset,
            )
        )
    descriptive = [
        {
            "system": system,
            "dataset": dataset,
            "statistic": "output length (characters)",
            "mean": float(np.mean(values)),
            "n": len(values),
        }
        for (system, dataset), values in lengths.items()
    ]
    return AdapterResult(
        frame[["system", "dataset", "metric", "item", "score", SOURCE_FILE, SOURCE_LINE]],
        directions=dict.fromkeys(frame["metric"].unique().tolist(), "higher"),
        exclusions=exclusions,
        problems=problems,
        descriptive=descriptive,
        duplicate_hint="an instruction is annotated once per generator and annotator; "
        "give each annotations file once",
    )


register_adapter(AlpacaEvalAdapter())

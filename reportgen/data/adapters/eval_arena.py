"""eval-arena JSON lines: one line per (model, example).

Each line has ``benchmark_id`` (→ dataset), ``model`` (→ system), ``example_id`` (→ item)
and ``pass1`` (→ metric ``pass1``): 0/1 for one sample, or the share of ``count`` samples
that passed (a fractional score; ``count`` is kept as a column). Other keys (such as
``hyperparams``) are kept as columns, so a per-model key becomes a system attribute.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.data.adapters import register_adapter
from reportgen.data.adapters._base import (
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    LoadOptions,
    file_column,
    head_text,
    jsonl_lines,
    read_jsonl,
    to_float,
)
from reportgen.errors import InputError, Location

__all__ = ["EvalArenaAdapter"]

_REQUIRED = ("benchmark_id", "model", "example_id", "pass1")
_RENAME = {"benchmark_id": "dataset", "model": "system", "example_id": "item", "pass1": "score"}


class EvalArenaAdapter(Adapter):
    name = "eval-arena"
    description = "eval-arena JSON lines (benchmark_id, model, example_id, pass1[, count])"
    priority = 10

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is None:
            return False
        first = next((line for line in jsonl_lines(head_text(head)) if line.strip()), "")
        return first.lstrip().startswith("{") and all(f'"{k}"' in first for k in _REQUIRED)

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        records, lines = read_jsonl(path)
        frame = pd.DataFrame.from_records(records)
        if not _valid(frame):  # find the line and say what is wrong (or accept it)
            for lineno, record in zip(lines.tolist(), records, strict=True):
                missing = [k for k in _REQUIRED if k not in record]
                if missing:
                    raise InputError(
                        f"missing {'key' if len(missing) == 1 else 'keys'} {', '.join(missing)}",
                        location=Location(str(path), lineno),
                        hint="eval-arena lines need benchmark_id, model, example_id and pass1",
                    )
                _check_line(record, path, lineno)
        frame = frame.rename(columns=_RENAME)
        frame["metric"] = "pass1"
        frame[SOURCE_FILE] = file_column(path, len(frame))
        frame[SOURCE_LINE] = lines
        return AdapterResult(frame, directions={"pass1": "higher"})


def _valid(frame: pd.DataFrame) -> bool:
    """Whether every line passes :func:`_check_line` with its keys present and set,
    checked on whole columns. False sends the lines through the check one by one, which
    names the first bad one, or accepts what only looked doubtful here (a null pass1, a
    line without count)."""
    if any(k not in frame.columns or frame[k].isna().any() for k in _REQUIRED):
        return False
    score = frame["pass1"]
    if score.dtype.kind not in "iuf":
        return False
    values = score.to_numpy(dtype=np.float64)
    if not ((values >= 0) & (values <= 1)).all():
        return False
    if "count" not in frame.columns:
        return True
    count = frame["count"]
    if count.dtype.kind not in "iuf" or count.isna().any():
        return False
    counts = count.to_numpy(dtype=np.float64)
    solved = values * counts
    return bool(
        (np.isfinite(counts) & (counts >= 1) & (counts == np.round(counts))).all()
        and (np.abs(solved - np.round(solved)) <= 1e-6 * np.maximum(1.0, counts)).all()
    )


def _check_line(record: dict, path: Path, lineno: int) -> None:
    value = record["pass1"]
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or math.isnan(to_float(value))
    ):
        if value is None:
            return  # a missing score: the table's nan policy decides
        raise InputError(
            f"pass1 = {_shown(value)} is not a number",
            location=Location(str(path), lineno, "pass1"),
            hint="pass1 is 0/1 or the share of samples that passed",
        )
    if not 0 <= value <= 1:
        raise InputError(
            f"pass1 = {_shown(value)} is outside [0, 1]",
            location=Location(str(path), lineno, "pass1"),
            hint="pass1 is 0/1 or the share of samples that passed",
        )
    if "count" in record:
        count = record["count"]
        if (
            isinstance(count, bool)
            or not isinstance(count, (int, float))
            or not to_float(count).is_integer()
            or count < 1
        ):
            raise InputError(
                f"count = {_shown(count)} is not a positive whole number",
                location=Location(str(path), lineno, "count"),
                hint="count is the number of samples behind pass1",
            )
        solved = value * count
        if abs(solved - round(solved)) > 1e-6 * max(1.0, count):
            raise InputError(
                f"pass1 = {_shown(value)} is not a share of count = {_shown(count)} samples",
                location=Location(str(path), lineno, "pass1"),
                hint="pass1 × count must be a whole number of passed samples",
            )


def _shown(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


register_adapter(EvalArenaAdapter())

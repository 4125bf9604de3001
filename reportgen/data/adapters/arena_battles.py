"""Arena-style battle tables: one battle per record with ``model_a``, ``model_b``, ``winner``.

Chatbot Arena's ``clean_battle_<date>.json`` (FastChat's ``clean_battle_data.py``, and
the arenas built on it: GenAI-Arena, WildVision), MT-bench's human judgments and any
table of pairwise votes in the same columns:

=============== ==================================================================
column          meaning
=============== ==================================================================
``model_a``     the system shown as A
``model_b``     the system shown as B
``winner``      ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``
``judge``       optional: who voted (``arena_user_<id>``, ``gpt4_pair``, ...)
``question_id`` optional: the prompt (a conversation id in the arena)
``turn``        optional: the turns of the conversation
``anony``       optional: whether the models were hidden when the vote was cast
=============== ==================================================================

Read from a JSON array (the arena's dumps), JSON lines, CSV, TSV or Parquet (``.gz``
and ``.zst`` too). The battles keep their own kind (:mod:`reportgen.data._battles`):
the dataset is :attr:`LoadOptions.dataset`, else the file's name without its suffixes.
Conversations and other columns are not read.

Chatbot Arena rates anonymous battles only (its "anony" leaderboard) and all battles
for the "full" one; every battle given is read, and an ``info`` note counts those that
were not anonymous: pass a file of anonymous battles to rate those alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.data._battles import OUTCOMES
from reportgen.data.adapters import register_adapter
from reportgen.data.adapters._base import (
    COMPRESSED_SUFFIXES,
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    LoadOptions,
    Problem,
    excerpt,
    head_text,
    jsonl_lines,
    read_json,
    read_jsonl,
)
from reportgen.data.adapters._tabular import header_columns, read_table, table_kind
from reportgen.errors import InputError, Location

__all__ = ["ArenaBattlesAdapter"]

_REQUIRED = ("model_a", "model_b", "winner")
_OPTIONAL = ("judge", "question_id", "turn", "anony")
_HINT = (
    "an arena battle has model_a, model_b and winner (model_a, model_b, tie or "
    "'tie (bothbad)'), as FastChat's clean_battle_data.py writes them"
)


def _json_kind(head: bytes) -> str | None:
    """``"array"`` or ``"lines"`` when the start of a JSON file is battles."""
    text = head_text(head).lstrip("\ufeff \t\r\n")
    if text.startswith("["):
        # the keys of the first record come before its (long) conversations
        start = text[:8192]
        return "array" if all(f'"{k}"' in start for k in _REQUIRED) else None
    if text.startswith("{"):
        line = next((x for x in jsonl_lines(text) if x.strip()), "")
        try:
            record = json.loads(line)
        except ValueError:
            return None
        if isinstance(record, dict) and all(k in record for k in _REQUIRED):
            return "lines"
    return None


class ArenaBattlesAdapter(Adapter):
    name = "arena-battles"
    description = "arena-style battles (model_a, model_b, winner[, judge, question_id, turn])"
    priority = 13

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is None:
            return False
        if _json_kind(head) is not None:
            return True
        kind = table_kind(path, head)
        if kind in ("csv", "tsv", "parquet"):
            columns = header_columns(path, head) or []
            return all(c in columns for c in _REQUIRED)
        return False

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        with path.open("rb") as fh:
            head = fh.read(65536)
        kind = _json_kind(_expanded_head(path, head))
        if kind == "array":
            data = read_json(path)
            if not isinstance(data, list):
                raise InputError("expected a JSON array of battles", location=Location(str(path)))
            records = [r for r in data if isinstance(r, dict)]
            if len(records) != len(data):
                k = next(i for i, r in enumerate(data) if not isinstance(r, dict))
                raise InputError(
                    f"record {k + 1} of the array is not an object",
                    location=Location(str(path), None, f"[{k}]"),
                    hint=_HINT,
                )
            frame = pd.DataFrame.from_records(records, columns=_columns(records))
            lines = np.full(len(frame), -1, dtype=np.int64)
            positions = [f"[{k}]" for k in range(len(frame))]
        elif kind == "lines":
            rows, numbers = read_jsonl(path)
            frame = pd.DataFrame.from_records(rows, columns=_columns(rows))
            lines = numbers
            positions = None
        else:
            frame, lines = read_table(path)
            positions = None
        return _battles(frame, lines, positions, path, options)


def _expanded_head(path: Path, head: bytes) -> bytes:
    from reportgen.data.adapters import _head  # the registry's expanded head

    return _head(path) if path.name.lower().endswith(COMPRESSED_SUFFIXES) else head


def _columns(records: list[dict[str, Any]]) -> list[str]:
    """The columns read (the required and optional ones a record has): conversations,
    which make up most of an arena dump, are not kept."""
    present = {k for r in records[:1000] for k in r}
    return [c for c in (*_REQUIRED, *_OPTIONAL) if c in present or c in _REQUIRED]


def _battles(
    frame: pd.DataFrame,
    lines: np.ndarray,
    positions: list[str] | None,
    path: Path,
    options: LoadOptions,
) -> AdapterResult:
    for column in _REQUIRED:
        if column not in frame:
            raise InputError(
                f"the battles have no {column!r} column", location=Location(str(path)), hint=_HINT
            )
    winner = frame["winner"].astype("string").str.strip()
    bad = ~winner.isin(list(OUTCOMES)).fillna(False).to_numpy(dtype=bool)
    if bad.any():
        k = int(np.argmax(bad))
        line = int(lines[k]) if lines[k] > 0 else None
        column = "winner" if positions is None else f"{positions[k]}.winner"
        raise InputError(
            f"winner = {excerpt(frame['winner'].iloc[k])} is not one of "
            f"{', '.join(repr(w) for w in OUTCOMES)}",
            location=Location(str(path), line, column),
            hint=_HINT,
        )
    dataset = options.dataset or _stem(path)
    out = pd.DataFrame(
        {
            "dataset": dataset,
            "model_a": frame["model_a"],
            "model_b": frame["model_b"],
            "winner": winner.astype(str),
        }
    )
    for column in ("judge", "question_id", "turn"):
        if column in frame:
            out[column] = frame[column].map(_plain)
    out[SOURCE_FILE] = str(path)
    out[SOURCE_LINE] = np.asarray(lines, dtype=np.int64)
    problems = []
    if "anony" in frame:
        named = int((frame["anony"].map(_truth) == 0).sum())
        if named:
            problems.append(
                Problem(
                    "info",
                    f"{named} of {len(frame)} battles were not anonymous (the models' names "
                    "were shown when the vote was cast); Chatbot Arena's leaderboard rates "
                    "anonymous battles only, its 'full' rating all of them, as read here",
                    Location(str(path)),
                    dataset,
                )
            )
    empty = pd.DataFrame(
        {c: pd.Series(dtype=object) for c in ("system", "dataset", "metric", "item")}
        | {"score": pd.Series(dtype=np.float64)}
    )
    return AdapterResult(empty, problems=problems, battles=out)


def _stem(path: Path) -> str:
    name = path.name
    for suffix in COMPRESSED_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return Path(name).stem or name


def _plain(value: Any) -> Any:
    """A judge, question id or turn as a plain value (lists and objects as JSON text)."""
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True)
    return value


def _truth(value: Any) -> int:
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, str):
        return {"true": 1, "false": 0}.get(value.strip().lower(), -1)
    return -1


register_adapter(ArenaBattlesAdapter())

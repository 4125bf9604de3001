"""FastChat MT-bench judgments: ``model_judgment/<judge>_single.jsonl`` and ``_pair.jsonl``.

``python gen_judgment.py`` of FastChat's ``llm_judge`` writes one JSON line per
judgment into ``data/<bench>/model_judgment/``:

single-answer grading (``--mode single``, ``<judge>_single.jsonl``)
    ``question_id``, ``model``, ``judge`` (``[judge model, prompt name]``), ``score``
    (the 1-10 rating the judge gave, ``-1`` when its answer held no ``[[rating]]``),
    ``turn`` (1 or 2), ``user_prompt``, ``judgment``, ``tstamp``.
pairwise grading (``--mode pairwise-baseline`` or ``pairwise-all``, ``<judge>_pair.jsonl``)
    ``question_id``, ``model_1``, ``model_2``, ``g1_winner`` and ``g2_winner`` (the
    verdicts with the answers in both orders: ``"model_1"``, ``"model_2"``, ``"tie"`` or
    ``"error"``), ``judge``, ``turn``, ``g1_judgment``, ``g2_judgment``, ...

Single grading becomes scores:

========= ===========================================================================
column    taken from
========= ===========================================================================
system    ``model``
dataset   :attr:`LoadOptions.dataset`, else the benchmark folder holding
          ``model_judgment`` (``mt_bench``, ``vicuna_bench``), else ``mt_bench``
metric    ``score`` (``score (<judge model>)`` for each judge model when a file holds
          several)
item      ``question_id``
run       ``turn``: the two turns of a question are its runs, so a system's score of a
          question is the mean of its turns and the report's mean is FastChat's
          ``show_result`` average (the mean over all judgments) whenever no judgment
          failed; the repeated-runs section shows each turn's mean (``show_result``'s
          first- and second-turn tables). To compare the turns as separate datasets,
          split the file by ``turn`` and pass each part with ``--dataset``.
score     ``score``
========= ===========================================================================

A ``score`` of ``-1`` is a failed judgment: it is excluded and counted, with a warning
(``show_result`` drops it too). A judgment given more than once for one model, question,
turn and judge model (``gen_judgment`` run again appends to the file) keeps its last
valid rating, with an info note: ``show_result`` would average every copy.

Pairwise grading becomes battles (:mod:`reportgen.data._battles`): ``model_1`` is A and
``model_2`` is B; a battle is won when both orders agree on the winner and a tie
otherwise (a ``tie`` in the first order, or two verdicts that disagree), as
``show_result --mode pairwise-all`` counts it; a judgment with an ``error`` in either
order is excluded and counted, as ``show_result`` drops it. The judge is the judge
model (``gpt-4``; its prompt depends on the question's category).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
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
    Problem,
    excerpt,
    file_column,
    head_text,
    jsonl_lines,
    read_jsonl,
    to_float,
)
from reportgen.errors import InputError, Location

__all__ = ["MtBenchAdapter"]

_SINGLE_KEYS = ("question_id", "model", "judge", "score", "turn")
_PAIR_KEYS = ("question_id", "model_1", "model_2", "g1_winner", "g2_winner", "judge")
_VERDICTS = ("model_1", "model_2", "tie", "error")
_FAILED = "the judge gave no rating (score -1: its answer held no [[rating]])"
_ERROR = "the judge's verdict was an error in one order of the answers"
_HINT = (
    "FastChat's llm_judge writes these lines with `python gen_judgment.py`; "
    "the file may be hand-edited, regenerate it"
)
_DEFAULT_DATASET = "mt_bench"


def _first_record(head: bytes) -> dict[str, Any] | None:
    line = next((x for x in jsonl_lines(head_text(head)) if x.strip()), "")
    try:
        record = json.loads(line.lstrip("\ufeff"))
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _kind(head: bytes) -> str | None:
    """``"single"``, ``"pair"`` or None, from the first line."""
    return _record_kind(_first_record(head))


def _record_kind(record: dict[str, Any] | None) -> str | None:
    if record is None:
        return None
    if all(k in record for k in _PAIR_KEYS):
        return "pair"
    if all(k in record for k in _SINGLE_KEYS) and isinstance(record.get("judge"), list):
        return "single"
    return None


class MtBenchAdapter(Adapter):
    name = "mt-bench"
    description = "FastChat MT-bench judgments (model_judgment/*_single.jsonl, *_pair.jsonl)"
    priority = 12

    def sniff(self, path: Path, head: bytes | None) -> bool:
        return head is not None and _kind(head) is not None

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        records, lines = read_jsonl(path)
        kind = _record_kind(records[0])
        dataset = options.dataset or _dataset(path)
        if kind == "pair":
            return _read_pairs(path, records, lines, dataset)
        if kind == "single":
            return _read_single(path, records, lines, dataset)
        raise InputError(
            "not an MT-bench judgment file: the first line has neither the keys of single "
            f"grading ({', '.join(_SINGLE_KEYS)}) nor those of pairwise grading "
            f"({', '.join(_PAIR_KEYS)})",
            location=Location(str(path), int(lines[0]) if len(lines) else None),
            hint=_HINT,
        )


def _dataset(path: Path) -> str:
    """The benchmark folder FastChat keeps the judgments in (``data/<bench>/model_judgment``,
    ``mt_bench`` or ``vicuna_bench``), else ``mt_bench``."""
    parent = path.resolve().parent
    if parent.name == "model_judgment" and parent.parent.name.endswith("_bench"):
        return parent.parent.name
    return _DEFAULT_DATASET


def _judge(value: Any, where: Location) -> tuple[str, str]:
    if isinstance(value, list) and len(value) >= 2 and all(isinstance(v, str) for v in value[:2]):
        return value[0], value[1]
    if isinstance(value, str) and value:
        return value, ""
    raise InputError(
        f"judge = {excerpt(value)} is not [judge model, prompt name]",
        location=where,
        hint=_HINT,
    )


def _require(record: dict[str, Any], keys: Sequence[str], kind: str, where: Location) -> None:
    """Raise on the first of ``keys`` missing from a judgment of ``kind``."""
    for key in keys:
        if key not in record:
            raise InputError(f"an MT-bench {kind} without {key!r}", location=where, hint=_HINT)


def _text(record: dict[str, Any], key: str, where: Location) -> str:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise InputError(
            f"{key} = {excerpt(value)} is not a name or id", location=where, hint=_HINT
        )
    return str(value).strip()


# Over 100 lines of code: one pass over the judgments with the checks of each field,
# then the failed ratings and the repeated judgments, read in the order of the file.
def _read_single(
    path: Path, records: list[dict[str, Any]], lines: np.ndarray, dataset: str
) -> AdapterResult:
    rows: list[tuple[str, str, str, int, float, int, int]] = []
    failed: Counter[tuple[str, str]] = Counter()
    for position, (record, line) in enumerate(zip(records, lines.tolist(), strict=True)):
        where = Location(str(path), line)
        _require(record, _SINGLE_KEYS, "single judgment", where)
        model = _text(record, "model", where)
        question = _text(record, "question_id", where)
        judge, _prompt = _judge(record["judge"], where)
        turn = record["turn"]
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
            raise InputError(
                f"turn = {excerpt(turn)} is not a turn number (1, 2, ...)",
                location=Location(str(path), line, "turn"),
                hint=_HINT,
            )
        score = record["score"]
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise InputError(
                f"score = {excerpt(score)} is not a number",
                location=Location(str(path), line, "score"),
                hint=_HINT,
            )
        value = to_float(score)
        if value == -1:
            failed[(model, judge)] += 1
        rows.append((model, judge, question, turn, value, line, position))
    frame = pd.DataFrame(
        rows, columns=["system", "judge", "item", "run", "score", SOURCE_LINE, "_order"]
    )
    problems: list[Problem] = []
    exclusions: list[Exclusion] = []
    judges = list(dict.fromkeys(frame["judge"]))
    metric = {j: "score" if len(judges) == 1 else f"score ({j})" for j in judges}
    frame["metric"] = frame["judge"].map(metric)
    frame = _latest_valid(frame, path, dataset, problems)
    valid = frame["score"] != -1
    for model, judge in failed:
        dropped = int(((frame["system"] == model) & (frame["judge"] == judge) & ~valid).sum())
        if dropped:
            exclusions.append(Exclusion(_FAILED, dropped, dataset, metric[judge], model, str(path)))
    if not valid.all():
        n = int((~valid).sum())
        problems.append(
            Problem(
                "warning",
                f"{n} judgment{'s' if n != 1 else ''} without a rating (score -1) left out: "
                "the judge's answer held no [[rating]] (show_result drops them too); "
                "judge them again with gen_judgment.py",
                Location(str(path)),
                dataset,
            )
        )
    frame = frame[valid].drop(columns=["judge", "_order"]).reset_index(drop=True)
    frame["dataset"] = dataset
    frame[SOURCE_FILE] = file_column(path, len(frame))
    problems.append(
        Problem(
            "info",
            "MT-bench turns are the runs of each question: a question's score is the mean "
            "of its turns, and the repeated-runs section shows each turn's mean",
            Location(str(path)),
            dataset,
        )
    )
    return AdapterResult(
        frame[["system", "dataset", "metric", "item", "run", "score", SOURCE_FILE, SOURCE_LINE]],
        directions=dict.fromkeys(metric.values(), "higher"),
        exclusions=exclusions,
        problems=problems,
        duplicate_hint="each model, question and turn is judged once per judge model in a "
        "judgment file; give each file once",
    )


def _latest_valid(
    frame: pd.DataFrame, path: Path, dataset: str, problems: list[Problem]
) -> pd.DataFrame:
    """One judgment per (model, judge model, question, turn): the last valid one (the
    last one when none is valid), with an info note naming how many were repeated."""
    key = ["system", "judge", "item", "run"]
    repeated = frame.duplicated(key, keep=False)
    if not repeated.any():
        return frame
    ranked = frame.assign(_valid=frame["score"] != -1).sort_values(["_valid", "_order"])
    kept = ranked.drop_duplicates(key, keep="last").sort_values("_order").drop(columns="_valid")
    groups = frame[repeated].groupby(key, sort=False).ngroups
    problems.append(
        Problem(
            "info",
            f"{groups} judgment{'s were' if groups != 1 else ' was'} given more than once for "
            "one model, question and turn (gen_judgment.py run again appends to the file): "
            "the last valid rating of each is kept (FastChat's show_result would average "
            "every copy)",
            Location(str(path)),
            dataset,
        )
    )
    return kept.reset_index(drop=True)


def _read_pairs(
    path: Path, records: list[dict[str, Any]], lines: np.ndarray, dataset: str
) -> AdapterResult:
    rows: list[tuple[Any, ...]] = []
    errors: Counter[str] = Counter()
    for record, line in zip(records, lines.tolist(), strict=True):
        where = Location(str(path), line)
        _require(record, _PAIR_KEYS, "pairwise judgment", where)
        model_1 = _text(record, "model_1", where)
        model_2 = _text(record, "model_2", where)
        judge, _prompt = _judge(record["judge"], where)
        verdicts = []
        for key in ("g1_winner", "g2_winner"):
            value = record[key]
            if value not in _VERDICTS:
                raise InputError(
                    f"{key} = {excerpt(value)} is not one of {', '.join(_VERDICTS)}",
                    location=Location(str(path), line, key),
                    hint=_HINT,
                )
            verdicts.append(value)
        if "error" in verdicts:
            errors[judge] += 1
            continue
        g1, g2 = verdicts
        winner = "tie" if g1 == "tie" or g1 != g2 else ("model_a" if g1 == "model_1" else "model_b")
        turn = record.get("turn")
        rows.append(
            (
                dataset,
                model_1,
                model_2,
                winner,
                judge,
                _text(record, "question_id", where),
                turn if isinstance(turn, int) and not isinstance(turn, bool) else None,
                str(path),
                line,
            )
        )
    battles = pd.DataFrame(
        rows,
        columns=[
            "dataset",
            "model_a",
            "model_b",
            "winner",
            "judge",
            "question_id",
            "turn",
            SOURCE_FILE,
            SOURCE_LINE,
        ],
    )
    problems = []
    exclusions = []
    if errors:
        n = sum(errors.values())
        exclusions.append(Exclusion(_ERROR, n, dataset=dataset, source=str(path)))
        problems.append(
            Problem(
                "warning",
                f"{n} pairwise judgment{'s' if n != 1 else ''} with an 'error' verdict left out "
                "(show_result drops them too); judge them again with gen_judgment.py",
                Location(str(path)),
                dataset,
            )
        )
    empty = pd.DataFrame(
        {c: pd.Series(dtype=object) for c in ("system", "dataset", "metric", "item")}
        | {"score": pd.Series(dtype=np.float64)}
    )
    return AdapterResult(empty, exclusions=exclusions, problems=problems, battles=battles)


register_adapter(MtBenchAdapter())

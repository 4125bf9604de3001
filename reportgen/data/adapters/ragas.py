"""Ragas per-sample tables: ``evaluate(...).to_pandas()`` saved as CSV, JSON lines or Parquet.

`Ragas <https://docs.ragas.io>`_ evaluates a RAG pipeline on a set of questions; its
``EvaluationResult.to_pandas()`` has one row per sample: the sample's text columns, then
one numeric column per metric. Users save it with ``to_csv``, ``to_json(orient="records",
lines=True)`` or ``to_parquet``, one file per pipeline. Column names:

* Ragas 0.2 and later: ``user_input``, ``retrieved_contexts``, ``reference_contexts``,
  ``response``, ``reference`` (and ``multi_responses``, ``rubrics``, ...);
* Ragas 0.1: ``question``, ``contexts``, ``answer``, ``ground_truth(s)``.

A table is read as Ragas output when it has the question column (``user_input`` or
``question``) and at least one other of these text columns.

========= ===========================================================================
column    taken from
========= ===========================================================================
system    :attr:`LoadOptions.system` (``--system``), else the file's name without
          suffix (one file per pipeline: ``bm25.csv``, ``dense.csv``)
dataset   :attr:`LoadOptions.dataset`, else the name of the folder holding the file
metric    each numeric column (``faithfulness``, ``answer_relevancy``,
          ``context_precision``, ``context_recall``, ``answer_correctness``, ...);
          ``noise_sensitivity`` is lower-is-better, the others higher-is-better
item      the question; when a question repeats in the file, the row number (1, 2,
          ...), with a note
score     the metric's value; an empty cell (Ragas's NaN for a metric that failed,
          e.g. an unparsable judge answer) is missing
========= ===========================================================================

Item text (unless ``--no-text``): the question (``user_input``, ``question``) is the
``input``, the pipeline's ``response`` (``answer``) the ``output``, the ``reference``
(``ground_truth``) the ``target``.

Text is never read as a score: every column whose values are mostly not numbers (the
question, the answer, the contexts, a rubric) is the item's content, not a metric.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
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
    jsonl_lines,
    parse_json,
    read_jsonl,
)
from reportgen.data.adapters._tabular import (
    header_columns,
    ints_as_floats,
    read_table,
    table_kind,
    text_columns,
)
from reportgen.data.adapters.long import column_mapping, file_stem
from reportgen.errors import InputError, Location

__all__ = ["RagasAdapter"]

#: The question column of Ragas 0.2+ and 0.1.
_QUESTION = ("user_input", "question")
#: Ragas's other sample columns (0.2+ names, then 0.1 names).
_TEXT = (
    "retrieved_contexts",
    "reference_contexts",
    "response",
    "multi_responses",
    "reference",
    "rubrics",
    "contexts",
    "answer",
    "ground_truth",
    "ground_truths",
)
#: The item text of a sample: the question, the pipeline's response, the reference
#: (Ragas 0.2+ names first, then 0.1 names).
_ROLES = {
    "input": ("user_input", "question"),
    "output": ("response", "answer"),
    "target": ("reference", "ground_truth", "ground_truths"),
}
#: Ragas metrics where lower is better.
_LOWER = ("noise_sensitivity",)


class RagasAdapter(Adapter):
    name = "ragas"
    description = "Ragas per-sample table (to_pandas() as CSV, JSON lines or Parquet)"
    priority = 30

    def sniff(self, path: Path, head: bytes | None) -> bool:
        return self.claims(path, head, LoadOptions())

    def claims(self, path: Path, head: bytes | None, options: LoadOptions) -> bool:
        """A Ragas table, unless it is a long table (two of its named columns) whose
        item metadata happen to include a question and an answer."""
        kind = table_kind(path, head)
        if kind is None or head is None:
            return False
        if kind == "jsonl":
            first = next((line for line in jsonl_lines(head_text(head)) if line.strip()), "")
            try:
                record = parse_json(first, path)
            except InputError:
                return False
            if not isinstance(record, dict) or _is_long(list(record), options):
                return False
            # a metric beside the sample's text: a number (or null, a failed metric)
            return _is_ragas(list(record)) and any(
                value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))
                for key, value in record.items()
                if key not in _QUESTION and key not in _TEXT
            )
        columns = header_columns(path, head) or []
        return _is_ragas(columns) and not _is_long(columns, options)

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        with path.open("rb") as fh:
            head = fh.read(8)
        if table_kind(path, head) == "jsonl":
            records, lines = read_jsonl(path)
            frame = pd.DataFrame.from_records(records)
        else:
            frame, lines = read_table(path, head)
        columns = [str(c) for c in frame.columns]
        if not _is_ragas(columns):
            raise InputError(
                "no Ragas question column (user_input or question) beside its other "
                f"sample columns; columns are: {', '.join(columns[:12])}",
                location=Location(str(path), 1),
                hint="save the Ragas result with result.to_pandas().to_csv(PATH, index=False)",
            )
        question = next(c for c in _QUESTION if c in columns)
        known = [c for c in columns if c in _TEXT or c == question]
        text, numbers = text_columns(frame, [c for c in columns if c not in known])
        if not numbers:
            raise InputError(
                "the Ragas table has no metric column (every column holds text)",
                location=Location(str(path), 1),
                hint="evaluate with at least one metric and save result.to_pandas()",
            )
        given = given_system(options, path)
        system = given or file_stem(path)
        dataset = options.dataset or path.resolve().parent.name
        problems = []
        questions = frame[question].astype(str)
        if questions.duplicated().any():
            items = pd.Series(np.arange(1, len(frame) + 1).astype(str))
            problems.append(
                Problem(
                    "info",
                    f"a question repeats in the Ragas table of {system!r}: its items are "
                    "the row numbers, so every pipeline's file must list the samples in "
                    "the same order",
                    location=Location(str(path)),
                    dataset=dataset,
                )
            )
        else:
            items = questions.reset_index(drop=True)
        if text:
            problems.append(
                Problem(
                    "info",
                    f"text column{'s' if len(text) > 1 else ''} {', '.join(map(repr, text))} "
                    "read as the samples' content, not as metrics",
                    location=Location(str(path), 1),
                    dataset=dataset,
                )
            )
        metrics = list(numbers)
        for metric in metrics:
            numbers[metric] = _scores(numbers[metric], metric, path, lines)
        n = len(frame)
        long = pd.DataFrame(
            {
                "system": system,
                "dataset": dataset,
                "metric": np.repeat(np.asarray(metrics, dtype=object), n),
                "item": np.tile(items.to_numpy(dtype=object), len(metrics)),
                "score": np.concatenate([numbers[m].to_numpy(dtype=object) for m in metrics]),
                SOURCE_LINE: np.tile(np.asarray(lines), len(metrics)),
            }
        )
        if not options.no_text:
            for role, names in _ROLES.items():
                column = next((c for c in names if c in columns), None)
                if column is not None:
                    long[role] = np.tile(frame[column].to_numpy(dtype=object), len(metrics))
        long[SOURCE_FILE] = file_column(path, len(long))
        directions: dict[str, Literal["higher", "lower"]] = {
            m: "lower" if m.startswith(_LOWER) else "higher" for m in metrics
        }
        return AdapterResult(
            long,
            directions=directions,
            problems=problems,
            duplicate_hint="a Ragas table has one row per sample; give each pipeline's "
            "file once, named apart (file names or --system)",
            named_by_path={} if given else {system: str(path)},
        )


def _scores(values: pd.Series, metric: str, path: Path, lines: np.ndarray) -> pd.Series:
    """A metric column as floats (an empty cell as NaN); a cell that is not a number is
    an error naming the column and line."""
    if values.dtype.kind in "biuf":
        return values.astype(np.float64)
    parsed = pd.to_numeric(ints_as_floats(values), errors="coerce")
    bad = parsed.isna() & values.notna()
    if bad.any():
        row = int(np.argmax(bad.to_numpy()))
        raise InputError(
            f"metric column {metric!r} holds {excerpt(values.iloc[row])}, not a number",
            location=Location(str(path), int(lines[row]), metric),
            hint="a Ragas metric column holds numbers, or nothing where the metric failed",
        )
    return parsed.astype(np.float64)


def _is_long(columns: list[str], options: LoadOptions) -> bool:
    """Two of a long table's columns (``system``, ``item``, ``score``, ... or their
    ``--*-col`` names): the long adapter's rule."""
    return len(set(column_mapping(options).values()) & set(columns)) >= 2


def _is_ragas(columns: list[str]) -> bool:
    """The question column, another of Ragas's sample columns, and a column of neither
    (a metric): a question-answer dataset without scores is not a Ragas result."""
    return (
        any(c in columns for c in _QUESTION)
        and any(c in columns for c in _TEXT)
        and any(c not in _QUESTION and c not in _TEXT for c in columns)
    )


register_adapter(RagasAdapter())

"""The long table: one row per score (CSV, TSV, Parquet or JSON lines).

Columns ``system, dataset, metric, item, score`` and optionally ``run``, under these names
or mapped with ``--system-col`` etc. A file without a dataset column gets ``--dataset``
(default: the file name without suffix); without a metric column, ``--metric`` (default
``score``). Every other column is kept (item metadata, system attributes).

Item text: the columns ``input``, ``output``, ``target`` and ``explanation``, and any column
``--text-col NAME=ROLE`` names, are the items' text (what was asked, what the system
answered, the reference, the scorer's explanation): shown beside the items a release
lost and gained, never read as a score or as item metadata (:mod:`reportgen.data._texts`).

Predictions: a table with ``prediction`` and ``reference`` columns (``--prediction-col``,
``--reference-col``) instead of a score gets the metric ``accuracy`` (or ``--metric``):
1 when the prediction equals the reference, 0 otherwise (a missing prediction is wrong).
Both columns are kept, so corpus-level metrics (F1, precision, recall) can be computed
from them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.data._texts import TEXT_ROLES
from reportgen.data.adapters import register_adapter
from reportgen.data.adapters._base import (
    COMPRESSED_SUFFIXES,
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    LoadOptions,
    file_column,
    head_text,
    jsonl_lines,
    read_jsonl,
)
from reportgen.data.adapters._tabular import header_columns, read_table, table_kind
from reportgen.errors import InputError, Location

__all__ = ["LongTableAdapter", "column_mapping", "file_stem"]

_OPTION_OF = {
    "system": "--system-col",
    "dataset": "--dataset-col",
    "metric": "--metric-col",
    "item": "--item-col",
    "score": "--score-col",
    "run": "--run-col",
}


def column_mapping(options: LoadOptions) -> dict[str, str]:
    """Canonical column name -> the column name in the user's files."""
    return {
        "system": options.system_col,
        "dataset": options.dataset_col,
        "metric": options.metric_col,
        "item": options.item_col,
        "score": options.score_col,
        "run": options.run_col,
    }


def file_stem(path: Path) -> str:
    """The file name without its (possibly double, e.g. ``.csv.gz``) suffix."""
    name = path.name
    for suffix in COMPRESSED_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return Path(name).stem


def _mapped_defaults(options: LoadOptions) -> bool:
    return any(source != canonical for canonical, source in column_mapping(options).items())


class LongTableAdapter(Adapter):
    name = "long"
    description = "long table, one row per score (CSV, TSV, Parquet, JSON lines)"
    priority = 40
    generic = True

    def sniff(self, path: Path, head: bytes | None) -> bool:
        return self.claims(path, head, LoadOptions())

    def claims(self, path: Path, head: bytes | None, options: LoadOptions) -> bool:
        kind = table_kind(path, head)
        if kind is None or head is None:
            return False
        mapping = column_mapping(options)
        needed = {mapping["system"], mapping["item"], mapping["score"]}
        with_predictions = {
            mapping["system"],
            mapping["item"],
            options.prediction_col,
            options.reference_col,
        }
        if kind == "jsonl":
            first = next((line for line in jsonl_lines(head_text(head)) if line.strip()), "")
            return any(
                all(f'"{key}"' in first for key in keys) for keys in (needed, with_predictions)
            )
        columns = header_columns(path, head)
        if columns is None:
            return _mapped_defaults(options)
        # two of the named columns make it a long table, even if one is missing (reading
        # it then says which); a wide table's columns are system names
        return len(set(mapping.values()) & set(columns)) >= 2

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        with path.open("rb") as fh:
            head = fh.read(8)
        if table_kind(path, head) == "jsonl":
            frame = _read_jsonl(path)
        else:
            frame, lines = read_table(path, head)
            frame[SOURCE_LINE] = lines
        frame = _canonical(frame, path, options)
        return AdapterResult(frame)


def _read_jsonl(path: Path) -> pd.DataFrame:
    records, lines = read_jsonl(path)
    frame = pd.DataFrame.from_records(records)
    frame[SOURCE_LINE] = lines
    return frame


def _canonical(frame: pd.DataFrame, path: Path, options: LoadOptions) -> pd.DataFrame:
    """Rename mapped columns to canonical names, fill dataset/metric, add provenance."""
    mapping = column_mapping(options)
    columns = [c for c in frame.columns if c != SOURCE_LINE]
    renames = {}
    for canonical, source in mapping.items():
        if source in frame.columns:
            if source != canonical:
                if canonical in frame.columns:
                    raise InputError(
                        f"{_OPTION_OF[canonical]} {source} would replace the existing "
                        f"column {canonical!r}",
                        location=Location(str(path), 1),
                        hint=f"rename one of the two columns, or drop {_OPTION_OF[canonical]}",
                    )
                renames[source] = canonical
        elif source != canonical and canonical not in ("dataset", "metric", "run"):
            raise InputError(
                f"column {source!r} ({_OPTION_OF[canonical]}) not found; "
                f"columns are: {', '.join(columns)}",
                location=Location(str(path), 1),
                hint=f"pass the right column name to {_OPTION_OF[canonical]}",
            )
        elif source != canonical and canonical == "run":
            raise InputError(
                f"column {source!r} (--run-col) not found; columns are: {', '.join(columns)}",
                location=Location(str(path), 1),
                hint="pass the right column name to --run-col",
            )
    frame = frame.rename(columns=renames)
    frame = _text_columns(frame, path, options)
    if (
        "score" not in frame.columns
        and options.prediction_col in frame.columns
        and options.reference_col in frame.columns
    ):
        frame = _accuracy_from_predictions(frame, options)
    missing = [c for c in ("system", "item", "score") if c not in frame.columns]
    if missing:
        raise InputError(
            f"missing required {'column' if len(missing) == 1 else 'columns'} "
            f"{', '.join(missing)}; found: {', '.join(columns)}",
            location=Location(str(path), 1),
            hint="name them system, item, score (and dataset, metric) or map "
            "them with --system-col, --item-col, --score-col",
        )
    if "dataset" not in frame.columns:
        if mapping["dataset"] != "dataset":
            raise InputError(
                f"column {mapping['dataset']!r} (--dataset-col) not found; "
                f"columns are: {', '.join(columns)}",
                location=Location(str(path), 1),
                hint="pass the right column name to --dataset-col",
            )
        frame["dataset"] = options.dataset or file_stem(path)
    elif options.dataset is not None:
        raise InputError(
            "--dataset was given but the table has a dataset column",
            location=Location(str(path), 1),
            hint="drop --dataset, or map another column with --dataset-col",
        )
    if "metric" not in frame.columns:
        if mapping["metric"] != "metric":
            raise InputError(
                f"column {mapping['metric']!r} (--metric-col) not found; "
                f"columns are: {', '.join(columns)}",
                location=Location(str(path), 1),
                hint="pass the right column name to --metric-col",
            )
        frame["metric"] = options.metric or (
            "accuracy" if "prediction" in frame.columns else "score"
        )
    elif options.metric is not None:
        raise InputError(
            "--metric was given but the table has a metric column",
            location=Location(str(path), 1),
            hint="drop --metric, or map another column with --metric-col",
        )
    if "run" in frame.columns:
        frame["run"] = _maybe_numeric(frame["run"])
    for column in frame.columns:
        if column not in (
            "system",
            "dataset",
            "metric",
            "item",
            "score",
            "run",
            "prediction",
            "reference",
            SOURCE_LINE,
            *TEXT_ROLES,
        ):
            frame[column] = _maybe_numeric(frame[column])
    frame[SOURCE_FILE] = file_column(path, len(frame))
    return frame


def _text_columns(frame: pd.DataFrame, path: Path, options: LoadOptions) -> pd.DataFrame:
    """The columns ``--text-col NAME=ROLE`` names, under their role's name (item text,
    never a score: :mod:`reportgen.data._texts`)."""
    renames = {}
    for column, role in options.text_columns.items():
        if column not in frame.columns:
            raise InputError(
                f"column {column!r} (--text-col {column}={role}) not found; columns are: "
                f"{', '.join(str(c) for c in frame.columns if c != SOURCE_LINE)}",
                location=Location(str(path), 1),
                hint="pass the right column name to --text-col NAME=ROLE",
            )
        if column != role and role in frame.columns:
            raise InputError(
                f"--text-col {column}={role} would replace the existing column {role!r}",
                location=Location(str(path), 1),
                hint=f"rename one of the two columns, or drop --text-col {column}={role}",
            )
        if column in ("system", "dataset", "metric", "item", "score", "run"):
            raise InputError(
                f"--text-col {column}={role} names the table's {column} column",
                location=Location(str(path), 1),
                hint="item text is a column of its own, never a key or the score",
            )
        renames[column] = role
    return frame.rename(columns=renames) if renames else frame


def _accuracy_from_predictions(frame: pd.DataFrame, options: LoadOptions) -> pd.DataFrame:
    """Canonical ``prediction``/``reference`` columns and the exact-match score."""
    frame = frame.rename(
        columns={options.prediction_col: "prediction", options.reference_col: "reference"}
    )
    prediction = frame["prediction"].astype(object)
    reference = frame["reference"].astype(object)
    frame["prediction"] = prediction.where(prediction.notna(), None).map(
        lambda v: None if v is None else str(v).strip()
    )
    frame["reference"] = reference.where(reference.notna(), None).map(
        lambda v: None if v is None else str(v).strip()
    )
    frame["score"] = (frame["prediction"] == frame["reference"]).astype(np.float64)
    return frame


def _maybe_numeric(values: pd.Series) -> pd.Series:
    """Numbers read as text become numbers when every non-empty value is one."""
    if pd.api.types.is_numeric_dtype(values.dtype):
        return values
    try:
        converted = pd.to_numeric(values, errors="coerce")
    except OverflowError:  # a JSON integer with hundreds of digits: keep the values
        return values
    if (converted.notna() == values.notna()).all():
        return converted
    return values


register_adapter(LongTableAdapter())

"""The wide table: one column per system, one row per item (CSV, TSV or Parquet).

The metric is ``--metric`` or, by default, the file name without suffix; the dataset is
``--dataset`` or, by default, the name of the folder holding the file. So
``reportgen inspect results/`` on ``results/precision.csv`` and ``results/recall.csv``
reads one dataset ``results`` with two metrics. An item-id column named ``item`` (or
``--item-col``) is used when present; otherwise items are the row numbers 1, 2, ...
A missing cell means that system was not scored on that item. A column whose cells are
mostly not numbers (a question, an answer) is the items' content, never a system: text
is not read as a score (a note names such columns).
"""

from __future__ import annotations

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
    Problem,
)
from reportgen.data.adapters._tabular import is_tabular, read_table, text_columns
from reportgen.data.adapters.long import file_stem
from reportgen.errors import InputError, Location

__all__ = ["WideTableAdapter"]


class WideTableAdapter(Adapter):
    name = "wide"
    description = "wide table, one column per system and one row per item (CSV, TSV, Parquet)"
    priority = 60
    generic = True

    def sniff(self, path: Path, head: bytes | None) -> bool:
        return is_tabular(path, head)

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        frame, lines = read_table(path)
        if options.item_col in frame.columns:
            items = frame.pop(options.item_col).astype(str).str.strip()
            if (items.isin(["", "nan"])).any():
                row = int(np.argmax(items.isin(["", "nan"]).to_numpy()))
                raise InputError(
                    f"empty item id in column {options.item_col!r}",
                    location=Location(str(path), int(lines[row]), options.item_col),
                    hint="give every row an item id",
                )
        elif options.item_col != "item":
            raise InputError(
                f"column {options.item_col!r} (--item-col) not found; columns "
                f"are: {', '.join(frame.columns)}",
                location=Location(str(path), 1),
                hint="pass the right column name to --item-col",
            )
        else:
            items = pd.Series(np.arange(1, len(frame) + 1).astype(str))
        text, _ = text_columns(frame, list(frame.columns))
        problems = []
        if text:
            frame = frame.drop(columns=text)
            problems.append(
                Problem(
                    "info",
                    f"text column{'s' if len(text) > 1 else ''} {', '.join(map(repr, text))} "
                    "read as the items' content, not as systems' scores",
                    location=Location(str(path), 1),
                )
            )
        if frame.shape[1] == 0:
            raise InputError(
                "the table has no system columns"
                + (
                    f" (the text columns {', '.join(map(repr, text))} hold no scores)"
                    if text
                    else ""
                ),
                location=Location(str(path), 1),
                hint="a wide table has one column per system, each holding scores",
            )
        systems = list(frame.columns)
        n = len(frame)
        long = pd.DataFrame(
            {
                "system": np.repeat(np.asarray(systems, dtype=object), n),
                "dataset": options.dataset or path.resolve().parent.name,
                "metric": options.metric or file_stem(path),
                "item": np.tile(items.to_numpy(dtype=object), len(systems)),
                "score": np.concatenate([frame[c].to_numpy(dtype=object) for c in systems]),
                SOURCE_FILE: str(path),
                SOURCE_LINE: np.tile(lines, len(systems)),
            }
        )
        return AdapterResult(long, problems=problems)


register_adapter(WideTableAdapter())

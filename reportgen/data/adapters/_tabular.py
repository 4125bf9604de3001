"""Reading delimited text and Parquet tables, shared by the long and wide adapters."""

from __future__ import annotations

import csv
import gzip
import io
import re
from pathlib import Path

import pandas as pd

from reportgen.data.adapters._base import decode_text
from reportgen.errors import InputError, Location

__all__ = ["TABULAR_SUFFIXES", "header_columns", "is_tabular", "read_table", "table_kind"]

TABULAR_SUFFIXES = (".csv", ".tsv", ".tab", ".parquet", ".pq")
_PARQUET_MAGIC = b"PAR1"


def _base_name(path: Path) -> str:
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def table_kind(path: Path, head: bytes | None) -> str | None:
    """``"csv"``, ``"tsv"``, ``"parquet"``, ``"jsonl"`` or None, from name and content."""
    if head is None:
        return None
    if head.startswith(_PARQUET_MAGIC):
        return "parquet"
    name = _base_name(path)
    if name.endswith((".tsv", ".tab")):
        return "tsv"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    return None


def is_tabular(path: Path, head: bytes | None) -> bool:
    return table_kind(path, head) in ("csv", "tsv", "parquet")


def _text(path: Path) -> str:
    data = path.read_bytes()
    if path.name.lower().endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputError(f"cannot decompress the gzip file: {exc}",
                             location=Location(str(path)),
                             hint="the file may be truncated; regenerate it") from None
    return decode_text(data, path)


def header_columns(path: Path, head: bytes) -> list[str] | None:
    """Column names of a CSV/TSV/Parquet file without reading it all (None if unknown)."""
    kind = table_kind(path, head)
    if kind == "parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            return None
        try:
            return list(pq.read_schema(path).names)
        except Exception:  # corrupt file: let read_table report it
            return None
    if kind not in ("csv", "tsv"):
        return None
    if path.name.lower().endswith(".gz"):
        try:
            with gzip.open(path, "rt", encoding="utf-8-sig", errors="replace") as fh:
                first = fh.readline()
        except (OSError, EOFError):
            return None
    else:
        first = head.decode("utf-8-sig", errors="replace").splitlines()[0] if head else ""
    delimiter = "\t" if kind == "tsv" else ","
    row = next(csv.reader([first], delimiter=delimiter), [])
    return [c.strip() for c in row]


def read_table(path: Path, head: bytes | None = None) -> tuple[pd.DataFrame, int]:
    """Read a CSV/TSV (optionally gzipped) or Parquet file.

    Text cells are kept as strings (empty cells become NaN) so that item ids keep their
    exact spelling and bad numbers can be reported with their line. Returns the frame
    and the line number of its first data row (2 for text with a header, 1 for Parquet
    row numbers).
    """
    if head is None:
        with path.open("rb") as fh:
            head = fh.read(8)
    kind = table_kind(path, head)
    if kind == "parquet":
        return _read_parquet(path), 1
    delimiter = "\t" if kind == "tsv" else ","
    text = _text(path)
    if not text.strip():
        raise InputError("the file is empty", location=Location(str(path)),
                         hint="check that the evaluation finished writing its output")
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, dtype=str,
                            keep_default_na=False, na_values=[""], skipinitialspace=True)
    except pd.errors.ParserError as exc:
        message = str(exc)
        match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
        if match:
            raise InputError(f"expected {match[1]} fields, found {match[3]}",
                             location=Location(str(path), int(match[2])),
                             hint="check the delimiter and quoting on that line "
                                  f"({'tab' if delimiter == chr(9) else 'comma'}-separated "
                                  "expected)") from None
        raise InputError(f"cannot parse the table: {message.strip()}",
                         location=Location(str(path)),
                         hint="check that it is a well-formed CSV/TSV file") from None
    except pd.errors.EmptyDataError:
        raise InputError("the file has no header row", location=Location(str(path)),
                         hint="the first line must name the columns") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    _check_header(frame, path)
    if frame.empty:
        raise InputError("the table has a header but no rows", location=Location(str(path), 1),
                         hint="check that the evaluation wrote its per-item results")
    return frame, 2


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("reading Parquet needs pyarrow", location=Location(str(path)),
                         hint="pip install 'reportgen[parquet]'") from None
    try:
        frame = pq.read_table(path).to_pandas()
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise InputError(f"cannot read the Parquet file: {exc}", location=Location(str(path)),
                         hint="the file may be truncated or not Parquet") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    _check_header(frame, path)
    if frame.empty:
        raise InputError("the table has no rows", location=Location(str(path)),
                         hint="check that the evaluation wrote its per-item results")
    return frame


def _check_header(frame: pd.DataFrame, path: Path) -> None:
    seen: set[str] = set()
    for column in frame.columns:
        base = re.sub(r"\.\d+$", "", column)
        if column in seen or (base != column and base in frame.columns):
            raise InputError(f"column {base!r} appears more than once in the header",
                             location=Location(str(path), 1),
                             hint="give every column a distinct name")
        if column == "" or column.startswith("Unnamed:"):
            raise InputError("a column has no name", location=Location(str(path), 1),
                             hint="name every column in the header row (an index column "
                                  "written by pandas can be dropped with index=False)")
        seen.add(column)

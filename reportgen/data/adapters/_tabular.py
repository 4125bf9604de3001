"""Reading delimited text and Parquet tables, shared by the long and wide adapters."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.data.adapters._base import (
    COMPRESSED_SUFFIXES,
    head_text,
    input_cap,
    read_bytes,
    read_text,
    to_float,
    too_large_error,
)
from reportgen.errors import InputError, Location

__all__ = [
    "TABULAR_SUFFIXES",
    "header_columns",
    "ints_as_floats",
    "is_tabular",
    "read_table",
    "table_kind",
    "text_columns",
]

TABULAR_SUFFIXES = (".csv", ".tsv", ".tab", ".parquet", ".pq")
_PARQUET_MAGIC = b"PAR1"


def _base_name(path: Path) -> str:
    name = path.name.lower()
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


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


def header_columns(path: Path, head: bytes) -> list[str] | None:
    """Column names of a CSV/TSV/Parquet file without reading it all (None if unknown);
    ``head`` is the start of the file (expanded, for a compressed one)."""
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
    first = next(iter(head_text(head).splitlines()), "")
    delimiter = "\t" if kind == "tsv" else ","
    row = next(csv.reader([first], delimiter=delimiter), [])
    return [c.strip() for c in row]


def read_table(path: Path, head: bytes | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """Read a CSV/TSV (optionally gzipped) or Parquet file.

    Text cells are kept as strings (empty cells become NaN) so that item ids keep their
    exact spelling and bad numbers can be reported with their line. Returns the frame
    and, per row, the line of the file it starts on (for Parquet, the row number from 1).
    """
    if head is None:
        with path.open("rb") as fh:
            head = fh.read(8)
    kind = table_kind(path, head)
    if kind == "parquet":
        frame = _read_parquet(path)
        return frame, np.arange(1, len(frame) + 1, dtype=np.int64)
    if kind is None and _base_name(path).endswith(".json"):
        raise _json_not_a_table(path)
    delimiter = "\t" if kind == "tsv" else ","
    text = read_text(path)
    if not text.strip():
        raise InputError(
            "the file is empty",
            location=Location(str(path)),
            hint="check that the evaluation finished writing its output",
        )
    frame = _read_csv_fast(text, delimiter)
    try:
        if frame is None:
            frame = pd.read_csv(
                io.StringIO(text),
                sep=delimiter,
                dtype=str,
                keep_default_na=False,
                na_values=[""],
                skipinitialspace=True,
            )
    except pd.errors.ParserError as exc:
        message = str(exc)
        match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
        if match:
            raise InputError(
                f"expected {match[1]} fields, found {match[3]}",
                location=Location(str(path), int(match[2])),
                hint="check the delimiter and quoting on that line "
                f"({'tab' if delimiter == chr(9) else 'comma'}-separated "
                "expected)",
            ) from None
        if "EOF inside string" in message:
            raise InputError(
                "a quoted field is never closed",
                location=Location(str(path), _open_quote_line(text, delimiter)),
                hint='a field that starts with " runs until the next "; close '
                'it, or write a " inside a field as ""',
            ) from None
        raise InputError(
            f"cannot parse the table: {message.strip()}",
            location=Location(str(path)),
            hint="check that it is a well-formed CSV/TSV file",
        ) from None
    except pd.errors.EmptyDataError:
        raise InputError(
            "the file has no header row",
            location=Location(str(path)),
            hint="the first line must name the columns",
        ) from None
    frame.columns = [str(c).strip() for c in frame.columns]
    _check_header(frame, path)
    if frame.shape[1] == 1:
        _check_delimiter(str(frame.columns[0]), delimiter, path)
    if frame.empty:
        raise InputError(
            "the table has a header but no rows",
            location=Location(str(path), 1),
            hint="check that the evaluation wrote its per-item results",
        )
    return frame, _row_lines(text, delimiter, len(frame))


def _json_not_a_table(path: Path) -> InputError:
    """The error for a JSON document read as a table (``--format long`` or ``wide`` on a
    harness's ``.json`` output), naming the format it was detected as, if any."""
    from reportgen.data.adapters import detect_format  # the registry imports this module

    try:
        detected: str | None = detect_format(path).name
    except InputError:
        detected = None
    like = (
        f"it reads as {detected} output: drop --format to detect it, or pass --format {detected}"
        if detected and detected not in ("long", "wide")
        else "a long table may be JSON lines (.jsonl, one object per line), not one JSON document"
    )
    return InputError(
        "this is a JSON document, not a table (CSV, TSV, Parquet or JSON lines)",
        location=Location(str(path)),
        hint=like,
    )


def _read_csv_fast(text: str, delimiter: str) -> pd.DataFrame | None:
    """The table read by pyarrow's multithreaded CSV reader (about 4x faster than
    pandas' C parser on two million rows), with the C parser's conventions: every cell
    a string, empty cells NaN, spaces after a delimiter dropped. None when pyarrow is
    not installed or cannot read it (a quoted line break, a ragged row, ...): the C
    parser then reads it, and says where a malformed file goes wrong."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return None
    try:
        frame = pd.read_csv(
            io.BytesIO(text.encode("utf-8")),
            sep=delimiter,
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            engine="pyarrow",
        )
    except Exception:  # noqa: BLE001 - any failure: the C parser reads it and explains
        return None
    for column in frame.columns:
        values = frame[column]
        if values.str.startswith(" ").any():  # skipinitialspace, as the C parser does
            frame[column] = values.str.lstrip(" ").replace("", np.nan)
    return frame


def _row_lines(text: str, delimiter: str, n_rows: int) -> np.ndarray:
    """The line each data row starts on: blank lines (which the parser skips) and line
    breaks inside quoted fields move the rows below them down."""
    contiguous = np.arange(2, n_rows + 2, dtype=np.int64)
    returns = text.count("\r")  # none in most files: no third pass for "\r\n"
    breaks = text.count("\n") + (returns - text.count("\r\n") if returns else 0)
    if breaks + (not text.endswith(("\n", "\r"))) == n_rows + 1:
        return contiguous  # one line per row: the common case, no second parse
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    starts, start = [], 1
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                starts.append(start)
            start = reader.line_num + 1
    except csv.Error:
        return contiguous
    # the first record is the header; fall back if the two parsers disagree on the rows
    return np.asarray(starts[1:], dtype=np.int64) if len(starts) == n_rows + 1 else contiguous


def _open_quote_line(text: str, delimiter: str) -> int | None:
    """The line on which the record with an unclosed quoted field starts."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1
    try:
        for _ in reader:
            start = reader.line_num + 1
    except csv.Error:
        return start
    return None


_DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}


def _check_delimiter(header: str, delimiter: str, path: Path) -> None:
    """A one-column table whose header holds another delimiter was split wrongly."""
    found = [d for d in _DELIMITERS if d != delimiter and d in header]
    if found:
        raise InputError(
            f"the header has a single column {header[:60]!r}: the file seems to be "
            f"{_DELIMITERS[found[0]]}-separated, not {_DELIMITERS[delimiter]}-separated",
            location=Location(str(path), 1),
            hint="separate the columns with commas in a .csv file or with tabs in a .tsv file",
        )


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "reading Parquet needs pyarrow",
            location=Location(str(path)),
            hint="pip install pyarrow (a dependency of reportgen: reinstall it)",
        ) from None
    import pyarrow as pa

    data = read_bytes(path)
    try:
        parquet = pq.ParquetFile(pa.BufferReader(data))
        _check_parquet_size(parquet.metadata, path)
        table = parquet.read()
        table.validate(full=True)  # damaged text (invalid UTF-8) fails here, not later
    except InputError:
        raise
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise InputError(
            f"cannot read the Parquet file: {exc}",
            location=Location(str(path)),
            hint="the file may be truncated or not Parquet",
        ) from None
    _check_parquet_types(table.schema, path)
    frame = table.to_pandas()
    frame.columns = [str(c).strip() for c in frame.columns]
    _check_header(frame, path)
    if frame.empty:
        raise InputError(
            "the table has no rows",
            location=Location(str(path)),
            hint="check that the evaluation wrote its per-item results",
        )
    return frame


def _check_parquet_size(metadata: object, path: Path) -> None:
    """Refuse a Parquet file whose pages expand beyond the input cap, from its footer
    (before any page is decompressed): the uncompressed size of its column chunks, and at
    least 8 bytes per value (dictionary and run-length encodings are smaller than that)."""
    cap = input_cap()
    rows = metadata.num_rows  # type: ignore[attr-defined]
    columns = metadata.num_columns  # type: ignore[attr-defined]
    uncompressed = sum(
        metadata.row_group(k).total_byte_size  # type: ignore[attr-defined]
        for k in range(metadata.num_row_groups)  # type: ignore[attr-defined]
    )
    if max(uncompressed, 8 * rows * columns) > cap:
        raise too_large_error(path, cap)


def _check_parquet_types(schema: object, path: Path) -> None:
    """Binary columns hold bytes, which are neither names nor numbers."""
    import pyarrow as pa

    for column in schema:  # type: ignore[attr-defined]
        kind = column.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if (
            pa.types.is_binary(kind)
            or pa.types.is_large_binary(kind)
            or pa.types.is_fixed_size_binary(kind)
        ):
            raise InputError(
                f"column {column.name!r} holds binary data (Parquet type {column.type}), "
                "not text or numbers",
                location=Location(str(path), None, column.name),
                hint="write names and ids as strings (e.g. in pandas "
                "`df[col] = df[col].str.decode('utf-8')` before to_parquet), or drop "
                "the column",
            )


def _check_header(frame: pd.DataFrame, path: Path) -> None:
    seen: set[str] = set()
    for column in frame.columns:
        base = re.sub(r"\.\d+$", "", column)
        if column in seen or (base != column and base in frame.columns):
            raise InputError(
                f"column {base!r} appears more than once in the header",
                location=Location(str(path), 1),
                hint="give every column a distinct name",
            )
        if column == "" or column.startswith("Unnamed:"):
            raise InputError(
                "a column has no name",
                location=Location(str(path), 1),
                hint="name every column in the header row (an index column "
                "written by pandas can be dropped with index=False)",
            )
        seen.add(column)


#: How many present cells of a column decide whether it holds text.
_TEXT_SAMPLE = 1000
#: Cell values that mark a missing score, not text.
_MISSING_MARKERS = frozenset({"", "na", "n/a", "nan", "null", "none", "-", "--", "?"})


def text_columns(frame: pd.DataFrame, columns: list[str]) -> tuple[list[str], dict[str, pd.Series]]:
    """The columns of ``frame`` that hold text rather than numbers, and the values of
    the others.

    A column is text when fewer than half of its first :data:`_TEXT_SAMPLE` present cells
    (not blank, not a missing-value marker such as ``N/A``) are numbers: a question, an
    answer, a list of contexts. A number column with a few bad cells stays a number
    column, so that the bad cells are reported where they are.
    """
    text, numbers = [], {}
    for column in columns:
        values = frame[column]
        if values.dtype.kind in "biuf":
            numbers[column] = values.astype(np.float64)
            continue
        cells = values.dropna().iloc[: 4 * _TEXT_SAMPLE]
        is_str = cells.map(lambda v: isinstance(v, str))
        marker = cells.where(is_str, "0").astype(str).str.strip().str.lower()
        present = cells[~marker.isin(_MISSING_MARKERS)].iloc[:_TEXT_SAMPLE]
        if len(present) == 0:
            numbers[column] = values
            continue
        # lists (retrieved contexts), dicts and booleans are not numbers
        scalar = present.map(
            lambda v: isinstance(v, (str, int, float, np.number)) and not isinstance(v, bool)
        )
        parsed = pd.to_numeric(ints_as_floats(present.where(scalar)), errors="coerce")
        if parsed.notna().sum() < 0.5 * len(present):
            text.append(column)
        else:
            numbers[column] = values
    return text, numbers


def ints_as_floats(values: pd.Series) -> pd.Series:
    """A column of objects with its Python integers as floats, one too large for a
    float as ``±inf`` (:func:`to_float`; ``pd.to_numeric`` raises OverflowError on an
    integer of 400 digits, which JSON allows). Other columns are returned as they are.

    >>> ints_as_floats(pd.Series([10**400, "x", 2], dtype=object)).tolist()
    [inf, 'x', 2.0]
    """
    if values.dtype != object:
        return values
    return values.map(
        lambda v: to_float(v) if isinstance(v, int) and not isinstance(v, bool) else v
    )

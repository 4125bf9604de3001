"""The contract every input adapter fulfils, and the helpers they share.

An adapter turns one input path (a file or a folder) into an :class:`AdapterResult`: a long
pandas frame with the canonical columns of the data contract plus provenance, and what the
source says about metrics (direction), exclusions (errored samples, ...) and problems.
Validation happens once, afterwards, in :func:`reportgen.data.build_score_table`; adapters
only parse, locate and name things.
"""

from __future__ import annotations

import abc
import codecs
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import pandas as pd

from reportgen.errors import InputError, Location

__all__ = [
    "Adapter",
    "AdapterResult",
    "Exclusion",
    "LoadOptions",
    "Problem",
    "SOURCE_FILE",
    "SkippedInput",
    "SOURCE_LINE",
    "decode_text",
    "head_text",
    "iter_jsonl",
    "jsonl_lines",
    "lfs_pointer_error",
    "parse_json_int",
    "read_json",
    "skip_input",
    "to_float",
]

#: Provenance columns every adapter frame carries: the file a row came from and its
#: 1-based line (or record) number, ``-1`` where the format has no lines (Parquet rows are
#: numbered from 1 instead). They let validation say *where* a bad row is.
SOURCE_FILE = "_file"
SOURCE_LINE = "_line"

#: How many bytes of a file the format detection looks at.
SNIFF_BYTES = 65536


@dataclass(frozen=True)
class LoadOptions:
    """Options that tell adapters how to read their inputs.

    Parameters
    ----------
    format
        Adapter name; ``None`` detects it from each path's content.
    system_col, dataset_col, metric_col, item_col, score_col, run_col
        Column names of a long table (the canonical names by default). ``item_col`` is
        also the optional item-id column of a wide table.
    prediction_col, reference_col
        Columns holding a system's prediction and the reference label of an item. A long
        table with both and no score column gets the metric ``accuracy`` (1 when the
        prediction equals the reference, else 0) and keeps both columns for corpus-level
        metrics (F1, precision, recall).
    dataset
        Dataset name for inputs that do not name one (wide tables, long tables without a
        dataset column). Default: the name of the folder holding the file.
    metric
        Metric name for inputs that do not name one (a wide table). Default: the file stem.
    lm_eval_filter
        lm-evaluation-harness filter to keep (e.g. ``"strict-match"``); default: the
        first filter listed for each task.
    nan_policy
        ``"drop"`` (default): a missing score (empty cell, ``NaN``, ``null``) means the
        system was not scored on that item; the row is dropped and counted in the
        exclusions. ``"raise"``: a missing score is an error. Infinite scores are always
        an error.
    strict_inputs
        ``False`` (default): an input that holds no usable result next to good ones (a
        cancelled or empty Inspect log, a missing lm-eval samples file, ...) is skipped
        with a warning and listed in :attr:`AdapterResult.skipped`. ``True``: any such
        skip is an error.
    """

    format: str | None = None
    system_col: str = "system"
    dataset_col: str = "dataset"
    metric_col: str = "metric"
    item_col: str = "item"
    score_col: str = "score"
    run_col: str = "run"
    prediction_col: str = "prediction"
    reference_col: str = "reference"
    dataset: str | None = None
    metric: str | None = None
    lm_eval_filter: str | None = None
    nan_policy: Literal["drop", "raise"] = "drop"
    strict_inputs: bool = False


@dataclass(frozen=True)
class SkippedInput:
    """An input file (or part of one) that was not read, and why."""

    path: str
    reason: str
    format: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason, "format": self.format}


@dataclass(frozen=True)
class Exclusion:
    """Observations left out of the analysis, with the reason and where they came from."""

    reason: str
    count: int
    dataset: str | None = None
    metric: str | None = None
    system: str | None = None
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "count": self.count, "dataset": self.dataset,
                "metric": self.metric, "system": self.system, "source": self.source}


@dataclass(frozen=True)
class Problem:
    """A finding about the input that is not fatal (fatal ones raise :class:`InputError`)."""

    severity: Literal["warning", "info"]
    message: str
    location: Location | None = None
    dataset: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "message": self.message,
                "location": str(self.location) if self.location else None,
                "dataset": self.dataset}


@dataclass
class AdapterResult:
    """What an adapter read from one path.

    Attributes
    ----------
    frame
        One row per observed score with columns ``system``, ``dataset``, ``metric``,
        ``item``, ``score`` (float, may be NaN), optionally ``run``, any extra columns
        (item metadata or system attributes), and the provenance columns
        :data:`SOURCE_FILE` and :data:`SOURCE_LINE`.
    directions
        Metric name -> ``"higher"`` or ``"lower"`` where the source says which is better.
    exclusions
        Observations the adapter dropped (e.g. errored samples), with reasons.
    problems
        Non-fatal findings (e.g. two models scored on different documents).
    system_attributes
        System name -> {attribute: value} the source records (hyperparameters).
    skipped
        Inputs the adapter skipped (see :attr:`LoadOptions.strict_inputs`).
    duplicate_hint
        What to do about the same (system, dataset, metric, item, run) given twice, in
        this format's terms; validation uses it instead of the long-table hint.
    descriptive
        Statistics the source records that are not compared (token counts, run times,
        ...): one row per ``system, dataset, statistic`` with its ``mean`` over ``n``
        items. Shown as data, never tested or ranked.
    format, source
        The adapter name and the path read; set by :func:`read_inputs`.
    """

    frame: pd.DataFrame
    directions: dict[str, Literal["higher", "lower"]] = field(default_factory=dict)
    exclusions: list[Exclusion] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    system_attributes: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[SkippedInput] = field(default_factory=list)
    duplicate_hint: str | None = None
    descriptive: list[dict[str, Any]] = field(default_factory=list)
    format: str | None = None
    source: str | None = None


class Adapter(abc.ABC):
    """One input format. Subclasses set ``name``, ``description`` and implement
    :meth:`sniff` and :meth:`read`; :func:`reportgen.data.adapters.register_adapter`
    makes them available to ``--format`` and to detection."""

    #: The name used by ``--format``.
    name: ClassVar[str]
    #: One line for ``--help`` and error messages.
    description: ClassVar[str]
    #: Detection order: lower runs first (specific formats before generic ones).
    priority: ClassVar[int] = 50
    #: Whether several inputs of this format must be read together (system naming or
    #: cross-checks that span files); such adapters implement :meth:`read_many`.
    combine_inputs: ClassVar[bool] = False

    @abc.abstractmethod
    def sniff(self, path: Path, head: bytes | None) -> bool:
        """Whether ``path`` looks like this format. ``head`` is the first
        :data:`SNIFF_BYTES` bytes of a file, or ``None`` when ``path`` is a folder."""

    def claims(self, path: Path, head: bytes | None, options: LoadOptions) -> bool:
        """Detection with the user's options at hand (e.g. column mappings); by default
        :meth:`sniff`."""
        return self.sniff(path, head)

    @abc.abstractmethod
    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        """Read ``path``; raise :class:`~reportgen.errors.InputError` with a location
        for anything malformed."""

    def read_many(self, paths: list[Path], options: LoadOptions) -> AdapterResult:
        """Read several inputs of this format as one (adapters with ``combine_inputs``)."""
        raise NotImplementedError(f"the {self.name} adapter reads one input at a time")


# --------------------------------------------------------------------------- helpers


def skip_input(options: LoadOptions, path: Path | str, reason: str, *, hint: str,
               format: str | None = None) -> SkippedInput:
    """Skip an input that holds no usable result: a :class:`SkippedInput` to list, or,
    with :attr:`LoadOptions.strict_inputs`, an :class:`InputError` with ``hint``."""
    if options.strict_inputs:
        raise InputError(reason, location=Location(str(path)),
                         hint=f"{hint}; without --strict-inputs such an input is skipped "
                              "with a warning")
    return SkippedInput(str(path), reason, format)


#: The first line of a Git LFS pointer file (https://git-lfs.com/spec/v1).
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"


def lfs_pointer_error(path: Path, head: bytes) -> InputError | None:
    """The error for a Git LFS pointer file standing in for the data, else ``None``."""
    if not head.removeprefix(b"\xef\xbb\xbf").startswith(_LFS_POINTER):
        return None
    return InputError("this is a Git LFS pointer, not the data",
                      location=Location(str(path)),
                      hint="run `git lfs pull` in the repository that holds it (or "
                           "`git lfs fetch` then `git lfs checkout`), then read it again")


_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _bom_encoding(data: bytes) -> str:
    """``"utf-16"`` when ``data`` starts with a UTF-16 byte-order mark, else UTF-8 (with an
    optional BOM). Windows tools ("Unicode text" in Excel, PowerShell's ``>``) write UTF-16
    with a BOM; without one UTF-16 cannot be told from binary data."""
    return "utf-16" if data.startswith(_UTF16_BOMS) else "utf-8-sig"


def head_text(head: bytes) -> str:
    """The first bytes of a file as text for format detection: decoded like
    :func:`decode_text` (a cut-off last character is replaced, never an error)."""
    return head.decode(_bom_encoding(head), errors="replace")


def decode_text(data: bytes, path: Path) -> str:
    """Decode file bytes as UTF-8 (a BOM is accepted) or, after a UTF-16 byte-order mark,
    UTF-16; otherwise raise an InputError that names the line and byte of the first
    invalid sequence, or the first NUL byte (UTF-16 without a BOM, or a binary file)."""
    lfs = lfs_pointer_error(path, data[:len(_LFS_POINTER) + 3])
    if lfs is not None:
        raise lfs
    encoding = _bom_encoding(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        if encoding == "utf-16":
            raise InputError("the file starts with a UTF-16 byte-order mark but is not "
                             f"valid UTF-16 (at byte offset {exc.start})",
                             location=Location(str(path)),
                             hint="the file may be truncated or damaged; save it again as "
                                  "UTF-8") from None
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            location=Location(str(path), line),
            hint="save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8 FILE`)",
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(
            "the file holds NUL bytes, so it is not a text file: UTF-16 without a "
            "byte-order mark, or binary data",
            location=Location(str(path), text.count("\n", 0, nul) + 1),
            hint="save the file as UTF-8 (e.g. `iconv -f utf-16le -t utf-8 FILE`), or pass "
                 "the right file")
    return text


def to_float(value: float) -> float:
    """``float(value)``, with an integer too large for a float as ``±inf`` (JSON allows
    any number of digits; validation then reports the score as infinite)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def read_json(path: Path) -> Any:
    """Parse a whole JSON file, with the line and column of a syntax error."""
    text = decode_text(path.read_bytes(), path)
    if not text.strip():
        raise InputError("the file is empty", location=Location(str(path)),
                         hint="check that the evaluation finished writing its output")
    try:
        return json.loads(text, parse_constant=_json_constant, parse_int=parse_json_int)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}",
                         location=Location(str(path), exc.lineno, exc.colno),
                         hint="the file may be truncated or hand-edited; regenerate it") from None


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for each non-blank line of a JSON-lines file.

    Raises InputError for an empty file, a line that is not JSON (with line and column),
    or a line that is not a JSON object.
    """
    text = decode_text(path.read_bytes(), path)
    seen = False
    for lineno, line in enumerate(jsonl_lines(text), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line, parse_constant=_json_constant,
                                parse_int=parse_json_int)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}",
                             location=Location(str(path), lineno, exc.colno),
                             hint="each line must be one complete JSON object; the file "
                                  "may be truncated") from None
        if not isinstance(record, dict):
            raise InputError(f"expected a JSON object, found {type(record).__name__}",
                             location=Location(str(path), lineno),
                             hint="each line must be one JSON object {...}")
        seen = True
        yield lineno, record
    if not seen:
        raise InputError("the file is empty (no JSON lines)", location=Location(str(path)),
                         hint="check that the evaluation finished writing its output")


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSON-lines text: split at ``\\n`` (``\\r\\n`` too) only, not at the
    other line breaks ``str.splitlines`` knows (U+2028, U+0085, ...), which JSON strings
    may hold unescaped."""
    return [line.removesuffix("\r") for line in text.split("\n")]


#: Python refuses to turn longer digit strings into ints (sys.get_int_max_str_digits).
_MAX_INT_DIGITS = 4000


def parse_json_int(text: str) -> int | float:
    """A JSON integer: an int, or as a float (``±inf``) when it has thousands of digits,
    which Python's ``int()`` refuses; validation then reports it as infinite."""
    return int(text) if len(text) <= _MAX_INT_DIGITS else float(text)


def _json_constant(name: str) -> float:
    # JSON has no NaN/Infinity, but Python writes them; accept and let validation decide.
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]

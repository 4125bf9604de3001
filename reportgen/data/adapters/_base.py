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
import contextlib
import contextvars
import hashlib
import io
import json
import math
import os
import re
import stat
import weakref
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from reportgen.config import defaults
from reportgen.data.adapters import _system_names
from reportgen.errors import InputError, Location, file_system_error, path_text
from reportgen.execution import parse_memory_size
from reportgen.names import NanPolicy, NonfinitePolicy
from reportgen.records import fields_record

__all__ = [
    "COMPRESSED_SUFFIXES",
    "DEFAULT_MAX_INPUT_BYTES",
    "MAX_JSON_DEPTH",
    "SOURCE_FILE",
    "SOURCE_LINE",
    "Adapter",
    "AdapterResult",
    "Exclusion",
    "FileDigest",
    "LoadOptions",
    "NotReadAlone",
    "Problem",
    "ReadLog",
    "file_column",
    "SkippedInput",
    "check_regular_file",
    "decode_text",
    "drop_nonfinite",
    "excerpt",
    "given_system",
    "format_bytes",
    "head_text",
    "input_cap",
    "iter_jsonl",
    "read_jsonl",
    "jsonl_lines",
    "lfs_pointer_error",
    "open_zip",
    "parse_json",
    "parse_json_int",
    "read_bytes",
    "read_input",
    "read_json",
    "read_log",
    "read_text",
    "read_zip_entry",
    "skip_input",
    "to_float",
    "too_large_error",
]

#: Provenance columns every adapter frame carries: the file a row came from and its
#: 1-based line (or record) number, ``-1`` where the format has no lines (Parquet rows are
#: numbered from 1 instead). They let validation say *where* a bad row is.
SOURCE_FILE = "_file"
SOURCE_LINE = "_line"


def file_column(path: Any, rows: int) -> pd.Categorical:
    """The :data:`SOURCE_FILE` column of ``rows`` rows read from one file: a categorical
    of one name (a byte per row, where a string per row took 44 MB of two million rows).
    """
    return pd.Categorical.from_codes(np.zeros(rows, dtype=np.int8), categories=[str(path)])


#: How many bytes of a file the format detection looks at.
SNIFF_BYTES = 65536

#: The default cap on the bytes one input may take once read and decompressed (8 GiB):
#: the declared default of ``--max-input-bytes`` / ``[input] max_input_bytes``, in bytes.
DEFAULT_MAX_INPUT_BYTES = parse_memory_size(defaults("input")["max_input_bytes"])


#: The declared defaults (:mod:`reportgen.config`) of the fields below.
_DEFAULT = defaults("input")


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
    system
        System name for inputs that record none (a DeepEval test run, a Ragas table of
        one pipeline, an EvalPlus results file): ``NAME`` for every such input, or
        ``FILE=NAME,FILE2=NAME2`` per input (:func:`given_system`). Default: the name of
        the run's folder (DeepEval) or of the file (Ragas, EvalPlus).
    lm_eval_filter
        lm-evaluation-harness filter to keep (e.g. ``"strict-match"``); default: the
        first filter listed for each task.
    nan_policy
        ``"drop"`` (default): a missing score (empty cell, ``NaN``, ``null``) means the
        system was not scored on that item; the row is dropped and counted in the
        exclusions. ``"raise"``: a missing score is an error. Infinite scores are always
        an error.
    nonfinite
        An infinite or NaN per-item value in a harness's log (lm-eval's ``mae`` of a
        regression task, a judge's score, ...), which the user cannot edit: ``"drop"``
        (default) leaves the value out, with one warning per file and metric giving
        their number and the harness's own field; ``"error"`` stops with an error at
        the first one. Tables the user writes (long, wide) keep the table rule: an
        infinite score is an error there.
    errors_as_failures
        ``False`` (default): a test that errored in a harness that records errors apart
        from failures (promptfoo's ``failureReason`` 2) is left out and counted, with a
        warning. ``True``: it scores 0, as the harness's own pass rate counts it.
    strict_inputs
        ``False`` (default): an input that holds no usable result next to good ones (a
        cancelled or empty Inspect log, a missing lm-eval samples file, ...) is skipped
        with a warning and listed in :attr:`AdapterResult.skipped`. ``True``: any such
        skip is an error.
    direction
        Which way metrics are better, as ``"METRIC=lower"`` or ``"METRIC=higher"``
        texts (:attr:`directions`); they win over the config's ``[metrics.NAME]
        direction``, the direction an input records and the inference from the name.
    max_input_bytes
        The most bytes one input file may take once read: its size, or for a compressed
        input (``.gz``, ``.zst``, the entries of an Inspect ``.eval`` archive, the pages
        of a Parquet file) what it expands to. Above it the read stops with an error
        before the memory is used (a decompression bomb, a file that is not what it
        seems). Default :data:`DEFAULT_MAX_INPUT_BYTES` (8 GiB).
    no_text
        ``True``: read no item text (``--no-text``); adapters skip the text fields of
        their logs and a long table's text columns are dropped.
    text_col
        A long table's text columns, as ``"NAME=ROLE"`` texts (:attr:`text_columns`);
        the columns named ``input``, ``output``, ``target`` and ``explanation`` are
        item text without it.
    text_limit
        The most characters kept of one item text (``--text-limit``); a longer text is
        cut there and marked as cut.
    max_walk_files
        The most files and folders a search of the folders given looks into (a folder
        walk and the adapters' look for their files,
        :mod:`reportgen.data.adapters._files`; each counted once): past it the search
        stops with an error naming this bound, instead of reading part of a folder that
        holds far more than results. Default 20,000.
    """

    format: str | None = None
    system_col: str = _DEFAULT["system_col"]
    dataset_col: str = _DEFAULT["dataset_col"]
    metric_col: str = _DEFAULT["metric_col"]
    item_col: str = _DEFAULT["item_col"]
    score_col: str = _DEFAULT["score_col"]
    run_col: str = _DEFAULT["run_col"]
    prediction_col: str = _DEFAULT["prediction_col"]
    reference_col: str = _DEFAULT["reference_col"]
    dataset: str | None = None
    metric: str | None = None
    system: str | None = None
    lm_eval_filter: str | None = None
    nan_policy: NanPolicy = _DEFAULT["nan_policy"]
    nonfinite: NonfinitePolicy = _DEFAULT["nonfinite"]
    errors_as_failures: bool = _DEFAULT["errors_as_failures"]
    strict_inputs: bool = _DEFAULT["strict_inputs"]
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES
    max_walk_files: int = _DEFAULT["max_walk_files"]
    direction: tuple[str, ...] = ()
    no_text: bool = _DEFAULT["no_text"]
    text_col: tuple[str, ...] = ()
    text_limit: int = _DEFAULT["text_limit"]

    def __post_init__(self) -> None:
        # a notebook parameter (JSON) gives a list; one text is one override
        for name in ("direction", "text_col"):
            given = getattr(self, name)
            given = (given,) if isinstance(given, str) else given
            object.__setattr__(self, name, tuple(str(t) for t in given or ()))
        _ = self.directions  # a malformed override fails now
        _ = self.text_columns
        if isinstance(self.text_limit, bool) or not (
            isinstance(self.text_limit, int) and self.text_limit >= 1
        ):
            raise InputError(
                f"text_limit = {self.text_limit!r} is not a whole number of characters >= 1",
                location=Location("--text-limit"),
                hint="e.g. --text-limit 4000, or --no-text to keep no item text",
            )

    @property
    def text_columns(self) -> dict[str, str]:
        """``text_col`` as ``{column: role}`` (:func:`reportgen.data._texts.parse_text_columns`).

        Raises
        ------
        InputError
            A text that is not ``NAME=ROLE`` with a known role, or a role given twice.
        """
        from reportgen.data._texts import parse_text_columns

        return dict(parse_text_columns(self.text_col))

    @property
    def directions(self) -> dict[str, Literal["higher", "lower"]]:
        """``direction`` as ``{metric: "lower" | "higher"}`` (a later override of the
        same metric wins).

        Raises
        ------
        InputError
            An override that is not ``METRIC=lower`` or ``METRIC=higher``.
        """
        out: dict[str, Literal["higher", "lower"]] = {}
        for text in self.direction:
            name, sep, way = text.rpartition("=")
            way = way.strip().lower()
            if not sep or not name.strip() or way not in ("lower", "higher"):
                raise InputError(
                    f"{text!r} is not METRIC=lower or METRIC=higher",
                    location=Location("--direction"),
                    hint="e.g. --direction wer=lower or --direction bleu=higher",
                )
            out[name.strip()] = "lower" if way == "lower" else "higher"
        return out


@dataclass(frozen=True)
class FileDigest:
    """One file as an adapter read it: the SHA-256 of the very bytes parsed, computed
    while they were read (once), and their number.

    ``path`` is the path as it was opened, ``resolved`` its absolute form (symbolic
    links resolved), so that ``reportgen verify`` finds the file again later.
    """

    path: str
    resolved: str
    sha256: str
    bytes: int

    def to_dict(self) -> dict[str, Any]:
        return fields_record(self)


@dataclass(frozen=True)
class SkippedInput:
    """An input file (or part of one) that was not read, and why."""

    path: str
    reason: str
    format: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return fields_record(self)


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
        return fields_record(self)


@dataclass(frozen=True)
class Problem:
    """A finding about the input that is not fatal (fatal ones raise :class:`InputError`)."""

    severity: Literal["warning", "info"]
    message: str
    location: Location | None = None
    dataset: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "message": self.message,
            "location": str(self.location) if self.location else None,
            "dataset": self.dataset,
        }


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
    battles
        Pairwise outcomes the input holds (arena votes, pairwise judges), one row per
        battle (:mod:`reportgen.data._battles`), or None.
    named_by_path
        Systems the adapter named after a file or folder because the format records
        none: system -> that path. When two inputs get the same name so, each is named
        after its folders instead (:mod:`reportgen.data.adapters._naming`).
    format, source
        The adapter name and the path read; set by :func:`read_inputs`.
    files
        Every file the adapter read through :func:`read_bytes` (and the helpers built on
        it), with the SHA-256 of the bytes it parsed; set by :func:`read_inputs`.
    """

    frame: pd.DataFrame
    directions: dict[str, Literal["higher", "lower"]] = field(default_factory=dict)
    exclusions: list[Exclusion] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    system_attributes: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[SkippedInput] = field(default_factory=list)
    duplicate_hint: str | None = None
    descriptive: list[dict[str, Any]] = field(default_factory=list)
    named_by_path: dict[str, str] = field(default_factory=dict)
    battles: pd.DataFrame | None = None
    format: str | None = None
    source: str | None = None
    files: list[FileDigest] = field(default_factory=list)


class NotReadAlone(InputError):
    """A file a harness wrote that is read only with others of its run (an lm-eval
    samples file with its results file): given alone, the error says what it is and
    what to give instead; given with them, it is read as part of their run."""


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
    #: Whether the format is a generic table (long, wide) that any CSV or Parquet file
    #: matches: a folder walk reads such files only directly inside the given folder,
    #: never from its subfolders, where a harness's own files are looked for.
    generic: ClassVar[bool] = False
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

    def refuse(self, path: Path, head: bytes) -> NotReadAlone | None:
        """For a file this format's harness wrote that is not read on its own (an
        lm-eval samples file without its results file), the error that says what it is
        and what to give instead; else None. Detection raises it when no format claims
        the file."""
        return None

    @abc.abstractmethod
    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        """Read ``path``; raise :class:`~reportgen.errors.InputError` with a location
        for anything malformed."""

    def read_many(self, paths: list[Path], options: LoadOptions) -> AdapterResult:
        """Read several inputs of this format as one (adapters with ``combine_inputs``)."""
        raise NotImplementedError(f"the {self.name} adapter reads one input at a time")


# --------------------------------------------------------------------------- helpers


def skip_input(
    options: LoadOptions, path: Path | str, reason: str, *, hint: str, format: str | None = None
) -> SkippedInput:
    """Skip an input that holds no usable result: a :class:`SkippedInput` to list, or,
    with :attr:`LoadOptions.strict_inputs`, an :class:`InputError` with ``hint``."""
    if options.strict_inputs:
        raise InputError(
            reason,
            location=Location(str(path)),
            hint=f"{hint}; without --strict-inputs such an input is skipped with a warning",
        )
    return SkippedInput(str(path), reason, format)


#: The first line of a Git LFS pointer file (https://git-lfs.com/spec/v1).
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"


def lfs_pointer_error(path: Path, head: bytes) -> InputError | None:
    """The error for a Git LFS pointer file standing in for the data, else ``None``."""
    if not head.removeprefix(b"\xef\xbb\xbf").startswith(_LFS_POINTER):
        return None
    return InputError(
        "this is a Git LFS pointer, not the data",
        location=Location(str(path)),
        hint="run `git lfs pull` in the repository that holds it (or "
        "`git lfs fetch` then `git lfs checkout`), then read it again",
    )


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
    lfs = lfs_pointer_error(path, data[: len(_LFS_POINTER) + 3])
    if lfs is not None:
        raise lfs
    encoding = _bom_encoding(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        if encoding == "utf-16":
            raise InputError(
                "the file starts with a UTF-16 byte-order mark but is not "
                f"valid UTF-16 (at byte offset {exc.start})",
                location=Location(str(path)),
                hint="the file may be truncated or damaged; save it again as UTF-8",
            ) from None
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
            "the right file",
        )
    return text


def to_float(value: float) -> float:
    """``float(value)``, with an integer too large for a float as ``±inf`` (JSON allows
    any number of digits; validation then reports the score as infinite)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def excerpt(value: Any, limit: int = 60) -> str:
    """A short excerpt of foreign content for a message: the ``repr`` of ``value`` cut to
    ``limit`` characters. Text holding a function's source (a harness config may
    serialise a custom aggregation as its code) is named by its function instead, so a
    message never carries kilobytes of someone else's code.

    >>> excerpt("def span_f1_agg(items):\\n    return 1\\n" * 50)
    "custom function 'span_f1_agg' (1,850 characters of source)"
    >>> excerpt("x" * 100, limit=10)
    "'xxxxxx..."
    """
    if isinstance(value, str):
        match = _FUNCTION_SOURCE.search(value)
        if match and len(value) > limit:
            return f"custom function {match[1]!r} ({len(value):,} characters of source)"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_FUNCTION_SOURCE = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(", re.MULTILINE)


def given_system(options: LoadOptions, path: Path) -> str | None:
    """The system name ``--system`` gives the input ``path`` (of a format that records
    none): ``NAME`` names every such input; ``FILE=NAME,FILE2=NAME2`` names each input
    that ``FILE`` matches as the user typed it (a path relative or absolute, trailing
    folders and name, or the bare name with or without its suffix; a DeepEval run also
    by the folder holding its ``.deepeval``). ``None`` when the option names none for
    ``path``. Within :func:`~reportgen.data.adapters.read_inputs` the option is resolved
    once against every input (:mod:`._system_names`: a mapping that matches no input is
    an error there, a text none of whose left sides names an input is one ``NAME``).

    >>> given_system(LoadOptions(system="bm25.csv=BM25,dense=Dense"), Path("r/dense.jsonl"))
    'Dense'
    >>> given_system(LoadOptions(system="rag-v2"), Path("x.csv"))
    'rag-v2'
    """
    text = options.system
    if not text:
        return None
    resolved = _system_names.current()
    if resolved is not None and resolved.text == text:
        return resolved.for_path(path)
    if "=" not in text:
        return text
    for part in text.split(","):  # this input alone: its own part, if any
        at = len(part)
        while (at := part.rfind("=", 0, at)) > 0:
            if _system_names.names_input(part[:at], path) and part[at + 1 :].strip():
                return part[at + 1 :].strip()
    return None


def _nonfinite_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def drop_nonfinite(
    frame: pd.DataFrame,
    mask: np.ndarray,
    options: LoadOptions,
    *,
    harness: str,
    field: str = "{metric!r}",
    hint: str = "fix the metric and run the evaluation again",
) -> tuple[pd.DataFrame, list[Exclusion], list[Problem]]:
    """Apply :attr:`LoadOptions.nonfinite` to the rows of ``frame`` flagged in ``mask``:
    per-item values a harness wrote as ``Infinity``, ``-Infinity`` or ``NaN`` (not
    ``null``, a missing value, which :attr:`LoadOptions.nan_policy` governs).

    ``field`` formats the harness's own name of the value from a row (its keys are the
    frame's columns, e.g. ``"metricsData[{metric!r}].score"``), so that messages name
    what the file holds, never a column it does not have. With ``"drop"`` the rows are
    removed, counted in one :class:`Exclusion` and one warning per file, field, dataset
    and system; with ``"error"`` the first one raises an :class:`InputError` at its file
    and line.
    """
    mask = np.asarray(mask, dtype=bool)
    if not mask.any():
        return frame, [], []
    bad = frame.loc[mask]
    if options.nonfinite == "error":
        first = bad.iloc[0]
        name = field.format(**first.to_dict())
        line = int(first[SOURCE_LINE]) if SOURCE_LINE in first and first[SOURCE_LINE] > 0 else None
        raise InputError(
            f"{harness} wrote {name} = {_nonfinite_text(float(first['score']))} for item "
            f"{excerpt(str(first['item']))} of system {excerpt(str(first['system']))}: "
            "not a finite number",
            location=Location(str(first[SOURCE_FILE]), line),
            hint=f"the value is {harness}'s own output: leave such values out with "
            f"--nonfinite drop (a warning gives their number), or {hint}",
        )
    exclusions, problems = [], []
    keys = [SOURCE_FILE, "dataset", "metric", "system"]
    for (path, dataset, metric, system), group in bad.groupby(
        [bad[k].astype(str) for k in keys], sort=False
    ):
        row = group.iloc[0].to_dict()
        name = field.format(**row)
        kinds = sorted({_nonfinite_text(v) for v in group["score"].to_numpy(dtype=float)})
        count = len(group)
        problems.append(
            Problem(
                "warning",
                f"{count} per-item value{'s' if count != 1 else ''} of {harness}'s {name} "
                f"{'are' if count != 1 else 'is'} {' or '.join(kinds)}, not a finite number: "
                f"left out for system {excerpt(system)} (--nonfinite drop; "
                "--nonfinite error stops instead)",
                location=Location(path),
                dataset=dataset,
            )
        )
        exclusions.append(
            Exclusion(
                f"non-finite value of {name} ({' or '.join(kinds)})",
                count,
                dataset=dataset,
                metric=metric,
                system=system,
                source=path,
            )
        )
    return frame.loc[~mask], exclusions, problems


# --------------------------------------------------------------------------- reading
#
# Every byte an adapter parses comes through read_bytes: the file is opened without
# blocking (a FIFO with no writer must not hang the run), refused unless it is a regular
# file, read once, hashed as read (the manifest records what was parsed, not what the file
# holds at the end of the run), and capped. Compressed inputs are expanded as a stream
# that stops at the cap, so a small archive that expands to gigabytes fails fast.


class ReadLog:
    """The files read during one adapter call, with their digests, and the size cap.

    :func:`reportgen.data.adapters.read_inputs` opens one around each adapter call
    (:func:`read_log`); every :func:`read_bytes` inside it records the file it read and
    uses its cap. Outside one, files are read with the default cap and not recorded.
    """

    def __init__(self, max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES) -> None:
        self.max_input_bytes = max_input_bytes
        self._files: dict[str, FileDigest] = {}

    def record(self, digest: FileDigest) -> None:
        """Add a file read; the same file read twice must give the same bytes."""
        known = self._files.get(digest.resolved)
        if known is not None and known.sha256 != digest.sha256:
            raise InputError(
                "the file changed while reportgen was reading it",
                location=Location(digest.path),
                hint="wait until the program writing it has finished (or "
                "copy it elsewhere first), then run again",
            )
        self._files.setdefault(digest.resolved, digest)

    @property
    def files(self) -> list[FileDigest]:
        """The files read, in the order they were first read."""
        return list(self._files.values())


_READ_LOG: contextvars.ContextVar[ReadLog | None] = contextvars.ContextVar(
    "reportgen_read_log", default=None
)


@contextlib.contextmanager
def read_log(max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES) -> Iterator[ReadLog]:
    """Record every file read inside the ``with`` block, and cap each at
    ``max_input_bytes``."""
    log = ReadLog(max_input_bytes)
    token = _READ_LOG.set(log)
    try:
        yield log
    finally:
        _READ_LOG.reset(token)


def input_cap(limit: int | None = None) -> int:
    """``limit``, else the cap of the current :func:`read_log`, else the default."""
    if limit is not None:
        return limit
    log = _READ_LOG.get()
    return log.max_input_bytes if log is not None else DEFAULT_MAX_INPUT_BYTES


def format_bytes(n: int) -> str:
    """A byte count for messages: ``"8 GiB"``, ``"1.5 MiB"``, ``"512 bytes"``."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n:,} bytes"


def too_large_error(path: Path | str, cap: int, *, size: int | None = None) -> InputError:
    """The error for an input above the cap: its ``size``, or (None) what it expands to."""
    if size is None:
        what = f"expands to more than {format_bytes(cap)} when decompressed"
        why = "a small compressed file that expands this much is likely a decompression bomb; "
    else:
        what = f"is {format_bytes(size)}, more than {format_bytes(cap)}"
        why = ""
    return InputError(
        f"the input {what}, the limit on one input (--max-input-bytes)",
        location=Location(str(path)),
        hint=f"{why}if the data are what you expect, raise the limit with "
        "--max-input-bytes SIZE (e.g. 16GiB) or max_input_bytes in the "
        "[input] section of the config",
    )


_NOT_REGULAR = (
    (stat.S_ISFIFO, ("a pipe (a FIFO, or a process substitution such as <(...))")),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(path: Path | str, mode: int) -> InputError:
    kind = next((name for test, name in _NOT_REGULAR if test(mode)), "a special file")
    hint = (
        "pass a regular file that holds evaluation results"
        if not stat.S_ISFIFO(mode)
        else "reportgen reads an input more than once (a report's notebook reads it "
        "again) and records its SHA-256 for `reportgen verify`: save the data to "
        "a file first (e.g. `cat SOURCE > results.csv`) and pass that file"
    )
    return InputError(
        f"this is {kind}, not a regular file", location=Location(str(path)), hint=hint
    )


def check_regular_file(path: Path | str) -> None:
    """Raise :class:`InputError` when ``path`` exists but is neither a regular file nor a
    folder (a FIFO, a process substitution, ``/dev/zero``, a socket). It only looks at the
    file's type, so it never blocks; a missing path is left to the caller."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise _not_regular(path, mode)


_CHUNK = 1 << 20


def read_bytes(path: Path | str, *, limit: int | None = None) -> bytes:
    """The bytes of a file, read once and recorded with their SHA-256.

    Parameters
    ----------
    path
        A regular file.
    limit
        The most bytes to read; default: the cap of the current :func:`read_log`
        (``--max-input-bytes``), else :data:`DEFAULT_MAX_INPUT_BYTES`.

    Raises
    ------
    InputError
        The file is missing, unreadable, a folder, not a regular file (a FIFO, a device:
        checked on the open descriptor, without blocking), or larger than ``limit``.
    """
    cap = input_cap(limit)
    where = Location(path_text(path))
    if path_text(path) != str(path):
        raise InputError(
            "the file name is not valid UTF-8: reportgen could not record it in its "
            "manifest or show it",
            location=where,
            hint="rename it to a UTF-8 name (e.g. `convmv -f latin1 -t utf-8 --notest "
            "FILE`), then read it again",
        )
    try:
        # O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError("no such file", location=where, hint="check the path") from None
    except IsADirectoryError:
        raise InputError(
            "this is a folder, not a file", location=where, hint="pass the files inside it"
        ) from None
    except OSError as exc:
        raise file_system_error(exc, where.file, reading=True) from None
    with open(fd, "rb", buffering=0) as fh:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(
                "this is a folder, not a file", location=where, hint="pass the files inside it"
            )
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
        if info.st_size > cap:
            raise too_large_error(path, cap, size=info.st_size)
        try:
            data = fh.read(info.st_size) or b""
            if len(data) == info.st_size:  # the whole file in one read: the usual case
                tail = fh.read(_CHUNK)
                parts = [data, tail] if tail else []
            else:
                parts, tail = [data], b""
            if parts:  # read beyond one call (over 2 GiB), or the file grew meanwhile
                total = sum(len(p) for p in parts)
                while chunk := fh.read(_CHUNK):
                    total += len(chunk)
                    if total > cap:
                        raise too_large_error(path, cap, size=total)
                    parts.append(chunk)
                data = b"".join(parts)
        except OSError as exc:
            raise file_system_error(exc, where.file, reading=True) from None
    digest = hashlib.sha256(data).hexdigest()
    log = _READ_LOG.get()
    if log is not None:
        log.record(FileDigest(str(path), str(Path(path).resolve()), digest, len(data)))
    return data


#: Suffixes of the compressed inputs read_input expands.
COMPRESSED_SUFFIXES = (".gz", ".zst")


def read_input(path: Path | str, *, limit: int | None = None) -> bytes:
    """The bytes of an input file (:func:`read_bytes`), expanded as a stream when its
    name ends in ``.gz`` (gzip) or ``.zst`` (Zstandard); the expanded size is capped
    like the file's (``--max-input-bytes``)."""
    path = Path(path)
    data = read_bytes(path, limit=limit)
    name = path.name.lower()
    if name.endswith(".gz"):
        return _expand_gzip(data, path, input_cap(limit))
    if name.endswith(".zst"):
        return _expand_zstd(data, path, input_cap(limit))
    return data


def _gather(stream: Any, path: Path, cap: int) -> bytes:
    parts, total = [], 0
    while chunk := stream.read(_CHUNK):
        total += len(chunk)
        if total > cap:
            raise too_large_error(path, cap)
        parts.append(chunk)
    return b"".join(parts)


def _expand_gzip(data: bytes, path: Path, cap: int) -> bytes:
    import gzip

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb") as stream:
            return _gather(stream, path, cap)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(
            f"cannot decompress the gzip file: {exc}",
            location=Location(str(path)),
            hint="the file may be truncated (regenerate it), or not "
            "gzip-compressed at all (then drop .gz from its name)",
        ) from None


def _expand_zstd(data: bytes, path: Path, cap: int) -> bytes:
    import zstandard

    try:
        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(data), read_across_frames=True
        )
        with reader as stream:
            return _gather(stream, path, cap)
    except zstandard.ZstdError as exc:
        raise InputError(
            f"cannot decompress the Zstandard file: {exc}",
            location=Location(str(path)),
            hint="the file may be truncated (regenerate it), or not "
            "Zstandard-compressed at all (then drop .zst from its name)",
        ) from None


def read_text(path: Path | str, *, limit: int | None = None) -> str:
    """An input file as text: :func:`read_input`, then :func:`decode_text`."""
    path = Path(path)
    return decode_text(read_input(path, limit=limit), path)


def open_zip(path: Path | str, *, limit: int | None = None) -> zipfile.ZipFile:
    """A ZIP archive (an Inspect ``.eval`` log) read once through :func:`read_bytes`.

    Read its entries with :func:`read_zip_entry`, which caps what they expand to.
    ``zipfile.BadZipFile`` (and ``OSError``, ``ValueError``) from a damaged archive are
    left to the caller, which knows what the archive should be.
    """
    return zipfile.ZipFile(io.BytesIO(read_bytes(path, limit=limit)))


#: What the entries read so far expanded to, per open archive.
_EXPANDED: weakref.WeakKeyDictionary[zipfile.ZipFile, int] = weakref.WeakKeyDictionary()


def read_zip_entry(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    *,
    location: Location | None = None,
    limit: int | None = None,
) -> bytes:
    """The bytes of one archive entry; the entries of ``archive`` read so far may
    together expand to at most the cap (``--max-input-bytes``).

    ``zipfile`` never expands an entry beyond the size its header declares, so the
    declared size is checked against what is left before anything is decompressed.
    ``NotImplementedError`` (an unknown compression method) and the errors of a damaged
    entry are left to the caller.
    """
    cap = input_cap(limit)
    used = _EXPANDED.get(archive, 0)
    if used + info.file_size > cap:
        raise too_large_error(
            location.file
            if location and location.file
            else f"{archive.filename or 'archive'}/{info.filename}",
            cap,
        )
    # counted before reading: an entry the caller decompresses itself (Zstandard on
    # Pythons before 3.14, after NotImplementedError here) is bounded by the same size
    _EXPANDED[archive] = used + info.file_size
    return archive.read(info)


# --------------------------------------------------------------------------- JSON

#: Arrays and objects nested deeper than this are refused (no result file nests so
#: deeply; Python's parser would otherwise stop with a RecursionError near 1,000).
MAX_JSON_DEPTH = 500
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def parse_json(
    text: str,
    path: Path | str,
    *,
    line: int | None = None,
    hint: str = "the file may be truncated or hand-edited; regenerate it",
) -> Any:
    """Parse JSON text read from ``path`` (``line``: the line it starts on, for one line
    of a JSON-lines file), with the line and column of a syntax error and a clear error,
    not a ``RecursionError``, for nesting deeper than :data:`MAX_JSON_DEPTH`."""
    first = 1 if line is None else line
    try:
        return json.loads(text, parse_constant=_json_constant, parse_int=parse_json_int)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg}",
            location=Location(str(path), first + exc.lineno - 1, exc.colno),
            hint=hint,
        ) from None
    except RecursionError:
        pass
    where = Location(str(path), None if line is None else line)
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_JSON_DEPTH:
                pos = match.start()
                lineno = text.count("\n", 0, pos)
                where = Location(
                    str(path), first + lineno, pos - (text.rfind("\n", 0, pos) + 1) + 1
                )
                break
        elif token in ("]", "}"):
            depth -= 1
    raise InputError(
        f"the JSON nests arrays or objects more than {MAX_JSON_DEPTH:,} levels deep",
        location=where,
        hint="no evaluation output nests this deeply: the file is damaged or "
        "not a result file; regenerate it",
    )


def read_json(path: Path) -> Any:
    """Parse a whole JSON file (:func:`read_text`, :func:`parse_json`)."""
    text = read_text(path)
    if not text.strip():
        raise InputError(
            "the file is empty",
            location=Location(str(path)),
            hint="check that the evaluation finished writing its output",
        )
    return parse_json(text, path)


def iter_jsonl(path: Path, text: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for each non-blank line of a JSON-lines file
    (``text``: its contents, when already read).

    Raises InputError for an empty file, a line that is not JSON (with line and column),
    or a line that is not a JSON object.
    """
    if text is None:
        text = read_text(path)
    seen = False
    for lineno, line in enumerate(jsonl_lines(text), start=1):
        if not line.strip():
            continue
        record = parse_json(
            line,
            path,
            line=lineno,
            hint="each line must be one complete JSON object; the file may be truncated",
        )
        if not isinstance(record, dict):
            raise InputError(
                f"expected a JSON object, found {type(record).__name__}",
                location=Location(str(path), lineno),
                hint="each line must be one JSON object {...}",
            )
        seen = True
        yield lineno, record
    if not seen:
        raise InputError(
            "the file is empty (no JSON lines)",
            location=Location(str(path)),
            hint="check that the evaluation finished writing its output",
        )


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], np.ndarray]:
    """The records of a JSON-lines file and the line each one is on.

    When every line is one JSON object and only the last ones may be blank (what the
    harnesses write), the text is parsed as one JSON array by a single call of the C
    parser, several times faster than a call per line. Anything else (blank lines, a
    line that is not JSON or not an object, a number Python refuses) is read by
    :func:`iter_jsonl`, which numbers the lines and names the line and column of an
    error; both give the same records.
    """
    text = read_text(path)
    body = text.replace("\r\n", "\n") if "\r" in text else text
    # blank lines at the end hold no record; one elsewhere joins into an empty array
    # element, which the parser refuses, so such a file is read line by line
    body = body.rstrip()
    if body:
        count = body.count("\n") + 1
        try:
            records = json.loads(
                "[" + body.replace("\n", ",") + "]",
                parse_constant=_json_constant,
                parse_int=parse_json_int,
            )
        except (ValueError, RecursionError):  # a bad line: iter_jsonl says which
            records = None
        # a value spread over lines would join into fewer records: read line by line
        whole = isinstance(records, list) and len(records) == count
        if whole and set(map(type, records)) == {dict}:
            return records, np.arange(1, count + 1, dtype=np.int64)
    lines, rows = [], []
    for lineno, record in iter_jsonl(path, text):
        lines.append(lineno)
        rows.append(record)
    return rows, np.asarray(lines, dtype=np.int64)


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

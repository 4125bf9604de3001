"""Inspect AI logs: ``.eval`` archives, ``.json`` logs, and folders of them.

One Inspect log is one task evaluated with one model. The adapter maps

============================== =============================================================
Inspect                        data contract
============================== =============================================================
``eval.task``                  ``dataset``
``eval.model`` (+ a label)     ``system`` (see *System names* below)
sample ``id``                  ``item`` (as a string: ``1`` -> ``"1"``)
sample ``epoch``               ``run``
each scorer's ``value``        ``score`` of the metric named after the scorer; a dict value
                               ``{"k": v}`` of scorer ``s`` gives metric ``s/k``
============================== =============================================================

Score values become floats as Inspect's default ``value_to_float`` maps them: ``"C"`` 1,
``"I"`` 0, ``"P"`` 0.5, ``"N"`` 0 (exact, upper case), booleans 1/0, numbers as they are,
the strings ``yes``/``true`` 1 and ``no``/``false`` 0 (any case), strings holding a finite
number as that number, ``null`` as a missing score (NaN). Anything else (another string, a
list, a nested dict) is an :class:`~reportgen.errors.InputError`: Inspect would silently
score it 0.

Samples that errored are excluded and counted (``Exclusion("sample errored")``), unless
the eval ran with ``score_on_error`` and the sample carries scores: then its scores are
kept, as Inspect's own metrics keep them. Samples with no score at all are counted as
``"sample has no score"`` (``metric=None``); a sample that lacks one scorer the log's
other samples have is counted under that metric.

System names
------------
The system is the model (``eval.model``). When one read (a folder) holds several logs of
the same task and model whose configuration differs, each system name gets a label in
parentheses with the settings that tell them apart, e.g. ``mockllm/alpha (hint=True)``.
The label is built from the first of these settings, in this order, that make the logs
distinct: task arguments (``name=value``), generate config (``temperature=0.7``), the
``--solver`` and its arguments (``solver=...``, ``solver.name=...``), model arguments
(``model_args.name=...``), the plan's solver names (``plan=a+b``) and, last, a short hash
of the plan's solver parameters (``plan_params=1a2b3c4``). A setting a log does not
record is left out of its label. Logs of the same task and model with the same
configuration are read as one system (e.g. a run split with ``--limit``); an ``info``
problem says so, and samples they share are then reported as duplicates by validation.
Labels are only computed among the logs of one read: pass a folder, not the files one by
one, when logs share a model.

Formats
-------
A ``.eval`` log is a ZIP archive with ``header.json`` (``_journal/start.json`` while the
eval runs), per-sample entries ``samples/<id>_epoch_<n>.json`` and ``summaries.json``
(``_journal/summaries/<n>.json`` while it runs). The adapter reads the summaries, which
hold each sample's id, epoch, scores and error without the transcript, and falls back to
the sample entries when an archive has no summaries. When the archive repeats a name
(a re-run sample), the last entry wins, as in Inspect. Older inspect-ai versions compress
entries with DEFLATE; recent ones (0.3.285 does) with Zstandard (ZIP method 93), which
Python's ``zipfile`` reads from Python 3.14 on; on older Pythons the adapter decompresses
those entries with the zstandard package. A ``.json`` log holds the same header keys
(``version``, ``status``, ``eval``, ``plan``, ...) and a ``samples`` list. The adapter
parses both with the standard library (and zstandard); it never imports
``inspect_ai``.

Item text (unless ``--no-text``): ``input`` is the sample's input (chat messages as
``role: content`` paragraphs; a multiple-choice sample's ``choices`` follow it as
``A) ...`` lines), ``target`` its target, ``output`` the model's
``output.completion`` (else its last assistant message; an ``.eval`` archive's summaries
lack it, so it is read from the sample's own entry), and ``explanation`` each scorer's
``explanation`` for its metric.

Provenance: ``_file`` is the log file, ``_line`` the sample's 1-based record number in
the log (its position in ``summaries.json`` or ``samples``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import struct
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.data._texts import TEXT_ROLES, as_text, content_text
from reportgen.data.adapters import _files, register_adapter
from reportgen.data.adapters._base import (
    SNIFF_BYTES,
    SOURCE_FILE,
    SOURCE_LINE,
    Adapter,
    AdapterResult,
    Exclusion,
    LoadOptions,
    Problem,
    SkippedInput,
    decode_text,
    drop_nonfinite,
    excerpt,
    lfs_pointer_error,
    open_zip,
    parse_json,
    parse_json_int,
    read_json,
    read_zip_entry,
    skip_input,
    to_float,
)
from reportgen.errors import InputError, Location
from reportgen.plaintext import count, verb

__all__ = ["InspectAdapter", "score_value_to_float"]

_ZIP_MAGIC = b"PK\x03\x04"
_ZIP_ZSTANDARD = 93
_HEADER = "header.json"
_START = "_journal/start.json"
_SUMMARIES = "summaries.json"
_JOURNAL_SUMMARIES = re.compile(r"^_journal/summaries/(\d+)\.json$")
_SAMPLE_ENTRY = re.compile(r"^samples/.+\.json$")
#: JSON files Inspect writes into log folders that are not logs.
_SIDE_FILES = frozenset({"logs.json", "listing.json", "eval-set.json"})
_STATUSES = ("started", "success", "cancelled", "error")
#: Inspect writes the keys of a JSON log in this order ("the order of these fields is
#: important for the log file format", inspect_ai.log.EvalLog).
_JSON_LOG_HEAD = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"')
#: Inspect's default value_to_float sentinels: CORRECT, INCORRECT, PARTIAL, NOANSWER.
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_VALUE_HINT = (
    "Inspect score values must be numbers, booleans, C/I/P/N, yes/no/true/false, "
    "numeric strings, or a dict of those; make the scorer return one of them"
)
_CORRUPT_HINT = (
    "the log was cut off or damaged while being written or copied: copy it "
    "again; for a crashed eval, `inspect log recover` can rebuild the log"
)
_NOT_A_LOG_HINT = (
    "pass an Inspect AI log (`inspect eval` writes .eval archives, or .json "
    "with --log-format json), or choose another --format"
)

_RETRY_HINT = (
    "wait for the eval to finish, or rerun it (`inspect eval-retry LOG` resumes a "
    "failed or cancelled eval)"
)
_NO_SAMPLES_HINT = (
    "the eval was probably run with --no-log-samples (log_samples=False); "
    "rerun it with samples logged"
)
_UNSCORED_HINT = (
    "score the log (`inspect score LOG`), or rerun the eval; errored samples "
    "can be retried with `inspect eval-retry LOG`"
)
_DUPLICATE_HINT = (
    "the same sample and epoch of one task and model is in two inputs: a log "
    "given twice (a folder and a file in it, or a .json copy of an .eval "
    "log); pass each log once"
)

_Row = tuple[str, str, int, float, int]  # metric, item, run, score, record number


class InspectAdapter(Adapter):
    """Read Inspect AI logs (see the module docstring for the mapping)."""

    name = "inspect"
    description = "Inspect AI logs (.eval zip archives and .json logs, or a folder of them)"
    priority = 20
    # systems are named across all logs (two logs of one model that differ in settings)
    combine_inputs = True

    def sniff(self, path: Path, head: bytes | None) -> bool:
        if head is None:
            return _folder_logs(path) is not None
        return _looks_like_log(path, head)

    def read(self, path: Path, options: LoadOptions) -> AdapterResult:
        return self.read_many([path], options)

    def read_many(self, paths: list[Path], options: LoadOptions) -> AdapterResult:
        files: list[Path] = []
        for path in paths:
            if path.is_dir():
                found = _folder_logs(path) or []
                if not found:
                    raise InputError(
                        "the folder holds no Inspect logs",
                        location=Location(str(path)),
                        hint="expected .eval files or Inspect .json logs "
                        "directly inside the folder",
                    )
                files.extend(found)
            else:
                files.append(path)
        logs: list[_Log] = []
        skipped: list[SkippedInput] = []
        for file in files:
            log = _parse_log(
                _load_log(file, text=not options.no_text),
                options.metric,
                text=not options.no_text,
            )
            if log.unusable is None:
                logs.append(log)
            else:
                reason, hint = log.unusable
                skipped.append(skip_input(options, file, reason, hint=hint, format=self.name))
        if not logs:
            # nothing good to keep: the (first) bad log is the error
            reason, hint = _first_unusable(files)
            raise InputError(reason, location=Location(str(files[0])), hint=hint)
        result = _result(logs)
        result.frame, dropped, more = drop_nonfinite(
            result.frame,
            np.isinf(result.frame["score"].to_numpy(dtype=np.float64)),
            options,
            harness="Inspect",
            field="score {metric!r}",
            hint="check the scorer that produced it",
        )
        result.exclusions += dropped
        result.problems += more
        result.skipped = skipped
        return result


# --------------------------------------------------------------------------- detection


def _looks_like_log(path: Path, head: bytes) -> bool:
    if head.startswith(_ZIP_MAGIC):
        return path.suffix.lower() == ".eval" or _zip_has_header(path)
    if path.suffix.lower() == ".eval":
        return True  # reading says it is not a zip archive
    return bool(_JSON_LOG_HEAD.match(head.removeprefix(b"\xef\xbb\xbf"))) and b'"eval"' in head


def _zip_has_header(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False
    return _HEADER in names or _START in names


def _folder_logs(folder: Path) -> list[Path] | None:
    """The Inspect logs directly inside ``folder``, or None when it holds none or also
    holds data files that are not Inspect logs (the registry then reads file by file)."""
    from reportgen.data.adapters import _DATA_SUFFIXES  # the registry's notion of data

    logs, others = [], 0
    for entry in _files.entries(folder):
        file = entry.path
        if entry.kind != "file" or file.name.startswith("."):
            continue
        if file.name in _SIDE_FILES or not file.name.lower().endswith(_DATA_SUFFIXES):
            continue
        head = _files.read_head(file, SNIFF_BYTES)
        if head is None:
            others += 1
            continue
        if head and _looks_like_log(file, head):
            logs.append(file)
        else:
            others += 1
    return logs if logs and not others else None


# --------------------------------------------------------------------------- loading


@dataclass(frozen=True)
class _Record:
    """One sample record: the parsed object, its 1-based position, where it is."""

    sample: Any
    number: int
    where: str


@dataclass
class _RawLog:
    path: Path
    header: dict[str, Any]
    header_where: str
    status: str
    records: list[_Record]


def _load_log(path: Path, *, text: bool = False) -> _RawLog:
    with path.open("rb") as fh:
        head = fh.read(64)
    lfs = lfs_pointer_error(path, head)
    if lfs is not None:
        raise lfs
    magic = head[: len(_ZIP_MAGIC)]
    if magic == _ZIP_MAGIC:
        return _load_eval(path, text=text)
    if path.suffix.lower() == ".eval":
        raise InputError(
            "not an Inspect log: the .eval file is not a zip archive",
            location=Location(str(path)),
            hint=_NOT_A_LOG_HINT,
        )
    return _load_json(path)


def _load_json(path: Path) -> _RawLog:
    data = read_json(path)
    where = str(path)
    if not isinstance(data, dict):
        raise InputError(
            f"not an Inspect log: the JSON is a {type(data).__name__}, not an object",
            location=Location(where),
            hint=_NOT_A_LOG_HINT,
        )
    missing = [key for key in ("status", "eval") if key not in data]
    if missing:
        raise InputError(
            "not an Inspect log: the JSON object lacks the "
            f"{'key' if len(missing) == 1 else 'keys'} " + ", ".join(repr(k) for k in missing),
            location=Location(where),
            hint=_NOT_A_LOG_HINT,
        )
    samples = data.get("samples")
    if samples is None:
        samples = []
    if not isinstance(samples, list):
        raise InputError(
            f"'samples' is a {type(samples).__name__}, not a list",
            location=Location(where),
            hint="regenerate the log with Inspect",
        )
    records = [_Record(sample, number, where) for number, sample in enumerate(samples, 1)]
    return _RawLog(path, data, where, _status(data, where), records)


def _load_eval(path: Path, *, text: bool = False) -> _RawLog:
    try:
        archive = open_zip(path)  # read once, hashed, capped
    except InputError:
        raise
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InputError(
            f"the .eval archive is truncated or corrupt ({exc})",
            location=Location(str(path)),
            hint=_CORRUPT_HINT,
        ) from None
    with archive:
        # a repeated name is a superseded entry (a re-run sample): the last one wins
        entries = {info.filename: info for info in archive.infolist()}
        if _HEADER in entries:
            name = _HEADER
        elif _START in entries:
            name = _START
        else:
            raise InputError(
                f"not an Inspect log: the archive has neither {_HEADER} nor {_START}",
                location=Location(str(path)),
                hint=_NOT_A_LOG_HINT,
            )
        header_where = f"{path}/{name}"
        header = _entry_json(archive, entries[name], path)
        if not isinstance(header, dict) or "eval" not in header:
            raise InputError(
                "not an Inspect log: the header has no 'eval' object",
                location=Location(header_where),
                hint=_NOT_A_LOG_HINT,
            )
        # a log still being written has only the start entry, and no status yet
        status = _status(header, header_where) if name == _HEADER else "started"
        records = _eval_records(archive, entries, path)
        if text:
            _add_outputs(archive, entries, path, records)
    return _RawLog(path, header, header_where, status, records)


def _add_outputs(
    archive: zipfile.ZipFile,
    entries: dict[str, zipfile.ZipInfo],
    path: Path,
    records: list[_Record],
) -> None:
    """The model's output of each sample record read from a summary, which holds the
    input, the target and the scores but not the output: taken from the sample's own
    entry (``samples/<id>_epoch_<n>.json``), read one at a time and kept as its text
    only."""
    for record in records:
        sample = record.sample
        if not isinstance(sample, dict) or "output" in sample or "messages" in sample:
            continue
        name = f"samples/{sample.get('id')}_epoch_{sample.get('epoch')}.json"
        if name not in entries:
            continue
        entry = _entry_json(archive, entries[name], path)
        if isinstance(entry, dict):
            sample[_OUTPUT_TEXT] = _output_text(entry)


#: The key under which a summary record carries the output text read from its entry.
_OUTPUT_TEXT = "_reportgen_output"


def _output_text(sample: dict[str, Any]) -> str | None:
    """What the model answered: ``output.completion``, else the last assistant message."""
    if _OUTPUT_TEXT in sample:
        kept = sample[_OUTPUT_TEXT]
        return kept if isinstance(kept, str) else None
    output = sample.get("output")
    completion = output.get("completion") if isinstance(output, dict) else None
    if isinstance(completion, str) and completion:
        return completion
    messages = sample.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "assistant":
                return content_text(message.get("content")) or None
    return completion if isinstance(completion, str) else None


def _eval_records(
    archive: zipfile.ZipFile, entries: dict[str, zipfile.ZipInfo], path: Path
) -> list[_Record]:
    """Sample records of an archive: summaries.json, else the journal's summaries, else
    the sample entries; one record per (id, epoch), the last one winning."""
    parts = [_SUMMARIES] if _SUMMARIES in entries else _journal_summaries(entries)
    records: list[_Record] = []
    if parts:
        for name in parts:
            summaries = _entry_json(archive, entries[name], path)
            if not isinstance(summaries, list):
                raise InputError(
                    f"{name} is a {type(summaries).__name__}, not a list",
                    location=Location(f"{path}/{name}"),
                    hint="regenerate the log with Inspect",
                )
            first = len(records) + 1
            records.extend(
                _Record(s, number, f"{path}/{name}") for number, s in enumerate(summaries, first)
            )
    else:
        for number, name in enumerate((n for n in entries if _SAMPLE_ENTRY.match(n)), 1):
            records.append(
                _Record(_entry_json(archive, entries[name], path), number, f"{path}/{name}")
            )
    return _last_per_sample(records)


def _journal_summaries(names: Iterable[str]) -> list[str]:
    """The ``_journal/summaries/<n>.json`` entries, in the order of ``n``."""
    numbered = []
    for name in names:
        match = _JOURNAL_SUMMARIES.match(name)
        if match:
            numbered.append((int(match.group(1)), name))
    return [name for _, name in sorted(numbered)]


def _last_per_sample(records: list[_Record]) -> list[_Record]:
    latest: dict[tuple[str, Any], _Record] = {}
    for record in records:
        sample = record.sample
        # a malformed id or epoch (a list, ...) is reported when the record is parsed
        key = (
            (str(sample.get("id")), repr(sample.get("epoch")))
            if isinstance(sample, dict)
            else ("", record.number)
        )
        latest[key] = record
    return list(latest.values())


def _status(header: dict[str, Any], where: str) -> str:
    status = header.get("status")
    if not isinstance(status, str):
        raise InputError(
            f"the log's 'status' is {status!r}, not a string",
            location=Location(where),
            hint=f"an Inspect log's status is one of {', '.join(_STATUSES)}",
        )
    return status


# --------------------------------------------------------------------------- zip entries


def _entry_json(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> Any:
    where = f"{path}/{info.filename}"
    text = decode_text(_entry_bytes(archive, info, path), Path(where))
    try:
        return json.loads(text, parse_constant=float, parse_int=parse_json_int)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg}",
            location=Location(where, exc.lineno, exc.colno),
            hint=_CORRUPT_HINT,
        ) from None
    except RecursionError:  # nested past the parser's stack: the reader's clear error
        return parse_json(text, where, hint=_CORRUPT_HINT)


def _entry_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    where = Location(f"{path}/{info.filename}")
    try:
        return read_zip_entry(archive, info, location=where)  # capped expansion
    except NotImplementedError:
        if info.compress_type != _ZIP_ZSTANDARD:
            raise InputError(
                f"the entry uses ZIP compression method {info.compress_type}, "
                "which reportgen cannot read",
                location=where,
                hint="convert the log: `inspect log convert --to json LOG`",
            ) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise InputError(
            f"cannot read the archive entry ({exc})", location=where, hint=_CORRUPT_HINT
        ) from None
    return _zstd_entry(archive, info, where)


def _zstd_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: Location) -> bytes:
    """Decompress a Zstandard entry on Pythons whose zipfile cannot (< 3.14)."""
    import zstandard

    raw = _raw_entry(archive, info, where)
    try:
        data = zstandard.ZstdDecompressor().decompress(raw, max_output_size=info.file_size)
    except zstandard.ZstdError as exc:
        raise InputError(
            f"cannot decompress the archive entry ({exc})", location=where, hint=_CORRUPT_HINT
        ) from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise InputError(
            "the archive entry fails its CRC check", location=where, hint=_CORRUPT_HINT
        )
    return data


def _raw_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: Location) -> bytes:
    """The compressed bytes of an entry: past its local file header (30 bytes, then the
    name and the extra field, APPNOTE 4.3.7), ``compress_size`` bytes long."""
    handle = archive.fp
    if handle is None:  # pragma: no cover - the archive is open while we read it
        raise InputError("the archive is closed", location=where)
    handle.seek(info.header_offset)
    local = handle.read(30)
    if len(local) != 30 or not local.startswith(_ZIP_MAGIC):
        raise InputError(
            "bad local header of the archive entry", location=where, hint=_CORRUPT_HINT
        )
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    handle.seek(info.header_offset + 30 + name_length + extra_length)
    raw = handle.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise InputError("the archive entry is truncated", location=where, hint=_CORRUPT_HINT)
    return raw


# --------------------------------------------------------------------------- parsing


@dataclass
class _Log:
    """What one log contributes, before its system is named."""

    path: Path
    task: str
    model: str
    config: dict[str, str]
    rows: list[_Row] = field(default_factory=list)
    errored: int = 0
    errored_scored: int = 0
    unscored: int = 0
    missing: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    created: str = ""
    epochs: int = 1
    reducer: str | None = None
    #: Why the log holds no usable score, and what to do (it is skipped), else None.
    unusable: tuple[str, str] | None = None
    #: Whether item text is read; then ``texts`` has one entry per row.
    with_text: bool = False
    texts: list[tuple[Any, Any, Any, Any]] = field(default_factory=list)
    #: Rows of dict keys the log's results do not aggregate (module notes): shown as
    #: descriptive statistics, not compared.
    left_out: list[_Row] = field(default_factory=list)


def _parse_log(raw: _RawLog, named: str | None = None, *, text: bool = False) -> _Log:
    """One log's rows; ``named`` (``--metric``) keeps a dict key the log does not
    aggregate as a metric; ``text`` reads each sample's text too."""
    spec = raw.header.get("eval")
    where = Location(raw.header_where)
    if not isinstance(spec, dict):
        raise InputError(
            f"not an Inspect log: 'eval' is a {type(spec).__name__}, not an object",
            location=where,
            hint=_NOT_A_LOG_HINT,
        )
    task, model = (_spec_text(spec, key, where) for key in ("task", "model"))
    log = _Log(raw.path, task, model, _configuration(spec, _object(raw.header, "plan")))
    log.with_text = text
    created = spec.get("created")
    log.created = created if isinstance(created, str) else ""
    config = _object(spec, "config")
    _epochs_reducer(config, log)
    log.unusable = _check_status(raw, log)
    if log.unusable is not None:
        return log
    score_on_error = bool(config.get("score_on_error"))
    legacy_name = _legacy_scorer_name(raw.header)
    for record in raw.records:
        _parse_record(record, log, score_on_error, legacy_name)
    _leave_out_unaggregated(log, _aggregated(raw.header), named)
    _count_missing(log)
    if not log.rows:
        log.unusable = (
            f"no sample of the log has a score ({log.errored} errored, "
            f"{log.unscored} unscored)"
            + ("" if raw.status == "success" else f"; the eval {_status_phrase(raw.status)}"),
            _UNSCORED_HINT,
        )
        return log
    log.epochs = max(run for _, _, run, _, _ in log.rows)
    if log.errored_scored:
        log.problems.append(
            Problem(
                "info",
                f"{count(log.errored_scored, 'errored sample')} kept with their scores: the "
                "eval ran with score_on_error",
                Location(str(raw.path)),
                task,
            )
        )
    return log


def _object(mapping: dict[str, Any], key: str) -> dict[str, Any]:
    """``mapping[key]`` when it is a JSON object, else an empty one (optional parts)."""
    value = mapping.get(key)
    return value if isinstance(value, dict) else {}


def _spec_text(spec: dict[str, Any], key: str, where: Location) -> str:
    value = spec.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(
            f"the Inspect log header lacks 'eval.{key}' (found {excerpt(value)})",
            location=where,
            hint="regenerate the log with Inspect",
        )
    return value


def _first_unusable(files: list[Path]) -> tuple[str, str]:
    log = _parse_log(_load_log(files[0]))
    assert log.unusable is not None
    return log.unusable


def _check_status(raw: _RawLog, log: _Log) -> tuple[str, str] | None:
    """An unfinished or failed eval with samples is a warning; without samples the log is
    unusable: the reason and a hint are returned (the log is then skipped, or an error)."""
    where = Location(str(raw.path))
    error = raw.header.get("error")
    because = f": {error['message']}" if isinstance(error, dict) and error.get("message") else ""
    if not raw.records:
        if raw.status == "success":
            return "the log holds no samples", _NO_SAMPLES_HINT
        return (
            f"the log holds no samples: the eval {_status_phrase(raw.status)}{because}",
            _RETRY_HINT,
        )
    if raw.status != "success":
        log.problems.append(
            Problem(
                "warning",
                f"the eval {_status_phrase(raw.status)}{because}; "
                f"{count(len(raw.records), 'sample record')} read",
                where,
                log.task,
            )
        )
    return None


def _epochs_reducer(config: dict[str, Any], log: _Log) -> None:
    """Record the eval's epochs reducer (Inspect's score of a sample over its epochs)."""
    reducer = config.get("epochs_reducer")
    names = (
        [str(r) for r in reducer]
        if isinstance(reducer, list)
        else [str(reducer)]
        if isinstance(reducer, str)
        else []
    )
    if names:
        log.reducer = "+".join(names)


def _status_phrase(status: str) -> str:
    return {
        "started": "has not finished (status 'started')",
        "cancelled": "was cancelled (status 'cancelled')",
        "error": "failed (status 'error')",
    }.get(status, f"has status {status!r}")


def _legacy_scorer_name(header: dict[str, Any]) -> str:
    """The scorer name for old logs whose samples hold one ``score``, not ``scores``: log
    format version 1 names it in ``results.scorer.name``, later ones in
    ``results.scores[0]``, so v1 and v2 logs of one task share a metric."""
    results = header.get("results")
    scorer = results.get("scorer") if isinstance(results, dict) else None
    if isinstance(scorer, dict) and isinstance(scorer.get("name"), str) and scorer["name"]:
        return str(scorer["name"])
    scores = results.get("scores") if isinstance(results, dict) else None
    if isinstance(scores, list) and scores and isinstance(scores[0], dict):
        name = scores[0].get("scorer") or scores[0].get("name")
        if isinstance(name, str) and name:
            return name
    return "score"


def _parse_record(record: _Record, log: _Log, score_on_error: bool, legacy_name: str) -> None:
    sample = record.sample
    label = f"sample record {record.number}"
    if not isinstance(sample, dict):
        raise InputError(
            f"{label} is a {type(sample).__name__}, not an object",
            location=Location(record.where),
            hint="regenerate the log with Inspect",
        )
    item, run = _sample_key(sample, label, record.where)
    label = f"sample {item!r}, epoch {run} (record {record.number})"
    if "scores" not in sample and "score" in sample:
        scores: Any = {legacy_name: sample["score"]}
    else:
        scores = sample.get("scores")
    if sample.get("error"):
        if not (score_on_error and scores):
            log.errored += 1
            return
        log.errored_scored += 1
    if not scores:
        log.unscored += 1
        return
    if not isinstance(scores, dict):
        raise InputError(
            f"{label}: 'scores' is a {type(scores).__name__}, not an object",
            location=Location(record.where),
            hint="regenerate the log with Inspect",
        )
    item_text = _item_text(sample) if log.with_text else None
    for scorer, score in scores.items():
        if not isinstance(score, dict) or "value" not in score:
            raise InputError(
                f"{label}: the score of scorer {scorer!r} has no 'value'",
                location=Location(record.where),
                hint="each score is an object with a 'value'",
            )
        for metric, value in _metric_values(str(scorer), score["value"], label, record.where):
            log.rows.append((metric, item, run, value, record.number))
            if item_text is not None:
                log.texts.append((*item_text, score.get("explanation")))


def _item_text(sample: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """A sample's input, output and target (``input`` may be a list of chat messages,
    ``target`` a list of acceptable answers)."""
    asked = as_text(sample.get("input"))
    choices = sample.get("choices")
    if asked is not None and isinstance(choices, list) and choices and len(choices) <= 26:
        # a multiple-choice sample: the choices are part of what was asked
        asked += "\n\n" + "\n".join(f"{chr(65 + k)}) {as_text(c)}" for k, c in enumerate(choices))
    return asked, _output_text(sample), as_text(sample.get("target"))


def _sample_key(sample: dict[str, Any], label: str, where: str) -> tuple[str, int]:
    sample_id, epoch = sample.get("id"), sample.get("epoch")
    if isinstance(sample_id, bool) or not isinstance(sample_id, (int, str)) or sample_id == "":
        raise InputError(
            f"{label} has no valid 'id' (found {sample_id!r})",
            location=Location(where),
            hint="each Inspect sample has an int or str id",
        )
    if isinstance(epoch, bool) or not isinstance(epoch, int) or not 1 <= epoch < 2**63:
        raise InputError(
            f"{label} (id {sample_id!r}) has no valid 'epoch' (found {epoch!r})",
            location=Location(where),
            hint="epochs are numbered from 1",
        )
    return str(sample_id), epoch


def _metric_values(scorer: str, value: Any, label: str, where: str) -> Iterator[tuple[str, float]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            metric = f"{scorer}/{key}"
            yield metric, _checked_float(inner, metric, label, where)
    else:
        yield scorer, _checked_float(value, scorer, label, where)


def _checked_float(value: Any, metric: str, label: str, where: str) -> float:
    try:
        return score_value_to_float(value)
    except ValueError:
        shown = json.dumps(value) if isinstance(value, (list, dict)) else repr(value)
        raise InputError(
            f"{label}: score {metric!r} has value {shown[:80]}, which is not a score",
            location=Location(where),
            hint=_VALUE_HINT,
        ) from None


def score_value_to_float(value: Any) -> float:
    """Map one Inspect score value to a float, as Inspect's default ``value_to_float``.

    Parameters
    ----------
    value
        A scalar score value from a log: a number, a bool, a string, or ``None``.

    Returns
    -------
    float
        ``"C"`` 1, ``"I"`` 0, ``"P"`` 0.5, ``"N"`` 0; ``True``/``False`` 1/0; a number
        as a float (NaN and infinities pass through, validation decides); ``"yes"``,
        ``"true"`` 1 and ``"no"``, ``"false"`` 0 in any case; a string holding a finite
        number as that number; ``None`` as NaN (no score).

    Raises
    ------
    ValueError
        For any other value (another string, a list, a dict), which Inspect would map
        to 0 with a warning.

    Examples
    --------
    >>> [score_value_to_float(v) for v in ("C", "P", True, "0.25", 3)]
    [1.0, 0.5, 1.0, 0.25, 3.0]
    """
    if value is None:
        return math.nan
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return to_float(value)
    if isinstance(value, str):
        if value in _LETTERS:
            return _LETTERS[value]
        if value.lower() in _WORDS:
            return _WORDS[value.lower()]
        try:
            number = float(value)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number
    raise ValueError(f"not a score value: {excerpt(value)}")


def _aggregated(header: dict[str, Any]) -> dict[str, set[str]]:
    """Scorer -> the names ``results.scores[]`` aggregates for it: the keys of a
    dict-valued scorer that Inspect computes metrics of (an entry per key, ``name`` the
    key and ``scorer`` the scorer), or the scorer's own name."""
    results = header.get("results")
    scores = results.get("scores") if isinstance(results, dict) else None
    out: dict[str, set[str]] = {}
    for entry in scores if isinstance(scores, list) else ():
        if not isinstance(entry, dict):
            continue
        name, scorer = entry.get("name"), entry.get("scorer") or entry.get("name")
        if isinstance(name, str) and isinstance(scorer, str):
            out.setdefault(scorer, set()).add(name)
    return out


def _leave_out_unaggregated(log: _Log, aggregated: dict[str, set[str]], named: str | None) -> None:
    """Move the rows of dict keys the log's results do not aggregate to
    :attr:`_Log.left_out`: a key ``k`` of scorer ``s`` stays a metric (``s/k``) when
    ``results.scores`` has an entry named ``k`` for ``s``, or aggregates ``s`` as a whole
    (``name`` ``s``), or records nothing for ``s`` (a log without results: every key
    stays); ``named`` (``--metric``) keeps that one metric whatever the log says."""
    kept: list[_Row] = []
    texts: list[tuple[Any, Any, Any, Any]] = []
    for k, row in enumerate(log.rows):
        scorer, slash, key = row[0].partition("/")
        names = aggregated.get(scorer)
        if (
            not slash
            or row[0] == named
            or not names
            or key in names
            or scorer in names
            or row[0] in names
        ):
            kept.append(row)
            if log.with_text:  # one text per row: the texts stay aligned with the rows
                texts.append(log.texts[k])
        else:
            log.left_out.append(row)
    log.rows = kept
    if log.with_text:
        log.texts = texts


def _count_missing(log: _Log) -> None:
    """Count, per metric, the scored samples that lack a metric other samples have."""
    metrics = list(dict.fromkeys(row[0] for row in log.rows))
    present: dict[int, set[str]] = {}
    for metric, _, _, _, number in log.rows:
        present.setdefault(number, set()).add(metric)
    for found in present.values():
        for metric in metrics:
            if metric not in found:
                log.missing[metric] += 1


# --------------------------------------------------------------------------- systems


def _render(value: Any) -> str:
    if value is None or isinstance(value, (bool, int, float, str)):
        return str(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _configuration(spec: dict[str, Any], plan: dict[str, Any]) -> dict[str, str]:
    """The settings that can tell two logs of one task and model apart, in the order a
    label uses them (see *System names* in the module docstring)."""
    config: dict[str, str] = {}

    def add(mapping: Any, prefix: str = "") -> None:
        if isinstance(mapping, dict):
            for key in sorted(mapping):
                config.setdefault(f"{prefix}{key}", _render(mapping[key]))

    add(spec.get("task_args"))
    add(spec.get("model_generate_config"))
    add(plan.get("config"))
    solver = spec.get("solver")
    if solver:
        config["solver"] = _render(solver)
    add(spec.get("solver_args"), "solver.")
    add(spec.get("model_args"), "model_args.")
    steps = plan.get("steps")
    if isinstance(steps, list) and steps:
        names = [str(s.get("solver")) if isinstance(s, dict) else "?" for s in steps]
        config["plan"] = "+".join(names)
        params = [s.get("params") if isinstance(s, dict) else None for s in steps]
        digest = hashlib.sha1(_render(params).encode()).hexdigest()[:7]
        config["plan_params"] = digest
    return config


def _system_names(
    logs: list[_Log],
) -> tuple[list[str], list[dict[str, str]], list[int], list[Problem]]:
    """One system name per log, its label settings, the run offset of its epochs, and
    notes about logs read together."""
    names = [log.model for log in logs]
    labels: list[dict[str, str]] = [{} for _ in logs]
    offsets = [0] * len(logs)
    problems = []
    groups: dict[tuple[str, str], list[int]] = {}
    for index, log in enumerate(logs):
        groups.setdefault((log.task, log.model), []).append(index)
    for (_task, model), members in groups.items():
        if len(members) < 2:
            continue
        configs = [logs[i].config for i in members]
        distinct = len({tuple(sorted(c.items())) for c in configs})
        chosen = _label_keys(configs, distinct)
        for index, config in zip(members, configs, strict=True):
            labels[index] = {k: config[k] for k in chosen if k in config}
            if labels[index]:
                text = ", ".join(f"{k}={v}" for k, v in labels[index].items())
                names[index] = f"{model} ({text})"
    same: dict[tuple[str, str], list[int]] = {}
    for index, log in enumerate(logs):
        same.setdefault((log.task, names[index]), []).append(index)
    for (task, name), members in same.items():
        if len(members) > 1:
            problems.append(_as_runs(logs, members, offsets, task, name))
    return names, labels, offsets, problems


def _as_runs(
    logs: list[_Log], members: list[int], offsets: list[int], task: str, name: str
) -> Problem:
    """Logs of one task and system: repeated runs when they score the same samples (each
    log's epochs follow the previous log's, in the order the evals were created), one
    system's split run when their samples are disjoint (e.g. run with --limit)."""
    keys = [{(item, run) for _, item, run, _, _ in logs[i].rows} for i in members]
    files = ", ".join(logs[i].path.name for i in members)
    if sum(len(k) for k in keys) == len(set().union(*keys)):
        return Problem(
            "info",
            f"{len(members)} logs of task {task!r} with system {name!r} "
            f"score different samples and are read as one run: {files}",
            None,
            task,
        )
    ordered = sorted(members, key=lambda i: (logs[i].created, str(logs[i].path)))
    offset = 0
    for index in ordered:
        offsets[index] = offset
        offset += logs[index].epochs
    files = ", ".join(logs[i].path.name for i in ordered)
    return Problem(
        "info",
        f"{len(members)} logs of task {task!r} with system {name!r} are "
        f"read as repeated runs 1..{offset} (each log's epochs after the "
        f"previous log's, in the order the evals were created): {files}",
        None,
        task,
    )


def _label_keys(configs: list[dict[str, str]], distinct: int) -> list[str]:
    """The shortest prefix of the differing settings (in configuration order) that
    tells the ``distinct`` configurations apart."""
    ordered = list(dict.fromkeys(k for c in configs for k in c))
    differing = [k for k in ordered if len({c.get(k) for c in configs}) > 1]
    chosen: list[str] = []
    for key in differing:
        chosen.append(key)
        if len({tuple(c.get(k) for k in chosen) for c in configs}) == distinct:
            break
    return chosen


# --------------------------------------------------------------------------- result


def _result(logs: list[_Log]) -> AdapterResult:
    names, labels, offsets, problems = _system_names(logs)
    exclusions: list[Exclusion] = []
    attributes: dict[str, dict[str, Any]] = {}
    parts = []
    reducers: dict[tuple[str, str], tuple[str, int]] = {}
    for log, system, label, offset in zip(logs, names, labels, offsets, strict=True):
        attributes.setdefault(system, {"model": log.model, **label})
        if log.reducer is not None:
            attributes[system].setdefault("epochs_reducer", log.reducer)
            if log.epochs > 1:
                reducers.setdefault((log.task, log.reducer), (system, log.epochs))
        problems.extend(log.problems)
        exclusions.extend(_exclusions(log, system))
        parts.append(_log_frame(log, system, offset))
    problems.extend(_reducer_problems(reducers))
    descriptive = _left_out_statistics(logs, names, problems)
    frame = pd.concat(parts, ignore_index=True) if parts else _log_frame(None, "", 0)
    if frame.empty and logs:
        problems.append(
            Problem(
                "warning",
                "no sample of these Inspect logs has a usable score (all errored or unscored)",
                Location(str(logs[0].path)),
            )
        )
    return AdapterResult(
        frame,
        exclusions=exclusions,
        problems=problems,
        system_attributes=attributes,
        duplicate_hint=_DUPLICATE_HINT,
        descriptive=descriptive,
    )


def _left_out_statistics(
    logs: list[_Log], names: list[str], problems: list[Problem]
) -> list[dict[str, Any]]:
    """The dict keys no log aggregates, as descriptive statistics (their mean per system
    and task over the samples and epochs), with one ``info`` problem per task naming
    them and how to compare one."""
    sums: dict[tuple[str, str, str], list[float]] = {}
    for log, system in zip(logs, names, strict=True):
        for metric, _, _, score, _ in log.left_out:
            sums.setdefault((system, log.task, metric), []).append(score)
    by_task: dict[str, list[str]] = {}
    rows = []
    for (system, task, metric), values in sums.items():
        finite = [v for v in values if math.isfinite(v)]
        rows.append(
            {
                "system": system,
                "dataset": task,
                "statistic": metric,
                "mean": float(np.mean(finite)) if finite else math.nan,
                "n": len(finite),
            }
        )
        if metric not in by_task.setdefault(task, []):
            by_task[task].append(metric)
    for task, metrics in by_task.items():
        problems.append(
            Problem(
                "info",
                f"{count(len(metrics), 'key')} of dict-valued scores that the log's results "
                f"{verb(len(metrics), 'do', 'does')} not aggregate (results.scores lists no "
                "metric of them) "
                f"{verb(len(metrics), 'are', 'is')} shown as descriptive data, not compared: "
                f"{', '.join(metrics[:8])}"
                + (", ..." if len(metrics) > 8 else "")
                + f"; compare one with --metric {metrics[0]}",
                None,
                task,
            )
        )
    return rows


def _reducer_problems(reducers: dict[tuple[str, str], tuple[str, int]]) -> list[Problem]:
    """Name each epochs reducer: Inspect scores a sample by reducing its epochs, reportgen
    keeps the epochs as runs and averages them per item (a mean)."""
    out = []
    for (task, reducer), (system, epochs) in reducers.items():
        same = reducer == "mean"
        out.append(
            Problem(
                "info" if same else "warning",
                f"Inspect reduced the {epochs} epochs of each sample with {reducer!r} "
                f"(epochs_reducer, e.g. system {system!r}); reportgen keeps every epoch as a "
                "run and averages the runs of an item"
                + (
                    ""
                    if same
                    else f", so its per-system means can differ from Inspect's {reducer!r} scores"
                ),
                None,
                task,
            )
        )
    return out


def _log_frame(log: _Log | None, system: str, offset: int) -> pd.DataFrame:
    """The rows of one log, with the contract's columns and dtypes; epochs shifted by the
    log's run offset."""
    rows = log.rows if log is not None else []
    n = len(rows)
    metrics, items, runs, scores, numbers = (
        [list(column) for column in zip(*rows, strict=True)] if n else [[]] * 5
    )
    runs = [run + offset for run in runs]
    frame = pd.DataFrame(
        {
            "system": pd.Series([system] * n, dtype="str"),
            "dataset": pd.Series([log.task if log else ""] * n, dtype="str"),
            "metric": pd.Series(metrics, dtype="str"),
            "item": pd.Series(items, dtype="str"),
            "score": np.asarray(scores, dtype=np.float64),
            "run": np.asarray(runs, dtype=np.int64),
            SOURCE_FILE: pd.Series([str(log.path) if log else ""] * n, dtype="str"),
            SOURCE_LINE: np.asarray(numbers, dtype=np.int64),
        }
    )
    if log is not None and log.texts:
        for role, column in zip(TEXT_ROLES, zip(*log.texts, strict=True), strict=True):
            frame[role] = pd.Series(column, dtype=object)
    return frame


def _exclusions(log: _Log, system: str) -> Iterable[Exclusion]:
    source = str(log.path)
    if log.errored:
        yield Exclusion(
            "sample errored", log.errored, dataset=log.task, system=system, source=source
        )
    if log.unscored:
        yield Exclusion(
            "sample has no score", log.unscored, dataset=log.task, system=system, source=source
        )
    for metric, missing in log.missing.items():
        yield Exclusion(
            "sample has no score",
            missing,
            dataset=log.task,
            metric=metric,
            system=system,
            source=source,
        )


register_adapter(InspectAdapter())

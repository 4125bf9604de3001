"""Input adapters: one registry entry per input format, chosen by name or detected.

Built-in formats (``reportgen inspect --help`` lists them with descriptions):

========== ==============================================================================
name       reads
========== ==============================================================================
long       a long table (CSV, TSV, Parquet, JSON lines) with one row per score
wide       a table with one column per system and one row per item (CSV, TSV, Parquet)
eval-arena eval-arena JSON lines (``benchmark_id``, ``model``, ``example_id``, ``pass1``)
lm-eval    lm-evaluation-harness output folders (``results_*.json`` + ``samples_*.jsonl``)
inspect    Inspect AI logs (``.eval`` zip archives and ``.json`` logs)
helm       HELM run folders (``run_spec.json`` + ``per_instance_stats.json``)
every-eval-ever  every_eval_ever aggregate ``<uuid>.json`` + ``<uuid>_samples.jsonl``
lighteval  lighteval output (``results_<time>.json`` + ``details_*.parquet``)
promptfoo  promptfoo ``eval -o results.json`` (results version 3)
deepeval   DeepEval ``.deepeval/.latest_test_run.json``
evalplus   EvalPlus ``<samples>_eval_results.json``
ragas      Ragas per-sample tables (``to_pandas()`` as CSV, JSON lines, Parquet)
opencompass  OpenCompass ``results/<model>/<dataset>.json`` with per-item ``details``
========== ==============================================================================

A folder that no adapter claims as a whole is walked (:func:`_walk`): its subfolders, to
:data:`MAX_WALK_DEPTH` levels, for the folders and files of every format; the files found
and not read are returned as skipped inputs with the reason.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.data.adapters import _files
from reportgen.data.adapters._base import (
    SNIFF_BYTES,
    Adapter,
    AdapterResult,
    Exclusion,
    FileDigest,
    LoadOptions,
    NotReadAlone,
    Problem,
    ReadLog,
    SkippedInput,
    check_regular_file,
    lfs_pointer_error,
    read_log,
    skip_input,
)
from reportgen.data.adapters._boundary import adapter_boundary, harness_name
from reportgen.data.adapters._naming import name_clashing_systems
from reportgen.data.adapters._system_names import SystemNames, system_names
from reportgen.errors import FileSystemError, InputError, Location, file_system_error

__all__ = [
    "MAX_WALK_DEPTH",
    "Adapter",
    "AdapterResult",
    "Exclusion",
    "FileDigest",
    "LoadOptions",
    "Problem",
    "SkippedInput",
    "adapter_names",
    "detect_format",
    "get_adapter",
    "read_inputs",
    "register_adapter",
]

_REGISTRY: dict[str, Adapter] = {}
_BUILTIN_MODULES = (
    "long",
    "wide",
    "eval_arena",
    "mt_bench",
    "arena_battles",
    "alpaca_eval",
    "deepeval",
    "promptfoo",
    "evalplus",
    "ragas",
    "lighteval",
    "opencompass",
    "lm_eval",
    "inspect_ai",
    "helm",
    "every_eval_ever",
)
_builtins_loaded = False

#: File suffixes a folder is searched for when no adapter claims the folder itself.
_DATA_SUFFIXES = (
    ".csv",
    ".tsv",
    ".tab",
    ".parquet",
    ".pq",
    ".jsonl",
    ".ndjson",
    ".json",
    ".eval",
    ".gz",
    ".zst",
)


def register_adapter(adapter: Adapter, *, replace: bool = False) -> Adapter:
    """Add ``adapter`` to the registry under ``adapter.name``.

    Raises
    ------
    ValueError
        If the name is taken and ``replace`` is false.
    """
    if adapter.name in _REGISTRY and not replace:
        raise ValueError(
            f"an adapter named {adapter.name!r} is already registered; "
            "pass replace=True to replace it"
        )
    _REGISTRY[adapter.name] = adapter
    return adapter


def _ensure_builtins() -> None:
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        for module in _BUILTIN_MODULES:
            importlib.import_module(f"{__name__}.{module}")


def adapter_names() -> list[str]:
    """Names of the registered adapters, in detection order."""
    _ensure_builtins()
    return [a.name for a in sorted(_REGISTRY.values(), key=lambda a: a.priority)]


def get_adapter(name: str) -> Adapter:
    """The adapter registered as ``name``; an InputError lists the known names."""
    _ensure_builtins()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(
            f"unknown format {name!r}", hint=f"known formats: {', '.join(adapter_names())}"
        ) from None


def _head(path: Path) -> bytes:
    """The first bytes of a file for detection; of the expanded stream for a ``.gz`` or
    ``.zst`` file (its raw bytes when it does not decompress: reading says why). Opened
    without blocking, and only when it is a regular file."""
    head = _files.read_head(path, SNIFF_BYTES, errors=True) or b""
    name = path.name.lower()
    try:
        if name.endswith(".gz") and head.startswith(b"\x1f\x8b"):
            import gzip

            with gzip.open(path, "rb") as stream:
                return stream.read(SNIFF_BYTES)
        if name.endswith(".zst") and head.startswith(b"\x28\xb5\x2f\xfd"):
            import zstandard

            with path.open("rb") as fh, zstandard.ZstdDecompressor().stream_reader(fh) as stream:
                return stream.read(SNIFF_BYTES)
    except Exception:  # noqa: BLE001 - a damaged stream: reading it names the fault
        return head
    return head


def _claims(adapter: Adapter, path: Path, head: bytes | None, options: LoadOptions) -> bool:
    """Whether ``adapter`` claims ``path``. Detection only looks: whatever a sniff meets
    in a damaged file or a folder it may not read (a RecursionError, an OSError, a
    value of the wrong type) means it is not this adapter's, never a traceback."""
    try:
        return bool(adapter.claims(path, head, options))
    except _files.WalkLimitReached:
        raise
    except Exception:  # noqa: BLE001 - not this format; reading would say what is wrong
        return False


def _unreadable(path: Path, exc: OSError) -> InputError:
    """The error for an input that exists but cannot be opened or read."""
    return file_system_error(exc, _files.shown_name(path), reading=True)


def _check_name(path: Path) -> None:
    """Refuse a path whose name is not UTF-8 (shown escaped), which reportgen could
    neither record in its manifest nor show."""
    if not _files.utf8_name(path):
        raise InputError(
            "the file name is not valid UTF-8",
            location=Location(_files.shown_name(path)),
            hint="rename it to a UTF-8 name (e.g. `convmv -f latin1 -t utf-8 --notest "
            "FILE`), then pass it again",
        )


def detect_format(path: str | Path, options: LoadOptions | None = None) -> Adapter:
    """The first adapter (by priority) whose ``sniff`` accepts ``path``.

    Raises
    ------
    InputError
        If the path does not exist, is an empty file, or no adapter recognises it.
    """
    _ensure_builtins()
    options = options or LoadOptions()
    path = Path(path)
    _check_name(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(
            "no such file or folder", location=Location(str(path)), hint="check the path"
        ) from None
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValueError):  # a NUL byte in the name
            raise InputError(
                "the path holds a NUL byte, which no file name can",
                location=Location(str(path).replace("\x00", "\\x00")),
                hint="check the path",
            ) from None
        raise _unreadable(path, exc) from None
    check_regular_file(path)
    head: bytes | None = None
    if stat.S_ISREG(info.st_mode):
        if info.st_size == 0:
            raise InputError(
                "the file is empty (0 bytes)",
                location=Location(str(path)),
                hint="check that the evaluation finished writing its output",
            )
        try:
            head = _head(path)
        except OSError as exc:
            raise _unreadable(path, exc) from None
        lfs = lfs_pointer_error(path, head)
        if lfs is not None:
            raise lfs
    for adapter in sorted(_REGISTRY.values(), key=lambda a: a.priority):
        if _claims(adapter, path, head, options):
            return adapter
    what = "folder" if head is None else "file"
    for adapter in sorted(_REGISTRY.values(), key=lambda a: a.priority):
        refusal = adapter.refuse(path, head) if head is not None else None
        if refusal is not None:
            raise refusal
    keys = _json_keys(path, head)
    if keys is not None:
        shown = ", ".join(repr(k[:40]) for k in keys[:6]) + (", ..." if len(keys) > 6 else "")
        raise InputError(
            f"cannot tell the format of this JSON file (top-level keys: {shown or 'none'})",
            location=Location(str(path)),
            hint="it is none of the JSON outputs reportgen reads: "
            f"{', '.join(_JSON_FORMATS)}; for a table of scores use CSV, Parquet or JSON "
            "lines (--format long)",
        )
    raise InputError(
        f"cannot tell the format of this {what}{_content_note(head)}",
        location=Location(str(path)),
        hint=f"pass --format with one of: {', '.join(adapter_names())}",
    )


#: The harness outputs that are one JSON document (for the hint on an unknown one).
_JSON_FORMATS = (
    "lm-eval results_<date>.json",
    "lighteval results_<time>.json",
    "Inspect .json logs",
    "HELM run_spec.json/per_instance_stats.json",
    "every_eval_ever <uuid>.json",
    "promptfoo -o results.json",
    "DeepEval .latest_test_run.json",
    "EvalPlus <samples>_eval_results.json",
)


def _json_keys(path: Path, head: bytes | None) -> list[str] | None:
    """The top-level keys of a ``.json`` file holding one JSON object (from its first
    bytes), else None."""
    if head is None or not path.name.lower().endswith(".json"):
        return None
    import json
    import re

    text = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except RecursionError:  # nested past the parser's stack: not a result file's head
        return None
    except ValueError:
        # cut off: the keys at nesting depth 1 seen so far
        keys, depth = [], 0
        for match in re.finditer(r'"(?:[^"\\]|\\.)*"\s*:|[{}\[\]]', text):
            token = match.group()
            if token in "{[":
                depth += 1
            elif token in "}]":
                depth -= 1
            elif depth == 1:
                keys.append(json.loads(token.rstrip(": \t\n\r")))
        return keys
    return [str(k) for k in data] if isinstance(data, dict) else None


def _content_note(head: bytes | None) -> str:
    """What an unrecognised file looks like, for the error message."""
    if head is None:
        return ""
    if not head.strip():
        return " (it holds only white space)"
    if head.startswith(b"PK\x03\x04"):
        return (
            " (a ZIP archive, but not an Inspect log: an Inspect .eval archive holds "
            "header.json or _journal/start.json)"
        )
    if head.startswith(b"\x1f\x8b"):
        return (
            " (gzip-compressed: decompress it with gunzip, or name it .csv.gz or "
            ".tsv.gz if it is a CSV or TSV table)"
        )
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return " (it holds NUL bytes: binary data, or UTF-16 without a byte-order mark)"
    return ""


#: How many folder levels below a given folder the walk searches.
MAX_WALK_DEPTH = 6
#: Folders the walk never enters: version control, dependencies, caches, virtual
#: environments. Other hidden folders are skipped too, except :data:`_HIDDEN_RESULTS`.
_SKIP_FOLDERS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "site-packages",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".ipynb_checkpoints",
    }
)
#: Hidden folders in which harnesses keep results (DeepEval's ``.deepeval``).
_HIDDEN_RESULTS = frozenset({".deepeval"})


@dataclass
class _Walk:
    """What a folder walk found: the inputs to read, the files it did not read (and
    why), and the subfolders holding such files (for the hint when nothing is found)."""

    found: list[tuple[Path, Adapter]] = field(default_factory=list)
    skipped: list[SkippedInput] = field(default_factory=list)
    candidates: dict[str, int] = field(default_factory=dict)


def _walk(root: Path, options: LoadOptions, covered: Sequence[Adapter] = ()) -> _Walk:
    """Search ``root`` and its subfolders (at most :data:`MAX_WALK_DEPTH` levels) for
    evaluation results: a subfolder that an adapter claims as a whole (an lm-eval output
    folder, a HELM run, a ``.deepeval`` folder, ...) is read as one input and not entered;
    every other file whose format is detected is read. Generic tables (long, wide) count
    only directly inside ``root``.

    Each entry is looked at with ``lstat`` before anything is opened
    (:mod:`reportgen.data.adapters._files`): only regular files are opened, and never in a
    way that blocks; FIFOs, sockets and devices, symbolic links that leave ``root``,
    names that are not UTF-8 and entries that cannot be read are listed as skipped with
    the reason (a link inside ``root`` is followed once; a loop is skipped). The caller
    bounds the files looked into (:func:`_files.walk_scope`).

    ``covered``: adapters that claimed ``root`` as a whole and read their own files
    below it; the walk looks for the other formats only (files of a covered format are
    left to the adapter that claimed the folder)."""
    _ensure_builtins()
    adapters = [a for a in sorted(_REGISTRY.values(), key=lambda a: a.priority) if a not in covered]
    walk = _Walk()
    seen: set[str] = set()

    def skip(path: Path | str, reason: str) -> None:
        walk.skipped.append(SkippedInput(_files.shown_name(path), reason))
        folder = _files.shown_name(os.path.dirname(path))
        walk.candidates[folder] = walk.candidates.get(folder, 0) + 1

    def visit(folder: Path, depth: int) -> None:
        real = os.path.realpath(folder)
        if real in seen:
            walk.skipped.append(
                SkippedInput(str(folder), "a symbolic link back to a folder already searched")
            )
            return
        seen.add(real)
        _files.examine(folder)
        if depth > 0:
            for adapter in adapters:
                if _claims(adapter, folder, None, options):
                    walk.found.append((folder, adapter))
                    return
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            skip(folder, f"cannot list it: {_reason(exc)}")
            return
        subfolders = []
        for entry in entries:
            path = Path(entry.path)
            kind, why = _entry_kind(entry)
            if kind == "folder":
                if entry.name in _SKIP_FOLDERS or (
                    entry.name.startswith(".") and entry.name not in _HIDDEN_RESULTS
                ):
                    continue
                if why is not None:  # a name that is not UTF-8: nothing below is read
                    skip(path, why)
                    continue
                subfolders.append(path)
                continue
            name = entry.name.lower()
            if entry.name.startswith(".") or (
                not name.endswith(_DATA_SUFFIXES) and kind != "link-out"
            ):
                continue
            if why is not None:  # not a regular file, or not one to read
                skip(path, why)
                continue
            try:
                adapter = detect_format(path, options)
            except _files.WalkLimitReached:
                raise
            except FileSystemError as exc:
                skip(path, exc.message)
                continue
            except InputError as exc:
                skip(path, f"not read: {exc.message}")
                continue
            if adapter in covered:
                continue
            if adapter.generic and (depth > 0 or covered):
                skip(
                    path,
                    f"not read: a {adapter.name} table in a subfolder (tables are read "
                    "from the folder given, not from its subfolders); pass the file or "
                    "its folder to read it",
                )
                continue
            walk.found.append((path, adapter))
        for sub in subfolders:
            if depth + 1 > MAX_WALK_DEPTH:
                walk.skipped.append(
                    SkippedInput(
                        str(sub), f"not searched: more than {MAX_WALK_DEPTH} folder levels deep"
                    )
                )
                continue
            visit(sub, depth + 1)

    visit(root, 0)
    return walk


def _reason(exc: OSError) -> str:
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


def _entry_kind(entry: os.DirEntry[str]) -> tuple[str, str | None]:
    """What a folder entry is for the walk: ``"file"``, ``"folder"``, ``"link-out"`` (a
    link leaving the folder given) or ``"other"``, and why it is not read (None: read
    it). Decided with ``lstat``, and for a link with the status of its target."""
    if not _files.utf8_name(entry.name):
        try:
            kind = "folder" if entry.is_dir(follow_symlinks=False) else "file"
        except OSError:
            kind = "file"
        return kind, "its name is not valid UTF-8: rename it (e.g. with convmv), then search again"
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError as exc:
        return "other", f"cannot look at it: {_reason(exc)}"
    if stat.S_ISLNK(info.st_mode):
        why = _files.reason_not_read(entry.path)
        if why is not None and "outside the folder given" in why:
            return "link-out", why
        if why is not None:
            return "other", why
        return ("folder" if _files.is_folder(entry.path) else "file"), None
    if stat.S_ISDIR(info.st_mode):
        return "folder", None
    special = _files.special_kind(info.st_mode)
    if special is not None:
        return "other", f"{special}, not a regular file: not read"
    return "file", None


def _nothing_found(path: Path, walk: _Walk) -> InputError:
    """The error for a folder walk that found no evaluation results, naming the
    subfolders that hold files it could not read."""
    hint = (
        f"expected files ending in {', '.join(_DATA_SUFFIXES)} or the output folder of "
        f"a harness; known formats: {', '.join(adapter_names())}"
    )
    if walk.candidates:
        folders = sorted(walk.candidates, key=lambda f: (-walk.candidates[f], f))
        shown = ", ".join(
            f"{os.path.relpath(f, path) if f != str(path) else '.'} "
            f"({walk.candidates[f]} file{'s' if walk.candidates[f] != 1 else ''})"
            for f in folders[:5]
        )
        more = f" and {len(folders) - 5} more" if len(folders) > 5 else ""
        first = walk.skipped[0] if walk.skipped else None
        why = f"; e.g. {first.path}: {first.reason}" if first else ""
        hint = (
            f"these folders hold files that are not evaluation results reportgen knows: "
            f"{shown}{more}{why}; pass one with --format to read it as that format. {hint}"
        )
    return InputError(
        "the folder holds no evaluation results reportgen can read "
        f"(searched {MAX_WALK_DEPTH} folder levels deep)",
        location=Location(str(path)),
        hint=hint,
    )


def _expand(
    path: Path, options: LoadOptions
) -> tuple[list[tuple[Path, Adapter]], list[SkippedInput]]:
    """Resolve one input path to (file or folder, adapter) pairs, and the files a folder
    walk did not read. A folder that no adapter claims as a whole is walked
    (:func:`_walk`); with ``--format``, the data files directly inside it are read. A
    folder is searched within :func:`_files.walk_scope`: links that leave it are not
    followed and at most ``options.max_walk_files`` files are looked into."""
    if "\x00" in str(path):
        raise InputError(
            "the path holds a NUL byte, which no file name can",
            location=Location(str(path).replace("\x00", "\\x00")),
            hint="check the path (a [input] data entry of the config?)",
        )
    _check_name(path)
    check_regular_file(path)
    if options.format is not None:
        adapter = get_adapter(options.format)
        if not os.path.lexists(path):
            raise InputError(
                "no such file or folder", location=Location(str(path)), hint="check the path"
            )
        if path.is_dir():
            with _files.walk_scope(path, max_files=options.max_walk_files):
                files = [] if _claims(adapter, path, None, options) else _data_files(path)
            if files:
                return [(f, adapter) for f in files], []
        return [(path, adapter)], []
    if _is_folder(path):
        try:  # the folder given must be listed: one below it that cannot is skipped
            with os.scandir(path):
                pass
        except OSError as exc:
            raise _unreadable(path, exc) from None
        _ensure_builtins()
        with _files.walk_scope(path, max_files=options.max_walk_files) as scope:
            claimed = [
                adapter
                for adapter in sorted(_REGISTRY.values(), key=lambda a: a.priority)
                if _claims(adapter, path, None, options)
            ]
            # a folder claimed as a whole (an lm-eval or lighteval output folder, ...) may
            # hold other harnesses' results beside: the walk looks for those too
            walk = _walk(path, options, covered=claimed)
        walk.found[:0] = [(path, adapter) for adapter in claimed]
        listed = {s.path for s in walk.skipped}
        walk.skipped.extend(
            SkippedInput(_files.shown_name(where), why)
            for where, why in scope.unreadable.items()
            if _files.shown_name(where) not in listed
        )
        if not walk.found:
            raise _nothing_found(path, walk)
        return walk.found, walk.skipped
    return [(path, detect_format(path, options))], []


def _is_folder(path: Path) -> bool:
    """Whether ``path`` is a folder; an InputError when it cannot be looked at."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except FileNotFoundError:
        return False  # detection says so
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _data_files(folder: Path) -> list[Path]:
    return [
        e.path
        for e in _files.entries(folder)
        if e.kind == "file"
        and not e.name.startswith(".")
        and e.name.lower().endswith(_DATA_SUFFIXES)
    ]


@contextlib.contextmanager
def _reading(adapter: Adapter, path: Path, log: ReadLog) -> Iterator[None]:
    """One adapter call inside the error boundary (:mod:`._boundary`): whatever damaged
    content raises becomes an InputError naming the file (the one read last, unless the
    adapter names the record it was reading)."""
    with adapter_boundary(harness_name(adapter), path, log):
        yield


def read_inputs(
    paths: Iterable[str | Path] | str | Path, options: LoadOptions | None = None
) -> list[AdapterResult]:
    """Read every path with its adapter (given by ``options.format`` or detected).

    Returns one :class:`AdapterResult` per file or adapter-claimed folder, with the
    files each adapter read and their SHA-256 (:attr:`AdapterResult.files`); each input
    is capped at ``options.max_input_bytes``.
    """
    options = options or LoadOptions()
    if isinstance(paths, (str, Path)):
        paths = [paths]
    items: Sequence[str | Path] = list(paths)
    if not items:
        raise InputError("no input given", hint="pass one or more files or folders")
    pending: list[tuple[Path, Adapter]] = []
    not_read: list[SkippedInput] = []
    refused: list[NotReadAlone] = []
    for raw in items:
        try:
            found, skipped = _expand(Path(raw), options)
        except NotReadAlone as exc:  # read with its run if that is given too
            refused.append(exc)
            continue
        pending.extend(found)
        not_read.extend(skipped)
    names = SystemNames.parse(options.system, [p for p, _ in pending]) if options.system else None
    with system_names(names):
        results = _read_pending(pending, options)
    if names is not None:  # a FILE=NAME whose input records its own names
        names.check_used({str(p): a.name for p, a in pending})
    read_files = {f.resolved for r in results for f in r.files}
    for refusal in refused:
        where = refusal.location.file if refusal.location else None
        if not where or os.path.realpath(where) not in read_files:
            raise refusal
    name_clashing_systems(results)  # sys-a/x.json and sys-b/x.json: named by folder
    # a file the walk could not place may still have been read by an adapter that
    # claimed its folder (an lm-eval samples file, a lighteval details parquet)
    read = {f.resolved for r in results for f in r.files}
    not_read = [s for s in not_read if os.path.realpath(s.path) not in read]
    for unread in not_read:
        if options.strict_inputs:
            skip_input(
                options,
                unread.path,
                unread.reason,
                hint="move it out of the folder, or pass the result files themselves",
            )
    if not_read and results:
        results[0].skipped = [*not_read, *results[0].skipped]
    return results


def _read_pending(pending: list[tuple[Path, Adapter]], options: LoadOptions) -> list[AdapterResult]:
    """Read each (path, adapter), those of adapters that combine their inputs together."""
    results = []
    together: dict[str, list[Path]] = {}
    for path, adapter in pending:
        if adapter.combine_inputs:
            together.setdefault(adapter.name, []).append(path)
            continue
        with read_log(options.max_input_bytes) as log, _reading(adapter, path, log):
            result = adapter.read(path, options)
        result.format, result.source, result.files = adapter.name, str(path), log.files
        results.append(result)
    for name, group in together.items():
        adapter = _REGISTRY[name]
        with read_log(options.max_input_bytes) as log, _reading(adapter, group[0], log):
            result = (
                adapter.read(group[0], options)
                if len(group) == 1
                else adapter.read_many(group, options)
            )
        result.format, result.source = name, ", ".join(str(p) for p in group)
        result.files = log.files
        results.append(result)
    return results

"""The manifest of a report folder and the check of its results.json: the SHA-256 of
every input and output (files read once, never through a symbolic link), the versions
of the key packages, the manifest's own seal, and the validation of results.json
against the shipped JSON Schema. :mod:`reportgen.report.folder.archive` writes and
replaces folders with it."""

from __future__ import annotations

import datetime as _dt
import errno
import functools
import hashlib
import json
import os
import platform
import stat
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from reportgen.errors import (
    FileSystemError,
    InputError,
    Location,
    ReportgenError,
    file_system_error,
    is_file_system_error,
    path_text,
)

__all__ = [
    "KEY_PACKAGES",
    "MANIFEST_FORMAT",
    "MANIFEST_FORMAT_VERSION",
    "NOFOLLOW",
    "build_manifest",
    "canonical_json",
    "disk_full_error",
    "fd_sha256",
    "file_sha256",
    "manifest_digest",
    "open_regular",
    "read_regular",
    "results_schema",
    "seal_manifest",
    "validate_results",
]

#: Packages whose versions every manifest records.
KEY_PACKAGES = (
    "reportgen",
    "numpy",
    "scipy",
    "statsmodels",
    "pandas",
    "altair",
    "networkx",
    "papermill",
    "nbformat",
    "vl-convert-python",
    "weasyprint",
)
#: The ``format`` of every manifest reportgen writes: the mark that the folder is ours.
MANIFEST_FORMAT = "reportgen-report-folder"
#: Version of the manifest layout (``format_version``); newer ones are not replaced.
MANIFEST_FORMAT_VERSION = 1


def file_sha256(path: str | Path, *, chunk: int = 1 << 20) -> str:
    """The SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


#: ``O_NOFOLLOW`` where the system has it: opening a symbolic link then fails (ELOOP).
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def open_regular(path: str | Path, *, dir_fd: int | None = None, flags: int = os.O_RDONLY) -> int:
    """A descriptor of the regular file at ``path``, never through a symbolic link.

    The last component is opened with ``O_NOFOLLOW`` and the opened file must be a
    regular file (``fstat``), so a link, a FIFO or a device put there at any moment
    is refused.

    Raises
    ------
    OSError
        ``ELOOP`` for a link, ``EINVAL`` for anything but a regular file, or the
        error of ``open``.
    """
    fd = os.open(path, flags | NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def fd_sha256(fd: int, *, chunk: int = 1 << 20) -> str:
    """The SHA-256 of what is left to read from ``fd`` (which is closed)."""
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as fh:
        for block in iter(lambda: fh.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def read_regular(path: str | Path, *, dir_fd: int | None = None) -> bytes:
    """The bytes of the regular file at ``path``, never through a symbolic link
    (:func:`open_regular`)."""
    with os.fdopen(open_regular(path, dir_fd=dir_fd), "rb") as fh:
        return fh.read()


def _input_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    return [path]


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _source_files(source: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The files of one input: as the loader recorded them while reading (``files``
    with ``sha256`` of the bytes it read), else hashed now."""
    recorded = source.get("files")
    if (
        isinstance(recorded, Sequence)
        and recorded
        and all(isinstance(f, Mapping) and f.get("sha256") for f in recorded)
    ):
        return [
            {
                "path": str(f["path"]),
                "resolved": str(f.get("resolved") or Path(str(f["path"])).resolve()),
                "sha256": str(f["sha256"]),
                "bytes": f.get("bytes"),
            }
            for f in recorded
        ]
    paths = [Path(p.strip()) for p in str(source.get("path", "")).split(", ") if p]
    return [
        {
            "path": str(f),
            "resolved": str(f.resolve()),
            "sha256": file_sha256(f),
            "bytes": f.stat().st_size,
        }
        for p in paths
        if p.exists()
        for f in _input_files(p)
    ]


def build_manifest(
    sources: Sequence[Mapping[str, Any]],
    *,
    parameters: Mapping[str, Any],
    seed: int,
    started: str | None = None,
    outputs: Mapping[str, str | Path] | None = None,
) -> dict[str, Any]:
    """The ``manifest.json`` of a report (before :func:`seal_manifest`).

    Parameters
    ----------
    sources
        The inputs as :attr:`reportgen.data.ScoreTable.sources` lists them (``path``,
        ``format``, ``rows``). When a source carries ``files`` (``path``, ``sha256``,
        ``bytes``: the digest of the bytes the loader read), those are recorded;
        otherwise every file under the input is hashed now.
    parameters
        The resolved options of the run.
    seed
        The master seed.
    started
        ISO timestamp of the start of the run (default: now).
    outputs
        Name -> path of files already written, hashed too (e.g. ``results.json``).
    """
    now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    inputs = []
    for source in sources:
        paths = [Path(p.strip()) for p in str(source.get("path", "")).split(", ") if p]
        inputs.append(
            {
                "path": source.get("path"),
                "resolved": [str(p.resolve()) for p in paths],
                "format": source.get("format"),
                "rows": source.get("rows"),
                "files": _source_files(source),
            }
        )
    return {
        "format": MANIFEST_FORMAT,
        "format_version": MANIFEST_FORMAT_VERSION,
        "reportgen_version": _version("reportgen") or "0+unknown",
        "created": now,
        "started": started or now,
        "seed": seed,
        "parameters": dict(parameters),
        "inputs": inputs,
        "outputs": {
            name: {"path": str(path), "sha256": file_sha256(path)}
            for name, path in (outputs or {}).items()
        },
        "environment": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "packages": {p: _version(p) for p in KEY_PACKAGES},
        },
    }


def canonical_json(document: Any) -> bytes:
    """``document`` as canonical JSON: keys sorted, no white space, UTF-8, no NaN.

    Two documents with the same content give the same bytes however they were
    indented or ordered on disk, so their digests compare content.

    >>> canonical_json({"b": [1, 2.5], "a": "é"}).decode()
    '{"a":"é","b":[1,2.5]}'
    """
    # "surrogatepass": a file name that is not valid UTF-8 (lone surrogates) still has
    # one digest, the same when the document is read back
    return json.dumps(
        document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8", "surrogatepass")


def manifest_digest(manifest: Mapping[str, Any]) -> str:
    """SHA-256 of the manifest's canonical JSON without its own ``manifest_sha256``."""
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def seal_manifest(manifest: dict[str, Any], *, results: str | None) -> dict[str, Any]:
    """Record the digest of the main document (``results``: ``results.json`` or
    ``history.json``, from the outputs) and then of the manifest's own content.

    ``verify`` recomputes both, so an edited manifest (a seed changed by hand) or a
    results.json swapped together with its output entry is reported.
    """
    if results is not None:
        entry = manifest["outputs"].get(results)
        manifest["results"] = {
            "file": results,
            "sha256": None if entry is None else entry["sha256"],
        }
    manifest.pop("manifest_sha256", None)
    manifest["manifest_sha256"] = manifest_digest(manifest)
    return manifest


def results_schema() -> dict[str, Any]:
    """The JSON Schema of results.json, shipped in the package."""
    path = Path(__file__).resolve().parents[2] / "schemas" / "results.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _schema_path(error: Any) -> str:
    return "/".join(str(p) for p in error.absolute_path) or "(top level)"


#: The schema keywords whose meaning is the same in JSON Schema draft 7 (what
#: fastjsonschema implements) and 2020-12 (the schema's own draft).
FAST_SCHEMA_KEYWORDS = frozenset(
    {
        "$id",
        "$schema",
        "additionalProperties",
        "description",
        "enum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "items",
        "maximum",
        "minimum",
        "properties",
        "required",
        "title",
        "type",
    }
)


@functools.lru_cache(maxsize=1)
def _fast_results_validator() -> Any:
    """The results schema compiled by fastjsonschema (installed with nbformat), or None.

    A check of a 600 MB results.json (1,000 systems: half a million comparisons) takes
    under a second this way against half a minute with jsonschema. It decides only
    whether the document is valid; an invalid one goes to jsonschema, which names the
    first violation (and, being the reference, has the last word)."""
    try:
        import fastjsonschema
    except ImportError:  # pragma: no cover - nbformat depends on it
        return None
    schema = dict(results_schema())
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    return fastjsonschema.compile(schema)


def validate_results(document: Mapping[str, Any], *, source: str | Path | None = None) -> None:
    """Check a results.json document against :func:`results_schema`.

    Parameters
    ----------
    document
        The parsed results.json.
    source
        The file it was read from: errors are then :class:`InputError` naming it (a
        hand-edited or damaged file given to ``history``); without it a violation is a
        bug in reportgen.

    Raises
    ------
    ReportgenError
        With the JSON path of the first violation, in document order.
    """
    fast = _fast_results_validator()
    if fast is not None:
        try:
            fast(document)
            return
        except Exception:  # noqa: BLE001 - jsonschema below finds and words the error
            pass
    import jsonschema  # only for an invalid document: 70 ms to import here

    validator = jsonschema.Draft202012Validator(results_schema())
    errors = list(validator.iter_errors(document))
    if not errors:
        return
    # document order: the first violation a reader meets, whatever its depth
    error = min(
        errors,
        key=lambda e: [
            (0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in e.absolute_path
        ],
    )
    if source is None:
        raise ReportgenError(
            f"results.json does not match its schema at "
            f"{_schema_path(error)}: {_shorten(error.message)}"
        )
    raise InputError(
        f"not a valid results.json: at {_schema_path(error)}, {_shorten(error.message)}",
        location=Location(str(source)),
        hint="the file was edited or damaged, or not written by reportgen; "
        "make the report again with `reportgen run`",
    )


def _shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def disk_full_error(where: str | Path, exc: BaseException) -> InputError | None:
    """The clear error for a file-system fault while a report is written near
    ``where``: a full disk (or quota), a file-size limit (``EFBIG``, ``ulimit -f``), no
    permission, a read-only file system; None when ``exc`` is something else. The
    report being built has been removed, so the message says nothing was kept."""
    if not (isinstance(exc, OSError) and is_file_system_error(exc)):
        return None
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return FileSystemError(
            "the disk is full: the report could not be written (no space left "
            "on the device); nothing was kept",
            location=Location(path_text(exc.filename or where)),
            hint="free some space, or write the report elsewhere with --out (temporary "
            "files go to TMPDIR)",
        )
    error = file_system_error(exc, exc.filename or where, reading=False, what="the report")
    return FileSystemError(
        f"{error.message}; nothing was kept", location=error.location, hint=error.hint
    )

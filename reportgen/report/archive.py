"""The report folder: its manifest, its results.json validation, and writing it
atomically.

A report folder is built in a temporary sibling folder and renamed into place only when
everything is written, so a failure never leaves a half-written archive and an existing
report is never overwritten unless asked (``force``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import platform
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from reportgen.errors import InputError, Location, ReportgenError
from reportgen.report.output import default_mode

__all__ = ["IF_EXISTS", "build_manifest", "file_sha256", "is_report_folder",
           "report_folder", "resolve_out", "results_schema", "validate_results"]

#: Packages whose versions every manifest records.
KEY_PACKAGES = ("reportgen", "numpy", "scipy", "statsmodels", "pandas", "altair",
                "networkx", "papermill", "nbformat", "vl-convert-python", "weasyprint")


def file_sha256(path: str | Path, *, chunk: int = 1 << 20) -> str:
    """The SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def _input_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    return [path]


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def build_manifest(sources: Sequence[Mapping[str, Any]], *, parameters: Mapping[str, Any],
                   seed: int, started: str | None = None,
                   outputs: Mapping[str, str | Path] | None = None) -> dict[str, Any]:
    """The ``manifest.json`` of a report.

    Parameters
    ----------
    sources
        The inputs as :attr:`reportgen.data.ScoreTable.sources` lists them (``path``,
        ``format``, ``rows``); every file under an input folder is hashed.
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
        files = [{"path": str(f), "resolved": str(f.resolve()), "sha256": file_sha256(f),
                  "bytes": f.stat().st_size}
                 for p in paths if p.exists() for f in _input_files(p)]
        inputs.append({"path": source.get("path"),
                       "resolved": [str(p.resolve()) for p in paths],
                       "format": source.get("format"), "rows": source.get("rows"),
                       "files": files})
    return {
        "reportgen_version": _version("reportgen") or "0+unknown",
        "created": now, "started": started or now, "seed": seed,
        "parameters": dict(parameters), "inputs": inputs,
        "outputs": {name: {"path": str(path), "sha256": file_sha256(path)}
                    for name, path in (outputs or {}).items()},
        "environment": {"python": platform.python_version(),
                        "platform": platform.platform(),
                        "packages": {p: _version(p) for p in KEY_PACKAGES}},
    }


def results_schema() -> dict[str, Any]:
    """The JSON Schema of results.json, shipped in the package."""
    path = Path(__file__).resolve().parents[1] / "schemas" / "results.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


def validate_results(document: Mapping[str, Any]) -> None:
    """Check a results.json document against :func:`results_schema`.

    Raises
    ------
    ReportgenError
        With the JSON path of the first violation (a bug in reportgen, or a hand-edited
        file).
    """
    import jsonschema

    validator = jsonschema.Draft202012Validator(results_schema())
    error = next(iter(sorted(validator.iter_errors(document), key=lambda e: list(e.path))),
                 None)
    if error is not None:
        where = "/".join(str(p) for p in error.path) or "(top level)"
        raise ReportgenError(f"results.json does not match its schema at {where}: "
                             f"{error.message}")


#: What to do when the report folder already exists.
IF_EXISTS = ("error", "replace", "timestamp")
#: Files that mark a folder as a report folder (only those are ever replaced).
_REPORT_MARKERS = ("manifest.json", "results.json", "history.json")


def is_report_folder(path: str | Path) -> bool:
    """Whether ``path`` is a folder reportgen wrote (it has a manifest or results)."""
    folder = Path(path)
    return folder.is_dir() and any((folder / m).is_file() for m in _REPORT_MARKERS)


def resolve_out(out: str | Path, *, if_exists: str = "error",
                now: _dt.datetime | None = None) -> Path:
    """The report folder to write, following the ``if_exists`` policy.

    Parameters
    ----------
    out
        The requested folder, e.g. ``CHECKPOINT_DIR/eval-report`` (its parent, e.g. the
        checkpoint folder, may exist and hold anything).
    if_exists
        When ``out`` exists: ``"error"`` (refuse), ``"replace"`` (replace it, only if
        it is a report folder or empty), ``"timestamp"`` (write a new sibling
        ``<out>-YYYYMMDD-HHMMSS``, UTC, with ``-2``, ``-3``… if that exists too).
    now
        The time of the timestamp (default: now).

    Raises
    ------
    InputError
        ``out`` exists and the policy is ``"error"``; it is a file; or it is a folder
        that is not a report (nothing but a report is ever replaced).
    """
    out = Path(out)
    if if_exists not in IF_EXISTS:
        raise InputError(f"unknown --if-exists {if_exists!r}",
                         hint=f"one of {', '.join(IF_EXISTS)}")
    if not out.exists():
        return out
    if not out.is_dir():
        raise InputError("the output path exists and is not a folder",
                         location=Location(str(out)), hint="choose another --out")
    if if_exists == "timestamp":
        stamp = (now or _dt.datetime.now(_dt.timezone.utc)).strftime("%Y%m%d-%H%M%S")
        candidate = out.with_name(f"{out.name}-{stamp}")
        k = 2
        while candidate.exists():
            candidate = out.with_name(f"{out.name}-{stamp}-{k}")
            k += 1
        return candidate
    empty = not any(out.iterdir())
    if if_exists == "error" and not empty:
        what = "a report folder" if is_report_folder(out) else "a folder"
        raise InputError(f"the output folder already exists ({what})",
                         location=Location(str(out)),
                         hint="choose another --out, pass --force (or --if-exists "
                              "replace) to replace a report, or --if-exists timestamp to "
                              "write a new timestamped folder beside it")
    if not empty and not is_report_folder(out):
        raise InputError("the output folder exists and is not a report folder, so it is "
                         "never replaced (it may be a checkpoint)",
                         location=Location(str(out)),
                         hint="give a new folder inside it, e.g. --out "
                              f"{out / 'eval-report'}, or --if-exists timestamp")
    return out


@contextlib.contextmanager
def report_folder(out: str | Path, *, force: bool = False) -> Iterator[Path]:
    """Build a report folder aside and move it to ``out`` when the block succeeds.

    Yields a temporary folder next to ``out`` to write into. On success it replaces
    ``out`` (which must not exist, be empty, or — with ``force`` — be a report folder);
    on any exception it is removed and ``out`` is left as it was. Use
    :func:`resolve_out` first for the ``timestamp`` policy.

    Raises
    ------
    InputError
        ``out`` exists and ``force`` is false, or it is not a report folder, or its
        parent cannot be written — checked before the block runs, so no work is wasted.
    """
    out = resolve_out(out, if_exists="replace" if force else "error")
    parent = out.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=parent))
        os.chmod(tmp, default_mode(folder=True))
    except OSError as exc:
        raise InputError(f"cannot write next to the output folder ({exc.strerror or exc})",
                         location=Location(str(parent)),
                         hint="choose a folder you can write to with --out") from None
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if out.exists() and not force and any(out.iterdir()):  # written meanwhile
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError("the output folder was created by someone else while this "
                         "report was being made; it was left alone",
                         location=Location(str(out)),
                         hint="run again with another --out, or --if-exists timestamp")
    if out.exists():  # force (or an empty folder): move it aside, then swap
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=parent))
        os.replace(out, old / "report")
    try:
        os.replace(tmp, out)
    except OSError as exc:
        if old is not None:
            os.replace(old / "report", out)
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError(f"cannot move the finished report into place "
                         f"({exc.strerror or exc})", location=Location(str(out)),
                         hint="another run may have written the same folder meanwhile; "
                              "run again or choose another --out") from None
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

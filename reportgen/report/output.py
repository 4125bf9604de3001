"""Writing outputs safely: check the output folder before any work, write files
atomically (a temporary file renamed into place), JSON without NaN."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from reportgen.errors import InputError, Location

__all__ = ["prepare_output_dir", "write_json_atomic"]


def prepare_output_dir(path: str | Path) -> Path:
    """Create ``path`` if needed and check it is a writable folder, before any work.

    Raises
    ------
    InputError
        ``path`` is a file, cannot be created, or is not writable.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InputError("the output path exists and is not a folder",
                         location=Location(str(folder)), hint="choose another --out")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise InputError(f"cannot write to the output folder ({exc.strerror or exc})",
                         location=Location(str(folder)),
                         hint="choose a folder you can write to with --out") from None
    return folder


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def default_mode(*, folder: bool = False) -> int:
    """The permissions a plain ``open()``/``mkdir()`` would give (temporary files and
    folders are created private; outputs should not be)."""
    return (0o777 if folder else 0o666) & ~_umask()


def write_json_atomic(path: Path, document: Any) -> Path:
    """Write ``document`` as indented JSON to ``path`` via a temporary file and a rename,
    so readers never see a half-written file. NaN/inf are refused (write None)."""
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.write("\n")
        os.chmod(tmp, default_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path

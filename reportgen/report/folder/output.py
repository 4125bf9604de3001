"""Writing outputs safely: check the output folder before any work, write files
atomically (a temporary file renamed into place), JSON without NaN, CSV tables whose text
cannot become a spreadsheet formula."""

from __future__ import annotations

import csv
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen.errors import InputError, Location

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "FORMULA_PREFIXES",
    "csv_safe_text",
    "prepare_output_dir",
    "readable_json",
    "write_csv",
    "write_json_atomic",
]


def prepare_output_dir(path: str | Path) -> Path:
    """Create ``path`` if needed and check it is a writable folder, before any work.

    Raises
    ------
    InputError
        ``path`` is a file, cannot be created, or is not writable.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InputError(
            "the output path exists and is not a folder",
            location=Location(str(folder)),
            hint="choose another --out",
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise InputError(
            f"cannot write to the output folder ({exc.strerror or exc})",
            location=Location(str(folder)),
            hint="choose a folder you can write to with --out",
        ) from None
    return folder


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def default_mode(*, folder: bool = False) -> int:
    """The permissions a plain ``open()``/``mkdir()`` would give (temporary files and
    folders are created private; outputs should not be)."""
    return (0o777 if folder else 0o666) & ~_umask()


#: JSON documents up to this size are laid out for people (:func:`readable_json`); larger
#: ones are written compact, in one call of the C encoder (a results.json of 1,000
#: systems holds half a million comparisons, 600 MB).
INDENT_MAX_BYTES = 20 * 2**20

_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def readable_json(document: Any) -> str:
    """``document`` as JSON laid out for people and diffs: objects and arrays that hold
    objects or arrays are indented by two spaces, one member per line; an object or
    array of plain values (a comparison row, a list of names) is one line.

    Each line is written by the C encoder, so this takes about twice the time of a
    compact dump, where ``json.dumps(indent=2)`` (pure Python) takes three to four
    times; the document reads back the same (``json.loads``). NaN and infinity are
    refused, as by ``json.dumps(allow_nan=False)``.

    >>> print(readable_json({"seed": 1, "rows": [{"a": 1, "b": [2, 3]}, {"a": 4, "b": "x"}]}))
    {
      "seed": 1,
      "rows": [
        {
          "a": 1,
          "b": [2, 3]
        },
        {"a": 4, "b": "x"}
      ]
    }
    """
    parts: list[str] = []
    _layout(document, "\n", parts)
    return "".join(parts)


def _layout(value: Any, newline: str, parts: list[str]) -> None:
    if isinstance(value, dict):
        if not value or not any(isinstance(v, (dict, list, tuple)) for v in value.values()):
            parts.append(_ENCODE(value))
            return
        inner = newline + "  "
        parts.append("{")
        for k, (key, member) in enumerate(value.items()):
            # json's own rules for keys (str, int, float, bool, None) via a one-key dict
            name = _ENCODE(key) if isinstance(key, str) else _ENCODE({key: 0})[1:-4]
            parts.append(("," if k else "") + inner + name + ": ")
            _layout(member, inner, parts)
        parts.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value or not any(isinstance(v, (dict, list, tuple)) for v in value):
            parts.append(_ENCODE(value))
            return
        inner = newline + "  "
        parts.append("[")
        for k, item in enumerate(value):
            parts.append(("," if k else "") + inner)
            _layout(item, inner, parts)
        parts.append(newline + "]")
    else:
        parts.append(_ENCODE(value))


def write_json_atomic(path: Path, document: Any) -> Path:
    """Write ``document`` as JSON to ``path`` via a temporary file and a rename, so
    readers never see a half-written file: laid out for people (:func:`readable_json`)
    up to :data:`INDENT_MAX_BYTES`, compact above. NaN/inf are refused (write None)."""
    text = _ENCODE(document)
    if len(text) <= INDENT_MAX_BYTES:
        text = readable_json(document)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # a file name that is not valid UTF-8 reaches here as lone surrogates (Python's
        # surrogateescape); "backslashreplace" writes each as the JSON escape \udcXX,
        # which reads back as the same string
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)
            fh.write("\n")
        os.chmod(tmp, default_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


#: The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV
#: Injection"): ``=``, ``+``, ``-``, ``@``, tab and carriage return.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def csv_safe_text(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is text that a spreadsheet would run as a
    formula (a system named ``=HYPERLINK("http://x","c")``, ``+cmd|' /C calc'!A0`` or
    ``@SUM(1+1)``); anything else unchanged.

    Numbers stay numbers (``-0.07`` is written as the number it is); only text cells are
    prefixed, as the OWASP rule for CSV injection asks. The ``'`` shows in a text
    editor; Excel and LibreOffice hide it and show the text.

    >>> print(csv_safe_text('=HYPERLINK("http://x","c")'))
    '=HYPERLINK("http://x","c")
    >>> csv_safe_text(-0.5), csv_safe_text("gpt-4")
    (-0.5, 'gpt-4')
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def write_csv(frame: pd.DataFrame, path: Path) -> Path:
    """Write ``frame`` as CSV (no index, text quoted), its text cells made safe by
    :func:`csv_safe_text` and its column names too."""
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype == object or str(safe[column].dtype) in ("string", "str"):
            safe[column] = safe[column].map(csv_safe_text)
    safe.columns = [csv_safe_text(str(c)) for c in safe.columns]
    # text quoted: a carriage return inside a name must not end the row
    safe.to_csv(path, index=False, quoting=csv.QUOTE_NONNUMERIC)
    return path

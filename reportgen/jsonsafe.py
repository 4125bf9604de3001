"""The one JSON-safety helper: any nested value of results.json, history.json, the
manifest or notebook parameters made strict JSON; and the one hardened reader of JSON
and TOML documents (:func:`load_json`, :func:`load_toml`), with limits on size and
nesting, whose every failure is an :class:`~reportgen.errors.InputError` naming the file."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from reportgen.errors import InputError, Location

__all__ = [
    "HISTORY_FORMAT_VERSION",
    "MAX_DEPTH",
    "MAX_JSON_BYTES",
    "RESULTS_FORMAT_VERSION",
    "check_format_version",
    "json_safe",
    "load_json",
    "load_toml",
    "nesting_exceeds",
]

#: Major version of the layout of results.json (``format_version``): readers refuse a
#: newer one and read older ones (a file without the field is version 1).
RESULTS_FORMAT_VERSION = 1
#: Major version of the layout of history.json.
HISTORY_FORMAT_VERSION = 1

#: Deepest nesting of arrays and objects :func:`load_json` accepts. reportgen's own
#: documents nest fewer than 12 levels (a notebook's outputs included); a document
#: nested thousands of levels deep is an attack on the parser, not data.
MAX_DEPTH = 64
#: Largest document :func:`load_json` reads, in bytes (a results.json of 1,000 systems
#: is 600 MB).
MAX_JSON_BYTES = 4 * 2**30


def nesting_exceeds(document: Any, limit: int) -> bool:
    """Whether ``document`` nests more than ``limit`` levels (without recursion: the
    check itself must not overflow the stack)."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))
    return False


def _too_deep(source: str, name: str, limit: int, hint: str) -> InputError:
    return InputError(
        f"{name} nests arrays or objects more than {limit} levels deep",
        location=Location(source),
        hint=hint,
    )


def load_json(
    data: bytes | str,
    *,
    source: str | Path,
    max_depth: int = MAX_DEPTH,
    max_bytes: int = MAX_JSON_BYTES,
    hint: str = "the file is damaged or was not written for reportgen; check it",
    what: str | None = None,
) -> Any:
    """Parse a JSON document with limits: the one JSON reader of reportgen's commands.

    Parameters
    ----------
    data
        The document's bytes (UTF-8, a BOM allowed) or text.
    source
        The file it came from, named in every error.
    max_depth, max_bytes
        Limits of nesting and size (:data:`MAX_DEPTH`, :data:`MAX_JSON_BYTES`).
    hint
        What to do, said with every error.
    what
        What the document is, as messages start (default: the file's name).

    Raises
    ------
    InputError
        Not UTF-8, not JSON (with line and column), too large, nested too deeply, or too
        large for the memory available; never ``RecursionError`` or ``MemoryError``.

    Examples
    --------
    >>> load_json(b'{"a": [1, 2]}', source="x.json")
    {'a': [1, 2]}
    >>> try:
    ...     load_json("[" * 100 + "]" * 100, source="deep.json")
    ... except InputError as exc:
    ...     print(exc.message)
    deep.json nests arrays or objects more than 64 levels deep
    """
    where = str(source)
    name = what or Path(where).name or "the document"
    if len(data) > max_bytes:
        raise InputError(
            f"{name} is {len(data):,} bytes, more than the {max_bytes:,} reportgen reads",
            location=Location(where),
            hint=hint,
        )
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{name} is not UTF-8 text (byte {exc.start + 1} cannot be decoded)",
            location=Location(where),
            hint=hint,
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{name} is not valid JSON ({exc.msg})",
            location=Location(where, exc.lineno, exc.colno),
            hint=hint,
        ) from None
    except RecursionError:
        raise _too_deep(where, name, max_depth, hint) from None
    except MemoryError:
        raise InputError(
            f"{name} ({len(data):,} bytes) does not fit in the memory available",
            location=Location(where),
            hint="give reportgen more memory (raise the limit, e.g. ulimit -v), or a smaller file",
        ) from None
    if nesting_exceeds(document, max_depth):
        raise _too_deep(where, name, max_depth, hint)
    return document


def load_toml(
    text: str, *, source: str | Path, max_depth: int = MAX_DEPTH, hint: str | None = None
) -> dict[str, Any]:
    """Parse a TOML document (``tomllib``) with the nesting limit of :func:`load_json`.

    Raises
    ------
    InputError
        Not TOML (with line and column when the parser gives them) or nested too deeply.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib

    where = str(source)
    name = Path(where).name or "the document"
    what = hint or "fix the TOML syntax (https://toml.io)"
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(
            f"{name} is not valid TOML ({exc})", location=Location(where), hint=what
        ) from None
    except RecursionError:
        raise _too_deep(where, name, max_depth, what) from None
    if nesting_exceeds(document, max_depth):
        raise _too_deep(where, name, max_depth, what)
    return document


def check_format_version(
    document: Mapping[str, Any], *, supported: int, what: str, source: str | Path
) -> int:
    """The ``format_version`` of a reportgen document, refused when newer than
    ``supported`` (its major version; a missing version is the first, 1).

    Raises
    ------
    InputError
        A newer major version (written by a newer reportgen), or a version that is not a
        positive whole number (or ``"MAJOR.MINOR"`` text).

    Examples
    --------
    >>> check_format_version({"format_version": 1}, supported=1, what="results.json", source="r")
    1
    >>> check_format_version({}, supported=1, what="results.json", source="r")
    1
    """
    raw = document.get("format_version", 1)
    major: int | None = None
    if isinstance(raw, int) and not isinstance(raw, bool):
        major = raw
    elif isinstance(raw, str) and raw.split(".")[0].isdigit():
        major = int(raw.split(".")[0])
    if major is None or major < 1:
        raise InputError(
            f"{what} has an invalid format_version {raw!r}",
            location=Location(str(source)),
            hint="the file was edited or damaged; make it again with reportgen",
        )
    if major > supported:
        raise InputError(
            f"{what} has format version {raw}, newer than this reportgen reads "
            f"({supported}): it was written by a newer reportgen",
            location=Location(str(source)),
            hint="upgrade reportgen (pip install -U reportgen) to read it",
        )
    return major


def json_safe(value: Any) -> Any:
    """``value`` as strict JSON data.

    Mappings become dicts with string keys, tuples and lists become lists, every
    non-finite float (NaN, ±inf: the undefined statistics of degenerate data) becomes
    None, numpy scalars become Python numbers and any other object its ``str``.

    Examples
    --------
    >>> json_safe({"a": (1.5, float("nan")), 2: np.int64(3), "ok": np.bool_(True)})
    {'a': [1.5, None], '2': 3, 'ok': True}
    """
    kind = type(value)  # exact types first: a results.json holds millions of values
    if kind is float:
        return value if math.isfinite(value) else None
    if value is None or kind is str or kind is bool or kind is int:
        return value
    if kind is dict:
        return {str(k): json_safe(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [json_safe(v) for v in value]
    if isinstance(value, (str, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        x = float(value)
        return x if math.isfinite(x) else None
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    return str(value)

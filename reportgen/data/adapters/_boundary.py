"""One error boundary around every adapter's parse.

Adapters check what they read and raise :class:`~reportgen.errors.InputError` with the
file, the line and the harness's field for what they foresee. A damaged or hand-edited
log holds what no one foresaw: a number where an object was, ``NaN`` where a list was,
``10**400``, a list emptied, a file cut off at any byte, a line nested 100,000 deep.
:func:`adapter_boundary` runs each adapter call (the registry's dispatch,
:func:`reportgen.data.adapters.read_inputs`) and turns whatever such content raises
(``AttributeError``, ``TypeError``, ``KeyError``, ``IndexError``, ``ValueError``,
``OverflowError``, ``RecursionError``, ``MemoryError``, ...) into one ``InputError``:

* **where**: the record being read when it failed, when the adapter names it (its
  ``Location``: file, line, the harness's field), else the file read last, else the
  input given;
* **what**: the fault in plain words (``a number where an object was expected``, ``the
  field 'doc_id' is missing``), with the exception's own text cut short as an excerpt;
* **what to do**: regenerate the file, or read it as another format.

A file-system error (no permission, an I/O error) becomes the
:func:`~reportgen.errors.file_system_error` of the file. A new adapter gets all this
from the registry, without code of its own.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from reportgen.data.adapters._base import Adapter, ReadLog
from reportgen.errors import (
    InputError,
    Location,
    ReportgenError,
    file_system_error,
    is_file_system_error,
    path_text,
)

__all__ = ["MalformedInputError", "adapter_boundary", "harness_name", "malformed_input_error"]


class MalformedInputError(InputError):
    """A harness's output that an adapter could not parse (content it did not foresee),
    said with the file, the record where known and the fault."""


@contextlib.contextmanager
def adapter_boundary(harness: str, path: Path | str, log: ReadLog | None = None) -> Iterator[None]:
    """Run an adapter call for ``path`` of format ``harness``: any exception other than
    reportgen's own (and ``KeyboardInterrupt``/``SystemExit``, which are not
    ``Exception``) leaves as a :class:`MalformedInputError` (or a
    :class:`~reportgen.errors.FileSystemError`); ``log``: the files read by the call
    (the last one read is where a parse that names no record failed)."""
    try:
        yield
    except ReportgenError:
        raise
    except Exception as exc:  # noqa: BLE001 - the boundary: everything becomes the user's error
        files = [f.path for f in log.files] if log is not None else None
        raise malformed_input_error(harness, path, exc, files) from exc


def harness_name(adapter: Adapter) -> str:
    """How messages name an adapter's format: the harness (the first word of its
    description: ``DeepEval``, ``lm-evaluation-harness``), or ``long table``."""
    if adapter.generic:
        return f"{adapter.name} table"
    return adapter.description.split(" ", 1)[0] or adapter.name


#: Python's type names as a JSON file's reader knows them.
_JSON_TYPES = {
    "float": "a number",
    "int": "a number",
    "str": "text",
    "list": "a list",
    "tuple": "a list",
    "dict": "an object",
    "NoneType": "null",
    "bool": "true or false",
}
_WRONG_TYPE = re.compile(r"'(\w+)' object")


def _fault(exc: BaseException) -> str:
    """What went wrong, in the words of the file rather than of Python."""
    if isinstance(exc, RecursionError):
        return "the data nest deeper than any result file does"
    if isinstance(exc, OverflowError):
        return "a number is too large for a floating-point value (beyond ±1.8e308)"
    if isinstance(exc, MemoryError):
        return "a value asks for more memory than there is"
    if isinstance(exc, KeyError):
        key = exc.args[0] if exc.args else None
        return (
            f"the field {str(key)[:60]!r} is missing" if key is not None else "a field is missing"
        )
    if isinstance(exc, IndexError):
        return "a list is shorter than the harness writes it (an empty list?)"
    if isinstance(exc, (AttributeError, TypeError)):
        found = _WRONG_TYPE.search(str(exc))
        if found:
            kind = _JSON_TYPES.get(found[1], f"a {found[1]}")
            return f"a value is of the wrong type ({kind} where the harness writes something else)"
        return "a value is of the wrong type"
    if isinstance(exc, UnicodeError):
        return "text that is not valid Unicode"
    if isinstance(exc, (ValueError, ArithmeticError)):
        return "a value the harness does not write"
    return "content the harness does not write"


def _excerpt(exc: BaseException, limit: int = 80) -> str:
    text = " ".join(str(exc).split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _record_location(tb: TracebackType | None) -> Location | None:
    """The record an adapter was reading when it failed: the innermost ``Location`` a
    frame of the failed call holds (adapters name each record they read, e.g. ``where``,
    to say where an error is; no other code holds reportgen's ``Location``)."""
    found: Location | None = None
    while tb is not None:  # from the adapter call down to where it failed
        frame = tb.tb_frame
        preferred = [frame.f_locals.get(name) for name in ("where", "location")]
        for value in [*preferred, *frame.f_locals.values()]:
            if isinstance(value, Location) and value.file is not None:
                found = value
                break
        tb = tb.tb_next
    return found


def malformed_input_error(
    harness: str, path: Path | str, exc: BaseException, files: list[str] | None = None
) -> InputError:
    """The user's error for ``exc``, raised while an adapter of ``harness`` read
    ``path`` (:func:`adapter_boundary`)."""
    if isinstance(exc, OSError) and is_file_system_error(exc):
        return file_system_error(exc, exc.filename if exc.filename else path, reading=True)
    where = _record_location(exc.__traceback__)
    if where is None:
        where = Location(path_text(files[-1] if files else path))
    else:
        where = Location(path_text(where.file), where.line, where.column)
    return MalformedInputError(
        f"cannot read this {harness} output: {_fault(exc)} ({_excerpt(exc)})",
        location=where,
        hint=f"the file does not have the layout {harness} writes: it may be cut off, "
        f"damaged or edited by hand, or come from a {harness} version reportgen does not "
        "know; write it again with the harness, or pass --format to read it as another "
        "format",
    )

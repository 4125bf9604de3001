"""The error and warning family of reportgen.

Every error a user can cause derives from :class:`ReportgenError`; input problems are
:class:`InputError` (also a :class:`ValueError`) and carry *where* the problem is (a file,
a line, a column) and *what to do* about it. The CLI turns any ``ReportgenError`` into one
message on stderr and exit code 2, without a traceback.

Degenerate data (zero variance, one item, all ties) is not an error: it is reported with a
:class:`DegenerateDataWarning` and a documented NaN/None result.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass

from reportgen.plaintext import shown

__all__ = [
    "ConfigError",
    "DataWarning",
    "DegenerateDataWarning",
    "FileSystemError",
    "InputError",
    "Location",
    "OneSidedWarning",
    "ReportgenError",
    "ReportgenWarning",
    "file_system_error",
    "is_file_system_error",
    "path_text",
]


@dataclass(frozen=True)
class Location:
    """Where an input problem is: a file, and optionally a line (1-based) and a column.

    ``column`` is a column *name* for tables (``"score"``) or a 1-based character
    position for text formats.
    """

    file: str | None = None
    line: int | None = None
    column: str | int | None = None

    def __str__(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(str(self.file))
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.column is not None:
            parts.append(
                f"column {self.column!r}"
                if isinstance(self.column, str)
                else f"column {self.column}"
            )
        return ", ".join(parts)


class ReportgenError(Exception):
    """Base class of every error reportgen raises on purpose."""


class InputError(ReportgenError, ValueError):
    """Bad input data or options: says what is wrong, where, and what to do.

    Parameters
    ----------
    message
        What is wrong, in one sentence.
    location
        Where: a :class:`Location` (file, line, column), or ``None``.
    hint
        What to do about it.
    """

    def __init__(
        self, message: str, *, location: Location | None = None, hint: str | None = None
    ) -> None:
        self.message = message
        self.location = location
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        # the message and the location are one line each, whatever names they hold
        # (a name with a line break or U+202E is shown escaped, never obeyed)
        text = shown(self.message)
        if self.location is not None and str(self.location):
            text = f"{shown(self.location)}: {text}"
        if self.hint:
            text = f"{text}\n  hint: {shown(self.hint, keep_lines=True)}"
        return text


class ConfigError(InputError):
    """A bad configuration file or contradictory options."""


class FileSystemError(InputError):
    """A file or folder could not be read or written: no permission, a full disk, a
    file-size limit, a read-only file system. The user's to fix (exit code 2), like bad
    input; :func:`file_system_error` makes one from the ``OSError``."""


#: The ``OSError`` numbers of file-system faults: what the user is told, and what to do
#: (``{place}``: the path, or "the output folder"). Anything else is a bug or a fault of
#: the machine, and keeps its traceback.
_FS_FAULTS: dict[int, tuple[str, str]] = {
    errno.EACCES: (
        "permission denied",
        "check the permissions of {place} and of the folders above it",
    ),
    errno.EPERM: (
        "operation not permitted",
        "check the permissions of {place} and of the folders above it",
    ),
    errno.ENOSPC: (
        "no space left on the device (the disk is full)",
        "free some space, or use another disk (--out; TMPDIR for temporary files)",
    ),
    errno.EDQUOT: (
        "the disk quota is exceeded",
        "free some space, or use another disk (--out; TMPDIR for temporary files)",
    ),
    errno.EFBIG: (
        "file too large for the file-size limit of this process or file system",
        "raise the limit (`ulimit -f`), or use another disk (--out)",
    ),
    errno.EROFS: ("the file system is read-only", "use a place that can be written (--out)"),
    errno.ENAMETOOLONG: ("the file name is too long", "use a shorter path"),
    errno.ELOOP: ("too many levels of symbolic links", "check the links on the way to {place}"),
    errno.EIO: ("input/output error", "check the disk (dmesg), then try again"),
    errno.EMFILE: ("too many open files", "raise the limit (`ulimit -n`), then try again"),
    errno.ENFILE: ("too many open files on the system", "try again later"),
    errno.ENOTDIR: ("a part of the path is not a folder", "check {place}"),
    errno.EISDIR: ("it is a folder", "check {place}"),
    errno.ENOENT: ("no such file or folder", "check {place}"),
    errno.ETXTBSY: ("the file is busy", "try again when the program using it has finished"),
}


def is_file_system_error(exc: BaseException) -> bool:
    """Whether ``exc`` is an ``OSError`` of the file system the user can fix."""
    return isinstance(exc, OSError) and exc.errno in _FS_FAULTS


def path_text(path: object) -> str:
    """A path as text that prints and writes as UTF-8: a file name byte that is not
    UTF-8 is shown as ``\\xNN`` (Python holds it as a lone surrogate)."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    if isinstance(text, bytes):
        return text.decode("utf-8", errors="backslashreplace")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", errors="backslashreplace")
    return text


def file_system_error(
    exc: OSError, path: object = None, *, reading: bool | None, what: str | None = None
) -> FileSystemError:
    """The user's error for an ``OSError`` of the file system: what could not be read
    (``reading`` true) or written (false; None: not known), ``what`` it was (else the
    path alone says), why in plain words, and what to do.

    >>> denied = PermissionError(13, "Permission denied", "r/a.json")
    >>> error = file_system_error(denied, reading=True)
    >>> error.message, str(error.location)
    ('cannot be read: permission denied', 'r/a.json')
    """
    place = path if path is not None else exc.filename
    shown_place = path_text(place) if place is not None else None
    reason, todo = _FS_FAULTS.get(
        exc.errno if exc.errno is not None else -1,
        ((exc.strerror or str(exc) or type(exc).__name__).lower(), "check {place}"),
    )
    if reading is None:  # not known whether it was read or written
        message = f"{what}: {reason}" if what else reason
    elif what:
        message = f"cannot {'read' if reading else 'write'} {what}: {reason}"
    else:
        message = f"cannot be {'read' if reading else 'written'}: {reason}"
    return FileSystemError(
        message,
        location=Location(shown_place) if shown_place else None,
        hint=todo.format(place=shown_place or "the path"),
    )


class ReportgenWarning(UserWarning):
    """Base class of reportgen's warnings."""


class DataWarning(ReportgenWarning):
    """Something in the data deserves attention but does not stop the analysis
    (items excluded for partial overlap, errored samples dropped, ...)."""


class DegenerateDataWarning(ReportgenWarning):
    """The data make a statistic undefined (zero variance, n < 2, all ties); the
    result is NaN/None as documented by the function that warns."""


class OneSidedWarning(ReportgenWarning):
    """A one-sided alternative was requested: valid only if its direction was fixed
    before looking at the data (Ackerman et al. 2025, §4.2)."""

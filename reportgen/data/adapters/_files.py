"""Looking at files in the folders a user gives, without trusting what is there.

A folder of results may hold anything: a FIFO named ``results.json`` (opening it would
wait for a writer forever), a socket or a device, a symbolic link to a place outside
the folder, a subfolder or a file the user may not read, a name that is not UTF-8,
50,000 unrelated files. Format detection (the registry's walk and every adapter's
``sniff`` of a folder) looks at entries only through these helpers, which

* decide what an entry is with ``lstat`` before anything is opened, and open only
  regular files, without blocking (``O_NONBLOCK``) and checked again on the open
  descriptor (a file swapped for a FIFO in between is refused, not waited on);
* follow a symbolic link only when it stays inside the folder given (the scope of
  :func:`walk_scope`); outside a walk (a file given directly) links are followed;
* never raise: an entry that cannot be looked at is not there for detection, and
  :func:`reason_not_read` says why, for the list of skipped files;
* list each folder once per walk, and count every folder listed and every file whose
  first bytes they read against the bound of the walk
  (:attr:`~reportgen.data.adapters.LoadOptions.max_walk_files`): past it,
  :class:`WalkLimitReached` stops the walk with a message naming the bound.

Reading an input (after detection) goes through :func:`~reportgen.data.adapters._base.read_bytes`,
which applies the same checks and says what is wrong as an ``InputError``.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from reportgen.errors import InputError, Location

__all__ = [
    "Entry",
    "WalkLimitReached",
    "WalkScope",
    "entries",
    "examine",
    "is_file",
    "is_folder",
    "read_head",
    "reason_not_read",
    "shown_name",
    "special_kind",
    "utf8_name",
    "walk_scope",
]

#: How many bytes :func:`read_head` reads by default (the registry's ``SNIFF_BYTES``).
HEAD_BYTES = 65536


@dataclass
class WalkScope:
    """The folder a walk was given (links leaving it are not followed) and the count
    of files looked into, against ``max_files``."""

    root: str
    max_files: int
    #: the folder as given, for messages
    given: str = ""
    #: the files looked into and the folders listed (each counted once, however many
    #: formats look at it)
    examined: set[str] = field(default_factory=set)
    #: each folder's entries, listed once per walk (every format's sniff of a folder
    #: looks through its subfolders: without this, a deep tree is listed once per level)
    listings: dict[str, list[Entry]] = field(default_factory=dict)
    #: why entries could not be looked at, by path (for the walk's list of skipped files)
    unreadable: dict[str, str] = field(default_factory=dict)

    def inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep)


_SCOPE: contextvars.ContextVar[WalkScope | None] = contextvars.ContextVar(
    "reportgen_walk_scope", default=None
)


class WalkLimitReached(InputError):
    """A folder walk looked into more files than its bound allows."""


@contextlib.contextmanager
def walk_scope(root: Path | str, *, max_files: int) -> Iterator[WalkScope]:
    """Look at ``root`` and what is below it: links leaving it are not followed, and at
    most ``max_files`` files are looked into (:class:`WalkLimitReached` past that).
    Nested scopes keep the outer one (its root and its count)."""
    outer = _SCOPE.get()
    if outer is not None:
        yield outer
        return
    scope = WalkScope(os.path.realpath(root), max_files, shown_name(root))
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def examine(path: Path | str) -> None:
    """Count ``path`` (a file looked into, a folder listed) against the walk's bound;
    :class:`WalkLimitReached` past it. Outside a walk, nothing."""
    _examine(path)


def _examine(path: Path | str) -> None:
    scope = _SCOPE.get()
    if scope is None:
        return
    scope.examined.add(str(path))
    if len(scope.examined) > scope.max_files:
        raise WalkLimitReached(
            f"stopped after looking into {scope.max_files:,} files and folders below this "
            "folder (the bound --max-walk-files) without finishing the search",
            location=Location(scope.given),
            hint="pass the result folders or files themselves rather than a folder "
            "holding many other files, or raise the bound with --max-walk-files N "
            "(max_walk_files in the [input] section of the config)",
        )


# ----------------------------------------------------------------------------- names


def utf8_name(path: Path | str) -> bool:
    """Whether ``path`` is valid UTF-8 (a name Python read from the file system with
    ``surrogateescape`` holds lone surrogates where its bytes were not UTF-8)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(path: Path | str) -> str:
    """``path`` as text that can be printed and written as UTF-8: a byte that is not
    UTF-8 is shown as ``\\xNN``.

    >>> shown_name(os.fsdecode(b"scores-\\xff.csv"))
    'scores-\\\\xff.csv'
    """
    text = str(path)
    if utf8_name(text):
        return text
    return os.fsencode(text).decode("utf-8", errors="backslashreplace")


# ----------------------------------------------------------------------------- kinds

_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def special_kind(mode: int) -> str | None:
    """What a file that is neither a regular file nor a folder is (``"a FIFO (named
    pipe)"``, ``"a socket"``, ...), or None for a regular file or a folder."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((name for test, name in _SPECIAL if test(mode)), "a special file")


def _target(path: Path | str) -> tuple[os.stat_result | None, str | None]:
    """The status of what ``path`` names (a link inside the scope resolved) and, when
    it cannot be looked at, why."""
    try:
        info = os.lstat(path)
    except (OSError, ValueError) as exc:
        return None, _strerror(exc)
    if not stat.S_ISLNK(info.st_mode):
        return info, None
    real = os.path.realpath(path)
    scope = _SCOPE.get()
    if scope is not None and not scope.inside(real):
        return None, (
            f"a symbolic link to {shown_name(real)}, outside the folder given: not followed"
        )
    try:
        return os.stat(real), None
    except (OSError, ValueError) as exc:
        return None, f"a symbolic link that leads nowhere readable ({_strerror(exc)})"


def _strerror(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower() if exc.strerror[:1].isupper() else exc.strerror
    return str(exc) or type(exc).__name__


def reason_not_read(path: Path | str) -> str | None:
    """Why the entry ``path`` cannot be read as an input (a FIFO, a socket, a device, a
    link leaving the folder given, a name that is not UTF-8, no permission to look at
    it), or None for a regular file or a folder (whether it can be opened is for the
    reader to say)."""
    if not utf8_name(path):
        return "its name is not valid UTF-8: rename it (e.g. with convmv)"
    info, why = _target(path)
    if info is None:
        return f"cannot read it: {why}" if why and not why.startswith("a symbolic") else why
    kind = special_kind(info.st_mode)
    if kind is not None:
        return f"{kind}, not a regular file: not read"
    return None


def is_file(path: Path | str) -> bool:
    """Whether ``path`` is a regular file (through a link that stays inside the walk's
    folder); never raises (a name too long, no permission on the way: False)."""
    info, _ = _target(path)
    return info is not None and stat.S_ISREG(info.st_mode)


def is_folder(path: Path | str) -> bool:
    """Whether ``path`` is a folder (through a link that stays inside the walk's
    folder); never raises."""
    info, _ = _target(path)
    return info is not None and stat.S_ISDIR(info.st_mode)


@dataclass(frozen=True)
class Entry:
    """An entry of a folder that may be looked at: a regular file or a folder."""

    name: str
    path: Path
    kind: Literal["file", "folder"]


def entries(folder: Path | str) -> list[Entry]:
    """The regular files and folders directly inside ``folder``, sorted by name: links
    resolved when they stay inside the walk's folder, everything else (FIFOs, sockets,
    devices, links leaving the folder, names that are not UTF-8, entries that cannot be
    looked at) left out; an unreadable folder has none. Never raises but for
    :class:`WalkLimitReached`: within a walk each folder is listed once, and counts
    against its bound."""
    scope = _SCOPE.get()
    if scope is not None:
        key = os.fspath(folder)
        known = scope.listings.get(key)
        if known is not None:
            return known
        _examine(key)
    found_entries = _list(folder)
    if scope is not None:
        scope.listings[key] = found_entries
    return found_entries


def _list(folder: Path | str) -> list[Entry]:
    try:
        with os.scandir(folder) as listing:
            found = sorted(listing, key=lambda e: e.name)
    except (OSError, ValueError) as exc:
        scope = _SCOPE.get()
        if scope is not None:
            scope.unreadable.setdefault(str(folder), f"cannot list it: {_strerror(exc)}")
        return []
    out = []
    for entry in found:
        if not utf8_name(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISLNK(info.st_mode):
            resolved, _ = _target(entry.path)
            if resolved is None:
                continue
            info = resolved
        if stat.S_ISREG(info.st_mode):
            out.append(Entry(entry.name, Path(entry.path), "file"))
        elif stat.S_ISDIR(info.st_mode):
            out.append(Entry(entry.name, Path(entry.path), "folder"))
    return out


def read_head(path: Path | str, size: int = HEAD_BYTES, *, errors: bool = False) -> bytes | None:
    """The first ``size`` bytes of the regular file ``path``, or None when it is not
    one (checked on the open descriptor: nothing else is ever read), cannot be opened,
    or is a link leaving the walk's folder. Never blocks (``O_NONBLOCK``), never
    raises but for :class:`WalkLimitReached`; with ``errors``, the ``OSError`` of a
    file that cannot be opened or read, or is not a regular file, is raised instead of
    returning None. Counts against the walk's bound."""
    info, why = _target(path)
    if info is None or not stat.S_ISREG(info.st_mode):
        if errors:
            if info is None and why is not None and why.startswith("a symbolic"):
                raise OSError(errno.ELOOP, why, str(path))
            os.stat(path)  # the OSError of what cannot be looked at
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return None
    _examine(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        if errors:
            raise
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            if errors:
                raise OSError(errno.EINVAL, "not a regular file", str(path))
            return None
        return os.read(fd, size)
    except OSError:
        if errors:
            raise
        return None
    finally:
        os.close(fd)

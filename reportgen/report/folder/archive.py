"""The report folder written safely (its manifest and the check of results.json are in
:mod:`reportgen.report.folder.manifest`).

A report folder is built in a hidden sibling folder (``.reportgen-OUT.xxxxxxxx.partial``,
holding a marker file :data:`BUILD_MARKER` from its creation until the swap) and renamed
into place only when everything is written, so a failure never leaves a half-written
archive. Replacing an existing folder is guarded four ways:

* **Ownership.** A folder is replaced only when its ``manifest.json`` was written by
  reportgen (it carries :data:`MANIFEST_FORMAT` and a format version) and every file in
  it is listed there; otherwise nothing is touched and the first foreign file is named.
  An empty folder may be filled. A symbolic link as the output folder is refused.
* **Unchanged.** Every listed file must still have the SHA-256 the manifest records (and
  the manifest its own seal): a file edited since (a reviewer's note in results.json) is
  named and the old report kept, unless the user says ``--if-exists replace-edited``.
* **One writer.** A run holds an exclusive lock on ``.reportgen-OUT.lock`` beside the folder (an
  ``flock``, released by the kernel when the process dies, with the PID written in the
  file) from before any work until the folder is in place; a second run into the same
  folder stops at once (exit status 2).
* **A race-safe swap.** The old folder is renamed aside, checked again (a file added
  between the first check and the rename is caught), the new folder is renamed into
  place, and then only the files the old manifest lists, with the digest it records,
  are deleted; anything else is kept and named. A concurrent change stops the swap with
  both folders intact. No entry is followed if it is a symbolic link: the folder moved
  aside must be a real folder, and it is emptied through file descriptors opened with
  ``O_NOFOLLOW``, so a link swapped in at any moment leads nowhere.

What a killed run left behind is cleaned up by the next run into the same parent folder
once no live run holds its lock, and only when it is reportgen's own: a build folder
named ``.reportgen-OUT.xxxxxxxx.partial`` whose marker file names it, a report moved
aside (``.reportgen-OUT.xxxxxxxx.old``, with reportgen's manifest: it is put back), a
lock file ``.reportgen-OUT.lock`` holding ``reportgen PID``. Nothing else in the parent
folder (a checkpoint's ``.weights.20250101.partial``) is ever deleted or renamed.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import hashlib
import os
import platform
import re
import secrets
import shutil
import stat
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.errors import InputError, Location, ReportgenError, ReportgenWarning, path_text
from reportgen.jsonsafe import load_json
from reportgen.names import IF_EXISTS
from reportgen.report.folder.manifest import (
    KEY_PACKAGES,
    MANIFEST_FORMAT,
    MANIFEST_FORMAT_VERSION,
    NOFOLLOW,
    build_manifest,
    canonical_json,
    disk_full_error,
    fd_sha256,
    file_sha256,
    manifest_digest,
    open_regular,
    read_regular,
    results_schema,
    seal_manifest,
    validate_results,
)
from reportgen.report.folder.output import default_mode

# the manifest's names are re-exported: the pipeline and older callers import them here
__all__ = [
    "BUILD_MARKER",
    "KEY_PACKAGES",
    "NOFOLLOW",
    "fd_sha256",
    "open_regular",
    "read_regular",
    "IF_EXISTS",
    "MANIFEST_FORMAT",
    "MANIFEST_FORMAT_VERSION",
    "ForeignEntry",
    "build_manifest",
    "canonical_json",
    "disk_full_error",
    "entry_kind",
    "file_sha256",
    "foreign_entry",
    "is_report_folder",
    "manifest_digest",
    "read_manifest",
    "report_folder",
    "resolve_out",
    "results_schema",
    "seal_manifest",
    "validate_results",
    "walk_entries",
]

# ---------------------------------------------------------------------------------------
# Ownership: which folders may be replaced


@dataclass(frozen=True)
class ForeignEntry:
    """The first thing in a folder that reportgen did not write: its path relative to
    the folder (``""`` for the folder itself) and why."""

    path: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}: {self.why}" if self.path else self.why


def entry_kind(mode: int) -> str:
    """What a folder entry is, in words (``a symbolic link``, ``a FIFO``, ``a file``,
    ...), from its ``st_mode``: for messages about entries reportgen did not write."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a file"


def walk_entries(folder: Path, prefix: str = "") -> Iterator[tuple[str, os.stat_result]]:
    """Every entry under ``folder`` (relative path, lstat), sorted, not following links."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        path = folder / name
        rel = f"{prefix}{name}"
        try:
            info = path.lstat()
        except OSError:
            continue
        yield rel, info
        if stat.S_ISDIR(info.st_mode):
            yield from walk_entries(path, f"{rel}/")


def read_manifest(folder: str | Path) -> tuple[dict[str, Any] | None, str]:
    """The manifest reportgen wrote in ``folder``, or None and the reason it is not one
    (missing, not a regular file, not JSON, no format marker, a newer format)."""
    path = Path(folder) / "manifest.json"
    try:
        info = path.lstat()
    except OSError:
        return None, "the folder has no manifest.json"
    if not stat.S_ISREG(info.st_mode):
        return None, f"its manifest.json is {entry_kind(info.st_mode)}"
    try:
        manifest = load_json(read_regular(path), source=path)
    except (OSError, ReportgenError, MemoryError):
        return None, "its manifest.json is not valid JSON"
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        return None, "its manifest.json was not written by reportgen (no format marker)"
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return None, "its manifest.json has no valid format_version"
    if version > MANIFEST_FORMAT_VERSION:
        return None, (
            f"its manifest.json has format version {version}, newer than this "
            f"reportgen's {MANIFEST_FORMAT_VERSION}"
        )
    if not isinstance(manifest.get("outputs"), dict):
        return None, "its manifest.json lists no outputs"
    return manifest, ""


def _listed(manifest: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """Files a manifest lists (with itself) and the folders that hold them."""
    files = {str(name) for name in manifest["outputs"]} | {"manifest.json"}
    folders = {
        "/".join(name.split("/")[:k]) for name in files for k in range(1, name.count("/") + 1)
    }
    return files, folders


def _edited(root: Path, manifest: Mapping[str, Any]) -> list[str]:
    """The files of ``root`` whose content differs from what ``manifest`` records: the
    listed outputs whose SHA-256 differs (read without following links), and
    ``manifest.json`` itself when its seal no longer matches."""
    edited = []
    recorded = manifest.get("manifest_sha256")
    if isinstance(recorded, str) and manifest_digest(manifest) != recorded:
        edited.append("manifest.json")
    for name, entry in manifest["outputs"].items():
        parts = str(name).split("/")
        if str(name).startswith("/") or any(p in ("", ".", "..") for p in parts):
            continue  # never read outside the folder: the walk finds no such file
        expected = entry.get("sha256") if isinstance(entry, Mapping) else None
        try:
            digest = fd_sha256(open_regular(root / str(name)))
        except OSError:
            continue  # missing, or not a file: the walk names it
        if digest != expected:
            edited.append(str(name))
    return edited


def foreign_entry(folder: str | Path, *, digests: bool = True) -> ForeignEntry | None:
    """The first entry of ``folder`` that reportgen did not write, or None when the
    folder may be replaced: it is empty, or its manifest carries reportgen's format
    marker and every file in it is a regular file that the manifest lists (folders only
    as far as they hold listed files; links, FIFOs and sockets are never ours) and,
    with ``digests``, still has the SHA-256 the manifest records (a file edited since
    is named, with the others edited)."""
    root = Path(folder)
    entries = list(walk_entries(root))
    if not entries:
        return None
    manifest, why = read_manifest(root)
    if manifest is None:
        first = next(
            (rel for rel, info in entries if not stat.S_ISDIR(info.st_mode)), entries[0][0]
        )
        if why.startswith("the folder has no"):
            return ForeignEntry(first, f"not written by reportgen ({why})")
        return ForeignEntry(
            "manifest.json",
            why.removeprefix("its manifest.json ").replace("was not written", "not written"),
        )
    files, folders = _listed(manifest)
    for rel, info in entries:
        mode = info.st_mode
        if stat.S_ISDIR(mode):
            if rel not in folders:
                return ForeignEntry(rel, "a folder its manifest.json does not list")
        elif not stat.S_ISREG(mode):
            return ForeignEntry(rel, f"{entry_kind(mode)}, which reportgen never writes")
        elif rel not in files:
            return ForeignEntry(rel, "not listed in its manifest.json")
    if digests:
        edited = _edited(root, manifest)
        if edited:
            more = (
                f"; also edited: {', '.join(edited[1:4])}"
                + (f" and {len(edited) - 4} more" if len(edited) > 4 else "")
                if len(edited) > 1
                else ""
            )
            return ForeignEntry(
                edited[0],
                "edited since reportgen wrote it (its SHA-256 differs from the one "
                f"manifest.json records){more}",
            )
    return None


def is_report_folder(path: str | Path) -> bool:
    """Whether ``path`` is a folder with a manifest written by reportgen."""
    folder = Path(path)
    return folder.is_dir() and not folder.is_symlink() and read_manifest(folder)[0] is not None


def _foreign_error(out: Path, found: ForeignEntry, *, during: bool = False) -> InputError:
    where = f"{out}/{found.path}" if found.path else str(out)
    if during:
        what = (
            "the output folder was changed by someone else while this report was "
            "made, so it was not replaced"
        )
    else:
        what = (
            "the output folder holds something reportgen did not write, so it is "
            "never replaced (it may be a checkpoint)"
        )
    if found.why.startswith("edited since"):
        what = "the old report was edited since reportgen wrote it, so it was not replaced"
        hint = (
            "copy what you want to keep elsewhere, then pass --if-exists replace-edited "
            "to replace it anyway (the edited files are deleted), or use "
            "--if-exists timestamp"
        )
    else:
        hint = (
            "move that away, give a new folder (e.g. --out "
            f"{out / 'eval-report'}), or use --if-exists timestamp"
        )
    return InputError(f"{what}: {found}", location=Location(where), hint=hint)


# ---------------------------------------------------------------------------------------
# Choosing the folder


#: What to do when the report folder already exists.


def _refuse_link(out: Path) -> None:
    if out.is_symlink():
        raise InputError(
            f"the output folder is a symbolic link (to {os.readlink(out)}); "
            "reportgen neither writes through nor replaces links",
            location=Location(str(out)),
            hint="give the real folder as --out, or another path",
        )


def resolve_out(
    out: str | Path, *, if_exists: str = "error", now: _dt.datetime | None = None
) -> Path:
    """The report folder to write, following the ``if_exists`` policy.

    Parameters
    ----------
    out
        The requested folder, e.g. ``CHECKPOINT_DIR/eval-report`` (its parent, e.g. the
        checkpoint folder, may exist and hold anything).
    if_exists
        When ``out`` exists: ``"error"`` (refuse), ``"replace"`` (replace it, only if
        reportgen wrote everything in it, unchanged: :func:`foreign_entry`),
        ``"replace-edited"`` (the same, but files edited since are deleted too), ``"timestamp"``
        (write a new sibling ``<out>-YYYYMMDD-HHMMSS``, UTC, with ``-2``, ``-3``… if
        that exists too). An empty folder is filled in any case.
    now
        The time of the timestamp (default: now).

    Raises
    ------
    InputError
        ``out`` is a symbolic link; it exists and the policy is ``"error"``; it is a
        file; or it holds something reportgen did not write (named in the message).
    """
    out = Path(out)
    if if_exists not in IF_EXISTS:
        raise InputError(
            f"unknown --if-exists {if_exists!r}", hint=f"one of {', '.join(IF_EXISTS)}"
        )
    if "\x00" in str(out):
        raise InputError(
            "the output path holds a NUL byte",
            location=Location(str(out).replace("\x00", "\\x00")),
            hint="choose another --out",
        )
    if path_text(out) != str(out):  # a name that is not UTF-8 (shown with \xNN)
        raise InputError(
            "the output folder's name is not valid UTF-8: reportgen could not write it "
            "into its manifest or show it",
            location=Location(path_text(out)),
            hint="choose a UTF-8 name for --out",
        )
    for part in out.parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX:
            raise InputError(
                f"a folder name of the output path is {size} bytes long, more than file "
                f"systems allow ({NAME_MAX})",
                location=Location(f"{part[:60]}…"),
                hint="choose a shorter --out",
            )
    try:
        return _resolve_out(out, if_exists=if_exists, now=now)
    except OSError as exc:
        raise InputError(
            f"cannot use the output folder ({exc.strerror or exc})",
            location=Location(str(out)),
            hint="choose another --out",
        ) from None


#: Longest file or folder name most file systems allow, in bytes.
NAME_MAX = 255


def _resolve_out(out: Path, *, if_exists: str, now: _dt.datetime | None) -> Path:
    _refuse_link(out)
    if not out.exists():
        return out
    if not out.is_dir():
        raise InputError(
            "the output path exists and is not a folder",
            location=Location(str(out)),
            hint="choose another --out",
        )
    if if_exists == "timestamp":
        stamp = (now or _dt.datetime.now(_dt.timezone.utc)).strftime("%Y%m%d-%H%M%S")
        candidate = out.with_name(f"{out.name}-{stamp}")
        k = 2
        while os.path.lexists(candidate):
            candidate = out.with_name(f"{out.name}-{stamp}-{k}")
            k += 1
        return candidate
    empty = not any(out.iterdir())
    if if_exists == "error" and not empty:
        what = "a report folder" if is_report_folder(out) else "a folder"
        raise InputError(
            f"the output folder already exists ({what})",
            location=Location(str(out)),
            hint="choose another --out, pass --force (or --if-exists "
            "replace) to replace a report, or --if-exists timestamp to "
            "write a new timestamped folder beside it",
        )
    found = foreign_entry(out, digests=if_exists != "replace-edited")
    if found is not None:
        raise _foreign_error(out, found)
    if not empty:
        _check_removable(out)
    return out


def _check_removable(out: Path) -> None:
    """Refuse, before any work, to replace a report whose files reportgen could not
    delete afterwards (a folder of it, or the folder above, not writable): they would be
    left in a ``.kept-`` folder beside the new report."""
    folders = [out] + [out / name for name, info in walk_entries(out) if stat.S_ISDIR(info.st_mode)]
    for folder in [out.parent, *folders]:
        if not os.access(folder, os.W_OK | os.X_OK):
            where = "the folder above it" if folder == out.parent else _relative(folder, out)
            raise InputError(
                f"the report folder cannot be replaced: {where} is not writable, so the "
                "files reportgen wrote there could not be deleted",
                location=Location(str(folder)),
                hint=f"make it writable (chmod u+w {folder}), or choose another --out",
            )


def _relative(folder: Path, out: Path) -> str:
    return "the report folder" if folder == out else f"its folder {folder.relative_to(out)}/"


# ---------------------------------------------------------------------------------------
# The lock of one output folder, and what killed runs left behind


#: The start of the name of every file and folder reportgen creates beside a report.
WORK_PREFIX = ".reportgen-"
#: The marker file inside a build folder, written when the folder is created: the
#: proof (with the name) that the folder is reportgen's and may be cleaned up.
BUILD_MARKER = ".reportgen-build"
#: Longest report folder name kept whole in the names of the working files (a name
#: of 255 bytes plus the prefix would exceed what file systems allow).
_NAME_BYTES = 160


def _work_name(name: str) -> str:
    """``name`` as it appears in the working files: shortened (its start and a digest)
    when long."""
    if len(name.encode()) <= _NAME_BYTES:
        return name
    head = name.encode()[:100].decode("utf-8", "ignore")
    return f"{head}~{hashlib.sha256(name.encode()).hexdigest()[:16]}"


def _lock_path(parent: Path, name: str) -> Path:
    return parent / f"{WORK_PREFIX}{_work_name(name)}.lock"


def _marker_text(token: str) -> bytes:
    return f"reportgen build folder {token}\n".encode()


def _make_build_folder(parent: Path, name: str) -> Path:
    """A new private build folder beside the report, with its marker file."""
    tmp = Path(
        tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{_work_name(name)}.", suffix=".partial", dir=parent)
    )
    match = _LEFTOVER.match(tmp.name)
    token = match["token"] if match else ""
    fd = os.open(tmp / BUILD_MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    try:
        os.write(fd, _marker_text(token))
    finally:
        os.close(fd)
    return tmp


def _is_build_folder(path: Path, token: str) -> bool:
    """Whether ``path`` is a build folder reportgen made: a real folder (not a link)
    whose marker file is a regular file naming its token."""
    try:
        if not stat.S_ISDIR(path.lstat().st_mode):
            return False
        return read_regular(path / BUILD_MARKER) == _marker_text(token)
    except OSError:
        return False


class _OutputLock:
    """An exclusive ``flock`` on ``PARENT/.NAME.lock`` holding the owner's PID.

    The kernel drops the lock when its process dies, so a lock file that can be locked
    belongs to no live run. After locking, the file at the path must still be the one
    locked (another process may have removed it meanwhile), else it is tried again.
    """

    def __init__(self, parent: Path, name: str) -> None:
        self.path = _lock_path(parent, name)
        self.fd: int | None = None

    def owner(self) -> str:
        with contextlib.suppress(OSError):
            text = self.path.read_text(encoding="utf-8", errors="replace").split()
            if len(text) >= 2 and text[0] == "reportgen" and text[1].isdigit():
                return text[1]
        return "?"

    def acquire(self, *, wait: float = 0.0) -> bool:
        """Take the lock, waiting up to ``wait`` seconds; False if a live run holds
        it."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: best effort
            fcntl = None  # type: ignore[assignment]
        deadline = time.monotonic() + wait
        for _ in range(1000):
            fd = os.open(
                self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), default_mode()
            )
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    if time.monotonic() >= deadline:
                        return False
                    time.sleep(0.05)
                    continue
                except OSError:  # a file system without flock: go on unlocked
                    pass
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path, follow_symlinks=False))
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, f"reportgen {os.getpid()} {platform.node()}\n".encode())
            self.fd = fd
            return True
        return False  # pragma: no cover - the file kept being replaced

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self.fd)
        self.fd = None


_LEFTOVER = re.compile(
    r"^\.reportgen-(?P<name>.+)\.(?P<token>[a-z0-9_]{8})\.(?P<kind>partial|old)$"
)
_LOCK = re.compile(r"^\.reportgen-(?P<name>.+)\.lock$")


def _clean_stale(parent: Path, own: str) -> None:
    """Remove what killed runs into ``parent`` left behind, and only what is provably
    reportgen's: build folders with their marker file and lock files holding
    ``reportgen PID`` of runs that are gone; an old report left aside by a run killed
    mid-swap (with reportgen's manifest) is put back when its place is free. Anything
    else, whatever its name, is left alone. ``own`` is the folder whose lock we hold."""
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return
    stale: dict[str, list[tuple[str, str]]] = {}
    for entry in names:
        match = _LEFTOVER.match(entry)
        lock_match = _LOCK.match(entry)
        if match:
            path = parent / entry
            ours = (
                _is_build_folder(path, match["token"])
                if match["kind"] == "partial"
                else stat.S_ISDIR(_lstat_mode(path)) and read_manifest(path)[0] is not None
            )
            if ours:
                stale.setdefault(match["name"], []).append((entry, match["kind"]))
        elif lock_match:
            stale.setdefault(lock_match["name"], [])
    own = _work_name(own)
    for name, leftovers in stale.items():
        lock = None
        if name != own:
            lock = _OutputLock(parent, name)
            if not lock.path.is_file() and not leftovers:
                continue
            if lock.path.is_file() and lock.owner() == "?":
                continue  # a file of the same shape that is not ours
            if not lock.acquire():
                continue  # its run is alive
        try:
            for entry, kind in leftovers:
                _clean_leftover(parent / entry, parent / name, kind)
        finally:
            if lock is not None:
                lock.release()


def _lstat_mode(path: Path) -> int:
    try:
        return path.lstat().st_mode
    except OSError:
        return 0


def _clean_leftover(path: Path, place: Path, kind: str) -> None:
    if kind == "partial":
        shutil.rmtree(path, ignore_errors=True)  # rmtree never follows links
        return
    if (
        _work_name(place.name) == place.name
        and not os.path.lexists(place)
        and read_manifest(path)[0] is not None
    ):
        with contextlib.suppress(OSError):
            os.rename(path, place)  # the report a killed swap had moved aside
            return
    _remove_listed(path)


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | NOFOLLOW


def _remove_in(
    dir_fd: int,
    prefix: str,
    digests: Mapping[str, str | None],
    kept: dict[str, str] | None = None,
) -> None:
    """Delete, inside the folder open as ``dir_fd``, the regular files ``digests``
    lists whose SHA-256 is the one given (None: any), then the subfolders emptied.
    Every entry is reached through a descriptor opened with ``O_NOFOLLOW``, so a link
    swapped in for a subfolder or a file leads nowhere. ``kept``: each file left, with
    why (not reportgen's, changed since, or the deletion failed)."""
    kept = {} if kept is None else kept
    with os.scandir(dir_fd) as entries:
        listing = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
    for name, is_dir in listing:
        rel = f"{prefix}{name}"
        try:
            if is_dir:
                sub = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
                try:
                    _remove_in(sub, f"{rel}/", digests, kept)
                finally:
                    os.close(sub)
                if not any(k.startswith(f"{rel}/") for k in kept):
                    os.rmdir(name, dir_fd=dir_fd)  # only when emptied
            elif rel not in digests:
                kept[rel] = "reportgen did not write it"
            else:
                expected = digests[rel]
                if expected is None or fd_sha256(open_regular(name, dir_fd=dir_fd)) == expected:
                    os.unlink(name, dir_fd=dir_fd)
                else:
                    kept[rel] = "it changed after reportgen wrote it"
        except OSError as exc:
            kept[rel] = f"it could not be deleted ({_reason(exc)})"


def _remove_listed(
    folder: Path, *, discard_edits: bool = False, kept: dict[str, str] | None = None
) -> Path | None:
    """Delete the files ``folder``'s manifest lists (regular files with the digest it
    records; with ``discard_edits`` whatever their content), then its emptied
    subfolders and itself; return where anything else was kept, or None (``kept``:
    what was kept and why)."""
    kept = {} if kept is None else kept
    manifest, _ = read_manifest(folder)
    if manifest is not None:
        digests: dict[str, str | None] = {
            str(name): None
            if discard_edits or not isinstance(entry, Mapping)
            else entry.get("sha256")
            for name, entry in manifest["outputs"].items()
        }
        sealed = manifest.get("manifest_sha256")
        if discard_edits or not isinstance(sealed, str) or manifest_digest(manifest) == sealed:
            digests["manifest.json"] = None
        try:
            fd = os.open(folder, _DIR_FLAGS)
        except OSError as exc:
            kept["."] = f"it could not be opened ({_reason(exc)})"
            return folder
        try:
            _remove_in(fd, "", digests, kept)
        finally:
            os.close(fd)
    with contextlib.suppress(OSError):
        folder.rmdir()
        return None
    match = _LEFTOVER.match(folder.name)
    keep = folder.with_name(
        f"{match['name'] if match else folder.name}.kept-"
        f"{_dt.datetime.now(_dt.timezone.utc):%Y%m%d-%H%M%S}-"
        f"{secrets.token_hex(2)}"
    )
    try:
        os.rename(folder, keep)
    except OSError:
        return folder
    return keep


def _reason(exc: OSError) -> str:
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


def _kept_message(leftover: Path, kept: Mapping[str, str]) -> str:
    """What of a replaced report was kept, where and why (first three files per reason)."""
    by_reason: dict[str, list[str]] = {}
    for name, why in kept.items():
        by_reason.setdefault(why, []).append(name)
    parts = []
    for why, names in by_reason.items():
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        parts.append(f"{shown}: {why}")
    detail = "; ".join(parts) or "files that appeared while it was replaced"
    return f"the new report is in place; files of the old one were kept in {leftover}: {detail}"


class LeftoverWarning(ReportgenWarning):
    """Files that were not reportgen's were found in a replaced report and kept."""


# ---------------------------------------------------------------------------------------
# Writing the folder


def _normalise_modes(folder: Path) -> None:
    """Give every file and folder the mode a plain ``open()``/``mkdir()`` would (temporary
    files are created private, the outputs should follow the umask)."""
    file_mode, folder_mode = default_mode(), default_mode(folder=True)
    os.chmod(folder, folder_mode)
    for rel, info in walk_entries(folder):
        path = folder / rel
        if stat.S_ISDIR(info.st_mode):
            os.chmod(path, folder_mode)
        elif stat.S_ISREG(info.st_mode):
            os.chmod(path, file_mode)


def _aside_name(parent: Path, name: str, kind: str) -> Path:
    token = "".join(secrets.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
    return parent / f"{WORK_PREFIX}{_work_name(name)}.{token}.{kind}"


def _keep_new(tmp: Path, out: Path) -> Path:
    """Move a finished report that could not be put in place beside it, visibly."""
    stamp = f"{_dt.datetime.now(_dt.timezone.utc):%Y%m%d-%H%M%S}"
    keep = out.with_name(f"{out.name}-{stamp}")
    k = 2
    while os.path.lexists(keep):
        keep = out.with_name(f"{out.name}-{stamp}-{k}")
        k += 1
    try:
        os.rename(tmp, keep)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return Path()
    return keep


def _concurrent(out: Path, tmp: Path, why: str) -> InputError:
    kept = _keep_new(tmp, out)
    where = f"; the new report is in {kept}" if kept != Path() else ""
    return InputError(
        f"{why}, so it was left alone{where}",
        location=Location(str(out)),
        hint="check what changed there, then run again with another --out or --if-exists timestamp",
    )


def _swap(tmp: Path, out: Path, *, replace: bool, discard_edits: bool = False) -> None:
    """Put the finished ``tmp`` at ``out`` without losing anything that appeared there."""
    parent = out.parent
    if out.is_symlink():
        raise _concurrent(
            out, tmp, "a symbolic link was created at the output folder while this report was made"
        )
    if not out.exists():
        try:
            os.rename(tmp, out)  # replaces at most an empty folder created meanwhile
        except OSError:
            raise _concurrent(
                out, tmp, "the output folder was created by someone else while this report was made"
            ) from None
        return
    if not out.is_dir():
        raise _concurrent(
            out, tmp, "a file was created at the output folder while this report was made"
        )
    if not any(out.iterdir()):
        try:
            os.rename(tmp, out)
        except OSError:
            raise _concurrent(
                out, tmp, "the output folder was filled by someone else while this report was made"
            ) from None
        return
    if not replace:
        raise _concurrent(
            out, tmp, "the output folder was created by someone else while this report was made"
        )
    found = foreign_entry(out, digests=False)  # the digests are compared once set aside
    if found is not None:  # changed since the check before the work
        kept = _keep_new(tmp, out)
        error = _foreign_error(out, found, during=True)
        if kept != Path():
            error = InputError(
                f"{error.message}; the new report is in {kept}",
                location=error.location,
                hint=error.hint,
            )
        raise error
    aside = _aside_name(parent, out.name, "old")
    os.rename(out, aside)
    if not stat.S_ISDIR(_lstat_mode(aside)):
        # a link (or a file) was put at out between the check and the rename: give it
        # back as it was, and never look inside it
        restored = not os.path.lexists(out)
        if restored:
            os.rename(aside, out)
        kept = _keep_new(tmp, out)
        raise InputError(
            "the output folder was replaced by "
            + entry_kind(_lstat_mode(out if restored else aside))
            + " while this report was made, so nothing was replaced or deleted"
            + ("" if restored else f" (it is in {aside})")
            + (f"; the new report is in {kept}" if kept != Path() else ""),
            location=Location(str(out)),
            hint="check what changed there, then run again",
        )
    # anything added or edited between the check and the rename?
    found = foreign_entry(aside, digests=not discard_edits)
    if found is not None:
        restored = not os.path.lexists(out)
        if restored:
            os.rename(aside, out)
        kept = _keep_new(tmp, out)
        where = f"{out}/{found.path}"
        raise InputError(
            "the output folder was changed by someone else while it was "
            f"being replaced ({found}), so it was left "
            + ("as it was" if restored else f"in {aside}")
            + (f"; the new report is in {kept}" if kept != Path() else ""),
            location=Location(where),
            hint="check what changed there, then run again",
        )
    try:
        os.rename(tmp, out)
    except OSError:
        raise _concurrent(
            out,
            tmp,
            "the output folder was re-created by someone else "
            f"while it was being replaced (the old report is in "
            f"{aside})",
        ) from None
    left: dict[str, str] = {}
    leftover = _remove_listed(aside, discard_edits=discard_edits, kept=left)
    if leftover is not None:
        warnings.warn(_kept_message(leftover, left), LeftoverWarning, stacklevel=3)


@contextlib.contextmanager
def report_folder(
    out: str | Path, *, force: bool = False, discard_edits: bool = False
) -> Iterator[Path]:
    """Build a report folder aside and move it to ``out`` when the block succeeds.

    Yields a temporary folder next to ``out`` to write into. On success it is put at
    ``out`` (which must not exist, be empty, or — with ``force`` — be a folder whose
    every file reportgen wrote, unchanged, see :func:`foreign_entry`; with
    ``discard_edits`` too, files edited since are deleted with it); every file and folder gets
    the mode the umask gives. On any exception it is removed and ``out`` is left as it
    was. Use :func:`resolve_out` first for the ``timestamp`` policy.

    Raises
    ------
    InputError
        Before the block runs (so no work is wasted): ``out`` is a link, exists and
        ``force`` is false, holds something reportgen did not write, another run is
        writing it, or its parent cannot be written. After it: the disk filled up, or
        someone changed ``out`` meanwhile (nothing of theirs is touched; the new report
        is kept beside it and named).
    """
    out = Path(out)
    out = resolve_out(
        out,
        if_exists=("replace-edited" if discard_edits else "replace") if force else "error",
    )
    parent = Path(os.path.abspath(out)).parent
    out = parent / out.name
    created = [p for p in (parent, *parent.parents) if not os.path.lexists(p)]
    try:
        parent.mkdir(parents=True, exist_ok=True)
        lock = _OutputLock(parent, out.name)
        # a short wait: another run may be cleaning up after a killed one, not writing
        if not lock.acquire(wait=1.0):
            _remove_empty(created)
            raise InputError(
                f"another reportgen run (pid {lock.owner()}) is writing this report folder",
                location=Location(str(out)),
                hint="wait for it to finish, or choose another --out",
            )
        try:
            _clean_stale(parent, out.name)
            tmp = _make_build_folder(parent, out.name)
        except BaseException:
            lock.release()
            raise
    except OSError as exc:
        _remove_empty(created)
        no_room = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
        raise (disk_full_error(parent, exc) if no_room else None) or InputError(
            f"cannot write next to the output folder ({exc.strerror or exc})",
            location=Location(str(parent)),
            hint="choose a folder you can write to with --out",
        ) from None
    done = False
    try:
        try:
            yield tmp
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp / BUILD_MARKER)
            _normalise_modes(tmp)
        except BaseException as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            full = disk_full_error(out, exc)
            if full is not None:
                raise full from None
            raise
        _swap(tmp, out, replace=force, discard_edits=discard_edits)
        done = True
    finally:
        lock.release()
        if not done:
            _remove_empty(created)


def _remove_empty(folders: Sequence[Path]) -> None:
    """Remove the folders this run created for its output (deepest first) if empty."""
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()

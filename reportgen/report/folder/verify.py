"""``reportgen verify``: re-hash what a report's ``manifest.json`` lists (the inputs it
was made from and the files it wrote) and say what changed.

Outputs are confined to the report folder: a listed output that is absolute, climbs out
with ``..`` or passes through a symbolic link is reported (``outside``) and never read,
and no output is hashed through a link (``O_NOFOLLOW``), so a crafted manifest cannot
make ``verify`` test guesses about files elsewhere on the verifier's machine.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from reportgen.errors import InputError, Location, file_system_error, is_file_system_error
from reportgen.jsonsafe import check_format_version, load_json
from reportgen.report.folder.archive import entry_kind, walk_entries
from reportgen.report.folder.manifest import (
    MANIFEST_FORMAT_VERSION,
    fd_sha256,
    file_sha256,
    manifest_digest,
    open_regular,
    read_regular,
)
from reportgen.report.folder.reader import ReportFolder

__all__ = ["Finding", "VerifiedRelease", "VerifyResult", "verify_release", "verify_report"]


@dataclass(frozen=True)
class Finding:
    """One difference: ``kind`` is ``"input"``, ``"output"`` or ``"manifest"``,
    ``status`` one of ``"changed"``, ``"missing"``, ``"unlisted"``, ``"unsealed"``,
    ``"outside"`` (an output path that leaves the report folder: never read)."""

    kind: str
    status: str
    path: str
    detail: str = ""

    def line(self) -> str:
        text = f"{self.status} {self.kind}: {self.path}"
        return f"{text} ({self.detail})" if self.detail else text


@dataclass(frozen=True)
class VerifyResult:
    """What :func:`verify_report` found."""

    report: Path
    n_inputs: int
    n_outputs: int
    findings: tuple[Finding, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.findings


def _load_manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    if not folder.is_dir():
        raise InputError(
            "not a report folder",
            location=Location(str(folder)),
            hint="give the folder `reportgen run --out` wrote",
        )
    try:
        os.lstat(path)
    except FileNotFoundError:
        raise InputError(
            "the report folder has no manifest.json",
            location=Location(str(folder)),
            hint="only folders written by `reportgen run` can be verified",
        ) from None
    except OSError as exc:  # no permission to look in the folder, ...
        raise file_system_error(exc, folder, reading=True) from None
    if not os.path.lexists(path):
        raise InputError(
            "the report folder has no manifest.json",
            location=Location(str(folder)),
            hint="only folders written by `reportgen run` can be verified",
        )
    try:
        data = read_regular(path)
    except OSError as exc:
        what = entry_kind(path.lstat().st_mode) if os.path.lexists(path) else "unreadable"
        raise InputError(
            f"manifest.json cannot be read ({what if what != 'a file' else exc.strerror})",
            location=Location(str(path)),
            hint="a manifest must be a regular file in the report folder (never a link)",
        ) from None
    manifest = load_json(
        data,
        source=path,
        hint="the manifest was edited or damaged: the report cannot be verified",
    )
    if (
        not isinstance(manifest, dict)
        or not isinstance(manifest.get("inputs"), list)
        or not isinstance(manifest.get("outputs"), dict)
        or not all(isinstance(s, dict) for s in manifest["inputs"])
        or not all(
            isinstance(s.get("files", []), list)
            and all(isinstance(f, dict) for f in s.get("files", []))
            for s in manifest["inputs"]
        )
        or not all(isinstance(e, dict) for e in manifest["outputs"].values())
    ):
        raise InputError(
            "manifest.json lacks its inputs or outputs, or they are not lists and objects of files",
            location=Location(str(path)),
            hint="the manifest was edited or damaged",
        )
    check_format_version(
        manifest, supported=MANIFEST_FORMAT_VERSION, what="manifest.json", source=path
    )
    return manifest


def _inside(root: Path, name: str) -> str | None:
    """Why the output ``name`` is not a path inside ``root``, or None when it is: it must
    be relative, without ``..`` or empty parts, and no folder on the way a link."""
    parts = name.split("/")
    if (
        name.startswith("/")
        or "\\" in name
        or "\x00" in name  # no file system holds a NUL in a name
        or any(p in ("", ".", "..") for p in parts)
    ):
        return "not a plain path inside the report folder"
    where = root
    for part in parts[:-1]:
        where = where / part
        try:
            mode = where.lstat().st_mode
        except OSError:
            return None  # missing: reported as such
        if not stat.S_ISDIR(mode):
            return f"its folder {where.relative_to(root)} is {entry_kind(mode)}"
    return None


def _input_path(entry: dict[str, Any], folder: Path) -> Path | None:
    for key in ("resolved", "path"):
        value = entry.get(key)
        if isinstance(value, str) and value and Path(value).is_file():
            return Path(value)
    return None


def verify_report(folder: str | Path) -> VerifyResult:
    """Re-hash the inputs and outputs listed in ``folder/manifest.json``.

    Returns
    -------
    VerifyResult
        Every input or output whose SHA-256 differs (``changed``), that is gone
        (``missing``), and every file of the report folder the manifest does not list
        (``unlisted``; ``manifest.json`` itself excepted).

    Raises
    ------
    InputError
        ``folder`` is not a report folder or its manifest is unreadable.
    """
    root = Path(folder)
    manifest = _load_manifest(root)
    findings: list[Finding] = []
    n_inputs = 0
    for source in manifest["inputs"]:
        for entry in source.get("files", []):
            n_inputs += 1
            path = _input_path(entry, root)
            shown = str(entry.get("path"))
            if path is None:
                findings.append(Finding("input", "missing", shown))
                continue
            digest = file_sha256(path)
            if digest != entry.get("sha256"):
                size = path.stat().st_size
                findings.append(
                    Finding(
                        "input",
                        "changed",
                        shown,
                        f"sha256 {digest[:12]}… was "
                        f"{str(entry.get('sha256'))[:12]}…; {size:,} bytes "
                        f"was {entry.get('bytes', '?'):,}"
                        if isinstance(entry.get("bytes"), int)
                        else f"sha256 {digest[:12]}…",
                    )
                )
    listed = set(manifest["outputs"])
    for name, entry in manifest["outputs"].items():
        outside = _inside(root, name)
        if outside is not None:
            findings.append(Finding("output", "outside", name, f"{outside}; not read"))
            continue
        path = root / name
        try:
            mode = path.lstat().st_mode
        except OSError:
            findings.append(Finding("output", "missing", name))
            continue
        if not stat.S_ISREG(mode):
            findings.append(
                Finding("output", "changed", name, f"{entry_kind(mode)} now, not the file written")
            )
            continue
        try:
            digest = fd_sha256(open_regular(path))
        except OSError as exc:
            if is_file_system_error(exc) and exc.errno != errno.ELOOP:
                raise file_system_error(exc, path, reading=True) from None  # can't verify
            findings.append(Finding("output", "changed", name, "replaced while it was read"))
            continue
        if digest != entry.get("sha256"):
            findings.append(Finding("output", "changed", name, "sha256 differs"))
    findings.extend(_seal_findings(manifest))
    folders = {
        "/".join(name.split("/")[:k]) for name in listed for k in range(1, name.count("/") + 1)
    }
    for name, info in walk_entries(root):
        if name == "manifest.json" or name in listed:
            continue
        if stat.S_ISDIR(info.st_mode) and name in folders:
            continue
        what = "in the folder, not in the manifest"
        if not stat.S_ISREG(info.st_mode):
            what = f"{entry_kind(info.st_mode)}, {what}"
        findings.append(Finding("output", "unlisted", name, what))
    return VerifyResult(root, n_inputs, len(listed), tuple(findings))


@dataclass(frozen=True)
class VerifiedRelease:
    """Whether the results of a report folder are the ones reportgen wrote: its
    ``results.json`` (the very bytes read) and the tables it refers to against the
    digests its sealed ``manifest.json`` records (:func:`verify_release`).

    Attributes
    ----------
    folder
        The report folder.
    status
        ``"verified"``; ``"edited"`` (a digest differs: the results or the manifest were
        changed after reportgen wrote them); ``"unverifiable"`` (no manifest, or one that
        records no digest to check against).
    reason
        What was found, in a sentence (None when verified).
    """

    folder: Path
    status: Literal["verified", "edited", "unverifiable"]
    reason: str | None = None

    @property
    def edited(self) -> bool:
        """Whether the results cannot be trusted as reportgen wrote them (edited or
        unverifiable)."""
        return self.status != "verified"


def verify_release(report: ReportFolder) -> VerifiedRelease:
    """Check that ``report`` (read by :func:`~reportgen.report.folder.reader.read_report_folder`)
    holds the results its manifest sealed: the manifest's own digest, the digest of
    ``results.json`` it records against the bytes that were parsed, and each table of
    ``tables/`` that results.json refers to. A results.json whose mean was hand-edited
    (0.5 to 0.99) is ``edited``, as ``reportgen verify`` says.

    Returns
    -------
    VerifiedRelease
        ``verified``, ``edited`` or ``unverifiable``, with the reason.
    """
    folder, manifest = report.path, report.manifest

    def found(status: Literal["edited", "unverifiable"], reason: str) -> VerifiedRelease:
        return VerifiedRelease(folder, status, reason)

    if manifest is None:
        return found(
            "unverifiable", "it has no manifest.json, so its results.json cannot be checked"
        )
    sealed = manifest.get("manifest_sha256")
    if not isinstance(sealed, str):
        return found(
            "unverifiable",
            "its manifest.json records no digest of its own (written before reportgen sealed "
            "its manifests, or the digest was removed), so its results.json cannot be checked",
        )
    if manifest_digest(manifest) != sealed:
        return found("edited", "its manifest.json was changed after reportgen wrote it")
    main = manifest.get("results")
    outputs = manifest.get("outputs")
    if not (
        isinstance(main, dict)
        and main.get("file") == "results.json"
        and isinstance(main.get("sha256"), str)
        and isinstance(outputs, dict)
    ):
        return found("unverifiable", "its manifest records no digest of results.json")
    if report.results_sha256 != main["sha256"]:
        return found(
            "edited",
            "its results.json differs from the digest its manifest recorded when reportgen "
            "wrote it (it was edited afterwards)",
        )
    for name, entry in sorted(outputs.items()):
        if not (name.startswith("tables/") and name.endswith(".parquet")):
            continue  # results.json refers to its long tables in tables/*.parquet
        path = folder / name
        try:
            digest = fd_sha256(open_regular(path))
        except (OSError, ValueError):
            return found("edited", f"its {name}, which results.json refers to, is gone")
        if not isinstance(entry, dict) or digest != entry.get("sha256"):
            return found(
                "edited",
                f"its {name}, which results.json refers to, differs from the digest its "
                "manifest recorded (it was changed afterwards)",
            )
    return VerifiedRelease(folder, "verified")


def _seal_findings(manifest: dict[str, Any]) -> list[Finding]:
    """The manifest's digest of its own canonical JSON, and of its main document."""
    recorded = manifest.get("manifest_sha256")
    if not isinstance(recorded, str):
        return [
            Finding(
                "manifest",
                "unsealed",
                "manifest.json",
                "it records no digest of its own content (written before "
                "reportgen sealed its manifests, or the digest was removed)",
            )
        ]
    findings = []
    if manifest_digest(manifest) != recorded:
        findings.append(
            Finding(
                "manifest",
                "changed",
                "manifest.json",
                "its content differs from the digest recorded when it was "
                "written (edited afterwards)",
            )
        )
    main = manifest.get("results")
    if isinstance(main, dict) and isinstance(main.get("file"), str):
        entry = manifest["outputs"].get(main["file"])
        if not isinstance(entry, dict) or entry.get("sha256") != main.get("sha256"):
            findings.append(
                Finding(
                    "manifest",
                    "changed",
                    str(main["file"]),
                    "its digest in the outputs differs from the one sealed with the manifest",
                )
            )
    return findings

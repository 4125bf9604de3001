"""Read a report folder back: its results.json (validated, long tables resolved), its
manifest and which of report.html and report.pdf it holds. The e-mail and
``reportgen history`` read folders through :func:`read_report_folder`."""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen.config import TITLES
from reportgen.errors import InputError, Location

if TYPE_CHECKING:
    from reportgen.analysis.ledger import Ledger

__all__ = ["ReportFolder", "read_report_folder"]


@dataclass(frozen=True)
class ReportFolder:
    """A report folder as ``reportgen run`` writes it.

    Attributes
    ----------
    path
        The folder.
    results
        Its ``results.json``, the tables written beside it read back in place of their
        references (:func:`reportgen.report.folder.tables.resolve_tables`).
    manifest
        Its ``manifest.json``, or None (e.g. a folder of ``reportgen analyze``).
    html, pdf
        ``report.html`` and ``report.pdf`` when present.
    results_sha256
        The SHA-256 of the very bytes of ``results.json`` that were parsed (what
        :func:`reportgen.report.folder.verify.verify_release` checks against the
        manifest).
    """

    path: Path
    results: dict[str, Any]
    manifest: dict[str, Any] | None
    html: Path | None
    pdf: Path | None
    results_sha256: str | None = None

    @functools.cached_property
    def ledger(self) -> Ledger:
        """The claims of its results.json, read back into the ledger's typed objects
        (:meth:`reportgen.analysis.ledger.Ledger.from_results`): what the e-mail, the
        history and the gate show."""
        from reportgen.analysis.ledger import Ledger

        return Ledger.from_results(self.results, source=str(self.path / "results.json"))

    @property
    def title(self) -> str:
        return self.ledger.meta.title or TITLES["evaluation"]

    @property
    def release(self) -> str | None:
        return self.ledger.meta.release_label


def read_report_folder(path: str | Path) -> ReportFolder:
    """Read a report folder (its ``results.json`` is required).

    Raises
    ------
    InputError
        Not a folder, no ``results.json``, or one that is not valid JSON (read with
        the limits of :func:`reportgen.jsonsafe.load_json`, never through a link), was
        written by a newer reportgen (its ``format_version``, or the manifest's, is
        newer than this one reads), or does not match the shipped schema
        (:func:`reportgen.report.folder.archive.validate_results`).
    """

    folder = Path(path)
    if not folder.is_dir():
        raise InputError(
            "not a report folder",
            location=Location(str(folder)),
            hint="pass the folder written by `reportgen run --out`",
        )
    results_path = folder / "results.json"
    if not results_path.is_file():
        raise InputError(
            "the folder has no results.json, so it is not a report folder",
            location=Location(str(folder)),
            hint="pass the folder written by `reportgen run --out`",
        )

    from reportgen.jsonsafe import RESULTS_FORMAT_VERSION, check_format_version, load_json
    from reportgen.report.folder.manifest import (
        MANIFEST_FORMAT_VERSION,
        read_regular,
        validate_results,
    )

    digests: dict[str, str] = {}

    def _json(p: Path, supported: int) -> dict[str, Any]:
        try:
            data = read_regular(p)  # never through a link
        except OSError as exc:
            raise InputError(
                f"cannot read the file ({exc.strerror or exc}; a link is never followed)",
                location=Location(str(p)),
                hint="check the report folder",
            ) from None
        digests[p.name] = hashlib.sha256(data).hexdigest()
        doc = load_json(data, source=p, hint="the report folder is damaged; run the report again")
        if not isinstance(doc, dict):
            raise InputError(
                "not a JSON object",
                location=Location(str(p)),
                hint="the report folder is damaged; run the report again",
            )
        check_format_version(doc, supported=supported, what=p.name, source=p)
        return doc

    results = _json(results_path, RESULTS_FORMAT_VERSION)
    # a hand-edited or damaged results.json ("mean": "abc", "systems": 5) stops here,
    # naming the file and its first invalid field, before any of it is used
    validate_results(results, source=results_path)
    from reportgen.report.folder.tables import resolve_tables

    # a large report keeps its long tables in tables/*.parquet: read them from there
    results = resolve_tables(results, folder)
    manifest_path = folder / "manifest.json"
    manifest = (
        _json(manifest_path, MANIFEST_FORMAT_VERSION) if os.path.lexists(manifest_path) else None
    )
    html = folder / "report.html"
    pdf = folder / "report.pdf"
    return ReportFolder(
        folder,
        results,
        manifest,
        html if html.is_file() else None,
        pdf if pdf.is_file() else None,
        digests.get("results.json"),
    )

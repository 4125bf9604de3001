"""The releases of a history: each archived report read back as its :class:`Ledger`,
with the system it follows and why (:func:`followed_system`).

Examples
--------
>>> follow_map(["ours", "v2=model-v2"])
('ours', {'v2': 'model-v2'})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.analysis.ledger import Ledger
from reportgen.errors import InputError, Location

__all__ = ["Release", "follow_map", "followed_system"]


@dataclass(frozen=True, eq=False)
class Release:
    """One archived report of the history.

    Attributes
    ----------
    label
        Its release label (or the folder's name when it has none).
    created
        When the report was made (ISO timestamp).
    system
        The system followed in this report.
    followed_because
        Why this system (``candidate of the release report``, ``named like the
        release``, ``--system``, ...).
    ledger
        Its claims, read back from its results.json
        (:meth:`reportgen.analysis.ledger.Ledger.from_results`).
    path
        The report folder, as given.
    edited
        Why its results.json is not what reportgen wrote (its digest differs from its
        manifest's, and the user allowed it), or None: every change of a step with
        this release is shown with this warning.
    """

    label: str
    created: str
    system: str
    followed_because: str
    ledger: Ledger
    path: Path
    edited: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The release's entry of history.json's ``reports``."""
        return {
            "label": self.label,
            "created": self.created,
            "system": self.system,
            "followed_because": self.followed_because,
            "path": str(Path(self.path).resolve()),
            "reportgen_version": self.ledger.meta.reportgen_version or None,
            "edited": self.edited,
        }


def follow_map(follow: Sequence[str]) -> tuple[str | None, dict[str, str]]:
    """The ``--system`` items: ``NAME`` (followed in every report) and ``RELEASE=NAME``
    (per release).

    Raises
    ------
    InputError
        An item with an empty side of ``=``, or ``NAME`` given twice.
    """
    default, per_label = None, {}
    for item in follow:
        label, sep, name = str(item).partition("=")
        if sep and label and name:
            per_label[label] = name
        elif sep:
            raise InputError(
                f"--system {item!r}: expected NAME or RELEASE=NAME",
                location=Location("--system"),
                hint="e.g. --system ours or --system v2=model-v2",
            )
        else:
            if default is not None:
                raise InputError(
                    "--system NAME is given twice",
                    location=Location("--system"),
                    hint="give one NAME for all reports, or RELEASE=NAME per release",
                )
            default = label
    return default, per_label


def followed_system(
    ledger: Ledger,
    label: str,
    default: str | None,
    per_label: Mapping[str, str],
    *,
    where: str,
) -> tuple[str, str]:
    """The system a report of release ``label`` is about, and why: the one named for
    the release, else the one named for every report, else the release report's
    candidate, else the system named like the release, else its only system.

    Raises
    ------
    InputError
        None of these applies, or the system named is not in the report (``where``).
    """
    systems = list(ledger.meta.systems)
    name, why = None, ""
    if label in per_label:
        name, why = per_label[label], f"--system {label}={per_label[label]}"
    elif default is not None:
        name, why = default, "--system"
    elif ledger.release is not None and ledger.release.candidate:
        name, why = ledger.release.candidate, "candidate of the release report"
    elif label in systems:
        name, why = label, "named like the release"
    elif len(systems) == 1:
        name, why = systems[0], "the only system"
    if name is None:
        raise InputError(
            f"cannot tell which system release {label!r} is about "
            f"({len(systems)} systems, no candidate, none named "
            f"{label!r})",
            location=Location(where),
            hint=f"name it: --system NAME (same in every report) or --system {label}=NAME",
        )
    if name not in systems:
        raise InputError(
            f"system {name!r} is not in this report",
            location=Location(where),
            hint=f"its systems: {', '.join(systems[:12])}" + (" …" if len(systems) > 12 else ""),
        )
    return name, why

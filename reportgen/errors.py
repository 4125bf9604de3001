"""The error and warning family of reportgen.

Every error a user can cause derives from :class:`ReportgenError`; input problems are
:class:`InputError` (also a :class:`ValueError`) and carry *where* the problem is (a file,
a line, a column) and *what to do* about it. The CLI turns any ``ReportgenError`` into one
message on stderr and exit code 2, without a traceback.

Degenerate data (zero variance, one item, all ties) is not an error: it is reported with a
:class:`DegenerateDataWarning` and a documented NaN/None result.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.plaintext import shown

__all__ = [
    "ConfigError",
    "DataWarning",
    "DegenerateDataWarning",
    "InputError",
    "Location",
    "OneSidedWarning",
    "ReportgenError",
    "ReportgenWarning",
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

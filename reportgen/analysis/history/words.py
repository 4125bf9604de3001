"""The words of a release history, written once: the sentence of each change, how each
change was tested, the rule that decided it, the kinds of interval shown and the
warning of an edited release. The trend report, history.json and the console show
these and never re-word them.

Examples
--------
>>> print(METHOD_TEXT["intervals"][:48])
an approximate z test from the two stored interv
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from reportgen import format as fmt
from reportgen.sentences import Sentence

if TYPE_CHECKING:
    from reportgen.analysis.history._changes import Change, ReleaseHistory
    from reportgen.analysis.history._releases import Release
    from reportgen.analysis.history._steps import ChangeMethod

__all__ = [
    "DECISION_RULE",
    "METHOD_TEXT",
    "change_sentence",
    "edited_line",
    "interval_lines",
]

#: How each change was tested, by where its test came from.
METHOD_TEXT: Mapping[ChangeMethod, str] = {
    "stored": "the comparison stored in one of the two reports: a release report's "
    "verdict as the release decided it (its family, margin, adjusted p-value and the "
    "simultaneous interval it was read off), else a stored comparison with its own "
    "report's decision, adjusted p-value and interval",
    "recomputed": "recomputed from the per-item data the reports were made from "
    "(found unchanged where their manifests say): paired on the items when both "
    "releases were scored on the same items, else unpaired; the automatic test "
    "choice; p-values adjusted across the step's recomputed and interval-based tests "
    "with the later report's correction, with intervals that agree with the adjusted "
    "decisions",
    "intervals": "an approximate z test from the two stored intervals (standard "
    "errors from their half-widths); it ignores pairing, so it is conservative when "
    "the items are shared, and it is only as good as a normal approximation of the "
    "intervals; adjusted as above",
}
#: What decides a change.
DECISION_RULE = (
    "A recomputed or interval-based change is significant when its adjusted p-value is "
    "at most the later report's α; each step between two releases is its own family of "
    "tests (one per dataset × metric). A stored change keeps the decision of the report "
    "it was stored in (a release's verdict at a margin included)."
)
_WHERE = {
    "recomputed": "recomputed from per-item data",
    "intervals": "z test from the stored intervals",
}


def _p_text(c: Change) -> str:
    """``p adj. = 0.004`` (``p = ...`` when nothing was adjusted)."""
    if c.correction == "none" or c.decided.kind == "unadjusted":
        return fmt.p_equals(c.p_value)
    return fmt.p_equals(c.p_adjusted, "p adj.")


def change_sentence(c: Change) -> Sentence:
    """The change in one sentence: "v1 → v2, mbpp / pass1: regressed (Δ = −9.0 pts,
    95% simultaneous CI (Šidák) [−15.1, −2.9], p adj. = 0.002; stored in v2's release
    verdict)", with the margin and the one-sided bound a verdict at a margin is read
    off, and the warning of an edited results.json."""
    p = c.proportion
    parts = [
        f"Δ = {fmt.difference(c.diff, proportion=p)}, {c.decided.label()} "
        f"{c.decided.text(proportion=p)}, {_p_text(c)}"
    ]
    if c.at_margin and c.bound is not None:  # the bound the verdict is read off
        parts.append(f"margin {c.margin_text()}, {c.bound.label()} {c.bound.text(proportion=p)}")
    parts.append(f"stored in {c.source}" if c.method == "stored" else _WHERE[c.method])
    if c.edited_in:
        parts.append(f"warning: the results.json of {' and '.join(c.edited_in)} was edited")
    return Sentence.of(f"{c.step}, {c.name}: {c.verdict} (", "; ".join(parts), ")")


def edited_line(release: Release) -> Sentence:
    """The warning shown on the steps of a release whose results.json was edited."""
    return Sentence.of(
        f"Warning: the results.json of {release.label} is not what reportgen wrote "
        f"({release.edited}); the changes from and to it read the file as it is now."
    )


def interval_lines(history: ReleaseHistory) -> list[str]:
    """What the verdicts are read off, with how many of each: "95% simultaneous CI
    (Šidák): 13 changes (stored)", "one-sided 97.5% bound against the margin, beside
    the verdict: 7 changes (stored)", and the margins of the verdicts at a margin."""
    seen: dict[tuple[str, str], int] = {}
    margins: dict[str, str] = {}
    for c in history.changes:
        label = c.read_off.label() + (
            " against the margin, beside the verdict" if c.at_margin else ""
        )
        seen[(label, c.method)] = seen.get((label, c.method), 0) + 1
        if c.at_margin:
            margins.setdefault(c.metric, c.margin_text())
    lines = [
        f"{label}: {n:,} change{'s' if n != 1 else ''} ({method})"
        for (label, method), n in seen.items()
    ]
    if margins:
        lines.append(
            "the margins (the loss a release accepts): "
            + ", ".join(f"{metric} {loss}" for metric, loss in margins.items())
        )
    return lines

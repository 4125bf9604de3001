"""Items shown with their text: the analysis' lists of items (the release's lost and
gained items, an evaluation's items solved by one system only and its suspect items)
joined with what the logs hold of them (:class:`reportgen.data.ItemTexts`).

The lists are decided elsewhere (:class:`~reportgen.analysis.release.ReleaseFlips`,
:class:`~reportgen.stats.leaderboard.ItemAnalysis`); this module only looks up the text
of their items and marks, where two outputs are text of similar form, what differs
between them, so that a renderer formats typed objects and decides nothing.

Similar form: both outputs are present, neither is more than :data:`DIFF_MAX_CHARS`
long, their lengths are within a factor of 3, and at least a third of their words (and
the space and punctuation between them) agree in order (``difflib``'s ratio, without
its junk heuristic). Then each output is a sequence of segments, equal or differing.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from reportgen.analysis._core import Analysis
    from reportgen.data import ItemTexts, ScoreTable

__all__ = [
    "DIFF_MAX_CHARS",
    "ItemListText",
    "ShownItem",
    "SystemOutput",
    "flipped_items_text",
    "notable_items_text",
    "output_diff",
]

#: Outputs longer than this are shown without marking what differs (a word diff of long
#: texts costs time and marks little a reader can use).
DIFF_MAX_CHARS = 3000
#: Items of one list joined with their text (the first ones in the list's order); the
#: rest are in ``tables/flips.csv`` (releases) or ``tables/items.csv`` (evaluations).
MAX_LISTED = 50
_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")

Segment = tuple[bool, str]  # (differs, text)


@dataclass(frozen=True)
class SystemOutput:
    """What one system answered on an item.

    Attributes
    ----------
    system, role
        The system and what it is in the list (``"baseline"``, ``"candidate"``, ``"the
        only system solving it"``, ...).
    score
        Its score on the item (averaged over runs), or None.
    output, explanation
        Its output and its scorer's explanation (None where the log holds none).
    segments
        The output as (differs, text) segments when it is compared with another output
        of similar form, else None.
    cut
        The roles (``output``, ``explanation``) cut at the text limit.
    """

    system: str
    role: str
    score: float | None
    output: str | None
    explanation: str | None
    segments: tuple[Segment, ...] | None = None
    cut: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ShownItem:
    """One item of a list with its text.

    Attributes
    ----------
    item
        The item id.
    outcome
        ``"lost"``, ``"gained"``, ``"solved by one"`` or ``"suspect"``.
    input, target
        What was asked and the reference (None where the log holds none).
    outputs
        The systems' outputs shown side by side (a release: baseline, then candidate).
    metadata
        The item's metadata columns (name, value), at most three.
    cut
        Whether the input or the target was cut at the text limit.
    """

    item: str
    outcome: Literal["lost", "gained", "solved by one", "suspect"]
    input: str | None
    target: str | None
    outputs: tuple[SystemOutput, ...]
    metadata: tuple[tuple[str, str], ...] = ()
    cut: frozenset[str] = frozenset()

    @property
    def has_text(self) -> bool:
        return (
            self.input is not None
            or self.target is not None
            or any(o.output is not None or o.explanation is not None for o in self.outputs)
        )


@dataclass(frozen=True)
class ItemListText:
    """The items of one list of one dataset × metric, with their text.

    Attributes
    ----------
    dataset, metric
        The unit.
    outcome
        What the list is (as :attr:`ShownItem.outcome`).
    items
        The first :data:`MAX_LISTED` items of the list, in its order (a release's
        losses: the largest first).
    n_total
        Items in the whole list.
    """

    dataset: str
    metric: str
    outcome: Literal["lost", "gained", "solved by one", "suspect"]
    items: tuple[ShownItem, ...]
    n_total: int

    @property
    def name(self) -> str:
        return f"{self.dataset} / {self.metric}"


def output_diff(a: str, b: str) -> tuple[tuple[Segment, ...], tuple[Segment, ...]] | None:
    """What differs between two outputs of similar form (module notes), as segments of
    each; None when they are not of similar form.

    >>> a, b = output_diff("The answer is 12.", "The answer is 13.")
    >>> [t for d, t in a if d], [t for d, t in b if d]
    (['12'], ['13'])
    >>> output_diff("yes", "a long essay " * 20) is None
    True
    """
    if not a or not b or max(len(a), len(b)) > DIFF_MAX_CHARS:
        return None
    if max(len(a), len(b)) > 3 * min(len(a), len(b)):
        return None
    ta, tb = _TOKENS.findall(a), _TOKENS.findall(b)
    if "".join(ta) != a or "".join(tb) != b:  # pragma: no cover - the pattern covers all
        return None
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    if matcher.ratio() < 1 / 3:
        return None
    left: list[Segment] = []
    right: list[Segment] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        differs = op != "equal"
        if i2 > i1:
            _append(left, differs, "".join(ta[i1:i2]))
        if j2 > j1:
            _append(right, differs, "".join(tb[j1:j2]))
    return tuple(left), tuple(right)


def _append(segments: list[Segment], differs: bool, text: str) -> None:
    if segments and segments[-1][0] == differs:
        segments[-1] = (differs, segments[-1][1] + text)
    else:
        segments.append((differs, text))


def _metadata(table: ScoreTable, dataset: str, item: str) -> tuple[tuple[str, str], ...]:
    meta = table.item_metadata
    if meta is None or meta.empty or not len(meta.columns):
        return ()
    try:
        row = meta.loc[(dataset, item)]
    except (KeyError, TypeError):
        return ()
    if getattr(row, "ndim", 1) != 1:
        row = row.iloc[0]
    return tuple(
        (str(k), str(v)) for k, v in row.items() if v is not None and v == v and str(v) != ""
    )[:3]


def _shown(
    texts: ItemTexts,
    table: ScoreTable,
    dataset: str,
    metric: str,
    item: str,
    outcome: Any,
    systems: Sequence[tuple[str, str, float | None]],
) -> ShownItem:
    """One item with the text of ``systems`` ((system, role, score) each)."""
    found = [texts.of(dataset, item, system, metric) for system, _, _ in systems]
    asked = next((t.input for t in found if t.input is not None), None)
    target = next((t.target for t in found if t.target is not None), None)
    cut = frozenset(
        role
        for role, value in (("input", asked), ("target", target))
        for t in found
        if role in t.cut and t.get(role) == value
    )
    segments: list[tuple[Segment, ...] | None] = [None] * len(found)
    if len(found) == 2 and found[0].output is not None and found[1].output is not None:
        diff = output_diff(found[0].output, found[1].output)
        if diff is not None and found[0].output != found[1].output:
            segments = list(diff)
    outputs = tuple(
        SystemOutput(
            system,
            role,
            score,
            t.output,
            t.explanation,
            segments[k],
            frozenset(r for r in ("output", "explanation") if r in t.cut),
        )
        for k, ((system, role, score), t) in enumerate(zip(systems, found, strict=True))
    )
    return ShownItem(item, outcome, asked, target, outputs, _metadata(table, dataset, item), cut)


#: Items to list, each with the systems whose text is shown ((system, role, score) each).
_Listed = Sequence[tuple[str, Sequence[tuple[str, str, float | None]]]]


def _item_list(
    table: ScoreTable, dataset: str, metric: str, outcome: Any, listed: _Listed, total: int
) -> list[ItemListText]:
    """The list of the ``listed`` items of one ``outcome``, of ``total`` such items;
    none when no item has text to show."""
    items = tuple(
        _shown(table.texts, table, dataset, metric, item, outcome, systems)
        for item, systems in listed
    )
    if not any(i.has_text for i in items):
        return []
    return [ItemListText(dataset, metric, outcome, items, total)]


def flipped_items_text(analysis: Analysis) -> tuple[ItemListText, ...]:
    """The release's lost and gained items of every paired dataset × metric with their
    text: per unit the lost list, then the gained one (each the first
    :data:`MAX_LISTED`, the largest changes first); empty when the analysis is not a
    release or its inputs hold no item text.

    The outputs are the baseline's, then the candidate's.
    """
    comparison, table = analysis.release, analysis.table
    if comparison is None or not len(table.texts):
        return ()
    out = []
    for flip in comparison.flips:
        lost = [k for k, x in enumerate(flip.lost) if x]
        gained = [k for k, x in enumerate(flip.lost) if not x][::-1]  # the largest gain first
        for outcome, chosen in (("lost", lost), ("gained", gained)):
            listed = [
                (
                    flip.items[k],
                    (
                        (comparison.baseline, "baseline", flip.baseline_score[k]),
                        (comparison.candidate, "candidate", flip.candidate_score[k]),
                    ),
                )
                for k in chosen[:MAX_LISTED]
            ]
            out += _item_list(table, flip.dataset, flip.metric, outcome, listed, len(chosen))
    return tuple(out)


def notable_items_text(analysis: Analysis) -> tuple[ItemListText, ...]:
    """An evaluation's items solved by one system only (with that system's output) and
    its suspect items (scored against the grain of system quality: with the output of
    the best system, by quality, that fails the item and of the weakest that solves
    it), per dataset × metric with an item analysis; empty without item text."""
    table = analysis.table
    if not len(table.texts):
        return ()
    out = []
    for unit in analysis.units:
        obj = unit.items
        if obj is None:
            continue
        by_one = list(obj.solved_by_one.items())
        listed: _Listed = [
            (item, ((system, "the only system solving it", None),))
            for item, system in by_one[:MAX_LISTED]
        ]
        out += _item_list(table, unit.dataset, unit.metric, "solved by one", listed, len(by_one))
        suspect = list(obj.suspect())
        if suspect:
            index = {name: k for k, name in enumerate(obj.items)}
            samples = table.paired(unit.dataset, unit.metric, systems=list(obj.systems))
            rows = {name: k for k, name in enumerate(samples.items)}
            column = {name: k for k, name in enumerate(samples.systems)}
            X = samples.item_means()[:, [column[name] for name in obj.systems]]
            listed = [
                (item, _suspect_systems(obj, index[item], X[rows[item]] if item in rows else None))
                for item in suspect[:MAX_LISTED]
            ]
            out += _item_list(table, unit.dataset, unit.metric, "suspect", listed, len(suspect))
    return tuple(out)


def _suspect_systems(obj: Any, row: int, scores: Any) -> tuple[tuple[str, str, float | None], ...]:
    """The best system (by the item analysis' quality) that fails a suspect item and the
    weakest that solves it: the pair whose outputs show why the item goes against the
    grain. ``scores``: the item's score per system of ``obj``."""
    import numpy as np

    if scores is None:
        return ()
    quality = np.asarray(obj.quality, dtype=float)
    failing = np.flatnonzero(np.asarray(scores) <= 0)
    out: list[tuple[str, str, float | None]] = []
    if len(failing):
        best = int(failing[np.argmax(quality[failing])])
        out.append((obj.systems[best], "best system failing it", float(scores[best])))
    weakest = int(obj.weakest_solver[row])
    if weakest >= 0:
        out.append((obj.systems[weakest], "weakest system solving it", float(scores[weakest])))
    return tuple(out)

"""Flipped items: which items a candidate lost and gained against its baseline.

For paired scores (the same items scored by both systems) an item is *lost* when the
baseline scored better on it than the candidate and *gained* when the candidate scored
better, in the metric's direction. For 0/1 scores these are the discordant items of
McNemar's test (b and c); for continuous scores every item whose score changed, the
largest losses first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from reportgen.errors import InputError
from reportgen.records import bools, columns_to_records, floats
from reportgen.stats._common import TabularMixin, choices_iv

__all__ = ["FlipResult", "flipped_items"]

Direction = Literal["higher", "lower"]


@dataclass(frozen=True)
class FlipResult(TabularMixin):
    """The items whose score changed between a baseline and a candidate.

    Attributes
    ----------
    direction
        ``"higher"`` or ``"lower"``: which scores are better.
    items
        Ids of the changed items, losses first (the largest loss first), then gains
        (the largest gain last); ties keep the input order.
    baseline_score, candidate_score
        Their scores.
    change
        ``candidate_score − baseline_score`` (on the metric's scale, not oriented).
    lost
        True where the candidate is worse on the item (in the metric's direction).
    n_items
        Items compared (changed or not).
    """

    direction: Direction
    items: tuple[Any, ...]
    baseline_score: np.ndarray
    candidate_score: np.ndarray
    change: np.ndarray
    lost: np.ndarray
    n_items: int

    @property
    def n_lost(self) -> int:
        """Items the candidate lost (the baseline was better)."""
        return int(self.lost.sum())

    @property
    def n_gained(self) -> int:
        """Items the candidate gained (it was better)."""
        return int((~self.lost).sum())

    @property
    def n_changed(self) -> int:
        return len(self.items)

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per changed item: ``item, baseline_score, candidate_score, change,
        lost`` (the columns of ``tables/flips.csv`` besides dataset and metric)."""
        return columns_to_records(
            {
                "item": tuple(self.items),
                "baseline_score": floats(self.baseline_score),
                "candidate_score": floats(self.candidate_score),
                "change": floats(self.change),
                "lost": bools(self.lost),
            }
        )


def flipped_items(
    baseline: np.ndarray,
    candidate: np.ndarray,
    *,
    items: Sequence[Any] | None = None,
    direction: Direction = "higher",
) -> FlipResult:
    """The items a candidate lost and gained against its baseline.

    Parameters
    ----------
    baseline, candidate
        Scores of the two systems on the same items, in the same order (average
        repeated runs per item first); no NaN.
    items
        The item ids, one per score; default ``0, 1, ...``.
    direction
        ``"higher"`` (default) or ``"lower"``: which scores are better.

    Returns
    -------
    FlipResult

    Raises
    ------
    InputError
        Scores of different lengths, NaN scores, ids of the wrong length, an unknown
        direction.

    Notes
    -----
    An item counts as changed when the two scores differ exactly (0/1 scores, or any
    numbers: a change of 1e-12 is a change). With :math:`c_i` = candidate − baseline,
    the *oriented* change is :math:`c_i` when higher is better and :math:`-c_i` when
    lower is better; lost items have a negative oriented change. Items are ordered by
    oriented change, so losses come first with the largest loss first. For 0/1 scores
    ``n_lost`` and ``n_gained`` are McNemar's discordant counts (the baseline-only and
    candidate-only correct items).

    References
    ----------
    .. [1] McNemar, Q. (1947). Note on the sampling error of the difference between correlated
           proportions or percentages. Psychometrika 12(2), 153-157.
    .. [2] Wang, S. I., Gu, A., Madaan, L., Hupkes, D., Liu, J., Wei, Y., Jain, N., Lai, Y., Sootla,
           S., Press, O., Rozière, B. & Synnaeve, G. (2024). Eval-Arena: noise and errors on LLM
           evaluations. https://github.com/crux-eval/eval-arena

    Examples
    --------
    >>> r = flipped_items(np.array([1, 1, 0, 0, 1]), np.array([1, 0, 1, 1, 1]),
    ...                   items=["q1", "q2", "q3", "q4", "q5"])
    >>> r.n_lost, r.n_gained, r.items
    (1, 2, ('q2', 'q3', 'q4'))
    """
    choices_iv({"direction": (direction, get_args(Direction))})
    b = np.asarray(baseline, dtype=np.float64).ravel()
    c = np.asarray(candidate, dtype=np.float64).ravel()
    if b.shape != c.shape:
        raise InputError(
            f"baseline and candidate have different numbers of scores ({b.size} and {c.size})",
            hint="flips need paired scores: the same items for both systems",
        )
    if np.isnan(b).any() or np.isnan(c).any():
        raise InputError("scores contain NaN", hint="drop items not scored by both systems")
    ids: tuple[Any, ...] = tuple(range(b.size)) if items is None else tuple(items)
    if len(ids) != b.size:
        raise InputError(f"{len(ids)} item ids for {b.size} scores", hint="give one id per score")
    change = c - b
    oriented = change if direction == "higher" else -change
    changed = np.flatnonzero(change != 0)
    order = changed[np.argsort(oriented[changed], kind="stable")]
    return FlipResult(
        direction,
        tuple(ids[i] for i in order),
        b[order],
        c[order],
        change[order],
        oriented[order] < 0,
        int(b.size),
    )

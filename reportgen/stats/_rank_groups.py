"""Groups of systems not shown to differ: the maximal groups (cliques of the graph of
non-significant pairs) and the compact letter display.

Private to :mod:`reportgen.stats.ranking`, which re-exports the public names."""

from __future__ import annotations

import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from reportgen.errors import InputError
from reportgen.records import columns_to_records
from reportgen.stats._common import TabularMixin

#: The most maximal groups (cliques) enumerated when the graph of non-significant
#: pairs is not an interval graph in mean order; past it, the consecutive groups are
#: reported instead (:func:`maximal_groups`).
MAX_GROUPS = 2000


@dataclass(frozen=True)
class MaximalGroups:
    """Maximal groups of systems that are pairwise not significantly different.

    Attributes
    ----------
    groups
        Index tuples (ascending: best first), sorted by their members' indices.
    method
        ``"consecutive"``: the graph is an interval graph in mean order, its maximal
        cliques are the maximal runs of consecutive systems, found in ``O(B^2)``;
        ``"enumerated"``: the maximal cliques, all of them (at most ``max_groups``);
        ``"consecutive-fallback"``: more than ``max_groups`` maximal cliques exist, the
        maximal runs of consecutive, pairwise non-different systems are given instead.
    complete
        Whether two systems share a group if and only if they are not significantly
        different (``False`` only for the fallback).
    """

    groups: tuple[tuple[int, ...], ...]
    method: Literal["consecutive", "enumerated", "consecutive-fallback"]
    complete: bool


def _consecutive_runs(A: np.ndarray) -> list[tuple[int, ...]]:
    """The maximal runs ``[i..j]`` of consecutive indices that are pairwise adjacent."""
    B = len(A)
    runs: list[tuple[int, ...]] = []
    j = 0
    previous = -1
    for i in range(B):
        j = max(j, i)
        # extend while the next index is adjacent to every member of [i..j]
        while j + 1 < B and A[i : j + 1, j + 1].all():
            j += 1
        if j > previous:
            runs.append(tuple(range(i, j + 1)))
            previous = j
    return runs


def maximal_groups(adjacency: np.ndarray, *, max_groups: int = MAX_GROUPS) -> MaximalGroups:
    """Maximal cliques of the graph of non-significant pairs, without exponential work.

    Parameters
    ----------
    adjacency
        ``(B, B)`` symmetric boolean matrix, systems in rank order (best first):
        ``True`` where two systems are *not* significantly different (the diagonal is
        ignored).
    max_groups
        The most cliques enumerated when the fast path does not apply.

    Returns
    -------
    MaximalGroups

    Notes
    -----
    A graph has exponentially many maximal cliques in the worst case (Moon & Moser
    1965), so Bron–Kerbosch enumeration (Bron & Kerbosch 1973) cannot be run blindly
    on hundreds of systems. Non-significance between ordered means is almost always an
    *interval* structure: if systems i < j are not different, neither are any two
    systems ranked between them. That holds exactly when every edge ``(i, j)``,
    ``j > i + 1``, has the edges ``(i + 1, j)`` and ``(i, j - 1)`` (by induction on
    ``j - i``), checked in ``O(B^2)``; the maximal cliques are then exactly the maximal
    runs of consecutive systems whose members are pairwise adjacent (a clique spans an
    interval whose pairs are all edges), found in ``O(B^2)`` — the groups of
    consecutive systems of the compact letter display (Piepho 2004). Otherwise the
    cliques are enumerated (Bron–Kerbosch with Tomita's pivot, Tomita et al. 2006, on
    integer bitsets) up to ``max_groups`` cliques and ``10 * max_groups`` steps; past
    that bound the maximal consecutive runs are returned with ``complete=False``: systems
    sharing a group are still not
    different, but some non-different pairs then share no group.

    References
    ----------
    .. [1] Bron, C. & Kerbosch, J. (1973). Finding all cliques of an undirected graph. Commun. ACM
           16(9), 575-577.
    .. [2] Moon, J. W. & Moser, L. (1965). On cliques in graphs. Israel J. Math. 3, 23-28.
    .. [3] Tomita, E., Tanaka, A. & Takahashi, H. (2006). The worst-case time complexity for
           generating all maximal cliques and computational experiments. Theor. Comput. Sci.
           363(1), 28-42.
    .. [4] Piepho, H.-P. (2004). An algorithm for a letter-based representation of all-pairwise
           comparisons. J. Comput. Graph. Statist. 13(2), 456-466.

    Examples
    --------
    >>> A = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
    >>> maximal_groups(A)
    MaximalGroups(groups=((0, 1), (1, 2)), method='consecutive', complete=True)
    """
    A = np.asarray(adjacency, dtype=bool).copy()
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InputError(f"adjacency must be a square matrix, got shape {A.shape}")
    if not np.array_equal(A, A.T):
        raise InputError("adjacency must be symmetric")
    np.fill_diagonal(A, True)
    E = np.triu(A, k=2)  # edges (i, j) with j > i + 1
    i, j = np.nonzero(E)
    if A[i + 1, j].all() and A[i, j - 1].all():
        return MaximalGroups(tuple(_consecutive_runs(A)), "consecutive", True)
    np.fill_diagonal(A, False)
    found = _bron_kerbosch(A, max_groups=max_groups, max_steps=10 * max_groups)
    if found is None:
        np.fill_diagonal(A, True)
        return MaximalGroups(tuple(_consecutive_runs(A)), "consecutive-fallback", False)
    return MaximalGroups(tuple(sorted(found)), "enumerated", True)


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _bron_kerbosch(
    A: np.ndarray, *, max_groups: int, max_steps: int
) -> list[tuple[int, ...]] | None:
    """Maximal cliques by Bron–Kerbosch with Tomita's pivot, on integer bitsets, without
    recursion; ``None`` once more than ``max_groups`` cliques or ``max_steps`` calls."""
    B = len(A)
    # bit k of neighbours[i] is A[i, k]
    packed = np.packbits(A, axis=1, bitorder="little")
    neighbours = [int.from_bytes(row.tobytes(), "little") for row in packed]
    found: list[tuple[int, ...]] = []
    stack: list[tuple[tuple[int, ...], int, int]] = [((), (1 << B) - 1, 0)]
    steps = 0
    while stack:
        clique, P, X = stack.pop()
        steps += 1
        if steps > max_steps:
            return None
        if not P:
            if not X:
                found.append(tuple(sorted(clique)))
                if len(found) > max_groups:
                    return None
            continue
        pivot = max(_bits(P | X), key=lambda u: (P & neighbours[u]).bit_count())
        for v in _bits(P & ~neighbours[pivot]):
            stack.append(((*clique, v), P & neighbours[v], X & neighbours[v]))
            P &= ~(1 << v)
            X |= 1 << v
    return found


@dataclass(frozen=True)
class CompactLetterDisplay(TabularMixin):
    """Letters shared by systems that are not significantly different.

    Attributes
    ----------
    systems
        Names, in the order given (best first).
    letters
        The letters of each system joined into one string (``"ab"``), aligned with
        ``systems``. Past 52 groups, labels are ``a1, b1, ...`` and the joined string
        separates them with ``","``.
    groups
        Members of each letter, in letter order (each group best first).
    labels
        The letter of each group.
    complete
        Whether two systems share a letter if and only if they are not significantly
        different; ``False`` when the groups are the fallback of
        :func:`maximal_groups` (then sharing a letter still means "not different").
    """

    systems: tuple[str, ...]
    letters: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]
    labels: tuple[str, ...]
    complete: bool = True

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system: ``system`` and ``letters``."""
        return columns_to_records({"system": self.systems, "letters": self.letters})

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: systems with letters, and the groups by letter."""
        return {
            "kind": "compact_letter_display",
            "systems": self.to_records(),
            "groups": {lab: list(g) for lab, g in zip(self.labels, self.groups)},
            "complete": self.complete,
        }


_FALLBACK_NOTE = (
    f"more than {MAX_GROUPS:,} maximal groups of systems that do not differ: "
    "the groups (and letters) shown are the runs of consecutive systems in "
    "mean order that do not differ pairwise; two systems that share no group "
    "may still not differ (see the pairwise comparisons)"
)


def _letters_from_groups(names: tuple[str, ...], groups: MaximalGroups) -> CompactLetterDisplay:
    columns = list(groups.groups)  # sorted by their members' indices
    labels = tuple(_label(k) for k in range(len(columns)))
    sep = "," if len(columns) > 52 else ""
    member: list[list[int]] = [[] for _ in names]
    for k, c in enumerate(columns):
        for s in c:
            member[s].append(k)
    letters = tuple(sep.join(labels[k] for k in ks) for ks in member)
    named = tuple(tuple(names[s] for s in c) for c in columns)
    return CompactLetterDisplay(names, letters, named, labels, groups.complete)


def _label(k: int) -> str:
    letters = string.ascii_lowercase + string.ascii_uppercase
    return letters[k] if k < 52 else f"{string.ascii_lowercase[k % 26]}{k // 26 - 1}"


def compact_letter_display(
    systems_in_order: Sequence[str], significant_pairs: Sequence[tuple[str, str]] | np.ndarray
) -> CompactLetterDisplay:
    """Compact letter display (Piepho 2004): one letter per maximal group of systems
    that are pairwise not significantly different.

    Parameters
    ----------
    systems_in_order
        System names, best first (e.g. by descending mean).
    significant_pairs
        The significantly different pairs: ``(name, name)`` tuples, or a symmetric
        ``(B, B)`` boolean matrix aligned with ``systems_in_order``.

    Returns
    -------
    CompactLetterDisplay

    Raises
    ------
    InputError
        Unknown or duplicate names, a pair of a system with itself, a matrix of the
        wrong shape or not symmetric.

    Notes
    -----
    Piepho's insert-absorb algorithm (2004, §2) ends with exactly the maximal groups
    of mutually non-significant systems (the maximal cliques of the non-significance
    graph), so two systems share a letter if and only if they are not significantly
    different, and every system gets at least one letter. Those groups are computed
    here directly by :func:`maximal_groups`, in ``O(B^2)`` when they are runs of
    consecutive systems (the usual case) and by bounded enumeration otherwise —
    insert-absorb itself does work exponential in the number of systems in the worst
    case. Past :data:`MAX_GROUPS` groups the letters are the consecutive runs and
    :attr:`CompactLetterDisplay.complete` is ``False``. Letters are named in the order
    of their best member (then the next member, ...), so the best system gets ``a``.

    References
    ----------
    .. [1] Piepho, H.-P. (2004). An algorithm for a letter-based representation of all-pairwise
           comparisons. J. Comput. Graph. Statist. 13(2), 456-466.

    Examples
    --------
    >>> cld = compact_letter_display(["A", "B", "C", "D"], [("A", "C"), ("A", "D"), ("B", "D")])
    >>> cld.letters
    ('a', 'ab', 'bc', 'c')
    """
    names = tuple(str(s) for s in systems_in_order)
    B = len(names)
    if B == 0:
        raise InputError("no systems to letter")
    if len(set(names)) != B:
        raise InputError("system names must be distinct")
    index = {s: k for k, s in enumerate(names)}
    pairs: list[tuple[int, int]] = []
    if isinstance(significant_pairs, np.ndarray) and significant_pairs.ndim == 2:
        S = significant_pairs.astype(bool)
        if S.shape != (B, B) or not np.array_equal(S, S.T):
            raise InputError(
                f"the significance matrix must be symmetric ({B}, {B}), got shape {S.shape}"
            )
        return _letters_from_groups(names, maximal_groups(~S))
    else:
        for pair in significant_pairs:
            if len(pair) != 2:
                raise InputError(f"significant pair {pair!r} must have two systems")
            a, b = (str(x) for x in pair)
            for x in (a, b):
                if x not in index:
                    raise InputError(
                        f"unknown system {x!r} in significant_pairs",
                        hint=f"systems: {', '.join(names)}",
                    )
            if a == b:
                raise InputError(f"pair ({a!r}, {b!r}) compares a system with itself")
            i, j = sorted((index[a], index[b]))
            pairs.append((i, j))
        pairs = sorted(set(pairs))
    adjacency = np.ones((B, B), dtype=bool)
    if pairs:
        ij = np.asarray(pairs, dtype=np.int64)
        adjacency[ij[:, 0], ij[:, 1]] = adjacency[ij[:, 1], ij[:, 0]] = False
    return _letters_from_groups(names, maximal_groups(adjacency))

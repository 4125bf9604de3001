"""How tie groups are shown: letters while they are few, numbered groups beyond.

A compact letter display (Piepho 2004) gives each maximal group of systems that do not
differ one letter; with many systems the strings grow unreadable ("ijklmnopqrstuvwxyzA").
Up to :data:`MAX_LETTERED_GROUPS` groups the letters are shown; beyond, each system shows
the numbers of its groups, consecutive ones as a range ("3–7"), so one list is always
shown one way, and two systems share a label exactly when they share a group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: The most tie groups shown as letters; more are numbered.
MAX_LETTERED_GROUPS = 8


def tie_labels(letters: Any) -> dict[str, str]:
    """Per system, its tie groups as shown: the letters (``"ab"``) of a compact letter
    display of at most :data:`MAX_LETTERED_GROUPS` groups, else the numbers of its groups
    (``"3–5"``, ``"2, 4"``); ``{}`` without a display.

    >>> from types import SimpleNamespace as NS
    >>> few = NS(systems=("a", "b", "c"), letters=("a", "ab", "b"),
    ...          groups=(("a", "b"), ("b", "c")), labels=("a", "b"))
    >>> tie_labels(few)
    {'a': 'a', 'b': 'ab', 'c': 'b'}
    >>> names = tuple("s%d" % k for k in range(11))
    >>> many = NS(systems=names, letters=(), labels=tuple("abcdefghij"),
    ...           groups=tuple((names[k], names[k + 1]) for k in range(10)))
    >>> tie_labels(many)["s0"], tie_labels(many)["s1"], tie_labels(many)["s10"]
    ('1', '1–2', '10')
    """
    if letters is None:
        return {}
    if len(letters.labels) <= MAX_LETTERED_GROUPS:
        return dict(zip(letters.systems, letters.letters))
    member: dict[str, list[int]] = {s: [] for s in letters.systems}
    for number, group in enumerate(letters.groups, start=1):
        for name in group:
            member[name].append(number)
    return {name: _ranges(numbers) for name, numbers in member.items()}


def tie_labels_of_record(record: Any) -> dict[str, str]:
    """:func:`tie_labels` of a compact letter display as results.json holds it
    (``{"systems": [{"system", "letters"}], "groups": {label: [systems]}}``): the same
    labels the report shows, letters up to :data:`MAX_LETTERED_GROUPS` groups, numbers
    beyond; ``{}`` without one.

    >>> rec = {"systems": [{"system": "a", "letters": "a"}, {"system": "b", "letters": "ab"}],
    ...        "groups": {"a": ["a", "b"], "b": ["b"]}}
    >>> tie_labels_of_record(rec)
    {'a': 'a', 'b': 'ab'}
    """
    from types import SimpleNamespace

    if not isinstance(record, dict) or not record.get("systems"):
        return {}
    groups = record.get("groups") or {}
    return tie_labels(
        SimpleNamespace(
            systems=tuple(str(r["system"]) for r in record["systems"]),
            letters=tuple(str(r.get("letters") or "") for r in record["systems"]),
            labels=tuple(groups),
            groups=tuple(tuple(g) for g in groups.values()),
        )
    )


def tie_word(labels: dict[str, str]) -> str:
    """What a reader shares with a system in its tie group: "a number" when the groups
    are numbered (:func:`tie_labels`), else "a letter".

    >>> tie_word({"a": "1–2"}), tie_word({"a": "ab"})
    ('a number', 'a letter')
    """
    numbered = any(ch.isdigit() for label in labels.values() for ch in label)
    return "a number" if numbered else "a letter"


def tie_heading(letters: Any) -> str:
    """The column heading of :func:`tie_labels`."""
    numbered = letters is not None and len(letters.labels) > MAX_LETTERED_GROUPS
    return "tie groups (numbered)" if numbered else "tie group"


def _ranges(numbers: Sequence[int]) -> str:
    """``[3, 4, 5, 7]`` as ``"3–5, 7"``."""
    parts: list[str] = []
    run: list[int] = []
    for n in sorted(numbers):
        if run and n == run[-1] + 1:
            run.append(n)
            continue
        if run:
            parts.append(_run(run))
        run = [n]
    if run:
        parts.append(_run(run))
    return ", ".join(parts)


def _run(run: Sequence[int]) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}"

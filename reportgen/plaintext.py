"""Names shown, never obeyed: the one helper that makes text from the data (system,
dataset and metric names, titles, file names) safe to show in a terminal, a plain-text
e-mail, HTML and PDF.

A name is data; some characters in it would act instead of showing: control characters
(an ``ESC`` sequence retitles a terminal, a carriage return overwrites a line), line
breaks (``\\n``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028, U+2029 forge a new
line of output) and the bidirectional controls (U+202E turns the rest of a sentence
around, so "A beats B" reads as something else; Unicode TR #9, and the "Trojan Source"
attack, CVE-2021-42574). :func:`shown` writes each of them as a visible escape
(``\\n``, ``\\x1b``, ``\\u202e``), so the reader sees that it is there and the text
around it stays as written. Letters of right-to-left scripts are left alone.

This module imports only the standard library, so every layer may use it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = [
    "MAX_FULL",
    "UNSAFE",
    "closest",
    "count",
    "did_you_mean",
    "full_text",
    "listed",
    "n_of",
    "shown",
    "shown_path",
    "verb",
]

#: Longest full name kept where a shortened one is spelled out (a tooltip, a hover
#: title, the printed list of shortened names); a longer one ends in "… (N characters)"
#: (tables/*.csv and results.json have it whole).
MAX_FULL = 2000


def full_text(text: str) -> str:
    """``text`` :func:`shown` (line breaks kept), for a tooltip or a footnote: whole up to
    :data:`MAX_FULL` characters, else its start and its length.

    >>> full_text("a" * 5), full_text("b" * 2500)[-25:]
    ('aaaaa', 'bbbbb… (2,500 characters)')
    """
    text = shown(text, keep_lines=True)
    if len(text) <= MAX_FULL:
        return text
    return f"{text[: MAX_FULL - 1]}… ({len(text):,} characters)"


#: Characters that act rather than show: C0 and C1 controls with DEL, the Unicode line
#: and paragraph separators, and the bidirectional marks, embeddings, overrides and
#: isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: The same without newline and tab: for whole messages whose lines are reportgen's own.
UNSAFE_KEEP_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: Any, *, keep_lines: bool = False) -> str:
    """``text`` as it may be shown: every character of :data:`UNSAFE` written as a
    visible escape.

    Parameters
    ----------
    text
        A name, or a line of text holding names (``str()`` of anything else).
    keep_lines
        Keep newline and tab (for a message of several lines that reportgen wrote,
        whose names were escaped already); other line breaks are still escaped.

    Examples
    --------
    >>> print(shown("gpt\\u202e4 (evil)"))
    gpt\\u202e4 (evil)
    >>> print(shown("a\\nreportgen: ok"))
    a\\nreportgen: ok
    >>> shown("قاعدة-base") == "قاعدة-base"  # right-to-left letters stay
    True
    """
    value = str(text)
    pattern = UNSAFE_KEEP_LINES if keep_lines else UNSAFE
    if pattern.search(value) is None:  # the common case, at C speed
        return value
    return pattern.sub(_escape, value)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in the number that agrees with it (thousands separated): never
    "1 metrics" or "dataset(s)".

    >>> count(1, "metric"), count(2, "dataset"), count(12000, "item")
    ('1 metric', '2 datasets', '12,000 items')
    >>> count(0, "candidate"), count(3, "analysis", "analyses")
    ('0 candidates', '3 analyses')
    """
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def verb(n: int, plural: str, singular: str) -> str:
    """The verb form that agrees with ``n`` things: ``verb(1, "have", "has")`` is "has".

    >>> f"{count(1, 'system')} {verb(1, 'have', 'has')} one run"
    '1 system has one run'
    """
    return singular if n == 1 else plural


def shown_path(path: Any) -> str:
    """A path as a report or an e-mail shows it, never a private absolute one: relative
    to the working directory when it lies inside it, else its file or folder name alone
    (full paths stay in ``manifest.json`` for provenance).

    Examples
    --------
    >>> import os
    >>> shown_path(os.path.join(os.getcwd(), "results", "scores.csv")) == os.path.join(
    ...     "results", "scores.csv")
    True
    >>> shown_path("/home/someone/private/scores.csv")
    'scores.csv'
    """
    import os
    from pathlib import Path

    p = Path(str(path))
    try:
        rel = Path(os.path.relpath(os.path.abspath(p)))
    except ValueError:  # another drive (Windows)
        return p.name or str(p)
    if rel.parts and rel.parts[0] == os.pardir:
        return p.name or str(p)
    return str(rel)


def n_of(k: int, total: int, noun: str, plural: str | None = None) -> str:
    """``k`` of ``total`` things, the noun agreeing with ``total``: the head of a merged
    sentence ("no significant difference in 6 of 7 datasets: ...").

    >>> n_of(6, 7, "dataset"), n_of(1, 1, "dataset × metric")
    ('6 of 7 datasets', '1 of 1 dataset × metric')
    """
    return f"{k:,} of {count(total, noun, plural)}"


def listed(names: list[str] | tuple[str, ...], limit: int = 6) -> str:
    """Names joined as a sentence lists them, the first ``limit`` only and then how many
    more: one sentence for many units instead of one sentence each.

    >>> listed(["a"]), listed(["a", "b"]), listed(["a", "b", "c"])
    ('a', 'a and b', 'a, b and c')
    >>> listed([str(k) for k in range(9)], limit=3)
    '0, 1, 2 and 6 more'
    """
    shown_names = list(names[:limit])
    if len(names) > limit:
        shown_names.append(f"{len(names) - limit:,} more")
    if len(shown_names) <= 1:
        return "".join(shown_names)
    return ", ".join(shown_names[:-1]) + " and " + shown_names[-1]


def _key(name: str) -> str:
    """A name as :func:`closest` compares it: lower case, letters and digits only."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


def closest(name: str, candidates: Sequence[str], n: int = 3) -> list[str]:
    """The ``n`` names of ``candidates`` closest to ``name`` (a misspelt system, dataset
    or metric), closest first: by the similarity of their letters and digits (case,
    hyphens and underscores ignored), a candidate that contains ``name`` or is
    contained in it first. Never the whole list.

    >>> names = ["claude-3-opus-20240229", "claude-3-sonnet-20240229", "gpt-4-1106-preview",
    ...          "gpt-4o", "deepseek-coder-33b"]
    >>> closest("claude-3-opus", names, 2)
    ['claude-3-opus-20240229', 'claude-3-sonnet-20240229']
    >>> closest("gpt4", names, 2)
    ['gpt-4o', 'gpt-4-1106-preview']
    """
    import difflib

    wanted = _key(name)

    def score(candidate: str) -> tuple[bool, float]:
        key = _key(candidate)
        inside = bool(wanted) and bool(key) and (wanted in key or key in wanted)
        return inside, difflib.SequenceMatcher(None, wanted, key).ratio()

    ranked = sorted(dict.fromkeys(candidates), key=score, reverse=True)
    return ranked[:n]


def did_you_mean(name: str, candidates: Sequence[str], n: int = 3) -> str:
    """A hint naming the ``n`` candidates closest to ``name`` (:func:`closest`), and how
    many there are in all.

    >>> did_you_mean("gpt4", ["gpt-4o", "claude-3-opus", "gpt-4-turbo", "llama-3"])
    'did you mean gpt-4o, gpt-4-turbo or claude-3-opus? (4 in all)'
    """
    near = closest(name, candidates, n)
    if not near:
        return "there is none to choose from"
    listed_ = near[0] if len(near) == 1 else ", ".join(near[:-1]) + " or " + near[-1]
    total = len(dict.fromkeys(candidates))
    return f"did you mean {listed_}?" + (f" ({total:,} in all)" if total > len(near) else "")

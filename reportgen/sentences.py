"""Sentences with names in them, written once and shown in any medium.

The analysis words its claims (:mod:`reportgen.analysis.ledger`): "**A** is better than
**B** on humaneval / pass1: ...". A sentence is a :class:`Sentence` of text and
:class:`Name` parts; each output shows it its own way, and no output re-words it:

* :meth:`Sentence.html`: every part escaped (:func:`reportgen.plaintext.shown`, then
  HTML), names in ``<strong>``;
* :meth:`Sentence.plain`: the text, names :func:`~reportgen.plaintext.shown` (a console
  line, an e-mail's text part, a subject);
* :meth:`Sentence.markdown` and :meth:`Sentence.latex`: names in bold, the rest escaped.

A name is data and may hold anything (markup, a right-to-left override, a line break):
it is shown, never obeyed, in every medium.

This module imports only the standard library and :mod:`reportgen.plaintext`, so every
layer may use it.

Examples
--------
>>> s = Sentence.of(Name("a<b>"), " is better than ", Name("B"), " (Δ = +2.0 pts).")
>>> s.plain()
'a<b> is better than B (Δ = +2.0 pts).'
>>> s.html()
'<strong>a&lt;b&gt;</strong> is better than <strong>B</strong> (Δ = +2.0 pts).'
>>> s.markdown()
'**a<b>** is better than **B** (Δ = +2.0 pts).'
"""

from __future__ import annotations

import html as _html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from reportgen.plaintext import shown

__all__ = ["Name", "Part", "Sentence", "Style", "joined"]

Style = Literal["plain", "markdown", "latex", "html"]


@dataclass(frozen=True)
class Name:
    """A name of the data (a system, a dataset): shown safely, set in bold where the
    medium has bold."""

    text: str


Part = str | Name


def _latex_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "\\":
            out.append("\\textbackslash{}")
        elif ch == "~":
            out.append("\\textasciitilde{}")
        elif ch == "^":
            out.append("\\textasciicircum{}")
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True)
class Sentence:
    """A sentence (or a phrase) of text and names, most often built by
    :meth:`of` and joined with ``+``."""

    parts: tuple[Part, ...] = ()

    @classmethod
    def of(cls, *parts: Part | Sentence) -> Sentence:
        """The parts in order (a sentence among them is spliced in)."""
        out: list[Part] = []
        for part in parts:
            if isinstance(part, Sentence):
                out.extend(part.parts)
            elif part != "":
                out.append(part)
        return cls(tuple(out))

    def __add__(self, other: Part | Sentence) -> Sentence:
        return Sentence.of(self, other)

    def __radd__(self, other: Part) -> Sentence:
        return Sentence.of(other, self)

    def __bool__(self) -> bool:
        return bool(self.parts)

    def __str__(self) -> str:
        return self.plain()

    @property
    def names(self) -> tuple[str, ...]:
        """The names in it, in order."""
        return tuple(p.text for p in self.parts if isinstance(p, Name))

    def plain(self) -> str:
        """The text; names with their unsafe characters escaped."""
        return "".join(shown(p.text) if isinstance(p, Name) else p for p in self.parts)

    def html(self) -> str:
        """HTML: every part escaped, names in ``<strong>``."""
        out = []
        for p in self.parts:
            if isinstance(p, Name):
                out.append(
                    f"<strong>{_html.escape(shown(p.text, keep_lines=True), quote=False)}</strong>"
                )
            else:
                out.append(_html.escape(shown(p, keep_lines=True), quote=False))
        return "".join(out)

    def markdown(self) -> str:
        """Markdown: names in bold (``**name**``), the rest as text."""
        return "".join(f"**{shown(p.text)}**" if isinstance(p, Name) else p for p in self.parts)

    def latex(self) -> str:
        """LaTeX: names in ``\\textbf``, special characters escaped."""
        return "".join(
            f"\\textbf{{{_latex_escape(shown(p.text))}}}"
            if isinstance(p, Name)
            else _latex_escape(p)
            for p in self.parts
        )

    def styled(self, style: Style) -> str:
        """The sentence in ``style`` (``plain``, ``markdown``, ``latex`` or ``html``)."""
        if style == "plain":
            return self.plain()
        if style == "markdown":
            return self.markdown()
        if style == "latex":
            return self.latex()
        if style == "html":
            return self.html()
        raise ValueError(f"style={style!r}; use 'plain', 'markdown', 'latex' or 'html'")


def joined(
    items: Sequence[Part | Sentence] | Iterable[Part | Sentence],
    sep: str = ", ",
    last: str = " and ",
) -> Sentence:
    """``a, b and c`` of sentences or parts.

    >>> joined([Name("A"), Name("B"), "C"]).plain()
    'A, B and C'
    """
    items = list(items)
    out: list[Part | Sentence] = []
    for k, item in enumerate(items):
        if k:
            out.append(last if k == len(items) - 1 else sep)
        out.append(item)
    return Sentence.of(*out)

"""Charts' SVG made for the HTML report: each mark's tooltip shown on hover
(:func:`hover_titles`)."""

from __future__ import annotations

import re

__all__ = ["hover_titles"]

_ARIA_MARK = re.compile(
    r'<(path|rect|line|circle|ellipse|polygon|polyline|text)\b([^>]*?)\baria-label="([^"]*)"'
    r'([^>]*?role="graphics-symbol"[^>]*?)(/?)>'
)


def hover_titles(svg: str) -> str:
    """``svg`` (drawn by vl-convert) with a ``<title>`` for every mark that has a tooltip
    (its ``aria-label``), so that a browser shows it on hover: the inline SVG of the
    HTML report has no script for Vega's tooltips. A text mark is wrapped in a group
    with the title (a title inside ``<text>`` would be drawn by some SVG renderers).

    >>> hover_titles('<path aria-label="system: a" role="graphics-symbol" d="M0"/>')
    '<path aria-label="system: a" role="graphics-symbol" d="M0"><title>system: a</title></path>'
    """

    def add(match: re.Match[str]) -> str:
        tag, before, label, after, closed = match.groups()
        start = f'<{tag}{before}aria-label="{label}"{after}'
        title = f"<title>{label}</title>"
        if tag == "text":
            return f"<g>{title}{start}>"
        if closed:
            return f"{start.rstrip()}>{title}</{tag}>"
        return f"{start}>{title}"

    out = _ARIA_MARK.sub(add, svg)
    # close the groups opened around text marks
    return re.sub(r"(<g><title>[^<]*</title><text\b[^>]*>.*?</text>)", r"\1</g>", out, flags=re.S)

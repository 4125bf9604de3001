"""HTML of items shown with their text (:mod:`reportgen.analysis.item_text`): what was
asked, the reference, and the systems' outputs side by side, with what differs between
two outputs of similar form marked.

Model outputs are hostile input. Every text goes through :func:`escape` (HTML escaping
of :func:`reportgen.plaintext.shown`: control characters such as ``ESC`` of an ANSI
sequence, the bidirectional overrides and the Unicode line separators are written as
visible escapes such as ``\\x1b`` and ``\\u202e``), inside ``<pre class="rg-item-text">``
whose lines wrap anywhere (a 10,000-character line stays on the page); markup and
Markdown show as the characters they are. The exporter leaves these blocks whole
(no long word is cut in them), so each shows exactly what the log holds, up to the text
limit, which the block says when it was reached.
"""

from __future__ import annotations

from collections.abc import Sequence

from reportgen.analysis.item_text import ItemListText, Segment, ShownItem, SystemOutput
from reportgen.report.render.html import escape

__all__ = [
    "ITEM_TEXT_CSS",
    "item_block",
    "print_item_block",
    "text_block",
]

#: Characters of one text shown in the PDF (the HTML shows up to the text limit).
PRINT_CHARS = 600

#: The layout of the item blocks, screen and print (the page's CSS comes from the theme;
#: these rules travel with the blocks that need them).
ITEM_TEXT_CSS = """\
<style>
.rg-item { border: 1px solid var(--rule-light, #dde1e6); border-radius: 4px;
  margin: .4rem 0; padding: .2rem .6rem; }
.rg-item > summary { cursor: pointer; }
.rg-item-lost > summary::before { content: "− "; color: var(--bad, #b2182b); font-weight: 700; }
.rg-item-gained > summary::before { content: "+ "; color: var(--good, #1b7837); font-weight: 700; }
.rg-itext-item { margin: .3rem 0 .5rem; }
.rg-itext-pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
  gap: .2rem 1rem; }
.rg-itext-label { font-size: .8rem; color: var(--muted, #59636e); margin-top: .3rem; }
pre.rg-item-text { white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word;
  margin: .1rem 0; padding: .35rem .5rem; max-height: 24rem; overflow-y: auto;
  font-size: .82rem; line-height: 1.35; }
pre.rg-item-text .rg-diff-old { background: #fbeaec; text-decoration: line-through;
  text-decoration-thickness: 1px; }
pre.rg-item-text .rg-diff-new { background: #e9f5ec; text-decoration: underline; }
.rg-itext-cut, .rg-itext-none { font-size: .8rem; color: var(--muted, #59636e); margin: 0; }
@media screen { @media (max-width: 40rem) { .rg-itext-pair { grid-template-columns: 1fr; } } }
@media print {
  /* side by side without a grid (WeasyPrint): two columns of half the width */
  .rg-itext-pair { display: block; }
  .rg-itext-pair > div { display: inline-block; width: 49%; vertical-align: top; }
  .rg-itext-pair > div + div { margin-left: 1.5%; }
  pre.rg-item-text { max-height: none; overflow: visible; font-size: 7.5pt; }
  .rg-item { break-inside: avoid; border: 0; border-top: 1px solid var(--rule-light, #ccc);
    border-radius: 0; padding: .2rem 0; }
}
</style>"""


def _segments(segments: Sequence[Segment], css: str) -> str:
    return "".join(
        f'<span class="{css}">{escape(text)}</span>' if differs else escape(text)
        for differs, text in segments
    )


def text_block(
    label: str,
    text: str | None,
    *,
    cut: bool = False,
    limit: int | None = None,
    segments: Sequence[Segment] | None = None,
    diff_css: str = "rg-diff-new",
    print_chars: int | None = None,
) -> str:
    """One labelled text in a ``<pre class="rg-item-text">``, escaped (module notes).

    Parameters
    ----------
    label
        What the text is (plain text, escaped here).
    text
        The text; None shows "none in the log".
    cut, limit
        Whether the log holds more than the ``limit`` characters kept (said under it).
    segments
        The text as (differs, text) segments: differing ones are marked with
        ``diff_css``.
    print_chars
        Show at most this many characters (the PDF), saying how many there are.

    >>> text_block("output", "<b>5</b>\\x1b[31m").split("<pre")[1]
    ' class="rg-item-text">&lt;b&gt;5&lt;/b&gt;\\\\x1b[31m</pre></div>'
    """
    head = f'<div class="rg-itext"><div class="rg-itext-label">{escape(label)}</div>'
    if text is None:
        return head + '<p class="rg-itext-none">none in the log</p></div>'
    notes = []
    if print_chars is not None and len(text) > print_chars:
        body = escape(text[:print_chars]) + "…"
        notes.append(
            f"the first {print_chars:,} of {len(text):,} characters; all of them in "
            "report.html and tables/flips.csv"
        )
    elif segments is not None:
        body = _segments(segments, diff_css)
    else:
        body = escape(text)
    if cut:
        notes.append(
            f"cut at {limit:,} characters (--text-limit): the log holds more"
            if limit
            else "cut at the text limit: the log holds more"
        )
    tail = "".join(f'<p class="rg-itext-cut">{n}</p>' for n in notes)
    return f'{head}<pre class="rg-item-text">{body}</pre>{tail}</div>'


def _score(value: float | None) -> str:
    return "" if value is None else f" (score {value:.4g})"


def _summary(item: ShownItem) -> str:
    parts = [f"<strong>{escape(item.item)}</strong>", escape(item.outcome)]
    scores = [o for o in item.outputs if o.score is not None]
    if scores:
        parts.append(" → ".join(f"{escape(o.role)} {o.score:.4g}" for o in scores))
    parts += [f"{escape(k)}: {escape(v)}" for k, v in item.metadata]
    return " · ".join(parts)


def _output_blocks(output: SystemOutput, limit: int, print_chars: int | None) -> str:
    label = f"{output.role}: {output.system}{_score(output.score)}"
    blocks = text_block(
        label,
        output.output,
        cut="output" in output.cut,
        limit=limit,
        segments=output.segments,
        diff_css="rg-diff-old" if output.role == "baseline" else "rg-diff-new",
        print_chars=print_chars,
    )
    if output.explanation is not None and output.explanation != output.output:
        blocks += text_block(
            f"{output.role}: explanation",
            output.explanation,
            cut="explanation" in output.cut,
            limit=limit,
            print_chars=print_chars,
        )
    return f"<div>{blocks}</div>"


def _body(item: ShownItem, limit: int, print_chars: int | None) -> str:
    parts = [
        text_block(
            "input",
            item.input,
            cut="input" in item.cut,
            limit=limit,
            print_chars=print_chars,
        )
    ]
    if item.target is not None:
        parts.append(
            text_block(
                "target",
                item.target,
                cut="target" in item.cut,
                limit=limit,
                print_chars=print_chars,
            )
        )
    outputs = "".join(_output_blocks(o, limit, print_chars) for o in item.outputs)
    if len(item.outputs) == 2:  # side by side
        outputs = f'<div class="rg-itext-pair">{outputs}</div>'
    return '<div class="rg-itext-item">' + "".join(parts) + outputs + "</div>"


def item_block(item: ShownItem, *, limit: int) -> str:
    """One item, folded: its id, outcome, scores and metadata in the summary, its
    texts inside (screen)."""
    css = f"rg-item rg-item-{item.outcome.replace(' ', '-')}"
    return (
        f'<details class="{css}"><summary>{_summary(item)}</summary>'
        f"{_body(item, limit, None)}</details>"
    )


def print_item_block(item: ShownItem, *, limit: int, chars: int = PRINT_CHARS) -> str:
    """One item, open, each text at most ``chars`` characters (the PDF)."""
    css = f"rg-item rg-item-{item.outcome.replace(' ', '-')}"
    return f'<div class="{css}"><p>{_summary(item)}</p>{_body(item, limit, chars)}</div>'


def list_heading(listed: ItemListText) -> str:
    """``Lost (18; the first 50 shown)``: the list's name and size."""
    name = {
        "lost": "Lost",
        "gained": "Gained",
        "solved by one": "Solved by one system only",
        "suspect": "Suspect",
    }[listed.outcome]
    shown = len(listed.items)
    more = f"; the first {shown} shown" if shown < listed.n_total else ""
    return f"<p><strong>{name} ({listed.n_total:,}{more})</strong></p>"

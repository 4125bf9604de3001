"""The page around the report's body: the HTML document, its header block, the table
of contents (in the body and as a sidebar on wide screens) and the layout CSS the
exporter's own markup needs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from reportgen.charts.render import Theme, load_theme
from reportgen.errors import ConfigError
from reportgen.report.export.body import (
    Heading,
    esc,
    finish_body,
    full_names_note,
    shorten_long_words,
)
from reportgen.report.export.cells import notebook_fragments

__all__ = ["CONTENTS_MARKER", "notebook_to_html", "title_iv"]

#: The screen rules every theme gets, placed after its ``report.css`` (they win over its
#: rules of the same weight, as when each bundled theme carried them at its end).
_SCREEN_CSS = """\
/* --- on screen, at every width (issue 34): words whole, the first column pinned, the
   decision in view, charts at their own size. Screen only: the PDF lays its tables out
   with measured widths and its charts to the page. --- */
@media screen {
  /* a name is never broken inside: it widens its column and the table scrolls in its
     frame (the exporter's "overflow-wrap: anywhere" is for the printed page) */
  .rg-table-wrap td, .rg-table-wrap th { overflow-wrap: normal; word-break: normal; }
  /* a name shortened in the middle: its full text shows when pointed at (title) */
  .rg-cut { text-decoration: underline dotted; cursor: help; }
  /* headings wrap between words, so a table of short values fits beside the contents */
  .rg-table-wrap thead th { white-space: normal; min-width: 4.5em; }
  /* the first column (the system, the dataset / metric) stays in view while the rest
     scrolls; opaque, with the row's own background */
  .rg-table-wrap { position: relative; }
  .rg-table-wrap > table > thead > tr > :first-child,
  .rg-table-wrap > table > tbody > tr > :first-child {
    position: sticky; left: 0; z-index: 1; background: var(--bg);
    box-shadow: inset -1px 0 0 var(--rule-light); }
  .rg-table-wrap > table > thead > tr > :first-child { z-index: 2; background: var(--head); }
  .rg-table-wrap > table > tbody > tr:nth-child(even) > :first-child { background: var(--zebra); }
  .rg-table-wrap > table > thead > tr + tr > :first-child { position: static; }
  /* the central matrix pins the system, not its rank (which scrolls away under it) */
  .rg-table-wrap > table.rg-matrix > thead > tr:first-child > :first-child,
  .rg-table-wrap > table.rg-matrix > tbody > tr > :first-child {
    position: static; box-shadow: none; }
  .rg-table-wrap > table.rg-matrix > thead > tr:first-child > :nth-child(2),
  .rg-table-wrap > table.rg-matrix > tbody > tr > td.rg-name {
    position: sticky; left: 0; z-index: 1; background: var(--bg);
    box-shadow: inset -1px 0 0 var(--rule-light); }
  .rg-table-wrap > table.rg-matrix > thead > tr:first-child > :nth-child(2) {
    z-index: 2; background: var(--head); }
  .rg-table-wrap > table.rg-matrix > tbody > tr:nth-child(even) > td.rg-name {
    background: var(--zebra); }
  /* the matrix fits a desktop screen beside the contents: narrower gutters, and a
     name may wrap where it has a break (after "-", "|" or a space), never in a word */
  .rg-table-wrap > table.rg-matrix th, .rg-table-wrap > table.rg-matrix td {
    padding-left: .4rem; padding-right: .4rem; }
  .rg-table-wrap > table.rg-matrix td.rg-name { white-space: normal; min-width: 7em; }
  /* the release verdicts (with margins up to 11 columns) fit a desktop screen too: the
     verdict keeps its word whole, a margin's "(equivalent)" may go under it */
  .rg-table-wrap > table.rg-stack th, .rg-table-wrap > table.rg-stack td {
    padding-left: .45rem; padding-right: .45rem; }
  .rg-table-wrap > table.rg-stack td[data-label="verdict"] { min-width: 7.5em; }
  .rg-table-wrap > table.rg-stack td[data-label="margin"] { white-space: normal; }
  /* a phone: a smaller title, so the decision shows on the first screen */
  @media (max-width: 40rem) {
    .rg-title { font-size: 1.45rem; }
    .rg-decision { font-size: 1rem; padding: .5rem .8rem; }
  }
  /* a chart wider than a phone has a second figure laid out for it, or its table
     (render/phone.py): the screen's width chooses which one shows */
  @media (max-width: 40rem) {
    figure.rg-chart.rg-wide-only { display: none; }
    figure.rg-chart.rg-narrow-only { display: block; }
  }
  /* a chart keeps its own size (its text stays at 10 px or more) and scrolls
     sideways in its frame when the screen is narrower */
  figure.rg-chart { overflow-x: auto; }
  figure.rg-chart > svg, figure.rg-chart > img { max-width: none; }
  .rg-charts > * { min-width: 0; max-width: 100%; }
}

/* a table of decisions (the release verdicts) as one card per row on a phone: the name,
   then each value under its column's label (data-label); nothing to scroll. Nested, as
   WeasyPrint reads media types only and warns about a width. */
@media screen { @media (max-width: 40rem) {
  .rg-table-wrap > table.rg-stack, table.rg-stack > tbody, table.rg-stack > tbody > tr,
  table.rg-stack > tbody > tr > td { display: block; width: auto; }
  .rg-table-wrap > table.rg-stack { border: 0; }
  table.rg-stack > thead { position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip-path: inset(50%); white-space: nowrap; }
  table.rg-stack > tbody > tr { border: 1px solid var(--rule); border-radius: 4px;
    margin: 0 0 .6rem; padding: .35rem .7rem; }
  .rg-table-wrap > table.rg-stack > tbody > tr > td { display: flex; gap: 0 1rem;
    flex-wrap: wrap; justify-content: space-between; align-items: baseline; position: static;
    box-shadow: none; background: none; border: 0; padding: .12rem 0; text-align: right;
    white-space: normal; }
  /* a value too long for the room beside its label goes on the line under it */
  table.rg-stack > tbody > tr > td::before { content: attr(data-label); flex: none;
    max-width: 50%; text-align: left; color: var(--muted); font-weight: normal;
    font-style: normal; }
  .rg-table-wrap > table.rg-stack > tbody > tr > td:first-child { display: block;
    text-align: left; font-weight: 600; padding-bottom: .2rem; }
  table.rg-stack > tbody > tr > td:first-child::before { content: none; }
} }
"""


#: Layout rules the exporter's own markup needs, whatever the theme; the theme's
#: ``report.css`` comes after them and may override any of them.
_LAYOUT_CSS = """\
*, *::before, *::after { box-sizing: border-box; }
@media screen { .rg-table-wrap { overflow-x: auto; } }
.rg-table-wrap { margin: 1rem 0; max-width: 100%; }
/* prose: a token longer than the line (a path, a long name) wraps rather than widen the
   page on a phone; tables keep their own rules */
.rg-body p, .rg-body li { overflow-wrap: break-word; }
/* a long name wraps anywhere rather than push the table off the printed page; on a
   screen the table scrolls instead and no word is broken */
@media print { td:first-child, td.rg-long { overflow-wrap: anywhere; } }
td.rg-long { white-space: normal !important; min-width: 12em; }
.rg-table-wrap > table { margin: 0; }
figure.rg-chart { margin: 1.25rem auto; max-width: 100%; text-align: center; }
figure.rg-chart > svg, figure.rg-chart > img { display: block; margin: 0 auto;
  max-width: 100%; height: auto; }
figure.rg-chart > figcaption { margin-top: .4rem; }
.rg-charts { display: flex; flex-wrap: wrap; justify-content: center;
  align-items: flex-start; gap: .5rem 1.5rem; margin: 1rem 0; }
.rg-charts > figure.rg-chart { margin: .5rem 0; min-width: 0; }
.rg-toc ol { list-style: none; margin: 0; padding-left: 0; }
.rg-toc ol ol { padding-left: 1.25rem; }
.rg-meta { margin: .5rem 0 0; }
.rg-meta > div { display: inline-block; margin: 0 1.5rem .15rem 0; }
.rg-meta dt, .rg-meta dd { display: inline; margin: 0 .3rem 0 0; }
/* vl-convert lays chart text out with Arial/Times metrics (Liberation fonts); wider
   fallbacks such as DejaVu Sans would make labels overlap axis titles. */
svg text[font-family="sans-serif"] { font-family: "Liberation Sans", Arimo, Arial,
  Helvetica, "DejaVu Sans Condensed", sans-serif; }
svg text[font-family="serif"] { font-family: "Liberation Serif", Tinos, "Times New Roman",
  Times, "DejaVu Serif Condensed", serif; }
.rg-print-only { display: none; }
figure.rg-chart.rg-narrow-only { display: none; }
@media print {
  /* a heading keeps its first line of text and what follows it (the table after a
     one-line note, past an empty row of screen-only charts) on its page */
  :is(h2, h3, h4) + :is(p, .rg-note),
  :is(h2, h3, h4) + :is(p, .rg-note) + .rg-charts { break-after: avoid; }
  .rg-screen-only, tr.rg-screen-only { display: none; }
  .rg-print-only { display: block; }
  span.rg-print-only { display: inline; }
  .rg-charts { display: block; text-align: center; }
  .rg-charts > figure.rg-chart { display: inline-block; vertical-align: top;
    margin: .5rem .6rem; }
}
/* tabs (render.html.tabs): on a screen, the panel holding the :target shows, else the
   first; a browser without :has() ignores these rules and shows every panel. Printed,
   every panel shows and the bar (rg-screen-only) hides. */
@media screen {
  .rg-tabs { position: relative; }
  .rg-tab-anchor { position: absolute; top: 0; left: 0; }
  .rg-tabs:not(:has(> .rg-tab-panel :target)) > .rg-tab-panel ~ .rg-tab-panel,
  .rg-tabs:has(> .rg-tab-panel :target) > .rg-tab-panel:not(:has(:target)) {
    display: none; }
  .rg-tabs:not(:has(> .rg-tab-panel :target)) a.rg-tab-first {
    background: var(--accent, #333); border-color: var(--accent, #333);
    color: var(--bg, #fff); }
}
.rg-tab-bar { flex-direction: column; gap: .35rem; margin: .8rem 0 1rem;
  padding: .5rem .6rem; border: 1px solid var(--rule-light, #dde1e6); border-radius: 6px; }
@media screen { .rg-tab-bar { display: flex; } }
@media print { .rg-tab-bar, .rg-tab-anchor { display: none; } }
/* many tabs: a box of its own height that scrolls, so the panel stays near */
@media screen { .rg-tab-bar-many { max-height: 15rem; overflow-y: auto; } }
.rg-tab-row { display: flex; flex-wrap: wrap; align-items: baseline; gap: .3rem .35rem; }
.rg-tab-group { font-weight: 600; margin-right: .4rem; min-width: 6rem;
  overflow-wrap: anywhere; }
a.rg-tab { display: inline-block; max-width: 100%; padding: .1rem .6rem;
  border: 1px solid var(--rule, #c8ccd1); border-radius: 1rem; font-size: .88rem;
  line-height: 1.4; text-decoration: none; overflow-wrap: anywhere; }
/* a phone: the dataset on a line of its own above its metrics (nested: WeasyPrint reads
   media types only and warns about a width) */
@media screen { @media (max-width: 40rem) { .rg-tab-group { flex-basis: 100%; } } }
a.rg-tab:hover { border-color: var(--accent, #333); text-decoration: none; }
/* the contents: a sidebar on wide screens (_WIDE_SCREEN_CSS), else a folded block */
.rg-sidebar { display: none; }
"""

#: The contents as a sidebar beside the report on screens of 1200 px and wider, where
#: the folded block in the body hides; in its own ``<style media=...>`` element, which
#: the PDF export leaves out with the sidebar (WeasyPrint reads media types only).
_WIDE_MEDIA = "screen and (min-width: 1200px)"
_WIDE_SCREEN_CSS = """\
.rg-sidebar { display: block; position: fixed; top: 0; left: 0; bottom: 0;
  width: 16rem; overflow-y: auto; padding: 1.5rem 1rem 2rem 1.25rem;
  border-right: 1px solid var(--rule-light, #dde1e6); background: var(--bg, #fff);
  font-size: .85rem; line-height: 1.35; }
.rg-sidebar ol { list-style: none; margin: 0; padding-left: 0; }
.rg-sidebar ol ol { padding-left: .9rem; }
.rg-sidebar li { margin: .2rem 0; }
.rg-sidebar a { text-decoration: none; }
.rg-sidebar a:hover { text-decoration: underline; }
/* after the theme's CSS, and "html body" outweighs its "body" rule */
html body { padding-left: 18rem; max-width: calc(1100px + 18rem); }
.rg-body .rg-toc { display: none; }
"""


def notebook_to_html(
    nb: Mapping[str, Any],
    *,
    title: str,
    release: str | None = None,
    theme: str | Path | Theme = "default",
    meta: Sequence[tuple[str, str]] = (),
    created: str | None = None,
) -> str:
    """One self-contained HTML5 document from an executed report notebook.

    Parameters
    ----------
    nb
        The executed notebook (an ``nbformat`` notebook node or the same structure as
        plain dicts).
    title
        The report title: the ``<title>``, the ``h1`` and the PDF's running header.
    release
        The release label shown under the title, if any.
    theme
        A bundled theme name, a theme folder, or a :class:`~reportgen.charts.render.Theme`;
        its ``report.css`` is inlined.
    meta
        ``(label, value)`` pairs shown as a small definition list in the header block,
        e.g. ``[("seed", "20240611"), ("reportgen", "0.4.0")]``.
    created
        When the report was made, shown as is (an ISO 8601 timestamp is customary).

    Returns
    -------
    str
        The document: one ``<style>``, a header block, a table of contents
        (``<nav class="rg-toc">``) linking every ``h2`` and ``h3`` of the body, then the
        body. A heading without an ``id`` is linked through the ``id`` of the
        ``<section>`` it opens, else gets a unique one made from its text (a later
        heading repeating an ``id`` is renamed). Tables not already in a
        ``<div class="rg-table-wrap">`` are wrapped in one (scrollable when too wide);
        a table of more than 10 columns adds ``rg-wide`` to it (a landscape page in
        the PDF). The ids inside each inline SVG are prefixed so charts never share
        clip paths or gradients.

    Raises
    ------
    ReportgenError
        A cell has an ``error`` output (the notebook failed; the message names the
        cell), or an output cannot be embedded.
    ConfigError
        The title is empty, or the theme's CSS would end the ``<style>`` element early.

    Notes
    -----
    Nothing is removed from the outputs: a ``<script>`` or a network reference produced
    by a section stays in the document, where :func:`external_references` reports it.
    """
    title_iv(title)
    loaded = load_theme(theme)
    if re.search(r"</style", loaded.css, re.IGNORECASE):
        raise ConfigError(
            f"the report.css of theme {loaded.name!r} contains '</style', "
            "which would end the report's <style> element early",
            hint="remove it from the theme's report.css",
        )
    # long words shortened, with their full text on hover and, in print, listed at the end
    shortened, cuts = shorten_long_words("\n".join(notebook_fragments(nb)))
    body, headings = finish_body(shortened + full_names_note(cuts))
    before = after = None
    if CONTENTS_MARKER in body:  # the contents go after the key findings
        before, after = body.split(CONTENTS_MARKER, 1)
    return _template().render(
        title=title,
        release=release,
        created=created,
        meta=list(meta),
        layout_css=_LAYOUT_CSS,
        theme_css=loaded.css,
        screen_css=_SCREEN_CSS,
        wide_media=_WIDE_MEDIA,
        wide_css=_WIDE_SCREEN_CSS,
        toc=_contents(headings),
        body=body,
        before=before,
        after=after,
    )


#: Where a section asks for the table of contents (after the key findings); without it
#: the contents come first.
CONTENTS_MARKER = "<!-- rg:contents -->"


def title_iv(title: str) -> None:
    if not isinstance(title, str) or not title.strip():
        raise ConfigError(
            f"the report title must be a non-empty string, got {title!r}",
            hint="pass a title such as 'Release 2.1 evaluation'",
        )


@lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    """``page.html.j2``: block lines trimmed, so each line of it is a line of the page;
    values escaped by ``|esc`` (:func:`html.escape`, as the body is: Jinja2's own escape
    writes quotes differently)."""
    env = jinja2.Environment(
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["esc"] = esc
    source = resources.files("reportgen.report.export").joinpath("page.html.j2")
    return env.from_string(source.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class _Entry:
    """A line of the contents: an h2 (or a leading h3) with the h3s under it."""

    level: int
    anchor: str
    text: str
    children: list[_Entry] = field(default_factory=list)


def _contents(headings: Sequence[Heading]) -> list[_Entry]:
    """The contents: every h2 and h3 outside a folded block, each h3 under the heading
    before it."""
    entries: list[_Entry] = []
    for position, heading in enumerate(h for h in headings if not h.folded):
        entry = _Entry(heading.level, heading.anchor, heading.text)
        if heading.level == 3 and position > 0:
            entries[-1].children.append(entry)
        else:
            entries.append(entry)
    return entries

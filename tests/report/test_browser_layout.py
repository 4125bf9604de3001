"""What a reader sees of the HTML report at desktop (1300 px) and phone (375 px) width,
measured in a real browser: headless Debian Chromium driven by Playwright (issue 34).

* the release decision and its verdicts are in view without scrolling sideways at
  1300 px, and at 375 px the verdict table is stacked into one card per row;
* at 375 px no table cell breaks a word inside (a line may end after a space, "-", "|"
  or "/", never between two letters or digits), and a wide table scrolls in its frame
  with its first column (the system, the dataset / metric) pinned;
* charts keep their own size: no chart text is drawn smaller than 10 px at 375 px;
* the e-mail's verdict column is in view at 375 px.

One small report of the bundled example (4 systems × 2 datasets × 3 metrics, read from
``examples/data``) and its release variant with margins (the widest verdict table) are
made once for the module with ``reportgen run``. The tests skip when Playwright or a
``chromium`` executable is missing (no browser is downloaded: ``apt-get install
chromium``).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from contextlib import contextmanager
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest

from reportgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data" / "codecompletion.csv"
EXAMPLE_CONFIG = ROOT / "examples" / "reportgen.toml"

SYSTEMS = (
    "starcoder2-15b|fim|8k",
    "codellama-13b|fim|4k",
    "granite-3b|fim|4k",
    "starcoder2-3b|l2r|2k",
)
DATASETS = ("csharp", "java")
BASELINE, CANDIDATE = "codellama-13b|fim|4k", "starcoder2-15b|fim|8k"
DESKTOP = {"width": 1300, "height": 900}
PHONE = {"width": 375, "height": 800}
VERDICTS = ("improved", "regressed", "non-inferior", "inconclusive")
#: The smallest chart text a reader can be asked to read, in CSS pixels.
MIN_CHART_TEXT_PX = 10.0


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def reports(tmp_path_factory, browser) -> dict[str, Path]:
    """``evaluation`` and ``release`` report.html files and the release e-mail's HTML
    (``mail``), of 4 systems × 2 datasets of the bundled example."""
    base = tmp_path_factory.mktemp("browser-layout")
    data = base / "results.csv"
    with EXAMPLE.open(newline="") as source, data.open("w", newline="") as target:
        rows = csv.reader(source)
        out = csv.writer(target)
        out.writerow(next(rows))
        out.writerows(r for r in rows if r[0] in SYSTEMS and r[1] in DATASETS)
    common = [str(data), "--config", str(EXAMPLE_CONFIG), "--format", "html", "--quiet"]
    common += ["--seed", "7", "--n-resamples", "999"]
    paths = {}
    for name, extra in (
        ("evaluation", []),
        ("release", ["--template", "release", "--baseline", BASELINE, "--candidate", CANDIDATE]),
    ):
        if name == "release":  # margins: the widest verdict table (11 columns)
            extra += ["--margin", "2", "--margin", "identifier_f1=0.02"]
        folder = base / name
        assert main(["run", *common, "--out", str(folder), *extra]) == 0
        paths[name] = folder / "report.html"
    eml = base / "release.eml"
    command = ["email", str(paths["release"].parent), "--to", "team@example.org"]
    command += ["--from", "ci@example.org", "--eml", str(eml), "--no-attach", "--quiet"]
    assert main(command) == 0
    message = BytesParser(policy=policy.default).parsebytes(eml.read_bytes())
    body = message.get_body(preferencelist=("html",))
    assert body is not None
    paths["mail"] = base / "mail.html"
    paths["mail"].write_text(body.get_content(), encoding="utf-8")
    return paths


@contextmanager
def _page(browser: Any, path: Path, viewport: dict[str, int]) -> Iterator[Any]:
    page = browser.new_page(viewport=viewport)
    try:
        page.goto(path.as_uri())
        # the appendix is folded: open every fold, so its tables and charts are measured
        page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        # and every tab panel (one shows at a time, test_tabs.py), so all are measured
        page.evaluate(
            "document.querySelectorAll('.rg-tab-panel')"
            ".forEach(p => { p.style.display = 'block'; })"
        )
        yield page
    finally:
        page.close()


# ------------------------------------------------------------------ measurements in the page

#: Every place where a table cell's text goes on to a new line between two letters or
#: digits (a word broken inside), found character by character with DOM ranges, and the
#: cells whose CSS allows breaking anywhere.
_BROKEN_WORDS_JS = r"""
() => {
  const word = /[\p{L}\p{N}]/u;
  const broken = [], anywhere = [];
  const cells = document.querySelectorAll('.rg-table-wrap td, .rg-table-wrap th');
  for (const cell of cells) {
    if (!cell.getClientRects().length) continue;  // not shown (print-only, folded)
    const style = getComputedStyle(cell);
    if (style.overflowWrap === 'anywhere' || style.wordBreak === 'break-all')
      anywhere.push(cell.textContent.trim().slice(0, 60));
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent;
      if (text.trim().length < 2) continue;
      const whole = document.createRange();
      whole.selectNodeContents(node);
      const tops = new Set([...whole.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size < 2) continue;  // on one line: nothing to break
      const range = document.createRange();
      let previous = null;
      for (let i = 0; i < text.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) { previous = null; continue; }
        if (previous && rect.top > previous.top + previous.height / 2
            && word.test(text[i - 1]) && word.test(text[i])) {
          broken.push(text.slice(Math.max(0, i - 20), i) + '⏎' + text.slice(i, i + 20));
          break;
        }
        previous = rect;
      }
    }
  }
  return {broken, anywhere};
}
"""

#: The release verdict table: how far its frame scrolls, and where its cells end.
_VERDICTS_JS = r"""
() => {
  const table = document.querySelector('#release-verdict table');
  const wrap = table.closest('.rg-table-wrap');
  // the body's cells (stacked on a phone, the head is kept for screen readers only)
  const cells = [...table.querySelectorAll('tbody td')].filter(c => c.getClientRects().length);
  const rect = c => c.getBoundingClientRect();
  const verdicts = [...table.querySelectorAll('tbody td[data-label="verdict"]')];
  return {
    overflow: wrap.scrollWidth - wrap.clientWidth,
    left: Math.min(...cells.map(c => rect(c).left)),
    right: Math.max(...cells.map(c => rect(c).right)),
    decisionRight: rect(document.querySelector('.rg-decision')).right,
    headers: [...table.querySelectorAll('thead th')].map(th => th.textContent.trim()),
    rows: table.querySelectorAll('tbody tr').length,
    verdicts: verdicts.map(c => ({
      text: c.textContent.trim(), left: rect(c).left, right: rect(c).right,
      label: getComputedStyle(c, '::before').content,
    })),
    rowHeights: [...table.querySelectorAll('tbody tr')].map(r => rect(r).height),
  };
}
"""

#: Each table frame that scrolls sideways, scrolled to its end: where its pinned column
#: (the system of the matrix, else the first column) then is, against the frame.
_PINNED_JS = r"""
() => {
  const out = [];
  for (const wrap of document.querySelectorAll('.rg-table-wrap')) {
    if (!wrap.getClientRects().length || wrap.scrollWidth <= wrap.clientWidth + 1) continue;
    const table = wrap.querySelector('table');
    wrap.scrollLeft = wrap.scrollWidth;
    const frame = wrap.getBoundingClientRect();
    const pinned = table.classList.contains('rg-matrix')
      ? [...table.querySelectorAll('tbody td.rg-name')]
      : [...table.querySelectorAll('tbody > tr > td:first-child')];
    const offsets = pinned.filter(c => c.getClientRects().length)
      .map(c => c.getBoundingClientRect().left - frame.left);
    out.push({
      table: table.querySelector('thead th:nth-child(2)')?.textContent.trim() ?? '',
      scrolled: wrap.scrollLeft,
      offsets,
    });
    wrap.scrollLeft = 0;
  }
  return out;
}
"""

#: The drawn size of every chart text (font size times the SVG's scale on screen), and
#: the PNG charts drawn narrower than their own width.
_CHART_TEXT_JS = r"""
() => {
  const sizes = [];
  for (const text of document.querySelectorAll('figure.rg-chart svg text')) {
    if (!text.textContent.trim() || !text.getClientRects().length) continue;
    const m = text.getScreenCTM();
    const scale = Math.hypot(m.a, m.b);
    sizes.push({text: text.textContent.trim().slice(0, 40),
                px: parseFloat(getComputedStyle(text).fontSize) * scale});
  }
  const shrunk = [...document.querySelectorAll('figure.rg-chart img[width]')]
    .filter(img => img.getBoundingClientRect().width < Number(img.getAttribute('width')) - 1)
    .map(img => img.alt);
  return {sizes, shrunk, charts: document.querySelectorAll('figure.rg-chart').length};
}
"""


# ------------------------------------------------------------------ tests


def test_release_verdicts_in_view_without_scrolling_at_desktop_width(browser, reports):
    with _page(browser, reports["release"], DESKTOP) as page:
        seen = page.evaluate(_VERDICTS_JS)
    # 2 datasets x 3 metrics, the decision columns first (after the name)
    assert seen["rows"] == 6
    assert seen["headers"][:2] == ["dataset / metric", "verdict"]
    assert seen["overflow"] <= 1, f"the verdict table scrolls by {seen['overflow']} px"
    assert seen["right"] <= DESKTOP["width"] and seen["decisionRight"] <= DESKTOP["width"]
    assert all(v["text"].split()[0] in VERDICTS for v in seen["verdicts"])
    assert max(seen["rowHeights"]) < 100  # no cell squeezed into a column of letters


def test_release_verdicts_stack_into_cards_at_phone_width(browser, reports):
    with _page(browser, reports["release"], PHONE) as page:
        seen = page.evaluate(_VERDICTS_JS)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert seen["overflow"] <= 1, f"the verdict cards scroll by {seen['overflow']} px"
    assert seen["left"] >= 0 and seen["right"] <= PHONE["width"]
    assert len(seen["verdicts"]) == 6
    for verdict in seen["verdicts"]:
        # each value under its column's label, inside the screen
        assert verdict["label"] == '"verdict"'
        assert verdict["left"] >= 0 and verdict["right"] <= PHONE["width"]


@pytest.mark.parametrize("which", ["evaluation", "release"])
def test_no_word_is_broken_inside_a_table_cell_at_phone_width(browser, reports, which):
    with _page(browser, reports[which], PHONE) as page:
        seen = page.evaluate(_BROKEN_WORDS_JS)
    assert seen["anywhere"] == [], "cells that may break anywhere on screen"
    assert seen["broken"] == [], "words broken inside (⏎ marks the break)"


def test_the_measure_finds_a_word_broken_inside(browser, reports):
    """The check above can fail: with the exporter's print rule ("overflow-wrap:
    anywhere" on the first column) forced back on screen, the system names of the
    pairwise tables break letter by letter again."""
    with _page(browser, reports["evaluation"], PHONE) as page:
        page.add_style_tag(
            content=".rg-table-wrap td:first-child { overflow-wrap: anywhere !important; "
            "white-space: normal !important; }"
        )
        seen = page.evaluate(_BROKEN_WORDS_JS)
    assert seen["anywhere"] and seen["broken"]


@pytest.mark.parametrize("which", ["evaluation", "release"])
def test_wide_tables_scroll_with_the_first_column_pinned_at_phone_width(browser, reports, which):
    with _page(browser, reports[which], PHONE) as page:
        frames = page.evaluate(_PINNED_JS)
    assert frames, "at 375 px some table is wider than the screen"
    for frame in frames:
        assert frame["scrolled"] > 0
        # scrolled to the end, the system / dataset column is still at the frame's left
        assert frame["offsets"] and all(abs(x) <= 1 for x in frame["offsets"]), frame


@pytest.mark.parametrize("which", ["evaluation", "release"])
def test_chart_text_stays_legible_at_phone_width(browser, reports, which):
    with _page(browser, reports[which], PHONE) as page:
        seen = page.evaluate(_CHART_TEXT_JS)
        frames_fit = page.evaluate(
            "[...document.querySelectorAll('figure.rg-chart')]"
            ".map(f => f.getBoundingClientRect())"
            ".every(r => r.left >= -1 && r.right <= window.innerWidth + 1)"
        )
    assert seen["charts"] > 0 and seen["sizes"]
    small = [s for s in seen["sizes"] if s["px"] < MIN_CHART_TEXT_PX - 0.01]
    assert small == [], f"chart text under {MIN_CHART_TEXT_PX} px: {small[:5]}"
    assert seen["shrunk"] == []
    assert frames_fit  # a wider chart scrolls inside its figure, not the page


def test_pair_decisions_in_view_at_phone_width(browser, reports):
    """Each pairwise table (A, B, then whether the difference is significant) shows its
    decision on a phone before any sideways scrolling."""
    with _page(browser, reports["evaluation"], PHONE) as page:
        rows = page.evaluate(
            r"""() => [...document.querySelectorAll('.rg-table-wrap table')]
              .filter(t => [...t.querySelectorAll('thead th')].slice(0, 2)
                             .map(th => th.textContent).join() === 'A,B')
              .flatMap(t => [...t.querySelectorAll('tbody tr')])
              .filter(r => r.getClientRects().length)
              .map(r => ({text: r.children[2].textContent,
                          right: r.children[2].getBoundingClientRect().right}))"""
        )
    assert len(rows) >= 6  # the pairs of 4 systems, per dataset × metric and overall
    assert {r["text"] for r in rows} <= {"significant", "–"}
    assert max(r["right"] for r in rows) <= PHONE["width"]


def test_email_verdicts_in_view_at_phone_width(browser, reports):
    """Each verdict is a stacked block (name and verdict first, then its numbers), in
    view at 375 px (tests/report/test_mail_layout.py measures every piece of it)."""
    with _page(browser, reports["mail"], PHONE) as page:
        seen = page.evaluate(
            r"""() => [...document.querySelectorAll('div.card')].map(card => ({
                  text: card.querySelector('.badge').textContent,
                  right: Math.max(...[...card.querySelectorAll('span')]
                                   .map(s => s.getBoundingClientRect().right)),
                }))"""
        )
    assert len(seen) == 6 and all(c["text"] in VERDICTS for c in seen)
    assert max(c["right"] for c in seen) <= PHONE["width"]


#: Each chart drawn on the page: its own width, and whether it is the table that
#: stands in for a chart on a phone (render/phone.py).
_CHART_WIDTHS_JS = r"""
() => [...document.querySelectorAll('figure.rg-chart')]
  .filter(f => f.getClientRects().length)
  .map(f => ({table: f.classList.contains('rg-chart-table'),
              width: (f.querySelector('svg, img') || f).getBoundingClientRect().width,
              room: f.parentElement.getBoundingClientRect().width}))
"""


@pytest.mark.parametrize("which", ["evaluation", "release"])
def test_every_chart_fits_a_phone_or_its_table_stands_in(browser, reports, which):
    """Issue 42, item 6: the release's "Differences" chart was 563 px wide in a 327 px
    box. At 375 px every chart shown is laid out to fit the room it has, or its table
    stands in; at 1300 px the wide charts show and no phone figure."""
    with _page(browser, reports[which], PHONE) as page:
        charts = page.evaluate(_CHART_WIDTHS_JS)
    assert charts and any(not c["table"] for c in charts)
    wide = [c for c in charts if not c["table"] and c["width"] > c["room"] + 1]
    assert wide == [], f"charts wider than their room at 375 px: {wide[:5]}"
    with _page(browser, reports[which], DESKTOP) as page:
        shown = page.evaluate(
            "[...document.querySelectorAll('figure.rg-narrow-only')]"
            ".filter(f => f.getClientRects().length).length"
        )
    assert shown == 0

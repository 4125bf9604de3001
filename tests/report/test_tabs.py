"""The per-dataset × metric detail of the HTML report in tabs (issue 34, item 10),
measured in a real browser (headless Debian Chromium driven by Playwright): on a screen
one panel shows at a time, a tab or a link to a panel's heading shows that panel, the
page does not scroll sideways at 375 px, and printed (and in the PDF) every panel shows.

One small report of the bundled example (4 systems × 2 datasets × 3 metrics: six panels,
read from ``examples/data``) is made once for the module with ``reportgen run``, HTML
and PDF. The browser tests skip when Playwright or a ``chromium`` executable is missing.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from reportgen.cli import main
from reportgen.report.export.refs import external_references
from reportgen.report.render.html import Tab, tabs

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
DESKTOP = {"width": 1300, "height": 900}
PHONE = {"width": 375, "height": 800}


@pytest.fixture(scope="module")
def tabs_report(tmp_path_factory) -> Path:
    """The folder of the small report (report.html and report.pdf)."""
    base = tmp_path_factory.mktemp("tabs")
    data = base / "results.csv"
    with EXAMPLE.open(newline="") as source, data.open("w", newline="") as target:
        rows = csv.reader(source)
        out = csv.writer(target)
        out.writerow(next(rows))
        out.writerows(r for r in rows if r[0] in SYSTEMS and r[1] in DATASETS)
    folder = base / "report"
    command = ["run", str(data), "--config", str(EXAMPLE_CONFIG), "--format", "html,pdf"]
    command += ["--quiet", "--seed", "7", "--n-resamples", "999", "--out", str(folder)]
    assert main(command) == 0
    return folder


@contextmanager
def _page(browser: Any, path: Path, viewport: dict[str, int], fragment: str = "") -> Iterator[Any]:
    page = browser.new_page(viewport=viewport)
    try:
        page.goto(path.as_uri() + fragment)
        yield page
    finally:
        page.close()


def _open_fold(page: Any) -> None:
    page.evaluate("document.querySelector('#per-dataset-metric details').open = true")


#: The panels of the tab group: the id of each one's heading and whether it is drawn.
_PANELS_JS = """
() => [...document.querySelectorAll('#per-dataset-metric .rg-tab-panel')].map(p => ({
  id: p.querySelector('h3').id, shown: p.getClientRects().length > 0,
  height: p.getBoundingClientRect().height }))
"""


def _shown(page: Any) -> list[str]:
    return [p["id"] for p in page.evaluate(_PANELS_JS) if p["shown"]]


def _headings(html: str) -> list[str]:
    return re.findall(r'<h3 id="(list-[^"]+)">', html)


# ------------------------------------------------------------------ markup


def test_every_dataset_metric_has_a_panel_and_a_tab(tabs_report):
    html = (tabs_report / "report.html").read_text(encoding="utf-8")
    ids = _headings(html)
    assert len(ids) == len(DATASETS) * 3  # three metrics in the example's config
    for sid in ids:
        assert f'href="#tab-{sid}"' in html
        assert f'id="tab-{sid}"' in html
    assert external_references(html) == []  # no script, nothing from the network


def test_tabs_group_by_dataset_or_name_both_parts():
    panels = [Tab(f"list-{d}-{m}", d, m, f"<h3>{d}/{m}</h3>") for d in "ab" for m in "xy"]
    grouped = tabs(panels, label="shown")
    assert grouped.count('class="rg-tab-row"') == 2
    assert '<span class="rg-tab-group">a</span>' in grouped
    flat = tabs(panels[::2], label="shown")  # one metric per dataset: "a / x"
    assert flat.count('class="rg-tab-row"') == 1 and ">a / x</a>" in flat
    assert tabs(panels[:1], label="shown") == panels[0].body  # one panel: no tabs
    assert "rg-tab-bar-many" in tabs(panels * 4, label="shown")


# ------------------------------------------------------------------ in the browser


def test_one_panel_at_a_time_and_a_tab_shows_its_panel(browser, tabs_report):
    with _page(browser, tabs_report / "report.html", DESKTOP) as page:
        _open_fold(page)
        panels = page.evaluate(_PANELS_JS)
        assert [p["shown"] for p in panels] == [True] + [False] * (len(panels) - 1)
        assert panels[0]["height"] > 200  # the panel is drawn, not an empty box
        for panel in panels[1:][::-1]:
            page.click(f'#per-dataset-metric a.rg-tab[data-tab="{panel["id"]}"]')
            assert _shown(page) == [panel["id"]]
            # the tab bar stays in view above the panel it opened
            bar = page.locator("#per-dataset-metric .rg-tab-bar").bounding_box()
            assert bar is not None and -1 <= bar["y"] < DESKTOP["height"]
            colour = page.eval_on_selector(
                f'a.rg-tab[data-tab="{panel["id"]}"]', "a => getComputedStyle(a).color"
            )
            other = page.eval_on_selector(
                f'a.rg-tab[data-tab="{panels[0]["id"]}"]', "a => getComputedStyle(a).color"
            )
            assert colour != other  # the shown tab is marked
        page.go_back()  # Back returns to the panel shown before
        assert _shown(page) == [panels[2]["id"]]


def test_a_link_to_a_panels_heading_shows_that_panel(browser, tabs_report):
    html = (tabs_report / "report.html").read_text(encoding="utf-8")
    target = _headings(html)[-1]
    # as a contents entry, a bookmark or an e-mail links it: the heading's own id
    with _page(browser, tabs_report / "report.html", DESKTOP, f"#{target}") as page:
        assert _shown(page) == [target]
        assert page.locator(f"#{target}").is_visible()
        top = page.locator(f"#{target}").bounding_box()
        # scrolled to the heading: its top at the window's (a sub-pixel above it is the same)
        assert top is not None and -1 <= top["y"] < DESKTOP["height"]
    with _page(browser, tabs_report / "report.html", DESKTOP) as page:  # a contents link
        _open_fold(page)
        page.evaluate(
            "t => { const a = document.createElement('a'); a.href = '#' + t; a.id = 'go';"
            " a.textContent = 'go'; document.querySelector('.rg-sidebar').append(a); }",
            target,
        )
        page.click("#go")
        assert _shown(page) == [target]


def test_the_page_does_not_scroll_sideways_at_phone_width(browser, tabs_report):
    with _page(browser, tabs_report / "report.html", PHONE) as page:
        _open_fold(page)
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
            " document.querySelector('.rg-tab-bar').getBoundingClientRect().right]"
        )
        assert widths[0] <= widths[1], widths
        assert widths[2] <= PHONE["width"], widths


def test_printed_every_panel_shows_and_the_tab_bar_hides(browser, tabs_report):
    with _page(browser, tabs_report / "report.html", DESKTOP) as page:
        _open_fold(page)
        page.emulate_media(media="print")
        panels = page.evaluate(_PANELS_JS)
        assert len(panels) == len(DATASETS) * 3
        assert all(p["shown"] and p["height"] > 100 for p in panels)
        assert not page.locator("#per-dataset-metric .rg-tab-bar").is_visible()


def test_the_pdf_has_every_dataset_metric_heading(tabs_report):
    pdftotext = shutil.which("pdftotext")
    if pdftotext is None:
        pytest.skip("no pdftotext (apt-get install poppler-utils)")
    text = subprocess.run(
        [pdftotext, str(tabs_report / "report.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    html = (tabs_report / "report.html").read_text(encoding="utf-8")
    titles = re.findall(r'<h3 id="list-[^"]+">([^<]+)</h3>', html)
    assert len(titles) == len(DATASETS) * 3
    lines = {" ".join(line.split()) for line in text.splitlines()}
    for title in titles:
        assert title in lines, title  # its own heading line, in full
    # the tab bar is the screen's alone: its links never reach the PDF
    assert "Dataset × metric shown" not in text


def test_forty_tabs_fit_a_phone_and_the_last_one_opens(browser, tmp_path):
    # 10 datasets × 4 metrics with long names: the bar wraps in a box of its own height
    # (rg-tab-bar-many) that scrolls; the page never scrolls sideways
    from reportgen.report.export.page import notebook_to_html

    panels = [
        Tab(
            f"list-d{d}-m{m}",
            f"benchmark-number-{d}-with-a-long-name",
            f"metric_{m}_with_a_long_name",
            f'<h3 id="list-d{d}-m{m}">d{d} / m{m}</h3><p>{"text " * 80}</p>',
        )
        for d in range(10)
        for m in range(4)
    ]
    body = (
        '<section id="per-dataset-metric"><h2>Per dataset × metric</h2>'
        f"{tabs(panels, label='shown')}</section>"
    )
    nb = {"cells": [{"cell_type": "raw", "metadata": {"format": "text/html"}, "source": body}]}
    path = tmp_path / "tabs.html"
    path.write_text(notebook_to_html(nb, title="Forty tabs"), encoding="utf-8")
    with _page(browser, path, PHONE) as page:
        sizes = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
            " document.querySelector('.rg-tab-bar').getBoundingClientRect().height]"
        )
        assert sizes[0] <= sizes[1], sizes
        assert sizes[2] <= 0.5 * PHONE["height"], sizes  # the panel stays near its tab
        last = page.locator('a.rg-tab[data-tab="list-d9-m3"]')
        last.scroll_into_view_if_needed()
        last.click()
        assert _shown(page) == ["list-d9-m3"]

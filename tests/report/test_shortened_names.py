"""Long names are shortened in the middle and keep their full text (issue 34 item 4): in
the HTML a shortened word of a table or of the prose carries its full name in a ``title``
attribute, and a chart's tooltip (the SVG's hover title) names the system in full; the
PDF lists every shortened name in full at its end. Charts cut names that do not fit their
room in the middle, where Vega's ``labelLimit`` cut off the end ('-v0.1' and '-v0.2'
looked alike). Checked on eval-arena's own system names and on longer variants of them.
"""

from __future__ import annotations

import html as _html
import json
import re
import shutil
import subprocess
import xml.dom.minidom

import pytest
import vl_convert as vlc

from reportgen.charts.graph import connected_graph_chart
from reportgen.charts.overview import LABEL_LIMIT, means_overview_chart
from reportgen.charts.render import FULL_SUFFIX, chart_spec, label_chars, middle_cut
from reportgen.plaintext import MAX_FULL, full_text
from reportgen.report.export.body import (
    MAX_WORD,
    full_names_note,
    shorten_long_words,
)
from reportgen.report.render.svg import hover_titles

#: A real eval-arena name (humaneval+) lengthened past the chart limit (60) and past the
#: report's word limit (MAX_WORD = 100), as organisation/run prefixes make them.
BASE = "bigcode--starcoder2-15b-instruct-v0.1"
CHART_LONG = "organisation--" + BASE + "-dpo-merged"  # 62 characters
TABLE_LONG = "organisation--" + BASE + "-checkpoint-step-000120000-merged-dpo-" + "x" * 40


def _eval_arena(shared_data, k: int = 6) -> tuple[list[str], list[dict]]:
    """The first ``k`` systems of eval-arena's humaneval+ with their item rows."""
    rows = [
        json.loads(line)
        for line in (shared_data / "eval-arena" / "humaneval+.jsonl").read_text().splitlines()
    ]
    names = list(dict.fromkeys(r["model"] for r in rows))
    return names[:k], rows


# ------------------------------------------------------------------------------ charts


def test_overview_axis_cuts_real_names_in_the_middle(shared_data):
    """eval-arena's 37-character names do not fit the overview's 180 px: the drawn axis
    label keeps the start and the end of each name (Vega's labelLimit cut the end), and
    every row's tooltip names it in full."""
    names, _ = _eval_arena(shared_data, 49)
    long = [n for n in names if len(n) > label_chars(LABEL_LIMIT, 10)]
    assert len(long) >= 3  # the real data has names that do not fit
    rows = [
        {"panel": "humaneval+ / pass1 (%)", "system": n, "mean": 50.0 + i, "ci_low": 40.0 + i}
        | {"ci_high": 60.0 + i, "best": i == 0}
        for i, n in enumerate(names)
    ]
    svg = vlc.vegalite_to_svg(chart_spec(means_overview_chart(rows, names)))
    labels = [
        _html.unescape(t)
        for t in re.findall(r'<text text-anchor="end"[^>]*>([^<]*)</text>', svg)
        if t not in ("",)
    ]
    chars = label_chars(LABEL_LIMIT, 10)
    for name in long:
        assert middle_cut(name, chars) in labels, name
        assert name not in labels
    assert all(len(t) <= chars for t in labels)
    assert not any(t.endswith("…") for t in labels)  # no end cut by labelLimit
    # the tooltips (aria-labels) name every system whole
    aria = _html.unescape(" ".join(re.findall(r'aria-label="([^"]*)"', svg)))
    assert all(f"system: {n};" in aria for n in long)


def test_chart_tooltips_show_names_cut_in_the_chart_in_full(shared_data):
    """A name longer than the chart's MAX_LABEL is cut in the drawing and in the data; the
    tooltip shows its full copy (``system__full``), and so does the SVG's hover title."""

    from reportgen.data import load
    from reportgen.stats.pairwise import compare_paired
    from reportgen.stats.ranking import ordered_ranking

    table = load(str(shared_data / "eval-arena" / "humaneval+.jsonl"))
    view = table.paired(table.datasets[0], "pass1")
    X = view.item_means()[:, :6]
    systems = list(view.systems[:6])
    systems[2], systems[4] = CHART_LONG, TABLE_LONG
    res = compare_paired(X, systems=systems, n_resamples=199, rng=0)
    ranking = ordered_ranking(X.mean(axis=0), res)
    spec = chart_spec(connected_graph_chart(ranking))
    tooltips = [
        t
        for lay in spec["layer"]
        for t in lay.get("encoding", {}).get("tooltip", [])
        if t.get("field", "").startswith("system")
    ]
    assert tooltips and all(t["field"] == "system" + FULL_SUFFIX for t in tooltips)
    fulls = {
        r["system" + FULL_SUFFIX]
        for rows in spec["datasets"].values()
        for r in rows
        if "system" in r
    }
    assert {CHART_LONG, TABLE_LONG} <= fulls
    svg = hover_titles(vlc.vegalite_to_svg(spec))
    xml.dom.minidom.parseString(svg)  # still well-formed: every group closed
    titles = [_html.unescape(t) for t in re.findall(r"<title>([^<]*)</title>", svg)]
    for name in (CHART_LONG, TABLE_LONG):
        assert any(f"system (in full): {name}" in t for t in titles), name
    # the drawn names are short: none longer than the graph's room
    drawn = [
        _html.unescape(t)
        for t in re.findall(r'aria-roledescription="text mark"[^>]*>([^<]*)<', svg)
    ]
    assert drawn and max(map(len, drawn)) <= 40 and all(n not in drawn for n in (CHART_LONG,))


def test_hover_titles_wrap_text_marks_and_close_every_group():
    svg = (
        '<svg><g><text aria-label="system: a" role="graphics-symbol" '
        'aria-roledescription="text mark" transform="translate(1,2)">a</text>'
        '<path aria-label="mean: 1" role="graphics-symbol" d="M0"/>'
        '<path d="M1"/></g></svg>'
    )
    out = hover_titles(svg)
    assert out.count("<title>") == 2
    assert '<g><title>system: a</title><text aria-label="system: a"' in out
    assert out.count("<g>") == out.count("</g>") == 2
    assert '<path d="M1"/>' in out  # a mark without a tooltip is left alone
    assert hover_titles("<svg></svg>") == "<svg></svg>"


# ------------------------------------------------------------------------- HTML and PDF


def test_shorten_long_words_keeps_the_full_name_in_a_title():
    # a second name differing from the first only in the middle: the same cut
    twin = TABLE_LONG[:80] + "&amp;" + TABLE_LONG[81:]
    html = (
        f"<table><tr><td>{TABLE_LONG}</td><td>{BASE}</td></tr></table>"
        f"<p>{twin} leads</p>"
        f'<svg><text>{"y" * 150}</text><path aria-label="s"><title>{"z" * 150}</title></path></svg>'
        f"<style>.a{{{'w' * 150}}}</style>"
    )
    out, cuts = shorten_long_words(html)
    short = TABLE_LONG[:60] + "…" + TABLE_LONG[-30:]
    assert f'<td><span class="rg-cut" title="{TABLE_LONG}">{short}</span></td>' in out
    assert f"<td>{BASE}</td>" in out  # a name that fits is untouched
    # the twin gets a digest (two names never share a shortened form); its title holds
    # the text with the entity escaped once
    full_twin = _html.unescape(twin)
    assert cuts[short] == TABLE_LONG and list(cuts.values()) == [TABLE_LONG, full_twin]
    twin_short = next(k for k, v in cuts.items() if v == full_twin)
    assert twin_short != short and twin_short.count("…") == 2
    assert f'title="{_html.escape(full_twin)}">{twin_short}</span> leads' in out
    # in an SVG the drawn text is only cut, the hover title stays whole; styles only cut
    assert "<text>" + "y" * 60 + "…" + "y" * 30 + "</text>" in out
    assert f"<title>{'z' * 150}</title>" in out
    assert "rg-cut" not in out.split("<svg>", 1)[1]
    style = out.split("<style>", 1)[1]
    assert "…" in style and "rg-cut" not in style


def test_full_names_note_lists_each_name_once_and_caps_huge_ones():
    huge = "h" * 10_000
    _, cuts = shorten_long_words(f"<td>{TABLE_LONG}</td><td>{TABLE_LONG}</td><td>{huge}</td>")
    assert len(cuts) == 2
    note = full_names_note(cuts)
    assert note.startswith('<div class="rg-print-only rg-full-names">')
    assert note.count("<li>") == 2
    assert f"in full: {TABLE_LONG}</li>" in note
    assert f"in full: {full_text(huge)}</li>" in note and len(full_text(huge)) < MAX_FULL + 30
    assert f"more than {MAX_WORD} characters" in note


@pytest.fixture(scope="module")
def long_names_report(shared_data, tmp_path_factory):
    """A report of six eval-arena humaneval+ systems, two of them renamed to longer
    variants of real names (62 characters: cut in charts; 129: cut everywhere)."""
    from reportgen.cli import main

    names, rows = _eval_arena(shared_data)
    rename = {names[1]: CHART_LONG, names[3]: TABLE_LONG}
    folder = tmp_path_factory.mktemp("long-names")
    data = folder / "humaneval+.jsonl"
    with data.open("w") as f:
        for r in rows:
            if r["model"] in names:
                f.write(json.dumps({**r, "model": rename.get(r["model"], r["model"])}) + "\n")
    out = folder / "report"
    assert (
        main(
            [
                "run",
                str(data),
                "--out",
                str(out),
                "--format",
                "html,pdf",
                "--n-resamples",
                "199",
                "--seed",
                "3",
                "--quiet",
            ]
        )
        == 0
    )
    return out


def test_report_html_names_shortened_words_in_full(long_names_report):
    html = (long_names_report / "report.html").read_text(encoding="utf-8")
    short = TABLE_LONG[:60] + "…" + TABLE_LONG[-30:]
    cells = re.findall(r'<span class="rg-cut" title="([^"]*)">([^<]*)</span>', html)
    assert cells and all(s == short and t == TABLE_LONG for t, s in cells)
    # on screen never drawn whole: only in titles and in the printed list at the end
    prose = re.sub(r"<svg.*?</svg>", "", html, flags=re.S)
    screen, printed = prose.split('<div class="rg-print-only rg-full-names">')
    assert TABLE_LONG not in re.sub(r'title="[^"]*"', "", screen)
    assert f"in full: {TABLE_LONG}</li>" in printed
    # the charts' hover titles name both long systems whole
    titles = _html.unescape(" ".join(re.findall(r"<title>([^<]*)</title>", html)))
    assert f"(in full): {TABLE_LONG}" in titles and f"(in full): {CHART_LONG}" in titles
    # the printed list (hidden on screen) holds it once
    assert html.count('class="rg-print-only rg-full-names"') == 1


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler's pdftotext")
def test_report_pdf_lists_shortened_names_in_full(long_names_report):
    # poppler: pdftotext report.pdf - (the text a reader copies out of the PDF)
    text = subprocess.run(
        ["pdftotext", str(long_names_report / "report.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Shortened names in full." in text
    # wrapped over lines in the list (pdftotext drops a hyphen at a line's end): whole
    # when the lines are joined, and only there
    flat = re.sub(r"[\s-]+", "", text)
    assert flat.count(TABLE_LONG.replace("-", "")) == 1
    # hover titles are not drawn in the PDF
    assert "(in full)" not in text

"""Page 1 and the Results section of benchmarks whose system sets only partly overlap
(issue 42, items 1, 2 and 4): the per-benchmark table leads the key findings, the ranking
across datasets is said with its scope, each block of datasets is a table of its own in
a tab (no column mostly empty), the PDF lists every benchmark's leader, and the overview
chart draws each panel's own leader and tie.

Made from three of the shared eval-arena benchmarks (humaneval+ and mbpp+ share 37
systems, terminal-bench-2.0 none) with :func:`reportgen.report.sections.prepare`, no
notebook."""

from __future__ import annotations

import html
import re

import pytest

from reportgen.analysis.leaders import Leaders, RankingLeader
from reportgen.analysis.ledger.words import ranking_scope_line
from reportgen.report import sections as rs
from reportgen.report.render.leaders import leaders_table
from reportgen.report.sections.blocks import BLOCK_PRINT_ROWS, PANEL_SYSTEMS

# several layers together (data, analysis, sections): tests/conftest.py's tiers
pytestmark = pytest.mark.integration


def plain(sentence: str) -> str:
    """The text of an HTML fragment."""
    return html.unescape(re.sub(r"<[^>]+>", "", sentence))


FILES = ("humaneval+.jsonl", "mbpp+.jsonl", "terminal-bench-2.0.jsonl")


@pytest.fixture(scope="module")
def arena(shared_data, tmp_path_factory):
    return rs.prepare(
        [str(shared_data / "eval-arena" / f) for f in FILES],
        analysis_options={"seed": 2, "n_resamples": 499},
        output_dir=str(tmp_path_factory.mktemp("leaders")),
        title="three benchmarks",
    )


def test_page_one_leads_with_the_table_of_leaders(arena):
    html = rs.summary(arena).html
    leaders = arena.analysis.leaders
    table = html.index('class="rg-table rg-stack rg-leaders"')
    assert table < html.index('class="rg-findings"')  # the table first
    rows = html[table:].split("</table>")[0].split("<tr>")[2:]
    assert len(rows) == len(leaders.benchmarks) == 3
    for row, b in zip(rows, leaders.benchmarks):
        text = plain(row)
        assert b.leader in text and f"{b.n_systems:,}" in text and f"{b.n_items:,}" in text
        tied = f"{len(b.tied)} of {b.n_systems - 1}" if b.tied else "none: ahead of"
        assert tied in text
    # the long per-unit sentences are replaced by the table, the scope said once
    findings = plain(html[html.index('class="rg-findings"') :])
    assert "not significantly different from the runner-up on" not in findings
    assert "The ranking across datasets uses" not in findings
    assert re.search(
        r"Across humaneval\+ and mbpp\+ \(the 37 of 78 systems scored on both\), "
        r"\S+ ranks first; \d+ of the other 36 (are|is) not significantly different from it\.",
        findings,
    )
    assert 'class="rg-section rg-flow"' in html  # the PDF's results follow the contents


def test_ranking_scope_line_for_one_dataset_and_none():
    one = Leaders((), (), RankingLeader(("safim",), 1, 203, "a", ()), True, 262, 11)
    assert (
        ranking_scope_line(one)
        .plain()
        .startswith(
            "No ranking across benchmarks: the largest set of systems scored on the same "
            "benchmarks is the 203 of safim alone"
        )
    )
    assert ranking_scope_line(Leaders((), (), None, True, 9, 2)).plain().startswith("No ranking")
    assert ranking_scope_line(Leaders((), (), None, False, 9, 1)) is None
    ahead = Leaders((), (), RankingLeader(("a", "b"), 2, 9, "x", ()), True, 9, 2)
    assert "and is significantly better than every other one." in ranking_scope_line(ahead).plain()


def test_leaders_table_escapes_names_and_counts_ties():
    from reportgen.analysis.leaders import BenchmarkLeader

    b = BenchmarkLeader(
        "qa", "acc", "higher", True, "<b>x</b>", 0.5, 0.4, 0.6, ("y", "z", "w"), 4, 100
    )
    html = leaders_table(Leaders((b,), (), None, True, 4, 1), confidence=0.95)
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "3 of 3: y, z and 1 more" in html and "50.0% [40.0, 60.0]" in html


def test_results_by_block_each_a_tab_and_every_leader_printed(arena):
    html = rs.results_matrix(arena).html
    leaders = arena.analysis.leaders
    panels = re.findall(r'<div class="rg-tab-panel" data-panel="([^"]+)">', html)
    assert panels == ["results-humaneval-mbpp", "results-terminal-bench-2-0"]
    for block, sid in zip(leaders.blocks, panels):
        body = html.split(f'data-panel="{sid}">')[1].split('<div class="rg-tab-panel"')[0]
        rows = re.findall(r"<tr( class=\"rg-screen-only\")?><td class=\"num\">", body)
        printed = [r for r in rows if not r]
        units = set(block.units)
        leaders_here = {b.leader for b in leaders.benchmarks if (b.dataset, b.metric) in units}
        assert len(printed) <= BLOCK_PRINT_ROWS + len(leaders_here)
        for name in leaders_here:  # a leader is never left out of the PDF
            row = re.search(
                rf'<tr( class="rg-screen-only")?>(?:(?!</tr>).)*>{re.escape(name)}[ <]', body
            )
            assert row is not None and not row.group(1)
        # no column mostly empty: each dataset scores at least 2/3 of the block's rows
        for dataset, _ in block.units:
            scored = set(arena.table.systems_of(dataset, "pass1"))
            assert len(scored) >= 2 / 3 * len(block.systems)


def test_overview_chart_draws_each_panels_leader_and_tie(arena):
    from reportgen.report.render import html as render_html

    specs = []
    real = render_html.render_figure

    def grab(spec, caption, **kw):
        specs.append(spec)
        return real(spec, caption, **kw)

    render_html.render_figure = grab
    try:
        rs.results_matrix(arena)
    finally:
        render_html.render_figure = real
    rows = [r for spec in specs for rows in spec.get("datasets", {}).values() for r in rows]
    drawn: dict[str, set[str]] = {}
    for r in rows:
        if "panel" in r:
            drawn.setdefault(r["panel"].split(" / ")[0], set()).add(r["system"])
    for b in arena.analysis.leaders.benchmarks:
        panel = drawn[b.dataset]
        assert b.leader in panel
        assert set(b.tied[: PANEL_SYSTEMS - 1]) <= panel
        assert len(panel) <= max(PANEL_SYSTEMS, 6) or b.n_systems <= 30

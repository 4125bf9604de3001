"""Page 1 of a report whose benchmarks do not share their systems: who leads each
benchmark and who is tied with the leader, as one compact table (its sentences are the
ledger's: :func:`reportgen.analysis.ledger.words.ranking_scope_line`).

Everything is read off :attr:`reportgen.analysis.Analysis.leaders`
(:class:`reportgen.analysis.leaders.Leaders`), decided by the analysis; this module only
formats it (HTML, names escaped and set in bold).
"""

from __future__ import annotations

import html

from reportgen import format as fmt
from reportgen.analysis.leaders import BenchmarkLeader, Leaders
from reportgen.analysis.ledger.words import tied_with_leader
from reportgen.plaintext import shown

__all__ = ["leaders_table"]


def _e(text: object) -> str:
    return html.escape(shown(text, keep_lines=True), quote=False)


def _b(name: str) -> str:
    return f"<strong>{_e(name)}</strong>"


def _benchmark(b: BenchmarkLeader, one_metric: bool) -> str:
    return b.dataset if one_metric else b.name


def leaders_table(leaders: Leaders, *, confidence: float) -> str:
    """The per-benchmark table of page 1 (HTML): per dataset × metric the leader, its
    mean with its interval, the systems not significantly different from it, and the
    numbers of systems and items. Stacked into one card per benchmark on a phone."""
    from reportgen.report.render.html import Col, table

    one_metric = len({b.metric for b in leaders.benchmarks}) == 1
    rows = [
        {
            "benchmark": _benchmark(b, one_metric),
            "leader": b.leader,
            "score": f"{fmt.value(b.mean, proportion=b.proportion)} "
            f"{fmt.interval(b.ci_low, b.ci_high, proportion=b.proportion)}",
            "tied": _e(tied_with_leader(b)),
            "systems": b.n_systems,
            "items": b.n_items,
        }
        for b in leaders.benchmarks
    ]
    columns = [
        Col("benchmark", "benchmark"),
        Col("leader", "leader", lambda name: _b(name)),
        Col("score", f"score [{confidence:.0%} CI]", _e, True),
        Col("tied", "tied with the leader", str),  # escaped above
        Col("systems", "systems", lambda n: f"{n:,}", True),
        Col("items", "items", lambda n: f"{n:,}", True),
    ]
    return table(rows, columns, stack=True).replace(
        'class="rg-table rg-stack"', 'class="rg-table rg-stack rg-leaders"', 1
    )

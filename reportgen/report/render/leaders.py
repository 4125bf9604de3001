"""Page 1 of a report whose benchmarks do not share their systems: who leads each
benchmark and who is tied with the leader, as one compact table, and the scope of the
ranking across datasets in the same sentence as its result.

Everything is read off :attr:`reportgen.analysis.Analysis.leaders`
(:class:`reportgen.analysis.leaders.Leaders`), decided by the analysis; this module only
formats it (HTML, names escaped and set in bold).
"""

from __future__ import annotations

import html

from reportgen import format as fmt
from reportgen.analysis.leaders import BenchmarkLeader, Leaders, RankingLeader
from reportgen.plaintext import count, listed, shown, verb

__all__ = ["TIED_NAMES", "leaders_table", "ranking_scope_line"]

#: Names of the systems tied with a leader written out in the table before "and N more".
TIED_NAMES = 2


def _e(text: object) -> str:
    return html.escape(shown(text, keep_lines=True), quote=False)


def _b(name: str) -> str:
    return f"<strong>{_e(name)}</strong>"


def _benchmark(b: BenchmarkLeader, one_metric: bool) -> str:
    return b.dataset if one_metric else b.name


def _tied(b: BenchmarkLeader) -> str:
    """``21 of 48: a, b and 19 more`` (names escaped), or what the leader is ahead of."""
    others = b.n_systems - 1
    if others == 0:
        return "– (one system)"
    if not b.tied:
        if b.not_compared:
            return f"none of the {count(others - len(b.not_compared), 'other')} compared"
        return f"none: ahead of {'the other' if others == 1 else f'all {others:,} others'}"
    names = [_e(n) for n in b.tied[:TIED_NAMES]]
    if len(b.tied) > TIED_NAMES:
        names.append(f"{len(b.tied) - TIED_NAMES:,} more")
    return f"{len(b.tied):,} of {others:,}: {listed(names, len(names))}"


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
            "tied": _tied(b),
            "systems": b.n_systems,
            "items": b.n_items,
        }
        for b in leaders.benchmarks
    ]
    columns = [
        Col("benchmark", "benchmark"),
        Col("leader", "leader", lambda name: _b(name)),
        Col("score", f"score [{confidence:.0%} CI]", _e, True),
        Col("tied", "tied with the leader", str),
        Col("systems", "systems", lambda n: f"{n:,}", True),
        Col("items", "items", lambda n: f"{n:,}", True),
    ]
    return table(rows, columns, stack=True).replace(
        'class="rg-table rg-stack"', 'class="rg-table rg-stack rg-leaders"', 1
    )


def ranking_scope_line(leaders: Leaders) -> str | None:
    """The ranking across datasets with its scope in the same sentence: "Across
    humaneval+ and mbpp+ (the 37 systems scored on both), **A** ranks first; 12 of the
    other 36 are not significantly different from it." (HTML); then, when the runner-up
    is not one of them, that the leader is significantly better than it. A ranking over
    one dataset is that dataset's own order (the table has it): its scope is said
    without a ranking. None without a ranking."""
    r: RankingLeader | None = leaders.ranking
    if r is None:
        if leaders.n_datasets > 1:
            return "No ranking across datasets: fewer than 2 systems share a dataset."
        return None
    if len(r.datasets) < 2:
        return (
            f"No ranking across benchmarks: the largest set of systems scored on the "
            f"same benchmarks is the {r.n_ranked:,} of {_e(r.datasets[0])} alone, so each "
            "benchmark is answered on its own (the table above)."
        )
    scope = "both" if len(r.datasets) == 2 else f"all {len(r.datasets)}"
    where = listed([_e(d) for d in r.datasets], len(r.datasets))
    others = r.n_ranked - 1
    systems = (
        f"the {count(r.n_ranked, 'system')}"
        if r.n_ranked == leaders.n_systems
        else f"the {r.n_ranked:,} of {count(leaders.n_systems, 'system')}"
    )
    head = f"Across {where} ({systems} scored on {scope}), {_b(r.leader)} ranks first"
    if not r.tied:
        return f"{head} and is significantly better than every other one."
    line = (
        f"{head}; {len(r.tied):,} of the other {others:,} "
        f"{verb(len(r.tied), 'are', 'is')} not significantly different from it."
    )
    if r.ahead_of_runner_up and r.runner_up is not None:
        line += f" It is significantly better than the runner-up {_b(r.runner_up)}."
    return line

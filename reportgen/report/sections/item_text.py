"""The items with their text: a release's lost and gained items (input, target, the
baseline's and the candidate's outputs side by side), an evaluation's items solved by
one system only and its suspect items; and the text columns of ``tables/flips.csv``.

The lists come from the analysis (:mod:`reportgen.analysis.item_text`), the text from
the logs; this module formats them. In the HTML every listed item is a folded block
(searchable with the browser's find, no script); the PDF shows the first
:data:`PRINT_PER_UNIT` items of each dataset × metric (lost first), at most
:data:`PRINT_TOTAL` in all, each text cut to
:data:`~reportgen.report.render.item_text.PRINT_CHARS` characters; every changed item
and its text are in ``tables/flips.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reportgen.plaintext import count
from reportgen.report.render.html import HTMLBlock, escape, h3, note, section, slug
from reportgen.report.sections._base import Report, _with_figures

__all__ = [
    "PRINT_PER_UNIT",
    "PRINT_TOTAL",
    "flips_text_columns",
    "notable_items",
    "release_items",
]

#: Items of one dataset × metric the PDF shows with their text (lost first).
PRINT_PER_UNIT = 3
#: Items the PDF shows with their text in all (the page budget).
PRINT_TOTAL = 9


def _about(report: Report, lists: Sequence[Any], *, release: bool) -> str:
    texts = report.analysis.table.texts
    shown = "the baseline's output on the left, the candidate's on the right" if release else ""
    words = [
        "Each item shows what was asked (input), the reference (target) and "
        + (shown or "the outputs of the systems named")
        + ", as the logs hold them: markup, Markdown and escape sequences are shown as "
        "text, never run; control characters appear as escapes such as \\x1b, and long "
        "lines wrap."
    ]
    if any(o.segments for lst in lists for i in lst.items for o in i.outputs):
        words.append(
            "Where two outputs are text of similar form, what differs is marked (struck "
            "through in the first, underlined in the second)."
        )
    words.append(
        f"Texts longer than {texts.limit:,} characters are cut there (--text-limit)"
        + (f"; {count(texts.n_cut, 'text')} of these inputs were." if texts.n_cut else ".")
    )
    if texts.several_runs:
        words.append("With repeated runs, the first run's text is shown.")
    where = "tables/flips.csv" if release else "tables/items.csv"
    words.append(
        f"The printed report shows the first {PRINT_PER_UNIT} items of each dataset × "
        f"metric, at most {PRINT_TOTAL} in all, each text cut to its start; every item is "
        f"in report.html and in <code>{where}</code>."
    )
    return note(" ".join(escape(w) if "<code>" not in w else w for w in words))


def _lists_html(report: Report, lists: Sequence[Any], prefix: str) -> list[str]:
    from reportgen.report.render.html import print_only, screen_only
    from reportgen.report.render.item_text import (
        ITEM_TEXT_CSS,
        item_block,
        list_heading,
        print_item_block,
    )

    limit = report.analysis.table.texts.limit
    body = [ITEM_TEXT_CSS]
    printed = 0
    units: dict[tuple[str, str], list[Any]] = {}
    for listed in lists:
        units.setdefault((listed.dataset, listed.metric), []).append(listed)
    for (dataset, metric), parts in units.items():
        body.append(h3(f"{dataset} / {metric}", slug(prefix, dataset, metric)))
        in_unit = 0
        left_out = []
        for listed in parts:
            heading = list_heading(listed)
            body.append(
                screen_only(heading + "".join(item_block(i, limit=limit) for i in listed.items))
            )
            room = min(PRINT_PER_UNIT - in_unit, PRINT_TOTAL - printed)
            chosen = [i for i in listed.items if i.has_text][: max(room, 0)]
            in_unit += len(chosen)
            printed += len(chosen)
            if chosen:
                printed_items = "".join(print_item_block(i, limit=limit) for i in chosen)
                body.append(print_only(heading + printed_items))
            if len(chosen) < listed.n_total:
                left_out.append(f"{listed.outcome} {listed.n_total - len(chosen):,}")
        if left_out:
            body.append(
                print_only(
                    f"<p>Not printed here: {', '.join(left_out)} (in report.html and "
                    f"<code>{'tables/flips.csv' if prefix == 'flips' else 'tables/items.csv'}"
                    "</code>).</p>"
                )
            )
    return body


@_with_figures
def release_items(report: Report) -> HTMLBlock | None:
    """The items the candidate lost and gained with their text, per paired dataset ×
    metric (lost first, the largest changes first); without item text in the inputs,
    the items with their metadata (:func:`reportgen.report.sections.release_flips`)."""
    from reportgen.analysis.item_text import flipped_items_text
    from reportgen.report.sections.release import release_flips

    comparison = report.analysis.release
    if comparison is None or not comparison.flips:
        return None
    lists = flipped_items_text(report.analysis)
    if not lists:
        return release_flips(report)  # type: ignore[no-any-return,unused-ignore]
    body = [_about(report, lists, release=True)]
    body += _lists_html(report, lists, "flips")
    covered = {(lst.dataset, lst.metric) for lst in lists}
    rest = [f for f in comparison.flips if (f.dataset, f.metric) not in covered]
    if rest:
        body.append(
            "<p>Without item text in the logs: "
            + "; ".join(
                f"{escape(f.name)} (lost {f.n_lost}, gained {f.n_gained} of {f.n_items})"
                for f in rest
            )
            + " (their items are in <code>tables/flips.csv</code>).</p>"
        )
    n = sum(f.n_lost + f.n_gained for f in comparison.flips)
    return section(
        "Items lost and gained",
        body,
        sid="release-flips",
        fold=f"{count(n, 'changed item')} in {count(len(comparison.flips), 'dataset × metric')}"
        ", with their inputs and both outputs",
    )


@_with_figures
def notable_items(report: Report) -> HTMLBlock | None:
    """An evaluation's items solved by one system only and its suspect items with
    their text (the Items section finds them); None without item text."""
    from reportgen.analysis.item_text import notable_items_text

    lists = notable_items_text(report.analysis)
    if not lists:
        return None
    body = [_about(report, lists, release=False)]
    body += _lists_html(report, lists, "items-text")
    return section(
        "Items with their text",
        body,
        sid="items-text",
        fold="Items solved by one system only and suspect items, with their inputs and outputs",
    )


def flips_text_columns(report: Report, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of ``tables/flips.csv`` with the items' text: ``input``, ``target``,
    ``baseline_output``, ``candidate_output``, ``baseline_explanation``,
    ``candidate_explanation`` (empty where the logs hold none); the rows as they are
    when the inputs carry no item text."""
    comparison = report.analysis.release
    texts = report.analysis.table.texts
    if comparison is None or not len(texts) or not rows:
        return rows
    out = []
    for row in rows:
        dataset, metric, item = str(row["dataset"]), str(row["metric"]), str(row["item"])
        base = texts.of(dataset, item, comparison.baseline, metric)
        cand = texts.of(dataset, item, comparison.candidate, metric)
        out.append(
            {
                **row,
                "input": base.input if base.input is not None else cand.input,
                "target": base.target if base.target is not None else cand.target,
                "baseline_output": base.output,
                "candidate_output": cand.output,
                "baseline_explanation": base.explanation,
                "candidate_explanation": cand.explanation,
            }
        )
    return out

"""The body of the message: the subject, a plain-text summary and an HTML summary (CSS
inlined, a fluid layout of at most 640 px, charts as PNG images referenced by
Content-ID).

A release report's summary is the release decision, its verdicts counted and one
stacked block per dataset × metric; any other report's, the leaderboard and the leader
against the runner-up on every dataset × metric, one sentence per outcome. Each has one
chart over every dataset × metric it speaks of, drawn narrow enough for a phone. Every
sentence comes from the ledger's wording (:mod:`reportgen.report.render.findings`),
every number from results.json through :mod:`reportgen.format`.

Mail clients drop ``<style>``: every rule is inlined per element, and nothing depends on
a media query. A comparison is a block whose pieces (name, verdict, difference with its
interval, p, the two means) are boxes that wrap as units, so a 375 px phone shows the
same pieces as a desktop, on more lines, none hidden or cut.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.utils import make_msgid
from typing import Any

from reportgen import format as fmt
from reportgen.analysis import Claim, Ledger, ReleaseComparison, ReleaseVerdict
from reportgen.analysis.leaders import Leaders
from reportgen.analysis.ledger import UnitLedger, tie_heading, tie_labels
from reportgen.analysis.ledger.ties import tie_word
from reportgen.analysis.ledger.words import (
    decision_style,
    flips_line,
    lead_sentences,
    not_compared_lines,
    ranking_scope_line,
    release_decision,
    release_headline,
    tied_with_leader,
    verdict_pieces,
)
from reportgen.charts.render import inline_data
from reportgen.plaintext import count, shown
from reportgen.report.folder.reader import ReportFolder
from reportgen.report.mail._base import BODY_WIDTH, MAX_HTML_BYTES, MailError
from reportgen.report.render.html import MAIL_TABLE, Col, compact_png, escape, table

__all__ = ["InlineImage", "Summary", "build_summary"]

_PNG_SCALE = 2.0


@dataclass(frozen=True)
class InlineImage:
    """A PNG shown in the HTML body through ``cid:``."""

    cid: str
    data: bytes
    alt: str
    width: int
    height: int


@dataclass(frozen=True)
class Summary:
    """The body of the message: its subject, the plain text, the HTML (CSS inlined) and
    the PNG images the HTML references by Content-ID."""

    subject: str
    text: str
    html: str
    images: tuple[InlineImage, ...] = field(default_factory=tuple)


def _subject(folder: ReportFolder) -> str:
    """``Title v2: not better: regressed on MBPP by 9.0 pts`` (a release), or ``Title: 12
    systems on 5 datasets × 4 metrics, leader A`` (an evaluation)."""
    ledger = folder.ledger
    head = folder.title
    if folder.release and folder.release not in head:
        head += f" {folder.release}"
    if ledger.release is not None:
        return f"{head}: {release_headline(ledger.release)}"
    meta = ledger.meta
    return (
        f"{head}: {count(len(meta.systems), 'system')} on {count(len(meta.datasets), 'dataset')}"
        f" × {count(len(meta.metrics), 'metric')}{_leader(ledger)}"
    )


def _leader(ledger: Ledger) -> str:
    """ ", leader A" when the first of the ranking across datasets differs
    significantly from every other system; ", first place shared by A and B" (or by n
    systems) when it does not; nothing when there is no such ranking or its pairs are
    not all at hand."""
    leaders = ledger.leaders
    if leaders is not None and leaders.partial and leaders.benchmarks:
        # the ranking covers part of the data: who leads, benchmark by benchmark
        names = list(dict.fromkeys(b.leader for b in leaders.benchmarks))
        if len(names) == 1:
            return f", {names[0]} leads every benchmark"
        return f", {len(names)} different leaders on {count(len(leaders.benchmarks), 'benchmark')}"
    ranking = ledger.ranking
    if ranking is None or len(ranking.systems) < 2:
        return ""
    first = ranking.systems[0]
    decided = {frozenset((a, b)): s for a, b, _, s, _ in ranking.pairs()}
    if any(frozenset((first, other)) not in decided for other in ranking.systems[1:]):
        return ""
    tied = [first] + [s for s in ranking.systems[1:] if not decided[frozenset((first, s))]]
    if len(tied) == 1:
        return f", leader {first}"
    if len(tied) == 2:
        return f", first place shared by {tied[0]} and {tied[1]}"
    return f", first place shared by {len(tied)} systems"


def _text_table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()
    out = ["  " + line, "  " + "  ".join("-" * w for w in widths)]
    for row in rows:
        out.append("  " + "  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())
    return out


def _leaderboard_rows(
    ledger: Ledger, limit: int
) -> tuple[str, list[str], list[list[str]], int, dict[str, str]] | None:
    """(caption, header, rows, total, tie labels shown) of the headline leaderboard: the
    ranking across datasets, else the first dataset × metric's systems best first."""
    ranking = ledger.ranking
    if ranking is not None:
        letters = tie_labels(ranking.letters)
        rows = []
        for k, (name, score) in enumerate(zip(ranking.systems[:limit], ranking.scores)):
            row = [str(k + 1), name, fmt.number(score, 3)]
            if letters:
                row.append(letters.get(name, ""))
            rows.append(row)
        header = ["rank", "system", "score"] + ([tie_heading(ranking.letters)] if letters else [])
        names = ", ".join(ranking.lists)
        caption = f"Overall ranking across {names}" if names else "Overall ranking"
        return caption, header, rows, len(ranking.systems), letters
    units = [u for u in ledger.units if u.derived_from is None and u.standing]
    if not units:
        return None
    unit = units[0]
    p = unit.proportion
    ranked = [s for s in unit.standing if s.mean is not None]
    rows = [
        [
            str(i + 1),
            s.system,
            fmt.value(s.mean, proportion=p),
            fmt.interval(s.ci_low, s.ci_high, proportion=p),
        ]
        for i, s in enumerate(ranked[:limit])
    ]
    return (f"Leaderboard: {unit.name}", ["#", "system", "mean", "CI"], rows, len(ranked), {})


def _leaders_rows(
    leaders: Leaders, limit: int
) -> tuple[str, list[str], list[list[str]], int, dict[str, str]]:
    """(caption, header, rows, total, no tie labels) of who leads each benchmark, when
    the benchmarks do not share their systems (the report's page 1 table)."""
    one_metric = len({b.metric for b in leaders.benchmarks}) == 1
    rows = [
        [
            b.dataset if one_metric else b.name,
            b.leader,
            f"{fmt.value(b.mean, proportion=b.proportion)} "
            f"{fmt.interval(b.ci_low, b.ci_high, proportion=b.proportion)}",
            tied_with_leader(b),
        ]
        for b in leaders.benchmarks[:limit]
    ]
    header = ["benchmark", "leader", "score", "tied with the leader"]
    return "Who leads each benchmark", header, rows, len(leaders.benchmarks), {}


#: Lists of the evaluation e-mail's chart of the headline comparisons (one row each).
MAX_CHART_ROWS = 40
#: Width of the e-mail's own chart, its dataset labels and panels together: the PNG
#: stays under the 327 px a 375 px phone leaves inside the body's padding, so it is
#: shown at its size (its text legible) rather than shrunk.
_PHONE_CHART_WIDTH = 290
#: Width of a character of an axis label, a generous estimate (11 px sans-serif).
_LABEL_PX_PER_CHAR = 6.5


def _leads(ledger: Ledger) -> list[tuple[UnitLedger, Claim]]:
    """The leader against the runner-up of every dataset × metric measured per item,
    as the ledger holds the pair (oriented leader − runner-up)."""
    out = []
    for unit in ledger.compared:
        if unit.derived_from is not None:
            continue
        claim = unit.lead()
        if claim is not None:
            out.append((unit, claim))
    return out


def _png_size(data: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def _image(chart: Any, cid_domain: str, alt: str, theme: Any) -> InlineImage:
    from reportgen.charts.render import to_png

    data = compact_png(to_png(chart, theme, scale=_PNG_SCALE))
    pixels_wide, pixels_high = _png_size(data)
    width, height = pixels_wide / _PNG_SCALE, pixels_high / _PNG_SCALE
    if width > BODY_WIDTH - 40:
        height *= (BODY_WIDTH - 40) / width
        width = BODY_WIDTH - 40
    cid = make_msgid(idstring="chart", domain=cid_domain)[1:-1]
    return InlineImage(cid, data, alt, int(round(width)), int(round(height)))


@dataclass(frozen=True)
class _Difference:
    """One row of the e-mail's difference chart: a dataset × metric's difference with
    the interval its decision is read off, the outcome that colours it, and the loss a
    margin accepts (signed, or None)."""

    dataset: str
    metric: str
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    outcome: str
    proportion: bool
    direction: str
    margin: float | None = None


def _difference_chart(
    rows: Sequence[_Difference],
    colours: Mapping[str, str],
    *,
    axis: str,
    title: Sequence[str],
    subtitle: Sequence[str],
) -> Any:
    """Differences with their intervals, one panel per metric (its own units; datasets
    on the y axis), coloured by outcome, a dashed rule at 0 and a tick at the loss a
    margin accepts.

    Sized for a phone: the PNG is under 327 px wide (what a 375 px screen leaves inside
    the body's padding), so it is shown at its size, its text legible, instead of being
    shrunk; the colours are named in the subtitle rather than in a legend beside it."""
    import altair as alt

    by_metric: dict[str, list[_Difference]] = {}
    for row in rows:
        by_metric.setdefault(row.metric, []).append(row)
    domain = [k for k in colours if any(r.outcome == k for r in rows)]
    # the dataset names take what they need (up to ~30 characters), the panels the rest
    longest = max((len(r.dataset) for r in rows), default=0)
    label_px = int(min(longest, 30) * _LABEL_PX_PER_CHAR) + 8
    width = max(_PHONE_CHART_WIDTH - label_px, 120)
    panels = []
    for metric, group in by_metric.items():
        scale = 100.0 if group[0].proportion else 1.0
        data = [
            {
                "label": r.dataset,
                "outcome": r.outcome,
                **{
                    k: None if getattr(r, k) is None else scale * float(getattr(r, k))
                    for k in ("diff", "ci_low", "ci_high", "margin")
                },
            }
            for r in group
        ]
        order = [str(d["label"]) for d in data]
        name = f"{metric}{' (pts)' if scale == 100.0 else ''}" + (
            ", lower is better" if group[0].direction == "lower" else ""
        )
        colour = alt.Color(
            "outcome:N",
            scale=alt.Scale(domain=domain, range=[colours[k] for k in domain]),
            legend=None,
        )
        y = alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelLimit=label_px))
        base = alt.Chart(inline_data(data)).encode(y=y)
        x = alt.X("ci_low:Q", title=axis, scale=alt.Scale(zero=True))
        layers = [
            base.mark_rule(strokeWidth=2).encode(x=x, x2=alt.X2("ci_high:Q"), color=colour),
            base.mark_point(filled=True, size=50).encode(x=alt.X("diff:Q"), color=colour),
            alt.Chart(inline_data([{"zero": 0.0}]))
            .mark_rule(strokeDash=[4, 3], color="#52606d")
            .encode(x=alt.X("zero:Q")),
        ]
        if any(d["margin"] is not None for d in data):
            layers.append(
                base.mark_tick(color="#333333", thickness=2, size=14)
                .encode(x=alt.X("margin:Q"))
                .transform_filter("isValid(datum.margin)")
            )
        panels.append(alt.layer(*layers).properties(width=width, height=alt.Step(18), title=name))
    if not panels:
        return None
    return alt.vconcat(*panels, spacing=16).properties(
        title=alt.Title(list(title), subtitle=list(subtitle))
    )


def _headline_chart(leads: Sequence[tuple[UnitLedger, Claim]]) -> Any:
    """The leader − runner-up of each list with the interval its decision is read off,
    coloured by whether it is significant: every dataset the summary speaks of, in one
    chart."""
    labels = list(dict.fromkeys(c.interval_label() for _, c in leads))
    return _difference_chart(
        [
            _Difference(
                u.dataset,
                u.metric,
                c.diff,
                c.adjusted.low,
                c.adjusted.high,
                c.outcome(),
                c.proportion,
                c.direction,
            )
            for u, c in leads
        ],
        {
            "significant": "#1b7837",
            "not significant": "#8a8a8a",
            "approximate (skewed)": "#e08214",
        },
        axis="leader − runner-up",
        title=["Leader − runner-up on each", "dataset × metric"],
        subtitle=_wrapped(
            "point: difference; bar: "
            + (labels[0] if len(labels) == 1 else "the interval its decision is read off")
            + " (it excludes 0 exactly when significant); green: significant, grey: not; "
            "dashed: 0",
            44,
        ),
    )


#: The verdict colours (:data:`reportgen.charts.release.VERDICT_COLOURS`) in words, for
#: the subtitle that stands in for a legend.
_COLOUR_NAMES = {
    "#1b7837": "green",
    "#b2182b": "red",
    "#7f7f7f": "grey",
    "#e08214": "orange",
    "#5aae61": "light green",
    "#bbbbbb": "grey",
}


def _verdict_chart(verdicts: Sequence[ReleaseVerdict]) -> Any:
    """Candidate − baseline of each verdict with the interval it is read off, coloured
    by verdict (the report's forest plot, drawn for a phone)."""
    from reportgen.charts.release import VERDICT_COLOURS

    names = [v.verdict for v in verdicts]
    margins = any(v.margin is not None for v in verdicts)
    named = "; ".join(
        f"{_COLOUR_NAMES.get(VERDICT_COLOURS.get(k, '#bbbbbb'), 'grey')}: {k}"
        for k in dict.fromkeys(names)
    )
    labels = list(dict.fromkeys(v.decided_interval().label() for v in verdicts))
    subtitle = [
        *_wrapped(
            "point: difference; bar: "
            + (labels[0] if len(labels) == 1 else "the interval its verdict is read off")
            + "; dashed: 0",
            44,
        ),
        *_wrapped(named, 44),
    ]
    if margins:
        subtitle.append("tick: the largest loss the margin accepts")
    return _difference_chart(
        [
            _Difference(
                v.dataset,
                v.metric,
                v.diff,
                v.decided_interval().low,
                v.decided_interval().high,
                v.verdict,
                v.proportion,
                v.direction,
                None
                if v.margin is None
                else float(v.margin) * (-1.0 if v.direction == "higher" else 1.0),
            )
            for v in verdicts
        ],
        {**VERDICT_COLOURS, **{k: "#bbbbbb" for k in names if k not in VERDICT_COLOURS}},
        axis="candidate − baseline",
        title=["Candidate − baseline"],
        subtitle=subtitle,
    )


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces."""
    import textwrap

    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


_CSS = """
body { margin: 0; padding: 0; background: #f3f4f6; }
table { border-collapse: collapse; }
.outer { background: #f3f4f6; }
.container { width: 100%; max-width: 640px; table-layout: fixed; background: #ffffff;
  font-family: 'DejaVu Sans', Arial, Helvetica, sans-serif; font-size: 14px;
  line-height: 1.45; color: #1f2933; }
.pad { padding: 18px 24px; }
h1 { font-size: 21px; margin: 0 0 4px 0; color: #111827; }
h2 { font-size: 16px; margin: 18px 0 8px 0; color: #111827; }
p { margin: 0 0 10px 0; }
.meta { color: #52606d; font-size: 12px; }
.headline { font-size: 15px; }
.data { width: 100%; font-size: 12px; }
.data th { text-align: left; border-bottom: 2px solid #cbd2d9; padding: 4px 6px;
  color: #3e4c59; }
.data td { border-bottom: 1px solid #e4e7eb; padding: 4px 6px; vertical-align: top; }
.num { text-align: right; white-space: nowrap; }
.improved { color: #1b7837; font-weight: bold; }
.regressed { color: #b2182b; font-weight: bold; }
.inconclusive { color: #a35200; font-weight: bold; }
.neutral { color: #52606d; }
.note { color: #52606d; font-size: 12px; }
.footer { color: #52606d; font-size: 12px; border-top: 1px solid #e4e7eb; }
ul { margin: 0 0 10px 0; padding-left: 20px; }
.flagged { list-style: none; padding-left: 4px; }
.decision { font-size: 15px; padding: 8px 12px; border-left: 5px solid #52606d;
  background: #f3f7fb; }
.decision-regressed { border-left-color: #b2182b; background: #fbeaec; }
.decision-improved { border-left-color: #1b7837; background: #e9f5ec; }
.decision-incomplete { border-left-color: #d4a106; background: #fff8e1; }
.warning { background: #fff8e1; border-left: 4px solid #d4a106; padding: 8px 12px;
  margin: 0 0 10px 0; }
td { white-space: normal; }
.scroll { overflow-x: auto; }
li { margin-bottom: 4px; }
.card { border-left: 4px solid #9aa5b1; padding: 6px 10px; margin: 0 0 8px 0;
  background: #f8f9fa; }
.card-improved { border-left-color: #1b7837; }
.card-regressed { border-left-color: #b2182b; }
.card-incomplete { border-left-color: #d4a106; }
.card-head { margin: 0 0 2px 0; }
.card-line { margin: 0; font-size: 13px; color: #323f4b; }
.cell { display: inline-block; white-space: nowrap; margin-right: 14px; }
.name { display: inline-block; margin-right: 14px; overflow-wrap: break-word;
  max-width: 100%; }
.badge { display: inline-block; white-space: nowrap; font-weight: bold; }
"""

#: The colour of a verdict's card (as the report's decision box: a release that is
#: non-inferior passes, an inconclusive one is incomplete).
_CARD_CLASS = {
    "improved": "improved",
    "non-inferior": "improved",
    "regressed": "regressed",
    "inconclusive": "incomplete",
}
#: The colour of a block's badge by the block's style (an inconclusive verdict in the
#: dark orange of its chart colour, dark enough to read on white).
_BADGE_CLASS = {"improved": "improved", "regressed": "regressed", "incomplete": "inconclusive"}
#: The order of the verdicts in the e-mail: what blocks a release first.
_VERDICT_ORDER = (
    "regressed",
    "inconclusive",
    "improved",
    "non-inferior",
    "no detectable difference",
)


def _html_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: Sequence[bool],
    css: Callable[[Mapping[str, Any]], str] | None = None,
    css_column: int = -1,
) -> str:
    """The rows (already formatted text) in the e-mail's table layout; ``css`` gives the
    class of a row's cell in column ``css_column`` (the last by default)."""
    marked = css_column % len(header)
    columns = [
        Col(h, h, numeric=n, css=css if j == marked else None)
        for j, (h, n) in enumerate(zip(header, numeric))
    ]
    return table([dict(zip(header, row)) for row in rows], columns, layout=MAIL_TABLE)


@dataclass
class _Body:
    """The summary as it is built: plain-text lines, HTML fragments and inline images,
    with where their Content-IDs live and the chart theme."""

    cid_domain: str
    theme: Any
    text: list[str] = field(default_factory=list)
    html: list[str] = field(default_factory=list)
    images: list[InlineImage] = field(default_factory=list)

    def image(self, chart: Any, alt: str) -> None:
        self.images.append(_image(chart, self.cid_domain, alt, self.theme))
        self.html.append(_img_tag(self.images[-1]))


def build_summary(
    folder: ReportFolder,
    *,
    max_rows: int = 10,
    charts: bool = True,
    attachments: Sequence[str] = (),
    cid_domain: str = "reportgen.local",
    theme: Any = "default",
    left_out: str | None = None,
    email_items: bool = False,
) -> Summary:
    """The subject, plain text and HTML of the message body, and its PNG charts.

    A release report's summary is the release decision and its verdicts
    (:func:`_release_part`); any other report's, the leaderboard, the headline
    comparisons and a chart of the means (:func:`_evaluation_part`). When the HTML with
    its CSS inlined is over :data:`MAX_HTML_BYTES`, tables are halved down to 3 rows.

    Parameters
    ----------
    folder
        The report folder (:func:`read_report_folder`).
    max_rows
        Longest leaderboard and verdict table shown (the full report has every row).
    charts
        Attach PNG charts (the release forest plot, the means of the first lists).
    attachments
        File names the message attaches (mentioned in the text).
    cid_domain
        Domain of the Content-IDs (e.g. the sender's).
    theme
        Chart theme (a bundled name or a folder).
    left_out
        Why report files were not attached (over the size limit), said in the text.
    email_items
        Show the first lost items of a release with their text (``--email-items``;
        :mod:`reportgen.report.mail.items`); without it the e-mail carries no item text.
    """
    import css_inline

    ledger = folder.ledger
    heading = folder.title + (
        f" — {folder.release}" if folder.release and folder.release not in folder.title else ""
    )
    meta_line = _meta_line(folder)
    out = _Body(cid_domain, theme, text=[heading, meta_line, ""])
    if ledger.release is not None:
        _release_part(
            out,
            ledger,
            ledger.release,
            max_rows=max_rows,
            charts=charts,
            items_folder=folder.path if email_items else None,
        )
    else:
        _evaluation_part(out, ledger, max_rows=max_rows, charts=charts)
    footer = _footer(ledger, attachments, left_out)
    # by name (no private path), with the release it holds: two releases' folders are
    # often both called eval-report
    where = f"Report folder: {folder.path.resolve().name}"
    if folder.release:
        where += f" (release {folder.release})"
    out.text += [footer, where]
    inlined = css_inline.inline(
        _html_document(folder.title, heading, meta_line, "".join(out.html), footer)
    )
    size = len(inlined.encode("utf-8"))
    if size > MAX_HTML_BYTES:
        if max_rows > 3:
            return build_summary(
                folder,
                max_rows=max(3, max_rows // 2),
                charts=charts,
                attachments=attachments,
                cid_domain=cid_domain,
                theme=theme,
                left_out=left_out,
                email_items=email_items,
            )
        raise MailError(
            f"the HTML summary is {size:,} bytes, over the {MAX_HTML_BYTES:,}-byte limit",
            hint="report this as a bug, with the report folder",
        )
    # one entry of out.text is one line: a name with a line break or U+202E in it is
    # shown escaped, so it cannot forge a line of the text part
    return Summary(
        _subject(folder),
        "\n".join(shown(line) for line in out.text).rstrip() + "\n",
        inlined,
        tuple(out.images),
    )


def _meta_line(folder: ReportFolder) -> str:
    """Release, date, what was compared and the seed, joined by dots."""
    ledger = folder.ledger
    meta = ledger.meta
    counts = f"{count(len(meta.datasets), 'dataset')}, {count(len(meta.metrics), 'metric')}"
    if ledger.release is None:  # a release compares two of the systems loaded
        counts = f"{count(len(meta.systems), 'system')}, {counts}"
    parts = [
        f"release {folder.release}" if folder.release else None,
        f"created {meta.created}" if meta.created else None,
        counts,
        f"seed {meta.seed}",
    ]
    return " · ".join(m for m in parts if m)


def _release_part(
    out: _Body,
    ledger: Ledger,
    comparison: ReleaseComparison,
    *,
    max_rows: int,
    charts: bool,
    items_folder: Any = None,
) -> None:
    """The release decision, the items gained and lost, what was not compared, the
    verdicts counted and one stacked block per dataset × metric, and the forest plot of
    every verdict."""
    decision = release_decision(comparison)
    out.text += ["RELEASE DECISION", "  " + decision.plain()]
    out.html.append("<h2>Release decision</h2>")
    out.html.append(
        f'<p class="decision decision-{decision_style(comparison)}">{decision.html()}</p>'
    )
    items = flips_line(comparison)
    if items:
        out.text += ["  " + items.plain()]
        out.html.append(f"<p>{items.html()}</p>")
    from reportgen.report.mail.items import items_part  # where the items are; their text

    more, more_html = items_part(comparison, items_folder)
    out.text += more
    out.html.append(more_html)
    missing = not_compared_lines(comparison)
    if missing:
        n_missing = len(comparison.not_compared) + len(comparison.partial)
        out.text += ["", f"NOT COMPARED OR PARTIAL ({n_missing})"]
        out.text += ["  - " + line.plain() for line in missing]
        out.html.append(
            f'<div class="warning"><p><strong>Not compared or partial '
            f"({n_missing})</strong>: the verdict covers "
            "only what both systems were scored on.</p><ul>"
            + "".join(f"<li>{line.html()}</li>" for line in missing)
            + "</ul></div>"
        )
    rank = {v: k for k, v in enumerate(_VERDICT_ORDER)}
    ordered = sorted(
        comparison.verdicts,
        key=lambda v: (rank.get(v.verdict, len(rank)), float(v.p_adjusted or 1)),
    )
    _verdict_cards(out, comparison, ordered, max_rows=max_rows, family=ledger.family.describe())
    if charts:
        # every verdict decides a release: all of them, what blocks it first
        out.image(
            _verdict_chart(ordered[:MAX_CHART_ROWS]),
            "Candidate − baseline with the interval each verdict is read off, coloured by verdict",
        )
    out.text.append("")


def _tally(comparison: ReleaseComparison) -> str:
    """``13 dataset × metrics: 2 regressed, 11 no detectable difference; 1 not
    compared``: the verdicts counted, as the ledger decided them."""
    counts = comparison.counts
    parts = [f"{counts[k]:,} {k}" for k in _VERDICT_ORDER if counts.get(k)]
    missing = len(comparison.not_compared)
    tail = f"; {missing:,} not compared" if missing else ""
    return f"{count(len(comparison.verdicts), 'dataset × metric')}: {', '.join(parts)}{tail}"


def _card(
    name: str,
    badge: str,
    style: str,
    numbers: Sequence[str],
    *,
    systems: Sequence[str] = (),
    flags: str = "",
) -> str:
    """One comparison as a stacked block: the name and its verdict on the first line,
    then the systems and the numbers, each piece a box that wraps as a unit (a number is
    never split; a system's name may wrap at a space, "-" or "/"), so nothing is hidden
    or cut at any width, without a style sheet (mail clients drop it) or a media query."""
    cells = [f'<span class="name">{escape(x)}</span>' for x in systems]
    cells += [f'<span class="cell">{escape(x)}</span>' for x in numbers]
    extra = f'<p class="card-line">{escape(flags)}</p>' if flags else ""
    colour = _BADGE_CLASS.get(style, "neutral")
    return (
        f'<div class="card card-{style}"><p class="card-head"><strong>{escape(name)}</strong> '
        f'<span class="badge {colour}">{escape(badge)}</span></p>'
        f'<p class="card-line">{" ".join(cells)}</p>{extra}</div>'
    )


def _verdict_cards(
    out: _Body,
    comparison: ReleaseComparison,
    ordered: Sequence[ReleaseVerdict],
    *,
    max_rows: int,
    family: str,
) -> None:
    """The verdicts counted, then one stacked block per dataset × metric (what blocks
    the release first), ``max_rows`` of them: the verdict beside the name, in view at
    any width."""
    tally = _tally(comparison)
    out.html.append(f"<h2>Verdicts</h2><p>{escape(tally)}.</p>")
    out.text += ["", f"VERDICTS ({tally})"]
    for v in ordered[:max_rows]:
        parts, flags = verdict_pieces(v)
        style = _CARD_CLASS.get(v.verdict, "nodiff")
        out.html.append(_card(v.name, v.verdict, style, parts, flags=flags))
        out.text += [f"  {v.name}: {v.verdict}", "    " + ", ".join(parts)]
        if flags:
            out.text.append("    " + flags)
    more = len(ordered) - max_rows
    note = (
        "Δ is candidate − baseline with the interval its verdict is read off; p adj. is "
        f"the p-value adjusted for multiple comparisons ({family})."
    )
    if more > 0:
        note = f"{count(more, 'more dataset × metric')} in the attached report. {note}"
    out.html.append(f'<p class="note">{escape(note)}</p>')
    out.text.append("  " + note)


def _evaluation_part(out: _Body, ledger: Ledger, *, max_rows: int, charts: bool) -> None:
    """The leaderboard with its tie-group note, the leader against the runner-up on
    every list (the ledger's merged sentences, then one block per list where the leader
    is separated first) and one chart of those comparisons over every list."""
    leaders = ledger.leaders
    board = (
        _leaders_rows(leaders, max_rows)
        if leaders is not None and leaders.partial
        else _leaderboard_rows(ledger, max_rows)
    )
    if leaders is not None and leaders.partial:  # the benchmarks do not share their systems
        scope = ranking_scope_line(leaders)
        if scope is not None:
            out.text += [scope.plain(), ""]
            out.html.append(f"<p>{scope.html()}</p>")
    if board is not None:
        caption, header, rows, total, ties = board
        out.text += [caption.upper()] + _text_table(rows, header)
        out.html.append(f"<h2>{escape(caption)}</h2>")
        out.html.append(
            _html_table(header, rows, [h in ("rank", "#", "score", "mean", "CI") for h in header])
        )
        if total > len(rows):
            noun = "more benchmark" if header[0] == "benchmark" else "more system"
            more = f"{count(total - len(rows), noun)} in the attached report."
            out.text.append(f"  ... {more}")
            out.html.append(f'<p class="note">{escape(more)}</p>')
        if ties:
            note = (
                f"Systems sharing {tie_word(ties)} in “{header[-1]}” are not "
                "significantly different."
            )
            out.text.append("  " + note)
            out.html.append(f'<p class="note">{escape(note)}</p>')
        out.text.append("")
    leads = _leads(ledger)
    if not leads:
        return
    sentences = lead_sentences([u for u, _ in leads], numbers=False)
    out.text.append(f"LEADER AGAINST RUNNER-UP ({count(len(leads), 'dataset × metric')})")
    out.text += [f"  - {c.plain()}" for c in sentences]
    out.html.append("<h2>Leader against runner-up</h2>")
    out.html.append("<ul>" + "".join(f"<li>{c.html()}</li>" for c in sentences) + "</ul>")
    deciding = sorted(leads, key=lambda uc: (not uc[1].significant, float(uc[1].p_adjusted or 1)))
    out.text.append("")
    for unit, c in deciding[:max_rows]:
        badge = c.outcome()
        systems = [f"leader {c.system_a}", f"runner-up {c.system_b}"]
        parts = c.pieces()
        style = "improved" if c.significant else ("incomplete" if c.approximate else "plain")
        out.html.append(_card(unit.name, badge, style, parts, systems=systems))
        out.text += [f"  {unit.name}: {badge}", "    " + ", ".join([*systems, *parts])]
    note = (
        "Δ is leader − runner-up with the interval its decision is read off (it excludes 0 "
        "exactly when the difference is significant); p adj. is the p-value adjusted for "
        f"multiple comparisons ({ledger.family.describe()})."
    )
    if len(deciding) > max_rows:
        more = count(len(deciding) - max_rows, "more dataset × metric")
        note = f"{more} in the attached report. {note}"
    out.html.append(f'<p class="note">{escape(note)}</p>')
    out.text += ["  " + note, ""]
    if charts:
        chart = _headline_chart(deciding[:MAX_CHART_ROWS])
        if chart is not None:
            out.image(
                chart,
                "Leader − runner-up with the interval its decision is read off on each "
                "dataset × metric, green where significant",
            )


def _footer(ledger: Ledger, attachments: Sequence[str], left_out: str | None) -> str:
    """Where the full report is, and what made it."""
    footer = (
        f"The full report is attached ({', '.join(attachments)}): the HTML opens in "
        "any browser, offline."
        if attachments
        else "The full report is in the report folder."
    )
    if left_out:
        footer = f"{left_out} {footer}"
    return footer + f" Made by reportgen {ledger.meta.reportgen_version} (seed {ledger.meta.seed})."


def _html_document(title: str, heading: str, meta_line: str, body: str, footer: str) -> str:
    """The HTML e-mail: a fluid single-column layout of presentation tables."""
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        '<table role="presentation" class="outer" width="100%"><tr><td align="center">'
        f'<table role="presentation" class="container" width="100%">'
        f'<tr><td class="pad"><h1>{escape(heading)}</h1>'
        f'<p class="meta">{escape(meta_line)}</p>{body}</td></tr>'
        f'<tr><td class="pad footer">{escape(footer)}</td></tr>'
        "</table></td></tr></table></body></html>"
    )


def _img_tag(image: InlineImage) -> str:
    return (
        f'<p><img src="cid:{image.cid}" alt="{escape(image.alt)}" width="{image.width}" '
        f'height="{image.height}" style="display:block;border:0;max-width:100%;'
        f'height:auto"></p>'
    )

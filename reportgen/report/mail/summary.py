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

import math
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.utils import make_msgid
from typing import Any

from reportgen import format as fmt
from reportgen.charts.render import inline_data
from reportgen.plaintext import count, listed, n_of, shown
from reportgen.report.folder.reader import ReportFolder
from reportgen.report.mail._base import BODY_WIDTH, MAX_HTML_BYTES, MailError
from reportgen.report.render.html import MAIL_TABLE, Col, compact_png, escape, table
from reportgen.report.render.ties import tie_labels_of_record, tie_word

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


def _proportion(results: Mapping[str, Any], dataset: str, metric: str) -> bool:
    """Whether (dataset, metric) holds proportions (shown in percent, differences in
    points, as in the report): the flag of its comparisons or verdicts, else a binary
    metric."""
    rows = [
        *(results.get("systems") or ()),
        *(results.get("comparisons") or ()),
        *((_verdict(results) or {}).get("rows") or ()),
    ]
    for row in rows:
        if row.get("dataset") == dataset and row.get("metric") == metric and "proportion" in row:
            return bool(row["proportion"])
    metrics = (results.get("config") or {}).get("metrics") or {}
    return (metrics.get(metric) or {}).get("modality") == "binary"


def _ci(row: Mapping[str, Any], proportion: bool) -> str:
    return fmt.interval(row.get("ci_low"), row.get("ci_high"), proportion=proportion)


def _decided(v: Mapping[str, Any]) -> dict[str, Any]:
    """A verdict row with ``ci_low``/``ci_high`` set to the interval its verdict is read
    off (``ci_adjusted_*``; an older file kept it in ``ci_low``/``ci_high``)."""
    if "ci_adjusted_low" not in v:
        return dict(v)
    return {**v, "ci_low": v.get("ci_adjusted_low"), "ci_high": v.get("ci_adjusted_high")}


def _verdict(results: Mapping[str, Any]) -> Mapping[str, Any] | None:
    verdict = results.get("verdict")
    return verdict if isinstance(verdict, Mapping) and "candidate" in verdict else None


def _comparison(verdict: Mapping[str, Any]) -> Any:
    from reportgen.analysis.release import ReleaseComparison

    return ReleaseComparison.from_dict(verdict)


def _ordered(results: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for entry in results.get("rankings") or ():
        if isinstance(entry, Mapping) and entry.get("kind") == "ordered" and entry.get("systems"):
            return entry
    return None


def _lists(results: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (dataset, metric) lists of the per-system rows, in their order."""
    seen: dict[tuple[str, str], None] = {}
    for row in results.get("systems") or ():
        seen.setdefault((str(row.get("dataset")), str(row.get("metric"))), None)
    return list(seen)


def _direction(results: Mapping[str, Any], metric: str) -> str:
    metrics = (results.get("config") or {}).get("metrics") or {}
    return str((metrics.get(metric) or {}).get("direction") or "higher")


def _top_systems(
    results: Mapping[str, Any], dataset: str, metric: str, limit: int
) -> tuple[list[Mapping[str, Any]], int]:
    rows = [
        r
        for r in results.get("systems") or ()
        if r.get("dataset") == dataset
        and r.get("metric") == metric
        and r.get("mean") is not None
        and math.isfinite(float(r["mean"]))
    ]
    lower = _direction(results, metric) == "lower"
    rows.sort(key=lambda r: float(r["mean"]), reverse=not lower)
    return rows[:limit], len(rows)


def _subject(folder: ReportFolder) -> str:
    from reportgen.report.render.findings import release_headline

    results = folder.results
    head = folder.title
    if folder.release and folder.release not in head:
        head += f" {folder.release}"
    verdict = _verdict(results)
    if verdict is not None:
        return f"{head}: {release_headline(_comparison(verdict))}"
    data = results.get("data") or {}
    n_sys, n_data = len(data.get("systems") or ()), len(data.get("datasets") or ())
    n_met = len(data.get("metrics") or ())
    ordered = _ordered(results)
    lead = _leader(ordered) if ordered else ""
    return (
        f"{head}: {count(n_sys, 'system')} on {count(n_data, 'dataset')} × "
        f"{count(n_met, 'metric')}{lead}"
    )


def _leader(ordered: Mapping[str, Any]) -> str:
    """ ", leader A" when the first of the ordered ranking differs significantly from
    every other system; ", first place shared by A and B" (or by n systems) when it
    does not; nothing when the pairs are not at hand (a table of their own)."""
    systems = [str(r["system"]) for r in ordered.get("systems") or ()]
    pairs = ordered.get("pairs")  # a list, or the rows of a table beside results.json
    if len(systems) < 2 or not isinstance(pairs, Sequence) or isinstance(pairs, str):
        return ""
    first = systems[0]
    differs = {
        str(p["system_b"] if p["system_a"] == first else p["system_a"]): bool(p["significant"])
        for p in pairs
        if first in (p.get("system_a"), p.get("system_b"))
    }
    if any(name not in differs for name in systems[1:]):
        return ""
    tied = [first] + [name for name in systems[1:] if not differs[name]]
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
    results: Mapping[str, Any], limit: int
) -> tuple[str, list[str], list[list[str]], int] | None:
    """(caption, header, rows, total) of the headline leaderboard."""
    ordered = _ordered(results)
    if ordered is not None:
        letters = tie_labels_of_record(ordered.get("letters"))  # as the report shows them
        rows = []
        for s in ordered["systems"][:limit]:
            row = [str(s.get("rank", "")), str(s["system"]), fmt.number(s.get("score"), 3)]
            if letters:
                row.append(letters.get(s["system"], ""))
            rows.append(row)
        header = ["rank", "system", "score"] + (["tie group"] if letters else [])
        names = ", ".join(str(x) for x in ordered.get("lists") or ())
        caption = f"Overall ranking across {names}" if names else "Overall ranking"
        return caption, header, rows, len(ordered["systems"])
    lists = _lists(results)
    if not lists:
        return None
    dataset, metric = lists[0]
    top, total = _top_systems(results, dataset, metric, limit)
    p = _proportion(results, dataset, metric)
    rows = [
        [str(i + 1), str(r["system"]), fmt.value(r["mean"], proportion=p), _ci(r, p)]
        for i, r in enumerate(top)
    ]
    return (f"Leaderboard: {dataset} / {metric}", ["#", "system", "mean", "CI"], rows, total)


#: Lists of the evaluation e-mail's chart of the headline comparisons (one row each).
MAX_CHART_ROWS = 40
#: Names listed in a merged sentence before "and N more".
MAX_LISTED = 6
#: Width of the e-mail's own chart, its dataset labels and panels together: the PNG
#: stays under the 327 px a 375 px phone leaves inside the body's padding, so it is
#: shown at its size (its text legible) rather than shrunk.
_PHONE_CHART_WIDTH = 290
#: Width of a character of an axis label, a generous estimate (11 px sans-serif).
_LABEL_PX_PER_CHAR = 6.5
#: Pairs named in a merged sentence before "N more dataset × metrics".
MAX_PAIRS = 4


@dataclass(frozen=True)
class _Headline:
    """The leader against the runner-up on one dataset × metric, oriented leader −
    runner-up, with the adjusted interval (it excludes 0 exactly when ``significant``):
    the ledger's comparison row of the pair, turned round when the leader is its B."""

    dataset: str
    metric: str
    leader: str
    runner: str
    mean_leader: float | None
    mean_runner: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_adjusted: float | None
    significant: bool
    proportion: bool
    direction: str

    @property
    def name(self) -> str:
        return f"{self.dataset} / {self.metric}"


def _headlines(results: Mapping[str, Any]) -> list[_Headline]:
    """The leader against the runner-up on every (dataset, metric) list, in the order of
    the lists: one pass over the comparisons (a report of 1,000 systems has 499,500)."""
    wanted: dict[tuple[str, str, frozenset[str]], tuple[Mapping[str, Any], Mapping[str, Any]]] = {}
    for dataset, metric in _lists(results):
        top, _ = _top_systems(results, dataset, metric, 2)
        if len(top) == 2:
            wanted[(dataset, metric, frozenset(str(r["system"]) for r in top))] = (top[0], top[1])
    found: dict[tuple[str, str, frozenset[str]], Mapping[str, Any]] = {}
    for c in results.get("comparisons") or ():
        if c.get("derived_from"):
            continue
        key = (
            str(c.get("dataset")),
            str(c.get("metric")),
            frozenset((str(c.get("system_a")), str(c.get("system_b")))),
        )
        if key in wanted and key not in found:
            found[key] = c
    out = []
    for key, (first, second) in wanted.items():
        c = found.get(key)
        if c is None:
            continue
        leader, runner = str(first["system"]), str(second["system"])
        flip = str(c.get("system_a")) != leader
        low, high = _decided(c).get("ci_low"), _decided(c).get("ci_high")
        diff = c.get("diff")
        if flip:
            diff = None if diff is None else -float(diff)
            low, high = (
                (None if high is None else -float(high)),
                (None if low is None else -float(low)),
            )
        out.append(
            _Headline(
                key[0],
                key[1],
                leader,
                runner,
                first.get("mean"),
                second.get("mean"),
                diff,
                low,
                high,
                c.get("p_adjusted"),
                bool(c.get("significant")),
                bool(c.get("proportion", _proportion(results, key[0], key[1]))),
                str(c.get("direction") or _direction(results, key[1])),
            )
        )
    return out


def _merged(headlines: Sequence[_Headline], limit: int = MAX_LISTED) -> list[str]:
    """One sentence per outcome (the leader significantly ahead of its runner-up, or
    not), naming its dataset × metrics, instead of one near-identical sentence each:
    "No significant difference between the first two, A and B, on 13 of 13 dataset ×
    metrics: ..."; where the first two differ between dataset × metrics, each pair is
    named before its own ("... on 3 of 3 dataset × metrics: A and B on x; C and D on
    y and z"). The leader separated from its runner-up comes first; up to
    :data:`MAX_PAIRS` pairs and ``limit`` names per pair are listed, the rest counted."""
    total = len(headlines)
    lines = []
    for significant in (True, False):
        group = [h for h in headlines if h.significant == significant]
        if not group:
            continue
        pairs: dict[tuple[str, ...], list[_Headline]] = {}
        for h in group:
            key = (h.leader, h.runner) if significant else tuple(sorted((h.leader, h.runner)))
            pairs.setdefault(key, []).append(h)
        where = n_of(len(group), total, "dataset × metric")
        if len(pairs) == 1:
            h = group[0]
            names = listed([g.name for g in group], limit)
            lines.append(
                f"{h.leader} is significantly ahead of the runner-up {h.runner} on {where}: "
                f"{names}."
                if significant
                else f"No significant difference between the first two, {h.leader} and "
                f"{h.runner}, on {where}: {names}."
            )
            continue
        joined = " over " if significant else " and "
        parts = [
            f"{joined.join((units[0].leader, units[0].runner))} on "
            f"{listed([u.name for u in units], limit)}"
            for units in sorted(pairs.values(), key=len, reverse=True)[:MAX_PAIRS]
        ]
        left = sum(len(u) for u in sorted(pairs.values(), key=len, reverse=True)[MAX_PAIRS:])
        if left:
            parts.append(f"{count(left, 'more dataset × metric')} in the report")
        head = (
            "The leader is significantly ahead of the runner-up"
            if significant
            else "No significant difference between the first two"
        )
        lines.append(f"{head} on {where}: {'; '.join(parts)}.")
    return lines


def _headline_claims(results: Mapping[str, Any], limit: int = MAX_LISTED) -> list[str]:
    """The leader against the runner-up on every list, in merged sentences (names
    listed up to ``limit`` per sentence)."""
    return _merged(_headlines(results), limit)


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


def _headline_chart(headlines: Sequence[_Headline]) -> Any:
    """The leader − runner-up of each list with its adjusted interval, coloured by
    whether it is significant: every dataset the summary speaks of, in one chart."""
    return _difference_chart(
        [
            _Difference(
                h.dataset,
                h.metric,
                h.diff,
                h.ci_low,
                h.ci_high,
                "significant" if h.significant else "not significant",
                h.proportion,
                h.direction,
            )
            for h in headlines
        ],
        {"significant": "#1b7837", "not significant": "#8a8a8a"},
        axis="leader − runner-up",
        title=["Leader − runner-up on each", "dataset × metric"],
        subtitle=[
            "point: difference; bar: adjusted interval",
            "(it excludes 0 exactly when significant);",
            "green: significant, grey: not; dashed: 0",
        ],
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


def _verdict_chart(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Candidate − baseline of each verdict with the interval it is read off, coloured
    by verdict (the report's forest plot, drawn for a phone)."""
    from reportgen.charts.release import VERDICT_COLOURS

    verdicts = [str(v.get("verdict")) for v in rows]
    margins = any(v.get("margin") is not None for v in rows)
    named = "; ".join(
        f"{_COLOUR_NAMES.get(VERDICT_COLOURS.get(k, '#bbbbbb'), 'grey')}: {k}"
        for k in dict.fromkeys(verdicts)
    )
    subtitle = [
        "point: difference; bar: the interval its",
        "verdict is read off; dashed: 0",
        *_wrapped(named, 44),
    ]
    if margins:
        subtitle.append("tick: the largest loss the margin accepts")
    return _difference_chart(
        [
            _Difference(
                str(v["dataset"]),
                str(v["metric"]),
                v.get("diff"),
                _decided(v).get("ci_low"),
                _decided(v).get("ci_high"),
                str(v.get("verdict")),
                bool(v.get("proportion", False)),
                str(v.get("direction") or "higher"),
                None
                if v.get("margin") is None
                else float(v["margin"])
                * (-1.0 if v.get("direction", "higher") == "higher" else 1.0),
            )
            for v in rows
        ],
        {**VERDICT_COLOURS, **{k: "#bbbbbb" for k in verdicts if k not in VERDICT_COLOURS}},
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
    """
    import css_inline

    results = folder.results
    heading = folder.title + (
        f" — {folder.release}" if folder.release and folder.release not in folder.title else ""
    )
    meta_line = _meta_line(folder)
    out = _Body(cid_domain, theme, text=[heading, meta_line, ""])
    verdict = _verdict(results)
    if verdict is not None:
        _release_part(out, results, verdict, max_rows=max_rows, charts=charts)
    else:
        _evaluation_part(out, results, max_rows=max_rows, charts=charts)
    footer = _footer(results, attachments, left_out)
    out.text += [footer, f"Report folder: {folder.path.resolve().name}"]  # by name: no private path
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
    results = folder.results
    created = str(results.get("created") or "")
    data = results.get("data") or {}
    counts = (
        f"{count(len(data.get('datasets') or ()), 'dataset')}, "
        f"{count(len(data.get('metrics') or ()), 'metric')}"
    )
    if _verdict(results) is None:  # a release compares two of the systems loaded
        counts = f"{count(len(data.get('systems') or ()), 'system')}, {counts}"
    meta = [
        f"release {folder.release}" if folder.release else None,
        f"created {created}" if created else None,
        counts,
        f"seed {results.get('seed')}",
    ]
    return " · ".join(m for m in meta if m)


def _release_part(
    out: _Body,
    results: Mapping[str, Any],
    verdict: Mapping[str, Any],
    *,
    max_rows: int,
    charts: bool,
) -> None:
    """The release decision, the items gained and lost, what was not compared, the
    verdicts counted and one stacked block per dataset × metric, and the forest plot of
    every verdict."""
    from reportgen.report.render.findings import (
        decision_style,
        flips_line,
        not_compared_lines,
        plain,
        release_decision,
    )

    comparison = _comparison(verdict)
    decision = release_decision(comparison)
    family = str(
        ((results.get("ledger") or {}).get("family") or {}).get("description")
        or "the release's correction"
    )
    out.text += ["RELEASE DECISION", "  " + plain(decision)]
    out.html.append("<h2>Release decision</h2>")
    out.html.append(f'<p class="decision decision-{decision_style(comparison)}">{decision}</p>')
    items = flips_line(comparison)
    if items:
        out.text += ["  " + plain(items)]
        out.html.append(f"<p>{items}</p>")
    missing = not_compared_lines(comparison)
    if missing:
        n_missing = len(comparison.not_compared) + len(comparison.partial)
        out.text += ["", f"NOT COMPARED OR PARTIAL ({n_missing})"]
        out.text += ["  - " + plain(line) for line in missing]
        out.html.append(
            f'<div class="warning"><p><strong>Not compared or partial '
            f"({n_missing})</strong>: the verdict covers "
            "only what both systems were scored on.</p><ul>"
            + "".join(f"<li>{line}</li>" for line in missing)
            + "</ul></div>"
        )
    rows = list(verdict["rows"])
    rank = {v: k for k, v in enumerate(_VERDICT_ORDER)}
    ordered = sorted(
        rows,
        key=lambda v: (rank.get(str(v.get("verdict")), len(rank)), float(v.get("p_adjusted") or 1)),
    )
    _verdict_cards(out, verdict, ordered, max_rows=max_rows, family=family)
    if charts:
        # every verdict decides a release: all of them, what blocks it first
        out.image(
            _verdict_chart(ordered[:MAX_CHART_ROWS]),
            "Candidate − baseline with the interval each verdict is read off, coloured by verdict",
        )
    out.text.append("")


def _tally(verdict: Mapping[str, Any], n_rows: int) -> str:
    """``13 dataset × metrics: 2 regressed, 11 no detectable difference; 1 not
    compared``: the verdicts counted, as the ledger decided them."""
    counts = verdict.get("counts") or {}
    parts = [f"{counts[k]:,} {k}" for k in _VERDICT_ORDER if counts.get(k)]
    missing = len(verdict.get("not_compared") or ())
    tail = f"; {missing:,} not compared" if missing else ""
    return f"{count(n_rows, 'dataset × metric')}: {', '.join(parts)}{tail}"


def _card_parts(v: Mapping[str, Any], alpha: float) -> tuple[list[str], str]:
    """The numbers of one verdict, each a short piece kept whole on a line (difference
    with the interval its verdict is read off, adjusted p, baseline → candidate, items,
    margin and the one-sided bound a verdict at a margin is read off, at level
    1 − ``alpha``/2), and what the reader must know about how it was reached."""
    p = bool(v.get("proportion", False))
    values = (
        f"{fmt.value(v.get('mean_baseline'), proportion=p)} → "
        f"{fmt.value(v.get('mean_candidate'), proportion=p)}"
    )
    if v.get("direction") == "lower":
        values += " (lower is better)"
    parts = [
        f"Δ {fmt.difference(v.get('diff'), proportion=p)} "
        f"{fmt.interval(v.get('ci_low'), v.get('ci_high'), proportion=p, signed=True)}",
        fmt.p_equals(v.get("p_adjusted"), "p adj."),
        values,
    ]
    if v.get("n_lost") is not None:
        parts.append(f"lost {v['n_lost']:,}, gained {v.get('n_gained', 0):,} items")
    if v.get("margin") is not None:
        margin = fmt.margin(v["margin"], direction=v.get("direction", "higher"), proportion=p)
        parts.append(f"margin {margin}" + (", equivalent" if v.get("equivalent") else ""))
    if v.get("ni_bound") is not None:
        # what a verdict at a margin is read off, as the report's verdict table shows it
        level = 1 - float(alpha) / 2
        parts.append(f"one-sided {level:.1%} bound {fmt.difference(v['ni_bound'], proportion=p)}")
    flags = []
    if v.get("skewed"):
        flags.append("heavily skewed differences: p and interval approximate")
    if v.get("note"):
        flags.append(str(v["note"]))
    return parts, "; ".join(flags)


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
    verdict: Mapping[str, Any],
    ordered: Sequence[Mapping[str, Any]],
    *,
    max_rows: int,
    family: str,
) -> None:
    """The verdicts counted, then one stacked block per dataset × metric (what blocks
    the release first), ``max_rows`` of them: the verdict beside the name, in view at
    any width."""
    tally = _tally(verdict, len(ordered))
    out.html.append(f"<h2>Verdicts</h2><p>{escape(tally)}.</p>")
    out.text += ["", f"VERDICTS ({tally})"]
    for v in map(_decided, ordered[:max_rows]):
        name, badge = f"{v['dataset']} / {v['metric']}", str(v.get("verdict"))
        parts, flags = _card_parts(v, float(verdict.get("alpha") or 0.05))
        style = _CARD_CLASS.get(badge, "nodiff")
        out.html.append(_card(name, badge, style, parts, flags=flags))
        out.text += [f"  {name}: {badge}", "    " + ", ".join(parts)]
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


def _evaluation_part(
    out: _Body, results: Mapping[str, Any], *, max_rows: int, charts: bool
) -> None:
    """The leaderboard with its tie-group note, the leader against the runner-up on
    every list (merged sentences, then the lists where the leader is separated first)
    and one chart of those comparisons over every list."""
    board = _leaderboard_rows(results, max_rows)
    if board is not None:
        caption, header, rows, total = board
        out.text += [caption.upper()] + _text_table(rows, header)
        out.html.append(f"<h2>{escape(caption)}</h2>")
        out.html.append(
            _html_table(header, rows, [h in ("rank", "#", "score", "mean", "CI") for h in header])
        )
        if total > len(rows):
            more = f"{count(total - len(rows), 'more system')} in the attached report."
            out.text.append(f"  ... {more}")
            out.html.append(f'<p class="note">{escape(more)}</p>')
        ordered = _ordered(results)
        if ordered is not None and ordered.get("letters"):
            word = tie_word(tie_labels_of_record(ordered.get("letters")))
            note = f"Systems sharing {word} in “tie group” are not significantly different."
            out.text.append("  " + note)
            out.html.append(f'<p class="note">{escape(note)}</p>')
        out.text.append("")
    headlines = _headlines(results)
    if not headlines:
        return
    sentences = _merged(headlines)
    out.text.append(f"LEADER AGAINST RUNNER-UP ({count(len(headlines), 'dataset × metric')})")
    out.text += [f"  - {c}" for c in sentences]
    out.html.append("<h2>Leader against runner-up</h2>")
    out.html.append("<ul>" + "".join(f"<li>{escape(c)}</li>" for c in sentences) + "</ul>")
    deciding = sorted(headlines, key=lambda h: (not h.significant, float(h.p_adjusted or 1)))
    out.text.append("")
    for h in deciding[:max_rows]:
        badge = "significant" if h.significant else "not significant"
        systems = [f"leader {h.leader}", f"runner-up {h.runner}"]
        parts = [
            f"Δ {fmt.difference(h.diff, proportion=h.proportion)} "
            f"{fmt.interval(h.ci_low, h.ci_high, proportion=h.proportion, signed=True)}",
            fmt.p_equals(h.p_adjusted, "p adj."),
            f"{fmt.value(h.mean_leader, proportion=h.proportion)} vs "
            f"{fmt.value(h.mean_runner, proportion=h.proportion)}"
            + (" (lower is better)" if h.direction == "lower" else ""),
        ]
        style = "improved" if h.significant else "plain"
        out.html.append(_card(h.name, badge, style, parts, systems=systems))
        out.text += [f"  {h.name}: {badge}", "    " + ", ".join([*systems, *parts])]
    family = ((results.get("ledger") or {}).get("family") or {}).get("description")
    note = (
        "Δ is leader − runner-up with its adjusted interval (it excludes 0 exactly when "
        "the difference is significant); p adj. is the p-value adjusted for multiple "
        "comparisons" + (f" ({family})" if family else "") + "."
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
                "Leader − runner-up with its adjusted interval on each dataset × metric, "
                "green where significant",
            )


def _footer(results: Mapping[str, Any], attachments: Sequence[str], left_out: str | None) -> str:
    """Where the full report is, and what made it."""
    footer = (
        f"The full report is attached ({', '.join(attachments)}): the HTML opens in "
        "any browser, offline."
        if attachments
        else "The full report is in the report folder."
    )
    if left_out:
        footer = f"{left_out} {footer}"
    return footer + (
        f" Made by reportgen {results.get('reportgen_version', '')} (seed {results.get('seed')})."
    )


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

"""The body of the message: the subject, a plain-text summary and an HTML summary (CSS
inlined, a 640 px table layout, charts as PNG images referenced by Content-ID).

A release report's summary is the release decision and its verdicts; any other
report's, the leaderboard, the headline comparisons and a chart of the means. Every
sentence comes from the ledger's wording (:mod:`reportgen.report.render.findings`,
:mod:`reportgen.report.render.claims`), every number from :mod:`reportgen.format`.
"""

from __future__ import annotations

import html as _html
import math
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.utils import make_msgid
from typing import Any

from reportgen import format as fmt
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


def _verdict_line(v: Mapping[str, Any]) -> str:
    from reportgen.report.sections import verdict_sentence

    return _html.unescape(verdict_sentence(v))


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
        letters = {
            s["system"]: s["letters"] for s in ((ordered.get("letters") or {}).get("systems") or ())
        }
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


def _chart_lists(results: Mapping[str, Any], n: int) -> list[tuple[str, str]]:
    """Up to ``n`` lists to chart: the first metric of each dataset first, then the
    others."""
    lists = _lists(results)
    firsts: dict[str, tuple[str, str]] = {}
    for dataset, metric in lists:
        firsts.setdefault(dataset, (dataset, metric))
    chosen = list(firsts.values())[:n]
    chosen += [x for x in lists if x not in chosen][: n - len(chosen)]
    return chosen


def _headline_claims(results: Mapping[str, Any], limit: int) -> list[str]:
    """Leader against runner-up of each (dataset, metric), in words."""
    from reportgen.report.render.claims import claim_sentence

    lines = []
    comparisons = [c for c in results.get("comparisons") or () if not c.get("derived_from")]
    for dataset, metric in _chart_lists(results, limit):
        top, _ = _top_systems(results, dataset, metric, 2)
        if len(top) < 2:
            continue
        a, b = top[0]["system"], top[1]["system"]
        for c in comparisons:
            if (
                c.get("dataset") == dataset
                and c.get("metric") == metric
                and {c.get("system_a"), c.get("system_b")} == {a, b}
            ):
                lines.append(claim_sentence(c, style="plain"))
                break
    return lines


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


def _means_chart(results: Mapping[str, Any], lists: Sequence[tuple[str, str]], limit: int) -> Any:
    """Means with their intervals, top ``limit`` systems of each list (one panel each)."""
    import altair as alt

    panels = []
    for dataset, metric in lists:
        top, total = _top_systems(results, dataset, metric, limit)
        if not top:
            continue
        scale = 100.0 if _proportion(results, dataset, metric) else 1.0
        data = [
            {
                "system": str(r["system"]),
                **{
                    k: None if r.get(k) is None else scale * float(r[k])
                    for k in ("mean", "ci_low", "ci_high")
                },
            }
            for r in top
        ]
        order = [str(d["system"]) for d in data]
        more = f" (top {len(top)} of {total})" if total > len(top) else ""
        y = alt.Y("system:N", sort=order, title=None, axis=alt.Axis(labelLimit=220))
        base = alt.Chart(inline_data(data)).encode(y=y)
        rule = base.mark_rule(strokeWidth=2).encode(
            x=alt.X(
                "ci_low:Q",
                title=f"{metric} (%)" if scale == 100.0 else metric,
                scale=alt.Scale(zero=False),
            ),
            x2=alt.X2("ci_high:Q"),
        )
        point = base.mark_point(filled=True, size=50).encode(x=alt.X("mean:Q"))
        panels.append(
            alt.layer(rule, point).properties(
                width=300, height=alt.Step(16), title=f"{dataset} / {metric}{more}"
            )
        )
    if not panels:
        return None
    return alt.vconcat(*panels, spacing=18).properties(
        title=alt.Title("Means with confidence intervals", subtitle="point: mean; bar: interval")
    )


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
"""

_VERDICT_CLASS = {"improved": "improved", "regressed": "regressed", "inconclusive": "regressed"}


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
        _release_part(out, verdict, max_rows=max_rows, charts=charts)
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


def _release_part(out: _Body, verdict: Mapping[str, Any], *, max_rows: int, charts: bool) -> None:
    """The release decision, the items gained and lost, what was not compared, the
    flagged verdicts, the verdict table and the forest plot."""
    from reportgen.report.render.findings import (
        decision_style,
        flips_line,
        not_compared_lines,
        plain,
        release_decision,
    )

    comparison = _comparison(verdict)
    decision = release_decision(comparison)
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
    _flagged_verdicts(out, rows, max_rows)
    shown = sorted(
        rows,
        key=lambda v: (
            v.get("verdict") == "no detectable difference",
            float(v.get("p_adjusted") or 1),
        ),
    )[:max_rows]
    _verdict_table(out, shown, n_rows=len(rows), max_rows=max_rows)
    if charts:
        from reportgen.charts import forest_plot

        out.image(
            forest_plot([_decided(v) for v in shown]),
            "Candidate − baseline with the interval each verdict is read off, coloured by verdict",
        )
    out.text.append("")


def _flagged_verdicts(out: _Body, rows: Sequence[Mapping[str, Any]], max_rows: int) -> None:
    """One line per regressed, inconclusive or improved dataset × metric, in that order."""
    order = {"regressed": 0, "inconclusive": 1, "improved": 2}
    flagged = sorted(
        (v for v in rows if v.get("verdict") in order),
        key=lambda v: (order[str(v.get("verdict"))], float(v.get("p_adjusted") or 1)),
    )
    if not flagged:
        return
    out.text.append("")
    out.text += ["  - " + _verdict_line(v) for v in flagged[:max_rows]]
    if len(flagged) > max_rows:
        out.text.append(f"  ... and {len(flagged) - max_rows} more (see the report)")
    out.html.append(
        '<ul class="flagged">'
        + "".join(
            f'<li><span class="{_VERDICT_CLASS.get(str(v["verdict"]), "")}">●</span> '
            f"{escape(_verdict_line(v))}</li>"
            for v in flagged[:max_rows]
        )
        + "</ul>"
    )


def _verdict_table(
    out: _Body, shown: Sequence[Mapping[str, Any]], *, n_rows: int, max_rows: int
) -> None:
    """Verdict, difference, interval, adjusted p, baseline and candidate of ``shown``: the
    decision beside the name, in view on a phone before any scrolling."""
    header = ["dataset / metric", "verdict", "Δ", "CI (adj.)", "p adj.", "baseline", "candidate"]
    trows = []
    for v in map(_decided, shown):
        p = bool(v.get("proportion", False))
        trows.append(
            [
                f"{v['dataset']} / {v['metric']}",
                str(v.get("verdict")),
                fmt.difference(v.get("diff"), proportion=p),
                fmt.interval(v.get("ci_low"), v.get("ci_high"), proportion=p, signed=True),
                fmt.p_value(v.get("p_adjusted")),
                fmt.value(v.get("mean_baseline"), proportion=p),
                fmt.value(v.get("mean_candidate"), proportion=p),
            ]
        )
    out.html.append(
        _html_table(
            header,
            trows,
            [False, False, True, True, True, True, True],
            lambda row: _VERDICT_CLASS.get(row["verdict"], ""),
            css_column=1,
        )
    )
    if n_rows > max_rows:
        out.html.append(
            f'<p class="note">{n_rows - max_rows} more dataset × metric '
            "rows in the attached report.</p>"
        )
    out.text += [""] + _text_table(trows, header)


def _evaluation_part(
    out: _Body, results: Mapping[str, Any], *, max_rows: int, charts: bool
) -> None:
    """The leaderboard with its tie-group note, the headline comparisons and a chart of
    the leading systems' means."""
    board = _leaderboard_rows(results, max_rows)
    if board is not None:
        caption, header, rows, total = board
        out.text += [caption.upper()] + _text_table(rows, header)
        out.html.append(f"<h2>{escape(caption)}</h2>")
        out.html.append(
            _html_table(header, rows, [h in ("rank", "#", "score", "mean", "CI") for h in header])
        )
        if total > len(rows):
            more = (
                f"{total - len(rows)} more system{'s' if total - len(rows) > 1 else ''} "
                "in the attached report."
            )
            out.text.append(f"  ... {more}")
            out.html.append(f'<p class="note">{escape(more)}</p>')
        ordered = _ordered(results)
        if ordered is not None and ordered.get("letters"):
            note = "Systems sharing a letter in “tie group” are not significantly different."
            out.text.append("  " + note)
            out.html.append(f'<p class="note">{escape(note)}</p>')
        out.text.append("")
    claims = _headline_claims(results, 6)
    if claims:
        out.text.append("HEADLINE COMPARISONS (leader against runner-up)")
        out.text += [f"  - {c}" for c in claims]
        out.text.append("")
        out.html.append("<h2>Headline comparisons</h2>")
        out.html.append("<ul>" + "".join(f"<li>{escape(c)}</li>" for c in claims) + "</ul>")
    if charts:
        chart = _means_chart(results, _chart_lists(results, 3), max_rows)
        if chart is not None:
            out.image(chart, "Means with confidence intervals of the leading systems")


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

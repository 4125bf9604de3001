"""E-mail a report folder to stakeholders.

The message is what mail clients show well: a short summary in the body and the full
report attached.

* ``multipart/alternative``: a plain-text summary (headline verdicts, leaderboard) and an
  HTML summary. The HTML has its CSS inlined (css-inline), a table layout 640 px wide, no
  script, no ``data:`` URI and no external URL, and stays under 100 KB. Its charts are
  PNG images attached inline by Content-ID (``multipart/related``), because mail clients
  drop ``data:`` URIs and SVG.
* ``report.html`` and ``report.pdf`` of the folder attached (the name carries the release
  label when there is one).

Credentials never come from the command line: ``REPORTGEN_SMTP_USER`` and
``REPORTGEN_SMTP_PASSWORD``, or else the ``machine`` entry of the SMTP host in a
netrc file (``--netrc FILE``, ``$NETRC``, or ``~/.netrc``). They are sent only over TLS
(``--starttls`` or ``--ssl``). SMTP failures (refused connection, unknown host, timeout,
TLS, rejected credentials, refused recipients, a message too large) raise
:class:`MailError` with what happened and what to do; nothing is retried.
"""

from __future__ import annotations

import contextlib
import hashlib
import html as _html
import math
import netrc
import os
import re
import smtplib
import socket
import ssl
import stat
import struct
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any

from reportgen.charts.render import inline_data
from reportgen.errors import InputError, Location
from reportgen.plaintext import UNSAFE, shown
from reportgen.report import format as fmt
from reportgen.report.html import compact_png

__all__ = [
    "DEFAULT_MAX_ATTACHMENT_MB",
    "ENV_HOST",
    "ENV_PASSWORD",
    "ENV_PORT",
    "ENV_USER",
    "MAX_HTML_BYTES",
    "InlineImage",
    "MailError",
    "ReportFolder",
    "SMTPSettings",
    "Summary",
    "build_message",
    "build_summary",
    "parse_address",
    "read_report_folder",
    "send_message",
    "smtp_settings",
    "write_eml",
]

#: Default limit of the attachments, in MB as sent (most mail servers take 10-25 MB).
DEFAULT_MAX_ATTACHMENT_MB = 10.0


ENV_USER = "REPORTGEN_SMTP_USER"
ENV_PASSWORD = "REPORTGEN_SMTP_PASSWORD"
ENV_HOST = "REPORTGEN_SMTP_HOST"
ENV_PORT = "REPORTGEN_SMTP_PORT"
#: Largest HTML body we send (bytes, after CSS inlining).
MAX_HTML_BYTES = 100_000
#: Width of the e-mail layout and of its charts (CSS pixels).
BODY_WIDTH = 640
_PNG_SCALE = 2.0
_DEFAULT_PORTS = {"none": 25, "starttls": 587, "ssl": 465}


class MailError(InputError):
    """The message could not be built or delivered (the CLI exits with status 2)."""


# ---------------------------------------------------------------------------------------
# The report folder


@dataclass(frozen=True)
class ReportFolder:
    """A report folder as ``reportgen run`` writes it.

    Attributes
    ----------
    path
        The folder.
    results
        Its ``results.json``, the tables written beside it read back in place of their
        references (:func:`reportgen.report.tables.resolve_tables`).
    manifest
        Its ``manifest.json``, or None (e.g. a folder of ``reportgen analyze``).
    html, pdf
        ``report.html`` and ``report.pdf`` when present.
    """

    path: Path
    results: dict[str, Any]
    manifest: dict[str, Any] | None
    html: Path | None
    pdf: Path | None

    @property
    def title(self) -> str:
        return str((self.results.get("report") or {}).get("title") or "Evaluation report")

    @property
    def release(self) -> str | None:
        return (self.results.get("report") or {}).get("release") or None


def read_report_folder(path: str | Path) -> ReportFolder:
    """Read a report folder (its ``results.json`` is required).

    Raises
    ------
    InputError
        Not a folder, no ``results.json``, or one that is not valid JSON (read with
        the limits of :func:`reportgen.jsonsafe.load_json`, never through a link), was
        written by a newer reportgen (its ``format_version``, or the manifest's, is
        newer than this one reads), or does not match the shipped schema
        (:func:`reportgen.report.archive.validate_results`).
    """

    folder = Path(path)
    if not folder.is_dir():
        raise InputError(
            "not a report folder",
            location=Location(str(folder)),
            hint="pass the folder written by `reportgen run --out`",
        )
    results_path = folder / "results.json"
    if not results_path.is_file():
        raise InputError(
            "the folder has no results.json, so it is not a report folder",
            location=Location(str(folder)),
            hint="pass the folder written by `reportgen run --out`",
        )

    from reportgen.jsonsafe import RESULTS_FORMAT_VERSION, check_format_version, load_json
    from reportgen.report.archive import MANIFEST_FORMAT_VERSION, read_regular, validate_results

    def _json(p: Path, supported: int) -> dict[str, Any]:
        try:
            data = read_regular(p)  # never through a link
        except OSError as exc:
            raise InputError(
                f"cannot read the file ({exc.strerror or exc}; a link is never followed)",
                location=Location(str(p)),
                hint="check the report folder",
            ) from None
        doc = load_json(data, source=p, hint="the report folder is damaged; run the report again")
        if not isinstance(doc, dict):
            raise InputError(
                "not a JSON object",
                location=Location(str(p)),
                hint="the report folder is damaged; run the report again",
            )
        check_format_version(doc, supported=supported, what=p.name, source=p)
        return doc

    results = _json(results_path, RESULTS_FORMAT_VERSION)
    # a hand-edited or damaged results.json ("mean": "abc", "systems": 5) stops here,
    # naming the file and its first invalid field, before any of it is used
    validate_results(results, source=results_path)
    from reportgen.report.tables import resolve_tables

    # a large report keeps its long tables in tables/*.parquet: read them from there
    results = resolve_tables(results, folder)
    manifest_path = folder / "manifest.json"
    manifest = (
        _json(manifest_path, MANIFEST_FORMAT_VERSION) if os.path.lexists(manifest_path) else None
    )
    html = folder / "report.html"
    pdf = folder / "report.pdf"
    return ReportFolder(
        folder, results, manifest, html if html.is_file() else None, pdf if pdf.is_file() else None
    )


# ---------------------------------------------------------------------------------------
# The summary (text, HTML, inline charts)


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


def _fmt(value: Any, digits: int = 4) -> str:
    return fmt.number(value, digits)


def _fmt_p(value: Any) -> str:
    return fmt.p_value(value)


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
    from reportgen.report.findings import release_headline

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
    lead = f", leader {ordered['systems'][0]['system']}" if ordered else ""
    return f"{head}: {n_sys} systems on {n_data} dataset(s) × {n_met} metric(s){lead}"


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
            row = [str(s.get("rank", "")), str(s["system"]), _fmt(s.get("score"), 3)]
            if letters:
                row.append(letters.get(s["system"], ""))
            rows.append(row)
        header = ["rank", "system", "score"] + (["tie group"] if letters else [])
        lists = ", ".join(str(x) for x in ordered.get("lists") or ())
        caption = f"Overall ranking across {lists}" if lists else "Overall ranking"
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
    from reportgen.report.claims import claim_sentence

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
    width, height = _png_size(data)
    width, height = width / _PNG_SCALE, height / _PNG_SCALE
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
        order = [d["system"] for d in data]
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


def _e(value: Any) -> str:
    return _html.escape(shown(value, keep_lines=True), quote=True)


def _html_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: Sequence[bool],
    row_class: Sequence[str] | None = None,
    class_column: int = -1,
) -> str:
    head = "".join(
        f'<th class="{"num" if n else ""}">{_e(h)}</th>' for h, n in zip(header, numeric)
    )
    body = []
    for i, row in enumerate(rows):
        marked = class_column % len(row)  # the cell the row's class colours
        cells = "".join(
            f'<td class="{"num" if n else ""}'
            f'{" " + row_class[i] if row_class and row_class[i] and j == marked else ""}">'
            f"{_e(c)}</td>"
            for j, (c, n) in enumerate(zip(row, numeric))
        )
        body.append(f"<tr>{cells}</tr>")
    return (
        f'<div class="scroll"><table role="presentation" class="data" width="100%">'
        f"<tr>{head}</tr>" + "".join(body) + "</table></div>"
    )


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
    out.text += [footer, f"Report folder: {folder.path.resolve()}"]
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
        f"{len(data.get('datasets') or ())} dataset(s), {len(data.get('metrics') or ())} metric(s)"
    )
    if _verdict(results) is None:  # a release compares two of the systems loaded
        counts = f"{len(data.get('systems') or ())} systems, {counts}"
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
    from reportgen.report.findings import (
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
            f"{_e(_verdict_line(v))}</li>"
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
                _fmt_p(v.get("p_adjusted")),
                fmt.value(v.get("mean_baseline"), proportion=p),
                fmt.value(v.get("mean_candidate"), proportion=p),
            ]
        )
    out.html.append(
        _html_table(
            header,
            trows,
            [False, False, True, True, True, True, True],
            [_VERDICT_CLASS.get(str(v.get("verdict")), "") for v in shown],
            class_column=1,
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
        out.html.append(f"<h2>{_e(caption)}</h2>")
        out.html.append(
            _html_table(header, rows, [h in ("rank", "#", "score", "mean", "CI") for h in header])
        )
        if total > len(rows):
            more = (
                f"{total - len(rows)} more system{'s' if total - len(rows) > 1 else ''} "
                "in the attached report."
            )
            out.text.append(f"  ... {more}")
            out.html.append(f'<p class="note">{_e(more)}</p>')
        ordered = _ordered(results)
        if ordered is not None and ordered.get("letters"):
            note = "Systems sharing a letter in “tie group” are not significantly different."
            out.text.append("  " + note)
            out.html.append(f'<p class="note">{_e(note)}</p>')
        out.text.append("")
    claims = _headline_claims(results, 6)
    if claims:
        out.text.append("HEADLINE COMPARISONS (leader against runner-up)")
        out.text += [f"  - {c}" for c in claims]
        out.text.append("")
        out.html.append("<h2>Headline comparisons</h2>")
        out.html.append("<ul>" + "".join(f"<li>{_e(c)}</li>" for c in claims) + "</ul>")
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
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        '<table role="presentation" class="outer" width="100%"><tr><td align="center">'
        f'<table role="presentation" class="container" width="100%">'
        f'<tr><td class="pad"><h1>{_e(heading)}</h1>'
        f'<p class="meta">{_e(meta_line)}</p>{body}</td></tr>'
        f'<tr><td class="pad footer">{_e(footer)}</td></tr>'
        "</table></td></tr></table></body></html>"
    )


def _img_tag(image: InlineImage) -> str:
    return (
        f'<p><img src="cid:{image.cid}" alt="{_e(image.alt)}" width="{image.width}" '
        f'height="{image.height}" style="display:block;border:0;max-width:100%;'
        f'height:auto"></p>'
    )


# ---------------------------------------------------------------------------------------
# The message


def parse_address(text: str, *, option: str) -> Address:
    """An address such as ``ana@example.org`` or ``Ana Lima <ana@example.org>``.

    Raises
    ------
    MailError
        Not an e-mail address (named by the option it came from).
    """
    from email.headerregistry import HeaderRegistry

    value = str(text).strip()
    try:
        header = HeaderRegistry()("To", value)
        addresses = list(header.addresses)
    except Exception:  # noqa: BLE001 - the parser raises several kinds on bad input
        addresses = []
    if (
        len(addresses) != 1
        or not addresses[0].username
        or not addresses[0].domain
        or getattr(header, "defects", None)
    ):
        raise MailError(
            f"not an e-mail address: {value!r}",
            location=Location(option),
            hint="write name@example.org or 'Name <name@example.org>'",
        )
    address = addresses[0]  # a non-ASCII mailbox name is a defect of the parser above
    if not address.domain.isascii():
        # an internationalised domain goes into the header as its IDNA (punycode) form;
        # written as is, it would become an invalid encoded word (a@=?utf-8?q?...?=.org)
        try:
            domain = address.domain.encode("idna").decode("ascii")
        except UnicodeError:
            raise MailError(
                f"the domain of {value!r} is not a valid internationalised domain name",
                location=Location(option),
                hint="check the spelling, or write it in its xn-- form",
            ) from None
        address = Address(address.display_name, address.username, domain)
    return address


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "report"


def build_message(
    folder: ReportFolder,
    *,
    sender: str,
    to: Sequence[str],
    cc: Sequence[str] = (),
    subject: str | None = None,
    reply_to: str | None = None,
    attach: bool = True,
    max_rows: int = 10,
    charts: bool = True,
    theme: Any = "default",
    max_attachment_mb: float = DEFAULT_MAX_ATTACHMENT_MB,
) -> EmailMessage:
    """The complete message: the summary alternatives and the attached report.

    Parameters
    ----------
    folder
        The report folder (:func:`read_report_folder`).
    sender, to, cc, reply_to
        Addresses (``name@host`` or ``Name <name@host>``); Bcc recipients are not part
        of the message, pass them to :func:`send_message`.
    subject
        Default: the title, the release and the headline (verdict counts or the leader).
    attach
        Attach ``report.html`` and ``report.pdf`` (those the folder has).
    max_rows, charts, theme
        See :func:`build_summary`.
    max_attachment_mb
        Largest total size of the attachments as sent (base64 adds a third), in MB
        (10⁶ bytes): above it only the PDF is attached, and if the PDF alone is too large
        nothing is; the message says so and where the report folder is.

    Raises
    ------
    MailError
        A bad address, a limit that is not positive, or nothing to attach while
        ``attach`` is true.
    """
    if not (max_attachment_mb > 0):
        raise MailError(
            f"--max-attachment-mb must be positive, not {max_attachment_mb}",
            location=Location("--max-attachment-mb"),
            hint="e.g. --max-attachment-mb 10 (most mail servers accept "
            "10-25 MB); --no-attach sends the summary only",
        )
    from_addr = parse_address(sender, option="--from")
    to_addrs = [parse_address(a, option="--to") for a in to]
    cc_addrs = [parse_address(a, option="--cc") for a in cc]
    if not to_addrs:
        raise MailError(
            "no recipient",
            location=Location("--to"),
            hint="pass --to ADDRESS (repeat it for several)",
        )
    files: list[tuple[Path, str, str, str]] = []
    stem = "report" + (f"-{_safe_name(folder.release)}" if folder.release else "")
    contents: dict[Path, bytes] = {}
    if attach:
        for path, maintype, subtype in (
            (folder.path / "report.html", "text", "html"),
            (folder.path / "report.pdf", "application", "pdf"),
        ):
            data = _attachment(folder, path)
            if data is not None:
                contents[path] = data
                files.append((path, maintype, subtype, f"{stem}.{subtype}"))
        if not files:
            raise MailError(
                "the report folder has no report.html or report.pdf to attach",
                location=Location(str(folder.path)),
                hint="run `reportgen run` with --format html,pdf, or pass "
                "--no-attach to send the summary only",
            )
    files, left_out = _within_limit(files, max_attachment_mb, folder.path, contents)
    summary = build_summary(
        folder,
        max_rows=max_rows,
        charts=charts,
        attachments=[f[3] for f in files],
        cid_domain=from_addr.domain,
        theme=theme,
        left_out=left_out,
    )
    if subject is not None and UNSAFE.search(subject):
        raise MailError(
            "--subject contains a line break or a control character "
            f"({shown(UNSAFE.findall(subject)[0])}), which could add mail headers or "
            "rewrite what readers see",
            location=Location("--subject"),
            hint="give the subject on one line, in printable characters",
        )
    msg = EmailMessage()
    # a title or release label stored with a line break must not open a header
    msg["Subject"] = subject if subject else shown(" ".join(summary.subject.split()))
    msg["From"] = from_addr
    msg["To"] = to_addrs
    if cc_addrs:
        msg["Cc"] = cc_addrs
    if reply_to:
        msg["Reply-To"] = parse_address(reply_to, option="--reply-to")
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(idstring="reportgen", domain=from_addr.domain)
    msg["X-Mailer"] = f"reportgen {folder.results.get('reportgen_version', '')}".strip()
    msg.set_content(summary.text, subtype="plain", charset="utf-8")
    msg.add_alternative(summary.html, subtype="html", charset="utf-8")
    html_part = msg.get_payload()[1]
    for image in summary.images:
        html_part.add_related(
            image.data,
            maintype="image",
            subtype="png",
            cid=f"<{image.cid}>",
            disposition="inline",
            filename=f"{image.cid.split('@')[0]}.png",
        )
    for path, maintype, subtype, name in files:
        msg.add_attachment(contents[path], maintype=maintype, subtype=subtype, filename=name)
    return msg


def _attachment(folder: ReportFolder, path: Path) -> bytes | None:
    """The bytes of a report file to attach, read once without following links and
    checked against the manifest; None when the folder has no such file.

    Raises
    ------
    MailError
        The file is a symbolic link (or not a regular file), or it differs from the
        SHA-256 the report's manifest records, or the manifest does not list it: what
        would be mailed is not what reportgen wrote.
    """
    from reportgen.report.archive import entry_kind, read_regular

    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    hint = (
        "run `reportgen verify` on the folder, or make the report again; "
        "--no-attach sends the summary only"
    )
    if not stat.S_ISREG(mode):
        raise MailError(
            f"{path.name} is {entry_kind(mode)}, not the file reportgen wrote: it is "
            "never attached",
            location=Location(str(path)),
            hint=hint,
        )
    try:
        data = read_regular(path)
    except OSError as exc:
        raise MailError(
            f"{path.name} cannot be read ({exc.strerror or exc})",
            location=Location(str(path)),
            hint=hint,
        ) from None
    if folder.manifest is not None:
        outputs = folder.manifest.get("outputs")
        entry = outputs.get(path.name) if isinstance(outputs, dict) else None
        if not isinstance(entry, dict):
            raise MailError(
                f"{path.name} is not listed in the report's manifest.json, so it is not attached",
                location=Location(str(path)),
                hint=hint,
            )
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            raise MailError(
                f"{path.name} differs from the file reportgen wrote (its SHA-256 is not "
                "the one manifest.json records), so it is not attached",
                location=Location(str(path)),
                hint=hint,
            )
    return data


def _sent_bytes(size: int) -> int:
    """The size of a file of ``size`` bytes attached in base64 (4 bytes per 3, lines of
    76 + CRLF)."""
    encoded = 4 * ((size + 2) // 3)
    return encoded + 2 * (encoded // 76 + 1)


def _within_limit(
    files: list[tuple[Path, str, str, str]],
    limit_mb: float,
    folder: Path,
    contents: Mapping[Path, bytes],
) -> tuple[list[tuple[Path, str, str, str]], str | None]:
    """The attachments that fit ``limit_mb``: all of them, else the PDF only, else none;
    and the sentence that says what was left out and why."""
    limit = limit_mb * 1e6

    def total(chosen: list[tuple[Path, str, str, str]]) -> int:
        return sum(_sent_bytes(len(contents[f[0]])) for f in chosen)

    if total(files) <= limit:
        return files, None
    pdf = [f for f in files if f[2] == "pdf"]
    size = f"{total(files) / 1e6:.1f} MB"
    if pdf and len(pdf) < len(files) and total(pdf) <= limit:
        return pdf, (
            f"The HTML report is not attached: with it the attachments would be "
            f"{size}, over the {limit_mb:g} MB limit (--max-attachment-mb); it "
            f"is in the report folder {folder.resolve()}."
        )
    return [], (
        f"The report is not attached: {size}, over the {limit_mb:g} MB limit "
        f"(--max-attachment-mb); it is in the report folder {folder.resolve()}."
    )


def write_eml(msg: EmailMessage, path: str | Path) -> Path:
    """Write the message to ``path`` (RFC 5322, CRLF line ends) atomically.

    Raises
    ------
    MailError
        The file exists as a folder, or cannot be written.
    """
    import tempfile
    from email.policy import SMTP

    target = Path(path)
    if target.is_dir():
        raise MailError(
            "the --eml path is a folder",
            location=Location(str(target)),
            hint="name a file, e.g. --eml report.eml",
        )
    data = msg.as_bytes(policy=SMTP)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        from reportgen.report.output import default_mode

        os.chmod(tmp, default_mode())
        os.replace(tmp, target)
    except OSError as exc:
        raise MailError(
            f"cannot write the message ({exc.strerror or exc})",
            location=Location(str(target)),
            hint="choose a path you can write to",
        ) from None
    return target


# ---------------------------------------------------------------------------------------
# Sending


@dataclass(frozen=True)
class SMTPSettings:
    """Where and how to send.

    Attributes
    ----------
    host, port
        The SMTP server.
    security
        ``"none"``, ``"starttls"`` (upgrade a plain connection) or ``"ssl"`` (TLS from
        the start, usually port 465).
    timeout
        Seconds the whole SMTP exchange may take, from the connection to the server's
        last reply (one total deadline: a server that answers slowly, a line a second,
        cannot stretch it).
    cafile
        CA bundle (PEM) to verify the server's certificate with, for a private CA;
        default: the system's trust store.
    user, password
        Credentials (from the environment or netrc); None for no AUTH.
    credentials_from
        Where the credentials came from (shown in messages, never the password).
    """

    host: str
    port: int
    security: str = "none"
    timeout: float = 30.0
    cafile: str | None = None
    user: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    credentials_from: str | None = None

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"


def smtp_settings(
    *,
    host: str | None = None,
    port: int | None = None,
    security: str = "none",
    timeout: float = 30.0,
    cafile: str | None = None,
    netrc_file: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> SMTPSettings:
    """Resolve the SMTP settings: options, then ``REPORTGEN_SMTP_HOST`` /
    ``REPORTGEN_SMTP_PORT``, then defaults (localhost; port 25, 587 with STARTTLS, 465
    with SSL). Credentials: ``REPORTGEN_SMTP_USER`` and ``REPORTGEN_SMTP_PASSWORD``,
    else the host's entry in the netrc file (``netrc_file``, ``$NETRC``, ``~/.netrc``).

    Raises
    ------
    MailError
        A bad port or timeout, only one of the two variables set, an unreadable or
        malformed netrc file, a missing CA file.
    """
    env = os.environ if environ is None else environ
    if security not in _DEFAULT_PORTS:
        raise MailError(f"unknown security {security!r}", hint="none, starttls or ssl")
    host = host or env.get(ENV_HOST) or "localhost"
    if port is None and env.get(ENV_PORT):
        try:
            port = int(env[ENV_PORT])
        except ValueError:
            raise MailError(
                f"{ENV_PORT} is not a port number: {env[ENV_PORT]!r}",
                hint="set it to a number such as 587",
            ) from None
    port = _DEFAULT_PORTS[security] if port is None else port
    if not 0 < port < 65536:
        raise MailError(
            f"the SMTP port must be between 1 and 65535, not {port}",
            location=Location("--smtp-port"),
            hint="e.g. 587 for STARTTLS",
        )
    if not timeout > 0:
        raise MailError(
            f"the timeout must be positive, not {timeout:g}",
            location=Location("--timeout"),
            hint="e.g. --timeout 30",
        )
    if cafile is not None and not Path(cafile).is_file():
        raise MailError(
            "the CA file does not exist",
            location=Location(str(cafile)),
            hint="pass a PEM bundle of the CA that signed the server's certificate",
        )
    user, password = env.get(ENV_USER) or None, env.get(ENV_PASSWORD) or None
    source = None
    if (user is None) != (password is None):
        missing = ENV_PASSWORD if password is None else ENV_USER
        raise MailError(
            f"{missing} is not set while {ENV_USER if password is None else ENV_PASSWORD} is",
            hint="set both variables, or neither to use a netrc file",
        )
    if user is not None:
        source = f"{ENV_USER}/{ENV_PASSWORD}"
    else:
        user, password, source = _netrc_credentials(host, netrc_file, env)
    return SMTPSettings(
        host=host,
        port=port,
        security=security,
        timeout=float(timeout),
        cafile=cafile,
        user=user,
        password=password,
        credentials_from=source,
    )


def _netrc_credentials(
    host: str, netrc_file: str | None, env: Mapping[str, str]
) -> tuple[str | None, str | None, str | None]:
    if netrc_file is not None:
        path = Path(netrc_file)
        if not path.is_file():
            raise MailError(
                "the netrc file does not exist",
                location=Location(str(path)),
                hint="pass an existing file to --netrc",
            )
    elif env.get("NETRC"):
        path = Path(env["NETRC"])
    else:
        path = Path(env.get("HOME") or Path.home()) / ".netrc"
    if not path.is_file():
        return None, None, None
    try:
        entry = netrc.netrc(str(path)).authenticators(host)
    except netrc.NetrcParseError as exc:
        raise MailError(
            f"the netrc file is malformed ({exc.msg})",
            location=Location(str(path), exc.lineno),
            hint="each entry reads: machine HOST login USER password PASSWORD",
        ) from None
    except OSError as exc:
        raise MailError(
            f"cannot read the netrc file ({exc.strerror or exc})",
            location=Location(str(path)),
            hint="check its permissions",
        ) from None
    if entry is None:
        return None, None, None
    login, _account, password = entry
    if not login or not password:
        raise MailError(
            f"the netrc entry of {host} lacks a login or a password",
            location=Location(str(path)),
            hint=f"write: machine {host} login USER password PASSWORD",
        )
    return login, password, f"netrc {path}"


class _Deadline:
    """One total deadline for an SMTP exchange: when it passes, every socket of the
    exchange is shut down, which ends any read or write in progress (smtplib's own
    timeout applies to each read, so a server trickling a line a second would keep it
    waiting forever)."""

    def __init__(self, seconds: float) -> None:
        import threading

        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def remaining(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the SMTP deadline passed")
        return left

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


class _BoundedContext:
    """An ``ssl.SSLContext`` whose sockets obey a :class:`_Deadline` from the start of
    their handshake (the TLS socket replaces the plain one, whose descriptor it takes:
    the deadline must watch the new one, for ``--ssl`` and after ``STARTTLS``)."""

    def __init__(self, context: ssl.SSLContext, deadline: _Deadline) -> None:
        self._context, self._deadline = context, deadline

    def wrap_socket(self, sock: socket.socket, **kwargs: Any) -> ssl.SSLSocket:
        wrapped = self._context.wrap_socket(sock, do_handshake_on_connect=False, **kwargs)
        self._deadline.watch(wrapped)
        wrapped.do_handshake()
        return wrapped

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


def _with_deadline(base: type[smtplib.SMTP], deadline: _Deadline) -> type[smtplib.SMTP]:
    """``base`` (``SMTP`` or ``SMTP_SSL``) whose socket obeys ``deadline``."""

    class _Bounded(base):  # type: ignore[valid-type, misc]
        def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
            sock = super()._get_socket(host, port, min(timeout, deadline.remaining()))
            deadline.watch(sock)
            return sock

    return _Bounded


def send_message(
    msg: EmailMessage,
    settings: SMTPSettings,
    *,
    bcc: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> list[str]:
    """Send ``msg`` to its To and Cc recipients and ``bcc``; return the recipients.

    The whole exchange must end within ``settings.timeout`` seconds.

    Raises
    ------
    MailError
        Anything the server or the network refused, with what to do; the message may
        have reached no one (or, when only some recipients were refused, the others:
        the message says which).
    """
    deadline = _Deadline(settings.timeout)
    try:
        return _send_message(msg, settings, deadline, bcc=bcc, progress=progress)
    except MailError as exc:
        if not deadline.expired:
            raise
        if "may or may not" in exc.message:
            raise MailError(
                f"{exc.message} (the --timeout of {settings.timeout:g} s ran out)",
                location=exc.location,
                hint=exc.hint,
            ) from None
        raise MailError(
            f"no answer within {settings.timeout:g} s (the whole exchange with the server "
            "must end within --timeout)",
            location=Location(settings.where),
            hint="check the host and port, or raise --timeout",
        ) from None
    finally:
        deadline.cancel()


def _send_message(
    msg: EmailMessage,
    settings: SMTPSettings,
    deadline: _Deadline,
    *,
    bcc: Sequence[str],
    progress: Callable[[str], None] | None,
) -> list[str]:
    from email.policy import SMTP

    say = progress or (lambda message: None)
    recipients = [
        a.addr_spec
        for key in ("To", "Cc")
        for a in (msg[key].addresses if msg[key] is not None else ())
    ]
    hidden = [parse_address(a, option="--bcc").addr_spec for a in bcc]
    recipients += hidden

    def shown(addr: str) -> str:  # a Bcc address is never printed
        return "a Bcc recipient" if addr in hidden else addr

    sender = msg["From"].addresses[0].addr_spec
    phase = "connect"
    data = msg.as_bytes(policy=SMTP)
    where = Location(settings.where)
    try:
        context = ssl.create_default_context(cafile=settings.cafile)
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise MailError(
            f"--cafile is not a readable PEM file of CA certificates "
            f"({getattr(exc, 'reason', None) or exc})",
            location=Location(str(settings.cafile)),
            hint="give a PEM bundle (-----BEGIN CERTIFICATE-----), e.g. the "
            "one your system trusts, or leave --cafile out",
        ) from None
    try:
        say(f"connecting to {settings.where} ({settings.security})")
        if settings.security == "ssl":
            server: smtplib.SMTP = _with_deadline(smtplib.SMTP_SSL, deadline)(
                settings.host,
                settings.port,
                timeout=settings.timeout,
                context=_BoundedContext(context, deadline),  # type: ignore[arg-type]
            )
        else:
            server = _with_deadline(smtplib.SMTP, deadline)(
                settings.host, settings.port, timeout=settings.timeout
            )
        with server:
            server.ehlo()
            if settings.security == "starttls":
                if not server.has_extn("starttls"):
                    raise MailError(
                        "the server does not offer STARTTLS",
                        location=where,
                        hint="use --ssl if it expects TLS from the start "
                        "(often port 465), or check the port",
                    )
                server.starttls(context=_BoundedContext(context, deadline))  # type: ignore[arg-type]
                server.ehlo()
            if settings.user is not None:
                if settings.security == "none":
                    raise MailError(
                        "refusing to send the SMTP password over an unencrypted connection",
                        location=where,
                        hint="add --starttls or --ssl (or unset "
                        f"{ENV_USER}/{ENV_PASSWORD} for a relay that "
                        "needs no login)",
                    )
                if not server.has_extn("auth"):
                    raise MailError(
                        "the server does not offer AUTH, but credentials are "
                        f"set ({settings.credentials_from})",
                        location=where,
                        hint="unset them for a relay that needs no login, or "
                        "check the host and port",
                    )
                say(f"logging in as {settings.user}")
                server.login(settings.user, settings.password or "")
            limit = server.esmtp_features.get("size", "").strip()
            if limit.isdigit() and int(limit) and len(data) > int(limit):
                raise MailError(
                    f"the message is {len(data):,} bytes and the server "
                    f"accepts at most {int(limit):,}",
                    location=where,
                    hint="pass --no-attach to send the summary only, or make "
                    "the report smaller (--format html)",
                )
            say(f"sending {len(data):,} bytes to {len(recipients)} recipient(s)")
            # smtplib's sendmail, step by step, to know whether DATA had begun when a
            # connection drops (then the message may have been delivered)
            phase = "envelope"
            options = [f"size={len(data)}"] if server.has_extn("size") else []
            code, reply = server.mail(sender, options)
            if code != 250:
                raise smtplib.SMTPSenderRefused(code, reply, sender)
            refused: dict[str, tuple[int, bytes]] = {}
            for addr in recipients:
                code, reply = server.rcpt(addr)
                if code not in (250, 251):
                    refused[addr] = (code, reply)
            if len(refused) == len(recipients):
                raise smtplib.SMTPRecipientsRefused(refused)
            phase = "data"
            code, reply = server.data(data)
            if code != 250:
                raise smtplib.SMTPDataError(code, reply)
            phase = "done"
    except MailError:
        raise
    except smtplib.SMTPAuthenticationError as exc:
        raise MailError(
            f"the server rejected the credentials ({_reply(exc)})",
            location=where,
            hint=f"check the credentials in {settings.credentials_from}",
        ) from None
    except smtplib.SMTPRecipientsRefused as exc:
        if all(code == 530 for code, _ in exc.recipients.values()):
            raise _auth_required(
                exc.recipients[next(iter(exc.recipients))], settings, where
            ) from None
        detail = "; ".join(
            f"{shown(addr)}: {_reply_of(*reply)}" for addr, reply in exc.recipients.items()
        )
        raise MailError(
            f"every recipient was refused ({detail})",
            location=where,
            hint="check the addresses, or whether this server relays to them",
        ) from None
    except smtplib.SMTPSenderRefused as exc:
        if exc.smtp_code == 530:
            raise _auth_required((exc.smtp_code, exc.smtp_error), settings, where) from None
        raise MailError(
            f"the sender {exc.sender!r} was refused ({_reply(exc)})",
            location=where,
            hint="use a --from address this server accepts",
        ) from None
    except smtplib.SMTPDataError as exc:
        raise MailError(
            f"the server refused the message ({_reply(exc)})",
            location=where,
            hint="a size limit? try --no-attach",
        ) from None
    except smtplib.SMTPNotSupportedError as exc:
        raise MailError(
            f"the server does not support a required command ({exc})",
            location=where,
            hint="check --starttls/--ssl and the port",
        ) from None
    except smtplib.SMTPServerDisconnected as exc:
        if phase == "data":
            raise MailError(
                "the connection dropped while the message was being "
                f"transferred ({exc or 'no reason given'}): it may or may not "
                "have been delivered",
                location=where,
                hint="ask a recipient before sending again (a second send may deliver it twice)",
            ) from None
        if "timed out" in str(exc):  # smtplib reports a read timeout this way
            raise MailError(
                f"no answer within {settings.timeout:g} s",
                location=where,
                hint="check the host and port, or raise --timeout",
            ) from None
        raise MailError(
            f"the server closed the connection ({exc or 'no reason given'})",
            location=where,
            hint="check the port and --starttls/--ssl (a TLS port spoken to "
            "in plain text often just hangs up)",
        ) from None
    except smtplib.SMTPResponseException as exc:
        raise MailError(
            f"the server answered with an error ({_reply(exc)})",
            location=where,
            hint="see the server's reply above",
        ) from None
    except smtplib.SMTPException as exc:
        raise MailError(
            f"SMTP failed ({exc})", location=where, hint="check the server settings"
        ) from None
    except ssl.SSLCertVerificationError as exc:
        raise MailError(
            f"the server's TLS certificate could not be verified "
            f"({exc.verify_message or exc.reason})",
            location=where,
            hint="pass --cafile FILE with the CA that signed it (never disable verification)",
        ) from None
    except ssl.SSLError as exc:
        raise MailError(
            f"the TLS handshake failed ({exc.reason or exc})",
            location=where,
            hint="check --starttls/--ssl against what the port expects",
        ) from None
    except socket.gaierror as exc:
        raise MailError(
            f"unknown SMTP host {settings.host!r} ({exc.strerror})",
            location=where,
            hint="check --smtp-host",
        ) from None
    except TimeoutError:
        raise MailError(
            f"no answer within {settings.timeout:g} s",
            location=where,
            hint="check the host and port, or raise --timeout",
        ) from None
    except ConnectionRefusedError:
        raise MailError(
            "the connection was refused (nothing listens there)",
            location=where,
            hint="check --smtp-host and --smtp-port",
        ) from None
    except OSError as exc:
        raise MailError(
            f"cannot reach the server ({exc.strerror or exc})",
            location=where,
            hint="check the host, the port and the network",
        ) from None
    if refused:
        detail = "; ".join(f"{shown(addr)}: {_reply_of(*reply)}" for addr, reply in refused.items())
        delivered = [shown(r) for r in recipients if r not in refused]
        raise MailError(
            f"sent to {', '.join(delivered)}, but refused for {detail}",
            location=where,
            hint="fix those addresses and send to them alone",
        )
    return recipients


def _auth_required(
    reply: tuple[int, bytes | str], settings: SMTPSettings, where: Location
) -> MailError:
    """A 530 reply: the server wants a login (RFC 4954), not a different sender."""
    how = (
        "the credentials were not used: log in needs --starttls or --ssl"
        if settings.user is not None and settings.security == "none"
        else f"set {ENV_USER} and {ENV_PASSWORD}, or a netrc entry for the host, and use "
        "--starttls or --ssl"
    )
    return MailError(
        f"the server requires authentication ({_reply_of(*reply)})", location=where, hint=how
    )


def _reply_of(code: int, message: bytes | str) -> str:
    text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
    return f"{code} {text}".strip()


def _reply(exc: smtplib.SMTPResponseException) -> str:
    return _reply_of(exc.smtp_code, exc.smtp_error)

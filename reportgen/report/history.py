"""Follow a model across releases: the trend report of ``reportgen history``.

The input is a set of archived report folders (one per release, as ``reportgen run``
writes them). This module does the report folders' I/O and renders: it reads each
folder (its results.json through :attr:`ReportFolder.ledger`, the typed reader), puts
the releases in order, finds the per-item data each manifest names and checks its
SHA-256 before loading it, and renders the history the analysis made of them
(:func:`reportgen.analysis.history.analyse_history`: the followed system's means, the
change between consecutive releases with its test, adjusted p-value, the interval it is
read off, its verdict and its sentence, decided there once).
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen import format as fmt
from reportgen.analysis.history import (
    RECOMPUTE,
    Change,
    Release,
    ReleaseHistory,
    TrendPoint,
    analyse_history,
    follow_map,
    followed_system,
)
from reportgen.analysis.history.words import (
    DECISION_RULE,
    METHOD_TEXT,
    edited_line,
    interval_lines,
)
from reportgen.charts.render import inline_data
from reportgen.errors import InputError, Location, ReportgenError
from reportgen.report.folder.reader import ReportFolder, read_report_folder
from reportgen.report.folder.verify import verify_release
from reportgen.report.render.html import (
    Col,
    HTMLBlock,
    charts_row,
    count_cell,
    escape,
    figure,
    note,
    p_cell,
    section,
    table,
)

if TYPE_CHECKING:
    from reportgen.data import ScoreTable

__all__ = [
    "ORDERS",
    "RECOMPUTE",
    "History",
    "build_entries",
    "build_history",
    "changes",
    "methods",
    "overview",
    "prepare",
    "trends",
    "write_outputs",
]

ORDERS = ("auto", "release", "created", "given")
_VERDICT_CSS = {
    "improved": "improved",
    "regressed": "regressed",
    "no detectable difference": "neutral",
    # a release with a margin decides these (the history shows its verdict as it is)
    "non-inferior": "improved",
    "inconclusive": "neutral",
}


@dataclass(frozen=True, eq=False)
class History:
    """The history the analysis made (:class:`ReleaseHistory`) with what the trend
    report needs to show it: its title, theme and where its files go."""

    analysis: ReleaseHistory
    title: str = "Release history"
    theme: Any = "default"
    output_dir: Path = Path(".")

    @property
    def entries(self) -> tuple[Release, ...]:
        return self.analysis.releases

    @property
    def order(self) -> str:
        return self.analysis.order

    @property
    def trend(self) -> tuple[TrendPoint, ...]:
        return self.analysis.trend

    @property
    def changes(self) -> tuple[Change, ...]:
        return self.analysis.changes

    @property
    def references(self) -> tuple[str, ...]:
        return self.analysis.references

    @property
    def notes(self) -> tuple[str, ...]:
        return self.analysis.notes

    @property
    def lists(self) -> list[tuple[str, str]]:
        return self.analysis.lists

    def to_results(self) -> dict[str, Any]:
        """The ``history.json`` document (:meth:`ReleaseHistory.to_dict`)."""
        return self.analysis.to_dict(title=self.title)


# ---------------------------------------------------------------------- the folders


def _natural_key(text: str) -> tuple[Any, ...]:
    """``v2`` < ``v9.1`` < ``v10``: digits compare as numbers.

    >>> sorted(["v10", "v2", "v9.1"], key=_natural_key)
    ['v2', 'v9.1', 'v10']
    """
    parts = re.split(r"(\d+)", text.lower())
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p != "")


def _edited(folder: ReportFolder, label: str, *, allow_edited: bool) -> str | None:
    """Why the folder's results.json is not what reportgen wrote (its digest differs from
    the one its manifest sealed, or it cannot be checked), or None. Such a release is an
    error unless ``allow_edited``; then the reason travels with the release and every
    output warns on its steps.

    Raises
    ------
    InputError
        An edited or unverifiable release without ``allow_edited``.
    """
    verified = verify_release(folder)
    if not verified.edited:
        return None
    if not allow_edited:
        raise InputError(
            f"release {label!r} cannot be trusted: {verified.reason}",
            location=Location(str(folder.path)),
            hint=f"`reportgen verify {folder.path}` says what changed; make the report "
            "again, or pass --allow-edited to show it anyway, marked as edited on its steps",
        )
    return verified.reason


def _read_folders(paths: Sequence[str | Path]) -> list[ReportFolder]:
    if len(paths) < 2:
        raise InputError(
            "a history needs at least two report folders",
            hint="pass the report folders of two or more releases",
        )
    seen: dict[Path, str] = {}
    folders = []
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in seen:
            raise InputError(
                "the same report folder is given twice",
                location=Location(str(path)),
                hint="give each once",
            )
        seen[resolved] = str(path)
        folders.append(read_report_folder(path))
    return folders


def _releases(
    paths: Sequence[str | Path], *, order: str, follow: Sequence[str], allow_edited: bool = False
) -> tuple[list[tuple[Release, ReportFolder]], str]:
    if order not in ORDERS:
        raise InputError(
            f"unknown order {order!r}",
            location=Location("--order"),
            hint=f"one of {', '.join(ORDERS)}",
        )
    folders = _read_folders(paths)
    default, per_label = follow_map(follow)
    read: list[tuple[Release, ReportFolder]] = []
    for folder in folders:
        ledger = folder.ledger
        label = folder.release or folder.path.resolve().name
        system, why = followed_system(ledger, label, default, per_label, where=str(folder.path))
        edited = _edited(folder, label, allow_edited=allow_edited)
        release = Release(label, ledger.meta.created, system, why, ledger, folder.path, edited)
        read.append((release, folder))
    labels: dict[str, Release] = {}
    for release, _ in read:
        if release.label in labels:
            raise InputError(
                f"two reports have the release label {release.label!r}",
                location=Location(str(release.path)),
                hint=f"the other is {labels[release.label].path}; pass one report per release",
            )
        labels[release.label] = release
    unknown = sorted(set(per_label) - set(labels))
    if unknown:
        raise InputError(
            f"--system names {'a release' if len(unknown) == 1 else 'releases'} not among "
            f"the reports: {', '.join(unknown)}",
            location=Location("--system"),
            hint=f"the releases: {', '.join(labels)}",
        )
    used = order
    if order == "auto":
        used = "release" if all(f.release is not None for f in folders) else "created"
    if used == "release":
        read.sort(key=lambda r: (_natural_key(r[0].label), r[0].created))
    elif used == "created":
        read.sort(key=lambda r: (r[0].created, _natural_key(r[0].label)))
    return read, used


def build_entries(
    paths: Sequence[str | Path],
    *,
    order: str = "auto",
    follow: Sequence[str] = (),
    allow_edited: bool = False,
) -> tuple[list[Release], str]:
    """Read the report folders, choose the followed system of each and order them.

    Parameters
    ----------
    paths
        Report folders (each with its ``results.json``).
    order
        ``"release"``: natural order of the release labels (``v2`` < ``v10``);
        ``"created"``: when the reports were made; ``"given"``: as listed;
        ``"auto"``: by release label when every report has one, else by date.
    follow
        ``NAME`` (the same system in every report) and/or ``RELEASE=NAME`` items.
    allow_edited
        Keep a release whose results.json is not the one its manifest sealed (edited
        afterwards, or unverifiable), marked on its release (``Release.edited``); without
        it such a release is an error.

    Returns
    -------
    releases, order
        The releases in order (:class:`reportgen.analysis.history.Release`) and the
        order actually used.

    Raises
    ------
    InputError
        Fewer than two reports, one given twice, two with the same release label, an
        unknown order, a followed system that cannot be told, or (without
        ``allow_edited``) a release whose results were edited or cannot be verified.
    """
    read, used = _releases(paths, order=order, follow=follow, allow_edited=allow_edited)
    return [release for release, _ in read], used


class _ItemData:
    """The per-item data of each release, found where its manifest says, checked
    against the manifest's SHA-256 and loaded once; else why not."""

    def __init__(self, folders: Mapping[str, ReportFolder]) -> None:
        self._folders = folders

    def __call__(self, release: Release) -> ScoreTable | str:
        from reportgen.data import LoadOptions, load
        from reportgen.report.folder.archive import file_sha256

        manifest = self._folders[release.label].manifest
        if not manifest or not isinstance(manifest.get("inputs"), list):
            return "no manifest.json, so no per-item data"
        if not all(
            isinstance(s, dict) and all(isinstance(f, dict) for f in s.get("files") or ())
            for s in manifest["inputs"]
        ):  # an edited manifest (`inputs` as a list of paths): its digests are unknown
            return "its manifest does not list its inputs as reportgen does"
        paths: list[str] = []
        for source in manifest["inputs"]:
            resolved = source.get("resolved") or [
                p.strip() for p in str(source.get("path", "")).split(", ")
            ]
            paths.extend(str(p) for p in resolved if p)
            for f in source.get("files") or ():
                candidates = [f.get("resolved"), f.get("path")]
                found = next((Path(c) for c in candidates if c and Path(c).is_file()), None)
                if found is None:
                    return f"input {f.get('path')} is gone"
                if file_sha256(found) != f.get("sha256"):
                    return f"input {f.get('path')} has changed since"
        if not paths or not all(Path(p).exists() for p in paths):
            return "its inputs are not where the manifest says"
        parameters = manifest.get("parameters") or {}
        config = parameters.get("config_resolved") or parameters.get("config")
        if config and not Path(config).is_file():
            config = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return load(
                    paths,
                    options=LoadOptions(**dict(parameters.get("load_options") or {})),
                    config=config,
                )
        except (ReportgenError, TypeError) as exc:
            return f"its inputs no longer load ({exc})"


def build_history(
    paths: Sequence[str | Path],
    *,
    order: str = "auto",
    follow: Sequence[str] = (),
    references: Sequence[str] = (),
    recompute: str = "auto",
    title: str = "Release history",
    theme: Any = "default",
    output_dir: str | Path = ".",
    allow_edited: bool = False,
) -> History:
    """Read archived reports and have the analysis test the changes between
    consecutive releases (:func:`reportgen.analysis.history.analyse_history`).

    Parameters
    ----------
    paths
        Report folders, one per release.
    order, follow
        See :func:`build_entries`.
    references
        Other systems to draw in the trend charts (e.g. a fixed competitor), from the
        reports that have them.
    recompute
        ``"auto"``: stored tests first, then per-item data, then intervals;
        ``"always"``: per-item data even when a stored test exists (then intervals);
        ``"never"``: stored tests, else intervals.
    title, theme, output_dir
        Of the trend report.
    allow_edited
        See :func:`build_entries`: an edited release is kept and every output warns on
        its steps.

    Raises
    ------
    InputError
        See :func:`build_entries`; also an unknown ``recompute``, or no dataset × metric
        of the followed systems common to two releases.
    """
    read, used = _releases(paths, order=order, follow=follow, allow_edited=allow_edited)
    analysed = analyse_history(
        [release for release, _ in read],
        order=used,
        references=references,
        recompute=recompute,  # type: ignore[arg-type]  # checked there
        tables=_ItemData({release.label: folder for release, folder in read}),
    )
    return History(analysed, title, theme, Path(output_dir))


# ---------------------------------------------------------------------- the sections


def prepare(
    reports: Sequence[str],
    *,
    order: str = "auto",
    follow: Sequence[str] = (),
    references: Sequence[str] = (),
    recompute: str = "auto",
    title: str = "Release history",
    theme: str = "default",
    output_dir: str = ".",
    allow_edited: bool = False,
) -> History:
    """The notebook's first step: load the theme and build the history."""
    from reportgen.charts.render import load_theme

    theme_obj = load_theme(theme)
    return build_history(
        reports,
        order=order,
        follow=follow,
        references=references,
        recompute=recompute,
        title=title,
        theme=theme_obj,
        output_dir=output_dir,
        allow_edited=allow_edited,
    )


def _warnings(history: History) -> list[str]:
    """The warning block of the releases whose results.json was edited, or nothing."""
    lines = [edited_line(r) for r in history.analysis.edited]
    if not lines:
        return []
    return ['<div class="rg-warning">' + "".join(f"<p>{s.html()}</p>" for s in lines) + "</div>"]


def overview(history: History) -> HTMLBlock | None:
    """The releases in order with the followed system, and the flagged changes."""
    flagged = history.analysis.flagged
    order_text = {"release": "by release label", "created": "by report date", "given": "as given"}[
        history.order
    ]
    body = [
        f"<p>{len(history.entries)} releases, ordered {order_text}: "
        f"{escape(' → '.join(e.label for e in history.entries))}. "
        f"{len(history.changes)} dataset × metric changes between consecutive "
        f"releases tested; <strong>{len(flagged)} significant</strong>.</p>",
        *_warnings(history),
    ]
    rows = [
        {
            "label": e.label,
            "created": e.created[:19].replace("T", " "),
            "system": e.system,
            "why": e.followed_because,
            "path": str(e.path),
        }
        for e in history.entries
    ]
    body.append(
        table(
            rows,
            [
                Col("label", "release"),
                Col("created", "report made"),
                Col("system", "system followed"),
                Col("why", "because"),
                Col("path", "report folder"),
            ],
        )
    )
    steps = history.analysis.steps()
    shown = ["improved", "regressed", "non-inferior", "inconclusive", "no detectable difference"]
    # the verdicts of a margin appear only when a release decided some
    shown = [
        v
        for v in shown
        if v not in ("non-inferior", "inconclusive") or any(s.count(v) for s in steps)
    ]
    step_rows = [
        {
            "step": s.step + (" (edited)" if s.edited else ""),
            "tested": s.tested,
            **{v: s.count(v) for v in shown},
            "how": ", ".join(s.methods),
        }
        for s in steps
    ]
    columns = [
        Col("step", "releases"),
        Col("tested", "tested", count_cell, True),
        *(Col(v, v, count_cell, True) for v in shown),
        Col("how", "tests from"),
    ]
    body.append(table(step_rows, columns))
    if flagged:
        items = [
            f'<li class="{_VERDICT_CSS[c.verdict]}-item">{c.sentence().html()}</li>'
            for c in flagged
        ]
        body.append(
            '<h3 id="flagged-changes">Significant changes</h3>'
            '<ul class="rg-claims">' + "".join(items) + "</ul>"
        )
    else:
        body.append(note("No change between consecutive releases is significant."))
    return section("Releases", body, sid="releases")


def trend_chart(history: History, dataset: str, metric: str) -> Any:
    """Mean with its interval per release for one dataset × metric; flagged changes
    coloured by verdict."""
    import altair as alt

    from reportgen.charts.release import VERDICT_COLOURS

    positions = {e.label: k for k, e in enumerate(history.entries)}
    points = [p for p in history.trend if (p.dataset, p.metric) == (dataset, metric)]
    verdict_of = {
        c.to_release: c.verdict
        for c in history.changes
        if (c.dataset, c.metric) == (dataset, metric)
    }
    proportion = bool(points and points[-1].proportion)
    scale = 100.0 if proportion else 1.0  # proportions in percent, as in the tables
    data = [
        {
            **p.to_dict(),
            **{
                k: None if getattr(p, k) is None else scale * float(getattr(p, k))
                for k in ("mean", "ci_low", "ci_high")
            },
            "verdict": verdict_of.get(p.release, "first release")
            if p.role == "followed"
            else "reference",
            "label": p.release,
        }
        for p in points
    ]
    domain = list(dict.fromkeys([d["verdict"] for d in data]))
    colours = {**VERDICT_COLOURS, "first release": "#4c78a8", "reference": "#bbbbbb"}
    labels = sorted(positions, key=lambda label: positions[label])
    x = alt.X("label:N", sort=labels, title="release", axis=alt.Axis(labelAngle=0))
    base = alt.Chart(inline_data(data)).encode(x=x)
    followed = base.transform_filter(alt.datum.role == "followed")
    line = followed.mark_line(color="#4c78a8", strokeWidth=1.5).encode(
        y=alt.Y(
            "mean:Q", title=f"{metric} (%)" if proportion else metric, scale=alt.Scale(zero=False)
        )
    )
    rule = base.mark_rule(strokeWidth=2).encode(
        y=alt.Y("ci_low:Q"),
        y2=alt.Y2("ci_high:Q"),
        color=alt.Color(
            "verdict:N",
            title="change",
            scale=alt.Scale(domain=domain, range=[colours.get(v, "#888888") for v in domain]),
        ),
        detail=alt.Detail("system:N"),
    )
    shape = alt.Shape("role:N", title=None) if history.references else alt.Undefined
    point = base.mark_point(filled=True, size=70).encode(
        y=alt.Y("mean:Q"),
        color=alt.Color("verdict:N"),
        shape=shape,
        tooltip=[
            alt.Tooltip("release:N"),
            alt.Tooltip("system:N"),
            alt.Tooltip("mean:Q", format=".4g"),
            alt.Tooltip("ci_low:Q", format=".4g"),
            alt.Tooltip("ci_high:Q", format=".4g"),
            alt.Tooltip("verdict:N"),
        ],
    )
    better = "higher is better" if points and points[0].direction == "higher" else "lower is better"
    return alt.layer(line, rule, point).properties(
        width=max(260, 70 * len(labels)),
        height=200,
        title=alt.Title(
            f"Mean and {_conf(points)} interval per release ({better})",
            subtitle="colour: the change from the release before",
            fontSize=12,
        ),
    )


def _conf(points: Sequence[TrendPoint]) -> str:
    values = {float(p.confidence) for p in points if p.confidence}
    return f"{values.pop():.0%}" if len(values) == 1 else "confidence"


def trends(history: History) -> HTMLBlock | None:
    """One chart and table per dataset × metric: the followed system's mean per
    release, and each change with its test."""
    body = []
    for dataset, metric in history.lists:
        points = [
            p
            for p in history.trend
            if (p.dataset, p.metric) == (dataset, metric) and p.role == "followed"
        ]
        if not points:
            continue
        sid = re.sub(r"[^a-z0-9]+", "-", f"trend-{dataset}-{metric}".lower()).strip("-")
        body.append(f'<h3 id="{escape(sid)}">{escape(dataset)} / {escape(metric)}</h3>')
        try:
            body.append(
                charts_row(
                    figure(
                        trend_chart(history, dataset, metric),
                        "Mean per release with its interval.",
                        theme=history.theme,
                    )
                )
            )
        except ReportgenError as exc:
            body.append(note(f"Chart not drawn: {escape(exc)}"))
        change_of = {
            c.to_release: c for c in history.changes if (c.dataset, c.metric) == (dataset, metric)
        }
        table_rows = []
        for p in points:
            c = change_of.get(p.release)
            prop = p.proportion if c is None else c.proportion
            table_rows.append(
                {
                    "release": p.release,
                    "system": p.system,
                    "n": p.n,
                    "mean": fmt.value(p.mean, proportion=prop),
                    "ci": fmt.interval(p.ci_low, p.ci_high, proportion=prop),
                    "diff": "" if c is None else fmt.difference(c.diff, proportion=prop),
                    "p_adjusted": None if c is None else c.p_adjusted,
                    "verdict": "" if c is None else c.verdict,
                    "method": "" if c is None else c.method,
                }
            )
        body.append(
            table(
                table_rows,
                [
                    Col("release", "release"),
                    Col("system", "system"),
                    Col("mean", "mean", escape, True),
                    Col("ci", "interval", escape, True),
                    Col("n", "n", count_cell, True),
                    Col("diff", "Δ from before", escape, True),
                    Col("p_adjusted", "p adj.", p_cell, True),
                    Col(
                        "verdict",
                        "change",
                        escape,
                        css=lambda row: _VERDICT_CSS.get(str(row.get("verdict")), ""),
                    ),
                    Col("method", "test from"),
                ],
            )
        )
    return section("Trends", body, sid="trends")


def changes(history: History) -> HTMLBlock | None:
    """Every tested change between consecutive releases, with the interval its
    decision is read off, a verdict at a margin with its one-sided bound (what each
    is, and the margins, in the note below the table)."""
    if not history.changes:
        return None
    rows = [
        {
            "step": c.step + (" (edited)" if c.edited else ""),
            "dataset": c.dataset,
            "metric": c.metric,
            "before": fmt.value(c.mean_before, proportion=c.proportion),
            "after": fmt.value(c.mean_after, proportion=c.proportion),
            "delta": fmt.difference(c.diff, proportion=c.proportion),
            "ci": c.decided.text(proportion=c.proportion),
            "p_adjusted": c.p_adjusted,
            "verdict": c.verdict,
            # a verdict at a margin with the one-sided bound it is read off
            "change": c.verdict
            + (f" ({c.read_off.text(proportion=c.proportion)})" if c.at_margin else ""),
            "test": c.test,
            "method": c.method,
        }
        for c in history.changes
    ]
    labels = {c.decided.short_label() for c in history.changes}
    columns = [
        Col("step", "releases"),
        Col("dataset", "dataset"),
        Col("metric", "metric"),
        Col("before", "before", escape, True),
        Col("after", "after", escape, True),
        Col("delta", "Δ", escape, True),
        Col("ci", labels.pop() if len(labels) == 1 else "interval", escape, True),
        Col("p_adjusted", "p adj.", p_cell, True),
        Col("change", "change", escape, css=lambda row: _VERDICT_CSS.get(row["verdict"], "")),
    ]
    # a test or a source shared by every change is said once, in the note
    tests = sorted({c.test for c in history.changes})
    methods = sorted({c.method for c in history.changes})
    if len(tests) > 1:
        columns.append(Col("test", "test"))
    if len(methods) > 1:
        columns.append(Col("method", "from"))
    shared = [*tests[: len(tests) == 1], *methods[: len(methods) == 1]]
    body = [
        *_warnings(history),
        table(rows, columns),
        note(
            ("" if not shared else f"Every change: {escape(', '.join(shared))}. ")
            + "What each change's verdict is read off: "
            + escape("; ".join(interval_lines(history.analysis)))
            + "."
        ),
    ]
    return section("Changes between consecutive releases", body, sid="changes")


def methods(history: History) -> HTMLBlock | None:
    """How each change was tested, and the notes."""
    counts: dict[str, int] = {}
    for c in history.changes:
        counts[c.method] = counts.get(c.method, 0) + 1
    items = [
        f"<li><strong>{escape(m)}</strong> ({n}): {escape(METHOD_TEXT[m])}.</li>"  # type: ignore[index]
        for m, n in counts.items()
    ]
    body = [f"<p>{escape(DECISION_RULE)}</p>", "<ul>" + "".join(items) + "</ul>"]
    if history.notes:
        body.append(
            '<h3 id="history-notes">Notes</h3><ul>'
            + "".join(f"<li>{escape(n)}</li>" for n in history.notes)
            + "</ul>"
        )
    return section("Methods", body, sid="methods")


def write_outputs(history: History) -> HTMLBlock:
    """Write ``history.json`` and ``tables/trend.csv``, ``tables/changes.csv``."""
    import pandas as pd

    from reportgen.jsonsafe import json_safe
    from reportgen.report.folder.output import write_csv, write_json_atomic

    out = history.output_dir
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "history.json", json_safe(history.to_results()))
    tables = out / "tables"
    tables.mkdir(exist_ok=True)
    write_csv(pd.DataFrame.from_records([p.to_dict() for p in history.trend]), tables / "trend.csv")
    write_csv(
        pd.DataFrame.from_records([c.to_dict() for c in history.changes]), tables / "changes.csv"
    )
    return HTMLBlock("", text="wrote history.json and tables/ (trend.csv, changes.csv)")


# ---------------------------------------------------------------------- the report folder


@dataclass(frozen=True)
class HistorySpec:
    """Everything one ``reportgen history`` needs."""

    reports: tuple[str, ...]
    out: str
    order: str = "auto"
    follow: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    recompute: str = "auto"
    title: str = "Release history"
    theme: str = "default"
    formats: tuple[str, ...] = ("html", "pdf", "ipynb")
    force: bool = False
    if_exists: str = "error"
    template: str = "history"
    kernel_name: str | None = None
    execution_timeout: int | None = None
    allow_edited: bool = False


@dataclass(frozen=True)
class HistoryResult:
    """What :func:`run_history` wrote: the folder, its files, the order used, the
    number of changes tested and flagged, the PDF's page count and the warnings of
    releases whose results.json was edited
    (:func:`reportgen.analysis.history.words.edited_line`)."""

    out: Path
    files: tuple[str, ...]
    order: tuple[str, ...]
    n_changes: int
    n_flagged: int
    pages: int | None
    timings: dict[str, float]
    warnings: tuple[str, ...] = ()


def _history_parameters(spec: HistorySpec, build: Path) -> dict[str, Any]:
    """The history notebook's parameters (paths as given: no private absolute path)."""
    from reportgen.report.pipeline import parameter_path

    return {
        "reports": [str(r) for r in spec.reports],
        "order": spec.order,
        "follow": list(spec.follow),
        "references": list(spec.references),
        "recompute": spec.recompute,
        "title": spec.title,
        "theme": spec.theme,
        "output_dir": parameter_path(build),
        "allow_edited": spec.allow_edited,
    }


def _history_record(
    spec: HistorySpec, template: Path, started: str, history: History, written: Any
) -> Any:
    """The manifest's record of a history report: the reports' results.json files are
    its inputs."""
    from reportgen import __version__
    from reportgen.report.pipeline import FolderRecord

    return FolderRecord(
        meta=[
            ("releases", " → ".join(e.label for e in history.entries)),
            ("reportgen", __version__),
        ],
        created=started,
        sources=[
            {"path": str(Path(r) / "results.json"), "format": "results.json", "rows": None}
            for r in spec.reports
        ],
        parameters={
            "reports": list(spec.reports),
            "order": spec.order,
            "follow": list(spec.follow),
            "references": list(spec.references),
            "recompute": spec.recompute,
            "title": spec.title,
            "theme": spec.theme,
            "formats": list(spec.formats),
            "template": str(template),
            "allow_edited": spec.allow_edited,
        },
        seed=None,
    )


def run_history(spec: HistorySpec, *, progress: Any = None) -> HistoryResult:
    """Make the trend report folder: ``report.html``, ``report.pdf``, ``report.ipynb``
    (as ``spec.formats`` chooses), ``history.json``, ``tables/trend.csv``,
    ``tables/changes.csv`` and ``manifest.json`` (the reports' results.json files are
    its inputs, with their SHA-256).

    Raises
    ------
    InputError
        Bad report folders or options, or an existing output folder (before the
        notebook runs).
    NotebookExecutionError
        A cell failed; the partial notebook is kept at ``<out>.failed.ipynb``.
    """
    import datetime as _dt
    import time

    from reportgen.charts.render import load_theme
    from reportgen.report.folder.archive import report_folder
    from reportgen.report.pipeline import (
        FORMATS,
        build_report_folder,
        output_folder,
        resolve_template,
    )

    say = progress or (lambda message: None)
    unknown = [f for f in spec.formats if f not in FORMATS]
    if unknown or not spec.formats:
        raise InputError(
            f"unknown report {'format' if len(unknown) == 1 else 'formats'}: "
            f"{', '.join(unknown) or '(none)'}",
            hint=f"use a comma-separated list of: {', '.join(FORMATS)}",
        )
    timings: dict[str, float] = {}
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    template = resolve_template(spec.template)
    theme = load_theme(spec.theme)
    tick = time.perf_counter()
    say(f"reading {len(spec.reports)} reports")
    checked = build_history(
        spec.reports,
        order=spec.order,
        follow=spec.follow,
        references=spec.references,
        recompute=spec.recompute,
        title=spec.title,
        theme=theme,
        allow_edited=spec.allow_edited,
    )  # bad input fails here
    timings["check"] = time.perf_counter() - tick
    say(
        f"order ({checked.order}): {' → '.join(e.label for e in checked.entries)}; "
        f"{len(checked.changes)} changes, "
        f"{len(checked.analysis.flagged)} significant"
    )
    out, replace = output_folder(spec.out, force=spec.force, if_exists=spec.if_exists, progress=say)

    with report_folder(
        out, force=replace, discard_edits=spec.if_exists == "replace-edited"
    ) as build:
        built = build_report_folder(
            build,
            out,
            template=template,
            parameters=functools.partial(_history_parameters, spec),
            document=("history.json", "reportgen.report.history.write_outputs(history)"),
            describe=functools.partial(_history_record, spec, template, started, checked),
            formats=spec.formats,
            title=spec.title,
            release=None,
            theme=theme,
            started=started,
            timings=timings,
            kernel_name=spec.kernel_name,
            execution_timeout=spec.execution_timeout,
            progress=say,
        )
    say(f"wrote {out}")
    # the notebook made the same history from the same files: its numbers are these
    return HistoryResult(
        out=out,
        files=built.files,
        order=tuple(e.label for e in checked.entries),
        n_changes=len(checked.changes),
        n_flagged=len(checked.analysis.flagged),
        pages=built.pages,
        timings=timings,
        warnings=tuple(edited_line(r).plain() for r in checked.analysis.edited),
    )

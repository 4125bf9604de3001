"""Follow a model across releases: the trend report of ``reportgen history``.

The input is a set of archived report folders (one per release, as ``reportgen run``
writes them). Each gives, per dataset × metric, the mean of the system it is about (the
*followed* system: the candidate of a release report, or the system named like the
release, or one named with ``--system``) with its confidence interval. The history puts
them in release order and tests the change between consecutive releases, taking the
first of these that applies to each dataset × metric:

1. **stored**: a report of either release already compared the two systems: a release
   report's verdict (of v2 against v1) is used as it is, with its family, margin,
   adjusted p-value and the interval it was read off, so the history says what the
   release said; else a stored comparison row, with its adjusted p-value and interval;
2. **recomputed**: the per-item data the two reports were made from are still where their
   manifests say, unchanged (same SHA-256): the two systems' item scores are compared
   again (paired on the items when both were scored on the same items, else unpaired),
   with the automatic test choice of the analysis; the p-values of one step are adjusted
   together (the later report's correction), with intervals that agree with those
   adjusted decisions;
3. **intervals**: otherwise, an approximate z test from the two stored intervals
   (standard errors from the half-widths; it ignores pairing, so it is conservative when
   the items are shared), adjusted the same way.

A change is *flagged* when its adjusted p-value is at most α (the later report's α).
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reportgen import format as fmt
from reportgen.analysis.history import (
    adjust_step,
    change_from_intervals,
    change_from_items,
)
from reportgen.charts.render import inline_data
from reportgen.errors import InputError, Location, ReportgenError
from reportgen.report.folder.reader import ReportFolder, read_report_folder
from reportgen.report.folder.verify import VerifiedRelease, verify_release
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

__all__ = [
    "ORDERS",
    "RECOMPUTE",
    "History",
    "HistoryEntry",
    "build_history",
    "changes",
    "methods",
    "overview",
    "prepare",
    "trends",
    "write_outputs",
]

ORDERS = ("auto", "release", "created", "given")
RECOMPUTE = ("auto", "always", "never")
_VERDICT_CSS = {
    "improved": "improved",
    "regressed": "regressed",
    "no detectable difference": "neutral",
    # a release with a margin decides these (the history shows its verdict as it is)
    "non-inferior": "improved",
    "inconclusive": "neutral",
}


@dataclass(frozen=True)
class HistoryEntry:
    """One archived report in the history.

    Attributes
    ----------
    folder
        The report folder.
    label
        Its release label (or the folder name when it has none).
    created
        When the report was made (ISO timestamp).
    system
        The system followed in this report.
    followed_because
        Why this system (``candidate``, ``release label``, ``--system``).
    verified
        Whether its results.json is the one its manifest sealed
        (:class:`~reportgen.report.folder.verify.VerifiedRelease`); an edited or
        unverifiable release is in a history only with ``allow_edited``, and every
        output marks its steps (:func:`edited_note`).
    """

    folder: ReportFolder
    label: str
    created: str
    system: str
    followed_because: str
    verified: VerifiedRelease | None = None

    @property
    def edited(self) -> str | None:
        """Why this release's results cannot be trusted as reportgen wrote them, or
        None."""
        return self.verified.reason if self.verified is not None and self.verified.edited else None


@dataclass
class History:
    """The entries in release order, the trend rows, the tested changes and notes."""

    entries: tuple[HistoryEntry, ...]
    order: str
    trend: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    references: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    title: str = "Release history"
    theme: Any = "default"
    output_dir: Path = Path(".")

    @property
    def lists(self) -> list[tuple[str, str]]:
        seen: dict[tuple[str, str], None] = {}
        for row in self.trend:
            seen.setdefault((row["dataset"], row["metric"]), None)
        return list(seen)

    def to_results(self) -> dict[str, Any]:
        """The ``history.json`` document."""
        from reportgen import __version__
        from reportgen.jsonsafe import HISTORY_FORMAT_VERSION

        return {
            "format_version": HISTORY_FORMAT_VERSION,
            "kind": "history",
            "reportgen_version": __version__,
            "title": self.title,
            "order": self.order,
            "reports": [
                {
                    "label": e.label,
                    "created": e.created,
                    "system": e.system,
                    "followed_because": e.followed_because,
                    "path": str(e.folder.path.resolve()),
                    "reportgen_version": e.folder.results.get("reportgen_version"),
                    "edited": e.edited,
                }
                for e in self.entries
            ],
            "references": list(self.references),
            "trend": self.trend,
            "changes": self.changes,
            "notes": self.notes,
        }


# ---------------------------------------------------------------------- the entries


def _natural_key(text: str) -> tuple[Any, ...]:
    """``v2`` < ``v9.1`` < ``v10``: digits compare as numbers."""
    parts = re.split(r"(\d+)", text.lower())
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p != "")


def _follow_map(follow: Sequence[str]) -> tuple[str | None, dict[str, str]]:
    default, per_label = None, {}
    for item in follow:
        label, sep, name = str(item).partition("=")
        if sep and label and name:
            per_label[label] = name
        elif sep:
            raise InputError(
                f"--system {item!r}: expected NAME or RELEASE=NAME",
                location=Location("--system"),
                hint="e.g. --system ours or --system v2=model-v2",
            )
        else:
            if default is not None:
                raise InputError(
                    "--system NAME is given twice",
                    location=Location("--system"),
                    hint="give one NAME for all reports, or RELEASE=NAME per release",
                )
            default = label
    return default, per_label


def _systems_of(folder: ReportFolder) -> list[str]:
    return [str(s) for s in ((folder.results.get("data") or {}).get("systems") or ())]


def _followed(
    folder: ReportFolder, label: str, default: str | None, per_label: Mapping[str, str]
) -> tuple[str, str]:
    systems = _systems_of(folder)
    where = Location(str(folder.path))
    name, why = None, ""
    if label in per_label:
        name, why = per_label[label], f"--system {label}={per_label[label]}"
    elif default is not None:
        name, why = default, "--system"
    else:
        verdict = folder.results.get("verdict")
        if isinstance(verdict, Mapping) and verdict.get("candidate"):
            name, why = str(verdict["candidate"]), "candidate of the release report"
        elif label in systems:
            name, why = label, "named like the release"
        elif len(systems) == 1:
            name, why = systems[0], "the only system"
    if name is None:
        raise InputError(
            f"cannot tell which system release {label!r} is about "
            f"({len(systems)} systems, no candidate, none named "
            f"{label!r})",
            location=where,
            hint=f"name it: --system NAME (same in every report) or --system {label}=NAME",
        )
    if name not in systems:
        raise InputError(
            f"system {name!r} is not in this report",
            location=where,
            hint=f"its systems: {', '.join(systems[:12])}" + (" …" if len(systems) > 12 else ""),
        )
    return name, why


def build_entries(
    paths: Sequence[str | Path],
    *,
    order: str = "auto",
    follow: Sequence[str] = (),
    allow_edited: bool = False,
) -> tuple[list[HistoryEntry], str]:
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
        afterwards, or unverifiable), marked on its entry (:attr:`HistoryEntry.verified`);
        without it such a release is an error.

    Returns
    -------
    entries, order
        The entries in order and the order actually used.

    Raises
    ------
    InputError
        Fewer than two reports, one given twice, two with the same release label, an
        unknown order, a followed system that cannot be told, or (without
        ``allow_edited``) a release whose results were edited or cannot be verified.
    """
    if order not in ORDERS:
        raise InputError(
            f"unknown order {order!r}",
            location=Location("--order"),
            hint=f"one of {', '.join(ORDERS)}",
        )
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
    default, per_label = _follow_map(follow)
    labelled = [f.release is not None for f in folders]
    entries = []
    for folder in folders:
        label = folder.release or folder.path.resolve().name
        system, why = _followed(folder, label, default, per_label)
        created = str(folder.results.get("created") or "")
        verified = verify_release(folder)
        if verified.edited and not allow_edited:
            raise InputError(
                f"release {label!r} cannot be trusted: {verified.reason}",
                location=Location(str(folder.path)),
                hint=f"`reportgen verify {folder.path}` says what changed; make the report "
                "again, or pass --allow-edited to show it anyway, marked as edited on "
                "its steps",
            )
        entries.append(HistoryEntry(folder, label, created, system, why, verified))
    labels: dict[str, HistoryEntry] = {}
    for entry in entries:
        if entry.label in labels:
            raise InputError(
                f"two reports have the release label {entry.label!r}",
                location=Location(str(entry.folder.path)),
                hint=f"the other is {labels[entry.label].folder.path}; pass one report per release",
            )
        labels[entry.label] = entry
    unknown = sorted(set(per_label) - set(labels))
    if unknown:
        raise InputError(
            f"--system names release(s) not among the reports: {', '.join(unknown)}",
            location=Location("--system"),
            hint=f"the releases: {', '.join(labels)}",
        )
    used = order
    if order == "auto":
        used = "release" if all(labelled) else "created"
    if used == "release":
        entries.sort(key=lambda e: (_natural_key(e.label), e.created))
    elif used == "created":
        entries.sort(key=lambda e: (e.created, _natural_key(e.label)))
    return entries, used


# ---------------------------------------------------------------------- the trend


def _direction(folder: ReportFolder, metric: str) -> str:
    metrics = (folder.results.get("config") or {}).get("metrics") or {}
    return str((metrics.get(metric) or {}).get("direction") or "higher")


def _modality(folder: ReportFolder, metric: str) -> str | None:
    metrics = (folder.results.get("config") or {}).get("metrics") or {}
    value = (metrics.get(metric) or {}).get("modality")
    return str(value) if value in ("binary", "continuous") else None


def _proportion(folder: ReportFolder, dataset: str, metric: str) -> bool:
    """Whether the scores of (dataset, metric) are proportions (shown in percent, their
    differences in points): the report's own flag, else a binary metric."""
    results = folder.results
    for row in [
        *(results.get("systems") or ()),
        *(results.get("comparisons") or ()),
        *((results.get("verdict") or {}).get("rows") or ()),
    ]:
        if row.get("dataset") == dataset and row.get("metric") == metric and "proportion" in row:
            return bool(row["proportion"])
    return _modality(folder, metric) == "binary"


def _system_rows(folder: ReportFolder, system: str) -> dict[tuple[str, str], dict[str, Any]]:
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for row in folder.results.get("systems") or ():
        if row.get("system") == system and not row.get("derived_from"):
            rows.setdefault((str(row["dataset"]), str(row["metric"])), row)
    return rows


def _trend_rows(entries: Sequence[HistoryEntry], references: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for k, entry in enumerate(entries):
        for role, name in [("followed", entry.system)] + [("reference", r) for r in references]:
            for (dataset, metric), row in _system_rows(entry.folder, name).items():
                out.append(
                    {
                        "release": entry.label,
                        "position": k + 1,
                        "role": role,
                        "system": name,
                        "dataset": dataset,
                        "metric": metric,
                        "direction": _direction(entry.folder, metric),
                        "mean": row.get("mean"),
                        "ci_low": row.get("ci_low"),
                        "ci_high": row.get("ci_high"),
                        "confidence": row.get("confidence"),
                        "ci_method": row.get("ci_method"),
                        "n": row.get("n"),
                        "runs": row.get("runs"),
                    }
                )
    return out


# ---------------------------------------------------------------------- the changes


def _stored(
    prev: HistoryEntry, cur: HistoryEntry, dataset: str, metric: str
) -> dict[str, Any] | None:
    """A comparison of the two systems on (dataset, metric) stored in either report: a
    release report's verdict first (its own family, margin and interval), else a
    stored comparison row."""
    pair = {prev.system, cur.system}
    if len(pair) < 2:
        return None
    for entry in (cur, prev):
        verdict = _release_verdict(entry, prev, cur, dataset, metric)
        if verdict is not None:
            return verdict
    for entry in (cur, prev):
        for row in entry.folder.results.get("comparisons") or ():
            if (
                row.get("dataset") == dataset
                and row.get("metric") == metric
                and {row.get("system_a"), row.get("system_b")} == pair
                and not row.get("derived_from")
                and row.get("p_adjusted") is not None
            ):
                flip = row.get("system_a") == prev.system  # diff = mean_a − mean_b
                sign = -1.0 if flip else 1.0
                # the interval that goes with the decision (older files: the marginal)
                lo = row.get("ci_adjusted_low", row.get("ci_low"))
                hi = row.get("ci_adjusted_high", row.get("ci_high"))
                if flip:
                    lo, hi = (None if hi is None else -hi), (None if lo is None else -lo)
                mean_a, mean_b = row.get("mean_a"), row.get("mean_b")
                return {
                    "method": "stored",
                    "test": row.get("test"),
                    "source": entry.label,
                    "mean_before": mean_b if not flip else mean_a,
                    "mean_after": mean_a if not flip else mean_b,
                    "diff": None if row.get("diff") is None else sign * row["diff"],
                    "ci_low": lo,
                    "ci_high": hi,
                    "confidence": row.get("confidence_adjusted", row.get("confidence")),
                    "p_value": row.get("p_value"),
                    "p_adjusted": row.get("p_adjusted"),
                    "correction": row.get("correction"),
                    "alpha": row.get("alpha"),
                    "paired": row.get("paired"),
                }
    return None


_FLIPPED_VERDICT = {"improved": "regressed", "regressed": "improved"}


def _release_verdict(
    entry: HistoryEntry, prev: HistoryEntry, cur: HistoryEntry, dataset: str, metric: str
) -> dict[str, Any] | None:
    """The verdict of a release report of ``entry`` on (dataset, metric) when it
    compared the two followed systems, oriented ``cur − prev``: the release's own
    verdict, p-values, margin and the interval it was read off."""
    verdict = entry.folder.results.get("verdict") or {}
    if {verdict.get("baseline"), verdict.get("candidate")} != {prev.system, cur.system}:
        return None
    for row in verdict.get("rows") or ():
        if row.get("dataset") != dataset or row.get("metric") != metric:
            continue
        flip = verdict.get("candidate") == prev.system  # rows are candidate − baseline
        sign = -1.0 if flip else 1.0
        if "ci_adjusted_low" in row:
            lo, hi, level = (
                row.get("ci_adjusted_low"),
                row.get("ci_adjusted_high"),
                row.get("confidence_adjusted"),
            )
        else:  # a report of before the adjusted fields held the verdict's interval here
            lo, hi, level = row.get("ci_low"), row.get("ci_high"), row.get("confidence")
        if flip:
            lo, hi = (None if hi is None else -hi), (None if lo is None else -lo)
        before, after = row.get("mean_baseline"), row.get("mean_candidate")
        name = str(row.get("verdict") or "")
        return {
            "method": "stored",
            "test": row.get("test"),
            "source": f"{entry.label} (release verdict)",
            "mean_before": after if flip else before,
            "mean_after": before if flip else after,
            "diff": None if row.get("diff") is None else sign * row["diff"],
            "ci_low": lo,
            "ci_high": hi,
            "confidence": level,
            "p_value": row.get("p_value"),
            "p_adjusted": row.get("p_adjusted"),
            "correction": row.get("correction"),
            "alpha": verdict.get("alpha"),
            "paired": None,
            "margin": row.get("margin"),
            "release_verdict": _FLIPPED_VERDICT.get(name, name) if flip else name,
        }
    return None


class _DataCache:
    """Per-item data of each report, reloaded once when it is still where its manifest
    says and unchanged."""

    def __init__(self) -> None:
        self._tables: dict[str, Any] = {}
        self.notes: dict[str, str] = {}

    def table(self, entry: HistoryEntry) -> Any | None:
        key = str(entry.folder.path.resolve())
        if key not in self._tables:
            self._tables[key] = self._load(entry)
        return self._tables[key]

    def _load(self, entry: HistoryEntry) -> Any | None:
        from reportgen.data import LoadOptions, load
        from reportgen.report.folder.archive import file_sha256

        manifest = entry.folder.manifest
        if not manifest or not isinstance(manifest.get("inputs"), list):
            self.notes[entry.label] = "no manifest.json, so no per-item data"
            return None
        paths: list[str] = []
        if not all(
            isinstance(s, dict) and all(isinstance(f, dict) for f in s.get("files") or ())
            for s in manifest["inputs"]
        ):  # an edited manifest (`inputs` as a list of paths): its digests are unknown
            self.notes[entry.label] = "its manifest does not list its inputs as reportgen does"
            return None
        for source in manifest["inputs"]:
            resolved = source.get("resolved") or [
                p.strip() for p in str(source.get("path", "")).split(", ")
            ]
            paths.extend(str(p) for p in resolved if p)
            for f in source.get("files") or ():
                candidates = [f.get("resolved"), f.get("path")]
                found = next((Path(c) for c in candidates if c and Path(c).is_file()), None)
                if found is None:
                    self.notes[entry.label] = f"input {f.get('path')} is gone"
                    return None
                if file_sha256(found) != f.get("sha256"):
                    self.notes[entry.label] = f"input {f.get('path')} has changed since"
                    return None
        if not paths or not all(Path(p).exists() for p in paths):
            self.notes[entry.label] = "its inputs are not where the manifest says"
            return None
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
            self.notes[entry.label] = f"its inputs no longer load ({exc})"
            return None


def _item_scores(
    table: Any, system: str, dataset: str, metric: str
) -> tuple[tuple[str, ...], np.ndarray] | None:
    if (
        table is None
        or (dataset, metric) not in set(table.pairs())
        or system not in table.systems_of(dataset, metric)
    ):
        return None
    samples = table.unpaired(dataset, metric, [system])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an item with no run: NaN
        scores = samples.item_means()[0]  # repeated runs: the item mean
    return samples.items[0], np.asarray(scores, dtype=float)


def _recompute(
    prev: HistoryEntry,
    cur: HistoryEntry,
    dataset: str,
    metric: str,
    cache: _DataCache,
    settings: Mapping[str, Any],
) -> dict[str, Any] | None:
    before = _item_scores(cache.table(prev), prev.system, dataset, metric)
    after = _item_scores(cache.table(cur), cur.system, dataset, metric)
    if before is None or after is None:
        return None
    return change_from_items(
        before,
        after,
        modality=_modality(cur.folder, metric),
        alpha=settings["alpha"],
        confidence=settings["confidence"],
        n_resamples=settings["n_resamples"],
        seed=int(settings["seed"]),
        key=(f"{prev.label}\0{cur.label}", dataset, metric),
    )


def _settings(entry: HistoryEntry) -> dict[str, Any]:
    config = entry.folder.results.get("config") or {}
    return {
        "alpha": float(config.get("alpha") or 0.05),
        "confidence": float(config.get("confidence") or 0.95),
        "correction": str(config.get("correction") or "holm-sidak"),
        "n_resamples": int(config.get("n_resamples") or 9999),
        "seed": int(entry.folder.results.get("seed") or 0),
    }


def _change_rows(
    entries: Sequence[HistoryEntry], recompute: str
) -> tuple[list[dict[str, Any]], list[str]]:
    if recompute not in RECOMPUTE:
        raise InputError(
            f"unknown recompute mode {recompute!r}",
            location=Location("--recompute"),
            hint=f"one of {', '.join(RECOMPUTE)}",
        )
    cache = _DataCache()
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    for prev, cur in zip(entries, entries[1:]):
        settings = _settings(cur)
        prev_rows, cur_rows = (
            _system_rows(prev.folder, prev.system),
            _system_rows(cur.folder, cur.system),
        )
        step: list[dict[str, Any]] = []
        for key in [k for k in cur_rows if k in prev_rows]:
            dataset, metric = key
            found = None if recompute == "always" else _stored(prev, cur, dataset, metric)
            if found is None and recompute != "never":
                found = _recompute(prev, cur, dataset, metric, cache, settings)
            if found is None:
                found = change_from_intervals(prev_rows[key], cur_rows[key])
            if found is None:
                notes.append(
                    f"{prev.label} → {cur.label}, {dataset} / {metric}: no test "
                    "(no stored comparison, no per-item data, no intervals)"
                )
                continue
            step.append(
                {
                    "from": prev.label,
                    "to": cur.label,
                    "system_before": prev.system,
                    "system_after": cur.system,
                    "dataset": dataset,
                    "metric": metric,
                    "direction": _direction(cur.folder, metric),
                    "proportion": _proportion(cur.folder, dataset, metric),
                    **found,
                }
            )
        fresh = [r for r in step if r["method"] != "stored"]
        if fresh:
            adjusted = adjust_step(fresh, settings["correction"], alpha=settings["alpha"])
            for r, (p, lo, hi, level) in zip(fresh, adjusted):
                r.update(
                    p_adjusted=p,
                    correction=settings["correction"],
                    alpha=settings["alpha"],
                    ci_low=lo,
                    ci_high=hi,
                    confidence=level,
                )
        for r in step:
            alpha = float(r.get("alpha") or settings["alpha"])
            r["alpha"] = alpha
            if r.get("release_verdict"):  # the release decided it: never re-decided here
                r["verdict"] = r.pop("release_verdict")
                r["significant"] = r["verdict"] in ("improved", "regressed")
                continue
            significant = r["p_adjusted"] is not None and float(r["p_adjusted"]) <= alpha
            better = (r["diff"] or 0) > 0 if r["direction"] == "higher" else (r["diff"] or 0) < 0
            r["significant"] = bool(significant)
            r["verdict"] = (
                ("improved" if better else "regressed")
                if significant
                else "no detectable difference"
            )
        rows.extend(step)
    for label, why in cache.notes.items():
        notes.append(f"{label}: not recomputed from per-item data ({why})")
    return rows, notes


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
    """Read archived reports and test the changes between consecutive releases.

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
        See :func:`build_entries`: an edited release is kept and every trend row and
        change of its steps carries ``edited`` (:func:`edited_note`).

    Raises
    ------
    InputError
        See :func:`build_entries`; also no dataset × metric of the followed systems
        common to two releases.
    """
    entries, used = build_entries(paths, order=order, follow=follow, allow_edited=allow_edited)
    trend = _trend_rows(entries, references)
    changes, notes = _change_rows(entries, recompute)
    _mark_edited(entries, trend, changes, notes)
    if not changes and not any(_system_rows(e.folder, e.system) for e in entries[1:]):
        raise InputError(
            "the followed systems share no dataset × metric",
            hint="check that the reports evaluate the same benchmarks",
        )
    notes = [f"{e.label}: follows {e.system} ({e.followed_because})" for e in entries] + notes
    return History(
        tuple(entries),
        used,
        trend,
        changes,
        tuple(references),
        notes,
        title,
        theme,
        Path(output_dir),
    )


def edited_note(entries: Sequence[HistoryEntry], *labels: str) -> str | None:
    """The warning for a step (or a release) touching an edited release, e.g. ``"v2
    edited: its results.json differs from ..."``, or None."""
    by_label = {e.label: e.edited for e in entries}
    notes = [f"{label} edited: {by_label[label]}" for label in labels if by_label.get(label)]
    return "; ".join(notes) or None


def _mark_edited(
    entries: Sequence[HistoryEntry],
    trend: list[dict[str, Any]],
    changes: list[dict[str, Any]],
    notes: list[str],
) -> None:
    """Carry each edited release (kept by ``allow_edited``) onto every row of its
    steps (``edited``: the warning, else None) and into the notes."""
    for row in trend:
        row["edited"] = edited_note(entries, row["release"])
    for row in changes:
        row["edited"] = edited_note(entries, row["from"], row["to"])
    notes[:0] = [
        f"{e.label}: shown although not as reportgen wrote it (--allow-edited): {e.edited}"
        for e in entries
        if e.edited
    ]


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


def overview(history: History) -> HTMLBlock | None:
    """The releases in order with the followed system, and the flagged changes."""
    flagged = [c for c in history.changes if c["significant"]]
    order_text = {"release": "by release label", "created": "by report date", "given": "as given"}[
        history.order
    ]
    body = [
        f"<p>{len(history.entries)} releases, ordered {order_text}: "
        f"{escape(' → '.join(e.label for e in history.entries))}. "
        f"{len(history.changes)} dataset × metric changes between consecutive "
        f"releases tested; <strong>{len(flagged)} significant</strong>.</p>"
    ]
    edited = [e for e in history.entries if e.edited]
    if edited:  # kept by --allow-edited: said first, and on each step below
        warned = "".join(
            f"<li><strong>{escape(e.label)}</strong> is not as reportgen wrote it: "
            f"{escape(e.edited)}; its steps are marked (edited).</li>"
            for e in edited
        )
        body.append(f'<div class="rg-warning rg-edited"><ul>{warned}</ul></div>')
    rows = [
        {
            "label": _step_label(history, e.label),
            "created": e.created[:19].replace("T", " "),
            "system": e.system,
            "why": e.followed_because,
            "path": str(e.folder.path),
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
    steps = []
    for prev, cur in zip(history.entries, history.entries[1:]):
        step = [c for c in history.changes if c["from"] == prev.label and c["to"] == cur.label]
        steps.append(
            {
                "step": _step_label(history, prev.label, cur.label),
                "tested": len(step),
                **{
                    v: sum(c["verdict"] == v for c in step)
                    for v in ("improved", "regressed", "no detectable difference")
                },
                "how": ", ".join(sorted({c["method"] for c in step})),
            }
        )
    body.append(
        table(
            steps,
            [
                Col("step", "releases"),
                Col("tested", "tested", count_cell, True),
                Col("improved", "improved", count_cell, True),
                Col("regressed", "regressed", count_cell, True),
                Col("no detectable difference", "no detectable difference", count_cell, True),
                Col("how", "tests from"),
            ],
        )
    )
    if flagged:
        items = []
        for c in flagged:
            css = _VERDICT_CSS[c["verdict"]]
            items.append(f'<li class="{css}-item">{escape(_change_sentence(c))}</li>')
        body.append(
            '<h3 id="flagged-changes">Significant changes</h3>'
            '<ul class="rg-claims">' + "".join(items) + "</ul>"
        )
    else:
        body.append(note("No change between consecutive releases is significant."))
    return section("Releases", body, sid="releases")


def _step_label(history: History, *labels: str) -> str:
    """A step (or a release) as its tables show it, ``(edited)`` after a release kept by
    --allow-edited."""
    text = " → ".join(labels)
    return f"{text} (edited)" if edited_note(history.entries, *labels) else text


def _change_sentence(c: Mapping[str, Any]) -> str:
    p = bool(c.get("proportion"))
    return (
        f"{c['from']} → {c['to']}{' (edited)' if c.get('edited') else ''}, "
        f"{c['dataset']} / {c['metric']}: {c['verdict']} "
        f"(Δ = {fmt.difference(c['diff'], proportion=p)} "
        f"{fmt.interval(c['ci_low'], c['ci_high'], proportion=p, signed=True)}, "
        f"{fmt.p_equals(c['p_adjusted'], 'p adj.')}, {c['method']})"
    )


def trend_chart(history: History, dataset: str, metric: str) -> Any:
    """Mean with its interval per release for one dataset × metric; flagged changes
    coloured by verdict."""
    import altair as alt

    from reportgen.charts.release import VERDICT_COLOURS

    positions = {e.label: k for k, e in enumerate(history.entries)}
    rows = [r for r in history.trend if r["dataset"] == dataset and r["metric"] == metric]
    verdict_of = {
        c["to"]: c["verdict"]
        for c in history.changes
        if c["dataset"] == dataset and c["metric"] == metric
    }
    proportion = _proportion(history.entries[-1].folder, dataset, metric)
    scale = 100.0 if proportion else 1.0  # proportions in percent, as in the tables
    data = [
        {
            **r,
            **{
                k: None if r.get(k) is None else scale * float(r[k])
                for k in ("mean", "ci_low", "ci_high")
            },
            "verdict": verdict_of.get(r["release"], "first release")
            if r["role"] == "followed"
            else "reference",
            "label": r["release"],
        }
        for r in rows
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
    better = "higher is better" if rows and rows[0]["direction"] == "higher" else "lower is better"
    return alt.layer(line, rule, point).properties(
        width=max(260, 70 * len(labels)),
        height=200,
        title=alt.Title(
            f"Mean and {_conf(rows)} interval per release ({better})",
            subtitle="colour: the change from the release before",
            fontSize=12,
        ),
    )


def _conf(rows: Sequence[Mapping[str, Any]]) -> str:
    values = {float(r["confidence"]) for r in rows if r.get("confidence")}
    return f"{values.pop():.0%}" if len(values) == 1 else "confidence"


def trends(history: History) -> HTMLBlock | None:
    """One chart and table per dataset × metric: the followed system's mean per
    release, and each change with its test."""
    body = []
    for dataset, metric in history.lists:
        rows = [
            r
            for r in history.trend
            if r["dataset"] == dataset and r["metric"] == metric and r["role"] == "followed"
        ]
        if not rows:
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
            c["to"]: c for c in history.changes if c["dataset"] == dataset and c["metric"] == metric
        }
        table_rows = []
        for r in rows:
            c = change_of.get(r["release"], {})
            p = bool(c.get("proportion", _proportion(history.entries[0].folder, dataset, metric)))
            table_rows.append(
                {
                    **r,
                    "release": _step_label(history, r["release"]),
                    "mean": fmt.value(r.get("mean"), proportion=p),
                    "ci": fmt.interval(r.get("ci_low"), r.get("ci_high"), proportion=p),
                    "diff": "" if not c else fmt.difference(c.get("diff"), proportion=p),
                    "p_adjusted": c.get("p_adjusted"),
                    "verdict": c.get("verdict", ""),
                    "method": c.get("method", ""),
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
    """Every tested change between consecutive releases."""
    if not history.changes:
        return None
    rows = [
        {
            **c,
            "step": _step_label(history, c["from"], c["to"]),
            "before": fmt.value(c.get("mean_before"), proportion=bool(c.get("proportion"))),
            "after": fmt.value(c.get("mean_after"), proportion=bool(c.get("proportion"))),
            "delta": fmt.difference(c.get("diff"), proportion=bool(c.get("proportion"))),
            "ci": fmt.interval(
                c.get("ci_low"), c.get("ci_high"), proportion=bool(c.get("proportion")), signed=True
            ),
        }
        for c in history.changes
    ]
    body = [
        table(
            rows,
            [
                Col("step", "releases"),
                Col("dataset", "dataset"),
                Col("metric", "metric"),
                Col("before", "before", escape, True),
                Col("after", "after", escape, True),
                Col("delta", "Δ", escape, True),
                Col("ci", "CI (adj.)", escape, True),
                Col("p_adjusted", "p adj.", p_cell, True),
                Col(
                    "verdict",
                    "change",
                    escape,
                    css=lambda row: _VERDICT_CSS.get(row["verdict"], ""),
                ),
                Col("test", "test"),
                Col("method", "from"),
            ],
        )
    ]
    return section("Changes between consecutive releases", body, sid="changes")


def methods(history: History) -> HTMLBlock | None:
    """How each change was tested, and the notes."""
    counts: dict[str, int] = {}
    for c in history.changes:
        counts[c["method"]] = counts.get(c["method"], 0) + 1
    text = {
        "stored": "the comparison stored in one of the two reports (its test and its "
        "adjusted p-value, corrected within that report)",
        "recomputed": "recomputed from the per-item data the reports were made from "
        "(found unchanged where their manifests say): paired on the items "
        "when both releases were scored on the same items, else unpaired; "
        "the automatic test choice; p-values adjusted across the step's "
        "recomputed and interval-based tests with the later report's "
        "correction",
        "intervals": "an approximate z test from the two stored intervals (standard "
        "errors from their half-widths); it ignores pairing, so it is "
        "conservative when the items are shared, and it is only as good as "
        "a normal approximation of the intervals; adjusted as above",
    }
    items = [
        f"<li><strong>{escape(m)}</strong> ({n}): {escape(text[m])}.</li>"
        for m, n in counts.items()
    ]
    body = [
        "<p>A change is significant when its adjusted p-value is at most the later "
        "report's α. Each step between two releases is its own family of tests "
        "(one per dataset × metric).</p>",
        "<ul>" + "".join(items) + "</ul>",
    ]
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
    write_csv(pd.DataFrame.from_records(history.trend), tables / "trend.csv")
    write_csv(pd.DataFrame.from_records(history.changes), tables / "changes.csv")
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
    number of changes tested and flagged, the PDF's page count, and the warnings of the
    releases kept by ``allow_edited`` (``"v2 edited: ..."``)."""

    out: Path
    files: tuple[str, ...]
    order: tuple[str, ...]
    n_changes: int
    n_flagged: int
    pages: int | None
    timings: dict[str, float]
    edited: tuple[str, ...] = ()


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
    spec: HistorySpec, template: Path, started: str, written: dict[str, Any]
) -> Any:
    """The manifest's record of a history report: the reports' results.json files are
    its inputs."""
    from reportgen.report.pipeline import FolderRecord

    labels = [r["label"] for r in written["reports"]]
    return FolderRecord(
        meta=[
            ("releases", " → ".join(labels)),
            ("reportgen", str(written["reportgen_version"])),
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
            f"unknown report format(s): {', '.join(unknown) or '(none)'}",
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
        f"{sum(c['significant'] for c in checked.changes)} significant"
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
            describe=functools.partial(_history_record, spec, template, started),
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
    results, files, pages = built.document, built.files, built.pages
    labels = [r["label"] for r in results["reports"]]
    say(f"wrote {out}")
    return HistoryResult(
        out=out,
        files=files,
        order=tuple(labels),
        n_changes=len(results["changes"]),
        n_flagged=sum(bool(c["significant"]) for c in results["changes"]),
        pages=pages,
        timings=timings,
        edited=tuple(
            note for e in checked.entries if (note := edited_note(checked.entries, e.label))
        ),
    )

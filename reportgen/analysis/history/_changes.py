"""The changes of a release history, decided once: per pair of consecutive releases
and dataset × metric, the change of the followed system, its test, adjusted p-value,
the interval it is read off and its verdict (:func:`analyse_history`).

Each change comes from the first of these that applies (``recompute="auto"``):

1. **stored**: a report of either release already compared the two systems. A release
   report's verdict (of the later release against the earlier) is taken as it is: its
   family, margin, adjusted p-value, verdict and the simultaneous interval it was read
   off, so the history says what the release said. Else a stored comparison, with
   the decision, adjusted p-value and interval of its own report;
2. **recomputed**: the per-item data both reports were made from (found and loaded by
   the caller, ``tables``): the two systems' item scores compared again, paired on the
   items when both were scored on the same items, with the automatic test choice;
3. **intervals**: else the z test from the two stored intervals.

The recomputed and interval-based tests of one step are one family, adjusted with the
later report's correction at its α (:func:`~reportgen.analysis.history.adjust_step`);
each is significant when its adjusted p-value is at most that α, and its interval has
the kind of that correction's intervals.

Examples
--------
>>> from reportgen.analysis.ledger import Interval
>>> ci = Interval(0.02, 0.09, 0.99, "simultaneous", 0.95, "sidak")
>>> c = Change("v1", "v2", "m1", "m2", "gsm8k", "acc", "higher", True, "stored",
...            "paired t", "v2's release verdict", 0.50, 0.555, 0.055, ci, ci, 0.002,
...            0.004, "sidak", 0.05, True, "improved")
>>> s = c.sentence().plain()
>>> s[:46]
'v1 → v2, gsm8k / acc: improved (Δ = +5.5 pts, '
>>> s[46:]
"95% simultaneous CI (Šidák) [+2.0, +9.0], p adj. = 0.004; stored in v2's release verdict)"
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from reportgen import format as fmt
from reportgen.analysis.history._releases import Release
from reportgen.analysis.history._steps import (
    ChangeMethod,
    StepTest,
    adjust_step,
    change_from_intervals,
    change_from_items,
    item_scores,
)
from reportgen.analysis.ledger import Interval, UnitLedger
from reportgen.analysis.release import VERDICTS
from reportgen.config import default
from reportgen.errors import InputError, Location
from reportgen.records import plain

if TYPE_CHECKING:
    from reportgen.data import ScoreTable
    from reportgen.sentences import Sentence

__all__ = [
    "RECOMPUTE",
    "Change",
    "ItemTables",
    "Recompute",
    "ReleaseHistory",
    "StepSettings",
    "StepSummary",
    "TrendPoint",
    "analyse_history",
]

Recompute = Literal["auto", "always", "never"]
#: ``--recompute``: stored tests first (``auto``), per-item data first (``always``),
#: or never the per-item data (``never``).
RECOMPUTE: tuple[Recompute, ...] = ("auto", "always", "never")
#: The per-item data of a release: its table, or why it cannot be had (the caller
#: finds the inputs its manifest names, checks their SHA-256 and loads them).
ItemTables = Callable[[Release], "ScoreTable | str"]
#: A release verdict seen from the other side (the earlier release as its candidate).
_FLIPPED_VERDICT = {"improved": "regressed", "regressed": "improved"}


@dataclass(frozen=True)
class StepSettings:
    """What a step is tested with: the later report's α, confidence, correction,
    resamples and seed, each the declared default
    (:func:`reportgen.config.default`) when its results.json does not say."""

    alpha: float
    confidence: float
    correction: str
    n_resamples: int
    seed: int | None

    @classmethod
    def of(cls, release: Release) -> StepSettings:
        ledger = release.ledger
        meta = ledger.meta
        n_resamples = meta.n_resamples
        return cls(
            alpha=float(ledger.family.alpha),
            confidence=float(meta.confidence),
            correction=str(ledger.family.requested or default("correction")),
            n_resamples=int(default("n_resamples") if n_resamples is None else n_resamples),
            seed=default("seed") if meta.seed is None else int(meta.seed),
        )


@dataclass(frozen=True)
class TrendPoint:
    """A system's mean with its interval on one dataset × metric in one release."""

    release: str
    position: int
    role: Literal["followed", "reference"]
    system: str
    dataset: str
    metric: str
    direction: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float | None
    ci_method: str | None
    n: int | None
    runs: int | None
    proportion: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A row of history.json's ``trend`` (and of ``tables/trend.csv``)."""
        return {k: plain(getattr(self, k)) for k in self.__dataclass_fields__}


# Over 20 fields: a change carries everything every output shows of it.
@dataclass(frozen=True)
class Change:
    """The change of the followed system from one release to the next on one dataset ×
    metric, as the history decided it (``diff = mean_after − mean_before``).

    Attributes
    ----------
    from_release, to_release
        The two releases' labels.
    system_before, system_after
        The systems followed in them.
    dataset, metric, direction, proportion
        The unit and how it reads (``proportion``: shown in percent, differences in
        points).
    method, test, source
        Where the test comes from (``stored``, ``recomputed``, ``intervals``), the
        test, and the report or data it was read from.
    mean_before, mean_after, diff
        The two means and their difference.
    marginal
        The unadjusted interval, which goes with ``p_value`` (bounds None when a
        stored verdict of an older reportgen did not keep it).
    decided
        The interval the decision is read off, with its kind: a release verdict's
        simultaneous interval, a stored comparison's adjusted interval, or the
        interval of the step's correction (it excludes 0 exactly when
        ``significant``, except for a verdict at a margin).
    p_value, p_adjusted, correction, alpha
        The raw and adjusted p-values, the correction and the α of the decision.
    significant
        Whether the change is an improvement or a regression.
    verdict
        ``improved``, ``regressed``, ``no detectable difference``, or a release
        verdict at a margin (``non-inferior``, ``inconclusive``).
    margin, bound
        A release verdict's margin and the one-sided bound a verdict at a margin is
        read off (else None).
    paired
        Whether the two releases were compared on the same items (None: not said).
    edited, edited_in
        Why a results.json of the step is not what reportgen wrote (``label:
        reason``), or None; the labels of those releases.
    """

    from_release: str
    to_release: str
    system_before: str
    system_after: str
    dataset: str
    metric: str
    direction: str
    proportion: bool
    method: ChangeMethod
    test: str
    source: str
    mean_before: float | None
    mean_after: float | None
    diff: float | None
    marginal: Interval
    decided: Interval
    p_value: float | None
    p_adjusted: float | None
    correction: str
    alpha: float
    significant: bool
    verdict: str
    margin: float | None = None
    bound: Interval | None = None
    paired: bool | None = None
    edited: str | None = None
    edited_in: tuple[str, ...] = ()

    @property
    def step(self) -> str:
        """``v1 → v2``."""
        return f"{self.from_release} → {self.to_release}"

    @property
    def name(self) -> str:
        """``dataset / metric``."""
        return f"{self.dataset} / {self.metric}"

    @property
    def at_margin(self) -> bool:
        """Whether the verdict was read off the one-sided bound against a margin (a
        release's ``non-inferior`` or ``inconclusive`` at a margin) rather than off
        :attr:`decided`."""
        return self.bound is not None and self.verdict in ("non-inferior", "inconclusive")

    @property
    def read_off(self) -> Interval:
        """The interval the verdict is read off: the one-sided bound of a verdict at a
        margin, else :attr:`decided`."""
        if self.at_margin and self.bound is not None:
            return self.bound
        return self.decided

    def margin_text(self) -> str:
        """The loss the margin accepts, signed (``−2.0 pts`` when higher is better),
        or ``""`` without a margin."""
        if self.margin is None:
            return ""
        return fmt.margin(self.margin, direction=self.direction, proportion=self.proportion)

    def sentence(self) -> Sentence:
        """The change in one sentence (:func:`reportgen.analysis.history.change_sentence`)."""
        from reportgen.analysis.history.words import change_sentence

        return change_sentence(self)

    def to_dict(self) -> dict[str, Any]:
        """A row of history.json's ``changes`` (and of ``tables/changes.csv``): the
        fields of history.json format 1 in their order (``ci_low``, ``ci_high``,
        ``confidence``: the decided interval), then the interval's kind and label, the
        marginal interval, the margin's bound, the warning and the sentence."""
        d, m, b = self.decided, self.marginal, self.bound
        row = {
            "from": self.from_release,
            "to": self.to_release,
            "system_before": self.system_before,
            "system_after": self.system_after,
            "dataset": self.dataset,
            "metric": self.metric,
            "direction": self.direction,
            "proportion": self.proportion,
            "method": self.method,
            "test": self.test,
            "source": self.source,
            "mean_before": self.mean_before,
            "mean_after": self.mean_after,
            "diff": self.diff,
            "ci_low": d.low,
            "ci_high": d.high,
            "confidence": d.level,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "correction": self.correction,
            "alpha": self.alpha,
            "paired": self.paired,
            "margin": self.margin,
            "verdict": self.verdict,
            "significant": self.significant,
            "ci_kind": d.kind,
            "ci_label": d.label(),
            "ci_marginal_low": m.low,
            "ci_marginal_high": m.high,
            "confidence_marginal": m.level,
            "ni_bound": None if b is None else (b.low if b.high is None else b.high),
            "ni_level": None if b is None else b.level,
            "edited": self.edited,
            "sentence": self.sentence().plain(),
        }
        return {k: plain(v) for k, v in row.items()}


@dataclass(frozen=True)
class StepSummary:
    """One step between consecutive releases: its changes counted by verdict, where
    their tests came from and the warning of an edited results.json."""

    from_release: str
    to_release: str
    tested: int
    counts: tuple[tuple[str, int], ...]
    methods: tuple[str, ...]
    edited: str | None = None

    @property
    def step(self) -> str:
        return f"{self.from_release} → {self.to_release}"

    def count(self, verdict: str) -> int:
        return dict(self.counts).get(verdict, 0)


@dataclass(frozen=True, eq=False)
class ReleaseHistory:
    """A model followed across releases: the releases in order, each one's means per
    dataset × metric (:class:`TrendPoint`), the changes between consecutive releases
    (:class:`Change`) and notes."""

    releases: tuple[Release, ...]
    order: str
    trend: tuple[TrendPoint, ...]
    changes: tuple[Change, ...]
    references: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def lists(self) -> list[tuple[str, str]]:
        """The dataset × metrics of the trend, in order."""
        return list(dict.fromkeys((p.dataset, p.metric) for p in self.trend))

    @property
    def flagged(self) -> tuple[Change, ...]:
        """The significant changes (improved or regressed)."""
        return tuple(c for c in self.changes if c.significant)

    @property
    def edited(self) -> tuple[Release, ...]:
        """The releases whose results.json was edited after reportgen wrote it."""
        return tuple(r for r in self.releases if r.edited)

    def steps(self) -> list[StepSummary]:
        """Each step between consecutive releases, in order."""
        out = []
        for prev, cur in zip(self.releases, self.releases[1:]):
            step = [
                c for c in self.changes if (c.from_release, c.to_release) == (prev.label, cur.label)
            ]
            out.append(
                StepSummary(
                    prev.label,
                    cur.label,
                    len(step),
                    tuple((v, sum(c.verdict == v for c in step)) for v in VERDICTS),
                    tuple(sorted({c.method for c in step})),
                    _edited(prev, cur),
                )
            )
        return out

    def to_dict(self, *, title: str) -> dict[str, Any]:
        """The ``history.json`` document (format :data:`HISTORY_FORMAT_VERSION`)."""
        from reportgen import __version__
        from reportgen.jsonsafe import HISTORY_FORMAT_VERSION

        return {
            "format_version": HISTORY_FORMAT_VERSION,
            "kind": "history",
            "reportgen_version": __version__,
            "title": title,
            "order": self.order,
            "reports": [r.to_dict() for r in self.releases],
            "references": list(self.references),
            "trend": [p.to_dict() for p in self.trend],
            "changes": [c.to_dict() for c in self.changes],
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------------- the trend


def _units(release: Release) -> list[UnitLedger]:
    """The units of a release's ledger that the history follows (a corpus metric
    computed from another's predictions is left to that one)."""
    return [u for u in release.ledger.units if u.derived_from is None]


def _trend(releases: Sequence[Release], references: Sequence[str]) -> list[TrendPoint]:
    out = []
    for k, release in enumerate(releases):
        roles: list[tuple[Literal["followed", "reference"], str]] = [("followed", release.system)]
        roles += [("reference", r) for r in references]
        for role, name in roles:
            for u in _units(release):
                s = u.standing_of(name)
                if s is None:
                    continue
                out.append(
                    TrendPoint(
                        release.label,
                        k + 1,
                        role,
                        name,
                        u.dataset,
                        u.metric,
                        u.direction,
                        s.mean,
                        s.ci_low,
                        s.ci_high,
                        s.confidence,
                        s.ci_method,
                        s.n,
                        s.runs,
                        u.proportion,
                    )
                )
    return out


# ---------------------------------------------------------------------- the changes


def _edited(prev: Release, cur: Release) -> str | None:
    reasons = [f"{r.label}: {r.edited}" for r in (prev, cur) if r.edited]
    return "; ".join(reasons) or None


def _verdict(significant: bool, diff: float | None, direction: str) -> str:
    if not significant:
        return "no detectable difference"
    better = (diff or 0.0) > 0 if direction == "higher" else (diff or 0.0) < 0
    return "improved" if better else "regressed"


@dataclass(frozen=True)
class _Unit:
    """What a change shares with its unit and step."""

    prev: Release
    cur: Release
    unit: UnitLedger

    def change(self, **fields: Any) -> Change:
        return Change(
            from_release=self.prev.label,
            to_release=self.cur.label,
            system_before=self.prev.system,
            system_after=self.cur.system,
            dataset=self.unit.dataset,
            metric=self.unit.metric,
            direction=self.unit.direction,
            proportion=self.unit.proportion,
            edited=_edited(self.prev, self.cur),
            edited_in=tuple(r.label for r in (self.prev, self.cur) if r.edited),
            **fields,
        )


def _release_verdict(at: _Unit, entry: Release) -> Change | None:
    """The verdict of the release report of ``entry`` on the unit when it compared the
    two followed systems, oriented ``after − before``: the release's own verdict,
    p-values, margin and the interval it was read off."""
    release = entry.ledger.release
    prev, cur = at.prev.system, at.cur.system
    if release is None or {release.baseline, release.candidate} != {prev, cur}:
        return None
    u = at.unit
    v = next((v for v in release.verdicts if (v.dataset, v.metric) == (u.dataset, u.metric)), None)
    if v is None:
        return None
    flip = release.candidate == prev  # a verdict is candidate − baseline
    decided, marginal, bound = v.decided_interval(), v.marginal_interval(), v.ni_interval()
    if flip:
        decided, marginal = decided.flipped(), marginal.flipped()
        bound = None if bound is None else bound.flipped()
    verdict = str(v.verdict)
    return at.change(
        method="stored",
        test=v.test,
        source=f"{entry.label}'s release verdict",
        mean_before=v.mean_candidate if flip else v.mean_baseline,
        mean_after=v.mean_baseline if flip else v.mean_candidate,
        diff=None if v.diff is None else (-v.diff if flip else v.diff),
        marginal=marginal,
        decided=decided,
        p_value=v.p_value,
        p_adjusted=v.p_adjusted,
        correction=v.correction,
        alpha=float(release.alpha),
        significant=verdict in ("improved", "regressed"),
        verdict=_FLIPPED_VERDICT.get(verdict, verdict) if flip else verdict,
        margin=v.margin,
        bound=bound,
    )


def _stored(at: _Unit) -> Change | None:
    """A comparison of the two systems on the unit stored in either report: a release
    report's verdict first, else a stored comparison (its own decision)."""
    if at.prev.system == at.cur.system:
        return None
    for entry in (at.cur, at.prev):
        found = _release_verdict(at, entry)
        if found is not None:
            return found
    u = at.unit
    for entry in (at.cur, at.prev):
        claim = entry.ledger.claim(u.dataset, u.metric, at.cur.system, at.prev.system)
        if claim is None or claim.derived_from is not None or claim.p_adjusted is None:
            continue
        return at.change(
            method="stored",
            test=claim.test,
            source=entry.label,
            mean_before=claim.mean_b,
            mean_after=claim.mean_a,
            diff=claim.diff,
            marginal=claim.marginal,
            decided=claim.adjusted,
            p_value=claim.p_value,
            p_adjusted=claim.p_adjusted,
            correction=claim.correction,
            alpha=float(entry.ledger.family.alpha),
            significant=claim.significant,
            verdict=_verdict(claim.significant, claim.diff, u.direction),
            paired=claim.paired,
        )
    return None


class _Data:
    """The per-item data of each release, asked of ``tables`` once, and why a
    release's could not be had."""

    def __init__(self, tables: ItemTables | None) -> None:
        self._tables = tables
        self._got: dict[str, ScoreTable | None] = {}
        self.why: dict[str, str] = {}

    def table(self, release: Release) -> ScoreTable | None:
        if release.label not in self._got:
            got = "no per-item data given" if self._tables is None else self._tables(release)
            if isinstance(got, str):
                self.why[release.label] = got
                self._got[release.label] = None
            else:
                self._got[release.label] = got
        return self._got[release.label]


def _recompute(at: _Unit, data: _Data, settings: StepSettings) -> StepTest | None:
    u = at.unit
    tables = data.table(at.prev), data.table(at.cur)
    if tables[0] is None or tables[1] is None:
        return None
    before = item_scores(tables[0], at.prev.system, u.dataset, u.metric)
    after = item_scores(tables[1], at.cur.system, u.dataset, u.metric)
    if before is None or after is None:
        return None
    modality = u.modality if u.modality in ("binary", "continuous") else None
    return change_from_items(
        before,
        after,
        modality=modality,
        alpha=settings.alpha,
        confidence=settings.confidence,
        n_resamples=settings.n_resamples,
        seed=settings.seed,
        key=(f"{at.prev.label}\0{at.cur.label}", u.dataset, u.metric),
    )


def _step(
    prev: Release, cur: Release, recompute: Recompute, data: _Data, notes: list[str]
) -> list[Change]:
    """The changes of one step, decided."""
    settings = StepSettings.of(cur)
    before = {(u.dataset, u.metric): u for u in _units(prev)}
    found: list[Change | tuple[_Unit, StepTest]] = []
    for u in _units(cur):
        mine, theirs = u.standing_of(cur.system), None
        other = before.get((u.dataset, u.metric))
        if other is not None:
            theirs = other.standing_of(prev.system)
        if mine is None or theirs is None:
            continue
        at = _Unit(prev, cur, u)
        stored = None if recompute == "always" else _stored(at)
        if stored is not None:
            found.append(stored)
            continue
        test = None if recompute == "never" else _recompute(at, data, settings)
        if test is None:
            test = change_from_intervals(theirs, mine, confidence=default("confidence"))
        if test is None:
            notes.append(
                f"{prev.label} → {cur.label}, {u.name}: no test "
                "(no stored comparison, no per-item data, no intervals)"
            )
            continue
        found.append((at, test))
    fresh = [f for f in found if isinstance(f, tuple)]
    adjusted = iter(adjust_step([t for _, t in fresh], settings.correction, alpha=settings.alpha))
    out = []
    for f in found:
        if isinstance(f, Change):
            out.append(f)
            continue
        at, test = f
        p_adjusted, decided = next(adjusted)
        significant = p_adjusted is not None and p_adjusted <= settings.alpha
        out.append(
            at.change(
                method=test.method,
                test=test.test,
                source=test.source,
                mean_before=test.mean_before,
                mean_after=test.mean_after,
                diff=test.diff,
                marginal=test.marginal,
                decided=decided,
                p_value=test.p_value,
                p_adjusted=p_adjusted,
                correction=settings.correction,
                alpha=settings.alpha,
                significant=significant,
                verdict=_verdict(significant, test.diff, at.unit.direction),
                paired=test.paired,
            )
        )
    return out


def analyse_history(
    releases: Sequence[Release],
    *,
    order: str,
    references: Sequence[str] = (),
    recompute: Recompute = "auto",
    tables: ItemTables | None = None,
) -> ReleaseHistory:
    """Follow a model across ``releases`` (in release order): its mean per dataset ×
    metric in each, and the change between consecutive releases, tested and decided
    (the module docstring).

    Parameters
    ----------
    releases
        The releases in order, each with the system it follows and its ledger.
    order
        How they were ordered (``release``, ``created``, ``given``), for the record.
    references
        Other systems to follow in the trend (e.g. a fixed competitor), from the
        releases that have them.
    recompute
        ``"auto"``: stored tests first, then per-item data, then intervals;
        ``"always"``: per-item data even when a stored test exists (then intervals);
        ``"never"``: stored tests, else intervals.
    tables
        The per-item data of a release (its table, or why there is none), asked only
        when a change is recomputed; None: no per-item data.

    Returns
    -------
    ReleaseHistory

    Raises
    ------
    InputError
        An unknown ``recompute``, or the followed systems share no dataset × metric.
    """
    if recompute not in RECOMPUTE:
        raise InputError(
            f"unknown recompute mode {recompute!r}",
            location=Location("--recompute"),
            hint=f"one of {', '.join(RECOMPUTE)}",
        )
    data = _Data(tables)
    notes = [f"{r.label}: follows {r.system} ({r.followed_because})" for r in releases]
    notes += [f"{r.label}: {r.edited}" for r in releases if r.edited]
    changes: list[Change] = []
    for prev, cur in zip(releases, releases[1:]):
        changes += _step(prev, cur, recompute, data, notes)
    notes += [
        f"{label}: not recomputed from per-item data ({why})" for label, why in data.why.items()
    ]
    if not changes and not any(
        u.standing_of(r.system) is not None for r in releases[1:] for u in _units(r)
    ):
        raise InputError(
            "the followed systems share no dataset × metric",
            hint="check that the reports evaluate the same benchmarks",
        )
    return ReleaseHistory(
        tuple(releases),
        order,
        tuple(_trend(releases, references)),
        tuple(changes),
        tuple(references),
        tuple(notes),
    )

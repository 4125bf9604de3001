"""The release comparison: a candidate system against its baseline, one verdict per
dataset × metric, and every dataset × metric that could not be compared.

A verdict is read off the comparison of the two systems (tests and corrections as in
:func:`reportgen.analysis.analyze`; the release analysis corrects across all its dataset
× metric comparisons):

* **improved**: the adjusted p-value is at most α and the candidate is better (in the
  metric's direction);
* **regressed**: the adjusted p-value is at most α and the candidate is worse;
* **no detectable difference**: otherwise. The minimum detectable effect (MDE) at the
  analysis' target power comes with it, so "no difference" says how large a difference
  could have gone unnoticed.

With a **margin** δ for the metric (``--margin``, ``[metrics.NAME] margin``), the
verdicts are, in this precedence: *improved*, *regressed*, *non-inferior* (a loss
larger than δ is ruled out) and *inconclusive* (it is not); equivalence (the difference
is within ±δ, two one-sided tests) is reported beside the verdict, not as one.

Every verdict is read off one interval, so the page never disagrees with itself: the
simultaneous interval of the release family at the per-comparison level of the
correction (:func:`reportgen.stats.margins.margin_decisions`). Step-down corrections
(Holm, Holm-Šidák) have no informative intervals that agree with every decision
(Strassburger & Bretz 2008), so a release uses their single-step forms (Bonferroni,
Šidák): "the interval excludes 0" is "significant", and "the interval lies above −δ"
is "non-inferior". Corpus-level metrics (computed from predictions, e.g. F1) have no
per-item scores to test at a margin: their verdict is the superiority test of the
analysis, without a margin.

For paired comparisons the items the candidate lost (the baseline scored better) and
gained are listed (:class:`ReleaseFlips`).

Every difference is ``candidate − baseline`` on the metric's own scale (the comparisons
of a release analysis have ``system_a`` = candidate).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from reportgen.errors import InputError
from reportgen.names import GATES, Estimand, Gate, IntervalKind
from reportgen.plaintext import did_you_mean
from reportgen.records import columns_to_records, fields_record, from_record
from reportgen.stats.pairwise import PairwiseResult

__all__ = [
    "UNDECIDABLE",
    "VERDICTS",
    "NotCompared",
    "PartialCoverage",
    "ReleaseComparison",
    "ReleaseFlips",
    "ReleaseVerdict",
    "estimand_of",
    "margin_of",
    "not_compared",
    "release_comparison",
    "resolve_release_systems",
    "undecidable_note",
    "verdict_of",
]

Verdict = Literal[
    "improved", "regressed", "no detectable difference", "non-inferior", "inconclusive"
]
#: Every verdict, in the order the report counts them.
VERDICTS: tuple[Verdict, ...] = (
    "improved",
    "regressed",
    "non-inferior",
    "inconclusive",
    "no detectable difference",
)


def resolve_release_systems(
    systems: Sequence[str],
    *,
    baseline: str | None,
    candidate: str | None,
    release: str | None = None,
) -> tuple[str, str]:
    """The (baseline, candidate) pair of a release report.

    ``candidate`` defaults to ``release`` when that names a system, else to the only
    system other than the baseline; ``baseline`` defaults to the only system other than
    the candidate.

    Raises
    ------
    InputError
        A name that is not a system, the same system twice, or a choice that is
        ambiguous (several other systems).
    """
    names = list(systems)
    for label, name in (("--baseline", baseline), ("--candidate", candidate)):
        if name is not None and name not in names:
            raise InputError(
                f"{label} {name!r} is not a system of the data", hint=did_you_mean(name, names)
            )
    if candidate is None and release is not None and release in names and release != baseline:
        candidate = release
    if candidate is None and baseline is not None and len(names) == 2:
        candidate = next(s for s in names if s != baseline)
    if baseline is None and candidate is not None and len(names) == 2:
        baseline = next(s for s in names if s != candidate)
    if baseline is None or candidate is None:
        raise InputError(
            "a release report needs the baseline and the candidate system",
            hint="pass --baseline SYSTEM and --candidate SYSTEM (systems: "
            f"{', '.join(names[:20])}" + (" …" if len(names) > 20 else "") + ")",
        )
    if baseline == candidate:
        raise InputError(
            f"the baseline and the candidate are the same system ({baseline!r})",
            hint="pass two different systems",
        )
    return baseline, candidate


@dataclass(frozen=True)
class ReleaseSpec:
    """A release comparison as asked for, resolved once and passed on: the baseline and
    the candidate (None until :meth:`resolve` names them from the data), the release
    label, and the gate with its ``allow_partial`` switch (what the exit status checks:
    :meth:`ReleaseComparison.gate_failures`).

    The non-inferiority margins are not here: they are analysis options
    (:attr:`reportgen.analysis.AnalysisOptions.margins`) because every margin test of
    an analysis uses them, in a release report or not.
    """

    baseline: str | None = None
    candidate: str | None = None
    release: str | None = None
    gate: Gate | None = None
    allow_partial: bool = False

    def __post_init__(self) -> None:
        if self.gate is not None and self.gate not in GATES:
            raise InputError(f"unknown gate {self.gate!r}", hint=f"use one of: {', '.join(GATES)}")

    @property
    def resolved(self) -> bool:
        """Whether both systems are named."""
        return self.baseline is not None and self.candidate is not None

    def resolve(self, systems: Sequence[str]) -> ReleaseSpec:
        """This spec with both systems named (:func:`resolve_release_systems`).

        Raises
        ------
        InputError
            A name that is not a system, the same system twice, or an ambiguous default.
        """
        baseline, candidate = resolve_release_systems(
            systems, baseline=self.baseline, candidate=self.candidate, release=self.release
        )
        return ReleaseSpec(baseline, candidate, self.release, self.gate, self.allow_partial)

    def title(self) -> str:
        """The default title of its report: ``Release v2.1: B against A``."""
        head = f"Release {self.release}" if self.release else "Release"
        return f"{head}: {self.candidate} against {self.baseline}"


@dataclass(frozen=True)
class ReleaseVerdict:
    """The candidate against the baseline on one dataset × metric.

    ``diff`` and the intervals are candidate − baseline on the metric's own scale.
    ``ci_adjusted_low``/``ci_adjusted_high`` are the simultaneous interval of the
    release family at level ``confidence_adjusted`` (the per-comparison level of
    ``correction``, the single-step form of the correction asked for): the verdict is
    read off it, so it excludes 0 exactly when the candidate improved or regressed,
    and ``p_adjusted <= alpha`` says the same. ``ci_low``/``ci_high`` are the marginal
    (unadjusted) interval at ``confidence``, which goes with the raw ``p_value``.
    ``mde`` is the minimum detectable effect in the same units at the family's
    per-comparison level (a property of the design: non-negative, or None when
    undefined); ``effect_size`` has the sign of ``diff``.

    With a ``margin`` δ: ``p_noninferiority`` (raw one-sided p of H0: the candidate is
    worse by δ or more) and ``p_equivalence`` (TOST: the larger of the two one-sided
    p-values), with their family-adjusted values (compared with α/2, the one-sided
    level of a two-sided interval; see
    :func:`reportgen.stats.margins.margin_decisions`), and ``equivalent`` (the interval
    lies inside (−δ, δ)). *Non-inferior* is judged unadjusted, as the intersection-union
    test "every unit is non-inferior" needs (Berger 1982): ``ni_bound``, the loss side
    of the marginal interval at 1 − α (a one-sided 1 − α/2 bound), lies above −δ (below
    δ when lower is better), which is ``p_noninferiority <= α/2``. ``skewed``: the
    per-item differences are heavily skewed (continuous data): when the ``estimand`` is
    the mean, no test of it holds its level at this n (Bahadur & Savage 1956), so the
    verdict is *inconclusive* whatever the approximate p-values say, its adjusted
    interval contains 0 and ``note`` says why (a robust estimand, ``[metrics.NAME]
    estimand = "trimmed"`` or ``"hodges-lehmann"``, is decided as usual); ``note``:
    why the comparison is degenerate, not testable or not decidable (identical scores,
    too few items, heavily skewed differences of a mean), else None.
    ``ci_adjusted_kind``: what the adjusted interval promises
    (:func:`reportgen.stats.multiplicity.interval_kind` of the single-step correction:
    ``simultaneous``, ``FCR`` or ``unadjusted``; None in a file of an older reportgen);
    ``estimand``: what ``diff`` estimates (:data:`reportgen.names.Estimand`).
    ``n_lost``/``n_gained``: paired items the candidate scored worse/better on (None
    when unpaired).
    """

    dataset: str
    metric: str
    direction: str
    modality: str
    baseline: str
    candidate: str
    mean_baseline: float | None
    mean_candidate: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    test: str
    p_value: float | None
    p_adjusted: float | None
    correction: str
    effect_size: float | None
    effect_size_kind: str | None
    n_baseline: int
    n_candidate: int
    mde: float | None
    verdict: Verdict
    proportion: bool = False
    margin: float | None = None
    p_noninferiority: float | None = None
    p_noninferiority_adjusted: float | None = None
    p_equivalence: float | None = None
    p_equivalence_adjusted: float | None = None
    equivalent: bool | None = None
    n_lost: int | None = None
    n_gained: int | None = None
    ci_adjusted_low: float | None = None
    ci_adjusted_high: float | None = None
    confidence_adjusted: float | None = None
    ni_bound: float | None = None
    skewed: bool | None = None
    note: str | None = None
    ci_adjusted_kind: IntervalKind | None = None
    estimand: Estimand = "mean"
    ni_level: float | None = None
    alpha: float | None = None

    @property
    def name(self) -> str:
        return f"{self.dataset} / {self.metric}"

    @property
    def undecidable(self) -> bool:
        """Whether the verdict is *inconclusive* because the mean cannot be decided from
        these items (heavily skewed differences, ``estimand`` the mean)."""
        return bool(self.skewed) and self.estimand == "mean" and self.verdict == "inconclusive"

    def to_dict(self) -> dict[str, Any]:
        return fields_record(self, convert=False)

    def decided_interval(self) -> Any:
        """The interval the verdict is read off
        (:class:`reportgen.analysis.ledger.Interval`): the release family's
        simultaneous interval (unadjusted in a family of one)."""
        from reportgen.analysis.ledger.claims import Interval

        kind = self.ci_adjusted_kind or "simultaneous"
        family = None if self.alpha is None else 1.0 - self.alpha
        return Interval(
            self.ci_adjusted_low,
            self.ci_adjusted_high,
            self.confidence_adjusted,
            kind,
            self.confidence_adjusted if kind == "unadjusted" else family,
            self.correction,
        )

    def marginal_interval(self) -> Any:
        """The marginal (unadjusted) interval, which goes with ``p_value``."""
        from reportgen.analysis.ledger.claims import Interval

        return Interval(self.ci_low, self.ci_high, self.confidence, "unadjusted")

    def ni_interval(self) -> Any:
        """The one-sided unadjusted bound a verdict at a margin is read off (the loss
        side of the marginal interval at 1 − α, a one-sided 1 − α/2 bound), or None
        without a margin."""
        from reportgen.analysis.ledger.claims import Interval

        if self.margin is None or self.ni_bound is None:
            return None
        level = self.ni_level
        if level is None and self.alpha is not None:
            level = one_sided_level(self.alpha)
        if self.direction == "higher":
            return Interval(self.ni_bound, None, level, "unadjusted")
        return Interval(None, self.ni_bound, level, "unadjusted")

    def p_text(self) -> str:
        """``p adj. = 0.25``: the p-value the verdict is read off (``p = ...`` when
        nothing was adjusted)."""
        from reportgen import format as fmt

        if self.ci_adjusted_kind == "unadjusted" or self.correction == "none":
            return fmt.p_equals(self.p_value)
        return fmt.p_equals(self.p_adjusted, "p adj.")

    def margin_text(self, *, signed: bool = False) -> str:
        """The margin in the metric's units: ``2.0 pts``; ``signed``: the loss it
        accepts, one-sided (``−2.0 pts`` when higher is better, ``+2.0`` when lower
        is)."""
        from reportgen import format as fmt

        if self.margin is None:
            return ""
        if not signed:
            return fmt.difference(self.margin, proportion=self.proportion).lstrip("+")
        return fmt.margin(self.margin, direction=self.direction, proportion=self.proportion)

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> ReleaseVerdict:
        """The verdict of a ``results.json`` row (:meth:`to_dict`); fields a row of an
        older reportgen lacks take their defaults. A row written before the adjusted
        interval had its own fields held it in ``ci_low``/``ci_high``: it is read as
        the adjusted interval, and the marginal one is unknown (None)."""
        if "ci_adjusted_low" in row:
            return from_record(cls, row)
        return from_record(
            cls,
            row,
            ci_adjusted_low=row.get("ci_low"),
            ci_adjusted_high=row.get("ci_high"),
            confidence_adjusted=row.get("confidence"),
            ci_low=None,
            ci_high=None,
        )


@dataclass(frozen=True)
class NotCompared:
    """A dataset × metric of the data on which the two systems were not compared.

    ``missing`` names the absent role(s) (``"baseline"``, ``"candidate"``), ``closest``
    the systems of that dataset × metric whose names are closest to the missing ones (a
    renamed run is the usual cause)."""

    dataset: str
    metric: str
    missing: tuple[str, ...]
    reason: str
    closest: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.dataset} / {self.metric}"

    def to_dict(self) -> dict[str, Any]:
        return fields_record(self)

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> NotCompared:
        return from_record(cls, {"missing": (), "reason": "", **row})


@dataclass(frozen=True)
class PartialCoverage:
    """A dataset × metric where the two systems were scored on different items: the
    verdict covers only the items both have (``n_common``); the others are named.

    ``n_baseline``/``n_candidate`` are the items each system was scored on."""

    dataset: str
    metric: str
    n_baseline: int
    n_candidate: int
    n_common: int

    @property
    def name(self) -> str:
        return f"{self.dataset} / {self.metric}"

    @property
    def baseline_only(self) -> int:
        return self.n_baseline - self.n_common

    @property
    def candidate_only(self) -> int:
        return self.n_candidate - self.n_common

    @property
    def reason(self) -> str:
        """``the candidate was scored on 120 of the baseline's 200 items`` and the like."""
        parts = []
        if self.baseline_only:
            parts.append(
                f"{self.baseline_only} item{'s' * (self.baseline_only != 1)} scored for the "
                "baseline only"
            )
        if self.candidate_only:
            parts.append(
                f"{self.candidate_only} item{'s' * (self.candidate_only != 1)} scored for the "
                "candidate only"
            )
        return (
            " and ".join(parts)
            + f": compared on the {self.n_common} item{'s' * (self.n_common != 1)} both have"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "metric": self.metric,
            "n_baseline": self.n_baseline,
            "n_candidate": self.n_candidate,
            "n_common": self.n_common,
            "baseline_only": self.baseline_only,
            "candidate_only": self.candidate_only,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> PartialCoverage:
        return cls(
            str(row["dataset"]),
            str(row["metric"]),
            int(row["n_baseline"]),
            int(row["n_candidate"]),
            int(row["n_common"]),
        )


@dataclass(frozen=True)
class ReleaseFlips:
    """The items of one paired dataset × metric whose score changed from the baseline to
    the candidate: losses first (the largest first), then gains (the largest last).

    ``change`` is ``candidate_score − baseline_score`` on the metric's scale (a loss is
    negative when higher is better, positive when lower is better).
    """

    dataset: str
    metric: str
    direction: str
    n_items: int
    items: tuple[str, ...]
    baseline_score: tuple[float, ...]
    candidate_score: tuple[float, ...]
    lost: tuple[bool, ...]

    @property
    def name(self) -> str:
        return f"{self.dataset} / {self.metric}"

    @property
    def n_lost(self) -> int:
        return sum(self.lost)

    @property
    def n_gained(self) -> int:
        return len(self.lost) - sum(self.lost)

    def to_records(self) -> list[dict[str, Any]]:
        """The rows of ``tables/flips.csv``: ``dataset, metric, item, baseline_score,
        candidate_score, change``."""
        return columns_to_records(
            {
                "dataset": self.dataset,
                "metric": self.metric,
                "item": self.items,
                "baseline_score": self.baseline_score,
                "candidate_score": self.candidate_score,
                "change": [c - b for b, c in zip(self.baseline_score, self.candidate_score)],
            }
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "metric": self.metric,
            "direction": self.direction,
            "n_items": self.n_items,
            "n_lost": self.n_lost,
            "n_gained": self.n_gained,
            "items": [
                {
                    "item": r["item"],
                    "baseline_score": r["baseline_score"],
                    "candidate_score": r["candidate_score"],
                    "change": r["change"],
                    "lost": lost,
                }
                for r, lost in zip(self.to_records(), self.lost)
            ],
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> ReleaseFlips:
        items = list(row.get("items", ()))
        return cls(
            str(row["dataset"]),
            str(row["metric"]),
            str(row["direction"]),
            int(row["n_items"]),
            tuple(str(i["item"]) for i in items),
            tuple(float(i["baseline_score"]) for i in items),
            tuple(float(i["candidate_score"]) for i in items),
            tuple(bool(i["lost"]) for i in items),
        )


@dataclass(frozen=True)
class ReleaseComparison:
    """The verdicts of a release and its coverage.

    Attributes
    ----------
    baseline, candidate, release
        The two systems and the release label (or None).
    verdicts
        One :class:`ReleaseVerdict` per dataset × metric where both were compared.
    not_compared
        Every dataset × metric of the data where the baseline or the candidate (or
        both) has no score.
    alpha, power
        The significance level of the verdicts and the target power of the MDE.
    correction, interval_correction
        The correction asked for and the single-step one the verdicts and intervals
        use (the same unless it is a step-down correction).
    flips
        Per paired dataset × metric, the items the candidate lost and gained.
    partial
        The dataset × metrics compared on part of their items only (items scored for
        one of the two systems only).
    """

    baseline: str
    candidate: str
    release: str | None
    verdicts: tuple[ReleaseVerdict, ...]
    not_compared: tuple[NotCompared, ...]
    alpha: float
    power: float
    correction: str | None = None
    interval_correction: str | None = None
    flips: tuple[ReleaseFlips, ...] = ()
    partial: tuple[PartialCoverage, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        return {v: sum(r.verdict == v for r in self.verdicts) for v in VERDICTS}

    @property
    def has_margin(self) -> bool:
        """Whether any verdict was judged against a margin."""
        return any(v.margin is not None for v in self.verdicts)

    @property
    def inconclusive(self) -> tuple[ReleaseVerdict, ...]:
        return tuple(v for v in self.verdicts if v.verdict == "inconclusive")

    @property
    def noninferior(self) -> tuple[ReleaseVerdict, ...]:
        return tuple(v for v in self.verdicts if v.verdict == "non-inferior")

    def gate_failures(self, gate: Gate, *, allow_partial: bool = False) -> list[str]:
        """Why the release fails ``gate`` (empty: it passes).

        ``"regression"`` fails on a *regressed* verdict; ``"non-inferiority"`` fails
        unless every compared dataset × metric is *improved* or *non-inferior* (one
        without a margin cannot be): an intersection-union test, so each unit's
        non-inferiority is judged at the unadjusted one-sided level α/2 (Berger 1982).
        Both fail when a dataset × metric of the data was not compared, or was compared
        on part of its items only, unless ``allow_partial``.
        """
        if gate not in GATES:
            raise InputError(f"gate {gate!r} is not valid", hint=f"use one of: {', '.join(GATES)}")
        out = [f"regressed on {v.name}" for v in self.regressions]
        if gate == "non-inferiority":
            for v in self.verdicts:
                if v.verdict in ("improved", "non-inferior", "regressed"):
                    continue
                if v.undecidable:
                    out.append(
                        f"{v.name}: {v.note or UNDECIDABLE}; a robust estimand decides it "
                        f'([metrics.{v.metric}] estimand = "trimmed" or "hodges-lehmann")'
                    )
                elif v.margin is None:
                    out.append(
                        f"{v.name} has no margin, so non-inferiority cannot be "
                        f"shown (give --margin {v.metric}=DELTA)"
                    )
                else:
                    out.append(
                        f"{v.name}: a loss larger than the margin ({v.margin:g}) is not ruled out"
                    )
        if not allow_partial:
            out.extend(f"{n.name} was not compared ({n.reason})" for n in self.not_compared)
            out.extend(f"{p.name} is partial ({p.reason})" for p in self.partial)
        return out

    def gate_guarantee(self, gate: Gate) -> str:
        """What passing ``gate`` guarantees, in words, from the release's α and the kind
        of its intervals: the non-inferiority gate is an intersection-union test (each
        unit's one-sided bound at 1 − α/2, Berger 1982), so a release with a unit
        truly worse by the margin passes at most α/2 of the time ("false-pass rate ≤
        2.5% per unit (one-sided 97.5% bounds)" at α = 0.05); the regression gate
        calls a regression when the family's interval lies on the worse side, so its
        false alarms are bounded as the intervals promise ("false-alarm rate ≤ 5% for
        the whole release (simultaneous 95% intervals)").

        Examples
        --------
        >>> ReleaseComparison("a", "b", None, (), (), 0.05, 0.8).gate_guarantee(
        ...     "non-inferiority")
        'false-pass rate ≤ 2.5% per unit (one-sided 97.5% bounds)'
        """
        if gate not in GATES:
            raise InputError(f"gate {gate!r} is not valid", hint=f"use one of: {', '.join(GATES)}")
        a = self.alpha
        level = one_sided_level(a)
        if gate == "non-inferiority":
            return (
                f"false-pass rate ≤ {_percent(1 - level)} per unit "
                f"(one-sided {_percent(level)} bounds)"
            )
        kinds = {v.ci_adjusted_kind for v in self.verdicts} - {None}
        kind = kinds.pop() if len(kinds) == 1 else "simultaneous"
        if kind == "FCR":
            return (
                f"expected share of false alarms ≤ {_percent(a)} "
                f"(FCR-adjusted {_percent(1 - a)} intervals)"
            )
        if kind == "unadjusted":
            return (
                f"false-alarm rate ≤ {_percent(a)} per unit "
                f"(unadjusted {_percent(1 - a)} intervals)"
            )
        return (
            f"false-alarm rate ≤ {_percent(a)} for the whole release "
            f"(simultaneous {_percent(1 - a)} intervals)"
        )

    @property
    def regressions(self) -> tuple[ReleaseVerdict, ...]:
        return tuple(v for v in self.verdicts if v.verdict == "regressed")

    @property
    def improvements(self) -> tuple[ReleaseVerdict, ...]:
        return tuple(v for v in self.verdicts if v.verdict == "improved")

    @property
    def complete(self) -> bool:
        """Whether every dataset × metric of the data was compared, on all its items."""
        return not self.not_compared and not self.partial

    @property
    def decision(
        self,
    ) -> Literal[
        "regressed",
        "improved",
        "no detectable difference",
        "non-inferior",
        "inconclusive",
        "incomplete",
        "not compared",
    ]:
        """The release in one word: ``"regressed"`` if anything regressed; else
        ``"not compared"`` when nothing could be compared, ``"incomplete"`` when some
        dataset × metric was not, or only on part of its items; else ``"inconclusive"``
        when a loss larger than a margin is not ruled out somewhere; else
        ``"improved"`` if anything improved; else ``"non-inferior"`` when every dataset
        × metric is; else ``"no detectable difference"``."""
        if self.regressions:
            return "regressed"
        if not self.verdicts:
            return "not compared"
        if self.not_compared or self.partial:
            return "incomplete"
        if self.inconclusive:
            return "inconclusive"
        if self.improvements:
            return "improved"
        if all(v.verdict == "non-inferior" for v in self.verdicts):
            return "non-inferior"
        return "no detectable difference"

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "release": self.release,
            "orientation": "candidate - baseline",
            "decision": self.decision,
            "rows": [v.to_dict() for v in self.verdicts],
            "counts": self.counts,
            "not_compared": [n.to_dict() for n in self.not_compared],
            "alpha": self.alpha,
            "power": self.power,
            "correction": self.correction,
            "interval_correction": self.interval_correction,
            "flips": [f.to_dict() for f in self.flips],
            "partial": [p.to_dict() for p in self.partial],
        }

    @classmethod
    def from_dict(cls, verdict: Mapping[str, Any]) -> ReleaseComparison:
        """The comparison of a ``results.json`` ``verdict`` (:meth:`to_dict`), e.g. of an
        archived report read by ``reportgen email``."""
        from dataclasses import replace

        alpha = float(verdict.get("alpha", 0.05))
        rows = [ReleaseVerdict.from_dict(r) for r in verdict.get("rows", ())]
        kind: IntervalKind = "simultaneous" if len(rows) > 1 else "unadjusted"
        rows = [
            replace(
                v,
                alpha=v.alpha if v.alpha is not None else alpha,
                ci_adjusted_kind=v.ci_adjusted_kind or kind,
            )
            for v in rows
        ]
        return cls(
            str(verdict["baseline"]),
            str(verdict["candidate"]),
            verdict.get("release"),
            tuple(rows),
            tuple(NotCompared.from_dict(n) for n in verdict.get("not_compared", ())),
            float(verdict.get("alpha", 0.05)),
            float(verdict.get("power", 0.8)),
            verdict.get("correction"),
            verdict.get("interval_correction"),
            tuple(ReleaseFlips.from_dict(f) for f in verdict.get("flips", ())),
            tuple(PartialCoverage.from_dict(p) for p in verdict.get("partial", ())),
        )


def one_sided_level(alpha: float) -> float:
    """The level of the one-sided bound a verdict at a margin is read off: the loss side
    of the marginal interval at 1 − α, a one-sided 1 − α/2 bound (the one home of this
    level: the verdicts, the gate's guarantee and every label read it)."""
    return 1.0 - alpha / 2


#: The reason of a verdict that cannot be decided: a mean on heavily skewed differences.
UNDECIDABLE = (
    "inconclusive: the mean is not decidable from these items (heavily skewed differences)"
)


def undecidable_note(n_candidate: int, n_baseline: int, paired: bool) -> str:
    """The note of an undecidable verdict, with its numbers of items.

    Examples
    --------
    >>> undecidable_note(30, 30, True)
    'inconclusive: the mean is not decidable from 30 items (heavily skewed differences)'
    """
    items = f"{n_candidate} items" if paired else f"{n_candidate} and {n_baseline} items"
    return f"inconclusive: the mean is not decidable from {items} (heavily skewed differences)"


def _percent(x: float) -> str:
    """``0.025`` as ``2.5%``, ``0.975`` as ``97.5%`` (at most four significant digits)."""
    return f"{100 * x:.4g}%"


def verdict_of(*, diff: float | None, significant: bool, direction: str) -> Verdict:
    """improved / regressed / no detectable difference of a candidate − baseline
    difference."""
    if diff is None or math.isnan(diff) or diff == 0 or not significant:
        return "no detectable difference"
    better = diff > 0 if direction == "higher" else diff < 0
    return "improved" if better else "regressed"


def not_compared(
    units: Sequence[tuple[str, str, Sequence[str]]], *, baseline: str, candidate: str
) -> tuple[NotCompared, ...]:
    """The coverage of a release: every ``(dataset, metric, systems scored)`` of the
    data where the baseline or the candidate has no score, with the closest names among
    the systems that do."""
    names = {"baseline": baseline, "candidate": candidate}
    out = []
    for dataset, metric, present in units:
        missing = tuple(role for role, name in names.items() if name not in present)
        if not missing:
            continue
        absent = " and ".join(f"the {role} {names[role]!r}" for role in missing)
        reason = f"{absent} {'has' if len(missing) == 1 else 'have'} no score here"
        others = [s for s in present if s not in names.values()]
        closest: list[str] = []
        for role in missing:
            for match in difflib.get_close_matches(names[role], others, n=2, cutoff=0.6):
                if match not in closest:
                    closest.append(match)
        out.append(NotCompared(dataset, metric, missing, reason, tuple(closest)))
    return tuple(out)


def estimand_of(metric: str, table: Any) -> Estimand:
    """The estimand of ``metric`` in ``table`` (a :class:`~reportgen.data.ScoreTable`):
    its config's ``[metrics.NAME] estimand``, else the mean."""
    info = table.metrics.get(metric)
    return "mean" if info is None else info.estimand


def margin_of(
    metric: str, margins: Mapping[str, float] | None, config_margin: float | None = None
) -> float | None:
    """The margin of ``metric``: ``margins[metric]``, else ``margins["*"]`` (every
    metric), else the config's ``[metrics.NAME] margin``, else None."""
    margins = margins or {}
    if metric in margins:
        return float(margins[metric])
    if "*" in margins:
        return float(margins["*"])
    return None if config_margin is None else float(config_margin)


# Over 100 lines of code: the release's decision in one place (per unit: verdict,
# margin, intersection-union gate, partial coverage, flips; then the not-compared
# units), so the ledger's one answer per question can be audited top to bottom.
def release_comparison(
    units: Sequence[Any],
    coverage: Sequence[tuple[str, str, Sequence[str]]],
    *,
    baseline: str,
    candidate: str,
    release: str | None,
    table: Any,
    options: Any,
    seed: int,
) -> ReleaseComparison:
    """The verdicts of ``candidate`` against ``baseline`` from the units of a release
    analysis (:class:`~reportgen.analysis.results.UnitResult`), the scores in ``table``
    (a :class:`~reportgen.data.ScoreTable`), the options of the analysis
    (:class:`~reportgen.analysis.AnalysisOptions`, whose ``margins`` apply) and the
    coverage of ``(dataset, metric, systems scored)`` of the data.

    Every unit with per-item scores is tested at its margin (or without one) by
    :func:`reportgen.stats.margins.margin_paired` / ``margin_unpaired`` with the unit's
    pairing, and the family is decided by
    :func:`reportgen.stats.margins.margin_decisions`; corpus-level units keep the
    analysis' superiority verdict.
    """
    from reportgen.analysis._units import unit_rng
    from reportgen.stats.flips import flipped_items
    from reportgen.stats.margins import (
        margin_decisions,
        margin_paired,
        margin_unpaired,
        single_step_correction,
    )
    from reportgen.stats.multiplicity import interval_kind

    method = options.method if options.method in ("permutation", "bootstrap") else "auto"
    tested: list[tuple[Any, dict[str, Any], Any]] = []  # (unit, engine row, MarginResult)
    corpus: list[tuple[Any, dict[str, Any]]] = []
    flips: list[ReleaseFlips] = []
    for unit in units:
        row = _pair_row(unit, baseline, candidate)
        if row is None:
            continue
        if unit.derived_from is not None:
            corpus.append((unit, row))
            continue
        info = table.metrics.get(unit.metric)
        margin = margin_of(unit.metric, options.margins, None if info is None else info.margin)
        common = dict(
            margin=margin,
            direction=unit.direction,
            modality=unit.modality,
            estimand=estimand_of(unit.metric, table),
            method=method,
            confidence=options.confidence,
            n_resamples=options.n_resamples,
            max_memory=options.max_memory,
            rng=unit_rng(seed, unit.dataset, unit.metric, stream=8),
        )
        where = f"{unit.dataset} / {unit.metric}"
        if unit.pairing == "paired":
            samples = table.paired(unit.dataset, unit.metric, systems=(baseline, candidate))
            X = samples.item_means()
            result = _at(
                where,
                lambda X=X, common=common: margin_paired(
                    X, systems=(baseline, candidate), baseline=0, **common
                ),
            )
            flip = flipped_items(X[:, 0], X[:, 1], items=samples.items, direction=unit.direction)
            flips.append(
                ReleaseFlips(
                    unit.dataset,
                    unit.metric,
                    unit.direction,
                    flip.n_items,
                    tuple(str(i) for i in flip.items),
                    tuple(float(x) for x in flip.baseline_score),
                    tuple(float(x) for x in flip.candidate_score),
                    tuple(bool(x) for x in flip.lost),
                )
            )
        else:
            samples = table.unpaired(unit.dataset, unit.metric, systems=(baseline, candidate))
            arrays = list(samples.item_means())
            result = _at(
                where,
                lambda arrays=arrays, common=common: margin_unpaired(
                    arrays, systems=(baseline, candidate), baseline=0, **common
                ),
            )
        tested.append((unit, row, result))

    interval_correction = single_step_correction(options.correction)
    decisions = (
        margin_decisions(
            [r for _, _, r in tested], alpha=options.alpha, correction=options.correction
        )
        if tested
        else None
    )
    flip_of = {(f.dataset, f.metric): f for f in flips}
    partial = []
    for unit, _, _ in tested:
        if unit.pairing != "paired":  # unpaired: every item of each system is used
            continue
        info = table.pairing(unit.dataset, unit.metric, (baseline, candidate))
        counts = info.items_per_system
        if info.n_common < info.n_items:
            partial.append(
                PartialCoverage(
                    unit.dataset,
                    unit.metric,
                    int(counts.get(baseline, 0)),
                    int(counts.get(candidate, 0)),
                    int(info.n_common),
                )
            )
    verdicts = []
    kind = None if decisions is None else interval_kind(interval_correction, decisions.m)
    for k, (unit, row, result) in enumerate(tested):
        assert decisions is not None
        d = decisions
        flipped = flip_of.get((unit.dataset, unit.metric))
        marginal_low, marginal_high = result.interval(options.confidence)
        verdict = _intersection_union(d.verdict[k], result, options.alpha)
        adj_low, adj_high = _num(d.ci_low[k]), _num(d.ci_high[k])
        note = (
            (unit.comparisons.note(0) or None)
            if isinstance(unit.comparisons, PairwiseResult) and unit.comparisons.n_pairs == 1
            else None
        )
        skewed = None if result.skewed is None else bool(result.skewed[0])
        if skewed and result.estimand == "mean":
            # no test of a mean holds its level on such data at this n (Bahadur & Savage
            # 1956): the verdict is not decided on the approximation, and its interval
            # (approximate) is widened to 0 so that it says the same
            verdict = "inconclusive"
            note = undecidable_note(
                int(result.n_candidate[0]), int(result.n_baseline[0]), result.paired
            )
            adj_low = None if adj_low is None else min(adj_low, 0.0)
            adj_high = None if adj_high is None else max(adj_high, 0.0)
        verdicts.append(
            _verdict(
                unit,
                row,
                baseline,
                candidate,
                diff=float(result.diff[0]),
                ci_low=_num(marginal_low[0]),
                ci_high=_num(marginal_high[0]),
                confidence=float(options.confidence),
                ci_adjusted_low=adj_low,
                ci_adjusted_high=adj_high,
                confidence_adjusted=float(d.confidence),
                ci_adjusted_kind=kind,
                estimand=result.estimand,
                test=result.superiority_test,
                p_value=_num(d.p_superiority[k]),
                p_adjusted=_num(d.p_superiority_adjusted[k]),
                correction=interval_correction,
                verdict=verdict,
                ni_bound=_ni_bound(result, options.alpha),
                ni_level=None if result.margin is None else one_sided_level(options.alpha),
                alpha=float(options.alpha),
                skewed=skewed,
                note=note,
                margin=result.margin,
                p_noninferiority=_num(d.p_noninferiority[k]),
                p_noninferiority_adjusted=_num(d.p_noninferiority_adjusted[k]),
                p_equivalence=_num(d.p_equivalence[k]),
                p_equivalence_adjusted=_num(d.p_equivalence_adjusted[k]),
                equivalent=None if result.margin is None else bool(d.equivalent[k]),
                n_lost=None if flipped is None else flipped.n_lost,
                n_gained=None if flipped is None else flipped.n_gained,
            )
        )
    for unit, row in corpus:
        sign = 1.0 if row["system_a"] == candidate else -1.0
        low, high = _signed(row.get("ci_low"), sign), _signed(row.get("ci_high"), sign)
        adj_low = _signed(row.get("ci_adjusted_low"), sign)
        adj_high = _signed(row.get("ci_adjusted_high"), sign)
        if sign < 0:
            low, high = high, low
            adj_low, adj_high = adj_high, adj_low
        diff = _signed(row.get("diff"), sign)
        verdicts.append(
            _verdict(
                unit,
                row,
                baseline,
                candidate,
                diff=diff,
                ci_low=low,
                ci_high=high,
                confidence=float(row["confidence"]),
                ci_adjusted_low=adj_low,
                ci_adjusted_high=adj_high,
                confidence_adjusted=row.get("confidence_adjusted"),
                ci_adjusted_kind=row.get("ci_adjusted_kind")
                or interval_kind(str(row["correction"]), len(tested) + len(corpus)),
                estimand=row.get("estimand") or "mean",
                test=str(row["test"]),
                p_value=row.get("p_value"),
                p_adjusted=row.get("p_adjusted"),
                correction=str(row["correction"]),
                alpha=float(options.alpha),
                verdict=verdict_of(
                    diff=diff, significant=bool(row["significant"]), direction=unit.direction
                ),
            )
        )
    order = {(u.dataset, u.metric): i for i, u in enumerate(units)}
    verdicts.sort(key=lambda v: order[(v.dataset, v.metric)])
    return ReleaseComparison(
        baseline,
        candidate,
        release,
        tuple(verdicts),
        not_compared(coverage, baseline=baseline, candidate=candidate),
        options.alpha,
        options.power,
        options.correction,
        interval_correction,
        tuple(flips),
        tuple(partial),
    )


def _ni_bound(result: Any, alpha: float) -> float | None:
    """The bound a non-inferiority claim is read off: the loss side of the marginal
    interval at 1 − α (the one-sided 1 − α/2 bound), None without a margin."""
    if result.margin is None:
        return None
    low, high = result.interval(1.0 - alpha)
    return _num((low if result.direction == "higher" else high)[0])


def _intersection_union(verdict: str, result: Any, alpha: float) -> Verdict:
    """The verdict with non-inferiority judged as the gate needs it.

    "Every dataset × metric is non-inferior" is an intersection-union test: it holds
    at level α/2 when each unit's non-inferiority test does, unadjusted (Berger 1982),
    so a unit is *non-inferior* when its marginal one-sided 1 − α/2 bound lies on the
    right side of the margin (``p_noninferiority <= α/2``). Improved and regressed stay
    the family's adjusted decisions (:func:`reportgen.stats.margins.margin_decisions`).

    References
    ----------
    .. [1] Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling.
           Technometrics 24(4), 295-300.
    """
    if result.margin is None or verdict in ("improved", "regressed"):
        return verdict  # type: ignore[return-value]
    bound = _ni_bound(result, alpha)
    if bound is None:
        return "inconclusive"
    delta = float(result.margin)
    ok = bound > -delta if result.direction == "higher" else bound < delta
    return "non-inferior" if ok else "inconclusive"


def _pair_row(unit: Any, baseline: str, candidate: str) -> dict[str, Any] | None:
    """The unit's comparison row of the two systems, or None."""
    for row in unit.comparison_records():
        if {row["system_a"], row["system_b"]} == {baseline, candidate}:
            return row
    return None


def _at(where: str, compute: Any) -> Any:
    """``compute()``, with the dataset × metric named in an input error (a margin that
    does not fit the metric's scale, say)."""
    try:
        return compute()
    except InputError as exc:
        raise InputError(f"{where}: {exc.message}", hint=exc.hint) from exc


def _num(value: Any) -> float | None:
    v = float(value)
    return None if math.isnan(v) else v


def _verdict(
    unit: Any, row: Mapping[str, Any], baseline: str, candidate: str, **fields_: Any
) -> ReleaseVerdict:
    """A verdict with the unit's means, counts, effect size and MDE, oriented
    candidate − baseline."""
    a_is_candidate = row["system_a"] == candidate
    sign = 1.0 if a_is_candidate else -1.0
    mde = None
    if unit.power is not None:
        value = float(unit.power.mde.delta)
        mde = None if math.isnan(value) else abs(value)
    return ReleaseVerdict(
        dataset=unit.dataset,
        metric=unit.metric,
        direction=unit.direction,
        modality=unit.modality,
        baseline=baseline,
        candidate=candidate,
        mean_baseline=row["mean_b"] if a_is_candidate else row["mean_a"],
        mean_candidate=row["mean_a"] if a_is_candidate else row["mean_b"],
        effect_size=_signed(row.get("effect_size"), sign),
        effect_size_kind=row.get("effect_size_kind"),
        n_baseline=int(row["n_b"] if a_is_candidate else row["n_a"]),
        n_candidate=int(row["n_a"] if a_is_candidate else row["n_b"]),
        mde=mde,
        proportion=bool(unit.proportion),
        **fields_,
    )


def _signed(value: Any, sign: float) -> float | None:
    return None if value is None else sign * float(value)

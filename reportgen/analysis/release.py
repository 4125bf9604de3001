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

Every difference is ``candidate − baseline`` on the metric's own scale (the comparisons
of a release analysis have ``system_a`` = candidate).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from reportgen.errors import InputError

__all__ = ["VERDICTS", "NotCompared", "ReleaseComparison", "ReleaseVerdict",
           "not_compared", "release_comparison", "resolve_release_systems", "verdict_of"]

Verdict = Literal["improved", "regressed", "no detectable difference"]
VERDICTS: tuple[Verdict, ...] = ("improved", "regressed", "no detectable difference")


def resolve_release_systems(systems: Sequence[str], *, baseline: str | None,
                            candidate: str | None, release: str | None = None
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
            close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
            hint = (f"did you mean {', '.join(close)}?" if close else
                    f"systems: {', '.join(names[:20])}" + (" …" if len(names) > 20 else ""))
            raise InputError(f"{label} {name!r} is not a system of the data", hint=hint)
    if candidate is None and release is not None and release in names \
            and release != baseline:
        candidate = release
    if candidate is None and baseline is not None and len(names) == 2:
        candidate = next(s for s in names if s != baseline)
    if baseline is None and candidate is not None and len(names) == 2:
        baseline = next(s for s in names if s != candidate)
    if baseline is None or candidate is None:
        raise InputError("a release report needs the baseline and the candidate system",
                         hint="pass --baseline SYSTEM and --candidate SYSTEM (systems: "
                              f"{', '.join(names[:20])}" + (" …" if len(names) > 20 else "")
                              + ")")
    if baseline == candidate:
        raise InputError(f"the baseline and the candidate are the same system "
                         f"({baseline!r})", hint="pass two different systems")
    return baseline, candidate


@dataclass(frozen=True)
class ReleaseVerdict:
    """The candidate against the baseline on one dataset × metric.

    ``diff``, ``ci_low`` and ``ci_high`` are candidate − baseline on the metric's own
    scale; ``mde`` is the minimum detectable effect in the same units (non-negative, or
    None when undefined); ``effect_size`` has the sign of ``diff``.
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

    @property
    def name(self) -> str:
        return f"{self.dataset} / {self.metric}"

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> ReleaseVerdict:
        """The verdict of a ``results.json`` row (:meth:`to_dict`); fields a row of an
        older reportgen lacks take their defaults."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in row.items() if k in names})


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
        return {"dataset": self.dataset, "metric": self.metric,
                "missing": list(self.missing), "reason": self.reason,
                "closest": list(self.closest)}

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> NotCompared:
        return cls(str(row["dataset"]), str(row["metric"]),
                   tuple(row.get("missing", ())), str(row.get("reason", "")),
                   tuple(row.get("closest", ())))


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
    """

    baseline: str
    candidate: str
    release: str | None
    verdicts: tuple[ReleaseVerdict, ...]
    not_compared: tuple[NotCompared, ...]
    alpha: float
    power: float

    @property
    def counts(self) -> dict[str, int]:
        return {v: sum(r.verdict == v for r in self.verdicts) for v in VERDICTS}

    @property
    def regressions(self) -> tuple[ReleaseVerdict, ...]:
        return tuple(v for v in self.verdicts if v.verdict == "regressed")

    @property
    def improvements(self) -> tuple[ReleaseVerdict, ...]:
        return tuple(v for v in self.verdicts if v.verdict == "improved")

    @property
    def complete(self) -> bool:
        """Whether every dataset × metric of the data was compared."""
        return not self.not_compared

    @property
    def decision(self) -> Literal["regressed", "improved", "no detectable difference",
                                  "incomplete", "not compared"]:
        """The release in one word: ``"regressed"`` if anything regressed; else
        ``"not compared"`` when nothing could be compared, ``"incomplete"`` when some
        dataset × metric was not; else ``"improved"`` if anything improved; else ``"no
        detectable difference"``."""
        if self.regressions:
            return "regressed"
        if not self.verdicts:
            return "not compared"
        if self.not_compared:
            return "incomplete"
        if self.improvements:
            return "improved"
        return "no detectable difference"

    def to_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "candidate": self.candidate,
                "release": self.release, "orientation": "candidate - baseline",
                "decision": self.decision,
                "rows": [v.to_dict() for v in self.verdicts], "counts": self.counts,
                "not_compared": [n.to_dict() for n in self.not_compared],
                "alpha": self.alpha, "power": self.power}

    @classmethod
    def from_dict(cls, verdict: Mapping[str, Any]) -> ReleaseComparison:
        """The comparison of a ``results.json`` ``verdict`` (:meth:`to_dict`), e.g. of an
        archived report read by ``reportgen email``."""
        return cls(str(verdict["baseline"]), str(verdict["candidate"]),
                   verdict.get("release"),
                   tuple(ReleaseVerdict.from_dict(r) for r in verdict.get("rows", ())),
                   tuple(NotCompared.from_dict(n) for n in verdict.get("not_compared", ())),
                   float(verdict.get("alpha", 0.05)), float(verdict.get("power", 0.8)))


def verdict_of(*, diff: float | None, significant: bool, direction: str) -> Verdict:
    """improved / regressed / no detectable difference of a candidate − baseline
    difference."""
    if diff is None or math.isnan(diff) or diff == 0 or not significant:
        return "no detectable difference"
    better = diff > 0 if direction == "higher" else diff < 0
    return "improved" if better else "regressed"


def not_compared(units: Sequence[tuple[str, str, Sequence[str]]], *, baseline: str,
                 candidate: str) -> tuple[NotCompared, ...]:
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


def release_comparison(units: Sequence[Any], coverage: Sequence[tuple[str, str, Sequence[str]]],
                       *, baseline: str, candidate: str, release: str | None,
                       alpha: float, power: float) -> ReleaseComparison:
    """The verdicts of ``candidate`` against ``baseline`` from the units of a release
    analysis (:class:`~reportgen.analysis.results.UnitResult`), and the coverage of
    ``(dataset, metric, systems scored)`` of the data."""
    verdicts = []
    for unit in units:
        for row in unit.comparison_records():
            pair = (row["system_a"], row["system_b"])
            if pair == (candidate, baseline):
                sign = 1.0
            elif pair == (baseline, candidate):
                sign = -1.0
            else:
                continue
            diff = _signed(row.get("diff"), sign)
            low, high = _signed(row.get("ci_low"), sign), _signed(row.get("ci_high"), sign)
            if sign < 0:
                low, high = high, low
            a_is_candidate = sign > 0
            mde = None
            if unit.power is not None:
                value = float(unit.power.mde.delta)
                mde = None if math.isnan(value) else abs(value)
            verdicts.append(ReleaseVerdict(
                dataset=unit.dataset, metric=unit.metric, direction=unit.direction,
                modality=unit.modality, baseline=baseline, candidate=candidate,
                mean_baseline=row["mean_b"] if a_is_candidate else row["mean_a"],
                mean_candidate=row["mean_a"] if a_is_candidate else row["mean_b"],
                diff=diff, ci_low=low, ci_high=high, confidence=float(row["confidence"]),
                test=str(row["test"]), p_value=row.get("p_value"),
                p_adjusted=row.get("p_adjusted"), correction=str(row["correction"]),
                effect_size=_signed(row.get("effect_size"), sign),
                effect_size_kind=row.get("effect_size_kind"),
                n_baseline=int(row["n_b"] if a_is_candidate else row["n_a"]),
                n_candidate=int(row["n_a"] if a_is_candidate else row["n_b"]),
                mde=mde, verdict=verdict_of(diff=diff, significant=bool(row["significant"]),
                                            direction=unit.direction),
                proportion=bool(unit.proportion)))
    return ReleaseComparison(baseline, candidate, release, tuple(verdicts),
                             not_compared(coverage, baseline=baseline, candidate=candidate),
                             alpha, power)


def _signed(value: Any, sign: float) -> float | None:
    return None if value is None else sign * float(value)

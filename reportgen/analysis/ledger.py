"""The decision ledger: every claim a report states, decided once.

A report is a set of claims: "A is better than B on X", "the release is non-inferior on
Y", "differences below Z pts go undetected here". The :class:`Ledger` of an analysis
(:attr:`reportgen.analysis.Analysis.ledger`) holds each of them as it was decided, with
everything needed to show it:

* **the family** (:class:`Family`): the comparisons corrected together, stated once. A
  release report's family is the release (all its dataset × metric units, decided on
  the simultaneous intervals of the single-step form of the correction); an evaluation
  report's is what ``correction`` and ``correct_across`` say (each dataset × metric, or
  the whole analysis);
* **the comparisons** (:class:`Claim`, from :meth:`Ledger.claims`): per pair its test,
  raw and adjusted p-value, the marginal interval (which goes with the raw p) and the
  adjusted interval (which excludes 0 exactly when the pair is significant,
  :func:`reportgen.stats.multiplicity.compatible_intervals`), oriented with the
  higher-ranked system as A (a release: the candidate);
* **the release verdicts** (:class:`reportgen.analysis.release.ReleaseComparison`);
* **one noise figure per dataset × metric** (:class:`NoiseFigure`): the minimum
  detectable effect at the family's per-comparison level, a property of the design;
* **the methods used** (:class:`MethodUsed`), each with its reference.

Every output renders these claims and never recomputes, re-adjusts or re-words them:
the report's sections, the e-mail, ``results.json`` (its ``comparisons``, ``verdict``
and ``ledger`` sections are the serialisation), ``tables/*.csv``, the console summary,
the exit status of a gate and ``reportgen history``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from reportgen.analysis.release import ReleaseComparison
from reportgen.plaintext import count

if TYPE_CHECKING:
    from reportgen.analysis._core import Analysis
    from reportgen.analysis.results import UnitResult

__all__ = [
    "CORRECTION_NAMES",
    "Claim",
    "Family",
    "Ledger",
    "MethodUsed",
    "NoiseFigure",
    "build_ledger",
]

#: How each correction is named in prose.
CORRECTION_NAMES: dict[str, str] = {
    "holm-sidak": "Holm-Šidák",
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "sidak": "Šidák",
    "fdr_bh": "Benjamini-Hochberg",
    "fdr_by": "Benjamini-Yekutieli",
    "none": "no correction",
}

Scope = Literal["release", "analysis", "dataset × metric"]


@dataclass(frozen=True)
class Family:
    """The comparisons corrected together, stated once.

    Attributes
    ----------
    scope
        ``"release"`` (every dataset × metric of a release), ``"analysis"`` (every
        comparison of the analysis) or ``"dataset × metric"`` (each dataset × metric is
        a family of its own).
    correction
        The correction the decisions use (a release uses the single-step form of the
        one asked for: Šidák for Holm-Šidák, Bonferroni for Holm).
    requested
        The correction asked for.
    alpha
        The family's error rate.
    sizes
        The number of comparisons of each family (one entry for a release or the whole
        analysis, one per dataset × metric otherwise).
    intervals
        How the adjusted intervals are made, in words.
    """

    scope: Scope
    correction: str
    requested: str
    alpha: float
    sizes: tuple[int, ...]
    intervals: str

    @property
    def size(self) -> int:
        """The largest family's number of comparisons."""
        return max(self.sizes, default=0)

    def describe(self) -> str:
        """The family in one phrase, e.g. "Šidák over the release's 2 dataset × metric
        comparisons (α = 0.05)"."""
        name = CORRECTION_NAMES.get(self.correction, self.correction)
        if self.scope == "release":
            n = self.size
            where = f"over the release's {count(n, 'dataset × metric comparison')}"
        elif self.scope == "analysis":
            n = self.size
            where = f"across all {count(n, 'comparison')} of the analysis"
        else:
            n = self.size
            upto = f" (up to {n:,} comparisons)" if n > 1 else ""
            where = "within each dataset × metric" + upto
        return f"{name} {where} (α = {self.alpha:g})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "correction": self.correction,
            "requested": self.requested,
            "alpha": self.alpha,
            "sizes": list(self.sizes),
            "intervals": self.intervals,
            "description": self.describe(),
        }


@dataclass(frozen=True)
class Claim:
    """One comparison as the ledger decided it: ``diff = mean_a − mean_b`` on the
    metric's own scale.

    ``ci_low``/``ci_high`` are the marginal (unadjusted) interval at ``confidence``,
    which goes with ``p_value``; ``ci_adjusted_low``/``ci_adjusted_high`` the interval at
    ``confidence_adjusted`` that agrees with the decision (it excludes 0 exactly when
    ``significant``), which goes with ``p_adjusted``. A one-sided test has one adjusted
    bound (the other None).
    """

    dataset: str
    metric: str
    system_a: str
    system_b: str
    direction: str
    proportion: bool
    test: str
    alternative: str
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    ci_adjusted_low: float | None
    ci_adjusted_high: float | None
    confidence_adjusted: float | None
    p_value: float | None
    p_adjusted: float | None
    correction: str
    significant: bool
    effect_size: float | None = None
    effect_size_kind: str | None = None

    @classmethod
    def from_record(cls, row: Mapping[str, Any], *, proportion: bool) -> Claim:
        """The claim of a ``comparisons`` row of results.json."""
        names = {f.name for f in fields(cls)}
        values: dict[str, Any] = {k: row.get(k) for k in names if k != "proportion"}
        values["significant"] = bool(row.get("significant"))
        return cls(proportion=proportion, **values)

    @property
    def better(self) -> str | None:
        """The system the claim says is better, or None (no significant difference)."""
        if not self.significant or self.diff is None or self.diff == 0:
            return None
        a_higher = self.diff > 0
        return self.system_a if a_higher == (self.direction == "higher") else self.system_b

    def open_range(self) -> tuple[float | None, float | None]:
        """The adjusted interval of ``diff``: what the data leave open after the
        family's correction (None where unbounded)."""
        return _finite(self.ci_adjusted_low), _finite(self.ci_adjusted_high)


@dataclass(frozen=True)
class NoiseFigure:
    """The noise figure of one dataset × metric: its minimum detectable effect.

    The smallest true difference a single comparison detects with probability
    ``power`` when tested at ``level``, the per-comparison level of its family
    (:func:`reportgen.stats.multiplicity.single_step_level`), in the design and with the
    variability observed (a property of the design, not of a result: it is never an
    argument that an observed difference is small).
    """

    dataset: str
    metric: str
    mde: float | None
    level: float
    power: float
    n_items: int
    design: str
    proportion: bool

    DEFINITION = (
        "minimum detectable effect: the smallest true difference one comparison detects "
        "with the target power at the family's per-comparison level, in this design and "
        "with the variability observed"
    )

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "metric": self.metric,
            "mde": self.mde,
            "level": self.level,
            "power": self.power,
            "n_items": self.n_items,
            "design": self.design,
            "proportion": self.proportion,
            "definition": self.DEFINITION,
        }


@dataclass(frozen=True)
class MethodUsed:
    """A method the analysis used: ``kind`` (test, correction, interval, margin,
    family), its ``name``, the dataset × metrics it served and its reference."""

    kind: str
    name: str
    units: tuple[str, ...]
    reference: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "units": list(self.units),
            "reference": self.reference,
        }


@dataclass(frozen=True)
class Ledger:
    """Every claim of an analysis (module docstring)."""

    family: Family
    units: tuple[UnitResult, ...]
    noise: tuple[NoiseFigure, ...]
    methods: tuple[MethodUsed, ...]
    release: ReleaseComparison | None = None

    def claims(self, unit: UnitResult) -> list[Claim]:
        """The comparisons of ``unit``, in rank order (A the higher-ranked system; in a
        release, the candidate)."""
        proportion = bool(unit.proportion)
        return [Claim.from_record(r, proportion=proportion) for r in unit.comparison_records()]

    def claim(self, dataset: str, metric: str, a: str, b: str) -> Claim | None:
        """The comparison of ``a`` and ``b`` on ``dataset`` × ``metric`` as the ledger
        holds it (either orientation), or None."""
        for unit in self.units:
            if (unit.dataset, unit.metric) != (dataset, metric):
                continue
            for c in self.claims(unit):
                if {c.system_a, c.system_b} == {a, b}:
                    return c
        return None

    def noise_of(self, dataset: str, metric: str) -> NoiseFigure | None:
        for figure in self.noise:
            if (figure.dataset, figure.metric) == (dataset, metric):
                return figure
        return None

    def to_dict(self) -> dict[str, Any]:
        """The ``ledger`` section of results.json (the comparisons and verdicts are its
        ``comparisons`` and ``verdict`` sections)."""
        out: dict[str, Any] = {
            "family": self.family.to_dict(),
            "noise": [n.to_dict() for n in self.noise],
            "methods": [m.to_dict() for m in self.methods],
        }
        if self.release is not None:
            out["decision"] = self.release.decision
        return out


# ------------------------------------------------------------------------- building

_TEST_REFERENCES: tuple[tuple[str, str], ...] = (
    (
        "McNemar",
        "McNemar, Q. (1947). Psychometrika 12(2), 153-157 (exact: the binomial "
        "test on the discordant items)",
    ),
    ("sign test", "Dixon, W. J. & Mood, A. M. (1946). JASA 41(236), 557-566"),
    ("Welch", "Welch, B. L. (1947). Biometrika 34(1-2), 28-35"),
    ("paired t", "Student (1908). Biometrika 6(1), 1-25"),
    ("two-proportion", "Newcombe, R. G. (1998). Statistics in Medicine 17(8), 873-890"),
    (
        "permutation",
        "Good, P. (2005). Permutation, Parametric and Bootstrap Tests of "
        "Hypotheses, 3rd ed. Springer",
    ),
    (
        "sign-flip",
        "Good, P. (2005). Permutation, Parametric and Bootstrap Tests of "
        "Hypotheses, 3rd ed. Springer",
    ),
    (
        "bootstrap",
        "Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. "
        "Chapman & Hall, §16 (null-shifted bootstrap test)",
    ),
    (
        "randomization",
        "Noreen, E. W. (1989). Computer-Intensive Methods for Testing "
        "Hypotheses. Wiley (approximate randomization)",
    ),
    ("Tango", "Tango, T. (1998). Statistics in Medicine 17(8), 891-908"),
    (
        "score",
        "Tango, T. (1998). Statistics in Medicine 17(8), 891-908; Nam, J. (1997). "
        "Biometrics 53(4), 1422-1430",
    ),
)

_CORRECTION_REFERENCES: dict[str, str] = {
    "holm-sidak": "Holm, S. (1979). Scand. J. Statist. 6(2), 65-70; Šidák, Z. (1967). "
    "JASA 62(318), 626-633",
    "holm": "Holm, S. (1979). Scand. J. Statist. 6(2), 65-70",
    "bonferroni": "Dunn, O. J. (1961). JASA 56(293), 52-64",
    "sidak": "Šidák, Z. (1967). JASA 62(318), 626-633",
    "fdr_bh": "Benjamini, Y. & Hochberg, Y. (1995). JRSS B 57(1), 289-300",
    "fdr_by": "Benjamini, Y. & Yekutieli, D. (2001). Ann. Statist. 29(4), 1165-1188",
    "none": "",
}


def _reference(test: str) -> str:
    for key, ref in _TEST_REFERENCES:
        if key.lower() in test.lower():
            return ref
    return ""


def _finite(value: Any) -> float | None:
    if value is None:
        return None
    v = float(value)
    return None if math.isnan(v) else v


def _intervals_text(scope: Scope, correction: str) -> str:
    """How the adjusted intervals of a family are made and what they promise, in words
    (their kind: :func:`reportgen.stats.multiplicity.interval_plan`)."""
    if scope == "release":
        return (
            "simultaneous intervals of the release at the per-comparison level of "
            f"{CORRECTION_NAMES.get(correction, correction)}, each inverting its own test; "
            "every verdict is read off its interval"
        )
    if correction in ("holm", "holm-sidak"):
        how = (
            "a step-down compatible interval (Strassburger & Bretz 2008): unless every "
            "comparison is rejected, a rejected one gets only its sign (a bound at 0), one "
            "not rejected its own interval carried to the level where the step-down "
            "procedure stopped on the side of 0 and to the single-step level on the other; "
            "together they cover with probability at least 1 − α"
        )
    elif correction in ("fdr_bh", "fdr_by"):
        how = (
            "an FCR-adjusted interval: its own interval carried to the false-coverage-rate "
            "level of Benjamini & Yekutieli (2005), so that at most a share α of the "
            "significant comparisons' intervals miss, in expectation (not simultaneous)"
        )
    elif correction == "none":
        how = "its own interval at α, unadjusted"
    else:
        how = (
            "a simultaneous interval: its own interval carried to the single-step "
            "per-comparison level; together they cover with probability at least 1 − α"
        )
    return (
        f"{how}; cut or extended at 0 where an interval and its test disagree, so that it "
        "excludes 0 exactly when the comparison is significant"
    )


def build_ledger(analysis: Analysis) -> Ledger:
    """The ledger of ``analysis`` (:attr:`Analysis.ledger` caches it)."""
    options = analysis.options
    compared = analysis.compared
    release = analysis.release
    if release is not None:
        scope: Scope = "release"
        correction = release.interval_correction or options.correction
        sizes: tuple[int, ...] = (len(release.verdicts),)
    elif options.correct_across == "all":
        scope = "analysis"
        correction = options.correction
        sizes = (sum(u.comparisons.n_pairs for u in compared if u.comparisons is not None),)
    else:
        scope = "dataset × metric"
        correction = options.correction
        sizes = tuple(u.comparisons.n_pairs for u in compared if u.comparisons is not None)
    family = Family(
        scope,
        correction,
        options.correction,
        float(options.alpha),
        sizes,
        _intervals_text(scope, correction),
    )
    noise = []
    for u in analysis.units:
        if u.power is None or u.derived_from is not None:
            continue
        m = u.power.mde
        value = float(m.delta)
        noise.append(
            NoiseFigure(
                u.dataset,
                u.metric,
                None if math.isnan(value) else abs(value),
                float(m.alpha),
                float(m.target_power or analysis.options.power),
                u.n_items,
                f"{u.pairing} {u.modality}",
                bool(u.proportion),
            )
        )
    return Ledger(family, analysis.units, tuple(noise), _methods(analysis, family), release)


def _methods(analysis: Analysis, family: Family) -> tuple[MethodUsed, ...]:
    """Exactly the tests, intervals, correction and margins the claims used."""
    tests: dict[str, list[str]] = {}
    intervals: dict[str, list[str]] = {}
    for u in analysis.compared:
        assert u.comparisons is not None
        tests.setdefault(u.comparisons.test, []).append(u.name)
        intervals.setdefault(u.comparisons.ci_method, []).append(u.name)
    if analysis.release is not None:
        for v in analysis.release.verdicts:
            units = tests.setdefault(v.test, [])
            if v.name not in units:
                units.append(v.name)
    out = [
        MethodUsed("test", name, tuple(units), _reference(name)) for name, units in tests.items()
    ]
    out.extend(
        MethodUsed("interval", name, tuple(units), _reference(name))
        for name, units in intervals.items()
    )
    out.append(
        MethodUsed(
            "correction",
            family.describe(),
            (),
            _CORRECTION_REFERENCES.get(family.correction, ""),
        )
    )
    out.append(
        MethodUsed(
            "adjusted interval",
            family.intervals,
            (),
            "Miettinen, O. S. (1976). Am. J. Epidemiol. 103(2), 226-235; Strassburger, K. & "
            "Bretz, F. (2008). Statistics in Medicine 27(24), 4914-4927; Benjamini, Y. & "
            "Yekutieli, D. (2005). JASA 100(469), 71-81"
            if family.scope != "release"
            else "Šidák, Z. (1967). JASA 62(318), 626-633; ICH E9 (1998) §5.5",
        )
    )
    release = analysis.release
    if release is not None and release.has_margin:
        margins = sorted({(v.metric, v.margin) for v in release.verdicts if v.margin is not None})
        out.append(
            MethodUsed(
                "margin",
                ", ".join(f"{metric}: δ = {margin:g}" for metric, margin in margins),
                tuple(v.name for v in release.verdicts if v.margin is not None),
                "Schuirmann, D. J. (1987). J. Pharmacokin. Biopharm. 15(6), 657-680; "
                "Wellek, S. (2010). Testing Statistical Hypotheses of Equivalence and "
                "Noninferiority, 2nd ed. CRC",
            )
        )
    return tuple(out)

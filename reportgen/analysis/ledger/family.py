"""The family of the ledger's claims, its noise figures and the methods it used.

* :class:`Family`: the comparisons corrected together, stated once, with the kind of
  interval that agrees with its decisions;
* :class:`NoiseFigure`: one minimum detectable effect per dataset × metric;
* :class:`MethodUsed`: a test, interval, correction or margin the claims used, with its
  reference.

Examples
--------
>>> Family("dataset × metric", "holm-sidak", "holm-sidak", 0.05, (1,)).describe()
'within each dataset × metric, 1 comparison: no adjustment, α = 0.05'
>>> Family("release", "sidak", "holm-sidak", 0.05, (2,)).describe()
"Šidák over the release's 2 dataset × metric comparisons, α = 0.05"
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reportgen.analysis.ledger.claims import interval_kind, number_or
from reportgen.names import CORRECTION_NAMES, FamilyScope, IntervalKind
from reportgen.plaintext import count

__all__ = [
    "CORRECTION_REFERENCES",
    "Family",
    "MethodUsed",
    "NoiseFigure",
    "reference_of_test",
]


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
    """

    scope: FamilyScope
    correction: str
    requested: str
    alpha: float
    sizes: tuple[int, ...]

    @property
    def size(self) -> int:
        """The largest family's number of comparisons."""
        return max(self.sizes, default=0)

    @property
    def kind(self) -> IntervalKind:
        """The kind of the intervals that agree with the decisions (of the largest
        family)."""
        return interval_kind(self.correction, self.size)

    @property
    def name(self) -> str:
        """The correction as prose names it (``Holm-Šidák``)."""
        return CORRECTION_NAMES.get(self.correction, self.correction)

    @property
    def adjusts(self) -> bool:
        """Whether any p-value is adjusted (a correction, in a family of more than one)."""
        return self.correction != "none" and self.size > 1

    @property
    def single_step(self) -> bool:
        """Whether the decisions use the single-step form of the correction asked for
        (a release of a step-down correction)."""
        return self.correction != self.requested

    def describe(self) -> str:
        """The family in one phrase, without parentheses (callers put it in theirs):
        "Šidák over the release's 2 dataset × metric comparisons, α = 0.05",
        "Holm-Šidák within each dataset × metric, up to 66 comparisons, α = 0.05",
        "within each dataset × metric, 1 comparison: no adjustment, α = 0.05"."""
        n = self.size
        if self.scope == "release":
            where = f"over the release's {count(n, 'dataset × metric comparison')}"
        elif self.scope == "analysis":
            where = f"across all {count(n, 'comparison')} of the analysis"
        elif n <= 1:
            return f"within each dataset × metric, 1 comparison: no adjustment, α = {self.alpha:g}"
        else:
            where = f"within each dataset × metric, up to {n:,} comparisons"
        if self.correction == "none":
            return f"no correction {where}, α = {self.alpha:g}"
        if n <= 1:
            return f"{where}, 1 comparison: no adjustment, α = {self.alpha:g}"
        return f"{self.name} {where}, α = {self.alpha:g}"

    def of_unit(self, name: str, size: int) -> str:
        """The family of one dataset × metric's claims, for a console or a caption:
        "family: humaneval / pass1, 1 comparison: no adjustment", "family: the
        release's 2 dataset × metrics, Šidák (single-step Holm-Šidák)"."""
        if self.scope == "release":
            head = f"family: the release's {count(self.size, 'dataset × metric')}"
        elif self.scope == "analysis":
            head = f"family: all {count(self.size, 'comparison')} of the analysis"
        else:
            head = f"family: {name}, {count(size, 'comparison')}"
            if size <= 1:
                return head + ": no adjustment"
        if not self.adjusts:
            return head + ": no adjustment"
        requested = CORRECTION_NAMES.get(self.requested, self.requested)
        step = f" (the single-step form of {requested})" if self.single_step else ""
        return f"{head}, {self.name}{step}"

    def intervals_text(self) -> str:
        """How the adjusted intervals are made and what they promise, in words."""
        level = f"{100 * (1 - self.alpha):.3g}%"
        if self.scope == "release":
            return (
                f"{level} simultaneous intervals of the release ({self.name} per-comparison "
                "level), each inverting its own test; every verdict is read off its interval"
            )
        kind = self.kind
        if kind == "step-down compatible":
            return (
                f"{level} step-down compatible intervals (Strassburger & Bretz 2008): a "
                "rejected comparison's interval is bounded at 0 on one side unless every "
                f"comparison of its family is rejected; together they cover with probability "
                f"at least {level}"
            )
        if kind == "FCR":
            return (
                "FCR-adjusted intervals (Benjamini & Yekutieli 2005): among the intervals "
                f"of the comparisons declared significant, the expected share that miss "
                f"the true difference is at most {self.alpha:g}"
            )
        if kind == "simultaneous":
            return (
                f"{level} simultaneous intervals at the {self.name} per-comparison level: "
                f"together they cover every true difference with probability at least {level}"
            )
        return "unadjusted intervals (no correction): each at its own level"

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "correction": self.correction,
            "requested": self.requested,
            "alpha": self.alpha,
            "sizes": list(self.sizes),
            "interval_kind": self.kind,
            "intervals": self.intervals_text(),
            "description": self.describe(),
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> Family:
        scope = str(row.get("scope") or "dataset × metric")
        return cls(
            scope,  # type: ignore[arg-type]
            str(row.get("correction") or "none"),
            str(row.get("requested") or row.get("correction") or "none"),
            number_or(row.get("alpha"), 0.05),
            tuple(int(n) for n in row.get("sizes") or ()),
        )


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

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> NoiseFigure:
        mde = row.get("mde")
        return cls(
            str(row["dataset"]),
            str(row["metric"]),
            None if mde is None else float(mde),
            float(row.get("level") or 0.05),
            float(row.get("power") or 0.8),
            int(row.get("n_items") or 0),
            str(row.get("design") or ""),
            bool(row.get("proportion")),
        )


@dataclass(frozen=True)
class MethodUsed:
    """A method the analysis used: ``kind`` (test, interval, correction, adjusted
    interval, margin), its ``name``, the dataset × metrics it served and its
    reference."""

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

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> MethodUsed:
        return cls(
            str(row.get("kind") or ""),
            str(row.get("name") or ""),
            tuple(str(u) for u in row.get("units") or ()),
            str(row.get("reference") or ""),
        )


_TEST_REFERENCES: tuple[tuple[str, str], ...] = (
    (
        "McNemar",
        "McNemar, Q. (1947). Psychometrika 12(2), 153-157 (exact: the binomial "
        "test on the discordant items)",
    ),
    ("sign test", "Dixon, W. J. & Mood, A. M. (1946). JASA 41(236), 557-566"),
    (
        "test-based",
        "Miettinen, O. S. (1976). American Journal of Epidemiology 103(2), 226-235",
    ),
    ("Welch", "Welch, B. L. (1947). Biometrika 34(1-2), 28-35"),
    ("Yuen", "Yuen, K. K. (1974). Biometrika 61(1), 165-170"),
    ("Wilcoxon", "Wilcoxon, F. (1945). Biometrics Bulletin 1(6), 80-83"),
    ("Hodges-Lehmann", "Hodges, J. L. & Lehmann, E. L. (1963). Ann. Math. Statist. 34(2), 598-611"),
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

#: The reference of each correction.
CORRECTION_REFERENCES: dict[str, str] = {
    "holm-sidak": "Holm, S. (1979). Scand. J. Statist. 6(2), 65-70; Šidák, Z. (1967). "
    "JASA 62(318), 626-633",
    "holm": "Holm, S. (1979). Scand. J. Statist. 6(2), 65-70",
    "bonferroni": "Dunn, O. J. (1961). JASA 56(293), 52-64",
    "sidak": "Šidák, Z. (1967). JASA 62(318), 626-633",
    "fdr_bh": "Benjamini, Y. & Hochberg, Y. (1995). JRSS B 57(1), 289-300",
    "fdr_by": "Benjamini, Y. & Yekutieli, D. (2001). Ann. Statist. 29(4), 1165-1188",
    "none": "",
}

#: The reference of each kind of adjusted interval.
INTERVAL_REFERENCES: dict[str, str] = {
    "simultaneous": "Šidák, Z. (1967). JASA 62(318), 626-633; Dunn, O. J. (1961). JASA "
    "56(293), 52-64",
    "step-down compatible": "Strassburger, K. & Bretz, F. (2008). Statistics in Medicine "
    "27(24), 4914-4927; Guilbaud, O. (2008). Biometrical Journal 50(5), 678-692",
    "FCR": "Benjamini, Y. & Yekutieli, D. (2005). JASA 100(469), 71-81",
    "unadjusted": "",
}


def reference_of_test(test: str) -> str:
    """The reference of a test, by the words of its name ("" when none is known)."""
    for key, ref in _TEST_REFERENCES:
        if key.lower() in test.lower():
            return ref
    return ""

"""The ledger itself: every claim of an analysis, built once from the analysis
(:func:`build_ledger`) or read back from a stored ``results.json``
(:meth:`Ledger.from_results`), the same objects either way.

* :class:`UnitLedger`: one dataset × metric: its systems best first with their means
  and intervals (:class:`Standing`), its claims (:class:`~.claims.UnitClaims`), its noise
  figure and what made it degenerate;
* :class:`OverallRanking`: the ranking across datasets with its decided pairs;
* :class:`Ledger`: the family, the units, the ranking, the release verdicts, the methods
  and what the analysis was run on (:class:`LedgerMeta`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from reportgen.analysis.ledger.claims import Claim, UnitClaims, _num, number_or
from reportgen.analysis.ledger.family import (
    CORRECTION_REFERENCES,
    INTERVAL_REFERENCES,
    Family,
    MethodUsed,
    NoiseFigure,
    reference_of_test,
)
from reportgen.analysis.release import ReleaseComparison
from reportgen.config import default
from reportgen.errors import InputError, Location

if TYPE_CHECKING:
    from reportgen.analysis._core import Analysis
    from reportgen.analysis.battles import BattleAnalysis
    from reportgen.analysis.leaders import Leaders
    from reportgen.analysis.results import ListSelection, UnitResult
    from reportgen.stats.ranking import CompactLetterDisplay

__all__ = [
    "Ledger",
    "LedgerMeta",
    "OverallRanking",
    "Standing",
    "SubsetClaims",
    "UnitLedger",
    "build_ledger",
]


@dataclass(frozen=True)
class Standing:
    """One system on one dataset × metric: its mean with the interval of the mean, the
    items behind it and its tie-group letters; the interval's level and method and the
    runs per item (None when a results.json does not say)."""

    system: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n: int | None
    letters: str = ""
    confidence: float | None = None
    ci_method: str | None = None
    runs: int | None = None


@dataclass(frozen=True)
class SubsetClaims:
    """The claims of one dataset × metric on a subset: the items of one level of the
    ``group_by`` columns (``kind="group"``), or the pooled levels of compared
    hyperparameters given a condition (``kind="hyperparameter"``: the best level
    against each other, one-sided).

    ``levels`` names the subset (column → level); ``compare`` the hyperparameters
    compared; ``claims`` is None (with a ``note``) when the subset has too few items."""

    kind: str
    levels: tuple[tuple[str, str], ...]
    n_items: int | None
    claims: UnitClaims | None
    note: str | None = None
    compare: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``column = level, ...``."""
        return ", ".join(f"{k} = {v}" for k, v in self.levels)


def _subset_claims(
    kind: str,
    levels: Mapping[str, Any],
    n_items: int | None,
    records: Sequence[Mapping[str, Any]],
    note: Any,
    unit: Mapping[str, Any],
    family_size: int,
    compare: Sequence[str] = (),
) -> SubsetClaims:
    rows = [{**unit, **r} for r in records]
    claims = UnitClaims.from_rows(rows, family_size=family_size) if rows else None
    return SubsetClaims(
        kind,
        tuple((str(k), str(v)) for k, v in levels.items()),
        n_items,
        claims,
        None if note is None else str(note),
        tuple(str(c) for c in compare),
    )


@dataclass(frozen=True, eq=False)
class UnitLedger:
    """One dataset × metric of the ledger.

    Attributes
    ----------
    dataset, metric, direction, proportion, modality, pairing
        The unit and how its scores read (``proportion``: shown in percent, differences
        in points).
    n_items
        Items of the system with the most.
    family_size
        The comparisons corrected together with this unit's (its own, the
        analysis' or the release's).
    noise
        Its noise figure, or None.
    degenerate_reason, skewed_note
        Why some comparisons are degenerate, or have heavily skewed differences.
    derived_from
        The metric whose predictions a corpus metric was computed from, else None.
    letters
        The compact letter display of its comparisons, or None.
    """

    dataset: str
    metric: str
    direction: str
    proportion: bool
    modality: str
    pairing: str | None
    n_items: int
    family_size: int
    noise: NoiseFigure | None = None
    degenerate_reason: str | None = None
    skewed_note: str | None = None
    derived_from: str | None = None
    letters: CompactLetterDisplay | None = None
    subsets: tuple[SubsetClaims, ...] = ()
    _result: UnitResult | None = field(default=None, repr=False)
    _rows: tuple[Mapping[str, Any], ...] | None = field(default=None, repr=False)
    _systems: tuple[Mapping[str, Any], ...] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return f"{self.dataset} / {self.metric}"

    @functools.cached_property
    def claims(self) -> UnitClaims | None:
        """The unit's claims (None when fewer than 2 systems were compared)."""
        if self._result is not None:
            if self._result.comparisons is None:
                return None
            return UnitClaims(
                self.dataset, self.metric, self._result.comparison_columns(), self.family_size
            )
        if not self._rows:
            return None
        return UnitClaims.from_rows(self._rows, family_size=self.family_size)

    @functools.cached_property
    def standing(self) -> tuple[Standing, ...]:
        """The systems best first (NaN means last)."""
        letters = dict(zip(self.letters.systems, self.letters.letters)) if self.letters else {}
        if self._result is not None:
            u = self._result
            means = u.means
            iv = u.intervals
            n = np.atleast_1d(np.asarray(iv.n))
            runs = 1 if u.n_runs is None else int(u.n_runs)
            return tuple(
                Standing(
                    u.systems[k],
                    _num(means[k]),
                    _num(iv.ci_low[k]),
                    _num(iv.ci_high[k]),
                    int(n[k]) if n.size == len(u.systems) else None,
                    letters.get(u.systems[k], ""),
                    float(iv.confidence),
                    u.ci_method,
                    runs,
                )
                for k in u.order()
            )
        rows = list(self._systems or ())
        sign = -1.0 if self.direction == "higher" else 1.0

        def key(r: Mapping[str, Any]) -> float:
            m = _num(r.get("mean"))
            return math.inf if m is None else sign * m

        rows.sort(key=key)
        return tuple(
            Standing(
                str(r.get("system")),
                _num(r.get("mean")),
                _num(r.get("ci_low")),
                _num(r.get("ci_high")),
                None if r.get("n") is None else int(r["n"]),
                letters.get(str(r.get("system")), ""),
                _num(r.get("confidence")),
                None if r.get("ci_method") is None else str(r["ci_method"]),
                None if r.get("runs") is None else int(r["runs"]),
            )
            for r in rows
        )

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems, best first."""
        return tuple(s.system for s in self.standing)

    def standing_of(self, system: str) -> Standing | None:
        for s in self.standing:
            if s.system == system:
                return s
        return None

    def lead(self) -> Claim | None:
        """The leader against the runner-up, oriented leader − runner-up, or None (fewer
        than two systems, or the pair was not compared)."""
        ranked = [s for s in self.standing if s.mean is not None]
        if len(ranked) < 2 or self.claims is None:
            return None
        return self.claims.claim(ranked[0].system, ranked[1].system)

    def claim(self, a: str, b: str) -> Claim | None:
        """The comparison of ``a`` with ``b``, oriented ``a − b``, or None."""
        return None if self.claims is None else self.claims.claim(a, b)


@dataclass(frozen=True)
class OverallRanking:
    """The ranking across datasets as the analysis decided it: systems best first with
    their aggregate scores, the tie groups, the decided pairs (``significant``) with
    their adjusted p-values, and which datasets and systems it covers."""

    lists: tuple[str, ...]
    method: str
    alpha: float
    systems: tuple[str, ...]
    scores: tuple[float, ...]
    system_a: tuple[str, ...]
    system_b: tuple[str, ...]
    p_adjusted: tuple[float | None, ...]
    significant: tuple[bool, ...]
    selection: ListSelection | None = None
    letters: CompactLetterDisplay | None = None
    effect_size: tuple[float | None, ...] = ()

    def pairs(self) -> list[tuple[str, str, float | None, bool, float | None]]:
        """Every decided pair: ``(a, b, p_adjusted, significant, effect_size)``."""
        effects = self.effect_size or (None,) * len(self.system_a)
        return list(zip(self.system_a, self.system_b, self.p_adjusted, self.significant, effects))

    def pair(self, a: str, b: str) -> tuple[float | None, bool] | None:
        """``(p_adjusted, significant)`` of the pair, or None when not compared."""
        for x, y, p, s in zip(self.system_a, self.system_b, self.p_adjusted, self.significant):
            if {x, y} == {a, b}:
                return p, s
        return None

    def tied_with_leader(self) -> tuple[str, ...]:
        """The systems the leader is not significantly better than: those sharing a tie
        group with it, else (no letters) the runner-up when their pair is not
        significant."""
        if len(self.systems) < 2:
            return ()
        leader = self.systems[0]
        if self.letters is not None:
            mine = [set(g) for g in self.letters.groups if leader in g]
            return tuple(s for s in self.systems[1:] if any(s in g for g in mine))
        found = self.pair(leader, self.systems[1])
        return (self.systems[1],) if found is not None and not found[1] else ()


@dataclass(frozen=True)
class LedgerMeta:
    """What the claims were made from: when, with which seed and reportgen, over which
    systems, datasets and metrics, at which α, confidence and target power; for a
    report folder, its title and release label; and the resamples of its resampling
    tests (None when a results.json does not say)."""

    created: str
    seed: int | None
    reportgen_version: str
    systems: tuple[str, ...]
    datasets: tuple[str, ...]
    metrics: tuple[str, ...]
    alpha: float
    confidence: float
    power: float
    title: str | None = None
    release_label: str | None = None
    n_resamples: int | None = None


@dataclass(frozen=True, eq=False)
class Ledger:
    """Every claim of an analysis (the package docstring)."""

    family: Family
    units: tuple[UnitLedger, ...]
    methods: tuple[MethodUsed, ...]
    meta: LedgerMeta
    release: ReleaseComparison | None = None
    ranking: OverallRanking | None = None
    #: the pairwise battles' decided claims (:mod:`reportgen.analysis.battles`), if any
    battles: BattleAnalysis | None = None
    #: who leads each dataset × metric and who is tied with the leader
    #: (:mod:`reportgen.analysis.leaders`), read off the claims
    leaders: Leaders | None = None

    @property
    def noise(self) -> tuple[NoiseFigure, ...]:
        """One noise figure per dataset × metric that has one."""
        return tuple(u.noise for u in self.units if u.noise is not None)

    @property
    def compared(self) -> tuple[UnitLedger, ...]:
        """The units with claims."""
        return tuple(u for u in self.units if u.claims is not None)

    def unit(self, dataset: str, metric: str) -> UnitLedger | None:
        for u in self.units:
            if (u.dataset, u.metric) == (dataset, metric):
                return u
        return None

    def claims(self, dataset: str, metric: str) -> list[Claim]:
        """The claims of one dataset × metric, in rank order (A the higher-ranked; in a
        release, the candidate)."""
        u = self.unit(dataset, metric)
        return [] if u is None or u.claims is None else list(u.claims)

    def claim(self, dataset: str, metric: str, a: str, b: str) -> Claim | None:
        """The comparison of ``a`` with ``b`` on ``dataset`` × ``metric``, oriented
        ``a − b``, or None."""
        u = self.unit(dataset, metric)
        return None if u is None else u.claim(a, b)

    def noise_of(self, dataset: str, metric: str) -> NoiseFigure | None:
        u = self.unit(dataset, metric)
        return None if u is None else u.noise

    @property
    def n_comparisons(self) -> int:
        return sum(len(u.claims) for u in self.compared if u.claims is not None)

    @property
    def n_significant(self) -> int:
        return sum(u.claims.n_significant for u in self.compared if u.claims is not None)

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

    @classmethod
    def from_results(cls, doc: Mapping[str, Any], *, source: str = "results.json") -> Ledger:
        """The ledger of a stored ``results.json`` (its long tables resolved,
        :func:`reportgen.report.folder.reader.read_report_folder`): the same claims,
        verdicts, family and noise figures the analysis that wrote it held.

        Raises
        ------
        InputError
            A ``format_version`` newer than this reportgen reads, or a document that is
            not a results.json.
        """
        from reportgen.jsonsafe import RESULTS_FORMAT_VERSION, check_format_version

        if not isinstance(doc, Mapping):
            raise InputError(
                "not a results.json document (a JSON object)",
                location=Location(source),
                hint="pass the results.json that reportgen wrote",
            )
        check_format_version(
            doc, supported=RESULTS_FORMAT_VERSION, what="results.json", source=source
        )
        return _from_results(doc)


# ------------------------------------------------------------------- from an analysis


def build_ledger(analysis: Analysis) -> Ledger:
    """The ledger of ``analysis`` (:attr:`Analysis.ledger` caches it)."""
    options = analysis.options
    release = analysis.release
    compared = analysis.compared
    if release is not None:
        family = Family(
            "release",
            release.interval_correction or options.correction,
            options.correction,
            float(options.alpha),
            (len(release.verdicts),),
        )
    elif options.correct_across == "all":
        family = Family(
            "analysis",
            options.correction,
            options.correction,
            float(options.alpha),
            (sum(u.comparisons.n_pairs for u in compared if u.comparisons is not None),),
        )
    else:
        family = Family(
            "dataset × metric",
            options.correction,
            options.correction,
            float(options.alpha),
            tuple(u.comparisons.n_pairs for u in compared if u.comparisons is not None),
        )
    units = tuple(_unit_ledger(u, family, analysis) for u in analysis.units)
    table = analysis.table
    from reportgen import __version__

    meta = LedgerMeta(
        analysis.created,
        analysis.seed,
        __version__,
        tuple(table.systems),
        tuple(table.datasets),
        tuple(table.metrics),
        float(options.alpha),
        float(options.confidence),
        float(options.power),
        n_resamples=int(options.n_resamples),
    )
    return Ledger(
        family,
        units,
        _methods(analysis, family),
        meta,
        release,
        _ranking(analysis),
        analysis.battles or None,
        analysis.leaders,
    )


def _family_size(family: Family, n_pairs: int) -> int:
    return n_pairs if family.scope == "dataset × metric" else family.size


def _unit_ledger(u: UnitResult, family: Family, analysis: Analysis) -> UnitLedger:
    n_pairs = 0 if u.comparisons is None else int(u.comparisons.n_pairs)
    noise = None
    if u.power is not None and u.derived_from is None:
        m = u.power.mde
        value = float(m.delta)
        noise = NoiseFigure(
            u.dataset,
            u.metric,
            None if math.isnan(value) else abs(value),
            float(m.alpha),
            float(m.target_power or analysis.options.power),
            u.n_items,
            f"{u.pairing} {u.modality}",
            bool(u.proportion),
        )
    shared = {
        "dataset": u.dataset,
        "metric": u.metric,
        "direction": u.direction,
        "proportion": bool(u.proportion),
    }
    subsets = [
        _subset_claims(
            "group",
            g.group,
            g.n_items,
            [] if g.comparisons is None else g.comparisons.to_records(),
            g.note,
            shared,
            0 if g.comparisons is None else int(g.comparisons.n_pairs),
        )
        for g in u.groups
    ]
    subsets += [
        _subset_claims(
            "hyperparameter",
            h.condition,
            None,
            [] if h.comparisons is None else h.to_dict(u.dataset, u.metric)["comparisons"],
            h.note,
            shared,
            0 if h.comparisons is None else int(h.comparisons.n_pairs),
            h.compare,
        )
        for h in u.hyperparameters
    ]
    return UnitLedger(
        u.dataset,
        u.metric,
        u.direction,
        bool(u.proportion),
        u.modality,
        u.pairing,
        u.n_items,
        _family_size(family, n_pairs),
        noise,
        u.degenerate_reason,
        u.skewed_note,
        u.derived_from,
        None if u.ranks is None else u.ranks.letters,
        tuple(subsets),
        _result=u,
    )


def _ranking(analysis: Analysis) -> OverallRanking | None:
    r = analysis.ranking
    if r is None:
        return None
    names = r.systems
    sig = r.significant()  # the ranking's own decision
    return OverallRanking(
        tuple(r.lists),
        r.method,
        float(r.alpha),
        tuple(names),
        tuple(float(s) for s in r.scores),
        tuple(names[int(i)] for i in r.index_a),
        tuple(names[int(j)] for j in r.index_b),
        tuple(_num(p) for p in r.p_adjusted),
        tuple(bool(s) for s in sig),
        r.selection,
        r.letters,
        tuple(_num(e) for e in r.effect_size),
    )


#: The interval of a pair whose test has none of its own (Miettinen 1976).
_TEST_BASED = "test-based interval (Miettinen 1976) where a pair has no interval of its own"


def _methods(analysis: Analysis, family: Family) -> tuple[MethodUsed, ...]:
    """Exactly the tests, intervals, correction and margins the claims used."""
    tests: dict[str, list[str]] = {}
    intervals: dict[str, list[str]] = {}
    for u in analysis.compared:
        assert u.comparisons is not None
        tests.setdefault(u.comparisons.test, []).append(u.name)
        intervals.setdefault(u.comparisons.ci_method, []).append(u.name)
        c = u.comparisons
        if np.any(np.isfinite(np.asarray(c.p_value, dtype=float)) & ~np.isfinite(c.ci_low)):
            # where a pair has no marginal interval, its adjusted interval is the one
            # its test implies (reportgen.stats.multiplicity.compatible_intervals)
            intervals.setdefault(_TEST_BASED, []).append(u.name)
    if analysis.release is not None:
        for v in analysis.release.verdicts:
            units = tests.setdefault(v.test, [])
            if v.name not in units:
                units.append(v.name)
    out = [
        MethodUsed("test", name, tuple(units), reference_of_test(name))
        for name, units in tests.items()
    ]
    out.extend(
        MethodUsed("interval", name, tuple(units), reference_of_test(name))
        for name, units in intervals.items()
    )
    out.append(
        MethodUsed(
            "correction",
            family.describe(),
            (),
            CORRECTION_REFERENCES.get(family.correction, ""),
        )
    )
    out.append(
        MethodUsed(
            "adjusted interval",
            family.intervals_text(),
            (),
            INTERVAL_REFERENCES.get(family.kind, "")
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


# ------------------------------------------------------------------ from results.json


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _rows(value: Any) -> Iterable[Mapping[str, Any]]:
    if value is None or isinstance(value, (str, bytes, Mapping)):
        return ()
    return (r for r in value if isinstance(r, Mapping))


def _letters_from_dict(entry: Mapping[str, Any]) -> CompactLetterDisplay | None:
    from reportgen.stats.ranking import CompactLetterDisplay

    if not entry:
        return None
    systems = list(_rows(entry.get("systems")))
    groups = _mapping(entry.get("groups"))
    return CompactLetterDisplay(
        tuple(str(r.get("system")) for r in systems),
        tuple(str(r.get("letters") or "") for r in systems),
        tuple(tuple(str(s) for s in g) for g in groups.values()),
        tuple(str(k) for k in groups),
        bool(entry.get("complete", True)),
    )


def _selection_from_dict(entry: Mapping[str, Any]) -> ListSelection | None:
    from reportgen.analysis.results import ListSelection

    if not entry:
        return None
    return ListSelection(
        entry.get("how") or "all",
        tuple(str(d) for d in entry.get("datasets") or ()),
        tuple(str(s) for s in entry.get("systems") or ()),
        tuple(
            (str(r.get("dataset")), str(r.get("reason")))
            for r in _rows(entry.get("left_out_datasets"))
        ),
        tuple(
            (str(r.get("system")), str(r.get("reason")))
            for r in _rows(entry.get("left_out_systems"))
        ),
    )


Key = tuple[str, str]


def _by_unit(rows: Iterable[Mapping[str, Any]]) -> dict[Key, list[Mapping[str, Any]]]:
    """Rows grouped by (dataset, metric), in their order."""
    out: dict[Key, list[Mapping[str, Any]]] = {}
    for row in rows:
        out.setdefault((str(row.get("dataset")), str(row.get("metric"))), []).append(row)
    return out


def _family_from_results(
    doc: Mapping[str, Any],
    release: ReleaseComparison | None,
    by_unit: Mapping[Key, list[Mapping[str, Any]]],
    alpha: float,
) -> Family:
    """The family the ledger section states, or, in a results.json of before the
    ledger, the one its options say."""
    stored = _mapping(_mapping(doc.get("ledger")).get("family"))
    if stored:
        return Family.from_dict(stored)
    config = _mapping(doc.get("config"))
    correction = str(config.get("correction") or default("correction"))
    if release is not None:
        return Family(
            "release",
            release.interval_correction or correction,
            correction,
            alpha,
            (len(release.verdicts),),
        )
    if config.get("correct_across") == "all":
        return Family("analysis", correction, correction, alpha, (sum(map(len, by_unit.values())),))
    sizes = tuple(len(v) for v in by_unit.values())
    return Family("dataset × metric", correction, correction, alpha, sizes)


def _rankings_from_results(
    doc: Mapping[str, Any], alpha: float
) -> tuple[dict[Key, CompactLetterDisplay | None], OverallRanking | None]:
    """The tie groups of each dataset × metric and the ranking across datasets."""
    letters: dict[Key, CompactLetterDisplay | None] = {}
    ranking = None
    for entry in _rows(doc.get("rankings")):
        kind = entry.get("kind")
        if kind == "ranks":
            letters[(str(entry.get("dataset")), str(entry.get("metric")))] = _letters_from_dict(
                _mapping(entry.get("letters"))
            )
        elif kind == "ordered" and ranking is None:
            ranking = _ranking_from_dict(entry, alpha)
    return letters, ranking


def _subsets_from_results(doc: Mapping[str, Any]) -> dict[Key, list[SubsetClaims]]:
    """The claims of item groups and hyperparameter levels, by dataset × metric."""
    metrics_config = _mapping(_mapping(doc.get("config")).get("metrics"))
    subsets: dict[Key, list[SubsetClaims]] = {}
    for kind, section in (("group", "groups"), ("hyperparameter", "hyperparameters")):
        for entry in _rows(doc.get(section)):
            key = (str(entry.get("dataset")), str(entry.get("metric")))
            info = _mapping(metrics_config.get(key[1]))
            records = list(_rows(entry.get("comparisons")))
            shared = {
                "dataset": key[0],
                "metric": key[1],
                "direction": str(info.get("direction") or "higher"),
                "proportion": info.get("modality") == "binary",
            }
            subsets.setdefault(key, []).append(
                _subset_claims(
                    kind,
                    _mapping(entry.get("group" if kind == "group" else "condition")),
                    None if entry.get("n_items") is None else int(entry["n_items"]),
                    records,
                    entry.get("note"),
                    shared,
                    len(records),
                    entry.get("compare") or (),
                )
            )
    return subsets


def _meta_from_results(doc: Mapping[str, Any], alpha: float) -> LedgerMeta:
    config = _mapping(doc.get("config"))
    data = _mapping(doc.get("data"))
    report = _mapping(doc.get("report"))
    return LedgerMeta(
        str(doc.get("created") or ""),
        None if doc.get("seed") is None else int(doc["seed"]),
        str(doc.get("reportgen_version") or ""),
        tuple(str(s) for s in data.get("systems") or ()),
        tuple(str(s) for s in data.get("datasets") or ()),
        tuple(str(s) for s in data.get("metrics") or ()),
        alpha,
        number_or(config.get("confidence"), default("confidence")),
        number_or(config.get("power"), default("power")),
        None if report.get("title") is None else str(report["title"]),
        None if not report.get("release") else str(report["release"]),
        None if config.get("n_resamples") is None else int(config["n_resamples"]),
    )


def _from_results(doc: Mapping[str, Any]) -> Ledger:
    from reportgen.analysis.leaders import Leaders

    config = _mapping(doc.get("config"))
    metrics_config = _mapping(config.get("metrics"))
    stored = _mapping(doc.get("ledger"))
    verdict = _mapping(doc.get("verdict"))
    release = ReleaseComparison.from_dict(verdict) if verdict.get("candidate") else None
    alpha = number_or(config.get("alpha"), default("alpha"))
    by_unit = _by_unit(_rows(doc.get("comparisons")))
    systems_of = _by_unit(_rows(doc.get("systems")))
    family = _family_from_results(doc, release, by_unit, alpha)
    noise = {
        (n.dataset, n.metric): n
        for n in (NoiseFigure.from_dict(r) for r in _rows(stored.get("noise")))
    }
    letters, ranking = _rankings_from_results(doc, alpha)
    degenerate = {
        (str(r.get("dataset")), str(r.get("metric"))): r.get("reason")
        for r in _rows(doc.get("degenerate"))
    }
    subsets = _subsets_from_results(doc)
    units = []
    for key in dict.fromkeys([*systems_of, *by_unit]):
        rows = by_unit.get(key, [])
        sys_rows = systems_of.get(key, [])
        first = rows[0] if rows else (sys_rows[0] if sys_rows else {})
        dataset, metric = key
        info = _mapping(metrics_config.get(metric))
        proportion = first.get("proportion")
        if proportion is None:
            proportion = info.get("modality") == "binary"
        units.append(
            UnitLedger(
                dataset,
                metric,
                str(first.get("direction") or info.get("direction") or "higher"),
                bool(proportion),
                str(info.get("modality") or first.get("modality") or ""),
                first.get("pairing"),
                max((int(r.get("n") or 0) for r in sys_rows), default=0),
                _family_size(family, len(rows)),
                noise.get(key),
                degenerate.get(key),
                None,
                first.get("derived_from"),
                letters.get(key),
                tuple(subsets.get(key, ())),
                _rows=tuple(rows),
                _systems=tuple(sys_rows),
            )
        )
    methods = tuple(MethodUsed.from_dict(r) for r in _rows(stored.get("methods")))
    leaders = _mapping(doc.get("leaders"))
    return Ledger(
        family,
        tuple(units),
        methods,
        _meta_from_results(doc, alpha),
        release,
        ranking,
        None,
        Leaders.from_dict(leaders) if leaders else None,
    )


def _ranking_from_dict(entry: Mapping[str, Any], alpha: float) -> OverallRanking:
    systems = list(_rows(entry.get("systems")))
    pairs = list(_rows(entry.get("pairs")))
    return OverallRanking(
        tuple(str(x) for x in entry.get("lists") or ()),
        str(entry.get("method") or ""),
        number_or(entry.get("alpha"), alpha),
        tuple(str(s.get("system")) for s in systems),
        tuple(float(s.get("score") or math.nan) for s in systems),
        tuple(str(p.get("system_a")) for p in pairs),
        tuple(str(p.get("system_b")) for p in pairs),
        tuple(_num(p.get("p_adjusted")) for p in pairs),
        tuple(bool(p.get("significant")) for p in pairs),
        _selection_from_dict(_mapping(entry.get("selection"))),
        _letters_from_dict(_mapping(entry.get("letters"))),
        tuple(_num(p.get("effect_size")) for p in pairs),
    )

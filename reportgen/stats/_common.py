"""Small helpers shared by the statistics modules: names and JSON-ready numbers."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

import numpy as np

from reportgen.errors import InputError

__all__ = [
    "Modality",
    "ResamplingOptions",
    "PairsMixin",
    "choices_iv",
    "finite_or_none",
    "modality_iv",
    "resampling_iv",
    "system_index",
    "system_names",
]

#: The kinds of scores the tests distinguish: 0/1 (exact and score tests on counts)
#: or any real number.
Modality = Literal["binary", "continuous"]


def system_names(
    systems: Sequence[str] | str | None,
    count: int,
    *,
    prefix: str = "system",
    hint: str = "give one name per system",
) -> tuple[str, ...]:
    """The names of ``count`` systems: ``systems`` checked (right number, distinct), or
    ``"system 1"``, ``"system 2"``, ... when it is None.

    >>> system_names(None, 2), system_names(["a", "b"], 2)
    (('system 1', 'system 2'), ('a', 'b'))
    """
    if systems is None:
        return tuple(f"{prefix} {i + 1}" for i in range(count))
    if isinstance(systems, str):
        systems = [systems]
    names = tuple(str(s) for s in systems)
    if len(names) != count:
        raise InputError(f"{len(names)} system names for {count} systems", hint=hint)
    if len(set(names)) != len(names):
        raise InputError("system names must be distinct")
    return names


def choices_iv(choices: dict[str, tuple[Any, tuple[Any, ...]]]) -> None:
    """Each ``name: (value, valid)`` must have its value among the valid ones."""
    for name, (value, valid) in choices.items():
        if value not in valid:
            raise InputError(
                f"{name}={value!r} is not valid", hint=f"use one of: {', '.join(map(str, valid))}"
            )


@dataclass(frozen=True)
class ResamplingOptions:
    """The checked options both test modules read (:mod:`reportgen.stats.pairwise`,
    :mod:`reportgen.stats.margins`): the method, the confidence of the intervals, and
    the resampling budget, generator and memory bound. Each module's own options extend
    it."""

    method: str
    confidence: float
    n_resamples: int
    rng: np.random.Generator
    max_memory: int


def resampling_fields(
    *, confidence: float, n_resamples: int, rng: Any, max_memory: int
) -> dict[str, Any]:
    """The :class:`ResamplingOptions` fields but the method, from checked values
    (:func:`resampling_iv`): numbers as float and int, ``rng`` as a Generator.

    >>> sorted(resampling_fields(confidence=0.95, n_resamples=99, rng=0, max_memory=2**20))
    ['confidence', 'max_memory', 'n_resamples', 'rng']
    """
    return dict(
        confidence=float(confidence),
        n_resamples=int(n_resamples),
        rng=np.random.default_rng(rng),
        max_memory=int(max_memory),
    )


def modality_iv(values: np.ndarray, modality: str | None) -> Modality:
    """The modality of the scores ``values``: ``modality`` checked against them, or
    inferred (``"binary"`` when every score is 0 or 1) when it is None.

    >>> modality_iv(np.array([0.0, 1.0, 1.0]), None), modality_iv(np.array([0.5]), None)
    ('binary', 'continuous')
    """
    binary = bool(np.all((values == 0) | (values == 1)))
    if modality is None:
        return "binary" if binary else "continuous"
    choices_iv({"modality": (modality, get_args(Modality))})
    if modality == "binary" and not binary:
        raise InputError(
            "modality='binary' but the scores are not all 0 or 1",
            hint="leave modality unset to infer it, or use 'continuous'",
        )
    return cast(Modality, modality)


def system_index(value: int | str, names: tuple[str, ...], what: str) -> int:
    """The column of the system ``value`` (a name or an index) among ``names``;
    ``what`` (``"baseline"``, ``"candidate"``) names its role in the error.

    >>> system_index("b", ("a", "b"), "baseline"), system_index(0, ("a", "b"), "baseline")
    (1, 0)
    """
    if isinstance(value, str):
        if value not in names:
            raise InputError(
                f"unknown {what} system {value!r}", hint=f"systems: {', '.join(names)}"
            )
        return names.index(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or not 0 <= int(value) < len(names)
    ):
        raise InputError(
            f"{what} index {value!r} is out of range for {len(names)} systems",
            hint="give a name or a column index",
        )
    return int(value)


#: The most resamples any routine draws: 10 million (Monte Carlo error of a p-value
#: near 0.05 about 0.00007); more would only run for days.
MAX_RESAMPLES = 10_000_000


def resampling_iv(
    *, confidence: float, n_resamples: int, max_memory: int, alpha: float | None = None
) -> None:
    """Check the options shared by the resampling routines."""
    levels = (
        (("confidence", confidence),)
        if alpha is None
        else (("alpha", alpha), ("confidence", confidence))
    )
    for name, value in levels:
        if not (isinstance(value, (int, float)) and 0 < value < 1):
            raise InputError(
                f"{name}={value!r} must be between 0 and 1 (exclusive)",
                hint=f"e.g. {name}={0.05 if name == 'alpha' else 0.95}",
            )
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, (int, np.integer))
        or n_resamples < 1
    ):
        raise InputError(
            f"n_resamples={n_resamples!r} must be a positive integer",
            hint="9999 is a good default; at least 4000 bootstrap resamples are "
            "advised (clawRxiv 2604.01973)",
        )
    if n_resamples > MAX_RESAMPLES:
        # chunked resampling never runs out of memory, so a huge count would run for days
        raise InputError(
            f"n_resamples={n_resamples:,} is more than reportgen draws (at most {MAX_RESAMPLES:,})",
            hint="9999 is a good default: the Monte Carlo error of a p-value near 0.05 is "
            "then 0.002; 100,000 makes it 0.0007",
        )
    if max_memory < 2**20:
        raise InputError(f"max_memory={max_memory!r} is below 1 MiB")


def finite_or_none(value: Any) -> float | None:
    """``float(value)``, or None for NaN (results are written as JSON without NaN)."""
    value = float(value)
    return None if math.isnan(value) else value


def unpaired_samples_iv(
    samples: Sequence[Any], systems: Sequence[str] | None
) -> tuple[list[np.ndarray], tuple[str, ...]]:
    """One float array per system (any shape, flattened) and the system names; raises
    on fewer than 2 systems or NaN scores."""
    arrays = [np.asarray(s, dtype=np.float64).ravel() for s in samples]
    if len(arrays) < 2:
        raise InputError("at least 2 systems are needed for a comparison")
    for s in arrays:
        if np.isnan(s).any():
            raise InputError("scores contain NaN", hint="drop missing scores first")
    return arrays, system_names(systems, len(arrays))


class TabularMixin:
    """``to_frame()`` for every tabular result: the rows of its ``to_records()`` as a
    pandas DataFrame (pandas is imported only when a frame is asked for)."""

    def to_records(self) -> list[dict[str, Any]]:  # pragma: no cover - each result's own
        raise NotImplementedError

    def to_frame(self) -> Any:
        """The records as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame.from_records(self.to_records())


class PairsMixin(TabularMixin):
    """Accessors shared by the results that hold one row per compared pair: they need
    the fields ``systems``, ``index_a``, ``index_b``, ``p_adjusted``, ``alpha``."""

    systems: tuple[str, ...]
    index_a: np.ndarray
    index_b: np.ndarray
    p_adjusted: np.ndarray
    alpha: float

    @property
    def n_pairs(self) -> int:
        return len(self.index_a)

    @property
    def system_a(self) -> tuple[str, ...]:
        return tuple(self.systems[i] for i in self.index_a)

    @property
    def system_b(self) -> tuple[str, ...]:
        return tuple(self.systems[i] for i in self.index_b)

    @functools.cached_property
    def _plan(self) -> Any:
        return self._make_plan()

    def significant(self) -> np.ndarray:
        """The family's decisions: ``p_adjusted <= alpha`` (within
        :data:`reportgen.stats.multiplicity.REJECT_RTOL`; False where the p-value is
        NaN or only approximate, :meth:`approximate_pairs`)."""
        return self.plan().significant

    def approximate_pairs(self) -> np.ndarray:
        """Per pair, whether its p-value and interval are only approximate (a mean
        compared on heavily skewed differences: never significant); all False for a
        result without the field."""
        flags = getattr(self, "approximate", None)
        if flags is None:
            return np.zeros(self.n_pairs, dtype=bool)
        return np.asarray(flags, dtype=bool)

    def with_adjusted(
        self,
        p_adjusted: np.ndarray,
        correction: str,
        decision_level: np.ndarray | None = None,
        *,
        plan: Any = None,
    ):
        """A copy whose adjusted p-values, decision levels
        (:func:`reportgen.stats.multiplicity.decision_levels`) and interval plan
        (:func:`reportgen.stats.multiplicity.interval_plan`) come from a larger
        family."""
        from dataclasses import replace

        result: Any = self  # every subclass is a frozen dataclass
        return replace(
            result,
            p_adjusted=np.asarray(p_adjusted, dtype=np.float64),
            correction=correction,
            decision_level=None
            if decision_level is None
            else np.asarray(decision_level, dtype=np.float64),
            interval_plan=plan,
        )

    def plan(self) -> Any:
        """How this result's adjusted intervals are made and its pairs decided
        (:class:`reportgen.stats.multiplicity.IntervalPlan`): the family's when it was
        set by :meth:`with_adjusted` (or by a release), else this result's pairs.
        Computed once per result."""
        return self._plan

    def _make_plan(self) -> Any:
        from reportgen.stats.multiplicity import IntervalPlan, interval_plan, rejects

        this: Any = self
        approximate = self.approximate_pairs()
        if this.interval_plan is not None:
            return this.interval_plan.without(approximate)
        if this.decision_level is not None:  # a family of its own, without a plan
            level = np.asarray(this.decision_level, dtype=np.float64)
            significant = rejects(self.p_adjusted, self.alpha)
            return IntervalPlan(
                "unadjusted" if this.correction == "none" else "simultaneous",
                significant,
                level,
                level,
                np.zeros(self.n_pairs, dtype=bool),
            ).without(approximate)
        return interval_plan(
            this.p_value, alpha=self.alpha, method=this.correction, approximate=approximate
        )

    @property
    def ci_adjusted_kind(self) -> Any:
        """What the adjusted intervals promise (:data:`reportgen.names.IntervalKind`):
        simultaneous, step-down compatible, FCR or unadjusted (:meth:`plan`)."""
        return self.plan().kind

    def decision_levels(self) -> np.ndarray:
        """The per-comparison level of each adjusted interval's side toward 0 (its
        ``confidence_adjusted`` is one minus it; :meth:`plan`)."""
        return np.asarray(self.plan().level, dtype=np.float64)

    def adjusted_interval(self) -> tuple[np.ndarray, np.ndarray]:
        """The interval of each ``diff`` that agrees with the adjusted decision: it
        excludes 0 exactly when the pair is significant, made as :meth:`plan` says
        (:func:`reportgen.stats.multiplicity.compatible_intervals`). One-sided tests,
        and the rejected comparisons of a step-down family not all rejected, give one
        bound (the other NaN). A result whose family decided on intervals of its own (a
        release, :func:`reportgen.analysis.analyze_release`) carries them in
        ``ci_adjusted``."""
        this: Any = self
        if this.ci_adjusted is not None:
            low, high = this.ci_adjusted
            return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
        return self.plan().intervals(
            this.diff,
            this.p_value,
            alternative=this.alternative,
            ci_low=this.ci_low,
            ci_high=this.ci_high,
            confidence=this.confidence,
            df=getattr(this, "ci_df", None),
        )

    def interval_columns(self) -> dict[str, Any]:
        """The interval columns of every pair's record (for
        :func:`reportgen.records.columns_to_records`): the marginal interval, the adjusted
        one with its level and kind, the method and the confidence, in the order of
        results.json."""
        from reportgen.records import floats

        this: Any = self
        plan = self.plan()
        low, high = self.adjusted_interval()
        return {
            "ci_low": floats(this.ci_low),
            "ci_high": floats(this.ci_high),
            "ci_adjusted_low": floats(low),
            "ci_adjusted_high": floats(high),
            "confidence_adjusted": floats(1.0 - np.asarray(plan.level, dtype=np.float64)),
            "ci_adjusted_kind": plan.kind,
            "ci_method": this.ci_method,
            "confidence": this.confidence,
        }

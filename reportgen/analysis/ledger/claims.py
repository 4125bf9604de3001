"""The claims of the ledger: one :class:`Claim` per compared pair, with its two
:class:`Interval` s, and the columnar store of a dataset × metric's claims
(:class:`UnitClaims`).

A claim is decided once, in the analysis; every output shows it through the methods
here (:meth:`Claim.oriented`, :meth:`Claim.sentence`, :meth:`Interval.label`,
:meth:`Claim.pieces`), so two outputs never word or orient it differently.

Examples
--------
>>> ci = Interval(0.006, 0.056, level=0.99, kind="simultaneous", family_level=0.95,
...               correction="sidak")
>>> ci.label(), ci.text(proportion=True)
('95% simultaneous CI (Šidák)', '[+0.6, +5.6]')
>>> Interval(0.0, None, level=None, kind="step-down compatible", family_level=0.95,
...          correction="holm").text(proportion=True)
'≥ 0.0'
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from reportgen import format as fmt
from reportgen.names import (
    CORRECTION_NAMES,
    ESTIMAND_NAMES,
    INTERVAL_KIND_NAMES,
    IntervalKind,
)
from reportgen.sentences import Name, Sentence

__all__ = ["Claim", "Interval", "UnitClaims", "interval_kind", "level_text"]

#: The alternative seen from the other side (B against A).
_FLIPPED = {"two-sided": "two-sided", "greater": "less", "less": "greater"}
_EFFECT_SYMBOL = {"paired d": "d", "Cohen's d": "d", "Cohen's h": "h"}


def interval_kind(correction: str, family_size: int) -> IntervalKind:
    """The kind of the intervals that agree with ``correction``'s decisions in a family
    of ``family_size`` comparisons (a family of one is unadjusted whatever the
    correction): what a results.json written before intervals carried their kind
    holds. The one home of the rule is
    :func:`reportgen.stats.multiplicity.interval_kind`."""
    from reportgen.stats.multiplicity import interval_kind as kind_of

    return kind_of(correction, family_size)


def level_text(level: float) -> str:
    """A confidence level as a percentage: ``95%``, ``97.5%``, ``99.2%``.

    >>> level_text(0.95), level_text(0.975), level_text(0.99166)
    ('95%', '97.5%', '99.2%')
    """
    return f"{100 * level:.3g}%"


def number_or(value: Any, default: float) -> float:
    """``float(value)``, or ``default`` when it is missing or not a number."""
    v = _num(value)
    return default if v is None else v


def _num(value: Any) -> float | None:
    """A finite float, or None (NaN, ±inf of an unbounded side, missing)."""
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


@dataclass(frozen=True)
class Interval:
    """An interval of a difference, with what it promises.

    Attributes
    ----------
    low, high
        The bounds (None: unbounded on that side, a one-sided interval).
    level
        The coverage of this interval alone (None when it has none of its own: a
        step-down compatible interval of a rejected comparison).
    kind
        ``simultaneous``, ``step-down compatible``, ``FCR`` or ``unadjusted``
        (:data:`reportgen.names.IntervalKind`).
    family_level
        1 − α of the family, which the kinds other than ``unadjusted`` promise
        together (simultaneous coverage, or a false-coverage rate of at most α).
    correction
        The correction the family's decisions used.
    """

    low: float | None
    high: float | None
    level: float | None
    kind: IntervalKind = "unadjusted"
    family_level: float | None = None
    correction: str = "none"

    @property
    def one_sided(self) -> bool:
        return (self.low is None) != (self.high is None)

    @property
    def sign_only(self) -> bool:
        """Whether the interval says only the sign of the difference: one-sided, bounded
        at 0 (a rejected comparison of a step-down family that did not reject all,
        Strassburger & Bretz 2008; results.json writes the bound as the smallest
        positive number, so that it excludes 0)."""
        if self.kind != "step-down compatible":
            return False  # another interval's end at 0 is a bound like any other
        bound = self.low if self.high is None else self.high
        return self.one_sided and bound is not None and fmt.off_zero(bound)

    def flipped(self) -> Interval:
        """The interval of the negated difference."""
        low = None if self.high is None else -self.high
        high = None if self.low is None else -self.low
        return replace(self, low=low, high=high)

    def text(self, *, proportion: bool) -> str:
        """The bounds with signs, in the metric's units without the unit (points for
        proportions): ``[+0.6, +5.6]``, ``≥ +2.1``, ``≤ −0.4``, ``> 0`` for the sign only;
        ``unbounded`` when neither side is bounded."""
        if self.low is None and self.high is None:
            return "unbounded"
        if self.sign_only:  # the sign only: "> 0" (or "< 0"), never "≥ 0.0"
            return "> 0" if self.high is None else "< 0"
        bound = self.low if self.high is None else self.high if self.low is None else None
        if bound is not None:
            # an end just off 0 (it excludes 0 by its sign alone) shows as 0, as in
            # fmt.interval
            shown = fmt.difference(0.0 if fmt.off_zero(bound) else bound, proportion=proportion)
            return ("≥ " if self.high is None else "≤ ") + shown.removesuffix(" pts")
        return fmt.interval(self.low, self.high, proportion=proportion, signed=True)

    def short_label(self) -> str:
        """The kind in a few characters, for a table's column heading (the table's note
        gives :meth:`label`, with the level): ``simult. CI``, ``step-down CI``, ``FCR
        CI``; an unadjusted interval keeps its level, ``95% CI``."""
        if self.kind == "unadjusted":
            level = self.level if self.level is not None else self.family_level
            return ("" if level is None else level_text(level) + " ") + (
                "bound" if self.one_sided else "CI"
            )
        return {"simultaneous": "simult. CI", "step-down compatible": "step-down CI"}.get(
            self.kind, "FCR CI"
        )

    def label(self) -> str:
        """What the interval is, for the reader: ``95% CI`` (unadjusted, at its own
        level), ``95% simultaneous CI (Šidák)``, ``95% step-down compatible CI
        (Holm-Šidák)``, ``FCR-adjusted CI (Benjamini-Hochberg, FCR ≤ 5%)``; a one-sided
        unadjusted interval is a ``one-sided 97.5% bound``."""
        name = CORRECTION_NAMES.get(self.correction, self.correction)
        if self.kind == "unadjusted":
            level = self.level if self.level is not None else self.family_level
            shown = "" if level is None else level_text(level) + " "
            return f"one-sided {shown}bound" if self.one_sided else f"{shown}CI"
        if self.kind == "FCR":
            alpha = None if self.family_level is None else 1.0 - self.family_level
            rate = "" if alpha is None else f", FCR ≤ {level_text(alpha)}"
            return f"FCR-adjusted CI ({name}{rate})"
        shown = "" if self.family_level is None else level_text(self.family_level) + " "
        return f"{shown}{INTERVAL_KIND_NAMES[self.kind]} CI ({name})"


# Over 20 fields: a claim carries everything every output shows of it.
@dataclass(frozen=True)
class Claim:
    """One comparison as the ledger decided it: ``diff = mean_a − mean_b`` on the
    metric's own scale (``estimand``: a difference of means unless a robust estimand
    was chosen for the metric).

    ``marginal`` goes with ``p_value`` (the comparison alone); ``adjusted`` with
    ``p_adjusted``: it excludes 0 exactly when ``significant`` (its kind says what it
    promises for the family). ``approximate``: the p and the intervals rest on an
    approximation that the data's skew makes unreliable, so the comparison is not
    counted as significant whatever its p. ``family_size``: the comparisons corrected
    together with this one.
    """

    dataset: str
    metric: str
    system_a: str
    system_b: str
    direction: str
    proportion: bool
    modality: str
    paired: bool
    test: str
    alternative: str
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    n_a: int | None
    n_b: int | None
    p_value: float | None
    p_adjusted: float | None
    correction: str
    significant: bool
    marginal: Interval
    adjusted: Interval
    family_size: int = 1
    estimand: str = "mean"
    effect_size: float | None = None
    effect_size_kind: str | None = None
    approximate: bool = False
    skewed: bool = False
    note: str | None = None
    derived_from: str | None = None

    @property
    def name(self) -> str:
        """``dataset / metric``."""
        return f"{self.dataset} / {self.metric}"

    @property
    def systems(self) -> tuple[str, str]:
        return self.system_a, self.system_b

    @property
    def better(self) -> str | None:
        """The system the claim says is better, or None (not significant)."""
        if not self.significant or self.diff is None or self.diff == 0:
            return None
        a_higher = self.diff > 0
        return self.system_a if a_higher == (self.direction == "higher") else self.system_b

    def oriented(self, a: str) -> Claim:
        """The same claim with ``a`` as system A (every difference and interval
        negated when it was B).

        Raises
        ------
        KeyError
            ``a`` is neither system of the claim.
        """
        if a == self.system_a:
            return self
        if a != self.system_b:
            raise KeyError(f"{a!r} is not compared in {self.system_a} − {self.system_b}")
        return replace(
            self,
            system_a=self.system_b,
            system_b=self.system_a,
            mean_a=self.mean_b,
            mean_b=self.mean_a,
            n_a=self.n_b,
            n_b=self.n_a,
            diff=None if self.diff is None else -self.diff,
            alternative=_FLIPPED.get(self.alternative, self.alternative),
            marginal=self.marginal.flipped(),
            adjusted=self.adjusted.flipped(),
            effect_size=None if self.effect_size is None else -self.effect_size,
        )

    def better_first(self) -> Claim:
        """Oriented with the better system as A when significant, else as it is."""
        better = self.better
        return self if better is None else self.oriented(better)

    def interval_label(self) -> str:
        """The label of the interval the decision is read off (:meth:`Interval.label`)."""
        return self.adjusted.label()

    # ------------------------------------------------------------------ words

    def outcome(self) -> str:
        """``significant``, ``not significant`` or ``approximate (skewed)``."""
        if self.approximate:
            return "approximate (skewed)"
        return "significant" if self.significant else "not significant"

    def delta_text(self) -> str:
        """``+3.1 pts`` (A − B in the metric's units)."""
        return fmt.difference(self.diff, proportion=self.proportion)

    def decided_text(self) -> str:
        """``+3.1 pts, 95% simultaneous CI (Šidák) [+0.6, +5.6]``: the difference and the
        interval its decision is read off, with its label."""
        interval = self.adjusted.text(proportion=self.proportion)
        return f"{self.delta_text()}, {self.interval_label()} {interval}"

    def interval_text(self) -> str:
        """The difference and the interval beside it in a sentence: ``+6.9 pts [+4.8,
        +8.9]`` (the decided interval), or, when that interval gives only the sign, the
        marginal one labelled, then the sign decided (``+6.9 pts, 95% CI [+4.8, +8.9],
        step-down CI > 0``), so the reader still sees how precise Δ is and which interval
        decided."""
        p = self.proportion
        if self.adjusted.sign_only:
            return (
                f"{self.delta_text()}, {self.marginal.short_label()} "
                f"{self.marginal.text(proportion=p)}, {self.adjusted.short_label()} "
                f"{self.adjusted.text(proportion=p)}"
            )
        return f"{self.delta_text()} {self.adjusted.text(proportion=p)}"

    def p_text(self) -> str:
        """``p adj. = 0.010`` (or ``p = 0.010`` in a family of one)."""
        if self.family_size <= 1 or self.correction == "none":
            return fmt.p_equals(self.p_value)
        return fmt.p_equals(self.p_adjusted, "p adj.")

    def pieces(self) -> list[str]:
        """The numbers of the claim as short pieces kept whole on a line (an e-mail's
        block, a console line): the difference with its decided interval, the label of
        that interval, the p-value the decision is read off, the two means."""
        means = (
            f"{fmt.value(self.mean_a, proportion=self.proportion)} vs "
            f"{fmt.value(self.mean_b, proportion=self.proportion)}"
            + (" (lower is better)" if self.direction == "lower" else "")
        )
        return [
            f"Δ {self.interval_text()}",
            self.interval_label(),
            self.p_text(),
            means,
        ]

    def sentence(self) -> Sentence:
        """The claim in one sentence, the better system first when it is significant
        (else in the order of the claim):

        "**A** is better than **B** on gsm8k / acc: Δ = +3.1 pts, 95% CI [+1.2, +5.0];
        95% simultaneous CI (Šidák) [+0.6, +5.6]; exact McNemar p adj. = 0.010
        (unadjusted p = 0.002; Šidák over 3 comparisons); d = 0.21, n = 1,319."
        """
        c = self.better_first()
        a, b = Name(c.system_a), Name(c.system_b)
        where = c.name
        if c.approximate:
            head = Sentence.of(
                "No decision between ",
                a,
                " and ",
                b,
                f" on {where} (heavily skewed "
                "differences: p and intervals approximate, not counted as significant)",
            )
        elif c.significant:
            lower = " (lower is better)" if c.direction == "lower" else ""
            head = Sentence.of(a, " is better than ", b, f" on {where}{lower}")
        else:
            head = Sentence.of("No significant difference between ", a, " and ", b, f" on {where}")
        parts = []
        adjusts = c.family_size > 1 and c.correction != "none"
        if c.diff is not None:
            what = (
                "" if c.estimand == "mean" else f" ({ESTIMAND_NAMES.get(c.estimand, c.estimand)})"
            )
            # in a family of one, the interval beside Δ is the one that agrees with the test
            shown = c.marginal if adjusts else c.adjusted
            interval = shown.text(proportion=c.proportion)
            parts.append(f"Δ{what} = {c.delta_text()}, {shown.label()} {interval}")
        if adjusts:
            parts.append(f"{c.interval_label()} {c.adjusted.text(proportion=c.proportion)}")
            name = CORRECTION_NAMES.get(c.correction, c.correction)
            parts.append(
                f"{c.test} {fmt.p_equals(c.p_adjusted, 'p adj.')} (unadjusted "
                f"{fmt.p_equals(c.p_value)}; {name} over {c.family_size:,} comparisons)"
            )
        else:
            parts.append(f"{c.test} {fmt.p_equals(c.p_value)} (a family of one: no adjustment)")
        effect = c.effect_size
        if effect is not None and math.isfinite(effect):
            symbol = _EFFECT_SYMBOL.get(str(c.effect_size_kind), "effect")
            effect_text = fmt.effect(effect)
            parts.append(
                f"|{symbol}| < 0.01"
                if effect_text[0] in "<>"
                else f"{symbol} = {fmt.fixed(effect, 1.0, 2)}"
            )
        if c.n_a is not None:
            same = c.paired or c.n_a == c.n_b or c.n_b is None
            parts.append(f"n = {c.n_a:,}" if same else f"n = {c.n_a:,} vs {c.n_b:,}")
        if c.note:
            parts.append(c.note)
        return Sentence.of(head, ": ", "; ".join(parts), ".")


def _claim_kwargs(get: Any, family_size: int) -> dict[str, Any]:
    """The fields of a :class:`Claim` from ``get(key)`` (a results.json row's values or
    one index of the columns)."""
    alpha = _num(get("alpha"))
    correction = str(get("correction") or "none")
    kind = get("ci_adjusted_kind") or interval_kind(correction, family_size)
    confidence = _num(get("confidence"))
    adjusted_level = _num(get("confidence_adjusted"))
    family_level = None if alpha is None else 1.0 - alpha
    marginal = Interval(_num(get("ci_low")), _num(get("ci_high")), confidence, "unadjusted")
    if (
        get("ci_adjusted_low") is None
        and get("ci_adjusted_high") is None
        and (get("confidence_adjusted") is None)
    ):  # a row written before the adjusted interval had fields of its own
        adjusted = marginal
    else:
        adjusted = Interval(
            _num(get("ci_adjusted_low")),
            _num(get("ci_adjusted_high")),
            adjusted_level,
            kind,
            family_level if kind != "unadjusted" else adjusted_level,
            correction,
        )
    n_a, n_b = get("n_a"), get("n_b")
    skewed = get("skewed")
    note = get("note")
    return dict(
        dataset=str(get("dataset")),
        metric=str(get("metric")),
        system_a=str(get("system_a")),
        system_b=str(get("system_b")),
        direction=str(get("direction") or "higher"),
        proportion=bool(get("proportion")),
        modality=str(get("modality") or ""),
        paired=bool(get("paired")),
        test=str(get("test") or ""),
        alternative=str(get("alternative") or "two-sided"),
        mean_a=_num(get("mean_a")),
        mean_b=_num(get("mean_b")),
        diff=_num(get("diff")),
        n_a=None if n_a is None else int(n_a),
        n_b=None if n_b is None else int(n_b),
        p_value=_num(get("p_value")),
        p_adjusted=_num(get("p_adjusted")),
        correction=correction,
        significant=bool(get("significant")),
        marginal=marginal,
        adjusted=adjusted,
        family_size=family_size,
        estimand=str(get("estimand") or "mean"),
        effect_size=_num(get("effect_size")),
        effect_size_kind=get("effect_size_kind"),
        approximate=bool(get("approximate")),
        skewed=bool(skewed) if skewed is not None else False,
        note=None if note is None or note == "" else str(note),
        derived_from=get("derived_from"),
    )


@dataclass(frozen=True)
class UnitClaims:
    """The claims of one dataset × metric, kept by column: a unit of 1,000 systems has
    499,500 of them, made into :class:`Claim` objects only when asked for.

    ``columns`` maps each field of a ``comparisons`` row of results.json to an array
    with one entry per pair, or to one value shared by every pair. ``family_size``:
    the comparisons corrected together with these (this unit's, or the analysis').
    """

    dataset: str
    metric: str
    columns: Mapping[str, Any]
    family_size: int

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]], *, family_size: int) -> UnitClaims:
        """The claims of ``rows`` (the unit's ``comparisons`` rows of results.json)."""
        keys = dict.fromkeys(k for r in rows for k in r)
        columns: dict[str, Any] = {}
        for key in keys:
            values = [r.get(key) for r in rows]
            columns[key] = np.array(values, dtype=object)
        first = rows[0] if rows else {}
        return cls(
            str(first.get("dataset", "")), str(first.get("metric", "")), columns, family_size
        )

    def __len__(self) -> int:
        a = self.columns.get("system_a")
        return 0 if a is None else len(a)

    def _get(self, key: str, k: int) -> Any:
        value = self.columns.get(key)
        if isinstance(value, np.ndarray):
            item = value[k]
            return item.item() if isinstance(item, np.generic) else item
        return value

    def __getitem__(self, k: int) -> Claim:
        return Claim(**_claim_kwargs(functools.partial(self._get, k=k), self.family_size))

    def __iter__(self) -> Iterator[Claim]:
        return (self[k] for k in range(len(self)))

    @functools.cached_property
    def _index(self) -> dict[tuple[str, str], int]:
        a, b = self.columns["system_a"], self.columns["system_b"]
        out = {}
        for k, (x, y) in enumerate(zip(a, b)):
            out[(str(x), str(y))] = k
            out[(str(y), str(x))] = k
        return out

    def claim(self, a: str, b: str) -> Claim | None:
        """The comparison of ``a`` with ``b``, oriented ``a − b``, or None."""
        if len(self) == 0:
            return None
        k = self._index.get((a, b))
        return None if k is None else self[k].oriented(a)

    def system_a(self) -> np.ndarray:
        return np.asarray(self.columns["system_a"], dtype=object)

    def system_b(self) -> np.ndarray:
        return np.asarray(self.columns["system_b"], dtype=object)

    def significant(self) -> np.ndarray:
        """Each pair's decision, as the analysis made it (a bool array)."""
        value = self.columns.get("significant")
        if isinstance(value, np.ndarray):
            return (
                np.asarray([bool(v) if v is not None else False for v in value], dtype=bool)
                if value.dtype == object
                else value.astype(bool)
            )
        return np.full(len(self), bool(value), dtype=bool)

    def column(self, key: str) -> np.ndarray:
        """One field for every pair (a shared value repeated)."""
        value = self.columns.get(key)
        if isinstance(value, np.ndarray):
            return value
        return np.full(len(self), value, dtype=object)

    @property
    def n_significant(self) -> int:
        return int(self.significant().sum())

"""The result records of the power calculations (one scenario, a curve, a power from an
observed sample) and the builder of a scenario's result.

Private to :mod:`reportgen.stats.power`, which re-exports the public names.

Examples
--------
>>> from reportgen.stats.power import power_at
>>> r = power_at(30, 0.5, design="paired-continuous")  # statsmodels TTestPower: 0.754
>>> round(r.power, 3), r.solved_for, r.method
(0.754, 'power', 't')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from reportgen.stats._common import TabularMixin
from reportgen.stats._power_design import (
    DESIGNS as DESIGNS,
)
from reportgen.stats._power_design import (
    METHODS as METHODS,
)
from reportgen.stats._power_design import (
    Design,
    PowerAlternative,
    PowerDesign,
    SolvedFor,
    _discordant,
    _num,
)
from reportgen.stats._power_design import (
    correlation_bounds as correlation_bounds,
)
from reportgen.stats._power_tests import (
    EXACT_DISCORDANT_MAX,
    _effect_size,
)
from reportgen.stats._power_tests import (
    _mcnemar_critical as _mcnemar_critical,
)
from reportgen.stats._power_tests import (
    _mcnemar_exact_power as _mcnemar_exact_power,
)


@dataclass(frozen=True)
class PowerResult:
    """One power scenario: design, sample size, effect, level and power.

    Attributes
    ----------
    design, method, alternative, alpha
        The test and its level (``method`` resolved, e.g. ``"exact"``, or
        ``"simulation (exact McNemar)"``).
    n
        Items (unpaired designs: items of system A; B has ``ratio · n``). Solved for
        (:func:`reportgen.stats.power.required_n`), a whole number of items: the
        closed-form root rounded up (:meth:`items_needed` gives it as an int).
    delta
        The effect ``mean_a − mean_b`` in score units (NaN when no feasible effect
        reaches the target power).
    power
        The power at ``(n, delta)``; for a solved ``n`` or ``delta`` the power reached
        (the target, or above it for the integer ``n`` of the exact test).
    target_power
        The power that was solved for (``None`` when ``solved_for == "power"``).
    solved_for
        ``"power"`` (:func:`power_at`), ``"delta"`` (:func:`minimum_detectable_effect`)
        or ``"n"`` (:func:`required_n`).
    effect_size, effect_size_kind
        Standardised effect in the engine's convention: paired d
        :math:`\\delta/\\sigma_\\Delta` (paired designs; for binary scores
        :math:`\\sigma_\\Delta = \\sqrt{\\psi - \\delta^2}`), Cohen's h (unpaired binary)
        or Cohen's d with the SD pooled in proportion to the group sizes (unpaired
        continuous).
    baseline, discordance, correlation, sd, sd_b, ratio
        Nuisance parameters (module docstring); ``None`` where they do not apply. For
        ``paired-binary`` both ``discordance`` and ``correlation`` are filled in when
        one implies the other at this ``delta`` (``correlation`` needs ``baseline``).
    p10, p01
        Paired binary: probabilities that only A (resp. only B) is right.
    mc_se, n_simulations
        Monte Carlo standard error of a simulated power and the number of simulated
        trials; ``None`` for analytic power.
    """

    design: Design
    method: str
    alternative: PowerAlternative
    alpha: float
    n: float
    delta: float
    power: float
    solved_for: SolvedFor
    target_power: float | None = None
    effect_size: float = math.nan
    effect_size_kind: str = ""
    baseline: float | None = None
    discordance: float | None = None
    correlation: float | None = None
    sd: float | None = None
    sd_b: float | None = None
    ratio: float | None = None
    p10: float | None = None
    p01: float | None = None
    mc_se: float | None = None
    n_simulations: int | None = None

    def items_needed(self) -> int:
        """``n`` rounded up to a whole number of items (tolerating 1e-9 of rounding
        error in the root)."""
        if math.isnan(self.n):
            raise ValueError("n is NaN: no sample size reaches the target power")
        return int(math.ceil(self.n - 1e-9))

    def to_dict(self) -> dict[str, Any]:
        """The fields as a flat dict (NaN as None)."""
        return {f.name: _num(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class PowerCurve(TabularMixin):
    """Power, MDE or required n over a grid: one :class:`PowerResult` per point.

    ``n``, ``delta`` and ``power`` give the columns as arrays, for charts;
    :meth:`to_records` gives one dict per point.
    """

    points: tuple[PowerResult, ...]

    def __len__(self) -> int:
        return len(self.points)

    @property
    def n(self) -> np.ndarray:
        return np.array([p.n for p in self.points], dtype=np.float64)

    @property
    def delta(self) -> np.ndarray:
        return np.array([p.delta for p in self.points], dtype=np.float64)

    @property
    def power(self) -> np.ndarray:
        return np.array([p.power for p in self.points], dtype=np.float64)

    def to_records(self) -> list[dict[str, Any]]:
        """One :meth:`PowerResult.to_dict` per point."""
        return [p.to_dict() for p in self.points]


@dataclass(frozen=True)
class SamplePowerResult:
    """MDE (and optionally the n needed for a given effect) of one dataset × metric,
    with nuisance parameters estimated from the observed scores.

    Attributes
    ----------
    mde
        :func:`minimum_detectable_effect` at the observed number of items.
    required
        :func:`required_n` for the requested ``delta``, or ``None``.
    summary
        Which data summary gave the nuisance parameters, in words.
    n_summarised
        How many pairs (paired designs) or systems (unpaired) it summarises.
    """

    mde: PowerResult
    required: PowerResult | None
    summary: str
    n_summarised: int

    def to_dict(self) -> dict[str, Any]:
        """A flat row: design, n, target power, the MDE, the requested delta and its
        required n, the nuisance parameters and the summary (NaN as None)."""
        m = self.mde
        return {
            "design": m.design,
            "method": m.method,
            "alternative": m.alternative,
            "alpha": m.alpha,
            "power": m.target_power,
            "n": _num(m.n),
            "mde": _num(m.delta),
            "mde_effect_size": _num(m.effect_size),
            "effect_size_kind": m.effect_size_kind,
            "delta": None if self.required is None else _num(self.required.delta),
            "n_required": None if self.required is None else _num(self.required.n),
            "baseline": _num(m.baseline),
            "discordance": _num(m.discordance),
            "sd": _num(m.sd),
            "summary": self.summary,
            "n_summarised": self.n_summarised,
        }


def _result(
    spec: PowerDesign,
    n: float,
    delta: float,
    power: float,
    solved_for: SolvedFor,
    target: float | None = None,
    *,
    method: str | None = None,
    mc_se: float | None = None,
    n_simulations: int | None = None,
) -> PowerResult:
    p10 = p01 = discordance = None
    correlation = spec.correlation
    if math.isnan(delta):
        effect, kind = math.nan, _effect_size(0.0, spec)[1]
    else:
        effect, kind = _effect_size(delta, spec)
    if spec.design == "paired-binary" and not math.isnan(delta):
        a, b = _discordant(np.float64(delta), spec)
        p10, p01 = float(a), float(b)
        discordance = p10 + p01
        if spec.correlation is None and spec.baseline is not None:
            p_b = spec.baseline
            p_a = p_b + delta
            scale = math.sqrt(max(p_a * (1 - p_a) * p_b * (1 - p_b), 0.0))
            correlation = ((p_a - p10) - p_a * p_b) / scale if scale > 0 else None
    elif spec.design == "paired-binary":
        discordance = spec.discordance
    method = method or spec.method
    if method == "exact" and discordance is not None and n * discordance > EXACT_DISCORDANT_MAX:
        method = "normal"  # what _power_array computed there (EXACT_DISCORDANT_MAX)
    return PowerResult(
        spec.design,
        method,
        spec.alternative,
        spec.alpha,
        float(n),
        float(delta),
        float(power),
        solved_for,
        target,
        effect,
        kind,
        spec.baseline,
        discordance,
        correlation,
        spec.sd,
        spec.sd_b,
        spec.ratio,
        p10,
        p01,
        mc_se,
        n_simulations,
    )

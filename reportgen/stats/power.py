"""Power, minimum detectable effect and required sample size of the comparison tests.

One function family for the four designs of Table 1 of Ackerman et al. (2025), each with
the power of the test the engine (:mod:`reportgen.stats.pairwise`) actually runs as the
default method:

- ``paired-binary``: ``exact`` — the exact (conditional binomial) McNemar test, its
  power averaged over the number of discordant items (Duffy 1984); the engine's test.
  ``normal`` — the normal approximation of McNemar's test (Connor 1987).
- ``unpaired-binary``: ``pooled-z`` — the two-proportion z test with pooled variance,
  pooled SE under H0 and unpooled under H1 (Fleiss, Levin & Paik 2003, §4.2); the
  engine's test; equals statsmodels ``power_proportions_2indep``. ``arcsine`` — the z
  test of Cohen's h (Cohen 1988, ch. 6); equals statsmodels ``NormalIndPower`` with
  ``proportion_effectsize``.
- ``paired-continuous``: ``t`` — paired t (noncentral t, df = n − 1); equals statsmodels
  ``TTestPower``.
- ``unpaired-continuous``: ``welch`` — Welch t, approximated by the noncentral t with the
  Welch-Satterthwaite df of the population SDs; the engine's test. ``pooled-t`` — the
  pooled-variance t (noncentral t, df = n_a + n_b − 2); equals statsmodels
  ``TTestIndPower``.

``method="auto"`` picks the first (the engine's) method. With equal SDs and equal group
sizes ``welch`` and ``pooled-t`` coincide (the Welch df is then 2n − 2).

The effect ``delta`` is always in the units of the scores, ``mean_a − mean_b`` (for
binary scores a difference of accuracies), with the sign convention of
:class:`~reportgen.stats.pairwise.PairwiseResult`: ``alternative="greater"`` tests
``mean_a > mean_b``. ``n`` is the number of items (for unpaired designs the items of
system A; system B has ``ratio · n``).

Nuisance parameters (keyword-only; each applies to some designs only and is rejected
elsewhere):

- ``baseline``: accuracy of system B, :math:`p_b`; A has :math:`p_a = p_b + \\delta`.
  Needed by ``unpaired-binary`` and by ``paired-binary`` with ``correlation``.
- ``discordance``: :math:`\\psi = p_{10} + p_{01}`, the probability that the two systems
  disagree on an item (``paired-binary``). With :math:`\\delta = p_{10} - p_{01}`,
  :math:`p_{10} = (\\psi + \\delta)/2`, :math:`p_{01} = (\\psi - \\delta)/2`; McNemar's
  power depends on nothing else, so ``baseline`` is then optional (only checked for
  feasibility).
- ``correlation``: the phi (Pearson) correlation :math:`\\rho` of the two systems'
  correctness (``paired-binary``); with the marginals fixed,
  :math:`p_{11} = p_a p_b + \\rho\\sqrt{p_a(1-p_a)p_b(1-p_b)}`.
- ``sd``: SD of the per-item differences (``paired-continuous``) or of system A's
  scores (``unpaired-continuous``); default 1, so that ``delta`` is Cohen's d.
  ``sd_b``: SD of system B (``unpaired-continuous``; default ``sd``).
- ``ratio``: ``n_b / n_a`` (unpaired designs; default 1).

Functions: :func:`power_at` (one scenario), :func:`power_curve` (arrays of ``n`` and
``delta``), :func:`minimum_detectable_effect` and :func:`mde_curve` (smallest effect
detected with the target power), :func:`required_n` (items needed for an effect),
:func:`simulate_paired_binary_power` (Monte Carlo power of exact McNemar with correlated
systems), :func:`mde_for_sample` (nuisance parameters estimated from observed data, for
the analysis).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, get_args

import numpy as np
from scipy import optimize, special, stats

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats._common import TabularMixin
from reportgen.stats._resampling import DEFAULT_MAX_MEMORY, chunk_sizes
from reportgen.stats.pairwise import binomial_pvalue

__all__ = [
    "DESIGNS",
    "METHODS",
    "Design",
    "PowerAlternative",
    "PowerCurve",
    "PowerDesign",
    "PowerMethod",
    "PowerResult",
    "SamplePowerResult",
    "correlation_bounds",
    "mde_curve",
    "mde_for_sample",
    "minimum_detectable_effect",
    "paired_binary_cells",
    "power_at",
    "power_curve",
    "required_n",
    "sample_paired_binary",
    "simulate_paired_binary_power",
]

Design = Literal["paired-binary", "unpaired-binary", "paired-continuous", "unpaired-continuous"]
PowerMethod = Literal["auto", "exact", "normal", "pooled-z", "arcsine", "t", "welch", "pooled-t"]
PowerAlternative = Literal["two-sided", "greater", "less"]
SolvedFor = Literal["power", "delta", "n"]

#: The designs and their methods; the first method is the engine's test (``"auto"``).
DESIGNS: tuple[str, ...] = get_args(Design)
METHODS: dict[str, tuple[str, ...]] = {
    "paired-binary": ("exact", "normal"),
    "unpaired-binary": ("pooled-z", "arcsine"),
    "paired-continuous": ("t",),
    "unpaired-continuous": ("welch", "pooled-t"),
}

# nuisance parameters each design accepts
_NUISANCE: dict[str, tuple[str, ...]] = {
    "paired-binary": ("baseline", "discordance", "correlation"),
    "unpaired-binary": ("baseline", "ratio"),
    "paired-continuous": ("sd",),
    "unpaired-continuous": ("sd", "sd_b", "ratio"),
}

_FEASIBILITY_TOL = 1e-12


# ============================================================================ results


def _num(value: Any) -> Any:
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


@dataclass(frozen=True)
class PowerResult:
    """One power scenario: design, sample size, effect, level and power.

    Attributes
    ----------
    design, method, alternative, alpha
        The test and its level (``method`` resolved, e.g. ``"exact"``, or
        ``"simulation (exact McNemar)"``).
    n
        Items (unpaired designs: items of system A; B has ``ratio · n``). A float when
        solved for by a closed-form method (as statsmodels ``solve_power``); round it up
        with :meth:`items_needed`.
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


# ============================================================================ inputs


@dataclass(frozen=True)
class PowerDesign:
    """The design of a comparison whose power is asked: the parameters every power
    function shares, checked once and completed for the design.

    ``PowerDesign("paired-binary", discordance=0.2)`` can be passed as ``design=`` to
    :func:`power_at`, :func:`power_curve`, :func:`minimum_detectable_effect`,
    :func:`mde_curve` and :func:`required_n`, instead of the same keywords to each.

    Attributes
    ----------
    design
        One of :data:`DESIGNS`.
    method
        ``"auto"`` (the engine's test; resolved to it here) or one of the design's
        methods (:data:`METHODS`).
    alternative
        ``"two-sided"``, ``"greater"`` (a test of ``mean_a > mean_b``) or ``"less"``.
    alpha
        Significance level, in (0, 1).
    baseline
        Accuracy of system B, in [0, 1] (binary designs; needed by ``unpaired-binary``
        and with ``correlation``).
    discordance
        ``paired-binary``: P(the systems disagree on an item) = p10 + p01.
    correlation
        ``paired-binary``: phi of the two systems' correctness, instead of
        ``discordance`` (then ``baseline`` is needed).
    sd, sd_b
        Continuous designs: SD of the differences (paired) or of A's scores (unpaired;
        default 1, so deltas are Cohen's d), and of B's scores (unpaired; default
        ``sd``).
    ratio
        Unpaired designs: items of B per item of A (default 1).

    Raises
    ------
    InputError
        An unknown design, method or alternative; a parameter the design does not take,
        or a value out of its range; ``paired-binary`` without exactly one of
        ``discordance`` and ``correlation``; ``unpaired-binary`` without ``baseline``.
    """

    design: Design
    method: PowerMethod = "auto"
    alternative: PowerAlternative = "two-sided"
    alpha: float = 0.05
    baseline: float | None = None
    discordance: float | None = None
    correlation: float | None = None
    sd: float | None = None
    sd_b: float | None = None
    ratio: float | None = None

    def __post_init__(self) -> None:
        for name, value in _checked_design(**self.__dict__).items():
            object.__setattr__(self, name, value)

    def given(self, name: str) -> float:
        """A design parameter that was filled in for this design (the parameters a
        design does not use stay None)."""
        value = getattr(self, name)
        if value is None:  # a bug in this module, never bad input
            raise RuntimeError(f"power: {name} is not set for the {self.design} design")
        return float(value)


def _design_of(
    design: Design | PowerDesign, method: Any, alternative: Any, alpha: Any, **nuisance: Any
) -> PowerDesign:
    """``design`` itself when it is a :class:`PowerDesign` (whose parameters are then
    not given again beside it), else the PowerDesign of the keywords."""
    if isinstance(design, PowerDesign):
        beside = [k for k, v in nuisance.items() if v is not None]
        beside += [
            k
            for k, v, d in (
                ("method", method, "auto"),
                ("alternative", alternative, "two-sided"),
                ("alpha", alpha, 0.05),
            )
            if v != d
        ]
        if beside:
            raise InputError(
                f"{', '.join(beside)} given beside a PowerDesign",
                hint="set them in the PowerDesign",
            )
        return design
    return PowerDesign(design, method, alternative, alpha, **nuisance)


def _unit_iv(name: str, value: Any) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not 0 < value < 1
    ):
        raise InputError(
            f"{name}={value!r} must be a number between 0 and 1 (exclusive)",
            hint="e.g. alpha=0.05, power=0.8",
        )
    return float(value)


def _real_iv(name: str, value: Any) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(value)
    ):
        raise InputError(f"{name}={value!r} must be a finite number")
    return float(value)


def _checked_design(
    design: Any,
    method: Any,
    alternative: Any,
    alpha: Any,
    *,
    baseline: Any = None,
    discordance: Any = None,
    correlation: Any = None,
    sd: Any = None,
    sd_b: Any = None,
    ratio: Any = None,
) -> dict[str, Any]:
    """The fields of a :class:`PowerDesign`, checked and completed for the design."""
    if design not in DESIGNS:
        raise InputError(
            f"design={design!r} is not valid", hint=f"use one of: {', '.join(DESIGNS)}"
        )
    choices = METHODS[design]
    if method == "auto":
        method = choices[0]
    if method not in choices:
        raise InputError(
            f"method={method!r} is not valid for design {design!r}",
            hint=f"use one of: auto, {', '.join(choices)}",
        )
    if alternative not in get_args(PowerAlternative):
        raise InputError(
            f"alternative={alternative!r} is not valid", hint="use one of: two-sided, greater, less"
        )
    alpha = _unit_iv("alpha", alpha)
    given = {
        "baseline": baseline,
        "discordance": discordance,
        "correlation": correlation,
        "sd": sd,
        "sd_b": sd_b,
        "ratio": ratio,
    }
    for name, value in given.items():
        if value is not None and name not in _NUISANCE[design]:
            raise InputError(
                f"{name}= does not apply to design {design!r}",
                hint=f"{design} takes: {', '.join(_NUISANCE[design])}",
            )
    if baseline is not None:
        baseline = _real_iv("baseline", baseline)
        if not 0 <= baseline <= 1:
            raise InputError(
                f"baseline={baseline!r} must be a probability in [0, 1]",
                hint="baseline is the accuracy of system B",
            )
    if discordance is not None:
        discordance = _real_iv("discordance", discordance)
        if not 0 <= discordance <= 1:
            raise InputError(
                f"discordance={discordance!r} must be a probability in [0, 1]",
                hint="discordance is P(the systems disagree on an item) = p10 + p01",
            )
    if correlation is not None:
        correlation = _real_iv("correlation", correlation)
        if not -1 <= correlation <= 1:
            raise InputError(f"correlation={correlation!r} must be in [-1, 1]")
    for name in ("sd", "sd_b"):
        value = given[name]
        if value is not None:
            value = _real_iv(name, value)
            if value <= 0:
                raise InputError(
                    f"{name}={value!r} must be positive",
                    hint="a zero SD makes every non-zero effect certain; power is not defined",
                )
            given[name] = value
    sd, sd_b = given["sd"], given["sd_b"]
    if ratio is not None:
        ratio = _real_iv("ratio", ratio)
        if ratio <= 0:
            raise InputError(f"ratio={ratio!r} must be positive (n_b / n_a)")
    if design == "paired-binary":
        if (discordance is None) == (correlation is None):
            raise InputError(
                "paired-binary needs exactly one of discordance= or correlation=",
                hint="discordance = P(A and B disagree on an item); "
                "correlation = phi of A's and B's correctness (then "
                "baseline= is needed too)",
            )
        if correlation is not None and baseline is None:
            raise InputError(
                "correlation= needs baseline= (the accuracy of system B)",
                hint="or give discordance= instead",
            )
    if design == "unpaired-binary" and baseline is None:
        raise InputError(
            "unpaired-binary needs baseline= (the accuracy of system B)",
            hint="e.g. the observed accuracy of the reference system",
        )
    if design.endswith("continuous"):
        sd = 1.0 if sd is None else sd
        if method == "pooled-t" and sd_b is not None and sd_b != sd:
            raise InputError(
                f"method='pooled-t' assumes equal SDs, got sd={sd!r} and sd_b={sd_b!r}",
                hint="use method='welch'",
            )
    if design.startswith("unpaired"):
        ratio = 1.0 if ratio is None else ratio
    if design == "unpaired-continuous":
        sd_b = sd if sd_b is None else sd_b
    return dict(
        design=design,
        method=method,
        alternative=alternative,
        alpha=alpha,
        baseline=baseline,
        discordance=discordance,
        correlation=correlation,
        sd=sd,
        sd_b=sd_b,
        ratio=ratio,
    )


def _n_iv(n: Any, spec: PowerDesign) -> np.ndarray:
    arr = np.asarray(n)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise InputError(f"n={n!r} must be a number of items")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr < 2):
        raise InputError(f"n={n!r}: the number of items must be at least 2 (and finite)")
    if np.any(arr > _N_MAX):
        raise InputError(
            f"n={n!r} is more items than the power calculations handle (at most 2^40, "
            "about 1.1e12)",
            hint="give a number of items up to 1e12",
        )
    if spec.method == "exact" and np.any(arr != np.round(arr)):
        raise InputError(
            f"n={n!r}: the exact McNemar power needs a whole number of items",
            hint="round n, or use method='normal'",
        )
    if spec.design == "unpaired-continuous" and np.any(arr * spec.ratio < 2):
        raise InputError(
            f"n={n!r} with ratio={spec.ratio!r} gives system B fewer than 2 items",
            hint="the Welch and pooled t tests need 2 items per system",
        )
    return arr


def _delta_iv(delta: Any) -> np.ndarray:
    arr = np.asarray(delta)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) or not np.all(np.isfinite(arr)):
        raise InputError(f"delta={delta!r} must be a finite difference mean_a − mean_b")
    return arr.astype(np.float64)


def _target_iv(power: Any, alpha: float) -> float:
    power = _unit_iv("power", power)
    if power <= alpha:
        raise InputError(
            f"power={power!r} must exceed alpha={alpha!r}",
            hint="the power at no effect is alpha; ask for e.g. power=0.8",
        )
    return power


# ============================================================================ binary cells


def correlation_bounds(p_a: float, p_b: float) -> tuple[float, float]:
    """The range of phi correlations two Bernoulli variables with these means can have.

    Notes
    -----
    :math:`p_{11}` ranges over :math:`[\\max(0, p_a + p_b - 1), \\min(p_a, p_b)]`
    (Fréchet bounds), so :math:`\\rho = (p_{11} - p_a p_b)/\\sqrt{p_a q_a p_b q_b}` ranges
    over the image of that interval. A degenerate marginal (0 or 1) has no correlation;
    its bounds are ``(0, 0)``.

    References
    ----------
    .. [1] Prentice, R. L. (1988). Correlated binary regression with covariates specific to each
           binary observation. Biometrics 44(4), 1033-1048 (the range of the correlation).

    Examples
    --------
    >>> correlation_bounds(0.5, 0.5)
    (-1.0, 1.0)
    >>> [round(x, 4) for x in correlation_bounds(0.8, 0.6)]
    [-0.4082, 0.6124]
    """
    p_a, p_b = float(p_a), float(p_b)
    scale = math.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    if scale == 0:
        return 0.0, 0.0
    low = (max(0.0, p_a + p_b - 1) - p_a * p_b) / scale
    high = (min(p_a, p_b) - p_a * p_b) / scale
    return float(max(-1.0, low)), float(min(1.0, high))


def paired_binary_cells(
    p_a: float, p_b: float, *, correlation: float
) -> tuple[float, float, float, float]:
    """Cell probabilities ``(p11, p10, p01, p00)`` of two correlated Bernoulli variables.

    Parameters
    ----------
    p_a, p_b
        Marginal accuracies P(A right), P(B right).
    correlation
        Phi correlation ρ of A's and B's correctness.

    Raises
    ------
    InputError
        A probability outside [0, 1], or ρ outside :func:`correlation_bounds` for
        these marginals.

    Notes
    -----
    :math:`p_{11} = p_a p_b + \\rho\\sqrt{p_a(1-p_a)p_b(1-p_b)}`, :math:`p_{10} = p_a -
    p_{11}`, :math:`p_{01} = p_b - p_{11}`, :math:`p_{00} = 1 - p_a - p_b + p_{11}`; the
    marginals are kept fixed whatever ρ. ``p11`` is clipped to the Fréchet bounds only
    to absorb rounding (1e-12); a ρ truly outside the bounds is an error.

    Chandrabhas's evalci paper (§3.5) describes ρ as "the fraction of items whose
    correctness is linked by shared difficulty": a fraction f of items where both
    systems' correctness comes from one uniform draw (comonotone) and independent draws
    elsewhere gives phi :math:`f \\cdot \\rho_{max}(p_a, p_b)`; pass
    ``correlation=f * correlation_bounds(p_a, p_b)[1]`` for that model.

    References
    ----------
    .. [1] Prentice, R. L. (1988). Correlated binary regression with covariates specific to each
           binary observation. Biometrics 44(4), 1033-1048 (the range of the correlation).

    Examples
    --------
    >>> [round(x, 4) for x in paired_binary_cells(0.7, 0.6, correlation=0.5)]
    [0.5322, 0.1678, 0.0678, 0.2322]
    """
    for name, value in (("p_a", p_a), ("p_b", p_b)):
        value = _real_iv(name, value)
        if not 0 <= value <= 1:
            raise InputError(f"{name}={value!r} must be a probability in [0, 1]")
    correlation = _real_iv("correlation", correlation)
    cells = _cells_from_correlation(np.float64(p_a), np.float64(p_b), correlation)
    return tuple(float(c) for c in cells)  # type: ignore[return-value]


def _cells_from_correlation(
    p_a: np.ndarray | float, p_b: np.ndarray | float, rho: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    p_a, p_b = np.broadcast_arrays(
        np.asarray(p_a, dtype=np.float64), np.asarray(p_b, dtype=np.float64)
    )
    p11 = p_a * p_b + rho * np.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    low = np.maximum(0.0, p_a + p_b - 1)
    high = np.minimum(p_a, p_b)
    bad = (p11 < low - _FEASIBILITY_TOL) | (p11 > high + _FEASIBILITY_TOL)
    if np.any(bad):
        k = int(np.argmax(bad.ravel()))
        pa, pb = float(p_a.ravel()[k]), float(p_b.ravel()[k])
        lo, hi = correlation_bounds(pa, pb)
        raise InputError(
            f"correlation={rho!r} is infeasible for accuracies p_a={pa:.6g} and p_b={pb:.6g}",
            hint=f"with these accuracies the correlation must lie in "
            f"[{lo:.6g}, {hi:.6g}]; choose a smaller |correlation| or "
            "a smaller delta",
        )
    p11 = np.clip(p11, low, high)
    return p11, p_a - p11, p_b - p11, 1 - p_a - p_b + p11


def _discordant(delta: np.ndarray, spec: PowerDesign) -> tuple[np.ndarray, np.ndarray]:
    """``(p10, p01)`` of a paired binary design at effect ``delta`` (validated)."""
    delta = np.asarray(delta, dtype=np.float64)
    if spec.correlation is not None:
        p_a = spec.baseline + delta
        bad = (p_a < -_FEASIBILITY_TOL) | (p_a > 1 + _FEASIBILITY_TOL)
        if np.any(bad):
            raise InputError(
                f"delta={_first(delta, bad)!r} with baseline={spec.baseline!r} "
                "gives an accuracy of A outside [0, 1]",
                hint="delta = accuracy of A − accuracy of B (baseline)",
            )
        _, p10, p01, _ = _cells_from_correlation(
            np.clip(p_a, 0, 1), spec.given("baseline"), spec.given("correlation")
        )
        return p10, p01
    psi = spec.given("discordance")
    bad = np.abs(delta) > psi + _FEASIBILITY_TOL
    if np.any(bad):
        raise InputError(
            f"delta={_first(delta, bad)!r} is infeasible for "
            f"discordance={psi!r}: |delta| = |p10 − p01| cannot exceed "
            "p10 + p01",
            hint="use a larger discordance or a smaller delta",
        )
    p10 = np.clip((psi + delta) / 2, 0, psi)
    p01 = psi - p10
    if spec.baseline is not None:
        p_b = spec.baseline
        p11 = p_b + delta - p10
        p00 = 1 - p_b - p10
        bad = (p11 < -_FEASIBILITY_TOL) | (p00 < -_FEASIBILITY_TOL)
        if np.any(bad):
            raise InputError(
                f"delta={_first(delta, bad)!r}, discordance={psi!r} and "
                f"baseline={p_b!r} are infeasible together (a negative cell "
                "probability)",
                hint="p10 = (discordance + delta)/2 must not "
                "exceed 1 − baseline, and p01 = "
                "(discordance − delta)/2 not baseline",
            )
    return p10, p01


def _first(values: np.ndarray, mask: np.ndarray) -> float:
    return float(np.broadcast_to(values, mask.shape)[mask].ravel()[0])


def _proportions(delta: np.ndarray, spec: PowerDesign) -> tuple[np.ndarray, np.ndarray]:
    p_b = spec.baseline
    delta = np.asarray(delta, dtype=np.float64)
    p_a = p_b + delta
    bad = (p_a < -_FEASIBILITY_TOL) | (p_a > 1 + _FEASIBILITY_TOL)
    if np.any(bad):
        raise InputError(
            f"delta={_first(delta, bad)!r} with baseline={p_b!r} gives an "
            "accuracy of A outside [0, 1]",
            hint="delta = accuracy of A − accuracy of B (baseline)",
        )
    return np.clip(p_a, 0, 1), np.full(p_a.shape, p_b)


# ============================================================================ power formulas


def _z_tails(alpha: float, alternative: str) -> float:
    return float(special.ndtri(1 - (alpha / 2 if alternative == "two-sided" else alpha)))


def _normal_power(
    shift: np.ndarray, sd_null: np.ndarray, sd_alt: np.ndarray, alpha: float, alternative: str
) -> np.ndarray:
    """Power of a z test whose statistic's numerator has mean ``shift`` and SD
    ``sd_null`` under H0, ``sd_alt`` under H1 (statsmodels ``normal_power_het``)."""
    z = _z_tails(alpha, alternative)
    with np.errstate(invalid="ignore", divide="ignore"):
        upper = (shift - z * sd_null) / sd_alt
        lower = (-shift - z * sd_null) / sd_alt
    # sd_alt = 0: the statistic is a constant; it rejects iff it is beyond the critical value
    upper = np.where(sd_alt == 0, np.where(shift - z * sd_null > 0, np.inf, -np.inf), upper)
    lower = np.where(sd_alt == 0, np.where(-shift - z * sd_null > 0, np.inf, -np.inf), lower)
    out = np.zeros(np.broadcast(upper, lower).shape)
    if alternative in ("two-sided", "greater"):
        out = out + special.ndtr(upper)
    if alternative in ("two-sided", "less"):
        out = out + special.ndtr(lower)
    return out


def _t_power(nc: np.ndarray, df: np.ndarray, alpha: float, alternative: str) -> np.ndarray:
    """Power of a t test with noncentrality ``nc`` (statsmodels ``ttest_power``)."""
    a = alpha / 2 if alternative == "two-sided" else alpha
    crit = stats.t.isf(a, df)
    out = np.zeros(np.broadcast(nc, df).shape)
    # nctdtr returns NaN deep in a tail for very small df (e.g. df = 1, nc = 40); the
    # tail probability there is below 1e-16
    if alternative in ("two-sided", "greater"):
        cdf = special.nctdtr(df, nc, crit)
        out = out + (1 - np.where(np.isnan(cdf) & (nc < 0), 1.0, cdf))
    if alternative in ("two-sided", "less"):
        cdf = special.nctdtr(df, nc, -crit)
        out = out + np.where(np.isnan(cdf) & (nc > 0), 0.0, cdf)
    return out


def _mcnemar_critical(d: np.ndarray, alpha: float, alternative: str) -> np.ndarray:
    """For each number ``d`` of discordant items, the largest ``c`` such that the exact
    McNemar test (:func:`~reportgen.stats.pairwise.binomial_pvalue`, the engine's test)
    rejects at ``k = c`` items won by A (``less``, and the lower tail of ``two-sided``),
    or at ``k = d − c`` (``greater``); −1 when no ``k`` rejects.

    Rejection regions: two-sided ``k <= c or k >= d − c``; ``less`` ``k <= c``;
    ``greater`` ``k >= d − c`` (the p-value is symmetric under ``k -> d − k`` and
    monotone in the tail)."""
    d = np.asarray(d, dtype=np.float64)
    a = alpha / 2 if alternative == "two-sided" else alpha

    def rejects(c: np.ndarray, d: np.ndarray) -> np.ndarray:
        valid = (c >= 0) & (c <= d)
        if alternative == "greater":
            p = binomial_pvalue(d - c, d, "greater")
        else:
            p = binomial_pvalue(c, d, alternative)
        ok = valid & (p <= alpha)
        if alternative == "two-sided":
            ok &= 2 * c < d
        return ok

    # start at the normal approximation of the binomial quantile (a few items off at
    # most), then step each c by one until it is the largest that rejects (the p-value
    # is monotone in c), only where c still moves: scipy.stats' binomial ppf over the
    # 60,000 discordant counts of 100,000 items took 3.8 s
    best = np.clip(np.floor((d + special.ndtri(a) * np.sqrt(d)) / 2), -1.0, d).reshape(-1)
    flat_d = d.reshape(-1)
    moving = np.arange(best.size)
    for _ in range(best.size + 2):
        if not moving.size:
            break
        c, dd = best[moving], flat_d[moving]
        up = rejects(c + 1, dd)
        down = ~up & (c >= 0) & ~rejects(c, dd)
        best[moving] = c + up - down
        moving = moving[up | down]
    return best.reshape(d.shape)


def _mcnemar_exact_power(
    n: np.ndarray, p10: np.ndarray, p01: np.ndarray, alpha: float, alternative: str
) -> np.ndarray:
    """Unconditional power of the conditional exact McNemar test (Duffy 1984).

    :math:`\\sum_d \\mathrm{Bin}(d; n, \\psi)\\,P(\\text{reject} \\mid d)` with
    :math:`K \\mid d \\sim \\mathrm{Bin}(d, p_{10}/\\psi)`; ``d`` runs over the range
    holding all but exp(-50) of the mass of Bin(n, ψ)."""
    n, p10, p01 = np.broadcast_arrays(
        np.asarray(n, dtype=np.float64),
        np.asarray(p10, dtype=np.float64),
        np.asarray(p01, dtype=np.float64),
    )
    psi = np.minimum(p10 + p01, 1.0)
    out = np.zeros(n.shape)
    live = psi > 0
    if not live.any():
        return out
    # d within t = 10 sd + 40 of its mean: by Bernstein's inequality each tail beyond
    # holds at most exp(-t² / (2 (sd² + t / 3))) <= exp(-50) of the mass (scipy.stats'
    # binomial quantiles took 2 ms a call, 247 calls for one MDE curve)
    mean = n[live] * psi[live]
    reach = 10 * np.sqrt(mean * (1 - psi[live])) + 40
    lo = np.maximum(0, np.floor(mean - reach)).astype(np.int64)
    hi = np.minimum(n[live], np.ceil(mean + reach)).astype(np.int64)
    # the rejection bounds depend on d only: one table for d = 0..max n, kept between calls
    # (a root search evaluates the power many times at the same n)
    c_all = _critical_table(int(hi.max()), float(alpha), alternative)
    values = []
    for nn, s, a, l, h in zip(n[live], psi[live], p10[live], lo, hi):
        d = np.arange(l, h + 1, dtype=np.int64)
        c = c_all[l : h + 1].astype(np.int64)
        # Bin(d; n, ψ) from log-gamma, and the binomial cdf / survival function of K | d
        # (scipy.special's bdtr / bdtrc, the ufuncs behind stats.binom.cdf / .sf)
        weight = np.exp(
            special.gammaln(nn + 1)
            - special.gammaln(d + 1)
            - special.gammaln(nn - d + 1)
            + special.xlogy(d, s)
            + special.xlog1py(nn - d, -s)
        )
        pi = min(1.0, a / s)
        with np.errstate(invalid="ignore"):  # c < 0 (nothing rejects) is masked below
            if alternative == "two-sided":
                given_d = special.bdtr(c, d, pi) + special.bdtrc(d - c - 1, d, pi)
            elif alternative == "less":
                given_d = special.bdtr(c, d, pi)
            else:
                given_d = special.bdtrc(d - c - 1, d, pi)
        given_d = np.where(c < 0, 0.0, given_d)
        values.append(min(1.0, float(weight @ given_d)))
    out[live] = values
    return out


#: The longest table of :func:`_mcnemar_critical` made so far per (alpha, alternative):
#: a shorter one is its start (the bounds for d do not depend on the table's length).
_CRITICAL_TABLES: dict[tuple[float, str], np.ndarray] = {}


def _critical_table(d_max: int, alpha: float, alternative: str) -> np.ndarray:
    """:func:`_mcnemar_critical` for d = 0..d_max (read-only), from a table kept per
    (alpha, alternative) and extended when a longer one is needed: a minimum
    detectable effect curve asks for every n of its grid, and 100,000 items made 13
    tables of up to 60,000 bounds each (5.4 of 6.9 s)."""
    key = (alpha, alternative)
    table = _CRITICAL_TABLES.get(key)
    if table is None or len(table) <= d_max:
        start = 0 if table is None else len(table)
        # grow geometrically: the next, longer request is likely near
        stop = max(d_max + 1, 2 * start)
        more = _mcnemar_critical(np.arange(start, stop, dtype=np.float64), alpha, alternative)
        table = more if table is None else np.concatenate([table, more])
        table.setflags(write=False)
        if len(_CRITICAL_TABLES) >= 16:
            _CRITICAL_TABLES.pop(next(iter(_CRITICAL_TABLES)))
        _CRITICAL_TABLES[key] = table
    return table[: d_max + 1]


def _power_array(n: np.ndarray, delta: np.ndarray, spec: PowerDesign) -> np.ndarray:
    """Power at every ``(n, delta)`` (broadcast); inputs already validated."""
    n = np.asarray(n, dtype=np.float64)
    delta = np.asarray(delta, dtype=np.float64)
    if spec.design == "paired-binary":
        p10, p01 = _discordant(delta, spec)
        psi = p10 + p01
        d = p10 - p01
        if spec.method == "exact":
            n, psi, p10, p01 = np.broadcast_arrays(n, psi, p10, p01)
            exact = n * psi <= EXACT_DISCORDANT_MAX
            out = np.empty(n.shape)
            if exact.any():
                out[exact] = _mcnemar_exact_power(
                    n[exact], p10[exact], p01[exact], spec.alpha, spec.alternative
                )
            if (~exact).any():
                # beyond EXACT_DISCORDANT_MAX expected discordant items the binomial of
                # the exact test is normal to within 1e-3 (its skewness is
                # (1 - 2p)/sqrt(d p (1 - p))): the normal approximation, in bounded time
                # and memory
                normal = replace(spec, method="normal")
                out[~exact] = _power_array(
                    n[~exact], np.asarray(delta * np.ones(n.shape))[~exact], normal
                )
            return out
        # Connor (1987): the numerator n10 − n01 has mean nδ, variance nψ under H0 and
        # n(ψ − δ²) under H1
        return np.where(
            psi <= 0,
            0.0,
            _normal_power(
                d * np.sqrt(n),
                np.sqrt(psi),
                np.sqrt(np.maximum(psi - d * d, 0.0)),
                spec.alpha,
                spec.alternative,
            ),
        )
    if spec.design == "unpaired-binary":
        p_a, p_b = _proportions(delta, spec)
        r = spec.given("ratio")
        if spec.method == "arcsine":
            h = 2 * np.arcsin(np.sqrt(p_a)) - 2 * np.arcsin(np.sqrt(p_b))
            n_eff = 1 / (1 / n + 1 / (n * r))
            return _normal_power(
                h * np.sqrt(n_eff), np.ones_like(h), np.ones_like(h), spec.alpha, spec.alternative
            )
        pooled = (p_a + r * p_b) / (1 + r)
        sd_null = np.sqrt(pooled * (1 - pooled) * (1 + 1 / r))
        sd_alt = np.sqrt(p_a * (1 - p_a) + p_b * (1 - p_b) / r)
        power = _normal_power(
            (p_a - p_b) * np.sqrt(n), sd_null, sd_alt, spec.alpha, spec.alternative
        )
        # both systems always (or never) right: the engine returns p = 1, never rejects
        return np.where(sd_null == 0, 0.0, power)
    if spec.design == "paired-continuous":
        return _t_power(delta / spec.given("sd") * np.sqrt(n), n - 1, spec.alpha, spec.alternative)
    r, s_a, s_b = spec.given("ratio"), spec.given("sd"), spec.given("sd_b")
    n_b = r * n
    if spec.method == "pooled-t":
        nc = delta / s_a * np.sqrt(1 / (1 / n + 1 / n_b))
        return _t_power(nc, n + n_b - 2, spec.alpha, spec.alternative)
    v_a, v_b = s_a * s_a / n, s_b * s_b / n_b
    df = (v_a + v_b) ** 2 / (v_a * v_a / (n - 1) + v_b * v_b / (n_b - 1))
    return _t_power(delta / np.sqrt(v_a + v_b), df, spec.alpha, spec.alternative)


def _effect_size(delta: float, spec: PowerDesign) -> tuple[float, str]:
    if spec.design == "paired-binary":
        p10, p01 = _discordant(np.float64(delta), spec)
        var = float(p10 + p01 - (p10 - p01) ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            es = (
                float(np.float64(delta) / np.sqrt(var))
                if var > 0
                else (0.0 if delta == 0 else math.copysign(math.inf, delta))
            )
        return es, "paired d"
    if spec.design == "unpaired-binary":
        p_a, p_b = _proportions(np.float64(delta), spec)
        return float(2 * np.arcsin(np.sqrt(p_a)) - 2 * np.arcsin(np.sqrt(p_b))), "Cohen's h"
    if spec.design == "paired-continuous":
        return delta / spec.given("sd"), "paired d"
    r, sd, sd_b = spec.given("ratio"), spec.given("sd"), spec.given("sd_b")
    pooled = math.sqrt((sd**2 + r * sd_b**2) / (1 + r))
    return delta / pooled, "Cohen's d"


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


# ============================================================================ public: power


def power_at(
    n: float,
    delta: float,
    *,
    design: Design | PowerDesign,
    method: PowerMethod = "auto",
    alternative: PowerAlternative = "two-sided",
    alpha: float = 0.05,
    baseline: float | None = None,
    discordance: float | None = None,
    correlation: float | None = None,
    sd: float | None = None,
    sd_b: float | None = None,
    ratio: float | None = None,
) -> PowerResult:
    """Power of the comparison test with ``n`` items at effect ``delta``.

    Parameters
    ----------
    n
        Items (unpaired designs: items of system A). At least 2; a whole number for
        ``method="exact"``.
    delta
        ``mean_a − mean_b`` in score units (binary: a difference of accuracies).
    design
        ``"paired-binary"``, ``"unpaired-binary"``, ``"paired-continuous"`` or
        ``"unpaired-continuous"``; or a :class:`PowerDesign` holding the design and its
        parameters (``method`` to ``ratio`` are then not given here).
    method
        ``"auto"`` (the engine's test) or one of the design's methods (module
        docstring).
    alternative
        ``"two-sided"``; ``"greater"`` for a test of ``mean_a > mean_b``, ``"less"``
        the reverse.
    alpha
        Significance level.
    baseline, discordance, correlation, sd, sd_b, ratio
        Nuisance parameters (module docstring).

    Returns
    -------
    PowerResult
        With ``solved_for="power"``.

    Raises
    ------
    InputError
        An unknown design, method or alternative; alpha outside (0, 1); n < 2 (or not
        whole for the exact test); a probability outside [0, 1]; a missing or
        inapplicable nuisance parameter; an effect infeasible for the nuisance
        parameters (|delta| > discordance, an accuracy outside [0, 1], a correlation
        outside the Fréchet bounds).

    Notes
    -----
    With :math:`z = \\Phi^{-1}(1 - \\alpha/2)` (one-sided: :math:`1 - \\alpha`), two-sided
    power adds both tails; the one-tail formulas below are the dominant term.

    - Paired binary, normal (Connor 1987, *Biometrics* 43:207): with
      :math:`\\psi = p_{10} + p_{01}`, :math:`\\delta = p_{10} - p_{01}`,
      :math:`\\Phi((|\\delta|\\sqrt n - z\\sqrt\\psi)/\\sqrt{\\psi - \\delta^2})`.
    - Paired binary, exact (Duffy 1984, *Biometrics* 40:1005): the number of discordant
      items is :math:`D \\sim \\mathrm{Bin}(n, \\psi)` and, given D = d, the items A wins
      are :math:`K \\sim \\mathrm{Bin}(d, p_{10}/\\psi)`; power
      :math:`= \\sum_d P(D = d) P(\\text{exact McNemar rejects} \\mid d)` with the
      rejection region of the engine's p-value (two-sided
      :math:`\\min(1, 2F(\\min(k, d-k); d, 1/2)) \\le \\alpha`).
    - Unpaired binary, pooled-z (Fleiss, Levin & Paik 2003, *Statistical Methods for
      Rates and Proportions*, §4.2): with :math:`r = n_b/n_a`,
      :math:`\\bar p = (p_a + r p_b)/(1 + r)`,
      :math:`\\Phi((|\\delta|\\sqrt{n} - z\\sqrt{\\bar p\\bar q(1 + 1/r)})
      /\\sqrt{p_a q_a + p_b q_b / r})` (statsmodels ``power_proportions_2indep``).
    - Unpaired binary, arcsine (Cohen 1988, ch. 6): :math:`h = 2\\arcsin\\sqrt{p_a} -
      2\\arcsin\\sqrt{p_b}`, :math:`\\Phi(|h|\\sqrt{n r/(1 + r)} - z)` (statsmodels
      ``NormalIndPower().power(proportion_effectsize(p_a, p_b), n, alpha, ratio)``).
    - Paired t: noncentral t with df = n − 1 and noncentrality
      :math:`\\delta\\sqrt n/\\sigma_\\Delta` (statsmodels ``TTestPower``).
    - Pooled t: df = :math:`n_a + n_b - 2`, noncentrality
      :math:`(\\delta/\\sigma)\\sqrt{n_a n_b/(n_a + n_b)}` (statsmodels ``TTestIndPower``).
    - Welch t: noncentrality :math:`\\delta/\\sqrt{\\sigma_a^2/n_a + \\sigma_b^2/n_b}` and
      the Welch-Satterthwaite df of the population variances. Welch's test has no
      closed-form power; this noncentral-t approximation is checked against a
      simulation of ``scipy.stats.ttest_ind(equal_var=False)`` in the tests.

    References
    ----------
    .. [1] Connor, R. J. (1987). Sample size for testing differences in proportions for the
           paired-sample design. Biometrics 43(1), 207-211.
    .. [2] Fleiss, J. L., Levin, B. & Paik, M. C. (2003). Statistical Methods for Rates and
           Proportions, 3rd ed., ch. 4. Wiley.
    .. [3] Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.
           Erlbaum.

    Examples
    --------
    >>> r = power_at(200, 0.05, design="paired-binary", discordance=0.2)
    >>> r.method, round(r.power, 4)
    ('exact', 0.2984)

    By brute force: the number of discordant items m ~ Bin(200, 0.2), then the exact
    McNemar test on m items with P(A only | discordant) = (0.2 + 0.05) / 0.4.

    >>> from scipy import stats
    >>> def exact_power(n, psi, delta, alpha=0.05):
    ...     total = 0.0
    ...     for m in range(1, n + 1):
    ...         k = np.arange(m + 1)
    ...         p = 2 * np.minimum(stats.binom.cdf(k, m, 0.5), stats.binom.sf(k - 1, m, 0.5))
    ...         reject = stats.binom.pmf(k, m, (psi + delta) / (2 * psi))[p <= alpha].sum()
    ...         total += stats.binom.pmf(m, n, psi) * reject
    ...     return total
    >>> round(float(exact_power(200, 0.2, 0.05)), 4)
    0.2984
    >>> round(power_at(64, 0.5, design="unpaired-continuous").power, 4)
    0.8015
    >>> from statsmodels.stats.power import TTestIndPower
    >>> round(float(TTestIndPower().power(0.5, 64, 0.05)), 4)
    0.8015
    """
    spec = _design_of(
        design,
        method,
        alternative,
        alpha,
        baseline=baseline,
        discordance=discordance,
        correlation=correlation,
        sd=sd,
        sd_b=sd_b,
        ratio=ratio,
    )
    n_arr, d_arr = _n_iv(n, spec), _delta_iv(delta)
    if n_arr.ndim or d_arr.ndim:
        raise InputError("power_at takes one n and one delta", hint="use power_curve for arrays")
    return _result(
        spec, float(n_arr), float(d_arr), float(_power_array(n_arr, d_arr, spec)), "power"
    )


def power_curve(
    n: Any,
    delta: Any,
    *,
    design: Design | PowerDesign,
    method: PowerMethod = "auto",
    alternative: PowerAlternative = "two-sided",
    alpha: float = 0.05,
    baseline: float | None = None,
    discordance: float | None = None,
    correlation: float | None = None,
    sd: float | None = None,
    sd_b: float | None = None,
    ratio: float | None = None,
) -> PowerCurve:
    """Power over a grid: ``n`` and ``delta`` are broadcast together (1-D or scalars).

    Parameters are those of :func:`power_at`. The closed-form methods are computed in one
    vectorised call; the exact McNemar power loops over the points (each vectorised over
    the number of discordant items).

    References
    ----------
    .. [1] Connor, R. J. (1987). Sample size for testing differences in proportions for the
           paired-sample design. Biometrics 43(1), 207-211.
    .. [2] Fleiss, J. L., Levin, B. & Paik, M. C. (2003). Statistical Methods for Rates and
           Proportions, 3rd ed., ch. 4. Wiley.
    .. [3] Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.
           Erlbaum.

    Examples
    --------
    >>> curve = power_curve([50, 100, 200], 0.5, design="paired-continuous")
    >>> [round(p, 3) for p in curve.power.tolist()]
    [0.934, 0.999, 1.0]
    >>> from statsmodels.stats.power import TTestPower
    >>> [round(float(TTestPower().power(0.5, n, 0.05)), 3) for n in (50, 100, 200)]
    [0.934, 0.999, 1.0]
    """
    spec = _design_of(
        design,
        method,
        alternative,
        alpha,
        baseline=baseline,
        discordance=discordance,
        correlation=correlation,
        sd=sd,
        sd_b=sd_b,
        ratio=ratio,
    )
    n_arr, d_arr = _n_iv(n, spec), _delta_iv(delta)
    if n_arr.ndim > 1 or d_arr.ndim > 1:
        raise InputError("power_curve takes 1-D arrays (or scalars) of n and delta")
    try:
        n_arr, d_arr = np.broadcast_arrays(np.atleast_1d(n_arr), np.atleast_1d(d_arr))
    except ValueError:
        raise InputError(
            f"n ({np.size(n_arr)} values) and delta ({np.size(d_arr)} values) "
            "cannot be broadcast together",
            hint="give one of them as a scalar, or both of the same length",
        ) from None
    pw = _power_array(n_arr, d_arr, spec)
    return PowerCurve(
        tuple(
            _result(spec, float(a), float(b), float(p), "power")
            for a, b, p in zip(n_arr, d_arr, pw)
        )
    )


# ============================================================================ public: inverses


def _direction(alternative: str) -> float:
    return -1.0 if alternative == "less" else 1.0


def _max_effect(spec: PowerDesign, sign: float) -> float:
    """The largest ``|delta|`` in direction ``sign`` such that every effect from 0 to it
    is feasible (inf for continuous designs)."""
    if spec.design.endswith("continuous"):
        return math.inf
    if spec.design == "unpaired-binary":
        baseline = spec.given("baseline")
        return 1 - baseline if sign > 0 else baseline

    def feasible(m: float) -> bool:
        try:
            _discordant(np.float64(sign * m), spec)
        except InputError:
            return False
        return True

    if not feasible(0.0):
        _discordant(np.float64(0.0), spec)  # raises the explanatory InputError
    if spec.correlation is None:
        # linear constraints on delta: the feasible effects are an interval
        cap = spec.given("discordance")
        if feasible(cap):
            return float(cap)
        lo, hi = 0.0, float(cap)
    else:
        # a fixed correlation bounds p_a through the Fréchet bounds; a degenerate p_a
        # (0 or 1) is feasible again, so find the first infeasible point on a grid
        baseline = spec.given("baseline")
        cap = 1 - baseline if sign > 0 else baseline
        p_a = baseline + sign * cap * np.arange(0, 1025) / 1024
        p_b = np.full(p_a.shape, baseline)
        scale = np.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
        p11 = p_a * p_b + spec.given("correlation") * scale
        ok = (p11 <= np.minimum(p_a, p_b) + _FEASIBILITY_TOL) & (
            p11 >= np.maximum(0, p_a + p_b - 1) - _FEASIBILITY_TOL
        )
        bad = np.flatnonzero(~ok)
        if not len(bad):
            return float(cap)
        lo, hi = cap * (bad[0] - 1) / 1024, cap * bad[0] / 1024
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if feasible(mid) else (lo, mid)
    return lo


def _solve_delta(n: float, spec: PowerDesign, target: float) -> tuple[float, float]:
    """Smallest ``|delta|`` (signed by the alternative) with power >= target at n."""
    sign = _direction(spec.alternative)
    n_arr = np.float64(n)

    def gap(m: np.ndarray | float) -> np.ndarray:
        return _power_array(n_arr, sign * np.asarray(m, dtype=np.float64), spec) - target

    top = _max_effect(spec, sign)
    if math.isinf(top):
        if spec.design == "paired-continuous":
            scale = spec.given("sd") / math.sqrt(n)
        else:
            scale = math.sqrt(
                spec.given("sd") ** 2 / n + spec.given("sd_b") ** 2 / (spec.given("ratio") * n)
            )
        lo, hi = 0.0, 4 * scale
        while gap(hi) < 0:  # power -> 1 as the effect grows
            lo, hi = hi, 2 * hi
    else:
        if top <= 0:
            return math.nan, math.nan
        # a grid from 0 to the largest feasible effect finds the first crossing even if
        # the power is not monotone in delta (correlation parametrisation)
        grid = top * np.arange(1, 65) / 64
        g = gap(grid)
        above = np.flatnonzero(g >= 0)
        if not len(above):
            return math.nan, float(g[-1] + target)
        k = int(above[0])
        lo, hi = (0.0 if k == 0 else float(grid[k - 1])), float(grid[k])
        if g[k] == 0:
            return sign * hi, target
    m = optimize.brentq(
        lambda x: float(gap(x)),
        lo,
        hi,
        xtol=1e-14 * max(hi, 1e-300),
        rtol=4 * np.finfo(float).eps,
        maxiter=500,
    )
    # the root is found to rounding: step up to the first point that reaches the target
    # (the smallest effect with power >= target, as promised), never past hi
    step = max(float(np.spacing(m)), 1e-15 * hi)
    reached = float(gap(m))
    while reached < 0 and m < hi:
        m = min(m + step, hi)
        step *= 2
        reached = float(gap(m))
    return sign * m, reached + target


def minimum_detectable_effect(
    n: float,
    *,
    design: Design | PowerDesign,
    power: float = 0.8,
    alpha: float = 0.05,
    method: PowerMethod = "auto",
    alternative: PowerAlternative = "two-sided",
    baseline: float | None = None,
    discordance: float | None = None,
    correlation: float | None = None,
    sd: float | None = None,
    sd_b: float | None = None,
    ratio: float | None = None,
) -> PowerResult:
    """The smallest effect ``n`` items detect with probability ``power``.

    Parameters
    ----------
    n
        Items (unpaired designs: items of system A).
    power
        Target power, in (alpha, 1).
    Other parameters
        As :func:`power_at`.

    Returns
    -------
    PowerResult
        ``solved_for="delta"``: ``delta`` is the MDE in score units, positive for
        ``two-sided`` and ``greater`` (A better than B; for unpaired binary data
        :math:`p_a = p_b + \\delta` above the baseline), negative for ``less``.

    Warns
    -----
    DegenerateDataWarning
        No feasible effect reaches the target power (binary designs: even
        :math:`p_a = 1`, or all discordant items won by A, falls short; or
        discordance = 0): ``delta`` is NaN and ``power`` the largest power reached.

    Notes
    -----
    Root of ``power_at(n, delta) = power`` by Brent's method on the design's power
    function (the exact McNemar power for ``method="exact"``). For binary designs the
    effect is bracketed by a 64-point grid from 0 to the largest feasible effect and the
    first crossing is refined, so the root is the smallest effect even where power is
    not monotone; for continuous designs power increases with the effect and the bracket
    is found by doubling. statsmodels ``solve_power(effect_size=None, ...)`` answers the
    same question for the t and arcsine methods.

    References
    ----------
    .. [1] Connor, R. J. (1987). Sample size for testing differences in proportions for the
           paired-sample design. Biometrics 43(1), 207-211.
    .. [2] Fleiss, J. L., Levin, B. & Paik, M. C. (2003). Statistical Methods for Rates and
           Proportions, 3rd ed., ch. 4. Wiley.
    .. [3] Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.
           Erlbaum.

    Examples
    --------
    >>> r = minimum_detectable_effect(1000, design="paired-binary", discordance=0.2)
    >>> round(r.delta, 4), round(r.power, 6)
    (0.0404, 0.8)

    The normal approximation (Connor 1987) gives a slightly smaller effect; the exact
    McNemar test needs a little more:

    >>> from scipy import optimize, stats
    >>> z_a, z_b = stats.norm.ppf(0.975), stats.norm.ppf(0.8)
    >>> connor = lambda d: 1000**0.5 * d - z_a * 0.2**0.5 - z_b * (0.2 - d**2) ** 0.5
    >>> round(float(optimize.brentq(connor, 1e-6, 0.2)), 4)
    0.0396
    """
    spec = _design_of(
        design,
        method,
        alternative,
        alpha,
        baseline=baseline,
        discordance=discordance,
        correlation=correlation,
        sd=sd,
        sd_b=sd_b,
        ratio=ratio,
    )
    target = _target_iv(power, spec.alpha)
    n_arr = _n_iv(n, spec)
    if n_arr.ndim:
        raise InputError("minimum_detectable_effect takes one n", hint="use mde_curve for arrays")
    delta, reached = _solve_delta(float(n_arr), spec, target)
    if math.isnan(delta):
        warnings.warn(
            f"no feasible effect reaches power {target} with n={float(n_arr):g} "
            f"(largest power {reached:.4g}); the MDE is NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    return _result(spec, float(n_arr), delta, reached, "delta", target)


def mde_curve(
    n: Any,
    *,
    design: Design | PowerDesign,
    power: float = 0.8,
    alpha: float = 0.05,
    method: PowerMethod = "auto",
    alternative: PowerAlternative = "two-sided",
    baseline: float | None = None,
    discordance: float | None = None,
    correlation: float | None = None,
    sd: float | None = None,
    sd_b: float | None = None,
    ratio: float | None = None,
) -> PowerCurve:
    """:func:`minimum_detectable_effect` at each ``n`` of a 1-D grid (the report's MDE
    curve).

    References
    ----------
    .. [1] Connor, R. J. (1987). Sample size for testing differences in proportions for the
           paired-sample design. Biometrics 43(1), 207-211.
    .. [2] Fleiss, J. L., Levin, B. & Paik, M. C. (2003). Statistical Methods for Rates and
           Proportions, 3rd ed., ch. 4. Wiley.

    Examples
    --------
    >>> c = mde_curve([100, 400], design="unpaired-binary", baseline=0.7)
    >>> [round(d, 4) for d in c.delta.tolist()]
    [0.1628, 0.0864]
    >>> from statsmodels.stats.proportion import power_proportions_2indep
    >>> [round(float(power_proportions_2indep(d, 0.7, n).power), 3)
    ...  for d, n in zip(c.delta.tolist(), [100, 400])]
    [0.8, 0.8]
    """
    spec = _design_of(
        design,
        method,
        alternative,
        alpha,
        baseline=baseline,
        discordance=discordance,
        correlation=correlation,
        sd=sd,
        sd_b=sd_b,
        ratio=ratio,
    )
    target = _target_iv(power, spec.alpha)
    n_arr = np.atleast_1d(_n_iv(n, spec))
    if n_arr.ndim > 1:
        raise InputError("mde_curve takes a 1-D array of n")
    points = []
    short = []
    for nn in n_arr:
        delta, reached = _solve_delta(float(nn), spec, target)
        if math.isnan(delta):
            short.append(float(nn))
        points.append(_result(spec, float(nn), delta, reached, "delta", target))
    if short:
        warnings.warn(
            f"no feasible effect reaches power {target} at n = "
            f"{', '.join(f'{x:g}' for x in short[:5])}"
            f"{' ...' if len(short) > 5 else ''}: the MDE is NaN there",
            DegenerateDataWarning,
            stacklevel=2,
        )
    return PowerCurve(tuple(points))


_N_MAX = 2.0**40

#: The exact McNemar power is computed while the expected number of discordant items
#: n·ψ is at most this (its rejection bounds for every d up to it take a few MB and
#: about a second); beyond, the normal approximation (Connor 1987), which is within
#: about 1e-3 of it there.
EXACT_DISCORDANT_MAX = 200_000

#: :func:`required_n` searches whole n with the exact McNemar power while the normal
#: approximation's answer is at most this many items (its search evaluates the power at
#: every n of a window below the crossing); beyond, it answers with the normal
#: approximation, whose result says so (``method="normal"``).
EXACT_SOLVE_MAX = 50_000


def _solve_n(delta: float, spec: PowerDesign, target: float) -> tuple[float, float]:
    """Smallest n >= 2 with power >= target (real n; whole for the exact test)."""

    def pw(n: float | np.ndarray) -> np.ndarray:
        return _power_array(np.asarray(n, dtype=np.float64), np.float64(delta), spec)

    p2 = float(pw(2.0))
    if p2 >= target:
        return 2.0, p2
    if spec.method != "exact":
        lo, hi = 2.0, 4.0
        while float(pw(hi)) < target:
            lo, hi = hi, 2 * hi
            if hi > _N_MAX:
                return math.nan, float(pw(lo))
        root = optimize.brentq(
            lambda x: float(pw(x)) - target,
            lo,
            hi,
            xtol=1e-10,
            rtol=4 * np.finfo(float).eps,
            maxiter=500,
        )
        return root, float(pw(root))
    # exact McNemar: integer n. Start from the normal approximation, bracket by
    # growing/halving, bisect on integers, then scan below the crossing because the
    # exact power is a (mild) saw-tooth in n.
    normal = replace(spec, method="normal")
    guess, _ = _solve_n(delta, normal, target)
    hi = max(3, int(math.ceil(guess))) if math.isfinite(guess) else 4
    while float(pw(hi)) < target:
        hi = int(math.ceil(hi * 1.25)) + 1
        if hi > 1e8:
            return math.nan, float(pw(hi))
    lo = max(2, hi // 2)
    while lo > 2 and float(pw(lo)) >= target:
        lo = max(2, lo // 2)
    while hi - lo > 1:  # invariant: pw(lo) < target <= pw(hi)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if float(pw(mid)) >= target else (mid, hi)
    window = np.arange(max(2, hi - max(10, int(math.ceil(0.02 * hi)))), hi + 1)
    ok = np.flatnonzero(pw(window) >= target)
    best = int(window[ok[0]])
    return float(best), float(pw(best))


def required_n(
    delta: float,
    *,
    design: Design | PowerDesign,
    power: float = 0.8,
    alpha: float = 0.05,
    method: PowerMethod = "auto",
    alternative: PowerAlternative = "two-sided",
    baseline: float | None = None,
    discordance: float | None = None,
    correlation: float | None = None,
    sd: float | None = None,
    sd_b: float | None = None,
    ratio: float | None = None,
) -> PowerResult:
    """Items needed to detect the effect ``delta`` with probability ``power``.

    Parameters
    ----------
    delta
        The effect ``mean_a − mean_b`` to detect: non-zero, and in the direction of a
        one-sided ``alternative``.
    power
        Target power, in (alpha, 1).
    Other parameters
        As :func:`power_at`.

    Returns
    -------
    PowerResult
        ``solved_for="n"``: for the closed-form methods ``n`` is the real root of
        ``power_at(n, delta) = power`` (as statsmodels ``solve_power``; use
        :meth:`PowerResult.items_needed` for a whole number); for ``method="exact"`` the
        smallest whole ``n`` whose exact power reaches the target. ``n = 2`` (with its
        power above the target) when 2 items already suffice. For unpaired designs ``n``
        counts system A's items; system B needs ``ratio · n``.

    Raises
    ------
    InputError
        As :func:`power_at`; ``delta = 0``, or a ``delta`` against a one-sided
        alternative.

    Notes
    -----
    Closed-form methods: Brent's method on ``[n/2, n]`` after doubling ``n`` from 2
    until the power reaches the target. Exact McNemar: its power is a saw-tooth in n
    (the discreteness of the binomial test; Chernick & Liu 2002, *Am. Stat.* 56:149),
    smoothed by the random number of discordant items; the search starts at the
    normal-approximation root, bisects on whole numbers and then scans the 2% (at least
    10 items) below the crossing for the first n that reaches the target. A slightly
    larger n can fall just below the target. When the normal approximation's answer
    exceeds :data:`EXACT_SOLVE_MAX` items (50,000), that answer is returned
    (``method="normal"``; the exact power is within about 1e-3 of it there), so every
    design answers within seconds; the answer is NaN, with a warning, when more than
    2^40 items would be needed.

    References
    ----------
    .. [1] Connor, R. J. (1987). Sample size for testing differences in proportions for the
           paired-sample design. Biometrics 43(1), 207-211.
    .. [2] Fleiss, J. L., Levin, B. & Paik, M. C. (2003). Statistical Methods for Rates and
           Proportions, 3rd ed., ch. 4. Wiley.
    .. [3] Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.
           Erlbaum.

    Examples
    --------
    >>> round(required_n(0.5, design="paired-continuous").n, 4)
    33.3671
    >>> from statsmodels.stats.power import TTestPower
    >>> round(float(TTestPower().solve_power(0.5, power=0.8, alpha=0.05)), 4)
    33.3671
    >>> required_n(0.05, design="paired-binary", discordance=0.2).n
    658.0
    """
    spec = _design_of(
        design,
        method,
        alternative,
        alpha,
        baseline=baseline,
        discordance=discordance,
        correlation=correlation,
        sd=sd,
        sd_b=sd_b,
        ratio=ratio,
    )
    target = _target_iv(power, spec.alpha)
    d_arr = _delta_iv(delta)
    if d_arr.ndim:
        raise InputError("required_n takes one delta")
    d = float(d_arr)
    if d == 0:
        raise InputError(
            "delta=0: no sample size detects a zero effect",
            hint="give the smallest difference worth detecting",
        )
    if spec.alternative != "two-sided" and d * _direction(spec.alternative) < 0:
        raise InputError(
            f"delta={d!r} points against alternative={spec.alternative!r}",
            hint="'greater' needs delta > 0 and 'less' delta < 0",
        )
    _power_array(np.float64(2.0), d_arr, spec)  # feasibility of delta, with its message
    if spec.method == "exact":
        guess, _ = _solve_n(d, replace(spec, method="normal"), target)
        if not math.isfinite(guess) or guess > EXACT_SOLVE_MAX:
            spec = replace(spec, method="normal")  # bounded time: see EXACT_SOLVE_MAX
    n, reached = _solve_n(d, spec, target)
    if math.isnan(n):
        warnings.warn(
            f"more than 2^40 (about 1.1e12) items are needed to reach power {target} "
            f"for delta={d!r}; n is NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    return _result(spec, n, d, reached, "n", target)


# ============================================================================ simulation


def sample_paired_binary(
    n: int,
    p_a: float,
    p_b: float,
    *,
    correlation: float,
    size: int,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """Counts of the four cells of ``size`` simulated paired binary samples.

    Each sample has ``n`` items, independent, with
    :math:`P(A=1) = p_a`, :math:`P(B=1) = p_b` and phi correlation ``correlation``
    between A and B on an item (cells by :func:`paired_binary_cells`). The counts of an
    item-level sample are its sufficient statistic, so a sample is one multinomial draw.

    Returns
    -------
    numpy.ndarray
        ``(size, 4)`` int64 counts of the cells ``(11, 10, 01, 00)``: both right, only
        A, only B, both wrong.

    References
    ----------
    .. [1] Prentice, R. L. (1988). Correlated binary regression with covariates specific to each
           binary observation. Biometrics 44(4), 1033-1048 (the range of the correlation).

    Examples
    --------
    >>> sample_paired_binary(100, 0.7, 0.6, correlation=0.5, size=2, rng=0).sum(axis=1)
    array([100, 100])
    """
    n = _count_iv("n", n, 1)
    size = _count_iv("size", size, 1)
    cells = np.array(paired_binary_cells(p_a, p_b, correlation=correlation))
    cells = np.clip(cells, 0, None)
    cells /= cells.sum()
    return np.random.default_rng(rng).multinomial(n, cells, size=size).astype(np.int64)


def _count_iv(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name}={value!r} must be an integer >= {minimum}")
    return int(value)


def simulate_paired_binary_power(
    n: int,
    delta: float,
    *,
    baseline: float,
    correlation: float | None = None,
    discordance: float | None = None,
    alpha: float = 0.05,
    alternative: PowerAlternative = "two-sided",
    n_simulations: int = 10_000,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> PowerResult:
    """Monte Carlo power of the exact McNemar test for correlated systems.

    Parameters
    ----------
    n
        Items per simulated evaluation.
    delta
        ``p_a − p_b``; :math:`p_b` = ``baseline``, :math:`p_a = p_b + \\delta`.
    baseline
        Accuracy of system B.
    correlation, discordance
        Exactly one: the phi correlation of the systems' correctness (the marginals stay
        :math:`p_a, p_b`), or the discordance rate.
    alpha, alternative
        The test.
    n_simulations
        Simulated evaluations.
    rng
        ``numpy.random.Generator`` or seed.
    max_memory
        Bound on the working memory (bytes); the trials are drawn in chunks.

    Returns
    -------
    PowerResult
        ``method="simulation (exact McNemar)"``, ``power`` the share of trials that
        reject, ``mc_se`` :math:`\\sqrt{\\hat\\pi(1-\\hat\\pi)/S}`.

    Notes
    -----
    Each trial is one multinomial draw of the four cell counts
    (:func:`sample_paired_binary`); all trials are drawn at once (per chunk) and tested
    with the engine's exact McNemar p-value
    (:func:`~reportgen.stats.pairwise.binomial_pvalue`). Its expectation is the
    ``method="exact"`` power of :func:`power_at` at the implied ``p10, p01``; the
    simulation is the check of that formula and the route Chandrabhas (evalci), §3.5 describes for
    correlated systems.

    References
    ----------
    .. [1] McNemar, Q. (1947). Note on the sampling error of the difference between correlated
           proportions or percentages. Psychometrika 12(2), 153-157.
    .. [2] Chandrabhas, S. K. evalci: a Python library for statistically rigorous comparison of
           language model evaluations, §3.5. https://doi.org/10.5281/zenodo.21201815

    Examples
    --------
    >>> r = simulate_paired_binary_power(300, 0.05, baseline=0.6, correlation=0.5,
    ...                                  n_simulations=2000, rng=1)
    >>> r.n_simulations, r.mc_se < 0.012
    (2000, True)

    Within Monte Carlo error of the exact power at the same cells:

    >>> exact = power_at(300, 0.05, design="paired-binary", baseline=0.6, correlation=0.5)
    >>> exact.method, bool(abs(r.power - exact.power) < 3 * r.mc_se)
    ('exact', True)
    """
    spec = PowerDesign(
        "paired-binary",
        "exact",
        alternative,
        alpha,
        baseline=baseline,
        discordance=discordance,
        correlation=correlation,
    )
    if spec.baseline is None:
        raise InputError("baseline= is required for the simulation")
    n = _count_iv("n", n, 2)
    n_simulations = _count_iv("n_simulations", n_simulations, 1)
    d = float(_delta_iv(delta))
    p10, p01 = (float(x) for x in _discordant(np.float64(d), spec))
    p_a = spec.baseline + d
    if not -_FEASIBILITY_TOL <= p_a <= 1 + _FEASIBILITY_TOL:
        raise InputError(
            f"delta={d!r} with baseline={spec.baseline!r} gives an accuracy of A outside [0, 1]"
        )
    p11 = max(0.0, p_a - p10)
    cells = np.clip(np.array([p11, p10, p01, 1 - p11 - p10 - p01]), 0, None)
    cells /= cells.sum()
    gen = np.random.default_rng(rng)
    rejected = 0
    for size in chunk_sizes(n_simulations, 64, max_memory):
        counts = gen.multinomial(n, cells, size=size)
        k, m = counts[:, 1], counts[:, 1] + counts[:, 2]
        rejected += int(np.count_nonzero(binomial_pvalue(k, m, spec.alternative) <= spec.alpha))
    est = rejected / n_simulations
    se = math.sqrt(est * (1 - est) / n_simulations)
    return _result(
        spec,
        float(n),
        d,
        est,
        "power",
        method="simulation (exact McNemar)",
        mc_se=se,
        n_simulations=n_simulations,
    )


# ============================================================================ from data


def mde_for_sample(
    scores: Any,
    *,
    design: Design,
    delta: float | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    method: PowerMethod = "auto",
    alternative: PowerAlternative = "two-sided",
    pair: tuple[int, int] | None = None,
) -> SamplePowerResult:
    """MDE at the observed number of items, nuisance parameters from the observed data.

    Parameters
    ----------
    scores
        Paired designs: an ``(n_items, n_systems)`` matrix (no NaN; average repeated
        runs first). Unpaired designs: one 1-D array of scores per system (a 2-D matrix
        is read as one column per system).
    design
        One of :data:`DESIGNS`; binary designs need 0/1 scores.
    delta
        If given, also the items needed to detect it (:func:`required_n`).
    power, alpha, method, alternative
        As :func:`minimum_detectable_effect`.
    pair
        Paired designs: ``(i, j)`` column indices of the one pair whose summary to use;
        default the median over all pairs.

    Returns
    -------
    SamplePowerResult

    Warns
    -----
    DegenerateDataWarning
        Fewer than 2 items; no disagreement between the systems (discordance 0) or
        zero SD; a ``delta`` that the observed discordance cannot produce: the affected
        numbers are NaN.

    Notes
    -----
    The data summaries, exactly:

    - ``paired-binary``: ``discordance`` = the share of items on which the two systems
      disagree, :math:`\\hat\\psi_{ij} = \\frac1n\\sum_k [x_{ki} \\ne x_{kj}]`, for
      the pair, or the median of :math:`\\hat\\psi_{ij}` over all pairs i < j. n is the
      number of items. No baseline: McNemar's power depends only on ψ and δ.
    - ``paired-continuous``: ``sd`` = the SD (ddof 1) of the item differences
      :math:`x_{ki} - x_{kj}` of the pair, or its median over all pairs.
    - ``unpaired-binary``: ``baseline`` = the median over systems of their accuracy; n =
      the median over systems of their item counts; ratio 1.
    - ``unpaired-continuous``: ``sd`` = the pooled within-system SD
      :math:`\\sqrt{\\sum_b (n_b - 1)s_b^2 / \\sum_b (n_b - 1)}` (so ``welch`` and
      ``pooled-t`` agree); n = the median item count; ratio 1.

    References
    ----------
    .. [1] Connor, R. J. (1987). Sample size for testing differences in proportions for the
           paired-sample design. Biometrics 43(1), 207-211.
    .. [2] Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
           evaluations. arXiv:2411.00640.

    Examples
    --------
    >>> x = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [1, 1, 1], [0, 0, 1]] * 40)
    >>> r = mde_for_sample(x, design="paired-binary")
    >>> round(r.mde.discordance, 3), round(r.mde.delta, 4)
    (0.4, 0.1287)

    The discordance is the median share of disagreeing items over the three pairs (2/5,
    4/5, 2/5); the MDE is then that of :func:`minimum_detectable_effect` at n = 200:

    >>> round(minimum_detectable_effect(200, design="paired-binary", discordance=0.4).delta, 4)
    0.1287
    """
    spec0 = PowerDesign(
        design,
        method,
        alternative,
        alpha,
        discordance=0.5 if design == "paired-binary" else None,
        baseline=0.5 if design == "unpaired-binary" else None,
    )
    target = _target_iv(power, spec0.alpha)
    if delta is not None:
        delta = float(_delta_iv(delta))
    binary = design.endswith("binary")
    if design.startswith("paired"):
        observed = _paired_summary(_paired_scores(scores, binary, design), binary, pair)
    else:
        observed = _unpaired_summary(_unpaired_scores(scores, binary, design), binary)
    n, nuisance = observed.n, observed.nuisance
    value = next(iter(nuisance.values()))
    if (
        n < 2
        or math.isnan(value)
        or value == 0
        or (design == "unpaired-binary" and value in (0.0, 1.0))
    ):
        why = "fewer than 2 items" if n < 2 else f"{next(iter(nuisance))} = {value:g} from the data"
        warnings.warn(
            f"{design} power: {why}; the MDE and required n are NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
        return _degenerate_sample_result(spec0, observed, target, delta)

    opts: dict[str, Any] = dict(
        design=design, power=target, alpha=alpha, method=method, alternative=alternative, **nuisance
    )
    if design == "paired-binary" and spec0.method == "exact":
        n = float(round(n))
    mde = minimum_detectable_effect(n, **opts)
    req = None
    if delta is not None:
        spec = PowerDesign(design, method, alternative, alpha, **nuisance)
        try:
            _power_array(np.float64(2.0), np.float64(delta), spec)
        except InputError as exc:
            warnings.warn(
                f"delta={delta!r} is not feasible for the observed data "
                f"({exc.message}); its required n is NaN",
                DegenerateDataWarning,
                stacklevel=2,
            )
            req = PowerResult(
                design,
                spec.method,
                spec.alternative,
                spec.alpha,
                math.nan,
                delta,
                math.nan,
                "n",
                target,
                effect_size_kind=_KINDS[design],
                baseline=spec.baseline,
                discordance=spec.discordance,
                sd=spec.sd,
                ratio=spec.ratio,
            )
        else:
            req = required_n(delta, **opts)
    return SamplePowerResult(mde, req, observed.summary, observed.n_summarised)


@dataclass(frozen=True)
class _Observed:
    """What :func:`mde_for_sample` takes from the data: the number of items, the one
    nuisance parameter of the design (``discordance``, ``sd`` or ``baseline``), how it
    was summarised and over how many pairs or systems."""

    n: float
    nuisance: dict[str, float]
    summary: str
    n_summarised: int
    paired: bool


def _checked_scores(X: np.ndarray, binary: bool, design: str) -> None:
    if np.isnan(X).any():
        raise InputError("scores contain NaN", hint="drop missing scores first")
    if binary and not np.all((X == 0) | (X == 1)):
        raise InputError(
            f"design={design!r} needs 0/1 scores",
            hint="use the continuous design for fractional scores",
        )


def _paired_scores(scores: Any, binary: bool, design: str) -> np.ndarray:
    """The items × systems matrix of a paired design."""
    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2:
        raise InputError(
            f"scores must be an items × systems matrix, got shape {X.shape}",
            hint="average repeated runs per item first",
        )
    if X.shape[1] < 2:
        raise InputError("at least 2 systems are needed")
    _checked_scores(X, binary, design)
    return X


def _unpaired_scores(scores: Any, binary: bool, design: str) -> list[np.ndarray]:
    """One array of scores per system (a 2-D matrix: one column per system)."""
    if isinstance(scores, np.ndarray) and scores.ndim == 2:
        arrays = [scores[:, j].astype(np.float64) for j in range(scores.shape[1])]
    else:
        arrays = [np.asarray(s, dtype=np.float64).ravel() for s in scores]
    if len(arrays) < 2:
        raise InputError("at least 2 systems are needed")
    _checked_scores(np.concatenate(arrays), binary, design)
    return arrays


def _paired_summary(X: np.ndarray, binary: bool, pair: tuple[int, int] | None) -> _Observed:
    """Discordance (0/1 scores) or SD of the differences, of ``pair`` or the median
    over all pairs."""
    n_items, n_sys = X.shape
    if pair is not None:
        i, j = (int(pair[0]), int(pair[1]))
        if not (0 <= i < n_sys and 0 <= j < n_sys and i != j):
            raise InputError(f"pair={pair!r} must be two different column indices below {n_sys}")
        ia, ib = np.array([i]), np.array([j])
    else:
        ia, ib = np.triu_indices(n_sys, k=1)
    where = "of the pair" if pair is not None else f"median over {len(ia)} pairs"
    if binary:
        value = math.nan
        if n_items:
            disagree = X.T @ (1 - X)
            value = float(np.median((disagree[ia, ib] + disagree[ib, ia]) / n_items))
        return _Observed(
            float(n_items),
            {"discordance": value},
            f"discordance: share of items the two systems disagree on, {where}",
            len(ia),
            True,
        )
    value = (
        float(np.median((X[:, ia] - X[:, ib]).std(axis=0, ddof=1))) if n_items >= 2 else math.nan
    )
    return _Observed(
        float(n_items),
        {"sd": value},
        f"sd: SD (ddof 1) of the per-item differences, {where}",
        len(ia),
        True,
    )


def _unpaired_summary(arrays: list[np.ndarray], binary: bool) -> _Observed:
    """Median accuracy (0/1 scores) or pooled within-system SD, and the median number
    of items per system."""
    sizes = np.array([len(a) for a in arrays], dtype=np.float64)
    n = float(np.median(sizes))
    if binary:
        means = [a.mean() for a in arrays if len(a)]
        value = float(np.median(means)) if means else math.nan
        return _Observed(
            n,
            {"baseline": value},
            f"baseline: median accuracy over {len(arrays)} systems; n: median items per system",
            len(arrays),
            False,
        )
    dof = np.maximum(sizes - 1, 0)
    ss = sum(((a - a.mean()) ** 2).sum() for a in arrays if len(a) > 1)
    value = float(math.sqrt(ss / dof.sum())) if dof.sum() > 0 else math.nan
    return _Observed(
        n,
        {"sd": value},
        f"sd: pooled within-system SD over {len(arrays)} systems; n: median items per system",
        len(arrays),
        False,
    )


def _degenerate_sample_result(
    spec: PowerDesign, observed: _Observed, target: float, delta: float | None
) -> SamplePowerResult:
    """The result when the data leave the MDE undefined: NaN numbers, the observed
    summaries kept."""
    nuisance = observed.nuisance
    common: dict[str, Any] = dict(
        target_power=target,
        effect_size_kind=_KINDS[spec.design],
        baseline=nuisance.get("baseline"),
        discordance=nuisance.get("discordance"),
        sd=nuisance.get("sd"),
        ratio=None if observed.paired else 1.0,
    )
    mde = PowerResult(
        spec.design,
        spec.method,
        spec.alternative,
        spec.alpha,
        observed.n,
        math.nan,
        math.nan,
        "delta",
        **common,
    )
    req = (
        None
        if delta is None
        else PowerResult(
            spec.design,
            spec.method,
            spec.alternative,
            spec.alpha,
            math.nan,
            delta,
            math.nan,
            "n",
            **common,
        )
    )
    return SamplePowerResult(mde, req, observed.summary, observed.n_summarised)


_KINDS = {
    "paired-binary": "paired d",
    "unpaired-binary": "Cohen's h",
    "paired-continuous": "paired d",
    "unpaired-continuous": "Cohen's d",
}

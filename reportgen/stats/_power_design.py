"""The scenario of a power calculation: the designs and their methods, the nuisance
parameters, their validation, and the cell probabilities of a paired binary design.

Private to :mod:`reportgen.stats.power`, which re-exports the public names."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from reportgen.errors import InputError

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


def _num(value: Any) -> Any:
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    return value


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
    values = _nuisance_iv(given)
    _required_nuisance_iv(design, method, values)
    baseline, discordance, correlation = (
        values["baseline"],
        values["discordance"],
        values["correlation"],
    )
    sd, sd_b, ratio = values["sd"], values["sd_b"], values["ratio"]
    if design.endswith("continuous"):
        sd = 1.0 if sd is None else sd
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


def _nuisance_iv(given: dict[str, Any]) -> dict[str, Any]:
    """The nuisance parameters given (None: not given), each checked for its range."""
    values = dict(given)
    for name in ("baseline", "discordance"):
        if values[name] is not None:
            values[name] = _real_iv(name, values[name])
            if not 0 <= values[name] <= 1:
                raise InputError(
                    f"{name}={values[name]!r} must be a probability in [0, 1]",
                    hint="baseline is the accuracy of system B"
                    if name == "baseline"
                    else "discordance is P(the systems disagree on an item) = p10 + p01",
                )
    if values["correlation"] is not None:
        values["correlation"] = _real_iv("correlation", values["correlation"])
        if not -1 <= values["correlation"] <= 1:
            raise InputError(f"correlation={values['correlation']!r} must be in [-1, 1]")
    for name in ("sd", "sd_b"):
        if values[name] is not None:
            values[name] = _real_iv(name, values[name])
            if values[name] <= 0:
                raise InputError(
                    f"{name}={values[name]!r} must be positive",
                    hint="a zero SD makes every non-zero effect certain; power is not defined",
                )
    if values["ratio"] is not None:
        values["ratio"] = _real_iv("ratio", values["ratio"])
        if values["ratio"] <= 0:
            raise InputError(f"ratio={values['ratio']!r} must be positive (n_b / n_a)")
    return values


def _required_nuisance_iv(design: str, method: str, values: dict[str, Any]) -> None:
    """The nuisance parameters each design needs, and those its method forbids."""
    if design == "paired-binary":
        if (values["discordance"] is None) == (values["correlation"] is None):
            raise InputError(
                "paired-binary needs exactly one of discordance= or correlation=",
                hint="discordance = P(A and B disagree on an item); "
                "correlation = phi of A's and B's correctness (then "
                "baseline= is needed too)",
            )
        if values["correlation"] is not None and values["baseline"] is None:
            raise InputError(
                "correlation= needs baseline= (the accuracy of system B)",
                hint="or give discordance= instead",
            )
    if design == "unpaired-binary" and values["baseline"] is None:
        raise InputError(
            "unpaired-binary needs baseline= (the accuracy of system B)",
            hint="e.g. the observed accuracy of the reference system",
        )
    if design.endswith("continuous"):
        sd = 1.0 if values["sd"] is None else values["sd"]
        sd_b = values["sd_b"]
        if method == "pooled-t" and sd_b is not None and sd_b != sd:
            raise InputError(
                f"method='pooled-t' assumes equal SDs, got sd={sd!r} and sd_b={sd_b!r}",
                hint="use method='welch'",
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


_N_MAX = 2.0**40

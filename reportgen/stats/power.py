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
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats._degenerate import power_of_two_scale
from reportgen.stats._power_design import (
    _FEASIBILITY_TOL,
    _N_MAX,
    DESIGNS,
    METHODS,
    Design,
    PowerAlternative,
    PowerDesign,
    PowerMethod,
    _delta_iv,
    _design_of,
    _discordant,
    _n_iv,
    _target_iv,
    correlation_bounds,
    paired_binary_cells,
)
from reportgen.stats._power_results import (
    PowerCurve,
    PowerResult,
    SamplePowerResult,
    _result,
)
from reportgen.stats._power_simulation import sample_paired_binary, simulate_paired_binary_power
from reportgen.stats._power_tests import (
    EXACT_DISCORDANT_MAX,  # noqa: F401 (re-exported)
    _mcnemar_critical,  # noqa: F401 (re-exported)
    _mcnemar_exact_power,  # noqa: F401 (re-exported)
    _power_array,
)
from reportgen.stats._roots import brent_root

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
    spec, unit = _scaled(spec)
    d_arr = d_arr / unit
    return _in_units(
        _result(spec, float(n_arr), float(d_arr), float(_power_array(n_arr, d_arr, spec)), "power"),
        unit,
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
    spec, unit = _scaled(spec)
    d_arr = d_arr / unit
    pw = _power_array(n_arr, d_arr, spec)
    return PowerCurve(
        tuple(
            _in_units(_result(spec, float(a), float(b), float(p), "power"), unit)
            for a, b, p in zip(n_arr, d_arr, pw)
        )
    )


# ============================================================================ public: inverses


def _direction(alternative: str) -> float:
    return -1.0 if alternative == "less" else 1.0


def _scaled(spec: PowerDesign) -> tuple[PowerDesign, float]:
    """A continuous design in units where its SD is near 1, and the unit: the power of
    two just above the SD (dividing by it is exact), so that no variance under- or
    overflows at any scale of the scores (1e-300 to 1e300). The power depends on
    delta/SD only, so the answers, multiplied back (:func:`_in_units`), are the same."""
    if spec.sd is None:
        return spec, 1.0
    unit = power_of_two_scale(np.array([v for v in (spec.sd, spec.sd_b) if v is not None]))
    if unit == 1.0:
        return spec, 1.0
    sd_b = None if spec.sd_b is None else spec.sd_b / unit
    return replace(spec, sd=spec.sd / unit, sd_b=sd_b), unit


def _in_units(result: PowerResult, unit: float) -> PowerResult:
    """A result of a :func:`_scaled` design back in the scores' units."""
    if unit == 1.0:
        return result

    def back(value: float | None) -> float | None:
        return None if value is None else value * unit

    return replace(result, delta=result.delta * unit, sd=back(result.sd), sd_b=back(result.sd_b))


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
    known: dict[float, np.ndarray] = {}

    def gap(m: np.ndarray | float) -> np.ndarray:
        # the exact power of one effect is the same alone as within a vector (one
        # element at a time), so an effect already evaluated is not evaluated again
        if np.ndim(m) == 0 and float(m) in known:
            return known[float(m)]
        value = _power_array(n_arr, sign * np.asarray(m, dtype=np.float64), spec) - target
        if np.ndim(m) == 0:
            known[float(m)] = value
        return value

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
        if _monotone_exact(n_arr, sign * grid, spec):
            # where the normal approximation crosses: a guess, a few items off at most
            normal = _power_array(n_arr, sign * grid, replace(spec, method="normal")) >= target
            guess = int(np.argmax(normal)) if normal.any() else len(grid) - 1
            found = _first_crossing(lambda i: float(gap(grid[i])), len(grid), guess)
            k = len(grid) if found is None else found
            g = {i: float(gap(grid[i])) for i in (k, len(grid) - 1) if i < len(grid)}
        else:
            g_all = gap(grid)
            above = np.flatnonzero(g_all >= 0)
            k = int(above[0]) if len(above) else len(grid)
            g = {i: float(g_all[i]) for i in (k, len(grid) - 1) if i < len(grid)}
        if k == len(grid):
            return math.nan, float(g[len(grid) - 1] + target)
        lo, hi = (0.0 if k == 0 else float(grid[k - 1])), float(grid[k])
        if g[k] == 0:
            return sign * hi, target
    m = brent_root(
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


def _monotone_exact(n: np.float64, delta: np.ndarray, spec: PowerDesign) -> bool:
    """Whether the power at ``n`` is the exact McNemar power at every effect of
    ``delta`` with the discordance fixed, so that it does not decrease as ``|delta|``
    grows: given d discordant items, A wins K ~ Bin(d, p10/ψ), and the chance that K
    falls in a tail of the rejection region grows with p10/ψ (in the direction of the
    alternative), for two-sided tests too, whose regions are symmetric; the mixture
    over d has weights free of ``delta``. (The correlation parametrisation changes ψ
    with ``delta``; the normal approximation need not be monotone.)"""
    if spec.design != "paired-binary" or spec.method != "exact" or spec.correlation is not None:
        return False
    p10, p01 = _discordant(delta, spec)
    return bool(np.all(n * np.minimum(p10 + p01, 1.0) <= EXACT_DISCORDANT_MAX))


def _first_crossing(value: Any, size: int, guess: int) -> int | None:
    """The first ``i`` in ``range(size)`` with ``value(i) >= 0`` (None if there is
    none), for ``value`` non-decreasing in ``i``: from ``guess`` by steps that double
    until the crossing is bracketed, then by bisection. Where ``value(i) >= 0`` holds,
    this is the first such index a scan of every ``i`` finds, with a few evaluations
    near a good guess instead of ``size``."""
    lo, hi = -1, size  # value(lo) < 0 and value(hi) >= 0 (the ends: by convention)
    i = min(max(guess, 0), size - 1)
    step = 1
    if value(i) >= 0:
        hi = i
        while hi - step > lo:
            j = hi - step
            if value(j) < 0:
                lo = j
                break
            hi, step = j, 2 * step
    else:
        lo = i
        while lo + step < hi:
            j = lo + step
            if value(j) >= 0:
                hi = j
                break
            lo, step = j, 2 * step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if value(mid) >= 0:
            hi = mid
        else:
            lo = mid
    return None if hi == size else hi


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
    spec, unit = _scaled(spec)
    delta, reached = _solve_delta(float(n_arr), spec, target)
    if math.isnan(delta):
        warnings.warn(
            f"no feasible effect reaches power {target} with n={float(n_arr):g} "
            f"(largest power {reached:.4g}); the MDE is NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    return _in_units(_result(spec, float(n_arr), delta, reached, "delta", target), unit)


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
    spec, unit = _scaled(spec)
    points = []
    short = []
    for nn in n_arr:
        delta, reached = _solve_delta(float(nn), spec, target)
        if math.isnan(delta):
            short.append(float(nn))
        points.append(_in_units(_result(spec, float(nn), delta, reached, "delta", target), unit))
    if short:
        warnings.warn(
            f"no feasible effect reaches power {target} at n = "
            f"{', '.join(f'{x:g}' for x in short[:5])}"
            f"{' ...' if len(short) > 5 else ''}: the MDE is NaN there",
            DegenerateDataWarning,
            stacklevel=2,
        )
    return PowerCurve(tuple(points))


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
        root = brent_root(
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
        ``solved_for="n"``: a whole number of items, the smallest whose power reaches
        the target: for the closed-form methods the real root of ``power_at(n, delta) =
        power`` (statsmodels ``solve_power``) rounded up, with the power reached there;
        for ``method="exact"`` the smallest whole ``n`` whose exact power reaches the
        target. ``n = 2`` (with its power above the target) when 2 items already
        suffice. For unpaired designs ``n``
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
    >>> required_n(0.5, design="paired-continuous").n
    34.0
    >>> from statsmodels.stats.power import TTestPower
    >>> import math
    >>> math.ceil(TTestPower().solve_power(0.5, power=0.8, alpha=0.05))  # 33.3671, rounded up
    34
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
    spec, unit = _scaled(spec)
    d, d_arr = d / unit, d_arr / unit
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
            f"for delta={d * unit!r}; n is NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
    elif n != math.ceil(n - 1e-9):
        # a whole number of items: the root of a closed-form power, rounded up, and the
        # power it reaches (at least the target)
        n = float(max(2, math.ceil(n - 1e-9)))
        reached = float(_power_array(np.float64(n), np.float64(d), spec))
    return _in_units(_result(spec, n, d, reached, "n", target), unit)


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
    unit = 1.0  # continuous scores: divided by a power of two (exact), no SD overflows
    if design.startswith("paired"):
        X = _paired_scores(scores, binary, design)
        if not binary:
            unit = power_of_two_scale(X)
            X = X / unit
        observed = _paired_summary(X, binary, pair)
    else:
        arrays = _unpaired_scores(scores, binary, design)
        if not binary:
            unit = power_of_two_scale(np.concatenate(arrays))
            arrays = [a / unit for a in arrays]
        observed = _unpaired_summary(arrays, binary)
    if delta is not None:
        delta = delta / unit
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
        return _sample_in_units(_degenerate_sample_result(spec0, observed, target, delta), unit)

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
    return _sample_in_units(
        SamplePowerResult(mde, req, observed.summary, observed.n_summarised), unit
    )


def _sample_in_units(result: SamplePowerResult, unit: float) -> SamplePowerResult:
    """A :func:`mde_for_sample` result computed on scores divided by ``unit``, back in
    the scores' units."""
    if unit == 1.0:
        return result
    required = None if result.required is None else _in_units(result.required, unit)
    return replace(result, mde=_in_units(result.mde, unit), required=required)


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

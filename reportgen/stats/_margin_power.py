"""Power and required sample size of the non-inferiority test at a margin (paired binary,
unpaired binary, paired and unpaired continuous designs).

Private to :mod:`reportgen.stats.margins`, which re-exports the public names."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from reportgen.errors import InputError
from reportgen.stats._common import (
    choices_iv,
)
from reportgen.stats._common import finite_or_none as _num
from reportgen.stats._margin_inputs import (
    MARGIN_DESIGNS,
    MarginDesign,
    _margin_iv,
)
from reportgen.stats._roots import brent_root
from reportgen.stats.intervals import (
    farrington_manning_restricted,
)


@dataclass(frozen=True)
class MarginPowerResult:
    """Power of a non-inferiority test, or the items it needs.

    Attributes
    ----------
    design, margin, alpha
        The design, δ and the one-sided level of the test.
    true_diff
        The difference assumed true (candidate − baseline, in the better direction;
        default 0: the candidate as good as the baseline).
    n
        Items (per system for unpaired designs: the candidate's, the baseline has
        ``ratio · n``).
    power
        Probability that the test shows non-inferiority.
    method
        The formula used.
    discordance, baseline, sd, sd_b, ratio
        The nuisance parameters used (None where they do not apply).
    """

    design: str
    margin: float
    alpha: float
    true_diff: float
    n: float
    power: float
    method: str
    discordance: float | None = None
    baseline: float | None = None
    sd: float | None = None
    sd_b: float | None = None
    ratio: float | None = None

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return {k: (_num(v) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class _PowerSpec:
    design: str
    margin: float
    alpha: float
    true_diff: float
    discordance: float | None
    baseline: float | None
    sd: float | None
    sd_b: float | None
    ratio: float


def _power_spec_iv(
    design: Any,
    margin: Any,
    alpha: Any,
    true_diff: Any,
    discordance: Any,
    baseline: Any,
    sd: Any,
    sd_b: Any,
    ratio: Any,
) -> _PowerSpec:
    choices_iv({"design": (design, MARGIN_DESIGNS)})
    delta = _margin_iv(margin, design.endswith("binary"))
    assert delta is not None or margin is None
    if delta is None:
        raise InputError(
            "margin must be given for the power of a non-inferiority test", hint="e.g. margin=0.01"
        )
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 0.5):
        raise InputError(
            f"alpha={alpha!r} must be a one-sided level in (0, 0.5)",
            hint="the release's one-sided level is α/2, e.g. 0.025",
        )
    true_diff = float(true_diff)
    if not math.isfinite(true_diff) or true_diff <= -delta:
        raise InputError(
            f"true_diff={true_diff!r} must be above −margin",
            hint="non-inferiority cannot be shown when the true loss is the margin or more",
        )
    allowed = {
        "paired-binary": {"discordance"},
        "unpaired-binary": {"baseline", "ratio"},
        "paired-continuous": {"sd"},
        "unpaired-continuous": {"sd", "sd_b", "ratio"},
    }
    given = {
        "discordance": discordance,
        "baseline": baseline,
        "sd": sd,
        "sd_b": sd_b,
        "ratio": None if ratio == 1 else ratio,
    }
    for name, value in given.items():
        if value is not None and name not in allowed[design]:
            raise InputError(
                f"{name} does not apply to design={design!r}",
                hint=f"{design} takes: {', '.join(sorted(allowed[design]))}",
            )
    if design == "paired-binary":
        if discordance is None or not (0 < float(discordance) <= 1):
            raise InputError(
                f"discordance={discordance!r} must be in (0, 1]",
                hint="the share of items on which the two systems disagree",
            )
        if abs(true_diff) > float(discordance):
            raise InputError(
                f"true_diff={true_diff!r} is larger than the discordance {discordance!r} allows"
            )
    if design == "unpaired-binary":
        if baseline is None or not (0 <= float(baseline) <= 1):
            raise InputError(
                f"baseline={baseline!r} must be a proportion in [0, 1]",
                hint="the baseline's accuracy",
            )
        if not (0 <= float(baseline) + true_diff <= 1):
            raise InputError("baseline + true_diff must be a proportion in [0, 1]")
    if design.endswith("continuous"):
        sd = 1.0 if sd is None else float(sd)
        if not (math.isfinite(sd) and sd > 0):
            raise InputError(f"sd={sd!r} must be positive")
    if design == "unpaired-continuous":
        sd_b = sd if sd_b is None else float(sd_b)
        if not (math.isfinite(sd_b) and sd_b > 0):
            raise InputError(f"sd_b={sd_b!r} must be positive")
    ratio = float(ratio)
    if not (math.isfinite(ratio) and ratio > 0):
        raise InputError(f"ratio={ratio!r} must be positive")
    return _PowerSpec(
        design,
        delta,
        float(alpha),
        true_diff,
        None if discordance is None else float(discordance),
        None if baseline is None else float(baseline),
        sd,
        sd_b,
        ratio,
    )


def _restricted_p21(p10: float, p01: float, delta0: float) -> float:
    """The limit of Tango's restricted MLE of the "only B right" cell under Δ = δ0
    when the observed cells are p10 (only A right) and p01 (only B right)."""
    A = 2.0
    B = -p10 - p01 + (2 - p10 + p01) * delta0
    C = -p01 * delta0 * (1 - delta0)
    return (math.sqrt(max(B * B - 4 * A * C, 0.0)) - B) / (2 * A)


def _power_value(n: float, spec: _PowerSpec) -> float:
    z = float(special.ndtri(1 - spec.alpha))
    shift = spec.true_diff + spec.margin  # distance from the null boundary
    if spec.design == "paired-binary":
        assert spec.discordance is not None
        psi = spec.discordance
        p10, p01 = (psi + spec.true_diff) / 2, (psi - spec.true_diff) / 2
        p21 = _restricted_p21(p10, p01, -spec.margin)
        sd0 = math.sqrt(2 * p21 - spec.margin * (1 + spec.margin))
        sd1 = math.sqrt(psi - spec.true_diff**2)
        return float(special.ndtr((math.sqrt(n) * shift - z * sd0) / sd1))
    if spec.design == "unpaired-binary":
        assert spec.baseline is not None
        p_b = spec.baseline
        p_a = p_b + spec.true_diff
        n_a, n_b = n, spec.ratio * n
        ta, tb = farrington_manning_restricted(
            np.float64(-spec.margin),
            np.float64(p_a),
            np.float64(n_a),
            np.float64(p_b),
            np.float64(n_b),
        )
        sd0 = math.sqrt(float(ta * (1 - ta)) / n_a + float(tb * (1 - tb)) / n_b)
        sd1 = math.sqrt(p_a * (1 - p_a) / n_a + p_b * (1 - p_b) / n_b)
        if sd1 == 0:
            return 1.0 if shift > 0 else 0.0
        return float(special.ndtr((shift - z * sd0) / sd1))
    from scipy import stats  # the noncentral t's survival function is not in scipy.special

    if spec.design == "paired-continuous":
        assert spec.sd is not None
        df = n - 1
        nc = shift * math.sqrt(n) / spec.sd
        return float(stats.nct.sf(stats.t.isf(spec.alpha, df), df, nc))
    assert spec.sd is not None and spec.sd_b is not None
    n_a, n_b = n, spec.ratio * n
    se2_a, se2_b = spec.sd**2 / n_a, spec.sd_b**2 / n_b
    df = (se2_a + se2_b) ** 2 / (se2_a**2 / (n_a - 1) + se2_b**2 / (n_b - 1))
    nc = shift / math.sqrt(se2_a + se2_b)
    return float(stats.nct.sf(stats.t.isf(spec.alpha, df), df, nc))


_POWER_METHODS = {
    "paired-binary": "Tango/Nam score test, normal approximation (Nam 1997)",
    "unpaired-binary": "Farrington-Manning score test, normal approximation "
    "(Farrington & Manning 1990)",
    "paired-continuous": "paired t, noncentral t",
    "unpaired-continuous": "Welch t, noncentral t with Welch-Satterthwaite df",
}


def _power_result(spec: _PowerSpec, n: float, power: float) -> MarginPowerResult:
    return MarginPowerResult(
        spec.design,
        spec.margin,
        spec.alpha,
        spec.true_diff,
        float(n),
        float(power),
        _POWER_METHODS[spec.design],
        spec.discordance,
        spec.baseline,
        spec.sd,
        spec.sd_b,
        None if spec.design.startswith("paired") else spec.ratio,
    )


def noninferiority_power(
    n: float,
    margin: float,
    *,
    design: MarginDesign,
    alpha: float = 0.025,
    true_diff: float = 0.0,
    discordance: float | None = None,
    baseline: float | None = None,
    sd: float | None = None,
    sd_b: float | None = None,
    ratio: float = 1.0,
) -> MarginPowerResult:
    """Power of the non-inferiority test of :func:`margin_paired` /
    :func:`margin_unpaired` (``method="auto"``) with n items.

    Parameters
    ----------
    n
        Items (unpaired: the candidate's; the baseline has ``ratio · n``); at least 2.
    margin
        δ > 0 in the units of the scores.
    design
        ``paired-binary``, ``unpaired-binary``, ``paired-continuous`` or
        ``unpaired-continuous``.
    alpha
        One-sided level (default 0.025 = α/2 of a two-sided 0.05, the release's level
        for one comparison).
    true_diff
        The true candidate − baseline difference, oriented so that positive is better
        (default 0).
    discordance
        ``paired-binary``: share of items the two systems disagree on, ψ = p₁₀ + p₀₁.
    baseline
        ``unpaired-binary``: the baseline's accuracy.
    sd, sd_b
        ``paired-continuous``: SD of the differences; ``unpaired-continuous``: SDs of
        the candidate and the baseline (``sd_b`` defaults to ``sd``). Default 1.
    ratio
        Unpaired designs: baseline items per candidate item.

    Returns
    -------
    MarginPowerResult

    Notes
    -----
    With shift :math:`s = \\Delta_1 + \\delta` (distance of the truth from the null
    boundary) and :math:`z = \\Phi^{-1}(1 - \\alpha)`:

    * paired binary (Nam 1997, eq. 6): :math:`\\Phi((\\sqrt n\\, s - z\\sigma_0)/
      \\sigma_1)`, :math:`\\sigma_1^2 = \\psi - \\Delta_1^2`, :math:`\\sigma_0^2 =
      2\\tilde p_{21} - \\delta(1 + \\delta)` with Tango's restricted MLE evaluated at
      the true cells;
    * unpaired binary (Farrington & Manning 1990, eq. 5): the same with
      :math:`\\sigma_0^2, \\sigma_1^2` the variances of the difference under the
      restricted MLE and under the truth;
    * paired t: the noncentral t with df = n − 1 and noncentrality
      :math:`s\\sqrt n/\\sigma_D` (statsmodels ``TTestPower`` with effect size
      :math:`s/\\sigma_D`, ``alternative="larger"``);
    * Welch t: the noncentral t with the Welch-Satterthwaite df of the population SDs.

    References
    ----------
    .. [1] Farrington, C. P. & Manning, G. (1990). Test statistics and sample size formulae for
           comparative binomial trials with null hypothesis of non-zero risk difference or non-unity
           relative risk. Statist. Med. 9(12), 1447-1454.
    .. [2] Nam, J. (1997). Establishing equivalence of two treatments and sample size requirements
           in matched-pairs design. Biometrics 53(4), 1422-1430.
    .. [3] Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
           approach for assessing the equivalence of average bioavailability. J. Pharmacokinet.
           Biopharm. 15(6), 657-680.

    Examples
    --------
    >>> r = noninferiority_power(500, 0.05, design="paired-binary", discordance=0.2)
    >>> round(r.power, 3)
    0.694

    By hand (Nam 1997): Tango's restricted MLE of the discordant cells under
    ``diff = -0.05``, evaluated at the true cells (p10 = p01 = 0.1), found by maximising
    the likelihood numerically.

    >>> from scipy import optimize, stats
    >>> def nll(t):
    ...     p10, p11 = t
    ...     p01, p00 = p10 - 0.05, 1 - 2 * p10 + 0.05 - p11
    ...     if min(p10, p11, p01, p00) <= 0:
    ...         return np.inf
    ...     return -(0.4 * np.log(p11) + 0.1 * np.log(p10) + 0.1 * np.log(p01) + 0.4 * np.log(p00))
    >>> p10, _ = optimize.minimize(nll, [0.12, 0.4], method="Nelder-Mead",
    ...                            options={"xatol": 1e-12, "fatol": 1e-14}).x
    >>> s0, s1 = np.sqrt(2 * p10 - 0.05 - 0.05**2), np.sqrt(0.2)
    >>> power = stats.norm.cdf((np.sqrt(500) * 0.05 - stats.norm.ppf(0.975) * s0) / s1)
    >>> round(float(power), 3)
    0.694
    """
    spec = _power_spec_iv(design, margin, alpha, true_diff, discordance, baseline, sd, sd_b, ratio)
    n = float(n)
    if not (math.isfinite(n) and n >= 2):
        raise InputError(f"n={n!r} must be at least 2")
    return _power_result(spec, n, _power_value(n, spec))


def noninferiority_required_n(
    margin: float,
    *,
    design: MarginDesign,
    power: float = 0.8,
    alpha: float = 0.025,
    true_diff: float = 0.0,
    discordance: float | None = None,
    baseline: float | None = None,
    sd: float | None = None,
    sd_b: float | None = None,
    ratio: float = 1.0,
) -> MarginPowerResult:
    """Items needed to show non-inferiority at ``margin`` with the given power.

    Parameters are those of :func:`noninferiority_power`; ``power`` is the target
    (default 0.8). The result's ``n`` is the smallest whole number of items reaching it
    (per system for unpaired designs: the candidate's), and ``power`` the power there.

    References
    ----------
    .. [1] Farrington, C. P. & Manning, G. (1990). Test statistics and sample size formulae for
           comparative binomial trials with null hypothesis of non-zero risk difference or non-unity
           relative risk. Statist. Med. 9(12), 1447-1454.
    .. [2] Nam, J. (1997). Establishing equivalence of two treatments and sample size requirements
           in matched-pairs design. Biometrics 53(4), 1422-1430.
    .. [3] Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
           approach for assessing the equivalence of average bioavailability. J. Pharmacokinet.
           Biopharm. 15(6), 657-680.

    Examples
    --------
    >>> noninferiority_required_n(0.05, design="paired-binary", discordance=0.2).n
    644.0
    """
    spec = _power_spec_iv(design, margin, alpha, true_diff, discordance, baseline, sd, sd_b, ratio)
    if not (isinstance(power, (int, float)) and spec.alpha < power < 1):
        raise InputError(f"power={power!r} must be between alpha and 1", hint="e.g. power=0.8")
    target = float(power)

    def gap(n: float) -> float:
        return _power_value(n, spec) - target

    lo, hi = 2.0, 4.0
    while gap(hi) < 0:
        lo, hi = hi, hi * 2
        if hi > 1e12:
            raise InputError(
                "more than 10^12 items would be needed",
                hint="the margin is too small for this design",
            )
    if gap(lo) >= 0:
        n = lo
    else:
        root = brent_root(gap, lo, hi, xtol=1e-6)
        n = float(math.ceil(root - 1e-9))
        while gap(n) < 0:
            n += 1
        while n > 2 and gap(n - 1) >= 0:
            n -= 1
    return _power_result(spec, n, _power_value(n, spec))

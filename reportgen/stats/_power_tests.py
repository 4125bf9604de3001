"""The power of each test of the engine at one scenario: normal and t approximations, the
exact McNemar test (critical values and power averaged over the discordant count), and
the vectorised power of every design and method.

Private to :mod:`reportgen.stats.power`.

Examples
--------
The paired t test's power with 30 items at d = 0.5 (noncentrality 0.5·√30, 29 df), as
statsmodels ``TTestPower().power(0.5, 30, 0.05)`` gives it (0.754):

>>> round(float(_t_power(np.array(0.5 * np.sqrt(30)), np.array(29.0), 0.05, "two-sided")), 3)
0.754
>>> round(_z_tails(0.05, "two-sided"), 2), round(_z_tails(0.05, "greater"), 3)
(1.96, 1.645)
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy import special

from reportgen.stats import _dist
from reportgen.stats._power_design import (
    DESIGNS as DESIGNS,
)
from reportgen.stats._power_design import (
    METHODS as METHODS,
)
from reportgen.stats._power_design import (
    PowerDesign,
    _discordant,
    _proportions,
)
from reportgen.stats._power_design import (
    correlation_bounds as correlation_bounds,
)
from reportgen.stats.pairwise import binomial_pvalue


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
    crit = _dist.t_isf(a, df)
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
        # Bin(d; n, ψ), and the binomial cdf / survival function of K | d (scipy.special's
        # bdtr / bdtrc, the ufuncs behind stats.binom.cdf / .sf)
        weight = _discordant_weights(float(nn), float(s), int(l), int(h))
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


#: :func:`_discordant_weights` computed so far (a root search asks again for the same n
#: and discordance at every effect it tries), the oldest dropped first.
_WEIGHTS: dict[tuple[float, float, int, int], np.ndarray] = {}


def _discordant_weights(n: float, psi: float, lo: int, hi: int) -> np.ndarray:
    """Bin(d; n, ψ) for d = lo..hi, from log-gamma (read-only; kept between calls)."""
    key = (n, psi, lo, hi)
    weight = _WEIGHTS.get(key)
    if weight is None:
        d = np.arange(lo, hi + 1, dtype=np.int64)
        weight = np.exp(
            special.gammaln(n + 1)
            - special.gammaln(d + 1)
            - special.gammaln(n - d + 1)
            + special.xlogy(d, psi)
            + special.xlog1py(n - d, -psi)
        )
        weight.setflags(write=False)
        if len(_WEIGHTS) >= 64:
            _WEIGHTS.pop(next(iter(_WEIGHTS)))
        _WEIGHTS[key] = weight
    return weight


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


#: The exact McNemar power is computed while the expected number of discordant items
#: n·ψ is at most this (its rejection bounds for every d up to it take a few MB and
#: about a second); beyond, the normal approximation (Connor 1987), which is within
#: about 1e-3 of it there.
EXACT_DISCORDANT_MAX = 200_000

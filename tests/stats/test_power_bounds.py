"""`power` is bounded (issue 30, item 9): every design answers within seconds or says
that the answer exceeds 2^40 items; a huge n is a clear error."""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
import pytest
from scipy import optimize, stats

from reportgen.cli import main
from reportgen.errors import DegenerateDataWarning, InputError
from reportgen.stats import power as pw


def _connor_power(n: float, delta: float, psi: float, alpha: float = 0.05) -> float:
    """Connor (1987): power of McNemar's z test, n10 - n01 ~ N(n delta, n (psi - delta^2))
    against N(0, n psi) under H0, both tails."""
    za, sd0, sd1 = stats.norm.isf(alpha / 2), math.sqrt(psi), math.sqrt(psi - delta**2)
    shift = math.sqrt(n) * delta
    return stats.norm.cdf((shift - za * sd0) / sd1) + stats.norm.cdf((-shift - za * sd0) / sd1)


def _connor_n(delta: float, psi: float, power: float = 0.8) -> float:
    """The n where :func:`_connor_power` reaches ``power`` (scipy brentq on Connor's
    formula; its one-tailed closed form, eq. 3, brackets it)."""
    za, zb = stats.norm.isf(0.025), stats.norm.isf(1 - power)
    one_tail = (za * math.sqrt(psi) + zb * math.sqrt(psi - delta**2)) ** 2 / delta**2
    return optimize.brentq(
        lambda n: _connor_power(n, delta, psi) - power, one_tail / 2, one_tail, rtol=1e-14
    )


@pytest.mark.parametrize("delta", [0.001, 1e-4, 1e-5])
def test_required_n_tiny_effects_bounded_against_connor_closed_form(delta):
    start = time.perf_counter()
    r = pw.required_n(delta, design="paired-binary", discordance=0.2)
    took = time.perf_counter() - start
    assert took < 10  # was > 60 s (0.001) and 3 GB (1e-4)
    assert r.method == "normal"
    # Connor (1987), solved by scipy's brentq
    # issue 41: whole items, the closed form's root rounded up (1,569,769.74 -> 1,569,770)
    root = _connor_n(delta, 0.2)
    assert r.n == int(r.n) and math.ceil(root * (1 - 1e-8)) <= r.n <= math.ceil(root * (1 + 1e-8))


def test_exact_and_normal_power_agree_where_the_switch_happens():
    # just above EXACT_DISCORDANT_MAX expected discordant items: the exact power
    # (Duffy 1984, computed directly) is within 1e-3 of the normal approximation used
    n = float(math.ceil(pw.EXACT_DISCORDANT_MAX / 0.2) + 10)
    p10, p01 = np.array([0.1 + 0.0006]), np.array([0.1 - 0.0006])
    exact = pw._mcnemar_exact_power(np.array([n]), p10, p01, 0.05, "two-sided")[0]
    got = pw.power_at(n, 0.0012, design="paired-binary", discordance=0.2)
    assert got.method == "normal"
    assert got.power == pytest.approx(exact, abs=1e-3)
    below = pw.power_at(n / 2, 0.0012, design="paired-binary", discordance=0.2)
    assert below.method == "exact"


def test_required_n_stays_exact_below_the_limit():
    # the docstring's case: 658 items, exact McNemar (statsmodels has no exact solver;
    # the exact power at 657 is below and at 658 above the target, Duffy 1984)
    r = pw.required_n(0.05, design="paired-binary", discordance=0.2)
    assert r.method == "exact" and r.n == 658.0
    pa = pw.power_at(658, 0.05, design="paired-binary", discordance=0.2).power
    assert pa >= 0.8


def test_huge_n_is_a_clear_error_and_1e12_answers():
    with pytest.raises(InputError, match="at most 2\\^40"):
        pw.minimum_detectable_effect(1e13, design="paired-binary", discordance=0.2)
    start = time.perf_counter()
    r = pw.minimum_detectable_effect(1e12, design="paired-binary", discordance=0.2)
    assert time.perf_counter() - start < 10
    # Connor (1987): the power at the MDE is the target
    assert _connor_power(1e12, r.delta, 0.2) == pytest.approx(0.8, abs=1e-9)


def test_unreachable_sample_size_says_it_exceeds_2_40():
    with pytest.warns(DegenerateDataWarning, match="more than 2\\^40"):
        r = pw.required_n(1e-9, design="paired-continuous", sd=1.0)
    assert math.isnan(r.n)


def test_cli_power_huge_n_exits_2_without_traceback(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["power", "--design", "paired-binary", "--n", "1e13", "--discordance", "0.2"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "at most 2^40" in err

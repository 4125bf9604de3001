"""Brent's root finder (``reportgen.stats._roots.brent_root``) against
``scipy.optimize.brentq`` and closed-form roots."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, special

from reportgen.errors import InputError
from reportgen.stats._roots import brent_root

CASES = [
    # (f, a, b, closed-form root or None)
    (lambda x: x * x - 2.0, 0.0, 2.0, math.sqrt(2.0)),
    (lambda x: math.cos(x) - x, 0.0, 1.0, None),
    (lambda x: x**3 - 2 * x - 5, 2.0, 3.0, None),  # Wallis's example
    (lambda x: math.exp(x) - 1e-8, -30.0, 5.0, math.log(1e-8)),
    (lambda x: (x - 0.3) ** 9, 0.0, 1.0, 0.3),  # flat: bisection must take over
    (lambda x: float(special.ndtr(x)) - 0.8, -5.0, 5.0, float(special.ndtri(0.8))),
    (lambda x: 1e-300 * (x - 0.5), 0.0, 1.0, 0.5),
    (lambda x: -1.0 if x < 0.123456789 else 1.0, 0.0, 1.0, 0.123456789),  # a step
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize(
    "xtol,rtol", [(2e-12, 4 * np.finfo(float).eps), (1e-14, 4 * np.finfo(float).eps)]
)
def test_brent_root_against_scipy_brentq(case, xtol, rtol):
    # scipy: optimize.brentq(f, a, b, xtol=xtol, rtol=rtol); both roots within the
    # documented tolerance of each other (and of the closed form where there is one)
    f, a, b, exact = CASES[case]
    ours = brent_root(f, a, b, xtol=xtol, rtol=rtol, maxiter=500)
    ref = optimize.brentq(f, a, b, xtol=xtol, rtol=rtol, maxiter=500)
    assert abs(ours - ref) <= 2 * (xtol + rtol * abs(ref))
    if exact is not None:
        assert abs(ours - exact) <= xtol + rtol * abs(exact) + 4 * np.spacing(exact)


def test_brent_root_takes_about_as_many_steps_as_scipy_brentq():
    # scipy: brentq(..., full_output=True)[1].function_calls on a smooth root
    calls = []

    def f(x):
        calls.append(x)
        return math.cos(x) - x

    brent_root(f, 0.0, 1.0, xtol=1e-14, rtol=1e-15)
    _, info = optimize.brentq(lambda x: math.cos(x) - x, 0.0, 1.0, xtol=1e-14, full_output=True)
    assert len(calls) <= info.function_calls + 2


def test_brent_root_input_validation():
    with pytest.raises(InputError, match="same sign"):
        brent_root(lambda x: x * x + 1, -1.0, 1.0)
    with pytest.raises(InputError, match="no root found in 3 iterations"):
        brent_root(lambda x: x * x - 2.0, 0.0, 2.0, xtol=1e-15, rtol=1e-15, maxiter=3)


def test_brent_root_edge_cases():
    # a root at either end of the bracket is returned as given
    assert brent_root(lambda x: x - 1.0, 1.0, 3.0) == 1.0
    assert brent_root(lambda x: x - 3.0, 1.0, 3.0) == 3.0
    # a reversed bracket works as scipy's does
    assert abs(brent_root(lambda x: x * x - 2.0, 2.0, 0.0) - math.sqrt(2.0)) < 1e-11

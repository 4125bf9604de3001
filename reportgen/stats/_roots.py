"""Brent's root finder for the power calculations, so that the minimum detectable effect
every unit reports does not import :mod:`scipy.optimize` (a tenth of a second on a
2-core machine, with scipy.linalg and scipy.spatial behind it) on the common path.

Tested against ``scipy.optimize.brentq`` (``tests/stats/test_roots.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from reportgen.errors import InputError

__all__ = ["brent_root"]


def brent_root(
    f: Callable[[float], float],
    a: float,
    b: float,
    *,
    xtol: float = 2e-12,
    rtol: float = 8.881784197001252e-16,
    maxiter: int = 100,
) -> float:
    """A root of ``f`` in the bracket ``[a, b]`` (``f(a)`` and ``f(b)`` of opposite signs,
    or one of them 0), by Brent's method: inverse quadratic interpolation or the secant
    step where it makes progress, bisection where it does not.

    Parameters
    ----------
    f
        A continuous function of one float.
    a, b
        The bracket.
    xtol, rtol
        The root ``x`` returned lies within ``xtol + rtol * |x|`` of a sign change of
        ``f`` (the contract of ``scipy.optimize.brentq``, with its defaults).
    maxiter
        Iterations before giving up.

    Raises
    ------
    InputError
        When ``f(a)`` and ``f(b)`` have the same sign, or no root is found within
        ``maxiter`` iterations.

    Notes
    -----
    Brent (1973), ch. 4, procedure *zero*: the bracket ``[b, c]`` always holds a sign
    change, ``b`` is the best estimate; a step is accepted only if it stays within the
    bracket and shrinks it by at least half of the step before last, so the method
    never takes more than about the square of bisection's iterations and usually
    converges superlinearly. The tolerance is ``(xtol + rtol |b|) / 2`` on the half
    width of the bracket.

    References
    ----------
    .. [1] Brent, R. P. (1973). Algorithms for Minimization without Derivatives.
           Prentice-Hall, ch. 4.
    .. [2] Forsythe, G. E., Malcolm, M. A. & Moler, C. B. (1977). Computer Methods for
           Mathematical Computations. Prentice-Hall, §7.2 (zeroin).

    Examples
    --------
    >>> round(brent_root(lambda x: x * x - 2.0, 0.0, 2.0), 12)
    1.414213562373
    """
    fa, fb = float(f(a)), float(f(b))
    if fa == 0.0:
        return float(a)
    if fb == 0.0:
        return float(b)
    if math.copysign(1.0, fa) == math.copysign(1.0, fb):
        raise InputError(
            f"f({a!r}) and f({b!r}) have the same sign", hint="give a bracket of a sign change"
        )
    c, fc = a, fa
    d = e = b - a
    for _ in range(maxiter):
        if (fb > 0) == (fc > 0):  # keep the sign change between b and c
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):  # b is the best estimate
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = (xtol + rtol * abs(b)) / 2
        m = (c - b) / 2
        if abs(m) <= tol or fb == 0.0:
            return float(b)
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:  # secant
                p, q = 2 * m * s, 1 - s
            else:  # inverse quadratic interpolation
                q, r = fa / fc, fb / fc
                p = s * (2 * m * q * (q - r) - (b - a) * (r - 1))
                q = (q - 1) * (r - 1) * (s - 1)
            if p > 0:
                q = -q
            else:
                p = -p
            if 2 * p < min(3 * m * q - abs(tol * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = m
        else:
            d = e = m
        a, fa = b, fb
        b = b + d if abs(d) > tol else b + math.copysign(tol, m)
        fb = float(f(b))
    raise InputError(f"no root found in {maxiter} iterations", hint="widen maxiter")

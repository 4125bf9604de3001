"""The one home of number and p-value formatting for everything a reader sees: the report,
the charts' labels, the e-mail, claim sentences and the command line. Plain text (no
HTML); statistics keep full precision elsewhere and are rounded only here. It imports
nothing of reportgen, so every layer that shows numbers (charts, report, cli) uses it;
JSON safety has its one home beside it (:mod:`reportgen.jsonsafe`).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "amount",
    "count",
    "decimals_for",
    "fixed",
    "leaves_open",
    "number",
    "p_compact",
    "p_equals",
    "p_tick",
    "p_value",
    "percent",
]

MINUS = "−"  # the typographic minus, as in Δ = −0.9


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def number(value: Any, digits: int = 4) -> str:
    """``value`` with ``digits`` significant digits (plain notation between 1e-4 and
    1e5), "–" when missing or NaN, "∞" for infinities; other objects as ``str``.

    Examples
    --------
    >>> number(-0.0899512), number(1234567.0), number(None), number(0)
    ('−0.08995', '1.235e+06', '–', '0')
    """
    if value is None:
        return "–"
    x = _finite(value)
    if x is None:
        try:
            float(value)
        except (TypeError, ValueError):
            return str(value)
        return "–"
    if math.isinf(x):
        return "∞" if x > 0 else MINUS + "∞"
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-4:
        text = f"{x:.{digits - 1}e}"
    else:
        decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
        text = f"{x:.{decimals}f}"
    return text.replace("-", MINUS)


def effect(value: Any, digits: int = 2) -> str:
    """An effect size (Cohen's d or h, a combined standardised effect) at ``digits``
    decimals, never in e-notation: one too small to show reads "< 0.01" (or
    "> −0.01"), never "6.9e−18" or "−0.00".

    >>> effect(0.2149), effect(-1.5), effect(6.9e-18), effect(-0.004), effect(0), effect(None)
    ('0.21', '−1.50', '< 0.01', '> −0.01', '0', '–')
    """
    x = _finite(value)
    if x is None:
        return number(value)
    if x == 0:
        return "0"
    smallest = 10.0**-digits
    if abs(x) < smallest / 2:
        return f"< {smallest:.{digits}f}" if x > 0 else f"> {MINUS}{smallest:.{digits}f}"
    return f"{x:.{digits}f}".replace("-", MINUS)


def count(value: Any) -> str:
    """A count (items, rows, systems): a whole number with thousands separators.

    >>> count(8419.0), count(None)
    ('8,419', '–')
    """
    x = _finite(value)
    if x is None:
        return "–"
    return f"{round(x):,}" if x == round(x) else number(x)


def p_value(p: Any) -> str:
    """A p-value: two significant digits, "< 0.001" below 0.001, "n/a" when undefined.

    >>> p_value(0.0004), p_value(0.0123), p_value(0.5), p_value(None)
    ('< 0.001', '0.012', '0.50', 'n/a')
    """
    x = _finite(p)
    if x is None:
        return "n/a"
    if x < 0.001:
        return "< 0.001"
    if x >= 0.995:
        return "1.00" if x <= 1 else f"{x:.2f}"
    digits = max(2, -math.floor(math.log10(x)) + 1)
    return f"{x:.{min(digits, 3)}f}"


def p_equals(p: Any, name: str = "p") -> str:
    """A p-value in running text: ``p = 0.012``, ``p < 0.001`` (never "p = < 0.001"),
    ``p n/a`` when undefined.

    >>> p_equals(0.0123), p_equals(1e-9), p_equals(None), p_equals(0.2, "p adj.")
    ('p = 0.012', 'p < 0.001', 'p n/a', 'p adj. = 0.20')
    """
    text = p_value(p)
    return f"{name} {text}" if text.startswith("<") or text == "n/a" else f"{name} = {text}"


def p_compact(p: float) -> str:
    """A p-value where a few characters fit (a cell of a chart): ``3e-4`` below 0.001,
    two significant digits below 0.01, else three decimals.

    >>> p_compact(0.00031), p_compact(0.0042), p_compact(0.0417)
    ('3e-4', '0.0042', '0.042')
    """
    if p < 1e-3:
        return f"{p:.0e}".replace("e-0", "e-")
    return f"{p:.2g}" if p < 0.01 else f"{p:.3f}"


def p_tick(p: float) -> str:
    """A tick of a p-value axis: ``0.05``, ``1e-4``.

    >>> p_tick(0.05), p_tick(1), p_tick(0.0001)
    ('0.05', '1', '1e-4')
    """
    return f"{p:g}" if p >= 1e-3 else f"{p:.0e}".replace("e-0", "e-")


def percent(value: Any) -> str:
    """A proportion as a percentage with one decimal: ``0.638`` → ``63.8%``."""
    x = _finite(value)
    return "–" if x is None else f"{100 * x:.1f}%"


def fixed(x: float, scale: float, digits: int, *, latex: bool = False) -> str:
    """``x × scale`` with ``digits`` decimals and a typographic minus (ASCII for LaTeX)."""
    text = f"{x * scale:.{digits}f}"
    if text.startswith("-") and not latex:
        text = MINUS + text[1:]
    return text


def decimals_for(half_width: float | None, scale: float) -> int:
    """Decimals that show an interval's half-width with about two significant digits."""
    if half_width is None or not math.isfinite(half_width) or half_width <= 0:
        return 2
    return int(min(6, max(0, 1 - math.floor(math.log10(half_width * scale)))))


# ------------------------------------------------------------------ in the metric's units


def value(x: Any, *, proportion: bool) -> str:
    """A mean in its metric's units: a proportion in percent with one decimal
    (``63.8%``), any other value with 3 significant digits.

    >>> value(0.6381, proportion=True), value(12.345, proportion=False)
    ('63.8%', '12.3')
    """
    return percent(x) if proportion else number(x, 3)


def _signed(text: str, x: float) -> str:
    return text if text.startswith(MINUS) or x == 0 else "+" + text


def difference(x: Any, *, proportion: bool) -> str:
    """A signed difference of means: percentage points with one decimal for proportions
    (``+2.8 pts``), 3 significant digits otherwise (``−0.0123``).

    >>> difference(0.02849, proportion=True), difference(-0.01234, proportion=False)
    ('+2.8 pts', '−0.0123')
    >>> difference(-0.00036, proportion=True), difference(0.0, proportion=True)
    ('−0.04 pts', '0.0 pts')
    """
    v = _finite(x)
    if v is None:
        return "–"
    if proportion:
        return _signed(_points(v), v) + " pts"
    return _signed(number(v, 3), v)


def _points(v: float) -> str:
    """A proportion difference in points with one decimal, or two when one would show a
    non-zero value as 0.0 (``−0.04``, never ``−0.0``); an exact 0 is ``0.0``."""
    text = fixed(v, 100.0, 1)
    if v != 0 and text.lstrip(MINUS) == "0.0":
        text = fixed(v, 100.0, 2)
        if text.lstrip(MINUS) == "0.00":
            return "<0.01" if v > 0 else MINUS + "<0.01"
    return text


#: The end of an interval that excludes 0 by its sign alone: the smallest positive
#: float (reportgen.stats.multiplicity writes it so; results.json keeps it exactly).
OFF_ZERO = 5e-324


def off_zero(x: float) -> bool:
    """Whether ``x`` is an end just off 0 (``±``:data:`OFF_ZERO`), not a number to show:
    scores of 1e-300 have differences of 1e-301, which are numbers.

    >>> off_zero(5e-324), off_zero(-5e-324), off_zero(2.5e-301), off_zero(0.0)
    (True, True, False, False)
    """
    return abs(x) == OFF_ZERO


def interval(low: Any, high: Any, *, proportion: bool, signed: bool = False) -> str:
    """``[low, high]`` in the metric's units (proportions in percent or, with
    ``signed``, percentage points, without the unit); signed adds ``+`` to positive ends.

    >>> interval(0.601, 0.674, proportion=True), interval(-0.012, 0.068, proportion=True,
    ...                                                      signed=True)
    ('[60.1, 67.4]', '[−1.2, +6.8]')

    An end just off 0 (the smallest float: a bound that excludes 0 by its sign alone,
    reportgen.stats.multiplicity) is shown as 0:

    >>> interval(5e-324, None, proportion=False, signed=True)
    '[0, –]'
    """
    ends = []
    for x in (low, high):
        v = _finite(x)
        if v is None:
            ends.append("–")
            continue
        if off_zero(v):  # the sign alone: no digits to show
            ends.append("0")
            continue
        text = _points(v) if proportion else number(v, 3)
        ends.append(_signed(text, v) if signed else text)
    return f"[{ends[0]}, {ends[1]}]"


def margin(delta: Any, *, direction: str, proportion: bool) -> str:
    """A non-inferiority margin δ as the one-sided bound it is: the largest loss it
    accepts, signed on the side of a loss (``−2.0 pts`` where higher is better,
    ``+2.0 pts`` where lower is better), never ``±``.

    >>> margin(0.02, direction="higher", proportion=True)
    '−2.0 pts'
    >>> margin(0.5, direction="lower", proportion=False)
    '+0.500'
    """
    v = _finite(delta)
    if v is None:
        return "–"
    return difference(-abs(v) if direction == "higher" else abs(v), proportion=proportion)


def amount(x: Any, *, proportion: bool) -> str:
    """An unsigned size of a difference in its metric's units, with enough digits to
    be non-zero when it is: ``8.7 pts``, ``0.04 pts``, ``< 0.01 pts``; other metrics
    with 3 significant digits.

    >>> amount(-0.0871, proportion=True), amount(0.00036, proportion=True)
    ('8.7 pts', '0.04 pts')
    >>> amount(0.00002, proportion=True), amount(-0.0123, proportion=False)
    ('< 0.01 pts', '0.0123')
    """
    v = _finite(x)
    if v is None:
        return "–"
    v = abs(v)
    if not proportion:
        return number(v, 3)
    pts = 100.0 * v
    if pts == 0:
        return "0 pts"
    if pts >= 0.05:
        return f"{pts:.1f} pts"
    if pts >= 0.005:
        return f"{pts:.2f} pts"
    return "< 0.01 pts"


def leaves_open(low: Any, high: Any, *, direction: str, proportion: bool) -> str:
    """What an interval of ``candidate − baseline`` (or A − B) that contains 0 leaves
    open, in words and the metric's units: ``a loss of up to 8.7 pts and a gain of up
    to 0.5 pts are not ruled out``. ``direction`` says which side is a loss.

    >>> leaves_open(-0.087, 0.005, direction="higher", proportion=True)
    'a loss of up to 8.7 pts and a gain of up to 0.5 pts are not ruled out'
    >>> leaves_open(-0.5, 2.0, direction="lower", proportion=False)
    'a loss of up to 2.00 and a gain of up to 0.500 are not ruled out'
    >>> leaves_open(None, 0.1, direction="higher", proportion=True)
    'no bound on a loss; a gain of up to 10.0 pts is not ruled out'
    """
    lo, hi = _finite(low), _finite(high)
    worse, better = (lo, hi) if direction == "higher" else (hi, lo)
    loss = None if worse is None else (-worse if direction == "higher" else worse)
    gain = None if better is None else (better if direction == "higher" else -better)
    if loss is None:
        if gain is None or gain <= 0:
            return "no bound on a loss"
        up_to = amount(gain, proportion=proportion)
        return f"no bound on a loss; a gain of up to {up_to} is not ruled out"
    loss_text = f"a loss of up to {amount(loss, proportion=proportion)}" if loss > 0 else ""
    gain_text = (
        f"a gain of up to {amount(gain, proportion=proportion)}"
        if gain is not None and gain > 0
        else ""
    )
    if loss_text and gain_text:
        return f"{loss_text} and {gain_text} are not ruled out"
    if loss_text or gain_text:
        return f"{loss_text or gain_text} is not ruled out"
    return "no loss and no gain is left open"

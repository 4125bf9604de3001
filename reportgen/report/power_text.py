"""A power result in words, for ``reportgen power`` and the report."""

from __future__ import annotations

import math

from reportgen.stats.power import PowerResult

__all__ = ["power_sentence"]

_DESIGN = {"paired-binary": "paired binary scores (exact McNemar)",
           "unpaired-binary": "two independent proportions",
           "paired-continuous": "paired continuous scores (paired t)",
           "unpaired-continuous": "two independent samples (t test)"}


def _fmt(x: float, digits: int = 4) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.{digits}g}"


def power_sentence(result: PowerResult) -> str:
    """One sentence: what was solved for, under which design and assumptions.

    Examples
    --------
    >>> from reportgen.stats.power import required_n
    >>> r = required_n(0.5, design="paired-continuous")
    >>> power_sentence(r).startswith("Items needed: 34")
    True
    """
    design = _DESIGN.get(result.design, result.design)
    side = "" if result.alternative == "two-sided" else f", {result.alternative}"
    level = f"α = {result.alpha:g}{side}"
    assumptions = []
    for name, value in (("baseline", result.baseline), ("discordance", result.discordance),
                        ("correlation", result.correlation), ("SD", result.sd)):
        if value is not None and math.isfinite(value):
            assumptions.append(f"{name} {value:.4g}")
    tail = f"; {', '.join(assumptions)}" if assumptions else ""
    if result.solved_for == "n":
        n = math.ceil(result.n) if math.isfinite(result.n) else result.n
        head = (f"Items needed: {_fmt(n, 8)} to detect Δ = {result.delta:+.4g} with "
                f"{result.target_power:.0%} power")
    elif result.solved_for == "delta":
        head = (f"Minimum detectable effect: Δ = {_fmt(result.delta)} with "
                f"{result.target_power:.0%} power and n = {_fmt(result.n, 8)}")
    else:
        head = (f"Power: {_fmt(result.power, 3)} to detect Δ = {result.delta:+.4g} with "
                f"n = {_fmt(result.n, 8)}")
    return f"{head} ({design}, {level}{tail})."

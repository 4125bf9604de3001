"""A power result in words, for ``reportgen power`` and the report."""

from __future__ import annotations

import math

from reportgen import format as fmt
from reportgen.analysis.results import PowerResult

__all__ = ["power_sentence"]

_DESIGN = {
    "paired-binary": "paired binary scores (exact McNemar)",
    "unpaired-binary": "two independent proportions",
    "paired-continuous": "paired continuous scores (paired t)",
    "unpaired-continuous": "two independent samples (t test)",
}


def power_sentence(result: PowerResult) -> str:
    """One sentence: what was solved for, under which design and assumptions; a
    binary design's difference (of accuracies) in percentage points.

    Examples
    --------
    >>> from reportgen.stats.power import required_n
    >>> r = required_n(0.5, design="paired-continuous")
    >>> power_sentence(r).startswith("Items needed: 34")
    True
    >>> big = required_n(0.001, design="paired-binary", discordance=0.2)
    >>> "normal approximation" in power_sentence(big)
    True
    >>> from reportgen.stats.power import minimum_detectable_effect
    >>> mde = minimum_detectable_effect(164, design="paired-binary", discordance=0.2)
    >>> power_sentence(mde).split(" with ")[0]
    'Minimum detectable effect: Δ = 10.1 pts'
    """
    design = _DESIGN.get(result.design, result.design)
    if result.design == "paired-binary" and result.method == "normal":
        # beyond the exact computation's bound the answer is Connor's normal approximation
        design = "paired binary scores (McNemar, normal approximation of Connor 1987)"
    side = "" if result.alternative == "two-sided" else f", {result.alternative}"
    level = f"α = {result.alpha:g}{side}"
    assumptions = []
    for name, value in (
        ("baseline", result.baseline),
        ("discordance", result.discordance),
        ("correlation", result.correlation),
        ("SD", result.sd),
    ):
        if value is not None and math.isfinite(value):
            assumptions.append(f"{name} {value:.4g}")
    tail = f"; {', '.join(assumptions)}" if assumptions else ""
    # a binary design's difference is one of accuracies: in points, as in the reports
    points = result.design.endswith("binary")
    signed = fmt.difference(result.delta, proportion=True) if points else f"{result.delta:+.4g}"
    if result.solved_for == "n":
        n = math.ceil(result.n) if math.isfinite(result.n) else result.n
        head = (
            f"Items needed: {fmt.count(n)} to detect Δ = {signed} with "
            f"{result.target_power:.0%} power"
        )
    elif result.solved_for == "delta":
        size = fmt.amount(result.delta, proportion=True) if points else fmt.number(result.delta)
        head = (
            f"Minimum detectable effect: Δ = {size} with "
            f"{result.target_power:.0%} power and n = {fmt.count(result.n)}"
        )
    else:
        head = (
            f"Power: {fmt.number(result.power, 3)} to detect Δ = {signed} with "
            f"n = {fmt.count(result.n)}"
        )
    return f"{head} ({design}, {level}{tail})."

"""Planning an evaluation before it runs: ``reportgen power``.

The power of a design, the smallest difference a number of items detects and the items
a difference needs (:mod:`reportgen.stats.power`), offered here so that the command
line asks the analysis layer, as it does for every other answer, and never the
statistics layer itself.

Examples
--------
>>> design = PowerDesign("paired-binary", discordance=0.2)
>>> required_n(0.05, power=0.8, design=design).n > 0
True
"""

from __future__ import annotations

from reportgen.stats.power import (
    PowerDesign,
    PowerResult,
    minimum_detectable_effect,
    power_at,
    required_n,
)

__all__ = ["PowerDesign", "PowerResult", "minimum_detectable_effect", "power_at", "required_n"]

"""Pure statistical computation: numpy arrays in, frozen result objects out.

No I/O, no pandas parsing, no Altair or papermill here (DESIGN.md, "Layers").

- :mod:`~reportgen.stats.pairwise`: pairwise comparisons of systems (Table 1 of seed 000,
  permutation, bootstrap and sign tests), vectorised over all pairs.
- :mod:`~reportgen.stats.multiplicity`: Holm-Šidák, Holm, Bonferroni, Šidák, BH, BY.
- :mod:`~reportgen.stats.intervals`: Wilson, Newcombe, Tango, t and Welch intervals.
"""

from reportgen.stats.intervals import (
    newcombe_unpaired_interval,
    t_interval,
    tango_paired_interval,
    welch_interval,
    wilson_interval,
)
from reportgen.stats.multiplicity import CORRECTIONS, adjust_pvalues
from reportgen.stats.pairwise import (
    EFFECT_THRESHOLDS,
    PairwiseResult,
    compare_paired,
    compare_unpaired,
    comparison_pairs,
    effect_magnitude,
)

__all__ = [
    "CORRECTIONS",
    "EFFECT_THRESHOLDS",
    "PairwiseResult",
    "adjust_pvalues",
    "compare_paired",
    "compare_unpaired",
    "comparison_pairs",
    "effect_magnitude",
    "newcombe_unpaired_interval",
    "t_interval",
    "tango_paired_interval",
    "welch_interval",
    "wilson_interval",
]

"""The analysis of a score table: :func:`analyze` runs every statistic a report shows and
returns an :class:`Analysis`; :meth:`Analysis.to_results` is the ``results.json``
contract of DESIGN.md.

The package holds the per-unit analysis (``_core``), the ordered ranking across lists
(``_ranking``) and the group and hyperparameter comparisons (``_groups``).
"""

from reportgen.analysis._core import (
    Analysis,
    AnalysisOptions,
    CorrectAcross,
    Pairing,
    SampleListResult,
    analyze,
    check_options,
    unit_rng,
)

__all__ = ["Analysis", "AnalysisOptions", "CorrectAcross", "Pairing", "SampleListResult",
           "analyze", "check_options", "unit_rng"]

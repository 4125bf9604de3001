"""The analysis of a score table: :func:`analyze` runs every statistic a report shows and
returns an :class:`Analysis`, a tree of frozen typed results
(:mod:`reportgen.analysis.results`); :func:`analyze_release` compares a release candidate
with its baseline (:mod:`reportgen.analysis.release`); :attr:`Analysis.ledger` holds every
claim a report states, decided once (:mod:`reportgen.analysis.ledger`); :func:`to_results`
serialises an analysis to the ``results.json`` contract.
"""

from reportgen.analysis._core import Analysis, analyze, analyze_release, check_options
from reportgen.analysis._ranking import choose_rank_lists
from reportgen.analysis._units import unit_rng
from reportgen.analysis.ledger import Claim, Family, Interval, Ledger, MethodUsed, NoiseFigure
from reportgen.analysis.options import AnalysisOptions, CorrectAcross, Pairing
from reportgen.analysis.release import NotCompared, ReleaseComparison, ReleaseSpec, ReleaseVerdict
from reportgen.analysis.results import UnitResult
from reportgen.analysis.serialize import to_results

__all__ = [
    "Analysis",
    "AnalysisOptions",
    "Claim",
    "CorrectAcross",
    "Family",
    "Interval",
    "Ledger",
    "MethodUsed",
    "NoiseFigure",
    "NotCompared",
    "Pairing",
    "ReleaseComparison",
    "ReleaseSpec",
    "ReleaseVerdict",
    "UnitResult",
    "analyze",
    "analyze_release",
    "check_options",
    "choose_rank_lists",
    "to_results",
    "unit_rng",
]

"""The decision ledger: every claim a report states, decided once.

A report is a set of claims: "A is better than B on X", "the release is non-inferior on
Y", "differences below Z pts go undetected here". The :class:`Ledger` of an analysis
(:attr:`reportgen.analysis.Analysis.ledger`, or :meth:`Ledger.from_results` of a stored
``results.json``) holds each of them as it was decided, with everything needed to show
it:

* **the family** (:class:`Family`): the comparisons corrected together, stated once. A
  release report's family is the release (all its dataset × metric units, decided on
  the simultaneous intervals of the single-step form of the correction); an evaluation
  report's is what ``correction`` and ``correct_across`` say (each dataset × metric, or
  the whole analysis);
* **the comparisons** (:class:`Claim`, kept per dataset × metric by
  :class:`UnitClaims`): per pair its test, raw and adjusted p-value, the marginal
  :class:`Interval` (which goes with the raw p) and the adjusted one (which excludes 0
  exactly when the pair is significant), labelled by its kind (simultaneous, step-down
  compatible, FCR, unadjusted); oriented with the higher-ranked system as A (a release:
  the candidate), and turned round only through :meth:`Claim.oriented`;
* **the release verdicts** (:class:`reportgen.analysis.release.ReleaseComparison`), each
  with the interval it is read off and, at a margin, the one-sided bound;
* **one noise figure per dataset × metric** (:class:`NoiseFigure`);
* **the ranking across datasets** with its decided pairs (:class:`OverallRanking`);
* **the methods used** (:class:`MethodUsed`), each with its reference;
* **the words** (:mod:`reportgen.analysis.ledger.words`): the key findings, the release
  decision and its headline, as :class:`reportgen.sentences.Sentence` objects.

Every output renders these and never recomputes, re-adjusts or re-words them: the
report's sections, the e-mail, ``results.json`` (its ``comparisons``, ``verdict`` and
``ledger`` sections are the serialisation), ``tables/*.csv``, the console of ``analyze``,
``run``, ``compare`` and the gate, the exit status and ``reportgen history``.
"""

from reportgen.analysis.ledger.claims import Claim, Interval, UnitClaims, interval_kind, level_text
from reportgen.analysis.ledger.core import (
    Ledger,
    LedgerMeta,
    OverallRanking,
    Standing,
    UnitLedger,
    build_ledger,
)
from reportgen.analysis.ledger.family import Family, MethodUsed, NoiseFigure
from reportgen.analysis.ledger.ties import tie_heading, tie_labels

__all__ = [
    "Claim",
    "Family",
    "Interval",
    "Ledger",
    "LedgerMeta",
    "MethodUsed",
    "NoiseFigure",
    "OverallRanking",
    "Standing",
    "UnitClaims",
    "UnitLedger",
    "build_ledger",
    "interval_kind",
    "level_text",
    "tie_heading",
    "tie_labels",
]

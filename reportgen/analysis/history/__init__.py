"""The statistics of a release history: a model followed across archived releases.

Each release is read back as its :class:`~reportgen.analysis.ledger.Ledger` (a
:class:`Release`, with the system it follows); :func:`analyse_history` gives the
:class:`ReleaseHistory`: the followed system's mean per dataset × metric in each release
(:class:`TrendPoint`) and the change between consecutive releases (:class:`Change`),
tested, adjusted per step, decided and worded here once. The trend report
(:mod:`reportgen.report.history`) finds and reads the report folders and their per-item
data, and renders these objects; history.json is :meth:`ReleaseHistory.to_dict`.

* :mod:`~reportgen.analysis.history._steps`: the tests of one step
  (:func:`change_from_items`, :func:`change_from_intervals`) and its correction
  (:func:`adjust_step`);
* :mod:`~reportgen.analysis.history._changes`: the stored verdict or comparison first,
  else the recomputation, else the intervals; the decision and the verdict;
* :mod:`~reportgen.analysis.history.words`: the sentences.
"""

from reportgen.analysis.history._changes import (
    RECOMPUTE,
    Change,
    ItemTables,
    Recompute,
    ReleaseHistory,
    StepSettings,
    StepSummary,
    TrendPoint,
    analyse_history,
)
from reportgen.analysis.history._releases import Release, follow_map, followed_system
from reportgen.analysis.history._steps import (
    ChangeMethod,
    StepTest,
    adjust_step,
    change_from_intervals,
    change_from_items,
    item_scores,
)
from reportgen.analysis.history.words import change_sentence

__all__ = [
    "RECOMPUTE",
    "Change",
    "ChangeMethod",
    "ItemTables",
    "Recompute",
    "Release",
    "ReleaseHistory",
    "StepSettings",
    "StepSummary",
    "StepTest",
    "TrendPoint",
    "adjust_step",
    "analyse_history",
    "change_from_intervals",
    "change_from_items",
    "change_sentence",
    "follow_map",
    "followed_system",
    "item_scores",
]

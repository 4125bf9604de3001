"""The options of an analysis: :class:`AnalysisOptions`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import get_args

from reportgen.config import defaults
from reportgen.errors import InputError
from reportgen.names import (
    CORRECTIONS,
    Alternative,
    CIMethod,
    CorrectAcross,
    Correction,
    EffectLevel,
    Method,
    Order,
    Pairing,
)
from reportgen.stats import DEFAULT_MAX_MEMORY, resampling_iv
from reportgen.stats.corpus import corpus_metric

__all__ = ["AnalysisOptions", "CorrectAcross", "Pairing"]


#: The declared defaults (:mod:`reportgen.config`) of the fields below.
_DEFAULT = defaults("analysis")


@dataclass(frozen=True)
class AnalysisOptions:
    """Options of :func:`analyze`; every field has the CLI flag of the same name.

    Attributes
    ----------
    pairing
        ``"auto"`` (detected), ``"paired"`` or ``"unpaired"``.
    method
        ``"auto"`` (by pairing and modality: exact McNemar, paired t, two-proportion
        z or Welch t), ``"permutation"``, ``"bootstrap"`` or ``"sign"``.
    order, baseline
        ``"all-pairs"``, ``"first-vs-rest"`` (against ``baseline``, default the first
        system) or ``"successive"``.
    alternative
        ``"two-sided"``, ``"greater"`` (A better than B) or ``"less"``.
    correction, correct_across
        Multiplicity correction, within each sample list or across ``"all"``
        comparisons of the analysis.
    alpha, confidence
        Significance level; level of every interval.
    n_resamples
        Permutation / bootstrap resamples.
    effect_threshold
        Cohen level (small/medium/large) an effect must reach to count as large enough.
    ci_method
        Interval of each system's mean: ``"auto"`` (Wilson for binary scores, bootstrap
        BCa for continuous ones), ``"wilson"``, ``"clopper-pearson"``, ``"t"``,
        ``"percentile"`` or ``"bca"``.
    corpus_metrics
        Corpus-level metrics computed where the data carry predictions and references
        (:func:`reportgen.stats.corpus.corpus_metric` names, e.g. ``"f1-macro"``); each is
        analysed like a metric of its own (bootstrap intervals, approximate-randomization
        tests).
    power, detect_delta
        For the ``power`` section: the smallest difference each dataset × metric detects
        with this power at ``alpha``, and (if given) the items needed to detect a
        difference of ``detect_delta``.
    cluster_by
        An item-metadata column grouping items (e.g. a passage or a source document):
        the ``clusters`` section then gives each system's cluster-robust interval.
    group_by
        Item-metadata columns (e.g. difficulty): the ``groups`` section compares the
        systems within each level.
    compare_by, condition_on
        System attributes (hyperparameters): within each combination of
        ``condition_on``, systems sharing the ``compare_by`` values are pooled and the
        best level is tested against the others (the ``hyperparameters`` section).
    seed
        Master seed; ``None`` draws one (and records it).
    systems
        Analyse only these systems (in this order); default all.
    rank_lists
        The datasets the ranking across datasets uses (default: chosen to maximise
        systems × datasets when not every system is scored on every dataset; see
        :func:`reportgen.analysis.choose_rank_lists`).
    max_memory
        Bound on the working memory of one resampling step, in bytes (at least 1 MiB;
        default 256 MiB): resamples are drawn in chunks of at most this size, which
        changes the peak memory, never the numbers. With ``jobs`` worker processes each
        may use this much.
    margins
        Release analyses: the non-inferiority margin δ > 0 per metric name, in the
        metric's units (``"*"``: every metric not named); a metric's
        ``[metrics.NAME] margin`` in the config applies when it is not given here
        (:func:`reportgen.analysis.release.margin_of`).
    """

    pairing: Pairing = _DEFAULT["pairing"]
    method: Method = _DEFAULT["method"]
    order: Order = _DEFAULT["order"]
    baseline: str | None = None
    alternative: Alternative = _DEFAULT["alternative"]
    correction: Correction = _DEFAULT["correction"]
    correct_across: CorrectAcross = _DEFAULT["correct_across"]
    alpha: float = _DEFAULT["alpha"]
    confidence: float = _DEFAULT["confidence"]
    n_resamples: int = _DEFAULT["n_resamples"]
    effect_threshold: EffectLevel = _DEFAULT["effect_threshold"]
    ci_method: CIMethod = _DEFAULT["ci_method"]
    corpus_metrics: tuple[str, ...] = _DEFAULT["corpus_metrics"]
    power: float = _DEFAULT["power"]
    detect_delta: float | None = None
    cluster_by: str | None = None
    group_by: tuple[str, ...] = _DEFAULT["group_by"]
    compare_by: tuple[str, ...] = _DEFAULT["compare_by"]
    condition_on: tuple[str, ...] = _DEFAULT["condition_on"]
    seed: int | None = None
    systems: tuple[str, ...] | None = None
    max_memory: int = DEFAULT_MAX_MEMORY
    rank_lists: tuple[str, ...] | None = None
    margins: Mapping[str, float] | None = None

    def __post_init__(self) -> None:
        for metric, delta in (self.margins or {}).items():
            if (
                isinstance(delta, bool)
                or not isinstance(delta, (int, float))
                or not math.isfinite(delta)
                or delta <= 0
            ):
                which = "every metric" if metric == "*" else f"metric {metric!r}"
                raise InputError(
                    f"margin {delta!r} for {which} must be a positive number",
                    hint="in the metric's units, e.g. 0.01 for one point of accuracy",
                )
        for name, choices in (
            ("pairing", get_args(Pairing)),
            ("correct_across", get_args(CorrectAcross)),
            ("correction", CORRECTIONS),
            ("ci_method", get_args(CIMethod)),
        ):
            if getattr(self, name) not in choices:
                raise InputError(
                    f"{name}={getattr(self, name)!r} is not valid",
                    hint=f"use one of: {', '.join(choices)}",
                )
        for name in self.corpus_metrics:
            corpus_metric(name)  # unknown names raise, listing the known ones
        if not 0 < self.power < 1:
            raise InputError(
                f"power={self.power!r} must be between 0 and 1 (exclusive)", hint="e.g. power=0.8"
            )
        resampling_iv(
            confidence=self.confidence,
            n_resamples=self.n_resamples,
            max_memory=2**20,
            alpha=self.alpha,
        )  # bad values fail here, early
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0
        ):
            raise InputError(f"seed={self.seed!r} must be a non-negative integer")
        if (
            isinstance(self.max_memory, bool)
            or not isinstance(self.max_memory, int)
            or self.max_memory < 2**20
        ):
            raise InputError(
                f"max_memory={self.max_memory!r} is not valid",
                hint="a whole number of bytes, at least 1 MiB (1048576); "
                "reportgen.execution.parse_memory_size reads '512MB'",
            )

"""Corpus-level metrics (F1, precision, recall, accuracy) from per-item sufficient statistics.

A corpus metric such as macro F1 is not a mean of per-item scores: it is a function of
*sums* over items. Each item therefore carries its sufficient statistics — for a
classifier, one ``(tp, fp, fn)`` triple per class — and the metric is a function of
their sums (docs/design.md, "The data contract"; a plain mean is the special case
``(score, 1)``, the ``"mean"`` metric here). Resampling items then only changes the sums:
a ``(resamples × items)`` matrix of bootstrap counts, of swap indicators or of signs
times the ``(items × systems·statistics)`` matrix gives the resampled sums of every
system at once, one matrix product per chunk of resamples, and the metric is evaluated
on all of them in one vectorised call.

Layout of the statistics arrays:

========================  =====================================================
``(n_items, C, 3)``       one system: per item and class, ``(tp, fp, fn)``
``(n_items, S, C, 3)``    S systems on the same items (what the resampling
                          functions take)
``(n_items, S, N, C, 3)`` S systems × N repeated runs (``runs_axis=2``)
``(..., 2)``              ``(score, weight)`` for the ``"mean"`` metric
========================  =====================================================

Functions:

- :func:`classification_statistics`, :func:`multilabel_statistics`,
  :func:`mean_statistics`: build the statistics.
- :func:`corpus_metric` / :class:`CorpusMetric`: the registry of metrics
  (:data:`CORPUS_METRICS`), each vectorised over any leading shape.
- :func:`corpus_bootstrap_interval`: percentile or BCa bootstrap CIs of several systems
  at once, items resampled (with their runs, a cluster bootstrap, when there are runs).
- :func:`corpus_compare_paired`: approximate-randomization test (Noreen 1989; Yeh 2000)
  and paired bootstrap CI of the metric difference for pairs of systems.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from reportgen.errors import DegenerateDataWarning, InputError, OneSidedWarning
from reportgen.names import CORPUS_METRICS as _CORPUS_METRIC_NAMES
from reportgen.plaintext import count
from reportgen.records import bools, columns_to_records, floats, ints
from reportgen.stats._common import (
    PairsMixin,
    TabularMixin,
    choices_iv,
    resampling_iv,
    system_names,
)
from reportgen.stats._resampling import (
    DEFAULT_MAX_MEMORY,
    bca_interval,
    bootstrap_counts,
    chunk_sizes,
    enumerate_signs,
    exact_product,
    random_signs,
)
from reportgen.stats.multiplicity import CORRECTIONS, Correction, IntervalPlan, adjust_pvalues
from reportgen.stats.pairwise import Alternative, Order, comparison_pairs

__all__ = [
    "CORPUS_METRICS",
    "ClassificationStatistics",
    "CorpusComparisonResult",
    "CorpusIntervalResult",
    "CorpusMetric",
    "IntervalMethod",
    "classification_statistics",
    "corpus_bootstrap_interval",
    "corpus_compare_paired",
    "corpus_metric",
    "mean_statistics",
    "multilabel_statistics",
]

IntervalMethod = Literal["percentile", "bca"]

#: Index of each count in the last axis of classification statistics.
TP, FP, FN = 0, 1, 2


# ============================================================================ statistics


@dataclass(frozen=True)
class ClassificationStatistics:
    """Per-item ``(tp, fp, fn)`` counts and the label order of their class axis.

    Attributes
    ----------
    counts
        int64 array ``(n_items, *extra, n_classes, 3)``; the last axis is
        ``(tp, fp, fn)`` and ``counts[..., c, :]`` belongs to ``labels[c]``. ``extra``
        are the trailing axes of the predictions (systems, runs), if any.
    labels
        The class labels in the order of the class axis.
    positive
        The positive class (always the last label) if one was given, else ``None``.
    """

    counts: np.ndarray
    labels: tuple[Hashable, ...]
    positive: Hashable | None = None

    @property
    def n_items(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_classes(self) -> int:
        return len(self.labels)


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and math.isnan(value))


def _object_array(values: Any, name: str) -> np.ndarray:
    if isinstance(values, (str, bytes)) or np.ndim(values) == 0:
        raise InputError(f"{name} must be a sequence of labels, got {type(values).__name__}")
    try:
        return np.asarray(values, dtype=object)
    except ValueError as exc:  # ragged nested lists
        raise InputError(
            f"{name} is ragged: {exc}",
            hint="give one label per item (and per system/run as extra axes of equal length)",
        ) from None


def _label_order(found: Iterable[Hashable]) -> list[Hashable]:
    values: list[Any] = list(found)  # sortable or not: TypeError below
    try:
        return sorted(values)
    except TypeError:
        raise InputError(
            "the labels have types that cannot be sorted "
            f"({sorted({type(v).__name__ for v in values})})",
            hint="pass labels=[...] to fix the class order",
        ) from None


def _index_of(
    values: np.ndarray, index: dict[Hashable, int], name: str, missing_ok: bool
) -> np.ndarray:
    out = np.empty(values.size, dtype=np.int64)
    for k, v in enumerate(values.ravel()):
        if _is_missing(v):
            if not missing_ok:
                raise InputError(
                    f"{name} has a missing label (None/NaN) at item {k}",
                    hint="every item needs a reference label; drop the item or fix the reference",
                )
            out[k] = -1
            continue
        try:
            out[k] = index.get(v, -1)
        except TypeError:
            raise InputError(
                f"{name} holds an unhashable label {v!r}",
                hint="labels must be strings, integers or other hashable values",
            ) from None
    return out.reshape(values.shape)


def classification_statistics(
    predictions: Any,
    references: Any,
    *,
    labels: Sequence[Hashable] | None = None,
    positive: Hashable | None = None,
) -> ClassificationStatistics:
    """Per-item ``(tp, fp, fn)`` of single-label classification, per class.

    Parameters
    ----------
    predictions
        One predicted label per item: shape ``(n_items,)``, or ``(n_items, *extra)`` for
        several systems and/or runs predicting the same items (the extra axes are kept
        in the output). ``None`` or NaN is a missing prediction.
    references
        One reference label per item, shape ``(n_items,)``; never missing.
    labels
        The classes, in the order of the class axis. Default: the sorted union of the
        labels seen in references and predictions. Labels outside ``labels`` are
        ignored as scikit-learn's ``labels=`` does: a prediction of an unlisted label
        is no false positive (its item's reference class still gets a false negative),
        and an item whose reference is unlisted adds only the false positive of a
        listed prediction — the way to drop e.g. a majority "other" class from a micro
        average.
    positive
        The positive class of a binary task. It is added to the inferred labels if no
        item has it and is put *last* in the label order, where the ``"*-binary"``
        metrics look for it (``corpus_metric(..., positive_index=-1)``). Without it
        the last sorted label is the positive class, as scikit-learn's ``pos_label=1``
        for 0/1 labels.

    Returns
    -------
    ClassificationStatistics
        ``counts`` of shape ``(n_items, *extra, n_classes, 3)`` and ``labels``.

    Raises
    ------
    InputError
        Missing or unhashable references, lengths that differ, labels that cannot be
        sorted (pass ``labels``), duplicate labels, ``positive`` not among ``labels``.

    Notes
    -----
    For an item with reference r and prediction p: if p = r, class r gets a true
    positive; otherwise class p gets a false positive and class r a false negative. A
    missing prediction counts as wrong: a false negative for r and no false positive,
    so it lowers recall but not the precision of any class (and micro precision can
    then exceed micro recall = accuracy). Accuracy is the micro recall:
    :math:`\\sum_c tp_c / \\sum_c (tp_c + fn_c)`.

    References
    ----------
    .. [1] Sokolova, M. & Lapalme, G. (2009). A systematic analysis of performance measures for
           classification tasks. Inf. Process. Manag. 45(4), 427-437.
    .. [2] Gorodkin, J. (2004). Comparing two K-category assignments by a K-category correlation
           coefficient. Comput. Biol. Chem. 28(5-6), 367-374.

    Examples
    --------
    >>> s = classification_statistics(["a", "b", None], ["a", "a", "b"])
    >>> s.labels
    ('a', 'b')
    >>> s.counts.sum(axis=0).tolist()  # per class: tp, fp, fn
    [[1, 0, 1], [0, 1, 1]]
    """
    pred = _object_array(predictions, "predictions")
    ref = _object_array(references, "references")
    if ref.ndim != 1:
        raise InputError(f"references must be one-dimensional, got shape {ref.shape}")
    if pred.ndim < 1 or pred.shape[0] != ref.shape[0]:
        raise InputError(
            f"predictions (shape {pred.shape}) and references (shape "
            f"{ref.shape}) must have the same number of items"
        )
    if labels is None:
        found: set[Hashable] = set()
        try:
            found.update(v for v in ref.ravel() if not _is_missing(v))
            found.update(v for v in pred.ravel() if not _is_missing(v))
        except TypeError as exc:
            raise InputError(f"labels must be hashable: {exc}") from None
        if positive is not None:
            found.add(positive)
        order = _label_order(found)
    else:
        order = list(labels)
        if not order:
            raise InputError(
                "labels is empty", hint="list the classes, or leave labels out to infer them"
            )
        if any(_is_missing(v) for v in order):
            raise InputError("labels must not contain None or NaN")
        try:
            distinct = len(set(order))
        except TypeError as exc:
            raise InputError(f"labels must be hashable: {exc}") from None
        if distinct != len(order):
            raise InputError(f"labels has duplicates: {order!r}")
        if positive is not None and positive not in order:
            raise InputError(f"positive={positive!r} is not one of the labels {order!r}")
    if positive is not None:
        order = [v for v in order if v != positive] + [positive]
    index = {v: i for i, v in enumerate(order)}
    ref_idx = _index_of(ref, index, "references", missing_ok=False)
    pred_idx = _index_of(pred, index, "predictions", missing_ok=True)
    classes = np.arange(len(order))
    predicted = pred_idx[..., None] == classes  # (n, *extra, C)
    truth = (ref_idx[..., None] == classes).reshape(
        (len(ref_idx),) + (1,) * (pred.ndim - 1) + (len(order),)
    )
    counts = np.stack([predicted & truth, predicted & ~truth, ~predicted & truth], axis=-1).astype(
        np.int64
    )
    return ClassificationStatistics(counts, tuple(order), positive)


def multilabel_statistics(
    pred_sets: Sequence[Any], ref_sets: Sequence[Any], labels: Sequence[Hashable]
) -> ClassificationStatistics:
    """Per-item ``(tp, fp, fn)`` per label of multi-label classification.

    Parameters
    ----------
    pred_sets
        One collection of predicted labels per item (a set, list or tuple; a bare
        string or number is one label). ``None`` is a missing prediction: the empty
        set, so every reference label of the item is a false negative and nothing is
        a false positive.
    ref_sets
        One collection of reference labels per item (possibly empty, never ``None``).
    labels
        Every label, in the order of the label axis.

    Returns
    -------
    ClassificationStatistics
        ``counts`` of shape ``(n_items, n_labels, 3)``.

    Raises
    ------
    InputError
        Lengths that differ, a label not in ``labels``, missing references.

    Notes
    -----
    Label c of an item is a true positive if it is in both sets, a false positive if
    only predicted, a false negative if only in the reference (scikit-learn's
    multilabel-indicator convention). The micro/macro metrics then equal
    scikit-learn's ``average="micro"``/``"macro"`` on the indicator matrices;
    ``"accuracy"`` is not defined here (it needs one reference per item).

    References
    ----------
    .. [1] Sokolova, M. & Lapalme, G. (2009). A systematic analysis of performance measures for
           classification tasks. Inf. Process. Manag. 45(4), 427-437.

    Examples
    --------
    >>> s = multilabel_statistics([{1, 2}, None], [{2}, {1, 3}], labels=[1, 2, 3])
    >>> s.counts.sum(axis=0).tolist()
    [[0, 1, 1], [1, 0, 0], [0, 0, 1]]
    """
    order = list(labels)
    if not order:
        raise InputError("labels is empty", hint="list every label of the task")
    try:
        index = {v: i for i, v in enumerate(order)}
    except TypeError as exc:
        raise InputError(f"labels must be hashable: {exc}") from None
    if len(index) != len(order):
        raise InputError(f"labels has duplicates: {order!r}")
    if len(pred_sets) != len(ref_sets):
        raise InputError(
            f"{len(pred_sets)} prediction sets for {len(ref_sets)} reference sets",
            hint="give one set per item in both",
        )
    n = len(ref_sets)
    counts = np.zeros((n, len(order), 3), dtype=np.int64)
    for i in range(n):
        if ref_sets[i] is None:
            raise InputError(
                f"the reference set of item {i} is None",
                hint="use an empty set for items without a reference label",
            )
        truth = _label_set(ref_sets[i], index, f"ref_sets[{i}]")
        guess = (
            set() if pred_sets[i] is None else _label_set(pred_sets[i], index, f"pred_sets[{i}]")
        )
        for c in truth & guess:
            counts[i, c, TP] = 1
        for c in guess - truth:
            counts[i, c, FP] = 1
        for c in truth - guess:
            counts[i, c, FN] = 1
    return ClassificationStatistics(counts, tuple(order))


def _label_set(values: Any, index: dict[Hashable, int], name: str) -> set[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        values = (values,)
    out = set()
    for v in values:
        try:
            c = index.get(v)
        except TypeError:
            raise InputError(f"{name} holds an unhashable label {v!r}") from None
        if c is None:
            raise InputError(
                f"{name} holds {v!r}, which is not one of the labels",
                hint=f"labels: {', '.join(map(repr, index))}",
            )
        out.add(c)
    return out


def mean_statistics(scores: Any) -> np.ndarray:
    """``(score, 1)`` per item: the statistics of the plain mean (the ``"mean"`` metric).

    ``scores`` has shape ``(n_items, ...)``; the result ``(n_items, ..., 2)``. A NaN
    score becomes ``(0, 0)``: the item is left out of that system's mean (and of its
    resampled means), not counted as 0.

    References
    ----------
    .. [1] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> mean_statistics([1.0, np.nan, 0.5]).tolist()
    [[1.0, 1.0], [0.0, 0.0], [0.5, 1.0]]
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim < 1:
        raise InputError("scores must have an item axis")
    present = ~np.isnan(x)
    return np.stack([np.where(present, x, 0.0), present.astype(np.float64)], axis=-1)


# ============================================================================ metrics

# While resampling, 0/0 is tallied per resample (first axis) instead of warned each time.
_UNDEFINED: ContextVar[dict[str, Any] | None] = ContextVar("_UNDEFINED", default=None)


def _divide(num: np.ndarray, den: np.ndarray, what: str, empty: float) -> np.ndarray:
    """``num / den`` with ``empty`` where ``den == 0``, and a DegenerateDataWarning."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    zero = den == 0
    out = num / np.where(zero, 1.0, den)
    if not zero.any():
        return out
    out = np.where(zero, empty, out)
    sink = _UNDEFINED.get()
    if sink is not None and zero.ndim >= 1 and zero.shape[0] == sink["rows"].shape[0]:
        sink["rows"] |= zero.reshape(zero.shape[0], -1).any(axis=1)
        sink["what"].add(what)
    else:
        warnings.warn(
            f"{what} is 0/0 in {int(zero.sum())} of {count(zero.size, 'value')}; set "
            f"to {empty} (scikit-learn's zero_division default for precision, "
            "recall and F1)",
            DegenerateDataWarning,
            stacklevel=4,
        )
    return out


def _precision(s: np.ndarray) -> np.ndarray:
    return _divide(s[..., TP], s[..., TP] + s[..., FP], "precision (tp + fp = 0)", 0.0)


def _recall(s: np.ndarray) -> np.ndarray:
    return _divide(s[..., TP], s[..., TP] + s[..., FN], "recall (tp + fn = 0)", 0.0)


def _f1(s: np.ndarray) -> np.ndarray:
    return _divide(
        2 * s[..., TP], 2 * s[..., TP] + s[..., FP] + s[..., FN], "F1 (tp + fp + fn = 0)", 0.0
    )


def _accuracy(s: np.ndarray) -> np.ndarray:
    return _divide(s[..., TP], s[..., TP] + s[..., FN], "accuracy (no items)", math.nan)


def _mean(s: np.ndarray) -> np.ndarray:
    return _divide(s[..., 0], s[..., 1], "mean (total weight 0)", math.nan)


def _mcc(s: np.ndarray) -> np.ndarray:
    """Matthews' correlation of single-label classification from per-class sums
    (Gorodkin's multiclass form, from the confusion matrix's margins)."""
    tp, fp, fn = s[..., TP], s[..., FP], s[..., FN]
    true = tp + fn  # items of each reference class
    predicted = tp + fp  # items predicted as each class
    n = true.sum(axis=-1)
    correct = tp.sum(axis=-1)
    numerator = correct * n - (predicted * true).sum(axis=-1)
    denominator = np.sqrt((n**2 - (predicted**2).sum(axis=-1)) * (n**2 - (true**2).sum(axis=-1)))
    return _divide(numerator, denominator, "MCC (a constant prediction or reference)", 0.0)


def _sum_classes(s: np.ndarray) -> np.ndarray:
    return s.sum(axis=-2)


@dataclass(frozen=True)
class CorpusMetric:
    """A corpus-level metric: a function of summed per-item statistics.

    Attributes
    ----------
    name
        Registry name, e.g. ``"f1-macro"``.
    function
        Maps summed (projected) statistics of shape ``(..., *shape)`` to values of
        shape ``(...)``, vectorised over any leading axes (resamples, systems, pairs).
    description
        One line for reports.
    project
        Optional *linear* map applied to the statistics before summing (e.g. keep the
        positive class, or sum the classes for a micro average). Because it is linear,
        projecting per item and then summing equals projecting the sum; it makes the
        resampling products smaller. ``None`` is the identity.
    stat_shape
        Trailing shape of the per-item statistics the metric takes; ``None`` matches
        any length (the number of classes). ``(None, 3)`` for classification,
        ``(2,)`` for ``(score, weight)``.
    single_label
        Whether the statistics must come from single-label items (at most one
        reference and one prediction per item); accuracy needs it.
    positive_index
        Binary metrics: the index of the positive class on the class axis (at most 2
        classes allowed); else ``None``.
    proportion
        Whether the values are shares in [0, 1] (shown in percent, differences in
        points); False for a correlation such as MCC.
    """

    name: str
    function: Callable[[np.ndarray], np.ndarray]
    description: str
    project: Callable[[np.ndarray], np.ndarray] | None = None
    stat_shape: tuple[int | None, ...] = (None, 3)
    single_label: bool = False
    positive_index: int | None = None
    proportion: bool = True

    def __call__(self, sums: np.ndarray) -> np.ndarray:
        """The metric of summed statistics ``(..., *stat_shape)``.

        Examples
        --------
        >>> corpus_metric("f1-micro")(np.array([[3, 1, 1], [2, 1, 1]]))
        0.7142857142857143
        """
        x = np.asarray(sums, dtype=np.float64)
        out = self.function(self.project(x) if self.project is not None else x)
        return out.item() if np.ndim(out) == 0 else out


_AVERAGES = ("binary", "micro", "macro")
_FORMULAS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], str]] = {
    "precision": (_precision, "tp / (tp + fp)"),
    "recall": (_recall, "tp / (tp + fn)"),
    "f1": (_f1, "2 tp / (2 tp + fp + fn)"),
}

#: Names known to :func:`corpus_metric` (declared in :mod:`reportgen.names`, where the
#: command line and the config file take them from).
CORPUS_METRICS: tuple[str, ...] = _CORPUS_METRIC_NAMES


def _macro(formula: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    def macro(s: np.ndarray) -> np.ndarray:
        return formula(s).mean(axis=-1)

    return macro


def corpus_metric(name: str, *, positive_index: int = -1) -> CorpusMetric:
    """Look up a corpus metric by name.

    Parameters
    ----------
    name
        One of :data:`CORPUS_METRICS`: ``"{precision,recall,f1}-{macro,micro,binary}"``,
        ``"accuracy"``, ``"mcc"``, ``"mean"``.
    positive_index
        Binary averages: index of the positive class on the class axis; the default
        -1 is the last class, where :func:`classification_statistics` puts
        ``positive``.

    Returns
    -------
    CorpusMetric

    Raises
    ------
    InputError
        Unknown name (the message lists the known ones).

    Notes
    -----
    Per class c with summed counts :math:`tp_c, fp_c, fn_c`: precision
    :math:`tp_c/(tp_c + fp_c)`, recall :math:`tp_c/(tp_c + fn_c)`, F1
    :math:`2tp_c/(2tp_c + fp_c + fn_c)` (the harmonic mean of precision and recall).

    * ``binary``: the formula for the positive class only.
    * ``micro``: the formula on the counts summed over classes.
    * ``macro``: the unweighted mean over classes of the per-class values — F1-macro
      is the mean of per-class F1, not the F1 of macro precision and recall. Every
      class of the statistics counts, including one absent from a bootstrap resample
      (as scikit-learn with an explicit ``labels=``).
    * ``accuracy``: :math:`\\sum_c tp_c / \\sum_c (tp_c + fn_c)`, the micro recall,
      which for single-label items is the share of items predicted correctly (a
      missing prediction is wrong).
    * ``mcc``: Matthews' correlation coefficient in Gorodkin's (2004) multiclass form,
      from the per-class counts of items with reference c, :math:`t_c = tp_c + fn_c`,
      and predicted as c, :math:`p_c = tp_c + fp_c`, with :math:`n = \\sum_c t_c` and
      :math:`k = \\sum_c tp_c`: :math:`(k n - \\sum_c p_c t_c) /
      \\sqrt{(n^2 - \\sum_c p_c^2)(n^2 - \\sum_c t_c^2)}`; for two classes the phi
      coefficient, Pearson's correlation of the 0/1 labels. A denominator of 0 (one
      class predicted or present only) gives 0, as scikit-learn's
      ``matthews_corrcoef``. A missing prediction counts towards n but no class.
    * ``mean``: :math:`\\sum_i s_i / \\sum_i w_i` of ``(score, weight)`` statistics.

    A 0/0 in precision, recall or F1 gives 0 with a :class:`DegenerateDataWarning`,
    scikit-learn's default ``zero_division`` behaviour (which warns with its
    ``UndefinedMetricWarning``); 0/0 in accuracy or mean (no items) gives NaN. These
    are the definitions of scikit-learn's ``precision_score``, ``recall_score``,
    ``f1_score`` (≥ 1.3) and ``accuracy_score`` (Pedregosa et al. 2011).

    References
    ----------
    .. [1] Sokolova, M. & Lapalme, G. (2009). A systematic analysis of performance measures for
           classification tasks. Inf. Process. Manag. 45(4), 427-437.
    .. [2] Gorodkin, J. (2004). Comparing two K-category assignments by a K-category correlation
           coefficient. Comput. Biol. Chem. 28(5-6), 367-374.

    Examples
    --------
    >>> m = corpus_metric("f1-macro")
    >>> m.name, m(np.array([[3, 1, 1], [2, 1, 1]]))  # (6/8 + 4/6) / 2
    ('f1-macro', 0.7083333333333333)
    >>> corpus_metric("f1")
    Traceback (most recent call last):
    ...
    reportgen.errors.InputError: unknown corpus metric 'f1'
      hint: known: f1-macro, f1-micro, f1-binary, precision-macro, precision-micro, \
precision-binary, recall-macro, recall-micro, recall-binary, accuracy, mcc, mean
    """
    if name == "accuracy":
        return CorpusMetric(
            name,
            _accuracy,
            "share of items predicted correctly (micro recall)",
            _sum_classes,
            single_label=True,
        )
    if name == "mcc":
        return CorpusMetric(
            name,
            _mcc,
            "Matthews' correlation of prediction and reference",
            single_label=True,
            proportion=False,
        )
    if name == "mean":
        return CorpusMetric(name, _mean, "sum of scores / sum of weights", stat_shape=(2,))
    metric, _, average = str(name).partition("-")
    if metric not in _FORMULAS or average not in _AVERAGES:
        raise InputError(
            f"unknown corpus metric {name!r}", hint=f"known: {', '.join(CORPUS_METRICS)}"
        )
    formula, text = _FORMULAS[metric]
    if average == "macro":
        return CorpusMetric(name, _macro(formula), f"unweighted mean over classes of {text}")
    if average == "micro":
        return CorpusMetric(
            name, formula, f"{text} of the counts summed over classes", _sum_classes
        )
    index = int(positive_index)

    def positive_class(s: np.ndarray) -> np.ndarray:
        return s[..., index, :]

    return CorpusMetric(
        name,
        formula,
        f"{text} of the positive class (index {index})",
        positive_class,
        positive_index=index,
    )


# ============================================================================ inputs


@dataclass(frozen=True)
class _Prepared:
    X: np.ndarray  # (n_items, n_systems * k) projected per-item statistics
    shape: tuple[int, ...]  # projected statistic shape of one system
    n_systems: int
    n_runs: int | None
    function: Callable[[np.ndarray], np.ndarray]


def _metric_iv(metric: CorpusMetric | str) -> CorpusMetric:
    if isinstance(metric, CorpusMetric):
        return metric
    if isinstance(metric, str):
        return corpus_metric(metric)
    raise InputError(
        f"metric must be a CorpusMetric or a name, got {type(metric).__name__}",
        hint=f"names: {', '.join(CORPUS_METRICS)}",
    )


def _prepare(stats: Any, metric: CorpusMetric, runs_axis: int | None) -> _Prepared:
    """Validate ``stats`` against ``metric``, sum the runs, project and flatten."""
    if isinstance(stats, ClassificationStatistics):
        stats = stats.counts
    arr = np.asarray(stats, dtype=np.float64)
    lead = 2 if runs_axis is None else 3
    tail = metric.stat_shape
    layout = (
        "(n_items, n_systems"
        + (", n_runs" if runs_axis is not None else "")
        + ", "
        + ", ".join("n_classes" if d is None else str(d) for d in tail)
        + ")"
    )
    if arr.ndim != lead + len(tail) or any(
        d is not None and arr.shape[lead + k] != d for k, d in enumerate(tail)
    ):
        raise InputError(
            f"stats of shape {arr.shape} do not fit metric {metric.name!r}, which needs {layout}",
            hint="stack one system's statistics per column: "
            "np.stack([...], axis=1); for one system use stats[:, None]",
        )
    if runs_axis is not None and runs_axis not in (1, 2):
        raise InputError(
            f"runs_axis={runs_axis!r} must be 1 or 2 (axis 0 holds the items)",
            hint="use runs_axis=2 for (n_items, n_systems, n_runs, ...)",
        )
    if arr.shape[0] == 0:
        raise InputError("stats has no items")
    if any(d == 0 for d in arr.shape[1:]):
        raise InputError(f"stats has an empty axis: shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise InputError(
            "stats contain NaN or infinite values",
            hint="mean_statistics() turns a missing score into (0, 0)",
        )
    if metric.stat_shape == (None, 3) and (arr < 0).any():
        raise InputError("classification statistics must be non-negative counts")
    if metric.single_label and len(tail) == 2 and tail[-1] == 3:
        refs = (arr[..., TP] + arr[..., FN]).sum(axis=-1)
        preds = (arr[..., TP] + arr[..., FP]).sum(axis=-1)
        if (refs > 1).any() or (preds > 1).any():
            raise InputError(
                f"{metric.name!r} needs single-label statistics (at most one "
                "reference and one prediction per item and run)",
                hint="multi-label statistics support precision, recall and "
                "F1; for exact-match accuracy use mean_statistics of "
                "the per-item 0/1 matches with the 'mean' metric",
            )
    if metric.positive_index is not None:
        n_classes = arr.shape[-2]
        if n_classes > 2:
            raise InputError(
                f"{metric.name!r} is a binary average but the statistics have {n_classes} classes",
                hint="use the '-macro' or '-micro' average, or build the "
                "statistics with two labels",
            )
        if not -n_classes <= metric.positive_index < n_classes:
            raise InputError(
                f"positive_index={metric.positive_index} is out of range for {n_classes} class(es)"
            )
    n_runs = None
    if runs_axis is not None:
        n_runs = arr.shape[runs_axis]
        arr = arr.sum(axis=runs_axis)
    if metric.project is not None:
        arr = np.asarray(metric.project(arr), dtype=np.float64)
    n, n_sys = arr.shape[:2]
    shape = arr.shape[2:]
    return _Prepared(
        np.ascontiguousarray(arr.reshape(n, -1)), shape, n_sys, n_runs, metric.function
    )


def _options_iv(
    choices: dict[str, tuple[Any, tuple[Any, ...]]],
    confidence: float,
    n_resamples: int,
    max_memory: int,
) -> None:
    choices_iv(choices)
    resampling_iv(confidence=confidence, n_resamples=n_resamples, max_memory=max_memory)


# ============================================================================ resampling


def _evaluate(
    function: Callable[[np.ndarray], np.ndarray], sums: np.ndarray, rows: np.ndarray, what: set[str]
) -> np.ndarray:
    """``function(sums)`` with 0/0 tallied into ``rows``/``what`` instead of warned."""
    sink: dict[str, Any] = {"rows": np.zeros(sums.shape[0], dtype=bool), "what": set()}
    token = _UNDEFINED.set(sink)
    try:
        out = np.asarray(function(sums), dtype=np.float64)
    finally:
        _UNDEFINED.reset(token)
    rows |= sink["rows"]
    what |= sink["what"]
    return out


def _warn_undefined(rows: np.ndarray, what: set[str], where: str) -> None:
    if rows.any():
        warnings.warn(
            f"{', '.join(sorted(what))} was 0/0 in {int(rows.sum())} of "
            f"{rows.size} {where} (e.g. a class absent from a resample) and "
            "counted as documented by corpus_metric",
            DegenerateDataWarning,
            stacklevel=3,
        )


def _bootstrap_replicates(
    prep: _Prepared, n_resamples: int, rng: np.random.Generator, max_memory: int
) -> np.ndarray:
    """``(n_resamples, n_systems)`` metric values of resampled items: bootstrap counts
    × statistics gives the resampled sums of every system in one product per chunk."""
    n, cols = prep.X.shape
    reps = np.empty((n_resamples, prep.n_systems))
    undefined = np.zeros(n_resamples, dtype=bool)
    what: set[str] = set()
    done = 0
    operand = exact_product(prep.X, n)
    # per row: the counts (16 bytes per item at peak) and ~6 copies of the sums
    for size in chunk_sizes(n_resamples, 16 * n + 48 * cols, max_memory):
        sums = operand.weighted_sums(bootstrap_counts(rng, size, n))
        sl = slice(done, done + size)
        rows = np.zeros(size, dtype=bool)
        reps[sl] = _evaluate(
            prep.function, sums.reshape((size, prep.n_systems) + prep.shape), rows, what
        )
        undefined[sl] = rows
        done += size
    _warn_undefined(undefined, what, "bootstrap resamples")
    return reps


def _jackknife(prep: _Prepared, max_memory: int) -> np.ndarray:
    """``(n_items, n_systems)`` leave-one-item-out values: sums = total − item."""
    n, cols = prep.X.shape
    total = prep.X.sum(axis=0)
    out = np.empty((n, prep.n_systems))
    undefined = np.zeros(n, dtype=bool)
    what: set[str] = set()
    start = 0
    for size in chunk_sizes(n, 48 * cols, max_memory):
        sl = slice(start, start + size)
        loo = (total - prep.X[sl]).reshape((size, prep.n_systems) + prep.shape)
        rows = np.zeros(size, dtype=bool)
        out[sl] = _evaluate(prep.function, loo, rows, what)
        undefined[sl] = rows
        start += size
    _warn_undefined(undefined, what, "leave-one-out jackknife values")
    return out


def _acceleration(jack: np.ndarray) -> np.ndarray:
    """Jackknife acceleration :math:`\\hat a = \\sum d_i^3 / (6 (\\sum d_i^2)^{3/2})`,
    :math:`d_i = \\bar\\theta_{(\\cdot)} - \\theta_{(i)}` (Efron & Tibshirani 1993, 14.15)."""
    d = jack.mean(axis=0) - jack
    with np.errstate(invalid="ignore", divide="ignore"):
        accel = (d**3).sum(axis=0) / (6 * ((d**2).sum(axis=0)) ** 1.5)
    return np.nan_to_num(accel)


def _interval(
    reps: np.ndarray,
    observed: np.ndarray,
    method: str,
    confidence: float,
    jack: Callable[[], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    if method == "percentile":
        alpha = (1 - confidence) / 2
        low, high = np.percentile(reps, [100 * alpha, 100 * (1 - alpha)], axis=0)
        return low, high
    return bca_interval(reps, observed, _acceleration(jack()), confidence)


def _observed(prep: _Prepared) -> np.ndarray:
    total = prep.X.sum(axis=0).reshape((prep.n_systems,) + prep.shape)
    return np.asarray(prep.function(total), dtype=np.float64).reshape(prep.n_systems)


# ============================================================================ intervals


@dataclass(frozen=True)
class CorpusIntervalResult(TabularMixin):
    """Bootstrap confidence intervals of a corpus metric, one per system.

    Attributes
    ----------
    systems
        System names.
    metric
        The metric's name.
    value
        The metric on all items (all runs pooled), per system.
    ci_low, ci_high, ci_method, confidence
        The two-sided interval at ``confidence`` and how it was computed.
    standard_error
        Standard deviation of the bootstrap replicates.
    n
        Number of items.
    n_runs
        Runs per item if ``runs_axis`` was used, else ``None``.
    n_resamples
        Bootstrap resamples.
    """

    systems: tuple[str, ...]
    metric: str
    value: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    ci_method: str
    confidence: float
    standard_error: np.ndarray
    n: int
    n_runs: int | None
    n_resamples: int

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per system (NaN as None)."""
        return columns_to_records(
            {
                "system": self.systems,
                "metric": self.metric,
                "value": floats(self.value),
                "ci_low": floats(self.ci_low),
                "ci_high": floats(self.ci_high),
                "ci_method": self.ci_method,
                "confidence": self.confidence,
                "standard_error": floats(self.standard_error),
                "n": self.n,
                "runs": self.n_runs,
                "n_resamples": self.n_resamples,
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """The records under ``"systems"`` with the shared fields at the top."""
        return {
            "metric": self.metric,
            "ci_method": self.ci_method,
            "confidence": self.confidence,
            "n": self.n,
            "runs": self.n_runs,
            "n_resamples": self.n_resamples,
            "systems": self.to_records(),
        }


def corpus_bootstrap_interval(
    stats: Any,
    metric: CorpusMetric | str,
    *,
    systems: Sequence[str] | None = None,
    method: IntervalMethod = "percentile",
    confidence: float = 0.95,
    n_resamples: int = 9999,
    runs_axis: int | None = None,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> CorpusIntervalResult:
    """Bootstrap CIs of a corpus metric for several systems at once, items resampled.

    Parameters
    ----------
    stats
        Per-item statistics ``(n_items, n_systems, *stat_shape)`` — e.g.
        ``(n_items, n_systems, n_classes, 3)`` counts from
        :func:`classification_statistics` — or, with ``runs_axis``, one more axis of
        repeated runs. The systems share the resampled items (paired).
    metric
        A :class:`CorpusMetric` or its name (:data:`CORPUS_METRICS`).
    systems
        Names of the systems; default ``"system 1"``, ...
    method
        ``"percentile"`` (default) or ``"bca"`` (bias-corrected and accelerated).
    confidence
        Level of the two-sided intervals.
    n_resamples
        Bootstrap resamples.
    runs_axis
        Axis (1 or 2) of ``stats`` holding repeated runs of each item: a cluster
        bootstrap (Notes).
    rng
        ``numpy.random.Generator`` or seed.
    max_memory
        Bound on the working memory of one resampling chunk, in bytes.

    Returns
    -------
    CorpusIntervalResult

    Raises
    ------
    InputError
        Shape not matching the metric, NaN statistics, bad options, accuracy of
        multi-label statistics, a binary average of more than two classes.

    Warns
    -----
    DegenerateDataWarning
        Fewer than 2 items (CI NaN); a bootstrap distribution that is a single point
        (e.g. a perfect system: zero-width CI); 0/0 in the metric on the data or in
        some resamples (a class absent from a resample; see :func:`corpus_metric`).

    Notes
    -----
    A bootstrap resample draws n items with replacement; with counts
    :math:`W \\in \\mathbb{N}^{B\\times n}` (rows summing to n) the resampled sums of
    every system and statistic are :math:`W X`, and the replicate is the metric of
    those sums. Percentile interval: the :math:`\\alpha/2` and :math:`1-\\alpha/2`
    quantiles of the replicates (Efron & Tibshirani 1993, §13.3). BCa: §14.3, with the
    acceleration from the jackknife over items whose leave-one-out sums are
    :math:`S - x_i` (eq. 14.15) — the definitions of scipy's ``stats.bootstrap``.

    With repeated runs the statistic on the data is the metric of the sums over all
    items and runs: the metric of the pooled predictions of every run, the point
    estimate of Fraile-Hernández & Peñas (2025, Algorithm 1). The resampling differs from
    theirs: it draws *items* and keeps all runs of a drawn item together (a cluster bootstrap,
    Davison & Hinkley 1997, §3.8), because the runs of one item share its difficulty;
    drawing single (item, run) pairs from the pool as they do treats them as
    independent, which understates the item-level variance. The interval covers the
    metric of the run-averaged system on new items.

    References
    ----------
    .. [1] Efron, B. (1979). Bootstrap methods: another look at the jackknife. Ann. Statist. 7(1),
           1-26.
    .. [2] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall,
           §13.3 (percentile interval), §14.3 and eq. 14.15 (BCa).
    .. [3] Fraile-Hernández, J. M. & Peñas, A. (2025). On measuring large language models
           performance with inferential statistics. Information 16(9), 817.
           https://doi.org/10.3390/info16090817 (§3.2-3.4: a bootstrap of one run's F1 and its
           percentile interval).

    Examples
    --------
    Two systems (columns of the predictions) on 30 items:

    >>> reference = ["a", "b", "c"] * 10
    >>> first = ["a", "b", "c"] * 8 + ["b", "b", "a"] * 2
    >>> second = ["a", "a", "c"] * 10
    >>> s = classification_statistics(np.column_stack([first, second]), reference)
    >>> s.counts.shape
    (30, 2, 3, 3)
    >>> r = corpus_bootstrap_interval(s.counts, "f1-macro", systems=["first", "second"],
    ...                               n_resamples=999, rng=0)
    >>> r.value.round(3).tolist(), r.ci_low.round(3).tolist(), r.ci_high.round(3).tolist()
    ([0.866, 0.556], [0.715, 0.467], [0.97, 0.614])

    The values by hand, per class F1 = 2tp / (2tp + fp + fn):

    >>> round((16 / 20 + 20 / 22 + 16 / 18) / 3, 3), round((20 / 30 + 0 + 1) / 3, 3)
    (0.866, 0.556)
    """
    metric = _metric_iv(metric)
    _options_iv({"method": (method, get_args(IntervalMethod))}, confidence, n_resamples, max_memory)
    prep = _prepare(stats, metric, runs_axis)
    names = system_names(systems, prep.n_systems)
    generator = np.random.default_rng(rng)
    n = prep.X.shape[0]
    observed = _observed(prep)
    reps = _bootstrap_replicates(prep, int(n_resamples), generator, int(max_memory))
    low, high = _interval(
        reps, observed, method, float(confidence), lambda: _jackknife(prep, int(max_memory))
    )
    with np.errstate(invalid="ignore"):
        se = reps.std(axis=0, ddof=1) if n_resamples > 1 else np.full(prep.n_systems, np.nan)
    if n < 2:
        warnings.warn(
            f"{n} item: a bootstrap needs at least 2; the intervals are NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
        low = np.full(prep.n_systems, np.nan)
        high = np.full(prep.n_systems, np.nan)
    else:
        _warn_point_distribution(reps, names, "the metric")
    label = "percentile bootstrap" if method == "percentile" else "BCa bootstrap"
    if runs_axis is not None:
        label += " (items resampled with their runs)"
    return CorpusIntervalResult(
        names,
        metric.name,
        observed,
        np.asarray(low, np.float64),
        np.asarray(high, np.float64),
        label,
        float(confidence),
        se,
        n,
        prep.n_runs,
        int(n_resamples),
    )


def _warn_point_distribution(reps: np.ndarray, names: Sequence[str], what: str) -> None:
    point = np.all(reps == reps[:1], axis=0)
    if point.any():
        listed = ", ".join(names[k] for k in np.flatnonzero(point)[:5])
        warnings.warn(
            f"every bootstrap resample gives the same value of {what} for "
            f"{count(int(point.sum()), 'column')} ({listed}): the interval has zero "
            "width",
            DegenerateDataWarning,
            stacklevel=3,
        )


# ============================================================================ comparison


@dataclass(frozen=True)
class CorpusComparisonResult(PairsMixin):
    """Paired comparisons of systems on a corpus metric. Arrays have one entry per pair.

    Attributes
    ----------
    systems
        System names; pair k compares ``systems[index_a[k]]`` with
        ``systems[index_b[k]]``.
    metric
        The metric's name.
    test
        ``"approximate randomization (Monte Carlo)"`` or ``"approximate randomization
        (exact)"`` (every one of the 2^n swap patterns).
    alternative, order
        The options used.
    metric_a, metric_b, diff
        The metric of each system on all items and ``metric_a − metric_b``.
    p_value, p_adjusted, correction, alpha
        Raw p-values, p-values adjusted across the pairs by ``correction``, and the
        level used by :meth:`significant`.
    ci_low, ci_high, ci_method, confidence
        Paired bootstrap interval of ``diff``.
    n
        Items per pair.
    n_runs
        Runs per item if ``runs_axis`` was used, else ``None``.
    exact
        Whether the p-values come from full enumeration.
    n_resamples
        Swap patterns drawn (Monte Carlo) and bootstrap resamples.
    decision_level
        The per-comparison level of each decision when the family is larger than this
        result (:meth:`with_adjusted`), else None.
    ci_adjusted
        Intervals of a family that decided on intervals of its own, else None.
    interval_plan
        How the adjusted intervals are made when the family is larger than this result
        (:meth:`with_adjusted`), else None (:meth:`plan` makes it from these pairs).
    """

    systems: tuple[str, ...]
    index_a: np.ndarray
    index_b: np.ndarray
    metric: str
    test: str
    alternative: Alternative
    order: Order
    metric_a: np.ndarray
    metric_b: np.ndarray
    diff: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    correction: Correction
    alpha: float
    ci_low: np.ndarray
    ci_high: np.ndarray
    ci_method: str
    confidence: float
    n: np.ndarray
    n_runs: int | None
    exact: bool
    n_resamples: int
    decision_level: np.ndarray | None = None
    ci_adjusted: tuple[np.ndarray, np.ndarray] | None = None
    interval_plan: IntervalPlan | None = None

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per pair with the comparison fields of results.json (NaN as None).

        ``mean_a``/``mean_b`` hold the corpus metric values (also under
        ``metric_a``/``metric_b``); there is no standardised effect size
        (``effect_size`` None); ``estimand`` is ``"mean"`` (the difference of the
        metric's values) and nothing is ``approximate``."""
        a, b, diff, n = (
            floats(self.metric_a),
            floats(self.metric_b),
            floats(self.diff),
            ints(self.n),
        )
        return columns_to_records(
            {
                "metric": self.metric,
                "system_a": self.system_a,
                "system_b": self.system_b,
                "test": self.test,
                "alternative": self.alternative,
                "statistic": diff,
                "p_value": floats(self.p_value),
                "p_adjusted": floats(self.p_adjusted),
                "correction": self.correction,
                "alpha": self.alpha,
                "significant": bools(self.significant()),
                "effect_size": None,
                "effect_size_kind": None,
                "metric_a": a,
                "metric_b": b,
                "mean_a": a,
                "mean_b": b,
                "diff": diff,
                **self.interval_columns(),
                "n_a": n,
                "n_b": n,
                "runs": self.n_runs,
                "exact": self.exact,
                "n_resamples": self.n_resamples,
                # the difference of the metric's values on all items (no robust
                # estimand of a corpus metric; its intervals are bootstrap ones)
                "estimand": "mean",
                "approximate": False,
            }
        )


# Over 100 lines of code: the approximate-randomization test and the paired bootstrap
# of one corpus metric, with the chunk sizes their temporaries need side by side.
def corpus_compare_paired(
    stats: Any,
    metric: CorpusMetric | str,
    *,
    systems: Sequence[str] | None = None,
    order: Order = "all-pairs",
    baseline: int | str | None = None,
    alternative: Alternative = "two-sided",
    correction: Correction = "holm-sidak",
    alpha: float = 0.05,
    ci_method: IntervalMethod = "percentile",
    confidence: float = 0.95,
    n_resamples: int = 9999,
    runs_axis: int | None = None,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> CorpusComparisonResult:
    """Approximate-randomization test and paired bootstrap CI of a corpus-metric difference.

    Parameters
    ----------
    stats
        ``(n_items, n_systems, *stat_shape)`` per-item statistics of at least two
        systems on the same items (with ``runs_axis``, one more axis of runs).
    metric
        A :class:`CorpusMetric` or its name.
    systems
        Names of the systems; default ``"system 1"``, ...
    order, baseline
        Which pairs (:func:`reportgen.stats.pairwise.comparison_pairs`): all pairs,
        the baseline (name or index; default the first) against every other system,
        or successive systems.
    alternative
        ``"two-sided"``; ``"greater"`` tests metric_a > metric_b, ``"less"`` the
        reverse.
    correction, alpha
        Multiplicity correction across the pairs
        (:func:`reportgen.stats.multiplicity.adjust_pvalues`) and the level of
        :meth:`CorpusComparisonResult.significant`.
    ci_method, confidence
        Paired bootstrap interval of the difference: ``"percentile"`` or ``"bca"``.
    n_resamples
        Random swap patterns and bootstrap resamples. When ``2**n_items <=
        n_resamples`` every swap pattern is enumerated and the p-value is exact.
    runs_axis
        Axis (1 or 2) of ``stats`` holding repeated runs: an item's runs are swapped
        and resampled together.
    rng
        ``numpy.random.Generator`` or seed.
    max_memory
        Bound on the working memory of one resampling chunk, in bytes.

    Returns
    -------
    CorpusComparisonResult

    Raises
    ------
    InputError
        Fewer than 2 systems, a shape not matching the metric, bad options.

    Warns
    -----
    OneSidedWarning
        A one-sided alternative.
    DegenerateDataWarning
        Fewer than 2 items (CI NaN; the exact test is still computed); a zero-width
        bootstrap distribution; 0/0 in the metric.

    Notes
    -----
    Approximate randomization (Noreen 1989; Yeh 2000; Riezler & Maxwell 2005): under
    H0 the two systems' outputs on an item are exchangeable, so each item's outputs
    are swapped with probability 1/2. With a 0/1 swap matrix :math:`M` (B × n) and
    per-item statistics :math:`A, B` of the two systems, the swapped sums are
    :math:`S_a + M(B - A)` and :math:`S_b - M(B - A)`; the statistic is
    :math:`\\delta = f(\\cdot) - f(\\cdot)`. Implemented with signs
    :math:`s = 1 - 2M`: :math:`Y = sX` for all systems at once, then the swapped sum of
    system a in pair (a, b) is :math:`(S_a + S_b + Y_a - Y_b)/2`. p-value
    :math:`(k + 1)/(B + 1)`, k the swaps with :math:`|\\delta^*| \\ge |\\delta|`
    (``greater``: :math:`\\delta^* \\ge \\delta`; ``less``: :math:`\\le`), a small
    relative tolerance counting floating-point ties; exact enumeration gives
    :math:`k / 2^n`.

    The interval is the paired bootstrap of :math:`\\delta` (Koehn 2004): the same
    bootstrap counts for both systems; BCa uses the jackknife over items.

    References
    ----------
    .. [1] Noreen, E. W. (1989). Computer-Intensive Methods for Testing Hypotheses. Wiley.
    .. [2] Berg-Kirkpatrick, T., Burkett, D. & Klein, D. (2012). An empirical investigation of
           statistical significance in NLP. Proc. EMNLP-CoNLL, 995-1005.
    .. [3] Dror, R., Baumer, G., Shlomov, S. & Reichart, R. (2018). The hitchhiker's guide to
           testing statistical significance in natural language processing. Proc. ACL, 1383-1392.

    Examples
    --------
    >>> reference = ["a", "b", "c"] * 10
    >>> first = ["a", "b", "c"] * 8 + ["b", "b", "a"] * 2
    >>> second = ["a", "a", "c"] * 10
    >>> s = classification_statistics(np.column_stack([first, second]), reference)
    >>> r = corpus_compare_paired(s.counts, "f1-macro", n_resamples=999, rng=0)
    >>> r.test, round(float(r.diff[0]), 3), float(r.p_value[0])
    ('approximate randomization (Monte Carlo)', 0.31, 0.018)
    >>> round(float(r.ci_low[0]), 3), round(float(r.ci_high[0]), 3)
    (0.146, 0.441)
    """
    metric = _metric_iv(metric)
    _options_iv(
        {
            "order": (order, get_args(Order)),
            "alternative": (alternative, get_args(Alternative)),
            "correction": (correction, CORRECTIONS),
            "ci_method": (ci_method, get_args(IntervalMethod)),
        },
        confidence,
        n_resamples,
        max_memory,
    )
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise InputError(f"alpha={alpha!r} must be between 0 and 1 (exclusive)")
    prep = _prepare(stats, metric, runs_axis)
    names = system_names(systems, prep.n_systems)
    if prep.n_systems < 2:
        raise InputError("at least 2 systems are needed for a comparison")
    if isinstance(baseline, str):
        if baseline not in names:
            raise InputError(
                f"unknown baseline system {baseline!r}", hint=f"systems: {', '.join(names)}"
            )
        base = names.index(baseline)
    else:
        base = 0 if baseline is None else int(baseline)
    ia, ib = comparison_pairs(prep.n_systems, order, base)
    if alternative != "two-sided":
        warnings.warn(
            f"alternative={alternative!r}: a one-sided test is valid only if its "
            "direction was fixed before looking at the data (Ackerman et al. 2025, §4.2)",
            OneSidedWarning,
            stacklevel=2,
        )
    generator = np.random.default_rng(rng)
    R, n = int(n_resamples), prep.X.shape[0]
    observed = _observed(prep)
    diff = observed[ia] - observed[ib]
    p, exact = _approximate_randomization(
        prep, ia, ib, observed, alternative, R, generator, int(max_memory)
    )
    reps = _bootstrap_replicates(prep, R, generator, int(max_memory))
    reps_diff = reps[:, ia] - reps[:, ib]

    def jackknife_diff() -> np.ndarray:
        jack = _jackknife(prep, int(max_memory))
        return jack[:, ia] - jack[:, ib]

    low, high = _interval(reps_diff, diff, ci_method, float(confidence), jackknife_diff)
    if n < 2:
        warnings.warn(
            f"{n} item: a bootstrap interval needs at least 2; the intervals are NaN",
            DegenerateDataWarning,
            stacklevel=2,
        )
        low = np.full(len(ia), np.nan)
        high = np.full(len(ia), np.nan)
    else:
        pair_names = [f"{names[a]} vs {names[b]}" for a, b in zip(ia, ib)]
        _warn_point_distribution(reps_diff, pair_names, "the difference")
    label = ("percentile" if ci_method == "percentile" else "BCa") + " paired bootstrap"
    if runs_axis is not None:
        label += " (items resampled with their runs)"
    return CorpusComparisonResult(
        names,
        ia,
        ib,
        metric.name,
        "approximate randomization " + ("(exact)" if exact else "(Monte Carlo)"),
        alternative,
        order,
        observed[ia],
        observed[ib],
        diff,
        p,
        adjust_pvalues(p, method=correction),
        correction,
        float(alpha),
        np.asarray(low, np.float64),
        np.asarray(high, np.float64),
        label,
        float(confidence),
        np.full(len(ia), n, dtype=np.int64),
        prep.n_runs,
        exact,
        R,
    )


def _approximate_randomization(
    prep: _Prepared,
    ia: np.ndarray,
    ib: np.ndarray,
    observed: np.ndarray,
    alternative: str,
    n_resamples: int,
    rng: np.random.Generator,
    max_memory: int,
) -> tuple[np.ndarray, bool]:
    """p-values of every pair from one sign matrix per chunk (module Notes)."""
    n, cols = prep.X.shape
    k = cols // prep.n_systems
    X3 = prep.X.reshape(n, prep.n_systems, k)
    total = X3.sum(axis=0)  # (n_systems, k)
    base = total[ia] + total[ib]  # S_a + S_b per pair
    diff = observed[ia] - observed[ib]
    scale = np.nan_to_num(np.abs(observed[ia]) + np.abs(observed[ib]))
    tol = 1e-9 * scale + 1e-12
    n_pairs = len(ia)
    exact = n < 62 and 2**n <= n_resamples
    rows_total = 2**n if exact else n_resamples
    operand = exact_product(prep.X, n)
    count = np.zeros(n_pairs, dtype=np.int64)
    undefined = np.zeros(rows_total, dtype=bool)
    what: set[str] = set()
    done = 0
    # per row: signs (9 bytes per item), Y, and the swapped sums of both sides of every
    # pair with the metric's temporaries
    for size in chunk_sizes(rows_total, 9 * n + 8 * cols + 96 * n_pairs * k, max_memory):
        signs = enumerate_signs(n, done, done + size) if exact else random_signs(rng, size, n)
        Y = operand.weighted_sums(signs).reshape(size, prep.n_systems, k)
        swing = Y[:, ia] - Y[:, ib]  # (size, pairs, k)
        shape = (size, n_pairs) + prep.shape
        rows = np.zeros(size, dtype=bool)
        value_a = _evaluate(prep.function, ((base + swing) / 2).reshape(shape), rows, what)
        value_b = _evaluate(prep.function, ((base - swing) / 2).reshape(shape), rows, what)
        null = value_a - value_b
        undefined[done : done + size] = rows
        if alternative == "two-sided":
            count += (np.abs(null) >= np.abs(diff) - tol).sum(axis=0)
        elif alternative == "greater":
            count += (null >= diff - tol).sum(axis=0)
        else:
            count += (null <= diff + tol).sum(axis=0)
        done += size
    _warn_undefined(undefined, what, "swap patterns")
    if exact:
        return count / rows_total, True
    return (count + 1) / (n_resamples + 1), False

"""Corpus-level metrics against named references: textbook counting loops (scikit-learn's
definitions; sklearn itself is not a dependency), scipy's ``stats.bootstrap``, brute-force
enumeration of every swap pattern, the exact binomial test, and coverage simulations."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from reportgen.errors import DegenerateDataWarning, InputError, OneSidedWarning
from reportgen.stats.corpus import (
    CORPUS_METRICS,
    CorpusMetric,
    classification_statistics,
    corpus_bootstrap_interval,
    corpus_compare_paired,
    corpus_metric,
    mean_statistics,
    multilabel_statistics,
)

# ------------------------------------------------------------------ textbook references


def _counts_by_loop(pred, ref, labels):
    """tp, fp, fn per class by explicit counting (scikit-learn's multiclass_confusion
    with ``labels=``: unlisted labels and missing predictions are never a false
    positive)."""
    tp = dict.fromkeys(labels, 0)
    fp = dict.fromkeys(labels, 0)
    fn = dict.fromkeys(labels, 0)
    for p, r in zip(pred, ref):
        if p is not None and p == r:
            if r in tp:
                tp[r] += 1
            continue
        if p is not None and p in fp:
            fp[p] += 1
        if r in fn:
            fn[r] += 1
    return tp, fp, fn


def _ratio(num, den):
    return num / den if den else 0.0  # zero_division=0


def _reference_scores(pred, ref, labels, positive=None):
    """The textbook formulas of sklearn's precision/recall/f1_score and accuracy_score."""
    tp, fp, fn = _counts_by_loop(pred, ref, labels)
    per = {
        c: (
            _ratio(tp[c], tp[c] + fp[c]),
            _ratio(tp[c], tp[c] + fn[c]),
            _ratio(2 * tp[c], 2 * tp[c] + fp[c] + fn[c]),
        )
        for c in labels
    }
    TP, FP, FN = sum(tp.values()), sum(fp.values()), sum(fn.values())
    out = {}
    for k, name in enumerate(("precision", "recall", "f1")):
        out[f"{name}-macro"] = sum(per[c][k] for c in labels) / len(labels)
    out["precision-micro"] = _ratio(TP, TP + FP)
    out["recall-micro"] = _ratio(TP, TP + FN)
    out["f1-micro"] = _ratio(2 * TP, 2 * TP + FP + FN)
    if positive is not None:
        for k, name in enumerate(("precision", "recall", "f1")):
            out[f"{name}-binary"] = per[positive][k]
    out["accuracy"] = sum(p == r for p, r in zip(pred, ref)) / len(ref)
    return out


def _f1_by_index(p, r, n_classes, axis=-1, average="macro"):
    """Vectorised F1 of label-index arrays (-1 = missing prediction), for scipy's
    bootstrap: counts per class with comparisons, the textbook formula."""
    tps, fps, fns, f1s = [], [], [], []
    for c in range(n_classes):
        tp = np.sum((p == c) & (r == c), axis=axis)
        fp = np.sum((p == c) & (r != c), axis=axis)
        fn = np.sum((p != c) & (r == c), axis=axis)
        tps.append(tp)
        fps.append(fp)
        fns.append(fn)
        den = 2 * tp + fp + fn
        f1s.append(np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0))
    if average == "macro":
        return np.mean(f1s, axis=0)
    tp, fp, fn = sum(tps), sum(fps), sum(fns)
    return 2 * tp / (2 * tp + fp + fn)


def _simulate(rng, n, prior, confusion, n_systems=1):
    """References from ``prior`` and each system's predictions from rows of
    ``confusion`` (P(prediction | reference)), as label indices."""
    ref = rng.choice(len(prior), size=n, p=prior)
    cum = np.cumsum(np.asarray(confusion), axis=1)[ref]  # (n, C)
    u = rng.random((n, n_systems))
    pred = (u[:, :, None] > cum[:, None, :]).sum(axis=2)
    return pred, ref


def _quantile_mc_sd(se, n_resamples, level=0.025):
    """Monte Carlo SD of a bootstrap quantile estimate: sqrt(q(1-q)/B)/f(x_q) with a
    normal density of SD ``se`` (Efron & Tibshirani 1993, §19.3)."""
    return math.sqrt(level * (1 - level) / n_resamples) * se / stats.norm.pdf(stats.norm.ppf(level))


PRIOR = np.array([0.5, 0.3, 0.2])
CONFUSION = np.array([[0.80, 0.15, 0.05], [0.20, 0.70, 0.10], [0.10, 0.20, 0.70]])


# ------------------------------------------------------------------ statistics


def test_classification_statistics_against_explicit_loops():
    rng = np.random.default_rng(0)
    labels = ["cat", "dog", "eel", "fox"]
    ref = list(rng.choice(labels[:3], size=200))
    pred = [
        None if u < 0.05 else str(v) for u, v in zip(rng.random(200), rng.choice(labels, size=200))
    ]
    s = classification_statistics(pred, ref)
    assert s.labels == tuple(labels) and s.counts.shape == (200, 4, 3)
    assert s.counts.dtype == np.int64
    tp, fp, fn = _counts_by_loop(pred, ref, labels)
    for c, label in enumerate(labels):
        assert s.counts[:, c].sum(axis=0).tolist() == [tp[label], fp[label], fn[label]]
    # per item: a correct item has one tp; a wrong one an fp (unless missing) and an fn
    for i in range(200):
        per = s.counts[i].sum(axis=0)
        if pred[i] == ref[i]:
            assert per.tolist() == [1, 0, 0]
        else:
            assert per.tolist() == [0, int(pred[i] is not None), 1]


def test_classification_statistics_extra_axes_and_subset_labels_against_loops():
    rng = np.random.default_rng(1)
    pred, ref = _simulate(rng, 80, PRIOR, CONFUSION, n_systems=6)
    pred = pred.reshape(80, 2, 3)  # systems × runs
    s = classification_statistics(pred, ref, labels=[2, 0])  # class 1 left out
    assert s.counts.shape == (80, 2, 3, 2, 3) and s.labels == (2, 0)
    for a in range(2):
        for b in range(3):
            tp, fp, fn = _counts_by_loop(pred[:, a, b].tolist(), ref.tolist(), [2, 0])
            got = s.counts[:, a, b].sum(axis=0)
            assert got.tolist() == [[tp[2], fp[2], fn[2]], [tp[0], fp[0], fn[0]]]


def test_classification_statistics_positive_and_missing_values():
    s = classification_statistics(
        ["yes", np.nan, "no", "yes"], ["yes", "yes", "no", "no"], positive="no"
    )
    assert s.labels == ("yes", "no") and s.positive == "no"
    # NaN is a missing prediction: an fn for "yes", no fp
    assert s.counts.sum(axis=0).tolist() == [[1, 1, 1], [1, 0, 1]]
    # positive absent from the data is still a class (scikit-learn's pos_label)
    s = classification_statistics([0, 0], [0, 0], positive=1)
    assert s.labels == (0, 1) and s.counts[:, 1].sum() == 0


def test_multilabel_statistics_against_explicit_loops():
    rng = np.random.default_rng(2)
    labels = list(range(1, 7))  # seed 004: six narratives
    ref_sets = [
        set(rng.choice(labels, size=rng.integers(0, 3), replace=False).tolist()) for _ in range(150)
    ]
    pred_sets = [
        None
        if rng.random() < 0.05
        else set(rng.choice(labels, size=rng.integers(0, 3), replace=False).tolist())
        for _ in range(150)
    ]
    s = multilabel_statistics(pred_sets, ref_sets, labels)
    assert s.counts.shape == (150, 6, 3)
    for c, label in enumerate(labels):
        tp = sum(label in (p or set()) and label in r for p, r in zip(pred_sets, ref_sets))
        fp = sum(label in (p or set()) and label not in r for p, r in zip(pred_sets, ref_sets))
        fn = sum(label not in (p or set()) and label in r for p, r in zip(pred_sets, ref_sets))
        assert s.counts[:, c].sum(axis=0).tolist() == [tp, fp, fn]
    # micro and macro F1 of the indicator matrices (sklearn: f1_score(Y, P, average=...))
    Y = np.array([[label in r for label in labels] for r in ref_sets])
    P = np.array([[label in (p or set()) for label in labels] for p in pred_sets])
    tp, fp, fn = (Y & P).sum(0), (~Y & P).sum(0), (Y & ~P).sum(0)
    per = np.where(2 * tp + fp + fn > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0)
    sums = s.counts.sum(axis=0)
    assert corpus_metric("f1-macro")(sums) == pytest.approx(per.mean(), rel=1e-14)
    assert corpus_metric("f1-micro")(sums) == pytest.approx(
        2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum()), rel=1e-14
    )


def test_mean_statistics_against_numpy_nanmean():
    x = np.array([[1.0, 0.5], [np.nan, 0.25], [0.0, np.nan], [1.0, 1.0]])
    st = mean_statistics(x)
    assert st.shape == (4, 2, 2)
    # numpy: nanmean(x, axis=0)
    np.testing.assert_allclose(
        corpus_metric("mean")(st.sum(axis=0)), np.nanmean(x, axis=0), rtol=1e-15
    )


# ------------------------------------------------------------------ metrics


@pytest.mark.parametrize("case", ["multiclass", "binary", "subset-labels"])
def test_corpus_metrics_against_textbook_formulas(case):
    # sklearn (not installed): f1_score(ref, pred, average=..., labels=..., pos_label=...,
    # zero_division=0) etc. — reproduced by explicit loops in _reference_scores
    rng = np.random.default_rng({"multiclass": 3, "binary": 4, "subset-labels": 5}[case])
    if case == "binary":
        ref = list(rng.choice(["neg", "pos"], size=120, p=[0.7, 0.3]))
        pred = [
            r if u < 0.75 else ("pos" if r == "neg" else "neg")
            for r, u in zip(ref, rng.random(120))
        ]
        pred[3] = None
        labels, positive = ["neg", "pos"], "pos"
        s = classification_statistics(pred, ref, positive="pos")
    else:
        p, r = _simulate(rng, 120, PRIOR, CONFUSION)
        ref, pred = r.tolist(), p[:, 0].tolist()
        pred[:4] = [None] * 4
        labels = [0, 1, 2] if case == "multiclass" else [1, 2]
        positive = None
        s = classification_statistics(pred, ref, labels=None if case == "multiclass" else labels)
    expected = _reference_scores(pred, ref, labels, positive)
    sums = s.counts.sum(axis=0)
    for name, value in expected.items():
        if name == "accuracy" and case == "subset-labels":
            continue  # accuracy counts every item whatever the label subset
        assert corpus_metric(name)(sums) == pytest.approx(value, rel=1e-14), name
    # a single-label statistic's accuracy is its micro recall
    assert corpus_metric("accuracy")(sums) == corpus_metric("recall-micro")(sums)


def _mcc_by_covariance(pred, ref, labels):
    """Gorodkin's (2004) R_K by its definition: the covariance of the one-hot prediction
    and reference matrices over their standard deviations, summed over classes (what
    sklearn's matthews_corrcoef computes; for two classes Pearson's phi)."""
    x = np.array([[float(p == c) for c in labels] for p in pred])
    y = np.array([[float(r == c) for c in labels] for r in ref])
    x, y = x - x.mean(axis=0), y - y.mean(axis=0)
    den = math.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / den) if den else 0.0


@pytest.mark.parametrize("seed, n_classes", [(11, 2), (12, 3), (13, 5)])
def test_corpus_mcc_against_one_hot_covariance_and_pearson(seed, n_classes):
    rng = np.random.default_rng(seed)
    ref = rng.integers(0, n_classes, size=150)
    pred = np.where(rng.random(150) < 0.6, ref, rng.integers(0, n_classes, size=150))
    sums = classification_statistics(pred, ref).counts.sum(axis=0)
    labels = list(range(n_classes))
    value = corpus_metric("mcc")(sums)
    assert value == pytest.approx(_mcc_by_covariance(pred, ref, labels), rel=1e-12)
    if n_classes == 2:  # the phi coefficient: Pearson's r of the 0/1 labels (scipy)
        assert value == pytest.approx(stats.pearsonr(pred, ref).statistic, rel=1e-12)
    # vectorised over leading axes (resamples × systems)
    batch = np.stack([sums, sums[::-1]])
    np.testing.assert_allclose(corpus_metric("mcc")(batch), [value, value], rtol=1e-12)


def test_corpus_mcc_constant_prediction_is_zero_as_sklearn():
    # sklearn's matthews_corrcoef returns 0.0 when a margin is constant (0/0)
    sums = classification_statistics([1, 1, 1, 1], [0, 1, 0, 1]).counts.sum(axis=0)
    with pytest.warns(DegenerateDataWarning, match="MCC"):
        assert corpus_metric("mcc")(sums) == 0.0
    # perfect and inverted predictions: +1 and -1
    perfect = classification_statistics([0, 1, 0, 1], [0, 1, 0, 1]).counts.sum(axis=0)
    inverted = classification_statistics([1, 0, 1, 0], [0, 1, 0, 1]).counts.sum(axis=0)
    assert corpus_metric("mcc")(perfect) == 1.0 and corpus_metric("mcc")(inverted) == -1.0


def test_corpus_metrics_zero_division_against_sklearn_convention():
    # class 2 never predicted: precision 0/0 -> 0 with a warning (sklearn zero_division)
    pred, ref = [0, 1, 1, 0], [0, 1, 2, 2]
    s = classification_statistics(pred, ref).counts.sum(axis=0)
    with pytest.warns(DegenerateDataWarning, match=r"precision \(tp \+ fp = 0\)"):
        value = corpus_metric("precision-macro")(s)
    assert value == pytest.approx((1 / 2 + 1 / 2 + 0) / 3)
    # F1 of a class absent from references and predictions: 0, with a warning
    s = classification_statistics([0, 1], [0, 1], labels=[0, 1, 2]).counts.sum(axis=0)
    with pytest.warns(DegenerateDataWarning, match="F1"):
        assert corpus_metric("f1-macro")(s) == pytest.approx(2 / 3)
    # no items at all: accuracy is NaN
    with pytest.warns(DegenerateDataWarning, match="accuracy"):
        assert math.isnan(corpus_metric("accuracy")(np.zeros((2, 3))))
    # vectorised over leading axes
    batch = np.stack([s, s, np.zeros_like(s)])
    with pytest.warns(DegenerateDataWarning):
        np.testing.assert_allclose(corpus_metric("f1-micro")(batch), [1.0, 1.0, 0.0])


def test_corpus_metric_registry_input_validation():
    assert CORPUS_METRICS[:3] == ("f1-macro", "f1-micro", "f1-binary")
    assert {"accuracy", "mcc", "mean", "precision-binary", "recall-macro"} <= set(CORPUS_METRICS)
    for name in CORPUS_METRICS:
        m = corpus_metric(name)
        assert isinstance(m, CorpusMetric) and m.name == name and m.description
    with pytest.raises(
        InputError,
        match=r"unknown corpus metric 'f1'(.|\n)*known: "
        r"f1-macro, f1-micro, f1-binary, precision-macro",
    ):
        corpus_metric("f1")
    with pytest.raises(InputError, match="unknown corpus metric 'bleu'"):
        corpus_metric("bleu")
    assert corpus_metric("f1-binary", positive_index=0)(np.array([[1, 0, 0], [0, 1, 1]])) == 1.0


def test_classification_statistics_input_validation():
    with pytest.raises(InputError, match="same number of items"):
        classification_statistics(["a"], ["a", "b"])
    with pytest.raises(InputError, match="missing label"):
        classification_statistics(["a", "b"], ["a", None])
    with pytest.raises(InputError, match="cannot be sorted"):
        classification_statistics(["a", 1], ["a", 1])
    assert classification_statistics(["a", 1], ["a", 1], labels=[1, "a"]).labels == (1, "a")
    with pytest.raises(InputError, match="duplicates"):
        classification_statistics(["a"], ["a"], labels=["a", "a"])
    with pytest.raises(InputError, match="positive='c' is not one of the labels"):
        classification_statistics(["a"], ["a"], labels=["a", "b"], positive="c")
    with pytest.raises(InputError, match="one-dimensional"):
        classification_statistics([["a"]], [["a"]])
    with pytest.raises(InputError, match="sequence of labels"):
        classification_statistics("abc", "abc")
    with pytest.raises(InputError, match="labels is empty"):
        classification_statistics(["a"], ["a"], labels=[])
    with pytest.raises(InputError, match="not one of the labels"):
        multilabel_statistics([{"x"}], [{"a"}], ["a", "b"])
    with pytest.raises(InputError, match="reference set of item 0 is None"):
        multilabel_statistics([{"a"}], [None], ["a"])
    with pytest.raises(InputError, match="prediction sets"):
        multilabel_statistics([{"a"}], [{"a"}, set()], ["a"])
    # a bare label is a one-label set
    s = multilabel_statistics(["a", ("a", "b")], [{"a"}, "b"], ["a", "b"])
    assert s.counts.sum(axis=0).tolist() == [[1, 1, 0], [1, 0, 0]]


# ------------------------------------------------------------------ bootstrap intervals


@pytest.mark.parametrize("method,scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_corpus_bootstrap_interval_against_scipy_bootstrap(method, scipy_method, average):
    rng = np.random.default_rng(6)
    pred, ref = _simulate(rng, 150, PRIOR, CONFUSION)
    p = pred[:, 0].copy()
    p[:5] = -1  # missing predictions
    s = classification_statistics([None if v < 0 else v for v in p], ref, labels=[0, 1, 2])
    R = 20000
    r = corpus_bootstrap_interval(
        s.counts[:, None], f"f1-{average}", method=method, n_resamples=R, rng=7
    )
    # scipy: bootstrap((p, ref), f1, paired=True, method=...) with F1 recomputed from the
    # resampled (prediction, reference) pairs
    ref_ci = stats.bootstrap(
        (p, ref),
        lambda a, b, axis=-1: _f1_by_index(a, b, 3, axis, average),
        paired=True,
        vectorized=True,
        method=scipy_method,
        n_resamples=R,
        rng=np.random.default_rng(8),
    )
    assert r.value[0] == pytest.approx(_f1_by_index(p, ref, 3, average=average), rel=1e-14)
    se = ref_ci.standard_error
    assert r.standard_error[0] == pytest.approx(se, rel=0.05)
    # two independent Monte Carlo estimates of the same quantile: 5 SD of their difference
    tol = 5 * math.sqrt(2) * _quantile_mc_sd(se, R)
    assert r.ci_low[0] == pytest.approx(ref_ci.confidence_interval.low, abs=tol)
    assert r.ci_high[0] == pytest.approx(ref_ci.confidence_interval.high, abs=tol)
    assert r.ci_method == ("percentile bootstrap" if method == "percentile" else "BCa bootstrap")


def test_corpus_bootstrap_interval_runs_against_scipy_cluster_bootstrap():
    # seed 004: several runs of a non-deterministic system; items are resampled with all
    # their runs (cluster bootstrap), the estimate is F1 of the pooled runs
    rng = np.random.default_rng(9)
    n, runs = 120, 5
    ref = (rng.random(n) < 0.35).astype(int)
    ease = rng.beta(4, 1.5, size=n)  # item difficulty shared by runs
    correct = rng.random((n, runs)) < ease[:, None]
    pred = np.where(correct, ref[:, None], 1 - ref[:, None])
    s = classification_statistics(pred[:, None, :], ref, positive=1)  # (n, 1, runs, 2, 3)
    R = 20000
    r = corpus_bootstrap_interval(s.counts, "f1-binary", runs_axis=2, n_resamples=R, rng=10)
    assert r.n == n and r.n_runs == runs and "with their runs" in r.ci_method

    def pooled_f1(idx, axis=-1):
        # F1 of the positive class over every run of the drawn items, from raw labels
        p, t = pred[idx], ref[idx][..., None]
        tp = np.sum((p == 1) & (t == 1), axis=(-2, -1))
        fp = np.sum((p == 1) & (t == 0), axis=(-2, -1))
        fn = np.sum((p == 0) & (t == 1), axis=(-2, -1))
        return 2 * tp / (2 * tp + fp + fn)

    # seed 004's point estimate: F1 of the concatenated runs
    tp, fp, fn = _counts_by_loop(pred.ravel().tolist(), np.repeat(ref, runs).tolist(), [1])
    assert r.value[0] == pytest.approx(2 * tp[1] / (2 * tp[1] + fp[1] + fn[1]), rel=1e-14)
    # scipy: bootstrap((arange(n),), pooled_f1) — resampling item indices = clusters
    ref_ci = stats.bootstrap(
        (np.arange(n),),
        pooled_f1,
        vectorized=True,
        method="percentile",
        n_resamples=R,
        rng=np.random.default_rng(11),
    )
    tol = 5 * math.sqrt(2) * _quantile_mc_sd(ref_ci.standard_error, R)
    assert r.ci_low[0] == pytest.approx(ref_ci.confidence_interval.low, abs=tol)
    assert r.ci_high[0] == pytest.approx(ref_ci.confidence_interval.high, abs=tol)
    # runs on axis 1 give the same answer
    swapped = corpus_bootstrap_interval(
        np.swapaxes(s.counts, 1, 2), "f1-binary", runs_axis=1, n_resamples=R, rng=10
    )
    np.testing.assert_array_equal(swapped.ci_low, r.ci_low)


def test_corpus_bootstrap_interval_mean_on_humaneval_against_scipy_bootstrap(shared_data):
    from reportgen.data import load

    table = load(shared_data / "eval-arena" / "humaneval+.jsonl")
    view = table.paired(table.datasets[0], "pass1")
    X = view.scores[:, :4]
    R = 10000
    r = corpus_bootstrap_interval(
        mean_statistics(X), "mean", systems=view.systems[:4], n_resamples=R, rng=12
    )
    np.testing.assert_allclose(r.value, X.mean(axis=0), rtol=1e-14)
    for k in range(4):
        # scipy: bootstrap((x,), np.mean, method="percentile")
        ref = stats.bootstrap(
            (X[:, k],),
            np.mean,
            method="percentile",
            n_resamples=R,
            rng=np.random.default_rng(13 + k),
        )
        tol = 5 * math.sqrt(2) * _quantile_mc_sd(ref.standard_error, R)
        assert r.ci_low[k] == pytest.approx(ref.confidence_interval.low, abs=tol)
        assert r.ci_high[k] == pytest.approx(ref.confidence_interval.high, abs=tol)
    assert r.to_records()[0]["system"] == view.systems[0]


def _coverage(method, n, n_datasets, n_resamples, seed):
    """Share of percentile/BCa intervals covering the population F1-macro.

    Independent data sets are the "systems" of one call (they share the bootstrap
    counts, which is valid for each column); split into 4 calls to decorrelate."""
    joint = PRIOR[:, None] * CONFUSION  # P(reference i, prediction j)
    tp = np.diag(joint)
    fp, fn = joint.sum(axis=0) - tp, joint.sum(axis=1) - tp
    truth = np.mean(2 * tp / (2 * tp + fp + fn))  # F1-macro of expected counts
    rng = np.random.default_rng(seed)
    hits = []
    for chunk in np.array_split(np.arange(n_datasets), 4):
        ref = rng.choice(3, size=(n, len(chunk)), p=PRIOR)
        cum = np.cumsum(CONFUSION, axis=1)[ref]
        pred = (rng.random((n, len(chunk)))[..., None] > cum).sum(axis=-1)
        counts = np.stack(
            [
                np.stack(
                    [(pred == c) & (ref == c), (pred == c) & (ref != c), (pred != c) & (ref == c)],
                    axis=-1,
                )
                for c in range(3)
            ],
            axis=-2,
        ).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            r = corpus_bootstrap_interval(
                counts, "f1-macro", method=method, n_resamples=n_resamples, rng=rng
            )
        hits.append((r.ci_low <= truth) & (truth <= r.ci_high))
    return np.concatenate(hits).mean()


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_corpus_bootstrap_interval_coverage_simulation(method):
    # simulation of coverage: 200 data sets of 250 items, nominal 95%
    cover = _coverage(method, 250, 200, 999, seed=14)
    se = math.sqrt(0.95 * 0.05 / 200)
    assert 0.95 - 4 * se - 0.02 <= cover <= 0.95 + 4 * se


@pytest.mark.slow
@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("n", [100, 500])
def test_corpus_bootstrap_interval_coverage_simulation_large(method, n):
    cover = _coverage(method, n, 2000, 1999, seed=15 + n)
    se = math.sqrt(0.95 * 0.05 / 2000)
    # the bootstrap's O(1/n) coverage error: allow 1.5 points at n = 100
    assert 0.95 - 4 * se - (0.015 if n == 100 else 0.008) <= cover <= 0.95 + 4 * se


# ------------------------------------------------------------------ paired comparisons


def _brute_force_ar(pred, ref, labels, name, alternative, positive=None):
    """Every one of the 2^n swap patterns of two systems' predictions, with the metric
    recomputed from the swapped label lists by _reference_scores."""
    n = len(ref)
    a, b = pred

    def delta(x, y):
        return (
            _reference_scores(x, ref, labels, positive)[name]
            - _reference_scores(y, ref, labels, positive)[name]
        )

    obs = delta(a, b)
    count = 0
    for swap in itertools.product([False, True], repeat=n):
        x = [bi if s else ai for ai, bi, s in zip(a, b, swap)]
        y = [ai if s else bi for ai, bi, s in zip(a, b, swap)]
        d = delta(x, y)
        if alternative == "two-sided":
            count += abs(d) >= abs(obs) - 1e-9
        elif alternative == "greater":
            count += d >= obs - 1e-9
        else:
            count += d <= obs + 1e-9
    return count / 2**n


@pytest.mark.parametrize("name", ["f1-macro", "f1-micro", "accuracy", "precision-macro"])
def test_corpus_compare_paired_against_brute_force_enumeration(name):
    rng = np.random.default_rng(16)
    for n in (4, 9, 12):
        pred, ref = _simulate(rng, n, PRIOR, CONFUSION, n_systems=3)
        preds = [[int(v) for v in pred[:, k]] for k in range(3)]
        preds[1][0] = None
        refs = ref.tolist()
        s = classification_statistics(np.array(preds, dtype=object).T, refs, labels=[0, 1, 2])
        for alternative in ("two-sided", "greater", "less"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateDataWarning)
                warnings.simplefilter("ignore", OneSidedWarning)
                r = corpus_compare_paired(
                    s.counts, name, alternative=alternative, n_resamples=2**n, rng=0
                )
            assert r.exact and r.test == "approximate randomization (exact)"
            for k, (i, j) in enumerate(zip(r.index_a, r.index_b)):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = _brute_force_ar(
                        (preds[i], preds[j]), refs, [0, 1, 2], name, alternative
                    )
                assert r.p_value[k] == pytest.approx(expected, abs=1e-15), (n, alternative)


def test_corpus_compare_paired_monte_carlo_against_brute_force_enumeration():
    rng = np.random.default_rng(17)
    pred, ref = _simulate(rng, 12, [0.5, 0.5], [[0.8, 0.2], [0.3, 0.7]], n_systems=2)
    s = classification_statistics(pred, ref, positive=1)
    exact = _brute_force_ar(
        ([int(v) for v in pred[:, 0]], [int(v) for v in pred[:, 1]]),
        ref.tolist(),
        [0, 1],
        "f1-binary",
        "two-sided",
        positive=1,
    )
    R = 3000  # < 2^12: Monte Carlo
    r = corpus_compare_paired(s.counts, "f1-binary", n_resamples=R, rng=18)
    assert not r.exact and r.test == "approximate randomization (Monte Carlo)"
    # p = (k+1)/(R+1): within 4 Monte Carlo SE of the exact p
    assert abs(r.p_value[0] - exact) <= 4 * math.sqrt(exact * (1 - exact) / R) + 2 / R


def test_corpus_compare_paired_mean_on_humaneval_against_exact_binomial(shared_data):
    # for 0/1 scores swapping an item's outputs flips the sign of its difference, so the
    # randomization distribution is binomial on the discordant items (exact McNemar)
    from reportgen.data import load

    table = load(shared_data / "eval-arena" / "humaneval+.jsonl")
    view = table.paired(table.datasets[0], "pass1")
    acc = view.scores.mean(axis=0)
    order = np.argsort(acc)
    pick = order[[len(order) // 2, len(order) // 2 + 1, len(order) // 2 + 3]]
    X = view.scores[:, pick]
    R = 20000
    r = corpus_compare_paired(
        mean_statistics(X), "mean", n_resamples=R, rng=19, systems=[view.systems[k] for k in pick]
    )
    for k, (i, j) in enumerate(zip(r.index_a, r.index_b)):
        b = int(np.sum((X[:, i] == 1) & (X[:, j] == 0)))
        c = int(np.sum((X[:, i] == 0) & (X[:, j] == 1)))
        # scipy: binomtest(b, b + c, 0.5).pvalue
        exact = stats.binomtest(b, b + c, 0.5).pvalue if b + c else 1.0
        assert abs(r.p_value[k] - exact) <= 4 * math.sqrt(exact * (1 - exact) / R) + 2 / R
        assert r.diff[k] == pytest.approx((b - c) / len(X), abs=1e-15)
    # statsmodels: multipletests(p, method="holm-sidak")
    np.testing.assert_allclose(
        r.p_adjusted, multipletests(r.p_value, method="holm-sidak")[1], rtol=1e-12
    )


@pytest.mark.parametrize("ci_method,scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
def test_corpus_compare_paired_interval_against_scipy_bootstrap(ci_method, scipy_method):
    rng = np.random.default_rng(20)
    pred, ref = _simulate(rng, 150, PRIOR, CONFUSION, n_systems=2)
    pred[:, 1] = np.where(rng.random(150) < 0.15, (pred[:, 1] + 1) % 3, pred[:, 1])
    s = classification_statistics(pred, ref)
    R = 20000
    r = corpus_compare_paired(s.counts, "f1-macro", ci_method=ci_method, n_resamples=R, rng=21)
    diff = _f1_by_index(pred[:, 0], ref, 3) - _f1_by_index(pred[:, 1], ref, 3)
    assert r.diff[0] == pytest.approx(diff, rel=1e-13)
    # scipy: bootstrap((a, b, ref), f1(a, ref) - f1(b, ref), paired=True, method=...)
    ref_ci = stats.bootstrap(
        (pred[:, 0], pred[:, 1], ref),
        lambda a, b, t, axis=-1: _f1_by_index(a, t, 3, axis) - _f1_by_index(b, t, 3, axis),
        paired=True,
        vectorized=True,
        method=scipy_method,
        n_resamples=R,
        rng=np.random.default_rng(22),
    )
    tol = 5 * math.sqrt(2) * _quantile_mc_sd(ref_ci.standard_error, R)
    assert r.ci_low[0] == pytest.approx(ref_ci.confidence_interval.low, abs=tol)
    assert r.ci_high[0] == pytest.approx(ref_ci.confidence_interval.high, abs=tol)


# ------------------------------------------------------------------ edge cases, options


def test_corpus_bootstrap_interval_edge_cases():
    # one item: NaN interval with a warning
    s = classification_statistics([["a", "b"]], ["a"])
    with pytest.warns(DegenerateDataWarning, match="1 item"):
        r = corpus_bootstrap_interval(s.counts, "accuracy", n_resamples=99, rng=0)
    assert r.value.tolist() == [1.0, 0.0] and np.isnan(r.ci_low).all()
    # a perfect system: zero-width interval with a warning
    ref = ["a", "b"] * 10
    s = classification_statistics(np.column_stack([ref, ["a"] * 20]), ref)
    with pytest.warns(DegenerateDataWarning, match="zero\\s+width"):
        r = corpus_bootstrap_interval(
            s.counts, "f1-macro", systems=["oracle", "const"], n_resamples=199, rng=0
        )
    assert (r.ci_low[0], r.ci_high[0]) == (1.0, 1.0)
    # a rare class absent from some resamples: one summary warning, not one per chunk
    ref = ["a"] * 39 + ["b"]
    s = classification_statistics(np.array(ref)[:, None], ref)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corpus_bootstrap_interval(s.counts, "f1-macro", n_resamples=2000, rng=0, max_memory=2**20)
    messages = [str(w.message) for w in caught if w.category is DegenerateDataWarning]
    assert len([m for m in messages if "resamples" in m]) == 1
    assert "bootstrap resamples" in messages[0] and "F1" in messages[0]


def test_corpus_compare_paired_edge_cases():
    ref = ["a", "b", "c"] * 10
    p = ["a", "a", "c"] * 10
    s = classification_statistics(np.column_stack([p, p, ref]), ref)
    with pytest.warns(DegenerateDataWarning, match="zero\\s+width"):
        r = corpus_compare_paired(s.counts, "f1-macro", n_resamples=999, rng=0)
    # identical systems: every swap gives the same difference 0, p = 1
    assert r.diff[0] == 0 and r.p_value[0] == 1.0 and r.ci_low[0] == r.ci_high[0] == 0
    assert r.system_a == ("system 1", "system 1", "system 2")
    records = r.to_records()
    assert records[1]["metric_a"] == records[1]["mean_a"] == pytest.approx(r.metric_a[1])
    assert {
        "p_value",
        "p_adjusted",
        "ci_low",
        "ci_high",
        "n_a",
        "significant",
        "test",
        "diff",
        "statistic",
    } <= set(records[0])
    # one item: exact test still defined (2 swap patterns), interval NaN
    s1 = classification_statistics([["a", "b"]], ["a"])
    with pytest.warns(DegenerateDataWarning, match="1 item"):
        r1 = corpus_compare_paired(s1.counts, "accuracy", n_resamples=99, rng=0)
    assert r1.exact and r1.p_value[0] == 1.0 and np.isnan(r1.ci_low[0])
    with pytest.warns(OneSidedWarning):
        corpus_compare_paired(
            s.counts,
            "f1-macro",
            alternative="greater",
            n_resamples=99,
            rng=0,
            order="first-vs-rest",
            baseline="system 3",
        )


def test_corpus_bootstrap_interval_input_validation():
    s = classification_statistics(np.array([["a", "b"], ["b", "b"], ["a", "a"]]), ["a", "b", "a"])
    with pytest.raises(InputError, match="do not fit metric 'f1-macro'.*n_systems"):
        corpus_bootstrap_interval(s.counts[:, 0], "f1-macro")
    with pytest.raises(InputError, match="unknown corpus metric"):
        corpus_bootstrap_interval(s.counts, "f-measure")
    with pytest.raises(InputError, match="method='normal' is not valid"):
        corpus_bootstrap_interval(s.counts, "f1-macro", method="normal")
    with pytest.raises(InputError, match="n_resamples"):
        corpus_bootstrap_interval(s.counts, "f1-macro", n_resamples=0)
    with pytest.raises(InputError, match="confidence"):
        corpus_bootstrap_interval(s.counts, "f1-macro", confidence=95)
    with pytest.raises(InputError, match="max_memory"):
        corpus_bootstrap_interval(s.counts, "f1-macro", max_memory=1000)
    with pytest.raises(InputError, match="NaN"):
        corpus_bootstrap_interval(np.full((3, 2, 2), np.nan), "mean")
    with pytest.raises(InputError, match="runs_axis"):
        corpus_bootstrap_interval(s.counts[:, :, None], "f1-macro", runs_axis=0)
    with pytest.raises(InputError, match="2 system names for 3"):
        corpus_bootstrap_interval(np.ones((3, 3, 2)), "mean", systems=["a", "b"])
    three = classification_statistics(["a", "b", "c"], ["a", "b", "c"]).counts[:, None]
    with pytest.raises(InputError, match="binary average but the statistics have 3"):
        corpus_bootstrap_interval(three, "f1-binary")
    multi = multilabel_statistics([{"a", "b"}], [{"a", "b"}], ["a", "b"]).counts[:, None]
    with pytest.raises(InputError, match="single-label"):
        corpus_bootstrap_interval(multi, "accuracy")
    with pytest.raises(InputError, match="non-negative"):
        corpus_bootstrap_interval(-s.counts, "f1-macro")


def test_corpus_compare_paired_input_validation():
    s = classification_statistics(np.array([["a", "b"], ["b", "b"], ["a", "a"]]), ["a", "b", "a"])
    with pytest.raises(InputError, match="at least 2 systems"):
        corpus_compare_paired(s.counts[:, :1], "f1-macro")
    with pytest.raises(InputError, match="order='pairs' is not valid"):
        corpus_compare_paired(s.counts, "f1-macro", order="pairs")
    with pytest.raises(InputError, match="alternative"):
        corpus_compare_paired(s.counts, "f1-macro", alternative="bigger")
    with pytest.raises(InputError, match="correction"):
        corpus_compare_paired(s.counts, "f1-macro", correction="tukey")
    with pytest.raises(InputError, match="alpha"):
        corpus_compare_paired(s.counts, "f1-macro", alpha=5)
    with pytest.raises(InputError, match="unknown baseline system 'x'"):
        corpus_compare_paired(s.counts, "f1-macro", baseline="x", order="first-vs-rest")


def test_corpus_resampling_memory_bound_and_seed_give_the_same_numbers():
    rng = np.random.default_rng(23)
    pred, ref = _simulate(rng, 300, PRIOR, CONFUSION, n_systems=4)
    counts = classification_statistics(pred, ref).counts
    a = corpus_bootstrap_interval(counts, "f1-macro", n_resamples=3000, rng=1)
    b = corpus_bootstrap_interval(counts, "f1-macro", n_resamples=3000, rng=1, max_memory=2**20)
    np.testing.assert_array_equal(a.ci_low, b.ci_low)
    c = corpus_compare_paired(counts, "f1-macro", n_resamples=3000, rng=1)
    d = corpus_compare_paired(counts, "f1-macro", n_resamples=3000, rng=1, max_memory=2**20)
    np.testing.assert_array_equal(c.p_value, d.p_value)
    np.testing.assert_array_equal(c.ci_high, d.ci_high)
    # a CorpusMetric object works like its name
    e = corpus_bootstrap_interval(counts, corpus_metric("f1-macro"), n_resamples=3000, rng=1)
    np.testing.assert_array_equal(a.ci_low, e.ci_low)

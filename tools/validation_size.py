"""Calibration scenarios of the error rates under the null: the size of every test, the
family-wise error rate of the FWER corrections and the false discovery rate of
Benjamini-Hochberg and Benjamini-Yekutieli (``tools/validation.py``)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import special
from validation_base import (
    ALPHA,
    CORPUS_PREVALENCE,
    CORPUS_SENS,
    CORPUS_SPEC,
    DISTRIBUTIONS,
    MARGIN_BINARY,
    MARGIN_CONTINUOUS,
    RESAMPLING_BLOCK,
    TEST_RESAMPLES,
    Estimate,
    Kind,
    Scenario,
    _analytic_block,
    _blocks,
    _errors,
    _even_pairs,
    _interleave,
    _latent_binary,
    _paired_continuous,
    _rate,
    _rejections,
    _scores,
    _Silent,
)

from reportgen.stats.aggregation import (
    friedman_nemenyi,
    sign_test_wins,
)
from reportgen.stats.corpus import corpus_compare_paired
from reportgen.stats.margins import margin_paired, margin_unpaired
from reportgen.stats.multiplicity import adjust_pvalues
from reportgen.stats.pairwise import compare_paired, compare_unpaired
from reportgen.stats.runs import (
    runs_differ_test,
)

_PAIRED_METHODS = {
    "auto": "paired t",
    "permutation": "sign-flip permutation",
    "bootstrap": "null-shifted bootstrap",
    "sign": "sign test (exact)",
}


_UNPAIRED_METHODS = {
    "auto": "Welch t",
    "permutation": "label-shuffle permutation",
    "bootstrap": "null-shifted bootstrap",
}


def _paired_size(
    method: str, dist: str, n: int, alternative: str = "two-sided"
) -> Callable[[int, np.random.Generator], Estimate]:
    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        block = _analytic_block(n) if method in ("auto", "sign") else RESAMPLING_BLOCK
        with _Silent():
            for pairs in _blocks(reps, block):
                X = _paired_continuous(dist, n, pairs, rng)
                r = compare_paired(
                    X,
                    method=method,
                    modality="continuous",
                    order="successive",
                    correction="none",
                    alternative=alternative,
                    n_resamples=TEST_RESAMPLES,
                    rng=rng,
                )
                hits += _rejections(_even_pairs(r.p_value))
        return _rate(hits, reps)

    return simulate


def _paired_binary_size(
    method: str, p: float, rho: float, n: int, alternative: str = "two-sided"
) -> Callable[[int, np.random.Generator], Estimate]:
    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        block = RESAMPLING_BLOCK if method == "bootstrap" else _analytic_block(n)
        with _Silent():
            for pairs in _blocks(reps, block):
                X = _latent_binary(n, pairs, p, p, rho, rng)
                r = compare_paired(
                    X,
                    method=method,
                    modality="binary",
                    order="successive",
                    correction="none",
                    alternative=alternative,
                    n_resamples=TEST_RESAMPLES,
                    rng=rng,
                )
                hits += _rejections(_even_pairs(r.p_value))
        return _rate(hits, reps)

    return simulate


def _unpaired_samples(
    dist: str, n: int, pairs: int, rng: np.random.Generator, shift: float = 0.0
) -> list[np.ndarray]:
    """Arrays A0, B0, A1, B1, ... of independent samples.

    Exchangeable settings draw A and B (n items each) from one distribution. ``behrens``:
    A ~ N(0, 2²) with n items, B ~ N(0, 1) with 3n (equal means, the smaller sample the
    more variable); ``skewmix``: A centred lognormal, B normal with the lognormal's
    variance, n items each (equal means, different shapes).
    """
    arrays: list[np.ndarray] = []
    for _ in range(pairs):
        if dist == "behrens":
            a, b = 2.0 * rng.standard_normal(n), rng.standard_normal(3 * n)
        elif dist == "skewmix":
            sd = math.sqrt((math.e - 1) * math.e)
            a, b = _errors("lognormal", (n,), rng), sd * rng.standard_normal(n)
        else:
            a = _scores(dist, np.zeros(n), (n,), rng)
            b = _scores(dist, np.zeros(n), (n,), rng)
        arrays.extend([a + shift, b])
    return arrays


def _unpaired_size(
    method: str, dist: str, n: int, alternative: str = "two-sided"
) -> Callable[[int, np.random.Generator], Estimate]:
    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        block = _analytic_block(n) if method == "auto" else RESAMPLING_BLOCK
        with _Silent():
            for pairs in _blocks(reps, block):
                arrays = _unpaired_samples(dist, n, pairs, rng)
                r = compare_unpaired(
                    arrays,
                    method=method,
                    modality="continuous",
                    order="successive",
                    correction="none",
                    alternative=alternative,
                    n_resamples=TEST_RESAMPLES,
                    rng=rng,
                )
                hits += _rejections(_even_pairs(r.p_value))
        return _rate(hits, reps)

    return simulate


def _unpaired_binary_size(
    method: str, p: float, n: int, alternative: str = "two-sided"
) -> Callable[[int, np.random.Generator], Estimate]:
    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        block = RESAMPLING_BLOCK if method == "bootstrap" else _analytic_block(n, 1e6)
        with _Silent():
            for pairs in _blocks(reps, block):
                draws = (rng.random((2 * pairs, n)) < p).astype(np.float64)
                r = compare_unpaired(
                    list(draws),
                    method=method,
                    modality="binary",
                    order="successive",
                    correction="none",
                    alternative=alternative,
                    n_resamples=TEST_RESAMPLES,
                    rng=rng,
                )
                hits += _rejections(_even_pairs(r.p_value))
        return _rate(hits, reps)

    return simulate


def _binary_counts(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Per-item ``(tp, fp, fn)`` of classes 0 and 1: ``(n, systems, 2, 3)`` (the layout
    of :func:`reportgen.stats.corpus.classification_statistics`, built directly)."""
    n, k = pred.shape
    out = np.zeros((n, k, 2, 3))
    yy = np.broadcast_to(y[:, None], pred.shape)
    for c in (0, 1):
        out[:, :, c, 0] = (pred == c) & (yy == c)
        out[:, :, c, 1] = (pred == c) & (yy != c)
        out[:, :, c, 2] = (pred != c) & (yy == c)
    return out


def _classifier(
    y: np.ndarray, k: int, sens: float, spec: float, rng: np.random.Generator
) -> np.ndarray:
    """``k`` independent binary classifiers of the labels ``y``: P(ŷ = 1 | y = 1) =
    sens, P(ŷ = 0 | y = 0) = spec."""
    u = rng.random((len(y), k))
    correct = np.where(y[:, None] == 1, u < sens, u < spec)
    return np.where(correct, y[:, None], 1 - y[:, None]).astype(np.int64)


def _population_f1_macro(prevalence: float, sens: float, spec: float) -> float:
    """Macro F1 of the expected counts (the limit of the corpus F1 as n grows)."""
    tp1, fn1 = prevalence * sens, prevalence * (1 - sens)
    tn, fp1 = (1 - prevalence) * spec, (1 - prevalence) * (1 - spec)
    f1_pos = 2 * tp1 / (2 * tp1 + fp1 + fn1)
    f1_neg = 2 * tn / (2 * tn + fn1 + fp1)
    return (f1_pos + f1_neg) / 2


CORPUS_BLOCK = 20  # systems per call: the labels y are shared within a call


def _corpus_size(n: int) -> Callable[[int, np.random.Generator], Estimate]:
    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for pairs in _blocks(reps, CORPUS_BLOCK // 2):
                y = (rng.random(n) < CORPUS_PREVALENCE).astype(np.int64)
                pred = _classifier(y, 2 * pairs, CORPUS_SENS, CORPUS_SPEC, rng)
                r = corpus_compare_paired(
                    _binary_counts(y, pred),
                    "f1-macro",
                    order="successive",
                    correction="none",
                    n_resamples=TEST_RESAMPLES,
                    rng=rng,
                )
                hits += _rejections(_even_pairs(r.p_value))
        return _rate(hits, reps)

    return simulate


def _runs_differ_size(
    binary: bool, n: int, runs: int = 5
) -> Callable[[int, np.random.Generator], Estimate]:
    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for k in _blocks(reps, 200):
                if binary:
                    p = rng.beta(2, 2, size=(n, k, 1))
                    X = (rng.random((n, k, runs)) < p).astype(np.float64)
                else:
                    X = rng.standard_normal((n, k, 1)) + rng.standard_normal((n, k, runs))
                r = runs_differ_test(X, modality="binary" if binary else "continuous")
                hits += _rejections(r.p_value)
        return _rate(hits, reps)

    return simulate


def _sign_wins_size(lists: int) -> Callable[[int, np.random.Generator], Estimate]:
    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        wins_a = rng.binomial(lists, 0.5, size=reps)
        p = sign_test_wins(wins_a, lists - wins_a).p_value
        return _rate(_rejections(p), reps)

    return simulate


def _friedman_size(
    k: int, blocks: int, what: str
) -> Callable[[int, np.random.Generator], Estimate]:
    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for _ in range(reps):
                scores = rng.standard_normal((1, blocks)) + rng.standard_normal((k, blocks))
                r = friedman_nemenyi(scores)
                if what == "chi2":
                    p = r.p_value
                elif what == "iman-davenport":
                    p = r.iman_davenport_p_value
                else:  # Nemenyi: any pair
                    p = float(np.min(r.nemenyi_p[np.triu_indices(k, 1)]))
                hits += int(p <= ALPHA)
        return _rate(hits, reps)

    return simulate


def _margin_size(
    design: str, n: int, claim: str = "non-inferiority"
) -> Callable[[int, np.random.Generator], Estimate]:
    """Rejections of the non-inferiority test (H0: Δ ≤ −δ) when the true difference is
    exactly −δ, or of the equivalence test (TOST) when it is exactly +δ; one call per
    replication (a candidate and its own baseline)."""
    delta = MARGIN_BINARY if design.endswith("binary") else MARGIN_CONTINUOUS
    truth = -delta if claim == "non-inferiority" else delta

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for _ in range(reps):
                if design == "paired-binary":
                    # discordant cells: baseline-only (ψ − Δ)/2, candidate-only (ψ + Δ)/2
                    psi = 0.3
                    cells = rng.choice(
                        4,
                        size=n,
                        p=[(psi - truth) / 2, (psi + truth) / 2, (1 - psi) / 2, (1 - psi) / 2],
                    )
                    X = np.column_stack([np.isin(cells, (0, 2)), np.isin(cells, (1, 2))])
                    r = margin_paired(X.astype(float), margin=delta)
                elif design == "unpaired-binary":
                    base = (rng.random(n) < 0.7).astype(float)
                    cand = (rng.random(n) < 0.7 + truth).astype(float)
                    r = margin_unpaired([base, cand], margin=delta)
                elif design == "paired-continuous":
                    item = rng.normal(size=n)
                    X = np.column_stack(
                        [
                            item + rng.normal(size=n) / np.sqrt(2),
                            item + truth + rng.normal(size=n) / np.sqrt(2),
                        ]
                    )
                    r = margin_paired(X, margin=delta)
                else:  # unpaired continuous, unequal variances (Welch)
                    r = margin_unpaired(
                        [rng.normal(0, 1, n), rng.normal(truth, 2, n)], margin=delta
                    )
                p = r.p_noninferiority if claim == "non-inferiority" else r.p_equivalence
                hits += int(p[0] <= ALPHA)
        return _rate(hits, reps)

    return simulate


#: Skewed paired differences with rare large losses (issue 30), each with mean 0.
SKEWED_DIFFERENCES = {
    "rareloss": "rare large losses: N(0, 0.3²) − 3 with probability 0.1, centred (skewness −2.3)",
    "lognormal-loss": "−(lognormal(0, 1) − its mean): rare large losses (skewness −6.2)",
}


def _skewed_difference(dist: str, size: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Differences with mean 0 and a long lower tail (a candidate that rarely loses a
    lot)."""
    if dist == "rareloss":
        return 0.3 * rng.standard_normal(size) - 3.0 * (rng.random(size) < 0.1) + 0.3
    if dist == "lognormal-loss":
        return -(rng.lognormal(0.0, 1.0, size) - math.exp(0.5))
    raise ValueError(dist)


def _skewed_paired_size(dist: str, n: int) -> Callable[[int, np.random.Generator], Estimate]:
    """Two-sided ``compare_paired`` (auto) under a null of mean-0 skewed differences."""

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for pairs in _blocks(reps, RESAMPLING_BLOCK):
                u = rng.standard_normal((n, pairs))
                X = _interleave(u + _skewed_difference(dist, (n, pairs), rng), u)
                r = compare_paired(
                    X,
                    modality="continuous",
                    order="successive",
                    correction="none",
                    n_resamples=TEST_RESAMPLES,
                    rng=rng,
                )
                hits += _rejections(_even_pairs(r.p_value))
        return _rate(hits, reps)

    return simulate


def _skewed_margin_size(dist: str, n: int) -> Callable[[int, np.random.Generator], Estimate]:
    """Rejections of the non-inferiority test (H0: Δ ≤ −δ) when candidate − baseline is
    −δ plus mean-0 skewed differences; the candidates of a block share one baseline."""
    delta = MARGIN_CONTINUOUS

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for k in _blocks(reps, RESAMPLING_BLOCK):
                base = rng.standard_normal(n)
                cand = base[:, None] - delta + _skewed_difference(dist, (n, k), rng)
                r = margin_paired(
                    np.column_stack([base, cand]), margin=delta, n_resamples=TEST_RESAMPLES, rng=rng
                )
                hits += _rejections(r.p_noninferiority)
        return _rate(hits, reps)

    return simulate


def _gate_false_pass(n: int, units: int = 4) -> Callable[[int, np.random.Generator], Estimate]:
    """The non-inferiority gate of a release (every unit improved or non-inferior) when
    one unit is exactly at the margin (Δ = −δ) and the others far better: an
    intersection-union test (Berger 1982) passes at most α/2 of the time."""
    from reportgen.analysis.release import _intersection_union
    from reportgen.stats.margins import margin_decisions

    delta = MARGIN_CONTINUOUS

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for _ in range(reps):
                results = []
                for shift in (-delta, *([4 * delta] * (units - 1))):
                    base = rng.standard_normal(n)
                    cand = base + shift + rng.standard_normal(n)
                    results.append(
                        margin_paired(
                            np.column_stack([base, cand]),
                            margin=delta,
                            n_resamples=TEST_RESAMPLES,
                            rng=rng,
                        )
                    )
                d = margin_decisions(results, alpha=ALPHA, correction="holm-sidak")
                verdicts = [
                    _intersection_union(d.verdict[k], r, ALPHA) for k, r in enumerate(results)
                ]
                hits += all(v in ("improved", "non-inferior") for v in verdicts)
        return _rate(hits, reps)

    return simulate


# Over 100 lines of code: the table of size scenarios, one `add` per row of
# docs/validation.md; a list reads best in one place.
def _size_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    ns = (10, 30, 100, 1000)

    def add(
        key: str,
        group: str,
        routine: str,
        setting: str,
        kind: Kind,
        reps: int,
        fn: Callable[[int, np.random.Generator], Estimate],
    ) -> None:
        out.append(Scenario("size/" + key, "size", group, routine, setting, ALPHA, kind, reps, fn))

    # paired continuous: exchangeable nulls (symmetric differences) and a skewed
    # difference with mean 0 (equal means, not exchangeable)
    for method, test in _PAIRED_METHODS.items():
        dists = ["normal", "lognormal", "t3", "cauchy", "judge"]
        if method != "sign":
            dists.append("skewdiff")
        for dist in dists:
            for n in ns:
                if method == "sign" and n == 1000 and dist != "normal":
                    continue
                label = (
                    "A − B = centred lognormal (mean 0, median < 0)"
                    if dist == "skewdiff"
                    else f"A, B i.i.d. given the item: {DISTRIBUTIONS[dist]}"
                )
                resampling = method in ("permutation", "bootstrap")
                add(
                    f"paired-continuous/{method}/{dist}/n={n}",
                    "paired, continuous",
                    f"compare_paired(method={method!r}): {test}",
                    f"{label}; n = {n}",
                    # discrete scores (ties) make permutation tests conservative
                    "at-most"
                    if method == "sign"
                    or dist == "cauchy"
                    or (dist == "judge" and method == "permutation")
                    else "two-sided",
                    2000 if resampling else 4000,
                    _paired_size(method, dist, n),
                )
    # paired binary
    for method, test in (("auto", "exact McNemar"), ("bootstrap", "null-shifted bootstrap")):
        for p, rho in ((0.5, 0.0), (0.8, 0.5)):
            for n in ns:
                add(
                    f"paired-binary/{method}/p={p}/rho={rho}/n={n}",
                    "paired, binary",
                    f"compare_paired(method={method!r}): {test}",
                    f"P(A) = P(B) = {p}, latent correlation {rho}; n = {n}",
                    "at-most" if method == "auto" else "two-sided",
                    2000 if method == "bootstrap" else 4000,
                    _paired_binary_size(method, p, rho, n),
                )
    # unpaired continuous
    for method, test in _UNPAIRED_METHODS.items():
        for dist in ("normal", "lognormal", "t3", "cauchy", "judge", "behrens", "skewmix"):
            for n in ns:
                if (
                    method != "auto"
                    and n == 1000
                    and dist not in ("normal", "lognormal", "behrens")
                ):
                    continue  # resampling one system at a time is slow at n = 1000
                if dist == "behrens":
                    label = "A ~ N(0, 2²) with n items, B ~ N(0, 1) with 3n (equal means)"
                elif dist == "skewmix":
                    label = "A centred lognormal, B normal, same mean and variance"
                else:
                    label = f"A, B i.i.d.: {DISTRIBUTIONS[dist]}"
                add(
                    f"unpaired-continuous/{method}/{dist}/n={n}",
                    "unpaired, continuous",
                    f"compare_unpaired(method={method!r}): {test}",
                    f"{label}; n = {n}",
                    # discrete scores (ties) make permutation tests conservative
                    "at-most"
                    if dist == "cauchy" or (dist == "judge" and method == "permutation")
                    else "two-sided",
                    4000 if method == "auto" else 2000,
                    _unpaired_size(method, dist, n),
                )
    # unpaired binary
    for method, test, kind in (
        ("auto", "two-proportion z (pooled)", "two-sided"),
        ("permutation", "exact label shuffle (hypergeometric)", "at-most"),
        ("bootstrap", "null-shifted bootstrap", "two-sided"),
    ):
        for p in (0.5, 0.9):
            for n in ns:
                add(
                    f"unpaired-binary/{method}/p={p}/n={n}",
                    "unpaired, binary",
                    f"compare_unpaired(method={method!r}): {test}",
                    f"P(A) = P(B) = {p}; n = {n} each",
                    kind,
                    2000 if method == "bootstrap" else 4000,
                    _unpaired_binary_size(method, p, n),
                )
    # one-sided alternatives (the ordered ranking tests first-vs-rest and successive
    # pairs right-tailed)
    for n in (30, 100):
        for method, test in (("auto", "paired t"), ("permutation", "sign-flip permutation")):
            add(
                f"one-sided/paired-continuous/{method}/t3/n={n}",
                "one-sided (greater)",
                f"compare_paired(method={method!r}, alternative='greater'): {test}",
                f"A, B i.i.d. given the item: {DISTRIBUTIONS['t3']}; n = {n}",
                "two-sided",
                4000 if method == "auto" else 2000,
                _paired_size(method, "t3", n, "greater"),
            )
        add(
            f"one-sided/paired-binary/auto/n={n}",
            "one-sided (greater)",
            "compare_paired(alternative='greater'): exact McNemar",
            f"P(A) = P(B) = 0.7, latent correlation 0.5; n = {n}",
            "at-most",
            4000,
            _paired_binary_size("auto", 0.7, 0.5, n, "greater"),
        )
        add(
            f"one-sided/unpaired-continuous/auto/lognormal/n={n}",
            "one-sided (greater)",
            "compare_unpaired(alternative='greater'): Welch t",
            f"A, B i.i.d.: {DISTRIBUTIONS['lognormal']}; n = {n}",
            "two-sided",
            4000,
            _unpaired_size("auto", "lognormal", n, "greater"),
        )
        add(
            f"one-sided/unpaired-binary/auto/n={n}",
            "one-sided (greater)",
            "compare_unpaired(alternative='greater'): two-proportion z",
            f"P(A) = P(B) = 0.5; n = {n} each",
            "two-sided",
            4000,
            _unpaired_binary_size("auto", 0.5, n, "greater"),
        )
    # non-inferiority at the margin (issue 20): the true difference is exactly −δ
    for design, test, ns_m, reps in (
        ("paired-binary", "Tango/Nam score test", (100, 400), 2000),
        ("unpaired-binary", "Farrington-Manning score test", (100, 400), 1000),
        ("paired-continuous", "paired t shifted by δ", (30, 100), 4000),
        ("unpaired-continuous", "Welch t shifted by δ", (30, 100), 4000),
    ):
        delta = MARGIN_BINARY if design.endswith("binary") else MARGIN_CONTINUOUS
        for n in ns_m:
            add(
                f"margin/{design}/n={n}",
                "non-inferiority at the margin (one-sided)",
                f"margin_{design.split('-')[0]}(margin={delta}): {test}",
                f"candidate − baseline = −δ = −{delta} exactly; n = {n}"
                + (" each" if design.startswith("unpaired") else ""),
                "two-sided",
                reps,
                _margin_size(design, n),
            )
    # skewed differences with rare large losses (issue 30): where a unit's differences
    # are heavily skewed a test rejects only if the studentized bootstrap rejects too
    for dist, label in SKEWED_DIFFERENCES.items():
        for n in (30, 100, 200):
            add(
                f"margin/paired-continuous/{dist}/n={n}",
                "non-inferiority at the margin (one-sided)",
                f"margin_paired(margin={MARGIN_CONTINUOUS}): paired t, and studentized "
                "bootstrap where skewed",
                f"candidate − baseline = −δ + {label}; n = {n}",
                "two-sided",
                2000,
                _skewed_margin_size(dist, n),
            )
            add(
                f"paired-continuous/auto/{dist}/n={n}",
                "paired, continuous",
                "compare_paired(method='auto'): paired t, and studentized bootstrap where skewed",
                f"A − B = {label}; n = {n}",
                "two-sided",
                2000,
                _skewed_paired_size(dist, n),
            )
    # the release's non-inferiority gate: an intersection-union test at α/2 (issue 30)
    for n in (30, 100, 200):
        out.append(
            Scenario(
                f"size/gate/non-inferiority/paired-continuous/n={n}",
                "size",
                "non-inferiority at the margin (one-sided)",
                "the release gate --gate non-inferiority (every unit improved or "
                "non-inferior; intersection-union test, unadjusted)",
                f"4 units: one at candidate − baseline = −δ = −{MARGIN_CONTINUOUS} exactly, "
                f"three at +{4 * MARGIN_CONTINUOUS:g}; n = {n} each; nominal false-pass rate α/2",
                ALPHA / 2,
                "two-sided",
                2000,
                _gate_false_pass(n),
            )
        )
    for n in (30, 100):
        add(
            f"margin/equivalence/paired-continuous/n={n}",
            "non-inferiority at the margin (one-sided)",
            f"margin_paired(margin={MARGIN_CONTINUOUS}): TOST (two shifted paired t)",
            f"candidate − baseline = +δ = {MARGIN_CONTINUOUS} exactly; n = {n}",
            # the TOST p is the larger of two one-sided p: at most α at the boundary
            "at-most",
            4000,
            _margin_size("paired-continuous", n, "equivalence"),
        )
    # corpus metric: approximate randomization
    for n in (30, 100, 1000):
        add(
            f"corpus/approximate-randomization/f1-macro/n={n}",
            "corpus metric (F1)",
            "corpus_compare_paired('f1-macro'): approximate randomization",
            f"two classifiers i.i.d. given the label (prevalence {CORPUS_PREVALENCE}, "
            f"sensitivity {CORPUS_SENS}, specificity {CORPUS_SPEC}); n = {n}",
            # a randomization test: exact, or conservative when the discrete metric ties
            "at-most",
            2000,
            _corpus_size(n),
        )
    # repeated runs: do runs differ?
    for binary, name in ((True, "Cochran's Q"), (False, "Friedman")):
        for n in (10, 30, 100):
            add(
                f"runs-differ/{'binary' if binary else 'continuous'}/n={n}",
                "repeated runs",
                f"runs_differ_test: {name} (χ² approximation)",
                "5 exchangeable runs, item effects "
                f"({'Beta(2, 2) success rates' if binary else 'normal, ICC 0.5'}); n = {n}",
                "two-sided",
                4000,
                _runs_differ_size(binary, n),
            )
    # across lists
    for lists in (5, 10, 22):
        add(
            f"sign-test-wins/K={lists}",
            "across lists",
            "sign_test_wins (exact binomial)",
            f"A wins each of K = {lists} lists with probability 1/2",
            "at-most",
            20000,
            _sign_wins_size(lists),
        )
    for blocks in (5, 20):
        for what, name in (
            ("chi2", "Friedman χ²"),
            ("iman-davenport", "Iman-Davenport F"),
            ("nemenyi", "Nemenyi, any of the 10 pairs (FWER)"),
        ):
            add(
                f"friedman/{what}/k=5/N={blocks}",
                "across lists",
                f"friedman_nemenyi: {name}",
                f"5 exchangeable systems, N = {blocks} blocks (block effects)",
                "at-most" if what == "nemenyi" else "two-sided",
                1500,
                _friedman_size(5, blocks, what),
            )
    return out


def _equicorrelated_z(reps: int, m: int, rho: float, rng: np.random.Generator) -> np.ndarray:
    common = rng.standard_normal((reps, 1))
    return math.sqrt(rho) * common + math.sqrt(1 - rho) * rng.standard_normal((reps, m))


def _two_sided_p(z: np.ndarray) -> np.ndarray:
    return 2 * special.ndtr(-np.abs(z))


def _fwer(
    correction: str, m: int, rho: float, m1: int = 0, effect: float = 3.0
) -> Callable[[int, np.random.Generator], Estimate]:
    """FWER among the m − m1 true nulls of two-sided z tests, equicorrelated."""

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        z = _equicorrelated_z(reps, m, rho, rng)
        z[:, :m1] += effect
        p = _two_sided_p(z)
        hits = 0
        for row in p:
            adjusted = adjust_pvalues(row, method=correction)
            hits += int(np.any(adjusted[m1:] <= ALPHA))
        return _rate(hits, reps)

    return simulate


def _fwer_all_pairs(
    correction: str, systems: int, n: int
) -> Callable[[int, np.random.Generator], Estimate]:
    """End to end: all pairs of identical paired systems, paired t, then the correction."""

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        hits = 0
        with _Silent():
            for _ in range(reps):
                X = rng.standard_normal((n, 1)) + rng.standard_normal((n, systems))
                r = compare_paired(X, correction=correction)
                hits += int(np.any(r.p_adjusted <= ALPHA))
        return _rate(hits, reps)

    return simulate


def _fwer_scenarios() -> list[Scenario]:
    out = []
    names = {
        "holm-sidak": "Holm-Šidák (default)",
        "holm": "Holm",
        "bonferroni": "Bonferroni",
        "sidak": "Šidák",
    }
    for corr, name in names.items():
        routine = f"adjust_pvalues(method={corr!r}): {name}"
        for m in (3, 10, 45):
            exact = corr in ("sidak", "holm-sidak")
            out.append(
                Scenario(
                    f"fwer/{corr}/independent/m={m}",
                    "fwer",
                    "global null",
                    routine,
                    f"m = {m} independent two-sided z tests, all nulls true",
                    ALPHA,
                    "two-sided" if exact else "at-most",
                    10000,
                    _fwer(corr, m, 0.0),
                )
            )
        for m in (10, 45):
            out.append(
                Scenario(
                    f"fwer/{corr}/equicorrelated/m={m}",
                    "fwer",
                    "global null",
                    routine,
                    f"m = {m} two-sided z tests, equicorrelated ρ = 0.5, all nulls true",
                    ALPHA,
                    "at-most",
                    10000,
                    _fwer(corr, m, 0.5),
                )
            )
        out.append(
            Scenario(
                f"fwer/{corr}/partial/m=10",
                "fwer",
                "partial null (strong control)",
                routine,
                "m = 10 two-sided z tests, ρ = 0.5, 5 false nulls (shift 3): FWER among the "
                "5 true nulls",
                ALPHA,
                "at-most",
                10000,
                _fwer(corr, 10, 0.5, m1=5),
            )
        )
        out.append(
            Scenario(
                f"fwer/{corr}/all-pairs/k=6",
                "fwer",
                "end to end",
                f"compare_paired(correction={corr!r}): paired t, all 15 pairs",
                "6 identical paired systems (item effects), n = 50",
                ALPHA,
                "at-most",
                4000,
                _fwer_all_pairs(corr, 6, 50),
            )
        )
    return out


def _fdr(
    correction: str, m: int, m1: int, rho: float, effect: float = 2.5
) -> Callable[[int, np.random.Generator], Estimate]:
    """FDR of one-sided z tests (p = Φ(−z)), equicorrelated (PRDS when ρ ≥ 0)."""

    def simulate(reps: int, rng: np.random.Generator) -> Estimate:
        z = _equicorrelated_z(reps, m, rho, rng)
        z[:, :m1] += effect
        p = special.ndtr(-z)
        fdp = np.empty(reps)
        for i, row in enumerate(p):
            rejected = adjust_pvalues(row, method=correction) <= ALPHA
            total = rejected.sum()
            fdp[i] = rejected[m1:].sum() / total if total else 0.0
        if m1 == 0:
            return _rate(int(np.count_nonzero(fdp)), reps)
        return Estimate(float(fdp.mean()), reps, float(fdp.std(ddof=1) / math.sqrt(reps)))

    return simulate


def _fdr_scenarios() -> list[Scenario]:
    out = []
    m = 20
    for corr, name in (("fdr_bh", "Benjamini-Hochberg"), ("fdr_by", "Benjamini-Yekutieli")):
        for rho, dep in ((0.0, "independent"), (0.5, "equicorrelated ρ = 0.5 (PRDS)")):
            for m1 in (0, 5, 10):
                exact = corr == "fdr_bh" and rho == 0.0
                nominal = ALPHA * (m - m1) / m
                out.append(
                    Scenario(
                        f"fdr/{corr}/{'independent' if rho == 0 else 'prds'}/m1={m1}",
                        "fdr",
                        dep,
                        f"adjust_pvalues(method={corr!r}): {name}",
                        f"m = {m} one-sided z tests, {m1} false nulls (shift 2.5); nominal "
                        f"FDR = α·m0/m",
                        nominal,
                        "two-sided" if exact else "at-most",
                        10000,
                        _fdr(corr, m, m1, rho),
                    )
                )
    return out

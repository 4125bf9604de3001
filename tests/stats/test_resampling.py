"""Resampling primitives: the order-free product of integer weights and scores."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reportgen.stats._resampling import (
    bootstrap_counts,
    bootstrap_weighted_sums,
    exact_product,
    random_signs,
)


def _fsum_product(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    # reference: math.fsum, the correctly rounded sum; integer weights as repetitions
    # (|w| copies of ±x), so no product is rounded
    out = np.empty((W.shape[0], X.shape[1]))
    for r in range(W.shape[0]):
        reps = np.abs(W[r]).astype(np.int64)
        signed = np.sign(W[r])[:, None] * X
        for j in range(X.shape[1]):
            out[r, j] = math.fsum(np.repeat(signed[:, j], reps))
    return out


@pytest.mark.parametrize("scale", [1.0, 1e-8, 1e12])
def test_exact_product_against_fsum(scale):
    # two slices hold normal scores exactly; their two exact sums added once give the
    # correctly rounded sum, which is what math.fsum returns
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 4)) * scale
    W = bootstrap_counts(rng, 25, 3000)
    operand = exact_product(X, 3000)
    assert operand.exact and operand.n_slices == 2
    np.testing.assert_array_equal(operand.weighted_sums(W), _fsum_product(W, X))
    S = random_signs(rng, 25, 3000)
    np.testing.assert_array_equal(operand.weighted_sums(S), _fsum_product(S, X))


def test_exact_product_rows_do_not_depend_on_the_chunk():
    # oracle: the same rows in one call; a BLAS sums in an order that depends on the
    # call's shape (OpenBLAS's small-matrix kernel below ~10^6 multiply-adds)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3000, 4))
    W = bootstrap_counts(rng, 999, 3000)
    operand = exact_product(X, 3000)
    whole = operand.weighted_sums(W)
    for rows in (1, 7, 43, 100, 500):
        parts = np.vstack([operand.weighted_sums(W[i : i + rows]) for i in range(0, len(W), rows)])
        np.testing.assert_array_equal(parts, whole)


def test_exact_product_edge_cases():
    # integer scores: one slice, the scores themselves (no extra work)
    X = np.random.default_rng(1).integers(0, 2, size=(50, 3)).astype(float)
    operand = exact_product(X, 50)
    assert operand.n_slices == 1 and operand.parts is X and operand.exact
    # a column of zeros, and a column of full mantissas spread over 250 binary orders:
    # four slices of 51 bits cannot hold it; the dropped rest is below 2^-200 of the
    # column's largest value
    spread = (1 + 2.0**-52) * 2.0 ** -np.arange(0, 250, 50)
    Y = np.column_stack([np.zeros(5), spread])
    operand = exact_product(Y, 5)
    assert operand.n_slices == 4 and not operand.exact
    sums = operand.weighted_sums(np.ones((1, 5)))
    assert sums[0, 0] == 0.0 and sums[0, 1] == pytest.approx(spread.sum(), rel=1e-15)
    # NaN cannot be split: the plain product, marked not exact
    Z = np.array([[1.0, np.nan], [0.5, 2.0]])
    operand = exact_product(Z, 2)
    assert not operand.exact and operand.n_slices == 1
    assert np.isnan(operand.weighted_sums(np.ones((1, 2)))[0, 1])


def _binary_scores(rng, n, k):
    return (rng.random((n, k)) < np.linspace(0.3, 0.9, k)).astype(float)


@pytest.mark.parametrize(
    "scores",
    [
        lambda rng: _binary_scores(rng, 14_042, 9),  # MMLU-9's shape: 512 rows at most
        lambda rng: _binary_scores(rng, 400, 3),
        lambda rng: rng.integers(0, 5, size=(3000, 4)).astype(float),  # Likert-like counts
        lambda rng: np.column_stack([_binary_scores(rng, 200, 2), np.full(200, 7.0)]),
        lambda rng: rng.normal(size=(500, 3)),  # no distinct rows: the plain product
        lambda rng: _binary_scores(rng, 60, 12),  # more rows than a quarter of the items
    ],
)
@pytest.mark.parametrize("rows", [1, 37, 1000])
def test_bootstrap_weighted_sums_against_the_product_of_bootstrap_counts(scores, rows):
    # reference: product.weighted_sums(bootstrap_counts(rng, rows, n)), the counts of
    # every item made in one call from the same seed: equal bits
    X = scores(np.random.default_rng(11))
    product = exact_product(X, len(X))
    ours = bootstrap_weighted_sums(np.random.default_rng(5), rows, product)
    ref = product.weighted_sums(bootstrap_counts(np.random.default_rng(5), rows, len(X)))
    np.testing.assert_array_equal(ours, ref)
    # and the generator is left where bootstrap_counts leaves it
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    bootstrap_weighted_sums(a, rows, product)
    bootstrap_counts(b, rows, len(X))
    assert a.integers(0, 2**62) == b.integers(0, 2**62)


def test_bootstrap_weighted_sums_uses_distinct_rows_only_where_they_are_few():
    rng = np.random.default_rng(12)
    binary = exact_product(_binary_scores(rng, 1000, 5), 1000)
    assert binary.distinct_rows is not None
    patterns, row_of_item = binary.distinct_rows
    assert patterns.shape[0] <= 32
    np.testing.assert_array_equal(patterns.parts[row_of_item], binary.parts)
    assert exact_product(rng.normal(size=(1000, 2)), 1000).distinct_rows is None
    assert exact_product(_binary_scores(rng, 40, 12), 40).distinct_rows is None

"""Competition ranks (``reportgen.stats._rank_common._min_ranks``), which the rank
distributions and the simultaneous rank intervals count, against scipy's rankdata."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from reportgen.stats._rank_common import _min_ranks, average_ranks


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_min_ranks_against_scipy_rankdata(direction):
    # scipy: rankdata(key, method="min", axis=-1) with key = -values for "higher";
    # rows with many ties (few distinct values), ±inf and signed zeros, 1-D and 2-D
    rng = np.random.default_rng(7)
    values = rng.integers(0, 6, size=(2_000, 17)).astype(float)
    values[::7, 3] = np.inf
    values[::11, 5] = -np.inf
    values[::13, 0] = -0.0
    values[1::2] = rng.normal(size=(1_000, 17))
    key = -values if direction == "higher" else values
    expected = stats.rankdata(key, method="min", axis=-1).astype(np.int64)
    ranks = _min_ranks(values, direction)
    assert ranks.dtype == np.int64
    np.testing.assert_array_equal(ranks, expected)
    np.testing.assert_array_equal(_min_ranks(values[4], direction), expected[4])


def test_min_ranks_edge_cases():
    # one system, all tied, and a batch of rows of two systems (closed form)
    assert _min_ranks(np.array([0.3]), "higher").tolist() == [1]
    assert _min_ranks(np.full(4, 0.5), "lower").tolist() == [1, 1, 1, 1]
    rows = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]])
    assert _min_ranks(rows, "higher").tolist() == [[2, 1], [1, 2], [1, 1]]


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_average_ranks_against_scipy_rankdata(axis):
    # scipy: rankdata(values, axis=axis) (method "average"): the same values, ties
    # sharing the mean of their positions (Friedman's test, Cochran's Q by runs)
    rng = np.random.default_rng(8)
    values = rng.integers(0, 4, size=(300, 9)).astype(float)
    values[::5] = rng.normal(size=(60, 9))
    values[::17, 2] = np.inf
    np.testing.assert_array_equal(
        average_ranks(values, axis=axis), stats.rankdata(values, axis=axis)
    )
    np.testing.assert_array_equal(average_ranks(values[3]), stats.rankdata(values[3]))

"""Multiplicity corrections against statsmodels.stats.multitest.multipletests."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from reportgen.errors import InputError
from reportgen.stats.multiplicity import CORRECTIONS, adjust_pvalues

# our name -> statsmodels' method name
STATSMODELS = {
    "holm-sidak": "holm-sidak",
    "holm": "holm",
    "bonferroni": "bonferroni",
    "sidak": "sidak",
    "fdr_bh": "fdr_bh",
    "fdr_by": "fdr_by",
}


@pytest.mark.parametrize("method", list(STATSMODELS))
def test_adjust_pvalues_against_statsmodels_multipletests(method):
    rng = np.random.default_rng(0)
    for trial in range(120):
        m = int(rng.integers(1, 60))
        p = rng.random(m) ** rng.uniform(0.3, 5)
        if trial % 4 == 0:  # ties and exact 0/1 values
            p[rng.integers(0, m, 3)] = p[0]
            p[rng.integers(0, m)] = 1.0
        # statsmodels: multipletests(p, method=method)[1]
        expected = multipletests(p, method=STATSMODELS[method])[1]
        np.testing.assert_allclose(
            adjust_pvalues(p, method=method), expected, rtol=1e-12, atol=1e-15
        )


def test_adjust_pvalues_none_and_nan():
    p = np.array([0.01, np.nan, 0.04])
    np.testing.assert_array_equal(adjust_pvalues(p, method="none"), p)
    # NaN entries do not count in the family: Holm over the 2 finite values
    out = adjust_pvalues(p, method="holm")
    assert np.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2]], multipletests([0.01, 0.04], method="holm")[1])


def test_adjust_pvalues_published_example():
    # seed 001 §4: Holm is step-down with running maximum; a hand-checked family
    np.testing.assert_allclose(
        adjust_pvalues(np.array([0.01, 0.04, 0.03]), method="holm"), [0.03, 0.06, 0.06]
    )


def test_adjust_pvalues_input_validation():
    with pytest.raises(InputError, match=r"(?s)unknown correction 'holmes'.*holm-sidak"):
        adjust_pvalues(np.array([0.1]), method="holmes")
    with pytest.raises(InputError, match=r"p-values must lie in \[0, 1\]"):
        adjust_pvalues(np.array([0.1, 1.5]))
    with pytest.raises(InputError, match="one-dimensional"):
        adjust_pvalues(np.ones((2, 2)))
    assert set(CORRECTIONS) == set(STATSMODELS) | {"none"}

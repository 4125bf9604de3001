"""The distribution functions over scipy.special (``reportgen.stats._dist``), against the
``scipy.stats`` method each stands for, over the ranges reportgen uses and at the edges.

The reference is ``scipy.stats`` itself (the objects the common path no longer imports):
1e-12 relative (equal bits where both evaluate the same special function; the binomial
differs in its last bits, as ``scipy.stats.binom`` evaluates the incomplete beta function
with more internal precision). Values below 1e-290 are compared absolutely (at 1e-300):
there a relative comparison measures the last bits of a subnormal number.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from reportgen.stats import _dist

RTOL = 1e-12
ATOL = 1e-300


def _close(ours, ref, rtol=RTOL):
    ours, ref = np.asarray(ours, dtype=float), np.asarray(ref, dtype=float)
    assert ours.shape == ref.shape
    assert np.array_equal(np.isnan(ours), np.isnan(ref))
    ok = ~np.isnan(ref)
    np.testing.assert_allclose(ours[ok], ref[ok], rtol=rtol, atol=ATOL)


def _grid(rng, size):
    return np.concatenate([rng.normal(0, 3, size), rng.uniform(-40, 40, size)])


def _probabilities(rng, size):
    tiny = 10.0 ** -rng.uniform(0, 300, size)
    return np.concatenate([rng.uniform(0, 1, size), tiny, 1 - tiny[:50], [0.0, 1.0, 0.5]])


def test_norm_functions_against_scipy_stats_norm():
    # scipy.stats.norm.cdf / sf / pdf on x, ppf / isf on q: the same bits
    rng = np.random.default_rng(1)
    x = np.concatenate([_grid(rng, 20_000), [-np.inf, np.inf, 0.0, np.nan]])
    q = np.concatenate([_probabilities(rng, 20_000), [-0.1, 1.1, np.nan]])
    _close(_dist.norm_cdf(x), stats.norm.cdf(x))
    _close(_dist.norm_sf(x), stats.norm.sf(x))
    _close(_dist.norm_pdf(x), stats.norm.pdf(x))
    _close(_dist.norm_ppf(q), stats.norm.ppf(q))
    _close(_dist.norm_isf(q), stats.norm.isf(q))


def test_t_functions_against_scipy_stats_t():
    # scipy.stats.t.cdf / sf / ppf / isf: df from 1 to 10^6 (Welch's df are not whole
    # numbers), infinite df (the normal); the same bits
    rng = np.random.default_rng(2)
    size = 20_000
    df = np.concatenate([10.0 ** rng.uniform(0, 6, size), rng.integers(1, 60, size)])
    x = _grid(rng, size)
    q = _probabilities(rng, size)[: 2 * size]
    q = np.resize(q, 2 * size)
    _close(_dist.t_cdf(x, df), stats.t.cdf(x, df))
    _close(_dist.t_sf(x, df), stats.t.sf(x, df))
    _close(_dist.t_ppf(q, df), stats.t.ppf(q, df))
    _close(_dist.t_isf(q, df), stats.t.isf(q, df))
    for d in (np.inf, 1.0, 0.5):
        edge = np.array([-np.inf, -3.0, 0.0, 2.5, np.inf, np.nan])
        _close(_dist.t_cdf(edge, d), stats.t.cdf(edge, d))
        _close(_dist.t_sf(edge, d), stats.t.sf(edge, d))
    ends = np.array([0.0, 1.0, 0.025, np.nan])
    _close(_dist.t_isf(ends, 7), stats.t.isf(ends, 7))
    _close(_dist.t_ppf(ends, 7), stats.t.ppf(ends, 7))


@pytest.mark.parametrize("p", [0.5])
def test_binom_functions_against_scipy_stats_binom(p):
    # scipy.stats.binom.cdf / sf at p = 1/2 (the sign and McNemar tests, the noise
    # profile's sign test, the sign test over lists): every k of n up to 40, and n up to
    # 60,000 (twice the items of MMLU) at random k; 1e-12 relative
    small = [(k, n) for n in range(41) for k in range(-2, n + 3)]
    k_small, n_small = (np.array(v, dtype=float) for v in zip(*small))
    rng = np.random.default_rng(3)
    n_big = rng.integers(41, 60_000, 100_000).astype(float)
    k_big = np.floor(rng.uniform(-0.01, 1.01, n_big.size) * n_big)
    k = np.concatenate([k_small, k_big, k_big + 0.5, [np.nan, 3.0]])
    n = np.concatenate([n_small, n_big, n_big, [10.0, np.nan]])
    _close(_dist.binom_cdf(k, n, p), stats.binom.cdf(k, n, p))
    _close(_dist.binom_sf(k, n, p), stats.binom.sf(k, n, p))
    # shapes: scalars stay scalars, broadcasting as scipy's
    assert np.ndim(_dist.binom_cdf(2, 10, p)) == 0
    assert _dist.binom_cdf(np.arange(3), 10, p).shape == (3,)


@pytest.mark.parametrize("p", [0.01, 0.3, 0.77, 0.999])
def test_binom_functions_against_scipy_stats_binom_any_p(p):
    # scipy.stats.binom at other p (no caller uses it today): 1e-11 relative, the
    # difference of the two incomplete beta evaluations
    rng = np.random.default_rng(4)
    n = rng.integers(0, 30_000, 50_000).astype(float)
    k = np.floor(rng.uniform(0, 1, n.size) * (n + 1))
    _close(_dist.binom_cdf(k, n, p), stats.binom.cdf(k, n, p), rtol=1e-11)
    _close(_dist.binom_sf(k, n, p), stats.binom.sf(k, n, p), rtol=1e-11)


def test_chi2_and_f_sf_against_scipy_stats():
    # scipy.stats.chi2.sf (Friedman's and Cochran's statistics), scipy.stats.f.sf
    # (Iman-Davenport): the same bits, including x <= 0
    rng = np.random.default_rng(5)
    size = 20_000
    df = 10.0 ** rng.uniform(0, 3, size)
    x = np.concatenate([rng.uniform(0, 50, size // 2), 10.0 ** rng.uniform(-3, 4, size // 2)])
    x[:10] = [0.0, -1.0, np.inf, np.nan, 1e-300, 0, 0, 0, 0, 0]
    _close(_dist.chi2_sf(x, df), stats.chi2.sf(x, df))
    dfd = 10.0 ** rng.uniform(0, 4, size)
    _close(_dist.f_sf(x, df, dfd), stats.f.sf(x, df, dfd))


def test_beta_ppf_against_scipy_stats_beta():
    # scipy.stats.beta.ppf: the Clopper-Pearson limits' shapes (k, n - k + 1) for n up
    # to 100,000, and any shapes, at probabilities down to 1e-10 (the limits' (1 - c)/2;
    # below about 1e-170 scipy.special's inversion gives NaN where scipy.stats' does not)
    rng = np.random.default_rng(6)
    n = rng.integers(1, 100_000, 20_000).astype(float)
    k = np.floor(rng.uniform(0, 1, n.size) * n) + 1
    q = np.concatenate([rng.uniform(0, 1, 10_000), 10.0 ** -rng.uniform(0, 10, 10_000)])
    _close(_dist.beta_ppf(q, k, n - k + 1), stats.beta.ppf(q, k, n - k + 1))
    a, b = 10.0 ** rng.uniform(-2, 4, (2, 20_000))
    _close(_dist.beta_ppf(q, a, b), stats.beta.ppf(q, a, b))
    ends = np.array([0.0, 1.0, np.nan])
    _close(_dist.beta_ppf(ends, 3, 4), stats.beta.ppf(ends, 3, 4))


def test_landau_sf_against_scipy_stats_landau():
    # scipy.stats.landau.sf(x, loc, scale) at the harmonic mean p-value's locations
    # (log L + 1 + psi(1) - log(2/pi) for L up to 10^7) and scale pi/2, x over the range
    # of w_R / HMP; the same bits
    rng = np.random.default_rng(8)
    x = np.concatenate([10.0 ** rng.uniform(-3, 7, 20_000), rng.normal(0, 5, 2_000), [np.nan]])
    for L in (2, 36, 14_365, 10**7):
        loc = np.log(L) + 1 - np.euler_gamma - np.log(2 / np.pi)
        _close(_dist.landau_sf(x, loc, np.pi / 2), stats.landau.sf(x, loc=loc, scale=np.pi / 2))


@pytest.mark.parametrize("k", [2, 3, 5, 13, 37, 170, 1000])
def test_studentized_range_against_scipy_stats_studentized_range(k):
    # scipy: stats.studentized_range.cdf / sf / ppf(..., k, numpy.inf) (adaptive
    # quadrature): 1e-12 absolute for the CDF and SF (scipy's SF is 1 - CDF too),
    # 1e-12 relative for the quantiles Nemenyi's test and the rank intervals use
    q = np.concatenate([np.linspace(0.01, 9, 60), [0.0, -1.0, np.inf, np.nan]])
    np.testing.assert_allclose(
        _dist.studentized_range_cdf(q, k), stats.studentized_range.cdf(q, k, np.inf), atol=1e-12
    )
    np.testing.assert_allclose(
        _dist.studentized_range_sf(q, k), stats.studentized_range.sf(q, k, np.inf), atol=1e-12
    )
    for p in (0.5, 0.9, 0.95, 0.99):
        assert _dist.studentized_range_ppf(p, k) == pytest.approx(
            float(stats.studentized_range.ppf(p, k, np.inf)), rel=1e-12
        )


def test_studentized_range_of_two_against_closed_form():
    # closed form: the range of two standard normals is sqrt(2) |N(0, 1)|, so
    # P(R <= q) = 2 Phi(q / sqrt(2)) - 1 and the p quantile is sqrt(2) Phi^-1((1 + p)/2)
    q = np.linspace(0.001, 10, 200)
    np.testing.assert_allclose(
        _dist.studentized_range_cdf(q, 2), 2 * stats.norm.cdf(q / np.sqrt(2)) - 1, atol=1e-15
    )
    for p in (0.5, 0.95, 0.99):
        assert _dist.studentized_range_ppf(p, 2) == pytest.approx(
            np.sqrt(2) * stats.norm.ppf((1 + p) / 2), rel=1e-14
        )

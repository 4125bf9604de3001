"""Monte Carlo power of the exact McNemar test with correlated systems: samples of a paired
binary design and the simulated rejection rate.

Private to :mod:`reportgen.stats.power`, which re-exports the public names."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from reportgen.errors import InputError
from reportgen.stats._power_design import (
    _FEASIBILITY_TOL,
    PowerAlternative,
    PowerDesign,
    _delta_iv,
    _discordant,
    paired_binary_cells,
)
from reportgen.stats._power_design import (
    DESIGNS as DESIGNS,
)
from reportgen.stats._power_design import (
    METHODS as METHODS,
)
from reportgen.stats._power_design import (
    correlation_bounds as correlation_bounds,
)
from reportgen.stats._power_results import (
    PowerResult,
    _result,
)
from reportgen.stats._power_tests import (
    _mcnemar_critical as _mcnemar_critical,
)
from reportgen.stats._power_tests import (
    _mcnemar_exact_power as _mcnemar_exact_power,
)
from reportgen.stats._resampling import DEFAULT_MAX_MEMORY, chunk_sizes
from reportgen.stats.pairwise import binomial_pvalue


def sample_paired_binary(
    n: int,
    p_a: float,
    p_b: float,
    *,
    correlation: float,
    size: int,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """Counts of the four cells of ``size`` simulated paired binary samples.

    Each sample has ``n`` items, independent, with
    :math:`P(A=1) = p_a`, :math:`P(B=1) = p_b` and phi correlation ``correlation``
    between A and B on an item (cells by :func:`paired_binary_cells`). The counts of an
    item-level sample are its sufficient statistic, so a sample is one multinomial draw.

    Returns
    -------
    numpy.ndarray
        ``(size, 4)`` int64 counts of the cells ``(11, 10, 01, 00)``: both right, only
        A, only B, both wrong.

    References
    ----------
    .. [1] Prentice, R. L. (1988). Correlated binary regression with covariates specific to each
           binary observation. Biometrics 44(4), 1033-1048 (the range of the correlation).

    Examples
    --------
    >>> sample_paired_binary(100, 0.7, 0.6, correlation=0.5, size=2, rng=0).sum(axis=1)
    array([100, 100])
    """
    n = _count_iv("n", n, 1)
    size = _count_iv("size", size, 1)
    cells = np.array(paired_binary_cells(p_a, p_b, correlation=correlation))
    cells = np.clip(cells, 0, None)
    cells /= cells.sum()
    return np.random.default_rng(rng).multinomial(n, cells, size=size).astype(np.int64)


def _count_iv(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name}={value!r} must be an integer >= {minimum}")
    return int(value)


def simulate_paired_binary_power(
    n: int,
    delta: float,
    *,
    baseline: float,
    correlation: float | None = None,
    discordance: float | None = None,
    alpha: float = 0.05,
    alternative: PowerAlternative = "two-sided",
    n_simulations: int = 10_000,
    rng: np.random.Generator | int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
) -> PowerResult:
    """Monte Carlo power of the exact McNemar test for correlated systems.

    Parameters
    ----------
    n
        Items per simulated evaluation.
    delta
        ``p_a − p_b``; :math:`p_b` = ``baseline``, :math:`p_a = p_b + \\delta`.
    baseline
        Accuracy of system B.
    correlation, discordance
        Exactly one: the phi correlation of the systems' correctness (the marginals stay
        :math:`p_a, p_b`), or the discordance rate.
    alpha, alternative
        The test.
    n_simulations
        Simulated evaluations.
    rng
        ``numpy.random.Generator`` or seed.
    max_memory
        Bound on the working memory (bytes); the trials are drawn in chunks.

    Returns
    -------
    PowerResult
        ``method="simulation (exact McNemar)"``, ``power`` the share of trials that
        reject, ``mc_se`` :math:`\\sqrt{\\hat\\pi(1-\\hat\\pi)/S}`.

    Notes
    -----
    Each trial is one multinomial draw of the four cell counts
    (:func:`sample_paired_binary`); all trials are drawn at once (per chunk) and tested
    with the engine's exact McNemar p-value
    (:func:`~reportgen.stats.pairwise.binomial_pvalue`). Its expectation is the
    ``method="exact"`` power of :func:`power_at` at the implied ``p10, p01``; the
    simulation is the check of that formula and the route Chandrabhas (evalci), §3.5 describes for
    correlated systems.

    References
    ----------
    .. [1] McNemar, Q. (1947). Note on the sampling error of the difference between correlated
           proportions or percentages. Psychometrika 12(2), 153-157.
    .. [2] Chandrabhas, S. K. evalci: a Python library for statistically rigorous comparison of
           language model evaluations, §3.5. https://doi.org/10.5281/zenodo.21201815

    Examples
    --------
    >>> r = simulate_paired_binary_power(300, 0.05, baseline=0.6, correlation=0.5,
    ...                                  n_simulations=2000, rng=1)
    >>> r.n_simulations, r.mc_se < 0.012
    (2000, True)

    Within Monte Carlo error of the exact power at the same cells:

    >>> from reportgen.stats.power import power_at
    >>> exact = power_at(300, 0.05, design="paired-binary", baseline=0.6, correlation=0.5)
    >>> exact.method, bool(abs(r.power - exact.power) < 3 * r.mc_se)
    ('exact', True)
    """
    spec = PowerDesign(
        "paired-binary",
        "exact",
        alternative,
        alpha,
        baseline=baseline,
        discordance=discordance,
        correlation=correlation,
    )
    if spec.baseline is None:
        raise InputError("baseline= is required for the simulation")
    n = _count_iv("n", n, 2)
    n_simulations = _count_iv("n_simulations", n_simulations, 1)
    d = float(_delta_iv(delta))
    p10, p01 = (float(x) for x in _discordant(np.float64(d), spec))
    p_a = spec.baseline + d
    if not -_FEASIBILITY_TOL <= p_a <= 1 + _FEASIBILITY_TOL:
        raise InputError(
            f"delta={d!r} with baseline={spec.baseline!r} gives an accuracy of A outside [0, 1]"
        )
    p11 = max(0.0, p_a - p10)
    cells = np.clip(np.array([p11, p10, p01, 1 - p11 - p10 - p01]), 0, None)
    cells /= cells.sum()
    gen = np.random.default_rng(rng)
    rejected = 0
    for size in chunk_sizes(n_simulations, 64, max_memory):
        counts = gen.multinomial(n, cells, size=size)
        k, m = counts[:, 1], counts[:, 1] + counts[:, 2]
        rejected += int(np.count_nonzero(binomial_pvalue(k, m, spec.alternative) <= spec.alpha))
    est = rejected / n_simulations
    se = math.sqrt(est * (1 - est) / n_simulations)
    return _result(
        spec,
        float(n),
        d,
        est,
        "power",
        method="simulation (exact McNemar)",
        mc_se=se,
        n_simulations=n_simulations,
    )

"""The records, the Monte Carlo bounds and the simulated data shared by the calibration
scenarios of ``tools/validation.py``."""

from __future__ import annotations

import fnmatch
import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy import special, stats

#: Significance level of every test and 1 − level of every interval.
ALPHA = 0.05
CONFIDENCE = 0.95
#: Level of the Monte Carlo bounds.
BOUND_LEVEL = 0.99
#: Default master seed.
SEED = 20260
#: Resamples of permutation and bootstrap tests (a Monte Carlo p-value (k+1)/(R+1) is
#: valid for any R; more resamples only add power).
TEST_RESAMPLES = 999
#: Bootstrap resamples of intervals (their tail quantiles need more).
INTERVAL_RESAMPLES = 1999
#: Pairs (or columns) per call of a resampling routine.
RESAMPLING_BLOCK = 50
#: The --quick run uses the replications divided by this.
QUICK_DIVISOR = 5
#: The simulated classifiers of the corpus-level (F1) rows: prevalence of the positive
#: class, sensitivity and specificity.
CORPUS_PREVALENCE, CORPUS_SENS, CORPUS_SPEC = 0.3, 0.7, 0.9
#: Margins of the non-inferiority size rows: for 0/1 scores (a proportion) and for
#: continuous scores (SD 1).
MARGIN_BINARY, MARGIN_CONTINUOUS = 0.05, 0.2

Kind = Literal["two-sided", "at-most", "at-least"]
FAMILIES = ("size", "fwer", "fdr", "coverage", "hmp", "power")
FAMILY_TITLES = {
    "size": "Size of every test under its null (α = 0.05, raw p-values)",
    "fwer": "Family-wise error rate of the FWER corrections",
    "fdr": "False discovery rate of Benjamini-Hochberg and Benjamini-Yekutieli",
    "coverage": "Coverage of every interval (95%)",
    "hmp": "Harmonic-mean p combination: size and family-wise error",
    "power": "Predicted power (reportgen.stats.power) against simulated power",
}


@dataclass(frozen=True)
class Estimate:
    """A simulated rate: ``value`` over ``reps`` replications; ``se`` when the rate is a
    mean of non-binary quantities (false discovery proportions)."""

    value: float
    reps: int
    se: float | None = None


@dataclass(frozen=True)
class Scenario:
    """One row of the validation tables.

    Attributes
    ----------
    key
        Stable identifier, ``family/...``; explanations and tests refer to it.
    family, group
        The table (:data:`FAMILIES`) and the sub-table within it.
    routine
        The reportgen call measured.
    setting
        The simulated data.
    nominal, kind
        The rate a calibrated procedure has, and how it is checked.
    reps
        Replications in the full run.
    simulate
        ``simulate(reps, rng) -> Estimate``.
    """

    key: str
    family: str
    group: str
    routine: str
    setting: str
    nominal: float
    kind: Kind
    reps: int
    simulate: Callable[[int, np.random.Generator], Estimate] = field(repr=False)


@dataclass(frozen=True)
class Explanation:
    """Why rows matching ``pattern`` (fnmatch on the key; ``|`` separates alternatives)
    may lie outside their bounds.

    ``direction`` is the side they are expected to fall on (``"above"`` the upper bound,
    ``"below"`` the lower one, ``"either"`` for the saw-tooth coverage of discrete
    data); a row outside on another side stays unexplained.
    ``warning`` names the report section that should carry a warning, if any.
    """

    pattern: str
    direction: Literal["above", "below", "either"]
    text: str
    warning: str | None = None

    def matches(self, key: str) -> bool:
        return any(fnmatch.fnmatchcase(key, p) for p in self.pattern.split("|"))


@dataclass(frozen=True)
class Row:
    """A scenario's result: the estimate, its bounds and the verdict."""

    scenario: Scenario
    estimate: Estimate
    low: float
    high: float
    seed: int
    seconds: float
    confirmation: Row | None = None
    explanation: Explanation | None = None

    @property
    def inside(self) -> bool:
        return self.low <= self.estimate.value <= self.high

    @property
    def status(self) -> str:
        """``inside``, ``inside (confirmed)``, ``outside, explained`` or ``OUTSIDE``."""
        if self.inside:
            return "inside"
        if self.confirmation is not None and self.confirmation.inside:
            return "inside (confirmed)"
        if self.explanation is not None:
            return "outside, explained"
        return "OUTSIDE"

    @property
    def ok(self) -> bool:
        return self.status != "OUTSIDE"

    @property
    def side(self) -> str | None:
        if self.estimate.value > self.high:
            return "above"
        if self.estimate.value < self.low:
            return "below"
        return None


def mc_bounds(
    nominal: float, reps: int, kind: Kind, se: float | None = None, level: float = BOUND_LEVEL
) -> tuple[float, float]:
    """Monte Carlo bounds of a rate estimated from ``reps`` replications.

    The central ``level`` interval of Binomial(reps, nominal)/reps (or nominal ±
    z·se for non-binary means); ``at-most`` keeps only its upper limit, ``at-least``
    only its lower limit.

    Examples
    --------
    >>> [round(x, 4) for x in mc_bounds(0.05, 2000, "two-sided")]
    [0.038, 0.063]
    """
    tail = (1 - level) / 2
    if se is None:
        low = float(stats.binom.ppf(tail, reps, nominal)) / reps
        high = float(stats.binom.ppf(1 - tail, reps, nominal)) / reps
    else:
        z = float(special.ndtri(1 - tail))
        low, high = nominal - z * se, nominal + z * se
    if kind == "at-most":
        low = 0.0
    elif kind == "at-least":
        high = 1.0
    return low, high


class _Silent:
    """Silence warnings (degenerate data, one-sided tests) and numpy floating-point
    errors inside a simulation loop."""

    def __enter__(self) -> None:
        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore")
        self._err = np.seterr(all="ignore")

    def __exit__(self, *exc: object) -> None:
        np.seterr(**self._err)
        self._ctx.__exit__(*exc)


def _blocks(total: int, size: int) -> Iterable[int]:
    done = 0
    size = max(1, int(size))
    while done < total:
        step = min(size, total - done)
        yield step
        done += step


def _analytic_block(n: int, budget: float = 4e6) -> int:
    """Pairs per call of an analytic routine: about ``budget`` scores per call."""
    return max(1, int(budget // max(1, 2 * n)))


def _rate(hits: int, reps: int) -> Estimate:
    return Estimate(hits / reps, reps)


DISTRIBUTIONS = {
    "normal": "normal",
    "lognormal": "lognormal(0, 1), skewed",
    "exponential": "exponential, skewed",
    "t3": "Student t(3), heavy tails",
    "cauchy": "Cauchy (no mean)",
    "judge": "integer 1–5 (judge-like, ties)",
}


def _errors(dist: str, size: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Errors with mean 0 (Cauchy: median 0), in their natural units."""
    if dist == "normal":
        return rng.standard_normal(size)
    if dist == "lognormal":
        return rng.lognormal(0.0, 1.0, size) - math.exp(0.5)
    if dist == "exponential":
        return rng.exponential(1.0, size) - 1.0
    if dist == "t3":
        return rng.standard_t(3, size)
    if dist == "cauchy":
        return rng.standard_cauchy(size)
    raise ValueError(dist)


def _scores(
    dist: str, base: np.ndarray, size: tuple[int, ...], rng: np.random.Generator
) -> np.ndarray:
    """``base`` (broadcast to ``size``) plus errors; ``judge`` rounds to 1..5."""
    if dist == "judge":
        return np.clip(np.rint(3.0 + base + 0.8 * rng.standard_normal(size)), 1, 5)
    return base + _errors(dist, size, rng)


def _interleave(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Columns a0, b0, a1, b1, ... of two (n, k) matrices."""
    out = np.empty((a.shape[0], 2 * a.shape[1]))
    out[:, 0::2] = a
    out[:, 1::2] = b
    return out


def _paired_continuous(
    dist: str, n: int, pairs: int, rng: np.random.Generator, shift: float = 0.0
) -> np.ndarray:
    """``n × 2·pairs`` paired scores: system A of pair k in column 2k, B in 2k + 1.

    Each pair has its own item effects u ~ N(0, 1) shared by A and B. ``dist`` names
    the errors: exchangeable ones (A and B i.i.d. given the items, so the difference
    is symmetric about ``shift``), or ``skewdiff``: A = u + (lognormal − its mean),
    B = u, a skewed difference with mean ``shift`` whose median is not ``shift``.
    """
    u = rng.standard_normal((n, pairs))
    if dist == "skewdiff":
        a = u + _errors("lognormal", (n, pairs), rng) + shift
        return _interleave(a, u)
    a = _scores(dist, u, (n, pairs), rng) + shift
    b = _scores(dist, u, (n, pairs), rng)
    return _interleave(a, b)


def _latent_binary(
    n: int, pairs: int, p_a: float, p_b: float, rho: float, rng: np.random.Generator
) -> np.ndarray:
    """Paired 0/1 scores from a latent item difficulty: correctness of A and B on an item
    is 1[√ρ z_i + √(1−ρ) e < Φ⁻¹(p)], so P(A = 1) = p_a, P(B = 1) = p_b and the two are
    positively correlated (ρ is the latent correlation)."""
    z = rng.standard_normal((n, pairs))
    ea = rng.standard_normal((n, pairs))
    eb = rng.standard_normal((n, pairs))
    s, t = math.sqrt(rho), math.sqrt(1 - rho)
    a = (s * z + t * ea < special.ndtri(p_a)).astype(np.float64)
    b = (s * z + t * eb < special.ndtri(p_b)).astype(np.float64)
    return _interleave(a, b)


def _even_pairs(values: np.ndarray) -> np.ndarray:
    """The entries of pairs (0, 1), (2, 3), ... of a ``successive`` comparison."""
    return np.asarray(values)[0::2]


def _rejections(p: np.ndarray, alpha: float = ALPHA) -> int:
    return int(np.sum(np.nan_to_num(p, nan=1.0) <= alpha))


def _covered(low: np.ndarray, high: np.ndarray, truth: float | np.ndarray) -> int:
    low, high = np.asarray(low), np.asarray(high)
    return int(np.sum((low <= truth) & (truth <= high)))

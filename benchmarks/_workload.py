"""What a benchmark workload is, and the helpers every workload module shares.

A :class:`Workload` is run by ``bench_compare.py --worker NAME`` in a fresh interpreter:
``setup()`` builds the seeded data (not timed), ``warmup(state)`` runs once (not timed),
then ``run(state)`` is timed ``repeats`` times and ``summarize(state, last_output)``
describes the result (not timed). Workload modules import nothing heavier than the
standard library at module level, so the parent process (which only lists and launches
workloads) stays small: on Linux a child's ``ru_maxrss`` starts from its parent's
resident size at fork/exec.
"""

from __future__ import annotations

import resource
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED_DATA = REPO.parent / "shared" / "data"

#: Significance level of every benchmark comparison.
ALPHA = 0.05
#: 2 GB, the peak-memory target of the large workloads (issue 9).
TARGET_PEAK_MB = 2048.0

Tier = Literal["fast", "report", "reference"]


@dataclass(frozen=True)
class Target:
    """A workload's target: every bound that is set must hold.

    Attributes
    ----------
    seconds
        Median time below this.
    peak_mb
        Peak resident memory of the workload's process below this (MB).
    min_ratio
        At least this many times faster than the reference (checked only when the
        reference ran).
    max_slope
        Fitted log-log slope of a scaling series at most this (``summary["slope"]``).
    """

    seconds: float | None = None
    peak_mb: float | None = None
    min_ratio: float | None = None
    max_slope: float | None = None

    def describe(self) -> str:
        parts = []
        if self.seconds is not None:
            parts.append(f"< {self.seconds:g} s")
        if self.peak_mb is not None:
            parts.append(f"< {self.peak_mb / 1024:g} GB")
        if self.min_ratio is not None:
            parts.append(f">= {self.min_ratio:g}x ref")
        if self.max_slope is not None:
            parts.append(f"slope <= {self.max_slope:g}")
        return ", ".join(parts) or "none"

    def check(self, result: dict[str, Any], ratio: float | None) -> bool:
        """Whether ``result`` (a worker's result) meets every bound that applies."""
        ok = True
        if self.seconds is not None:
            ok &= result["median_s"] < self.seconds
        if self.peak_mb is not None:
            ok &= result["peak_mb"] < self.peak_mb
        if self.min_ratio is not None and ratio is not None:
            ok &= ratio >= self.min_ratio
        if self.max_slope is not None:
            slope = result.get("summary", {}).get("slope")
            ok &= slope is not None and slope <= self.max_slope
        return bool(ok)


@dataclass(frozen=True)
class Workload:
    """One benchmark.

    Attributes
    ----------
    name, description
        Identifier (``--only``) and one line for ``--list`` and the JSON.
    tier
        ``"fast"``: ours, seconds (``--repeats``); ``"report"``: ours, a full
        ``reportgen run`` (``--report-repeats``, one fresh process per repeat);
        ``"reference"``: a plain implementation to compare with (``--ref-repeats``).
        ``--quick`` runs the fast tier only.
    setup, run, summarize, warmup
        See the module docstring.
    reference
        Name of the reference workload whose time the table sets beside this one.
    target
        The target of an ``ours`` workload.
    scale
        Reference only: the factor from the timed part to the whole job (e.g. 105/10
        when 10 of 105 pairs are timed); 1 when the whole job is timed.
    scale_note
        Reference only: how the time was extrapolated, printed and saved with it.
    fresh_process_per_repeat
        Run every repeat in its own interpreter (what a user's CLI run pays).
    max_repeats
        At most this many timed repeats, whatever ``--repeats`` says (long workloads).
    """

    name: str
    tier: Tier
    description: str
    setup: Callable[[], Any]
    run: Callable[[Any], Any]
    summarize: Callable[[Any, Any], dict[str, Any]]
    warmup: Callable[[Any], Any] | None = None
    reference: str | None = None
    target: Target | None = None
    scale: float = 1.0
    scale_note: str = ""
    fresh_process_per_repeat: bool = False
    max_repeats: int | None = None

    @property
    def kind(self) -> str:
        return "reference" if self.tier == "reference" else "ours"


def peak_mb() -> float:
    """Peak resident set size of this process in MB (ru_maxrss is KiB on Linux,
    bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def children_peak_mb() -> float:
    """Largest peak resident set size of the children this process waited for (e.g. the
    notebook kernel of ``reportgen run``), in MB."""
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def version(module: str) -> str | None:
    """Installed version of a distribution, or None."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version(module)
    except PackageNotFoundError:
        return None


def mean_statistic(x: Any, axis: int) -> Any:
    """The mean along ``axis`` (a vectorised statistic for scipy's resampling)."""
    return x.mean(axis=axis)


def scipy_permutation_pvalue(d: Any, seed: int, n_resamples: int) -> float:
    """Two-sided sign-flip permutation p of the mean of ``d`` with scipy:
    ``permutation_test((d,), mean, permutation_type="samples", vectorized=True,
    batch=1000)``. ``batch`` keeps one call near 0.7 GB instead of about 6 GB at
    n = R = 10,000 and makes it faster (3.8 s instead of 9.2 s per pair, measured)."""
    import inspect

    from scipy import stats

    seed_kw = (
        "rng" if "rng" in inspect.signature(stats.permutation_test).parameters else "random_state"
    )
    res = stats.permutation_test(
        (d,),
        mean_statistic,
        permutation_type="samples",
        n_resamples=n_resamples,
        vectorized=True,
        batch=1000,
        alternative="two-sided",
        **{seed_kw: seed},
    )
    return float(res.pvalue)

"""Scaling series of the paired permutation test of all pairs (``compare_paired(method=
"permutation")``, R = 10,000 Monte Carlo sign flips): items growing 4x per step at fixed
systems, and systems doubling (pairs growing about 4x) at fixed items.

The cost model of the routine (reportgen.stats.pairwise, ``_paired_permutation``): per
chunk of resamples, draw an ``R × n`` sign matrix (∝ R·n), multiply it with the
``n × s`` scores (∝ R·n·s), and compare the ``R × pairs`` differences with the observed
ones (∝ R·pairs). Time should therefore grow linearly in items at fixed systems, and at
fixed items as ``a + b·s + c·pairs``: linear in pairs once the pair term dominates, less
than linear before. Each series reports the time of each step, its ratio to the previous
step, the least-squares log-log slope over all steps and the slope of the last step.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from _workload import Target, Workload

SCALING_RESAMPLES = 10_000
ITEMS_SERIES = (1_000, 4_000, 16_000, 64_000)
ITEMS_SERIES_SYSTEMS = 10
SYSTEMS_SERIES = (5, 10, 20, 40, 80, 160)
SYSTEMS_SERIES_ITEMS = 2_000
#: Growth no worse than linear in the variable of the series.
TARGET_SCALING = Target(max_slope=1.2)


def _scores(n: int, s: int) -> Any:
    """``n × s`` continuous scores: shared item effect + system offset + noise, seeded."""
    import numpy as np

    rng = np.random.default_rng(1000 * n + s)
    return rng.normal(size=(n, 1)) + np.linspace(0.0, 0.1, s) + rng.normal(size=(n, s))


def loglog_slope(x: list[float], y: list[float]) -> float:
    """Least-squares slope of log(y) on log(x)."""
    lx, ly = [math.log(v) for v in x], [math.log(v) for v in y]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    den = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / den


def _linear_fit(x: list[float], y: list[float]) -> tuple[float, float]:
    """Intercept and slope of the least-squares line y = a + b x."""
    mx, my = statistics.fmean(x), statistics.fmean(y)
    b = sum((a - mx) * (c - my) for a, c in zip(x, y)) / sum((a - mx) ** 2 for a in x)
    return my - b * mx, b


def _series(name: str, variable: str, sizes: list[tuple[int, int]], description: str) -> Workload:
    def setup() -> Any:
        return {"steps": [(n, s, _scores(n, s)) for n, s in sizes], "times": [[] for _ in sizes]}

    def one_pass(state: Any) -> None:
        import time

        from reportgen.stats.pairwise import compare_paired

        for k, (_, _, X) in enumerate(state["steps"]):
            start = time.perf_counter()
            compare_paired(X, method="permutation", n_resamples=SCALING_RESAMPLES, rng=k)
            state["times"][k].append(time.perf_counter() - start)

    def warmup(state: Any) -> None:
        one_pass(state)
        state["times"] = [[] for _ in sizes]

    def summarize(state: Any, _: Any) -> dict[str, Any]:
        steps = []
        for (n, s, _X), times in zip(state["steps"], state["times"]):
            pairs = s * (s - 1) // 2
            median = statistics.median(times)
            previous = steps[-1] if steps else None
            steps.append(
                {
                    "items": n,
                    "systems": s,
                    "pairs": pairs,
                    "median_s": median,
                    "times_s": times,
                    "size_ratio": None
                    if previous is None
                    else (
                        n / previous["items"] if variable == "items" else pairs / previous["pairs"]
                    ),
                    "time_ratio": None if previous is None else median / previous["median_s"],
                }
            )
        x = [float(st[variable]) for st in steps]
        y = [st["median_s"] for st in steps]
        out: dict[str, Any] = {
            "variable": variable,
            "n_resamples": SCALING_RESAMPLES,
            "steps": steps,
            "slope": loglog_slope(x, y),
            "last_step_slope": math.log(y[-1] / y[-2]) / math.log(x[-1] / x[-2]),
        }
        intercept, per_unit = _linear_fit(x, y)
        out["linear_fit"] = {"intercept_s": intercept, f"seconds_per_{variable[:-1]}": per_unit}
        return out

    return Workload(
        name,
        "fast",
        description,
        setup,
        one_pass,
        summarize,
        warmup=warmup,
        target=TARGET_SCALING,
        max_repeats=3,
    )


def workloads() -> list[Workload]:
    items = [(n, ITEMS_SERIES_SYSTEMS) for n in ITEMS_SERIES]
    systems = [(SYSTEMS_SERIES_ITEMS, s) for s in SYSTEMS_SERIES]
    return [
        _series(
            "scaling_items",
            "items",
            items,
            f"scaling: compare_paired permutation R = {SCALING_RESAMPLES:,}, "
            f"{ITEMS_SERIES_SYSTEMS} systems, items "
            + " -> ".join(f"{n:,}" for n in ITEMS_SERIES)
            + " (4x per step)",
        ),
        _series(
            "scaling_pairs",
            "pairs",
            systems,
            f"scaling: compare_paired permutation R = {SCALING_RESAMPLES:,}, "
            f"{SYSTEMS_SERIES_ITEMS:,} items, systems "
            + " -> ".join(str(s) for s in SYSTEMS_SERIES)
            + " (pairs "
            + " -> ".join(str(s * (s - 1) // 2) for s in SYSTEMS_SERIES)
            + ")",
        ),
    ]

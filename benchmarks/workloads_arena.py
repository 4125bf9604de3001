"""Workloads on the five shared eval-arena benchmarks (seed 002): every pair of systems
of each benchmark with its exact test, the noise profile and the bootstrap rank
distributions (R = 10,000), and the whole ``analyze`` of the five; the reference is a
plain per-pair loop with scipy.

The data are read with :func:`reportgen.data.load` from ``../shared/data/eval-arena``.

``arena5_evalarena`` times eval-arena's own ``summarize_benchmark`` (``arena.py`` of
github.com/crux-eval/eval-arena, Wang et al. 2024) on the same five files: the code is
read from a checkout outside the repository (``$REPORTGEN_EVAL_ARENA_SRC``, default
``../data-extra/eval-arena-src``: ``arena.py`` and ``estimators.py``), never copied into
it or installed as a dependency; without it ``arena5_analyze`` is compared with the scipy
loop only.
"""

from __future__ import annotations

import time
from typing import Any

from _workload import REPO, SHARED_DATA, Target, Workload

ARENA_DIR = SHARED_DATA / "eval-arena"
ARENA_RESAMPLES = 10_000
ARENA_SEED = 20240611
#: Issue 9: the five benchmarks, everything, < 30 s in total.
TARGET_ARENA = Target(seconds=30.0)


def eval_arena_src() -> Any:
    """The folder holding eval-arena's ``arena.py``, or None."""
    import os
    from pathlib import Path

    folder = Path(
        os.environ.get("REPORTGEN_EVAL_ARENA_SRC", REPO.parent / "data-extra" / "eval-arena-src")
    )
    return folder if (folder / "arena.py").is_file() else None


def arena_files() -> list[str]:
    return sorted(str(p) for p in ARENA_DIR.glob("*.jsonl"))


def _counts(table: Any, names: tuple[str, ...]) -> Any:
    """eval-arena's samples per item (the ``count`` system attribute), when every system
    has one (as :func:`reportgen.analysis.analyze` reads it)."""
    import numpy as np

    attrs = table.system_attributes
    if "count" not in attrs.columns:
        return None
    values = attrs["count"].reindex(list(names))
    if not values.notna().all():
        return None
    return values.to_numpy(dtype=np.float64).astype(np.int64)


def arena_lists() -> list[dict[str, Any]]:
    """One entry per benchmark: its name, the paired ``items × systems`` matrix, the
    system names, whether it is 0/1, and the samples per item."""
    import numpy as np

    from reportgen.data import load

    table = load(arena_files())
    lists = []
    for dataset, metric in table.pairs():
        view = table.paired(dataset, metric, list(table.systems_of(dataset, metric)))
        X = view.item_means()
        lists.append(
            {
                "dataset": dataset,
                "metric": metric,
                "X": X,
                "systems": view.systems,
                "binary": bool(np.all((X == 0) | (X == 1))),
                "counts": _counts(table, view.systems),
            }
        )
    return lists


def _exact_method(binary: bool) -> str:
    """Exact McNemar (Table 1) for 0/1 scores; the exact sign test on wins and losses for
    shares of k samples (pass@1 from several samples), whose automatic test is a t test."""
    return "auto" if binary else "sign"


def ours_arena(lst: dict[str, Any], seed: int) -> tuple[Any, Any, Any]:
    """The comparisons, noise profile and rank distributions of one benchmark."""
    import warnings

    from reportgen.errors import InputError
    from reportgen.stats.noise import noise_profile
    from reportgen.stats.pairwise import compare_paired
    from reportgen.stats.ranking import rank_distributions

    X, names = lst["X"], lst["systems"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate pairs are documented NaN/1 results
        comparisons = compare_paired(X, systems=names, method=_exact_method(lst["binary"]))
        try:
            profile = noise_profile(X, systems=names, counts=lst["counts"])
        except InputError:  # counts that do not fit the scores: the profile without them
            profile = noise_profile(X, systems=names)
        ranks = rank_distributions(
            X, paired=True, systems=names, n_resamples=ARENA_RESAMPLES, rng=seed
        )
    return comparisons, profile, ranks


# ============================================================================ ours


def _ours_stats() -> Workload:
    def run(lists: Any) -> Any:
        return [ours_arena(lst, ARENA_SEED + k) for k, lst in enumerate(lists)]

    def summarize(lists: Any, results: Any) -> dict[str, Any]:
        rows = []
        for lst, (comparisons, profile, ranks) in zip(lists, results):
            best = int(ranks.p_best.argmax())
            rows.append(
                {
                    "dataset": lst["dataset"],
                    "n_items": int(lst["X"].shape[0]),
                    "n_systems": len(lst["systems"]),
                    "n_pairs": comparisons.n_pairs,
                    "test": comparisons.test,
                    "significant_pairs": int(comparisons.significant().sum()),
                    "p5_min_items": profile.p5_min_items,
                    "p5_max_items": profile.p5_max_items,
                    "prediction_noise": profile.prediction is not None,
                    "most_often_first": ranks.systems[best],
                    "p_best": float(ranks.p_best[best]),
                }
            )
        return {
            "benchmarks": rows,
            "n_pairs": sum(r["n_pairs"] for r in rows),
            "n_resamples": ARENA_RESAMPLES,
        }

    return Workload(
        "arena5_stats",
        "fast",
        "eval-arena, 5 benchmarks (all pairs): compare_paired exact (McNemar / sign "
        f"test), noise_profile, rank_distributions R = {ARENA_RESAMPLES:,}",
        arena_lists,
        run,
        summarize,
        warmup=run,
        reference="arena5_evalarena" if eval_arena_src() is not None else "arena5_scipy",
        target=TARGET_ARENA,
    )


def _ours_analyze() -> Workload:
    def setup() -> Any:
        from reportgen.analysis import AnalysisOptions, analyze  # noqa: F401  (import)

        return {"split": {}}

    def run(state: Any) -> Any:
        import warnings

        from reportgen.analysis import AnalysisOptions, analyze
        from reportgen.data import load

        start = time.perf_counter()
        table = load(arena_files())
        loaded = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            analysis = analyze(table, AnalysisOptions(seed=ARENA_SEED, n_resamples=ARENA_RESAMPLES))
        state["split"] = {"load_s": loaded - start, "analyze_s": time.perf_counter() - loaded}
        return analysis

    def summarize(state: Any, analysis: Any) -> dict[str, Any]:
        results = analysis.to_results()
        return {
            "n_comparisons": len(results["comparisons"]),
            "noise_profiles": len(results["noise"]),
            "rankings": len(results["rankings"]),
            "n_resamples": ARENA_RESAMPLES,
            **state["split"],
        }

    return Workload(
        "arena5_analyze",
        "fast",
        "eval-arena, 5 benchmarks: load + reportgen.analysis.analyze (everything a report "
        f"computes: tests, CIs, noise, Bradley-Terry, ranks), R = {ARENA_RESAMPLES:,}",
        setup,
        run,
        summarize,
        warmup=run,
        reference="arena5_evalarena" if eval_arena_src() is not None else "arena5_scipy",
        target=TARGET_ARENA,
        max_repeats=3,
    )


# ============================================================================ reference


def reference_arena(lst: dict[str, Any], seed: int) -> dict[str, Any]:
    """The straightforward way: a loop over pairs with ``scipy.stats.binomtest`` on the
    wins and losses (the exact McNemar test for 0/1 scores), the noise quantities of
    each pair, p5 from them, and a loop over bootstrap resamples for the ranks."""
    import numpy as np
    from scipy import stats
    from workloads_pairwise import bootstrap_rank_loop

    X = lst["X"]
    n, s = X.shape
    p, abs_items, se_diff, effect = [], [], [], []
    start = time.perf_counter()
    for i in range(s):
        for j in range(i + 1, s):
            d = X[:, i] - X[:, j]
            wins, losses = int((d > 0).sum()), int((d < 0).sum())
            p.append(stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0)
            abs_items.append(abs(float(d.sum())))
            se_diff.append(float(d.std() / np.sqrt(n)))
            sd = d.std(ddof=1)
            effect.append(float(d.mean() / sd) if sd > 0 else 0.0)
    p_arr, abs_arr = np.array(p), np.round(np.array(abs_items), 9)
    sig = p_arr < 0.05
    pairs_s = time.perf_counter() - start
    counts = bootstrap_rank_loop(X, ARENA_RESAMPLES, seed)
    return {
        "p_value": p_arr,
        "se_diff": np.array(se_diff),
        "p5_min_items": float(abs_arr[sig].min()) if sig.any() else float("nan"),
        "p5_max_items": float(abs_arr[~sig].max()) if (~sig).any() else float("nan"),
        "rank_counts": counts,
        "pairs_s": pairs_s,
        "ranks_s": time.perf_counter() - start - pairs_s,
    }


def _agreement(lists: list[dict[str, Any]], refs: list[dict[str, Any]]) -> dict[str, Any]:
    """Ours (computed here, untimed) against the reference loop on every pair: exact
    p-values (and statsmodels' exact McNemar on the 0/1 benchmarks), p5, and the rank
    distributions within Monte Carlo error."""
    import numpy as np
    from statsmodels.stats.contingency_tables import mcnemar

    worst_cmp = worst_noise = worst_sm = worst_se = worst_rank = worst_best = 0.0
    p5_equal, n_pairs, n_mcnemar = True, 0, 0
    worst_z, constant_equal = 0.0, True
    for k, (lst, ref) in enumerate(zip(lists, refs)):
        comparisons, profile, ranks = ours_arena(lst, ARENA_SEED + k)
        worst_cmp = max(worst_cmp, float(np.abs(comparisons.p_value - ref["p_value"]).max()))
        worst_noise = max(worst_noise, float(np.abs(profile.p_value - ref["p_value"]).max()))
        worst_se = max(worst_se, float(np.abs(profile.se_diff - ref["se_diff"]).max()))
        for ours_p5, ref_p5 in (
            (profile.p5_min_items, ref["p5_min_items"]),
            (profile.p5_max_items, ref["p5_max_items"]),
        ):
            p5_equal &= (np.isnan(ours_p5) and np.isnan(ref_p5)) or abs(ours_p5 - ref_p5) < 1e-6
        n_pairs += comparisons.n_pairs
        if lst["binary"]:
            # statsmodels: mcnemar([[., b], [c, .]], exact=True) per pair
            for q, (b, c) in enumerate(zip(comparisons.a_only, comparisons.b_only)):
                sm = mcnemar([[0, int(b)], [int(c), 0]], exact=True).pvalue
                worst_sm = max(worst_sm, abs(float(comparisons.p_value[q]) - float(sm)))
                n_mcnemar += 1
        R = ARENA_RESAMPLES
        r = np.arange(1, len(lst["systems"]) + 1)
        ref_mean_rank = ref["rank_counts"] @ r / R
        diff = np.abs(ranks.mean_rank - ref_mean_rank)
        worst_rank = max(worst_rank, float(diff.max()))
        # z of the difference of two independent Monte Carlo means of the rank
        var = (ranks.rank_counts @ r**2 / R - ranks.mean_rank**2) + (
            ref["rank_counts"] @ r**2 / R - ref_mean_rank**2
        )
        varies = var > 1e-12
        worst_z = max(worst_z, float((diff[varies] / np.sqrt(var[varies] / R)).max()))
        constant_equal &= bool(np.all(diff[~varies] < 1e-9))
        worst_best = max(
            worst_best, float(np.abs(ranks.p_best - ref["rank_counts"][:, 0] / R).max())
        )
    return {
        "n_pairs": n_pairs,
        "max_abs_p_diff_compare_vs_binomtest": worst_cmp,
        "max_abs_p_diff_noise_vs_binomtest": worst_noise,
        "max_abs_p_diff_vs_statsmodels_mcnemar": worst_sm,
        "n_pairs_statsmodels_mcnemar": n_mcnemar,
        "max_abs_se_diff": worst_se,
        "p5_equal": bool(p5_equal),
        "max_abs_mean_rank_diff": worst_rank,
        "max_mean_rank_z": worst_z,
        "constant_ranks_equal": constant_equal,
        "max_abs_p_best_diff": worst_best,
    }


def _reference() -> Workload:
    def run(lists: Any) -> Any:
        return [reference_arena(lst, 99 + k) for k, lst in enumerate(lists)]

    def warmup(lists: Any) -> Any:
        small = dict(lists[-1], X=lists[-1]["X"][:, :3])
        return reference_arena(small, 1)

    def summarize(lists: Any, refs: Any) -> dict[str, Any]:
        return {
            "pairs_s": sum(r["pairs_s"] for r in refs),
            "ranks_s": sum(r["ranks_s"] for r in refs),
            "benchmarks": [
                {
                    "dataset": lst["dataset"],
                    "p5_min_items": r["p5_min_items"],
                    "p5_max_items": r["p5_max_items"],
                }
                for lst, r in zip(lists, refs)
            ],
            "agreement": _agreement(lists, refs),
        }

    return Workload(
        "arena5_scipy",
        "reference",
        "eval-arena reference: per-pair loop (scipy binomtest on wins/losses, noise "
        f"quantities) + a loop over {ARENA_RESAMPLES:,} bootstrap resamples for the ranks, "
        "all pairs of all 5 benchmarks",
        arena_lists,
        run,
        summarize,
        warmup=warmup,
        scale_note="the full loop over every pair and resample (not extrapolated)",
    )


def _eval_arena() -> Workload:
    def setup() -> Any:
        import sys

        import pandas as pd

        sys.path.insert(0, str(eval_arena_src()))
        import arena  # noqa: F401  (import cost outside the timing)

        frames = [pd.read_json(path, lines=True) for path in arena_files()]
        for frame in frames:  # samples per item; the shared files of 0/1 scores omit it
            frame["count"] = frame["count"].fillna(1) if "count" in frame else 1
        return frames

    def run(frames: Any) -> Any:
        import warnings

        import arena

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [arena.summarize_benchmark(frame, arena.ReportArgs()) for frame in frames]

    def summarize(frames: Any, results: Any) -> dict[str, Any]:
        return {
            "benchmarks": [
                {
                    k: r.summary_stats[k]
                    for k in ("benchmark_id", "size", "models", "total_pairs", "close_pairs")
                }
                for r in results
            ]
        }

    return Workload(
        "arena5_evalarena",
        "reference",
        "eval-arena's own summarize_benchmark (arena.py, Wang et al. 2024) on the five "
        "benchmarks: battles, model and example tables, pair summaries",
        setup,
        run,
        summarize,
    )


def workloads() -> list[Workload]:
    if not ARENA_DIR.is_dir():
        return []
    out = [_ours_stats(), _ours_analyze(), _reference()]
    if eval_arena_src() is not None:
        out.append(_eval_arena())
    return out

"""Workloads of the pairwise engine: the MMLU case of seed 003 §5, 15 and 50 systems ×
10,000 paired continuous items, and their references (evalci, scipy loops).

numpy, scipy, pandas, evalci and reportgen are imported inside the functions, so that
importing this module (the parent process does) stays cheap.
"""

from __future__ import annotations

import time
from itertools import pairwise
from typing import Any

from _workload import (
    ALPHA,
    TARGET_PEAK_MB,
    Target,
    Workload,
    scipy_permutation_pvalue,
    version,
)

#: Seed 003 §5 (Table 2 of Grattafiori et al. 2024): 5-shot MMLU accuracy, rank order.
MMLU_MODELS: tuple[tuple[str, float], ...] = (
    ("Llama 3 8B", 69.4),
    ("GPT-3.5 Turbo", 70.7),
    ("Mixtral 8x22B", 76.9),
    ("Nemotron-4 340B", 82.6),
    ("Llama 3 70B", 83.6),
    ("GPT-4 (0125)", 85.1),
    ("Llama 3 405B", 87.3),
    ("GPT-4o", 89.1),
    ("Claude 3.5 Sonnet", 89.9),
)
MMLU_N = 14_042
#: Seed 003 §5, Table 1: Holm-adjusted p of the 8 adjacent-rank pairs (evalci, 9,999
#: Monte Carlo permutations), 3 of them not significant.
SEED003_ADJACENT_P_ADJ = (0.065, 0.0036, 0.0036, 0.065, 0.0036, 0.0036, 0.0036, 0.065)
SEED003_NON_SIGNIFICANT = 3
MMLU_RESAMPLES = 9_999
#: Issue 9: the exact MMLU tests < 0.5 s and >= 500x faster than evalci; R = 9,999 < 10 s.
TARGET_MMLU = Target(seconds=0.5, min_ratio=500.0)
TARGET_MMLU_BOOTSTRAP = Target(seconds=0.5)
TARGET_MMLU_MC = Target(seconds=10.0)

PAIRED_SYSTEMS = 15
PAIRED_ITEMS = 10_000
PAIRED_RESAMPLES = 10_000
PAIRED_PAIRS = PAIRED_SYSTEMS * (PAIRED_SYSTEMS - 1) // 2
#: Pairs (indices into the 105 all-pairs order) timed for the scipy reference.
SCIPY_SUBSET = tuple(range(0, PAIRED_PAIRS, 11))
TARGET_PAIRED = Target(seconds=15.0, peak_mb=TARGET_PEAK_MB)

SYSTEMS_CI = 50
SYSTEMS_CI_ITEMS = 10_000
SYSTEMS_CI_RESAMPLES = 10_000
SYSTEMS_CI_PAIRS = SYSTEMS_CI * (SYSTEMS_CI - 1) // 2
#: Systems (of the 50) timed for the scipy reference of the per-system BCa intervals.
SCIPY_CI_SUBSET = tuple(range(0, SYSTEMS_CI, 10))
#: Pairs (of the 1,225) timed for the scipy reference of the 50-system permutation tests.
SCIPY_PERM50_SUBSET = tuple(range(0, SYSTEMS_CI_PAIRS, 408))
#: Resamples (of 10,000) timed for the loop reference of the rank distributions.
RANK_LOOP_RESAMPLES = 1_000
#: Issue 9: each of the three 50 × 10,000 workloads < 15 s and < 2 GB.
TARGET_50 = Target(seconds=15.0, peak_mb=TARGET_PEAK_MB)


# ============================================================================ data


def mmlu_names() -> list[str]:
    return [name for name, _ in MMLU_MODELS]


def _mmlu_vectors() -> list[Any]:
    """One shuffled 0/1 vector per model with ``round(acc/100 × n)`` ones."""
    import numpy as np

    rng = np.random.default_rng(3)
    vectors = []
    for _, accuracy in MMLU_MODELS:
        ones = round(accuracy / 100 * MMLU_N)
        v = np.zeros(MMLU_N)
        v[:ones] = 1.0
        rng.shuffle(v)
        vectors.append(v)
    return vectors


def _paired_scores() -> Any:
    """``items × systems`` continuous scores: shared item effect N(0, 1) + system offset
    (0 to 0.1 in equal steps) + independent noise N(0, 1)."""
    import numpy as np

    rng = np.random.default_rng(20240003)
    item_effect = rng.normal(size=(PAIRED_ITEMS, 1))
    offsets = np.linspace(0.0, 0.1, PAIRED_SYSTEMS)
    return item_effect + offsets + rng.normal(size=(PAIRED_ITEMS, PAIRED_SYSTEMS))


def _systems_ci_scores() -> Any:
    """50 × 10,000 skewed continuous scores in [0, 1] (a beta per system, as similarity
    metrics are), seeded."""
    import numpy as np

    rng = np.random.default_rng(20261122)
    a = rng.uniform(1.0, 4.0, SYSTEMS_CI)
    return rng.beta(a, 2.0, size=(SYSTEMS_CI_ITEMS, SYSTEMS_CI))


def _adjacent_summary(p_adj_of: Any) -> dict[str, Any]:
    """Holm-adjusted p of the 8 adjacent-rank pairs and how many are not significant."""
    names = mmlu_names()
    pairs = []
    for lower, higher in pairwise(names):
        p = float(p_adj_of(lower, higher))
        pairs.append({"higher": higher, "lower": lower, "p_adjusted": p, "significant": p <= ALPHA})
    return {
        "adjacent": pairs,
        "adjacent_non_significant": sum(not row["significant"] for row in pairs),
    }


# ============================================================================ MMLU


def _ours_mmlu(method: str, monte_carlo: bool = False) -> Workload:
    def run(vectors: Any) -> Any:
        from reportgen.stats.pairwise import compare_unpaired

        kwargs: dict[str, Any] = {}
        if method == "bootstrap" or monte_carlo:
            kwargs = {"n_resamples": MMLU_RESAMPLES, "rng": 0}
        if monte_carlo:
            # 0/1 data get the exact hypergeometric answer; declaring them continuous
            # forces the Monte Carlo label shuffles the R = 9,999 target names
            kwargs["modality"] = "continuous"
        return compare_unpaired(
            vectors, systems=mmlu_names(), method=method, correction="holm", alpha=ALPHA, **kwargs
        )

    def summarize(vectors: Any, result: Any) -> dict[str, Any]:
        lookup = {
            (result.systems[a], result.systems[b]): p
            for a, b, p in zip(result.index_a, result.index_b, result.p_adjusted)
        }
        out = _adjacent_summary(lambda lo, hi: lookup[(lo, hi)])
        out.update(
            test=result.test,
            n_pairs=result.n_pairs,
            exact=result.exact,
            n_resamples=result.n_resamples,
            significant_pairs=int(result.significant().sum()),
        )
        return out

    if monte_carlo:
        name, label, target = (
            "mmlu_permutation_mc",
            f"permutation, Monte Carlo R = {MMLU_RESAMPLES:,}",
            TARGET_MMLU_MC,
        )
    else:
        name = f"mmlu_{method}"
        label = {
            "auto": "auto (two-proportion z)",
            "permutation": "permutation (exact)",
            "bootstrap": f"bootstrap {MMLU_RESAMPLES}",
        }[method]
        target = TARGET_MMLU_BOOTSTRAP if method == "bootstrap" else TARGET_MMLU
    return Workload(
        name,
        "fast",
        f"MMLU 9 x {MMLU_N:,} unpaired, 36 pairs, Holm: compare_unpaired {label}",
        _mmlu_vectors,
        run,
        summarize,
        warmup=run,
        reference="mmlu_evalci",
        target=target,
    )


def _evalci_frame(vectors: Any, names: list[str]) -> Any:
    """evalci's per-item frame (item_id, model, score). ``multi_compare`` pivots every
    pair on ``item_id`` and drops rows missing a model even when ``paired=False``, so
    all models share the item ids 0..n-1 (the unpaired test ignores the alignment)."""
    import numpy as np
    import pandas as pd

    n = len(vectors[0])
    return pd.DataFrame(
        {
            "item_id": np.tile(np.arange(n), len(vectors)),
            "model": np.repeat(np.array(names, dtype=object), n),
            "score": np.concatenate(vectors),
        }
    )


def _evalci_mmlu() -> Workload:
    def setup() -> Any:
        import evalci  # noqa: F401  (import cost outside the timing)

        return _evalci_frame(_mmlu_vectors(), mmlu_names())

    def warmup(frame: Any) -> Any:
        # one full-size pair: imports, pandas pivoting and first-touch page faults
        import evalci

        first_two = frame[frame["model"].isin(mmlu_names()[:2])]
        return evalci.multi_compare(
            first_two,
            correction="holm",
            method="permutation",
            paired=False,
            alpha=ALPHA,
            random_state=1,
        )

    def run(frame: Any) -> Any:
        import evalci

        return evalci.multi_compare(
            frame,
            correction="holm",
            method="permutation",
            paired=False,
            alpha=ALPHA,
            random_state=0,
        )

    def summarize(frame: Any, result: Any) -> dict[str, Any]:
        import inspect

        import evalci

        lookup = {
            frozenset((row.model_a, row.model_b)): float(row.p_adj) for row in result.itertuples()
        }
        out = _adjacent_summary(lambda lo, hi: lookup[frozenset((lo, hi))])
        # evalci calls a pair significant when p_adj < alpha; the count above uses <=
        # like reportgen; report evalci's own flag too.
        own = {frozenset((r.model_a, r.model_b)): bool(r.significant) for r in result.itertuples()}
        names = mmlu_names()
        out["adjacent_non_significant_evalci_flag"] = sum(
            not own[frozenset(p)] for p in pairwise(names)
        )
        out.update(
            test="evalci multi_compare permutation",
            n_pairs=len(result),
            significant_pairs=int(result["significant"].sum()),
            n_resamples=inspect.signature(evalci.multi_compare).parameters["n_resamples"].default,
            evalci_version=version("evalci"),
        )
        return out

    return Workload(
        "mmlu_evalci",
        "reference",
        "MMLU reference: evalci multi_compare permutation, paired=False, Holm, "
        "9,999 resamples (default)",
        setup,
        run,
        summarize,
        warmup=warmup,
    )


# ============================================================================ 15 systems


def _ours_paired(method: str) -> Workload:
    def run(X: Any) -> Any:
        from reportgen.stats.pairwise import compare_paired

        return compare_paired(X, method=method, n_resamples=PAIRED_RESAMPLES, rng=0)

    def summarize(X: Any, result: Any) -> dict[str, Any]:
        return {
            "test": result.test,
            "n_pairs": result.n_pairs,
            "exact": result.exact,
            "significant_pairs": int(result.significant().sum()),
            "p_value": [float(p) for p in result.p_value],
        }

    return Workload(
        f"paired15_{method}",
        "fast",
        f"{PAIRED_SYSTEMS} systems x {PAIRED_ITEMS:,} paired continuous items, "
        f"{PAIRED_PAIRS} pairs: compare_paired {method} {PAIRED_RESAMPLES}",
        _paired_scores,
        run,
        summarize,
        warmup=run,
        reference="paired15_scipy" if method == "permutation" else None,
        target=TARGET_PAIRED,
    )


def _scipy_pairs_workload(
    name: str, scores: Any, n_systems: int, subset: tuple[int, ...], description: str
) -> Workload:
    """A per-pair loop of scipy.stats.permutation_test on ``subset`` of the all-pairs
    order, extrapolated to every pair."""
    n_pairs = n_systems * (n_systems - 1) // 2

    def setup() -> Any:
        import numpy as np

        X = scores()
        ia, ib = np.triu_indices(n_systems, k=1)
        return [(k, X[:, ia[k]] - X[:, ib[k]]) for k in subset]

    def warmup(diffs: Any) -> Any:
        return scipy_permutation_pvalue(diffs[0][1], 12345, PAIRED_RESAMPLES)

    def run(diffs: Any) -> Any:
        per_pair = []
        for k, d in diffs:
            start = time.perf_counter()
            p = scipy_permutation_pvalue(d, k, PAIRED_RESAMPLES)
            per_pair.append((k, p, time.perf_counter() - start))
        return per_pair

    def summarize(diffs: Any, per_pair: Any) -> dict[str, Any]:
        return {
            "subset": [k for k, _, _ in per_pair],
            "p_value": [p for _, p, _ in per_pair],
            "pair_seconds": [s for _, _, s in per_pair],
        }

    return Workload(
        name,
        "reference",
        description,
        setup,
        run,
        summarize,
        warmup=warmup,
        scale=n_pairs / len(subset),
        scale_note=f"{len(subset)} of {n_pairs:,} pairs timed, extrapolated "
        f"x{n_pairs / len(subset):.4g}",
    )


def _scipy_paired() -> Workload:
    return _scipy_pairs_workload(
        "paired15_scipy",
        _paired_scores,
        PAIRED_SYSTEMS,
        SCIPY_SUBSET,
        f"paired reference: per-pair loop of scipy.stats.permutation_test (sign flips, "
        f"vectorized, batch 1000, {PAIRED_RESAMPLES} resamples) on {len(SCIPY_SUBSET)} "
        f"of {PAIRED_PAIRS} pairs",
    )


# ============================================================================ 50 systems


def _ours_systems_permutation() -> Workload:
    def run(X: Any) -> Any:
        from reportgen.stats.pairwise import compare_paired

        return compare_paired(X, method="permutation", n_resamples=SYSTEMS_CI_RESAMPLES, rng=0)

    def summarize(X: Any, result: Any) -> dict[str, Any]:
        return {
            "test": result.test,
            "n_pairs": result.n_pairs,
            "exact": result.exact,
            "significant_pairs": int(result.significant().sum()),
            "p_value_subset": [float(result.p_value[k]) for k in SCIPY_PERM50_SUBSET],
        }

    return Workload(
        "systems50_permutation",
        "fast",
        f"{SYSTEMS_CI} systems x {SYSTEMS_CI_ITEMS:,} paired continuous items, "
        f"{SYSTEMS_CI_PAIRS:,} pairs: compare_paired permutation {SYSTEMS_CI_RESAMPLES}",
        _systems_ci_scores,
        run,
        summarize,
        warmup=run,
        reference="systems50_perm_scipy",
        target=TARGET_50,
    )


def _scipy_systems_permutation() -> Workload:
    return _scipy_pairs_workload(
        "systems50_perm_scipy",
        _systems_ci_scores,
        SYSTEMS_CI,
        SCIPY_PERM50_SUBSET,
        f"50-system reference: per-pair loop of scipy.stats.permutation_test (sign "
        f"flips, vectorized, batch 1000, {SYSTEMS_CI_RESAMPLES} resamples) on "
        f"{len(SCIPY_PERM50_SUBSET)} of {SYSTEMS_CI_PAIRS:,} pairs",
    )


def _ours_systems_ci() -> Workload:
    def run(X: Any) -> Any:
        from reportgen.stats.means import mean_intervals

        return mean_intervals(X, method="bca", n_resamples=SYSTEMS_CI_RESAMPLES, rng=0)

    def summarize(X: Any, result: Any) -> dict[str, Any]:
        return {
            "method": result.method,
            "n_systems": len(result.systems),
            "ci_low": [float(v) for v in result.ci_low[list(SCIPY_CI_SUBSET)]],
            "ci_high": [float(v) for v in result.ci_high[list(SCIPY_CI_SUBSET)]],
        }

    return Workload(
        "systems50_bca",
        "fast",
        f"{SYSTEMS_CI} systems x {SYSTEMS_CI_ITEMS:,} items: mean_intervals BCa, "
        f"{SYSTEMS_CI_RESAMPLES} resamples",
        _systems_ci_scores,
        run,
        summarize,
        warmup=run,
        reference="systems50_scipy",
        target=TARGET_50,
    )


def _scipy_systems_ci() -> Workload:
    def setup() -> Any:
        X = _systems_ci_scores()
        return [(j, X[:, j].copy()) for j in SCIPY_CI_SUBSET]

    def one(x: Any, seed: int) -> tuple[float, float]:
        import numpy as np
        from scipy import stats

        res = stats.bootstrap(
            (x,),
            np.mean,
            method="BCa",
            n_resamples=SYSTEMS_CI_RESAMPLES,
            vectorized=True,
            rng=np.random.default_rng(seed),
        )
        return float(res.confidence_interval.low), float(res.confidence_interval.high)

    def warmup(columns: Any) -> Any:
        return one(columns[0][1], 1)

    def run(columns: Any) -> Any:
        out = []
        for j, x in columns:
            start = time.perf_counter()
            low, high = one(x, j)
            out.append((j, low, high, time.perf_counter() - start))
        return out

    def summarize(columns: Any, out: Any) -> dict[str, Any]:
        return {
            "subset": [j for j, *_ in out],
            "ci_low": [lo for _, lo, _, _ in out],
            "ci_high": [hi for _, _, hi, _ in out],
            "system_seconds": [t for *_, t in out],
        }

    return Workload(
        "systems50_scipy",
        "reference",
        f"per-system reference: scipy.stats.bootstrap(method='BCa', {SYSTEMS_CI_RESAMPLES} "
        f"resamples) on {len(SCIPY_CI_SUBSET)} of {SYSTEMS_CI} systems",
        setup,
        run,
        summarize,
        warmup=warmup,
        scale=SYSTEMS_CI / len(SCIPY_CI_SUBSET),
        scale_note=f"{len(SCIPY_CI_SUBSET)} of {SYSTEMS_CI} systems timed, extrapolated "
        f"x{SYSTEMS_CI / len(SCIPY_CI_SUBSET):g}",
    )


def _ours_rank_distributions() -> Workload:
    def run(X: Any) -> Any:
        from reportgen.stats.ranking import rank_distributions

        return rank_distributions(X, paired=True, n_resamples=SYSTEMS_CI_RESAMPLES, rng=0)

    def summarize(X: Any, result: Any) -> dict[str, Any]:
        return {
            "n_systems": len(result.systems),
            "p_best": [float(v) for v in result.p_best[:5]],
            "mean_rank": [float(v) for v in result.mean_rank],
        }

    return Workload(
        "ranks50_bootstrap",
        "fast",
        f"{SYSTEMS_CI} systems x {SYSTEMS_CI_ITEMS:,} paired items: rank_distributions, "
        f"{SYSTEMS_CI_RESAMPLES} resamples",
        _systems_ci_scores,
        run,
        summarize,
        warmup=run,
        reference="ranks50_loop",
        target=TARGET_50,
    )


def bootstrap_rank_loop(X: Any, n_resamples: int, seed: int) -> Any:
    """The plain way to get paired bootstrap rank distributions: one resample at a time,
    ``X[idx].mean(axis=0)`` ranked by ``scipy.stats.rankdata(-means, method="min")``.
    Returns the ``(systems × ranks)`` count matrix."""
    import numpy as np
    from scipy import stats

    rng = np.random.default_rng(seed)
    n, s = X.shape
    counts = np.zeros((s, s), dtype=np.int64)
    rows = np.arange(s)
    for _ in range(n_resamples):
        means = X[rng.integers(0, n, n)].mean(axis=0)
        counts[rows, stats.rankdata(-means, method="min").astype(np.intp) - 1] += 1
    return counts


def _loop_rank_distributions() -> Workload:
    def run(X: Any) -> Any:
        return bootstrap_rank_loop(X, RANK_LOOP_RESAMPLES, 7)

    def warmup(X: Any) -> Any:
        return bootstrap_rank_loop(X, 20, 8)

    def summarize(X: Any, counts: Any) -> dict[str, Any]:
        import numpy as np

        mean_rank = counts @ np.arange(1, X.shape[1] + 1) / RANK_LOOP_RESAMPLES
        return {"n_resamples": RANK_LOOP_RESAMPLES, "mean_rank": [float(v) for v in mean_rank]}

    factor = SYSTEMS_CI_RESAMPLES / RANK_LOOP_RESAMPLES
    return Workload(
        "ranks50_loop",
        "reference",
        f"rank reference: a Python loop over resamples (numpy row gather + scipy "
        f"rankdata), {RANK_LOOP_RESAMPLES:,} of {SYSTEMS_CI_RESAMPLES:,} resamples",
        _systems_ci_scores,
        run,
        summarize,
        warmup=warmup,
        scale=factor,
        scale_note=f"{RANK_LOOP_RESAMPLES:,} of {SYSTEMS_CI_RESAMPLES:,} resamples timed, "
        f"extrapolated x{factor:g}",
    )


def workloads() -> list[Workload]:
    return [
        _ours_mmlu("auto"),
        _ours_mmlu("permutation"),
        _ours_mmlu("permutation", monte_carlo=True),
        _ours_mmlu("bootstrap"),
        _evalci_mmlu(),
        _ours_paired("permutation"),
        _ours_paired("bootstrap"),
        _scipy_paired(),
        _ours_systems_permutation(),
        _scipy_systems_permutation(),
        _ours_systems_ci(),
        _scipy_systems_ci(),
        _ours_rank_distributions(),
        _loop_rank_distributions(),
    ]

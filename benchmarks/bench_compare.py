"""Speed and memory benchmarks of the pairwise comparison engine (issue 3).

Every workload runs in a fresh Python subprocess (this script with ``--worker NAME``):
the child builds its seeded data, runs one warm-up, times ``repeats`` calls with
``time.perf_counter`` and reports the median, and reads its own peak resident set size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``). A child that only imports numpy, scipy
and reportgen gives the baseline memory, so the increment of each workload is visible.
The parent process imports nothing heavier than the standard library: on Linux a child's
``ru_maxrss`` starts from its parent's resident size at ``fork``/``exec``, so a small
parent keeps the children's figures honest.

Workloads (``python benchmarks/bench_compare.py --list`` prints them):

* ``mmlu_*`` — the MMLU case of seed 003 §5: nine models, n = 14,042 items each,
  reconstructed 0/1 vectors with ``round(accuracy/100 × n)`` ones, unpaired, all 36
  pairs, Holm. Ours: ``compare_unpaired`` with ``method="auto"`` (two-proportion z),
  ``"permutation"`` (exact, hypergeometric) and ``"bootstrap"`` (9,999 resamples).
  Reference: ``evalci.multi_compare(method="permutation", paired=False,
  correction="holm")`` with its default 9,999 resamples.
* ``paired15_*`` — 15 systems × 10,000 items of seeded continuous scores (a shared item
  effect + a system offset + noise), all 105 pairs. Ours: ``compare_paired`` with
  ``method="permutation"`` and ``"bootstrap"``, 10,000 resamples. Reference: a plain
  loop over pairs calling ``scipy.stats.permutation_test`` on the differences
  (``permutation_type="samples"``: sign flips, ``vectorized=True``, 10,000 resamples),
  timed on a fixed subset of pairs and extrapolated to all 105.

Usage::

    python benchmarks/bench_compare.py            # everything (the references take minutes)
    python benchmarks/bench_compare.py --quick    # skip the slow references
    python benchmarks/bench_compare.py --compare benchmarks/results/latest.json

``benchmarks/run.sh`` creates ``.venv-bench`` with the project and evalci, then runs this.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS_DIR = HERE / "results"
MARKER = "@@bench-result@@ "
SCHEMA_VERSION = 1

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

PAIRED_SYSTEMS = 15
PAIRED_ITEMS = 10_000
PAIRED_RESAMPLES = 10_000
#: Pairs (indices into the 105 all-pairs order) timed for the scipy reference.
SCIPY_SUBSET = tuple(range(0, 105, 11))

SYSTEMS_CI = 50
SYSTEMS_CI_ITEMS = 10_000
SYSTEMS_CI_RESAMPLES = 10_000
#: Systems (of the 50) timed for the scipy reference of the per-system BCa intervals.
SCIPY_CI_SUBSET = tuple(range(0, 50, 10))
TARGET_CI_S = 5.0

ALPHA = 0.05
TARGET_MMLU_S = 0.5
TARGET_PAIRED_S = 15.0
TARGET_PAIRED_MB = 2048.0


# ============================================================================ data
# (imported lazily: only the workers import numpy)


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


def _mmlu_names() -> list[str]:
    return [name for name, _ in MMLU_MODELS]


def _adjacent_summary(p_adj_of: Callable[[str, str], float]) -> dict[str, Any]:
    """Holm-adjusted p of the 8 adjacent-rank pairs and how many are not significant."""
    names = _mmlu_names()
    pairs = []
    for lower, higher in zip(names[:-1], names[1:]):
        p = float(p_adj_of(lower, higher))
        pairs.append({"higher": higher, "lower": lower, "p_adjusted": p,
                      "significant": p <= ALPHA})
    return {"adjacent": pairs,
            "adjacent_non_significant": sum(not row["significant"] for row in pairs)}


# ============================================================================ workloads


@dataclass(frozen=True)
class Workload:
    """One benchmark: ``setup() -> state``, ``run(state) -> output`` (timed),
    ``warmup(state)``, ``summarize(state, output) -> dict`` (not timed)."""

    name: str
    kind: str  # "ours" or "reference"
    description: str
    setup: Callable[[], Any]
    run: Callable[[Any], Any]
    summarize: Callable[[Any, Any], dict[str, Any]]
    warmup: Callable[[Any], Any] | None = None
    slow: bool = False


def _ours_mmlu(method: str) -> Workload:
    def setup() -> Any:
        return _mmlu_vectors()

    def run(vectors: Any) -> Any:
        from reportgen.stats.pairwise import compare_unpaired
        kwargs: dict[str, Any] = {"n_resamples": MMLU_RESAMPLES, "rng": 0} \
            if method == "bootstrap" else {}
        return compare_unpaired(vectors, systems=_mmlu_names(), method=method,
                                correction="holm", alpha=ALPHA, **kwargs)

    def summarize(vectors: Any, result: Any) -> dict[str, Any]:
        lookup = {(result.systems[a], result.systems[b]): p
                  for a, b, p in zip(result.index_a, result.index_b, result.p_adjusted)}
        out = _adjacent_summary(lambda lo, hi: lookup[(lo, hi)])
        out.update(test=result.test, n_pairs=result.n_pairs, exact=result.exact,
                   significant_pairs=int(result.significant().sum()))
        return out

    label = {"auto": "auto (two-proportion z)", "permutation": "permutation (exact)",
             "bootstrap": f"bootstrap {MMLU_RESAMPLES}"}[method]
    return Workload(
        f"mmlu_{method}", "ours",
        f"MMLU 9 x {MMLU_N:,} unpaired, 36 pairs, Holm: compare_unpaired {label}",
        setup, run, summarize, warmup=run)


def _evalci_frame(vectors: Any, names: list[str]) -> Any:
    """evalci's per-item frame (item_id, model, score). ``multi_compare`` pivots every
    pair on ``item_id`` and drops rows missing a model even when ``paired=False``, so
    all models share the item ids 0..n-1 (the unpaired test ignores the alignment)."""
    import numpy as np
    import pandas as pd
    n = len(vectors[0])
    return pd.DataFrame({"item_id": np.tile(np.arange(n), len(vectors)),
                         "model": np.repeat(np.array(names, dtype=object), n),
                         "score": np.concatenate(vectors)})


def _evalci_mmlu() -> Workload:
    def setup() -> Any:
        import evalci  # noqa: F401  (import cost outside the timing)
        return _evalci_frame(_mmlu_vectors(), _mmlu_names())

    def warmup(frame: Any) -> Any:
        # one full-size pair: imports, pandas pivoting and first-touch page faults
        import evalci
        first_two = frame[frame["model"].isin(_mmlu_names()[:2])]
        return evalci.multi_compare(first_two, correction="holm", method="permutation",
                                    paired=False, alpha=ALPHA, random_state=1)

    def run(frame: Any) -> Any:
        import evalci
        return evalci.multi_compare(frame, correction="holm", method="permutation",
                                    paired=False, alpha=ALPHA, random_state=0)

    def summarize(frame: Any, result: Any) -> dict[str, Any]:
        import inspect

        import evalci
        lookup = {}
        for row in result.itertuples():
            lookup[frozenset((row.model_a, row.model_b))] = float(row.p_adj)
        out = _adjacent_summary(lambda lo, hi: lookup[frozenset((lo, hi))])
        # evalci calls a pair significant when p_adj < alpha; the count above uses <=
        # like reportgen; report evalci's own flag too.
        own = {frozenset((r.model_a, r.model_b)): bool(r.significant)
               for r in result.itertuples()}
        names = _mmlu_names()
        out["adjacent_non_significant_evalci_flag"] = sum(
            not own[frozenset(p)] for p in zip(names[:-1], names[1:]))
        out.update(test="evalci multi_compare permutation", n_pairs=len(result),
                   significant_pairs=int(result["significant"].sum()),
                   n_resamples=inspect.signature(evalci.multi_compare)
                   .parameters["n_resamples"].default,
                   evalci_version=_version("evalci"))
        return out

    return Workload(
        "mmlu_evalci", "reference",
        "MMLU reference: evalci multi_compare permutation, paired=False, Holm, "
        "9,999 resamples (default)",
        setup, run, summarize, warmup=warmup, slow=True)


def _ours_paired(method: str) -> Workload:
    def run(X: Any) -> Any:
        from reportgen.stats.pairwise import compare_paired
        return compare_paired(X, method=method, n_resamples=PAIRED_RESAMPLES, rng=0)

    def summarize(X: Any, result: Any) -> dict[str, Any]:
        return {"test": result.test, "n_pairs": result.n_pairs, "exact": result.exact,
                "significant_pairs": int(result.significant().sum()),
                "p_value": [float(p) for p in result.p_value]}

    return Workload(
        f"paired15_{method}", "ours",
        f"{PAIRED_SYSTEMS} systems x {PAIRED_ITEMS:,} paired continuous items, 105 pairs: "
        f"compare_paired {method} {PAIRED_RESAMPLES}",
        _paired_scores, run, summarize, warmup=run)


def _mean_statistic(x: Any, axis: int) -> Any:
    return x.mean(axis=axis)


def _scipy_permutation(d: Any, seed: int) -> float:
    import inspect

    from scipy import stats
    seed_kw = "rng" if "rng" in inspect.signature(stats.permutation_test).parameters \
        else "random_state"
    res = stats.permutation_test((d,), _mean_statistic, permutation_type="samples",
                                 n_resamples=PAIRED_RESAMPLES, vectorized=True,
                                 alternative="two-sided", **{seed_kw: seed})
    return float(res.pvalue)


def _scipy_paired() -> Workload:
    def setup() -> Any:
        import numpy as np
        X = _paired_scores()
        ia, ib = np.triu_indices(PAIRED_SYSTEMS, k=1)
        return [(k, X[:, ia[k]] - X[:, ib[k]]) for k in SCIPY_SUBSET]

    def warmup(diffs: Any) -> Any:
        return _scipy_permutation(diffs[0][1], 12345)  # one full-size pair

    def run(diffs: Any) -> Any:
        per_pair = []
        for k, d in diffs:
            start = time.perf_counter()
            p = _scipy_permutation(d, k)
            per_pair.append((k, p, time.perf_counter() - start))
        return per_pair

    def summarize(diffs: Any, per_pair: Any) -> dict[str, Any]:
        return {"subset": [k for k, _, _ in per_pair],
                "p_value": [p for _, p, _ in per_pair],
                "pair_seconds": [s for _, _, s in per_pair]}

    return Workload(
        "paired15_scipy", "reference",
        f"paired reference: per-pair loop of scipy.stats.permutation_test (sign flips, "
        f"vectorized, {PAIRED_RESAMPLES} resamples) on {len(SCIPY_SUBSET)} of 105 pairs",
        setup, run, summarize, warmup=warmup, slow=True)


def _systems_ci_scores() -> Any:
    import numpy as np
    rng = np.random.default_rng(20261122)
    # skewed continuous scores in [0, 1] (a beta per system), as similarity metrics are
    a = rng.uniform(1.0, 4.0, SYSTEMS_CI)
    return rng.beta(a, 2.0, size=(SYSTEMS_CI_ITEMS, SYSTEMS_CI))


def _ours_systems_ci() -> Workload:
    def run(X: Any) -> Any:
        from reportgen.stats.means import mean_intervals
        return mean_intervals(X, method="bca", n_resamples=SYSTEMS_CI_RESAMPLES, rng=0)

    def summarize(X: Any, result: Any) -> dict[str, Any]:
        return {"method": result.method, "n_systems": len(result.systems),
                "ci_low": [float(v) for v in result.ci_low[list(SCIPY_CI_SUBSET)]],
                "ci_high": [float(v) for v in result.ci_high[list(SCIPY_CI_SUBSET)]]}

    return Workload(
        "systems50_bca", "ours",
        f"{SYSTEMS_CI} systems x {SYSTEMS_CI_ITEMS:,} items: mean_intervals BCa, "
        f"{SYSTEMS_CI_RESAMPLES} resamples", _systems_ci_scores, run, summarize, warmup=run)


def _scipy_systems_ci() -> Workload:
    def setup() -> Any:
        X = _systems_ci_scores()
        return [(j, X[:, j].copy()) for j in SCIPY_CI_SUBSET]

    def one(x: Any, seed: int) -> tuple[float, float]:
        import numpy as np
        from scipy import stats
        res = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=SYSTEMS_CI_RESAMPLES,
                              vectorized=True, rng=np.random.default_rng(seed))
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
        return {"subset": [j for j, *_ in out], "ci_low": [lo for _, lo, _, _ in out],
                "ci_high": [hi for _, _, hi, _ in out],
                "system_seconds": [t for *_, t in out]}

    return Workload(
        "systems50_scipy", "reference",
        f"per-system reference: scipy.stats.bootstrap(method='BCa', {SYSTEMS_CI_RESAMPLES} "
        f"resamples) on {len(SCIPY_CI_SUBSET)} of {SYSTEMS_CI} systems",
        setup, run, summarize, warmup=warmup, slow=True)


def _ours_rank_distributions() -> Workload:
    def run(X: Any) -> Any:
        from reportgen.stats.ranking import rank_distributions
        return rank_distributions(X, paired=True, n_resamples=SYSTEMS_CI_RESAMPLES, rng=0)

    def summarize(X: Any, result: Any) -> dict[str, Any]:
        return {"n_systems": len(result.systems),
                "p_best": [float(v) for v in result.p_best[:5]]}

    return Workload(
        "ranks50_bootstrap", "ours",
        f"{SYSTEMS_CI} systems x {SYSTEMS_CI_ITEMS:,} paired items: rank_distributions, "
        f"{SYSTEMS_CI_RESAMPLES} resamples", _systems_ci_scores, run, summarize, warmup=run)


WORKLOADS: dict[str, Workload] = {w.name: w for w in (
    _ours_mmlu("auto"), _ours_mmlu("permutation"), _ours_mmlu("bootstrap"), _evalci_mmlu(),
    _ours_paired("permutation"), _ours_paired("bootstrap"), _scipy_paired(),
    _ours_systems_ci(), _scipy_systems_ci(), _ours_rank_distributions(),
)}


# ============================================================================ worker


def _peak_mb() -> float:
    """Peak resident set size of this process in MB (ru_maxrss is KiB on Linux,
    bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def _version(module: str) -> str | None:
    try:
        from importlib.metadata import version
        return version(module)
    except Exception:  # not installed
        return None


def _import_baseline() -> None:
    """The imports every workload child pays: numpy, scipy.stats, reportgen."""
    if importlib.util.find_spec("reportgen") is None:  # not installed: use the checkout
        sys.path.insert(0, str(REPO))
    import numpy  # noqa: F401
    import scipy.stats  # noqa: F401

    import reportgen.stats.pairwise  # noqa: F401


def _worker(name: str, repeats: int) -> dict[str, Any]:
    _import_baseline()
    if name == "baseline":
        import numpy
        import scipy
        return {"peak_mb": _peak_mb(), "numpy": numpy.__version__,
                "scipy": scipy.__version__, "blas": _blas_name(),
                "reportgen": _version("reportgen"), "evalci": _version("evalci"),
                "pandas": _version("pandas")}
    workload = WORKLOADS[name]
    state = workload.setup()
    after_setup = _peak_mb()
    if workload.warmup is not None:
        workload.warmup(state)
    times, output = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        output = workload.run(state)
        times.append(time.perf_counter() - start)
        print(f"  {name}: {times[-1]:.3f} s", file=sys.stderr, flush=True)
    return {"times_s": times, "median_s": statistics.median(times), "repeats": repeats,
            "warmup": workload.warmup is not None, "peak_mb": _peak_mb(),
            "after_setup_mb": after_setup, "summary": workload.summarize(state, output)}


def _blas_name() -> str | None:
    try:
        import numpy
        config = numpy.show_config(mode="dicts")
        return config["Build Dependencies"]["blas"]["name"]
    except Exception:  # older numpy: no dict mode
        return None


# ============================================================================ parent


def _run_child(name: str, repeats: int) -> dict[str, Any]:
    """Run one workload in a fresh interpreter and parse its result line."""
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", name,
               "--repeats", str(repeats)]
    proc = subprocess.run(command, stdout=subprocess.PIPE, text=True, cwd=REPO)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    return {"error": f"worker {name!r} exited with status {proc.returncode} without a "
                     "result (see the messages above)"}


def _environment(baseline: dict[str, Any]) -> dict[str, Any]:
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        affinity = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "numpy": baseline.get("numpy"), "scipy": baseline.get("scipy"),
        "pandas": baseline.get("pandas"), "blas": baseline.get("blas"),
        "reportgen": baseline.get("reportgen"), "evalci": baseline.get("evalci"),
        "cpu_count": os.cpu_count(), "cpu_affinity": affinity,
        "cpu_model": _cpu_model(), "machine": platform.machine(),
        "system": f"{platform.system()} {platform.release()}",
        "thread_env": {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                  "MKL_NUM_THREADS") if k in os.environ},
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
    }


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _fmt_s(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if value < 1 else f"{value:.2f}"


def _fmt_ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}x" if value >= 100 else f"{value:.1f}x"


def _rows(results: dict[str, dict[str, Any]], baseline_mb: float) -> list[dict[str, Any]]:
    """One table row per 'ours' workload, with its reference, ratio and target."""
    evalci = results.get("mmlu_evalci", {})
    scipy_ref = results.get("paired15_scipy", {})
    scipy_full = scipy_ref.get("extrapolated_full_s")
    rows = []
    for name, res in results.items():
        workload = WORKLOADS[name]
        if workload.kind != "ours" or "error" in res:
            continue
        ours, peak = res["median_s"], res["peak_mb"]
        if name.startswith("mmlu_"):
            reference = evalci.get("median_s")
            ref_label = "evalci multi_compare"
            target = f"< {TARGET_MMLU_S} s"
            passed = ours < TARGET_MMLU_S
        elif name == "ranks50_bootstrap":
            reference, ref_label = None, ""
            target = f"< {TARGET_CI_S:.0f} s, < {TARGET_PAIRED_MB / 1024:.0f} GB"
            passed = ours < TARGET_CI_S and peak < TARGET_PAIRED_MB
        elif name == "systems50_bca":
            ci_ref = results.get("systems50_scipy", {})
            per_system = ci_ref.get("summary", {}).get("system_seconds")
            reference = (sum(per_system) / len(per_system) * SYSTEMS_CI
                         if per_system else None)
            ref_label = f"scipy bootstrap loop, extrapolated {SYSTEMS_CI}/" \
                        f"{len(SCIPY_CI_SUBSET)}"
            target = f"< {TARGET_CI_S:.0f} s, < {TARGET_PAIRED_MB / 1024:.0f} GB"
            passed = ours < TARGET_CI_S and peak < TARGET_PAIRED_MB
        else:
            reference = scipy_full if name == "paired15_permutation" else None
            ref_label = "scipy loop, extrapolated 105/10" if reference else ""
            target = f"< {TARGET_PAIRED_S:.0f} s, < {TARGET_PAIRED_MB / 1024:.0f} GB"
            passed = ours < TARGET_PAIRED_S and peak < TARGET_PAIRED_MB
        rows.append({"workload": name, "ours_median_s": ours, "peak_mb": peak,
                     "increment_mb": peak - baseline_mb, "reference_s": reference,
                     "reference": ref_label if reference else None,
                     "ratio": reference / ours if reference else None,
                     "target": target, "pass": passed})
    return rows


def _print_table(rows: list[dict[str, Any]], results: dict[str, dict[str, Any]],
                 baseline_mb: float) -> None:
    header = (f"{'workload':<22} {'ours med s':>10} {'peak MB':>8} {'(+base)':>8} "
              f"{'ref s':>9} {'ref/ours':>9}  {'target':<18} result")
    print()
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['workload']:<22} {_fmt_s(r['ours_median_s']):>10} {r['peak_mb']:>8.0f} "
              f"{'+' + format(r['increment_mb'], '.0f'):>8} {_fmt_s(r['reference_s']):>9} "
              f"{_fmt_ratio(r['ratio']):>9}  {r['target']:<18} "
              f"{'PASS' if r['pass'] else 'FAIL'}")
    print("-" * len(header))
    print(f"baseline process (imports numpy, scipy.stats, reportgen only): "
          f"{baseline_mb:.0f} MB peak")
    for name in ("mmlu_evalci", "paired15_scipy", "systems50_scipy"):
        res = results.get(name)
        if res is None:
            continue
        if "error" in res:
            print(f"reference {name}: {res['error']}")
            continue
        line = (f"reference {name}: median {_fmt_s(res['median_s'])} s over "
                f"{res['repeats']} repeat(s), peak {res['peak_mb']:.0f} MB")
        if name == "paired15_scipy":
            per_pair = statistics.median(res["summary"]["pair_seconds"])
            line += (f"; {len(SCIPY_SUBSET)} of 105 pairs timed ({per_pair:.2f} s per pair), "
                     f"EXTRAPOLATED to 105 pairs: {_fmt_s(res['extrapolated_full_s'])} s")
        if name == "systems50_scipy":
            seconds = res["summary"]["system_seconds"]
            line += (f"; {len(seconds)} of {SYSTEMS_CI} systems timed "
                     f"({sum(seconds) / len(seconds):.2f} s per system), EXTRAPOLATED to "
                     f"{SYSTEMS_CI}: {_fmt_s(sum(seconds) / len(seconds) * SYSTEMS_CI)} s")
        print(line)
    print("ours: median of the repeats after one warm-up call; peak MB = ru_maxrss of the "
          "workload's own fresh process, (+base) = minus the baseline process")


def _print_checks(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Adjacent-rank significance (seed 003 §5) and agreement of the paired p-values."""
    checks: dict[str, Any] = {}
    mmlu = [n for n in ("mmlu_auto", "mmlu_permutation", "mmlu_bootstrap", "mmlu_evalci")
            if n in results and "error" not in results[n]]
    if mmlu:
        print()
        print(f"MMLU adjacent-rank pairs, Holm-adjusted p over all 36 pairs "
              f"(alpha = {ALPHA}; seed 003: {SEED003_NON_SIGNIFICANT} of 8 not significant)")
        head = f"{'higher':<18} {'lower':<16} {'seed 003':>8}" + "".join(
            f" {n.removeprefix('mmlu_'):>12}" for n in mmlu)
        print(head)
        adjacent = {n: results[n]["summary"]["adjacent"] for n in mmlu}
        first = adjacent[mmlu[0]]
        for k, row in enumerate(first):
            print(f"{row['higher']:<18} {row['lower']:<16} {SEED003_ADJACENT_P_ADJ[k]:>8.4g}"
                  + "".join(f" {adjacent[n][k]['p_adjusted']:>12.4g}" for n in mmlu))
        counts = {n: results[n]["summary"]["adjacent_non_significant"] for n in mmlu}
        print("not significant of 8: " + ", ".join(
            f"{n.removeprefix('mmlu_')} {c}" for n, c in counts.items())
            + f" (seed 003: {SEED003_NON_SIGNIFICANT})")
        checks["mmlu_adjacent_non_significant"] = counts
        checks["mmlu_adjacent_matches_seed003"] = {
            n: c == SEED003_NON_SIGNIFICANT for n, c in counts.items()}
    ours, ref = results.get("paired15_permutation"), results.get("paired15_scipy")
    if ours and ref and "error" not in ours and "error" not in ref:
        diffs = [abs(ours["summary"]["p_value"][k] - p)
                 for k, p in zip(ref["summary"]["subset"], ref["summary"]["p_value"])]
        worst = max(diffs)
        checks["paired_permutation_max_abs_p_diff_vs_scipy"] = worst
        print(f"\npaired permutation p-values, ours vs scipy on the {len(diffs)} timed pairs: "
              f"max |difference| = {worst:.4f} (two independent Monte Carlo estimates "
              f"with {PAIRED_RESAMPLES} resamples: the SD of their difference is up to "
              f"0.007 near p = 0.5; scipy's two-sided p doubles the smaller tail)")
    return checks


def _compare(previous_path: Path, current: dict[str, Any]) -> None:
    """Print the change of every workload against a previous JSON result."""
    previous = json.loads(previous_path.read_text())
    print(f"\nchange against {previous_path} ({previous.get('date', '?')}, "
          f"commit {str(previous.get('environment', {}).get('git_commit'))[:10]})")
    print(f"{'workload':<22} {'prev s':>9} {'now s':>9} {'now/prev':>9} "
          f"{'prev MB':>8} {'now MB':>8}")
    for name, now in current["workloads"].items():
        before = previous.get("workloads", {}).get(name)
        if not before or "error" in before or "error" in now:
            print(f"{name:<22} {'(not in both runs)':>29}")
            continue
        print(f"{name:<22} {_fmt_s(before['median_s']):>9} {_fmt_s(now['median_s']):>9} "
              f"{now['median_s'] / before['median_s']:>8.2f}x "
              f"{before['peak_mb']:>8.0f} {now['peak_mb']:>8.0f}")
    env_before, env_now = previous.get("environment", {}), current["environment"]
    changed = [f"{k}: {env_before.get(k)} -> {env_now.get(k)}"
               for k in ("numpy", "scipy", "cpu_count", "cpu_model", "python", "blas")
               if env_before.get(k) != env_now.get(k)]
    if changed:
        print("environment differs: " + "; ".join(changed))


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Speed and memory benchmarks of reportgen's pairwise comparisons "
                    "(issue 3).")
    parser.add_argument("--quick", action="store_true",
                        help="skip the slow references (evalci, scipy loop); the result is "
                             "saved as compare-<date>-quick.json and latest.json is kept")
    parser.add_argument("--compare", type=Path, metavar="PATH",
                        help="print the change against a previous result JSON")
    parser.add_argument("--repeats", type=int, default=5,
                        help="timed repeats of our workloads (default 5)")
    parser.add_argument("--ref-repeats", type=int, default=1,
                        help="timed repeats of the slow references (default 1)")
    parser.add_argument("--only", metavar="NAMES",
                        help="comma-separated workload names (see --list)")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    parser.add_argument("--no-save", action="store_true", help="do not write JSON results")
    parser.add_argument("--output-dir", type=Path, default=RESULTS_DIR,
                        help=f"where the JSON goes (default {RESULTS_DIR})")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.ref_repeats < 1:
        parser.error("--repeats and --ref-repeats must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    if args.worker:
        result = _worker(args.worker, args.repeats)
        print(MARKER + json.dumps(result), flush=True)
        return 0
    if args.list:
        for w in WORKLOADS.values():
            print(f"{w.name:<22} {w.kind:<9} {w.description}")
        return 0
    names = list(WORKLOADS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in WORKLOADS]
        if unknown:
            print(f"unknown workload(s): {', '.join(unknown)}; known: "
                  f"{', '.join(WORKLOADS)}", file=sys.stderr)
            return 2
    if args.quick:
        names = [n for n in names if not WORKLOADS[n].slow]

    started = _dt.datetime.now(_dt.timezone.utc)
    print("baseline process ...", file=sys.stderr, flush=True)
    baseline = _run_child("baseline", 1)
    if "error" in baseline:
        print(baseline["error"], file=sys.stderr)
        return 1
    if "mmlu_evalci" in names and baseline.get("evalci") is None:
        print("evalci is not installed in this interpreter: skipping the MMLU reference "
              "(benchmarks/run.sh installs it in .venv-bench)", file=sys.stderr)
        names.remove("mmlu_evalci")
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        workload = WORKLOADS[name]
        repeats = args.ref_repeats if workload.slow else args.repeats
        print(f"{name} ({repeats} repeat(s) after a warm-up) ...", file=sys.stderr,
              flush=True)
        res = _run_child(name, repeats)
        res["kind"], res["description"] = workload.kind, workload.description
        if name == "paired15_scipy" and "error" not in res:
            res["extrapolated_full_s"] = res["median_s"] * 105 / len(SCIPY_SUBSET)
            res["extrapolated_from_pairs"] = len(SCIPY_SUBSET)
        res["increment_mb"] = res["peak_mb"] - baseline["peak_mb"] if "peak_mb" in res \
            else None
        results[name] = res

    rows = _rows(results, baseline["peak_mb"])
    _print_table(rows, results, baseline["peak_mb"])
    checks = _print_checks(results)
    record = {
        "schema": SCHEMA_VERSION,
        "date": started.isoformat(timespec="seconds"),
        "quick": args.quick,
        "argv": sys.argv[1:] if argv is None else argv,
        "environment": _environment(baseline),
        "baseline_peak_mb": baseline["peak_mb"],
        "targets": {"mmlu_s": TARGET_MMLU_S, "paired_s": TARGET_PAIRED_S,
                    "paired_peak_mb": TARGET_PAIRED_MB},
        "rows": rows,
        "checks": checks,
        "workloads": results,
    }
    if args.compare:
        _compare(args.compare, record)
    if not args.no_save:
        args.output_dir.mkdir(parents=True, exist_ok=True)
        stem = f"compare-{started.date().isoformat()}" + \
            ("-partial" if args.only else "-quick" if args.quick else "")
        text = json.dumps(record, indent=1) + "\n"
        path = args.output_dir / f"{stem}.json"
        path.write_text(text)
        written = [path]
        if not args.quick and not args.only:
            (args.output_dir / "latest.json").write_text(text)
            written.append(args.output_dir / "latest.json")
        print("\nwrote " + ", ".join(str(p) for p in written))
    failed = [r["workload"] for r in rows if not r["pass"]]
    if failed:
        print(f"targets missed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

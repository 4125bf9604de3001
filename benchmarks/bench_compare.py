"""The benchmark suite of reportgen (issue 9): every workload, one table, one JSON file.

Every workload runs in a fresh Python subprocess (this script with ``--worker NAME``):
the child builds its seeded data, runs one warm-up, times ``repeats`` calls with
``time.perf_counter`` and reports the median, and reads its own peak resident set size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``). A child that only imports numpy, scipy
and reportgen gives the baseline memory, so the increment of each workload is visible.
The parent process imports nothing heavier than the standard library: on Linux a child's
``ru_maxrss`` starts from its parent's resident size at ``fork``/``exec``, so a small
parent keeps the children's figures honest. ``reportgen run`` workloads start a fresh
interpreter for every repeat (a user's CLI run pays its imports each time).

Workloads (``python benchmarks/bench_compare.py --list``; benchmarks/README.md):

* ``mmlu_*`` — seed 003 §5: nine models, n = 14,042 items each, unpaired, 36 pairs,
  Holm; exact, Monte Carlo (R = 9,999) and bootstrap; reference evalci ``multi_compare``.
* ``paired15_*``, ``systems50_*``, ``ranks50_*`` — 15 and 50 systems × 10,000 paired
  continuous items: permutation of all pairs, bootstrap, BCa intervals, rank
  distributions; references are per-pair (per-system, per-resample) scipy loops.
* ``arena5_*`` — the five shared eval-arena benchmarks: exact tests of all pairs, noise
  profiles, rank distributions, and the whole ``analyze``; reference a per-pair loop.
* ``scaling_*`` — the paired permutation test of all pairs as items and systems grow.
* ``report_*`` — ``reportgen run`` end to end with the time split by stage.

Usage::

    python benchmarks/bench_compare.py            # everything (the references take minutes)
    python benchmarks/bench_compare.py --quick    # the fast tier only
    python benchmarks/bench_compare.py --compare benchmarks/results/latest.json

``benchmarks/run.sh`` creates ``.venv-bench`` with the project and evalci, then runs this.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the workload modules live beside this script
    sys.path.insert(0, str(HERE))

import workloads_arena
import workloads_cli
import workloads_cli_scale
import workloads_pairwise
import workloads_report
import workloads_scale
import workloads_scaling
from _workload import REPO, Workload, children_peak_mb, peak_mb, version

RESULTS_DIR = HERE / "results"
MARKER = "@@bench-result@@ "
SCHEMA_VERSION = 2

WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        *workloads_pairwise.workloads(),
        *workloads_arena.workloads(),
        *workloads_scaling.workloads(),
        *workloads_scale.workloads(),
        *workloads_report.workloads(),
        *workloads_cli.workloads(),
        *workloads_cli_scale.workloads(),
    )
}


# ============================================================================ worker


def _import_baseline() -> None:
    """The imports every workload child pays: numpy, scipy.stats, reportgen."""
    if importlib.util.find_spec("reportgen") is None:  # not installed: use the checkout
        sys.path.insert(0, str(REPO))
    import numpy  # noqa: F401
    import scipy.stats  # noqa: F401

    import reportgen.stats.pairwise  # noqa: F401


def _blas_name() -> str | None:
    try:
        import numpy

        config = numpy.show_config(mode="dicts")
        return config["Build Dependencies"]["blas"]["name"]
    except (TypeError, KeyError):  # older numpy: no dict mode
        return None


def _worker(name: str, repeats: int) -> dict[str, Any]:
    _import_baseline()
    if name == "baseline":
        import numpy
        import scipy

        return {
            "peak_mb": peak_mb(),
            "numpy": numpy.__version__,
            "scipy": scipy.__version__,
            "blas": _blas_name(),
            "reportgen": version("reportgen"),
            "evalci": version("evalci"),
            "pandas": version("pandas"),
            "statsmodels": version("statsmodels"),
        }
    workload = WORKLOADS[name]
    state = workload.setup()
    after_setup = peak_mb()
    if workload.warmup is not None:
        workload.warmup(state)
    times, output = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        output = workload.run(state)
        times.append(time.perf_counter() - start)
        print(f"  {name}: {times[-1]:.3f} s", file=sys.stderr, flush=True)
    summary = workload.summarize(state, output)
    return {
        "times_s": times,
        "median_s": statistics.median(times),
        "repeats": repeats,
        "warmup": workload.warmup is not None,
        "peak_mb": peak_mb(),
        "children_peak_mb": children_peak_mb(),
        "after_setup_mb": after_setup,
        "summary": summary,
    }


# ============================================================================ parent


def _run_child(name: str, repeats: int) -> dict[str, Any]:
    """Run one workload in a fresh interpreter and parse its result line."""
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        name,
        "--repeats",
        str(repeats),
    ]
    proc = subprocess.run(command, stdout=subprocess.PIPE, text=True, cwd=REPO, check=False)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER) :])
    return {
        "error": f"worker {name!r} exited with status {proc.returncode} without a "
        "result (see the messages above)"
    }


def _run_workload(workload: Workload, repeats: int) -> dict[str, Any]:
    """Run a workload's children and merge them into one result."""
    if workload.max_repeats is not None:
        repeats = min(repeats, workload.max_repeats)
    if not workload.fresh_process_per_repeat:
        return _run_child(workload.name, repeats)
    runs = []
    for _ in range(repeats):
        res = _run_child(workload.name, 1)
        if "error" in res:
            return res
        runs.append(res)
    times = [r["times_s"][0] for r in runs]
    middle = sorted(range(len(runs)), key=lambda k: times[k])[(len(runs) - 1) // 2]
    return {
        "times_s": times,
        "median_s": statistics.median(times),
        "repeats": repeats,
        "warmup": False,
        "fresh_process_per_repeat": True,
        "peak_mb": max(r["peak_mb"] for r in runs),
        "children_peak_mb": max(r["children_peak_mb"] for r in runs),
        "after_setup_mb": max(r["after_setup_mb"] for r in runs),
        "summary": runs[middle]["summary"],
        "summary_of_repeat": middle,
    }


def _environment(baseline: dict[str, Any]) -> dict[str, Any]:
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        affinity = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        **{
            k: baseline.get(k)
            for k in ("numpy", "scipy", "pandas", "statsmodels", "blas", "reportgen", "evalci")
        },
        "cpu_count": os.cpu_count(),
        "cpu_affinity": affinity,
        "cpu_model": _cpu_model(),
        "machine": platform.machine(),
        "system": f"{platform.system()} {platform.release()}",
        "thread_env": {
            k: os.environ[k]
            for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
            if k in os.environ
        },
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
    }


def _load_average() -> list[float] | None:
    """1, 5 and 15 minute load averages (other work on the machine slows the timings)."""
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return None


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
        out = subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


# ============================================================================ table


def _fmt_s(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if value < 1 else f"{value:.2f}"


def _fmt_g(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _fmt_ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}x" if value >= 100 else f"{value:.1f}x"


def _rows(results: dict[str, dict[str, Any]], baseline_mb: float) -> list[dict[str, Any]]:
    """One table row per 'ours' workload, with its reference, ratio and target."""
    rows = []
    for name, res in results.items():
        workload = WORKLOADS[name]
        if workload.kind != "ours":
            continue
        if "error" in res:
            rows.append(
                {
                    "workload": name,
                    "error": res["error"],
                    "pass": False,
                    "target": workload.target.describe() if workload.target else "none",
                }
            )
            continue
        ref_name = workload.reference
        ref = results.get(ref_name or "", {})
        reference = ref.get("full_s") if "error" not in ref else None
        ratio = reference / res["median_s"] if reference else None
        target = workload.target
        summary = res.get("summary", {})
        rows.append(
            {
                "workload": name,
                "repeats": res["repeats"],
                "ours_median_s": res["median_s"],
                "peak_mb": res["peak_mb"],
                "increment_mb": res["peak_mb"] - baseline_mb,
                "reference": ref_name if reference else None,
                "reference_s": reference,
                "reference_extrapolated": bool(reference) and ref.get("scale", 1.0) != 1.0,
                "ratio": ratio,
                "target": target.describe() if target else "none",
                "slope": summary.get("slope"),
                # a CLI workload's own bounds (peak memory, size written, ratios)
                "pass": (target.check(res, ratio) if target else True)
                and bool(summary.get("targets_ok", True)),
            }
        )
    return rows


def _print_table(
    rows: list[dict[str, Any]], results: dict[str, dict[str, Any]], baseline_mb: float
) -> None:
    header = (
        f"{'workload':<22} {'n':>2} {'ours med s':>10} {'peak MB':>8} {'(+base)':>8} "
        f"{'ref s':>10} {'ref/ours':>9}  {'target':<26} result"
    )
    print()
    print(header)
    print("-" * len(header))
    for r in rows:
        if "error" in r:
            print(f"{r['workload']:<22} {'ERROR: ' + r['error']}")
            continue
        ref = _fmt_s(r["reference_s"]) + ("*" if r["reference_extrapolated"] else " ")
        result = "PASS" if r["pass"] else "FAIL"
        if r["slope"] is not None:
            result += f" (slope {r['slope']:.2f})"
        print(
            f"{r['workload']:<22} {r['repeats']:>2} {_fmt_s(r['ours_median_s']):>10} "
            f"{r['peak_mb']:>8.0f} {'+' + format(r['increment_mb'], '.0f'):>8} "
            f"{ref:>10} {_fmt_ratio(r['ratio']):>9}  {r['target']:<26} {result}"
        )
    print("-" * len(header))
    print(
        f"n = timed repeats; ours = their median (after one warm-up call, except the "
        f"report rows: one fresh process per repeat, no warm-up); peak MB = ru_maxrss of "
        f"the workload's own process; (+base) = minus the baseline process (imports "
        f"numpy, scipy.stats, reportgen only: {baseline_mb:.0f} MB)"
    )
    print(
        "ref s = the reference measured in this run (* = extrapolated from a timed part, "
        "as below); ref/ours = how many times faster ours is"
    )
    for name, res in results.items():
        workload = WORKLOADS[name]
        if workload.kind != "reference":
            continue
        if "error" in res:
            print(f"reference {name}: {res['error']}")
            continue
        line = (
            f"reference {name}: {workload.description}; median "
            f"{_fmt_s(res['median_s'])} s over {res['repeats']} repeat(s), peak "
            f"{res['peak_mb']:.0f} MB"
        )
        if workload.scale != 1.0:
            line += f"; {workload.scale_note}: {_fmt_s(res['full_s'])} s (EXTRAPOLATED)"
        elif workload.scale_note:
            line += f"; {workload.scale_note}"
        print(line)


# ============================================================================ details


def _ok(res: dict[str, Any] | None) -> bool:
    return bool(res) and "error" not in res  # type: ignore[operator]


def _print_scaling(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for name in ("scaling_items", "scaling_pairs"):
        res = results.get(name)
        if not _ok(res):
            continue
        summary = res["summary"]
        variable = summary["variable"]
        print(f"\n{name}: {WORKLOADS[name].description}")
        print(
            f"  {'items':>8} {'systems':>8} {'pairs':>6} {'median s':>9} "
            f"{variable + ' x':>9} {'time x':>7}"
        )
        for st in summary["steps"]:
            grow = "-" if st["size_ratio"] is None else f"{st['size_ratio']:.2f}"
            tgrow = "-" if st["time_ratio"] is None else f"{st['time_ratio']:.2f}"
            print(
                f"  {st['items']:>8,} {st['systems']:>8} {st['pairs']:>6,} "
                f"{st['median_s']:>9.4f} {grow:>9} {tgrow:>7}"
            )
        fit = summary["linear_fit"]
        per = next(v for k, v in fit.items() if k.startswith("seconds_per_"))
        print(
            f"  log-log slope in {variable}: {summary['slope']:.2f} over all steps, "
            f"{summary['last_step_slope']:.2f} over the last step; linear fit: "
            f"{fit['intercept_s']:.4f} s + {per:.3g} s per {variable[:-1]}"
        )
        out[name] = {
            "slope": summary["slope"],
            "last_step_slope": summary["last_step_slope"],
            "linear_fit": fit,
            "steps": [
                {
                    k: st[k]
                    for k in ("items", "systems", "pairs", "median_s", "size_ratio", "time_ratio")
                }
                for st in summary["steps"]
            ],
        }
    return out


def _print_reports(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for name in (
        "report_example",
        "report_arena4",
        "report_arena_all",
        "report_arena12",
        "report_arena12_html",
    ):
        res = results.get(name)
        if not _ok(res):
            continue
        summary = res["summary"]
        stages = summary["stages"]
        print(f"\n{name}: {WORKLOADS[name].description}")
        print(
            "  stages of the median run (s): "
            + ", ".join(f"{k} {v:.1f}" for k, v in stages.items())
            + (f"; {summary['pages']} PDF pages" if summary["pages"] else "; no PDF")
        )
        print(
            "  notebook cells >= 0.5 s: "
            + ", ".join(f"{k} {v:.1f}" for k, v in summary["cells"].items() if v >= 0.5)
        )
        html, ref = stages["html"], summary["nbconvert_html_s"]
        print(
            f"  HTML export {html:.2f} s vs nbconvert's stock HTMLExporter {ref:.2f} s on "
            f"the same notebook (ours/theirs {html / ref:.2f}); peak MB: this process "
            f"{res['peak_mb']:.0f}, notebook kernel {summary['kernel_peak_mb']:.0f}"
        )
        out[name] = {
            "stages": stages,
            "pages": summary["pages"],
            "html_vs_nbconvert": html / ref if ref else None,
        }
        if "analyze_s" in summary:
            ratio = summary["run_over_analyze"]
            verdict = "ok" if summary["run_over_analyze_ok"] else "MISSED"
            print(
                f"  run {summary['run_s']:.1f} s vs analyze {summary['analyze_s']:.1f} s "
                f"of the same data: run/analyze {ratio:.2f} (target <= 3: {verdict}); "
                f"report.html {summary['html_bytes'] / 2**20:.1f} MB"
            )
            out[name]["run_over_analyze"] = ratio
    return out


#: Each CLI workload (a fresh process of the default install) and the in-process
#: workload of the same data, printed side by side (issue 35).
CLI_BESIDE = {
    "cli_systems1000": ("systems1000", "analyze_s"),
    "cli_rows2m_inspect": ("rows2m", "load_s"),
    "cli_rows2m_analyze": ("rows2m", "load_s"),
    "cli_report_example": ("report_example", None),
    "cli_arena_all": ("report_arena_all", "run_s"),
    "cli_arena12": ("report_arena12", "run_s"),
}


def _print_cli(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The CLI figures on the default install beside the in-process ones of this run."""
    out: dict[str, Any] = {}
    names = [n for n in CLI_BESIDE if _ok(results.get(n))]
    if not names:
        return out
    print(
        f"\nthrough the CLI on the default install ({workloads_cli_scale.DEFAULT_VENV}), "
        "one fresh process, beside the in-process figure of the same data in this run"
    )
    print(
        f"  {'workload':<20} {'CLI s':>7} {'CLI peak MB':>11} {'results.json':>12} "
        f"{'written':>9}  {'in-process':<30} result"
    )
    for name in names:
        s = results[name]["summary"]
        inproc_name, key = CLI_BESIDE[name]
        inproc = results.get(inproc_name)
        beside = "-"
        if _ok(inproc):
            value = inproc["summary"].get(key) if key else inproc["median_s"]
            beside = f"{inproc_name} {value:.2f} s, {inproc['peak_mb']:.0f} MB"
        extra = ""
        if "allowed_s" in s:
            extra = (
                f"; read_csv {s['read_csv_s']:.2f} s in its process, allowed "
                f"{s['allowed_s']:.2f} s ({s['inspect_over_read_csv']:.1f}x)"
            )
        if "run_over_analyze" in s:
            extra = (
                f"; analyze {s['analyze_s']:.1f} s ({s['analyze_peak_mb']:.0f} MB): "
                f"run/analyze {s['run_over_analyze']:.2f}, HTML "
                f"{s['html_bytes'] / 2**20:.1f} MB, {s['pages']} PDF pages"
            )
        elif s.get("pages"):
            extra = f"; {s['pages']} PDF pages"
        print(
            f"  {name:<20} {s['cli_s']:>7.2f} {s['cli_peak_mb']:>11.0f} "
            f"{s.get('results_json_bytes', 0) / 2**20:>9.2f} MB "
            f"{s.get('written_bytes', 0) / 2**20:>6.1f} MB  {beside:<30} "
            f"{'ok' if s['targets_ok'] else 'MISSED'}{extra}"
        )
        out[name] = {k: v for k, v in s.items() if k != "files"}
    return out


def _print_mmlu(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    checks: dict[str, Any] = {}
    mmlu = [
        n
        for n in (
            "mmlu_auto",
            "mmlu_permutation",
            "mmlu_permutation_mc",
            "mmlu_bootstrap",
            "mmlu_evalci",
        )
        if _ok(results.get(n))
    ]
    if not mmlu:
        return checks
    alpha, expected = workloads_pairwise.ALPHA, workloads_pairwise.SEED003_NON_SIGNIFICANT
    print(
        f"\nMMLU adjacent-rank pairs, Holm-adjusted p over all 36 pairs (alpha = {alpha}; "
        f"seed 003: {expected} of 8 not significant)"
    )
    label = {n: n.removeprefix("mmlu_").replace("permutation", "perm") for n in mmlu}
    print(
        f"  {'higher':<18} {'lower':<16} {'seed 003':>8}"
        + "".join(f" {label[n]:>10}" for n in mmlu)
    )
    adjacent = {n: results[n]["summary"]["adjacent"] for n in mmlu}
    for k, row in enumerate(adjacent[mmlu[0]]):
        print(
            f"  {row['higher']:<18} {row['lower']:<16} "
            f"{workloads_pairwise.SEED003_ADJACENT_P_ADJ[k]:>8.4g}"
            + "".join(f" {adjacent[n][k]['p_adjusted']:>10.4g}" for n in mmlu)
        )
    counts = {n: results[n]["summary"]["adjacent_non_significant"] for n in mmlu}
    print(
        "  not significant of 8: "
        + ", ".join(f"{label[n]} {c}" for n, c in counts.items())
        + f" (seed 003: {expected})"
    )
    checks["mmlu_adjacent_non_significant"] = counts
    checks["mmlu_adjacent_matches_seed003"] = {n: c == expected for n, c in counts.items()}
    return checks


def _print_pairwise_checks(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    checks: dict[str, Any] = {}
    for ours_name, ref_name, key in (
        ("paired15_permutation", "paired15_scipy", "p_value"),
        ("systems50_permutation", "systems50_perm_scipy", "p_value_subset"),
    ):
        ours, ref = results.get(ours_name), results.get(ref_name)
        if not (_ok(ours) and _ok(ref)):
            continue
        values = ours["summary"][key]
        subset = ref["summary"]["subset"]
        if key == "p_value":
            values = [values[k] for k in subset]
        worst = max(abs(a - b) for a, b in zip(values, ref["summary"]["p_value"]))
        checks[f"{ours_name}_max_abs_p_diff_vs_scipy"] = worst
        print(
            f"\n{ours_name}: p-values vs scipy.stats.permutation_test on the "
            f"{len(subset)} timed pairs: max |difference| = {worst:.4f} (two independent "
            f"Monte Carlo estimates with 10,000 resamples: the SD of their difference is "
            f"up to 0.007 near p = 0.5)"
        )
    ours, ref = results.get("systems50_bca"), results.get("systems50_scipy")
    if _ok(ours) and _ok(ref):
        worst = max(
            abs(a - b)
            for side in ("ci_low", "ci_high")
            for a, b in zip(ours["summary"][side], ref["summary"][side])
        )
        checks["systems50_bca_max_abs_endpoint_diff_vs_scipy"] = worst
        print(
            f"\nsystems50_bca: BCa endpoints vs scipy.stats.bootstrap(method='BCa') on the "
            f"{len(ref['summary']['subset'])} timed systems: max |difference| = "
            f"{worst:.2e} (Monte Carlo; the SE of each mean is about 2e-3)"
        )
    ours, ref = results.get("ranks50_bootstrap"), results.get("ranks50_loop")
    if _ok(ours) and _ok(ref):
        worst = max(
            abs(a - b) for a, b in zip(ours["summary"]["mean_rank"], ref["summary"]["mean_rank"])
        )
        checks["ranks50_max_abs_mean_rank_diff_vs_loop"] = worst
        print(
            f"\nranks50_bootstrap: mean ranks vs the resample loop "
            f"({ref['summary']['n_resamples']:,} resamples): max |difference| = "
            f"{worst:.3f} (Monte Carlo)"
        )
    return checks


def _print_arena(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    checks: dict[str, Any] = {}
    ours, ref = results.get("arena5_stats"), results.get("arena5_scipy")
    if _ok(ours):
        print(
            "\narena5_stats per benchmark: "
            + "; ".join(
                f"{b['dataset']} {b['n_items']} x {b['n_systems']} ({b['n_pairs']} pairs, "
                f"{b['significant_pairs']} significant, p5_min/p5_max "
                f"{_fmt_g(b['p5_min_items'])}/{_fmt_g(b['p5_max_items'])} items)"
                for b in ours["summary"]["benchmarks"]
            )
        )
    analysis = results.get("arena5_analyze")
    if _ok(analysis):
        s = analysis["summary"]
        print(
            f"arena5_analyze: last run load {s['load_s']:.2f} s + analyze "
            f"{s['analyze_s']:.2f} s; {s['n_comparisons']} comparisons, "
            f"{s['noise_profiles']} noise profiles, {s['rankings']} ranking entries"
        )
    if _ok(ref):
        s = ref["summary"]
        agree = s["agreement"]
        checks["arena5"] = agree
        print(f"arena5_scipy: pair loop {s['pairs_s']:.2f} s + rank loop {s['ranks_s']:.2f} s")
        print(
            f"arena5 correctness on all {agree['n_pairs']} pairs: max |p ours - p "
            f"binomtest| = {agree['max_abs_p_diff_compare_vs_binomtest']:.1e} "
            f"(compare_paired), {agree['max_abs_p_diff_noise_vs_binomtest']:.1e} "
            f"(noise_profile); vs statsmodels mcnemar(exact=True) on the "
            f"{agree['n_pairs_statsmodels_mcnemar']} 0/1 pairs "
            f"{agree['max_abs_p_diff_vs_statsmodels_mcnemar']:.1e}; SE of the difference "
            f"{agree['max_abs_se_diff']:.1e}; p5_min/p5_max equal: {agree['p5_equal']}; "
            f"ranks (two independent Monte Carlo runs, R = 10,000 each): max |mean rank "
            f"diff| {agree['max_abs_mean_rank_diff']:.3f}, largest z of a difference "
            f"{agree['max_mean_rank_z']:.1f} over "
            f"{sum(b['n_systems'] for b in ours['summary']['benchmarks']) if _ok(ours) else '?'}"
            f" systems, systems with a fixed rank equal: {agree['constant_ranks_equal']}, "
            f"max |P(best) diff| {agree['max_abs_p_best_diff']:.4f}"
        )
    return checks


# ============================================================================ compare


def _compare(previous_path: Path, current: dict[str, Any]) -> None:
    """Print the change of every workload against a previous JSON result."""
    previous = json.loads(previous_path.read_text())
    print(
        f"\nchange against {previous_path} ({previous.get('date', '?')}, "
        f"commit {str(previous.get('environment', {}).get('git_commit'))[:10]})"
    )
    print(
        f"  {'workload':<22} {'prev s':>9} {'now s':>9} {'now/prev':>9} "
        f"{'prev MB':>8} {'now MB':>8}"
    )
    for name, now in current["workloads"].items():
        before = previous.get("workloads", {}).get(name)
        if not before or "error" in before or "error" in now:
            print(f"  {name:<22} {'(not in both runs)':>29}")
            continue
        print(
            f"  {name:<22} {_fmt_s(before['median_s']):>9} {_fmt_s(now['median_s']):>9} "
            f"{now['median_s'] / before['median_s']:>8.2f}x "
            f"{before['peak_mb']:>8.0f} {now['peak_mb']:>8.0f}"
        )
    for name, now in current.get("scaling", {}).items():
        before = previous.get("scaling", {}).get(name)
        if before:
            print(f"  {name}: slope {before['slope']:.2f} -> {now['slope']:.2f}")
    env_before, env_now = previous.get("environment", {}), current["environment"]
    changed = [
        f"{k}: {env_before.get(k)} -> {env_now.get(k)}"
        for k in ("numpy", "scipy", "cpu_count", "cpu_model", "python", "blas")
        if env_before.get(k) != env_now.get(k)
    ]
    if changed:
        print("  environment differs: " + "; ".join(changed))


# ============================================================================ main


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="reportgen's benchmark suite: speed and memory of every workload "
        "against references timed in the same run (issue 9)."
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the fast tier only (no references, no reportgen run); saved "
        "as compare-<date>-quick.json, latest.json is kept",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="PATH",
        help="print the change against a previous result JSON",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="timed repeats of the fast workloads (default 5; long ones cap it at 3)",
    )
    parser.add_argument(
        "--ref-repeats", type=int, default=1, help="timed repeats of the references (default 1)"
    )
    parser.add_argument(
        "--report-repeats",
        type=int,
        default=3,
        help="reportgen run repeats, one fresh process each (default 3)",
    )
    parser.add_argument(
        "--only",
        metavar="NAMES",
        help="comma-separated workload names (see --list); a reference is run only if named",
    )
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    parser.add_argument("--no-save", action="store_true", help="do not write JSON results")
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=RESULTS_DIR,
        help=f"where the JSON goes (default {RESULTS_DIR})",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if min(args.repeats, args.ref_repeats, args.report_repeats) < 1:
        parser.error("--repeats, --ref-repeats and --report-repeats must be at least 1")
    return args


def _selected(args: argparse.Namespace) -> list[str] | str:
    """The workloads to run, or an error message."""
    names = list(WORKLOADS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in WORKLOADS]
        if unknown:
            return f"unknown workload(s): {', '.join(unknown)}; known: {', '.join(WORKLOADS)}"
    if args.quick:
        names = [n for n in names if WORKLOADS[n].tier == "fast"]
    return names


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    if args.worker:
        result = _worker(args.worker, args.repeats)
        print(MARKER + json.dumps(_finite(result), default=_json_default), flush=True)
        return 0
    if args.list:
        for w in WORKLOADS.values():
            print(f"{w.name:<22} {w.tier:<9} {w.description}")
        return 0
    names = _selected(args)
    if isinstance(names, str):
        print(names, file=sys.stderr)
        return 2

    started = _dt.datetime.now(_dt.timezone.utc)
    clock = time.perf_counter()
    load_start = _load_average()
    print("baseline process ...", file=sys.stderr, flush=True)
    baseline = _run_child("baseline", 1)
    if "error" in baseline:
        print(baseline["error"], file=sys.stderr)
        return 1
    if "mmlu_evalci" in names and baseline.get("evalci") is None:
        print(
            "evalci is not installed in this interpreter: skipping the MMLU reference "
            "(benchmarks/run.sh installs it in .venv-bench)",
            file=sys.stderr,
        )
        names.remove("mmlu_evalci")
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        workload = WORKLOADS[name]
        repeats = {
            "fast": args.repeats,
            "reference": args.ref_repeats,
            "report": args.report_repeats,
        }[workload.tier]
        print(f"{name} ...", file=sys.stderr, flush=True)
        res = _run_workload(workload, repeats)
        res["kind"], res["tier"] = workload.kind, workload.tier
        res["description"] = workload.description
        if "error" not in res:
            res["increment_mb"] = res["peak_mb"] - baseline["peak_mb"]
            if workload.kind == "reference":
                res["scale"], res["scale_note"] = workload.scale, workload.scale_note
                res["full_s"] = res["median_s"] * workload.scale
        results[name] = res

    rows = _rows(results, baseline["peak_mb"])
    _print_table(rows, results, baseline["peak_mb"])
    scaling = _print_scaling(results)
    reports = _print_reports(results)
    reports["cli"] = _print_cli(results)
    checks = {**_print_mmlu(results), **_print_pairwise_checks(results), **_print_arena(results)}
    elapsed = time.perf_counter() - clock
    load_end = _load_average()
    print(
        f"\nsuite wall time {elapsed / 60:.1f} min; load average (1, 5, 15 min) at the "
        f"start {load_start}, at the end {load_end} on {os.cpu_count()} CPUs (a load above "
        f"the CPU count means other work slowed these timings)"
    )
    record = {
        "schema": SCHEMA_VERSION,
        "date": started.isoformat(timespec="seconds"),
        "quick": args.quick,
        "argv": sys.argv[1:] if argv is None else argv,
        "wall_s": elapsed,
        "load_average": {"start": load_start, "end": load_end},
        "environment": _environment(baseline),
        "baseline_peak_mb": baseline["peak_mb"],
        "rows": rows,
        "scaling": scaling,
        "reports": reports,
        "checks": checks,
        "workloads": results,
    }
    if args.compare:
        _compare(args.compare, record)
    if not args.no_save:
        args.output_dir.mkdir(parents=True, exist_ok=True)
        stem = f"compare-{started.date().isoformat()}" + (
            "-partial" if args.only else "-quick" if args.quick else ""
        )
        text = json.dumps(_finite(record), indent=1, default=_json_default) + "\n"
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


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _json_default(value: Any) -> Any:
    """numpy scalars as Python numbers."""
    if hasattr(value, "item"):
        item = value.item()
        return item if not isinstance(item, float) or math.isfinite(item) else None
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


if __name__ == "__main__":
    sys.exit(main())

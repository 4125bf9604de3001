"""Issue 45: the command line against its floor, measured in the same minutes.

Every workload runs the ``reportgen`` command of the **default install** (a plain
``pip install .`` in a venv of its own: ``$REPORTGEN_DEFAULT_VENV``, default
``.venv-default``) in a fresh process, and beside it, alternating with it repeat by
repeat, its **floor**: the least any tool must do for the same job on the same machine
with the same libraries. Each process is timed from here: wall seconds, CPU seconds
(user + system of the process and of the children it waited for, from ``os.wait4``) and
peak resident memory (``ru_maxrss``); the figures are medians over the repeats, and the
ratio to the floor is read from CPU seconds (wall seconds are printed too: other work on
a shared machine moves them far more than CPU time).

=================  ==========================================  ============================
workload           the command                                 its floor (same process kind)
=================  ==========================================  ============================
``mmlu9``          ``analyze`` of MMLU-9: 9 systems x 14,042    a bare interpreter importing
                   0/1 items, unpaired, Holm (synthetic: each   numpy, pandas and
                   model's accuracy of seed 003's table as      scipy.special and reading the
                   ``round(acc x n)`` ones, shuffled with       CSV; evalci (R = 999) is the
                   seed 3; MMLU itself is not on this machine)  reference
``rows2m``         ``analyze`` of 2,000,000 rows (20 systems    ``pandas.read_csv`` plus a
                   x 100,000 0/1 items)                         groupby-mean of the scores
``rows2m_inspect`` ``inspect`` of the same file                 ``pandas.read_csv``
``example_run``    ``run`` of the bundled example (HTML, PDF)   ``analyze`` of the example
                                                                plus WeasyPrint's layout of
                                                                the run's own report.html
``systems1000``    ``analyze`` of 1,000 systems x 50 items      read_csv + groupby-mean
                                                                (targets are absolute)
``arena5``         held out: ``analyze`` of the five shared     the JSON-lines files read by
                   eval-arena benchmarks (170 systems)          pandas + groupby-mean
``rag``            held out: ``analyze`` of the IBM RAG data    read_csv + groupby-mean
=================  ==========================================  ============================

Targets (issue 45 item 4, ratios of CPU seconds on this 2-core machine): MMLU-9
``analyze`` <= 2x its floor and >= 20x faster than evalci; two million rows
``analyze`` <= 4x its floor; the example's ``run`` <= 3x ``analyze`` + layout;
1,000 systems x 50 items < 60 s and < 2 GB. The held-out workloads have no target of
their own: their ratios show whether the targets' workloads are typical.

Beside the ratios it prints where the time goes: the manifest's in-process stages (load,
analysis, write), ``python -X importtime`` of the MMLU-9 run against the import floor
(numpy, pandas, scipy.special), the modules the run imported beyond it, and the cost of
the degenerate-data guards (the functions of ``reportgen/stats/_degenerate.py``, under
cProfile with a CPU clock, in the analysis of MMLU-9 and of the two million rows).

Usage::

    python benchmarks/floors.py                       # every workload, 3 repeats
    python benchmarks/floors.py --only mmlu9,rows2m --repeats 5
    python benchmarks/floors.py --list

Only the standard library is imported here; the data are built by a child process of
the default install (cached in ``--data-dir``). The exit status is 1 if a target is
missed. ``benchmarks/regress.py`` runs the same workloads against another commit.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED_DATA = REPO.parent / "shared" / "data"
RESULTS_DIR = HERE / "results"
DEFAULT_VENV = Path(os.environ.get("REPORTGEN_DEFAULT_VENV", REPO / ".venv-default"))
BENCH_VENV = REPO / ".venv-bench"
SEED = "1"
EXAMPLE_SEED = "20240611"

# ------------------------------------------------------------------ floor snippets

FLOOR_MMLU = "import sys, numpy, pandas, scipy.special\npandas.read_csv(sys.argv[1])\n"
FLOOR_READ = "import sys, pandas\npandas.read_csv(sys.argv[1])\n"
FLOOR_GROUPBY = (
    "import sys, pandas\n"
    "frames = [pandas.read_csv(p) if p.endswith('.csv') else pandas.read_json(p, lines=True)\n"
    "          for p in sys.argv[1:]]\n"
    "for f in frames:\n"
    "    keys = [c for c in ('model', 'system', 'dataset', 'benchmark_id', 'metric')\n"
    "            if c in f.columns]\n"
    "    values = [c for c in ('score', 'pass1', 'value') if c in f.columns]\n"
    "    f.groupby(keys)[values[0]].mean() if keys else f.mean(numeric_only=True)\n"
)
#: WeasyPrint's layout of the run's report.html (no drawing, no PDF written)
FLOOR_LAYOUT = "import sys, weasyprint\nweasyprint.HTML(filename=sys.argv[1]).render()\n"
#: evalci from the same CSV: all pairs, permutation with 999 resamples, Holm
EVALCI = (
    "import sys\n"
    "import evalci, pandas as pd\n"
    "frame = pd.read_csv(sys.argv[1]).rename(columns={'item': 'item_id', 'system': 'model'})\n"
    "result = evalci.multi_compare(frame[['item_id', 'model', 'score']], correction='holm',\n"
    "                              method='permutation', paired=False, alpha=0.05,\n"
    "                              n_resamples=999, random_state=0)\n"
    "print(int(result['significant'].sum()))\n"
)
#: the data, built once by a child process of the default install
MAKE_DATA = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
folder = Path(sys.argv[2])
from workloads_cli import _mmlu_csv
from workloads_scale import SYSTEMS, _write_systems_csv, write_long_csv
if not (folder / "mmlu.csv").is_file():
    _mmlu_csv(folder)
if not (folder / "long.csv").is_file():
    write_long_csv(folder / "long.csv")
if not (folder / "s1000.csv").is_file():
    _write_systems_csv(folder / "s1000.csv", SYSTEMS, seed=SYSTEMS)
"""
#: the CLI's analysis in process under cProfile (CPU clock): the guards' share
GUARDS = """
import cProfile, json, pstats, sys, time
from reportgen.cli import main
profile = cProfile.Profile(time.process_time)
profile.enable()
main(sys.argv[1:])
profile.disable()
stats = pstats.Stats(profile).stats
def inside(func):
    return func[0].replace("\\\\", "/").endswith("reportgen/stats/_degenerate.py")
guards, by_name, analysis = 0.0, {}, 0.0
for func, (cc, nc, tt, ct, callers) in stats.items():
    path = func[0].replace("\\\\", "/")
    if path.endswith("reportgen/analysis/_core.py") and func[2] == "analyze":
        analysis = max(analysis, ct)
    if not inside(func):
        continue
    outside = sum(v[3] for caller, v in callers.items() if not inside(caller))
    if outside:
        guards += outside
        by_name[func[2]] = by_name.get(func[2], 0.0) + outside
print(json.dumps({"analysis_cpu_s": analysis, "guards_cpu_s": guards, "by_function": by_name}))
"""


# --------------------------------------------------------------------- measuring


def run_child(argv: Sequence[str], *, capture: bool = False) -> dict[str, Any]:
    """Run ``argv`` to its end; its wall and CPU seconds (user + system, with the
    children it waited for) and peak resident memory (MB), from ``os.wait4``. Its output
    goes to temporary files (read afterwards), so that nothing reaps it before wait4."""
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        # from a neutral folder: ``python -c`` and ``-m`` put the working directory first
        # on sys.path, which in a checkout would import its reportgen, not the install's
        child = subprocess.Popen(list(argv), stdout=out if capture else subprocess.DEVNULL,
                                 stderr=err, cwd=tempfile.gettempdir())  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if code != 0:
        raise RuntimeError(f"{' '.join(map(str, argv[:4]))} ... exited {code}: {stderr[-800:]}")
    scale = 2**20 if sys.platform == "darwin" else 1024
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / scale,
        "stdout": stdout,
        "stderr": stderr,
    }


@dataclass
class Step:
    """One command of a workload, run once per repeat (``after`` runs right after it,
    untimed, e.g. to keep what it wrote)."""

    label: str
    role: str  # "cli" | "floor" | "reference"
    argv: Callable[[dict[str, Any]], list[str]]
    out: Path | None = None
    after: Callable[[dict[str, Any], dict[str, Any]], None] | None = None
    #: runs last in every repeat (it reads what an earlier step wrote)
    last: bool = False


@dataclass
class Workload:
    name: str
    description: str
    steps: list[Step]
    #: floor = the sum of these floor steps (labels); default every floor step
    target_ratio: float | None = None
    target_reference: float | None = None
    target_seconds: float | None = None
    target_peak_mb: float | None = None
    held_out: bool = False
    slow: bool = False
    state: dict[str, Any] = field(default_factory=dict)


def _written(folder: Path | None) -> dict[str, int]:
    if folder is None or not folder.is_dir():
        return {}
    sizes = [p.stat().st_size for p in folder.rglob("*") if p.is_file()]
    results = folder / "results.json"
    return {
        "results_json_bytes": results.stat().st_size if results.is_file() else 0,
        "written_bytes": sum(sizes),
    }


def _stages(folder: Path | None) -> dict[str, float]:
    manifest = folder / "manifest.json" if folder is not None else None
    if manifest is None or not manifest.is_file():
        return {}
    timings = json.loads(manifest.read_text()).get("timings_seconds", {})
    return {k: float(v) for k, v in timings.items() if isinstance(v, (int, float))}


def measure(workload: Workload, repeats: int) -> dict[str, list[dict[str, Any]]]:
    """Every step of the workload ``repeats`` times, interleaved (the steps in turn,
    their order reversed every other repeat), so each ratio compares the same minutes."""
    runs: dict[str, list[dict[str, Any]]] = {s.label: [] for s in workload.steps}
    for r in range(repeats):
        turn = [s for s in workload.steps if not s.last]
        order = (turn if r % 2 == 0 else turn[::-1]) + [s for s in workload.steps if s.last]
        for step in order:
            if step.out is not None:
                shutil.rmtree(step.out, ignore_errors=True)
            result = run_child(step.argv(workload.state))
            result.update(_written(step.out))
            result["stages"] = _stages(step.out)
            if step.after is not None:
                step.after(workload.state, result)
            runs[step.label].append(_plain(result))
    return runs


# ------------------------------------------------------------------ workloads


def _python(venv: Path) -> str:
    return str(venv / "bin" / "python")


def _reportgen(venv: Path) -> str:
    return str(venv / "bin" / "reportgen")


def _analyze(venv: Path, out: Path, *args: str) -> Callable[[dict[str, Any]], list[str]]:
    """``reportgen analyze ARGS --out OUT`` of the install at ``venv``."""
    rg = _reportgen(venv)
    return lambda state: [
        rg, "analyze", *args, "--out", str(out), "--if-exists", "replace", "--seed", SEED,
    ]  # fmt: skip


def _paired(name: str, description: str, cli: Step, floor: list[str], **targets: Any) -> Workload:
    """A workload of one command and one floor process."""
    return Workload(
        name, description, [cli, Step("floor", "floor", lambda state: floor)], **targets
    )


def _example_run(venv: Path, work: Path) -> Workload:
    """``reportgen run`` of the bundled example against ``analyze`` of it plus
    WeasyPrint's layout of the HTML that run wrote (the layout runs last in a repeat)."""
    example = REPO / "examples"
    args = (str(example / "data"), "--config", str(example / "reportgen.toml"))
    rg, py = _reportgen(venv), _python(venv)

    def keep_html(state: dict[str, Any], result: dict[str, Any]) -> None:
        html = work / "example_run" / "report.html"
        if html.is_file():
            shutil.copyfile(html, work / "example_report.html")
        state["pages"] = _pages(venv, work / "example_run" / "report.pdf")

    run = Step(
        "reportgen run",
        "cli",
        lambda state: [
            rg,
            "run",
            *args,
            "--out",
            str(work / "example_run"),
            "--if-exists",
            "replace",
            "--seed",
            EXAMPLE_SEED,
        ],  # fmt: skip
        work / "example_run",
        after=keep_html,
    )
    layout = [py, "-c", FLOOR_LAYOUT, str(work / "example_report.html")]
    return Workload(
        "example_run",
        "reportgen run of the bundled example (HTML + PDF); floor: reportgen analyze of "
        "it + WeasyPrint's layout of the run's report.html",
        [
            run,
            Step(
                "floor: analyze",
                "floor",
                _analyze(venv, work / "example_an", *args),
                work / "example_an",
            ),  # fmt: skip
            Step("floor: layout", "floor", lambda state: layout, last=True),
        ],
        target_ratio=3.0,
        slow=True,
    )


def workloads(venv: Path, data: Path, work: Path, evalci: str | None) -> list[Workload]:
    """The workloads of issue 45 for the default install at ``venv`` (data in
    ``data``, outputs under ``work``)."""
    py, rg = _python(venv), _reportgen(venv)
    mmlu, long, s1000 = data / "mmlu.csv", data / "long.csv", data / "s1000.csv"
    arena = sorted(str(p) for p in (SHARED_DATA / "eval-arena").glob("*.jsonl"))
    rag = sorted(str(p) for p in (SHARED_DATA / "ibm-rag").glob("*.csv"))

    def cli(name: Path, *args: str) -> Step:
        return Step("reportgen analyze", "cli", _analyze(venv, work / name, *args), work / name)

    mmlu9 = _paired(
        "mmlu9",
        "MMLU-9 (synthetic, seed 3): 9 systems x 14,042 0/1 items, unpaired, Holm; floor: "
        "import numpy, pandas, scipy.special + read_csv",
        cli(Path("mmlu"), str(mmlu), "--pairing", "unpaired", "--correction", "holm"),
        [py, "-c", FLOOR_MMLU, str(mmlu)],
        target_ratio=2.0,
        target_reference=20.0,
    )
    if evalci:
        mmlu9.steps.append(
            Step("evalci R=999", "reference", lambda state: [evalci, "-c", EVALCI, str(mmlu)])
        )
    out = [
        mmlu9,
        _paired(
            "rows2m",
            "2,000,000 rows (20 systems x 100,000 0/1 items); floor: read_csv + groupby-mean",
            cli(Path("rows"), str(long)),
            [py, "-c", FLOOR_GROUPBY, str(long)],
            target_ratio=4.0,
        ),
        _paired(
            "rows2m_inspect",
            "reportgen inspect of the 2,000,000 rows; floor: read_csv",
            Step("reportgen inspect", "cli", lambda state: [rg, "inspect", str(long)]),
            [py, "-c", FLOOR_READ, str(long)],
        ),
        _example_run(venv, work),
        _paired(
            "systems1000",
            "1,000 systems x 50 0/1 items (499,500 pairs); floor: read_csv + groupby-mean",
            cli(Path("s1000"), str(s1000)),
            [py, "-c", FLOOR_GROUPBY, str(s1000)],
            target_seconds=60.0,
            target_peak_mb=2048.0,
            slow=True,
        ),
    ]
    if arena:
        out.append(
            _paired(
                "arena5",
                "held out: the five shared eval-arena benchmarks (170 systems); floor: "
                "read_json(lines=True) + groupby-mean",
                cli(Path("arena"), str(SHARED_DATA / "eval-arena")),
                [py, "-c", FLOOR_GROUPBY, *arena],
                held_out=True,
            )
        )
    if rag:
        out.append(
            _paired(
                "rag",
                "held out: the IBM RAG precision and recall files; floor: read_csv + mean "
                "per column",
                cli(Path("rag"), str(SHARED_DATA / "ibm-rag")),
                [py, "-c", FLOOR_GROUPBY, *rag],
                held_out=True,
            )
        )
    return out


def _pages(venv: Path, pdf: Path) -> int | None:
    if not pdf.is_file():
        return None
    code = "import sys, pikepdf\nprint(len(pikepdf.open(sys.argv[1]).pages))\n"
    return int(run_child([_python(venv), "-c", code, str(pdf)], capture=True)["stdout"])


# ------------------------------------------------------------- where time goes


def parse_importtime(text: str) -> dict[str, float]:
    """``-X importtime`` lines: each module's own import seconds."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = line.split(":", 1)[1].split("|")
        out[name.strip()] = out.get(name.strip(), 0.0) + int(own) / 1e6
    return out


#: imports the common path should not need (issue 45 item 2)
HEAVY = ("scipy.stats", "scipy.optimize", "statsmodels", "jsonschema", "altair", "matplotlib")


def import_profile(venv: Path, mmlu: Path, work: Path) -> dict[str, Any]:
    """``python -X importtime`` of the MMLU-9 analyze against the import floor."""
    py = _python(venv)
    cli = run_child(
        [py, "-X", "importtime", "-m", "reportgen", "analyze", str(mmlu), "--out",
         str(work / "imports"), "--if-exists", "replace", "--pairing", "unpaired",
         "--correction", "holm", "--seed", SEED],
    )  # fmt: skip
    floor = run_child([py, "-X", "importtime", "-c", "import numpy, pandas, scipy.special"])
    ours, base = parse_importtime(cli["stderr"]), parse_importtime(floor["stderr"])
    extra: dict[str, float] = {}
    for name, seconds in ours.items():
        if name not in base:
            parts = name.split(".")
            key = ".".join(parts[:2]) if parts[0] == "reportgen" else parts[0]
            extra[key] = extra.get(key, 0.0) + seconds
    return {
        "cli_import_s": sum(ours.values()),
        "floor_import_s": sum(base.values()),
        "beyond_floor_s": sum(v for k, v in ours.items() if k not in base),
        "beyond_floor_top": dict(sorted(extra.items(), key=lambda kv: -kv[1])[:8]),
        "heavy_imported": [m for m in HEAVY if m in ours],
        "modules": len(ours),
        "floor_modules": len(base),
    }


def guard_cost(venv: Path, args: list[str]) -> dict[str, Any]:
    """The degenerate-data guards' CPU seconds in the CLI's analysis, in process."""
    result = run_child([_python(venv), "-c", GUARDS, *args], capture=True)
    return json.loads(result["stdout"].strip().splitlines()[-1])


# ---------------------------------------------------------------------- report


def summarize(workload: Workload, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Medians of every step, the floor (the sum of the floor steps' medians), the ratios
    and the targets."""
    med = {
        label: {
            key: statistics.median(r[key] for r in rs)
            for key in ("wall_s", "cpu_s", "peak_mb", "results_json_bytes", "written_bytes")
            if all(key in r for r in rs)
        }
        for label, rs in runs.items()
    }
    for label, rs in runs.items():
        stages = [r["stages"] for r in rs if r.get("stages")]
        if stages:
            med[label]["stages"] = {k: statistics.median(s[k] for s in stages) for k in stages[0]}
    roles = {s.label: s.role for s in workload.steps}
    cli = next(label for label, role in roles.items() if role == "cli")
    floors = [label for label, role in roles.items() if role == "floor"]
    refs = [label for label, role in roles.items() if role == "reference"]
    floor = {k: sum(med[f][k] for f in floors) for k in ("wall_s", "cpu_s")}
    out: dict[str, Any] = {
        "description": workload.description,
        "steps": med,
        "floor": floor,
        "ratio_cpu": med[cli]["cpu_s"] / floor["cpu_s"],
        "ratio_wall": med[cli]["wall_s"] / floor["wall_s"],
        "held_out": workload.held_out,
        "repeats": len(runs[cli]),
        "per_repeat_ratio_cpu": [
            c["cpu_s"] / sum(runs[f][i]["cpu_s"] for f in floors) for i, c in enumerate(runs[cli])
        ],
    }
    checks: dict[str, bool] = {}
    if workload.target_ratio is not None:
        checks[f"<= {workload.target_ratio:g}x floor (CPU)"] = (
            out["ratio_cpu"] <= workload.target_ratio
        )
    if refs:
        out["reference_over_cli_cpu"] = med[refs[0]]["cpu_s"] / med[cli]["cpu_s"]
        out["reference_over_cli_wall"] = med[refs[0]]["wall_s"] / med[cli]["wall_s"]
        if workload.target_reference is not None:
            checks[f">= {workload.target_reference:g}x {refs[0]} (CPU)"] = (
                out["reference_over_cli_cpu"] >= workload.target_reference
            )
    if workload.target_seconds is not None:
        checks[f"< {workload.target_seconds:g} s"] = med[cli]["wall_s"] < workload.target_seconds
    if workload.target_peak_mb is not None:
        checks[f"< {workload.target_peak_mb / 1024:g} GB"] = (
            med[cli]["peak_mb"] < workload.target_peak_mb
        )
    out["targets"] = checks
    if "pages" in workload.state:
        out["pdf_pages"] = workload.state["pages"]
    return out


def _fmt_step(label: str, m: dict[str, Any]) -> str:
    line = (
        f"    {label:<20} wall {m['wall_s']:7.2f} s  cpu {m['cpu_s']:7.2f} s"
        f"  peak {m['peak_mb']:6.0f} MB"
    )
    if m.get("results_json_bytes"):
        line += f"  results.json {m['results_json_bytes'] / 1024:,.0f} kB"
    if m.get("written_bytes"):
        line += f"  written {m['written_bytes'] / 2**20:,.1f} MB"
    if m.get("stages"):
        line += "  (in process: " + ", ".join(f"{k} {v:.2f}" for k, v in m["stages"].items()) + ")"
    return line


def print_workload(name: str, s: dict[str, Any]) -> None:
    print(f"\n{name}: {s['description']}  [{s['repeats']} repeats, medians]")
    for label, m in s["steps"].items():
        print(_fmt_step(label, m))
    if sum(label.startswith("floor") for label in s["steps"]) > 1:
        print(
            f"    {'floor (the sum)':<20} wall {s['floor']['wall_s']:7.2f} s"
            f"  cpu {s['floor']['cpu_s']:7.2f} s"
        )
    print(
        f"    over the floor: cpu {s['ratio_cpu']:.2f}x, wall {s['ratio_wall']:.2f}x"
        f"  (each repeat, cpu: {', '.join(f'{r:.2f}' for r in s['per_repeat_ratio_cpu'])})"
    )
    if "reference_over_cli_cpu" in s:
        print(
            f"    reference / reportgen: cpu {s['reference_over_cli_cpu']:.1f}x, "
            f"wall {s['reference_over_cli_wall']:.1f}x"
        )
    if s.get("pdf_pages") is not None:
        print(f"    PDF pages: {s['pdf_pages']}")
    for check, ok in s["targets"].items():
        print(f"    target {check}: {'met' if ok else 'NOT MET'}")


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on Linux
        return []


def _git_commit() -> str | None:
    try:
        return subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def make_data(venv: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    run_child([_python(venv), "-c", MAKE_DATA, str(HERE), str(folder)])


def _evalci_python(given: str | None) -> str | None:
    candidate = given or str(BENCH_VENV / "bin" / "python")
    if not Path(candidate).is_file():
        return None
    try:
        run_child([candidate, "-c", "import evalci"])
    except RuntimeError:
        return None
    return candidate


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="the default install")
    parser.add_argument("--evalci-python", help="an interpreter with evalci (default .venv-bench)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", help="comma-separated workload names")
    parser.add_argument("--quick", action="store_true", help="skip the slow workloads")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/reportgen-floors-data"))
    parser.add_argument("--no-profile", action="store_true", help="no importtime, no guards")
    parser.add_argument("--output", type=Path, help="JSON file (default results/floors-DATE.json)")
    args = parser.parse_args(argv)

    if not (args.venv / "bin" / "reportgen").is_file():
        print(f"no default install at {args.venv}: python3 -m venv {args.venv} && "
              f"{args.venv}/bin/pip install .", file=sys.stderr)  # fmt: skip
        return 2
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"reportgen-floors-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    evalci = _evalci_python(args.evalci_python)
    chosen = workloads(args.venv, args.data_dir, work, evalci)
    if args.list:
        for w in chosen:
            print(f"{w.name:<16} {'slow ' if w.slow else ''}{w.description}")
        return 0
    if args.only:
        names = set(args.only.split(","))
        unknown = names - {w.name for w in chosen}
        if unknown:
            print(f"unknown workload(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        chosen = [w for w in chosen if w.name in names]
    elif args.quick:
        chosen = [w for w in chosen if not w.slow]

    make_data(args.venv, args.data_dir)
    record: dict[str, Any] = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "commit": _git_commit(),
        "cpus": os.cpu_count(),
        "load_average_start": _load(),
        "venv": str(args.venv),
        "evalci": evalci is not None,
        "workloads": {},
    }
    print(f"load average {record['load_average_start']} on {record['cpus']} CPUs; "
          f"default install {args.venv}; evalci {'yes' if evalci else 'not found'}")  # fmt: skip
    failed = False
    try:
        for w in chosen:
            if w.name == "mmlu9" and evalci is None:
                print("  (mmlu9: evalci not installed: .venv-bench/bin/pip install evalci)")
            runs = measure(w, args.repeats)
            summary = summarize(w, runs)
            summary["runs"] = runs
            record["workloads"][w.name] = summary
            print_workload(w.name, summary)
            failed |= not all(summary["targets"].values())
        if not args.no_profile and any(w.name in ("mmlu9", "rows2m") for w in chosen):
            imports = import_profile(args.venv, args.data_dir / "mmlu.csv", work)
            record["imports"] = imports
            print(
                "\nimports (python -X importtime, MMLU-9 analyze): "
                f"{imports['cli_import_s']:.2f} s "
                f"for {imports['modules']} modules; the floor (numpy, pandas, scipy.special) "
                f"{imports['floor_import_s']:.2f} s for {imports['floor_modules']}; beyond it "
                f"{imports['beyond_floor_s']:.2f} s: "
                + ", ".join(
                    f"{k} {v * 1000:.0f} ms" for k, v in imports["beyond_floor_top"].items()
                )
            )
            print(f"    heavy modules imported: {', '.join(imports['heavy_imported']) or 'none'}")
            record["guards"] = {}
            for name, cli_args in (
                ("mmlu9", ["analyze", str(args.data_dir / "mmlu.csv"), "--pairing", "unpaired",
                           "--correction", "holm"]),
                ("rows2m", ["analyze", str(args.data_dir / "long.csv")]),
            ):  # fmt: skip
                if not any(w.name == name for w in chosen):
                    continue
                g = guard_cost(args.venv, [*cli_args, "--out", str(work / f"guards-{name}"),
                                           "--if-exists", "replace", "--seed", SEED])  # fmt: skip
                record["guards"][name] = g
                share = g["guards_cpu_s"] / g["analysis_cpu_s"] if g["analysis_cpu_s"] else 0.0
                print(
                    f"guards ({name}, stats/_degenerate under cProfile, CPU): "
                    f"{g['guards_cpu_s']:.3f} s of the analysis' {g['analysis_cpu_s']:.2f} s "
                    f"({share:.0%}): "
                    + ", ".join(f"{k} {v:.3f}" for k, v in sorted(g["by_function"].items(),
                                                                  key=lambda kv: -kv[1]))
                )  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    record["load_average_end"] = _load()
    print(f"\nload average at the end {record['load_average_end']}")
    output = args.output or RESULTS_DIR / f"floors-{_dt.date.today().isoformat()}.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {output}")
    return 1 if failed else 0


def _plain(run: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in run.items() if k not in ("stdout", "stderr")}


if __name__ == "__main__":
    sys.exit(main())

"""The scale workloads as a user runs them (issue 35): ``reportgen`` in a fresh process
from a **default install** (a plain ``pip install .`` in its own venv, no extras, no
editable install), timed from the parent, with the peak memory of that process
(``os.wait4``: on Linux the ``ru_maxrss`` of the child and of the descendants it waited
for, so the notebook kernel of ``reportgen run`` is in it) and the size of everything it
writes.

Each one sits beside its in-process figure of the same run (``systems1000``, ``rows2m``,
``report_example``, ``report_arena_all``): ``bench_compare.py`` prints them side by side.

The default install is ``$REPORTGEN_DEFAULT_VENV`` (default ``.venv-default`` at the
repository root), which ``benchmarks/run.sh`` creates and refreshes with
``pip install .``; without it these workloads stop with an error that says so.

Targets (issue 35, 2 cores, ratios in the same run):

* ``cli_systems1000``: 1,000 systems × 50 binary items, ``reportgen analyze``: < 60 s,
  < 2 GB, results.json <= 20 MB;
* ``cli_rows2m_inspect``: 2 million rows, ``reportgen inspect`` <= 5 × the time of
  ``pandas.read_csv`` of the same file (timed inside a fresh process of the same venv)
  + 1.5 s;
* ``cli_rows2m_analyze``: the same file, ``reportgen analyze`` < 10 s;
* ``cli_arena_all``: ``reportgen run`` <= 4 × ``reportgen analyze`` of the same data,
  HTML <= 8 MB, PDF <= 60 pages. The issue's case is 262 systems over 11 eval-arena
  benchmarks (``../data-extra/eval-arena-12``, used when present: ``cli_arena12``); the
  five shared benchmarks (170 systems) are the case that can be built from
  ``../shared/data``;
* ``cli_report_example``: ``reportgen run`` on the bundled example < 20 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _workload import REPO, SHARED_DATA, Target, Workload

DEFAULT_VENV = Path(os.environ.get("REPORTGEN_DEFAULT_VENV", REPO / ".venv-default"))
REPORT_SEED = 20240611
MAX_RESULTS_BYTES = 20 * 2**20
MAX_PEAK_MB = 2048.0
MAX_RUN_OVER_ANALYZE = 4.0
MAX_HTML_BYTES = 8 * 2**20
MAX_PAGES = 60
ARENA12 = REPO.parent / "data-extra" / "eval-arena-12"


def _venv_python() -> Path:
    python = DEFAULT_VENV / "bin" / "python"
    if not (DEFAULT_VENV / "bin" / "reportgen").is_file():
        raise RuntimeError(
            f"no default install at {DEFAULT_VENV} (bash benchmarks/run.sh makes it: "
            "python3 -m venv .venv-default && .venv-default/bin/pip install .)"
        )
    return python


def run_child(argv: list[str], *, stdout: Any = subprocess.DEVNULL) -> dict[str, Any]:
    """Run ``argv`` and wait for it with ``os.wait4``: wall seconds, its exit status
    and its own peak resident memory (MB; ``ru_maxrss`` of that child alone)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE)
    stderr = child.stderr.read() if child.stderr is not None else b""
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    out = child.stdout.read() if child.stdout is not None else b""
    if child.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv[:3])} ... exited {child.returncode}: "
            f"{stderr.decode(errors='replace')[-800:]}"
        )
    peak = usage.ru_maxrss / (2**20 if sys.platform == "darwin" else 1024)
    return {"seconds": wall, "peak_mb": peak, "stdout": out.decode(errors="replace")}


def _timed(state: Any, argv: list[str]) -> None:
    """Run ``argv`` (:func:`run_child`) and keep it among the repeats of ``state``."""
    state.setdefault("children", []).append(run_child(argv))


def _median(state: Any) -> dict[str, Any]:
    """The repeat of median time (the lower middle of an even number), its peak memory
    the largest of all repeats."""
    children = sorted(state["children"], key=lambda c: c["seconds"])
    middle = dict(children[(len(children) - 1) // 2])
    middle["peak_mb"] = max(c["peak_mb"] for c in children)
    return middle


def _reportgen(*args: str) -> list[str]:
    # the installed console script: what `reportgen ...` runs after `pip install .`
    _venv_python()
    return [str(DEFAULT_VENV / "bin" / "reportgen"), *args]


def _written(folder: Path) -> dict[str, Any]:
    files = {p.relative_to(folder).as_posix(): p.stat().st_size for p in folder.rglob("*")}
    files = {k: v for k, v in files.items() if (folder / k).is_file()}
    return {
        "results_json_bytes": files.get("results.json", 0),
        "written_bytes": sum(files.values()),
        "files": files,
    }


def _tmp() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp(prefix="reportgen-bench-cli-"))


def _cleanup(state: Any) -> None:
    import shutil

    shutil.rmtree(state["folder"], ignore_errors=True)


# ----------------------------------------------------------------------- 1,000 systems


def _systems1000() -> Workload:
    from workloads_scale import SYSTEMS, _write_systems_csv

    def setup() -> Any:
        folder = _tmp()
        path = folder / "s1000.csv"
        _write_systems_csv(path, SYSTEMS, seed=SYSTEMS)  # the data of `systems1000`
        return {"folder": folder, "csv": path}

    def run(state: Any) -> Any:
        out = state["folder"] / "out"
        _timed(
            state,
            _reportgen(
                "analyze", str(state["csv"]), "--out", str(out), "--if-exists", "replace",
                "--seed", "1",
            ),
        )  # fmt: skip
        return out

    def summarize(state: Any, out: Any) -> dict[str, Any]:
        child, written = _median(state), _written(out)
        _cleanup(state)
        summary = {"cli_s": child["seconds"], "cli_peak_mb": child["peak_mb"], **written}
        summary["targets_ok"] = (
            child["seconds"] < 60.0
            and child["peak_mb"] < MAX_PEAK_MB
            and written["results_json_bytes"] <= MAX_RESULTS_BYTES
        )
        return summary

    return Workload(
        "cli_systems1000",
        "fast",
        "reportgen analyze of 1,000 systems x 50 binary items (the data of systems1000) "
        "in a fresh process of the default install (targets: < 60 s, < 2 GB, "
        "results.json <= 20 MB)",
        setup,
        run,
        summarize,
        target=Target(seconds=60.0),
        max_repeats=1,
    )


# ------------------------------------------------------------------- 2 million rows


def _rows_setup() -> Any:
    from workloads_scale import write_long_csv

    folder = _tmp()
    return {"folder": folder, "csv": write_long_csv(folder / "long.csv")}


#: pandas.read_csv of the file, timed inside a fresh process of the default install
_READ_CSV = (
    "import sys, time, pandas\n"
    "start = time.perf_counter()\n"
    "frame = pandas.read_csv(sys.argv[1])\n"
    "print(time.perf_counter() - start)\n"
)


def _rows_inspect() -> Workload:
    def warmup(state: Any) -> Any:  # the yardstick, once per run (not in the timing)
        ref = run_child([str(_venv_python()), "-c", _READ_CSV, str(state["csv"])],
                        stdout=subprocess.PIPE)  # fmt: skip
        state["read_csv_s"] = float(ref["stdout"].split()[-1])
        state["read_csv_process_s"] = ref["seconds"]
        return state

    def run(state: Any) -> Any:
        _timed(state, _reportgen("inspect", str(state["csv"])))
        return state

    def summarize(state: Any, result: Any) -> dict[str, Any]:
        _cleanup(state)
        child, read_csv = _median(state), state["read_csv_s"]
        allowed = 5 * read_csv + 1.5
        return {
            "cli_s": child["seconds"],
            "cli_peak_mb": child["peak_mb"],
            "read_csv_s": read_csv,
            "read_csv_process_s": state["read_csv_process_s"],
            "allowed_s": allowed,
            "inspect_over_read_csv": child["seconds"] / read_csv,
            "written_bytes": 0,
            "targets_ok": child["seconds"] <= allowed,
        }

    return Workload(
        "cli_rows2m_inspect",
        "fast",
        "reportgen inspect of 2,000,000 rows (20 systems x 100,000 items, the file of "
        "rows2m) in a fresh process of the default install, against pandas.read_csv "
        "timed in a fresh process of the same install (target: <= 5x read_csv + 1.5 s)",
        _rows_setup,
        run,
        summarize,
        warmup=warmup,
        max_repeats=3,
    )


def _rows_analyze() -> Workload:
    def run(state: Any) -> Any:
        out = state["folder"] / "out"
        _timed(
            state,
            _reportgen("analyze", str(state["csv"]), "--out", str(out), "--if-exists",
                       "replace", "--seed", "1"),
        )  # fmt: skip
        return out

    def summarize(state: Any, out: Any) -> dict[str, Any]:
        child, written = _median(state), _written(out)
        _cleanup(state)
        return {
            "cli_s": child["seconds"],
            "cli_peak_mb": child["peak_mb"],
            **written,
            "targets_ok": child["seconds"] < 10.0,
        }

    return Workload(
        "cli_rows2m_analyze",
        "fast",
        "reportgen analyze of the 2,000,000 rows in a fresh process of the default "
        "install (target: < 10 s)",
        _rows_setup,
        run,
        summarize,
        target=Target(seconds=10.0),
        max_repeats=3,
    )


# --------------------------------------------------------------------------- reports


def _pdf_pages(path: Path) -> int | None:
    if not path.is_file():
        return None
    import pikepdf  # a dependency of reportgen

    with pikepdf.open(path) as pdf:
        return len(pdf.pages)


def _report(name: str, data: tuple[str, ...], config: str | None, analyze_first: bool,
            target_s: float | None, description: str) -> Workload:  # fmt: skip
    def setup() -> Any:
        return {"folder": _tmp()}

    def run(state: Any) -> Any:
        extra = ["--config", config] if config else []
        if analyze_first:
            out = state["folder"] / "analyze"
            state["analyze"] = run_child(
                _reportgen("analyze", *data, *extra, "--out", str(out), "--if-exists",
                           "replace", "--seed", str(REPORT_SEED))
            )  # fmt: skip
            state["analyze_written"] = _written(out)
        out = state["folder"] / "report"
        _timed(
            state,
            _reportgen("run", *data, *extra, "--out", str(out), "--if-exists", "replace",
                       "--seed", str(REPORT_SEED)),
        )  # fmt: skip
        return out

    def summarize(state: Any, out: Any) -> dict[str, Any]:
        child, written = _median(state), _written(out)
        summary: dict[str, Any] = {
            "cli_s": child["seconds"],
            "cli_peak_mb": child["peak_mb"],
            **written,
            "html_bytes": written["files"].get("report.html", 0),
            "pages": _pdf_pages(out / "report.pdf"),
        }
        ok = target_s is None or child["seconds"] < target_s
        if analyze_first:
            ratio = child["seconds"] / state["analyze"]["seconds"]
            summary.update(
                analyze_s=state["analyze"]["seconds"],
                analyze_peak_mb=state["analyze"]["peak_mb"],
                analyze_results_json_bytes=state["analyze_written"]["results_json_bytes"],
                run_over_analyze=ratio,
                html_ok=summary["html_bytes"] <= MAX_HTML_BYTES,
                pages_ok=(summary["pages"] or 0) <= MAX_PAGES,
            )
            ok = ok and ratio <= MAX_RUN_OVER_ANALYZE and summary["html_ok"]
            ok = ok and summary["pages_ok"]
        summary["targets_ok"] = ok
        _cleanup(state)
        return summary

    return Workload(
        name,
        "report",
        description,
        setup,
        run,
        summarize,
        target=Target(seconds=target_s) if target_s else None,
        fresh_process_per_repeat=True,
        max_repeats=1 if analyze_first else None,
    )


def workloads() -> list[Workload]:
    out = [_systems1000(), _rows_inspect(), _rows_analyze()]
    out.append(
        _report(
            "cli_report_example",
            (str(REPO / "examples" / "data"),),
            str(REPO / "examples" / "reportgen.toml"),
            False,
            20.0,
            "reportgen run on the bundled example in a fresh process of the default "
            "install (target: < 20 s)",
        )
    )
    if (SHARED_DATA / "eval-arena").is_dir():
        out.append(
            _report(
                "cli_arena_all",
                (str(SHARED_DATA / "eval-arena"),),
                None,
                True,
                None,
                "reportgen run against reportgen analyze of the 5 shared eval-arena "
                "benchmarks (170 systems; the 262-system case needs "
                "../data-extra/eval-arena-12), fresh processes of the default install "
                "(targets: run <= 4x analyze, HTML <= 8 MB, PDF <= 60 pages)",
            )
        )
    if ARENA12.is_dir():
        out.append(
            _report(
                "cli_arena12",
                (str(ARENA12),),
                None,
                True,
                None,
                "reportgen run against reportgen analyze of 11 eval-arena benchmarks "
                "(262 systems), fresh processes of the default install (targets: run "
                "<= 4x analyze, HTML <= 8 MB, PDF <= 60 pages)",
            )
        )
    return out

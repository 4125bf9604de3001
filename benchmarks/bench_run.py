"""End-to-end benchmark of ``reportgen run`` (issue 7): the bundled example and the four
shared eval-arena code benchmarks, HTML + PDF + notebook, with the time split by stage.

Stages come from the report itself: ``load``, ``notebook``, ``html`` and ``pdf`` from
``manifest.json`` (``timings_seconds``); inside the notebook, the kernel start (the
notebook stage minus the executed cells) and the time of each section's cell from
papermill's per-cell ``duration``. The reference, timed in the same process on the same
executed notebook, is nbconvert's stock ``HTMLExporter`` (what ``jupyter nbconvert --to
html`` does, with its JavaScript and CDN links), so the HTML stage has a yardstick.

Targets (2-core machine): example < 60 s, the four eval-arena benchmarks together < 90 s.

Usage::

    python benchmarks/bench_run.py                  # both workloads, 1 repeat each
    python benchmarks/bench_run.py --repeats 3      # medians over 3 runs
    python benchmarks/bench_run.py --only example

Results are also written to ``benchmarks/results/run-latest.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "data" / "eval-arena"

WORKLOADS = {
    "example": dict(data=(str(REPO / "examples" / "data"),),
                    config=str(REPO / "examples" / "reportgen.toml"), target=60.0),
    "eval-arena-4": dict(data=tuple(str(SHARED / f"{n}.jsonl") for n in
                                    ("cruxeval_output", "humaneval+", "lcb_codegen",
                                     "mbpp+")), config=None, target=90.0),
}


def _one_run(name: str, spec: dict, folder: Path) -> dict:
    import nbformat

    from reportgen.report.pipeline import RunSpec, run_report

    out = folder / name
    start = time.perf_counter()
    result = run_report(RunSpec(data=spec["data"], out=str(out), config=spec["config"],
                                analysis_options={"seed": 20240611}, force=True))
    total = time.perf_counter() - start
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    stages = dict(manifest["timings_seconds"])
    nb = nbformat.read(str(out / "report.ipynb"), as_version=4)
    cells = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        section = cell.metadata.get("reportgen", {}).get("section", "parameters")
        cells[section] = cells.get(section, 0.0) + float(
            cell.metadata.get("papermill", {}).get("duration") or 0.0)
    stages["kernel start"] = max(0.0, stages["notebook"] - sum(cells.values()))
    tick = time.perf_counter()
    from nbconvert import HTMLExporter
    HTMLExporter().from_notebook_node(nb)
    reference = time.perf_counter() - tick
    return {"total": total, "stages": stages, "cells": cells, "pages": result.pages,
            "nbconvert_html": reference}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", choices=sorted(WORKLOADS), default=None)
    args = parser.parse_args(argv)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in WORKLOADS.items():
            if args.only and name != args.only:
                continue
            if name == "eval-arena-4" and not SHARED.is_dir():
                print(f"{name}: skipped ({SHARED} missing)")
                continue
            runs = [_one_run(name, spec, Path(tmp)) for _ in range(args.repeats)]
            best = sorted(runs, key=lambda r: r["total"])[len(runs) // 2]
            median = statistics.median(r["total"] for r in runs)
            rows[name] = {**best, "median_total": median, "target": spec["target"],
                          "ok": median < spec["target"]}
    print(f"{'workload':<14}{'median s':>10}{'target s':>10}{'ratio':>8}  stages (s)")
    for name, row in rows.items():
        stages = ", ".join(f"{k} {v:.1f}" for k, v in row["stages"].items())
        print(f"{name:<14}{row['median_total']:>10.1f}{row['target']:>10.0f}"
              f"{row['median_total'] / row['target']:>8.2f}  {stages}; "
              f"{row['pages']} PDF pages  {'PASS' if row['ok'] else 'FAIL'}")
        cells = ", ".join(f"{k} {v:.1f}" for k, v in row["cells"].items() if v >= 0.5)
        print(f"{'':<14}cells: {cells}")
        html = row["stages"].get("html", float("nan"))
        print(f"{'':<14}HTML export {html:.2f} s vs nbconvert's stock HTMLExporter "
              f"{row['nbconvert_html']:.2f} s on the same notebook "
              f"(ratio {html / row['nbconvert_html']:.2f})")
    out = HERE / "results" / "run-latest.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(), "machine": platform.machine(),
        "repeats": args.repeats, "workloads": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(REPO)}")
    return 0 if all(r["ok"] for r in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

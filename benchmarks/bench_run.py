"""End-to-end benchmark of reportgen run only (the report_* workloads of the suite).

These are the ``report_*`` workloads of ``bench_compare.py``: they split the time by
stage (imports, load, analysis, kernel start, cells, HTML, PDF) and time nbconvert's
stock HTML exporter beside ours.

Kept for the command of issue 7; ``bash benchmarks/run.sh`` runs these workloads with
all the others. Usage::

    python benchmarks/bench_run.py                  # both, 1 repeat each
    python benchmarks/bench_run.py --repeats 3      # medians over 3 fresh processes
    python benchmarks/bench_run.py --only example

The result is written as ``benchmarks/results/compare-<date>-partial.json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_compare

NAMES = {
    "example": "report_example",
    "eval-arena-4": "report_arena4",
    "eval-arena-all": "report_arena_all",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", choices=sorted(NAMES), default=None)
    args = parser.parse_args(argv)
    names = (
        [NAMES[args.only]]
        if args.only
        else [n for n in NAMES.values() if n in bench_compare.WORKLOADS]
    )
    return bench_compare.main(["--only", ",".join(names), "--report-repeats", str(args.repeats)])


if __name__ == "__main__":
    sys.exit(main())

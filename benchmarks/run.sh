#!/usr/bin/env bash
# Speed and memory benchmarks of the pairwise comparison engine (benchmarks/README.md).
#
# Creates .venv-bench at the repository root (once), installs the project and the
# reference library evalci into it (evalci is a benchmark-only dependency, never a
# project one), then runs benchmarks/bench_compare.py with the given arguments:
#
#   bash benchmarks/run.sh                 # full run, references included (~7 minutes)
#   bash benchmarks/run.sh --quick         # our workloads only (~20 seconds)
#   bash benchmarks/run.sh --compare benchmarks/results/latest.json
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-bench
PYTHON=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
    # keep the environment out of git status (the venv module does this itself from 3.13)
    printf '*\n' > "$VENV/.gitignore"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e . evalci
exec "$VENV/bin/python" benchmarks/bench_compare.py "$@"

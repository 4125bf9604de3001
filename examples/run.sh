#!/usr/bin/env bash
# The main job: create the .venv virtual environment, install reportgen into it, and run it
# on the bundled example data: show what the data hold, then compare every pair of systems
# on every dataset × metric and write example-output/results.json. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet .
.venv/bin/reportgen inspect examples/data --config examples/reportgen.toml
echo
.venv/bin/reportgen analyze examples/data --config examples/reportgen.toml \
    --out example-output --seed 20240611

#!/usr/bin/env bash
# The main job: create the .venv virtual environment, install reportgen into it (and the
# system libraries of the PDF export, when missing and we may), and make the full report
# of the bundled example: example-output/report.html, report.pdf, report.ipynb,
# results.json, tables/*.csv and manifest.json. Safe to re-run (the report is replaced).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
bash tools/system-deps.sh
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet .
.venv/bin/reportgen run examples/data --config examples/reportgen.toml \
    --out example-output --force --seed 20240611 \
    --title "Code completion: 12 configurations" --release "example"

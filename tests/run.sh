#!/usr/bin/env bash
# The tests: install the system libraries of the PDF export when missing, create the
# .venv-test virtual environment, install reportgen with its test extra into it, run the
# linter and the formatter check (ruff, over the whole repository: code, tests, tools,
# examples, benchmarks, the notebook templates and the README's Python blocks), the type
# checker (mypy, on the layers pyproject.toml names) and the import-layers contract
# (import-linter), then the suite. Any finding fails the run. Safe to re-run. Extra arguments
# go to pytest, e.g. one tier (markers in pyproject.toml; a -m given here replaces the default
# "not slow", so keep it): -m "unit and not slow", -m "integration and not e2e and not slow",
# -m "e2e and not slow", or -m "not e2e and not slow" for a quick pass; -m slow for the long
# simulations left out by default. Every run ends with its 25 slowest tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
bash tools/system-deps.sh
if [ ! -x .venv-test/bin/python ]; then
    "$PYTHON" -m venv .venv-test
fi
.venv-test/bin/python -m pip install --quiet --upgrade pip
.venv-test/bin/python -m pip install --quiet -e ".[test]"
.venv-test/bin/python -m ruff check .
.venv-test/bin/python -m ruff format --check .
.venv-test/bin/python -m mypy
.venv-test/bin/lint-imports
# on every core, one test file per worker at a time (module fixtures stay shared)
exec .venv-test/bin/python -m pytest -n auto --dist loadfile --no-loadscope-reorder "$@"

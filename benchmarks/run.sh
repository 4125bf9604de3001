#!/usr/bin/env bash
# The benchmark suite of reportgen (issue 9; benchmarks/README.md): every workload, one
# table, one JSON file in benchmarks/results/.
#
# Creates .venv-bench at the repository root (once), installs the project and the
# reference library evalci into it (evalci is a benchmark-only dependency, never a
# project one), and .venv-default with a plain `pip install .` (what the cli_* workloads
# run), then runs benchmarks/bench_compare.py with the given arguments:
#
#   bash benchmarks/run.sh                 # everything, references and reportgen run (~20-25 min)
#   bash benchmarks/run.sh --quick         # the fast tier only (~2 min)
#   bash benchmarks/run.sh --only arena5_stats,arena5_scipy
#   bash benchmarks/run.sh --compare benchmarks/results/latest.json
#   bash benchmarks/run.sh floors [--only mmlu9,rows2m] [--repeats N]   # issue 45: the CLI vs its floors
#   bash benchmarks/run.sh regress [--against REV]                      # issue 45: vs an earlier commit
#
# The exit status is 1 if a target is missed, 2 for a bad argument.
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
# The default install a user gets (issue 35): `pip install .`, no extras, not editable;
# the cli_* workloads run its `reportgen` command. Reinstalled each run (the checkout
# may have changed); REPORTGEN_DEFAULT_VENV chooses another folder.
DEFAULT_VENV=${REPORTGEN_DEFAULT_VENV:-.venv-default}
if [ ! -x "$DEFAULT_VENV/bin/python" ]; then
    "$PYTHON" -m venv "$DEFAULT_VENV"
    printf '*\n' > "$DEFAULT_VENV/.gitignore"
fi
"$DEFAULT_VENV/bin/python" -m pip install --quiet --disable-pip-version-check .
"$DEFAULT_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --force-reinstall --no-deps .
export REPORTGEN_DEFAULT_VENV="$DEFAULT_VENV"
case "${1:-}" in
    floors) shift; exec "$VENV/bin/python" benchmarks/floors.py --venv "$DEFAULT_VENV" "$@" ;;
    regress) shift; exec "$VENV/bin/python" benchmarks/regress.py "$@" ;;
esac
exec "$VENV/bin/python" benchmarks/bench_compare.py "$@"

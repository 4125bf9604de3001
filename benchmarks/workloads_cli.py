"""How fast the command line answers: ``reportgen analyze --help`` in a fresh
interpreter, against a bare interpreter (``python -c pass``) timed the same way, as the
floor no CLI can beat.

Issue 18 item 4: ``analyze --help`` took 1.1-1.3 s because building the parser imported
scipy.stats and pandas; the target is 0.35 s.
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

from _workload import Target, Workload

TARGET_HELP_S = 0.35


def _timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _cli_help() -> Workload:
    def setup() -> Any:  # the floor, measured beside the timed runs (not timed itself)
        return {"bare_s": min(_timed([sys.executable, "-c", "pass"]) for _ in range(3))}

    def run(state: Any) -> Any:
        state["help_s"] = _timed([sys.executable, "-m", "reportgen", "analyze", "--help"])
        return state

    def summarize(state: Any, result: Any) -> dict[str, Any]:
        return {
            "help_s": state["help_s"],
            "bare_interpreter_s": state["bare_s"],
            "over_bare": state["help_s"] / state["bare_s"],
            "help_ok": state["help_s"] <= TARGET_HELP_S,
        }

    return Workload(
        "cli_start",
        "fast",
        "reportgen analyze --help in a fresh interpreter (the run is timed "
        "from the parent: start, parse, print), beside a bare `python -c "
        f"pass` (target: at most {TARGET_HELP_S} s)",
        setup,
        run,
        summarize,
        target=Target(seconds=TARGET_HELP_S),
    )


def workloads() -> list[Workload]:
    return [_cli_help()]

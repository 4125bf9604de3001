"""Children and temporary folders under signals (issue 32): worker processes end with
their parent even when it is killed with SIGKILL (a CI timeout, the OOM killer), and
so does the multiprocessing resource tracker; an interrupted run leaves no
``reportgen-*`` folder in TMPDIR.

The reference is the operating system: ``/proc/PID/stat`` (a process that is gone or a
zombie has ended) and the contents of TMPDIR.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        alive = [p for p in pids if _alive(p)]
        if not alive:
            return []
        time.sleep(0.1)
    return [p for p in pids if _alive(p)]


_FIGURE_POOL = """
import time
from multiprocessing import resource_tracker
from reportgen.report.render.html import FigurePool

if __name__ == "__main__":
    pool = FigurePool(2, bundled_font=True)
    time.sleep(1.0)
    pids = [p.pid for p in pool._executor._processes.values()]
    print(" ".join(map(str, [*pids, resource_tracker._resource_tracker._pid])), flush=True)
    time.sleep(600)
"""

_UNIT_POOL = """
import time
from multiprocessing import resource_tracker
import reportgen.execution as ex

def slow(shared, seconds):
    time.sleep(seconds)

def report():
    time.sleep(3.0)
    import multiprocessing
    pids = [p.pid for p in multiprocessing.active_children()]
    print(" ".join(map(str, [*pids, resource_tracker._resource_tracker._pid])), flush=True)

if __name__ == "__main__":
    import threading
    threading.Thread(target=report, daemon=True).start()
    ex._map_processes(slow, None, [(600,), (600,)], 2, None)
"""


_PDF_DRAWER = """
import time
from reportgen.report.pdf.charts import ChartDrawer

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">' + "".join(
    f'<text x="{k % 400}" y="{k % 300}">label {k}</text>' for k in range(300)
) + "</svg>"

if __name__ == "__main__":
    drawer = ChartDrawer([SVG] * 20000)  # minutes of drawing
    time.sleep(1.0)
    print(drawer._process.pid, flush=True)
    time.sleep(600)
"""


@pytest.mark.parametrize(
    "script", [_FIGURE_POOL, _UNIT_POOL, _PDF_DRAWER], ids=["charts", "units", "pdf-charts"]
)
def test_workers_end_when_their_parent_is_killed(tmp_path, script):
    path = tmp_path / "parent.py"
    path.write_text(script)
    proc = subprocess.Popen(
        [sys.executable, str(path)], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    pids = [int(p) for p in line.split()]
    assert len(pids) >= 1 and all(_alive(p) for p in pids), line
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    left = _wait_gone(pids, 10.0)
    try:
        assert left == [], f"still running after their parent was killed: {left}"
    finally:
        for pid in left:
            os.kill(pid, signal.SIGKILL)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("signum", "status"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 143)],
    ids=["SIGINT", "SIGTERM", "SIGHUP"],
)
def test_interrupted_run_leaves_nothing_in_tmpdir(tmp_path, signum, status):
    rng = np.random.default_rng(3)
    lines = ["system,dataset,metric,item,score"]
    for name in ("a", "b", "c"):
        for i in range(50):
            lines.append(f"{name},qa,acc,q{i},{int(rng.random() < 0.6)}")
    data = tmp_path / "scores.csv"
    data.write_text("\n".join(lines) + "\n")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reportgen",
            "run",
            str(data),
            "--out",
            str(tmp_path / "r"),
            "--format",
            "html",
            "--n-resamples",
            "199",
            "--seed",
            "1",
        ],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    assert proc.stderr is not None
    temporary_seen = False
    for line in proc.stderr:
        temporary_seen = temporary_seen or any(
            p.name.startswith("reportgen-") for p in scratch.rglob("*")
        )
        if "cell 6/" in line:
            proc.send_signal(signum)
            break
    assert proc.wait(timeout=120) == status
    assert temporary_seen  # the run had made its temporary folders before the signal
    time.sleep(1.0)
    assert sorted(p.name for p in scratch.rglob("*")) == []
    assert not (tmp_path / "r").exists()

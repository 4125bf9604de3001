"""Safe outputs (issue 10): an interrupted run (Ctrl-C or SIGTERM) leaves no
half-written report folder and no kernel behind; an output folder that cannot be written
is refused before any work; two runs into different folders at the same time do not
interfere."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reportgen.cli import main


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    rng = np.random.default_rng(5)
    lines = ["system,dataset,metric,item,score"]
    for k, name in enumerate(("base", "ours", "other")):
        for i in range(60):
            lines.append(f"{name},qa,acc,q{i},{int(rng.random() < 0.5 + 0.1 * k)}")
    path = tmp_path_factory.mktemp("tiny") / "scores.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _command(data: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "reportgen",
        "run",
        str(data),
        "--out",
        str(out),
        "--format",
        "html",
        "--seed",
        "3",
        "--n-resamples",
        "199",
    ]


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("sig", "status", "word"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
def test_interrupted_run_leaves_nothing_behind(tiny, tmp_path, sig, status, word):
    out = tmp_path / "report"
    proc = subprocess.Popen(_command(tiny, out), stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:  # stop it while the notebook runs
        if "cell 4/" in line:
            proc.send_signal(sig)
            break
    rest = proc.stderr.read()
    assert proc.wait(timeout=60) == status
    assert f"reportgen: {word}" in rest and "Traceback" not in rest
    assert list(tmp_path.iterdir()) == []  # no report, no build folder, no debug notebook


@pytest.mark.parametrize("where", ["under-a-file", "proc"])
def test_unwritable_output_is_refused_before_any_work(tiny, tmp_path, capsys, where):
    if where == "under-a-file":
        blocker = tmp_path / "a-file"
        blocker.write_text("x")
        out = blocker / "report"
    else:
        if not Path("/proc/self").is_dir():
            pytest.skip("no /proc here")
        out = Path("/proc/reportgen-cannot-write-here/report")
    assert main(["run", str(tiny), "--out", str(out)]) == 2  # progress on: none shown
    err = capsys.readouterr().err
    assert "cannot write next to the output folder" in err
    assert "hint: choose a folder you can write to with --out" in err
    assert "loading" not in err and "Traceback" not in err


@pytest.mark.e2e
def test_two_runs_at_once_into_different_folders(tiny, tmp_path):
    outs = [tmp_path / "a", tmp_path / "b"]
    procs = [
        subprocess.Popen(_command(tiny, out) + ["--quiet"], stderr=subprocess.PIPE, text=True)
        for out in outs
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    docs = []
    for out in outs:
        assert main(["verify", str(out)]) == 0
        doc = json.loads((out / "results.json").read_text())
        doc.pop("created")
        docs.append(doc)
    assert docs[0] == docs[1]  # same data and seed: the same results, nothing mixed up
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]

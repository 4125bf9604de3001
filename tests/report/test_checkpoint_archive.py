"""Reports archived next to checkpoints: `reportgen run --out CHECKPOINT/eval-report`
inside an existing checkpoint folder, a second run that never overwrites the first
silently (refused, or a new timestamped folder, or --force), and a checkpoint folder
itself never replaced."""

from __future__ import annotations

import re

import numpy as np
import pytest

from reportgen.cli import main


@pytest.fixture()
def checkpoint(tmp_path):
    """A checkpoint folder with weights, and a small result file of 3 systems."""
    ckpt = tmp_path / "checkpoints" / "step-1000"
    ckpt.mkdir(parents=True)
    (ckpt / "model.safetensors").write_bytes(b"\x00weights")
    (ckpt / "config.json").write_text('{"layers": 2}')
    rng = np.random.default_rng(5)
    lines = ["system,dataset,metric,item,score"]
    for k, name in enumerate(("base", "ours", "other")):
        for i in range(60):
            lines.append(f"{name},qa,acc,q{i},{int(rng.random() < 0.5 + 0.1 * k)}")
    data = tmp_path / "scores.csv"
    data.write_text("\n".join(lines) + "\n")
    return ckpt, data


def _run(data, out, *extra):
    return main(
        [
            "run",
            str(data),
            "--out",
            str(out),
            "--format",
            "html",
            "--quiet",
            "--seed",
            "1",
            "--n-resamples",
            "199",
            *extra,
        ]
    )


@pytest.mark.e2e
def test_run_archives_next_to_a_checkpoint_without_overwriting(checkpoint, capsys):
    ckpt, data = checkpoint
    before = {p.name: p.read_bytes() for p in ckpt.iterdir()}
    out = ckpt / "eval-report"
    assert _run(data, out) == 0
    first = (out / "report.html").read_bytes()
    capsys.readouterr()
    # a second run into the same folder is refused before any work
    assert _run(data, out) == 2
    err = capsys.readouterr().err
    assert "the output folder already exists (a report folder)" in err
    assert "--if-exists timestamp" in err and "Traceback" not in err
    # ... or goes to a new timestamped folder beside it
    assert _run(data, out, "--if-exists", "timestamp") == 0
    printed = capsys.readouterr().out
    stamped = [p for p in ckpt.iterdir() if re.fullmatch(r"eval-report-\d{8}-\d{6}", p.name)]
    assert len(stamped) == 1 and f"{stamped[0]}/" in printed
    assert (stamped[0] / "manifest.json").is_file()
    assert (out / "report.html").read_bytes() == first  # the first one is untouched
    # the checkpoint's own files are untouched, and no build folder is left
    assert {p.name: p.read_bytes() for p in ckpt.iterdir() if p.is_file()} == before
    assert not [p for p in ckpt.iterdir() if p.name.startswith(".")]
    # reportgen verify on the archived report
    assert main(["verify", str(out)]) == 0


def test_run_never_replaces_the_checkpoint_folder_itself(checkpoint, capsys):
    ckpt, data = checkpoint
    before = sorted(p.name for p in ckpt.iterdir())
    for extra in ((), ("--force",), ("--if-exists", "replace")):
        assert _run(data, ckpt, *extra) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert "already exists (a folder)" in err or (
            "holds something reportgen did not write, so it is never replaced (it may be "
            "a checkpoint): config.json: not written by reportgen (the folder has no "
            "manifest.json)" in err
        )
    assert sorted(p.name for p in ckpt.iterdir()) == before

"""Hostile folders (issue 44, item 1): the walk opens only regular files, never blocks
(FIFOs, sockets, devices are skipped with the reason), never follows a link out of the
folder given, survives entries it may not read (skipped with the reason; an error with
--strict-inputs), sums up skipped files by reason, and stops at a bound on the files it
looks into, naming it.

The inputs are real harness outputs of tests/fixtures/real (EvalPlus) beside the
hostile entries; the references are the exit status, the messages and the inputs read.
A hang is caught by running the command in a child with a time limit.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.data import LoadOptions, load, read_inputs
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
EVALPLUS = REAL / "evalplus" / "0.3.1"


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(EVALPLUS / "greedy", root / "greedy")
    shutil.copytree(EVALPLUS / "sampled", root / "sampled")
    return root


def _cli(argv: list[str], *, timeout: float = 120, prefix=None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "reportgen", *argv]
    return subprocess.run(
        prefix(command) if prefix else command,
        capture_output=True,
        text=True,
        timeout=timeout,  # a hang fails here instead of stalling the suite
    )


def _skipped(table) -> dict[str, str]:
    return {Path(s.path).name: s.reason for s in table.skipped_inputs}


def test_walk_never_opens_a_fifo_or_a_socket(tmp_path):
    # before: a FIFO named results.json blocked `inspect` forever (every_eval_ever's
    # folder sniff opened every *.json that was not a folder)
    root = _project(tmp_path)
    (root / "sub").mkdir()
    os.mkfifo(root / "sub" / "results.json")
    os.mkfifo(root / "scores.jsonl")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(root / "sub" / "live.json"))
    try:
        proc = _cli(["inspect", str(root), "--json"], timeout=120)
    finally:
        listener.close()
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    skipped = {Path(s["path"]).name: s["reason"] for s in json.loads(proc.stdout)["skipped_inputs"]}
    assert skipped["results.json"] == "a FIFO (named pipe), not a regular file: not read"
    assert skipped["scores.jsonl"] == "a FIFO (named pipe), not a regular file: not read"
    assert skipped["live.json"] == "a socket, not a regular file: not read"


def test_walk_skips_a_device(tmp_path):
    root = _project(tmp_path)
    try:
        os.mknod(root / "zero.json", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here ({exc.strerror})")
    table = load(root)
    assert _skipped(table)["zero.json"] == "a character device, not a regular file: not read"
    assert set(table.systems) == {"toy-greedy", "toy-sampled"}


def test_walk_never_follows_a_link_out_of_the_folder_given(tmp_path):
    root = _project(tmp_path)
    outside = tmp_path / "elsewhere"
    shutil.copytree(EVALPLUS / "greedy", outside / "other")
    (outside / "other" / "toy-greedy_eval_results.json").rename(
        outside / "other" / "away_eval_results.json"
    )
    os.symlink(outside / "other", root / "linked-folder")
    os.symlink(outside / "other" / "away_eval_results.json", root / "linked_eval_results.json")
    # a link that stays inside is followed
    os.symlink(root / "greedy", root / "alias")
    table = load(root)
    skipped = _skipped(table)
    assert "outside the folder given: not followed" in skipped["linked-folder"]
    assert "outside the folder given: not followed" in skipped["linked_eval_results.json"]
    read = {Path(f["resolved"]).parent for s in table.sources for f in s["files"]}
    assert outside / "other" not in read
    assert set(table.systems) == {"toy-greedy", "toy-sampled"}
    # the same folder given directly is read, links and all
    assert {r.format for r in read_inputs(root / "linked-folder")} == {"evalplus"}


def test_walk_survives_entries_it_may_not_read(tmp_path, unprivileged):
    # before: a traceback (PermissionError from helm.sniff calling Path.is_file())
    root = _project(tmp_path)
    locked = root / "locked"
    shutil.copytree(REAL / "helm" / "eee" / "narrative_qa-model=openai_gpt2", locked / "run")
    shutil.copy(EVALPLUS / "greedy" / "toy-greedy_eval_results.json", root / "x_eval_results.json")
    (root / "x_eval_results.json").chmod(0)
    locked.chmod(0)
    try:
        proc = _cli(["inspect", str(root), "--json"], prefix=unprivileged)
        strict = _cli(["inspect", str(root), "--strict-inputs"], prefix=unprivileged)
        given = _cli(["inspect", str(root / "x_eval_results.json")], prefix=unprivileged)
        folder = _cli(["inspect", str(locked)], prefix=unprivileged)
    finally:
        locked.chmod(0o755)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    skipped = {Path(s["path"]).name: s["reason"] for s in json.loads(proc.stdout)["skipped_inputs"]}
    assert skipped["locked"] == "cannot list it: permission denied"
    assert skipped["x_eval_results.json"] == "cannot be read: permission denied"
    # --strict-inputs: any file not read is an error, named
    assert strict.returncode == 2 and "Traceback" not in strict.stderr
    assert strict.stderr.startswith("reportgen: error: ") and "hint:" in strict.stderr
    # a file given directly: exit 2, the path and what to do
    assert given.returncode == 2 and "Traceback" not in given.stderr
    assert "x_eval_results.json: cannot be read: permission denied" in given.stderr
    assert "check the permissions" in given.stderr
    # a folder given directly that cannot be listed: the same, not "holds no results"
    assert folder.returncode == 2 and "Traceback" not in folder.stderr
    assert folder.stderr.startswith(f"reportgen: error: {locked}: cannot be read: permission")


def test_skipped_files_are_summed_up_by_reason(tmp_path, capsys):
    # before: one warning line per skipped file (50,000 files, 50,019 lines)
    root = _project(tmp_path)
    junk = root / "junk"
    junk.mkdir()
    for k in range(400):
        (junk / f"f{k:03d}.json").write_text(f'{{"k{k % 7}": {k}}}\n')
    assert main(["inspect", str(root)]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("  warning: skipped")]
    (summary,) = [line for line in lines if "400 files" in line]
    assert "cannot tell the format of this JSON file" in summary
    assert "f000.json, " in summary and "f001.json, " in summary and "f002.json" in summary
    assert len(lines) == 3  # the summary and EvalPlus's two samples files, each named
    # every file is still listed for machines
    table = load(root)
    assert sum(Path(s.path).parent.name == "junk" for s in table.skipped_inputs) == 400


def test_walk_stops_at_its_bound_and_names_it(tmp_path, capsys):
    root = _project(tmp_path)
    junk = root / "junk"
    junk.mkdir()
    for k in range(120):
        (junk / f"f{k:03d}.json").write_text('{"a": 1}\n')
    assert main(["inspect", str(root), "--max-walk-files", "100"]) == 2
    err = capsys.readouterr().err
    assert "stopped after looking into 100 files and folders below this folder" in err
    assert "--max-walk-files" in err and "Traceback" not in err
    # each file and folder counts once, however many formats look at it: the 124 files
    # of a data suffix (120 junk, 4 of EvalPlus) and the 4 folders
    assert main(["inspect", str(root), "--max-walk-files", "128"]) == 0
    assert main(["inspect", str(root), "--max-walk-files", "127"]) == 2
    with pytest.raises(InputError, match="--max-walk-files"):
        load(root, options=LoadOptions(max_walk_files=10))


def test_names_that_are_not_utf8(tmp_path, capsys):
    # before: UnicodeEncodeError in inspect, analyze and run
    root = _project(tmp_path)
    bad = os.fsdecode(b"scores-\xff.csv")
    rows = "system,dataset,metric,item,score\n" + "".join(
        f"{s},qa,acc,q{i},{(i + k) % 2}\n" for k, s in enumerate("ab") for i in range(6)
    )
    (root / bad).write_text(rows)
    table = load(root)
    assert _skipped(table)["scores-\\xff.csv"].startswith("its name is not valid UTF-8")
    assert main(["inspect", str(root / bad)]) == 2
    err = capsys.readouterr().err
    assert "scores-\\xff.csv: the file name is not valid UTF-8" in err
    assert "rename it" in err and "Traceback" not in err
    assert main(["analyze", str(root / bad), "--out", str(tmp_path / "r")]) == 2
    assert not (tmp_path / "r").exists()

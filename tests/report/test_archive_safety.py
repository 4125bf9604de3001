"""Report folders you can trust (issue 17): a folder is replaced only when reportgen
wrote everything in it; the swap is race-safe; one run at a time per output folder; a
symbolic link is refused; what a killed run left behind is cleaned up by the next run
into the same parent once its owner is gone; every output follows the umask.

The references are the file system itself: the files and bytes found afterwards, the
exit statuses of real concurrent processes, and ``os.umask``.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.report.folder import archive
from reportgen.report.folder.archive import (
    MANIFEST_FORMAT,
    foreign_entry,
    report_folder,
)


@pytest.fixture(scope="module")
def scores(tmp_path_factory, scores_csv) -> Path:
    return scores_csv(tmp_path_factory.mktemp("scores"), seed=5, n_items=60)


def _analyze(data: Path, out: Path, *extra: str) -> int:
    return main(
        ["analyze", str(data), "--out", str(out), "--seed", "1", "--n-resamples", "99", *extra]
    )


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# ---------------------------------------------------------------- ownership


def test_force_never_replaces_a_checkpoint_holding_a_results_json(scores, tmp_path, capsys):
    # the repro: weights beside a results.json that reportgen did not write
    ckpt = tmp_path / "ck" / "v2"
    ckpt.mkdir(parents=True)
    (ckpt / "model.safetensors").write_text("w\n")
    (ckpt / "results.json").write_text("{}\n")
    before = _snapshot(ckpt)
    for command in (["run", str(scores), "--quiet"], ["analyze", str(scores)]):
        assert main([*command, "--out", str(ckpt), "--force"]) == 2
        err = capsys.readouterr().err
        assert (
            "model.safetensors: not written by reportgen (the folder has no manifest.json)" in err
        ), err
        assert "never replaced" in err and "Traceback" not in err
    assert _snapshot(ckpt) == before
    assert sorted(p.name for p in ckpt.parent.iterdir()) == ["v2"]  # no lock, no build


def test_force_refuses_a_report_with_a_file_it_does_not_list(scores, tmp_path, capsys):
    out = tmp_path / "r"
    assert _analyze(scores, out) == 0
    (out / "NOTES.md").write_text("my notes\n")
    before = _snapshot(out)
    assert _analyze(scores, out, "--force", "--seed", "2") == 2
    err = capsys.readouterr().err
    assert (
        f"{out}/NOTES.md: the output folder holds something reportgen did not write" in err
        and "NOTES.md: not listed in its manifest.json" in err
    ), err
    assert _snapshot(out) == before
    assert main(["verify", str(out)]) == 1  # verify names it too
    assert "unlisted output: NOTES.md" in capsys.readouterr().out


@pytest.mark.parametrize(
    "kind", ["subfolder", "nested-file", "symlink", "fifo", "no-marker", "newer-format"]
)
def test_foreign_entry_names_the_first_thing_reportgen_did_not_write(tmp_path, kind, write_report):
    out = tmp_path / "r"
    out.mkdir()
    write_report(out, {"results.json": "{}", "tables/a.csv": "x\n"})
    expected = {
        "subfolder": ("extra", "a folder its manifest.json does not list"),
        "nested-file": ("tables/b.csv", "not listed in its manifest.json"),
        "symlink": ("tables/a.csv", "a symbolic link, which reportgen never writes"),
        "fifo": ("pipe", "a FIFO, which reportgen never writes"),
        "no-marker": ("manifest.json", "not written by reportgen (no format marker)"),
        "newer-format": ("manifest.json", "has format version 99"),
    }[kind]
    manifest = json.loads((out / "manifest.json").read_text())
    if kind == "subfolder":
        (out / "extra").mkdir()
    elif kind == "nested-file":
        (out / "tables" / "b.csv").write_text("y\n")
    elif kind == "symlink":
        (out / "tables" / "a.csv").unlink()
        (out / "tables" / "a.csv").symlink_to(tmp_path)
    elif kind == "fifo":
        os.mkfifo(out / "pipe")
    elif kind == "no-marker":
        del manifest["format"]
    else:
        manifest["format_version"] = 99
    (out / "manifest.json").write_text(json.dumps(manifest))
    found = foreign_entry(out)
    assert found is not None and found.path == expected[0] and expected[1] in found.why
    with pytest.raises(InputError, match="never replaced"), report_folder(out, force=True):
        pytest.fail("the block must not run")


def test_force_replaces_a_report_reportgen_wrote(scores, tmp_path, capsys):
    out = tmp_path / "r"
    assert _analyze(scores, out) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == MANIFEST_FORMAT and manifest["format_version"] == 1
    assert set(manifest["outputs"]) == {"results.json"}
    assert _analyze(scores, out, "--seed", "2") == 2  # not without --force
    assert "already exists (a report folder)" in capsys.readouterr().err
    assert _analyze(scores, out, "--force", "--seed", "2") == 0
    assert json.loads((out / "results.json").read_text())["seed"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


@pytest.mark.parametrize("command", ["run", "analyze", "history"])
def test_symlinked_out_is_refused(scores, tmp_path, capsys, command):
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    link = tmp_path / "link"
    link.symlink_to(target)
    args = {
        "run": ["run", str(scores), "--quiet"],
        "analyze": ["analyze", str(scores)],
        "history": [
            "history",
            str(tmp_path / "a"),
            str(tmp_path / "b"),
            "--quiet",
            "--system",
            "ours",
        ],
    }
    if command == "history":  # two reports to read
        for name in ("a", "b"):
            assert _analyze(scores, tmp_path / name) == 0
        capsys.readouterr()
    for extra in ((), ("--force",)):
        assert main([*args[command], "--out", str(link), *extra]) == 2
        err = capsys.readouterr().err
        assert f"{link}: the output folder is a symbolic link (to {target})" in err, err
    assert link.is_symlink() and _snapshot(target) == {"keep.txt": b"keep"}


# ---------------------------------------------------------------- races


def test_folder_created_at_out_during_the_run_is_left_alone(tmp_path, write_report):
    out = tmp_path / "eval-report"
    with pytest.raises(
        InputError,
        match="created by someone else while this report was "
        "made, so it was left alone; the new report is in",
    ):
        with report_folder(out) as work:
            write_report(work, {"results.json": "{}"})
            out.mkdir()  # e.g. a checkpoint written meanwhile
            (out / "model.safetensors").write_text("w")
    assert _snapshot(out) == {"model.safetensors": b"w"}
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("eval-report-")]
    assert len(kept) == 1 and (kept[0] / "results.json").is_file()
    assert _hidden(tmp_path) == []


def test_file_added_to_the_old_report_during_the_run_aborts_the_swap(tmp_path, write_report):
    out = tmp_path / "r"
    out.mkdir()
    write_report(out, {"results.json": "old"})
    with pytest.raises(
        InputError, match="changed by someone else while this report was made.*ckpt.bin: not listed"
    ):
        with report_folder(out, force=True) as work:
            write_report(work, {"results.json": "new"})
            (out / "ckpt.bin").write_text("w")
    assert (out / "results.json").read_text() == "old" and (out / "ckpt.bin").is_file()
    assert len([p for p in tmp_path.iterdir() if p.name.startswith("r-")]) == 1
    assert _hidden(tmp_path) == []


def test_file_added_between_the_check_and_the_rename_is_caught(tmp_path, monkeypatch, write_report):
    """The last check passes, then a file lands in the old report before it is moved
    aside: the check of the moved folder catches it and puts the folder back."""
    out = tmp_path / "r"
    out.mkdir()
    write_report(out, {"results.json": "old"})
    real = archive.foreign_entry
    calls = []

    def racing(folder, **options):
        found = real(folder, **options)
        calls.append(Path(folder).name)
        if Path(folder) == out and len(calls) == 2:  # the check inside the swap
            (out / "late.bin").write_text("w")
        return found

    monkeypatch.setattr(archive, "foreign_entry", racing)
    with pytest.raises(
        InputError,
        match="changed by someone else while it was being replaced.*late.bin.*left as it was",
    ):
        with report_folder(out, force=True) as work:
            write_report(work, {"results.json": "new"})
    assert (out / "results.json").read_text() == "old" and (out / "late.bin").is_file()
    assert _hidden(tmp_path) == []


def test_only_listed_files_of_the_old_report_are_deleted(tmp_path, monkeypatch, write_report):
    """A file that lands in the old report after its last check is kept, named."""
    out = tmp_path / "r"
    out.mkdir()
    write_report(out, {"results.json": "old", "tables/a.csv": "a"})
    real = archive._remove_listed

    def late_writer(folder, **options):
        (folder / "tables" / "late.bin").write_text("w")
        return real(folder, **options)

    monkeypatch.setattr(archive, "_remove_listed", late_writer)
    with pytest.warns(archive.LeftoverWarning, match="were kept in"):
        with report_folder(out, force=True) as work:
            write_report(work, {"results.json": "new"})
    assert (out / "results.json").read_text() == "new"
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("r.kept-")]
    assert len(kept) == 1 and _snapshot(kept[0]) == {"tables/late.bin": b"w"}


def _run_command(data: Path, out: Path, *extra: str) -> list[str]:
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
        *extra,
    ]


@pytest.mark.e2e
def test_concurrent_runs_to_one_out_exactly_one_succeeds(scores, tmp_path):
    out = tmp_path / "r"
    procs = [
        subprocess.Popen(
            _run_command(scores, out, "--force", "--quiet"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    results = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    statuses = sorted(status for status, _, _ in results)
    assert statuses == [0, 2, 2], results
    for status, stdout, stderr in results:
        if status == 2:
            assert (
                "another reportgen run (pid " in stderr
                and "is writing this report folder" in stderr
                and "Traceback" not in stderr
                and stdout == ""
            )
    assert main(["verify", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_a_live_lock_blocks_and_a_dead_one_does_not(scores, tmp_path, capsys):
    lock = archive._OutputLock(tmp_path, "r")
    assert lock.acquire()
    assert _analyze(scores, tmp_path / "r") == 2
    assert f"another reportgen run (pid {os.getpid()})" in capsys.readouterr().err
    lock.release()
    (tmp_path / ".reportgen-r.lock").write_text("reportgen 999999 gone\n")  # a dead run's
    assert _analyze(scores, tmp_path / "r") == 0
    assert _hidden(tmp_path) == []


# ---------------------------------------------------------------- killed runs


@pytest.mark.e2e
def test_leftovers_of_a_killed_run_are_removed_by_the_next_run(scores, tmp_path):
    out = tmp_path / "r"
    proc = subprocess.Popen(_run_command(scores, out), stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "cell 4/" in line:
            proc.send_signal(signal.SIGKILL)  # no chance to clean up
            break
    proc.wait(timeout=60)
    time.sleep(0.5)  # let the orphaned kernel notice its parent is gone
    left = _hidden(tmp_path)
    assert any(n.startswith(".reportgen-r.") and n.endswith(".partial") for n in left), left
    assert ".reportgen-r.lock" in left
    assert _analyze(scores, tmp_path / "other") == 0  # another folder, same parent
    assert _hidden(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other"]


def test_build_folder_of_a_live_run_is_never_removed(scores, tmp_path):
    holder = archive._OutputLock(tmp_path, "r")
    assert holder.acquire()
    partial = tmp_path / ".reportgen-r.abcd1234.partial"
    partial.mkdir()
    (partial / archive.BUILD_MARKER).write_bytes(b"reportgen build folder abcd1234\n")
    (partial / "report.ipynb").write_text("{}")
    try:
        assert _analyze(scores, tmp_path / "other") == 0
        assert (partial / "report.ipynb").is_file()
    finally:
        holder.release()
    assert _analyze(scores, tmp_path / "third") == 0  # now its owner is gone
    assert not partial.exists()


def test_report_moved_aside_by_a_run_killed_mid_swap_is_put_back(scores, tmp_path, write_report):
    aside = tmp_path / ".reportgen-r.abcd1234.old"
    aside.mkdir()
    write_report(aside, {"results.json": "old"})
    assert _analyze(scores, tmp_path / "other") == 0
    assert (tmp_path / "r" / "results.json").read_text() == "old"
    assert _hidden(tmp_path) == []


def test_a_hidden_folder_of_the_same_shape_that_is_not_ours_stays(scores, tmp_path):
    # a lock file reportgen did not write: its folders are not touched
    (tmp_path / ".data.lock").write_text("someone else's\n")
    other = tmp_path / ".data.abcd1234.partial"
    other.mkdir()
    (other / "x").write_text("x")
    assert _analyze(scores, tmp_path / "r") == 0
    assert (other / "x").is_file() and (tmp_path / ".data.lock").is_file()


# ---------------------------------------------------------------- modes, failures


@pytest.mark.e2e
@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_every_output_follows_the_umask(scores, tmp_path, umask):
    out = tmp_path / "r"
    proc = subprocess.run(
        _run_command(scores, out, "--format", "html,pdf", "--quiet"),
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: os.umask(umask),
    )
    assert proc.returncode == 0, proc.stderr
    modes = {
        p.relative_to(out).as_posix(): stat.S_IMODE(p.stat().st_mode)
        for p in [out, *out.rglob("*")]
    }
    assert "report.pdf" in modes and "tables" in modes
    for name, mode in modes.items():
        expected = (0o777 if (out / name).is_dir() else 0o666) & ~umask
        assert mode == expected, (name, oct(mode))


def test_report_folder_gives_private_temporary_files_the_umask_mode(tmp_path):
    import tempfile

    out = tmp_path / "r"
    with report_folder(out) as work:
        fd, name = tempfile.mkstemp(dir=work)  # 0600, as WeasyPrint's writer leaves it
        os.close(fd)
        os.rename(name, work / "report.pdf")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE((out / "report.pdf").stat().st_mode) == 0o666 & ~mask
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~mask


def test_failed_analyze_leaves_no_output_folder(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("system,item,score\nA,1,abc\n")
    out = tmp_path / "new" / "deeper" / "out"
    assert main(["analyze", str(bad), "--out", str(out)]) == 2
    assert "is not a number" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


@pytest.mark.e2e
def test_run_on_a_full_disk_exits_2_and_leaves_nothing(small_disk, capsys):
    # ENOSPC while the report is written: a clear error, no traceback, nothing kept
    keep = small_disk / "model.safetensors"
    keep.write_bytes(b"weights")
    out = small_disk / "eval-report"
    status = main(
        [
            "run",
            str(Path(__file__).resolve().parents[2] / "examples" / "data"),
            "--out",
            str(out),
            "--format",
            "html,pdf",
            "--seed",
            "1",
            "--n-resamples",
            "199",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert "the disk is full" in err and "nothing was kept" in err
    assert sorted(p.name for p in small_disk.iterdir()) == ["model.safetensors"]
    assert keep.read_bytes() == b"weights"

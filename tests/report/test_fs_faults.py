"""File-system errors are the user's errors (issue 44, item 3): a file-size limit or a
full disk while a report is written over an old one, a read-only file system, an
output name that is not UTF-8, a NUL byte in a manifest or a config path, an
unexpected OSError anywhere: exit status 2, one message with the path and what to do,
the old report intact and nothing left beside it or in TMPDIR.

The faults are real: ``prlimit --fsize`` (util-linux) makes every write past the limit
fail with EFBIG in the command and the notebook kernel it starts; a read-only tmpfs
gives EROFS. The references are the exit status, stderr, and the bytes on disk
afterwards.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.cli import main


@pytest.fixture(scope="module")
def scores(tmp_path_factory, scores_csv) -> Path:
    return scores_csv(tmp_path_factory.mktemp("scores"), seed=44)


def _limited(size: int, argv: list[str], scratch: Path) -> subprocess.CompletedProcess:
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        pytest.skip("prlimit (util-linux) is not installed: no file-size limit to set")
    return subprocess.run(
        [prlimit, f"--fsize={size}", sys.executable, "-m", "reportgen", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TMPDIR": str(scratch)},
    )


def _one_message(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if not line.startswith("[")]
    assert "Traceback" not in stderr, stderr
    assert lines[0].startswith("reportgen: error: "), stderr
    assert [line for line in lines[1:] if not line.startswith("  hint: ")] == [], stderr
    return lines[0]


@pytest.mark.parametrize("limit", [2_000, 12_000])
def test_analyze_force_under_a_file_size_limit_keeps_the_old_folder(
    scores, tmp_path, limit, file_digests
):
    out = tmp_path / "r"
    assert main(["analyze", str(scores), "--out", str(out), "--n-resamples", "99"]) == 0
    before, beside = file_digests(out), sorted(os.listdir(tmp_path))
    scratch = tmp_path.parent / f"{tmp_path.name}-tmp"
    scratch.mkdir()
    proc = _limited(
        limit,
        ["analyze", str(scores), "--out", str(out), "--force", "--n-resamples", "99"],
        scratch,
    )
    assert proc.returncode == 2, proc.stderr
    message = _one_message(proc.stderr)
    assert "file too large for the file-size limit" in message
    assert "nothing was kept" in message and str(out) in message
    assert "ulimit -f" in proc.stderr  # what to do
    assert file_digests(out) == before  # the old report, byte for byte
    assert sorted(os.listdir(tmp_path)) == beside  # nothing beside it
    assert list(scratch.iterdir()) == []  # nor in TMPDIR


@pytest.mark.e2e
@pytest.mark.parametrize("limit", [1_000, 60_000], ids=["hand-over", "notebook"])
def test_run_force_under_a_file_size_limit_keeps_the_old_report(
    scores, tmp_path, limit, file_digests
):
    # before: OSError [Errno 27] tracebacks from prepared.hand_over (the analysis handed
    # to the kernel) and pipeline.execute_template (papermill writing the notebook)
    out = tmp_path / "rep"
    argv = ["run", str(scores), "--out", str(out), "--format", "html", "--n-resamples", "99"]
    assert main([*argv, "--seed", "3", "--quiet"]) == 0
    before, beside = file_digests(out), sorted(os.listdir(tmp_path))
    scratch = tmp_path.parent / f"{tmp_path.name}-tmp"
    scratch.mkdir()
    proc = _limited(limit, [*argv, "--force", "--seed", "4"], scratch)
    assert proc.returncode == 2, proc.stderr
    message = _one_message(proc.stderr)
    assert "file too large for the file-size limit" in message and "nothing was kept" in message
    assert file_digests(out) == before
    assert sorted(os.listdir(tmp_path)) == beside  # no .failed.ipynb, no build folder
    assert list(scratch.iterdir()) == []


def test_a_file_system_fault_in_the_notebook_kernel_is_the_users_error():
    # papermill hands a cell's exception over as its class name and message
    from reportgen.report.pipeline import _file_system_fault

    fault = _file_system_fault("OSError", "[Errno 27] File too large")
    assert fault is not None and fault.errno == errno.EFBIG
    fault = _file_system_fault("PermissionError", "[Errno 13] Permission denied: '/x/y.svg'")
    assert fault is not None and fault.errno == errno.EACCES and fault.filename == "/x/y.svg"
    assert _file_system_fault("ValueError", "[Errno 27] File too large") is None
    assert _file_system_fault("OSError", "[Errno 22] Invalid argument") is None  # not the user's
    assert _file_system_fault("KeyError", "'x'") is None


def test_output_on_a_read_only_file_system(scores, read_only_disk, capsys):
    status = main(["analyze", str(scores), "--out", str(read_only_disk / "r")])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert "read-only" in err.lower()
    assert os.listdir(read_only_disk) == []


def test_an_output_name_that_is_not_utf8(scores, tmp_path, capsys):
    out = tmp_path / os.fsdecode(b"report-\xff")
    assert main(["analyze", str(scores), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "report-\\xff: the output folder's name is not valid UTF-8" in err
    assert "Traceback" not in err and not os.path.lexists(out)


def test_a_nul_byte_in_a_manifest_output_name(scores, tmp_path, capsys):
    # before: ValueError (embedded null byte) from verify
    out = tmp_path / "r"
    assert main(["analyze", str(scores), "--out", str(out), "--n-resamples", "99"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["outputs"]["tables/a\u0000b.csv"] = {"path": "x", "sha256": "0" * 64}
    (out / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1  # a finding, not a crash
    text = capsys.readouterr()
    assert "outside output: tables/a\\x00b.csv (not a plain path" in text.out + text.err
    assert "Traceback" not in text.err


def test_a_nul_byte_in_a_data_path_of_the_config(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text('[input]\ndata = ["a\\u0000b.csv"]\n')
    assert main(["inspect", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "a\\x00b.csv: the path holds a NUL byte" in err and "Traceback" not in err


def test_any_file_system_oserror_is_exit_2_with_its_path(monkeypatch, capsys):
    # the command line's last boundary: an OSError of the file system from anywhere
    import reportgen.cli as cli

    def full(args):
        raise OSError(errno.ENOSPC, "No space left on device", "/data/out/report.pdf")

    monkeypatch.setattr(cli, "_cmd_inspect", full)
    assert cli.main(["inspect", "x.csv"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reportgen: error: /data/out/report.pdf: no space left on the device")
    assert "hint: free some space" in err

    def bug(args):
        raise OSError(errno.EINVAL, "Invalid argument")  # not the user's: kept as it is

    monkeypatch.setattr(cli, "_cmd_inspect", bug)
    with pytest.raises(OSError, match="Invalid argument"):
        cli.main(["inspect", "x.csv"])


def test_verify_and_history_of_a_report_they_may_not_read(scores, tmp_path, unprivileged):
    # before: "the report folder has no manifest.json" for a folder that may not be
    # read, and "changed output: results.json (replaced while it was read)" for an
    # unreadable results.json
    out = tmp_path / "r"
    assert main(["analyze", str(scores), "--out", str(out), "--n-resamples", "99"]) == 0
    command = [sys.executable, "-m", "reportgen"]
    for locked, shown in ((out, str(out)), (out / "results.json", str(out / "results.json"))):
        locked.chmod(0)
        try:
            procs = [
                subprocess.run(
                    unprivileged([*command, *argv]), capture_output=True, text=True, timeout=300
                )
                for argv in (
                    ["verify", str(out)],
                    ["history", str(out), str(out), "--out", str(tmp_path / "h")],
                )
            ]
        finally:
            locked.chmod(0o755 if locked.is_dir() else 0o644)
        verify = procs[0]
        assert verify.returncode == 2, verify.stdout + verify.stderr
        assert verify.stderr.startswith(f"reportgen: error: {shown}: cannot be read: permission")
        assert "check the permissions" in verify.stderr and "Traceback" not in verify.stderr
        assert procs[1].returncode == 2 and "Traceback" not in procs[1].stderr
    assert not (tmp_path / "h").exists()

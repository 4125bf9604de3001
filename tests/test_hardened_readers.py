"""One hardened reader, and exit status 2 instead of a traceback (issue 32): deeply
nested or malformed manifests and results given to ``verify``, ``history`` and
``email``; an output name longer than file systems allow; running out of memory.

The references are the exit status and stderr of the real command line, and the file
system afterwards (nothing half-written).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.jsonsafe import MAX_DEPTH, load_json, load_toml


@pytest.fixture(scope="module")
def scores(tmp_path_factory, scores_csv) -> Path:
    return scores_csv(tmp_path_factory.mktemp("scores"), seed=7, systems=("a", "b", "c"))


@pytest.fixture()
def report(scores, tmp_path) -> Path:
    out = tmp_path / "r"
    assert main(["analyze", str(scores), "--out", str(out), "--n-resamples", "99"]) == 0
    return out


def _fails(argv: list[str], capsys, pattern: str) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("reportgen: error: "), err
    assert pattern in err, err
    return err


def test_load_json_limits_against_the_json_module():
    # json.loads is the reference for what parses; the limits come on top
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert load_json(nested, source="x") == json.loads(nested)
    for depth in (MAX_DEPTH + 1, 100_000):
        with pytest.raises(InputError, match="nests arrays or objects more than 64"):
            load_json("[" * depth + "]" * depth, source="x")
    with pytest.raises(InputError, match=r"more than the 10 reportgen reads"):
        load_json(b"[1, 2, 3, 4]", source="x", max_bytes=10)
    with pytest.raises(InputError, match=r"x\.json, line 2, column 1: x\.json is not valid JSON"):
        load_json(b"[1,\n}", source="x.json")
    with pytest.raises(InputError, match="not UTF-8 text"):
        load_json(b'["\xff"]', source="x.json")
    with pytest.raises(InputError, match="nests arrays or tables|nests arrays or objects"):
        load_toml("a = " + "[" * 5000 + "]" * 5000, source="c.toml")


@pytest.mark.parametrize("depth", [100, 100_000])
def test_verify_of_a_deeply_nested_manifest_exits_2(report, capsys, depth):
    (report / "manifest.json").write_text('{"inputs": ' + "[" * depth + "]" * depth + "}")
    _fails(["verify", str(report)], capsys, "nests arrays or objects more than 64 levels")


@pytest.mark.parametrize(
    "manifest",
    [
        {"inputs": ["a.csv"], "outputs": {}},
        {"inputs": [{"files": "a.csv"}], "outputs": {}},
        {"inputs": [{"files": [7]}], "outputs": {}},
        {"inputs": [], "outputs": {"results.json": "abc"}},
        {"inputs": [], "outputs": {}, "format_version": "two"},
        {"inputs": [], "outputs": {}, "results": {"file": ["x"]}, "manifest_sha256": "0"},
    ],
    ids=["inputs-strings", "files-string", "files-numbers", "output-string", "version", "main"],
)
def test_verify_of_a_malformed_manifest_exits_2_or_reports(report, capsys, manifest):
    (report / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    status = main(["verify", str(report)])
    err = capsys.readouterr().err
    assert status in (1, 2) and "Traceback" not in err, err
    if status == 2:
        assert "manifest.json" in err


def test_email_of_a_deeply_nested_results_json_exits_2(report, tmp_path, capsys):
    (report / "results.json").write_text('{"seed": ' + "[" * 50_000 + "]" * 50_000 + "}")
    _fails(
        [
            "email",
            str(report),
            "--to",
            "a@example.org",
            "--from",
            "b@example.org",
            "--eml",
            str(tmp_path / "m.eml"),
            "--no-attach",
        ],
        capsys,
        "results.json nests arrays or objects more than 64 levels deep",
    )


def test_history_of_a_report_with_a_malformed_manifest_exits_2(report, tmp_path, capsys):
    second = tmp_path / "r2"
    shutil.copytree(report, second)
    (second / "manifest.json").write_text('{"outputs": ' + "{" * 3000)
    status = main(["history", str(report), str(second), "--out", str(tmp_path / "h")])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err and "manifest.json" in err, err
    assert not (tmp_path / "h").exists()


def test_an_output_name_longer_than_file_systems_allow_exits_2(scores, tmp_path, capsys):
    _fails(
        ["analyze", str(scores), "--out", str(tmp_path / ("x" * 300))],
        capsys,
        "a folder name of the output path is 300 bytes long, more than file systems allow",
    )
    assert os.listdir(tmp_path) == []


def test_too_many_resamples_is_a_clear_error(scores, tmp_path, capsys):
    # resampling runs in chunks within --max-memory, so 10**12 resamples would not run
    # out of memory but run for days: refused before any work
    from reportgen.cli import main

    out = tmp_path / "r"
    assert main(["analyze", str(scores), "--out", str(out), "--n-resamples", str(10**12)]) == 2
    assert "is more than reportgen draws (at most 10,000,000)" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


def test_running_out_of_memory_exits_2_with_the_bounds_to_change(tmp_path):
    # a memory bound set above what the process may use (1.5 GiB of address space):
    # the permutation test's sign matrix does not fit, a MemoryError, exit 2
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))

    example = Path(__file__).resolve().parents[1] / "examples" / "data"
    out = tmp_path / "r"
    proc = subprocess.run(
        [sys.executable, "-m", "reportgen", "analyze", str(example), "--out", str(out)]
        + ["--n-resamples", "9999999", "--max-memory", "1TB", "--method", "permutation"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=cap,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "reportgen: error: out of memory" in proc.stderr
    assert "--n-resamples" in proc.stderr and "--max-memory" in proc.stderr
    assert os.listdir(tmp_path) == []


def test_documents_with_a_file_name_that_is_not_utf8_are_written_and_read_back(tmp_path):
    # Python gives such a name as lone surrogates (PEP 383); json.loads is the reference
    from reportgen.report.folder.manifest import canonical_json
    from reportgen.report.folder.output import write_json_atomic

    document = {"inputs": [{"path": "scores\udcff.csv"}], "note": "é"}
    path = write_json_atomic(tmp_path / "manifest.json", document)
    assert json.loads(path.read_text(encoding="utf-8")) == document
    again = json.loads(path.read_text(encoding="utf-8"))
    assert canonical_json(again) == canonical_json(document)


def test_a_decompression_bomb_under_an_address_space_limit_exits_2():
    import resource

    limit = 600 * 2**20

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    bomb = Path(__file__).parent / "bad_inputs" / "bomb.csv.gz"
    proc = subprocess.run(
        [sys.executable, "-m", "reportgen", "inspect", str(bomb), "--max-input-bytes", "100GB"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=cap,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "reportgen: error: " in proc.stderr


def test_deeply_nested_harness_files_are_input_errors_not_recursion(tmp_path, capsys):
    # format detection and Inspect's zip entries meet JSON nested past Python's parser
    # stack: a clear error naming the file (exit 2), never a RecursionError traceback
    import zipfile

    from reportgen.cli import main

    deep = "[" * 100_000 + "]" * 100_000
    plain = tmp_path / "deep.json"
    plain.write_text('{"a": ' + deep + "}", encoding="utf-8")
    assert main(["inspect", str(plain)]) == 2
    assert "cannot tell the format" in capsys.readouterr().err
    log = tmp_path / "deep.eval"
    with zipfile.ZipFile(log, "w") as archive:
        archive.writestr("header.json", deep)
    assert main(["inspect", str(log), "--format", "inspect"]) == 2
    err = capsys.readouterr().err
    assert "RecursionError" not in err and "deep.eval" in err

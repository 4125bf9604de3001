"""Reading inputs (issue 17): the bytes parsed are hashed as they are read, inputs are
capped (compressed ones as a stream), special files and deep JSON give clear errors.

The primitives live in ``reportgen/data/adapters/_base.py``; the bad-input corpus
(``tests/bad_inputs``) pins their messages through the CLI.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.cli import main
from reportgen.data import LoadOptions, load, parse_input_size, read_inputs
from reportgen.data.adapters._base import (
    DEFAULT_MAX_INPUT_BYTES,
    MAX_JSON_DEPTH,
    check_regular_file,
    parse_json,
    read_bytes,
    read_input,
    read_json,
    read_log,
    read_zip_entry,
)
from reportgen.errors import ConfigError, InputError

HERE = Path(__file__).resolve().parent
BAD = HERE.parent / "bad_inputs"
REAL = HERE.parent / "fixtures" / "real"
IBM = HERE.parents[2] / "shared" / "data" / "ibm-rag"
TABLE = (
    "system,dataset,metric,item,score\n"
    "A,d,m,1,0.5\nB,d,m,1,0.6\nA,d,m,2,0.1\nB,d,m,2,0.2\nA,d,m,3,0.3\nB,d,m,3,0.9\n"
)


def _sha256(path: Path) -> str:
    # reference: hashlib over the file's bytes on disk
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------------ provenance


def test_read_bytes_digest_against_hashlib(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text(TABLE)
    table = load(path)
    (source,) = table.sources
    (entry,) = source["files"]
    assert entry == {
        "path": str(path),
        "resolved": str(path.resolve()),
        "sha256": _sha256(path),
        "bytes": path.stat().st_size,
    }


def test_digest_is_of_the_bytes_read_not_of_the_file_at_the_end(tmp_path):
    # a file edited after it was read (e.g. while the analysis runs) keeps the hash of
    # what the results were computed from; the manifest takes it from here
    path = tmp_path / "scores.csv"
    path.write_text(TABLE)
    read_hash = _sha256(path)
    table = load(path)
    path.write_text(TABLE.replace("0.9", "0.1"))
    assert _sha256(path) != read_hash
    assert table.sources[0]["files"][0]["sha256"] == read_hash
    results = analyze(table, AnalysisOptions(seed=1, n_resamples=99)).to_results()
    assert results["data"]["inputs"][0]["files"][0]["sha256"] == read_hash


def test_file_changed_between_two_reads_of_one_input_is_an_error(tmp_path):
    path = tmp_path / "results.json"
    path.write_text('{"a": 1}')
    with read_log() as log:
        read_bytes(path)
        path.write_text('{"a": 2}')
        with pytest.raises(InputError, match="the file changed while reportgen was reading it"):
            read_bytes(path)
    assert [f.sha256 for f in log.files] == [hashlib.sha256(b'{"a": 1}').hexdigest()]


def test_same_file_read_twice_is_recorded_once(tmp_path):
    path = tmp_path / "results.json"
    path.write_text('{"a": 1}')
    with read_log() as log:
        read_bytes(path)
        read_json(path)
    assert len(log.files) == 1


@pytest.mark.parametrize("folder", ["lm_eval/v0.4.5", "inspect/epochs-0.3.285"])
def test_folder_input_lists_every_file_parsed_against_hashlib(folder):
    # real lm-eval output (results + samples files per model) and Inspect 0.3.285 logs
    # (ZIP archives with Zstandard entries)
    root = REAL / folder
    results = read_inputs([root])
    files = [f for r in results for f in r.files]
    assert files, "no file recorded"
    for digest in files:
        assert digest.sha256 == _sha256(Path(digest.path))
        assert digest.bytes == Path(digest.path).stat().st_size
    data_files = {
        p.resolve()
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".json", ".jsonl", ".eval")
    }
    assert {Path(f.resolved) for f in files} == data_files


def test_every_input_of_a_folder_of_tables_has_its_digest():
    table = load([IBM])
    assert len(table.sources) == 3
    for source in table.sources:
        (entry,) = source["files"]
        assert entry["path"] == source["path"]
        assert entry["sha256"] == _sha256(Path(source["path"]))


# ------------------------------------------------------------------------ size caps


def test_plain_file_above_the_cap_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("system,dataset,metric,item,score\n" + "A,d,m,1,0.5\n" * 130_000)
    size = path.stat().st_size
    assert size > 1.4 * 2**20
    with pytest.raises(
        InputError,
        match=r"big\.csv: the input is 1\.\d MiB, more than 1 "
        r"MiB, the limit on one input",
    ):
        load(path, options=LoadOptions(max_input_bytes=2**20))


def _gzip_bomb(path: Path, expanded: int) -> None:
    # zeros after a header: ~1,000x compression
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(b"system,dataset,metric,item,score\n")
        block = b"\0" * 2**20
        for _ in range(expanded // len(block)):
            fh.write(block)


def test_gzip_bomb_stops_at_the_cap_against_tracemalloc(tmp_path):
    # 256 MiB expanded from ~250 KB: the stream stops after the cap (4 MiB), so the
    # memory allocated stays near the cap, not near the expanded size (tracemalloc)
    path = tmp_path / "bomb.csv.gz"
    _gzip_bomb(path, 256 * 2**20)
    assert path.stat().st_size < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="expands to more than 4 MiB"):
            read_input(path, limit=4 * 2**20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_gzip_bomb_through_the_config_file(tmp_path, capsys):
    _gzip_bomb(tmp_path / "bomb.csv.gz", 4 * 2**20)
    config = tmp_path / "reportgen.toml"
    config.write_text('[input]\nmax_input_bytes = "1MiB"\n')
    status = main(["inspect", str(tmp_path / "bomb.csv.gz"), "--config", str(config)])
    assert status == 2
    assert "expands to more than 1 MiB when decompressed" in capsys.readouterr().err


def test_default_cap_is_8_gib():
    assert DEFAULT_MAX_INPUT_BYTES == 8 * 2**30 == LoadOptions().max_input_bytes


def test_zip_entries_share_one_budget(tmp_path):
    # each entry alone fits the cap; together they do not
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ("a.json", "b.json"):
            archive.writestr(name, b" " * (600 * 2**10))
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        first, second = archive.infolist()
        assert len(read_zip_entry(archive, first, limit=2**20)) == 600 * 2**10
        with pytest.raises(InputError, match="expands to more than 1 MiB"):
            read_zip_entry(archive, second, limit=2**20)


def test_parquet_that_expands_beyond_the_cap_is_refused_from_its_footer(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    n = 200_000  # dictionary + run-length encoded: a few KB on disk
    pq.write_table(
        pa.table({"system": ["A"] * n, "item": ["1"] * n, "score": [1.0] * n}),
        tmp_path / "big.parquet",
    )
    assert (tmp_path / "big.parquet").stat().st_size < 2**20 / 8
    with pytest.raises(
        InputError,
        match=r"big\.parquet: the input expands to more than "
        r"1 MiB",
    ):
        load(tmp_path / "big.parquet", options=LoadOptions(max_input_bytes=2**20))


@pytest.mark.parametrize(
    "value, expected", [("1MiB", 2**20), ("16GiB", 16 * 2**30), (2**21, 2**21), ("2 GB", 2 * 10**9)]
)
def test_parse_input_size_against_the_units(value, expected):
    assert parse_input_size(value) == expected


@pytest.mark.parametrize(
    "value, message",
    [
        ("abc", r"--max-input-bytes = 'abc' is not a memory size"),
        ("1KiB", r"below the minimum of 1 MiB"),
        (True, r"is not a memory size"),
    ],
)
def test_parse_input_size_input_validation(value, message):
    with pytest.raises(ConfigError, match=message):
        parse_input_size(value)


def test_config_max_input_bytes_is_validated(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text("[input]\nmax_input_bytes = -3\n")
    assert main(["inspect", str(BAD / "continuous.csv"), "--config", str(config)]) == 2
    assert "input.max_input_bytes = -3" in capsys.readouterr().err


# ------------------------------------------------------------------------ compressed inputs


def test_zstd_table_reads_as_the_plain_table(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    (tmp_path / "scores.csv.zst").write_bytes(zstandard.ZstdCompressor().compress(TABLE.encode()))
    (tmp_path / "scores.csv").write_text(TABLE)
    columns = ["system", "dataset", "metric", "item", "score"]
    got = load(tmp_path / "scores.csv.zst").frame[columns]
    expected = load(tmp_path / "scores.csv").frame[columns]  # reference: the plain file
    assert got.to_dict("records") == expected.to_dict("records")


def test_gzipped_json_lines_are_detected_and_read(tmp_path):
    lines = "".join(
        json.dumps({"system": s, "item": str(i), "score": (i + len(s)) % 2}) + "\n"
        for s in ("A", "BB")
        for i in range(4)
    )
    (tmp_path / "s.jsonl").write_text(lines)
    (tmp_path / "s.jsonl.gz").write_bytes(gzip.compress(lines.encode()))
    got = load(tmp_path / "s.jsonl.gz")
    expected = load(tmp_path / "s.jsonl")  # reference: the plain file
    assert got.sources[0]["format"] == "long"
    assert got.datasets == expected.datasets == ("s",)
    assert got.frame["score"].tolist() == expected.frame["score"].tolist()


# ------------------------------------------------------------------------ deep JSON


def test_deep_json_document_is_a_clear_error(tmp_path):
    # an Inspect JSON log whose samples nest 100,000 levels deep
    depth = 100_000
    path = tmp_path / "log.json"
    path.write_text(
        '{"version": 2, "status": "success", "eval": {"task": "t", "model": '
        '"m"},\n "samples": ' + "[" * depth + "]" * depth + "}"
    )
    with pytest.raises(InputError) as exc:
        load(path)
    assert exc.value.message == (
        f"the JSON nests arrays or objects more than {MAX_JSON_DEPTH:,} levels deep"
    )
    # level MAX_JSON_DEPTH + 1 counting the log's outer object: the 500th bracket of
    # line 2, whose first bracket is column 13 (after ' "samples": ')
    assert MAX_JSON_DEPTH == 500
    assert (exc.value.location.line, exc.value.location.column) == (2, 13 + 499)


def test_parse_json_just_below_the_limit_parses():
    depth = MAX_JSON_DEPTH
    assert parse_json("[" * depth + "]" * depth, "x.json") == json.loads(
        "[" * depth + "]" * depth
    )  # reference: the standard library


# ------------------------------------------------------------------------ special files


def _run_cli(args: list[str], *, shell: str | None = None, timeout: float = 60):
    command = [sys.executable, "-m", "reportgen", *args]
    if shell is not None:  # a bash command line, for process substitution
        command = ["bash", "-c", shell.replace("REPORTGEN", f"'{sys.executable}' -m reportgen")]
    start = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return proc, time.monotonic() - start


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("extra", [[], ["--format", "long"], ["--format", "eval-arena"]])
def test_fifo_without_a_writer_is_a_clear_error_not_a_hang(tmp_path, extra):
    fifo = tmp_path / "scores.csv"
    os.mkfifo(fifo)
    proc, seconds = _run_cli(["inspect", str(fifo), *extra])
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(
        f"reportgen: error: {fifo}: this is a pipe (a FIFO, or a "
        "process substitution such as <(...)), not a regular file"
    )
    assert "hint: reportgen reads an input more than once" in proc.stderr
    assert "Traceback" not in proc.stderr and seconds < 30


@pytest.mark.skipif(
    shutil.which("bash") is None or sys.platform == "win32",
    reason="process substitution needs bash",
)
def test_process_substitution_is_a_clear_error(tmp_path):
    (tmp_path / "s.csv").write_text(TABLE)
    proc, _ = _run_cli([], shell=f"REPORTGEN inspect <(cat '{tmp_path / 's.csv'}')")
    assert proc.returncode == 2, proc.stderr
    assert "this is a pipe (a FIFO, or a process substitution" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_read_bytes_refuses_a_fifo_that_appears_after_the_check(tmp_path):
    # the type is checked on the open descriptor (opened without blocking), so a FIFO
    # swapped in after check_regular_file is refused too
    path = tmp_path / "x.csv"
    path.write_text(TABLE)
    check_regular_file(path)
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(InputError, match="this is a pipe"):
        read_bytes(path)


def test_dev_zero_is_refused():
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    with pytest.raises(InputError, match="/dev/zero: this is a character device"):
        read_bytes("/dev/zero")
    with pytest.raises(InputError, match="this is a character device"):
        load("/dev/zero", options=LoadOptions(format="wide"))

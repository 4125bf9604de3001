"""The report folder: manifest hashes, schema validation, atomic writing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.data import load
from reportgen.errors import InputError, ReportgenError
from reportgen.report.archive import (
    build_manifest,
    file_sha256,
    report_folder,
    validate_results,
)

ROOT = Path(__file__).resolve().parents[2]


def test_manifest_hashes_match_hashlib(tmp_path):
    table = load(ROOT / "examples" / "data", config=ROOT / "examples" / "reportgen.toml")
    results = tmp_path / "results.json"
    results.write_text("{}")
    manifest = build_manifest(table.sources, parameters={"seed": 1}, seed=1,
                              outputs={"results.json": results})
    files = {Path(f["path"]).name: f for i in manifest["inputs"] for f in i["files"]}
    for name in ("codecompletion.csv", "unittests_runs.csv"):
        path = ROOT / "examples" / "data" / name
        # reference: hashlib over the whole file
        assert files[name]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert files[name]["bytes"] == path.stat().st_size
    assert [i["rows"] for i in manifest["inputs"]] == [51120, 12000]
    assert manifest["outputs"]["results.json"]["sha256"] == hashlib.sha256(b"{}").hexdigest()
    assert manifest["environment"]["packages"]["numpy"]
    json.dumps(manifest, allow_nan=False)


def test_results_validate_against_the_schema(shared_data):
    for table in (load(ROOT / "examples" / "data", config=ROOT / "examples" / "reportgen.toml"),
                  load(shared_data / "eval-arena" / "terminal-bench-2.0.jsonl")):
        results = analyze(table, AnalysisOptions(seed=0, n_resamples=200)).to_results()
        validate_results(json.loads(json.dumps(results)))
    broken = dict(results)
    broken["comparisons"] = [dict(results["comparisons"][0], p_value=1.5)]
    with pytest.raises(ReportgenError, match=r"schema at comparisons/0/p_value"):
        validate_results(broken)
    with pytest.raises(ReportgenError, match=r"'seed' is a required property"):
        validate_results({k: v for k, v in results.items() if k != "seed"})


def test_report_folder_is_atomic(tmp_path):
    out = tmp_path / "report"
    with report_folder(out) as work:
        (work / "a.txt").write_text("one")
        assert not out.exists()  # nothing visible until the block succeeds
    assert (out / "a.txt").read_text() == "one"
    with pytest.raises(InputError, match="already exists.*\n.*--force"):
        with report_folder(out):
            pass
    with pytest.raises(RuntimeError):
        with report_folder(out, force=True) as work:
            (work / "b.txt").write_text("two")
            raise RuntimeError("a cell failed")
    assert (out / "a.txt").read_text() == "one" and not (out / "b.txt").exists()
    with report_folder(out, force=True) as work:
        (work / "b.txt").write_text("two")
    assert sorted(p.name for p in out.iterdir()) == ["b.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no leftovers


def test_file_sha256_chunks(tmp_path):
    path = tmp_path / "big.bin"
    data = bytes(range(256)) * 10000
    path.write_bytes(data)
    assert file_sha256(path, chunk=1000) == hashlib.sha256(data).hexdigest()

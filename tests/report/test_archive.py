"""The report folder: manifest hashes, schema validation, atomic writing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.data import load
from reportgen.errors import InputError, ReportgenError
from reportgen.report.folder.archive import (
    build_manifest,
    file_sha256,
    is_report_folder,
    report_folder,
    resolve_out,
    validate_results,
)

ROOT = Path(__file__).resolve().parents[2]


def test_manifest_hashes_match_hashlib(tmp_path):
    table = load(ROOT / "examples" / "data", config=ROOT / "examples" / "reportgen.toml")
    results = tmp_path / "results.json"
    results.write_text("{}")
    manifest = build_manifest(
        table.sources, parameters={"seed": 1}, seed=1, outputs={"results.json": results}
    )
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
    for table in (
        load(ROOT / "examples" / "data", config=ROOT / "examples" / "reportgen.toml"),
        load(shared_data / "eval-arena" / "terminal-bench-2.0.jsonl"),
    ):
        results = analyze(table, AnalysisOptions(seed=0, n_resamples=200)).to_results()
        validate_results(json.loads(json.dumps(results)))
    broken = dict(results)
    broken["comparisons"] = [dict(results["comparisons"][0], p_value=1.5)]
    with pytest.raises(ReportgenError, match=r"schema at comparisons/0/p_value"):
        validate_results(broken)
    with pytest.raises(ReportgenError, match=r"'seed' is a required property"):
        validate_results({k: v for k, v in results.items() if k != "seed"})


def test_fast_results_check_agrees_with_jsonschema():
    # reference: jsonschema's Draft 2020-12 validator; the fast path (fastjsonschema,
    # draft 7) is used only because every keyword of the schema means the same in both
    import jsonschema

    from reportgen.report.folder.manifest import (
        FAST_SCHEMA_KEYWORDS,
        _fast_results_validator,
        results_schema,
    )

    def keywords(node, parent=None):
        if isinstance(node, dict):
            for key, value in node.items():
                if parent != "properties":
                    yield key
                yield from keywords(value, key)
        elif isinstance(node, list):
            for value in node:
                yield from keywords(value, parent)

    assert set(keywords(results_schema())) <= FAST_SCHEMA_KEYWORDS
    fast = _fast_results_validator()
    reference = jsonschema.Draft202012Validator(results_schema())
    table = load(ROOT / "examples" / "data", config=ROOT / "examples" / "reportgen.toml")
    good = json.loads(
        json.dumps(analyze(table, AnalysisOptions(seed=0, n_resamples=200)).to_results())
    )
    row = good["comparisons"][0]
    documents = [
        good,
        {**good, "seed": "one"},
        {k: v for k, v in good.items() if k != "seed"},
        {**good, "comparisons": [dict(row, p_value=1.5)]},
        {**good, "comparisons": [dict(row, p_value=-0.1)]},
        {**good, "comparisons": [{k: v for k, v in row.items() if k != "system_a"}]},
        {**good, "systems": "all"},
    ]
    for document in documents:
        try:
            fast(document)
            fast_ok = True
        except Exception:  # noqa: BLE001
            fast_ok = False
        assert fast_ok == reference.is_valid(document)


def test_report_folder_is_atomic(tmp_path, write_report):
    out = tmp_path / "report"
    with report_folder(out) as work:
        write_report(work, {"a.txt": "one"})
        assert not out.exists()  # nothing visible until the block succeeds
    assert (out / "a.txt").read_text() == "one"
    with pytest.raises(InputError, match="already exists.*\n.*--force"):
        with report_folder(out):
            pass
    with pytest.raises(RuntimeError), report_folder(out, force=True) as work:
        (work / "b.txt").write_text("two")
        raise RuntimeError("a cell failed")
    assert (out / "a.txt").read_text() == "one" and not (out / "b.txt").exists()
    with report_folder(out, force=True) as work:
        write_report(work, {"tables/c.csv": "two"})
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "tables"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no leftovers


def test_report_folder_never_replaces_a_folder_that_is_not_a_report(tmp_path):
    """A checkpoint folder given as --out by mistake is left alone, even with force."""
    checkpoint = tmp_path / "ckpt"
    checkpoint.mkdir()
    (checkpoint / "model.safetensors").write_bytes(b"weights")
    for force in (False, True):
        with pytest.raises(
            InputError,
            match="model.safetensors: not written by reportgen "
            "\\(the folder has no manifest.json\\)|"
            "already exists",
        ):
            with report_folder(checkpoint, force=force):
                pass
    assert (checkpoint / "model.safetensors").read_bytes() == b"weights"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt"]
    # an empty folder is fine to fill
    empty = tmp_path / "empty"
    empty.mkdir()
    with report_folder(empty) as work:
        (work / "results.json").write_text("{}")
    assert (empty / "results.json").is_file()


def test_resolve_out_policies(tmp_path, write_report):
    import datetime as dt

    now = dt.datetime(2026, 11, 22, 9, 30, 5, tzinfo=dt.timezone.utc)
    out = tmp_path / "eval-report"
    assert resolve_out(out, if_exists="error") == out  # does not exist yet
    out.mkdir()
    write_report(out, {"results.json": "{}"})
    assert is_report_folder(out) and not is_report_folder(tmp_path)
    with pytest.raises(InputError, match=r"already exists \(a report folder\)"):
        resolve_out(out)
    assert resolve_out(out, if_exists="replace") == out
    first = resolve_out(out, if_exists="timestamp", now=now)
    assert first == tmp_path / "eval-report-20261122-093005"
    first.mkdir()
    assert (
        resolve_out(out, if_exists="timestamp", now=now)
        == tmp_path / "eval-report-20261122-093005-2"
    )
    with pytest.raises(InputError, match="unknown --if-exists 'sometimes'"):
        resolve_out(out, if_exists="sometimes")
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="exists and is not a folder"):
        resolve_out(tmp_path / "file", if_exists="replace")


def test_file_sha256_chunks(tmp_path):
    path = tmp_path / "big.bin"
    data = bytes(range(256)) * 10000
    path.write_bytes(data)
    assert file_sha256(path, chunk=1000) == hashlib.sha256(data).hexdigest()

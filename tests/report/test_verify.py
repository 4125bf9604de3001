"""`reportgen verify`: a changed input and a changed report file are detected."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.report.folder.manifest import manifest_digest
from reportgen.report.folder.verify import verify_report

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report(rag_report):
    # the RAG report of tests/report/conftest.py, shared with test_run.py; the tests that
    # change it work on a copy (_copy)
    out, data, _ = rag_report
    return out, data


def _copy(report, tmp_path):
    out, data = report
    new_out, new_data = tmp_path / "report", tmp_path / "data"
    shutil.copytree(out, new_out)
    shutil.copytree(data, new_data)
    # point the copied manifest at the copied inputs
    # point the copied manifest at the copied inputs, and seal it again as reportgen does
    text = (new_out / "manifest.json").read_text(encoding="utf-8")
    manifest = json.loads(text.replace(str(data), str(new_data)))
    manifest["manifest_sha256"] = manifest_digest(manifest)
    (new_out / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return new_out, new_data


def test_verify_unchanged_report_is_ok(report, capsys):
    out, _ = report
    result = verify_report(out)
    assert result.ok and result.n_inputs == 3 and result.n_outputs >= 5
    assert main(["verify", str(out)]) == 0
    text = capsys.readouterr().out
    assert "ok (3 inputs" in text
    # and what the unchanged results.json holds, counted by hand from the file
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    rows = doc["comparisons"]
    units = {(r["dataset"], r["metric"]) for r in rows}
    significant = sum(bool(r["significant"]) for r in rows)
    assert (
        f"{len(rows):,} comparisons in {len(units)} dataset × metrics, {significant:,} "
        f"significant ({doc['ledger']['family']['description']})"
    ) in text


def test_verify_detects_changed_input(report, tmp_path, capsys):
    out, data = _copy(report, tmp_path)
    with (data / "recall.csv").open("a", encoding="utf-8") as fh:
        fh.write("\n")
    result = verify_report(out)
    assert [(f.kind, f.status, Path(f.path).name) for f in result.findings] == [
        ("input", "changed", "recall.csv")
    ]
    assert main(["verify", str(out)]) == 1
    assert "changed input" in capsys.readouterr().out


def test_verify_detects_changed_missing_and_added_report_files(report, tmp_path):
    out, data = _copy(report, tmp_path)
    html = out / "report.html"
    text = html.read_text(encoding="utf-8")
    html.write_text(text.replace("Key findings", "Key fundings", 1), encoding="utf-8")
    (out / "tables" / "power.csv").unlink()
    (out / "notes.txt").write_text("added by hand", encoding="utf-8")
    (data / "sbert.csv").unlink()
    found = {(f.kind, f.status, Path(f.path).name) for f in verify_report(out).findings}
    assert found == {
        ("output", "changed", "report.html"),
        ("output", "missing", "power.csv"),
        ("output", "unlisted", "notes.txt"),
        ("input", "missing", "sbert.csv"),
    }


def test_verify_input_validation(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 2
    assert "has no manifest.json" in capsys.readouterr().err
    (tmp_path / "manifest.json").write_text("{not json", encoding="utf-8")
    assert main(["verify", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "manifest.json is not valid JSON" in err and "Traceback" not in err


def test_verify_detects_an_edited_manifest(report, tmp_path, capsys):
    # the seed changed by hand: the manifest's digest of its own canonical JSON differs
    out, _ = _copy(report, tmp_path)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    manifest["seed"] = 7
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    found = [(f.kind, f.status, f.path) for f in verify_report(out).findings]
    assert found == [("manifest", "changed", "manifest.json")]
    assert main(["verify", str(out)]) == 1
    # re-indenting alone changes no content: still sealed
    manifest["seed"] = json.loads((report[0] / "manifest.json").read_text())["seed"]
    (out / "manifest.json").write_text(json.dumps(manifest, indent=7), encoding="utf-8")
    assert verify_report(out).ok


def test_verify_detects_results_swapped_with_its_output_entry(report, tmp_path):
    out, _ = _copy(report, tmp_path)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    results = out / "results.json"
    results.write_text(results.read_text(encoding="utf-8").replace("1", "2", 1), encoding="utf-8")
    from reportgen.report.folder.archive import file_sha256

    manifest["outputs"]["results.json"]["sha256"] = file_sha256(results)
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    found = {(f.kind, f.status, f.path) for f in verify_report(out).findings}
    assert ("manifest", "changed", "manifest.json") in found
    assert ("manifest", "changed", "results.json") in found


def test_verify_checks_file_types(report, tmp_path):
    out, _ = _copy(report, tmp_path)
    html = out / "report.html"
    keep = tmp_path / "report-copy.html"
    shutil.copy(html, keep)
    html.unlink()
    html.symlink_to(keep)  # same bytes, but a link now
    os.mkfifo(out / "pipe")
    (out / "linked-folder").symlink_to(tmp_path, target_is_directory=True)
    found = {(f.kind, f.status, f.path, f.detail) for f in verify_report(out).findings}
    assert (
        "output",
        "changed",
        "report.html",
        "a symbolic link now, not the file written",
    ) in found
    assert ("output", "unlisted", "pipe", "a FIFO, in the folder, not in the manifest") in found
    assert (
        "output",
        "unlisted",
        "linked-folder",
        "a symbolic link, in the folder, not in the manifest",
    ) in found
    assert len(found) == 3


def test_verify_flags_an_unsealed_manifest(report, tmp_path):
    out, _ = _copy(report, tmp_path)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    del manifest["manifest_sha256"]
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert [(f.kind, f.status) for f in verify_report(out).findings] == [("manifest", "unsealed")]

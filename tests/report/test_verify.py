"""`reportgen verify`: a changed input and a changed report file are detected."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.report.pipeline import RunSpec, run_report
from reportgen.report.verify import verify_report

ROOT = Path(__file__).resolve().parents[2]
RAG = ROOT.parent / "shared" / "data" / "ibm-rag"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("verify")
    data = base / "data"
    shutil.copytree(RAG, data)
    for f in data.iterdir():
        f.chmod(0o644)
    out = base / "report"
    run_report(RunSpec(data=(str(data),), out=str(out), formats=("html",),
                       analysis_options={"seed": 1, "n_resamples": 199}))
    return out, data


def _copy(report, tmp_path):
    out, data = report
    new_out, new_data = tmp_path / "report", tmp_path / "data"
    shutil.copytree(out, new_out)
    shutil.copytree(data, new_data)
    # point the copied manifest at the copied inputs
    manifest = (new_out / "manifest.json").read_text(encoding="utf-8")
    manifest = manifest.replace(str(data), str(new_data))
    (new_out / "manifest.json").write_text(manifest, encoding="utf-8")
    return new_out, new_data


def test_verify_unchanged_report_is_ok(report, capsys):
    out, _ = report
    result = verify_report(out)
    assert result.ok and result.n_inputs == 3 and result.n_outputs >= 5
    assert main(["verify", str(out)]) == 0
    assert "ok (3 inputs" in capsys.readouterr().out


def test_verify_detects_changed_input(report, tmp_path, capsys):
    out, data = _copy(report, tmp_path)
    with (data / "recall.csv").open("a", encoding="utf-8") as fh:
        fh.write("\n")
    result = verify_report(out)
    assert [(f.kind, f.status, Path(f.path).name) for f in result.findings] == [
        ("input", "changed", "recall.csv")]
    assert main(["verify", str(out)]) == 1
    assert "changed input" in capsys.readouterr().out


def test_verify_detects_changed_missing_and_added_report_files(report, tmp_path):
    out, data = _copy(report, tmp_path)
    html = out / "report.html"
    html.write_text(html.read_text(encoding="utf-8").replace("Summary", "Summery", 1),
                    encoding="utf-8")
    (out / "tables" / "power.csv").unlink()
    (out / "notes.txt").write_text("added by hand", encoding="utf-8")
    (data / "sbert.csv").unlink()
    found = {(f.kind, f.status, Path(f.path).name) for f in verify_report(out).findings}
    assert found == {("output", "changed", "report.html"),
                     ("output", "missing", "power.csv"),
                     ("output", "unlisted", "notes.txt"),
                     ("input", "missing", "sbert.csv")}


def test_verify_input_validation(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 2
    assert "has no manifest.json" in capsys.readouterr().err
    (tmp_path / "manifest.json").write_text("{not json", encoding="utf-8")
    assert main(["verify", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "manifest.json is not valid JSON" in err and "Traceback" not in err

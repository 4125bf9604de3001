"""Nothing private by default (issue 34, item 8): a report names its inputs relative to
the working directory, or by file name when they lie outside it; the full paths stay in
manifest.json for provenance."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from reportgen.plaintext import shown_path

pytestmark = pytest.mark.e2e


def test_shown_path_inside_and_outside_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = tmp_path / "work"
    (inside / "results").mkdir(parents=True)
    monkeypatch.chdir(inside)
    assert shown_path(inside / "results" / "a.csv") == os.path.join("results", "a.csv")
    assert shown_path("results/a.csv") == os.path.join("results", "a.csv")
    assert shown_path(".") == "."
    # outside: the name alone, never "../.." walking up to a private folder
    assert shown_path(tmp_path / "elsewhere" / "b.jsonl") == "b.jsonl"
    assert shown_path(tmp_path / "elsewhere") == "elsewhere"
    assert shown_path("/") == "/"


def test_a_report_of_data_outside_the_working_directory_shows_no_absolute_path(
    rag_report: tuple[Path, Path, object],
) -> None:
    out, data, _ = rag_report
    assert not data.resolve().is_relative_to(Path.cwd().resolve())  # the case under test
    private = str(data.parent)
    html = (out / "report.html").read_text(encoding="utf-8")
    pdf_text = subprocess.run(
        ["pdftotext", "-layout", str(out / "report.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for shown in (html, pdf_text):
        assert private not in shown
        assert "precision.csv" in shown  # the inputs are still named, by file name
    # provenance keeps the full path
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert private in json.dumps(manifest)

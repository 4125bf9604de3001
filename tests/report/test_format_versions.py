"""Format versions (issue 32): results.json, manifest.json and history.json carry a
``format_version``; every reader refuses a newer major version with a clear message
(exit 2, no traceback) and reads older files (those written before the field: version
1).

The reference is the documents as written on disk (``json``) and the exit statuses.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.jsonsafe import RESULTS_FORMAT_VERSION, check_format_version
from reportgen.report.folder.manifest import MANIFEST_FORMAT_VERSION, manifest_digest
from reportgen.report.mail import read_report_folder


def _rewrite(path: Path, edit) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    edit(document)
    if path.name == "manifest.json":
        document.pop("manifest_sha256", None)
        document["manifest_sha256"] = manifest_digest(document)
    path.write_text(json.dumps(document), encoding="utf-8")


@pytest.fixture()
def release(example_releases, tmp_path) -> Path:
    copy = tmp_path / "release"
    shutil.copytree(example_releases["v9.1"], copy)
    return copy


def test_results_and_manifest_carry_their_format_version(release):
    results = json.loads((release / "results.json").read_text())
    manifest = json.loads((release / "manifest.json").read_text())
    assert results["format_version"] == RESULTS_FORMAT_VERSION == 1
    assert manifest["format_version"] == MANIFEST_FORMAT_VERSION == 1


def test_history_json_carries_its_format_version(example_history):
    out, _ = example_history  # `reportgen history` of the example releases (conftest.py)
    assert json.loads((out / "history.json").read_text())["format_version"] == 1


def _email(folder: Path, tmp_path: Path) -> list[str]:
    return [
        "email",
        str(folder),
        "--to",
        "ana@example.org",
        "--from",
        "bot@example.org",
        "--eml",
        str(tmp_path / "m.eml"),
        "--no-attach",
        "--no-charts",
    ]


@pytest.mark.parametrize("name", ["results.json", "manifest.json"])
def test_email_refuses_a_document_from_a_newer_reportgen(release, tmp_path, capsys, name):
    _rewrite(release / name, lambda d: d.update(format_version=2))
    assert main(_email(release, tmp_path)) == 2
    err = capsys.readouterr().err
    assert f"{name} has format version 2, newer than this reportgen reads (1)" in err
    assert "upgrade reportgen" in err and "Traceback" not in err
    assert not (tmp_path / "m.eml").exists()


def test_email_reads_a_results_json_written_before_format_versions(release, tmp_path):
    _rewrite(release / "results.json", lambda d: d.pop("format_version"))
    folder = read_report_folder(release)
    assert "format_version" not in folder.results
    assert main(_email(release, tmp_path)) == 0


def test_history_refuses_a_report_from_a_newer_reportgen(
    example_releases, release, tmp_path, capsys
):
    _rewrite(release / "results.json", lambda d: d.update(format_version=3))
    status = main(
        [
            "history",
            str(example_releases["v2.0"]),
            str(release),
            "--out",
            str(tmp_path / "h"),
            "--format",
            "html",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and "results.json has format version 3" in err
    assert not (tmp_path / "h").exists()


def test_verify_refuses_a_manifest_from_a_newer_reportgen(release, capsys):
    _rewrite(release / "manifest.json", lambda d: d.update(format_version=2))
    assert main(["verify", str(release)]) == 2
    err = capsys.readouterr().err
    assert "manifest.json has format version 2, newer than this reportgen reads (1)" in err


@pytest.mark.parametrize(
    ("value", "ok"),
    [(1, True), ("1.4", True), (None, False), (0, False), (True, False), ("x", False), (2, False)],
)
def test_check_format_version_input_validation(value, ok):
    document = {"format_version": value}
    if ok:
        assert check_format_version(document, supported=1, what="r.json", source="r.json") == 1
    else:
        with pytest.raises(ValueError, match="format_version|format version"):
            check_format_version(document, supported=1, what="r.json", source="r.json")

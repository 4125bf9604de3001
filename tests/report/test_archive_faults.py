"""Nothing lost, nothing let in (issue 32): a report written beside a checkpoint under
faults and hostile input.

* only reportgen's own leftovers are cleaned (a name prefix and a marker file);
* no symbolic link is followed into or out of a report: by ``email``, ``verify``,
  ``--force`` and the swap;
* ``--force`` compares digests before it replaces: an edited file is named and kept,
  unless ``--if-exists replace-edited``.

The references are the file system itself (the files and bytes found afterwards) and
``hashlib.sha256`` of what is on disk.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.report.folder import archive
from reportgen.report.folder.archive import manifest_digest, report_folder
from reportgen.report.folder.verify import verify_report


@pytest.fixture(scope="module")
def scores(tmp_path_factory, scores_csv) -> Path:
    return scores_csv(tmp_path_factory.mktemp("scores"), seed=32)


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


# ---------------------------------------------------------------- 1. own leftovers only


def test_foreign_hidden_folders_of_the_parent_are_never_deleted_or_renamed(
    scores, tmp_path, write_report
):
    # the repro: a checkpoint's shard in a folder shaped like an old leftover
    shard = tmp_path / ".weights.20250101.partial"
    shard.mkdir()
    (shard / "shard-00001.bin").write_bytes(b"weights")
    old = tmp_path / ".optimizer.abcd1234.old"
    old.mkdir()
    write_report(old, {"state.pt": "adam"})  # even with a reportgen manifest
    # our prefix, but no marker file / no manifest: not provably ours either
    fake_build = tmp_path / ".reportgen-r.abcd1234.partial"
    fake_build.mkdir()
    (fake_build / "x").write_text("x")
    fake_aside = tmp_path / ".reportgen-q.abcd1234.old"
    fake_aside.mkdir()
    (fake_aside / "y").write_text("y")
    before = {p.name: _snapshot(p) for p in tmp_path.iterdir()}
    assert _analyze(scores, tmp_path / "report") == 0
    after = {p.name: _snapshot(p) for p in tmp_path.iterdir() if p.name != "report"}
    assert after == before


def test_a_build_folder_carries_a_marker_naming_it_and_the_report_does_not(
    scores, tmp_path, write_report
):
    seen = {}
    with report_folder(tmp_path / "r") as work:
        seen["name"] = work.name
        seen["marker"] = (work / archive.BUILD_MARKER).read_bytes()
        (work / "results.json").write_text("{}")
        write_report(work, {})
    token = seen["name"].split(".")[-2]
    assert seen["name"].startswith(".reportgen-r.") and seen["name"].endswith(".partial")
    assert seen["marker"] == f"reportgen build folder {token}\n".encode()
    assert not (tmp_path / "r" / archive.BUILD_MARKER).exists()
    assert "manifest.json" in os.listdir(tmp_path / "r")
    assert verify_report(tmp_path / "r").ok


def test_a_long_out_name_still_gets_its_working_folders(scores, tmp_path):
    name = "r" * 250  # the prefix and token would exceed 255 bytes
    assert _analyze(scores, tmp_path / name) == 0
    assert sorted(os.listdir(tmp_path)) == [name]


# ---------------------------------------------------------------- 2. no links followed


def test_force_race_with_a_link_swapped_in_deletes_nothing_of_the_target(
    tmp_path, monkeypatch, write_report
):
    """Between the last check and the rename, --out becomes a link to another report:
    the rename moves the link, which is put back; the other report is untouched."""
    out = tmp_path / "r"
    out.mkdir()
    write_report(out, {"results.json": "old"})
    other = tmp_path / "other"
    other.mkdir()
    write_report(other, {"results.json": "precious"})
    before = _snapshot(other)
    real = archive.foreign_entry
    calls = []

    def swapping(folder, **options):
        found = real(folder, **options)
        calls.append(Path(folder).name)
        if Path(folder) == out and len(calls) == 2:  # the check inside the swap
            shutil.rmtree(out)
            out.symlink_to(other)
        return found

    monkeypatch.setattr(archive, "foreign_entry", swapping)
    with pytest.raises(InputError, match="replaced by a symbolic link"):
        with report_folder(out, force=True) as work:
            write_report(work, {"results.json": "new"})
    assert _snapshot(other) == before
    assert out.is_symlink() and os.readlink(out) == str(other)


def test_old_report_emptied_through_descriptors_not_links(tmp_path, monkeypatch, write_report):
    """A subfolder of the old report swapped for a link after its last check: the
    files of the link's target are not deleted."""
    out = tmp_path / "r"
    out.mkdir()
    write_report(out, {"results.json": "old", "tables/a.csv": "a"})
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "a.csv").write_text("a")  # same name and bytes as the listed file
    real = archive._remove_listed

    def swapper(folder, **options):
        shutil.rmtree(folder / "tables")
        (folder / "tables").symlink_to(victim)
        return real(folder, **options)

    monkeypatch.setattr(archive, "_remove_listed", swapper)
    with pytest.warns(archive.LeftoverWarning):
        with report_folder(out, force=True) as work:
            write_report(work, {"results.json": "new"})
    assert (victim / "a.csv").read_text() == "a"


def _reseal(folder: Path, edit) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    edit(manifest)
    manifest.pop("manifest_sha256", None)
    manifest["manifest_sha256"] = manifest_digest(manifest)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize("outside", ["../secret.txt", "ABSOLUTE", "sub/../../secret.txt"])
def test_verify_never_reads_outputs_outside_the_folder(scores, tmp_path, outside):
    out = tmp_path / "r"
    assert _analyze(scores, out) == 0
    secret = tmp_path / "secret.txt"
    secret.write_text("a guess about this machine")
    name = str(secret) if outside == "ABSOLUTE" else outside
    digest = archive.file_sha256(secret)

    _reseal(out, lambda m: m["outputs"].update({name: {"path": name, "sha256": digest}}))
    result = verify_report(out)
    assert not result.ok
    assert [(f.status, f.path) for f in result.findings] == [("outside", name)]


def test_verify_never_hashes_an_output_through_a_link(scores, tmp_path):
    out = tmp_path / "r"
    assert _analyze(scores, out) == 0
    elsewhere = tmp_path / "copy.json"
    shutil.copy(out / "results.json", elsewhere)
    # a listed folder turned into a link to a folder holding the same bytes
    (tmp_path / "d").mkdir()
    shutil.copy(out / "results.json", tmp_path / "d" / "results.json")
    _reseal(
        out,
        lambda m: m["outputs"].update(
            {
                "d/results.json": {
                    "path": "d/results.json",
                    "sha256": m["outputs"]["results.json"]["sha256"],
                }
            }
        ),
    )
    (out / "d").symlink_to(tmp_path / "d")
    statuses = {(f.status, f.path) for f in verify_report(out).findings}
    assert ("outside", "d/results.json") in statuses


def test_verify_of_a_manifest_that_is_a_link_exits_2(scores, tmp_path, capsys):
    out = tmp_path / "r"
    assert _analyze(scores, out) == 0
    real = tmp_path / "real-manifest.json"
    os.replace(out / "manifest.json", real)
    (out / "manifest.json").symlink_to(real)
    capsys.readouterr()
    assert main(["verify", str(out)]) == 2
    err = capsys.readouterr().err
    assert "manifest.json cannot be read (a symbolic link)" in err and "Traceback" not in err


# ---------------------------------------------------------------- 3. compare before replacing


def test_force_keeps_an_edited_results_json_and_names_it(scores, tmp_path, capsys):
    out = tmp_path / "r"
    assert _analyze(scores, out) == 0
    edited = (out / "results.json").read_text().replace("{", '{"reviewer_note": "ok",', 1)
    (out / "results.json").write_text(edited)
    before = _snapshot(out)
    capsys.readouterr()
    assert _analyze(scores, out, "--force") == 2
    err = capsys.readouterr().err
    assert "edited since reportgen wrote it" in err and "results.json" in err
    assert "--if-exists replace-edited" in err
    assert _snapshot(out) == before
    assert sorted(os.listdir(tmp_path)) == ["r"]
    # the explicit flag replaces it
    assert _analyze(scores, out, "--if-exists", "replace-edited") == 0
    assert "reviewer_note" not in (out / "results.json").read_text()
    assert sorted(os.listdir(tmp_path)) == ["r"]


def test_force_keeps_a_report_whose_manifest_was_edited(scores, tmp_path, capsys):
    out = tmp_path / "r"
    assert _analyze(scores, out) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["seed"] = 7  # its seal no longer matches
    (out / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert _analyze(scores, out, "--force") == 2
    assert "manifest.json: edited since reportgen wrote it" in capsys.readouterr().err


def test_file_edited_after_the_last_check_is_kept_and_named(tmp_path, monkeypatch, write_report):
    """A listed file edited after the check of the moved-aside folder (the last
    moment before deletion) is not deleted: it is kept beside the new report."""
    out = tmp_path / "r"
    out.mkdir()
    write_report(out, {"results.json": "old", "notes.csv": "n"})
    real = archive._remove_listed

    def editor(folder, **options):
        (folder / "notes.csv").write_text("a reviewer's note")
        return real(folder, **options)

    monkeypatch.setattr(archive, "_remove_listed", editor)
    with pytest.warns(archive.LeftoverWarning, match="were kept in"):
        with report_folder(out, force=True) as work:
            write_report(work, {"results.json": "new"})
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("r.kept-")]
    assert len(kept) == 1
    assert _snapshot(kept[0]) == {"notes.csv": b"a reviewer's note"}

"""History checks what it reads (issue 44, item 5): each release's results.json against
the digest its sealed manifest recorded. An edited or unverifiable release is refused
(exit 2, naming the release and what was found); with --allow-edited it is shown, and
every output says so on its steps: the report, history.json, tables/*.csv, the console.

The reference is ``reportgen verify`` on the same folders (the digests it re-hashes),
and the bytes of the outputs. The releases are `reportgen analyze` folders of a small
binary benchmark.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from reportgen.cli import main
from reportgen.errors import InputError
from reportgen.report.folder.manifest import manifest_digest
from reportgen.report.folder.reader import read_report_folder
from reportgen.report.folder.verify import verify_release, verify_report
from reportgen.report.history import build_history


@pytest.fixture(scope="module")
def releases(tmp_path_factory) -> list[Path]:
    """Two analysed releases, r1 and r2, of systems a and b (a's accuracy near 0.5)."""
    base = tmp_path_factory.mktemp("releases")
    rng = np.random.default_rng(5)
    folders = []
    for k, label in enumerate(("r1", "r2")):
        lines = ["system,dataset,metric,item,score"]
        for name, p in (("a", 0.5 + 0.05 * k), ("b", 0.6)):
            lines += [f"{name},qa,acc,q{i},{int(rng.random() < p)}" for i in range(60)]
        data = base / f"{label}.csv"
        data.write_text("\n".join(lines) + "\n")
        out = base / label
        assert main(["analyze", str(data), "--out", str(out), "--n-resamples", "99"]) == 0
        folders.append(out)
    return folders


def _copy(releases: list[Path], tmp_path: Path) -> list[Path]:
    copies = []
    for folder in releases:
        shutil.copytree(folder, tmp_path / folder.name)
        copies.append(tmp_path / folder.name)
    return copies


def _edit_mean(folder: Path, system: str = "a", mean: float = 0.99) -> None:
    results = json.loads((folder / "results.json").read_text())
    for row in results["systems"]:
        if row["system"] == system:
            row["mean"] = mean
    (folder / "results.json").write_text(json.dumps(results))


def _edit_manifest(folder: Path, change, *, seal: bool = False) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    change(manifest)
    if seal:
        manifest["manifest_sha256"] = manifest_digest(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_verify_release_agrees_with_reportgen_verify(releases, tmp_path):
    r1, r2 = _copy(releases, tmp_path)
    assert verify_report(r1).ok and verify_release(read_report_folder(r1)).status == "verified"
    _edit_mean(r2)
    found = verify_report(r2).findings
    assert [(f.kind, f.status, f.path) for f in found] == [("output", "changed", "results.json")]
    verified = verify_release(read_report_folder(r2))
    assert verified.edited and verified.status == "edited"
    assert (
        verified.reason is not None
        and "its results.json differs from the digest" in verified.reason
    )


def test_history_refuses_an_edited_release(releases, tmp_path, capsys):
    # before: the hand-edited mean (0.5 -> 0.99) was drawn as 99.0% without a word
    r1, r2 = _copy(releases, tmp_path)
    _edit_mean(r2)
    out = tmp_path / "h"
    assert main(["history", str(r1), str(r2), "--system", "a", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reportgen: error: {r2}: release 'r2' cannot be trusted: its ")
    assert "results.json differs from the digest its manifest recorded" in err
    assert "reportgen verify" in err and "--allow-edited" in err and "Traceback" not in err
    assert not out.exists()
    with pytest.raises(InputError, match="release 'r2' cannot be trusted"):
        build_history([r1, r2], follow=["a"])


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda f: (f / "manifest.json").unlink(), "it has no manifest.json"),
        (
            lambda f: _edit_manifest(f, lambda m: m.pop("manifest_sha256")),
            "records no digest of its own",
        ),
        (
            lambda f: _edit_manifest(f, lambda m: m.update(inputs=["r2.csv"])),
            "its manifest.json was changed after reportgen wrote it",
        ),
        (
            lambda f: _edit_manifest(f, lambda m: m.pop("results"), seal=True),
            "its manifest records no digest of results.json",
        ),
    ],
    ids=["no-manifest", "unsealed", "manifest-edited", "no-results-digest"],
)
def test_history_refuses_an_unverifiable_release(releases, tmp_path, damage, words):
    r1, r2 = _copy(releases, tmp_path)
    damage(r2)
    with pytest.raises(InputError, match="release 'r2' cannot be trusted") as raised:
        build_history([r1, r2], follow=["a"])
    assert words in raised.value.message
    # shown with allow_edited, marked
    history = build_history([r1, r2], follow=["a"], allow_edited=True)
    assert [e.edited is not None for e in history.entries] == [False, True]
    assert words in str(history.entries[1].edited)


def test_allow_edited_with_manifest_inputs_as_plain_paths(releases, tmp_path):
    # before: AttributeError ('str' object has no attribute 'get') in the history
    r1, r2 = _copy(releases, tmp_path)
    _edit_manifest(r2, lambda m: m.update(inputs=[str(r2.parent / "r2.csv")]))
    history = build_history([r1, r2], follow=["a"], recompute="always", allow_edited=True)
    assert any("does not list its inputs as reportgen does" in n for n in history.notes)
    assert {c.method for c in history.changes} == {"intervals"}


def test_verify_release_checks_the_tables_results_json_refers_to(releases, tmp_path):
    (r1,) = _copy(releases[:1], tmp_path)
    table = r1 / "tables" / "comparisons.parquet"
    table.parent.mkdir()
    table.write_bytes(b"PAR1 rows PAR1")
    import hashlib

    digest = hashlib.sha256(table.read_bytes()).hexdigest()
    _edit_manifest(
        r1,
        lambda m: m["outputs"].update({"tables/comparisons.parquet": {"sha256": digest}}),
        seal=True,
    )
    assert verify_release(read_report_folder(r1)).status == "verified"
    table.write_bytes(b"PAR1 other rows PAR1")
    verified = verify_release(read_report_folder(r1))
    assert verified.status == "edited"
    assert "its tables/comparisons.parquet, which results.json refers to, differs" in str(
        verified.reason
    )
    table.unlink()
    assert "is gone" in str(verify_release(read_report_folder(r1)).reason)


@pytest.mark.e2e
def test_allow_edited_marks_the_step_in_every_output(releases, tmp_path, capsys):
    r1, r2 = _copy(releases, tmp_path)
    _edit_mean(r2)
    out = tmp_path / "h"
    argv = ["history", str(r1), str(r2), "--system", "a", "--out", str(out), "--quiet"]
    assert main([*argv, "--format", "html", "--allow-edited"]) == 0
    captured = capsys.readouterr()
    # the console
    assert (
        "reportgen: warning: Warning: the results.json of r2 is not what reportgen wrote (its "
        "results.json differs"
    ) in captured.err
    assert "(--allow-edited)" in captured.err
    # history.json: the release and each change of its step
    document = json.loads((out / "history.json").read_text())
    assert [r["edited"] is not None for r in document["reports"]] == [False, True]
    assert document["changes"] and all(
        c["edited"].startswith("r2: its results.json differs") for c in document["changes"]
    )
    assert any(n.startswith("r2: its results.json differs") for n in document["notes"])
    # the tables
    with (out / "tables" / "changes.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert rows and all(r["edited"].startswith("r2: ") for r in rows)
    # the report: a warning first, and the step marked in its tables
    html = (out / "report.html").read_text()
    assert 'class="rg-warning' in html
    assert "Warning: the results.json of r2 is not what reportgen wrote" in html
    assert "r1 → r2 (edited)" in html
    assert html.index("Warning: the results.json of r2") < html.index("r1 → r2 (edited)")

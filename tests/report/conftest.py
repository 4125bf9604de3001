"""Reports shared by the tests of several modules, each made once per session (a run of
the notebook takes 5-20 s): three archived release reports of the bundled example, one per
synthetic release, as a team would keep them next to their checkpoints; the history of
those three (and with its PDF); the example's evaluation report; the RAG data's report;
the report of all the shared eval-arena benchmarks; the report of 11 simulated
benchmarks of partly overlapping systems. Each is made once per test run,
however many pytest-xdist workers use it (``built_once`` of tests/conftest.py). A test
that changes a shared report works on a copy (``shutil.copytree``).

And the helpers of the tests of report folders: ``write_report`` (a folder reportgen
wrote), ``file_digests`` (its files' SHA-256, to compare before and after) and the
tmpfs disks ``read_only_disk`` and ``small_disk``."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reportgen.cli import main
from reportgen.report.folder.archive import build_manifest
from reportgen.report.pipeline import (
    RunResult,
    built_files,
    resolve_run,
    run_report,
    write_manifest,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
EXAMPLE_CONFIG = ROOT / "examples" / "reportgen.toml"

#: (release label, baseline, candidate): a big improvement, then the documented near-tie
#: of the example (starcoder2-15b fim 4k vs 8k).
RELEASES = (
    ("v2.0", "granite-3b|fim|4k", "starcoder2-3b|fim|4k"),
    ("v9.1", "starcoder2-3b|fim|4k", "starcoder2-15b|fim|4k"),
    ("v10.0", "starcoder2-15b|fim|4k", "starcoder2-15b|fim|8k"),
)


def _evaluation_report(data: Path, out: Path, title: str, *, seed: int) -> RunResult:
    """The report (HTML and PDF) of ``data`` with the default options and 999 resamples."""
    return run_report(
        resolve_run(
            [str(data)],
            analysis={"seed": seed, "n_resamples": 999},
            report={"out": str(out), "title": title},
        )
    )


@pytest.fixture(scope="session")
def example_releases(example_release_runs) -> dict[str, Path]:
    """Release reports v2.0, v9.1, v10.0 (the last with a PDF) in
    ``checkpoints/<label>/eval-report``."""
    return {label: folder for label, (folder, _) in example_release_runs.items()}


@pytest.fixture(scope="session")
def example_release_runs(built_once) -> dict[str, tuple[Path, RunResult]]:
    """The release reports of `example_releases` with what `run_report` returned."""

    def make(base: Path) -> dict[str, tuple[Path, RunResult]]:
        out = {}
        for k, (label, baseline, candidate) in enumerate(RELEASES):
            checkpoint = base / label
            checkpoint.mkdir()
            (checkpoint / "model.safetensors").write_bytes(b"weights")
            folder = checkpoint / "eval-report"
            result = run_report(
                resolve_run(
                    [str(EXAMPLE)],
                    config=str(EXAMPLE_CONFIG),
                    analysis={"seed": 11 + k, "n_resamples": 999, "baseline": baseline},
                    report={
                        "out": str(folder),
                        "title": "Example release",
                        "release": label,
                        "template": "release",
                        "candidate": candidate,
                        "formats": ("html", "pdf") if label == "v10.0" else ("html",),
                    },
                )
            )
            out[label] = (folder, result)
        return out

    return built_once("checkpoints", make)


@pytest.fixture(scope="session")
def example_history(example_releases, built_once) -> tuple[Path, str]:
    """`reportgen history` of the three releases given out of order (lexicographic order
    would be v10.0 < v2.0 < v9.1): the folder and what the command printed."""

    def make(base: Path) -> tuple[Path, str]:
        out = base / "history"
        reports = [str(example_releases[k]) for k in ("v10.0", "v2.0", "v9.1")]
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = main(["history", *reports, "--out", str(out), "--format", "html", "--quiet"])
        assert code == 0
        return out, printed.getvalue()

    return built_once("history", make)


@pytest.fixture(scope="session")
def history_pdf(example_releases, built_once) -> Path:
    """`reportgen history` of the three releases with its PDF (the landscape page of
    changes): the folder."""

    def make(base: Path) -> Path:
        out = base / "history"
        reports = [str(example_releases[k]) for k in ("v2.0", "v9.1", "v10.0")]
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["history", *reports, "--out", str(out), "--format", "html,pdf", "--quiet"])
        assert code == 0
        return out

    return built_once("history-pdf", make)


@pytest.fixture(scope="session")
def arena_report(shared_data, built_once) -> Path:
    """The report (HTML and PDF) of all five shared eval-arena benchmarks at once (170
    systems, long benchmark names): the many-benchmark report."""

    def make(base: Path) -> Path:
        out = base / "arena"
        _evaluation_report(shared_data / "eval-arena", out, "eval-arena", seed=1)
        return out

    return built_once("arena", make)


@pytest.fixture(scope="session")
def many_report(built_once) -> Path:
    """The report (HTML and PDF) of 11 benchmarks whose system sets only partly overlap
    (262 systems, one benchmark of 203), simulated from the shared eval-arena files by
    ``tools/many_benchmarks.py`` (preset arena11) into the run's temporary folder: the
    many-benchmark report of issue 42."""
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import many_benchmarks

    def make(base: Path) -> Path:
        many_benchmarks.write_collection(base / "data", "arena11")
        out = base / "report"
        _evaluation_report(base / "data", out, "Eleven benchmarks", seed=1)
        return out

    return built_once("many-benchmarks", make)


@pytest.fixture(scope="session")
def example_report(built_once) -> tuple[Path, RunResult, list[str]]:
    """The example's evaluation report (HTML, PDF, notebook) with the default options, as
    a user first sees it (test_layout.py holds it to its page budget): the folder, what
    `run_report` returned, its progress lines."""

    def make(base: Path) -> tuple[Path, RunResult, list[str]]:
        out = base / "report"
        lines: list[str] = []
        spec = resolve_run(
            [str(EXAMPLE)],
            config=str(EXAMPLE_CONFIG),
            analysis={"seed": 3, "n_resamples": 999},
            report={"out": str(out), "title": "Example evaluation", "release": "v1.2"},
        )
        result = run_report(spec, progress=lines.append)
        return out, result, lines

    return built_once("run", make)


@pytest.fixture(scope="session")
def rag_report(shared_data, built_once) -> tuple[Path, Path, RunResult]:
    """The report (HTML and PDF) of the three metric files of six RAG configurations on
    140 questions, made from a copy of the data (which a test may change, on a copy of its
    own): the report folder, the data folder, what `run_report` returned."""

    def make(base: Path) -> tuple[Path, Path, RunResult]:
        data = base / "data"
        shutil.copytree(shared_data / "ibm-rag", data)
        for f in data.iterdir():
            f.chmod(0o644)
        out = base / "report"
        return out, data, _evaluation_report(data, out, "RAG configurations", seed=5)

    return built_once("rag", make)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium driven by Playwright (no browser download); the
    browser tests skip without either."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.skip("no chromium executable on PATH (apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable)
        try:
            yield chromium
        finally:
            chromium.close()


def _write_report(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    manifest = build_manifest([], parameters={}, seed=1, outputs=built_files(folder))
    write_manifest(folder, manifest, {}, results=None)


@pytest.fixture(scope="session")
def write_report() -> Callable[[Path, dict[str, str]], None]:
    """``write_report(folder, files)``: write ``files`` (name → text) and a reportgen
    manifest listing them, as a run does (a folder reportgen may replace)."""
    return _write_report


def _file_digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="session")
def file_digests() -> Callable[[Path], dict[str, str]]:
    """``file_digests(folder)``: the SHA-256 of every file below ``folder`` by its
    relative path (what a test compares before and after to find a file changed)."""
    return _file_digests


def _tmpfs(mount: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted at ``mount`` with ``options`` while the test runs (root only); the
    test is skipped where it cannot be mounted."""
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs ({options}) here ({done.stderr.strip()}): not run")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


@pytest.fixture()
def read_only_disk(tmp_path: Path) -> Iterator[Path]:
    """A read-only tmpfs (root only); skipped where it cannot be mounted."""
    yield from _tmpfs(tmp_path / "ro", "ro,size=1m")


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 600 KiB tmpfs: a report (about 3 MB with its PDF) does not fit."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; the disk-full case is not run")
    yield from _tmpfs(tmp_path / "small", "size=600k")

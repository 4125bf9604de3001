"""Shared fixtures: where the real data of ../shared/data are; the test tiers (markers
e2e, integration, unit: pyproject.toml); `built_once`, which makes a session's shared
report once per test run, whatever the number of pytest-xdist workers; `scores_csv`, a
small scores file."""

from __future__ import annotations

import fcntl
import functools
import gc
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"

#: Fixtures that make a report end to end (tests/report/conftest.py and the report tests'
#: module fixtures): a test using one of them, directly or through another fixture, is e2e.
E2E_FIXTURES = frozenset(
    {
        "example_release_runs",
        "example_report",
        "rag_report",
        "arena_report",  # test_layout.py, test_pdf_margins.py
        "history_pdf",  # test_pdf_words.py, test_pdf_margins.py
        "hostile_report",  # test_names_shown.py
        "reports",  # test_browser_layout.py
        "tabs_report",  # test_tabs.py
        "many_report",  # test_many_benchmarks.py, test_pdf_words.py
    }
)
TIERS = ("e2e", "integration", "unit")


@pytest.hookimpl(tryfirst=True)  # before `-m` selects on the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if E2E_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
        if not any(item.get_closest_marker(tier) for tier in TIERS):
            item.add_marker(pytest.mark.unit)


class _HeavyFilesFirst:
    @pytest.hookimpl(trylast=True)  # on the tests `-m` selected
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        _heavy_files_first(items)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_HeavyFilesFirst(), "reportgen-heavy-files-first")
    _reference_multipletests_without_gc_collect()


def _reference_multipletests_without_gc_collect() -> None:
    """statsmodels' ``multipletests``, the reference of the multiplicity tests, calls
    ``gc.collect()`` on every Holm call (statsmodels/stats/multitest.py): about 1 s in a
    test worker that has made reports (a full collection walks every live object), 0.4 ms
    without. The collection frees memory and changes no result, so the reference skips
    it during its calls. Done before the test modules are collected, so their ``from
    statsmodels.stats.multitest import multipletests`` gets it; reportgen itself never
    calls ``multipletests``."""
    from statsmodels.stats import multitest

    real = multitest.multipletests

    @functools.wraps(real)
    def multipletests(*args: Any, **kwargs: Any) -> Any:
        collect = gc.collect
        gc.collect = lambda generation=2: 0
        try:
            return real(*args, **kwargs)
        finally:
            gc.collect = collect

    multitest.multipletests = multipletests


def _heavy_files_first(items: list[pytest.Item]) -> None:
    """The files with an e2e test first, then the others; each group by its number of
    selected tests, most first (the order of pytest-xdist's own reordering, kept within a
    file).

    ``--dist loadfile`` hands out whole files in the collection's order when xdist's
    reordering by number of tests is off (``--no-loadscope-reorder``, tests/run.sh). By
    that number alone, the files of a few long end-to-end runs came last, and one worker
    ran them alone while the other had finished: long ones first, many short ones to fill
    the end, and both workers finish together.
    """
    tests: dict[Path, int] = {}
    e2e: set[Path] = set()
    for item in items:
        tests[item.path] = tests.get(item.path, 0) + 1
        if item.get_closest_marker("e2e"):
            e2e.add(item.path)
    items.sort(key=lambda item: (item.path not in e2e, -tests[item.path]))  # stable


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(
            f"the real data folder {SHARED_DATA} is missing: CI and developers have "
            "../shared beside the repository"
        )
    return SHARED_DATA


def _scores_csv(
    folder: Path,
    *,
    seed: int,
    systems: tuple[str, ...] = ("base", "ours", "other"),
    n_items: int = 40,
) -> Path:
    import numpy as np

    rng = np.random.default_rng(seed)
    lines = ["system,dataset,metric,item,score"]
    for k, name in enumerate(systems):
        for i in range(n_items):
            lines.append(f"{name},qa,acc,q{i},{int(rng.random() < 0.5 + 0.1 * k)}")
    path = folder / "scores.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="session")
def scores_csv() -> Callable[..., Path]:
    """``scores_csv(folder, seed=..., systems=("base", "ours", "other"), n_items=40)``:
    ``folder/scores.csv``, binary scores of a few systems on one dataset (``qa``, metric
    ``acc``), system k solving each item with probability 0.5 + 0.1 k (a hand-made case
    for the tests of files and folders: small, so a command on it runs in a second)."""
    return _scores_csv


@pytest.fixture(scope="session")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[Path], T]], T]:
    """``built_once(name, make)``: ``make(folder)`` called once per test run, its value
    (pickled) and ``folder`` shared by every pytest-xdist worker.

    Each worker is a session of its own, so a session fixture used by test files on two
    workers would otherwise be made twice (a report takes 15-60 s). The first worker to
    ask makes it under an exclusive lock (``fcntl.flock``) in the run's temporary folder,
    which the workers' own ones (``popen-gwN``) are inside of; the others wait on the lock
    and read what it left. Nothing outlives the run (pytest's usual temporary folders), so
    a changed code base can never be served an old report. A failed make leaves nothing:
    the next worker to ask makes it again (and fails the same way, with its own traceback).
    A test that changes what it was given works on a copy.
    """
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "built-once"
    root.mkdir(exist_ok=True)

    def build(name: str, make: Callable[[Path], T]) -> T:
        folder, done = root / name, root / f"{name}.pickle"
        with (root / f"{name}.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
            if done.exists():
                value: Any = pickle.loads(done.read_bytes())
                return value
            if folder.exists():
                shutil.rmtree(folder)  # left by a make that failed
            folder.mkdir()
            value = make(folder)
            part = done.with_suffix(".part")
            part.write_bytes(pickle.dumps(value))
            part.replace(done)
            return value

    return build


@pytest.fixture(scope="session")
def unprivileged() -> Callable[[list[str]], list[str]]:
    """``unprivileged(argv)``: the command line that runs ``argv`` where file
    permissions apply, for the tests of unreadable and unwritable files.

    As an ordinary user that is ``argv`` itself. As root (CI containers), the child
    runs without the capabilities that bypass permissions (``setpriv`` from util-linux
    drops CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER from its bounding set and
    clears the inheritable ones, so the program it starts has none of them); the test
    is skipped, saying why, only when that cannot be done."""
    if os.geteuid() != 0:
        return lambda argv: list(argv)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux): cannot drop the capability")
    prefix = [
        setpriv,
        "--inh-caps=-all",
        "--bounding-set=-dac_override,-dac_read_search,-fowner",
    ]
    import subprocess

    probe = subprocess.run([*prefix, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop the capability here: {probe.stderr.strip()}")
    return lambda argv: [*prefix, *argv]

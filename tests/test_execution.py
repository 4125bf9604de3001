"""Execution settings: serial, local worker processes (``jobs``) and Dask give the same
analysis; bounded working memory (``max_memory``) changes the peak memory, never the
numbers; the CLI flags and config keys are checked with pinned messages.

The oracle of every "identical" test is the serial, in-process run of the same analysis
(``jobs=1``), which itself runs the units one after the other exactly as before the
units could be shipped elsewhere; the memory tests use :mod:`tracemalloc` (numpy reports
its buffers to it) and the closed-form size of the unchunked resampling matrix.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.cli import main
from reportgen.data import load
from reportgen.errors import ConfigError, DegenerateDataWarning, InputError, Location
from reportgen.execution import (
    Execution,
    blas_threads,
    map_units,
    parse_memory_size,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "data"
EXAMPLE_CONFIG = ROOT / "examples" / "reportgen.toml"


# ------------------------------------------------------------------------- fixtures


def _synthetic_rows(rng: np.random.Generator) -> list[dict]:
    """Several datasets × metrics of different kinds: paired continuous and paired
    binary with item difficulty, and unpaired continuous. The "rare" level holds two
    items every system solves, so its group comparisons are degenerate and warn."""
    rows = []
    systems = ["alpha", "beta", "gamma", "delta"]
    for dataset, n in (("d1", 40), ("d2", 25)):
        for k, system in enumerate(systems):
            for i in range(n):
                rare = dataset == "d2" and i in (0, 2)
                level = "rare" if rare else ("easy", "hard")[i % 2]
                rows.append(
                    dict(
                        system=system,
                        dataset=dataset,
                        metric="quality",
                        item=f"{dataset}-{i}",
                        difficulty=level,
                        score=float(rng.normal(0.3 * k - (i % 2), 1.0)),
                    )
                )
                rows.append(
                    dict(
                        system=system,
                        dataset=dataset,
                        metric="correct",
                        item=f"{dataset}-{i}",
                        difficulty=level,
                        score=1.0 if rare else float(rng.random() < 0.4 + 0.1 * k),
                    )
                )
    for k, system in enumerate(systems):  # unpaired: each system on its own items
        for i in range(15 + 3 * k):
            rows.append(
                dict(
                    system=system,
                    dataset="d3",
                    metric="quality",
                    item=f"d3-{system}-{i}",
                    difficulty="easy",
                    score=float(rng.normal(0.2 * k, 1.0)),
                )
            )
    return rows


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    path = tmp_path_factory.mktemp("synthetic") / "scores.csv"
    pd.DataFrame(_synthetic_rows(np.random.default_rng(20240501))).to_csv(path, index=False)
    return load([str(path)])


@pytest.fixture(scope="module")
def example():
    return load([str(EXAMPLE)], config=str(EXAMPLE_CONFIG))


def _results(analysis) -> str:
    results = analysis.to_results()
    results.pop("created")
    return json.dumps(results, allow_nan=True)


def _run(table, options, execution=None):
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        analysis = analyze(table, options, execution=execution)
    return analysis, [(r.category, str(r.message)) for r in records]


def _assert_identical(serial, parallel):
    assert _results(parallel) == _results(serial)
    pd.testing.assert_frame_equal(
        pd.DataFrame(parallel.comparisons()), pd.DataFrame(serial.comparisons()), check_exact=True
    )
    assert [(u.name, type(u.comparisons), u.ranks is None) for u in parallel.units] == [
        (u.name, type(u.comparisons), u.ranks is None) for u in serial.units
    ]
    assert parallel.notes == serial.notes


# ----------------------------------------------------------- parallel == serial


def test_analyze_jobs_identical_to_serial_on_example(example):
    # oracle: the serial run (jobs=1) of the same options and seed
    options = AnalysisOptions(seed=11)
    serial, serial_warnings = _run(example, options)
    parallel, parallel_warnings = _run(example, options, Execution(jobs=2))
    _assert_identical(serial, parallel)
    assert parallel_warnings == serial_warnings


def test_analyze_jobs_identical_to_serial_on_synthetic_units(synthetic):
    # oracle: the serial run; 5 units of every kind, groups, a cluster_by that names no
    # column (a note given once, not once per unit), correction across all units and a
    # one-sided alternative (warned once, in the caller)
    options = AnalysisOptions(
        seed=5,
        group_by=("difficulty",),
        cluster_by="nosuch",
        correct_across="all",
        alternative="greater",
        method="permutation",
        n_resamples=999,
    )
    serial, serial_warnings = _run(synthetic, options)
    parallel, parallel_warnings = _run(synthetic, options, Execution(jobs=2))
    _assert_identical(serial, parallel)
    assert len(serial.compared) == len(synthetic.pairs()) == 5
    assert sum("cluster_by='nosuch'" in n for n in parallel.notes) == 1
    # the warnings of the workers reach the caller, in unit order, like serial ones
    assert parallel_warnings == serial_warnings
    assert any(c is DegenerateDataWarning for c, _ in parallel_warnings)


def test_analyze_dask_local_cluster_identical_to_serial(synthetic):
    distributed = pytest.importorskip("distributed")
    options = AnalysisOptions(seed=3, n_resamples=999)
    serial, serial_warnings = _run(synthetic, options)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        execution = Execution("dask", scheduler=cluster.scheduler_address)
        parallel, parallel_warnings = _run(synthetic, options, execution)
    _assert_identical(serial, parallel)
    assert parallel_warnings == serial_warnings


def test_analyze_progress_counts_units(synthetic):
    calls = []
    analyze(
        synthetic,
        AnalysisOptions(seed=1, n_resamples=99),
        progress=lambda done, total: calls.append((done, total)),
    )
    total = len(synthetic.pairs())
    assert total >= 5 and calls == [(k, total) for k in range(1, total + 1)]


# ------------------------------------------------------------------ map_units


def _pid(shared, k):
    return os.getpid()


def _warn_then(shared, k, fail=False):
    warnings.warn(f"unit {k} of {shared}", DegenerateDataWarning, stacklevel=1)
    if fail:
        raise InputError(
            f"unit {k} failed", location=Location("f.csv", 3, "score"), hint="fix unit " + str(k)
        )
    return k * 10


def _probe(shared, k):
    warnings.warn(f"unit {k} of {shared}", DegenerateDataWarning, stacklevel=1)
    env = tuple(os.environ.get(v) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"))
    return os.getpid(), env, k * 10


def test_map_units_serial_starts_no_process():
    before = multiprocessing.active_children()
    assert map_units(_pid, None, [(1,), (2,)]) == [os.getpid()] * 2
    # one unit is never shipped, whatever jobs says
    assert map_units(_pid, None, [(1,)], execution=Execution(jobs=2)) == [os.getpid()]
    assert multiprocessing.active_children() == before


def test_map_units_processes_results_warnings_progress_and_threads():
    seen = []
    before = os.environ.get("OPENBLAS_NUM_THREADS")
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        out = map_units(
            _probe,
            "S",
            [(k,) for k in range(5)],
            execution=Execution(jobs=2),
            progress=lambda done, total: seen.append((done, total)),
        )
    pids = {pid for pid, _, _ in out}
    assert os.getpid() not in pids and len(pids) <= 2
    assert [value for _, _, value in out] == [0, 10, 20, 30, 40]  # in task order
    assert seen == [(k, 5) for k in range(1, 6)]
    # worker warnings are raised again in the caller, in unit order, from their origin
    assert [(r.category, str(r.message)) for r in records] == [
        (DegenerateDataWarning, f"unit {k} of S") for k in range(5)
    ]
    assert all(r.filename == __file__ for r in records)
    # workers start with one BLAS/OpenMP thread; the caller's environment is restored
    assert {env for _, env, _ in out} == {("1", "1")}
    assert os.environ.get("OPENBLAS_NUM_THREADS") == before


def test_map_units_reraises_the_first_failure_with_location_and_hint():
    tasks = [(0,), (1, True), (2,), (3, True)]
    for execution in (Execution(), Execution(jobs=2)):
        with warnings.catch_warnings(record=True) as records, pytest.raises(InputError) as exc:
            warnings.simplefilter("always")
            map_units(_warn_then, "S", tasks, execution=execution)
        assert type(exc.value) is InputError
        assert (exc.value.message, exc.value.hint) == ("unit 1 failed", "fix unit 1")
        assert exc.value.location == Location("f.csv", 3, "score")
        # the warnings of the units before the failure, as a serial run gives them
        assert [str(r.message) for r in records] == ["unit 0 of S", "unit 1 of S"]


def test_blas_threads_sets_and_restores_the_blas_count():
    """threadpoolctl's own view of the BLAS libraries loaded in this process."""
    import numpy as np
    from threadpoolctl import threadpool_info

    np.ones((4, 4)) @ np.ones((4, 4))  # make sure numpy's BLAS is loaded
    before = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    if not before:
        pytest.skip("no BLAS that threadpoolctl knows")
    with blas_threads(1):
        assert [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"] == [
            1
        ] * len(before)
    assert [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"] == before


def test_dask_executor_without_distributed_is_a_config_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_distributed(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_distributed)
    with pytest.raises(ConfigError, match="executor='dask' needs dask.distributed") as exc:
        map_units(_pid, None, [(1,), (2,)], execution=Execution("dask"))
    assert exc.value.hint.startswith("pip install 'reportgen[dask]'")


def test_execution_input_validation():
    with pytest.raises(ConfigError, match=r"jobs=-1 is not valid"):
        Execution(jobs=-1)
    with pytest.raises(ConfigError, match=r"jobs=True is not valid"):
        Execution(jobs=True)
    with pytest.raises(ConfigError, match=r"jobs=2.0 is not valid"):
        Execution(jobs=2.0)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"executor='spark' is not valid") as exc:
        Execution("spark")  # type: ignore[arg-type]
    assert exc.value.hint == "use one of: local, dask"
    with pytest.raises(ConfigError, match=r"scheduler='tcp://h:1' needs executor='dask'"):
        Execution(scheduler="tcp://h:1")
    with pytest.raises(ConfigError, match=r"unknown execution setting: workers"):
        Execution.from_mapping({"workers": 2})
    assert Execution.from_mapping({}) == Execution()
    assert Execution().serial and not Execution(jobs=2).serial


# ---------------------------------------------------------------- memory sizes


def test_parse_memory_size_against_closed_form():
    # closed form: decimal units are powers of 1000, binary ones powers of 1024
    assert parse_memory_size("512MB") == 512 * 1000**2
    assert parse_memory_size("2GB") == 2 * 1000**3
    assert parse_memory_size("1.5GiB") == 3 * 2**29
    assert parse_memory_size("64 mib") == 64 * 2**20
    assert parse_memory_size("0.5TB") == 5 * 10**11
    assert parse_memory_size("1048576") == 2**20
    assert parse_memory_size(3 * 2**20) == 3 * 2**20
    assert parse_memory_size("2000kB") == 2 * 10**6


def test_parse_memory_size_input_validation():
    with pytest.raises(ConfigError, match=r"^--max-memory = '12XB' is not a memory size"):
        parse_memory_size("12XB", name="--max-memory")
    with pytest.raises(
        ConfigError,
        match=r"max_memory = '1.5' is not a whole number of "
        r"bytes",
    ):
        parse_memory_size("1.5")
    with pytest.raises(
        ConfigError,
        match=r"max_memory = '100KB' is below the minimum of "
        r"1 MiB",
    ):
        parse_memory_size("100KB")
    for bad in ("", "MB", "-5MB", "1e9", True, 2.5, None, [512]):
        with pytest.raises(ConfigError, match="is not a memory size"):
            parse_memory_size(bad)
    with pytest.raises(ConfigError, match="below the minimum") as exc:
        parse_memory_size(1000)
    assert "256MiB" in exc.value.hint


# -------------------------------------------------------- bounded working memory


def test_max_memory_small_gives_identical_resampling_results():
    # oracle: the same routine with a budget large enough for one chunk (no chunking)
    from reportgen.stats.means import mean_intervals
    from reportgen.stats.pairwise import compare_paired

    X = np.random.default_rng(7).normal(size=(3000, 4))
    for method in ("permutation", "bootstrap"):
        small = compare_paired(X, method=method, n_resamples=1999, rng=1, max_memory=2**20)
        large = compare_paired(X, method=method, n_resamples=1999, rng=1, max_memory=2**31)
        assert small.to_records() == large.to_records()
    small = mean_intervals(list(X.T), method="bca", n_resamples=1999, rng=2, max_memory=2**20)
    large = mean_intervals(list(X.T), method="bca", n_resamples=1999, rng=2, max_memory=2**31)
    assert small.to_records() == large.to_records()


def test_max_memory_small_gives_identical_analysis(synthetic):
    # oracle: the default budget (256 MiB, one chunk for these sizes)
    options = AnalysisOptions(seed=9, method="bootstrap", n_resamples=999)
    tight = analyze(
        synthetic, AnalysisOptions(seed=9, method="bootstrap", n_resamples=999, max_memory=2**20)
    )
    loose = analyze(synthetic, options)
    pd.testing.assert_frame_equal(
        pd.DataFrame(tight.comparisons()), pd.DataFrame(loose.comparisons()), check_exact=True
    )
    a, b = tight.to_results(), loose.to_results()
    assert a["systems"] == b["systems"] and a["rankings"] == b["rankings"]


def test_max_memory_bounds_the_peak_memory_of_a_permutation_test():
    from reportgen.stats.pairwise import compare_paired

    n, R = 5000, 9999
    X = np.random.default_rng(3).normal(size=(n, 3))
    naive = R * n * 8  # the unchunked R × n float64 sign matrix: 381 MiB
    tracemalloc.start()
    try:
        compare_paired(X, method="permutation", n_resamples=R, rng=1, max_memory=2**20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert naive > 300 * 2**20
    assert peak < 4 * 2**20  # the 1 MiB budget plus small arrays, not hundreds of MiB


def test_analysis_options_max_memory_validation():
    with pytest.raises(InputError, match=r"max_memory=1000 is not valid"):
        AnalysisOptions(max_memory=1000)
    with pytest.raises(InputError, match=r"max_memory='1GB' is not valid") as exc:
        AnalysisOptions(max_memory="1GB")  # type: ignore[arg-type]
    assert "parse_memory_size" in exc.value.hint


# ------------------------------------------------------------------------- CLI


@pytest.fixture()
def small_csv(tmp_path):
    rng = np.random.default_rng(1)
    rows = [
        dict(system=s, dataset=d, metric="acc", item=i, score=float(rng.random() < 0.5 + 0.1 * k))
        for d in ("a", "b")
        for k, s in enumerate(("x", "y", "z"))
        for i in range(30)
    ]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _cli_error(capsys, *argv) -> str:
    assert main(list(argv)) == 2
    return capsys.readouterr().err


_JOBS_HINT = "\n  hint: a whole number of worker processes >= 1, or 0 or auto for one per core"
_SIZE_HINT = "\n  hint: a number of bytes, or a number with a unit: 512MB, 2GB, 1.5GiB"


@pytest.mark.parametrize(
    "flags, message",
    [
        (("--jobs", "x"), "reportgen: error: --jobs 'x' is not valid" + _JOBS_HINT),
        (("--jobs", "-1"), "reportgen: error: --jobs '-1' is not valid" + _JOBS_HINT),
        (("--jobs", "1.5"), "reportgen: error: --jobs '1.5' is not valid" + _JOBS_HINT),
        (
            ("--scheduler", "tcp://h:8786"),
            (
                "reportgen: error: --scheduler 'tcp://h:8786' needs --executor dask\n  hint: add "
                "--executor dask"
            ),
        ),
        (
            ("--max-memory", "lots"),
            "reportgen: error: --max-memory = 'lots' is not a memory size" + _SIZE_HINT,
        ),
        (
            ("--max-memory", "100KB"),
            "reportgen: error: --max-memory = '100KB' is below the minimum of 1 MiB",
        ),
    ],
)
def test_cli_bad_execution_flags_exit_2(capsys, tmp_path, small_csv, flags, message):
    err = _cli_error(capsys, "analyze", str(small_csv), "--out", str(tmp_path / "o"), *flags)
    assert err.startswith(message)
    assert "Traceback" not in err
    assert not (tmp_path / "o" / "results.json").exists()


def test_cli_bad_executor_choice_exit_2(capsys, tmp_path, small_csv):
    with pytest.raises(SystemExit) as exc:
        main(["analyze", str(small_csv), "--out", str(tmp_path / "o"), "--executor", "spark"])
    assert exc.value.code == 2
    assert "argument --executor: invalid choice: 'spark'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "line, message",
    [
        ("jobs = -1", "analysis.jobs = -1 is not valid"),
        ("jobs = 1.5", "analysis.jobs = 1.5 is not valid"),
        ('executor = "spark"', "analysis.executor = 'spark' is not valid"),
        ('scheduler = ""', "analysis.scheduler = '' is not valid"),
        ('max_memory = "1.5"', "analysis.max_memory = '1.5' is not a whole number of bytes"),
        ("max_memory = 10", "analysis.max_memory = 10 is below the minimum of 1 MiB"),
        ("max_memory = true", "analysis.max_memory = True is not a memory size"),
    ],
)
def test_cli_bad_execution_config_keys_exit_2(capsys, tmp_path, small_csv, line, message):
    config = tmp_path / "c.toml"
    config.write_text(f"[analysis]\n{line}\n", encoding="utf-8")
    err = _cli_error(
        capsys, "analyze", str(small_csv), "--config", str(config), "--out", str(tmp_path / "o")
    )
    assert message in err and "Traceback" not in err


def test_cli_scheduler_from_config_needs_dask(capsys, tmp_path, small_csv):
    config = tmp_path / "c.toml"
    config.write_text('[analysis]\nscheduler = "tcp://h:1"\n', encoding="utf-8")
    err = _cli_error(
        capsys, "analyze", str(small_csv), "--config", str(config), "--out", str(tmp_path / "o")
    )
    assert "--scheduler 'tcp://h:1' needs --executor dask" in err


def test_cli_jobs_and_max_memory_give_the_serial_results(capsys, tmp_path, small_csv):
    # oracle: the serial CLI run with the default memory budget
    base = [
        "analyze",
        str(small_csv),
        "--seed",
        "4",
        "--n-resamples",
        "999",
        "--method",
        "bootstrap",
    ]
    assert main([*base, "--out", str(tmp_path / "serial")]) == 0
    config = tmp_path / "c.toml"
    config.write_text('[analysis]\njobs = 2\nmax_memory = "64MiB"\n', encoding="utf-8")
    assert main([*base, "--config", str(config), "--out", str(tmp_path / "jobs")]) == 0
    assert (
        main([*base, "--jobs", "auto", "--max-memory", "32MB", "--out", str(tmp_path / "flags")])
        == 0
    )
    capsys.readouterr()
    serial, jobs, flags = (
        json.loads((tmp_path / d / "results.json").read_text()) for d in ("serial", "jobs", "flags")
    )
    assert jobs["config"].pop("max_memory") == 64 * 2**20
    assert flags["config"].pop("max_memory") == 32 * 10**6
    assert serial["config"].pop("max_memory") == 256 * 2**20
    for results in (serial, jobs, flags):
        results.pop("created")
        assert "jobs" not in results["config"] and "executor" not in results["config"]
    assert jobs == serial and flags == serial

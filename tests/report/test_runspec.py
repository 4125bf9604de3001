"""One run specification (reportgen.report.runspec): every option resolved once into
typed values, the config file read once per run, and a report notebook run again by hand
resolving its parameters to the run's values."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reportgen import config as declared
from reportgen.analysis import AnalysisOptions, ReleaseSpec
from reportgen.cli import main
from reportgen.data import LoadOptions, TableConfig
from reportgen.errors import ConfigError, InputError
from reportgen.execution import Execution
from reportgen.report.runspec import ReportOptions, RunSpec, resolve_run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three systems on 40 items of two datasets (a hand-made edge case: small, so the
    commands below run in seconds)."""
    rng = np.random.default_rng(3)
    rows = [
        {"system": s, "dataset": d, "item": f"{d}-{i}", "score": float(rng.random() < p + q)}
        for d, q in (("easy", 0.2), ("hard", -0.2))
        for s, p in (("old", 0.5), ("new", 0.6), ("other", 0.45))
        for i in range(40)
    ]
    path = tmp_path_factory.mktemp("data") / "scores.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.fixture
def config(tmp_path: Path, scores: Path) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(
        f'[input]\ndata = ["{scores.as_posix()}"]\nnan_policy = "raise"\n'
        "[analysis]\nseed = 11\nalpha = 0.01\nn_resamples = 199\njobs = 2\n"
        'max_memory = "64MiB"\n'
        '[report]\ntitle = "From the config"\nformats = ["html"]\nmax_table_rows = 12\n'
        '[metrics.score]\ndirection = "higher"\n',
        encoding="utf-8",
    )
    return path


def test_resolve_run_takes_the_given_value_then_the_configs_then_the_declared_default(
    config: Path, scores: Path
) -> None:
    spec = resolve_run(
        config=str(config),
        analysis={"alpha": 0.05, "n_resamples": 99},  # alpha wins over the config's
        report={"theme": "print", "max_table_rows": None},  # None: not given
        release_report=False,
    )
    assert isinstance(spec, RunSpec)
    assert isinstance(spec.config, TableConfig) and spec.config_path == str(config)
    assert spec.data == (str(scores),)  # [input] data
    assert isinstance(spec.load, LoadOptions) and spec.load.nan_policy == "raise"
    assert isinstance(spec.analysis, AnalysisOptions)
    assert (spec.analysis.alpha, spec.analysis.seed, spec.analysis.n_resamples) == (0.05, 11, 99)
    assert spec.analysis.max_memory == 64 * 2**20
    assert spec.analysis.correction == declared.default("correction")
    assert spec.execution == Execution(jobs=2)  # [analysis] jobs is where the work runs
    assert spec.report == ReportOptions(
        title="From the config", theme="print", formats=("html",), max_table_rows=12
    )
    assert spec.release is None and spec.template is None
    # a given 0 or False is a value, not "not given"
    assert (
        resolve_run(config=str(config), analysis={"seed": 0}, release_report=False).analysis.seed
        == 0
    )


def test_resolve_run_reads_text_as_the_flags_read_it() -> None:
    spec = resolve_run(
        [str(EXAMPLE)],
        load={"metric": "pass:higher", "max_input_bytes": "1GiB", "direction": ["x=lower"]},
        analysis={"max_memory": "512MB", "jobs": "auto", "seed": 1},
        report={"formats": "html, PDF", "fail_on_regression": True},
        release_report=False,
    )
    # --metric NAME:lower is --direction NAME=lower; the metric is not renamed
    assert spec.load.metric is None and spec.load.direction == ("x=lower", "pass=higher")
    assert spec.load.max_input_bytes == 2**30
    assert spec.analysis.max_memory == 512 * 10**6
    assert spec.execution.jobs == 0  # one per core
    assert spec.report.formats == ("html", "pdf")
    assert spec.report.gate == "regression"  # --fail-on-regression
    # no seed given: one drawn, once, and kept
    drawn = resolve_run([str(EXAMPLE)], release_report=False).analysis.seed
    assert isinstance(drawn, int) and 0 <= drawn < 2**63


def test_resolve_run_makes_the_release_spec_and_family() -> None:
    spec = resolve_run(
        [str(EXAMPLE)],
        analysis={"seed": 1, "baseline": "old"},
        report={"candidate": "new", "release": "v2", "gate": "non-inferiority"},
        release_report=True,
    )
    assert spec.release == ReleaseSpec("old", "new", "v2", "non-inferiority", False)
    # the baseline moves to the release; the family is the release's comparisons
    assert spec.analysis.baseline is None and spec.analysis.correct_across == "all"
    given = resolve_run(
        [str(EXAMPLE)], analysis={"correct_across": "sample-list"}, release_report=True
    )
    assert given.analysis.correct_across == "sample-list"  # a family given is kept
    # the template says whether the run compares a release
    from reportgen import resources

    found = resolve_run([str(EXAMPLE)], report={"template": "release"})
    assert found.template == resources.notebook_template("release")
    assert found.release == ReleaseSpec()
    assert resolve_run([str(EXAMPLE)]).release is None


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"analysis": {"alpah": 0.1}}, InputError, r"unknown analysis option: alpah"),
        ({"load": {"score_column": "s"}}, InputError, r"unknown input option: score_column"),
        ({"report": {"formats": "html,doc"}}, InputError, r"--format 'html,doc': unknown"),
        ({"report": {"formats": ()}}, InputError, r"unknown report formats: \(none\)"),
        (
            {"report": {"gate": "non-inferiority", "fail_on_regression": True}},
            InputError,
            "--fail-on-regression and --gate non-inferiority disagree",
        ),
        ({"report": {"gate": "strict"}}, InputError, "unknown gate 'strict'"),
        ({"report": {"max_table_rows": 0}}, InputError, "max_table_rows = 0 must be at least 1"),
        ({"report": {"title": "a\nb"}}, InputError, "--title contains a control character"),
        ({"analysis": {"jobs": "x"}}, ConfigError, "--jobs 'x' is not valid"),
        (
            {"analysis": {"scheduler": "tcp://a:1"}},
            ConfigError,
            "--scheduler 'tcp://a:1' needs --executor dask",
        ),
        ({"execution": {"workers": 2}}, InputError, r"unknown execution option: workers"),
        ({"analysis": {"max_memory": "12"}}, InputError, "below the minimum of 1 MiB"),
        ({"load": {"text_limit": 0}}, InputError, "text_limit = 0 is not a whole number"),
        ({"analysis": {"alpha": 1.5}}, InputError, "alpha=1.5 must be between 0 and 1"),
        ({"report": {"template": "nosuch"}}, InputError, "unknown notebook template 'nosuch'"),
    ],
)
def test_resolve_run_input_validation(kwargs: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        resolve_run([str(EXAMPLE)], **kwargs)


def test_resolve_run_without_data_is_an_error_unless_none_is_needed() -> None:
    with pytest.raises(InputError, match="no data given"):
        resolve_run(release_report=False)
    assert resolve_run((), release_report=False, require_data=False).data == ()


class _CountingToml:
    """``tomllib`` with its parses counted: the config loader's only way to read TOML."""

    def __init__(self, real: Any) -> None:
        self.real, self.parses = real, 0
        self.TOMLDecodeError = real.TOMLDecodeError

    def loads(self, text: str) -> Any:
        self.parses += 1
        return self.real.loads(text)


@pytest.fixture
def toml_parses(monkeypatch: pytest.MonkeyPatch) -> _CountingToml:
    from reportgen.data import _config

    counting = _CountingToml(_config.tomllib)
    monkeypatch.setattr(_config, "tomllib", counting)
    return counting


@pytest.mark.integration
@pytest.mark.parametrize(
    "command",
    [
        ["inspect", "--json"],
        ["analyze", "--n-resamples", "99", "--seed", "1", "--out", "{out}"],
        ["compare", "old", "new", "--seed", "1"],
    ],
)
def test_the_config_file_is_parsed_once_per_command(
    command: list[str], config: Path, scores: Path, tmp_path: Path, toml_parses: _CountingToml
) -> None:
    # reference: a count of the TOML parses (the config loader's tomllib.loads)
    argv = [part.replace("{out}", str(tmp_path / "out")) for part in command]
    if argv[0] == "compare":  # two system names, then the data (compare reads no [input])
        argv.insert(3, str(scores))
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*argv, "--config", str(config)]) == 0
    assert toml_parses.parses == 1


class _Stop(Exception):
    """Raised where the notebook would start: the run's own process is done with its
    options and its data by then."""


@pytest.mark.integration
def test_the_config_file_is_parsed_once_per_run(
    config: Path, tmp_path: Path, toml_parses: _CountingToml, monkeypatch: pytest.MonkeyPatch
) -> None:
    # reference: a count of the TOML parses in `reportgen run`'s process, up to the
    # notebook (which takes the analysis over and reads no config)
    from reportgen.report import pipeline

    seen: list[Any] = []

    class NoKernel:
        def __init__(self, kernel_name: str | None = None) -> None:
            pass

        def close(self, *, now: bool = False) -> None:
            pass

    def build_report_folder(build: Path, out: Path, **kwargs: Any) -> Any:
        seen.append(kwargs["parameters"](build))
        raise _Stop

    monkeypatch.setattr(pipeline, "WarmKernel", NoKernel)
    monkeypatch.setattr(pipeline, "build_report_folder", build_report_folder)
    out = tmp_path / "report"
    with pytest.raises(_Stop):
        main(["run", "--config", str(config), "--out", str(out), "--n-resamples", "99", "--quiet"])
    assert toml_parses.parses == 1
    assert not out.exists()  # nothing half-written
    [parameters] = seen
    # the notebook is handed the options as resolved: the config's, the flag's
    assert parameters["config"] == str(config)
    assert parameters["analysis_options"]["seed"] == 11
    assert parameters["analysis_options"]["n_resamples"] == 99  # the flag wins
    assert parameters["max_table_rows"] == 12 and parameters["title"] == "From the config"
    assert parameters["execution"] == {"executor": "local", "jobs": 2, "scheduler": None}


def test_bad_options_of_run_stop_its_early_kernel_at_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `reportgen run` starts the notebook's kernel before resolving its options (the
    # start overlaps the imports); options that fail kill it at once, and exit 2
    from reportgen.report import pipeline

    closed: list[bool] = []

    class Kernel:
        def __init__(self, kernel_name: str | None = None) -> None:
            pass

        def close(self, *, now: bool = False) -> None:
            closed.append(now)

    monkeypatch.setattr(pipeline, "WarmKernel", Kernel)
    assert main(["run", str(EXAMPLE), "--jobs", "x", "--quiet"]) == 2
    assert "--jobs 'x' is not valid" in capsys.readouterr().err
    assert closed == [True]


@pytest.mark.integration
@pytest.mark.parametrize("release_report", [False, True])
def test_a_notebook_run_again_by_hand_resolves_the_options_the_run_resolved(
    release_report: bool, config: Path, tmp_path: Path
) -> None:
    # reference: the run's own RunSpec; the notebook's parameters (what `reportgen run`
    # hands over) resolved again by `prepare`, without the handed-over analysis, give the
    # same typed options and the same comparisons
    from reportgen.report import sections as rs
    from reportgen.report.pipeline import _notebook_parameters
    from reportgen.report.prepared import load_and_analyse

    spec = resolve_run(
        config=str(config),
        analysis={"n_resamples": 99, "jobs": 1, "baseline": "old"},
        report={"candidate": "new"},
        release_report=release_report,
    )
    prepared = load_and_analyse(spec, reraise=False)
    parameters = _notebook_parameters(
        spec, "title", prepared.release, (tmp_path / "gone.pickle", "0" * 64), tmp_path
    )
    kwargs = {k: v for k, v in parameters.items() if k != "output_dir"}
    if release_report:
        kwargs["release_report"] = True
    report = rs.prepare(**kwargs, output_dir=str(tmp_path))
    try:
        assert report.analysis.options == prepared.analysis.options
        assert (
            report.analysis.to_results()["comparisons"]
            == prepared.analysis.to_results()["comparisons"]
        )
        assert report.baseline == (prepared.release.baseline if release_report else None)
    finally:
        report.close()


def test_resolve_run_imports_nothing_when_the_module_loads() -> None:
    # the CLI parser and `reportgen inspect` stay light: the module needs no numpy
    import subprocess

    code = (
        "import sys\nimport reportgen.report.runspec\n"
        "print(sorted(m for m in ('numpy', 'pandas', 'scipy') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"

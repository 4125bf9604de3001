"""The one run path (reportgen.report.prepared): the data are loaded and analysed once,
in the command's process, and the notebook takes the analysis over; a template's own
bad-input error is the user's error (exit 2), not a failed run."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from reportgen.analysis import AnalysisOptions, ReleaseSpec, analyze
from reportgen.cli import main
from reportgen.data import load
from reportgen.errors import InputError
from reportgen.report.prepared import HANDOVER_NAME, hand_over, load_and_analyse, take_over
from reportgen.report.runspec import resolve_run


def _spec(data: list[str], *, release: bool = False, **analysis):
    return resolve_run(data, analysis=analysis, release_report=release)


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(5)
    rows = [
        {"system": s, "item": f"q{i}", "score": float(rng.random() < p)}
        for s, p in (("old", 0.55), ("new", 0.7), ("other", 0.5))
        for i in range(60)
    ]
    path = tmp_path_factory.mktemp("data") / "scores.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_load_and_analyse_gives_what_load_then_analyze_give(scores: Path) -> None:
    # reference: the two library calls the CLI made before, one after the other
    options = AnalysisOptions(seed=3, n_resamples=199)
    expected = analyze(load([str(scores)]), options).to_results()
    got = load_and_analyse(_spec([str(scores)], seed=3, n_resamples=199))
    assert got.analysis.to_results()["comparisons"] == expected["comparisons"]
    assert got.analysis.to_results()["systems"] == expected["systems"]
    assert set(got.timings) == {"load", "analysis"}
    assert got.release is None


def test_release_spec_is_resolved_once_against_the_data(scores: Path) -> None:
    spec = resolve_run(
        [str(scores)],
        analysis={"seed": 3, "n_resamples": 199, "baseline": "old"},
        report={"release": "new", "gate": "regression"},
        release_report=True,
    )
    assert spec.release == ReleaseSpec("old", None, "new", "regression", False)
    got = load_and_analyse(spec)
    # the release label names a system: it is the candidate (resolve_release_systems)
    assert got.release == ReleaseSpec("old", "new", "new", "regression", False)
    assert got.release.title() == "Release new: new against old"
    assert got.analysis.release is not None
    with pytest.raises(InputError, match="unknown gate"):
        ReleaseSpec(gate="strict")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="not a system"):
        load_and_analyse(
            resolve_run(
                [str(scores)],
                analysis={"baseline": "olld"},
                report={"candidate": "new"},
                release_report=True,
            )
        )


def test_hand_over_is_read_only_with_its_digest(scores: Path, tmp_path: Path) -> None:
    prepared = load_and_analyse(_spec([str(scores)], seed=1, n_resamples=199))
    path, digest = hand_over(prepared, tmp_path)
    assert path == tmp_path / HANDOVER_NAME
    back = take_over(path, digest)
    assert back is not None
    assert back.analysis.to_results() == prepared.analysis.to_results()
    assert take_over(path, "0" * 64) is None  # a file that is not the one handed over
    assert take_over(path, "") is None
    assert take_over(tmp_path / "gone.pickle", digest) is None


def test_prepare_takes_the_analysis_over_instead_of_loading(scores: Path, tmp_path: Path) -> None:
    from reportgen.report import sections as rs

    prepared = load_and_analyse(_spec([str(scores)], seed=2, n_resamples=199))
    path, digest = hand_over(prepared, tmp_path)
    # the data argument names nothing: loading would fail, taking over does not
    report = rs.prepare(
        [str(tmp_path / "nowhere.csv")],
        output_dir=str(tmp_path),
        analysis_file=str(path),
        analysis_sha256=digest,
    )
    assert (
        report.analysis.to_results()["comparisons"]
        == (prepared.analysis.to_results()["comparisons"])
    )
    # without the file (a report notebook run again by hand) it loads and analyses
    with pytest.raises(InputError):
        rs.prepare(
            [str(tmp_path / "nowhere.csv")],
            output_dir=str(tmp_path),
            analysis_file=str(tmp_path / "gone.pickle"),
            analysis_sha256=digest,
        )


def test_a_templates_input_error_exits_2_and_writes_nothing(
    scores: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("data = []\noutput_dir = ''")
    params.metadata["tags"] = ["parameters"]
    failing = nbformat.v4.new_code_cell(
        "from reportgen.errors import InputError\n"
        "raise InputError(\"column 'score' holds text\", hint='give numbers')"
    )
    failing.metadata["reportgen"] = {"section": "analysis"}
    nb.cells = [params, failing]
    template = tmp_path / "mine.ipynb"
    nbformat.write(nb, str(template))
    code = main(["run", str(scores), "--out", str(tmp_path / "r0"), "--template", str(template)])
    assert code == 2
    assert "names no language" in capsys.readouterr().err
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, str(template))
    out = tmp_path / "report"
    code = main(["run", str(scores), "--out", str(out), "--template", str(template), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "column 'score' holds text (section 'analysis', code cell 2 of the template)" in err
    assert "hint: give numbers" in err
    assert "Traceback" not in err
    assert not out.exists()
    assert not (tmp_path / "report.failed.ipynb").exists()
    assert json.loads(template.read_text())  # the template itself is untouched


def test_report_and_notebook_name_no_private_absolute_path(
    scores: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "home" / "someone" / "project"
    work.mkdir(parents=True)
    (work / "scores.csv").write_bytes(scores.read_bytes())
    monkeypatch.chdir(work)
    code = main(["run", "scores.csv", "--out", "rep", "--format", "html,ipynb", "--quiet"])
    assert code == 0
    private = str(work)
    for name in ("report.html", "report.ipynb"):
        text = (work / "rep" / name).read_text(encoding="utf-8")
        assert private not in text, name
        assert "scores.csv" in text
    manifest = json.loads((work / "rep" / "manifest.json").read_text(encoding="utf-8"))
    # provenance keeps the resolved path
    assert manifest["inputs"][0]["resolved"] == [str(work / "scores.csv")]


def test_a_bundled_template_name_wins_over_a_folder_of_that_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `reportgen run release/ --template release`: the results folder named like the
    # template must not shadow the bundled template
    from reportgen import resources
    from reportgen.report.pipeline import resolve_template

    monkeypatch.chdir(tmp_path)
    (tmp_path / "release").mkdir()
    (tmp_path / "evaluation").write_text("not a notebook")
    assert resolve_template("release") == resources.notebook_template("release")
    assert resolve_template("evaluation") == resources.notebook_template("evaluation")
    # a path names one's own template: ./release is a folder, so it is refused
    with pytest.raises(InputError, match="notebook template not found"):
        resolve_template("./release")
    own = tmp_path / "release.ipynb"  # one's own copy, named by its file
    nb = nbformat.v4.new_notebook()
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, own)
    assert resolve_template("./release.ipynb") == Path("release.ipynb")

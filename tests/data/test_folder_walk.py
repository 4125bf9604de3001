"""Folders above the logs: a folder no adapter claims is walked (bounded depth, symbolic
link loops, build folders skipped, DeepEval's hidden folder searched), every evaluation
file found is read, and the files not read are listed with the reason; with nothing
found, the error names the subfolders holding candidate files.

The inputs are the real harness outputs of tests/fixtures/real, copied into folder trees.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.data import LoadOptions, load
from reportgen.data.adapters import MAX_WALK_DEPTH, detect_format, read_inputs
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _tree(tmp_path: Path) -> Path:
    """A project folder holding several harnesses' outputs at different depths."""
    root = tmp_path / "project"
    shutil.copytree(REAL / "evalplus" / "0.3.1" / "greedy", root / "code" / "greedy")
    shutil.copytree(REAL / "evalplus" / "0.3.1" / "sampled", root / "code" / "runs" / "sampled")
    shutil.copytree(REAL / "deepeval" / "4.3.1" / "good", root / "rag" / "good")
    shutil.copytree(REAL / "deepeval" / "4.3.1" / "bad", root / "rag" / "bad")
    shutil.copytree(REAL / "lighteval" / "0.13.0" / "out", root / "lighteval-out")
    return root


def test_walk_reads_every_harness_output_below(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    results = read_inputs(root)
    formats = sorted(r.format for r in results)
    assert formats == ["deepeval", "deepeval", "evalplus", "evalplus", "lighteval"]
    table = load(root)
    assert {"toy-greedy", "toy-sampled", "toy-good", "toy-bad", "toy/good", "toy/bad"} == set(
        table.systems
    )
    # the samples EvalPlus read are not results: listed as skipped, with the reason
    skipped = {Path(s.path).name: s.reason for s in table.skipped_inputs}
    assert "toy-greedy.jsonl" in skipped
    assert skipped["toy-greedy.jsonl"].startswith("not read: cannot tell the format")


def test_walk_skips_build_folders_hidden_folders_and_symlink_loops(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    # results inside .git, node_modules, __pycache__ and a virtualenv are not read
    for junk in (".git", "node_modules", "__pycache__", ".venv", ".cache"):
        shutil.copytree(REAL / "evalplus" / "0.3.1" / "greedy", root / junk / "x")
    # a link back to the root: searched once
    os.symlink(root, root / "code" / "loop")
    table = load(root)
    files = {Path(f["path"]).parts[-3] for s in table.sources for f in s["files"]}
    assert not files & {".git", "node_modules", "__pycache__", ".venv", ".cache"}
    assert any("symbolic link back" in s.reason for s in table.skipped_inputs)
    # each result is read once
    assert len(table.frame.query("system == 'toy-greedy'")) == 8


def test_walk_depth_is_bounded(tmp_path: Path) -> None:
    deep = tmp_path / "top"
    folder = deep
    for level in range(MAX_WALK_DEPTH + 1):
        folder = folder / f"l{level}"
    shutil.copytree(REAL / "evalplus" / "0.3.1" / "greedy", folder)
    with pytest.raises(InputError, match="holds no evaluation results"):
        load(deep)
    shutil.copytree(REAL / "evalplus" / "0.3.1" / "sampled", deep / "l0" / "sampled")
    table = load(deep, min_systems=1)
    assert table.systems == ("toy-sampled",)
    assert any("levels deep" in s.reason for s in table.skipped_inputs)


def test_walk_tables_only_at_the_top(tmp_path: Path) -> None:
    # a CSV in a subfolder is not a harness's output: listed, not read as a wide table
    root = tmp_path / "r"
    shutil.copytree(REAL / "evalplus" / "0.3.1" / "greedy", root / "a")
    shutil.copytree(REAL / "evalplus" / "0.3.1" / "sampled", root / "b")
    (root / "a" / "data.csv").write_text("x,y\n1,2\n3,4\n")
    table = load(root)
    (skip,) = [s for s in table.skipped_inputs if s.path.endswith("data.csv")]
    assert "a wide table in a subfolder" in skip.reason


def test_nothing_found_names_the_subfolders_with_candidates(tmp_path: Path, capsys) -> None:
    root = tmp_path / "logs"
    (root / "run1").mkdir(parents=True)
    (root / "run2" / "deeper").mkdir(parents=True)
    for name in ("run1/a.json", "run1/b.json", "run2/deeper/c.jsonl"):
        (root / name).write_text('{"hello": 1}\n')
    assert main(["inspect", str(root)]) == 2
    err = capsys.readouterr().err
    assert "the folder holds no evaluation results reportgen can read" in err
    assert "run1 (2 files)" in err and "run2/deeper (1 file)" in err
    with pytest.raises(InputError):
        load(root, options=LoadOptions(strict_inputs=True))


def test_inspect_lists_the_files_read_and_skipped(tmp_path: Path, capsys) -> None:
    root = _tree(tmp_path)
    assert main(["inspect", str(root)]) == 0
    out = capsys.readouterr().out
    assert "evalplus" in out and "deepeval" in out and "lighteval" in out
    assert "skipped: not read: cannot tell the format" in out
    assert "toy-greedy.jsonl" in out


def test_walk_finds_inspect_logs_and_helm_runs_below(tmp_path: Path) -> None:
    # an Inspect logs/ folder and a HELM benchmark_output/ two and three levels down
    root = tmp_path / "experiments"
    shutil.copytree(REAL / "inspect" / "eval_set-0.3.285", root / "inspect" / "logs")
    shutil.copytree(REAL / "helm" / "suite-0.5.16" / "benchmark_output", root / "helm" / "out")
    formats = sorted(r.format for r in read_inputs(root))
    assert formats == ["helm", "inspect"]
    table = load(root)
    assert {"toy/good", "toy/mid", "toy/bad"} <= set(table.systems)


def test_a_question_answer_dataset_is_not_a_ragas_result(tmp_path: Path) -> None:
    # the task data lm-eval read (question, answer): no metric column, so no format
    data = REAL / "lm_eval" / "v0.4.8-custom" / "make" / "tasks" / "tiny_reg.jsonl"
    with pytest.raises(InputError, match="cannot tell the format"):
        detect_format(data)

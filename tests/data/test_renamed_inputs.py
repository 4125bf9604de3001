"""Files as users keep them: real harness outputs renamed and regrouped.

Detection reads content, never the file name (issue 43, item 1): an lm-eval results file
renamed as users rename it (``truthfulqa_gen_neo125_<timestamp>.json``), alone, in its
folder or without its date; a samples file given alone is named with what to give
instead. Systems of formats that record none are named after their folders when their
file names clash (item 2). The reference for each renamed file is the same file read
under its original name: the rows must be identical.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import detect_format, get_adapter, read_inputs
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
LM_EVAL = REAL / "lm_eval" / "v0.4.8-custom" / "sys-a" / "toy-a"
LM_EVAL_TS = "2026-11-26T12-59-51.837365"
LIGHTEVAL = REAL / "lighteval" / "0.13.0" / "out"
EVALPLUS = REAL / "evalplus" / "0.3.1"


def _rows(frame: pd.DataFrame) -> list[tuple]:
    columns = ["system", "dataset", "metric", "item", "score"]
    return sorted(frame[columns].itertuples(index=False, name=None), key=repr)


def _copy_lm_eval(tmp_path: Path, results_name: str) -> Path:
    folder = tmp_path / "neo125"
    shutil.copytree(LM_EVAL, folder)
    (folder / f"results_{LM_EVAL_TS}.json").rename(folder / results_name)
    return folder


@pytest.mark.parametrize(
    "name",
    [f"truthfulqa_gen_neo125_{LM_EVAL_TS}.json", "neo125.json", f"results-{LM_EVAL_TS}.json"],
)
def test_renamed_lm_eval_results_file_against_the_original(tmp_path: Path, name: str) -> None:
    # reference: the same results and samples read under lm-eval's own names
    original = get_adapter("lm-eval").read(LM_EVAL, LoadOptions())
    folder = _copy_lm_eval(tmp_path, name)
    renamed = folder / name
    assert detect_format(renamed).name == "lm-eval"
    for given in (renamed, folder):  # the file alone (samples beside it), or its folder
        (result,) = read_inputs(given)
        assert result.format == "lm-eval"
        assert _rows(result.frame) == _rows(original.frame)


def test_lm_eval_samples_file_alone_is_named_with_what_to_give(tmp_path: Path) -> None:
    folder = _copy_lm_eval(tmp_path, f"truthfulqa_gen_neo125_{LM_EVAL_TS}.json")
    samples = folder / f"samples_tiny_reg_{LM_EVAL_TS}.jsonl"
    expected = (
        r"this is an lm-evaluation-harness samples file \(the per-document records of task "
        r"'tiny_reg' that --log_samples writes\), not a results file"
    )
    with pytest.raises(InputError, match=expected) as detected:
        detect_format(samples)
    assert f"truthfulqa_gen_neo125_{LM_EVAL_TS}.json" in str(detected.value.hint)
    # forced: the same message, not "invalid JSON: Extra data" on line 2
    with pytest.raises(InputError, match=expected):
        load(samples, options=LoadOptions(format="lm-eval"), min_systems=1)
    # given with its results file it is read as part of the run
    table = load([folder / f"truthfulqa_gen_neo125_{LM_EVAL_TS}.json", samples], min_systems=1)
    assert "tiny_reg" in table.datasets
    # alone in a folder without results: the walk skips it with the same reason
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    shutil.copy(samples, lonely / samples.name)
    with pytest.raises(InputError, match="no evaluation results") as walked:
        load(lonely)
    assert "lm-evaluation-harness samples file" in str(walked.value.hint)


def test_renamed_lighteval_results_file_against_the_original(tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(LIGHTEVAL, out)
    results = next((out / "results" / "toy" / "good").glob("results_*.json"))
    time = results.stem.removeprefix("results_")
    renamed = results.with_name(f"toy-good_{time}.json")
    results.rename(renamed)
    original = get_adapter("lighteval").read(
        next((LIGHTEVAL / "results" / "toy" / "good").glob("results_*.json")), LoadOptions()
    )
    assert detect_format(renamed).name == "lighteval"
    (result,) = read_inputs(renamed)
    assert _rows(result.frame) == _rows(original.frame)
    # its output folder is still one lighteval input
    assert {r.format for r in read_inputs(out)} == {"lighteval"}


def test_renamed_evalplus_results_file_is_detected(tmp_path: Path) -> None:
    source = EVALPLUS / "greedy" / "toy-greedy_eval_results.json"
    renamed = tmp_path / "humaneval_plus_greedy.json"
    shutil.copy(source, renamed)
    assert detect_format(renamed).name == "evalplus"
    (result,) = read_inputs(renamed)
    original = get_adapter("evalplus").read(source, LoadOptions())
    assert _rows(result.frame.assign(system="x")) == _rows(original.frame.assign(system="x"))


def _evalplus_per_folder(tmp_path: Path) -> Path:
    # what `evalplus.evaluate --samples samples.jsonl` writes, one folder per model
    root = tmp_path / "runs"
    for name, source in (("sys-a", "greedy/toy-greedy"), ("sys-b", "sampled/toy-sampled")):
        (root / name).mkdir(parents=True)
        shutil.copy(
            EVALPLUS / f"{source}_eval_results.json", root / name / "samples_eval_results.json"
        )
    return root


def test_evalplus_systems_from_folders_when_file_names_clash(tmp_path: Path) -> None:
    root = _evalplus_per_folder(tmp_path)
    table = load(root)
    assert set(table.systems) == {"sys-a", "sys-b"}
    rule = [p.message for p in table.problems if "named after the folders" in p.message]
    assert len(rule) == 1 and "'sys-a'" in rule[0] and "--system" in rule[0]
    # the sampled run's note names its new system
    assert any("for 'sys-b'" in p.message for p in table.problems)
    # a name the user gives is never changed, even where it clashes
    given = read_inputs(
        sorted(root.glob("*/samples_eval_results.json")), LoadOptions(system="mine")
    )
    assert [set(r.frame["system"]) for r in given] == [{"mine"}, {"mine"}]


def test_folder_names_go_up_until_the_folders_differ(tmp_path: Path) -> None:
    for lab in ("lab-1", "lab-2"):
        (tmp_path / lab / "run").mkdir(parents=True)
        shutil.copy(
            EVALPLUS / "greedy" / "toy-greedy_eval_results.json",
            tmp_path / lab / "run" / "eval_results.json",
        )
    table = load([tmp_path / "lab-1" / "run", tmp_path / "lab-2" / "run"])
    assert set(table.systems) == {"lab-1/run", "lab-2/run"}


def test_ragas_tables_of_one_name_in_two_folders(tmp_path: Path) -> None:
    for name, source in (("bm25", "bm25.csv"), ("dense", "dense.jsonl")):
        (tmp_path / name).mkdir()
        suffix = Path(source).suffix
        shutil.copy(REAL / "ragas" / "0.2.15" / source, tmp_path / name / f"result{suffix}")
    table = load([tmp_path / "bm25" / "result.csv", tmp_path / "dense" / "result.jsonl"])
    assert set(table.systems) == {"bm25", "dense"}


#: A real file of each harness, the format detection must find once it is renamed.
RENAMED = [
    (REAL / "promptfoo" / "tds-project-1" / "promptfoo_results.json", "promptfoo"),
    (REAL / "deepeval" / "4.3.1" / "good" / ".deepeval" / ".latest_test_run.json", "deepeval"),
    (
        next((REAL / "every_eval_ever" / "v0.3.0-inspect").rglob("*_samples.jsonl")),
        "every-eval-ever",
    ),
    (
        REAL / "inspect" / "arc_easy-0.3.138" / "data_arc_qwen.json",
        "inspect",
    ),
    (REAL / "mt_bench" / "phi-3-dpo" / "model_judgment" / "gpt-4_pair.jsonl.gz", "mt-bench"),
    (REAL / "arena" / "genai-arena-20240220" / "clean_battle_20240220.json.gz", "arena-battles"),
]


@pytest.mark.parametrize("source, expected", RENAMED, ids=[f for _, f in RENAMED])
def test_renamed_harness_files_are_detected_from_content(
    tmp_path: Path, source: Path, expected: str
) -> None:
    suffix = ".jsonl.gz" if source.name.endswith(".jsonl.gz") else "".join(source.suffixes[-2:])
    suffix = suffix if suffix.startswith(".json") else source.suffix
    renamed = tmp_path / f"my-run-2026{suffix}"
    shutil.copy(source, renamed)
    assert detect_format(renamed).name == expected


@pytest.mark.parametrize(
    "source, message",
    [
        (
            REAL
            / "helm"
            / "eee"
            / "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
            / "per_instance_stats.json",
            "this looks like a HELM per_instance_stats.json under another name",
        ),
        (
            REAL
            / "helm"
            / "eee"
            / "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
            / "run_spec.json",
            "this looks like a HELM run_spec.json under another name",
        ),
        (
            next((REAL / "opencompass" / "0.5.4" / "out").glob("*/results/toy-good/toy_add.json")),
            "this looks like an OpenCompass results file",
        ),
    ],
    ids=["helm-stats", "helm-run-spec", "opencompass-results"],
)
def test_harness_files_out_of_their_folders_are_refused_with_what_to_do(
    tmp_path: Path, source: Path, message: str
) -> None:
    # a file whose run folder names its model cannot be read alone: said so, and how
    moved = tmp_path / "gpt2_mmlu.json"
    shutil.copy(source, moved)
    with pytest.raises(InputError, match=message) as exc:
        load(moved)
    assert "pass" in str(exc.value.hint)

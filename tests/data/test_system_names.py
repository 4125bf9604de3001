"""``--system FILE=NAME`` (issue 44, item 4): FILE matches the input as the user typed
it (relative, absolute, with or without its folders and suffix); the text is split at
the last ``=`` whose left side names an input, so a NAME may hold ``=``; a mapping that
matches no input is an error naming the inputs it could have meant, never a system
silently named after its file.

The inputs are the real Ragas tables and DeepEval runs of tests/fixtures/real (formats
that record no system name); the reference is the system names read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.data import LoadOptions, load
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
RAGAS = REAL / "ragas" / "0.2.15"


@pytest.fixture()
def results(tmp_path, monkeypatch) -> Path:
    """``results/bm25.csv`` and ``results/dense.jsonl`` under the working folder."""
    folder = tmp_path / "results"
    folder.mkdir()
    shutil.copy(RAGAS / "bm25.csv", folder / "bm25.csv")
    shutil.copy(RAGAS / "dense.jsonl", folder / "dense.jsonl")
    monkeypatch.chdir(tmp_path)
    return folder


def _systems(paths, system: str) -> list[str]:
    return sorted(load(paths, options=LoadOptions(system=system), min_systems=1).systems)


@pytest.mark.parametrize(
    "mapping",
    [
        "results/bm25.csv=BM25,results/dense.jsonl=Dense",  # as typed, relative
        "{abs}/bm25.csv=BM25,{abs}/dense.jsonl=Dense",  # absolute
        "./results/bm25.csv=BM25,dense=Dense",
        "results/bm25=BM25,results/dense=Dense",  # folders, without the suffix
        "bm25.csv=BM25,dense.jsonl=Dense",  # the bare name
        "bm25=BM25,dense=Dense",  # ... without its suffix
    ],
)
def test_file_matches_the_input_as_typed(results, mapping):
    # before: only the bare name matched; a path as typed named the system after its file
    text = mapping.format(abs=results)
    inputs = ["results/bm25.csv", "results/dense.jsonl"]
    assert _systems(inputs, text) == ["BM25", "Dense"]
    assert _systems(["results"], text) == ["BM25", "Dense"]  # found by the folder walk


@pytest.mark.parametrize(
    ("mapping", "key"),
    [
        ("bm52.csv=BM25,dense=Dense", "bm52.csv"),  # misspelt
        ("results/bm25.csv=BM25,other/dense.jsonl=Dense", "other/dense.jsonl"),
        ("results/bm25.csv=BM25", None),  # fine alone, checked below
        ("data/bm25.csv=BM25", "data/bm25.csv"),  # the wrong folder
    ],
)
def test_a_mapping_that_matches_no_input_is_an_error(results, mapping, key, capsys):
    # before: exit 0, the system named after its file without a word
    inputs = ["results/bm25.csv", "results/dense.jsonl"]
    if key is None:
        assert _systems(inputs, mapping) == ["BM25", "dense"]
        return
    assert main(["inspect", *inputs, "--system", mapping]) == 2
    err = capsys.readouterr().err
    assert f"FILE {key!r} of {mapping!r} names none of the inputs" in err
    assert "hint: the inputs: results/" in err and "results/dense.jsonl" in err
    assert "Traceback" not in err
    with pytest.raises(InputError, match="names none of the inputs"):
        load(inputs, options=LoadOptions(system=mapping))


def test_a_name_that_holds_an_equals_sign(results):
    # before: 'gpt=4' was read as FILE 'gpt', NAME '4', matched nothing and the system
    # was named after its file
    assert _systems(["results/bm25.csv"], "gpt=4") == ["gpt=4"]
    assert _systems(["results/bm25.csv"], "model=gpt,temperature=0") == ["model=gpt,temperature=0"]
    # after a FILE that names an input, the NAME may hold '=' too
    inputs = ["results/bm25.csv", "results/dense.jsonl"]
    assert _systems(inputs, "bm25=gpt=4,dense=k=8") == ["gpt=4", "k=8"]


def test_split_at_the_last_equals_sign_whose_left_side_names_an_input(tmp_path):
    # file names that hold '=' (as HELM-style run names do)
    shutil.copy(RAGAS / "bm25.csv", tmp_path / "retriever=bm25.csv")
    shutil.copy(RAGAS / "dense.jsonl", tmp_path / "retriever=dense.jsonl")
    inputs = [tmp_path / "retriever=bm25.csv", tmp_path / "retriever=dense.jsonl"]
    systems = _systems(inputs, "retriever=bm25.csv=BM25,retriever=dense=Dense")
    assert systems == ["BM25", "Dense"]


def test_a_deepeval_run_is_named_by_its_folder(tmp_path, capsys):
    runs = tmp_path / "runs"
    shutil.copytree(REAL / "deepeval" / "4.3.1" / "good", runs / "v1")
    shutil.copytree(REAL / "deepeval" / "4.3.1" / "bad", runs / "v2")
    for mapping in ("v1=first,v2=second", f"{runs}/v1=first,{runs / 'v2'}=second"):
        assert main(["inspect", str(runs), "--system", mapping, "--json"]) == 0
        assert set(json.loads(capsys.readouterr().out)["systems"]) == {"first", "second"}
    assert main(["inspect", str(runs), "--system", "v1=first,v3=third"]) == 2
    err = capsys.readouterr().err
    assert "FILE 'v3' of 'v1=first,v3=third' names none of the inputs" in err


def test_a_file_that_records_its_own_names_is_refused(tmp_path, capsys):
    lm_eval = REAL / "lm_eval" / "v0.4.5"
    shutil.copy(RAGAS / "bm25.csv", tmp_path / "bm25.csv")
    argv = ["inspect", str(lm_eval / "sys-a"), str(tmp_path / "bm25.csv")]
    assert main([*argv, "--system", "sys-a=Mine,bm25=BM25"]) == 2
    err = capsys.readouterr().err
    assert "FILE 'sys-a' of 'sys-a=Mine,bm25=BM25' names " in err
    assert "(lm-eval), which records its own system names" in err
    assert main([*argv, "--system", "bm25=BM25", "--json"]) == 0
    assert "BM25" in json.loads(capsys.readouterr().out)["systems"]


def test_an_empty_name_is_an_error(results):
    with pytest.raises(InputError, match="gives no NAME for 'bm25'"):
        load(["results/bm25.csv"], options=LoadOptions(system="bm25="))

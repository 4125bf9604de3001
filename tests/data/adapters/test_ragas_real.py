"""The Ragas adapter on tables Ragas 0.2.15 wrote (tests/fixtures/real/SOURCES.md): two
toy RAG pipelines evaluated with Ragas's non-LLM metrics, each result saved with
``to_pandas()`` as users do (``bm25.csv`` with ``to_csv``, ``dense.jsonl`` with
``to_json(orient="records", lines=True)``, ``hybrid.parquet`` with ``to_parquet``).

The independent reference is the aggregate Ragas itself printed for each evaluation
(``<pipeline>.aggregate.txt``, ``print(result)``, 4 decimals): the per-item means must
reproduce it.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pandas as pd
import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import detect_format, get_adapter

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "ragas" / "0.2.15"
BM25, DENSE, HYBRID = REAL / "bm25.csv", REAL / "dense.jsonl", REAL / "hybrid.parquet"


def _printed(pipeline: str) -> dict[str, float]:
    return ast.literal_eval((REAL / f"{pipeline}.aggregate.txt").read_text())


@pytest.mark.parametrize("path", [BM25, DENSE, HYBRID], ids=["csv", "jsonl", "parquet"])
def test_ragas_means_against_the_aggregate_ragas_printed(path: Path) -> None:
    assert detect_format(path).name == "ragas"
    result = get_adapter("ragas").read(path, LoadOptions())
    means = result.frame.groupby("metric")["score"].mean()
    printed = _printed(path.stem)
    assert set(means.index) == set(printed)  # the text columns are not metrics
    for metric, value in printed.items():
        assert round(means[metric], 4) == pytest.approx(value, abs=1e-12)
    assert set(result.frame["system"]) == {path.stem}


def test_ragas_two_pipelines_paired_on_the_questions() -> None:
    table = load([BM25, DENSE, HYBRID], options=LoadOptions(dataset="toy-qa"))
    assert set(table.systems) == {"bm25", "dense", "hybrid"}
    pairing = table.paired("toy-qa", "exact_match")
    assert pairing.scores.shape == (5, 3)
    assert "What is the capital of France?" in set(table.frame["item"])
    assert all(table.metrics[m].direction == "higher" for m in table.metrics)


def test_ragas_01_column_names_and_repeated_questions(tmp_path: Path) -> None:
    # Ragas 0.1 names the columns question, contexts, answer, ground_truth
    frame = (
        pd.read_csv(BM25)
        .rename(
            columns={
                "user_input": "question",
                "retrieved_contexts": "contexts",
                "response": "answer",
                "reference": "ground_truth",
            }
        )
        .drop(columns="reference_contexts")
    )
    path = tmp_path / "pipeline.csv"
    frame.to_csv(path, index=False)
    assert detect_format(path).name == "ragas"
    result = get_adapter("ragas").read(path, LoadOptions(system="v1"))
    assert set(result.frame["metric"]) == set(_printed("bm25"))
    assert set(result.frame["system"]) == {"v1"}
    # a question asked twice: the items are the rows
    pd.concat([frame, frame.iloc[:1]]).to_csv(path, index=False)
    result = get_adapter("ragas").read(path, LoadOptions())
    assert sorted(set(result.frame["item"]), key=int) == ["1", "2", "3", "4", "5", "6"]
    assert any("repeats" in p.message for p in result.problems)


def test_ragas_folder_of_pipelines(tmp_path: Path) -> None:
    runs = tmp_path / "rag-eval"
    runs.mkdir()
    for path in (BM25, DENSE):
        shutil.copy(path, runs / path.name)
    table = load(runs)
    assert table.datasets == ("rag-eval",)
    assert set(table.systems) == {"bm25", "dense"}


def test_wide_table_text_columns_are_not_systems(tmp_path: Path) -> None:
    # a per-item table of two systems with the question and reference beside them: the
    # text is the items' content, never a score
    frame = pd.read_csv(BM25)
    wide = pd.DataFrame(
        {
            "question": frame["user_input"],
            "reference": frame["reference"],
            "bm25": frame["exact_match"],
            "dense": pd.read_json(DENSE, lines=True)["exact_match"],
        }
    )
    path = tmp_path / "exact_match.csv"
    wide.to_csv(path, index=False)
    result = get_adapter("wide").read(path, LoadOptions())
    assert set(result.frame["system"]) == {"bm25", "dense"}
    (note,) = result.problems
    assert "'question', 'reference'" in note.message


def test_a_long_table_with_question_and_answer_columns_stays_long(tmp_path: Path) -> None:
    # the Ragas scores as a long table whose item metadata include the question and
    # the answer: the long table's columns decide
    frame = pd.read_csv(BM25)
    long = frame.melt(
        id_vars=["user_input", "response"],
        value_vars=["exact_match", "string_present"],
        var_name="metric",
        value_name="score",
    ).assign(system="bm25", item=lambda d: d["user_input"])
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    assert detect_format(path).name == "long"


def test_missing_value_markers_are_not_text(tmp_path: Path) -> None:
    # a system column of "N/A" cells is a system not scored, not text: validation says so
    path = tmp_path / "m.csv"
    path.write_text("question,A,B\nq1?,0.5,N/A\nq2?,0.25,N/A\n")
    result = get_adapter("wide").read(path, LoadOptions())
    assert set(result.frame["system"]) == {"A", "B"}
    assert "'question'" in result.problems[0].message

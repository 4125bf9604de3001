"""The bundled example data: reproducible from its generator and shaped as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import tomllib

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DATA = EXAMPLES / "data"
FILES = ("codecompletion.csv", "unittests_runs.csv")

CODE_COLUMNS = [
    "system",
    "dataset",
    "metric",
    "item",
    "score",
    "difficulty",
    "model",
    "prompt_format",
    "context_size",
]
RUN_COLUMNS = ["system", "dataset", "metric", "item", "run", "score", "difficulty"]
ITEMS_PER_DATASET = {"csharp": 240, "java": 360, "python": 520, "typescript": 300}
METRICS = {"edit_distance", "edit_similarity", "identifier_f1"}
N_SYSTEMS = 12


@pytest.fixture(scope="module")
def code() -> pd.DataFrame:
    return pd.read_csv(DATA / "codecompletion.csv")


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return pd.read_csv(DATA / "unittests_runs.csv")


def test_generate_reproduces_committed_files_byte_for_byte(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(EXAMPLES / "generate.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


def test_examples_total_size_is_small() -> None:
    assert sum((DATA / name).stat().st_size for name in FILES) < 6_000_000


def test_codecompletion_columns_and_counts(code: pd.DataFrame) -> None:
    assert list(code.columns) == CODE_COLUMNS
    assert code["system"].nunique() == N_SYSTEMS
    assert set(code["metric"]) == METRICS
    items = code.groupby("dataset")["item"].nunique().to_dict()
    assert items == ITEMS_PER_DATASET
    assert len(code) == N_SYSTEMS * len(METRICS) * sum(ITEMS_PER_DATASET.values())
    assert not code.isna().any().any()


def test_codecompletion_paired_within_dataset(code: pd.DataFrame) -> None:
    assert not code.duplicated(["system", "dataset", "metric", "item"]).any()
    cells = code.groupby(["dataset", "metric", "item"])["system"].nunique()
    assert (cells == N_SYSTEMS).all()


def test_codecompletion_items_disjoint_across_datasets(code: pd.DataFrame) -> None:
    per_item = code.groupby("item")["dataset"].nunique()
    assert (per_item == 1).all()


def test_codecompletion_metrics_in_range(code: pd.DataFrame) -> None:
    score = code.set_index("metric")["score"]
    es, f1, ed = score["edit_similarity"], score["identifier_f1"], score["edit_distance"]
    assert es.between(0, 100).all() and es.max() > 1  # percent scale, not 0-1
    assert f1.between(0, 1).all()
    assert (ed >= 0).all() and (ed == ed.round()).all() and ed.max() > 1


def test_codecompletion_system_attributes_constant_and_in_name(code: pd.DataFrame) -> None:
    attrs = ["model", "prompt_format", "context_size"]
    assert (code.groupby("system")[attrs].nunique() == 1).all().all()
    first = code.groupby("system")[attrs].first()
    rebuilt = first["model"] + "|" + first["prompt_format"] + "|" + first["context_size"]
    assert (rebuilt == first.index).all()


def test_codecompletion_difficulty_is_item_metadata(code: pd.DataFrame) -> None:
    assert set(code["difficulty"]) == {"easy", "medium", "hard"}
    assert (code.groupby(["dataset", "item"])["difficulty"].nunique() == 1).all()


def test_codecompletion_metrics_agree_on_direction(code: pd.DataFrame) -> None:
    means = code.groupby(["metric", "system"])["score"].mean().unstack("metric")
    corr = means.corr(method="spearman")
    assert corr.loc["edit_similarity", "identifier_f1"] > 0.9
    assert corr.loc["edit_similarity", "edit_distance"] < -0.9  # lower is better


def test_unittests_structure(runs: pd.DataFrame, code: pd.DataFrame) -> None:
    assert list(runs.columns) == RUN_COLUMNS
    assert set(runs["dataset"]) == {"unittests"} and set(runs["metric"]) == {"pass"}
    assert runs["system"].nunique() >= 6 and set(runs["system"]) <= set(code["system"])
    assert 150 <= runs["item"].nunique() <= 250
    assert set(runs["run"]) == {0, 1, 2, 3, 4}
    assert set(runs["score"]) == {0, 1}
    assert not runs.duplicated(["system", "item", "run"]).any()
    assert (runs.groupby("item").size() == runs["system"].nunique() * 5).all()
    assert not set(runs["item"]) & set(code["item"])
    assert (runs.groupby("item")["difficulty"].nunique() == 1).all()


def test_reportgen_toml_covers_every_metric_and_dataset(
    code: pd.DataFrame, runs: pd.DataFrame
) -> None:
    with open(EXAMPLES / "reportgen.toml", "rb") as fh:
        config = tomllib.load(fh)
    assert set(config) == {"metrics", "datasets"}
    assert set(config["metrics"]) == set(code["metric"]) | set(runs["metric"])
    assert set(config["datasets"]) == set(code["dataset"]) | set(runs["dataset"])
    assert config["metrics"]["edit_distance"]["direction"] == "lower"
    for props in config["metrics"].values():
        assert set(props) <= {"direction", "modality", "weight"}
        assert props["direction"] in {"higher", "lower"}
        assert props.get("modality", "continuous") in {"binary", "continuous"}
        assert props.get("weight", 1.0) > 0
    assert all(
        set(p) <= {"weight"} and p.get("weight", 1.0) > 0 for p in config["datasets"].values()
    )

"""The lighteval adapter on output lighteval 0.13.0 wrote (tests/fixtures/real/SOURCES.md):
``lighteval custom`` with a toy model (``toy/good`` and ``toy/bad``) on two local tasks,
``toy_add|0`` (generative, ``em``) and ``toy_mc|0`` (multiple choice, ``acc``), with
``--save-details``.

The independent reference is the aggregate lighteval itself wrote into each results file
(``results["toy_add|0"]["em"]``, ...): the mean of the per-document values of the details
parquet must reproduce it exactly.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import detect_format, get_adapter
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "lighteval" / "0.13.0"
OUT = REAL / "out"


def _results() -> dict[str, dict]:
    out = {}
    for path in sorted(OUT.glob("results/*/*/results_*.json")):
        data = json.loads(path.read_text())
        out[data["config_general"]["model_name"]] = data["results"]
    return out


def test_lighteval_means_against_the_results_file() -> None:
    assert detect_format(OUT).name == "lighteval"
    table = load(OUT)
    means = table.frame.groupby(["system", "dataset", "metric"])["score"].mean()
    results = _results()
    assert set(table.systems) == set(results) == {"toy/good", "toy/bad"}
    checked = 0
    for system, tasks in results.items():
        for task, values in tasks.items():
            if task == "all":
                continue
            for metric, value in values.items():
                if metric.endswith("_stderr"):
                    continue
                assert means[(system, task, metric)] == value
                checked += 1
    assert checked == 4
    assert set(table.datasets) == {"toy_add|0", "toy_mc|0"}
    # both models were scored on the same documents (doc.id): paired
    assert table.paired("toy_add|0", "em").scores.shape == (8, 2)
    assert table.metrics["em"].direction == "higher"  # config_tasks' higher_is_better


def test_lighteval_results_file_alone_and_the_folder_above() -> None:
    (good,) = OUT.glob("results/toy/good/results_*.json")
    assert detect_format(good).name == "lighteval"  # not lm-eval's results_<date>.json
    result = get_adapter("lighteval").read(good, LoadOptions())
    assert set(result.frame["system"]) == {"toy/good"}
    # the folder above the output folder: found by the walk
    table = load(REAL)
    assert set(table.systems) == {"toy/good", "toy/bad"}


def test_lighteval_items_are_the_doc_ids() -> None:
    (details,) = OUT.glob("details/toy/good/*/details_toy_add|0_*.parquet")
    ids = [row["id"] for row in pq.read_table(details).column("doc").to_pylist()]
    table = load(OUT)
    items = table.frame.query("system == 'toy/good' and dataset == 'toy_add|0'")["item"]
    assert sorted(items) == sorted(ids)


def test_lighteval_missing_details_are_skipped(tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(OUT, out)
    for path in out.glob("details/toy/bad/*/details_toy_mc*"):
        path.unlink()
    table = load(out)
    assert table.frame.query("system == 'toy/bad'")["dataset"].unique().tolist() == ["toy_add|0"]
    assert any("no details file" in s.reason for s in table.skipped_inputs)
    with pytest.raises(InputError, match="no details file"):
        load(out, options=LoadOptions(strict_inputs=True))


def test_lighteval_nonfinite_sample_value(tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(OUT, out)
    (details,) = out.glob("details/toy/good/*/details_toy_add|0_*.parquet")
    table = pq.read_table(details).to_pandas()
    table["metric"] = [{"em": float("inf")} if k == 0 else m for k, m in enumerate(table["metric"])]
    table.to_parquet(details)
    result = get_adapter("lighteval").read(out, LoadOptions())
    (warning,) = [p for p in result.problems if "finite" in p.message]
    assert "lighteval's metric['em'] of the details" in warning.message
    with pytest.raises(
        InputError, match=r"lighteval wrote metric\['em'\] of the details = Infinity"
    ):
        get_adapter("lighteval").read(out, LoadOptions(nonfinite="error"))

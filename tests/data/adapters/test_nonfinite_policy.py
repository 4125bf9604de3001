"""``--nonfinite``: one policy for per-item infinities in every harness's log.

Each test takes a real log of tests/fixtures/real, sets one per-item value to infinity
as a harness writes it (``Infinity`` in JSON), and checks both policies: ``drop`` (the
default) leaves it out with one warning naming the harness's own field, the file and the
count, and one exclusion; ``error`` stops with the file. The lm-eval, lighteval, DeepEval
and promptfoo cases are in their own test files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reportgen.data import LoadOptions
from reportgen.data.adapters import get_adapter
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"


def _check(name: str, path: Path, field: str, harness: str) -> None:
    result = get_adapter(name).read(path, LoadOptions())
    (warning,) = [p for p in result.problems if "not a finite number" in p.message]
    assert f"1 per-item value of {harness}'s {field} is Infinity" in warning.message
    assert "column 'score'" not in warning.message
    (exclusion,) = [e for e in result.exclusions if "non-finite" in e.reason]
    assert exclusion.count == 1
    assert not result.frame["score"].isin([float("inf")]).any()
    with pytest.raises(InputError, match=f"{harness} wrote .* = Infinity"):
        get_adapter(name).read(path, LoadOptions(nonfinite="error"))


def test_inspect_infinite_score(tmp_path: Path) -> None:
    log = json.loads((REAL / "inspect" / "arc_easy-0.3.138" / "data_arc_qwen.json").read_text())
    log["samples"][0]["scores"]["choice"]["value"] = float("inf")
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    _check("inspect", path, "score 'choice'", "Inspect")


def test_helm_infinite_stat(tmp_path: Path) -> None:
    suite = tmp_path / "fixture"
    shutil.copytree(REAL / "helm" / "suite-0.5.16" / "benchmark_output" / "runs" / "fixture", suite)
    stats_path = suite / "simple_mcqa:model=simple_model1" / "per_instance_stats.json"
    stats = json.loads(stats_path.read_text())
    stat = next(s for s in stats[0]["stats"] if s["name"]["name"] == "exact_match")
    stat["mean"] = float("inf")
    stats_path.write_text(json.dumps(stats))
    _check("helm", suite, "stat 'exact_match' (per_instance_stats.json)", "HELM")


def test_every_eval_ever_infinite_score(tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(REAL / "every_eval_ever" / "v0.2.0-datastore", store)
    (records,) = store.glob("instance_level_data/ai2_arc_ollama*.jsonl")
    lines = records.read_text().splitlines()
    first = json.loads(lines[0])
    first["evaluation"]["score"] = float("inf")
    records.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    _check("every-eval-ever", store, "evaluation.score ('accuracy')", "every_eval_ever")

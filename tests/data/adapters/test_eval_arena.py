"""eval-arena JSON lines, on every real file of ../shared/data/eval-arena.

Reference: an independent count with the json module."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest

from reportgen.data import LoadOptions, detect_format, load
from reportgen.errors import InputError

FILES = [
    "humaneval+.jsonl",
    "mbpp+.jsonl",
    "lcb_codegen.jsonl",
    "cruxeval_output.jsonl",
    "terminal-bench-2.0.jsonl",
]


def _independent_count(path):
    models, items, scores = [], set(), {}
    per_model = defaultdict(set)
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec["model"] not in models:
            models.append(rec["model"])
        items.add(rec["example_id"])
        per_model[rec["model"]].add(rec["example_id"])
        scores[(rec["model"], rec["example_id"])] = rec["pass1"]
    return models, items, per_model, scores


@pytest.mark.parametrize("name", FILES)
def test_eval_arena_against_json_count(shared_data, name):
    path = shared_data / "eval-arena" / name
    assert detect_format(path).name == "eval-arena"
    table = load(path)
    models, items, per_model, scores = _independent_count(path)
    assert table.systems == tuple(models)
    (dataset,) = table.datasets
    assert list(table.metrics) == ["pass1"]
    assert table.metrics["pass1"].direction == "higher"
    assert set(table.items_of(dataset)) == items
    common = set.intersection(*per_model.values())
    info = table.pairing(dataset, "pass1")
    assert info.n_common == len(common) and info.n_items == len(items)
    binary = all(v in (0, 1) for v in scores.values())
    assert table.modality(dataset, "pass1") == ("binary" if binary else "continuous")
    view = table.paired(dataset, "pass1")
    for j in (0, len(models) - 1):
        ref = [scores[(view.systems[j], i)] for i in view.items]
        np.testing.assert_array_equal(view.scores[:, j], ref)


def test_eval_arena_published_shapes(shared_data):
    # the shapes ../shared/data/README.md states
    expected = {
        "humaneval+.jsonl": (49, 164, "binary"),
        "mbpp+.jsonl": (59, 378, "binary"),
        "lcb_codegen.jsonl": (58, 400, "continuous"),
        "cruxeval_output.jsonl": (37, 800, "continuous"),
        "terminal-bench-2.0.jsonl": (7, 89, "continuous"),
    }
    for name, (n_systems, n_items, modality) in expected.items():
        table = load(shared_data / "eval-arena" / name)
        dataset = table.datasets[0]
        assert (
            len(table.systems),
            len(table.items_of(dataset)),
            table.modality(dataset, "pass1"),
        ) == (n_systems, n_items, modality), name
        assert table.pairing(dataset, "pass1").kind == "paired"


def test_eval_arena_extra_keys_become_attributes(shared_data):
    table = load(shared_data / "eval-arena" / "cruxeval_output.jsonl")
    assert "hyperparams" in table.system_attributes.columns
    table = load(shared_data / "eval-arena" / "terminal-bench-2.0.jsonl")
    assert "count" in table.system_attributes.columns


def test_eval_arena_all_files_together(shared_data):
    table = load(sorted((shared_data / "eval-arena").glob("*.jsonl")))
    assert len(table.datasets) == 5


def test_eval_arena_input_validation(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"benchmark_id": "b", "model": "A", "example_id": "1", "pass1": "yes"}\n')
    with pytest.raises(
        InputError,
        match=r"x\.jsonl, line 1, column 'pass1': pass1 = 'yes' "
        r"is not a number",
    ):
        load(path, options=LoadOptions(format="eval-arena"))

"""The EvalPlus adapter on results EvalPlus 0.3.1 wrote (tests/fixtures/real/SOURCES.md):
``evalplus.evaluate`` on a four-task HumanEval+-format file, for a greedy "model" (one
sample per task) and a sampled one (three per task).

The independent reference is the pass@1 EvalPlus itself printed for each run (kept as
``evalplus_stdout.txt`` beside the results, to three decimals): the mean of the per-task
scores must reproduce it, for the base tests and for base + plus tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import detect_format, get_adapter
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "evalplus" / "0.3.1"
GREEDY = REAL / "greedy" / "toy-greedy_eval_results.json"
SAMPLED = REAL / "sampled" / "toy-sampled_eval_results.json"


def _printed_pass_at_1(results: Path) -> tuple[float, float]:
    """(base, base + plus) pass@1 as EvalPlus printed them."""
    text = (results.parent / "evalplus_stdout.txt").read_text()
    base, plus = re.findall(r"pass@1:\s+([0-9.]+)", text)
    return float(base), float(plus)


@pytest.mark.parametrize("path", [GREEDY, SAMPLED], ids=["greedy", "sampled"])
def test_evalplus_means_against_the_pass_at_1_evalplus_printed(path: Path) -> None:
    assert detect_format(path).name == "evalplus"
    result = get_adapter("evalplus").read(path, LoadOptions())
    means = result.frame.groupby("metric")["score"].mean()
    base, plus = _printed_pass_at_1(path)
    assert round(means["base"], 3) == base
    assert round(means["plus"], 3) == plus
    # and exactly the share of passing samples EvalPlus counts (plus: base and plus pass)
    tasks = json.loads(path.read_text())["eval"]
    for task_id, samples in tasks.items():
        row = result.frame.set_index(["metric", "item"])["score"]
        n = len(samples)
        assert row[("base", task_id)] == sum(s["base_status"] == "pass" for s in samples) / n
        assert row[("plus", task_id)] == (
            sum(s["base_status"] == s["plus_status"] == "pass" for s in samples) / n
        )


def test_evalplus_two_systems_from_file_names() -> None:
    table = load([GREEDY, SAMPLED])
    assert set(table.systems) == {"toy-greedy", "toy-sampled"}
    assert table.datasets == ("Toy",)
    assert table.paired("Toy", "plus").scores.shape == (4, 2)
    # max_of starting from 0 passes the base tests and fails the plus tests
    greedy = table.frame.query("system == 'toy-greedy' and item == 'Toy/2'")
    assert dict(zip(greedy["metric"], greedy["score"], strict=True)) == {"base": 1.0, "plus": 0.0}


def test_evalplus_folder_with_samples_reads_the_results_only() -> None:
    # the samples .jsonl beside the results are EvalPlus's input, not results
    table = load(REAL, min_systems=2)
    assert set(table.systems) == {"toy-greedy", "toy-sampled"}
    skipped = {Path(s.path).name for s in table.skipped_inputs}
    assert {"toy-greedy.jsonl", "toy-sampled.jsonl", "toy_plus.jsonl"} <= skipped


def test_evalplus_base_only_and_bad_status(tmp_path: Path) -> None:
    data = json.loads(GREEDY.read_text())
    for samples in data["eval"].values():
        for s in samples:
            s["plus_status"] = None  # what --base-only writes
    path = tmp_path / "m_eval_results.json"
    path.write_text(json.dumps(data))
    result = get_adapter("evalplus").read(path, LoadOptions(system="m1"))
    assert set(result.frame["metric"]) == {"base"}
    assert set(result.frame["system"]) == {"m1"}
    data["eval"]["Toy/0"][0]["base_status"] = "passed"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"base_status = 'passed' is not one of pass, fail"):
        get_adapter("evalplus").read(path, LoadOptions())

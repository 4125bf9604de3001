"""The promptfoo adapter on promptfoo's own output (tests/fixtures/real/SOURCES.md):
``tds-project-1/promptfoo_results.json``, results version 3 from a public repository (two
providers, one prompt, five tests; three tests fail an assertion), and
``0.120.0/results.json``, promptfoo 0.120.0 run here (two prompts × two providers, named
scores, two errored test runs).

The independent reference is what promptfoo itself wrote about the evaluation: per prompt
× provider, ``prompts[].metrics`` (``score``, ``testPassCount``, ``testFailCount``,
``testErrorCount``), and ``stats`` for the whole run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import detect_format, get_adapter
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "promptfoo"
TDS = REAL / "tds-project-1" / "promptfoo_results.json"


def test_promptfoo_sums_against_promptfoos_prompt_metrics() -> None:
    assert detect_format(TDS).name == "promptfoo"
    table = load(TDS)
    data = json.loads(TDS.read_text())["results"]
    sums = table.frame.groupby(["system", "metric"])["score"].sum()
    counts = table.frame.groupby(["system", "metric"])["score"].count()
    for prompt in data["prompts"]:
        system, metrics = prompt["provider"], prompt["metrics"]
        assert sums[(system, "pass")] == metrics["testPassCount"]
        assert counts[(system, "pass")] == (
            metrics["testPassCount"] + metrics["testFailCount"] + metrics["testErrorCount"]
        )
        assert sums[(system, "score")] == metrics["score"]
    assert table.frame.query("metric == 'pass'")["score"].sum() == data["stats"]["successes"]
    # one prompt: the systems are the providers (no label, so their ids)
    assert set(table.systems) == {p["provider"] for p in data["prompts"]}
    # both providers ran the same five tests: paired
    assert table.paired(table.datasets[0], "pass").scores.shape == (5, 2)


def test_promptfoo_errored_tests_are_left_out_unless_asked(tmp_path: Path) -> None:
    data = json.loads(TDS.read_text())
    entry = data["results"]["results"][0]
    # what promptfoo writes when the provider raised: failureReason 2 (ERROR)
    entry.update(success=False, score=0, failureReason=2, error="API error: 500")
    path = tmp_path / "out.json"
    path.write_text(json.dumps(data))
    result = get_adapter("promptfoo").read(path, LoadOptions())
    (exclusion,) = result.exclusions
    assert exclusion.count == 1 and "errored" in exclusion.reason
    assert any("errored" in p.message for p in result.problems)
    key = (result.frame["system"] == entry["provider"]["id"]) & (result.frame["item"] == "0")
    assert not key.any()
    counted = get_adapter("promptfoo").read(path, LoadOptions(errors_as_failures=True))
    key = (counted.frame["system"] == entry["provider"]["id"]) & (counted.frame["item"] == "0")
    assert counted.frame.loc[key, "score"].tolist() == [0.0, 0.0]


def test_promptfoo_named_scores_and_nonfinite(tmp_path: Path) -> None:
    data = json.loads(TDS.read_text())
    for entry in data["results"]["results"]:
        entry["namedScores"] = {"accuracy": float(entry["success"]), "judge": 0.5}
    data["results"]["results"][3]["namedScores"]["judge"] = float("nan")
    path = tmp_path / "out.json"
    path.write_text(json.dumps(data))
    result = get_adapter("promptfoo").read(path, LoadOptions())
    assert {"pass", "score", "accuracy", "judge"} == set(result.frame["metric"])
    (warning,) = [p for p in result.problems if "finite" in p.message]
    assert "promptfoo's 'judge'" in warning.message and "NaN" in warning.message
    with pytest.raises(InputError, match=r"promptfoo wrote 'judge' = NaN"):
        get_adapter("promptfoo").read(path, LoadOptions(nonfinite="error"))


def test_promptfoo_other_versions_are_refused(tmp_path: Path) -> None:
    data = json.loads(TDS.read_text())
    data["results"]["version"] = 2
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="promptfoo results version 2: reportgen reads version 3"):
        get_adapter("promptfoo").read(path, LoadOptions())


GENERATED = REAL / "0.120.0" / "results.json"


def test_promptfoo_prompts_providers_named_scores_against_promptfoos_metrics() -> None:
    # promptfoo 0.120.0 run here: two prompts x two providers, named metrics `correct`
    # and `brevity`, and two test runs the provider errored on (failureReason 2)
    table = load(GENERATED)
    data = json.loads(GENERATED.read_text())["results"]
    frame = table.frame
    assert set(table.systems) == {
        f"{p} × {q}" for p in ("echo", "toy-adder") for q in ("terse", "polite")
    }
    for prompt in data["prompts"]:
        provider = "toy-adder" if prompt["provider"].startswith("file://") else prompt["provider"]
        system = f"{provider} × {prompt['label']}"
        rows = frame[frame["system"] == system]
        metrics = prompt["metrics"]
        by_metric = rows.groupby("metric")["score"]
        assert by_metric.sum()["pass"] == metrics["testPassCount"]
        # errored runs are left out: the passes and failures remain
        assert by_metric.count()["pass"] == metrics["testPassCount"] + metrics["testFailCount"]
        assert by_metric.sum()["score"] == pytest.approx(metrics["score"], abs=1e-12)
        for name, total in metrics["namedScores"].items():
            assert by_metric.sum()[name] == pytest.approx(total, abs=1e-12)
            assert by_metric.count()[name] == metrics["namedScoresCount"][name]
    excluded = sum(e.count for e in table.exclusions if "errored" in e.reason)
    assert excluded == data["stats"]["errors"] == 2
    # the four systems share the tests that ran everywhere: paired on them
    assert table.paired(table.datasets[0], "pass").scores.shape[1] == 4


def test_promptfoo_errors_as_failures_count_like_promptfoos_pass_rate() -> None:
    data = json.loads(GENERATED.read_text())["results"]
    result = get_adapter("promptfoo").read(GENERATED, LoadOptions(errors_as_failures=True))
    passes = result.frame[result.frame["metric"] == "pass"]["score"]
    stats = data["stats"]
    assert len(passes) == stats["successes"] + stats["failures"] + stats["errors"]
    assert passes.sum() == stats["successes"]

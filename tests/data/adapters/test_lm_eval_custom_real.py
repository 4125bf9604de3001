"""lm-eval 0.4.8 output with what real tasks do (tests/fixtures/real/SOURCES.md): a
regression task whose per-sample ``mae`` is ``Infinity`` where no number was found in the
answer (lm-eval's own aggregate is then ``inf``), and a span-F1 task with a custom
aggregation function (``aggregation: !function utils.span_f1_agg``), whose source code
lm-eval writes into the results file.

References: the samples themselves (the count of ``Infinity`` values lm-eval wrote), and
the results files' aggregates for what is finite.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import get_adapter
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "lm_eval" / "v0.4.8-custom"


def _samples(task: str) -> dict[str, list[dict]]:
    out = {}
    for path in sorted(REAL.glob(f"sys-*/toy-*/samples_{task}_*.jsonl")):
        out[path.parent.name] = [json.loads(line) for line in path.read_text().splitlines()]
    return out


def test_lm_eval_infinite_mae_is_dropped_with_one_warning_per_file() -> None:
    table = load(REAL)
    for system, records in _samples("tiny_reg").items():
        infinite = [r for r in records if math.isinf(r["mae"])]
        assert infinite, "the fixture must hold Infinity values"
        kept = table.frame.query("system == @system and metric == 'mae'")
        assert len(kept) == len(records) - len(infinite)
        assert sorted(kept["score"]) == sorted(r["mae"] for r in records if math.isfinite(r["mae"]))
        (exclusion,) = [e for e in table.exclusions if e.system == system and e.metric == "mae"]
        assert exclusion.count == len(infinite)
        (warning,) = [p for p in table.problems if "Infinity" in p.message and system in p.message]
        assert f"{len(infinite)} per-item value" in warning.message
        # the harness's own field and file, never a column the file does not have
        assert "lm-eval's 'mae' (samples_tiny_reg_*.jsonl)" in warning.message
        assert "column 'score'" not in warning.message
        assert Path(str(warning.location.file)).name.startswith("samples_tiny_reg_")
    assert table.metrics["mae"].direction == "lower"  # higher_is_better: false


def test_lm_eval_infinite_mae_with_nonfinite_error() -> None:
    with pytest.raises(InputError) as exc:
        get_adapter("lm-eval").read(REAL, LoadOptions(nonfinite="error"))
    text = str(exc.value)
    assert "lm-eval wrote 'mae' (samples_tiny_reg_*.jsonl) = Infinity" in text
    assert "samples_tiny_reg_" in text and "line " in text
    assert "--nonfinite drop" in text


def test_lm_eval_custom_aggregation_is_named_not_quoted() -> None:
    # lm-eval wrote the function's whole source as the aggregation
    (results,) = REAL.glob("sys-a/toy-a/results_*.json")
    source = json.loads(results.read_text())["configs"]["tiny_ner"]["metric_list"][0]
    assert source["aggregation"].startswith("def span_f1_agg(items):")
    table = load(REAL)
    # a corpus metric of its own: skipped, not read as classification labels
    assert "tiny_ner" not in set(table.frame["dataset"])
    messages = [p.message for p in table.problems if "span_f1" in p.message]
    assert messages and all("custom function 'span_f1_agg'" in m for m in messages)
    assert all("def span_f1_agg" not in m and "tp += " not in m for m in messages)
    assert all(len(m) < 400 for m in messages)


def test_lm_eval_two_results_files_of_one_samples_file_are_one_run(tmp_path) -> None:
    # lm-eval 0.4.2's results.json beside a copy under a results_<date>.json name (as a
    # fork that writes both leaves them): both name the same <model_args>_<task>.jsonl
    # samples, which hold one run, not two
    import shutil

    v042 = REAL.parent / "v0.4.2"
    out = tmp_path / "out"
    shutil.copytree(v042, out)
    for model in ("sys-a", "sys-b"):
        shutil.copy(out / model / "results.json", out / model / "results_2024-11-05T10-00-00.json")
    table = load(out)
    assert table.frame.get("run") is None or table.frame["run"].nunique() == 1
    reference = load(v042)
    assert len(table.frame) == len(reference.frame)
    assert any("name the same samples file" in p.message for p in table.problems)

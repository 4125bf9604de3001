"""every_eval_ever schema 0.2.0 as its datastore keeps it (tests/fixtures/real/SOURCES.md):
aggregate files under ``data/<benchmark>/<developer>/<model>/`` whose
``detailed_evaluation_results.file_path`` names ``instance_level_data/<id>.Format.jsonl``
at the datastore's root, not beside them (evaleval/every_eval_ever at commit dcb00c1,
two Inspect runs of ai2_arc).

The independent reference is each aggregate's own ``score_details.score`` (and
``total_rows``): the mean of its records' scores must reproduce it, under the metric the
aggregate names (``metric_config.evaluation_description``), not ``score``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from reportgen.cli import main
from reportgen.data import load

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "every_eval_ever"
STORE = REAL / "v0.2.0-datastore"
ONE = REAL / "v0.2.0-one-record"


def test_eee_020_datastore_root_paths_against_the_aggregates() -> None:
    table = load(STORE)
    assert table.skipped_inputs == ()  # no false "no instance-level file"
    assert list(table.metrics) == ["accuracy"]
    means = table.frame.groupby("system")["score"].agg(["mean", "count"])
    for aggregate in sorted(STORE.glob("data/*/*/*/*.json")):
        data = json.loads(aggregate.read_text())
        (result,) = data["evaluation_results"]
        assert result["metric_config"]["evaluation_description"] == "accuracy"
        system = data["model_info"]["id"]
        assert means.loc[system, "mean"] == result["score_details"]["score"]
        assert means.loc[system, "count"] == data["detailed_evaluation_results"]["total_rows"]


def test_eee_020_aggregate_given_alone_finds_its_records(tmp_path: Path) -> None:
    # one model's folder inside the datastore: the records are two levels up
    (aggregate,) = STORE.glob("data/ai2_arc/ollama/*/*.json")
    table = load(aggregate, min_systems=1)
    assert table.systems == ("ollama/qwen2.5-0.5b",)
    assert list(table.metrics) == ["accuracy"]
    # the aggregate moved away from its datastore: skipped, saying where it looked
    lone = tmp_path / "agg.json"
    shutil.copy(aggregate, lone)
    (records,) = STORE.glob("instance_level_data/ai2_arc_ollama*.jsonl")
    table = load([lone, records], min_systems=1)
    (skipped,) = table.skipped_inputs
    assert "instance_level_data/ai2_arc_ollama" in skipped.reason


def test_inspect_describes_a_one_item_record(capsys) -> None:
    # reportgen inspect looks at one system's data: a single item is described, with
    # the warning that no statistic can be computed, not refused
    (path,) = ONE.glob("*.jsonl")
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "bigbio/pubmed_qa      1" in out
    assert "has a single item: no statistic can be computed" in out

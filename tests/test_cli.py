"""`reportgen inspect` on the real data and the example, text and JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _inspect_json(capsys, *args):
    assert main(["inspect", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_inspect_humaneval_json(shared_data, capsys):
    # the check: 49 systems, 164 items, binary, paired
    summary = _inspect_json(capsys, str(shared_data / "eval-arena" / "humaneval+.jsonl"))
    assert summary["n_systems"] == 49 and len(summary["systems"]) == 49
    (dataset,) = summary["datasets"]
    assert dataset["n_items"] == 164
    (metric,) = dataset["metrics"]
    assert metric["modality"] == "binary"
    assert metric["pairing"]["kind"] == "paired"
    assert summary["problems"] == [] and summary["exclusions"] == []


def test_inspect_ibm_rag_json(shared_data, capsys):
    summary = _inspect_json(capsys, str(shared_data / "ibm-rag"))
    (dataset,) = summary["datasets"]
    assert (dataset["name"], dataset["n_items"], summary["n_systems"]) == ("ibm-rag", 140, 6)
    assert [(m["metric"], m["modality"], m["pairing"]["kind"]) for m in dataset["metrics"]] == [
        ("precision", "continuous", "paired"), ("recall", "continuous", "paired"),
        ("sbert", "continuous", "paired")]


def test_inspect_example_text(capsys):
    assert main(["inspect", str(ROOT / "examples" / "data"),
                 "--config", str(ROOT / "examples" / "reportgen.toml")]) == 0
    out = capsys.readouterr().out
    assert "Systems (12)" in out and "Datasets (5)" in out
    assert "edit_distance    continuous (config)  lower is better (config)" in out
    assert "unittests     200     5" in out
    assert "attributes: model, prompt_format, context_size" in out
    assert "Problems: none found" in out


def test_inspect_reports_problems(tmp_path, capsys):
    path = tmp_path / "r.csv"
    path.write_text("system,item,score\nA,1,1\nB,1,\nA,2,0\nB,2,1\nA,3,1\nB,3,1\n")
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Exclusions (1 observations)" in out and "missing score" in out
    assert "warning: [r] metric 'score': systems share 2 of 3 items (partial overlap)" in out


@pytest.mark.parametrize("args", [["--help"], ["inspect", "--help"]])
def test_help_everywhere(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "usage: reportgen" in out


def test_module_entry_point_runs(shared_data):
    proc = subprocess.run([sys.executable, "-m", "reportgen", "inspect",
                           str(shared_data / "eval-arena" / "terminal-bench-2.0.jsonl")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "Systems (7)" in proc.stdout

"""The input flags of issue 31 on the command line: ``--nonfinite``, ``--system`` and
``--errors-as-failures`` reach the adapters (real harness outputs of tests/fixtures/real)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from reportgen.cli import main

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def test_nonfinite_flag(capsys) -> None:
    data = REAL / "lm_eval" / "v0.4.8-custom"
    assert main(["inspect", str(data)]) == 0
    assert "per-item values of lm-eval's 'mae'" in capsys.readouterr().out
    assert main(["inspect", str(data), "--nonfinite", "error"]) == 2
    err = capsys.readouterr().err
    assert "lm-eval wrote 'mae' (samples_tiny_reg_*.jsonl) = Infinity" in err
    assert "Traceback" not in err


def test_system_flag_names_a_deepeval_run(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    shutil.copytree(REAL / "deepeval" / "4.3.1" / "good", run)
    assert main(["inspect", str(run), "--system", "rag-v2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["systems"] == ["rag-v2"]


def test_errors_as_failures_flag(capsys) -> None:
    data = REAL / "promptfoo" / "0.120.0" / "results.json"
    assert main(["inspect", str(data), "--json"]) == 0
    left_out = json.loads(capsys.readouterr().out)
    assert main(["inspect", str(data), "--errors-as-failures", "--json"]) == 0
    counted = json.loads(capsys.readouterr().out)
    assert counted["n_rows"] - left_out["n_rows"] == 2 * 2  # 2 errored runs x pass, score


def test_system_mapping_names_each_input(tmp_path: Path, capsys) -> None:
    ragas = REAL / "ragas" / "0.2.15"
    runs = tmp_path / "runs"
    shutil.copytree(REAL / "deepeval" / "4.3.1" / "good", runs / "v1")
    shutil.copytree(REAL / "deepeval" / "4.3.1" / "bad", runs / "v2")
    args = [
        "inspect",
        str(ragas / "bm25.csv"),
        str(ragas / "dense.jsonl"),
        "--system",
        "bm25.csv=BM25,dense=Dense retriever",
        "--json",
    ]
    assert main(args) == 0
    assert set(json.loads(capsys.readouterr().out)["systems"]) == {"BM25", "Dense retriever"}
    assert main(["inspect", str(runs), "--system", "v1=first,v2=second", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["systems"]) == {"first", "second"}

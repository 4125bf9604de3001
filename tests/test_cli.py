"""`reportgen inspect` on the real data and the example, text and JSON."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _inspect_json(capsys, *args):
    assert main(["inspect", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.integration
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


@pytest.mark.integration
def test_inspect_ibm_rag_json(shared_data, capsys):
    summary = _inspect_json(capsys, str(shared_data / "ibm-rag"))
    (dataset,) = summary["datasets"]
    assert (dataset["name"], dataset["n_items"], summary["n_systems"]) == ("ibm-rag", 140, 6)
    assert [(m["metric"], m["modality"], m["pairing"]["kind"]) for m in dataset["metrics"]] == [
        ("precision", "continuous", "paired"),
        ("recall", "continuous", "paired"),
        ("sbert", "continuous", "paired"),
    ]


@pytest.mark.integration
def test_inspect_example_text(capsys):
    assert (
        main(
            [
                "inspect",
                str(ROOT / "examples" / "data"),
                "--config",
                str(ROOT / "examples" / "reportgen.toml"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Systems (12)" in out and "Datasets (5)" in out
    assert "edit_distance    continuous (config)  lower is better (config)" in out
    assert "unittests     200     5" in out
    assert "attributes: model, prompt_format, context_size" in out
    assert "Problems: none found" in out


def test_inspect_notes_two_inputs_merged_into_one_dataset(shared_data, tmp_path, capsys):
    """Issue 42: humaneval.jsonl and humaneval_hf.jsonl of one benchmark id were merged
    into one dataset while inspect said "Problems: none found"."""
    lines = (shared_data / "eval-arena" / "humaneval+.jsonl").read_text().splitlines()
    systems = sorted({json.loads(line)["model"] for line in lines})
    first = set(systems[:20])
    (tmp_path / "humaneval.jsonl").write_text(
        "\n".join(x for x in lines if json.loads(x)["model"] in first) + "\n"
    )
    (tmp_path / "humaneval_hf.jsonl").write_text(
        "\n".join(x for x in lines if json.loads(x)["model"] not in first) + "\n"
    )
    assert main(["inspect", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Problems (1)" in out
    assert (
        "info: [humaneval+] metric 'pass1': the rows of 2 inputs are merged into this one "
        "dataset: humaneval.jsonl (20 systems), humaneval_hf.jsonl (29 systems); to keep "
        "them apart, give each its own dataset name in its file"
    ) in " ".join(out.split())
    # three metric files of one dataset (a RAG evaluation), or one file per system, are
    # how a dataset arrives: no note
    assert main(["inspect", str(shared_data / "ibm-rag")]) == 0
    assert "merged" not in capsys.readouterr().out


def test_unknown_system_names_the_closest_few(shared_data, tmp_path, capsys):
    """Issue 42: a misspelt system name listed all 49 names instead of the closest."""
    data = str(shared_data / "eval-arena" / "humaneval+.jsonl")
    command = ["run", data, "--template", "release", "--out", str(tmp_path / "r")]
    command += ["--baseline", "claude-3-opus-20240229", "--candidate", "claude-3-sonet"]
    assert main(command) == 2
    err = capsys.readouterr().err
    hint = err.split("hint: ", 1)[1]
    assert hint.startswith("did you mean claude-3-sonnet-20240229, ")
    assert hint.count(",") == 1 and "(49 in all)" in hint  # three names, and the count


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


@pytest.mark.integration
def test_module_entry_point_runs(shared_data):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "reportgen",
            "inspect",
            str(shared_data / "eval-arena" / "terminal-bench-2.0.jsonl"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Systems (7)" in proc.stdout


@pytest.mark.integration
def test_analyze_writes_results_json(tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        main(
            [
                "analyze",
                str(ROOT / "examples" / "data"),
                "--config",
                str(ROOT / "examples" / "reportgen.toml"),
                "--out",
                str(out),
                "--seed",
                "7",
            ]
        )
        == 0
    )
    results = json.loads((out / "results.json").read_text())
    assert results["seed"] == 7 and len(results["comparisons"]) == 858
    assert "858 comparisons in 13 dataset × metric sample lists" in capsys.readouterr().out
    assert not list(out.glob(".*"))  # no temporary files left behind


def test_analyze_unwritable_output_is_a_clear_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["analyze", str(ROOT / "examples" / "data"), "--out", str(blocker)]) == 2
    assert "the output path exists and is not a folder" in capsys.readouterr().err


@pytest.mark.integration
def test_compare_two_systems_prints_claims(capsys):
    assert (
        main(
            [
                "compare",
                "starcoder2-15b|fim|8k",
                "granite-3b|fim|4k",
                str(ROOT / "examples" / "data"),
                "--config",
                str(ROOT / "examples" / "reportgen.toml"),
                "--seed",
                "1",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    # the family first (each dataset × metric alone: one comparison, no adjustment),
    # then one claim per dataset × metric
    assert lines[0] == "family: within each dataset × metric, 1 comparison: no adjustment, α = 0.05"
    assert len(lines) == 14
    # edit_distance is lower-is-better: the better system first, and its negative Δ
    # said to be so (never "better" beside a negative number without it)
    assert lines[1].startswith(
        "starcoder2-15b|fim|8k is better than granite-3b|fim|4k on csharp / edit_distance "
        "(lower is better): Δ = −"
    )
    for line in lines[1:]:
        if " is better than " in line:
            negative = line.split("Δ = ")[1].startswith("−")
            assert negative == ("(lower is better)" in line), line
        assert "(a family of one: no adjustment)" in line


@pytest.mark.integration
def test_compare_two_result_files(tmp_path, capsys, shared_data):
    import pandas as pd

    rows = [
        json.loads(line)
        for line in (shared_data / "eval-arena" / "humaneval+.jsonl").read_text().splitlines()
    ]
    frame = pd.DataFrame(rows)
    a, b = frame.model.unique()[:2]
    for name, path in ((a, tmp_path / "a.jsonl"), (b, tmp_path / "b.jsonl")):
        frame[frame.model == name].to_json(path, orient="records", lines=True)
    assert main(["compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "exact McNemar" in out and "n = 164" in out


def test_compare_errors(capsys):
    assert main(["compare", "nope", "other", str(ROOT / "examples" / "data")]) == 2
    assert "unknown system 'nope'" in capsys.readouterr().err
    assert main(["compare", "x", "y"]) == 2
    assert (
        "give two result files, or two system names followed by the data" in capsys.readouterr().err
    )


def test_power_command_against_statsmodels(capsys):
    from statsmodels.stats.power import NormalIndPower, TTestPower
    from statsmodels.stats.proportion import proportion_effectsize

    assert (
        main(["power", "--design", "paired-continuous", "--n", "100", "--delta", "0.3", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    # statsmodels: TTestPower().power(effect_size=0.3, nobs=100, alpha=0.05)
    assert out["power"] == pytest.approx(TTestPower().power(0.3, 100, 0.05), rel=1e-8)
    assert (
        main(
            [
                "power",
                "--design",
                "unpaired-binary",
                "--n",
                "500",
                "--delta",
                "0.08",
                "--baseline",
                "0.6",
                "--method",
                "arcsine",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    h = proportion_effectsize(0.68, 0.6)
    # statsmodels: NormalIndPower().power(h, nobs1=500, alpha=0.05, ratio=1)
    assert out["power"] == pytest.approx(NormalIndPower().power(h, 500, 0.05), rel=1e-8)
    assert main(["power", "--design", "paired-binary", "--n", "164", "--discordance", "0.2"]) == 0
    # a binary design's difference in points, as the reports write it (issue 42)
    said = capsys.readouterr().out
    assert re.match(r"Minimum detectable effect: Δ = \d+\.\d pts with 80% power", said)
    command = ["power", "--design", "paired-binary", "--delta", "0.05", "--discordance", "0.2"]
    assert main(command) == 0
    assert "to detect Δ = +5.0 pts" in capsys.readouterr().out
    assert main(["power", "--design", "paired-continuous", "--n", "100"]) == 0
    assert " pts" not in capsys.readouterr().out  # continuous scores keep their units


def test_power_command_errors(capsys):
    assert main(["power", "--design", "paired-binary"]) == 2
    assert "give --n, --delta or both" in capsys.readouterr().err
    assert main(["power", "--design", "paired-binary", "--n", "100"]) == 2
    assert "discordance" in capsys.readouterr().err


@pytest.mark.integration
def test_analyze_prints_the_ordered_ranking(tmp_path, capsys):
    assert (
        main(
            [
                "analyze",
                str(ROOT / "examples" / "data"),
                "--config",
                str(ROOT / "examples" / "reportgen.toml"),
                "--out",
                str(tmp_path),
                "--seed",
                "1",
                "--n-resamples",
                "300",
            ]
        )
        == 0
    )
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("ordered ranking over 5 lists: starcoder2-15b|fim|8k")
    # the generator's near-ties (examples/README.md) are not separated
    assert "starcoder2-15b|l2r|4k ≈ codellama-13b|fim|4k" in line
    assert "granite-3b|fim|4k ≈ starcoder2-3b|l2r|2k" in line


def test_cli_escapes_control_characters_and_cuts_huge_names(tmp_path, capsys):
    # a system name holding an OSC sequence (sets the terminal title) and a BEL
    evil = "model\x1b]0;owned\x07"
    rows = ["system,item,score"] + [
        f"{s},{i},{int(s == evil)}" for i in range(3) for s in (evil, "b")
    ]
    data = tmp_path / "ctrl.csv"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["inspect", str(data)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "model\\x1b]0;owned\\x07" in out  # still named, visibly
    # a 100,000-character name in an error message is cut to its start and end
    name = "x" * 100_000
    long_csv = tmp_path / "long.csv"
    long_csv.write_text(f"system,item,score\n{name},1,1\n{name},1,0\n", encoding="utf-8")
    assert main(["analyze", str(long_csv), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "characters cut]" in err and len(err) < 2_000
    assert not (tmp_path / "o").exists()


def test_cli_parser_imports_nothing_heavy():
    # `reportgen --help` answers at once: building the parser loads no numpy, pandas,
    # scipy or statsmodels (issue 18: analyze --help took 1.1 s, now about 0.1 s)
    code = (
        "import sys\nfrom reportgen.cli import build_parser\nbuild_parser()\n"
        "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'statsmodels', "
        "'altair', 'papermill') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_cli_format_choices_are_the_registered_adapters():
    from reportgen.data.adapters import adapter_names
    from reportgen.names import INPUT_FORMATS

    # the same names (adapters of one detection priority register in import order)
    assert sorted(INPUT_FORMATS) == sorted(adapter_names())


@pytest.mark.parametrize(
    "flags, said",
    [
        (["--margin", "zero"], "'zero' is not a number"),
        (["--margin", "-0.1"], "the margin must be a positive number"),
        (["--margin", "=0.1"], "names no metric"),
        (["--margin", "0.1", "--margin", "0.2"], "given twice for every metric"),
        (["--gate", "non-inferiority", "--fail-on-regression"], "disagree"),
    ],
)
def test_run_margin_and_gate_flags_fail_before_any_work(tmp_path, capsys, flags, said):
    out = tmp_path / "r"
    status = main(
        [
            "run",
            str(ROOT / "examples" / "data"),
            "--template",
            "release",
            "--out",
            str(out),
            "--quiet",
            *flags,
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and said in err and "Traceback" not in err
    assert not out.exists()  # nothing written


def test_margins_parse_every_metric_and_one_metric():
    import argparse

    from reportgen.cli import _margins

    args = argparse.Namespace(margin=["0.01", "edit_distance=0.5", "a=b=0.2"])
    assert _margins(args) == {"*": 0.01, "edit_distance": 0.5, "a=b": 0.2}
    assert _margins(argparse.Namespace(margin=None)) is None


def test_resolve_keeps_falsy_values_a_flag_or_the_config_gave():
    from reportgen.config import resolve

    # by hand: the first value that is not None wins; 0, False and "" are values
    assert resolve(None, 0, default=40) == 0
    assert resolve(False, True, default=None) is False
    assert resolve(None, False, default=True) is False
    assert resolve("", "config", default="d") == ""
    assert resolve(None, None, default=7) == 7


def test_run_max_table_rows_zero_is_an_error_not_the_default(tmp_path, capsys):
    out = tmp_path / "r"
    status = main(
        [
            "run",
            str(ROOT / "examples" / "data"),
            "--out",
            str(out),
            "--max-table-rows",
            "0",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and "max_table_rows = 0 must be at least 1" in err
    assert not out.exists()

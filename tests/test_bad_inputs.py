"""The bad-input corpus (issue 10, item 2): every malformed input in ``tests/bad_inputs``
gives one pinned, helpful message on stderr (what is wrong, where, and a hint saying what
to do), exit status 2 and no traceback; odd but valid inputs (a byte-order mark, UTF-16,
mixed line ends, a constant metric, mismatched item sets) load.

The cases live in ``tests/bad_inputs/cases.toml`` (file, command, expected message);
``tests/bad_inputs/make_cases.py`` writes the generated files among them.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.cli import main
from reportgen.data import load

BAD = Path(__file__).parent / "bad_inputs"
MANIFEST = tomllib.loads((BAD / "cases.toml").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = MANIFEST["case"]
LOADS: list[dict[str, Any]] = MANIFEST["loads"]
#: Files of the folder that are not inputs.
NOT_INPUTS = {"cases.toml", "make_cases.py", "__pycache__"}


def _params(cases: list[dict[str, Any]]) -> list[Any]:
    return [
        pytest.param(
            case,
            id=case["id"],
            marks=[pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else [],
        )
        for case in cases
    ]


def assert_matches(pattern: str, text: str) -> None:
    assert re.search(pattern, text, flags=re.S), f"{pattern!r} not found in {text!r}"


# ------------------------------------------------------------------------ the corpus


@pytest.mark.parametrize("case", _params(CASES))
def test_bad_input_gives_pinned_message_and_exit_2(case, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(BAD)
    command = case.get("command", "inspect")
    out = tmp_path / "out"
    extra = {"inspect": [], "analyze": ["--out", str(out)], "run": ["--out", str(out), "--quiet"]}[
        command
    ]
    status = main([command, *case["args"], *extra])
    captured = capsys.readouterr()
    err = captured.err
    assert status == 2, f"exit status {status}; stderr: {err!r}"
    assert "Traceback" not in err
    assert err.count("reportgen: error: ") == 1, err
    if command == "inspect":
        assert err.startswith("reportgen: error: ")
    message = err[err.index("reportgen: error: ") :]
    if case.get("hint", True):
        assert "\n  hint: " in message, f"no hint in {message!r}"
    assert_matches(case["message"], message)
    if command == "inspect":
        # where: the message starts with the input (file, folder or config) it is about
        where = message.removeprefix("reportgen: error: ").split(": ", 1)[0]
        inputs = [Path(arg) for arg in case["args"] if not arg.startswith("-")]
        assert any(
            str(p) in where or (p.parts[0] in where and p.parts[0] != "..") for p in inputs
        ), f"{where!r} names none of {case['args']}"
    assert captured.out == ""
    if command == "analyze":
        # analyze checks --out first; after the error the folder holds nothing
        assert not out.exists() or not any(out.iterdir()), list(out.iterdir())
    if command == "run":
        # nothing written: no report folder, no build folder beside it, no notebook
        assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("case", _params(LOADS))
def test_odd_but_valid_input_loads(case, capsys, monkeypatch):
    monkeypatch.chdir(BAD)
    assert main(["inspect", *case["args"]]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert_matches(case["output"], captured.out)


def test_corpus_covers_every_file_with_distinct_cases():
    ids = [case["id"] for case in CASES + LOADS]
    assert len(ids) == len(set(ids)), "case ids repeat"
    assert len(CASES) >= 60
    used = {
        Path(arg).parts[0]
        for case in CASES + LOADS
        for arg in case["args"]
        if not arg.startswith("-")
    }
    files = {p.name for p in BAD.iterdir()} - NOT_INPUTS
    assert files <= used, f"files without a case: {sorted(files - used)}"
    assert len(files & used) >= 40


def test_generated_cases_are_up_to_date(tmp_path):
    # make_cases.py writes the generated files deterministically: the committed copies
    # are byte for byte what it writes now
    spec = importlib.util.spec_from_file_location("make_cases", BAD / "make_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    written = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert written
    for path in written:
        committed = BAD / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), f"{committed} is stale"


# ------------------------------------------------------------------------ valid oddities


@pytest.mark.parametrize("name", ["utf8_bom.csv", "utf16_bom.csv", "mixed_line_endings.csv"])
def test_encoding_and_line_ends_read_as_the_plain_utf8_table(name):
    # reference: continuous.csv holds the same rows as plain UTF-8 with \n line ends
    columns = ["system", "dataset", "metric", "item", "score"]
    expected = load(BAD / "continuous.csv").frame[columns]
    got = load(BAD / name).frame[columns]
    assert got.to_dict("records") == expected.to_dict("records")


def test_json_lines_split_only_at_newlines():
    # reference: json.loads of each \n-separated line keeps U+2028/U+2029/U+0085 in the id
    path = BAD / "line_separators_in_strings.jsonl"
    expected = {
        json.loads(line)["item"] for line in path.read_text(encoding="utf-8").split("\n") if line
    }
    assert set(load(path).frame["item"]) == expected
    assert all("\u2028\u2029\u0085" in item for item in expected)


def test_huge_run_labels_stay_distinct():
    # 1e30 and 2e30 do not fit an int64: they must not collapse into one run label
    table = load(BAD / "huge_run_labels.csv")
    assert table.runs_of("d") == ("1e+30", "2e+30")
    assert table.paired("d", "m").scores.shape == (2, 2, 2)


def test_json_object_attribute_is_canonical_json_text():
    attributes = load(BAD / "eval_arena_hyperparams_object.jsonl").system_attributes
    assert {s: json.loads(v) for s, v in attributes["hyperparams"].items()} == {
        "A": {"temperature": 0.2, "top_p": 1},
        "B": {"temperature": 0.8, "top_p": 1},
    }


def test_nan_string_is_dropped_and_counted():
    table = load(BAD / "nan_string.csv")
    assert table.n_rows == 3
    (exclusion,) = table.exclusions
    assert (exclusion.reason, exclusion.count, exclusion.system) == ("missing score", 1, "B")


def test_disjoint_items_are_unpaired_with_every_item_excluded_from_pairing():
    info = load(BAD / "disjoint_items.csv").pairing("d", "m")
    assert (info.kind, info.recommended, info.n_items, info.n_common) == (
        "unpaired",
        "unpaired",
        6,
        0,
    )


@pytest.mark.parametrize(
    "name", ["constant_metric.csv", "constant_continuous.csv", "eval_arena_constant.jsonl"]
)
@pytest.mark.parametrize("method", ["auto", "permutation", "bootstrap", "sign"])
@pytest.mark.filterwarnings("ignore::reportgen.errors.DegenerateDataWarning")
def test_constant_metric_analysis_finds_no_difference(name, method):
    # closed form: identical scores give a zero difference, p = 1 and no significance;
    # zero-variance differences are a documented DegenerateDataWarning, not an error
    table = load(BAD / name)
    analysis = analyze(table, AnalysisOptions(method=method, n_resamples=199, seed=1))
    rows = list(analysis.comparisons())
    n = len(table.systems)
    assert len(rows) == n * (n - 1) // 2
    for row in rows:
        assert row["diff"] == 0 and row["p_value"] == 1 and not row["significant"]


@pytest.mark.filterwarnings("ignore::reportgen.errors.DegenerateDataWarning")
def test_first_vs_rest_without_baseline_compares_with_the_first_system():
    # not an error: the documented default baseline is the first system (A of A, B, C)
    table = load(BAD / "constant_metric.csv")
    analysis = analyze(table, AnalysisOptions(order="first-vs-rest", seed=1))
    pairs = {(row["system_a"], row["system_b"]) for row in analysis.comparisons()}
    assert pairs == {("A", "B"), ("A", "C")}


@pytest.mark.parametrize(
    "name", ["constant_metric.csv", "constant_continuous.csv", "eval_arena_constant.jsonl"]
)
def test_constant_metric_analyze_writes_results(name, tmp_path, capsys):
    status = main(["analyze", str(BAD / name), "--out", str(tmp_path), "--seed", "1"])
    assert status == 0, capsys.readouterr().err
    results = json.loads(
        (tmp_path / "results.json").read_text(),
        parse_constant=lambda c: pytest.fail(f"{c} in results.json"),
    )
    assert all(row["p_value"] == 1 for row in results["comparisons"])


def test_constant_metric_compare_prints_claims(capsys):
    assert main(["compare", "A", "B", str(BAD / "constant_metric.csv")]) == 0
    family, claim = capsys.readouterr().out.splitlines()  # the family, then one claim
    assert family.startswith("family: ")
    assert claim.startswith("No significant difference between A and B")
    assert "identical scores on all 6 items" in claim


# ------------------------------------------------------------------------ the CLI itself


def test_empty_folder_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "logs").mkdir()
    assert main(["inspect", str(tmp_path / "logs")]) == 2
    assert_matches(
        r"logs: the folder holds no evaluation results reportgen can read", capsys.readouterr().err
    )


def test_unknown_format_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["inspect", str(BAD / "continuous.csv"), "--format", "nosuch"])
    assert exc.value.code == 2
    assert_matches(r"argument --format: invalid choice: 'nosuch'", capsys.readouterr().err)


@pytest.mark.parametrize(
    "args",
    [
        ["inspect", "non_numeric_score.csv"],
        ["inspect", "empty.csv"],
        ["inspect", "inspect_truncated.eval"],
        ["inspect", "continuous.csv", "--config", "config_utf16.toml"],
        ["analyze", "disjoint_items.csv", "--pairing", "paired", "--out", "{tmp}"],
    ],
)
def test_console_script_exits_2_without_traceback(args, tmp_path):
    # the real process: python -m reportgen, as a user runs it
    args = [a.replace("{tmp}", str(tmp_path / "out")) for a in args]
    proc = subprocess.run(
        [sys.executable, "-m", "reportgen", *args], capture_output=True, text=True, cwd=BAD
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("reportgen: error: ")
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""

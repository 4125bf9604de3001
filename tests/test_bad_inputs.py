"""The bad-input corpus: each malformed input gives one pinned, helpful message on stderr,
exit status 2 and no traceback (`reportgen inspect`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.cli import main

BAD = Path(__file__).parent / "bad_inputs"

# (case id, arguments after `reportgen inspect`, regex the message must match)
CASES = [
    ("missing_column", ["missing_column.csv"],
     r"missing_column\.csv, line 1: missing required column\(s\) score; found: system, "
     r"item, value"),
    ("missing_column_forced", ["missing_column.csv", "--format", "long"],
     r"missing required column\(s\) score; found: system, item, value"),
    ("non_numeric_score", ["non_numeric_score.csv"],
     r"non_numeric_score\.csv, line 3, column 'score': score 'abc' is not a number"),
    ("duplicate_rows", ["duplicate_rows.csv"],
     r"1 score\(s\) given more than once; the first: \(system='A', dataset='d', "
     r"metric='m', item='1'\) at .*line 2; .*line 6"),
    ("empty_file", ["empty.csv"], r"empty\.csv: the file is empty \(0 bytes\)"),
    ("header_only", ["header_only.csv"], r"header_only\.csv, line 1: the table has a header "
                                         r"but no rows"),
    ("invalid_json_line", ["invalid_json_line.jsonl"],
     r"invalid_json_line\.jsonl, line 2, column \d+: invalid JSON"),
    ("not_json_object", ["not_json_object.jsonl"],
     r"not_json_object\.jsonl, line 2: expected a JSON object, found list"),
    ("eval_arena_missing_key", ["eval_arena_missing_key.jsonl", "--format", "eval-arena"],
     r"line 2: missing key\(s\) pass1"),
    ("eval_arena_out_of_range", ["eval_arena_out_of_range.jsonl"],
     r"line 2, column 'pass1': pass1 = 1\.5 is outside \[0, 1\]"),
    ("eval_arena_bad_count", ["eval_arena_bad_count.jsonl"],
     r"line 2, column 'count': count = -5 is not a positive whole number"),
    ("eval_arena_not_a_share", ["eval_arena_not_a_share.jsonl"],
     r"line 2, column 'pass1': pass1 = 0\.3 is not a share of count = 5 samples"),
    ("one_system", ["one_system.csv"], r"only one system \('A'\) in the input"),
    ("single_item", ["single_item.csv"], r"every dataset has a single item"),
    ("infinite_score", ["infinite_score.csv"],
     r"infinite_score\.csv, line 3, column 'score': score is infinite"),
    ("latin1", ["latin1.csv"], r"latin1\.csv, line 2: the file is not valid UTF-8"),
    ("ragged", ["ragged.csv"], r"ragged\.csv, line 3: expected 5 fields, found 6"),
    ("empty_system", ["empty_system.csv"],
     r"empty_system\.csv, line 3, column 'system': empty system"),
    ("run_partial", ["run_partial.csv"],
     r"line 3, column 'run': dataset 'd' has a run for some rows and not for others"),
    ("config_binary_on_continuous",
     ["continuous.csv", "--config", "config_binary_on_continuous.toml"],
     r"metric 'm' is declared binary but dataset 'd' has the score 0\.5"),
    ("config_unknown_key", ["continuous.csv", "--config", "config_unknown_key.toml"],
     r"config_unknown_key\.toml: unknown key\(s\) in \[metrics\.m\]: direktion"),
    ("config_bad_direction", ["continuous.csv", "--config", "config_bad_direction.toml"],
     r"metrics\.m\.direction = 'smaller' is not valid.*'higher', 'lower'"),
    ("config_bad_weight", ["continuous.csv", "--config", "config_bad_weight.toml"],
     r"metrics\.m\.weight = -1 is not valid"),
    ("config_invalid_toml", ["continuous.csv", "--config", "config_invalid.toml"],
     r"config_invalid\.toml: invalid TOML"),
    ("config_unknown_section", ["continuous.csv", "--config", "config_unknown_section.toml"],
     r"unknown config section\(s\): colors"),
    ("config_missing", ["continuous.csv", "--config", "no_such_config.toml"],
     r"no_such_config\.toml: config file not found"),
    ("missing_score_raise", ["missing_score.csv", "--nan-policy", "raise"],
     r"missing_score\.csv, line 3, column 'score': missing score \(1 row\(s\)\)"),
    ("no_such_file", ["does_not_exist.csv"], r"does_not_exist\.csv: no such file or folder"),
    ("wide_duplicate_header", ["wide_duplicate_header.csv"],
     r"line 1: column 'A' appears more than once in the header"),
    ("wide_unnamed_column", ["wide_unnamed_column.csv"], r"line 1: a column has no name"),
    ("wide_non_numeric", ["wide_non_numeric.csv"],
     r"wide_non_numeric\.csv, line 2, column 'score': score 'x' is not a number"),
    ("truncated_gzip", ["truncated.csv.gz"], r"truncated\.csv\.gz: cannot decompress"),
    ("corrupt_parquet", ["corrupt.parquet"], r"corrupt\.parquet: cannot read the Parquet file"),
    ("unknown_format", ["unknown.xyz"],
     r"unknown\.xyz: cannot tell the format of this file\n  hint: pass --format with one "
     r"of: .*long"),
    ("system_col_not_found", ["for_column_mapping.csv", "--format", "long",
                              "--system-col", "model"],
     r"column 'model' \(--system-col\) not found; columns are: system, dataset, metric"),
    ("eval_not_a_zip", ["not_a_zip.eval"],
     r"not_a_zip\.eval: the \.eval archive is truncated or corrupt"),
    ("zip_not_an_inspect_log", ["zip_not_a_log.eval"],
     r"zip_not_a_log\.eval: not an Inspect log: the archive has neither header\.json"),
    ("lm_eval_truncated_results", ["lm_eval_truncated"],
     r"results_2026-01-01T00-00-00\.json, line 1, column 38: invalid JSON"),
    ("dataset_option_conflict", ["for_column_mapping.csv", "--dataset", "x"],
     r"--dataset was given but the table has a dataset column"),
    ("config_bad_alpha", ["continuous.csv", "--config", "config_bad_alpha.toml"],
     r"config_bad_alpha\.toml: analysis\.alpha = 1\.5 is not valid\n  hint: a number "
     r"between 0 and 1 \(exclusive\)"),
    ("config_fractional_resamples",
     ["continuous.csv", "--config", "config_fractional_resamples.toml"],
     r"analysis\.n_resamples = 99\.5 is not valid\n  hint: a whole number >= 1"),
    ("config_bad_formats", ["continuous.csv", "--config", "config_bad_formats.toml"],
     r"report\.formats = \['html', 'docx'\] is not valid\n  hint: at least one of 'html', "
     r"'pdf', 'ipynb'"),
    ("config_dashed_key", ["continuous.csv", "--config", "config_dashed_key.toml"],
     r"unknown key\(s\) in \[analysis\]: n-resamples\n  hint: did you mean 'n_resamples'\?"),
]


@pytest.mark.parametrize("args,pattern", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_gives_pinned_message_and_exit_2(args, pattern, capsys, monkeypatch):
    monkeypatch.chdir(BAD)
    assert main(["inspect", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reportgen: error: ")
    assert "Traceback" not in err
    assert "hint: " in err, f"no hint in {err!r}"
    assert_matches(pattern, err)


def assert_matches(pattern: str, text: str) -> None:
    import re
    assert re.search(pattern, text, flags=re.S), f"{pattern!r} not found in {text!r}"


def test_empty_folder_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "logs").mkdir()
    assert main(["inspect", str(tmp_path / "logs")]) == 2
    assert_matches(r"logs: the folder holds no evaluation results reportgen can read",
                   capsys.readouterr().err)


def test_unknown_format_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["inspect", str(BAD / "continuous.csv"), "--format", "nosuch"])
    assert exc.value.code == 2
    assert_matches(r"argument --format: invalid choice: 'nosuch'", capsys.readouterr().err)


def test_corpus_has_at_least_twenty_cases():
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", ["non_numeric_score.csv", "empty.csv", "unknown.xyz"])
def test_console_script_exits_2_without_traceback(case):
    # the real process: python -m reportgen, as a user runs it
    proc = subprocess.run([sys.executable, "-m", "reportgen", "inspect", str(BAD / case)],
                          capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert proc.returncode == 2
    assert proc.stderr.startswith("reportgen: error: ")
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""

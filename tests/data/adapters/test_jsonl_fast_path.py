"""``read_jsonl`` parses a JSON-lines file with one call of the C parser when it can;
the reference is the line-by-line reader ``iter_jsonl`` (one ``json.loads`` per line),
which must give the same records and line numbers, and the same errors."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from reportgen.data.adapters._base import SOURCE_LINE, iter_jsonl, read_jsonl
from reportgen.data.adapters.eval_arena import EvalArenaAdapter, _check_line, _valid
from reportgen.errors import InputError


def _line_by_line(path):
    pairs = list(iter_jsonl(path))
    return [r for _, r in pairs], [n for n, _ in pairs]


@pytest.mark.parametrize(
    "name", ["humaneval+", "terminal-bench-2.0", "lcb_codegen"], ids=lambda n: n
)
def test_real_eval_arena_files_read_as_line_by_line(shared_data, name):
    path = shared_data / "eval-arena" / f"{name}.jsonl"
    records, lines = read_jsonl(path)
    expected, expected_lines = _line_by_line(path)
    assert records == expected
    assert lines.tolist() == expected_lines


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}\n{"a": 2}\n',
        '{"a": 1}\r\n{"a": 2.5}\r\n\r\n  \n',  # CRLF, blank lines at the end
        '{"a": 1}\n\n{"a": 2}\n',  # a blank line inside: numbered by the slow path
        '  \n{"a": 1}\n{"a": NaN, "b": "x\\u2028y"}',  # leading blank, NaN, U+2028
        '{"a": 1, "a": 3}\n{"b": {"c": [1, 2]}}',  # duplicate key, nesting
        '{"a": ' + "9" * 4001 + "}\n",  # an integer Python refuses: a float, as per line
    ],
)
def test_records_and_lines_equal_the_line_by_line_reader(tmp_path, text):
    path = tmp_path / "x.jsonl"
    path.write_text(text, encoding="utf-8")
    records, lines = read_jsonl(path)
    expected, expected_lines = _line_by_line(path)
    assert lines.tolist() == expected_lines
    assert json.dumps(records, default=str) == json.dumps(expected, default=str)


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ('{"a": [1,\n2]}\n', "invalid JSON", 1),  # a value spread over two lines
        ('{"a": 1}\n[1, 2]\n', "expected a JSON object", 2),
        ('{"a": 1}\n{"a": }\n', "invalid JSON", 2),
        ("\n  \n", "no JSON lines", None),
    ],
)
def test_errors_name_the_line_as_the_line_by_line_reader(tmp_path, text, message, line):
    path = tmp_path / "x.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        read_jsonl(path)
    assert caught.value.location.line == line


def _records(**columns):
    n = len(next(iter(columns.values())))
    base = {"benchmark_id": ["b"] * n, "model": ["m"] * n, "example_id": list(range(n))}
    return pd.DataFrame({**base, **columns}).to_dict("records")


@pytest.mark.parametrize(
    "records",
    [
        _records(pass1=[0, 1, 1]),
        _records(pass1=[0.0, 0.5, 1.0], count=[1, 2, 4]),
        _records(pass1=[0.3, 0.5], count=[3, 2]),  # 0.3 x 3 is not whole
        _records(pass1=[1.5, 0.5]),
        _records(pass1=[True, False]),
        _records(pass1=["1", 0]),
        _records(pass1=[0.5, None]),  # a null score: accepted, the nan policy decides
        _records(pass1=[0.5, 0.5], count=[2, 0]),
        _records(pass1=[0.5, 0.5], count=[2.5, 2]),
        [
            {"benchmark_id": "b", "model": "m", "example_id": 1, "pass1": 1},
            {"benchmark_id": "b", "model": "m", "example_id": 2, "pass1": 0.5, "count": 2},
        ],
        [{"benchmark_id": "b", "model": "m", "pass1": 1}],
    ],
)
def test_column_checks_accept_only_what_every_line_check_accepts(records):
    """``_valid`` (whole columns) may only say yes where ``_check_line`` (one line at a
    time, the reference) accepts every line; a no sends the lines through it."""
    frame = pd.DataFrame.from_records(records)
    every_line_ok = True
    for record in records:
        if any(k not in record for k in ("benchmark_id", "model", "example_id", "pass1")):
            every_line_ok = False
            continue
        try:
            _check_line(record, "x.jsonl", 1)
        except InputError:
            every_line_ok = False
    if _valid(frame):
        assert every_line_ok


def test_eval_arena_reads_a_null_score_and_reports_a_bad_line(tmp_path):
    path = tmp_path / "arena.jsonl"
    rows = [
        {"benchmark_id": "b", "model": "m", "example_id": "e1", "pass1": 1},
        {"benchmark_id": "b", "model": "m", "example_id": "e2", "pass1": None},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    frame = EvalArenaAdapter().read(path, options=None).frame  # type: ignore[arg-type]
    assert frame["score"].iloc[0] == 1 and math.isnan(frame["score"].iloc[1])
    assert frame[SOURCE_LINE].tolist() == [1, 2]
    rows.append({"benchmark_id": "b", "model": "m", "example_id": "e3", "pass1": 2})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"pass1 = 2 is outside \[0, 1\]") as caught:
        EvalArenaAdapter().read(path, options=None)  # type: ignore[arg-type]
    assert caught.value.location.line == 3

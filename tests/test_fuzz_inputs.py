"""Fuzzing of the input adapters and the config loader (issue 10, item 3).

Each test starts from a small valid input of one format, damages it at random (cut it
short, flip, insert or delete bytes, duplicate or swap lines, put random values into
fields, drop or add keys) and reads it with :func:`reportgen.data.load` (or
:func:`reportgen.data.load_config`). The contract checked: the input either loads into a
table that passes its own invariants (:func:`check_table`), or the loader raises our
:class:`~reportgen.errors.InputError` (or :class:`~reportgen.errors.ConfigError`) whose
location names the damaged input, with a hint. Any other exception (KeyError,
ValueError, UnicodeDecodeError, OverflowError, ...) fails the test.

The CI variant runs a few dozen examples per format, derandomized and without an
example database so that every run tries the same inputs; the ``slow``-marked variant
runs many more (``bash tests/run.sh -m slow tests/test_fuzz_inputs.py``).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.config import options
from reportgen.data import LoadOptions, ScoreTable, TableConfig, load, load_config
from reportgen.errors import ConfigError, InputError
from reportgen.names import (
    ALTERNATIVES,
    CI_METHODS,
    CORPUS_METRICS,
    CORRECTIONS,
    METHODS,
    ORDERS,
    PAIRINGS,
)

#: Examples per fuzz test in CI (the whole module stays well under a minute) and in the
#: slow variant.
FAST_EXAMPLES = 60
SLOW_EXAMPLES = 1000


def fuzz_settings(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=True,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )


# ============================================================================ seeds


def _csv(rows: list[list[Any]], *, delimiter: str = ",", newline: str = "\n") -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator=newline).writerows(rows)
    return out.getvalue().encode()


SYSTEMS = ("gpt-a", "gpt-b", "llama")
ITEMS = ("q1", "q2", "q3", "q4")

LONG_ROWS: list[list[Any]] = [["system", "dataset", "metric", "item", "score", "difficulty"]] + [
    [
        s,
        d,
        m,
        i,
        (k * 7 + j * 3 + len(s)) % 2 if m == "acc" else round(0.1 * (k + j + 1), 2),
        "hard" if k > 1 else "easy",
    ]
    for d in ("math", "code")
    for m in ("acc", "f1")
    for j, s in enumerate(SYSTEMS)
    for k, i in enumerate(ITEMS)
]
WIDE_ROWS: list[list[Any]] = [["item", *SYSTEMS]] + [
    [i, *(round(0.1 * (k + j + 1), 2) for j in range(len(SYSTEMS)))] for k, i in enumerate(ITEMS)
]
LONG_RECORDS = [dict(zip(LONG_ROWS[0], row, strict=True)) for row in LONG_ROWS[1:]]
ARENA_RECORDS = [
    {
        "benchmark_id": "humaneval",
        "model": s,
        "example_id": f"HumanEval/{k}",
        "pass1": [0.0, 0.2, 0.4, 1.0][(k + j) % 4],
        "count": 5,
    }
    for j, s in enumerate(SYSTEMS)
    for k in range(4)
]

LM_DATE = "2026-01-01T00-00-00.000001"


def _lm_results(model: str, k: int) -> dict[str, Any]:
    return {
        "results": {"tiny": {"alias": "tiny", "acc,none": 0.5, "acc_stderr,none": 0.1}},
        "group_subtasks": {"tiny": []},
        "configs": {
            "tiny": {"task": "tiny", "metric_list": [{"metric": "acc", "aggregation": "mean"}]}
        },
        "higher_is_better": {"tiny": {"acc": True}},
        "model_name": model,
        "config": {"model": "hf", "model_args": f"pretrained={model}"},
        "date": 1.7e9 + k,
        "lm_eval_version": "0.4.9",
    }


def _lm_samples(k: int) -> list[dict[str, Any]]:
    return [
        {
            "doc_id": i,
            "doc": {"q": f"question {i}"},
            "filter": "none",
            "metrics": ["acc"],
            "doc_hash": f"hash{i}",
            "acc": float((i + k) % 2),
        }
        for i in range(4)
    ]


def _inspect_header(model: str) -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {"task": "arith", "model": model, "task_args": {}, "config": {"epochs": 2}},
        "plan": {"steps": [{"solver": "generate", "params": {}}]},
        "results": {"scores": [{"name": "match", "scorer": "match"}]},
    }


def _inspect_summaries(k: int) -> list[dict[str, Any]]:
    return [
        {
            "id": i,
            "epoch": e,
            "scores": {
                "match": {"value": "CI"[(i + e + k) % 2]},
                "stats": {"value": {"exact": (i + k) % 2 == 0, "length": 10 + i}},
            },
        }
        for i in range(1, 4)
        for e in (1, 2)
    ]


def _helm_run(model: str, k: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    spec = {
        "name": f"mmlu:subject=anatomy,model={model}",
        "adapter_spec": {"model": f"org/{model}", "model_deployment": f"org/{model}"},
    }
    stats = [
        {
            "instance_id": f"id{i}",
            "train_trial_index": 0,
            "stats": [
                {
                    "name": {"name": "exact_match", "split": "test"},
                    "count": 1,
                    "sum": (i + k) % 2,
                    "mean": float((i + k) % 2),
                },
                {
                    "name": {
                        "name": "num_output_tokens",
                        "split": "test",
                        "perturbation": {"name": "typos", "computed_on": "perturbed"},
                    },
                    "count": 1,
                    "sum": 3 + i,
                    "mean": 3.0 + i,
                },
            ],
        }
        for i in range(4)
    ]
    return spec, stats


def _parquet(rows: list[list[Any]]) -> bytes:
    import pandas as pd

    out = io.BytesIO()
    pd.DataFrame(rows[1:], columns=rows[0]).to_parquet(out, index=False)
    return out.getvalue()


def _eval_zip(header: Any, summaries: Any) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", _json(header))
        archive.writestr("summaries.json", _json(summaries))
    return out.getvalue()


def _json(value: Any) -> str:
    # unescaped non-ASCII, as most evaluation tools write it
    return json.dumps(value, allow_nan=True, default=str, ensure_ascii=False)


def _jsonl(records: list[Any]) -> bytes:
    return "".join(_json(r) + "\n" for r in records).encode()


CONFIG_TOML = b"""# a valid config
[input]
nan_policy = "drop"

[analysis]
pairing = "auto"
method = "permutation"
order = "first-vs-rest"
baseline = "gpt-a"
alpha = 0.05
confidence = 0.95
n_resamples = 999
seed = 7
group_by = ["difficulty"]

[report]
title = "Fuzz"
formats = ["html", "pdf"]
max_table_rows = 20

[metrics.acc]
direction = "higher"
modality = "binary"
weight = 2.0

[datasets.math]
weight = 1.5

[systems.gpt-a]
family = "gpt"
size = 7
"""


# ============================================================================ mutations

#: Byte strings that tend to break parsers: delimiters, quotes, line ends, encodings,
#: special numbers, JSON punctuation.
JUNK = (
    b",",
    b";",
    b"\t",
    b"\n",
    b"\r",
    b"\r\n",
    b'"',
    b"'",
    b"\x00",
    b"\xff\xfe",
    b"\xef\xbb\xbf",
    b"\xe9",
    b"\xc3",
    b"NaN",
    b"nan",
    b"inf",
    b"-Infinity",
    b"1e999",
    b"-1",
    b"0",
    b"1" + b"0" * 40,
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b"null",
    b"true",
    b"",
    b"\\",
    b"#",
    b"=",
    b"\xf0\x9f\x98\x80",
    b" ",
    "\u2028".encode(),
    b"\xc2\x85",
    b"\x0c",
    b"9" * 4400,
)


@st.composite
def mutated_bytes(draw: st.DrawFn, seed: bytes) -> bytes:
    """``seed`` with one to four random edits."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(("truncate", "flip", "insert", "delete", "line", "swap")))
        at = draw(st.integers(0, len(data)))
        if op == "truncate":
            del data[at:]
        elif op == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif op == "insert":
            junk = draw(st.one_of(st.sampled_from(JUNK), st.binary(max_size=6)))
            data[at:at] = junk
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        elif op in ("line", "swap"):
            lines = bytes(data).splitlines(keepends=True)
            if len(lines) >= 2:
                i, j = (draw(st.integers(0, len(lines) - 1)) for _ in range(2))
                if op == "line":
                    lines.insert(j, lines[i])
                else:
                    lines[i], lines[j] = lines[j], lines[i]
                data = bytearray(b"".join(lines))
    return bytes(data)


#: Cell texts of a CSV field: numbers in every spelling, missing markers, names.
CELL = st.one_of(
    st.sampled_from(
        (
            "",
            " ",
            "NaN",
            "nan",
            "NA",
            "null",
            "None",
            "inf",
            "-inf",
            "Infinity",
            "1e999",
            "-0",
            "0",
            "1",
            "0.5",
            "2",
            "-1",
            "true",
            "False",
            "1,5",
            "0x1",
            "1_000",
            "q1",
            "gpt-a",
            "math",
            "acc",
            "é",
            '"',
            "\n",
        )
    ),
    st.text(max_size=8),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**30), 10**30).map(str),
)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    )


#: Any JSON value, including the special floats Python writes and huge integers.
JSON_VALUE = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**400), 10**400),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=8),
        st.sampled_from(("C", "I", "P", "N", "yes", "0.5", "inf", "", "none")),
    ),
    _containers,
    max_leaves=6,
)


@st.composite
def mutated_rows(draw: st.DrawFn, rows: list[list[Any]]) -> list[list[Any]]:
    """``rows`` with random cells replaced, rows dropped or duplicated."""
    rows = [list(r) for r in rows]
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(("cell", "cell", "cell", "drop", "duplicate", "column")))
        i = draw(st.integers(0, len(rows) - 1))
        if op == "cell" and rows[i]:
            rows[i][draw(st.integers(0, len(rows[i]) - 1))] = draw(CELL)
        elif op == "drop" and len(rows) > 1:
            del rows[i]
        elif op == "duplicate":
            rows.insert(draw(st.integers(0, len(rows))), list(rows[i]))
        elif op == "column":
            rows[i].append(draw(CELL))
    return rows


def _paths(tree: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside nested dicts and lists."""
    found = [prefix]
    if isinstance(tree, dict):
        for key, value in tree.items():
            found.extend(_paths(value, (*prefix, key)))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            found.extend(_paths(value, (*prefix, index)))
    return found


@st.composite
def mutated_json(draw: st.DrawFn, tree: Any, *, edits: int = 3) -> Any:
    """A deep copy of ``tree`` with values replaced by random JSON, keys deleted or added."""
    tree = json.loads(json.dumps(tree))
    for _ in range(draw(st.integers(1, edits))):
        paths = [p for p in _paths(tree) if p]
        if not paths:
            return draw(JSON_VALUE)
        path = draw(st.sampled_from(paths))
        parent = tree
        for step in path[:-1]:
            parent = parent[step]
        op = draw(st.sampled_from(("replace", "replace", "delete", "add")))
        if op == "replace":
            parent[path[-1]] = draw(JSON_VALUE)
        elif op == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = draw(JSON_VALUE)
        else:
            parent.append(draw(JSON_VALUE))
    return tree


# ============================================================================ the contract


def check_table(table: ScoreTable) -> None:
    """The invariants every loaded table satisfies."""
    assert isinstance(table, ScoreTable)
    frame = table.frame
    for column in ("system", "dataset", "metric", "item", "score"):
        assert column in frame.columns
    scores = frame["score"].to_numpy()
    assert scores.dtype == np.float64
    assert np.isfinite(scores).all(), "a loaded score is NaN or infinite"
    key = [c for c in ("system", "dataset", "metric", "item", "run") if c in frame.columns]
    assert not frame.duplicated(key).any(), "a (system, dataset, metric, item, run) repeats"
    for column in ("system", "dataset", "metric", "item"):
        labels = frame[column]
        assert labels.map(lambda v: isinstance(v, str) and v.strip() != "").all(), column
    assert len(table.systems) >= 2
    assert tuple(dict.fromkeys(frame["system"])) == table.systems
    assert tuple(dict.fromkeys(frame["dataset"])) == table.datasets
    assert set(frame["metric"]) == set(table.metrics)
    for dataset, metric in table.pairs():
        rows = frame[(frame["dataset"] == dataset) & (frame["metric"] == metric)]
        if table.modality(dataset, metric) == "binary":
            assert rows["score"].isin([0.0, 1.0]).all()
        info = table.pairing(dataset, metric)
        assert 0 <= info.n_common <= info.n_items
        unpaired = table.unpaired(dataset, metric)
        assert sum(unpaired.sizes) >= info.n_items
        if info.n_common:
            paired = table.paired(dataset, metric)
            assert paired.scores.shape[:2] == (info.n_common, info.n_systems)
    json.dumps(table.summary(), allow_nan=False)


def check_error(error: InputError, inputs: list[Path]) -> None:
    """Our error, saying where (the input it is about) and what to do."""
    assert error.message
    assert error.hint, f"no hint: {error}"
    assert error.location is not None and error.location.file, f"no location: {error}"
    named = str(error.location.file)
    assert any(str(p) in named for p in inputs), f"{named!r} does not name {inputs}"
    if error.location.line is not None:
        assert error.location.line >= 1
        text = Path(named)
        if text.is_file() and text.suffix in (".csv", ".tsv", ".jsonl", ".toml"):
            # a line of a text file is one of its lines (Inspect logs, .eval or .json,
            # number sample records instead)
            lines = text.read_bytes().replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            assert error.location.line <= lines.count(b"\n") + 1, error
    if isinstance(error.location.column, int):
        assert error.location.column >= 1


def load_or_error(paths: list[Path], named: list[Path], **options: Any) -> None:
    """Load ``paths``: a valid table, or our error naming one of ``named``."""
    try:
        table = load(paths, options=LoadOptions(**options))
    except InputError as error:
        check_error(error, named)
    else:
        check_table(table)


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _in_tmp(check: Callable[[Path], None]) -> None:
    with tempfile.TemporaryDirectory(prefix="reportgen-fuzz-") as tmp:
        check(Path(tmp))


# ============================================================================ cases
# Each case is a strategy of "input writers" (a function that writes the damaged input into
# a fresh folder and returns the paths to load and the files an error may name) plus the
# load options drawn alongside.

Writer = Callable[[Path], tuple[list[Path], list[Path]]]


def _single(name: str, data: bytes) -> Writer:
    def write(tmp: Path) -> tuple[list[Path], list[Path]]:
        path = _write(tmp, name, data)
        return [path], [path]

    return write


def _long_csv_bytes() -> st.SearchStrategy[bytes]:
    seed = _csv(LONG_ROWS)
    return st.one_of(
        mutated_bytes(seed),
        st.builds(
            lambda rows, nl: _csv(rows, newline=nl),
            mutated_rows(LONG_ROWS),
            st.sampled_from(("\n", "\r\n", "\r")),
        ),
    )


def _lm_eval_writer() -> st.SearchStrategy[Writer]:
    files: dict[str, Any] = {}
    for k, model in enumerate(("model-a", "model-b")):
        files[f"{model}/results_{LM_DATE}.json"] = _lm_results(model, k)
        files[f"{model}/samples_tiny_{LM_DATE}.jsonl"] = _lm_samples(k)

    @st.composite
    def writer(draw: st.DrawFn) -> Writer:
        target = draw(st.sampled_from(sorted(files)))
        content = {
            name: (json.dumps(v, indent=1).encode() if name.endswith(".json") else _jsonl(v))
            for name, v in files.items()
        }
        if draw(st.booleans()):
            content[target] = draw(mutated_bytes(content[target]))
        else:
            tree = draw(mutated_json(files[target]))
            content[target] = (
                _jsonl(tree)
                if target.endswith(".jsonl") and isinstance(tree, list)
                else _json(tree).encode()
            )

        def write(tmp: Path) -> tuple[list[Path], list[Path]]:
            for name, data in content.items():
                _write(tmp / "out", name, data)
            return [tmp / "out"], [tmp / "out"]

        return write

    return writer()


def _inspect_writer() -> st.SearchStrategy[Writer]:
    @st.composite
    def writer(draw: st.DrawFn) -> Writer:
        logs = {
            f"{m}.eval": (_inspect_header(f"mockllm/{m}"), _inspect_summaries(k))
            for k, m in enumerate(("alpha", "beta"))
        }
        content = {name: _eval_zip(*parts) for name, parts in logs.items()}
        target = draw(st.sampled_from(sorted(logs)))
        how = draw(st.sampled_from(("bytes", "header", "summaries", "json")))
        header, summaries = logs[target]
        if how == "bytes":
            content[target] = draw(mutated_bytes(content[target]))
        elif how == "header":
            content[target] = _eval_zip(draw(mutated_json(header)), summaries)
        elif how == "summaries":
            content[target] = _eval_zip(header, draw(mutated_json(summaries)))
        else:  # a .json log instead of the archive
            del content[target]
            log = draw(mutated_json({**header, "samples": summaries}))
            content[target.replace(".eval", ".json")] = _json(log).encode()

        def write(tmp: Path) -> tuple[list[Path], list[Path]]:
            for name, data in content.items():
                _write(tmp / "logs", name, data)
            return [tmp / "logs"], [tmp / "logs"]

        return write

    return writer()


def _helm_writer() -> st.SearchStrategy[Writer]:
    runs = {f"run_{m}": _helm_run(m, k) for k, m in enumerate(("model-a", "model-b"))}

    @st.composite
    def writer(draw: st.DrawFn) -> Writer:
        content = {}
        for run, (spec, stats) in runs.items():
            content[f"{run}/run_spec.json"] = json.dumps(spec, indent=1).encode()
            content[f"{run}/per_instance_stats.json"] = json.dumps(stats, indent=1).encode()
        target = draw(st.sampled_from(sorted(content)))
        spec, stats = runs[target.split("/")[0]]
        tree = spec if target.endswith("run_spec.json") else stats
        if draw(st.booleans()):
            content[target] = draw(mutated_bytes(content[target]))
        else:
            content[target] = _json(draw(mutated_json(tree))).encode()

        def write(tmp: Path) -> tuple[list[Path], list[Path]]:
            for name, data in content.items():
                _write(tmp / "suite", name, data)
            return [tmp / "suite"], [tmp / "suite"]

        return write

    return writer()


CASES: dict[str, tuple[st.SearchStrategy[Writer], st.SearchStrategy[str | None]]] = {
    "long_csv": (
        _long_csv_bytes().map(lambda b: _single("scores.csv", b)),
        st.sampled_from((None, "long", "wide")),
    ),
    "long_csv_gz": (
        mutated_bytes(gzip.compress(_csv(LONG_ROWS), mtime=0)).map(
            lambda b: _single("scores.csv.gz", b)
        ),
        st.sampled_from((None, "long")),
    ),
    "wide_tsv": (
        st.one_of(
            mutated_bytes(_csv(WIDE_ROWS, delimiter="\t")),
            mutated_rows(WIDE_ROWS).map(lambda r: _csv(r, delimiter="\t")),
        ).map(lambda b: _single("acc.tsv", b)),
        st.sampled_from((None, "wide")),
    ),
    "long_jsonl": (
        st.one_of(
            mutated_bytes(_jsonl(LONG_RECORDS)),
            mutated_json(LONG_RECORDS).map(
                lambda t: _jsonl(t) if isinstance(t, list) else _json(t).encode()
            ),
        ).map(lambda b: _single("scores.jsonl", b)),
        st.sampled_from((None, "long", "eval-arena")),
    ),
    "eval_arena": (
        st.one_of(
            mutated_bytes(_jsonl(ARENA_RECORDS)),
            mutated_json(ARENA_RECORDS).map(
                lambda t: _jsonl(t) if isinstance(t, list) else _json(t).encode()
            ),
        ).map(lambda b: _single("humaneval.jsonl", b)),
        st.sampled_from((None, "eval-arena", "long")),
    ),
    "lm_eval": (_lm_eval_writer(), st.sampled_from((None, "lm-eval"))),
    "inspect": (_inspect_writer(), st.sampled_from((None, "inspect"))),
    "helm": (_helm_writer(), st.sampled_from((None, "helm"))),
    "parquet": (
        mutated_bytes(_parquet(LONG_ROWS)).map(lambda b: _single("scores.parquet", b)),
        st.sampled_from((None, "long", "wide")),
    ),
}


def _run_case(name: str, max_examples: int) -> None:
    writers, formats = CASES[name]

    @fuzz_settings(max_examples)
    @given(writer=writers, fmt=formats, nan_policy=st.sampled_from(("drop", "raise")))
    def check(writer: Writer, fmt: str | None, nan_policy: str) -> None:
        def run(tmp: Path) -> None:
            paths, named = writer(tmp)
            load_or_error(paths, named, format=fmt, nan_policy=nan_policy)

        _in_tmp(run)

    check()


@pytest.mark.parametrize("name", sorted(CASES))
def test_fuzz_adapter_loads_or_raises_located_input_error(name):
    _run_case(name, FAST_EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_fuzz_adapter_loads_or_raises_located_input_error_many(name):
    _run_case(name, SLOW_EXAMPLES)


# ============================================================================ config

#: Values that are valid for some key, so random documents also pass validation.
_VALID_LOOKING = st.sampled_from(
    (
        *PAIRINGS,
        *METHODS,
        *ORDERS,
        *ALTERNATIVES,
        *CORRECTIONS,
        *CI_METHODS,
        "drop",
        "raise",
        "higher",
        "lower",
        "binary",
        "continuous",
        "html",
        "long",
        0.05,
        0.5,
        0.95,
        1,
        2,
        999,
        7,
        True,
        False,
        "gpt-a",
        ["html"],
        ["difficulty"],
        [CORPUS_METRICS[0]],
    )
)
TOML_VALUE = st.recursive(
    st.one_of(
        st.text(max_size=8),
        st.integers(-(2**63), 2**63 - 1),
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.dates(),
        _VALID_LOOKING,
    ),
    _containers,
    max_leaves=4,
)
_NAMED = {
    "metrics": ("direction", "modality", "weight"),
    "datasets": ("weight",),
    "systems": ("family", "size"),
}


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
        )
    return value.isoformat()  # a date


def _toml(document: dict[str, dict[str, Any]]) -> bytes:
    lines = []
    for section, body in document.items():
        lines.append(f"[{section}]")
        lines.extend(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in body.items())
    return "\n".join(lines).encode() + b"\n"


@st.composite
def config_documents(draw: st.DrawFn) -> bytes:
    """A TOML document built from the config schema: known sections and keys (now and
    then an unknown one) with values of any type."""
    sections: dict[str, dict[str, Any]] = {}
    plain = {
        section: sorted(o.key for o in options(section, config=True))
        for section in ("analysis", "input", "report")
    }
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from((*plain, *_NAMED, "unknown")))
        if kind in plain:
            name, keys = kind, plain[kind]
        elif kind in _NAMED:
            name = f"{kind}.{json.dumps(draw(st.sampled_from(('acc', 'math', 'gpt-a', ''))))}"
            keys = list(_NAMED[kind])
        else:
            name, keys = draw(st.sampled_from(("colors", "analysis.sub", "metrics"))), ["x"]
        body = sections.setdefault(name, {})
        for _ in range(draw(st.integers(0, 4))):
            key = draw(st.one_of(st.sampled_from(keys), st.sampled_from(("alpah", "n-resamples"))))
            body[key] = draw(TOML_VALUE)
    return _toml(sections)


def check_config(config: TableConfig) -> None:
    """What a config that loads holds is valid for the library."""
    from reportgen.analysis import AnalysisOptions

    assert isinstance(config, TableConfig)
    analysis = dict(config.analysis)
    AnalysisOptions(
        **{k: v for k, v in analysis.items() if k in AnalysisOptions.__dataclass_fields__}
    )
    LoadOptions(**{k: v for k, v in config.input.items() if k != "data"})
    for spec in config.metrics.values():
        assert spec.weight is None or (math.isfinite(spec.weight) and spec.weight > 0)


def _config_or_error(data: bytes) -> None:
    def run(tmp: Path) -> None:
        path = _write(tmp, "reportgen.toml", data)
        try:
            config = load_config(path)
        except ConfigError as error:
            check_error(error, [path])
        else:
            check_config(config)

    _in_tmp(run)


CONFIG_CASES = {"bytes": mutated_bytes(CONFIG_TOML), "schema": config_documents()}


def _run_config(name: str, max_examples: int) -> None:
    @fuzz_settings(max_examples)
    @given(data=CONFIG_CASES[name])
    def check(data: bytes) -> None:
        _config_or_error(data)

    check()


@pytest.mark.parametrize("name", sorted(CONFIG_CASES))
def test_fuzz_config_loads_or_raises_located_config_error(name):
    _run_config(name, 3 * FAST_EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIG_CASES))
def test_fuzz_config_loads_or_raises_located_config_error_many(name):
    _run_config(name, 3 * SLOW_EXAMPLES)


def test_fuzz_seeds_are_valid_inputs():
    # the undamaged seeds load (or the fuzz tests would only ever see errors)
    def run(tmp: Path) -> None:
        table = load(_write(tmp, "s.csv", _csv(LONG_ROWS)))
        assert len(table.systems) == 3 and set(table.datasets) == {"math", "code"}
        assert load(_write(tmp, "acc.tsv", _csv(WIDE_ROWS, delimiter="\t"))).n_rows == 12
        assert load(_write(tmp, "s.jsonl", _jsonl(LONG_RECORDS))).n_rows == len(LONG_RECORDS)
        assert load(_write(tmp, "h.jsonl", _jsonl(ARENA_RECORDS))).n_rows == 12
        assert load(_write(tmp, "s.csv.gz", gzip.compress(_csv(LONG_ROWS)))).n_rows == 48
        for k, model in enumerate(("model-a", "model-b")):
            _write(
                tmp / "lm", f"{model}/results_{LM_DATE}.json", _json(_lm_results(model, k)).encode()
            )
            _write(tmp / "lm", f"{model}/samples_tiny_{LM_DATE}.jsonl", _jsonl(_lm_samples(k)))
            _write(
                tmp / "logs",
                f"{model}.eval",
                _eval_zip(_inspect_header(model), _inspect_summaries(k)),
            )
        assert load(tmp / "lm").n_rows == 8
        assert load(tmp / "logs").systems == ("model-a", "model-b")
        for k, model in enumerate(("model-a", "model-b")):
            spec, stats = _helm_run(model, k)
            _write(tmp / "helm", f"run_{model}/run_spec.json", _json(spec).encode())
            _write(tmp / "helm", f"run_{model}/per_instance_stats.json", _json(stats).encode())
        helm = load(tmp / "helm")  # num_output_tokens is bookkeeping: descriptive only
        assert helm.n_rows == 8 and len(helm.descriptive) == 2  # 2 systems
        assert load(_write(tmp, "s.parquet", _parquet(LONG_ROWS))).n_rows == 48
        config = load_config(_write(tmp, "c.toml", CONFIG_TOML))
        check_config(config)
        assert config.analysis["n_resamples"] == 999

    _in_tmp(run)

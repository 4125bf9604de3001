"""Long tables in CSV, TSV, Parquet and JSON lines, with column mapping.

Reference: the same rows written by pandas in each format must give the same table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from reportgen.data import LoadOptions, detect_format, load
from reportgen.errors import InputError


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    rows = [
        {
            "system": s,
            "dataset": d,
            "metric": "em",
            "item": f"{d}{i:03d}",
            "score": float(rng.integers(0, 2)),
            "lang": "py" if i % 2 else "js",
        }
        for d in ("x", "y")
        for s in ("A", "B", "C")
        for i in range(20)
    ]
    return pd.DataFrame(rows)


def _write(frame, path):
    suffix = path.name.split(".", 1)[1]
    if suffix == "csv":
        frame.to_csv(path, index=False)
    elif suffix == "csv.gz":
        frame.to_csv(path, index=False, compression="gzip")
    elif suffix == "tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif suffix == "parquet":
        frame.to_parquet(path, index=False)
    elif suffix == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in frame.to_dict("records")))


@pytest.mark.parametrize("name", ["t.csv", "t.csv.gz", "t.tsv", "t.parquet", "t.jsonl"])
def test_long_formats_give_the_same_table(tmp_path, frame, name):
    path = tmp_path / name
    _write(frame, path)
    assert detect_format(path).name == "long"
    table = load(path)
    assert table.systems == ("A", "B", "C") and table.datasets == ("x", "y")
    view = table.paired("y", "em")
    ref = frame[frame.dataset == "y"].pivot(index="item", columns="system", values="score")
    np.testing.assert_array_equal(view.scores, ref.loc[list(view.items), list(view.systems)])
    assert table.item_metadata.loc[("x", "x001"), "lang"] == "py"
    assert table.modality("x", "em") == "binary"


def test_long_column_mapping(tmp_path, frame):
    path = tmp_path / "t.csv"
    frame.rename(
        columns={"system": "model", "item": "qid", "score": "value", "dataset": "task"}
    ).to_csv(path, index=False)
    opts = LoadOptions(system_col="model", item_col="qid", score_col="value", dataset_col="task")
    table = load(path, options=opts)
    assert table.systems == ("A", "B", "C") and table.datasets == ("x", "y")


def test_long_without_dataset_and_metric_columns(tmp_path, frame):
    path = tmp_path / "results.csv"
    frame[frame.dataset == "x"].drop(columns=["dataset", "metric"]).to_csv(path, index=False)
    table = load(path)
    assert table.datasets == ("results",) and list(table.metrics) == ["score"]
    table = load(path, options=LoadOptions(dataset="mmlu", metric="acc"))
    assert table.datasets == ("mmlu",) and list(table.metrics) == ["acc"]


def test_long_run_column_is_numeric(tmp_path):
    path = tmp_path / "t.csv"
    rows = ["system,item,run,score"] + [
        f"{s},{i},{r},{(i + r) % 2}" for s in "AB" for i in range(3) for r in (10, 2, 1)
    ]
    path.write_text("\n".join(rows) + "\n")
    table = load(path)
    assert table.runs_of("t") == (1, 2, 10)  # numeric order, not text order


def test_several_files_combined(tmp_path, frame):
    a, b = tmp_path / "a.csv", tmp_path / "b.jsonl"
    _write(frame[frame.dataset == "x"], a)
    _write(frame[frame.dataset == "y"], b)
    table = load([a, b])
    assert table.datasets == ("x", "y")
    assert [s["format"] for s in table.sources] == ["long", "long"]


def test_long_input_validation(tmp_path, frame):
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(
        InputError,
        match=r"--metric was given but the table has a metric "
        r"column",
    ):
        load(path, options=LoadOptions(metric="acc"))
    frame.assign(model="m").to_csv(path, index=False)
    with pytest.raises(
        InputError,
        match=r"--system-col model would replace the existing "
        r"column 'system'",
    ):
        load(path, options=LoadOptions(system_col="model"))


def test_predictions_give_accuracy_and_a_predictions_view(tmp_path):
    path = tmp_path / "cls.csv"
    path.write_text(
        "system,item,prediction,reference\n"
        "A,1,cat,cat\nA,2,dog,cat\nA,3,bird,bird\nA,4,,dog\n"
        "B,1,cat,cat\nB,2,cat,cat\nB,3,dog,bird\nB,4,dog,dog\n"
    )
    table = load(path)
    assert list(table.metrics) == ["accuracy"] and table.modality("cls", "accuracy") == "binary"
    # exact match, a missing prediction counts as wrong (reference: the rows above)
    np.testing.assert_array_equal(
        table.paired("cls", "accuracy").scores, [[1, 1], [0, 1], [1, 0], [0, 1]]
    )
    assert table.has_predictions("cls", "accuracy")
    view = table.predictions("cls", "accuracy")
    assert view.predictions.tolist() == [
        ["cat", "cat"],
        ["dog", "cat"],
        ["bird", "dog"],
        [None, "dog"],
    ]
    assert view.references.tolist() == ["cat", "cat", "bird", "dog"]
    assert "prediction" in table.frame.columns and "reference" in table.frame.columns


def test_predictions_with_runs_and_mapped_columns(tmp_path):
    path = tmp_path / "cls.jsonl"
    rows = [
        {"system": s, "item": i, "seed": r, "pred": p, "gold": "y"}
        for s in "AB"
        for i in range(3)
        for r in range(2)
        for p in [("y" if (i + r) % 2 else "n")]
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    opts = LoadOptions(prediction_col="pred", reference_col="gold", run_col="seed")
    table = load(path, options=opts)
    view = table.predictions("cls", "accuracy")
    assert view.predictions.shape == (3, 2, 2) and view.runs == (0, 1)
    assert table.paired("cls", "accuracy").scores[0, 0].tolist() == [0.0, 1.0]


def test_predictions_input_validation(tmp_path):
    path = tmp_path / "cls.csv"
    path.write_text("system,item,prediction,reference\nA,1,x,x\nB,1,x,y\nA,2,x,x\nB,2,y,x\n")
    with pytest.raises(
        InputError,
        match=r"item '1' of dataset 'cls' has different "
        r"references: .*line 2 \('x'\); .*line 3 \('y'\)",
    ):
        load(path)
    path.write_text("system,item,prediction,reference\nA,1,x,x\nB,1,x,\nA,2,x,x\nB,2,y,x\n")
    with pytest.raises(InputError, match=r"line 3, column 'reference': missing reference"):
        load(path)
    scores = tmp_path / "s.csv"
    scores.write_text("system,item,score\nA,1,1\nB,1,0\nA,2,1\nB,2,1\n")
    with pytest.raises(InputError, match="has no predictions"):
        load(scores).predictions("s", "score")


@pytest.mark.parametrize(
    "text",
    [
        "system,item,score\nA,q1,1\nA,q2,0\nB,q1,\nB,q2,1\n",
        "system, item, score\nA, q1, 1\nA,  q2,0\nB, , 1\n",  # spaces after commas
        'system,item,score\nA,"q, 1",1\nA,"say ""hi""",0\n',  # quotes
        'system,item,score\nA,"two\nlines",1\nB,x,0\n',  # a quoted line break
        "system,item,score\nA,q1,1,extra\nB,q2,0\n",  # a ragged row
    ],
)
def test_fast_csv_reader_reads_as_the_c_parser(text):
    # reference: pandas' C parser with the options read_table used before
    import io

    import pandas as pd

    from reportgen.data.adapters._tabular import _read_csv_fast

    fast = _read_csv_fast(text, ",")
    try:
        ref = pd.read_csv(
            io.StringIO(text),
            sep=",",
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            skipinitialspace=True,
        )
    except pd.errors.ParserError:
        assert fast is None  # the C parser then reads it and says where
        return
    if fast is None:  # pyarrow declined (e.g. a quoted line break)
        return
    fast.columns = [c.strip() for c in fast.columns]
    ref.columns = [c.strip() for c in ref.columns]
    pd.testing.assert_frame_equal(fast.astype(object), ref.astype(object))


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_row_lines_against_the_csv_module(ending):
    """The line each row starts on, with every line ending, a blank line and a line
    break inside a quoted field; reference: the csv module's ``line_num`` of each record."""
    import csv
    import io

    from reportgen.data.adapters._tabular import _row_lines

    for rows in (
        ["system,item,score", "a,q1,1", "a,q2,0", "b,q1,1"],
        ["system,item,score", "a,q1,1", "", "a,q2,0", 'b,"q\n1",1'],
    ):
        text = ending.join(rows) + ending
        starts, start = [], 1
        reader = csv.reader(io.StringIO(text, newline=""))
        for record in reader:
            if any(cell.strip() for cell in record):
                starts.append(start)
            start = reader.line_num + 1
        n_rows = len(starts) - 1
        assert _row_lines(text, ",", n_rows).tolist() == starts[1:]

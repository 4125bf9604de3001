"""Wide tables (one column per system), on the real ibm-rag files.

Reference: the csv module reading the same files."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from reportgen.data import LoadOptions, detect_format, load
from reportgen.errors import InputError


def _csv_columns(path):
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    return header, {name: [float(r[j]) for r in body] for j, name in enumerate(header)}


def test_ibm_rag_is_one_paired_dataset_with_three_metrics(shared_data):
    folder = shared_data / "ibm-rag"
    table = load(folder)
    assert table.datasets == ("ibm-rag",)
    assert set(table.metrics) == {"precision", "recall", "sbert"}
    assert len(table.systems) == 6
    for metric in ("precision", "recall", "sbert"):
        info = table.pairing("ibm-rag", metric)
        assert (info.kind, info.n_items, info.n_systems) == ("paired", 140, 6)
        assert table.modality("ibm-rag", metric) == "continuous"
        header, columns = _csv_columns(folder / f"{metric}.csv")
        view = table.paired("ibm-rag", metric)
        assert view.systems == tuple(header)
        np.testing.assert_array_equal(view.scores, np.column_stack([columns[h] for h in header]))
    assert len(table.items_of("ibm-rag")) == 140


def test_ibm_rag_files_detected_as_wide(shared_data):
    for path in sorted((shared_data / "ibm-rag").glob("*.csv")):
        assert detect_format(path).name == "wide"


def test_wide_names_from_options(shared_data):
    table = load(
        shared_data / "ibm-rag" / "recall.csv", options=LoadOptions(dataset="rag", metric="rec")
    )
    assert table.datasets == ("rag",) and list(table.metrics) == ["rec"]


def test_wide_item_column_and_missing_cells(tmp_path):
    path = tmp_path / "acc.tsv"
    path.write_text("item\tA\tB\nq1\t1\t0\nq2\t0\t\nq3\t1\t1\n")
    table = load(path)
    assert table.datasets == (tmp_path.name,) and list(table.metrics) == ["acc"]
    assert table.items_of(tmp_path.name) == ("q1", "q2", "q3")
    info = table.pairing(tmp_path.name, "acc")
    assert (info.kind, info.n_common) == ("partial", 2)
    assert table.exclusions[0].reason == "missing score"
    assert table.modality(tmp_path.name, "acc") == "binary"


def test_wide_parquet(tmp_path):
    import pandas as pd

    path = tmp_path / "f1.parquet"
    pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.3, 0.2, 0.1]}).to_parquet(path)
    table = load(path)
    assert detect_format(path).name == "wide"
    np.testing.assert_array_equal(
        table.paired(tmp_path.name, "f1").scores, [[0.1, 0.3], [0.2, 0.2], [0.3, 0.1]]
    )


def test_wide_input_validation(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("A,B\n0.1,0.2\n0.3,0.4\n")
    with pytest.raises(InputError, match=r"column 'qid' \(--item-col\) not found"):
        load(path, options=LoadOptions(format="wide", item_col="qid"))

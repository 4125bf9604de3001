"""The score table: validation, pairing, modality, views.

References: pandas pivot tables for the matrices, Python set algebra for pairing."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from reportgen.data import (
    AdapterResult,
    MetricSpec,
    TableConfig,
    build_score_table,
)
from reportgen.data._table import KEY_COLUMNS
from reportgen.errors import InputError


def _result(frame: pd.DataFrame, **kwargs) -> AdapterResult:
    frame = frame.copy()
    frame["_file"] = "mem.csv"
    frame["_line"] = np.arange(len(frame)) + 2
    return AdapterResult(frame, **kwargs)


def _random_long(
    rng, systems=4, items=30, metrics=("m1", "m2"), runs=None, drop=0.0, datasets=("d1", "d2")
):
    rows = []
    for d, m, s, i in itertools.product(datasets, metrics, range(systems), range(items)):
        for r in range(runs) if runs else [None]:
            if rng.random() < drop:
                continue
            row = {
                "system": f"S{s}",
                "dataset": d,
                "metric": m,
                "item": f"{d}-{i}",
                "score": float(rng.normal()),
            }
            if runs:
                row["run"] = r
            rows.append(row)
    return pd.DataFrame(rows)


def test_paired_matrix_against_pandas_pivot():
    rng = np.random.default_rng(1)
    frame = _random_long(rng)
    table = build_score_table(_result(frame))
    for dataset, metric in table.pairs():
        view = table.paired(dataset, metric)
        # reference: pandas pivot of the same rows
        sub = frame[(frame.dataset == dataset) & (frame.metric == metric)]
        ref = sub.pivot(index="item", columns="system", values="score")
        ref = ref.loc[list(view.items), list(view.systems)]
        np.testing.assert_array_equal(view.scores, ref.to_numpy())
        assert view.runs is None and view.n_excluded == 0


def test_paired_matrix_with_runs_against_pandas_pivot():
    rng = np.random.default_rng(2)
    frame = _random_long(rng, runs=3, datasets=("d",), metrics=("m",))
    table = build_score_table(_result(frame))
    view = table.paired("d", "m")
    assert view.scores.shape == (30, 4, 3)
    assert view.runs == (0, 1, 2)
    for r in range(3):
        sub = frame[frame.run == r].pivot(index="item", columns="system", values="score")
        np.testing.assert_array_equal(
            view.scores[:, :, r], sub.loc[list(view.items), list(view.systems)].to_numpy()
        )
    ref_means = frame.groupby(["item", "system"]).score.mean().unstack()
    np.testing.assert_allclose(
        view.item_means(), ref_means.loc[list(view.items), list(view.systems)].to_numpy()
    )
    assert (view.run_counts() == 3).all()


def test_pairing_detection_against_set_algebra():
    rng = np.random.default_rng(3)
    frame = _random_long(rng, drop=0.1, datasets=("d",), metrics=("m",))
    table = build_score_table(_result(frame))
    info = table.pairing("d", "m")
    sets = {s: set(g.item) for s, g in frame.groupby("system")}
    common = set.intersection(*sets.values())
    union = set.union(*sets.values())
    assert info.n_common == len(common) and info.n_items == len(union)
    assert info.kind == "partial"
    for s, items in sets.items():
        assert info.items_per_system[s] == len(items)
        assert info.excluded_per_system[s] == len(items - common)
    view = table.paired("d", "m")
    assert set(view.items) == common
    assert view.n_excluded == len(union - common)
    assert not np.isnan(view.scores).any()
    assert any("partial overlap" in p.message for p in table.problems)


def test_pairing_unpaired_when_no_common_item():
    frame = pd.DataFrame(
        {
            "system": ["A"] * 3 + ["B"] * 4,
            "dataset": "d",
            "metric": "m",
            "item": ["a1", "a2", "a3", "b1", "b2", "b3", "b4"],
            "score": [1.0, 2, 3, 4, 5, 6, 7],
        }
    )
    table = build_score_table(_result(frame))
    info = table.pairing("d", "m")
    assert (info.kind, info.recommended, info.n_common, info.n_items) == (
        "unpaired",
        "unpaired",
        0,
        7,
    )
    view = table.unpaired("d", "m")
    assert view.systems == ("A", "B") and view.sizes == (3, 4)
    np.testing.assert_array_equal(view.scores[1], [4, 5, 6, 7])
    assert view.items[0] == ("a1", "a2", "a3")
    with pytest.raises(
        InputError,
        match=r"no item of dataset 'd', metric 'm' was scored "
        r"for all of A, B",
    ):
        table.paired("d", "m")


def test_pairing_small_overlap_recommends_unpaired():
    # 1 common item out of 10 per system: below both thresholds (>= 2 and >= half)
    a = [f"a{i}" for i in range(9)] + ["c"]
    b = [f"b{i}" for i in range(9)] + ["c"]
    frame = pd.DataFrame(
        {
            "system": ["A"] * 10 + ["B"] * 10,
            "dataset": "d",
            "metric": "m",
            "item": a + b,
            "score": np.arange(20.0),
        }
    )
    info = build_score_table(_result(frame)).pairing("d", "m")
    assert (info.kind, info.recommended, info.n_common) == ("partial", "unpaired", 1)


def test_paired_subset_of_systems_keeps_order():
    rng = np.random.default_rng(4)
    frame = _random_long(rng, datasets=("d",), metrics=("m",))
    table = build_score_table(_result(frame))
    view = table.paired("d", "m", systems=["S3", "S1"])
    assert view.systems == ("S3", "S1")
    ref = frame.pivot(index="item", columns="system", values="score")
    np.testing.assert_array_equal(view.scores, ref.loc[list(view.items), ["S3", "S1"]])


def test_modality_inferred_and_overridden():
    frame = pd.DataFrame(
        {
            "system": ["A", "B"] * 4,
            "dataset": "d",
            "metric": ["acc"] * 4 + ["f1"] * 4,
            "item": ["1", "1", "2", "2"] * 2,
            "score": [1, 0, 0, 1, 0.5, 0.25, 1, 0],
        }
    )
    table = build_score_table(_result(frame))
    assert table.modality("d", "acc") == "binary"
    assert table.modality("d", "f1") == "continuous"
    config = TableConfig({"acc": MetricSpec(modality="continuous", direction="lower", weight=2.0)})
    table = build_score_table(_result(frame), config)
    assert table.modality("d", "acc") == "continuous"
    info = table.metrics["acc"]
    assert (info.direction, info.direction_source, info.weight) == ("lower", "config", 2.0)
    assert table.metrics["f1"].direction_source == "default"


def test_direction_from_source_and_config_precedence():
    frame = pd.DataFrame(
        {
            "system": ["A", "B", "A", "B"],
            "dataset": "d",
            "metric": "loss",
            "item": ["1", "1", "2", "2"],
            "score": [0.1, 0.2, 0.3, 0.4],
        }
    )
    table = build_score_table(_result(frame, directions={"loss": "lower"}))
    assert (table.metrics["loss"].direction, table.metrics["loss"].direction_source) == (
        "lower",
        "source",
    )
    config = TableConfig({"loss": MetricSpec(direction="higher")})
    table = build_score_table(_result(frame, directions={"loss": "lower"}), config)
    assert table.metrics["loss"].direction == "higher"


def test_extra_columns_classified():
    frame = pd.DataFrame(
        {
            "system": ["A", "B"] * 3,
            "dataset": "d",
            "metric": "m",
            "item": ["1", "1", "2", "2", "3", "3"],
            "score": np.arange(6.0),
            "difficulty": ["easy", "easy", "hard", "hard", "easy", "easy"],
            "temperature": [0.2, 0.7] * 3,
            "latency": [1.0, 2, 3, 4, 5, 6],
        }
    )
    table = build_score_table(_result(frame))
    assert list(table.item_metadata.columns) == ["difficulty"]
    assert table.item_metadata.loc[("d", "2"), "difficulty"] == "hard"
    assert list(table.system_attributes.columns) == ["temperature"]
    assert table.system_attributes.loc["B", "temperature"] == 0.7
    assert "latency" in table.frame.columns


def test_missing_scores_dropped_and_counted():
    frame = pd.DataFrame(
        {
            "system": ["A", "B"] * 3,
            "dataset": "d",
            "metric": "m",
            "item": ["1", "1", "2", "2", "3", "3"],
            "score": [1.0, np.nan, 2, 3, np.nan, 5],
        }
    )
    table = build_score_table(_result(frame))
    assert table.n_rows == 4
    assert [(e.reason, e.system, e.count) for e in table.exclusions] == [
        ("missing score", "B", 1),
        ("missing score", "A", 1),
    ]
    assert table.pairing("d", "m").n_common == 1
    with pytest.raises(InputError, match=r"line 3, column 'score': missing score \(2 row"):
        build_score_table(_result(frame), nan_policy="raise")


def test_score_strings_and_booleans_parsed():
    frame = pd.DataFrame(
        {
            "system": ["A", "B", "A", "B"],
            "dataset": "d",
            "metric": "m",
            "item": ["1", "1", "2", "2"],
            "score": ["1", True, "0.5", "NaN"],
        },
        dtype=object,
    )
    table = build_score_table(_result(frame))
    np.testing.assert_array_equal(table.frame.score.to_numpy(), [1.0, 1.0, 0.5])


_SCORE_CELLS = [
    "1", "0", "+1", "-0.5", ".5", "5.", "1E5", "2.5e-3", " 0.75 ", "007",
    "0.1000000000000000055511151231257827", "3.14159265358979323846264338327950288",
    "1e-320", "123456789012345678901234567890", "9.999999999999999e22",
]  # fmt: skip


@pytest.mark.parametrize("storage", ["pyarrow", "python"])
def test_score_text_is_read_as_float_reads_it(storage):
    """Reference: Python's ``float()`` of each cell (correctly rounded). Text scores in
    pyarrow storage take pyarrow's cast, others ``pd.to_numeric``: the same floats, bit
    for bit, including long decimals, subnormals and missing-value spellings."""
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(5)
    extra = [repr(float(x)) for x in rng.random(200) * 10.0 ** rng.integers(-8, 8, 200)]
    cells = [*_SCORE_CELLS, *extra, "", "NA", "nan", None]
    n = len(cells)
    frame = pd.DataFrame(
        {
            "system": ["A"] * n + ["B"] * n,
            "dataset": "d",
            "metric": "m",
            "item": [str(i) for i in range(n)] * 2,
            "score": pd.array(cells * 2, dtype=pd.StringDtype(storage)),
        }
    )
    table = build_score_table(_result(frame))
    rows = table.frame[table.frame.system == "A"]
    got = rows.sort_values("item", key=lambda s: s.astype(int)).score.to_numpy()
    expected = np.array([float(c) for c in cells[: n - 4]])
    assert got.tobytes() == expected.tobytes()
    assert sorted((e.reason, e.system, e.count) for e in table.exclusions) == [
        ("missing score", "A", 4),
        ("missing score", "B", 4),
    ]
    # the column did take pyarrow's path, and a non-decimal cell leaves it
    from reportgen.data._table import _decimal_floats

    text = pd.Series(cells, dtype=pd.StringDtype(storage)).str.strip()
    missing = text.isna() | text.isin(["", "NA", "nan"])
    fast = _decimal_floats(text, missing)
    assert fast is not None
    assert fast.to_numpy()[: n - 4].tobytes() == expected.tobytes()
    assert _decimal_floats(text.where(text != "1", "one"), missing) is None


@pytest.mark.parametrize("bad", ["inf", "abc", "1,5", "0x10", "1e", "--1"])
def test_a_score_that_is_not_a_plain_decimal_is_checked_by_pandas(bad):
    """Cells outside the plain decimal form leave pyarrow's fast path: pandas converts
    the column and the error names the cell's line, as before."""
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {
            "system": ["A", "A", "A", "B", "B", "B"],
            "dataset": "d",
            "metric": "m",
            "item": ["1", "2", "3"] * 2,
            "score": pd.array(["1", "0.5", bad, "1", "0", "1"], dtype=pd.StringDtype("pyarrow")),
        }
    )
    with pytest.raises(InputError, match=r"line 4, column 'score'"):
        build_score_table(_result(frame))


def test_numeric_item_ids_are_text_without_decimals():
    frame = pd.DataFrame(
        {
            "system": ["A", "B", "A", "B"],
            "dataset": "d",
            "metric": "m",
            "item": [1.0, 1.0, 2.0, 2.0],
            "score": [1.0, 0, 1, 1],
        }
    )
    assert build_score_table(_result(frame)).items_of("d") == ("1", "2")


def test_duplicates_show_every_location():
    frame = pd.DataFrame(
        {
            "system": ["A", "B", "A", "A"],
            "dataset": "d",
            "metric": "m",
            "item": ["1", "1", "2", "1"],
            "score": [1.0, 0, 1, 1],
        }
    )
    with pytest.raises(
        InputError,
        match=r"1 score given more than once; the first: "
        r"\(system='A', dataset='d', metric='m', item='1'\) "
        r"at mem\.csv, line 2; mem\.csv, line 5",
    ):
        build_score_table(_result(frame))


def test_same_item_in_different_runs_is_not_a_duplicate():
    frame = pd.DataFrame(
        {
            "system": ["A", "A", "B", "B"] * 2,
            "dataset": "d",
            "metric": "m",
            "item": ["1"] * 4 + ["2"] * 4,
            "run": [0, 1] * 4,
            "score": [1.0, 0, 1, 1, 0, 0, 1, 0],
        }
    )
    table = build_score_table(_result(frame))
    assert table.runs_of("d") == (0, 1)
    assert table.paired("d", "m").scores.shape == (2, 2, 2)


@pytest.mark.parametrize("seed", range(40))
def test_duplicate_key_check_agrees_with_pandas_duplicated(seed):
    """Reference: ``DataFrame.duplicated(key).any()`` of pandas, on random frames with
    few distinct values, missing runs (equal to each other), and string and
    pyarrow-backed labels."""
    from reportgen.data._table import _has_duplicate_keys

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    frame = pd.DataFrame(
        {
            "system": [f"s{v}" for v in rng.integers(0, 3, n)],
            "dataset": [f"d{v}" for v in rng.integers(0, 2, n)],
            "metric": "m",
            "item": [f"q{v}" for v in rng.integers(0, int(rng.integers(1, 30)), n)],
            "run": np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 2, n)),
        }
    )
    if seed % 2:
        frame = frame.astype({"system": "string[pyarrow]", "item": "string[pyarrow]"})
    for key in (["system", "item"], ["system", "dataset", "metric", "item", "run"], ["run"]):
        assert _has_duplicate_keys(frame, key) == bool(frame.duplicated(key).any()), key


@pytest.mark.parametrize("planted", [False, True])
def test_duplicate_key_check_past_two_to_the_62(planted):
    """6,000 rows whose five key columns are all distinct: the product of the distinct
    counts (6,000**5) passes 2**62, so the combined codes are factorized again on the
    way. Reference: pandas' ``duplicated``."""
    from reportgen.data._table import _has_duplicate_keys

    n = 6000
    assert n**5 > 2**62
    frame = pd.DataFrame({c: [f"{c}{k}" for k in range(n)] for c in KEY_COLUMNS})
    if planted:
        frame.iloc[n - 1] = frame.iloc[17]
    key = list(KEY_COLUMNS)
    assert _has_duplicate_keys(frame, key) is planted
    assert bool(frame.duplicated(key).any()) is planted


def test_unequal_runs_reported():
    frame = pd.DataFrame(
        {
            "system": ["A", "A", "B", "A", "B"],
            "dataset": "d",
            "metric": "m",
            "item": ["1", "1", "1", "2", "2"],
            "run": [0, 1, 0, 0, 0],
            "score": [1.0, 0, 1, 1, 0],
        }
    )
    table = build_score_table(_result(frame))
    view = table.paired("d", "m")
    assert np.isnan(view.scores[1, 0, 1]) and view.run_counts().tolist() == [[2, 1], [1, 1]]
    assert any(
        "number of runs per item and system varies from 1 to 2" in p.message for p in table.problems
    )


def test_constant_metric_and_config_typos_reported():
    frame = pd.DataFrame(
        {
            "system": ["A", "B"] * 2,
            "dataset": "d",
            "metric": "m",
            "item": ["1", "1", "2", "2"],
            "score": [1.0] * 4,
        }
    )
    config = TableConfig({"mm": MetricSpec(direction="lower")}, source="cfg.toml")
    messages = [p.message for p in build_score_table(_result(frame), config).problems]
    assert any("metric 'm' is constant (1 for every system and item)" in m for m in messages)
    assert any("the config describes metric 'mm', which is not in the data" in m for m in messages)


def test_unknown_names_in_views():
    rng = np.random.default_rng(5)
    table = build_score_table(_result(_random_long(rng)))
    with pytest.raises(InputError, match=r"(?s)unknown dataset .x.*known datasets: d1, d2"):
        table.paired("x", "m1")
    with pytest.raises(InputError, match="metric 'zz' is not scored on dataset 'd1'"):
        table.paired("d1", "zz")
    with pytest.raises(InputError, match="unknown system 'Q'"):
        table.paired("d1", "m1", systems=["S0", "Q"])


def test_summary_is_json_ready():
    import json

    rng = np.random.default_rng(6)
    table = build_score_table(_result(_random_long(rng, drop=0.05)))
    text = json.dumps(table.summary(), allow_nan=False)
    assert '"kind": "partial"' in text


def test_build_is_fast_enough_for_a_million_rows():
    # not a timing assertion: checks the views stay vectorised on a large table
    rng = np.random.default_rng(7)
    n_items, n_systems = 20_000, 50
    frame = pd.DataFrame(
        {
            "system": np.repeat([f"S{i}" for i in range(n_systems)], n_items),
            "dataset": "d",
            "metric": "m",
            "item": np.tile(np.arange(n_items).astype(str), n_systems),
            "score": rng.random(n_items * n_systems),
        }
    )
    table = build_score_table(AdapterResult(frame))
    view = table.paired("d", "m")
    assert view.scores.shape == (n_items, n_systems)
    np.testing.assert_array_equal(
        view.scores[:, 3], frame.score.to_numpy()[3 * n_items : 4 * n_items]
    )


def test_row_groups_against_pandas_groupby():
    """``_row_groups`` gives ``DataFrame.groupby(columns, sort=False).indices`` (pandas,
    the reference): the combinations in order of first appearance, their rows
    ascending; all rows of a single combination as ``slice(None)``."""
    from reportgen.data._table import _row_groups

    rng = np.random.default_rng(5)
    for _ in range(300):
        n = int(rng.integers(1, 80))
        frame = pd.DataFrame(
            {"dataset": rng.choice(["x", "y", "z"], n), "metric": rng.choice(["acc", "f1"], n)}
        ).astype("str")
        ours = _row_groups(frame, ("dataset", "metric"))
        reference = frame.groupby(["dataset", "metric"], sort=False).indices
        assert list(ours) == list(reference)
        for key, rows in reference.items():
            got = ours[key]
            got = np.arange(n)[got] if isinstance(got, slice) else got
            np.testing.assert_array_equal(got, rows)
    single = pd.DataFrame({"dataset": ["a"] * 4, "metric": ["m"] * 4})
    assert _row_groups(single, ("dataset", "metric")) == {("a", "m"): slice(None)}


def test_clean_names_are_kept_and_padded_names_stripped(tmp_path):
    """Names read from a CSV keep their spelling without a copy when no name has
    surrounding spaces; with one, every name is stripped (as before)."""
    from reportgen.data import load

    clean = tmp_path / "clean.csv"
    clean.write_text("system,item,score\na,q1,1\na,q2,0\nb,q1,1\nb,q2,1\n")
    padded = tmp_path / "padded.csv"
    padded.write_text('system,item,score\n"a ",q1,1\na,q2,0\nb,q1,1\nb,q2,1\n')
    for path in (clean, padded):
        table = load([path])
        assert table.systems == ("a", "b")
        assert set(table.frame["item"]) == {"q1", "q2"}


def test_first_rows_against_numpy_unique():
    """``_first_rows`` of first-appearance codes is where each code first appears,
    ascending; reference: ``np.sort(np.unique(codes, return_index=True)[1])``."""
    from reportgen.data._table import _first_rows

    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(0, 60))
        codes, _ = pd.factorize(rng.integers(0, int(rng.integers(1, 12)), n))
        reference = np.sort(np.unique(codes, return_index=True)[1])
        np.testing.assert_array_equal(_first_rows(codes), reference)


def test_kept_and_pair_codes_against_pandas_factorize():
    """The label codes of the rows kept (``_kept_codes``) and the codes of (dataset,
    item) pairs (``_pair_codes``) are ``pd.factorize`` of those rows and of the pairs
    (pandas, the reference)."""
    from reportgen.data._table import _kept_codes, _pair_codes

    rng = np.random.default_rng(12)
    for _ in range(100):
        n = int(rng.integers(1, 50))
        frame = pd.DataFrame(
            {
                "dataset": rng.choice(["x", "y"][: int(rng.integers(1, 3))], n),
                "item": [f"q{v}" for v in rng.integers(0, 9, n)],
            }
        ).astype("str")
        codes = {c: pd.factorize(frame[c]) for c in frame}
        keep = rng.random(n) < 0.7
        kept = _kept_codes(codes, keep)
        for column in frame:
            ref_codes, ref_uniques = pd.factorize(frame[column][keep])
            np.testing.assert_array_equal(kept[column][0], ref_codes)
            assert list(kept[column][1]) == list(ref_uniques)
        pairs = pd.factorize(pd.Series(list(zip(frame["dataset"], frame["item"]))))[0]
        np.testing.assert_array_equal(_pair_codes(frame, "dataset", "item", codes), pairs)
        np.testing.assert_array_equal(_pair_codes(frame, "dataset", "item"), pairs)


def test_table_with_missing_scores_against_table_without_those_rows():
    """Rows dropped for a missing score leave the table the rows without them would
    make (reference: the table built from those rows alone): systems, items, pairing,
    matrices and the item list."""
    rng = np.random.default_rng(13)
    frame = _random_long(rng, systems=5, items=12, drop=0.02)
    frame["score"] = frame["score"].astype(object)
    missing = rng.random(len(frame)) < 0.04
    # every row of system S0 and of item d1-0 missing: names that disappear
    missing |= (frame["system"] == "S0").to_numpy() | (frame["item"] == "d1-0").to_numpy()
    with_missing = frame.copy()
    with_missing.loc[missing, "score"] = None
    ours = build_score_table(_result(with_missing))
    reference = build_score_table(_result(frame[~missing].reset_index(drop=True)))
    assert ours.systems == reference.systems and ours.datasets == reference.datasets
    assert list(ours.item_metadata.index) == list(reference.item_metadata.index)
    assert ours.items_of("d1") == reference.items_of("d1")
    for dataset, metric in reference.pairs():
        assert ours.pairing(dataset, metric) == reference.pairing(dataset, metric)
        assert ours.systems_of(dataset, metric) == reference.systems_of(dataset, metric)
        some = list(reference.systems_of(dataset, metric))[::2]
        for systems in (None, some):
            a = ours.paired(dataset, metric, systems=systems)
            b = reference.paired(dataset, metric, systems=systems)
            assert a.items == b.items and a.systems == b.systems
            np.testing.assert_array_equal(a.scores, b.scores)
            assert ours.pairing(dataset, metric, systems) == reference.pairing(
                dataset, metric, systems
            )

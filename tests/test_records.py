"""The one serialisation of result records (reportgen.records): columns to rows, fields
to dicts and back, value for value the same as the element-wise conversion it replaced."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest

from reportgen.analysis.release import NotCompared, ReleaseVerdict
from reportgen.records import (
    bools,
    columns_to_records,
    fields_record,
    floats,
    from_record,
    ints,
    nonempty,
    optional,
    plain,
)


def test_floats_against_elementwise_float() -> None:
    # reference: Python's float() of each element, None for NaN (what every result's
    # to_records did before, one element at a time)
    rng = np.random.default_rng(7)
    x = rng.normal(size=1000) * 10.0 ** rng.integers(-300, 300, size=1000)
    x[::17] = np.nan
    x[5], x[6] = np.inf, -np.inf
    expected = [None if math.isnan(float(v)) else float(v) for v in x]
    got = floats(x)
    assert got == expected
    assert all(type(v) is float for v in got if v is not None)
    # the same JSON text, bit for bit
    assert json.dumps(got) == json.dumps(expected)


def test_floats_keeps_nan_when_asked() -> None:
    got = floats(np.array([1.5, np.nan]), nan_as_none=False)
    assert got[0] == 1.5 and math.isnan(got[1])


def test_ints_bools_against_elementwise() -> None:
    a = np.array([3, -2, 0, 2**40], dtype=np.int64)
    assert ints(a) == [int(v) for v in a]
    assert all(type(v) is int for v in ints(a))
    assert ints(np.array([2.0, 5.0])) == [2, 5]  # whole numbers held as floats
    b = np.array([True, False, True])
    assert bools(b) == [bool(v) for v in b]
    assert all(type(v) is bool for v in bools(b))


def test_nonempty_and_optional() -> None:
    assert nonempty(["", "large", None]) == [None, "large", None]
    assert optional(ints, None, 3) == [None, None, None]
    assert optional(ints, np.array([1, 2, 3]), 3) == [1, 2, 3]


def test_columns_to_records_repeats_scalars_and_keeps_order() -> None:
    rows = columns_to_records(
        {
            "system": ("a", "b"),
            "alpha": 0.05,
            "mean": floats([0.25, np.nan]),
            "names": np.array(["x", "y"], dtype=object),
            "note": None,
        }
    )
    assert rows == [
        {"system": "a", "alpha": 0.05, "mean": 0.25, "names": "x", "note": None},
        {"system": "b", "alpha": 0.05, "mean": None, "names": "y", "note": None},
    ]
    assert list(rows[0]) == ["system", "alpha", "mean", "names", "note"]


def test_columns_to_records_empty_and_mismatched() -> None:
    assert columns_to_records({"system": (), "alpha": 0.05}) == []
    with pytest.raises(ValueError, match="different lengths"):
        columns_to_records({"a": (1, 2), "b": (1,)})


def test_plain_values() -> None:
    assert plain(np.float64("nan")) is None
    assert plain(np.int64(3)) == 3 and type(plain(np.int64(3))) is int
    assert plain(np.bool_(True)) is True
    assert plain((1, np.float64(2.5), (np.nan,))) == [1, 2.5, [None]]
    assert plain({"k": np.array([1.0, np.nan])}) == {"k": [1.0, None]}


@dataclass(frozen=True)
class _Row:
    name: str
    sizes: tuple[int, ...]
    value: float | None = None


def test_fields_record_round_trip() -> None:
    row = _Row("a", (1, 2), np.float64(0.5))  # type: ignore[arg-type]
    d = fields_record(row)
    assert d == {"name": "a", "sizes": [1, 2], "value": 0.5}
    back = from_record(_Row, json.loads(json.dumps(d)))
    assert back == _Row("a", (1, 2), 0.5)
    # unknown keys ignored, missing ones take their defaults, overrides win
    assert from_record(_Row, {"name": "b", "sizes": [], "extra": 1}) == _Row("b", ())
    assert from_record(_Row, {"name": "b", "sizes": []}, value=2.0).value == 2.0


def test_release_records_round_trip_through_json() -> None:
    nc = NotCompared("python", "pass", ("candidate",), "no score", ("m-v2",))
    assert NotCompared.from_dict(json.loads(json.dumps(nc.to_dict()))) == nc
    assert NotCompared.from_dict({"dataset": "d", "metric": "m"}) == NotCompared("d", "m", (), "")
    v = ReleaseVerdict(
        dataset="d", metric="m", direction="higher", modality="binary", baseline="a",
        candidate="b", mean_baseline=0.5, mean_candidate=0.6, diff=0.1, ci_low=0.0,
        ci_high=0.2, confidence=0.95, test="mcnemar", p_value=0.04, p_adjusted=0.04,
        correction="holm", effect_size=0.2, effect_size_kind="h", n_baseline=10,
        n_candidate=10, mde=0.3, verdict="improved", ci_adjusted_low=0.01,
        ci_adjusted_high=0.19, confidence_adjusted=0.95,
    )  # fmt: skip
    assert ReleaseVerdict.from_dict(json.loads(json.dumps(v.to_dict()))) == v
    # a row of a reportgen before the adjusted interval had its own fields
    old = {k: x for k, x in v.to_dict().items() if not k.startswith(("ci_adjusted", "conf"))}
    old["confidence"] = 0.95
    read = ReleaseVerdict.from_dict(old)
    assert (read.ci_adjusted_low, read.ci_adjusted_high) == (0.0, 0.2)
    assert (read.ci_low, read.ci_high, read.confidence_adjusted) == (None, None, 0.95)

"""json_safe and the JSON writer of report folders."""

from __future__ import annotations

import collections
import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reportgen.jsonsafe import json_safe


def _plain(value):
    """Reference: the rules written out with isinstance checks only."""
    if value is None or isinstance(value, (str, bool, np.bool_)):
        return bool(value) if isinstance(value, np.bool_) else value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(float(value)) else None
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    return str(value)


def test_json_safe_against_the_plain_rules():
    class Flag(int):  # a subclass of int is converted, not passed through
        pass

    document = {
        "a": (1.5, float("nan"), -math.inf),
        2: np.int64(3),
        "ok": np.bool_(True),
        "arr": np.array([1.0, np.nan]),
        "od": collections.OrderedDict(x=[None]),
        "f32": np.float32(0.25),
        "flag": Flag(4),
        "obj": object,
        "t": True,
    }
    got = json_safe(document)
    assert got == _plain(document)
    assert type(got["flag"]) is int and got["t"] is True
    json.dumps(got, allow_nan=False)


def test_write_json_is_indented_when_small_and_compact_when_large(tmp_path, monkeypatch):
    from reportgen.report.folder import output

    small = output.write_json_atomic(tmp_path / "small.json", {"rows": [1, 2], "n": {"a": 1}})
    assert small.read_text(encoding="utf-8") == '{\n  "rows": [1, 2],\n  "n": {"a": 1}\n}\n'

    monkeypatch.setattr(output, "INDENT_MAX_BYTES", 10)
    large = output.write_json_atomic(tmp_path / "large.json", {"rows": list(range(20))})
    text = large.read_text(encoding="utf-8")
    assert "\n" not in text.rstrip("\n") and json.loads(text) == {"rows": list(range(20))}


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=30,
)


@given(_JSON_VALUES)
def test_readable_json_against_json_dumps(value):
    from reportgen.report.folder.output import readable_json

    text = readable_json(value)
    # the reference: the standard library's encoder and decoder
    assert json.loads(text) == json.loads(json.dumps(value))


def test_readable_json_refuses_nan_and_keeps_json_key_rules():
    from reportgen.report.folder.output import readable_json

    with pytest.raises(ValueError):
        readable_json({"x": [float("nan")], "y": [{"z": 1}]})
    keys = {1: [{"a": None}], 2.5: [], None: [[1]], False: [[]]}
    assert json.loads(readable_json(keys)) == json.loads(json.dumps(keys))

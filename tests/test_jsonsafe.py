"""json_safe and the JSON writer of report folders."""

from __future__ import annotations

import collections
import json
import math

import numpy as np

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
    from reportgen.report import output

    small = output.write_json_atomic(tmp_path / "small.json", {"rows": [1, 2]})
    assert small.read_text(encoding="utf-8").startswith('{\n  "rows"')
    monkeypatch.setattr(output, "INDENT_MAX_BYTES", 10)
    large = output.write_json_atomic(tmp_path / "large.json", {"rows": list(range(20))})
    text = large.read_text(encoding="utf-8")
    assert "\n" not in text.rstrip("\n") and json.loads(text) == {"rows": list(range(20))}

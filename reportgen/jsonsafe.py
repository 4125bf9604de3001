"""The one JSON-safety helper: any nested value of results.json, history.json, the
manifest or notebook parameters made strict JSON."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["json_safe"]


def json_safe(value: Any) -> Any:
    """``value`` as strict JSON data.

    Mappings become dicts with string keys, tuples and lists become lists, every
    non-finite float (NaN, ±inf: the undefined statistics of degenerate data) becomes
    None, numpy scalars become Python numbers and any other object its ``str``.

    Examples
    --------
    >>> json_safe({"a": (1.5, float("nan")), 2: np.int64(3), "ok": np.bool_(True)})
    {'a': [1.5, None], '2': 3, 'ok': True}
    """
    kind = type(value)  # exact types first: a results.json holds millions of values
    if kind is float:
        return value if math.isfinite(value) else None
    if value is None or kind is str or kind is bool or kind is int:
        return value
    if kind is dict:
        return {str(k): json_safe(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [json_safe(v) for v in value]
    if isinstance(value, (str, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        x = float(value)
        return x if math.isfinite(x) else None
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    return str(value)

"""Conventions of the statistics layer no linter checks (docs/design.md, "Code conventions")."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import numpy as np
import pandas as pd

import reportgen.stats
from reportgen.stats._common import TabularMixin


def _result_classes() -> list[type]:
    out = []
    for info in pkgutil.iter_modules(reportgen.stats.__path__):
        module = importlib.import_module(f"reportgen.stats.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and dataclasses.is_dataclass(cls):
                out.append(cls)
    return out


def test_every_tabular_result_has_to_frame_and_to_records_from_one_mixin():
    tabular = [
        c for c in _result_classes() if "to_records" in c.__dict__ or issubclass(c, TabularMixin)
    ]
    assert len(tabular) >= 30
    for cls in tabular:
        assert issubclass(cls, TabularMixin), cls.__name__
        assert "to_frame" not in cls.__dict__, f"{cls.__name__} redefines to_frame"
        assert callable(cls.to_records) and cls.to_records is not TabularMixin.to_records


def test_to_frame_holds_the_records():
    from reportgen.stats.pairwise import compare_paired

    X = np.random.default_rng(0).normal(size=(30, 3))
    result = compare_paired(X, systems=["a", "b", "c"])
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.to_dict("records") == pd.DataFrame.from_records(result.to_records()).to_dict(
        "records"
    )

"""The examples in the docstrings of every module of reportgen.stats run and give what
they show (a new module is found by pkgutil, so none is left out)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import reportgen.stats

MODULES = sorted(m.name for m in pkgutil.iter_modules(reportgen.stats.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"reportgen.stats.{name}")
    with np.printoptions(legacy=False):
        result = doctest.testmod(
            module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
        )
    assert result.failed == 0
    assert result.attempted > 0, f"reportgen.stats.{name} has no docstring example"

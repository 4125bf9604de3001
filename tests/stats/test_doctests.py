"""The docstrings of every module of reportgen.stats: their examples run and give what they
show, and every public statistical function names its papers in a numpydoc References
section (a new module is found by pkgutil, so none is left out)."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import reportgen.stats

MODULES = sorted(m.name for m in pkgutil.iter_modules(reportgen.stats.__path__))

# Public helpers that implement no statistical method, so cite no paper.
NOT_STATISTICAL = {
    "_common": {
        "choices_iv",
        "finite_or_none",
        "modality_iv",
        "resampling_fields",
        "resampling_iv",
        "system_index",
        "system_names",
    },
    "_resampling": {"chunk_sizes"},
    "_degenerate": {"power_of_two_scale"},
}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"reportgen.stats.{name}")
    with np.printoptions(legacy=False):
        result = doctest.testmod(
            module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
        )
    assert result.failed == 0
    assert result.attempted > 0, f"reportgen.stats.{name} has no docstring example"


def _sections(doc: str) -> list[str]:
    return re.findall(r"^(\w[\w ]*)\n-{3,}$", doc, re.MULTILINE)


@pytest.mark.parametrize("name", MODULES)
def test_every_public_function_has_a_references_section(name):
    module = importlib.import_module(f"reportgen.stats.{name}")
    exempt = NOT_STATISTICAL.get(name, set())
    functions = [
        n
        for n in getattr(module, "__all__", [])
        if inspect.isfunction(getattr(module, n)) and n not in exempt
    ]
    for n in functions:
        sections = _sections(inspect.getdoc(getattr(module, n)) or "")
        assert "References" in sections, f"reportgen.stats.{name}.{n}: no References section"
        after = sections[sections.index("References") + 1 :]
        assert set(after) <= {"Examples"}, f"{name}.{n}: References must come last but Examples"


@pytest.mark.parametrize("name", MODULES)
def test_papers_cited_by_name_not_by_seed_number(name):
    source = Path(importlib.import_module(f"reportgen.stats.{name}").__file__).read_text()
    assert not re.search(r"seed 00\d", source, re.IGNORECASE), name

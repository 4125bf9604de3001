"""The docstring examples of reportgen.format and every module of reportgen.report,
reportgen.charts and reportgen.analysis run and give what they show (the formatting
rules, the label cuts, the ledger's words, ...); a new module is found by pkgutil
(subpackages too), so none is left out."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import reportgen.analysis
import reportgen.charts
import reportgen.report

MODULES = sorted(
    [
        "reportgen.format",  # the formatting rules every layer above the analysis uses
        "reportgen.plaintext",  # names shown safely, counts with their nouns
        "reportgen.sentences",  # the ledger's sentences in every output's markup
        "reportgen.names",  # corrections, interval kinds and estimands, named once
        *(
            m.name
            for package in (reportgen.report, reportgen.charts, reportgen.analysis)
            for m in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}.")
        ),
    ]
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{name}: {result.failed} docstring example(s) failed"


def test_the_formatting_rules_have_examples():
    examples = sum(
        doctest.testmod(importlib.import_module(n), verbose=False).attempted
        for n in ("reportgen.format", "reportgen.charts.render")
    )
    assert examples >= 10

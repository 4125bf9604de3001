"""Warnings aggregated (issue 32): a command prints one line per kind of warning, with
how many times it came and the first few names, instead of one line per dataset.

The reference is a count made here of the warnings raised (``warnings.catch_warnings``)
against the lines on stderr.
"""

from __future__ import annotations

import io
import random
import warnings
from pathlib import Path

import pytest

from reportgen import cli
from reportgen.cli import main
from reportgen.errors import DataWarning, DegenerateDataWarning


@pytest.fixture(scope="module")
def identical_pairs(tmp_path_factory) -> Path:
    """60 datasets in each of which systems a and b score identically (and c, which
    differs from them on half the items, is testable against both)."""
    rng = random.Random(1)
    lines = ["system,dataset,metric,item,score"]
    for d in range(60):
        for i in range(20):
            v = int(rng.random() < 0.5)
            lines += [f"a,ds{d},acc,q{i},{v}", f"b,ds{d},acc,q{i},{v}"]
            # c differs from both on half the items: 10 discordant, always testable
            lines.append(f"c,ds{d},acc,q{i},{1 - v if i % 2 else v}")
    path = tmp_path_factory.mktemp("pairs") / "scores.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_one_line_per_kind_of_warning(identical_pairs, tmp_path, capsys):
    assert main(["analyze", str(identical_pairs), "--out", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("reportgen: warning:")]
    assert len(lines) == len(set(lines))
    # identical systems are a result, not a warning: one note line for the 60 datasets
    # where a and b score alike (the note of each unit is the same sentence)
    notes = [line for line in err.splitlines() if "identical scores" in line]
    assert len(notes) == 1, err
    assert notes[0].startswith("reportgen: note: 60 dataset × metrics (ds0 / acc, ds1 / acc, ")


def test_tally_names_the_first_few_and_counts_against_warnings_module():
    tally = cli._WarningTally()
    raised = []
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        for k in range(1000):
            warnings.warn(
                f"dataset 'd{k}' has 1 item: no interval", DegenerateDataWarning, stacklevel=1
            )
        warnings.warn("dataset 'x' has 2 items: no interval", DataWarning, stacklevel=1)
        warnings.warn("3 rows dropped", DegenerateDataWarning, stacklevel=1)
    for record in records:
        raised.append(record)
        tally.add(str(record.message), record.category)
    out = io.StringIO()
    tally.flush(out)
    lines = out.getvalue().splitlines()
    assert len(raised) == 1002
    assert lines == [
        "reportgen: warning: dataset 'd0' has 1 item: no interval "
        "[1,000 warnings of this kind; names: d0, d1, d2 …]",
        "reportgen: warning: dataset 'x' has 2 items: no interval",
        "reportgen: warning: 3 rows dropped",
    ]


def test_tally_shows_names_escaped():
    tally = cli._WarningTally()
    for name in ("a\nreportgen: ok", "b\u202ec"):
        tally.add(f"system '{name}' has no scores", DataWarning)
    out = io.StringIO()
    tally.flush(out)
    assert out.getvalue().count("\n") == 1
    assert "names: a\\nreportgen: ok, b\\u202ec]" in out.getvalue()


def test_tally_kinds_by_place_and_first_words_with_unquoted_names():
    tally = cli._WarningTally()
    for name in ("alpha", "beta", "gamma", "delta", "eps"):
        tally.add(f"systems with 1 item: no interval for {name}", DegenerateDataWarning, "u.py:9")
    tally.add("3 pair(s) have zero variance", DegenerateDataWarning, "u.py:9")  # same place
    out = io.StringIO()
    tally.flush(out)
    assert out.getvalue().splitlines() == [
        "reportgen: warning: systems with 1 item: no interval for alpha "
        "[5 warnings of this kind; names: beta, gamma, delta …]",
        "reportgen: warning: 3 pair(s) have zero variance",
    ]

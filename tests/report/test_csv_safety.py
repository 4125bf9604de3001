"""Tables a spreadsheet opens: text that would run as a formula gets a leading ``'``
(the OWASP rule against CSV injection); numbers stay numbers.

Reference: Python's ``csv`` reader on the written files (what a spreadsheet's import
sees, cell by cell) and the OWASP list of formula-starting characters."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen.cli import main
from reportgen.report.folder.output import csv_safe_text, write_csv

HOSTILE = ['=HYPERLINK("http://x","c")', "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3", "\tTAB", "\rCR"]


def _cells(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def test_write_csv_prefixes_formula_text_and_keeps_numbers(tmp_path):
    frame = pd.DataFrame(
        {
            "system": HOSTILE + ["plain", "x=1"],
            "diff": [-0.5, 0.25, -1e-9, 3.0, -7.0, 0.0, 1.0, -2.0],
            "=col": ["a"] * 8,
        }
    )
    rows = _cells(write_csv(frame, tmp_path / "t.csv"))
    assert rows[0] == ["system", "diff", "'=col"]
    assert [r[0] for r in rows[1:]] == ["'" + h for h in HOSTILE] + ["plain", "x=1"]
    # numbers stay numbers: negative ones are not prefixed
    assert [float(r[1]) for r in rows[1:]] == frame["diff"].tolist()
    assert all(
        not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for r in rows for cell in (r[0], r[2])
    )
    assert csv_safe_text(np.float64(-1.5)) == -1.5 and csv_safe_text(None) is None


@pytest.mark.e2e
def test_report_tables_neutralise_hostile_system_names(tmp_path, capsys):
    rng = np.random.default_rng(0)
    names = HOSTILE[:3] + ["baseline"]
    rows = [
        {"system": s, "item": f"q{i}", "score": int(rng.random() < 0.3 + 0.1 * k)}
        for k, s in enumerate(names)
        for i in range(40)
    ]
    data = tmp_path / "scores.csv"
    pd.DataFrame(rows).to_csv(data, index=False)
    out = tmp_path / "report"
    assert (
        main(["run", str(data), "--out", str(out), "--format", "html", "--quiet", "--seed", "1"])
        == 0
    )
    tables = sorted((out / "tables").glob("*.csv"))
    assert tables
    seen = set()
    for table in tables:
        for row in _cells(table):
            for cell in row:
                assert not cell.startswith(("=", "+", "@", "\t", "\r")), (table.name, cell)
                if cell.startswith("-"):
                    float(cell)  # a negative number, never text
                seen.update(h for h in HOSTILE[:3] if cell == "'" + h)
    assert seen == set(HOSTILE[:3])

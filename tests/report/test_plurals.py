"""Plurals from counts (issue 42, item 8): "0 of 1 pairs significant", "1 metrics" (in the
report and on the console) and "5 dataset(s), 4 metric(s)" on page 1 of the example. Every
count meets its noun through one helper (:func:`reportgen.plaintext.count`): checked on
the text of a report where every count is 1 (one dataset, one metric, one pair), on the
console lines of its commands, and on the package's own strings."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.report import sections as rs
from reportgen.report.render.html import strip_tags

PACKAGE = Path(__file__).resolve().parents[2] / "reportgen"
#: A count of one with a plural noun: "1 metrics", "1 pairs", ...
ONE_PLURAL = re.compile(
    r"(?<![\d.,])\b1 (systems|datasets|metrics|pairs|items|comparisons|lists|inputs|scores"
    r"|warnings|benchmarks|others|sample lists|dataset × metrics)\b"
)


@pytest.fixture(scope="module")
def one_of_each(tmp_path_factory) -> Path:
    """Two systems on 40 items of one dataset and one metric: one pair, one list."""
    folder = tmp_path_factory.mktemp("one")
    rows = ["system,dataset,metric,item,score"]
    for k in range(40):
        rows += [f"a,qa,acc,q{k},{int(k % 3 > 0)}", f"b,qa,acc,q{k},{int(k % 4 > 0)}"]
    path = folder / "scores.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_report_text_counts_one_in_the_singular(one_of_each, tmp_path):
    report = rs.prepare(
        [str(one_of_each)],
        analysis_options={"seed": 1, "n_resamples": 199},
        output_dir=str(tmp_path),
    )
    sections = [
        rs.summary,
        rs.results_matrix,
        rs.noise_and_power,
        rs.per_sample_list,
        rs.noise_detail,
        rs.items_section,
        rs.data_section,
        rs.provenance,
    ]
    text = " ".join(strip_tags(block.html) for f in sections if (block := f(report)) is not None)
    text = " ".join(text.split())
    assert "1 dataset, 1 metric (1 dataset × metric compared)" in text
    assert "1 of 1 pair significant" in text or "0 of 1 pair significant" in text
    assert ONE_PLURAL.findall(text) == []
    assert re.findall(r"\w\(s\)", text) == []


def test_console_counts_one_in_the_singular(one_of_each, tmp_path, capsys):
    assert main(["inspect", str(one_of_each)]) == 0
    assert main(["analyze", str(one_of_each), "--out", str(tmp_path / "a"), "--seed", "1"]) == 0
    said = capsys.readouterr()
    text = said.out + said.err
    assert "1 comparison in 1 dataset × metric sample list" in text
    assert ONE_PLURAL.findall(text) == [] and re.findall(r"\w\(s\)", text) == []


def test_no_string_of_the_package_writes_a_plural_in_parentheses():
    """No "metric(s)" or "format(s)" anywhere a user reads (docstrings aside): the
    count decides the noun."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and re.search(r"[a-z]\(s\)", node.value)
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []

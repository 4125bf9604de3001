"""Sizes a person can hold (docs/design.md, "Code conventions"): no module of the
package or of tools/ over 1,500 lines, and no function over 100 lines of code (blank
lines, comments and its docstring not counted) without the reason stated beside it
(a comment starting "Over 100 lines of code" just above its ``def``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*ROOT.joinpath("reportgen").rglob("*.py"), *ROOT.joinpath("tools").glob("*.py")])


def _code_lines(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = node.body[0]
    doc = (
        (first.lineno, first.end_lineno or first.lineno)
        if isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        else (0, -1)
    )
    return sum(
        1
        for i in range(node.lineno, (node.end_lineno or node.lineno) + 1)
        if not doc[0] <= i <= doc[1]
        and lines[i - 1].strip()
        and not lines[i - 1].strip().startswith("#")
    )


def test_no_module_over_1500_lines() -> None:
    assert SOURCES
    long = {
        str(p.relative_to(ROOT)): n
        for p in SOURCES
        if (n := len(p.read_text().splitlines())) > 1500
    }
    assert not long, long


def test_every_function_over_100_lines_says_why() -> None:
    unexplained = []
    for path in SOURCES:
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if _code_lines(lines, node) <= 100:
                continue
            above = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            comment = "\n".join(lines[max(0, above - 6) : above])
            if "Over 100 lines of code" not in comment:
                unexplained.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not unexplained, unexplained

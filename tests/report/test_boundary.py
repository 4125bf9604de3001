"""The report layer renders typed results and computes nothing (docs/design.md, "Layers"):
what it imports from the statistics is result types only, never a routine, and nothing of
scipy or statsmodels."""

from __future__ import annotations

import ast
from pathlib import Path

import reportgen.report

REPORT = Path(reportgen.report.__file__).parent


def _imports(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
    return found


def test_report_layer_imports_no_statistical_routine():
    offenders = []
    for path in sorted(REPORT.glob("*.py")):
        for module, name in _imports(path):
            top = module.split(".")[0]
            if top in ("scipy", "statsmodels"):
                offenders.append(f"{path.name}: {module}")
            # from the stats layer only result classes (CapWords), never functions
            if module.startswith("reportgen.stats") and not (name[:1].isupper()):
                offenders.append(f"{path.name}: {module}.{name or '*'}")
    assert not offenders, offenders

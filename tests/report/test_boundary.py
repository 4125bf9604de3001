"""The ledger is the only voice (docs/design.md, "One answer per question"): every module
under ``report/`` and ``charts/``, and ``cli.py``, renders claims the analysis decided and
never decides, adjusts or reads results.json by string keys itself.

The scan walks every module (``rglob``, subpackages included) and fails on:

* an import of a routine of the statistics layer (a lowercase name from
  ``reportgen.stats``; result classes, CapWords, may be named for type hints), or of
  scipy or statsmodels;
* a call of ``significant()``, an adjustment (``adjust*``), ``adjusted_interval()``,
  ``decision_levels()``, ``compatible_intervals()`` or ``multipletests()``;
* an ordering comparison with α or a p-value (``p <= alpha``, ``p_adjusted < 0.05``);
* a string-key read of a results.json document (``results["verdict"]``,
  ``doc.get("comparisons")``, ``.results.get(...)``) outside the typed reader and the
  writers of the report folder (:data:`ALLOWED_READERS`, each with its reason).

Each rule is also tested on a snippet that breaks it, so the guard cannot pass by
matching nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import reportgen

PACKAGE = Path(reportgen.__file__).parent
#: Calls that decide or adjust: only the analysis makes them.
DECIDING_CALLS = frozenset(
    {
        "significant",
        "adjusted_interval",
        "decision_levels",
        "compatible_intervals",
        "multipletests",
        "adjust_pvalues",
    }
)
#: Names of a significance level, and of a p-value, in a comparison.
LEVEL_NAMES = frozenset({"alpha", "significance_level"})
P_NAMES = frozenset({"p", "p_value", "p_adjusted", "pvalue", "p_adj"})
#: Keys that exist only in a results.json document (its sections).
RESULTS_KEYS = frozenset({"comparisons", "rankings", "ledger"})
#: Modules that may read a results.json by its keys, and why.
ALLOWED_READERS = {
    # reads the file, validates it and resolves its long tables: the bytes, not claims
    "report/folder/reader.py": "reads and validates the file",
    "report/folder/tables.py": "writes and resolves the long tables of the document",
    "report/folder/archive.py": "validates the document against its schema",
    # writes the serialisation it was handed to tables/*.csv, column for column
    "report/sections/outputs.py": "writes the serialisation to tables/*.csv",
}


def _modules() -> list[Path]:
    return sorted(
        [
            *(PACKAGE / "report").rglob("*.py"),
            *(PACKAGE / "charts").rglob("*.py"),
            PACKAGE / "cli.py",
        ]
    )


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _mentions_results(node: ast.AST) -> bool:
    """Whether an expression is (or reads from) a results document: a name or attribute
    called ``results`` or ``doc``."""
    return any(_name(sub) in ("results", "doc", "document") for sub in ast.walk(node))


def offences(source: str, where: str) -> list[str]:
    """Every place in ``source`` (a module at ``where``, relative to the package) that
    decides, adjusts or reads results.json by string keys."""
    tree = ast.parse(source)
    found = []
    reader = where in ALLOWED_READERS
    for node in ast.walk(tree):
        line = f"{where}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            if top in ("scipy", "statsmodels"):
                found.append(f"{line} imports {node.module}")
            if node.module.startswith("reportgen.stats"):
                routines = [a.name for a in node.names if not a.name[:1].isupper()]
                if routines:
                    found.append(f"{line} imports {', '.join(routines)} from {node.module}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ("scipy", "statsmodels") or alias.name.startswith(
                    "reportgen.stats"
                ):
                    found.append(f"{line} imports {alias.name}")
        elif isinstance(node, ast.Call):
            name = _name(node.func)
            if name in DECIDING_CALLS or name.startswith("adjust_"):
                found.append(f"{line} calls {name}()")
            if (
                not reader
                and name == "get"
                and isinstance(node.func, ast.Attribute)
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and (
                    _mentions_results(node.func.value)
                    or node.args[0].value in RESULTS_KEYS - {"systems", "noise"}
                )
            ):
                found.append(f"{line} reads results by the key {node.args[0].value!r}")
        elif isinstance(node, ast.Compare):
            ordering = any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops)
            operands = [node.left, *node.comparators]
            names = {_name(x) for x in operands}
            # a p-value against a level: α by name, or a number strictly between 0 and 1
            level_constant = any(
                isinstance(x, ast.Constant) and isinstance(x.value, float) and 0 < x.value < 1
                for x in operands
            )
            if ordering and (names & LEVEL_NAMES or (names & P_NAMES and level_constant)):
                shown = sorted(names & (LEVEL_NAMES | P_NAMES))
                found.append(f"{line} compares {' / '.join(shown)}")
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)  # writing the document is the writer's job
            and not reader
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
            and (_mentions_results(node.value) or node.slice.value in RESULTS_KEYS)
        ):
            found.append(f"{line} reads results by the key {node.slice.value!r}")
    return found


def test_renderers_decide_nothing():
    modules = _modules()
    # every subpackage is scanned (the old guard read 3 of 46 modules)
    assert len(modules) > 40
    assert any("sections" in p.parts for p in modules)
    assert any("mail" in p.parts for p in modules)
    assert any("render" in p.parts for p in modules)
    found = []
    for path in modules:
        where = path.relative_to(PACKAGE).as_posix()
        found += offences(path.read_text(encoding="utf-8"), where)
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "snippet,what",
    [
        ("from reportgen.stats.multiplicity import adjust_pvalues", "imports adjust_pvalues"),
        ("from scipy import stats", "imports scipy"),
        ("import reportgen.stats.pairwise", "imports reportgen.stats.pairwise"),
        ("x = result.significant()", "calls significant()"),
        ("x = adjust_step(rows, 'holm', alpha=0.05)", "calls adjust_step()"),
        ("lo, hi = result.adjusted_interval()", "calls adjusted_interval()"),
        ("sig = row_p <= alpha", "compares alpha"),
        ("sig = c.p_adjusted < 0.05", "compares p_adjusted"),
        ("sig = p <= self.alpha", "compares alpha / p"),
        ("v = folder.results['verdict']", "reads results by the key 'verdict'"),
        ("v = results.get('seed')", "reads results by the key 'seed'"),
        ("rows = doc['comparisons']", "reads results by the key 'comparisons'"),
        ("rows = entry.get('rankings')", "reads results by the key 'rankings'"),
    ],
)
def test_the_guard_catches_each_rule(snippet, what):
    found = offences(snippet, "report/sections/example.py")
    assert found and what in found[0], found


def test_the_guard_lets_rendering_through():
    ok = """
from reportgen.analysis.ledger.words import release_decision
from reportgen.stats.pairwise import PairwiseResult
text = release_decision(ledger.release).html()
rows = [{"a": c.system_a, "sig": c.significant} for c in claims]
css = "sig" if rows[0]["sig"] else ""
level = 1 - family.alpha
drawn = [r for r in rows if r["p"] > 0]  # a log scale: a positive p, not a decision
results["report"] = {"title": title}  # the writer adds to the document
"""
    assert offences(ok, "report/sections/example.py") == []


def test_the_readers_allowed_are_real_modules():
    for where in ALLOWED_READERS:
        assert (PACKAGE / where).is_file(), where

"""Every default is declared once (docs/design.md, "One run path"): `reportgen.config`
declares each option's default, and every other place that states one (the typed option
classes, `sections.prepare`, the notebook templates' parameter cells, the history and
e-mail commands' own specs) states the same value, read from there or, where papermill
needs a literal, generated from there (`tools/make_templates.py`).

The reference of each check is the declaration itself: `reportgen.config.OPTIONS` (and
`COMMAND_FLAGS` for the flags of one command), never the value a consumer computes.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import papermill as pm
import pytest

from reportgen import config as declared
from reportgen.execution import parse_memory_size

ROOT = Path(__file__).resolve().parents[1]

#: The options whose declared default is text the option's kind reads into bytes.
_SIZES = {o.key for o in declared.OPTIONS if o.kind in ("memory", "input-size")}


def _value(key: str, value: Any) -> Any:
    """A stated default as the library uses it: sizes in bytes, sequences as tuples."""
    if key in _SIZES and isinstance(value, str):
        return parse_memory_size(value)
    if isinstance(value, list):
        return tuple(value)
    return value


def _disagreements(where: str, stated: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """The keys ``stated`` with another value than ``expected`` (a key ``expected``
    lacks is not an option there, and not compared)."""
    return [
        f"{where}: {key} = {value!r}, declared {expected[key]!r}"
        for key, value in stated.items()
        if key in expected and _value(key, value) != _value(key, expected[key])
    ]


def _declared(section: declared.Section | None = None) -> dict[str, Any]:
    """``{key: declared default}`` of the options of ``section`` (all sections: None)."""
    return {o.key: o.default for o in declared.OPTIONS if section in (None, o.section)}


def _field_defaults(cls: type) -> dict[str, Any]:
    return {
        f.name: f.default
        for f in dataclasses.fields(cls)
        if f.default is not dataclasses.MISSING  # type: ignore[misc]
    }


def _keyword_defaults(function: Callable[..., Any]) -> dict[str, Any]:
    return {
        name: p.default
        for name, p in inspect.signature(function).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def _typed_option_classes() -> dict[str, tuple[type, declared.Section]]:
    from reportgen.analysis import AnalysisOptions
    from reportgen.data import LoadOptions
    from reportgen.execution import Execution
    from reportgen.report.runspec import ReportOptions

    return {
        "LoadOptions": (LoadOptions, "input"),
        "AnalysisOptions": (AnalysisOptions, "analysis"),
        "Execution": (Execution, "analysis"),
        "ReportOptions": (ReportOptions, "report"),
    }


def test_typed_options_state_the_declared_defaults():
    # reference: reportgen.config.OPTIONS, the one declaration
    found = []
    for name, (cls, section) in _typed_option_classes().items():
        stated = _field_defaults(cls)
        found += _disagreements(name, stated, _declared(section))
        # every field that is an option of its section has its default compared
        assert set(stated) & set(_declared(section)), name
    assert found == []
    from reportgen.report.runspec import ReportOptions

    # the report options are the [report] section, but for the two folded into `gate`
    # (--fail-on-regression) and the console's --quiet
    assert {f.name for f in dataclasses.fields(ReportOptions)} == {
        o.key for o in declared.options("report")
    } - {"fail_on_regression", "quiet"}


def test_the_notebook_entry_and_the_pipeline_state_the_declared_defaults():
    # reference: reportgen.config.OPTIONS and TITLES
    from reportgen.report import pipeline
    from reportgen.report import sections as rs

    expected = {**_declared("report"), "title": declared.TITLES["evaluation"]}
    found = _disagreements("sections.prepare", _keyword_defaults(rs.prepare), expected)
    found += _disagreements("sections.Report", _field_defaults(rs.Report), expected)
    found += _disagreements(
        "pipeline.analyze_into", _keyword_defaults(pipeline.analyze_into), _declared("report")
    )
    assert found == []
    assert {"title", "theme", "max_table_rows"} <= set(_keyword_defaults(rs.prepare))
    # one vocabulary of report formats: the config's checks and the pipeline's are it
    from reportgen.data import _config

    assert pipeline.FORMATS is declared.REPORT_FORMATS
    assert _config.FORMATS is declared.REPORT_FORMATS


def _template_defaults(name: str) -> dict[str, Any]:
    """The literal defaults of a bundled template's parameters cell, as papermill
    reads them."""
    params = pm.inspect_notebook(str(ROOT / "notebook_templates" / f"{name}.ipynb"))
    return {key: ast.literal_eval(p["default"]) for key, p in params.items()}


def _command_expected(command: str) -> dict[str, Any]:
    """What the flags of ``command`` default to: the flag's own default, else the
    declared option of the same key (``history --format``: every report format)."""
    out = {}
    for flag in declared.command_flags(command):
        dest = flag.dest or flag.names[0].lstrip("-").replace("-", "_")
        value = flag.default
        if value is None and any(o.key == dest for o in declared.options("report")):
            value = declared.default(dest, "report")
        if value is not None:
            out[dest] = value
    return out


@pytest.mark.parametrize("name", ["evaluation", "release", "data_overview", "history"])
def test_template_parameter_cells_state_the_declared_defaults(name):
    # reference: the declarations (OPTIONS, TITLES, COMMAND_FLAGS["history"]);
    # papermill needs literals there, which tools/make_templates.py writes from them
    stated = _template_defaults(name)
    if name == "history":
        expected = _command_expected("history")
        compared = {"title", "theme", "order", "recompute"}
    else:
        expected = {k: v for k, v in _declared().items() if v is not None}
        compared = {"theme", "max_table_rows"} if name != "data_overview" else {"nan_policy"}
        if name != "data_overview":
            expected["title"] = declared.TITLES[name]
            compared.add("title")
    assert compared <= set(stated) & set(expected), name
    assert _disagreements(f"{name}.ipynb", stated, expected) == []


def test_history_and_email_specs_state_their_flags_defaults():
    # reference: reportgen.config.COMMAND_FLAGS (history's and email's own flags)
    from reportgen.report import history
    from reportgen.report.mail import send_report

    assert {"order", "recompute", "title", "theme", "formats"} <= set(
        _field_defaults(history.HistorySpec)
    )
    assert {"max_rows", "theme", "max_attachment_mb"} <= set(_keyword_defaults(send_report))
    found = _disagreements(
        "HistorySpec", _field_defaults(history.HistorySpec), _command_expected("history")
    )
    found += _disagreements(
        "history.prepare", _keyword_defaults(history.prepare), _command_expected("history")
    )
    found += _disagreements(
        "send_report", _keyword_defaults(send_report), _command_expected("email")
    )
    assert found == []


def test_a_default_stated_twice_with_another_value_is_found():
    # the check above can fail: a class that states another longest table, a size in
    # other units that is the same, and a template cell's list against a tuple
    @dataclasses.dataclass(frozen=True)
    class Stated:
        max_table_rows: int = 41
        max_memory: int = 256 * 2**20
        corpus_metrics: tuple[str, ...] = ("f1-macro",)

    found = _disagreements("Stated", _field_defaults(Stated), _declared())
    assert found == ["Stated: max_table_rows = 41, declared 40"]
    assert _disagreements("cell", {"corpus_metrics": ["f1-macro"]}, _declared()) == []
    assert _disagreements("cell", {"theme": "print"}, _declared()) == [
        "cell: theme = 'print', declared 'default'"
    ]


#: The modules of the run path: where options are resolved and handed on.
RUN_PATH = (
    "reportgen/cli.py",
    "reportgen/execution.py",
    "reportgen/report/pipeline.py",
    "reportgen/report/prepared.py",
    "reportgen/report/runspec.py",
    "reportgen/report/sections/_base.py",
)


def _literal_defaults(path: Path, keys: set[str], *, root: Path = ROOT) -> list[str]:
    """``name = literal`` defaults (dataclass fields, keyword defaults) of ``keys`` in
    the module at ``path``, other than None."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        pairs: list[tuple[str, ast.expr]] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            positional = a.posonlyargs + a.args
            pairs += zip(
                (x.arg for x in positional[len(positional) - len(a.defaults) :]), a.defaults
            )
            pairs += [(x.arg, d) for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
        elif isinstance(node, ast.ClassDef):
            pairs += [
                (s.target.id, s.value)
                for s in node.body
                if isinstance(s, ast.AnnAssign)
                and isinstance(s.target, ast.Name)
                and s.value is not None
            ]
        for name, value in pairs:
            if name not in keys:
                continue
            try:
                literal = ast.literal_eval(value)
            except ValueError:
                continue  # an expression: read from the declarations
            if literal is not None:
                found.append(f"{path.relative_to(root)}:{value.lineno}: {name} = {literal!r}")
    return found


def test_the_run_path_writes_no_default_of_an_option_as_a_literal(tmp_path):
    # reference: the option keys of reportgen.config.OPTIONS; a literal beside one of
    # them would be a second declaration, free to drift from the first
    keys = set(_declared())
    found = [f for module in RUN_PATH for f in _literal_defaults(ROOT / module, keys)]
    assert found == []
    # the scan sees a literal default when there is one
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f(*, theme='default', seed=None, jobs=default('jobs')):\n    pass\n\n\n"
        "class Spec:\n    max_table_rows: int = 40\n",
        encoding="utf-8",
    )
    assert _literal_defaults(probe, keys, root=tmp_path) == [
        "probe.py:1: theme = 'default'",
        "probe.py:6: max_table_rows = 40",
    ]

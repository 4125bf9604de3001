"""The bundled notebook templates are what tools/make_templates.py writes.

The generator holds the templates' source (kept lint- and format-clean there); a template
edited by hand and not in the generator would be lost at the next `python
tools/make_templates.py`, so the committed files must equal its output byte for byte.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import papermill as pm
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_templates", ROOT / "tools" / "make_templates.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_templates_are_the_generators_output(tmp_path):
    written = _generator().write(tmp_path)
    committed = sorted(p.name for p in (ROOT / "notebook_templates").glob("*.ipynb"))
    assert sorted(p.name for p in written) == committed
    for path in written:
        expected = path.read_text("utf-8")
        actual = (ROOT / "notebook_templates" / path.name).read_text("utf-8")
        assert actual == expected, (
            f"notebook_templates/{path.name} differs from what tools/make_templates.py "
            "writes: edit the generator and run it"
        )


@pytest.mark.parametrize("name", ["evaluation", "release", "history", "data_overview"])
def test_every_template_parameter_has_its_help(name):
    # papermill reads a parameter's help from the comment at the end of its line only; a
    # formatter that wrapped a long line would leave it without one
    params = pm.inspect_notebook(str(ROOT / "notebook_templates" / f"{name}.ipynb"))
    assert params
    for key, param in params.items():
        assert param["help"], f"{name}.ipynb: parameter {key} has no help"
        assert param["inferred_type_name"] != "None", f"{name}.ipynb: {key} has no type"

"""Bundled templates and themes: found by name, unknown names give a clear error, and the
data-overview template runs under papermill."""

from __future__ import annotations

import json

import pytest

from reportgen import resources
from reportgen.errors import InputError


def test_resources_found_by_name():
    assert resources.notebook_template("data_overview").name == "data_overview.ipynb"
    theme = json.loads((resources.theme("default") / "theme.json").read_text())
    assert "config" in theme and "category" in theme["config"]["range"]
    assert (resources.theme("print") / "report.css").is_file()


def test_resources_unknown_names():
    with pytest.raises(
        InputError,
        match=r"(?s)unknown notebook template 'nope'.*"
        r"bundled templates: data_overview",
    ):
        resources.notebook_template("nope")
    with pytest.raises(
        InputError,
        match=r"(?s)unknown theme 'nope'.*bundled themes: default, "
        r"print",
    ):
        resources.theme("nope")


def test_data_overview_template_declares_parameters():
    import papermill as pm

    params = pm.inspect_notebook(str(resources.notebook_template("data_overview")))
    assert set(params) == {"data", "data_format", "config", "nan_policy"}
    assert "detects it" in params["data_format"]["help"]


@pytest.mark.e2e
def test_data_overview_template_executes(tmp_path, shared_data):
    import nbformat
    import papermill as pm

    out = tmp_path / "overview.ipynb"
    pm.execute_notebook(
        str(resources.notebook_template("data_overview")),
        str(out),
        parameters={"data": [str(shared_data / "ibm-rag")]},
        kernel_name="python3",
        progress_bar=False,
        cwd=str(tmp_path),
    )
    nb = nbformat.read(out, as_version=4)
    text = json.dumps([c.get("outputs", []) for c in nb.cells])
    assert "6 systems" in text and "ibm-rag" in text and "No exclusions" in text

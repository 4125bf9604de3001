"""The wheel: an installed, non-editable reportgen finds its templates and themes, and
declares the console script."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob("reportgen-*.whl")
    return path


def test_wheel_ships_templates_themes_and_typing(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    templates = {p.name for p in (ROOT / "notebook_templates").glob("*.ipynb")}
    themes = {f"{p.parent.name}/{p.name}" for p in (ROOT / "themes").glob("*/*")}
    assert templates and themes
    for name in templates:
        assert f"reportgen/notebook_templates/{name}" in names
    for name in themes:
        assert f"reportgen/themes/{name}" in names
    assert "reportgen/py.typed" in names
    assert "reportgen/schemas/results.schema.json" in names
    assert "reportgen/report/export/page.html.j2" in names  # the page of every report
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "reportgen = reportgen.cli:main_entry" in text


def test_installed_package_finds_its_data(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    code = (
        "import reportgen, reportgen.resources as r; "
        "print(reportgen.__file__); print(r.notebook_template('data_overview')); "
        "print(r.theme('default') / 'theme.json'); print(r.theme('print') / 'report.css')"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for line in lines:  # everything comes from the installed copy, not the source tree
        assert line.startswith(str(target)), lines

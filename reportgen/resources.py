"""Where the bundled notebook templates and themes are.

In an installed package they live inside it (``reportgen/notebook_templates``,
``reportgen/themes``, placed there by the wheel build); in a source checkout or an
editable install they are the top-level folders of the repository.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["notebook_template", "notebook_templates_dir", "theme", "themes_dir"]

_PACKAGE = Path(__file__).resolve().parent


def _bundled(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"reportgen's {name} folder is missing (looked in {_PACKAGE / name} and "
        f"{_PACKAGE.parent / name}); reinstall reportgen"
    )


def notebook_templates_dir() -> Path:
    """The folder of the bundled notebook templates."""
    return _bundled("notebook_templates")


def themes_dir() -> Path:
    """The folder of the bundled themes (one sub-folder per theme)."""
    return _bundled("themes")


def notebook_template(name: str) -> Path:
    """The bundled template ``name`` (with or without ``.ipynb``)."""
    folder = notebook_templates_dir()
    path = folder / (name if name.endswith(".ipynb") else f"{name}.ipynb")
    if not path.is_file():
        known = sorted(p.stem for p in folder.glob("*.ipynb"))
        from reportgen.errors import InputError

        raise InputError(
            f"unknown notebook template {name!r}",
            hint=f"bundled templates: {', '.join(known) or '(none)'}; or pass "
            "the path of your own .ipynb",
        )
    return path


def theme(name: str) -> Path:
    """The folder of the bundled theme ``name``: ``theme.json`` (the Altair chart
    configuration) and ``report.css`` (the report's HTML styling)."""
    folder = themes_dir()
    path = folder / name
    if not (path / "theme.json").is_file():
        known = sorted(p.name for p in folder.iterdir() if (p / "theme.json").is_file())
        from reportgen.errors import InputError

        raise InputError(
            f"unknown theme {name!r}",
            hint=f"bundled themes: {', '.join(known) or '(none)'}; or pass "
            "a folder holding theme.json and report.css",
        )
    return path

"""``reportgen run``: load → execute the notebook template with papermill → export the
HTML and the PDF → results.json, tables, manifest, all in one report folder written
atomically.

Each step is a function of its inputs (:func:`execute_template`,
:func:`reportgen.report.export.notebook_to_html`,
:func:`reportgen.report.export.html_to_pdf`, :func:`reportgen.report.archive.
build_manifest`); :func:`run_report` chains them inside
:func:`reportgen.report.archive.report_folder`, so a failure leaves no half-written
report and an existing report is replaced only with ``force``.
"""

from __future__ import annotations

import datetime as _dt
import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reportgen.errors import InputError, Location, ReportgenError

__all__ = ["FORMATS", "NotebookExecutionError", "RunResult", "RunSpec", "execute_template",
           "resolve_template", "run_report"]

FORMATS = ("html", "pdf", "ipynb")

Progress = Callable[[str], None]


class NotebookExecutionError(ReportgenError):
    """A cell of the report notebook failed; the partial notebook is kept for
    debugging at :attr:`debug_path`."""

    def __init__(self, message: str, *, debug_path: Path | None = None) -> None:
        super().__init__(message)
        self.debug_path = debug_path


@dataclass(frozen=True)
class RunSpec:
    """Everything one ``reportgen run`` needs (the resolved flags and config).

    ``load_options`` and ``analysis_options`` are keyword arguments of
    :class:`reportgen.data.LoadOptions` and :class:`reportgen.analysis.AnalysisOptions`;
    ``execution`` those of :class:`reportgen.execution.Execution` (``jobs``,
    ``executor``, ``scheduler``), passed to the notebook as its ``execution``
    parameter and recorded in the manifest, never in results.json.
    """

    data: tuple[str, ...]
    out: str
    config: str | None = None
    load_options: Mapping[str, Any] = field(default_factory=dict)
    analysis_options: Mapping[str, Any] = field(default_factory=dict)
    title: str = "Evaluation report"
    release: str | None = None
    template: str = "evaluation"
    theme: str = "default"
    formats: tuple[str, ...] = FORMATS
    force: bool = False
    if_exists: str = "error"
    baseline: str | None = None
    candidate: str | None = None
    max_table_rows: int = 40
    kernel_name: str | None = None
    execution_timeout: int | None = None
    execution: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = [f for f in self.formats if f not in FORMATS]
        if unknown or not self.formats:
            raise InputError(f"unknown report format(s): {', '.join(unknown) or '(none)'}",
                             hint=f"use a comma-separated list of: {', '.join(FORMATS)}")
        if self.max_table_rows < 1:
            raise InputError(f"max_table_rows = {self.max_table_rows} must be at least 1")


@dataclass(frozen=True)
class RunResult:
    """What :func:`run_report` produced."""

    out: Path
    files: tuple[str, ...]
    seed: int
    pages: int | None
    verdict_counts: Mapping[str, int] | None
    timings: Mapping[str, float]


def resolve_template(template: str) -> Path:
    """A bundled template name (``evaluation``, ``release``, ...) or a path to an
    ``.ipynb``."""
    from reportgen import resources

    path = Path(template)
    if path.suffix == ".ipynb" or path.exists():
        if not path.is_file():
            raise InputError("notebook template not found", location=Location(str(path)),
                             hint="give the path of an .ipynb or a bundled template name")
        return path
    return resources.notebook_template(template)


def _is_release_template(path: Path) -> bool:
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    return bool(nb.metadata.get("reportgen", {}).get("release", False))


def _template_kind(path: Path) -> str:
    import nbformat

    meta = nbformat.read(str(path), as_version=4).metadata.get("reportgen", {})
    return "history" if meta.get("history") else \
        "release" if meta.get("release") else "evaluation"


def _engine(progress: Progress | None):
    """A papermill engine that reports each cell (and its report section) to
    ``progress``."""
    from papermill.engines import NBClientEngine

    class _ReportEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
            cells = [c for c in nb_man.nb.cells if c.cell_type == "code"]
            total = len(cells)
            started = nb_man.cell_start

            def cell_start(cell, cell_index=None, **kw):
                if progress is not None and cell.cell_type == "code":
                    k = cells.index(cell) + 1 if cell in cells else 0
                    section = cell.metadata.get("reportgen", {}).get("section") or \
                        ("parameters" if "injected-parameters" in
                         cell.metadata.get("tags", []) else "setup")
                    progress(f"cell {k}/{total}: {section}")
                return started(cell, cell_index, **kw)

            nb_man.cell_start = cell_start
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)

    return _ReportEngine


def execute_template(template: Path, output: Path, parameters: Mapping[str, Any], *,
                     progress: Progress | None = None, kernel_name: str | None = None,
                     execution_timeout: int | None = None, cwd: str | None = None) -> Any:
    """Execute ``template`` with ``parameters`` into ``output`` (papermill) and return
    the executed notebook.

    Raises
    ------
    NotebookExecutionError
        A cell failed: the message names the section, the cell and the error; the
        partial notebook stays at ``output``.
    """
    import nbformat
    import papermill as pm
    from papermill.engines import papermill_engines
    from papermill.exceptions import PapermillExecutionError

    papermill_engines.register("reportgen", _engine(progress))
    try:
        pm.execute_notebook(str(template), str(output), parameters=dict(parameters),
                            engine_name="reportgen", kernel_name=kernel_name,
                            progress_bar=False, cwd=cwd,
                            execution_timeout=execution_timeout)
    except PapermillExecutionError as exc:
        section, number = _failed_cell(output)
        raise NotebookExecutionError(
            f"the report notebook failed in section {section!r} (code cell {number} of "
            f"the template): "
            f"{exc.ename}: {exc.evalue}") from None
    return nbformat.read(str(output), as_version=4)


def _failed_cell(path: Path) -> tuple[str, int]:
    import nbformat

    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception:  # noqa: BLE001 - best effort for the message
        return "unknown", 0
    code = [c for c in nb.cells if c.cell_type == "code"
            and "injected-parameters" not in c.metadata.get("tags", [])]
    for k, cell in enumerate(code, start=1):
        if cell.metadata.get("papermill", {}).get("exception") or any(
                o.get("output_type") == "error" for o in cell.get("outputs", [])):
            return cell.metadata.get("reportgen", {}).get("section", "setup"), k
    return "unknown", 0


def _short_list(paths: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(str(p) for p in paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def _json_ready(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_json_ready(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _json_ready(v) for k, v in value.items()}
    return value


def run_report(spec: RunSpec, *, progress: Progress | None = None) -> RunResult:
    """Make a full report folder: ``report.html``, ``report.pdf``, ``report.ipynb``
    (as chosen by ``spec.formats``), ``results.json``, ``tables/*.csv``,
    ``manifest.json``.

    Raises
    ------
    InputError
        Bad data, options or output folder (before the notebook runs).
    NotebookExecutionError
        A cell failed; the partial notebook is copied to ``<out>.failed.ipynb``.
    ReportgenError
        The export failed (e.g. the HTML would reference the network).
    """
    from reportgen.analysis import AnalysisOptions
    from reportgen.charts.render import load_theme
    from reportgen.data import LoadOptions, load
    from reportgen.report.archive import (
        build_manifest,
        report_folder,
        resolve_out,
        validate_results,
    )
    from reportgen.report.export import (
        external_references,
        html_to_pdf,
        notebook_to_html,
    )

    say = progress or (lambda message: None)
    timings: dict[str, float] = {}
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    template = resolve_template(spec.template)
    release_report = _is_release_template(template)
    if _template_kind(template) == "history":
        raise InputError("the history template makes a trend report from archived reports",
                         location=Location(str(template)),
                         hint="use `reportgen history REPORT_DIR... --out DIR`")
    theme = load_theme(spec.theme)
    options = dict(spec.analysis_options)
    if options.get("seed") is None:
        import numpy as np
        options["seed"] = int(np.random.SeedSequence().entropy % (2**63))
    AnalysisOptions(**options)  # bad options fail before any work
    LoadOptions(**dict(spec.load_options))
    from reportgen.execution import Execution
    Execution.from_mapping(spec.execution)
    out = resolve_out(spec.out, if_exists="replace" if spec.force else spec.if_exists)
    if out != Path(spec.out):
        say(f"{spec.out} exists: writing {out} instead (--if-exists timestamp)")
    with report_folder(out, force=spec.force or spec.if_exists == "replace") as tmp:
        tick = time.perf_counter()
        say(f"loading {', '.join(spec.data)}")
        table = load(list(spec.data), options=LoadOptions(**dict(spec.load_options)),
                     config=spec.config)
        timings["load"] = time.perf_counter() - tick
        say(f"loaded {len(table.systems)} systems, {len(table.datasets)} datasets, "
            f"{len(table.metrics)} metrics")
        from reportgen.analysis import check_options

        check_options(table, AnalysisOptions(**options))  # before the notebook starts
        if release_report:
            from reportgen.report.release import resolve_release_systems
            resolve_release_systems(table.systems,
                                    baseline=spec.baseline or options.get("baseline"),
                                    candidate=spec.candidate, release=spec.release)
        parameters = {
            "data": [str(Path(d).resolve()) for d in spec.data],
            "config": str(Path(spec.config).resolve()) if spec.config else "",
            "load_options": _json_ready(spec.load_options),
            "analysis_options": _json_ready(options),
            "title": spec.title, "release": spec.release or "",
            "theme": str(theme.path), "output_dir": str(tmp.resolve()),
            "max_table_rows": spec.max_table_rows,
        }
        if spec.execution:  # a template of one's own may predate this parameter
            parameters["execution"] = _json_ready(spec.execution)
        if release_report:
            parameters["baseline"] = spec.baseline or options.get("baseline") or ""
            parameters["candidate"] = spec.candidate or ""
        notebook_path = tmp / "report.ipynb"
        tick = time.perf_counter()
        try:
            nb = execute_template(template, notebook_path, parameters, progress=say,
                                  kernel_name=spec.kernel_name,
                                  execution_timeout=spec.execution_timeout)
        except NotebookExecutionError as exc:
            debug = out.resolve().parent / f"{out.name}.failed.ipynb"
            if notebook_path.exists():
                shutil.copyfile(notebook_path, debug)
                raise NotebookExecutionError(
                    f"{exc}\nthe partial notebook is kept in {debug}",
                    debug_path=debug) from None
            raise
        timings["notebook"] = time.perf_counter() - tick
        results_path = tmp / "results.json"
        if not results_path.is_file():
            raise ReportgenError("the notebook wrote no results.json: its last cell must "
                                 "call reportgen.report.sections.write_outputs(report)")
        results = json.loads(results_path.read_text(encoding="utf-8"))
        validate_results(results)
        tick = time.perf_counter()
        say("exporting HTML")
        meta = [("seed", str(results["seed"])), ("reportgen", results["reportgen_version"]),
                ("data", _short_list(spec.data))]
        html = notebook_to_html(nb, title=spec.title, release=spec.release, theme=theme,
                                meta=meta, created=results["created"])
        bad = external_references(html)
        if bad:
            raise ReportgenError("the report HTML would need the network or a script: "
                                 + ", ".join(bad[:5]))
        if "html" in spec.formats:
            (tmp / "report.html").write_text(html, encoding="utf-8")
        timings["html"] = time.perf_counter() - tick
        pages = None
        if "pdf" in spec.formats:
            tick = time.perf_counter()
            say("rendering the PDF")
            pages = html_to_pdf(html, tmp / "report.pdf", title=spec.title,
                                release=spec.release)
            timings["pdf"] = time.perf_counter() - tick
            say(f"PDF: {pages} pages")
        if "ipynb" not in spec.formats:
            notebook_path.unlink()
        outputs = {p.relative_to(tmp).as_posix(): p for p in sorted(tmp.rglob("*"))
                   if p.is_file()}
        parameters_record = {k: v for k, v in asdict(spec).items()
                             if k not in ("data", "out")}
        parameters_record["analysis_options"] = _json_ready(options)
        parameters_record["template"] = str(template)
        if spec.config:  # absolute, so `reportgen history` can reload the data later
            parameters_record["config_resolved"] = str(Path(spec.config).resolve())
        manifest = build_manifest(table.sources, parameters=_json_ready(parameters_record),
                                  seed=int(results["seed"]), started=started,
                                  outputs=outputs)
        for name, entry in manifest["outputs"].items():
            entry["path"] = name  # relative to the report folder, not the build folder
        manifest["timings_seconds"] = {k: round(v, 3) for k, v in timings.items()}
        from reportgen.report.output import write_json_atomic
        write_json_atomic(tmp / "manifest.json", manifest)
        files = tuple(sorted([*outputs, "manifest.json"]))
        verdict = results.get("verdict")
    say(f"wrote {out}")
    return RunResult(out=out, files=files, seed=int(results["seed"]), pages=pages,
                     verdict_counts=None if verdict is None else verdict.get("counts"),
                     timings=timings)

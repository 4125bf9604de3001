"""``reportgen run``: load → execute the notebook template with papermill → export the
HTML and the PDF → results.json, tables, manifest, all in one report folder written
atomically.

Each step is a function of its inputs (:func:`execute_template`,
:func:`reportgen.report.export.notebook_to_html`,
:func:`reportgen.report.pdf.html_to_pdf`, :func:`reportgen.report.folder.manifest.
build_manifest`); :func:`run_report` chains them inside
:func:`reportgen.report.folder.archive.report_folder`, so a failure leaves no half-written
report and an existing report is replaced only with ``force``.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen import plaintext
from reportgen.errors import InputError, Location, ReportgenError, is_file_system_error
from reportgen.jsonsafe import json_safe

if TYPE_CHECKING:
    from reportgen.analysis.release import ReleaseSpec

__all__ = [
    "FORMATS",
    "AnalysisFolder",
    "NotebookExecutionError",
    "RunResult",
    "RunSpec",
    "analyze_into",
    "built_files",
    "execute_into",
    "execute_template",
    "export_formats",
    "output_folder",
    "read_notebook_output",
    "write_manifest",
    "resolve_template",
    "run_report",
]

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
    title: str | None = None  # None: "Evaluation report", or "Release v2.1: B against A"
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
    gate: str | None = None  # a release report's gate (the exit status), None for none
    allow_partial: bool = False

    def __post_init__(self) -> None:
        unknown = [f for f in self.formats if f not in FORMATS]
        if unknown or not self.formats:
            raise InputError(
                f"unknown report format(s): {', '.join(unknown) or '(none)'}",
                hint=f"use a comma-separated list of: {', '.join(FORMATS)}",
            )
        if self.max_table_rows < 1:
            raise InputError(f"max_table_rows = {self.max_table_rows} must be at least 1")
        self.release_spec()  # a bad gate fails now

    def release_spec(self) -> ReleaseSpec:
        """The release comparison asked for (systems named or not yet):
        ``--baseline`` (or the ``baseline`` analysis option), ``--candidate``,
        ``--release``, the gate."""
        from reportgen.analysis.release import ReleaseSpec

        return ReleaseSpec(
            baseline=self.baseline or self.analysis_options.get("baseline"),
            candidate=self.candidate,
            release=self.release,
            gate=self.gate,  # type: ignore[arg-type]  # checked by ReleaseSpec
            allow_partial=self.allow_partial,
        )


@dataclass(frozen=True)
class RunResult:
    """What :func:`run_report` produced."""

    out: Path
    files: tuple[str, ...]
    seed: int
    pages: int | None
    verdict_counts: Mapping[str, int] | None
    timings: Mapping[str, float]
    verdict: Mapping[str, Any] | None = None  # results.json "verdict" of a release report
    degenerate: tuple[Mapping[str, Any], ...] = ()  # results.json "degenerate" entries


def resolve_template(template: str) -> Path:
    """A bundled template name (``evaluation``, ``release``, ...) or a path to an
    ``.ipynb``. A bare name of a bundled template is that template even when a file or
    folder of that name lies in the working directory (``--template release`` beside a
    ``release/`` folder of results); ``./release.ipynb`` names one's own."""
    from reportgen import resources

    path = Path(template)
    bundled = resources.notebook_templates_dir() / f"{template}.ipynb"
    if path.suffix != ".ipynb" and template == path.name and bundled.is_file():
        return bundled
    if path.suffix == ".ipynb" or path.exists():
        if not path.is_file():
            raise InputError(
                "notebook template not found",
                location=Location(str(path)),
                hint="give the path of an .ipynb or a bundled template name",
            )
        _check_template(path)
        return path
    return resources.notebook_template(template)


def _check_template(path: Path) -> None:
    """A template of the user's must be a notebook of format 4 that nbformat reads:
    read with the limits of :func:`reportgen.jsonsafe.load_json`.

    Raises
    ------
    InputError
        Not JSON (binary, or text of another kind), nested too deeply, an older
        notebook format, or a notebook nbformat rejects.
    """
    import nbformat

    from reportgen.jsonsafe import load_json

    hint = "give a Jupyter notebook (.ipynb, nbformat 4), e.g. a copy of a bundled template"
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(
            f"cannot read the notebook template ({exc.strerror or exc})",
            location=Location(str(path)),
            hint=hint,
        ) from None
    document = load_json(data, source=path, hint=hint, what="the notebook template")
    version = document.get("nbformat") if isinstance(document, dict) else None
    if version != 4:
        raise InputError(
            "the notebook template is "
            + (f"of nbformat {version}" if isinstance(version, int) else "not a notebook")
            + ", and reportgen runs nbformat 4 notebooks",
            location=Location(str(path)),
            hint="open and save it with a current Jupyter (which writes nbformat 4)"
            if isinstance(version, int)
            else hint,
        )
    metadata = document.get("metadata") or {}
    if not (metadata.get("language_info") or {}).get("name") and not (
        metadata.get("kernelspec") or {}
    ).get("language"):
        raise InputError(
            "the notebook template names no language (metadata.language_info.name)",
            location=Location(str(path)),
            hint="open and save it with Jupyter, which records its Python kernel",
        )
    try:
        nbformat.validate(nbformat.from_dict(document))
    except Exception as exc:  # noqa: BLE001 - nbformat's ValidationError and friends
        detail = " ".join(str(exc).split())[:200]
        raise InputError(
            f"the notebook template is not a valid notebook ({detail})",
            location=Location(str(path)),
            hint=hint,
        ) from None


def _is_release_template(path: Path) -> bool:
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    return bool(nb.metadata.get("reportgen", {}).get("release", False))


def _template_kind(path: Path) -> str:
    import nbformat

    meta = nbformat.read(str(path), as_version=4).metadata.get("reportgen", {})
    return "history" if meta.get("history") else "release" if meta.get("release") else "evaluation"


#: The longest socket path used: a Unix socket's path holds 107 bytes on Linux and 103
#: on macOS, and the kernel adds "-NN" to the path given.
_MAX_SOCKET_PATH = 100


def _socket_folder() -> Path | None:
    """A new private folder (mode 0700) for the kernel's sockets, in the temporary folder
    or, when that path is too long for a socket (a deep ``TMPDIR``), in ``/tmp``; None
    when neither is short enough or writable."""
    for base in (None, "/tmp"):
        try:
            folder = Path(tempfile.mkdtemp(prefix="reportgen-kernel-", dir=base))
        except OSError:
            continue
        if len(os.fsencode(folder / "kernel-99")) <= _MAX_SOCKET_PATH:
            return folder
        folder.rmdir()
    return None


def _ipc_kernel_manager() -> type:
    """A kernel manager whose kernel talks over Unix sockets in a private folder instead
    of TCP ports on localhost: no other local user can reach the kernel, and ipykernel
    has no "running over TCP without encryption" warning to print."""
    from jupyter_client.manager import AsyncKernelManager

    class _IpcKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs: Any) -> None:
            sockets = _socket_folder()
            # no folder short enough for a socket path: TCP on localhost, as Jupyter does
            kwargs.setdefault("transport", "ipc" if sockets is not None else "tcp")
            super().__init__(**kwargs)
            self._ipc_folder = sockets or Path(tempfile.mkdtemp(prefix="reportgen-kernel-"))
            if sockets is not None:
                self.ip = str(sockets / "kernel")  # sockets kernel-1, kernel-2, ...
            # the connection file too (jupyter_client would write TMPDIR/tmpXXXX.json, left
            # there when Ctrl-C falls between its start and its clean-up)
            self.connection_file = str(self._ipc_folder / "kernel.json")
            weakref.finalize(self, shutil.rmtree, self._ipc_folder, True)

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            # the kernel's own log (e.g. a traceback when --timeout stops it mid-reply)
            # is not the user's business; errors of cells come back as messages
            kw.setdefault("stdout", subprocess.DEVNULL)
            kw.setdefault("stderr", subprocess.DEVNULL)
            # the kernel's temporary files (its chart workers' font folder, ...) go in
            # this folder, which this process removes however the kernel ends (killed
            # at shutdown, or with this process on a signal it catches)
            scratch = self._ipc_folder / "tmp"
            scratch.mkdir(exist_ok=True)
            kw["env"] = {**(kw.get("env") or os.environ), "TMPDIR": str(scratch)}
            await super()._async_launch_kernel(kernel_cmd, **kw)

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            await super()._async_cleanup_resources(restart=restart)
            if not restart:  # the kernel is gone: its socket folder too
                shutil.rmtree(self._ipc_folder, ignore_errors=True)

    return _IpcKernelManager


#: What the report notebooks' first cell imports: a kernel started early imports it while
#: ``run`` reads the data (``--IPKernelApp.exec_lines``).
_WARM_IMPORTS = "import reportgen.report.sections"


class WarmKernel:
    """The notebook's kernel, started before the data are loaded.

    Starting an IPython kernel and importing what the report's first cell needs (numpy,
    scipy, pandas, Altair, reportgen) takes about two seconds of one core; ``run``
    starts it first, so that this happens while its own process imports and reads the
    data on the other core, and :func:`execute_template` then runs the notebook in it.
    The kernel imports ``reportgen.report.sections`` as it starts (ipykernel's
    ``exec_lines``; other kernels start as they are). :meth:`close` shuts it down and
    removes its socket folder; a kernel never used is closed too.
    """

    def __init__(self, kernel_name: str | None = None) -> None:
        from jupyter_core.utils import run_sync

        manager_class: Any = _ipc_kernel_manager() if os.name == "posix" else None
        if manager_class is None:
            from jupyter_client.manager import AsyncKernelManager

            manager_class = AsyncKernelManager
        self.km = manager_class(kernel_name=kernel_name) if kernel_name else manager_class()
        arguments = ["--HistoryManager.hist_file=:memory:"]  # as nbclient starts kernels
        if any("ipykernel" in part for part in self.km.kernel_spec.argv):
            arguments.append(f"--IPKernelApp.exec_lines={[_WARM_IMPORTS]!r}")
        run_sync(self.km.start_kernel)(extra_arguments=arguments)
        self._closed = False

    def close(self) -> None:
        """Shut the kernel down (gracefully; killed if it does not stop) and clean up."""
        if self._closed:
            return
        self._closed = True
        from jupyter_core.utils import run_sync

        try:
            if run_sync(self.km.is_alive)():
                run_sync(self.km.shutdown_kernel)(now=False)
        except RuntimeError:  # already gone
            pass
        finally:
            run_sync(self.km.cleanup_resources)()


def _engine(progress: Progress | None, current: dict[str, Any] | None = None):
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
                if cell.cell_type == "code":
                    k = cells.index(cell) + 1 if cell in cells else 0
                    section = cell.metadata.get("reportgen", {}).get("section") or (
                        "parameters"
                        if "injected-parameters" in cell.metadata.get("tags", [])
                        else "setup"
                    )
                    if current is not None:
                        current.update(section=section, cell=k, total=total)
                    if progress is not None:
                        progress(f"cell {k}/{total}: {section}")
                return started(cell, cell_index, **kw)

            nb_man.cell_start = cell_start
            if os.name == "posix":  # no TCP port on localhost, and no ipykernel warning
                kwargs.setdefault("kernel_manager_class", _ipc_kernel_manager())
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)

    return _ReportEngine


def execute_template(
    template: Path,
    output: Path,
    parameters: Mapping[str, Any],
    *,
    progress: Progress | None = None,
    kernel_name: str | None = None,
    execution_timeout: int | None = None,
    cwd: str | None = None,
    kernel: WarmKernel | None = None,
) -> Any:
    """Execute ``template`` with ``parameters`` into ``output`` (papermill) and return
    the executed notebook, in ``kernel`` if given (started earlier; the caller closes
    it), else in a kernel started here.

    Raises
    ------
    NotebookExecutionError
        A cell failed: the message names the section, the cell and the error; the
        partial notebook stays at ``output``.
    """
    import nbformat
    import papermill as pm
    from nbclient.exceptions import CellTimeoutError
    from papermill.engines import papermill_engines
    from papermill.exceptions import PapermillExecutionError

    current: dict[str, Any] = {}
    papermill_engines.register("reportgen", _engine(progress, current))
    log = logging.getLogger("papermill")  # nbclient logs a timeout there: said below
    level = log.level
    log.setLevel(logging.CRITICAL)
    if kernel is not None:
        manager: dict[str, Any] = {"km": kernel.km}
    elif os.name == "posix":  # its sockets and connection file in a private folder
        manager = {"kernel_manager_class": _ipc_kernel_manager()}
    else:
        manager = {}
    try:
        pm.execute_notebook(
            str(template),
            str(output),
            parameters=dict(parameters),
            engine_name="reportgen",
            kernel_name=kernel_name,
            progress_bar=False,
            cwd=cwd,
            execution_timeout=execution_timeout,
            **manager,
        )
    except CellTimeoutError:
        where = (
            f"section {current['section']!r} (code cell {current['cell']} of {current['total']})"
            if current
            else "a cell"
        )
        raise NotebookExecutionError(
            f"the report notebook stopped: {where} ran longer than --timeout {execution_timeout} s"
        ) from None
    except PapermillExecutionError as exc:
        if exc.ename == "KeyboardInterrupt":  # Ctrl-C reached the kernel: the user's stop
            raise KeyboardInterrupt from None
        fault = _file_system_fault(exc.ename, exc.evalue)
        if fault is not None:  # a full disk or a file-size limit met by the kernel
            from reportgen.report.folder.manifest import disk_full_error

            raise disk_full_error(output.parent, fault) or fault from None
        section, number = _failed_cell(output)
        if exc.ename in _USER_ERRORS:  # a template of one's own met bad data or options
            message, _, hint = str(exc.evalue).partition("\n  hint: ")
            raise InputError(
                f"{message} (section {section!r}, code cell {number} of the template)",
                hint=hint or None,
            ) from None
        raise NotebookExecutionError(
            f"the report notebook failed in section {section!r} (code cell {number} of "
            f"the template): "
            f"{exc.ename}: {exc.evalue}"
        ) from None
    finally:
        log.setLevel(level)
    nb = nbformat.read(str(output), as_version=4)
    # papermill records where it read and wrote the notebook: the template's and the
    # build folder's absolute paths, private in a report that is shared; named instead
    recorded = nb.metadata.get("papermill")
    if isinstance(recorded, dict) and ("input_path" in recorded or "output_path" in recorded):
        recorded["input_path"] = template.name
        recorded["output_path"] = output.name
        nbformat.write(nb, str(output))
    return nb


#: Errors a notebook cell raises for bad input (the user's, exit code 2), by class name:
#: the kernel's exception reaches this process as its name and message.
_USER_ERRORS = frozenset({"InputError", "ConfigError"})


_OS_ERROR = re.compile(r"\[Errno (\d+)\] ([^:]*)(?:: '(.*)')?$", re.DOTALL)


def _file_system_fault(name: str, value: str) -> OSError | None:
    """The kernel's ``OSError`` (its class name and message, as papermill reports a
    cell's exception) when it is a file-system fault the user fixes (a full disk, a
    file-size limit, no permission), else None."""
    import builtins

    kind = getattr(builtins, str(name), None)
    if not (isinstance(kind, type) and issubclass(kind, OSError)):
        return None
    match = _OS_ERROR.match(str(value).strip())
    if match is None:
        return None
    fault = OSError(int(match[1]), match[2], match[3])
    return fault if is_file_system_error(fault) else None


def _failed_cell(path: Path) -> tuple[str, int]:
    import nbformat

    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception:  # noqa: BLE001 - best effort for the message
        return "unknown", 0
    code = [
        c
        for c in nb.cells
        if c.cell_type == "code" and "injected-parameters" not in c.metadata.get("tags", [])
    ]
    for k, cell in enumerate(code, start=1):
        if cell.metadata.get("papermill", {}).get("exception") or any(
            o.get("output_type") == "error" for o in cell.get("outputs", [])
        ):
            return cell.metadata.get("reportgen", {}).get("section", "setup"), k
    return "unknown", 0


def parameter_path(path: Path) -> str:
    """``path`` relative to the working directory, as a notebook parameter that the
    kernel (started in the same directory) can open; absolute where no relative path
    exists. What a reader sees is :func:`reportgen.plaintext.shown_path`."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(Path(path).resolve())


def _short_list(paths: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(str(p) for p in paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def output_folder(
    out: str, *, force: bool, if_exists: str, progress: Progress | None = None
) -> tuple[Path, bool]:
    """The report folder to write (:func:`reportgen.report.folder.archive.resolve_out`) and
    whether an existing one is replaced; says so when a timestamped folder is used."""
    from reportgen.report.folder.archive import resolve_out

    replace = force or if_exists in ("replace", "replace-edited")
    mode = if_exists if if_exists == "replace-edited" or not replace else "replace"
    folder = resolve_out(out, if_exists=mode)
    if folder != Path(out) and progress is not None:
        progress(f"{out} exists: writing {folder} instead (--if-exists timestamp)")
    return folder, replace


def execute_into(
    template: Path,
    build: Path,
    out: Path,
    parameters: Mapping[str, Any],
    *,
    progress: Progress | None,
    kernel_name: str | None,
    execution_timeout: int | None,
    kernel: WarmKernel | None = None,
) -> Any:
    """Execute ``template`` into ``build/report.ipynb``; on a failing cell keep the
    partial notebook as ``<out>.failed.ipynb`` and say so in the error."""
    notebook_path = build / "report.ipynb"
    try:
        return execute_template(
            template,
            notebook_path,
            parameters,
            progress=progress,
            kernel_name=kernel_name,
            execution_timeout=execution_timeout,
            kernel=kernel,
        )
    except NotebookExecutionError as exc:
        debug = out.resolve().parent / f"{out.name}.failed.ipynb"
        if notebook_path.exists():
            shutil.copyfile(notebook_path, debug)
            raise NotebookExecutionError(
                f"{exc}\nthe partial notebook is kept in {debug}", debug_path=debug
            ) from None
        raise


def read_notebook_output(build: Path, name: str, writer: str) -> dict[str, Any]:
    """The JSON document the notebook's last cell wrote (``results.json``, ...)."""
    path = build / name
    if not path.is_file():
        raise ReportgenError(f"the notebook wrote no {name}: its last cell must call {writer}")
    return json.loads(path.read_text(encoding="utf-8"))


def export_formats(
    nb: Any,
    build: Path,
    *,
    formats: Sequence[str],
    title: str,
    release: str | None,
    theme: Any,
    meta: Sequence[tuple[str, str]],
    created: str,
    timings: dict[str, float],
    progress: Progress | None = None,
) -> int | None:
    """Export the executed notebook in ``build``: ``report.html`` (refused if it would
    reference the network or run a script) and ``report.pdf`` as ``formats`` asks, and
    drop ``report.ipynb`` unless asked; returns the PDF's page count."""
    from reportgen.report.export import external_references, notebook_to_html
    from reportgen.report.pdf import html_to_pdf

    say = progress or (lambda message: None)
    tick = time.perf_counter()
    say("exporting HTML")
    html = notebook_to_html(
        nb, title=title, release=release, theme=theme, meta=meta, created=created
    )
    bad = external_references(html)
    if bad:
        raise ReportgenError(
            "the report HTML would need the network or a script: " + ", ".join(bad[:5])
        )
    if "html" in formats:
        (build / "report.html").write_text(html, encoding="utf-8")
    timings["html"] = time.perf_counter() - tick
    pages = None
    if "pdf" in formats:
        tick = time.perf_counter()
        say("rendering the PDF")
        pages = html_to_pdf(html, build / "report.pdf", title=title, release=release)
        timings["pdf"] = time.perf_counter() - tick
        say(f"PDF: {pages} pages")
    if "ipynb" not in formats:
        (build / "report.ipynb").unlink()
    return pages


def built_files(build: Path) -> dict[str, Path]:
    """Every file written in the build folder, by its path relative to it."""
    from reportgen.report.folder.archive import BUILD_MARKER

    return {
        p.relative_to(build).as_posix(): p
        for p in sorted(build.rglob("*"))
        if p.is_file() and p.relative_to(build).as_posix() != BUILD_MARKER
    }


def write_manifest(
    build: Path,
    manifest: dict[str, Any],
    timings: Mapping[str, float],
    *,
    results: str | None = "results.json",
) -> tuple[str, ...]:
    """Write ``manifest.json`` (output paths relative to the report folder, the time of
    each stage, the digests of ``results`` and of the manifest itself: see
    :func:`reportgen.report.folder.archive.seal_manifest`) and return the names of every file
    of the report."""
    from reportgen.report.folder.archive import seal_manifest
    from reportgen.report.folder.output import write_json_atomic

    for name, entry in manifest["outputs"].items():
        entry["path"] = name  # relative to the report folder, not the build folder
    manifest["timings_seconds"] = {k: round(v, 3) for k, v in timings.items()}
    write_json_atomic(build / "manifest.json", seal_manifest(manifest, results=results))
    return tuple(sorted([*manifest["outputs"], "manifest.json"]))


@dataclass(frozen=True)
class FolderRecord:
    """What a report folder's manifest and header say, drawn from the document its
    notebook wrote (``results.json`` or ``history.json``): the header's ``meta`` lines,
    the time of ``created``, the manifest's input ``sources``, ``parameters`` and
    ``seed`` (None: a report without one)."""

    meta: Sequence[tuple[str, str]]
    created: str
    sources: Sequence[Mapping[str, Any]]
    parameters: Mapping[str, Any]
    seed: int | None


@dataclass(frozen=True)
class BuiltFolder:
    """What :func:`build_report_folder` wrote."""

    files: tuple[str, ...]
    document: dict[str, Any]
    pages: int | None


def build_report_folder(
    build: Path,
    out: Path,
    *,
    template: Path,
    parameters: Callable[[Path], Mapping[str, Any]],
    document: tuple[str, str],
    describe: Callable[[dict[str, Any]], FolderRecord],
    formats: Sequence[str],
    title: str,
    release: str | None,
    theme: Any,
    started: str,
    timings: dict[str, float],
    kernel_name: str | None = None,
    execution_timeout: int | None = None,
    kernel: WarmKernel | None = None,
    progress: Progress | None = None,
) -> BuiltFolder:
    """The report folder of ``reportgen run`` and ``reportgen history``, written into
    ``build`` (the folder :func:`reportgen.report.folder.archive.report_folder` made
    beside ``out`` and moves into place): execute ``template`` with
    ``parameters(build)``, read the JSON ``document`` the notebook wrote (its name and
    the call that writes it), export ``formats``, and write ``manifest.json`` from
    ``describe(document)``.

    Raises
    ------
    NotebookExecutionError
        A cell failed; the partial notebook is kept at ``<out>.failed.ipynb``.
    InputError
        A template's own cell met bad input.
    """
    from reportgen.report.folder.archive import build_manifest

    name, writer = document
    tick = time.perf_counter()
    nb = execute_into(
        template,
        build,
        out,
        parameters(build),
        progress=progress,
        kernel_name=kernel_name,
        execution_timeout=execution_timeout,
        kernel=kernel,
    )
    if kernel is not None:
        kernel.close()  # now, not after the export
    timings["notebook"] = time.perf_counter() - tick
    written = read_notebook_output(build, name, writer)
    record = describe(written)
    pages = export_formats(
        nb,
        build,
        formats=formats,
        title=title,
        release=release,
        theme=theme,
        meta=record.meta,
        created=record.created,
        timings=timings,
        progress=progress,
    )
    manifest = build_manifest(
        record.sources,
        parameters=json_safe(record.parameters),
        seed=record.seed or 0,
        started=started,
        outputs=built_files(build),
    )
    if record.seed is None:
        manifest.pop("seed", None)
    files = write_manifest(build, manifest, timings, results=name)
    return BuiltFolder(files, written, pages)


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
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    template = resolve_template(spec.template)
    if _template_kind(template) == "history":
        raise InputError(
            "the history template makes a trend report from archived reports",
            location=Location(str(template)),
            hint="use `reportgen history REPORT_DIR... --out DIR`",
        )
    # the kernel starts (and imports what the first cell needs) while this process
    # imports, checks the options and reads the data
    kernel = WarmKernel(spec.kernel_name)
    try:
        return _run_report(spec, template, kernel, started, progress)
    finally:
        kernel.close()


@dataclass(frozen=True)
class _Resolved:
    """A run's options, resolved once into typed values before any work: the analysis
    options as given with the seed drawn (``given``, for the notebook and the manifest),
    and the typed :class:`~reportgen.analysis.AnalysisOptions`, ``LoadOptions``,
    ``Execution`` and, for a release report, the :class:`ReleaseSpec`."""

    given: dict[str, Any]
    analysis: Any
    load: Any
    execution: Any
    release: ReleaseSpec | None


def _resolve(spec: RunSpec, *, release_report: bool) -> _Resolved:
    """:class:`_Resolved` of ``spec``; bad options fail here, before any work."""
    from reportgen.analysis import AnalysisOptions
    from reportgen.data import LoadOptions
    from reportgen.execution import Execution
    from reportgen.report.prepared import _tuples

    given = dict(spec.analysis_options)
    if given.get("seed") is None:
        import numpy as np

        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int)  # drawn from the OS: one int
        given["seed"] = entropy % (2**63)
    for flag, text in (("--title", spec.title), ("--release", spec.release)):
        if text is not None and any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text):
            raise InputError(
                f"{flag} contains a control character (e.g. a line break): {text!r}",
                location=Location(flag),
                hint="give it on one line, in printable characters",
            )
    analysis = AnalysisOptions(**_tuples(given))
    release = spec.release_spec() if release_report else None
    if release is not None:  # one family of the release's comparisons by default
        analysis = replace(
            analysis, baseline=None, correct_across=given.get("correct_across") or "all"
        )
    return _Resolved(
        given=given,
        analysis=analysis,
        load=LoadOptions(**dict(spec.load_options)),
        execution=Execution.from_mapping(spec.execution),
        release=release,
    )


def _notebook_parameters(
    spec: RunSpec,
    given: Mapping[str, Any],
    title: str,
    release: ReleaseSpec | None,
    handed: tuple[Path, str],
    build: Path,
) -> dict[str, Any]:
    """The report notebook's parameters. Paths as given (relative to the working
    directory, which the kernel shares): the notebook and the report name no private
    absolute path; the manifest keeps the resolved ones."""
    parameters = {
        "data": [str(d) for d in spec.data],
        "config": str(spec.config) if spec.config else "",
        "load_options": json_safe(spec.load_options),
        "analysis_options": json_safe(given),
        "title": title,
        "release": spec.release or "",
        "theme": spec.theme,
        "output_dir": parameter_path(build),
        "max_table_rows": spec.max_table_rows,
        "analysis_file": str(handed[0]),
        "analysis_sha256": handed[1],
    }
    if spec.execution:  # a template of one's own may predate this parameter
        parameters["execution"] = json_safe(spec.execution)
    if release is not None:
        parameters["baseline"] = release.baseline or ""
        parameters["candidate"] = release.candidate or ""
    return parameters


def _run_record(
    spec: RunSpec,
    given: Mapping[str, Any],
    template: Path,
    sources: Sequence[Mapping[str, Any]],
    results: dict[str, Any],
) -> FolderRecord:
    """The manifest's record of a run, from the results.json its notebook wrote."""
    from reportgen.report.folder.archive import validate_results

    validate_results(results)
    record = {k: v for k, v in asdict(spec).items() if k not in ("data", "out")}
    record["analysis_options"] = json_safe(given)
    record["template"] = str(template)
    if spec.config:  # absolute, so `reportgen history` can reload the data later
        record["config_resolved"] = str(Path(spec.config).resolve())
    return FolderRecord(
        meta=[
            ("seed", str(results["seed"])),
            ("reportgen", results["reportgen_version"]),
            ("data", _short_list([plaintext.shown_path(d) for d in spec.data])),
        ],
        created=results["created"],
        sources=sources,
        parameters=record,
        seed=int(results["seed"]),
    )


def _run_report(
    spec: RunSpec, template: Path, kernel: WarmKernel, started: str, progress: Progress | None
) -> RunResult:
    """:func:`run_report` once its kernel is starting."""
    from reportgen.charts.render import load_theme
    from reportgen.report.folder.archive import report_folder
    from reportgen.report.prepared import hand_over, load_and_analyse

    say = progress or (lambda message: None)
    timings: dict[str, float] = {}
    theme = load_theme(spec.theme)
    resolved = _resolve(spec, release_report=_is_release_template(template))
    out, replace_folder = output_folder(
        spec.out, force=spec.force, if_exists=spec.if_exists, progress=say
    )
    with (
        report_folder(
            out, force=replace_folder, discard_edits=spec.if_exists == "replace-edited"
        ) as build,  # before the data are read: an unwritable --out fails first
        tempfile.TemporaryDirectory(prefix="reportgen-") as private,
    ):
        prepared = load_and_analyse(
            spec.data,
            config=spec.config,
            load_options=resolved.load,
            options=resolved.analysis,
            execution=resolved.execution,
            release=resolved.release,
            progress=say,
        )
        timings.update(prepared.timings)
        handed = hand_over(prepared, Path(private))
        release = prepared.release
        title = spec.title or (release.title() if release is not None else "Evaluation report")
        built = build_report_folder(
            build,
            out,
            template=template,
            parameters=functools.partial(
                _notebook_parameters, spec, resolved.given, title, release, handed
            ),
            document=("results.json", "reportgen.report.sections.write_outputs(report)"),
            describe=functools.partial(
                _run_record, spec, resolved.given, template, prepared.table.sources
            ),
            formats=spec.formats,
            title=title,
            release=spec.release,
            theme=theme,
            started=started,
            timings=timings,
            kernel_name=spec.kernel_name,
            execution_timeout=spec.execution_timeout,
            kernel=kernel,
            progress=say,
        )
    results = built.document
    verdict = results.get("verdict")
    say(f"wrote {out}")
    return RunResult(
        out=out,
        files=built.files,
        seed=int(results["seed"]),
        pages=built.pages,
        verdict_counts=None if verdict is None else verdict.get("counts"),
        timings=timings,
        verdict=verdict,
        degenerate=tuple(results.get("degenerate") or ()),
    )


@dataclass(frozen=True)
class AnalysisFolder:
    """What :func:`analyze_into` wrote: the folder, its results.json document (with the
    references of the tables written beside it: :mod:`reportgen.report.folder.tables`) and
    the analysis behind it."""

    out: Path
    results: Mapping[str, Any]
    analysis: Any


def analyze_into(
    data: Sequence[str],
    out: str,
    *,
    options: Any,
    execution: Any = None,
    load_options: Mapping[str, Any] | None = None,
    config: str | None = None,
    force: bool = False,
    if_exists: str = "error",
    progress: Progress | None = None,
) -> AnalysisFolder:
    """``reportgen analyze --out``: load, analyse, and write ``results.json`` and
    ``manifest.json`` into a report folder, with the same guarantees as
    :func:`run_report` (built aside and moved into place, an existing folder replaced
    only with ``force`` and only when reportgen wrote all of it, one run at a time).

    Raises
    ------
    InputError
        Bad data or output folder; the output folder is checked before the data are
        read, and nothing is left behind on failure.
    """
    from reportgen.report.folder.archive import build_manifest, report_folder
    from reportgen.report.folder.tables import write_analysis
    from reportgen.report.prepared import load_and_analyse

    timings: dict[str, float] = {}
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    folder, replace = output_folder(out, force=force, if_exists=if_exists, progress=progress)
    with report_folder(folder, force=replace, discard_edits=if_exists == "replace-edited") as tmp:
        prepared = load_and_analyse(
            data, config=config, load_options=load_options, options=options, execution=execution
        )
        table, analysis = prepared.table, prepared.analysis
        timings.update(prepared.timings)
        tick = time.perf_counter()
        results = write_analysis(tmp, analysis)  # the long tables in tables/*.parquet
        timings["write"] = time.perf_counter() - tick
        record = {
            "data": [str(Path(d).resolve()) for d in data],
            "config": str(Path(config).resolve()) if config else None,
            "load_options": json_safe(dict(load_options or {})),
            "analysis_options": results.get("config"),
        }
        manifest = build_manifest(
            table.sources,
            parameters=json_safe(record),
            seed=int(analysis.seed),
            started=started,
            outputs=built_files(tmp),
        )
        write_manifest(tmp, manifest, timings)
    return AnalysisFolder(folder, results, analysis)

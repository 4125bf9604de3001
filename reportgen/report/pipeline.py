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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen import plaintext
from reportgen.config import REPORT_FORMATS, TITLES
from reportgen.config import default as declared_default
from reportgen.errors import InputError, Location, ReportgenError, is_file_system_error
from reportgen.jsonsafe import json_safe
from reportgen.report.runspec import (
    ReportOptions,
    RunSpec,
    resolve_run,
    resolve_template,
    template_kind,
)

if TYPE_CHECKING:
    from reportgen.analysis.ledger import Ledger
    from reportgen.analysis.release import ReleaseSpec

__all__ = [
    "FORMATS",
    "AnalysisFolder",
    "NotebookExecutionError",
    "ReportOptions",
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
    "resolve_run",
    "resolve_template",
    "run_report",
]

#: What ``reportgen run`` can write (declared in :mod:`reportgen.config`).
FORMATS = REPORT_FORMATS

Progress = Callable[[str], None]


class NotebookExecutionError(ReportgenError):
    """A cell of the report notebook failed; the partial notebook is kept for
    debugging at :attr:`debug_path`."""

    def __init__(self, message: str, *, debug_path: Path | None = None) -> None:
        super().__init__(message)
        self.debug_path = debug_path


@dataclass(frozen=True)
class RunResult:
    """What :func:`run_report` produced."""

    out: Path
    files: tuple[str, ...]
    seed: int
    pages: int | None
    timings: Mapping[str, float]
    #: the claims of the report's results.json, as the report states them
    ledger: Ledger | None = None


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

    def close(self, *, now: bool = False) -> None:
        """Shut the kernel down (gracefully, killed if it does not stop; ``now``: killed
        at once, for a kernel that ran nothing) and clean up."""
        if self._closed:
            return
        self._closed = True
        from jupyter_core.utils import run_sync

        try:
            if run_sync(self.km.is_alive)():
                run_sync(self.km.shutdown_kernel)(now=now)
        except RuntimeError:  # already gone
            pass
        finally:
            run_sync(self.km.cleanup_resources)()


def _cell_label(metadata: Mapping[str, Any]) -> str:
    """A code cell as the progress lines name it: its report section, the template's
    default parameters, or the parameters papermill injected for this run (two cells
    both "parameters" read as one cell run twice).

    >>> _cell_label({"tags": ["parameters"], "reportgen": {"section": "parameters"}})
    'default parameters'
    >>> _cell_label({"tags": ["injected-parameters"]}), _cell_label({})
    ('parameters of this run', 'setup')
    """
    if "injected-parameters" in (metadata.get("tags") or []):
        return "parameters of this run"
    section = str((metadata.get("reportgen") or {}).get("section") or "setup")
    return "default parameters" if section == "parameters" else section


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
                    section = _cell_label(cell.metadata)
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


def run_report(
    spec: RunSpec, *, progress: Progress | None = None, kernel: WarmKernel | None = None
) -> RunResult:
    """Make a full report folder: ``report.html``, ``report.pdf``, ``report.ipynb``
    (as chosen by ``spec.report.formats``), ``results.json``, ``tables/*.csv``,
    ``manifest.json``.

    ``spec`` is the run resolved once (:func:`~reportgen.report.runspec.resolve_run`,
    which finds the template and says whether it compares a release); ``kernel``, a
    :class:`WarmKernel` started before the options were resolved (``reportgen run``
    starts it first, so that its start overlaps the imports), is used and closed here;
    without one, a kernel is started now.

    >>> spec = resolve_run(["results/"], analysis={"seed": 1})  # doctest: +SKIP
    >>> run_report(spec).out                                     # doctest: +SKIP
    PosixPath('report')

    Raises
    ------
    InputError
        Bad data or output folder (before the notebook runs).
    NotebookExecutionError
        A cell failed; the partial notebook is copied to ``<out>.failed.ipynb``.
    ReportgenError
        The export failed (e.g. the HTML would reference the network).
    """
    try:
        started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        template = spec.template or resolve_template(spec.report.template)
        if template_kind(template) == "history":
            raise InputError(
                "the history template makes a trend report from archived reports",
                location=Location(str(template)),
                hint="use `reportgen history REPORT_DIR... --out DIR`",
            )
        # the kernel starts (and imports what the first cell needs) while this process
        # imports and reads the data
        kernel = kernel or WarmKernel(spec.kernel_name)
        return _run_report(spec, template, kernel, started, progress)
    finally:
        if kernel is not None:
            kernel.close()


def _notebook_parameters(
    spec: RunSpec,
    title: str,
    release: ReleaseSpec | None,
    handed: tuple[Path, str],
    build: Path,
) -> dict[str, Any]:
    """The report notebook's parameters: the run's options as resolved (a notebook run
    again by hand resolves them to the same values). Paths as given (relative to the
    working directory, which the kernel shares): the notebook and the report name no
    private absolute path; the manifest keeps the resolved ones."""
    from reportgen.execution import Execution

    parameters = {
        "data": [str(d) for d in spec.data],
        "config": str(spec.config_path) if spec.config_path else "",
        "load_options": json_safe(asdict(spec.load)),
        "analysis_options": json_safe(asdict(spec.analysis)),
        "title": title,
        "release": spec.report.release or "",
        "theme": spec.report.theme,
        "output_dir": parameter_path(build),
        "max_table_rows": spec.report.max_table_rows,
        "analysis_file": str(handed[0]),
        "analysis_sha256": handed[1],
    }
    if spec.execution != Execution():  # a template of one's own may predate this parameter
        parameters["execution"] = json_safe(spec.execution.to_dict())
    if release is not None:
        parameters["baseline"] = release.baseline or ""
        parameters["candidate"] = release.candidate or ""
    return parameters


def _run_record(
    spec: RunSpec,
    template: Path,
    release: ReleaseSpec | None,
    sources: Sequence[Mapping[str, Any]],
    results: dict[str, Any],
) -> FolderRecord:
    """The manifest's record of a run (its options as resolved), from the results.json
    its notebook wrote (read back through the ledger's typed reader)."""
    from reportgen.analysis.ledger import Ledger
    from reportgen.report.folder.archive import validate_results

    validate_results(results)
    meta = Ledger.from_results(results).meta
    seed = int(meta.seed or 0)
    report = spec.report
    record: dict[str, Any] = {
        "config": spec.config_path,
        "load_options": asdict(spec.load),
        "analysis_options": asdict(spec.analysis),
        "title": report.title,
        "release": report.release,
        "template": str(template),
        "theme": report.theme,
        "formats": report.formats,
        "force": report.force,
        "if_exists": report.if_exists,
        "baseline": release.baseline if release is not None else spec.analysis.baseline,
        "candidate": release.candidate if release is not None else report.candidate,
        "max_table_rows": report.max_table_rows,
        "kernel_name": spec.kernel_name,
        "execution_timeout": report.timeout,
        "execution": spec.execution.to_dict(),
        "gate": report.gate,
        "allow_partial": report.allow_partial,
    }
    if spec.config_path:  # absolute, so `reportgen history` can reload the data later
        record["config_resolved"] = str(Path(spec.config_path).resolve())
    return FolderRecord(
        meta=[
            ("seed", str(seed)),
            ("reportgen", meta.reportgen_version),
            ("data", _short_list([plaintext.shown_path(d) for d in spec.data])),
        ],
        created=meta.created,
        sources=sources,
        parameters=record,
        seed=seed,
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
    report = spec.report
    theme = load_theme(report.theme)
    out, replace_folder = output_folder(
        report.out, force=report.force, if_exists=report.if_exists, progress=say
    )
    with (
        report_folder(
            out, force=replace_folder, discard_edits=report.if_exists == "replace-edited"
        ) as build,  # before the data are read: an unwritable --out fails first
        tempfile.TemporaryDirectory(prefix="reportgen-") as private,
    ):
        prepared = load_and_analyse(spec, progress=say)
        timings.update(prepared.timings)
        handed = hand_over(prepared, Path(private))
        release = prepared.release
        title = report.title or (release.title() if release is not None else TITLES["evaluation"])
        built = build_report_folder(
            build,
            out,
            template=template,
            parameters=functools.partial(_notebook_parameters, spec, title, release, handed),
            document=("results.json", "reportgen.report.sections.write_outputs(report)"),
            describe=functools.partial(
                _run_record, spec, template, release, prepared.table.sources
            ),
            formats=report.formats,
            title=title,
            release=report.release,
            theme=theme,
            started=started,
            timings=timings,
            kernel_name=spec.kernel_name,
            execution_timeout=report.timeout,
            kernel=kernel,
            progress=say,
        )
    from reportgen.analysis.ledger import Ledger

    ledger = Ledger.from_results(built.document, source=str(out / "results.json"))
    say(f"wrote {out}")
    return RunResult(
        out=out,
        files=built.files,
        seed=int(ledger.meta.seed if ledger.meta.seed is not None else prepared.analysis.seed),
        pages=built.pages,
        timings=timings,
        ledger=ledger,
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
    spec: RunSpec,
    out: str,
    *,
    force: bool = declared_default("force", "report"),
    if_exists: str = declared_default("if_exists", "report"),
    progress: Progress | None = None,
) -> AnalysisFolder:
    """``reportgen analyze --out``: load and analyse as ``spec`` says
    (:func:`~reportgen.report.runspec.resolve_run`), and write ``results.json`` and
    ``manifest.json`` into a report folder, with the same guarantees as
    :func:`run_report` (built aside and moved into place, an existing folder replaced
    only with ``force`` and only when reportgen wrote all of it, one run at a time).

    Raises
    ------
    InputError
        Bad data or output folder; the output folder is checked before the data are
        read, and nothing is left behind on failure.
    """
    from reportgen.analysis.serialize import config_section
    from reportgen.report.folder.archive import build_manifest, report_folder
    from reportgen.report.folder.tables import write_analysis
    from reportgen.report.prepared import load_and_analyse

    timings: dict[str, float] = {}
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    folder, replace = output_folder(out, force=force, if_exists=if_exists, progress=progress)
    with report_folder(folder, force=replace, discard_edits=if_exists == "replace-edited") as tmp:
        prepared = load_and_analyse(spec)
        table, analysis = prepared.table, prepared.analysis
        timings.update(prepared.timings)
        tick = time.perf_counter()
        results = write_analysis(tmp, analysis)  # the long tables in tables/*.parquet
        timings["write"] = time.perf_counter() - tick
        record = {
            "data": [str(Path(d).resolve()) for d in spec.data],
            "config": str(Path(spec.config_path).resolve()) if spec.config_path else None,
            "load_options": json_safe(asdict(spec.load)),
            "analysis_options": config_section(analysis),
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

"""Where the independent units of an analysis run: in this process, in local worker
processes, or on a Dask cluster.

:func:`reportgen.analysis.analyze` splits its work into units (one per dataset × metric)
whose random generators are derived from the master seed and the unit's names only, so
the units can run in any order, anywhere, and give the same numbers.
:func:`map_units` runs a function over the units and returns the results in unit order;
:class:`Execution` says where:

========================  ====================================================================
``Execution()``           serial, in this process (the default; no process is started)
``Execution(jobs=4)``     four local worker processes (``concurrent.futures``, "spawn")
``Execution(jobs=0)``     one local worker process per available core
``Execution("dask")``     a Dask ``LocalCluster`` on this machine (``jobs`` workers, default
                          one per core)
``Execution("dask",       the Dask cluster whose scheduler listens at that address
scheduler="tcp://h:8786")``
========================  ====================================================================

Warnings raised in a worker are recorded there and raised again in the calling process
in unit order, with their original category, module, file and line, so the caller's
warning filters treat them as if the units had run in the calling process. A
:class:`~reportgen.errors.ReportgenError` raised in a unit is raised again in the caller
with its message, location and hint; when several units fail, the first one in unit
order wins.

Every unit runs with one BLAS thread (:func:`blas_threads`), in the caller and in the
workers: a BLAS gives different last bits with different thread counts, so this is
what makes a parallel run identical to a serial one. Local workers start with
``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ... set to 1, so ``jobs`` workers use
``jobs`` cores and never oversubscribe the machine (Dask's nanny does the same for its
workers).

Worker processes end with the process that started them, even when it is killed with
SIGKILL (a CI timeout, the OOM killer): each one watches its parent
(:func:`die_with_parent`) and exits when it is gone, so no worker (and, with them gone,
no multiprocessing resource tracker) is left running.

This module imports only the standard library and :mod:`reportgen.errors` at import
time (``dask.distributed`` and threadpoolctl are imported when used), so every layer may
use it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reportgen.config import defaults
from reportgen.errors import ConfigError, Location, ReportgenError
from reportgen.names import EXECUTORS, Executor
from reportgen.records import fields_record

__all__ = [
    "EXECUTORS",
    "Execution",
    "Executor",
    "blas_threads",
    "die_with_parent",
    "map_units",
    "parse_memory_size",
    "usable_cores",
]


#: Environment variables that bound the threads of the BLAS and OpenMP libraries numpy
#: and scipy may be linked with; read once, when the library loads in a new process.
_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)

_DASK_HINT = "pip install 'reportgen[dask]'  (or: pip install 'dask[distributed]')"

Progress = Callable[[int, int], None]
T = TypeVar("T")


#: The declared defaults (:mod:`reportgen.config`) of :class:`Execution`'s fields.
_DEFAULT = defaults("analysis")


@dataclass(frozen=True)
class Execution:
    """Where the units of an analysis run (module docstring). Execution settings change
    how long an analysis takes, never its results, so they are not analysis options and
    are not written to ``results.json``.

    Parameters
    ----------
    executor
        ``"local"``: this machine (serial for ``jobs=1``, else worker processes);
        ``"dask"``: a Dask distributed cluster (``pip install 'reportgen[dask]'``).
    jobs
        Local: the number of worker processes; 1 (default) runs the units one after the
        other in this process, 0 starts one process per available core. Dask without a
        ``scheduler``: the workers of the local cluster (0 or 1: one per core). Ignored
        when a ``scheduler`` is given (the cluster decides).
    scheduler
        Dask only: the address of a running scheduler (``"tcp://host:8786"``); None
        starts a ``LocalCluster`` on this machine for the analysis.

    Raises
    ------
    ConfigError
        A value of the wrong type or out of range, an unknown executor, or a scheduler
        without ``executor="dask"``.
    """

    executor: Executor = _DEFAULT["executor"]
    jobs: int = _DEFAULT["jobs"]
    scheduler: str | None = _DEFAULT["scheduler"]

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise ConfigError(
                f"executor={self.executor!r} is not valid",
                hint=f"use one of: {', '.join(EXECUTORS)}",
            )
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 0:
            raise ConfigError(
                f"jobs={self.jobs!r} is not valid",
                hint="a whole number of worker processes >= 1, or 0 for one per core",
            )
        if self.scheduler is not None:
            if not isinstance(self.scheduler, str) or not self.scheduler.strip():
                raise ConfigError(
                    f"scheduler={self.scheduler!r} is not valid",
                    hint="the address of a Dask scheduler, e.g. 'tcp://10.0.0.5:8786'",
                )
            if self.executor != "dask":
                raise ConfigError(
                    f"scheduler={self.scheduler!r} needs executor='dask'",
                    hint='add --executor dask (executor = "dask" in the '
                    "config), or drop the scheduler",
                )

    @classmethod
    def from_mapping(cls, values: Any) -> Execution:
        """An :class:`Execution` from a mapping such as the ``execution`` parameter of the
        report notebooks (``{"jobs": 2}``); unknown keys are errors."""
        if isinstance(values, Execution):
            return values
        values = dict(values or {})
        unknown = sorted(set(values) - {"executor", "jobs", "scheduler"})
        if unknown:
            raise ConfigError(
                f"unknown execution {'setting' if len(unknown) == 1 else 'settings'}: "
                f"{', '.join(unknown)}",
                hint="known: executor, jobs, scheduler",
            )
        return cls(**values)

    @property
    def serial(self) -> bool:
        """True when the units run one after the other in this process."""
        return self.executor == "local" and self.workers() == 1

    def workers(self) -> int:
        """The worker processes this setting asks for (local executor or local Dask
        cluster); ``jobs=0`` is resolved to :func:`usable_cores`."""
        if self.executor == "dask" and self.jobs <= 1:
            return usable_cores()
        return self.jobs or usable_cores()

    def to_dict(self) -> dict[str, Any]:
        """The settings as given (for a manifest or the methods section)."""
        return fields_record(self)


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the platform has
    one, else :func:`os.cpu_count`)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


# ------------------------------------------------------------------------ BLAS threads


@contextlib.contextmanager
def blas_threads(threads: int = 1) -> Iterator[None]:
    """Run the block with ``threads`` BLAS threads, then restore the previous counts
    (threadpoolctl: OpenBLAS, MKL, BLIS and Accelerate, on every platform).

    A BLAS splits a matrix product differently with different thread counts, so the
    last bits of the result depend on the count (and, through ties between bootstrap
    replicates and the observed value, a BCa limit can move in its fourth digit).
    :func:`reportgen.analysis.analyze` therefore runs with one BLAS thread in the
    calling process and in every worker: the numbers are the same serially, with
    ``jobs``, on Dask and on machines with different core counts. Parallelism comes from
    running units side by side (and one thread also avoids a BLAS's busy-waiting
    threads slowing everything down on a loaded machine).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=threads, user_api="blas"):
        yield


# ------------------------------------------------------------------------ memory sizes

_SIZE = re.compile(
    r"^\s*(?P<number>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>[a-z]*)\s*$", re.IGNORECASE | re.ASCII
)
_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
#: The smallest working memory the resampling routines accept.
MIN_MEMORY = 2**20


def parse_memory_size(
    value: Any,
    *,
    name: str = "max_memory",
    location: Location | None = None,
    minimum_hint: str = "resampling needs at least 1MiB of working memory; the default is 256MiB",
) -> int:
    """A memory size in bytes from a number of bytes or a string with a unit.

    Parameters
    ----------
    value
        Whole bytes (``268435456`` or ``"268435456"``) or a number with a unit, case
        insensitive: ``B``, decimal ``kB``, ``MB``, ``GB``, ``TB`` (powers of 1000) or
        binary ``KiB``, ``MiB``, ``GiB``, ``TiB`` (powers of 1024): ``"512MB"``,
        ``"1.5GiB"``, ``"2 GB"``. Fractions of a byte are dropped.
    name
        What the value is called in an error message (``--max-memory``,
        ``analysis.max_memory``).
    location
        Where the value was read (a config file), for the error.
    minimum_hint
        What to say when the value is below 1 MiB (what the size is for).

    Returns
    -------
    int
        Bytes, at least 1 MiB (:data:`MIN_MEMORY`).

    Raises
    ------
    ConfigError
        Not a size, or below 1 MiB.

    Examples
    --------
    >>> parse_memory_size("512MB"), parse_memory_size("1.5GiB"), parse_memory_size(2**21)
    (512000000, 1610612736, 2097152)
    """
    hint = (
        "a number of bytes, or a number with a unit: 512MB, 2GB, 1.5GiB (kB, MB, GB, "
        "TB are powers of 1000; KiB, MiB, GiB, TiB powers of 1024)"
    )
    if isinstance(value, bool):
        raise ConfigError(f"{name} = {value!r} is not a memory size", location=location, hint=hint)
    if isinstance(value, int):
        size = value
    else:
        match = _SIZE.match(value) if isinstance(value, str) else None
        unit = match.group("unit").lower() if match else None
        if match is None or unit not in _UNITS:
            raise ConfigError(
                f"{name} = {value!r} is not a memory size", location=location, hint=hint
            )
        number = match.group("number")
        if unit in ("", "b") and not number.isdigit():
            raise ConfigError(
                f"{name} = {value!r} is not a whole number of bytes", location=location, hint=hint
            )
        size = int(number) * _UNITS[unit] if number.isdigit() else int(float(number) * _UNITS[unit])
    if size < MIN_MEMORY:
        raise ConfigError(
            f"{name} = {value!r} is below the minimum of 1 MiB",
            location=location,
            hint=minimum_hint,
        )
    return size


# ----------------------------------------------------------------------------- mapping


def map_units(
    function: Callable[..., T],
    shared: Any,
    tasks: Sequence[tuple[Any, ...]],
    *,
    execution: Execution | None = None,
    progress: Progress | None = None,
) -> list[T]:
    """``[function(shared, *task) for task in tasks]``, run where ``execution`` says.

    Parameters
    ----------
    function
        A module-level (picklable) function of ``(shared, *task)``.
    shared
        The argument every unit needs (the score table): sent once to each worker, not
        once per unit.
    tasks
        The per-unit arguments, small and picklable.
    execution
        Where to run (default: serially in this process). With fewer than 2 tasks no
        worker is started, whatever the setting.
    progress
        Called as ``progress(done, total)`` each time a unit finishes.

    Returns
    -------
    list
        The results in task order, the same whatever the execution.

    Raises
    ------
    ConfigError
        ``executor="dask"`` without dask.distributed installed, or a scheduler that
        cannot be reached.
    ReportgenError
        Raised by a unit (the first failing one in task order).
    """
    execution = execution or Execution()
    total = len(tasks)
    if execution.serial or total < 2:
        results = []
        for done, task in enumerate(tasks, start=1):
            results.append(function(shared, *task))
            if progress is not None:
                progress(done, total)
        return results
    if execution.executor == "dask":
        outcomes = _map_dask(function, shared, tasks, execution, progress)
    else:
        outcomes = _map_processes(
            function, shared, tasks, min(execution.workers(), total), progress
        )
    return _unpack(outcomes)


@dataclass
class _Caught:
    """A warning recorded in a worker, to be raised again in the caller."""

    message: str
    category: type[Warning]
    filename: str
    lineno: int
    module: str | None

    def reemit(self) -> None:
        module = sys.modules.get(self.module or "")
        registry = None if module is None else module.__dict__.setdefault("__warningregistry__", {})
        warnings.warn_explicit(
            self.message,
            self.category,
            self.filename,
            self.lineno,
            module=self.module,
            registry=registry,
        )


@dataclass
class _Failure:
    """A :class:`ReportgenError` raised in a worker, rebuilt in the caller."""

    category: type[ReportgenError]
    args: tuple[Any, ...]
    fields: dict[str, Any] = field(default_factory=dict)

    def error(self) -> ReportgenError:
        if "message" in self.fields:  # InputError and its subclasses
            try:
                return self.category(
                    self.fields["message"],  # type: ignore[call-arg]
                    location=self.fields.get("location"),
                    hint=self.fields.get("hint"),
                )
            except TypeError:
                pass
        return self.category(*self.args)


@dataclass
class _Outcome:
    """What one unit returned in a worker: its result or its error, and its warnings."""

    result: Any = None
    failure: _Failure | None = None
    caught: list[_Caught] = field(default_factory=list)


def _unpack(outcomes: list[_Outcome]) -> list[Any]:
    """Re-emit the warnings in unit order up to the first failed unit, then raise its
    error, or return the results."""
    results = []
    for outcome in outcomes:
        for caught in outcome.caught:
            caught.reemit()
        if outcome.failure is not None:
            raise outcome.failure.error()
        results.append(outcome.result)
    return results


def _run_recorded(function: Callable[..., Any], shared: Any, task: tuple[Any, ...]) -> _Outcome:
    """Run one unit in a worker, recording its warnings and a ReportgenError."""
    outcome = _Outcome()
    with blas_threads(1), warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")  # the caller's filters decide on re-emission
        try:
            outcome.result = function(shared, *task)
        except ReportgenError as exc:
            fields = {
                k: getattr(exc, k) for k in ("message", "location", "hint") if hasattr(exc, k)
            }
            outcome.failure = _Failure(type(exc), exc.args, fields)
    outcome.caught = [
        _Caught(str(r.message), r.category, r.filename, r.lineno, _module_of(r.filename))
        for r in records
    ]
    return outcome


_MODULES: dict[str, str | None] = {}


def _module_of(filename: str) -> str | None:
    """The name of the loaded module defined in ``filename`` (what ``warnings.warn``
    matches a filter's module against)."""
    if filename not in _MODULES:
        _MODULES[filename] = next(
            (
                name
                for name, module in list(sys.modules.items())
                if getattr(module, "__file__", None) == filename
            ),
            None,
        )
    return _MODULES[filename]


# ------------------------------------------------------------------- local processes

#: How often a worker looks whether its parent is still alive, in seconds.
PARENT_POLL_SECONDS = 0.2


def die_with_parent(parent: int) -> None:
    """End this process (exit status 70) as soon as ``parent`` is no longer its parent.

    For the initializer of worker processes ("spawn"): ``parent`` is the PID of the
    process that started them (``os.getpid()`` there). A daemon thread compares
    ``os.getppid()`` with it every :data:`PARENT_POLL_SECONDS`; when the parent dies,
    however (SIGKILL included), the worker is re-parented and exits at once with
    ``os._exit``, without waiting for work it can no longer hand back. (``prctl``'s
    ``PR_SET_PDEATHSIG`` would fire when the *thread* that started the worker ends, which
    in a pool may be long before the parent process does.)
    """
    import threading
    import time

    if os.getppid() != parent:  # gone before this worker started
        os._exit(70)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(70)

    threading.Thread(target=watch, name="reportgen-parent-watch", daemon=True).start()


_SHARED: Any = None


def _init_worker(path: str, parent: int | None = None) -> None:
    """Load the shared argument once per worker process; end with the parent."""
    import pickle

    global _SHARED
    if parent is not None:
        die_with_parent(parent)
    with open(path, "rb") as handle:
        _SHARED = pickle.load(handle)


def _run_in_worker(function: Callable[..., Any], task: tuple[Any, ...]) -> _Outcome:
    return _run_recorded(function, _SHARED, task)


def _map_processes(
    function: Callable[..., Any],
    shared: Any,
    tasks: Sequence[tuple[Any, ...]],
    workers: int,
    progress: Progress | None,
) -> list[_Outcome]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    total = len(tasks)
    outcomes: list[_Outcome | None] = [None] * total
    # "spawn": a clean interpreter per worker (no fork of a process holding threads,
    # locks or an open kernel connection), which reads the thread limits set below:
    # one BLAS thread per worker, as in the caller (blas_threads), so jobs workers use
    # jobs cores and compute the same bits as a serial run.
    context = multiprocessing.get_context("spawn")
    with _shared_file(shared) as path, _thread_limits(1):
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(path, os.getpid()),
        )
        try:
            futures = {
                pool.submit(_run_in_worker, function, task): k for k, task in enumerate(tasks)
            }
            done_count = 0
            for future in as_completed(futures):
                if future.cancelled():
                    continue
                outcome = future.result()  # an unexpected error propagates here
                outcomes[futures[future]] = outcome
                done_count += 1
                if progress is not None:
                    progress(done_count, total)
                if outcome.failure is not None:
                    for other in futures:  # the units not started yet; running ones end
                        other.cancel()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    return _ran(outcomes)


@contextlib.contextmanager
def _shared_file(shared: Any) -> Iterator[str]:
    """``shared`` pickled once into a private temporary file, removed afterwards.

    Workers read it when they start. Passing the object itself to each new process
    would pickle it once per worker and, for a large object, block the caller when a
    worker dies before reading it (CPython writes it into the child's pipe at start)."""
    import pickle
    import tempfile

    handle, path = tempfile.mkstemp(prefix="reportgen-units-", suffix=".pickle")
    try:
        with os.fdopen(handle, "wb") as out:
            pickle.dump(shared, out, protocol=pickle.HIGHEST_PROTOCOL)
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)


def _ran(outcomes: list[_Outcome | None]) -> list[_Outcome]:
    """The outcomes up to the first failure in unit order (a unit cancelled after a
    failure elsewhere has no outcome, and none is needed past the first failure)."""
    kept: list[_Outcome] = []
    for outcome in outcomes:
        if outcome is None:
            failed = [o for o in outcomes if o is not None and o.failure is not None]
            kept.append(failed[0])  # cancelled only because this one failed
            break
        kept.append(outcome)
        if outcome.failure is not None:
            break
    return kept


@contextlib.contextmanager
def _thread_limits(threads: int) -> Iterator[None]:
    """Set the BLAS/OpenMP thread variables inherited by the processes started inside,
    and restore them afterwards: a new process then starts its BLAS with that many
    threads instead of one per core."""
    saved = {name: os.environ.get(name) for name in _THREAD_VARIABLES}
    try:
        for name in saved:
            os.environ[name] = str(threads)
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


# ------------------------------------------------------------------------------- dask


def _dask_client(execution: Execution) -> tuple[Any, Any]:
    """A ``distributed.Client`` and the ``LocalCluster`` started for it (or None)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError(
            "executor='dask' needs dask.distributed, which is not installed", hint=_DASK_HINT
        ) from None
    if execution.scheduler is not None:
        try:
            return Client(execution.scheduler, timeout="10s"), None
        except (OSError, TimeoutError, ValueError) as exc:
            raise ConfigError(
                f"cannot reach the Dask scheduler at {execution.scheduler!r}: {exc}",
                hint="start one (dask scheduler; dask worker ADDRESS) or "
                "check the address, e.g. tcp://host:8786",
            ) from None
    cluster = LocalCluster(
        n_workers=execution.workers(), threads_per_worker=1, processes=True, dashboard_address=None
    )
    return Client(cluster), cluster


def _map_dask(
    function: Callable[..., Any],
    shared: Any,
    tasks: Sequence[tuple[Any, ...]],
    execution: Execution,
    progress: Progress | None,
) -> list[_Outcome]:
    client, cluster = _dask_client(execution)
    total = len(tasks)
    outcomes: list[_Outcome | None] = [None] * total
    try:
        from distributed import as_completed

        shared_future = client.scatter(shared, broadcast=True)
        futures = [
            client.submit(_run_recorded, function, shared_future, task, pure=False)
            for task in tasks
        ]
        index = {future.key: k for k, future in enumerate(futures)}
        for done_count, future in enumerate(as_completed(futures), start=1):
            outcome = future.result()
            outcomes[index[future.key]] = outcome
            if progress is not None:
                progress(done_count, total)
            if outcome.failure is not None:
                client.cancel([f for f in futures if not f.done()])
                break
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return _ran(outcomes)

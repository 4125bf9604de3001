"""The one run path: load the data and analyse them once, in the process that runs the
command, and hand the result to the report notebook.

``reportgen run`` used to read the data in its own process (to check them before the
notebook started) and again in the notebook's kernel, which then ran the analysis. Now
:func:`load_and_analyse` runs once, in the command's process, while the kernel starts:
bad data or options fail there with exit code 2 before any notebook work, the
analysis overlaps the kernel's start, and the notebook takes the finished analysis
over (:func:`hand_over`, :func:`take_over`) instead of computing it again. The
analysis is handed over rather than recomputed in the kernel because the command
needs its results anyway (names of the release's systems for the title, the
manifest's inputs, the console's notes), and because an error in the command's
process is reported as the user's error, not as a failed notebook cell.

``reportgen analyze`` and :func:`reportgen.report.sections.prepare` (a notebook run
by hand) call the same :func:`load_and_analyse`, with the same typed options: a
:class:`~reportgen.report.runspec.RunSpec` made by
:func:`~reportgen.report.runspec.resolve_run`, where every option is resolved once.
"""

from __future__ import annotations

import hashlib
import pickle
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reportgen.plaintext import count, did_you_mean

if TYPE_CHECKING:
    from reportgen.analysis import Analysis
    from reportgen.analysis.release import ReleaseSpec
    from reportgen.data import ScoreTable
    from reportgen.report.runspec import RunSpec

#: Name of the handed-over analysis inside the run's private temporary folder.
HANDOVER_NAME = "analysis.pickle"


@dataclass(frozen=True)
class Prepared:
    """The data and their analysis, as every section and output reads them.

    ``warnings`` are the distinct messages the loading and the analysis raised (shown
    in the report's data section); ``release`` is the release comparison with both
    systems named (None for an evaluation report).
    """

    table: ScoreTable
    analysis: Analysis
    warnings: tuple[str, ...] = ()
    release: ReleaseSpec | None = None
    #: Seconds spent loading (``load``) and analysing (``analysis``).
    timings: Mapping[str, float] = field(default_factory=dict)


def load_and_analyse(
    spec: RunSpec,
    *,
    progress: Callable[[str], None] | None = None,
    check: Callable[[ScoreTable], None] | None = None,
    reraise: bool = True,
) -> Prepared:
    """Load ``spec.data`` and analyse them as ``spec`` says (the run resolved once,
    :func:`~reportgen.report.runspec.resolve_run`):
    :func:`reportgen.analysis.analyze`, or :func:`reportgen.analysis.analyze_release`
    when ``spec.release`` is set (its systems resolved against the data, its family the
    release's comparisons).

    Warnings raised on the way are recorded (for the report) and, with ``reraise``,
    raised again (for the console), each once. ``check`` runs on the loaded table
    before the analysis (the caller's own checks of options against the data).

    Raises
    ------
    InputError
        Bad data or release systems.
    """
    from reportgen.analysis import analyze, analyze_release
    from reportgen.data import load

    say = progress or (lambda message: None)
    data, release, options = spec.data, spec.release, spec.analysis
    caught: list[warnings.WarningMessage] = []
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        say(f"loading {', '.join(str(d) for d in data)}")
        tick = time.perf_counter()
        table = load(list(data), options=spec.load, config=spec.config)
        timings = {"load": time.perf_counter() - tick}
        tick = time.perf_counter()
        say(
            f"loaded {count(len(table.systems), 'system')}, "
            f"{count(len(table.datasets), 'dataset')}, {count(len(table.metrics), 'metric')}"
        )
        if check is not None:
            check(table)
        if release is not None:
            release = release.resolve(table.systems)
            analysis = analyze_release(
                table,
                options,
                baseline=str(release.baseline),
                candidate=str(release.candidate),
                release=release.release,
                execution=spec.execution,
            )
        else:
            analysis = analyze(table, options, execution=spec.execution)
        timings["analysis"] = time.perf_counter() - tick
    messages: list[str] = []
    for record in records:
        if issubclass(
            record.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning)
        ):
            continue
        text = str(record.message)
        if text not in messages:
            messages.append(text)
            caught.append(record)
    for record in caught if reraise else ():  # the console shows them as before
        warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
    return Prepared(
        table=table,
        analysis=analysis,
        warnings=tuple(messages),
        release=release,
        timings=timings,
    )


def hand_over(prepared: Prepared, folder: Path) -> tuple[Path, str]:
    """Write ``prepared`` into ``folder`` (the run's private temporary folder) for the
    notebook's kernel; returns the file and its SHA-256, which :func:`take_over`
    checks, so a file put there by anyone else is never read."""
    path = Path(folder) / HANDOVER_NAME
    payload = pickle.dumps(prepared, protocol=pickle.HIGHEST_PROTOCOL)
    path.write_bytes(payload)
    return path, hashlib.sha256(payload).hexdigest()


def take_over(path: str | Path, sha256: str) -> Prepared | None:
    """The analysis :func:`hand_over` wrote, or None when the file is gone (a report
    notebook run again by hand after its run: it then loads and analyses the data
    itself) or is not the one handed over (its SHA-256 differs)."""
    try:
        payload = Path(path).read_bytes()
    except OSError:
        return None
    if not sha256 or hashlib.sha256(payload).hexdigest() != sha256:
        return None
    prepared = pickle.loads(payload)  # noqa: S301 - our own file, checked by its digest
    return prepared if isinstance(prepared, Prepared) else None


def compare_two(a: str, b: str, spec: RunSpec) -> Analysis:
    """``reportgen compare``: the analysis of two systems on every dataset × metric they
    share, ``a`` − ``b``, with the options of ``spec``
    (:func:`~reportgen.report.runspec.resolve_run`). Either ``a`` and ``b`` are two
    result files holding one system each (``spec.data`` empty), or two system names of
    ``spec.data``.

    Raises
    ------
    InputError
        Files that do not hold one system each, a name that is not a system, or two
        systems that share no dataset × metric.
    """
    from dataclasses import replace

    from reportgen.analysis import analyze
    from reportgen.data import load
    from reportgen.errors import InputError

    if not spec.data:
        if not (Path(a).exists() and Path(b).exists()):
            raise InputError(
                "give two result files, or two system names followed by the data",
                hint="reportgen compare results_a.jsonl results_b.jsonl"
                "  or  reportgen compare SYS_A SYS_B DATA...",
            )
        table = load([a, b], options=spec.load, config=spec.config)
        if len(table.systems) != 2:
            raise InputError(
                f"the two files hold {len(table.systems)} systems "
                f"({', '.join(table.systems)}), not 2",
                hint="name the two systems: reportgen compare SYS_A SYS_B DATA...",
            )
        a, b = table.systems
    else:
        table = load(list(spec.data), options=spec.load, config=spec.config)
        for name in (a, b):
            if name not in table.systems:
                raise InputError(f"unknown system {name!r}", hint=did_you_mean(name, table.systems))
    options = replace(spec.analysis, order="first-vs-rest", baseline=a, systems=(a, b))
    analysis = analyze(table, options, execution=spec.execution)
    if not analysis.compared:
        raise InputError(f"{a} and {b} share no dataset × metric to compare")
    return analysis

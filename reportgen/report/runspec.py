"""One run specification: every option of a run resolved once, into typed values.

:func:`resolve_run` is where an option's value is decided, for every command that reads
data (``reportgen run``, ``analyze``, ``compare``; ``inspect`` through
:func:`resolve_inputs`) and for a report notebook run by hand
(:func:`reportgen.report.sections.prepare`). It reads the config file once, takes each
option from what was given (a flag, a keyword, a notebook parameter), else from the config
file's ``[input]``, ``[analysis]`` or ``[report]``, else from its declaration in
:mod:`reportgen.config`, checks it, and returns a :class:`RunSpec` of typed values:
:class:`~reportgen.data.LoadOptions`, :class:`~reportgen.analysis.AnalysisOptions` (the
seed drawn when none was given), :class:`~reportgen.execution.Execution`, the
:class:`ReportOptions` and, for a release report, the
:class:`~reportgen.analysis.release.ReleaseSpec`. What follows (loading, the analysis,
the notebook, the manifest) takes these objects and never looks at a flag, a config
section or a default again.

>>> ReportOptions().formats, ReportOptions().max_table_rows
(('html', 'pdf', 'ipynb'), 40)
>>> parse_formats("html, PDF")
('html', 'pdf')
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen import config as declared
from reportgen.config import REPORT_FORMATS, defaults
from reportgen.errors import ConfigError, InputError, Location
from reportgen.names import GATES, Gate, IfExists

if TYPE_CHECKING:
    from reportgen.analysis import AnalysisOptions
    from reportgen.analysis.release import ReleaseSpec
    from reportgen.data import LoadOptions, TableConfig
    from reportgen.execution import Execution

__all__ = [
    "ReportOptions",
    "RunSpec",
    "parse_formats",
    "read_config",
    "resolve_inputs",
    "resolve_run",
    "resolve_template",
    "template_kind",
]

#: The declared defaults (:mod:`reportgen.config`) of :class:`ReportOptions`' fields.
_DEFAULT = defaults("report")

#: The ``[analysis]`` keys that say where the work runs (:class:`Execution`).
_EXECUTION_KEYS = tuple(o.key for o in declared.options("analysis") if o.execution)


@dataclass(frozen=True)
class ReportOptions:
    """What ``reportgen run`` writes: the ``[report]`` options of :mod:`reportgen.config`
    (same names, same defaults), checked.

    Attributes
    ----------
    out, force, if_exists
        The report folder, and what happens when it exists.
    template, theme
        The notebook template (a bundled name or an ``.ipynb``) and the theme.
    title, release
        The title (None: named after the release, or
        ``reportgen.config.TITLES["evaluation"]``) and the release label.
    candidate
        A release report's candidate system (None: the release label if it names a
        system, else the only system other than the baseline).
    formats
        What is written, from :data:`reportgen.config.REPORT_FORMATS`.
    max_table_rows
        Longest pairwise table shown per dataset × metric.
    gate, allow_partial
        A release report's gate (the exit status; ``--fail-on-regression`` is
        ``gate="regression"``) and whether it passes when some unit was not compared.
    timeout
        Seconds a notebook cell may run (None: no limit).

    Raises
    ------
    InputError
        An unknown format or gate, fewer than one table row, or a title or release label
        holding a control character (a line break would forge a header of the e-mail).
    """

    out: str = _DEFAULT["out"]
    force: bool = _DEFAULT["force"]
    if_exists: IfExists = _DEFAULT["if_exists"]
    template: str = _DEFAULT["template"]
    theme: str = _DEFAULT["theme"]
    title: str | None = _DEFAULT["title"]
    release: str | None = _DEFAULT["release"]
    candidate: str | None = _DEFAULT["candidate"]
    formats: tuple[str, ...] = _DEFAULT["formats"]
    max_table_rows: int = _DEFAULT["max_table_rows"]
    gate: Gate | None = _DEFAULT["gate"]
    allow_partial: bool = _DEFAULT["allow_partial"]
    timeout: int | None = _DEFAULT["timeout"]

    def __post_init__(self) -> None:
        object.__setattr__(self, "formats", tuple(self.formats))
        unknown = [f for f in self.formats if f not in REPORT_FORMATS]
        if unknown or not self.formats:
            raise InputError(
                f"unknown report {'format' if len(unknown) == 1 else 'formats'}: "
                f"{', '.join(unknown) or '(none)'}",
                hint=f"use a comma-separated list of: {', '.join(REPORT_FORMATS)}",
            )
        if self.max_table_rows < 1:
            raise InputError(f"max_table_rows = {self.max_table_rows} must be at least 1")
        if self.gate is not None and self.gate not in GATES:
            raise InputError(f"unknown gate {self.gate!r}", hint=f"use one of: {', '.join(GATES)}")
        for flag, text in (("--title", self.title), ("--release", self.release)):
            if text is not None and any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text):
                raise InputError(
                    f"{flag} contains a control character (e.g. a line break): {text!r}",
                    location=Location(flag),
                    hint="give it on one line, in printable characters",
                )


@dataclass(frozen=True)
class RunSpec:
    """Everything one run needs, resolved once (:func:`resolve_run`) into typed values.

    Attributes
    ----------
    data
        The result files or folders.
    config
        The config file, read once (:class:`~reportgen.data.TableConfig`; its ``source``
        is the file's path, None without one): the metric, dataset and system properties
        the loader applies.
    load, analysis, execution
        How the data are read, what is computed (the seed drawn when none was given; a
        release report's family and baseline set) and where it runs.
    report
        What ``reportgen run`` writes.
    release
        The release comparison asked for (a release template), its systems named or
        not yet (:meth:`~reportgen.analysis.release.ReleaseSpec.resolve` names them
        against the data); None for an evaluation report.
    template
        The notebook template found for ``report.template`` (None: not looked up, a
        command without a notebook).
    kernel_name
        The Jupyter kernel that runs the notebook (None: the template's own).
    """

    data: tuple[str, ...]
    config: TableConfig
    load: LoadOptions
    analysis: AnalysisOptions
    execution: Execution
    report: ReportOptions
    release: ReleaseSpec | None = None
    template: Path | None = None
    kernel_name: str | None = None

    @property
    def config_path(self) -> str | None:
        """The config file's path as given, or None."""
        return self.config.source


def read_config(config: str | Path | TableConfig | None) -> TableConfig:
    """The config file read and checked (:func:`reportgen.data.load_config`), a
    :class:`~reportgen.data.TableConfig` as given, or an empty one for None: the one
    place a run reads its config file."""
    from reportgen.data import TableConfig, load_config

    if isinstance(config, TableConfig):
        return config
    return load_config(config) if config else TableConfig()


def resolve_inputs(
    data: Sequence[str | Path] | None = None,
    *,
    config: str | Path | TableConfig | None = None,
    load: LoadOptions | Mapping[str, Any] | None = None,
    require_data: bool = True,
) -> tuple[tuple[str, ...], TableConfig, LoadOptions]:
    """The data paths, the config and the :class:`~reportgen.data.LoadOptions` of a
    command that reads data (``reportgen inspect`` needs no more); :func:`resolve_run`
    starts here.

    ``data`` None takes the config's ``[input] data``; ``require_data`` makes no data an
    error. ``load`` holds the ``[input]`` options given (None: not given), or typed
    options taken as they are.

    Raises
    ------
    ConfigError
        The config file is missing or wrong.
    InputError
        No data, or a bad data option.
    """
    from reportgen.data import LoadOptions, parse_input_size

    table_config = read_config(config)
    given_paths = data if data is not None else table_config.input.get("data", ())
    paths = tuple(str(d) for d in given_paths)
    if require_data and not paths:
        raise InputError(
            "no data given",
            hint="name result files or folders on the command "
            "line, or list them as [input] data = [...] in "
            "the --config file",
        )
    if isinstance(load, LoadOptions):
        return paths, table_config, load
    configured = {k: v for k, v in table_config.input.items() if k != "data"}
    values = _merged(load, configured, _field_names(LoadOptions), "input")
    metric = values.get("metric")
    way = _METRIC_WAY.fullmatch(str(metric)) if metric is not None else None
    if way:  # --metric NAME:lower is --direction NAME=lower (the metric is not renamed)
        values.pop("metric")
        values["direction"] = (*values.get("direction", ()), f"{way[1]}={way[2]}")
    if isinstance(values.get("max_input_bytes"), str):  # a flag's text: "512MB"
        values["max_input_bytes"] = parse_input_size(values["max_input_bytes"])
    return paths, table_config, LoadOptions(**values)


def resolve_run(
    data: Sequence[str | Path] | None = None,
    *,
    config: str | Path | TableConfig | None = None,
    load: LoadOptions | Mapping[str, Any] | None = None,
    analysis: AnalysisOptions | Mapping[str, Any] | None = None,
    execution: Execution | Mapping[str, Any] | None = None,
    report: Mapping[str, Any] | None = None,
    release_report: bool | None = None,
    require_data: bool = True,
    kernel_name: str | None = None,
) -> RunSpec:
    """Resolve every option of a run once: the :class:`RunSpec`.

    Each option is the value given here (None: not given; ``0`` and ``False`` are
    given), else the config file's, else its declared default (:mod:`reportgen.config`).

    Parameters
    ----------
    data
        Result files or folders; None: the config's ``[input] data``.
    config
        The config file (read here, once), a :class:`~reportgen.data.TableConfig`, or
        None.
    load, analysis, execution, report
        The options given, by key: ``[input]`` keys (:class:`~reportgen.data.LoadOptions`
        fields), ``[analysis]`` keys (:class:`~reportgen.analysis.AnalysisOptions`
        fields and ``margins``; ``jobs``, ``executor`` and ``scheduler`` go to the
        execution, as in the config file), the execution's keys, and ``[report]`` keys
        (:class:`ReportOptions` fields and ``fail_on_regression``). Text is read as the
        flags read it (``max_memory="512MB"``, ``jobs="auto"``, ``formats="html,pdf"``).
        Typed options are taken as they are (the config's section does not apply).
    release_report
        Whether the run compares a release (a :class:`ReleaseSpec` is made, the
        baseline moves there from the analysis options and the family is every
        comparison of the release unless ``correct_across`` was given); None: as the
        template says (its ``reportgen.release`` metadata), found now.
    require_data
        No data is an error (``reportgen compare`` of two files gives none).
    kernel_name
        The notebook's Jupyter kernel (None: the template's).

    Raises
    ------
    ConfigError
        The config file or an execution setting is wrong.
    InputError
        No data, or a bad option; nothing has been read or started yet.

    Examples
    --------
    >>> spec = resolve_run(["results/"], analysis={"seed": 1}, release_report=False)
    >>> spec.analysis.seed, spec.analysis.correction, spec.report.theme
    (1, 'holm-sidak', 'default')
    """
    paths, table_config, load_options = resolve_inputs(
        data, config=config, load=load, require_data=require_data
    )
    given = dict(analysis) if isinstance(analysis, Mapping) else {}
    # jobs, executor and scheduler are [analysis] keys (and flags) of the execution
    moved = {k: given.pop(k) for k in _EXECUTION_KEYS if k in given}
    if isinstance(execution, Mapping) or execution is None:
        execution = {**moved, **dict(execution or {})}
    execution_options = _execution(execution, table_config)
    report_options = _report(report, table_config)
    template = None
    if release_report is None:
        template = resolve_template(report_options.template)
        release_report = template_kind(template) == "release"
    # the statistics' options last: checking them imports numpy and scipy, which a
    # mistyped flag above need not wait for
    from reportgen.analysis import AnalysisOptions
    from reportgen.analysis.release import ReleaseSpec

    if isinstance(analysis, AnalysisOptions):
        analysis_options = analysis
        family_given = True
    else:
        values = _merged(given, table_config.analysis, _field_names(AnalysisOptions), "analysis")
        family_given = "correct_across" in values
        if isinstance(values.get("max_memory"), str):  # a flag's text: "512MB"
            from reportgen.execution import parse_memory_size

            values["max_memory"] = parse_memory_size(
                values["max_memory"], name=declared.option("max_memory").flag or "max_memory"
            )
        analysis_options = AnalysisOptions(**values)
    if analysis_options.seed is None:
        analysis_options = replace(analysis_options, seed=_drawn_seed())
    release = None
    if release_report:
        release = ReleaseSpec(
            baseline=analysis_options.baseline,
            candidate=report_options.candidate,
            release=report_options.release,
            gate=report_options.gate,
            allow_partial=report_options.allow_partial,
        )
        # the release's comparisons are one family, unless the family was given
        analysis_options = replace(
            analysis_options,
            baseline=None,
            correct_across=analysis_options.correct_across if family_given else "all",
        )
    return RunSpec(
        data=paths,
        config=table_config,
        load=load_options,
        analysis=analysis_options,
        execution=execution_options,
        report=report_options,
        release=release,
        template=template,
        kernel_name=kernel_name,
    )


def parse_formats(text: str, *, flag: str = "--format") -> tuple[str, ...]:
    """A comma-separated list of report formats (``--format html,pdf``).

    Raises
    ------
    InputError
        An unknown format, or none.
    """
    formats = tuple(f.strip().lower() for f in text.split(",") if f.strip())
    unknown = [f for f in formats if f not in REPORT_FORMATS]
    if unknown or not formats:
        raise InputError(
            f"{flag} {text!r}: unknown report "
            f"{'format' if len(unknown) == 1 else 'formats'} {', '.join(unknown) or '(none)'}",
            hint=f"a comma-separated list of: {', '.join(REPORT_FORMATS)}",
        )
    return formats


# ---------------------------------------------------------------------------- templates


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
    notebook = load_json(data, source=path, hint=hint, what="the notebook template")
    version = notebook.get("nbformat") if isinstance(notebook, dict) else None
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
    metadata = notebook.get("metadata") or {}
    if not (metadata.get("language_info") or {}).get("name") and not (
        metadata.get("kernelspec") or {}
    ).get("language"):
        raise InputError(
            "the notebook template names no language (metadata.language_info.name)",
            location=Location(str(path)),
            hint="open and save it with Jupyter, which records its Python kernel",
        )
    try:
        nbformat.validate(nbformat.from_dict(notebook))
    except Exception as exc:  # noqa: BLE001 - nbformat's ValidationError and friends
        detail = " ".join(str(exc).split())[:200]
        raise InputError(
            f"the notebook template is not a valid notebook ({detail})",
            location=Location(str(path)),
            hint=hint,
        ) from None


def template_kind(path: Path) -> str:
    """What the notebook template at ``path`` makes, as its ``reportgen`` metadata says:
    ``evaluation``, ``release`` (a release comparison) or ``history``. The notebook is
    read as the JSON it is (nbformat, and the jsonschema it brings, only when the
    notebook runs: a gate decides before that)."""
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            f"the notebook template cannot be read ({exc})",
            location=Location(str(path)),
            hint="give a notebook (.ipynb) saved by Jupyter",
        ) from None
    meta = notebook.get("metadata", {}).get("reportgen", {}) if isinstance(notebook, dict) else {}
    if not isinstance(meta, dict):
        meta = {}
    return "history" if meta.get("history") else "release" if meta.get("release") else "evaluation"


# ------------------------------------------------------------------------------ helpers

#: ``--metric NAME:lower``: which way metric NAME is better (``--direction NAME=lower``).
_METRIC_WAY = re.compile(r"(.+):(lower|higher)")


def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _merged(
    given: Mapping[str, Any] | None,
    configured: Mapping[str, Any],
    known: Sequence[str],
    what: str,
) -> dict[str, Any]:
    """The values of ``known`` keys: given (not None), else configured; keys with
    neither are left out (the class's declared default applies). Lists (a repeated flag,
    a notebook parameter) become tuples."""
    given = dict(given or {})
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InputError(
            f"unknown {what} {'option' if len(unknown) == 1 else 'options'}: {', '.join(unknown)}",
            hint=f"known: {', '.join(sorted(known))}",
        )
    values = {}
    for key in known:
        value = given.get(key)
        if isinstance(value, list):
            value = tuple(value)
        value = declared.resolve(value, configured.get(key))
        if value is not None:
            values[key] = value
    return values


def _execution(given: Any, table_config: TableConfig) -> Execution:
    """The :class:`Execution`: given, else the config's ``[analysis]`` jobs, executor
    and scheduler, else serial; ``jobs`` may be text (``"auto"``, ``"4"``)."""
    from reportgen.execution import Execution

    if isinstance(given, Execution):
        return given
    settings = _merged(given, table_config.execution, _EXECUTION_KEYS, "execution")
    jobs = settings.get("jobs")
    if isinstance(jobs, str):
        text = jobs.strip().lower()
        if text == "auto":
            settings["jobs"] = 0
        elif text.isascii() and text.isdigit():
            settings["jobs"] = int(text)
        else:
            raise ConfigError(
                f"--jobs {jobs!r} is not valid",
                hint="a whole number of worker processes >= 1, or 0 or auto for one per core",
            )
    if settings.get("scheduler") is not None and settings.get("executor") != "dask":
        raise ConfigError(
            f"--scheduler {settings['scheduler']!r} needs --executor dask",
            hint='add --executor dask (or executor = "dask" in the '
            "config's [analysis]), or drop the scheduler",
        )
    return Execution(**settings)


def _report(given: Mapping[str, Any] | None, table_config: TableConfig) -> ReportOptions:
    """The :class:`ReportOptions`: given, else the config's ``[report]``, else the
    declared defaults; ``--gate`` and ``--fail-on-regression`` made one gate."""
    given = dict(given or {})
    configured = table_config.report
    known = (*_field_names(ReportOptions), "fail_on_regression")
    values = _merged(given, configured, known, "report")
    if isinstance(values.get("formats"), str):  # a flag's text: "html,pdf"
        values["formats"] = parse_formats(values["formats"])
    values.pop("fail_on_regression", None)
    values["gate"] = _gate(given, configured)
    return ReportOptions(**values)


def _gate(given: Mapping[str, Any], configured: Mapping[str, Any]) -> str | None:
    """The release gate: ``gate`` given, else ``fail_on_regression`` given (=
    ``regression``), else the config's ``gate``, else its ``fail_on_regression``, else
    None."""
    gate, fail = given.get("gate"), given.get("fail_on_regression")
    if gate is not None:
        if fail and gate != "regression":
            raise InputError(
                f"--fail-on-regression and --gate {gate} disagree",
                hint="give one of them (--fail-on-regression is --gate regression)",
            )
        return str(gate)
    if fail:
        return "regression"
    if configured.get("gate"):
        return str(configured["gate"])
    return "regression" if configured.get("fail_on_regression", False) else None


def _drawn_seed() -> int:
    """A master seed drawn from the operating system's entropy (recorded in every
    output, so the run can be repeated)."""
    import numpy as np

    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)  # drawn from the OS: one int
    return entropy % (2**63)

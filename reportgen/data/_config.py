"""The run configuration: one TOML file holds everything the command-line flags hold.

The file format (``--config FILE``); every section and key is optional::

    [input]                        # what to read, and how (the data options)
    data = ["results/", "extra.jsonl"]  # files or folders; one string is one path
    format = "long"                # adapter name (default: detected from each file)
    system_col = "system"          # columns of a long table (defaults: the names shown)
    dataset_col = "dataset"
    metric_col = "metric"
    item_col = "item"              # also the optional item-id column of a wide table
    score_col = "score"
    run_col = "run"
    prediction_col = "prediction"  # prediction/reference: for corpus-level metrics
    reference_col = "reference"
    dataset = "my-benchmark"       # dataset name for inputs without one
    metric = "accuracy"            # metric name for inputs without one
    system = "rag-v2"              # system name for inputs that record none (DeepEval, Ragas)
    lm_eval_filter = "strict-match"  # lm-evaluation-harness filter (default: the first)
    nan_policy = "drop"            # a missing score: "drop" (counted) or "raise"
    nonfinite = "drop"             # Infinity/NaN in a harness's log: "drop" (warned) or "error"
    errors_as_failures = false     # true: a test that errored (promptfoo) scores 0
    strict_inputs = false          # true: an unusable input (empty log, ...) is an error
    max_input_bytes = "8GiB"       # the most one input file may take once read and
                                   # decompressed: bytes, or "512MB", "16GiB" (>= 1 MiB)
    no_text = false                # true: keep no item text (input, output, target, ...)
    text_col = ["prompt=input"]    # a long table's item-text columns: NAME=ROLE
    text_limit = 4000              # the most characters kept of one item text
    max_walk_files = 20000         # the most files and folders a search of the folders
                                   # given looks into (more: an error naming it)

    [analysis]                     # the statistics (the fields of AnalysisOptions)
    pairing = "auto"               # "auto" (detected), "paired" or "unpaired"
    method = "auto"                # "auto", "permutation", "bootstrap" or "sign"
    order = "all-pairs"            # "all-pairs", "first-vs-rest" or "successive"
    baseline = "gpt-4o"            # the system others are compared with (first-vs-rest)
    alternative = "two-sided"      # "two-sided", "greater" (A better than B) or "less"
    correction = "holm-sidak"      # "holm-sidak", "holm", "bonferroni", "sidak",
                                   # "fdr_bh", "fdr_by" or "none"
    correct_across = "sample-list" # family corrected together: "sample-list" or "all"
    alpha = 0.05                   # significance level, between 0 and 1 (exclusive)
    confidence = 0.95              # level of every interval, between 0 and 1 (exclusive)
    n_resamples = 9999             # permutation/bootstrap resamples, a whole number >= 1
    effect_threshold = "medium"    # Cohen level counted as relevant: "small", "medium",
                                   # "large"
    ci_method = "auto"             # "auto", "wilson", "clopper-pearson", "t",
                                   # "percentile" or "bca"
    corpus_metrics = ["f1-macro"]  # corpus-level metrics, e.g. "f1-micro", "accuracy"
    power = 0.8                    # power of the minimum detectable effect, in (0, 1)
    detect_delta = 0.02            # also the items needed to detect this difference (!= 0)
    cluster_by = "passage"         # item-metadata column grouping items
    group_by = ["difficulty"]      # item-metadata columns: compare within each level
    compare_by = ["prompt_format"] # hyperparameters (system attributes) to compare ...
    condition_on = ["model"]       # ... within each combination of these
    rank_lists = ["humaneval", "mbpp"]  # datasets of the ranking across datasets
                                   # (default: the largest group scored on the same ones)
    seed = 12345                   # master seed, a whole number >= 0 (default: drawn)
    max_memory = "512MB"           # working memory of one resampling step: bytes, or
                                   # "512MB", "2GB", "1.5GiB" (>= 1 MiB; default 256MiB)
    jobs = 4                       # worker processes for the dataset x metric units: 1
                                   # (default: serial), N, or 0 / "auto" (one per core)
    executor = "local"             # "local" (this machine) or "dask" (reportgen[dask])
    scheduler = "tcp://host:8786"  # executor = "dask": a running Dask scheduler
                                   # (default: a local cluster of `jobs` workers)

    [report]                       # the rendered report
    title = "Release 2.1 evaluation"  # report title
    release = "v2.1"               # release label
    candidate = "model-v2.1"       # the system that is the release candidate
    template = "release"           # a bundled template ("evaluation", "release") or an .ipynb
    theme = "default"              # a theme name ("default", "print") or a theme folder
    out = "reports/v2.1"           # the report folder
    formats = ["html", "pdf"]      # any of "html", "pdf", "ipynb" (or "html,pdf")
    force = false                  # replace an existing report folder
    if_exists = "error"            # existing report folder: "error", "replace", "timestamp"
    fail_on_regression = false     # exit 1 on a regression, or when anything was not compared
    allow_partial = false          # with fail_on_regression: pass when some were not compared
    gate = "non-inferiority"       # release gate: "regression" (= fail_on_regression) or
                                   # "non-inferiority" (every metric needs a margin)
    max_table_rows = 50            # longest table shown in full, a whole number >= 1
    timeout = 600                  # stop a notebook cell that runs longer (seconds)

    [metrics.edit_distance]
    direction = "lower"            # "higher" (default) or "lower" is better
    modality = "continuous"        # "binary" or "continuous"; default: inferred
    weight = 1.0                   # > 0, used when metrics are aggregated
    margin = 0.5                   # > 0, release reports: the largest loss accepted
                                   # (metric units; non-inferiority and equivalence)
    estimand = "trimmed"           # "mean" (default), "trimmed" (20% trimmed mean,
                                   # Yuen) or "hodges-lehmann" (Wilcoxon): what the
                                   # comparisons estimate; robust to heavy skew

    [datasets.python]
    weight = 2.0                   # > 0, used when datasets are aggregated

    [systems."codellama-13b"]
    family = "codellama"           # model family, for the signal-to-noise of Wang et al. (2024)
    size = 13                      # parameters in billions (> 0)

Keys are spelled like the command-line flags with underscores for dashes
(``--n-resamples`` is ``n_resamples``, ``--corpus-metric`` is ``corpus_metrics``). Each
``[input]``, ``[analysis]`` and ``[report]`` value is the default of its flag: a flag given
on the command line wins. In ``[analysis]``, ``corpus_metrics``, ``group_by``,
``compare_by``, ``condition_on`` and ``rank_lists`` take a list or one string. Relative paths
(``data``,
``out``, a ``template`` ending in ``.ipynb``, a ``theme`` folder that exists there) are
relative to the folder of the config file, not to the working directory; ``~`` is the home
folder. System entries become system attributes (``family``, ``size``).

Every key, its flag, kind and default are declared once in :mod:`reportgen.config`.
Unknown sections or keys and wrong types or values are errors that name the key and the
file, and list what is allowed. Booleans are not numbers (``alpha = true`` is an
error) and whole numbers must be written as such (``n_resamples = 99.5`` is an error).
"""

from __future__ import annotations

import difflib
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from reportgen.config import REPORT_FORMATS, Option, Section, options
from reportgen.errors import ConfigError, Location
from reportgen.jsonsafe import MAX_DEPTH, nesting_exceeds
from reportgen.names import ESTIMANDS, Estimand

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "DatasetSpec",
    "Direction",
    "MetricSpec",
    "Modality",
    "SystemSpec",
    "TableConfig",
    "load_config",
    "parse_config",
    "parse_input_size",
]

Direction = Literal["higher", "lower"]
Modality = Literal["binary", "continuous"]


@dataclass(frozen=True)
class MetricSpec:
    """What the user says about one metric; ``None`` means "infer" (or the default).
    ``direction_by`` says where a given direction came from: the config file
    (``"config"``, the default) or a ``--direction`` flag (``"flag"``)."""

    direction: Direction | None = None
    modality: Modality | None = None
    weight: float | None = None
    margin: float | None = None
    estimand: Estimand | None = None
    direction_by: Literal["config", "flag"] | None = None


@dataclass(frozen=True)
class DatasetSpec:
    """What the user says about one dataset."""

    weight: float | None = None


@dataclass(frozen=True)
class SystemSpec:
    """What the user says about one system: its model family and size (billions)."""

    family: str | None = None
    size: float | None = None


@dataclass(frozen=True)
class TableConfig:
    """A validated run configuration (see the module docstring for the file format).

    Attributes
    ----------
    metrics, datasets, systems
        Metric, dataset and system properties, keyed by name.
    source
        The file the config was read from, if any.
    analysis
        The ``[analysis]`` values given, keyed by :class:`reportgen.analysis.AnalysisOptions`
        field name (lists as tuples), so ``AnalysisOptions(**config.analysis)`` holds them.
    input
        The ``[input]`` values given: ``data`` (a tuple of paths) and
        :class:`reportgen.data.LoadOptions` field names.
    report
        The ``[report]`` values given (``formats`` as a tuple).
    execution
        The execution settings given in ``[analysis]`` (``jobs``, ``executor``,
        ``scheduler``): keyword arguments of :class:`reportgen.execution.Execution`, kept
        apart from ``analysis`` because they change how fast, never what, is computed.
    """

    metrics: Mapping[str, MetricSpec] = field(default_factory=dict)
    datasets: Mapping[str, DatasetSpec] = field(default_factory=dict)
    source: str | None = None
    systems: Mapping[str, SystemSpec] = field(default_factory=dict)
    analysis: Mapping[str, Any] = field(default_factory=dict)
    input: Mapping[str, Any] = field(default_factory=dict)
    report: Mapping[str, Any] = field(default_factory=dict)
    execution: Mapping[str, Any] = field(default_factory=dict)

    def merged(self, other: TableConfig) -> TableConfig:
        """A config loc ``other``'s given values override this one's."""
        metrics = dict(self.metrics)
        for name, spec in other.metrics.items():
            old = metrics.get(name, MetricSpec())
            metrics[name] = MetricSpec(
                direction=spec.direction or old.direction,
                direction_by=spec.direction_by if spec.direction else old.direction_by,
                modality=spec.modality or old.modality,
                weight=spec.weight if spec.weight is not None else old.weight,
                margin=spec.margin if spec.margin is not None else old.margin,
                estimand=spec.estimand or old.estimand,
            )
        datasets = dict(self.datasets)
        for name, dspec in other.datasets.items():
            old_d = datasets.get(name, DatasetSpec())
            datasets[name] = DatasetSpec(
                weight=dspec.weight if dspec.weight is not None else old_d.weight
            )
        systems = dict(self.systems)
        for name, sspec in other.systems.items():
            old_s = systems.get(name, SystemSpec())
            systems[name] = SystemSpec(
                family=sspec.family or old_s.family,
                size=sspec.size if sspec.size is not None else old_s.size,
            )
        return TableConfig(
            metrics,
            datasets,
            other.source or self.source,
            systems,
            {**self.analysis, **other.analysis},
            {**self.input, **other.input},
            {**self.report, **other.report},
            {**self.execution, **other.execution},
        )


FORMATS = REPORT_FORMATS

_SECTIONS = ("input", "analysis", "report", "metrics", "datasets", "systems")
_METRIC_KEYS = {"direction", "modality", "weight", "margin", "estimand"}
_DATASET_KEYS = {"weight"}
_SYSTEM_KEYS = {"family", "size"}

Check = Callable[[str, Any, Location], Any]


def load_config(path: str | Path) -> TableConfig:
    """Read a TOML run configuration (see the module docstring for the format).

    Parameters
    ----------
    path
        The config file. Relative paths in it are resolved against its folder.

    Returns
    -------
    TableConfig

    Raises
    ------
    ConfigError
        The file is missing, not TOML, or has an unknown key or a bad value; the
        message names the key (e.g. ``analysis.alpha``) and the file.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(
            "config file not found",
            location=Location(str(path)),
            hint="check the path given to --config",
        )
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # a UTF-16 byte-order mark
            raise ConfigError(
                "the config file is UTF-16 encoded, not UTF-8",
                location=Location(str(path)),
                hint="save it as UTF-8 (TOML files are UTF-8)",
            ) from None
        raise ConfigError(
            f"the config file is not valid UTF-8 (byte 0x{data[exc.start]:02x} "
            f"at offset {exc.start})",
            location=Location(str(path), data.count(b"\n", 0, exc.start) + 1),
            hint="save it as UTF-8 (e.g. `iconv -f latin1 -t utf-8 FILE`)",
        ) from None
    try:
        raw = tomllib.loads(text)
        if nesting_exceeds(raw, MAX_DEPTH):
            raise RecursionError
    except RecursionError:
        raise ConfigError(
            f"the config nests arrays or tables more than {MAX_DEPTH} levels deep",
            location=Location(str(path)),
            hint="see the config file's format in docs/cli.md (The config file)",
        ) from None
    except tomllib.TOMLDecodeError as exc:
        # tomllib ends its message with "(at line L, column C)": move that to the location
        where = re.search(r"\s*\(at line (\d+), column (\d+)\)$", str(exc))
        message = str(exc)[: where.start()] if where else str(exc)
        raise ConfigError(
            f"invalid TOML: {message}",
            location=Location(str(path), int(where[1]), int(where[2]))
            if where
            else Location(str(path)),
            hint="see the config file's format in docs/cli.md (The config file)",
        ) from None
    try:
        return _parse(raw, Location(str(path)), base=path.parent)
    except ConfigError as exc:
        line = _line_of_key(text, exc.message)
        if line is None:
            raise
        raise ConfigError(exc.message, location=Location(str(path), line), hint=exc.hint) from None


# How a validation message names the key it is about (see the checks below).
_KEY_IN_MESSAGE = (
    re.compile(r"^(?P<key>[^\s=']+) = "),  # analysis.alpha = 2
    re.compile(r"^unknown keys? in \[(?P<table>[^\]]+)\]: (?P<name>[^,]+)"),
    re.compile(r"^unknown config sections?: (?P<key>[^,]+)"),
    re.compile(r"^'(?P<key>[^']+)' must be"),  # 'metrics.m' must be
)


def _line_of_key(text: str, message: str) -> int | None:
    """The line of ``text`` (a TOML document) defining the key a validation message is
    about, or None when it cannot be told (inline tables, dotted keys, ...)."""
    for pattern in _KEY_IN_MESSAGE:
        match = pattern.match(message)
        if match:
            break
    else:
        return None
    parts = match.groupdict()
    if parts.get("table"):
        table, name = parts["table"], parts["name"]
    else:
        table, _, name = parts["key"].rpartition(".")
    current = ""
    for number, line in enumerate(text.split("\n"), start=1):  # TOML: LF or CRLF
        stripped = line.strip()
        header = re.match(r"^\[\[?\s*([^\]]*?)\s*\]\]?", stripped)
        if header:
            current = re.sub(r"[\"'\s]", "", header[1])
            if current == ".".join(filter(None, (table, name))):
                return number  # the key is a table: its header
            continue
        key = re.match(r"^[\"']?([^\"'=]+?)[\"']?\s*=", stripped)
        if key and current == table and key[1].strip() == name:
            return number
    return None


def parse_config(raw: Mapping[str, Any], *, source: str | None = None) -> TableConfig:
    """Validate a config mapping (as read from TOML) into a :class:`TableConfig`.

    Parameters
    ----------
    raw
        The parsed TOML document.
    source
        The file it came from: named in error messages, and relative paths are resolved
        against its folder. Without it, paths are kept as given.

    Raises
    ------
    ConfigError
        An unknown section or key, or a bad value; the message names the key.
    """
    base = None if source is None else Path(source).parent
    return _parse(raw, Location(source), base=base)


def _parse(raw: Mapping[str, Any], loc: Location, *, base: Path | None) -> TableConfig:
    unknown = sorted(set(raw) - set(_SECTIONS))
    if unknown:
        raise ConfigError(
            f"unknown config {'section' if len(unknown) == 1 else 'sections'}: "
            f"{', '.join(unknown)}",
            location=loc,
            hint="allowed sections: [input], [analysis], [report], "
            "[metrics.NAME], [datasets.NAME], [systems.NAME]",
        )
    metrics = {
        name: _metric_spec(name, body, loc)
        for name, body in _named_tables(raw, "metrics", loc).items()
    }
    datasets = {
        name: _dataset_spec(name, body, loc)
        for name, body in _named_tables(raw, "datasets", loc).items()
    }
    systems = {
        name: _system_spec(name, body, loc)
        for name, body in _named_tables(raw, "systems", loc).items()
    }
    analysis = _analysis_section(_table(raw, "analysis", loc), loc)
    execution = {key: analysis.pop(key) for key in _EXECUTION_KEYS if key in analysis}
    return TableConfig(
        metrics,
        datasets,
        loc.file,
        systems,
        analysis=analysis,
        execution=execution,
        input=_input_section(_table(raw, "input", loc), loc, base),
        report=_report_section(_table(raw, "report", loc), loc, base),
    )


# ----------------------------------------------------------------------------- sections


def _named_tables(raw: Mapping[str, Any], key: str, loc: Location) -> Mapping[str, Any]:
    section = raw.get(key, {})
    if not isinstance(section, Mapping):
        raise ConfigError(
            f"'{key}' must be a table of [{key}.NAME] sections, got {type(section).__name__}",
            location=loc,
            hint=f"write [{key}.NAME] followed by key = value lines",
        )
    for name, body in section.items():
        if not isinstance(body, Mapping):
            raise ConfigError(
                f"'{key}.{name}' must be a table, got {body!r}",
                location=loc,
                hint=f"write it as [{key}.{name}] followed by key = value lines",
            )
    return section


def _table(raw: Mapping[str, Any], key: str, loc: Location) -> Mapping[str, Any]:
    body = raw.get(key, {})
    if not isinstance(body, Mapping):
        raise ConfigError(
            f"'{key}' must be a table, got {body!r}",
            location=loc,
            hint=f"write it as [{key}] followed by key = value lines",
        )
    return body


def _metric_spec(name: str, body: Mapping[str, Any], loc: Location) -> MetricSpec:
    _check_keys(("metrics", name), body, _METRIC_KEYS, loc)
    values = _validated(
        ("metrics", name),
        body,
        {
            "direction": _choice(get_args(Direction)),
            "modality": _choice(get_args(Modality)),
            "weight": _positive,
            "margin": _positive,
            "estimand": _choice(ESTIMANDS),
        },
        loc,
    )
    return MetricSpec(**values)


def _dataset_spec(name: str, body: Mapping[str, Any], loc: Location) -> DatasetSpec:
    _check_keys(("datasets", name), body, _DATASET_KEYS, loc)
    return DatasetSpec(**_validated(("datasets", name), body, {"weight": _positive}, loc))


def _system_spec(name: str, body: Mapping[str, Any], loc: Location) -> SystemSpec:
    _check_keys(("systems", name), body, _SYSTEM_KEYS, loc)
    return SystemSpec(
        **_validated(("systems", name), body, {"family": _text, "size": _positive}, loc)
    )


def _analysis_section(body: Mapping[str, Any], loc: Location) -> dict[str, Any]:
    _check_keys(("analysis",), body, set(_ANALYSIS), loc)
    values = _validated(("analysis",), body, _ANALYSIS, loc)
    if "power" in values and "alpha" in values and values["power"] <= values["alpha"]:
        raise ConfigError(
            f"analysis.power = {values['power']!r} is not above analysis.alpha "
            f"= {values['alpha']!r}",
            location=loc,
            hint="the power at no effect is alpha; ask for e.g. power = 0.8",
        )
    return values


def _input_section(body: Mapping[str, Any], loc: Location, base: Path | None) -> dict[str, Any]:
    _check_keys(("input",), body, set(_INPUT), loc)
    values = _validated(("input",), body, _INPUT, loc)
    if "data" in values and base is not None:
        values["data"] = tuple(_under(base, p) for p in values["data"])
    return values


def _report_section(body: Mapping[str, Any], loc: Location, base: Path | None) -> dict[str, Any]:
    _check_keys(("report",), body, set(_REPORT), loc)
    values = _validated(("report",), body, _REPORT, loc)
    if base is None:
        return values
    if "out" in values:
        values["out"] = _under(base, values["out"])
    if values.get("template", "").endswith(".ipynb"):
        values["template"] = _under(base, values["template"])
    if "theme" in values:
        theme = Path(values["theme"]).expanduser()
        if theme.is_absolute():
            values["theme"] = str(theme)
        elif (base / theme).exists():
            values["theme"] = str(base / theme)
    return values


def _under(base: Path, path: str) -> str:
    """``path`` with ``~`` expanded, relative to ``base`` unless absolute."""
    expanded = Path(path).expanduser()
    return str(expanded if expanded.is_absolute() else base / expanded)


def _validated(
    prefix: tuple[str, ...], body: Mapping[str, Any], checks: Mapping[str, Check], loc: Location
) -> dict[str, Any]:
    return {key: checks[key](".".join((*prefix, key)), value, loc) for key, value in body.items()}


def _check_keys(
    prefix: tuple[str, ...], body: Mapping[str, Any], allowed: set[str], loc: Location
) -> None:
    unknown = sorted(set(body) - allowed)
    if not unknown:
        return
    hint = f"allowed keys: {', '.join(sorted(allowed))}"
    close = difflib.get_close_matches(unknown[0].replace("-", "_"), sorted(allowed), n=1)
    if close:
        hint = f"did you mean {close[0]!r}? {hint}"
    raise ConfigError(
        f"unknown {'key' if len(unknown) == 1 else 'keys'} in [{'.'.join(prefix)}]: "
        f"{', '.join(unknown)}",
        location=loc,
        hint=hint,
    )


# ------------------------------------------------------------------------------- checks


def _invalid(key: str, value: Any, loc: Location, hint: str) -> ConfigError:
    return ConfigError(f"{key} = {value!r} is not valid", location=loc, hint=hint)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _choice(choices: tuple[str, ...]) -> Check:
    def check(key: str, value: Any, loc: Location) -> str:
        if not isinstance(value, str) or value not in choices:
            raise _invalid(key, value, loc, f"use one of: {', '.join(repr(c) for c in choices)}")
        return value

    return check


def _text(key: str, value: Any, loc: Location) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _invalid(key, value, loc, 'a non-empty string, e.g. "name"')
    return value


def _texts(key: str, value: Any, loc: Location) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _invalid(key, value, loc, 'a list of names, e.g. ["difficulty"]')
    return tuple(value)


def _names_in(choices: tuple[str, ...]) -> Check:
    def check(key: str, value: Any, loc: Location) -> tuple[str, ...]:
        names = _texts(key, value, loc)
        unknown = [n for n in names if n not in choices]
        if unknown:
            raise ConfigError(
                f"{key} = {value!r} is not valid: unknown {unknown[0]!r}",
                location=loc,
                hint=f"known: {', '.join(choices)}",
            )
        return names

    return check


def _paths(key: str, value: Any, loc: Location) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, str) and v.strip() for v in value)
    ):
        raise _invalid(
            key, value, loc, 'a list of files or folders, e.g. ["results/"], or one path'
        )
    return tuple(value)


def _unit(key: str, value: Any, loc: Location) -> float:
    if not _is_number(value) or not 0 < value < 1:
        raise _invalid(key, value, loc, "a number between 0 and 1 (exclusive)")
    return float(value)


def _positive(key: str, value: Any, loc: Location) -> float:
    if not _is_number(value) or value <= 0:
        raise _invalid(key, value, loc, "a finite number > 0")
    return float(value)


def _nonzero(key: str, value: Any, loc: Location) -> float:
    if not _is_number(value) or value == 0:
        raise _invalid(
            key, value, loc, "a finite, non-zero difference of means to detect, e.g. 0.02"
        )
    return float(value)


def _count(key: str, value: Any, loc: Location) -> int:
    if not _is_whole(value) or value < 1:
        raise _invalid(key, value, loc, "a whole number >= 1, written without a decimal point")
    return value


def _seed(key: str, value: Any, loc: Location) -> int:
    if not _is_whole(value) or value < 0:
        raise _invalid(key, value, loc, "a whole number >= 0, e.g. 12345")
    return value


def _flag(key: str, value: Any, loc: Location) -> bool:
    if not isinstance(value, bool):
        raise _invalid(key, value, loc, "true or false (lower case, no quotes)")
    return value


def _adapter(key: str, value: Any, loc: Location) -> str:
    from reportgen.data.adapters import adapter_names  # the registry loads its modules

    return _choice(tuple(adapter_names()))(key, value, loc)


def _formats(key: str, value: Any, loc: Location) -> tuple[str, ...]:
    parts = [p.strip() for p in value.split(",") if p.strip()] if isinstance(value, str) else value
    if (
        not isinstance(parts, list)
        or not parts
        or not all(isinstance(p, str) and p in FORMATS for p in parts)
    ):
        raise _invalid(
            key,
            value,
            loc,
            f'at least one of {", ".join(map(repr, FORMATS))}, e.g. ["html", "pdf"]',
        )
    return tuple(dict.fromkeys(parts))


def _memory(key: str, value: Any, loc: Location) -> int:
    from reportgen.execution import parse_memory_size  # stdlib-only module

    return parse_memory_size(value, name=key, location=loc)


def _input_size(key: str, value: Any, loc: Location) -> int:
    return parse_input_size(value, name=key, location=loc)


def parse_input_size(
    value: Any, *, name: str = "--max-input-bytes", location: Location | None = None
) -> int:
    """``--max-input-bytes`` / ``[input] max_input_bytes``: a size in bytes (the syntax
    of :func:`reportgen.execution.parse_memory_size`), at least 1 MiB."""
    from reportgen.execution import parse_memory_size  # stdlib-only module

    return parse_memory_size(
        value,
        name=name,
        location=location,
        minimum_hint="the cap on one input is at least 1MiB; the default is 8GiB",
    )


def _jobs(key: str, value: Any, loc: Location) -> int:
    if value == "auto":
        return 0
    if not _is_whole(value) or value < 0:
        raise _invalid(
            key,
            value,
            loc,
            'a whole number of worker processes >= 1, or 0 or "auto" for one per core',
        )
    return value


#: How the config file's value of each kind of option (:data:`reportgen.config.KINDS`)
#: is checked.
_KIND_CHECKS: dict[str, Callable[[Option], Check]] = {
    "choice": lambda o: _choice(o.choices or ()),
    "names": lambda o: _names_in(o.choices or ()),
    "text": lambda o: _text,
    "texts": lambda o: _texts,
    "name-list": lambda o: _texts,
    "paths": lambda o: _paths,
    "unit": lambda o: _unit,
    "nonzero": lambda o: _nonzero,
    "count": lambda o: _count,
    "seed": lambda o: _seed,
    "flag": lambda o: _flag,
    "memory": lambda o: _memory,
    "input-size": lambda o: _input_size,
    "jobs": lambda o: _jobs,
    "adapter": lambda o: _adapter,
    "formats": lambda o: _formats,
}


def _checks(section: Section) -> dict[str, Check]:
    """The check of every config key of ``section``, from its declaration."""
    return {o.key: _KIND_CHECKS[o.kind](o) for o in options(section, config=True)}


# [analysis] keys that say where the work runs, not what is computed (TableConfig.execution)
_EXECUTION_KEYS = tuple(o.key for o in options("analysis") if o.execution)
_ANALYSIS = _checks("analysis")
_INPUT = _checks("input")
_REPORT = _checks("report")

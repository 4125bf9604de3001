"""Every option a user sets, declared once: its config-file key, its command-line flag,
its kind of value, its default and its help.

An :class:`Option` of section ``input``, ``analysis`` or ``report`` is both a key of that
``[section]`` of the TOML config (:func:`reportgen.data.load_config` checks values by
the option's ``kind``) and a flag of the command line (``reportgen.cli`` builds its
arguments from :data:`OPTIONS`, choices from :mod:`reportgen.names`). The library's
defaults come from here too: :class:`reportgen.analysis.AnalysisOptions` takes its field
defaults from :func:`default`, and the command line fills what neither the flag nor the
file gave with :func:`resolve`, in which "not given" is ``None``, so a given ``0`` or
``false`` is kept.

The module imports nothing but :mod:`reportgen.names` (the CLI parser is built from it
without importing numpy, pandas or scipy), so every layer may import it.

>>> option("n_resamples").flag, option("n_resamples").default
('--n-resamples', 9999)
>>> [o.key for o in options("report") if o.kind == "flag"]
['force', 'fail_on_regression', 'allow_partial', 'quiet']
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from reportgen.names import (
    ALTERNATIVES,
    CI_METHODS,
    CORPUS_METRICS,
    CORRECT_ACROSS,
    CORRECTIONS,
    EFFECT_LEVELS,
    EXECUTORS,
    GATES,
    IF_EXISTS,
    METHODS,
    NAN_POLICIES,
    NONFINITE_POLICIES,
    ORDERS,
    PAIRINGS,
)

__all__ = [
    "KINDS",
    "OPTIONS",
    "Kind",
    "Option",
    "Section",
    "default",
    "defaults",
    "option",
    "options",
    "resolve",
]

Section = Literal["input", "analysis", "report"]

#: What a value is, which says how the config file's value is checked
#: (``reportgen.data._config``) and how the flag's text is read (``reportgen.cli``):
#: ``choice`` one of ``choices``; ``text`` a non-empty string; ``texts`` a list of names
#: (a repeatable flag); ``names`` a list of names from ``choices``; ``name-list`` a list
#: of names (a comma-separated flag); ``paths`` files or folders; ``unit`` a number in
#: (0, 1); ``nonzero`` a non-zero number; ``count`` a whole number >= 1; ``seed`` a whole
#: number >= 0; ``flag`` true or false; ``memory`` and ``input-size`` a size in bytes
#: (``"512MB"``); ``jobs`` worker processes (``"auto"``); ``adapter`` an input format;
#: ``formats`` report formats.
Kind = Literal[
    "choice",
    "text",
    "texts",
    "names",
    "name-list",
    "paths",
    "unit",
    "nonzero",
    "count",
    "seed",
    "flag",
    "memory",
    "input-size",
    "jobs",
    "adapter",
    "formats",
]
KINDS: tuple[str, ...] = Kind.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Option:
    """One option: ``[section] key`` in the config file and ``flag`` on the command line.

    Attributes
    ----------
    key
        The config key, also the keyword of the library call it feeds
        (:class:`~reportgen.analysis.AnalysisOptions`, ``LoadOptions``, ``RunSpec``) and
        the ``argparse`` destination of its flag.
    section
        ``input`` (how the data are read), ``analysis`` (the statistics and where they
        run) or ``report`` (what ``reportgen run`` writes).
    kind
        One of :data:`KINDS`.
    help
        The flag's help; ``{default}`` is replaced by the default.
    default
        The value when neither the flag nor the config file gives one (``None``: the
        library decides, e.g. a seed drawn at random).
    choices
        The allowed values of a ``choice`` or ``names`` option.
    flag
        The command-line flag (default: ``--`` and the key with dashes); ``None`` for
        options of the config file only.
    metavar
        The flag's placeholder in ``--help``.
    in_config
        False for flags that have no config key (``--quiet``).
    execution
        An ``[analysis]`` key that says where the work runs, not what is computed
        (``jobs``, ``executor``, ``scheduler``).
    """

    key: str
    section: Section
    kind: Kind
    help: str
    default: Any = None
    choices: tuple[str, ...] | None = None
    flag: str | None = ""
    metavar: str | None = None
    in_config: bool = True
    execution: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"option {self.key!r}: unknown kind {self.kind!r}")
        if (self.kind in ("choice", "names")) != (self.choices is not None):
            raise ValueError(f"option {self.key!r}: choices go with kind choice or names")
        if self.flag == "":
            object.__setattr__(self, "flag", "--" + self.key.replace("_", "-"))

    @property
    def help_text(self) -> str:
        """:attr:`help` with its default filled in."""
        shown = self.default
        if isinstance(shown, tuple):
            shown = ", ".join(shown)
        return self.help.replace("{default}", str(shown))


_COLUMNS = ("system", "dataset", "metric", "item", "score", "run", "prediction", "reference")

#: Every option, in the order of ``--help``.
OPTIONS: tuple[Option, ...] = (
    # ---------------------------------------------------------------- [input]
    Option("data", "input", "paths", "result files or folders (several are combined)", flag=None),
    Option(
        "format", "input", "adapter", "input format (default: detected from each file's content)"
    ),
    *(
        Option(
            f"{c}_col",
            "input",
            "text",
            f"column holding the {c} in a long table (default: {{default}})",
            default=c,
            metavar="COL",
        )
        for c in _COLUMNS
    ),
    Option(
        "dataset",
        "input",
        "text",
        "dataset name for inputs without one (default: folder or file name)",
        metavar="NAME",
    ),
    Option(
        "metric",
        "input",
        "text",
        "metric name for inputs without one (default: file "
        "name for wide tables, 'score' for long ones)",
        metavar="NAME",
    ),
    Option(
        "system",
        "input",
        "text",
        "system name for inputs that record none (a DeepEval run, a Ragas table, an "
        "EvalPlus file): NAME, or FILE=NAME,FILE2=NAME2 per input (default: the run's "
        "folder or the file name)",
        metavar="NAME",
    ),
    Option(
        "lm_eval_filter",
        "input",
        "text",
        "lm-evaluation-harness filter to use (default: the first listed per task)",
        metavar="FILTER",
    ),
    Option(
        "nan_policy",
        "input",
        "choice",
        "a missing score: drop the row and count it "
        "({default}, the default) or raise: stop with an error",
        default="drop",
        choices=NAN_POLICIES,
    ),
    Option(
        "nonfinite",
        "input",
        "choice",
        "an infinite or NaN per-item value in a harness's log: drop it with one "
        "warning per file and metric ({default}, the default) or error: stop",
        default="drop",
        choices=NONFINITE_POLICIES,
    ),
    Option(
        "errors_as_failures",
        "input",
        "flag",
        "score a test that errored (promptfoo's failureReason 2) as a failure (0) "
        "instead of leaving it out with a warning",
        default=False,
    ),
    Option(
        "strict_inputs",
        "input",
        "flag",
        "stop with an error instead of skipping an "
        "input with no usable result (a cancelled or empty log, a missing samples "
        "file); skipped inputs are listed in the report by default",
        default=False,
    ),
    Option(
        "max_input_bytes",
        "input",
        "input-size",
        "the most one input file may take "
        "once read and decompressed (.gz, .zst, Inspect .eval entries, Parquet pages): "
        "bytes, or 512MB, 16GiB (default {default}); a larger input stops with an error "
        "before using the memory",
        default="8GiB",
        metavar="SIZE",
    ),
    # ---------------------------------------------------------------- [analysis]
    Option(
        "pairing",
        "analysis",
        "choice",
        "compare on shared items (paired) or not; auto: detected per dataset × metric (default)",
        default="auto",
        choices=PAIRINGS,
    ),
    Option(
        "method",
        "analysis",
        "choice",
        "auto: Welch t / two-proportion z / paired t / "
        "exact McNemar by pairing and modality (default); permutation; null-shifted "
        "bootstrap; sign test (paired)",
        default="auto",
        choices=METHODS,
    ),
    Option(
        "order",
        "analysis",
        "choice",
        "which pairs to compare (default: {default})",
        default="all-pairs",
        choices=ORDERS,
    ),
    Option(
        "baseline",
        "analysis",
        "text",
        "the system the others are compared with under "
        "--order first-vs-rest, and the baseline of a release report (default: the "
        "first)",
        metavar="SYSTEM",
    ),
    Option(
        "alternative",
        "analysis",
        "choice",
        "greater: A is better than B (fix it before looking at the data); default {default}",
        default="two-sided",
        choices=ALTERNATIVES,
    ),
    Option(
        "correction",
        "analysis",
        "choice",
        "multiple-comparison correction (default {default})",
        default="holm-sidak",
        choices=CORRECTIONS,
    ),
    Option(
        "correct_across",
        "analysis",
        "choice",
        "the family corrected together: each "
        "dataset × metric ({default}, the default) or every comparison of the analysis "
        "(all)",
        default="sample-list",
        choices=CORRECT_ACROSS,
    ),
    Option("alpha", "analysis", "unit", "significance level (default {default})", default=0.05),
    Option(
        "confidence",
        "analysis",
        "unit",
        "level of the confidence intervals (default {default})",
        default=0.95,
    ),
    Option(
        "n_resamples",
        "analysis",
        "count",
        "permutation/bootstrap resamples (default {default})",
        default=9999,
        metavar="N",
    ),
    Option(
        "effect_threshold",
        "analysis",
        "choice",
        "Cohen level an effect must reach to count as practically relevant (default {default})",
        default="medium",
        choices=EFFECT_LEVELS,
    ),
    Option(
        "ci_method",
        "analysis",
        "choice",
        "interval of each system's mean: auto = "
        "Wilson for binary scores, bootstrap BCa for continuous ones",
        default="auto",
        choices=CI_METHODS,
    ),
    Option(
        "corpus_metrics",
        "analysis",
        "names",
        "corpus-level metric computed from "
        "prediction/reference columns, repeatable (default: {default}); e.g. f1-micro, "
        "f1-binary, precision-macro, recall-macro, accuracy, mcc",
        default=("f1-macro",),
        choices=CORPUS_METRICS,
        flag="--corpus-metric",
        metavar="NAME",
    ),
    Option(
        "power",
        "analysis",
        "unit",
        "power for the minimum detectable effect of each dataset × metric (default {default})",
        default=0.8,
    ),
    Option(
        "detect_delta",
        "analysis",
        "nonzero",
        "also report the items needed to detect this difference",
        metavar="DELTA",
    ),
    Option(
        "cluster_by",
        "analysis",
        "text",
        "item-metadata column grouping items (e.g. a "
        "passage id): adds cluster-robust intervals of each system's mean",
        metavar="COLUMN",
    ),
    Option(
        "group_by",
        "analysis",
        "texts",
        "item-metadata column: also compare within each of its levels (repeatable)",
        default=(),
        metavar="COLUMN",
    ),
    Option(
        "compare_by",
        "analysis",
        "texts",
        "hyperparameter (system attribute) to compare "
        "by pooling the systems that share its value (repeatable; Ackerman et al. 2025, "
        "§10.2)",
        default=(),
        metavar="ATTR",
    ),
    Option(
        "condition_on",
        "analysis",
        "texts",
        "hyperparameter to condition on: --compare-by runs within each of its values (repeatable)",
        default=(),
        metavar="ATTR",
    ),
    Option(
        "rank_lists",
        "analysis",
        "name-list",
        "datasets of the ranking across datasets "
        "(default: the largest group of systems scored on the same datasets, chosen to "
        "maximise systems × datasets)",
        metavar="NAME,...",
    ),
    Option("seed", "analysis", "seed", "random seed (default: drawn and recorded in the results)"),
    Option(
        "max_memory",
        "analysis",
        "memory",
        "working memory of one resampling step: "
        "bytes, or 512MB, 2GB, 1.5GiB (at least 1MiB; default {default}); changes the "
        "peak memory, never the numbers",
        default="256MiB",
        metavar="SIZE",
    ),
    Option(
        "jobs",
        "analysis",
        "jobs",
        "worker processes: 1 runs in this process "
        "(default), N in N processes, 0 or auto one per core; with --executor dask and "
        "no --scheduler, the workers of a local Dask cluster",
        default=1,
        metavar="N",
        execution=True,
    ),
    Option(
        "executor",
        "analysis",
        "choice",
        "local: this machine (default); dask: a Dask cluster (pip install 'reportgen[dask]')",
        default="local",
        choices=EXECUTORS,
        execution=True,
    ),
    Option(
        "scheduler",
        "analysis",
        "text",
        "with --executor dask: the address of a "
        "running Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: start a local "
        "cluster)",
        metavar="ADDRESS",
        execution=True,
    ),
    # ---------------------------------------------------------------- [report]
    Option(
        "out",
        "report",
        "text",
        "report folder to create (default: ./{default}), e.g. "
        "CHECKPOINT_DIR/eval-report; an existing report is replaced only with --force, "
        "and a folder that is not a report never",
        default="report",
        metavar="DIR",
    ),
    Option(
        "force",
        "report",
        "flag",
        "replace an existing report folder (= --if-exists replace)",
        default=False,
    ),
    Option(
        "if_exists",
        "report",
        "choice",
        "when --out exists: error (default), replace "
        "it (a report folder only, unchanged since reportgen wrote it), replace-edited "
        "(even if files were edited since: they are deleted), or timestamp: write a new "
        "folder OUT-YYYYMMDD-HHMMSS beside it",
        default="error",
        choices=IF_EXISTS,
    ),
    Option(
        "template",
        "report",
        "text",
        "bundled template (evaluation, release, "
        "data_overview) or an .ipynb of your own (default: {default})",
        default="evaluation",
        metavar="NAME|PATH",
    ),
    Option(
        "theme",
        "report",
        "text",
        "chart and page theme: default, print, or a folder holding theme.json and report.css",
        default="default",
        metavar="NAME|DIR",
    ),
    Option(
        "title",
        "report",
        "text",
        "report title (default: named after the release, or 'Evaluation report')",
    ),
    Option(
        "release",
        "report",
        "text",
        "release label, shown in the header and the page footer",
        metavar="LABEL",
    ),
    Option(
        "candidate",
        "report",
        "text",
        "release template: the candidate system "
        "(default: the --release label if it names a system, else the only system "
        "other than --baseline)",
        metavar="SYSTEM",
    ),
    Option(
        "formats",
        "report",
        "formats",
        "what to write, comma-separated from html, pdf, ipynb (default: all three)",
        default=("html", "pdf", "ipynb"),
        flag="--format",
        metavar="LIST",
    ),
    Option(
        "max_table_rows",
        "report",
        "count",
        "longest pairwise table shown per dataset "
        "× metric (default {default}; every pair is in tables/comparisons.csv or .parquet)",
        default=40,
        metavar="N",
    ),
    Option(
        "gate",
        "report",
        "choice",
        "release template, a CI gate: exit with status 1 "
        "when 'regression': anything regressed significantly; 'non-inferiority': "
        "anything compared is neither improved nor non-inferior (needs --margin). Both "
        "also fail when a dataset × metric could not be compared, unless "
        "--allow-partial",
        choices=GATES,
    ),
    Option("fail_on_regression", "report", "flag", "the same as --gate regression", default=False),
    Option(
        "allow_partial",
        "report",
        "flag",
        "with --gate: pass when some dataset × "
        "metric was not compared (they are still named on stderr and in the report)",
        default=False,
    ),
    Option(
        "timeout",
        "report",
        "count",
        "stop a notebook cell that runs longer than this many seconds (default: no limit)",
        metavar="SECONDS",
    ),
    Option("quiet", "report", "flag", "no progress lines", default=False, in_config=False),
)

_BY_KEY = MappingProxyType({(o.section, o.key): o for o in OPTIONS})
if len(_BY_KEY) != len(OPTIONS):  # pragma: no cover - a declaration error
    raise RuntimeError("an option is declared twice")


def options(section: Section, *, config: bool | None = None) -> tuple[Option, ...]:
    """The options of ``section``, in declaration order; ``config=True``: only those with
    a config key, ``False``: only flags without one."""
    return tuple(
        o for o in OPTIONS if o.section == section and (config is None or o.in_config == config)
    )


def option(key: str, section: Section | None = None) -> Option:
    """The option declared as ``key`` (in ``section`` when two sections share a key)."""
    found = [o for o in OPTIONS if o.key == key and section in (None, o.section)]
    if len(found) != 1:
        raise KeyError(f"{key!r} is {'not declared' if not found else 'ambiguous'}")
    return found[0]


def default(key: str, section: Section | None = None) -> Any:
    """The default of option ``key``: what the library uses when nothing is given."""
    return option(key, section).default


def defaults(section: Section) -> dict[str, Any]:
    """``{key: default}`` of every option of ``section``."""
    return {o.key: o.default for o in options(section)}


def resolve(*values: Any, default: Any = None) -> Any:
    """The first value that was given (is not None), else ``default``: a command-line
    flag, then the config file's value, then the declared default. ``0``, ``False`` and
    ``""`` are given values (``--max-table-rows 0`` is an error, not 40).

    >>> resolve(None, 0, default=40), resolve(False, True), resolve(None, None, default=1)
    (0, False, 1)
    """
    return next((v for v in values if v is not None), default)

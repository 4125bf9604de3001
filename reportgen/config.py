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

from collections.abc import Mapping
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
    "REPORT_FORMATS",
    "TITLES",
    "Kind",
    "Option",
    "Section",
    "command_default",
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

#: What ``reportgen run`` can write (``--format``, ``[report] formats``).
REPORT_FORMATS: tuple[str, ...] = ("html", "pdf", "ipynb")

#: The title of a report given none, by template. ``reportgen run`` names an evaluation
#: report so and a release report after its release
#: (:meth:`reportgen.analysis.release.ReleaseSpec.title`); the templates' parameter cells
#: hold these (a notebook run by hand).
TITLES: Mapping[str, str] = MappingProxyType(
    {"evaluation": "Evaluation report", "release": "Release report"}
)

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
        "name for wide tables, 'score' for long ones); NAME:lower or NAME:higher says "
        "which way metric NAME is better instead, as --direction does",
        metavar="NAME",
    ),
    Option(
        "direction",
        "input",
        "texts",
        "which way a metric is better: METRIC=lower or METRIC=higher (repeat for "
        "several); wins over the config's [metrics.NAME] direction, the input's own "
        "and the inference from the name (loss, error, latency, ...)",
        default=(),
        metavar="METRIC=lower|higher",
        in_config=False,
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
    Option(
        "no_text",
        "input",
        "flag",
        "leave the items' text out (the input, the outputs, the target and the scorer's "
        "explanation that harness logs carry): no item text in the report or "
        "tables/flips.csv, and less memory",
        default=False,
    ),
    Option(
        "text_col",
        "input",
        "texts",
        "a long table's column of item text: NAME=ROLE with ROLE input, output, target "
        "or explanation (repeat for several); columns named input, output, target and "
        "explanation are item text without it",
        default=(),
        metavar="NAME=ROLE",
    ),
    Option(
        "text_limit",
        "input",
        "count",
        "the most characters kept of one item text; a longer one is cut there and the "
        "report says so (default {default})",
        default=4000,
        metavar="CHARS",
    ),
    Option(
        "max_walk_files",
        "input",
        "count",
        "the most files and folders a search of the folders given looks into (default "
        "{default}); a folder holding more stops with an error naming this bound",
        default=20000,
        metavar="N",
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
        f"report title (default: named after the release, or {TITLES['evaluation']!r})",
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
        f"what to write, comma-separated from {', '.join(REPORT_FORMATS)} (default: all three)",
        default=REPORT_FORMATS,
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


# --------------------------------------------------------------------- command flags


#: How a command flag's text is read: ``int``, ``float``, ``name-list`` (comma-separated
#: names), ``formats`` (comma-separated report formats); None: the text as given.
FlagKind = Literal["int", "float", "name-list", "formats"]


@dataclass(frozen=True)
class Flag:
    """A command-line flag (or positional argument) of one command that has no config
    key: what a command reads besides the :data:`OPTIONS` of the config file (``reportgen
    email``'s addresses, ``reportgen power``'s design, the report folders of
    ``history``...). The fields are ``argparse``'s, as data: :mod:`reportgen.cli` builds
    every parser from :data:`OPTIONS` and :data:`COMMAND_FLAGS` and declares nothing
    itself.

    Attributes
    ----------
    names
        The option strings (``("--to",)``), or the name of a positional argument.
    help
        The ``--help`` text.
    group, exclusive
        The argument group's title, and the name of a mutually exclusive group inside
        it (``--starttls`` / ``--ssl``); None: the command's own list.
    kind
        How the text is read (:data:`FlagKind`).
    action, dest, default, choices, metavar, nargs, required, const
        As in ``argparse.ArgumentParser.add_argument``; ``action="deprecated-alias"`` is
        an old name of ``replaced_by``, kept for one version (it warns when used), and
        ``hidden`` leaves a flag out of ``--help``. A repeatable flag's ``default`` is a
        tuple, given to ``argparse`` as a new list.
    """

    names: tuple[str, ...]
    help: str
    group: str | None = None
    exclusive: str | None = None
    kind: FlagKind | None = None
    action: str | None = None
    dest: str | None = None
    default: Any = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    nargs: str | None = None
    required: bool = False
    const: Any = None
    replaced_by: str | None = None
    hidden: bool = False

    def __post_init__(self) -> None:
        if (self.action == "deprecated-alias") != (self.replaced_by is not None):
            raise ValueError(f"flag {self.names}: a deprecated alias names its replacement")


COMMAND_FLAGS: Mapping[str, tuple[Flag, ...]] = MappingProxyType(
    {
        "data": (
            Flag(
                ("data",),
                nargs="*",
                metavar="DATA",
                help=(
                    "result files or folders (several are combined); default: [input] data of "
                    "the config file"
                ),
            ),
            Flag(
                ("--config",),
                metavar="FILE",
                help=(
                    "TOML config: metric and dataset properties (direction, modality, weight, "
                    "margin), systems, and the defaults of every flag ([input], [analysis], "
                    "[report]); flags given win"
                ),
                group="reading the data",
            ),
        ),
        "inspect": (
            Flag(
                ("--json",),
                action="store_true",
                help="print the summary as JSON instead of text",
            ),
        ),
        "analyze": (
            Flag(
                ("--out",),
                required=True,
                metavar="DIR",
                help=(
                    "folder to create for results.json and manifest.json; an existing one is "
                    "replaced only with --force, and only if reportgen wrote everything in it"
                ),
            ),
            Flag(
                ("--force",),
                action="store_true",
                help="replace an existing results folder (= --if-exists replace)",
            ),
            Flag(
                ("--if-exists",),
                choices=IF_EXISTS,
                default="error",
                help=(
                    "when --out exists: error (default), replace (only if unchanged since "
                    "reportgen wrote it), replace-edited (even if edited), or write a new "
                    "timestamped folder beside it"
                ),
            ),
        ),
        "compare": (
            Flag(
                ("a",),
                metavar="A",
                help="first system name, or first result file",
            ),
            Flag(
                ("b",),
                metavar="B",
                help="second system name, or second result file",
            ),
            Flag(
                ("--style",),
                choices=("plain", "markdown", "latex"),
                default="plain",
                help="sentence format (default plain)",
            ),
        ),
        "run": (
            Flag(
                ("--margin",),
                action="append",
                metavar="[METRIC=]DELTA",
                help=(
                    "release template: the largest loss you accept, in the metric's units (0.01"
                    " = one point of accuracy), for every metric or for METRIC (repeat the "
                    "flag; METRIC=DELTA wins, and either wins over the config's [metrics.NAME] "
                    "margin). Verdicts become improved, regressed, non-inferior or "
                    "inconclusive, with equivalence (within ±DELTA) beside them"
                ),
                group="the report",
            ),
        ),
        "verify": (
            Flag(
                ("reports",),
                nargs="+",
                metavar="REPORT_DIR",
                help="report folders written by reportgen run",
            ),
        ),
        "history": (
            Flag(
                ("reports",),
                nargs="+",
                metavar="REPORT_DIR",
                help="report folders written by reportgen run, two or more",
            ),
            Flag(
                ("--out",),
                metavar="DIR",
                default="history",
                help="trend report folder to create (default: ./history)",
            ),
            Flag(
                ("--force",),
                action="store_true",
                help="replace an existing report folder",
            ),
            Flag(
                ("--if-exists",),
                choices=IF_EXISTS,
                default="error",
                help=(
                    "when --out exists: error (default), replace (only if unchanged since "
                    "reportgen wrote it), replace-edited (even if edited), or write a new "
                    "timestamped folder beside it"
                ),
            ),
            Flag(
                ("--order",),
                choices=("auto", "release", "created", "given"),
                default="auto",
                help=(
                    "release: natural order of the labels; created: report dates; given: as "
                    "listed; auto (default): release when every report has a label, else "
                    "created"
                ),
            ),
            Flag(
                ("--system",),
                dest="follow",
                action="append",
                default=(),
                metavar="NAME|RELEASE=NAME",
                help=(
                    "the system to follow: one NAME for every report, or RELEASE=NAME per "
                    "report (repeatable)"
                ),
            ),
            Flag(
                ("--allow-edited",),
                action="store_true",
                help=(
                    "show a release whose results.json is not the one its manifest sealed "
                    "(edited afterwards, or unverifiable), marked as edited on its steps in "
                    "every output; without it such a release is an error"
                ),
            ),
            Flag(
                ("--reference",),
                dest="references",
                action="append",
                default=(),
                metavar="SYSTEM",
                help="another system to draw in the trends, e.g. a fixed competitor (repeatable)",
            ),
            Flag(
                ("--recompute",),
                choices=("auto", "always", "never"),
                default="auto",
                help=(
                    "auto: stored tests, else per-item data, else intervals; always: per-item "
                    "data first; never: no per-item data"
                ),
            ),
            Flag(
                ("--title",),
                default="Release history",
                help="report title",
            ),
            Flag(
                ("--theme",),
                metavar="NAME|DIR",
                default="default",
                help="chart and page theme: default, print, or a theme folder",
            ),
            Flag(
                ("--format",),
                dest="formats",
                metavar="LIST",
                help="what to write, comma-separated from html, pdf, ipynb (default: all three)",
            ),
            Flag(
                ("--timeout",),
                kind="int",
                metavar="SECONDS",
                help="stop a notebook cell that runs longer than this",
            ),
            Flag(
                ("--quiet",),
                action="store_true",
                help="no progress lines",
            ),
        ),
        "email": (
            Flag(
                ("report",),
                metavar="REPORT_DIR",
                help="a report folder written by reportgen run",
            ),
            Flag(
                ("--to",),
                action="append",
                required=True,
                metavar="ADDR",
                help="recipient (repeat for several); 'Name <addr>' is fine",
                group="the message",
            ),
            Flag(
                ("--cc",),
                action="append",
                default=(),
                metavar="ADDR",
                help="copy recipient (repeatable)",
                group="the message",
            ),
            Flag(
                ("--bcc",),
                action="append",
                default=(),
                metavar="ADDR",
                help="blind copy recipient (repeatable; not in the headers)",
                group="the message",
            ),
            Flag(
                ("--from",),
                dest="sender",
                required=True,
                metavar="ADDR",
                help="sender address",
                group="the message",
            ),
            Flag(
                ("--reply-to",),
                metavar="ADDR",
                help="Reply-To address",
                group="the message",
            ),
            Flag(
                ("--subject",),
                help="subject (default: title, release and the headline)",
                group="the message",
            ),
            Flag(
                ("--no-attach",),
                action="store_true",
                help="send the summary only, without report.html and report.pdf",
                group="the message",
            ),
            Flag(
                ("--email-items",),
                action="store_true",
                help=(
                    "a release: show the first lost items with their input and both outputs "
                    "in the message (by default it carries no item text, only where the "
                    "items are)"
                ),
                group="the message",
            ),
            Flag(
                ("--max-attachment-mb",),
                kind="float",
                default=10.0,
                metavar="MB",
                help=(
                    "largest size of the attachments as sent (default 10): above it only the "
                    "PDF is attached, then none, and the message says where the report folder "
                    "is"
                ),
                group="the message",
            ),
            Flag(
                ("--no-charts",),
                action="store_true",
                help="no inline PNG charts",
                group="the message",
            ),
            Flag(
                ("--max-rows",),
                kind="int",
                default=10,
                metavar="N",
                help="longest table in the summary (default 10)",
                group="the message",
            ),
            Flag(
                ("--theme",),
                default="default",
                metavar="NAME|DIR",
                help="chart theme of the inline charts (default: default)",
                group="the message",
            ),
            Flag(
                ("--eml",),
                metavar="FILE",
                help="write the message to FILE instead of sending it (a new file)",
                group="the message",
            ),
            Flag(
                ("--force",),
                action="store_true",
                help="replace the --eml file if it exists",
                group="the message",
            ),
            Flag(
                ("--smtp-host",),
                metavar="HOST",
                help="server (default: $REPORTGEN_SMTP_HOST, else localhost)",
                group="the SMTP server",
            ),
            Flag(
                ("--smtp-port",),
                kind="int",
                metavar="PORT",
                help=(
                    "port (default: $REPORTGEN_SMTP_PORT, else 25; 587 with --starttls; 465 "
                    "with --ssl)"
                ),
                group="the SMTP server",
            ),
            Flag(
                ("--starttls",),
                dest="security",
                action="store_const",
                const="starttls",
                help="upgrade the connection with STARTTLS",
                group="the SMTP server",
                exclusive="security",
            ),
            Flag(
                ("--ssl",),
                dest="security",
                action="store_const",
                const="ssl",
                help="TLS from the start (SMTPS)",
                group="the SMTP server",
                exclusive="security",
            ),
            Flag(
                ("--cafile",),
                metavar="FILE",
                help=(
                    "PEM bundle of the CA to verify the server with (a private CA); default: "
                    "the system's trust store"
                ),
                group="the SMTP server",
            ),
            Flag(
                ("--netrc",),
                metavar="FILE",
                help=(
                    "netrc file with the host's login and password (default: $NETRC, else ~/.netrc)"
                ),
                group="the SMTP server",
            ),
            Flag(
                ("--timeout",),
                kind="float",
                default=30.0,
                metavar="SECONDS",
                help=(
                    "seconds the whole SMTP exchange may take, from connecting to the last "
                    "reply (one total deadline; default 30)"
                ),
                group="the SMTP server",
            ),
            Flag(
                ("--quiet",),
                action="store_true",
                help="no progress lines",
                group="the SMTP server",
            ),
        ),
        "power": (
            Flag(
                ("--design",),
                required=True,
                choices=(
                    "paired-binary",
                    "unpaired-binary",
                    "paired-continuous",
                    "unpaired-continuous",
                ),
                help=(
                    "paired-binary: exact McNemar; unpaired-binary: two proportions; "
                    "paired/unpaired-continuous: t tests"
                ),
            ),
            Flag(
                ("--n",),
                kind="float",
                help="items (per system for unpaired designs)",
            ),
            Flag(
                ("--delta",),
                kind="float",
                help="difference of means (mean_a − mean_b)",
            ),
            Flag(
                ("--power",),
                kind="float",
                default=0.8,
                dest="target_power",
                help="target power (default 0.8)",
            ),
            Flag(
                ("--alpha",),
                kind="float",
                default=0.05,
                help="significance level",
            ),
            Flag(
                ("--alternative",),
                choices=ALTERNATIVES,
                default="two-sided",
                help="two-sided (default), or one-sided: greater (A above B) or less",
            ),
            Flag(
                ("--method",),
                default="auto",
                choices=(
                    "auto",
                    "exact",
                    "normal",
                    "pooled-z",
                    "arcsine",
                    "t",
                    "welch",
                    "pooled-t",
                ),
                help="auto: the test reportgen runs for the design",
            ),
            Flag(
                ("--accuracy-b",),
                kind="float",
                dest="accuracy_b",
                help="binary designs: accuracy of system B (the reference), in (0, 1)",
            ),
            Flag(
                ("--baseline",),
                kind="float",
                dest="accuracy_b",
                action="deprecated-alias",
                replaced_by="--accuracy-b",
                help="",
                hidden=True,
            ),
            Flag(
                ("--discordance",),
                kind="float",
                help="paired-binary: share of items the two systems disagree on",
            ),
            Flag(
                ("--correlation",),
                kind="float",
                help=(
                    "paired-binary: correlation (phi) between the systems' outcomes, instead of"
                    " --discordance"
                ),
            ),
            Flag(
                ("--sd",),
                kind="float",
                help=(
                    "continuous designs: SD of the differences (paired) or of the scores "
                    "(unpaired); default 1, so --delta is Cohen's d"
                ),
            ),
            Flag(
                ("--sd-b",),
                kind="float",
                help="unpaired-continuous: SD of system B's scores if different",
            ),
            Flag(
                ("--ratio",),
                kind="float",
                help="unpaired designs: items of B per item of A (default 1)",
            ),
            Flag(
                ("--json",),
                action="store_true",
                help="print the result as JSON",
            ),
        ),
    }
)


def command_flags(command: str) -> tuple[Flag, ...]:
    """The flags of ``command`` declared in :data:`COMMAND_FLAGS` (``data``: the data
    paths and ``--config`` every data-reading command takes), in declaration order."""
    return COMMAND_FLAGS[command]


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


def command_default(command: str, dest: str) -> Any:
    """The default of the flag of ``command`` (:data:`COMMAND_FLAGS`) whose destination
    is ``dest`` (``command_default("history", "title")``)."""
    found = [
        f
        for f in COMMAND_FLAGS[command]
        if (f.dest or f.names[0].lstrip("-").replace("-", "_")) == dest
    ]
    if len(found) != 1:
        raise KeyError(f"{command}: {dest!r} is {'not declared' if not found else 'ambiguous'}")
    return found[0].default


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

"""The ``reportgen`` command line: parse arguments, call the library, map errors to exit
codes. User errors (:class:`~reportgen.errors.ReportgenError`) print one message and exit
with status 2, without a traceback."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence

from reportgen import __version__
from reportgen.errors import ReportgenError, ReportgenWarning

__all__ = ["main"]

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _add_data_options(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    from reportgen.data.adapters import adapter_names

    parser.add_argument("data", nargs="+" if required else "*", metavar="DATA",
                        help="result files or folders (several are combined)")
    group = parser.add_argument_group("reading the data")
    group.add_argument("--format", choices=adapter_names(), default=None,
                       help="input format (default: detected from each file's content)")
    group.add_argument("--config", metavar="FILE", default=None,
                       help="TOML file of metric and dataset properties "
                            "(direction, modality, weight)")
    for name in ("system", "dataset", "metric", "item", "score", "run", "prediction",
                 "reference"):
        group.add_argument(f"--{name}-col", metavar="COL", default=name,
                           help=f"column holding the {name} in a long table "
                                f"(default: {name})")
    group.add_argument("--dataset", metavar="NAME", default=None,
                       help="dataset name for inputs without one (default: folder or "
                            "file name)")
    group.add_argument("--metric", metavar="NAME", default=None,
                       help="metric name for inputs without one (default: file name for "
                            "wide tables, 'score' for long ones)")
    group.add_argument("--lm-eval-filter", metavar="FILTER", default=None,
                       help="lm-evaluation-harness filter to use (default: the first "
                            "listed per task)")
    group.add_argument("--nan-policy", choices=("drop", "raise"), default="drop",
                       help="a missing score: drop the row and count it (default) or "
                            "stop with an error")


def _load(args: argparse.Namespace):
    from reportgen.data import LoadOptions, load

    options = LoadOptions(format=args.format, system_col=args.system_col,
                          dataset_col=args.dataset_col, metric_col=args.metric_col,
                          item_col=args.item_col, score_col=args.score_col,
                          run_col=args.run_col, prediction_col=args.prediction_col,
                          reference_col=args.reference_col, dataset=args.dataset,
                          metric=args.metric,
                          lm_eval_filter=args.lm_eval_filter, nan_policy=args.nan_policy)
    return load(args.data, options=options, config=args.config)


def _cmd_inspect(args: argparse.Namespace) -> int:
    from reportgen.report.inspect_view import format_summary

    table = _load(args)
    summary = table.summary()
    if args.json:
        json.dump(summary, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_summary(summary))
    return EXIT_OK


def _add_analysis_options(parser: argparse.ArgumentParser) -> None:
    from reportgen.stats.multiplicity import CORRECTIONS

    group = parser.add_argument_group("statistics")
    group.add_argument("--pairing", choices=("auto", "paired", "unpaired"), default="auto",
                       help="compare on shared items (paired) or not; auto: detected per "
                            "dataset × metric (default)")
    group.add_argument("--method", choices=("auto", "permutation", "bootstrap", "sign"),
                       default="auto",
                       help="auto: Welch t / two-proportion z / paired t / exact McNemar by "
                            "pairing and modality (default); permutation; null-shifted "
                            "bootstrap; sign test (paired)")
    group.add_argument("--order", choices=("all-pairs", "first-vs-rest", "successive"),
                       default="all-pairs", help="which pairs to compare (default: all)")
    group.add_argument("--baseline", metavar="SYSTEM", default=None,
                       help="the system the others are compared with under "
                            "--order first-vs-rest (default: the first)")
    group.add_argument("--alternative", choices=("two-sided", "greater", "less"),
                       default="two-sided",
                       help="greater: A is better than B (fix it before looking at the "
                            "data); default two-sided")
    group.add_argument("--correction", choices=CORRECTIONS, default="holm-sidak",
                       help="multiple-comparison correction (default holm-sidak)")
    group.add_argument("--correct-across", choices=("sample-list", "all"),
                       default="sample-list",
                       help="the family corrected together: each dataset × metric "
                            "(default) or every comparison of the analysis")
    group.add_argument("--alpha", type=float, default=0.05, help="significance level")
    group.add_argument("--confidence", type=float, default=0.95,
                       help="level of the confidence intervals (default 0.95)")
    group.add_argument("--n-resamples", type=int, default=9999, metavar="N",
                       help="permutation/bootstrap resamples (default 9999)")
    group.add_argument("--effect-threshold", choices=("small", "medium", "large"),
                       default="medium",
                       help="Cohen level an effect must reach to count as practically "
                            "relevant (default medium)")
    group.add_argument("--ci-method", choices=("auto", "wilson", "clopper-pearson", "t",
                                               "percentile", "bca"), default="auto",
                       help="interval of each system's mean: auto = Wilson for binary "
                            "scores, bootstrap BCa for continuous ones")
    group.add_argument("--corpus-metric", action="append", default=None, metavar="NAME",
                       dest="corpus_metrics",
                       help="corpus-level metric computed from prediction/reference "
                            "columns, repeatable (default: f1-macro); e.g. f1-micro, "
                            "f1-binary, precision-macro, recall-macro, accuracy")
    group.add_argument("--power", type=float, default=0.8, dest="target_power",
                       help="power for the minimum detectable effect of each dataset × "
                            "metric (default 0.8)")
    group.add_argument("--detect-delta", type=float, default=None, metavar="DELTA",
                       help="also report the items needed to detect this difference")
    group.add_argument("--cluster-by", metavar="COLUMN", default=None,
                       help="item-metadata column grouping items (e.g. a passage id): "
                            "adds cluster-robust intervals of each system's mean")
    group.add_argument("--group-by", action="append", default=None, metavar="COLUMN",
                       help="item-metadata column: also compare within each of its levels "
                            "(repeatable; seed 000 §10.1)")
    group.add_argument("--compare-by", action="append", default=None, metavar="ATTR",
                       help="hyperparameter (system attribute) to compare by pooling the "
                            "systems that share its value (repeatable; seed 000 §10.2)")
    group.add_argument("--condition-on", action="append", default=None, metavar="ATTR",
                       help="hyperparameter to condition on: --compare-by runs within each "
                            "of its values (repeatable)")
    group.add_argument("--seed", type=int, default=None,
                       help="random seed (default: drawn and recorded in the results)")


def _analysis_options(args: argparse.Namespace, defaults=None):
    """Options from the command line; ``defaults`` (the config's [analysis]) fill in
    the lists the command line leaves out."""
    from reportgen.analysis import AnalysisOptions

    defaults = defaults or {}

    def listed(name: str) -> tuple[str, ...]:
        given = getattr(args, name, None)
        return tuple(given) if given else tuple(defaults.get(name, ()))

    return AnalysisOptions(pairing=args.pairing, method=args.method, order=args.order,
                           baseline=args.baseline, alternative=args.alternative,
                           correction=args.correction, correct_across=args.correct_across,
                           alpha=args.alpha, confidence=args.confidence,
                           n_resamples=args.n_resamples,
                           effect_threshold=args.effect_threshold,
                           ci_method=args.ci_method,
                           corpus_metrics=tuple(args.corpus_metrics or ("f1-macro",)),
                           power=args.target_power, detect_delta=args.detect_delta,
                           cluster_by=args.cluster_by, group_by=listed("group_by"),
                           compare_by=listed("compare_by"),
                           condition_on=listed("condition_on"), seed=args.seed)


def _cmd_analyze(args: argparse.Namespace) -> int:
    from reportgen.analysis import analyze
    from reportgen.report.output import prepare_output_dir, write_json_atomic

    out = prepare_output_dir(args.out)
    _analysis_options(args)  # bad options fail before the data are read
    table = _load(args)
    options = _analysis_options(args, _config_analysis(args))
    analysis = analyze(table, options)
    results = analysis.to_results()
    path = write_json_atomic(out / "results.json", results)
    comparisons = results["comparisons"]
    significant = sum(1 for c in comparisons if c["significant"])
    sys.stdout.write(f"{len(comparisons)} comparisons in {len(analysis.sample_lists)} "
                     f"dataset × metric sample lists, {significant} significant at "
                     f"α = {options.alpha:g} ({options.correction}); seed {analysis.seed}\n"
                     f"wrote {path}\n")
    ordered = [r for r in results.get("rankings", []) if r.get("kind") == "ordered"]
    if ordered:
        from reportgen.report.ranking_text import ordering_line
        sys.stdout.write(ordering_line(ordered[0]) + "\n")
    return EXIT_OK


def _config_analysis(args: argparse.Namespace) -> dict:
    if not args.config:
        return {}
    from reportgen.data import load_config
    return dict(load_config(args.config).analysis)


def _cmd_compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from reportgen.analysis import analyze
    from reportgen.errors import InputError
    from reportgen.report.claims import claim_sentence

    a, b = args.a, args.b
    if not args.data:
        if not (Path(a).exists() and Path(b).exists()):
            raise InputError("give two result files, or two system names followed by the "
                             "data", hint="reportgen compare results_a.jsonl results_b.jsonl"
                                          "  or  reportgen compare SYS_A SYS_B DATA...")
        args.data = [a, b]
        table = _load(args)
        if len(table.systems) != 2:
            raise InputError(f"the two files hold {len(table.systems)} systems "
                             f"({', '.join(table.systems)}), not 2",
                             hint="name the two systems: reportgen compare SYS_A SYS_B "
                                  "DATA...")
        a, b = table.systems
    else:
        table = _load(args)
        for name in (a, b):
            if name not in table.systems:
                raise InputError(f"unknown system {name!r}",
                                 hint=f"systems: {', '.join(table.systems)}")
    from dataclasses import replace

    options = replace(_analysis_options(args), order="first-vs-rest", baseline=a,
                      systems=(a, b))
    analysis = analyze(table, options)
    if not analysis.sample_lists:
        raise InputError(f"{a} and {b} share no dataset × metric to compare")
    for row in analysis.comparisons():
        sys.stdout.write(claim_sentence(row, style=args.style) + "\n")
    return EXIT_OK


def _cmd_power(args: argparse.Namespace) -> int:
    from reportgen.errors import InputError
    from reportgen.report.power_text import power_sentence
    from reportgen.stats import power as pw

    common = dict(design=args.design, method=args.method, alternative=args.alternative,
                  alpha=args.alpha, baseline=args.baseline, discordance=args.discordance,
                  correlation=args.correlation, sd=args.sd, sd_b=args.sd_b,
                  ratio=args.ratio)
    if args.n is not None and args.delta is not None:
        result = pw.power_at(args.n, args.delta, **common)
    elif args.n is not None:
        result = pw.minimum_detectable_effect(args.n, power=args.target_power, **common)
    elif args.delta is not None:
        result = pw.required_n(args.delta, power=args.target_power, **common)
    else:
        raise InputError("give --n, --delta or both",
                         hint="--n N: the smallest difference N items detect; --delta D: "
                              "the items needed to detect D; both: the power")
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(power_sentence(result) + "\n")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reportgen",
        description="Statistically rigorous reports from per-item evaluation results.")
    parser.add_argument("--version", action="version", version=f"reportgen {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    inspect = commands.add_parser(
        "inspect", help="show what the data hold: systems, datasets, metrics, pairing, "
                        "problems",
        description="Read evaluation results and show the systems, datasets, metrics, "
                    "items, runs, pairing and modality found, and every problem.")
    _add_data_options(inspect)
    inspect.add_argument("--json", action="store_true",
                         help="print the summary as JSON instead of text")
    inspect.set_defaults(func=_cmd_inspect)

    analyze = commands.add_parser(
        "analyze", help="compare every pair of systems and write results.json",
        description="Run the statistical analysis (pairwise tests with effect sizes, "
                    "confidence intervals and multiple-comparison correction per dataset × "
                    "metric) and write OUT/results.json.")
    _add_data_options(analyze)
    analyze.add_argument("--out", required=True, metavar="DIR",
                         help="folder for results.json (created if missing)")
    _add_analysis_options(analyze)
    analyze.set_defaults(func=_cmd_analyze)

    compare = commands.add_parser(
        "compare", help="claim sentences for two systems",
        description="Compare two systems on every dataset × metric they share and print "
                    "one claim sentence each. Either two result files holding one system "
                    "each (reportgen compare a.jsonl b.jsonl) or two system names and the "
                    "data (reportgen compare SYS_A SYS_B DATA...).")
    compare.add_argument("a", metavar="A", help="first system name, or first result file")
    compare.add_argument("b", metavar="B", help="second system name, or second result file")
    _add_data_options(compare, required=False)
    compare.add_argument("--style", choices=("plain", "markdown", "latex"), default="plain",
                         help="sentence format (default plain)")
    _add_analysis_options(compare)
    compare.set_defaults(func=_cmd_compare)

    power = commands.add_parser(
        "power", help="power, minimum detectable effect, or items needed",
        description="Power analysis before (or after) an evaluation. --n and --delta: the "
                    "power; --n alone: the smallest difference detected with --power; "
                    "--delta alone: the items needed. Differences are in score units "
                    "(accuracy differences for binary designs, e.g. 0.03 = 3 points).")
    power.add_argument("--design", required=True,
                       choices=("paired-binary", "unpaired-binary", "paired-continuous",
                                "unpaired-continuous"),
                       help="paired-binary: exact McNemar; unpaired-binary: two "
                            "proportions; paired/unpaired-continuous: t tests")
    power.add_argument("--n", type=float, default=None,
                       help="items (per system for unpaired designs)")
    power.add_argument("--delta", type=float, default=None,
                       help="difference of means (mean_a − mean_b)")
    power.add_argument("--power", type=float, default=0.8, dest="target_power",
                       help="target power (default 0.8)")
    power.add_argument("--alpha", type=float, default=0.05, help="significance level")
    power.add_argument("--alternative", choices=("two-sided", "greater", "less"),
                       default="two-sided")
    power.add_argument("--method", default="auto",
                       choices=("auto", "exact", "normal", "pooled-z", "arcsine", "t",
                                "welch", "pooled-t"),
                       help="auto: the test reportgen runs for the design")
    power.add_argument("--baseline", type=float, default=None,
                       help="accuracy of system B (binary designs)")
    power.add_argument("--discordance", type=float, default=None,
                       help="paired-binary: share of items the two systems disagree on")
    power.add_argument("--correlation", type=float, default=None,
                       help="paired-binary: correlation (phi) between the systems' "
                            "outcomes, instead of --discordance")
    power.add_argument("--sd", type=float, default=None,
                       help="continuous designs: SD of the differences (paired) or of "
                            "the scores (unpaired); default 1, so --delta is Cohen's d")
    power.add_argument("--sd-b", type=float, default=None,
                       help="unpaired-continuous: SD of system B's scores if different")
    power.add_argument("--ratio", type=float, default=None,
                       help="unpaired designs: items of B per item of A (default 1)")
    power.add_argument("--json", action="store_true", help="print the result as JSON")
    power.set_defaults(func=_cmd_power)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", ReportgenWarning)
            warnings.showwarning = _show_warning
            return int(args.func(args))
    except ReportgenError as exc:
        sys.stderr.write(f"reportgen: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("reportgen: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `reportgen inspect ... | head`
        sys.stderr.close()
        return EXIT_OK


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    sys.stderr.write(f"reportgen: warning: {message}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def main_entry() -> None:
    """Console-script entry point: exit with :func:`main`'s status."""
    sys.exit(main())

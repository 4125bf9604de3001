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


def _add_data_options(parser: argparse.ArgumentParser) -> None:
    from reportgen.data.adapters import adapter_names

    parser.add_argument("data", nargs="+", metavar="DATA",
                        help="result files or folders (several are combined)")
    group = parser.add_argument_group("reading the data")
    group.add_argument("--format", choices=adapter_names(), default=None,
                       help="input format (default: detected from each file's content)")
    group.add_argument("--config", metavar="FILE", default=None,
                       help="TOML file of metric and dataset properties "
                            "(direction, modality, weight)")
    for name in ("system", "dataset", "metric", "item", "score", "run"):
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
                          run_col=args.run_col, dataset=args.dataset, metric=args.metric,
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

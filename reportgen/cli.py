"""The ``reportgen`` command line: parse arguments, call the library, map errors to exit
codes. User errors (:class:`~reportgen.errors.ReportgenError`) print one message and exit
with status 2, without a traceback."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from reportgen import __version__
from reportgen import config as declared
from reportgen.errors import ReportgenError, ReportgenWarning
from reportgen.names import INPUT_FORMATS
from reportgen.plaintext import count, shown

if TYPE_CHECKING:
    from reportgen.analysis.release import ReleaseComparison

__all__ = ["main"]

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_CHANGED = 1
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


def _add_declared(
    group: argparse._ArgumentGroup,
    section: declared.Section,
    *,
    skip: tuple[str, ...] = (),
    flags: Mapping[str, str] | None = None,
) -> None:
    """The flags of the options of ``section`` declared in :mod:`reportgen.config`, in
    declaration order; a flag not given is None (the config file's value or the declared
    default applies, :func:`reportgen.config.resolve`)."""
    for option in declared.options(section):
        if option.flag is None or option.key in skip:
            continue
        flag = (flags or {}).get(option.key, option.flag)
        kwargs: dict[str, Any] = dict(dest=option.key, default=None, help=option.help_text)
        if option.kind == "flag":
            kwargs["action"] = "store_true"
        else:
            kwargs["metavar"] = option.metavar
            if option.kind == "choice":
                kwargs["choices"] = option.choices
            elif option.kind == "adapter":
                kwargs["choices"] = INPUT_FORMATS
            elif option.kind in ("texts", "names"):
                kwargs["action"] = "append"
            elif option.kind == "name-list":
                kwargs["type"] = _name_list
            elif option.kind in ("unit", "nonzero"):
                kwargs["type"] = float
            elif option.kind in ("count", "seed"):
                kwargs["type"] = int
        group.add_argument(flag, **kwargs)


def _add_flags(
    parser: argparse.ArgumentParser,
    command: str,
    groups: dict[str | None, Any] | None = None,
) -> None:
    """The flags of ``command`` declared in :data:`reportgen.config.COMMAND_FLAGS`, into
    their argument groups (``groups`` maps a title to a group made before)."""
    groups = {None: parser} if groups is None else {None: parser, **groups}
    exclusive: dict[str, Any] = {}
    types = {"int": int, "float": float, "name-list": _name_list, "formats": _formats}
    for flag in declared.command_flags(command):
        if flag.group not in groups:
            groups[flag.group] = parser.add_argument_group(flag.group)
        target = groups[flag.group]
        if flag.exclusive is not None:
            if flag.exclusive not in exclusive:
                exclusive[flag.exclusive] = target.add_mutually_exclusive_group()
            target = exclusive[flag.exclusive]
        kwargs: dict[str, Any] = {"help": argparse.SUPPRESS if flag.hidden else flag.help}
        for key in ("dest", "choices", "metavar", "nargs", "const"):
            if getattr(flag, key) is not None:
                kwargs[key] = getattr(flag, key)
        if flag.required:
            kwargs["required"] = True
        if flag.kind is not None:
            kwargs["type"] = types[flag.kind]
        if flag.action == "deprecated-alias":
            kwargs.update(action=_DeprecatedAlias, new=flag.replaced_by)
        elif flag.action is not None:
            kwargs["action"] = flag.action
        default = flag.default
        if flag.action == "append" and isinstance(default, tuple):
            default = list(default)  # argparse appends to a copy of the default
        if default is not None or flag.action == "append":
            kwargs["default"] = default
        target.add_argument(*flag.names, **kwargs)


def _add_data_options(parser: argparse.ArgumentParser, *, format_flag: str = "--format") -> None:
    group = parser.add_argument_group("reading the data")
    _add_flags(parser, "data", {"reading the data": group})
    _add_declared(group, "input", flags={"format": format_flag})


def _given(args: argparse.Namespace, section: declared.Section) -> dict[str, Any]:
    """The values the command line gave for the options of ``section`` declared in
    :mod:`reportgen.config` (None: not given), by key: what
    :func:`reportgen.report.runspec.resolve_run` resolves, once, with the config file
    and the declared defaults."""
    return {
        o.key: getattr(args, o.key)
        for o in declared.options(section)
        if o.flag is not None and o.key != "quiet" and hasattr(args, o.key)
    }


def _spec(
    args: argparse.Namespace,
    *,
    release_report: bool | None = False,
    report: bool = False,
    margins: Mapping[str, float] | None = None,
    require_data: bool = True,
):
    """The run specification of a command (:func:`reportgen.report.runspec.resolve_run`):
    its data, the config file read once, and every option resolved into typed values
    before any work. ``require_data=False`` (``compare``): the data are the ones given,
    never the config's ``[input] data``."""
    from reportgen.report.runspec import resolve_run

    return resolve_run(
        (args.data or None) if require_data else tuple(args.data),
        config=args.config,
        load=_given(args, "input"),
        analysis={**_given(args, "analysis"), "margins": margins},
        report=_given(args, "report") if report else None,
        release_report=release_report,
        require_data=require_data,
    )


def _cmd_inspect(args: argparse.Namespace) -> int:
    from reportgen.data import load
    from reportgen.report.render.inspect_view import format_summary
    from reportgen.report.runspec import resolve_inputs

    data, config, options = resolve_inputs(
        args.data or None, config=args.config, load=_given(args, "input")
    )
    # how one system's results were read is useful too
    table = load(data, options=options, config=config, min_systems=1)
    summary = table.summary()
    if args.json:
        json.dump(summary, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_summary(summary))
    return EXIT_OK


def _add_analysis_options(parser: argparse.ArgumentParser) -> None:
    _add_declared(parser.add_argument_group("statistics"), "analysis", skip=_EXECUTION_KEYS)
    run_on = parser.add_argument_group(
        "execution", "where the dataset × metric units run; the results are the same"
    )
    _add_declared(run_on, "analysis", skip=_STATISTICS_KEYS)


#: The ``[analysis]`` options that say where the work runs, and those that say what is
#: computed (the :class:`reportgen.analysis.AnalysisOptions` fields).
_EXECUTION_KEYS = tuple(o.key for o in declared.options("analysis") if o.execution)
_STATISTICS_KEYS = tuple(o.key for o in declared.options("analysis") if not o.execution)


def _cmd_analyze(args: argparse.Namespace) -> int:
    from reportgen.report.pipeline import analyze_into

    done = analyze_into(
        _spec(args),  # bad options fail here, before any work
        args.out,
        force=args.force,
        if_exists=args.if_exists,
        progress=_to_stderr,
    )
    analysis, path = done.analysis, done.out / "results.json"
    ledger = analysis.ledger
    sys.stdout.write(
        f"{count(ledger.n_comparisons, 'comparison')} in "
        f"{count(len(ledger.compared), 'dataset × metric sample list')}, "
        f"{ledger.n_significant:,} significant ({ledger.family.describe()}); "
        f"seed {analysis.seed}\n"
        f"wrote {path}\n"
    )
    if ledger.battles:
        from reportgen.analysis.ledger.words import battles_lines

        sys.stdout.write("".join(f"{line.plain()}\n" for line in battles_lines(ledger.battles)))
    by_name = [m for m, info in analysis.table.metrics.items() if info.direction_source == "name"]
    if by_name:
        from reportgen.data._table import direction_note

        _to_stderr(f"reportgen: note: {direction_note(by_name)}")
    _unit_notes(
        [(u.name, u.degenerate_reason) for u in ledger.units if u.degenerate_reason]
        + [(u.name, u.skewed_note) for u in ledger.units if u.skewed_note]
    )
    if ledger.ranking is not None:
        from reportgen.analysis.ledger.words import ordering_line

        sys.stdout.write(ordering_line(ledger.ranking).plain() + "\n")
    return EXIT_OK


def _cmd_compare(args: argparse.Namespace) -> int:
    """Two systems on every dataset × metric they share: one claim each, the better
    system first when significant, with the family its p-values were adjusted in."""
    from reportgen.report.prepared import compare_two

    # the data given, or none (two result files): never the config's [input] data
    analysis = compare_two(args.a, args.b, _spec(args, require_data=False))
    ledger = analysis.ledger
    sys.stdout.write(f"family: {ledger.family.describe()}\n")
    for unit in ledger.compared:
        claims = unit.claims
        assert claims is not None
        for claim in claims:
            sys.stdout.write(claim.sentence().styled(args.style) + "\n")
    return EXIT_OK


def _cmd_power(args: argparse.Namespace) -> int:
    from reportgen.analysis import planning as pw
    from reportgen.errors import InputError
    from reportgen.report.render.power_text import power_sentence

    if args.n is None and args.delta is None:
        raise InputError(
            "give --n, --delta or both",
            hint="--n N: the smallest difference N items detect; --delta D: "
            "the items needed to detect D; both: the power",
        )
    design = pw.PowerDesign(
        args.design,
        method=args.method,
        alternative=args.alternative,
        alpha=args.alpha,
        baseline=args.accuracy_b,
        discordance=args.discordance,
        correlation=args.correlation,
        sd=args.sd,
        sd_b=args.sd_b,
        ratio=args.ratio,
    )
    if args.n is not None and args.delta is not None:
        result = pw.power_at(args.n, args.delta, design=design)
    elif args.n is not None:
        result = pw.minimum_detectable_effect(args.n, power=args.target_power, design=design)
    else:
        result = pw.required_n(args.delta, power=args.target_power, design=design)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(power_sentence(result) + "\n")
    return EXIT_OK


def _cmd_run(args: argparse.Namespace) -> int:
    from reportgen.report.pipeline import WarmKernel, run_report

    # the notebook's kernel starts first: its start overlaps the imports and the data
    kernel = WarmKernel()
    try:
        # as the template says: a release template compares a release
        spec = _spec(args, release_report=None, report=True, margins=_margins(args))
    except BaseException:
        kernel.close(now=True)  # bad options: it ran nothing
        raise
    try:
        progress = _progress_printer(quiet=bool(args.quiet))
        result = run_report(spec, progress=progress, kernel=kernel)
    finally:
        kernel.close()  # run_report closed it already (closing twice is safe)
    sys.stdout.write(f"report: {result.out}/ ({', '.join(result.files)}); seed {result.seed}\n")
    # units that are results, not errors: said as analyze says them
    ledger = result.ledger
    if ledger is not None:
        _unit_notes([(u.name, u.degenerate_reason) for u in ledger.units if u.degenerate_reason])
    gate = spec.report.gate
    if ledger is not None and ledger.release is not None:
        return _release_gate(ledger.release, gate=gate, allow_partial=spec.report.allow_partial)
    if gate is not None:
        sys.stderr.write(
            f"reportgen: warning: --gate {gate} needs a release report "
            "(--template release); nothing was checked\n"
        )
    return EXIT_OK


def _margins(args: argparse.Namespace) -> dict[str, float] | None:
    """``--margin DELTA`` (every metric) and ``--margin METRIC=DELTA`` (one metric, which
    wins), as the ``margins`` analysis option; None when not given."""
    from reportgen.errors import InputError

    if not args.margin:
        return None
    out: dict[str, float] = {}
    for text in args.margin:
        metric, sep, value = str(text).rpartition("=")
        metric = metric.strip() if sep else "*"
        if sep and not metric:
            raise InputError(
                f"--margin {text!r} names no metric",
                hint="write --margin DELTA or --margin METRIC=DELTA",
            )
        try:
            delta = float(value)
        except ValueError:
            raise InputError(
                f"--margin {text!r}: {value!r} is not a number",
                hint="write --margin DELTA or --margin METRIC=DELTA, e.g. "
                "--margin 0.01 or --margin pass1=0.02",
            ) from None
        if not (math.isfinite(delta) and delta > 0):
            raise InputError(
                f"--margin {text!r}: the margin must be a positive number",
                hint="in the metric's units, e.g. 0.01 for one point of accuracy",
            )
        if metric in out:
            raise InputError(
                f"--margin is given twice for {'every metric' if metric == '*' else repr(metric)}"
            )
        out[metric] = delta
    return out


def _release_gate(comparison: ReleaseComparison, *, gate: str | None, allow_partial: bool) -> int:
    """Say the release decision and each verdict with the numbers it is read off
    (stdout), every dataset × metric not compared (stderr), and the exit status of the
    gate: ``regression`` fails (1) on a significant regression, ``non-inferiority``
    unless every dataset × metric compared is improved or non-inferior; both fail when
    anything was not compared unless ``--allow-partial``."""
    from reportgen.analysis.ledger.words import release_decision, verdict_pieces

    counts = comparison.counts
    sys.stdout.write(f"decision: {release_decision(comparison).plain()}\n")
    tallies = [
        f"{counts[v]} {v}"
        for v in ("improved", "regressed", "non-inferior", "inconclusive")
        if counts[v] or v in ("improved", "regressed")
    ]
    sys.stdout.write(
        f"verdict: {', '.join(tallies)}, {counts['no detectable difference']} "
        f"with no detectable difference, {len(comparison.not_compared)} not "
        "compared\n"
    )
    for v in comparison.verdicts:
        parts, flags = verdict_pieces(v)
        tail = f" ({flags})" if flags else ""
        sys.stdout.write(shown(f"  {v.name}: {v.verdict}: {'; '.join(parts)}{tail}") + "\n")
    flips = comparison.flips
    if len(flips) <= 3:
        for flip in flips:
            sys.stdout.write(
                f"items: {shown(flip.name)}: lost {flip.n_lost}, gained {flip.n_gained} "
                f"of {flip.n_items}\n"
            )
    else:  # one line, not one per dataset × metric; each is in tables/flips.csv
        lost, gained = sum(f.n_lost for f in flips), sum(f.n_gained for f in flips)
        sys.stdout.write(
            f"items: lost {lost:,}, gained {gained:,} over "
            f"{count(len(flips), 'dataset × metric')} (each in tables/flips.csv)\n"
        )
    for entry in comparison.not_compared:
        closest = f" (closest names there: {', '.join(entry.closest)})" if entry.closest else ""
        sys.stderr.write(
            f"reportgen: warning: not compared: {shown(f'{entry.name}: {entry.reason}{closest}')}\n"
        )
    for part in comparison.partial:
        sys.stderr.write(f"reportgen: warning: partial: {part.name}: {part.reason}\n")
    if gate is None:
        return EXIT_OK
    sys.stdout.write(f"gate {gate}: {comparison.gate_guarantee(gate)}\n")  # type: ignore[arg-type]
    failures = comparison.gate_failures(gate, allow_partial=allow_partial)  # type: ignore[arg-type]
    if not failures:
        sys.stdout.write(f"gate {gate}: passed\n")
        return EXIT_OK
    for line in failures:
        sys.stderr.write(f"reportgen: gate {gate}: {shown(line)}\n")
    extra = (
        "; give the missing scores, or pass --allow-partial to judge only what was compared"
        if (comparison.not_compared or comparison.partial) and not allow_partial
        else ""
    )
    sys.stderr.write(
        f"reportgen: the release does not pass --gate {gate} "
        f"({count(len(failures), 'reason')}){extra}\n"
    )
    return EXIT_REGRESSION


def _cmd_verify(args: argparse.Namespace) -> int:
    from reportgen.report.folder.verify import verify_report

    status = EXIT_OK
    for folder in args.reports:
        result = verify_report(folder)
        for finding in result.findings:
            sys.stdout.write(f"{shown(folder)}: {shown(finding.line())}\n")
        if result.ok:
            sys.stdout.write(
                f"{folder}: ok ({count(result.n_inputs, 'input')} and "
                f"{count(result.n_outputs, 'report file')} unchanged)\n"
            )
            summary = _folder_summary(folder)
            if summary is not None:  # what the unchanged results.json holds
                sys.stdout.write(f"{shown(folder)}: {summary}\n")
        else:
            status = EXIT_CHANGED
    return status


def _folder_summary(folder: str) -> str | None:
    """A report folder's claims in one line (the ledger's :func:`summary_line`), read
    back through the typed reader; None for a folder without results.json (a history)."""
    from pathlib import Path

    from reportgen.analysis.ledger.words import summary_line
    from reportgen.report.folder.reader import read_report_folder

    if not (Path(folder) / "results.json").is_file():
        return None
    return summary_line(read_report_folder(folder).ledger).plain()


def _cmd_history(args: argparse.Namespace) -> int:
    from reportgen.report.history import HistorySpec, run_history

    spec = HistorySpec(
        reports=tuple(args.reports),
        out=args.out,
        order=args.order,
        follow=tuple(args.follow),
        references=tuple(args.references),
        recompute=args.recompute,
        title=args.title,
        theme=args.theme,
        formats=_formats(args.formats) if args.formats else declared.REPORT_FORMATS,
        force=args.force,
        if_exists=args.if_exists,
        execution_timeout=args.timeout,
        allow_edited=args.allow_edited,
    )
    result = run_history(spec, progress=_progress_printer(quiet=args.quiet))
    sys.stdout.write(
        f"history: {result.out}/ ({', '.join(result.files)})\n"
        f"releases: {' → '.join(result.order)}; {result.n_changes} changes "
        f"tested, {result.n_flagged} significant\n"
    )
    for line in result.warnings:  # kept by --allow-edited: said on every output
        sys.stderr.write(f"reportgen: warning: {shown(line)} (--allow-edited)\n")
    return EXIT_OK


def _cmd_email(args: argparse.Namespace) -> int:
    from reportgen.report.mail import send_report

    sent = send_report(
        args.report,
        sender=args.sender,
        to=args.to,
        cc=args.cc,
        bcc=args.bcc,
        subject=args.subject,
        reply_to=args.reply_to,
        attach=not args.no_attach,
        max_rows=args.max_rows,
        email_items=args.email_items,
        charts=not args.no_charts,
        theme=args.theme,
        max_attachment_mb=args.max_attachment_mb,
        eml=args.eml,
        force=args.force,
        smtp=dict(
            host=args.smtp_host,
            port=args.smtp_port,
            security=args.security,
            timeout=args.timeout,
            cafile=args.cafile,
            netrc_file=args.netrc,
        ),
        progress=_progress_printer(quiet=args.quiet),
    )
    if sent.eml is not None:
        sys.stdout.write(
            f"message written to {sent.eml} ({sent.eml_bytes:,} bytes): {sent.subject}\n"
        )
        return EXIT_OK
    bcc = f" and {count(sent.n_bcc, 'Bcc recipient')}" if sent.n_bcc else ""
    sys.stdout.write(
        f"sent to {', '.join(sent.recipients)}{bcc} via {sent.server}: {sent.subject}\n"
    )
    return EXIT_OK


def _name_list(text: str) -> tuple[str, ...]:
    """A comma-separated list of names (``--rank-lists humaneval,mbpp``)."""
    from reportgen.errors import InputError

    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise InputError(
            f"{text!r} names nothing",
            hint="give comma-separated dataset names, e.g. humaneval,mbpp",
        )
    return names


def _formats(text: str) -> tuple[str, ...]:
    """A comma-separated list of report formats (``--format html,pdf``)."""
    from reportgen.report.runspec import parse_formats

    return parse_formats(text)


def _unit_notes(notes: Sequence[tuple[str, str]], *, shown_names: int = 3) -> None:
    """One stderr line per distinct note on dataset × metrics (degenerate or skewed
    comparisons), naming the unit when it is alone and counting them otherwise, as
    warnings are tallied: 60 datasets with identical systems make one line."""
    by_text: dict[str, list[str]] = {}
    for name, text in notes:
        by_text.setdefault(text, []).append(name)
    for text, names in by_text.items():
        if len(names) == 1:
            _to_stderr(f"reportgen: note: {names[0]}: {text}")
        else:
            more = ", …" if len(names) > shown_names else ""
            _to_stderr(
                f"reportgen: note: {len(names)} dataset × metrics "
                f"({', '.join(names[:shown_names])}{more}): {text}"
            )


def _to_stderr(message: str) -> None:
    sys.stderr.write(f"{shown(message)}\n")


def _progress_printer(*, quiet: bool):
    """Progress lines on stderr with the time since the start."""
    import time

    start = time.perf_counter()

    def say(message: str) -> None:
        _check_interrupted()  # a Ctrl-C a finalizer swallowed stops the run here
        if not quiet:
            sys.stderr.write(f"[{time.perf_counter() - start:6.1f}s] {shown(message)}\n")
            sys.stderr.flush()

    return say


#: The sub-command registry of the parser (``argparse``'s own type).
_Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reportgen",
        description="Statistically rigorous reports from per-item evaluation results.",
    )
    parser.add_argument("--version", action="version", version=f"reportgen {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_inspect_command(commands)
    _add_analyze_command(commands)
    _add_compare_command(commands)
    _add_run_command(commands)
    _add_verify_command(commands)
    _add_history_command(commands)
    _add_email_command(commands)
    _add_power_command(commands)
    return parser


def _add_inspect_command(commands: _Commands) -> None:
    """``reportgen inspect``: show the data."""
    inspect = commands.add_parser(
        "inspect",
        help="show what the data hold: systems, datasets, metrics, pairing, problems",
        description="Read evaluation results and show the systems, datasets, metrics, "
        "items, runs, pairing and modality found, and every problem.",
    )
    _add_data_options(inspect)
    _add_flags(inspect, "inspect")
    inspect.set_defaults(func=_cmd_inspect)


def _add_analyze_command(commands: _Commands) -> None:
    """``reportgen analyze``: write results.json."""
    analyze = commands.add_parser(
        "analyze",
        help="compare every pair of systems and write results.json",
        description="Run the statistical analysis (pairwise tests with effect sizes, "
        "confidence intervals and multiple-comparison correction per dataset × "
        "metric) and write OUT/results.json.",
    )
    _add_data_options(analyze)
    _add_flags(analyze, "analyze")
    _add_analysis_options(analyze)
    analyze.set_defaults(func=_cmd_analyze)


def _add_compare_command(commands: _Commands) -> None:
    """``reportgen compare``: claim sentences for two systems."""
    compare = commands.add_parser(
        "compare",
        help="claim sentences for two systems",
        description="Compare two systems on every dataset × metric they share and print "
        "one claim sentence each. Either two result files holding one system "
        "each (reportgen compare a.jsonl b.jsonl) or two system names and the "
        "data (reportgen compare SYS_A SYS_B DATA...).",
    )
    _add_flags(compare, "compare")
    _add_data_options(compare)
    _add_analysis_options(compare)
    compare.set_defaults(func=_cmd_compare)


def _add_run_command(commands: _Commands) -> None:
    """``reportgen run``: the full report."""
    run = commands.add_parser(
        "run",
        help="make the full report: notebook, HTML, PDF, results.json, manifest",
        description="Execute a notebook template with papermill on the data and export a "
        "self-contained HTML, a PDF, the executed notebook, results.json, "
        "tables/*.csv and manifest.json into one report folder, written "
        "atomically. Every flag can also be set in the --config file "
        "([input], [analysis], [report]); a flag given here wins.",
    )
    _add_data_options(run, format_flag="--input-format")
    group = run.add_argument_group("the report")
    _add_declared(group, "report")
    _add_flags(run, "run", {"the report": group})
    _add_analysis_options(run)
    run.set_defaults(func=_cmd_run)


def _add_verify_command(commands: _Commands) -> None:
    """``reportgen verify``: check a report folder against its manifest."""
    verify = commands.add_parser(
        "verify",
        help="check a report folder against its manifest",
        description="Re-hash the inputs a report was made from and the files it wrote, "
        "as listed in its manifest.json, and say what changed, what is "
        "missing and what was added. Exit status 0: nothing changed; 1: "
        "something did; 2: not a report folder.",
    )
    _add_flags(verify, "verify")
    verify.set_defaults(func=_cmd_verify)


def _add_history_command(commands: _Commands) -> None:
    """``reportgen history``: a trend report across releases."""
    history = commands.add_parser(
        "history",
        help="trend report of a model across archived release reports",
        description="Read the results.json of archived report folders (one per release), "
        "order them by release label (v2 < v10) or date, and write a trend "
        "report: per dataset × metric the followed system's mean with its "
        "interval per release, and the change between consecutive releases "
        "flagged when significant (the test stored in a report, else "
        "recomputed from the per-item data when it is still there and "
        "unchanged, else approximated from the intervals). The followed "
        "system of a report is its release candidate, or the system named "
        "like its release, or --system.",
    )
    _add_flags(history, "history")
    history.set_defaults(func=_cmd_history)


def _add_email_command(commands: _Commands) -> None:
    """``reportgen email``: send a report."""
    email = commands.add_parser(
        "email",
        help="e-mail a report: a summary in the body, the report attached",
        description="Send a report folder by e-mail (or write it to a .eml file with "
        "--eml): a plain-text and an HTML summary (headline verdicts, "
        "leaderboard, PNG charts inline by Content-ID), with report.html and "
        "report.pdf attached. Credentials are read from the environment "
        "(REPORTGEN_SMTP_USER, REPORTGEN_SMTP_PASSWORD) or from the host's "
        "entry in a netrc file, never from the command line, and are sent "
        "only over TLS. SMTP failures exit with status 2; nothing is retried.",
    )
    _add_flags(email, "email")
    email.set_defaults(func=_cmd_email, security="none")


def _add_power_command(commands: _Commands) -> None:
    """``reportgen power``: power analysis."""
    power = commands.add_parser(
        "power",
        help="power, minimum detectable effect, or items needed",
        description="Power analysis before (or after) an evaluation. --n and --delta: the "
        "power; --n alone: the smallest difference detected with --power; "
        "--delta alone: the items needed. Differences are in score units "
        "(accuracy differences for binary designs, e.g. 0.03 = 3 points).",
    )
    _add_flags(power, "power")
    power.set_defaults(func=_cmd_power)


class _DeprecatedAlias(argparse.Action):
    """An old flag name kept for one version: it sets the new flag's value and says on
    stderr which name to use."""

    def __init__(self, *args: Any, new: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        sys.stderr.write(
            f"reportgen: warning: {option_string} is deprecated here and will be removed "
            f"in the next version; use {self.new}\n"
        )
        setattr(namespace, self.dest, values)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that half-written output is removed on the way."""


def _on_sigterm(signum, frame) -> None:
    global _INTERRUPTED
    _INTERRUPTED = _Terminated
    raise _Terminated


def _on_sigint(signum, frame) -> None:
    global _INTERRUPTED
    _INTERRUPTED = KeyboardInterrupt
    raise KeyboardInterrupt


#: The stop a signal asked for (KeyboardInterrupt or _Terminated), once one came. Python
#: swallows an exception raised while a finalizer runs (a ``__del__``, a weak
#: reference's callback: "Exception ignored in ..."), so a Ctrl-C that lands there would
#: be lost and the run go on to write its report; the progress callbacks raise it again
#: (:func:`_check_interrupted`), and the unraisable hook keeps its traceback off stderr.
_INTERRUPTED: type[KeyboardInterrupt] | None = None


def _check_interrupted() -> None:
    """Raise the stop a signal asked for, if a finalizer swallowed it."""
    if _INTERRUPTED is not None:
        raise _INTERRUPTED


def _unraisable(hook: Any) -> Any:
    def unraisable(info: Any) -> None:
        if issubclass(info.exc_type, KeyboardInterrupt):
            return  # a Ctrl-C that landed in a finalizer: acted on, never a traceback
        hook(info)

    return unraisable


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Ctrl-C (SIGINT) exits with status 130 and SIGTERM with 143, after removing any
    report folder being built (nothing half-written stays behind). Everything written to
    the terminal goes through :func:`terminal_safe`.
    """
    out, err = sys.stdout, sys.stderr
    sys.stdout = _SafeStream(out, cut=bool(getattr(out, "isatty", lambda: False)()))
    sys.stderr = _SafeStream(err, cut=True)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: Sequence[str] | None) -> int:
    import signal
    import threading

    parser = build_parser()
    args = parser.parse_args(argv)
    previous: dict[int, Any] = {}
    global _TALLY, _INTERRUPTED
    _INTERRUPTED = None
    if threading.current_thread() is threading.main_thread():
        # SIGTERM, and a closed terminal (SIGHUP): the same clean exit as Ctrl-C
        for name in ("SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is not None:
                previous[number] = signal.signal(number, _on_sigterm)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            previous[signal.SIGINT] = signal.signal(signal.SIGINT, _on_sigint)
    hook = sys.unraisablehook
    sys.unraisablehook = _unraisable(hook)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", ReportgenWarning)
            warnings.showwarning = _show_warning
            _TALLY = _WarningTally()
            try:
                return int(args.func(args))
            finally:
                tally, _TALLY = _TALLY, None
                tally.flush(sys.stderr)
    except _Terminated:
        _quiet_after_interrupt()
        sys.stderr.write("reportgen: terminated\n")
        return EXIT_TERMINATED
    except ReportgenError as exc:
        sys.stderr.write(f"reportgen: error: {exc}\n")
        # a failed report notebook is a run failure (1), not bad input (2); its module
        # is loaded when it was raised, and not before (the CLI starts light)
        pipeline = sys.modules.get("reportgen.report.pipeline")
        failed = pipeline is not None and isinstance(exc, pipeline.NotebookExecutionError)
        return EXIT_FAILED if failed else EXIT_USAGE
    except KeyboardInterrupt:
        _quiet_after_interrupt()
        sys.stderr.write("reportgen: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `reportgen inspect ... | head`
        sys.stderr.close()
        return EXIT_OK
    except OSError as exc:  # a full disk, no permission, ...: the user's to fix
        from reportgen.errors import file_system_error, is_file_system_error

        if not is_file_system_error(exc):
            raise
        sys.stderr.write(f"reportgen: error: {file_system_error(exc, reading=None)}\n")
        return EXIT_USAGE
    finally:
        sys.unraisablehook = hook
        for number, handler in previous.items():
            signal.signal(number, handler)


def _quiet_after_interrupt() -> None:
    """After Ctrl-C, the notebook client's cell task that was cut short is collected
    later and asyncio would log it with the kernel's whole traceback ("Task exception
    was never retrieved"): the user asked to stop, so nothing more is said."""
    import logging

    logging.getLogger("asyncio").setLevel(logging.CRITICAL)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    # one line per warning, whatever names it holds; during a command, one per kind
    if _TALLY is not None:
        _TALLY.add(str(message), category, f"{filename}:{lineno}")
    else:
        sys.stderr.write(f"reportgen: warning: {shown(message)}\n")


#: A quoted name or a number in a warning: what varies between warnings of one kind.
_VARYING = re.compile(r"'[^']*'|\"[^\"]*\"|\d[\d,.]*")
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")
_TOKEN = re.compile(r"[^\s,;:()\[\]]+")
#: Names listed for a kind of warning before "…".
FIRST_NAMES = 3


class _WarningTally:
    """The warnings of one command, one line per kind when it ends, said once with how
    many times it came and the first few names it came with (1,000 degenerate datasets
    give one line, not 3,789). A kind is the category and the place in the code that
    warned (``where``: the same check, whatever the dataset) with the first three words
    of the message; without a place, the message with its quoted names and numbers
    left out. The names are the quoted ones,
    else the words a warning has that the first of its kind has not."""

    def __init__(self) -> None:
        self.kinds: dict[tuple[type, str], tuple[str, list[int], list[str]]] = {}

    def add(self, message: str, category: type, where: str | None = None) -> None:
        shape = _VARYING.sub("…", message)
        # one place in the code may word several kinds (a helper's caller): its first
        # words, numbers and quoted names left out, tell them apart
        key = (category, f"{where} {' '.join(_TOKEN.findall(shape)[:3])}" if where else shape)
        first, count, names = self.kinds.setdefault(key, (message, [0], []))
        count[0] += 1
        quoted = [m[1] if m[1] is not None else m[2] for m in _QUOTED.finditer(message)]
        if not quoted and count[0] > 1:
            known = set(_TOKEN.findall(first))
            quoted = [
                t
                for t in _TOKEN.findall(message)
                if t not in known and not t.replace(".", "").isdigit()
            ]
        for name in quoted:
            if name not in names and len(names) <= FIRST_NAMES:
                names.append(name)

    def flush(self, stream: Any) -> None:
        merged: dict[str, tuple[list[int], list[str]]] = {}
        for first, (seen,), names in self.kinds.values():
            # the same words from two places (a test and its interval): one line
            total, known = merged.setdefault(first, ([0], []))
            total[0] += seen
            known += [n for n in names if n not in known]
        for first, ((seen,), names) in merged.items():
            line = f"reportgen: warning: {shown(first)}"
            if seen > 1:
                about = ", ".join(shown(n) for n in names[:FIRST_NAMES])
                more = " …" if len(names) > FIRST_NAMES else ""
                line += f" [{seen:,} warnings of this kind" + (
                    f"; names: {about}{more}]" if about else "]"
                )
            stream.write(line + "\n")
        self.kinds.clear()


_TALLY: _WarningTally | None = None


#: A run of non-space characters longer than this is cut in messages (a system name of
#: 50 MB is still named, by its start and end).
MAX_TOKEN = 300
_LONG_TOKEN = re.compile(r"\S{" + str(MAX_TOKEN + 1) + ",}")


def terminal_safe(text: str, *, cut: bool = True) -> str:
    """``text`` as it may reach a terminal: control characters shown as ``\\xNN`` escapes
    (a name holding ``ESC ]`` cannot retitle the window or rewrite the screen), the
    bidirectional controls and Unicode line separators as ``\\uNNNN``
    (:func:`reportgen.plaintext.shown`; newline and tab are kept), and, with
    ``cut``, every run of more than :data:`MAX_TOKEN` non-space characters cut to its
    start and end with the number of characters left out.

    >>> terminal_safe("model\x1b]0;owned\x07")
    'model\\\\x1b]0;owned\\\\x07'
    >>> terminal_safe("x" * 1000)[-42:]
    '…[860 characters cut]…xxxxxxxxxxxxxxxxxxxx'
    """
    text = shown(text, keep_lines=True)
    if cut:
        text = _LONG_TOKEN.sub(
            lambda m: (
                f"{m.group()[:120]}…[{len(m.group()) - 140:,} characters cut]…{m.group()[-20:]}"
            ),
            text,
        )
    return text


class _SafeStream:
    """A text stream that writes :func:`terminal_safe` text to ``stream``; long tokens
    are cut on stderr, and on stdout only when it is a terminal (what a pipe or a file
    receives, e.g. JSON, is never altered but for control characters, which JSON
    escapes anyway)."""

    def __init__(self, stream: Any, *, cut: bool) -> None:
        self._stream, self._cut = stream, cut

    def write(self, text: str) -> int:
        safe = terminal_safe(text, cut=self._cut)
        try:
            return self._stream.write(safe)
        except UnicodeEncodeError:
            # a console that cannot show a character (LC_ALL=C, Latin-1): its escape
            encoding = getattr(self._stream, "encoding", None) or "ascii"
            return self._stream.write(
                safe.encode(encoding, "backslashreplace").decode(encoding, "replace")
            )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def main_entry() -> None:
    """Console-script entry point (and ``python -m reportgen``): exit with :func:`main`'s
    status; running out of memory anywhere is status 2 with the bounds to change, not a
    traceback (the report folder being built is removed on the way out, as for any
    error)."""
    try:
        status = main()
    except MemoryError as exc:
        detail = " ".join(str(exc).split())
        sys.stderr.write(
            shown(
                "reportgen: error: out of memory"
                + (f" ({detail[:200]})" if detail else "")
                + "; nothing was written"
            )
            + "\n  hint: lower --n-resamples or --max-input-bytes, set --max-memory to "
            "what the machine has (e.g. --max-memory 4GiB), analyse fewer systems at a "
            "time, or run where more memory is available\n"
        )
        status = EXIT_USAGE
    sys.exit(status)

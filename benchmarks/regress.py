"""Issue 45: no regression unnoticed. The current commit against an earlier one, in the
same minutes, through the command line of a default install of each.

Each commit is exported with ``git archive`` (the working tree's uncommitted changes are
not measured) and installed with a plain ``pip install`` into a venv of its own under
``.venv-regress/<commit>`` (kept for the next run). Then every workload of
``benchmarks/floors.py`` runs with both installs, alternating repeat by repeat (the
order reversed every other repeat), each in a fresh process, and the median CPU seconds
of the two are compared: a workload more than ``--threshold`` (15 %) slower now is
flagged, and the exit status is 1.

The earlier commit is ``--against REF`` (any git revision), else the latest release tag
before the current commit, else ``main~N`` (``--back N``, default 10) when there is no
tag.

Usage::

    python benchmarks/regress.py                         # against the last tag or main~10
    python benchmarks/regress.py --against r-speed~5 --repeats 5
    python benchmarks/regress.py --only mmlu9,rows2m --threshold 0.10
    python benchmarks/regress.py --all                   # the slow workloads too

CPU time and not wall time decides, because other work on a shared machine moves wall
time far more; both are printed, with the load average. A regression of 15 % needs the
spread of the repeats to be below that to be seen reliably: the per-repeat ratios are
printed so that a reader can judge it.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import floors  # noqa: E402 - beside this script

REPO = HERE.parent
VENVS = REPO / ".venv-regress"
#: the workloads compared by default (the slow ones with --all or --only)
QUICK = ("mmlu9", "rows2m", "rows2m_inspect", "arena5", "rag")


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def resolve_against(against: str | None, back: int) -> tuple[str, str]:
    """The earlier commit and how it was chosen: ``against``, else the latest tag
    before HEAD, else ``main~back``."""
    if against:
        return _git("rev-parse", "--verify", f"{against}^{{commit}}"), against
    try:
        tag = _git("describe", "--tags", "--abbrev=0", "HEAD^")
        return _git("rev-parse", f"{tag}^{{commit}}"), f"tag {tag}"
    except subprocess.CalledProcessError:
        ref = f"main~{back}"
        return _git("rev-parse", "--verify", f"{ref}^{{commit}}"), f"{ref} (no release tag)"


def install(commit: str, python: str) -> Path:
    """A default install (``pip install .``, no extras) of ``commit`` in
    ``.venv-regress/<commit[:12]>``, made once."""
    venv = VENVS / commit[:12]
    if (venv / "bin" / "reportgen").is_file():
        return venv
    VENVS.mkdir(exist_ok=True)
    (VENVS / ".gitignore").write_text("*\n")
    with tempfile.TemporaryDirectory(prefix="reportgen-regress-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", commit], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
             "--disable-pip-version-check", str(src)],
            capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            raise RuntimeError(f"pip install of {commit[:12]} failed:\n{done.stderr[-2000:]}")
    return venv


def compare(
    name: str,
    now: floors.Workload,
    then: floors.Workload,
    repeats: int,
    threshold: float,
) -> dict[str, Any]:
    """Both installs' command of one workload, interleaved; the change of the median."""
    cli_now = next(s for s in now.steps if s.role == "cli")
    cli_then = next(s for s in then.steps if s.role == "cli")
    pair = floors.Workload(
        name,
        now.description,
        [
            floors.Step("now", "cli", cli_now.argv, cli_now.out),
            floors.Step("then", "cli", cli_then.argv, cli_then.out),
        ],
    )
    runs = floors.measure(pair, repeats)
    med = {
        label: {k: statistics.median(r[k] for r in rs) for k in ("wall_s", "cpu_s", "peak_mb")}
        for label, rs in runs.items()
    }
    change = med["now"]["cpu_s"] / med["then"]["cpu_s"] - 1
    return {
        "description": now.description,
        "now": med["now"],
        "then": med["then"],
        "cpu_change": change,
        "wall_change": med["now"]["wall_s"] / med["then"]["wall_s"] - 1,
        "peak_change": med["now"]["peak_mb"] / med["then"]["peak_mb"] - 1,
        "per_repeat_cpu_ratio": [
            a["cpu_s"] / b["cpu_s"] for a, b in zip(runs["now"], runs["then"], strict=True)
        ],
        "slower": change > threshold,
        "runs": runs,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="the earlier commit (any git revision)")
    parser.add_argument("--back", type=int, default=10, help="main~N when there is no tag")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threshold", type=float, default=0.15)
    parser.add_argument("--only", help="comma-separated workloads of floors.py")
    parser.add_argument("--all", action="store_true", help="the slow workloads too")
    parser.add_argument("--python", default=sys.executable, help="makes the venvs")
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/reportgen-floors-data"))
    parser.add_argument("--output", type=Path, help="JSON (default results/regress-DATE.json)")
    args = parser.parse_args(argv)

    head = _git("rev-parse", "HEAD")
    try:
        then_commit, how = resolve_against(args.against, args.back)
    except subprocess.CalledProcessError as exc:
        print(f"regress: no earlier commit to compare with: {exc.stderr.strip()}", file=sys.stderr)
        return 2
    print(f"now {head[:12]} (HEAD) against {then_commit[:12]} ({how}); installing...")
    venv_now, venv_then = install(head, args.python), install(then_commit, args.python)
    floors.make_data(venv_now, args.data_dir)
    work = Path(tempfile.mkdtemp(prefix="reportgen-regress-"))
    now = {w.name: w for w in floors.workloads(venv_now, args.data_dir, work / "now", None)}
    then = {w.name: w for w in floors.workloads(venv_then, args.data_dir, work / "then", None)}
    names = args.only.split(",") if args.only else [n for n in now if args.all or n in QUICK]
    unknown = [n for n in names if n not in now]
    if unknown:
        print(f"unknown workload(s): {', '.join(unknown)}; known: {', '.join(now)}",
              file=sys.stderr)  # fmt: skip
        return 2
    record: dict[str, Any] = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "now": head,
        "then": then_commit,
        "then_chosen_as": how,
        "threshold": args.threshold,
        "load_average_start": floors._load(),
        "workloads": {},
    }
    print(f"load average {record['load_average_start']}; {args.repeats} repeats, alternating")
    print(f"\n{'workload':<16} {'now cpu':>9} {'then cpu':>9} {'change':>8} {'wall':>8}  "
          f"{'peak now/then MB':>17}  per repeat (cpu now/then)")  # fmt: skip
    slower = []
    try:
        for name in names:
            result = compare(name, now[name], then[name], args.repeats, args.threshold)
            record["workloads"][name] = result
            flag = "  SLOWER" if result["slower"] else ""
            print(
                f"{name:<16} {result['now']['cpu_s']:8.2f}s {result['then']['cpu_s']:8.2f}s "
                f"{result['cpu_change']:+8.1%} {result['wall_change']:+8.1%}  "
                f"{result['now']['peak_mb']:8.0f}/{result['then']['peak_mb']:<8.0f}  "
                + ", ".join(f"{r:.2f}" for r in result["per_repeat_cpu_ratio"])
                + flag
            )
            if result["slower"]:
                slower.append(name)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    record["load_average_end"] = floors._load()
    print(f"\nload average at the end {record['load_average_end']}")
    if slower:
        print(f"more than {args.threshold:.0%} slower (CPU): {', '.join(slower)}")
    else:
        print(f"no workload more than {args.threshold:.0%} slower (CPU)")
    output = args.output or floors.RESULTS_DIR / f"regress-{_dt.date.today().isoformat()}.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {output}")
    return 1 if slower else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())

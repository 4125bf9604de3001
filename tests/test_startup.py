"""The command line's common paths import only what they use (issue 45 item 2): no
scipy.stats (about a second of CPU on a 2-core machine, its distributions' docstrings),
scipy.optimize, statsmodels or jsonschema, checked in a fresh interpreter on real data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples"
HEAVY = ("scipy.stats", "scipy.optimize", "statsmodels", "jsonschema")

_PROBE = """
import json, sys
heavy = {heavy!r}
{body}
print(json.dumps([m for m in heavy if m in sys.modules]))
"""


def _heavy_modules(body: str) -> list[str]:
    probe = _PROBE.format(heavy=HEAVY, body=body)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cli(*argv: str) -> str:
    return f"from reportgen.cli import main\ncode = main({list(argv)!r})\nassert code == 0, code\n"


def test_importing_every_layer_imports_no_heavy_module():
    body = (
        "import reportgen.cli, reportgen.data, reportgen.stats, reportgen.analysis\n"
        "import reportgen.report.pipeline, reportgen.report.prepared\n"
    )
    assert _heavy_modules(body) == []


def test_inspect_imports_no_heavy_module():
    assert _heavy_modules(_cli("inspect", str(SHARED / "eval-arena" / "humaneval+.jsonl"))) == []


@pytest.mark.parametrize(
    "argv",
    [
        ("analyze", str(SHARED / "eval-arena")),  # paired 0/1 scores, five datasets
        ("analyze", str(SHARED / "ibm-rag")),  # paired continuous scores
        ("analyze", str(EXAMPLE / "data"), "--config", str(EXAMPLE / "reportgen.toml")),
        (
            "compare",
            "claude-3-opus-20240229",
            "claude-3-haiku-20240307",
            str(SHARED / "eval-arena" / "humaneval+.jsonl"),
        ),
    ],
    ids=["analyze-eval-arena", "analyze-ibm-rag", "analyze-example", "compare"],
)
def test_analyze_and_compare_import_no_heavy_module(tmp_path, argv):
    if argv[0] == "analyze":
        argv = (*argv, "--out", str(tmp_path / "out"), "--seed", "1")
    assert _heavy_modules(_cli(*argv)) == []


def test_release_gate_analysis_imports_no_heavy_module():
    # what `reportgen run --template release --gate regression` computes in its own
    # process before the notebook: the release's verdicts, which decide the exit status
    body = (
        "from reportgen.report.prepared import load_and_analyse\n"
        "from reportgen.report.runspec import resolve_run\n"
        f"spec = resolve_run([{str(SHARED / 'eval-arena')!r}],\n"
        "    analysis={'baseline': 'claude-3-haiku-20240307'},\n"
        "    report={'template': 'release', 'candidate': 'claude-3-opus-20240229',\n"
        "            'gate': 'regression'})\n"
        "load_and_analyse(spec)\n"
    )
    assert _heavy_modules(body) == []

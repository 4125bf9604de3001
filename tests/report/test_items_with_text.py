"""The items with their text (issue 46, items 2-4): the release's lost and gained items
with their input and both outputs, hostile outputs rendered inert, the evaluation's
items solved by one system only and suspect items.

References: the logs read with ``json`` (what the report must show), ``difflib`` (what
differs), Python's own HTML parser (which elements the report's markup makes), and the
real strings of real logs (tests/fixtures/real, SOURCES.md): Markdown in gpt-4o-mini's
answers (promptfoo ``tds-project-1``), a generation of 1,916 characters on one line
(lm-eval 0.4.9.2), an ANSI-coloured terminal capture (Inspect 0.3.43), markup-like text
(``$a<b<c<d$``, the same lm-eval log). The bidirectional override, NUL and lone
surrogate are hand-written edge cases, labelled as such.
"""

from __future__ import annotations

import csv
import difflib
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reportgen.analysis import AnalysisOptions, analyze, analyze_release
from reportgen.analysis.item_text import flipped_items_text, notable_items_text, output_diff
from reportgen.data import load
from reportgen.report.export.body import cut_long_words
from reportgen.report.render.item_text import print_item_block, text_block

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
LM_EVAL = REAL / "lm_eval" / "v0.4.5"


# ------------------------------------------------------------------ real hostile strings


def _real_strings() -> dict[str, str]:
    """Strings of real logs that would act if rendered as markup or sent to a terminal."""
    tds = json.loads((REAL / "promptfoo" / "tds-project-1" / "promptfoo_results.json").read_text())
    markdown = next(
        r["response"]["output"]
        for r in tds["results"]["results"]
        if isinstance(r["response"]["output"], str) and "**" in r["response"]["output"]
    )
    (math,) = (REAL / "lm_eval" / "v0.4.9.2").glob("samples_*.jsonl")
    records = [json.loads(line) for line in math.read_text().splitlines()]
    long_line = max((r["resps"][0][0] for r in records if "\n" not in r["resps"][0][0]), key=len)
    markup = next(r["doc"]["solution"] for r in records if "<b<" in r["doc"]["solution"])
    log = (REAL / "inspect" / "input_task-0.3.43").glob("*.json")
    text = next(log).read_text()
    ansi = next(
        s for s in re.findall(r'"((?:[^"\\]|\\.)*)"', text) if "\\u001b[" in s and len(s) < 4000
    )
    return {
        "markdown": markdown,
        "long_line": long_line,
        "markup": markup,
        "ansi": json.loads(f'"{ansi}"'),
    }


class _Elements(HTMLParser):
    """The element names of an HTML fragment, and its text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_text_block_renders_real_hostile_outputs_inert() -> None:
    strings = _real_strings()
    assert len(strings["long_line"]) > 1500 and "\n" not in strings["long_line"]
    assert "\x1b[" in strings["ansi"] and "**" in strings["markdown"]
    for name, value in strings.items():
        html = text_block("output", value)
        parsed = _Elements(html)
        # only the block's own elements: no <b> from "$a<b<c<d$", nothing from Markdown
        assert set(parsed.tags) == {"div", "pre"}, name
        # no raw escape character reaches the page; it is shown as \x1b
        assert "\x1b" not in html
        shown = "".join(parsed.text).removeprefix("output")
        expected = value.replace("\x1b", "\\x1b").replace("\r", "\\r")
        assert shown == expected, name  # every character there, exactly as the log holds it


def test_item_text_blocks_survive_the_exporter_whole() -> None:
    # reference: the exporter cuts every word over 100 characters in prose; an item's
    # text is left whole (its lines wrap in CSS instead)
    line = _real_strings()["long_line"]
    block = text_block("output", line)
    assert cut_long_words(block) == block
    prose = f"<p>{'x' * 300}</p>"
    assert cut_long_words(prose) != prose


def test_bidi_nul_and_surrogates_are_shown() -> None:
    # hand-written edge cases: a right-to-left override, a NUL, a line separator
    html = text_block("output", "gpt\u202e4\x00 ok\u2028done")
    assert "\u202e" not in html and "\\u202e" in html
    assert "\x00" not in html and "\\x00" in html
    assert "\u2028" not in html and "\\u2028" in html


def test_print_block_cuts_long_texts_and_says_so() -> None:
    from reportgen.analysis.item_text import ShownItem, SystemOutput

    line = _real_strings()["long_line"]
    item = ShownItem(
        "7",
        "lost",
        "asked",
        None,
        (
            SystemOutput("a", "baseline", 1.0, line, None),
            SystemOutput("b", "candidate", 0.0, "x", None),
        ),
    )
    html = print_item_block(item, limit=4000, chars=600)
    assert line[:600] in html and line[:601] not in html
    assert f"the first 600 of {len(line):,} characters" in html


# ------------------------------------------------------------------ what differs


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The answer is 12.", "The answer is 13."),
        ("def f(x):\n    return x + 1\n", "def f(x):\n    return x - 1  # fixed\n"),
        (" PER: John $$ LOC: Paris", " PER: John $$ LOC: London"),
    ],
)
def test_output_diff_against_difflib(a: str, b: str) -> None:
    # reference: difflib.SequenceMatcher on the same word tokens; the segments put back
    # together are the outputs, and the equal parts are the matched blocks
    left, right = output_diff(a, b)
    assert "".join(t for _, t in left) == a and "".join(t for _, t in right) == b
    tokens = re.compile(r"\s+|\w+|[^\w\s]")
    ta, tb = tokens.findall(a), tokens.findall(b)
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    same = "".join("".join(ta[m.a : m.a + m.size]) for m in matcher.get_matching_blocks())
    assert "".join(t for d, t in left if not d) == same
    assert "".join(t for d, t in right if not d) == same


def test_output_diff_edge_cases() -> None:
    assert output_diff("", "x") is None
    assert output_diff("yes", "no, because " * 10) is None  # not of similar form
    assert output_diff("a" * 4000, "a" * 3999 + "b") is None  # too long to mark


# ------------------------------------------------------------------ the lists joined


def _release(path: Path, baseline: str, candidate: str):
    table = load([path])
    options = AnalysisOptions(seed=1, n_resamples=199)
    return analyze_release(table, options, baseline=baseline, candidate=candidate)


def test_flipped_items_text_against_the_samples_files() -> None:
    # reference: the lost items of tiny_mc / acc (sys-b against sys-a) read from both
    # systems' samples files: the items whose acc went from 1 to 0, with their texts
    analysis = _release(LM_EVAL, "sys-a", "sys-b")
    lists = {(x.dataset, x.metric, x.outcome): x for x in flipped_items_text(analysis)}
    acc = {}
    for system in ("sys-a", "sys-b"):
        (path,) = (LM_EVAL / system).glob("samples_tiny_mc_*.jsonl")
        acc[system] = {str(r["doc_id"]): r for r in map(json.loads, path.read_text().splitlines())}
    lost = {d for d in acc["sys-a"] if acc["sys-a"][d]["acc"] > acc["sys-b"][d]["acc"]}
    listed = lists[("tiny_mc", "acc", "lost")]
    assert {i.item for i in listed.items} == lost and listed.n_total == len(lost)
    for item in listed.items:
        record = acc["sys-a"][item.item]
        assert item.input == record["arguments"]["gen_args_0"]["arg_0"]
        base, cand = item.outputs
        assert (base.system, base.role, base.score) == ("sys-a", "baseline", 1.0)
        assert (cand.system, cand.role, cand.score) == ("sys-b", "candidate", 0.0)
        assert base.output == item.target != cand.output


def test_notable_items_text_names_the_solver() -> None:
    # reference: the item analysis' own lists (solved by one, suspect), and the logs
    table = load([REAL / "inspect" / "eval_set-0.3.285"])
    analysis = analyze(table, AnalysisOptions(seed=1, n_resamples=199))
    lists = notable_items_text(analysis)
    unit = analysis.units[0]
    by_one = unit.items.solved_by_one
    got = {
        i.item: i.outputs[0].system for x in lists if x.outcome == "solved by one" for i in x.items
    }
    assert got == by_one
    for x in lists:
        for item in x.items:
            assert item.input is not None and item.input.startswith("What is ")


# ------------------------------------------------------------------ the report (e2e)


@pytest.mark.e2e
def test_release_report_shows_lost_items_with_both_outputs(tmp_path: Path) -> None:
    # reference: the lost items and texts read from the Inspect logs with json via the
    # table; the report's HTML shows each, tables/flips.csv carries them, the PDF prints
    out = tmp_path / "report"
    data = REAL / "inspect" / "eval_set-0.3.285"
    done = subprocess.run(
        [sys.executable, "-m", "reportgen", "run", str(data), "--template", "release",
         "--baseline", "toy/good", "--candidate", "toy/bad", "--out", str(out), "--seed", "1",
         "--n-resamples", "199"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    table = load([data])
    html = (out / "report.html").read_text()
    with (out / "tables" / "flips.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    lost = [r for r in rows if float(r["change"]) < 0]
    assert lost
    from reportgen.report.render.html import escape

    for row in lost:
        good = table.texts.of("toy_addition", row["item"], "toy/good", "match")
        bad = table.texts.of("toy_addition", row["item"], "toy/bad", "match")
        assert (row["input"], row["baseline_output"], row["candidate_output"]) == (
            good.input,
            good.output,
            bad.output,
        )
        for text in (good.input, good.output, bad.output):
            assert escape(text) in html
    if shutil.which("pdftotext") and (out / "report.pdf").exists():
        pdf = subprocess.run(
            ["pdftotext", str(out / "report.pdf"), "-"], capture_output=True, text=True
        ).stdout
        assert "Items lost and gained" in pdf and lost[0]["input"].split("?")[0] in pdf

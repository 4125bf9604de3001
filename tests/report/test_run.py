"""`reportgen run` end to end: the notebook executed by papermill, the exported HTML and
PDF, results.json, tables, manifest, the atomic folder, failures and the CI gate."""

from __future__ import annotations

import csv
import hashlib
import json
import re
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from reportgen.cli import main
from reportgen.report.export import external_references
from reportgen.report.folder.manifest import validate_results
from reportgen.report.pipeline import NotebookExecutionError, RunSpec, resolve_run, run_report

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
EXAMPLE_CONFIG = ROOT / "examples" / "reportgen.toml"
SHARED = ROOT.parent / "shared" / "data"

# the body (key findings, results, ranking, noise floor, methods), then the appendix
EVALUATION_SECTIONS = [
    "summary",
    "results",
    "across-datasets",
    "noise-and-power",
    "methods",
    "appendix",
    "per-dataset-metric",
    "across-metrics",
    "benchmark-noise",
    "items",
    "repeated-runs",
    "groups-and-hyperparameters",
    "data",
    "provenance",
]


class _Outline(HTMLParser):
    """Section ids, heading ids, figures and svgs, scripts, anchors of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.ids: list[str] = []
        self.figures = 0
        self.svgs = 0
        self.scripts = 0
        self.links: list[str] = []
        self.h1: list[str] = []
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section" and "rg-section" in (attrs.get("class") or ""):
            self.sections.append(attrs.get("id", ""))
        if attrs.get("id"):
            self.ids.append(attrs["id"])
        if tag == "figure" and "rg-narrow-only" not in (attrs.get("class") or ""):
            self.figures += 1  # a chart, not its phone figure
        if tag == "svg":
            self.svgs += 1
        if tag == "script":
            self.scripts += 1
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        self._in_h1 = tag == "h1"

    def handle_data(self, data):
        if self._in_h1 and data.strip():
            self.h1.append(data.strip())


def _outline(html: str) -> _Outline:
    parser = _Outline()
    parser.feed(html)
    return parser


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pdf_checks(path: Path, pages: int, title: str) -> None:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    assert len(pdf) == pages
    for k in range(min(3, len(pdf))):
        image = pdf[k].render(scale=0.5).to_pil().convert("L")
        low, high = image.getextrema()
        assert high - low > 100, f"page {k + 1} looks blank"
    first = pdf[0].get_textpage()
    text = first.get_text_range()
    assert title in text
    assert "page 1 of" in text


# example_report: the example's evaluation report, made once (tests/report/conftest.py)


def test_run_example_writes_every_file(example_report):
    out, result, lines = example_report
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    for name in (
        "report.html",
        "report.pdf",
        "report.ipynb",
        "results.json",
        "manifest.json",
        "tables/comparisons.csv",
        "tables/systems.csv",
    ):
        assert name in names
    assert set(result.files) == names
    assert not list(out.parent.glob(".report.*"))  # no build folder left behind
    # progress: loading, each code cell with its section, export
    assert any(line.startswith("loading") for line in lines)
    assert any(re.search(r"cell 4/\d+: Key findings", line) for line in lines)
    # each cell its own label: the template's parameters, then those of this run
    cells = [line.split(": ", 1)[1] for line in lines if re.match(r"cell \d+/\d+: ", line)]
    assert cells[:2] == ["default parameters", "parameters of this run"]
    assert len(cells) == len(set(cells))
    assert any(line == "rendering the PDF" for line in lines)


def test_run_example_html_is_self_contained_with_every_section(example_report):
    out, _, _ = example_report
    html = (out / "report.html").read_text(encoding="utf-8")
    outline = _outline(html)
    # every section but the groups' (no --group-by: omitted; test_run_quiet_... has it)
    assert outline.sections == [s for s in EVALUATION_SECTIONS if s != "groups-and-hyperparameters"]
    assert outline.scripts == 0
    assert external_references(html) == []
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html)
    # every chart is an inline SVG inside a figure, and none failed to draw
    assert outline.figures >= 40 and outline.svgs >= outline.figures
    assert "Chart not drawn" not in html
    # every table-of-contents link lands on an id of the page
    internal = [link[1:] for link in outline.links if link.startswith("#")]
    assert internal and set(internal) <= set(outline.ids)
    assert len(outline.ids) == len(set(outline.ids))
    # no code in the report
    assert "rs.summary" not in html and "import reportgen" not in html
    assert outline.h1 == ["Example evaluation"]
    assert "v1.2" in html


def test_run_example_pdf_pages_render(example_report):
    out, result, _ = example_report
    assert result.pages is not None and 10 <= result.pages <= 150
    _pdf_checks(out / "report.pdf", result.pages, "Example evaluation")


def test_run_example_results_and_tables(example_report):
    out, result, _ = example_report
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    validate_results(results)
    assert results["seed"] == 3 == result.seed
    assert results["report"]["title"] == "Example evaluation"
    with (out / "tables" / "comparisons.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(results["comparisons"])
    assert {r["system_a"] for r in rows} <= set(results["data"]["systems"])


def test_run_example_manifest_hashes_match_inputs_and_outputs(example_report):
    out, _, _ = example_report
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    files = [f for entry in manifest["inputs"] for f in entry["files"]]
    assert {Path(f["path"]).name for f in files} == {"codecompletion.csv", "unittests_runs.csv"}
    for f in files:
        assert f["sha256"] == _sha256(Path(f["path"]))
    rows = {Path(e["path"]).name: e["rows"] for e in manifest["inputs"]}
    with (EXAMPLE / "codecompletion.csv").open(encoding="utf-8") as fh:
        assert rows["codecompletion.csv"] == sum(1 for _ in fh) - 1
    for name, entry in manifest["outputs"].items():
        assert entry["sha256"] == _sha256(out / name)
    assert manifest["seed"] == 3
    assert manifest["parameters"]["analysis_options"]["n_resamples"] == 999
    assert manifest["environment"]["packages"]["papermill"]
    assert set(manifest["timings_seconds"]) >= {"load", "notebook", "html", "pdf"}


def test_run_example_notebook_is_executed_without_errors(example_report):
    out, _, _ = example_report
    nb = nbformat.read(str(out / "report.ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code)
    assert not any(o.get("output_type") == "error" for c in code for o in c.outputs)
    assert any("injected-parameters" in c.metadata.get("tags", []) for c in code)


def test_run_refuses_existing_folder_before_any_work(example_report, capsys):
    out, _, _ = example_report
    before = _sha256(out / "report.html")
    status = main(["run", str(EXAMPLE), "--out", str(out), "--quiet"])
    assert status == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err and "Traceback" not in err
    assert _sha256(out / "report.html") == before


@pytest.mark.e2e
def test_run_failing_cell_names_section_and_keeps_debug_notebook(tmp_path):
    template = nbformat.read(str(ROOT / "notebook_templates" / "evaluation.ipynb"), as_version=4)
    broken = nbformat.v4.new_code_cell("raise ValueError('boom in a custom cell')")
    broken.metadata["reportgen"] = {"section": "My custom section"}
    template.cells.insert(4, broken)
    path = tmp_path / "broken.ipynb"
    nbformat.write(template, str(path))
    out = tmp_path / "report"
    spec = resolve_run(
        [str(EXAMPLE)],
        config=str(EXAMPLE_CONFIG),
        analysis={"seed": 1, "n_resamples": 199},
        report={"out": str(out), "template": str(path), "formats": ("html",)},
    )
    with pytest.raises(
        NotebookExecutionError,
        match=r"section 'My custom section' \(code cell 4 of the template\): "
        r"ValueError: boom in a custom cell",
    ) as info:
        run_report(spec)
    assert not out.exists()
    assert not list(tmp_path.glob(".report.*"))
    debug = info.value.debug_path
    assert debug == tmp_path / "report.failed.ipynb" and debug.is_file()
    assert str(debug) in str(info.value)
    failed = nbformat.read(str(debug), as_version=4)
    assert any(
        o.get("ename") == "ValueError"
        for c in failed.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
    )


@pytest.mark.e2e
def test_run_failing_cell_exit_status_from_the_cli(tmp_path, capsys):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 / 0")])
    nb.cells[0].metadata["reportgen"] = {"section": "Arithmetic"}
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path = tmp_path / "t.ipynb"
    nbformat.write(nb, str(path))
    status = main(
        [
            "run",
            str(EXAMPLE),
            "--template",
            str(path),
            "--out",
            str(tmp_path / "r"),
            "--quiet",
            "--format",
            "html",
        ]
    )
    err = capsys.readouterr().err
    assert status == 1
    assert "section 'Arithmetic'" in err and "ZeroDivisionError" in err
    assert "Traceback" not in err


@pytest.mark.e2e
def test_run_release_gate_exits_1_on_regression(tmp_path, capsys):
    out = tmp_path / "release"
    status = main(
        [
            "run",
            str(EXAMPLE),
            "--config",
            str(EXAMPLE_CONFIG),
            "--template",
            "release",
            "--baseline",
            "starcoder2-15b|fim|8k",
            "--candidate",
            "granite-3b|fim|4k",
            "--release",
            "v0.9",
            "--out",
            str(out),
            "--format",
            "html",
            "--seed",
            "3",
            "--n-resamples",
            "499",
            "--fail-on-regression",
            "--quiet",
        ]
    )
    captured = capsys.readouterr()
    assert status == 1
    assert "does not pass --gate regression" in captured.err
    assert "gate regression: regressed on csharp / edit_distance" in captured.err
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    verdict = results["verdict"]
    assert (verdict["baseline"], verdict["candidate"]) == (
        "starcoder2-15b|fim|8k",
        "granite-3b|fim|4k",
    )
    # the example's documented gap: granite-3b is far below starcoder2-15b everywhere
    assert verdict["counts"]["regressed"] == len(verdict["rows"]) == 13
    for row in verdict["rows"]:
        better_is_higher = row["direction"] == "higher"
        assert (row["diff"] < 0) == better_is_higher
        assert row["ci_low"] <= row["diff"] <= row["ci_high"]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert _outline(html).sections[:2] == ["release-verdict", "release-differences"]
    assert external_references(html) == []


def test_run_release_no_difference_reports_the_mde(example_release_runs):
    # release v10.0 of tests/report/conftest.py: starcoder2-15b|fim|8k against the 4k
    out, result = example_release_runs["v10.0"]
    # the example's documented near-tie: no detectable difference anywhere
    assert result.ledger.release.counts["no detectable difference"] == 13
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    for row in results["verdict"]["rows"]:
        assert row["mde"] is not None and row["mde"] > 0
    html = (out / "report.html").read_text(encoding="utf-8")
    # the decision line: nothing changed detectably, and the largest loss the
    # verdicts' intervals leave open (never the post-hoc "could have missed")
    assert (
        "is not detectably different from <strong>starcoder2-15b|fim|4k</strong>: no "
        "detectable difference on all 13 dataset × metrics (the largest left open: a loss "
        "of up to " in html
    )
    assert "could have missed" not in html


@pytest.mark.e2e
def test_run_release_partial_coverage_is_named_everywhere(tmp_path, capsys):
    """Baseline and candidate scored on humaneval+ and mbpp+ only: the third benchmark
    is named in the decision, the not-compared box, on stderr and in results.json; the
    gate fails without --allow-partial (tests/report/test_release_verdicts.py) and
    passes with it; the default title names the release; page 1 holds the decision."""
    import pypdfium2 as pdfium

    arena = ROOT.parent / "shared" / "data" / "eval-arena"
    out = tmp_path / "partial"
    status = main(
        [
            "run",
            str(arena / "humaneval+.jsonl"),
            str(arena / "mbpp+.jsonl"),
            str(arena / "lcb_codegen.jsonl"),
            "--template",
            "release",
            "--baseline",
            "code-llama-multi-13b",
            "--candidate",
            "code-llama-multi-34b",
            "--release",
            "v2",
            "--out",
            str(out),
            "--format",
            "html,pdf",
            "--seed",
            "1",
            "--n-resamples",
            "499",
            "--fail-on-regression",
            "--allow-partial",
            "--quiet",
        ]
    )
    captured = capsys.readouterr()
    assert status == 0
    assert (
        "decision: code-llama-multi-34b was compared with code-llama-multi-13b on "
        "only 2 of 3 dataset × metrics" in captured.out
    )
    assert (
        "not compared: lcb_codegen / pass1: the baseline 'code-llama-multi-13b' and "
        "the candidate 'code-llama-multi-34b' have no score here" in captured.err
    )
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["verdict"]["decision"] == "incomplete"
    assert [n["dataset"] for n in results["verdict"]["not_compared"]] == ["lcb_codegen"]
    assert (
        results["report"]["title"]
        == "Release v2: code-llama-multi-34b against code-llama-multi-13b"
    )
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<strong>Not compared (1 dataset × metric)</strong>" in html
    # the Data section lists the two compared systems, not the 107 loaded
    systems = html.split('id="systems"', 1)[1].split("</table>", 1)[0]
    assert systems.count("<tr>") == 3  # header + two systems
    pdf = pdfium.PdfDocument(str(out / "report.pdf"))
    first = " ".join(pdf[0].get_textpage().get_text_range().split())  # lines may wrap
    assert "Release decision" in first and "not compared on lcb_codegen" in first
    assert first.index("Release decision") < first.index("CONTENTS")


def test_run_config_file_holds_the_flags(tmp_path, monkeypatch):
    # a parse test: the config's values and the flag that overrides one reach the RunSpec
    # handed to the library, whose call is patched (what run_report makes of a RunSpec is
    # checked end to end by the tests of example_report above)
    from reportgen.report import pipeline

    specs: list[RunSpec] = []

    def library_call(spec, *, progress=None, kernel=None):
        specs.append(spec)
        return pipeline.RunResult(
            out=Path(spec.report.out),
            files=("report.html",),
            seed=spec.analysis.seed,
            pages=None,
            timings={},
        )

    monkeypatch.setattr(pipeline, "run_report", library_call)
    config = tmp_path / "run.toml"
    config.write_text(
        EXAMPLE_CONFIG.read_text(encoding="utf-8") + f'\n[input]\ndata = ["{EXAMPLE.as_posix()}"]\n'
        "[analysis]\nseed = 11\nn_resamples = 299\nalpha = 0.01\n"
        '[report]\ntitle = "From the config"\nout = "made-by-config"\n'
        'formats = ["html"]\n',
        encoding="utf-8",
    )
    status = main(["run", "--config", str(config), "--quiet", "--alpha", "0.05"])
    assert status == 0
    [spec] = specs
    assert [Path(d) for d in spec.data] == [EXAMPLE]
    assert Path(spec.report.out) == tmp_path / "made-by-config"  # relative to the config file
    assert spec.analysis.seed == 11
    assert spec.analysis.n_resamples == 299
    assert spec.analysis.alpha == 0.05  # the flag wins over the config
    assert spec.report.formats == ("html",)  # no report.pdf, no report.ipynb
    assert spec.report.title == "From the config"


@pytest.mark.skipif(not (SHARED / "ibm-rag").is_dir(), reason="../shared/data missing")
def test_run_real_rag_comparison_complete(rag_report):
    # three metric files of six RAG configurations on 140 questions (made elsewhere); the
    # report is shared with test_verify.py (tests/report/conftest.py)
    out, _, result = rag_report
    html = (out / "report.html").read_text(encoding="utf-8")
    outline = _outline(html)
    for section in (
        "summary",
        "results",
        "data",
        "per-dataset-metric",
        "across-metrics",
        "noise-and-power",
        "methods",
    ):
        assert section in outline.sections
    assert "repeated-runs" not in outline.sections  # no runs in these data
    assert external_references(html) == []
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert len(results["data"]["systems"]) == 6
    assert sorted(results["data"]["metrics"]) == ["precision", "recall", "sbert"]
    # 15 pairs in each of the 3 metrics, as the data hold
    assert len(results["comparisons"]) == 45
    _pdf_checks(out / "report.pdf", result.pages, "RAG configurations")


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.skipif(not (SHARED / "eval-arena").is_dir(), reason="../shared/data missing")
def test_run_real_eval_arena_four_benchmarks(tmp_path):
    names = ["cruxeval_output", "humaneval+", "lcb_codegen", "mbpp+"]
    out = tmp_path / "arena"
    spec = resolve_run(
        [str(SHARED / "eval-arena" / f"{n}.jsonl") for n in names],
        analysis={"seed": 5},
        report={"out": str(out), "title": "Code benchmarks"},
    )
    result = run_report(spec)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert external_references(html) == []
    assert "Chart not drawn" not in html
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    # dataset names come from the files' benchmark ids (eval-arena's own spelling)
    assert sorted(results["data"]["datasets"]) == sorted(
        ["CRUXEval-output", "humaneval+", "lcb_codegen", "mbpp+"]
    )
    _pdf_checks(out / "report.pdf", result.pages, "Code benchmarks")


@pytest.mark.parametrize("flag", ["--title", "--release"])
def test_run_title_or_release_with_a_line_break_exits_2(tmp_path, capsys, flag):
    out = tmp_path / "r"
    status = main(
        [
            "run",
            str(EXAMPLE),
            flag,
            "v2\r\nBcc: evil@example.org",
            "--out",
            str(out),
            "--format",
            "html",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and f"{flag} contains a control character" in err
    assert not out.exists()


@pytest.mark.e2e
def test_run_quiet_prints_nothing_on_stderr(tmp_path, capfd, monkeypatch):
    # capfd sees the file descriptors, so the kernel process's own output too (ipykernel
    # warned "Kernel is running over TCP without encryption" before the IPC transport)
    private = tmp_path / "tmp"  # where the kernel's socket folder goes, this run only
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    status = main(
        [
            "run",
            str(EXAMPLE),
            "--out",
            str(tmp_path / "r"),
            "--format",
            "html",
            "--seed",
            "1",
            "--n-resamples",
            "199",
            "--quiet",
            # item groups and hyperparameters (so the kernel's extra work is quiet too)
            "--group-by",
            "difficulty",
            "--compare-by",
            "prompt_format",
            "--condition-on",
            "model",
        ]
    )
    captured = capfd.readouterr()
    assert status == 0
    assert captured.err == ""
    assert captured.out.startswith("report: ")
    assert list(private.iterdir()) == []  # the socket folder is gone
    results = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    assert results["groups"] and results["hyperparameters"]  # the flags reached the analysis
    html = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert _outline(html).sections == EVALUATION_SECTIONS  # every section, the groups' too


@pytest.mark.e2e
def test_run_timeout_names_the_section_without_a_traceback(tmp_path, capfd):
    out = tmp_path / "r"
    status = main(
        ["run", str(EXAMPLE), "--out", str(out), "--format", "html", "--timeout", "1", "--quiet"]
    )
    err = capfd.readouterr().err  # the kernel's and nbclient's output too
    assert status == 1
    # the analysis is made before the notebook runs (the one run path): a later section
    # is the one that runs out of time; the message names it and its cell
    assert re.match(
        r"reportgen: error: the report notebook stopped: section '[^']+' "
        r"\(code cell \d+ of \d+\) ran longer than --timeout 1 s",
        err,
    ), err
    assert "Traceback" not in err
    assert not out.exists() and (tmp_path / "r.failed.ipynb").exists()

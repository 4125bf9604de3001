"""Write the bundled notebook templates (notebook_templates/*.ipynb).

The .ipynb files are the source users copy and edit; this script keeps them consistent:
`python tools/make_templates.py` rewrites them, and `tests/test_templates.py` checks that the
committed files are what it writes. The code cells are written as `ruff format` writes them, at
the repository's line length, so `ruff check .` and `ruff format --check .` pass on the
templates. A parameter's help (`papermill --help-notebook`) is the comment at the end of its
line, so each parameter line with its help fits in 100 characters.

Papermill needs literal defaults in a parameters cell; those of options (the theme, the
longest table, the title, ...) are written here from their one declaration in
`reportgen.config`, and `tests/test_declared_defaults.py` checks that they agree.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from reportgen.config import TITLES, command_default, default

HERE = Path(__file__).resolve().parents[1] / "notebook_templates"
LINE_LENGTH = 100  # [tool.ruff] line-length in pyproject.toml
# Ids of cells added after the numbering c00, c01, ... was made; kept so that the ids of the
# cells after them do not change
GIVEN_IDS = {"release-flips"}


def literal(value: Any) -> str:
    """`value` as a Python literal the way `ruff format` writes it (double quotes)."""
    return json.dumps(value) if isinstance(value, str) else repr(value)


COMMON_PARAMETERS = """\
# Parameters: `reportgen run` sets them; see `papermill --help-notebook {name}.ipynb`
data: list = ["examples/data"]  # result files or folders, combined into one table
config: str = ""  # TOML config: metric directions/weights, dataset weights, systems ("" for none)
load_options: dict = {{}}  # how to read the inputs: reportgen.data.LoadOptions (format, ...)
analysis_options: dict = {{}}  # the statistics: reportgen.analysis.AnalysisOptions (seed, ...)
title: str = {title}  # the report's title
release: str = ""  # release label shown in the header and the page footer ("" for none)
theme: str = {theme}  # chart and page theme: a bundled name (default, print) or a folder
output_dir: str = "report-output"  # where results.json and tables/*.csv are written
max_table_rows: int = {rows}  # longest pairwise table shown per dataset x metric (all in tables/)
execution: dict = {{}}  # where the units run: reportgen.execution.Execution; same numbers
analysis_file: str = ""  # the analysis `reportgen run` made first ("": load and analyse here)
analysis_sha256: str = ""  # SHA-256 of analysis_file (a file that does not match is not read)"""


def common_parameters(name: str) -> str:
    """The parameters cell shared by the evaluation and the release template (`name`),
    its defaults from `reportgen.config`."""
    return COMMON_PARAMETERS.format(
        name=name,
        title=literal(TITLES[name]),
        theme=literal(default("theme")),
        rows=literal(default("max_table_rows")),
    )


# The arguments of `rs.prepare` shared by the evaluation and the release template, one a line
PREPARE_ARGUMENTS = """\
    data,
    config=config or None,
    load_options=load_options,
    analysis_options=analysis_options,
    title=title,
    release=release or None,
    theme=theme,
    output_dir=output_dir,
    max_table_rows=max_table_rows,
    analysis_file=analysis_file,
    analysis_sha256=analysis_sha256,"""


def comment(text: str) -> str:
    """`text` as comment lines that fit in the line length."""
    return textwrap.fill(
        text, LINE_LENGTH, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False
    )


def section(name: str, call: str, doc: str, *, module: str = "rs", arg: str = "report", cid=None):
    cell = new_code_cell(f"{comment(doc)}\n{module}.{call}({arg})")
    cell.metadata["reportgen"] = {"section": name}
    if cid is not None:
        assert cid in GIVEN_IDS
        cell.id = cid
    return cell


def intro(text: str):
    cell = new_markdown_cell(text)
    cell.metadata["tags"] = ["remove"]  # for people reading the notebook, not the report
    return cell


def parameters(source: str):
    cell = new_code_cell(source)
    cell.metadata["tags"] = ["parameters"]
    cell.metadata["reportgen"] = {"section": "parameters"}
    return cell


def finish(source: str):
    cell = new_code_cell(source)
    cell.metadata["tags"] = ["remove-output"]
    cell.metadata["reportgen"] = {"section": "outputs"}
    return cell


def notebook(cells, *, release: bool) -> nbformat.NotebookNode:
    nb = new_notebook(cells=cells)
    k = 0
    for cell in nb.cells:  # stable ids: rewriting gives the same file
        if cell.id in GIVEN_IDS:
            continue
        section = cell.metadata.get("reportgen", {}).get("section", cell.cell_type)
        slug = "".join(ch if ch.isalnum() else "-" for ch in section.lower())[:40]
        cell.id = f"c{k:02d}-{slug}"
        k += 1
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["reportgen"] = {"release": release}
    return nb


def evaluation() -> nbformat.NotebookNode:
    prepare = new_code_cell(
        "# Load the data and run the whole analysis (the numbers of every section below)\n"
        "from reportgen.report import sections as rs\n\n"
        "report = rs.prepare(\n"
        f"{PREPARE_ARGUMENTS}\n"
        "    execution=execution,\n"
        '    figure_workers="auto",\n'
        ")"
    )
    prepare.metadata["reportgen"] = {"section": "analysis"}
    cells = [
        intro(
            "# Evaluation report\n\nA recipe executed by `reportgen run` (papermill): each "
            "cell below shows one section of the report and is omitted from it when it "
            "has nothing to show. Copy this notebook to make your own template: "
            "`reportgen run DATA --template my.ipynb`. The markdown cells tagged "
            "`remove` (like this one) do not appear in the report."
        ),
        parameters(common_parameters("evaluation")),
        prepare,
        section(
            "Key findings",
            "summary",
            "Who leads, whether the leaders are distinguishable, the largest reliable gaps, "
            "the noise floor; the contents follow",
        ),
        section(
            "Results",
            "results_matrix",
            "The central table (systems × dataset × metric with intervals and tie groups) "
            "and the overview chart",
        ),
        section(
            "Battles",
            "battles",
            "Battles (arena votes, pairwise judges): ratings, each pair decided from its "
            "battles, win rates",
        ),
        section(
            "Across datasets",
            "across_datasets",
            "Ordered ranking over datasets: harmonic-mean p, graph or letters, sign tests, "
            "critical difference",
        ),
        section(
            "Noise and power",
            "noise_and_power",
            "Minimum detectable effect of each dataset × metric",
        ),
        section("Methods", "methods", "How the numbers were made, glossary, references"),
        section("Appendix", "appendix", "The detail, folded in HTML"),
        section(
            "Per dataset × metric",
            "per_sample_list",
            "Systems with intervals, pairwise table, graph (few systems) and PWPP, per "
            "dataset × metric",
        ),
        section(
            "Across metrics",
            "across_metrics",
            "Heatmap of pairs × metrics; the metric aggregate (datasets with several metrics)",
        ),
        section(
            "Benchmark noise", "noise_detail", "Noise profile, Bradley-Terry ratings, MDE curve"
        ),
        section("Items", "items_section", "Items solved by none or one, suspect items, difficulty"),
        section(
            "Items with their text",
            "notable_items",
            "Items solved by one system only and suspect items, with their inputs and outputs",
        ),
        section(
            "Repeated runs", "repeated_runs", "Run-to-run variation (datasets with repeated runs)"
        ),
        section(
            "Groups and hyperparameters",
            "groups_and_hyperparameters",
            "Comparisons within item groups and by hyperparameter",
        ),
        section(
            "Data", "data_section", "Systems, datasets, metrics, pairing, exclusions, warnings"
        ),
        section(
            "Tests, inputs and versions",
            "provenance",
            "Which test where and why, inputs with hashes, versions",
        ),
        finish(
            "# Write results.json (validated against its schema) and tables/*.csv\n"
            "rs.write_outputs(report)"
        ),
    ]
    return notebook(cells, release=False)


def release() -> nbformat.NotebookNode:
    params = common_parameters("release") + (
        '\nbaseline: str = ""  # the system the release is compared with\n'
        'candidate: str = ""  # the candidate; "": the release label if it names a system, else '
        "the other"
    )
    prepare = new_code_cell(
        "# Load the data and compare the candidate with the baseline on every dataset x metric\n"
        "from reportgen.report import sections as rs\n\n"
        "report = rs.prepare(\n"
        f"{PREPARE_ARGUMENTS}\n"
        "    release_report=True,\n"
        "    baseline=baseline or None,\n"
        "    candidate=candidate or None,\n"
        "    execution=execution,\n"
        '    figure_workers="auto",\n'
        ")"
    )
    prepare.metadata["reportgen"] = {"section": "analysis"}
    cells = [
        intro(
            "# Release report\n\nA candidate release against its baseline: per dataset × "
            "metric the difference with its interval and adjusted p-value, and a verdict "
            "(improved / regressed / no detectable difference, with the minimum detectable "
            "effect; with `--margin DELTA`: improved / regressed / non-inferior / "
            "inconclusive, with equivalence beside it), and the items the candidate lost and "
            "gained. Run with `reportgen run DATA --template release --baseline OLD "
            "--candidate NEW`; `--gate regression` or `--gate non-inferiority` turns it into "
            "a CI gate."
        ),
        parameters(params),
        prepare,
        section("Release verdict", "release_summary", "Verdict per dataset × metric"),
        section("Differences", "release_details", "Forest plot of candidate − baseline"),
        section(
            "Per dataset × metric",
            "per_sample_list",
            "Means with intervals and the comparison of each dataset × metric",
        ),
        section(
            "Per dataset × metric",
            "release_items",
            "Items the candidate lost and gained: their inputs and both outputs (or metadata)",
            cid="release-flips",
        ),
        section(
            "Noise and power", "noise_and_power", "Minimum detectable effects and benchmark noise"
        ),
        section("Repeated runs", "repeated_runs", "Run-to-run variation"),
        section(
            "Data", "data_section", "Systems, datasets, metrics, pairing, exclusions, warnings"
        ),
        section("Methods", "methods", "Tests, correction, seed, inputs with hashes"),
        finish(
            "# Write results.json (validated against its schema) and tables/*.csv\n"
            "rs.write_outputs(report)"
        ),
    ]
    return notebook(cells, release=True)


def history() -> nbformat.NotebookNode:
    params = (
        "# Parameters: `reportgen history` sets them; see `papermill --help-notebook "
        "history.ipynb`\n"
        "reports: list = []  # archived report folders, one per release\n"
        f"order: str = {literal(command_default('history', 'order'))}  # auto, release "
        "(natural order of labels), created, given\n"
        "follow: list = []  # the --system items: one name for every report, or per release\n"
        "references: list = []  # other systems drawn in the trend charts\n"
        f"recompute: str = {literal(command_default('history', 'recompute'))}  # auto (stored "
        "tests, else per-item data, else intervals), always, never\n"
        f"title: str = {literal(command_default('history', 'title'))}  # the report's title\n"
        f"theme: str = {literal(command_default('history', 'theme'))}  # chart and page theme: "
        "a bundled name or a theme folder\n"
        'output_dir: str = "history-output"  # where history.json and tables/*.csv are written\n'
        f"allow_edited: bool = {literal(command_default('history', 'allow_edited'))}  # show a "
        "release whose results.json was edited, marked as such"
    )
    prepare = new_code_cell(
        "# Read the archived reports, order them and test the change between consecutive "
        "releases\n"
        "from reportgen.report import history as hs\n\n"
        "history = hs.prepare(\n"
        "    reports,\n"
        "    order=order,\n"
        "    follow=follow,\n"
        "    references=references,\n"
        "    recompute=recompute,\n"
        "    title=title,\n"
        "    theme=theme,\n"
        "    output_dir=output_dir,\n"
        "    allow_edited=allow_edited,\n"
        ")"
    )
    prepare.metadata["reportgen"] = {"section": "history"}

    def cell(name: str, call: str, doc: str):
        return section(name, call, doc, module="hs", arg="history")

    cells = [
        intro(
            "# Release history\n\nA model followed across releases: per dataset × "
            "metric its mean with the interval of each archived report, and the change "
            "between consecutive releases tested (the test stored in a report, else "
            "recomputed from the per-item data, else approximated from the intervals). "
            "Run with `reportgen history REPORT_DIR... --out DIR`."
        ),
        parameters(params),
        prepare,
        cell("Releases", "overview", "The releases in order and the significant changes"),
        cell("Trends", "trends", "Mean per release with its interval, per dataset × metric"),
        cell("Changes", "changes", "Every tested change between consecutive releases"),
        cell("Methods", "methods", "How each change was tested"),
        finish("# Write history.json and tables/*.csv\nhs.write_outputs(history)"),
    ]
    nb = notebook(cells, release=False)
    nb.metadata["reportgen"] = {"release": False, "history": True}
    return nb


def data_overview() -> nbformat.NotebookNode:
    """The notebook of `reportgen run --template data_overview`: the inputs, no analysis."""
    params = new_code_cell(
        "# Parameters (papermill -p NAME VALUE; see `papermill --help-notebook`)\n"
        'data: list = ["examples/data"]  # result files or folders, combined into one table\n'
        'data_format: str = ""  # input format name; "" detects it from each file\n'
        'config: str = ""  # TOML file of metric/dataset properties; "" infers them\n'
        f"nan_policy: str = {literal(default('nan_policy'))}  # a missing score: "
        '"drop" (count it) or "raise"'
    )
    params.metadata["tags"] = ["parameters"]
    cells = [
        new_markdown_cell(
            "# Data overview\n\nWhat the evaluation results hold: systems, datasets, metrics, "
            "items, runs, pairing, modality, and every problem found. Produced by "
            "`reportgen`; the same information as `reportgen inspect`."
        ),
        params,
        new_code_cell(
            "import pandas as pd\n"
            "from IPython.display import Markdown, display\n\n"
            "from reportgen.data import LoadOptions, load\n\n"
            "table = load(\n"
            "    data,\n"
            "    options=LoadOptions(format=data_format or None, nan_policy=nan_policy),\n"
            "    config=config or None,\n"
            ")\n"
            "summary = table.summary()\n"
            "display(\n"
            "    Markdown(\n"
            "        f\"**{summary['n_rows']:,} scores** from "
            "{len(summary['inputs'])} input(s); \"\n"
            '        f"**{len(table.systems)} systems**, **{len(table.datasets)} datasets**, "\n'
            '        f"**{len(table.metrics)} metrics**."\n'
            "    )\n"
            ")\n"
            'pd.DataFrame(summary["inputs"])'
        ),
        new_markdown_cell("## Datasets and pairing"),
        new_code_cell(
            "pd.DataFrame(\n"
            "    [\n"
            "        {\n"
            '            "dataset": d["name"],\n'
            '            "metric": m["metric"],\n'
            '            "modality": m["modality"],\n'
            '            "pairing": m["pairing"]["kind"],\n'
            '            "analysed": m["pairing"]["recommended"],\n'
            '            "systems": m["n_systems"],\n'
            '            "items": m["n_items"],\n'
            '            "common items": m["pairing"]["n_common"],\n'
            '            "runs": d["runs"] or 1,\n'
            "        }\n"
            '        for d in summary["datasets"]\n'
            '        for m in d["metrics"]\n'
            "    ]\n"
            ")"
        ),
        new_markdown_cell("## Metrics"),
        new_code_cell('pd.DataFrame(summary["metrics"]).set_index("name")'),
        new_markdown_cell("## Systems"),
        new_code_cell(
            "attributes = table.system_attributes\n"
            'attributes if len(attributes.columns) else pd.DataFrame({"system": table.systems})'
        ),
        new_markdown_cell("## Exclusions and problems"),
        new_code_cell(
            'if summary["exclusions"]:\n'
            '    display(pd.DataFrame(summary["exclusions"]))\n'
            'if summary["problems"]:\n'
            '    display(pd.DataFrame(summary["problems"]))\n'
            'if not summary["exclusions"] and not summary["problems"]:\n'
            '    display(Markdown("No exclusions and no problems found."))'
        ),
    ]
    nb = notebook(cells, release=False)
    del nb.metadata["reportgen"]  # as it was written by hand: it reads as release False
    return nb


TEMPLATES = {
    "evaluation": evaluation,
    "release": release,
    "history": history,
    "data_overview": data_overview,
}


def write(folder: Path = HERE) -> list[Path]:
    """Write every template into `folder`; the paths written."""
    written = []
    for name, build in TEMPLATES.items():
        nb = build()
        nbformat.validate(nb)
        path = folder / f"{name}.ipynb"
        nbformat.write(nb, str(path))
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(f"wrote {path}")

"""Write the bundled notebook templates (notebook_templates/evaluation.ipynb,
release.ipynb and history.ipynb). The .ipynb files are the source users copy and edit; this script keeps
the two consistent: `python tools/make_templates.py` rewrites them."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parents[1] / "notebook_templates"

COMMON_PARAMETERS = '''\
# Parameters: `reportgen run` sets them; see `papermill --help-notebook {name}.ipynb`
data: list = ["examples/data"]  # result files or folders, combined into one table
config: str = ""  # TOML config: metric directions/weights, dataset weights, systems ("" for none)
load_options: dict = {{}}  # how to read the inputs: fields of reportgen.data.LoadOptions (format, system_col, ...)
analysis_options: dict = {{}}  # the statistics: fields of reportgen.analysis.AnalysisOptions (seed, alpha, correction, ...)
title: str = "{title}"  # the report's title
release: str = ""  # release label shown in the header and the page footer ("" for none)
theme: str = "default"  # chart and page theme: a bundled name (default, print) or a theme folder
output_dir: str = "report-output"  # where results.json and tables/*.csv are written
max_table_rows: int = 40  # longest pairwise table shown per dataset x metric (all pairs go to tables/)
execution: dict = {{}}  # where the dataset x metric units run (jobs, executor, scheduler of reportgen.execution.Execution); never changes the numbers
analysis_file: str = ""  # the data and analysis `reportgen run` made before the notebook started ("": load and analyse here)
analysis_sha256: str = ""  # the SHA-256 of analysis_file (a file that does not match is not read)
'''


def section(name: str, call: str, doc: str) -> new_code_cell:
    cell = new_code_cell(f"# {doc}\nrs.{call}(report)")
    cell.metadata["reportgen"] = {"section": name}
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


def finish():
    cell = new_code_cell("# Write results.json (validated against its schema) and tables/*.csv\n"
                         "rs.write_outputs(report)")
    cell.metadata["tags"] = ["remove-output"]
    cell.metadata["reportgen"] = {"section": "outputs"}
    return cell


def notebook(cells, *, release: bool) -> nbformat.NotebookNode:
    nb = new_notebook(cells=cells)
    for k, cell in enumerate(nb.cells):  # stable ids: rewriting gives the same file
        section = cell.metadata.get("reportgen", {}).get("section", cell.cell_type)
        cell.id = f"c{k:02d}-" + "".join(ch if ch.isalnum() else "-"
                                         for ch in section.lower())[:40]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["reportgen"] = {"release": release}
    return nb


def evaluation() -> nbformat.NotebookNode:
    prepare = new_code_cell(
        "# Load the data and run the whole analysis (the numbers of every section below)\n"
        "from reportgen.report import sections as rs\n\n"
        "report = rs.prepare(data, config=config or None, load_options=load_options,\n"
        "                    analysis_options=analysis_options, title=title,\n"
        "                    release=release or None, theme=theme, output_dir=output_dir,\n"
        "                    max_table_rows=max_table_rows, execution=execution,\n"
        "                    figure_workers=\"auto\", analysis_file=analysis_file,\n"
        "                    analysis_sha256=analysis_sha256)")
    prepare.metadata["reportgen"] = {"section": "analysis"}
    cells = [
        intro("# Evaluation report\n\nA recipe executed by `reportgen run` (papermill): each "
              "cell below shows one section of the report and is omitted from it when it "
              "has nothing to show. Copy this notebook to make your own template: "
              "`reportgen run DATA --template my.ipynb`. The markdown cells tagged "
              "`remove` (like this one) do not appear in the report."),
        parameters(COMMON_PARAMETERS.format(name="evaluation", title="Evaluation report")),
        prepare,
        section("Key findings", "summary", "Who leads, whether the leaders are "
                "distinguishable, the largest reliable gaps, the noise floor; the "
                "contents follow"),
        section("Results", "results_matrix", "The central table (systems × dataset × "
                "metric with intervals and tie groups) and the overview chart"),
        section("Across datasets", "across_datasets", "Ordered ranking over datasets: "
                "harmonic-mean p, graph or letters, sign tests, critical difference"),
        section("Noise and power", "noise_and_power", "Minimum detectable effect of "
                "each dataset × metric"),
        section("Methods", "methods", "How the numbers were made, glossary, references"),
        section("Appendix", "appendix", "The detail, folded in HTML"),
        section("Per dataset × metric", "per_sample_list", "Systems with intervals, "
                "pairwise table, graph (few systems) and PWPP, per dataset × metric"),
        section("Across metrics", "across_metrics", "Heatmap of pairs × metrics; the "
                "metric aggregate (datasets with several metrics)"),
        section("Benchmark noise", "noise_detail", "Noise profile, Bradley-Terry "
                "ratings, MDE curve"),
        section("Items", "items_section", "Items solved by none or one, suspect items, "
                "difficulty"),
        section("Repeated runs", "repeated_runs", "Run-to-run variation (datasets with "
                "repeated runs)"),
        section("Groups and hyperparameters", "groups_and_hyperparameters",
                "Comparisons within item groups and by hyperparameter"),
        section("Data", "data_section", "Systems, datasets, metrics, pairing, exclusions, "
                "warnings"),
        section("Tests, inputs and versions", "provenance", "Which test where and why, "
                "inputs with hashes, versions"),
        finish(),
    ]
    return notebook(cells, release=False)


def release() -> nbformat.NotebookNode:
    params = COMMON_PARAMETERS.format(name="release", title="Release report") + (
        'baseline: str = ""  # the system the release is compared with\n'
        'candidate: str = ""  # the release candidate ("" : the release label if it names a '
        'system, else the only other system)\n')
    prepare = new_code_cell(
        "# Load the data and compare the candidate with the baseline on every dataset x metric\n"
        "from reportgen.report import sections as rs\n\n"
        "report = rs.prepare(data, config=config or None, load_options=load_options,\n"
        "                    analysis_options=analysis_options, title=title,\n"
        "                    release=release or None, theme=theme, output_dir=output_dir,\n"
        "                    max_table_rows=max_table_rows, release_report=True,\n"
        "                    baseline=baseline or None, candidate=candidate or None,\n"
        "                    execution=execution, figure_workers=\"auto\",\n"
        "                    analysis_file=analysis_file, analysis_sha256=analysis_sha256)")
    prepare.metadata["reportgen"] = {"section": "analysis"}
    cells = [
        intro("# Release report\n\nA candidate release against its baseline: per dataset × "
              "metric the difference with its interval and adjusted p-value, and a verdict "
              "(improved / regressed / no detectable difference, with the minimum "
              "detectable effect; with `--margin DELTA`: improved / regressed / "
              "non-inferior / inconclusive, with equivalence beside it), and the items the "
              "candidate lost and gained. Run with `reportgen run DATA --template release "
              "--baseline OLD --candidate NEW`; `--gate regression` or `--gate "
              "non-inferiority` turns it into a CI gate."),
        parameters(params),
        prepare,
        section("Release verdict", "release_summary", "Verdict per dataset × metric"),
        section("Differences", "release_details", "Forest plot of candidate − baseline"),
        section("Per dataset × metric", "per_sample_list", "Means with intervals and "
                "the comparison of each dataset × metric"),
        section("Per dataset × metric", "release_flips", "Items the candidate lost and "
                "gained, with their metadata"),
        section("Noise and power", "noise_and_power", "Minimum detectable effects and "
                "benchmark noise"),
        section("Repeated runs", "repeated_runs", "Run-to-run variation"),
        section("Data", "data_section", "Systems, datasets, metrics, pairing, exclusions, "
                "warnings"),
        section("Methods", "methods", "Tests, correction, seed, inputs with hashes"),
        finish(),
    ]
    return notebook(cells, release=True)


def history() -> nbformat.NotebookNode:
    params = (
        "# Parameters: `reportgen history` sets them; see `papermill --help-notebook "
        "history.ipynb`\n"
        "reports: list = []  # archived report folders, one per release\n"
        'order: str = "auto"  # auto, release (natural order of labels), created, given\n'
        "follow: list = []  # the --system items: one name for every report, or per release\n"
        "references: list = []  # other systems drawn in the trend charts\n"
        'recompute: str = "auto"  # auto (stored tests, else per-item data, else intervals), '
        "always, never\n"
        'title: str = "Release history"  # the report\'s title\n'
        'theme: str = "default"  # chart and page theme: a bundled name or a theme folder\n'
        'output_dir: str = "history-output"  # where history.json and tables/*.csv are '
        "written\n")
    prepare = new_code_cell(
        "# Read the archived reports, order them and test the change between consecutive "
        "releases\n"
        "from reportgen.report import history as hs\n\n"
        "history = hs.prepare(reports, order=order, follow=follow, references=references,\n"
        "                     recompute=recompute, title=title, theme=theme,\n"
        "                     output_dir=output_dir)")
    prepare.metadata["reportgen"] = {"section": "history"}

    def cell(name: str, call: str, doc: str):
        c = new_code_cell(f"# {doc}\nhs.{call}(history)")
        c.metadata["reportgen"] = {"section": name}
        return c

    done = new_code_cell("# Write history.json and tables/*.csv\nhs.write_outputs(history)")
    done.metadata["tags"] = ["remove-output"]
    done.metadata["reportgen"] = {"section": "outputs"}
    cells = [
        intro("# Release history\n\nA model followed across releases: per dataset × "
              "metric its mean with the interval of each archived report, and the change "
              "between consecutive releases tested (the test stored in a report, else "
              "recomputed from the per-item data, else approximated from the intervals). "
              "Run with `reportgen history REPORT_DIR... --out DIR`."),
        parameters(params),
        prepare,
        cell("Releases", "overview", "The releases in order and the significant changes"),
        cell("Trends", "trends", "Mean per release with its interval, per dataset × metric"),
        cell("Changes", "changes", "Every tested change between consecutive releases"),
        cell("Methods", "methods", "How each change was tested"),
        done,
    ]
    nb = notebook(cells, release=False)
    nb.metadata["reportgen"] = {"release": False, "history": True}
    return nb


if __name__ == "__main__":
    for name, nb in (("evaluation", evaluation()), ("release", release()),
                     ("history", history())):
        nbformat.validate(nb)
        nbformat.write(nb, str(HERE / f"{name}.ipynb"))
        print(f"wrote {HERE / name}.ipynb")

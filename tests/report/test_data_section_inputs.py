"""The Data section lists skipped inputs and descriptive statistics (real logs:
tests/fixtures/real/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from reportgen.report import sections as rs

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def test_data_section_lists_skipped_inputs_and_descriptive_statistics() -> None:
    report = rs.prepare(
        [
            REAL / "inspect" / "eval_set-0.3.285",
            REAL / "inspect" / "cancelled-0.3.95",
            REAL / "helm" / "suite-0.5.16" / "benchmark_output",
        ],
        analysis_options={"seed": 1, "n_resamples": 99},
    )
    block = rs.data_section(report)
    assert block is not None
    html = str(block.html if hasattr(block, "html") else block)
    assert "Skipped inputs" in html and "2025-05-12T20-28-13-04-00_no-samples.json" in html
    assert "the log holds no samples: the eval was cancelled" in html
    assert "Descriptive statistics" in html and "num_prompt_tokens" in html
    assert "every system has one run per item" in html


def test_many_descriptive_statistics_are_summarised_per_statistic() -> None:
    rows = [
        {"system": f"s{i}", "dataset": f"d{j}", "statistic": name, "mean": float(i + j), "n": 5}
        for i in range(5)
        for j in range(4)
        for name in ("num_prompt_tokens", "inference_runtime")
    ]
    from reportgen.report.sections.data import _descriptive_block

    html = "".join(_descriptive_block(rows))
    assert "40 system × dataset means, summarised per statistic" in html
    assert html.count("<tr>") == 3  # header + one row per statistic
    assert '<td class="num">7.000</td>' in html  # the largest mean, 4 + 3

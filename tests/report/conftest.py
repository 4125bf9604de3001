"""Fixtures shared by the e-mail and history tests: three archived release reports of
the bundled example, one per synthetic release, as a team would keep them next to their
checkpoints."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.report.pipeline import RunSpec, run_report

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
EXAMPLE_CONFIG = ROOT / "examples" / "reportgen.toml"

#: (release label, baseline, candidate): a big improvement, then the documented near-tie
#: of the example (starcoder2-15b fim 4k vs 8k).
RELEASES = (
    ("v2.0", "granite-3b|fim|4k", "starcoder2-3b|fim|4k"),
    ("v9.1", "starcoder2-3b|fim|4k", "starcoder2-15b|fim|4k"),
    ("v10.0", "starcoder2-15b|fim|4k", "starcoder2-15b|fim|8k"),
)


@pytest.fixture(scope="session")
def example_releases(tmp_path_factory) -> dict[str, Path]:
    """Release reports v2.0, v9.1, v10.0 (the last with a PDF) in
    ``checkpoints/<label>/eval-report``."""
    base = tmp_path_factory.mktemp("checkpoints")
    out = {}
    for k, (label, baseline, candidate) in enumerate(RELEASES):
        checkpoint = base / label
        checkpoint.mkdir()
        (checkpoint / "model.safetensors").write_bytes(b"weights")
        folder = checkpoint / "eval-report"
        run_report(
            RunSpec(
                data=(str(EXAMPLE),),
                out=str(folder),
                config=str(EXAMPLE_CONFIG),
                analysis_options={"seed": 11 + k, "n_resamples": 999, "baseline": baseline},
                title="Example release",
                release=label,
                template="release",
                baseline=baseline,
                candidate=candidate,
                formats=("html", "pdf") if label == "v10.0" else ("html",),
            )
        )
        out[label] = folder
    return out

"""Generate the bundled example data of reportgen (synthetic, deterministic).

The data imitate the shape of the CrossCodeEval study in section 7 of the reportgen
method specification (seed 000): several code-completion systems, defined by
hyperparameters (model, prompt format, context size), scored per item on four
programming-language datasets of different sizes with three continuous metrics on
different scales, plus one binary unit-test benchmark with repeated runs.

Nothing here is real data. Every number comes from the generating model below, whose
true effects are listed in ``examples/README.md`` so a report can be checked against
the truth.

Usage::

    python examples/generate.py [--out examples/data]

The output is byte-identical on every run (one ``numpy.random.default_rng(SEED)``,
draws in a fixed order, fixed number formatting, ``\\n`` line endings).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

#: The one seed every draw derives from.
SEED = 20240611

#: Additive model effects on the latent quality scale (the dominant factor).
MODEL_EFFECTS: dict[str, float] = {
    "starcoder2-15b": 0.80,
    "codellama-13b": 0.59,
    "codegemma-7b": 0.45,
    "codellama-7b": 0.27,
    "starcoder2-3b": 0.00,
    "granite-3b": -0.31,
}
#: Additive prompt-format effects: fill-in-the-middle versus left-to-right.
FORMAT_EFFECTS: dict[str, float] = {"fim": 0.20, "l2r": 0.00}
#: Additive context-size effects.
CONTEXT_EFFECTS: dict[str, float] = {"2k": 0.00, "4k": 0.12, "8k": 0.17}
#: The one interaction: starcoder2 models were trained with a FIM objective.
STARCODER2_FIM_BONUS = 0.10

#: The systems: (model, prompt format, context size); the name joins them with ``|``.
SYSTEMS: tuple[tuple[str, str, str], ...] = (
    ("starcoder2-15b", "fim", "8k"),
    ("starcoder2-15b", "fim", "4k"),
    ("starcoder2-15b", "l2r", "4k"),
    ("codellama-13b", "fim", "4k"),
    ("codellama-13b", "l2r", "4k"),
    ("codegemma-7b", "fim", "4k"),
    ("codegemma-7b", "fim", "2k"),
    ("codellama-7b", "fim", "8k"),
    ("codellama-7b", "fim", "4k"),
    ("starcoder2-3b", "fim", "4k"),
    ("starcoder2-3b", "l2r", "2k"),
    ("granite-3b", "fim", "4k"),
)


@dataclass(frozen=True)
class _DatasetSpec:
    """One code-completion dataset: its size and how it shifts quality and length."""

    name: str
    prefix: str
    n_items: int
    offset: float
    log_length: float


#: The four language datasets: clearly different sizes, different overall difficulty.
DATASETS: tuple[_DatasetSpec, ...] = (
    _DatasetSpec("csharp", "cs", 240, -0.15, 3.75),
    _DatasetSpec("java", "java", 360, 0.10, 3.85),
    _DatasetSpec("python", "py", 520, 0.25, 3.55),
    _DatasetSpec("typescript", "ts", 300, 0.00, 3.65),
)

#: Standard deviations of the noise terms on the latent scale.
SHARED_NOISE_SD = 0.45  # per (system, item), shared by the three metrics
ES_NOISE_SD = 0.25  # edit similarity's own noise
F1_NOISE_SD = 0.45  # identifier F1's own noise
ED_NOISE_SD = 0.35  # edit distance's own noise

#: Latent difficulty cut points for the ``difficulty`` column (about terciles of N(0, 1)).
DIFFICULTY_CUTS = (-0.43, 0.43)

#: The unit-test benchmark: items, repeated runs, and its logistic model.
UNITTEST_ITEMS = 200
UNITTEST_RUNS = 5
UNITTEST_DIFFICULTY_SD = 1.3
UNITTEST_SLOPE = 1.8  # logit change per unit of system skill
UNITTEST_CENTER = 0.6  # skill at which an average item passes half the time
UNITTEST_ITEM_NOISE_SD = 0.6  # persistent per (system, item)
UNITTEST_RUN_NOISE_SD = 0.7  # fresh in every run

CODECOMPLETION_FILE = "codecompletion.csv"
UNITTESTS_FILE = "unittests_runs.csv"


def system_name(model: str, prompt_format: str, context_size: str) -> str:
    """Return the system name built from its hyperparameters, e.g. ``starcoder2-15b|fim|4k``."""
    return f"{model}|{prompt_format}|{context_size}"


def true_skill(model: str, prompt_format: str, context_size: str) -> float:
    """Return a system's true skill on the latent quality scale.

    Parameters
    ----------
    model, prompt_format, context_size
        The system's hyperparameters.

    Returns
    -------
    float
        ``model + format + context (+ 0.10 for starcoder2 with fim)``.
    """
    skill = MODEL_EFFECTS[model] + FORMAT_EFFECTS[prompt_format] + CONTEXT_EFFECTS[context_size]
    if model.startswith("starcoder2") and prompt_format == "fim":
        skill += STARCODER2_FIM_BONUS
    return round(skill, 10)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _difficulty_labels(difficulty: np.ndarray, scale: float = 1.0) -> np.ndarray:
    low, high = DIFFICULTY_CUTS[0] * scale, DIFFICULTY_CUTS[1] * scale
    return np.where(difficulty < low, "easy", np.where(difficulty > high, "hard", "medium"))


def _item_ids(prefix: str, n: int) -> np.ndarray:
    return np.array([f"{prefix}-{i:04d}" for i in range(1, n + 1)])


def _format(values: np.ndarray, decimals: int) -> np.ndarray:
    # Fixed formatting so the bytes never depend on pandas' float repr.
    return np.char.mod(f"%.{decimals}f", np.round(values, decimals) + 0.0)


def _codecompletion_dataset(
    rng: np.random.Generator, spec: _DatasetSpec, skills: np.ndarray
) -> pd.DataFrame:
    """Scores of every system on every item of one language dataset (paired)."""
    n_sys, n = len(skills), spec.n_items
    difficulty = rng.normal(0.0, 1.0, n)
    log_len = rng.normal(spec.log_length, 0.5, n)
    target_len = np.maximum(5.0, np.round(np.exp(log_len)))
    # Shared latent quality per (system, item): this is what correlates the metrics.
    quality = (
        spec.offset
        + skills[:, None]
        - difficulty[None, :]
        + rng.normal(0.0, SHARED_NOISE_SD, (n_sys, n))
    )
    es_noise = rng.normal(0.0, ES_NOISE_SD, (n_sys, n))
    f1_noise = rng.normal(0.0, F1_NOISE_SD, (n_sys, n))
    ed_noise = rng.normal(0.0, ED_NOISE_SD, (n_sys, n))

    # Bounded metrics: a sigmoid stretched past the bound, then clipped, so exact
    # matches (100, 1.0) and total misses (0.0) occur as they do in real data.
    edit_similarity = np.clip(105.0 * _sigmoid(1.3 * (quality + es_noise) + 0.3), 0.0, 100.0)
    identifier_f1 = np.clip(1.15 * _sigmoid(1.4 * (quality + f1_noise)) - 0.08, 0.0, 1.0)
    wrong_fraction = np.clip(
        1.1 * (1.0 - _sigmoid(1.3 * (quality + ed_noise) + 0.3)) - 0.05, 0.0, None
    )
    edit_distance = np.round(target_len[None, :] * wrong_fraction)

    items = _item_ids(spec.prefix, n)
    labels = _difficulty_labels(difficulty)
    scores = {
        "edit_distance": _format(edit_distance, 0),
        "edit_similarity": _format(edit_similarity, 1),
        "identifier_f1": _format(identifier_f1, 3),
    }
    frames = []
    for metric, values in scores.items():
        for s, (model, prompt_format, context_size) in enumerate(SYSTEMS):
            frames.append(
                pd.DataFrame(
                    {
                        "system": system_name(model, prompt_format, context_size),
                        "dataset": spec.name,
                        "metric": metric,
                        "item": items,
                        "score": values[s],
                        "difficulty": labels,
                        "model": model,
                        "prompt_format": prompt_format,
                        "context_size": context_size,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def make_codecompletion(rng: np.random.Generator) -> pd.DataFrame:
    """Build the long code-completion table (4 datasets x 3 metrics x 12 systems)."""
    skills = np.array([true_skill(*s) for s in SYSTEMS])
    frames = [_codecompletion_dataset(rng, spec, skills) for spec in DATASETS]
    table = pd.concat(frames, ignore_index=True)
    return table.sort_values(
        ["dataset", "metric", "system", "item"], kind="stable", ignore_index=True
    )


def make_unittests(rng: np.random.Generator) -> pd.DataFrame:
    """Build the binary unit-test benchmark with repeated runs per item."""
    skills = np.array([true_skill(*s) for s in SYSTEMS])
    n_sys, n, runs = len(SYSTEMS), UNITTEST_ITEMS, UNITTEST_RUNS
    difficulty = rng.normal(0.0, UNITTEST_DIFFICULTY_SD, n)
    persistent = rng.normal(0.0, UNITTEST_ITEM_NOISE_SD, (n_sys, n))
    per_run = rng.normal(0.0, UNITTEST_RUN_NOISE_SD, (n_sys, n, runs))
    logit = (
        UNITTEST_SLOPE * (skills[:, None, None] - UNITTEST_CENTER)
        - difficulty[None, :, None]
        + persistent[:, :, None]
        + per_run
    )
    passed = (rng.random((n_sys, n, runs)) < _sigmoid(logit)).astype(np.int64)

    items = _item_ids("ut", n)
    labels = _difficulty_labels(difficulty, UNITTEST_DIFFICULTY_SD)
    frames = []
    for s, hyper in enumerate(SYSTEMS):
        for r in range(runs):
            frames.append(
                pd.DataFrame(
                    {
                        "system": system_name(*hyper),
                        "dataset": "unittests",
                        "metric": "pass",
                        "item": items,
                        "run": r,
                        "score": passed[s, :, r],
                        "difficulty": labels,
                    }
                )
            )
    table = pd.concat(frames, ignore_index=True)
    return table.sort_values(["system", "item", "run"], kind="stable", ignore_index=True)


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    frame.to_csv(path, index=False, lineterminator="\n", encoding="utf-8")


def generate(out: Path) -> list[Path]:
    """Write both example files into ``out`` and return their paths.

    Parameters
    ----------
    out
        The output folder; created if missing.

    Returns
    -------
    list of Path
        ``[out / "codecompletion.csv", out / "unittests_runs.csv"]``.
    """
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    paths = [out / CODECOMPLETION_FILE, out / UNITTESTS_FILE]
    _write_csv(make_codecompletion(rng), paths[0])
    _write_csv(make_unittests(rng), paths[1])
    return paths


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: ``python examples/generate.py [--out DIR]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "data",
        help="output folder (default: examples/data next to this script)",
    )
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

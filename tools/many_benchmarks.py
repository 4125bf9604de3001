"""A many-benchmark collection whose system sets only partly overlap, made from the shared
eval-arena files (``../shared/data/eval-arena``): the case of a team that evaluates every
new model on some of its benchmarks (issue 42).

    python tools/many_benchmarks.py OUT --preset arena11   # 11 benchmarks, 262 systems
    python tools/many_benchmarks.py OUT --preset arena6    # 7 files, 6 datasets, 197 systems

The five shared benchmarks are written as they are (into ``OUT``, never into the
repository). The others are simulated from them with a Rasch model (Rasch 1960): each
item keeps the difficulty its source benchmark shows (the logit of the share of systems
failing it), each system the ability its own benchmark shows (the logit of its mean), and
a new system is a variant of a real one (its ability moved by a normal draw of SD 0.3).
An outcome is a Bernoulli draw of ``sigmoid(ability − difficulty)``; a fractional
benchmark draws the share of its ``samples`` passing. The same preset and seed give the
same bytes.

Presets:

``arena6``
    The five shared benchmarks and two files that share the benchmark id ``humaneval``
    (``humaneval.jsonl``, ``humaneval_hf.jsonl``, their systems distinct): 7 files, 6
    datasets, 197 systems.
``arena11``
    The five and six simulated ones: 11 benchmarks, 262 systems; ``safim`` has 210 of
    them, ``cruxeval_input`` the same 37 as ``CRUXEval-output``, the others part of one
    benchmark's systems and some of their own.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "eval-arena"
SEED = 42
PRESETS = ("arena6", "arena11")

#: The shared benchmarks: file stem -> (benchmark id, samples per item for a fractional
#: pass1: 0 for 0/1 outcomes).
REAL = {
    "humaneval+": ("humaneval+", 0),
    "mbpp+": ("mbpp+", 0),
    "lcb_codegen": ("lcb_codegen", 10),
    "cruxeval_output": ("CRUXEval-output", 10),
    "terminal-bench-2.0": ("terminal-bench-2.0", 5),
}


@dataclass(frozen=True)
class Simulated:
    """A simulated benchmark: its file and id, the shared benchmark its items come from,
    its systems (real ones taken from ``systems_from``: the first ``n_real`` of them in
    the order of the file, or all), new variants of them, and samples per item."""

    file: str
    benchmark: str
    items_from: str
    systems_from: tuple[str, ...]
    n_real: int | None
    n_new: int
    new_prefix: str
    samples: int = 0


SIMULATED: dict[str, tuple[Simulated, ...]] = {
    "arena6": (
        Simulated("humaneval", "humaneval", "humaneval+", ("humaneval+",), 0, 14, "ft-"),
        Simulated("humaneval_hf", "humaneval", "humaneval+", ("humaneval+",), 0, 13, "hf/"),
    ),
    "arena11": (
        Simulated("humaneval", "humaneval", "humaneval+", ("humaneval+",), 40, 12, "ft-"),
        Simulated("mbpp", "mbpp", "mbpp+", ("mbpp+",), None, 22, "sft-"),
        Simulated(
            "cruxeval_input", "cruxeval_input", "cruxeval_output", ("cruxeval_output",), None, 0, ""
        ),
        Simulated(
            "lcb_codegen_v2", "lcb_codegen_v2", "lcb_codegen", ("lcb_codegen",), 30, 11, "v2-"
        ),
        Simulated(
            "safim",
            "safim",
            "mbpp+",
            ("humaneval+", "mbpp+", "lcb_codegen", "cruxeval_output"),
            None,
            40,
            "safim-",
        ),
        Simulated(
            "terminal-bench-1.0",
            "terminal-bench-1.0",
            "terminal-bench-2.0",
            ("terminal-bench-2.0",),
            None,
            7,
            "tb1-",
            samples=5,
        ),
    ),
}


def _read(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 0.02, 0.98)
    return np.log(p / (1 - p))


class _Source:
    """One shared benchmark: its items with their difficulty, its systems with their
    ability (in the order of the file)."""

    def __init__(self, rows: Sequence[dict]) -> None:
        self.items = list(dict.fromkeys(r["example_id"] for r in rows))
        self.systems = list(dict.fromkeys(r["model"] for r in rows))
        item_index = {x: k for k, x in enumerate(self.items)}
        system_index = {s: k for k, s in enumerate(self.systems)}
        scores = np.full((len(self.systems), len(self.items)), np.nan)
        for r in rows:
            scores[system_index[r["model"]], item_index[r["example_id"]]] = float(r["pass1"])
        self.difficulty = -_logit(np.nanmean(scores, axis=0))
        self.ability = dict(zip(self.systems, _logit(np.nanmean(scores, axis=1)).tolist()))


def write_collection(out: Path, preset: str = "arena11", *, seed: int = SEED) -> dict[str, int]:
    """Write the collection ``preset`` into the folder ``out`` (made if missing): one
    eval-arena JSON-lines file per benchmark. Returns the systems of each file."""
    if preset not in SIMULATED:
        raise ValueError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    sources: dict[str, _Source] = {}
    counts: dict[str, int] = {}
    for stem in REAL:
        path = SHARED / f"{stem}.jsonl"
        shutil.copyfile(path, out / path.name)
        rows = _read(path)
        sources[stem] = _Source(rows)
        counts[path.name] = len(sources[stem].systems)
    ability: dict[str, float] = {}
    for source in sources.values():
        for name, value in source.ability.items():
            ability.setdefault(name, value)
    for sim in SIMULATED[preset]:
        items = sources[sim.items_from]
        real: list[str] = []
        for stem in sim.systems_from:
            real += [s for s in sources[stem].systems if s not in real]
        if sim.n_real is not None:
            real = real[: sim.n_real]
        parents = real or sources[sim.systems_from[0]].systems
        new = [f"{sim.new_prefix}{parents[k % len(parents)]}" for k in range(sim.n_new)]
        systems = real + new
        theta = np.array(
            [ability[s] for s in real]
            + [ability[parents[k % len(parents)]] + rng.normal(0, 0.3) for k in range(sim.n_new)]
        )
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - items.difficulty[None, :])))
        if sim.samples:
            scores = rng.binomial(sim.samples, p) / sim.samples
        else:
            scores = (rng.random(p.shape) < p).astype(np.int64)
        with (out / f"{sim.file}.jsonl").open("w", encoding="utf-8") as f:
            for i, system in enumerate(systems):
                for j, item in enumerate(items.items):
                    line = {
                        "benchmark_id": sim.benchmark,
                        "model": system,
                        "example_id": item,
                        "pass1": float(scores[i, j]) if sim.samples else int(scores[i, j]),
                    }
                    if sim.samples and sim.items_from == "terminal-bench-2.0":
                        line["count"] = sim.samples
                    f.write(json.dumps(line) + "\n")
        counts[f"{sim.file}.jsonl"] = len(systems)
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write the JSON-lines files into")
    parser.add_argument("--preset", choices=PRESETS, default="arena11")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    counts = write_collection(args.out, args.preset, seed=args.seed)
    for name, n in counts.items():
        print(f"{name}: {n} systems")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Draw the structure of reportgen from its imports: which room (top-level module or
subpackage) imports which, as a text list (docs/design.md shows it).

    python tools/draw_imports.py            # the report layer's rooms
    python tools/draw_imports.py --all      # every room of the package

Only imports of reportgen itself count, at module level or inside functions (lazy
imports are imports too); a room's imports of itself are left out.
"""

from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "reportgen"


def room(module: str, depth: int) -> str:
    """``reportgen.report.mail.smtp`` -> ``report.mail`` at depth 2."""
    parts = module.split(".")[1:]
    return ".".join(parts[:depth]) if parts else "reportgen"


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    parts = name.split(".")[1:]
    if not parts or parts[0] not in {p.stem for p in ROOT.iterdir()}:
        return False
    path = ROOT.joinpath(*parts)
    return path.is_dir() or path.with_suffix(".py").is_file()


def edges(prefix: str, depth: int) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for path in sorted(ROOT.rglob("*.py")):
        name = module_name(path)
        if not name.startswith(prefix):
            continue
        here = room(name, depth)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative import
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for target in targets:
                if not _is_module(target):
                    continue  # a name imported from a module, not a module
                there = room(target, depth if target.startswith(prefix) else 1)
                if there != here:
                    out[here].add(there)
        out.setdefault(here, set())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="every room of the package")
    args = parser.parse_args()
    graph = edges("reportgen", 1) if args.all else edges("reportgen.report", 2)
    width = max(len(k) for k in graph)
    for here in sorted(graph):
        print(f"{here:<{width}}  -> {', '.join(sorted(graph[here])) or '(nothing of reportgen)'}")


if __name__ == "__main__":
    main()

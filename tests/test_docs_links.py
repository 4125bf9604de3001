"""Every relative link of the README, the CHANGELOG and the documentation reaches a file
that exists and, for a ``#anchor`` into a markdown file, a heading of that file (the
README moved its reference into docs/, issue 42 item 9: a moved section must not leave
a dead link behind).

The reference for an anchor is GitHub's heading slug: lower case, markup and punctuation
dropped, spaces as hyphens, ``-1``, ``-2`` for repeated headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [
    ROOT / "README.md",
    ROOT / "CHANGELOG.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "benchmarks" / "README.md",
    ROOT / "examples" / "README.md",
]


def _unfenced(text: str) -> str:
    """The text without fenced code blocks (a ``#`` there is a comment, not a heading)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _prose(text: str) -> str:
    """The text without code blocks and inline code (their brackets are code)."""
    return re.sub(r"`[^`\n]*`", "", _unfenced(text))


def _slugs(path: Path) -> set[str]:
    out: set[str] = set()
    seen: dict[str, int] = {}
    for line in _unfenced(path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m[2].strip().lower())
        s = re.sub(r"[^\w\- ]", "", s).replace(" ", "-")
        n = seen.get(s, 0)
        out.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1
    return out


def test_the_slug_rule_on_known_headings(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# Gate a release\n## `reportgen run`\n## Notes\n## Notes\n")
    assert _slugs(page) == {"gate-a-release", "reportgen-run", "notes", "notes-1"}


@pytest.mark.parametrize("page", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    dead = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # http:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            dead.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _slugs(dest):
            dead.append(f"{target}: no such heading")
    assert not dead, f"{page.relative_to(ROOT)}: " + "; ".join(dead)

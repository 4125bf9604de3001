"""What a reader of the e-mail sees (issue 34, items 2 and 9): the release decision and
every verdict readable at phone (375 px) and desktop (1300 px) width with the CSS inlined
(mail clients drop <style>), one merged sentence where the same outcome holds on several
dataset × metrics, and a chart over every dataset × metric the summary speaks of.

The e-mails are made from the session's reports of the bundled example
(tests/report/conftest.py): the release v2.0 (13 improved), v10.0 (13 with no detectable
difference) and the evaluation report of 12 systems on 13 dataset × metrics. Every
number and word checked comes from the report's results.json (the ledger's
serialisation), found here without the e-mail's code; the browser tests measure the
HTML body in headless Chromium (the shared ``browser`` fixture) and skip without it.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from reportgen import format as fmt
from reportgen.report.mail import build_summary, read_report_folder
from reportgen.report.mail.summary import _headline_chart, _leads, _verdict_chart

PHONE = {"width": 375, "height": 800}
DESKTOP = {"width": 1300, "height": 900}
VERDICTS = ("improved", "regressed", "non-inferior", "inconclusive", "no detectable difference")
#: The width a 375 px phone leaves inside the body's padding (24 px on each side).
PHONE_CONTENT = 327


def _results(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


class _Cards(HTMLParser):
    """The text of each stacked block (``class="card ..."``) of the HTML body, with
    its heading's name and badge."""

    def __init__(self) -> None:
        super().__init__()
        self.cards: list[dict[str, str]] = []
        self._depth = 0
        self._field: str | None = None

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if tag == "div" and cls.split()[:1] == ["card"]:
            self.cards.append({"name": "", "badge": "", "text": ""})
            self._depth = 1
        elif self._depth and tag == "div":
            self._depth += 1
        if self._depth and tag == "strong":
            self._field = "name"
        elif self._depth and tag == "span" and "badge" in cls.split():
            self._field = "badge"

    def handle_endtag(self, tag):
        if self._depth and tag == "div":
            self._depth -= 1
        if tag in ("strong", "span"):
            self._field = None

    def handle_data(self, data):
        if not self._depth:
            return
        self.cards[-1]["text"] += data + " "
        if self._field:
            self.cards[-1][self._field] += data


def _cards(html: str) -> list[dict[str, str]]:
    parser = _Cards()
    parser.feed(html)
    return [{k: re.sub(r"\s+", " ", v).strip() for k, v in c.items()} for c in parser.cards]


@pytest.fixture(scope="module")
def mails(example_releases, example_report, tmp_path_factory) -> dict[str, Path]:
    """The HTML body of each e-mail, written to a file for the browser, and its folder."""
    base = tmp_path_factory.mktemp("mail-layout")
    out = {}
    for name, folder in (
        ("v2.0", example_releases["v2.0"]),
        ("v10.0", example_releases["v10.0"]),
        ("evaluation", example_report[0]),
    ):
        summary = build_summary(read_report_folder(folder))
        path = base / f"{name}.html"
        path.write_text(summary.html, encoding="utf-8")
        out[name] = path
    return out


# ------------------------------------------------------------------ the verdicts, stacked


@pytest.mark.parametrize("label", ["v2.0", "v10.0"])
def test_each_verdict_block_says_what_the_ledger_decided(example_releases, label):
    """One block per dataset × metric (the 10 of --max-rows, what blocks a release
    first): its verdict, the difference with the interval the verdict is read off, the
    adjusted p and the two means, as results.json holds them."""
    folder = example_releases[label]
    verdict = _results(folder)["verdict"]
    rows = {f"{r['dataset']} / {r['metric']}": r for r in verdict["rows"]}
    summary = build_summary(read_report_folder(folder), charts=False)
    cards = _cards(summary.html)
    assert len(cards) == 10 and len(rows) == 13
    for card in cards:
        row = rows[card["name"]]
        p = row["proportion"]
        assert card["badge"] == row["verdict"]
        diff = fmt.difference(row["diff"], proportion=p)
        ci = fmt.interval(
            row["ci_adjusted_low"], row["ci_adjusted_high"], proportion=p, signed=True
        )
        assert f"Δ {diff} {ci}" in card["text"]
        assert fmt.p_equals(row["p_adjusted"], "p adj.") in card["text"]
        means = (
            f"{fmt.value(row['mean_baseline'], proportion=p)} → "
            f"{fmt.value(row['mean_candidate'], proportion=p)}"
        )
        assert means in card["text"]
        assert f"lost {row['n_lost']}, gained {row['n_gained']} items" in card["text"]
        # and the text alternative says the same
        assert f"  {card['name']}: {row['verdict']}\n    Δ {diff} {ci}" in summary.text
    # the count of each verdict, as the ledger counted them
    counts = ", ".join(f"{n} {k}" for k, n in verdict["counts"].items() if n)
    assert f"13 dataset × metrics: {counts}" in summary.text
    assert "3 more dataset × metrics in the attached report" in summary.text


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["375px", "1300px"])
@pytest.mark.parametrize("which", ["v2.0", "v10.0", "evaluation"])
def test_email_nothing_hidden_or_scrolled_sideways(browser, mails, which, viewport):
    """The body never scrolls sideways; every block, every piece of text in it and
    the verdict lie inside the screen (and inside their block); the pieces of a block
    stack on more lines on a phone rather than being cut."""
    page = browser.new_page(viewport=viewport)
    try:
        page.goto(mails[which].as_uri())
        seen = page.evaluate(
            r"""() => {
              const r = e => e.getBoundingClientRect();
              const cards = [...document.querySelectorAll('div.card')];
              const out = cards.map(card => {
                const box = r(card);
                const pieces = [...card.querySelectorAll('span, strong, p')]
                  .filter(e => e.getClientRects().length);
                return {
                  left: box.left, right: box.right, height: box.height,
                  badge: card.querySelector('.badge').textContent,
                  badgeBox: r(card.querySelector('.badge')),
                  outside: pieces.filter(e => r(e).left < box.left - 0.5
                                           || r(e).right > box.right + 0.5)
                                 .map(e => e.textContent),
                  clipped: pieces.filter(e => e.scrollWidth > e.clientWidth + 1
                                             && getComputedStyle(e).overflow !== 'visible')
                                 .map(e => e.textContent),
                };
              });
              return {scroll: document.documentElement.scrollWidth, cards: out,
                      decision: [...document.querySelectorAll('p.decision')]
                        .map(p => r(p).right)};
            }"""
        )
    finally:
        page.close()
    width = viewport["width"]
    assert seen["scroll"] <= width, f"the body scrolls sideways by {seen['scroll'] - width} px"
    assert len(seen["cards"]) == 10
    badges = ("significant", "not significant") if which == "evaluation" else VERDICTS
    for card in seen["cards"]:
        assert card["left"] >= 0 and card["right"] <= width
        assert card["outside"] == [] and card["clipped"] == []
        assert card["badge"] in badges
        box = card["badgeBox"]
        assert box["width"] > 0 and box["left"] >= 0 and box["right"] <= width
    assert len(seen["decision"]) == (which != "evaluation")  # the release decision
    assert all(right <= width for right in seen["decision"])
    if viewport is DESKTOP and which != "evaluation":
        # at 640 px a block is its name line and one line of numbers (two with items)
        assert max(c["height"] for c in seen["cards"]) < 80


@pytest.mark.parametrize("which", ["v2.0", "evaluation"])
def test_email_chart_is_shown_at_its_size_on_a_phone(browser, mails, which):
    """The e-mail's chart is drawn narrow enough for a phone: at 375 px it is shown at
    the width it was drawn for (its text as legible as on a desktop), not shrunk."""
    page = browser.new_page(viewport=PHONE)
    try:
        page.goto(mails[which].as_uri())
        images = page.evaluate(
            "[...document.images].map(i => ({drawn: Number(i.getAttribute('width')),"
            " shown: i.getBoundingClientRect().width}))"
        )
    finally:
        page.close()
    assert len(images) == 1
    [image] = images
    assert image["drawn"] <= PHONE_CONTENT
    assert abs(image["shown"] - image["drawn"]) <= 1


# ------------------------------------------------------------------ merged sentences


def _leader_pairs(results: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str, bool]]:
    """Per (dataset, metric): the two best systems by mean (in the metric's direction)
    and whether results.json's comparison of the two is significant."""
    directions = {
        m: (spec or {}).get("direction", "higher")
        for m, spec in results["config"]["metrics"].items()
    }
    lists: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in results["systems"]:
        lists.setdefault((row["dataset"], row["metric"]), []).append(row)
    out = {}
    for (dataset, metric), rows in lists.items():
        rows.sort(key=lambda r: r["mean"], reverse=directions.get(metric) != "lower")
        a, b = rows[0]["system"], rows[1]["system"]
        [c] = [
            c
            for c in results["comparisons"]
            if (c["dataset"], c["metric"]) == (dataset, metric)
            and {c["system_a"], c["system_b"]} == {a, b}
            and not c.get("derived_from")
        ]
        out[(dataset, metric)] = (a, b, bool(c["significant"]))
    return out


def test_evaluation_email_merges_one_outcome_into_one_sentence(example_report):
    """The 13 leader-against-runner-up comparisons of the example are one sentence
    ("no significant difference ... on 13 of 13 dataset × metrics: ..."), not 13 (or,
    as before, six near-identical ones)."""
    folder = example_report[0]
    results = _results(folder)
    pairs = _leader_pairs(results)
    assert len(pairs) == 13
    summary = build_summary(read_report_folder(folder), charts=False)
    [part] = re.findall(r"Leader against runner-up</h2>(.*?)</ul>", summary.html)
    # names are set in bold, as in the report: the words are the text between the tags
    sentences = [
        html.unescape(re.sub(r"<[^>]+>", "", x)) for x in re.findall(r"<li[^>]*>(.*?)</li>", part)
    ]
    # one sentence per outcome; their counts add up to every dataset × metric
    assert len(sentences) == len({sig for _, _, sig in pairs.values()})
    counted = [int(k) for s in sentences for k in re.findall(r"on (\d+) of 13 dataset", s)]
    assert sum(counted) == 13
    for sentence in sentences:
        tied = sentence.startswith("No significant difference between the first two")
        said = (
            ("{} and {},", "{} and {} on")
            if tied
            else ("{} is significantly ahead of the runner-up {} on", "{} over {} on")
        )
        named = [
            sig
            for a, b, sig in pairs.values()
            if any(x.format(a, b) in sentence or x.format(b, a) in sentence for x in said)
        ]
        assert named and all(sig != tied for sig in named)
        # one pair: six dataset × metrics named at most, the rest counted
        k = int(re.findall(r"on (\d+) of 13 dataset", sentence)[0])
        if ";" not in sentence:
            assert sentence.endswith(f" and {k - 6} more.") == (k > 6)
    # the text part says the same
    assert all(s in re.sub(r"\s+", " ", summary.text) for s in sentences)


def test_report_key_findings_merge_the_same_outcome(tmp_path):
    """The report's opening: 4 systems × 2 datasets × 3 metrics of the example, where
    the same leader is significantly ahead of the same runner-up on all six, is one
    sentence listing the six with their numbers (the ledger's pair views), not six."""
    import csv

    from reportgen.analysis.ledger.words import key_findings
    from reportgen.report import sections as rs

    root = Path(__file__).resolve().parents[2]
    systems = {"starcoder2-15b|fim|8k", "codellama-13b|fim|4k", "granite-3b|fim|4k"}
    data = tmp_path / "results.csv"
    with (root / "examples" / "data" / "codecompletion.csv").open(newline="") as f:
        rows = csv.reader(f)
        with data.open("w", newline="") as g:
            out = csv.writer(g)
            out.writerow(next(rows))
            out.writerows(r for r in rows if r[0] in systems and r[1] in ("csharp", "java"))
    report = rs.prepare(
        [str(data)],
        config=str(root / "examples" / "reportgen.toml"),
        analysis_options={"seed": 7, "n_resamples": 499},
        output_dir=str(tmp_path / "out"),
        title="Three systems",
    )
    units = [u for u in report.analysis.compared if u.modality != "corpus"]
    assert len(units) == 6
    ledger = report.analysis.ledger
    lines = [line.plain() for line in key_findings(ledger)]
    merged = [line for line in lines if "on 6 of 6 dataset × metrics" in line]
    assert len(merged) == 1, lines
    assert not any(" leads with " in line for line in lines)  # no per-unit sentence left
    [line] = merged
    for unit in units:
        order = [unit.systems[k] for k in unit.order()]
        claim = ledger.claim(unit.dataset, unit.metric, order[0], order[1])
        assert claim is not None and claim.significant
        assert line.startswith(f"{order[0]} leads and is significantly ahead of the runner-up")
        interval = fmt.interval(
            claim.adjusted.low, claim.adjusted.high, proportion=unit.proportion, signed=True
        )
        assert (
            f"{unit.dataset} / {unit.metric} (" in line
            and f"{fmt.difference(claim.diff, proportion=unit.proportion)} {interval}" in line
        )


# ------------------------------------------------------------------ the charts


def _chart_rows(chart: Any) -> list[dict[str, Any]]:
    """The rows drawn by a chart (its spec's inline data, wherever Altair put it),
    each once."""
    found: dict[str, dict[str, Any]] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "values" and isinstance(value, list):
                    for row in value:
                        if isinstance(row, dict) and "label" in row:
                            found[json.dumps(row, sort_keys=True)] = row
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    spec = chart.to_dict()
    walk(spec)
    walk({"values": [row for rows in (spec.get("datasets") or {}).values() for row in rows]})
    return list(found.values())


def test_evaluation_chart_shows_every_dataset_it_speaks_of(example_report):
    """The chart is the leader against the runner-up on all 13 dataset × metrics (each
    panel one metric, each row one dataset), coloured by the ledger's significance."""
    results = _results(example_report[0])
    pairs = _leader_pairs(results)
    rows = _chart_rows(_headline_chart(_leads(read_report_folder(example_report[0]).ledger)))
    # the same row is in the rule and the point layers
    assert sorted((r["label"], r["outcome"]) for r in rows) == sorted(
        (dataset, "significant" if sig else "not significant")
        for (dataset, _), (_, _, sig) in pairs.items()
    )
    assert {d for d, _ in pairs} == {"csharp", "java", "python", "typescript", "unittests"}


def test_release_chart_shows_every_verdict(example_releases):
    """All 13 verdicts are charted (the blocks show 10), coloured by verdict."""
    verdict = _results(example_releases["v2.0"])["verdict"]
    release = read_report_folder(example_releases["v2.0"]).ledger.release
    assert release is not None
    rows = _chart_rows(_verdict_chart(release.verdicts))
    # each verdict once: its dataset, its verdict and its difference (points for
    # proportions, as the report's forest plot draws it)
    assert sorted((r["label"], r["outcome"], round(r["diff"], 9)) for r in rows) == sorted(
        (v["dataset"], v["verdict"], round(v["diff"] * (100 if v["proportion"] else 1), 9))
        for v in verdict["rows"]
    )


def test_rag_outcome_with_different_pairs_is_one_sentence_in_email_and_report(
    shared_data, tmp_path
):
    """The six RAG configurations on 3 metrics: a different first two on each metric.
    The e-mail (read from results.json) and the report's key findings (from the typed
    analysis) each say one sentence per outcome, naming each pair before its dataset ×
    metric, with the same outcome for every dataset × metric."""
    from reportgen.analysis.ledger.words import key_findings
    from reportgen.cli import main
    from reportgen.report import sections as rs

    out = tmp_path / "rag"
    assert main(["analyze", str(shared_data / "ibm-rag"), "--out", str(out), "--seed", "5"]) == 0
    results = _results(out)
    pairs = _leader_pairs(results)
    assert len(pairs) == 3 and len({frozenset((a, b)) for a, b, _ in pairs.values()}) == 3
    summary = build_summary(read_report_folder(out), charts=False)
    [part] = re.findall(r"Leader against runner-up</h2>(.*?)</ul>", summary.html)
    # names are set in bold, as in the report: the words are the text between the tags
    sentences = [
        html.unescape(re.sub(r"<[^>]+>", "", x)) for x in re.findall(r"<li[^>]*>(.*?)</li>", part)
    ]
    outcomes = {sig for _, _, sig in pairs.values()}
    assert len(sentences) == len(outcomes)
    report = rs.prepare(
        [str(shared_data / "ibm-rag")],
        analysis_options={"seed": 5, "n_resamples": 999},
        output_dir=str(tmp_path / "report"),
        title="RAG",
    )
    findings = [line.plain() for line in key_findings(report.analysis.ledger)]
    for (dataset, metric), (a, b, sig) in pairs.items():
        name = f"{dataset} / {metric}"
        [sentence] = [s for s in sentences if f" {name}" in s]
        group = [p for p in pairs.values() if p[2] == sig]
        if len({frozenset(p[:2]) for p in group}) == 1:  # one pair: named once, first
            assert (
                f"{a} is significantly ahead of the runner-up {b} on" in sentence
                if sig
                else any(f"the first two, {x} and {y}, on" in sentence for x, y in ((a, b), (b, a)))
            )
            continue
        joined = " over " if sig else " and "
        assert f"{a}{joined}{b} on {name}" in sentence
        assert sentence.startswith("The leader" if sig else "No significant difference")
        # the report's opening: the same sentence (the ledger's), with the numbers
        [merged] = [f for f in findings if f"{a}{joined}{b} on {name} (" in f]
        assert merged.startswith(
            "The leader is significantly ahead" if sig else "No significant difference"
        )


def test_notes_said_of_several_dataset_x_metrics_are_one_note(example_report):
    """The example's heavy-tailed dataset × metrics (t intervals instead of BCa) are one
    note naming each with its kurtosis, not one near-identical note each; results.json,
    the report's warnings and the console read the same list."""
    results = _results(example_report[0])
    lists = {f"{r['dataset']} / {r['metric']}" for r in results["systems"]}
    [note] = [n for n in results["notes"] if "not BCa" in n]
    k = int(re.match(r"On (\d+) of 13 dataset × metrics, the systems' means have t", note)[1])
    named = re.findall(r"(\S+ / \S+) \(heavy-tailed scores, kurtosis up to \d+", note)
    assert len(named) == k >= 2 and set(named) <= lists
    # no other note starts with one of the dataset × metrics merged into it
    assert not any(n.startswith(tuple(f"{u}: " for u in named)) for n in results["notes"])
    report = (example_report[0] / "report.html").read_text(encoding="utf-8")
    assert note in html.unescape(re.sub(r"<[^>]+>", "", report))

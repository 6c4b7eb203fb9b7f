"""``kg report`` as a reader meets it (issue 47, item 9; issue 48): the per-tool lists folded so the Works section
comes soon after the charts, the matrix's paper heads whole, a topic pair with papers first when the default pair
has an empty side (on a corpus of life-science and physics samples, and by the rule on made-up topics), untitled
cited works labelled, the headline's tools over the years, and the same bytes twice."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_report import ROOT, Seed, report, seed  # noqa: F401 - the module fixtures

from kg.refs.topics import concepts
from kg.report.data import DEFAULT_PAIR, WorkRow, _pairs

# the real Crossref samples that are life science or physics (tests/data/samples/SOURCES.md): no computing paper
NON_COMPUTING = ("article_elife.01567.json", "article_esmoopen-2020-000776.json", "article_ijo_00000353.json",
                 "article_j.physletb.2010.10.049.json", "article_jmbs01.02.184.json",
                 "article_journal.ppat.1008184.json", "article_srep16696.json")


@pytest.fixture(scope="module")
def life(tmp_path_factory: pytest.TempPathFactory) -> tuple[Seed, Path]:
    """The workspace of the seven samples and its report."""
    base = tmp_path_factory.mktemp("life")
    records = base / "records"
    records.mkdir()
    for name in NON_COMPUTING:
        shutil.copy(ROOT / "tests" / "data" / "samples" / name, records / name)
    s = Seed(base / "ws", CliRunner())
    assert s.run("build", "-q", str(records)).exit_code == 0
    out = base / "report.html"
    r = s.run("report", "-o", str(out))
    assert r.exit_code == 0, r.output
    return s, out


def part(text: str, sid: str) -> str:
    m = re.search(rf'<section class="part" id="{sid}">(.*?)</section>(?=<section class="part"|</main>)', text, re.S)
    assert m, sid
    return m.group(1)


def closing(text: str, at: int) -> int:
    """Where the <details> opened at ``at`` closes (the details inside it counted)."""
    depth = 0
    for m in re.finditer(r"<(/?)details\b", text[at:]):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return at + m.start()
    raise AssertionError("unclosed <details>")


# ---------------------------------------------------------------- the per-tool lists, folded


def test_the_per_tool_lists_are_folded_before_the_works(seed: Seed, report: tuple) -> None:  # noqa: F811
    """Between the charts and the Works section, every tool's list is inside one closed <details> whose summary
    counts the tools; nothing on the page is open by default."""
    _, text, _ = report
    tools = seed.csv("tools")
    start, works = text.index('<section class="part" id="tools">'), text.index('<section class="part" id="works">')
    each = text.index('<details class="tools-list" id="tools-each"><summary>')
    close = closing(text, each)
    assert start < each < close < works
    assert re.search(r"<details[^>]* open", text) is None
    summary = text[each:].split("</summary>", 1)[0]
    assert summary.endswith(f"The works citing each of the {len(tools)} tools (open a tool for its citing works "
                            "and how it was recognised)")
    lists = re.findall(r'<details class="tool" id="tool-([^"]+)">', text)
    assert len(lists) == len(tools)
    assert all(each < text.index(f'id="tool-{k}"') < close for k in lists)
    # before the list: the charts only (no list of citing works)
    assert '<ul class="cites">' not in text[start:each]


def test_a_tool_shows_its_name_and_counts_folded(seed: Seed, report: tuple) -> None:  # noqa: F811
    _, text, _ = report
    t = seed.csv("tools")[0]
    assert t["tool"] == "PyTorch"
    assert (f'<details class="tool" id="tool-pytorch"><summary><b>PyTorch</b> <small>{t["category"]} · '
            f'{t["citing_works"]} citing works, {t["references"]} references</small></summary>') in text


# ---------------------------------------------------------------- the matrix's heads


def test_matrix_heads_are_whole_titles(seed: Seed, report: tuple) -> None:  # noqa: F811
    _, text, _ = report
    titles = {r["doi"]: r["title"] for r in seed.csv("works")}
    matrix = re.search(r'<table class="matrix" id="matrix-performance-analysis--compilers">(.*?)</table>', text,
                       re.S).group(1)
    heads = re.findall(r'<th class="paper" title="([^"]*)"><div><a href="#work-[^"]+">([^<]*)</a></div></th>', matrix)
    assert len(heads) == 4
    assert sorted(html.unescape(shown) for _, shown in heads) == sorted(titles.values())
    assert all(tip == shown for tip, shown in heads)
    assert max(len(t) for t in titles.values()) > 90  # (a long one among them, cut at 40 before)


# ---------------------------------------------------------------- the topic pair


def test_the_default_pair_stays_first_when_it_has_papers(report: tuple) -> None:  # noqa: F811
    _, text, _ = report
    assert 'id="pair-note"' not in text
    assert re.search(r'<select id="pair"><option value="performance-analysis--compilers">', text)


def test_a_corpus_without_computing_papers_gets_a_pair_that_has_papers(life: tuple[Seed, Path]) -> None:
    s, out = life
    text = out.read_text(encoding="utf-8")
    headline = part(text, "headline")
    assert ('<p class="note" id="pair-note">In this corpus the default pair (Performance analysis × Compilers and '
            "code generation) has no papers on either side, so the matrix shows first the pair of topic families "
            "present whose smaller side has the most papers (no pair of them has a tool cited by both sides): "
            "Medicine and health (3 papers) × Microbiology and infectious disease (1 paper).</p>") in headline
    assert re.findall(r'<option value="([^"]+)">', headline) == [
        "medicine--microbiology", "medicine--neuroscience", "medicine--physics", "microbiology--neuroscience"]
    assert ('<p class="why">Which tools do papers of Medicine and health and papers of Microbiology and infectious '
            "disease both cite?</p>") in headline
    # the commands shown give that pair's rows
    cmd = "kg query tools-cited-by-profiling-and-compiler -p topic-a=medicine -p topic-b=microbiology"
    assert f"<code>{cmd}</code>" in headline
    members = {r["doi"] for r in s.csv("works-by-topic") if r["topic_iri"].endswith("/medicine")}
    assert len(members) == 3
    assert '<th class="side a" colspan="3">Medicine and health (3 papers)</th>' not in headline  # (no tools: no table)
    assert headline.count('<p class="empty">No paper of either side cites a recognised tool.</p>') == 4
    r = s.run("query", "tools-cited-by-both", "-p", "topic-a=medicine", "-p", "topic-b=microbiology", "-f", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines()[1:] == []
    assert "Cited by both sides: <b>0</b> tools (none)." in headline


def test_the_same_samples_give_the_same_bytes(life: tuple[Seed, Path], tmp_path: Path) -> None:
    s, out = life
    again = tmp_path / "again.html"
    assert s.run("report", "-o", str(again)).exit_code == 0
    assert again.read_bytes() == out.read_bytes()


def _fake(members: dict[str, list[str]], cites: dict[str, list[str]]) -> tuple[object, dict, list]:
    """A source answering works-by-topic, the works, and the rows of tool-citations: paper -> tools it cites."""
    class Src:
        def rows(self, name: str) -> list[dict[str, str]]:
            assert name == "works-by-topic"
            return [{"label": t, "doi": d, "topic_iri": f"https://w3id.org/crossref-kg/topic/{t}"}
                    for t, dois in sorted(members.items()) for d in dois]
    works = {d: WorkRow(d, f"Title {d}") for dois in members.values() for d in dois}
    citations = [{"citing": d, "tool": t, "tool_iri": f"https://w3id.org/crossref-kg/tool/{t}", "category": "other",
                  "key": "r1", "text": t, "recognition_method": "alias", "recognition_score": "0.9", "matched": t}
                 for d, ts in sorted(cites.items()) for t in ts]
    return Src(), works, citations


def test_the_fallback_pair_shares_the_most_tools_then_has_the_most_papers() -> None:
    by_concept = {c.id: c for c in concepts()}
    members = {"medicine": ["10.1/m1", "10.1/m2", "10.1/m3"], "microbiology": ["10.1/b1"],
               "neuroscience": ["10.1/n1", "10.1/n2"], "physics": ["10.1/p1", "10.1/p2"]}
    # only neuroscience and physics papers cite a tool in common: that pair first, the largest families after
    src, works, citations = _fake(members, {"10.1/n1": ["imagej"], "10.1/p2": ["imagej", "root"]})
    pairs, note = _pairs(src, works, citations, by_concept)  # type: ignore[arg-type]
    assert [(p.a, p.b) for p in pairs] == [("neuroscience", "physics"), ("medicine", "neuroscience"),
                                           ("medicine", "physics"), ("medicine", "microbiology")]
    assert pairs[0].both == ["https://w3id.org/crossref-kg/tool/imagej"]
    assert note.endswith("so the matrix shows first the pair of topic families present whose papers cite the most "
                         "tools in common (1 tool): Neuroscience (2 papers) × Physics (2 papers).")
    # no tool in common: the pair whose smaller side has the most papers (ties: the larger families, then by id)
    src, works, citations = _fake(members, {"10.1/n1": ["imagej"]})
    pairs, note = _pairs(src, works, citations, by_concept)  # type: ignore[arg-type]
    assert (pairs[0].a, pairs[0].b) == ("medicine", "neuroscience")
    # one family only: topics one level down
    src, works, citations = _fake({"profiling": ["10.1/a"], "performance-characterization": ["10.1/b"],
                                   "performance-analysis": ["10.1/a", "10.1/b"]}, {"10.1/a": ["x"], "10.1/b": ["x"]})
    pairs, note = _pairs(src, works, citations, by_concept)  # type: ignore[arg-type]
    assert [(p.a, p.b) for p in pairs] == [("performance-characterization", "profiling")]
    assert note == ("In this corpus the default pair (Performance analysis × Compilers and code generation) has no "
                    "papers of Compilers and code generation, so the matrix shows first the pair of topics one level "
                    "below the families present whose papers cite the most tools in common (1 tool): Performance and "
                    "workload characterisation (1 paper) × Profiling and tracing (1 paper).")
    # more families than are tried: the largest, and the note says so
    seven = sorted(c.id for c in by_concept.values() if c.depth == 1 and c.id not in DEFAULT_PAIR)[:7]
    src, works, citations = _fake({f: [f"10.1/{f}-{i}" for i in range(10 - k)] for k, f in enumerate(seven)}, {})
    pairs, note = _pairs(src, works, citations, by_concept)  # type: ignore[arg-type]
    assert (pairs[0].a, pairs[0].b) == (seven[0], seven[1])
    assert "the pair of topic families present (the 6 largest) whose smaller side has the most papers" in note
    # nothing to cross
    src, works, citations = _fake({"medicine": ["10.1/m1"]}, {})
    pairs, note = _pairs(src, works, citations, by_concept)  # type: ignore[arg-type]
    assert pairs == []
    assert note.endswith("has no papers on either side, and no two topic families have papers: there is no pair to "
                         "cross.")


# ---------------------------------------------------------------- untitled cited works


def test_untitled_cited_works_are_labelled(seed: Seed, tmp_path: Path) -> None:
    """The citation graph: a most-cited work without a title is labelled by its first author, year and venue as a
    reference citing it says, else by its DOI; never by an IRI or nothing."""
    import xml.etree.ElementTree as ET
    assert seed.run("report", "-o", str(tmp_path / "r.html"), "--graphs", str(tmp_path / "nets")).exit_code == 0
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    doc = ET.parse(tmp_path / "nets" / "citation-graph.graphml").getroot()
    keys = {k.get("attr.name"): k.get("id") for k in doc.iterfind("g:key", ns)}
    label = {n.get("id"): n.find(f"g:data[@key='{keys['label']}']", ns).text for n in doc.iterfind(".//g:node", ns)}
    cited = {r["cited"]: r["title"] for r in seed.csv("most-cited", "-p", "min-citing=2", "--limit", "15")}
    untitled = {c for c, t in cited.items() if not t}
    assert len(untitled) == 9
    assert label["https://doi.org/10.1145/3470496.3527440"] == "Zheng et al. 2022, ISCA"  # (AMOS, ISCA 2022)
    assert label["https://doi.org/10.48550/arxiv.2307.09288"] == "Touvron et al. 2023"  # (Llama 2; venue too long)
    assert label["https://doi.org/10.1145/3168831"] == "10.1145/3168831"  # (both references give the DOI only)
    for c in cited:
        assert label[c] and not label[c].startswith("http"), (c, label[c])
        if cited[c]:
            assert label[c] == cited[c]
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<title>Zheng et al. 2022, ISCA (cited work): 2</title>" in text


# ---------------------------------------------------------------- the headline's tools over the years


def test_the_headline_tools_over_the_years(seed: Seed, report: tuple) -> None:  # noqa: F811
    """Each pair draws its tools cited by both sides from tools-by-year, most cited first; the all-tools chart
    names the tools it shows."""
    from kg.report.page import TOP
    _, text, _ = report
    pair = text.split('<div class="pair" id="pair-performance-analysis--compilers">', 1)[1].split(
        '<div class="pair"', 1)[0]
    both = {r["tool_iri"] for r in seed.csv("tools-cited-by-both")}
    order = [t["tool"] for t in seed.csv("tools") if t["tool_iri"] in both]
    assert len(order) == 8
    assert "<h4>The 8 tools cited by both sides over the years</h4>" in pair
    assert "<code>kg query tools-by-year</code>" in pair
    chart = re.search(r'<svg class="chart pair-years"(.*?)</svg>(.*?)</ul>', pair, re.S)
    assert chart
    assert re.findall(r'<span class="swatch"[^>]*></span>([^<]+)</li>', chart.group(2)) == order
    rows = {(r["tool"], r["year"]): r for r in seed.csv("tools-by-year")}
    years = sorted({y for _, y in rows})
    tips = re.findall(r"<circle [^>]*><title>([^<]+)</title></circle>", chart.group(1))
    assert tips == [f"{t}, {y}: {rows[(t, y)]['citing_works']} of {rows[(t, y)]['works']} works "
                    f"({rows[(t, y)]['share']})" if (t, y) in rows else
                    f"{t}, {y}: 0 of {next(r['works'] for r in rows.values() if r['year'] == y)} works"
                    for t in order for y in years]
    top = [t["tool"] for t in seed.csv("tools")[: TOP["tools_years"]]]
    assert (f"for the {len(top)} most-cited tools ({html.escape(', '.join(top))}; the tools cited by both sides of "
            "a topic pair are drawn with its matrix)") in text

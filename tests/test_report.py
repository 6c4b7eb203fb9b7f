"""``kg report``: the structure of the page on the seeds (every section, the headline tools in the matrix,
per-tool anchors, nothing remote, every internal link resolves, every command shown runs), determinism, the
networks as GraphML and DOT checked against the stored queries, and the one-line errors."""

from __future__ import annotations

import csv
import io
import re
import shlex
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kg.cli import main
from kg.report.data import tool_key

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("overview", "headline", "tools", "works", "topics", "curation")


@dataclass
class Seed:
    home: Path
    runner: CliRunner

    def run(self, *args: str) -> Result:
        r = self.runner.invoke(main, list(args), env={"KG_HOME": str(self.home)}, prog_name="kg")
        assert r.exception is None or isinstance(r.exception, SystemExit), (
            f"kg {' '.join(args)} raised {type(r.exception).__name__}: {r.exception}")
        assert "Traceback" not in r.output
        return r

    def csv(self, *args: str) -> list[dict[str, str]]:
        r = self.run("query", *args, "-f", "csv")
        assert r.exit_code == 0, r.output
        return list(csv.DictReader(io.StringIO(r.stdout)))


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Seed:
    base = tmp_path_factory.mktemp("report")
    s = Seed(base / "ws", CliRunner())
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        r = s.run("build", "-q")
    assert r.exit_code == 0, r.output
    return s


class Page(HTMLParser):
    """Every tag with its attributes, the ids, and the text of each element with an id."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.ids: set[str] = set()
        self.codes: list[str] = []
        self._in_code = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.append((tag, a))
        if "id" in a:
            assert a["id"] not in self.ids, f"id {a['id']!r} twice"
            self.ids.add(a["id"])
        if tag == "code":
            self._in_code = True
            self.codes.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self._in_code = False

    def handle_data(self, data: str) -> None:
        if self._in_code:
            self.codes[-1] += data


@pytest.fixture(scope="module")
def report(seed: Seed, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Result]:
    out = tmp_path_factory.mktemp("out") / "report.html"
    r = seed.run("report", "-o", str(out))
    return out, out.read_text(encoding="utf-8"), r


def strip(s: str) -> str:
    """The page without its commands and its validation summary: the part that is the same from every source."""
    return re.sub(r"<code>[^<]*</code>", "", re.sub(r"<h3>Validation</h3>.*?</section>", "", s, flags=re.S))


def test_writes_one_file_and_says_so(report: tuple[Path, str, Result]) -> None:
    out, text, r = report
    assert r.exit_code == 0
    assert r.stderr == f"wrote {out} ({len(text.encode()):,} bytes, 4 works)\n"
    assert r.stdout == ""
    assert text.startswith("<!DOCTYPE html>")


def test_every_section_with_its_command(report: tuple[Path, str, Result]) -> None:
    _, text, _ = report
    for sid in SECTIONS:
        m = re.search(rf'<section class="part" id="{sid}">(.*?)</section>(?=<section class="part"|</main>)', text, re.S)
        assert m, f"section {sid} missing"
        body = m.group(1)
        assert re.search(r'<p class="why">[^<]+</p>', body), f"section {sid} has no one-line explanation"
        assert re.search(r'<div class="cmd">From: <code>kg (query|stats)', body), f"section {sid} shows no command"


def test_nothing_remote(report: tuple[Path, str, Result]) -> None:
    _, text, _ = report
    page = Page(text)
    for tag, a in page.tags:
        if tag in ("script", "img", "link", "iframe", "source", "video", "audio", "embed", "object", "image", "use"):
            for attr in ("src", "href", "xlink:href", "data", "srcset"):
                assert not re.match(r"\s*(https?:)?//", a.get(attr, ""), re.I), f"<{tag} {attr}={a[attr]!r}>"
        assert tag != "link", "styles are inline"
        assert not (tag == "script" and "src" in a), "scripts are inline"
    for style in re.findall(r"<style>(.*?)</style>", text, re.S):
        assert "url(" not in style and "@import" not in style
    assert not re.search(r"\bstyle=\"[^\"]*url\(", text)


def test_internal_links_resolve(report: tuple[Path, str, Result]) -> None:
    _, text, _ = report
    page = Page(text)
    targets = {a["href"][1:] for tag, a in page.tags if tag == "a" and a.get("href", "").startswith("#")}
    assert targets, "no internal links"
    assert targets - page.ids == set()


def test_headline_tools_in_the_matrix_with_anchors(seed: Seed, report: tuple[Path, str, Result]) -> None:
    _, text, _ = report
    both = seed.csv("tools-cited-by-both")
    assert both, "the seeds answer the headline question"
    m = re.search(r'<table class="matrix" id="matrix-performance-analysis--compilers">(.*?)</table>', text, re.S)
    assert m
    matrix = m.group(1)
    highlighted = re.findall(r'<tr class="both"><th class="tool"><a href="#tool-([^"]+)">([^<]+)</a>', matrix)
    assert sorted(highlighted) == sorted((tool_key(r["tool_iri"]), r["tool"]) for r in both)
    page = Page(text)
    for key, _name in highlighted:
        assert f"tool-{key}" in page.ids
    # each highlighted cell links to the supporting reference and its recognition evidence
    rows = seed.csv("tools-cited-by-profiling-and-compiler")
    for r in rows:
        anchor = f'ev-performance-analysis--compilers-{tool_key(r["tool_iri"])}-'
        item = re.search(rf'<li id="({re.escape(anchor)}[^"]+)">(.*?)</li>', text)
        assert item, r
    n_cells = len(re.findall(r'<td class="cell [ab]"><a href="#ev-', matrix))
    assert n_cells == len({(r["tool_iri"], r["doi"]) for r in rows})


def test_every_tool_cited_has_an_anchor_listing_its_citing_works(seed: Seed, report: tuple[Path, str, Result]) -> None:
    _, text, _ = report
    tools = seed.csv("tools")
    assert len(tools) < 150  # the seeds: every tool is anchored
    for t in tools:
        anchor = re.escape(tool_key(t["tool_iri"]))
        m = re.search(rf'<details class="tool" id="tool-{anchor}">(.*?)</details>', text, re.S)
        assert m, t["tool"]
        citing = seed.csv("works-citing", "-p", f"target={t['tool_iri']}")
        assert len(re.findall(r"<li>", m.group(1))) == len({r["citing"] for r in citing})
        assert f"kg query works-citing -p target={t['tool_iri']}" in m.group(1)


def test_numbers_are_the_queries(seed: Seed, report: tuple[Path, str, Result]) -> None:
    _, text, _ = report
    r = seed.run("stats", "-f", "csv")
    stats = next(csv.DictReader(io.StringIO(r.stdout)))
    cards = dict((k, v) for v, k in re.findall(r'<div class="card"><b>([^<]+)</b><span>([^<]+)</span></div>', text))
    assert cards["works"] == f"{int(stats['works']):,}"
    assert cards["references"] == f"{int(stats['references']):,}"
    assert cards["tools cited"] == f"{int(stats['tools']):,}"
    unresolved = [x for x in seed.csv("unresolved") if x["resolution_method"] == "unresolved"]
    share = (int(stats["references"]) - len(unresolved)) / int(stats["references"])
    assert cards["resolved"] == f"{share:.0%}"
    # the year chart: one bar part per (year, type) of the years query, with its count
    for y in seed.csv("years"):
        assert f"<title>{y['year']}, {y['type']}: {y['works']}</title>" in text


def test_the_most_cited_tools_over_the_years_are_tools_by_year(seed: Seed, report: tuple[Path, str, Result]) -> None:
    """The adoption chart: the first TOP['tools_years'] tools of 'tools', a point for each year from the first to the
    last, its tooltip the row of tools-by-year (0 where the tool has none that year); its command is shown."""
    from kg.report.page import TOP
    _, text, _ = report
    chart = re.search(r'<h3>Most-cited tools over the years</h3>.*?<svg class="chart adoption"(.*?)</svg>', text, re.S)
    assert chart
    top = seed.csv("tools")[: TOP["tools_years"]]
    rows = {(r["tool_iri"], r["year"]): r for r in seed.csv("tools-by-year")}
    works = {r["year"]: r["works"] for r in seed.csv("tools-by-year")}
    assert sorted(works) == ["2024", "2025", "2026"]
    tips = re.findall(r"<circle [^>]*><title>([^<]+)</title></circle>", chart.group(1))
    expected = []
    for t in top:
        for year in sorted(works):
            r = rows.get((t["tool_iri"], year))
            expected.append(f"{t['tool']}, {year}: {r['citing_works']} of {r['works']} works ({r['share']})" if r
                            else f"{t['tool']}, {year}: 0 of {works[year]} works")
    assert tips == expected
    assert "kg query tools-by-year</code>" in text


def test_top_n_says_how_many_more(seed: Seed, report: tuple[Path, str, Result]) -> None:
    from kg.report.page import TOP
    _, text, _ = report
    matrix = re.search(r'id="pair-performance-analysis--compilers">(.*?)</details>', text, re.S).group(1)
    rows = len(re.findall(r'<tr class="(?:both|one)">', matrix))
    assert rows == TOP["matrix_tools"]
    # every seed paper is in one of the two default families, so the matrix could show every tool cited
    families = {r["doi"] for r in seed.csv("topics") if r["primary"] == "true"}
    assert len(families) == 4
    n = int(re.search(r'<p class="more">and ([0-9,]+) more tools</p>', matrix).group(1).replace(",", ""))
    assert rows + n == len(seed.csv("tools"))


def test_every_command_shown_runs(seed: Seed, report: tuple[Path, str, Result]) -> None:
    _, text, _ = report
    shown = {c for c in Page(text).codes if c.startswith(("kg query ", "kg stats"))}
    by_query: dict[str, str] = {}
    for c in sorted(shown):
        by_query.setdefault(shlex.split(c)[2] if c.startswith("kg query") else "stats", c)
    assert len(by_query) >= 14
    for cmd in by_query.values():
        r = seed.run(*shlex.split(cmd)[1:])
        assert r.exit_code == 0, (cmd, r.output)


def test_same_graph_same_bytes(seed: Seed, tmp_path: Path) -> None:
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    assert seed.run("report", "-o", str(a), "--graphs", str(tmp_path / "ga")).exit_code == 0
    assert seed.run("report", "-o", str(b), "--graphs", str(tmp_path / "gb")).exit_code == 0
    assert a.read_bytes() == b.read_bytes()
    for f in sorted((tmp_path / "ga").iterdir()):
        assert f.read_bytes() == (tmp_path / "gb" / f.name).read_bytes()


def test_graph_files_and_store_give_the_same_page_but_their_commands(seed: Seed, tmp_path: Path) -> None:
    nq = tmp_path / "g.nq"
    store = tmp_path / "store"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        assert seed.run("build", "-q", "-o", str(nq), "--store", str(store)).exit_code == 0
    ws, by_file, by_store = tmp_path / "ws.html", tmp_path / "file.html", tmp_path / "store.html"
    assert seed.run("report", "-o", str(ws)).exit_code == 0
    assert seed.run("report", "-g", str(nq), "-o", str(by_file)).exit_code == 0
    r = seed.run("report", "--store", str(store), "-o", str(by_store))
    assert r.exit_code == 0, r.output
    page = ws.read_text(encoding="utf-8")
    # the same numbers from each source; only the commands (and the validation summary) differ
    assert strip(by_file.read_text(encoding="utf-8")) == strip(page)
    assert strip(by_store.read_text(encoding="utf-8")) == strip(page)
    assert f"kg query tools --store {store}" in by_store.read_text(encoding="utf-8")
    assert f"kg query tools -g {nq}" in by_file.read_text(encoding="utf-8")
    assert "A store or an endpoint is not validated here" in by_store.read_text(encoding="utf-8")


def test_validation_summary_is_kg_validate(seed: Seed, report: tuple[Path, str, Result]) -> None:
    """The report's verdict is the line kg validate ends with, in plain words, beside SHACL's sh:conforms."""
    import json
    from html import escape
    _, text, _ = report
    doc = json.loads(seed.run("validate", "-f", "json").stdout)
    n = doc["counts"]
    verdict = seed.run("validate").stdout.splitlines()[-1].split("; --severity")[0]
    assert verdict == "valid: no violations (3 warnings: 3 persons without an ORCID iD)"
    css = "bad" if n["violation"] else "warn" if n["warning"] or n["info"] else "ok"
    assert (f'<p>The graph is <span class="{css}">{escape(verdict)}</span>: '
            f"{n['violation']:,} violations, {n['warning']:,} warnings, {n['info']:,} infos (SHACL's sh:conforms is "
            f"{'true' if doc['conforms'] else 'false'}: any result, a warning too, makes it false).</p>") in text


def test_networks_as_graphml_and_dot(seed: Seed, tmp_path: Path) -> None:
    out = tmp_path / "nets"
    r = seed.run("report", "-o", str(tmp_path / "r.html"), "--graphs", str(out))
    assert r.exit_code == 0
    assert r.stderr.endswith(f"and 6 network files in {out}\n")
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(f"{n}.{x}" for n in ("tool-cocitation", "citation-graph", "bibliographic-coupling")
                           for x in ("graphml", "dot"))
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    doc = ET.parse(out / "tool-cocitation.graphml").getroot()
    nodes = {n.get("id"): n for n in doc.iterfind(".//g:node", ns)}
    tools = seed.csv("tools")
    assert set(nodes) == {t["tool_iri"] for t in tools}
    edges = {(e.get("source"), e.get("target")): float(e.find("g:data", ns).text) for e in doc.iterfind(".//g:edge",
                                                                                                        ns)}
    # an edge's weight is the number of works citing both tools (checked for the most cited tools)
    top = [t["tool_iri"] for t in tools[:6]]
    citing = {t: {r["citing"] for r in seed.csv("works-citing", "-p", f"target={t}")} for t in top}
    for i, a in enumerate(top):
        for b in top[i + 1:]:
            key = (a, b) if a < b else (b, a)
            assert edges.get(key, 0) == len(citing[a] & citing[b]), key
    dot = (out / "tool-cocitation.dot").read_text(encoding="utf-8")
    assert dot.startswith('graph "tool-cocitation" {')
    assert dot.count(" -- ") == len(edges)
    coupling = ET.parse(out / "bibliographic-coupling.graphml").getroot()
    pairs = {(r["doi_a"], r["doi_b"]): int(r["shared"]) for r in seed.csv("bibliographic-coupling")}
    got = {(e.get("source"), e.get("target")): float(e.find("g:data", ns).text)
           for e in coupling.iterfind(".//g:edge", ns)}
    assert got == {tuple(sorted(k)): float(v) for k, v in pairs.items()}
    citation = (out / "citation-graph.dot").read_text(encoding="utf-8")
    assert citation.startswith('digraph "citation-graph" {') and " -> " in citation


def test_errors_are_one_line(seed: Seed, tmp_path: Path) -> None:
    empty = Seed(tmp_path / "nothing", CliRunner())
    r = empty.run("report", "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 2
    assert r.stderr == (f"error: {tmp_path / 'nothing' / 'graph.nq'}: no graph here; "
                        "run 'kg build' first or pass --graph FILE\n")
    assert not (tmp_path / "r.html").exists()
    r = seed.run("report", "-g", "x.nq", "--store", "s", "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 2 and r.stderr == "error: give one source: --graph, --store or --endpoint\n"
    r = seed.run("report", "-o", str(tmp_path))
    assert r.exit_code == 2 and r.stderr == f"error: {tmp_path}: is a directory; give a file name to write to\n"
    bad = tmp_path / "bad.nq"
    bad.write_text("this is not RDF\n", encoding="utf-8")
    r = seed.run("report", "-g", str(bad), "-o", str(tmp_path / "r.html"))
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {bad}: is not a readable RDF graph (")
    assert len(r.stderr.splitlines()) == 1


def test_a_failed_write_leaves_the_old_report(seed: Seed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "r.html"
    out.write_text("old", encoding="utf-8")
    import kg.infra.outputs

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(kg.infra.outputs.os, "fsync", full)  # the disk fills as the report is being written
    r = seed.run("report", "-o", str(out))
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and "no space left on the device" in r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert out.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def test_works_table_has_each_works_venue(seed: Seed, report: tuple[Path, str, Result]) -> None:
    import html
    _, text, _ = report
    table = text.split('<table class="sortable works">', 1)[1].split("</table>", 1)[0]
    assert "<th>Venue</th>" in table
    venues = {r["doi"]: r["venue"] for r in seed.csv("works")}
    assert len(venues) == 4 and all(venues.values())
    for doi, venue in venues.items():
        row = table.split(f'id="{doi_row_id(doi)}"', 1)[1].split("</tr>", 1)[0]
        assert f"<td>{html.escape(venue)}</td>" in row, (doi, venue)


def doi_row_id(doi: str) -> str:
    from kg.report.page import work_key
    return work_key(doi)


from test_queries import endpoint  # noqa: E402,F401 - a real oxigraph server on 127.0.0.1 with the seeds' export


def test_an_endpoint_gives_the_same_page_but_its_commands(seed: Seed, endpoint: str,
                                                          tmp_path: Path) -> None:  # noqa: F811
    ws, by_endpoint = tmp_path / "ws.html", tmp_path / "endpoint.html"
    assert seed.run("report", "-o", str(ws)).exit_code == 0
    r = seed.run("report", "--endpoint", endpoint, "-o", str(by_endpoint))
    assert r.exit_code == 0, r.output
    text = by_endpoint.read_text(encoding="utf-8")
    assert strip(text) == strip(ws.read_text(encoding="utf-8"))
    assert f"kg query tools --endpoint {endpoint}" in text
    assert "A store or an endpoint is not validated here" in text


def test_untitled_cited_works_say_how_to_fetch_them(seed: Seed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    ) -> None:
    """Curation: one command that fetches what the workspace's inputs cite and builds again with it (the inputs
    of the last build, relative to the current folder), then a row per citing work with how many of its cited
    works have no title (a cited DOI in kg query references that kg query most-cited gives no title)."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "r.html"
    assert seed.run("report", "-o", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    part = text.split("<h3>Works whose cited works lack titles</h3>", 1)[1].split("<h3>", 1)[0]
    assert ('<p>Fetch them all, then build again with the records fetched:</p><pre class="command"><code>'
            "kg fetch --cited-by seeds &amp;&amp; kg build seeds fetched</code></pre>") in part
    titled = {r["cited"] for r in seed.csv("most-cited") if r["title"]}
    untitled: dict[str, set[str]] = {}
    for r in seed.csv("references"):
        if r["cited"].startswith("https://doi.org/") and r["cited"] not in titled:
            untitled.setdefault(r["citing"], set()).add(r["cited"])
    counts = re.findall(r'<td class="num">([\d,]+)</td>', part)
    assert sorted(int(n.replace(",", "")) for n in counts) == sorted(len(v) for v in untitled.values())
    by_store = tmp_path / "s.html"  # (not the workspace: the inputs are not known)
    assert seed.run("report", "-o", str(by_store), "-g", str(seed.home / "graph.nq")).exit_code == 0
    assert "kg fetch --cited-by INPUTS &amp;&amp; kg build INPUTS fetched" in by_store.read_text(encoding="utf-8")


def test_the_pairs_are_the_headline_query(seed: Seed) -> None:
    """The matrix of each topic pair offered is made from tool-citations and works-by-topic (one query each for all
    pairs): its rows are those of the headline query for that pair, its highlighted tools those of
    tools-cited-by-both, its papers of a side those of works-by-topic."""
    from kg.report.data import gather
    from kg.report.source import ReportSource
    pairs = gather(ReportSource([seed.home / "graph.nq"])).pairs
    assert pairs and (pairs[0].a, pairs[0].b) == ("performance-analysis", "compilers")
    fields = ("tool", "tool_iri", "category", "doi", "title", "key", "text", "recognition_method",
              "recognition_score", "matched")
    for p in pairs:
        params = ["-p", f"topic-a={p.a}", "-p", f"topic-b={p.b}"]
        expected = seed.csv("tools-cited-by-profiling-and-compiler", *params)
        side = {p.label_a: "a", p.label_b: "b"}
        got = [(r.tool, r.tool_iri, r.category, r.doi, r.title, r.key, r.reference, r.method, r.score, r.matched,
                r.side) for r in p.rows]
        assert sorted(got) == sorted((*(r[f] for f in fields), side[r["side"]]) for r in expected), p.id
        assert p.both == sorted({r["tool_iri"] for r in seed.csv("tools-cited-by-both", *params)}), p.id
        members = seed.csv("works-by-topic")
        for topic, papers in ((p.a, p.papers_a), (p.b, p.papers_b)):
            assert papers == sorted(r["doi"] for r in members if r["topic_iri"].endswith(f"/{topic}")), topic


def test_queries_answered_ahead_are_the_queries_answered_one_by_one(seed: Seed) -> None:
    """ReportSource.prefetch answers the report's queries in threads; each call's rows are those the same call gives
    alone, and a query that fails raises its own error where its rows are read (the others still answer)."""
    from kg.errors import KgError
    from kg.report.source import ReportSource
    calls: list[tuple[str, dict[str, str] | None, int | None]] = [
        ("tool-citations", None, None), ("works", None, None), ("most-cited", {"min-citing": "2"}, 15),
        ("topics", None, None), ("works-citing", {"target": "pytorch"}, None), ("years", None, 3)]
    alone = ReportSource([seed.home / "graph.nq"])
    expected = [alone.rows(*c) for c in calls]
    assert all(expected) and len(expected[-1]) == 3
    ahead = ReportSource([seed.home / "graph.nq"])
    ahead.prefetch([*reversed(calls), ("no-such-query", None, None)], workers=3)
    assert [ahead.rows(*c) for c in calls] == expected
    assert len(ahead._ahead) == 7 and all(f.done() for f in ahead._ahead.values())  # (read from the threads)
    with pytest.raises(KgError, match="no-such-query"):
        ahead.rows("no-such-query")

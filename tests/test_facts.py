"""The precomputed facts (graph/facts) are exactly what plain SPARQL over the base graph gives (issue 27), and the
query layer's index (kg/query/index.py: the listings' rows, in the store only) gives the listings' pages.

Checks, on the seeds and (behind --runslow) on 1,000 synthetic records (bench/synth.py):
- every fact line the build writes equals the answer of the plain SPARQL pattern it stands for, run on the
  graph without the facts graph;
- every stored query that reads the facts, and every listing, gives byte-identical ``kg query -f csv`` output on
  the store (facts, index and all), whole and paged, to its plain text before the facts
  (tests/data/queries-before/) on the base graph alone;
- a listing's pages read from the store's index are slices of its whole answer.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest
from click.testing import CliRunner
from conftest import ROOT

from kg.cli import main
from kg.pipeline.facts import InMemory, fact_lines, rows
from kg.query.backends import build_disk_store
from kg.rdf.ids import DEFAULT_BASE
from kg.rdf.nquads import quad

FACTS = f"<{DEFAULT_BASE}graph/facts>"
PRISM_DOI = "http://prismstandard.org/namespaces/basic/2.0/doi"
BEFORE = ROOT / "tests" / "data" / "queries-before"
PREFIXES = """PREFIX kg: <https://w3id.org/crossref-kg/ontology#>
PREFIX frbr: <http://purl.org/vocab/frbr/core#>
PREFIX biro: <http://purl.org/spar/biro/>
PREFIX prism: <http://prismstandard.org/namespaces/basic/2.0/>
PREFIX schema: <https://schema.org/>
PREFIX pro: <http://purl.org/spar/pro/>
PREFIX c4o: <http://purl.org/spar/c4o/>
"""
#: Each fact's predicate and the plain SPARQL over the base graph that gives its (subject, object) pairs.
PLAIN = {
    "citingInputWorks": """SELECT ?s (COUNT(DISTINCT ?w) AS ?o)
        WHERE { ?w kg:crossrefType ?t ; frbr:part ?r . ?r biro:references ?s } GROUP BY ?s""",
    "citesInputWork": """SELECT DISTINCT ?s ?o
        WHERE { ?w kg:crossrefType ?t ; frbr:part ?s . ?s biro:references ?o . ?o kg:crossrefType ?t2 }""",
    "citesEarlierVersionOf": """SELECT DISTINCT ?s ?o
        WHERE { ?w kg:crossrefType ?t ; frbr:part ?s . ?s biro:references ?x . ?x kg:preprintOf ?o .
                ?o kg:crossrefType ?t2 }""",
}
FACT_QUERIES = sorted(p.stem for p in (ROOT / "queries").glob("*.rq")
                      if any(f"kg:{name}" in p.read_text() for name in PLAIN))
#: The listings (``#+ page: index``), compared on whole answers and on pages (read from the store's index)
PAGED = {p.stem for p in (ROOT / "queries").glob("*.rq") if "\n#+ page: index\n" in p.read_text()}
#: The listings whose rows changed since the texts before the facts (issue 42): compared with their own text on the
#: base graph alone (no index there)
RESHAPED = {"works", "unresolved", "weakly-resolved", "tools-cited-by-both"}
#: The queries compared with their plain texts before the facts: those that read the facts, the listings, and those
#: that read a rank or a join index before they moved to the query layer (kg/query/index.py)
COMPARED = sorted({*FACT_QUERIES, *PAGED, "coauthors", "institution-collaboration", "tools-cited-by-both",
                   "tools-cited-by-profiling-and-compiler"})


def _build(tmp: Path, inputs: list[str]) -> tuple[Path, Path, list[str]]:
    """A workspace and a store of ``inputs``, and the lines of the graph."""
    home, store = tmp / "ws", tmp / "store"
    r = CliRunner().invoke(main, ["build", *inputs, "-q", "--validate", "none", "--store", str(store)],
                           env={"KG_HOME": str(home)}, prog_name="kg")
    assert r.exit_code == 0, r.output
    return home, store, (home / "graph.nq").read_text(encoding="utf-8").splitlines(keepends=True)


def _check_facts(lines: list[str], kinds: set[str]) -> None:
    base = [line for line in lines if not line.endswith(f" {FACTS} .\n")]
    facts = [line for line in lines if line.endswith(f" {FACTS} .\n")]
    db = ox.Store()
    db.load("".join(base).encode("utf-8"), format=ox.RdfFormat.N_QUADS)
    expected = set()
    for name, text in PLAIN.items():
        answer = db.query(PREFIXES + text, use_default_graph_as_union=True)
        assert isinstance(answer, ox.QuerySolutions)
        pred = f"<https://w3id.org/crossref-kg/ontology#{name}>"
        expected.update(quad(str(row["s"]), pred, str(row["o"]), FACTS) for row in answer)
    assert sorted(expected) == facts
    # the kinds of fact that occur (else the comparison proves little)
    assert {name for name in PLAIN if any(f"#{name}> " in line for line in facts)} == kinds
    # the entry point alone, on the base lines, gives the same (what a partitioned build calls as its reduce)
    assert list(fact_lines(sorted(set(rows(base))), FACTS, InMemory)) == facts


def _check_queries(tmp: Path, home: Path, store: Path, lines: list[str], empty: frozenset[str] = frozenset()) -> None:
    base = tmp / "base.nq"
    base.write_text("".join(line for line in lines if not line.endswith(f" {FACTS} .\n")), encoding="utf-8")
    runner = CliRunner()
    assert FACT_QUERIES, "no stored query reads the facts"
    pages: list[tuple[str, ...]] = [(), ("--limit", "100"), ("--limit", "7", "--offset", "11"), ("--offset", "5")]
    for name in COMPARED:
        for page in pages if name in PAGED else [()]:
            new = runner.invoke(main, ["query", name, "--store", str(store), "-f", "csv", *page],
                                env={"KG_HOME": str(home)}, prog_name="kg")
            plain = name if name in RESHAPED else str(BEFORE / f"{name}.rq")
            old = runner.invoke(main, ["query", plain, "--graph", str(base), "--engine",
                                       "oxigraph", "-f", "csv", *page], env={"KG_HOME": str(home)}, prog_name="kg")
            assert new.exit_code == 0 and old.exit_code == 0, (new.output, old.output)
            assert new.stdout == old.stdout, f"{name} {page}: the precomputed path differs from plain SPARQL"
            if not page:
                assert (len(_rows(new.stdout)) > 1) != (name in empty), f"{name}: no rows to compare"


def _rows(text: str) -> list[list[str]]:
    """The rows of a CSV answer (a list column's cell holds several lines)."""
    return list(csv.reader(io.StringIO(text)))


def _check_pages(home: Path, store: Path, name: str, size: int) -> None:
    """The pages of ``size`` rows (--limit/--offset), one after another, are the whole answer (a long answer: its
    first three pages and its last two, each where it falls in the whole)."""
    runner = CliRunner()

    def csv(*page: str) -> list[list[str]]:
        r = runner.invoke(main, ["query", name, "--store", str(store), "-f", "csv", *page], env={"KG_HOME": str(home)},
                          prog_name="kg")
        assert r.exit_code == 0, r.output
        return _rows(r.stdout)

    whole = csv()
    rows = len(whole) - 1
    size = min(size, rows // 3 or 1)  # (at least three pages: cocited has 39 rows on the seeds)
    offsets = list(range(0, rows, size))
    assert len(offsets) > 2, f"{name}: too few rows to page"
    for offset in offsets if len(offsets) <= 10 else offsets[:3] + offsets[-2:]:
        page = csv("--limit", str(size), "--offset", str(offset))
        assert page == whole[:1] + whole[1 + offset:1 + offset + size], f"{name}: rows {offset}+ differ from the whole"


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, list[str]]:
    tmp = tmp_path_factory.mktemp("facts-seeds")
    return (tmp, *_build(tmp, [str(ROOT / "seeds")]))


def test_the_facts_are_what_plain_sparql_gives_on_the_seeds(seeds: tuple) -> None:
    # (no seed cites another)
    _check_facts(seeds[3], {"citingInputWorks", "citesEarlierVersionOf"})


def test_queries_on_the_facts_answer_as_plain_sparql_on_the_seeds(seeds: tuple) -> None:
    assert FACT_QUERIES == ["bibliographic-coupling", "cocited", "internal-citations", "most-cited", "self-citations",
                            "untitled-cited"]
    # (no seed reference suggests a tool candidate, and every one is resolved)
    _check_queries(*seeds, empty=frozenset({"tool-candidates", "unresolved"}))


@pytest.mark.parametrize("name", sorted(PAGED - {"tool-candidates", "unresolved"}))
def test_a_paged_listings_pages_make_its_whole_answer_on_the_seeds(seeds: tuple, name: str) -> None:
    _check_pages(seeds[1], seeds[2], name, 50)


def _pages_are_slices_of_the_whole(tmp_path: Path, name: str, lines: list[str], pages: list[tuple[int, int]],
                                   *params: str) -> str:
    """The stored query ``name`` on ``lines`` and their facts: its whole CSV answer on the graph, each (limit, offset)
    page of it on a store of the graph (read from its index) checked to be that slice of the whole, and the same page
    on the graph alone (the text's own ORDER BY, LIMIT and OFFSET) too."""
    facts = list(fact_lines(sorted(set(rows(lines))), FACTS, InMemory))
    graph, store, scratch = tmp_path / "g.nq", tmp_path / f"store-{name}", tmp_path / "scratch"
    graph.write_text("".join(sorted(set(lines + facts))), encoding="utf-8")
    if not store.exists():
        scratch.mkdir(exist_ok=True)
        store.mkdir()
        build_disk_store(store, graph, scratch)

    def answer(*page: str, source: tuple[str, ...] = ("--graph", str(graph))) -> str:
        r = CliRunner().invoke(main, ["query", name, *source, "-f", "csv", *params, *page],
                               env={"KG_HOME": str(tmp_path / "ws")}, prog_name="kg")
        assert r.exit_code == 0, r.output
        return r.stdout

    whole = answer()
    rows_ = _rows(whole)
    for limit, offset in pages:
        page = ("--limit", str(limit), "--offset", str(offset))
        want = rows_[:1] + rows_[1 + offset:1 + offset + limit]
        assert _rows(answer(*page, source=("--store", str(store)))) == want, f"{name}: rows {offset}+ differ"
        assert _rows(answer(*page)) == want, f"{name}: rows {offset}+ differ from the whole"
    return whole


def test_works_is_one_row_a_work_with_its_authors_in_order(tmp_path: Path) -> None:
    kg, g = "https://w3id.org/crossref-kg/ontology#", f"<{DEFAULT_BASE}graph/t>"
    pro, schema = "http://purl.org/spar/pro/", "https://schema.org/"
    lines = []
    for w, doi, authors in (("A", "10.1/a", 3), ("B", "10.1/b", 1), ("C", "10.1/c", 11)):
        lines += [quad(f"<urn:{w}>", f"<{kg}crossrefType>", '"journal-article"', g),
                  quad(f"<urn:{w}>", f"<{PRISM_DOI}>", f'"{doi}"', g)]
        for n in range(1, authors + 1):
            role, agent = f"<urn:{w}/role/{n}>", f"<urn:{w}/p{n}>"
            lines += [quad(role, f"<{pro}relatesToDocument>", f"<urn:{w}>", g),
                      quad(role, f"<{pro}withRole>", f"<{pro}author>", g),
                      quad(role, f"<{kg}position>", f'"{n}"^^<http://www.w3.org/2001/XMLSchema#integer>', g),
                      quad(role, f"<{pro}isHeldBy>", agent, g), quad(agent, f"<{schema}name>", f'"{w} {n}"', g)]
    whole = _pages_are_slices_of_the_whole(tmp_path, "works", lines, [(1, 0), (2, 0), (1, 1), (2, 1), (1, 2)])
    # one row a work, its authors in author order (2 before 10), one per line
    assert [row[4] for row in csv.reader(io.StringIO(whole))] == \
        ["authors", "A 1\nA 2\nA 3", "B 1", "\n".join(f"C {n}" for n in range(1, 12))]


@pytest.mark.slow
def test_facts_and_queries_on_them_equal_plain_sparql_on_1k_synthetic_records(tmp_path: Path) -> None:
    data = tmp_path / "synth1k.jsonl"
    subprocess.run([sys.executable, str(ROOT / "bench" / "synth.py"), "1000", str(data)], check=True)
    home, store, lines = _build(tmp_path, [str(data)])
    _check_facts(lines, set(PLAIN))
    _check_queries(tmp_path, home, store, lines)
    for name in sorted(PAGED):
        _check_pages(home, store, name, 100)


def test_references_that_make_one_cocited_row_make_whole_pages(tmp_path: Path) -> None:
    # two references of one work with the same key citing the same node are one row of cocited: a page still holds
    # LIMIT rows
    kg, g = "https://w3id.org/crossref-kg/ontology#", f"<{DEFAULT_BASE}graph/t>"
    schema = "https://schema.org/"
    frbr, biro, prism = "http://purl.org/vocab/frbr/core#", "http://purl.org/spar/biro/", \
        "http://prismstandard.org/namespaces/basic/2.0/"

    def t(s: str, p: str, o: str) -> str:
        return quad(s, f"<{p}>", o, g)

    def lit(v: str) -> str:
        return f'"{v}"'

    lines = [t("<urn:c>", f"{schema}name", lit("Cited C")), t("<urn:d>", f"{schema}name", lit("Cited D"))]
    for work, doi, refs in (("<urn:A>", "10.1/a", [("a1", "k", "c"), ("a2", "k", "c"), ("a3", "m", "d")]),
                            ("<urn:B>", "10.1/b", [("b1", "x", "c"), ("b2", None, "d")])):
        lines += [t(work, f"{kg}crossrefType", lit("journal-article")), t(work, f"{prism}doi", lit(doi))]
        for ref, key, cited in refs:
            lines += [t(work, f"{frbr}part", f"<urn:{ref}>"), t(f"<urn:{ref}>", f"{biro}references", f"<urn:{cited}>")]
            if key:
                lines.append(t(f"<urn:{ref}>", f"{kg}referenceKey", lit(key)))
    whole = _pages_are_slices_of_the_whole(tmp_path, "cocited", lines, [(2, 0), (1, 1), (2, 2), (3, 1)])
    assert whole == ("title,citing_works,citing,key,cited\n"
                     "Cited C,2,10.1/a,k,urn:c\nCited C,2,10.1/b,x,urn:c\n"
                     "Cited D,2,10.1/a,m,urn:d\nCited D,2,10.1/b,,urn:d\n")


def test_unresolved_references_that_make_one_row_make_whole_pages(tmp_path: Path) -> None:
    """Two references of one work with the same key, kind and text are one row of unresolved; a work with two DOIs
    has a row for each; a reference of a work that is not an input work has none; weakly-resolved lists the
    references resolved with a score below its threshold (1 by default), the score ordering as a number. Pages read
    from the index are slices of the whole answer, and so are pages with another threshold (no index for it)."""
    kg, g, dec = "https://w3id.org/crossref-kg/ontology#", f"<{DEFAULT_BASE}graph/t>", \
        "^^<http://www.w3.org/2001/XMLSchema#decimal>"
    frbr, c4o = "http://purl.org/vocab/frbr/core#", "http://purl.org/spar/c4o/"
    lines = []
    for work, dois, typed in (("A", ["10.1/A"], True), ("B", ["10.1/z", "10.1/b"], True), ("C", ["10.1/c"], False)):
        if typed:
            lines.append(quad(f"<urn:{work}>", f"<{kg}crossrefType>", '"journal-article"', g))
        lines += [quad(f"<urn:{work}>", f"<{PRISM_DOI}>", f'"{doi}"', g) for doi in dois]
    refs = [("A", "a1", 1, None, "unresolved", "0.00", "X"), ("A", "a2", 2, None, "unresolved", "0.00", "X"),
            ("A", "a3", 3, "k3", "title", "0.75", "Y"), ("A", "a4", 4, "k4", "doi", "1.00", "W"),
            ("A", "a5", 5, "k5", "unique", "0.90", "V"), ("B", "b1", 1, "kb", "unresolved", "0.00", "Z"),
            ("B", "b2", 2, "kc", "title-fuzzy", "0.80", "U"), ("C", "c1", 1, None, "unresolved", "0.00", "T")]
    for work, ref, position, key, method, score, text in refs:
        r = f"<urn:{ref}>"
        lines += [quad(f"<urn:{work}>", f"<{frbr}part>", r, g),
                  quad(r, f"<{kg}position>", f'"{position}"^^<http://www.w3.org/2001/XMLSchema#integer>', g),
                  quad(r, f"<{kg}resolutionMethod>", f'"{method}"', g),
                  quad(r, f"<{kg}resolutionScore>", f'"{score}"{dec}', g),
                  quad(r, f"<{kg}referenceKind>", '"paper"', g), quad(r, f"<{c4o}hasContent>", f'"{text}"', g)]
        if key:
            lines.append(quad(r, f"<{kg}referenceKey>", f'"{key}"', g))
    whole = _pages_are_slices_of_the_whole(tmp_path, "unresolved", lines, [(1, 0), (2, 1), (1, 2), (9, 1)])
    assert whole == ("citing,key,resolution_method,resolution_score,kind,text\n10.1/A,,unresolved,0,paper,X\n"
                     "10.1/b,kb,unresolved,0,paper,Z\n10.1/z,kb,unresolved,0,paper,Z\n")
    weak = _pages_are_slices_of_the_whole(tmp_path, "weakly-resolved", lines, [(2, 0), (2, 3), (1, 3), (3, 1)])
    assert weak == ("citing,key,resolution_method,resolution_score,kind,text\n10.1/A,k3,title,0.75,paper,Y\n"
                    "10.1/b,kc,title-fuzzy,0.8,paper,U\n10.1/z,kc,title-fuzzy,0.8,paper,U\n10.1/A,k5,unique,0.9,paper,V\n")
    below = _pages_are_slices_of_the_whole(tmp_path, "weakly-resolved", lines, [(1, 0), (1, 1)], "-p", "threshold=0.8")
    assert below == "citing,key,resolution_method,resolution_score,kind,text\n10.1/A,k3,title,0.75,paper,Y\n"


def test_tool_candidates_follow_the_citing_works_then_names_and_make_whole_pages(tmp_path: Path) -> None:
    """Candidates with more citing works first (a work with no DOI counts, though it makes no row), then by name in
    lower case; two recognitions in references of one work with one key share a rank; an untyped candidate has
    none. Pages cut on the ranks are slices of the whole answer."""
    kg, g, dec = "https://w3id.org/crossref-kg/ontology#", f"<{DEFAULT_BASE}graph/t>", \
        "^^<http://www.w3.org/2001/XMLSchema#decimal>"
    frbr, schema = "http://purl.org/vocab/frbr/core#", "https://schema.org/"
    rdf_type = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    lines = []
    for cand, name, typed in (("t1", "Zeta", True), ("t2", "alpha", True), ("t3", "Beta", True), ("t4", "Eta", False)):
        lines.append(quad(f"<urn:{cand}>", f"<{schema}name>", f'"{name}"', g))
        if typed:
            lines.append(quad(f"<urn:{cand}>", rdf_type, f"<{kg}ToolCandidate>", g))
    for work, doi in (("A", "10.1/a"), ("B", "10.1/B"), ("C", None)):
        if doi:
            lines.append(quad(f"<urn:{work}>", f"<{PRISM_DOI}>", f'"{doi}"', g))
    refs = [("A", "a1", "k", "t1", "0.60"), ("A", "a2", "k", "t1", "0.50"), ("B", "b1", None, "t1", "0.45"),
            ("A", "a3", "m", "t2", "0.55"), ("A", "a4", "n", "t3", "0.70"), ("C", "c1", "x", "t3", "0.60"),
            ("A", "a5", "o", "t4", "0.60")]
    for work, ref, key, cand, score in refs:
        r, ev = f"<urn:{ref}>", f"<urn:{ref}/ev>"
        lines += [quad(f"<urn:{work}>", f"<{frbr}part>", r, g), quad(r, f"<{kg}suggestsTool>", f"<urn:{cand}>", g),
                  quad(r, f"<{kg}hasToolRecognition>", ev, g), quad(ev, f"<{kg}recognizedTool>", f"<urn:{cand}>", g),
                  quad(ev, f"<{kg}score>", f'"{score}"{dec}', g), quad(ev, f"<{kg}matchedText>", f'"{ref} says"', g)]
        if key:
            lines.append(quad(r, f"<{kg}referenceKey>", f'"{key}"', g))
    whole = _pages_are_slices_of_the_whole(tmp_path, "tool-candidates", lines, [(1, 0), (2, 1), (1, 2), (2, 3), (9, 1)])
    assert [line.split(",")[:4] for line in whole.splitlines()] == [
        ["candidate", "citing_works", "citing", "key"], ["Beta", "2", "10.1/a", "n"], ["Zeta", "2", "10.1/a", "k"],
        ["Zeta", "2", "10.1/a", "k"], ["Zeta", "2", "10.1/B", ""], ["alpha", "1", "10.1/a", "m"]]

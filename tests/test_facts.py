"""The precomputed facts (graph/facts) are exactly what plain SPARQL over the base graph gives (issue 27).

Two checks, on the seeds and (behind --runslow) on 1,000 synthetic records (bench/synth.py):
- every fact line the build writes equals the answer of the plain SPARQL pattern it stands for, run on the
  graph without the facts graph;
- every stored query that reads the facts gives byte-identical ``kg query -f csv`` output on the store (facts
  and all) to its plain text before the facts (tests/data/queries-before/) on the base graph alone.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest
from click.testing import CliRunner
from conftest import ROOT

from kg.cli import main
from kg.pipeline.facts import InMemory, fact_lines, rows
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
#: The references of the unresolved listing (unresolved, or scoring below 1) with their row's values in one text
_REVIEWED = """SELECT ?s ?d ?k1 ?p ?row
    WHERE { ?w kg:crossrefType ?t ; prism:doi ?d ; frbr:part ?s . ?s kg:position ?p .
            OPTIONAL { ?s kg:resolutionMethod ?m } OPTIONAL { ?s kg:resolutionScore ?k1 }
            OPTIONAL { ?s kg:referenceKey ?key } OPTIONAL { ?s kg:referenceKind ?kind }
            OPTIONAL { ?s c4o:hasContent ?text }
            FILTER (COALESCE(?m = "unresolved", false) || COALESCE(?k1 < 1, false))
            BIND (CONCAT(STR(?d), "|", COALESCE(STR(?key), "-"), "|", COALESCE(STR(?m), "-"), "|",
                         COALESCE(STR(?k1), "-"), "|", COALESCE(?kind, "-"), "|", COALESCE(?text, "-")) AS ?row) }"""
#: Each fact's predicate and the plain SPARQL over the base graph that gives its (subject, object) pairs.
PLAIN = {
    "citingInputWorks": """SELECT ?s (COUNT(DISTINCT ?w) AS ?o)
        WHERE { ?w kg:crossrefType ?t ; frbr:part ?r . ?r biro:references ?s } GROUP BY ?s""",
    "citesInputWork": """SELECT DISTINCT ?s ?o
        WHERE { ?w kg:crossrefType ?t ; frbr:part ?s . ?s biro:references ?o . ?o kg:crossrefType ?t2 }""",
    "citesEarlierVersionOf": """SELECT DISTINCT ?s ?o
        WHERE { ?w kg:crossrefType ?t ; frbr:part ?s . ?s biro:references ?x . ?x kg:preprintOf ?o .
                ?o kg:crossrefType ?t2 }""",
    "partCitingTool": """SELECT DISTINCT ?s ?o WHERE { ?s frbr:part ?o . ?o kg:citesTool ?tool }""",
}
#: Each rank fact's predicate and the plain SPARQL that lists its subjects in their order: the rank of a subject is
#: its place (1, 2, ...) in that list, at its first row.
RANKED = {
    "referenceRank": """SELECT ?s
        WHERE { ?w kg:crossrefType ?t ; prism:doi ?d ; frbr:part ?s . ?s kg:position ?p ; biro:references ?c .
                OPTIONAL { ?s kg:referenceKey ?k } }
        ORDER BY LCASE(?d) ?p ?k STR(?s)""",
    "iriRank": """SELECT DISTINCT ?s
        WHERE { { ?x schema:author ?s } UNION { ?x pro:relatesToOrganization ?s } FILTER (isIRI(?s)) }
        ORDER BY STR(?s)""",
}
#: Each dense rank fact's predicate and the plain SPARQL that lists its subjects in their order with the values of that
#: order (?k1, ?k2, ...): a subject's rank is the number of distinct orders up to its first row.
DENSE = {
    "cocitationRank": """SELECT ?s ?n ?c ?dl ?k
        WHERE { ?w kg:crossrefType ?t ; prism:doi ?d ; frbr:part ?s . ?s biro:references ?c .
                { SELECT ?c (COUNT(DISTINCT ?w2) AS ?n)
                  WHERE { ?w2 kg:crossrefType ?t2 ; frbr:part ?r2 . ?r2 biro:references ?c } GROUP BY ?c }
                OPTIONAL { ?s kg:referenceKey ?k }
                BIND (LCASE(?d) AS ?dl) }
        ORDER BY DESC(?n) STR(?c) ?dl ?k""",
    "toolCitationRank": """SELECT ?s ?k1 ?k2 ?k3 ?k4 ?k5 ?k6 ?k7
        WHERE { ?w kg:crossrefType ?t ; prism:doi ?d ; frbr:part ?r . ?r kg:citesTool ?k2 ; kg:hasToolRecognition ?s .
                ?s kg:recognizedTool ?k2 ; kg:method ?k5 ; kg:score ?k6 ; kg:matchedText ?k7 .
                ?k2 schema:name ?name ; schema:applicationCategory ?c .
                OPTIONAL { ?r kg:referenceKey ?k4 }
                BIND (LCASE(?name) AS ?k1) BIND (LCASE(?d) AS ?k3) }
        ORDER BY ?k1 ?k2 ?k3 ?k4 ?k5 ?k6 ?k7""",
    "workRank": """SELECT ?s ?k1
        WHERE { ?s kg:crossrefType ?t ; prism:doi ?d . BIND (LCASE(?d) AS ?k1) } ORDER BY ?k1""",
    # (references that make one row, the listing's rows being distinct, order by the first's position)
    "unresolvedRank": f"""SELECT ?s ?k1 ?k2 ?k3
        WHERE {{ {{ {_REVIEWED} }}
                {{ SELECT ?row (MIN(?p) AS ?k3) WHERE {{ {{ {_REVIEWED} }} }} GROUP BY ?row }}
                BIND (LCASE(?d) AS ?k2) }}
        ORDER BY ?k1 ?k2 ?k3""",
    "toolCandidateRank": """SELECT ?s ?k1 ?k2 ?k3 ?k4
        WHERE { { SELECT ?c (COUNT(DISTINCT ?w2) AS ?k1)
                  WHERE { ?w2 frbr:part ?r2 . ?r2 kg:suggestsTool ?c } GROUP BY ?c }
                ?c a kg:ToolCandidate ; schema:name ?name .
                ?w prism:doi ?d ; frbr:part ?r . ?r kg:suggestsTool ?c ; kg:hasToolRecognition ?s .
                ?s kg:recognizedTool ?c ; kg:score ?sc ; kg:matchedText ?mt .
                OPTIONAL { ?r kg:referenceKey ?k4 }
                BIND (LCASE(?name) AS ?k2) BIND (LCASE(?d) AS ?k3) }
        ORDER BY DESC(?k1) ?k2 ?k3 ?k4""",
}
FACT_QUERIES = sorted(p.stem for p in (ROOT / "queries").glob("*.rq")
                      if any(f"kg:{name}" in p.read_text() for name in [*PLAIN, *RANKED, *DENSE]))
#: The listings that page on a rank, compared on whole answers and on pages (kg cuts the ranks to the page's end)
PAGED = {"references", "cocited", "tool-citations", "works", "unresolved", "tool-candidates"}


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
    for name, text in RANKED.items():
        answer = db.query(PREFIXES + text, use_default_graph_as_union=True)
        assert isinstance(answer, ox.QuerySolutions)
        pred = f"<https://w3id.org/crossref-kg/ontology#{name}>"
        ranked = list(dict.fromkeys(str(row["s"]) for row in answer))  # (a subject's first row)
        assert ranked, f"{name}: nothing to rank"
        expected.update(quad(s, pred, f'"{n}"^^<http://www.w3.org/2001/XMLSchema#integer>', FACTS)
                        for n, s in enumerate(ranked, 1))
    for name, text in DENSE.items():
        answer = db.query(PREFIXES + text, use_default_graph_as_union=True)
        assert isinstance(answer, ox.QuerySolutions)
        pred = f"<https://w3id.org/crossref-kg/ontology#{name}>"
        dense: dict[str, int] = {}
        n, last = 0, None
        for row in answer:
            order = tuple(row[v] for v in answer.variables[1:])
            if order != last:
                n, last = n + 1, order
            dense.setdefault(str(row["s"]), n)
        assert dense or name not in kinds, f"{name}: nothing to rank"
        expected.update(quad(s, pred, f'"{rank}"^^<http://www.w3.org/2001/XMLSchema#integer>', FACTS)
                        for s, rank in dense.items())
    assert sorted(expected) == facts
    # the kinds of fact that occur (else the comparison proves little)
    assert {name for name in [*PLAIN, *RANKED, *DENSE] if any(f"#{name}> " in line for line in facts)} == kinds
    # the entry point alone, on the base lines, gives the same (what a partitioned build calls as its reduce)
    assert list(fact_lines(sorted(set(rows(base))), FACTS, InMemory)) == facts


def _check_queries(tmp: Path, home: Path, store: Path, lines: list[str], empty: frozenset[str] = frozenset()) -> None:
    base = tmp / "base.nq"
    base.write_text("".join(line for line in lines if not line.endswith(f" {FACTS} .\n")), encoding="utf-8")
    runner = CliRunner()
    assert FACT_QUERIES, "no stored query reads the facts"
    pages: list[tuple[str, ...]] = [(), ("--limit", "100"), ("--limit", "7", "--offset", "11"), ("--offset", "5")]
    for name in FACT_QUERIES:
        for page in pages if name in PAGED else [()]:
            new = runner.invoke(main, ["query", name, "--store", str(store), "-f", "csv", *page],
                                env={"KG_HOME": str(home)}, prog_name="kg")
            old = runner.invoke(main, ["query", str(BEFORE / f"{name}.rq"), "--graph", str(base), "--engine",
                                       "oxigraph", "-f", "csv", *page], env={"KG_HOME": str(home)}, prog_name="kg")
            assert new.exit_code == 0 and old.exit_code == 0, (new.output, old.output)
            assert new.stdout == old.stdout, f"{name} {page}: the precomputed path differs from plain SPARQL"
            assert (new.stdout.count("\n") > 1) != (name in empty), f"{name} {page}: no rows to compare"


def _check_pages(home: Path, store: Path, name: str, size: int) -> None:
    """The pages of ``size`` rows (--limit/--offset), one after another, are the whole answer (a long answer: its
    first three pages and its last two, each where it falls in the whole)."""
    runner = CliRunner()

    def csv(*page: str) -> list[str]:
        r = runner.invoke(main, ["query", name, "--store", str(store), "-f", "csv", *page], env={"KG_HOME": str(home)},
                          prog_name="kg")
        assert r.exit_code == 0, r.output
        return r.stdout.splitlines(keepends=True)

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
    _check_facts(seeds[3], {"citingInputWorks", "citesEarlierVersionOf", "referenceRank", "cocitationRank",
                            "iriRank", "partCitingTool", "toolCitationRank", "workRank", "unresolvedRank"})


def test_queries_on_the_facts_answer_as_plain_sparql_on_the_seeds(seeds: tuple) -> None:
    assert FACT_QUERIES == ["bibliographic-coupling", "coauthors", "cocited", "institution-collaboration",
                            "internal-citations", "most-cited", "references", "self-citations", "tool-candidates",
                            "tool-citations", "tools-cited-by-both", "tools-cited-by-profiling-and-compiler",
                            "unresolved", "untitled-cited", "works"]
    _check_queries(*seeds, empty=frozenset({"tool-candidates"}))  # (no seed reference suggests a tool candidate)


@pytest.mark.parametrize("name", sorted(PAGED - {"tool-candidates"}))
def test_a_paged_listings_pages_make_its_whole_answer_on_the_seeds(seeds: tuple, name: str) -> None:
    _check_pages(seeds[1], seeds[2], name, 50)


def test_tool_citation_ranks_are_dense_in_the_listings_order() -> None:
    """Recognitions the query groups into one row share a rank (two references of one work with the same key and
    recognition); the score orders as a number; a recognition of a tool with no category, or in a reference of a
    work with no DOI, has no rank (the query has no row for it)."""
    k, s, g = "https://w3id.org/crossref-kg/ontology#", "https://schema.org/", "<https://example.org/g>"
    lines = [f'<https://example.org/t/{t}> <{s}name> "{name}" {g} .\n' for t, name in (("a", "beta"), ("b", "Alpha"))]
    lines += [f'<https://example.org/t/a> <{s}applicationCategory> "profiler" {g} .\n',
              f'<https://example.org/t/b> <{s}applicationCategory> "compiler" {g} .\n',
              f'<https://example.org/t/c> <{s}name> "aaa" {g} .\n']  # (no category)
    refs = [("w1", 1, "k", "a", "0.9"), ("w1", 2, "k", "a", "0.9"), ("w1", 3, "k", "a", "0.45"),
            ("w1", 4, None, "a", "1"), ("w2", 5, "k", "a", "0.9"), ("w1", 6, "k", "b", "0.5"), ("w1", 7, "k", "c", "1"),
            ("w3", 8, "k", "a", "0.9")]
    for w, n, key, tool, score in refs:
        r, ev, t = f"<https://example.org/{w}/r{n}>", f"<https://example.org/{w}/r{n}/ev>", f"<https://example.org/t/{tool}>"
        lines += [f"<https://example.org/{w}> <http://purl.org/vocab/frbr/core#part> {r} {g} .\n",
                  f"{r} <{k}citesTool> {t} {g} .\n", f"{r} <{k}hasToolRecognition> {ev} {g} .\n",
                  f"{ev} <{k}recognizedTool> {t} {g} .\n", f'{ev} <{k}method> "alias" {g} .\n',
                  f'{ev} <{k}score> "{score}"^^<http://www.w3.org/2001/XMLSchema#decimal> {g} .\n',
                  f'{ev} <{k}matchedText> "x" {g} .\n']
        if key:
            lines.append(f'{r} <{k}referenceKey> "{key}" {g} .\n')
    for w, doi in (("w1", "10.1/B"), ("w2", "10.1/a"), ("w3", None)):
        lines.append(f'<https://example.org/{w}> <{k}crossrefType> "journal-article" {g} .\n')
        if doi:
            lines.append(f'<https://example.org/{w}> <{PRISM_DOI}> "{doi}" {g} .\n')
    ranks = {line.split(" ")[0].split("/", 3)[3]: int(line.split('"')[1])
             for line in fact_lines(sorted(set(rows(lines))), FACTS) if "#toolCitationRank>" in line}
    # Alpha (b) before beta (a); within beta: DOI 10.1/a before 10.1/B, no key first, score 0.45 before 0.9
    assert ranks == {"w1/r6/ev>": 1, "w2/r5/ev>": 2, "w1/r4/ev>": 3, "w1/r3/ev>": 4, "w1/r1/ev>": 5, "w1/r2/ev>": 5}


def test_work_ranks_are_dense_on_the_dois_in_lower_case_and_cut_pages_of_many_rows_a_work() -> None:
    """Works whose DOIs differ only in case share a rank; a work with two DOIs has the first's; a work that is not an
    input work, or has no DOI, has none. A page of the works listing (one row per author) is cut on these ranks."""
    k, g = "https://w3id.org/crossref-kg/ontology#", "<https://example.org/g>"
    lines = []
    for w, dois in (("a", ["10.1/B"]), ("b", ["10.1/b"]), ("c", ["10.1/z", "10.1/a"]), ("d", []), ("e", ["10.1/c"])):
        lines.append(f'<https://example.org/{w}> <{k}crossrefType> "journal-article" {g} .\n')
        lines += [f'<https://example.org/{w}> <{PRISM_DOI}> "{doi}" {g} .\n' for doi in dois]
    lines.append(f'<https://example.org/f> <{PRISM_DOI}> "10.1/0" {g} .\n')  # (no type: not an input work)
    ranks = {line.split(" ")[0]: int(line.split('"')[1])
             for line in fact_lines(sorted(set(rows(lines))), FACTS) if "#workRank>" in line}
    assert ranks == {"<https://example.org/c>": 1, "<https://example.org/a>": 2, "<https://example.org/b>": 2,
                     "<https://example.org/e>": 3}


def _pages_are_slices_of_the_whole(tmp_path: Path, name: str, lines: list[str], pages: list[tuple[int, int]],
                                   *params: str) -> str:
    """The stored query ``name`` on ``lines`` and their facts: its whole CSV answer, each (limit, offset) page of it
    checked to be that slice of the whole (kg cuts the ranks at OFFSET + LIMIT)."""
    facts = list(fact_lines(sorted(set(rows(lines))), FACTS, InMemory))
    graph = tmp_path / "g.nq"
    graph.write_text("".join(sorted(set(lines + facts))), encoding="utf-8")

    def csv(*page: str) -> str:
        r = CliRunner().invoke(main, ["query", name, "--graph", str(graph), "--engine", "oxigraph", "-f", "csv",
                                      *params, *page], env={"KG_HOME": str(tmp_path / "ws")}, prog_name="kg")
        assert r.exit_code == 0, r.output
        return r.stdout

    whole = csv()
    lines_ = whole.splitlines(keepends=True)
    for limit, offset in pages:
        assert csv("--limit", str(limit), "--offset", str(offset)) == \
            lines_[0] + "".join(lines_[1 + offset:1 + offset + limit]), f"{name}: rows {offset}+ differ from the whole"
    return whole


def test_a_works_page_holds_every_row_of_its_works(tmp_path: Path) -> None:
    # works with several authors make several rows: a page of N rows cut at the works ranked N or less is whole
    kg, g = "https://w3id.org/crossref-kg/ontology#", f"<{DEFAULT_BASE}graph/t>"
    pro, schema = "http://purl.org/spar/pro/", "https://schema.org/"
    lines = []
    for w, doi, authors in (("A", "10.1/a", 3), ("B", "10.1/b", 1), ("C", "10.1/c", 2)):
        lines += [quad(f"<urn:{w}>", f"<{kg}crossrefType>", '"journal-article"', g),
                  quad(f"<urn:{w}>", f"<{PRISM_DOI}>", f'"{doi}"', g)]
        for n in range(1, authors + 1):
            role, agent = f"<urn:{w}/role/{n}>", f"<urn:{w}/p{n}>"
            lines += [quad(role, f"<{pro}relatesToDocument>", f"<urn:{w}>", g),
                      quad(role, f"<{pro}withRole>", f"<{pro}author>", g),
                      quad(role, f"<{kg}position>", f'"{n}"^^<http://www.w3.org/2001/XMLSchema#integer>', g),
                      quad(role, f"<{pro}isHeldBy>", agent, g), quad(agent, f"<{schema}name>", f'"{w} {n}"', g)]
    whole = _pages_are_slices_of_the_whole(tmp_path, "works", lines, [(2, 0), (4, 0), (2, 3), (3, 4), (10, 5)])
    assert [line.split(",")[5] for line in whole.splitlines()] == \
        ["author", "A 1", "A 2", "A 3", "B 1", "C 1", "C 2"]


@pytest.mark.slow
def test_facts_and_queries_on_them_equal_plain_sparql_on_1k_synthetic_records(tmp_path: Path) -> None:
    data = tmp_path / "synth1k.jsonl"
    subprocess.run([sys.executable, str(ROOT / "bench" / "synth.py"), "1000", str(data)], check=True)
    home, store, lines = _build(tmp_path, [str(data)])
    _check_facts(lines, {*PLAIN, *RANKED, *DENSE})
    _check_queries(tmp_path, home, store, lines)
    for name in sorted(PAGED):
        _check_pages(home, store, name, 100)


def test_references_that_make_one_cocited_row_share_its_rank_so_pages_are_whole(tmp_path: Path) -> None:
    # two references of one work with the same key citing the same node are one row of cocited: one rank, so a
    # page cut on the ranks (kg binds ?page_end = OFFSET + LIMIT) still holds LIMIT rows
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
    facts = list(fact_lines(sorted(set(rows(lines))), FACTS, InMemory))
    ranks = {line.split(" ")[0]: line.split('"')[1] for line in facts if "#cocitationRank>" in line}
    assert ranks == {"<urn:a1>": "1", "<urn:a2>": "1", "<urn:b1>": "2", "<urn:a3>": "3", "<urn:b2>": "4"}
    whole = _pages_are_slices_of_the_whole(tmp_path, "cocited", lines, [(2, 0), (1, 1), (2, 2), (3, 1)])
    assert whole == ("title,citing_works,citing,key,cited\n"
                     "Cited C,2,10.1/a,k,urn:c\nCited C,2,10.1/b,x,urn:c\n"
                     "Cited D,2,10.1/a,m,urn:d\nCited D,2,10.1/b,,urn:d\n")


def test_unresolved_ranks_give_references_that_make_one_row_one_rank_so_pages_are_whole(tmp_path: Path) -> None:
    """Two references of one work with the same key, method, score, kind and text are one row of unresolved: they
    share a rank; a work with two DOIs has a row for each, its reference the first's rank; a reference scoring 1, or
    of a work that is not an input work, has none; the score orders as a number. Pages cut on the ranks are slices of
    the whole answer, with the default threshold and another."""
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
    ranks = {line.split(" ")[0]: int(line.split('"')[1])
             for line in fact_lines(sorted(set(rows(lines))), FACTS) if "#unresolvedRank>" in line}
    # score 0: A's (10.1/a) a1 and a2 one row, B's b1 under 10.1/b then 10.1/z; 0.75 a3; 0.8 b2 (twice); 0.9 a5
    assert ranks == {"<urn:a1>": 1, "<urn:a2>": 1, "<urn:b1>": 2, "<urn:a3>": 4, "<urn:b2>": 5, "<urn:a5>": 7}
    whole = _pages_are_slices_of_the_whole(tmp_path, "unresolved", lines, [(1, 0), (2, 1), (1, 3), (2, 2), (9, 1)])
    assert whole == ("citing,key,resolution_method,resolution_score,kind,text\n"
                     "10.1/A,,unresolved,0,paper,X\n10.1/b,kb,unresolved,0,paper,Z\n"
                     "10.1/z,kb,unresolved,0,paper,Z\n10.1/A,k3,title,0.75,paper,Y\n")
    more = _pages_are_slices_of_the_whole(tmp_path, "unresolved", lines, [(2, 0), (2, 3), (1, 6), (3, 4)],
                                          "-p", "threshold=0.95")
    assert more == whole + "10.1/b,kc,title-fuzzy,0.8,paper,U\n10.1/z,kc,title-fuzzy,0.8,paper,U\n" \
        "10.1/A,k5,unique,0.9,paper,V\n"


def test_tool_candidate_ranks_follow_the_citing_works_then_names_so_pages_are_whole(tmp_path: Path) -> None:
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
    ranks = {line.split(" ")[0]: int(line.split('"')[1])
             for line in fact_lines(sorted(set(rows(lines))), FACTS) if "#toolCandidateRank>" in line}
    assert ranks == {"<urn:a4/ev>": 1, "<urn:a1/ev>": 2, "<urn:a2/ev>": 2, "<urn:b1/ev>": 3, "<urn:a3/ev>": 4}
    whole = _pages_are_slices_of_the_whole(tmp_path, "tool-candidates", lines, [(1, 0), (2, 1), (1, 2), (2, 3), (9, 1)])
    assert [line.split(",")[:4] for line in whole.splitlines()] == [
        ["candidate", "citing_works", "citing", "key"], ["Beta", "2", "10.1/a", "n"], ["Zeta", "2", "10.1/a", "k"],
        ["Zeta", "2", "10.1/a", "k"], ["Zeta", "2", "10.1/B", ""], ["alpha", "1", "10.1/a", "m"]]

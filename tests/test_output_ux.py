"""What a person sees from ``kg query``: tables sized for where they go, paging in the SPARQL, parameters
people can type, ad-hoc SPARQL with the standard prefixes, and the W3C result formats (issue 26)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.cli import main
from kg.rdf.io import graph_extensions

GRAPH = """\
<https://doi.org/10.1145/2024716.2024718> <https://schema.org/name> "A very long title about profiling parallel programs on many cores" .
<https://doi.org/10.1145/2024716.2024718> <https://schema.org/isPartOf> "Proceedings of the International Symposium on Code Generation" .
<https://doi.org/10.1109/cgo.2004.1281665> <https://schema.org/name> "LLVM: a compilation framework" .
<https://doi.org/10.1109/cgo.2004.1281665> <https://schema.org/isPartOf> "CGO" .
"""
TITLES = ("SELECT ?w ?title ?venue WHERE { ?w <https://schema.org/name> ?title ; <https://schema.org/isPartOf> ?venue }"
          " ORDER BY ?w")


@pytest.fixture
def graph(tmp_path: Path) -> Path:
    p = tmp_path / "g.nt"
    p.write_text(GRAPH, encoding="utf-8")
    return p


def kg(*args: str, **env: str) -> Result:
    r = CliRunner().invoke(main, list(args), env={"KG_TERMINAL": "0", **env}, prog_name="kg")
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output
    return r


# ---------------------------------------------------------------- tables that fit the reader

WORKS = """\
<https://doi.org/10.5555/llvm.2004> <https://schema.org/name> "LLVM: a compilation framework for lifelong program analysis & transformation" .
<https://doi.org/10.5555/llvm.2004> <https://schema.org/isPartOf> "CGO" .
<https://doi.org/10.5555/llvm.2004> <http://purl.org/dc/terms/subject> <https://w3id.org/crossref-kg/topic/compilers> .
<https://doi.org/10.5555/prof.2011> <https://schema.org/name> "A very long title about profiling parallel programs on many cores, with a subtitle that goes on and on and on" .
<https://doi.org/10.5555/prof.2011> <https://schema.org/isPartOf> "Proceedings of the Symposium on Code Generation and Optimization" .
<https://doi.org/10.5555/prof.2011> <http://purl.org/dc/terms/subject> <https://w3id.org/crossref-kg/topic/profiling> .
"""
LABELS_FIRST = ("SELECT ?title ?venue ?topic ?work WHERE { ?work schema:name ?title ; schema:isPartOf ?venue ; "
                "dcterms:subject ?topic } ORDER BY ?work")
WHOLE = """\
title                                                                                                          venue                                                             topic            work
-------------------------------------------------------------------------------------------------------------- ----------------------------------------------------------------- ---------------- -----------------
LLVM: a compilation framework for lifelong program analysis & transformation                                   CGO                                                               topic:compilers  10.5555/llvm.2004
A very long title about profiling parallel programs on many cores, with a subtitle that goes on and on and on  Proceedings of the Symposium on Code Generation and Optimization  topic:profiling  10.5555/prof.2011
(2 rows)
"""


@pytest.fixture
def works(tmp_path: Path) -> Path:
    p = tmp_path / "works.nt"
    p.write_text(WORKS, encoding="utf-8")
    return p


def on_terminal(*args: str, columns: int) -> str:
    r = kg(*args, KG_TERMINAL="1", COLUMNS=str(columns))
    assert (r.exit_code, r.stderr) == (0, ""), r.output
    return r.stdout


def test_a_table_written_to_a_file_is_whole(works: Path) -> None:
    """Off a terminal (CliRunner's output is no terminal, as a file or a pipe is not) nothing is cut: whole values,
    aligned, plain text: no box drawing, no colour codes, no trailing spaces; the terminal's width plays no part."""
    r = CliRunner().invoke(main, ["query", "-g", str(works), "-e", LABELS_FIRST], env={"KG_TERMINAL": None,
                                                                                         "COLUMNS": "60"})
    assert (r.exit_code, r.stdout, r.stderr) == (0, WHOLE, "")
    assert not re.search(r"[\x1b\u2500-\u257f]| \n", r.stdout)


def test_a_table_at_width_60_shortens_the_text_never_the_identifiers(works: Path) -> None:
    out = on_terminal("query", "-g", str(works), "-e", LABELS_FIRST, columns=60)
    assert out == """\
title        venue        topic            work
------------ ------------ ---------------- -----------------
LLVM: a co…  CGO          topic:compilers  10.5555/llvm.2004
A very lon…  Proceeding…  topic:profiling  10.5555/prof.2011
(2 rows)
(shortened to fit: title, venue; --wide shows them whole)
"""
    assert max(len(line) for line in out.splitlines()[:4]) == 60


def test_a_table_at_width_200_shortens_the_widest_text_column_first(works: Path) -> None:
    out = on_terminal("query", "-g", str(works), "-e", LABELS_FIRST, columns=200)
    assert out == """\
title                                                                                               venue                                                             topic            work
--------------------------------------------------------------------------------------------------- ----------------------------------------------------------------- ---------------- -----------------
LLVM: a compilation framework for lifelong program analysis & transformation                        CGO                                                               topic:compilers  10.5555/llvm.2004
A very long title about profiling parallel programs on many cores, with a subtitle that goes on a…  Proceedings of the Symposium on Code Generation and Optimization  topic:profiling  10.5555/prof.2011
(2 rows)
(shortened to fit: title; --wide shows them whole)
"""
    assert max(len(line) for line in out.splitlines()[:4]) == 200


def test_a_table_that_fits_is_whole_and_wide_shows_all(works: Path) -> None:
    assert on_terminal("query", "-g", str(works), "-e", LABELS_FIRST, columns=211) == WHOLE
    assert on_terminal("query", "-g", str(works), "-e", LABELS_FIRST, "--wide", columns=60) == WHOLE


def test_identifiers_give_way_last_and_columns_are_left_out_past_the_width(tmp_path: Path) -> None:
    """A DOI, an ORCID iD or a URL in a literal is an identifier too: the text gives way first; when the text at its
    least is not enough, the identifiers too; when even that is too wide, columns are left out from the right, and
    the line under the table names each one (issue 47: no line is wider than the terminal)."""
    g = tmp_path / "d.nt"
    g.write_text('<https://x.org/a> <https://schema.org/identifier> "10.1145/2024716.2024718-with-a-long-suffix" .\n'
                 '<https://x.org/a> <https://schema.org/name> "Some title of many words" .\n'
                 '<https://x.org/a> <https://schema.org/author> "0000-0002-1825-0097" .\n', encoding="utf-8")
    q = ("SELECT ?doi ?title ?orcid WHERE { ?w <https://schema.org/identifier> ?doi ; <https://schema.org/name> ?title ;"
         " <https://schema.org/author> ?orcid }")
    assert on_terminal("query", "-g", str(g), "-e", q, columns=70) == """\
doi                                      title     orcid
---------------------------------------- --------- -------------------
10.1145/2024716.2024718-with-a-long-su…  Some ti…  0000-0002-1825-0097
(1 row)
(shortened to fit: doi, title; --wide shows them whole)
"""
    assert on_terminal("query", "-g", str(g), "-e", q, columns=40) == """\
doi             title     orcid
--------------- --------- --------------
10.1145/20247…  Some ti…  0000-0002-182…
(1 row)
(shortened to fit: doi, title, orcid;
--wide shows them whole)
"""
    assert on_terminal("query", "-g", str(g), "-e", q, columns=24) == """\
doi             title
--------------- --------
10.1145/20247…  Some ti…
(1 row)
(shortened to fit: doi,
title; left out: orcid;
--wide shows everything)
"""


def test_wide_characters_take_two_cells(tmp_path: Path) -> None:
    """rich measures text as a terminal draws it: CJK characters take two cells, combining accents none."""
    g = tmp_path / "w.nt"
    g.write_text('<https://doi.org/10.5555/ja> <https://schema.org/name> "深層学習コンパイラの研究" .\n'
                 '<https://doi.org/10.5555/fr> <https://schema.org/name> "Une e\u0301tude des compilateurs" .\n',
                 encoding="utf-8")
    q = "SELECT ?title ?w WHERE { ?w schema:name ?title } ORDER BY ?w"
    assert kg("query", "-g", str(g), "-e", q).stdout == """\
title                       w
--------------------------- ----------
Une étude des compilateurs  10.5555/fr
深層学習コンパイラの研究    10.5555/ja
(2 rows)
""".replace("é", "e\u0301")
    assert on_terminal("query", "-g", str(g), "-e", q, columns=30) == """\
title               w
------------------- ----------
Une étude des com…  10.5555/fr
深層学習コンパイ …  10.5555/ja
(2 rows)
(shortened to fit: title;
--wide shows them whole)
""".replace("é", "e\u0301")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 120), st.booleans()), min_size=1, max_size=8), st.integers(0, 400))
def test_fitted_widths_shorten_the_widest_text_first(cols: list[tuple[int, bool]], budget: int) -> None:
    from kg.query.output import MIN_TEXT, fitted
    full = [f for f, _ in cols]
    least = [f if ident else min(f, MIN_TEXT) for f, ident in cols]
    widths = fitted(full, least, budget)
    assert all(m <= w <= f for m, w, f in zip(least, widths, full, strict=True))
    assert sum(widths) <= max(budget, sum(least))
    if sum(full) <= budget:
        assert widths == full
    elif sum(least) <= budget:
        assert sum(widths) == budget  # (all the room is used)
    cut = [w for w, f in zip(widths, full, strict=True) if w < f]
    # a column is cut only down to the width of the widest columns left whole or cut less
    assert all(w >= max(cut) - 1 or w == m for w, m in zip(cut, [m for m, w, f in zip(least, widths, full,
                                                                                          strict=True) if w < f],
                                                                strict=True))


# ---------------------------------------------------------------- short IRIs in tables

IRIS = """\
<https://x.org/s> <https://x.org/p> <https://doi.org/10.1145/3620665.3640367> .
<https://x.org/s> <https://x.org/p> <https://doi.org/10.5555/a%3Cb%3E> .
<https://x.org/s> <https://x.org/p> <https://w3id.org/crossref-kg/tool/pytorch> .
<https://x.org/s> <https://x.org/p> <https://w3id.org/crossref-kg/tool/named/tvm-unity> .
<https://x.org/s> <https://x.org/p> <https://w3id.org/crossref-kg/topic/profiling> .
<https://x.org/s> <https://x.org/p> <https://schema.org/Person> .
<https://x.org/s> <https://x.org/p> <http://purl.org/spar/cito/cites> .
<https://x.org/s> <https://x.org/p> <https://w3id.org/crossref-kg/ontology#ToolRecognition> .
<https://x.org/s> <https://x.org/p> <https://w3id.org/crossref-kg/person/orcid/0000-0002-1825-0097> .
<https://x.org/s> <https://x.org/p> _:b1 .
<https://x.org/s> <https://x.org/p> "10.1145/literal.doi" .
"""


def test_a_table_shows_iris_as_dois_and_prefixed_names(tmp_path: Path) -> None:
    """In a table a doi.org IRI is its DOI and an IRI of a standard prefix its prefixed name (one that can be
    typed back: ``-p target=tool:pytorch``); other IRIs stay whole (a local name with '/' is no prefixed name).
    csv, tsv and json keep every IRI whole."""
    g = tmp_path / "iris.nt"
    g.write_text(IRIS, encoding="utf-8")
    q = "SELECT ?o (isIRI(?o) AS ?iri) WHERE { ?s ?p ?o } ORDER BY STR(?o)"
    table = kg("query", "-g", str(g), "-e", q).stdout
    assert re.sub(r"_:\S+", lambda m: "_:B".ljust(len(m.group(0))), table) == """\
o                                                              iri
-------------------------------------------------------------- -----
_:B                                                            false
10.1145/literal.doi                                            false
cito:cites                                                     true
10.1145/3620665.3640367                                        true
10.5555/a<b>                                                   true
schema:Person                                                  true
kg:ToolRecognition                                             true
https://w3id.org/crossref-kg/person/orcid/0000-0002-1825-0097  true
https://w3id.org/crossref-kg/tool/named/tvm-unity              true
tool:pytorch                                                   true
topic:profiling                                                true
(11 rows)
"""
    assert kg("query", "-g", str(g), "-e", q, "-f", "markdown").stdout.count("tool:pytorch") == 1
    csv_out = kg("query", "-g", str(g), "-e", q, "-f", "csv").stdout_bytes.decode()
    tsv_out = kg("query", "-g", str(g), "-e", q, "-f", "tsv").stdout
    json_out = kg("query", "-g", str(g), "-e", q, "-f", "json").stdout
    for iri in ("https://doi.org/10.5555/a%3Cb%3E", "https://w3id.org/crossref-kg/tool/pytorch",
                "https://schema.org/Person", "https://w3id.org/crossref-kg/topic/profiling"):
        assert f"\r\n{iri},true\r\n" in csv_out and f"\n<{iri}>\ttrue\n" in tsv_out and f'"{iri}"' in json_out


# ---------------------------------------------------------------- paging in the SPARQL


def test_limit_and_offset_go_into_the_query_sent(graph: Path) -> None:
    """--show-query prints the text the engine is given: the page's LIMIT and OFFSET are in it."""
    q = "SELECT ?w ?title WHERE { ?w <https://schema.org/name> ?title } ORDER BY ?w"
    r = kg("query", "-g", str(graph), "-e", q, "--limit", "1", "--offset", "1", "-f", "csv", "--show-query")
    assert r.exit_code == 0
    assert r.stdout.splitlines() == ["w,title", "https://doi.org/10.1145/2024716.2024718,"
                                     "A very long title about profiling parallel programs on many cores"]
    assert r.stderr == q + "\nLIMIT 1 OFFSET 1\n"


def test_time_says_the_seconds_the_query_took(graph: Path) -> None:
    r = kg("query", "-g", str(graph), "-e", "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1", "-f", "csv", "--time")
    assert r.exit_code == 0 and r.stdout.splitlines()[0] == "s"
    assert re.fullmatch(r"time: \d+\.\d{3} s\n", r.stderr), r.stderr


def test_a_query_with_its_own_limit_becomes_a_subquery_of_the_page() -> None:
    from kg.query.text import paged
    q = "PREFIX s: <https://schema.org/>\n# c\nSELECT ?w WHERE { ?w s:name ?t } ORDER BY ?w LIMIT 5"
    assert paged(q, 2, 3) == ("PREFIX s: <https://schema.org/>\n# c\n\nSELECT * WHERE {\n"
                              "SELECT ?w WHERE { ?w s:name ?t } ORDER BY ?w LIMIT 5\n} LIMIT 2 OFFSET 3\n")
    assert paged(q, None, None) == q
    # a LIMIT inside a string or a subquery is not the outer query's
    q2 = 'SELECT ?w WHERE { { SELECT ?w WHERE { ?w ?p "LIMIT 3" } LIMIT 3 } } ORDER BY ?w'
    assert paged(q2, 1, 0) == q2 + "\nLIMIT 1\n"
    # a trailing VALUES clause (after the last brace of the WHERE) makes it a subquery too
    q3 = "SELECT ?w WHERE { ?w ?p ?o } VALUES ?w { <https://x.org/a> }"
    assert paged(q3, 1, None) == f"\nSELECT * WHERE {{\n{q3}\n}} LIMIT 1\n"


def test_limit_and_offset_page_a_stored_query(graph: Path, tmp_path: Path) -> None:
    whole = kg("query", "-g", str(graph), "-e", TITLES, "-f", "json")
    import json
    rows = json.loads(whole.stdout)["results"]["bindings"]
    page = json.loads(kg("query", "-g", str(graph), "-e", TITLES, "-f", "json", "--offset", "1").stdout)
    assert page["results"]["bindings"] == rows[1:]
    assert kg("query", "-g", str(graph), "-e", TITLES, "--limit", "-1").exit_code == 2


# ---------------------------------------------------------------- a page on a terminal, rows streamed elsewhere

NAMES = "SELECT ?name WHERE { ?s schema:name ?name } ORDER BY ?name"


@pytest.fixture
def names(tmp_path: Path) -> Path:
    p = tmp_path / "names.nt"
    p.write_text("".join(f'<https://x.org/s{i}> <https://schema.org/name> "name {i:03d}" .\n' for i in range(1, 121)),
                 encoding="utf-8")
    return p


def test_a_terminal_shows_one_page_and_says_how_to_see_more(names: Path) -> None:
    """50 rows a page (kg.query.output.PAGE); the engine is asked for one more, which says that more follow."""
    r = kg("query", "-g", str(names), "-e", NAMES, "--show-query", KG_TERMINAL="1", COLUMNS="80")
    assert (r.exit_code, r.stderr) == (0, "PREFIX schema: <https://schema.org/>\n" + NAMES + "\nLIMIT 51\n")
    assert r.stdout.splitlines() == ["name", "--------", *(f"name {i:03d}" for i in range(1, 51)),
                                     "(first 50 rows; more follow: --offset 50 shows the next page, --all every row)"]
    page2 = on_terminal("query", "-g", str(names), "-e", NAMES, "--offset", "50", columns=80).splitlines()
    assert page2[2:] == [*(f"name {i:03d}" for i in range(51, 101)),
                         "(rows 51 to 100; more follow: --offset 100 shows the next page, --all every row)"]
    last = on_terminal("query", "-g", str(names), "-e", NAMES, "--offset", "100", columns=80).splitlines()
    assert last[2:] == [*(f"name {i:03d}" for i in range(101, 121)), "(20 rows)"]
    every = on_terminal("query", "-g", str(names), "-e", NAMES, "--all", columns=80).splitlines()
    assert every[2:] == [*(f"name {i:03d}" for i in range(1, 121)), "(120 rows)"]
    asked = on_terminal("query", "-g", str(names), "-e", NAMES, "--limit", "70", columns=80).splitlines()
    assert asked[-2:] == ["name 070", "(70 rows)"]
    # off a terminal, and in the formats for programs, every row
    assert kg("query", "-g", str(names), "-e", NAMES).stdout.splitlines()[-2:] == ["name 120", "(120 rows)"]
    assert len(on_terminal("query", "-g", str(names), "-e", NAMES, "-f", "csv", columns=80).splitlines()) == 121


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json", "markdown"])
def test_rows_are_written_as_the_engine_yields_them(names: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    """A spy between the engine and the writer: when the engine is asked for its k-th row, the rows before it are
    already on standard output."""
    import sys

    from kg.query import run
    from kg.query.results import Answer
    real = run.answer_oxigraph
    written_before: list[int] = []

    def spied(store, text):  # type: ignore[no-untyped-def]  # noqa: ANN001, ANN202
        answer = real(store, text)

        def rows():  # type: ignore[no-untyped-def]  # noqa: ANN202
            for row in answer.rows:
                sys.stdout.flush()
                written_before.append(len(re.findall(rb"name \d{3}", sys.stdout.buffer.getvalue())))
                yield row
        return Answer(answer.columns, rows(), answer.boolean, answer.graph, answer.page)

    monkeypatch.setattr(run, "answer_oxigraph", spied)
    r = kg("query", "-g", str(names), "-e", NAMES, "-f", fmt)
    assert r.exit_code == 0 and len(re.findall(r"name \d{3}", r.stdout)) == 120
    assert written_before == list(range(120))


_XSD = "http://www.w3.org/2001/XMLSchema#"
_LITERALS = st.one_of(
    st.builds(lambda t: f'"{t}"', st.text()),
    st.builds(lambda t, lang: f'"{t}"@{lang}', st.text(), st.sampled_from(["en", "en-GB", "de-CH-1996"])),
    st.builds(lambda t, dt: f'"{t}"^^<{dt}>', st.one_of(st.text(), st.from_regex(r"[+-]?[0-9]{0,3}(\.[0-9]{0,3})?"
                                                                                 r"([eE][+-]?[0-9]{1,2})?", fullmatch=True),
                                                      st.sampled_from(["true", "false", "1", "0", "INF", "NaN"])),
              st.sampled_from([_XSD + d for d in ("integer", "decimal", "double", "float", "boolean", "date", "string",
                                                  "int")] + ["https://x.org/type"])))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(_LITERALS, st.sampled_from(["<https://x.org/a,b>", "<https://x.org/é?q=1&r=%22>",
                                                      "_:b1"])), min_size=1, max_size=12))
def test_rows_read_from_oxigraphs_tsv_are_the_terms_it_holds(objects: list[str]) -> None:
    """The store's rows come as SPARQL TSV that Oxigraph writes and kg reads back (kg.query.backends): the cells
    equal those of pyoxigraph's term objects, for any text (tabs, newlines, quotes, backslashes, any character),
    language tags, numbers written bare or not, other datatypes, IRIs, blank nodes and unbound values."""
    import pyoxigraph as ox

    from kg.query.backends import XSD_STRING, answer_oxigraph

    def ox_cell(term: object) -> object:  # (the cell of a pyoxigraph term object: the reference)
        if term is None:
            return None
        if isinstance(term, ox.NamedNode):
            return ("uri", term.value, None, None)
        if isinstance(term, ox.BlankNode):
            return ("bnode", term.value, None, None)
        assert isinstance(term, ox.Literal)
        if term.language:
            return ("literal", term.value, None, term.language)
        dt = term.datatype.value
        return ("literal", term.value, None if dt == XSD_STRING else dt, None)

    def escaped(term: str) -> str:  # (the text between the quotes as N-Triples writes it)
        if not term.startswith('"'):
            return term
        end = term.rindex('"')
        text = term[1:end].replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
        return '"' + text + '"' + term[end + 1:]
    store = ox.Store()
    for i, o in enumerate(objects):
        try:
            store.load(f"<https://x.org/s{i}> <https://x.org/p> {escaped(o)} .\n".encode(), format=ox.RdfFormat.N_TRIPLES)
        except SyntaxError:  # (a lexical form the parser refuses: not a term a store holds)
            continue
    text = ("SELECT ?s ?o ?none WHERE { ?s ?p ?o OPTIONAL { ?s <https://x.org/none> ?none } } ORDER BY ?s")
    expected = [[ox_cell(t) for t in sol] for sol in store.query(text)]  # type: ignore[union-attr]
    assert list(answer_oxigraph(store, text).rows) == expected


def test_rows_left_unread_stop_the_engine() -> None:
    """A reader that stops early (a page of a large answer) stops Oxigraph's writing too: no thread is left."""
    import threading
    import time

    import pyoxigraph as ox

    from kg.query.backends import answer_oxigraph

    store = ox.Store()
    store.load("".join(f'<https://x.org/s{i}> <https://x.org/p> "value {i}" .\n' for i in range(30000)).encode(),
               format=ox.RdfFormat.N_TRIPLES)
    rows = answer_oxigraph(store, "SELECT ?s ?o WHERE { ?s ?p ?o }").rows
    assert len(next(rows)) == 2
    rows.close()  # type: ignore[attr-defined]
    for _ in range(100):
        if not any(t.name == "kg-oxigraph-query" for t in threading.enumerate()):
            break
        time.sleep(0.05)
    assert not any(t.name == "kg-oxigraph-query" for t in threading.enumerate())


# ---------------------------------------------------------------- parameters people can type

ECHO = """\
#+ name: echo
#+ description: The bound values, as the engine sees them.
#+ param: target iri(tool|work|topic) = tool:pytorch A tool, work or topic.
#+ param: work iri(work) = 10.1145/1.2 A work.
#+ param: any iri = https://x.org/a Any IRI.
#+ param: n integer(1..10) = 2 A count.
#+ param: m integer(-5..) = 0 Another.
#+ param: x decimal(0..1) = 0.5 A share.
#+ param: pick string(red|green) = red A colour.
#+ param: cat string(@tool-categories) = profiler A category.
#+ returns: target work any n m x pick cat
#+ column: target  The bound value of target.
#+ column: work  The bound value of work.
#+ column: any  The bound value of any.
#+ column: n  The bound value of n.
#+ column: m  The bound value of m.
#+ column: x  The bound value of x.
#+ column: pick  The bound value of pick.
#+ column: cat  The bound value of cat.
SELECT ?target ?work ?any ?n ?m ?x ?pick ?cat WHERE { }
"""
TOPIC = "https://w3id.org/crossref-kg/topic/"
TOOL = "https://w3id.org/crossref-kg/tool/"


@pytest.fixture
def echo(tmp_path: Path, graph: Path):  # type: ignore[no-untyped-def]
    q = tmp_path / "echo.rq"
    q.write_text(ECHO, encoding="utf-8")

    def run(*params: str) -> Result:
        return kg("query", str(q), "-g", str(graph), "-f", "json", *(a for p in params for a in ("-p", p)))
    return run


def _bound(r: Result, var: str) -> str:
    import json
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["results"]["bindings"][0][var]["value"]


@pytest.mark.parametrize(("value", "iri"), [
    ("10.1145/2024716.2024718", "https://doi.org/10.1145/2024716.2024718"),
    ("doi:10.1145/2024716.2024718", "https://doi.org/10.1145/2024716.2024718"),
    ("https://doi.org/10.1145/2024716.2024718", "https://doi.org/10.1145/2024716.2024718"),
    ("http://dx.doi.org/10.1145/ABC.X", "https://doi.org/10.1145/abc.x"),
    ("tool:pytorch", TOOL + "pytorch"),
    ("pytorch", TOOL + "pytorch"),
    ("topic:performance-analysis", TOPIC + "performance-analysis"),
    ("compilers", TOPIC + "compilers"),
    ("schema:Person", "https://schema.org/Person"),
    ("<https://x.org/b>", "https://x.org/b"),
    ("https://x.org/b", "https://x.org/b"),
])
def test_an_iri_parameter_takes_what_people_type(echo, value: str, iri: str) -> None:  # type: ignore[no-untyped-def]
    assert _bound(echo(f"target={value}"), "target") == iri


def test_the_defaults_are_typed_forms_too(echo) -> None:  # type: ignore[no-untyped-def]
    r = echo()
    assert [_bound(r, v) for v in ("target", "work", "any", "n", "m", "x", "pick", "cat")] == \
        [TOOL + "pytorch", "https://doi.org/10.1145/1.2", "https://x.org/a", "2", "0", "0.5", "red", "profiler"]
    assert _bound(echo("n=10", "m=-5", "x=1", "pick=green", "cat=compiler"),
                  "x") == "1"  # xsd:decimal 1.0, as the engine writes it


def _error(r: Result) -> str:
    assert (r.exit_code, r.stdout) == (2, ""), r.output
    assert r.stderr.count("\n") == 1, r.stderr
    return r.stderr.rstrip("\n")


def test_bad_parameter_values_are_one_line_with_what_is_allowed(echo) -> None:  # type: ignore[no-untyped-def]
    from kg.query.stored import tool_categories
    assert _error(echo("n=0")) == "error: --param n='0' is out of range; give 1 to 10"
    assert _error(echo("n=11")) == "error: --param n='11' is out of range; give 1 to 10"
    assert _error(echo("n=many")) == "error: --param n='many' is not an integer; give 1 to 10"
    assert _error(echo("m=-6")) == "error: --param m='-6' is out of range; give -5 or more"
    assert _error(echo("x=high")) == "error: --param x='high' is not a decimal number; give 0 to 1"
    assert _error(echo("x=1.5")) == "error: --param x='1.5' is out of range; give 0 to 1"
    assert _error(echo("pick=blue")) == "error: --param pick='blue' is not allowed; give one of: red, green"
    cats = tool_categories()
    assert "profiler" in cats and "compiler" in cats and len(cats) > 10
    assert _error(echo("cat=profilers")) == ("error: --param cat='profilers' is not allowed; did you mean "
                                            f"'profiler'? give one of: {', '.join(cats)}")
    assert _error(echo("target=pytorchh")) == (
        "error: --param target='pytorchh' is no tool or topic id; did you mean 'pytorch'? 'kg topics' lists the "
        "topics, 'kg tools' the tools")
    assert _error(echo("target=tool:pytorchh")) == (
        "error: --param target='tool:pytorchh' is no tool id of the catalogue; did you mean 'pytorch'? 'kg tools' "
        "lists the tools")
    assert _error(echo("target=topic:profilng")) == (
        "error: --param target='topic:profilng' is no topic id; did you mean 'profiling'? 'kg topics' lists the "
        "topics")
    assert _error(echo("nn=3")) == ("error: query 'echo' has no parameter 'nn'; did you mean 'n'? its parameters: "
                                    "target, work, any, n, m, x, pick, cat")
    # a parameter the query does not declare repeatable, given again: refused, naming it (not the last value)
    assert _error(echo("n=3", "n=4")) == ("error: --param n is given 2 times ('3', '4'); query 'echo' takes one "
                                          "value of it: give it once")
    assert _error(echo("work=pytorch")).startswith(
        "error: --param work='pytorch' is not an IRI, a DOI or a prefixed name (biro:, ")
    assert _error(echo("work=pytorch")).endswith("; the parameter takes a work")
    assert _error(echo("any=not an iri")).endswith("; the parameter takes an IRI")


def test_ids_and_categories_in_any_case(echo) -> None:  # type: ignore[no-untyped-def]
    assert _bound(echo("target=PyTorch"), "target") == TOOL + "pytorch"
    assert _bound(echo("target=Profiling"), "target") == TOPIC + "profiling"
    assert _bound(echo("target=tool:PyTorch"), "target") == TOOL + "pytorch"
    assert _bound(echo("cat=Profiler"), "cat") == "profiler"


def test_a_repeatable_parameter_takes_every_value(tmp_path: Path, graph: Path) -> None:
    """'#+ repeatable:' parameters take each value given (a VALUES row each); the query as sent shows them."""
    q = tmp_path / "rep.rq"
    q.write_text(ECHO.replace("#+ name: echo", "#+ name: rep").replace("#+ returns:", "#+ repeatable: target pick\n"
                                                                       "#+ returns:"), encoding="utf-8")
    r = kg("query", str(q), "-g", str(graph), "-f", "csv", "-p", "target=pytorch", "-p", "target=TVM",
           "-p", "pick=green", "-p", "pick=red")
    assert r.exit_code == 0, r.output
    assert [line.split(",")[0] + "," + line.split(",")[6] for line in r.stdout.splitlines()] == [
        "target,pick", f"{TOOL}pytorch,green", f"{TOOL}pytorch,red", f"{TOOL}tvm,green", f"{TOOL}tvm,red"]


def test_a_malformed_param_spec_names_the_line(tmp_path: Path, graph: Path) -> None:
    q = tmp_path / "bad.rq"
    q.write_text("#+ name: bad\n#+ description: d\n#+ param: n integer(a..b) = 1 x\n#+ returns: n\n"
                 "SELECT ?n WHERE { }\n", encoding="utf-8")
    line = _error(kg("query", str(q), "-g", str(graph)))
    assert line.startswith(f"error: {q}:3: malformed param 'n integer(a..b) = 1 x'; write '#+ param: NAME TYPE[(SPEC)]")


# ---------------------------------------------------------------- ad-hoc SPARQL

STD = ("biro:, c4o:, cito:, datacite:, dcterms:, fabio:, foaf:, frapo:, frbr:, kg:, literal:, owl:, prism:, pro:, "
       "prov:, rdf:, rdfs:, schema:, skos:, tool:, topic:, xsd:")


def test_e_text_gets_the_standard_prefixes(graph: Path) -> None:
    r = kg("query", "-g", str(graph), "-e", "SELECT ?t WHERE { ?w schema:name ?t } ORDER BY ?t", "-f", "csv")
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout.splitlines() == ["t", "A very long title about profiling parallel programs on many cores",
                                     "LLVM: a compilation framework"]
    # a prefix the text declares is its own, not the standard one
    r = kg("query", "-g", str(graph), "-e", "PREFIX schema: <http://x.org/> SELECT ?t WHERE { ?w schema:name ?t }",
           "-f", "csv")
    assert r.stdout.splitlines() == ["t"]


def test_the_standard_prefixes_go_in_only_when_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from kg.query.text import with_standard_prefixes
    assert with_standard_prefixes('SELECT * WHERE { ?s <http://a/b> "x:y" ; ?p _:b } # c:d', "q") == \
        ('SELECT * WHERE { ?s <http://a/b> "x:y" ; ?p _:b } # c:d', 0)
    assert with_standard_prefixes("ASK { ?s a fabio:Work ; schema:name ?n FILTER(?n != xsd:string('')) }", "q") == \
        ("PREFIX fabio: <http://purl.org/spar/fabio/> PREFIX schema: <https://schema.org/> "
         "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
         "ASK { ?s a fabio:Work ; schema:name ?n FILTER(?n != xsd:string('')) }", 1)


def test_a_plain_rq_file_runs_as_an_ad_hoc_query(graph: Path, tmp_path: Path) -> None:
    q = tmp_path / "count.rq"
    q.write_text("# how many titles\nSELECT (COUNT(*) AS ?n) WHERE { ?w schema:name ?t }\n", encoding="utf-8")
    r = kg("query", str(q), "-g", str(graph), "-f", "csv")
    assert (r.exit_code, r.stdout.splitlines(), r.stderr) == (0, ["n", "2"], "")
    r = kg("query", str(q), "-g", str(graph), "-p", "x=1")
    assert (r.exit_code, r.stderr) == (2, f"error: --param goes with stored queries; {q} has no '#+ param:' header\n")


def test_an_unknown_prefix_is_named_with_its_position(graph: Path, tmp_path: Path) -> None:
    r = kg("query", "-g", str(graph), "-e", "SELECT ?t WHERE {\n  ?w zz:name ?t }")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == ("error: the -e query: unknown prefix 'zz:' at line 2, column 6; declare it (PREFIX zz: <IRI>) "
                        f"or use a standard prefix ({STD})\n")
    q = tmp_path / "bad.rq"
    q.write_text("SELECT * WHERE { ?s :p ?o }\n", encoding="utf-8")
    r = kg("query", str(q), "-g", str(graph))
    assert r.stderr == (f"error: query file {q}: unknown prefix ':' at line 1, column 21; declare it (PREFIX : <IRI>) "
                        f"or use a standard prefix ({STD})\n")


def test_a_syntax_error_is_one_line_with_its_position_in_the_text_given(graph: Path) -> None:
    # the standard prefixes put in front do not move the position the engine reports
    r = kg("query", "-g", str(graph), "-e", "SELECT ?t WHERE { ?w schema:name ?t .\n ?w ?p }")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == ("error: the query is not valid SPARQL (error at 2:9: expected one of LATERAL, SERVICE, [_]); "
                        "fix the query text\n")
    r = kg("query", "-g", str(graph), "-e", "SELECT ?t WHERE { ?w <https://schema.org/name> ?t .\n ?w ?p }")
    assert r.stderr == ("error: the query is not valid SPARQL (error at 2:9: expected one of LATERAL, SERVICE, [_]); "
                        "fix the query text\n")


# ---------------------------------------------------------------- conventions

TERMS = r"""<https://x.org/a> <https://x.org/p> "a\"b\tc\nd,e\\f"@en .
<https://x.org/a> <https://x.org/q> "12"^^<http://www.w3.org/2001/XMLSchema#integer> .
<https://x.org/a> <https://x.org/r> "1.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<https://x.org/a> <https://x.org/s> "plain, with a comma" .
<https://x.org/a> <https://x.org/t> "2020"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<https://x.org/a> <https://x.org/u> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .
<https://x.org/a> <https://x.org/v> "1.0E3"^^<http://www.w3.org/2001/XMLSchema#double> .
<https://x.org/a> <https://x.org/w> "x\u00e9\r"^^<https://x.org/dt> .
<https://x.org/a> <https://x.org/x> <https://x.org/b> .
"""
TERMS_QUERY = "SELECT ?s ?p ?o ?unbound WHERE { ?s ?p ?o } ORDER BY ?p"


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_tsv_and_csv_are_the_w3c_formats_as_pyoxigraph_writes_them(tmp_path: Path, fmt: str) -> None:
    import pyoxigraph
    g = tmp_path / "terms.nt"
    g.write_text(TERMS, encoding="utf-8")
    store = pyoxigraph.Store()
    store.load(path=str(g), format=pyoxigraph.RdfFormat.N_TRIPLES)
    want = store.query(TERMS_QUERY).serialize(
        format=pyoxigraph.QueryResultsFormat.TSV if fmt == "tsv" else pyoxigraph.QueryResultsFormat.CSV)
    r = CliRunner().invoke(main, ["query", "-g", str(g), "-e", TERMS_QUERY, "-f", fmt], env={"KG_TERMINAL": "0"})
    assert r.exit_code == 0, r.output
    assert r.stdout_bytes == want
    if fmt == "tsv":
        assert r.stdout_bytes.startswith(b"?s\t?p\t?o\t?unbound\n")
        assert b'"a\\"b\\tc\\nd,e\\\\f"@en' in r.stdout_bytes and b"\t12\t" in r.stdout_bytes
    else:
        assert r.stdout_bytes.startswith(b"s,p,o,unbound\r\n") and r.stdout_bytes.count(b"\r\n") == 10


def _kg_script() -> str:
    import shutil
    import sys
    beside = Path(sys.executable).parent / "kg"
    found = str(beside) if beside.exists() else shutil.which("kg")
    assert found, "the kg command is not installed (pip install -e .)"
    return found


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """``kg export | head -1``, ``kg query ... | head -1`` (table, csv, tsv, json): exit 141 (128 + SIGPIPE, as a
    shell reports other tools) or 0, and nothing on stderr. A real pipe, closed by the reader after one line."""
    import subprocess
    big = tmp_path / "big.nt"
    big.write_text("".join(f"<https://x.org/s{i:05d}> <https://schema.org/name> \"name number {i} of many, {'x' * 90}\" .\n"
                           for i in range(3000)), encoding="utf-8")  # ~400 KB: far more than a pipe's buffer
    query = ["query", "-g", str(big), "-e", "SELECT ?s ?p ?o { ?s ?p ?o }"]
    for args, first_line in ((["export", str(big), "-f", "nt"], b"<https://x.org/s"), (query, b"s "),
                             ([*query, "-f", "csv"], b"s,p,o"), ([*query, "-f", "tsv"], b"?s\t?p\t?o"),
                             ([*query, "-f", "json"], b"{")):
        p = subprocess.Popen([_kg_script(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={"PATH": "/usr/bin:/bin", "KG_HOME": str(tmp_path / "ws")})
        assert p.stdout is not None and p.stderr is not None
        first = p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read()
        assert p.wait() in (0, 141), (args, err)
        assert err == b"", err
        assert first.startswith(first_line), first


def test_export_names_and_graph_readers_take_the_same_extensions(works: Path, tmp_path: Path) -> None:
    """Both ways: every extension kg export names a format by, kg query -g reads back; every name the readers
    refuse, kg export refuses too (exit 2), instead of writing a file nothing reads."""
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    candidates = [*graph_extensions(), ".n3", ".txt", ".data", ".hext", ".owx", ".csv", ".jsonl", ".html"]
    for ext in candidates:
        out = tmp_path / f"g{ext}"
        written = kg("export", str(works), "-o", str(out))
        read = kg("query", "-g", str(out), "-e", count, "-f", "csv")
        if ext in graph_extensions():
            assert (written.exit_code, read.exit_code, read.stdout.splitlines()) == (0, 0, ["n", "6"]), ext
            assert kg("export", str(works), "-o", f"{out}.gz").exit_code == 0
            assert kg("query", "-g", f"{out}.gz", "-e", count, "-f", "csv").stdout.splitlines() == ["n", "6"], ext
        else:
            assert (written.exit_code, read.exit_code, out.exists()) == (2, 2, False), ext
            assert written.stderr == (f"error: {out}: {ext!r} is the extension of no RDF format; name the file with "
                                      f"one of {', '.join(graph_extensions())}, or give -f FORMAT\n")
    assert graph_extensions()[:4] == [".json", ".json-ld", ".jsonld", ".n-quads"]


def test_graph_format_overrides_the_extension(works: Path, tmp_path: Path) -> None:
    """--graph-format on kg query -g, kg validate and kg export's input; '-' reads standard input for all three."""
    data = tmp_path / "works.data"
    data.write_bytes(kg("export", str(works), "-f", "turtle").stdout_bytes)
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    r = kg("query", "-g", str(data), "-e", count)
    assert (r.exit_code, r.stderr) == (2, f"error: {data}: has an unknown RDF extension '.data'; use one of "
                                          f"{', '.join(graph_extensions())} "
                                          "(gzipped or not), or say the format with --graph-format\n")
    for args in (["-g", str(data), "--graph-format", "turtle"], ["-g", str(data), "--graph-format", "ttl"],
                 ["-g", str(data), "--graph-format", "turtle", "--engine", "rdflib"]):
        assert kg("query", *args, "-e", count, "-f", "csv").stdout.splitlines() == ["n", "6"], args
    r = kg("query", "-g", str(data), "--graph-format", "nt", "-e", count)
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {data}: is not a readable RDF graph (")
    assert kg("query", "--graph-format", "nt", "-e", count).stderr == \
        "error: --graph-format says the format of --graph files; give them with -g FILE\n"
    # kg export and kg validate read it the same way
    nt = kg("export", str(works), "-f", "nt").stdout
    assert kg("export", str(data), "--graph-format", "turtle", "-f", "nt").stdout == nt
    assert kg("export", str(data), "-f", "nt").exit_code == 2
    report = kg("validate", str(works))
    assert report.exit_code == 1 and "invalid: 10 violations: " in report.stdout
    same = kg("validate", str(data), "--graph-format", "turtle")
    assert (same.exit_code, same.stdout) == (1, report.stdout)
    assert kg("validate", str(data)).exit_code == 2
    # standard input: sniffed, or as --graph-format says
    for args, stdin in ((["validate", "-"], nt), (["validate", "-", "--graph-format", "nt"], nt),
                        (["validate", "-", "--graph-format", "turtle"], data.read_text())):
        r = CliRunner().invoke(main, args, input=stdin, env={"KG_TERMINAL": "0"})
        assert (r.exit_code, r.stdout, r.stderr) == (1, report.stdout, ""), args
    r = CliRunner().invoke(main, ["export", "-", "-f", "nt"], input=data.read_text(), env={"KG_TERMINAL": "0"})
    assert (r.exit_code, r.stdout) == (0, nt)


CONSTRUCT = ("CONSTRUCT { ?w schema:about ?topic ; schema:name ?t } WHERE { ?w schema:name ?t ; "
             "dcterms:subject ?topic }")


def test_a_construct_answers_with_turtle(works: Path) -> None:
    r = kg("query", "-g", str(works), "-e", CONSTRUCT)
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout == """\
@prefix schema: <https://schema.org/> .
@prefix topic: <https://w3id.org/crossref-kg/topic/> .

<https://doi.org/10.5555/llvm.2004>
    schema:about topic:compilers ;
    schema:name "LLVM: a compilation framework for lifelong program analysis & transformation" .

<https://doi.org/10.5555/prof.2011>
    schema:about topic:profiling ;
    schema:name "A very long title about profiling parallel programs on many cores, with a subtitle that goes on and on and on" .

"""
    nt = kg("query", "-g", str(works), "-e", CONSTRUCT, "-f", "nt").stdout
    assert nt == """\
<https://doi.org/10.5555/llvm.2004> <https://schema.org/about> <https://w3id.org/crossref-kg/topic/compilers> .
<https://doi.org/10.5555/llvm.2004> <https://schema.org/name> "LLVM: a compilation framework for lifelong program analysis & transformation" .
<https://doi.org/10.5555/prof.2011> <https://schema.org/about> <https://w3id.org/crossref-kg/topic/profiling> .
<https://doi.org/10.5555/prof.2011> <https://schema.org/name> "A very long title about profiling parallel programs on many cores, with a subtitle that goes on and on and on" .
"""
    import pyoxigraph as ox
    for fmt, parse in (("turtle", ox.RdfFormat.TURTLE), ("json-ld", ox.RdfFormat.JSON_LD)):
        text = kg("query", "-g", str(works), "-e", CONSTRUCT, "-f", fmt).stdout_bytes
        assert sorted(f"{t} .\n" for t in ox.parse(text, format=parse)) == nt.splitlines(keepends=True), fmt
    # a terminal changes nothing, and DESCRIBE is a graph too
    assert on_terminal("query", "-g", str(works), "-e", CONSTRUCT, columns=60) == r.stdout
    assert kg("query", "-g", str(works), "-e", "DESCRIBE <https://doi.org/10.5555/llvm.2004>").stdout.startswith(
        "@prefix dcterms: <http://purl.org/dc/terms/> .\n")


def test_a_format_that_does_not_fit_the_query_is_exit_2(works: Path) -> None:
    rows = "table, csv, tsv, json or markdown"
    for q, fmt, line in (
            (CONSTRUCT, "csv", "-f csv is for SELECT and ASK results; a CONSTRUCT or DESCRIBE query answers with a "
                               "graph: use -f turtle, nt or json-ld"),
            (CONSTRUCT, "json", "-f json is for SELECT and ASK results; a CONSTRUCT or DESCRIBE query answers with a "
                                "graph: use -f turtle, nt or json-ld"),
            (LABELS_FIRST, "turtle", "-f turtle is for CONSTRUCT and DESCRIBE results; a SELECT query answers with "
                                     f"rows: use -f {rows}"),
            ("ASK { ?s ?p ?o }", "nt", f"-f nt is for CONSTRUCT and DESCRIBE results; an ASK query answers true or "
                                       f"false: use -f {rows}")):
        r = kg("query", "-g", str(works), "-e", q, "-f", fmt)
        assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"error: {line}\n"), fmt
    assert kg("query", "-g", str(works), "-e", "ASK { ?s ?p ?o }", "-f", "json").stdout == \
        '{"head":{},"boolean":true}\n'


@pytest.mark.parametrize("fmt", ["nt", "turtle", "json-ld", "nquads", "xml"])
def test_g_dash_reads_a_graph_on_standard_input(graph: Path, fmt: str) -> None:
    data = kg("export", str(graph), "-f", fmt).stdout_bytes
    r = CliRunner().invoke(main, ["query", "-g", "-", "-e", TITLES, "-f", "csv"], input=data,
                           env={"KG_TERMINAL": "0"})
    assert (r.exit_code, r.stderr) == (0, ""), r.output
    assert r.stdout == kg("query", "-g", str(graph), "-e", TITLES, "-f", "csv").stdout


def test_e_dash_reads_the_query_from_standard_input(graph: Path) -> None:
    r = CliRunner().invoke(main, ["query", "-g", str(graph), "-e", "-", "-f", "csv"], input=TITLES + "\n",
                           env={"KG_TERMINAL": "0"})
    assert (r.exit_code, r.stderr) == (0, ""), r.output
    assert r.stdout == kg("query", "-g", str(graph), "-e", TITLES, "-f", "csv").stdout
    r = CliRunner().invoke(main, ["query", "-g", "-", "-e", "-"], input="x")
    assert (r.exit_code, r.stderr) == (2, "error: -e - and -g - both want standard input; give one of them as a file\n")


# ---------------------------------------------------------------- discovery


def test_kg_queries_name_shows_one_query_with_an_example() -> None:
    r = kg("queries", "works-citing")
    assert r.exit_code == 0
    assert r.stdout == """works-citing
  Input works that cite a given cited work or tool, with the citing reference and its text.

parameters:
  target  iri(tool|work)  default tool:pytorch  The cited work or tool: a DOI (10.1145/...), a tool id (pytorch), \
tool:ID or an IRI.

columns:
  citing  The citing input work's DOI.
  key     The Crossref key of the citing reference (reference[].key; empty when the record gives none).
  how     What the reference cites the target as: 'cites the work' (it resolved to that cited work) or 'cites the \
tool' (it was recognised as citing that tool).
  text    The reference as the record gives it (its unstructured text, or its fields joined).

example:
  kg query works-citing -p target=tool:pytorch
"""


def test_the_example_of_every_query_runs(graph: Path) -> None:
    """The example command ``kg queries NAME`` shows runs as it is written (on a small graph)."""
    import shlex

    from kg.query.catalogue import example_command
    from kg.query.stored import stored_queries
    for q in stored_queries().values():
        args = shlex.split(example_command(q))[1:]
        r = kg(*args, "-g", str(graph), "-f", "csv")
        assert r.exit_code == 0, (q.name, r.stderr)
        assert r.stdout.splitlines()[0] == ",".join(q.returns), q.name


def test_kg_queries_lists_aligned_and_as_json() -> None:
    from kg.query.stored import stored_queries
    queries = stored_queries()
    lines = kg("queries").stdout.splitlines()
    width = max(map(len, queries))
    assert [line[:width].rstrip() for line in lines] == sorted(queries)
    assert all(line[width:width + 2] == "  " and line[width + 2] != " " for line in lines)
    data = json.loads(kg("queries", "-f", "json").stdout)
    assert [d["name"] for d in data] == sorted(queries)
    coupling = next(d for d in data if d["name"] == "bibliographic-coupling")
    assert [c["name"] for c in coupling["columns"]] == list(queries["bibliographic-coupling"].returns)
    assert coupling["columns"][2] == {"name": "shared", "description": "How many cited works both cite (only cited "
                                      "works cited by at most max-citing input works count)."}
    assert coupling["params"][0] == {"name": "min-shared", "type": "integer", "spec": "integer(1..)", "default": "2",
                                     "description": "The least number of shared cited works of a pair.",
                                     "kinds": [], "min": "1", "max": None, "allowed": []}
    category = next(d for d in data if d["name"] == "tools-by-category")["params"][0]
    assert "profiler" in category["allowed"] and "compiler" in category["allowed"]


@pytest.mark.parametrize("typed, meant", [("tool", "'tools'"), ("most-citd", "'most-cited'"),
                                          ("tools-by-topics", "'tools-by-topic' or 'works-by-topic'"), ("venue", "'venues'")])
def test_an_unknown_query_name_suggests_the_closest(typed: str, meant: str) -> None:
    r = kg("query", typed)
    assert r.exit_code == 2
    assert r.stderr == f"error: unknown query '{typed}'; did you mean {meant}? run 'kg queries' to list them\n"

"""Local queries stay local, whatever the spelling: a property test (hypothesis) writes SERVICE, FROM and FROM NAMED
in the spellings the SPARQL grammar allows (escapes in prefixed names, comments and strings full of braces, hashes
and quotes, \\u escapes, any case, IRIs relative to a BASE or through a prefix) and checks that a server on
127.0.0.1 receives no request from any local backend; with --allow-remote the same spellings reach it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_security import LOCAL, Hostile, _serve, kg, ws  # noqa: F401 - ws is a fixture

from kg.errors import QueryError
from kg.query.text import check_local, parsed_remote_clauses

PN_LOCAL_ESC = "_~.-!$&'()*+,;=/?#@%"
SPACE = st.sampled_from([" ", "\n", "\t", "\r\n", "  "])
TEXT = st.text(alphabet="}{#'\" xS.\\", max_size=8)


@st.composite
def pname(draw: st.DrawFn) -> str:
    """A prefixed name with an escape in its local part: schema:a\\#, schema:x\\'y."""
    escape = draw(st.sampled_from("#'#'" + PN_LOCAL_ESC))  # (mostly those that open a comment or a string)
    return (f"schema:{draw(st.sampled_from(['a', 'x', 'ab']))}\\{escape}"
            f"{draw(st.sampled_from(['', 'y', 'z1']))}")


@st.composite
def filler(draw: st.DrawFn) -> str:
    """One element of a group pattern whose text hides what follows from a pattern-matching reader; none removes
    a solution (so that an engine calls the SERVICE that follows)."""
    i = draw(st.integers(0, 99))
    kind = draw(st.sampled_from(["bind", "bind", "triple", "comment", "string", "long-string"]))
    if kind == "bind":
        return f"BIND({draw(pname())} AS ?b{i})"
    if kind == "triple":
        return f"OPTIONAL {{ ?w{i} {draw(pname())} ?z{i} }}"
    if kind == "comment":
        end = draw(st.sampled_from(["\n", "\r\n"]))
        return f"# {draw(TEXT)}{end}"
    text = draw(TEXT).replace("\\", "\\\\")
    if kind == "string":
        return f'BIND("{text.replace(chr(34), chr(92) + chr(34))}" AS ?s{i})'
    return f"BIND('''{text.replace(chr(39), 'x')}''' AS ?t{i})"


@st.composite
def keyword(draw: st.DrawFn, word: str, escape: bool = True) -> str:
    """``word`` in any case, one letter perhaps written as a \\u escape."""
    letters = [c.upper() if draw(st.booleans()) else c.lower() for c in word]
    if escape and draw(st.integers(0, 3)) == 3:
        k = draw(st.integers(0, len(letters) - 1))
        letters[k] = f"\\u{ord(letters[k]):04{draw(st.sampled_from(['x', 'X']))}}"
    return "".join(letters)


@st.composite
def remote_query(draw: st.DrawFn, url: str, escape: bool = True, service_only: bool = False) -> str:
    """A query that asks ``url`` for data: SERVICE (its IRI absolute, relative to a BASE or prefixed), FROM or FROM
    NAMED, among fillers."""
    sp = draw(SPACE)
    before = sp.join(draw(st.lists(filler(), min_size=1, max_size=3)))
    after = sp.join(draw(st.lists(filler(), max_size=2)))
    form = "service" if service_only else draw(st.sampled_from(["service", "service", "from", "from-named"]))
    prologue, target = draw(st.sampled_from([("", f"<{url}/sparql>"), (f"BASE <{url}/>", "<sparql>"),
                                             (f"PREFIX r: <{url}/>", "r:sparql")]))
    if form == "service":
        silent = f" {draw(keyword('SILENT', escape))}" if draw(st.booleans()) else ""
        body = f"{before}{sp}{draw(keyword('SERVICE', escape))}{silent}{sp}{target}{sp}{{ ?x ?p ?o }}{sp}{after}"
        return f"{prologue}{sp}SELECT * WHERE {{{sp}{body}{sp}}}"
    named = f"{sp}{draw(keyword('NAMED', escape))}" if form == "from-named" else ""
    return f"{prologue}{sp}SELECT *{sp}{draw(keyword('FROM', escape))}{named}{sp}{target}{sp}WHERE {{ {before} }}"


FEW = {"workspace": 40, "store": 30, "graph": 20, "rdflib": 10, "rdflib-graph": 5}


@pytest.mark.parametrize("backend", sorted(LOCAL))
def test_no_spelling_of_service_or_from_reaches_the_network(ws: Path, hostile: Hostile, backend: str) -> None:  # noqa: F811
    """Every generated query is refused (exit 2, one line) or fails to parse, and the server sees nothing."""

    @settings(max_examples=FEW[backend], deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        text = data.draw(remote_query(hostile.url))
        result, _ = kg("query", "-e", text, *LOCAL[backend])
        assert result.exit_code == 2, (text, result.output)
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, (text, result.stderr)
        assert hostile.hits() == 0, text

    run()


@settings(max_examples=25, deadline=None, database=None, derandomize=True)
@given(data=st.data())
def test_the_parse_finds_the_clause_the_text_filter_does_not_need_to(data: st.DataObject) -> None:
    """The guard is the parse: wherever rdflib reads the query, the clause is found in its parse alone."""
    text = data.draw(remote_query("http://127.0.0.1:1"))
    parsed = parsed_remote_clauses(text)
    if not isinstance(parsed, str):
        assert parsed and parsed[0] in ("SERVICE", "FROM", "FROM NAMED"), text


def test_the_parse_refuses_what_the_text_filter_misses(monkeypatch: pytest.MonkeyPatch, ws: Path,  # noqa: F811
                                                       hostile: Hostile) -> None:
    """With the text filter gone, the parse alone refuses SERVICE and FROM; a query rdflib cannot read is refused
    (Oxigraph's syntax error when it has one: Oxigraph parses it without running it) and calls nothing."""
    monkeypatch.setattr("kg.query.text.remote_clauses", lambda text: [])
    for text, clause in ((f"SELECT * {{ BIND(<a> AS ?q) sErViCe <{hostile.url}/x> {{ ?s ?p ?o }} }}", "SERVICE"),
                         (f"SELECT * fRoM <{hostile.url}/x> {{ ?s ?p ?o }}", "FROM"),
                         (f"SELECT * FROM named <{hostile.url}/x> {{ ?s ?p ?o }}", "FROM NAMED")):
        with pytest.raises(QueryError, match=f"^the -e query uses {clause} "):
            check_local(text, "the -e query")
    # Oxigraph reads LATERAL, rdflib does not
    lateral = f"ASK {{ BIND(1 AS ?x) LATERAL {{ SERVICE <{hostile.url}/lateral> {{ ?s ?p ?o }} }} }}"
    with pytest.raises(QueryError, match="^the -e query cannot be checked for SERVICE, FROM and FROM NAMED"):
        check_local(lateral, "the -e query")
    with pytest.raises(QueryError, match=r"^the query is not valid SPARQL \(error at 1:25: "):
        check_local("SELECT * WHERE { ?s ?p }", "the -e query")
    check_local(lateral, "the -e query", engine="rdflib")  # (rdflib's own parser refuses it)
    check_local(f"SELECT * {{ SERVICE <{hostile.url}/x> {{ ?s ?p ?o }} }}", "query 'x'", trusted=True)
    assert hostile.hits() == 0
    kg("query", "-e", lateral, "--allow-remote")  # (the server answers when asked)
    assert hostile.hits() == 1


def test_allow_remote_lets_every_spelling_call_out(ws: Path, hostile: Hostile) -> None:  # noqa: F811
    """The generated SERVICE spellings (those Oxigraph reads: no \\u escapes) do reach the server when allowed."""

    @settings(max_examples=8, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        text = data.draw(remote_query(hostile.url, escape=False, service_only=True))
        text = text.replace("\\%", "\\_")  # (Oxigraph refuses the IRI that schema:a\% makes: a % not of %XX)
        before = hostile.hits()
        kg("query", "-e", text, "--allow-remote")
        assert hostile.hits() > before, text

    run()


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    yield from _serve(Hostile())

"""Security: local queries stay local, network answers are bounded and checked, parameters are bounded.

Every case runs against a hostile HTTP server on 127.0.0.1 that this module starts: it drips headers or
bodies a byte at a time, sends endless or huge bodies, asks for long pauses, answers malformed SPARQL results,
plants another DOI's record, redirects to another host, and counts every request it receives. Each case
checks the exact one-line outcome and that the command ended within a bounded wall time.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlsplit

import pyoxigraph
import pytest
from click.testing import CliRunner, Result

from kg.cli import main
from kg.errors import QueryError
from kg.fetch import MAX_PAUSE, file_name
from kg.infra.net import NetError, request, same_host
from kg.query import backends as stores
from kg.query.text import remote_clauses

TLS = Path(__file__).resolve().parent / "data" / "tls"  # a self-signed certificate for 127.0.0.1 (to 2126)
GRAPH_LINES = [
    '<http://example.org/w1> <http://example.org/title> "One" <http://example.org/g1> .\n',
    '<http://example.org/w2> <http://example.org/title> "Two" <http://example.org/g2> .\n',
]

Action = Callable[[BaseHTTPRequestHandler], None]


# ---------------------------------------------------------------- the hostile server


class Hostile:
    """An HTTP server on 127.0.0.1: each path has an action (default: 404); every request is logged."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.actions: dict[str, Action] = {}
        self.log: list[tuple[str, str, dict[str, str], bytes]] = []  # method, path (with query), headers, body
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.server = ThreadingHTTPServer((host, 0), self._handler())
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://{host}:{self.port}"

    def on(self, path: str, action: Action) -> str:
        self.actions[path] = action
        return self.url + path

    def hits(self) -> int:
        with self.lock:
            return len(self.log)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with hostile.lock:
                    hostile.log.append((self.command, self.path, dict(self.headers), body))
                action = hostile.actions.get(urlsplit(self.path).path, lambda h: send(h, 404, b"not here"))
                try:
                    action(self)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass  # the client gave up

            do_GET = do_POST = _any

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
                pass

        return Handler


def send(h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None,
         length: int | None = None) -> None:
    h.send_response(status)
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.send_header("Content-Length", str(len(body) if length is None else length))
    h.end_headers()
    h.wfile.write(body)


def answer(status: int, body: bytes, headers: dict[str, str] | None = None, length: int | None = None) -> Action:
    return lambda h: send(h, status, body, headers, length)


def _drip(h: BaseHTTPRequestHandler, stopping: threading.Event, byte: bytes) -> None:
    """``byte`` every 0.2 s, for a minute at most."""
    for _ in range(300):
        if stopping.wait(0.2):
            return
        h.wfile.write(byte)
        h.wfile.flush()


def drip_body(stopping: threading.Event) -> Action:
    """200 with a Content-Length of 1 MB, then one byte every 0.2 s."""
    def act(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", "1000000")
        h.end_headers()
        _drip(h, stopping, b" ")
    return act


def drip_headers(stopping: threading.Event) -> Action:
    """A status line, then a header one byte every 0.2 s."""
    def act(h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(b"HTTP/1.1 200 OK\r\nX-Drip: ")
        h.wfile.flush()
        _drip(h, stopping, b"a")
    return act


def endless(h: BaseHTTPRequestHandler) -> None:
    """200 without a Content-Length and a body that does not end (1 GiB at most)."""
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Connection", "close")
    h.end_headers()
    chunk = b" " * 65536
    for _ in range(16384):
        h.wfile.write(chunk)


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    yield from _serve(Hostile())


@pytest.fixture
def elsewhere() -> Iterator[Hostile]:
    """Another host: 'localhost', not 127.0.0.1, on another port."""
    yield from _serve(Hostile("localhost"))


def _serve(server: Hostile) -> Iterator[Hostile]:
    thread = threading.Thread(target=server.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.server.shutdown()
        server.server.server_close()


@pytest.fixture
def tls_hostile() -> Iterator[Hostile]:
    """The hostile server behind TLS, with the certificate of tests/data/tls."""
    server = Hostile()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(TLS / "cert.pem", TLS / "key.pem")
    server.server.socket = context.wrap_socket(server.server.socket, server_side=True)
    server.url = f"https://127.0.0.1:{server.port}"
    yield from _serve(server)


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace whose graph holds two triples, the same graph as a Turtle file, and a store of it."""
    home = tmp_path / "ws"
    home.mkdir()
    (home / "graph.nq").write_text("".join(sorted(GRAPH_LINES)), encoding="utf-8")
    (tmp_path / "graph.nt").write_text("".join(sorted(line.rsplit(" <", 1)[0] + " .\n" for line in GRAPH_LINES)))
    stores.build_disk_store(tmp_path / "store", home / "graph.nq", tmp_path)
    monkeypatch.setenv("KG_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CROSSREF_MAILTO", raising=False)
    return tmp_path


LOCAL = {"workspace": [], "graph": ["-g", "graph.nt"], "store": ["--store", "store"],
         "rdflib": ["--engine", "rdflib"], "rdflib-graph": ["--engine", "rdflib", "-g", "graph.nt"]}


def kg(*args: str) -> tuple[Result, float]:
    """``kg ARGS`` in process; never a traceback; (result, wall seconds)."""
    started = time.monotonic()
    result = CliRunner().invoke(main, list(args), prog_name="kg")
    seconds = time.monotonic() - started
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result, seconds


def one_line(result: Result, code: int = 2) -> str:
    """Exit ``code``, nothing on stdout, one line on stderr; that line."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# ---------------------------------------------------------------- local queries are local


def refused(clause: str, why: str, source: str = "the -e query") -> str:
    return (f"error: {source} uses {clause} ({why}); a local query reads only the local graph: remove it, "
            "or pass --allow-remote to allow it")


SERVICE_WHY = "it sends part of the query, with the values bound so far, to another server"
FROM_WHY = "it makes the engine load the graph it names, from the network or a file"


def remote_queries(url: str) -> dict[str, tuple[str, str]]:
    """Queries that fetch from ``url``, each with the clause the refusal names; spellings that engines
    accept: lower case, no space, SERVICE:name (Oxigraph), a comment ended by \\r (Oxigraph), \\u escapes
    (rdflib expands them before parsing), a string opened in a comment."""
    return {
        "service": (f"SELECT * WHERE {{ ?s ?p ?o SERVICE <{url}/service> {{ ?s ?p ?x }} }}", "SERVICE"),
        "service-silent": (f"select * {{ ?s ?p ?o . service silent <{url}/silent> {{ ?s ?p ?x }} }}", "SERVICE"),
        "service-prefixed": (f"PREFIX : <{url}/> SELECT * {{ SERVICE:prefixed {{ ?s ?p ?o }} }}", "SERVICE"),
        "service-after-dot": (f"SELECT * {{ ?s ?p ?o .SERVICE<{url}/dot>{{ ?s ?p ?x }} }}", "SERVICE"),
        "service-after-cr": (f"SELECT * {{ ?s ?p ?o # note\rSERVICE <{url}/cr> {{ ?s ?p ?x }} }}", "SERVICE"),
        "service-escaped": (f"SELECT * {{ ?s ?p ?o \\u0053ERVICE <{url}/escaped> {{ ?s ?p ?x }} }}", "SERVICE"),
        "service-after-comment-quote": (f"# it'''s\nSELECT * {{ SERVICE <{url}/quote> {{ ?s ?p ?o }} "
                                        "BIND('''x''' AS ?y) }", "SERVICE"),
        "from": (f"SELECT * FROM <{url}/from.ttl> WHERE {{ ?s ?p ?o }}", "FROM"),
        "from-named": (f"SELECT * FROM NAMED <{url}/named.ttl> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}", "FROM NAMED"),
        "from-file": ("SELECT * FROM <file:///etc/hostname> WHERE { ?s ?p ?o }", "FROM"),
    }


def test_remote_clauses_are_found_wherever_an_engine_would_read_them() -> None:
    for name, (text, clause) in remote_queries("http://127.0.0.1:1").items():
        assert remote_clauses(text) == [clause], name
    for text in ('SELECT ?service ?from { ?s <http://x/service> "SERVICE FROM" ; ex:from $service } # SERVICE',
                 'SELECT * { ?s ?p """a\\""" SERVICE <x> {} """ }', "SELECT * { ?s ?p 'it''s' } # FROM <x>",
                 "SELECT * { ?s ex:a-service ?o ; ex:services ?p }"):
        assert remote_clauses(text) == [], text


@pytest.mark.parametrize("backend", sorted(LOCAL))
def test_local_queries_refuse_service_and_from_and_send_nothing(ws: Path, hostile: Hostile, backend: str) -> None:
    for name, (text, clause) in remote_queries(hostile.url).items():
        result, seconds = kg("query", "-e", text, *LOCAL[backend])
        assert one_line(result) == refused(clause, SERVICE_WHY if clause == "SERVICE" else FROM_WHY), name
        assert seconds < 10
    stored = ws / "remote.rq"
    stored.write_text(f"#+ name: remote\n#+ description: d\n#+ returns: s\n#+ column: s  A subject.\n"
                      f"SELECT ?s WHERE {{ SERVICE <{hostile.url}/rq> {{ ?s ?p ?o }} }}\n")
    result, _ = kg("query", "remote.rq", *LOCAL[backend])
    assert one_line(result) == refused("SERVICE", SERVICE_WHY, "query file remote.rq")
    assert hostile.hits() == 0


def test_allow_remote_lets_the_engines_call_out(ws: Path, hostile: Hostile) -> None:
    """The refusal is what keeps these requests from the server: with --allow-remote they arrive."""
    results = json.dumps({"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "literal", "value": "1"}}]}})
    for path in ("/service", "/prefixed", "/cr", "/dot", "/escaped"):
        hostile.on(path, answer(200, results.encode(), {"Content-Type": "application/sparql-results+json"}))
    queries = remote_queries(hostile.url)
    for name in ("service", "service-prefixed", "service-after-cr", "service-after-dot"):
        result, _ = kg("query", "-e", queries[name][0], "--allow-remote", "-f", "csv")
        assert result.exit_code == 0, result.output
    assert sorted(urlsplit(p).path for _m, p, _h, _b in hostile.log) == ["/cr", "/dot", "/prefixed", "/service"]
    result, _ = kg("query", "-e", queries["service-escaped"][0], "--engine", "rdflib", "--allow-remote")
    assert result.exit_code == 0, result.output
    assert urlsplit(hostile.log[-1][1]).path == "/escaped"


def test_rdflib_calls_no_service_and_loads_no_graph_whatever_the_query(ws: Path, hostile: Hostile) -> None:
    """Under the text check: rdflib's own switches (SPARQL_LOAD_GRAPHS off, SERVICE blocked)."""
    for name in ("service", "service-escaped"):
        with pytest.raises(QueryError, match="^the query uses SERVICE, which would send a request to another "
                                             "server; pass --allow-remote to allow it$"):
            stores.query_rdflib(GRAPH_LINES, remote_queries(hostile.url)[name][0])
    for name in ("from", "from-named"):
        stores.query_rdflib(GRAPH_LINES, remote_queries(hostile.url)[name][0])
    assert hostile.hits() == 0


def test_graph_files_fetch_nothing(ws: Path, hostile: Hostile) -> None:
    """A JSON-LD file with a remote @context and RDF/XML with an external entity: read locally or refused."""
    hostile.on("/context", answer(200, b'{"@context": {"name": "http://schema.org/name"}}',
                                  {"Content-Type": "application/ld+json"}))
    (ws / "remote.jsonld").write_text(json.dumps({"@context": hostile.url + "/context", "@id": "http://a",
                                                  "name": "x"}))
    (ws / "entity.rdf").write_text(
        f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "{hostile.url}/entity">]>'
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="http://a">'
        "<rdf:value>&e;</rdf:value></rdf:Description></rdf:RDF>")
    for name in ("remote.jsonld", "entity.rdf"):
        for engine in ("oxigraph", "rdflib"):
            for command in (["query", "-e", "SELECT * { ?s ?p ?o }", "--engine", engine], ["stats"]):
                result, _ = kg(*command, "-g", name)
                assert result.exit_code == 2 and one_line(result).startswith(f"error: {name}: ")
    assert hostile.hits() == 0


def test_endpoint_takes_http_and_https_only(ws: Path) -> None:
    for url in ("file:///etc/hostname", "ftp://127.0.0.1/x", "127.0.0.1:7878/query", "http://"):
        for command in (["query", "works"], ["stats"]):
            result, _ = kg(*command, "--endpoint", url)
            assert one_line(result) == (f'error: --endpoint "{url}": is not an http:// or https:// URL; give one '
                                        "like http://127.0.0.1:7878/query")


def test_help_says_what_allow_remote_allows() -> None:
    result, _ = kg("query", "--help")
    text = " ".join(result.output.split())
    assert ("--allow-remote Let a query on the workspace, --graph or --store fetch data from elsewhere: SERVICE "
            "calls to other servers") in text
    assert "SERVICE, FROM and FROM NAMED are refused unless --allow-remote" in text


# ---------------------------------------------------------------- integer parameters


@pytest.mark.parametrize("backend", ["workspace", "rdflib", "store"])
def test_a_huge_integer_parameter_is_one_line(ws: Path, backend: str) -> None:
    bound = "give an integer from -9223372036854775808 to 9223372036854775807"
    huge = "9" * 5000
    result, _ = kg("query", "most-cited", "-p", f"min-citing={huge}", *LOCAL[backend])
    assert one_line(result) == (f"error: --param min-citing='{'9' * 40}'... (5,000 characters) is out of range; "
                                f"{bound}")
    result, _ = kg("query", "most-cited", "-p", "min-citing=-9223372036854775809", *LOCAL[backend])
    assert one_line(result) == f"error: --param min-citing='-9223372036854775809' is out of range; {bound}"
    result, _ = kg("query", "most-cited", "-p", "min-citing=9223372036854775807", "-f", "csv", *LOCAL[backend])
    assert result.exit_code == 0 and result.stdout.splitlines()[0] == "title,citing_works,cited"


def test_a_huge_integer_parameter_is_refused_before_the_endpoint(ws: Path, hostile: Hostile) -> None:
    result, _ = kg("query", "most-cited", "-p", f"min-citing={'1' * 5000}", "--endpoint", hostile.url + "/sparql")
    assert one_line(result).startswith("error: --param min-citing='1111")
    assert hostile.hits() == 0


# ---------------------------------------------------------------- bounded network I/O: kg fetch


def fetch(hostile: Hostile, *args: str) -> tuple[Result, float]:
    return kg("fetch", "--api-url", hostile.url, "--mailto", "me@example.org", "--backoff", "0", "--retries", "0",
              *args)


def fetch_errors(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error: ")]


def work(doi: str, aliases: tuple[str, ...] = ()) -> bytes:
    message: dict[str, object] = {"DOI": doi, "type": "journal-article", "title": [f"Work {doi}"]}
    if aliases:
        message["aliases"] = list(aliases)
    return json.dumps({"status": "ok", "message-type": "work", "message": message}).encode()


def works_path(doi: str) -> str:
    return "/works/" + "/".join(quote(s, safe="") for s in doi.split("/"))


@pytest.mark.parametrize("drip", [drip_body, drip_headers])
def test_fetch_a_drip_ends_at_the_timeout(ws: Path, hostile: Hostile, drip: Callable) -> None:
    hostile.on(works_path("10.5555/drip"), drip(hostile.stopping))
    result, seconds = fetch(hostile, "10.5555/drip", "--timeout", "1")
    assert result.exit_code == 1
    assert fetch_errors(result) == ["error: 10.5555/drip: no complete answer within 1 s after 1 attempt; try again "
                                    "later or raise --timeout"]
    assert seconds < 5
    assert list((ws / "fetched").glob("*.json")) == []


def test_fetch_a_huge_body_stops_at_max_bytes(ws: Path, hostile: Hostile) -> None:
    hostile.on(works_path("10.5555/huge"), endless)
    hostile.on(works_path("10.5555/declared"), answer(200, b"{", length=300_000_000))
    result, seconds = fetch(hostile, "10.5555/huge", "10.5555/declared", "--max-bytes", "1000000", "--jobs", "1")
    assert result.exit_code == 1 and seconds < 10
    assert fetch_errors(result) == [
        "error: 10.5555/huge: the answer is more than --max-bytes 1,000,000 bytes; not retried; raise --max-bytes "
        "if the record is that large",
        "error: 10.5555/declared: the answer is 300,000,000 bytes, more than --max-bytes 1,000,000; not retried; "
        "raise --max-bytes if the record is that large"]
    assert list((ws / "fetched").glob("*.json")) == []


def test_fetch_a_long_retry_after_fails_at_once_and_holds_the_other_dois(ws: Path, hostile: Hostile) -> None:
    hostile.on(works_path("10.5555/later"), answer(429, b"", {"Retry-After": "100000"}))
    hostile.on(works_path("10.5555/next"), answer(200, work("10.5555/next")))
    result, seconds = fetch(hostile, "10.5555/later", "10.5555/next", "--jobs", "1", "--retries", "3")
    assert result.exit_code == 1 and seconds < 5
    why = (f"the server asked to wait 100,000 s (HTTP 429, Retry-After), more than the {MAX_PAUSE:g} s kg fetch "
           "waits; not retried; try again later")
    assert fetch_errors(result) == [f"error: 10.5555/later: {why}", f"error: 10.5555/next: {why}"]
    assert hostile.hits() == 1  # the next DOI was not asked


def test_fetch_a_rate_limit_interval_over_the_cap_fails(ws: Path, hostile: Hostile) -> None:
    hostile.on(works_path("10.5555/slow"), answer(200, work("10.5555/slow"), {
        "X-Rate-Limit-Limit": "50", "X-Rate-Limit-Interval": "3600s"}))
    result, seconds = fetch(hostile, "10.5555/slow")
    assert result.exit_code == 1 and seconds < 5
    assert fetch_errors(result) == [
        "error: 10.5555/slow: the server allows 50 requests per 3600 s (X-Rate-Limit-Limit/-Interval), more than "
        f"{MAX_PAUSE:g} s between requests; not retried; try again later"]


def test_fetch_saves_only_the_record_asked_for(ws: Path, hostile: Hostile) -> None:
    hostile.on(works_path("10.5555/otherdoi"), answer(200, work("10.9999/planted-by-server")))
    hostile.on(works_path("10.5555/alias"), answer(200, work("10.5555/PRIME", aliases=("10.5555/ALIAS",))))
    hostile.on(works_path("10.5555/case"), answer(200, work("https://doi.org/10.5555/CASE")))
    result, seconds = fetch(hostile, "10.5555/otherdoi", "10.5555/alias", "10.5555/case", "--jobs", "1")
    assert result.exit_code == 1 and seconds < 5
    assert fetch_errors(result) == [
        'error: 10.5555/otherdoi: the answer is the record of "10.9999/planted-by-server", which does not list '
        "10.5555/otherdoi among its aliases; nothing saved; check --api-url"]
    assert sorted(p.name for p in (ws / "fetched").glob("*.json")) == [file_name("10.5555/alias"),
                                                                       file_name("10.5555/case")]
    again, _ = fetch(hostile, "10.5555/otherdoi")  # not a cache hit: asked again
    assert again.exit_code == 1 and hostile.hits() == 4


def test_fetch_follows_redirects_only_on_the_api_host(ws: Path, hostile: Hostile, elsewhere: Hostile) -> None:
    away = elsewhere.on(works_path("10.5555/moved"), answer(200, work("10.5555/moved")))
    hostile.on(works_path("10.5555/moved"), answer(302, b"", {"Location": away + "?mailto=me%40example.org"}))
    hostile.on(works_path("10.5555/here"), answer(301, b"", {"Location": "/v2" + works_path("10.5555/here")}))
    hostile.on("/v2" + works_path("10.5555/here"), answer(200, work("10.5555/here")))
    result, seconds = fetch(hostile, "10.5555/moved", "10.5555/here", "--jobs", "1")
    assert result.exit_code == 1 and seconds < 5
    assert fetch_errors(result) == [
        f"error: 10.5555/moved: redirect to {away}?mailto=me%40example.org not followed (another host than "
        f"127.0.0.1:{hostile.port}); not retried; check --api-url"]
    assert elsewhere.hits() == 0  # neither the request nor the mailto went there
    assert [p.name for p in (ws / "fetched").glob("*.json")] == [file_name("10.5555/here")]


def test_redirect_policy() -> None:
    policy = same_host("http://api.example.org")
    assert policy("", "http://api.example.org/works/x") is None
    assert policy("", "https://api.example.org/works/x") is None  # http -> https on the same host
    assert policy("", "http://api.example.org:8080/x") == "another host than api.example.org"
    assert policy("", "http://evil.example.org/x") == "another host than api.example.org"
    assert policy("", "file:///etc/passwd") == "not an http(s) URL"
    assert same_host("https://api.example.org")("", "http://api.example.org/x") == "from https to http"


def test_the_deadline_covers_the_whole_request(hostile: Hostile) -> None:
    url = hostile.on("/drip", drip_body(hostile.stopping))
    started = time.monotonic()
    with pytest.raises(NetError, match=r"^no complete answer within 0\.5 s$"):
        request(url, timeout=0.5, max_bytes=1 << 20)
    assert time.monotonic() - started < 2


def test_https_is_verified_and_bounded_too(tls_hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    ok = tls_hostile.on("/ok", answer(200, b"hello"))
    drip = tls_hostile.on("/drip", drip_body(tls_hostile.stopping))
    with pytest.raises(NetError, match=r"^cannot reach https://127\.0\.0\.1:\d+ \(\[SSL: CERTIFICATE_VERIFY_FAILED\]"):
        request(ok, timeout=5, max_bytes=100)
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "cert.pem"))  # now the certificate is trusted
    assert request(ok, timeout=5, max_bytes=100).body == b"hello"
    started = time.monotonic()
    with pytest.raises(NetError, match=r"^no complete answer within 1 s$"):
        request(drip, timeout=1, max_bytes=1 << 20)
    assert time.monotonic() - started < 3


# ---------------------------------------------------------------- bounded network I/O: --endpoint


JSON = {"Content-Type": "application/sparql-results+json"}
BAD_NT = b"<http://example.org/s> <http://example.org/p> .\n"


def nt_error() -> str:
    try:
        list(pyoxigraph.parse(BAD_NT, format=pyoxigraph.RdfFormat.N_TRIPLES))
    except SyntaxError as e:
        return str(e).splitlines()[0]
    raise AssertionError("pyoxigraph parsed broken N-Triples")


def malformed() -> dict[str, tuple[Action, str, str]]:
    """Path -> (answer, what the error says is wrong, what it is not)."""
    results = "SPARQL JSON results"
    return {
        "/list": (answer(200, b"[1, 2]", JSON), "a JSON array, not an object", results),
        "/head": (answer(200, b'{"head": [], "results": {"bindings": []}}', JSON),
                  '"head" is not an object with a list of "vars"', results),
        "/untyped": (answer(200, b'{"head": {"vars": ["n"]}, "results": {"bindings": [{"n": {"value": "3"}}]}}', JSON),
                     'binding 1, variable "n": not a term with a known "type" and a string "value"', results),
        "/nobindings": (answer(200, b'{"head": {"vars": ["n"]}}', JSON),
                        'no "results" object with a list of "bindings"',
                        results),
        "/boolean": (answer(200, b'{"head": {}, "boolean": "yes"}', JSON), '"boolean" is not true or false', results),
        "/html": (answer(200, b"<html>hello</html>", {"Content-Type": "text/html"}),
                  "not valid JSON: unexpected character, expected a JSON value", results),
    }


def endpoint_line(url: str, what: str, expected: str = "SPARQL JSON results") -> str:
    return (f"error: {url}: the endpoint's answer is not {expected} ({what}); "
            "check that the URL is a SPARQL 1.1 endpoint")


def test_endpoint_malformed_answers_are_one_line(ws: Path, hostile: Hostile) -> None:
    for path, (action, what, expected) in malformed().items():
        url = hostile.on(path, action)
        for command in (["query", "-e", "SELECT ?n WHERE { ?s ?p ?n }"], ["stats"]):
            result, seconds = kg(*command, "--endpoint", url)
            assert one_line(result) == endpoint_line(url, what, expected), (path, command)
            assert seconds < 5
    url = hostile.on("/construct", answer(200, BAD_NT, {"Content-Type": "application/n-triples"}))
    result, _ = kg("query", "-e", "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "--endpoint", url)
    assert one_line(result) == endpoint_line(url, nt_error(), "N-Triples")


def test_endpoint_truncated_drip_huge_and_redirect(ws: Path, hostile: Hostile) -> None:
    body = b'{"head": {"vars": ["n"]}, "results": {"bindings": []}}'
    cases = {
        "/truncated": (answer(200, body[:20], JSON, length=len(body)),
                       f"truncated answer (20 of {len(body)} bytes); try again"),
        "/drip": (drip_body(hostile.stopping),
                  "no complete answer within 1 s; raise --timeout or ask for less (LIMIT)"),
        "/drip-headers": (drip_headers(hostile.stopping),
                          "no complete answer within 1 s; raise --timeout or ask for less (LIMIT)"),
        "/huge": (endless, "the answer is more than --max-bytes 1,000,000 bytes; raise --max-bytes or ask for less "
                           "(LIMIT)"),
        "/redirect": (answer(302, b"", {"Location": "http://localhost:1/sparql"}),
                      "the endpoint answered HTTP 302, a redirect to http://localhost:1/sparql (not followed); give "
                      "the URL of the endpoint itself"),
    }
    for path, (action, message) in cases.items():
        url = hostile.on(path, action)
        for command in (["query", "works"], ["stats"]):
            result, seconds = kg(*command, "--endpoint", url, "--timeout", "1", "--max-bytes", "1000000")
            assert one_line(result) == f"error: {url}: {message}", (path, command)
            assert seconds < 5, (path, command, seconds)


# ---------------------------------------------------------------- the endpoint protocol: what a server receives

VIRTUOSO_STYLE = json.dumps({"head": {"link": [], "vars": ["n", "label"]}, "results": {
    "distinct": False, "ordered": True, "bindings": [
        {"n": {"type": "typed-literal", "datatype": "http://www.w3.org/2001/XMLSchema#integer", "value": "7"},
         "label": {"type": "literal", "xml:lang": "en", "value": "seven"}}]}}).encode("utf-8")


def test_endpoint_queries_go_url_encoded_with_the_graphs_asked_for(ws: Path, hostile: Hostile) -> None:
    # Virtuoso hangs on a direct application/sparql-query POST and answers over all its graphs unless told:
    # the query goes as the protocol's URL-encoded form, with default-graph-uri and named-graph-uri
    url = hostile.on("/sparql", answer(200, VIRTUOSO_STYLE, {"Content-Type": "application/sparql-results+json"}))
    text = 'SELECT ?n ?label WHERE { ?s ?p ?n } # é & ="'
    result, _ = kg("query", "-e", text, "--endpoint", url, "-f", "csv",
                   "--default-graph-uri", "https://w3id.org/crossref-kg/graph/seeds",
                   "--default-graph-uri", "urn:x:two", "--named-graph-uri", "urn:x:named")
    assert (result.exit_code, result.stdout.replace("\r\n", "\n")) == (0, "n,label\n7,seven\n")  # (typed-literal read)
    method, _path, headers, body = hostile.log[-1]
    assert method == "POST"
    assert headers["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8"
    assert parse_qsl(body.decode("ascii"), strict_parsing=True) == [
        ("query", text), ("default-graph-uri", "https://w3id.org/crossref-kg/graph/seeds"),
        ("default-graph-uri", "urn:x:two"), ("named-graph-uri", "urn:x:named")]


def test_graph_uris_need_an_endpoint_and_an_iri(ws: Path, hostile: Hostile) -> None:
    result, _ = kg("query", "works", "--default-graph-uri", "urn:x:g")
    assert one_line(result) == ("error: --default-graph-uri and --named-graph-uri go with --endpoint; a local "
                                "source answers over the union of its graphs")
    result, _ = kg("stats", "--endpoint", hostile.url + "/sparql", "--named-graph-uri", "not an iri")
    assert one_line(result) == ("error: --named-graph-uri 'not an iri': is not an absolute IRI; "
                                "give the graph's full IRI")
    assert hostile.hits() == 0


def test_report_sends_the_graphs_asked_for_with_every_query(ws: Path, hostile: Hostile, tmp_path: Path) -> None:
    """kg report --endpoint: each query it sends carries --default-graph-uri and --named-graph-uri, as kg query's
    does (whatever the answer then makes of the page)."""
    url = hostile.on("/sparql", answer(200, VIRTUOSO_STYLE, {"Content-Type": "application/sparql-results+json"}))
    result, _ = kg("report", "-o", str(tmp_path / "r.html"), "--endpoint", url, "--default-graph-uri", "urn:x:g",
                   "--named-graph-uri", "urn:x:named")
    # (this server answers every query with the same two columns: one line saying so, not a traceback)
    assert one_line(result) == (f"error: {url}: answered query 'stats' with the columns n, label where it returns "
                                "works, references, cited_works, tools, people, triples; check that the URL is the "
                                "SPARQL endpoint itself and that it runs the query it is sent")
    assert hostile.log
    for method, _path, _headers, body in hostile.log:
        fields = parse_qsl(body.decode("ascii"), strict_parsing=True)
        assert method == "POST" and fields[0][0] == "query"
        assert fields[1:] == [("default-graph-uri", "urn:x:g"), ("named-graph-uri", "urn:x:named")]


# ---------------------------------------------------------------- terminal escapes in values (issue 45 item 8)


HOSTILE_VALUE = "title\x1b[2J\x1b]0;pwned\x07 end\x9b31m\x7f"


def test_a_table_shows_no_escape_sequence_from_an_endpoint(ws: Path, hostile: Hostile) -> None:
    """A value that would clear the screen and set the window title reaches a table without its escape
    sequences or control characters; csv, tsv and json keep it as the endpoint sent it."""
    body = json.dumps({"head": {"vars": ["n", "s"]}, "results": {"bindings": [
        {"n": {"type": "literal", "value": HOSTILE_VALUE},
         "s": {"type": "uri", "value": "https://example.org/\x1b]0;x\x07a"}}]}}).encode()
    url = hostile.on("/sparql", answer(200, body, {"Content-Type": "application/sparql-results+json"}))
    for fmt in ("table", "markdown"):
        result, _ = kg("query", "-e", "SELECT ?n ?s WHERE { ?s ?p ?n }", "--endpoint", url, "-f", fmt)
        assert result.exit_code == 0, result.output
        assert "title end31m" in result.stdout
        assert not any(c in result.stdout for c in "\x1b\x07\x9b\x7f"), repr(result.stdout)
    result, _ = kg("query", "-e", "SELECT ?n ?s WHERE { ?s ?p ?n }", "--endpoint", url, "-f", "json")
    assert json.loads(result.stdout)["results"]["bindings"][0]["n"]["value"] == HOSTILE_VALUE
    result, _ = kg("query", "-e", "SELECT ?n ?s WHERE { ?s ?p ?n }", "--endpoint", url, "-f", "csv")
    assert HOSTILE_VALUE in result.stdout

"""Query backends, all answering over the union of the graphs: Oxigraph in memory (default, from files),
an Oxigraph store on disk (``--store DIR``), rdflib in memory (the reference for equivalence tests), and
any SPARQL 1.1 Protocol endpoint (``--endpoint URL``). Results come back as one neutral ``Results``.
"""

from __future__ import annotations

import contextvars
import gc
import queue
import re
import threading
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn, cast

import orjson
import pyoxigraph as ox

from .. import __version__
from ..errors import InputError, QueryError, UsageError
from ..infra import net
from ..infra.workers import give_back_memory
from ..rdf.io import base_iri, canonical_lines, open_graph, rdf_format, read_jsonld_lines
from ..rdf.nquads import triples_from_quads
from .index import index_quads
from .results import RDF_LANGSTRING, XSD_STRING, Answer, Cell, Results, tsv_cell
from .text import query_form

if TYPE_CHECKING:
    from rdflib import Dataset
    from rdflib.query import ResultRow

# Virtuoso writes every xsd:boolean as 1 or 0 (the same value): read as the canonical true/false the graph holds
_BOOLEAN: dict[tuple[str | None, str], str] = {("http://www.w3.org/2001/XMLSchema#boolean", "1"): "true",
                                               ("http://www.w3.org/2001/XMLSchema#boolean", "0"): "false"}


def no_triples(path: Path) -> InputError:
    """The error for a graph file that yields no triples; a Crossref record (JSON with a DOI) gets told to build."""
    try:
        doc = orjson.loads(path.read_bytes()) if path.suffix.lower() in (".json", ".jsonld") else None
    except (OSError, orjson.JSONDecodeError):
        doc = None
    items = doc if isinstance(doc, list) else [doc]
    items = [x.get("message", x) if isinstance(x, dict) else x for x in items]
    if any(isinstance(x, dict) and ("DOI" in x or isinstance(x.get("items"), list)) for x in items):
        return InputError(str(path), "is a Crossref record, not an RDF graph (no triples)",
                          f"run 'kg build {path}' first and use the graph it writes")
    return InputError(str(path), "holds no triples", "check the file and its format, or name another graph")


def _load_into(store: ox.Store, path: Path | str, graph_format: str | None = None) -> None:
    from ..infra import parts
    if parts.is_folder(path):  # a partitioned graph (a path or a URL): its parts are gzipped N-Quads
        for fh in parts.open_parts(path):
            store.bulk_load(fh, format=ox.RdfFormat.N_QUADS)
        if len(store) == 0:
            raise no_triples(Path(path))
        return
    path = Path(path)
    try:
        fmt = rdf_format(path, graph_format)
        with open_graph(path) as fh:
            store.bulk_load(fh, format=fmt, base_iri=base_iri(path))
        if len(store) == 0:
            raise no_triples(path)
    except FileNotFoundError:
        raise InputError(str(path), "does not exist", "run 'kg build' first or give a graph file") from None
    except MemoryError:  # (Oxigraph's JSON-LD parser holds at most 16 MiB of one value: read what kg writes itself)
        lines = read_jsonld_lines(open_graph(path).read(), None) if fmt == ox.RdfFormat.JSON_LD else None
        if lines is None:
            raise InputError(str(path), "holds a value too large for the RDF parser",
                             "convert it to N-Quads or Turtle with another tool and read that") from None
        store.bulk_load("".join(lines).encode("utf-8"), format=ox.RdfFormat.N_TRIPLES)
    except (SyntaxError, ValueError, OSError, EOFError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(str(path), f"is not a readable RDF graph ({first})",
                         "rebuild it or check the format") from None


def triples_nt(quads: "Iterable[ox.Quad]") -> bytes:
    """The distinct triples of some quads as N-Triples: the RDF merge of all graphs, which is what every
    backend queries (Oxigraph's union of named graphs would repeat a triple once per graph)."""
    return "".join(sorted({f"{q.subject} {q.predicate} {q.object} .\n" for q in quads})).encode("utf-8")


def load_store(paths: Sequence[Path | str], graph_format: str | None = None) -> ox.Store:
    """An in-memory Oxigraph store holding the merge of every graph of ``paths`` (files in ``graph_format`` when
    given, else by their extensions; parts folders) in its default graph."""
    store = ox.Store()
    for path in paths:
        tmp = ox.Store()
        _load_into(tmp, path, graph_format)
        store.bulk_load(triples_nt(tmp), format=ox.RdfFormat.N_TRIPLES)
    return store


LOAD_CHUNK = 8 << 20  # the N-Triples bytes given to one bulk load of the on-disk store (``load_chunks``)


def load_chunks(store: ox.Store, lines: Iterable[str], graph_format: ox.RdfFormat = ox.RdfFormat.N_TRIPLES,
                chunk: int = LOAD_CHUNK) -> None:
    """Bulk-load ``lines`` (whole N-Triples or N-Quads lines) into ``store`` about ``chunk`` bytes at a time.

    One bulk load of a whole file holds a million quads per thread in memory, and one more being read: 1.85 GB
    for a graph of 20,000 records. A chunk is one batch, one thread, whatever the size of the graph, at the cost
    of one set of files per chunk, which the store's ``optimize`` merges afterwards. The chunk's size sets the
    peak (measured on the graph of 20,000 records, 23.7M triples: 344 MB with 32 MB chunks, 180 MB with 8 MB, in
    130 s against 165-233 s; its index's rows, long literals: 356 MB against 178 MB)."""
    batch: list[str] = []
    size = 0
    for line in lines:
        batch.append(line)
        size += len(line)
        if size >= chunk:
            store.bulk_load("".join(batch).encode("utf-8"), format=graph_format)
            batch, size = [], 0
    if batch:
        store.bulk_load("".join(batch).encode("utf-8"), format=graph_format)


def build_disk_store(building: Path, graph: Path | Iterable[str], scratch: Path) -> None:
    """Fill the empty folder ``building`` with the on-disk store of a canonical N-Quads file, or of its lines
    (the build's ``kg.infra.outputs.Outputs`` renames it into place with the other outputs). Every triple goes
    once into the default graph (the union of the graphs); the listings' rows go into the index's named graph
    (``kg.query.index``). Memory stays bounded whatever the size of the graph: the triples are loaded a chunk at
    a time (``load_chunks``), and the listings are sorted on disk (``kg.query.index``)."""
    store = ox.Store(str(building))
    load_chunks(store, triples_from_quads(canonical_lines(graph) if isinstance(graph, Path) else graph))
    store.flush()
    # A bulk load leaves many overlapping files; compacting them makes every index lookup cheaper
    # (queries on 10k records ran 3-12x faster for about 10 s of compaction): before the listings are answered
    # for the index, and again after their rows are loaded.
    store.optimize()
    # Closed and opened again between the phases (the load, the listings, the rows' load), each time with what
    # the engine freed handed back to the system: the C allocator keeps freed blocks in its heaps, and without
    # it what one phase freed stayed resident through the next (at 100,000 records the rows' load started from
    # the 580 MB the listings had reached, the store closed and opened again in between).
    del store
    store = _reopened(building)
    rows = Path(scratch) / "store-index.nq"
    with open(rows, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(index_quads(store, Path(scratch)))
    del store
    store = _reopened(building)
    with open(rows, encoding="utf-8", newline="\n") as fh:
        load_chunks(store, fh, ox.RdfFormat.N_QUADS)
    rows.unlink()
    store.flush()
    store.optimize()
    del store


def _reopened(building: Path) -> ox.Store:
    """The store of ``building`` opened again once its last handle is dropped (``build_disk_store``), the memory
    it freed given back first."""
    gc.collect()  # (nothing may keep the closed store open: its lock is taken again below)
    give_back_memory()
    return ox.Store(str(building))


def open_disk_store(directory: Path) -> ox.Store:
    if not Path(directory).is_dir():
        raise InputError(str(directory), "is not a crossref-kg store", "fill it with 'kg build --store DIR'")
    try:
        return ox.Store.read_only(str(directory))
    except (OSError, RuntimeError, ValueError) as e:
        raise InputError(str(directory), f"cannot be opened as an Oxigraph store ({e})",
                         "rebuild it with 'kg build --store DIR'") from None


def query_oxigraph(store: ox.Store, text: str) -> Results:
    """SELECT, ASK, CONSTRUCT and DESCRIBE on an Oxigraph store of ours (``load_store``,
    ``build_disk_store``), whose default graph already holds the merge of all graphs; querying it directly
    spares the engine the de-duplication across graphs that a union default graph costs."""
    return answer_oxigraph(store, text).results()


def answer_oxigraph(store: ox.Store, text: str) -> Answer:
    """``query_oxigraph``'s answer as the engine gives it: a SELECT's rows are computed as they are read.

    The query runs in a thread of its own, where Oxigraph writes a SELECT's rows as SPARQL TSV (in Rust) and each
    line is read back into cells here (``_tsv_cell``), instead of a Python object per solution and per term: about
    the same CPU, but the reading overlaps the engine where a second core is free (docs/query-performance.md,
    phase 7). At most ``_Evaluation.AHEAD`` chunks of ~8 KiB wait for the reader."""
    run = _Evaluation(store, text)
    first = run.next()
    if isinstance(first, SyntaxError):
        raise QueryError(f"the query is not valid SPARQL ({str(first).splitlines()[0]}); fix the query text")
    if isinstance(first, BaseException):
        _raise(first)
    kind, value = cast("tuple[str, Any]", first)
    if kind == "ask":
        return Answer(boolean=value)
    if kind == "graph":
        return Answer(graph=value)
    return Answer(value, _tsv_rows(run, len(value)))


def _raise(e: BaseException) -> NoReturn:
    if isinstance(e, (OSError, ValueError, RuntimeError)):
        raise QueryError(f"the query failed ({e})") from None
    raise e


class _Stopped(Exception):
    """Raised into Oxigraph's serialiser when the reader of the rows has gone."""


class _Evaluation:
    """A query evaluated in a thread of its own (pyoxigraph's answers stay in the thread that asked), what it gives
    passed through a bounded queue: first ("ask", bool), ("graph", sorted N-Triples lines) or ("select", columns),
    then a SELECT's TSV in chunks as Oxigraph writes them, then None; an error at any point in their place."""

    AHEAD = 64

    def __init__(self, store: ox.Store, text: str) -> None:
        self.items: queue.Queue[Any] = queue.Queue(maxsize=self.AHEAD)
        self.stopped = False
        threading.Thread(target=self._run, args=(store, text), daemon=True, name="kg-oxigraph-query").start()

    def _run(self, store: ox.Store, text: str) -> None:
        try:
            self._evaluate(store, text)
        except BaseException as e:  # (handed to the reader, which raises it, unless it has gone)
            if not self.stopped:  # (without the frames that hold pyoxigraph's answer, which stays in this thread)
                e.__context__ = e.__cause__ = None
                self.items.put(e.with_traceback(None))

    def _evaluate(self, store: ox.Store, text: str) -> None:
        result = store.query(text)
        if isinstance(result, ox.QueryBoolean):
            self.items.put(("ask", bool(result)))
        elif isinstance(result, ox.QuerySolutions):
            self.items.put(("select", [v.value for v in result.variables]))
            result.serialize(cast("IO[bytes]", self), format=ox.QueryResultsFormat.TSV)
            self.items.put(None)
        else:
            self.items.put(("graph", sorted({f"{t} .\n" for t in result})))

    def write(self, data: bytes) -> int:
        """What Oxigraph's serialiser calls with each chunk it writes."""
        if self.stopped:
            raise _Stopped
        self.items.put(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def next(self) -> Any:
        return self.items.get()

    def stop(self) -> None:
        """The reader is done: the next write stops the serialiser; a write waiting for room gets it."""
        self.stopped = True
        while True:
            try:
                self.items.get_nowait()
            except queue.Empty:
                return


_KNOWN = 1 << 17  # the values remembered at most (then forgotten, and remembered again as they come)


def _tsv_rows(run: _Evaluation, width: int) -> Iterator[list[Cell]]:
    """The rows of a SELECT of ``width`` columns from its TSV chunks, one at a time as Oxigraph computes them (an
    error on the way is a QueryError)."""
    rest = b""
    header = True
    known: dict[str, Cell] = {}  # (a value that recurs, as most do in a large answer, is read once)
    get = known.get

    def read(field: str) -> Cell:
        if len(known) >= _KNOWN:
            known.clear()
        cell = known[field] = tsv_cell(field)
        return cell
    try:
        while (chunk := run.next()) is not None:
            if isinstance(chunk, BaseException):
                _raise(chunk)
            data = rest + chunk
            cut = data.rfind(b"\n")
            if cut < 0:
                rest = data
                continue
            rest = data[cut + 1:]
            lines = data[:cut].decode("utf-8").split("\n")
            if header:  # (the first line names the variables)
                lines, header = lines[1:], False
            for line in lines:
                yield [get(f) or read(f) for f in line.split("\t")] if width else []
        if rest:
            raise QueryError("the query failed (its last row came without an end of line)")
    finally:
        run.stop()


def rdflib_graph(source: "Iterable[str] | Path") -> "Dataset":
    """The union of the graphs of N-Quads lines (or an N-Quads file) as the default graph of an rdflib
    dataset with no named graphs: what our Oxigraph stores hold. Oxigraph parses, and each distinct term is
    one Python object; that takes ~0.8 GB per million triples, against ~3.5 GB for a dataset of one graph
    per record (which keeps a dict of graphs per triple)."""
    from rdflib import Dataset

    from ..rdf.convert import rdflib_triples

    ds = Dataset()
    add = ds.default_graph.add
    for triple in rdflib_triples(source):
        add(triple)
    return ds


_REMOTE = contextvars.ContextVar("kg_rdflib_remote", default=False)


def _rdflib_local() -> None:
    """rdflib's engine loads no graph named by FROM / FROM NAMED (``SPARQL_LOAD_GRAPHS`` off) and calls no
    SERVICE, whatever the query says, unless ``query_rdflib`` was asked to allow it."""
    import rdflib.plugins.sparql as sparql

    sparql.SPARQL_LOAD_GRAPHS = _REMOTE.get()
    sparql.CUSTOM_EVALS.setdefault("crossref-kg-no-service", _no_service)


def _no_service(_ctx: object, part: object) -> object:
    if getattr(part, "name", None) == "ServiceGraphPattern" and not _REMOTE.get():
        raise QueryError("the query uses SERVICE, which would send a request to another server; "
                         "pass --allow-remote to allow it")
    raise NotImplementedError  # rdflib's own evaluation goes on


def query_rdflib(source: "list[str] | Dataset", text: str, allow_remote: bool = False) -> Results:
    """The same query on rdflib's engine over the union of the graphs (slow; the reference engine), held
    as one graph like the Oxigraph backends hold it. Remote data (SERVICE, FROM loading graphs) only
    with ``allow_remote``."""
    from rdflib import BNode, Literal, URIRef

    if isinstance(source, list):
        source = rdflib_graph(source)
    def cell(t: object) -> Cell:
        if t is None:
            return None
        if isinstance(t, URIRef):
            return ("uri", str(t), None, None)
        if isinstance(t, BNode):
            return ("bnode", str(t), None, None)
        if isinstance(t, Literal):
            if t.language:
                return ("literal", str(t), None, t.language)
            dt = str(t.datatype) if t.datatype else None
            return ("literal", str(t), None if dt in (None, XSD_STRING) else dt, None)
        return ("literal", str(t), None, None)

    token = _REMOTE.set(allow_remote)
    try:  # rdflib evaluates lazily: errors come while the rows are read too
        _rdflib_local()
        result = source.query(text)
        if result.type == "ASK":
            return Results([], [], boolean=bool(result.askAnswer))
        if result.type == "SELECT":
            assert result.vars is not None  # a SELECT result has its variables
            columns = [str(v) for v in result.vars]
            rows = cast("Iterable[ResultRow]", result)  # and iterates its rows
            return Results(columns, [[cell(row[c]) for c in columns] for row in rows])
        return Results([], [], graph_nt="".join(sorted(
            f"{s.n3()} {p.n3()} {o.n3()} .\n" for s, p, o in result.graph)))  # type: ignore[union-attr]
    except QueryError:
        raise
    except Exception as e:  # rdflib raises parser- and evaluation-specific exception types
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise QueryError(f"the query failed on rdflib ({why})") from None
    finally:
        _REMOTE.reset(token)
        _rdflib_local()


def query_endpoint(url: str, text: str, timeout: float = 60.0, max_bytes: int = net.DEFAULT_MAX_BYTES,
                   default_graphs: Sequence[str] = (), named_graphs: Sequence[str] = ()) -> Results:
    """POST the query to a SPARQL 1.1 Protocol endpoint; JSON results for SELECT/ASK, N-Triples for graphs.
    The query goes URL-encoded in the body (the protocol's "query via POST with URL-encoded parameters", which
    every server answers; Virtuoso never answers a direct ``application/sparql-query`` POST), with the
    ``default-graph-uri`` and ``named-graph-uri`` parameters given (a server such as Virtuoso otherwise answers
    over all its graphs, its system graphs included). The request is bounded (kg.infra.net: ``timeout`` seconds in
    all, at most ``max_bytes``, no redirects), and an answer that is not what the protocol says is a QueryError
    naming the URL and what is wrong."""
    net.check_url("--endpoint", url)
    for option, iris in (("--default-graph-uri", default_graphs), ("--named-graph-uri", named_graphs)):
        for iri in iris:
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+", iri):
                raise UsageError(f"{option} {iri!r}: is not an absolute IRI; give the graph's full IRI")
    form = "CONSTRUCT" if _is_graph_query(text) else "SELECT"
    accept = "application/n-triples" if form == "CONSTRUCT" else "application/sparql-results+json"
    headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8", "Accept": accept,
               "User-Agent": f"crossref-kg/{__version__}"}
    fields = [("query", text), *(("default-graph-uri", g) for g in default_graphs),
              *(("named-graph-uri", g) for g in named_graphs)]
    body = urllib.parse.urlencode(fields).encode("ascii")
    try:
        answer = net.request(url, method="POST", data=body, headers=headers, timeout=timeout,
                             max_bytes=max_bytes)
    except net.NetError as e:
        if e.kind in ("unreachable", "unresolved"):
            raise QueryError(f"{url}: the endpoint cannot be reached ({e.reason}); "
                             "check the URL and that the server runs") from None
        next_ = {"timeout": "raise --timeout or ask for less (LIMIT)",
                 "too-big": "raise --max-bytes or ask for less (LIMIT)"}.get(e.kind, "try again")
        raise QueryError(f"{url}: {e.what}; {next_}") from None
    if answer.status in (301, 302, 303, 307, 308):
        where = answer.headers.get("Location") or "nowhere"
        raise QueryError(f"{url}: the endpoint answered HTTP {answer.status}, a redirect to {where} (not "
                         "followed); give the URL of the endpoint itself")
    if not 200 <= answer.status < 300:
        detail = answer.body[:200].decode("utf-8", "replace").strip().splitlines()
        why = detail[0] if detail else answer.reason
        raise QueryError(f"{url}: the endpoint answered HTTP {answer.status} ({why}); "
                         "check the query and the endpoint")
    try:
        if form == "CONSTRUCT":
            return Results([], [], graph_nt=_graph_answer(answer.body))
        return _json_results(answer.body)
    except _Malformed as e:
        raise QueryError(f"{url}: the endpoint's answer is not {e.expected} ({e}); check that the URL is a "
                         "SPARQL 1.1 endpoint") from None


class _Malformed(ValueError):
    def __init__(self, what: str, expected: str = "SPARQL JSON results") -> None:
        super().__init__(what)
        self.expected = expected


def _graph_answer(body: bytes) -> str:
    try:
        triples = {f"{t.subject} {t.predicate} {t.object} .\n" for t in ox.parse(body, format=ox.RdfFormat.N_TRIPLES)}
    except (SyntaxError, ValueError) as e:
        raise _Malformed(str(e).splitlines()[0] if str(e) else type(e).__name__, "N-Triples") from None
    return "".join(sorted(triples))


_KINDS = {"uri": "uri", "bnode": "bnode", "literal": "literal", "typed-literal": "literal"}
_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def _json_results(body: bytes) -> Results:
    """SPARQL 1.1 Query Results JSON, checked: an object with a boolean, or head.vars and results.bindings
    whose terms each have a known type and a string value."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError as e:
        raise _Malformed(f"not valid JSON: {str(e).split(':')[0]}") from None
    if not isinstance(doc, dict):
        raise _Malformed(f"a JSON {_JSON_TYPES.get(type(doc), 'value')}, not an object")
    if "boolean" in doc:
        if not isinstance(doc["boolean"], bool):
            raise _Malformed('"boolean" is not true or false')
        return Results([], [], boolean=doc["boolean"])
    head = doc.get("head")
    if not isinstance(head, dict) or not isinstance(head.get("vars", []), list) or \
            not all(isinstance(v, str) for v in head.get("vars", [])):
        raise _Malformed('"head" is not an object with a list of "vars"')
    columns = list(head.get("vars", []))
    results = doc.get("results")
    bindings = results.get("bindings") if isinstance(results, dict) else None
    if not isinstance(bindings, list):
        raise _Malformed('no "results" object with a list of "bindings"')
    rows = []
    for i, b in enumerate(bindings):
        if not isinstance(b, dict):
            raise _Malformed(f"binding {i + 1} is not an object")
        row: list[Cell] = []
        for c in columns:
            v = b.get(c)
            if v is None:
                row.append(None)
                continue
            kind = _KINDS.get(v["type"]) if isinstance(v, dict) and isinstance(v.get("type"), str) else None
            if kind is None or not isinstance(v.get("value"), str):
                raise _Malformed(f'binding {i + 1}, variable "{c}": not a term with a known "type" and a string '
                                 '"value"')
            dt, lang = v.get("datatype"), v.get("xml:lang")
            if not isinstance(dt, (str, type(None))) or not isinstance(lang, (str, type(None))):
                raise _Malformed(f'binding {i + 1}, variable "{c}": "datatype" or "xml:lang" is not a string')
            value = _BOOLEAN.get((dt, v["value"]), v["value"]) if kind == "literal" else v["value"]
            row.append((kind, value, None if dt in (None, XSD_STRING, RDF_LANGSTRING) else dt, lang))
        rows.append(row)
    return Results(columns, rows)


def _is_graph_query(text: str) -> bool:
    """True for CONSTRUCT and DESCRIBE (IRIs, strings and comments set aside before looking)."""
    return query_form(text) in ("CONSTRUCT", "DESCRIBE")

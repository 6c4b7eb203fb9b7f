"""SHACL validation of the graph: the compiled engine on the shapes it knows, Oxigraph on the SHACL-SPARQL
constraints it can run, and pySHACL, the reference, on the rest (or on everything, or both to compare).

Shapes are the Turtle files of shapes/ (or a directory the user names). The report lists every result
with its severity, shape, focus node, path, value and message; the exit code follows the chosen
severity threshold: 0 nothing at or above it, 1 something is.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Iterable
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH

from ..errors import EnginesDiffer
from ..rdf.convert import rdflib_triples
from ..rdf.nquads import triples_text
from . import core as validate_core
from . import sparql as validate_sparql
from .engine_pyshacl import SHAPES_FILES, quiet_libraries, run, validate_pyshacl
from .filed import FileLines
from .report import ValidationReport, add_hit, add_result, collect, copy_path, core_result, ordered, sparql_result
from .shapes import load_shapes

ENGINE_ENV = "KG_SHACL_ENGINE"  # fast (default), pyshacl (the reference), both (compare; tests), compiled (tests)
# with both: a folder where the reference's results are kept per input (data, shapes files, focus nodes), so that
# a test suite validating the same graph many times runs pySHACL on it once and still compares every time
REFERENCE_CACHE_ENV = "KG_SHACL_REFERENCE_CACHE"


class Declined(Exception):
    """``engine="compiled"``: some shape is beyond the compiled engine (it answers exactly or not at all)."""


def data_graph(lines: Iterable[str], prefixes: dict[str, str] | None = None) -> Graph:
    """The union of all graphs of canonical N-Quads lines, as an rdflib graph (with the prefixes its files
    declared)."""
    g = Graph()
    for prefix, ns in sorted((prefixes or {}).items()):
        g.bind(prefix, ns, override=True)
    g.parse(data=triples_text(lines), format="nt")
    return g


PARTS = ("core", "sparql")  # the two halves of the default engine, which ``validate(part=...)`` runs alone


def validate(data: Graph | None, shapes: Graph, lines: Iterable[str] | None = None, engine: str | None = None,
             only: set[URIRef] | None = None, prefixes: dict[str, str] | None = None,
             part: str | None = None) -> ValidationReport:
    """Validate ``data`` (the union graph; or None, and ``lines``, its canonical N-Quads, alone).

    The default engine evaluates the shapes it compiles (``kg.validate.core``) on dictionaries, the SHACL-SPARQL
    constraints it can on Oxigraph, and the rest with pySHACL; ``engine="pyshacl"`` runs everything with pySHACL,
    the reference; ``both`` runs both and fails unless their results are identical. ``only`` restricts the
    focus nodes (IRIs) whose results are kept: the same results as the whole graph's for them. (Not pySHACL's
    ``focus_nodes`` option: with it, pySHACL also skips nested shapes, such as sh:node's, on every other node,
    which then conform whatever they hold.) ``prefixes``: those of the files ``lines`` come from.
    ``engine="compiled"`` (tests) runs the compiled engine alone and raises ``Declined`` when some shape is
    beyond it. ``part`` (the default engine): "core" runs the compiled engine and pySHACL's share alone, "sparql"
    the SHACL-SPARQL constraints alone; the results of both parts are those of the whole (two workers can share
    one large shard)."""
    with quiet_libraries():
        return _validate(data, shapes, lines, engine, only, prefixes, part)


def _validate(data: Graph | None, shapes: Graph, lines: Iterable[str] | None, engine: str | None,
              only: set[URIRef] | None, prefixes: dict[str, str] | None, part: str | None = None
              ) -> ValidationReport:
    engine = engine or os.environ.get(ENGINE_ENV, "fast")
    if part is not None:
        if part not in PARTS:
            raise ValueError(f"no validation part {part!r}: one of {', '.join(PARTS)}")
        if engine in ("fast", "both"):
            return _validate_fast(data, shapes, lines, only, prefixes=prefixes, part=part)
        if part == "sparql":  # (the reference runs everything in the core part)
            return ValidationReport(True, [], Graph())
    if engine == "pyshacl":
        return validate_pyshacl(data if data is not None else data_graph(lines or [], prefixes), shapes, only)
    fast = _validate_fast(data, shapes, lines, only, compiled_only=engine == "compiled", prefixes=prefixes)
    if engine == "both":
        conforms, results = _reference(data, shapes, lines, only, prefixes)
        if fast.results != results or fast.conforms != conforms:
            raise EnginesDiffer(f"validation engines differ: fast {len(fast.results)} results, "
                                 f"pySHACL {len(results)}: "
                                 f"{sorted(set(fast.results) ^ set(results), key=str)[:3]}")
    return fast


def _reference(data: Graph | None, shapes: Graph, lines: Iterable[str] | None, only: set[URIRef] | None,
               prefixes: dict[str, str] | None) -> tuple[bool, list]:
    """pySHACL's verdict and results, kept in the folder ``KG_SHACL_REFERENCE_CACHE`` names (when set) under a
    digest of the whole input, so the same input is validated by pySHACL once (inputs with blank nodes, or
    shapes not read from files, are never kept: their digest would not be stable)."""
    folder = os.environ.get(REFERENCE_CACHE_ENV)
    key = _input_digest(data, shapes, lines, only, prefixes) if folder else None
    kept = Path(folder) / f"{key}.pickle" if folder and key else None
    if kept is not None and kept.exists():
        conforms, results = pickle.loads(kept.read_bytes())
        return conforms, results
    report = validate_pyshacl(data if data is not None else data_graph(lines or [], prefixes), shapes, only)
    if kept is not None:
        tmp = kept.with_name(f".{kept.name}.{os.getpid()}")
        tmp.write_bytes(pickle.dumps((report.conforms, report.results)))
        os.replace(tmp, kept)
    return report.conforms, report.results


def _input_digest(data: Graph | None, shapes: Graph, lines: Iterable[str] | None, only: set[URIRef] | None,
                  prefixes: dict[str, str] | None) -> str | None:
    files = SHAPES_FILES.get(shapes)
    if not files:
        return None
    h = hashlib.sha256(b"results with details\n")  # (what the kept results hold: top-level, details nested)
    for f in files:
        h.update(f"{f}\n".encode())
        h.update(hashlib.sha256(Path(f).read_bytes()).digest())
    h.update(repr(sorted(str(f) for f in only) if only is not None else None).encode())
    if data is None:
        h.update(repr(sorted((prefixes or {}).items())).encode())
        for line in lines or []:
            h.update(line.encode())
        return h.hexdigest()
    if type(data) is not Graph:
        return None
    rows = []
    for t in data:
        if any(isinstance(x, BNode) for x in t):
            return None
        rows.append(" ".join(x.n3() for x in t))
    h.update(repr(sorted((p, str(n)) for p, n in data.namespaces())).encode())
    for row in sorted(rows):
        h.update(row.encode() + b"\n")
    return h.hexdigest()


def _validate_fast(data: Graph | None, shapes: Graph, lines: Iterable[str] | None,
                   only: set[URIRef] | None = None, compiled_only: bool = False,
                   prefixes: dict[str, str] | None = None, part: str | None = None) -> ValidationReport:
    core, checks = validate_sparql.split(shapes)
    native = validate_core.compiled(core, shapes)
    if compiled_only and (native.rest_has_targets or checks):
        raise Declined(f"not compiled: {', '.join(sorted(map(str, native.declined))) or 'shapes with implicit targets'}"
                       + (f"; {len(checks)} SPARQL constraints on Oxigraph" if checks else ""))
    conforms, results, report = True, [], Graph()
    if part == "core":
        checks = []
    hits = []
    if part != "sparql" and native.rest_has_targets:  # shapes the compiled engine does not know: pySHACL on them
        if data is None:
            data = data_graph(lines or [], prefixes)
        if shapes in SHAPES_FILES:
            SHAPES_FILES[native.rest] = SHAPES_FILES[shapes]
        # no inference, so nothing is added: no need for pySHACL's copy of the data
        conforms, report = run(data, native.rest, inplace=True)
        results = collect(report, shapes)
    if part != "sparql":
        triples = iter(data) if data is not None else rdflib_triples(_reading(lines or [], native.read),
                                                                       native.known)
        hits = native.run(native.data(triples, data, prefixes), only)
        results.extend(core_result(core, shapes, hit) for hit in hits)
        conforms = conforms and not hits
    raw = []
    if checks:
        store, literals = (validate_sparql.store_of(_reading(lines, validate_sparql.predicates_read(shapes)))
                           if lines is not None else validate_sparql.store_of(graph=data))
        raw = validate_sparql.run(store, checks, literals, {str(f) for f in only} if only is not None else None,
                                  shapes)
        results.extend(sparql_result(core, r) for r in raw)
        conforms = conforms and not raw
    if only is not None:
        wanted = {str(f) for f in only}
        results = [r for r in results if r.focus in wanted]
        hits = [h for h in hits if str(h.focus) in wanted]
        raw = [r for r in raw if str(r.focus) in wanted]
        conforms = not results

    def graph() -> Graph:
        if (None, RDF.type, SH.ValidationReport) not in report:
            root = BNode()
            report.add((root, RDF.type, SH.ValidationReport))
            report.add((root, SH.conforms, Literal(True)))
        for hit in hits:
            add_hit(report, None, hit)
        for r in raw:
            add_result(report, SH.SPARQLConstraintComponent, r.check.shape, r.check.severity, r.focus, r.value,
                        r.path, r.message, r.check.constraint)
        for path in set(report.objects(None, SH.resultPath)):
            copy_path(report, shapes, path)  # a complex path with its structure, as pySHACL writes it
        return report
    return ValidationReport(bool(conforms), ordered(results), graph)


def _reading(lines: Iterable[str], predicates: set[str] | None) -> Iterable[str]:
    r"""The lines an engine reads: those of the ``predicates`` (N-Triples tokens; None: all), and every line about a
    blank node (its messages describe it whole). A record of 100,000 references is 2.5 million lines: neither
    engine indexes those it never reads.

    >>> _reading(['<a> <p> <b> <g> .\n', '<a> <q> "x" <g> .\n', '_:b <q> "y" <g> .\n'], {"<p>"})
    ['<a> <p> <b> <g> .\n', '_:b <q> "y" <g> .\n']
    """
    if predicates is None:
        return lines
    if isinstance(lines, FileLines):
        return lines.only(predicates)  # (read from its file as it is iterated)
    return [line for line in lines if line.startswith("_:") or line.split(" ", 2)[1] in predicates]


def validate_lines(lines: list[str], shapes: Path | None = None, engine: str | None = None,
                   prefixes: dict[str, str] | None = None) -> ValidationReport:
    """Validate canonical N-Quads lines against the shapes (default: shapes/). The rdflib graph of the lines
    is made only if pySHACL needs it (the compiled engine and Oxigraph read the lines); ``prefixes`` are those
    the graph files declared (pySHACL resolves SPARQL prefixes with them, and both engines write nodes with them
    in messages)."""
    return validate(None, load_shapes(shapes), lines, engine, prefixes=prefixes)

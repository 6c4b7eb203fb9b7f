"""SHACL-SPARQL constraints evaluated on Oxigraph, the rest left to pySHACL.

pySHACL runs each ``sh:sparql`` constraint once per focus node on rdflib's SPARQL engine, which is half of
the validation time of our shapes. For the constraints whose semantics are plain (a SELECT constraint of a
node shape that has targets, no message of its own, is not deactivated and is used by no other shape),
this module finds the focus nodes and runs the SELECT on Oxigraph with ``$this`` pre-bound, and builds
each result as pySHACL does (focus ``?this`` or the focus node, ``?path``, ``?value`` or the focus node,
the constraint's messages with ``{?var}`` substituted, the shape's severity). Every other constraint stays
with pySHACL, the reference engine. Tests run both engines over every graph the suite validates and
require identical reports.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import cast

import pyoxigraph as ox
from rdflib import RDF, Graph, Literal, URIRef
from rdflib.namespace import SH
from rdflib.paths import Path as RdfPath
from rdflib.plugins.sparql import prepareQuery  # (imported with the module, never first in a forked worker)
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import Identifier, Node, Variable

from ..infra.workers import chunks
from ..rdf.convert import ox_term, rdflib_term
from ..rdf.nquads import triples_text
from .shape import INERT, implicit_class, sorted_terms

_NESTING = (SH.node, SH["and"], SH["or"], SH["not"], SH.xone, SH.qualifiedValueShape, SH.property, RDF.first)
_TARGETS = {SH.targetClass: "class", SH.targetSubjectsOf: "subjects", SH.targetObjectsOf: "objects",
            SH.targetNode: "node"}
_OWN = {SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf, SH.targetNode, SH.sparql, SH.severity, SH.name,
        SH.description, SH.property, RDF.type, SH.nodeKind, SH["class"], SH["or"], SH["and"], SH["not"], SH.node,
        SH.xone, SH["in"], SH.closed, SH.ignoredProperties, SH.order, SH.group}


@dataclass(frozen=True)
class Check:
    """One SPARQL SELECT constraint of a node shape, ready to run."""

    shape: Node  # a URIRef or a BNode
    constraint: Node  # a URIRef or a BNode
    severity: Node  # an IRI
    query: str
    messages: tuple[Literal, ...]
    targets: tuple[tuple[str, object], ...]
    reads_shapes: bool = False  # whether the query reads $shapesGraph or $currentShape


_SPLITS: "weakref.WeakKeyDictionary[Graph, tuple[Graph, list[Check]]]" = weakref.WeakKeyDictionary()


def split(shapes: Graph) -> tuple[Graph, list[Check]]:
    """The shapes graph without the constraints this module runs, and those constraints (cached)."""
    found = _SPLITS.get(shapes)
    if found is None:
        found = _SPLITS[shapes] = _split(shapes)
    return found


def _prefixes(shapes: Graph, constraint: Node) -> str:
    out = []
    for decl_owner in shapes.objects(constraint, SH.prefixes):
        for decl in shapes.objects(decl_owner, SH.declare):
            prefix, ns = shapes.value(decl, SH.prefix), shapes.value(decl, SH.namespace)
            if prefix is not None and ns is not None:
                out.append(f"PREFIX {prefix}: <{ns}>\n")
    return "".join(sorted(set(out)))


# the SPARQL SHACL forbids in constraints (MINUS, VALUES, SERVICE, AS $this; sub-SELECTs: see _plain_sparql): pySHACL
# refuses those
_BEYOND = re.compile(r"\b(MINUS|VALUES|SERVICE)\b|\bAS\s*[?$]this\b", re.IGNORECASE)
# the pre-bound variables of the shapes graph (SHACL 5.3.1): the shapes are loaded into the store as a named graph
_SHAPES_VARS = re.compile(r"[?$](shapesGraph|currentShape)\b")
SHAPES_GRAPH = "urn:x-kg:shapes-graph"  # the name of the shapes graph in the store, the value of $shapesGraph
_PROJECTION = re.compile(r"\bSELECT\b(.*?)(?:\bWHERE\b|\{)", re.IGNORECASE | re.DOTALL)


def _plain_sparql(text: str) -> bool:
    """Whether a constraint's SELECT is one Oxigraph runs as SHACL says: nothing SHACL forbids (MINUS, VALUES,
    SERVICE, AS $this, a sub-SELECT that does not project $this), and Oxigraph parses it (with $shapesGraph and
    $currentShape pre-bound, when it reads them)."""
    if _BEYOND.search(text):
        return False
    projections = [m.group(1) for m in _PROJECTION.finditer(text)]
    if not projections or any(not re.search(r"[?$]this\b", p) for p in projections[1:]):
        return False
    try:
        ox.Store().query(_projecting_shapes(text), substitutions=_shapes_bindings(URIRef(SHAPES_GRAPH))
                         if _SHAPES_VARS.search(text) else {})
    except (SyntaxError, RuntimeError):  # (RuntimeError: a pre-bound variable Oxigraph cannot substitute)
        return False
    return True


def _projecting_shapes(query: str) -> str:
    """The query with $shapesGraph and $currentShape added to its projection, where it reads them (Oxigraph binds
    only projected variables)."""
    if not _SHAPES_VARS.search(query):
        return query
    m = _PROJECTION.search(query)
    if m is None or m.group(1).strip() == "*":
        return query
    head = re.match(r"\s*(?:(?:DISTINCT|REDUCED)\b)?", m.group(1), re.IGNORECASE)
    at = m.start(1) + (head.end() if head else 0)
    extra = "".join(f" ${v}" for v in ("shapesGraph", "currentShape")
                    if not re.search(rf"[?$]{v}\b", m.group(1)))
    return query[:at] + extra + " " + query[at:]


def _shapes_bindings(shape: Node) -> dict:
    """What SHACL pre-binds beside $this: $shapesGraph (the store's copy of the shapes) and $currentShape."""
    return {ox.Variable("shapesGraph"): ox.NamedNode(SHAPES_GRAPH), ox.Variable("currentShape"): ox_term(shape)}


_CONSTRAINT_OWN = {RDF.type, SH.select, SH.message, SH.prefixes, URIRef("http://www.w3.org/2000/01/rdf-schema#label"),
                   URIRef("http://www.w3.org/2000/01/rdf-schema#comment")}


def _eligible(shapes: Graph, shape: Node, constraint: Node) -> bool:
    if any(p not in _CONSTRAINT_OWN for p in shapes.predicates(constraint)):
        return False  # a parameter this module does not know (sh:deactivated ...)
    text = shapes.value(constraint, SH.select)
    if text is None or not _plain_sparql(_prefixes(shapes, constraint) + str(text)):
        return False
    if (shape, SH.path, None) in shapes or (shape, SH.message, None) in shapes:
        return False  # a property shape, or node-shape messages: pySHACL's own handling
    if (shape, SH.deactivated, None) in shapes or (constraint, SH.deactivated, None) in shapes:
        return False
    if any(p in _NESTING for _s, p, _o in shapes.triples((None, None, shape))):
        return False  # used by another shape: its results nest there
    if (constraint, SH.select, None) not in shapes or (constraint, SH.ask, None) in shapes:
        return False
    if len([m for m in shapes.objects(constraint, SH.message) if isinstance(m, Literal)]) != 1:
        return False  # one result message per result, as the report keeps
    if any(p not in _OWN and str(p).startswith(str(SH)) for p in shapes.predicates(shape)):
        return False  # a target or parameter this module does not know
    custom = {p for param in shapes.objects(None, SH.parameter) for p in shapes.objects(param, SH.path)}
    reads_shapes = bool(_SHAPES_VARS.search(str(text)))
    if reads_shapes and not isinstance(shape, URIRef):
        return False  # (a blank node shape cannot be named in the store's copy of the shapes graph)
    if any(p in custom or (p not in INERT and not str(p).startswith(str(SH)) and not reads_shapes)
           for p in shapes.predicates(shape)):
        return False  # a custom constraint component's parameter, or a predicate not known to be inert (unless the
        # query reads the shape itself: then it is the query's data): the shape goes to pySHACL whole
    if implicit_class(shapes, shape):
        return False  # implicit class target
    return any((shape, t, None) in shapes for t in _TARGETS)


def _split(shapes: Graph) -> tuple[Graph, list[Check]]:
    checks: list[Check] = []
    moved: set[tuple] = set()
    # (rdflib types the triples' terms Node, which declares no order; they are Identifiers, which do)
    for shape, _p, constraint in sorted(cast("Iterable[tuple[Identifier, Node, Identifier]]",
                                             shapes.triples((None, SH.sparql, None)))):
        if not _eligible(shapes, shape, constraint):
            continue
        severity = shapes.value(shape, SH.severity) or SH.Violation
        targets = tuple((kind, o) for t, kind in _TARGETS.items() for o in sorted_terms(shapes.objects(shape, t)))
        query = _projecting_shapes(_prefixes(shapes, constraint) + str(shapes.value(constraint, SH.select)))
        messages = tuple(m for m in shapes.objects(constraint, SH.message) if isinstance(m, Literal))
        checks.append(Check(shape, constraint, severity, query, messages, targets,
                            bool(_SHAPES_VARS.search(query))))
        moved.add((shape, SH.sparql, constraint))
    core = Graph()
    for prefix, ns in shapes.namespaces():
        core.bind(prefix, ns, override=True)
    for t in shapes:
        if t not in moved:
            core.add(t)
    return core, checks


def _focus_nodes(store: ox.Store, targets: tuple[tuple[str, object], ...]) -> list:
    found: dict[str, object] = {}
    for kind, o in targets:
        if kind == "node":
            term = ox_term(o)
            found[str(term)] = term
            continue
        pattern = {"class": f"?f <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>/"
                            f"<http://www.w3.org/2000/01/rdf-schema#subClassOf>* <{o}>",
                   "subjects": f"?f <{o}> ?x", "objects": f"?x <{o}> ?f"}[kind]
        rows = store.query(f"SELECT DISTINCT ?f WHERE {{ {pattern} }}")
        assert isinstance(rows, ox.QuerySolutions)  # (a SELECT query's answer)
        for row in rows:
            found[str(row[0])] = row[0]
    return [found[k] for k in sorted(found)]


def _message(msg: str, bound: Mapping[str, object]) -> str:
    for var, val in bound.items():
        msg = re.sub("{{[?$]{}}}".format(var), str(val), msg)
    return msg


@dataclass(frozen=True)
class RawResult:
    """A result with rdflib terms, before it is turned into a ``kg.validate.Result``."""

    check: Check
    focus: Node
    path: Node | None
    value: Node | None
    message: str


def run(store: ox.Store, checks: list[Check], literals: dict | None = None,
        only: set[str] | None = None, shapes: Graph | None = None) -> list[RawResult]:
    """Every result of ``checks`` on the triples of ``store`` (default graph); ``literals`` maps literals
    back to the rdflib terms of the data graph they came from (see ``store_of``); ``only`` restricts the
    focus nodes to these IRIs; ``shapes``: the shapes graph, which ``$shapesGraph`` names (loaded into the store
    as the named graph ``SHAPES_GRAPH`` when some check reads it)."""
    out: list[RawResult] = []
    this = ox.Variable("this")
    if shapes is not None and any(c.reads_shapes for c in checks):
        store.bulk_load(shapes.serialize(format="nt", encoding="utf-8"), format=ox.RdfFormat.N_TRIPLES,
                        to_graph=ox.NamedNode(SHAPES_GRAPH))
    for check in checks:
        bindings = _shapes_bindings(check.shape) if check.reads_shapes else {}
        for f in _focus_nodes(store, check.targets):
            if only is not None and not (isinstance(f, ox.NamedNode) and f.value in only):
                continue
            rf = rdflib_term(f, literals)
            seen: list[tuple] = []
            solutions = store.query(check.query, substitutions={**bindings, this: f})
            assert isinstance(solutions, ox.QuerySolutions)  # (the constraints run here are SELECT queries)
            names = [v.value for v in solutions.variables]
            for row in solutions:
                bound = {n: rdflib_term(row[i], literals) for i, n in enumerate(names) if row[i] is not None}
                bound.pop("shapesGraph", None)  # (projected for Oxigraph to bind it: not a result's variable)
                p, v, t = bound.pop("path", None), bound.pop("value", None), bound.pop("this", None)
                if p is None and v is None and t is None:
                    continue
                key = (t, p, v, tuple(sorted(bound.items())))
                if key in seen:
                    continue
                seen.append(key)
                subst = dict(bound)
                if t is not None:
                    subst["this"] = t
                if p is not None:
                    subst["path"] = p
                value = v if v is not None else rf
                subst["value"] = value
                out.append(RawResult(check, t or rf, p, value, _message(str(check.messages[0].value), subst)))
    return out


LOAD_CHUNK = 50_000  # lines given to Oxigraph's bulk loader at a time


_READ: "weakref.WeakKeyDictionary[Graph, set[str] | None]" = weakref.WeakKeyDictionary()


def patterns_of(query: str) -> set[tuple]:
    """The triple patterns of a query (property paths as rdflib paths), at any depth: those of EXISTS and NOT
    EXISTS too, which rdflib keeps as attributes of the expression beside the untranslated pattern of its keys."""
    found: set[tuple] = set()
    seen: set[int] = set()
    todo: list[object] = [prepareQuery(query).algebra]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, CompValue):
            own = {k: v for k, v in vars(node).items() if isinstance(v, (CompValue, list, tuple))}
            for key in node:
                value = own.pop(key, None) or node[key]
                if key == "triples" and isinstance(value, list):
                    found.update(tuple(t) for t in value)
                todo.append(value)
            todo.extend(own.values())
        elif isinstance(node, Mapping):
            todo.extend(node.values())
        elif isinstance(node, (list, tuple)):
            todo.extend(node)
    return found


def predicates_read(shapes: Graph) -> set[str] | None:
    """The predicates (N-Triples tokens) the constraints run here read, from their queries' patterns, and those
    their targets need; None when some pattern has a variable predicate (then every triple counts). Cached."""
    if shapes in _READ:
        return _READ[shapes]
    def path_iris(path: object) -> Iterable[str]:
        for name in ("arg", "args", "path"):
            value = getattr(path, name, None)
            for x in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(x, URIRef):
                    yield str(x)
                elif isinstance(x, RdfPath):
                    yield from path_iris(x)

    found: set[str] = {str(RDF.type), "http://www.w3.org/2000/01/rdf-schema#subClassOf"}
    variable = False
    for check in split(shapes)[1]:
        for _s, p, _o in patterns_of(check.query):
            if isinstance(p, Variable):
                variable = True
            elif isinstance(p, URIRef):
                found.add(str(p))
            else:
                found.update(path_iris(p))
        found.update(str(o) for kind, o in check.targets if kind in ("subjects", "objects"))
    _READ[shapes] = read = None if variable else {f"<{p}>" for p in found}
    return read


def store_of(nt_lines: Iterable[str] | None = None, graph: Graph | None = None) -> tuple[ox.Store, dict | None]:
    """An Oxigraph store with the data triples (from N-Quads lines, or from an rdflib graph) and, for a
    graph, its literals by (lexical form, datatype, language)."""
    store = ox.Store()
    literals = None
    if nt_lines is not None:
        # in chunks: the lines are not held a second and a third time as one text and its bytes (a record of
        # 100,000 references has some 2.5 million), unless blank nodes (one load keeps their labels one node)
        # (``nt_lines`` is iterated twice: a list, or lines read again from their file, ``kg.validate.filed``)
        if any(line.startswith("_:") or " _:" in line for line in nt_lines):
            store.bulk_load(triples_text(nt_lines).encode("utf-8"), format=ox.RdfFormat.N_TRIPLES)
            return store, literals
        for chunk in chunks(nt_lines, LOAD_CHUNK):
            store.bulk_load(triples_text(chunk).encode("utf-8"), format=ox.RdfFormat.N_TRIPLES)
        return store, literals
    assert graph is not None
    data = graph.serialize(format="nt", encoding="utf-8")
    literals = {}
    for o in graph.objects():
        if isinstance(o, Literal):
            dt = str(o.datatype) if o.datatype else (
                "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString" if o.language else
                "http://www.w3.org/2001/XMLSchema#string")
            literals[(str(o), dt, o.language.lower() if o.language else None)] = o
    store.bulk_load(data, format=ox.RdfFormat.N_TRIPLES)
    return store, literals

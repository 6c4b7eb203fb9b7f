"""SHACL Core, evaluated on plain dictionaries with pySHACL's semantics and messages.

pySHACL walks rdflib's store for every value of every focus node of every shape, and rebuilds its
constraint objects each time; on our graphs that is ~90% of the validation time. This module compiles the
node shapes whose every parameter it knows (the constraint components of SHACL Core that our shapes use:
cardinality, class, datatype, node kind, in, has-value, pattern, value ranges, node, not, and, or,
qualified value shapes; paths made of predicates, inverse predicates and alternatives) once per shapes
graph, indexes the data once, and evaluates them the way pySHACL does: the same focus nodes, value nodes,
results, values, paths and messages (a shape's ``sh:message``, or pySHACL's own generic message, built
with pySHACL's own node formatting). Every shape it does not fully know is left to pySHACL. The test
suite runs both engines on every graph it validates and requires identical reports.
"""

from __future__ import annotations

import re
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time
from decimal import Decimal
from typing import cast

from rdflib import RDF, RDFS, XSD, BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import SH
from rdflib.term import Identifier, Node

_TARGETS = (SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf, SH.targetNode)
# shape parameters this module knows (anything else in the sh: namespace leaves the shape to pySHACL)
_KNOWN = {*_TARGETS, SH.property, SH.path, SH.severity, SH.message, SH.name, SH.description, SH.order, SH.group,
          SH.deactivated, SH.minCount, SH.maxCount, SH["class"], SH.datatype, SH.nodeKind, SH["in"], SH.hasValue,
          SH.pattern, SH.flags, SH.minInclusive, SH.maxInclusive, SH.minExclusive, SH.maxExclusive, SH.node,
          SH["not"], SH["and"], SH["or"], SH.qualifiedValueShape, SH.qualifiedMinCount, SH.qualifiedMaxCount,
          SH.defaultValue}
# predicates a shape may carry that constrain nothing (annotations; anything else leaves the shape to pySHACL)
_INERT = {RDF.type, RDFS.label, RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy, RDFS.subClassOf,
          URIRef("http://www.w3.org/2002/07/owl#versionInfo"), URIRef("http://www.w3.org/2004/02/skos/core#note"),
          URIRef("http://www.w3.org/2004/02/skos/core#definition"), URIRef("http://purl.org/dc/terms/description"),
          URIRef("http://purl.org/dc/terms/source"), URIRef("http://purl.org/dc/terms/title")}
_NODE_KINDS = {
    SH.IRI: (URIRef,), SH.BlankNode: (BNode,), SH.Literal: (Literal,), SH.BlankNodeOrIRI: (BNode, URIRef),
    SH.BlankNodeOrLiteral: (BNode, Literal), SH.IRIOrLiteral: (URIRef, Literal),
}
_PY_TYPES = {XSD.string: (str, bytes), RDF.langString: (str, bytes), XSD.integer: (int,), XSD.float: (float,),
             XSD.decimal: (Decimal,), XSD.boolean: (bool,), XSD.date: (date,), XSD.time: (time,),
             XSD.dateTime: (datetime,)}
C = SH  # constraint component IRIs: sh:XConstraintComponent


class Unsupported(Exception):
    """A shape uses something this module does not evaluate: pySHACL keeps it."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One validation result: pySHACL's fields, with rdflib terms."""

    shape: Node  # the source shape (a node shape, or a property shape): a URIRef or a BNode
    component: URIRef
    severity: Node  # an IRI
    focus: Node
    path: Node | None  # the path node of the shapes graph, for property shapes
    value: Node | None
    message: str
    details: tuple["Hit", ...] = ()  # the results of a failing sh:node's shape on the value (sh:detail)


def flatten(hits: Iterable[Hit]) -> list[Hit]:
    """Every hit, its details after it (the results pySHACL's report holds, nested or not)."""
    out: list[Hit] = []
    for h in hits:
        out.append(h)
        out.extend(flatten(h.details))
    return out


class Data:
    """The data graph as dictionaries: values by subject and predicate, subjects by object for the
    predicates some shape follows backwards, and (subject, object) pairs of the target predicates."""

    def __init__(self, triples: Iterable[tuple], backwards: set, pairs: set,
                 namespaces: Graph | None = None, prefixes: dict[str, str] | None = None) -> None:
        out: dict = defaultdict(dict)
        inv: dict = {p: defaultdict(list) for p in backwards}
        by_pred: dict = {p: [] for p in pairs | {RDF.type, RDFS.subClassOf}}
        for s, p, o in triples:
            values = out[s].get(p)
            if values is None:
                out[s][p] = [o]
            else:
                values.append(o)
            if p in inv:
                inv[p][o].append(s)
            if p in by_pred:
                by_pred[p].append((s, o))
        self.out, self.inv, self.pairs = out, inv, by_pred
        self.namespaces = namespaces  # the graph whose prefixes format nodes in generic messages
        self.prefixes = prefixes or {}  # (without that graph) the prefixes of the files the data comes from
        supers: dict = defaultdict(set)
        for s, o in by_pred[RDFS.subClassOf]:
            supers[s].add(o)
        self._supers = supers
        self._closure: dict = {}
        self._typed: dict | None = None
        self.conformance: dict = {}  # (id of a shape, node) -> whether the node conforms to the shape

    def superclasses(self, cls: object) -> set:
        """``cls`` and every class it is a subclass of (rdfs:subClassOf*, as pySHACL walks it)."""
        found = self._closure.get(cls)
        if found is None:
            found, todo = {cls}, [cls]
            while todo:
                for sup in self._supers.get(todo.pop(), ()):
                    if sup not in found:
                        found.add(sup)
                        todo.append(sup)
            self._closure[cls] = found
        return found

    def instances(self, cls: object) -> set:
        """Nodes typed with ``cls`` or a subclass of it."""
        if self._typed is None:
            self._typed = defaultdict(list)
            for s, o in self.pairs[RDF.type]:
                self._typed[o].append(s)
        return {s for t, subjects in self._typed.items() if cls in self.superclasses(t) for s in subjects}

    def values(self, focus: object, path: "Path") -> set:
        got: set = set()
        for pred, backwards in path.steps:
            if backwards:
                got.update(self.inv[pred].get(focus, ()))
            else:
                got.update(self.out.get(focus, {}).get(pred, ()))
        return got

    def closure(self, node: Node) -> Graph:
        """An rdflib graph of what the data says about a blank node, and about the blank nodes it reaches."""
        g, todo, seen = self._bound(Graph()), [node], set()
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            for p, objects in self.out.get(n, {}).items():
                for o in objects:
                    g.add((n, p, o))
                    if isinstance(o, BNode):
                        todo.append(o)
        return g

    def _bound(self, g: Graph) -> Graph:
        for prefix, ns in sorted(self.prefixes.items()):  # as data_graph() binds them for pySHACL
            g.bind(prefix, ns, override=True)
        return g

    def ns_graph(self) -> Graph:
        if self.namespaces is None:
            self.namespaces = self._bound(Graph())  # a fresh graph's prefixes: what data_graph() gives pySHACL
        return self.namespaces


@dataclass(frozen=True)
class Path:
    node: Node  # the path as written in the shapes graph
    steps: tuple[tuple[URIRef, bool], ...]  # (predicate, backwards): the union of these single steps


Check = Callable[["Data", object, set], list]  # (data, focus, value nodes) -> [(component or None, value or None)]


@dataclass(eq=False)
class Shape:
    node: Node  # a URIRef or a BNode of the shapes graph
    path: Path | None
    severity: Node  # sh:Violation, sh:Warning or sh:Info, or another IRI the shapes give
    message: str | None
    deactivated: bool
    # (component, check, generic message, the shape whose results a failure nests: sh:node's sh:detail)
    checks: list[tuple[URIRef, Check, Callable[..., str], "Shape | None"]] = field(default_factory=list)
    properties: list["Shape"] = field(default_factory=list)
    nested: list["Shape"] = field(default_factory=list)  # shapes its constraints refer to (sh:node, sh:or ...)
    targets: list[tuple[URIRef, object]] = field(default_factory=list)


class Compiled:
    """The shapes of one shapes graph this module evaluates, and the graph left for pySHACL."""

    def __init__(self, core: Graph, source: Graph | None = None) -> None:
        # parameters are read from the shapes graph pySHACL is given (``source``): the order of a parameter's
        # values (sh:class, sh:in ...) in its generic messages is that graph's order
        shapes = self.shapes = source if source is not None else core
        self.core = core
        self._cache: dict = {}
        self.roots: list[Shape] = []
        self.declined: dict = {}  # shapes with targets left to pySHACL -> why
        kept: set = set()
        # predicates that are parameters of constraint components the shapes graph declares (SHACL-SPARQL)
        self._custom = {p for param in shapes.objects(None, SH.parameter) for p in shapes.objects(param, SH.path)}
        for node in sorted_terms({s for t in _TARGETS for s in shapes.subjects(t, None)}):
            if (node, SH.path, None) in shapes:
                self.declined[node] = "a property shape with targets"
                continue  # a property shape with targets of its own: pySHACL
            try:
                shape = self._shape(node, ())
            except Unsupported as e:
                self.declined[node] = str(e)
                continue
            shape.targets = [(t, o) for t in _TARGETS for o in sorted_terms(shapes.objects(node, t))]
            self.roots.append(shape)
            kept.add(node)
        self.rest = Graph()
        for prefix, ns in core.namespaces():
            self.rest.bind(prefix, ns, override=True)
        for t in core:
            if not (t[0] in kept and t[1] in _TARGETS):
                self.rest.add(t)
        self.rest_has_targets = any((None, t, None) in self.rest for t in _TARGETS) or \
            any(str(p).startswith(str(SH)) or p in self._custom  # a class that is a shape: its instances are targets
                for c in _classes(self.rest) for s in self.rest.subjects(RDF.type, c) for p in self.rest.predicates(s))
        # the IRIs of the shapes as N-Triples tokens: data read from lines reuses these very objects, so looking
        # up a predicate or class of the shapes in the data's dictionaries finds it by identity (no __eq__ call)
        self.known = {f"<{t}>": t for triple in shapes for t in triple if isinstance(t, URIRef)}
        self.known.update({f"<{t}>": t for t in (RDF.type, RDFS.subClassOf)})
        self.backwards = {p for p, _ in self._all_steps() if _}
        self.target_preds = {o for r in self.roots for t, o in r.targets
                             if t in (SH.targetSubjectsOf, SH.targetObjectsOf)}

    def _all_steps(self) -> set:
        steps: set = set()
        seen: set = set()

        def walk(s: Shape) -> None:
            if id(s) in seen:
                return
            seen.add(id(s))
            if s.path:
                steps.update(s.path.steps)
            for p in s.properties:
                walk(p)
            for sub in s.nested:
                walk(sub)
        for r in self.roots:
            walk(r)
        return steps

    # ------------------------------------------------------------ compiling

    def _shape(self, node: Node, stack: tuple) -> Shape:
        if node in self._cache:
            return self._cache[node]
        if node in stack:
            raise Unsupported("recursive shapes")
        g = self.shapes
        if implicit_class(g, node):
            raise Unsupported("implicit class target")
        for p in set(g.predicates(node)):
            if p in _KNOWN or p == SH.sparql:
                continue
            if str(p).startswith(str(SH)) or p in self._custom or p not in _INERT:
                raise Unsupported(str(p))  # a SHACL or custom constraint parameter, or a predicate not known inert
        if (node, SH.sparql, None) in self.core:
            raise Unsupported("a SPARQL constraint pySHACL still runs")  # (those run on Oxigraph are not in core)
        messages = list(g.objects(node, SH.message))
        if len(messages) > 1 or any(not isinstance(m, Literal) for m in messages):
            raise Unsupported("several messages")
        severities = list(g.objects(node, SH.severity))
        if len(severities) > 1:
            raise Unsupported("several severities")
        deact = list(g.objects(node, SH.deactivated))
        path_node = g.value(node, SH.path)
        path = self._path(path_node) if path_node is not None else None
        shape = Shape(node, path, severities[0] if severities else SH.Violation,
                      str(cast(Literal, messages[0]).value) if messages else None,  # (a Literal: checked above)
                      bool(deact) and isinstance(deact[0], Literal) and deact[0].value is True)
        stack = (*stack, node)
        self._checks(shape, stack)
        for prop in sorted_terms(g.objects(node, SH.property)):
            if (prop, SH.path, None) not in g:
                raise Unsupported("property shape without a path")
            shape.properties.append(self._shape(prop, stack))
        self._cache[node] = shape
        return shape

    def _path(self, node: Node) -> Path:
        g = self.shapes
        if isinstance(node, URIRef):
            return Path(node, ((node, False),))
        inv = g.value(node, SH.inversePath)
        if isinstance(inv, URIRef):
            return Path(node, ((inv, True),))
        alts = g.value(node, SH.alternativePath)
        if alts is not None and len(list(g.predicate_objects(node))) == 1:
            steps: list[tuple[URIRef, bool]] = []
            for item in Collection(g, alts):
                steps.extend(self._path(item).steps)
            return Path(node, tuple(steps))
        raise Unsupported("path")

    def _list(self, node: Node) -> list:
        return list(Collection(self.shapes, node))

    def _checks(self, shape: Shape, stack: tuple) -> None:  # noqa: C901 - one branch per SHACL constraint component
        g, node = self.shapes, shape.node

        def add(check: tuple, details: Shape | None = None) -> None:
            shape.checks.append((*check, details))
        one = _one(g, node)
        if (n := one(SH.minCount)) is not None:
            assert isinstance(n, Literal)  # (one() checked that a count is an integer literal)
            add((C.MinCountConstraintComponent, _min_count(int(n)), _msg_min_count(n, shape, self)))
        if (n := one(SH.maxCount)) is not None:
            assert isinstance(n, Literal)
            add((C.MaxCountConstraintComponent, _max_count(int(n)), _msg_max_count(n, shape, self)))
        classes = list(g.objects(node, SH["class"]))
        for cls in classes:
            add((C.ClassConstraintComponent, _class(cls), _msg_class(classes, self)))
        if (dt := one(SH.datatype)) is not None:
            add((C.DatatypeConstraintComponent, _datatype(dt),
                 _fixed("Value is not Literal with datatype {}", dt, self)))
        if (kind := one(SH.nodeKind)) is not None:
            if kind not in _NODE_KINDS:
                raise Unsupported("node kind")
            assert isinstance(kind, URIRef)  # (the node kinds are IRIs)
            add((C.NodeKindConstraintComponent, _node_kind(_NODE_KINDS[kind]),
                 _fixed("Value is not of Node Kind {}", kind, self)))
        for lst in g.objects(node, SH["in"]):
            vals = self._list(lst)
            add((C.InConstraintComponent, _in(set(vals)), _msg_in(vals, self)))
        has = list(g.objects(node, SH.hasValue))
        if has:
            add((C.HasValueConstraintComponent, _has_value(has), _msg_has_value(has, shape, self)))
        patterns = list(g.objects(node, SH.pattern))
        if patterns:
            flags = next(iter(set(g.objects(node, SH.flags))), None)
            add((C.PatternConstraintComponent, _pattern(patterns, flags), _msg_pattern(patterns)))
        for param, comp, op, text in ((SH.minInclusive, C.MinInclusiveConstraintComponent, ">=", "Value is not >= {}"),
                                      (SH.maxInclusive, C.MaxInclusiveConstraintComponent, "<=", "Value is not <= {}"),
                                      (SH.minExclusive, C.MinExclusiveConstraintComponent, ">", "Value is not > {}"),
                                      (SH.maxExclusive, C.MaxExclusiveConstraintComponent, "<", "Value is not < {}")):
            bounds = list(g.objects(node, param))
            if len(bounds) > 1:
                raise Unsupported("several bounds")
            if bounds:
                if not isinstance(bounds[0], Literal):
                    raise Unsupported("bound")
                add((comp, _range(bounds[0], op), _fixed(text, bounds[0], self)))
        refs = list(g.objects(node, SH.node))
        for ref in refs:
            sub = self._shape(ref, stack)
            shape.nested.append(sub)
            add((C.NodeConstraintComponent, _node(self, sub), _msg_node(refs, self)), sub)
        nots = list(g.objects(node, SH["not"]))
        if nots:
            subs = [self._shape(n, stack) for n in nots]
            shape.nested.extend(subs)
            add((C.NotConstraintComponent, _not(self, subs), _msg_not(nots, self)))
        for param, comp, mode in ((SH["and"], C.AndConstraintComponent, "all"),
                                  (SH["or"], C.OrConstraintComponent, "any")):
            lists = list(g.objects(node, param))
            if lists:
                groups = [[self._shape(m, stack) for m in self._list(lst)] for lst in lists]
                for grp in groups:
                    shape.nested.extend(grp)
                add((comp, _logic(self, groups, mode), _msg_logic(lists, mode, self)))
        qvs = list(g.objects(node, SH.qualifiedValueShape))
        if qvs:
            if len(qvs) > 1 or (node, SH.qualifiedValueShapesDisjoint, None) in g:
                raise Unsupported("qualified value shapes")
            sub = self._shape(qvs[0], stack)
            shape.nested.append(sub)
            lo, hi = one(SH.qualifiedMinCount), one(SH.qualifiedMaxCount)
            if lo is None and hi is None:
                raise Unsupported("qualified value shape without a count")
            assert (lo is None or isinstance(lo, Literal)) and (hi is None or isinstance(hi, Literal))  # (integers)
            add((C.QualifiedMinCountConstraintComponent,  # each result names min or max
                 _qualified(self, sub, None if lo is None else int(lo), None if hi is None else int(hi)),
                 _msg_qualified(qvs[0], lo, hi, self)))

    # ------------------------------------------------------------ evaluating

    def evaluate(self, data: Data, shape: Shape, focus: Node) -> list[Hit]:
        """The results of ``shape`` on one focus node (its property shapes included)."""
        if shape.deactivated:
            return []
        values = data.values(focus, shape.path) if shape.path is not None else {focus}
        hits: list[Hit] = []
        for component, check, generic, details in shape.checks:
            for comp, value in check(data, focus, values):
                message = shape.message if shape.message is not None else generic(data, focus, value)
                # pySHACL nests the node shape's own results (sh:detail)
                nested = tuple(self.evaluate(data, details, value)) if details is not None else ()
                hits.append(Hit(shape.node, comp or component, shape.severity, focus,
                                shape.path.node if shape.path else None, value, message, nested))
        if shape.properties:
            # a property shape's own property shapes apply to each of its value nodes; a node shape's to the focus
            for node in (sorted(values, key=_order) if shape.path is not None else (focus,)):
                for prop in shape.properties:
                    hits.extend(self.evaluate(data, prop, node))
        return hits

    def conforms(self, data: Data, shape: Shape, focus: object) -> bool:
        if shape.deactivated:
            return True
        memo = data.conformance
        key = (id(shape), focus)
        found = memo.get(key)
        if found is None:
            found = memo[key] = self._conforms(data, shape, focus)
        return found

    def _conforms(self, data: Data, shape: Shape, focus: object) -> bool:
        values = data.values(focus, shape.path) if shape.path is not None else {focus}
        for _component, check, _generic, _details in shape.checks:
            if check(data, focus, values):
                return False
        nodes = values if shape.path is not None else (focus,)
        return all(self.conforms(data, prop, node) for node in nodes for prop in shape.properties)

    def focus_nodes(self, data: Data, shape: Shape) -> set:
        found: set = set()
        for kind, o in shape.targets:
            if kind == SH.targetNode:
                found.add(o)
            elif kind == SH.targetClass:
                found.update(data.instances(o))
            elif kind == SH.targetSubjectsOf:
                found.update(s for s, _ in data.pairs[o])
            else:
                found.update(x for _, x in data.pairs[o])
        return found

    def run(self, data: Data, only: set | None = None) -> list[Hit]:
        """Every result of the compiled shapes on ``data``; with ``only``, those whose focus node is one of
        these IRIs (the whole graph's results for them: sh:node reports its shape's results on a value node
        while validating another focus node)."""
        hits: list[Hit] = []
        for shape in self.roots:
            for focus in self.focus_nodes(data, shape):
                hits.extend(self.evaluate(data, shape, focus))
        if only is not None:  # (the hits of the other focus nodes go, with their details: only's own are flat)
            hits = [replace(h, details=()) for h in flatten(hits) if isinstance(h.focus, URIRef) and h.focus in only]
        return hits

    def data(self, triples: Iterable[tuple], namespaces: Graph | None = None,
             prefixes: dict[str, str] | None = None) -> Data:
        return Data(triples, self.backwards, self.target_preds, namespaces, prefixes)


_COMPILED: "weakref.WeakKeyDictionary[Graph, Compiled]" = weakref.WeakKeyDictionary()


def compiled(core: Graph, source: Graph | None = None) -> Compiled:
    """The compiled shapes of a shapes graph (``core``: without the constraints run elsewhere; ``source``:
    the whole shapes graph it comes from), cached per graph."""
    found = _COMPILED.get(core)
    if found is None:
        found = _COMPILED[core] = Compiled(core, source)
    return found


# ---------------------------------------------------------------- constraint checks (pySHACL's semantics)

_OWL_CLASS = URIRef("http://www.w3.org/2002/07/owl#Class")


def sorted_terms(nodes: Iterable[Node]) -> list[Identifier]:
    """The terms of a graph in rdflib's order (rdflib types them Node, which declares no order; each is an
    Identifier, which does)."""
    return sorted(cast("Iterable[Identifier]", nodes))


def implicit_class(g: Graph, node: Node) -> bool:
    """Whether a node is a class (rdfs:Class, owl:Class or a subclass of rdfs:Class): as a shape, its instances
    are its targets (pySHACL's reading of SHACL's implicit class targets)."""
    classes = _classes(g)
    return any(t in classes for t in g.objects(node, RDF.type))


def _classes(g: Graph) -> set:
    return {RDFS.Class, _OWL_CLASS, *g.subjects(RDFS.subClassOf, RDFS.Class)}


def _order(term: object) -> tuple:
    return (type(term).__name__, str(term))


def _one(g: Graph, node: Node) -> Callable[[URIRef], Node | None]:
    def one(p: URIRef) -> Node | None:
        vals = list(g.objects(node, p))
        if len(vals) > 1:
            raise Unsupported(f"several {p}")
        if vals and p in (SH.minCount, SH.maxCount, SH.qualifiedMinCount, SH.qualifiedMaxCount) and \
                not (isinstance(vals[0], Literal) and isinstance(vals[0].value, int)):
            raise Unsupported(f"non-integer {p}")
        return vals[0] if vals else None
    return one


def _min_count(n: int) -> Check:
    return lambda data, focus, values: [(None, None)] if len(values) < n else []


def _max_count(n: int) -> Check:
    return lambda data, focus, values: [(None, None)] if len(values) > n else []


def _class(cls: object) -> Check:
    def check(data: Data, focus: object, values: set) -> list:
        bad = []
        for v in values:
            ok = False
            if not isinstance(v, Literal):
                for t in data.out.get(v, {}).get(RDF.type, ()):
                    if t == cls or cls in data.superclasses(t):
                        ok = True
                        break
            if not ok:
                bad.append((None, v))
        return bad
    return check


def _datatype(dt: object) -> Check:
    wanted = _PY_TYPES.get(dt)  # type: ignore[call-overload]

    def actual(v: Literal) -> bool:
        return wanted is None or isinstance(v.value, wanted)

    def matches(v: object) -> bool:
        if not isinstance(v, Literal):
            return False
        if v.datatype == dt:
            return False if getattr(v, "ill_typed", None) is True else actual(v)
        if dt == RDFS.Literal:
            return True
        if dt == RDFS.Datatype and v.datatype:
            return True
        if v.datatype is None and v.language is None and dt == XSD.string:
            return actual(v)
        if dt == RDF.langString and v.language:
            return actual(v)
        return False
    return lambda data, focus, values: [(None, v) for v in values if not matches(v)]


def _node_kind(kinds: tuple) -> Check:
    return lambda data, focus, values: [(None, v) for v in values if not isinstance(v, kinds)]


def _in(allowed: set) -> Check:
    return lambda data, focus, values: [(None, v) for v in values if v not in allowed]


def _has_value(wanted: list) -> Check:
    return lambda data, focus, values: [(None, None) for hv in wanted if not any(v == hv for v in values)]


def _pattern(patterns: list, flags: object) -> Check:
    re_flags = 0
    if flags:
        text = str(flags.value).lower() if isinstance(flags, Literal) else str(flags).lower()
        re_flags |= re.I if "i" in text else 0
        re_flags |= re.M if "m" in text else 0
    compiled_ = []
    for p in patterns:
        if not isinstance(p, Literal):
            raise Unsupported("pattern")
        compiled_.append(re.compile(str(p.value) if p.value is not None and len(p.value) > 1 else str(p), re_flags))

    def text_of(v: object) -> str:
        if isinstance(v, Literal) and v.value is not None and v.datatype in (None, RDF.langString, XSD.string):
            return str(v.value)
        return str(v)

    def check(data: Data, focus: object, values: set) -> list:
        bad = []
        for rx in compiled_:
            for v in values:
                if isinstance(v, BNode) or not rx.search(text_of(v)):
                    bad.append((None, v))
        return bad
    return check


def _range(bound: Literal, op: str) -> Check:
    from pyshacl.rdfutil import compare_literal
    bound_is_string = isinstance(bound.value, str)

    def ok(v: object) -> bool:
        if not isinstance(v, Literal):
            return False
        if bound_is_string != isinstance(v.value, str):
            return False
        try:
            cmp = compare_literal(v, bound)
        except (TypeError, NotImplementedError):
            return False
        return {">=": cmp >= 0, "<=": cmp <= 0, ">": cmp > 0, "<": cmp < 0}[op]
    return lambda data, focus, values: [(None, v) for v in values if not ok(v)]


def _node(engine: Compiled, sub: Shape) -> Check:
    return lambda data, focus, values: [(None, v) for v in values if not engine.conforms(data, sub, v)]


def _not(engine: Compiled, subs: list[Shape]) -> Check:
    return lambda data, focus, values: [(None, v) for s in subs for v in values if engine.conforms(data, s, v)]


def _logic(engine: Compiled, groups: list[list[Shape]], mode: str) -> Check:
    test = all if mode == "all" else any

    def check(data: Data, focus: object, values: set) -> list:
        return [(None, v) for grp in groups for v in values if not test(engine.conforms(data, s, v) for s in grp)]
    return check


def _qualified(engine: Compiled, sub: Shape, lo: int | None, hi: int | None) -> Check:
    def check(data: Data, focus: object, values: set) -> list:
        n = sum(1 for v in values if engine.conforms(data, sub, v))
        out = []
        if hi is not None and n > hi:
            out.append((C.QualifiedMaxCountConstraintComponent, None))
        if lo is not None and n < lo:
            out.append((C.QualifiedMinCountConstraintComponent, None))
        return out
    return check


# ---------------------------------------------------------------- generic messages (pySHACL's wording)

def _s(graph: Graph, node: Node) -> str:
    from pyshacl.rdfutil.stringify import stringify_node
    return stringify_node(graph, node)


def _d(data: Data, node: Node) -> str:
    """A data-graph node as pySHACL writes it in messages (a blank node with what the graph says about it)."""
    from pyshacl.rdfutil.stringify import stringify_blank_node
    graph = data.namespaces
    if graph is None:
        graph = data.closure(node) if isinstance(node, BNode) else data.ns_graph()
    stringify_blank_node.dict_cache.clear()  # pySHACL caches by id(graph), which a later graph may reuse
    try:
        return _s(graph, node)
    except (LookupError, ValueError):
        return str(node)


def _fixed(text: str, arg: Node, engine: Compiled) -> Callable[..., str]:
    return lambda data, focus, value: text.format(_s(engine.shapes, arg))


def _msg_min_count(n: Literal, shape: Shape, engine: Compiled) -> Callable[..., str]:
    if (path := shape.path) is not None:
        return lambda data, focus, value: (f"Less than {n.value} values on {_d(data, focus)}->"
                                           f"{_s(engine.shapes, path.node)}")
    return lambda data, focus, value: f"Less than {n.value} values on {_d(data, focus)}"


def _msg_max_count(n: Literal, shape: Shape, engine: Compiled) -> Callable[..., str]:
    if (path := shape.path) is not None:
        return lambda data, focus, value: (f"More than {n.value} values on {_d(data, focus)}->"
                                           f"{_s(engine.shapes, path.node)}")
    return lambda data, focus, value: f"More than {n.value} values on {_d(data, focus)}"


def _msg_class(classes: list, engine: Compiled) -> Callable[..., str]:
    if len(classes) < 2:
        return _fixed("Value does not have class {}", classes[0], engine)
    rules = ", ".join(_s(engine.shapes, c) for c in classes)
    return lambda data, focus, value: f"Value class is not in classes ({rules})"


def _msg_in(vals: list, engine: Compiled) -> Callable[..., str]:
    in_vals: set = set()
    for v in vals:  # pySHACL lists its set of values: the same set, built in the same order, iterates alike
        in_vals.add(v)
    listed = [_s(engine.shapes, v) for v in in_vals]
    return lambda data, focus, value: f"Value {_d(data, value)} not in list {listed}"


def _msg_has_value(vals: list, shape: Shape, engine: Compiled) -> Callable[..., str]:
    the_set = [_s(engine.shapes, v) for v in vals]
    if (path := shape.path) is not None:
        return lambda data, focus, value: (f"Node {_d(data, focus)}->{_s(engine.shapes, path.node)} "
                                           f"does not contain a value in the set: {the_set}")
    return lambda data, focus, value: f"Node {_d(data, focus)} value is not a in the set of values: {the_set}"


def _msg_pattern(patterns: list) -> Callable[..., str]:
    if len(patterns) < 2:
        text = f"Value does not match pattern '{patterns[0].value}'"
    else:
        text = "Value does not match every pattern in ('{}')".format("', '".join(str(p.value) for p in patterns))
    return lambda data, focus, value: text


def _msg_node(refs: list, engine: Compiled) -> Callable[..., str]:
    if len(refs) < 2:
        text = f"Value does not conform to Shape {_s(engine.shapes, refs[0])}."
    else:
        text = "Value must conform to every Shape in ('{}').".format("', '".join(_s(engine.shapes, r) for r in refs))
    text += " See details for more information."
    return lambda data, focus, value: text


def _msg_not(nots: list, engine: Compiled) -> Callable[..., str]:
    if len(nots) == 1:
        return lambda data, focus, value: (f"Node {_d(data, value)} must not conform to shape "
                                           f"{_s(engine.shapes, nots[0])}")
    listed = " , ".join(_s(engine.shapes, n) for n in nots)
    return lambda data, focus, value: f"Node {_d(data, value)} must not conform to any shapes in {listed}"


def _msg_logic(lists: list, mode: str, engine: Compiled) -> Callable[..., str]:
    g = engine.shapes
    if len(lists) < 2:
        listed = " , ".join(_s(g, m) for m in g.items(lists[0]))
    else:
        listed = " and ".join("({})".format(" , ".join(_s(g, m) for m in g.items(lst))) for lst in lists)
    verb = "must conform to all shapes in" if mode == "all" else "must conform to one or more shapes in"
    return lambda data, focus, value: f"Node {_d(data, value)} {verb} {listed}"


def _msg_qualified(qvs: Node, lo: object, hi: object, engine: Compiled) -> Callable[..., str]:
    count = (f" MinCount {lo}" if lo is not None else "") + (f" MaxCount {hi}" if hi is not None else "")
    return lambda data, focus, value: f"Focus node does not conform to shape{count}: {_s(engine.shapes, qvs)}"

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

Here: compiling a shapes graph and evaluating it. The constraint components, each with its parameters, check and
message, are in ``kg.validate.components``; a compiled shape in ``kg.validate.shape``; the indexed data graph and
the results in ``kg.validate.data``.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import cast

from rdflib import RDF, RDFS, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import SH
from rdflib.term import Node

from .components import COMPONENTS, PARAMETERS, Compiling
from .data import Data, Hit
from .shape import INERT, Path, Shape, Unsupported, classes_of, implicit_class, sorted_terms

_TARGETS = (SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf, SH.targetNode)
# shape parameters this module knows (anything else in the sh: namespace leaves the shape to pySHACL): the targets,
# what every shape may say, and the parameters of the constraint components (``kg.validate.components``)
_KNOWN = {*_TARGETS, SH.property, SH.path, SH.severity, SH.message, SH.name, SH.description, SH.order, SH.group,
          SH.deactivated, SH.defaultValue, *PARAMETERS}


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
                for c in classes_of(self.rest) for s in self.rest.subjects(RDF.type, c)
                for p in self.rest.predicates(s))
        # the IRIs of the shapes as N-Triples tokens: data read from lines reuses these very objects, so looking
        # up a predicate or class of the shapes in the data's dictionaries finds it by identity (no __eq__ call)
        self.known = {f"<{t}>": t for triple in shapes for t in triple if isinstance(t, URIRef)}
        self.known.update({f"<{t}>": t for t in (RDF.type, RDFS.subClassOf)})
        self.backwards = {p for p, _ in self._all_steps() if _}
        self.target_preds = {o for r in self.roots for t, o in r.targets
                             if t in (SH.targetSubjectsOf, SH.targetObjectsOf)}
        # the predicates the compiled shapes read, as N-Triples tokens: the data lines of other predicates are not
        # indexed (about blank nodes all are: their messages describe them)
        self.read = {f"<{p}>" for p in {p for p, _ in self._all_steps()} | self.target_preds
                     | {RDF.type, RDFS.subClassOf}}

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
            if str(p).startswith(str(SH)) or p in self._custom or p not in INERT:
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
        if len(list(g.predicate_objects(node))) != 1:
            raise Unsupported("path")  # (a node that is two paths at once: pySHACL's reading of it)
        inv = g.value(node, SH.inversePath)
        if isinstance(inv, URIRef):
            return Path(node, ((inv, True),))
        alts = g.value(node, SH.alternativePath)
        if alts is not None:
            steps: list[tuple[URIRef, bool]] = []
            for item in Collection(g, alts):
                steps.extend(self._path(item).steps)
            return Path(node, tuple(steps))
        raise Unsupported("path")

    def _checks(self, shape: Shape, stack: tuple) -> None:
        """The checks of every constraint component the shape has parameters of, in ``COMPONENTS``' order."""
        compiling = Compiling(self, shape, lambda node: self._shape(node, stack))
        for component in COMPONENTS:
            component.compile(compiling)

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
        """Every result of the compiled shapes on ``data`` (each with its details); with ``only``, those whose
        focus node is one of these IRIs."""
        hits: list[Hit] = []
        for shape in self.roots:
            for focus in self.focus_nodes(data, shape):
                hits.extend(self.evaluate(data, shape, focus))
        if only is not None:
            hits = [h for h in hits if isinstance(h.focus, URIRef) and h.focus in only]
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


def _order(term: object) -> tuple:
    return (type(term).__name__, str(term))

"""The data graph as the SHACL Core engine (``kg.validate.core``) reads it, indexed once, and the results it gives."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from rdflib import RDF, RDFS, BNode, Graph, URIRef
from rdflib.term import Node

from .shape import Path


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

    def values(self, focus: object, path: Path) -> set:
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

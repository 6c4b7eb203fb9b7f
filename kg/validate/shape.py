"""A compiled shape of the SHACL Core engine (``kg.validate.core``): its path, its checks, its property and nested
shapes; and the reading of a shapes graph that every part of the engine shares.

>>> Path(URIRef("x:p"), ((URIRef("x:p"), True),)).steps[0][1]  # (x:p followed backwards: sh:inversePath x:p)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from rdflib import RDF, RDFS, Graph, URIRef
from rdflib.term import Identifier, Node

from .words import COUNTED

if TYPE_CHECKING:
    from .data import Data

# predicates a shape may carry that constrain nothing (annotations; anything else leaves the shape to pySHACL)
INERT = {RDF.type, RDFS.label, RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy, RDFS.subClassOf,
         URIRef("http://www.w3.org/2002/07/owl#versionInfo"), URIRef("http://www.w3.org/2004/02/skos/core#note"),
         URIRef("http://www.w3.org/2004/02/skos/core#definition"), URIRef("http://purl.org/dc/terms/description"),
         URIRef("http://purl.org/dc/terms/source"), URIRef("http://purl.org/dc/terms/title"), COUNTED}
_OWL_CLASS = URIRef("http://www.w3.org/2002/07/owl#Class")


class Unsupported(Exception):
    """A shape uses something this module does not evaluate: pySHACL keeps it."""


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


def sorted_terms(nodes: Iterable[Node]) -> list[Identifier]:
    """The terms of a graph in rdflib's order (rdflib types them Node, which declares no order; each is an
    Identifier, which does)."""
    return sorted(cast("Iterable[Identifier]", nodes))


def implicit_class(g: Graph, node: Node) -> bool:
    """Whether a node is a class (rdfs:Class, owl:Class or a subclass of rdfs:Class): as a shape, its instances
    are its targets (pySHACL's reading of SHACL's implicit class targets)."""
    classes = classes_of(g)
    return any(t in classes for t in g.objects(node, RDF.type))


def classes_of(g: Graph) -> set:
    """The classes whose instances are classes in ``g``: rdfs:Class, owl:Class and the subclasses of rdfs:Class."""
    return {RDFS.Class, _OWL_CLASS, *g.subjects(RDFS.subClassOf, RDFS.Class)}

"""What every constraint component of the SHACL Core engine shares: the shape being compiled, from which a component
reads its parameters and to which it adds its check and its generic message; and nodes written as pySHACL writes
them in messages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import SH
from rdflib.term import Node

from ..data import Data
from ..shape import Check, Shape, Unsupported

Message = Callable[..., str]  # (data, focus, value) -> the generic message of a result


class Engine(Protocol):
    """What a check asks of the engine: whether a node conforms to a shape (sh:node, sh:not, sh:and ...)."""

    shapes: Graph

    def conforms(self, data: Data, shape: Shape, focus: object) -> bool: ...


@dataclass
class Compiling:
    """One shape being compiled: its parameters in the shapes graph, the shapes it refers to, and its checks."""

    engine: Engine
    shape: Shape
    subshape: Callable[[Node], Shape]  # the compiled shape of a node it refers to (sh:node, sh:or ...)

    @property
    def g(self) -> Graph:
        return self.engine.shapes

    def values(self, p: URIRef) -> list[Node]:
        """The values of the parameter ``p`` of the shape, in the shapes graph's order."""
        return list(self.g.objects(self.shape.node, p))

    def one(self, p: URIRef) -> Node | None:
        """The one value of the parameter ``p`` (a count an integer literal), or None."""
        vals = self.values(p)
        if len(vals) > 1:
            raise Unsupported(f"several {p}")
        if vals and p in (SH.minCount, SH.maxCount, SH.qualifiedMinCount, SH.qualifiedMaxCount) and \
                not (isinstance(vals[0], Literal) and isinstance(vals[0].value, int)):
            raise Unsupported(f"non-integer {p}")
        return vals[0] if vals else None

    def list(self, node: Node) -> list:
        """The members of an RDF list of the shapes graph."""
        return list(Collection(self.g, node))

    def add(self, component: URIRef, check: Check, message: Message, details: Shape | None = None) -> None:
        """A check of the shape; ``details``, the shape whose results a failure nests (sh:node's sh:detail)."""
        self.shape.checks.append((component, check, message, details))


@dataclass(frozen=True)
class Component:
    """A constraint component: the parameters it reads and how it compiles them into a check of a shape."""

    parameters: tuple[URIRef, ...]
    compile: Callable[[Compiling], None]


# ---------------------------------------------------------------- nodes in generic messages (pySHACL's wording)

def shapes_node(graph: Graph, node: Node) -> str:
    """A node as pySHACL writes it in messages."""
    from pyshacl.rdfutil.stringify import stringify_node
    return stringify_node(graph, node)


def data_node(data: Data, node: Node) -> str:
    """A data-graph node as pySHACL writes it in messages (a blank node with what the graph says about it)."""
    from pyshacl.rdfutil.stringify import stringify_blank_node
    graph = data.namespaces
    if graph is None:
        graph = data.closure(node) if isinstance(node, BNode) else data.ns_graph()
    stringify_blank_node.dict_cache.clear()  # pySHACL caches by id(graph), which a later graph may reuse
    try:
        return shapes_node(graph, node)
    except (LookupError, ValueError):
        return str(node)


def fixed(text: str, arg: Node, shapes: Graph) -> Message:
    """A message that names one node of the shapes graph: ``text`` with it in place of ``{}``."""
    return lambda data, focus, value: text.format(shapes_node(shapes, arg))

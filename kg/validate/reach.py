"""What the shapes read beyond a focus node: the predicates along which a shape validates the value nodes in
depth (nested shapes, SPARQL patterns) or follows a path backwards. The sharded validation gives a node that
several records describe the lines these predicates reach."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rdflib import Graph, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from .shapes import shapes_of


def inverse_predicates(folder: Path | None) -> set[str]:
    """Predicates (as N-Triples tokens) that some shape follows backwards (sh:inversePath)."""
    return {f"<{p}>" for p in shapes_of(folder).objects(None, SH.inversePath) if isinstance(p, URIRef)}


_VALUE_SHAPES = (SH.node, SH.qualifiedValueShape, SH["not"])
_VALUE_LISTS = (SH["and"], SH["or"], SH.xone)


def _union(pairs: Iterable[tuple[set[str], set[str]] | None]) -> tuple[set[str], set[str]] | None:
    """The union of (forward, backward) predicate sets; None when one of them is None."""
    forward: set[str] = set()
    backward: set[str] = set()
    for pair in pairs:
        if pair is None:
            return None
        forward |= pair[0]
        backward |= pair[1]
    return forward, backward


def _simple_paths(shapes: Graph, path: Node) -> tuple[set[str], set[str]] | None:
    """(forward, backward) predicates of a path that is an IRI, an inverse IRI or alternatives of those;
    None for any other path."""
    from rdflib.collection import Collection
    if isinstance(path, URIRef):
        return {f"<{path}>"}, set()
    inverse = shapes.value(path, SH.inversePath)
    if isinstance(inverse, URIRef):
        return set(), {f"<{inverse}>"}
    alternatives = shapes.value(path, SH.alternativePath)
    if alternatives is not None:
        return _union(_simple_paths(shapes, member) for member in Collection(shapes, alternatives))
    return None


def _inner_paths(shapes: Graph, shape: Node, seen: set[Node]) -> tuple[set[str], set[str]] | None:
    """The predicates a value shape reads on the value nodes (and, nested, on theirs): (forward, backward), or
    None when it uses something this analysis does not follow (a complex path, a SPARQL constraint)."""
    from rdflib.collection import Collection
    if shape in seen:
        return set(), set()
    seen.add(shape)
    if (shape, SH.sparql, None) in shapes:
        return None
    members = [x for p in (*_VALUE_SHAPES, SH.property) for x in shapes.objects(shape, p)]
    members += [x for p in _VALUE_LISTS for lst in shapes.objects(shape, p) for x in Collection(shapes, lst)]
    path = shapes.value(shape, SH.path)
    own = [_simple_paths(shapes, path)] if path is not None else []
    return _union([*own, *(_inner_paths(shapes, member, seen) for member in members)])


RDF_TYPE = f"<{RDF.type}>"


def deep_predicates(folder: Path | None) -> tuple[set[str], set[str]] | None:
    """The predicates along which some shape validates the value nodes with more than their classes (sh:node,
    sh:qualifiedValueShape, logical constraints holding paths), forward and backward, with the predicates those
    nested shapes read in turn; None when the shapes do something this analysis does not follow. (Classes of
    value nodes are always at hand: see ``kg.validate.shards.ShardPlan``.)"""
    from rdflib.collection import Collection
    shapes = shapes_of(folder)
    forward: set[str] = set()
    backward: set[str] = set()
    for shape, path in shapes.subject_objects(SH.path):
        nested = [x for p in _VALUE_SHAPES for x in shapes.objects(shape, p)]
        nested += [x for p in _VALUE_LISTS for lst in shapes.objects(shape, p) for x in Collection(shapes, lst)]
        for member in nested:
            inner = _inner_paths(shapes, member, set())
            if inner is None:
                return None
            if not (inner[0] - {RDF_TYPE}) and not inner[1]:
                continue  # only the classes of the value nodes
            outer = _simple_paths(shapes, path)
            if outer is None:
                return None
            forward |= outer[0] | inner[0]
            backward |= outer[1] | inner[1]
    # a SPARQL constraint reads around its focus node what its graph pattern joins
    return _union([(forward, backward), *(_sparql_deep(shapes, c) for c in set(shapes.objects(None, SH.sparql)))])


def _sparql_deep(shapes: Graph, constraint: Node) -> tuple[set[str], set[str]] | None:
    """The predicates a SPARQL constraint's pattern follows from $this to a node it reads further: (forward,
    backward); None for a pattern this analysis does not follow (a property path or a variable predicate, a
    part not joined to $this)."""
    from rdflib import Variable

    from .sparql import _prefixes, patterns_of
    forward: set[str] = set()
    backward: set[str] = set()
    for text in (shapes.value(constraint, SH.select), shapes.value(constraint, SH.ask)):
        if text is None:
            continue
        patterns = patterns_of(_prefixes(shapes, constraint) + str(text))
        if any(not isinstance(p, URIRef) or not isinstance(s, Variable) for s, p, _o in patterns):
            return None  # a property path, a variable predicate or a fixed subject
        # every variable in subject position needs the lines about its node: reach it from $this, forward where
        # possible (backward along a predicate can fan out to every node that points at a popular one)
        ordered = sorted(patterns, key=str)
        subjects = {s for s, _p, _o in ordered}
        reached = {Variable("this"): 0}
        while True:
            grown = True
            while grown:
                grown = False
                for s, p, o in ordered:
                    if s in reached and isinstance(o, Variable) and o not in reached:
                        reached[o] = reached[s] + 1
                        grown = True
                        if o in subjects:
                            forward.add(f"<{p}>")
            step = sorted(((reached[o], str(p), s) for s, p, o in ordered if o in reached and s not in reached),
                          key=lambda x: (x[0], x[1]))
            if not step:
                break
            depth, p_text, s = step[0]
            reached[s] = depth + 1
            backward.add(f"<{p_text}>")
        if any(t not in reached for s, _p, o in ordered for t in (s, o) if isinstance(t, Variable)):
            return None
    return forward, backward


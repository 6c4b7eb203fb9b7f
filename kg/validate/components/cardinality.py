"""Cardinality: sh:minCount and sh:maxCount (SHACL 4.2; pySHACL's ``cardinality_constraints``): one component
each, made by ``_count_component`` (they differ only in the comparison and the word of the message)."""

from __future__ import annotations

import operator
from collections.abc import Callable

from rdflib import Literal, URIRef
from rdflib.namespace import SH

from ..shape import Check, Shape
from .base import Compiling, Component, Message, data_node, shapes_node


def _count_component(param: URIRef, component: URIRef, fails: Callable[[int, int], bool], word: str) -> Component:
    """sh:minCount (``fails`` <, "Less") or sh:maxCount (``fails`` >, "More"): a result when the number of value
    nodes ``fails`` against the count."""

    def compile_(c: Compiling) -> None:
        if (n := c.one(param)) is not None:
            assert isinstance(n, Literal)  # (one() checked that a count is an integer literal)
            c.add(component, _count(int(n), fails), _msg_count(word, n, c.shape, c))
    return Component((param,), compile_)


def _count(n: int, fails: Callable[[int, int], bool]) -> Check:
    return lambda data, focus, values: [(None, None)] if fails(len(values), n) else []


def _msg_count(word: str, n: Literal, shape: Shape, c: Compiling) -> Message:
    g = c.g
    if (path := shape.path) is not None:
        return lambda data, focus, value: (f"{word} than {n.value} values on {data_node(data, focus)}->"
                                           f"{shapes_node(g, path.node)}")
    return lambda data, focus, value: f"{word} than {n.value} values on {data_node(data, focus)}"


MIN_COUNT = _count_component(SH.minCount, SH.MinCountConstraintComponent, operator.lt, "Less")
MAX_COUNT = _count_component(SH.maxCount, SH.MaxCountConstraintComponent, operator.gt, "More")

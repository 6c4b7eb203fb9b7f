"""Other constraints: sh:in and sh:hasValue (SHACL 4.8; pySHACL's ``other_constraints``)."""

from __future__ import annotations

from rdflib.namespace import SH

from ..shape import Check, Shape
from .base import Compiling, Component, Message, data_node, shapes_node

# ---------------------------------------------------------------- sh:InConstraintComponent


def _compile_in(c: Compiling) -> None:
    for lst in c.values(SH["in"]):
        vals = c.list(lst)
        c.add(SH.InConstraintComponent, _in(set(vals)), _msg_in(vals, c))


def _in(allowed: set) -> Check:
    return lambda data, focus, values: [(None, v) for v in values if v not in allowed]


def _msg_in(vals: list, c: Compiling) -> Message:
    in_vals: set = set()
    for v in vals:  # pySHACL lists its set of values: the same set, built in the same order, iterates alike
        in_vals.add(v)
    listed = [shapes_node(c.g, v) for v in in_vals]
    return lambda data, focus, value: f"Value {data_node(data, value)} not in list {listed}"


IN = Component((SH["in"],), _compile_in)

# ---------------------------------------------------------------- sh:HasValueConstraintComponent


def _compile_has_value(c: Compiling) -> None:
    has = c.values(SH.hasValue)
    if has:
        c.add(SH.HasValueConstraintComponent, _has_value(has), _msg_has_value(has, c.shape, c))


def _has_value(wanted: list) -> Check:
    return lambda data, focus, values: [(None, None) for hv in wanted if not any(v == hv for v in values)]


def _msg_has_value(vals: list, shape: Shape, c: Compiling) -> Message:
    g = c.g
    the_set = [shapes_node(g, v) for v in vals]
    if (path := shape.path) is not None:
        return lambda data, focus, value: (f"Node {data_node(data, focus)}->{shapes_node(g, path.node)} "
                                           f"does not contain a value in the set: {the_set}")
    return lambda data, focus, value: f"Node {data_node(data, focus)} value is not a in the set of values: {the_set}"


HAS_VALUE = Component((SH.hasValue,), _compile_has_value)

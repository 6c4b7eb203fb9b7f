"""Shape-based constraints: sh:node and sh:qualifiedValueShape (SHACL 4.7; pySHACL's ``shape_based_constraints``)."""

from __future__ import annotations

from rdflib import Literal
from rdflib.namespace import SH
from rdflib.term import Node

from ..data import Data
from ..shape import Check, Shape, Unsupported
from .base import Compiling, Component, Engine, Message, shapes_node

# ---------------------------------------------------------------- sh:NodeConstraintComponent


def _compile_node(c: Compiling) -> None:
    refs = c.values(SH.node)
    for ref in refs:
        sub = c.subshape(ref)
        c.shape.nested.append(sub)
        c.add(SH.NodeConstraintComponent, _node(c.engine, sub), _msg_node(refs, c), sub)


def _node(engine: Engine, sub: Shape) -> Check:
    return lambda data, focus, values: [(None, v) for v in values if not engine.conforms(data, sub, v)]


def _msg_node(refs: list, c: Compiling) -> Message:
    if len(refs) < 2:
        text = f"Value does not conform to Shape {shapes_node(c.g, refs[0])}."
    else:
        text = "Value must conform to every Shape in ('{}').".format("', '".join(shapes_node(c.g, r) for r in refs))
    text += " See details for more information."
    return lambda data, focus, value: text


NODE = Component((SH.node,), _compile_node)

# ---------------------------------------------------------------- sh:QualifiedMin/MaxCountConstraintComponent


def _compile_qualified(c: Compiling) -> None:
    qvs = c.values(SH.qualifiedValueShape)
    if qvs:
        if len(qvs) > 1 or (c.shape.node, SH.qualifiedValueShapesDisjoint, None) in c.g:
            raise Unsupported("qualified value shapes")
        sub = c.subshape(qvs[0])
        c.shape.nested.append(sub)
        lo, hi = c.one(SH.qualifiedMinCount), c.one(SH.qualifiedMaxCount)
        if lo is None and hi is None:
            raise Unsupported("qualified value shape without a count")
        assert (lo is None or isinstance(lo, Literal)) and (hi is None or isinstance(hi, Literal))  # (integers)
        c.add(SH.QualifiedMinCountConstraintComponent,  # each result names min or max
              _qualified(c.engine, sub, None if lo is None else int(lo), None if hi is None else int(hi)),
              _msg_qualified(qvs[0], lo, hi, c))


def _qualified(engine: Engine, sub: Shape, lo: int | None, hi: int | None) -> Check:
    def check(data: Data, focus: object, values: set) -> list:
        n = sum(1 for v in values if engine.conforms(data, sub, v))
        out = []
        if hi is not None and n > hi:
            out.append((SH.QualifiedMaxCountConstraintComponent, None))
        if lo is not None and n < lo:
            out.append((SH.QualifiedMinCountConstraintComponent, None))
        return out
    return check


def _msg_qualified(qvs: Node, lo: object, hi: object, c: Compiling) -> Message:
    count = (f" MinCount {lo}" if lo is not None else "") + (f" MaxCount {hi}" if hi is not None else "")
    g = c.g
    return lambda data, focus, value: f"Focus node does not conform to shape{count}: {shapes_node(g, qvs)}"


QUALIFIED = Component((SH.qualifiedValueShape, SH.qualifiedMinCount, SH.qualifiedMaxCount), _compile_qualified)

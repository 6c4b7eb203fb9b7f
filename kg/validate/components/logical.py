"""Logical constraints: sh:not, sh:and and sh:or (SHACL 4.6; pySHACL's ``logical_constraints``)."""

from __future__ import annotations

from rdflib import URIRef
from rdflib.namespace import SH

from ..data import Data
from ..shape import Check, Shape
from .base import Compiling, Component, Engine, Message, data_node, shapes_node

# ---------------------------------------------------------------- sh:NotConstraintComponent


def _compile_not(c: Compiling) -> None:
    nots = c.values(SH["not"])
    if nots:
        subs = [c.subshape(n) for n in nots]
        c.shape.nested.extend(subs)
        c.add(SH.NotConstraintComponent, _not(c.engine, subs), _msg_not(nots, c))


def _not(engine: Engine, subs: list[Shape]) -> Check:
    return lambda data, focus, values: [(None, v) for s in subs for v in values if engine.conforms(data, s, v)]


def _msg_not(nots: list, c: Compiling) -> Message:
    g = c.g
    if len(nots) == 1:
        return lambda data, focus, value: (f"Node {data_node(data, value)} must not conform to shape "
                                           f"{shapes_node(g, nots[0])}")
    listed = " , ".join(shapes_node(g, n) for n in nots)
    return lambda data, focus, value: f"Node {data_node(data, value)} must not conform to any shapes in {listed}"


NOT = Component((SH["not"],), _compile_not)

# ---------------------------------------------------------------- sh:AndConstraintComponent, sh:OrConstraintComponent


def _logic_component(param: URIRef, component: URIRef, mode: str) -> Component:
    """sh:and (``mode`` "all": a value conforms to every shape of a list) or sh:or ("any": to one of them)."""

    def compile_(c: Compiling) -> None:
        lists = c.values(param)
        if lists:
            groups = [[c.subshape(m) for m in c.list(lst)] for lst in lists]
            for grp in groups:
                c.shape.nested.extend(grp)
            c.add(component, _logic(c.engine, groups, mode), _msg_logic(lists, mode, c))
    return Component((param,), compile_)


def _logic(engine: Engine, groups: list[list[Shape]], mode: str) -> Check:
    test = all if mode == "all" else any

    def check(data: Data, focus: object, values: set) -> list:
        return [(None, v) for grp in groups for v in values if not test(engine.conforms(data, s, v) for s in grp)]
    return check


def _msg_logic(lists: list, mode: str, c: Compiling) -> Message:
    g = c.g
    if len(lists) < 2:
        listed = " , ".join(shapes_node(g, m) for m in g.items(lists[0]))
    else:
        listed = " and ".join("({})".format(" , ".join(shapes_node(g, m) for m in g.items(lst))) for lst in lists)
    verb = "must conform to all shapes in" if mode == "all" else "must conform to one or more shapes in"
    return lambda data, focus, value: f"Node {data_node(data, value)} {verb} {listed}"


AND = _logic_component(SH["and"], SH.AndConstraintComponent, "all")
OR = _logic_component(SH["or"], SH.OrConstraintComponent, "any")

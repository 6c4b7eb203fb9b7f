"""Value range: sh:minInclusive, sh:maxInclusive, sh:minExclusive and sh:maxExclusive (SHACL 4.3; pySHACL's
``value_range_constraints``): one check each, compared as pySHACL compares literals."""

from __future__ import annotations

from rdflib import Literal, URIRef
from rdflib.namespace import SH

from ..shape import Check, Unsupported
from .base import Compiling, Component, fixed


def _range_component(param: URIRef, component: URIRef, op: str, text: str) -> Component:
    """The component of one bound: its parameter, the comparison a value must pass, its message."""

    def compile_(c: Compiling) -> None:
        bounds = c.values(param)
        if len(bounds) > 1:
            raise Unsupported("several bounds")
        if bounds:
            if not isinstance(bounds[0], Literal):
                raise Unsupported("bound")
            c.add(component, _range(bounds[0], op), fixed(text, bounds[0], c.g))
    return Component((param,), compile_)


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


MIN_INCLUSIVE = _range_component(SH.minInclusive, SH.MinInclusiveConstraintComponent, ">=", "Value is not >= {}")
MAX_INCLUSIVE = _range_component(SH.maxInclusive, SH.MaxInclusiveConstraintComponent, "<=", "Value is not <= {}")
MIN_EXCLUSIVE = _range_component(SH.minExclusive, SH.MinExclusiveConstraintComponent, ">", "Value is not > {}")
MAX_EXCLUSIVE = _range_component(SH.maxExclusive, SH.MaxExclusiveConstraintComponent, "<", "Value is not < {}")

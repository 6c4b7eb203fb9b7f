"""Value type: sh:class, sh:datatype and sh:nodeKind (SHACL 4.1; pySHACL's ``value_constraints``)."""

from __future__ import annotations

from datetime import date, datetime, time
from decimal import Decimal

from rdflib import RDF, RDFS, XSD, BNode, Literal, URIRef
from rdflib.namespace import SH

from ..data import Data
from ..shape import Check, Unsupported
from .base import Compiling, Component, Message, fixed, shapes_node

# ---------------------------------------------------------------- sh:ClassConstraintComponent


def _compile_class(c: Compiling) -> None:
    classes = c.values(SH["class"])
    for cls in classes:
        c.add(SH.ClassConstraintComponent, _class(cls), _msg_class(classes, c))


def _class(cls: object) -> Check:
    def check(data: Data, focus: object, values: set) -> list:
        bad = []
        for v in values:
            ok = False
            if not isinstance(v, Literal):
                for t in data.out.get(v, {}).get(RDF.type, ()):
                    if t == cls or cls in data.superclasses(t):
                        ok = True
                        break
            if not ok:
                bad.append((None, v))
        return bad
    return check


def _msg_class(classes: list, c: Compiling) -> Message:
    if len(classes) < 2:
        return fixed("Value does not have class {}", classes[0], c.g)
    rules = ", ".join(shapes_node(c.g, cls) for cls in classes)
    return lambda data, focus, value: f"Value class is not in classes ({rules})"


CLASS = Component((SH["class"],), _compile_class)

# ---------------------------------------------------------------- sh:DatatypeConstraintComponent

_PY_TYPES = {XSD.string: (str, bytes), RDF.langString: (str, bytes), XSD.integer: (int,), XSD.float: (float,),
             XSD.decimal: (Decimal,), XSD.boolean: (bool,), XSD.date: (date,), XSD.time: (time,),
             XSD.dateTime: (datetime,)}


def _compile_datatype(c: Compiling) -> None:
    if (dt := c.one(SH.datatype)) is not None:
        c.add(SH.DatatypeConstraintComponent, _datatype(dt), fixed("Value is not Literal with datatype {}", dt, c.g))


def _datatype(dt: object) -> Check:
    wanted = _PY_TYPES.get(dt)  # type: ignore[call-overload]

    def actual(v: Literal) -> bool:
        return wanted is None or isinstance(v.value, wanted)

    def matches(v: object) -> bool:
        if not isinstance(v, Literal):
            return False
        if v.datatype == dt:
            return False if getattr(v, "ill_typed", None) is True else actual(v)
        if dt == RDFS.Literal:
            return True
        if dt == RDFS.Datatype and v.datatype:
            return True
        if v.datatype is None and v.language is None and dt == XSD.string:
            return actual(v)
        if dt == RDF.langString and v.language:
            return actual(v)
        return False
    return lambda data, focus, values: [(None, v) for v in values if not matches(v)]


DATATYPE = Component((SH.datatype,), _compile_datatype)

# ---------------------------------------------------------------- sh:NodeKindConstraintComponent

_NODE_KINDS = {
    SH.IRI: (URIRef,), SH.BlankNode: (BNode,), SH.Literal: (Literal,), SH.BlankNodeOrIRI: (BNode, URIRef),
    SH.BlankNodeOrLiteral: (BNode, Literal), SH.IRIOrLiteral: (URIRef, Literal),
}


def _compile_node_kind(c: Compiling) -> None:
    if (kind := c.one(SH.nodeKind)) is not None:
        if kind not in _NODE_KINDS:
            raise Unsupported("node kind")
        assert isinstance(kind, URIRef)  # (the node kinds are IRIs)
        c.add(SH.NodeKindConstraintComponent, _node_kind(_NODE_KINDS[kind]),
              fixed("Value is not of Node Kind {}", kind, c.g))


def _node_kind(kinds: tuple) -> Check:
    return lambda data, focus, values: [(None, v) for v in values if not isinstance(v, kinds)]


NODE_KIND = Component((SH.nodeKind,), _compile_node_kind)

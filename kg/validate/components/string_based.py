"""String-based constraints: sh:pattern with sh:flags (SHACL 4.4; pySHACL's ``string_based_constraints``)."""

from __future__ import annotations

import re

from rdflib import RDF, XSD, BNode, Literal
from rdflib.namespace import SH

from ..data import Data
from ..shape import Check, Unsupported
from .base import Compiling, Component, Message

# ---------------------------------------------------------------- sh:PatternConstraintComponent


def _compile_pattern(c: Compiling) -> None:
    patterns = c.values(SH.pattern)
    if patterns:
        flags = next(iter(set(c.values(SH.flags))), None)
        c.add(SH.PatternConstraintComponent, _pattern(patterns, flags), _msg_pattern(patterns))


def _pattern(patterns: list, flags: object) -> Check:
    re_flags = 0
    if flags:
        text = str(flags.value).lower() if isinstance(flags, Literal) else str(flags).lower()
        re_flags |= re.I if "i" in text else 0
        re_flags |= re.M if "m" in text else 0
    compiled_ = []
    for p in patterns:
        if not isinstance(p, Literal):
            raise Unsupported("pattern")
        compiled_.append(re.compile(str(p.value) if p.value is not None and len(p.value) > 1 else str(p), re_flags))

    def text_of(v: object) -> str:
        if isinstance(v, Literal) and v.value is not None and v.datatype in (None, RDF.langString, XSD.string):
            return str(v.value)
        return str(v)

    def check(data: Data, focus: object, values: set) -> list:
        bad = []
        for rx in compiled_:
            for v in values:
                if isinstance(v, BNode) or not rx.search(text_of(v)):
                    bad.append((None, v))
        return bad
    return check


def _msg_pattern(patterns: list) -> Message:
    if len(patterns) < 2:
        text = f"Value does not match pattern '{patterns[0].value}'"
    else:
        text = "Value does not match every pattern in ('{}')".format("', '".join(str(p.value) for p in patterns))
    return lambda data, focus, value: text


PATTERN = Component((SH.pattern, SH.flags), _compile_pattern)

"""String-based constraints: sh:pattern with sh:flags, sh:uniqueLang (SHACL 4.4; pySHACL's
``string_based_constraints``)."""

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

# ---------------------------------------------------------------- sh:UniqueLangConstraintComponent


def _compile_unique_lang(c: Compiling) -> None:
    """Active only for ``true`` (SHACL 4.4.4: "1"^^xsd:boolean is another literal, and leaves it inactive, where
    pySHACL takes any literal whose value is true; W3C core/property/uniqueLang-002)."""
    flags = c.values(SH.uniqueLang)
    if not flags:
        return
    flag = flags[0]
    if len(flags) > 1 or c.shape.path is None or not (isinstance(flag, Literal) and isinstance(flag.value, bool)):
        raise Unsupported("sh:uniqueLang")  # pySHACL refuses the shape, in one error
    if flag.datatype == XSD.boolean and str(flag) == "true":
        c.add(SH.UniqueLangConstraintComponent, _unique_lang,
              lambda data, focus, value: "More than one String shares the same Language")


def _unique_lang(data: Data, focus: object, values: set) -> list:
    """One result (no value) per language tag two value nodes share, tags compared case-insensitively."""
    seen: set[str] = set()
    shared: set[str] = set()
    for v in values:
        if isinstance(v, Literal) and v.language:
            tag = v.language.lower()
            (shared if tag in seen else seen).add(tag)
    return [(None, None) for _ in sorted(shared)]


UNIQUE_LANG = Component((SH.uniqueLang,), _compile_unique_lang)

"""pySHACL, the reference engine: the call, its refusals as one InputError naming the shapes file, and the one
scoped rdflib patch that makes it fast (each SHACL-SPARQL text parsed once)."""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyshacl
from rdflib import Graph, URIRef

from ..errors import InputError
from .report import ValidationReport, collect, ordered

PARSED_MAX = 512  # parsed SPARQL texts kept between validations (a shapes graph has a few dozen)
_PARSED: dict[tuple[str, str | None, tuple], object] = {}
SHAPES_FILES: "weakref.WeakKeyDictionary[Graph, list[Path]]" = weakref.WeakKeyDictionary()  # graph -> its files


@contextmanager
def quiet_libraries() -> Iterator[None]:
    """rdflib and pySHACL log (with tracebacks) and warn about what they meet: ill-typed literals ("Failed to
    convert Literal lexical form"), shapes they read leniently. None of it reaches the user's terminal; what
    matters becomes a result or one error line."""
    import logging
    import warnings
    loggers = [logging.getLogger(n) for n in ("rdflib", "pyshacl")]
    levels = [(lg.level, lg.propagate) for lg in loggers]
    try:
        for lg in loggers:
            lg.setLevel(logging.CRITICAL + 1)
            lg.propagate = False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, (level, propagate) in zip(loggers, levels, strict=True):
            lg.setLevel(level)
            lg.propagate = propagate


@contextmanager
def _parsed_query_cache() -> Iterator[None]:
    """pySHACL runs each SHACL-SPARQL constraint once per focus node with the same text and $this bound
    by initBindings; rdflib parses the text every time, which is most of the validation time. Parse each
    distinct text once while validating (same algebra, same results). The patch holds only inside the context;
    the parses it keeps for the next validation are bounded (``PARSED_MAX``: past it, the cache starts again)."""
    from rdflib.plugins.sparql import processor

    original = processor.SPARQLProcessor.query
    cache = _PARSED
    if len(cache) > PARSED_MAX:
        cache.clear()

    def query(self, strOrQuery, initBindings=None, initNs=None, base=None, DEBUG=False):  # noqa: N803, ANN001
        if isinstance(strOrQuery, str):
            key = (strOrQuery, base, tuple(sorted((initNs or {}).items())))
            parsed = cache.get(key)
            if parsed is None:
                parsed = cache[key] = processor.translateQuery(processor.parseQuery(strOrQuery), base, initNs)
            strOrQuery = parsed
        return processor.evalQuery(self.graph, strOrQuery, initBindings, base)

    processor.SPARQLProcessor.query = query  # type: ignore[method-assign]
    try:
        yield
    finally:
        processor.SPARQLProcessor.query = original  # type: ignore[method-assign]


def run(data: Graph, shapes: Graph, **options: Any) -> tuple[bool, Graph]:  # (options: pySHACL's, passed on)
    """pySHACL's (conforms, report graph); its refusals (an ill-formed shape, a SPARQL constraint SHACL forbids)
    become one InputError naming the shapes."""
    from pyshacl.errors import ReportableRuntimeError, ShapeLoadError, ValidationFailure
    try:
        with quiet_libraries(), _parsed_query_cache():
            conforms, report, _text_report = pyshacl.validate(
                data, shacl_graph=shapes, inference="none", advanced=True, allow_warnings=False,
                abort_on_first=False, **options)
    except (ReportableRuntimeError, ShapeLoadError, NotImplementedError) as e:
        raise InputError(_where(shapes, _reason(e)), _reason(e), "fix the shape") from None
    if isinstance(report, ValidationFailure):
        raise InputError(_where(shapes, _reason(report)), _reason(report), "fix the shape")
    return bool(conforms), report


def _reason(e: Exception) -> str:
    """pySHACL's message as one lower-case clause ("a SPARQL constraint must not contain MINUS")."""
    text = getattr(e, "message", None) or str(e) or type(e).__name__
    text = " ".join(str(text).split()).rstrip(".")
    text = re.sub(r"^(Validation Failure|Shape Load Error|Constraint Load Error)\s*-\s*", "", text)
    text = re.sub(r"must not contain an? (\w+) clause", r"must not contain \1", text)
    text = text.replace("A SPARQL Constraint", "a SPARQL constraint")
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _where(shapes: Graph, reason: str) -> str:
    """The shapes file a refusal is about: the one file, or the file whose text has the clause it names."""
    files = SHAPES_FILES.get(shapes, [])
    if len(files) == 1:
        return str(files[0])
    words = [w for w in re.findall(r"[A-Z]{3,}|\$\w+", reason) if w != "SPARQL"]  # MINUS, $shapesGraph ...
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        if words and all(w in text for w in words):
            return str(f)
    return str(files[0].parent) if files else "the shapes"


def validate_pyshacl(data: Graph, shapes: Graph, only: set[URIRef] | None = None) -> ValidationReport:
    """Run pySHACL (no inference; the graph states its classes) and collect the results."""
    from pyshacl.rdfutil.stringify import stringify_blank_node
    stringify_blank_node.dict_cache.clear()  # keyed by id(graph): a new graph may reuse a freed one's id
    conforms, report = run(data, shapes)
    results = collect(report, shapes)
    if only is not None:
        wanted = {str(f) for f in only}
        results = [r for r in results if r.focus in wanted]
        conforms = not results
    return ValidationReport(bool(conforms), ordered(results), report)


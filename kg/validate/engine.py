"""SHACL validation of the graph with pySHACL, and the report in text, JSON or Turtle.

Shapes are the Turtle files of shapes/ (or a directory the user names). The report lists every result
with its severity, shape, focus node, path, value and message; the exit code follows the chosen
severity threshold: 0 nothing at or above it, 1 something is.
"""

from __future__ import annotations

import os
import re
import sys
import weakref
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import pyshacl
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH

from ..errors import InputError
from ..rdf.convert import rdflib_triples
from ..rdf.nquads import graph_of, split_quad, triple_key, triples_text
from ..infra.workers import quiet_worker
if TYPE_CHECKING:
    from .core import Hit
    from .sparql import RawResult
from ..resources import shapes_dir

SEVERITIES = {"violation": SH.Violation, "warning": SH.Warning, "info": SH.Info}
RANK = {SH.Violation: 0, SH.Warning: 1, SH.Info: 2}
NAMES = {SH.Violation: "Violation", SH.Warning: "Warning", SH.Info: "Info"}


@dataclass(frozen=True, slots=True)
class Result:
    severity: str  # Violation, Warning, Info
    shape: str  # IRI of the node shape (the property shape's parent when it has one)
    focus: str
    path: str | None
    value: str | None
    message: str
    constraint: str


@dataclass
class Report:
    conforms: bool
    results: list[Result]
    _graph: "Graph | Callable[[], Graph]" = field(repr=False)

    @property
    def graph(self) -> Graph:
        """The report as pySHACL's report graph (built when first asked for)."""
        if not isinstance(self._graph, Graph):
            self._graph = self._graph()
        return self._graph

    def count(self, severity: str) -> int:
        return sum(1 for r in self.results if r.severity == severity)

    def at_or_above(self, threshold: str) -> list[Result]:
        """The results at or above a severity; a severity of the shapes' own (SHACL allows any IRI) ranks below
        Info: only ``info`` shows it."""
        order = ["Violation", "Warning", "Info"]
        if threshold.capitalize() == "Info":
            return list(self.results)
        keep = order[: order.index(threshold.capitalize()) + 1]
        return [r for r in self.results if r.severity in keep]


def load_shapes(directory: Path | None = None) -> Graph:
    """Every .ttl file of the shapes directory, in one graph; bad shapes are an InputError."""
    folder = directory or shapes_dir()
    files = sorted(folder.glob("*.ttl")) if folder.is_dir() else []
    if not files:
        raise InputError(str(folder), "holds no shapes (.ttl files)", "give --shapes a folder of SHACL Turtle files")
    g = Graph()
    for f in files:
        try:
            with quiet_libraries():  # (rdflib logs a traceback for each ill-typed literal it reads)
                g.parse(f, format="turtle", publicID=f.resolve().as_uri())
        except Exception as e:  # rdflib raises many parser exception types
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise InputError(str(f), f"is not valid Turtle ({first})", "fix the shapes file") from None
    for pattern in g.objects(None, SH.pattern):
        try:
            re.compile(str(pattern))
        except re.error as e:
            where = next((str(f) for f in files if (None, SH.pattern, pattern) in Graph().parse(f)), str(folder))
            raise InputError(where, f"has an invalid sh:pattern {str(pattern)!r} ({e})",
                             "fix the regular expression") from None
    _SHAPES_FILES[g] = files
    return g


def data_graph(lines: list[str], prefixes: dict[str, str] | None = None) -> Graph:
    """The union of all graphs of canonical N-Quads lines, as an rdflib graph (with the prefixes its files
    declared)."""
    g = Graph()
    for prefix, ns in sorted((prefixes or {}).items()):
        g.bind(prefix, ns, override=True)
    g.parse(data=triples_text(lines), format="nt")
    return g


def _owner(shapes: Graph, shape: URIRef | BNode) -> URIRef | BNode:
    """The node shape a property shape or SPARQL constraint belongs to."""
    for p in (SH.property, SH.sparql):
        parent = next(shapes.subjects(p, shape), None)
        if parent is not None:
            return parent
    return shape


def _text(term: object) -> str | None:
    if term is None:
        return None
    if isinstance(term, BNode):
        return f"_:{term}"
    if isinstance(term, Literal):
        return str(term)
    return str(term)


def _path_text(report: Graph, path: object) -> str | None:
    if path is None:
        return None
    if isinstance(path, URIRef):
        return str(path)
    inv = report.value(path, SH.inversePath)
    if inv is not None:
        return f"^{inv}"
    alts = report.value(path, SH.alternativePath)
    if alts is not None:
        from rdflib.collection import Collection
        return "|".join(str(x) for x in Collection(report, alts))
    return "(complex path)"


_PARSED: dict[tuple[str, str | None, tuple], object] = {}


@contextmanager
def _parsed_query_cache() -> Iterator[None]:
    """pySHACL runs each SHACL-SPARQL constraint once per focus node with the same text and $this bound
    by initBindings; rdflib parses the text every time, which is most of the validation time. Parse each
    distinct text once while validating (same algebra, same results)."""
    from rdflib.plugins.sparql import processor

    original = processor.SPARQLProcessor.query
    cache = _PARSED

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
        for lg, (level, propagate) in zip(loggers, levels):
            lg.setLevel(level)
            lg.propagate = propagate


ENGINE_ENV = "KG_SHACL_ENGINE"  # fast (default), pyshacl (the reference), both (compare; tests), compiled (tests)


class Declined(Exception):
    """``engine="compiled"``: some shape is beyond the compiled engine (it answers exactly or not at all)."""


def _pyshacl_run(data: Graph, shapes: Graph, **options: object) -> tuple[bool, Graph]:
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


_SHAPES_FILES: "weakref.WeakKeyDictionary[Graph, list[Path]]" = weakref.WeakKeyDictionary()  # graph -> its files


def _where(shapes: Graph, reason: str) -> str:
    """The shapes file a refusal is about: the one file, or the file whose text has the clause it names."""
    files = _SHAPES_FILES.get(shapes, [])
    if len(files) == 1:
        return str(files[0])
    words = [w for w in re.findall(r"[A-Z]{3,}|\$\w+", reason) if w != "SPARQL"]  # MINUS, $shapesGraph ...
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        if words and all(w in text for w in words):
            return str(f)
    return str(files[0].parent) if files else "the shapes"


def validate(data: Graph | None, shapes: Graph, lines: list[str] | None = None, engine: str | None = None,
             only: set[URIRef] | None = None, prefixes: dict[str, str] | None = None) -> Report:
    """Validate ``data`` (the union graph; or None, and ``lines``, its canonical N-Quads, alone).

    The default engine evaluates the shapes it compiles (``kg.validate_core``) on dictionaries, the SHACL-SPARQL
    constraints it can on Oxigraph, and the rest with pySHACL; ``engine="pyshacl"`` runs everything with pySHACL,
    the reference; ``both`` runs both and fails unless their results are identical. ``only`` restricts the
    focus nodes (IRIs) whose results are kept: the same results as the whole graph's for them. (Not pySHACL's
    ``focus_nodes`` option: with it, pySHACL also skips nested shapes, such as sh:node's, on every other node,
    which then conform whatever they hold.) ``prefixes``: those of the files ``lines`` come from.
    ``engine="compiled"`` (tests) runs the compiled engine alone and raises ``Declined`` when some shape is
    beyond it."""
    with quiet_libraries():
        return _validate(data, shapes, lines, engine, only, prefixes)


def _validate(data: Graph | None, shapes: Graph, lines: list[str] | None, engine: str | None,
              only: set[URIRef] | None, prefixes: dict[str, str] | None) -> Report:
    engine = engine or os.environ.get(ENGINE_ENV, "fast")
    if engine == "pyshacl":
        return _validate_pyshacl(data if data is not None else data_graph(lines or [], prefixes), shapes, only)
    fast = _validate_fast(data, shapes, lines, only, compiled_only=engine == "compiled", prefixes=prefixes)
    if engine == "both":
        reference = _validate_pyshacl(data if data is not None else data_graph(lines or [], prefixes), shapes, only)
        if fast.results != reference.results or fast.conforms != reference.conforms:
            raise AssertionError(f"validation engines differ: fast {len(fast.results)} results, "
                                 f"pySHACL {len(reference.results)}: "
                                 f"{sorted(set(fast.results) ^ set(reference.results), key=str)[:3]}")
    return fast


def _validate_pyshacl(data: Graph, shapes: Graph, only: set[URIRef] | None = None) -> Report:
    """Run pySHACL (no inference; the graph states its classes) and collect the results."""
    from pyshacl.rdfutil.stringify import stringify_blank_node
    stringify_blank_node.dict_cache.clear()  # keyed by id(graph): a new graph may reuse a freed one's id
    conforms, report = _pyshacl_run(data, shapes)
    results = _collect(report, shapes)
    if only is not None:
        wanted = {str(f) for f in only}
        results = [r for r in results if r.focus in wanted]
        conforms = not results
    return Report(bool(conforms), _ordered(results), report)


def _validate_fast(data: Graph | None, shapes: Graph, lines: list[str] | None,
                   only: set[URIRef] | None = None, compiled_only: bool = False,
                   prefixes: dict[str, str] | None = None) -> Report:
    from . import core as validate_core
    from . import sparql as validate_sparql
    core, checks = validate_sparql.split(shapes)
    native = validate_core.compiled(core, shapes)
    if compiled_only and (native.rest_has_targets or checks):
        raise Declined(f"not compiled: {', '.join(sorted(map(str, native.declined))) or 'shapes with implicit targets'}"
                       + (f"; {len(checks)} SPARQL constraints on Oxigraph" if checks else ""))
    conforms, results, report = True, [], Graph()
    if native.rest_has_targets:  # shapes the compiled engine does not know: pySHACL on them
        if data is None:
            data = data_graph(lines or [], prefixes)
        if shapes in _SHAPES_FILES:
            _SHAPES_FILES[native.rest] = _SHAPES_FILES[shapes]
        # no inference, so nothing is added: no need for pySHACL's copy of the data
        conforms, report = _pyshacl_run(data, native.rest, inplace=True)
        results = _collect(report, shapes)
    triples = iter(data) if data is not None else rdflib_triples(lines or [], native.known)
    hits = native.run(native.data(triples, data, prefixes), only)
    results.extend(_core_result(core, shapes, hit) for hit in validate_core.flatten(hits))
    conforms = conforms and not hits
    raw = []
    if checks:
        store, literals = (validate_sparql.store_of(lines) if lines is not None
                           else validate_sparql.store_of(graph=data))
        raw = validate_sparql.run(store, checks, literals, {str(f) for f in only} if only is not None else None)
        results.extend(_sparql_result(core, r) for r in raw)
        conforms = conforms and not raw
    if only is not None:
        wanted = {str(f) for f in only}
        results = [r for r in results if r.focus in wanted]
        hits = [h for h in hits if str(h.focus) in wanted]
        raw = [r for r in raw if str(r.focus) in wanted]
        conforms = not results

    def graph() -> Graph:
        if (None, RDF.type, SH.ValidationReport) not in report:
            root = BNode()
            report.add((root, RDF.type, SH.ValidationReport))
            report.add((root, SH.conforms, Literal(True)))
        for hit in hits:
            _add_hit(report, None, hit)
        for r in raw:
            _add_result(report, SH.SPARQLConstraintComponent, r.check.shape, r.check.severity, r.focus, r.value,
                        r.path, r.message, r.check.constraint)
        for path in set(report.objects(None, SH.resultPath)):
            _copy_path(report, shapes, path)  # a complex path with its structure, as pySHACL writes it
        return report
    return Report(bool(conforms), _ordered(results), graph)


def _core_result(core: Graph, shapes: Graph, hit: "Hit") -> Result:
    owner = _owner(shapes, hit.shape)
    return Result(
        severity=NAMES.get(hit.severity, str(hit.severity)),
        shape=str(owner) if isinstance(owner, URIRef) else _text(owner) or "",
        focus=_text(hit.focus) or "",
        path=_path_text(core, hit.path),
        value=_text(hit.value),
        message=hit.message,
        constraint=str(hit.component),
    )


def _add_hit(report: Graph, parent: BNode | None, hit: "Hit") -> None:
    node = _add_result(report, hit.component, hit.shape, hit.severity, hit.focus, hit.value, hit.path, hit.message,
                       parent=parent)
    for sub in hit.details:
        _add_hit(report, node, sub)


def _copy_path(report: Graph, source: Graph, path: object, seen: set | None = None) -> None:
    """What the shapes graph says about a complex path (inverse, alternatives, sequences ...), into the report."""
    seen = set() if seen is None else seen
    if not isinstance(path, BNode) or path in seen:
        return
    seen.add(path)
    for p, o in source.predicate_objects(path):
        report.add((path, p, o))
        _copy_path(report, source, o, seen)


def _add_result(report: Graph, component: URIRef, shape: object, severity: object, focus: object, value: object,
                path: object, message: str, constraint: object = None, parent: BNode | None = None) -> BNode:
    """Record a result of the compiled engine or of Oxigraph in the report graph, as pySHACL would: a top-level
    sh:result, or (``parent``) a sh:detail of the result of the sh:node constraint it explains."""
    node = BNode()
    if parent is not None:
        report.add((parent, SH.detail, node))
    else:
        root = next(report.subjects(RDF.type, SH.ValidationReport), None)
        if root is not None:
            report.add((root, SH.result, node))
            report.set((root, SH.conforms, Literal(False)))
    report.add((node, RDF.type, SH.ValidationResult))
    report.add((node, SH.sourceConstraintComponent, component))
    report.add((node, SH.sourceShape, shape))
    report.add((node, SH.resultSeverity, severity))
    report.add((node, SH.focusNode, focus))
    if value is not None:
        report.add((node, SH.value, value))
    if path is not None:
        report.add((node, SH.resultPath, path))
    if constraint is not None:
        report.add((node, SH.sourceConstraint, constraint))
    report.add((node, SH.resultMessage, Literal(message)))
    return node


def _sparql_result(report: Graph, r: "RawResult") -> Result:
    return Result(
        severity=NAMES.get(r.check.severity, str(r.check.severity)),
        shape=str(r.check.shape) if isinstance(r.check.shape, URIRef) else _text(r.check.shape) or "",
        focus=_text(r.focus) or "",
        path=_path_text(report, r.path),
        value=_text(r.value),
        message=r.message,
        constraint=str(SH.SPARQLConstraintComponent),
    )


def _ordered(results: "Iterable[Result]") -> list[Result]:
    """Most severe first, then by shape, focus node, path, value and message."""
    return sorted(results, key=lambda x: (["Violation", "Warning", "Info"].index(x.severity)
                                          if x.severity in NAMES.values() else 3,
                                          x.shape, x.focus, x.path or "", x.value or "", x.message, x.constraint))


def shapes_conform_to_shacl_shacl(shapes: Graph) -> tuple[bool, str]:
    """Check the shapes graph against the SHACL-SHACL meta shapes that pySHACL ships."""
    from pyshacl.entrypoints import meta_validate
    conforms, _g, text = meta_validate(shapes, inference="rdfs")
    return bool(conforms), text


# ---------------------------------------------------------------- rendering

def short(iri: str | None) -> str:
    from ..rdf.vocab import Prefixer
    if iri is None:
        return ""
    return Prefixer().curie(iri) or iri


def render_text(report: Report, threshold: str) -> str:
    shown = report.at_or_above(threshold)
    lines = []
    by_shape: dict[tuple[str, str], list[Result]] = defaultdict(list)
    for r in shown:
        by_shape[(r.severity, r.shape)].append(r)
    for (severity, shape), results in by_shape.items():
        lines.append(f"{severity} {short(shape)}: {len(results)} result{'s' if len(results) != 1 else ''}")
        by_focus: dict[str, list[Result]] = defaultdict(list)
        for r in results:
            by_focus[r.focus].append(r)
        for focus, rs in by_focus.items():
            lines.append(f"  {focus}")
            for r in rs:
                where = f"{short(r.path)}" if r.path else "(node)"
                value = f" = {r.value!r}" if r.value is not None else ""
                lines.append(f"    {where}{value}: {r.message}")
    lines.append(f"{summary(report)} (showing {threshold} and above{_hidden(report, threshold)})")
    return "\n".join(lines) + "\n"


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def summary(report: Report) -> str:
    """"conforms" (no result of any severity, as SHACL's sh:conforms) or "does not conform", and the counts:
    the words ``kg validate`` and ``kg build`` both use."""
    counts = Counter(r.severity for r in report.results)
    return (f"{'conforms' if report.conforms else 'does not conform'}: {_n(counts['Violation'], 'violation')}, "
            f"{_n(counts['Warning'], 'warning')}, {_n(counts['Info'], 'info')}")


def see_all(report: Report, threshold: str = "violation") -> str:
    """The --severity that shows every result the report counts ("" when ``threshold`` already does)."""
    lowest = max((RANK.get(SEVERITIES.get(r.severity.lower()), 2) for r in report.results), default=0)
    wanted = ["violation", "warning", "info"][lowest]
    return "" if ["violation", "warning", "info"].index(threshold) >= lowest else wanted


def _hidden(report: Report, threshold: str) -> str:
    """What the counts hold that the report does not show, and how to see it."""
    wanted = see_all(report, threshold)
    if not wanted:
        return ""
    hidden = len(report.results) - len(report.at_or_above(threshold))
    return f"; {hidden} not shown: use --severity {wanted}"


def render_json(report: Report, threshold: str) -> str:
    counts = Counter(r.severity for r in report.results)
    doc = {
        "conforms": report.conforms,
        "counts": {"violation": counts["Violation"], "warning": counts["Warning"], "info": counts["Info"]},
        "results": [
            {"severity": r.severity, "shape": r.shape, "focus": r.focus, "path": r.path, "value": r.value,
             "message": r.message, "constraint": r.constraint}
            for r in report.at_or_above(threshold)
        ],
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"


def render_turtle(report: Report) -> str:
    return report.graph.serialize(format="turtle")


# ---------------------------------------------------------------- sharded validation

def _validate_lines(args: tuple[list[str], Graph | None, list[str] | None]) -> list[Result]:
    lines, shapes, focus = args
    shapes = shapes if shapes is not None else load_shapes()
    only = {URIRef(f) for f in focus} if focus is not None else None
    return validate(None, shapes, lines, only=only).results


def _validate_sharded_task(args: tuple[list[str], Path | None, list[str] | None],
                           ) -> tuple[list[str] | None, list[Result]]:
    lines, folder, focus = args
    return focus, _validate_lines((lines, _shapes_of(folder), focus))


_SHAPES_BY_FOLDER: dict[Path | None, Graph] = {}


def _shapes_of(folder: Path | None) -> Graph:
    """The shapes of a folder, parsed once per worker process."""
    if folder not in _SHAPES_BY_FOLDER:
        _SHAPES_BY_FOLDER[folder] = load_shapes(folder)
    return _SHAPES_BY_FOLDER[folder]


def _collect(report: Graph, shapes: Graph) -> list[Result]:
    out = []
    for r in report.subjects(RDF.type, SH.ValidationResult):
        source = report.value(r, SH.sourceShape)
        owner = _owner(shapes, source) if source is not None else None
        severity = report.value(r, SH.resultSeverity)
        message = report.value(r, SH.resultMessage)
        out.append(Result(
            severity=NAMES.get(severity, str(severity)),
            shape=str(owner) if isinstance(owner, URIRef) else _text(owner) or "",
            focus=_text(report.value(r, SH.focusNode)) or "",
            path=_path_text(report, report.value(r, SH.resultPath)),
            value=_text(report.value(r, SH.value)),
            message=str(message) if message is not None else "",
            constraint=str(report.value(r, SH.sourceConstraintComponent) or ""),
        ))
    return out


def _inverse_predicates(folder: Path | None) -> set[str]:
    """Predicates (as N-Triples tokens) that some shape follows backwards (sh:inversePath)."""
    return {f"<{p}>" for p in _shapes_of(folder).objects(None, SH.inversePath) if isinstance(p, URIRef)}


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


def _simple_paths(shapes: Graph, path: object) -> tuple[set[str], set[str]] | None:
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


def _inner_paths(shapes: Graph, shape: object, seen: set[object]) -> tuple[set[str], set[str]] | None:
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


_RDF_TYPE = f"<{RDF.type}>"


def _deep_predicates(folder: Path | None) -> tuple[set[str], set[str]] | None:
    """The predicates along which some shape validates the value nodes with more than their classes (sh:node,
    sh:qualifiedValueShape, logical constraints holding paths), forward and backward, with the predicates those
    nested shapes read in turn; None when the shapes do something this analysis does not follow. (Classes of
    value nodes are always at hand: see ``validate_sharded``.)"""
    from rdflib.collection import Collection
    shapes = _shapes_of(folder)
    forward: set[str] = set()
    backward: set[str] = set()
    for shape, path in shapes.subject_objects(SH.path):
        nested = [x for p in _VALUE_SHAPES for x in shapes.objects(shape, p)]
        nested += [x for p in _VALUE_LISTS for lst in shapes.objects(shape, p) for x in Collection(shapes, lst)]
        for member in nested:
            inner = _inner_paths(shapes, member, set())
            if inner is None:
                return None
            if not (inner[0] - {_RDF_TYPE}) and not inner[1]:
                continue  # only the classes of the value nodes
            outer = _simple_paths(shapes, path)
            if outer is None:
                return None
            forward |= outer[0] | inner[0]
            backward |= outer[1] | inner[1]
    # a SPARQL constraint reads around its focus node what its graph pattern joins
    return _union([(forward, backward), *(_sparql_deep(shapes, c) for c in set(shapes.objects(None, SH.sparql)))])


def _sparql_deep(shapes: Graph, constraint: object) -> tuple[set[str], set[str]] | None:
    """The predicates a SPARQL constraint's pattern follows from $this to a node it reads further: (forward,
    backward); None for a pattern this analysis does not follow (a property path or a variable predicate, a
    part not joined to $this)."""
    from rdflib import Variable
    from rdflib.plugins.sparql import prepareQuery

    from .sparql import _prefixes
    forward: set[str] = set()
    backward: set[str] = set()
    for text in (shapes.value(constraint, SH.select), shapes.value(constraint, SH.ask)):
        if text is None:
            continue
        patterns: set[tuple] = set()
        todo: list[object] = [prepareQuery(_prefixes(shapes, constraint) + str(text)).algebra]
        seen: set[int] = set()
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, dict):
                if isinstance(node.get("triples"), list):
                    patterns.update(tuple(t) for t in node["triples"])
                todo.extend(node.values())
            elif isinstance(node, (list, tuple)):
                todo.extend(node)
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


def validate_sharded(lines: list[str], shapes_dir_: Path | None, shared_graphs: set[str],
                     shard_size: int = 50, jobs: int = 1) -> Report:
    """Validate canonical N-Quads lines record by record, in shards that can run in parallel.

    Each shard holds the named graphs of ``shard_size`` records plus the triples of the shared graphs
    about the nodes those records mention. Nodes that several records describe (people with an ORCID iD,
    venues, publishers, funders ...) are validated once more with everything every record says about
    them, and only that pass reports on them; the shared graphs are validated on their own too. The
    union of the results is the whole-graph report (tests prove it on the seeds and the samples).
    """
    by_graph: dict[str, list[str]] = defaultdict(list)
    for line in lines:
        by_graph[graph_of(line)].append(line)
    shared = [line for g in sorted(shared_graphs) for line in by_graph.pop(g, [])]
    shared_by_subject: dict[str, list[str]] = defaultdict(list)
    for line in shared:
        shared_by_subject[line.split(" ", 1)[0]].append(line)
    subject_graphs: dict[str, set[str]] = defaultdict(set)
    for g, ls in by_graph.items():
        for line in ls:
            subject_graphs[line.split(" ", 1)[0]].add(g)
    multi = {s for s, gs in subject_graphs.items() if len(gs) > 1}
    backwards = _inverse_predicates(shapes_dir_)

    def with_shared(ls: list[str]) -> list[str]:
        """The lines with those of the shared graphs about their nodes, one line per triple (the graph names do
        not matter to validation; a node many records describe would come once per record)."""
        iris = {t for line in ls for t in split_quad(line)[::2] if t.startswith("<")}
        ls = ls + [x for iri in sorted(iris) for x in shared_by_subject.get(iri, ())]
        kept: dict[str, str] = {}
        for line in sorted(ls):  # the first line of each triple; the kept lines stay in sorted order
            kept.setdefault(triple_key(line), line)
        return list(kept.values())

    graphs = sorted(by_graph)

    def tasks() -> Iterator[tuple[list[str], list[str] | None]]:
        """(lines, focus nodes or None for all) per shard, made one at a time (memory stays bounded)."""
        for i in range(0, len(graphs), shard_size):
            ls = [line for g in graphs[i:i + shard_size] for line in by_graph[g]]
            yield with_shared(ls), None
        if multi:
            # each such node with everything any record says about it (and every line pointing at it), what is
            # said about the nodes its shapes validate in depth (sh:node and the like: a work's references; the
            # whole record graph it mostly comes from, its home, when the shapes are beyond that analysis), about
            # the other such nodes it points to, and the classes of every node at either end; in chunks of homes
            deep = _deep_predicates(shapes_dir_)
            followed = backwards | (deep[1] if deep else set())
            counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
            about: dict[str, list[str]] = defaultdict(list)
            back_of: dict[str, list[str]] = defaultdict(list)
            inbound: dict[str, dict[str, list[str]]] = defaultdict(dict)
            typed_by_subject: dict[str, dict[str, str]] = defaultdict(dict)
            for g, ls in by_graph.items():
                for line in ls:
                    subj, pred, obj, _g = split_quad(line)
                    about[subj].append(line)
                    if subj in multi:
                        counts[subj][g] += 1
                    if pred in followed:
                        back_of[obj].append(line)
                    if obj in multi and obj != subj:
                        # every inbound line of a predicate some shape follows backwards; one of any other
                        # (enough to make the node a target of sh:targetObjectsOf)
                        kept = inbound[obj].setdefault(pred, [])
                        if not kept or pred in backwards:
                            kept.append(line)
                    if pred == _RDF_TYPE:
                        typed_by_subject[subj].setdefault(sys.intern(obj), line)  # (one line per class)

            def reachable(start: list[str], forward: set[str], backward: set[str]) -> list[str]:
                seen, todo, out = set(start), list(start), []
                while todo:
                    node = todo.pop()
                    for line in about.get(node, ()):
                        out.append(line)
                        _s, pred, obj, _g = split_quad(line)
                        if pred in forward and obj not in seen and obj in about:
                            seen.add(obj)
                            todo.append(obj)
                    for line in back_of.get(node, ()):
                        out.append(line)
                        subj, pred, _o, _g = split_quad(line)
                        if pred in backward and subj not in seen:
                            seen.add(subj)
                            todo.append(subj)
                return out

            by_home: dict[str, list[str]] = defaultdict(list)
            for node, gs in counts.items():
                by_home[min(gs, key=lambda g: (-gs[g], g))].append(node)
            homes = sorted(by_home)
            for i in range(0, len(homes), shard_size):
                chunk = homes[i:i + shard_size]
                focus = sorted(n for h in chunk for n in by_home[h])
                if deep is None:
                    ls = {line for h in chunk for line in by_graph[h]}
                    ls.update(line for n in focus for line in about[n])
                    pointed = {split_quad(line)[2] for line in ls}
                    ls.update(line for m in pointed & multi for line in about[m])
                else:
                    ls = set(reachable(focus, *deep))
                ls.update(line for n in focus for kept in inbound[n].values() for line in kept)
                ends = {t for line in ls for t in split_quad(line)[::2]}
                ls.update(line for o in ends if o in typed_by_subject for line in typed_by_subject[o].values())
                yield with_shared(sorted(ls)), [m[1:-1] for m in focus]
        yield shared, None

    if jobs > 1:
        import gc
        import multiprocessing as mp
        gc.freeze()  # forked workers then leave the parent's objects alone (no copy-on-write by the collector)
        try:
            with mp.get_context("fork").Pool(jobs, initializer=quiet_worker) as pool:
                parts = list(pool.imap(_validate_sharded_task, ((ls, shapes_dir_, f) for ls, f in tasks())))
        finally:
            gc.unfreeze()
    else:
        shapes = load_shapes(shapes_dir_)
        parts = [(f, _validate_lines((ls, shapes, f))) for ls, f in tasks()]
    multi_plain = {m[1:-1] for m in multi}
    results: set[Result] = set()
    for focus, part in parts:
        results.update(r for r in part if focus is not None or r.focus not in multi_plain)
    ordered = _ordered(results)
    report_graph = Graph()
    return Report(not ordered, ordered, report_graph)


def violating_records(report: Report, lines: Iterable[str] | None, base: str) -> list[str]:
    """The DOIs of the records whose named graphs hold a focus node of a violation (sorted): the graph
    ``{base}graph/{doi}`` of each quad whose subject is such a node, else, without the lines, the DOI of a focus
    node that is a work (``https://doi.org/{doi}``)."""
    from urllib.parse import unquote

    from ..rdf.ids import Minter
    from ..rdf.terms import iri

    focus = {r.focus for r in report.results if r.severity == "Violation"}
    dois: set[str] = set()
    prefix = "<" + base + "graph/"
    shared = Minter(base).shared_graphs()
    if lines is not None:
        tokens = {"<" + f + ">" for f in focus}
        for line in lines:
            if line.split(" ", 1)[0] in tokens:
                g = graph_of(line)
                if g.startswith(prefix) and g not in shared:
                    dois.add(unquote(g[len(prefix):-1]))
    for f in focus:
        if (doi := Minter.doi_of(iri(f))) is not None:
            dois.add(unquote(doi))
    return sorted(dois)


def violation_message(report: Report, lines: Iterable[str] | None, base: str, limit: int = 5) -> str:
    """The one line a build that meets violations ends with: how many, the first, the records that have them,
    and what to do (the records' data is caught in normalize, so what remains is a mapping bug)."""
    n = report.count("Violation")
    first = next(r for r in report.results if r.severity == "Violation")
    dois = violating_records(report, lines, base)
    named = ", ".join(dois[:limit]) + (f" and {len(dois) - limit} more" if len(dois) > limit else "")
    where = f" in {len(dois)} record{'s' if len(dois) != 1 else ''} ({named})" if dois else ""
    return (f"the graph has {n} violation{'s' if n != 1 else ''} (first: {first.focus}: {first.message}){where};"
            " nothing was written; this is a mapping bug (or a shape of --shapes), not a problem of the records:"
            " please report it; to list every violation, run the build again with --allow-invalid, then"
            " 'kg validate'")

"""The validation report: its results, and the SHACL report graph they are read from or written into."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import Node

if TYPE_CHECKING:
    from .data import Hit
    from .sparql import RawResult
    from .words import FocusNode

SEVERITIES = {"violation": SH.Violation, "warning": SH.Warning, "info": SH.Info}
RANK: dict[Node | None, int] = {SH.Violation: 0, SH.Warning: 1, SH.Info: 2}
NAMES: dict[Node | None, str] = {SH.Violation: "Violation", SH.Warning: "Warning", SH.Info: "Info"}


@dataclass(frozen=True, slots=True)
class Result:
    severity: str  # Violation, Warning, Info
    shape: str  # IRI of the node shape (the property shape's parent when it has one)
    focus: str
    path: str | None
    value: str | None
    message: str
    constraint: str
    details: tuple["Result", ...] = ()  # the results that explain it (sh:detail: a failing sh:node's shape's)


@dataclass
class ValidationReport:
    conforms: bool
    results: list[Result]
    _graph: "Graph | Callable[[], Graph]" = field(repr=False)
    # the focus nodes' names and records (``kg.validate.words.nodes_of``), where the graph's lines were at hand
    nodes: "dict[str, FocusNode]" = field(default_factory=dict, repr=False, compare=False)

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


def _owner(shapes: Graph, shape: Node) -> Node:
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


def _path_text(report: Graph, path: Node | None) -> str | None:
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


def collect(report: Graph, shapes: Graph) -> list[Result]:
    """The results of a SHACL report graph (pySHACL's): its top-level ``sh:result``s, each with its
    ``sh:detail``s, as SHACL counts them."""
    roots = list(report.subjects(RDF.type, SH.ValidationReport))
    return [_collected(report, shapes, r, set()) for root in roots for r in report.objects(root, SH.result)]


def _collected(report: Graph, shapes: Graph, r: Node, seen: set[Node]) -> Result:
    seen.add(r)
    source = report.value(r, SH.sourceShape)
    owner = _owner(shapes, source) if source is not None else None
    severity = report.value(r, SH.resultSeverity)
    message = report.value(r, SH.resultMessage)
    details = [_collected(report, shapes, d, seen) for d in report.objects(r, SH.detail) if d not in seen]
    return Result(
        severity=NAMES.get(severity, str(severity)),
        shape=str(owner) if isinstance(owner, URIRef) else _text(owner) or "",
        focus=_text(report.value(r, SH.focusNode)) or "",
        path=_path_text(report, report.value(r, SH.resultPath)),
        value=_text(report.value(r, SH.value)),
        message=str(message) if message is not None else "",
        constraint=str(report.value(r, SH.sourceConstraintComponent) or ""),
        details=tuple(ordered(details)),
    )


def core_result(core: Graph, shapes: Graph, hit: "Hit") -> Result:
    owner = _owner(shapes, hit.shape)
    return Result(
        severity=NAMES.get(hit.severity, str(hit.severity)),
        shape=str(owner) if isinstance(owner, URIRef) else _text(owner) or "",
        focus=_text(hit.focus) or "",
        path=_path_text(core, hit.path),
        value=_text(hit.value),
        message=hit.message,
        constraint=str(hit.component),
        details=tuple(ordered(core_result(core, shapes, d) for d in hit.details)),
    )


def add_hit(report: Graph, parent: BNode | None, hit: "Hit") -> None:
    node = add_result(report, hit.component, hit.shape, hit.severity, hit.focus, hit.value, hit.path, hit.message,
                      parent=parent)
    for sub in hit.details:
        add_hit(report, node, sub)


def copy_path(report: Graph, source: Graph, path: object, seen: set | None = None) -> None:
    """What the shapes graph says about a complex path (inverse, alternatives, sequences ...), into the report."""
    seen = set() if seen is None else seen
    if not isinstance(path, BNode) or path in seen:
        return
    seen.add(path)
    for p, o in source.predicate_objects(path):
        report.add((path, p, o))
        copy_path(report, source, o, seen)


def add_result(report: Graph, component: URIRef, shape: Node, severity: Node, focus: Node, value: Node | None,
               path: Node | None, message: str, constraint: Node | None = None, parent: BNode | None = None) -> BNode:
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


def sparql_result(report: Graph, r: "RawResult") -> Result:
    return Result(
        severity=NAMES.get(r.check.severity, str(r.check.severity)),
        shape=str(r.check.shape) if isinstance(r.check.shape, URIRef) else _text(r.check.shape) or "",
        focus=_text(r.focus) or "",
        path=_path_text(report, r.path),
        value=_text(r.value),
        message=r.message,
        constraint=str(SH.SPARQLConstraintComponent),
    )


def ordered(results: "Iterable[Result]") -> list[Result]:
    """Most severe first, then by shape, focus node, path, value, message and details."""
    return sorted(results, key=_order)


def _order(x: Result) -> tuple:
    return (["Violation", "Warning", "Info"].index(x.severity) if x.severity in NAMES.values() else 3,
            x.shape, x.focus, x.path or "", x.value or "", x.message, x.constraint, [_order(d) for d in x.details])


def flattened(results: "Iterable[Result]") -> list[Result]:
    """Every result with its details after it, at any depth (what a report graph holds as sh:ValidationResult)."""
    out: list[Result] = []
    for r in results:
        out.append(r)
        out.extend(flattened(r.details))
    return out


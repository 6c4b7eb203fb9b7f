"""Validation results in plain words: what a shape says its results count (``kgsh:counted``), the focus nodes'
names and records, and the groups ``kg validate`` shows results in.

A shape says what its results count with ``kgsh:counted "person{s} without an ORCID iD"`` on a property shape, a
SPARQL constraint or a node shape (``{s}``: "s" in the plural; ``{its|their}``: singular|plural).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import SH

from ..rdf.nquads import graph_of, split_quad
from ..rdf.terms import literal_parts
from ..rdf.vocab import C4O, DCTERMS, RDFS, SDO, SKOS
from .report import Result

KGSH = "https://w3id.org/crossref-kg/shapes#"
COUNTED = URIRef(KGSH + "counted")  # (an annotation: the engines leave it alone, kg.validate.shape.INERT)
_CHOICE = re.compile(r"\{([^{}|]*)\|([^{}]*)\}")
_TEMPLATE_VAR = re.compile(r"\{[?$][A-Za-z_][A-Za-z0-9_]*\}")
# the predicates a focus node is named by, first found first; a label longer than LABEL_CHARS is cut
LABELS = (SDO.name, DCTERMS.title, RDFS.label, SKOS.prefLabel, C4O.hasContent)
LABEL_CHARS = 60


def counted(template: str, n: int) -> str:
    """``n`` and what a shape's results count, in the singular or plural.

    >>> counted("person{s} without an ORCID iD", 3), counted("work{s} issued after {its|their} deposit", 1)
    ('3 persons without an ORCID iD', '1 work issued after its deposit')
    """
    text = template.replace("{s}", "{|s}")
    return f"{n} " + _CHOICE.sub(lambda m: m.group(1) if n == 1 else m.group(2), text)


@dataclass(frozen=True, slots=True)
class Phrase:
    """What the results of one shape count: those of ``owner`` (a node shape's IRI) on ``path`` (None: any)
    whose message ``message`` matches (None: any)."""
    owner: str
    path: str | None
    message: re.Pattern[str] | None
    template: str


@dataclass(frozen=True)
class Words:
    """The phrases of a shapes graph: property shapes' and SPARQL constraints' first, then node shapes'."""
    phrases: tuple[Phrase, ...] = ()

    def template(self, r: Result) -> str | None:
        """What ``r`` counts (a ``kgsh:counted`` template), or None when its shape does not say."""
        for p in self.phrases:
            if p.owner == r.shape and (p.path is None or p.path == r.path) and (
                    p.message is None or p.message.fullmatch(r.message)):
                return p.template
        return None

    def phrase(self, r: Result, n: int, where: bool = True) -> str:
        """``3 persons without an ORCID iD``; when the shape does not say, ``3 results`` (``where``: ``3 on
        kgsh:PersonShape frapo:hasORCID``)."""
        if (t := self.template(r)) is not None:
            return counted(t, n)
        if not where:
            return f"{n} result{'s' if n != 1 else ''}"
        from .render import short
        return f"{n} on {short(r.shape)}" + (f" {short(r.path)}" if r.path else "")


NO_WORDS = Words()  # (shapes that say nothing: each result's message and shape)


def words_of(shapes: Graph) -> Words:
    """The ``kgsh:counted`` phrases of a shapes graph."""
    specific, general = [], []
    for node, text in sorted(shapes.subject_objects(COUNTED), key=lambda so: (str(so[1]), str(so[0]))):
        owner = next((s for p in (SH.property, SH.sparql) for s in shapes.subjects(p, node)), None)
        if owner is None:  # a node shape's own
            general.append(Phrase(str(node), None, None, str(text)))
            continue
        path = shapes.value(node, SH.path)
        message = shapes.value(node, SH.message)
        pattern = None
        if isinstance(message, Literal):
            pattern = re.compile(".*".join(re.escape(part) for part in _TEMPLATE_VAR.split(str(message))), re.S)
        specific.append(Phrase(str(owner), str(path) if isinstance(path, URIRef) else None, pattern, str(text)))
    return Words(tuple(specific + general))


@dataclass(frozen=True, slots=True)
class FocusNode:
    """A focus node as a person reads it: its name or title (None: it has none) and the DOI of its record."""
    label: str | None = None
    record: str | None = None


def nodes_of(lines: Iterable[str], focus: set[str]) -> dict[str, FocusNode]:
    """The label and record of each focus node (an IRI) from canonical N-Quads lines: the first of
    ``LABELS`` it has, and the DOI of the record graph (``{base}graph/{doi}``) it is described in."""
    tokens = {f"<{f}>" for f in focus}
    found: dict[str, dict[str, str]] = {}
    records: dict[str, str] = {}
    for line in lines:
        s = line[:line.index(" ")]
        if s not in tokens:
            continue
        _, p, o, _g = split_quad(line)
        if s not in records and (cut := (g := graph_of(line)).find("/graph/10.")) >= 0:
            records[s] = unquote(g[cut + 7:-1])
        if p in LABELS and o.startswith('"'):
            found.setdefault(s, {}).setdefault(p, literal_parts(o)[0])
    out = {}
    for s in tokens & (found.keys() | records.keys()):
        label = next((found[s][p] for p in LABELS if p in found.get(s, {})), None)
        if label is not None and len(label) > LABEL_CHARS:
            label = label[:LABEL_CHARS - 1].rstrip() + "…"
        out[s[1:-1]] = FocusNode(" ".join(label.split()) if label else None, records.get(s))
    return out


@dataclass
class Group:
    """The results of one shape (and path) that count the same thing, or share a message."""
    severity: str
    shape: str
    path: str | None
    results: list[Result] = field(default_factory=list)


def grouped(results: Iterable[Result], words: Words) -> list[Group]:
    """Results in groups, in the order of their first result: by severity, shape, path and what they count (the
    shape's phrase, else their message)."""
    groups: dict[tuple, Group] = {}
    for r in results:
        key = (r.severity, r.shape, r.path, words.template(r) or r.message)
        groups.setdefault(key, Group(r.severity, r.shape, r.path)).results.append(r)
    return list(groups.values())

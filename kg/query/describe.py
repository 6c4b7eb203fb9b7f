"""``kg describe TARGET``: one node of the graph in words: its facts with labelled predicates and objects, and the
evidence the knowledge layer recorded for it (topic assignments of a work, tool recognitions of the references that
cite a tool or that a work holds, the works of a topic, the references that cite a cited work)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import pyoxigraph as ox

from ..errors import KgError
from ..infra.text import printable
from ..rdf import vocab
from ..rdf.vocab import Prefixer
from ..resources import data_file
from .stored import DOI_FORM, _tool_ids, _topic_ids
from .text import query_prefixes


def _plain(term: object) -> str:
    """A vocabulary term's IRI, without the angle brackets of its N-Triples form."""
    return str(term).removeprefix("<").removesuffix(">")


KG = _plain(vocab.KG.base)
LABELS = tuple(map(_plain, (vocab.SDO.name, vocab.DCTERMS.title, vocab.SKOS.prefLabel, vocab.RDFS.label)))
PART, REFERENCES, IDENTIFIER = _plain(vocab.FRBR.part), _plain(vocab.BIRO.references), _plain(vocab.SDO.identifier)
SHOWN = 5  # values of one predicate shown before "and N more"


@dataclass
class Description:
    """A node in words: a heading (its label and short name), its IRI, facts (predicate label, object text) and
    evidence sections (a heading and its lines)."""

    heading: str
    iri: str
    facts: list[tuple[str, str]] = field(default_factory=list)
    evidence: list[tuple[str, list[str]]] = field(default_factory=list)


def target_iri(target: str, store: ox.Store) -> str:
    """The IRI ``target`` names: a DOI (``10.x/y``, ``doi:``, ``https://doi.org/``), ``tool:ID``, ``topic:ID``, a
    prefixed name, an IRI (``<...>`` or bare), or a bare tool or topic id (else a node whose schema:identifier it
    is); a KgError with a "did you mean" when nothing in the graph is called so."""
    v = target.strip()
    v = v[1:-1] if v.startswith("<") and v.endswith(">") else v
    prefixes = query_prefixes()
    if m := DOI_FORM.match(v):
        iri = "https://doi.org/" + m.group(1).lower()
        if _known(store, iri):
            return iri
        raise KgError(f"{m.group(1)}: no work or cited work of this DOI in the graph; 'kg query works' lists the "
                      "input works, 'kg query most-cited' the cited ones")
    prefix, sep, local = v.partition(":")
    if sep and prefix in ("tool", "topic"):
        return _named(store, prefix, local, target)
    if sep and prefix in prefixes and not local.startswith("//"):
        v = prefixes[prefix] + local
    elif not sep:
        for kind in ("tool", "topic"):
            if v in (_tool_ids() if kind == "tool" else _topic_ids()) and _known(store, prefixes[kind] + v):
                return prefixes[kind] + v
        found = sorted(_iri(q.subject) for q in store.quads_for_pattern(
            None, ox.NamedNode(IDENTIFIER), ox.Literal(v)) if isinstance(q.subject, ox.NamedNode))
        if found:
            return found[0]
        near = difflib.get_close_matches(v, sorted({*_graph_ids(store, "tool"), *_graph_ids(store, "topic")}), 3, 0.6)
        raise KgError(f"{target}: no tool, topic or node of this id in the graph; "
                      + (f"did you mean {', '.join(near)}? " if near else "")
                      + "give a DOI, tool:ID, topic:ID or an IRI ('kg tools' and 'kg topics' list the ids)")
    try:
        ox.NamedNode(v)
    except ValueError:  # (not an IRI pyoxigraph accepts)
        raise KgError(f"{target}: is not a DOI, tool:ID, topic:ID, an id or an IRI; give one of these") from None
    if _known(store, v):
        return v
    raise KgError(f"{target}: nothing in the graph has this IRI; give a DOI, tool:ID, topic:ID or an IRI of the graph")


def _known(store: ox.Store, iri: str) -> bool:
    """Whether the graph has ``iri`` as a subject or object (False for one no IRI can be: a DOI with a control
    character)."""
    try:
        node = ox.NamedNode(iri)
    except ValueError:
        return False
    return any(True for _ in store.quads_for_pattern(node, None, None, None)) or \
        any(True for _ in store.quads_for_pattern(None, None, node, None))


def _graph_ids(store: ox.Store, kind: str) -> list[str]:
    ns = query_prefixes()[kind]
    if kind == "topic":
        return list(_topic_ids())
    return sorted({_iri(q.subject)[len(ns):] for q in store.quads_for_pattern(
        None, ox.NamedNode(KG + "toolSource"), None) if _iri(q.subject).startswith(ns)})


def _iri(t: object) -> str:
    return t.value if isinstance(t, ox.NamedNode) else str(t)


def _named(store: ox.Store, kind: str, local: str, target: str) -> str:
    iri = query_prefixes()[kind] + local
    if _known(store, iri):
        return iri
    ids = _graph_ids(store, kind)
    near = difflib.get_close_matches(local.lower(), ids, 3, 0.6)
    listing = "'kg tools' lists the tools the graph cites" if kind == "tool" else "'kg topics' lists the topics"
    raise KgError(f"{target}: no {kind} of this id in the graph; "
                  + (f"did you mean {', '.join(f'{kind}:{n}' for n in near)}? " if near else "") + listing)


class _Reader:
    """Labels and short names of the terms of one store; a value without control characters (``printable``: it
    goes to a terminal, and an escape sequence in it must neither act nor swallow the rest of the line)."""

    def __init__(self, store: ox.Store) -> None:
        self.store = store
        self.prefixer = Prefixer(query_prefixes())
        self.predicates = _ontology_labels()

    def values(self, s: str, p: str) -> list[ox.NamedNode | ox.Literal | ox.BlankNode]:
        seen = {q.object for q in self.store.quads_for_pattern(ox.NamedNode(s), ox.NamedNode(p), None, None)}
        return sorted(seen, key=str)  # type: ignore[arg-type]

    def value(self, s: str, p: str) -> str:
        found = self.values(s, p)
        return printable(str(found[0].value)) if found else ""

    def subjects(self, p: str, o: str) -> list[str]:
        return sorted({_iri(q.subject) for q in self.store.quads_for_pattern(None, ox.NamedNode(p),
                                                                            ox.NamedNode(o), None)})

    def label(self, iri: str) -> str:
        for p in LABELS:
            if text := self.value(iri, p):
                return " ".join(text.split())
        return ""

    def short(self, iri: str) -> str:
        if iri.startswith("https://doi.org/"):
            return iri[len("https://doi.org/"):]
        return self.prefixer.curie(iri) or f"<{iri}>"

    def named(self, iri: str) -> str:
        """``PyTorch (tool:pytorch)``, or the short name alone for a node without a label."""
        label = self.label(iri)
        return f"{label} ({self.short(iri)})" if label else self.short(iri)

    def term(self, t: ox.NamedNode | ox.Literal | ox.BlankNode) -> str:
        if isinstance(t, ox.NamedNode):
            return self.named(t.value)
        if isinstance(t, ox.BlankNode):
            return f"_:{t.value}"
        return " ".join(printable(t.value).split())

    def predicate(self, iri: str) -> str:
        if iri in self.predicates:
            return self.predicates[iri]
        local = re.split(r"[#/]", iri)[-1]
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", local).lower() if local != "type" else "type"


def _ontology_labels() -> dict[str, str]:
    """The rdfs:label of each term of the project's ontology (kg/data/ontology.ttl)."""
    labels = {}
    for t in ox.parse(path=str(data_file("ontology.ttl")), format=ox.RdfFormat.TURTLE):
        if t.predicate.value == LABELS[3] and isinstance(t.object, ox.Literal):
            labels[str(t.subject.value)] = t.object.value
    return labels


def describe(target: str, store: ox.Store) -> Description:
    """``target`` (see ``target_iri``) described from the graph in ``store``."""
    iri = target_iri(target, store)
    r = _Reader(store)
    out = Description(r.named(iri), iri)
    facts: dict[str, list[str]] = {}
    for q in store.quads_for_pattern(ox.NamedNode(iri), None, None, None):
        text = r.term(q.object)  # type: ignore[arg-type]
        facts.setdefault(r.predicate(q.predicate.value), [])
        if text not in facts[r.predicate(q.predicate.value)]:
            facts[r.predicate(q.predicate.value)].append(text)
    for pred in sorted(facts):
        values = sorted(facts[pred])
        out.facts += [(pred, v) for v in values[:SHOWN]]
        if len(values) > SHOWN:
            out.facts.append((pred, f"... and {len(values) - SHOWN} more"))
    out.evidence = [(h, lines) for h, lines in _evidence(r, iri) if lines]
    return out


def _evidence(r: _Reader, iri: str) -> Iterable[tuple[str, list[str]]]:
    assignments = _ordered(r, [str(o.value) for o in r.values(iri, KG + "hasTopicAssignment")])
    yield "topics (method, score; evidence)", [f"{r.named(r.value(a, KG + 'topic'))}: {_assignment(r, a)}"
                                               for a in assignments]
    own = [(rec, ref) for ref in (str(o.value) for o in r.values(iri, PART))
           for rec in (str(o.value) for o in r.values(ref, KG + "hasToolRecognition"))]
    yield "tools its references cite (reference: method, score; matched)", sorted(
        f"{r.named(r.value(rec, KG + 'recognizedTool'))}, {_recognition(r, rec, ref)}" for rec, ref in own)
    recs = r.subjects(KG + "recognizedTool", iri)
    cited = [(ref, rec) for rec in recs for ref in r.subjects(KG + "hasToolRecognition", rec)]
    works = {w for ref, _ in cited for w in r.subjects(PART, ref)}
    yield (f"recognised in {len(cited)} references of {len(works)} works (work, reference: method, score; matched)",
           sorted(f"{r.named(w)}, {_recognition(r, rec, ref)}" for ref, rec in cited for w in r.subjects(PART, ref)))
    topical = r.subjects(KG + "topic", iri)
    yield "works of this topic (method, score; evidence)", sorted(
        f"{r.named(w)}: {_assignment(r, a)}" for a in topical
        for w in r.subjects(KG + "hasTopicAssignment", a))
    yield "cited by (work, reference)", sorted(
        f"{r.named(w)}, reference {r.value(ref, KG + 'referenceKey') or ref}"
        for ref in r.subjects(REFERENCES, iri) for w in r.subjects(PART, ref))


def _ordered(r: _Reader, assignments: list[str]) -> list[str]:
    """Topic assignments, the primary first, then by falling score."""
    return sorted(assignments, key=lambda a: (r.value(a, KG + "isPrimary") != "true",
                                              -float(r.value(a, KG + "score") or 0), a))


def _assignment(r: _Reader, a: str) -> str:
    """``primary, keywords, 0.62; title: profiling (2)``: a topic assignment's rank, method, score and evidence."""
    evidence = r.value(a, KG + "matchedText")
    return (f"{'primary' if r.value(a, KG + 'isPrimary') == 'true' else 'secondary'}, {r.value(a, KG + 'method')}, "
            f"{r.value(a, KG + 'score')}" + (f"; {' '.join(evidence.split())}" if evidence else ""))


def _recognition(r: _Reader, rec: str, ref: str) -> str:
    matched = r.value(rec, KG + "matchedText")
    return (f"reference {r.value(ref, KG + 'referenceKey') or ref}: {r.value(rec, KG + 'method')}, "
            f"{r.value(rec, KG + 'score')}" + (f'; "{" ".join(matched.split())}"' if matched else ""))

"""What the works share: the tools graph (the tools, tool candidates and named artifacts the references
cite), the organisation names of the knowledge graph, what references tell about cited works, and the topic
scheme. Both build drivers gather each work's share with ``add_shared`` and write it once with
``shared_lines``.

RDF: a tool is ``{base}tool/{id}``, typed schema:SoftwareApplication and fabio:Software, with its name,
schema:applicationCategory and kg:toolSource (catalogue: with aliases, vendor, homepage, Wikidata id and
defining papers (schema:subjectOf); references: ``{base}tool/named/{key}``, with kg:score and kg:citingWorks).
A tool candidate is ``{base}tool-candidate/{key}`` (kg:ToolCandidate); a model, dataset, benchmark suite or
algorithm is ``{base}{kind}/{id}`` (from the catalogue) or ``{base}{kind}/named/{key}`` (named by references; with
kg:score and kg:citingWorks), typed kg:MachineLearningModel, schema:Dataset, kg:BenchmarkSuite or fabio:Algorithm,
each also schema:CreativeWork. Organisation nodes get skos:prefLabel in ``{base}graph/knowledge``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model import Work
from ..rdf.ids import Minter
from ..rdf.nquads import quad, quads
from ..rdf.terms import XSD_GYEAR, XSD_INTEGER, lit, score_decimal
from ..rdf.vocab import FABIO, KG, RDF, SDO, SKOS, WIKIDATA
from ..refs.enrich import Shared
from ..refs.named import Named
from ..refs.resolve import CitedInfo
from ..refs.tools import Tool
from ..refs.topics import scheme_triples
from .common import Triple, url_obj
from .context import Context
from .contributors import org_names
from .knowledge import tool_node

Used = dict[tuple[str, str], Any]  # Shared, plus ("org-name", node + "\x1f" + name) -> works that write it


def add_shared(into: Used, work: Work, shared: Shared, minter: Minter) -> None:
    """Add one work's shared things (``Enriched.shared``) and organisation names to ``into``."""
    into.update(shared)
    for node, name in org_names(work, minter):
        key = ("org-name", f"{node}\x1f{name}")
        into[key] = into.get(key, 0) + 1


def merge_shared(into: Used, new: Used) -> None:
    """Add one chunk's shared things to the corpus's: organisation names are counted."""
    for k, v in new.items():
        into[k] = into.get(k, 0) + v if k[0] == "org-name" else v


def shared_lines(ctx: Context, used: Used, any_work: bool) -> Iterator[str]:
    """The tools graph, the organisation names (the spelling most records use) and the topic scheme."""
    tgraph = ctx.minter.shared_graph("tools")
    kgraph = ctx.minter.shared_graph("knowledge")
    names: dict[str, list[tuple[int, str]]] = {}
    for (kind, key), thing in sorted(used.items()):
        if kind == "org-name":
            node, name = key.split("\x1f", 1)
            names.setdefault(node, []).append((-thing, name))
            continue
        if kind == "tool":
            triples = tool_triples(ctx.minter, thing)
        elif kind == "candidate":
            triples = candidate_triples(ctx.minter, thing)
        else:
            triples = artifact_triples(ctx.minter, thing)
        yield from quads(triples, tgraph)
    for node, counted in sorted(names.items()):  # the spelling most records use (ties: code-point order)
        yield quad(node, SKOS.prefLabel, lit(min(counted)[1]), kgraph)
    if any_work:
        sgraph = ctx.minter.shared_graph("topics")
        yield from quads(scheme_triples(), sgraph)


def cited_triples(cited: list[CitedInfo], inputs: set[str]) -> list[Triple]:
    """What references tell about cited works no input record describes (name, URL, year), and
    preprint links; these sit in the graph ``{base}graph/knowledge`` in quad formats."""
    out = []
    for c in cited:
        if c.preprint_of:
            out.append((c.iri, KG.preprintOf, c.preprint_of))
        if c.iri in inputs:
            continue
        if c.name:
            out.append((c.iri, SDO.name, lit(c.name)))
        if c.url:
            out.append((c.iri, SDO.url, url_obj(c.url)))
        if c.year:
            out.append((c.iri, FABIO.hasPublicationYear, lit(c.year, XSD_GYEAR)))
    return out


ARTIFACT_TYPES = {
    "model": (KG.MachineLearningModel, SDO.CreativeWork),
    "dataset": (SDO.Dataset, SDO.CreativeWork),  # (not fabio:Dataset: a FaBiO Work-level node is realised by a DOI)
    "benchmark": (KG.BenchmarkSuite, SDO.CreativeWork),
    "algorithm": (FABIO.Algorithm, SDO.CreativeWork),
}


def _corpus_view(node: str, n: Named | Tool) -> list[Triple]:
    assert n.score is not None  # a tool named by references has the corpus's score
    return [(node, KG.score, score_decimal(n.score)), (node, KG.citingWorks, lit(str(n.works), XSD_INTEGER))]


def tool_triples(minter: Minter, t: Tool) -> list[Triple]:
    """The node of a catalogue entry (a tool, or a benchmark suite or algorithm cited like one), or of a tool
    named by the references that cite it."""
    node = tool_node(minter, t)
    types = (SDO.SoftwareApplication, FABIO.Software) if t.kind == "tool" else ARTIFACT_TYPES[t.kind]
    out: list[Triple] = [*((node, RDF.type, c) for c in types),
                         (node, SDO.name, lit(t.name)), (node, SDO.applicationCategory, lit(t.category)),
                         (node, SDO.identifier, lit(t.id)), (node, KG.toolSource, lit(t.source))]
    if t.source == "references":
        return out + _corpus_view(node, t)
    for alias in t.aliases:
        if alias != t.name:
            out.append((node, SDO.alternateName, lit(alias)))
    if t.vendor:
        out.append((node, KG.vendor, lit(t.vendor)))
    if t.homepage:
        out.append((node, SDO.url, url_obj(t.homepage)))
    if t.wikidata:
        out.append((node, SDO.sameAs, WIKIDATA[t.wikidata]))
    for doi in sorted(t.paper_dois):
        out.append((node, SDO.subjectOf, minter.doi(doi)))
    return out


def candidate_triples(minter: Minter, n: Named) -> list[Triple]:
    """The node of a tool candidate, with the name most references use."""
    node = minter.node("tool-candidate", n.key)
    return [(node, RDF.type, KG.ToolCandidate), (node, SDO.name, lit(n.name)),
            (node, SDO.applicationCategory, lit(n.category)), *_corpus_view(node, n)]


def artifact_triples(minter: Minter, n: Named) -> list[Triple]:
    """The node of a model, dataset, benchmark suite or algorithm named by the references that cite it."""
    node = tool_node(minter, n)
    return [*((node, RDF.type, c) for c in ARTIFACT_TYPES[n.kind]), (node, SDO.name, lit(n.name)),
            (node, KG.toolSource, lit("references")), *_corpus_view(node, n)]

"""Inferred knowledge about works and what they cite: topic assignments with evidence, tools, tool
candidates and other named artifacts.

RDF: work dcterms:subject its primary topic; work kg:hasTopicAssignment ``{base}doi/{doi}/topic/{id}``
(a kg:TopicAssignment with kg:topic, kg:isPrimary, kg:method, kg:score, kg:matchedText, and
kg:tiedWithPrimary true when it scored as high as the primary); work kg:inTopic each concept its primary topic
(or a topic tied with it) is or is narrower than: the sides of family questions, without property paths. A tool is ``{base}tool/{id}``, typed
schema:SoftwareApplication and fabio:Software, with its name, schema:applicationCategory and kg:toolSource
(catalogue: with aliases, vendor, homepage, Wikidata id and defining papers (schema:subjectOf); references:
``{base}tool/named/{key}``, named by the references that cite it, with kg:score and kg:citingWorks). A tool candidate is
``{base}tool-candidate/{key}`` (kg:ToolCandidate); a model, dataset, benchmark suite or algorithm is
``{base}{kind}/{id}`` (from the catalogue) or ``{base}{kind}/named/{key}`` (named by references; with kg:score
and kg:citingWorks), typed kg:MachineLearningModel, schema:Dataset, kg:BenchmarkSuite or
fabio:Algorithm, each also schema:CreativeWork.
"""

from __future__ import annotations

from ..rdf.ids import Minter
from ..model import Work
from ..refs.named import Named
from ..refs.tools import Tool
from ..refs.topics import concepts
from ..rdf.terms import XSD_INTEGER, boolean, decimal, lit
from ..rdf.vocab import DCTERMS, FABIO, KG, RDF, SDO, TOPIC, WIKIDATA
from .common import Triple, url_obj
from .context import Context, Knowledge


def map_topics(work: Work, ctx: Context, knowledge: Knowledge) -> list[Triple]:
    s = ctx.minter.doi(work.doi)
    out: list[Triple] = []
    by_id = {c.id: c for c in concepts()}
    families = {f for a in knowledge.topics if a.primary or a.tied and a.topic in by_id
                for f in (a.topic, *by_id[a.topic].ancestors)}
    for f in sorted(families):
        out.append((s, KG.inTopic, TOPIC[f]))
    for a in knowledge.topics:
        topic = TOPIC[a.topic]
        node = ctx.minter.part(work.doi, "topic", a.topic)
        if a.primary:
            out.append((s, DCTERMS.subject, topic))
        out += [(s, KG.hasTopicAssignment, node), (node, RDF.type, KG.TopicAssignment), (node, KG.topic, topic),
                (node, KG.isPrimary, boolean(a.primary)), (node, KG.method, lit(a.method)),
                (node, KG.score, decimal(f"{a.score:.2f}"))]
        if a.evidence:
            out.append((node, KG.matchedText, lit(a.evidence)))
        if a.tied and not a.primary:
            out.append((node, KG.tiedWithPrimary, boolean(True)))
    return out


ARTIFACT_TYPES = {
    "model": (KG.MachineLearningModel, SDO.CreativeWork),
    "dataset": (SDO.Dataset, SDO.CreativeWork),  # (not fabio:Dataset: a FaBiO Work-level node is realised by a DOI)
    "benchmark": (KG.BenchmarkSuite, SDO.CreativeWork),
    "algorithm": (FABIO.Algorithm, SDO.CreativeWork),
}


def named_tool(n: Named) -> Tool:
    """A tool the catalogue does not know, as the references that cite it name it."""
    return Tool(id=n.key, name=n.name, category=n.category, source="references", score=n.score, works=n.works)


def _corpus_view(node: str, n: Named | Tool) -> list[Triple]:
    return [(node, KG.score, decimal(f"{n.score:.2f}")), (node, KG.citingWorks, lit(str(n.works), XSD_INTEGER))]


def tool_node(minter: Minter, t: Tool | Named) -> str:
    """A catalogue entry is ``{base}tool/{id}`` (software) or ``{base}{kind}/{id}`` (a benchmark suite, an
    algorithm ...); what the references name is ``{base}tool/named/{key}`` or ``{base}{kind}/named/{key}``."""
    return minter.node(*tool_segments(t))


def tool_segments(t: Tool | Named) -> tuple[str, ...]:
    """The segments of ``tool_node`` under the base: (kind, id) or (kind, "named", key)."""
    kind = t.kind if isinstance(t, Tool) else t.kind
    key = t.id if isinstance(t, Tool) else t.key
    named = not isinstance(t, Tool) or t.source == "references"
    return (kind, "named", key) if named else (kind, key)


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

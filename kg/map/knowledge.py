"""Inferred knowledge about works and tools: topic assignments with evidence, and tool nodes.

RDF: work dcterms:subject its primary topic; work kg:hasTopicAssignment ``{base}doi/{doi}/topic/{id}``
(a kg:TopicAssignment with kg:topic, kg:isPrimary, kg:method, kg:score, kg:matchedText). A catalogue tool
is ``{base}tool/{id}``, typed schema:SoftwareApplication and fabio:Software, with its name, aliases,
schema:applicationCategory, vendor, homepage, Wikidata id and defining papers (schema:subjectOf).
"""

from __future__ import annotations

from ..ids import Minter
from ..model import Work
from ..refs.tools import Tool
from ..terms import boolean, decimal, lit
from ..vocab import DCTERMS, FABIO, KG, RDF, SDO
from .common import Triple, url_obj
from .context import Context, Knowledge


def map_topics(work: Work, ctx: Context, knowledge: Knowledge) -> list[Triple]:
    s = ctx.minter.doi(work.doi)
    out: list[Triple] = []
    for a in knowledge.topics:
        topic = f"<{a.iri}>"
        node = ctx.minter.part(work.doi, "topic", a.topic)
        if a.primary:
            out.append((s, DCTERMS.subject, topic))
        out += [(s, KG.hasTopicAssignment, node), (node, RDF.type, KG.TopicAssignment), (node, KG.topic, topic),
                (node, KG.isPrimary, boolean(a.primary)), (node, KG.method, lit(a.method)),
                (node, KG.score, decimal(f"{a.score:.2f}"))]
        if a.evidence:
            out.append((node, KG.matchedText, lit(a.evidence)))
    return out


def tool_triples(minter: Minter, t: Tool) -> list[Triple]:
    """The node of a catalogue tool."""
    node = minter.node("tool", t.id)
    out: list[Triple] = [(node, RDF.type, SDO.SoftwareApplication), (node, RDF.type, FABIO.Software),
                         (node, SDO.name, lit(t.name)), (node, SDO.applicationCategory, lit(t.category)),
                         (node, SDO.identifier, lit(t.id))]
    for alias in t.aliases:
        if alias != t.name:
            out.append((node, SDO.alternateName, lit(alias)))
    if t.vendor:
        out.append((node, KG.vendor, lit(t.vendor)))
    if t.homepage:
        out.append((node, SDO.url, url_obj(t.homepage)))
    if t.wikidata:
        out.append((node, SDO.sameAs, f"<http://www.wikidata.org/entity/{t.wikidata}>"))
    for doi in sorted(t.paper_dois):
        out.append((node, SDO.subjectOf, minter.doi(doi)))
    return out

"""A work's topics, and the node IRIs of the tools and named artifacts its references cite (their nodes are
written once, in the tools graph: ``kg.map.shared``).

RDF: work dcterms:subject its primary topic; work kg:hasTopicAssignment ``{base}doi/{doi}/topic/{id}``
(a kg:TopicAssignment with kg:topic, kg:isPrimary, kg:method, kg:score, kg:matchedText, and
kg:tiedWithPrimary true when it scored as high as the primary); work kg:inTopic each concept its primary topic
(or a topic tied with it) is or is narrower than: the sides of family questions, without property paths.
"""

from __future__ import annotations

from ..model import Work
from ..rdf.ids import Minter
from ..rdf.terms import boolean, lit, score_decimal
from ..rdf.vocab import DCTERMS, KG, RDF, TOPIC
from ..refs.enrich import Knowledge
from ..refs.named import Named
from ..refs.tools import Tool
from ..refs.topics import concepts
from .common import Triple
from .context import Context


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
                (node, KG.score, score_decimal(a.score))]
        if a.evidence:
            out.append((node, KG.matchedText, lit(a.evidence)))
        if a.tied and not a.primary:
            out.append((node, KG.tiedWithPrimary, boolean(True)))
    return out


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

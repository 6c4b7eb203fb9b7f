"""Pure mappers: a typed ``Work`` -> triples of N-Triples tokens, one module per concern.

``map_work(work, ctx)`` is the only entry point the pipeline calls; every mapper it runs takes plain
values and returns a list of ``(subject, predicate, object)`` tokens, with no shared state.
"""

from __future__ import annotations

from ..model import Work
from ..refs.enrich import Knowledge
from . import contributors, funding, provenance, references, relations, rights, venue
from . import knowledge as knowledge_mapper
from . import work as work_mapper
from .context import Context

Triple = tuple[str, str, str]

MAPPERS = (
    work_mapper.map_core,
    contributors.map_contributors,
    venue.map_venue,
    funding.map_funding,
    rights.map_rights,
    relations.map_relations,
    provenance.map_provenance,
)


def map_work(work: Work, ctx: Context, knowledge: Knowledge | None = None) -> list[Triple]:
    """All triples of one work record (duplicates possible; the sorter removes them).

    ``knowledge`` carries what cross-record stages inferred for this work (reference resolutions);
    without it every reference points to a cited-work node of its own.
    """
    out: list[Triple] = []
    for mapper in MAPPERS:
        out.extend(mapper(work, ctx))
    known = knowledge or Knowledge()
    out.extend(references.map_references(work, ctx, known))
    out.extend(knowledge_mapper.map_topics(work, ctx, known))
    return out

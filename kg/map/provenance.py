"""Where each work's triples came from: the source file (path as given, sha256) and the tool version.

Crossref -> RDF: the record's file -> a prov:Entity ``{base}source/{sha256}`` with kg:sourcePath and
kg:sha256; the work prov:wasDerivedFrom it and prov:wasAttributedTo the crossref-kg agent, whose
schema:softwareVersion is the only triple that changes with the version.
"""

from __future__ import annotations

from ..model import Work
from ..rdf.terms import lit
from ..rdf.vocab import KG, PROV, RDF, SDO
from .common import Triple
from .context import Context


def map_provenance(work: Work, ctx: Context) -> list[Triple]:
    s = ctx.minter.doi(work.doi)
    src = ctx.minter.node("source", work.source.sha256)
    agent = ctx.minter.node("agent", "crossref-kg")
    out: list[Triple] = [
        (s, PROV.wasDerivedFrom, src),
        (src, RDF.type, PROV.Entity),
        (src, RDF.type, KG.SourceFile),
        (src, KG.sourcePath, lit(work.source.path)),
        (src, KG.sha256, lit(work.source.sha256)),
        (s, PROV.wasAttributedTo, agent),
        (agent, RDF.type, PROV.SoftwareAgent),
        (agent, RDF.type, SDO.SoftwareApplication),
        (agent, SDO.name, lit("crossref-kg")),
        (agent, SDO.softwareVersion, lit(ctx.version)),
    ]
    if work.source.locator:
        out.append((s, KG.recordLine, lit(work.source.locator)))
    return out

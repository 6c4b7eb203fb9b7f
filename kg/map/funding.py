"""Funders, awards and (for grant records) the project, its funders and amounts.

Crossref -> RDF: funder[i] -> a frapo:FundingAgency ``{base}funder/doi/{funder-doi}`` (or
``funder/name/{hash}``) linked by frapo:hasFundingAgency and schema:funder; each award -> a frapo:Grant
``{base}grant/{funder-key}/{award}`` with frapo:hasGrantNumber and frapo:isAwardedBy, linked from the
work by frapo:isFundedBy and schema:funding.
"""

from __future__ import annotations

from ..model import Funder, Work
from ..rdf.ids import Minter, name_key
from ..rdf.terms import decimal, lit
from ..rdf.vocab import DCTERMS, FRAPO, KG, PRISM, RDF, SDO
from .common import Triple, add_str, date_lit
from .context import Context


def funder_node(m: Minter, f: Funder, fallback: tuple[str, ...]) -> tuple[str, str, list[Triple]]:
    """(node, key used in grant IRIs, triples) for a funder; ``fallback`` keys a funder with neither DOI nor name."""
    if f.doi:
        key_path: tuple[str, ...] = ("doi", f.doi)
    elif f.name:
        key_path = ("name", name_key(f.name))
    else:
        key_path = ("unnamed", name_key(*fallback))
    node = m.node("funder", *key_path)
    out: list[Triple] = [(node, RDF.type, FRAPO.FundingAgency), (node, RDF.type, SDO.Organization)]
    add_str(out, node, SDO.name, f.name)
    if f.doi:
        out += [(node, FRAPO.hasFunderIdentifier, lit(f.doi)), (node, SDO.sameAs, m.doi(f.doi))]
    return node, "/".join(key_path), out


def map_funding(work: Work, ctx: Context) -> list[Triple]:
    s = ctx.minter.doi(work.doi)
    m = ctx.minter
    out: list[Triple] = []
    for fi, f in enumerate(work.funders, start=1):
        node, key, triples = funder_node(m, f, (work.doi, "funder", str(fi)))
        out += triples
        out += [(s, FRAPO.hasFundingAgency, node), (s, SDO.funder, node)]
        if f.doi_asserted_by:
            out.append((node, KG.assertedBy, lit(f.doi_asserted_by)))
        for award in f.awards:
            grant = m.node("grant", *key.split("/", 1), award)
            out += [(grant, RDF.type, FRAPO.Grant), (grant, RDF.type, SDO.Grant),
                    (grant, FRAPO.hasGrantNumber, lit(award)), (grant, SDO.identifier, lit(award)),
                    (grant, FRAPO.isAwardedBy, node), (grant, SDO.funder, node),
                    (s, FRAPO.isFundedBy, grant), (s, SDO.funding, grant)]
    for pi, project in enumerate(work.projects, start=1):
        for i, title in enumerate(project.titles):
            main = i == 0 and pi == 1 and not work.titles  # the first project's first title names the grant
            out.append((s, DCTERMS.title if main else PRISM.alternateTitle, lit(title)))
            if main:
                out.append((s, SDO.name, lit(title)))
        if project.start:
            out.append((s, FRAPO.hasStartDate, date_lit(project.start)))
        if project.end:
            out.append((s, FRAPO.hasEndDate, date_lit(project.end)))
        for d in project.descriptions:
            out.append((s, SDO.description, lit(d)))
        if project.award_amount and (value := decimal(project.award_amount)):
            amount = m.part(work.doi, "project", str(pi), "amount")
            out += [(amount, RDF.type, SDO.MonetaryAmount), (s, SDO.amount, amount), (amount, SDO.value, value)]
            add_str(out, amount, SDO.currency, project.award_currency)
        for fi, funding in enumerate(project.fundings, start=1):
            node, _key, triples = funder_node(m, funding.funder, (work.doi, "project", str(pi), str(fi)))
            out += triples
            out += [(s, FRAPO.isAwardedBy, node), (s, SDO.funder, node)]
            share = m.part(work.doi, "project", str(pi), "funding", str(fi))
            out += [(share, RDF.type, SDO.MonetaryAmount), (share, SDO.funder, node), (s, SDO.amount, share)]
            if funding.amount and (value := decimal(funding.amount)):
                out.append((share, SDO.value, value))
            add_str(out, share, SDO.currency, funding.currency)
            add_str(out, share, KG.fundingType, funding.funding_type)
            add_str(out, share, KG.fundingScheme, funding.scheme)
            add_str(out, share, KG.fundingShare, funding.share)
    return out

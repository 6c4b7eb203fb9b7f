"""Contributors in order, with their roles, identities and per-authorship affiliations.

Crossref -> RDF: author[i] -> a pro:RoleInTime ``{base}doi/{doi}/author/{i+1}`` (pro:withRole pro:author,
kg:position i+1, pro:isHeldBy the agent, pro:relatesToDocument the work, pro:relatesToOrganization each
affiliation); the agent is ``{base}person/orcid/{orcid}`` when the ORCID is valid (shared across records),
else a node of that role; schema:author/editor/translator/contributor link work and agent directly.
"""

from __future__ import annotations

from ..model import Affiliation, Contributor, Institution, Work
from ..rdf.ids import Minter
from ..rdf.terms import XSD_INTEGER, boolean, iri_from_url, lit
from ..rdf.vocab import FOAF, FRAPO, KG, ORCID, PRO, RDF, ROR, SDO
from .common import Triple, add_str
from .context import Context
from .orgs import org_node, ror_id

PRO_ROLES = {
    "author": PRO.author, "editor": PRO.editor, "translator": PRO.translator, "chair": PRO.contributor,
    "investigator": PRO.contributor, "lead-investigator": PRO.contributor, "co-lead-investigator": PRO.contributor,
}
SCHEMA_ROLES = {"author": SDO.author, "editor": SDO.editor, "translator": SDO.translator}


def org_names(work: Work, minter: Minter) -> set[tuple[str, str]]:
    """(node, name as written) of every named organisation of a work: its authors' affiliations and its
    institutions (the corpus gives each node the name most records write, ``skos:prefLabel``)."""
    out = set()
    orgs: tuple[Affiliation | Institution, ...] = (*(a for c in work.contributors for a in c.affiliations),
                                                   *work.institutions)
    for a in orgs:
        if a.name:
            out.add((org_node(minter, a.name, a.ids, a.places, a.departments), a.name))
    for name in (*(work.event.sponsors if work.event else ()),
                 *(work.standards_body[:1] if work.standards_body else ())):
        out.add((org_node(minter, name, ()), name))
    return out


def organization(minter: Minter, name: str | None, ids: tuple[tuple[str, str, str | None], ...],
                 places: tuple[str, ...] = (), departments: tuple[str, ...] = (),
                 acronyms: tuple[str, ...] = ()) -> tuple[str, list[Triple]]:
    """An organisation node keyed by ROR when present, else by its name, places and departments."""
    node = org_node(minter, name, ids, places, departments)
    ror = next((r for i, kind, _ in ids if kind.upper() == "ROR" and (r := ror_id(i))), None)
    out: list[Triple] = [(node, RDF.type, SDO.Organization), (node, RDF.type, FOAF.Organization)]
    add_str(out, node, SDO.name, name)
    if ror:
        out.append((node, SDO.sameAs, ROR[ror]))
    for ident, kind, _by in ids:
        if kind.upper() == "ROR" and ror:
            continue
        url = iri_from_url(ident) if ident.startswith(("http://", "https://")) else None
        out.append((node, SDO.sameAs, url) if url else (node, SDO.identifier, lit(f"{kind}:{ident}")))
    for place in places:
        out.append((node, KG.place, lit(place)))
    for dept in departments:
        out.append((node, KG.department, lit(dept)))
    for acr in acronyms:
        out.append((node, FRAPO.hasAcronym, lit(acr)))
    return node, out


def affiliation_node(minter: Minter, aff: Affiliation) -> tuple[str, list[Triple]]:
    return organization(minter, aff.name, aff.ids, aff.places, aff.departments, aff.acronyms)


def institution_node(minter: Minter, inst: Institution) -> tuple[str, list[Triple]]:
    return organization(minter, inst.name, inst.ids, inst.places, inst.departments, inst.acronyms)


def _agent(ctx: Context, work: Work, c: Contributor, role_node: str) -> tuple[str, list[Triple]]:
    out: list[Triple] = []
    if c.orcid:
        agent = ctx.minter.node("person", "orcid", c.orcid)
    else:
        agent = ctx.minter.child(role_node, "agent")
    if c.is_person or not c.name:
        out += [(agent, RDF.type, SDO.Person), (agent, RDF.type, FOAF.Person)]
        add_str(out, agent, SDO.givenName, c.given)
        add_str(out, agent, SDO.familyName, c.family)
        add_str(out, agent, SDO.honorificSuffix, c.suffix)
        if c.display_name:
            out.append((agent, SDO.name, lit(c.display_name)))
    else:
        out += [(agent, RDF.type, SDO.Organization), (agent, RDF.type, FOAF.Organization),
                (agent, SDO.name, lit(c.name))]
    if c.orcid:
        out += [(agent, FRAPO.hasORCID, lit(c.orcid)), (agent, SDO.sameAs, ORCID[c.orcid])]
    return agent, out


def map_contributors(work: Work, ctx: Context) -> list[Triple]:
    """Every contributor of every role, ordered by kg:position within its role."""
    s = ctx.minter.doi(work.doi)
    out: list[Triple] = []
    for c in work.contributors:
        role = ctx.minter.part(work.doi, c.role, str(c.position))
        agent, agent_triples = _agent(ctx, work, c, role)
        out += agent_triples
        out += [
            (role, RDF.type, PRO.RoleInTime),
            (role, PRO.withRole, PRO_ROLES.get(c.role, PRO.contributor)),
            (role, PRO.isHeldBy, agent),
            (role, PRO.relatesToDocument, s),
            (role, KG.position, lit(str(c.position), XSD_INTEGER)),
            (role, KG.roleName, lit(c.role)),
            (s, SCHEMA_ROLES.get(c.role, SDO.contributor), agent),
        ]
        add_str(out, role, KG.sequence, c.sequence)
        if c.orcid and c.orcid_authenticated is not None:
            out.append((role, KG.orcidAuthenticated, boolean(c.orcid_authenticated)))
        for vocab_role in c.roles:
            if vocab_role not in (c.role, f"crossref:{c.role}"):
                out.append((role, KG.vocabularyRole, lit(vocab_role)))
        for aff in c.affiliations:
            org, org_triples = affiliation_node(ctx.minter, aff)
            out += org_triples
            out += [(role, PRO.relatesToOrganization, org), (agent, SDO.affiliation, org)]
    for inst in work.institutions:
        org, org_triples = institution_node(ctx.minter, inst)
        out += org_triples
        out.append((s, SDO.sourceOrganization, org))
    return out

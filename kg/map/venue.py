"""Where a work appeared: container (journal, proceedings, book, series), volume, issue, event, publisher.

Crossref -> RDF: container-title + ISSN/ISBN -> a container node ``{base}venue/issn/{issn}`` (or isbn/,
or title/{hash}) typed by the work type's container kind; journal volume and issue become their own
nodes linked by frbr:partOf / schema:isPartOf; event -> schema:Event; publisher + member -> an
organisation ``{base}publisher/member/{member}``.
"""

from __future__ import annotations

from ..model import Work
from ..rdf.ids import name_key
from ..rdf.terms import lit
from ..rdf.vocab import DCTERMS, FABIO, FOAF, FRAPO, FRBR, KG, PRISM, RDF, SDO
from .common import Triple, add_str, date_lit
from .context import Context
from .orgs import org_node


def _issn_triples(node: str, work: Work) -> list[Triple]:
    out = []
    for issn, kind in work.issns:
        out.append((node, PRISM.eIssn if kind == "electronic" else PRISM.issn, lit(issn)))
        out.append((node, SDO.issn, lit(issn)))
    return out


def _isbn_triples(node: str, work: Work) -> list[Triple]:
    out = []
    for isbn, _kind in work.isbns:
        out += [(node, PRISM.isbn, lit(isbn)), (node, SDO.isbn, lit(isbn))]
    return out


def map_venue(work: Work, ctx: Context) -> list[Triple]:  # noqa: C901 - one guard per optional field, in the order its triples are written
    """Container, volume and issue nodes, the event, and the publisher."""
    s = ctx.minter.doi(work.doi)
    m = ctx.minter
    out: list[Triple] = []
    info = ctx.type_info(work.type, work.subtype)
    kind = info.container
    container = None
    if work.container_titles or (work.issns and not info.isbn_on_work) or (work.isbns and not info.isbn_on_work):
        if work.issns:
            container = m.node("venue", "issn", work.issns[0][0])
        elif work.isbns and not info.isbn_on_work:
            container = m.node("venue", "isbn", work.isbns[0][0])
        else:
            container = m.node("venue", "title", name_key(kind, *work.container_titles[:1]))
        for cls in ctx.containers[kind]:
            out.append((container, RDF.type, cls))
        for i, title in enumerate(work.container_titles):
            if i == 0:
                out += [(container, SDO.name, lit(title)), (container, DCTERMS.title, lit(title))]
            else:
                out.append((container, SDO.alternateName, lit(title)))
        for short in work.short_container_titles:
            out += [(container, FABIO.hasShortTitle, lit(short)), (container, SDO.alternateName, lit(short))]
        out += _issn_triples(container, work)
        if not info.isbn_on_work:
            out += _isbn_triples(container, work)
        parent = container
        if kind == "journal" and work.volume and work.type not in ("journal-volume",):
            volume = m.child(container, "volume", work.volume)
            out += [(volume, RDF.type, FABIO.JournalVolume), (volume, RDF.type, SDO.PublicationVolume),
                    (volume, SDO.volumeNumber, lit(work.volume)), (volume, PRISM.volume, lit(work.volume)),
                    (volume, FRBR.partOf, parent), (volume, SDO.isPartOf, parent)]
            parent = volume
        if kind == "journal" and work.issue and work.type not in ("journal-issue", "journal-volume"):
            issue = m.child(parent, "issue", work.issue)
            out += [(issue, RDF.type, FABIO.JournalIssue), (issue, RDF.type, SDO.PublicationIssue),
                    (issue, SDO.issueNumber, lit(work.issue)), (issue, PRISM.issueIdentifier, lit(work.issue)),
                    (issue, FRBR.partOf, parent), (issue, SDO.isPartOf, parent)]
            for name, d in work.dates:
                if name == "journal-issue.published-print":
                    out.append((issue, KG.publishedPrint, date_lit(d)))
                elif name == "journal-issue.published-online":
                    out.append((issue, KG.publishedOnline, date_lit(d)))
            parent = issue
        out += [(s, FRBR.partOf, parent), (s, SDO.isPartOf, parent)]
    elif work.issns:
        out += _issn_triples(s, work)
    if info.isbn_on_work:
        out += _isbn_triples(s, work)

    if work.event:
        ev = work.event
        node = m.node("event", name_key(ev.name, ev.acronym, ev.start.lexical() if ev.start else None))
        out += [(node, RDF.type, SDO.Event), (node, SDO.workFeatured, s)]
        add_str(out, node, SDO.name, ev.name)
        add_str(out, node, SDO.alternateName, ev.acronym)
        add_str(out, node, SDO.location, ev.location)
        add_str(out, node, SDO.position, ev.number)
        add_str(out, node, SDO.description, ev.theme)
        if ev.start:
            out.append((node, SDO.startDate, date_lit(ev.start)))
        if ev.end:
            out.append((node, SDO.endDate, date_lit(ev.end)))
        for sponsor in ev.sponsors:
            org = org_node(m, sponsor, ())
            out += [(org, RDF.type, SDO.Organization), (org, RDF.type, FOAF.Organization),
                    (org, SDO.name, lit(sponsor)), (node, SDO.sponsor, org)]
        if container:
            out.append((node, SDO.recordedIn, container))

    if work.publisher or work.member:
        pub = (m.node("publisher", "member", work.member) if work.member
               else m.node("publisher", name_key(work.publisher)))
        out += [(pub, RDF.type, SDO.Organization), (pub, RDF.type, FOAF.Organization),
                (s, SDO.publisher, pub), (s, DCTERMS.publisher, pub)]
        add_str(out, pub, SDO.name, work.publisher)
        add_str(out, pub, KG.crossrefMember, work.member)
    add_str(out, s, FABIO.hasPlaceOfPublication, work.publisher_location)
    if work.standards_body:
        name, acronym = work.standards_body
        org = org_node(m, name, ())
        out += [(org, RDF.type, SDO.Organization), (org, RDF.type, FOAF.Organization), (org, SDO.name, lit(name)),
                (s, SDO.sourceOrganization, org)]
        add_str(out, org, FRAPO.hasAcronym, acronym)
    return out

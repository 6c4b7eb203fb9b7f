"""The work node itself: types, identifiers, titles, abstract, dates, pages, counts, subjects.

Crossref -> RDF: DOI -> IRI https://doi.org/{doi} + prism:doi; type -> FaBiO Expression class + schema.org
class (+ a separate FaBiO Work-level node via frbr:realizationOf); title -> dcterms:title/schema:name;
issued -> dcterms:issued/schema:datePublished (+ fabio:hasPublicationYear), precision in the datatype.
"""

from __future__ import annotations

from ..model import Work
from ..rdf.terms import XSD_ANYURI, XSD_DATETIME, XSD_INTEGER, XSD_LANGUAGE, boolean, lit
from ..rdf.vocab import DCTERMS, FABIO, FRAPO, FRBR, KG, PRISM, RDF, SDO
from .common import Triple, add_str, date_lit, url_obj, year_lit
from .context import Context

# Crossref date field -> properties that carry it on the work (precision kept in the datatype).
DATE_PROPERTIES: dict[str, tuple[str, ...]] = {
    "issued": (DCTERMS.issued, SDO.datePublished),
    "published": (PRISM.publicationDate,),
    "published-print": (KG.publishedPrint,),
    "published-online": (KG.publishedOnline,),
    "posted": (KG.postedDate,),
    "accepted": (DCTERMS.dateAccepted,),
    "approved": (KG.approvedDate,),
    "content-created": (KG.contentCreated, SDO.dateCreated),
    "content-updated": (KG.contentUpdated, SDO.dateModified),
    "award-start": (FRAPO.hasStartDate,),
    "award-end": (FRAPO.hasEndDate,),
}
RECORD_DATE_PROPERTIES = {"created": KG.recordCreated, "deposited": KG.recordDeposited, "indexed": KG.recordIndexed}
REVIEW_PROPERTIES = {
    "type": KG.reviewType, "recommendation": KG.reviewRecommendation, "revision-round": KG.reviewRound,
    "stage": KG.reviewStage, "running-number": KG.reviewRunningNumber,
    "competing-interest-statement": KG.reviewCompetingInterest, "language": KG.reviewLanguage,
}


def map_core(work: Work, ctx: Context) -> list[Triple]:  # noqa: C901 - one guard per optional field, in the order its triples are written
    """Types, identifiers, titles, abstract, language, URLs, dates, pages, counts and record metadata."""
    s = ctx.minter.doi(work.doi)
    out: list[Triple] = []
    info = ctx.type_info(work.type, work.subtype)
    for cls in (info.expression, *info.schema, *info.extra):
        if cls:
            out.append((s, RDF.type, cls))
    if info.work_level:
        w = ctx.minter.node("work", work.doi)
        out += [(w, RDF.type, info.work_level), (s, FRBR.realizationOf, w)]
    out.append((s, PRISM.doi, lit(work.doi_verbatim)))
    out.append((s, KG.crossrefType, lit(work.type)))
    for path, value in work.as_written:
        out.append((s, KG.asWritten, lit(f"{path}: {value}")))
    add_str(out, s, KG.crossrefSubtype, work.subtype)
    add_str(out, s, KG.doiPrefix, work.prefix)
    for alt in work.alternative_ids:
        out.append((s, DCTERMS.identifier, lit(alt)))
    for alias in work.aliases:
        out.append((s, SDO.sameAs, ctx.minter.doi(alias)))

    for i, title in enumerate(work.titles):
        if i == 0:
            out += [(s, DCTERMS.title, lit(title)), (s, SDO.name, lit(title))]
        else:
            out.append((s, PRISM.alternateTitle, lit(title)))
    for sub in work.subtitles:
        out += [(s, FABIO.hasSubtitle, lit(sub)), (s, SDO.alternativeHeadline, lit(sub))]
    for short in work.short_titles:
        out.append((s, FABIO.hasShortTitle, lit(short)))
    for orig in work.original_titles:
        out.append((s, KG.originalTitle, lit(orig)))
    if work.abstract:
        out += [(s, DCTERMS.abstract, lit(work.abstract)), (s, SDO.abstract, lit(work.abstract))]
    if work.description:
        out += [(s, DCTERMS.description, lit(work.description)), (s, SDO.description, lit(work.description))]
    if work.version:
        out += [(s, PRISM.versionIdentifier, lit(work.version)), (s, SDO.version, lit(work.version))]
    if work.language:
        out += [(s, DCTERMS.language, lit(work.language, XSD_LANGUAGE)), (s, SDO.inLanguage, lit(work.language))]
    if work.url:
        out.append((s, SDO.url, url_obj(work.url)))
    if work.resource_url:
        out.append((s, FABIO.hasURL, lit(work.resource_url, XSD_ANYURI)))

    for name, d in work.dates:
        if name.startswith("journal-issue."):
            continue  # on the issue node (venue mapper)
        for p in DATE_PROPERTIES[name]:
            out.append((s, p, date_lit(d)))
        if name == "issued":
            out.append((s, FABIO.hasPublicationYear, year_lit(d)))
    for name, dt in work.record_dates:
        out.append((s, RECORD_DATE_PROPERTIES[name], lit(dt, XSD_DATETIME)))

    if work.page:
        out += [(s, PRISM.pageRange, lit(work.page)), (s, SDO.pagination, lit(work.page))]
    if work.page_start:
        out += [(s, PRISM.startingPage, lit(work.page_start)), (s, SDO.pageStart, lit(work.page_start))]
    if work.page_end:
        out += [(s, PRISM.endingPage, lit(work.page_end)), (s, SDO.pageEnd, lit(work.page_end))]
    if work.article_number:
        out.append((s, FABIO.hasElectronicArticleIdentifier, lit(work.article_number)))
    add_str(out, s, PRISM.volume, work.volume)
    add_str(out, s, PRISM.issueIdentifier, work.issue)
    if work.type == "journal-issue" and work.issue:
        out.append((s, SDO.issueNumber, lit(work.issue)))
    if work.type == "journal-volume" and work.volume:
        out.append((s, SDO.volumeNumber, lit(work.volume)))
    if work.edition:
        out += [(s, PRISM.edition, lit(work.edition)), (s, SDO.bookEdition, lit(work.edition))]
    add_str(out, s, KG.partNumber, work.part_number)
    add_str(out, s, KG.componentNumber, work.component_number)
    for subject in work.subjects:
        out += [(s, PRISM.keyword, lit(subject)), (s, SDO.keywords, lit(subject))]
    for degree in work.degrees:
        out.append((s, SDO.inSupportOf, lit(degree)))
    add_str(out, s, KG.groupTitle, work.group_title)
    for archive in work.archives:
        out.append((s, KG.archive, lit(archive)))

    if work.reference_count is not None and work.reference_count >= 0:
        out.append((s, KG.referenceCount, lit(str(work.reference_count), XSD_INTEGER)))
    if work.cited_by_count is not None and work.cited_by_count >= 0:
        out.append((s, KG.citedByCount, lit(str(work.cited_by_count), XSD_INTEGER)))
    for domain in work.content_domains:
        out.append((s, KG.contentDomain, lit(domain)))
    if work.crossmark_restriction is not None:
        out.append((s, KG.crossmarkRestriction, boolean(work.crossmark_restriction)))
    if work.update_policy:
        out.append((s, KG.updatePolicy, url_obj(work.update_policy)))
    if work.award:
        out.append((s, FRAPO.hasGrantNumber, lit(work.award)))
    for key, value in work.review:
        if key in REVIEW_PROPERTIES:
            out.append((s, REVIEW_PROPERTIES[key], lit(value)))
    if work.free_to_read:
        start, end = work.free_to_read
        if start:
            out.append((s, KG.freeToReadStart, date_lit(start)))
        if end:
            out.append((s, KG.freeToReadEnd, date_lit(end)))
    return out

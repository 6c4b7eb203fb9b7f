"""Raw Crossref JSON -> typed ``Work``: every Crossref quirk is handled here and in the modules beside it (one
concern each: ``text``, ``dates``, ``identifiers``, ``fields``, ``contributors``, ``funding``, ``references``,
``objects``), and only there.

A problem that makes the record unusable (not a work, no DOI, malformed DOI) raises ``InputError``;
a problem with one field (wrong type, impossible date, bad ORCID check digit) drops that field and is
returned as a warning line, so one bad field never costs the record.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, NamedTuple

from ..errors import InputError
from ..model import Event, Source, Work
from ..resources import type_table
from .contributors import read_people
from .dates import datetime_ok
from .fields import Fields
from .funding import read_funder
from .identifiers import control_character, norm_isbn, norm_issn, normalize_doi, read_typed_ids
from .objects import (
    read_assertion,
    read_event,
    read_institution,
    read_license,
    read_link,
    read_relations,
    read_trial,
    read_update,
)
from .references import read_references
from .text import MAX_VALUE, clip, jats_to_text, json_kind, page_bounds, short, squash, within_limit

DATE_FIELDS = (
    "issued", "published", "published-print", "published-online", "posted", "accepted", "approved",
    "content-created", "content-updated", "award-start", "award-end",
)
RECORD_DATE_FIELDS = ("created", "deposited", "indexed")
KNOWN_FIELDS = frozenset(
    """
    DOI type subtype title subtitle short-title original-title abstract language URL resource issued
    published published-print published-online posted accepted approved content-created content-updated
    created deposited indexed page article-number volume issue journal-issue container-title
    short-container-title ISSN issn-type ISBN isbn-type publisher publisher-location member prefix
    subject reference-count references-count is-referenced-by-count author editor chair translator
    funder license link reference event assertion relation update-to updated-by alternative-id archive
    clinical-trial-number institution group-title degree edition-number part-number component-number
    standards-body content-domain update-policy award award-start award-end project review free-to-read
    aliases score source description version
    """.split()
)


def looks_like_work(raw: Any) -> bool:
    """True for a JSON object that is shaped like a Crossref work (has DOI or type/title keys)."""
    return isinstance(raw, dict) and ("DOI" in raw or ("type" in raw and ("title" in raw or "URL" in raw)))


def normalize(raw: Any, source: Source) -> tuple[Work, list[str]]:
    """One raw Crossref work object -> (Work, warnings). Raises InputError when the record is unusable.

    The fields are read in one fixed order (identity, people, dates, the rest, then the Work's own fields), so
    that the warnings and the values kept as written come out in the same order for the same record."""
    doi = _doi(raw, source)
    raw, cut = within_limit(raw, MAX_VALUE)
    f = Fields(raw, source.where(doi))
    for path, length in cut:
        f.warn(path, f"holds {length:,} characters, more than the {MAX_VALUE:,} kg keeps of one value",
               f"it was cut to its first {MAX_VALUE:,} characters; fix it at the source")
    wtype = _type(f, raw)
    contributors, projects = read_people(f, raw)
    dates, record_dates = _dates(f, raw)
    x = _extras(f, raw)
    work = Work(
        doi=doi.lower(),
        doi_verbatim=doi,
        type=wtype,
        source=source,
        subtype=f.str_(raw, "subtype", "subtype"),
        titles=f.strs(raw, "title", "title"),
        subtitles=f.strs(raw, "subtitle", "subtitle"),
        short_titles=f.strs(raw, "short-title", "short-title"),
        original_titles=f.strs(raw, "original-title", "original-title"),
        abstract=x.abstract,
        language=x.language,
        url=f.str_(raw, "URL", "URL"),
        resource_url=f.str_(x.primary, "URL", "resource.primary.URL") if x.primary else None,
        dates=tuple(dates),
        record_dates=tuple(record_dates),
        page=x.page,
        page_start=x.page_start,
        page_end=x.page_end,
        article_number=f.str_(raw, "article-number", "article-number"),
        volume=f.str_(raw, "volume", "volume"),
        issue=f.str_(raw, "issue", "issue"),
        container_titles=f.strs(raw, "container-title", "container-title"),
        short_container_titles=f.strs(raw, "short-container-title", "short-container-title"),
        issns=read_typed_ids(f, raw, "ISSN", "issn-type", norm_issn),
        isbns=read_typed_ids(f, raw, "ISBN", "isbn-type", norm_isbn),
        publisher=f.str_(raw, "publisher", "publisher"),
        publisher_location=f.str_(raw, "publisher-location", "publisher-location"),
        member=f.str_(raw, "member", "member"),
        prefix=f.str_(raw, "prefix", "prefix"),
        subjects=f.strs(raw, "subject", "subject"),
        reference_count=f.count(raw, "reference-count", "reference-count"),
        references_count=f.count(raw, "references-count", "references-count"),
        cited_by_count=f.count(raw, "is-referenced-by-count", "is-referenced-by-count"),
        contributors=tuple(contributors),
        funders=tuple(read_funder(f, x, p) for p, x in f.objects(raw, "funder", "funder")),
        licenses=tuple(filter(None, (read_license(f, x, p) for p, x in f.objects(raw, "license", "license")))),
        links=tuple(filter(None, (read_link(f, x, p) for p, x in f.objects(raw, "link", "link")))),
        references=read_references(f, raw),
        event=x.event,
        assertions=tuple(filter(None, (read_assertion(f, x, p) for p, x in f.objects(raw, "assertion", "assertion")))),
        relations=read_relations(f, raw),
        updates=tuple(filter(None, (read_update(f, x, p, "update-to")
                                    for p, x in f.objects(raw, "update-to", "update-to")))),
        alternative_ids=f.strs(raw, "alternative-id", "alternative-id"),
        archives=f.strs(raw, "archive", "archive"),
        clinical_trials=tuple(filter(None, (read_trial(f, x, p) for p, x in f.objects(raw, "clinical-trial-number",
                                                                                  "clinical-trial-number")))),
        institutions=tuple(filter(None, (read_institution(f, x, p)
                                         for p, x in f.objects(raw, "institution", "institution")))),
        group_title=f.str_(raw, "group-title", "group-title"),
        degrees=f.strs(raw, "degree", "degree"),
        edition=f.str_(raw, "edition-number", "edition-number"),
        part_number=f.str_(raw, "part-number", "part-number"),
        component_number=f.str_(raw, "component-number", "component-number"),
        standards_body=x.standards_body,
        content_domains=f.strs(x.content_domain, "domain", "content-domain.domain"),
        crossmark_restriction=x.crossmark if isinstance(x.crossmark, bool) else None,
        update_policy=f.str_(raw, "update-policy", "update-policy"),
        award=f.str_(raw, "award", "award"),
        projects=tuple(projects),
        review=tuple(x.review_items),
        free_to_read=x.free_to_read,
        description=(jats_to_text(raw["description"]) or None) if isinstance(raw.get("description"), str) else None,
        version=f.str_(raw["version"], "version", "version.version") if isinstance(raw.get("version"), dict)
        else f.str_(raw, "version", "version"),
        aliases=tuple(a.lower() for a in (normalize_doi(x) for x in f.strs(raw, "aliases", "aliases")) if a),
        extra=x.extra,
        as_written=tuple(f.written),
    )
    return work, f.warnings


def _doi(raw: Any, source: Source) -> str:
    """The record's DOI as written (a valid 10.NNNN/suffix), or the InputError that makes the record unusable."""
    where = source.where()
    if not isinstance(raw, dict):
        raise InputError(where, f"is {json_kind(raw)}, not a Crossref work object", "leave it out")
    if "DOI" not in raw:
        if looks_like_work(raw) or "type" in raw or "title" in raw:
            raise InputError(where, "DOI is missing", "every work needs one; add it or leave the record out")
        raise InputError(where, "is not a Crossref work (no DOI, type or title field)", "leave it out")
    doi_raw = raw["DOI"]
    if not isinstance(doi_raw, str):
        raise InputError(where, f"DOI should be a string, got {json_kind(doi_raw)}", "fix it or leave the record out")
    doi = normalize_doi(doi_raw)
    if doi is None and (char := control_character(doi_raw)) is not None:
        shown = clip("".join(c if c.isprintable() else repr(c)[1:-1] for c in doi_raw))  # (the character shown)
        raise InputError(where, f'DOI "{shown}" holds a control character ({char}); without it, it would be'
                         " another DOI", "fix the DOI or leave the record out")
    if doi is None:
        raise InputError(where, f'DOI "{clip(doi_raw)}" is malformed (expected 10.NNNN/suffix)',
                         "fix it or leave the record out")
    return doi


def _type(f: Fields, raw: dict[str, Any]) -> str:
    """The Crossref type, lower case; 'other' (with a warning, the type kept as written) when missing or unknown."""
    wtype = f.str_(raw, "type", "type")
    if wtype is None:
        f.warn("type", "is missing", "the work is mapped as type 'other'")
        wtype = "other"
    elif wtype.lower() not in _crossref_types():
        f.keep("type", wtype, f'"{clip(wtype)}" is not a Crossref type',
               "the work is mapped as type 'other', the type kept as written (kg:asWritten)")
        wtype = "other"
    return wtype.lower()


def _dates(f: Fields, raw: dict[str, Any]) -> tuple[list[tuple[str, Any]], list[tuple[str, str]]]:
    """The work's dates (the journal issue's too) and the record's own date-times."""
    dates = []
    for name in DATE_FIELDS:
        d = f.date(raw, name, name)
        if d is not None:
            dates.append((name, d))
    record_dates = []
    for name in RECORD_DATE_FIELDS:
        obj = f.dict_(raw, name, name)
        if obj is None:
            continue
        dt = obj.get("date-time")
        if isinstance(dt, str) and datetime_ok(dt.strip()):
            record_dates.append((name, dt.strip()))
        elif isinstance(dt, str) and dt.strip():
            f.keep(f"{name}.date-time", squash(dt), f'"{clip(dt)}" is not a valid ISO date-time')
        elif dt is not None:
            f.warn(f"{name}.date-time", f"is not an ISO date-time: {short(dt)}")
    journal_issue = f.dict_(raw, "journal-issue", "journal-issue")
    if journal_issue:
        for name in ("published-print", "published-online"):
            d = f.date(journal_issue, name, f"journal-issue.{name}")
            if d is not None:
                dates.append((f"journal-issue.{name}", d))

    return dates, record_dates


class _Extras(NamedTuple):
    """What :func:`_extras` read, in the Work's terms."""
    abstract: str | None
    primary: dict[str, Any]
    content_domain: dict[str, Any]
    crossmark: Any
    event: Event | None
    standards_body: tuple[str, str | None] | None
    free_to_read: tuple[Any, Any] | None
    review_items: list[tuple[str, str]]
    language: str | None
    extra: tuple[str, ...]
    page: str | None
    page_start: str | None
    page_end: str | None


def _extras(f: Fields, raw: dict[str, Any]) -> _Extras:
    """The fields that need more than one read: abstract, resource, content domain, event, standards body,
    free-to-read, review, language, unknown fields and the page range."""
    abstract = f.str_(raw, "abstract", "abstract") if not isinstance(raw.get("abstract"), str) else None
    if isinstance(raw.get("abstract"), str):
        abstract = jats_to_text(raw["abstract"]) or None

    resource = f.dict_(raw, "resource", "resource") or {}
    primary = resource.get("primary") if isinstance(resource.get("primary"), dict) else {}
    content_domain = f.dict_(raw, "content-domain", "content-domain") or {}
    crossmark = content_domain.get("crossmark-restriction")
    event = read_event(f, raw)
    standards_body = None
    sb = f.dict_(raw, "standards-body", "standards-body")
    if sb and f.str_(sb, "name", "standards-body.name"):
        standards_body = (f.str_(sb, "name", "standards-body.name") or "",
                          f.str_(sb, "acronym", "standards-body.acronym"))
    free = f.dict_(raw, "free-to-read", "free-to-read")
    free_to_read = (f.date(free, "start-date", "free-to-read.start-date"),
                    f.date(free, "end-date", "free-to-read.end-date")) if free else None
    review = f.dict_(raw, "review", "review") or {}
    review_items = []
    for key in sorted(review):
        val = review[key]
        if isinstance(val, (str, int)) and not isinstance(val, bool) and str(val).strip():
            review_items.append((key, squash(str(val))))
    language = f.str_(raw, "language", "language")
    if language and not re.match(r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$", language):
        f.warn("language", f'"{clip(language)}" is not a language tag')
        language = None
    extra = tuple(sorted(k for k in raw if k not in KNOWN_FIELDS))
    page = f.str_(raw, "page", "page")
    page_start = page_end = None
    if page:
        page_start, page_end, backwards = page_bounds(page)
        if backwards:
            f.warn("page", f'"{clip(page)}" has its first page after its last',
                   "it is kept as the page range, without start and end pages; fix it at the source")

    return _Extras(abstract, primary or {}, content_domain, crossmark, event, standards_body, free_to_read,
                   review_items, language, extra, page, page_start, page_end)


@cache
def _crossref_types() -> frozenset[str]:
    """The work types Crossref defines (kg/data/crossref-types.json, the shape's list)."""
    return frozenset(k for k in type_table()["types"] if "/" not in k)

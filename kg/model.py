"""Typed, immutable values between normalize (which builds them) and the mappers (which read them)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class PartialDate:
    """A Crossref date with its precision: year, year-month or full date.

    Example: lexical ``2025-11``, typed xsd:gYearMonth by ``kg.map.common.date_lit``.

    >>> PartialDate(2025, 11).lexical()
    '2025-11'
    >>> from kg.map.common import date_lit
    >>> date_lit(PartialDate(2025, 11))
    '"2025-11"^^<http://www.w3.org/2001/XMLSchema#gYearMonth>'
    """

    year: int
    month: int | None = None
    day: int | None = None

    def lexical(self) -> str:
        if self.month is None:
            return f"{self.year:04d}"
        if self.day is None:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"


@dataclass(frozen=True, slots=True)
class Source:
    """Where a record came from: the path as given, the file's sha256, and the line or item number."""

    path: str
    sha256: str
    locator: str  # "line 3", "item 2" or "" for a single-record file

    def where(self, doi: str | None = None) -> str:
        """``path: DOI`` (or ``path: line N`` before the DOI is known, or just ``path``)."""
        record = doi or self.locator
        return f"{self.path}: {record}" if record else self.path


@dataclass(frozen=True, slots=True)
class Affiliation:
    name: str | None
    ids: tuple[tuple[str, str, str | None], ...] = ()  # (id, id-type, asserted-by)
    places: tuple[str, ...] = ()
    departments: tuple[str, ...] = ()
    acronyms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Contributor:
    role: str  # author, editor, chair, translator, investigator, lead-investigator, ...
    position: int  # 1-based within the role
    given: str | None = None
    family: str | None = None
    name: str | None = None  # organisation name (no given/family)
    suffix: str | None = None
    prefix: str | None = None
    orcid: str | None = None  # bare 0000-0000-0000-000X
    orcid_authenticated: bool | None = None
    sequence: str | None = None
    affiliations: tuple[Affiliation, ...] = ()
    roles: tuple[str, ...] = ()  # role[].role values (vocabulary:role)

    @property
    def is_person(self) -> bool:
        return self.given is not None or self.family is not None

    @property
    def display_name(self) -> str:
        if self.is_person:
            return " ".join(p for p in (self.prefix, self.given, self.family, self.suffix) if p)
        return self.name or ""


@dataclass(frozen=True, slots=True)
class Funder:
    name: str | None
    doi: str | None  # funder-registry DOI, lower-cased
    doi_asserted_by: str | None
    awards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class License:
    url: str
    start: PartialDate | None
    start_datetime: str | None
    content_version: str | None
    delay_in_days: int | None


@dataclass(frozen=True, slots=True)
class Link:
    url: str
    content_type: str | None
    content_version: str | None
    intended_application: str | None


@dataclass(frozen=True, slots=True)
class Reference:
    """One entry of a work's reference list, fields as Crossref gives them (text cleaned, nothing dropped)."""

    index: int  # 1-based order in the list
    key: str | None
    doi: str | None  # lower-cased
    doi_asserted_by: str | None
    unstructured: str | None
    fields: tuple[tuple[str, str], ...] = ()  # (crossref field name, value) for structured fields


@dataclass(frozen=True, slots=True)
class Event:
    name: str | None
    acronym: str | None
    location: str | None
    number: str | None
    theme: str | None
    sponsors: tuple[str, ...]
    start: PartialDate | None
    end: PartialDate | None


@dataclass(frozen=True, slots=True)
class Assertion:
    name: str
    value: str | None
    label: str | None
    order: int | None
    group_name: str | None
    group_label: str | None
    url: str | None
    explanation: str | None


@dataclass(frozen=True, slots=True)
class Relation:
    rel_type: str
    ident: str
    id_type: str
    asserted_by: str | None
    doi: str | None = None  # the normalised DOI of a related identifier of type doi


@dataclass(frozen=True, slots=True)
class Update:
    update_type: str | None
    doi: str
    date: PartialDate | None
    label: str | None


@dataclass(frozen=True, slots=True)
class ClinicalTrial:
    number: str
    registry: str | None
    trial_type: str | None
    registry_doi: str | None = None  # the normalised DOI of the registry, when it is one


@dataclass(frozen=True, slots=True)
class Institution:
    name: str
    places: tuple[str, ...] = ()
    departments: tuple[str, ...] = ()
    acronyms: tuple[str, ...] = ()
    ids: tuple[tuple[str, str, str | None], ...] = ()


@dataclass(frozen=True, slots=True)
class Funding:
    """One funding entry of a grant record's project."""

    funder: Funder
    funding_type: str | None
    scheme: str | None
    amount: str | None
    currency: str | None
    share: str | None


@dataclass(frozen=True, slots=True)
class Project:
    titles: tuple[str, ...]
    descriptions: tuple[str, ...]
    fundings: tuple[Funding, ...]
    award_amount: str | None
    award_currency: str | None
    start: PartialDate | None
    end: PartialDate | None


@dataclass(frozen=True, slots=True)
class Work:
    """A normalised Crossref work record."""

    doi: str  # lower-cased, as the work IRI uses it
    doi_verbatim: str
    type: str
    source: Source
    subtype: str | None = None
    titles: tuple[str, ...] = ()
    subtitles: tuple[str, ...] = ()
    short_titles: tuple[str, ...] = ()
    original_titles: tuple[str, ...] = ()
    abstract: str | None = None
    language: str | None = None
    url: str | None = None
    resource_url: str | None = None
    dates: tuple[tuple[str, PartialDate], ...] = ()  # (crossref field, date)
    record_dates: tuple[tuple[str, str], ...] = ()  # (created/deposited/indexed, xsd:dateTime lexical)
    page: str | None = None  # the page range as written
    page_start: str | None = None  # derived from ``page``; None when it is no range or a reversed one
    page_end: str | None = None
    article_number: str | None = None
    volume: str | None = None
    issue: str | None = None
    container_titles: tuple[str, ...] = ()
    short_container_titles: tuple[str, ...] = ()
    issns: tuple[tuple[str, str | None], ...] = ()  # (issn, print/electronic/None)
    isbns: tuple[tuple[str, str | None], ...] = ()
    publisher: str | None = None
    publisher_location: str | None = None
    member: str | None = None
    prefix: str | None = None
    subjects: tuple[str, ...] = ()
    reference_count: int | None = None
    references_count: int | None = None
    cited_by_count: int | None = None
    contributors: tuple[Contributor, ...] = ()
    funders: tuple[Funder, ...] = ()
    licenses: tuple[License, ...] = ()
    links: tuple[Link, ...] = ()
    references: tuple[Reference, ...] = ()
    event: Event | None = None
    assertions: tuple[Assertion, ...] = ()
    relations: tuple[Relation, ...] = ()
    updates: tuple[Update, ...] = ()
    alternative_ids: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()
    clinical_trials: tuple[ClinicalTrial, ...] = ()
    institutions: tuple[Institution, ...] = ()
    group_title: str | None = None
    degrees: tuple[str, ...] = ()
    edition: str | None = None
    part_number: str | None = None
    component_number: str | None = None
    standards_body: tuple[str, str | None] | None = None  # (name, acronym)
    content_domains: tuple[str, ...] = ()
    crossmark_restriction: bool | None = None
    update_policy: str | None = None
    award: str | None = None
    projects: tuple[Project, ...] = ()
    review: tuple[tuple[str, str], ...] = ()
    free_to_read: tuple[PartialDate | None, PartialDate | None] | None = None
    aliases: tuple[str, ...] = ()
    description: str | None = None
    version: str | None = None
    extra: tuple[str, ...] = field(default=())  # unknown top-level fields, reported, not mapped
    # (field path, value) the publisher wrote that cannot be mapped as its own property (an unknown type, an
    # impossible date-time, a funder DOI outside the Funder Registry ...): kept as written, kg:asWritten
    as_written: tuple[tuple[str, str], ...] = ()

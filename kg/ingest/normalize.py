"""Raw Crossref JSON -> typed ``Work``: every Crossref quirk is handled here and only here.

A problem that makes the record unusable (not a work, no DOI, malformed DOI) raises ``InputError``;
a problem with one field (wrong type, impossible date, bad ORCID check digit) drops that field and is
returned as a warning line, so one bad field never costs the record.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

from ..errors import InputError
from ..model import (
    Affiliation,
    Assertion,
    ClinicalTrial,
    Contributor,
    Event,
    Funder,
    Funding,
    Institution,
    License,
    Link,
    PartialDate,
    Project,
    Reference,
    Relation,
    Source,
    Update,
    Work,
)
from ..rdf.terms import decimal
from ..resources import type_table

# Digits are ASCII digits everywhere ([0-9], never \d or str.isdigit(), which take "٥" and "²"): the shapes
# and the XSD datatypes want [0-9].
DOI_RE = re.compile(r"^10\.[0-9]{3,9}(?:\.[0-9]+)*/\S.*$", re.S)
FUNDER_DOI_RE = re.compile(r"^10\.13039/\S+$")  # the Funder Registry's prefix, as the funder shape wants it
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)
ORCID_RE = re.compile(r"^(?:https?://(?:www\.)?orcid\.org/)?([0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X])/?$", re.I)
ISSN_RE = re.compile(r"^([0-9]{4})-?([0-9]{3}[0-9X])$", re.I)
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")
_WS = re.compile(r"\s+")
_TAG = re.compile(r"<[^<>]+>")
_BLOCK = re.compile(r"</?(?:jats:)?(?:p|sec|title|list-item|list|disp-quote|def-item|def-list)\b[^>]*>", re.I)
_DATETIME_RE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,12})?"
                          r"(?:Z|[+-]([0-9]{2}):([0-9]{2}))?$")
_PAGE_RANGE = re.compile(r"^\s*([^\s\-–—]+)\s*[-–—]+\s*([^\s\-–—]+)\s*$")
MAX_INT_DIGITS = 18  # counts, orders, delays: longer digit strings are no count (and int() refuses 4,301+ digits)

CONTRIBUTOR_ROLES = ("author", "editor", "chair", "translator")
DATE_FIELDS = (
    "issued", "published", "published-print", "published-online", "posted", "accepted", "approved",
    "content-created", "content-updated", "award-start", "award-end",
)
RECORD_DATE_FIELDS = ("created", "deposited", "indexed")
REFERENCE_FIELDS = (
    "article-title", "author", "year", "volume", "issue", "first-page", "journal-title", "volume-title",
    "series-title", "edition", "component", "standard-designator", "standards-body", "issn", "isbn",
    "issn-type", "isbn-type",
)
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


def clean(text: str) -> str:
    """Remove characters no RDF syntax can carry (controls, lone surrogates, U+FFFE/FFFF)."""
    if text.isascii() and text.isprintable():  # (the common case: nothing to remove)
        return text
    return _BAD_CHARS.sub("", text)


def squash(text: str) -> str:
    """Clean and collapse white space (titles, names)."""
    if text.isascii() and text.isprintable() and "  " not in text:  # (the common case: single spaces only)
        return text.strip()
    return _WS.sub(" ", _BAD_CHARS.sub("", text)).strip()


def ascii_digits(text: str, max_len: int = MAX_INT_DIGITS) -> bool:
    """True for 1..max_len ASCII digits ("²" and "٥" are digits to str.isdigit(), not to XSD or the shapes)."""
    return 0 < len(text) <= max_len and text.isascii() and text.isdigit()


def datetime_ok(text: str) -> bool:
    """True for an ISO date-time that is a valid xsd:dateTime: ASCII digits, a real calendar day, hours 0-23,
    minutes and seconds 0-59, a time zone within +-14:00."""
    m = _DATETIME_RE.match(text)
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not (1 <= year and 1 <= month <= 12 and 1 <= day <= _days_in(year, month)):
        return False
    if hour > 23 or minute > 59 or second > 59:
        return False
    if m.group(7) is not None:
        tz_h, tz_m = int(m.group(7)), int(m.group(8))
        if tz_m > 59 or tz_h * 60 + tz_m > 14 * 60:
            return False
    return True


def page_bounds(page: str) -> tuple[str | None, str | None, bool]:
    """(start page, end page, reversed) of a page range as written: ``"283-298"`` -> ("283", "298", False);
    ``"e1234"`` -> ("e1234", None, False); ``"200-100"`` -> (None, None, True): a numeric range whose first
    page comes after its last gives no start and end page."""
    m = _PAGE_RANGE.match(page)
    start, end = (m.group(1), m.group(2)) if m else (page.strip(), None)
    if end is not None and ascii_digits(start, 10**6) and ascii_digits(end, 10**6):
        a, b = start.lstrip("0"), end.lstrip("0")
        if (len(a), a) > (len(b), b):
            return None, None, True
    if " " in start or "," in start:
        start = None
    return start, end, False


def jats_to_text(markup: str) -> str:
    """JATS/HTML abstract markup -> plain text, paragraphs separated by a blank line.

    Example:

    >>> jats_to_text("<jats:title>Abstract</jats:title><jats:p>A <jats:italic>b</jats:italic>.</jats:p>")
    'A b.'
    """
    text = re.sub(r"^\s*<jats:title>\s*abstract\s*</jats:title>", "", markup, flags=re.I)
    text = _BLOCK.sub("\n\n", text)
    text = _TAG.sub("", text)
    text = html.unescape(text)
    paragraphs = [squash(p) for p in re.split(r"\n\s*\n", clean(text))]
    return "\n\n".join(p for p in paragraphs if p)


def normalize_doi(value: str) -> str | None:
    """A DOI without resolver prefix, or None when it is not DOI-shaped (line breaks and tabs included).
    Case is kept."""
    doi = _DOI_PREFIX.sub("", clean(value).strip())
    if any(c in doi for c in "\n\r\t\x0b\x0c\x85\u2028\u2029"):
        return None
    return doi if DOI_RE.match(doi) else None


def orcid_checksum_ok(orcid: str) -> bool:
    """ISO 7064 MOD 11-2 check of a 16-character ORCID (hyphens allowed)."""
    digits = orcid.replace("-", "")
    if not (len(digits) == 16 and ascii_digits(digits[:15], 15) and (ascii_digits(digits[15]) or digits[15] in "xX")):
        return False
    total = 0
    for ch in digits[:-1]:
        total = (total + int(ch)) * 2
    result = (12 - total % 11) % 11
    check = "X" if result == 10 else str(result)
    return digits[-1].upper() == check


def isbn_ok(isbn: str) -> bool:
    """ISBN-10 or ISBN-13 check digit."""
    s = isbn.replace("-", "").replace(" ", "").upper()
    if len(s) == 10 and ascii_digits(s[:9]) and (ascii_digits(s[9]) or s[9] == "X"):
        total = sum((10 - i) * int(c) for i, c in enumerate(s[:9])) + (10 if s[9] == "X" else int(s[9]))
        return total % 11 == 0
    if len(s) == 13 and ascii_digits(s) and s.startswith(("978", "979")):
        return sum((1 if i % 2 == 0 else 3) * int(c) for i, c in enumerate(s)) % 10 == 0
    return False


class _Fields:
    """Typed access to one raw record; wrong types become warnings and the field reads as absent."""

    def __init__(self, raw: dict[str, Any], where: str) -> None:
        self.raw = raw
        self.where = where
        self.warnings: list[str] = []
        self.written: list[tuple[str, str]] = []  # (path, value) kept as written (kg:asWritten)

    def warn(self, path: str, what: str, fix: str = "the field was left out; fix it at the source") -> None:
        self.warnings.append(f"{self.where}: {path} {what}; {fix}")

    def keep(self, path: str, value: str, what: str,
             fix: str = "it is kept as written (kg:asWritten); fix it at the source") -> None:
        """Warn about a value no property can carry and keep it as written."""
        self.warn(path, what, fix)
        self.written.append((path, value))

    def str_(self, obj: dict[str, Any], key: str, path: str) -> str | None:
        v = obj.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            self.warn(path, f"should be a string, got {_kind(v)}")
            return None
        s = squash(str(v))
        return s or None

    def strs(self, obj: dict[str, Any], key: str, path: str, squeeze: bool = True) -> tuple[str, ...]:
        v = obj.get(key)
        if v is None:
            return ()
        if not isinstance(v, list):
            self.warn(path, f"should be a list of strings, got {_kind(v)}")
            return ()
        out = []
        for i, item in enumerate(v):
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                self.warn(f"{path}[{i}]", f"should be a string, got {_kind(item)}")
                continue
            s = squash(str(item)) if squeeze else clean(str(item)).strip()
            if s:
                out.append(s)
        return tuple(out)

    def int_(self, obj: dict[str, Any], key: str, path: str) -> int | None:
        v = obj.get(key)
        if v is None:
            return None
        if isinstance(v, bool):
            self.warn(path, f"should be an integer, got {_kind(v)}")
            return None
        if isinstance(v, int):
            if abs(v) >= 10 ** MAX_INT_DIGITS:
                self.warn(path, f"is too large a number ({len(str(abs(v)))} digits)")
                return None
            return v
        if isinstance(v, str):
            t = v.strip()
            if ascii_digits(t.removeprefix("-"), 10**6):
                if len(t.removeprefix("-")) > MAX_INT_DIGITS:
                    self.warn(path, f"is too large a number ({len(t.removeprefix('-'))} digits)")
                    return None
                return int(t)
            self.warn(path, f"should be an integer, got {_short(v)}")
            return None
        self.warn(path, f"should be an integer, got {_kind(v)}")
        return None

    def count(self, obj: dict[str, Any], key: str, path: str) -> int | None:
        """A non-negative integer (a count, a delay in days)."""
        n = self.int_(obj, key, path)
        if n is not None and n < 0:
            self.warn(path, f"is negative ({n})")
            return None
        return n

    def decimal(self, obj: dict[str, Any], key: str, path: str) -> str | None:
        """An amount: a decimal number as written, or (with a warning) None, the value kept as written."""
        v = self.str_(obj, key, path)
        if v is not None and decimal(v) is None:
            self.keep(path, v, f'"{_clip(v)}" is not a decimal number')
            return None
        return v

    def dict_(self, obj: dict[str, Any], key: str, path: str) -> dict[str, Any] | None:
        v = obj.get(key)
        if v is None:
            return None
        if not isinstance(v, dict):
            self.warn(path, f"should be an object, got {_kind(v)}")
            return None
        return v

    def list_(self, obj: dict[str, Any], key: str, path: str) -> list[Any]:
        v = obj.get(key)
        if v is None:
            return []
        if not isinstance(v, list):
            self.warn(path, f"should be a list, got {_kind(v)}")
            return []
        return v

    def objects(self, obj: dict[str, Any], key: str, path: str) -> list[tuple[str, dict[str, Any]]]:
        out = []
        for i, item in enumerate(self.list_(obj, key, path)):
            if isinstance(item, dict):
                out.append((f"{path}[{i}]", item))
            else:
                self.warn(f"{path}[{i}]", f"should be an object, got {_kind(item)}")
        return out

    def date(self, obj: dict[str, Any], key: str, path: str) -> PartialDate | None:
        """``{"date-parts": [[y, m, d]]}`` -> PartialDate; ``[[null]]`` is Crossref's "no date"."""
        d = obj.get(key)
        if d is None:
            return None
        if not isinstance(d, dict):
            self.warn(path, f"should be an object with date-parts, got {_kind(d)}")
            return None
        parts = d.get("date-parts")
        if parts is None:
            return None
        if not (isinstance(parts, list) and parts and isinstance(parts[0], list)):
            self.warn(f"{path}.date-parts", f"should be a list like [[2024, 5, 1]], got {_short(parts)}")
            return None
        first = parts[0]
        if not first or first[0] is None:
            return None  # [[null]]: Crossref says the date is unknown
        nums: list[int] = []
        for p in first[:3]:
            if p is None:
                break
            if isinstance(p, str) and ascii_digits(p.strip(), 10**6):
                if len(p.strip()) > 9:
                    self.warn(f"{path}.date-parts", f"has an impossible part ({len(p.strip())} digits)")
                    return None
                p = int(p.strip())
            if isinstance(p, bool) or not isinstance(p, int) or p < 0:
                self.warn(f"{path}.date-parts", f"has a non-numeric part {_short(p)}")
                return None
            if p >= 10**9:
                digits = len(str(p)) if p < 10**4000 else "thousands of"
                self.warn(f"{path}.date-parts", f"has an impossible part ({digits} digits)")
                return None
            nums.append(p)
        year = nums[0]
        month = nums[1] if len(nums) > 1 else None
        day = nums[2] if len(nums) > 2 else None
        if not 1 <= year <= 9999:
            self.warn(f"{path}.date-parts", f"has an impossible year {year}")
            return None
        if month is not None and not 1 <= month <= 12:
            self.warn(f"{path}.date-parts", f"has an impossible month {month}")
            return None
        if day is not None and not 1 <= day <= _days_in(year, month or 1):
            self.warn(f"{path}.date-parts", f"has an impossible day {year}-{month:02d}-{day:02d}")
            return None
        return PartialDate(year, month, day)


def _days_in(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


def _short(v: Any) -> str:
    try:
        s = repr(v)
    except (ValueError, RecursionError):  # (an int of more than 4,300 digits; nesting past the recursion limit)
        return _kind(v)
    return s if len(s) <= 40 else s[:37] + "..."


def looks_like_work(raw: Any) -> bool:
    """True for a JSON object that is shaped like a Crossref work (has DOI or type/title keys)."""
    return isinstance(raw, dict) and ("DOI" in raw or ("type" in raw and ("title" in raw or "URL" in raw)))


def normalize(raw: Any, source: Source) -> tuple[Work, list[str]]:
    """One raw Crossref work object -> (Work, warnings). Raises InputError when the record is unusable.

    The fields are read in one fixed order (identity, people, dates, the rest, then the Work's own fields), so
    that the warnings and the values kept as written come out in the same order for the same record."""
    doi = _doi(raw, source)
    f = _Fields(raw, source.where(doi))
    wtype = _type(f, raw)
    contributors, projects = _people(f, raw)
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
        issns=_typed_ids(f, raw, "ISSN", "issn-type", _norm_issn),
        isbns=_typed_ids(f, raw, "ISBN", "isbn-type", _norm_isbn),
        publisher=f.str_(raw, "publisher", "publisher"),
        publisher_location=f.str_(raw, "publisher-location", "publisher-location"),
        member=f.str_(raw, "member", "member"),
        prefix=f.str_(raw, "prefix", "prefix"),
        subjects=f.strs(raw, "subject", "subject"),
        reference_count=f.count(raw, "reference-count", "reference-count"),
        references_count=f.count(raw, "references-count", "references-count"),
        cited_by_count=f.count(raw, "is-referenced-by-count", "is-referenced-by-count"),
        contributors=tuple(contributors),
        funders=tuple(_funder(f, x, p) for p, x in f.objects(raw, "funder", "funder")),
        licenses=tuple(filter(None, (_license(f, x, p) for p, x in f.objects(raw, "license", "license")))),
        links=tuple(filter(None, (_link(f, x, p) for p, x in f.objects(raw, "link", "link")))),
        references=_references(f, raw),
        event=x.event,
        assertions=tuple(filter(None, (_assertion(f, x, p) for p, x in f.objects(raw, "assertion", "assertion")))),
        relations=_relations(f, raw),
        updates=tuple(filter(None, (_update(f, x, p, "update-to")
                                    for p, x in f.objects(raw, "update-to", "update-to")))),
        alternative_ids=f.strs(raw, "alternative-id", "alternative-id"),
        archives=f.strs(raw, "archive", "archive"),
        clinical_trials=tuple(filter(None, (_trial(f, x, p) for p, x in f.objects(raw, "clinical-trial-number",
                                                                                  "clinical-trial-number")))),
        institutions=tuple(filter(None, (_institution(f, x, p)
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
        raise InputError(where, f"is {_kind(raw)}, not a Crossref work object", "leave it out")
    if "DOI" not in raw:
        if looks_like_work(raw) or "type" in raw or "title" in raw:
            raise InputError(where, "DOI is missing", "every work needs one; add it or leave the record out")
        raise InputError(where, "is not a Crossref work (no DOI, type or title field)", "leave it out")
    doi_raw = raw["DOI"]
    if not isinstance(doi_raw, str):
        raise InputError(where, f"DOI should be a string, got {_kind(doi_raw)}", "fix it or leave the record out")
    doi = normalize_doi(doi_raw)
    if doi is None:
        raise InputError(where, f'DOI "{_clip(doi_raw)}" is malformed (expected 10.NNNN/suffix)',
                         "fix it or leave the record out")
    return doi


def _type(f: _Fields, raw: dict[str, Any]) -> str:
    """The Crossref type, lower case; 'other' (with a warning, the type kept as written) when missing or unknown."""
    wtype = f.str_(raw, "type", "type")
    if wtype is None:
        f.warn("type", "is missing", "the work is mapped as type 'other'")
        wtype = "other"
    elif wtype.lower() not in _crossref_types():
        f.keep("type", wtype, f'"{_clip(wtype)}" is not a Crossref type',
               "the work is mapped as type 'other', the type kept as written (kg:asWritten)")
        wtype = "other"
    return wtype.lower()


def _people(f: _Fields, raw: dict[str, Any]) -> tuple[list[Contributor], list[Project]]:
    """Contributors in role order (with the investigators of each project after them), and the projects."""
    contributors: list[Contributor] = []
    for role in CONTRIBUTOR_ROLES:
        for i, (path, c) in enumerate(f.objects(raw, role, role)):
            contributors.append(_contributor(f, c, role, i + 1, path))
    projects: list[Project] = []
    for ppath, p in f.objects(raw, "project", "project"):
        projects.append(_project(f, p, ppath))
        for role in ("lead-investigator", "co-lead-investigator", "investigator"):
            start = sum(1 for c in contributors if c.role == role)
            for i, (path, c) in enumerate(f.objects(p, role, f"{ppath}.{role}")):
                contributors.append(_contributor(f, c, role, start + i + 1, path))

    return contributors, projects


def _dates(f: _Fields, raw: dict[str, Any]) -> tuple[list[tuple[str, Any]], list[tuple[str, str]]]:
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
            f.keep(f"{name}.date-time", squash(dt), f'"{_clip(dt)}" is not a valid ISO date-time')
        elif dt is not None:
            f.warn(f"{name}.date-time", f"is not an ISO date-time: {_short(dt)}")
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


def _extras(f: _Fields, raw: dict[str, Any]) -> _Extras:
    """The fields that need more than one read: abstract, resource, content domain, event, standards body,
    free-to-read, review, language, unknown fields and the page range."""
    abstract = f.str_(raw, "abstract", "abstract") if not isinstance(raw.get("abstract"), str) else None
    if isinstance(raw.get("abstract"), str):
        abstract = jats_to_text(raw["abstract"]) or None

    resource = f.dict_(raw, "resource", "resource") or {}
    primary = resource.get("primary") if isinstance(resource.get("primary"), dict) else {}
    content_domain = f.dict_(raw, "content-domain", "content-domain") or {}
    crossmark = content_domain.get("crossmark-restriction")
    event = _event(f, raw)
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
        f.warn("language", f'"{_clip(language)}" is not a language tag')
        language = None
    extra = tuple(sorted(k for k in raw if k not in KNOWN_FIELDS))
    page = f.str_(raw, "page", "page")
    page_start = page_end = None
    if page:
        page_start, page_end, backwards = page_bounds(page)
        if backwards:
            f.warn("page", f'"{_clip(page)}" has its first page after its last',
                   "it is kept as the page range, without start and end pages; fix it at the source")

    return _Extras(abstract, primary or {}, content_domain, crossmark, event, standards_body, free_to_read,
                   review_items, language, extra, page, page_start, page_end)


@cache
def _crossref_types() -> frozenset[str]:
    """The work types Crossref defines (kg/data/crossref-types.json, the shape's list)."""
    return frozenset(k for k in type_table()["types"] if "/" not in k)


def _clip(s: str, n: int = 60) -> str:
    """A value for a one-line message: control characters and line breaks shown escaped, long text cut."""
    s = "".join(c if c.isprintable() else repr(c)[1:-1] for c in clean(s))
    return s if len(s) <= n else s[: n - 3] + "..."


def _norm_issn(value: str) -> str | None:
    m = ISSN_RE.match(value.strip())
    return f"{m.group(1)}-{m.group(2).upper()}" if m else None


def _norm_isbn(value: str) -> str | None:
    s = re.sub(r"[\s-]", "", value).upper()
    return s if re.fullmatch(r"[0-9]{9}[0-9X]|97[89][0-9]{10}", s) else None


def issn_ok(issn: str) -> bool:
    """ISSN check digit (mod 11) of ``NNNN-NNNC``."""
    d = issn.replace("-", "")
    total = sum((8 - i) * int(c) for i, c in enumerate(d[:7]))
    check = (11 - total % 11) % 11
    return d[7] == ("X" if check == 10 else str(check))


def _id_ok(key: str, n: str) -> bool:
    return isbn_ok(n) if key == "ISBN" else issn_ok(n)


def _typed_ids(f: _Fields, raw: dict[str, Any], key: str, type_key: str,
               norm: Callable[[str], str | None]) -> tuple[tuple[str, str | None], ...]:
    types: dict[str, str] = {}
    for _path, t in f.objects(raw, type_key, type_key):
        v, kind = t.get("value"), t.get("type")
        if isinstance(v, str) and isinstance(kind, str):
            n = norm(v)
            if n and _id_ok(key, n):
                types.setdefault(n, kind)
    out: dict[str, str | None] = {}
    for i, v in enumerate(f.strs(raw, key, key)):
        n = norm(v)
        if n is None:
            f.warn(f"{key}[{i}]", f'"{_clip(v)}" is not a valid {key}')
            continue
        if not _id_ok(key, n):
            f.warn(f"{key}[{i}]", f'"{_clip(v)}" has a bad check digit')
            continue
        out.setdefault(n, types.get(n))
    for n, kind in types.items():
        out.setdefault(n, kind)
    return tuple(sorted(out.items(), key=lambda kv: kv[0]))


def _ids(f: _Fields, obj: dict[str, Any], path: str) -> tuple[tuple[str, str, str | None], ...]:
    out = []
    for p, x in f.objects(obj, "id", f"{path}.id"):
        ident, kind = f.str_(x, "id", f"{p}.id"), f.str_(x, "id-type", f"{p}.id-type")
        if ident and kind:
            out.append((ident, kind, f.str_(x, "asserted-by", f"{p}.asserted-by")))
    return tuple(out)


def _contributor(f: _Fields, c: dict[str, Any], role: str, position: int, path: str) -> Contributor:
    orcid = None
    authenticated = None
    raw_orcid = c.get("ORCID")
    if raw_orcid is not None:
        m = ORCID_RE.match(raw_orcid.strip()) if isinstance(raw_orcid, str) else None
        if m is None:
            f.warn(f"{path}.ORCID", f"{_short(raw_orcid)} is not an ORCID iD", "it was left out; fix or drop it")
        elif not orcid_checksum_ok(m.group(1)):
            f.warn(f"{path}.ORCID", f'"{m.group(1)}" has a bad check digit', "it was left out; fix or drop it")
        else:
            orcid = m.group(1).upper()
            auth = c.get("authenticated-orcid")
            authenticated = auth if isinstance(auth, bool) else None
    affiliations = []
    for p, a in f.objects(c, "affiliation", f"{path}.affiliation"):
        aff = Affiliation(
            name=f.str_(a, "name", f"{p}.name"),
            ids=_ids(f, a, p),
            places=f.strs(a, "place", f"{p}.place"),
            departments=f.strs(a, "department", f"{p}.department"),
            acronyms=f.strs(a, "acronym", f"{p}.acronym"),
        )
        if aff.name or aff.ids:
            affiliations.append(aff)
    roles = []
    for p, r in f.objects(c, "role", f"{path}.role"):
        name = f.str_(r, "role", f"{p}.role")
        if name:
            vocab = f.str_(r, "vocabulary", f"{p}.vocabulary")
            roles.append(f"{vocab}:{name}" if vocab else name)
    given = f.str_(c, "given", f"{path}.given")
    family = f.str_(c, "family", f"{path}.family")
    name = f.str_(c, "name", f"{path}.name")
    if not (given or family or name):
        f.warn(path, "has no name (given, family or name)", "it is kept as an unnamed contributor")
    return Contributor(
        role=role, position=position, given=given, family=family,
        name=name if not (given or family) else None,
        suffix=f.str_(c, "suffix", f"{path}.suffix"), prefix=f.str_(c, "prefix", f"{path}.prefix"),
        orcid=orcid, orcid_authenticated=authenticated, sequence=f.str_(c, "sequence", f"{path}.sequence"),
        affiliations=tuple(affiliations), roles=tuple(roles),
    )


def _funder(f: _Fields, x: dict[str, Any], path: str) -> Funder:
    doi = None
    raw = x.get("DOI")
    if raw is not None:
        doi = normalize_doi(raw) if isinstance(raw, str) else None
        if doi is None:
            f.warn(f"{path}.DOI", f"{_short(raw)} is not a DOI")
        elif not FUNDER_DOI_RE.match(doi.lower()):
            f.keep(f"{path}.DOI", squash(raw), f'"{_clip(raw)}" is not a Funder Registry DOI (10.13039/...)')
            doi = None
    return Funder(
        name=f.str_(x, "name", f"{path}.name"),
        doi=doi.lower() if doi else None,
        doi_asserted_by=f.str_(x, "doi-asserted-by", f"{path}.doi-asserted-by"),
        awards=tuple(dict.fromkeys(f.strs(x, "award", f"{path}.award"))),
    )


def _license(f: _Fields, x: dict[str, Any], path: str) -> License | None:
    url = f.str_(x, "URL", f"{path}.URL")
    if not url:
        f.warn(f"{path}.URL", "is missing")
        return None
    start = f.dict_(x, "start", f"{path}.start")
    dt = start.get("date-time") if start else None
    if isinstance(dt, str) and dt.strip() and not datetime_ok(dt.strip()):
        f.keep(f"{path}.start.date-time", squash(dt), f'"{_clip(dt)}" is not a valid ISO date-time')
    return License(
        url=url,
        start=f.date(x, "start", f"{path}.start"),
        start_datetime=dt.strip() if isinstance(dt, str) and datetime_ok(dt.strip()) else None,
        content_version=f.str_(x, "content-version", f"{path}.content-version"),
        delay_in_days=f.count(x, "delay-in-days", f"{path}.delay-in-days"),
    )


def _link(f: _Fields, x: dict[str, Any], path: str) -> Link | None:
    url = f.str_(x, "URL", f"{path}.URL")
    if not url:
        f.warn(f"{path}.URL", "is missing")
        return None
    return Link(url, f.str_(x, "content-type", f"{path}.content-type"),
                f.str_(x, "content-version", f"{path}.content-version"),
                f.str_(x, "intended-application", f"{path}.intended-application"))


_REF_LOWER = {"issn": "ISSN", "isbn": "ISBN", "issn-type": "ISSN-type", "isbn-type": "ISBN-type"}
_REF_UPPER = {v: k for k, v in _REF_LOWER.items()}
_REF_KEYS = frozenset(REFERENCE_FIELDS) | frozenset(_REF_UPPER)
_REF_RANK = {name: i for i, name in enumerate(REFERENCE_FIELDS)}


def _references(f: _Fields, raw: dict[str, Any]) -> tuple[Reference, ...]:
    out = []
    keys: dict[str, int] = {}  # key -> index of the first reference that has it
    for i, item in enumerate(f.list_(raw, "reference", "reference")):
        path = f"reference[{i}]"
        if not isinstance(item, dict):
            if isinstance(item, str) and item.strip():
                out.append(Reference(i + 1, None, None, None, squash(item)))
            else:
                f.warn(path, f"should be an object, got {_kind(item)}", "it was kept as an empty reference")
                out.append(Reference(i + 1, None, None, None, None))
            continue
        key = item.get("key")
        key = clean(str(key)) if isinstance(key, (str, int)) and not isinstance(key, bool) else None
        if key and key in keys:
            f.keep(f"{path}.key", key, f'"{_clip(key)}" is also the key of reference[{keys[key]}]',
                   "the reference is kept without it, the key kept as written (kg:asWritten); fix it at the source")
            key = None
        elif key:
            keys[key] = i
        doi = None
        if item.get("DOI") is not None:
            raw_doi = item["DOI"]
            doi = normalize_doi(raw_doi) if isinstance(raw_doi, str) else None
            if doi is None:
                f.warn(f"{path}.DOI", f"{_short(raw_doi)} is not a DOI", "the reference is kept without it")
        fields: list[tuple[str, str]] = []
        present: set[str] = item.keys() & _REF_KEYS
        for name in sorted({_REF_UPPER.get(k, k) for k in present}, key=_REF_RANK.__getitem__):
            v = item.get(name)
            if v is None and name in _REF_LOWER:
                v = item.get(_REF_LOWER[name])  # (ISSN, ISBN, ISSN-type, ISBN-type in some deposits)
            if v is None:
                continue
            if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                s = squash(str(v))
                if s:
                    fields.append((name, s))
            else:
                f.warn(f"{path}.{name}", f"should be a string, got {_kind(v)}")
        unstructured = f.str_(item, "unstructured", f"{path}.unstructured")
        out.append(Reference(i + 1, key or None, doi.lower() if doi else None,
                             f.str_(item, "doi-asserted-by", f"{path}.doi-asserted-by"), unstructured,
                             tuple(fields)))
    return tuple(out)


def _event(f: _Fields, raw: dict[str, Any]) -> Event | None:
    e = f.dict_(raw, "event", "event")
    if not e:
        return None
    sponsors = e.get("sponsor")
    start, end = f.date(e, "start", "event.start"), f.date(e, "end", "event.end")
    if start and end and end.lexical() < start.lexical()[:len(end.lexical())]:
        f.keep("event.end", end.lexical(), f"{end.lexical()} is before the start {start.lexical()}")
        end = None
    ev = Event(
        name=f.str_(e, "name", "event.name"), acronym=f.str_(e, "acronym", "event.acronym"),
        location=f.str_(e, "location", "event.location"), number=f.str_(e, "number", "event.number"),
        theme=f.str_(e, "theme", "event.theme"),
        sponsors=f.strs(e, "sponsor", "event.sponsor") if isinstance(sponsors, list) else
        ((squash(sponsors),) if isinstance(sponsors, str) and sponsors.strip() else ()),
        start=start, end=end,
    )
    return ev if (ev.name or ev.acronym) else None


def _assertion(f: _Fields, x: dict[str, Any], path: str) -> Assertion | None:
    name = f.str_(x, "name", f"{path}.name")
    if not name:
        f.warn(f"{path}.name", "is missing")
        return None
    group = f.dict_(x, "group", f"{path}.group") or {}
    expl = f.dict_(x, "explanation", f"{path}.explanation") or {}
    return Assertion(
        name=name, value=f.str_(x, "value", f"{path}.value"), label=f.str_(x, "label", f"{path}.label"),
        order=f.int_(x, "order", f"{path}.order"), group_name=f.str_(group, "name", f"{path}.group.name"),
        group_label=f.str_(group, "label", f"{path}.group.label"), url=f.str_(x, "URL", f"{path}.URL"),
        explanation=f.str_(expl, "URL", f"{path}.explanation.URL"),
    )


def _relations(f: _Fields, raw: dict[str, Any]) -> tuple[Relation, ...]:
    rel = f.dict_(raw, "relation", "relation") or {}
    out = []
    for rtype_raw in sorted(rel):
        items = rel[rtype_raw]
        rtype = squash(str(rtype_raw))
        if not rtype:
            continue
        if isinstance(items, dict):
            items = [items]
        if not isinstance(items, list):
            f.warn(f"relation.{rtype}", f"should be a list, got {_kind(items)}")
            continue
        for i, x in enumerate(items):
            path = f"relation.{rtype}[{i}]"
            if not isinstance(x, dict):
                f.warn(path, f"should be an object, got {_kind(x)}")
                continue
            ident, kind = f.str_(x, "id", f"{path}.id"), f.str_(x, "id-type", f"{path}.id-type")
            if ident and kind:
                out.append(Relation(rtype, ident, kind.lower(), f.str_(x, "asserted-by", f"{path}.asserted-by"),
                                    normalize_doi(ident) if kind.lower() == "doi" else None))
    return tuple(out)


def _update(f: _Fields, x: dict[str, Any], path: str, _field: str) -> Update | None:
    raw_doi = x.get("DOI")
    doi = normalize_doi(raw_doi) if isinstance(raw_doi, str) else None
    if doi is None:
        f.warn(f"{path}.DOI", f"{_short(raw_doi)} is not a DOI")
        return None
    return Update(f.str_(x, "type", f"{path}.type"), doi.lower(), f.date(x, "updated", f"{path}.updated"),
                  f.str_(x, "label", f"{path}.label"))


def _trial(f: _Fields, x: dict[str, Any], path: str) -> ClinicalTrial | None:
    number = f.str_(x, "clinical-trial-number", f"{path}.clinical-trial-number")
    if not number:
        return None
    registry = f.str_(x, "registry", f"{path}.registry")
    return ClinicalTrial(number, registry, f.str_(x, "type", f"{path}.type"),
                         normalize_doi(registry) if registry else None)


def _institution(f: _Fields, x: dict[str, Any], path: str) -> Institution | None:
    name = f.str_(x, "name", f"{path}.name")
    if not name:
        return None
    return Institution(name, f.strs(x, "place", f"{path}.place"), f.strs(x, "department", f"{path}.department"),
                       f.strs(x, "acronym", f"{path}.acronym"), _ids(f, x, path))


def _project(f: _Fields, p: dict[str, Any], path: str) -> Project:
    titles = tuple(t for q, x in f.objects(p, "project-title", f"{path}.project-title")
                   if (t := f.str_(x, "title", f"{q}.title")))
    descriptions = tuple(t for q, x in f.objects(p, "project-description", f"{path}.project-description")
                         if (t := f.str_(x, "description", f"{q}.description")))
    fundings = []
    for q, x in f.objects(p, "funding", f"{path}.funding"):
        fx = f.dict_(x, "funder", f"{q}.funder") or {}
        doi = None
        for ident, kind, _by in _ids(f, fx, f"{q}.funder"):
            if kind.lower() == "doi":
                doi = normalize_doi(ident)
                if doi is not None and not FUNDER_DOI_RE.match(doi.lower()):
                    f.keep(f"{q}.funder.id", ident, f'"{_clip(ident)}" is not a Funder Registry DOI (10.13039/...)')
                    doi = None
        amount = f.dict_(x, "award-amount", f"{q}.award-amount") or {}
        fundings.append(Funding(
            funder=Funder(f.str_(fx, "name", f"{q}.funder.name"), doi.lower() if doi else None, None, ()),
            funding_type=f.str_(x, "type", f"{q}.type"), scheme=f.str_(x, "scheme", f"{q}.scheme"),
            amount=f.decimal(amount, "amount", f"{q}.award-amount.amount"),
            currency=f.str_(amount, "currency", f"{q}.award-amount.currency"),
            share=f.str_(x, "funding-percentage", f"{q}.funding-percentage"),
        ))
    amount = f.dict_(p, "award-amount", f"{path}.award-amount") or {}
    return Project(titles, descriptions, tuple(fundings), f.decimal(amount, "amount", f"{path}.award-amount.amount"),
                   f.str_(amount, "currency", f"{path}.award-amount.currency"),
                   f.date(p, "award-start", f"{path}.award-start"), f.date(p, "award-end", f"{path}.award-end"))

"""Small helpers shared by the mappers: dates with precision, optional literals, URL objects."""

from __future__ import annotations

from ..model import PartialDate
from ..rdf.terms import XSD_ANYURI, XSD_DATE, XSD_GYEAR, XSD_GYEARMONTH, iri_from_url, lit

Triple = tuple[str, str, str]


def date_lit(d: PartialDate) -> str:
    """A PartialDate as a literal whose datatype keeps its precision (xsd:date / gYearMonth / gYear)."""
    dt = XSD_GYEAR if d.month is None else XSD_GYEARMONTH if d.day is None else XSD_DATE
    return lit(d.lexical(), dt)


def year_lit(d: PartialDate) -> str:
    return lit(f"{d.year:04d}", XSD_GYEAR)


def url_obj(url: str) -> str:
    """A URL as an IRI when it is one, else as an xsd:anyURI literal (never an invalid IRI)."""
    token = iri_from_url(url)
    return token if token is not None else lit(url, XSD_ANYURI)


def add_str(out: list[Triple], s: str, p: str, value: str | None) -> None:
    if value:
        out.append((s, p, lit(value)))

"""RDF terms as N-Triples tokens: the one text form every stage of the pipeline shares.

An IRI is the string ``<iri>``; a literal is ``"lexical"``, ``"lexical"^^<datatype>`` or
``"lexical"@lang``. Mappers build triples of such tokens, the sorter orders their lines, and
the exporters re-group them. Example:

>>> lit("2025", XSD_GYEAR)
'"2025"^^<http://www.w3.org/2001/XMLSchema#gYear>'
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote

import pyoxigraph

from .vocab import XSD, XSD_STRING

XSD_INTEGER = XSD.integer
XSD_BOOLEAN = XSD.boolean
XSD_DATE = XSD.date
XSD_GYEARMONTH = XSD.gYearMonth
XSD_GYEAR = XSD.gYear
XSD_DATETIME = XSD.dateTime
XSD_ANYURI = XSD.anyURI
XSD_LANGUAGE = XSD.language
XSD_DECIMAL = XSD.decimal

_ESC = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})
_NEEDS_ESC = re.compile(r'[\\"\n\r]').search  # most values need no escape: translate() only those that do
# Characters that may never stand in an IRIREF, plus '%' handled separately by callers.
_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_UNESC = re.compile(r'\\(["\\nrtbf]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})')
_UNESC_MAP = {'"': '"', "\\": "\\", "n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}


def lit(value: str, datatype: str | None = None) -> str:
    """A literal token; ``datatype`` is an IRI token, None or xsd:string give a plain literal."""
    body = '"' + (value.translate(_ESC) if _NEEDS_ESC(value) else value) + '"'
    if datatype is None or datatype == XSD_STRING:
        return body
    return body + "^^" + datatype


def lang_lit(value: str, lang: str) -> str:
    """A language-tagged literal token (tag lower-cased, as canonical N-Triples wants)."""
    return '"' + (value.translate(_ESC) if _NEEDS_ESC(value) else value) + '"@' + lang.lower()


def integer(n: int) -> str:
    """An xsd:integer literal token."""
    return f'"{n}"^^{XSD_INTEGER}'


@lru_cache(maxsize=4096)
def decimal(text: str) -> str | None:
    """An xsd:decimal literal token in canonical form ("1000.50" -> "1000.5"); None when not a decimal."""
    m = re.fullmatch(r"\s*([+-]?)([0-9]*)(?:\.([0-9]*))?\s*", text)  # (ASCII digits: "٥" is no xsd:decimal)
    if not m or not (m.group(2) or m.group(3)):
        return None
    sign, whole, frac = m.group(1), (m.group(2) or "0").lstrip("0") or "0", (m.group(3) or "").rstrip("0")
    if whole == "0" and not frac:
        sign = ""
    return f'"{"-" if sign == "-" else ""}{whole}{"." + frac if frac else ""}"^^{XSD_DECIMAL}'


def score_decimal(score: float) -> str:
    """The xsd:decimal literal token of a score rounded to two places.

    >>> score_decimal(0.5)
    '"0.5"^^<http://www.w3.org/2001/XMLSchema#decimal>'
    """
    token = decimal(f"{score:.2f}")
    assert token is not None, score  # a finite float to two places is a decimal
    return token


def boolean(b: bool) -> str:
    """An xsd:boolean literal token."""
    return f'"{"true" if b else "false"}"^^{XSD_BOOLEAN}'


def _encode_unsafe(text: str) -> str:
    return _IRI_UNSAFE.sub(lambda m: "%{:02X}".format(ord(m.group())), text)


def is_valid_iri(iri: str) -> bool:
    """True when ``iri`` is an absolute IRI that RDF parsers accept (checked by Oxigraph's RFC 3987 parser)."""
    try:
        pyoxigraph.NamedNode(iri)
    except ValueError:
        return False
    return True


def iri(value: str) -> str:
    """An IRI token for an IRI the caller built and knows is valid."""
    return "<" + value + ">"


def iri_from_url(url: str) -> str | None:
    """An IRI token for a URL found in data, percent-encoding what an IRI may not hold; None if it is no IRI.

    Example:

    >>> iri_from_url("https://x.org/a b")
    '<https://x.org/a%20b>'
    """
    url = url.strip()
    if not url or ":" not in url:
        return None
    candidate = _encode_unsafe(url)
    if is_valid_iri(candidate):
        return "<" + candidate + ">"
    candidate = quote(url, safe="!#$&'()*+,/:;=?@[]~%")
    if is_valid_iri(candidate):
        return "<" + candidate + ">"
    return None


def encode_segment(text: str) -> str:
    """Percent-encode ``text`` for use inside a minted IRI path (keeps '/' and IRI-safe characters).

    Example:

    >>> encode_segment("10.1002/(SICI)<x>#1")
    '10.1002/(SICI)%3Cx%3E%231'
    """
    return quote(text, safe="/!$&'()*+,;=:@-._~")


def token_value(token: str) -> str:
    """The IRI of an IRI token (``<x>`` -> ``x``)."""
    return token[1:-1]


# ---------------------------------------------------------------- parsing


def literal_parts(token: str) -> tuple[str, str | None, str | None]:
    """A literal token -> (lexical value, datatype IRI or None, language or None)."""
    end = token.rfind('"')
    lexical = _UNESC.sub(_unescape, token[1:end])
    tail = token[end + 1:]
    if tail.startswith("^^"):
        return lexical, tail[3:-1], None
    if tail.startswith("@"):
        return lexical, None, tail[1:]
    return lexical, None, None


def _unescape(m: re.Match[str]) -> str:
    c = m.group(1)
    if c in _UNESC_MAP:
        return _UNESC_MAP[c]
    return chr(int(c[1:], 16))

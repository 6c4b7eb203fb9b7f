"""Identifiers in a record: DOIs, ORCID iDs, ISSNs and ISBNs, checked (check digits included) and normalised.

>>> normalize_doi("https://doi.org/10.1000/X"), issn_ok("0317-8471")
('10.1000/X', True)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .fields import Fields
from .text import ascii_digits, clip

# Digits are ASCII digits everywhere ([0-9], never \d or str.isdigit(), which take "٥" and "²"): the shapes
# and the XSD datatypes want [0-9].
DOI_RE = re.compile(r"^10\.[0-9]{3,9}(?:\.[0-9]+)*/\S.*$", re.S)
FUNDER_DOI_RE = re.compile(r"^10\.13039/\S+$")  # the Funder Registry's prefix, as the funder shape wants it
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)
ORCID_RE = re.compile(r"^(?:https?://(?:www\.)?orcid\.org/)?([0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X])/?$", re.I)
MAX_DOI = 4096  # characters: no DOI comes near (Crossref's are under 300); a longer value is no DOI
# C0, DEL, C1, the Unicode line breaks, and what no RDF syntax carries (lone surrogates, U+FFFE, U+FFFF)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff\ud800-\udfff]")
ISSN_RE = re.compile(r"^([0-9]{4})-?([0-9]{3}[0-9X])$", re.I)


def normalize_doi(value: str) -> str | None:
    r"""A DOI without resolver prefix (and the spaces and line breaks around it), or None when it is not
    DOI-shaped: a control character (C0 or C1: NUL, ESC, a tab ...) or one no RDF syntax carries is no part of a
    DOI, and dropping it would make another DOI. Case is kept.

    >>> normalize_doi("10.1000/a\x00b"), normalize_doi("10.1000/a\x1b[2Jb"), normalize_doi("10.1000/a\x9bb")
    (None, None, None)
    """
    if len(value) > MAX_DOI:
        return None
    doi = _DOI_PREFIX.sub("", value.strip(" \t\r\n"))
    if not doi.isprintable() and _CONTROL.search(doi):
        return None
    return doi if DOI_RE.match(doi) else None


def control_character(value: str) -> str | None:
    r"""The first control character of a value (one ``normalize_doi`` refuses), as U+XXXX, or None.

    >>> control_character("10.1000/a\x1bb")
    'U+001B'
    """
    found = _CONTROL.search(value.strip(" \t\r\n"))
    return f"U+{ord(found.group()):04X}" if found else None


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


def issn_ok(issn: str) -> bool:
    """ISSN check digit (mod 11) of ``NNNN-NNNC``."""
    d = issn.replace("-", "")
    total = sum((8 - i) * int(c) for i, c in enumerate(d[:7]))
    check = (11 - total % 11) % 11
    return d[7] == ("X" if check == 10 else str(check))


def norm_issn(value: str) -> str | None:
    m = ISSN_RE.match(value.strip())
    return f"{m.group(1)}-{m.group(2).upper()}" if m else None


def norm_isbn(value: str) -> str | None:
    s = re.sub(r"[\s-]", "", value).upper()
    return s if re.fullmatch(r"[0-9]{9}[0-9X]|97[89][0-9]{10}", s) else None


def id_ok(key: str, n: str) -> bool:
    return isbn_ok(n) if key == "ISBN" else issn_ok(n)


def read_typed_ids(f: Fields, raw: dict[str, Any], key: str, type_key: str,
               norm: Callable[[str], str | None]) -> tuple[tuple[str, str | None], ...]:
    types: dict[str, str] = {}
    for _path, t in f.objects(raw, type_key, type_key):
        v, kind = t.get("value"), t.get("type")
        if isinstance(v, str) and isinstance(kind, str):
            n = norm(v)
            if n and id_ok(key, n):
                types.setdefault(n, kind)
    out: dict[str, str | None] = {}
    for i, v in enumerate(f.strs(raw, key, key)):
        n = norm(v)
        if n is None:
            f.warn(f"{key}[{i}]", f'"{clip(v)}" is not a valid {key}')
            continue
        if not id_ok(key, n):
            f.warn(f"{key}[{i}]", f'"{clip(v)}" has a bad check digit')
            continue
        out.setdefault(n, types.get(n))
    for n, kind in types.items():
        out.setdefault(n, kind)
    return tuple(sorted(out.items(), key=lambda kv: kv[0]))


def read_ids(f: Fields, obj: dict[str, Any], path: str) -> tuple[tuple[str, str, str | None], ...]:
    out = []
    for p, x in f.objects(obj, "id", f"{path}.id"):
        ident, kind = f.str_(x, "id", f"{p}.id"), f.str_(x, "id-type", f"{p}.id-type")
        if ident and kind:
            out.append((ident, kind, f.str_(x, "asserted-by", f"{p}.asserted-by")))
    return tuple(out)

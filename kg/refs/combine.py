"""The rule parser and the CRF together: the rules where they are sure, the model elsewhere (docs/model.md 6.1).

Chosen per field on the devset's tuning half (bench/eval_parse.py): the title is the rules' when they are sure
of it (between quotes: IEEE, Harvard with quoted titles; after "Authors. Year." in the ACM format), else the
model's (the rules' when the model found none); the authors and the year are the model's (the rules' when the
model found none), authors that are not names, or that are the title, dropped; DOI, URLs,
arXiv id and access date are the rules' (patterns that do not guess). A text the publisher deposited twice
(the same text repeated) is parsed once.
"""

from __future__ import annotations

import dataclasses
import re

from .fields import RefFields, fields, is_name, split_names
from .parse import ParsedRef, _clean_title, clean_text, fold, rule_parse

_ENUM = re.compile(r"^\[?\d{1,3}[.\])]\s?(?=\S)")
_SEPS = " .,;"
_VENUE_LIKE = re.compile(r"^(?:in\s|proc\b|journal\b|advances in)"
                         r"|\b(?:proceedings|conference|transactions on|symposium|workshop|journal of)\b", re.I)


def undouble(text: str) -> str:
    """The text once when it is the same text twice (a doubled deposit), else the text.

    >>> undouble("Smith J (2019) A title. J Biol 4:1-9. Smith J (2019) A title. J Biol 4:1-9.")
    'Smith J (2019) A title. J Biol 4:1-9.'
    """
    n = len(text)
    if n < 20:
        return text
    for m in range(n // 2 - 3, n // 2 + 4):
        if 0 < m < n and (text[m - 1] in _SEPS or text[m] == " "):
            a, b = text[:m].strip(_SEPS), text[m:].strip(_SEPS)
            if a and a == b:
                return text[:m].strip(" ;,")
    return text


def _sure_title(rules: ParsedRef, text: str, crf_title: str | None) -> bool:
    """True where the rules' title is sure: it stood between quotes (IEEE, quoted Harvard), or it follows
    "Authors. Year." (the ACM reference format, whose year between full stops marks where the title starts), or
    the model's title holds it and more in the natbib format ("Names. Title. Venue")."""
    if not rules.title:
        return False
    if rules.style == "acm":
        return True
    if rules.style == "natbib" and crf_title and fold(rules.title) in fold(crf_title):
        return True  # "Names. Title. Venue": a longer title of the model's has taken in the names before it
    i = text.find(rules.title)
    return rules.style in ("ieee", "harvard") and i > 0 and text[i - 1] in "“\"«'‘"


def combine(text: str) -> ParsedRef:
    """The parsed fields of a free-text reference, from the rules and the CRF."""
    text = undouble(clean_text(text))
    rules = rule_parse(text)
    crf: RefFields = fields(_ENUM.sub("", text))
    known = rules.style != "unknown"
    title = rules.title if _sure_title(rules, text, crf.title) else crf.title or rules.title
    in_title = f" {fold(title)} " if title else ""
    authors = tuple(n.text for n in crf.authors if is_name(n.text) and f" {fold(n.text)} " not in in_title) or \
        tuple(n.text for a in rules.authors for n in split_names(a) if is_name(n.text))
    year = crf.year or rules.year
    venue = crf.venue or rules.venue
    style = rules.style if known or not (title or authors) else "model"
    return dataclasses.replace(rules, title=title, authors=authors, year=year, venue=venue, style=style)


def deposited_title(title: str | None, venue: str | None, text: ParsedRef, unstructured: str | None) -> str | None:
    """The deposited ``article-title`` when it is sound next to the text: it occurs in the text (after folding),
    before the text's venue, is not a piece of the text's title, and is not a venue itself (not the
    ``journal-title``, not inside the text's venue, not venue-like: "Proceedings of ...", "In ...", "13th USENIX
    Symposium on ..."); else None, and the text's title wins.

    >>> text = "Doe J (2019) Fast kernels. In 3rd Symposium on Kernels (SK'19). 1-9"
    >>> deposited_title("Fast Kernels", None, combine(text), text)
    'Fast Kernels'
    >>> text = "Doe J (2019) Fast kernels. In 3rd Symposium on Kernels"
    >>> deposited_title("3rd Symposium on Kernels (SK'19)", None, combine(text), text)
    """
    title = _clean_title(title)
    if not title or not unstructured:
        return title
    key, body = fold(title), f" {fold(clean_text(unstructured))} "
    where = body.find(f" {key} ")
    text_venue = fold(text.venue or "")
    venue_at = body.find(f" {text_venue} ") if text_venue else -1
    text_title = fold(text.title or "")
    fragment = key != text_title and key in text_title
    if where < 0 or fragment or _VENUE_LIKE.search(title) or key == fold(venue or "") or \
            text_venue and (key in text_venue or text_venue in key) or 0 <= venue_at <= where:
        return None
    return title

"""The text values of a record: characters no RDF syntax carries, white space, JATS markup, page ranges, and the
short forms of values in warnings.

>>> squash("  A  paper "), page_bounds("283-298")
('A paper', ('283', '298', False))
"""

from __future__ import annotations

import html
import re
from typing import Any

# Digits are ASCII digits everywhere ([0-9], never \d or str.isdigit(), which take "٥" and "²"): the shapes
# and the XSD datatypes want [0-9].
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")
_WS = re.compile(r"\s+")
_TAG = re.compile(r"<[^<>]+>")
_BLOCK = re.compile(r"</?(?:jats:)?(?:p|sec|title|list-item|list|disp-quote|def-item|def-list)\b[^>]*>", re.I)
_PAGE_RANGE = re.compile(r"^\s*([^\s\-–—]+)\s*[-–—]+\s*([^\s\-–—]+)\s*$")
MAX_INT_DIGITS = 18  # counts, orders, delays: longer digit strings are no count (and int() refuses 4,301+ digits)
# characters of one value kept (a longer one is cut, with a warning): at most 4 MiB of UTF-8, 8 MiB escaped, within
# the 16 MiB of one value Oxigraph's parsers and bulk loader hold (the largest real abstracts are ~100 KB)
MAX_VALUE = 1 << 20


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


def json_kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


def short(v: Any) -> str:
    try:
        s = repr(v)
    except (ValueError, RecursionError):  # (an int of more than 4,300 digits; nesting past the recursion limit)
        return json_kind(v)
    return s if len(s) <= 40 else s[:37] + "..."


def clip(s: str, n: int = 60) -> str:
    """A value for a one-line message: control characters and line breaks shown escaped, long text cut."""
    s = "".join(c if c.isprintable() else repr(c)[1:-1] for c in clean(s))
    return s if len(s) <= n else s[: n - 3] + "..."


def within_limit(raw: Any, limit: int = MAX_VALUE) -> tuple[Any, list[tuple[str, int]]]:
    """A record with every string longer than ``limit`` characters cut to its first ``limit`` (at a character
    boundary), and the (field path, length) of each one cut; a DOI is never cut (its identity: a long one is no
    DOI). The record is copied only along the paths of values cut.

    >>> within_limit({"title": ["ab", "abcdef"], "DOI": "10.1/abcdef"}, limit=4)
    ({'title': ['ab', 'abcd'], 'DOI': '10.1/abcdef'}, [('title[1]', 6)])
    """
    import orjson
    try:
        if len(orjson.dumps(raw)) <= limit:  # (the common case, at C speed: nothing can be that long)
            return raw, []
    except (TypeError, orjson.JSONEncodeError):  # (an integer orjson does not write: look at every value)
        pass
    cut: list[tuple[str, int]] = []
    return _cut(raw, "", limit, cut), cut


def _cut(v: Any, path: str, limit: int, cut: list[tuple[str, int]]) -> Any:
    if isinstance(v, str):
        if len(v) > limit and not path.endswith("DOI"):
            cut.append((path, len(v)))
            return v[:limit]
        return v
    if isinstance(v, dict):
        out = {k: _cut(x, f"{path}.{k}" if path else str(k), limit, cut) for k, x in v.items()}
        return out if any(out[k] is not v[k] for k in v) else v
    if isinstance(v, list):
        items = [_cut(x, f"{path}[{i}]", limit, cut) for i, x in enumerate(v)]
        return items if any(a is not b for a, b in zip(items, v, strict=True)) else v
    return v

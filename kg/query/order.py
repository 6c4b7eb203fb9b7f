"""A listing's ORDER BY (and DISTINCT) done outside the engine, so that its rows can be sorted on disk.

An engine sorts an answer in memory: Oxigraph holds every row of a listing before it writes the first (1.2 GB for
the references of 20,000 records, and growing with them), and keeps every row seen for a DISTINCT. ``unordered``
rewrites a listing's text so that the engine streams: the ORDER BY clause dropped, each of its conditions
projected instead, as a column of its own after the listing's columns (``(LCASE(?citing) AS ?kg_order_1)``), and
DISTINCT dropped (``Unordered.distinct`` says it was there). ``sort_key`` turns one row's values of those
columns into a string that sorts, as plain text, in the order Oxigraph's ORDER BY gives them (its ``cmp_terms``):
unbound first, then blank nodes, IRIs and literals; numbers by value, any other literal by its lexical form, then
datatype, then language; DESC reversed. kg.query.index sorts the rows by that string with kg.infra.extsort.

Two rows whose keys are equal come out by their own text (Oxigraph leaves their order open: its sort is not
stable); each listing orders by enough columns that ties are rows alike in every column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ..rdf import vocab
from .results import RDF_LANGSTRING, XSD_STRING, Cell
from .text import TAIL_PAGING, mask, outer_syntax

KEY_PREFIX = "kg_order_"  # the variables of the projected conditions: ?kg_order_1, ?kg_order_2, ...

_XSD = vocab.XSD.base
# What Oxigraph compares as numbers (ExpressionTerm's Integer, Decimal, Float and Double: the derived integer types
# read as xsd:integer)
NUMERIC = frozenset(_XSD + t for t in (
    "integer decimal double float int long short byte nonNegativeInteger positiveInteger negativeInteger "
    "nonPositiveInteger unsignedLong unsignedInt unsignedShort unsignedByte").split())


@dataclass(frozen=True)
class Unordered:
    """A listing's text that the engine can stream: its columns, then one column per ORDER BY condition."""
    text: str
    keys: int  # how many ORDER BY conditions (the last ``keys`` columns of each row)
    descending: tuple[bool, ...]  # for each condition, DESC
    functions: tuple[tuple[str, ...], ...]  # for each condition, the functions to apply to its column (``apply``)
    distinct: bool  # the listing is SELECT DISTINCT: keep a row's first place only (by its key), once


_CONDITION = re.compile(r"(?is)\s*(?:(ASC|DESC)\s*(\(.*)|(.+))\Z")


def unordered(text: str) -> Unordered | None:
    """The streaming form of a SELECT whose outer query ends with an ORDER BY clause (nothing after it but
    comments and white space); None for any other query (the engine sorts it as written).

    >>> u = unordered("SELECT DISTINCT ?a (?b AS ?c) WHERE { ?a <p> ?b } ORDER BY DESC(?b) LCASE(?a) ?c")
    >>> u.text
    'SELECT  ?a (?b AS ?c) (?b AS ?kg_order_1) (?a AS ?kg_order_2) (?c AS ?kg_order_3) WHERE { ?a <p> ?b } '
    >>> u.keys, u.descending, u.functions, u.distinct
    (3, (True, False, False), ((), ('LCASE',), ()), True)
    """
    masked = mask(text)
    outer = outer_syntax(masked)
    select = re.search(r"(?i)(?<![\w?$:])SELECT(?![\w:])", outer)
    order = list(re.finditer(r"(?i)(?<![\w?$:])ORDER\s+BY(?![\w:])", outer))
    if select is None or not order:
        return None
    cut = order[-1]
    clause = masked[cut.end():]
    if TAIL_PAGING.search(outer_syntax(clause)):
        return None
    conditions = _conditions(text[cut.end():], clause)
    if not conditions:
        return None
    body = re.compile(r"(?i)(?<![\w?$:])WHERE(?![\w:])|\{").search(outer, select.end())
    if body is None:
        return None
    projection = text[select.end():body.start()]
    modifier = re.match(r"(?is)\s*(DISTINCT|REDUCED)(?![\w:])", projection)
    distinct = bool(modifier and modifier.group(1).upper() == "DISTINCT")
    if modifier:
        projection = " " + projection[modifier.end():]
    if projection.strip() == "*":
        return None  # (SELECT *: the key columns would change what * is)
    descending, columns, functions = [], [], []
    for n, (desc, expression) in enumerate(conditions, 1):
        descending.append(desc)
        chain = _chain(expression)
        # (a variable under STR, LCASE, UCASE: the variable projected and the functions applied here, for a
        # string an engine computes is kept in its memory until the query ends)
        functions.append(chain[0] if chain else ())
        columns.append(f"({chain[1] if chain else expression} AS ?{KEY_PREFIX}{n})")
    new = (text[:select.end()] + projection.rstrip() + " " + " ".join(columns) + " "
           + text[body.start():cut.start()])
    return Unordered(new, len(conditions), tuple(descending), tuple(functions), distinct)


_CALL = re.compile(r"(?is)\A(STR|LCASE|UCASE)\s*\((.*)\)\Z")


def _chain(expression: str) -> tuple[tuple[str, ...], str] | None:
    """A condition that is a variable under STR, LCASE and UCASE calls as (the functions, outermost first; the
    variable); None for any other expression.

    >>> _chain("(LCASE(STR( ?doi )))"), _chain("?a"), _chain("CONCAT(?a, ?b)")
    ((('LCASE', 'STR'), '?doi'), ((), '?a'), None)
    """
    names: list[str] = []
    expression = expression.strip()
    while True:
        if re.fullmatch(r"[?$][A-Za-z0-9_\u00b7\u00c0-\U000effff]+", expression):
            return tuple(names), expression
        if expression.startswith("(") and expression.endswith(")"):
            expression = expression[1:-1].strip()
            continue
        m = _CALL.match(expression)
        if m is None:
            return None
        names.append(m.group(1).upper())
        expression = m.group(2).strip()


def apply(functions: tuple[str, ...], cell: Cell) -> Cell:
    """What ``functions`` (outermost first) give for a value, as Oxigraph computes them: STR the lexical form or
    IRI as a plain literal, LCASE and UCASE the literal with its text in lower or upper case (Unicode's full case
    mappings, as Rust's and Python's are); None (unbound) where SPARQL gives an error (STR of a blank node, LCASE
    of an IRI).

    >>> apply(("LCASE", "STR"), ("uri", "http://A/B", None, None))
    ('literal', 'http://a/b', None, None)
    """
    for name in reversed(functions):
        if cell is None:
            return None
        kind, value, datatype, lang = cell
        if name == "STR":
            cell = ("literal", value, None, None) if kind in ("uri", "literal") else None
        elif kind != "literal" or (datatype is not None and lang is None and datatype != XSD_STRING):
            return None  # (LCASE and UCASE take a string literal)
        else:
            cell = (kind, value.lower() if name == "LCASE" else value.upper(), datatype, lang)
    return cell


def _conditions(text: str, masked: str) -> list[tuple[bool, str]]:
    """The conditions of an ORDER BY clause (what follows the keywords), each as (DESC, expression text): split
    at white space outside parentheses, a function's name kept with its arguments."""
    parts: list[str] = []
    depth, start = 0, None
    for i, ch in enumerate(masked):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return []
        if start is None and not ch.isspace():
            start = i
        elif start is not None and depth == 0 and ch.isspace():
            if not (masked[i:].lstrip().startswith("(") and re.fullmatch(r"[A-Za-z_][\w:.-]*", masked[start:i])):
                parts.append(text[start:i])  # (a name, then "(" after white space: one call, LCASE (?x))
                start = None
    if depth:
        return []
    if start is not None:
        parts.append(text[start:len(masked.rstrip())])
    out = []
    for part in parts:
        m = _CONDITION.match(part.strip())
        if m is None:
            return []
        if m.group(1):
            out.append((m.group(1).upper() == "DESC", m.group(2).strip()))
        else:
            out.append((False, m.group(3).strip()))
    return out


def sort_key(cells: list[Cell], descending: tuple[bool, ...]) -> str:
    """A string that sorts (as text, code point by code point) where a row whose ORDER BY conditions have the
    values ``cells`` goes: hex digits of an order-preserving byte encoding, each condition's part prefix-free
    (so that no key is a proper prefix of another), a DESC part with every byte complemented.

    >>> from kg.query.results import tsv_cell
    >>> rows = [[tsv_cell(v)] for v in ("10", "9", "2.5", '"b"', "<http://a>", "")]
    >>> [c[0][1] if c[0] else None for c in sorted(rows, key=lambda r: sort_key(r, (False,)))]
    [None, 'http://a', '2.5', '9', '10', 'b']
    """
    out = bytearray()
    for cell, desc in zip(cells, descending, strict=True):
        part = _term(cell)
        out += bytes(255 - b for b in part) if desc else part
    return out.hex()


def _term(cell: Cell) -> bytes:
    if cell is None:
        return b"\x00"
    kind, value, datatype, lang = cell
    if kind == "bnode":
        return b"\x01" + _text(value)
    if kind == "uri":
        return b"\x02" + _text(value)
    if datatype in NUMERIC:
        number = _number(value, datatype)
        if number is not None:
            return b"\x03" + number
    datatype = RDF_LANGSTRING if lang is not None else datatype or XSD_STRING
    return (b"\x04" + _text(value) + _text(datatype)
            + (b"\x00" if lang is None else b"\x01" + _text(lang)))


def _text(value: str) -> bytes:
    """UTF-8 (whose byte order is code-point order), NUL escaped, then an end that sorts before any byte."""
    return value.encode("utf-8").replace(b"\x00", b"\x00\xff") + b"\x00\x01"


_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_DOUBLE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF")
_I64 = 1 << 63
_DECIMAL_LIMIT = Decimal(2 ** 127) / Decimal(10 ** 18)  # (Oxigraph's xsd:decimal: an i128 of 10^-18 units)


def _number(lexical: str, datatype: str) -> bytes | None:
    """An order-preserving, prefix-free encoding of a number's value; None for what Oxigraph does not read as a
    number (NaN, an integer outside 64 bits, a decimal outside its 128-bit range or finer than 10^-18, a form the
    type does not allow). The class (-INF, negative, zero, positive, INF), then for a finite number its decimal
    exponent and digits, complemented when negative."""
    if datatype == _XSD + "decimal":
        pattern = _DECIMAL
    elif datatype in (_XSD + "double", _XSD + "float"):
        pattern = _DOUBLE
    else:
        pattern = _INTEGER
    if not pattern.fullmatch(lexical):
        return None
    if lexical.endswith("INF"):
        return b"\x01" if lexical.startswith("-") else b"\x05"
    number = Decimal(lexical)
    places = number.as_tuple().exponent
    assert isinstance(places, int)  # (a finite number)
    if pattern is _INTEGER and not -_I64 <= number < _I64:
        return None
    if pattern is _DECIMAL and (abs(number) >= _DECIMAL_LIMIT or places < -18):
        return None
    if number == 0:
        return b"\x03"
    sign, digits, exponent = number.normalize().as_tuple()
    assert isinstance(exponent, int)
    magnitude = ((exponent + len(digits) + (1 << 31)).to_bytes(4, "big")
                 + bytes(d + 1 for d in digits) + b"\x00")
    return b"\x02" + bytes(255 - b for b in magnitude) if sign else b"\x04" + magnitude

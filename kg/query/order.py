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
from .results import RDF_LANGSTRING, XSD_STRING, Cell, tsv_cell
from .text import TAIL_PAGING, brace_depths, mask, outer_syntax

KEY_PREFIX = "kg_order_"  # the variables of the projected conditions: ?kg_order_1, ?kg_order_2, ...

_XSD = vocab.XSD.base
# What Oxigraph compares as numbers (ExpressionTerm's Integer, Decimal, Float and Double: the derived integer types
# read as xsd:integer)
NUMERIC = frozenset(_XSD + t for t in (
    "integer decimal double float int long short byte nonNegativeInteger positiveInteger negativeInteger "
    "nonPositiveInteger unsignedLong unsignedInt unsignedShort unsignedByte").split())


Step = str | tuple[str, int, int | None]  # STR, LCASE or UCASE, or ("SUBSTR", start, length or None)


@dataclass(frozen=True)
class Unordered:
    """A listing's text that the engine can stream: its columns, then one column per ORDER BY condition (or,
    when ``sources`` is set, its columns only: each condition is a function of one of them)."""
    text: str
    keys: int  # how many ORDER BY conditions (the last ``keys`` columns of each row, unless ``sources``)
    descending: tuple[bool, ...]  # for each condition, DESC
    functions: tuple[tuple[Step, ...], ...]  # for each condition, the functions to apply to its column (``apply``)
    distinct: bool  # the listing is SELECT DISTINCT: keep a row's first place only (by its key), once
    sources: tuple[int, ...] | None = None  # for each condition, the listing's column it is computed from
    folds: tuple[tuple[int, str], ...] = ()  # (column, MIN, MAX or COUNT DISTINCT) of a ``#fold`` GROUP BY


_CONDITION = re.compile(r"(?is)\s*(?:(ASC|DESC)\s*(\(.*)|(.+))\Z")


def unordered(text: str) -> Unordered | None:
    """The streaming form of a SELECT whose outer query ends with an ORDER BY clause (nothing after it but
    comments and white space); None for any other query (the engine sorts it as written).

    A condition that is a variable bound at the end of the outer group by ``BIND (f(?x) AS ?v)`` (``f`` a chain of
    STR, LCASE, UCASE and SUBSTR with constant places) is read as ``f(?x)``, and the BIND, used nowhere else, is
    dropped: a string the engine computes stays in its memory until the query ends. When every condition is then
    a function of one of the listing's columns, nothing is added (``sources``); otherwise each condition is
    projected as a column of its own.

    >>> u = unordered("SELECT DISTINCT ?a (?b AS ?c) WHERE { ?a <p> ?b } ORDER BY DESC(?b) LCASE(?a) ?c")
    >>> u.text
    'SELECT  ?a (?b AS ?c) WHERE { ?a <p> ?b } '
    >>> u.keys, u.descending, u.functions, u.distinct, u.sources
    (0, (True, False, False), ((), ('LCASE',), ()), True, (1, 0, 1))
    >>> unordered("SELECT ?a WHERE { ?a <p> ?b BIND (LCASE(?b) AS ?k) } ORDER BY ?k ?a").text
    'SELECT ?a (?b AS ?kg_order_1) (?a AS ?kg_order_2) WHERE { ?a <p> ?b  } '
    """
    text, folded = _unfolded(text)
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
    body = _body(masked, select.end())
    if body is None:
        return None
    projection = text[select.end():body]
    modifier = re.match(r"(?is)\s*(DISTINCT|REDUCED)(?![\w:])", projection)
    distinct = bool(modifier and modifier.group(1).upper() == "DISTINCT")
    if modifier:
        projection = " " + projection[modifier.end():]
    if projection.strip() == "*":
        return None  # (SELECT *: the key columns would change what * is)
    binds = _tail_binds(text, masked, body, cut.start())
    chains = [_resolved(expression, binds) for _, expression in conditions]
    names = _columns(mask(projection))
    sources = [names.get(chain[1][1:]) if chain else None for chain in chains]
    descending = tuple(desc for desc, _ in conditions)
    functions = tuple(chain[0] if chain else () for chain in chains)
    if folded and (distinct or None in sources):
        raise ValueError("a #fold GROUP BY needs a listing without DISTINCT whose every ORDER BY condition is a "
                         "function of one of its columns")
    folds = []
    for variable, aggregate in folded:
        if variable not in names:
            raise ValueError(f"the #fold aggregate ?{variable} is none of the listing's columns")
        folds.append((names[variable], aggregate))
    if None not in sources:
        body_text = _without(text, body, cut.start(), binds, projection)
        new = text[:select.end()] + projection.rstrip() + " " + body_text
        return Unordered(new, 0, descending, functions, distinct, tuple(s for s in sources if s is not None),
                         tuple(folds))
    columns = [f"({chain[1] if chain else expression} AS ?{KEY_PREFIX}{n})"
               for n, ((_, expression), chain) in enumerate(zip(conditions, chains, strict=True), 1)]
    projection = projection.rstrip() + " " + " ".join(columns)
    new = text[:select.end()] + projection + " " + _without(text, body, cut.start(), binds, projection)
    return Unordered(new, len(conditions), descending, functions, distinct)


def _body(masked: str, start: int) -> int | None:
    """Where the group of a SELECT whose projection starts at ``start`` begins: its WHERE, or its "{" (the first
    outside parentheses: a projected EXISTS holds braces)."""
    depth = 0
    for m in re.finditer(r"(?i)(?<![\w?$:])WHERE(?![\w:])|[{()]", masked[start:]):
        if m.group(0) == "(":
            depth += 1
        elif m.group(0) == ")":
            depth -= 1
        elif depth == 0:
            return start + m.start()
    return None


_VARIABLE = r"[?$][A-Za-z0-9_\u00b7\u00c0-\U000effff]+"


def _columns(projection: str) -> dict[str, int]:
    """The listing's columns by the variables that give them (a masked projection): ``?a`` gives column a,
    ``(?x AS ?y)`` gives column y (read through ?x or ?y), ``(EXPR AS ?y)`` column y.

    >>> _columns(" ?a (?b AS ?c) (LCASE(?d) AS ?e) ")
    {'a': 0, 'c': 1, 'b': 1, 'e': 2}
    """
    names: dict[str, int] = {}
    for n, m in enumerate(re.finditer(rf"({_VARIABLE})|\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)", projection)):
        if m.group(1):
            names.setdefault(m.group(1)[1:], n)
            continue
        alias = re.fullmatch(rf"(?is)\s*(.*?)\s+AS\s+({_VARIABLE})\s*", m.group(2))
        if alias is None:
            return {}
        names.setdefault(alias.group(2)[1:], n)
        if re.fullmatch(_VARIABLE, alias.group(1)):
            names.setdefault(alias.group(1)[1:], n)
    return names


@dataclass(frozen=True)
class _Bind:
    start: int
    end: int
    variable: str  # (without its ? or $)
    expression: str


def _tail_binds(text: str, masked: str, start: int, end: int) -> dict[str, _Bind]:
    """The BINDs at the end of the outer group (``text[start:end]`` holds it), by variable: those after which the
    group holds nothing but other BIND and FILTER calls, so that every variable of the group is bound when they
    are evaluated."""
    depths = brace_depths(masked[:end])
    calls: list[_Bind] = []
    for m in re.finditer(r"(?i)(?<![\w?$:])(BIND|FILTER)\s*\(", masked[start:end]):
        at = start + m.start()
        close = _closing(masked, start + m.end() - 1)
        if depths[at] != 1 or close is None or close >= end:
            continue
        variable, expression = "", ""
        if m.group(1).upper() == "BIND":
            alias = re.fullmatch(rf"(?is)(\s*.*?)\s+AS\s+({_VARIABLE})\s*", masked[start + m.end():close])
            if alias:
                variable = alias.group(2)[1:]
                expression = text[start + m.end():start + m.end() + alias.end(1)].strip()
        calls.append(_Bind(at, close + 1, variable, expression))
    tail: dict[str, _Bind] = {}
    after = masked.rfind("}", start, end)
    for call in reversed(calls):
        if masked[call.end:after].strip():
            break
        after = call.start
        if call.variable:
            tail[call.variable] = call
    return tail


def _closing(masked: str, opening: int) -> int | None:
    """The place of the ")" that closes the "(" at ``opening``."""
    depth = 0
    for i in range(opening, len(masked)):
        if masked[i] == "(":
            depth += 1
        elif masked[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _resolved(expression: str, binds: dict[str, _Bind]) -> tuple[tuple[Step, ...], str] | None:
    """A condition as (functions, variable), read through the BINDs at the end of the group; None when it is
    no chain of functions of a variable."""
    chain = _chain(expression)
    seen: set[str] = set()
    while chain is not None and chain[1][1:] in binds and chain[1][1:] not in seen:
        seen.add(chain[1][1:])
        inner = _chain(binds[chain[1][1:]].expression)
        if inner is None:
            break
        chain = chain[0] + inner[0], inner[1]
    return chain


def _without(text: str, start: int, end: int, binds: dict[str, _Bind], projection: str) -> str:
    """``text[start:end]`` without the BINDs of ``binds`` whose variable nothing else reads (the projection, the
    rest of the text, another BIND kept): a BIND never removes a solution, so dropping one changes nothing else."""
    dropped: set[str] = set()
    while True:
        parts, at = [], start
        for bind in sorted((binds[name] for name in dropped), key=lambda b: b.start):
            parts.append(text[at:bind.start])
            at = bind.end
        parts.append(text[at:end])
        rest = mask(projection + " ".join(parts))
        unused = [name for name in binds if name not in dropped and len(re.findall(
            rf"[?$]{re.escape(name)}(?![A-Za-z0-9_\u00b7\u00c0-\U000effff])", rest)) == 1]
        if not unused:
            return "".join(parts)
        dropped.update(unused)


_FOLD = re.compile(r"(?m)^[ \t]*#fold[ \t]*\n")


def _unfolded(text: str) -> tuple[str, list[tuple[str, str]]]:
    r"""The text with its ``#fold`` GROUP BY taken out, and what that GROUP BY computed: (variable, MIN, MAX or
    COUNT DISTINCT).

    ``#fold``, alone on the line before a subquery's GROUP BY clause (of variables), says that the rows of the
    listing are the subquery's groups, each group being the rows alike in every other column of the listing, and
    that the subquery's aggregates are all MIN, MAX or COUNT(DISTINCT) of a variable, each a column of the
    listing: the engine then streams the rows, and kg.query.index forms the groups on disk (``fold``) instead of
    holding every group in memory. Any engine reads the line as a comment.

    >>> t, f = _unfolded("SELECT ?a ?m { { SELECT ?a (MIN(?b) AS ?m) { ?a <p> ?b }\n  #fold\n  GROUP BY ?a\n} }")
    >>> t, f
    ('SELECT ?a ?m { { SELECT ?a (?b AS ?m) { ?a <p> ?b }\n} }', [('m', 'MIN')])
    """
    found = list(_FOLD.finditer(text))
    if not found:
        return text, []
    if len(found) > 1:
        raise ValueError("a listing holds one #fold at most")
    marker = found[0]
    masked = mask(text)
    clause = re.match(rf"(?i)[ \t]*GROUP\s+BY(?:\s*{_VARIABLE})+[ \t]*\n?", masked[marker.end():])
    if clause is None:
        raise ValueError("#fold is followed by no GROUP BY clause (of variables) on the next line")
    after = marker.end() + clause.end()
    if re.match(r"(?i)\s*HAVING(?![\w:])", masked[after:]):
        raise ValueError("a #fold GROUP BY has no HAVING")
    depths = brace_depths(masked[:marker.start()])
    depth = depths[-1]  # (the marker's; a SELECT at it whose group was not closed before the marker holds it)
    selects = [m for m in re.finditer(r"(?i)(?<![\w?$:])SELECT(?![\w:])", masked[:marker.start()])
               if depths[m.start()] == depth and min(depths[m.start():]) >= depth]
    if not selects:
        raise ValueError("#fold is in no subquery")
    select = selects[-1]
    body = _body(masked, select.end())
    assert body is not None  # (a SELECT before the marker at its depth has a body)
    projection = text[select.end():body]
    folds: list[tuple[str, str]] = []

    def plain(m: re.Match[str]) -> str:
        folds.append((m.group(3)[1:], "COUNT DISTINCT" if m.group(1).upper().startswith("COUNT") else
                      m.group(1).upper()))
        return f"({m.group(2)} AS {m.group(3)})"

    projection = re.sub(rf"(?i)\(\s*(MIN|MAX|COUNT\s*\(\s*DISTINCT)\s*\(?\s*({_VARIABLE})\s*\)\s+AS\s+"
                        rf"({_VARIABLE})\s*\)", plain, projection)
    if re.search(r"(?i)(?<![\w?$:])(COUNT|SUM|AVG|MIN|MAX|SAMPLE|GROUP_CONCAT)\s*\(", mask(projection)):
        raise ValueError("the aggregates of a #fold GROUP BY are MIN, MAX or COUNT(DISTINCT) of a variable only")
    return text[:select.end()] + projection + text[body:marker.start()] + text[after:], folds


_CALL = re.compile(r"(?is)\A(STR|LCASE|UCASE|SUBSTR)\s*\((.*)\)\Z")


def _chain(expression: str) -> tuple[tuple[Step, ...], str] | None:
    """A condition that is a variable under STR, LCASE, UCASE and SUBSTR (its places whole numbers from 1) calls
    as (the functions, outermost first; the variable); None for any other expression.

    >>> _chain("(LCASE(STR( ?doi )))"), _chain("?a"), _chain("CONCAT(?a, ?b)")
    ((('LCASE', 'STR'), '?doi'), ((), '?a'), None)
    >>> _chain("SUBSTR(LCASE(?d), 16, 15)"), _chain("SUBSTR(?d, 0)")
    (((('SUBSTR', 16, 15), 'LCASE'), '?d'), None)
    """
    names: list[Step] = []
    expression = expression.strip()
    while True:
        if re.fullmatch(_VARIABLE, expression):
            return tuple(names), expression
        if expression.startswith("(") and expression.endswith(")"):
            expression = expression[1:-1].strip()
            continue
        m = _CALL.match(expression)
        if m is None:
            return None
        name, inner = m.group(1).upper(), m.group(2).strip()
        if name != "SUBSTR":
            names.append(name)
            expression = inner
            continue
        places = re.fullmatch(r"(?s)(.*?)\s*,\s*([0-9]+)\s*(?:,\s*([0-9]+)\s*)?", inner)
        if places is None or int(places.group(2)) < 1:
            return None
        names.append(("SUBSTR", int(places.group(2)), None if places.group(3) is None else int(places.group(3))))
        expression = places.group(1).strip()


def apply(functions: tuple[Step, ...], cell: Cell) -> Cell:
    """What ``functions`` (outermost first) give for a value, as Oxigraph computes them: STR the lexical form or
    IRI as a plain literal, LCASE and UCASE the literal with its text in lower or upper case (Unicode's full case
    mappings, as Rust's and Python's are), SUBSTR its characters from a place on (code points, as Oxigraph
    counts); None (unbound) where SPARQL gives an error (STR of a blank node, LCASE of an IRI).

    >>> apply(("LCASE", "STR"), ("uri", "http://A/B", None, None))
    ('literal', 'http://a/b', None, None)
    >>> apply((("SUBSTR", 2, 3),), ("literal", "ab\U0001f600cde", None, "en"))
    ('literal', 'b\U0001f600c', None, 'en')
    """
    for name in reversed(functions):
        if cell is None:
            return None
        kind, value, datatype, lang = cell
        if name == "STR":
            cell = ("literal", value, None, None) if kind in ("uri", "literal") else None
        elif kind != "literal" or (datatype is not None and lang is None and datatype != XSD_STRING):
            return None  # (LCASE, UCASE and SUBSTR take a string literal)
        elif isinstance(name, tuple):
            _, first, length = name
            cell = (kind, value[first - 1:None if length is None else first - 1 + length], datatype, lang)
        else:
            cell = (kind, value.lower() if name == "LCASE" else value.upper(), datatype, lang)
    return cell


def fold(aggregate: str, fields: list[str]) -> str:
    """What an aggregate of a ``#fold`` GROUP BY gives for a group's values (SPARQL TSV fields, empty when
    unbound), as Oxigraph computes it, as a TSV field: MIN or MAX unbound when any value is (an error, in SPARQL,
    makes the aggregate an error), else the least or greatest in ORDER BY's order (the first of equals);
    COUNT DISTINCT the number of different values bound (an integer, which TSV writes bare).

    >>> fold("MIN", ['"b"', '"a"', '"b"']), fold("MAX", ['"b"', '']), fold("COUNT DISTINCT", ["<a>", "", "<a>", "<b>"])
    ('"a"', '', '2')
    """
    if aggregate == "COUNT DISTINCT":
        return str(len({field for field in fields if field}))
    if any(not field for field in fields):
        return ""
    keys = [sort_key([tsv_cell(field)], (False,)) for field in fields]
    return fields[keys.index(min(keys) if aggregate == "MIN" else max(keys))]


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

"""Stored SPARQL queries: ``.rq`` files with a ``#+ key: value`` header and typed parameters, and the binding of
their parameters' values.

Header keys: ``name`` (kebab-case, = file stem), ``description``, ``param`` (``NAME TYPE [= DEFAULT] text``,
TYPE one of iri, string, integer, decimal, date; every parameter has a default), ``returns`` (the columns),
``column`` (``NAME  what it holds``: one line for each column returned), ``lists`` (columns holding one item a
line, sorted by kg), ``ordered`` (list columns whose items each begin with a sort key and a tab: kg sorts them on
it and drops it, so that a list keeps an order the text states, as GROUP_CONCAT does not), ``untitled``
(``CITED TITLE``: a DOI in column CITED whose TITLE is empty is a work known only by its DOI, which tables point
out with the ``kg fetch`` command that fills the titles in: ``kg.query.results.untitled_cited``),
``page`` (``index``: the store that ``kg build --store`` writes keeps the listing's rows in order, so that a page
is read from there: ``kg.query.index``), ``repeatable`` (parameters that take several values, ``-p topic-a=x -p
topic-a=y``: the answer of any of them, one VALUES row for each), ``sides`` (``PARAM_A PARAM_B``: the query answers
the headline question, its sides the topics of these two parameters; a terminal shows it as an answer:
``kg.query.headline``).
Parameters are bound by one mechanism on every backend: a VALUES block of serialized RDF terms placed
at the start of every WHERE clause (so subqueries see them too); the text of a value never becomes query
syntax. Integers are bounded (``INT_MIN``..``INT_MAX``, Oxigraph's xsd:integer). Ids and categories are matched
whatever their case; a mistyped name, id or category is an error that says what it likely meant (``closest``).
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

import orjson

from ..errors import QueryError
from ..rdf.ids import Minter
from ..rdf.terms import XSD_DATE, XSD_DECIMAL, XSD_INTEGER, is_valid_iri, lit
from ..resources import data_file, queries_dir
from .text import mask, query_prefixes

PAGE_INDEX = "index"  # the one value of '#+ page:'
PARAM_TYPES = ("iri", "string", "integer", "decimal", "date")
INT_MIN, INT_MAX = -(2**63), 2**63 - 1  # the range of xsd:integer in Oxigraph (a 64-bit integer)
_HEADER = re.compile(r"^#\+\s*([A-Za-z-]+)\s*:\s*(.*?)\s*$")
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_COLUMN = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s+(?P<text>\S.*)$")
_PARAM = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_-]*)\s+(?P<type>[a-z]+)(?:\((?P<spec>[^()\s]*)\))?"
                    r"(?:\s*=\s*(?P<default>\"(?:[^\"\\]|\\.)*\"|\S+))?\s*(?P<text>.*)$")
IRI_KINDS = ("tool", "work", "topic")  # iri(tool|work|topic): also a bare id (or tool:id, a DOI, topic:id) of a kind
_RANGE = re.compile(r"^(?P<low>[+-]?[0-9.]*)\.\.(?P<high>[+-]?[0-9.]*)$")  # integer(1..), decimal(0..1)
_ALLOWED = re.compile(r"^(?:@tool-categories|[A-Za-z0-9_.+-]+(?:\|[A-Za-z0-9_.+-]+)*)$")  # string(a|b|c)
PARAM_SYNTAX = ("'#+ param: NAME TYPE[(SPEC)] = DEFAULT description' with TYPE one of " + ", ".join(PARAM_TYPES) +
                "; SPEC: iri(tool|work|topic), integer(MIN..MAX), decimal(MIN..MAX) (either end may be left out), "
                "string(a|b|c) or string(@tool-categories)")


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: str | None
    description: str
    kinds: tuple[str, ...] = ()  # for iri: the kinds of bare ids it also takes (iri(tool|work|topic))
    low: str | None = None  # for integer/decimal: the least value allowed
    high: str | None = None  # ... and the greatest
    allowed: tuple[str, ...] = ()  # for string: the values allowed ("@tool-categories": the catalogue's)

    @property
    def var(self) -> str:
        return self.name.replace("-", "_")

    @property
    def choices(self) -> tuple[str, ...]:
        """The allowed values of a string parameter (the catalogue's categories read for @tool-categories)."""
        if self.allowed == ("@tool-categories",):
            return tool_categories()
        return self.allowed


def _param_spec(ptype: str, spec: str | None) -> dict | None:
    """The Param fields of a ``TYPE(SPEC)``, or None when the spec does not fit the type."""
    if spec is None:
        return {}
    if ptype == "iri":
        kinds = tuple(spec.split("|"))
        return {"kinds": kinds} if spec and not set(kinds) - set(IRI_KINDS) else None
    if ptype in ("integer", "decimal") and (m := _RANGE.match(spec)):
        num = r"[+-]?[0-9]+" if ptype == "integer" else r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)"
        ends = [m.group("low") or None, m.group("high") or None]
        if all(e is None or re.fullmatch(num, e) for e in ends):
            return {"low": ends[0], "high": ends[1]}
        return None
    if ptype == "string" and _ALLOWED.match(spec):
        return {"allowed": tuple(spec.split("|"))}
    return None


@dataclass(frozen=True)
class StoredQuery:
    name: str
    description: str
    params: tuple[Param, ...]
    returns: tuple[str, ...]
    text: str
    path: Path
    lists: tuple[str, ...] = ()  # columns whose values are lists, one item per line (GROUP_CONCAT): sorted here
    ordered: tuple[str, ...] = ()  # list columns whose items begin with a sort key and a tab: in its order, key dropped
    docs: tuple[str, ...] = ()  # what each column of ``returns`` holds, in its order (the '#+ column:' lines)
    untitled: tuple[str, str] | None = None  # (cited works' column, their titles' column): '#+ untitled:'
    page: str | None = None  # '#+ page: index': kg keeps the rows in the store's index (kg.query.index)
    repeatable: tuple[str, ...] = ()  # '#+ repeatable:' parameters that take several values (VALUES rows)
    sides: tuple[str, str] | None = None  # '#+ sides: PARAM_A PARAM_B': the headline question's two topic parameters


Values = Mapping[str, "str | Sequence[str]"]  # parameter values by name: one, or several (-p given again)


def parse_query_file(path: Path) -> StoredQuery:
    """Read a ``.rq`` file and its header; a malformed header is a QueryError naming file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise QueryError(f"{path}: cannot be read ({e}); check the path") from None
    meta: dict[str, str] = {}
    lines_of: dict[str, int] = {}
    params: list[Param] = []
    docs: dict[str, tuple[int, str]] = {}  # column -> (line, what it holds)
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("#+"):
            if line.strip() and not line.lstrip().startswith("#"):
                break
            continue
        m = _HEADER.match(line)
        if not m:
            raise QueryError(f"{path}:{lineno}: malformed header line {line!r}; write '#+ key: value'")
        key, value = m.group(1).lower(), m.group(2)
        if key == "param":
            params.append(_param(path, lineno, value, params))
        elif key == "column":
            cm = _COLUMN.match(value)
            if not cm:
                raise QueryError(f"{path}:{lineno}: malformed column {value!r}; write '#+ column: NAME  what the "
                                 "column holds'")
            if cm.group("name") in docs:
                raise QueryError(f"{path}:{lineno}: column {cm.group('name')!r} is described twice; keep one")
            docs[cm.group("name")] = (lineno, cm.group("text"))
        elif key in ("name", "description", "returns", "lists", "ordered", "untitled", "page", "repeatable",
                     "sides"):
            if key in meta:
                raise QueryError(f"{path}:{lineno}: header key {key!r} given twice; keep one")
            meta[key] = value
            lines_of[key] = lineno
        else:
            raise QueryError(f"{path}:{lineno}: unknown header key {key!r}; "
                             "use name, description, param, returns, column, lists, ordered, untitled, page, "
                             "repeatable, sides")
    for key in ("name", "description", "returns"):
        if not meta.get(key):
            raise QueryError(f"{path}: header has no '#+ {key}:' line; add it")
    if not _NAME.match(meta["name"]) or meta["name"] != path.stem:
        raise QueryError(f"{path}:{lines_of['name']}: header name {meta['name']!r} must be kebab-case and "
                         "equal the file name")
    returns = tuple(meta["returns"].split())
    lists, named = _columns_named(path, meta, lines_of, returns, docs)
    page = meta.get("page")
    if page is not None and page != PAGE_INDEX:
        raise QueryError(f"{path}:{lines_of['page']}: write '#+ page: {PAGE_INDEX}' (kg keeps the listing's rows in "
                         "order in the store's index, and reads a page from there)")
    ordered = tuple(meta.get("ordered", "").split())
    if set(ordered) - set(lists):
        raise QueryError(f"{path}:{lines_of['ordered']}: '#+ ordered:' names columns that are not '#+ lists:' columns; "
                         "name list columns whose items begin with their sort key and a tab")
    repeatable = tuple(meta.get("repeatable", "").split())
    if unknown := [r for r in repeatable if r not in {p.name for p in params}]:
        raise QueryError(f"{path}:{lines_of['repeatable']}: '#+ repeatable:' names {unknown[0]!r}, which is no "
                         "'#+ param:' of the query; name its parameters")
    sides = meta.get("sides", "").split()
    if "sides" in meta and (len(sides) != 2 or set(sides) - {p.name for p in params}):
        raise QueryError(f"{path}:{lines_of['sides']}: write '#+ sides: PARAM_A PARAM_B' naming the two topic "
                         "parameters of the headline question, both '#+ param:' lines of this query")
    return StoredQuery(meta["name"], meta["description"], tuple(params), returns, text, path, lists, ordered,
                       tuple(docs[c][1] for c in returns), (named[0], named[1]) if named else None, page,
                       repeatable, (sides[0], sides[1]) if sides else None)


def _param(path: Path, lineno: int, value: str, params: list[Param]) -> Param:
    """The parameter of a ``#+ param:`` line (after ``params``), checked: its type, default and name."""
    pm = _PARAM.match(value)
    fields = _param_spec(pm.group("type"), pm.group("spec")) if pm and pm.group("type") in PARAM_TYPES else None
    if fields is None or pm is None:  # (fields is None whenever pm is)
        raise QueryError(f"{path}:{lineno}: malformed param {value!r}; write {PARAM_SYNTAX}")
    if pm.group("default") is None:
        raise QueryError(f"{path}:{lineno}: param {pm.group('name')!r} has no default; "
                         "give one with '= DEFAULT' so the query runs bare")
    default = pm.group("default")
    if default.startswith('"'):
        default = default[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    param = Param(pm.group("name"), pm.group("type"), default, pm.group("text").strip(), **fields)
    try:
        bind_term(param, default)
    except QueryError as e:
        raise QueryError(f"{path}:{lineno}: default of {param.name!r} is invalid ({e})") from None
    if any(q.var == param.var for q in params):
        raise QueryError(f"{path}:{lineno}: param {param.name!r} is declared twice (or clashes with "
                         f"another name as a SPARQL variable); keep one")
    return param


def _columns_named(path: Path, meta: dict[str, str], lines_of: dict[str, int], returns: tuple[str, ...],
                   docs: dict[str, tuple[int, str]]) -> tuple[tuple[str, ...], list[str]]:
    """The ``lists`` and ``untitled`` columns, checked against ``returns``, as is that every column returned has
    its one ``#+ column:`` line and no other column has one."""
    lists = tuple(meta.get("lists", "").split())
    if set(lists) - set(returns):
        raise QueryError(f"{path}:{lines_of['lists']}: '#+ lists:' names columns the query does not return; "
                         "name columns of '#+ returns:'")
    named = meta.get("untitled", "").split()
    if "untitled" in meta and (len(named) != 2 or set(named) - set(returns)):
        raise QueryError(f"{path}:{lines_of['untitled']}: write '#+ untitled: CITED TITLE' with CITED the column of "
                         "cited works and TITLE the column of their titles, both columns of '#+ returns:'")
    for column, (lineno, _text) in docs.items():
        if column not in returns:
            raise QueryError(f"{path}:{lineno}: '#+ column: {column}' names a column the query does not return; "
                             "describe the columns of '#+ returns:'")
    for column in returns:
        if column not in docs:
            raise QueryError(f"{path}:{lines_of['returns']}: column {column!r} is not described; add a line "
                             f"'#+ column: {column}  what it holds'")
    return lists, named


def stored_queries() -> dict[str, StoredQuery]:
    """Every stored query in queries/, by name."""
    found = [parse_query_file(p) for p in queries_dir().glob("*.rq")]
    return {q.name: q for q in sorted(found, key=lambda q: q.name)}


def find_query(name_or_file: str) -> StoredQuery:
    """A stored query by name, or a ``.rq`` file by path."""
    p = Path(name_or_file)
    if name_or_file.endswith(".rq") or p.is_file():
        if not p.is_file():
            raise QueryError(f"{name_or_file}: no such query file; check the path")
        return parse_query_file(p)
    path = queries_dir() / f"{name_or_file}.rq"
    if not path.is_file():
        names = sorted(q.stem for q in queries_dir().glob("*.rq"))
        near = closest(name_or_file, names)
        if near:
            raise QueryError(f"unknown query {name_or_file!r}; did you mean " + " or ".join(map(repr, near)) +
                             "? run 'kg queries' to list them")
        raise QueryError(f"unknown query {name_or_file!r}; run 'kg queries' to list them ({', '.join(names)})")
    return parse_query_file(path)


def closest(name: str, names: list[str], most: int = 3) -> list[str]:
    """The names a mistyped ``name`` most likely meant: close spellings (difflib), else the names it begins or
    that begin with it, nearest first."""
    near = difflib.get_close_matches(name, names, n=most, cutoff=0.75)
    if near:
        return near
    start = [n for n in names if name and (n.startswith(name) or name.startswith(n))]
    return sorted(start, key=lambda n: (abs(len(n) - len(name)), n))[:most]


def bind_term(param: Param, value: str) -> str:
    """A parameter value -> the N-Triples token of its typed RDF term (validated, escaped); a value out of
    the parameter's range or allowed values is a QueryError that lists what is allowed."""
    if param.type == "iri":
        return "<" + resolve_iri(param, value) + ">"
    if param.type == "integer":
        if not re.fullmatch(r"[+-]?[0-9]+", value.strip()):
            raise QueryError(f"--param {param.name}={_shown(value)} is not an integer{_range_text(param)}")
        if len(value.strip().lstrip("+-").lstrip("0")) > 19 or not INT_MIN <= int(value) <= INT_MAX:
            raise QueryError(f"--param {param.name}={_shown(value)} is out of range; give an integer from "
                             f"{INT_MIN} to {INT_MAX}")
        _check_range(param, value, int)
        return lit(str(int(value)), XSD_INTEGER)
    if param.type == "decimal":
        if not re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)", value.strip()) or len(value.strip()) > 40:
            raise QueryError(f"--param {param.name}={_shown(value)} is not a decimal number{_range_text(param)}")
        _check_range(param, value, Decimal)
        return lit(_decimal_text(Decimal(value.strip())), XSD_DECIMAL)
    if param.type == "date":
        try:
            iso = re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value.strip())
            day = date.fromisoformat(value.strip()) if iso else None
        except ValueError:
            day = None
        if day is None:
            raise QueryError(f"--param {param.name}={value!r} is not a date (YYYY-MM-DD)")
        return lit(day.isoformat(), XSD_DATE)
    if param.allowed and value not in param.choices:
        folded = {c.lower(): c for c in param.choices}
        if value.strip().lower() in folded:
            return sparql_string(folded[value.strip().lower()])
        raise QueryError(f"--param {param.name}={_shown(value)} is not allowed; {_did_you_mean(value, param.choices)}"
                         f"give one of: {', '.join(param.choices)}")
    return sparql_string(value)


def _did_you_mean(value: str, names: Sequence[str]) -> str:
    """``did you mean 'profiler'? `` (the names ``closest`` finds, matched whatever the case), or nothing."""
    near = closest(value.strip().lower(), list(names))
    return f"did you mean {' or '.join(map(repr, near))}? " if near else ""


def _range_text(param: Param) -> str:
    if param.low is None and param.high is None:
        return ""
    if param.high is None:
        return f"; give {param.low} or more"
    if param.low is None:
        return f"; give {param.high} or less"
    return f"; give {param.low} to {param.high}"


def _check_range(param: Param, value: str, num: type) -> None:
    v = num(value.strip())
    if (param.low is not None and v < num(param.low)) or (param.high is not None and v > num(param.high)):
        raise QueryError(f"--param {param.name}={_shown(value)} is out of range{_range_text(param)}")


def _decimal_text(d: Decimal) -> str:
    text = format(d, "f")
    return text if "." in text else text + ".0"


DOI_FORM = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)?(10\.[0-9]{4,9}/\S+)$", re.I)
_BARE_ID = re.compile(r"^[a-z0-9][a-z0-9._+-]*$", re.I)


def tool_categories() -> tuple[str, ...]:
    """The tool categories of the catalogue (kg/data/tools.json), sorted."""
    return tuple(sorted(orjson.loads(data_file("tools.json").read_bytes())["categories"]))


def _tool_ids() -> list[str]:
    return sorted(t["id"] for t in orjson.loads(data_file("tools.json").read_bytes())["tools"])


def _topic_ids() -> list[str]:
    from ..refs.topics import concepts
    return sorted(c.id for c in concepts())


def resolve_iri(param: Param, value: str) -> str:
    """The IRI an ``iri`` parameter value names: an IRI (``<...>`` or bare), a DOI (``10.x/y``, ``doi:``,
    ``https://doi.org/``) for a work, a prefixed name of the standard prefixes (``tool:pytorch``,
    ``topic:profiling``, ``schema:Person``) or, for a parameter of declared kinds, a bare tool or topic id."""
    v = value.strip()
    v = v[1:-1] if v.startswith("<") and v.endswith(">") else v
    kinds = param.kinds
    what = "a " + " or ".join(kinds) if kinds else "an IRI"
    if (m := DOI_FORM.match(v)) and (not kinds or "work" in kinds):
        return Minter.doi(m.group(1))[1:-1]
    prefixes = query_prefixes()
    prefix, sep, local = v.partition(":")
    if sep and prefix in prefixes and not local.startswith("//"):
        if prefix in ("tool", "topic"):
            return _checked_id(param, value, prefix, local)
        return prefixes[prefix] + local
    if kinds and _BARE_ID.match(v) and (kinds := tuple(k for k in kinds if k in ("tool", "topic"))):
        for kind in kinds:
            if v.lower() in (_tool_ids() if kind == "tool" else _topic_ids()):
                return prefixes[kind] + v.lower()
        return _checked_id(param, value, kinds[0], v, kinds)
    if not is_valid_iri(v) or ":" not in v:
        raise QueryError(f"--param {param.name}={_shown(value)} is not an IRI, a DOI or a prefixed name "
                         f"({', '.join(p + ':' for p in sorted(prefixes))}); the parameter takes {what}")
    return v


def _checked_id(param: Param, value: str, kind: str, local: str, kinds: tuple[str, ...] = ()) -> str:
    """The IRI of a tool or topic id (any case), or a QueryError that says which ids were likely meant."""
    ids = _tool_ids() if kind == "tool" else _topic_ids()
    if local.lower() in ids:
        return query_prefixes()[kind] + local.lower()
    kinds = kinds or (kind,)
    known = sorted({i for k in kinds for i in (_tool_ids() if k == "tool" else _topic_ids())})
    hint = _did_you_mean(local, known)
    if "topic" in kinds:
        raise QueryError(f"--param {param.name}={_shown(value)} is no {' or '.join(kinds)} id; {hint}'kg topics' "
                         "lists the topics" + (", 'kg tools' the tools" if "tool" in kinds else ""))
    raise QueryError(f"--param {param.name}={_shown(value)} is no tool id of the catalogue; {hint}"
                     "'kg tools' lists the tools")


def _shown(value: str, most: int = 40) -> str:
    """A parameter value for a one-line message: quoted, and cut (with its length) when it is long."""
    return repr(value) if len(value) <= most else f"{value[:most]!r}... ({len(value):,} characters)"


def sparql_string(value: str) -> str:
    """A SPARQL string literal for any text. A backslash before 'u' or 'U' is followed by that letter as an
    eight-digit \\U escape, so engines that expand \\u escapes before parsing (as the SPARQL grammar allows) and engines
    that do not both read back the same text."""
    out = ['"']
    prev = ""
    for ch in value:
        if prev == "\\" and ch in "uU":
            out.append("\\U00000075" if ch == "u" else "\\U00000055")
        elif ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        else:
            out.append(ch)
        prev = ch
    out.append('"')
    return "".join(out)


def given(values: Values) -> dict[str, list[str]]:
    """Parameter values as lists (a value given once: a list of one)."""
    return {k: [v] if isinstance(v, str) else list(v) for k, v in values.items()}


def bound_text(query: StoredQuery, values: Values) -> str:
    """The query text with a VALUES block for every parameter (given value or default): one row, or, for the
    values of a repeatable parameter, one row for each (each combination, when several are given again)."""
    known = {p.name: p for p in query.params}
    lists = given(values)
    for name, vs in lists.items():
        if name not in known:
            names = ", ".join(known) or "none"
            raise QueryError(f"query {query.name!r} has no parameter {name!r}; {_did_you_mean(name, list(known))}"
                             f"its parameters: {names}")
        if len(vs) > 1 and name not in query.repeatable:
            raise QueryError(f"--param {name} is given {len(vs)} times ({', '.join(map(_shown, vs))}); query "
                             f"{query.name!r} takes one value of it: give it once")
    text = query.text
    if not query.params:
        return text
    terms = {p.name: list(dict.fromkeys(bind_term(p, v) for v in lists.get(p.name, [p.default or ""])))
             for p in query.params}
    masked = mask(text)
    wheres = list(re.finditer(r"\bWHERE\s*\{", masked, re.I))
    ends = [m.end() for m in wheres]
    if not ends:
        raise QueryError(f"{query.path}: query has parameters but no 'WHERE {{' to bind them in")
    # One row of constants joined in at the start of each group pattern of a WHERE clause: the outer query
    # and every subquery (which cannot see the outer bindings) are restricted alike. Several rows (a repeatable
    # parameter given again) go only where the clause itself reads the parameter's variable: rows joined where
    # nothing reads them would repeat every answer of the clause once a row.
    several = any(len(t) > 1 for t in terms.values())
    out, last = [], 0
    for where, end in zip(wheres, ends, strict=True):
        head = masked.upper().rfind("SELECT", 0, where.start())  # (its SELECT clause reads variables too)
        own = masked[max(head, 0):where.start()] + _own_level(masked, end) if several else ""
        params = [p for p in query.params if not several or re.search(rf"[?$]{p.var}\b", own)]
        out += [text[last:end], _values_block(params, terms)]
        last = end
    return "".join(out) + text[last:]


def _values_block(params: list[Param], terms: dict[str, list[str]]) -> str:
    """``VALUES (?a ?b) { (x y) }``: a row for each combination of the parameters' terms (none: no block)."""
    if not params:
        return ""
    rows = " ".join(f"({' '.join(row)})" for row in itertools.product(*(terms[p.name] for p in params)))
    return f"\n  VALUES ({' '.join(f'?{p.var}' for p in params)}) {{ {rows} }}\n"


def _own_level(masked: str, start: int) -> str:
    """The text of the group pattern opened just before ``start`` without its subqueries (``{ SELECT ... }``,
    whose variables are their own): what that WHERE clause itself reads."""
    out, depth, i, skip_to = [], 1, start, -1
    while i < len(masked) and depth:
        ch = masked[i]
        if ch == "{":
            depth += 1
            if skip_to < 0 and re.match(r"\s*SELECT\b", masked[i + 1:i + 64], re.I):
                skip_to = depth - 1  # (the subquery ends when the depth comes back to this)
        elif ch == "}":
            depth -= 1
            if depth == skip_to:
                skip_to = -1
                i += 1
                continue
        if skip_to < 0:
            out.append(ch)
        i += 1
    return "".join(out)


def is_plain_query_file(name_or_file: str) -> bool:
    """A ``.rq`` file without a ``#+`` header: an ad-hoc query."""
    p = Path(name_or_file)
    if not p.is_file():
        return False
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return not any(line.startswith("#+") for line in text.splitlines())

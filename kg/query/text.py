"""The text of SPARQL queries: the standard prefixes, a page's LIMIT and OFFSET, the query's form, and the
local-only check (``remote_clauses`` finds what would make an engine fetch data from elsewhere: SERVICE, FROM,
FROM NAMED, which local queries refuse). Comments, strings and IRIs are masked first (``mask``), so that only
query syntax is read. ``check_local`` reads the query's parse too (``parsed_remote_clauses``): the text pattern is a
fast first filter, the parse the guard.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..errors import QueryError
from ..rdf.ids import DEFAULT_BASE
from ..rdf.vocab import PREFIXES, TOPIC


def query_prefixes() -> dict[str, str]:
    """The project's standard prefixes for SPARQL: the graph's (kg.rdf.vocab.PREFIXES) plus tool: and topic:."""
    return {**PREFIXES, "tool": DEFAULT_BASE + "tool/", "topic": TOPIC.base}


_PROLOGUE = re.compile(r"(?is)\A(?:\s+|#[^\r\n]*|PREFIX\s*[A-Za-z0-9_.-]*:\s*<[^<>]*>|BASE\s*<[^<>]*>)*")
TAIL_PAGING = re.compile(r"(?i)(?<![\w?$:])(LIMIT|OFFSET|VALUES)(?![\w:])")


def brace_depths(masked: str) -> list[int]:
    """How many braces are open between the characters of a masked text: ``depths[i]`` before character ``i``,
    ``depths[i + 1]`` after it (so a brace lies between its two depths; a stray "}" at the top leaves 0).

    >>> brace_depths("a{b}")
    [0, 0, 1, 1, 0]
    """
    depths, depth = [0], 0
    for ch in masked:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        depths.append(depth)
    return depths


def outer_syntax(masked: str) -> str:
    """The masked text with everything inside braces blanked, the braces too: what is left is the outer query's
    own syntax."""
    depths = brace_depths(masked)
    return "".join(ch if not depths[i] and not depths[i + 1] else " " for i, ch in enumerate(masked))


def paged(text: str, limit: int | None, offset: int | None) -> str:
    """The query with LIMIT/OFFSET on its outer query, so the engine computes only that page. Appended after
    the outer query's solution modifiers; when those already hold a LIMIT, OFFSET or a trailing VALUES, the
    query becomes a subquery of ``SELECT * { ... } LIMIT n OFFSET m`` (its prologue kept in front)."""
    if limit is None and offset is None:
        return text
    page = (f" LIMIT {limit}" if limit is not None else "") + (f" OFFSET {offset}" if offset else "")
    if not page:
        return text
    if not TAIL_PAGING.search(outer_syntax(mask(text))):
        return text.rstrip() + "\n" + page.strip() + "\n"
    prologue = _PROLOGUE.match(text)
    assert prologue is not None  # the pattern matches the empty string
    cut = prologue.end()
    return f"{text[:cut]}\nSELECT * WHERE {{\n{text[cut:]}\n}}{page}\n"


_FORM = re.compile(r"(?i)(?<![\w:?$])(SELECT|ASK|CONSTRUCT|DESCRIBE)(?![\w:])")


def query_form(text: str) -> str:
    """The query's form, ``SELECT``, ``ASK``, ``CONSTRUCT`` or ``DESCRIBE``: its first such keyword outside
    comments, strings and IRIs (a prefix named ``construct:`` is no keyword); ``SELECT`` when none is found
    (the engine then says what is wrong).

    >>> query_form("PREFIX construct: <http://x/> # DESCRIBE\\nCONSTRUCT { ?s ?p ?o } WHERE { ?s construct:p ?o }")
    'CONSTRUCT'
    """
    m = _FORM.search(mask(text))
    return m.group(1).upper() if m else "SELECT"


_PREFIX_USE = re.compile(r"(?<![\w?$:.\\-])((?:[A-Za-z][\w.-]*[\w-])|[A-Za-z])?:(?!//)")
_PREFIX_DECL = re.compile(r"(?i)(?<![\w?$:])PREFIX\s+((?:[A-Za-z][\w.-]*[\w-])|[A-Za-z])?:")


_KEYWORDS = frozenset("""BASE PREFIX SELECT CONSTRUCT DESCRIBE ASK FROM NAMED WHERE GRAPH SERVICE SILENT OPTIONAL
UNION MINUS FILTER BIND VALUES GROUP BY HAVING ORDER ASC DESC LIMIT OFFSET DISTINCT REDUCED AS NOT IN EXISTS
UNDEF LATERAL""".split())


def with_standard_prefixes(text: str, source: str) -> tuple[str, int]:
    """Ad-hoc SPARQL with the standard prefixes (``query_prefixes``) it uses but does not declare, on one
    line put in front, and that number of lines (0 or 1, to correct the positions of an engine's error). A
    prefix that is neither declared nor standard is a QueryError naming it and where it is first used."""
    masked = mask(text)
    declared = {m.group(1) or "" for m in _PREFIX_DECL.finditer(masked)}
    std = query_prefixes()
    missing: dict[str, None] = {}
    for m in _PREFIX_USE.finditer(masked):
        prefix = m.group(1) or ""
        if prefix in declared or prefix.upper() in _KEYWORDS:  # "SERVICE:x" is the keyword and ":x": the engine's
            continue
        if prefix not in std:
            line = masked.count("\n", 0, m.start()) + 1
            column = m.start() - (masked.rfind("\n", 0, m.start()) + 1) + 1
            raise QueryError(f"{source}: unknown prefix '{prefix}:' at line {line}, column {column}; declare it "
                             f"(PREFIX {prefix}: <IRI>) or use a standard prefix "
                             f"({', '.join(p + ':' for p in sorted(std))})")
        missing.setdefault(prefix)
    if not missing:
        return text, 0
    return "".join(f"PREFIX {p}: <{std[p]}> " for p in missing).rstrip() + "\n" + text, 1


def shift_error_lines(message: str, lines: int) -> str:
    """An engine's message with the line of its ``error at LINE:COLUMN`` moved up by ``lines``."""
    if not lines:
        return message
    return re.sub(r"error at (\d+):(\d+)", lambda m: f"error at {max(int(m.group(1)) - lines, 1)}:{m.group(2)}",
                  message)


# The tokens whose text is not query syntax, as the SPARQL grammar reads them left to right: comments (to the
# end of the line: \n or \r), long and short strings with their escapes, and IRIs (IRIREF's characters); and the
# escapes of a prefixed name's local part (PN_LOCAL_ESC: ``schema:a\#b``, ``schema:it\'s``), which open no comment or
# string.
_OPAQUE = re.compile("|".join((
    r"\\[_~.!$&'()*+,;=/?#@%-]",
    r"#[^\r\n]*",
    r'"""(?:(?:"|"")?(?:[^"\\]|\\.))*"""',
    r"'''(?:(?:'|'')?(?:[^'\\]|\\.))*'''",
    r'"(?:[^"\\\n\r]|\\.)*"',
    r"'(?:[^'\\\n\r]|\\.)*'",
    r'<(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>',
)))
# SERVICE and FROM as keywords: not part of a variable, a prefixed name or a longer word. A keyword may touch
# a following ':' (Oxigraph reads "SERVICE:x" as SERVICE and the name :x).
_REMOTE = re.compile(r"(?i)(?<![\w?$:-])(SERVICE|FROM(\s+NAMED(?!\w))?)(?!\w)")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-f]{4}(?:[0-9a-f]{4})?)", re.I)  # as rdflib expands them before parsing
REMOTE_WHY = {
    "SERVICE": "it sends part of the query, with the values bound so far, to another server",
    "FROM": "it makes the engine load the graph it names, from the network or a file",
    "FROM NAMED": "it makes the engine load the graph it names, from the network or a file",
}


def mask(text: str) -> str:
    """The query text with comments, strings and IRIs blanked out (same length), to find its keywords."""
    return _OPAQUE.sub(lambda m: " " * len(m.group(0)), text)


def _expand_escapes(text: str) -> str:
    def expand(m: re.Match[str]) -> str:
        code = int(m.group(1), 16)
        return chr(code) if code <= 0x10FFFF else m.group(0)
    return _UNICODE_ESCAPE.sub(expand, text)


def remote_clauses(text: str) -> list[str]:
    """The clauses of a query that fetch data from elsewhere: "SERVICE", "FROM", "FROM NAMED", in order of
    first use, read as every engine reads the text (as written, and with \\u escapes expanded first).

    Example:

    >>> remote_clauses("SELECT * FROM NAMED <http://x> { }")
    ['FROM NAMED']
    """
    found: dict[str, None] = {}
    for variant in (text, _expand_escapes(text)):
        for m in _REMOTE.finditer(mask(variant)):
            found.setdefault("FROM NAMED" if m.group(2) else m.group(1).upper())
    return list(found)


def check_local(text: str, source: str, engine: str = "oxigraph", trusted: bool = False) -> None:
    """QueryError naming the first clause of ``text`` that would fetch data from elsewhere, if any; ``source``
    names the query ("the -e query", "query 'works'", "query file q.rq"). Read from the text (``remote_clauses``),
    then from the query's parse (``parsed_remote_clauses``), unless ``trusted`` (a stored query of the project).
    A query the parser cannot read is refused on ``engine`` "oxigraph" (a QueryError: Oxigraph's syntax error when
    Oxigraph finds one, else one line saying the query cannot be checked); rdflib refuses it by itself."""
    clauses = remote_clauses(text)
    if not clauses and not trusted:
        parsed = parsed_remote_clauses(text)
        if isinstance(parsed, str):
            if engine == "rdflib":
                return  # rdflib's own parser fails the same way: nothing runs
            raise QueryError(_unparsed(text, source, parsed))
        clauses = list(parsed)
    if clauses:
        clause = clauses[0]
        raise QueryError(f"{source} uses {clause} ({REMOTE_WHY[clause]}); a local query reads only the local "
                         "graph: remove it, or pass --allow-remote to allow it")


@lru_cache(maxsize=256)
def parsed_remote_clauses(text: str) -> tuple[str, ...] | str:
    """The clauses of ``text`` that fetch data from elsewhere, read from its parse by rdflib's SPARQL parser (the
    grammar's own reading: \\u escapes, prefixed-name escapes, comments, strings, any case), in order of first
    use; rdflib's message (first line) when it is no query it can read (an update: LOAD, INSERT ...; bad syntax).

    >>> parsed_remote_clauses("SELECT * { BIND(<a> AS ?q) sErViCe <http://x> { ?s ?p ?o } }")
    ('SERVICE',)
    >>> parsed_remote_clauses("LOAD <http://x>")[:9]
    'Expected '
    """
    from rdflib.plugins.sparql.parser import parseQuery  # (slow to import; only local queries need it)
    from rdflib.plugins.sparql.parserutils import CompValue

    try:
        tree = parseQuery(text)
    except Exception as e:  # noqa: BLE001 - pyparsing's, and whatever a hostile text makes the parser raise
        return (str(e).splitlines() or [type(e).__name__])[0]
    found: dict[str, None] = {}
    todo: list[object] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, CompValue):
            if node.name == "ServiceGraphPattern":
                found.setdefault("SERVICE")
            elif node.name == "DatasetClause":
                found.setdefault("FROM NAMED" if "named" in node else "FROM")
            todo.extend(reversed(list(node.values())))
        elif isinstance(node, (list, tuple)) or hasattr(node, "as_list"):
            todo.extend(reversed(list(node)))  # type: ignore[call-overload]
    return tuple(found)


def _unparsed(text: str, source: str, why: str) -> str:
    """The refusal of a query rdflib's parser cannot read: Oxigraph's syntax error when Oxigraph's parser finds one,
    else that the query cannot be checked. Oxigraph is asked with two arguments it refuses together, a check it makes
    after parsing and before evaluating: the query is parsed, never run."""
    import pyoxigraph

    try:
        pyoxigraph.Store().query(text, use_default_graph_as_union=True, default_graph=pyoxigraph.DefaultGraph())
    except SyntaxError as e:
        return f"the query is not valid SPARQL ({str(e).splitlines()[0]}); fix the query text"
    except Exception:  # noqa: BLE001 - the refusal of the two arguments: Oxigraph reads the query; refused below
        pass
    return (f"{source} cannot be checked for SERVICE, FROM and FROM NAMED (the SPARQL parser does not read it: "
            f"{why}); a local query reads only the local graph: rewrite it, or pass --allow-remote to allow it")

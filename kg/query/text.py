"""The text of SPARQL queries: the standard prefixes, a page's LIMIT and OFFSET, the query's form, and the
local-only check (``remote_clauses`` finds what would make an engine fetch data from elsewhere: SERVICE, FROM,
FROM NAMED, which local queries refuse). Comments, strings and IRIs are masked first (``mask``), so that only
query syntax is read.
"""

from __future__ import annotations

import re

from ..errors import QueryError
from ..rdf.ids import DEFAULT_BASE
from ..rdf.vocab import PREFIXES, TOPIC


def query_prefixes() -> dict[str, str]:
    """The project's standard prefixes for SPARQL: the graph's (kg.rdf.vocab.PREFIXES) plus tool: and topic:."""
    return {**PREFIXES, "tool": DEFAULT_BASE + "tool/", "topic": TOPIC.base}


_PROLOGUE = re.compile(r"(?is)\A(?:\s+|#[^\r\n]*|PREFIX\s*[A-Za-z0-9_.-]*:\s*<[^<>]*>|BASE\s*<[^<>]*>)*")
_TAIL_PAGING = re.compile(r"(?i)(?<![\w?$:])(LIMIT|OFFSET|VALUES)(?![\w:])")


def _outer(masked: str) -> str:
    """The masked text with everything inside braces blanked: what is left is the outer query's own syntax."""
    out, depth = [], 0
    for ch in masked:
        if ch == "{":
            depth += 1
        out.append(ch if depth == 0 else " ")
        if ch == "}":
            depth = max(depth - 1, 0)
    return "".join(out)


def paged(text: str, limit: int | None, offset: int | None) -> str:
    """The query with LIMIT/OFFSET on its outer query, so the engine computes only that page. Appended after
    the outer query's solution modifiers; when those already hold a LIMIT, OFFSET or a trailing VALUES, the
    query becomes a subquery of ``SELECT * { ... } LIMIT n OFFSET m`` (its prologue kept in front)."""
    if limit is None and offset is None:
        return text
    page = (f" LIMIT {limit}" if limit is not None else "") + (f" OFFSET {offset}" if offset else "")
    if not page:
        return text
    if not _TAIL_PAGING.search(_outer(mask(text))):
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
# end of the line: \n or \r), long and short strings with their escapes, and IRIs (IRIREF's characters).
_OPAQUE = re.compile("|".join((
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


def check_local(text: str, source: str) -> None:
    """QueryError naming the first clause of ``text`` that would fetch data from elsewhere, if any; ``source``
    names the query ("the -e query", "query 'works'", "query file q.rq")."""
    clauses = remote_clauses(text)
    if clauses:
        clause = clauses[0]
        raise QueryError(f"{source} uses {clause} ({REMOTE_WHY[clause]}); a local query reads only the local "
                         "graph: remove it, or pass --allow-remote to allow it")

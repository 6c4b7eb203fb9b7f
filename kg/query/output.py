"""Query answers written where they go: tables for people, the W3C results formats for programs, RDF for graphs.

- ``table`` (rich's Table) is sized for where it goes. Off a terminal (a file, a pipe) nothing is cut: whole
  values in aligned columns, plain text (no box drawing, no colour, no trailing spaces). On a terminal no line is
  wider than the terminal (``plan``): the ``*_iri`` columns are left out, the widest text columns shortened
  first (with "…"), identifier columns (every value an IRI, prefixed name, DOI or URL) last, and columns left
  out from the right when even that is too wide; a line names what was shortened or left out (``--wide`` shows
  all); a list column shows an item a line. Where the output goes is read from the stream, or forced with
  ``KG_TERMINAL=1`` / ``KG_TERMINAL=0``; the width comes from ``shutil.get_terminal_size`` (which reads
  ``COLUMNS`` first): ``on_terminal`` and ``terminal_width`` are the one place that decides both. IRIs are shown
  short: a DOI for a doi.org IRI, a prefixed name for an IRI of a standard prefix (``tool:pytorch``,
  ``schema:Person``). The answer to the headline question reads as an answer there (``kg.query.headline``).
- ``csv``, ``tsv`` and ``json`` are the W3C SPARQL 1.1 results formats with full IRIs, and ``markdown`` a pipe
  table; these four write each row as the engine gives it (nothing gathered). A table gathers the rows it
  aligns: one page on a terminal (``PAGE``), the whole answer elsewhere.
- CONSTRUCT and DESCRIBE answers are graphs: ``turtle`` (the default), ``nt`` or ``json-ld``, written by
  kg.export's canonical writers with the standard prefixes.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import textwrap
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from itertools import islice
from typing import IO

import orjson

from ..errors import UsageError
from ..infra.text import printable
from ..rdf.terms import token_value
from ..rdf.vocab import XSD, XSD_STRING, Prefixer
from .results import Answer, Cell, Results
from .text import query_prefixes

# One page: enough rows to judge an answer and read it in one screen or two, few enough that the first page
# of a query over millions of rows costs the engine little (it is asked for PAGE + 1 rows: the one more says
# that more follow). The terminal's height is not used: a page scrolls back whole, and a page of fixed size
# gives the same --offset steps on every terminal.
PAGE = 50
MIN_TEXT = 8  # a shortened column keeps at least this many characters (or its header's longest word)
ROW_FORMATS = ("table", "csv", "tsv", "json", "markdown")
GRAPH_FORMATS = ("turtle", "nt", "json-ld")
FORMATS = ROW_FORMATS + GRAPH_FORMATS
_DOI = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)?10\.[0-9]{4,9}/\S+$", re.I)
# literals a reader copies whole too: a DOI, an ORCID iD, a URL
_IDENTIFIER = re.compile(r"(?:doi:|https?://(?:dx\.)?doi\.org/)?10\.[0-9]{4,9}/\S+|[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]"
                         r"|[a-z][a-z0-9+.-]*://\S+", re.I)
_DOI_IRI = "https://doi.org/"
_IRI_COLUMN = re.compile(r"(?:^|_)iri(?:_|$)")  # tool_iri, person_iri_a: a terminal may leave them out
_PIECE = re.compile(r"[^_]*_+|[^_]+")  # a header's word breaks after its underscores
# ---------------------------------------------------------------- where it goes


def on_terminal(stream: IO[str]) -> bool:
    """Whether ``stream`` is a terminal (``KG_TERMINAL=1`` / ``0`` says so for tests and scripts)."""
    forced = os.environ.get("KG_TERMINAL", "")
    if forced in ("0", "1"):
        return forced == "1"
    try:
        return hasattr(stream, "isatty") and stream.isatty()
    except (ValueError, OSError):  # (a closed stream)
        return False


def terminal_width(stream: IO[str]) -> int | None:
    """The width to fit a table in: the terminal's, or None (no limit) when ``stream`` is not a terminal."""
    return shutil.get_terminal_size().columns if on_terminal(stream) else None


def answer_format(answer: Answer, fmt: str | None) -> str:
    """The format to write ``answer`` in: ``fmt``, or the default of its form (a table for rows and booleans,
    Turtle for a graph); a format that does not fit the form is a UsageError (exit 2) naming those that do."""
    if answer.form == "CONSTRUCT":
        if fmt is None:
            return "turtle"
        if fmt not in GRAPH_FORMATS:
            raise UsageError(f"-f {fmt} is for SELECT and ASK results; a CONSTRUCT or DESCRIBE query answers with "
                             f"a graph: use -f {', '.join(GRAPH_FORMATS[:-1])} or {GRAPH_FORMATS[-1]}")
        return fmt
    if fmt in GRAPH_FORMATS:
        what = "an ASK query answers true or false" if answer.form == "ASK" else "a SELECT query answers with rows"
        raise UsageError(f"-f {fmt} is for CONSTRUCT and DESCRIBE results; {what}: use -f "
                         f"{', '.join(ROW_FORMATS[:-1])} or {ROW_FORMATS[-1]}")
    return fmt or "table"


# ---------------------------------------------------------------- writing


def write(answer: Answer, fmt: str, out: IO[str], width: int | None = None, offset: int = 0) -> None:
    """Write ``answer`` to ``out`` as ``fmt`` (see ``answer_format``): rows as they come for csv, tsv, json and
    markdown; a table of the whole answer, or of one page when ``answer.page`` is set (``offset``: the rows
    skipped before it, for the line that says how to see the next), fitted to ``width`` when given."""
    if answer.graph is not None:
        from ..export import write_triples
        write_triples(answer.graph, fmt, out, query_prefixes())
    elif answer.boolean is not None:
        if fmt == "json":
            out.write(orjson.dumps({"head": {}, "boolean": answer.boolean}).decode() + "\n")
        else:
            out.write(("true" if answer.boolean else "false") + "\n")
    elif fmt == "json":
        write_json(answer.columns, answer.rows, out)
    elif fmt == "tsv":
        out.write("\t".join("?" + c for c in answer.columns) + "\n")
        for row in answer.rows:
            out.write("\t".join(tsv_term(c) for c in row) + "\n")
    elif fmt == "csv":
        w = csv.writer(out, lineterminator="\r\n")
        w.writerow(answer.columns)
        # (csv_text inline: a function call per value is a large share of writing a large answer)
        w.writerows(["" if c is None else "_:" + c[1] if c[0] == "bnode" else c[1] for c in row]
                    for row in answer.rows)
    elif fmt == "markdown":
        out.write("| " + " | ".join(answer.columns) + " |\n|" + "---|" * len(answer.columns) + "\n")
        for row in answer.rows:
            out.write("| " + " | ".join(shown(c).replace("|", "\\|") for c in row) + " |\n")
    else:
        write_table(answer, out, width, offset)


def render(res: Results, fmt: str | None = None, width: int | None = None) -> str:
    """A whole answer as text (``write`` into a string)."""
    buf = io.StringIO()
    answer = Answer.of(res)
    write(answer, answer_format(answer, fmt), buf, width)
    return buf.getvalue()


def _indented(obj: object, by: str) -> str:
    """``obj`` as orjson writes it with two-space indentation, nested ``by`` deeper (first line not)."""
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode("utf-8").replace("\n", "\n" + by)


def write_json(columns: list[str], rows: Iterable[list[Cell]], out: IO[str]) -> None:
    """SPARQL 1.1 Query Results JSON, a binding at a time; the bytes are orjson's indented dump of the whole
    document."""
    out.write('{\n  "head": ' + _indented({"vars": columns}, "  ") + ',\n  "results": {\n    "bindings": [')
    first = True
    for row in rows:
        b = {}
        for col, c in zip(columns, row, strict=True):
            if c is None:
                continue
            kind, value, dt, lang = c
            entry = {"type": kind, "value": value}
            if dt:
                entry["datatype"] = dt
            if lang:
                entry["xml:lang"] = lang
            b[col] = entry
        out.write(("\n      " if first else ",\n      ") + _indented(b, "      "))
        first = False
    out.write("]\n  }\n}\n" if first else "\n    ]\n  }\n}\n")


XSD_NS = XSD.base
_BARE = {  # literals the W3C TSV format (Turtle syntax) may write bare, by datatype: the lexical forms allowed
    XSD_NS + "integer": re.compile(r"[+-]?[0-9]+"),
    XSD_NS + "decimal": re.compile(r"[+-]?[0-9]*\.[0-9]+"),
    XSD_NS + "double": re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+"),
    XSD_NS + "boolean": re.compile(r"true|false"),
}
_TSV_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"})


def tsv_term(c: Cell) -> str:
    """A term in the W3C SPARQL 1.1 TSV results format: Turtle/SPARQL syntax (``<iri>``, ``"text"@en``,
    ``"v"^^<dt>``, bare numbers and booleans, ``_:b``); empty when unbound."""
    if c is None:
        return ""
    kind, value, dt, lang = c
    if kind == "uri":
        return f"<{value}>"
    if kind == "bnode":
        return f"_:{value}"
    if dt and (bare := _BARE.get(dt)) and bare.fullmatch(value):
        return value
    text = '"' + value.translate(_TSV_ESCAPES) + '"'
    if lang:
        return f"{text}@{lang}"
    return f"{text}^^<{dt}>" if dt and dt != token_value(XSD_STRING) else text


def csv_text(c: Cell) -> str:
    """A term in the W3C CSV results format: its value (a full IRI), ``_:b`` for a blank node, empty when unbound."""
    if c is None:
        return ""
    return "_:" + c[1] if c[0] == "bnode" else c[1]


# ---------------------------------------------------------------- tables


@cache
def _prefixer() -> Prefixer:
    return Prefixer(query_prefixes())


def short_iri(iri: str) -> str:
    """How a table shows an IRI: a doi.org IRI as its DOI, an IRI of a standard prefix as a prefixed name,
    any other whole.

    >>> short_iri("https://doi.org/10.5555/example.123"), short_iri("https://w3id.org/crossref-kg/tool/pytorch")
    ('10.5555/example.123', 'tool:pytorch')
    """
    if iri.startswith(_DOI_IRI) and _DOI.match(doi := urllib.parse.unquote(iri[len(_DOI_IRI):])):
        return doi
    return _prefixer().curie(iri) or iri


def shown(c: Cell) -> str:
    """A term as a table shows it, on one line: IRIs short, literals by their value, ``_:b`` for a blank node."""
    if c is None:
        return ""
    kind, value = c[0], c[1]
    if kind == "uri":
        return printable(short_iri(value))
    return printable("_:" + value if kind == "bnode" else value)


def is_identifier(c: Cell) -> bool:
    """A value a reader copies whole: an IRI, a blank node, or a literal DOI, ORCID iD or URL."""
    return c is not None and (c[0] != "literal" or bool(_IDENTIFIER.fullmatch(c[1])))


def identifier_column(values: Iterable[Cell]) -> bool:
    """Whether a column holds identifiers: every value it has is one (a single DOI among reference texts does
    not make the texts identifiers).

    >>> identifier_column([("uri", "https://x.org/a", None, None), None]), identifier_column([None])
    (True, False)
    """
    given = [c for c in values if c is not None]
    return bool(given) and all(map(is_identifier, given))


@dataclass
class Grid:
    """A table to draw: its headers, each row's cells as the lines they show (one, or an item a line for a list
    column), which columns hold identifiers (shortened last), which a terminal may leave out (the ``*_iri``
    columns: the name before them says what they identify), and the rows that end a group (a blank line after)."""

    headers: list[str]
    cells: list[list[list[str]]]
    ident: list[bool]
    optional: list[bool]
    ends: set[int] = field(default_factory=set)


def grid(columns: list[str], rows: list[list[Cell]], lists: Iterable[str] = ()) -> Grid:
    """``rows`` under ``columns`` as a Grid: values as ``shown``; the items of a ``lists`` column one a line (and
    then a blank line between rows)."""
    listed = [c in set(lists) for c in columns]
    cells = [[[printable(item) for item in c[1].split("\n")] if listed[i] and c is not None and c[0] == "literal"
              else [shown(c)] for i, c in enumerate(row)] for row in rows]
    apart = any(len(lines) > 1 for r in cells for lines in r)  # (rows of several lines: a blank line after each)
    return Grid(list(columns), cells, [identifier_column(r[i] for r in rows) for i in range(len(columns))],
                [bool(_IRI_COLUMN.search(c)) for c in columns], set(range(len(rows))) if apart else set())


@dataclass(frozen=True)
class Fit:
    """How a Grid fits a width: the columns shown and their widths, those shortened and those left out."""

    shown: list[int]
    widths: list[int]
    cut: list[str]
    left_out: list[str]

    def note(self) -> str | None:
        """The line that says what was shortened or left out (None: nothing was)."""
        parts = ([f"shortened to fit: {', '.join(self.cut)}"] if self.cut else []) + \
                ([f"left out{'' if self.cut else ' to fit'}: {', '.join(self.left_out)}"] if self.left_out else [])
        if not parts:
            return None
        more = "everything" if self.cut and self.left_out else "them whole" if self.cut else "every column"
        return f"({'; '.join(parts)}; --wide shows {more})"


def _gaps(n: int) -> int:
    return 2 * (n - 1)  # (a column but the last is followed by a space of padding and one of rule)


def plan(g: Grid, width: int | None) -> Fit:
    """How ``g`` fits ``width`` (None: whole). When it does not fit whole: the ``*_iri`` columns are left out, the
    widest text columns give way first (down to ``MIN_TEXT`` characters or their header's longest word); when the
    text at its least is not enough, the identifiers too (the widest first), to the same least; when even that is
    too wide, columns are left out from the right. No line is wider than ``width`` (a single column is cut to it).
    A header wider than its values is broken into lines before a value is cut (``header_lines``); only a value
    cut counts as shortened."""
    from rich.cells import cell_len
    n = len(g.headers)
    values = [max([0] + [cell_len(line) for r in g.cells for line in r[i]]) for i in range(n)]
    full = [max(cell_len(h), v) for h, v in zip(g.headers, values, strict=True)]
    word = [max(map(cell_len, header_pieces(h))) for h in g.headers]
    least = [min(f, max(MIN_TEXT, w)) for f, w in zip(full, word, strict=True)]
    everything = list(range(n))

    def fit(shown: list[int]) -> list[int] | None:
        budget = width - _gaps(len(shown)) if width is not None else 0
        text_first = [full[i] if g.ident[i] else least[i] for i in shown]
        if sum(text_first) <= budget:
            return fitted([full[i] for i in shown], text_first, budget)
        if sum(least[i] for i in shown) > budget:
            return None
        idents = [i for i in shown if g.ident[i]]  # the text at its least, the identifiers in the room left
        room = budget - sum(least[i] for i in shown if not g.ident[i])
        cut = dict(zip(idents, fitted([full[i] for i in idents], [least[i] for i in idents], room), strict=True))
        return [cut.get(i, least[i]) for i in shown]

    if width is None or sum(full) + _gaps(n) <= width:
        return Fit(everything, full, [], [])
    shown = [i for i in everything if not g.optional[i]] or everything
    widths = fit(shown)
    while widths is None and len(shown) > 1:
        shown = shown[:-1]
        widths = fit(shown)
    if widths is None:
        widths = [max(1, width)]
    return Fit(shown, widths, [g.headers[i] for i, w in zip(shown, widths, strict=True) if w < values[i]],
               [g.headers[i] for i in everything if i not in shown])


def header_pieces(header: str) -> list[str]:
    """Where a header may break: after a space or an underscore.

    >>> header_pieces("recognition_method"), header_pieces("Compilers and code generation")[:2]
    (['recognition_', 'method'], ['Compilers', 'and'])
    """
    return [p for word in header.split() for p in _PIECE.findall(word)] or [""]


def header_lines(header: str, width: int) -> str:
    """``header`` broken into lines of at most ``width`` cells where it may break (a piece wider is folded)."""
    from rich.cells import cell_len
    lines: list[str] = []
    for word in header.split() or [""]:
        for n, piece in enumerate(_PIECE.findall(word) or [""]):
            joined = (lines[-1] + (" " if n == 0 else "") + piece) if lines else piece
            if lines and cell_len(joined) <= width:
                lines[-1] = joined
            else:
                lines.append(piece)
    return "\n".join(lines)


def wrapped(text: str, width: int | None) -> str:
    """``text`` (one line, no newline) wrapped at spaces to ``width`` (None: as it is; at least 20), with a newline
    at the end."""
    if width is None:
        return text + "\n"
    return "\n".join(textwrap.wrap(text, max(width, 20), break_long_words=False, break_on_hyphens=False)) + "\n"


def page_rows(answer: Answer) -> tuple[list[list[Cell]], bool]:
    """The rows a table shows (one page of them when ``answer.page`` is set) and whether more follow."""
    rows = list(islice(answer.rows, answer.page + 1)) if answer.page is not None else list(answer.rows)
    more = answer.page is not None and len(rows) > answer.page
    return (rows[:answer.page] if more else rows), more


def count_line(n: int, more: bool, offset: int) -> str:
    """The line under a table: how many rows, or which, and how to see the next page."""
    if more:
        which = f"first {n} rows" if not offset else f"rows {offset + 1} to {offset + n}"
        return f"({which}; more follow: --offset {offset + n} shows the next page, --all every row)"
    return f"({n} row{'s' if n != 1 else ''})"


def write_table(answer: Answer, out: IO[str], width: int | None, offset: int = 0) -> None:
    """The rows (one page of them when ``answer.page`` is set) as a table; ``width`` None: nothing is cut. The
    answer to the headline question, on a terminal, as ``kg.query.headline`` shows it."""
    if answer.sides is not None:
        from .headline import write_headline
        write_headline(answer, out, width, offset)
        return
    rows, more = page_rows(answer)
    text, fit = table(grid(answer.columns, rows, answer.lists), width)
    out.write(text)
    out.write(wrapped(count_line(len(rows), more, offset), width))
    if (note := fit.note()) is not None:
        out.write(wrapped(note, width))


def fitted(full: list[int], least: list[int], budget: int | None) -> list[int]:
    """Column widths within ``budget`` (None: ``full``): the widest columns give way first, each down to the
    width of the next widest, never below its ``least`` (a column whose least is its full width never gives way).

    >>> fitted([40, 60, 10, 30], [40, 8, 8, 8], 101)
    [40, 26, 10, 25]
    """
    if budget is None or sum(full) <= budget:
        return list(full)
    def at(level: int) -> list[int]:
        return [min(f, max(level, m)) for f, m in zip(full, least, strict=True)]
    low, high = 0, max(full)  # the highest level at which the columns fit (0: they cannot; all at least)
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if sum(at(mid)) <= budget else (low, mid - 1)
    widths = at(low)
    spare = budget - sum(widths)
    for i in sorted(range(len(widths)), key=lambda j: (-widths[j], j)):  # what is left: one more to the widest cut
        if spare <= 0:
            break
        if widths[i] < full[i] and widths[i] == low:
            widths[i] += 1
            spare -= 1
    return widths


def table(g: Grid, width: int | None) -> tuple[str, Fit]:
    """``g`` drawn by rich's Table within ``width`` (None: no limit; see ``plan``), and how it was fitted. The widths
    are chosen here: rich's own shrinking knows no least width and, as a last resort, cuts every column,
    identifiers too. Rich measures the text (wide characters take two cells), cuts each line of a cell with "…"
    and draws the table: a header (broken after a space or an underscore when too wide), a rule of '-' under
    each column, no edges, no lines between rows, a blank line after a group."""
    if not g.headers:
        return "(no columns)\n", Fit([], [], [], [])
    from rich.box import Box
    from rich.console import Console
    from rich.table import Column, Table
    from rich.text import Text

    fit = plan(g, width)
    rule = Box("    \n    \n -  \n    \n    \n    \n    \n    \n", ascii=True)
    t = Table(*(Column(Text(header_lines(g.headers[i], w), overflow="fold"), width=w, no_wrap=True,
                       overflow="ellipsis") for i, w in zip(fit.shown, fit.widths, strict=True)),
              box=rule, show_edge=False, pad_edge=False, padding=(0, 1), collapse_padding=True, highlight=False)
    for n, r in enumerate(g.cells):
        t.add_row(*(Text("\n".join(r[i]), no_wrap=True, overflow="ellipsis") for i in fit.shown),
                  end_section=n in g.ends and n != len(g.cells) - 1)
    buf = io.StringIO()
    console = Console(file=buf, width=sum(fit.widths) + _gaps(len(fit.shown)), color_system=None,
                      force_terminal=False, no_color=True, highlight=False, markup=False, emoji=False,
                      legacy_windows=False, _environ={})
    console.print(t, crop=False)
    return "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines()), fit

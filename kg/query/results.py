"""The results of a query: the rows of a SELECT, the boolean of an ASK or the graph of a CONSTRUCT, whole
(``Results``) or as the engine gives them (``Answer``); what kg does to rows of a stored query (its list columns
sorted, its cited works known only by a DOI found); a cell of SPARQL TSV read (``tsv_cell``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ..rdf import vocab
from ..rdf.ids import DOI_RESOLVER
from ..rdf.terms import token_value
from .stored import StoredQuery

XSD_STRING = token_value(vocab.XSD_STRING)
RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_XSD = vocab.XSD.base
_TSV_UNESCAPE = re.compile(r"\\(.)")
_TSV_CHARS = {"t": "\t", "n": "\n", "r": "\r", '"': '"', "\\": "\\"}


def tsv_cell(field: str) -> Cell:
    r"""One value of a row of SPARQL 1.1 TSV results as Oxigraph writes them: ``<iri>``, ``_:id``, ``"text"`` with
    \t \n \r \" \\ escaped, then ``@lang`` or ``^^<datatype>`` (none: xsd:string), or a number or boolean bare
    (each bare form is Turtle's: an integer has no '.' and no exponent, a decimal a '.', a double an exponent);
    empty when unbound.

    >>> tsv_cell(r'"a\tb"@en'), tsv_cell("4.50")
    (('literal', 'a\tb', None, 'en'), ('literal', '4.50', 'http://www.w3.org/2001/XMLSchema#decimal', None))
    """
    if not field:
        return None
    first = field[0]
    if first == "<":
        return ("uri", field[1:-1], None, None)
    if first == '"':
        end = field.rindex('"')
        value = field[1:end]
        if "\\" in value:
            value = _TSV_UNESCAPE.sub(lambda m: _TSV_CHARS[m.group(1)], value)
        if end == len(field) - 1:
            return ("literal", value, None, None)
        if field[end + 1] == "@":
            return ("literal", value, None, field[end + 2:])
        dt = field[end + 4:-1]  # (after '^^<')
        return ("literal", value, None if dt == XSD_STRING else dt, None)
    if first == "_":
        return ("bnode", field[2:], None, None)
    if field in ("true", "false"):
        return ("literal", field, _XSD + "boolean", None)
    if "e" in field or "E" in field:
        return ("literal", field, _XSD + "double", None)
    return ("literal", field, _XSD + ("decimal" if "." in field else "integer"), None)


Cell = tuple[str, str, str | None, str | None] | None  # (kind uri|literal|bnode, value, datatype, lang)


@dataclass
class Results:
    """A whole answer: the rows of a SELECT, the boolean of an ASK, or the graph of a CONSTRUCT/DESCRIBE."""

    columns: list[str]
    rows: list[list[Cell]]
    boolean: bool | None = None
    graph_nt: str | None = None  # CONSTRUCT/DESCRIBE results as N-Triples: sorted, unique lines


@dataclass(frozen=True)
class Side:
    """One side of the headline question: its letter, its topic's label and its papers' titles (a DOI for a paper
    without one), in code-point order."""

    letter: str
    label: str
    papers: tuple[str, ...]


@dataclass
class Answer:
    """An answer as the engine gives it: the rows of a SELECT come one at a time (``rows`` is an iterator,
    read once), so that a writer can pass each on before the next is computed. ``page`` is the default page
    size when one was added to the query (it then asked for one row more, to tell whether more follow).
    For a person's table (a terminal): ``lists``, the stored query's list columns (one item a line), ``sides``, the
    two sides of the headline question when the query answers it (``kg.query.headline``), and ``partial``: the rows
    are those --limit or --offset chose, not the whole answer."""

    columns: list[str] = field(default_factory=list)
    rows: Iterator[list[Cell]] = field(default_factory=lambda: iter(()))
    boolean: bool | None = None
    graph: list[str] | None = None  # CONSTRUCT/DESCRIBE results: sorted, unique N-Triples lines
    page: int | None = None
    lists: tuple[str, ...] = ()
    sides: tuple[Side, Side] | None = None
    partial: bool = False

    @property
    def form(self) -> str:
        """``SELECT`` (rows), ``ASK`` (a boolean) or ``CONSTRUCT`` (a graph; DESCRIBE too)."""
        return "CONSTRUCT" if self.graph is not None else "ASK" if self.boolean is not None else "SELECT"

    @classmethod
    def of(cls, res: Results) -> Answer:
        graph = None if res.graph_nt is None else res.graph_nt.splitlines(keepends=True)
        return cls(res.columns, iter(res.rows), res.boolean, graph)

    def results(self) -> Results:
        """The whole answer, its rows read."""
        return Results(self.columns, list(self.rows), self.boolean,
                       None if self.graph is None else "".join(self.graph))

    def mapped(self, each: Callable[[list[Cell]], list[Cell]]) -> Answer:
        """The same answer with ``each`` applied to every row as it comes."""
        return Answer(self.columns, map(each, self.rows), self.boolean, self.graph, self.page, self.lists,
                      self.sides, self.partial)


def sorted_lists(res: Results, columns: tuple[str, ...], ordered: tuple[str, ...] = ()) -> Results:
    """The results with the items of each list column (one per line) in code-point order: SPARQL leaves the
    order of GROUP_CONCAT to the engine, and engines differ. The items of an ``ordered`` column begin with their
    sort key and a tab: sorted, then the key dropped."""
    sort = list_sorter(res.columns, columns, ordered)
    return res if sort is None else Results(res.columns, [sort(r) for r in res.rows], res.boolean, res.graph_nt)


def list_sorter(names: list[str], columns: Iterable[str], ordered: Iterable[str] = ()
                ) -> Callable[[list[Cell]], list[Cell]] | None:
    """What ``sorted_lists`` does to one row (None when no column of ``names`` is a list column).

    >>> list_sorter(["a"], ["a"], ["a"])([("literal", "02\\tB\\n01\\tA", None, None)])
    [('literal', 'A\\nB', None, None)]
    """
    keyed = set(ordered)
    idx = [(i, c in keyed) for i, c in enumerate(names) if c in set(columns)]
    if not idx:
        return None

    def sort(row: list[Cell]) -> list[Cell]:
        row = list(row)
        for i, has_key in idx:
            c = row[i]
            if c is not None and c[0] == "literal":
                items = sorted(c[1].split("\n"))
                if has_key:
                    items = [item.partition("\t")[2] for item in items]
                row[i] = (c[0], "\n".join(items), c[2], c[3])
        return row
    return sort


def untitled_cited(q: StoredQuery, columns: list[str], rows: Iterable[list[Cell]]) -> list[str]:
    """The cited works of ``rows`` known only by their DOI: the DOI IRIs (``https://doi.org/...``) of the query's
    ``#+ untitled:`` column whose title column is empty, distinct and sorted; none when the query declares none."""
    if q.untitled is None or not set(q.untitled) <= set(columns):
        return []
    cited, title = (columns.index(c) for c in q.untitled)
    found = {c[1] for row in rows if (c := row[cited]) is not None and c[0] == "uri"
             and c[1].startswith(DOI_RESOLVER) and not ((t := row[title]) is not None and t[1])}
    return sorted(found)

"""The query layer's index: the rows of the listings, in their order, kept beside the graph in the store that
``kg build --store DIR`` writes, so that a page of a long listing is a few look-ups instead of a sort of the corpus.

A listing is a stored query with ``#+ page: index``. Its order is declared once, by the ORDER BY of its own text:
the build runs that text (every parameter at its default) on the store it has just loaded, sorts its rows on disk
as that ORDER BY would (``kg.query.order``: the engine only streams them), and keeps each row, numbered 1, 2, ...,
in the store's named graph ``INDEX_GRAPH`` (the index vocabulary is kg/data/index.ttl):

- ``<{ROWS}NAME/N> idx:row "TSV"``: row N, its cells as SPARQL TSV (what Oxigraph writes; ``tsv_cell`` reads it);
- ``<{ROWS}NAME> idx:text "DIGEST"; idx:columns "c1 c2 ..."; idx:rows N``: what the rows answer (a digest of the
  query text as bound), their columns and how many there are.

The graph itself (``.kg/graph.nq``, ``kg export``, ``-o``, what ``kg validate`` reads) holds none of this, and
the store's default graph, which every query reads, neither: a server loaded from an export answers the same
listing from the text alone (its ORDER BY, the page's LIMIT and OFFSET), and so does kg on a graph file, a store
built before the query changed, or parameters other than the defaults (``page`` asks once which it is).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from hashlib import blake2b
from pathlib import Path

import pyoxigraph as ox

from ..infra.extsort import Sorter
from ..rdf.terms import integer, lit
from .order import Unordered, apply, fold, sort_key, unordered
from .results import Answer, Cell, tsv_cell
from .stored import StoredQuery, bound_text, stored_queries

INDEX_GRAPH = "https://w3id.org/crossref-kg/index"  # the store's named graph of the index
IDX = "https://w3id.org/crossref-kg/index#"  # the index vocabulary (kg/data/index.ttl)
ROWS = "https://w3id.org/crossref-kg/index/"  # <ROWS NAME> a listing, <ROWS NAME/N> its row N
ROW, TEXT, COLUMNS, COUNT = (f"<{IDX}{term}>" for term in ("row", "text", "columns", "rows"))


def listings() -> list[StoredQuery]:
    """The stored queries whose rows the store keeps (``#+ page: index``), by name."""
    return [q for q in stored_queries().values() if q.page]


def digest(text: str) -> str:
    """What identifies the rows of a listing: a digest of its text as sent (parameters bound).

    >>> len(digest("SELECT * {}"))
    32
    """
    return blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


# The rows of a listing sorted in memory at once, at most: so many rows, or so many characters (a row of a listing
# of references, with its sort key, is some 3,000: 100,000 of them held 300 MB); more go to runs on disk.
ROWS_IN_MEMORY = 100_000
CHARS_IN_MEMORY = 16 << 20


def index_quads(store: ox.Store, scratch: Path, queries: list[StoredQuery] | None = None) -> Iterator[str]:
    """The N-Quads lines of the index of ``store`` (a store of ours: the graph in its default graph): each listing
    of ``queries`` (default: every listing) answered on it at its parameters' defaults, row by row in its order.

    The engine streams each answer into a file in ``scratch`` without sorting it (``kg.query.order.unordered``:
    its ORDER BY conditions as extra columns, no DISTINCT), and the rows are sorted (and made distinct) on disk
    by kg.infra.extsort, so that no listing is held in memory whatever the size of the graph."""
    graph = f"<{INDEX_GRAPH}>"
    for q in listings() if queries is None else queries:
        text = bound_text(q, {})
        columns, rows = _sorted_rows(store, text, scratch / f"index-{q.name}")
        listing = f"<{ROWS}{q.name}>"
        n = 0
        for n, row in enumerate(rows, 1):
            yield f"<{ROWS}{q.name}/{n}> {ROW} {lit(row)} {graph} .\n"
        yield f"{listing} {TEXT} {lit(digest(text))} {graph} .\n"
        yield f"{listing} {COLUMNS} {lit(' '.join(columns))} {graph} .\n"
        yield f"{listing} {COUNT} {integer(n)} {graph} .\n"


# A listing whose text holds the comment ``#slice ?VAR`` (alone on its line, inside the group whose rows may be
# divided) is answered in SLICES parts: each with that comment replaced by a FILTER keeping the rows whose ?VAR
# has an MD5 digest starting with one hex digit. Its text says that the rows of the parts together are its rows
# (every GROUP BY key holds ?VAR, say): what the engine holds for a GROUP BY is then a sixteenth. Any engine reads
# the comment as a comment.
_SLICE = re.compile(r"(?m)^([ \t]*)#slice[ \t]+([?$][A-Za-z0-9_]+)[ \t]*$")
SLICES = "0123456789abcdef"


def slices(text: str) -> list[str]:
    r"""The texts of a listing's parts (the text itself when it has no ``#slice`` line).

    >>> [t.split("\n")[1] for t in slices("SELECT ?a {\n  #slice ?a\n}")][:2]
    ['  FILTER (STRSTARTS(MD5(STR(?a)), "0"))', '  FILTER (STRSTARTS(MD5(STR(?a)), "1"))']
    """
    m = _SLICE.search(text)
    if m is None:
        return [text]
    return [text[:m.start()] + f'{m.group(1)}FILTER (STRSTARTS(MD5(STR({m.group(2)})), "{digit}"))' + text[m.end():]
            for digit in SLICES]


def _sorted_rows(store: ox.Store, text: str, work: Path) -> tuple[list[str], Iterator[str]]:
    """The columns of a listing and its rows in order, as TSV lines (no line break), through files in ``work``
    (a folder made for it and removed once the rows are read)."""
    work.mkdir(parents=True, exist_ok=True)
    answer = work / "answer.tsv"
    plan = unordered(text)
    if plan is None:  # (the engine sorts it)
        result = store.query(text)
        assert isinstance(result, ox.QuerySolutions)  # (a listing is a SELECT)
        result.serialize(str(answer), format=ox.QueryResultsFormat.TSV)
        return [v.value for v in result.variables], _lines(answer, work)
    first = Sorter(work, "rows", ROWS_IN_MEMORY, CHARS_IN_MEMORY)
    folded = {column for column, _ in plan.folds}
    seq = 0
    for part in slices(plan.text):
        result = store.query(part)
        assert isinstance(result, ox.QuerySolutions)
        variables = [v.value for v in result.variables]
        result.serialize(str(answer), format=ox.QueryResultsFormat.TSV)
        width = len(variables) - plan.keys
        with open(answer, encoding="utf-8", newline="\n") as fh:
            next(fh)  # (the header)
            for line in fh:
                fields = line[:-1].split("\t")
                if plan.folds:
                    # (by group, the rows alike in every other column; a group's values of the folded columns after)
                    first.add("\t".join([f for n, f in enumerate(fields) if n not in folded]
                                        + [fields[n] for n, _ in plan.folds]) + "\n")
                    continue
                cells = fields[width:] if plan.sources is None else [fields[n] for n in plan.sources]
                keys = [apply(f, tsv_cell(cell)) for f, cell in zip(plan.functions, cells, strict=True)]
                row, key = "\t".join(fields[:width]), sort_key(keys, plan.descending)
                # (DISTINCT: by row first, to keep each row once at its first place; else by key, rows kept apart)
                first.add(f"{row}\t{key}\n" if plan.distinct else f"{key}\t{row}\t{seq:012d}\n")
                seq += 1
        answer.unlink()
    if plan.folds:
        first = _folded(first, plan, len(variables), work)
    if not plan.distinct:
        return variables[:width], (line[line.index("\t") + 1:line.rindex("\t")] for line in _done(first, work))
    second = Sorter(work, "distinct", ROWS_IN_MEMORY, CHARS_IN_MEMORY)
    last = None
    for line in first.sorted():
        row, _, key = line[:-1].rpartition("\t")
        if row != last:
            second.add(f"{key}\t{row}\n")
            last = row
    return variables[:width], (line[line.index("\t") + 1:] for line in _done(second, work))


def _folded(grouped: Sorter, plan: Unordered, width: int, work: Path) -> Sorter:
    """The rows of a ``#fold`` listing, one a group, keyed by their order (``kg.query.order.fold``): ``grouped``
    holds each row as its other columns, then its values of the folded columns."""
    rows = Sorter(work, "folded", ROWS_IN_MEMORY, CHARS_IN_MEMORY)
    folded = [column for column, _ in plan.folds]
    others = [n for n in range(width) if n not in set(folded)]
    group: str | None = None
    values: list[list[str]] = []
    seq = 0

    def close() -> None:
        nonlocal seq
        if group is None:
            return
        fields = [""] * width
        for n, field in zip(others, group.split("\t") if others else [], strict=True):
            fields[n] = field
        for (column, aggregate), found in zip(plan.folds, values, strict=True):
            fields[column] = fold(aggregate, found)
        keys = [apply(f, tsv_cell(fields[n])) for f, n in zip(plan.functions, plan.sources or (), strict=True)]
        row = "\t".join(fields)
        rows.add(f"{sort_key(keys, plan.descending)}\t{row}\t{seq:012d}\n")
        seq += 1

    for line in grouped.sorted():
        parts = line[:-1].split("\t")
        key, cells = "\t".join(parts[:len(others)]), parts[len(others):]
        if key != group:
            close()
            group, values = key, [[] for _ in plan.folds]
        for value, cell in zip(values, cells, strict=True):
            value.append(cell)
    close()
    return rows


def _done(sorter: Sorter, work: Path) -> Iterator[str]:
    """The sorted lines of ``sorter`` without their line breaks, then ``work`` removed."""
    for line in sorter.sorted():
        yield line[:-1]
    shutil.rmtree(work, ignore_errors=True)


def _lines(answer: Path, work: Path) -> Iterator[str]:
    with open(answer, encoding="utf-8", newline="\n") as fh:
        next(fh)
        for line in fh:
            yield line[:-1]
    shutil.rmtree(work, ignore_errors=True)


CHUNK = 10_000  # the rows read from the index in one query (a VALUES block of their numbers)


def page(store: ox.Store, text: str, name: str, limit: int | None, offset: int | None
         ) -> tuple[str, Answer] | None:
    """Rows ``offset`` + 1 to ``offset`` + ``limit`` (every row after ``offset`` without a ``limit``) of the listing
    ``name`` whose text (parameters bound) is ``text``, read from the store's index: the first text sent and the
    answer (its rows read ``CHUNK`` at a time, as they are asked for). None when the store holds no rows of that
    text (no index, an index of another text or of other parameter values): the listing's own text answers then.
    """
    listing = f"<{ROWS}{name}>"
    ask = (f"SELECT ?text ?columns ?rows WHERE {{ GRAPH <{INDEX_GRAPH}> {{ {listing} {TEXT} ?text ; "
           f"{COLUMNS} ?columns ; {COUNT} ?rows }} }}")
    found = store.query(ask)
    assert isinstance(found, ox.QuerySolutions)
    about = next(iter(found), None)
    if about is None or about["text"].value != digest(text):
        return None
    columns = about["columns"].value.split(" ") if about["columns"].value else []
    first, count = (offset or 0) + 1, int(about["rows"].value)
    last = count if limit is None else min((offset or 0) + limit, count)
    chunks = [(start, min(start + CHUNK - 1, last)) for start in range(first, last + 1, CHUNK)]
    return _rows_text(name, *(chunks[0] if chunks else (1, 0))), Answer(columns, _read(store, name, chunks,
                                                                                      len(columns)))


def _rows_text(name: str, first: int, last: int) -> str:
    """The query that reads rows ``first`` to ``last`` of a listing from the index, in their order."""
    values = " ".join(f"(<{ROWS}{name}/{n}> {n})" for n in range(first, last + 1))
    return (f"SELECT ?row WHERE {{ GRAPH <{INDEX_GRAPH}> {{ VALUES (?at ?n) {{ {values} }} ?at {ROW} ?row }} }} "
            "ORDER BY ?n")


def _read(store: ox.Store, name: str, chunks: list[tuple[int, int]], width: int) -> Iterator[list[Cell]]:
    for first, last in chunks:
        answer = store.query(_rows_text(name, first, last))
        assert isinstance(answer, ox.QuerySolutions)
        rows = [_cells(solution["row"].value, width) for solution in answer]
        yield from rows


def _cells(row: str, width: int) -> list[Cell]:
    """The cells of one TSV row of ``width`` columns (a row of no columns is empty)."""
    return [tsv_cell(field) for field in row.split("\t")] if width else []

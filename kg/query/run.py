"""Prepare and answer one query on one source: a stored query (its parameters bound; a page of a listing read from
the store's index when the store has it), a ``.rq`` file or SPARQL text, on graph files, the workspace graph, an
on-disk store or an endpoint."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import KgError, QueryError, UsageError
from ..infra.net import DEFAULT_MAX_BYTES
from ..infra.parts import exists as parts_exist
from ..infra.parts import is_folder as parts_folder
from ..infra.parts import lines as parts_lines
from ..rdf.io import read_graph_lines
from ..resources import data_file
from . import index
from .backends import answer_oxigraph, load_store, no_triples, open_disk_store, query_endpoint, query_rdflib
from .discover import tool_table, topic_table
from .results import Answer, Cell, Results, Side, list_sorter, untitled_cited
from .stored import StoredQuery, Values, bound_text, find_query, given, is_plain_query_file, resolve_iri
from .text import check_local, paged, query_form, shift_error_lines, with_standard_prefixes


@dataclass(frozen=True)
class QuerySource:
    """Where a query is answered: graph files (in ``graph_format`` when given, else by their extensions), an on-disk
    store, or an endpoint (bounded by ``timeout`` seconds and ``max_bytes``; asked to answer over
    ``default_graphs`` and ``named_graphs`` when given); none of them: ``workspace``, the workspace graph."""

    graphs: Sequence[Path | str] | None = None
    store: Path | None = None
    endpoint: str | None = None
    engine: str = "oxigraph"
    allow_remote: bool = False
    timeout: float = 60.0
    max_bytes: int = DEFAULT_MAX_BYTES
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    graph_format: str | None = None
    workspace: Path | str | None = None


@dataclass(frozen=True)
class Prepared:
    """A query ready to send: its text, what to call it in messages, the stored query it comes from (if any), and
    the lines put in front of an ad-hoc text (the standard prefixes: an engine's error positions move up)."""

    text: str
    source: str
    stored: StoredQuery | None = None
    shift: int = 0


def prepare(name_or_file: str, params: Values, text: str | None = None) -> Prepared:
    """The text of a stored query (parameters bound), a ``.rq`` file without a header, or ``text``."""
    if text is None and is_plain_query_file(name_or_file):
        if params:
            raise UsageError(f"--param goes with stored queries; {name_or_file} has no '#+ param:' header")
        try:
            text = Path(name_or_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise QueryError(f"{name_or_file}: cannot be read ({e}); check the path") from None
        return _adhoc(text, f"query file {name_or_file}")
    if text is None:
        stored = find_query(name_or_file)
        is_file = name_or_file.endswith(".rq") or Path(name_or_file).is_file()
        source = f"query file {name_or_file}" if is_file else f"query {stored.name!r}"
        return Prepared(bound_text(stored, params), source, stored)
    if params:
        raise UsageError("--param goes with stored queries; write the values into the -e text instead")
    return _adhoc(text, "the -e query")


def _adhoc(text: str, source: str) -> Prepared:
    with_prefixes, shift = with_standard_prefixes(text, source)
    return Prepared(with_prefixes, source, None, shift)


def answer(name_or_file: str, params: Values, on: QuerySource, text: str | None = None,
           limit: int | None = None, offset: int | None = None, on_text: Callable[[str], None] | None = None,
           page: int | None = None, view: bool = False) -> Answer:
    """A query's answer as the engine gives it: a SELECT's rows are computed as they are read (on Oxigraph; rdflib
    and an endpoint answer whole). With ``page`` and no ``limit``, a SELECT is asked for ``page`` + 1 rows (the
    answer's ``page`` is then set: one row more than it says that more follow). The items of a stored query's list
    columns come back sorted; ``on_text`` is given the text sent to the engine before it is sent. ``view``: the
    answer is for a person's table on a terminal: it carries the stored query's list columns and, for the headline
    question, its two sides (``sides``)."""
    prepared = prepare(name_or_file, params, text)
    if (on.default_graphs or on.named_graphs) and not on.endpoint:
        raise UsageError("--default-graph-uri and --named-graph-uri go with --endpoint; a local source answers "
                         "over the union of its graphs")
    asked = page + 1 if page is not None and limit is None and query_form(prepared.text) == "SELECT" else None
    rows = limit if asked is None else asked
    res = _from_index(prepared, on, rows, offset, on_text)
    if res is None:
        sent = paged(prepared.text, rows, offset)
        if on_text is not None:
            on_text(sent)
        try:
            res = _answer(sent, prepared.source, on, _trusted(prepared))
        except QueryError as e:
            if not prepared.shift:
                raise
            raise QueryError(shift_error_lines(str(e), prepared.shift)) from None
    if asked is not None:
        res.page = page
    stored = prepared.stored
    if view and stored is not None and res.form == "SELECT":
        res.lists = stored.lists
        res.sides = sides(stored, params, on) if stored.sides else None
        res.partial = limit is not None or bool(offset)
    sort = list_sorter(res.columns, stored.lists, stored.ordered) if stored is not None else None
    return res.mapped(sort) if sort is not None else res


def sides(stored: StoredQuery, params: Values, on: QuerySource) -> tuple[Side, Side]:
    """The two sides of a stored query that answers the headline question (``#+ sides: PARAM_A PARAM_B``), as
    its parameters choose them: each side's topic label and its papers' titles (kg/data/headline-sides.rq)."""
    assert stored.sides is not None
    defaults = {p.name: p.default or "" for p in stored.params}
    chosen: dict[str, str | Sequence[str]] = {
        side: params.get(name, defaults[name]) for side, name in zip(("topic-a", "topic-b"), stored.sides, strict=True)}
    res = query(str(data_file("headline-sides.rq")), chosen, on)
    labels: dict[str, str] = {}
    papers: dict[str, dict[str, str]] = {"A": {}, "B": {}}  # side -> DOI -> its least title (or the DOI)
    for side, label, doi, title in ((c[1] if c else "" for c in row) for row in res.rows):
        labels.setdefault(side, label)
        if doi:
            name = title or doi
            papers[side][doi] = min(papers[side].get(doi, name), name)
    def asked(side: str) -> str:
        value = chosen["topic-a" if side == "A" else "topic-b"]
        return value if isinstance(value, str) else ", ".join(value)

    a, b = (Side(s, labels.get(s, asked(s)), tuple(sorted(papers[s].values()))) for s in ("A", "B"))
    return a, b


def _from_index(prepared: Prepared, on: QuerySource, limit: int | None, offset: int | None,
                on_text: Callable[[str], None] | None) -> Answer | None:
    """A listing's rows (a page, or all) read from the index of ``on``'s store (``kg.query.index``); None where there
    is none."""
    stored = prepared.stored
    if stored is None or not stored.page or on.store is None or on.graphs or on.endpoint:
        return None
    if not on.allow_remote:
        check_local(prepared.text, prepared.source, trusted=_trusted(prepared))
    found = index.page(open_disk_store(on.store), prepared.text, stored.name, limit, offset)
    if found is None:
        return None
    sent, res = found
    if on_text is not None:
        on_text(sent)
    return res


def query(name_or_file: str, params: Values, on: QuerySource, text: str | None = None,
          limit: int | None = None, offset: int | None = None,
          on_text: Callable[[str], None] | None = None) -> Results:
    """``answer``, whole."""
    return answer(name_or_file, params, on, text, limit, offset, on_text).results()


def absent(name_or_file: str, params: Values, on: QuerySource) -> list[str]:
    """The values given to a stored query's iri parameters that name nothing in the graph of ``on`` (no triple has
    their IRI as subject or object), as ``(name, value, IRI)`` lines for a note."""
    if not params or is_plain_query_file(name_or_file):
        return []
    stored = find_query(name_or_file)
    values = given(params)
    out = []
    for p in stored.params:
        for v in values.get(p.name, []) if p.type == "iri" else []:
            iri = resolve_iri(p, v)
            ask = f"ASK {{ {{ <{iri}> ?p ?o }} UNION {{ ?s ?p <{iri}> }} }}"
            if not _answer(ask, f"query {stored.name!r}", on, trusted=True).boolean:
                out.append(f"-p {p.name}={v} names nothing in the graph (<{iri}>); check the value ('kg tools' "
                           "and 'kg topics' list the ids)")
    return out


def _trusted(prepared: Prepared) -> bool:
    """Whether ``prepared`` is a stored query of the project (its parameters bound as data): the local-only check
    reads its text, not its parse."""
    return prepared.stored is not None and not prepared.source.startswith("query file ")


def _answer(text: str, source: str, on: QuerySource, trusted: bool = False) -> Answer:
    """``text`` (ready to send) answered on one source; ``trusted``: a stored query of the project."""
    if sum(x is not None and x != [] for x in (on.graphs, on.store, on.endpoint)) > 1:
        raise UsageError("give one source: --graph, --store or --endpoint")
    if on.graph_format is not None and not on.graphs:
        raise UsageError("--graph-format says the format of --graph files; give them with -g FILE")
    if on.endpoint:
        return Answer.of(query_endpoint(on.endpoint, text, on.timeout, on.max_bytes, on.default_graphs,
                                        on.named_graphs))
    if not on.allow_remote:
        check_local(text, source, on.engine if not on.store else "oxigraph", trusted)
    if on.store:
        return answer_oxigraph(open_disk_store(on.store), text)
    sources = list(on.graphs or ([on.workspace] if on.workspace is not None else []))
    for s in sources:
        if not parts_exist(s):
            raise KgError(f"{s}: no graph here; run 'kg build' first or pass --graph FILE")
    if on.engine == "rdflib":
        lines: set[str] = set()
        for s in sources:
            got = list(parts_lines(s)) if parts_folder(s) else read_graph_lines(Path(s), fmt=on.graph_format)
            if not got:
                raise no_triples(Path(s))
            lines.update(got)
        return Answer.of(query_rdflib(sorted(lines), text, on.allow_remote))
    return answer_oxigraph(load_store(sources, on.graph_format), text)


def stats(on: QuerySource) -> Results:
    """Counts of works, references, cited works, tools, people and triples, as one result row: the stored query
    ``stats`` (queries/stats.rq), so ``kg stats`` is ``kg query stats``."""
    return query("stats", {}, on)


def topics() -> Results:
    """The topic scheme (kg/data/topics.ttl): each concept's label, id and broader concept, in tree order."""
    return topic_table()


def tools(category: str | None, workspace: Path | None) -> Results:
    """The tool catalogue, of one ``category`` when given, and, when the graph ``workspace`` exists, how many input
    works cite each tool and the tools its references name (``kg.query.discover.tool_table``)."""
    cited = query("tools", {}, QuerySource(workspace=workspace)) if workspace is not None and workspace.exists() \
        else None
    return tool_table(category, cited)


def untitled(name_or_file: str | None, columns: list[str], rows: list[list[Cell]]) -> list[str]:
    """The cited works of a stored query's ``rows`` known only by their DOI (``kg.query.results.untitled_cited``);
    none for SPARQL text or a ``.rq`` file without a header."""
    if not name_or_file or is_plain_query_file(name_or_file):
        return []
    return untitled_cited(find_query(name_or_file), columns, rows)

"""The library face the CLI calls: one function per command (build, validate, export, query, stats, topics,
tools, fetch), plain values in and plain values out; the work is done in the stage packages, the rendering in
``kg.cli``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import export
from . import fetch as fetching
from .errors import InputError, KgError, QueryError, UsageError
from .infra import parts
from .infra.location import Location
from .infra.net import DEFAULT_MAX_BYTES
from .infra.workers import default_jobs
from .pipeline import run
from .pipeline.run import BuildOptions, Built
from .query.backends import answer_oxigraph, load_store, no_triples, open_disk_store, query_endpoint, query_rdflib
from .query.discover import tool_table, topic_table
from .query.stored import (
    Answer,
    Cell,
    Results,
    bound_text,
    check_local,
    find_query,
    is_plain_query_file,
    list_sorter,
    page_end,
    paged,
    query_form,
    shift_error_lines,
    untitled_cited,
    with_standard_prefixes,
)
from .rdf.io import is_canonical, read_graph_lines
from .validate import ValidationReport
from .validate import files as graph_files
from .workspace import workspace_graph, workspace_source


def build(inputs: list[str], options: BuildOptions) -> tuple[Built, ValidationReport | None]:
    """Build the graph of ``inputs`` as ``options`` say, validate it, and write the workspace graph and, if asked,
    an export and the on-disk store, all together or none (``kg.pipeline.run.build``); the validation report."""
    return run.build(inputs, options)


def validate_graphs(graphs: Sequence[Path | str] | None, shapes: Path | None = None, jobs: int = 1,
                    engine: str | None = None, on_progress: Callable[..., None] | None = None,
                    graph_format: str | None = None) -> ValidationReport:
    """Validate graph files or parts folders, the workspace graph by default (``kg.validate.files``)."""
    return graph_files.validate_graphs(graphs, shapes, jobs, engine, on_progress, graph_format)


def export_graph(graph: Path | str | None, fmt: str | None, output: str, graph_format: str | None = None) -> None:
    """Convert a graph file or parts folder (default: the workspace graph; a file in ``graph_format`` when given,
    else by its extension) to another format, canonically."""
    if graph_format is not None and graph is None:
        raise UsageError("--graph-format says the format of the GRAPH file given; name it")
    src = graph or workspace_source()
    if not parts.exists(src):
        raise KgError(f"{src}: no graph here; run 'kg build' first or name a graph file")
    if parts.is_folder(src):  # a partitioned graph: its lines, part after part, are canonical
        export.write(parts.lines(src), export.resolve_format(fmt, output), output)
        return
    src = Path(src)
    named = export.format_named(graph_format) if graph_format else "nquads" if src.suffix == ".nq" else None
    if named == "nquads" and is_canonical(src):
        export.write_file(src, export.resolve_format(fmt, output), output)  # streamed: any size
        return
    lines = read_graph_lines(src, fmt=graph_format)
    export.write(lines, export.resolve_format(fmt, output), output)


PART_BYTES = 1 << 30  # bytes of a graph file per N-Triples part of kg export --parts


def export_parts(graph: Path | str | None, fmt: str | None, folder: Path | str, jobs: int | None = None,
                 ) -> dict[str, Any]:
    """Write a graph (default: the workspace graph; a parts folder, or a canonical N-Quads file) as N-Triples
    parts for bulk loaders into ``folder`` (a path or URL; ``kg.infra.parts.write_triples``), in ``jobs``
    processes (default: the available cores): each triple once across the parts, one part per part of a parts
    folder (per GiB of a file, at least one a job); the manifest."""
    if fmt is None or export.resolve_format(fmt, None) != "nt":
        raise UsageError("--parts writes N-Triples parts for bulk loaders; add -f nt")
    src = graph or workspace_source()
    if not parts.exists(src):
        raise KgError(f"{src}: no graph here; run 'kg build' first or name a graph file")
    jobs = jobs or default_jobs()
    if parts.is_folder(src):
        pieces = parts.graph_pieces(src)
    elif Path(src).suffix == ".nq" and is_canonical(Path(src)):
        size = Path(src).stat().st_size
        pieces = parts.file_pieces(Path(src), max(jobs, -(-size // PART_BYTES)))
    else:
        raise InputError(str(src), "is not a canonical N-Quads graph (kg build's graph.nq or parts folder)",
                         "export it with kg export -f nquads first, or name the workspace graph")
    return parts.write_triples(pieces, Location(folder), {"source": str(src)}, jobs)


def query(name_or_file: str, params: dict[str, str], graphs: Sequence[Path | str] | None = None,
          text: str | None = None, store: Path | None = None, endpoint: str | None = None,
          engine: str = "oxigraph", allow_remote: bool = False, timeout: float = 60.0,
          max_bytes: int = DEFAULT_MAX_BYTES, limit: int | None = None, offset: int | None = None,
          default_graphs: tuple[str, ...] = (), named_graphs: tuple[str, ...] = (),
          on_text: Callable[[str], None] | None = None, graph_format: str | None = None) -> Results:
    """Run a stored query (or SPARQL ``text``) on the union of the graphs of one source: the given
    graph files (in ``graph_format`` when given, else by their extensions) or the workspace graph (Oxigraph in
    memory, or rdflib), an on-disk store, or an endpoint (bounded by ``timeout`` seconds and ``max_bytes``; asked
    to answer over ``default_graphs`` and ``named_graphs`` when given). A local source refuses a query that would
    fetch data from elsewhere (SERVICE, FROM, FROM NAMED) unless ``allow_remote``. The items of a stored query's
    list columns come back sorted. ``on_text`` is given the text sent to the engine (parameters bound, the
    page's LIMIT and OFFSET added) before it is sent. The whole answer: ``answer`` gives its rows as they come."""
    return answer(name_or_file, params, graphs, text, store, endpoint, engine, allow_remote, timeout, max_bytes,
                  limit, offset, default_graphs, named_graphs, on_text, graph_format).results()


def answer(name_or_file: str, params: dict[str, str], graphs: Sequence[Path | str] | None = None,
           text: str | None = None, store: Path | None = None, endpoint: str | None = None,
           engine: str = "oxigraph", allow_remote: bool = False, timeout: float = 60.0,
           max_bytes: int = DEFAULT_MAX_BYTES, limit: int | None = None, offset: int | None = None,
           default_graphs: tuple[str, ...] = (), named_graphs: tuple[str, ...] = (),
           on_text: Callable[[str], None] | None = None, graph_format: str | None = None,
           page: int | None = None) -> Answer:
    """``query``'s answer as the engine gives it: a SELECT's rows are computed as they are read (on Oxigraph;
    rdflib and an endpoint answer whole). With ``page`` and no ``limit``, a SELECT is asked for ``page`` + 1
    rows (the answer's ``page`` is then set: one row more than it says that more follow)."""
    stored = None
    shift = 0
    if text is None and is_plain_query_file(name_or_file):
        if params:
            raise UsageError(f"--param goes with stored queries; {name_or_file} has no '#+ param:' header")
        try:
            text = Path(name_or_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise QueryError(f"{name_or_file}: cannot be read ({e}); check the path") from None
        source = f"query file {name_or_file}"
        text, shift = with_standard_prefixes(text, source)
    elif text is None:
        stored = find_query(name_or_file)
        # (a query ranked by the build is cut to the page on its rank; the LIMIT below then takes the page's rows)
        asked = page + 1 if page is not None and limit is None and query_form(stored.text) == "SELECT" else None
        text = bound_text(stored, params, page_end(limit if asked is None else asked, offset))
        is_file = name_or_file.endswith(".rq") or Path(name_or_file).is_file()
        source = f"query file {name_or_file}" if is_file else f"query {stored.name!r}"
    elif params:
        raise UsageError("--param goes with stored queries; write the values into the -e text instead")
    else:
        source = "the -e query"
        text, shift = with_standard_prefixes(text, source)
    if (default_graphs or named_graphs) and not endpoint:
        raise UsageError("--default-graph-uri and --named-graph-uri go with --endpoint; a local source answers "
                         "over the union of its graphs")
    asked = page + 1 if page is not None and limit is None and query_form(text) == "SELECT" else None
    text = paged(text, limit if asked is None else asked, offset)
    if on_text is not None:
        on_text(text)
    try:
        res = _query(text, source, graphs, store, endpoint, engine, allow_remote, timeout, max_bytes,
                     default_graphs, named_graphs, graph_format)
    except QueryError as e:
        if not shift:
            raise
        raise QueryError(shift_error_lines(str(e), shift)) from None
    if asked is not None:
        res.page = page
    sort = list_sorter(res.columns, stored.lists) if stored is not None else None
    return res.mapped(sort) if sort is not None else res


def untitled_dois(name_or_file: str | None, columns: list[str], rows: list[list[Cell]]) -> list[str]:
    """The cited works of a stored query's ``rows`` that have no title, only a DOI (its ``#+ untitled:`` columns):
    their DOI IRIs, what the note a table ends with counts (``kg.cli.summary.untitled_line``)."""
    if not name_or_file or is_plain_query_file(name_or_file):
        return []
    return untitled_cited(find_query(name_or_file), columns, rows)


def topics() -> Results:
    """The topic scheme (kg/data/topics.ttl): each concept's label, id and broader concept, in tree order."""
    return topic_table()


def tools(category: str | None = None) -> Results:
    """The tool catalogue, of one ``category`` when given, and, when the workspace graph exists, how many input
    works cite each tool and the tools its references name (``kg.query.discover.tool_table``)."""
    return tool_table(category, query("tools", {}) if workspace_graph().exists() else None)


def _query(text: str, source: str, graphs: Sequence[Path | str] | None, store: Path | None, endpoint: str | None,
           engine: str, allow_remote: bool, timeout: float, max_bytes: int, default_graphs: tuple[str, ...] = (),
           named_graphs: tuple[str, ...] = (), graph_format: str | None = None) -> Answer:
    if sum(x is not None and x != [] for x in (graphs, store, endpoint)) > 1:
        raise UsageError("give one source: --graph, --store or --endpoint")
    if graph_format is not None and not graphs:
        raise UsageError("--graph-format says the format of --graph files; give them with -g FILE")
    if endpoint:
        return Answer.of(query_endpoint(endpoint, text, timeout, max_bytes, default_graphs, named_graphs))
    if not allow_remote:
        check_local(text, source)
    if store:
        return answer_oxigraph(open_disk_store(store), text)
    sources = list(graphs or [workspace_source()])
    for s in sources:
        if not parts.exists(s):
            raise KgError(f"{s}: no graph here; run 'kg build' first or pass --graph FILE")
    if engine == "rdflib":
        lines: set[str] = set()
        for s in sources:
            got = list(parts.lines(s)) if parts.is_folder(s) else read_graph_lines(Path(s), fmt=graph_format)
            if not got:
                raise no_triples(Path(s))
            lines.update(got)
        return Answer.of(query_rdflib(sorted(lines), text, allow_remote))
    return answer_oxigraph(load_store(sources, graph_format), text)


def stats(graphs: Sequence[Path | str] | None = None, store: Path | None = None, endpoint: str | None = None,
          timeout: float = 60.0, max_bytes: int = DEFAULT_MAX_BYTES, default_graphs: tuple[str, ...] = (),
          named_graphs: tuple[str, ...] = ()) -> Results:
    """Counts of works, references, cited works, tools, people and triples, as one result row: the stored
    query ``stats`` (queries/stats.rq), so ``kg stats`` is ``kg query stats``."""
    return query("stats", {}, graphs, store=store, endpoint=endpoint, timeout=timeout, max_bytes=max_bytes,
                 default_graphs=default_graphs, named_graphs=named_graphs)


def fetch(dois: Iterable[str], from_files: Iterable[Path], out_dir: Path, *, cited_by: tuple[str, ...] = (),
          depth: int | None = None, max_dois: int = 10_000, mailto: str | None = None,
          api_url: str = fetching.DEFAULT_API_URL, refresh: bool = False, jobs: int = 4, timeout: float = 30.0,
          max_bytes: int = DEFAULT_MAX_BYTES, retries: int = 5, backoff: float = 1.0,
          on_outcome: Callable[[fetching.Outcome, fetching.FetchReport], None] | None = None,
          on_problem: Callable[[str, str], None] | None = None) -> Fetched:
    """Fetch the Crossref records of ``dois``, of the DOIs in ``from_files`` and of those the records under
    ``cited_by`` cite, up to ``depth`` hops (default: 1 with ``cited_by``, else 0), into ``out_dir`` (see
    ``kg.fetch.fetch_works``). ``on_outcome`` hears of every DOI done, ``on_problem("warning", line)`` of a
    missing contact address before the first request."""
    if cited_by and depth == 0:
        raise UsageError("--depth 0 with --cited-by fetches nothing; use --depth 1 or more")
    targets = fetching.read_dois(dois, from_files)
    if not targets and not cited_by:
        raise UsageError("nothing to fetch: give DOIs, --from-file FILE or --cited-by PATH; see 'kg fetch --help'")
    client = fetching.Client(api_url, mailto, timeout, retries, backoff, max_bytes=max_bytes)
    if not mailto and on_problem:
        on_problem("warning", "no contact address; pass --mailto you@example.org or set CROSSREF_MAILTO so that "
                              "Crossref can reach you (its polite pool)")
    report = fetching.fetch_works(targets, out_dir, client, cited_by=cited_by,
                                  depth=(1 if cited_by else 0) if depth is None else depth, jobs=jobs,
                                  refresh=refresh, max_dois=max_dois, on_outcome=on_outcome)
    return Fetched(report, client, max_dois)


@dataclass(frozen=True)
class Fetched:
    """What ``fetch`` did: its report, the client (its rate limiter's figures, its retries) and the --max it had."""

    report: fetching.FetchReport
    client: fetching.Client
    max_dois: int

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
from .errors import InputError, KgError, UsageError
from .infra import parts
from .infra.location import Location
from .infra.net import DEFAULT_MAX_BYTES
from .infra.workers import default_jobs
from .map.context import ContextSpec
from .pipeline import run as build_run
from .pipeline.run import BuildOptions, Built
from .query import run
from .query.describe import Description
from .query.describe import describe as described
from .query.results import Answer, Cell, Results
from .query.run import QuerySource
from .query.stored import Values
from .rdf.io import is_canonical, read_graph_lines
from .validate import ValidationReport
from .validate import files as graph_files
from .workspace import workspace_graph, workspace_source


def build(inputs: list[str], options: BuildOptions) -> tuple[Built, ValidationReport | None]:
    """Build the graph of ``inputs`` as ``options`` say, validate it, and write the workspace graph and, if asked,
    an export and the on-disk store, all together or none (``kg.pipeline.run.build``); the validation report."""
    return build_run.build(inputs, options)


def check_context(base: str, tools: Sequence[Path], topics: Path | None) -> None:
    """Fail now (a one-line error) on a bad base IRI, tool catalogue or topic overrides."""
    ContextSpec(base, tuple(tools) or None, topics).create()


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


def query(name_or_file: str, params: Values, graphs: Sequence[Path | str] | None = None,
          text: str | None = None, store: Path | None = None, endpoint: str | None = None,
          engine: str = "oxigraph", allow_remote: bool = False, timeout: float = 60.0,
          max_bytes: int = DEFAULT_MAX_BYTES, limit: int | None = None, offset: int | None = None,
          default_graphs: tuple[str, ...] = (), named_graphs: tuple[str, ...] = (),
          on_text: Callable[[str], None] | None = None, graph_format: str | None = None) -> Results:
    """Run a stored query (or SPARQL ``text``) on one source, whole (``kg.query.run.query``)."""
    return answer(name_or_file, params, graphs, text, store, endpoint, engine, allow_remote, timeout, max_bytes,
                  limit, offset, default_graphs, named_graphs, on_text, graph_format).results()


def answer(name_or_file: str, params: Values, graphs: Sequence[Path | str] | None = None,
           text: str | None = None, store: Path | None = None, endpoint: str | None = None,
           engine: str = "oxigraph", allow_remote: bool = False, timeout: float = 60.0,
           max_bytes: int = DEFAULT_MAX_BYTES, limit: int | None = None, offset: int | None = None,
           default_graphs: tuple[str, ...] = (), named_graphs: tuple[str, ...] = (),
           on_text: Callable[[str], None] | None = None, graph_format: str | None = None,
           page: int | None = None, view: bool = False) -> Answer:
    """``query``'s answer as the engine gives it (``kg.query.run.answer``)."""
    on = QuerySource(graphs, store, endpoint, engine, allow_remote, timeout, max_bytes, default_graphs, named_graphs,
                     graph_format, None if graphs or store or endpoint else workspace_source())
    return run.answer(name_or_file, params, on, text, limit, offset, on_text, page, view)


def absent_values(name_or_file: str, params: Values, graphs: Sequence[Path | str] | None = None,
                  store: Path | None = None, endpoint: str | None = None, engine: str = "oxigraph",
                  timeout: float = 60.0, max_bytes: int = DEFAULT_MAX_BYTES, graph_format: str | None = None,
                  ) -> list[str]:
    """The values of a stored query's iri parameters that name nothing in the graph (``kg.query.run.absent``)."""
    on = QuerySource(graphs, store, endpoint, engine, False, timeout, max_bytes, (), (), graph_format,
                     None if graphs or store or endpoint else workspace_source())
    return run.absent(name_or_file, params, on)


def untitled_dois(name_or_file: str | None, columns: list[str], rows: list[list[Cell]]) -> list[str]:
    """The cited works of a stored query's ``rows`` that have no title, only a DOI (``kg.query.run.untitled``)."""
    return run.untitled(name_or_file, columns, rows)


def topics() -> Results:
    """The topic scheme (``kg.query.run.topics``)."""
    return run.topics()


def tools(category: str | None = None) -> Results:
    """The tool catalogue, with what the workspace graph cites (``kg.query.run.tools``)."""
    return run.tools(category, workspace_graph())


def stats(graphs: Sequence[Path | str] | None = None, store: Path | None = None, endpoint: str | None = None,
          timeout: float = 60.0, max_bytes: int = DEFAULT_MAX_BYTES, default_graphs: tuple[str, ...] = (),
          named_graphs: tuple[str, ...] = ()) -> Results:
    """Counts of works, references, cited works, tools, people and triples (``kg.query.run.stats``)."""
    return run.stats(QuerySource(graphs, store, endpoint, timeout=timeout, max_bytes=max_bytes,
                                 default_graphs=default_graphs, named_graphs=named_graphs,
                                 workspace=None if graphs or store or endpoint else workspace_source()))


def describe(target: str, graphs: Sequence[Path | str] | None = None, store: Path | None = None) -> Description:
    """``target`` (a DOI, tool:ID, topic:ID, a bare id or an IRI) described from the workspace graph, graph files
    or an on-disk store (``kg.query.describe``)."""
    from .query.backends import load_store, open_disk_store
    if store is not None:
        return described(target, open_disk_store(store))
    src = list(graphs) if graphs else [workspace_source()]
    for g in src:
        if not parts.exists(g):
            raise KgError(f"{g}: no graph here; run 'kg build' first or name a graph file")
    return described(target, load_store(src))


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

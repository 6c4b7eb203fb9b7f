"""Everything the CLI may call: build, export, query (and the workspace they share)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pyoxigraph

from . import export
from .build import BuildResult, build_graph
from .errors import InputError, KgError, UsageError, ValidationFailed
from .ids import DEFAULT_BASE
from .map.context import Context
from .queries import Results, bound_text, find_query
from .validate import Report
from .store import build_disk_store, load_store, open_disk_store, query_endpoint, query_oxigraph, query_rdflib, rdf_format

WORKSPACE_ENV = "KG_HOME"


def workspace() -> Path:
    """The workspace folder: $KG_HOME, else .kg/ in the current directory."""
    return Path(os.environ.get(WORKSPACE_ENV) or ".kg")


def workspace_graph() -> Path:
    return workspace() / "graph.nq"


def build(inputs: list[str], output: str | None = None, fmt: str | None = None, base: str = DEFAULT_BASE,
          strict: bool = False, on_problem: Callable[[str, str], None] | None = None,
          tools: list[Path] | None = None, topics: Path | None = None, validation: str = "auto",
          allow_invalid: bool = False, shapes: Path | None = None,
          store: Path | None = None,
          on_progress: Callable[[str, int], None] | None = None) -> tuple[BuildResult, Report | None]:
    """Build the graph of ``inputs``, validate it, and write the workspace graph and, if asked, an export.

    ``validation`` is auto (whole graph up to 1,000 records, else a deterministic sample of 1,000
    records), full, sample:N or none. A graph with violations is not written unless ``allow_invalid``.
    """
    ctx = Context.create(base, tools=tools, topics=topics)
    out_fmt = export.resolve_format(fmt, output) if output else None
    for target in ([workspace_graph()] + ([Path(output)] if output and output != "-" else [])):
        export.check_writable(target)
    result = build_graph(inputs, ctx, strict=strict, on_problem=on_problem, on_progress=on_progress)
    if result.report.records == 0:
        return result, None
    report = None
    if validation != "none":
        report = validate_lines(sample_lines(result, validation, ctx), shapes)
        if report.count("Violation") and not allow_invalid:
            raise ValidationFailed(
                f"the graph has {report.count('Violation')} violation{'s' if report.count('Violation') != 1 else ''}"
                f" (first: {report.results[0].focus}: {report.results[0].message}); nothing was written;"
                " run 'kg validate' on an export for the full report, or pass --allow-invalid", report)
    export.write(result.lines, "nquads", str(workspace_graph()))
    if output and out_fmt:
        export.write(result.lines, out_fmt, output)
    if store:
        build_disk_store(store, "".join(result.lines).encode("utf-8"))
    return result, report


def sample_lines(result: BuildResult, validation: str, ctx: Context) -> list[str]:
    """The lines to validate: all, or the records of a deterministic sample plus the shared graphs."""
    works = sorted(result.works)
    if validation == "full" or (validation == "auto" and len(works) <= 1000):
        return result.lines
    if validation == "auto":
        n = 1000
    elif validation.startswith("sample:") and validation[7:].isdigit():
        n = int(validation[7:])
    else:
        raise UsageError(f"--validate {validation!r}: use auto, full, sample:N or none")
    if n >= len(works):
        return result.lines
    chosen = sorted(works, key=lambda d: hashlib.sha256(d.encode("utf-8")).hexdigest())[:n]
    keep = {ctx.minter.graph(d) for d in chosen} | {ctx.minter.node("graph", name) for name in ("knowledge", "tools", "topics")}
    return [line for line in result.lines if line.rstrip("\n")[:-2].rsplit(" ", 1)[1] in keep]


def validate_lines(lines: list[str], shapes: Path | None = None) -> "Report":
    """Validate canonical N-Quads lines against the shapes (default: shapes/)."""
    from .validate import data_graph, load_shapes, validate
    return validate(data_graph(lines), load_shapes(shapes))


def validate_graphs(graphs: list[Path] | None, shapes: Path | None = None, jobs: int = 1) -> "Report":
    """Validate graph files (default: the workspace graph); with ``jobs`` > 1, record by record in parallel."""
    sources = graphs or [workspace_graph()]
    lines: set[str] = set()
    for src in sources:
        if not src.exists():
            raise InputError(str(src), "does not exist", "run 'kg build' first or name a graph file")
        lines.update(read_graph_lines(src))
    if jobs > 1:
        from .ids import DEFAULT_BASE, Minter
        from .validate import load_shapes, validate_sharded
        load_shapes(shapes)  # fail early and clearly on bad shapes
        base = Minter(DEFAULT_BASE)
        shared = {base.node("graph", n) for n in ("knowledge", "tools", "topics")}
        return validate_sharded(sorted(lines), shapes, shared, shard_size=50, jobs=jobs)
    return validate_lines(sorted(lines), shapes)


def read_graph_lines(path: Path) -> list[str]:
    """Canonical sorted N-Quads lines of a graph file (any RDF format)."""
    default = "<urn:x-crossref-kg:default>"
    lines = set()
    try:
        for q in pyoxigraph.parse(path=str(path), format=rdf_format(path)):
            g = default if isinstance(q.graph_name, pyoxigraph.DefaultGraph) else str(q.graph_name)
            lines.add(f"{q.subject} {q.predicate} {q.object} {g} .\n")
    except FileNotFoundError:
        raise InputError(str(path), "does not exist", "check the path") from None
    except (SyntaxError, ValueError, OSError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(str(path), f"is not a readable RDF graph ({first})", "check the file and its format") from None
    return sorted(lines)


def export_graph(graph: Path | None, fmt: str | None, output: str) -> None:
    """Convert a graph file (default: the workspace graph) to another format, canonically."""
    src = graph or workspace_graph()
    if not src.exists():
        raise KgError(f"{src}: no graph here; run 'kg build' first or name a graph file")
    lines = read_graph_lines(src)
    export.write(lines, export.resolve_format(fmt, output), output)


def query(name_or_file: str, params: dict[str, str], graphs: list[Path] | None = None,
          text: str | None = None, store: Path | None = None, endpoint: str | None = None,
          engine: str = "oxigraph") -> Results:
    """Run a stored query (or SPARQL ``text``) on the union of the graphs of one source: the given
    graph files or the workspace graph (Oxigraph in memory, or rdflib), an on-disk store, or an endpoint."""
    if text is None:
        stored = find_query(name_or_file)
        text = bound_text(stored, params)
    elif params:
        raise UsageError("--param goes with stored queries; write the values into the -e text instead")
    if sum(x is not None and x != [] for x in (graphs, store, endpoint)) > 1:
        raise UsageError("give one source: --graph, --store or --endpoint")
    if endpoint:
        return query_endpoint(endpoint, text)
    if store:
        return query_oxigraph(open_disk_store(store), text)
    sources = graphs or [workspace_graph()]
    for s in sources:
        if not s.exists():
            raise KgError(f"{s}: no graph here; run 'kg build' first or pass --graph FILE")
    if engine == "rdflib":
        lines: set[str] = set()
        for s in sources:
            lines.update(read_graph_lines(s))
        return query_rdflib(sorted(lines), text)
    return query_oxigraph(load_store(sources), text)


STATS = {
    "works": "SELECT (COUNT(DISTINCT ?w) AS ?n) WHERE { ?w <https://w3id.org/crossref-kg/ontology#crossrefType> ?t }",
    "references": "SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ?r a <http://purl.org/spar/biro/BibliographicReference> }",
    "cited_works": "SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { ?r <http://purl.org/spar/biro/references> ?c }",
    "tools": "SELECT (COUNT(DISTINCT ?t) AS ?n) WHERE { ?t a <http://purl.org/spar/fabio/Software> }",
    "people": "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p a <https://schema.org/Person> }",
    "triples": "SELECT (COUNT(*) AS ?n) WHERE { SELECT DISTINCT ?s ?p ?o WHERE { ?s ?p ?o } }",
}


def stats(graphs: list[Path] | None = None, store: Path | None = None, endpoint: str | None = None) -> Results:
    """Counts of works, references, cited works, tools, people and triples, as one result row."""
    row = []
    for _name, text in STATS.items():
        res = query("", {}, graphs, text=text, store=store, endpoint=endpoint)
        row.append(res.rows[0][0] if res.rows else ("literal", "0", "http://www.w3.org/2001/XMLSchema#integer", None))
    return Results(list(STATS), [row])

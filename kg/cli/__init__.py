"""The ``kg`` command: parse options, call one function of kg.api, render. Nothing else lives here."""

from __future__ import annotations

import errno
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from .. import __version__, api
from ..build.memory import StrictStop
from .common import Fail
from ..errors import KgError
from ..export import FORMATS
from ..rdf.ids import DEFAULT_BASE
from ..infra.net import DEFAULT_MAX_BYTES
from ..query.stored import render, stored_queries
from ..resources import seeds_dir
from ..query.table import terminal_width

FORMAT_CHOICE = click.Choice([*FORMATS, "ttl", "jsonld", "nq"], case_sensitive=False)


class Progress:
    """A one-line progress display on stderr (records, records/s and, when the total is known, an ETA per
    stage); silent off a terminal."""

    def __init__(self, started: float, enabled: bool) -> None:
        self.started, self.enabled, self.shown = started, enabled, False
        self.stage, self.stage_started = "", started

    def update(self, stage: str, n: int, total: int | None = None) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if stage != self.stage:
            self.stage, self.stage_started = stage, now
        rate = n / max(now - self.stage_started, 1e-9)
        text = f"{stage}: {n:,}" + (f"/{total:,}" if total else "") + f" records, {rate:,.0f} records/s"
        if total and rate > 0 and n < total:
            left = int((total - n) / rate)
            text += f", ETA {left // 60}m{left % 60:02d}s"
        sys.stderr.write("\r" + text.ljust(72))
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 72 + "\r")
            sys.stderr.flush()
            self.shown = False


def _fail(e: KgError) -> Fail:
    return Fail(str(e), e.exit_code)


class _Group(click.Group):
    """The command group; a full disk, wherever a command meets it, is a one-line error too."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except OSError as e:
            if e.errno == errno.EPIPE:  # the reader went away (| head): end quietly, as other tools do
                _quiet_stdout()
                sys.exit(141)  # 128 + SIGPIPE, what a shell reports for a tool the signal ended
            if e.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                raise
            raise _disk_full(e.filename or api.workspace(), e.strerror) from None
        except sqlite3.OperationalError as e:  # (the scratch tables of a streaming build's reference resolution)
            if getattr(e, "sqlite_errorcode", None) != sqlite3.SQLITE_FULL:
                raise
            raise _disk_full(api.workspace(), str(e)) from None


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so the flush at exit does not meet the closed pipe again."""
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # (no real file descriptor, as under a test runner)
        pass


def _disk_full(where: object, why: str) -> Fail:
    return Fail(f"{where}: no space left on the device ({why}); free some space there, or set KG_HOME"
                " (the workspace, where builds keep their scratch files) or -o to a disk with room, and run"
                " again; files being replaced were left as they were")


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="crossref-kg", message="%(prog)s %(version)s")
def main() -> None:
    """Turn Crossref work records into a validated schema.org + FaBiO + CiTO knowledge graph.

    \b
    Example:
      kg build seeds/ -o seeds.ttl && kg query works
    """


@main.command()
@click.argument("inputs", nargs=-1, type=click.Path())
@click.option("-o", "--output", help="Also write the graph here; format from the extension, .gz compresses. A file "
              "(a symlink is followed) is replaced atomically with the workspace graph and --store; '-', "
              "/dev/stdout, a FIFO or a character device is written in place, as a stream (not atomically).")
@click.option("-f", "--format", "fmt", type=FORMAT_CHOICE, help="Output format (default: from -o, else turtle).")
@click.option("--base", default=DEFAULT_BASE, show_default=True, help="Base IRI for every minted node.")
@click.option("--tools", "tools", multiple=True, type=click.Path(path_type=Path),
              help="An extra tool catalogue (JSON, the format of kg/data/tools.json); repeatable.")
@click.option("--topics", "topics", type=click.Path(path_type=Path),
              help="Topic overrides: DOI -> topic ids (JSON object, or lines 'DOI<TAB>topic,topic').")
@click.option("--validate", "validation", default="auto", show_default=True,
              help="auto (whole graph up to 1,000 records, else a sample of 1,000), full, sample:N or none.")
@click.option("--allow-invalid", is_flag=True, help="Write the graph even when validation finds violations.")
@click.option("--shapes", type=click.Path(path_type=Path), help="Validate with the shapes of this folder.")
@click.option("--store", type=click.Path(path_type=Path),
              help="Also (re)build the embedded Oxigraph store in this folder, for 'kg query --store'.")
@click.option("--strict", is_flag=True, help="Stop at the first problem (exit 2) instead of skipping.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: the available cores); the output does not depend on it.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors, not warnings and the summary.")
@click.option("--timings", is_flag=True, help="Also print the wall seconds of each stage (read, resolve, map, "
              "merge, validate, export, store).")
def build(inputs: tuple[str, ...], output: str | None, fmt: str | None, base: str, tools: tuple[Path, ...],
          topics: Path | None, validation: str, allow_invalid: bool, shapes: Path | None, store: Path | None,
          strict: bool, jobs: int | None, quiet: bool, timings: bool) -> None:
    """Build the graph of Crossref records (files, folders, .jsonl, .gz, '-' for standard input;
    default: seeds/).

    Writes the workspace graph .kg/graph.nq (KG_HOME overrides) and, with -o, an export,
    after validating the graph with the SHACL shapes. Every output is checked before the build starts
    and all are replaced together at its end: an interrupted or failed build leaves them as they were.
    One build at a time per workspace and per store folder.
    Exit codes: 0 all records mapped, 1 some records skipped, 2 usage error or fatal input,
    3 the graph has violations (nothing written unless --allow-invalid), 130 interrupted.

    \b
    Example:
      kg build seeds/ more.jsonl.gz -o graph.jsonld
    """
    started = time.perf_counter()
    progress = Progress(started, enabled=not quiet and sys.stderr.isatty())

    def show(level: str, line: str) -> None:
        progress.clear()
        if level == "error" or not quiet:
            click.echo(f"{'skipped' if level == 'error' else 'warning'}: {line}", err=True)

    try:
        result, vreport = api.build(list(inputs) or [str(seeds_dir())], output, fmt, base, strict=strict,
                                    on_problem=None if strict else show, tools=list(tools), topics=topics,
                                    validation=validation, allow_invalid=allow_invalid, shapes=shapes,
                                    store=store, jobs=jobs, on_progress=progress.update)
    except StrictStop as e:
        raise Fail(f"{e.line} (--strict: stopped, nothing written)") from None
    except KeyboardInterrupt:
        progress.clear()
        raise Fail("interrupted; the workspace graph and the outputs are as they were; run the build again",
                   130) from None
    except KgError as e:
        raise _fail(e) from None
    except ValueError as e:
        raise Fail(str(e)) from None
    progress.clear()
    r = result.report
    if r.records == 0:
        raise Fail(f"no usable records in {', '.join(inputs) or str(seeds_dir())}; nothing was written")
    if not quiet:
        for note in r.notes:
            click.echo(f"note: {note}", err=True)
        works = r.records - r.merged
        click.echo(
            f"built {works} work{'s' if works != 1 else ''} from {r.records} record{'s' if r.records != 1 else ''}"
            f" ({r.skipped} skipped, {r.merged} merged, {len(r.warnings)} warning{'s' if len(r.warnings) != 1 else ''}):"
            f" {result.triples} triples "
            f"in {time.perf_counter() - started:.2f} s -> {api.workspace_graph()}"
            + (f", {output}" if output and output != "-" else ""),
            err=True,
        )
        if vreport is not None:
            from ..validate import see_all, summary
            hint = f" --severity {see_all(vreport)}" if see_all(vreport) else ""
            click.echo(f"validation: {summary(vreport)}" + ("" if vreport.conforms else f" (kg validate{hint} lists them)"),
                       err=True)
    if timings:
        click.echo("timings: " + ", ".join(f"{stage} {sec:.2f} s" for stage, sec in r.stages.items()), err=True)
    sys.exit(1 if r.skipped else 0)


@main.command("validate")
@click.argument("graphs", nargs=-1, type=click.Path(path_type=Path))
@click.option("--shapes", type=click.Path(path_type=Path), help="A folder of SHACL shapes (default: shapes/).")
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json", "turtle"]), default="text", show_default=True)
@click.option("--severity", type=click.Choice(["violation", "warning", "info"]), default="violation",
              show_default=True, help="Report and fail on results at or above this severity.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Validate record by record in this many parallel workers (same report; not with -f turtle).")
def validate_cmd(graphs: tuple[Path, ...], shapes: Path | None, fmt: str, severity: str, jobs: int) -> None:
    """Validate a graph (default: the workspace graph) against the SHACL shapes.

    Exit codes: 0 no result at or above --severity, 1 some, 2 unreadable graph or shapes.

    \b
    Example:
      kg validate --severity warning
    """
    from ..validate import render_json, render_text, render_turtle
    try:
        if jobs > 1 and fmt == "turtle":
            raise Fail("--jobs gives text or JSON reports; use --jobs 1 for the Turtle validation report")
        report = api.validate_graphs(list(graphs) or None, shapes, jobs=jobs)
    except KgError as e:
        raise _fail(e) from None
    if fmt == "json":
        click.echo(render_json(report, severity), nl=False)
    elif fmt == "turtle":
        click.echo(render_turtle(report), nl=False)
    else:
        click.echo(render_text(report, severity), nl=False)
    sys.exit(1 if report.at_or_above(severity) else 0)


@main.command("export")
@click.argument("graph", required=False, type=click.Path(path_type=Path))
@click.option("-o", "--output", default="-", show_default=True,
              help="Where to write ('-' for stdout); .gz compresses. A file (a symlink is followed) is replaced "
                   "atomically; a FIFO or a character device is written in place, as a stream.")
@click.option("-f", "--format", "fmt", type=FORMAT_CHOICE, help="Output format (default: from -o, else turtle).")
def export_cmd(graph: Path | None, output: str, fmt: str | None) -> None:
    """Convert a graph (default: the workspace graph) to another format, canonically.

    \b
    Example:
      kg export -f json-ld -o graph.jsonld
    """
    try:
        api.export_graph(graph, fmt, output)
    except KgError as e:
        raise _fail(e) from None


def _sniffed_suffix(head: bytes) -> str:
    """The extension of the RDF format a graph on standard input looks like: JSON-LD, RDF/XML, N-Quads
    (lines of <...> terms; N-Triples too) or else TriG (which reads Turtle too)."""
    start = head.lstrip()
    if start[:1] in (b"{", b"["):
        return ".jsonld"
    if start.startswith((b"<?xml", b"<rdf:")):
        return ".rdf"
    first = start.split(b"\n", 1)[0].rstrip()
    return ".nq" if start.startswith((b"<", b"_:")) and first.endswith(b".") else ".trig"


def _stdin_graphs(graphs: tuple[Path, ...], scratch: Path) -> list[Path]:
    """The graph files, with '-' read from standard input into a file of ``scratch`` (its format sniffed)."""
    out = []
    for g in graphs:
        if str(g) != "-":
            out.append(g)
            continue
        data = sys.stdin.buffer.read()
        path = scratch / f"stdin{_sniffed_suffix(data[:4096])}"
        path.write_bytes(data)
        out.append(path)
    return out


def _params(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for v in values:
        if "=" not in v:
            raise Fail(f"--param {v!r} must look like name=value")
        k, val = v.split("=", 1)
        out[k.strip()] = val
    return out


def _graph_uri_options(f: Callable[..., None]) -> Callable[..., None]:
    """--default-graph-uri and --named-graph-uri (SPARQL 1.1 Protocol), for the commands that take --endpoint."""
    f = click.option("--named-graph-uri", "named_graphs", multiple=True, metavar="IRI",
                     help="With --endpoint: a named graph the query may use with GRAPH (repeatable).")(f)
    return click.option("--default-graph-uri", "default_graphs", multiple=True, metavar="IRI",
                        help="With --endpoint: answer over this graph as the default graph (repeatable; SPARQL "
                             "1.1 Protocol). A server such as Virtuoso otherwise answers over all its graphs.")(f)


@main.command()
@click.argument("name", required=False)
@click.option("-e", "--expr", "text", help="Run this SPARQL text instead of a stored query ('-': read it from "
                                           "standard input).")
@click.option("-g", "--graph", "graphs", multiple=True, type=click.Path(path_type=Path),
              help="Query these graph files (default: the workspace graph; '-': a graph on standard input, "
                   "N-Quads/N-Triples, Turtle/TriG, JSON-LD or RDF/XML).")
@click.option("-p", "--param", "params", multiple=True, help="A parameter as name=value (repeatable).")
@click.option("--store", type=click.Path(path_type=Path), help="Query the embedded store built by 'kg build --store DIR'.")
@click.option("--endpoint", help="Query a SPARQL 1.1 Protocol endpoint (http or https URL).")
@click.option("--engine", type=click.Choice(["oxigraph", "rdflib"]), default="oxigraph", show_default=True,
              help="Engine for graph files and the workspace.")
@click.option("--allow-remote", is_flag=True,
              help="Let a query on the workspace, --graph or --store fetch data from elsewhere: SERVICE calls "
                   "to other servers (with the values bound so far) and, on rdflib, FROM / FROM NAMED loading "
                   "the graphs they name from the network or local files. The engines make these requests "
                   "themselves, outside --timeout and --max-bytes.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              metavar="S", help="With --endpoint: seconds the request may take in all (connect, headers, body).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_BYTES, show_default=True,
              metavar="N", help="With --endpoint: the largest answer accepted.")
@_graph_uri_options
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "json", "csv", "tsv", "markdown"]),
              default="table", show_default=True)
@click.option("--wide", is_flag=True, help="On a terminal, show whole values (tables are cut to fit it otherwise).")
@click.option("--limit", type=click.IntRange(min=0), metavar="N",
              help="At most N rows: a LIMIT on the outer query, so the engine computes only them.")
@click.option("--offset", type=click.IntRange(min=0), metavar="N",
              help="Skip the first N rows (an OFFSET on the outer query); with --limit, a page.")
def query(name: str | None, text: str | None, graphs: tuple[Path, ...], params: tuple[str, ...],
          store: Path | None, endpoint: str | None, engine: str, allow_remote: bool, timeout: float,
          max_bytes: int, default_graphs: tuple[str, ...], named_graphs: tuple[str, ...], fmt: str, wide: bool,
          limit: int | None, offset: int | None) -> None:
    """Run a stored query (by name or .rq file) or SPARQL text on the graph.

    Sources: the workspace graph (default), --graph FILE..., --store DIR or --endpoint URL (http or
    https); every source answers over the union of its graphs. A query on a local source stays
    local: SERVICE, FROM and FROM NAMED are refused unless --allow-remote.

    \b
    Example:
      kg query tools-cited-by-profiling-and-compiler --format csv
      kg query works-citing -p target=pytorch --limit 20
      kg query -e "SELECT ?title WHERE { ?w schema:name ?title }" -f tsv
    """
    if not name and not text:
        raise Fail("give a stored query name, a .rq file, or -e 'SPARQL'; run 'kg queries' to list them")
    if text == "-":
        if any(str(g) == "-" for g in graphs):
            raise Fail("-e - and -g - both want standard input; give one of them as a file")
        text = sys.stdin.read()
    import tempfile
    try:
        with tempfile.TemporaryDirectory(prefix="kg-stdin-") as scratch:
            res = api.query(name or "", _params(params), _stdin_graphs(graphs, Path(scratch)) or None, text=text,
                            store=store, endpoint=endpoint, engine=engine, allow_remote=allow_remote,
                            timeout=timeout, max_bytes=max_bytes, limit=limit, offset=offset,
                            default_graphs=default_graphs, named_graphs=named_graphs)
    except KgError as e:
        raise _fail(e) from None
    click.echo(render(res, fmt, None if wide else terminal_width(sys.stdout)), nl=False)


@main.command()
@click.option("-g", "--graph", "graphs", multiple=True, type=click.Path(path_type=Path), help="Graph files.")
@click.option("--store", type=click.Path(path_type=Path), help="The embedded store of 'kg build --store DIR'.")
@click.option("--endpoint", help="A SPARQL 1.1 Protocol endpoint (http or https URL).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              metavar="S", help="With --endpoint: seconds each request may take in all (connect, headers, body).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_BYTES, show_default=True,
              metavar="N", help="With --endpoint: the largest answer accepted.")
@_graph_uri_options
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "json", "csv", "tsv", "markdown"]),
              default="table", show_default=True)
def stats(graphs: tuple[Path, ...], store: Path | None, endpoint: str | None, timeout: float, max_bytes: int,
          default_graphs: tuple[str, ...], named_graphs: tuple[str, ...], fmt: str) -> None:
    """Count works, references, cited works, tools, people and triples.

    \b
    Example:
      kg stats --format json
    """
    try:
        res = api.stats(list(graphs) or None, store, endpoint, timeout, max_bytes, default_graphs, named_graphs)
    except KgError as e:
        raise _fail(e) from None
    click.echo(render(res, fmt, terminal_width(sys.stdout)), nl=False)


@main.command()
def queries() -> None:
    """List the stored queries: name, description, parameters.

    \b
    Example:
      kg queries
    """
    try:
        found = stored_queries()
    except KgError as e:
        raise _fail(e) from None
    for q in found.values():
        params = "; ".join(f"{p.name} ({p.type}, default {p.default})" for p in q.params)
        click.echo(f"{q.name}  {q.description}" + (f"  [params: {params}]" if params else ""))


from .fetch import fetch  # noqa: E402 - the command lives in its own module
from .report import report  # noqa: E402 - the command lives in its own module

main.add_command(fetch)
main.add_command(report)

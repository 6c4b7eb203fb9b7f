"""The ``kg query``, ``kg queries`` and ``kg stats`` commands: parse options, call kg.api, render the results."""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import click

from .. import api
from ..infra.net import DEFAULT_MAX_BYTES
from ..infra.text import printable
from ..query.catalogue import describe_text, listing
from ..query.output import FORMATS as RESULT_FORMATS
from ..query.output import PAGE, answer_format, on_terminal, render, terminal_width, wrapped, write
from ..query.stored import find_query, stored_queries
from ..workspace import fetch_command
from . import complete
from .common import FORMAT_CHOICE, Command, Fail, stdin_graphs
from .summary import queries_json, untitled_line


def _params(values: tuple[str, ...]) -> dict[str, list[str]]:
    """``-p name=value`` options as values by name, in the order given (a name given again: several values)."""
    out: dict[str, list[str]] = {}
    for v in values:
        if "=" not in v:
            raise Fail(f"--param {v!r} must look like name=value")
        k, val = v.split("=", 1)
        out.setdefault(k.strip(), []).append(val)
    return out


def _answer_options(f: Callable[..., None]) -> Callable[..., None]:
    """What kg query and kg stats both take after the source: --timeout, --max-bytes, --default-graph-uri and
    --named-graph-uri (SPARQL 1.1 Protocol) for --endpoint, and -f for the results."""
    f = click.option("-f", "--format", "fmt", type=click.Choice(RESULT_FORMATS),
                     help="Rows: table (default), json, csv, tsv (the W3C SPARQL 1.1 results formats) or markdown; "
                          "a CONSTRUCT or DESCRIBE graph: turtle (default), nt or json-ld.")(f)
    f = click.option("--named-graph-uri", "named_graphs", multiple=True, metavar="IRI",
                     help="With --endpoint: a named graph the query may use with GRAPH (repeatable).")(f)
    f = click.option("--default-graph-uri", "default_graphs", multiple=True, metavar="IRI",
                     help="With --endpoint: answer over this graph as the default graph (repeatable; SPARQL "
                          "1.1 Protocol). A server such as Virtuoso otherwise answers over all its graphs.")(f)
    f = click.option("--max-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_BYTES, show_default=True,
                     metavar="N", help="With --endpoint: the largest answer accepted.")(f)
    return click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
                        metavar="S", help="With --endpoint: seconds the request may take in all (connect, headers, "
                                          "body).")(f)


@click.command(cls=Command)
@click.argument("name", required=False, shell_complete=complete.query_names)
@click.option("-e", "--expr", "text", help="Run this SPARQL text instead of a stored query ('-': read it from "
                                           "standard input).")
@click.option("-g", "--graph", "graphs", multiple=True, type=click.Path(path_type=Path),
              help="Query these graph files (default: the workspace graph; '-': a graph on standard input, "
                   "N-Quads/N-Triples, Turtle/TriG, JSON-LD or RDF/XML).")
@click.option("--graph-format", type=FORMAT_CHOICE,
              help="The format of the --graph files (default: from their extensions; sniffed for '-').")
@click.option("-p", "--param", "params", multiple=True,
              help="A parameter as name=value; again for another value where the query takes several ('kg queries "
                   "NAME' says which).", shell_complete=complete.query_params)
@click.option("--store", type=click.Path(path_type=Path),
              help="Query the embedded store built by 'kg build --store DIR'.")
@click.option("--endpoint", help="Query a SPARQL 1.1 Protocol endpoint (http or https URL).")
@click.option("--engine", type=click.Choice(["oxigraph", "rdflib"]), default="oxigraph", show_default=True,
              help="Engine for graph files and the workspace.")
@click.option("--allow-remote", is_flag=True,
              help="Let a query on the workspace, --graph or --store fetch data from elsewhere: SERVICE calls "
                   "to other servers (with the values bound so far) and, on rdflib, FROM / FROM NAMED loading "
                   "the graphs they name from the network or local files. The engines make these requests "
                   "themselves, outside --timeout and --max-bytes.")
@_answer_options
@click.option("--wide", is_flag=True, help="On a terminal, show whole values (tables are cut to fit it otherwise).")
@click.option("--all", "all_rows", is_flag=True,
              help=f"On a terminal, show every row (a table shows {PAGE} at a time otherwise).")
@click.option("--limit", type=click.IntRange(min=0), metavar="N",
              help="At most N rows: a LIMIT on the outer query, so the engine computes only them.")
@click.option("--offset", type=click.IntRange(min=0), metavar="N",
              help="Skip the first N rows (an OFFSET on the outer query); with --limit, a page.")
@click.option("--show-query", is_flag=True, help="Also print the query as sent to the engine (parameters bound, "
                                                 "LIMIT/OFFSET added) on standard error, before its answer.")
@click.option("--time", "timed", is_flag=True, help="Also print the seconds the query took on standard error.")
def query(name: str | None, text: str | None, graphs: tuple[Path, ...], graph_format: str | None,
          params: tuple[str, ...], store: Path | None, endpoint: str | None, engine: str, allow_remote: bool,
          timeout: float, max_bytes: int, default_graphs: tuple[str, ...], named_graphs: tuple[str, ...],
          fmt: str | None, wide: bool, all_rows: bool, limit: int | None, offset: int | None, show_query: bool,
          timed: bool) -> None:
    """Run a stored query (by name or .rq file) or SPARQL text on the graph.

    Sources: the workspace graph (default), --graph FILE..., --store DIR or --endpoint URL (http or
    https); every source answers over the union of its graphs. A query on a local source stays
    local: SERVICE, FROM and FROM NAMED are refused unless --allow-remote. On a terminal a table shows
    one page of rows (--limit, --offset and --all choose others) and fits the terminal's width (--wide
    shows whole values); csv, tsv and json write rows as the engine gives them.

    \b
    Example:
      kg query tools-cited-by-profiling-and-compiler --format csv
      kg query works-citing -p target=pytorch --limit 20
      kg query -e "SELECT ?title WHERE { ?w schema:name ?title }" -f tsv
      kg query -e "CONSTRUCT { ?w schema:name ?t } WHERE { ?w schema:name ?t }" -f nt
    """
    if not name and not text:
        raise Fail("give a stored query name, a .rq file, or -e 'SPARQL'; run 'kg queries' to list them")
    if text == "-":
        if any(str(g) == "-" for g in graphs):
            raise Fail("-e - and -g - both want standard input; give one of them as a file")
        text = sys.stdin.read()
    started = time.perf_counter()
    terminal = on_terminal(sys.stdout)
    with tempfile.TemporaryDirectory(prefix="kg-stdin-") as scratch:
        res = api.answer(name or "", _params(params), stdin_graphs(graphs, Path(scratch), graph_format is None)
                         or None, text=text, store=store, endpoint=endpoint, engine=engine,
                         allow_remote=allow_remote, timeout=timeout, max_bytes=max_bytes, limit=limit, offset=offset,
                         default_graphs=default_graphs, named_graphs=named_graphs,
                         on_text=(lambda sent: click.echo(sent.rstrip("\n"), err=True)) if show_query else None,
                         graph_format=graph_format,
                         page=PAGE if terminal and not all_rows and fmt in (None, "table") else None,
                         view=terminal and fmt in (None, "table"))
    fmt = answer_format(res, fmt)
    shown: list = []  # (a table holds its rows anyway: they tell whether cited works lack titles)
    count = [0]

    def seen(row: list) -> list:
        count[0] += 1
        if fmt == "table":
            shown.append(row)
        return row
    res = res.mapped(seen)
    width = None if wide else terminal_width(sys.stdout)
    write(res, fmt, sys.stdout, width, offset or 0)
    if shown and (dois := api.untitled_dois(name, res.columns, shown)):
        click.echo(wrapped(untitled_line(dois, fetch_command(on_workspace=not (graphs or store or endpoint))), width),
                   nl=False)
    if name and params and not count[0] and res.form == "SELECT" and not offset and "-" not in map(str, graphs):
        sys.stdout.flush()
        for note in api.absent_values(name, _params(params), list(graphs) or None, store, endpoint, engine, timeout,
                                      max_bytes, graph_format):
            click.echo(f"note: {printable(note)}", err=True)
    if timed:
        click.echo(f"time: {time.perf_counter() - started:.3f} s", err=True)


@click.command(cls=Command)
@click.option("-g", "--graph", "graphs", multiple=True, type=click.Path(path_type=Path), help="Graph files.")
@click.option("--store", type=click.Path(path_type=Path), help="The embedded store of 'kg build --store DIR'.")
@click.option("--endpoint", help="A SPARQL 1.1 Protocol endpoint (http or https URL).")
@_answer_options
def stats(graphs: tuple[Path, ...], store: Path | None, endpoint: str | None, timeout: float, max_bytes: int,
          default_graphs: tuple[str, ...], named_graphs: tuple[str, ...], fmt: str | None) -> None:
    """Count works, references, cited works, tools, people and triples (the stored query 'stats').

    \b
    Example:
      kg stats --format json
    """
    res = api.stats(list(graphs) or None, store, endpoint, timeout, max_bytes, default_graphs, named_graphs)
    click.echo(render(res, fmt, terminal_width(sys.stdout)), nl=False)


@click.command(cls=Command)
@click.argument("name", required=False)
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: name, description, parameters (type, default, allowed values), columns, an example.")
def queries(name: str | None, fmt: str) -> None:
    """List the stored queries, or show one: its parameters, columns and an example command.

    \b
    Example:
      kg queries
      kg queries works-citing
      kg queries -f json
    """
    found = [find_query(name)] if name else list(stored_queries().values())
    if fmt == "json":
        click.echo(queries_json(found))
    else:
        click.echo(describe_text(found[0]) if name else listing(found), nl=False)

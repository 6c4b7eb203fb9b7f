"""The ``kg export`` command: parse options, call kg.api.export_graph."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from .. import api
from .common import FORMAT_CHOICE, Command, Fail, stdin_graphs


@click.command("export", cls=Command)
@click.argument("graph", required=False, type=click.Path(path_type=Path))
@click.option("-o", "--output", default="-", show_default=True,
              help="Where to write ('-' for stdout); .gz compresses. A file (a symlink is followed) is replaced "
                   "atomically; a FIFO or a character device is written in place, as a stream.")
@click.option("-f", "--format", "fmt", type=FORMAT_CHOICE, help="Output format (default: from -o, else turtle).")
@click.option("--graph-format", type=FORMAT_CHOICE,
              help="The format of GRAPH (default: from its extension; sniffed for '-').")
@click.option("--parts", "parts_to", metavar="DIR|URL", help="Write N-Triples parts for bulk loaders (Virtuoso's "
              "ld_dir, oxigraph load) into this folder instead: each triple once; with -f nt.")
def export(graph: Path | None, output: str, fmt: str | None, graph_format: str | None, parts_to: str | None) -> None:
    """Convert a graph (default: the workspace graph; '-': a graph on standard input) to another format,
    canonically; or, with --parts, into N-Triples parts for a server's bulk loader.

    \b
    Example:
      kg export -f json-ld -o graph.jsonld && kg export graph.jsonld -o graph.ttl
      kg export --parts nt-parts/ -f nt
    """
    if parts_to is not None:
        if graph_format is not None or (graph is not None and str(graph) == "-"):
            raise Fail("--parts reads the workspace graph, a parts folder or a canonical .nq file; convert other "
                       "graphs with kg export -f nquads first", 2)
        api.export_parts(graph, fmt, parts_to)
        return
    with tempfile.TemporaryDirectory(prefix="kg-stdin-") as scratch:
        given = stdin_graphs((graph,), Path(scratch), graph_format is None)[0] if graph is not None else None
        api.export_graph(given, fmt, output, graph_format)

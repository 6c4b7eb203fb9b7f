"""The ``kg export`` command: parse options, call kg.api.export_graph."""

from __future__ import annotations

from pathlib import Path

import click

from .. import api
from .common import FORMAT_CHOICE, Command


@click.command("export", cls=Command)
@click.argument("graph", required=False, type=click.Path(path_type=Path))
@click.option("-o", "--output", default="-", show_default=True,
              help="Where to write ('-' for stdout); .gz compresses. A file (a symlink is followed) is replaced "
                   "atomically; a FIFO or a character device is written in place, as a stream.")
@click.option("-f", "--format", "fmt", type=FORMAT_CHOICE, help="Output format (default: from -o, else turtle).")
@click.option("--parts", "parts_to", metavar="DIR|URL", help="Write N-Triples parts for bulk loaders (Virtuoso's "
              "ld_dir, oxigraph load) into this folder instead: each triple once; with -f nt.")
def export(graph: Path | None, output: str, fmt: str | None, parts_to: str | None) -> None:
    """Convert a graph (default: the workspace graph) to another format, canonically.

    \b
    Example:
      kg export -f json-ld -o graph.jsonld
      kg export --parts nt-parts/ -f nt
    """
    if parts_to is not None:
        api.export_parts(graph, fmt, parts_to)
        return
    api.export_graph(graph, fmt, output)

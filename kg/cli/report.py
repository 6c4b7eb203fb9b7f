"""The ``kg report`` command: parse options, call kg.report, say what was written. Nothing else."""

from __future__ import annotations

from pathlib import Path

import click

from ..infra.net import DEFAULT_MAX_BYTES
from .common import Command
from .summary import report_line


@click.command("report", cls=Command)
@click.option("-o", "--output", default="report.html", show_default=True, type=click.Path(path_type=Path),
              help="The HTML file to write.")
@click.option("-g", "--graph", "graphs", multiple=True, type=click.Path(path_type=Path),
              help="Report on these graph files (default: the workspace graph).")
@click.option("--store", type=click.Path(path_type=Path),
              help="Report on the embedded store of 'kg build --store DIR'.")
@click.option("--endpoint", help="Report on a SPARQL 1.1 Protocol endpoint (http or https URL).")
@click.option("--graphs", "graphs_dir", type=click.Path(path_type=Path),
              help="Also write the networks (tool co-citation, citation graph, bibliographic coupling) into this "
                   "folder as GraphML and DOT.")
@click.option("--validate", "validate", type=click.Choice(["auto", "yes", "no"]), default="auto", show_default=True,
              help="Include the validation summary: auto validates graph files of up to 32 MB.")
@click.option("--pairs", type=click.IntRange(min=1), default=4, show_default=True, metavar="N",
              help="Topic pairs the matrix offers: the default pair, then pairs of the largest families (all "
                   "made from the same two queries; each adds a matrix to the page).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              metavar="S", help="With --endpoint: seconds each request may take in all.")
@click.option("--max-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_BYTES, show_default=True,
              metavar="N", help="With --endpoint: the largest answer accepted.")
@click.option("--default-graph-uri", "default_graphs", multiple=True, metavar="IRI",
              help="With --endpoint: answer over this graph as the default graph (repeatable; SPARQL 1.1 Protocol). "
                   "A server such as Virtuoso otherwise answers over all its graphs.")
@click.option("--named-graph-uri", "named_graphs", multiple=True, metavar="IRI",
              help="With --endpoint: a named graph the queries may use with GRAPH (repeatable).")
def report(output: Path, graphs: tuple[Path, ...], store: Path | None, endpoint: str | None,
           graphs_dir: Path | None, validate: str, pairs: int, timeout: float, max_bytes: int,
           default_graphs: tuple[str, ...], named_graphs: tuple[str, ...]) -> None:
    """Write the corpus at a glance as one self-contained HTML file (offline, printable).

    Sections: overview, the headline tool x paper matrix, tools, works, topics, curation; each
    made from stored queries and showing the 'kg query' command behind it.

    \b
    Example:
      kg report -o report.html --graphs networks/
      kg report --endpoint http://127.0.0.1:8890/sparql --default-graph-uri https://example.org/my-graph
    """
    from ..report import write_report  # (here: the report's modules are read only when a report is written)
    done = write_report(output, list(graphs) or None, store, endpoint, graphs_dir, validate, timeout, max_bytes, pairs,
                        default_graphs, named_graphs)
    click.echo(report_line(done, graphs_dir), err=True)

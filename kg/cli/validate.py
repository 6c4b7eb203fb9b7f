"""The ``kg validate`` command: parse options, call kg.api.validate_graphs, render the report."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click

from .. import api
from ..query.output import terminal_width
from .common import FORMAT_CHOICE, Command, Fail, stdin_graphs
from .progress import Progress, wanted
from .summary import render_validation


@click.command("validate", cls=Command)
@click.argument("graphs", nargs=-1, type=click.Path(path_type=Path))
@click.option("--graph-format", type=FORMAT_CHOICE,
              help="The format of the GRAPH files (default: from their extensions; sniffed for '-').")
@click.option("--shapes", type=click.Path(path_type=Path), help="A folder of SHACL shapes (default: shapes/).")
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json", "turtle"]), default="text", show_default=True)
@click.option("--severity", type=click.Choice(["violation", "warning", "info"]), default="violation",
              show_default=True, help="Report and fail on results at or above this severity.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Validate record by record in this many parallel workers (same report; not with -f turtle).")
@click.option("--progress/--no-progress", "progress_flag", default=None,
              help="Show the shards done of shards on standard error (default: only when it is a terminal).")
def validate(graphs: tuple[Path, ...], graph_format: str | None, shapes: Path | None, fmt: str, severity: str,
             jobs: int, progress_flag: bool | None) -> None:
    """Validate a graph (default: the workspace graph; '-': a graph on standard input) against the SHACL shapes.

    The text report groups the results by shape and what they count, names their nodes (by record) and ends
    with the verdict: "valid" when there is no violation (SHACL's sh:conforms, in the JSON and Turtle reports,
    is false on a warning too). Exit codes: 0 no result at or above --severity, 1 some, 2 unreadable graph or
    shapes.

    \b
    Example:
      kg validate --jobs 2 -f json
      kg export -f nt | kg validate -
    """
    if jobs > 1 and fmt == "turtle":
        raise Fail("--jobs gives text or JSON reports; use --jobs 1 for the Turtle validation report")
    with tempfile.TemporaryDirectory(prefix="kg-stdin-") as scratch, Progress(wanted(progress_flag)) as progress:
        report = api.validate_graphs(stdin_graphs(graphs, Path(scratch), graph_format is None) or None, shapes,
                                     jobs=jobs, on_progress=progress.records, graph_format=graph_format)
    width = terminal_width(sys.stdout)
    click.echo(render_validation(report, fmt, severity, shapes, width), nl=False)
    sys.exit(1 if report.at_or_above(severity) else 0)

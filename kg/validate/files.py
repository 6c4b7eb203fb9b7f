"""Validating graphs as ``kg validate`` names them: graph files and parts folders, the workspace graph by default."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import InputError, UsageError
from ..infra import parts
from ..query.backends import no_triples
from ..rdf.io import read_graph_lines
from ..workspace import workspace_source
from .report import ValidationReport, flattened
from .shards import validate_graph_lines
from .words import nodes_of


def validate_graphs(graphs: Sequence[Path | str] | None, shapes: Path | None = None, jobs: int = 1,
                    engine: str | None = None, on_progress: Callable[..., None] | None = None,
                    graph_format: str | None = None) -> ValidationReport:
    """Validate graph files or parts folders (default: the workspace graph; files in ``graph_format`` when given,
    else by their extensions); with ``jobs`` > 1, record by record in parallel. ``on_progress("validate", done,
    total, "shards")`` is told as shards are done."""
    if graph_format is not None and not graphs:
        raise UsageError("--graph-format says the format of the GRAPH files given; name them")
    lines: set[str] = set()
    prefixes: dict[str, str] = {}
    for src in list(graphs or [workspace_source()]):
        if not parts.exists(src):
            raise InputError(str(src), "does not exist", "run 'kg build' first or name a graph file")
        got = list(parts.lines(src)) if parts.is_folder(src) else read_graph_lines(Path(src), prefixes, graph_format)
        if not got:
            raise no_triples(Path(src))  # (a parts folder at a URL holds triples: its manifest says so)
        lines.update(got)
    ordered = sorted(lines)
    report = validate_graph_lines(ordered, shapes, jobs, engine, prefixes, on_progress)
    report.nodes = nodes_of(ordered, {r.focus for r in flattened(report.results)})
    return report

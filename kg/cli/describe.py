"""The ``kg describe`` command: one node of the graph in words (kg.api.describe), rendered."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import click

from .. import api
from ..infra.text import printable
from ..query.describe import Description
from ..query.output import terminal_width
from . import complete
from .common import Command


@click.command(cls=Command)
@click.argument("target", shell_complete=complete.targets)
@click.option("-g", "--graph", "graphs", multiple=True, type=click.Path(path_type=Path),
              help="Describe from these graph files (default: the workspace graph).")
@click.option("--store", type=click.Path(path_type=Path), help="Describe from the store of 'kg build --store DIR'.")
def describe(target: str, graphs: tuple[Path, ...], store: Path | None) -> None:
    """Describe one node: its facts, labelled, and the evidence recorded for it (topics, tool recognitions).

    TARGET is a DOI (10.x/y, doi:10.x/y or https://doi.org/10.x/y), tool:ID, topic:ID, a bare tool or topic
    id, or an IRI. A work shows its topics with their evidence and the tools its references cite; a tool, the
    references that cite it and how each was recognised; a topic, the works of that topic.

    \b
    Example:
      kg describe tool:pytorch
      kg describe topic:compilers
    """
    click.echo(render(api.describe(target, list(graphs) or None, store), terminal_width(sys.stdout)), nl=False)


def render(d: Description, width: int | None) -> str:
    """The heading, the IRI, the facts as aligned ``label  value`` lines and each evidence section; long values
    wrapped at word boundaries to ``width`` on a terminal; the graph's values without control characters."""
    out = [printable(d.heading), printable(f"<{d.iri}>"), ""]
    pad = max((len(printable(p)) for p, _ in d.facts), default=0)
    for pred, value in d.facts:
        out += _wrapped(f"  {printable(pred).ljust(pad)}  ", value, width)
    for heading, lines in d.evidence:
        out += ["", printable(f"{heading}:")]
        for line in lines:
            out += _wrapped("  ", line, width, "    ")
    return "\n".join(out) + "\n"


def _wrapped(lead: str, text: str, width: int | None, indent: str | None = None) -> list[str]:
    text = printable(text)
    if width is None:
        return [lead + text]
    rest = indent if indent is not None else " " * len(lead)
    return textwrap.wrap(text, max(width, len(lead) + 20), initial_indent=lead, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [lead.rstrip()]

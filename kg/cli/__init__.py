"""The ``kg`` command: parse options, call one function of kg.api, render. Nothing else lives here.

Each command has its module (build, validate, query: query/queries/stats, discover: topics/tools, export, fetch,
report); what they share is in common (the error exit and the command class that maps a KgError to it) and
progress."""

from __future__ import annotations

import click

from .. import __version__
from . import build, discover, export, fetch, query, report, validate
from .common import Command


class _Group(click.Group):
    """The command group; its commands are ``Command``s, so a library error or a full disk is a one-line error."""

    command_class = Command


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="crossref-kg", message="%(prog)s %(version)s")
def main() -> None:
    """Turn Crossref work records into a validated schema.org + FaBiO + CiTO knowledge graph.

    \b
    Example:
      kg build seeds/ -o seeds.ttl && kg query works
    """


for _command in (build.build, validate.validate, export.export, query.query, query.stats, query.queries,
                 discover.topics, discover.tools, fetch.fetch, report.report):
    main.add_command(_command)

"""The ``kg`` command: parse options, call one function of kg.api, render. Nothing else lives here.

Each command has its module (build, validate, query: query/queries/stats, discover: topics/tools, export, fetch,
report); what they share is in common (the error exit and the command class that maps a KgError to it) and
progress."""

from __future__ import annotations

import inspect

import click

from .. import __version__
from . import build, describe, discover, export, fetch, query, report, validate
from .common import Command

HELP_WIDTH = 120  # the widest help click writes on a wider terminal (its default is 80)


class _Group(click.Group):
    """The command group; its commands are ``Command``s, so a library error or a full disk is a one-line error.
    ``kg --help`` lists each command with the whole first paragraph of its help, wrapped, never cut."""

    command_class = Command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, summary(cmd)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def summary(cmd: click.Command) -> str:
    """A command's summary: its ``short_help``, else the first paragraph of its help on one line."""
    text = cmd.short_help or inspect.cleandoc(cmd.help or "").split("\n\n", 1)[0]
    return " ".join(text.split())


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": HELP_WIDTH})
@click.version_option(__version__, "-V", "--version", prog_name="crossref-kg", message="%(prog)s %(version)s")
def main() -> None:
    """Turn Crossref work records into a validated schema.org + FaBiO + CiTO knowledge graph.

    \b
    Example:
      kg build seeds/ -o seeds.ttl && kg query works
    """


for _command in (build.build, validate.validate, export.export, query.query, query.stats, query.queries,
                 discover.topics, discover.tools, describe.describe, fetch.fetch, report.report):
    main.add_command(_command)

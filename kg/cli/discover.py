"""The ``kg topics`` and ``kg tools`` commands: what a query can name (topic ids, tool ids), from kg.api."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from .. import api
from ..query.output import render, terminal_width
from .common import Command


def _format(f: Callable[..., None]) -> Callable[..., None]:
    return click.option("-f", "--format", "fmt", type=click.Choice(["table", "json", "csv", "tsv", "markdown"]),
                        default="table", show_default=True)(f)


@click.command(cls=Command)
@_format
def topics(fmt: str) -> None:
    """List the topic scheme: each concept's label, id and broader concept, in tree order.

    The ids are what topic parameters take (-p topic-a=profiling); the scheme is kg/data/topics.ttl.

    \b
    Example:
      kg topics -f csv
    """
    click.echo(render(api.topics(), fmt, terminal_width(sys.stdout)), nl=False)


@click.command(cls=Command)
@click.option("--category", metavar="C", help="Only the tools of this category (e.g. profiler, compiler).")
@_format
def tools(category: str | None, fmt: str) -> None:
    """List the tool catalogue, and the tools found in the workspace graph with how many input works cite them.

    The ids are what tool parameters take (-p target=pytorch). With no workspace graph (run 'kg build'), the
    catalogue alone (kg/data/tools.json).

    \b
    Example:
      kg tools --category profiler
    """
    click.echo(render(api.tools(category), fmt, terminal_width(sys.stdout)), nl=False)

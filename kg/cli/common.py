"""What the command modules share: the one-line error exit."""

from __future__ import annotations

import click


class Fail(click.ClickException):
    """A KgError shown as one line, with its exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = code

    def show(self, file=None) -> None:  # noqa: ANN001 - click's signature
        click.echo(f"error: {self.format_message()}", err=True)

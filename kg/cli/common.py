"""What the command modules share: the one-line error exit, the command class that maps library errors to it,
the graph format choice, and graphs read from standard input ('-')."""

from __future__ import annotations

import errno
import logging
import re
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..errors import KgError
from ..export import FORMATS
from ..infra.text import printable
from ..workspace import workspace

FORMAT_CHOICE = click.Choice([*FORMATS, "ttl", "jsonld", "nq"], case_sensitive=False)


def _sniffed_suffix(head: bytes) -> str:
    """The extension of the RDF format a graph on standard input looks like: JSON-LD, RDF/XML, N-Quads
    (lines of <...> terms; N-Triples too) or else TriG (which reads Turtle too)."""
    start = head.lstrip()
    if start[:1] in (b"{", b"["):
        return ".jsonld"
    if start.startswith((b"<?xml", b"<rdf:")):
        return ".rdf"
    first = start.split(b"\n", 1)[0].rstrip()
    return ".nq" if start.startswith((b"<", b"_:")) and first.endswith(b".") else ".trig"


def stdin_graphs(graphs: tuple[Path, ...], scratch: Path, sniff: bool = True) -> list[Path]:
    """The graph files, with '-' read from standard input into a file of ``scratch`` (its format sniffed, unless
    ``sniff`` is false: --graph-format says it)."""
    out = []
    for g in graphs:
        if str(g) != "-":
            out.append(g)
            continue
        data = sys.stdin.buffer.read()
        path = scratch / f"stdin{_sniffed_suffix(data[:4096]) if sniff else ''}"
        path.write_bytes(data)
        out.append(path)
    return out


class Fail(click.ClickException):
    """A KgError shown as one line, with its exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = code  # type: ignore[misc]  # click types exit_code a ClassVar, yet reads it per instance

    def show(self, file=None) -> None:  # noqa: ANN001 - click's signature
        click.echo(f"error: {printable(self.format_message())}", err=True)


class Command(click.Command):
    """A ``kg`` command: -h is --help, and a KgError or a full disk, wherever the command meets it, is a
    one-line error with the error's exit code (the one place this mapping happens; in the group or alone)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("context_settings", {"help_option_names": ["-h", "--help"]})
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def invoke(self, ctx: click.Context) -> object:
        try:
            with ill_typed_noted(note=self.name != "validate"):  # (validation reports them as results)
                done = super().invoke(ctx)
            sys.stdout.flush()  # (here, so that a reader that went away is met below, not at exit)
            return done
        except KgError as e:
            raise Fail(str(e), e.exit_code) from None
        except OSError as e:
            if e.errno == errno.EPIPE:  # the reader went away (| head): end quietly, as other tools do
                _quiet_stdout()
                sys.exit(141)  # 128 + SIGPIPE, what a shell reports for a tool the signal ended
            if e.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                raise
            raise _disk_full(e.filename or workspace(), e.strerror) from None
        except sqlite3.OperationalError as e:  # (the scratch tables of a streaming build's reference resolution)
            if getattr(e, "sqlite_errorcode", None) != sqlite3.SQLITE_FULL:
                raise
            raise _disk_full(workspace(), str(e)) from None


class _IllTyped(logging.Filter):
    """rdflib's logged traceback for each literal not valid for its datatype ("Failed to convert Literal lexical
    form to value"): dropped, its datatype kept."""

    def __init__(self) -> None:
        super().__init__()
        self.datatypes: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if not text.startswith("Failed to convert Literal lexical form"):
            return True
        found = re.search(r"Datatype=(\S+?),", text)
        self.datatypes.add(found.group(1) if found else "?")
        return False


@contextmanager
def ill_typed_noted(note: bool = True) -> Iterator[None]:
    """No rdflib traceback for an ill-typed literal (``"abc"^^xsd:integer``) on the terminal: with ``note``, one
    line after the command's output naming their datatypes and what to do."""
    from ..rdf.vocab import Prefixer
    logger = logging.getLogger("rdflib.term")
    seen = _IllTyped()
    logger.addFilter(seen)
    try:
        yield
    finally:
        logger.removeFilter(seen)
        if note and seen.datatypes:
            names = ", ".join(sorted(Prefixer().curie(d) or d for d in seen.datatypes))
            click.echo(f"note: the graph holds literals not valid for their datatype ({names}); queries treat them"
                       " as values of no known type; fix the data that holds them ('kg validate' lists those the"
                       " shapes constrain)", err=True)


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so the flush at exit does not meet the closed pipe again."""
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # (no real file descriptor, as under a test runner)
        pass


def _disk_full(where: object, why: str | None) -> Fail:
    return Fail(f"{where}: no space left on the device ({why}); free some space there, or set KG_HOME"
                " (the workspace, where builds keep their scratch files) or -o to a disk with room, and run"
                " again; files being replaced were left as they were")

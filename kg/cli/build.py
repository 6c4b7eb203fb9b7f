"""The ``kg build`` command: parse options, call kg.api.build, render problems, progress and the summary."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from .. import api
from ..infra.text import printable
from ..rdf.ids import DEFAULT_BASE
from ..resources import seeds_dir
from ..workspace import found_above, sticky_options
from .common import FORMAT_CHOICE, Command, Fail
from .progress import Progress, wanted
from .summary import build_summary, timings_line


@click.command(cls=Command)
@click.argument("inputs", nargs=-1, type=click.Path())
@click.option("-o", "--output", help="Also write the graph here; format from the extension, .gz compresses. A file "
              "(a symlink is followed) is replaced atomically with the workspace graph and --store; '-', "
              "/dev/stdout, a FIFO or a character device is written in place, as a stream (not atomically).")
@click.option("-f", "--format", "fmt", type=FORMAT_CHOICE, help="Output format (default: from -o, else turtle).")
@click.option("--base", help=f"Base IRI for every minted node [default: {DEFAULT_BASE}].")
@click.option("--tools", "tools", multiple=True, type=click.Path(path_type=Path),
              help="An extra tool catalogue (JSON, the format of kg/data/tools.json); repeatable.")
@click.option("--topics", "topics", type=click.Path(path_type=Path),
              help="Topic overrides: DOI -> topic ids (JSON object, or lines 'DOI<TAB>topic,topic').")
@click.option("--defaults", "forget", is_flag=True,
              help="Forget the --base, --tools and --topics kept from the last build (a build without them reuses "
                   "them); those given now still apply.")
@click.option("--validate", "validation", default="auto", show_default=True,
              help="auto (whole graph up to 1,000 records, else a sample of 1,000), full, sample:N or none.")
@click.option("--allow-invalid", is_flag=True, help="Write the graph even when validation finds violations.")
@click.option("--shapes", type=click.Path(path_type=Path), help="Validate with the shapes of this folder.")
@click.option("--store", type=click.Path(path_type=Path),
              help="Also (re)build the embedded Oxigraph store in this folder, for 'kg query --store'.")
@click.option("--strict", is_flag=True, help="Stop at the first problem (exit 2) instead of skipping.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: the available cores); the output does not depend on it.")
@click.option("--cluster", help="Run the build on Dask: local:N (a local cluster of N worker processes) or a "
              "scheduler address (tcp://host:8786); writes the graph as a parts folder. Needs crossref-kg[cluster].")
@click.option("--parts", metavar="DIR|URL",
              help="With --cluster: the parts folder to write, a path or an fsspec URL (default: parts/ in the "
                   "workspace).")
@click.option("--scratch", metavar="DIR|URL", help="With --cluster: where the tasks pass on their tables, a folder "
              "or an fsspec URL every worker reaches (default: a scratch folder in the workspace).")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors, not warnings and the summary.")
@click.option("--progress/--no-progress", "progress_flag", default=None,
              help="Show each stage's progress on standard error (default: only when it is a terminal).")
@click.option("--timings", is_flag=True, help="Also print the wall seconds of each stage (read, resolve, map, "
              "merge, validate, export, store).")
def build(inputs: tuple[str, ...], output: str | None, fmt: str | None, base: str | None,
          tools: tuple[Path, ...], topics: Path | None, forget: bool, validation: str, allow_invalid: bool,
          shapes: Path | None, store: Path | None, strict: bool, jobs: int | None, cluster: str | None,
          parts: str | None, scratch: str | None, quiet: bool, progress_flag: bool | None, timings: bool) -> None:
    """Build the graph of Crossref records (files, folders, .jsonl, .gz, '-' for standard input;
    default: seeds/).

    Writes the workspace graph .kg/graph.nq (KG_HOME overrides) and, with -o, an export,
    after validating the graph with the SHACL shapes. Every output is checked before the build starts
    and all are replaced together at its end: an interrupted or failed build leaves them as they were.
    One build at a time per workspace and per store folder.
    --base, --tools and --topics stick: a later build without them reuses them (a note says so); give
    one again to change it, or --defaults to drop them.
    Exit codes: 0 all records mapped, 1 some records skipped, 2 usage error or fatal input,
    3 the graph has violations (nothing written unless --allow-invalid), 130 interrupted.

    \b
    Example:
      kg build seeds/ more.jsonl.gz -o graph.jsonld
    """
    started = time.perf_counter()
    given = list(inputs) or [str(seeds_dir())]
    for name, where in (("--parts", parts), ("--scratch", scratch)):
        if where is not None and cluster is None:
            raise Fail(f"{name} goes with --cluster; add --cluster local:N or a scheduler address", 2)
    base, tools, topics, kept = sticky_options(base, tools, topics, DEFAULT_BASE, forget)
    api.check_context(base, tools, topics)  # (a bad one fails before the notes say it is kept)
    if not quiet:
        if (above := found_above()) is not None:
            kept.insert(0, f"building into {above}, the workspace of a parent folder; make a .kg folder here or "
                           "set KG_HOME to build elsewhere")
        for note in kept:
            click.echo(f"note: {printable(note)}", err=True)
    shown = wanted(progress_flag, quiet)
    with Progress(shown) as progress:
        try:
            result, vreport = api.build(given, api.BuildOptions(
                output=output, fmt=fmt, base=base, strict=strict, tools=tools, topics=topics, validation=validation,
                allow_invalid=allow_invalid, shapes=shapes, store=store, jobs=jobs, cluster=cluster, parts=parts,
                scratch=scratch, on_problem=None if strict else _problems(progress, quiet),
                on_progress=progress.records, on_tasks=_tasks(progress) if shown else None))
        except KeyboardInterrupt:
            raise Fail("interrupted; the workspace graph and the outputs are as they were; run the build again",
                       130) from None
    r = result.report
    if r.records == 0:
        raise Fail(f"no usable records in {', '.join(given)}; nothing was written")
    if not quiet:
        for note in r.notes:
            click.echo(f"note: {printable(note)}", err=True)
        click.echo(build_summary(result, vreport, time.perf_counter() - started, output, shapes), err=True)
    if timings:
        click.echo(timings_line(result), err=True)
    sys.exit(1 if r.skipped else 0)


def _problems(progress: Progress, quiet: bool) -> Callable[[str, str], None]:
    """Show a skipped record (always) or a warning (unless ``quiet``) on its own line, above the progress."""
    def show(level: str, line: str) -> None:
        if level == "error" or not quiet:
            progress.echo(f"{'skipped' if level == 'error' else 'warning'}: {line}")
    return show


def _tasks(progress: Progress) -> Callable[[str, int, int], None]:
    """``read: 3/8 tasks (37%)`` as the tasks of a cluster build's stage finish (the stage line)."""
    def show(stage: str, done: int, total: int) -> None:
        progress.records(stage, done, total, unit="tasks")
    return show

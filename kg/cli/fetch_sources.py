"""``kg fetch``'s other ways to works: a search, a library export, who cites. Each reads, calls kg.sources, renders.

The DOIs a library or OpenCitations gives go on to ``kg.api.fetch`` with those of the arguments, so they are
fetched, cached and summed up as any DOI is; a search saves its pages' works itself (kg.sources.search).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from ..errors import UsageError
from ..fetch import Client, parse_doi, scan
from ..infra.text import printable
from ..sources import citations, library, search
from .progress import Progress
from .summary import rate_line


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` (with thousands separators) and the word, in the plural unless ``n`` is 1."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


# ---------------------------------------------------------------- search


def run_search(query: search.Search, out_dir: Path, client: Client, *, count_only: bool, max_works: int,
               rows: int, refresh: bool, progress: Progress) -> int:
    """``kg fetch --query/--filter ...``: print the count (``--count``) or save the works; the exit code."""
    if count_only:
        click.echo(f"{search.count(query, client)}")
        return 0

    def shown(r: search.SearchReport) -> None:
        progress.status("fetch", f"search: {r.saved:,} saved, {r.cached:,} cached of {r.matched:,} matched")

    report = search.run_search(query, out_dir, client, max_works=max_works, rows=rows, refresh=refresh,
                               on_page=shown)
    for line in report.problems:
        click.echo(f"error: {printable(line)}", err=True)
    click.echo(f"matched {report.matched:,}; saved {report.saved:,}, cached {report.cached:,}, failed "
               f"{report.failed:,} works in {report.seconds:.1f} s ({plural(report.pages, 'page')}) -> {out_dir}/",
               err=True)
    click.echo(rate_line(client), err=True)
    if report.restarts:
        click.echo(f"note: the cursor expired {plural(report.restarts, 'time')}; a new scroll skipped the works "
                   "already saved", err=True)
    if report.over_max:
        click.echo(f"note: --max {max_works} reached; {report.over_max:,} more works matched; raise --max to "
                   "fetch them", err=True)
    return 1 if report.failed else 0


# ---------------------------------------------------------------- libraries


def split_files(files: tuple[Path, ...]) -> tuple[tuple[Path, ...], list[Path]]:
    """The DOI lists (one DOI a line) and the library exports (BibTeX, RIS, CSL-JSON) among ``--from-file``."""
    plain = tuple(f for f in files if library.library_format(f) is None)
    return plain, [f for f in files if library.library_format(f) is not None]


def library_dois(paths: list[Path], client: Client | None, min_score: float) -> list[str]:
    """The DOIs of the libraries (and, with a client, of their entries without one that Crossref matches by
    title); one ``note:`` line per library for entries without a DOI and for DOIs another agency holds."""
    out: list[str] = []
    for path in paths:
        lib = library.read_library(path)
        out += lib.dois
        shown = str(path)
        click.echo(f"{shown}: {lib.format}, {plural(len(lib.entries), 'entry', 'entries')}, "
                   f"{plural(len(lib.dois), 'DOI')} to fetch", err=True)
        if lib.elsewhere:
            click.echo(printable(f"note: {shown}: {plural(len(lib.elsewhere), 'DOI')} not in Crossref, not asked: "
                                 + "; ".join(f"{e.key} {e.doi} ({a})" for e, a in lib.elsewhere)), err=True)
        missing = lib.without_doi
        if missing and client is not None:
            matches = library.match_entries(missing, client, min_score)
            for m in matches:
                if m.doi:
                    click.echo(printable(f'matched: {m.entry.key} -> {m.doi} (score {m.score:.1f}): "{m.title}"'),
                               err=True)
                    out.append(m.doi)
            missing = [m.entry for m in matches if not m.doi]
        if missing:
            how = "" if client is not None else "; --match-titles looks them up by title"
            click.echo(printable(f"note: {shown}: {plural(len(missing), 'entry', 'entries')} without a DOI{how}: "
                                 + ", ".join(e.key for e in missing)), err=True)
    return out


# ---------------------------------------------------------------- who cites


def citing_seeds(given: tuple[str, ...]) -> list[str]:
    """The DOIs of ``--citing``: a DOI as given, or those of the records under a path."""
    seeds: list[str] = []
    for value in given:
        if os.path.exists(value):
            works, _cited, problems = scan([value])
            for line in problems:
                click.echo(f"skipped: {printable(line)}", err=True)
            seeds += sorted(works)
        elif (doi := parse_doi(value)) is not None:
            seeds.append(doi)
        else:
            raise UsageError(f'--citing "{value}": is neither a DOI nor a file or folder of records; give '
                             "10.1145/..., or a path")
    return list(dict.fromkeys(seeds))


def citing_dois(given: tuple[str, ...], out_dir: Path, client: Client, *, depth: int,
                max_dois: int) -> tuple[list[str], int]:
    """The DOIs of the works citing ``--citing``'s, from OpenCitations (``.citing.tsv`` says which cites which),
    and how many requests failed."""
    seeds = citing_seeds(given)
    token = os.environ.get(citations.TOKEN_VARIABLE) or None
    started = time.perf_counter()
    found = citations.walk(seeds, client, depth=depth, max_dois=max_dois, token=token)
    for line in found.failed:
        click.echo(f"error: OpenCitations: {line}", err=True)
    if found.sources:
        citations.save_sources(out_dir, found)
    no_doi = f"; {plural(found.without_doi, 'citing work')} without a DOI (counted, not fetched)" \
        if found.without_doi else ""
    click.echo(f"citing: asked OpenCitations about {plural(found.asked, 'work')} in {time.perf_counter() - started:.1f}"
               f" s: {plural(len(found.dois), 'citing DOI')}{no_doi}; sources in {out_dir}/{citations.CITING_FILE}",
               err=True)
    if found.over_max:
        click.echo(f"note: --max {max_dois} reached; {found.over_max:,} more citing DOIs were not fetched", err=True)
    return found.dois, len(found.failed)

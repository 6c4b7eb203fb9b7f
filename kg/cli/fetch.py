"""The ``kg fetch`` command: parse options, call kg.api.fetch, render progress and the summary. Nothing else."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .. import api
from ..fetch import DEFAULT_API_URL
from ..infra.net import DEFAULT_MAX_BYTES
from .common import Command, Fail
from .progress import Progress, wanted
from .summary import FETCH_COUNTS, fetch_summary

if TYPE_CHECKING:  # (names for the type hints only)
    from ..fetch import FetchReport, Outcome


@click.command(cls=Command)
@click.argument("dois", nargs=-1)
@click.option("--from-file", "from_files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read DOIs from FILE: one a line, '#' comments and blank lines ignored; repeatable.")
@click.option("--cited-by", "cited_by", multiple=True, type=click.Path(exists=True),
              help="Fetch the DOIs that the records under PATH cite and do not hold; repeatable.")
@click.option("--depth", type=click.IntRange(0, 10), metavar="N",
              help="Follow references this many hops from the starting records "
                   "[default: 1 with --cited-by, else 0].")
@click.option("--max", "max_dois", type=click.IntRange(min=1), default=10_000, metavar="N", show_default=True,
              help="Consider at most this many DOIs in all.")
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False, path_type=Path), default="fetched",
              metavar="DIR", show_default=True, help="The folder of records (one file a DOI); it is also the cache.")
@click.option("--mailto", envvar="CROSSREF_MAILTO", show_envvar=True, metavar="EMAIL",
              help="Your e-mail address, sent in the User-Agent and as mailto= (Crossref's polite pool).")
@click.option("--api-url", default=DEFAULT_API_URL, show_default=True, metavar="URL",
              help="The Crossref REST API's base URL.")
@click.option("--refresh", is_flag=True, help="Ask again for DOIs already in the folder or known to be missing.")
@click.option("--jobs", type=click.IntRange(1, 8), default=4, show_default=True, metavar="N",
              help="Requests in flight at most.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True, metavar="S",
              help="Seconds a request may take in all: connect, headers and body (redirects included).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_BYTES, show_default=True,
              metavar="N", help="The largest answer accepted; a larger one fails that DOI (not retried).")
@click.option("--retries", type=click.IntRange(0, 10), default=5, show_default=True, metavar="N",
              help="Retries on 429, 5xx, timeouts, network errors and broken answers.")
@click.option("--backoff", type=click.FloatRange(min=0), default=1.0, show_default=True, metavar="S",
              help="Seconds before the first retry; doubles with each retry, with full jitter.")
@click.option("--progress/--no-progress", "progress_flag", default=None,
              help="Show the counts so far on standard error (default: only when it is a terminal).")
def fetch(dois: tuple[str, ...], from_files: tuple[Path, ...], cited_by: tuple[str, ...], depth: int | None,
          max_dois: int, out_dir: Path, mailto: str | None, api_url: str, refresh: bool, jobs: int,
          timeout: float, max_bytes: int, retries: int, backoff: float, progress_flag: bool | None) -> None:
    """Fetch Crossref work records (/works/DOI) into a folder that 'kg build' reads.

    DOIs come as arguments (10.x/y, doi:10.x/y or https://doi.org/10.x/y), from --from-file, or from
    the references of the records under --cited-by. Each response is saved unchanged, one file a DOI;
    a DOI already saved or known to be missing (404) is not asked again unless --refresh. Requests are
    polite: a User-Agent with --mailto, the server's rate limits and Retry-After, retries with backoff.
    Answers are bounded and checked: --timeout for a whole request, --max-bytes, a pause the server asks
    for of at most 60 s, redirects only on the API's host, and a record saved only when it is the record
    of the DOI asked for (or lists it among its aliases).
    Exit codes: 0 every DOI fetched, cached or missing, 1 some DOIs failed, 2 usage error or bad input,
    130 interrupted (run the same command again to resume).

    \b
    Example:
      kg fetch --cited-by seeds --mailto you@example.org && kg build seeds fetched
    """
    with Progress(wanted(progress_flag)) as progress:
        def shown(outcome: Outcome, report: FetchReport) -> None:
            if outcome.status == "failed":
                progress.echo(f"error: {outcome.doi}: {outcome.message}")
            progress.status("fetch", "fetch: " + ", ".join(f"{getattr(report, c)} {c}" for c in FETCH_COUNTS))

        try:
            done = api.fetch(dois, from_files, out_dir, cited_by=cited_by, depth=depth, max_dois=max_dois,
                             mailto=mailto, api_url=api_url, refresh=refresh, jobs=jobs, timeout=timeout,
                             max_bytes=max_bytes, retries=retries, backoff=backoff, on_outcome=shown,
                             on_problem=lambda level, line: progress.echo(f"{level}: {line}"))
        except KeyboardInterrupt:
            raise Fail("interrupted; the records saved so far are complete; run the same command again to "
                       "resume", 130) from None
    for line in done.report.skipped:
        click.echo(f"skipped: {line}", err=True)
    click.echo(fetch_summary(done), err=True)
    sys.exit(1 if done.report.failed else 0)

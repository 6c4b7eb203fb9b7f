"""The ``kg fetch`` command: parse options, call kg.api.fetch, render progress and the summary. Nothing else."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .. import api
from ..errors import UsageError
from ..fetch import DEFAULT_API_URL, Client
from ..infra.net import DEFAULT_MAX_BYTES
from ..sources import citations, library, search
from . import fetch_sources
from .common import Command, Fail
from .progress import Progress, wanted
from .summary import FETCH_COUNTS, fetch_summary

if TYPE_CHECKING:  # (names for the type hints only)
    from ..fetch import FetchReport, Outcome


@click.command(cls=Command)
@click.argument("dois", nargs=-1)
@click.option("--from-file", "from_files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read DOIs from FILE: one a line ('#' comments), or a BibTeX (.bib), RIS (.ris) or CSL-JSON "
                   "library export; repeatable.")
@click.option("--match-titles", is_flag=True,
              help="Look the library entries without a DOI up by title and authors (query.bibliographic).")
@click.option("--match-score", type=click.FloatRange(min=0), default=library.MIN_SCORE, show_default=True,
              metavar="S", help="With --match-titles: the least Crossref score a match is accepted with.")
@click.option("--query", "q_all", metavar="TEXT", help="Search Crossref's works (query=TEXT) and fetch them.")
@click.option("--query-title", "q_title", metavar="TEXT", help="Search titles (query.title).")
@click.option("--query-container-title", "q_venue", metavar="TEXT",
              help="Search venues: journal or proceedings titles (query.container-title).")
@click.option("--query-author", "q_author", metavar="TEXT", help="Search author names (query.author).")
@click.option("--query-bibliographic", "q_biblio", metavar="TEXT",
              help="Search titles, authors, ISSNs and years together (query.bibliographic).")
@click.option("--filter", "filters", multiple=True, metavar="NAME:VALUE",
              help="A Crossref filter, e.g. from-pub-date:2021 or type:journal-article; repeatable.")
@click.option("--sort", type=click.Choice(search.vocabulary()["sorts"]), help="Order a search by this field.")
@click.option("--order", type=click.Choice(["asc", "desc"]), help="With --sort: ascending or descending.")
@click.option("--count", "count_only", is_flag=True, help="Print how many works the search matches; fetch nothing.")
@click.option("--rows", type=click.IntRange(1, search.MAX_ROWS), default=search.MAX_ROWS, show_default=True,
              metavar="N", help="Works per page of a search.")
@click.option("--citing", multiple=True, metavar="PATH|DOI",
              help="Fetch the works that cite this DOI or the records under PATH (OpenCitations); repeatable.")
@click.option("--citations-url", default=citations.DEFAULT_CITATIONS_URL, show_default=True, metavar="URL",
              help="The OpenCitations Index API's base URL (its token, if any: $OPENCITATIONS_ACCESS_TOKEN).")
@click.option("--cited-by", "cited_by", multiple=True, type=click.Path(exists=True),
              help="Fetch the DOIs that the records under PATH cite and do not hold; repeatable.")
@click.option("--depth", type=click.IntRange(0, 10), metavar="N",
              help="Follow references (--cited-by) or citations (--citing) this many hops from the starting "
                   "records [default: 1 with --cited-by or --citing, else 0].")
@click.option("--max", "max_dois", type=click.IntRange(min=1), default=10_000, metavar="N", show_default=True,
              help="Consider at most this many DOIs (or works of a search) in all.")
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
def fetch(dois: tuple[str, ...], from_files: tuple[Path, ...], match_titles: bool, match_score: float,
          q_all: str | None, q_title: str | None, q_venue: str | None, q_author: str | None, q_biblio: str | None,
          filters: tuple[str, ...], sort: str | None, order: str | None, count_only: bool, rows: int,
          citing: tuple[str, ...], citations_url: str, cited_by: tuple[str, ...], depth: int | None,
          max_dois: int, out_dir: Path, mailto: str | None, api_url: str, refresh: bool, jobs: int,
          timeout: float, max_bytes: int, retries: int, backoff: float, progress_flag: bool | None) -> None:
    """Fetch Crossref work records (/works/DOI) into a folder that 'kg build' reads.

    DOIs come as arguments (10.x/y, doi:10.x/y or https://doi.org/10.x/y), from --from-file (a DOI list or a
    BibTeX, RIS or CSL-JSON library), from the references of the records under --cited-by, or from the works
    citing --citing's (the OpenCitations Index). Or a search: --query and the field queries, --filter, --sort,
    pages through every work it matches (Crossref's cursor). Each response is saved unchanged, one file a DOI;
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
      kg fetch --query-container-title ASPLOS --filter from-pub-date:2021 --mailto you@example.org
    """
    query = search.Search({"query": q_all or "", "query.title": q_title or "", "query.container-title": q_venue or "",
                           "query.author": q_author or "", "query.bibliographic": q_biblio or ""},
                          search.parse_filters(filters), sort, order)
    if query or count_only:
        if dois or from_files or cited_by or citing:
            raise UsageError("a search (--query, --filter) fetches what it matches; give DOIs, --from-file, "
                             "--cited-by or --citing in another run")
        if not query:
            raise UsageError("--count needs a search: give --query TEXT or --filter NAME:VALUE")
        client = Client(api_url, mailto, timeout, retries, backoff, max_bytes=max_bytes)
        if not mailto:
            click.echo("warning: no contact address; pass --mailto you@example.org or set CROSSREF_MAILTO so that "
                       "Crossref can reach you (its polite pool)", err=True)
        with Progress(wanted(progress_flag)) as progress:
            try:
                code = fetch_sources.run_search(query, out_dir, client, count_only=count_only, max_works=max_dois,
                                                rows=rows, refresh=refresh, progress=progress)
            except KeyboardInterrupt:
                raise Fail("interrupted; the records saved so far are complete; run the same command again to "
                           "resume", 130) from None
        sys.exit(code)
    from_files, libraries = fetch_sources.split_files(from_files)
    extra: list[str] = []
    if libraries:
        matcher = Client(api_url, mailto, timeout, retries, backoff, max_bytes=max_bytes) if match_titles else None
        extra += fetch_sources.library_dois(libraries, matcher, match_score)
    oc_failed = 0
    if citing:
        if depth == 0:
            raise UsageError("--depth 0 with --citing fetches nothing; use --depth 1 or more")
        oc = Client(citations_url, mailto, timeout, retries, backoff, max_bytes=max_bytes)
        found, oc_failed = fetch_sources.citing_dois(citing, out_dir, oc, depth=depth or 1, max_dois=max_dois)
        extra += found
        if not (dois or extra or from_files or cited_by):
            sys.exit(1 if oc_failed else 0)
    if libraries and not (dois or extra or from_files or cited_by):
        sys.exit(0)
    dois = (*dois, *dict.fromkeys(e for e in extra if e not in set(dois)))
    if citing and not cited_by:
        depth = 0
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
    sys.exit(1 if done.report.failed or oc_failed else 0)

"""The ``kg fetch`` command: parse options, call kg.fetch, render progress and the summary. Nothing else."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from .. import fetch as fetching
from ..infra import net
from .common import Fail
from ..errors import KgError

COUNTS = ("fetched", "cached", "missing", "failed")


class FetchProgress:
    """A ``\\r``-updated line of counts on stderr, at most ten times a second; silent off a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled, self.shown, self.last = enabled, False, 0.0

    def update(self, report: fetching.FetchReport) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.last < 0.1:
            return
        self.last = now
        sys.stderr.write("\rfetch: " + ", ".join(f"{getattr(report, c)} {c}" for c in COUNTS) + "   ")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 70 + "\r")
            sys.stderr.flush()
            self.shown = False


def _times(n: int) -> str:
    return f"{n} time{'s' if n != 1 else ''}"


def rate_line(client: fetching.Client) -> str:
    """How the rate limiter behaved: the pace in force, waits for a turn, pauses on Retry-After, retries."""
    lim = client.limiter
    origin = "from the server's X-Rate-Limit headers" if lim.source == "server" else "default"
    return (f"rate limit: {lim.limit} requests per {lim.interval:g} s ({origin}); {lim.waits} request"
            f"{'s' if lim.waits != 1 else ''} waited for a turn (longest {lim.longest:.1f} s); paused "
            f"{_times(lim.pauses)} ({lim.paused:.1f} s) on 429/503 Retry-After; "
            f"{client.retried} retr{'ies' if client.retried != 1 else 'y'}")


def summary_lines(report: fetching.FetchReport, client: fetching.Client, max_dois: int) -> list[str]:
    folder = f"{report.out_dir}/"
    lines = [", ".join(f"{c} {getattr(report, c)}" for c in COUNTS) + f" DOIs in {report.seconds:.1f} s -> {folder}",
             rate_line(client)]
    named = sorted(report.missing_dois)[:fetching.MISSING_NAMED]
    lines += [f"missing: {doi}: not in Crossref" for doi in named]
    if report.missing:
        known = f" ({report.known_missing} known from an earlier run)" if report.known_missing else ""
        if report.missing > len(named):
            known += f" ({report.missing - len(named)} not named above)"
        lines.append(f"note: {report.missing} DOI{'s' if report.missing != 1 else ''} not in Crossref{known}, "
                     f"listed in {folder}{fetching.MISSING_FILE}; --refresh asks again")
    if report.over_max:
        more = f"{report.over_max} more DOI{'s were' if report.over_max != 1 else ' was'} not fetched"
        lines.append(f"note: --max {max_dois} reached; {more}; raise --max to fetch them")
    return lines


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
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
@click.option("--api-url", default=fetching.DEFAULT_API_URL, show_default=True, metavar="URL",
              help="The Crossref REST API's base URL.")
@click.option("--refresh", is_flag=True, help="Ask again for DOIs already in the folder or known to be missing.")
@click.option("--jobs", type=click.IntRange(1, 8), default=4, show_default=True, metavar="N",
              help="Requests in flight at most.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True, metavar="S",
              help="Seconds a request may take in all: connect, headers and body (redirects included).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=net.DEFAULT_MAX_BYTES, show_default=True,
              metavar="N", help="The largest answer accepted; a larger one fails that DOI (not retried).")
@click.option("--retries", type=click.IntRange(0, 10), default=5, show_default=True, metavar="N",
              help="Retries on 429, 5xx, timeouts, network errors and broken answers.")
@click.option("--backoff", type=click.FloatRange(min=0), default=1.0, show_default=True, metavar="S",
              help="Seconds before the first retry; doubles with each retry, with full jitter.")
def fetch(dois: tuple[str, ...], from_files: tuple[Path, ...], cited_by: tuple[str, ...], depth: int | None,
          max_dois: int, out_dir: Path, mailto: str | None, api_url: str, refresh: bool, jobs: int,
          timeout: float, max_bytes: int, retries: int, backoff: float) -> None:
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
    if cited_by and depth == 0:
        raise Fail("--depth 0 with --cited-by fetches nothing; use --depth 1 or more")
    try:
        targets = fetching.read_dois(dois, from_files)
        if not targets and not cited_by:
            raise Fail("nothing to fetch: give DOIs, --from-file FILE or --cited-by PATH; see 'kg fetch --help'")
        client = fetching.Client(api_url, mailto, timeout, retries, backoff, max_bytes=max_bytes)
    except KgError as e:
        raise Fail(str(e), e.exit_code) from None
    if not mailto:
        click.echo("warning: no contact address; pass --mailto you@example.org or set CROSSREF_MAILTO "
                   "so that Crossref can reach you (its polite pool)", err=True)
    progress = FetchProgress(sys.stderr.isatty())

    def shown(outcome: fetching.Outcome, report: fetching.FetchReport) -> None:
        if outcome.status == "failed":
            progress.clear()
            click.echo(f"error: {outcome.doi}: {outcome.message}", err=True)
        progress.update(report)

    try:
        report = fetching.fetch_works(targets, out_dir, client, cited_by=cited_by,
                                      depth=(1 if cited_by else 0) if depth is None else depth, jobs=jobs,
                                      refresh=refresh, max_dois=max_dois, on_outcome=shown)
    except KeyboardInterrupt:
        progress.clear()
        raise Fail("interrupted; the records saved so far are complete; run the same command again to "
                        "resume", 130) from None
    except KgError as e:
        progress.clear()
        raise Fail(str(e), e.exit_code) from None
    progress.clear()
    for line in report.skipped:
        click.echo(f"skipped: {line}", err=True)
    for line in summary_lines(report, client, max_dois):
        click.echo(line, err=True)
    sys.exit(1 if report.failed else 0)

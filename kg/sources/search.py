"""Fetch the works a Crossref search matches: ``/works?query...&filter...`` paged with the deep-paging cursor.

Each work of a page is saved as its own record file in the folder ``kg fetch DOI`` fills (the name from its DOI,
``kg.fetch.file_name``), in the envelope of a ``/works/{doi}`` answer around the item as Crossref sent it; a work
whose file is there already is counted as cached and not written again, so a second run of an interrupted search
(a new scroll: a cursor expires after a few minutes idle, so none is kept) saves only what the first did not. A
page shorter than ``rows`` is the last; the cursor token may stay the same from page to page; an expired cursor
(the API answers 4xx to it) starts a new scroll that skips the works this run has seen. Nothing but the records
is kept in the folder. Filter names are checked against ``kg/data/crossref-filters.json`` before any request.

Example: ``run_search(Search(query={"query.title": "compiler"}, filters=(("from-pub-date", "2021"),)), out, client)``
"""

from __future__ import annotations

import difflib
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import orjson

from ..errors import KgError, UsageError
from ..fetch import Client, Tally, file_name, parse_doi, read_answer, write_record
from ..resources import data_file

MAX_ROWS = 1000  # Crossref's largest page
MAX_RESTARTS = 3  # new scrolls after an expired cursor, at most
QUERY_FIELDS = ("query", "query.title", "query.container-title", "query.author", "query.bibliographic")


@functools.cache
def vocabulary() -> dict:
    """kg/data/crossref-filters.json: the filter names, sort values and orders Crossref's /works knows."""
    return orjson.loads(data_file("crossref-filters.json").read_bytes())


def parse_filters(values: tuple[str, ...] | list[str]) -> tuple[tuple[str, str], ...]:
    """``NAME:VALUE`` pairs checked against Crossref's filter names; UsageError (exit 2) for an unknown one.

    Example:

    >>> parse_filters(["from-pub-date:2021", "type:journal-article"])
    (('from-pub-date', '2021'), ('type', 'journal-article'))
    """
    known = vocabulary()["filters"]
    out = []
    for given in values:
        name, sep, value = given.partition(":")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise UsageError(f'--filter "{given}": give it as NAME:VALUE, e.g. from-pub-date:2021')
        if "," in value:
            raise UsageError(f'--filter "{given}": a value cannot hold a comma (Crossref separates filters with '
                             "commas); repeat --filter for each value")
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(f'--filter "{given}": Crossref has no filter "{name}"{hint}; the filters it knows: '
                             + ", ".join(known))
        out.append((name, value))
    return tuple(out)


@dataclass(frozen=True)
class Search:
    """What to ask ``/works`` for: free-text and field queries, filters, sort and order."""

    query: dict[str, str] = field(default_factory=dict)  # "query", "query.title", ... -> text
    filters: tuple[tuple[str, str], ...] = ()
    sort: str | None = None
    order: str | None = None

    def params(self) -> list[tuple[str, str]]:
        out = [(k, v) for k, v in self.query.items() if v]
        if self.filters:
            out.append(("filter", ",".join(f"{k}:{v}" for k, v in self.filters)))
        if self.sort:
            out.append(("sort", self.sort))
        if self.order:
            out.append(("order", self.order))
        return out

    def __bool__(self) -> bool:
        return bool(self.params())


def search_url(api_url: str, search: Search, rows: int, cursor: str | None, mailto: str | None = None) -> str:
    """``{api_url}/works?...&rows=N&cursor=C[&mailto=...]``, every value percent-encoded.

    Example:

    >>> search_url("https://api.crossref.org", Search({"query": "deep learning"}), 0, None)
    'https://api.crossref.org/works?query=deep+learning&rows=0'
    """
    params = [*search.params(), ("rows", str(rows))]
    if cursor is not None:
        params.append(("cursor", cursor))
    if mailto:
        params.append(("mailto", mailto))
    return f"{api_url.rstrip('/')}/works?{urlencode(params)}"


def page_problem(body: bytes) -> str | None:
    """Why ``body`` is not a Crossref work list (``{"message": {"items": [...], "total-results": N}}``), or None."""
    _doc, message, not_json = read_answer(body)
    if not_json:
        return not_json
    if not isinstance(message, dict) or not isinstance(message.get("items"), list) \
            or not isinstance(message.get("total-results"), int):
        return "the answer is not a Crossref work list (no message.items and message.total-results)"
    return None


def envelope(item: dict) -> bytes:
    """A search result's item as the body of a ``/works/{doi}`` answer (what ``kg fetch DOI`` saves)."""
    return orjson.dumps({"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": item})


@dataclass
class SearchReport(Tally):
    """What a search did: works matched (``total-results``), saved, already in the folder, failed; pages asked."""

    matched: int = 0
    saved: int = 0
    pages: int = 0
    restarts: int = 0
    problems: list[str] = field(default_factory=list)


def count(search: Search, client: Client) -> int:
    """How many works match (``rows=0``: one request, nothing saved); KgError when the API gives no answer."""
    answer = client.ask(search_url(client.api_url, search, 0, None, client.mailto), check=page_problem)
    if not answer.ok:
        raise KgError(f"search: {answer.problem}")
    return int(orjson.loads(answer.body)["message"]["total-results"])


def run_search(search: Search, out_dir: Path, client: Client, *, max_works: int = 10_000, rows: int = MAX_ROWS,
               refresh: bool = False, on_page: Callable[[SearchReport], None] | None = None) -> SearchReport:
    """Page through the works ``search`` matches, up to ``max_works``, saving each new one into ``out_dir``.

    Memory holds one page and the DOIs seen (for a new scroll after an expired cursor), never the whole result.
    """
    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    report = SearchReport(out_dir)
    seen: set[str] = set()
    cursor = "*"
    while True:
        want = min(rows, max_works - len(seen))
        if want <= 0:
            break
        answer = client.ask(search_url(client.api_url, search, want, cursor, client.mailto), check=page_problem,
                            give_back=(400, 404, 410))
        if not answer.ok and answer.status and cursor != "*" and report.restarts < MAX_RESTARTS:
            report.restarts += 1  # the cursor expired: a new scroll, skipping what this run has seen
            cursor = "*"
            continue
        if not answer.ok:
            report.failed += 1
            report.problems.append(f"search: page {report.pages + 1}: {answer.problem}")
            break
        report.pages += 1
        message = orjson.loads(answer.body)["message"]
        del answer
        report.matched = message["total-results"]
        items = message["items"]
        for item in items:
            if len(seen) >= max_works:
                break
            doi = parse_doi(item.get("DOI", "")) if isinstance(item, dict) and isinstance(item.get("DOI"), str) \
                else None
            if doi is None:
                report.failed += 1
                report.problems.append(f"search: page {report.pages}: an item without a DOI; not saved")
                continue
            if doi in seen:
                continue
            seen.add(doi)
            path = out_dir / file_name(doi)
            if path.exists() and not refresh:
                report.cached += 1
            else:
                write_record(path, envelope(item))
                report.saved += 1
        if on_page:
            on_page(report)
        next_cursor = message.get("next-cursor")
        if len(items) < want or not isinstance(next_cursor, str) or not next_cursor:
            break
        cursor = next_cursor
    report.over_max = max(0, report.matched - max_works) if len(seen) >= max_works else 0
    report.seconds = time.perf_counter() - started
    return report

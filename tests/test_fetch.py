"""``kg fetch`` against a scripted local Crossref (127.0.0.1, never the internet).

The server answers ``/works/{doi}`` from a per-DOI script of replies (recorded seed responses, 404s, 429s
with Retry-After, 500s, slow, truncated and non-JSON answers); it counts hits and requests in flight.
Retry delays are tiny (``--backoff 0``); the only real wait is one Retry-After of 1 s.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import click
import pyoxigraph
import pytest
from click.testing import CliRunner, Result

from kg import __version__, api
from kg import fetch as fetching
from kg.cli.fetch import fetch as fetch_cmd
from kg.fetch import Client, RateLimiter, doi_of_file, fetch_works, file_name, parse_doi, retry_after, works_url
from kg.workspace import workspace_graph

SEEDS = Path(__file__).resolve().parents[1] / "seeds"
DATA = Path(__file__).resolve().parent / "data" / "fetch"
SEED_BODIES = {json.loads(p.read_bytes())["message"]["DOI"].lower(): p.read_bytes()
               for p in sorted(SEEDS.glob("*.txt"))}
SEED_A, SEED_B = sorted(SEED_BODIES)[:2]
PIPEDREAM = "10.1145/3341301.3359646"
FAST = {"X-Rate-Limit-Limit": "1000", "X-Rate-Limit-Interval": "1s"}
SUMMARY = re.compile(r"fetched (\d+), cached (\d+), missing (\d+), failed (\d+) DOIs in \d+\.\d s -> (.+)/")
PERSISTS = "try again later; if it persists, check --api-url"
NO_MAILTO = ("warning: no contact address; pass --mailto you@example.org or set CROSSREF_MAILTO "
             "so that Crossref can reach you (its polite pool)")


# ---------------------------------------------------------------- the local server


@dataclass
class Reply:
    """One scripted answer: status, body, extra headers, a delay before answering, a Content-Length to claim."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    length: int | None = None


@dataclass
class Seen:
    doi: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    at: float


class Api:
    """A scripted Crossref: per DOI a list of replies (the last one repeats); an unscripted DOI gets 404."""

    def __init__(self) -> None:
        self.script: dict[str, list[Reply]] = {}
        self.hits: Counter[str] = Counter()
        self.seen: list[Seen] = []
        self.rate_headers = dict(FAST)
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def add(self, doi: str, *replies: Reply) -> None:
        self.script[doi.lower()] = list(replies)

    def serve(self, doi: str, body: bytes) -> None:
        self.add(doi, Reply(200, body))

    def requested(self) -> set[str]:
        return set(self.hits)

    def _reply(self, doi: str, query: dict[str, list[str]], headers: dict[str, str]) -> Reply:
        with self.lock:
            self.hits[doi] += 1
            self.seen.append(Seen(doi, query, headers, time.monotonic()))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            replies = self.script.get(doi, [Reply(404, b'{"status":"error","message":"Resource not found."}')])
            return replies[min(self.hits[doi], len(replies)) - 1]

    def _done(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                parts = urlsplit(self.path)
                doi = unquote(parts.path.removeprefix("/works/")).lower()
                reply = api._reply(doi, parse_qs(parts.query), dict(self.headers))
                try:
                    time.sleep(reply.delay)
                    self.send_response(reply.status)
                    for k, v in {**api.rate_headers, "Content-Type": "application/json", **reply.headers}.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(reply.length or len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)
                finally:
                    api._done()

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        return Handler


@pytest.fixture
def local_api() -> Iterator[Api]:
    server = Api()
    thread = threading.Thread(target=server.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CROSSREF_MAILTO", raising=False)
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    return tmp_path


def run(api: Api, *args: str, mailto: str | None = "me@example.org", env: dict[str, str] | None = None) -> Result:
    """``kg fetch --api-url <local> --backoff 0 [--mailto me@example.org] ARGS``; never a traceback."""
    base = ["--api-url", api.url, "--backoff", "0", *(["--mailto", mailto] if mailto else [])]
    result = CliRunner().invoke(fetch_cmd, [*base, *args], env=env, prog_name="kg fetch")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.stderr
    return result


def counts(result: Result) -> tuple[int, int, int, int]:
    """(fetched, cached, missing, failed) from the summary line."""
    m = next(m for line in result.stderr.splitlines() if (m := SUMMARY.fullmatch(line)))
    return int(m[1]), int(m[2]), int(m[3]), int(m[4])


def errors(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error: ")]


def record(doi: str, cites: tuple[str, ...] = (), text: str | None = None) -> bytes:
    """A small /works response whose references cite ``cites`` by DOI (and ``text`` as free text)."""
    refs: list[dict[str, str]] = [{"key": f"r{i}", "DOI": d} for i, d in enumerate(cites, 1)]
    if text:
        refs.append({"key": "text", "unstructured": text})
    message = {"DOI": doi, "type": "journal-article", "title": [f"Work {doi}"], "reference": refs}
    return json.dumps({"status": "ok", "message-type": "work", "message": message}).encode()


def folder(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


# ---------------------------------------------------------------- DOIs, names, URLs, headers


def test_dois_are_read_in_every_accepted_form() -> None:
    for given in ("10.1145/3341301.3359646", "doi:10.1145/3341301.3359646", "DOI: 10.1145/3341301.3359646",
                  "https://doi.org/10.1145/3341301.3359646", "http://dx.doi.org/10.1145%2F3341301.3359646"):
        assert parse_doi(given) == PIPEDREAM
    for bad in ("", "3341301.3359646", "10.1145", "10.1145/a b", "https://example.org/10.1145/x"):
        assert parse_doi(bad) is None


def test_file_names_are_stable_safe_and_reversible() -> None:
    assert file_name(PIPEDREAM) == "10.1145%2f3341301.3359646.json"
    assert file_name(PIPEDREAM.upper()) == file_name(PIPEDREAM)
    odd = "10.1002/(sici)1097-4571<1:a>:é?#%.x"
    name = file_name(odd)
    assert re.fullmatch(r"[a-z0-9._%-]+\.json", name) and doi_of_file(name) == odd
    long = "10.1000/" + "x" * 300
    assert re.fullmatch(r"sha256-[0-9a-f]{64}\.json", file_name(long)) and doi_of_file(file_name(long)) is None


def test_works_url_encodes_the_doi_and_adds_mailto() -> None:
    assert works_url("https://api.crossref.org/", "10.1000/a?b#c%d e") == \
        "https://api.crossref.org/works/10.1000/a%3Fb%23c%25d%20e"
    assert works_url("http://h", "10.1000/../x") == "http://h/works/10.1000/%2E%2E/x"
    assert works_url("http://h", PIPEDREAM, "me+kg@example.org") == \
        f"http://h/works/{PIPEDREAM}?mailto=me%2Bkg%40example.org"


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after("2") == 2.0
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412480 - 5) == 5.0
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: go now
    assert retry_after("soon") is None and retry_after(None) is None


class FakeTime:
    """A clock that moves only when slept on; ``before_sleep`` runs before each sleep."""

    def __init__(self, before_sleep: Callable[[], None] = lambda: None) -> None:
        self.now, self.slept, self.before_sleep = 0.0, [], before_sleep

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.before_sleep()
        self.slept.append(seconds)
        self.now += seconds


def test_rate_limiter_spaces_requests_and_pauses_on_retry_after() -> None:
    t = FakeTime()
    limiter = RateLimiter(limit=2, interval=1.0, clock=t.clock, sleep=t.sleep)
    for _ in range(4):
        limiter.acquire()  # all asked at time 0: each goes half a second after the one before
    assert t.slept == [0.5, 0.5, 0.5] and t.now == 1.5 and limiter.waits == 3
    limiter.adopt("50", "1s")
    assert (limiter.limit, limiter.interval, limiter.source) == (50, 1.0, "server")
    limiter.adopt("lots", "1s")
    limiter.adopt("5", "forever")
    assert (limiter.limit, limiter.interval) == (50, 1.0)
    t.now = 10.0
    limiter.pause(3)
    limiter.pause(1)  # inside the first pause: not another one
    limiter.acquire()
    assert t.slept[-1] == 3.0 and t.now == 13.0 and (limiter.pauses, limiter.paused) == (1, 3.0)


def test_a_pause_holds_requests_already_waiting_for_their_turn() -> None:
    t = FakeTime(before_sleep=lambda: None if t.slept else limiter.pause(5))  # a 429 comes during the first wait
    limiter = RateLimiter(limit=1, interval=1.0, clock=t.clock, sleep=t.sleep)
    limiter.acquire()
    limiter.acquire()
    assert t.slept == [1.0, 4.0] and t.now == 5.0


def test_backoff_is_exponential_with_full_jitter(local_api: Api) -> None:
    local_api.rate_headers = {}
    local_api.add(SEED_A, Reply(500), Reply(502), Reply(200, SEED_BODIES[SEED_A]))
    slept: list[float] = []
    client = Client(local_api.url, backoff=0.2, rand=lambda: 0.5, sleep=slept.append)
    client.limiter = RateLimiter(limit=100_000)
    outcome = client.get(SEED_A)
    assert outcome.status == "fetched" and outcome.body == SEED_BODIES[SEED_A]
    assert slept == [0.1, 0.2] and client.retried == 2
    assert Client(backoff=1.0, rand=lambda: 1.0).delay(10) == 60.0  # capped


def test_rate_limit_headers_are_adopted(local_api: Api, cwd: Path) -> None:
    local_api.rate_headers = {"X-Rate-Limit-Limit": "50", "X-Rate-Limit-Interval": "1s"}
    local_api.serve(SEED_A, SEED_BODIES[SEED_A])
    client = Client(local_api.url)
    fetch_works([SEED_A], cwd / "fetched", client)
    assert (client.limiter.limit, client.limiter.interval, client.limiter.source) == (50, 1.0, "server")


# ---------------------------------------------------------------- fetching and the cache


def test_records_are_written_unchanged_and_then_cached(local_api: Api, cwd: Path) -> None:
    for doi in (SEED_A, SEED_B):
        local_api.serve(doi, SEED_BODIES[doi])
    first = run(local_api, SEED_A, f"https://doi.org/{SEED_B.upper()}")
    assert first.exit_code == 0 and counts(first) == (2, 0, 0, 0), first.stderr
    lines = first.stderr.splitlines()
    assert SUMMARY.fullmatch(lines[0]) and lines[0].endswith(" -> fetched/")
    assert lines[1].startswith("rate limit: 1000 requests per 1 s (from the server's X-Rate-Limit headers); ")
    assert folder(cwd / "fetched") == sorted(file_name(d) for d in (SEED_A, SEED_B))
    for doi in (SEED_A, SEED_B):
        assert (cwd / "fetched" / file_name(doi)).read_bytes() == SEED_BODIES[doi]
    again = run(local_api, SEED_A, SEED_B)
    assert counts(again) == (0, 2, 0, 0) and local_api.hits == Counter({SEED_A: 1, SEED_B: 1})
    refreshed = run(local_api, SEED_A, "--refresh")
    assert counts(refreshed) == (1, 0, 0, 0) and local_api.hits[SEED_A] == 2


def test_missing_dois_are_recorded_and_skipped_until_refresh(local_api: Api, cwd: Path) -> None:
    gone = "10.5555/not-registered"
    first = run(local_api, gone)
    assert first.exit_code == 0 and counts(first) == (0, 0, 1, 0)
    assert "note: 1 DOI not in Crossref, listed in fetched/.missing.tsv; --refresh asks again" in first.stderr
    listed = (cwd / "fetched" / ".missing.tsv").read_text().splitlines()
    assert listed[0].startswith("#") and listed[1].startswith(f"{gone}\t")
    assert folder(cwd / "fetched") == [".missing.tsv"]
    again = run(local_api, gone)
    assert counts(again) == (0, 0, 1, 0) and local_api.hits[gone] == 1
    assert "(1 known from an earlier run)" in again.stderr
    local_api.serve(gone, record(gone))
    refreshed = run(local_api, gone, "--refresh")
    assert counts(refreshed) == (1, 0, 0, 0) and local_api.hits[gone] == 2
    assert (cwd / "fetched" / ".missing.tsv").read_text().splitlines()[1:] == []


def test_each_missing_doi_is_named_up_to_a_limit_then_counted(local_api: Api, cwd: Path) -> None:
    one = run(local_api, "10.5555/gone.x")
    assert [ln for ln in one.stderr.splitlines() if ln.startswith("missing: ")] == [
        "missing: 10.5555/gone.x: not in Crossref"]
    gone = [f"10.5555/gone.{i:02d}" for i in range(25)]
    r = run(local_api, *gone)
    assert counts(r) == (0, 0, 25, 0)
    assert [ln for ln in r.stderr.splitlines() if ln.startswith("missing: ")] == [
        f"missing: {doi}: not in Crossref" for doi in gone[:20]]
    assert ("note: 25 DOIs not in Crossref (5 not named above), listed in fetched/.missing.tsv; --refresh asks "
            "again") in r.stderr.splitlines()


def test_user_agent_and_mailto(local_api: Api, cwd: Path) -> None:
    local_api.serve(SEED_A, SEED_BODIES[SEED_A])
    run(local_api, SEED_A, mailto=None, env={"CROSSREF_MAILTO": "env@example.org"})
    polite = local_api.seen[-1]
    assert polite.headers["User-Agent"] == \
        f"crossref-kg/{__version__} (+https://w3id.org/crossref-kg; mailto:env@example.org)"
    assert polite.query == {"mailto": ["env@example.org"]}
    anonymous = run(local_api, SEED_A, "--refresh", mailto=None)
    assert anonymous.stderr.splitlines()[0] == NO_MAILTO
    assert local_api.seen[-1].headers["User-Agent"] == f"crossref-kg/{__version__} (+https://w3id.org/crossref-kg)"
    assert local_api.seen[-1].query == {}


def test_429_retry_after_pauses_the_client(local_api: Api, cwd: Path) -> None:
    local_api.add(SEED_A, Reply(429, headers={"Retry-After": "1"}), Reply(200, SEED_BODIES[SEED_A]))
    result = run(local_api, SEED_A)
    assert counts(result) == (1, 0, 0, 0) and local_api.hits[SEED_A] == 2
    first, second = (s.at for s in local_api.seen)
    assert second - first >= 0.99
    assert re.search(r"paused 1 time \(1\.0 s\) on 429/503 Retry-After; 1 retry$", result.stderr.splitlines()[1])


def test_500_then_success_is_retried(local_api: Api, cwd: Path) -> None:
    local_api.add(SEED_A, Reply(500), Reply(200, SEED_BODIES[SEED_A]))
    result = run(local_api, SEED_A)
    assert result.exit_code == 0 and counts(result) == (1, 0, 0, 0) and local_api.hits[SEED_A] == 2


@pytest.mark.parametrize(("reply", "message"), [
    (Reply(500), "HTTP 500 after 3 attempts; try again later"),
    (Reply(200, b"<html>Service Unavailable</html>"),
     "the answer is not valid JSON (unexpected character, expected a JSON value) after 3 attempts; " + PERSISTS),
    (Reply(200, SEED_BODIES[SEED_A][:500]),
     "the answer is not valid JSON (unexpected end of data) after 3 attempts; " + PERSISTS),
    (Reply(200, SEED_BODIES[SEED_A][:500], length=len(SEED_BODIES[SEED_A])),
     f"truncated answer (500 of {len(SEED_BODIES[SEED_A])} bytes) after 3 attempts; try again later"),
    (Reply(200, b'{"status":"ok","message-type":"work-list","message":{"items":[]}}'),
     "the answer is not a Crossref work record (no message.DOI) after 3 attempts; " + PERSISTS),
])
def test_broken_answers_fail_and_write_nothing(local_api: Api, cwd: Path, reply: Reply, message: str) -> None:
    local_api.add(SEED_A, reply)
    result = run(local_api, SEED_A, "--retries", "2")
    assert result.exit_code == 1 and counts(result) == (0, 0, 0, 1)
    assert errors(result) == [f"error: {SEED_A}: {message}"]
    assert local_api.hits[SEED_A] == 3 and folder(cwd / "fetched") == []


def test_other_4xx_fails_without_retry(local_api: Api, cwd: Path) -> None:
    local_api.add(SEED_A, Reply(400))
    result = run(local_api, SEED_A)
    assert result.exit_code == 1 and local_api.hits[SEED_A] == 1
    assert errors(result) == [f"error: {SEED_A}: HTTP 400 Bad Request (not retried); check the DOI and --api-url"]


def test_slow_answers_time_out_and_are_retried(local_api: Api, cwd: Path) -> None:
    local_api.add(SEED_A, Reply(200, SEED_BODIES[SEED_A], delay=0.6))
    local_api.add(SEED_B, Reply(200, SEED_BODIES[SEED_B], delay=0.6), Reply(200, SEED_BODIES[SEED_B]))
    result = run(local_api, SEED_A, SEED_B, "--timeout", "0.2", "--retries", "1")
    assert result.exit_code == 1 and counts(result) == (1, 0, 0, 1)
    assert errors(result) == [f"error: {SEED_A}: no complete answer within 0.2 s after 2 attempts; "
                              "try again later or raise --timeout"]
    assert folder(cwd / "fetched") == [file_name(SEED_B)]


def test_requests_in_flight_are_bounded(local_api: Api, cwd: Path) -> None:
    dois = [f"10.5555/par.{i}" for i in range(12)]
    for doi in dois:
        local_api.add(doi, Reply(200, record(doi), delay=0.15))
    result = run(local_api, *dois, "--jobs", "3")
    assert counts(result) == (12, 0, 0, 0)
    assert 2 <= local_api.max_in_flight <= 3


# ---------------------------------------------------------------- what to fetch


def chain(api: Api, n: int) -> list[str]:
    """DOIs d0 -> d1 -> ... (each cites the next), all served."""
    dois = [f"10.5555/chain.{i}" for i in range(n)]
    for doi, nxt in zip(dois, [*dois[1:], None], strict=True):
        api.serve(doi, record(doi, (nxt,) if nxt else ()))
    return dois


def test_depth_bounds_the_walk(local_api: Api, cwd: Path) -> None:
    d = chain(local_api, 4)
    assert counts(run(local_api, d[0])) == (1, 0, 0, 0) and local_api.requested() == {d[0]}
    result = run(local_api, d[0], "--depth", "2")
    assert counts(result) == (2, 1, 0, 0) and local_api.requested() == set(d[:3])


def test_max_caps_the_number_of_dois(local_api: Api, cwd: Path) -> None:
    d = chain(local_api, 4)
    result = run(local_api, d[0], "--depth", "3", "--max", "2")
    assert counts(result) == (2, 0, 0, 0) and local_api.requested() == set(d[:2])
    assert "note: --max 2 reached; 1 more DOI was not fetched; raise --max to fetch them" in result.stderr


def test_cited_by_fetches_only_dois_not_among_the_inputs(local_api: Api, cwd: Path) -> None:
    corpus = cwd / "corpus"
    corpus.mkdir()
    (corpus / "a.json").write_bytes(record("10.5555/A", ("10.5555/B", "10.5555/C"),
                                           text="C. Dee. 2020. Some paper. https://doi.org/10.5555/D."))
    (corpus / "b.json").write_bytes(record("10.5555/b", ("10.5555/E", "10.5555/a")))
    (corpus / "broken.json").write_text('{"DOI": ')
    for doi in ("10.5555/c", "10.5555/d", "10.5555/e"):
        local_api.serve(doi, record(doi, ("10.5555/f",)))
    result = run(local_api, "--cited-by", str(corpus))
    assert result.exit_code == 0 and counts(result) == (3, 0, 0, 0)
    assert [line for line in result.stderr.splitlines() if line.startswith("skipped: ")] == [
        f"skipped: {corpus}/broken.json: line 1, column 9: invalid JSON (unexpected end of data); "
        "fix the file or leave it out"]
    assert local_api.requested() == {"10.5555/c", "10.5555/d", "10.5555/e"}  # depth 1: not f
    capped = run(local_api, "--cited-by", str(corpus), "--depth", "2", "--max", "3")  # the inputs do not count
    assert counts(capped) == (0, 3, 0, 0) and "10.5555/f" not in local_api.requested()
    assert "note: --max 3 reached; 1 more DOI was not fetched; raise --max to fetch them" in capped.stderr


def test_cited_by_fetches_what_references_without_a_doi_resolve_to(local_api: Api, cwd: Path) -> None:
    """A reference that gives only a title the tool catalogue knows is fetched under the catalogue paper's DOI
    (the node the build makes for it, whose title the report asks 'kg fetch' to fill in); an arXiv reference is
    not asked of Crossref (arXiv DOIs are DataCite's); one citing another input by title is an input."""
    corpus = cwd / "corpus"
    corpus.mkdir()
    body = json.loads(record("10.5555/A"))
    body["message"]["reference"] = [{"key": "r1", "author": "Adhianto", "year": "2010", "volume": "22",
                                     "article-title": "HPCToolkit: tools for performance analysis of optimized "
                                                      "parallel programs", "volume-title": "Concurr. Comput."}]
    (corpus / "a.json").write_text(json.dumps(body))
    (corpus / "b.json").write_bytes(record("10.5555/B", text="Vaswani A, et al. Attention is all you need. "
                                                               "arXiv:1706.03762, 2017."))
    local_api.serve("10.1002/cpe.1553", record("10.1002/cpe.1553"))
    result = run(local_api, "--cited-by", str(corpus))
    assert result.exit_code == 0 and counts(result) == (1, 0, 0, 0), result.stderr
    assert local_api.requested() == {"10.1002/cpe.1553"}


def test_invalid_dois_are_named_exactly(local_api: Api, cwd: Path) -> None:
    bad = run(local_api, SEED_A, "10.1145")
    assert bad.exit_code == 2 and bad.stderr == (
        'error: argument "10.1145": is not a DOI; give it as 10.1145/3341301.3359646, doi:10.1145/... '
        "or https://doi.org/10.1145/...\n")
    (cwd / "dois.txt").write_text(f"# my list\n{SEED_A}  # a seed\n\nhttps://doi.org/10.1145 /x\n")
    from_file = run(local_api, "--from-file", "dois.txt")
    assert from_file.exit_code == 2 and from_file.stderr == (
        'error: dois.txt: line 4: "https://doi.org/10.1145 /x" is not a DOI; write one DOI a line '
        "(10.1145/..., doi:... or https://doi.org/...); # starts a comment\n")
    assert local_api.hits == Counter()
    no_hop = run(local_api, "--cited-by", ".", "--depth", "0")
    assert no_hop.exit_code == 2 and no_hop.stderr == (
        "error: --depth 0 with --cited-by fetches nothing; use --depth 1 or more\n")
    nothing = run(local_api)
    assert nothing.exit_code == 2 and nothing.stderr == (
        "error: nothing to fetch: give DOIs, --from-file FILE or --cited-by PATH; see 'kg fetch --help'\n")
    assert run(local_api, SEED_A, mailto="me").stderr == (
        'error: --mailto "me": is not an e-mail address; give one like you@example.org\n')


def test_from_file_reads_comments_and_blank_lines(local_api: Api, cwd: Path) -> None:
    local_api.serve(SEED_A, SEED_BODIES[SEED_A])
    (cwd / "dois.txt").write_text(f"# my list\n\ndoi:{SEED_A}  # a seed\n")
    assert counts(run(local_api, "--from-file", "dois.txt")) == (1, 0, 0, 0)


# ---------------------------------------------------------------- interruptions


def test_an_interrupted_write_leaves_the_old_file_and_no_partial_one(local_api: Api, cwd: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    out = cwd / "fetched"
    out.mkdir()
    (out / file_name(SEED_A)).write_bytes(b"old")
    local_api.serve(SEED_A, SEED_BODIES[SEED_A])

    def interrupted(src: str, dst: str) -> None:
        assert Path(src).read_bytes() == SEED_BODIES[SEED_A]  # the temporary file was complete ...
        raise KeyboardInterrupt  # ... and Ctrl-C came before the rename

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fetch_works([SEED_A], out, Client(local_api.url, backoff=0), refresh=True)
    monkeypatch.undo()
    assert folder(out) == [file_name(SEED_A)] and (out / file_name(SEED_A)).read_bytes() == b"old"


def test_ctrl_c_mid_run_leaves_complete_files_and_the_rerun_resumes(local_api: Api, cwd: Path) -> None:
    dois = [f"10.5555/run.{i}" for i in range(8)]
    for doi in dois:
        local_api.add(doi, Reply(200, record(doi), delay=0.05))
    local_api.add("10.5555/run.gone", Reply(404))

    def ctrl_c_after_three(outcome: fetching.Outcome, report: fetching.FetchReport) -> None:
        if report.fetched + report.missing == 3:
            raise KeyboardInterrupt

    out = cwd / "fetched"
    with pytest.raises(KeyboardInterrupt):
        fetch_works(["10.5555/run.gone", *dois], out, Client(local_api.url, backoff=0), jobs=2,
                    on_outcome=ctrl_c_after_three)
    names = folder(out)
    assert ".missing.tsv" in names and all(n == ".missing.tsv" or not n.startswith(".") for n in names)
    saved = [n for n in names if n.endswith(".json")]
    assert 2 <= len(saved) < len(dois)
    for name in saved:
        assert (out / name).read_bytes() == record(doi_of_file(name) or "")
    result = run(local_api, "10.5555/run.gone", *dois)
    assert counts(result) == (len(dois) - len(saved), len(saved), 1, 0)


def test_cli_ctrl_c_says_how_to_resume(local_api: Api, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local_api.serve(SEED_A, SEED_BODIES[SEED_A])
    monkeypatch.setenv("KG_FAULT", "fetch:INT")  # (Ctrl-C as the first record is about to be written)
    result = run(local_api, SEED_A)
    assert result.exit_code == 130 and errors(result) == [
        "error: interrupted; the records saved so far are complete; run the same command again to resume"]


def test_help_has_an_example() -> None:
    group = click.Group("kg", commands=[fetch_cmd])
    result = CliRunner().invoke(group, ["fetch", "--help"], prog_name="kg")
    assert result.exit_code == 0
    assert "kg fetch --cited-by seeds --mailto you@example.org && kg build seeds fetched" in result.output


# ---------------------------------------------------------------- acceptance


def tool_link_query(ref_key: str, cited: str, tool: str) -> str:
    return f"""PREFIX kg: <https://w3id.org/crossref-kg/ontology#>
PREFIX biro: <http://purl.org/spar/biro/>
ASK {{ GRAPH ?g {{ ?ref kg:referenceKey "{ref_key}" ; biro:references <https://doi.org/{cited}> ;
                        kg:citesTool <https://w3id.org/crossref-kg/tool/{tool}> }} }}"""


def links_pipedream(inputs: list[str], tools: list[Path]) -> bool:
    api.build(inputs, api.BuildOptions(validation="none", tools=tuple(tools)))  # writes $KG_HOME/graph.nq
    store = pyoxigraph.Store()
    store.load(path=str(workspace_graph()), format=pyoxigraph.RdfFormat.N_QUADS)
    return bool(store.query(tool_link_query("e_1_3_2_1_46_1", PIPEDREAM, "pipedream")))


def test_a_doi_only_reference_is_linked_to_its_tool_after_fetch(local_api: Api, cwd: Path) -> None:
    """Seed 004 cites PipeDream's defining paper (SOSP '19) by DOI only; a catalogue that knows that paper by
    title only (the built-in entry without its DOIs, as a user catalogue) cannot link it. After ``kg fetch
    --cited-by seeds`` the fetched record gives the title, and the build links the reference to the PipeDream
    tool; without it, it does not."""
    seeds = cwd / "seeds"
    shutil.copytree(SEEDS, seeds)
    builtin = json.loads((Path(__file__).parents[1] / "kg" / "data" / "tools.json").read_text(encoding="utf-8"))
    entry = next(t for t in builtin["tools"] if t["id"] == "pipedream")
    entry["papers"] = [{k: v for k, v in p.items() if k != "doi"} for p in entry["papers"]]
    titles_only = cwd / "titles-only.json"
    titles_only.write_text(json.dumps({"tools": [entry]}), encoding="utf-8")
    local_api.serve(PIPEDREAM, (DATA / "pipedream-sosp19.json").read_bytes())
    result = run(local_api, "--cited-by", "seeds", "--jobs", "8")
    fetched, cached, missing, failed = counts(result)
    assert result.exit_code == 0 and (fetched, cached, failed) == (1, 0, 0) and missing > 100
    assert PIPEDREAM in local_api.requested() and not local_api.requested() & set(SEED_BODIES)
    assert not links_pipedream(["seeds"], [titles_only])
    assert links_pipedream(["seeds", "fetched"], [titles_only])


def test_a_full_disk_names_the_output_folder(local_api: Api, cwd: Path) -> None:
    """``kg fetch -o DIR`` on a full disk (KG_FAULT=fetch:FULL raises what a full disk raises) names DIR, not the
    workspace, in its one line."""
    local_api.serve(SEED_A, SEED_BODIES[SEED_A])
    result = run(local_api, SEED_A, "-o", "out", env={"KG_FAULT": "fetch:FULL"})
    assert result.exit_code == 2 and errors(result) == [
        "error: out: no space left on the device (No space left on device); free some space there, or set KG_HOME"
        " (the workspace, where builds keep their scratch files) or -o to a disk with room, and run again; files"
        " being replaced were left as they were"], result.stderr
    assert not (cwd / "out").exists() or folder(cwd / "out") == []


# ---------------------------------------------------------------- no network


def test_a_name_that_does_not_resolve_stops_the_fetch_with_one_line(cwd: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline, ``kg fetch --cited-by seeds`` says once that it cannot reach the host (not once per DOI, after
    every retry): the resolver is patched, nothing leaves the machine."""
    import socket
    asked: list[str] = []

    def no_such_name(host: str, *args: object, **kwargs: object) -> list:
        asked.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)
    result = CliRunner().invoke(fetch_cmd, ["--api-url", "http://api.crossref.invalid", "--mailto", "me@example.org",
                                            "--cited-by", str(SEEDS), "--jobs", "1", "--retries", "5"],
                                prog_name="kg fetch")
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert result.stderr == (
        "error: cannot reach http://api.crossref.invalid: the name api.crossref.invalid does not resolve (Name or "
        "service not known); stopped at the first such failure; check the network and --api-url, then run the same "
        "command again (what was saved so far is kept)\n")
    assert asked == ["api.crossref.invalid"]  # one request, not retried
    assert folder(cwd / "fetched") == []

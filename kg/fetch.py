"""Grow the corpus from the Crossref REST API: ``/works/{doi}`` records fetched politely into a folder.

The folder is the cache: one file a DOI holding the response body unchanged, named from the lower-cased
DOI (``10.1145%2f3341301.3359646.json``) and written atomically; DOIs the API does not know (404) are
listed in ``.missing.tsv`` beside them. Every request goes through one ``Client``: a User-Agent with the
version and the mailto contact, a rate limiter shared by all threads that adopts the server's
``X-Rate-Limit-*`` headers and pauses everyone on ``Retry-After`` (a pause or pace over ``MAX_PAUSE`` fails
the request instead), retries with exponential backoff and full jitter, and kg.infra.net's bounds: a total
deadline, a cap on the answer's size, redirects only on the API's host. A record is saved only when it is
the record of the DOI asked for (or lists it among its aliases). ``fetch_works`` walks DOIs breadth-first,
up to ``depth`` hops of references from the starting records, with a bounded number of requests in flight.

Example: ``fetch_works(["10.1145/3341301.3359646"], Path("fetched"), Client(mailto="you@example.org"))``
"""

from __future__ import annotations

import email.utils
import errno
import functools
import hashlib
import random
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlencode, urlsplit

import orjson

from . import __version__
from .errors import FetchStopped, HostUnresolved, InputError, KgError, UsageError
from .infra import faults, net
from .infra.outputs import atomic_writer
from .ingest.identifiers import normalize_doi
from .ingest.read import display_path, iter_records
from .ingest.works import each_work
from .map.context import Context
from .model import Work
from .rdf.ids import Minter
from .refs.parse import parse_reference
from .refs.resolve import resolve_works

DEFAULT_API_URL = "https://api.crossref.org"
PROJECT_URL = "https://w3id.org/crossref-kg"
MISSING_FILE = ".missing.tsv"
MISSING_NAMED = 20  # DOIs not in Crossref named one a line at the end of a fetch; more are only counted
MAX_NAME = 200
MAX_PAUSE = 60.0  # the longest a server may make kg fetch wait (Retry-After, or between two requests)
DOI_HINT = "give it as 10.1145/3341301.3359646, doi:10.1145/... or https://doi.org/10.1145/..."
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$", re.I)
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_COMMENT = re.compile(r"(?:^|\s+)#.*$")


# ---------------------------------------------------------------- DOIs and file names


def parse_doi(text: str) -> str | None:
    """The lower-cased DOI in ``10.x/y``, ``doi:10.x/y`` or a doi.org URL, or None when it is not one.

    Example:

    >>> parse_doi("https://doi.org/10.1145/3341301.3359646")
    '10.1145/3341301.3359646'
    """
    value = text.strip()
    if value.lower().startswith(("http://", "https://")):
        value = unquote(value)
    doi = normalize_doi(value)
    if doi is None or any(c.isspace() for c in doi):
        return None
    return doi.lower()


def read_dois(args: Iterable[str], files: Iterable[Path] = ()) -> list[str]:
    """The DOIs given as arguments, then those of each file (one a line, ``#`` comments), without repeats."""
    found: dict[str, None] = {}
    for arg in args:
        doi = parse_doi(arg)
        if doi is None:
            raise InputError(f'argument "{arg}"', "is not a DOI", DOI_HINT)
        found.setdefault(doi)
    for path in files:
        found.update(dict.fromkeys(_dois_of_file(path)))
    return list(found)


def read_input(path: Path, shown: str, fix: str) -> str:
    """The text of a UTF-8 input file (a BOM dropped); InputError naming ``shown`` with ``fix`` when unreadable."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        reason = getattr(e, "strerror", None) or e
        raise InputError(shown, f"cannot be read ({reason})", fix) from None


def _dois_of_file(path: Path) -> list[str]:
    shown = display_path(str(path))
    text = read_input(path, shown, "give a UTF-8 text file with one DOI a line")
    out = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        value = _COMMENT.sub("", line).strip()
        if not value:
            continue
        doi = parse_doi(value)
        if doi is None:
            raise InputError(f"{shown}: line {lineno}", f'"{value}" is not a DOI',
                             "write one DOI a line (10.1145/..., doi:... or https://doi.org/...); # starts a comment")
        out.append(doi)
    return out


def file_name(doi: str) -> str:
    """The record file of a DOI: the lower-cased DOI with every byte outside [a-z0-9._-] written %xx,
    plus ``.json``; a name over 200 characters becomes ``sha256-<hex of the DOI>.json``.

    Example:

    >>> file_name("10.1145/3341301.3359646")
    '10.1145%2f3341301.3359646.json'
    """
    key = doi.lower()
    name = "".join(c if c in _SAFE else "".join(f"%{b:02x}" for b in c.encode("utf-8")) for c in key) + ".json"
    if len(name) > MAX_NAME:
        return "sha256-" + hashlib.sha256(key.encode("utf-8")).hexdigest() + ".json"
    return name


def doi_of_file(name: str) -> str | None:
    """The DOI a record file name stands for (the inverse of ``file_name``); None for a hashed name."""
    if not name.endswith(".json") or name.startswith("sha256-"):
        return None
    return unquote(name[: -len(".json")], errors="strict")


def works_url(api_url: str, doi: str, mailto: str | None = None) -> str:
    """``{api_url}/works/{doi}``, every reserved character of the DOI percent-encoded (its slashes kept,
    dot segments escaped), and ``?mailto=`` when a contact is given."""
    segments = (s.replace(".", "%2E") if s in (".", "..") else quote(s, safe="") for s in doi.split("/"))
    query = "?" + urlencode({"mailto": mailto}) if mailto else ""
    return f"{api_url.rstrip('/')}/works/{'/'.join(segments)}{query}"


def user_agent(mailto: str | None) -> str:
    """``crossref-kg/<version> (+https://w3id.org/crossref-kg; mailto:<contact>)``, as Crossref asks."""
    contact = f"; mailto:{mailto}" if mailto else ""
    return f"crossref-kg/{__version__} (+{PROJECT_URL}{contact})"


def check_options(api_url: str, mailto: str | None) -> None:
    """Raise UsageError for an API URL that is not http(s) or a contact that is not an e-mail address."""
    parts = urlsplit(api_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f'--api-url "{api_url}": is not an http(s) URL; give one like {DEFAULT_API_URL}')
    if mailto is not None and not _EMAIL.match(mailto):
        raise UsageError(f'--mailto "{mailto}": is not an e-mail address; give one like you@example.org')


def read_answer(body: bytes) -> tuple[Any, Any, str | None]:
    """A Crossref answer's JSON, its ``message`` (None unless the JSON is an object), and why it is not JSON
    (then both None), else None."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError as e:
        return None, None, f"the answer is not valid JSON ({str(e).split(':')[0]})"
    return doc, doc.get("message") if isinstance(doc, dict) else None, None


def work_problem(body: bytes) -> str | None:
    """Why ``body`` is not a Crossref work response (``{"message": {"DOI": ...}}``), or None when it is one."""
    doc, message, not_json = read_answer(body)
    if not_json:
        return not_json
    if not isinstance(message, dict) or not isinstance(message.get("DOI"), str):
        return "the answer is not a Crossref work record (no message.DOI)"
    if doc.get("message-type", "work") != "work":
        return f'the answer is a Crossref "{doc["message-type"]}", not a work'
    return None


def other_record(body: bytes, doi: str) -> str | None:
    """The DOI of the work record ``body`` (valid by ``work_problem``) when it is not the record of ``doi``:
    neither its DOI (after normalisation) nor one of its ``aliases``; None when it is ``doi``'s record."""
    message = orjson.loads(body)["message"]
    if parse_doi(message["DOI"]) == doi:
        return None
    aliases = message.get("aliases")
    if isinstance(aliases, list) and doi in {parse_doi(a) for a in aliases if isinstance(a, str)}:
        return None
    return message["DOI"]


# ---------------------------------------------------------------- headers


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or an HTTP-date), None when unreadable.

    Example:

    >>> retry_after("2")
    2.0
    """
    if not value:
        return None
    text = value.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def parse_interval(value: str | None) -> float | None:
    """Seconds in an ``X-Rate-Limit-Interval`` value such as ``1s``, ``500ms`` or ``1m``; None when unreadable."""
    m = _INTERVAL.match(value or "")
    if not m or len(m.group(1)) > 12:
        return None
    seconds = float(m.group(1)) * _UNITS[(m.group(2) or "s").lower()]
    return seconds if seconds > 0 else None


# ---------------------------------------------------------------- rate limiter


class RateLimiter:
    """At most ``limit`` requests per ``interval`` seconds, evenly spaced, shared by every thread; a
    server's Retry-After pauses them all, requests already waiting for their turn included. A pause or a
    pace longer than ``MAX_PAUSE`` is refused instead: from then on (until the pause would have ended) no
    request starts, and ``acquire`` says why. Counts the requests that waited, the longest wait, and the
    pauses with their total time."""

    def __init__(self, limit: int = 10, interval: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], object] = time.sleep) -> None:
        self.limit, self.interval, self.source = limit, interval, "default"
        self._clock, self._sleep, self._lock = clock, sleep, threading.Lock()
        self._next = 0.0
        self._paused_until = 0.0
        self._refused: tuple[float, str] | None = None  # (until, why)
        self.waits, self.longest, self.pauses, self.paused = 0, 0.0, 0, 0.0

    def acquire(self) -> str | None:
        """Wait for this request's turn: after any pause, and interval/limit after the previous request.
        Returns why the request may not start when the server asked for a pause or pace that was refused."""
        started = self._clock()
        slot: float | None = None
        while True:
            with self._lock:
                now = self._clock()
                if self._refused is not None and now < self._refused[0]:
                    return self._refused[1]
                if now < self._paused_until:
                    slot, delay = None, self._paused_until - now
                else:
                    if slot is None:
                        slot = max(now, self._next)
                        self._next = slot + self.interval / self.limit
                    delay = slot - now
                    if delay <= 0:
                        if now > started:
                            self.waits += 1
                            self.longest = max(self.longest, now - started)
                        return None
            self._sleep(delay)

    def adopt(self, limit: str | None, interval: str | None) -> str | None:
        """Take the server's ``X-Rate-Limit-Limit`` and ``X-Rate-Limit-Interval`` when both are readable.
        A pace of more than ``MAX_PAUSE`` seconds between requests is refused for the rest of the run;
        returns why, else None."""
        seconds = parse_interval(interval)
        count = int(limit) if limit and limit.strip().isdigit() and len(limit.strip()) < 10 else 0
        if seconds is None or not 0 < count <= 100_000:
            return None
        if seconds / count > MAX_PAUSE:
            plural = "s" if count != 1 else ""
            return self.refuse(float("inf"), f"the server allows {count} request{plural} per {seconds:g} s "
                                             f"(X-Rate-Limit-Limit/-Interval), more than {MAX_PAUSE:g} s between "
                                             "requests; not retried; try again later")
        with self._lock:
            self.limit, self.interval, self.source = count, seconds, "server"
        return None

    def refuse(self, seconds: float, why: str) -> str:
        """No request starts in the next ``seconds``: each fails with ``why`` (returned)."""
        with self._lock:
            until = self._clock() + seconds
            if self._refused is None or until > self._refused[0]:
                self._refused = (until, why)
        return why

    def pause(self, seconds: float) -> None:
        """No request starts in the next ``seconds`` (at most ``MAX_PAUSE``)."""
        with self._lock:
            now = self._clock()
            until = now + min(max(seconds, 0.0), MAX_PAUSE)
            if until > self._paused_until:
                self.pauses += 1
                self.paused += until - max(now, self._paused_until)
                self._paused_until = until


# ---------------------------------------------------------------- client


@dataclass(frozen=True)
class Outcome:
    """What became of one DOI: fetched, cached, missing (404) or failed, and for failures why and what next."""

    doi: str
    status: str
    message: str = ""
    body: bytes | None = field(default=None, repr=False)
    known: bool = False  # missing: known from .missing.tsv, not asked


@dataclass(frozen=True)
class Reply:
    """What ``Client.ask`` got: a usable answer (``ok``, with its body), a status the caller reads (``status``,
    e.g. 404), or why it failed (``problem``, with what the user can do)."""

    ok: bool
    status: int = 0
    body: bytes = field(default=b"", repr=False)
    problem: str = ""


class Client:
    """The one HTTP client of ``/works/{doi}``: polite, rate-limited, retrying, bounded (kg.infra.net: ``timeout``
    seconds for a whole request, at most ``max_bytes`` of answer, redirects only on the API's host, from http
    to https at most); safe to share between threads.

    ``sleep``, ``clock`` and ``rand`` can be replaced in tests; the default sleep ends the request with
    ``FetchStopped`` as soon as ``stop`` is set.
    """

    def __init__(self, api_url: str = DEFAULT_API_URL, mailto: str | None = None, timeout: float = 30.0,
                 retries: int = 5, backoff: float = 1.0, max_backoff: float = 60.0,
                 sleep: Callable[[float], object] | None = None, clock: Callable[[], float] = time.monotonic,
                 rand: Callable[[], float] = random.random, max_bytes: int = net.DEFAULT_MAX_BYTES) -> None:
        check_options(api_url, mailto)
        self.api_url, self.mailto, self.timeout, self.max_bytes = api_url, mailto, timeout, max_bytes
        self.retries, self.backoff, self.max_backoff = retries, backoff, max_backoff
        self.stop = threading.Event()
        self._sleep = sleep or self._nap
        self._clock, self._rand = clock, rand
        self.limiter = RateLimiter(clock=clock, sleep=self._sleep)
        self.user_agent = user_agent(mailto)
        self.retried = 0
        self._lock = threading.Lock()
        self._redirects = net.same_host(api_url)

    def get(self, doi: str) -> Outcome:
        """Ask for one DOI until it is fetched, missing, refused, or the retries are spent."""
        answer = self.ask(works_url(self.api_url, doi, self.mailto), check=work_problem, name=doi,
                          too_big="raise --max-bytes if the record is that large",
                          unreachable="check the network and --api-url", refused="check the DOI and --api-url")
        if answer.status == 404:
            return Outcome(doi, "missing", "not in Crossref (HTTP 404)")
        if not answer.ok:
            return Outcome(doi, "failed", answer.problem)
        other = other_record(answer.body, doi)
        if other is None:
            return Outcome(doi, "fetched", body=answer.body)
        return Outcome(doi, "failed", f'the answer is the record of "{other}", which does not list '
                                      f"{doi} among its aliases; nothing saved; check --api-url")

    def ask(self, url: str, *, check: Callable[[bytes], str | None], headers: dict[str, str] | None = None,
            give_back: tuple[int, ...] = (404,), what: str = "check --api-url", name: str | None = None,
            too_big: str = "lower --rows or raise --max-bytes", unreachable: str | None = None,
            refused: str | None = None) -> Reply:
        """GET ``url`` (a work, a search page, an OpenCitations answer) until a 200 answer passes ``check``, a
        status in ``give_back`` comes, or the retries are spent: wait for a turn, adopt the server's
        ``X-Rate-Limit-*`` headers, pause on ``Retry-After`` (at most ``MAX_PAUSE``), retry 429, 5xx, timeouts and
        answers ``check`` finds unusable (it says why, or None) with exponential backoff and full jitter.

        ``what`` is the advice of a failure; ``too_big``, ``unreachable`` and ``refused`` (a status not retried)
        that of those failures (by default from ``what``); ``name`` the request in FetchStopped (else ``url``).

        Example: ``client.ask("https://api.crossref.org/works?rows=0", check=lambda body: None)``
        """
        sent = {"User-Agent": self.user_agent, "Accept": "application/json", **(headers or {})}
        attempts = self.retries + 1
        problem, next_, backoff = "no attempt", "try again", False
        for attempt in range(attempts):
            if attempt:
                with self._lock:
                    self.retried += 1
                if backoff:
                    self._sleep(self.delay(attempt))
            if self.stop.is_set():
                raise FetchStopped(name or url)
            wait_refused = self.limiter.acquire()
            if wait_refused:
                return Reply(False, problem=wait_refused)
            try:
                answer = net.request(url, timeout=self.timeout, max_bytes=self.max_bytes, headers=sent,
                                     redirects=self._redirects)
            except net.NetError as e:
                if e.kind == "unresolved":
                    raise HostUnresolved(f"{e.what}; stopped at the first such failure; "
                                         f"{unreachable or 'check the network; ' + what}, then run the same command "
                                         "again (what was saved so far is kept)") from None
                if not e.retry:
                    return Reply(False, problem=f"{e.what}; not retried; {too_big if e.kind == 'too-big' else what}")
                problem, backoff = e.what, True
                next_ = {"timeout": "try again later or raise --timeout",
                         "unreachable": unreachable or f"check the network; {what}"}.get(e.kind, "try again later")
                continue
            too_slow = self.limiter.adopt(answer.headers.get("X-Rate-Limit-Limit"),
                                          answer.headers.get("X-Rate-Limit-Interval"))
            if too_slow:
                return Reply(False, problem=too_slow)
            if answer.status == 200:
                bad = check(answer.body)
                if bad is None:
                    return Reply(True, 200, answer.body)
                problem, next_, backoff = bad, f"try again later; if it persists, {what}", True
            elif answer.status in give_back:
                return Reply(False, answer.status, answer.body, f"HTTP {answer.status} {answer.reason}")
            elif answer.status == 429 or answer.status >= 500:
                wait = retry_after(answer.headers.get("Retry-After"))
                if wait is not None and wait > MAX_PAUSE:
                    return Reply(False, problem=self.limiter.refuse(wait, (
                        f"the server asked to wait {wait:,.0f} s (HTTP {answer.status}, Retry-After), more than "
                        f"the {MAX_PAUSE:g} s kg fetch waits; not retried; try again later")))
                if wait is not None:
                    self.limiter.pause(wait)
                problem, next_, backoff = f"HTTP {answer.status}", "try again later", wait is None
            else:
                return Reply(False, answer.status, answer.body,
                             f"HTTP {answer.status} {answer.reason} (not retried); {refused or what}")
        plural = "s" if attempts != 1 else ""
        return Reply(False, problem=f"{problem} after {attempts} attempt{plural}; {next_}")

    def _nap(self, seconds: float) -> None:
        if self.stop.wait(seconds):
            raise FetchStopped("stopped while waiting")

    def delay(self, attempt: int) -> float:
        """Exponential backoff with full jitter: uniform in [0, min(max_backoff, backoff * 2^(attempt-1))]."""
        return self._rand() * min(self.max_backoff, self.backoff * 2 ** (attempt - 1))


# ---------------------------------------------------------------- the folder


class MissingList:
    """DOIs the API answered 404 for, kept as ``.missing.tsv`` in the output folder (DOI, date asked)."""

    HEADER = "# DOIs not in Crossref (HTTP 404), written by kg fetch; 'kg fetch --refresh' asks again\n"

    def __init__(self, folder: Path) -> None:
        self.path = folder / MISSING_FILE
        self.entries = self._read()
        self.changed = False

    def _read(self) -> dict[str, str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as e:
            reason = getattr(e, "strerror", None) or e
            raise InputError(display_path(str(self.path)), f"cannot be read ({reason})",
                             "delete it (it only lists DOIs known to be missing)") from None
        entries = {}
        for line in text.splitlines():
            if line.strip() and not line.startswith("#"):
                doi, _, day = line.partition("\t")
                entries[doi.strip().lower()] = day.strip()
        return entries

    def add(self, doi: str) -> None:
        self.entries[doi] = date.today().isoformat()
        self.changed = True

    def discard(self, doi: str) -> None:
        if self.entries.pop(doi, None) is not None:
            self.changed = True

    def save(self) -> None:
        if not self.changed:
            return
        with _named(self.path.parent), atomic_writer(self.path) as fh:
            fh.write(self.HEADER)
            fh.writelines(f"{doi}\t{day}\n" for doi, day in sorted(self.entries.items()))
        self.changed = False


def write_record(path: Path, body: bytes) -> None:
    """Write a validated (hence UTF-8) response body unchanged, atomically: no partial file, ever."""
    with _named(path.parent):
        faults.reached("fetch")
        with atomic_writer(path) as fh:
            fh.write(body.decode("utf-8"))


@contextmanager
def _named(folder: Path) -> Iterator[None]:
    """A full disk met while writing into ``folder`` (the -o folder) names it, whatever file was being written."""
    try:
        yield
    except OSError as e:
        if e.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG) or e.filename is not None:
            raise
        raise OSError(e.errno, e.strerror, str(folder)) from None


def scan(paths: Iterable[str]) -> tuple[set[str], list[str], list[str]]:
    """The DOIs of the records under ``paths``, the DOIs their references cite that are not among them
    (first-seen order: DOI fields and DOIs in reference text, then the DOIs the build resolves references to
    without one, from a title the tool catalogue or another record knows), and one line per unusable file or
    record. arXiv identifiers are left out: their DOIs are DataCite's, not Crossref's."""
    works: dict[str, Work] = {}
    cited: dict[str, None] = {}
    problems: list[str] = []
    def problem(level: str, line: str) -> None:
        if level == "error":
            problems.append(line)
    for _n, work, _warnings, _raw in each_work(enumerate(iter_records(paths)), problem):
        works.setdefault(work.doi.lower(), work)
        for ref in work.references:
            doi = parse_reference(ref).doi
            if doi and (clean := parse_doi(doi)):
                cited.setdefault(clean)
    ctx = _context()
    resolutions, _infos = resolve_works(works.values(), ctx.minter, ctx.catalogue)
    for (_citing, _index), res in sorted(resolutions.items()):
        if res.method in RESOLVED_BY_TEXT and (token := Minter.doi_of(res.cited)):
            if (clean := parse_doi(unquote(token))) and not clean.startswith("10.48550/arxiv."):
                cited.setdefault(clean)
    return set(works), [d for d in cited if d not in works], problems


@functools.cache
def _context() -> Context:
    """The build's default context (its tool catalogue), loaded once for every level of a walk."""
    return Context.create()


RESOLVED_BY_TEXT = ("title", "title-fuzzy", "url", "title-shared", "unique")  # (no DOI in the reference itself)


# ---------------------------------------------------------------- the walk


@dataclass
class Tally:
    """What every way of ``kg fetch`` counts: works already in ``out_dir`` (``cached``), failed, left out by
    ``--max`` (``over_max``), and the seconds it took."""

    out_dir: Path
    cached: int = 0
    failed: int = 0
    over_max: int = 0
    seconds: float = 0.0


@dataclass
class FetchReport(Tally):
    """What a fetch did: counts by outcome, DOIs left out by ``max_dois``, unusable --cited-by inputs."""

    fetched: int = 0
    missing: int = 0
    known_missing: int = 0
    skipped: list[str] = field(default_factory=list)
    missing_dois: list[str] = field(default_factory=list)  # the DOIs not in Crossref

    def count(self, outcome: Outcome) -> None:
        setattr(self, outcome.status, getattr(self, outcome.status) + 1)
        self.known_missing += outcome.known
        if outcome.status == "missing":
            self.missing_dois.append(outcome.doi)


class _Walk:
    """The state of one fetch: DOIs seen, the folder, the report; outcomes are handled in the caller's thread."""

    def __init__(self, out_dir: Path, client: Client, refresh: bool, max_dois: int,
                 on_outcome: Callable[[Outcome, FetchReport], None] | None) -> None:
        self.out_dir, self.client, self.refresh, self.max_dois = out_dir, client, refresh, max_dois
        self.on_outcome = on_outcome
        self.report = FetchReport(out_dir)
        self.missing = MissingList(out_dir)
        self.seen: set[str] = set()  # DOIs admitted, and the DOIs of the records read
        self.admitted = 0
        self.left_out: set[str] = set()

    def admit(self, dois: Iterable[str]) -> list[str]:
        """The DOIs not seen before, up to ``max_dois`` admitted in all; the others are counted as left out."""
        out = []
        for doi in dois:
            if doi in self.seen or doi in self.left_out:
                continue
            if self.admitted >= self.max_dois:
                self.left_out.add(doi)
                self.report.over_max += 1
                continue
            self.seen.add(doi)
            self.admitted += 1
            out.append(doi)
        return out

    def run_level(self, dois: list[str], pool: ThreadPoolExecutor) -> list[str]:
        """Fetch one level; return the DOIs whose records are now in the folder, in level order."""
        futures: dict[Future[Outcome], str] = {}
        for doi in dois:
            cached = self._from_cache(doi)
            if cached:
                self.done(cached)
            else:
                futures[pool.submit(self._fetch, doi)] = doi
        for future in as_completed(futures):
            self.done(future.result())
        return [d for d in dois if (self.out_dir / file_name(d)).exists()]

    def _from_cache(self, doi: str) -> Outcome | None:
        if self.refresh:
            return None
        if (self.out_dir / file_name(doi)).exists():
            return Outcome(doi, "cached")
        if doi in self.missing.entries:
            return Outcome(doi, "missing", "not in Crossref (known from .missing.tsv)", known=True)
        return None

    def _fetch(self, doi: str) -> Outcome:
        outcome = self.client.get(doi)
        if outcome.status == "fetched" and outcome.body is not None:
            write_record(self.out_dir / file_name(doi), outcome.body)
        return outcome

    def done(self, outcome: Outcome) -> None:
        if outcome.status == "missing" and not outcome.known:
            self.missing.add(outcome.doi)
        elif outcome.status == "fetched":
            self.missing.discard(outcome.doi)
        self.report.count(outcome)
        if self.on_outcome:
            self.on_outcome(outcome, self.report)

    def cited_by(self, dois: list[str]) -> list[str]:
        """The DOIs cited by the records of ``dois`` in the folder."""
        works, cited, _problems = scan(str(self.out_dir / file_name(d)) for d in dois)
        self.seen.update(works)
        return cited


def fetch_works(dois: Iterable[str], out_dir: Path, client: Client, *, cited_by: Iterable[str] = (),
                depth: int = 0, jobs: int = 4, refresh: bool = False, max_dois: int = 10_000,
                on_outcome: Callable[[Outcome, FetchReport], None] | None = None) -> FetchReport:
    """Fetch ``dois`` (hop 0), then breadth-first the DOIs cited by the records under ``cited_by`` (hop 1)
    and by every record fetched or cached, up to ``depth`` hops and ``max_dois`` DOIs in all.

    A DOI whose file is in ``out_dir``, or listed in its ``.missing.tsv``, is not asked again unless
    ``refresh``. ``on_outcome`` is called in this thread after each DOI. On any exception (Ctrl-C
    included) the requests in flight end, nothing partial is left and ``.missing.tsv`` is saved.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"{out_dir}: is a file; give -o a folder for the records")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise KgError(f"{out_dir}: cannot be created ({e.strerror or e}); choose another folder") from None
    started = time.perf_counter()
    walk = _Walk(out_dir, client, refresh, max_dois, on_outcome)
    inputs, carried, walk.report.skipped = scan(cited_by) if cited_by else (set(), [], [])
    walk.seen.update(inputs)
    level = walk.admit(dois)
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="kg-fetch")
    try:
        for hop in range(depth + 1):
            if hop:
                level, carried = walk.admit(carried), []
            have = walk.run_level(level, pool)
            if hop < depth:
                carried = [*carried, *walk.cited_by(have)]
    except BaseException:
        client.stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        walk.missing.save()
    walk.report.seconds = time.perf_counter() - started
    return walk.report

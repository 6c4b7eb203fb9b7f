"""Bounded HTTP for the commands that use the network (``kg fetch`` and ``--endpoint``).

One request is one call of ``request``: a total deadline covers everything from the TCP connect to the last
byte of the body (redirects included), the body is read up to ``max_bytes`` and no further, a body shorter
than its Content-Length is an error, and a redirect is followed only when the caller's policy allows it.
Every failure is a ``NetError`` whose ``what`` is one line for the user.

The deadline is enforced by a timer that shuts the connection's socket down when it passes, so that a
server dripping headers or body a byte at a time cannot hold a request longer than ``timeout`` (socket
timeouts, and the timeouts of urllib3 and httpx, apply to each read). It is built on the standard library's
urllib.request (which honours the http_proxy/https_proxy variables and verifies TLS certificates).
Only name resolution (the system's resolver) is outside the deadline.

Example: ``request("https://api.crossref.org/works/10.1145/3341301.3359646", timeout=30, max_bytes=1 << 26)``
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from urllib.parse import urljoin, urlsplit

from ..errors import UsageError

DEFAULT_MAX_BYTES = 64 * 1024 * 1024  # the largest Crossref records are a few MB; SPARQL answers of ~300k rows
MAX_REDIRECTS = 5
ERROR_BODY = 65536  # of an answer that is not a success, only this much is read (for its first line)
_CHUNK = 65536
_REDIRECTS = (301, 302, 303, 307, 308)

# A redirect policy: (from URL, to URL) -> None to follow it, or why it is not followed.
RedirectPolicy = Callable[[str, str], "str | None"]


class NetError(Exception):
    """A request that gave no usable answer: ``what`` (one line) and its ``kind``: timeout, unreachable,
    broken or truncated (trying again may help: ``retry``), unresolved (the host's name does not resolve: the
    network or the name is wrong), too-big or redirect (it cannot)."""

    RETRY = frozenset({"timeout", "unreachable", "broken", "truncated"})

    def __init__(self, what: str, kind: str, reason: str | None = None) -> None:
        super().__init__(what)
        self.what, self.kind, self.retry = what, kind, kind in self.RETRY
        self.reason = reason or what  # for "unreachable": the system's reason alone


@dataclass(frozen=True)
class Response:
    status: int
    reason: str
    headers: Message
    body: bytes
    url: str  # after the redirects followed


def check_url(option: str, url: str) -> None:
    """UsageError unless ``url`` is an http:// or https:// URL with a host."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(f'{option} "{url}": is not an http:// or https:// URL; give one like '
                         "http://127.0.0.1:7878/query")


def same_host(origin: str) -> RedirectPolicy:
    """Follow redirects that stay on ``origin``'s host and port, or go from http to https on its host."""
    start = urlsplit(origin)

    def policy(_from: str, to: str) -> str | None:
        new = urlsplit(to)
        if new.scheme not in ("http", "https"):
            return "not an http(s) URL"
        if new.hostname != start.hostname:
            return f"another host than {start.netloc}"
        if (start.scheme, new.scheme) == ("https", "http"):
            return "from https to http"
        if new.scheme == start.scheme and _port(new) == _port(start):
            return None
        if new.scheme != start.scheme and _port(new) in (443, _port(start)):
            return None  # http to https, on the default port or the same one
        return f"another host than {start.netloc}"

    return policy


def _port(parts: object) -> int:
    port = parts.port  # type: ignore[attr-defined]
    return port if port is not None else (443 if parts.scheme == "https" else 80)  # type: ignore[attr-defined]


class _Deadline:
    """Shuts down every socket of a request when ``seconds`` have passed since it started."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.fired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        return max(self.end - time.monotonic(), 0.001)

    def watch(self, sock: socket.socket) -> None:
        # A duplicate of the descriptor: shutting it down ends reads on the connection whatever object wraps
        # it (the TLS socket replaces the plain one after the handshake).
        dup = sock.dup()
        with self._lock:
            self._socks.append(dup)
            if self.fired:
                _shutdown(dup)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            for s in self._socks:
                _shutdown(s)

    def close(self) -> None:
        self._timer.cancel()
        with self._lock:
            for s in self._socks:
                s.close()
            self._socks.clear()


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _connection_class(base: type[http.client.HTTPConnection], deadline: _Deadline) -> type[http.client.HTTPConnection]:
    class Connection(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)

            def create(address: tuple[str, int], _timeout: object = None, source: object = None) -> socket.socket:
                sock = socket.create_connection(address, deadline.left(), source)  # type: ignore[arg-type]
                deadline.watch(sock)
                return sock

            self._create_connection = create
            self.timeout = deadline.left()

    return Connection


class _HTTP(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_connection_class(http.client.HTTPConnection, self.deadline), req)


class _HTTPS(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_connection_class(http.client.HTTPSConnection, self.deadline), req,
                            context=self._context)  # type: ignore[attr-defined]  # set by HTTPSHandler.__init__; typeshed omits it


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """Only http and https (through the environment's proxies); every status comes back as an answer."""
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.UnknownHandler(), _HTTP(deadline),
                    _HTTPS(deadline)):
        opener.add_handler(handler)
    return opener


def request(url: str, *, timeout: float, max_bytes: int, method: str = "GET", data: bytes | None = None,
            headers: dict[str, str] | None = None, redirects: RedirectPolicy | None = None) -> Response:
    """One HTTP request within ``timeout`` seconds in all, its answer's body at most ``max_bytes``.

    Redirects (301, 302, 303, 307, 308 with a Location) are followed, up to 5, when ``redirects`` allows
    each; without a policy a redirect comes back as the answer. Raises NetError.
    """
    deadline = _Deadline(timeout)
    try:
        for _hop in range(MAX_REDIRECTS + 1):
            answer = _one(url, method, data, headers or {}, deadline, max_bytes)
            location = answer.headers.get("Location")
            if redirects is None or answer.status not in _REDIRECTS or not location:
                return answer
            target = urljoin(url, location.strip())
            why = redirects(url, target)
            if why is not None:
                raise NetError(f"redirect to {target} not followed ({why})", "redirect")
            url = target
        raise NetError(f"more than {MAX_REDIRECTS} redirects", "redirect")
    finally:
        deadline.close()


def _one(url: str, method: str, data: bytes | None, headers: dict[str, str], deadline: _Deadline,
         max_bytes: int) -> Response:
    check_url("URL", url)
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    timed_out = NetError(f"no complete answer within {deadline.seconds:g} s", "timeout")
    try:
        with _opener(deadline).open(req, timeout=deadline.left()) as resp:
            ok = 200 <= resp.status < 300
            body = _read(resp, max_bytes if ok else min(max_bytes, ERROR_BODY), strict=ok)
            if deadline.fired:
                raise timed_out
            return Response(resp.status, resp.reason, resp.headers, body, url)
    except NetError:
        if deadline.fired:
            raise timed_out from None
        raise
    except (TimeoutError, socket.timeout):
        raise timed_out from None
    except http.client.IncompleteRead as e:
        if deadline.fired:
            raise timed_out from None
        raise NetError(f"truncated answer ({len(e.partial)} bytes, then the connection closed)", "truncated") from None
    except urllib.error.URLError as e:
        if deadline.fired or isinstance(e.reason, (TimeoutError, socket.timeout)):
            raise timed_out from None
        reason = e.reason.strerror if isinstance(e.reason, OSError) and e.reason.strerror else e.reason
        if isinstance(e.reason, socket.gaierror):  # (name resolution: every request to the host fails alike)
            host = urlsplit(url).hostname or url
            raise NetError(f"cannot reach {_origin(url)}: the name {host} does not resolve ({reason})", "unresolved",
                           str(reason)) from None
        raise NetError(f"cannot reach {_origin(url)} ({reason})", "unreachable", str(reason)) from None
    except (http.client.HTTPException, OSError, ValueError) as e:
        if deadline.fired:
            raise timed_out from None
        detail = str(e).splitlines()[0] if str(e) else ""
        raise NetError(f"the connection broke ({type(e).__name__}{': ' + detail if detail else ''})",
                       "broken") from None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _read(resp: http.client.HTTPResponse, limit: int, strict: bool) -> bytes:
    """The body, at most ``limit`` bytes: beyond it a NetError when ``strict`` (a success), else cut."""
    declared = (resp.headers.get("Content-Length") or "").strip()
    expected = int(declared) if declared.isdigit() and len(declared) < 19 else None
    if strict and expected is not None and expected > limit:
        raise NetError(f"the answer is {expected:,} bytes, more than --max-bytes {limit:,}", "too-big")
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = resp.read1(min(_CHUNK, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        if strict:
            raise NetError(f"the answer is more than --max-bytes {limit:,} bytes", "too-big")
        return b"".join(chunks)[:limit]
    if expected is not None and size < expected:
        raise NetError(f"truncated answer ({size} of {expected} bytes)", "truncated")
    return b"".join(chunks)

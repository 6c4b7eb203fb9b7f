"""One polite request for a JSON answer through a ``kg.fetch.Client``: its rate limiter, backoff and bounds.

``Client.get`` asks for ``/works/{doi}``; ``ask`` is the same loop for any URL of the same service (a search
page, an OpenCitations answer): it waits for its turn, adopts the server's ``X-Rate-Limit-*`` headers, pauses on
``Retry-After`` (at most ``MAX_PAUSE``), retries 429, 5xx, timeouts and broken answers with exponential backoff
and full jitter, and reads at most ``max_bytes``. ``check`` says why a 200 answer is not usable (then it is
retried), or None.

Example: ``ask(client, "https://api.crossref.org/works?rows=0", check=lambda body: None)``
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import FetchStopped
from ..fetch import MAX_PAUSE, Client, retry_after
from ..infra import net


@dataclass(frozen=True)
class Reply:
    """A usable answer (``ok``, with its body), a status the caller reads (``status``, e.g. 404), or why it failed."""

    ok: bool
    status: int = 0
    body: bytes = field(default=b"", repr=False)
    problem: str = ""


def ask(client: Client, url: str, *, check: Callable[[bytes], str | None], headers: dict[str, str] | None = None,
        give_back: tuple[int, ...] = (404,), what: str = "check --api-url") -> Reply:
    """GET ``url`` until a 200 answer passes ``check``, a status in ``give_back`` comes, or the retries are spent."""
    sent = {"User-Agent": client.user_agent, "Accept": "application/json", **(headers or {})}
    attempts = client.retries + 1
    problem, next_, backoff = "no attempt", "try again", False
    for attempt in range(attempts):
        if attempt:
            with client._lock:
                client.retried += 1
            if backoff:
                client._sleep(client.delay(attempt))
        if client.stop.is_set():
            raise FetchStopped(url)
        refused = client.limiter.acquire()
        if refused:
            return Reply(False, problem=refused)
        try:
            answer = net.request(url, timeout=client.timeout, max_bytes=client.max_bytes, headers=sent,
                                 redirects=client._redirects)
        except net.NetError as e:
            if not e.retry:
                fix = "lower --rows or raise --max-bytes" if e.kind == "too-big" else what
                return Reply(False, problem=f"{e.what}; not retried; {fix}")
            problem, backoff = e.what, True
            next_ = {"timeout": "try again later or raise --timeout",
                     "unreachable": f"check the network; {what}"}.get(e.kind, "try again later")
            continue
        too_slow = client.limiter.adopt(answer.headers.get("X-Rate-Limit-Limit"),
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
                return Reply(False, problem=client.limiter.refuse(wait, (
                    f"the server asked to wait {wait:,.0f} s (HTTP {answer.status}, Retry-After), more than the "
                    f"{MAX_PAUSE:g} s kg fetch waits; not retried; try again later")))
            if wait is not None:
                client.limiter.pause(wait)
            problem, next_, backoff = f"HTTP {answer.status}", "try again later", wait is None
        else:
            return Reply(False, answer.status, answer.body,
                          f"HTTP {answer.status} {answer.reason} (not retried); {what}")
    plural = "s" if attempts != 1 else ""
    return Reply(False, problem=f"{problem} after {attempts} attempt{plural}; {next_}")

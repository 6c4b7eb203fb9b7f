"""A function run in a forked process while the caller goes on: the child inherits the arguments (nothing is
pickled on the way in, so a list of a million lines costs nothing to hand over) and sends back the result.

The streaming build validates the sample this way while it merges the graph (with workers only: the merge
keeps about one core and a half busy and waits on the disk at large sizes, validation fills the rest).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .errors import KgError

T = TypeVar("T")
_TASK: tuple[Callable[..., Any], tuple[Any, ...], Any] | None = None  # what the child inherits


def _child() -> None:
    fn, args, send = _TASK  # type: ignore[misc]
    # a cancelled child unwinds (its own pools end their workers on the way out) instead of leaving them behind
    signal.signal(signal.SIGTERM, lambda _sig, _frame: sys.exit(1))
    try:
        message: tuple[str, Any] = ("ok", fn(*args))
    except BaseException as e:  # noqa: BLE001 - everything goes back to the parent, which raises it
        message = ("error", e)
        try:
            pickle.loads(pickle.dumps(e))
        except Exception:  # noqa: BLE001 - an error that does not survive pickling goes back as its text
            message = ("error", RuntimeError("".join(traceback.format_exception(e)).strip()))
    send.send(message)
    send.close()


class Forked(Generic[T]):
    """``fn(*args)`` in a forked child, started now; ``result()`` waits for it (raising what it raised),
    ``cancel()`` ends it. Use it as a context manager to cancel whatever was not waited for."""

    def __init__(self, fn: Callable[..., T], *args: Any) -> None:
        global _TASK
        ctx = mp.get_context("fork")
        self._recv, send = ctx.Pipe(duplex=False)
        _TASK = (fn, args, send)
        try:
            self._proc = ctx.Process(target=_child)
            self._proc.start()
        finally:
            _TASK = None
            send.close()

    def result(self) -> T:
        try:
            status, value = self._recv.recv()
        except EOFError:
            self._proc.join()
            raise KgError(f"a worker process ended without an answer (exit code {self._proc.exitcode}); "
                          "check the free memory and run the command again") from None
        finally:
            self._recv.close()
        self._proc.join()
        if status == "error":
            raise value
        return value

    def cancel(self) -> None:
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()
        self._recv.close()

    def __enter__(self) -> Forked[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


def forking_works() -> bool:
    """Whether this system can fork (POSIX)."""
    return hasattr(os, "fork") and "fork" in mp.get_all_start_methods()

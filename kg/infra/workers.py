"""A function run in a forked process while the caller goes on: the child inherits the arguments (nothing is
pickled on the way in) and sends back the result, or the error as it was raised.

The streaming build validates the sample this way while it merges the graph (with workers only: the merge
keeps about one core and a half busy and waits on the disk at large sizes, validation fills the rest). It
hands the lines over in a file and lets go of them: objects both processes hold are copied page by page as
either touches them.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from ..errors import KgError

T = TypeVar("T")
A = TypeVar("A")
_TASK: tuple[Callable[..., Any], tuple[Any, ...], Any] | None = None  # what the child inherits


def _child() -> None:
    fn, args, send = _TASK  # type: ignore[misc]
    # a cancelled child unwinds (its own pools end their workers on the way out) instead of leaving them behind;
    # so does one whose parent died (its workers, having it as their parent, end with it anyway)
    signal.signal(signal.SIGTERM, lambda _sig, _frame: sys.exit(1))
    die_with_parent(signal.SIGTERM)
    try:
        data = pickle.dumps(("ok", fn(*args)))
    except (KeyboardInterrupt, SystemExit):
        raise SystemExit(1) from None  # (cancelled or interrupted: nobody waits for an answer; no traceback)
    except BaseException as e:  # noqa: BLE001 - everything else goes back to the parent, which raises it
        data = _error(e)
    send.send_bytes(data)
    send.close()


def _error(e: BaseException) -> bytes:
    """The pickled error (the result's own pickling error included), or a RuntimeError with its traceback when
    it does not survive pickling."""
    try:
        data = pickle.dumps(("error", e))
        pickle.loads(data)
        return data
    except Exception:  # noqa: BLE001
        return pickle.dumps(("error", RuntimeError("".join(traceback.format_exception(e)).strip())))


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
            status, value = pickle.loads(self._recv.recv_bytes())
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


def quiet_worker(*_args: object) -> None:
    """Initializer of worker processes: Ctrl-C is for their parent, which ends them, so that an interrupted
    command prints one line, not a traceback per worker; and the worker ends when its parent dies, however
    it dies (``die_with_parent``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def run_shards(fn: Callable[[A], T], tasks: Iterable[A], jobs: int,
               initializer: Callable[[], None] = quiet_worker) -> list[T]:
    """``fn`` of each task, in order: here, or with ``jobs`` > 1 in a pool of forked workers started with
    ``initializer``, which take the tasks as they are made. The parent's objects are frozen meanwhile, so that the
    workers leave them alone (no copy-on-write by the collector)."""
    if jobs <= 1:
        return [fn(task) for task in tasks]
    import gc
    gc.freeze()
    try:
        with mp.get_context("fork").Pool(jobs, initializer=initializer) as pool:
            return list(pool.imap(fn, tasks))
    finally:
        gc.unfreeze()


PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Have the system send ``sig`` to this process when its parent dies (Linux: prctl PR_SET_PDEATHSIG), and
    end now if the parent is already gone (it died before the call). Elsewhere, nothing: the pools' own
    watch of their parent remains."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
            return
    except (OSError, AttributeError):
        return
    parent = mp.parent_process()
    if parent is not None and os.getppid() != parent.pid:
        os._exit(1)


def forking_works() -> bool:
    """Whether this system can fork (POSIX)."""
    return hasattr(os, "fork") and "fork" in mp.get_all_start_methods()

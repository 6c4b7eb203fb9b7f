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
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from ..errors import KgError

T = TypeVar("T")
A = TypeVar("A")
_TASK: tuple[Callable[..., Any], tuple[Any, ...], Any, bool] | None = None  # what the child inherits
CANCEL_GRACE = 3.0  # seconds a cancelled child has to end before it is killed


def _child() -> None:
    fn, args, send, reports = _TASK  # type: ignore[misc]
    # Ctrl-C is for the parent, which cancels the child (SIGTERM); a cancelled child, or one whose parent died,
    # ends its own workers and exits at once, without unwinding: a pool's terminate() waits on its threads and
    # locks, which the interrupt may have left waiting forever
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _end_now)
    die_with_parent(signal.SIGTERM)
    try:
        if reports:  # the child's reports go back as they come; the parent reads them in poll() and result()
            data = pickle.dumps(("ok", fn(*args, on_progress=lambda *a: send.send_bytes(pickle.dumps(("report", a))))))
        else:
            data = pickle.dumps(("ok", fn(*args)))
    except (KeyboardInterrupt, SystemExit):
        _end_now()  # (cancelled or interrupted: nobody waits for an answer; no traceback)
    except BaseException as e:  # noqa: BLE001 - everything else goes back to the parent, which raises it
        data = _error(e)
    send.send_bytes(data)
    send.close()


def _end_now(*_signal: object) -> None:
    """End the child now, and the processes it started (a pool's workers) with it."""
    for pid in _children_of(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    os._exit(1)


def _children_of(pid: int) -> list[int]:
    """The running processes that ``pid`` started (Linux: /proc; elsewhere those multiprocessing knows of, when
    ``pid`` is this process)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return [p.pid for p in mp.active_children() if p.pid is not None] if pid == os.getpid() else []
    for tid in tasks:  # (each thread's own children: a pool may start workers from one of its threads)
        try:
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as fh:
                found.extend(int(c) for c in fh.read().split())
        except OSError:
            continue
    return found


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
    ``cancel()`` ends it. Use it as a context manager to cancel whatever was not waited for. With ``reports``,
    ``fn`` is also given ``on_progress``: what it reports through it reaches the parent's ``poll()`` and
    ``result(on_progress)``, in order."""

    def __init__(self, fn: Callable[..., T], *args: Any, reports: bool = False) -> None:
        global _TASK
        ctx = mp.get_context("fork")
        self._recv, send = ctx.Pipe(duplex=False)
        self._answer: bytes | None = None
        _TASK = (fn, args, send, reports)
        self._proc = ctx.Process(target=_child)
        try:
            self._proc.start()
        except BaseException:  # (Ctrl-C as it starts: nobody would cancel it)
            if self._proc.pid is not None:
                self.cancel()
            raise
        finally:
            _TASK = None
            send.close()

    def poll(self) -> list[tuple[Any, ...]]:
        """The reports the child sent so far (without waiting); they are not given again to ``result``."""
        got = []
        while self._answer is None and not self._recv.closed and self._recv.poll():
            try:
                data = self._recv.recv_bytes()
            except EOFError:
                break
            status, value = pickle.loads(data)
            if status != "report":
                self._answer = data
                break
            got.append(value)
        return got

    def result(self, on_progress: Callable[..., None] | None = None) -> T:
        """Wait for the answer; the reports that come before it go to ``on_progress``."""
        try:
            while True:
                data = self._answer if self._answer is not None else self._recv.recv_bytes()
                status, value = pickle.loads(data)
                if status != "report":
                    break
                if on_progress is not None:
                    on_progress(*value)
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
        """End the child and the processes it started: SIGTERM, which it answers by ending them and itself; if
        it has not ended after ``CANCEL_GRACE`` seconds (its main thread can sleep through a signal that another
        of its threads took), SIGKILL to them and to it."""
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(CANCEL_GRACE)
            if self._proc.is_alive() and self._proc.pid is not None:
                for pid in _children_of(self._proc.pid):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                self._proc.kill()
        self._proc.join()
        self._recv.close()

    def __enter__(self) -> Forked[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


def quiet_worker(*_args: object) -> None:
    """Initializer of worker processes: Ctrl-C is for their parent, which ends them, so that an interrupted
    command prints one line, not a traceback per worker; and the worker ends when its parent dies, however
    it dies (``die_with_parent``). SIGTERM (a pool's terminate()) ends it at once, whatever handler its parent
    had: a forked validator's (``_end_now``), inherited, would be a Python handler, and one that arrives before
    the new process has set up its signal handling is dropped, leaving a worker the pool waits for forever
    (``run_shards`` forks its workers with SIGTERM blocked and unblocks it after this, ``_unblocking``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()


def _unblocking(initializer: Callable[[], None]) -> None:
    """A pool worker's start: its ``initializer``, then SIGTERM unblocked (``_term_blocked``)."""
    initializer()
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


@contextmanager
def _term_blocked() -> Iterator[None]:
    """SIGTERM held back in this thread meanwhile (the processes and threads it starts inherit that): a signal
    that comes is delivered when the block ends, or, in a worker, when ``_unblocking`` unblocks it."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def run_shards(fn: Callable[[A], T], tasks: Iterable[A], jobs: int,
               initializer: Callable[[], None] = quiet_worker,
               on_done: Callable[[int], None] | None = None) -> list[T]:
    """``fn`` of each task, in order: here, or with ``jobs`` > 1 in a pool of forked workers started with
    ``initializer``, which take the tasks as they are made. The parent's objects are frozen meanwhile, so that the
    workers leave them alone (no copy-on-write by the collector). ``on_done(n)`` is told each time the first
    ``n`` answers are in."""
    if jobs <= 1:
        return _counted((fn(task) for task in tasks), on_done)
    import gc
    gc.freeze()
    previous = threading.excepthook
    threading.excepthook = _without_the_interrupt_race(previous)
    try:
        with _term_blocked():  # (see quiet_worker)
            pool = mp.get_context("fork").Pool(jobs, initializer=_unblocking, initargs=(initializer,))
        with pool:
            return _counted(pool.imap(fn, tasks), on_done)
    finally:
        threading.excepthook = previous
        gc.unfreeze()


def _without_the_interrupt_race(previous: Callable[[Any], object]) -> Callable[[Any], object]:
    """A ``threading.excepthook`` that drops the one error Ctrl-C can leave in a pool's result thread and passes
    every other on: KeyboardInterrupt raised in the caller while it waits on the pool's condition can leave that
    lock released under the thread that holds it (CPython's ``with`` is not safe against asynchronous
    exceptions), whose release then fails with "release unlocked lock" while the pool is being terminated; the
    interrupted command says so in its one line."""

    def hook(args: Any) -> object:
        if args.exc_type is RuntimeError and str(args.exc_value) == "release unlocked lock" and any(
                frame.f_code.co_filename.endswith(os.path.join("multiprocessing", "pool.py"))
                for frame, _line in traceback.walk_tb(args.exc_traceback)):
            return None
        return previous(args)

    return hook


def _counted(answers: Iterable[T], on_done: Callable[[int], None] | None) -> list[T]:
    out = []
    for answer in answers:
        out.append(answer)
        if on_done is not None:
            on_done(len(out))
    return out


def chunks(items: Iterable[A], size: int) -> Iterator[list[A]]:
    """The items in lists of ``size`` (the last maybe shorter), made as they are taken: the tasks of a pool.

    >>> list(chunks(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    chunk: list[A] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


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


def give_back_memory() -> None:
    """Hand the memory that native code freed back to the system (glibc's ``malloc_trim(0)``): the C allocator
    keeps freed blocks inside its heaps, so what an engine freed (the store's caches and readers once it is
    closed) still counts in the process's resident memory until a later phase happens to reuse it. Elsewhere
    (another C library, another system), nothing."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # (not glibc: musl has no malloc_trim)
        return


def forking_works() -> bool:
    """Whether this system can fork (POSIX)."""
    return hasattr(os, "fork") and "fork" in mp.get_all_start_methods()


def default_jobs() -> int:
    """The available cores (the scheduler's affinity where the OS tells it): the default number of workers."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)

"""kg.infra.workers: a function in a forked child that inherits its arguments; its result, its errors as they were
raised, and a cancel that ends the child and the processes it started."""

from __future__ import annotations

import os
import pickle
import platform
import signal
import subprocess
import sys
import threading
import time
from multiprocessing import get_context
from pathlib import Path

import pytest

from kg.errors import InputError, KgError
from kg.infra import workers
from kg.infra.workers import Forked


def _total(lines: list[str], extra: int) -> int:
    return sum(map(len, lines)) + extra


def _fail() -> None:
    raise InputError("shapes/x.ttl", "is not valid Turtle (line 3)", "fix the shapes file")


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:
        super().__init__(f"{a}+{b}")


def _fail_oddly() -> None:
    raise _Unpicklable(1, 2)


def _unpicklable_result() -> object:
    return lambda: None


def _sleep_in_a_pool(pids: Path) -> None:
    with get_context("fork").Pool(2) as pool:
        pids.write_text(" ".join(str(p.pid) for p in pool._pool), encoding="utf-8")
        pool.apply(time.sleep, (60,))


def _deaf_in_a_pool(pids: Path) -> None:
    # the hang of an interrupted build: the child's main thread asleep in a pool's wait while its signals are
    # taken by another of its threads (here, SIGTERM is held in the main thread, so a pool thread takes it)
    with get_context("fork").Pool(2) as pool:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        pids.write_text(" ".join(str(p.pid) for p in pool._pool), encoding="utf-8")
        pool.apply(time.sleep, (600,))


def _exit_now() -> None:
    os._exit(7)


def test_the_child_gets_the_arguments_and_gives_back_the_result() -> None:
    lines = [f"line {i}\n" for i in range(200_000)]
    with Forked(_total, lines, 5) as job:
        assert job.result() == sum(map(len, lines)) + 5


def test_an_error_comes_back_as_it_was_raised() -> None:
    with Forked(_fail) as job, pytest.raises(InputError) as e:
        job.result()
    assert str(e.value) == "shapes/x.ttl: is not valid Turtle (line 3); fix the shapes file"
    assert (e.value.where, e.value.fix) == ("shapes/x.ttl", "fix the shapes file")


def test_an_error_that_cannot_be_pickled_comes_back_as_its_traceback() -> None:
    with Forked(_fail_oddly) as job, pytest.raises(RuntimeError, match=r"_Unpicklable: 1\+2"):
        job.result()


def test_a_result_that_cannot_be_pickled_comes_back_as_an_error() -> None:
    with Forked(_unpicklable_result) as job, pytest.raises((AttributeError, pickle.PicklingError), match="pickle"):
        job.result()


def test_a_child_that_dies_is_a_one_line_error() -> None:
    with Forked(_exit_now) as job, pytest.raises(KgError, match=r"ended without an answer \(exit code 7\)"):
        job.result()


def _pids_written(pids: Path) -> list[int]:
    """The process ids the child writes into ``pids`` once its pool's workers run (waiting up to 30 s)."""
    deadline = time.monotonic() + 30
    while not (pids.exists() and pids.read_text(encoding="utf-8")) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [int(p) for p in pids.read_text(encoding="utf-8").split()]


def test_cancel_ends_the_child_and_the_workers_it_started(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    job = Forked(_sleep_in_a_pool, pids)
    workers = _pids_written(pids)
    assert len(workers) == 2
    job.cancel()
    deadline = time.monotonic() + 30
    while any(_running(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(p) for p in workers)


def test_cancel_ends_a_child_that_sleeps_through_its_signal(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    job = Forked(_deaf_in_a_pool, pids)
    procs = _pids_written(pids)
    cancelled = threading.Thread(target=job.cancel, daemon=True)
    cancelled.start()
    cancelled.join(60)  # (the child would wait for its worker's 600 s)
    assert not cancelled.is_alive(), "cancel() waited for a child that slept through SIGTERM"
    assert not _running(job._proc.pid or 0)
    deadline = time.monotonic() + 30
    while any(_running(p) for p in procs) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(p) for p in procs)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"  # (a zombie has ended)
    except FileNotFoundError:
        return False


def test_a_pools_interrupt_race_is_dropped_and_every_other_thread_error_shown() -> None:
    # Ctrl-C in the caller waiting on a pool can leave the pool's result thread failing "release unlocked lock"
    # while the pool is terminated (seen once in CI as a traceback above the one-line error); run_shards' hook
    # drops that error raised in multiprocessing/pool.py, and nothing else
    shown: list[str] = []
    hook = workers._without_the_interrupt_race(lambda args: shown.append(f"{args.exc_value}"))
    space: dict = {}
    exec(compile("def fail(message):\n    raise RuntimeError(message)\n",
                 os.path.join("lib", "multiprocessing", "pool.py"), "exec"), space)

    def fail_here(message: str) -> None:
        raise RuntimeError(message)

    before = threading.excepthook
    threading.excepthook = hook
    try:
        for target, message in ((space["fail"], "release unlocked lock"), (space["fail"], "another error"),
                                (fail_here, "release unlocked lock")):
            thread = threading.Thread(target=target, args=(message,))
            thread.start()
            thread.join()
    finally:
        threading.excepthook = before
    assert shown == ["another error", "release unlocked lock"]


def _signals_of_a_worker(_task: int) -> tuple[object, bool]:
    return signal.getsignal(signal.SIGTERM), signal.SIGTERM in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def _pool_workers_signals() -> list[tuple[object, bool]]:
    return workers.run_shards(_signals_of_a_worker, range(4), 2)


def test_pool_workers_of_the_forked_validator_end_on_sigterm_whenever_it_comes() -> None:
    """The forked validator's workers do not inherit its Python SIGTERM handler (a signal that reaches a new
    process before Python has set up its signal handling would be dropped, and a pool's terminate() would wait on
    that worker forever, as a CI run once did): they have the default action, SIGTERM unblocked, and the parent's
    mask is as it was."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with Forked(_pool_workers_signals) as child:
        seen = child.result()
    assert seen == [(signal.SIG_DFL, False)] * 4
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before


_HELD_AND_FREED = """
import ctypes
from kg.infra.workers import give_back_memory
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
def rss():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS")) // 1024
blocks = [libc.malloc(1024) for _ in range(200_000)]
last = libc.malloc(1024)  # (kept: the freed blocks lie below it, not at the top the allocator trims by itself)
for b in blocks:
    libc.free(b)
before = rss()
give_back_memory()
print(before, rss())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_give_back_memory_returns_what_native_code_freed_to_the_system() -> None:
    # 200 MB of small native blocks freed under one still held: they stay resident until given back
    out = subprocess.run([sys.executable, "-c", _HELD_AND_FREED], capture_output=True, text=True, check=True)
    before, after = map(int, out.stdout.split())
    assert before - after > 150, (before, after)

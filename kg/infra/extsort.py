"""External sorting of text lines: sorted runs on disk, merged (and deduplicated) at the end.

Lines are compared as Python strings (code-point order), so a merge of runs gives exactly what
``sorted(set(lines))`` gives in memory, whatever the number and size of the runs. Runs are UTF-8, whose
byte order is code-point order, and hold N-Quads lines, none of which is a proper prefix of another (so
comparing lines with or without their line break is the same), so the system's ``sort -m -u`` in the C
locale merges them to the same bytes. It does so in C, in a process of its own, and is used wherever it
is installed (with ``EXTERNAL`` off, or no ``sort`` on the PATH, the merge runs in Python).
"""

from __future__ import annotations

import fcntl
import heapq
import os
import resource
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from functools import lru_cache
from pathlib import Path
from typing import AnyStr

from ..errors import KgError

MAX_FAN_IN = 1000  # runs merged at once at most (fewer where open files are limited: ``fan_in``); more in rounds
BUFFER = 1 << 16
PIPE_BUFFER = 1 << 20
EXTERNAL = True  # merge with the system's sort when there is one (tests pass external=False to compare)


def write_run(lines: Iterable[str], path: Path) -> Path:
    """Sort ``lines`` (unique) into a run file."""
    with open(path, "w", encoding="utf-8", newline="\n", buffering=BUFFER) as fh:
        fh.writelines(sorted(set(lines)))
    return path


def _read(path: Path, stack: ExitStack) -> Iterator[bytes]:
    return iter(stack.enter_context(open(path, "rb", buffering=BUFFER)))


def unique(lines: Iterable[AnyStr]) -> Iterator[AnyStr]:
    """Drop consecutive duplicates of sorted lines (text or bytes)."""
    last: AnyStr | None = None
    for line in lines:
        if line != last:
            yield line
            last = line


@lru_cache(maxsize=1)
def _sort_program() -> tuple[str, bool] | None:
    """The system's sort and whether it is GNU's (which takes --batch-size), or None."""
    exe = shutil.which("sort")
    if exe is None:
        return None
    try:
        version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return exe, "GNU" in version


def fan_in(most: int = MAX_FAN_IN) -> int:
    """Runs to merge at once: ``most``, or half the open-file limit where that is lower."""
    try:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (OSError, ValueError):
        soft = resource.RLIM_INFINITY
    return most if soft == resource.RLIM_INFINITY else max(2, min(most, soft // 2 - 16))


def _sort_command(runs: list[Path], scratch: Path, out: Path | None, most: int, external: bool) -> list[str] | None:
    program = _sort_program() if external else None
    if program is None:
        return None
    exe, gnu = program
    cmd = [exe, "-m", "-u", "-T", str(scratch)]
    if gnu:
        cmd.append(f"--batch-size={max(2, min(len(runs), fan_in(most)))}")
    if out is not None:
        cmd += ["-o", str(out)]
    return cmd + ["--", *map(str, runs)]


def _sort_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANG"}
    env["LC_ALL"] = "C"  # compare bytes
    return env


def _failed(proc_stderr: bytes, where: Path) -> KgError:
    first = proc_stderr.decode("utf-8", "replace").strip().splitlines()
    return KgError(f"{where}: merging the sorted runs failed ({first[0] if first else 'sort exited with an error'});"
                   " check the free space there and run the build again")


def merge_into(runs: list[Path], out: Path, most: int = MAX_FAN_IN, external: bool = EXTERNAL) -> Path:
    """Merge sorted runs into one run file ``out`` (sorted, unique) and delete them (``most`` runs at once at
    most; ``external``: with the system's sort when there is one)."""
    cmd = _sort_command(runs, out.parent, out, most, external)
    if cmd is not None:
        proc = subprocess.run(cmd, env=_sort_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            raise _failed(proc.stderr, out.parent)
    else:
        with ExitStack() as stack, open(out, "wb", buffering=BUFFER) as fh:
            fh.writelines(unique(heapq.merge(*(_read(r, stack) for r in runs))))
    for r in runs:
        os.unlink(r)
    return out


def _sort_output(cmd: list[str], scratch: Path, size: int) -> Iterator[bytes]:
    """The output of a merging sort, in blocks of whole lines of about ``size`` bytes; a failing sort raises
    a one-line error, and a consumer that stops early stops the sort."""
    with subprocess.Popen(cmd, env=_sort_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        _widen(proc.stdout.fileno(), size)
        carry = b""
        try:
            while chunk := proc.stdout.read(size):
                chunk = carry + chunk
                cut = chunk.rfind(b"\n") + 1
                if cut:
                    yield chunk[:cut]
                carry = chunk[cut:]
        except GeneratorExit:
            proc.kill()
            raise
        err = proc.stderr.read()
        if proc.wait() != 0:
            raise _failed(err, scratch)
        if carry:  # (sort ends its output with a line break; this is for the one that would not)
            yield carry + b"\n"


def _widen(fd: int, size: int) -> None:
    """Ask for a pipe buffer of ``size`` bytes where the system allows it (Linux; the default of 64 KiB makes
    the sort and the reader take turns many times per megabyte)."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
    except (AttributeError, OSError):
        pass  # (not Linux, or above the allowed size: the default buffer works, a little slower)


def merge_bytes(runs: list[Path], scratch: Path, most: int = MAX_FAN_IN, external: bool = EXTERNAL,
                ) -> Iterator[bytes]:
    """The sorted, unique lines of every run, as UTF-8 bytes; with many runs (and no system sort), merged in
    rounds through ``scratch``."""
    runs = list(runs)
    if not runs:
        return
    cmd = _sort_command(runs, scratch, None, most, external)
    if cmd is not None:
        for block in _sort_output(cmd, scratch, PIPE_BUFFER):
            lines = block.split(b"\n")
            lines.pop()  # (empty: the block ends with a line break)
            for line in lines:
                yield line + b"\n"
        return
    round_no, width = 0, fan_in(most)
    while len(runs) > width:
        round_no += 1
        merged = []
        for i in range(0, len(runs), width):
            batch = runs[i:i + width]
            merged.append(merge_into(batch, scratch / f"merge-{round_no}-{i // width}.nq", most, external))
        runs = merged
    with ExitStack() as stack:
        yield from unique(heapq.merge(*(_read(r, stack) for r in runs)))


def merge_blocks(runs: list[Path], scratch: Path, size: int = PIPE_BUFFER, most: int = MAX_FAN_IN,
                 external: bool = EXTERNAL) -> Iterator[bytes]:
    """The lines of ``merge_bytes`` in blocks of about ``size`` bytes, each a run of whole lines."""
    cmd = _sort_command(runs, scratch, None, most, external) if runs else None
    if cmd is not None:
        yield from _sort_output(cmd, scratch, size)
        return
    block: list[bytes] = []
    held = 0
    for line in merge_bytes(runs, scratch, most, external):
        block.append(line)
        held += len(line)
        if held >= size:
            yield b"".join(block)
            block, held = [], 0
    if block:
        yield b"".join(block)


def merge_runs(runs: list[Path], scratch: Path, most: int = MAX_FAN_IN, external: bool = EXTERNAL) -> Iterator[str]:
    """The sorted, unique lines of every run (as ``merge_bytes``, decoded)."""
    for line in merge_bytes(runs, scratch, most, external):
        yield line.decode("utf-8")
class Sorter:
    """Collect lines in memory up to ``limit`` of them (and, with ``chars``, up to that many characters), spill
    sorted runs to ``scratch``, merge on demand."""

    def __init__(self, scratch: Path, name: str, limit: int = 500_000, chars: int | None = None) -> None:
        self.scratch, self.name, self.limit, self.chars = scratch, name, limit, chars
        self.buffer: list[str] = []
        self.runs: list[Path] = []
        self.size = 0  # the characters in ``buffer`` (counted only with ``chars``)

    def add(self, line: str) -> None:
        self.buffer.append(line)
        if self.chars is not None:
            self.size += len(line)
            if self.size >= self.chars:
                self.spill()
                return
        if len(self.buffer) >= self.limit:
            self.spill()

    def extend(self, lines: Iterable[str]) -> None:
        if isinstance(lines, list) and self.chars is None:
            # (a batch at once: the buffer passes the limit by at most the batch)
            self.buffer.extend(lines)
            if len(self.buffer) >= self.limit:
                self.spill()
            return
        for line in lines:
            self.add(line)

    def add_run(self, run: Path) -> None:
        """Take a run file sorted elsewhere (sorted and unique, as ``write_run`` writes it): merged, then removed,
        with the rest."""
        self.runs.append(run)

    def sorted(self) -> Iterator[str]:
        """Every line added, sorted and unique (spilling what is left, then merging the runs)."""
        self.spill()
        return merge_runs(self.runs, self.scratch)

    def write(self, path: Path) -> Path:
        """Every line added, sorted and unique, into the run file ``path`` (what ``write_run`` of them all writes;
        what was spilled is merged into it and deleted)."""
        if not self.runs:
            path = write_run(self.buffer, path)
            self.buffer, self.size = [], 0
            return path
        self.spill()
        runs, self.runs = self.runs, []
        return merge_into(runs, path)

    def discard(self) -> None:
        """Delete the runs spilled so far and forget the lines held (once what ``sorted`` gave is read)."""
        for run in self.runs:
            run.unlink(missing_ok=True)
        self.runs, self.buffer, self.size = [], [], 0

    def spill(self) -> None:
        if self.buffer:
            self.runs.append(write_run(self.buffer, self.scratch / f"{self.name}-{len(self.runs)}.nq"))
            self.buffer, self.size = [], 0

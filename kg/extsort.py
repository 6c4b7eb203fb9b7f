"""External sorting of text lines: sorted runs on disk, merged (and deduplicated) at the end.

Lines are compared as Python strings (code-point order), so a merge of runs gives exactly what
``sorted(set(lines))`` gives in memory, whatever the number and size of the runs.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path

MAX_FAN_IN = 200  # runs merged at once; more are merged in rounds
BUFFER = 1 << 16


def write_run(lines: Iterable[str], path: Path) -> Path:
    """Sort ``lines`` (unique) into a run file."""
    with open(path, "w", encoding="utf-8", newline="\n", buffering=BUFFER) as fh:
        fh.writelines(sorted(set(lines)))
    return path


def _read(path: Path, stack: ExitStack) -> Iterator[str]:
    return iter(stack.enter_context(open(path, encoding="utf-8", newline="\n", buffering=BUFFER)))


def unique(lines: Iterable[str]) -> Iterator[str]:
    """Drop consecutive duplicates of sorted lines."""
    last = None
    for line in lines:
        if line != last:
            yield line
            last = line


def merge_into(runs: list[Path], out: Path) -> Path:
    """Merge sorted runs into one run file ``out`` (sorted, unique) and delete them."""
    with ExitStack() as stack, open(out, "w", encoding="utf-8", newline="\n", buffering=BUFFER) as fh:
        fh.writelines(unique(heapq.merge(*(_read(r, stack) for r in runs))))
    for r in runs:
        os.unlink(r)
    return out


def merge_runs(runs: list[Path], scratch: Path) -> Iterator[str]:
    """The sorted, unique lines of every run; with many runs, merged in rounds through ``scratch``."""
    runs = list(runs)
    round_no = 0
    while len(runs) > MAX_FAN_IN:
        round_no += 1
        merged = []
        for i in range(0, len(runs), MAX_FAN_IN):
            batch = runs[i:i + MAX_FAN_IN]
            merged.append(merge_into(batch, scratch / f"merge-{round_no}-{i // MAX_FAN_IN}.nq"))
        runs = merged
    with ExitStack() as stack:
        yield from unique(heapq.merge(*(_read(r, stack) for r in runs)))


class Sorter:
    """Collect lines in memory up to ``limit``, spill sorted runs to ``scratch``, merge on demand."""

    def __init__(self, scratch: Path, name: str, limit: int = 500_000) -> None:
        self.scratch, self.name, self.limit = scratch, name, limit
        self.buffer: list[str] = []
        self.runs: list[Path] = []

    def add(self, line: str) -> None:
        self.buffer.append(line)
        if len(self.buffer) >= self.limit:
            self.spill()

    def extend(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.add(line)

    def spill(self) -> None:
        if self.buffer:
            self.runs.append(write_run(self.buffer, self.scratch / f"{self.name}-{len(self.runs)}.nq"))
            self.buffer = []

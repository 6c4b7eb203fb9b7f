"""Sorted runs cut into key ranges, so that several processes merge one range each of the same runs.

A run (sorted, unique lines, as ``kg.infra.extsort`` writes them) gets a sparse index: every ``STEP`` bytes, the
offset of the next line and the line. The index gives samples of the keys (each standing for the bytes up to
the next one), the samples give splitters (``splitters``: lines cutting the whole into ranges of about equal
size), and a splitter's place in a run is found from the index and one short read (``bound``). Lines compare as
bytes, as the system's sort compares them (code-point order of UTF-8).

    >>> splitters([(b"a", 10), (b"b", 10), (b"c", 10), (b"d", 10)], 2)
    [b'c']
"""

from __future__ import annotations

import bisect
from pathlib import Path

from .location import Location

STEP = 1 << 16  # bytes between two entries of a run's sparse index
Index = list[tuple[int, bytes]]  # (offset of a line, the line without its line break)


def sparse_index(path: Path, step: int = STEP) -> Index:
    """The sparse index of the run file ``path``: its first line, then the first line after every ``step`` bytes."""
    out: Index = []
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        pos = 0
        while pos < size:
            fh.seek(max(0, pos - 1))
            if pos:
                fh.readline()  # (the rest of the line holding byte pos - 1: the next line starts at pos or later)
            offset = fh.tell()
            if offset >= size:
                break
            out.append((offset, fh.readline().rstrip(b"\n")))
            pos = offset + step
    return out


def samples(index: Index, size: int, most: int) -> list[tuple[bytes, int]]:
    """At most ``most`` keys of a run from its index (the first always), each with the bytes it stands for."""
    if not index:
        return []
    every = max(1, -(-len(index) // max(1, most)))
    chosen = index[::every]
    ends = [offset for offset, _line in chosen[1:]] + [size]
    return [(line, end - offset) for (offset, line), end in zip(chosen, ends, strict=True)]


def splitters(keys: list[tuple[bytes, int]], n: int) -> list[bytes]:
    """Up to ``n - 1`` distinct lines that cut the lines the weighted samples ``keys`` stand for into ``n`` ranges
    of about equal size; each is a sampled line above the smallest one, so that no range is empty."""
    if n <= 1 or not keys:
        return []
    ordered = sorted(keys)
    lowest = ordered[0][0]
    total = sum(w for _k, w in ordered)
    out: list[bytes] = []
    seen = 0
    j = 1
    for key, weight in ordered:
        if j >= n:
            break
        if seen >= total * j / n and key > lowest and (not out or key > out[-1]):
            out.append(key)
            j += 1
        seen += weight
    return out


def bound(where: Location, name: str, index: Index, size: int, key: bytes) -> int:
    """The offset in the run ``name`` of its first line at or above ``key`` (``size`` when there is none)."""
    i = bisect.bisect_left([line for _offset, line in index], key) - 1
    if i < 0:
        return 0
    start = index[i][0]
    end = index[i + 1][0] if i + 1 < len(index) else size
    data = where.read(name, start, end)
    pos = 0
    while pos < len(data):
        cut = data.find(b"\n", pos)
        cut = len(data) if cut < 0 else cut
        if data[pos:cut] >= key:
            return start + pos
        pos = cut + 1
    return end


def copy_range(where: Location, name: str, start: int, end: int, into: Path, block: int = 1 << 22) -> None:
    """Copy the bytes ``start:end`` of the file ``name`` into the local file ``into``."""
    with open(into, "wb") as out:
        if where.url:
            for pos in range(start, end, block):
                out.write(where.read(name, pos, min(end, pos + block)))
            return
        with open(where.path(name), "rb") as fh:
            fh.seek(start)
            left = end - start
            while left > 0:
                data = fh.read(min(block, left))
                if not data:
                    break
                out.write(data)
                left -= len(data)

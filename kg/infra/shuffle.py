"""Shuffle files: the rows a task sends to the tasks of the next stage, in one file per task.

A task adds rows to sections, a section being (table, partition): ``("ref", 3)`` holds the references that
partition 3 resolves. Rows are tuples of plain values, packed in compressed frames; an index at the end of the
file says where each section's frames are, so that the task of partition 3 reads its section of every file and
nothing else (a local seek, or a byte-range request to object storage). What a writer holds at once is bounded
(``limit`` rows), whatever the number of rows or sections.

File layout: frames (zlib of a pickled list of rows), then the pickled index {section: [(offset, length), ...]},
then 16 bytes: the index's offset and length, big-endian.
"""

from __future__ import annotations

import pickle
import struct
import zlib
from collections.abc import Hashable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from .location import Location

FOOTER = struct.Struct(">QQ")
LEVEL = 1  # zlib level of the frames: most of the gain for a small part of the time
Section = Hashable


class Writer:
    """Rows into the sections of one shuffle file being written at ``path`` (a local file)."""

    def __init__(self, path: Path, limit: int = 50_000) -> None:
        self.path, self.limit = path, limit
        self.fh: IO[bytes] = open(path, "wb")
        self.buffers: dict[Section, list[Any]] = {}
        self.held = 0
        self.index: dict[Section, list[tuple[int, int]]] = {}
        self.rows = 0

    def add(self, section: Section, row: Any) -> None:
        buf = self.buffers.get(section)
        if buf is None:
            buf = self.buffers[section] = []
        buf.append(row)
        self.held += 1
        self.rows += 1
        if self.held >= self.limit:
            self.flush()

    def extend(self, section: Section, rows: Iterable[Any]) -> None:
        for row in rows:
            self.add(section, row)

    def flush(self) -> None:
        for section, rows in sorted(self.buffers.items(), key=lambda kv: repr(kv[0])):
            if rows:
                data = zlib.compress(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL), LEVEL)
                self.index.setdefault(section, []).append((self.fh.tell(), len(data)))
                self.fh.write(data)
        self.buffers.clear()
        self.held = 0

    def close(self) -> int:
        """Write the index and close; the size of the file in bytes."""
        self.flush()
        start = self.fh.tell()
        data = pickle.dumps(self.index, protocol=pickle.HIGHEST_PROTOCOL)
        self.fh.write(data)
        self.fh.write(FOOTER.pack(start, len(data)))
        size = self.fh.tell()
        self.fh.close()
        return size


def index(where: Location, name: str) -> dict[Section, list[tuple[int, int]]]:
    """The index of a shuffle file: its sections and where their frames are."""
    size = where.size(name)
    start, length = FOOTER.unpack(where.read(name, size - FOOTER.size, size))
    found: dict[Section, list[tuple[int, int]]] = pickle.loads(where.read(name, start, start + length))
    return found


def rows(where: Location, name: str, section: Section) -> Iterator[Any]:
    """The rows of one section of a shuffle file, in the order they were added."""
    frames = index(where, name).get(section, [])
    if not frames:
        return
    if where.url:
        for offset, length in frames:
            yield from pickle.loads(zlib.decompress(where.read(name, offset, offset + length)))
        return
    with open(where.path(name), "rb") as fh:
        for offset, length in frames:
            fh.seek(offset)
            yield from pickle.loads(zlib.decompress(fh.read(length)))


def gather(where: Location, names: Iterable[str], section: Section) -> Iterator[Any]:
    """The rows of one section of every file of ``names``, file after file."""
    for name in names:
        yield from rows(where, name, section)

"""Inputs that cannot be read twice (pipes, devices, standard input) or that live at a URL, copied once into a
scratch folder so that every pass of a build reads the same bytes; bounded and checked as they are copied.

``spool(["-", "seeds", "s3://bucket/dump/"], scratch)`` gives the inputs to read: paths as given, and (name shown,
copy) pairs for what was copied.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import InputError
from .read import (
    _BLANK,
    BLOCK,
    GZIP_MAGIC,
    MAX_DOCUMENT,
    MAX_LINE,
    Input,
    _mib,
    _starts_as_lines,
    display_path,
)


def needs_spool(given: str) -> bool:
    """Whether an input can be read only once: standard input ('-'), a pipe, a FIFO, a character device or
    anything under /dev/fd or /proc (a process substitution); these are copied once before the build."""
    if given == "-":
        return True
    try:
        mode = os.stat(given).st_mode
    except OSError:
        return False
    real = os.path.realpath(given)
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or (
        stat.S_ISREG(mode) and (real.startswith("/proc/") or real.startswith("/dev/")))


def spool(inputs: Iterable[str], scratch: Path, urls: bool = True) -> list[Input]:
    """The inputs, with each one that cannot be read twice (see ``needs_spool``) copied once into ``scratch``
    and given as (name, copy); standard input is shown as 'stdin'. ``urls``: copy the files of fsspec URLs too
    (else they are left as they are, for the cluster's workers to read)."""
    out: list[Input] = []
    for n, given in enumerate(inputs):
        if given.startswith("file://"):
            from urllib.parse import unquote, urlparse
            out.append(unquote(urlparse(given).path))
            continue
        if is_url(given):
            if not urls:
                out.append(given)
                continue
            out.extend(_fetch_url(given, scratch / f"input-{n:04d}"))
            continue
        if not needs_spool(given):
            out.append(given)
            continue
        copy = scratch / f"input-{n:04d}"
        shown = "stdin" if given == "-" else display_path(given)
        try:
            src = sys.stdin.buffer if given == "-" else open(given, "rb")
            try:
                _copy_bounded(shown, src, copy)
            finally:
                if given != "-":
                    src.close()
        except OSError as e:
            if e.errno in (28, 122):  # ENOSPC, EDQUOT: the disk of the workspace
                raise
            raise InputError(shown, f"cannot be read ({e.strerror or e})",
                             "check the path and its permissions") from None
        out.append((shown, copy))
    return out


_JSON_START = frozenset(b'{["-0123456789tfn')  # the first byte of a JSON text (after white space and a BOM)


def _copy_bounded(shown: str, src: Any, copy: Path) -> None:
    """Copy a pipe or device into ``copy`` within the bounds a file is read in: it stops, the copy removed,
    with one line, at a NUL byte or a first byte no JSON text starts with, at a document that expands to
    more than ``MAX_DOCUMENT`` or a JSON Lines line longer than ``MAX_LINE``; a JSON Lines stream has no cap.
    Whatever ends the copy early (an error, Ctrl-C) removes it."""
    watch = _Watch(shown)
    try:
        with open(copy, "wb") as dst:
            while block := src.read(BLOCK):
                watch.feed(block)
                dst.write(block)
    except BaseException:
        copy.unlink(missing_ok=True)
        raise


class _Watch:
    """The expanded bytes of a spooled input, as they come (see ``_copy_bounded``); ``feed`` raises the
    ``InputError`` that stops the copy."""

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.gz: zlib._Decompress | None = None
        self.started = False
        self.head = bytearray()  # the first bytes, until they tell JSON Lines from a document
        self.lines: bool | None = None
        self.size = 0  # expanded bytes
        self.line = 1  # (JSON Lines) the line being read and its length so far
        self.length = 0

    def feed(self, block: bytes) -> None:
        if not self.started and not self.head and block[:2] == GZIP_MAGIC:
            self.gz = zlib.decompressobj(31)
        self.started = True
        if self.gz is None:
            self._expanded(block)
            return
        pending = block
        while pending and not self.gz.eof:
            try:
                self._expanded(self.gz.decompress(pending, BLOCK))
            except zlib.error:
                return  # (the reader says where the gzip stream breaks)
            pending = self.gz.unconsumed_tail
        if self.gz.eof and self.gz.unused_data[:2] == GZIP_MAGIC:  # another member
            rest = self.gz.unused_data
            self.gz = zlib.decompressobj(31)
            self.feed(rest)

    def _stop(self, where: str, what: str, fix: str) -> None:
        raise InputError(where, what + "; the copy of it was removed", fix)

    def _expanded(self, data: bytes) -> None:
        if not data:
            return
        if self.lines is None:
            first = not self.head
            self.head += data
            if first or len(self.head) <= BLOCK:
                self._text(bytes(self.head[:BLOCK]))
            self.lines = _starts_as_lines(self.head)
            if self.lines is None and len(self.head) > MAX_LINE + BLOCK:
                self.lines = False
            if self.lines is not None:
                data, self.head = bytes(self.head), bytearray()
            else:
                return
        self.size += len(data)
        if not self.lines:
            if self.size > MAX_DOCUMENT:
                self._stop(self.shown, f"expands to more than {_mib(MAX_DOCUMENT)}, more than any Crossref file "
                           "holds", "split it into smaller files or leave it out")
            return
        start = 0
        while (nl := data.find(b"\n", start)) >= 0:
            self._line(nl - start)
            self.line += 1
            self.length = 0
            start = nl + 1
        self._line(len(data) - start)

    def _line(self, more: int) -> None:
        self.length += more
        if self.length > MAX_LINE:
            self._stop(f"{self.shown}: line {self.line}", f"is longer than {_mib(MAX_LINE)}, more than any Crossref "
                       "record", "fix the line or leave it out")

    def _text(self, first: bytes) -> None:
        """Stop at the start of what cannot be JSON text: a NUL byte, or a first byte no JSON value opens with."""
        nul = first.find(b"\0")
        body = first[3:] if first[:3] == b"\xef\xbb\xbf" else first
        blank = _BLANK.match(body)
        assert blank is not None
        opening = body[blank.end():blank.end() + 1]
        if nul >= 0 or (opening and opening[0] not in _JSON_START):
            char = chr(opening[0]) if opening and 32 < opening[0] < 127 else f"0x{opening[0]:02x}" if opening else ""
            why = f"a NUL byte at byte {nul + 1}" if nul >= 0 else f"it starts with {char}"
            self._stop(self.shown, f"is not JSON text ({why})",
                       "give Crossref JSON or JSON Lines, uncompressed or gzipped")


_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def is_url(given: str) -> bool:
    """Whether an input is a URL (``s3://...``, ``memory://...``) rather than a path."""
    return bool(_URL.match(given))


def url_files(url: str) -> list[tuple[str, str]]:
    """The files of an fsspec URL (a file, or a folder walked in sorted order, hidden files left out), each as
    (the name to show, its full URL) (fsspec: pip install 'crossref-kg[cluster]')."""
    try:
        import fsspec  # type: ignore[import-untyped]
    except ImportError:
        raise InputError(url, "is a URL and reading URLs needs fsspec",
                         "install it with pip install 'crossref-kg[cluster]'") from None
    try:
        fs, root = fsspec.core.url_to_fs(url)
        names = sorted(fs.find(root)) if fs.isdir(root) else [root]
        return [(url if name == root else fs.unstrip_protocol(name), fs.unstrip_protocol(name))
                for name in names if not os.path.basename(name).startswith(".")]
    except (OSError, ValueError) as e:
        raise InputError(url, f"cannot be read ({e})", "check the URL and that this machine can reach it") from None


def fetch_file(url: str, into: Path) -> None:
    """Copy the file at ``url`` into the local file ``into``."""
    import fsspec
    try:
        fs, path = fsspec.core.url_to_fs(url)
        fs.get_file(path, str(into))
    except (OSError, ValueError) as e:
        raise InputError(url, f"cannot be read ({e})", "check the URL and that this machine can reach it") from None


def _fetch_url(url: str, into: Path) -> list[Input]:
    """The files of an fsspec URL (``url_files``), copied into ``into`` and shown as their URLs."""
    files = url_files(url)
    out: list[Input] = []
    into.mkdir(parents=True, exist_ok=True)
    for i, (shown, full) in enumerate(files):
        copy = into / f"{i:06d}-{os.path.basename(full)}"
        fetch_file(full, copy)
        out.append((shown, copy))
    return out

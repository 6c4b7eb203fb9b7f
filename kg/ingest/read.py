"""Files, directories, JSON Lines, .gz, API envelopes and list responses -> raw work records.

``iter_records(paths)`` yields ``(Source, raw_work)`` pairs and ``InputError``s (one per unusable file
or record) in a deterministic order, so a bad record never stops the good ones.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast, overload

import orjson

from ..errors import InputError
from ..model import Source

GZIP_MAGIC = b"\x1f\x8b"
STREAM_ABOVE = 16 << 20  # files expanding to more than this are read line by line when they are JSON Lines
MAX_DEPTH = 200  # a record nested deeper than this is skipped (no Crossref record comes near; orjson writes 254)
MAX_DOCUMENT = 256 << 20  # expanded bytes of one JSON document (a Crossref dump file of 5,000 records is ~150 MiB)
MAX_LINE = 64 << 20  # expanded bytes of one JSON Lines line (one record; the largest real ones are a few MiB)
BLOCK = 1 << 20  # bytes read (and at most expanded) at a time
_BLANK = re.compile(rb"[ \t\r\n]*")
_DEEP_PAD = 254 - MAX_DEPTH  # orjson serialises at most 254 nested containers: padding makes it test MAX_DEPTH


def _mib(n: int) -> str:
    return f"{n >> 20} MiB"


Input = str | tuple[str, Path]  # a path as given, or (the name to show, the file holding its bytes)


def expand_paths(inputs: Iterable[Input]) -> Iterator[tuple[str, Path, bool]]:
    """Each input as given (explicit=True), directories walked recursively in sorted order (hidden skipped).
    An input given as (name, path) is read from ``path`` and shown as ``name`` (a spooled pipe)."""
    for given in inputs:
        if isinstance(given, tuple):
            yield display_path(given[0]), given[1], True
            continue
        p = Path(given)
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith("."):
                        yield display_path(os.path.join(root, name)), Path(root) / name, False
        else:
            yield display_path(given), p, True


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def special_kind(mode: int) -> str | None:
    """What a file that is not a regular file (nor a folder) is, or None for a regular file or folder."""
    return next((name for test, name in _KINDS if test(mode)), None if stat.S_ISREG(mode) or stat.S_ISDIR(mode)
                else "not a regular file")


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


def _position(text: bytes | bytearray, pos: int) -> tuple[int, int]:
    line = text.count(b"\n", 0, pos) + 1
    col = pos - (text.rfind(b"\n", 0, pos) + 1) + 1
    return line, col


def _json_error(shown: str, data: bytes | bytearray, err: Exception, base_line: int = 0) -> InputError:
    pos = getattr(err, "pos", None)
    msg = str(err).split(":")[0].strip() or "invalid JSON"
    if isinstance(pos, int):
        line, col = _position(data, pos)
        return InputError(f"{shown}: line {line + base_line}, column {col}", f"invalid JSON ({msg})",
                          "fix the file or leave it out")
    return InputError(shown, f"invalid JSON ({msg})", "fix the file or leave it out")


def unwrap(doc: Any) -> tuple[list[Any], str] | None:
    """The work objects inside one parsed JSON value and how to name them ("item" or ""), or None."""
    if isinstance(doc, list):
        return doc, "item"
    if not isinstance(doc, dict):
        return None
    mtype = doc.get("message-type")
    message = doc.get("message")
    if mtype == "work" and isinstance(message, dict):
        return [message], ""
    if mtype == "work-list" and isinstance(message, dict) and isinstance(message.get("items"), list):
        return message["items"], "item"
    if "message" in doc and isinstance(message, dict) and "DOI" in message:
        return [message], ""
    if isinstance(doc.get("items"), list) and "DOI" not in doc:
        return doc["items"], "item"
    return [doc], ""


def _inner(item: Any) -> Any:
    """A list element or JSON line may itself be a /works response: take its message."""
    if isinstance(item, dict) and item.get("message-type") == "work" and isinstance(item.get("message"), dict):
        return item["message"]
    return item


class _Broken(Exception):
    """A compressed stream broke off midway (or holds something that is not gzip after a member)."""


def _expanded(fh: Any, gz: bool, trailing: list[int] | None = None) -> Iterator[bytes]:
    """The bytes of an open file, expanded when gzipped (every member), in blocks of at most ``BLOCK``: memory
    stays flat whatever the file expands to. Raises ``_Broken`` where a compressed stream breaks off, after
    every byte before the break. Bytes after a member that start no other member are trailing garbage, which
    gzip(1) ignores with a warning: so does this, and appends their offset to ``trailing``."""
    if not gz:
        while block := fh.read(BLOCK):
            yield block
        return
    d = zlib.decompressobj(31)
    pending = b""
    started = False
    while True:
        if not pending:
            pending = fh.read(BLOCK)
            if not pending:
                if started and not d.eof:
                    raise _Broken("Compressed file ended before the end-of-stream marker was reached")
                return
        if d.eof:  # another member follows (or zero padding, which gzip tools ignore)
            if not pending.strip(b"\x00"):
                pending = b""
                continue
            if len(pending) < len(GZIP_MAGIC):
                pending += fh.read(BLOCK)
            if not pending.startswith(GZIP_MAGIC):
                if trailing is not None:
                    trailing.append(fh.tell() - len(pending))
                return
            d = zlib.decompressobj(31)
        try:
            out = d.decompress(pending, BLOCK)
        except zlib.error as e:
            raise _Broken(str(e)) from None
        started = True
        pending = d.unused_data if d.eof else d.unconsumed_tail
        if out:
            yield out


def _lines(blocks: Iterable[bytes], first: int = 1) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line without its line break) of a stream of blocks; a line longer than ``MAX_LINE`` comes
    as (line number, None) and is not held in memory. The last line comes even without a line break."""
    buf = bytearray()
    lineno = first
    too_long = False
    for block in blocks:
        start = 0
        while (nl := block.find(b"\n", start)) >= 0:
            if too_long:
                yield lineno, None
                too_long = False
            else:
                buf += block[start:nl]
                yield lineno, bytes(buf) if len(buf) <= MAX_LINE else None
            buf.clear()
            lineno += 1
            start = nl + 1
        if not too_long:
            buf += block[start:]
            if len(buf) > MAX_LINE:
                too_long = True
                buf.clear()
    if too_long:
        yield lineno, None
    elif buf:
        yield lineno, bytes(buf)


def too_deep(value: Any) -> bool:
    """Whether a parsed JSON value nests more than ``MAX_DEPTH`` containers (orjson, which serialises at most
    254, tells: the value goes in ``_DEEP_PAD`` lists)."""
    if not isinstance(value, (dict, list)):
        return False
    wrapped: Any = value
    for _ in range(_DEEP_PAD):
        wrapped = [wrapped]
    try:
        orjson.dumps(wrapped)
    except orjson.JSONEncodeError as e:
        return "Recursion" in str(e)
    return False


def _deep_error(where: str) -> InputError:
    return InputError(where, f"nested deeper than {MAX_DEPTH} levels",
                      "no Crossref record nests so deep; fix the record or leave it out")


def _deep_line(data: bytes | bytearray) -> int:
    """The line of ``data`` (a JSON text) where its nesting first passes ``MAX_DEPTH`` (1 if it is not found)."""
    depth = 0
    in_string = escaped = False
    for pos, c in enumerate(data):
        if in_string:
            if escaped:
                escaped = False
            elif c == 0x5C:
                escaped = True
            elif c == 0x22:
                in_string = False
        elif c == 0x22:
            in_string = True
        elif c in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_DEPTH:
                return data.count(b"\n", 0, pos) + 1
        elif c in (0x5D, 0x7D):
            depth -= 1
    return 1


class Ignored(str):
    """A file met while walking a folder that holds no JSON at all (a README, say): noted, not an error."""


def _open(shown: str, path: Path, explicit: bool) -> tuple[Any, bool, str, int] | InputError | Ignored:
    """The open file, whether it is gzipped, the sha256 of its bytes as stored and their size; or why it
    cannot be read."""
    try:
        mode = os.stat(path).st_mode
        kind = special_kind(mode)
        if kind is not None:
            if not explicit:
                return Ignored(f"{shown}: {kind}, not a regular file; skipped while reading the folder")
            return InputError(shown, f"is {kind}, not a regular file",
                              "give a file, a folder or '-' for standard input")
        digest = _sha256(path)
        fh = open(path, "rb")
        stored = os.fstat(fh.fileno()).st_size
    except IsADirectoryError:
        return InputError(shown, "is a directory that could not be walked", "check the path")
    except FileNotFoundError:
        return InputError(shown, "does not exist", "check the path")
    except OSError as e:
        return InputError(shown, f"cannot be read ({e.strerror or e})", "check the path and its permissions")
    gz = fh.read(2) == GZIP_MAGIC
    fh.seek(0)
    return fh, gz, digest, stored


def _gzip_error(shown: str, why: str) -> InputError:
    return InputError(shown, f"is not a readable gzip file ({why})", "re-download or re-compress it")


def iter_file(shown: str, path: Path, explicit: bool = True, lazy: bool = False, stream_above: int = STREAM_ABOVE,
              ) -> Iterator[tuple[Source, Any] | InputError | Ignored | LazyLine]:
    """Every work record of one file (single JSON document or JSON Lines), errors as values. Gzip is always
    expanded as a stream. Files larger than ``stream_above`` bytes (as stored, or expanded) are read line by line
    when they are JSON Lines, so memory does not grow with the file (with ``lazy``, their lines come unparsed,
    as ``LazyLine``s, for a worker process to parse); a single document may expand to ``MAX_DOCUMENT``. Where
    a gzip stream breaks off, the records of the lines before the break are kept."""
    opened = _open(shown, path, explicit)
    if isinstance(opened, (InputError, Ignored)):
        yield opened
        return
    fh, gz, digest, stored = opened
    trailing: list[int] = []
    with fh:
        yield from _read_opened(shown, fh, gz, digest, stored, explicit, lazy, stream_above, trailing)
    if trailing:
        yield Ignored(f"{shown}: {stored - trailing[0]} bytes of trailing garbage after the gzip data ignored, as "
                      "gzip -d does; re-compress the file to drop them")


def _read_opened(shown: str, fh: Any, gz: bool, digest: str, stored: int, explicit: bool, lazy: bool,
                 stream_above: int, trailing: list[int],
                 ) -> Iterator[tuple[Source, Any] | InputError | Ignored | LazyLine]:
    """``iter_file`` on the open file."""
    blocks = _expanded(fh, gz, trailing)
    big = stored > stream_above
    pending: list[bytes] = []  # the first blocks, read to tell a large file from a small one
    size = 0
    broken: str | None = None
    try:
        for block in blocks:
            pending.append(block)
            size += len(block)
            if big or size > stream_above:
                big = True
                break
        if big and _json_lines_start(pending, blocks):
            yield from _stream_lines(shown, digest, pending, blocks, lazy)
            return
    except _Broken as e:
        broken = str(e)
    data = bytearray()
    while pending:
        data += pending.pop(0)
    if big and broken is None:
        try:
            for block in blocks:
                data += block
                if len(data) > MAX_DOCUMENT:
                    yield InputError(shown, f"expands to more than {_mib(MAX_DOCUMENT)}, more than any Crossref "
                                     "file holds", "split it into smaller files or leave it out")
                    return
        except _Broken as e:
            broken = str(e)
    yield from _whole(shown, data, digest, explicit, broken)


def _json_lines_start(pending: list[bytes], rest: Iterator[bytes]) -> bool:
    """Whether a file starts as JSON Lines: its first non-blank line is JSON and a second non-blank line
    follows. Reads what it needs from ``rest`` into ``pending`` (at most ``MAX_LINE`` and a block)."""
    buf = bytearray()
    i = 0
    while True:
        if i < len(pending):
            block = pending[i]
        else:
            more = next(rest, None)
            if more is None:
                return False
            pending.append(more)
            block = more
        i += 1
        buf += block
        verdict = _starts_as_lines(buf)
        if verdict is not None:
            return verdict
        if len(buf) > MAX_LINE + BLOCK:
            return False


_NONBLANK = re.compile(rb"[^ \t\r\n]")


def _starts_as_lines(buf: bytearray) -> bool | None:
    """``_json_lines_start`` on the first bytes of a file; None when they do not tell yet."""
    pos = 3 if buf[:3] == b"\xef\xbb\xbf" else 0
    while True:
        nl = buf.find(b"\n", pos)
        if nl < 0:
            return None
        if _NONBLANK.search(buf, pos, nl):
            break
        pos = nl + 1
    if _NONBLANK.search(buf, nl + 1) is None:
        return None
    try:
        orjson.loads(buf[pos:nl])
    except orjson.JSONDecodeError as e:
        return "depth limit" in str(e)
    return True


def _whole(shown: str, data: bytes | bytearray, digest: str, explicit: bool, broken: str | None,
           ) -> Iterator[tuple[Source, Any] | InputError | Ignored]:
    """The records of a file read whole (``broken``: why its gzip stream broke off after ``data``)."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if broken is not None:
        # the complete lines before the break, if they are JSON Lines (as the streaming reader keeps them)
        complete = data[:data.rfind(b"\n") + 1]
        if complete.strip() and _looks_like_json_lines(complete + b"\n"):
            yield from _iter_lines(shown, complete, digest)
        yield _gzip_error(shown, broken)
        return
    blank = _BLANK.match(data)
    assert blank is not None  # the pattern matches the empty string
    start = blank.end()
    if not explicit and data[start:start + 1] not in (b"{", b"[") and not _looks_like_json_lines(data):
        yield Ignored(f"{shown}: not JSON, ignored while reading the folder")
        return
    if not data or data.isspace():
        yield InputError(shown, "is empty", "leave it out or give a Crossref JSON file")
        return
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as whole_err:
        if not _looks_like_json_lines(data):
            if "depth limit" in str(whole_err):
                yield _deep_error(f"{shown}: line {_deep_line(data)}")
                return
            yield _json_error(shown, data, whole_err)
            return
        yield from _iter_lines(shown, data, digest)
        return
    found = unwrap(doc)
    if found is None:
        yield InputError(shown, "holds JSON that is not a Crossref work, response or list", "leave it out")
        return
    items, naming = found
    if not items and naming:
        return
    deep = too_deep(doc)
    for i, item in enumerate(items, start=1):
        if deep and too_deep(item):
            yield _deep_error(f"{shown}: item {i}" if naming else f"{shown}: line {_deep_line(data)}")
            continue
        yield Source(shown, digest, f"{naming} {i}" if naming else ""), _inner(item)


def _looks_like_json_lines(data: bytes | bytearray) -> bool:
    """More than one non-empty line, and at least half of them are JSON values of their own (a line holding
    a scalar, such as ``null``, is a line of JSON Lines that holds no record: one bad line, not a sign that
    the file is something else)."""
    lines = [ln for ln in data.split(b"\n") if ln.strip()]
    if len(lines) < 2:
        return False
    good = 0
    for ln in lines[:200]:
        try:
            orjson.loads(ln)
            good += 1
        except orjson.JSONDecodeError as e:
            good += "depth limit" in str(e)  # (a line too deep to parse is still a line of JSON)
    return good * 2 >= min(len(lines), 200)


def display_path(path: str) -> str:
    """A path as it can be shown and stored: undecodable bytes and control characters replaced."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK):
            h.update(block)
    return h.hexdigest()


def _stream_lines(shown: str, digest: str, pending: list[bytes], rest: Iterator[bytes], lazy: bool,
                  ) -> Iterator[tuple[Source, Any] | InputError | LazyLine]:
    """A large JSON Lines file as a stream of records: the blocks of ``pending`` (let go of as they are read),
    then ``rest``."""
    if pending and pending[0][:3] == b"\xef\xbb\xbf":
        pending[0] = pending[0][3:]

    def blocks() -> Iterator[bytes]:
        while pending:
            yield pending.pop(0)
        yield from rest

    try:
        for n, ln in _lines(blocks()):
            if ln is None:
                yield InputError(f"{shown}: line {n}", f"is longer than {_mib(MAX_LINE)}, more than any "
                                 "Crossref record", "fix the line or leave it out")
            elif ln.strip():
                if lazy:
                    yield LazyLine(shown, digest, n, ln)
                else:
                    yield from _line_records(shown, digest, n, ln)
    except _Broken as e:
        yield _gzip_error(shown, str(e))


def _iter_lines(shown: str, data: bytes | bytearray, digest: str) -> Iterator[tuple[Source, Any] | InputError]:
    # the lines of bytes are bytes, of a bytearray bytearrays (typeshed joins the union to Sequence[int])
    lines = cast("list[bytes | bytearray]", data.split(b"\n"))
    for lineno, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE:
            yield InputError(f"{shown}: line {lineno}", f"is longer than {_mib(MAX_LINE)}, more than any "
                             "Crossref record", "fix the line or leave it out")
        elif line.strip():
            yield from _line_records(shown, digest, lineno, line)


def _line_records(shown: str, digest: str, lineno: int, line: bytes | bytearray
                  ) -> Iterator[tuple[Source, Any] | InputError]:
    """The records of one non-blank JSON Lines line (a work, a response or a list), or its error."""
    try:
        doc = orjson.loads(line)
    except orjson.JSONDecodeError as e:
        if "depth limit" in str(e):
            yield _deep_error(f"{shown}: line {lineno}")
            return
        pos = getattr(e, "pos", None)
        col = f", column {pos + 1}" if isinstance(pos, int) else ""
        msg = str(e).split(":")[0].strip() or "invalid JSON"
        yield InputError(f"{shown}: line {lineno}{col}", f"invalid JSON ({msg})", "fix the line or leave it out")
        return
    found = unwrap(doc)
    if found is None:
        yield InputError(f"{shown}: line {lineno}", "is not a Crossref work, response or list", "leave it out")
        return
    items, naming = found
    deep = too_deep(doc)
    for i, item in enumerate(items, start=1):
        loc = f"line {lineno}" + (f" item {i}" if naming else "")
        if deep and too_deep(item):
            yield _deep_error(f"{shown}: {loc}")
            continue
        yield Source(shown, digest, loc), _inner(item)


@dataclass(frozen=True, slots=True)
class LazyLine:
    """One non-blank line of a large JSON Lines file, not parsed yet: cheap to send to a worker process,
    which calls ``records()`` for what the reader would have given (its records, or its error)."""

    shown: str
    digest: str
    lineno: int
    data: bytes

    def records(self) -> list[tuple[Source, Any] | InputError]:
        return list(_line_records(self.shown, self.digest, self.lineno, self.data))


@overload
def iter_records(inputs: Iterable[Input], lazy: Literal[False] = False, stream_above: int = STREAM_ABOVE,
                 ) -> Iterator[tuple[Source, Any] | InputError | Ignored]: ...
@overload
def iter_records(inputs: Iterable[Input], lazy: bool, stream_above: int = STREAM_ABOVE,
                 ) -> Iterator[tuple[Source, Any] | InputError | Ignored | LazyLine]: ...
def iter_records(inputs: Iterable[Input], lazy: bool = False, stream_above: int = STREAM_ABOVE,
                 ) -> Iterator[tuple[Source, Any] | InputError | Ignored | LazyLine]:
    """All records of all inputs, in input order then file order (with ``lazy``, the lines of large JSON
    Lines files as ``LazyLine``s, each standing for the records ``LazyLine.records()`` gives)."""
    for shown, path, explicit in expand_paths(inputs):
        yield from iter_file(shown, path, explicit, lazy, stream_above)

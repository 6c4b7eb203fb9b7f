"""Files, directories, JSON Lines, .gz, API envelopes and list responses -> raw work records.

``iter_records(paths)`` yields ``(Source, raw_work)`` pairs and ``InputError``s (one per unusable file
or record) in a deterministic order, so a bad record never stops the good ones.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
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


class ReadWarning(str):
    """A file whose records were all read though part of it was not (bytes after its gzip data): a warning."""


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
              ) -> Iterator[tuple[Source, Any] | InputError | Ignored | ReadWarning | LazyLine]:
    """Every work record of one file (single JSON document or JSON Lines), errors as values. Gzip is always
    expanded as a stream. Files larger than ``stream_above`` bytes (as stored, or expanded) are read line by line
    when they are JSON Lines, so memory does not grow with the file (with ``lazy``, their lines come unparsed,
    as ``LazyLine``s, for a worker process to parse); a single document may expand to ``MAX_DOCUMENT``. Where
    a gzip stream breaks off, the records of the lines before the break are kept; bytes after the gzip data that
    start no gzip member are ignored, as gzip -d does, with a ``ReadWarning`` after the file's records."""
    opened = _open(shown, path, explicit)
    if isinstance(opened, (InputError, Ignored)):
        yield opened
        return
    fh, gz, digest, stored = opened
    trailing: list[int] = []
    with fh:
        yield from _read_opened(shown, fh, gz, digest, stored, explicit, lazy, stream_above, trailing)
    if trailing:
        yield ReadWarning(f"{shown}: {stored - trailing[0]} bytes of trailing garbage after the gzip data ignored, as "
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
                 ) -> Iterator[tuple[Source, Any] | InputError | Ignored | ReadWarning]: ...
@overload
def iter_records(inputs: Iterable[Input], lazy: bool, stream_above: int = STREAM_ABOVE,
                 ) -> Iterator[tuple[Source, Any] | InputError | Ignored | ReadWarning | LazyLine]: ...
def iter_records(inputs: Iterable[Input], lazy: bool = False, stream_above: int = STREAM_ABOVE,
                 ) -> Iterator[tuple[Source, Any] | InputError | Ignored | ReadWarning | LazyLine]:
    """All records of all inputs, in input order then file order (with ``lazy``, the lines of large JSON
    Lines files as ``LazyLine``s, each standing for the records ``LazyLine.records()`` gives)."""
    for shown, path, explicit in expand_paths(inputs):
        yield from iter_file(shown, path, explicit, lazy, stream_above)

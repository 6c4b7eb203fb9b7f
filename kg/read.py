"""Files, directories, JSON Lines, .gz, API envelopes and list responses -> raw work records.

``iter_records(paths)`` yields ``(Source, raw_work)`` pairs and ``InputError``s (one per unusable file
or record) in a deterministic order, so a bad record never stops the good ones.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import os
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .errors import InputError
from .model import Source

GZIP_MAGIC = b"\x1f\x8b"
STREAM_ABOVE = 16 << 20  # files larger than this (as stored) are read line by line when they are JSON Lines


def expand_paths(inputs: Iterable[str]) -> Iterator[tuple[str, Path, bool]]:
    """Each input as given (explicit=True), directories walked recursively in sorted order (hidden skipped)."""
    for given in inputs:
        p = Path(given)
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith("."):
                        yield display_path(os.path.join(root, name)), Path(root) / name, False
        else:
            yield display_path(given), p, True


def _position(text: bytes, pos: int) -> tuple[int, int]:
    line = text.count(b"\n", 0, pos) + 1
    col = pos - (text.rfind(b"\n", 0, pos) + 1) + 1
    return line, col


def _json_error(shown: str, data: bytes, err: Exception, base_line: int = 0) -> InputError:
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


def read_bytes(shown: str, path: Path) -> tuple[bytes, str]:
    """The file's (decompressed) bytes and the sha256 of its bytes as stored."""
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise InputError(shown, "is a directory that could not be walked", "check the path") from None
    except FileNotFoundError:
        raise InputError(shown, "does not exist", "check the path") from None
    except OSError as e:
        raise InputError(shown, f"cannot be read ({e.strerror or e})", "check the path and its permissions") from None
    digest = hashlib.sha256(raw).hexdigest()
    if raw[:2] == GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(shown, f"is not a readable gzip file ({e})", "re-download or re-compress it") from None
    return raw, digest


class Ignored(str):
    """A file met while walking a folder that holds no JSON at all (a README, say): noted, not an error."""


def iter_file(shown: str, path: Path, explicit: bool = True, lazy: bool = False,
              ) -> Iterator[tuple[Source, Any] | InputError | Ignored | LazyLine]:
    """Every work record of one file (single JSON document or JSON Lines), errors as values. Large JSON
    Lines files (plain or gzipped) are read line by line, so memory does not grow with the file; with
    ``lazy``, their lines come unparsed (``LazyLine``), for a worker process to parse."""
    try:
        big = path.stat().st_size > STREAM_ABOVE
    except OSError:
        big = False
    if big:
        streamed = _iter_big(shown, path, lazy)
        if streamed is not None:
            yield from streamed
            return
    try:
        data, digest = read_bytes(shown, path)
    except InputError as e:
        yield e
        return
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if not explicit and data.lstrip()[:1] not in (b"{", b"["):
        yield Ignored(f"{shown}: not JSON, ignored while reading the folder")
        return
    if not data.strip():
        yield InputError(shown, "is empty", "leave it out or give a Crossref JSON file")
        return
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as whole_err:
        if not _looks_like_json_lines(data):
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
    for i, item in enumerate(items, start=1):
        yield Source(shown, digest, f"{naming} {i}" if naming else ""), _inner(item)


def _looks_like_json_lines(data: bytes) -> bool:
    """More than one non-empty line, and at least half of them are complete JSON objects or arrays."""
    lines = [ln for ln in data.split(b"\n") if ln.strip()]
    if len(lines) < 2:
        return False
    good = 0
    for ln in lines[:200]:
        stripped = ln.strip()
        if stripped[:1] in (b"{", b"[") and stripped[-1:] in (b"}", b"]"):
            try:
                orjson.loads(stripped)
                good += 1
            except orjson.JSONDecodeError:
                pass
    return good * 2 >= min(len(lines), 200)


def display_path(path: str) -> str:
    """A path as it can be shown and stored: undecodable bytes and control characters replaced."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def _iter_big(shown: str, path: Path, lazy: bool = False) -> Iterator[tuple[Source, Any] | InputError | LazyLine] | None:
    """A large file as a stream of JSON Lines records, or None when it is not JSON Lines (then it is read
    whole). A file of one line is a single document, as when read whole."""
    try:
        digest = _sha256(path)
        with open(path, "rb") as fh:
            gz = fh.read(2) == GZIP_MAGIC
        fh = gzip.open(path, "rb") if gz else open(path, "rb")
        numbered = enumerate(fh, start=1)
        first = next(((n, ln) for n, ln in numbered if ln.strip()), None)
        second = next(((n, ln) for n, ln in numbered if ln.strip()), None)
    except (OSError, EOFError, zlib.error):
        return None  # the whole-file reader reports it
    if first is None or second is None:
        fh.close()
        return None
    head = first[1][3:] if first[0] == 1 and first[1][:3] == b"\xef\xbb\xbf" else first[1]
    try:
        orjson.loads(head)
    except orjson.JSONDecodeError:
        fh.close()
        return None

    def lines() -> Iterator[tuple[int, bytes]]:
        """(line number, line without its line break: as the whole-file reader splits them)."""
        try:
            for n, ln in itertools.chain([(first[0], head), second], numbered):
                yield n, ln[:-1] if ln.endswith(b"\n") else ln
        except (OSError, EOFError, zlib.error) as e:
            raise _Broken(str(e)) from None
        finally:
            fh.close()

    def records() -> Iterator[tuple[Source, Any] | InputError | LazyLine]:
        try:
            if lazy:
                yield from (LazyLine(shown, digest, n, ln) for n, ln in lines() if ln.strip())
            else:
                yield from _iter_lines(shown, lines(), digest)
        except _Broken as e:
            yield InputError(shown, f"is not a readable gzip file ({e})", "re-download or re-compress it")

    return records()


class _Broken(Exception):
    """A compressed stream broke off midway."""


def _iter_lines(shown: str, data: bytes | Iterable[tuple[int, bytes]], digest: str,
                ) -> Iterator[tuple[Source, Any] | InputError]:
    numbered = enumerate(data.split(b"\n"), start=1) if isinstance(data, bytes) else data
    for lineno, line in numbered:
        if line.strip():
            yield from _line_records(shown, digest, lineno, line)


def _line_records(shown: str, digest: str, lineno: int, line: bytes) -> Iterator[tuple[Source, Any] | InputError]:
    """The records of one non-blank JSON Lines line (a work, a response or a list), or its error."""
    try:
        doc = orjson.loads(line)
    except orjson.JSONDecodeError as e:
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
    for i, item in enumerate(items, start=1):
        loc = f"line {lineno}" + (f" item {i}" if naming else "")
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


def iter_records(inputs: Iterable[str], lazy: bool = False,
                 ) -> Iterator[tuple[Source, Any] | InputError | Ignored | LazyLine]:
    """All records of all inputs, in input order then file order (with ``lazy``, the lines of large JSON
    Lines files as ``LazyLine``s, each standing for the records ``LazyLine.records()`` gives)."""
    for shown, path, explicit in expand_paths(inputs):
        yield from iter_file(shown, path, explicit, lazy)

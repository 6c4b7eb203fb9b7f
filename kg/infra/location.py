"""A folder on this machine or at an fsspec URL (``s3://``, ``gs://``, ``memory://`` ...): where a cluster build keeps
its scratch files and writes its parts. Files are written whole (a local temporary file renamed, or uploaded in
one put) so that a reader never sees half a file, and read whole or by byte range.

    >>> Location("/tmp/x").child("a").path("b.nq")
    '/tmp/x/a/b.nq'
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ..errors import KgError

_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def is_url(where: str | Path) -> bool:
    """Whether ``where`` is a URL (``file://`` included) rather than a path."""
    return isinstance(where, str) and bool(_URL.match(where))


def _fs(url: str) -> tuple[Any, str]:
    try:
        import fsspec  # type: ignore[import-untyped]
    except ImportError:
        raise KgError(f"{url}: a URL location needs fsspec; install it with pip install 'crossref-kg[cluster]'") \
            from None
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as e:
        raise KgError(f"{url}: cannot be used as a location ({e}); check the URL and that its fsspec "
                      "backend is installed") from None


class Location:
    """A folder: a local path, or an fsspec URL (``file://`` URLs are local paths)."""

    def __init__(self, where: str | Path) -> None:
        text = str(where)
        if is_url(text) and text.lower().startswith("file://"):
            from urllib.parse import unquote, urlparse
            text = unquote(urlparse(text).path)
        self.url = is_url(text)
        self.where = text.rstrip("/") if self.url else os.path.abspath(text)
        self.fs: Any = None
        self.root = self.where
        if self.url:
            self.fs, root = _fs(self.where)
            self.root = root.rstrip("/")

    def __repr__(self) -> str:
        return f"Location({self.where!r})"

    def __str__(self) -> str:
        return self.where

    def __getstate__(self) -> dict[str, Any]:  # (sent to the workers: the file system is made again there)
        return {"where": self.where}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["where"])  # type: ignore[misc]

    @property
    def name(self) -> str:
        return self.where.rsplit("/", 1)[-1]

    @property
    def local(self) -> Path | None:
        """The folder as a local path, or None for a URL."""
        return None if self.url else Path(self.where)

    def path(self, name: str) -> str:
        """The full path or URL of the file ``name`` in this folder."""
        return f"{self.where}/{name}"

    def _remote(self, name: str) -> str:
        return f"{self.root}/{name}"

    def child(self, name: str) -> Location:
        return Location(self.path(name))

    def sibling(self, name: str) -> Location:
        """The folder ``name`` beside this one."""
        parent = self.where.rsplit("/", 1)[0]
        return Location(f"{parent}/{name}")

    def make(self) -> None:
        if self.url:
            self.fs.makedirs(self.root, exist_ok=True)
        else:
            Path(self.where).mkdir(parents=True, exist_ok=True)

    def exists(self, name: str | None = None) -> bool:
        if self.url:
            return bool(self.fs.exists(self._remote(name) if name else self.root))
        return os.path.exists(self.path(name) if name else self.where)

    def is_folder(self) -> bool:
        if self.url:
            return bool(self.fs.isdir(self.root))
        return os.path.isdir(self.where)

    def names(self) -> list[str]:
        """The names of the files in this folder, sorted."""
        if self.url:
            if not self.fs.isdir(self.root):
                return []
            return sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in self.fs.ls(self.root, detail=False))
        try:
            return sorted(os.listdir(self.where))
        except OSError:
            return []

    def size(self, name: str) -> int:
        if self.url:
            return int(self.fs.size(self._remote(name)))
        return os.path.getsize(self.path(name))

    def open(self, name: str) -> IO[bytes]:
        """The file ``name``, opened to read bytes."""
        if self.url:
            return self.fs.open(self._remote(name), "rb")
        return open(self.path(name), "rb")

    def read(self, name: str, start: int = 0, end: int | None = None) -> bytes:
        """The bytes ``start:end`` of the file ``name`` (all of them by default)."""
        if self.url:
            return bytes(self.fs.cat_file(self._remote(name), start=start, end=end))
        with open(self.path(name), "rb") as fh:
            fh.seek(start)
            return fh.read() if end is None else fh.read(end - start)

    def put(self, local: Path, name: str) -> None:
        """Move the local file ``local`` into this folder as ``name`` (whole: renamed, or uploaded in one put)."""
        if self.url:
            self.fs.put_file(str(local), self._remote(name))
            os.unlink(local)
        else:
            os.replace(local, self.path(name))

    def write(self, name: str, data: bytes) -> None:
        """Write the file ``name`` whole."""
        if self.url:
            self.fs.pipe_file(self._remote(name), data)
            return
        tmp = Path(self.path(f".{name}.{secrets.token_hex(4)}.tmp"))
        tmp.write_bytes(data)
        os.replace(tmp, self.path(name))

    @contextmanager
    def writing(self, name: str, work: Path | None = None) -> Iterator[Path]:
        """A local file to write ``name`` into; put in place when the block ends without an error. ``work``: a
        local folder for the file of a URL location (default: the system's temporary folder)."""
        if self.url:
            fd, tmp = tempfile.mkstemp(prefix="kg-", suffix=f"-{name}", dir=work)
            os.close(fd)
        else:
            tmp = self.path(f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            yield Path(tmp)
            self.put(Path(tmp), name)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    @contextmanager
    def reading(self, name: str, work: Path | None = None) -> Iterator[Path]:
        """The file ``name`` as a local path: itself, or a temporary copy of a URL's file, removed afterwards."""
        if not self.url:
            yield Path(self.path(name))
            return
        fd, tmp = tempfile.mkstemp(prefix="kg-", suffix=f"-{name}", dir=work)
        os.close(fd)
        try:
            self.fs.get_file(self._remote(name), tmp)
            yield Path(tmp)
        finally:
            os.unlink(tmp)

    def remove(self, name: str | None = None) -> None:
        """Remove the file ``name``, or the whole folder; what is not there is no error."""
        try:
            if self.url:
                target = self._remote(name) if name else self.root
                if self.fs.exists(target):
                    self.fs.rm(target, recursive=name is None)
            elif name is not None:
                os.unlink(self.path(name))
            else:
                _rmtree(self.where)
        except FileNotFoundError:
            pass

    def move_to(self, other: Location) -> None:
        """Put this folder in ``other``'s place (``other`` must not exist): a rename, or a copy and delete."""
        if self.url:
            self.fs.mv(self.root, other.root, recursive=True)
        else:
            os.rename(self.where, other.where)


def _rmtree(where: str, attempts: int = 20) -> None:
    """Remove the folder ``where``, again while something still writes into it: a cancelled task of an interrupted
    build may add a file after its folder was emptied (rmdir then fails with ENOTEMPTY); a few tries, 50 ms apart,
    outlast it."""
    for attempt in range(attempts):
        try:
            shutil.rmtree(where)
            return
        except OSError as e:
            if e.errno != errno.ENOTEMPTY or attempt == attempts - 1:
                raise
            time.sleep(0.05)

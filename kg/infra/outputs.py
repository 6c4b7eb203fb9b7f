"""Where a command's outputs go, and how they get there.

A file output (``-o``, the workspace graph) is written through: a symlink is followed and the real file is
replaced atomically (a temporary file beside it, renamed over it); a FIFO, a character device, ``-`` and
``/dev/stdout`` are written in place, as a stream; anything else that is not a regular file is refused. A
name ending in ``.gz`` is gzip-compressed (deterministically: no name, no time in the header).

A build's outputs (the workspace graph, ``-o``, ``--store``) are checked before it starts, written under
temporary names and committed together at the end (``Outputs``), under one lock per workspace and per store
folder. Temporary names carry the writer's pid and a random part, so that the next build can remove what a
dead one left. The renames of a commit are listed first in a journal (``.commit`` in the workspace): a build
killed between two renames (SIGKILL cannot be held back) is rolled forward by the next command that opens the
workspace for writing, so the outputs end all new, never mixed.
"""

from __future__ import annotations

import errno
import fcntl
import gzip
import io
import json
import os
import re
import secrets
import shutil
import signal
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from ..errors import Busy, KgError
from . import faults

FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # no room: a full disk, a quota, a file size limit
STDOUT = ("-", "/dev/stdout")
_KINDS = ((stat.S_ISSOCK, "a socket"), (stat.S_ISBLK, "a block device"))


def _tag() -> str:
    """The part of a temporary name that says whose it is: pid and a random part."""
    return f"{os.getpid()}-{secrets.token_hex(4)}"


_OWNED = re.compile(r"[.-](\d+)-[0-9a-f]{8}(?:\.tmp)?$")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_dead(folder: Path, prefix: str) -> None:
    """Remove the temporary files and folders named ``prefix``... whose owner (the pid in the name) is dead,
    and those of older versions of crossref-kg that carry no pid (call it holding the lock of the folder)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not name.startswith(prefix):
            continue
        m = _OWNED.search(name)
        if m is not None and alive(int(m.group(1))):
            continue
        if m is None and not (name.endswith(".tmp") or name.endswith(".building") or name.endswith(".old")):
            continue
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                path.unlink()
            except OSError:
                pass


@dataclass
class Target:
    """A file output: ``shown`` as the user gave it, ``path`` the real file (a symlink resolved), or None for
    standard output; ``stream``: written in place (stdout, a FIFO, a character device), not atomically."""

    shown: str
    path: Path | None
    stream: bool
    gz: bool
    tmp: Path | None = None

    @property
    def folder(self) -> Path:
        assert self.path is not None
        return self.path.parent

    @property
    def prefix(self) -> str:
        assert self.path is not None
        return f".{self.path.name}."


def target(output: str) -> Target:
    """What writing to ``output`` means (see the module's docstring); refuses what cannot be written."""
    gz = output.endswith(".gz")
    if output in STDOUT:
        if sys.stdout is None:  # (started with standard output closed: kg ... >&-)
            raise KgError(f"{output}: cannot be written (standard output is closed); choose another path")
        return Target(output, None, True, gz)
    path = Path(output)
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None
    except OSError as e:
        raise KgError(f"{output}: cannot be written ({e.strerror or e}); choose another path") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise KgError(f"{output}: is a directory; give a file name to write to")
    if mode is not None and (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        return Target(output, path, True, gz)
    if mode is not None and not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise KgError(f"{output}: is {kind}; give a regular file, a FIFO, a character device or '-' to write to")
    real = Path(os.path.realpath(path))  # (a symlink, even dangling, is written through)
    for parent in real.parents:
        if parent.exists():
            if not parent.is_dir():
                raise KgError(f"{output}: cannot be written ({parent} is a file, not a folder); choose another path")
            break
    return Target(output, real, False, gz)


def _cannot(t: Target | str, e: OSError) -> KgError:
    shown = t.shown if isinstance(t, Target) else t
    return KgError(f"{shown}: cannot be written ({e.strerror or e}); choose another path")


def probe(t: Target) -> None:
    """Fail now (before any work) when ``t`` cannot be written: its folder is made and a temporary file is
    created there and removed."""
    if t.path is None:
        return
    if t.stream:
        if not os.access(t.path, os.W_OK):
            raise KgError(f"{t.shown}: cannot be written (Permission denied); choose another path")
        return
    try:
        t.folder.mkdir(parents=True, exist_ok=True)
        tmp = t.folder / f"{t.prefix}{_tag()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise _cannot(t, e) from None


@contextmanager
def opened(t: Target, binary: bool = False) -> Iterator[IO]:
    """The open output: the temporary file of an atomic target (``t.tmp``; renamed by ``put`` or ``commit``),
    or the stream; gzip-compressed when the name ends in .gz."""
    if t.path is None and not t.gz and not binary:
        yield sys.stdout
        sys.stdout.flush()
        return
    own = True
    if t.path is None:
        sys.stdout.flush()
        raw: IO[bytes] = sys.stdout.buffer
        own = False
    elif t.stream:
        try:
            raw = open(t.path, "wb")
        except OSError as e:
            raise _cannot(t, e) from None
    else:
        try:
            t.folder.mkdir(parents=True, exist_ok=True)
            t.tmp = t.folder / f"{t.prefix}{_tag()}.tmp"
            umask = os.umask(0)
            os.umask(umask)
            fd = os.open(t.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 & ~umask)
        except OSError as e:
            t.tmp = None
            raise _cannot(t, e) from None
        raw = os.fdopen(fd, "wb", buffering=1 << 20)
    try:
        # a GzipFile is a binary file object, though not an IO subclass
        inner = cast(IO[bytes], gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)) if t.gz else raw
        text = None if binary else io.TextIOWrapper(inner, encoding="utf-8", newline="\n")
        fh: IO = inner if text is None else text
        yield fh
        fh.flush()
        if text is not None:
            text.detach()
        if t.gz:
            inner.close()
        raw.flush()
        if t.tmp is not None:
            os.fsync(raw.fileno())
    except BaseException:
        if own:
            try:
                raw.close()
            except OSError:
                pass
        discard(t)
        raise
    if own:
        raw.close()


def discard(t: Target) -> None:
    if t.tmp is not None:
        try:
            os.unlink(t.tmp)
        except FileNotFoundError:
            pass
        t.tmp = None


def put(t: Target) -> None:
    """Rename the written temporary file over the real one."""
    if t.tmp is not None:
        assert t.path is not None
        os.replace(t.tmp, t.path)
        t.tmp = None


@contextmanager
def atomic_writer(output: str | Path, binary: bool = False) -> Iterator[IO]:
    """Write ``output`` (see ``target``): atomically when it is a file, the temporary file renamed into place
    only when all went well."""
    t = target(str(output))
    with opened(t, binary) as fh:
        yield fh
    try:
        put(t)
    except BaseException as e:
        discard(t)
        if isinstance(e, OSError) and e.errno not in FULL:
            raise _cannot(t, e) from None
        raise


# ---------------------------------------------------------------- locks


class Lock:
    """An exclusive lock on a file (flock); ``what`` names the thing it guards in the busy message."""

    def __init__(self, path: Path, what: str, shown: str, other: str) -> None:
        self.path, self.what, self.shown, self.other = path, what, shown, other
        self.fd: int | None = None

    def acquire(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise KgError(f"{self.shown}: cannot be written ({e.strerror or e}); make it writable or "
                          f"{self.other}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                owner = os.read(fd, 32).decode("ascii", "replace").strip()
            finally:
                os.close(fd)
            by = f" (pid {owner})" if owner.isdigit() else ""
            raise Busy(f"{self.shown}: busy: another build{by} is writing this {self.what}; wait for it to "
                       f"finish, or {self.other}") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


# ---------------------------------------------------------------- a build's outputs together


def full_disk(shown: str, e: OSError) -> KgError:
    return KgError(f"{shown}: no space left on the device ({e.strerror or e}); free some space there or choose "
                   "another path, and run again; nothing was replaced: the workspace graph and the outputs are "
                   "as they were")


JOURNAL = ".commit"  # in the workspace: the renames of a commit under way


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _write_journal(path: Path, steps: list[list[str]]) -> None:
    tmp = path.with_name(f"{path.name}.{_tag()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"steps": steps}, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _run_steps(steps: list[list[str]], faults_between: bool) -> list[Path]:
    """Do the renames of a journal that are not done yet (a step whose source is gone is done); the old
    stores replaced, to be removed."""
    stale: list[Path] = []
    for i, (kind, source, dest) in enumerate(steps):
        src, dst = Path(source), Path(dest)
        if not os.path.lexists(src):
            continue
        if kind == "store":
            if dst.exists():
                old = dst.with_name(f".{dst.name}.old-{_tag()}")
                dst.rename(old)
                stale.append(old)
            src.rename(dst)
        else:
            os.replace(src, dst)
        if faults_between and i == 0 and len(steps) > 1:
            faults.reached("commit-half")
    return stale


class Outputs:
    """The outputs of one build: the workspace graph (and its record of the inputs), ``-o`` and ``--store``.

    ``open()`` takes the locks, removes what dead builds left and checks that every output can be written;
    the build writes each one under a temporary name; ``commit()`` renames them all into place with the
    interrupting signals held back, so that an interruption or a failure leaves all old or all new;
    ``close()`` removes whatever was not committed and lets the locks go."""

    def __init__(self, workspace: Path, graph: Path, output: str | None, store: Path | None) -> None:
        self.workspace = workspace
        self.graph = target(str(graph))
        if self.graph.stream:
            raise KgError(f"{graph}: the workspace graph is not a regular file; remove it or set KG_HOME to "
                          "another folder")
        self.graph.gz = False
        self.output = target(output) if output else None
        self.store = Path(store) if store is not None else None
        self.store_building: Path | None = None
        self.extra: list[Target] = []  # more files of the workspace committed with the graph
        self.committed = False
        self.rolled_forward = False
        self._locks: list[Lock] = []
        self.created = not workspace.exists()

    def open(self) -> None:
        try:
            self.workspace.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise KgError(f"{self.workspace}: cannot be written ({e.strerror or e}); make it writable or set "
                          "KG_HOME to another folder") from None
        self._lock(Lock(self.workspace / ".lock", "workspace", str(self.workspace),
                        "set KG_HOME to another folder"))
        self.rolled_forward = self.roll_forward()  # (before the clean-up: the journal names temporary files)
        remove_dead(self.workspace, ".")  # (temporary files of the graph and the record of its inputs)
        probe(self.graph)
        if self.output is not None:
            if self.output.path is not None and self.output.path == self.graph.path:
                raise KgError(f"{self.output.shown}: is the workspace graph; choose another path for -o")
            if not self.output.stream:
                remove_dead(self.output.folder, self.output.prefix)
            probe(self.output)
        if self.store is not None:
            self._open_store()

    def _open_store(self) -> None:
        assert self.store is not None
        store, parent = self.store, self.store.parent
        if store.exists() and not store.is_dir():
            raise KgError(f"{store}: is a file, not a store folder; choose another --store folder")
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise KgError(f"{store}: cannot be written ({e.strerror or e}); choose another --store folder") from None
        self._lock(Lock(parent / f".{store.name}.lock", "store folder", str(store),
                        "choose another --store folder"))
        remove_dead(parent, f".{store.name}.building")
        remove_dead(parent, f".{store.name}.old")
        if store.is_dir() and not os.access(store, os.W_OK | os.X_OK):
            raise KgError(f"{store}: cannot be replaced (the folder is read-only); make it writable or choose "
                          "another --store folder")
        building = parent / f".{store.name}.building-{_tag()}"
        try:
            building.mkdir()
        except OSError as e:
            raise KgError(f"{store}: cannot be written ({e.strerror or e}); choose another --store folder") from None
        self.store_building = building

    def _lock(self, lock: Lock) -> None:
        lock.acquire()
        self._locks.append(lock)

    @property
    def journal(self) -> Path:
        return self.workspace / JOURNAL

    def commit(self) -> None:
        """Rename every written output into place, the store first and the workspace graph last, with SIGINT,
        SIGTERM and SIGHUP held until all are in place; the renames are written to the journal first, so that
        a SIGKILL between two of them is finished by the next build (``roll_forward``)."""
        held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
        try:
            steps: list[list[str]] = []
            if self.store is not None and self.store_building is not None:
                steps.append(["store", os.path.abspath(self.store_building), os.path.abspath(self.store)])
            for t in [*([self.output] if self.output is not None else []), *self.extra, self.graph]:
                if t.tmp is not None and t.path is not None:
                    steps.append(["file", os.path.abspath(t.tmp), os.path.abspath(t.path)])
            _write_journal(self.journal, steps)
            stale = _run_steps(steps, faults_between=True)
            self.store_building = None
            for t in [*([self.output] if self.output is not None else []), *self.extra, self.graph]:
                t.tmp = None
            self.committed = True
            os.unlink(self.journal)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        for folder in stale:
            shutil.rmtree(folder, ignore_errors=True)

    def roll_forward(self) -> bool:
        """Finish the commit of a build that was killed while putting its outputs in place (its journal is
        still there and its lock is gone, as this build holds it); True when there was one."""
        try:
            steps = json.loads(self.journal.read_text(encoding="utf-8"))["steps"]
        except FileNotFoundError:
            return False
        except (OSError, ValueError, KeyError, TypeError):  # (a journal cut short: nothing was renamed yet)
            _unlink(self.journal)
            return False
        for folder in _run_steps(steps, faults_between=False):
            shutil.rmtree(folder, ignore_errors=True)
        for kind, _, dest in steps:  # (the old store the killed build had set aside)
            if kind == "store":
                remove_dead(Path(dest).parent, f".{Path(dest).name}.old")
        _unlink(self.journal)
        return True

    def close(self) -> None:
        for t in [self.graph, *self.extra, *([self.output] if self.output else [])]:
            discard(t)
        if self.store_building is not None:
            shutil.rmtree(self.store_building, ignore_errors=True)
            self.store_building = None
        for lock in reversed(self._locks):
            lock.release()
        self._locks.clear()
        if self.created:
            try:
                names = os.listdir(self.workspace)
            except OSError:
                return
            if names == [".lock"]:  # nothing was written: leave no workspace behind
                try:
                    os.unlink(self.workspace / ".lock")
                    self.workspace.rmdir()
                except OSError:
                    pass

    def __enter__(self) -> Outputs:
        try:
            self.open()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def writing(self, t: Target, binary: bool = False) -> Iterator[IO]:
        """``opened(t)``, a full disk named as ``t``'s."""
        try:
            with opened(t, binary) as fh:
                yield fh
        except OSError as e:
            if e.errno in FULL:
                raise full_disk(t.shown, e) from None
            raise

"""A partitioned graph: a folder of gzipped canonical N-Quads parts and a manifest written last.

The contract every writer and reader keeps:

- the folder holds ``part-00000.nq.gz``, ``part-00001.nq.gz``, ... and ``manifest.json``;
- the parts are range partitions of the canonical sorted graph: their gunzipped concatenation in name order is
  byte for byte the ``graph.nq`` a local build writes;
- ``manifest.json`` is written last; a folder without one is not a graph (a build that failed or was cancelled)
  and readers refuse it;
- the manifest is a JSON object with at least ``format`` (:data:`FORMAT`), ``version`` and ``parts``: a list, in
  order, of objects with ``name`` and ``lines`` (the number of lines of that part). Writers add what they know
  (triple counts, inputs, options, the workers that ran). ``syntax`` is ``N-Triples`` for the parts ``kg export
  --parts`` writes for bulk loaders (``part-00000.nt.gz``: each triple once), which are no graph to kg's readers.

The folder may be a path or an fsspec URL (``kg.infra.location``).
"""

from __future__ import annotations

import gzip
import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

from ..errors import InputError
from .location import Location, is_url

MANIFEST = "manifest.json"
FORMAT = "crossref-kg parts"
VERSION = 1
COMPRESS = 3  # zlib's gzip level for the parts: 2.5 times as fast as level 6 on N-Quads, for files 15% larger
# with the isal package (the cluster extra installs it), its igzip writes the parts: at its level 2, 5 times as fast
# as zlib's level 3 on N-Quads (0.22 against 1.13 CPU seconds for 300 MB of the graph), for parts ~5% larger
ISAL_LEVEL = 2
Graph = Path | str  # a graph file or parts folder: a path, or the URL of a parts folder


def part_name(i: int, ext: str = "nq") -> str:
    """The file name of part ``i`` (0-based).

    >>> part_name(7)
    'part-00007.nq.gz'
    """
    return f"part-{i:05d}.{ext}.gz"


def gzip_writer(path: Path | str) -> IO[bytes]:
    """A gzip file being written at ``path``, with no time stamp (the same bytes every build): isal's igzip where
    the package is installed (much faster), else zlib's; both read back by any gzip reader."""
    try:
        from isal import igzip  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return cast(IO[bytes], gzip.GzipFile(path, "wb", compresslevel=COMPRESS, mtime=0))
    return cast(IO[bytes], igzip.IGzipFile(path, "wb", compresslevel=ISAL_LEVEL, mtime=0))


def location(folder: Graph | Location) -> Location:
    return folder if isinstance(folder, Location) else Location(folder)


def exists(graph: Graph) -> bool:
    """Whether a graph file or parts folder (a path or a URL) is there."""
    return location(graph).exists() if is_url(graph) else Path(graph).exists()


def is_folder(graph: Graph) -> bool:
    """Whether ``graph`` is a folder (a parts folder, as readers take it), at a path or a URL."""
    return location(graph).is_folder() if is_url(graph) else Path(graph).is_dir()


def read_manifest(folder: Graph | Location, syntax: str = "N-Quads") -> dict[str, Any]:
    """The manifest of a finished parts folder of ``syntax`` (N-Quads: a graph; N-Triples: ``kg export --parts``);
    an :class:`InputError` naming the folder when it is not one."""
    loc = location(folder)
    where = str(loc)
    try:
        text = loc.read(MANIFEST).decode("utf-8")
    except FileNotFoundError:
        raise InputError(where, f"has no {MANIFEST}: it is not a finished partitioned graph",
                         "the build that wrote it failed or was cancelled; run kg build again") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{where}/{MANIFEST}", f"is not JSON ({e})", "run kg build again") from None
    try:
        manifest = json.loads(text)
    except ValueError as e:
        raise InputError(f"{where}/{MANIFEST}", f"is not JSON ({e})", "run kg build again") from None
    if not isinstance(manifest, dict):
        manifest = {}
    parts = manifest.get("parts")
    if manifest.get("format") != FORMAT or not isinstance(parts, list) or not all(
            isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("lines"), int)
            for p in parts):
        raise InputError(f"{where}/{MANIFEST}", f"is not a {FORMAT!r} manifest",
                         "point kg at the folder kg build --parts wrote")
    if manifest.get("syntax", "N-Quads") != syntax:
        raise InputError(where, f"holds {manifest.get('syntax')} parts for bulk loaders, not a graph",
                         "point kg at the parts folder kg build wrote")
    for p in parts:
        if "/" in p["name"] or "\\" in p["name"] or p["name"].startswith("."):
            raise InputError(f"{where}/{MANIFEST}", f"names a part outside the folder: {p['name']!r}",
                             "point kg at the folder kg build --parts wrote")
    return manifest


def part_paths(folder: Path | str) -> list[Path]:
    """The parts of a finished local parts folder, in order."""
    folder = Path(folder)
    return [folder / p["name"] for p in read_manifest(folder)["parts"]]


def open_parts(folder: Graph | Location, syntax: str = "N-Quads", names: list[str] | None = None,
               ) -> Iterator[IO[bytes]]:
    """Each part of a finished parts folder (or the parts ``names`` of one being written), in order, opened
    gunzipped (closed when the next is asked for)."""
    loc = location(folder)
    for name in names if names is not None else [p["name"] for p in read_manifest(loc, syntax)["parts"]]:
        with loc.open(name) as raw, gzip.open(raw, "rb") as fh:
            yield cast(IO[bytes], fh)  # (a GzipFile is a binary file object, though not an IO subclass)


def lines(folder: Graph | Location, names: list[str] | None = None) -> Iterator[str]:
    """The canonical lines of a partitioned graph, in order (the parts gunzipped and concatenated); ``names``: of
    the parts of a folder being written (it has no manifest yet)."""
    for fh in open_parts(folder, names=names):
        for line in fh:
            yield line.decode("utf-8")


POINTER = "graph.parts"  # in a workspace: a text file naming the parts folder its graph is


def workspace_graph(workspace: Path | str) -> Graph:
    """The graph a workspace refers to: the parts folder its ``graph.parts`` names (a path relative to the
    workspace, an absolute path, or a URL), else its ``graph.nq``."""
    ws = Path(workspace)
    try:
        named = (ws / POINTER).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ws / "graph.nq"
    if is_url(named):
        return named
    return ws / named if named else ws / "graph.nq"


Piece = tuple[Location, str, int, int]  # a file of a folder and a byte range of it; end -1: a whole gzipped part


def graph_pieces(folder: Graph | Location) -> list[Piece]:
    """The parts of a finished parts folder, as pieces for ``write_triples``."""
    loc = location(folder)
    return [(loc, p["name"], 0, -1) for p in read_manifest(loc)["parts"]]


def file_pieces(path: Path, n: int) -> list[Piece]:
    """A canonical N-Quads file cut into ``n`` byte ranges of about equal size, each of whole lines."""
    size = path.stat().st_size
    cuts = [0]
    with open(path, "rb") as fh:
        for i in range(1, n):
            fh.seek(max(0, size * i // n - 1))
            fh.readline()  # (the rest of the line holding that byte: the next line starts after it)
            if cuts[-1] < fh.tell() < size:
                cuts.append(fh.tell())
    loc = Location(path.parent)
    return [(loc, path.name, a, b) for a, b in zip(cuts, [*cuts[1:], size], strict=True)]


def _lines(piece: Piece, block: int = 1 << 20) -> Iterator[bytes]:
    """The lines (without line break) of a piece."""
    loc, name, start, end = piece
    with loc.open(name) as raw:
        fh: IO[bytes] = cast(IO[bytes], gzip.open(raw, "rb")) if end < 0 else raw
        if end >= 0:
            fh.seek(start)
        left = end - start if end >= 0 else -1
        carry = b""
        while left:
            data = fh.read(block if left < 0 else min(block, left))
            if not data:
                break
            left -= len(data) if left > 0 else 0
            lines = (carry + data).split(b"\n")
            carry = lines.pop()
            yield from lines
        if carry:
            yield carry


def _first_triple(piece: Piece) -> bytes | None:
    for line in _lines(piece, 1 << 16):
        return line[:line.rindex(b" <")]
    return None


def _triples_part(piece: Piece, drop: bytes | None, out: Location, name: str) -> int:
    """One N-Triples part: the triples of the quad lines of ``piece``, each once, but ``drop`` when the piece ends
    with it (the next piece starts with it: it is written there); the number written."""
    n = 0
    last: bytes | None = None
    block: list[bytes] = []
    with out.writing(name) as path, gzip_writer(path) as gz:
        for line in _lines(piece):
            triple = line[:line.rindex(b" <")]
            if triple != last:
                if last is not None:
                    block.append(last + b" .\n")
                    if len(block) >= 8192:
                        gz.write(b"".join(block))
                        n += len(block)
                        block.clear()
                last = triple
        if last is not None and last != drop:
            block.append(last + b" .\n")
        gz.write(b"".join(block))
        n += len(block)
    return n


def write_triples(pieces: list[Piece], folder: Location, info: dict[str, Any], jobs: int = 1) -> dict[str, Any]:
    """N-Triples parts for bulk loaders, ``part-00000.nt.gz`` ..., one per piece of a canonical graph (its parts, or
    byte ranges of its file), in ``jobs`` processes: each triple once across all parts. It holds because the
    canonical order sorts a line by its triple first (the triple's tokens, a space, the graph IRI), so the lines of
    a triple in several graphs are adjacent, within a piece or across the end of one and the start of the next;
    a part leaves out a last triple that the next non-empty piece starts with. A part holds one line in memory.
    Written in a temporary folder beside ``folder``, put in place, the manifest last; the manifest (``info``
    added)."""
    from concurrent.futures import ProcessPoolExecutor

    tmp = folder.sibling(f".{folder.name}.building-{os.getpid()}-{secrets.token_hex(4)}")
    tmp.make()
    try:
        firsts = [_first_triple(p) for p in pieces]
        drops = [next((f for f in firsts[i + 1:] if f is not None), None) for i in range(len(pieces))]
        names = [part_name(i, "nt") for i in range(len(pieces))]
        if jobs > 1 and len(pieces) > 1:
            with ProcessPoolExecutor(min(jobs, len(pieces))) as pool:
                counts = list(pool.map(_triples_part, pieces, drops, [tmp] * len(pieces), names))
        else:
            counts = [_triples_part(p, d, tmp, n) for p, d, n in zip(pieces, drops, names, strict=True)]
        written = [{"name": n, "lines": c, "triples": c} for n, c in zip(names, counts, strict=True)]
        total = sum(counts)
        manifest = {"format": FORMAT, "version": VERSION, "syntax": "N-Triples", "parts": written, "lines": total,
                    "triples": total, **info}
        commit(tmp, folder, manifest)
    except BaseException:
        tmp.remove()
        raise
    return manifest


def commit(tmp: Location, folder: Location, manifest: dict[str, Any]) -> None:
    """Put the parts written in ``tmp`` in ``folder``'s place and write the manifest, last. On a local disk the old
    folder is renamed aside first; at a URL (no renames there) its manifest is removed first, so that a reader
    never takes a half-written folder for a graph."""
    old = folder.sibling(f".{folder.name}.old-{secrets.token_hex(4)}")
    if folder.exists():
        if folder.url:
            folder.remove(MANIFEST)
            folder.remove()
        else:
            folder.move_to(old)
    tmp.move_to(folder)
    folder.write(MANIFEST, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    old.remove()

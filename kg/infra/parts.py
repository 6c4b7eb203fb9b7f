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
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from ..errors import InputError
from .location import Location, is_url

MANIFEST = "manifest.json"
FORMAT = "crossref-kg parts"
VERSION = 1
COMPRESS = 6  # gzip level of the parts
Graph = Path | str  # a graph file or parts folder: a path, or the URL of a parts folder


def part_name(i: int, ext: str = "nq") -> str:
    """The file name of part ``i`` (0-based).

    >>> part_name(7)
    'part-00007.nq.gz'
    """
    return f"part-{i:05d}.{ext}.gz"


def location(folder: Graph | Location) -> Location:
    return folder if isinstance(folder, Location) else Location(folder)


def is_parts(path: Graph) -> bool:
    """Whether ``path`` is a folder meant as a partitioned graph (a manifest, or parts, inside)."""
    loc = location(path)
    return loc.is_folder() and (loc.exists(MANIFEST) or any(n.startswith("part-") for n in loc.names()))


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


def write_triples(sources: Iterable[Iterable[str]], folder: Location, info: dict[str, Any]) -> dict[str, Any]:
    """N-Triples parts for bulk loaders, ``part-00000.nt.gz`` ..., one per item of ``sources`` (canonical quad lines,
    in order: the parts of a graph one after the other): each triple once across all parts, holding one line in
    memory. It holds because the canonical order sorts a line by its triple first (the triple's tokens, a space,
    the graph IRI), so the lines of a triple in several graphs are adjacent, within a part or across the end of one
    and the start of the next. Written in a temporary folder beside ``folder``, put in place, the manifest last;
    the manifest (``info`` added)."""
    tmp = folder.sibling(f".{folder.name}.building-{os.getpid()}-{secrets.token_hex(4)}")
    tmp.make()
    try:
        written: list[dict[str, Any]] = []
        last = None
        for i, lines in enumerate(sources):
            name = part_name(i, "nt")
            n = 0
            with tmp.writing(name) as path:
                with gzip.GzipFile(path, "wb", compresslevel=COMPRESS, mtime=0) as gz:
                    block: list[str] = []
                    for line in lines:
                        triple = line[:line.rindex(" <", 0, len(line) - 3)] + " .\n"
                        if triple != last:
                            block.append(triple)
                            last = triple
                            if len(block) >= 4096:
                                gz.write("".join(block).encode("utf-8"))
                                n += len(block)
                                block.clear()
                    gz.write("".join(block).encode("utf-8"))
                    n += len(block)
            written.append({"name": name, "lines": n, "triples": n})
        total = sum(p["lines"] for p in written)
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

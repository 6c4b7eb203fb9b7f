"""A partitioned graph: a folder of gzipped canonical N-Quads parts and a manifest written last.

The contract every writer and reader keeps:

- the folder holds ``part-00000.nq.gz``, ``part-00001.nq.gz``, ... and ``manifest.json``;
- the parts are range partitions of the canonical sorted graph: their gunzipped concatenation in name order is
  byte for byte the ``graph.nq`` a local build writes;
- ``manifest.json`` is written last; a folder without one is not a graph (a build that failed or was cancelled)
  and readers refuse it;
- the manifest is a JSON object with at least ``format`` (:data:`FORMAT`), ``version`` and ``parts``: a list, in
  order, of objects with ``name`` and ``lines`` (the number of lines of that part). Writers add what they know
  (triple counts, inputs, options, the workers that ran).
"""

from __future__ import annotations

import gzip
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import InputError

MANIFEST = "manifest.json"
FORMAT = "crossref-kg parts"
VERSION = 1
COMPRESS = 6  # gzip level of the parts: level 9 costs about twice the time for a few per cent


def part_name(i: int) -> str:
    """The file name of part ``i`` (0-based).

    >>> part_name(7)
    'part-00007.nq.gz'
    """
    return f"part-{i:05d}.nq.gz"


def is_parts(path: Path | str) -> bool:
    """Whether ``path`` is a folder meant as a partitioned graph (a manifest, or parts, inside)."""
    p = Path(path)
    return p.is_dir() and ((p / MANIFEST).exists() or any(p.glob("part-*.nq.gz")))


def read_manifest(folder: Path | str) -> dict[str, Any]:
    """The manifest of a finished parts folder; an :class:`InputError` naming the folder when it is not one."""
    folder = Path(folder)
    where = str(folder)
    try:
        text = (folder / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(where, f"has no {MANIFEST}: it is not a finished partitioned graph",
                         "the build that wrote it failed or was cancelled; run kg build again") from None
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
    for p in parts:
        if "/" in p["name"] or "\\" in p["name"] or p["name"].startswith("."):
            raise InputError(f"{where}/{MANIFEST}", f"names a part outside the folder: {p['name']!r}",
                             "point kg at the folder kg build --parts wrote")
    return manifest


def part_paths(folder: Path | str) -> list[Path]:
    """The parts of a finished parts folder, in order."""
    folder = Path(folder)
    return [folder / p["name"] for p in read_manifest(folder)["parts"]]


def lines(folder: Path | str) -> Iterator[str]:
    """The canonical lines of a partitioned graph, in order (the parts gunzipped and concatenated)."""
    for path in part_paths(folder):
        with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
            yield from fh


POINTER = "graph.parts"  # in a workspace: a text file naming the parts folder its graph is


def workspace_graph(workspace: Path | str) -> Path:
    """The graph a workspace refers to: the parts folder its ``graph.parts`` names (a path relative to the
    workspace, or absolute), else its ``graph.nq``."""
    ws = Path(workspace)
    try:
        named = (ws / POINTER).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ws / "graph.nq"
    return ws / named if named else ws / "graph.nq"


def _copied(src: IO[bytes], n: int, out: IO[bytes] | gzip.GzipFile, written: list[int]) -> Iterator[bytes]:
    """The next ``n`` lines of ``src``, each written to ``out`` as it passes (so no part is held in memory) and
    counted in ``written[0]``; yielded without their line break."""
    for line in itertools.islice(src, n):
        out.write(line)
        written[0] += 1
        yield line.rstrip(b"\n")


def write_parts(graph: Path, folder: Path, n: int, info: dict[str, Any]) -> dict[str, Any]:
    """Split the canonical file ``graph`` into ``n`` parts (range partitions by line, as equal as the lines
    allow) in a temporary folder beside ``folder``, put it in ``folder``'s place and write the manifest last;
    the manifest (``info`` added: inputs, options, workers). A failure leaves no folder with a manifest."""
    from ..rdf.nquads import count_triples
    from .outputs import _tag, atomic_writer, remove_dead
    parent = folder.parent
    parent.mkdir(parents=True, exist_ok=True)
    remove_dead(parent, f".{folder.name}.")
    with open(graph, "rb") as fh:
        total = sum(1 for _ in fh)
    per = max(1, -(-total // max(1, n)))
    tmp = parent / f".{folder.name}.building-{_tag()}"
    tmp.mkdir()
    parts: list[dict[str, Any]] = []
    last: bytes | None = None
    triples = 0
    try:
        with open(graph, "rb") as src:
            for i in range(max(1, n)):
                with gzip.GzipFile(tmp / part_name(i), "wb", compresslevel=COMPRESS, mtime=0) as out:
                    written = [0]
                    count, last = count_triples(_copied(src, per, out, written), last)
                triples += count
                parts.append({"name": part_name(i), "lines": written[0], "triples": count})
        manifest = {"format": FORMAT, "version": VERSION, "parts": parts, "lines": total, "triples": triples, **info}
        old = parent / f".{folder.name}.old-{_tag()}"
        if folder.exists():
            folder.rename(old)
        tmp.rename(folder)
        with atomic_writer(folder / MANIFEST) as fh:
            fh.write(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    except BaseException:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old.exists():
        import shutil
        shutil.rmtree(old, ignore_errors=True)
    return manifest

"""The shapes: the Turtle files of shapes/ (or a folder the user names) in one graph, parsed once per process
where a worker needs them, and checked against SHACL-SHACL."""

from __future__ import annotations

import re
from pathlib import Path

from rdflib import Graph, Literal
from rdflib.namespace import SH

from ..errors import InputError
from ..resources import shapes_dir
from .engine_pyshacl import SHAPES_FILES, quiet_libraries
from .words import NO_WORDS, Words, words_of


def load_shapes(directory: Path | None = None) -> Graph:
    """Every .ttl file of the shapes directory, in one graph; bad shapes are an InputError."""
    folder = directory or shapes_dir()
    files = _files(folder)
    if not files:
        raise InputError(str(folder), "holds no shapes (.ttl files)", "give --shapes a folder of SHACL Turtle files")
    g = Graph()
    for f in files:
        try:
            parse_shapes(g, f)
        except Exception as e:  # rdflib raises many parser exception types
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise InputError(str(f), f"is not valid Turtle ({first})", "fix the shapes file") from None
    for pattern in g.objects(None, SH.pattern):
        try:
            re.compile(str(pattern))
        except re.error as e:
            where = next((str(f) for f in files if (None, SH.pattern, pattern) in Graph().parse(f)), str(folder))
            raise InputError(where, f"has an invalid sh:pattern {str(pattern)!r} ({e})",
                             "fix the regular expression") from None
    SHAPES_FILES[g] = files
    _WORDS[_stamp(files)] = words_of(g)
    return g


_WORDS: dict[tuple, Words] = {}  # the phrases of the shapes files last loaded, by their names, times and sizes


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.ttl")) if folder.is_dir() else []


def _stamp(files: list[Path]) -> tuple:
    return tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)


def shape_words(directory: Path | None = None) -> Words:
    """What the results of the shapes of a folder count (``kg.validate.words``): read when the shapes were
    loaded in this process, unless their files changed since."""
    key = _stamp(_files(directory or shapes_dir()))
    if key not in _WORDS:
        load_shapes(directory)
    return _WORDS.get(key, NO_WORDS)


def parse_shapes(g: Graph, f: Path) -> Graph:
    """Parse a shapes file into ``g`` as rdflib would, but for the values of sh:uniqueLang, kept as written: SHACL
    activates it for ``true`` only, and rdflib would turn "1"^^xsd:boolean into "true" (W3C uniqueLang-002)."""
    import rdflib
    part = Graph()
    normalize = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    try:
        with quiet_libraries():  # (rdflib logs a traceback for each ill-typed literal it reads)
            part.parse(f, format="turtle", publicID=f.resolve().as_uri())
    finally:
        rdflib.NORMALIZE_LITERALS = normalize
    for prefix, ns in part.namespaces():
        g.bind(prefix, ns, override=False)
    with quiet_libraries():
        for s, p, o in part:
            if isinstance(o, Literal) and p != SH.uniqueLang:
                o = Literal(str(o), lang=o.language, datatype=o.datatype)  # (normalized, as rdflib reads it)
            g.add((s, p, o))
    return g


_SHAPES_BY_FOLDER: dict[Path | None, Graph] = {}


def shapes_of(folder: Path | None) -> Graph:
    """The shapes of a folder, parsed once per worker process."""
    if folder not in _SHAPES_BY_FOLDER:
        _SHAPES_BY_FOLDER[folder] = load_shapes(folder)
    return _SHAPES_BY_FOLDER[folder]


def shapes_conform_to_shacl_shacl(shapes: Graph) -> tuple[bool, str]:
    """Check the shapes graph against the SHACL-SHACL meta shapes that pySHACL ships."""
    from pyshacl.entrypoints import meta_validate
    conforms, _g, text = meta_validate(shapes, inference="rdfs")
    return bool(conforms), text


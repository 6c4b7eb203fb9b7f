"""Reading RDF files: the formats by name and extension, gzip, any RDF format into canonical N-Quads lines
(``kg.rdf.nquads``), and a JSON-LD reader for the documents ``kg export`` writes.

>>> format_named("ttl"), format_named("n-quads")
('turtle', 'nquads')
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import IO, cast

import orjson
import pyoxigraph as ox

from ..errors import InputError
from .nquads import quad, triple
from .terms import iri, lang_lit, lit
from .vocab import RDF

DEFAULT_GRAPH = "<urn:x-crossref-kg:default>"  # the graph name of a file's default-graph triples
# The RDF formats by name, and the other names (and extensions) of each: one table for the graph readers
# (``-g FILE.EXT``, ``--graph-format``) and the writers (``kg export -o FILE.EXT``, ``-f``), so that what kg
# writes it reads back under the same name.
RDF_FORMATS = {
    "turtle": ox.RdfFormat.TURTLE, "json-ld": ox.RdfFormat.JSON_LD, "nt": ox.RdfFormat.N_TRIPLES,
    "nquads": ox.RdfFormat.N_QUADS, "trig": ox.RdfFormat.TRIG, "xml": ox.RdfFormat.RDF_XML,
}
FORMAT_ALIASES = {"ttl": "turtle", "jsonld": "json-ld", "json": "json-ld", "ntriples": "nt", "n-triples": "nt",
                  "nq": "nquads", "n-quads": "nquads", "rdf": "xml", "rdfxml": "xml", "rdf/xml": "xml", "owl": "xml"}


def format_named(name: str) -> str | None:
    """The format a name or extension (without its dot) stands for, any case: ``ttl`` -> ``turtle``; None if none.

    >>> format_named("TTL"), format_named("json-ld"), format_named("txt")
    ('turtle', 'json-ld', None)
    """
    key = name.lower()
    key = FORMAT_ALIASES.get(key, key)
    return key if key in RDF_FORMATS else None


def graph_extensions() -> list[str]:
    """Every extension a graph file may have (before an optional .gz), as the readers and ``kg export`` accept."""
    return sorted("." + n for n in [*RDF_FORMATS, *FORMAT_ALIASES] if "/" not in n)


# ---------------------------------------------------------------- files


def canonical_lines(path: Path) -> Iterator[str]:
    """The lines of a canonical N-Quads file (as ``kg build`` writes the workspace graph), streamed."""
    with open(path, encoding="utf-8", newline="\n") as fh:
        yield from fh


def is_canonical(path: Path) -> bool:
    """Whether an N-Quads file is in crossref-kg's canonical form (as ``kg build`` writes it): sorted,
    unique lines of IRIs and literals, every statement in a named graph."""
    last = ""
    try:
        with open(path, encoding="utf-8", newline="\n") as fh:
            for line in fh:
                if line <= last or not line.startswith("<") or not line.endswith("> .\n") or "_:" in line:
                    return False
                last = line
    except (OSError, UnicodeDecodeError):
        return False
    return bool(last)


def rdf_format(path: Path, fmt: str | None = None) -> "ox.RdfFormat":
    """The format of a graph file: ``fmt`` (a format name, ``--graph-format``) when given, else by its extension
    (before a .gz: the file is gzipped, as ``kg build -o`` writes ``FILE.ttl.gz``)."""
    if fmt is not None:
        name = format_named(fmt)
        if name is None:
            raise InputError(str(path), f"--graph-format {fmt!r} is no RDF format",
                             f"use one of: {', '.join(RDF_FORMATS)}")
        return RDF_FORMATS[name]
    named = Path(path.stem) if path.suffix.lower() == ".gz" else path
    name = format_named(named.suffix[1:]) if named.suffix else None
    if name is None:
        raise InputError(str(path), f"has an unknown RDF extension {named.suffix!r}",
                         f"use one of {', '.join(graph_extensions())} (gzipped or not), or say the format with "
                         "--graph-format")
    return RDF_FORMATS[name]


def open_graph(path: Path) -> IO[bytes]:
    """A graph file opened for reading, expanded as a stream when its name ends in .gz."""
    if Path(path).suffix.lower() == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))  # a GzipFile is a binary file object, not an IO subclass
    return open(path, "rb")


def base_iri(path: Path) -> str:
    """The base IRI of a graph file: its own file URI (relative IRIs resolve against it, as in other RDF tools)."""
    return path.resolve().as_uri()


def read_graph_lines(path: Path, prefixes: dict[str, str] | None = None, fmt: str | None = None) -> list[str]:
    """Canonical sorted N-Quads lines of a graph file (any RDF format, by its extension or ``fmt``; relative IRIs
    against the file's URI); the prefixes the file declares go into ``prefixes`` when given (the first
    declaration of a prefix wins).
    A folder is a partitioned graph (``kg build --cluster``'s parts, ``kg.infra.parts``): its lines are canonical."""
    if Path(path).is_dir():
        from ..infra import parts
        return list(parts.lines(path))
    lines = set()
    try:
        rdf = rdf_format(path, fmt)
        with open_graph(path) as fh:
            parser = ox.parse(fh, format=rdf, base_iri=base_iri(path))
            for q in parser:
                g = DEFAULT_GRAPH if isinstance(q.graph_name, ox.DefaultGraph) else str(q.graph_name)
                lines.add(quad(str(q.subject), str(q.predicate), str(q.object), g))
            if prefixes is not None:
                for prefix, ns in (parser.prefixes or {}).items():
                    prefixes.setdefault(prefix, ns)
    except FileNotFoundError:
        raise InputError(str(path), "does not exist", "check the path") from None
    except MemoryError:  # (Oxigraph's JSON-LD parser holds at most 16 MiB of one value: read what kg writes itself)
        if rdf_format(path, fmt) != ox.RdfFormat.JSON_LD:
            read = None
        else:
            with open_graph(path) as fh:
                read = read_jsonld_lines(fh.read(), DEFAULT_GRAPH)
        if read is None:
            raise InputError(str(path), "holds a value too large for the RDF parser",
                             "convert it to N-Quads or Turtle with another tool and read that") from None
        return read
    except (SyntaxError, ValueError, OSError, EOFError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(str(path), f"is not a readable RDF graph ({first})", "check the file and its format") from None
    return sorted(lines)


def _nt_lit(value: str, datatype: str | None = None, lang: str | None = None) -> str:
    if lang:
        return lang_lit(value, lang)
    return lit(value, iri(datatype) if datatype else None)


def read_jsonld_lines(data: bytes, graph: str | None) -> list[str] | None:  # noqa: C901 - each branch rejects one shape the fast reader does not know (it returns None then)
    """The N-Quads lines (all in ``graph``) of a JSON-LD document of the shape ``write_jsonld`` writes (a
    context of prefixes, a flat ``@graph`` of node objects, each maybe resetting the context), read without a
    JSON-LD processor's buffer limit; None when the document is of another shape (a general JSON-LD
    processor must read it). ``graph`` None gives N-Triples lines."""
    line: Callable[[str, str, str], str] = partial(quad, g=graph) if graph else triple  # (graph None: N-Triples)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict) or set(doc) - {"@context", "@graph"} or not isinstance(doc.get("@graph"), list):
        return None
    ctx = doc.get("@context", {})
    if not isinstance(ctx, dict) or any(not isinstance(v, str) or not v.endswith(("/", "#")) or k.startswith("@")
                                        for k, v in ctx.items()):
        return None
    out: set[str] = set()

    def expand(term: str, prefixes: dict[str, str]) -> str:
        scheme, colon, rest = term.partition(":")
        if colon and scheme in prefixes and not rest.startswith("//"):
            return prefixes[scheme] + rest
        return term

    def ref(value: str, prefixes: dict[str, str]) -> str | None:
        if value.startswith("_:"):
            return value
        full = expand(value, prefixes)
        return iri(full) if ":" in full else None

    def obj(v: object, prefixes: dict[str, str]) -> str | None:
        if isinstance(v, str):
            return _nt_lit(v)
        if not isinstance(v, dict):
            return None
        if set(v) == {"@id"} and isinstance(v["@id"], str):
            return ref(v["@id"], prefixes)
        if "@value" in v and isinstance(v["@value"], str) and set(v) <= {"@value", "@type", "@language"}:
            dt = v.get("@type")
            lang = v.get("@language")
            if (dt is not None and not isinstance(dt, str)) or (lang is not None and not isinstance(lang, str)):
                return None
            return _nt_lit(v["@value"], expand(dt, prefixes) if dt else None, lang)
        return None

    for node in doc["@graph"]:
        if not isinstance(node, dict) or not isinstance(node.get("@id"), str):
            return None
        if "@context" in node and node["@context"] is not None:
            return None
        prefixes = {} if "@context" in node else ctx
        s = ref(node["@id"], prefixes)
        if s is None:
            return None
        for key, values in node.items():
            if key in ("@context", "@id"):
                continue
            for v in values if isinstance(values, list) else [values]:
                if key == "@type":
                    if not isinstance(v, str) or (o := ref(v, prefixes)) is None:
                        return None
                    out.add(line(s, RDF.type, o))
                    continue
                if key.startswith("@"):
                    return None
                p, o = ref(key, prefixes), obj(v, prefixes)
                if p is None or o is None or p.startswith("_:"):
                    return None
                out.add(line(s, p, o))
    return sorted(out)

"""Canonical serializers: sorted N-Quads lines in, byte-stable Turtle, TriG, JSON-LD, N-Triples, RDF/XML out.

The pipeline's canonical form is the code-point-sorted, duplicate-free list of N-Quads lines. Every
format is written from it by grouping, never by a serializer's insertion order, so the same graph
always gives the same bytes. Writes go through ``kg.infra.outputs`` (atomic for files, .gz compressed).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import IO

import orjson

from .errors import UsageError
from .infra import outputs
from .rdf.io import canonical_lines, format_named, graph_extensions
from .rdf.nquads import graph_first, split_graph_first, split_triple, triples_from_quads
from .rdf.terms import literal_parts
from .rdf.vocab import RDF, Prefixer
from .resources import data_file

RDF_TYPE = RDF.type
FORMATS = {
    "turtle": ".ttl", "json-ld": ".jsonld", "nt": ".nt", "nquads": ".nq", "trig": ".trig", "xml": ".rdf",
}
_XML_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-.]*$")


def resolve_format(fmt: str | None, output: str | None) -> str:
    """The format named by --format, else by the output's extension (the extensions the graph readers take,
    ``kg.rdf.io.graph_extensions``), else Turtle (no extension, or standard output); an extension of no RDF
    format is a UsageError."""
    if fmt:
        key = format_named(fmt)
        if key is None:
            raise UsageError(f"unknown format {fmt!r}; use one of: {', '.join(FORMATS)}")
        return key
    if output and output != "-":
        name = output[:-3] if output.endswith(".gz") else output
        ext = Path(name).suffix
        if ext:
            key = format_named(ext[1:])
            if key is None:
                raise UsageError(f"{output}: {ext!r} is the extension of no RDF format; name the file with one of "
                                 f"{', '.join(graph_extensions())}, or give -f FORMAT")
            return key
    return "turtle"


# ---------------------------------------------------------------- writers


def write_nquads(lines: Iterable[str], fh: IO[str]) -> None:
    fh.writelines(lines)


def write_ntriples(lines: Iterable[str], fh: IO[str]) -> None:
    fh.writelines(triples_from_quads(lines))


def _turtle_body(triples: Iterable[tuple[str, str, str]], px: Prefixer, indent: str = "") -> Iterator[str]:
    """Subject blocks of sorted, unique triples: ``rdf:type`` first, then predicates and objects in
    their sorted order (sorted lines sort by predicate, then object, within a subject)."""
    term = px.turtle_term
    obj_sep = f",\n{indent}        "
    sep = f" ;\n{indent}    "
    for s, group in groupby(triples, key=itemgetter(0)):
        parts: list[str] = []
        for p, pg in groupby(group, key=itemgetter(1)):
            objs = obj_sep.join([term(t[2]) for t in pg])
            if p == RDF_TYPE:
                parts.insert(0, f"a {objs}")
            else:
                parts.append(f"{term(p)} {objs}")
        yield f"{indent}{term(s)}\n{indent}    {sep.join(parts)} .\n\n"


def _prefix_header(px: Prefixer, used: set[str]) -> str:
    lines = [f"@prefix {p}: <{ns}> .\n" for p, ns in px.prefixes.items() if p in used]
    return "".join(lines) + ("\n" if lines else "")


class _Body:
    """A document body spooled to a temporary file while noting which prefixes it uses (``p:``, or
    ``<p:`` for RDF/XML), so that the header can be written first without holding the body in memory."""

    def __init__(self, px: Prefixer, mark: str = "{}:") -> None:
        self.px, self.mark = px, mark
        self._used: set[str] = set()
        self.buffer: list[str] = []
        self.size = 0
        self.file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")

    def write(self, chunk: str) -> None:
        self.buffer.append(chunk)
        self.size += len(chunk)
        if self.size >= 1 << 20:
            self.flush()

    @property
    def used(self) -> set[str]:
        """The prefixes the body written so far uses."""
        self.flush()
        return self._used

    def flush(self) -> None:
        """Chunks are whole statements, so no prefix is split between two flushed blocks."""
        block = "".join(self.buffer)
        self.buffer, self.size = [], 0
        for p in self.px.prefixes:
            if p not in self._used and self.mark.format(p) in block:
                self._used.add(p)
        self.file.write(block)

    def copy_to(self, fh: IO[str]) -> None:
        self.flush()
        self.file.seek(0)
        while block := self.file.read(1 << 20):
            fh.write(block)
        self.file.close()


def write_turtle(lines: Iterable[str], fh: IO[str]) -> None:
    _turtle(triples_from_quads(lines), fh, Prefixer())


def _turtle(triples: Iterable[str], fh: IO[str], px: Prefixer) -> None:
    body = _Body(px)
    for chunk in _turtle_body(map(split_triple, triples), px):
        body.write(chunk)
    fh.write(_prefix_header(px, body.used))
    body.copy_to(fh)


def write_trig(lines: Iterable[str], fh: IO[str]) -> None:
    """Graph by graph: the quads are re-sorted by graph name first (externally, so any size fits)."""
    from .infra.extsort import Sorter, merge_runs
    px = Prefixer()
    with tempfile.TemporaryDirectory(prefix="kg-trig-") as scratch:
        sorter = Sorter(Path(scratch), "trig")
        for line in lines:
            sorter.add(graph_first(line))
        sorter.spill()
        body = _Body(px)
        quads = map(split_graph_first, merge_runs(sorter.runs, Path(scratch)))
        for g, group in groupby(quads, key=lambda q: q[0]):
            text = "".join(_turtle_body(((q_s, q_p, q_o) for _g, q_s, q_p, q_o in group), px, indent="    "))
            body.write(f"{px.turtle_term(g)} {{\n{text.rstrip()}\n}}\n\n")
        fh.write(_prefix_header(px, body.used))
        body.copy_to(fh)


def context() -> dict:
    """The embedded JSON-LD context (kg/data/context.jsonld): prefixes only, never fetched."""
    return orjson.loads(data_file("context.jsonld").read_bytes())["@context"]


def _jsonld_id(token: str) -> str:
    """The ``@id`` of an IRI token (``<x>`` -> ``x``) or a blank node token (``_:b`` stays ``_:b``)."""
    return token if token.startswith("_:") else token[1:-1]


def _jsonld_value(token: str, px: Prefixer | None) -> object:
    if token.startswith(("<", "_:")):
        return {"@id": _jsonld_id(token)}
    lexical, dt, lang = literal_parts(token)
    if lang:
        return {"@value": lexical, "@language": lang}
    if dt:
        return {"@value": lexical, "@type": (px.curie(dt) if px else None) or dt}
    return lexical


def _looks_compact(iri: str, prefixes: dict[str, str]) -> bool:
    """Whether the embedded context would read the IRI ``iri`` as a compact IRI (its scheme is a prefix of
    the context: ``rdf:type``, ``fabio:JournalArticle`` written as a URL), or it is no IRI to JSON-LD."""
    scheme, colon, rest = iri.partition(":")
    return bool(colon) and (scheme in prefixes or scheme in _context_terms() or scheme == "_") \
        and not rest.startswith("//")


@cache
def _context_terms() -> frozenset[str]:
    return frozenset(context())


def _node_object(s: str, items: list[tuple[str, str, str]], px: Prefixer) -> dict[str, object]:
    """One subject's node object. When one of its IRIs would be read as a compact IRI by the embedded context,
    the node object resets the context (``"@context": null``) and writes every IRI in full, so that what a
    JSON-LD processor reads is the graph's IRI."""
    iris = [t for _s, p, o in items for t in (p, o) if t.startswith("<")]
    datatypes = [o.rsplit("^^", 1)[1] for _s, _p, o in items if o.endswith(">") and not o.startswith("<")]
    plain = any(_looks_compact(t[1:-1], px.prefixes) for t in [s, *iris, *datatypes] if t.startswith("<"))
    cpx = None if plain else px
    node: dict[str, object] = {"@context": None} if plain else {}
    node["@id"] = _jsonld_id(s)
    types = [(cpx.curie(o[1:-1]) if cpx else None) or o[1:-1]
             for _s, p, o in items if p == RDF_TYPE and o.startswith("<")]
    if types:
        node["@type"] = types if len(types) > 1 else types[0]
    for p, pg in groupby((t for t in items if not (t[1] == RDF_TYPE and t[2].startswith("<"))), key=lambda t: t[1]):
        values = [_jsonld_value(t[2], cpx) for t in pg]
        node[(cpx.curie(p[1:-1]) if cpx else None) or p[1:-1]] = values if len(values) > 1 else values[0]
    return node


def _indented(obj: object, by: str) -> str:
    """``obj`` as orjson writes it with two-space indentation, nested ``by`` deeper (first line not)."""
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode("utf-8").replace("\n", "\n" + by)


def write_jsonld(lines: Iterable[str], fh: IO[str]) -> None:
    """One node object per subject, streamed; the bytes equal orjson's indented dump of the whole document."""
    _jsonld(triples_from_quads(lines), fh, Prefixer())


def _jsonld(triples: Iterable[str], fh: IO[str], px: Prefixer) -> None:
    fh.write("{\n  \"@context\": " + _indented(context(), "  ") + ",\n  \"@graph\": [")
    first = True
    for s, group in groupby(map(split_triple, triples), key=lambda t: t[0]):
        node = _node_object(s, list(group), px)
        fh.write(("\n    " if first else ",\n    ") + _indented(node, "    "))
        first = False
    fh.write("]\n}\n" if first else "\n  ]\n}\n")


def _xml_escape(text: str, attr: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if attr:
        text = text.replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    else:
        text = text.replace("\r", "&#13;")
    return text


def write_xml(lines: Iterable[str], fh: IO[str]) -> None:
    px = Prefixer()
    body = _Body(px, mark="<{}:")
    for s, group in groupby(map(split_triple, triples_from_quads(lines)), key=lambda t: t[0]):
        out = [f'  <rdf:Description rdf:nodeID="b{_xml_escape(s[2:], True)}">\n' if s.startswith("_:") else
               f'  <rdf:Description rdf:about="{_xml_escape(s[1:-1], True)}">\n']
        for _s, p, o in group:
            name = px.curie(p[1:-1])
            if not name or not _XML_NAME.match(name.split(":", 1)[1]):
                raise UsageError(f"predicate {p} cannot be written as RDF/XML; choose another format")
            if o.startswith("<"):
                out.append(f'    <{name} rdf:resource="{_xml_escape(o[1:-1], True)}"/>\n')
                continue
            if o.startswith("_:"):  # (a blank node of a foreign graph; "b" makes its label an XML name)
                out.append(f'    <{name} rdf:nodeID="b{_xml_escape(o[2:], True)}"/>\n')
                continue
            lexical, dt, lang = literal_parts(o)
            attr = f' rdf:datatype="{_xml_escape(dt, True)}"' if dt else f' xml:lang="{lang}"' if lang else ""
            out.append(f"    <{name}{attr}>{_xml_escape(lexical)}</{name}>\n")
        out.append("  </rdf:Description>\n")
        body.write("".join(out))
    ns = "".join(f'\n    xmlns:{p}="{_xml_escape(iri, True)}"' for p, iri in px.prefixes.items()
                 if p == "rdf" or p in body.used)
    fh.write(f'<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF{ns}>\n')
    body.copy_to(fh)
    fh.write("</rdf:RDF>\n")


WRITERS: dict[str, Callable[[Iterable[str], IO[str]], None]] = {
    "turtle": write_turtle, "json-ld": write_jsonld, "nt": write_ntriples, "nquads": write_nquads,
    "trig": write_trig, "xml": write_xml,
}


def write(lines: Iterable[str], fmt: str, output: str) -> None:
    """Serialize sorted quad lines as ``fmt`` to ``output`` (``-`` = stdout; see ``kg.infra.outputs.target``),
    atomically when it is a file."""
    writer = WRITERS[fmt]
    with outputs.atomic_writer(output) as fh:
        writer(lines, fh)


def write_triples(triples: Iterable[str], fmt: str, fh: IO[str], prefixes: dict[str, str] | None = None) -> None:
    """Sorted, unique N-Triples lines (the graph a CONSTRUCT or DESCRIBE query answers with) as ``fmt``: ``nt``,
    ``turtle`` or ``json-ld``; Turtle compacts IRIs with ``prefixes`` (default: the graph's; JSON-LD always
    uses the graph's, which its embedded context declares)."""
    if fmt == "nt":
        fh.writelines(triples)
    elif fmt == "json-ld":
        _jsonld(triples, fh, Prefixer())
    else:
        _turtle(triples, fh, Prefixer(prefixes) if prefixes is not None else Prefixer())


def write_file(graph: Path, fmt: str, output: str) -> None:
    """Serialize a canonical N-Quads file (the workspace graph) as ``fmt``, streaming."""
    write(canonical_lines(graph), fmt, output)

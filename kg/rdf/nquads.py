"""The canonical N-Quads line, the one text form every stage shares: built and split here only (files of such
lines, and RDF files of other formats, are read by ``kg.rdf.io``).

A line is ``s p o g .`` + newline: four N-Triples tokens (``kg.rdf.terms``), the graph name an IRI (it
holds no space, so the last ``" <"`` of a line starts it). The canonical form of a graph is its
code-point-sorted, duplicate-free list of such lines. Example:

>>> quad("<s>", "<p>", '"o"', "<g>")
'<s> <p> "o" <g> .\\n'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

# ---------------------------------------------------------------- building


def quad(s: str, p: str, o: str, g: str) -> str:
    """One line of the tokens ``s p o`` in the graph ``g``."""
    return f"{s} {p} {o} {g} .\n"


def triple(s: str, p: str, o: str) -> str:
    """One N-Triples line of the tokens ``s p o``."""
    return f"{s} {p} {o} .\n"


def quads(triples: Iterable[tuple[str, str, str]], g: str) -> Iterator[str]:
    """The lines of ``triples`` in the graph ``g`` (``quad`` of each; one generator, no call per triple)."""
    return (f"{s} {p} {o} {g} .\n" for s, p, o in triples)


# ---------------------------------------------------------------- splitting


def split_quad(line: str) -> tuple[str, str, str, str]:
    """``s p o g .`` -> its four tokens (the graph name is an IRI and holds no space)."""
    spo, g = line.rstrip("\n")[:-2].rsplit(" ", 1)
    s, p, o = spo.split(" ", 2)
    return s, p, o, g


def subject_of(line: str) -> str:
    """``s p o g .`` (or ``s p o .``) -> ``s``.

    >>> subject_of('<s> <p> "o p" <g> .\\n')
    '<s>'
    """
    return line[:line.index(" ")]


def split_triple(line: str) -> tuple[str, str, str]:
    """``s p o .`` -> its three tokens."""
    s, p, o = line.rstrip("\n")[:-2].split(" ", 2)
    return s, p, o


def triple_key(line: str) -> str:
    """``s p o g .`` -> ``s p o``: what the lines of one triple in several graphs share."""
    return line[:line.rindex(" <", 0, len(line) - 3)]


def graph_of(line: str) -> str:
    """``s p o g .`` -> ``g``."""
    return line.rstrip("\n")[:-2].rsplit(" ", 1)[1]


def triple_bytes(line: bytes) -> bytes:
    """``s p o g .`` as bytes, with or without its line break -> ``s p o``."""
    return line.rpartition(b" <")[0]


def graph_first(line: str) -> str:
    """``s p o g .`` -> ``g s p o``, a line that sorts by graph first (``split_graph_first`` reads it back).

    >>> split_graph_first(graph_first('<s> <p> "o" <g> .\\n'))
    ('<g>', '<s>', '<p>', '"o"')
    """
    s, p, o, g = split_quad(line)
    return f"{g} {s} {p} {o}\n"


def split_graph_first(line: str) -> tuple[str, str, str, str]:
    """``g s p o`` (``graph_first``) -> its four tokens, the graph name first."""
    g, rest = line.rstrip("\n").split(" ", 1)
    s, p, o = rest.split(" ", 2)
    return g, s, p, o


def triples_text(lines: Iterable[str]) -> str:
    """The N-Triples document of quad lines (graph names dropped; a triple of several graphs repeats)."""
    return "".join(line[:line.rindex(" <", 0, len(line) - 3)] + " .\n" for line in lines)


def triples_from_quads(lines: Iterable[str]) -> Iterator[str]:
    """Sorted, unique ``s p o .`` lines from sorted quad lines (graph names dropped).

    Sorted quads give sorted triples (a triple's tokens are followed by a space in both forms), and the
    quads of one triple in several graphs are adjacent, so this streams with a one-line memory."""
    last = None
    for line in lines:
        t = line[:line.rindex(" <", 0, len(line) - 3)] + " .\n"
        if t != last:
            yield t
            last = t


def count_triples(lines: Iterable[bytes], last: bytes | None = None) -> tuple[int, bytes | None]:
    """The distinct triples of sorted quad lines given as bytes (no line break), after the triple ``last``:
    (their number, the last triple)."""
    n = 0
    for line in lines:
        key = line.rpartition(b" <")[0]  # (the graph IRI is the last token: ``triple_bytes``, inlined)
        if key != last:
            n += 1
            last = key
    return n, last

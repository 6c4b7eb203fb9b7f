"""Term conversions: N-Triples tokens (``kg.rdf.terms``) <-> rdflib terms <-> Oxigraph terms.

The rdflib term of a token is the one rdflib's own parser makes of it (Oxigraph's parse, converted), so the
lines path and the file path of ``rdflib_triples`` give the same terms. Example:

>>> token_term('"a"@en')
rdflib.term.Literal('a', lang='en')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef

from .nquads import split_quad
from .terms import literal_parts, token_value
from .vocab import XSD_STRING

_XSD_STRING = token_value(XSD_STRING)


def ox_term(term: object) -> ox.NamedNode | ox.Literal | ox.BlankNode:
    """The Oxigraph term of an rdflib term."""
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    return ox.BlankNode(str(term))


def rdflib_term(term: object, literals: dict | None = None) -> URIRef | Literal | BNode:
    """The rdflib term of an Oxigraph term (a literal of ``literals``, by (lexical form, datatype, language),
    as it is)."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.Literal):
        if literals is not None:
            known = literals.get((term.value, term.datatype.value, term.language))
            if known is not None:
                return known  # the data graph's own term (rdflib may keep a lexical form it did not normalise)
        if term.language:
            return Literal(term.value, lang=term.language)
        dt = term.datatype.value
        return Literal(term.value, datatype=None if dt == _XSD_STRING else URIRef(dt))
    assert isinstance(term, ox.BlankNode)  # (our graphs hold no RDF-star triples)
    return BNode(term.value)


def token_term(token: str) -> URIRef | Literal | BNode:
    """The rdflib term of an N-Triples token, as ``rdflib_term`` makes it from Oxigraph's parse of the token.
    What Oxigraph would rewrite (an IRI with escapes, an upper-case language tag) goes through Oxigraph."""
    first = token[0]
    if first == "<" and "\\" not in token:
        return URIRef(token[1:-1])
    if first == "_":
        return BNode(token[2:])
    if first == '"':
        lexical, datatype, lang = literal_parts(token)
        if lang is None:
            return Literal(lexical, datatype=None if datatype in (None, _XSD_STRING) else URIRef(datatype))
        if lang == lang.lower():
            return Literal(lexical, lang=lang)
    quad = next(iter(ox.parse(f"<x:s> <x:p> {token} .\n".encode("utf-8"), format=ox.RdfFormat.N_TRIPLES)))
    return rdflib_term(quad.object)


def rdflib_triples(source: "Iterable[str] | Path", known: dict | None = None) -> Iterator[tuple]:
    """The triples of N-Quads lines (or of an N-Quads file, streamed), graph names dropped, as rdflib terms:
    the terms rdflib's own parser makes, one object per distinct term. A file is parsed by Oxigraph; lines
    (canonical, each ``s p o g .``, as ``kg build`` and ``read_graph_lines`` make them) are split here (about
    1.7x faster than the Oxigraph path), each new token made by ``token_term`` (or taken from ``known``,
    terms by token)."""
    if isinstance(source, Path):
        memo: dict = {}

        def term(t: object) -> object:
            found = memo.get(t)
            if found is None:
                found = memo[t] = rdflib_term(t)
            return found
        for q in ox.parse(path=str(source), format=ox.RdfFormat.N_QUADS):
            yield term(q.subject), term(q.predicate), term(q.object)
        return
    tokens: dict = dict(known) if known else {}
    get = tokens.get
    for line in source:
        s, p, o, _g = split_quad(line)
        ts, tp, to = get(s), get(p), get(o)
        if ts is None:
            ts = tokens[s] = token_term(s)
        if tp is None:
            tp = tokens[p] = token_term(p)
        if to is None:
            to = tokens[o] = token_term(o)
        yield ts, tp, to

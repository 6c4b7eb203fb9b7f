"""Precomputed facts: what the slow stored queries would otherwise count or join over every reference.

The build writes them with the graph, into the named graph ``{base}graph/facts``, so they are never out of
date. They are facts of the domain, each what a plain SPARQL pattern over the base graph gives
(``tests/test_facts.py`` compares both on the seeds and on synthetic records):

- ``<cited> kg:citingInputWorks n``: the number of distinct input works (``kg:crossrefType``) with a part
  (``frbr:part``) that ``biro:references`` the cited node; for every cited node of an input work's reference.
- ``<ref> kg:citesInputWork <w>``: the reference cites ``<w>``, itself an input work.
- ``<ref> kg:citesEarlierVersionOf <w>``: the reference cites a node ``kg:preprintOf`` the input work ``<w>``.

What only makes the stored queries' pages fast (the listings' rows in order) is not a fact of the domain: it lives
where the queries run (``kg.query.index``), never in this graph.

One entry point, in two halves that every build driver calls (in memory, streamed, or partitioned): ``rows``
takes any graph lines (a record's, a chunk of records', the knowledge graph's) and gives compact text rows,
and ``fact_lines`` takes all rows sorted (in memory, or by an external sort: memory stays bounded) and gives
the sorted canonical N-Quads lines of the facts graph. The rows of one reference (its ``frbr:part``
and ``biro:references`` lines, its work's type) must come in the same call of ``rows``, as they do in one record's
lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import groupby
from typing import Protocol

from ..rdf.nquads import quad, split_quad
from ..rdf.terms import integer
from ..rdf.vocab import BIRO, FRBR, KG

# Row tags, in the order the rows of one key sort. Every field is a whole IRI token (it ends in '>'), so no row
# is a proper prefix of another and a merge of sorted runs by the system's sort gives Python's order.
_INPUT = "0"  # "<w>\t0": <w> is an input work
_PREPRINT = "1"  # "<x>\t1\t<b>": <x> kg:preprintOf <b> (keyed by the preprint node)
_VERSION_OF = "2"  # "<b>\t2\t<x>": the same link keyed by the work it is a version of
_CITES = "3"  # "<x>\t3\t<w>\t<ref>": the reference <ref> of the work <w> cites <x>


class Sink(Protocol):
    """Where lines are collected to be sorted: ``InMemory``, or an external sort (``kg.infra.extsort.Sorter``)."""

    def add(self, line: str) -> None: ...

    def sorted(self) -> Iterable[str]: ...


Sinks = Callable[[str], Sink]  # a new empty sink, given a name for its files


class InMemory:
    """The sink of the in-memory build: a set, sorted at the end."""

    def __init__(self, _name: str = "") -> None:
        self.lines: set[str] = set()

    def add(self, line: str) -> None:
        self.lines.add(line)

    def sorted(self) -> list[str]:
        return sorted(self.lines)


def facts_of(lines: Iterable[str], graph: str) -> Iterator[str]:
    """The facts of a whole graph held in memory (what ``kg.pipeline.memory`` writes)."""
    return fact_lines(sorted(set(rows(lines))), graph)


def rows(lines: Iterable[str]) -> Iterator[str]:
    """The fact rows of some canonical N-Quads lines (unsorted; duplicates allowed).

    >>> list(rows(['<w> <https://w3id.org/crossref-kg/ontology#crossrefType> "x" <g> .\\n']))
    ['<w>\\t0\\n']
    """
    parts: dict[str, str] = {}  # reference -> its work
    cites: list[tuple[str, str]] = []  # (reference, cited)
    ctype, part, refs, preprint = KG.crossrefType, FRBR.part, BIRO.references, KG.preprintOf
    wanted = {ctype, part, refs, preprint}
    for line in lines:
        # (the predicate is the second token: cut it out and look it up, and split only the few lines that count)
        at = line.find(" ") + 1
        if line[at:line.find(" ", at)] in wanted:
            s, p, o, _g = split_quad(line)
            if p == ctype:
                yield f"{s}\t{_INPUT}\n"
            elif p == part:
                parts[o] = s
            elif p == refs:
                cites.append((s, o))
            else:
                yield f"{s}\t{_PREPRINT}\t{o}\n"
                yield f"{o}\t{_VERSION_OF}\t{s}\n"
    for ref, cited in cites:
        if (work := parts.get(ref)) is not None:
            yield f"{cited}\t{_CITES}\t{work}\t{ref}\n"



def fact_lines(sorted_rows: Iterable[str], graph: str, sinks: Sinks = InMemory) -> Iterator[str]:
    """The sorted canonical N-Quads lines of the facts graph ``graph``, from the sorted, unique ``rows`` of every
    line of the graph.

    ``sinks`` makes the further sorts (of the second join's rows, and of the facts), each deduplicating.
    """
    later, out = sinks("facts-versions"), sinks("facts")
    # rows of the second join: "<x>\t0\t<b>" (a valid version link) and "<x>\t3\t<ref>"
    count, on_input, on_version = str(KG.citingInputWorks), str(KG.citesInputWork), str(KG.citesEarlierVersionOf)
    for key, group in _groups(sorted_rows):
        is_input = is_preprint = False
        works = 0
        last_work = None
        for tag, fields in group:
            if tag == _INPUT:
                is_input = True
            elif tag == _PREPRINT:
                is_preprint = True
            elif tag == _VERSION_OF:
                if is_input:
                    later.add(f"{fields[0]}\t{_INPUT}\t{key}\n")
            else:
                work, ref = fields
                if work != last_work:
                    works += 1
                    last_work = work
                if is_input:
                    out.add(quad(ref, on_input, key, graph))
                if is_preprint:
                    later.add(f"{key}\t{_CITES}\t{ref}\n")
        if works:
            out.add(quad(key, count, integer(works), graph))
    for _key, group in _groups(later.sorted()):
        versions: list[str] = []
        for tag, fields in group:
            if tag == _INPUT:
                versions.append(fields[0])
            else:
                for b in versions:
                    out.add(quad(fields[0], on_version, b, graph))
    return iter(out.sorted())


def _groups(lines: Iterable[str]) -> Iterator[tuple[str, Iterator[tuple[str, list[str]]]]]:
    """(key, its (tag, fields) rows) of sorted rows, streamed: only one row at a time is held."""
    for key, group in groupby(lines, key=lambda row: row.split("\t", 1)[0]):
        yield key, ((fields[1], fields[2:]) for fields in (row.rstrip("\n").split("\t") for row in group))

"""Validation shards of a sorted canonical N-Quads file, held as line numbers: the file is read again for each
pass over a shard, so no process holds its lines as strings (a record of 100,000 references is 2.7 million of
them, about 800 MB as Python strings, and its validation shard was that again).

``FilePlan`` makes the shards ``kg.validate.shards.ShardPlan`` makes when no node is described by two records
(one record, however large, or records that share nothing): the lines of ``size`` records at a time with the
lines of the shared graphs about their nodes, each triple once, then the shared graphs. When a node is described
by several records (or the file is not sorted), it answers None and the caller holds the lines.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..rdf.nquads import graph_of, split_quad, subject_of, triple_key


class FileLines:
    """Some lines of a sorted canonical N-Quads file, picked by number and read again each time they are
    iterated: each triple once (its first line) when ``unique``, and only the lines of ``predicates`` (N-Triples
    tokens) and those about blank nodes when given (as ``kg.validate.engine`` reads them)."""

    def __init__(self, path: Path, numbers: array, unique: bool = True,
                 predicates: frozenset[str] | None = None) -> None:
        self.path, self.numbers, self.unique, self.predicates = path, numbers, unique, predicates

    def only(self, predicates: Iterable[str]) -> FileLines:
        """The same lines, those of ``predicates`` and about blank nodes alone."""
        return FileLines(self.path, self.numbers, self.unique, frozenset(predicates))

    def __bool__(self) -> bool:
        return len(self.numbers) > 0

    def __iter__(self) -> Iterator[str]:
        wanted = iter(self.numbers)
        nxt = next(wanted, None)
        last = None
        preds = self.predicates
        with open(self.path, encoding="utf-8", newline="\n") as fh:
            for i, line in enumerate(fh):
                if nxt is None:
                    break
                if i != nxt:
                    continue
                nxt = next(wanted, None)
                if self.unique:
                    key = triple_key(line)
                    if key == last:
                        continue
                    last = key
                if preds is None or line.startswith("_:") or line.split(" ", 2)[1] in preds:
                    yield line


class FilePlan:
    """The shards of a sorted canonical N-Quads file whose nodes are each described by one record at most, by line
    number: each record graph's lines, the shared graphs' lines and those by subject (see the module)."""

    def __init__(self, path: Path, by_graph: dict[str, array], shared: array,
                 shared_by_subject: dict[str, list[int]], lines: int) -> None:
        self.path, self.by_graph, self.shared, self.lines = path, by_graph, shared, lines
        self.shared_by_subject = shared_by_subject
        self.multi: set[str] = set()  # (none: see ``of``)

    @classmethod
    def of(cls, path: Path, shared_graphs: set[str]) -> FilePlan | None:
        """The plan of the file at ``path``; None when it is not sorted or some subject has lines in two record
        graphs (``ShardPlan``'s nodes of ``multi``: the caller validates the lines it holds)."""
        by_graph: dict[str, array] = {}
        shared = array("I")
        shared_by_subject: dict[str, list[int]] = {}
        previous, subject = "", None
        graphs: set[str] = set()
        n = 0
        with open(path, encoding="utf-8", newline="\n") as fh:
            for n, line in enumerate(fh, 1):
                if line < previous:
                    return None
                previous = line
                s, g = subject_of(line), graph_of(line)
                if s != subject:  # (sorted: the lines of one subject are adjacent)
                    subject, graphs = s, set()
                if g in shared_graphs:
                    shared.append(n - 1)
                    shared_by_subject.setdefault(s, []).append(n - 1)
                    continue
                graphs.add(g)
                if len(graphs) > 1:
                    return None
                numbers = by_graph.get(g)
                if numbers is None:
                    numbers = by_graph[g] = array("I")
                numbers.append(n - 1)
        return cls(path, by_graph, shared, shared_by_subject, n)

    def count(self, size: int) -> int:
        """How many shards ``shards(size)`` makes."""
        return -(-len(self.by_graph) // size) + 1

    def shards(self, size: int) -> Iterator[tuple[FileLines, None]]:
        """The lines of ``size`` records at a time with the shared lines about their nodes, then the shared
        graphs' lines; all results count."""
        graphs = sorted(self.by_graph)
        for i in range(0, len(graphs), size):
            records = array("I", heapq.merge(*(self.by_graph[g] for g in graphs[i:i + size])))
            iris = {t for line in FileLines(self.path, records, unique=False) for t in split_quad(line)[::2]
                    if t in self.shared_by_subject}
            about = sorted(n for iri in iris for n in self.shared_by_subject[iri])
            yield FileLines(self.path, array("I", heapq.merge(records, about))), None
        yield FileLines(self.path, self.shared, unique=False), None

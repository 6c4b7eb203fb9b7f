"""Validation record by record, in shards that can run in parallel: the whole graph's report in bounded memory.

Each shard holds the named graphs of some records plus the triples of the shared graphs about the nodes those
records mention. Nodes that several records describe (people with an ORCID iD, venues, publishers, funders ...)
are validated once more with everything every record says about them, and only that pass reports on them; the
shared graphs are validated on their own too. The union of the results is the whole-graph report (tests prove it
on the seeds and the samples).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from rdflib import Graph, URIRef

from ..infra.workers import quiet_worker, run_shards
from ..rdf.ids import SHARED_GRAPHS
from ..rdf.nquads import graph_of, split_quad, subject_of, triple_key
from .engine import PARTS, validate, validate_lines
from .filed import FileLines, FilePlan
from .reach import RDF_TYPE, deep_predicates, inverse_predicates
from .report import Result, ValidationReport, ordered
from .shapes import load_shapes, shapes_of

Reach = Callable[[Path | None], "tuple[set[str], set[str]] | None"]  # what shapes read beyond a node (reach.py)
Shard = tuple[list[str], "list[str] | None"]  # (lines, focus nodes whose results count, or None for all)
Progress = Callable[[str, int, int, str], None]  # on_progress(stage, done, total, unit), as the build reports
STAGE, UNIT = "validate", "shards"


@dataclass(frozen=True)
class Sharding:
    """When validation goes record by record in shards, and how many records a shard holds (a build's
    ``Tuning`` passes its own)."""

    above: int = 100_000  # validate graphs of more lines than this in shards of records (bounded memory)
    records: int = 100  # records per validation shard: a shard costs its shared lines once
    # with workers, a shard of more lines than this (one record of thousands of references) is two tasks: the
    # compiled shapes and the SPARQL constraints, each about half its time, in two workers at once
    split_above: int = 200_000


class ShardPlan:
    """The shards of canonical N-Quads lines, cut from one index built once: the lines of each record graph
    (``by_graph``) and of the shared graphs, the nodes several records describe (``multi``) and, for their
    shards, what is said about each node (``about``), the lines a predicate some shape follows backwards reaches
    a node by (``back_of``), the lines pointing at a node of ``multi`` (``inbound``) and the class lines of each
    subject (``typed_by_subject``)."""

    def __init__(self, lines: list[str], folder: Path | None, shared_graphs: set[str],
                 reach: Reach = deep_predicates) -> None:
        self.folder = folder
        self.reach = reach
        self.by_graph: dict[str, list[str]] = defaultdict(list)
        for line in lines:
            self.by_graph[graph_of(line)].append(line)
        self.shared = [line for g in sorted(shared_graphs) for line in self.by_graph.pop(g, [])]
        self.shared_by_subject: dict[str, list[str]] = defaultdict(list)
        for line in self.shared:
            self.shared_by_subject[subject_of(line)].append(line)
        subject_graphs: dict[str, set[str]] = defaultdict(set)
        for g, ls in self.by_graph.items():
            for line in ls:
                subject_graphs[subject_of(line)].add(g)
        self.multi = {s for s, gs in subject_graphs.items() if len(gs) > 1}
        self.backwards = inverse_predicates(folder)
        self.deep: tuple[set[str], set[str]] | None = None
        self.about: dict[str, list[str]] = defaultdict(list)
        self.back_of: dict[str, list[str]] = defaultdict(list)
        self.inbound: dict[str, dict[str, list[str]]] = defaultdict(dict)
        self.typed_by_subject: dict[str, dict[str, str]] = defaultdict(dict)
        self.counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # node -> graph -> lines
        self._indexed = False
        self._homes_of: dict[str, list[str]] | None = None

    def shards(self, size: int) -> Iterator[Shard]:
        """Every shard, made one at a time (memory stays bounded): records, nodes of ``multi``, shared graphs."""
        yield from self.record_shards(size)
        if self.multi:
            yield from self.multi_node_shards(size)
        yield self.shared, None

    def record_shards(self, size: int) -> Iterator[Shard]:
        """The lines of ``size`` records at a time, with the shared lines about their nodes; all results count."""
        graphs = sorted(self.by_graph)
        for i in range(0, len(graphs), size):
            yield self.with_shared([line for g in graphs[i:i + size] for line in self.by_graph[g]]), None

    def multi_node_shards(self, size: int) -> Iterator[Shard]:
        """Each node of ``multi`` with everything any record says about it (and every line pointing at it), what is
        said about the nodes its shapes validate in depth (sh:node and the like: a work's references; the whole
        record graph it mostly comes from, its home, when the shapes are beyond that analysis), about the other
        such nodes it points to, and the classes of every node at either end; in chunks of ``size`` homes. Only
        the results on these nodes count."""
        by_home = self._by_home()
        homes = sorted(by_home)
        for i in range(0, len(homes), size):
            chunk = homes[i:i + size]
            focus = sorted(n for h in chunk for n in by_home[h])
            ls = self._homes(chunk, focus) if self.deep is None else set(self.reachable(focus, *self.deep))
            ls.update(line for n in focus for kept in self.inbound[n].values() for line in kept)
            ends = {t for line in ls for t in split_quad(line)[::2]}
            ls.update(line for o in ends if o in self.typed_by_subject for line in self.typed_by_subject[o].values())
            yield self.with_shared(sorted(ls)), [m[1:-1] for m in focus]

    def count(self, size: int) -> int:
        """How many shards ``shards(size)`` makes (the nodes of ``multi`` are indexed for it, once)."""
        homes = len(self._by_home()) if self.multi else 0
        return -(-len(self.by_graph) // size) + -(-homes // size) + 1

    def _by_home(self) -> dict[str, list[str]]:
        """The nodes of ``multi`` by their home: the record graph that says most about each (the first of
        those that say as much)."""
        if self._homes_of is None:
            self._index()
            self._homes_of = defaultdict(list)
            for node, gs in self.counts.items():
                self._homes_of[min(gs, key=lambda g: (-gs[g], g))].append(node)
        return self._homes_of

    def _index(self) -> None:
        """``about``, ``back_of``, ``inbound``, ``typed_by_subject`` and ``counts``, once."""
        if self._indexed:
            return
        self._indexed = True
        self.deep = self.reach(self.folder)
        followed = self.backwards | (self.deep[1] if self.deep else set())
        for g, ls in self.by_graph.items():
            for line in ls:
                subj, pred, obj, _g = split_quad(line)
                self.about[subj].append(line)
                if subj in self.multi:
                    self.counts[subj][g] += 1
                if pred in followed:
                    self.back_of[obj].append(line)
                if obj in self.multi and obj != subj:
                    # every inbound line of a predicate some shape follows backwards; one of any other (enough to
                    # make the node a target of sh:targetObjectsOf)
                    kept = self.inbound[obj].setdefault(pred, [])
                    if not kept or pred in self.backwards:
                        kept.append(line)
                if pred == RDF_TYPE:
                    self.typed_by_subject[subj].setdefault(sys.intern(obj), line)  # (one line per class)

    def _homes(self, chunk: list[str], focus: list[str]) -> set[str]:
        """The home graphs whole, what is said about the focus nodes and about the nodes of ``multi`` they hold."""
        ls = {line for h in chunk for line in self.by_graph[h]}
        ls.update(line for n in focus for line in self.about[n])
        pointed = {split_quad(line)[2] for line in ls}
        ls.update(line for m in pointed & self.multi for line in self.about[m])
        return ls

    def reachable(self, start: list[str], forward: set[str], backward: set[str]) -> list[str]:
        """The lines about the nodes reached from ``start`` along ``forward`` predicates and back along
        ``backward`` ones (and the lines that reach each node along a followed predicate)."""
        seen, todo, out = set(start), list(start), []
        while todo:
            node = todo.pop()
            for line in self.about.get(node, ()):
                out.append(line)
                _s, pred, obj, _g = split_quad(line)
                if pred in forward and obj not in seen and obj in self.about:
                    seen.add(obj)
                    todo.append(obj)
            for line in self.back_of.get(node, ()):
                out.append(line)
                subj, pred, _o, _g = split_quad(line)
                if pred in backward and subj not in seen:
                    seen.add(subj)
                    todo.append(subj)
        return out

    def with_shared(self, ls: list[str]) -> list[str]:
        """The lines with those of the shared graphs about their nodes, one line per triple (the graph names do
        not matter to validation; a node many records describe would come once per record)."""
        iris = {t for line in ls for t in split_quad(line)[::2] if t.startswith("<")}
        ls = ls + [x for iri in sorted(iris) for x in self.shared_by_subject.get(iri, ())]
        ls.sort()
        # the first line of each triple: sorted, the lines of one triple are adjacent (as triples_from_quads reads
        # them), so only the last one kept is compared (no index of every triple: a record of 100,000 references
        # is one shard of 2.5 million lines)
        out: list[str] = []
        last = None
        for line in ls:
            key = triple_key(line)
            if key != last:
                out.append(line)
                last = key
        return out


def validate_sharded(lines: list[str], folder: Path | None, shared_graphs: set[str],
                     shard_size: int = 50, jobs: int = 1, reach: Reach = deep_predicates,
                     on_progress: Progress | None = None, split_above: int = Sharding.split_above
                     ) -> ValidationReport:
    """Validate canonical N-Quads lines against the shapes in ``folder`` (None: the built-in ones) record by
    record, in shards of ``shard_size`` records (or homes) that ``jobs`` workers validate in parallel (see the
    module's docstring); a shard of more than ``split_above`` lines is two tasks (``Sharding``). ``reach`` says
    what the shapes read beyond a node (None: more than the analysis follows, so whole home graphs are validated
    together). ``on_progress("validate", done, total, "shards")`` is told as shards are done."""
    return _validate_plan(ShardPlan(lines, folder, shared_graphs, reach), folder, shard_size, jobs, on_progress,
                          split_above)


def _validate_plan(plan: ShardPlan | FilePlan, folder: Path | None, shard_size: int, jobs: int,
                   on_progress: Progress | None, split_above: int = Sharding.split_above) -> ValidationReport:
    """The report of every shard of ``plan``: the results on the nodes of ``multi`` from their own shards."""
    shapes = load_shapes(folder) if jobs <= 1 else None  # (workers parse them once each)
    ends: list[int] = []  # for each task, the shards done once it is (0: its shard has a task after it)
    on_done = None
    if on_progress is not None:
        total = plan.count(shard_size)
        on_progress(STAGE, 0, total, UNIT)
        on_done = partial(_done, on_progress, total, ends)
    split = split_above if jobs > 1 else None
    parts = run_shards(partial(_check_shard, folder, shapes), _tasks(plan.shards(shard_size), split, ends), jobs,
                       quiet_worker, on_done)
    multi_plain = {m[1:-1] for m in plan.multi}
    results: set[Result] = set()
    for focus, part in parts:
        results.update(r for r in part if focus is not None or r.focus not in multi_plain)
    found = ordered(results)
    return ValidationReport(not found, found, Graph())


Task = tuple["list[str] | FileLines", "list[str] | None", "str | None"]  # a shard, and the part of the engine


def _tasks(shards: Iterable[Shard | tuple[FileLines, None]], split_above: int | None, ends: list[int]
           ) -> Iterator[Task]:
    """Each shard as one task, or, past ``split_above`` lines, as two: the engine's parts (``PARTS``), which two
    workers run at once. ``ends`` is told, task by task, how many shards are done once it is (0: not its
    shard yet)."""
    for n, (lines, focus) in enumerate(shards, 1):
        size = len(lines.numbers) if isinstance(lines, FileLines) else len(lines)
        parts: tuple[str | None, ...] = PARTS if split_above is not None and size > split_above else (None,)
        for i, part in enumerate(parts, 1):
            ends.append(n if i == len(parts) else 0)
            yield lines, focus, part


def _done(on_progress: Progress, total: int, ends: list[int], done: int) -> None:
    """The shards done when the first ``done`` tasks are (a shard of two tasks counts when both are)."""
    if ends[done - 1]:
        on_progress(STAGE, ends[done - 1], total, UNIT)


def _check_shard(folder: Path | None, shapes: Graph | None, task: Task) -> tuple[list[str] | None, list[Result]]:
    lines, focus, part = task
    only = {URIRef(f) for f in focus} if focus is not None else None
    return focus, validate(None, shapes if shapes is not None else shapes_of(folder), lines, only=only,
                           part=part).results


def in_shards(n_lines: int, sharding: Sharding = Sharding()) -> bool:
    """Whether ``validate_collected`` validates that many lines in shards."""
    return n_lines > sharding.above


def validate_collected(lines: list[str], shared_graphs: set[str], shapes: Path | None, jobs: int,
                       sharding: Sharding = Sharding(), on_progress: Progress | None = None) -> ValidationReport:
    """Validate whole when small (one shard, for ``on_progress``), else record by record in shards (the same
    report, less memory)."""
    if not in_shards(len(lines), sharding):
        return _one_shard(partial(validate_lines, lines, shapes), on_progress)
    load_shapes(shapes)
    return validate_sharded(lines, shapes, shared_graphs, shard_size=sharding.records, jobs=jobs,
                            on_progress=on_progress, split_above=sharding.split_above)


def validate_file(path: Path, shared_graphs: set[str], shapes: Path | None, jobs: int,
                  sharding: Sharding = Sharding(), on_progress: Progress | None = None) -> ValidationReport:
    """``validate_collected`` of the lines of a file; of a large sorted file whose nodes are each described by one
    record at most (one record of 100,000 references), in shards read from the file (``kg.validate.filed``)."""
    plan = FilePlan.of(path, shared_graphs)
    if plan is not None and in_shards(plan.lines, sharding):
        load_shapes(shapes)
        return _validate_plan(plan, shapes, sharding.records, jobs, on_progress, sharding.split_above)
    del plan  # (its index, before the lines are read)
    with open(path, encoding="utf-8", newline="\n") as fh:
        return validate_collected(fh.readlines(), shared_graphs, shapes, jobs, sharding, on_progress)


def shared_graphs_of(graphs: Iterable[str]) -> set[str]:
    """The shared graphs among graph names: ``{base}graph/knowledge`` and the like, under whatever base built the
    graph (not a record's ``{base}graph/{doi}``, whose DOI starts with "10.")."""
    ends = tuple(f"graph/{name}>" for name in SHARED_GRAPHS)
    return {g for g in graphs if g.endswith(ends) and "graph/10." not in g}


def validate_graph_lines(lines: list[str], shapes: Path | None = None, jobs: int = 1, engine: str | None = None,
                    prefixes: dict[str, str] | None = None, on_progress: Progress | None = None) -> ValidationReport:
    """Validate the sorted lines of graph files; with ``jobs`` > 1, record by record in parallel."""
    if jobs > 1:
        load_shapes(shapes)  # fail early and clearly on bad shapes
        shared = shared_graphs_of({graph_of(line) for line in lines})
        return validate_sharded(lines, shapes, shared, shard_size=Sharding.records, jobs=jobs,
                                on_progress=on_progress)
    return _one_shard(partial(validate_lines, lines, shapes, engine, prefixes), on_progress)


def _one_shard(validation: Callable[[], ValidationReport], on_progress: Progress | None) -> ValidationReport:
    """A validation of the whole graph at once, reported as one shard."""
    if on_progress is not None:
        on_progress(STAGE, 0, 1, UNIT)
    report = validation()
    if on_progress is not None:
        on_progress(STAGE, 1, 1, UNIT)
    return report

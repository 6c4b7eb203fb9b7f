"""The streaming build: the pipeline of ``kg.pipeline`` in flat memory, on one core or several.

Pass 1 reads and normalises every record (in worker processes when ``jobs`` > 1), keeps per DOI only
the rank of the best record (duplicates merged as in ``kg.pipeline``, by ``kg.pipeline.dedupe``), and stores the
compact features of every reference in SQLite. Resolution then runs on those tables (``kg.refs.resolve_disk``). Pass 2
reads the inputs again, maps each kept record with its resolutions, and writes sorted runs of N-Quads
lines; the runs are merged into one canonical sorted file. The output is byte-identical to the
in-memory ``kg.pipeline.build_graph`` (a test proves it) and does not depend on ``jobs``.
"""

from __future__ import annotations

import hashlib
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..infra import faults
from ..infra.extsort import Sorter, fan_in, merge_blocks, merge_into, merge_runs, write_run
from ..infra.workers import chunks, quiet_worker
from ..ingest.normalize import normalize
from ..ingest.read import Ignored, Input, LazyLine, ReadWarning, iter_records
from ..ingest.works import Item, each_work
from ..map import map_work
from ..map.context import Context, ContextSpec
from ..map.shared import Used, add_shared, cited_triples, merge_shared, shared_lines
from ..rdf.io import canonical_lines
from ..rdf.nquads import quads, split_quad
from ..refs.enrich import enrich
from ..refs.named import work_mentions
from ..refs.parse import ParsedRef
from ..refs.resolve import features, record_entry
from ..refs.resolve_disk import DiskResolver, Lookup
from ..refs.topics import unused_overrides
from . import facts
from .dedupe import DoiMerge, Drop, Rank, rank
from .memory import BuildReport
from .tuning import Tuning

# the records of the n-th item read (a record, or a line of a large JSON Lines file) are numbered n << SHIFT | i
SHIFT = 20
MAP_SPILL = 200_000  # lines a mapping worker holds before it spills them sorted to a file (and triples per batch)
KNOWLEDGE_RUNS = 16  # runs of the knowledge graph the final merge is expected to take besides those of pass 2

# A chunk item: (sequence number, what the reader gave, the numbers of the records to keep of a LazyLine or None)
Chunk = list[tuple[int, "Item | LazyLine", "frozenset[int] | None"]]


@dataclass
class StreamResult:
    """A finished pass: the sorted N-Quads run files to merge, the report and what validation needs."""

    report: BuildReport
    runs: list[Path]
    scratch: Path
    tuning: Tuning = field(default_factory=Tuning)
    works: int = 0
    sample: set[str] | None = None  # graph IRIs of the sampled records (None: every record)
    shared_graphs: set[str] = field(default_factory=set)
    sampled: list[Path] = field(default_factory=list)  # sorted runs of the lines of the sampled records' graphs
    knowledge_runs: list[Path] = field(default_factory=list)  # the runs of the knowledge, tools and topics graphs
    resolve_parts: int = 1  # the partitions resolution ran in (1: in the driver process)

    def lines(self) -> Iterator[str]:
        """The canonical sorted, unique N-Quads lines (merging the runs; read once)."""
        return merge_runs(self.runs, self.scratch, self.tuning.fan_in, self.tuning.external_sort)

    def blocks(self) -> Iterator[bytes]:
        """The same lines as UTF-8 bytes, in blocks of whole lines (what the writer of the workspace graph takes)."""
        return merge_blocks(self.runs, self.scratch, most=self.tuning.fan_in, external=self.tuning.external_sort)

    def drop_runs(self) -> None:
        """Delete the run files once the graph is merged from them (the merge reads them; it does not delete them)."""
        for run in self.runs:
            run.unlink(missing_ok=True)
        self.runs = []

    def write_sample(self, out: Path) -> int:
        """Write what validating the sample needs, sorted and unique, into ``out`` and return its number of
        lines: the sampled records' graphs, the tools and topics graphs, the knowledge-graph lines about the IRIs
        the sampled records use and the facts about those and their subjects. The lines go from run files to
        run files (this process holds the sample's IRIs, not its lines). Call it before merging the runs (a merge
        in rounds removes the runs it merges)."""
        wanted = SampleFilter(_lines_of(self.sampled), self.shared_graphs)
        picked = []
        for i, run in enumerate(self.knowledge_runs):  # (a run is sorted: so are the lines picked from it)
            picked.append(self.scratch / f"{out.name}.shared-{i:05d}")
            with open(run, encoding="utf-8", newline="\n") as src, \
                    open(picked[-1], "w", encoding="utf-8", newline="\n", buffering=1 << 16) as fh:
                fh.writelines(line for line in src if wanted(line))
        merge_into([*self.sampled, *picked], out, self.tuning.fan_in, self.tuning.external_sort)
        self.sampled.clear()  # (merge_into removed them)
        with open(out, "rb") as fh:
            return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))


def _lines_of(paths: Iterable[Path]) -> Iterator[str]:
    """The lines of the files, one file after the other."""
    for path in paths:
        with open(path, encoding="utf-8", newline="\n") as fh:
            yield from fh


class SampleFilter:
    """Which lines of the shared graphs validating the records of ``sampled`` (their lines) needs: the tools and
    topics graphs, the knowledge-graph lines about the IRIs they use, the facts about those and their subjects.
    A plain value, sent to the workers of a cluster build."""

    def __init__(self, sampled: Iterable[str], shared_graphs: set[str]) -> None:
        self.graphs = tuple(sorted(shared_graphs))
        self.used: set[str] = set()
        subjects: set[str] = set()
        for s, _p, o, _g in map(split_quad, sampled):
            subjects.add(s)
            if o.startswith("<"):
                self.used.add(o)
        self.about = self.used | subjects  # (facts are on references too)

    def __call__(self, line: str) -> bool:
        fgraph, kgraph, tgraph, sgraph = self.graphs
        s, _p, _o, graph = split_quad(line)
        return graph == tgraph or graph == sgraph or (graph == kgraph and s in self.used) or \
            (graph == fgraph and s in self.about)


# ---------------------------------------------------------------- worker side

@dataclass(frozen=True, slots=True)
class Scanned:
    """Pass 1's answer for a record that normalises: what dedupe and resolution need."""

    seq: int
    doi: str
    where: str
    rank: Rank
    warnings: list[str]
    rows: Any  # DiskResolver.rows


@dataclass(frozen=True, slots=True)
class ScanFailed:
    """Pass 1's answer for a record that cannot be read or normalised (passed along to keep the report's order)."""

    line: str


@dataclass(frozen=True)
class MappedChunk:
    """Pass 2's answer for a chunk: its sorted run file, its records, their shared things and sampled lines."""

    run: Path
    records: int
    used: Used
    sampled: Path | None  # the run of the lines of the chunk's records in the validation sample
    fact_rows: Path  # the run of the chunk's rows of the precomputed facts (``facts.rows``)


_CTX: Context | None = None
_LOOKUP: Lookup | None = None
_RUNS: Path | None = None
_SAMPLE: frozenset[str] = frozenset()


def _init(spec: ContextSpec, db: Path | None = None, runs: Path | None = None,
          sample: frozenset[str] = frozenset()) -> None:
    global _CTX, _LOOKUP, _RUNS, _SAMPLE
    _CTX = spec.create()
    _LOOKUP = Lookup(db) if db else None
    _RUNS, _SAMPLE = runs, sample


def _expanded(items: Chunk) -> Iterator[tuple[int, Item]]:
    """(sequence number, record or error) of every record of the chunk, the lines of large JSON Lines files
    parsed here (the i-th record of a line numbered n << SHIFT | i; only those to keep, where given)."""
    for seq, item, wanted in items:
        if not isinstance(item, LazyLine):
            yield seq, item
            continue
        for i, record in enumerate(item.records()):
            if wanted is None or i in wanted:
                yield seq | i, record


def _scan(items: Chunk) -> list[Scanned | ScanFailed]:
    """Pass 1 on a chunk, in a worker of the local pool: ``scan_chunk`` with the worker's context."""
    assert _CTX is not None
    return scan_chunk(_CTX, items)


def scan_chunk(ctx: Context, items: Chunk) -> list[Scanned | ScanFailed]:
    """Pass 1 on a chunk: per record, an error, or what dedupe and resolution need."""
    out: list[Scanned | ScanFailed] = []
    for seq, work, warnings, raw in each_work(_expanded(items), lambda _level, line: out.append(ScanFailed(line))):
        title = work.titles[0] if work.titles else None
        parsed: dict[int, ParsedRef] = {}
        rows = DiskResolver.rows(seq, record_entry(work), title, features(work, ctx.minter, parsed, ctx.catalogue),
                                 parsed, work_mentions(work, ctx.catalogue))
        out.append(Scanned(seq, work.doi, work.source.where(work.doi_verbatim), rank(work, raw), warnings, rows))
    return out


def _map(task: tuple[int, Chunk]) -> MappedChunk:
    """Pass 2 on a chunk, in a worker of the local pool: ``map_chunk`` with the worker's context and tables."""
    assert _CTX is not None and _LOOKUP is not None and _RUNS is not None
    return map_chunk(_CTX, _LOOKUP, _RUNS, _SAMPLE, *task)


def _added(lines: Iterable[str], into: Sorter) -> Iterator[str]:
    """``lines``, each added to ``into`` as it passes."""
    for line in lines:
        into.add(line)
        yield line


def map_chunk(ctx: Context, lookup: Lookup, runs: Path, sample: frozenset[str], chunk_no: int,
              items: Chunk) -> MappedChunk:
    """Pass 2 on a chunk: map each record with its resolutions into one sorted run file in ``runs`` (and the
    lines of the records in the validation ``sample`` apart). The lines go to the run through a sorter that
    spills every ``MAP_SPILL`` lines, each record's triples freed as their lines are made: a record of 100,000
    references is 2.7 million lines, which the worker never holds all at once (nor beside all its triples)."""
    used: Used = {}
    mapped = 0
    sorter = Sorter(runs, f"map-{chunk_no:07d}-part", MAP_SPILL)
    sampled = Sorter(runs, f"sample-{chunk_no:07d}-part", MAP_SPILL)  # (the lines of the sampled records)
    for _seq, item in _expanded(items):
        assert isinstance(item, tuple)  # pass 2 gets only the kept records, each one that normalised in pass 1
        source, raw = item
        mapped += 1
        work, _warnings = normalize(raw, source)
        enriched = enrich(work, ctx.catalogue, ctx.topic_overrides, ctx.topic_source, lookup.resolutions(work.doi),
                          lookup.cited_records(work.doi).get, lookup.named(work.doi).get, lookup.mentions(work.doi))
        add_shared(used, work, enriched.shared, ctx.minter)
        graph = ctx.minter.graph(work.doi)
        triples = map_work(work, ctx, enriched.knowledge)
        del work, enriched
        in_sample = graph in sample
        while triples:  # (from the end, in batches: the triples of a batch are freed as its lines are made)
            batch = list(quads(triples[-MAP_SPILL:], graph))
            del triples[-MAP_SPILL:]
            sorter.extend(batch)
            if in_sample:
                sampled.extend(batch)
    # the fact rows from the lines in memory when they were not spilled (the usual chunk), else from the run
    rows = None if sorter.runs else list(facts.rows(sorter.buffer))
    run = sorter.write(runs / f"map-{chunk_no:07d}.nq")
    fact_run = write_run(rows if rows is not None else facts.rows(canonical_lines(run)),
                         runs / f"fact-rows-{chunk_no:07d}.txt")  # (sorted here, not by the driver)
    sample_run = sampled.write(runs / f"sample-{chunk_no:07d}.nq") if sampled.buffer or sampled.runs else None
    return MappedChunk(run, mapped, used, sample_run, fact_run)


# ---------------------------------------------------------------- driver

def run_records(records: int, width: int, tuning: Tuning) -> int:
    """Records per run of pass 2 (and per task): ``tuning.chunk``, or more where that many records would make
    more runs than the final merge takes at once (``width``; they would be merged twice: by the workers in
    groups, or by the sort in rounds); at most ``run_growth * chunk``, which bounds what a worker holds. With a
    fan-in of 1,000, 100,000 records make runs of 109."""
    room = max(1, width - KNOWLEDGE_RUNS - tuning.group)
    return max(tuning.chunk, min(tuning.run_growth * tuning.chunk, -(-records // room)))


def _numbered(inputs: list[Input], report: BuildReport | None, stream_above: int,
              problem: Callable[[str, str], None] | None = None) -> Iterator[tuple[int, Any, None]]:
    """Chunk items of every record, or of every line of a large JSON Lines file (a ``LazyLine``; see
    ``_expanded``); with ``report``, notes go there, a file's warning to ``problem`` and read errors come too,
    else they are left out."""
    for n, item in enumerate(iter_records(inputs, lazy=True, stream_above=stream_above)):
        if isinstance(item, ReadWarning):
            if report is not None and problem is not None:
                problem("warning", str(item))
        elif isinstance(item, Ignored):
            if report is not None:
                report.notes.append(str(item))
        elif report is not None or not isinstance(item, InputError):
            yield n << SHIFT, item, None


def kept_items(items: Iterable[tuple[int, Any, frozenset[int] | None]],
               kept: set[int]) -> Iterator[tuple[int, Any, frozenset[int] | None]]:
    """The items that hold kept records; a line of a large JSON Lines file with the numbers of those it holds."""
    offsets: dict[int, set[int]] = {}
    for seq in kept:
        offsets.setdefault(seq >> SHIFT, set()).add(seq & ((1 << SHIFT) - 1))
    for seq, item, _none in items:
        wanted = offsets.get(seq >> SHIFT)
        if wanted is not None:
            yield seq, item, frozenset(wanted) if isinstance(item, LazyLine) else None


def _pool(jobs: int, initargs: tuple) -> ProcessPoolExecutor | None:
    if jobs <= 1:
        _init(*initargs)
        return None
    return ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init, initargs=initargs)


def _worker_init(*args: Any) -> None:
    quiet_worker()
    _init(*args)


def _run(pool: ProcessPoolExecutor | None, fn: Callable, tasks: Iterable[Any], jobs: int) -> Iterator[Any]:
    """``map(fn, tasks)`` in order, in the pool with a bounded number of tasks in flight."""
    if pool is None:
        yield from map(fn, tasks)
        return
    pending: deque = deque()
    for task in tasks:
        pending.append(pool.submit(fn, task))
        if len(pending) >= jobs * 4:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def sample_of(dois: Iterable[str], n: int) -> set[str]:
    """The deterministic validation sample: the ``n`` DOIs with the smallest sha256."""
    return set(sorted(dois, key=lambda d: hashlib.sha256(d.encode("utf-8")).hexdigest())[:n])


def _scan_pass(inputs: list[Input], spec: ContextSpec, resolver: DiskResolver, report: BuildReport,
               problem: Callable[[str, str], None], jobs: int, tuning: Tuning,
               on_progress: Callable[..., None] | None) -> tuple[dict[str, int], list[int]]:
    """Pass 1 in a local pool: see ``take_scanned``."""
    pool = _pool(jobs, (spec,))
    try:
        answers = _run(pool, _scan, chunks(_numbered(inputs, report, tuning.stream_above, problem), tuning.chunk),
                       jobs)
        return take_scanned(answers, resolver, report, problem, on_progress)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def take_scanned(answers: Iterable[list[Scanned | ScanFailed]], resolver: DiskResolver, report: BuildReport,
                 problem: Callable[[str, str], None],
                 on_progress: Callable[..., None] | None) -> tuple[dict[str, int], list[int]]:
    """Pass 1's reduce, whichever engine ran the scans (answers in input order): dedupe, collect reference
    features; the sequence number of the record kept per DOI, and those of the records dropped."""
    merge = DoiMerge(report.notes)
    kept: dict[str, int] = {}
    dropped: list[int] = []
    for chunk in answers:
        faults.reached("read")
        for a in chunk:
            if isinstance(a, ScanFailed):
                report.skipped += 1
                problem("error", a.line)
                continue
            for w in a.warnings:
                problem("warning", w)
            report.records += 1
            if on_progress and report.records % 500 == 0:
                on_progress("read", report.records)
            verdict = merge.offer(a.doi, a.rank, a.where)
            if isinstance(verdict, Drop):
                dropped.append(a.seq)
                continue
            if verdict.replaces:
                dropped.append(kept[a.doi])
            kept[a.doi] = a.seq
            resolver.add(a.rows)
    report.merged = merge.merged
    return kept, dropped


def _map_pass(inputs: list[Input], spec: ContextSpec, kept: set[int], chosen: frozenset[str], result: StreamResult,
              jobs: int, tuning: Tuning, on_progress: Callable[..., None] | None, fact_rows: Sorter) -> Used:
    """Pass 2: map the kept records into ``result.runs`` (merged in groups by the workers when there are many),
    their rows of the precomputed facts into ``fact_rows``; the shared things they cite."""
    runs, scratch = result.runs, result.scratch
    used: Used = {}
    done = 0
    pool = _pool(jobs, (spec, scratch / "resolve.sqlite", scratch, chosen))
    merging: list[Future] = []
    width = fan_in(tuning.fan_in)
    if on_progress:
        on_progress("map", 0, len(kept))
    try:
        tasks = enumerate(chunks(kept_items(_numbered(inputs, None, tuning.stream_above), kept),
                                  run_records(len(kept), width, tuning)))
        for answer in _run(pool, _map, tasks, jobs):
            if answer.sampled is not None:
                result.sampled.append(answer.sampled)
            fact_rows.add_run(answer.fact_rows)
            runs.append(answer.run)
            faults.reached("map")
            if pool is not None and len(runs) >= tuning.group and \
                    len(merging) + len(runs) > width - KNOWLEDGE_RUNS - tuning.group:
                # the workers merge runs as they come once there are nearly more than the final merge (one
                # process) takes in one round; below that, merging twice would only cost time
                merging.append(pool.submit(merge_into, runs[:], scratch / f"group-{len(merging):05d}.nq",
                                           tuning.fan_in, tuning.external_sort))
                runs.clear()  # (the list is result.runs)
            merge_shared(used, answer.used)
            done += answer.records
            if on_progress:
                on_progress("map", done, len(kept))
        runs[:0] = [f.result() for f in merging]
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return used


def build_stream(inputs: list[Input], spec: ContextSpec, scratch: Path, jobs: int = 1, strict: bool = False,
                 sample: int | None = None, on_problem: Callable[[str, str], None] | None = None,
                 on_progress: Callable[..., None] | None = None, tuning: Tuning = Tuning()) -> StreamResult:
    """Run both passes; the caller merges ``result.lines()`` and removes ``scratch`` afterwards.

    ``sample``: validate only that many records (their graph IRIs land in ``result.sample``). The cluster build
    (``kg.pipeline.cluster``) runs the same step functions on hash partitions.
    """
    report = BuildReport()
    t = time.perf_counter()
    ctx = spec.create()
    scratch.mkdir(parents=True, exist_ok=True)
    problem = report.recorder(strict, on_problem)
    resolver = DiskResolver(scratch / "resolve.sqlite", ctx.minter, ctx.catalogue)
    if on_progress:
        on_progress("read", 0)
    best, dropped = _scan_pass(inputs, spec, resolver, report, problem, jobs, tuning, on_progress)
    report.notes.sort()
    for line in unused_overrides(ctx.topic_lines, set(best)):
        problem("warning", line)
    t = report.timed("read", t)
    result = StreamResult(report, [], scratch, tuning, works=len(best), shared_graphs=ctx.minter.shared_graphs())
    if not best:
        resolver.close()
        return result
    resolver.drop(dropped)
    resolver.decide_named()
    del dropped
    # resolution, and what references tell about cited works
    knowledge = Sorter(scratch, "knowledge")
    kgraph = ctx.minter.shared_graph("knowledge")
    iris = {ctx.minter.doi(d) for d in best}
    fact_rows = Sorter(scratch, "fact-rows")

    def cited(info: Any) -> None:
        lines = list(quads(cited_triples([info], iris), kgraph))
        knowledge.extend(lines)
        fact_rows.extend(facts.rows(lines))

    if on_progress:
        on_progress("resolve", len(best))
    result.resolve_parts = resolver.resolve(cited, jobs, tuning.parallel_above)
    resolver.close()
    t = report.timed("resolve", t)
    kept = set(best.values())
    chosen: frozenset[str] = frozenset()
    if sample is not None and sample < len(best):
        chosen = frozenset(ctx.minter.graph(d) for d in sample_of(best, sample))
        result.sample = set(chosen)
    del best
    used = _map_pass(inputs, spec, kept, chosen, result, jobs, tuning, on_progress, fact_rows)
    # (the precomputed facts of the stored queries are a reduce of the rows of every chunk and of the shared graphs)
    fact_rows.extend(facts.rows(_added(shared_lines(ctx, used, True), knowledge)))
    knowledge.extend(facts.fact_lines(fact_rows.sorted(), ctx.minter.shared_graph("facts"),
                                      lambda name: Sorter(scratch, name)))
    fact_rows.discard()  # (read: the facts are in the knowledge runs now)
    knowledge.spill()
    result.runs.extend(knowledge.runs)
    result.knowledge_runs = list(knowledge.runs)
    report.timed("map", t)
    return result


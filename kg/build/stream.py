"""The streaming build: the pipeline of ``kg.build`` in flat memory, on one core or several.

Pass 1 reads and normalises every record (in worker processes when ``jobs`` > 1), keeps per DOI only
the rank of the best record (duplicates merged as in ``kg.build``), and stores the compact features of
every reference in SQLite. Resolution then runs on those tables (``kg.refs.resolve_disk``). Pass 2
reads the inputs again, maps each kept record with its resolutions, and writes sorted runs of N-Quads
lines; the runs are merged into one canonical sorted file. The output is byte-identical to the
in-memory ``kg.build.build_graph`` (a test proves it) and does not depend on ``jobs``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .memory import Report, _rank, cited_triples, map_with_knowledge, merge_shared, shared_lines
from ..refs.named import work_mentions
from ..refs.topics import unused_overrides
from ..errors import InputError
from ..rdf.nquads import quads, split_quad
from ..infra import faults
from ..infra.outputs import alive
from ..infra.workers import quiet_worker
from ..infra.extsort import Sorter, fan_in, merge_blocks, merge_into, merge_runs, write_run
from ..map.context import Context
from ..ingest.normalize import normalize
from ..ingest.read import Ignored, Input, LazyLine, iter_records
from ..refs.parse import ParsedRef
from ..refs.resolve import features, record_entry
from ..refs.resolve_disk import DiskResolver, Lookup

CHUNK = 64  # records per task sent to a worker
RUN_GROWTH = 4  # pass 2 puts up to RUN_GROWTH * CHUNK records in a run, so that the final merge takes every run at once
SHIFT = 32  # the records of the n-th item read (a record, or a line of a large JSON Lines file) are numbered n << SHIFT | i
GROUP = 64  # with workers, GROUP sorted runs of pass 2 are merged into one by a worker when there are many
KNOWLEDGE_RUNS = 16  # runs of the knowledge graph the final merge is expected to take besides those of pass 2


@dataclass
class StreamResult:
    """A finished pass: the sorted N-Quads run files to merge, the report and what validation needs."""

    report: Report
    runs: list[Path]
    scratch: Path
    works: int = 0
    sample: set[str] | None = None  # graph IRIs of the sampled records (None: every record)
    shared_graphs: set[str] = field(default_factory=set)
    sampled: list[str] = field(default_factory=list)  # the lines of the sampled records' graphs
    knowledge_runs: list[Path] = field(default_factory=list)  # the runs of the knowledge, tools and topics graphs

    def lines(self) -> Iterator[str]:
        """The canonical sorted, unique N-Quads lines (merging the runs; read once)."""
        return merge_runs(self.runs, self.scratch)

    def blocks(self) -> Iterator[bytes]:
        """The same lines as UTF-8 bytes, in blocks of whole lines (what the writer of the workspace graph takes)."""
        return merge_blocks(self.runs, self.scratch)

    def sample_lines(self) -> list[str]:
        """What validating the sample needs, sorted: the sampled records' graphs, the tools and topics graphs,
        and the knowledge-graph lines about the IRIs the sampled records use. Call it before merging the runs
        (a merge in rounds removes the runs it merges)."""
        kgraph, tgraph, sgraph = sorted(self.shared_graphs)
        used = {o for _s, _p, o, _g in map(split_quad, self.sampled) if o.startswith("<")}
        extra: set[str] = set()
        for run in self.knowledge_runs:
            with open(run, encoding="utf-8", newline="\n") as fh:
                for line in fh:
                    s, _p, _o, graph = split_quad(line)
                    if graph == tgraph or graph == sgraph or (graph == kgraph and s in used):
                        extra.add(line)
        return sorted(extra.union(self.sampled))


# ---------------------------------------------------------------- worker side

_CTX: Context | None = None
_LOOKUP: Lookup | None = None
_RUNS: Path | None = None
_SAMPLE: frozenset[str] = frozenset()


def _init(args: tuple[str, list[Path] | None, Path | None], db: Path | None = None, runs: Path | None = None,
          sample: frozenset[str] = frozenset()) -> None:
    global _CTX, _LOOKUP, _RUNS, _SAMPLE
    base, tools, topics = args
    _CTX = Context.create(base, tools=tools, topics=topics)
    _LOOKUP = Lookup(db) if db else None
    _RUNS, _SAMPLE = runs, sample


def _expanded(items: list[tuple[int, Any, Any]]) -> Iterator[tuple[int, Any, Any]]:
    """(sequence number, source, raw record) of every record of the chunk, the lines of large JSON Lines files
    parsed here, errors as (sequence number, None, message). A line comes as (n << SHIFT, LazyLine, None),
    or with the set of its records' numbers (i of n << SHIFT | i) to keep in place of None."""
    for seq, source, raw in items:
        if not isinstance(source, LazyLine):
            yield seq, source, raw
            continue
        for i, record in enumerate(source.records()):
            if raw is not None and i not in raw:
                continue
            if isinstance(record, InputError):
                yield seq | i, None, str(record)
            else:
                yield seq | i, record[0], record[1]


def _scan(items: list[tuple[int, Any, Any]]) -> list[tuple]:
    """Pass 1 on a chunk: per record, an error, or what dedupe and resolution need."""
    assert _CTX is not None
    out: list[tuple] = []
    for seq, source, raw in _expanded(items):
        if source is None:  # a read error, passed along to keep the order of the report
            out.append((seq, "error", raw))
            continue
        try:
            work, warnings = normalize(raw, source)
        except InputError as e:
            out.append((seq, "error", str(e)))
            continue
        title = work.titles[0] if work.titles else None
        parsed: dict[int, ParsedRef] = {}
        rows = DiskResolver.rows(seq, record_entry(work), title, features(work, _CTX.minter, parsed, _CTX.catalogue), parsed,
                                 work_mentions(work, _CTX.catalogue))
        out.append((seq, "ok", work.doi, work.source.where(work.doi_verbatim), _rank(work, raw), warnings, rows))
    return out


def _map(task: tuple[int, list[tuple[int, Any, Any]]]) -> tuple[Path, int, dict[tuple[str, str], Any], list[str]]:
    """Pass 2 on a chunk: map each record with its resolutions into one sorted run file (and the lines of the
    records in the validation sample apart)."""
    assert _CTX is not None and _LOOKUP is not None and _RUNS is not None
    chunk_no, items = task
    lines: list[str] = []
    used: dict[tuple[str, str], Any] = {}
    sampled: list[str] = []
    mapped = 0
    for _seq, source, raw in _expanded(items):
        mapped += 1
        work, _warnings = normalize(raw, source)
        full = _LOOKUP.resolutions(work.doi)
        triples, shared = map_with_knowledge(work, _CTX, full, _LOOKUP.cited_records(work.doi).get,
                                             _LOOKUP.named(work.doi).get)
        merge_shared(used, shared)
        graph = _CTX.minter.graph(work.doi)
        start = len(lines)
        lines.extend(quads(triples, graph))
        if graph in _SAMPLE:
            sampled.extend(set(lines[start:]))
    run = write_run(lines, _RUNS / f"map-{chunk_no:07d}.nq")
    return run, mapped, used, sampled


# ---------------------------------------------------------------- driver

def run_records(records: int) -> int:
    """Records per run of pass 2 (and per task): ``CHUNK``, or more where that many records would make more runs
    than the final merge takes at once (they would be merged twice: by the workers in groups, or by the sort
    in rounds); at most ``RUN_GROWTH * CHUNK``, which bounds what a worker holds. With a fan-in of 1,000,
    100,000 records make runs of 109."""
    room = max(1, fan_in() - KNOWLEDGE_RUNS - GROUP)
    return max(CHUNK, min(RUN_GROWTH * CHUNK, -(-records // room)))


def _chunks(items: Iterable[tuple[int, Any, Any]], size: int | None = None) -> Iterator[list[tuple[int, Any, Any]]]:
    size = size or CHUNK  # read at call time (tests make it small)
    chunk: list[tuple[int, Any, Any]] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _numbered(inputs: list[Input], report: Report | None) -> Iterator[tuple[int, Any, Any]]:
    """(sequence number, source, raw record) of every record, or (sequence number, LazyLine, None) of every line
    of a large JSON Lines file (see ``_expanded``); with ``report``, notes go there and read errors come as
    (sequence number, None, message)."""
    for n, item in enumerate(iter_records(inputs, lazy=True)):
        seq = n << SHIFT
        if isinstance(item, LazyLine):
            yield seq, item, None
            continue
        if isinstance(item, Ignored):
            if report is not None:
                report.notes.append(str(item))
            continue
        if isinstance(item, InputError):
            if report is not None:
                yield seq, None, str(item)
            continue
        source, raw = item
        yield seq, source, raw


def _kept(items: Iterator[tuple[int, Any, Any]], kept: set[int]) -> Iterator[tuple[int, Any, Any]]:
    """The items that hold kept records; a line of a large JSON Lines file with the numbers of those it holds."""
    offsets: dict[int, set[int]] = {}
    for seq in kept:
        offsets.setdefault(seq >> SHIFT, set()).add(seq & ((1 << SHIFT) - 1))
    for seq, source, raw in items:
        wanted = offsets.get(seq >> SHIFT)
        if wanted is not None:
            yield (seq, source, frozenset(wanted)) if isinstance(source, LazyLine) else (seq, source, raw)


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
    from collections import deque
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


def build_stream(inputs: list[Input], ctx_args: tuple[str, list[Path] | None, Path | None], scratch: Path,
                 jobs: int = 1, strict: bool = False, sample: int | None = None,
                 on_problem: Callable[[str, str], None] | None = None,
                 on_progress: Callable[..., None] | None = None) -> StreamResult:
    """Run both passes; the caller merges ``result.lines()`` and removes ``scratch`` afterwards.

    ``sample``: validate only that many records (their graph IRIs land in ``result.sample``).
    """
    report = Report()
    t = time.perf_counter()
    ctx = Context.create(ctx_args[0], tools=ctx_args[1], topics=ctx_args[2])
    scratch.mkdir(parents=True, exist_ok=True)

    problem = report.recorder(strict, on_problem)
    # pass 1: normalise, dedupe, collect reference features
    resolver = DiskResolver(scratch / "resolve.sqlite", ctx.minter, ctx.catalogue)
    best: dict[str, tuple[tuple[str, ...], int, str]] = {}
    dropped: list[int] = []
    pool = _pool(jobs, (ctx_args,))
    try:
        for results in _run(pool, _scan, _chunks(_numbered(inputs, report)), jobs):
            faults.reached("read")
            for seq, status, *rest in results:
                if status == "error":
                    report.skipped += 1
                    problem("error", rest[0])
                    continue
                doi, where, rank, warnings, rows = rest
                for w in warnings:
                    problem("warning", w)
                report.records += 1
                if on_progress and report.records % 500 == 0:
                    on_progress("read", report.records)
                seen = best.get(doi)
                if seen is not None:
                    report.merged += 1
                    keep, drop = (where, seen[2]) if rank > seen[0] else (seen[2], where)
                    report.notes.append(f"{drop}: same DOI as {keep}; merged into one work, keeping the record "
                                        "deposited last")
                    if rank <= seen[0]:
                        dropped.append(seq)
                        continue
                    dropped.append(seen[1])
                best[doi] = (rank, seq, where)
                resolver.add(rows)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    report.notes.sort()
    for line in unused_overrides(ctx.topic_lines, set(best)):
        problem("warning", line)
    t = report.timed("read", t)
    runs: list[Path] = []
    result = StreamResult(report, runs, scratch, works=len(best),
                          shared_graphs=ctx.minter.shared_graphs())
    if not best:
        resolver.close()
        return result
    resolver.drop(dropped)
    resolver.decide_named()
    del dropped
    # resolution, and what references tell about cited works
    knowledge = Sorter(scratch, "knowledge")
    kgraph = ctx.minter.shared_graph("knowledge")
    inputs_iris = {ctx.minter.doi(d) for d in best}
    resolver.resolve(lambda info: knowledge.extend(quads(cited_triples([info], inputs_iris), kgraph)), jobs)
    resolver.close()
    t = report.timed("resolve", t)
    if on_progress:
        on_progress("resolved", len(best))
    # pass 2: map the kept records
    kept = {seq for _r, seq, _w in best.values()}
    chosen: frozenset[str] = frozenset()
    if sample is not None and sample < len(best):
        chosen = frozenset(ctx.minter.graph(d) for d in sample_of(best, sample))
        result.sample = set(chosen)
    del best
    used: dict[tuple[str, str], Any] = {}
    done = 0
    pool = _pool(jobs, (ctx_args, scratch / "resolve.sqlite", scratch, chosen))
    merging: list[Future] = []
    width = fan_in() - KNOWLEDGE_RUNS
    try:
        tasks = enumerate(_chunks(_kept(_numbered(inputs, None), kept), run_records(len(kept))))
        for run, n, shared, sampled in _run(pool, _map, tasks, jobs):
            result.sampled.extend(sampled)
            runs.append(run)
            faults.reached("map")
            if pool is not None and len(runs) >= GROUP and len(merging) + len(runs) > width - GROUP:
                # the workers merge runs as they come once there are nearly more than the final merge (one
                # process) takes in one round; below that, merging twice would only cost time
                merging.append(pool.submit(merge_into, runs[:], scratch / f"group-{len(merging):05d}.nq"))
                runs.clear()  # (the list is result.runs)
            merge_shared(used, shared)
            done += n
            if on_progress:
                on_progress("map", done, len(kept))
        runs[:0] = [f.result() for f in merging]
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    knowledge.extend(shared_lines(ctx, used, True))
    knowledge.spill()
    runs.extend(knowledge.runs)
    result.knowledge_runs = list(knowledge.runs)
    report.timed("map", t)
    return result


def scratch_dir(workspace: Path) -> Path:
    """A fresh scratch folder inside the workspace; scratch folders of dead builds are removed first."""
    workspace.mkdir(parents=True, exist_ok=True)
    for old in workspace.glob(".build-*"):
        pid = old.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=".build-", suffix=f"-{os.getpid()}", dir=workspace))

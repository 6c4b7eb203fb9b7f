"""The streaming build as tasks on hash partitions: what ``kg.pipeline.cluster`` runs on Dask, one function a task.

The steps are the local build's (``stream.scan_chunk``, ``stream.map_chunk``, ``dedupe.DoiMerge``, the steps of
``refs.resolve_disk.DiskResolver``, ``facts``, ``map.shared``); what changes is where their rows live. Between two
stages the rows go through shuffle files in the scratch location (``kg.infra.shuffle``): each task writes one file,
in sections by destination, and each task of the next stage reads its own section of every file. The
partitions are hashes (crc32, the same in every process) of:

- the DOI, for duplicate DOIs (and the input works' titles, which resolution's results look up by DOI);
- the first word of a title key, for resolution (the steps that compare titles look at one title key, or one
  block of title keys sharing their first word and year, at a time; a reference without a title key goes by its
  citation key, else by its citing work); the URL groups, whose members come from every partition, are emitted in
  a stage of their own, partitioned by group key;
- the name key of a named artifact, for the corpus's view of each name;
- the key of a shared thing (a tool, an organisation), for the tools graph and the organisation names;

and the results come back to the input file whose records need them (pass 2 maps one input file a task). Each
partition's tables are SQLite files on the task's disk: what a task holds in memory is bounded by SQLite's page
cache, the shuffle writer's buffer and one group of rows, whatever the size of the corpus.

The graph is written by the part tasks: each merges one key range of every sorted run (ranges cut at splitters
sampled from the runs' sparse indexes, ``kg.infra.ranges``) into one gzipped part, so the parts, in name order,
are the canonical graph.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import sqlite3
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import groupby
from pathlib import Path
from typing import Any

from ..errors import KgError
from ..infra import ranges, shuffle
from ..infra.extsort import Sorter, merge_blocks, merge_into, merge_runs
from ..infra.location import Location
from ..infra.parts import gzip_writer, part_name
from ..infra.workers import chunks
from ..ingest.read import Ignored, ReadWarning, iter_file
from ..ingest.spool import fetch_file, is_url
from ..map.context import Context, ContextSpec
from ..map.shared import Used, cited_triples, merge_shared, shared_lines
from ..rdf.ids import Minter
from ..rdf.nquads import count_triples, quads, triple_bytes
from ..refs.resolve import CitedInfo, first_word
from ..refs.resolve_disk import DiskResolver, Lookup, connect
from . import facts, stream
from .dedupe import DoiMerge, Drop
from .stream import SHIFT, ScanFailed
from .tuning import Tuning

ITEM_BITS = 24  # items (records, or lines of a large JSON Lines file) of one input file: the low bits of n
FILE_SHIFT = SHIFT + ITEM_BITS  # a record's sequence number >> FILE_SHIFT is its input file's number
SAMPLES = 64  # keys sampled per run, at most, to cut the graph into parts
SAMPLE_BUDGET = 200_000  # keys sampled from all the runs of pass 2 together, at most (the driver holds them)


@dataclass(frozen=True)
class Plan:
    """What every task of one build knows: the scratch location, the partitions, the inputs and the options."""

    scratch: Location
    spec: ContextSpec
    tuning: Tuning
    partitions: int
    files: tuple[tuple[str, str, bool], ...]  # (name shown, path or URL, explicit) of every input file
    sample: frozenset[str] = frozenset()  # graph IRIs of the records whose lines validation needs (pass 2)
    sample_size: int | None = None  # the validation sample's size (dedupe's answer gives the candidates)


@dataclass
class Done:
    """A task's answer: what the driver needs, and the bytes it wrote to the scratch location."""

    written: int = 0
    answer: dict[str, Any] = field(default_factory=dict)


def bucket(text: str | None, n: int) -> int:
    """The hash partition of a key, the same in every process.

    >>> bucket("10.1000/x", 4)
    3
    >>> bucket(None, 4)
    0
    """
    return zlib.crc32(text.encode("utf-8")) % n if text is not None else 0


@lru_cache(maxsize=4)
def context(spec: ContextSpec) -> Context:
    """The mapping context of ``spec``, made once per process."""
    return spec.create()


@contextmanager
def workdir(plan: Plan) -> Iterator[Path]:
    """A task's own local folder (inside a local scratch folder, else in the system's temporary folder)."""
    local = plan.scratch.local
    path = Path(tempfile.mkdtemp(prefix="task-", dir=local))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _put(plan: Plan, local: Path, name: str) -> int:
    size = local.stat().st_size
    plan.scratch.put(local, name)
    return size


def _files(plan: Plan, prefix: str, n: int) -> list[str]:
    return [f"{prefix}-{i:05d}.shf" for i in range(n)]


# ---------------------------------------------------------------- pass 1

@contextmanager
def _input(plan: Plan, f: int, work: Path) -> Iterator[Path]:
    """Input file ``f`` as a local path (a URL's file copied first)."""
    _shown, where, _explicit = plan.files[f]
    if not is_url(where):
        yield Path(where)
        return
    copy = work / f"input-{os.path.basename(where)}"
    fetch_file(where, copy)
    try:
        yield copy
    finally:
        copy.unlink(missing_ok=True)


def _items(f: int, shown: str, path: Path, explicit: bool, tuning: Tuning,
           notes: list[str] | None, warned: list[str] | None = None,
           ) -> Iterator[tuple[int, Any, frozenset[int] | None]]:
    """The chunk items of input file ``f``, numbered (f << ITEM_BITS | item) << SHIFT; its notes and warnings to
    ``notes`` and ``warned``."""
    for k, item in enumerate(iter_file(shown, path, explicit, lazy=True, stream_above=tuning.stream_above)):
        if k >> ITEM_BITS:
            raise KgError(f"{shown}: holds more than {1 << ITEM_BITS} records or lines; split it into smaller files")
        if isinstance(item, (Ignored, ReadWarning)):
            kept = warned if isinstance(item, ReadWarning) else notes
            if kept is not None:
                kept.append(str(item))
            continue
        yield (f << ITEM_BITS | k) << SHIFT, item, None


def _ref_partition(ref: tuple, n: int) -> int:
    """A reference's resolution partition: its title key's first word, else its citation key, else its work."""
    tkey, fw, ckey, citing = ref[3], ref[4], ref[8], ref[1]
    return bucket(fw if tkey is not None else ckey if ckey is not None else citing, n)


def scan(plan: Plan, f: int) -> Done:
    """Pass 1 on input file ``f``: ``stream.scan_chunk`` of each chunk; its rows shuffled to the DOI, resolution
    and name partitions; the problems and notes, in input order, to the driver."""
    ctx, n, tuning = context(plan.spec), plan.partitions, plan.tuning
    shown, _where, explicit = plan.files[f]
    events: list[tuple[str, str]] = []
    notes: list[str] = []
    warned: list[str] = []
    records = 0
    with workdir(plan) as work, _input(plan, f, work) as path:
        out = shuffle.Writer(work / "scan.shf")
        for chunk in chunks(_items(f, shown, path, explicit, tuning, notes, warned), tuning.chunk):
            for a in stream.scan_chunk(ctx, chunk):
                if isinstance(a, ScanFailed):
                    events.append(("error", a.line))
                    continue
                events.extend(("warning", w) for w in a.warnings)
                records += 1
                rec, refs, mentions = a.rows
                out.add(("doi", bucket(a.doi, n)), (a.seq, a.doi, a.rank, a.where, rec[5], rec[3]))
                if rec[2] is not None:
                    out.add(("rec", bucket(first_word(rec[2]), n)), rec)
                for r in refs:
                    out.add(("parsed", 0), (r[0], r[1], r[2], r[15]))
                    out.add(("ref", _ref_partition(r, n)), (*r[:15], None, *r[16:]))
                for m in mentions:
                    out.add(("mention", bucket(m[3], n)), m)
        out.close()
        written = _put(plan, work / "scan.shf", f"scan-{f:05d}.shf")
    events.extend(("warning", w) for w in warned)  # (after the file's records: the trailing bytes come last)
    return Done(written, {"events": events, "notes": notes, "records": records})


# ---------------------------------------------------------------- duplicate DOIs

def _table(work: Path, name: str) -> sqlite3.Connection:
    return connect(work / f"{name}.sqlite")


def dedupe(plan: Plan, b: int) -> Done:
    """Duplicate DOIs of partition ``b`` (``dedupe.DoiMerge``, the records of a DOI offered in input order): the
    records kept, by input file; those dropped; the kept DOIs' titles and years; the validation sample's
    candidates and the --topics DOIs found."""
    ctx, n = context(plan.spec), plan.partitions
    notes: list[str] = []
    merged = works = 0
    candidates: list[tuple[str, str]] = []  # (sha256, DOI): the sample_size smallest, and some more
    found: list[str] = []
    with workdir(plan) as work:
        db = _table(work, "dedupe")
        db.execute("CREATE TABLE d(seq INTEGER, doi TEXT, rank BLOB, at TEXT, title TEXT, year TEXT)")
        for rows in _batches(shuffle.gather(plan.scratch, _files(plan, "scan", len(plan.files)), ("doi", b))):
            db.executemany("INSERT INTO d VALUES (?,?,?,?,?,?)", [(seq, doi, pickle.dumps(rank), at, title, year)
                                                                   for seq, doi, rank, at, title, year in rows])
        out = shuffle.Writer(work / "dedupe.shf")
        scan_ = db.execute("SELECT seq, doi, rank, at, title, year FROM d ORDER BY doi, seq")
        for doi, group in groupby(scan_, key=lambda r: r[1]):
            merge = DoiMerge(notes)
            kept: tuple | None = None
            for row in group:
                verdict = merge.offer(doi, pickle.loads(row[2]), row[3])
                if isinstance(verdict, Drop):
                    out.add(("dropped", 0), row[0])
                    continue
                if kept is not None:
                    out.add(("dropped", 0), kept[0])
                kept = row
            assert kept is not None
            merged += merge.merged
            works += 1
            out.add(("kept", kept[0] >> FILE_SHIFT), kept[0])
            out.add(("rec", 0), (doi, kept[4], kept[5]))
            canonical = Minter.doi_of(Minter.doi(doi))
            out.add(("iri", bucket(canonical, n)), canonical)
            if doi in ctx.topic_lines:
                found.append(doi)
            if plan.sample_size is not None:
                candidates.append((hashlib.sha256(doi.encode("utf-8")).hexdigest(), doi))
                if len(candidates) >= 2 * plan.sample_size:  # (keep the smallest: memory bounded by the sample)
                    candidates.sort()
                    del candidates[plan.sample_size:]
        db.close()
        out.close()
        written = _put(plan, work / "dedupe.shf", f"dedupe-{b:05d}.shf")
    return Done(written, {"notes": notes, "merged": merged, "works": works, "found": found,
                          "sample": sorted(candidates)[:plan.sample_size or 0]})


def _batches(rows: Iterable[Any]) -> Iterator[list[Any]]:
    """The rows of a shuffle table handed on 5,000 at a time (the local build's chunking)."""
    return chunks(rows, 5000)


def _dropped(plan: Plan, db: sqlite3.Connection) -> None:
    """Table ``dropped``: the sequence numbers of every record a duplicate DOI replaced."""
    db.execute("CREATE TABLE dropped(seq INTEGER PRIMARY KEY)")
    for rows in _batches(shuffle.gather(plan.scratch, _files(plan, "dedupe", plan.partitions), ("dropped", 0))):
        db.executemany("INSERT OR IGNORE INTO dropped VALUES (?)", [(s,) for s in rows])


# ---------------------------------------------------------------- named artifacts

def named(plan: Plan, p: int) -> Done:
    """The corpus's view of every name of partition ``p`` (``DiskResolver.decide_named``), sent to the input
    files whose records mention it."""
    ctx = context(plan.spec)
    with workdir(plan) as work:
        r = DiskResolver(work / "named.sqlite", ctx.minter, ctx.catalogue)
        for rows in _batches(shuffle.gather(plan.scratch, _files(plan, "scan", len(plan.files)), ("mention", p))):
            r.db.executemany("INSERT INTO mention VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
        _dropped(plan, r.db)
        r.db.execute("DELETE FROM mention WHERE seq IN (SELECT seq FROM dropped)")
        r.decide_named()
        out = shuffle.Writer(work / "named.shf")
        for seq, *row in r.db.execute("SELECT DISTINCT m.seq, m.citing, n.key, n.name, n.kind, n.category, n.score, "
                                      "n.works, n.methods, n.status FROM mention m JOIN named n ON n.key = m.key"):
            out.add(("named", seq >> FILE_SHIFT), tuple(row))
        r.close()
        out.close()
        written = _put(plan, work / "named.shf", f"named-{p:05d}.shf")
    return Done(written)


# ---------------------------------------------------------------- resolution

def resolve_titles(plan: Plan, p: int) -> Done:
    """Resolution steps 1 and 2 on partition ``p``: its tables gathered, the dropped records left out, the works
    known by identifier and the titles that name them; the tables kept for ``resolve_groups``, the tool pages
    (reference URLs that are a tool's main page) to the driver, which gives every partition all of them."""
    ctx, n = context(plan.spec), plan.partitions
    with workdir(plan) as work:
        r = DiskResolver(work / "resolve.sqlite", ctx.minter, ctx.catalogue)
        scans = _files(plan, "scan", len(plan.files))
        for rows in _batches(shuffle.gather(plan.scratch, scans, ("rec", p))):
            r.db.executemany("INSERT INTO rec VALUES (?,?,?,?,?,?)", rows)
        for rows in _batches(shuffle.gather(plan.scratch, scans, ("ref", p))):
            r.db.executemany("INSERT INTO ref VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        _dropped(plan, r.db)
        r.db.execute("DELETE FROM rec WHERE seq IN (SELECT seq FROM dropped)")
        r.db.execute("DELETE FROM ref WHERE seq IN (SELECT seq FROM dropped)")
        r.db.execute("DROP TABLE dropped")
        r.identify(keep=lambda tkey: bucket(first_word(tkey), n) == p)
        r.match_titles(r.steps_here())
        pages = r.tool_pages()
        r.db.commit()
        r.close()
        written = _put(plan, work / "resolve.sqlite", f"resolve-{p:05d}.sqlite")
    return Done(written, {"tool_pages": pages})


class _Results:
    """What a resolution task gives: its resolutions (to the citing works' input files), the cited DOIs (to the DOI
    partitions, for the cited works' titles), and the knowledge graph's lines and fact rows of its groups (the
    infos about a DOI's node go to the DOI's partition: only there is it known whether it is an input work)."""

    def __init__(self, plan: Plan, work: Path, out: shuffle.Writer) -> None:
        self.plan, self.work, self.out = plan, work, out
        ctx = context(plan.spec)
        self.kgraph = ctx.minter.shared_graph("knowledge")
        self.knowledge = Sorter(work, "knowledge")
        self.fact_rows = Sorter(work, "fact-rows")

    def info(self, info: CitedInfo) -> None:
        doi = Minter.doi_of(info.iri)
        if doi is not None:
            self.out.add(("info", bucket(doi, self.plan.partitions)), info)
            return
        lines = list(quads(cited_triples([info], set()), self.kgraph))
        self.knowledge.extend(lines)
        self.fact_rows.extend(facts.rows(lines))

    def resolutions(self, db: sqlite3.Connection) -> None:
        n = self.plan.partitions
        db.execute("CREATE INDEX IF NOT EXISTS ref_ci ON ref(citing, idx)")
        for seq, *row in db.execute("SELECT ref.seq, res.* FROM res JOIN ref ON ref.citing = res.citing "
                                    "AND ref.idx = res.idx"):
            self.out.add(("res", seq >> FILE_SHIFT), tuple(row))
        for doi, f in db.execute(f"SELECT DISTINCT res.cited_doi, ref.seq >> {FILE_SHIFT} FROM res JOIN ref "
                                 "ON ref.citing = res.citing AND ref.idx = res.idx WHERE res.cited_doi IS NOT NULL"):
            self.out.add(("cited", bucket(doi, n)), (doi, f))

    def finish(self, name: str) -> tuple[int, list[dict[str, Any]]]:
        """Write the shuffle file, the knowledge run and the fact rows; (bytes written, the runs' descriptions)."""
        self.out.close()
        written = _put(self.plan, self.work / "out.shf", f"{name}.shf")
        runs = []
        n, run = _sorted_run(self.plan, self.knowledge.sorted(), self.work, f"knowledge-{name}.nq")
        written += n
        if run:
            runs.append(run)
        written += _rows_run(self.plan, self.fact_rows.sorted(), self.work, f"fact-rows-{name}.txt")
        return written, runs


def resolve_groups(plan: Plan, p: int, tool_pages: list[tuple[str, str]]) -> Done:
    """Resolution steps 3 to 6 on partition ``p``: URL and title groups (the URL groups' members sent to the URL
    partitions), the fuzzy merge of title groups, a node per group but the URL groups, preprint links."""
    ctx, n = context(plan.spec), plan.partitions
    with workdir(plan) as work, plan.scratch.reading(f"resolve-{p:05d}.sqlite", work) as stored:
        shutil.copyfile(stored, work / "resolve.sqlite")  # (a retried task starts again from step 2's tables)
        r = DiskResolver(work / "resolve.sqlite", ctx.minter, ctx.catalogue, new=False)
        results = _Results(plan, work, shuffle.Writer(work / "out.shf"))
        run = r.steps_here()
        r.group(run, tool_pages)
        r.emit(run, results.info, urls=False)
        r.link_preprints(results.info)
        for row in r.url_members():
            results.out.add(("url", bucket(row[0], n)), tuple(row))
        results.resolutions(r.db)
        r.close()
        written, runs = results.finish(f"resolved-{p:05d}")
    return Done(written, {"runs": runs})


def resolve_urls(plan: Plan, u: int) -> Done:
    """Resolution step 5 for the URL groups of partition ``u``, their members gathered from every partition."""
    ctx = context(plan.spec)
    with workdir(plan) as work:
        r = DiskResolver(work / "urls.sqlite", ctx.minter, ctx.catalogue)
        members = []
        for gkey, *ref in shuffle.gather(plan.scratch, _files(plan, "resolved", plan.partitions), ("url", u)):
            rid = r.db.execute("INSERT INTO ref VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", ref).lastrowid
            members.append((gkey, rid, 0))
            if len(members) >= 5000:
                r.db.executemany("INSERT INTO grp VALUES (?,?,?)", members)
                members.clear()
        r.db.executemany("INSERT INTO grp VALUES (?,?,?)", members)
        results = _Results(plan, work, shuffle.Writer(work / "out.shf"))
        r.emit(r.steps_here(), results.info)
        results.resolutions(r.db)
        r.close()
        written, runs = results.finish(f"urls-{u:05d}")
    return Done(written, {"runs": runs})


def cited(plan: Plan, b: int) -> Done:
    """For DOI partition ``b``: the title and year of every input work a resolution points to, sent to the input
    files whose records cite it; the knowledge graph's lines about DOI nodes (none for an input work)."""
    n = plan.partitions
    resolved = _files(plan, "resolved", n) + _files(plan, "urls", n)
    with workdir(plan) as work:
        db = _table(work, "cited")
        db.execute("CREATE TABLE r(doi TEXT, title TEXT, year TEXT)")
        db.execute("CREATE TABLE c(doi TEXT, f INTEGER)")
        db.execute("CREATE TABLE i(iri TEXT PRIMARY KEY)")
        for rows in _batches(shuffle.rows(plan.scratch, f"dedupe-{b:05d}.shf", ("rec", 0))):
            db.executemany("INSERT INTO r VALUES (?,?,?)", rows)
        for rows in _batches(shuffle.gather(plan.scratch, resolved, ("cited", b))):
            db.executemany("INSERT INTO c VALUES (?,?)", rows)
        for rows in _batches(shuffle.gather(plan.scratch, _files(plan, "dedupe", n), ("iri", b))):
            db.executemany("INSERT OR IGNORE INTO i VALUES (?)", [(x,) for x in rows])
        db.execute("CREATE INDEX r_d ON r(doi)")
        results = _Results(plan, work, shuffle.Writer(work / "out.shf"))
        for f, doi, title, year in db.execute("SELECT DISTINCT c.f, r.doi, r.title, r.year FROM c JOIN r "
                                              "ON r.doi = c.doi"):
            results.out.add(("rec", f), (doi, title, year))
        for info in shuffle.gather(plan.scratch, resolved, ("info", b)):
            known = db.execute("SELECT 1 FROM i WHERE iri = ?", (Minter.doi_of(info.iri),)).fetchone()
            lines = list(quads(cited_triples([info], {info.iri} if known else set()), results.kgraph))
            results.knowledge.extend(lines)
            results.fact_rows.extend(facts.rows(lines))
        db.close()
        written, runs = results.finish(f"cited-{b:05d}")
    return Done(written, {"runs": runs})


# ---------------------------------------------------------------- pass 2

LOOKUP_TABLES = ("CREATE TABLE ref(citing TEXT, idx INTEGER, parsed BLOB);"
                 "CREATE TABLE res(citing TEXT, idx INTEGER, cited TEXT, method TEXT, score REAL, matched TEXT, "
                 "cited_doi TEXT);"
                 "CREATE TABLE named(key TEXT PRIMARY KEY, name TEXT, kind TEXT, category TEXT, score REAL, "
                 "works INTEGER, methods TEXT, status TEXT);"
                 "CREATE TABLE mention(citing TEXT, key TEXT);"
                 "CREATE TABLE rec(doi TEXT, title TEXT, year TEXT);")


def _lookup(plan: Plan, f: int, kept: set[int], path: Path) -> None:
    """The tables ``refs.resolve_disk.Lookup`` reads, for the records of input file ``f``: their parsed references
    and resolutions, the names they mention, the titles of the input works they cite."""
    n = plan.partitions
    db = connect(path)
    db.executescript(LOOKUP_TABLES)
    for rows in _batches(shuffle.rows(plan.scratch, f"scan-{f:05d}.shf", ("parsed", 0))):
        db.executemany("INSERT INTO ref VALUES (?,?,?)", [r[1:] for r in rows if r[0] in kept])
    for rows in _batches(shuffle.gather(plan.scratch, _files(plan, "resolved", n) + _files(plan, "urls", n),
                                        ("res", f))):
        db.executemany("INSERT INTO res VALUES (?,?,?,?,?,?,?)", rows)
    for rows in _batches(shuffle.gather(plan.scratch, _files(plan, "named", n), ("named", f))):
        db.executemany("INSERT OR IGNORE INTO named VALUES (?,?,?,?,?,?,?,?)", [r[1:] for r in rows])
        db.executemany("INSERT INTO mention VALUES (?,?)", [(r[0], r[1]) for r in rows])
    for rows in _batches(shuffle.gather(plan.scratch, _files(plan, "cited", n), ("rec", f))):
        db.executemany("INSERT INTO rec VALUES (?,?,?)", rows)
    db.executescript("CREATE INDEX ref_c ON ref(citing); CREATE INDEX res_c ON res(citing);"
                     "CREATE INDEX mention_c ON mention(citing); CREATE INDEX rec_d ON rec(doi);")
    db.commit()
    db.close()


def _used_partition(key: tuple[str, str], n: int) -> int:
    kind, name = key
    return bucket(name.split("\x1f", 1)[0] if kind == "org-name" else f"{kind} {name}", n)


def map_file(plan: Plan, f: int, size: int) -> Done:
    """Pass 2 on the kept records of input file ``f``: ``stream.map_chunk`` of each chunk of ``size`` records,
    the chunks' runs merged into one sorted run with its sparse index; the fact rows as a run; the shared things
    the records cite, to their partitions; the lines of the records in the validation sample, to the driver."""
    ctx, tuning = context(plan.spec), plan.tuning
    shown, _where, explicit = plan.files[f]
    kept = set(shuffle.gather(plan.scratch, _files(plan, "dedupe", plan.partitions), ("kept", f)))
    sampled: list[str] = []
    used: Used = {}
    records = 0
    with workdir(plan) as work, _input(plan, f, work) as path:
        _lookup(plan, f, kept, work / "lookup.sqlite")
        lookup = Lookup(work / "lookup.sqlite")
        (work / "runs").mkdir()
        fact_rows = Sorter(work, "fact-rows")
        chunk_runs: list[Path] = []
        kept_chunks = chunks(stream.kept_items(_items(f, shown, path, explicit, tuning, None), kept), size)
        for c, chunk in enumerate(kept_chunks):
            answer = stream.map_chunk(ctx, lookup, work / "runs", plan.sample, f << 20 | c, chunk)
            records += answer.records
            if answer.sampled is not None:
                with open(answer.sampled, encoding="utf-8", newline="\n") as fh:
                    sampled.extend(fh)
                answer.sampled.unlink()
            fact_rows.add_run(answer.fact_rows)
            chunk_runs.append(answer.run)
            merge_shared(used, answer.used)
        lookup.db.close()
        written = 0
        runs = []
        if chunk_runs:
            merged = merge_into(chunk_runs, work / "map.nq", tuning.fan_in, tuning.external_sort) \
                if len(chunk_runs) > 1 else chunk_runs[0]
            n, run = _indexed_run(plan, merged, work, f"map-{f:05d}.nq")
            written += n
            runs.append(run)
        written += _rows_run(plan, fact_rows.sorted(), work, f"fact-rows-map-{f:05d}.txt")
        out = shuffle.Writer(work / "used.shf")
        for key, value in sorted(used.items()):
            out.add(("used", _used_partition(key, plan.partitions)), (key, value))
        out.close()
        written += _put(plan, work / "used.shf", f"used-{f:05d}.shf")
    return Done(written, {"records": records, "sampled": sampled, "runs": runs})


# ---------------------------------------------------------------- the shared graphs

def shared(plan: Plan, p: int) -> Done:
    """The tools graph and the organisation names of partition ``p`` of the shared things (``shared_lines``; the
    topic scheme comes with partition 0), and their fact rows (``fact-rows-shared-P.txt``: the tools' names, for
    ``fact_graph``, which runs after)."""
    ctx = context(plan.spec)
    used: Used = {}
    for key, value in shuffle.gather(plan.scratch, [f"used-{f:05d}.shf" for f in range(len(plan.files))],
                                     ("used", p)):
        used[key] = used.get(key, 0) + value if key[0] == "org-name" else value  # (as merge_shared)
    with workdir(plan) as work:
        lines = sorted(set(shared_lines(ctx, used, p == 0)))
        written, run = _sorted_run(plan, iter(lines), work, f"shared-{p:05d}.nq")
        written += _rows_run(plan, sorted(set(facts.rows(lines))), work, shared_rows(p))
    return Done(written, {"runs": [run] if run else []})


def shared_rows(p: int) -> str:
    """The name of the fact rows of partition ``p`` of the shared graphs."""
    return f"fact-rows-shared-{p:05d}.txt"


def fact_graph(plan: Plan, row_runs: list[str]) -> Done:
    """The precomputed facts of the stored queries: ``facts.fact_lines`` of every fact row, the one reduce."""
    ctx = context(plan.spec)
    with workdir(plan) as work:
        local: list[Path] = []
        for i, name in enumerate(row_runs):
            if plan.scratch.url:
                copy = work / f"rows-{i:05d}.txt"
                ranges.copy_range(plan.scratch, name, 0, plan.scratch.size(name), copy)
                local.append(copy)
            else:
                local.append(Path(plan.scratch.path(name)))
        rows = merge_runs(local, work, plan.tuning.fan_in, plan.tuning.external_sort)
        lines = facts.fact_lines(rows, ctx.minter.shared_graph("facts"), lambda name: Sorter(work, name))
        written, run = _sorted_run(plan, lines, work, "facts.nq")
    return Done(written, {"runs": [run] if run else []})


def sample_lines(plan: Plan, name: str, wanted: Callable[[str], bool]) -> Done:
    """The lines of the run ``name`` of a shared graph that validating the sample needs (``stream.SampleFilter``)."""
    with plan.scratch.open(name) as fh:
        return Done(0, {"lines": [line for line in (raw.decode("utf-8") for raw in fh) if wanted(line)]})


# ---------------------------------------------------------------- runs and parts

def _indexed_run(plan: Plan, local: Path, work: Path, name: str) -> tuple[int, dict[str, Any]]:
    """Put the sorted run ``local`` into the scratch location as ``name``, with its sparse index beside it."""
    index = ranges.sparse_index(local)
    size = local.stat().st_size
    keys = ranges.samples(index, size, max(4, min(SAMPLES, SAMPLE_BUDGET // max(1, len(plan.files)))))
    idx = work / f"{name}.idx"
    idx.write_bytes(pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
    written = _put(plan, idx, f"{name}.idx") + _put(plan, local, name)
    return written, {"name": name, "size": size, "keys": keys}


def _sorted_run(plan: Plan, lines: Iterable[str], work: Path, name: str) -> tuple[int, dict[str, Any] | None]:
    """Write sorted, unique ``lines`` as the run ``name`` (with its index); nothing when there are none."""
    path = work / name
    with open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as fh:
        fh.writelines(lines)
    if not path.stat().st_size:
        path.unlink()
        return 0, None
    return _indexed_run(plan, path, work, name)


def _rows_run(plan: Plan, rows: Iterable[str], work: Path, name: str) -> int:
    path = work / name
    with open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as fh:
        fh.writelines(rows)
    return _put(plan, path, name)


def part(plan: Plan, k: int, lo: bytes | None, hi: bytes | None, runs: list[tuple[str, int]], out: Location) -> Done:
    """Part ``k`` of the graph: the lines from ``lo`` (included) to ``hi`` (excluded) of every run (``(name,
    size)``), merged (sorted, unique) and gzipped into ``out``; its line and triple counts, first and last triple."""
    tuning = plan.tuning
    with workdir(plan) as work:
        pieces: list[Path] = []
        for i, (name, size) in enumerate(runs):
            index: ranges.Index = pickle.loads(plan.scratch.read(f"{name}.idx"))
            start = ranges.bound(plan.scratch, name, index, size, lo) if lo is not None else 0
            end = ranges.bound(plan.scratch, name, index, size, hi) if hi is not None else size
            if end <= start:
                continue
            if start == 0 and end == size and not plan.scratch.url:
                pieces.append(Path(plan.scratch.path(name)))
                continue
            piece = work / f"piece-{i:05d}.nq"
            ranges.copy_range(plan.scratch, name, start, end, piece)
            pieces.append(piece)
        lines = triples = 0
        first: bytes | None = None
        last: bytes | None = None
        path = work / "part.nq.gz"
        with gzip_writer(path) as gz:
            for block in merge_blocks(pieces, work, most=tuning.fan_in, external=tuning.external_sort):
                gz.write(block)
                got = block.split(b"\n")
                got.pop()  # (empty: the block ends with a line break)
                if first is None and got:
                    first = triple_bytes(got[0])
                lines += len(got)
                count, last = count_triples(got, last)
                triples += count
        size = path.stat().st_size
        out.put(path, part_name(k))
    return Done(size, {"lines": lines, "triples": triples, "first": first, "last": last})

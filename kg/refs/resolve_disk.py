"""Reference resolution for corpora larger than memory: the steps of ``kg.refs.resolve`` on SQLite tables.

The features of every reference go into a table as records are read; ``resolve()`` then runs the same
steps as the in-memory ``Resolver`` (the same step functions, fed by ordered scans and indexed lookups
instead of dictionaries), so memory stays flat however many references there are. Results land in table
``res`` and are read back one citing work at a time; what the references tell about cited works goes to
a callback. Tests prove the results equal to the in-memory resolver's.

With workers, the steps that look at one title key or one group at a time (2, 3 and 5) run on hash
partitions of those keys in worker processes, each reading the tables through its own read-only connection
and writing its results to a file of its own, which is copied into the main tables afterwards.
"""

from __future__ import annotations

import marshal
import pickle
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache, partial
from itertools import groupby
from pathlib import Path
from typing import Any

from ..infra import faults
from ..infra.workers import quiet_worker
from ..rdf.ids import Minter
from .named import Mention, Named, decide_one
from .parse import ParsedRef
from .resolve import (
    CitedInfo,
    Known,
    RefFeatures,
    Resolution,
    catalogue_known,
    earlier_version,
    emit_group,
    first_word,
    fuzzy_block_key,
    fuzzy_merges,
    id_score,
    kind_of,
    near_titles,
    preprint_link,
    title_clusters,
    title_matcher,
    url_matcher,
)

SEP = "\x1f"
PARSED_FIELDS = ("title", "authors", "year", "venue", "urls", "arxiv", "doi", "doi_in_text", "accessed", "style")
_REF_COLS = ("rowid, citing, idx, tkey, year, atoks, url, ckey, title, urls, arxiv_text, id_node, id_method, "
             "id_matched, doc_tool, url_tool")
_Q_COLS = ", ".join(f"ref.{c}" for c in _REF_COLS.split(", "))
BATCH = 5000
PARALLEL_ABOVE = 20_000  # references: with fewer, resolution runs in one process whatever ``jobs`` says
TABLES = {
    "rec": "seq INTEGER, doi TEXT, tkey TEXT, year TEXT, atoks TEXT, title TEXT",
    "ref": "seq INTEGER, citing TEXT, idx INTEGER, tkey TEXT, fw TEXT, year TEXT, atoks TEXT, url TEXT, ckey TEXT, "
           "title TEXT, urls TEXT, arxiv_text INTEGER, id_node TEXT, id_method TEXT, id_matched TEXT, parsed BLOB, "
           "doc_tool TEXT, url_tool TEXT",
    "res": "citing TEXT, idx INTEGER, cited TEXT, method TEXT, score REAL, matched TEXT, cited_doi TEXT",
    "known": "tkey TEXT, fw TEXT, node TEXT, year TEXT, atoks TEXT, src TEXT",
    "um": "rid INTEGER PRIMARY KEY",
    "grp": "gkey TEXT, rid INTEGER, fuzzy INTEGER",
    "ut": "tkey TEXT, gkey TEXT, year TEXT, atoks TEXT",
    "tp": "tool TEXT, gkey TEXT",
    "fb": "year TEXT, fw TEXT, gkey TEXT, rid INTEGER",
    "mention": "seq INTEGER, citing TEXT, idx INTEGER, key TEXT, name TEXT, kind TEXT, category TEXT, method TEXT, "
               "score REAL, matched TEXT",
    "named": "key TEXT PRIMARY KEY, name TEXT, kind TEXT, category TEXT, score REAL, works INTEGER, methods TEXT, "
             "status TEXT",
}
PART_TABLES = ("res", "um", "grp", "fb")  # what the steps that run on partitions write


def _toks(text: str | None) -> frozenset[str]:
    return frozenset(text.split(SEP)) if text else frozenset()


def _feat(row: tuple) -> tuple[int, RefFeatures]:
    rid, citing, idx, tkey, year, atoks, url, ckey, title, urls, arxiv_text, node, method, matched, doc, utool = row
    urls_ = tuple(urls.split(SEP)) if urls else ()
    return rid, RefFeatures(citing, idx, tkey, year, _toks(atoks), url, ckey, title, urls_,
                            bool(arxiv_text), node, method, matched, doc_tool=doc, url_tool=utool)


def connect(path: Path | str, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    else:
        db = sqlite3.connect(str(path))
        db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=FILE;")
        if faults.fills("resolve"):  # (KG_FAULT=resolve:FULL, for the tests of a full disk)
            db.execute("PRAGMA max_page_count = 2")
    db.execute("PRAGMA cache_size=-32768")  # 32 MiB page cache: memory stays bounded
    return db


class DiskResolver:
    """Collect features with ``add``, drop superseded records with ``drop``, then ``resolve``."""

    def __init__(self, path: Path, minter: Minter, catalogue: Any = None, new: bool = True) -> None:
        self.path, self.minter, self.catalogue = Path(path), minter, catalogue
        self.db = connect(self.path)
        self._recs: list[tuple] = []
        self._refs: list[tuple] = []
        self._mentions: list[tuple] = []
        if new:
            self.db.executescript("".join(f"CREATE TABLE {t}({cols});" for t, cols in TABLES.items()))
        else:  # (tables written by another process: this one's functions again)
            self.db.create_function("id_score", 1, id_score, deterministic=True)
            self.db.create_function("doi_of", 1, Minter.doi_of, deterministic=True)

    def steps_here(self) -> Callable[..., None]:
        """``run(step, column, on_info)`` for the step methods, running each step here, on every row."""
        return _Steps(self, 1).run

    @staticmethod
    def rows(seq: int, record: tuple[str, str | None, str | None, frozenset[str]], title: str | None,
             feats: Iterable[RefFeatures], parsed: dict[int, ParsedRef],
             mentions: Iterable[tuple[int, Mention]] = ()) -> tuple[tuple, list[tuple], list[tuple]]:
        """The table rows of one record, its references and the named artifacts they mention (cheap to send
        between processes); the parsed references are kept too, so that mapping need not parse them again."""
        doi, tkey, year, atoks = record
        return (seq, doi, tkey, year, SEP.join(sorted(atoks)), title), [
            (seq, f.citing, f.index, f.tkey, first_word(f.tkey) if f.tkey else None, f.year, SEP.join(sorted(f.atoks)),
             f.url, f.ckey, f.title, SEP.join(f.urls), int(f.arxiv_text), f.id_node, f.id_method, f.id_matched,
             marshal.dumps(tuple(getattr(parsed[f.index], k) for k in PARSED_FIELDS)), f.doc_tool, f.url_tool)
            for f in feats], [(seq, doi, idx, m.key, m.name, m.kind, m.category, m.method, m.score, m.matched)
                              for idx, m in mentions]

    def add(self, rows: tuple[tuple, list[tuple], list[tuple]]) -> None:
        """Store one record's rows (in batches: call ``flush`` before reading the tables)."""
        rec, refs, mentions = rows
        self._recs.append(rec)
        self._refs.extend(refs)
        self._mentions.extend(mentions)
        if len(self._refs) >= BATCH:
            self.flush()

    def flush(self) -> None:
        self.db.executemany("INSERT INTO rec VALUES (?,?,?,?,?,?)", self._recs)
        self.db.executemany("INSERT INTO ref VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", self._refs)
        self.db.executemany("INSERT INTO mention VALUES (?,?,?,?,?,?,?,?,?,?)", self._mentions)
        self._recs.clear()
        self._refs.clear()
        self._mentions.clear()

    def drop(self, seqs: Iterable[int]) -> None:
        """Forget the records (and their references) of these sequence numbers (superseded duplicates)."""
        self.flush()
        rows = [(s,) for s in seqs]
        self.db.executemany("DELETE FROM rec WHERE seq = ?", rows)
        self.db.executemany("DELETE FROM ref WHERE seq = ?", rows)
        self.db.executemany("DELETE FROM mention WHERE seq = ?", rows)

    def decide_named(self) -> None:
        """The corpus's view of every name the references mention (``kg.refs.named.decide_one``), into table
        ``named``, read by ``Lookup.named``."""
        self.flush()
        scan = self.db.execute("SELECT key, citing, name, kind, category, method, score, matched FROM mention "
                               "ORDER BY key, citing, idx")
        rows = []
        for key, group in groupby(scan, key=lambda r: r[0]):
            n = decide_one([(citing, Mention(key, name, kind, category, method, score, matched))
                            for _k, citing, name, kind, category, method, score, matched in group])
            if n is not None:
                rows.append((n.key, n.name, n.kind, n.category, n.score, n.works, SEP.join(n.methods), n.status))
                _flush(self.db, "INSERT INTO named VALUES (?,?,?,?,?,?,?,?)", rows)
        _flush(self.db, "INSERT INTO named VALUES (?,?,?,?,?,?,?,?)", rows, True)
        self.db.execute("CREATE INDEX mention_c ON mention(citing)")

    # ------------------------------------------------------------------ resolution

    def resolve(self, on_info: Callable[[CitedInfo], None], jobs: int = 1, parallel_above: int = PARALLEL_ABOVE,
                ) -> int:
        """Resolve every reference; ``jobs`` > 1 runs steps 2, 3 and 5 in that many worker processes, each on
        the title keys (or groups) of one hash partition, when there are at least ``parallel_above`` references.
        The results do not depend on ``jobs`` (each step is a function of one title key or group). Returns the
        number of partitions the steps ran in (1: in this process)."""
        self.flush()
        many = jobs > 1 and self.db.execute("SELECT count(*) FROM ref").fetchone()[0] >= parallel_above
        parts = jobs if many else 1
        self.identify()
        with _Steps(self, parts) as run:
            self.match_titles(run)
            self.group(run)
            self.emit(run, on_info)
        self.link_preprints(on_info)
        self.finish()
        return parts

    # (the steps one by one, for a driver that runs them on partitions of its own: ``kg.pipeline.partitioned``)

    def identify(self, keep: Callable[[str], bool] | None = None) -> None:
        """Step 1: the works known by identifier (input records, references with a DOI or arXiv id, the tool
        catalogue's papers: those whose title key ``keep`` accepts), and the resolutions by identifier."""
        self.flush()
        db, minter = self.db, self.minter
        db.execute("CREATE INDEX rec_seq ON rec(seq)")
        db.execute("CREATE INDEX rec_t ON rec(tkey)")
        db.execute("CREATE INDEX ref_seq ON ref(seq)")
        db.executemany("INSERT INTO known VALUES (?,?,?,?,?,?)", (
            (tkey, first_word(tkey), minter.doi(doi), year, atoks, "input record")
            for doi, tkey, year, atoks in db.execute("SELECT doi, tkey, year, atoks FROM rec WHERE tkey IS NOT NULL")))
        db.execute("INSERT INTO known SELECT tkey, fw, id_node, year, atoks, 'reference' FROM ref "
                   "WHERE id_node IS NOT NULL AND tkey IS NOT NULL")
        db.executemany("INSERT INTO known VALUES (?,?,?,?,?,?)", (
            (tkey, first_word(tkey), node, year, "", "catalogue")
            for tkey, node, year in catalogue_known(self.catalogue, minter) if keep is None or keep(tkey)))
        db.create_function("id_score", 1, id_score, deterministic=True)
        db.create_function("doi_of", 1, Minter.doi_of, deterministic=True)
        db.execute("INSERT INTO res SELECT citing, idx, id_node, id_method, id_score(id_method), id_matched, "
                   "doi_of(id_node) FROM ref WHERE id_node IS NOT NULL")
        db.execute("CREATE INDEX known_t ON known(tkey)")
        db.execute("CREATE INDEX known_b ON known(fw, year)")

    def match_titles(self, run: Callable[..., None]) -> None:
        """Step 2: titles of works known by identifier; what stays unmatched goes to table um."""
        run(_titles_step, "ref.tkey")
        self.db.execute("INSERT INTO um SELECT rowid FROM ref WHERE id_node IS NULL AND tkey IS NULL")

    def tool_pages(self) -> list[tuple[str, str]]:
        """After step 2: (catalogue tool, URL group) of every unmatched reference whose URL is a tool's main page."""
        return self.db.execute("SELECT DISTINCT url_tool, 'url ' || url FROM ref JOIN um ON ref.rowid = um.rid "
                               "WHERE url IS NOT NULL AND url_tool IS NOT NULL").fetchall()

    def group(self, run: Callable[..., None], tool_pages: Iterable[tuple[str, str]] | None = None) -> None:
        """Steps 3 and 4: URL groups, titles shared between references, the guarded fuzzy merge of title groups.
        ``tool_pages``: those of every partition (default: ``tool_pages()``, this table's)."""
        db = self.db
        db.execute("INSERT INTO grp SELECT 'url ' || url, ref.rowid, 0 FROM ref JOIN um ON ref.rowid = um.rid "
                   "WHERE url IS NOT NULL")
        db.execute("INSERT INTO ut SELECT tkey, 'url ' || url, year, atoks FROM ref JOIN um ON ref.rowid = um.rid "
                   "WHERE url IS NOT NULL AND tkey IS NOT NULL")
        db.execute("CREATE INDEX ut_t ON ut(tkey)")
        db.executemany("INSERT INTO tp VALUES (?,?)", self.tool_pages() if tool_pages is None else tool_pages)
        db.execute("CREATE INDEX tp_t ON tp(tool)")
        run(_groups_step, "ref.tkey")
        db.execute("CREATE INDEX grp_g ON grp(gkey)")
        # 4. guarded fuzzy merge of title groups, block by block
        merged: dict[str, str] = {}
        scan = db.execute(f"SELECT fb.year, fb.fw, fb.gkey, {_Q_COLS} FROM fb "
                          "JOIN ref ON ref.rowid = fb.rid ORDER BY fb.year, fb.fw, fb.gkey")
        for _b, rows_ in groupby(scan, key=lambda r: (r[0], r[1])):
            firsts = {r[2]: _feat(r[3:])[1] for r in rows_}
            if len(firsts) > 1:
                fuzzy_merges(sorted(firsts), firsts, merged)
        for b, root in sorted(merged.items()):
            db.execute("UPDATE grp SET gkey = ?, fuzzy = 1 WHERE gkey = ?", (root, b))
            db.execute("UPDATE grp SET fuzzy = 1 WHERE gkey = ?", (root,))

    def emit(self, run: Callable[..., None], on_info: Callable[[CitedInfo], None], urls: bool = True) -> None:
        """Step 5: one node per group (``urls`` False: all but the URL groups)."""
        run(_emit_step if urls else _emit_titled_step, "grp.gkey", on_info)

    def url_members(self) -> Iterator[tuple]:
        """The URL groups' members: (group key, the reference's row), in group order."""
        return self.db.execute("SELECT grp.gkey, ref.* FROM grp JOIN ref ON ref.rowid = grp.rid "
                               "WHERE substr(grp.gkey, 1, 4) = 'url ' ORDER BY grp.gkey, ref.citing, ref.idx")

    def link_preprints(self, on_info: Callable[[CitedInfo], None]) -> None:
        """Step 6: preprint <-> published links between identifier nodes that share a title."""
        for _tkey, rows_ in groupby(self.db.execute("SELECT tkey, node FROM known WHERE src != 'catalogue' "
                                                    "ORDER BY tkey"), key=lambda r: r[0]):
            if (link := preprint_link(n for _t, n in rows_)) is not None:
                on_info(link)

    def finish(self) -> None:
        """The indexes the read side (``Lookup``) needs; the working tables dropped."""
        db = self.db
        db.execute("CREATE INDEX res_c ON res(citing)")
        db.execute("CREATE INDEX ref_c ON ref(citing)")
        db.execute("CREATE INDEX rec_d ON rec(doi)")
        for table in ("known", "um", "grp", "ut", "tp", "fb"):
            db.execute(f"DROP TABLE {table}")
        db.commit()

    def close(self) -> None:
        self.db.close()


# ---------------------------------------------------------------- the steps that run on partitions

Step = Callable[[sqlite3.Connection, sqlite3.Connection, str, Minter, Callable[[CitedInfo], None]], None]


def _flush(out: sqlite3.Connection, sql: str, rows: list[tuple], force: bool = False) -> None:
    if rows and (force or len(rows) >= BATCH):
        out.executemany(sql, rows)
        rows.clear()


def _scan(db: sqlite3.Connection, tail: str) -> Iterator[tuple]:
    return db.execute(f"SELECT {_Q_COLS} FROM ref {tail}")


def _titles_step(db: sqlite3.Connection, out: sqlite3.Connection, where: str, _minter: Minter,
                 _on_info: Callable[[CitedInfo], None]) -> None:
    """Step 2 on the references ``where`` selects: those without identifier whose title names a work known
    by identifier get a resolution (table res); the others are unmatched (table um)."""
    @lru_cache(maxsize=8192)
    def known(tkey: str) -> Known:
        return [(n, y, _toks(a), s) for n, y, a, s in
                db.execute("SELECT DISTINCT node, year, atoks, src FROM known WHERE tkey = ?", (tkey,))]

    @lru_cache(maxsize=2048)
    def block(fw: str, year: str) -> tuple[str, ...]:
        return tuple(t for (t,) in db.execute("SELECT DISTINCT tkey FROM known WHERE fw = ? AND year = ?", (fw, year)))

    match = title_matcher(known, near_titles(block))
    hits: list[tuple] = []
    misses: list[tuple] = []
    for rid, f in map(_feat, _scan(db, f"WHERE id_node IS NULL AND tkey IS NOT NULL AND {where} ORDER BY tkey")):
        hit = match(f)
        if hit:
            hits.append((f.citing, f.index, hit.cited, hit.method, hit.score, hit.matched, Minter.doi_of(hit.cited)))
            _flush(out, "INSERT INTO res VALUES (?,?,?,?,?,?,?)", hits)
        else:
            misses.append((rid,))
            _flush(out, "INSERT INTO um VALUES (?)", misses)
    _flush(out, "INSERT INTO res VALUES (?,?,?,?,?,?,?)", hits, True)
    _flush(out, "INSERT INTO um VALUES (?)", misses, True)


def _groups_step(db: sqlite3.Connection, out: sqlite3.Connection, where: str, _minter: Minter,
                 _on_info: Callable[[CitedInfo], None]) -> None:
    """Step 3 on the unmatched URL-less references ``where`` selects: each joins a URL group through its
    title, a title group, or a group of its own (table grp); title groups go into fuzzy blocks (table fb)."""
    members: list[tuple] = []
    blocks: list[tuple] = []
    rows = _scan(db, f"JOIN um ON ref.rowid = um.rid WHERE url IS NULL AND {where} ORDER BY tkey")
    for tkey, group in groupby(map(_feat, rows), key=lambda rf: rf[1].tkey):
        titles = url_matcher([(g, y, _toks(a)) for g, y, a in db.execute(
            "SELECT gkey, year, atoks FROM ut WHERE tkey = ?", (tkey,))] if tkey else [])
        rid_of: dict[int, int] = {}
        leftovers: list[RefFeatures] = []
        for rid, f in group:
            cands = titles(f)
            if not cands and f.doc_tool:
                cands = {g for (g,) in db.execute("SELECT gkey FROM tp WHERE tool = ?", (f.doc_tool,))}
            if len(cands) == 1:
                members.append((cands.pop(), rid, 0))
            elif f.tkey:
                rid_of[id(f)] = rid
                leftovers.append(f)
            elif f.ckey:
                members.append((f"citation {f.ckey}", rid, 0))
            else:
                members.append((f"ref {f.citing} {f.index}", rid, 0))
        if tkey and leftovers:
            for gkey, cluster in title_clusters(tkey, leftovers):
                members.extend((gkey, rid_of[id(m)], 0) for m in cluster)
                if (b := fuzzy_block_key(cluster[0])) is not None:
                    blocks.append((*b, gkey, rid_of[id(cluster[0])]))
        _flush(out, "INSERT INTO grp VALUES (?,?,?)", members)
        _flush(out, "INSERT INTO fb VALUES (?,?,?,?)", blocks)
    _flush(out, "INSERT INTO grp VALUES (?,?,?)", members, True)
    _flush(out, "INSERT INTO fb VALUES (?,?,?,?)", blocks, True)


def _emit_step(db: sqlite3.Connection, out: sqlite3.Connection, where: str, minter: Minter,
               on_info: Callable[[CitedInfo], None]) -> None:
    """Step 5 on the groups ``where`` selects: one node per group; the resolutions go to table res, what
    the group tells about its cited work to ``on_info``."""
    rows: list[tuple] = []

    def earlier(tkey: str, year: str | None, atoks: frozenset[str], citing: str) -> str | None:
        return earlier_version(((minter.doi(d), y, _toks(a)) for d, y, a in db.execute(
            "SELECT doi, year, atoks FROM rec WHERE tkey = ?", (tkey,))), year, atoks, citing)

    scan = db.execute(f"SELECT grp.gkey, grp.fuzzy, {_Q_COLS} FROM grp JOIN ref ON ref.rowid = grp.rid "
                      f"WHERE {where} ORDER BY grp.gkey, ref.citing, ref.idx")
    for gkey, group in groupby(scan, key=lambda r: r[0]):
        feats = []
        for r in group:
            f = _feat(r[2:])[1]
            f.fuzzy = bool(r[1])
            feats.append(f)
        pairs, info = emit_group(gkey, feats, minter, earlier)
        rows.extend((m.citing, m.index, res.cited, res.method, res.score, res.matched, Minter.doi_of(res.cited))
                    for m, res in pairs)
        _flush(out, "INSERT INTO res VALUES (?,?,?,?,?,?,?)", rows)
        on_info(info)
    _flush(out, "INSERT INTO res VALUES (?,?,?,?,?,?,?)", rows, True)


def _emit_titled_step(db: sqlite3.Connection, out: sqlite3.Connection, where: str, minter: Minter,
                      on_info: Callable[[CitedInfo], None]) -> None:
    """Step 5 on the groups ``where`` selects but the URL groups (a partitioned build emits those elsewhere)."""
    _emit_step(db, out, f"({where}) AND substr(grp.gkey, 1, 4) != 'url '", minter, on_info)


class _Steps:
    """``run(step, column, on_info)``: a step in this process, or in ``parts`` worker processes, worker i taking
    the rows whose ``column`` hashes to i and writing its results to a file of its own; the files are then
    copied into the main tables in partition order, and the infos they hold passed to ``on_info``."""

    def __init__(self, resolver: DiskResolver, parts: int) -> None:
        self.resolver, self.parts = resolver, parts
        self.pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> Callable[..., None]:
        if self.parts > 1:
            self.pool = ProcessPoolExecutor(max_workers=self.parts, initializer=quiet_worker)
        return self.run

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def run(self, step: Step, column: str, on_info: Callable[[CitedInfo], None] = lambda _info: None) -> None:
        r = self.resolver
        if self.pool is None:
            step(r.db, r.db, "1", r.minter, on_info)
            return
        r.db.commit()  # the workers read what this connection wrote
        paths = [r.path.with_name(f"{r.path.stem}-part{i}.sqlite") for i in range(self.parts)]
        futures = [self.pool.submit(_run_part, step, str(r.path), str(path), f"part({column}) = {i}", self.parts,
                                    r.minter.base) for i, path in enumerate(paths)]
        for future, path in zip(futures, paths, strict=True):
            future.result()
            r.db.execute("ATTACH DATABASE ? AS part", (str(path),))
            for table in PART_TABLES:
                r.db.execute(f"INSERT INTO main.{table} SELECT * FROM part.{table}")
            for (blob,) in r.db.execute("SELECT blob FROM part.info ORDER BY rowid"):
                on_info(pickle.loads(blob))
            r.db.commit()
            r.db.execute("DETACH DATABASE part")
            path.unlink()


def _partition(parts: int, text: str | None) -> int:
    return zlib.crc32(text.encode("utf-8")) % parts if text is not None else 0


def _run_part(step: Step, db_path: str, out_path: str, where: str, parts: int, base: str) -> None:
    """In a worker: ``step`` on one partition, its results into a fresh file at ``out_path``."""
    db = connect(db_path, readonly=True)
    db.create_function("part", 1, partial(_partition, parts), deterministic=True)
    Path(out_path).unlink(missing_ok=True)
    out = connect(out_path)
    out.executescript("".join(f"CREATE TABLE {t}({TABLES[t]});" for t in PART_TABLES) + "CREATE TABLE info(blob BLOB);")
    infos: list[tuple] = []

    def keep(info: CitedInfo) -> None:
        infos.append((pickle.dumps(info),))
        _flush(out, "INSERT INTO info VALUES (?)", infos)

    step(db, out, where, Minter(base), keep)
    _flush(out, "INSERT INTO info VALUES (?)", infos, True)
    out.commit()
    out.close()
    db.close()


class Lookup:
    """Read side, for any process: the resolutions of one citing work, and the input works' titles."""

    def __init__(self, path: Path | str) -> None:
        self.db = connect(path, readonly=True)
        self._indexed_mentions = "idx" in {row[1] for row in self.db.execute("PRAGMA table_info(mention)")}

    def mentions(self, citing: str) -> dict[int, Mention] | None:
        """The mention of a named artifact in each reference of one citing work that has one, by reference index,
        as pass 1 found it (``kg.refs.named.work_mentions``); None where the tables do not keep them (a cluster
        build's lookup keeps only which names a work mentions)."""
        if not self._indexed_mentions:
            return None
        return {idx: Mention(key, name, kind, category, method, score, matched)
                for idx, key, name, kind, category, method, score, matched in self.db.execute(
                    "SELECT idx, key, name, kind, category, method, score, matched FROM mention WHERE citing = ?",
                    (citing,))}

    def resolutions(self, citing: str) -> dict[int, Resolution]:
        parsed = {idx: ParsedRef(*marshal.loads(blob)) for idx, blob in
                  self.db.execute("SELECT idx, parsed FROM ref WHERE citing = ?", (citing,))}
        return {idx: Resolution(cited, method, score, matched, kind_of(parsed[idx]), parsed[idx])
                for idx, cited, method, score, matched in
                self.db.execute("SELECT idx, cited, method, score, matched FROM res WHERE citing = ?", (citing,))}

    def named(self, citing: str) -> dict[str, Named]:
        """The corpus's view of every name the references of one citing work mention, by key."""
        return {key: Named(key, name, kind, category, score, works, tuple(methods.split(SEP)) if methods else (),
                           status)
                for key, name, kind, category, score, works, methods, status in self.db.execute(
                    "SELECT key, name, kind, category, score, works, methods, status FROM named WHERE key IN "
                    "(SELECT key FROM mention WHERE citing = ?) ORDER BY key", (citing,))}

    def cited_records(self, citing: str) -> dict[str, tuple[str | None, str | None]]:
        """(title, issued year) of every input work the resolved references of one citing work point to, by DOI
        (one query per citing work, not one per reference)."""
        out: dict[str, tuple[str | None, str | None]] = {}
        for doi, title, year in self.db.execute(
                "SELECT doi, title, year FROM rec WHERE doi IN (SELECT cited_doi FROM res WHERE citing = ?) "
                "ORDER BY doi, rowid", (citing,)):
            out.setdefault(doi, (title, year))
        return out

"""Where the report's numbers come from: the stored queries (kg/query/stored.py) run on one source, as ``kg query``
runs them, and the ``kg query`` command line that reproduces each.

A source of graph files is loaded into Oxigraph once for every query of the report (``kg query`` loads it per
call); an on-disk store is opened once; an endpoint is asked as ``kg query --endpoint`` asks it. The queries
the report will read can be answered ahead, a few at a time, in threads (``ReportSource.prefetch``): Oxigraph
evaluates a query without holding Python's lock, so two cores answer two queries at once (the report at 10k
records spends most of its time in the engine).
"""

from __future__ import annotations

import io
import os
import queue
import re
import shlex
import threading
from collections.abc import Callable
from concurrent.futures import Future
from itertools import islice
from pathlib import Path

import pyoxigraph

from ..errors import KgError, UsageError
from ..infra.net import DEFAULT_MAX_BYTES
from ..query.backends import load_store, open_disk_store, query_endpoint, query_oxigraph
from ..query.results import Results, sorted_lists
from ..query.stored import bound_text, find_query
from ..query.text import check_local, paged
from ..rdf.io import canonical_lines, is_canonical
from ..rdf.nquads import triples_from_quads
from ..workspace import workspace_graph

Call = tuple[str, tuple[tuple[str, str], ...], int | None]  # a ``ReportSource.rows`` call: name, parameters, limit


class ReportSource:
    """One source of the report: graph files (default: the workspace graph), a store folder or an endpoint."""

    def __init__(self, graphs: list[Path] | None = None, store: Path | None = None, endpoint: str | None = None,
                 timeout: float = 60.0, max_bytes: int = DEFAULT_MAX_BYTES, default_graphs: tuple[str, ...] = (),
                 named_graphs: tuple[str, ...] = ()) -> None:
        if sum(x is not None and x != [] for x in (graphs, store, endpoint)) > 1:
            raise UsageError("give one source: --graph, --store or --endpoint")
        if (default_graphs or named_graphs) and not endpoint:
            raise UsageError("--default-graph-uri and --named-graph-uri go with --endpoint; a local source answers "
                             "over the union of its graphs")
        self.graphs, self.store, self.endpoint = list(graphs or []), store, endpoint
        self.timeout, self.max_bytes = timeout, max_bytes
        self.default_graphs, self.named_graphs = tuple(default_graphs), tuple(named_graphs)
        self._ox = None
        self._ahead: dict[Call, Future[list[dict[str, str]]]] = {}
        if endpoint:
            return
        if store:
            self._ox = open_disk_store(store)
            return
        sources = self.graphs or [workspace_graph()]
        for s in sources:
            if not s.exists():
                raise KgError(f"{s}: no graph here; run 'kg build' first or pass --graph FILE")
        self._ox = _load(sources)

    @property
    def local_files(self) -> list[Path] | None:
        """The graph files read (the workspace graph by default), or None for a store or an endpoint."""
        if self.endpoint or self.store:
            return None
        return self.graphs or [workspace_graph()]

    def flags(self) -> list[str]:
        if self.endpoint:
            return (["--endpoint", self.endpoint] + [w for g in self.default_graphs for w in ("--default-graph-uri", g)]
                    + [w for g in self.named_graphs for w in ("--named-graph-uri", g)])
        if self.store:
            return ["--store", str(self.store)]
        out: list[str] = []
        for g in self.graphs:
            out += ["-g", str(g)]
        return out

    def command(self, name: str, params: dict[str, str] | None = None, limit: int | None = None) -> str:
        """The ``kg query`` command line that gives the rows behind a section (the first ``limit`` of them)."""
        words = ["kg", "query", name]
        for k, v in sorted((params or {}).items()):
            words += ["-p", f"{k}={v}"]
        if limit is not None:
            words += ["--limit", str(limit)]
        return shlex.join(words + self.flags())

    def stats_command(self) -> str:
        return shlex.join(["kg", "stats", *self.flags()])

    def query(self, name: str, params: dict[str, str] | None = None, limit: int | None = None) -> Results:
        """A stored query's results, exactly as ``kg query NAME [--limit N]`` gives them on this source (the
        LIMIT on the query, so the engine computes only those rows)."""
        params = params or {}
        stored = find_query(name)
        if self._ox is None:
            text = paged(bound_text(stored, params), limit, None)
            res = sorted_lists(self._asked(text), stored.lists, stored.ordered)
            return self._answered(name, res, list(stored.returns))
        text = paged(bound_text(stored, params), limit, None)
        check_local(text, f"query {stored.name!r}", trusted=True)
        return sorted_lists(query_oxigraph(self._ox, text), stored.lists, stored.ordered)

    def _asked(self, text: str) -> Results:
        """The endpoint's answer to ``text``, asked as ``kg query --endpoint`` asks it."""
        assert self.endpoint is not None
        return query_endpoint(self.endpoint, text, self.timeout, self.max_bytes, self.default_graphs,
                              self.named_graphs)

    def _answered(self, name: str, res: Results, expected: list[str]) -> Results:
        """``res`` if it has the columns the query returns (a server may answer another query than it was sent)."""
        if res.columns != expected:
            raise KgError(f"{self.endpoint}: answered query {name!r} with the columns {', '.join(res.columns)} "
                          f"where it returns {', '.join(expected)}; check that the URL is the SPARQL endpoint "
                          "itself and that it runs the query it is sent")
        return res

    def prefetch(self, calls: list[tuple[str, dict[str, str] | None, int | None]], workers: int | None = None,
                 ) -> None:
        """Start answering these ``rows`` calls (name, parameters, limit), in their order, on ``workers`` threads
        (default: the cores, 2 to 4); ``rows`` then waits for its answer, or raises the error its query met. The
        threads are daemons: an interrupted report does not wait for them."""
        todo: queue.SimpleQueue[Call] = queue.SimpleQueue()
        for name, params, limit in calls:
            key = _call(name, params, limit)
            if key not in self._ahead:
                self._ahead[key] = Future()
                todo.put(key)
        n = workers or max(2, min(4, os.cpu_count() or 2))
        for _ in range(min(n, todo.qsize())):
            threading.Thread(target=_answer_ahead, args=(self._rows, todo, self._ahead), daemon=True,
                             name="kg-report-query").start()

    def rows(self, name: str, params: dict[str, str] | None = None, limit: int | None = None,
             ) -> list[dict[str, str]]:
        """The results as dicts of column -> text ('' for unbound)."""
        ahead = self._ahead.get(_call(name, params, limit))
        if ahead is not None:
            return ahead.result()
        return self._rows(name, params, limit)

    def _rows(self, name: str, params: dict[str, str] | None = None, limit: int | None = None,
              ) -> list[dict[str, str]]:
        res = self.query(name, params, limit)
        columns = res.columns
        return [dict(zip(columns, ["" if cell is None else cell[1] for cell in row], strict=True)) for row in res.rows]

    def stats(self, keys: tuple[str, ...] = ("works", "references", "cited_works", "tools", "people"),
              ) -> dict[str, int]:
        """Counts of ``kg stats``, the stored query ``stats`` (works, references, cited works, tools, people;
        triples if asked): its counts not asked for are left out of the query (counting every triple takes
        most of its time on a large graph)."""
        text = "\n".join(line for line in find_query("stats").text.splitlines()
                         if not (m := _COUNT.match(line)) or m[1] in keys)
        if self._ox is None:
            res = self._asked(text)  # (stats.rq declares its prefixes)
            self._answered("stats", res, list(find_query("stats").returns))  # (the counts left out: unbound)
        else:
            check_local(text, "query 'stats'", trusted=True)
            res = query_oxigraph(self._ox, text)
        row = res.rows[0] if res.rows else [None] * len(res.columns)
        return {key: int(float(cell[1])) if cell else 0
                for key, cell in zip(res.columns, row, strict=True) if key in keys}


_COUNT = re.compile(r"^\s*\{ SELECT \(COUNT\(.*\) AS \?(\w+)\)")  # one count of stats.rq (one a line)


class _Triples(io.RawIOBase):
    """The distinct triples of canonical N-Quads files as a readable stream of bytes."""

    def __init__(self, paths: list[Path]) -> None:
        self._lines = triples_from_quads(line for p in paths for line in canonical_lines(p))
        self._buf = b""

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        while len(self._buf) < len(b):
            chunk = "".join(islice(self._lines, 4096)).encode("utf-8")
            if not chunk:
                break
            self._buf += chunk
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n


def _load(paths: list[Path]) -> "pyoxigraph.Store":
    """``load_store``, faster for one canonical N-Quads file (the workspace graph): its triples are read in one
    pass (sorted quads give sorted triples), without a second store and a sort in memory."""
    if len(paths) == 1 and paths[0].suffix == ".nq" and is_canonical(paths[0]):
        store = pyoxigraph.Store()
        # (any RawIOBase will do; typeshed's BufferedReader protocol also asks for the name and mode of a file)
        stream = io.BufferedReader(_Triples(paths), 1 << 20)  # type: ignore[type-var]
        store.bulk_load(stream, format=pyoxigraph.RdfFormat.N_TRIPLES)
        return store
    return load_store(paths)


def _call(name: str, params: dict[str, str] | None, limit: int | None) -> Call:
    return (name, tuple(sorted((params or {}).items())), limit)


def _answer_ahead(rows: Callable[..., list[dict[str, str]]], todo: queue.SimpleQueue[Call],
                  ahead: dict[Call, Future[list[dict[str, str]]]]) -> None:
    """One thread of ``ReportSource.prefetch``: answer the calls left, one at a time, into their futures."""
    while True:
        try:
            key = todo.get_nowait()
        except queue.Empty:
            return
        future = ahead[key]
        if not future.set_running_or_notify_cancel():
            continue
        try:
            future.set_result(rows(key[0], dict(key[1]), key[2]))
        except BaseException as e:  # (raised where the report reads these rows)
            future.set_exception(e)

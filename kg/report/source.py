"""Where the report's numbers come from: the stored queries (kg/queries.py) run on one source, as ``kg query``
runs them, and the ``kg query`` command line that reproduces each.

A source of graph files is loaded into Oxigraph once for every query of the report (``kg query`` loads it per
call); an on-disk store is opened once; an endpoint is asked through ``kg.api.query``.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from .. import api
from ..errors import KgError, UsageError
from ..net import DEFAULT_MAX_BYTES
from ..queries import Cell, Results, bound_text, check_local, find_query, sorted_lists
from ..store import load_store, open_disk_store, query_oxigraph


class Source:
    """One source of the report: graph files (default: the workspace graph), a store folder or an endpoint."""

    def __init__(self, graphs: list[Path] | None = None, store: Path | None = None, endpoint: str | None = None,
                 timeout: float = 60.0, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if sum(x is not None and x != [] for x in (graphs, store, endpoint)) > 1:
            raise UsageError("give one source: --graph, --store or --endpoint")
        self.graphs, self.store, self.endpoint = list(graphs or []), store, endpoint
        self.timeout, self.max_bytes = timeout, max_bytes
        self._ox = None
        if endpoint:
            return
        if store:
            self._ox = open_disk_store(store)
            return
        sources = self.graphs or [api.workspace_graph()]
        for s in sources:
            if not s.exists():
                raise KgError(f"{s}: no graph here; run 'kg build' first or pass --graph FILE")
        self._ox = load_store(sources)

    @property
    def local_files(self) -> list[Path] | None:
        """The graph files read (the workspace graph by default), or None for a store or an endpoint."""
        if self.endpoint or self.store:
            return None
        return self.graphs or [api.workspace_graph()]

    def flags(self) -> list[str]:
        if self.endpoint:
            return ["--endpoint", self.endpoint]
        if self.store:
            return ["--store", str(self.store)]
        out: list[str] = []
        for g in self.graphs:
            out += ["-g", str(g)]
        return out

    def command(self, name: str, params: dict[str, str] | None = None) -> str:
        """The ``kg query`` command line that gives the rows behind a section."""
        words = ["kg", "query", name]
        for k, v in sorted((params or {}).items()):
            words += ["-p", f"{k}={v}"]
        return shlex.join(words + self.flags())

    def stats_command(self) -> str:
        return shlex.join(["kg", "stats", *self.flags()])

    def query(self, name: str, params: dict[str, str] | None = None) -> Results:
        """A stored query's results, exactly as ``kg query NAME`` gives them on this source."""
        params = params or {}
        if self._ox is None:
            return api.query(name, params, endpoint=self.endpoint, timeout=self.timeout, max_bytes=self.max_bytes)
        stored = find_query(name)
        text = bound_text(stored, params)
        check_local(text, f"query {stored.name!r}")
        return sorted_lists(query_oxigraph(self._ox, text), stored.lists)

    def rows(self, name: str, params: dict[str, str] | None = None) -> list[dict[str, str]]:
        """The results as dicts of column -> text ('' for unbound)."""
        res = self.query(name, params)
        return [{c: text(cell) for c, cell in zip(res.columns, row)} for row in res.rows]

    def stats(self) -> dict[str, int]:
        """``kg stats``: counts of works, references, cited works, tools, people and triples."""
        out = {}
        for key, text_ in api.STATS.items():
            if self._ox is None:
                res = api.query("", {}, text=text_, endpoint=self.endpoint, timeout=self.timeout,
                                max_bytes=self.max_bytes)
            else:
                res = query_oxigraph(self._ox, text_)
            out[key] = int(float(res.rows[0][0][1])) if res.rows and res.rows[0][0] else 0
        return out


def text(cell: Cell) -> str:
    return "" if cell is None else cell[1]

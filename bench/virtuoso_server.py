"""A throwaway Virtuoso for the query benchmark: started on free ports of 127.0.0.1 in a folder of its own, loaded
with one N-Triples file by the bulk loader (as docs/scale.md says), stopped and removed after.

The same steps as ``tests/test_virtuoso.py`` (which checks the answers); here only the seconds count. A query that
runs past the client's timeout has the server killed and started again on the same database (Virtuoso would go on
with the query otherwise, and hold up the next one).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

VIRTUOSO = shutil.which("virtuoso-t")
ISQL = shutil.which("isql-vt") or shutil.which("isql-v")
GRAPH = "https://example.org/crossref-kg/bench"

INI = """\
[Database]
DatabaseFile       = {db}/virtuoso.db
ErrorLogFile       = {db}/virtuoso.log
LockFile           = {db}/virtuoso.lck
TransactionFile    = {db}/virtuoso.trx
xa_persistent_file = {db}/virtuoso.pxa
[TempDatabase]
DatabaseFile       = {db}/virtuoso-temp.db
TransactionFile    = {db}/virtuoso-temp.trx
[Parameters]
ServerPort         = 127.0.0.1:{isql_port}
DisableUnixSocket  = 1
DirsAllowed        = ., {load}
NumberOfBuffers    = {buffers}
MaxDirtyBuffers    = {dirty}
ThreadsPerQuery    = 2
[HTTPServer]
ServerPort         = 127.0.0.1:{http_port}
ServerThreads      = 4
[SPARQL]
ResultSetMaxRows           = 100000000
MaxQueryExecutionTime      = 0
MaxQueryCostEstimationTime = 0
"""


def available() -> bool:
    return bool(VIRTUOSO and ISQL)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A Virtuoso with its database in ``folder/db`` and its load folder ``folder/load``."""

    def __init__(self, folder: Path, buffers: int = 170000) -> None:
        self.folder, self.buffers = folder, buffers
        self.db, self.load_dir = folder / "db", folder / "load"
        self.proc: subprocess.Popen[bytes] | None = None
        self.http_port = self.isql_port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/sparql"

    def start(self, fresh: bool = True, timeout: float = 300) -> None:
        if fresh:
            shutil.rmtree(self.db, ignore_errors=True)
        self.db.mkdir(parents=True, exist_ok=True)
        self.load_dir.mkdir(parents=True, exist_ok=True)
        self.http_port, self.isql_port = _free_port(), _free_port()
        (self.db / "virtuoso.ini").write_text(INI.format(
            db=self.db, load=self.load_dir, http_port=self.http_port, isql_port=self.isql_port,
            buffers=self.buffers, dirty=self.buffers * 3 // 4), encoding="utf-8")
        assert VIRTUOSO
        with open(self.db / "stdout.log", "ab") as out:
            self.proc = subprocess.Popen([VIRTUOSO, "+foreground", "+configfile", str(self.db / "virtuoso.ini")],
                                         cwd=self.db, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                with urllib.request.urlopen(self.url + "?query=ASK%7B%7D", timeout=5) as resp:
                    if resp.status == 200:
                        self.isql("SELECT 1;", timeout=60)
                        return
            except (urllib.error.URLError, OSError, RuntimeError):
                time.sleep(0.5)
        raise RuntimeError(f"Virtuoso did not start: {(self.db / 'stdout.log').read_text(errors='replace')[-2000:]}")

    def isql(self, sql: str, timeout: float = 36000) -> str:
        assert ISQL
        r = subprocess.run([ISQL, f"127.0.0.1:{self.isql_port}", "dba", "dba", "VERBOSE=OFF", "BANNER=OFF",
                            f"exec={sql}"], capture_output=True, text=True, timeout=timeout)
        out = r.stdout + r.stderr
        if r.returncode != 0 or "*** Error" in out:
            raise RuntimeError(f"isql: {sql}: {out[-2000:]}")
        return out

    def load(self, nt: Path) -> float:
        """Bulk-load ``nt`` (in the load folder) into GRAPH: the seconds it took."""
        t = time.perf_counter()
        self.isql(f"ld_dir('{self.load_dir}', '{nt.name}', '{GRAPH}'); rdf_loader_run(); checkpoint;")
        took = time.perf_counter() - t
        failed = self.isql("SELECT COUNT(*) FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;").strip()
        if failed != "0":
            raise RuntimeError(f"Virtuoso could not load {nt}")
        return took

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.isql("shutdown;", timeout=60)
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
        for signal_it in (None, self.proc.terminate, self.proc.kill):
            if signal_it is not None:
                signal_it()
            try:
                self.proc.wait(timeout=30)
                break
            except subprocess.TimeoutExpired:
                continue
        self.proc = None

    def restart(self) -> None:
        """Kill the server (a query it still runs goes with it) and start it on the same database."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
        self.start(fresh=False)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

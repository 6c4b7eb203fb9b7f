#!/usr/bin/env python3
"""Time every stored query on synthetic corpora in ONE run: the embedded Oxigraph store at each size and
rdflib in memory up to --rdflib-max records; print seconds, rows, and ratios (store vs the smallest store
run, rdflib vs the store at the same size). A query that runs past --timeout is stopped and reported.

    python bench/bench_queries.py --sizes 1000,10000,100000 --work /tmp/kg-bench

Corpora come from bench/synth.py (the first N lines of the largest file in --work, or generated);
graphs are built with ``kg build --validate none`` unless --work holds graph-N.nq (bench_build.py leaves
them there). Building is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_build import corpus  # noqa: E402

from kg.queries import bound_text, stored_queries  # noqa: E402

KG = str(Path(sys.executable).parent / "kg")
WORKER = r"""
import sys, time, json
from pathlib import Path
backend, source = sys.argv[1], sys.argv[2]
if backend == "store":
    from kg.store import open_disk_store, query_oxigraph
    db = open_disk_store(Path(source))
    run = lambda text: query_oxigraph(db, text)
else:
    from kg.api import read_graph_lines
    from kg.store import query_rdflib, rdflib_dataset
    ds = rdflib_dataset(read_graph_lines(Path(source)))
    run = lambda text: query_rdflib(ds, text)
print("ready", flush=True)
for line in sys.stdin:
    name, text = json.loads(line)
    t = time.perf_counter()
    rows = len(run(text).rows)
    print(json.dumps([name, time.perf_counter() - t, rows]), flush=True)
"""


def timed(backend: str, source: Path, queries: dict[str, str], timeout: float) -> dict[str, tuple[float, int] | None]:
    """Seconds and rows per query (None when it ran past ``timeout``), in worker processes that load the
    source once and are replaced when a query has to be stopped."""
    out: dict[str, tuple[float, int] | None] = {}
    todo = list(queries.items())
    while todo:
        proc = subprocess.Popen([sys.executable, "-c", WORKER, backend, str(source)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.stdout and proc.stdin
        if proc.stdout.readline().strip() != "ready":
            raise SystemExit(f"{backend} worker failed to load {source}")
        while todo:
            name, text = todo.pop(0)
            proc.stdin.write(json.dumps([name, text]) + "\n")
            proc.stdin.flush()
            sel = selectors.DefaultSelector()
            sel.register(proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                proc.kill()
                proc.wait()
                out[name] = None
                break
            got = json.loads(proc.stdout.readline())
            out[name] = (got[1], got[2])
        else:
            proc.stdin.close()
            proc.wait()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--rdflib-max", type=int, default=1000, help="largest size also timed on rdflib")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a query may run on the store")
    ap.add_argument("--rdflib-timeout", type=float, default=None, help="seconds a query may run on rdflib (default: --timeout)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/kg-bench"))
    a = ap.parse_args(argv)
    sizes = sorted(int(x) for x in a.sizes.split(","))
    a.work.mkdir(parents=True, exist_ok=True)
    data = corpus(a.work, sizes)
    queries = {name: bound_text(q, {}) for name, q in stored_queries().items()}
    base: dict[str, float] = {}
    for n in sizes:
        graph = a.work / f"graph-{n}.nq"
        store = a.work / f"store-{n}"
        t = time.perf_counter()
        if not graph.exists():
            home = a.work / f"q-{n}"
            subprocess.run([KG, "build", str(data[n]), "--validate", "none", "-q"], check=True,
                           env={**os.environ, "KG_HOME": str(home)})
            shutil.move(str(home / "graph.nq"), graph)
            shutil.rmtree(home, ignore_errors=True)
        if not store.exists():
            from kg.store import build_disk_store
            scratch = a.work / f"scratch-{n}"
            scratch.mkdir(exist_ok=True)
            build_disk_store(store, graph, scratch)
            shutil.rmtree(scratch, ignore_errors=True)
        print(f"\n{n} records: graph and store ready in {time.perf_counter() - t:.0f} s (not counted)", flush=True)
        ox = timed("store", store, queries, a.timeout)
        rd_timeout = a.rdflib_timeout or a.timeout
        rd = timed("rdflib", graph, queries, rd_timeout) if n <= a.rdflib_max else {}
        for name in queries:
            got = ox[name]
            line = f"  {name:40s} "
            if got is None:
                line += f"store > {a.timeout:.0f} s (stopped)"
            else:
                line += f"store {got[0]:8.3f} s  rows {got[1]:8d}"
                if n == sizes[0]:
                    base[name] = max(got[0], 1e-4)
                elif name in base:
                    line += f"  x{got[0] / base[name]:8.1f} vs {sizes[0]}"
            if n <= a.rdflib_max:
                r = rd.get(name)
                if r is None:
                    line += f"  rdflib > {rd_timeout:.0f} s (stopped)"
                else:
                    line += f"  rdflib {r[0]:8.2f} s" + (f" ({r[0] / max(got[0], 1e-4):6.1f}x the store)" if got else "")
            print(line, flush=True)
        done = [v[0] for v in ox.values() if v]
        print(f"  store: {len(done)} of {len(queries)} queries answered, {sum(done):.1f} s in all", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

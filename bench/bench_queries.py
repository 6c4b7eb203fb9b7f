#!/usr/bin/env python3
"""Time every stored query on synthetic corpora in ONE run: at each size the embedded Oxigraph store (every query's
whole answer, and the listings' first page as ``kg query --limit 100`` sends it), Virtuoso (loaded by its bulk
loader with the same triples as the store, the N-Triples export; the load's seconds reported apart) and rdflib in
memory (the union graph, as ``kg query --engine rdflib`` holds it) up to --rdflib-max; print a table of seconds per
query and size, and each query's growth from the size before the largest to the largest. A query that runs past
--timeout is stopped and reported.

    nice -n 10 python bench/bench_queries.py --sizes 1000,10000,100000 --rdflib-max 10000 --work /tmp/kg-bench \
        --clean --json /tmp/kg-bench/figures.json

Corpora come from bench/synth.py (the first N lines of the largest file in --work, or generated);
graphs are built with ``kg build --validate none`` unless --work holds graph-N.nq (bench_build.py leaves
them there). Building and loading are not counted. --clean removes each size's graph, store and Virtuoso
database before the next size is built (a 100k graph is ~21 GB; check ``df -h`` first).

With --ratio, the machine-independent rule of issue 27 instead: every stored query timed as a whole
``kg query NAME --store DIR -f csv`` process (the listing queries with ``--limit 100``, their first page),
against full scans of the same store (``SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }``, one before the queries
and one after them), all in the same run and each less the process start-up (a trivial query on the same
store, the fastest of three). A query meets the rule when it costs at most two full scans. --before DIR also
times the .rq files of DIR of the same names (e.g. the texts before a rewrite) in the same run, and says
whether each gives the same output as the stored query.

    nice -n 10 python bench/bench_queries.py --ratio --sizes 1000,20000 --corpus /tmp/bench/synth20k.jsonl \
        --work /tmp/kg-ratio --before tests/data/queries-before

The corpus shape where most records fall in the two topic families of the headline question (both sides then hold
thousands of papers): ``python bench/synth.py 20000 /tmp/bench/two20k.jsonl --shape two-families``, then
``--corpus /tmp/bench/two20k.jsonl``. To time the listings without the store's index too (what a graph file, or a
server loaded from the export, runs: the text's ORDER BY and LIMIT), pass --before a folder of queries/*.rq with
their '#+ page:' line removed.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import virtuoso_server  # noqa: E402
from bench_build import corpus  # noqa: E402

from kg.query.stored import bound_text, stored_queries  # noqa: E402
from kg.query.text import paged  # noqa: E402

KG = str(Path(sys.executable).parent / "kg")
WORKER = r"""
import gc, json, os, sys, time
from pathlib import Path
backend, source = sys.argv[1], sys.argv[2]
if backend == "store":
    from kg.query.backends import open_disk_store, query_oxigraph
    db = open_disk_store(Path(source))
    run = lambda text: query_oxigraph(db, text)
else:
    from kg.query.backends import query_rdflib, rdflib_graph
    g = rdflib_graph(Path(source))
    run = lambda text: query_rdflib(g, text)
    gc.collect()
    gc.freeze()  # forked children then leave the loaded graph's pages shared
print("ready", flush=True)
for line in sys.stdin:
    name, text = json.loads(line)
    if backend == "store":
        t = time.perf_counter()
        rows = len(run(text).rows)
        print(json.dumps([name, time.perf_counter() - t, rows]), flush=True)
        continue
    # rdflib: each query in a forked child, so one that must be stopped does not cost a reload of the graph
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:  # the child's copied pages may run out of memory: then the kernel stops it, not the loaded parent
            with open("/proc/self/oom_score_adj", "w") as fh:
                fh.write("1000")
        except OSError:
            pass
        t = time.perf_counter()
        rows = len(run(text).rows)
        os.write(w, json.dumps([time.perf_counter() - t, rows]).encode())
        os._exit(0)
    os.close(w)
    print(json.dumps(["pid", pid]), flush=True)
    with os.fdopen(r, "rb") as fh:
        got = fh.read()
    status = os.waitpid(pid, 0)[1]
    print(json.dumps([name] + (json.loads(got) if got else [None, None]) + [status]), flush=True)
"""


def timed(backend: str, source: Path, queries: dict[str, str], timeout: float) -> dict[str, tuple[float, int] | None]:
    """Seconds and rows per query (None when it ran past ``timeout``). The store's worker process opens the
    store once and is replaced when a query has to be stopped; rdflib's loads the graph once and runs each
    query in a forked child, which is killed when it has to be stopped."""
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
            child = json.loads(proc.stdout.readline())[1] if backend != "store" else None
            sel = selectors.DefaultSelector()
            sel.register(proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout):
                if child is None:
                    proc.kill()
                    proc.wait()
                    out[name] = None
                    break
                os.kill(child, signal.SIGKILL)
                child = None
            got = json.loads(proc.stdout.readline())
            if child is not None and got[1] is None:
                print(f"  ({name}: the rdflib query process died, wait status {got[3]}; counted as stopped)",
                      file=sys.stderr, flush=True)
            out[name] = None if got[1] is None else (got[1], got[2])
        else:
            proc.stdin.close()
            proc.wait()
    return out


def _label(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def _fmt(got: tuple[float, int] | None, timeout: float) -> str:
    return f"> {timeout:.0f} s" if got is None else f"{got[0]:.3f} s"


# ---------------------------------------------------------------- --ratio: whole kg query processes against full scans

#: timed on their first page: the listings (read from the store's index, '#+ page: index', kg/query/index.py), the
#: headline pair among them, and works-citing (one row per citing reference)
LISTINGS = ("references", "unresolved", "weakly-resolved", "works", "works-citing", "tool-candidates", "cocited",
            "tool-citations", "tools-cited-by-profiling-and-compiler", "tools-cited-by-both")  # (coauthors and
# institution-collaboration, listings too, are timed whole, as before)
PAGE = 100
SCAN = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
TRIVIAL = "ASK {}"


def _kg_process(args: list[str], out: Path, timeout: float) -> float | None:
    """Wall seconds of one ``kg ARGS`` process, its standard output written to ``out``; None past ``timeout``."""
    with out.open("wb") as fh:
        t = time.perf_counter()
        proc = subprocess.Popen([KG, *args], stdout=fh, stderr=subprocess.PIPE, cwd=ROOT)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return None
        took = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"kg {' '.join(args)} exited {proc.returncode}: {err.decode(errors='replace')[-1000:]}")
    return took


def _answer(path: Path) -> tuple[int, str]:
    """Rows and digest of a csv answer."""
    data = path.read_bytes()
    rows = sum(1 for _ in csv.reader(io.StringIO(data.decode("utf-8"))))
    return max(rows - 1, 0), hashlib.sha256(data).hexdigest()[:12]


def ratio_store(data: Path, store: Path, home: Path) -> None:
    """``kg build DATA --store STORE --validate none`` (the workspace graph goes to ``home``, removed after)."""
    if store.exists():
        return
    t = time.perf_counter()
    subprocess.run([KG, "build", str(data), "--store", str(store), "--validate", "none", "-q"], check=True,
                   env={**os.environ, "KG_HOME": str(home)})
    shutil.rmtree(home, ignore_errors=True)
    print(f"  built {store} in {time.perf_counter() - t:.0f} s (not counted)", flush=True)


def ratio_run(store: Path, label: str, before: Path | None, timeout: float, repeat: int, scratch: Path,
              only: set[str] | None = None) -> list[dict]:
    """Every stored query (and its --before text) on ``store`` as whole processes, with the start-up and the two
    full scans of the same run; one dict per query."""
    names = sorted(n for n in stored_queries() if not only or n in only)
    out = scratch / "answer.csv"
    base = ["query", "--store", str(store), "-f", "csv"]
    startup = min(_kg_process([*base, "-e", TRIVIAL], out, timeout) or timeout for _ in range(3))
    scans = [_kg_process([*base, "-e", SCAN], out, timeout)]
    triples = _answer(out)
    rows = []
    for name in names:
        page = ["--limit", str(PAGE)] if name in LISTINGS else []
        row: dict = {"query": name, "page": bool(page)}
        for key, what in (("before", before / f"{name}.rq" if before else None), ("after", name)):
            if what is None or (key == "before" and not Path(what).is_file()):
                continue
            times = [_kg_process([*base, *page, str(what)], out, timeout) for _ in range(repeat)]
            row[key] = None if None in times else min(times)
            row[key + "_answer"] = _answer(out) if row[key] is not None else None
            print(f"  {label} {name}{' (first page)' if page else ''} {key}: "
                  f"{'> %.0f s' % timeout if row[key] is None else '%.2f s' % row[key]}", flush=True)
        rows.append(row)
    scans.append(_kg_process([*base, "-e", SCAN], out, timeout))
    # the start-up again at the end (the fastest of all six): the load of a shared machine changes in a run
    startup = min([startup] + [_kg_process([*base, "-e", TRIVIAL], out, timeout) or timeout for _ in range(3)])
    scan = sum(scans) / 2 - startup
    print(f"\n{label}: {store} ({triples[0]} row; full scans {scans[0]:.2f} s and {scans[1]:.2f} s, start-up "
          f"{startup:.2f} s: one full scan = {scan:.2f} s less start-up)")
    cols = [k for k in ("before", "after") if any(k in r for r in rows)]
    print("\n| query | " + " | ".join(f"{k} s | {k} ratio" for k in cols) + " | ≤ 2 scans | rows | same as before |")
    print("|---|" + "---|---|" * len(cols) + "---|---|---|")
    for r in rows:
        cells = []
        for k in cols:
            t = r.get(k)
            r[k + "_ratio"] = None if t is None else max(t - startup, 0.0) / max(scan, 1e-3)
            cells.append("–" if k not in r else f"> {timeout:.0f}" if t is None else f"{t - startup:.2f}")
            cells.append("–" if k not in r else f"> {timeout / max(scan, 1e-3):.0f}" if t is None
                         else f"{r[k + '_ratio']:.2f}")
        last = r.get("after_ratio")
        ok = "yes" if last is not None and last <= 2 else "NO"
        ans = r.get("after_answer")
        same = "–" if "before_answer" not in r or not r["before_answer"] or not ans else \
            "yes" if r["before_answer"] == ans else "NO"
        print(f"| {r['query']}{' (first page)' if r['page'] else ''} | " + " | ".join(cells) +
              f" | {ok} | {ans[0] if ans else '?'} | {same} |")
    met = sum(1 for r in rows if r.get("after_ratio") is not None and r["after_ratio"] <= 2)
    print(f"\n{label}: {met} of {len(rows)} stored queries timed cost at most two full scans", flush=True)
    for r in rows:
        r.update(label=label, startup=startup, scans=scans)
    return rows


def ratio_main(a: argparse.Namespace) -> int:
    a.work.mkdir(parents=True, exist_ok=True)
    before = a.before.resolve() if a.before else None
    if a.store:
        stores = [(a.store.name, a.store)]
    else:
        sizes = sorted(int(x) for x in a.sizes.split(","))
        if a.corpus:
            data = {}
            for n in sizes:
                data[n] = a.work / f"s{n}.jsonl"
                if not data[n].exists():
                    with a.corpus.open("rb") as src, data[n].open("wb") as dst:
                        for i, line in enumerate(src):
                            if i >= n:
                                break
                            dst.write(line)
        else:
            data = corpus(a.work, sizes)
        stores = []
        for n in sizes:
            ratio_store(data[n], a.work / f"ratio-store-{n}", a.work / f"ratio-home-{n}")
            stores.append((_label(n), a.work / f"ratio-store-{n}"))
    only = set(a.queries.split(",")) if a.queries else None
    results = {label: ratio_run(store, label, before, a.timeout, a.repeat, a.work, only) for label, store in stores}
    if a.json:
        a.json.write_text(json.dumps(results, indent=1))
    if a.clean and not a.store:
        for _, store in stores:
            shutil.rmtree(store, ignore_errors=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="sizes timed on the store")
    ap.add_argument("--rdflib-sizes", default=None,
                    help="sizes timed on rdflib in memory (default: the --sizes up to --rdflib-max)")
    ap.add_argument("--rdflib-max", type=int, default=1000, help="largest of --sizes also timed on rdflib")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a query may run on the store")
    ap.add_argument("--rdflib-timeout", type=float, default=None,
                    help="seconds a query may run on rdflib (default: --timeout)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/kg-bench"))
    ap.add_argument("--ratio", action="store_true",
                    help="time whole kg query processes against two full scans of the same store (issue 27's rule)")
    ap.add_argument("--store", type=Path, help="with --ratio: time this existing store only (no build)")
    ap.add_argument("--corpus", type=Path, help="with --ratio: the records (first N lines per size; default: synth.py)")
    ap.add_argument("--before", type=Path,
                    help="with --ratio: also time the .rq files of this folder of the same names")
    ap.add_argument("--repeat", type=int, default=1, help="with --ratio: runs per query, the fastest counted")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--queries", help="with --ratio: only these stored queries (comma-separated)")
    ap.add_argument("--clean", action="store_true",
                    help="remove each size's graph, store and Virtuoso database when done with it (with --ratio: the "
                         "stores it built)")
    ap.add_argument("--no-virtuoso", action="store_true", help="do not time Virtuoso (timed when it is installed)")
    a = ap.parse_args(argv)
    if a.ratio:
        return ratio_main(a)
    store_sizes = sorted(int(x) for x in a.sizes.split(","))
    rd_sizes = sorted(int(x) for x in a.rdflib_sizes.split(",")) if a.rdflib_sizes else \
        [n for n in store_sizes if n <= a.rdflib_max]
    vt_sizes = [] if a.no_virtuoso or not virtuoso_server.available() else store_sizes
    rd_timeout = a.rdflib_timeout or a.timeout
    sizes = sorted(set(store_sizes) | set(rd_sizes))
    a.work.mkdir(parents=True, exist_ok=True)
    print(f"disk free in {a.work}: {shutil.disk_usage(a.work).free / 1e9:.0f} GB"
          + ("" if vt_sizes else " (Virtuoso not timed: not installed, or --no-virtuoso)"), flush=True)
    data = corpus(a.work, sizes)
    stored = stored_queries()
    queries = {name: bound_text(q, {}) for name, q in stored.items()}
    # the listings also on their first page, as their text with --limit 100 (the store's index is not read here)
    queries.update({f"{name} (first page)": paged(bound_text(stored[name], {}), PAGE, None)
                    for name in LISTINGS if name in stored})
    names = sorted(queries)
    res: dict[tuple[str, int], dict[str, tuple[float, int] | None]] = {}
    loads: dict[int, tuple[int, float]] = {}
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
        if n in store_sizes and not store.exists():
            from kg.query.backends import build_disk_store
            scratch = a.work / f"scratch-{n}"
            scratch.mkdir(exist_ok=True)
            build_disk_store(store, graph, scratch)
            shutil.rmtree(scratch, ignore_errors=True)
        print(f"\n{n} records: graph{' and store' if n in store_sizes else ''} ready in "
              f"{time.perf_counter() - t:.0f} s (not counted)", flush=True)
        if n in store_sizes:
            res["store", n] = ox = timed("store", store, queries, a.timeout)
            _said("store", n, ox, a.timeout, len(queries))
            if a.clean:  # Virtuoso and rdflib read the graph: the store's disk is free again before they load it
                shutil.rmtree(store, ignore_errors=True)
        if n in vt_sizes:
            res["virtuoso", n], loads[n] = virtuoso_run(graph, a.work / f"virtuoso-{n}", queries, a.timeout)
            _said("virtuoso", n, res["virtuoso", n], a.timeout, len(queries))
        if n in rd_sizes:
            t = time.perf_counter()
            res["rdflib", n] = rd = timed("rdflib", graph, queries, rd_timeout)
            _said("rdflib", n, rd, rd_timeout, len(queries))
            print(f"  rdflib: {time.perf_counter() - t:.0f} s with loading and stopped queries", flush=True)
        if a.clean:  # each size's graph, store and server database go before the next size is built
            graph.unlink(missing_ok=True)
            shutil.rmtree(store, ignore_errors=True)
            shutil.rmtree(a.work / f"virtuoso-{n}", ignore_errors=True)
    for n, (triples, seconds) in loads.items():
        print(f"virtuoso {_label(n)}: {triples:,} triples bulk-loaded in {seconds:.1f} s (not counted in the table)")
    cols = [("store", n) for n in store_sizes] + [("virtuoso", n) for n in vt_sizes] + [("rdflib", n) for n in rd_sizes]
    growth = [(b, ns[-2], ns[-1]) for b, ns in (("store", store_sizes), ("virtuoso", vt_sizes)) if len(ns) > 1]
    print("\nSeconds per query (rows in brackets at the first size); growth = seconds at the largest size over the "
          "size before it.\n")
    print("| query | " + " | ".join(f"{b} {_label(n)}" for b, n in cols) +
          "".join(f" | {b} growth {_label(m)}→{_label(n)}" for b, m, n in growth) + " |")
    print("|---|" + "---|" * (len(cols) + len(growth)))
    for name in names:
        cells = []
        for b, n in cols:
            got = res[b, n][name]
            cell = _fmt(got, rd_timeout if b == "rdflib" else a.timeout)
            ox = res.get(("store", n), {}).get(name) if b != "store" else None
            if got and ox and got[1] != ox[1]:
                cell += f" (ROWS DIFFER FROM THE STORE'S {ox[1]:,}: {got[1]:,})"
            elif got and (b, n) == cols[0]:
                cell += f" ({got[1]:,})"
            cells.append(cell)
        for b, m, n in growth:
            lo, hi = res[b, m][name], res[b, n][name]
            cells.append(f"{hi[0] / max(lo[0], 1e-4):.1f}x" if lo and hi else "–")
        print(f"| {name} | " + " | ".join(cells) + " |")
    for b, n in cols:
        done = [v[0] for v in res[b, n].values() if v]
        print(f"{b} {_label(n)}: {len(done)}/{len(queries)} answered, {sum(done):.1f} s in all")
    if a.json:
        a.json.write_text(json.dumps({f"{b} {n}": v for (b, n), v in res.items()} | {"loads": loads}, indent=1))
    return 0


def _said(backend: str, n: int, got: dict[str, tuple[float, int] | None], timeout: float, total: int) -> None:
    for name, one in got.items():
        print(f"  {backend} {_label(n)} {name}: {_fmt(one, timeout)}" + (f", {one[1]:,} rows" if one else ""),
              flush=True)
    done = [v[0] for v in got.values() if v]
    print(f"  {backend}: {len(done)} of {total} queries answered, {sum(done):.1f} s in all", flush=True)


def virtuoso_run(graph: Path, folder: Path, queries: dict[str, str],
                 timeout: float) -> tuple[dict[str, tuple[float, int] | None], tuple[int, float]]:
    """Every query on a Virtuoso loaded with the N-Triples of ``graph`` (the same triples as the store: the export
    kg export -f nt writes); seconds and rows per query, and (triples, seconds) of the bulk load."""
    from kg.errors import QueryError
    from kg.query.backends import query_endpoint
    from kg.rdf.io import canonical_lines
    from kg.rdf.nquads import triples_from_quads

    server = virtuoso_server.Server(folder)
    out: dict[str, tuple[float, int] | None] = {}
    try:
        server.start()
        nt = server.load_dir / "graph.nt"
        triples = 0
        with nt.open("w", encoding="utf-8", newline="\n") as fh:
            for line in triples_from_quads(canonical_lines(graph)):
                fh.write(line)
                triples += 1
        seconds = server.load(nt)
        nt.unlink()
        print(f"  virtuoso: {triples:,} triples loaded in {seconds:.1f} s (not counted)", flush=True)
        for name, text in queries.items():
            t = time.perf_counter()
            try:
                rows = len(query_endpoint(server.url, text, timeout=timeout, max_bytes=1 << 40,
                                          default_graphs=(virtuoso_server.GRAPH,)).rows)
                out[name] = (time.perf_counter() - t, rows)
            except QueryError as e:
                out[name] = None
                if "timed out" not in str(e) and "time" not in str(e):
                    print(f"  virtuoso {name}: {e}", file=sys.stderr, flush=True)
                server.restart()
    finally:
        server.remove()
    return out, (triples, seconds)


if __name__ == "__main__":
    raise SystemExit(main())

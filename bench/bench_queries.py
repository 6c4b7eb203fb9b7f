#!/usr/bin/env python3
"""Time every stored query on synthetic corpora: the embedded Oxigraph store at each size, rdflib in memory
up to --rdflib-max records, in ONE run, and print seconds plus ratios against the smallest store run.

Usage: ``python bench/bench_queries.py [--sizes 1000,10000] [--rdflib-max 20000]``. Building the
corpora (bench/synth.py, then the build pipeline without validation) is timed separately and not counted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import synth  # noqa: E402

from kg.build import build_graph  # noqa: E402
from kg.map.context import Context  # noqa: E402
from kg.queries import bound_text, stored_queries  # noqa: E402
from kg.store import build_disk_store, open_disk_store, query_oxigraph, query_rdflib, rdflib_dataset  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000", help="comma-separated corpus sizes")
    ap.add_argument("--rdflib-max", type=int, default=20000, help="largest size also timed on rdflib")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    queries = stored_queries()
    baseline: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            corpus = Path(tmp) / f"s{n}.jsonl"
            synth.main([str(n), str(corpus)])
            t = time.perf_counter()
            result = build_graph([str(corpus)], Context.create())
            store_dir = Path(tmp) / f"store{n}"
            build_disk_store(store_dir, "".join(result.lines).encode("utf-8"))
            print(f"\n{n} records: {result.triples} triples, built in {time.perf_counter() - t:.1f} s (not counted)")
            store = open_disk_store(store_dir)
            ds = rdflib_dataset(result.lines) if n <= args.rdflib_max else None
            total_ox = total_rdf = 0.0
            for name, q in queries.items():
                text = bound_text(q, {})
                t = time.perf_counter()
                rows = query_oxigraph(store, text).rows
                ox_s = time.perf_counter() - t
                total_ox += ox_s
                line = f"  {name:40s} store {ox_s:7.3f} s  rows {len(rows):7d}"
                if n == sizes[0]:
                    baseline[name] = max(ox_s, 1e-6)
                else:
                    line += f"  x{ox_s / baseline[name]:7.1f} vs {sizes[0]}"
                if n <= args.rdflib_max:
                    t = time.perf_counter()
                    query_rdflib(ds, text)
                    rd_s = time.perf_counter() - t
                    total_rdf += rd_s
                    line += f"  rdflib {rd_s:8.2f} s ({rd_s / max(ox_s, 1e-6):6.1f}x the store)"
                print(line, flush=True)
            print(f"  all {len(queries)} queries: store {total_ox:.2f} s"
                  + (f", rdflib {total_rdf:.1f} s ({total_rdf / max(total_ox, 1e-6):.0f}x)" if n <= args.rdflib_max else ""))
            del store
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

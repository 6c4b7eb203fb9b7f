#!/usr/bin/env python3
"""The cluster benchmark, in ONE run: ``kg build --jobs 2`` against ``--cluster local:2`` (the engine's overhead),
``--cluster local:1`` against ``local:2`` (the speed-up of a second worker), with the peak memory per worker and
the bytes moved, from the manifest the cluster builds write. The synthetic records (bench/synth.py) are split
into --files JSON Lines files, the unit of work of a cluster build; every build gets the same files and
``--validate none`` (validation runs in the driver either way). The graphs are checked identical.

    python bench/bench_cluster.py                 # 20,000 records
    python bench/bench_cluster.py -n 2000         # a quick look
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KG = str(Path(sys.executable).parent / "kg")


def _build(inputs: Path, home: Path, *flags: str) -> float:
    env = {**os.environ, "KG_HOME": str(home)}
    t = time.perf_counter()
    subprocess.run([KG, "build", str(inputs), "--validate", "none", "-q", *flags], env=env, check=True)
    return time.perf_counter() - t


def _concat(home: Path) -> bytes:
    manifest = json.loads((home / "parts" / "manifest.json").read_text(encoding="utf-8"))
    return b"".join(gzip.open(home / "parts" / p["name"]).read() for p in manifest["parts"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--records", type=int, default=20_000)
    ap.add_argument("--files", type=int, default=16, help="input files the records are split into")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        work = Path(tmp)
        synth = work / "all.jsonl"
        subprocess.run([sys.executable, str(ROOT / "bench" / "synth.py"), str(args.records), str(synth)], check=True)
        lines = synth.read_bytes().splitlines(keepends=True)
        synth.unlink()
        inputs = work / "in"
        inputs.mkdir()
        per = -(-len(lines) // args.files)
        for i in range(args.files):
            (inputs / f"part-{i:03d}.jsonl").write_bytes(b"".join(lines[i * per:(i + 1) * per]))
        del lines
        times = {"jobs2": _build(inputs, work / "j2", "--jobs", "2"),
                 "local2": _build(inputs, work / "c2", "--cluster", "local:2"),
                 "local1": _build(inputs, work / "c1", "--cluster", "local:1")}
        local = (work / "j2" / "graph.nq").read_bytes()
        same = _concat(work / "c2") == local and _concat(work / "c1") == local
        manifest = json.loads((work / "c2" / "parts" / "manifest.json").read_text(encoding="utf-8"))
    print(f"records {args.records} in {args.files} files; graphs identical: {same}")
    for name, sec in times.items():
        rate = args.records / sec
        print(f"  {name:7s} {sec:8.2f} s  {rate:8.0f} records/s  {sec / args.records * 1e3:.3f} ms/record")
    print(f"overhead of the engine (local:2 / --jobs 2): {times['local2'] / times['jobs2']:.2f}x")
    print(f"speed-up of a second worker (local:1 / local:2): {times['local1'] / times['local2']:.2f}x")
    for worker, kib in manifest["worker_peak_kib"].items():
        print(f"  peak memory of worker {worker}: {kib / 1024:.0f} MiB")
    moved = manifest["bytes_moved"]
    print(f"bytes moved (local:2): task answers {moved['answers'] / 1e6:.1f} MB, sorted runs in scratch "
          f"{moved['runs'] / 1e6:.1f} MB; graph {manifest['lines']} lines, {manifest['triples']} triples")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()

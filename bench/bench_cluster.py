#!/usr/bin/env python3
"""The cluster benchmark, in ONE run: ``kg build --jobs 2`` against ``--cluster local:2`` (the engine's overhead),
``--cluster local:1`` against ``local:2`` (the speed-up of a second worker), with the peak memory per worker, the
bytes the stages shuffled and the bytes written, from the manifest the cluster builds write, and the wall seconds
of each stage. The synthetic records (bench/synth.py) are split into --files JSON Lines files, the unit of work of
a cluster build; every build gets the same files and ``--validate none`` (validation is the same work either way).
The graphs are checked identical (sha256 of the local graph against the gunzipped parts, streamed). Run it under
``nice``; the figures are wall seconds on whatever else the machine does.

    python bench/bench_cluster.py                 # 20,000 records
    python bench/bench_cluster.py -n 2000         # a quick look
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KG = str(Path(sys.executable).parent / "kg")


CPU: dict[str, float] = {}  # CPU seconds (user + system) of each build, its worker processes included
LOAD: dict[str, float] = {}  # the machine's 1-minute load average at the end of each build


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _build(name: str, inputs: Path, home: Path, *flags: str) -> float:
    env = {**os.environ, "KG_HOME": str(home)}
    cpu = _cpu()
    t = time.perf_counter()
    subprocess.run([KG, "build", str(inputs), "--validate", "none", "-q", *flags], env=env, check=True)
    CPU[name] = _cpu() - cpu
    LOAD[name] = os.getloadavg()[0]
    return time.perf_counter() - t


def _sha_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            h.update(block)
    return h.hexdigest()


def _sha_parts(home: Path) -> str:
    h = hashlib.sha256()
    for p in _manifest(home)["parts"]:
        with gzip.open(home / "parts" / p["name"]) as fh:
            while block := fh.read(1 << 22):
                h.update(block)
    return h.hexdigest()


def _manifest(home: Path) -> dict[str, Any]:
    return json.loads((home / "parts" / "manifest.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _split(records: int, files: int, into: Path) -> None:
    synth = into.parent / "all.jsonl"
    subprocess.run([sys.executable, str(ROOT / "bench" / "synth.py"), str(records), str(synth)], check=True)
    into.mkdir()
    with open(synth, "rb") as fh:
        lines = fh.readlines()
    synth.unlink()
    per = -(-len(lines) // files)
    for i in range(files):
        (into / f"part-{i:03d}.jsonl").write_bytes(b"".join(lines[i * per:(i + 1) * per]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--records", type=int, default=20_000)
    ap.add_argument("--files", type=int, default=16, help="input files the records are split into")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        work = Path(tmp)
        inputs = work / "in"
        _split(args.records, args.files, inputs)
        size = sum(p.stat().st_size for p in inputs.iterdir())
        times = {"jobs2": _build("jobs2", inputs, work / "j2", "--jobs", "2")}
        local_sha = _sha_file(work / "j2" / "graph.nq")
        graph_bytes = (work / "j2" / "graph.nq").stat().st_size
        (work / "j2" / "graph.nq").unlink()
        times["local2"] = _build("local2", inputs, work / "c2", "--cluster", "local:2")
        times["local1"] = _build("local1", inputs, work / "c1", "--cluster", "local:1")
        same = _sha_parts(work / "c2") == local_sha == _sha_parts(work / "c1")
        two, one = _manifest(work / "c2"), _manifest(work / "c1")
    n = args.records
    print(f"records {n} in {args.files} files ({size / 1e6:.1f} MB); graphs identical: {same}")
    for name, sec in times.items():
        print(f"  {name:7s} {sec:8.2f} s  {n / sec:8.0f} records/s  {sec / n * 1e3:.3f} ms/record; "
              f"CPU {CPU[name]:.1f} s ({CPU[name] / n * 1e3:.2f} ms/record); load average at the end {LOAD[name]:.1f}")
    print(f"overhead of the engine (local:2 / --jobs 2): {times['local2'] / times['jobs2']:.2f}x wall, "
          f"{CPU['local2'] / CPU['jobs2']:.2f}x CPU")
    print(f"speed-up of a second worker (local:1 / local:2): {times['local1'] / times['local2']:.2f}x")
    for label, m in (("local:2", two), ("local:1", one)):
        print(f"{label}: {m['partitions']} partitions, {len(m['parts'])} parts; stages (s): "
              + ", ".join(f"{k} {v:.1f}" for k, v in m["stage_seconds"].items()))
        for worker, kib in m["worker_peak_kib"].items():
            print(f"  peak memory of worker {worker}: {kib / 1024:.0f} MiB ({m['workers'][worker]} tasks)")
    written = two["bytes_written"]
    print(f"bytes (local:2): shuffled between stages {written['shuffled'] / 1e6:.1f} MB "
          f"({written['shuffled'] / n / 1e3:.1f} KB/record), sorted runs {written['runs'] / 1e6:.1f} MB, "
          f"parts {written['parts'] / 1e6:.1f} MB ({written['parts'] / n / 1e3:.1f} KB/record, "
          f"{graph_bytes / max(1, written['parts']):.1f}x smaller than the graph's {graph_bytes / 1e6:.1f} MB); "
          f"graph {two['lines']} lines, {two['triples']} triples")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()

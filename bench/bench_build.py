#!/usr/bin/env python3
"""The scale benchmark: kg build against the floor, in ONE run, with ratios and absolute figures.

For each corpus size (synthetic records from bench/synth.py; the smaller corpora are the first lines of
the largest, which synth.py guarantees equal to a run of that size) it times and measures the peak RSS
(whole process tree) of:
  - ``kg build`` with default flags (``--validate auto``), ``--jobs 1`` and ``--jobs 2``, N-Quads output;
  - the floor mapper (bench/floor.py: orjson + formatted N-Quads lines, the same lines for its fields);
  - an rdflib ``Graph.add`` mapper of the same lines (up to --rdflib-max records).
Then, on the largest graph up to 20k records, Turtle output (``kg export``) against rdflib's Turtle
serializer (on the 1k graph: rdflib needs GBs per million triples) and pyoxigraph's; and validation
throughput of ``kg validate --jobs 2`` against pySHACL on the whole graph (on --validate-size records),
with a check that both reports are identical.

With ``--baseline COMMIT`` the same builds run, in the same run and alternating with this commit's, with the
``kg`` of another commit (checked out into a git worktree with its own virtualenv under --work, made once), and
the table the build-cost issue asks for is printed: time per output triple against the floor, the peak of the
largest process (``VmHWM``: the main process, the pool workers, the forked validator and its shards), and each
stage's peak memory (the tree's RSS in the stage's window, from ``--timings``; approximate at the edges).

    python bench/bench_build.py                       # 1k, 20k, 100k: about an hour on 2 cores
    python bench/bench_build.py --sizes 1000,5000     # a quick look
    python bench/bench_build.py --sizes 20000,100000 --baseline 417fd2c --jobs-list 0 --skip-validation \
        --rdflib-max 0 --store                        # the build-cost table (issue 46)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from measure import run  # noqa: E402

PY = sys.executable
KG = [str(Path(sys.executable).parent / "kg")]


def corpus(work: Path, sizes: list[int]) -> dict[int, Path]:
    """The synthetic corpora, generated once (the largest) and cut (the others)."""
    biggest = max(sizes)
    full = work / f"s{biggest}.jsonl"
    if not full.exists() or sum(1 for _ in full.open("rb")) != biggest:
        print(f"generating {biggest} synthetic records ...", flush=True)
        subprocess.run([PY, str(ROOT / "bench" / "synth.py"), str(biggest), str(full), "--jobs", "0"], check=True)
    out = {}
    for n in sizes:
        path = work / f"s{n}.jsonl"
        if n != biggest and (not path.exists() or sum(1 for _ in path.open("rb")) != n):
            with full.open("rb") as src, path.open("wb") as dst:
                for i, line in enumerate(src):
                    if i >= n:
                        break
                    dst.write(line)
        out[n] = path
    return out


def kg_build(data: Path, home: Path, jobs: int, extra: list[str] | None = None, kg: list[str] | None = None) -> dict:
    """``kg build`` of ``data`` (``jobs`` 0: the default, the available cores), with ``kg`` (default: this
    commit's)."""
    shutil.rmtree(home, ignore_errors=True)
    given = ["--jobs", str(jobs)] if jobs else []
    r = run([*(kg or KG), "build", str(data), *given, "--timings", *(extra or [])], env={"KG_HOME": str(home)})
    m = re.search(r"\): (\d+) triples", r.stderr)
    if r.returncode != 0 or not m:
        raise SystemExit(f"kg build failed ({r.returncode}): {r.stderr[-2000:]}")
    quads = sum(1 for _ in (home / "graph.nq").open("rb"))
    stages = next((ln for ln in r.stderr.splitlines() if ln.startswith("timings: ")), "")[9:]
    main_mb = next((mb for _pid, role, mb in r.processes if role == "main"), 0.0)
    others = [mb for _pid, role, mb in r.processes if role != "main" and "sort" not in role]
    return {"seconds": r.seconds, "peak_mb": r.peak_mb, "triples": int(m.group(1)), "quads": quads,
            "summary": [ln for ln in r.stderr.splitlines() if ln.startswith(("built", "validation"))],
            "stages": stages, "largest_mb": r.largest_mb, "main_mb": main_mb,
            "largest_worker_mb": max(others, default=0.0), "stage_mb": stage_peaks(stages, r.seconds, r.timeline)}


def stage_peaks(stages: str, seconds: float, timeline: list[tuple[float, float]]) -> dict[str, float]:
    """Each stage's peak tree RSS (MB): the stages of ``--timings`` laid end to end, ending when the build ended
    (what comes before the first is start-up)."""
    spans = [(name, float(secs)) for name, secs in re.findall(r"(\w+) ([\d.]+) s", stages)]
    t = seconds - sum(secs for _name, secs in spans)
    out: dict[str, float] = {}
    for name, secs in spans:
        inside = [mb for at, mb in timeline if t <= at <= t + secs]
        out[name] = max(inside, default=0.0)
        t += secs
    return out


def baseline_kg(commit: str, work: Path) -> list[str]:
    """The ``kg`` of ``commit``: a git worktree of this repository and a virtualenv of its own, made once."""
    where = work / f"baseline-{commit}"
    exe = where / ".venv" / "bin" / "kg"
    if not exe.exists():
        print(f"checking out {commit} into {where} and installing it ...", flush=True)
        if not where.exists():
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), commit], check=True,
                           stdout=subprocess.DEVNULL)
        subprocess.run([PY, "-m", "venv", str(where / ".venv")], check=True)
        subprocess.run([str(where / ".venv" / "bin" / "pip"), "install", "-q", "-e", str(where)], check=True)
    return [str(exe)]


def cost_line(name: str, m: dict, floor: dict) -> str:
    per = (m["seconds"] / m["triples"]) / (floor["seconds"] / floor["triples"])
    stages = ", ".join(f"{k} {v:.0f}" for k, v in m["stage_mb"].items())
    return (f"  {name:16s} {per:6.2f}x the floor per triple  {m['triples'] / m['records']:6.0f} triples/record  "
            f"{m['seconds']:8.1f} s  largest process {m['largest_mb']:6.0f} MB (main {m['main_mb']:.0f}, largest "
            f"worker {m['largest_worker_mb']:.0f})  stage peaks (tree RSS, MB): {stages}")


def mapper(data: Path, kind: str, out: Path) -> dict:
    r = run([PY, str(ROOT / "bench" / "floor.py"), str(data), str(out), "--mapper", kind])
    if r.returncode != 0:
        raise SystemExit(f"{kind} mapper failed: {r.stderr[-2000:]}")
    got = json.loads(r.stdout.strip().splitlines()[-1])
    return {"seconds": r.seconds, "peak_mb": r.peak_mb, "triples": got["triples"], "records": got["records"]}


def line(name: str, n: int, m: dict) -> str:
    return (f"  {name:16s} {m['seconds']:9.1f} s  {n / m['seconds']:8.0f} records/s  "
            f"{m['triples'] / m['seconds']:10.0f} triples/s  peak {m['peak_mb']:7.0f} MB  ({m['triples']} triples)")


def _digest(path: Path) -> str:
    h = hashlib.sha1()
    with path.open("rb") as fh:
        while block := fh.read(1 << 22):
            h.update(block)
    return h.hexdigest()


def turtle(graph_big: Path, graph_small: Path, work: Path) -> dict:
    out: dict = {}
    r = run([*KG, "export", str(graph_big), "-f", "turtle", "-o", str(work / "big.ttl")])
    big_triples = sum(1 for _ in _triples(graph_big))
    out["kg"] = {"seconds": r.seconds, "peak_mb": r.peak_mb, "triples": big_triples}
    code = ("import sys,time,rdflib;g=rdflib.Graph();g.parse(sys.argv[1],format='nt');t=time.perf_counter();"
            "g.serialize(sys.argv[2],format='turtle');print(len(g),time.perf_counter()-t)")
    nt = work / "small.nt"
    with nt.open("w", encoding="utf-8") as fh:
        fh.writelines(_triples(graph_small))
    r = run([PY, "-c", code, str(nt), str(work / "small-rdflib.ttl")])
    n, secs = r.stdout.split()
    out["rdflib"] = {"seconds": float(secs), "triples": int(n), "peak_mb": r.peak_mb}
    code = ("import sys,time,pyoxigraph as ox;t=time.perf_counter();"
            "ox.serialize(ox.parse(path=sys.argv[1],format=ox.RdfFormat.N_TRIPLES),output=sys.argv[2],"
            "format=ox.RdfFormat.TURTLE);print(time.perf_counter()-t)")
    nt_big = work / "big.nt"
    with nt_big.open("w", encoding="utf-8") as fh:
        fh.writelines(_triples(graph_big))
    r = run([PY, "-c", code, str(nt_big), str(work / "big-ox.ttl")])
    out["pyoxigraph"] = {"seconds": float(r.stdout.split()[0]), "triples": big_triples, "peak_mb": r.peak_mb,
                         "note": "parse + serialize, streaming"}
    nt_big.unlink()
    return out


def _triples(graph: Path):  # noqa: ANN202
    sys.path.insert(0, str(ROOT))
    from kg.rdf.io import canonical_lines
    from kg.rdf.nquads import triples_from_quads
    return triples_from_quads(canonical_lines(graph))


def validation(data: Path, work: Path) -> dict:
    home = work / "kg-val"
    kg_build(data, home, 2, ["--validate", "none"])
    graph = home / "graph.nq"
    ours = run([*KG, "validate", str(graph), "--jobs", "2", "-f", "json", "--severity", "info"])
    ref_code = ("import sys,time,orjson;from pathlib import Path;from kg import api;from kg.validate import "
                "render_json;"
                "t=time.perf_counter();r=api.validate_graphs([Path(sys.argv[1])],engine='pyshacl');"
                "sys.stderr.write(f'{time.perf_counter()-t}\\n');sys.stdout.write(render_json(r,'info'))")
    ref = run([PY, "-c", ref_code, str(graph)], cwd=str(ROOT))
    same = json.loads(ours.stdout) == json.loads(ref.stdout) if ours.stdout and ref.stdout else False
    return {"kg": {"seconds": ours.seconds, "peak_mb": ours.peak_mb},
            "pyshacl": {"seconds": ref.seconds, "peak_mb": ref.peak_mb}, "identical": same,
            "results": len(json.loads(ours.stdout or "{}").get("results", []))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,20000,100000")
    ap.add_argument("--rdflib-max", type=int, default=20000)
    ap.add_argument("--validate-size", type=int, default=1000, help="records validated by both engines")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kg-bench")
    ap.add_argument("--json", type=Path, help="also write every figure here")
    ap.add_argument("--skip-builds", action="store_true",
                    help="only Turtle and validation, on the graph-N.nq files an earlier run left in --work")
    ap.add_argument("--skip-validation", action="store_true", help="leave out the validation comparison")
    ap.add_argument("--baseline", metavar="COMMIT", help="also build with the kg of this commit, alternating")
    ap.add_argument("--jobs-list", default="1,2", help="the --jobs of the kg builds (0: kg's default)")
    ap.add_argument("--store", action="store_true",
                    help="also 'kg build --store DIR --validate none' (default --jobs; the store's load counted), "
                         "with the baseline too when given")
    ap.add_argument("--only-store", action="store_true",
                    help="with --store: only the floor and the --store builds (not the default builds)")
    a = ap.parse_args(argv)
    sizes = sorted(int(x) for x in a.sizes.split(","))
    a.work.mkdir(parents=True, exist_ok=True)
    data = corpus(a.work, sizes + [a.validate_size])
    figures: dict = {"sizes": {}, "cores": len(os.sched_getaffinity(0))}
    # the sizes whose graphs the Turtle comparison reads (rdflib's serializer runs on the smallest)
    small = [] if a.rdflib_max <= 0 else [n for n in sizes if n <= 20000]
    for n in ([] if a.skip_builds else sizes):
        print(f"\n{n} records ({data[n].stat().st_size / 1e6:.0f} MB of JSON Lines)", flush=True)
        f: dict = {}
        f["floor"] = mapper(data[n], "floor", a.work / "floor.nq")
        print(line("floor", n, f["floor"]), flush=True)
        (a.work / "floor.nq").unlink()
        if n <= a.rdflib_max:
            f["rdflib"] = mapper(data[n], "rdflib", Path("/dev/null"))
            print(line("rdflib Graph.add", n, f["rdflib"]), flush=True)
        digests = []
        jobs_list = [] if a.only_store else [int(j) for j in a.jobs_list.split(",")]
        for jobs in jobs_list:
            tag = f"kg-j{jobs}" if jobs else "kg"
            f[tag] = kg_build(data[n], a.work / f"kg-{n}", jobs)
            f[tag]["records"] = n
            print(line(f"kg build -j{jobs}" if jobs else "kg build", n, f[tag]), flush=True)
            print(f"    stages: {f[tag]['stages']}", flush=True)
            print(cost_line("  this commit", f[tag], f["floor"]), flush=True)
            digests.append(_digest(a.work / f"kg-{n}" / "graph.nq"))  # (not timed)
            if n not in small:  # (its disk goes to the next build)
                (a.work / f"kg-{n}" / "graph.nq").unlink()
            if a.baseline:
                b = f"{tag}-{a.baseline}"
                f[b] = kg_build(data[n], a.work / f"kg-{n}-base", jobs, kg=baseline_kg(a.baseline, a.work))
                f[b]["records"] = n
                print(cost_line(f"  {a.baseline}", f[b], f["floor"]), flush=True)
                shutil.rmtree(a.work / f"kg-{n}-base", ignore_errors=True)
        if a.store:
            runs = [("kg-store", None)] + ([(f"kg-store-{a.baseline}", a.baseline)] if a.baseline else [])
            for tag, commit in runs:
                home, store = a.work / f"kg-{n}-store", a.work / f"store-{n}"
                shutil.rmtree(store, ignore_errors=True)
                f[tag] = kg_build(data[n], home, 0, ["--store", str(store), "--validate", "none"],
                                  kg=baseline_kg(commit, a.work) if commit else None)
                f[tag]["records"] = n
                print(cost_line(f"  --store {commit or 'this commit'}", f[tag], f["floor"]), flush=True)
                shutil.rmtree(home, ignore_errors=True)
                shutil.rmtree(store, ignore_errors=True)
        if len(digests) > 1:
            f["same-bytes-every-jobs"] = len(set(digests)) == 1
            print(f"  graphs of every --jobs byte-identical: {f['same-bytes-every-jobs']}", flush=True)
        keep = a.work / f"graph-{n}.nq"
        if (a.work / f"kg-{n}" / "graph.nq").exists():
            shutil.move(str(a.work / f"kg-{n}" / "graph.nq"), keep)
        shutil.rmtree(a.work / f"kg-{n}", ignore_errors=True)
        if "kg-j1" in f and "kg-j2" in f:
            per_triple = (f["kg-j1"]["seconds"] / f["kg-j1"]["triples"]) / (f["floor"]["seconds"] /
                                                                             f["floor"]["triples"])
            print(f"  kg -j1 time per triple: {per_triple:.2f}x the floor's; -j2 speed-up "
                  f"{f['kg-j1']['seconds'] / f['kg-j2']['seconds']:.2f}x;"
                  f" kg -j1 {f['kg-j1']['triples'] / n:.0f} triples/record, floor {f['floor']['triples'] / n:.0f}",
                  flush=True)
        if "rdflib" in f:
            print(f"  rdflib mapper: {f['rdflib']['seconds'] / f['floor']['seconds']:.1f}x the floor's time, "
                  f"{f['rdflib']['peak_mb'] / max(f['floor']['peak_mb'], 1):.0f}x its memory", flush=True)
        figures["sizes"][n] = f
    if small and min(small) > a.rdflib_max:
        print(f"\nTurtle: left out (rdflib's serializer runs on the smallest size, and {min(small)} is above "
              f"--rdflib-max {a.rdflib_max}; add a smaller size)", flush=True)
        small = []
    if len(sizes) > 1 and not a.skip_builds:
        lo, hi = sizes[-2], sizes[-1]
        for tag in [k for k in figures["sizes"][hi] if k.startswith("kg")]:
            at_hi, at_lo = figures["sizes"][hi][tag], figures["sizes"][lo][tag]
            print(f"\n{tag}: largest process {at_hi['largest_mb']:.0f} MB at {hi} vs {at_lo['largest_mb']:.0f} MB at "
                  f"{lo}: {at_hi['largest_mb'] / at_lo['largest_mb']:.2f}x; tree PSS {at_hi['peak_mb']:.0f} vs "
                  f"{at_lo['peak_mb']:.0f} MB")
    if small:
        big, tiny = max(small), min(small)
        t = turtle(a.work / f"graph-{big}.nq", a.work / f"graph-{tiny}.nq", a.work)
        figures["turtle"] = t
        rate = {k: v["triples"] / v["seconds"] for k, v in t.items()}
        print(f"\nTurtle: kg export {rate['kg']:.0f} triples/s ({big} records), pyoxigraph {rate['pyoxigraph']:.0f} "
              f"triples/s ({big}), rdflib {rate['rdflib']:.0f} triples/s ({tiny}): kg "
              f"{rate['kg'] / rate['rdflib']:.1f}x "
              f"rdflib, {rate['kg'] / rate['pyoxigraph']:.2f}x pyoxigraph", flush=True)
    if a.skip_validation:
        if a.json:
            a.json.write_text(json.dumps(figures, indent=2))
        return 0
    v = validation(data[a.validate_size], a.work)
    figures["validation"] = v
    print(f"\nvalidation of {a.validate_size} records (every result): kg validate --jobs 2 {v['kg']['seconds']:.1f} s "
          f"({a.validate_size / v['kg']['seconds']:.1f} records/s, peak {v['kg']['peak_mb']:.0f} MB), pySHACL whole "
          f"graph "
          f"{v['pyshacl']['seconds']:.1f} s ({a.validate_size / v['pyshacl']['seconds']:.1f} records/s, peak "
          f"{v['pyshacl']['peak_mb']:.0f} MB): {v['pyshacl']['seconds'] / v['kg']['seconds']:.2f}x; "
          f"{v['results']} results, identical: {v['identical']}", flush=True)
    if a.json:
        a.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

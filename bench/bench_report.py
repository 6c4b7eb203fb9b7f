#!/usr/bin/env python3
"""The report benchmark: ``kg report`` at 1k and 10k synthetic records, and the browser's load event.

For each corpus size (bench/synth.py records; the smaller corpora are the first lines of the largest) it
builds the graph once (``kg build --validate none --store DIR``), then times, as whole processes:
  - ``kg report`` on the workspace graph (loaded into memory, as ``kg query`` does) and on the store;
  - the baseline: ``kg query tools`` on the same source (one stored query, the load included);
and prints each with its ratio to the baseline, the size of the file, and the time from navigation to the
load event in headless Chromium (network off), against the load of a page of one paragraph (the baseline).
Targets: under a minute to write at 10k, under 3 s to load. With ``--profile``, then, on the store of each size:
the seconds (wall, and CPU of this process: the engine answers in it) of each stored query the report runs, most
first, and of drawing the page.

    python bench/bench_report.py                      # 1k and 10k (builds take several minutes)
    python bench/bench_report.py --sizes 1000 --work /tmp/rep --no-workspace-above 5000 --profile
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_build import corpus  # noqa: E402
from measure import run  # noqa: E402

KG = [str(Path(sys.executable).parent / "kg")]


def build(data: Path, home: Path, store: Path) -> None:
    if (home / "graph.nq").exists() and store.is_dir():
        return
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(store, ignore_errors=True)
    r = run([*KG, "build", str(data), "--validate", "none", "--store", str(store), "-q"], env={"KG_HOME": str(home)})
    if r.returncode != 0:
        raise SystemExit(f"kg build failed ({r.returncode}): {r.stderr[-2000:]}")
    print(f"  built {data.name} in {r.seconds:.1f} s", flush=True)


def timed(args: list[str], home: Path) -> "object":
    r = run([*KG, *args], env={"KG_HOME": str(home)})
    if r.returncode != 0:
        raise SystemExit(f"kg {' '.join(args)} failed ({r.returncode}): {r.stderr[-2000:]}")
    return r


def browser_load(page: Path, blank: Path, repeat: int = 3) -> tuple[float, float] | None:
    from chromium import Chromium, available
    if not available():
        return None
    with Chromium() as b:
        b.open(blank)  # (warm the browser up)
        base = min(b.open(blank) for _ in range(repeat))
        load = min(b.open(page) for _ in range(repeat))
        if b.errors():
            raise SystemExit(f"{page}: the browser reports errors: {b.errors()[:3]}")
    return load, base


def profile(store: Path) -> None:
    """Time each stored query the report runs on ``store`` (in this process), and the page: one query after the
    other (answering ahead, ``ReportSource.prefetch``, is turned off here: each time is the query's own)."""
    import time
    from collections import defaultdict

    from kg.report.data import gather
    from kg.report.page import Page
    from kg.report.source import ReportSource

    spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0, 0])
    query, stats, prefetch = ReportSource.query, ReportSource.stats, ReportSource.prefetch

    def timed_query(self: ReportSource, name: str, params: dict[str, str] | None = None, limit: int | None = None):  # noqa: ANN202
        wall, cpu = time.perf_counter(), time.process_time()
        res = query(self, name, params, limit)
        row = spent[name]
        row[0] += time.perf_counter() - wall
        row[1] += time.process_time() - cpu
        row[2] += 1
        row[3] += len(res.rows)
        return res

    def timed_stats(self: ReportSource, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        wall, cpu = time.perf_counter(), time.process_time()
        out = stats(self, *args, **kwargs)
        row = spent["stats"]
        row[0] += time.perf_counter() - wall
        row[1] += time.process_time() - cpu
        row[2] += 1
        row[3] += 1
        return out

    ReportSource.query, ReportSource.stats = timed_query, timed_stats  # type: ignore[method-assign]
    ReportSource.prefetch = lambda self, calls, workers=None: None  # type: ignore[method-assign,assignment]
    try:
        src = ReportSource(store=store)
        corpus = gather(src)
        wall, cpu = time.perf_counter(), time.process_time()
        Page(corpus, src, None, "").html()
        spent["(the page)"] = [time.perf_counter() - wall, time.process_time() - cpu, 1, 0]
    finally:
        ReportSource.query, ReportSource.stats, ReportSource.prefetch = query, stats, prefetch  # type: ignore[method-assign]
    print(f"  {'query':<40} {'wall s':>7} {'cpu s':>7} {'runs':>5} {'rows':>8}")
    for name, (w, c, n, rows) in sorted(spent.items(), key=lambda kv: -kv[1][0]):
        print(f"  {name:<40} {w:7.1f} {c:7.1f} {n:5d} {rows:8,d}")
    total = [sum(v[i] for v in spent.values()) for i in (0, 1)]
    print(f"  {'total':<40} {total[0]:7.1f} {total[1]:7.1f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--work", type=Path, help="keep corpora and graphs here (default: a temporary folder)")
    ap.add_argument("--no-workspace-above", type=int, default=10**9, metavar="N",
                    help="above N records time only the store source (the in-memory load of a large graph is slow)")
    ap.add_argument("--profile", action="store_true", help="also time each stored query the report runs (store)")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-report-"))
    work.mkdir(parents=True, exist_ok=True)
    data = corpus(work, args.sizes)
    blank = work / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body><p>baseline</p></body></html>\n", encoding="utf-8")
    print(f"{'records':>8} {'source':>9} {'report s':>9} {'query s':>8} {'ratio':>6} {'MB':>6} {'peak MB':>8} "
          f"{'load s':>7} {'blank s':>8}")
    for n in args.sizes:
        home, store = work / f"home-{n}", work / f"store-{n}"
        build(data[n], home, store)
        sources = [("workspace", [])] if n <= args.no_workspace_above else []
        sources.append(("store", ["--store", str(store)]))
        for name, flags in sources:
            out = work / f"report-{n}-{name}.html"
            rep = timed(["report", "-o", str(out), *flags], home)
            base = timed(["query", "tools", "-f", "csv", *flags], home)
            loads = browser_load(out, blank)
            load = f"{loads[0]:7.2f} {loads[1]:8.2f}" if loads else f"{'-':>7} {'-':>8}"
            print(f"{n:>8} {name:>9} {rep.seconds:9.1f} {base.seconds:8.1f} {rep.seconds / base.seconds:6.1f} "
                  f"{out.stat().st_size / 1e6:6.1f} {rep.peak_mb:8.0f} {load}", flush=True)
        if args.profile:
            print(f"  {n} records, the report's queries on the store:")
            profile(store)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

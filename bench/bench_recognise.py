#!/usr/bin/env python3
"""The recogniser's cost against a base commit: ``kg build`` through the CLI on the same synthetic records, with
this checkout's code and with the base commit's (a temporary git worktree), interleaved in one run.

Reports each side's best wall time over the repeats, per reference, and the ratio (target: <= 1.5).

Usage: ``python bench/bench_recognise.py [--base f142832] [--records 1000] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]


def build(code: Path, records: Path, home: Path) -> float:
    """Seconds of one ``kg build`` of ``records`` with the package at ``code``."""
    env = {**os.environ, "PYTHONPATH": str(code), "KG_HOME": str(home)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sys; from kg.cli import main; sys.exit(main())", "build",
                    str(records)], cwd=code, env=env, check=False, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--base", default="f142832", help="the commit to compare with")
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        records = t / "works.jsonl"
        subprocess.run([sys.executable, str(ROOT / "bench" / "synth.py"), str(args.records), str(records)], check=True)
        refs = sum(len(orjson.loads(line).get("reference") or ()) for line in records.read_bytes().splitlines())
        base = t / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            times: dict[str, list[float]] = {"base": [], "this": []}
            for i in range(args.repeats):
                for side, code in (("base", base), ("this", ROOT)) if i % 2 == 0 else (("this", ROOT), ("base", base)):
                    times[side].append(build(code, records, t / f"home-{side}"))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    b, h = min(times["base"]), min(times["this"])
    print(f"{args.records} records, {refs} references; best of {args.repeats}:")
    print(f"  base {args.base}: {b:.2f} s ({b / refs * 1e6:.0f} us per reference)")
    print(f"  this checkout: {h:.2f} s ({h / refs * 1e6:.0f} us per reference)")
    print(f"  ratio {h / b:.2f} (target <= 1.5)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

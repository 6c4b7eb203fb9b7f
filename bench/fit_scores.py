#!/usr/bin/env python3
"""Fit kg/data/calibration.json: the probability that a tool recognition is right, per recognition method, as a
step function of the recogniser's raw evidence score (isotonic: pooled adjacent violators, each raw score's
share of right recognitions shrunk toward the method's with two pseudo-counts).

Fitted on the public labelled sets only: the seeds, the shared samples and the development set's tuning half
(never the held-out half). Methods with fewer than MIN_POINTS recognitions share the steps fitted on all.

Usage: ``python bench/fit_scores.py [--threshold 0.5]`` (runs bench/eval_refs.py --fit on those sets).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
MIN_POINTS = 8
PRIOR = 2.0


def isotonic(points: list[tuple[float, bool]]) -> list[list[float]]:
    """[[raw score from, probability], ...] non-decreasing in the raw score."""
    rate = sum(ok for _s, ok in points) / len(points)
    by: dict[float, list[bool]] = defaultdict(list)
    for s, ok in points:
        by[round(s, 2)].append(ok)
    blocks = [[s, (sum(v) + PRIOR * rate) / (len(v) + PRIOR), len(v) + PRIOR] for s, v in sorted(by.items())]
    merged: list[list[float]] = []
    for b in blocks:
        merged.append(b)
        while len(merged) > 1 and merged[-2][1] > merged[-1][1]:
            (s1, p1, w1), (_s2, p2, w2) = merged[-2], merged[-1]
            merged[-2:] = [[s1, (p1 * w1 + p2 * w2) / (w1 + w2), w1 + w2]]
    return [[0.0 if i == 0 else s, round(min(0.99, max(0.02, p)), 2)] for i, (s, p, _w) in enumerate(merged)]


def render(doc: dict) -> str:
    """The calibration as JSON with one method's steps a line."""
    def one(v: object) -> str:
        return orjson.dumps(v).decode()
    methods = ",\n".join(f"    {one(m)}: {one(v)}" for m, v in doc["methods"].items())
    return (f'{{\n  "about": {one(doc["about"])},\n  "threshold": {one(doc["threshold"])},\n'
            f'  "fitted_on": {one(doc["fitted_on"])},\n  "methods": {{\n{methods}\n  }},\n'
            f'  "default": {one(doc["default"])}\n}}\n')


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--threshold", type=float, default=0.7, help="the probability from which software is a tool")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "fit.jsonl"
        subprocess.run([sys.executable, str(ROOT / "bench" / "eval_refs.py"), "--set", "seeds", "--set", "samples",
                        "--set", "tune", "--fit", str(out)], check=True, stdout=subprocess.DEVNULL)
        rows = [orjson.loads(x) for x in out.read_bytes().splitlines() if x.strip()]
    per: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for r in rows:
        per[r["method"]].append((r["score"], r["right"]))
    everything = [p for v in per.values() for p in v]
    doc = {
        "about": "Calibration of tool recognitions, fitted by bench/fit_scores.py on the seeds, the shared samples "
                 "and the development set's tuning half: per recognition method, steps [raw evidence score from, "
                 "probability that the recognition is right]; 'default' for methods with fewer than "
                 f"{MIN_POINTS} labelled recognitions. Software from 'threshold' on is a tool, below it a tool "
                 "candidate.",
        "threshold": args.threshold,
        "fitted_on": {m: len(v) for m, v in sorted(per.items())},
        "methods": {m: isotonic(v) for m, v in sorted(per.items()) if len(v) >= MIN_POINTS},
        "default": isotonic(everything),
    }
    text = render(doc)
    (ROOT / "kg" / "data" / "calibration.json").write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

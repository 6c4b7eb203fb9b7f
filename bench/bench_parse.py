"""The reference parser's cost: references per second of the rule parser and of the combined parser (rules + CRF).

Parses every free-text reference of the seeds (and of the shared samples when present) with each parser in
turn, in one run, and prints references per second and microseconds per reference; then the cost of one long
text against its length (linear: twice the text, about twice the time).

    python bench/bench_parse.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.refs import crf  # noqa: E402
from kg.refs.parse import parse_text, rule_parse  # noqa: E402


def texts() -> list[str]:
    """The unstructured texts of the seeds' and the shared samples' references, in file order."""
    out = []
    folders = [ROOT / "seeds", ROOT.parent / "shared" / "crossref-samples"]
    for folder in folders:
        for path in sorted(folder.glob("*")) if folder.is_dir() else []:
            if path.suffix not in (".txt", ".json", ".jsonl"):
                continue
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                msg = rec.get("message", rec) if isinstance(rec, dict) else {}
                items = msg.get("items", [msg]) if isinstance(msg, dict) else []
                for item in items:
                    for ref in item.get("reference", []) if isinstance(item, dict) else []:
                        if ref.get("unstructured"):
                            out.append(ref["unstructured"])
    return out


def rate(parse: object, data: list[str], repeat: int) -> float:
    """References per second (best of ``repeat`` runs)."""
    assert callable(parse)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for t in data:
            parse(t)
        best = min(best, time.perf_counter() - t0)
    return len(data) / best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = texts()
    crf.label("warm up")  # open the model once, outside the timing
    print(f"{len(data)} free-text references (seeds and shared samples)")
    for name, parse in (("rules", rule_parse), ("combined", parse_text)):
        r = rate(parse, data, args.repeat)
        print(f"{name:9} {r:9.0f} references/s  {1e6 / r:8.0f} µs/reference")
    base = "Smith J, Doe A (2019) Sampling profilers revisited. Softw Pract Exp 49:1-20. "
    for k in (10, 20, 40):
        t0 = time.perf_counter()
        parse_text(base * k)
        print(f"one text of {len(base) * k:6} characters: {1e3 * (time.perf_counter() - t0):7.1f} ms (combined)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

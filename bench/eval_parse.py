"""The reference parser against the devset's hand-made parse labels: rules, CRF and combined, per style.

For every labelled free-text reference of tests/data/devset (parse/*.jsonl) of one half of split.tsv, the text
is parsed three ways (the rule parser alone, the CRF alone, the combined parser kg uses) and compared with the
labels: title exact after folding case and punctuation, the first author's family name, the year, and all
authors' family names in order (each over the references whose label gives it).

    python bench/eval_parse.py                 # the tuning half
    python bench/eval_parse.py --errors title  # also list the combined parser's wrong titles
    python bench/eval_parse.py --half held-out # the held-out half: ONCE, with the final model
    python bench/eval_parse.py --parts styles,styles2   # only some parts of the devset
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.refs import crf  # noqa: E402
from kg.refs.fields import Name, family_name, fields  # noqa: E402
from kg.refs.parse import clean_text, fold, parse_text, rule_parse  # noqa: E402

DEVSET = ROOT / "tests" / "data" / "devset"
METRICS = ("title", "first", "year", "all")
Parsed = tuple[str | None, list[str], str | None]  # title, family names in order, year


def _families(names: tuple[Name, ...]) -> list[str]:
    return [n.family for n in names]


def _rules(text: str) -> Parsed:
    p = rule_parse(text)
    return p.title, [family_name(a) or a for a in p.authors], p.year


def _crf(text: str) -> Parsed:
    f = fields(clean_text(text))
    return f.title, _families(f.authors), f.year


def _combined(text: str) -> Parsed:
    p = parse_text(text)
    return p.title, [family_name(a) or a for a in p.authors], p.year


PARSERS: dict[str, Callable[[str], Parsed]] = {"rules": _rules, "crf": _crf, "combined": _combined}


def _key(s: str | None) -> str:
    return fold(s or "").replace(" ", "")


def labelled(half: str, parts: set[str] | None = None) -> list[tuple[str, dict[str, object]]]:
    """(text, label) of every parse label of the records of one half (of the given parts of the devset: all)."""
    with open(DEVSET / "split.tsv", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t")
                if r["half"] == half and (parts is None or r["part"] in parts)]
    out = []
    for row in sorted(rows, key=lambda r: (r["part"], r["stem"])):
        path = DEVSET / row["part"] / "parse" / f"{row['stem']}.jsonl"
        if not path.exists():
            continue
        rec = json.loads((DEVSET / row["part"] / "records" / f"{row['stem']}.json").read_text(encoding="utf-8"))
        texts = {r.get("key"): r.get("unstructured") for r in rec.get("message", rec).get("reference", [])}
        for line in path.read_text(encoding="utf-8").splitlines():
            lab = json.loads(line)
            if texts.get(lab["key"]):
                out.append((str(texts[lab["key"]]), lab))
    return out


def score(parsed: Parsed, lab: dict[str, object]) -> dict[str, bool]:
    """Which metrics the parse gets right (only those the label gives)."""
    title, fams, year = parsed
    out = {}
    if lab.get("title"):
        out["title"] = _key(title) == _key(str(lab["title"]))
    authors = lab.get("authors") or []
    assert isinstance(authors, list)
    if authors:
        want = [_key(a[0]) for a in authors]
        got = [_key(f) for f in fams]
        out["first"] = bool(got) and got[0] == want[0]
        out["all"] = got == want
    if lab.get("year"):
        out["year"] = year == lab["year"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", default="tune", choices=("tune", "held-out"))
    ap.add_argument("--model", help="a CRF model file other than kg/data/parser.crfsuite")
    ap.add_argument("--errors", choices=METRICS, help="list the combined parser's misses of this metric")
    ap.add_argument("--parts", help="only these parts of the devset, comma-separated (e.g. styles,styles2)")
    args = ap.parse_args()
    if args.model:
        crf.load(args.model)
    data = labelled(args.half, set(args.parts.split(",")) if args.parts else None)
    # tally[parser][style][metric] = [right, total]
    tally: dict[str, dict[str, dict[str, list[int]]]] = {
        p: defaultdict(lambda: {m: [0, 0] for m in METRICS}) for p in PARSERS}
    for text, lab in data:
        for pname, parse in PARSERS.items():
            parsed = parse(text)
            for m, ok in score(parsed, lab).items():
                for style in (str(lab["style"]), "ALL"):
                    tally[pname][style][m][0] += ok
                    tally[pname][style][m][1] += 1
                if args.errors == m and not ok and pname == "combined":
                    print(f"  {m}: {parsed!r}\n    want {lab.get('title')!r} {lab.get('authors')} "
                          f"{lab.get('year')}\n    text {clean_text(text)}")
    print(f"devset half {args.half}: {len(data)} labelled references")
    print(f"{'style':14} {'n':>4}  " + "  ".join(f"{m:>17}" for m in METRICS))
    print(f"{'':14} {'':>4}  " + "  ".join(f"{'rules  crf  comb':>17}" for _ in METRICS))
    styles = sorted(tally["rules"], key=lambda s: (s == "ALL", s))
    for style in styles:
        n = max(v[1] for v in tally["rules"][style].values())
        cells = []
        for m in METRICS:
            vals = []
            for p in PARSERS:
                right, total = tally[p][style][m]
                vals.append(f"{right / total:.2f}" if total else "  - ")
            cells.append(" ".join(vals).rjust(17))
        print(f"{style:14} {n:>4}  " + "  ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A fuzz corpus: real records (seeds/ and the real samples of tests/data/samples/) mutated and built in batches.

Mutations: dropped keys, swapped types, nulls, odd Unicode, huge strings, deep nesting, bad IRIs, dates and
digits, duplicated DOIs. Every batch (a JSON Lines file of mutated records plus two good real records) is built
by ``kg build`` with validation of the whole graph and an export; each must exit 0, 1 or 2 with no traceback,
keep both good records, and write an export that Oxigraph reads and that holds exactly the workspace graph's
triples. A fixed seed makes the corpus the same on every run; CI builds a few batches (about a minute), --runslow
many more.

Nesting deeper than the recursion limit is rejected at read time by the depth limit of kg/ingest/read.py
(``MAX_DEPTH``); until the reader has it, those cases are skipped, not weakened.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

import pyoxigraph
import pytest
from click.testing import CliRunner
from conftest import SAMPLES, SEEDS

import kg.ingest.read
from kg.cli import main

SEED = 22  # fixed: the same corpus on every run
FORMATS = [("turtle", "ttl", pyoxigraph.RdfFormat.TURTLE), ("json-ld", "jsonld", pyoxigraph.RdfFormat.JSON_LD),
           ("nt", "nt", pyoxigraph.RdfFormat.N_TRIPLES), ("nquads", "nq", pyoxigraph.RdfFormat.N_QUADS),
           ("trig", "trig", pyoxigraph.RdfFormat.TRIG), ("xml", "rdf", pyoxigraph.RdfFormat.RDF_XML)]
GOOD_NAMES = ("standard_2640440.json", "thesis_uql.2020.791.json", "component_journal.pmed.0030277.g001.json",
              "refentry_ww_9780199540884.013.u52741.json")
DEPTH_LIMIT = getattr(kg.ingest.read, "MAX_DEPTH", None)  # part of the reader (issue 22, read-time depth limit)


def real_records() -> list[dict[str, Any]]:
    out = []
    for path in sorted(SEEDS.glob("*.txt")) + sorted(SAMPLES.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        out.append(doc.get("message", doc))
    return out


RECORDS = real_records()
GOOD = {name: json.loads((SAMPLES / name).read_text(encoding="utf-8"))["message"] for name in GOOD_NAMES}

ODD = ["", " ", "\u0000", "\u200b\u200e\u202e", "\ufeff", "\uffff", "e\u0301", "\U0001F600", "٣٤٥", "²³",
       "<script>", '"quoted"\\', "\n\r\t", "\u2028\u2029", "Ω≈ç√", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "a\x7fb", "\u00a0", "\ud800", "x\udfffy"]
BAD_IRIS = ["http://exa mple.org/<a>", "javascript:alert(1)", "rdf:type", "fabio:JournalArticle", "://", "http://",
            "https://[::1", "urn:", "http://example.org/" + "%" * 10, "file:///etc/passwd", "_:b0", "mailto:"]
BAD_DATES = [{"date-parts": [[2024, 2, 30]]}, {"date-parts": [["²", 1]]}, {"date-parts": [["9" * 5000]]},
             {"date-parts": [[0]]}, {"date-parts": [[None]]}, {"date-parts": "2024"}, {"date-parts": [[]]},
             {"date-parts": [[2024, 13]]}, {"date-time": "2024-02-30T25:61:61Z", "date-parts": [[2024]]},
             {"date-time": "٢٠٢٤-01-01T00:00:00Z"}, {"date-parts": [[-5, 1, 1]]}, {"date-parts": [[2024.5]]}]
BAD_DIGITS = ["²", "٥", "9" * 5000, "-1", "1e9", "0x10", "١٢٣٤-٥٦٧٨", "97812345678901", "", "12 34"]


def nest(depth: int) -> Any:
    value: Any = "deep"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def all_paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    out: list[tuple] = []
    if len(prefix) > 40:  # (a nested value planted by "deep" is mutated as a whole, not walked into)
        return out
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(prefix + (k,))
            out.extend(all_paths(v, prefix + (k,)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:20]):
            out.append(prefix + (i,))
            out.extend(all_paths(v, prefix + (i,)))
    return out


def parent_of(obj: Any, path: tuple) -> Any:
    for step in path[:-1]:
        obj = obj[step]
    return obj


def mutate(rng: random.Random, raw: dict[str, Any], depth_ok: int) -> None:
    """1-8 random mutations anywhere in the record."""
    for _ in range(rng.randint(1, 8)):
        paths = all_paths(raw)
        if not paths:
            return
        top = [p for p in paths if len(p) == 1]
        path = rng.choice(top if top and rng.random() < 0.5 else paths)
        parent = parent_of(raw, path)
        key = path[-1]
        if path == ("DOI",) and rng.random() < 0.8:
            continue  # keep most DOIs (the batch's good records must stay apart from the fuzzed ones)
        old = parent[key]
        op = rng.choice(["drop", "swap", "null", "odd", "huge", "deep", "iri", "date", "digits", "insert"])
        if op == "drop":
            del parent[key]
        elif op == "swap":
            parent[key] = rng.choice([[old], {"value": old}, str(old)[:50], 17, -3.5, True, [], {}])
        elif op == "null":
            parent[key] = None
        elif op == "odd":
            parent[key] = rng.choice(ODD)
        elif op == "huge":
            parent[key] = rng.choice(["x" * 200_000, "é" * 50_000, "word " * 40_000, ["a"] * 5_000])
        elif op == "deep":
            parent[key] = nest(rng.randint(10, depth_ok))
        elif op == "iri":
            parent[key] = rng.choice(BAD_IRIS)
        elif op == "date":
            parent[key] = copy.deepcopy(rng.choice(BAD_DATES))
        elif op == "digits":
            parent[key] = rng.choice(BAD_DIGITS)
        else:
            text = old if isinstance(old, str) else json.dumps(old)[:200]
            at = rng.randint(0, len(text))
            parent[key] = text[:at] + rng.choice(ODD + BAD_DIGITS[:3]) + text[at:]


def batch(rng: random.Random, n: int, number: int, depth_ok: int) -> tuple[list[Any], list[str]]:
    """``n`` mutated records (some sharing a DOI) and two good records, shuffled; the good records' DOIs."""
    items: list[Any] = []
    for i in range(n):
        raw = copy.deepcopy(rng.choice(RECORDS))
        raw["DOI"] = f"10.5555/fuzz.{number}.{i if rng.random() < 0.8 else 0}"  # duplicated DOIs now and then
        mutate(rng, raw, depth_ok)
        items.append(raw)
    good_names = rng.sample(GOOD_NAMES, 2)
    items += [copy.deepcopy(GOOD[name]) for name in good_names]
    rng.shuffle(items)
    return items, [GOOD[name]["DOI"] for name in good_names]


def run_batch(tmp_path: Path, number: int, n: int, depth_ok: int) -> None:
    rng = random.Random(f"{SEED}/{number}")
    items, good = batch(rng, n, number, depth_ok)
    folder = tmp_path / f"batch{number}"
    folder.mkdir()
    lines = []
    for item in items:
        try:
            lines.append(json.dumps(item, ensure_ascii=rng.random() < 0.5))
        except (ValueError, RecursionError):  # pragma: no cover - the corpus keeps nesting below the limit
            raise AssertionError("the corpus made a record json cannot write") from None
    (folder / "batch.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    fmt, ext, ox_fmt = FORMATS[number % len(FORMATS)]
    home = folder / "ws"
    out = folder / f"out.{ext}"
    r = CliRunner().invoke(main, ["build", str(folder / "batch.jsonl"), "-o", str(out), "-j", "1"],
                           env={"KG_HOME": str(home)}, prog_name="kg")
    assert r.exception is None or isinstance(r.exception, SystemExit), f"batch {number}: {r.exception!r}"
    assert "Traceback" not in r.output, f"batch {number}: {r.output[-2000:]}"
    assert r.exit_code in (0, 1, 2), f"batch {number}: exit {r.exit_code}: {r.stderr.splitlines()[-3:]}"
    for line in r.stderr.splitlines():
        assert line.startswith(("warning: ", "skipped: ", "note: ", "built ", "validation: ")), \
            f"batch {number}: not a one-line message: {line[:300]!r}"
    quads = {q for q in (home / "graph.nq").read_text(encoding="utf-8").splitlines() if q}
    triples = {q.rsplit(" ", 2)[0] + " ." for q in quads}
    for doi in good:
        assert f"<https://doi.org/{doi.lower()}> <http://prismstandard.org/namespaces/basic/2.0/doi> \"{doi}\" ." \
            in triples, f"batch {number}: good record {doi} lost"
    parsed = set()
    for q in pyoxigraph.parse(out.read_bytes(), format=ox_fmt):
        if fmt in ("nquads", "trig"):
            parsed.add(f"{q.subject} {q.predicate} {q.object} {q.graph_name} .")
        else:
            parsed.add(f"{q.subject} {q.predicate} {q.object} .")
    # (both sides in the same term syntax: Oxigraph's, which escapes a tab where kg's canonical lines keep it)
    graph = list(pyoxigraph.parse((home / "graph.nq").read_bytes(), format=pyoxigraph.RdfFormat.N_QUADS))
    if fmt in ("nquads", "trig"):
        want = {f"{q.subject} {q.predicate} {q.object} {q.graph_name} ." for q in graph}
    else:
        want = {f"{q.subject} {q.predicate} {q.object} ." for q in graph}
    assert parsed == want, (f"batch {number} ({fmt}): export differs from the graph",
                            sorted(parsed - want)[:3], sorted(want - parsed)[:3])


@pytest.mark.parametrize("number", range(6))
def test_fuzz_batches(tmp_path: Path, number: int) -> None:
    run_batch(tmp_path, number, 14, depth_ok=120)


@pytest.mark.slow
@pytest.mark.parametrize("number", range(6, 66))
def test_fuzz_batches_slow(tmp_path: Path, number: int) -> None:
    run_batch(tmp_path, number, 30, depth_ok=120)


@pytest.mark.skipif(DEPTH_LIMIT is None,
                    reason="needs the read-time depth limit (kg/ingest/read.py MAX_DEPTH, issue 22)")
@pytest.mark.parametrize("number", range(100, 103))
def test_fuzz_batches_deeper_than_the_recursion_limit(tmp_path: Path, number: int) -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # (for the test's own json.dumps of the corpus, not for kg)
    try:
        run_batch(tmp_path, number, 14, depth_ok=2_000)
    finally:
        sys.setrecursionlimit(limit)

#!/usr/bin/env python3
"""Compare what the graph knows with the hand-made labels, each labelled set reported on its own.

The sets: the seeds (``seeds/``, labels ``tests/data/labels/*.tsv``), the real samples (``tests/data/samples/``,
labels ``tests/data/labels/samples/``), and the two halves of the development set (``tests/data/devset/``, split
by record in ``split.tsv``): ``tune`` and ``held-out``. The held-out half is measured only with ``--held-out``
(once, with the final code). For each set:

- tools named in the text: precision and recall (a reference counts once per tool its label or the graph gives
  it; a labelled tool whose name is not in the reference's text neither counts for recall nor against
  precision when the graph finds it);
- DOI-only references labelled with a tool the catalogue knows: recall;
- tool names that are a person of the reference's author list, its venue or a URL word ("URL", "Available",
  ...): wrong recognitions of that sort, counted (the target is 0);
- kind accuracy: the ``references`` query's kind (tool, model, benchmark, algorithm, dataset, paper, web,
  other) against the label;
- same-work pairs (seeds and samples, whose labels give the cited work);
- the primary topic: exact, in the label's family (the label's concept one level under a top concept, or the
  label itself at the top), or one of the acceptable topics;
- a reliability table: each tool recognition (tool or tool candidate) by its score, binned, against the share
  that are right, with the expected calibration error (ECE) and a bootstrap 95 % interval; pooled over the
  sets measured at the end;
- for the seeds, the headline answer (tools cited by a paper whose primary topic is in the
  performance-analysis family and by another whose primary topic is in the compilers family).

Usage: ``python bench/eval_refs.py [--show-errors] [--set seeds|samples|tune] [--held-out] [--fit FILE]``.
``--fit FILE`` writes the (method, evidence) -> right/all counts of the recognitions in the sets measured,
for ``bench/fit_scores.py``.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import orjson
import pyoxigraph as ox

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.map.context import Context  # noqa: E402
from kg.pipeline.memory import build_graph  # noqa: E402
from kg.refs.parse import fold  # noqa: E402
from kg.refs.tools import Catalogue  # noqa: E402

LABELS = ROOT / "tests" / "data" / "labels"
DEVSET = ROOT / "tests" / "data" / "devset"
SIDES = ("performance-analysis", "compilers")
URL_WORDS = frozenset("url urls available online accessed retrieved doi http https www html pdf link web website "
                      "internet cited".split())
KINDS = ("tool", "model", "benchmark", "algorithm", "dataset", "paper", "web", "other")


SAMPLES = ROOT / "tests" / "data" / "samples"  # the real samples, copied into the repository

QUERY = """
PREFIX kg: <https://w3id.org/crossref-kg/ontology#>
PREFIX prism: <http://prismstandard.org/namespaces/basic/2.0/>
PREFIX frbr: <http://purl.org/vocab/frbr/core#>
PREFIX biro: <http://purl.org/spar/biro/>
SELECT ?doi ?key ?cited ?kind ?style ?ref WHERE {
  ?work prism:doi ?doi ; frbr:part ?ref .
  ?ref kg:referenceKey ?key ; biro:references ?cited .
  OPTIONAL { ?ref kg:referenceKind ?kind }
  OPTIONAL { ?ref kg:referenceStyle ?style }
}
"""
RECOGNITIONS = """
PREFIX kg: <https://w3id.org/crossref-kg/ontology#>
PREFIX schema: <https://schema.org/>
SELECT ?ref ?t ?name ?score ?method ?cand ?author ?venue WHERE {
  ?ref kg:hasToolRecognition ?ev . ?ev kg:recognizedTool ?t ; kg:score ?score ; kg:method ?method .
  OPTIONAL { ?t schema:name ?name }
  OPTIONAL { ?ref kg:suggestsTool ?t BIND (true AS ?cand) }
}
"""
PARSED = """
PREFIX kg: <https://w3id.org/crossref-kg/ontology#>
SELECT ?ref ?author ?venue WHERE {
  { ?ref kg:parsedAuthor ?author } UNION { ?ref kg:parsedVenue ?venue }
}
"""
TOPIC_QUERY = """
PREFIX prism: <http://prismstandard.org/namespaces/basic/2.0/>
PREFIX kg: <https://w3id.org/crossref-kg/ontology#>
SELECT ?doi ?topic ?tied WHERE {
  ?w prism:doi ?doi ; kg:hasTopicAssignment ?a . ?a kg:topic ?topic .
  { ?a kg:isPrimary true } UNION { ?a kg:tiedWithPrimary true BIND (true AS ?tied) }
}
"""
BROADER_QUERY = """
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?c ?b WHERE { ?c skos:broader+ ?b . }
"""


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", fold(name))


class Names:
    """Tool names compared through the catalogue: any alias of a catalogue tool is that tool."""

    def __init__(self) -> None:
        self.alias: dict[str, str] = {}
        self.known: set[str] = set()
        for t in Catalogue.load().tools.values():
            if t.kind != "tool":
                continue
            for a in (t.id, t.name, *t.aliases):
                self.alias.setdefault(slug(a), t.id)
            self.known.add(t.id)

    def __call__(self, name: str) -> str:
        return self.alias.get(slug(name), slug(name))


@dataclass
class Labelled:
    """One labelled set: its input files, per (citing DOI, key) the label and the raw reference, topics."""

    name: str
    inputs: list[str]
    labels: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    raw: dict[tuple[str, str], dict] = field(default_factory=dict)
    parsed: dict[tuple[str, str], dict] = field(default_factory=dict)  # parse labels (devset)
    topics: dict[str, tuple[str, set[str]]] = field(default_factory=dict)
    top_level: set[str] | None = None
    entities: bool = False  # labels give the cited work (same-work pairs)
    named_column: bool = False  # labels say whether the tool's name is in the text


def messages(path: Path) -> Iterator[dict]:
    """The work records of a file: a /works/{doi} response, a bare message, or a list response's items."""
    doc = orjson.loads(path.read_bytes())
    msg = doc.get("message", doc) if isinstance(doc, dict) else {}
    if isinstance(msg, dict) and isinstance(msg.get("items"), list):
        yield from (m for m in msg["items"] if isinstance(m, dict))
    elif isinstance(msg, dict):
        yield msg


def raw_refs(paths: list[Path]) -> dict[tuple[str, str], dict]:
    out = {}
    for p in paths:
        for m in messages(p):
            doi = str(m.get("DOI", "")).lower()
            for r in m.get("reference") or ():
                if isinstance(r, dict) and r.get("key"):
                    out[(doi, r["key"])] = r
    return out


def topic_labels(path: Path, dois: set[str] | None = None) -> dict[str, tuple[str, set[str]]]:
    out = {}
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if dois is not None and row["doi"].lower() not in dois:
                continue
            acceptable = row.get("acceptable") or ""
            out[row["doi"].lower()] = (row["primary"], {a.strip() for a in acceptable.split(",") if a.strip()})
    return out


def seeds_set() -> Labelled:
    s = Labelled("seeds", [str(ROOT / "seeds")], entities=True)
    files = []
    for tsv in sorted(LABELS.glob("*.tsv")):
        if tsv.stem == "topics":
            continue
        files.append(ROOT / "seeds" / f"{tsv.stem}.txt")
        doi = orjson.loads(files[-1].read_bytes())["message"]["DOI"]
        with tsv.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                s.labels[(doi.lower(), row["key"])] = row
    s.raw = raw_refs(files)
    s.topics = topic_labels(LABELS / "topics.tsv")
    return s


def samples_set() -> Labelled:
    s = Labelled("samples", [str(SAMPLES)], entities=True)
    for tsv in sorted((LABELS / "samples").glob("*.tsv")):
        if tsv.stem == "topics":
            continue
        record = SAMPLES / f"{tsv.stem}.json"
        doi = None
        if record.exists():
            doc = orjson.loads(record.read_bytes())
            doi = (doc.get("message", doc))["DOI"].lower()
        with tsv.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                s.labels[((row.get("doi") or doi or "").lower(), row["key"])] = row
    s.raw = raw_refs(sorted(SAMPLES.rglob("*.json")))
    s.topics = topic_labels(LABELS / "samples" / "topics.tsv")
    s.top_level = {(orjson.loads(f.read_bytes()).get("message") or {}).get("DOI", "").lower()
                   for f in sorted(SAMPLES.glob("*.json"))}
    return s


def devset_set(half: str) -> Labelled:
    """The development set's records of one half (``tune`` or ``held-out``), from split.tsv."""
    s = Labelled(f"devset {half}", [], named_column=True)
    with (DEVSET / "split.tsv").open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["half"] == half]
    for r in rows:
        part = DEVSET / r["part"]
        record = part / "records" / f"{r['stem']}.json"
        s.inputs.append(str(record))
        doi = next(messages(record))["DOI"].lower()
        with (part / "labels" / f"{r['stem']}.tsv").open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                s.labels[(doi, row["key"])] = row
        parse = part / "parse" / f"{r['stem']}.jsonl"
        if parse.exists():
            for line in parse.read_bytes().splitlines():
                if line.strip():
                    p = orjson.loads(line)
                    s.parsed[(doi, p["key"])] = p
        s.raw.update(raw_refs([record]))
    dois = {d for d, _k in s.labels}
    for part in sorted({r["part"] for r in rows}):
        s.topics.update(topic_labels(DEVSET / part / "topics.tsv", dois))
    return s


def pairs(groups: dict[str, set[tuple[str, str]]]) -> set[frozenset]:
    return {frozenset(p) for members in groups.values() for p in combinations(sorted(members), 2)}


def prf(tp: int, fp: int, fn: int) -> tuple[float, float]:
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


def doi_only(raw: dict | None, style: str) -> bool:
    """A reference that gives a DOI and no text to read a name from."""
    if raw is None:
        return style == "doi-only"
    return bool(raw.get("DOI")) and not any(raw.get(f) for f in (
        "unstructured", "article-title", "volume-title", "series-title", "journal-title"))


def truth_of(row: dict[str, str], canon: Names) -> set[str]:
    if row["kind"] != "tool" or not row.get("tool"):
        return set()
    return {canon(row["tool"])}


def alt_of(row: dict[str, str], canon: Names) -> set[str]:
    return {canon(x) for x in (row.get("tool", ""), *(row.get("tool_alt") or "").split("|")) if x.strip()}


def bad_name(name: str, raw: dict | None, parse_label: dict | None, parsed: dict[str, set[str]]) -> str:
    """Why a tool name is a person of the reference's authors, its venue or a URL word, or ''."""
    f = fold(name)
    if not f:
        return ""
    if f in URL_WORDS:
        return "url-word"
    people: set[str] = set(parsed.get("authors", set()))
    venues: set[str] = set(parsed.get("venues", set()))
    if raw:
        people |= {raw.get("author") or ""}
        venues |= {raw.get("journal-title") or ""}
    if parse_label:
        people |= {" ".join(a for a in au if a) for au in parse_label.get("authors") or () if isinstance(au, list)}
        people |= {au[0] for au in parse_label.get("authors") or () if isinstance(au, list) and au and au[0]}
        venues |= {parse_label.get("venue") or ""}
    for p in people:
        fp = fold(p)
        if fp and (f == fp or f in fp.split() and len(f) > 2):
            return "person"
    for v in venues:
        if fold(v) and f == fold(v):
            return "venue"
    return ""


def reliability(points: list[tuple[float, bool]], bins: int = 10, boot: int = 1000) -> tuple[list, float, tuple]:
    """(rows of bin, n, mean score, share right), the ECE and its bootstrap 95 % interval."""
    def ece(pts: list[tuple[float, bool]]) -> float:
        by: dict[int, list[tuple[float, bool]]] = defaultdict(list)
        for s, ok in pts:
            by[min(int(s * bins), bins - 1)].append((s, ok))
        n = len(pts) or 1
        return sum(abs(sum(s for s, _ in v) / len(v) - sum(ok for _, ok in v) / len(v)) * len(v) / n
                   for v in by.values())
    rows = []
    by: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for s, ok in points:
        by[min(int(s * bins), bins - 1)].append((s, ok))
    for b in sorted(by):
        v = by[b]
        rows.append((f"{b / bins:.1f}-{(b + 1) / bins:.1f}", len(v), sum(s for s, _ in v) / len(v),
                     sum(ok for _, ok in v) / len(v)))
    rng = random.Random(44)
    draws = sorted(ece([points[rng.randrange(len(points))] for _ in points]) for _ in range(boot)) if points else [0.0]
    return rows, ece(points), (draws[int(0.025 * len(draws))], draws[min(len(draws) - 1, int(0.975 * len(draws)))])


def print_reliability(title: str, points: list[tuple[float, bool]]) -> float:
    rows, e, (lo, hi) = reliability(points)
    print(f"reliability ({title}): {len(points)} recognitions; ECE {e:.3f} (95 % bootstrap {lo:.3f}-{hi:.3f})")
    print("  score bin  n     mean score  share right")
    for b, n, m, r in rows:
        print(f"  {b:9}  {n:<5} {m:.3f}       {r:.3f}")
    return e


def evaluate(s: Labelled, show: bool, fit: list | None = None) -> tuple[dict[str, float], list]:  # noqa: C901
    """Build the set's graph and compare it with the labels; print and return the figures and the
    (score, right) points of its tool recognitions."""
    result = build_graph(s.inputs, Context.create())
    store = ox.Store()
    store.bulk_load("".join(result.lines).encode("utf-8"), format=ox.RdfFormat.N_QUADS)
    got: dict[tuple[str, str], dict] = {}
    ref_key: dict[str, tuple[str, str]] = {}
    for sol in store.query(QUERY, use_default_graph_as_union=True):
        k = (sol["doi"].value.lower(), sol["key"].value)
        ref_key[sol["ref"].value] = k
        got.setdefault(k, {"cited": sol["cited"].value, "kind": sol["kind"].value if sol["kind"] else "",
                           "style": sol["style"].value if sol["style"] else "", "tools": {}, "cands": {},
                           "authors": set(), "venues": set()})
    for sol in store.query(PARSED, use_default_graph_as_union=True):
        k = ref_key.get(sol["ref"].value)
        if k in got:
            if sol["author"]:
                got[k]["authors"].add(sol["author"].value)
            if sol["venue"]:
                got[k]["venues"].add(sol["venue"].value)
    for sol in store.query(RECOGNITIONS, use_default_graph_as_union=True):
        k = ref_key.get(sol["ref"].value)
        if k not in got:
            continue
        name = sol["name"].value if sol["name"] else sol["t"].value.rsplit("/", 1)[-1]
        rec = (float(sol["score"].value), sol["method"].value)
        (got[k]["cands"] if sol["cand"] else got[k]["tools"])[name] = rec
    canon = Names()
    labels = s.labels
    missing = sorted(set(labels) - set(got))
    print(f"== {s.name}: {len(labels)} references labelled, {len(labels) - len(missing)} found in the graph")
    figures: dict[str, float] = {}
    text_truth, text_graph, neutral, doi_truth, doi_graph = set(), set(), set(), set(), set()
    bad: list[tuple] = []
    points: list[tuple[float, bool]] = []
    kind_ok = kind_n = 0
    confusion: Counter[tuple[str, str]] = Counter()
    for k, row in labels.items():
        g = got.get(k)
        if g is None:
            continue
        truth, alts = truth_of(row, canon), alt_of(row, canon) if row["kind"] == "tool" else set()
        mine = {(alts and canon(t) in alts and next(iter(truth))) or canon(t) for t in g["tools"]}
        for t, (score, method) in [*g["tools"].items(), *g["cands"].items()]:
            ok = bool(alts) and canon(t) in alts
            points.append((score, ok))
            if fit is not None:
                fit.append((method, score, ok, t in g["cands"]))
        for t in g["tools"]:
            if not (alts and canon(t) in alts) and (why := bad_name(t, s.raw.get(k), s.parsed.get(k), {
                    "authors": g["authors"], "venues": g["venues"]})):
                bad.append((k, t, why))
        if doi_only(s.raw.get(k) if s.named_column else None, g["style"]):
            if s.named_column:
                truth = {t for t in truth if t in canon.known}
            doi_truth |= {(k, t) for t in truth}
            doi_graph |= {(k, t) for t in mine if t in truth}
        else:
            named = not s.named_column or row.get("named", "yes") == "yes"
            if named:
                text_truth |= {(k, t) for t in truth}
            else:
                neutral |= {(k, t) for t in truth}
            text_graph |= {(k, t) for t in mine}
        want = row["kind"] if row["kind"] in KINDS else "paper"
        kind_n += 1
        kind_ok += g["kind"] == want
        if g["kind"] != want:
            confusion[(want, g["kind"])] += 1
    text_graph -= neutral
    tp, fp, fn = len(text_truth & text_graph), len(text_graph - text_truth), len(text_truth - text_graph)
    p, r = prf(tp, fp, fn)
    figures.update(tool_precision=p, tool_recall=r)
    print(f"tools named in the text: precision {p:.3f}  recall {r:.3f}  (tp {tp}, fp {fp}, fn {fn})")
    dr = len(doi_graph) / len(doi_truth) if doi_truth else float("nan")
    figures["doi_only_recall"] = dr
    print(f"tools, DOI-only references{' (catalogue-known tools)' if s.named_column else ''}: recall {dr:.3f}  "
          f"({len(doi_graph)} of {len(doi_truth)})")
    figures["bad_names"] = len(bad)
    print(f"tool names that are a person, a venue or a URL word: {len(bad)}"
          + (f" ({', '.join(sorted({f'{t} ({w})' for _k, t, w in bad}))})" if bad else ""))
    figures["kind_accuracy"] = kind_ok / kind_n if kind_n else float("nan")
    print(f"kind accuracy: {figures['kind_accuracy']:.3f}  ({kind_ok} of {kind_n}); most confused (label -> graph): "
          + ", ".join(f"{a}->{b or '?'} {n}" for (a, b), n in confusion.most_common(6)))
    if show:
        for x in sorted(text_graph - text_truth):
            print("  tool FP", x, labels[x[0]]["kind"], labels[x[0]].get("tool", ""), "|", _text(s, x[0])[:150])
        for x in sorted(text_truth - text_graph):
            print("  tool FN", x, sorted(got.get(x[0], {"tools": {}})["tools"]), sorted(got[x[0]]["cands"]),
                  "|", _text(s, x[0])[:150])
        for x in sorted(doi_truth - doi_graph):
            print("  DOI-only FN", x, labels[x[0]].get("entity", ""))
        for k, row in labels.items():
            if k in got and got[k]["kind"] != (row["kind"] if row["kind"] in KINDS else "paper") and \
                    "tool" not in (row["kind"], got[k]["kind"]):
                print("  kind", k, row["kind"], "->", got[k]["kind"], "|", _text(s, k)[:120])
    if s.entities:
        truth_groups, graph_groups = defaultdict(set), defaultdict(set)
        for k, row in labels.items():
            truth_groups[row["entity"]].add(k)
            if k in got:
                graph_groups[got[k]["cited"]].add(k)
        truth_pairs, graph_pairs = pairs(truth_groups), pairs(graph_groups)
        p, r = prf(len(truth_pairs & graph_pairs), len(graph_pairs - truth_pairs), len(truth_pairs - graph_pairs))
        figures.update(pair_precision=p, pair_recall=r)
        print(f"same-work pairs: labelled {len(truth_pairs)}, in graph {len(graph_pairs)}, agreeing "
              f"{len(truth_pairs & graph_pairs)}: precision {p:.3f}  recall {r:.3f}")
    topic_figures(s, store, got, canon, figures, show)
    print_reliability(s.name, points)
    return figures, points


def _text(s: Labelled, k: tuple[str, str]) -> str:
    r = s.raw.get(k) or {}
    skip = ("key", "doi-asserted-by")
    return r.get("unstructured") or " ".join(str(v) for f, v in sorted(r.items()) if f not in skip)


def topic_figures(s: Labelled, store: ox.Store, got: dict, canon: Names, figures: dict, show: bool) -> None:  # noqa: C901
    broader: dict[str, set[str]] = defaultdict(set)
    for sol in store.query(BROADER_QUERY, use_default_graph_as_union=True):
        broader[sol["c"].value.rsplit("/", 1)[-1]].add(sol["b"].value.rsplit("/", 1)[-1])
    primary: dict[str, str] = {}
    tied: dict[str, set[str]] = defaultdict(set)
    for sol in store.query(TOPIC_QUERY, use_default_graph_as_union=True):
        doi, topic = sol["doi"].value.lower(), sol["topic"].value.rsplit("/", 1)[-1]
        (tied[doi].add(topic) if sol["tied"] else primary.__setitem__(doi, topic))

    def family(t: str) -> str:
        """The concept one level under a top concept at or above ``t`` (a top concept is its own family)."""
        up = broader.get(t, set())
        return next((b for b in up if len(broader.get(b, ())) == 1), t) if len(up) > 1 else t

    exact = fam = ok = 0
    for doi, (want, acceptable) in sorted(s.topics.items()):
        have = primary.get(doi, "none")
        exact += have == want
        fam += have == want or (want != "none" and have != "none" and family(have) == family(want))
        ok += have == want or have in acceptable or (want != "none" and have != "none"
                                                      and family(have) == family(want))
        if show and have != want:
            print(f"  topic {doi}: graph {have} (tied {sorted(tied[doi])}), label {want}, acceptable "
                  f"{sorted(acceptable)}")
    n = len(s.topics)
    figures.update(topic_exact=exact, topic_family=fam, topic_right=ok, topics=n)
    print(f"primary topic: {exact}/{n} exact, {fam}/{n} in the label's family, {ok}/{n} right (exact, family or "
          f"acceptable)")
    if s.top_level:
        chosen = {d: s.topics[d] for d in s.top_level if d in s.topics}
        e = sum(primary.get(d, "none") == w for d, (w, _a) in chosen.items())
        a = sum(primary.get(d, "none") == w or primary.get(d, "none") in acc for d, (w, acc) in chosen.items())
        print(f"primary topic of the {len(chosen)} top-level records: {e}/{len(chosen)} exact, "
              f"{a}/{len(chosen)} exact or acceptable")
    if s.name != "seeds":
        return

    def under(t: str, root: str) -> bool:
        return t == root or root in broader.get(t, set())

    def headline(topic_of: dict[str, set[str]], tools_of: dict[str, set[str]]) -> set[str]:
        out = set()
        for tool, works in tools_of.items():
            a = {w for w in works if any(under(t, SIDES[0]) for t in topic_of.get(w, ()))}
            b = {w for w in works if any(under(t, SIDES[1]) for t in topic_of.get(w, ()))}
            if a and b and any(x != y for x in a for y in b):
                out.add(tool)
        return out

    label_tools: dict[str, set[str]] = defaultdict(set)
    for (doi, _key), row in s.labels.items():
        if row["kind"] == "tool" and row["tool"]:
            label_tools[canon(row["tool"])].add(doi)
    graph_tools: dict[str, set[str]] = defaultdict(set)
    for (doi, _key), v in got.items():
        for t in v["tools"]:
            graph_tools[canon(t)].add(doi)
    want = headline({d: {t} for d, (t, _a) in s.topics.items()}, label_tools)
    have = headline({d: {t, *tied[d]} for d, t in primary.items()}, graph_tools)
    p, r = prf(len(want & have), len(have - want), len(want - have))
    figures.update(headline_precision=p, headline_recall=r)
    print(f"headline answer: precision {p:.3f}  recall {r:.3f}  graph: {sorted(have)}  labels: {sorted(want)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--show-errors", action="store_true", help="list the wrong and missed answers")
    ap.add_argument("--set", choices=("seeds", "samples", "tune"), action="append", help="only this labelled set")
    ap.add_argument("--held-out", action="store_true",
                    help="also measure the development set's held-out half (once, with the final code)")
    ap.add_argument("--fit", type=Path, help="write the recognitions' (method, score, right) as JSON lines")
    args = ap.parse_args(argv)
    if args.fit:
        import kg.refs.enrich
        kg.refs.enrich.CALIBRATE = False  # the raw evidence scores, what the calibration maps
    sets = args.set or ["seeds", "samples", "tune"]
    makers = {"seeds": seeds_set, "samples": samples_set, "tune": lambda: devset_set("tune")}
    chosen = [makers[x]() for x in sets]
    if args.held_out:
        chosen.append(devset_set("held-out"))
    pooled: list[tuple[float, bool]] = []
    fit: list | None = [] if args.fit else None
    for s in chosen:
        _fig, points = evaluate(s, args.show_errors and s.name != "devset held-out", fit)
        pooled += points
        print()
    if len(chosen) > 1:
        print_reliability("pooled over " + ", ".join(s.name for s in chosen), pooled)
    if args.fit and fit is not None:
        args.fit.write_bytes(b"".join(orjson.dumps({"method": m, "score": sc, "right": ok, "candidate": c}) + b"\n"
                                      for m, sc, ok, c in fit))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

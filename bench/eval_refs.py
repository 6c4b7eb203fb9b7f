#!/usr/bin/env python3
"""Compare what the graph knows with the hand-made labels of tests/data/labels/, per labelled set.

Two sets, reported separately: the seeds (``seeds/``, labels ``tests/data/labels/*.tsv``) and the real samples
(``tests/data/samples/``, labels ``tests/data/labels/samples/``). For each set:

- tool recognition on references whose text names the tool (precision and recall: a reference counts once
  per tool its label or the graph gives it), and recall on DOI-only references labelled with a tool;
- same-work pairs (two references are a pair when they point to the same cited work): precision, recall;
- the primary topic against the label (exact, in the label's family, or one of the acceptable topics);
- the headline answer (tools cited by a paper whose primary topic is in the performance-analysis family and by
  another whose primary topic is in the compilers family), from the labels and from the graph.

Usage: ``python bench/eval_refs.py [--show-errors] [--set seeds|samples]``.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import defaultdict
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
SAMPLES = ROOT / "tests" / "data" / "samples"
SIDES = ("performance-analysis", "compilers")

QUERY = """
PREFIX kg: <https://w3id.org/crossref-kg/ontology#>
PREFIX prism: <http://prismstandard.org/namespaces/basic/2.0/>
PREFIX frbr: <http://purl.org/vocab/frbr/core#>
PREFIX biro: <http://purl.org/spar/biro/>
PREFIX schema: <https://schema.org/>
SELECT ?doi ?key ?cited ?kind ?tool ?style WHERE {
  ?work prism:doi ?doi ; frbr:part ?ref .
  ?ref kg:referenceKey ?key ; biro:references ?cited .
  OPTIONAL { ?ref kg:referenceKind ?kind }
  OPTIONAL { ?ref kg:referenceStyle ?style }
  OPTIONAL { ?ref kg:citesTool ?t . ?t schema:name ?tool }
}
"""
TOPIC_QUERY = """
PREFIX prism: <http://prismstandard.org/namespaces/basic/2.0/>
PREFIX dcterms: <http://purl.org/dc/terms/>
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
        self.alias = {}
        for t in Catalogue.load().tools.values():
            for a in (t.id, t.name, *t.aliases):
                self.alias.setdefault(slug(a), t.id)

    def __call__(self, name: str) -> str:
        return self.alias.get(slug(name), slug(name))


def seed_labels() -> dict[tuple[str, str], dict[str, str]]:
    labels = {}
    for tsv in sorted(LABELS.glob("*.tsv")):
        if tsv.stem == "topics":
            continue
        doi = orjson.loads((ROOT / "seeds" / f"{tsv.stem}.txt").read_bytes())["message"]["DOI"]
        with tsv.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                labels[(doi.lower(), row["key"])] = row
    return labels


def sample_labels() -> dict[tuple[str, str], dict[str, str]]:
    labels = {}
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
                labels[((row.get("doi") or doi or "").lower(), row["key"])] = row
    return labels


def topic_labels(path: Path) -> dict[str, tuple[str, set[str]]]:
    out = {}
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            acceptable = row.get("acceptable") or ""
            out[row["doi"].lower()] = (row["primary"], {a.strip() for a in acceptable.split(",") if a.strip()})
    return out


def pairs(groups: dict[str, set[tuple[str, str]]]) -> set[frozenset]:
    return {frozenset(p) for members in groups.values() for p in combinations(sorted(members), 2)}


def prf(tp: int, fp: int, fn: int) -> tuple[float, float]:
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


# one evaluation run read top to bottom: build, load, score, print
def evaluate(name: str, inputs: list[str], labels: dict, topics: dict, show: bool,  # noqa: C901
             top_level: set[str] | None = None) -> dict[str, float]:
    result = build_graph(inputs, Context.create())
    store = ox.Store()
    store.bulk_load("".join(result.lines).encode("utf-8"), format=ox.RdfFormat.N_QUADS)
    got: dict[tuple[str, str], dict] = {}
    for sol in store.query(QUERY, use_default_graph_as_union=True):
        k = (sol["doi"].value.lower(), sol["key"].value)
        entry = got.setdefault(k, {"cited": sol["cited"].value, "kind": sol["kind"].value if sol["kind"] else "",
                                   "style": sol["style"].value if sol["style"] else "", "tools": set()})
        if sol["tool"]:
            entry["tools"].add(sol["tool"].value)
    canon = Names()
    missing = sorted(set(labels) - set(got))
    print(f"== {name}: {len(labels)} references labelled, {len(labels) - len(missing)} found in the graph")
    figures: dict[str, float] = {}
    # tools: references whose text names the tool, and DOI-only references
    text_truth, text_graph, doi_truth, doi_graph = set(), set(), set(), set()
    for k, row in labels.items():
        g = got.get(k, {"tools": set(), "style": ""})
        truth = {canon(row["tool"])} if row["kind"] == "tool" and row["tool"] else set()
        mine = {canon(t) for t in g["tools"]}
        if g["style"] == "doi-only":
            doi_truth |= {(k, t) for t in truth}
            doi_graph |= {(k, t) for t in mine if (k, t) in {(k, x) for x in truth}}
        else:
            text_truth |= {(k, t) for t in truth}
            text_graph |= {(k, t) for t in mine}
    tp, fp, fn = len(text_truth & text_graph), len(text_graph - text_truth), len(text_truth - text_graph)
    p, r = prf(tp, fp, fn)
    figures.update(tool_precision=p, tool_recall=r)
    print(f"tools, references whose text names the tool: precision {p:.3f}  recall {r:.3f}  "
          f"(tp {tp}, fp {fp}, fn {fn})")
    dr = len(doi_graph) / len(doi_truth) if doi_truth else float("nan")
    figures["doi_only_recall"] = dr
    print(f"tools, DOI-only references: recall {dr:.3f}  ({len(doi_graph)} of {len(doi_truth)})")
    if show:
        for x in sorted(text_graph - text_truth):
            print("  tool FP", x, labels[x[0]]["kind"])
        for x in sorted(text_truth - text_graph):
            print("  tool FN", x, sorted(got.get(x[0], {"tools": set()})["tools"]))
        for x in sorted(doi_truth - doi_graph):
            print("  DOI-only FN", x, labels[x[0]]["entity"])
    # same-work pairs
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
    if show:
        for pair in sorted(graph_pairs - truth_pairs, key=sorted):
            print("  pair FP", sorted(pair), [labels[x]["entity"] for x in sorted(pair)])
        for pair in sorted(truth_pairs - graph_pairs, key=sorted):
            print("  pair FN", sorted(pair), labels[sorted(pair)[0]]["entity"])
    # topics
    broader: dict[str, set[str]] = defaultdict(set)
    for sol in store.query(BROADER_QUERY, use_default_graph_as_union=True):
        broader[sol["c"].value.rsplit("/", 1)[-1]].add(sol["b"].value.rsplit("/", 1)[-1])
    primary: dict[str, str] = {}
    tied: dict[str, set[str]] = defaultdict(set)
    for sol in store.query(TOPIC_QUERY, use_default_graph_as_union=True):
        doi, topic = sol["doi"].value.lower(), sol["topic"].value.rsplit("/", 1)[-1]
        (tied[doi].add(topic) if sol["tied"] else primary.__setitem__(doi, topic))

    def family(t: str) -> str:
        tops = [b for b in broader.get(t, set()) | {t} if not broader.get(b) or b in SIDES]
        return next((s for s in SIDES if s == t or s in broader.get(t, set())), sorted(tops)[0] if tops else t)

    exact = fam = ok = 0
    for doi, (want, acceptable) in sorted(topics.items()):
        have = primary.get(doi, "none")
        exact += have == want
        fam += have == want or (want != "none" and have != "none" and family(have) == family(want))
        ok += have == want or have in acceptable
        if show and have != want:
            print(f"  topic {doi}: graph {have} (tied {sorted(tied[doi])}), label {want}, acceptable "
                  f"{sorted(acceptable)}")
    n = len(topics)
    figures.update(topic_exact=exact, topic_family=fam, topic_acceptable=ok, topics=n)
    print(f"primary topic: {exact}/{n} exact, {fam}/{n} in the label's family, {ok}/{n} exact or acceptable")
    if top_level:
        chosen = {d: topics[d] for d in top_level if d in topics}
        e = sum(primary.get(d, "none") == w for d, (w, _a) in chosen.items())
        a = sum(primary.get(d, "none") == w or primary.get(d, "none") in acc for d, (w, acc) in chosen.items())
        print(f"primary topic of the {len(chosen)} top-level records: {e}/{len(chosen)} exact, "
              f"{a}/{len(chosen)} exact or acceptable")
        figures.update(top_exact=e, top_acceptable=a, top=len(chosen))

    # the headline answer: from labels, and from the graph (a tie counts for each tied concept's family)
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
    for (doi, _key), row in labels.items():
        if row["kind"] == "tool" and row["tool"]:
            label_tools[canon(row["tool"])].add(doi)
    graph_tools: dict[str, set[str]] = defaultdict(set)
    for (doi, _key), v in got.items():
        for t in v["tools"]:
            graph_tools[canon(t)].add(doi)
    want = headline({d: {t} for d, (t, _a) in topics.items()}, label_tools)
    have = headline({d: {t, *tied[d]} for d, t in primary.items()}, graph_tools)
    p, r = prf(len(want & have), len(have - want), len(want - have))
    figures.update(headline_precision=p, headline_recall=r)
    print(f"headline answer: precision {p:.3f}  recall {r:.3f}  graph: {sorted(have)}  labels: {sorted(want)}")
    if show:
        for k in missing:
            print("  missing", k)
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show-errors", action="store_true", help="list the wrong and missed answers")
    ap.add_argument("--set", choices=("seeds", "samples"), action="append", help="only this labelled set")
    args = ap.parse_args(argv)
    sets = args.set or ["seeds", "samples"]
    if "seeds" in sets:
        evaluate("seeds", [str(ROOT / "seeds")], seed_labels(), topic_labels(LABELS / "topics.tsv"), args.show_errors)
    if "samples" in sets:
        top = {(orjson.loads(f.read_bytes()).get("message") or {}).get("DOI", "").lower()
               for f in sorted(SAMPLES.glob("*.json"))}
        evaluate("real samples", [str(SAMPLES)], sample_labels(), topic_labels(LABELS / "samples" / "topics.tsv"),
                 args.show_errors, top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

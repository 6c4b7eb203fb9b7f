#!/usr/bin/env python3
"""Compare the graph built from seeds/ with the hand-made labels in tests/data/labels/.

Prints precision and recall of same-work pairs across references (two references are a pair when they
point to the same cited work), and, when the graph recognises tools, precision and recall of tool
recognition per reference. Usage: ``python bench/eval_refs.py [--show-errors]``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import orjson
import pyoxigraph as ox

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.build import build_graph  # noqa: E402
from kg.map.context import Context  # noqa: E402

QUERY = """
PREFIX kg: <https://w3id.org/crossref-kg/ontology#>
PREFIX prism: <http://prismstandard.org/namespaces/basic/2.0/>
PREFIX frbr: <http://purl.org/vocab/frbr/core#>
PREFIX biro: <http://purl.org/spar/biro/>
PREFIX schema: <https://schema.org/>
SELECT ?doi ?key ?cited ?method ?kind ?tool WHERE {
  ?work prism:doi ?doi ; frbr:part ?ref .
  ?ref kg:referenceKey ?key ; biro:references ?cited .
  OPTIONAL { ?ref kg:resolutionMethod ?method }
  OPTIONAL { ?ref kg:referenceKind ?kind }
  OPTIONAL { ?ref kg:citesTool ?t . ?t schema:name ?tool }
}
"""


TOPIC_QUERY = """
PREFIX prism: <http://prismstandard.org/namespaces/basic/2.0/>
PREFIX dcterms: <http://purl.org/dc/terms/>
SELECT ?doi ?topic WHERE { ?w prism:doi ?doi ; dcterms:subject ?topic . }
"""
BROADER_QUERY = """
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?c ?b WHERE { ?c skos:broader+ ?b . }
"""


def load_labels() -> dict[tuple[str, str], dict[str, str]]:
    labels = {}
    for tsv in sorted((ROOT / "tests" / "data" / "labels").glob("*.tsv")):
        if tsv.stem == "topics":
            continue
        seed = ROOT / "seeds" / f"{tsv.stem}.txt"
        doi = orjson.loads(seed.read_bytes())["message"]["DOI"]
        with tsv.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                labels[(doi.lower(), row["key"])] = row
    return labels


def pairs(groups: dict[str, set[tuple[str, str]]]) -> set[frozenset]:
    out = set()
    for members in groups.values():
        for a, b in combinations(sorted(members), 2):
            out.add(frozenset((a, b)))
    return out


def prf(tp: int, fp: int, fn: int) -> tuple[float, float]:
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show-errors", action="store_true", help="list the wrong and missed pairs")
    args = ap.parse_args(argv)
    labels = load_labels()
    result = build_graph([str(ROOT / "seeds")], Context.create())
    store = ox.Store()
    store.bulk_load("".join(result.lines).encode("utf-8"), format=ox.RdfFormat.N_QUADS)
    got: dict[tuple[str, str], dict[str, object]] = {}
    for sol in store.query(QUERY, use_default_graph_as_union=True):
        k = (sol["doi"].value.lower(), sol["key"].value)
        entry = got.setdefault(k, {"cited": sol["cited"].value, "method": sol["method"].value if sol["method"] else "",
                                   "kind": sol["kind"].value if sol["kind"] else "", "tools": set()})
        if sol["tool"]:
            entry["tools"].add(sol["tool"].value)
    missing = sorted(set(labels) - set(got))
    truth_groups, graph_groups = defaultdict(set), defaultdict(set)
    for k, row in labels.items():
        truth_groups[row["entity"]].add(k)
        if k in got:
            graph_groups[got[k]["cited"]].add(k)
    t, g = pairs(truth_groups), pairs(graph_groups)
    p, r = prf(len(t & g), len(g - t), len(t - g))
    print(f"references labelled: {len(labels)}, found in graph: {len(labels) - len(missing)}")
    print(f"same-work pairs: labelled {len(t)}, in graph {len(g)}, agreeing {len(t & g)}")
    print(f"resolution precision {p:.3f}  recall {r:.3f}")
    kinds_ok = sum(1 for k, row in labels.items() if k in got and got[k]["kind"] == row["kind"])
    print(f"reference kind agrees with the label: {kinds_ok}/{len(labels)}")
    # label names and catalogue names may differ in spelling: compare through the catalogue's aliases
    from kg.refs.tools import Catalogue
    alias_to_id = {}
    for t in Catalogue.load().tools.values():
        for a in (t.name, *t.aliases):
            alias_to_id.setdefault(a.casefold(), t.id)
    def canon(name: str) -> str:
        return alias_to_id.get(name.casefold(), name.casefold())
    truth_tools = {(k, canon(row["tool"])) for k, row in labels.items() if row["tool"]}
    graph_tools = {(k, canon(name)) for k, v in got.items() if k in labels for name in v["tools"]}
    if graph_tools or any(v["tools"] for v in got.values()):
        tp, fp, fn = len(truth_tools & graph_tools), len(graph_tools - truth_tools), len(truth_tools - graph_tools)
        tp_, tr_ = prf(tp, fp, fn)
        print(f"tool recognition precision {tp_:.3f}  recall {tr_:.3f}  (tp {tp}, fp {fp}, fn {fn})")
        if args.show_errors:
            for x in sorted(graph_tools - truth_tools):
                print("  tool FP", x)
            for x in sorted(truth_tools - graph_tools):
                print("  tool FN", x)
    # topics and the headline answer
    topic_rows = {}
    with (ROOT / "tests" / "data" / "labels" / "topics.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            topic_rows[row["doi"].lower()] = row["primary"]
    got_topics = {}
    for sol in store.query(TOPIC_QUERY, use_default_graph_as_union=True):
        got_topics[sol["doi"].value.lower()] = sol["topic"].value.rsplit("/", 1)[-1]
    agree = sum(1 for d, t in topic_rows.items() if got_topics.get(d) == t)
    print(f"primary topic agrees with the label: {agree}/{len(topic_rows)}  "
          + ", ".join(f"{d}: {got_topics.get(d)} (label {t})" for d, t in sorted(topic_rows.items())))
    broader = {}
    for sol in store.query(BROADER_QUERY, use_default_graph_as_union=True):
        broader.setdefault(sol["c"].value.rsplit("/", 1)[-1], set()).add(sol["b"].value.rsplit("/", 1)[-1])
    def under(topic: str, root: str) -> bool:
        return topic == root or root in broader.get(topic, set())
    def headline(topic_of: dict[str, str], tools_of: dict[str, set[str]]) -> set[str]:
        out = set()
        for tool, works in tools_of.items():
            a = {w for w in works if under(topic_of.get(w, ""), "profiling")}
            b = {w for w in works if under(topic_of.get(w, ""), "compilers")}
            if a and b and (len(a | b) > 1):
                out.add(tool)
        return out
    label_tools: dict[str, set[str]] = defaultdict(set)
    for (doi, _key), row in labels.items():
        if row["tool"]:
            label_tools[canon(row["tool"])].add(doi)
    graph_tools_by: dict[str, set[str]] = defaultdict(set)
    for (doi, _key), v in got.items():
        for name in v["tools"]:
            graph_tools_by[canon(name)].add(doi)
    want, have = headline(topic_rows, label_tools), headline(got_topics, graph_tools_by)
    hp, hr = prf(len(want & have), len(have - want), len(want - have))
    print(f"headline answer: precision {hp:.3f}  recall {hr:.3f}  graph: {sorted(have)}  labels: {sorted(want)}")
    if args.show_errors:
        for pair in sorted(g - t, key=sorted):
            print("  FP", sorted(pair), [labels[x]["entity"] for x in sorted(pair)])
        for pair in sorted(t - g, key=sorted):
            print("  FN", sorted(pair), labels[sorted(pair)[0]]["entity"])
        for k in missing:
            print("  missing", k)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

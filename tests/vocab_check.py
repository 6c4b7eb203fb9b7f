#!/usr/bin/env python3
"""Check that every class and property an RDF graph uses is defined by its vocabulary (the project's vocabulary
test: tests/test_formats.py runs it on the seeds and the samples).

Adapted, logic unchanged, from ``tools/check_vocab.py`` of the shared developer material that came with the
project's brief (``../shared/tools/``); the official vocabularies it reads are copied in ``tests/data/vocab/``
(sources and licences in its README).

Usage: python tests/vocab_check.py GRAPH_FILE [GRAPH_FILE ...] [--ontology FILE ...] [--vocab DIR] [--json]

Terms in these namespaces are checked against the official files in tests/data/vocab/:
FaBiO, CiTO, DataCite, FRBR, Literal, PRO, BiRO, C4O, FRAPO, CO, schema.org (http and https),
PRISM (as far as FaBiO declares it). DCTERMS, FOAF, PROV, SKOS, RDF, RDFS, OWL, XSD and SHACL are
checked against rdflib's closed namespaces. `--ontology FILE` names a project ontology (Turtle): every
namespace that declares terms in it is checked against it too. A term of any other namespace is listed
as unchecked. Graph files may be triples or quads (N-Quads, TriG: all graphs are read).

It also reports nodes typed with FaBiO/FRBR classes of two different FRBR levels (Work,
Expression, Manifestation, Item), which the FRBR ontology declares disjoint.

With `--strict`, a term of an unchecked namespace also counts as undefined.

Exit status: 0 when every checked term is defined and no node mixes FRBR levels, 1 otherwise (also when
the input holds no triples at all), 2 when a file cannot be read. Needs rdflib.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from rdflib import OWL, RDF, RDFS, Dataset, Graph, URIRef
from rdflib.namespace import DCTERMS, FOAF, PROV, SH, SKOS, XSD

VOCAB = Path(__file__).resolve().parent / "data" / "vocab"
VOCAB_FILES = {
    "http://purl.org/spar/fabio/": "fabio.ttl",
    "http://purl.org/spar/cito/": "cito.ttl",
    "http://purl.org/spar/datacite/": "datacite.ttl",
    "http://purl.org/vocab/frbr/core#": "frbr.ttl",
    "http://www.essepuntato.it/2010/06/literalreification/": "literal.ttl",
    "http://purl.org/spar/pro/": "pro.ttl",
    "http://purl.org/spar/biro/": "biro.ttl",
    "http://purl.org/spar/c4o/": "c4o.ttl",
    "http://purl.org/cerif/frapo/": "frapo.ttl",
    "http://purl.org/co/": "co.ttl",
    "https://schema.org/": "schemaorg.ttl",
    "http://schema.org/": "schemaorg-http.ttl",
    "http://prismstandard.org/namespaces/basic/2.0/": "fabio.ttl",
}
CLOSED = [DCTERMS, FOAF, PROV, SKOS, SH, XSD]
CORE = {str(RDF): RDF, str(RDFS): RDFS, str(OWL): OWL}
FRBR = "http://purl.org/vocab/frbr/core#"
LEVELS = ("Work", "Expression", "Manifestation", "Item")


def namespace_of(term: str, extra: set[str] = frozenset()) -> str | None:
    for ns in sorted(extra, key=len, reverse=True):
        if term.startswith(ns):
            return ns
    for ns in VOCAB_FILES:
        if term.startswith(ns):
            return ns
    for ns in [*CORE, *(str(c) for c in CLOSED)]:
        if term.startswith(ns):
            return ns
    return None


def load_vocab(vocab_dir: Path) -> Graph:
    g = Graph()
    for name in sorted(set(VOCAB_FILES.values())):
        g.parse(vocab_dir / name, format="turtle")
    return g


def defined(term: str, ns: str, vocab: Graph, extra: set[str] = frozenset()) -> bool:
    if ns in VOCAB_FILES or ns in extra:
        return (URIRef(term), RDF.type, None) in vocab
    if ns in CORE:
        local = term[len(ns):]
        return local in dir(CORE[ns]) or hasattr(CORE[ns], local)
    for closed in CLOSED:
        if ns == str(closed):
            try:
                closed[term[len(ns):]]
                return True
            except (AttributeError, KeyError):
                return False
    return False


def frbr_levels(vocab: Graph) -> dict[URIRef, str]:
    """Map every class below an FRBR level (by rdfs:subClassOf*) to that level's name."""
    level_of: dict[URIRef, str] = {}
    for level in LEVELS:
        root = URIRef(FRBR + level)
        for cls in vocab.transitive_subjects(RDFS.subClassOf, root):
            if isinstance(cls, URIRef):
                level_of.setdefault(cls, level)
    return level_of


def project_namespaces(ontology: Graph) -> set[str]:
    """Namespaces in which the project ontology declares terms (the part of each IRI before its local name)."""
    out = set()
    for s in ontology.subjects(RDF.type, None):
        if isinstance(s, URIRef):
            iri = str(s)
            cut = max(iri.rfind("/"), iri.rfind("#"))
            if cut > 0 and not any(iri.startswith(ns) for ns in VOCAB_FILES):
                out.add(iri[: cut + 1])
    return out


def read_data(paths: list[Path]) -> Graph:
    """All triples of all graphs in the files (quads are read with their graph names dropped)."""
    data = Graph()
    for p in paths:
        ds = Dataset()
        ds.parse(p)
        for s, pr, o, _g in ds.quads((None, None, None, None)):
            data.add((s, pr, o))
    return data


def check(paths: list[Path], vocab_dir: Path, ontologies: list[Path] = ()) -> dict:
    vocab = load_vocab(vocab_dir)
    extra: set[str] = set()
    for onto in ontologies:
        og = Graph().parse(onto)
        extra |= project_namespaces(og)
        vocab += og
    data = read_data(paths)
    used: dict[str, int] = defaultdict(int)
    for _s, p, o in data:
        used[str(p)] += 1
        if p == RDF.type and isinstance(o, URIRef):
            used[str(o)] += 1
    undefined, unchecked = {}, defaultdict(int)
    for term, n in sorted(used.items()):
        if term.startswith("http://purl.org/spar/fabio#"):
            undefined[term] = n
            continue
        ns = namespace_of(term, extra)
        if ns is None:
            unchecked[term.rsplit("/", 1)[0].rsplit("#", 1)[0]] += n
        elif not defined(term, ns, vocab, extra):
            undefined[term] = n
    level_of = frbr_levels(vocab)
    mixed = []
    for node in set(data.subjects(RDF.type, None)):
        levels = {level_of[c] for c in data.objects(node, RDF.type) if c in level_of}
        if len(levels) > 1:
            mixed.append({"node": str(node), "levels": sorted(levels)})
    return {
        "triples": len(data),
        "terms_used": len(used),
        "undefined": undefined,
        "unchecked_namespaces": dict(unchecked),
        "frbr_level_clashes": sorted(mixed, key=lambda m: m["node"]),
        "project_namespaces": sorted(extra),
    }


def passes(report: dict, strict: bool) -> bool:
    """Whether a report of ``check`` passes: no undefined term, no FRBR-level clash, some triples read (and with
    ``strict``, no term of an unchecked namespace)."""
    ok = not report["undefined"] and not report["frbr_level_clashes"] and report["triples"] > 0
    return ok and not (strict and report["unchecked_namespaces"])


def summary(report: dict) -> str:
    """The closing line of the text report, e.g. ``120 terms used in 14124 triples: 0 undefined, 0 FRBR-level
    clashes``."""
    return (f"{report['terms_used']} terms used in {report['triples']} triples: "
            f"{len(report['undefined'])} undefined, {len(report['frbr_level_clashes'])} FRBR-level clashes")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("graphs", nargs="+", type=Path)
    ap.add_argument("--vocab", type=Path, default=VOCAB)
    ap.add_argument("--ontology", type=Path, action="append", default=[],
                    help="a project ontology whose namespaces are checked too (repeatable)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--strict", action="store_true", help="fail on terms of namespaces no file declares")
    args = ap.parse_args()
    try:
        report = check(args.graphs, args.vocab, args.ontology)
    except Exception as exc:  # a file that cannot be read or parsed
        print(f"check_vocab: cannot read input: {exc}", file=sys.stderr)
        return 2
    ok = passes(report, args.strict)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for term, n in report["undefined"].items():
            print(f"UNDEFINED  {term}  (used {n}x)")
        for clash in report["frbr_level_clashes"][:20]:
            print(f"FRBR-CLASH {clash['node']}  typed at levels {', '.join(clash['levels'])}")
        for ns, n in sorted(report["unchecked_namespaces"].items()):
            print(f"unchecked  {ns}  ({n} uses)")
        if report["triples"] == 0:
            print("EMPTY      no triples were read: nothing was checked")
        print(summary(report))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""The SHACL shapes of shapes/*.ttl, tested as code.

1. The shapes graph conforms to SHACL-SHACL.
2. Every property shape has sh:name and sh:message, every SPARQL constraint sh:message, severities are standard.
3. The seed graph and the samples graph have zero violations; the seed warnings are pinned.
4. No target declaration is vacuous: each selects a node in real data (or in the named hand-made fixture).
5. One case per constraint: a small valid graph built from hand-made Crossref records, ONE deliberate
   damage, and exactly the expected new results (shape, focus, path, severity, constraint component).
   Plus valid variants (edge cases that must raise nothing) and an online-first record (a warning only).
6. A mutation test: 30+ kinds of damage to a seed work; each must raise a violation on the damaged node
   (or only a warning, for the damages meant to be warnings).

Speed: pySHACL hands every SPARQL-based constraint to rdflib as a query string once per focus node, and
rdflib re-parses it each time (about 70 ms per parse; kg.validate caches parses within one validate()
call only); the module-scoped ``_parsed_query_cache`` fixture memoises rdflib's parse + algebra
translation per query string across calls, which makes validating a small graph ~10x faster without
changing any result. The seed and samples graphs are built once per module and validated once.

Cases whose expectation fails because a shape is wrong are marked ``xfail(strict=True, reason="SHAPE
BUG: ...")``; they turn into failures as soon as the shape is fixed, so the mark must then be removed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SAMPLES, SEEDS
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, SH

from kg.map.context import Context
from kg.pipeline.memory import build_graph
from kg.validate import ValidationReport, data_graph, load_shapes, shapes_conform_to_shacl_shacl, validate

BASE = "https://w3id.org/crossref-kg/"
KGSH = "https://w3id.org/crossref-kg/shapes#"
PREFIXES = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "schema": "https://schema.org/",
    "fabio": "http://purl.org/spar/fabio/",
    "frapo": "http://purl.org/cerif/frapo/",
    "prism": "http://prismstandard.org/namespaces/basic/2.0/",
    "dcterms": "http://purl.org/dc/terms/",
    "cito": "http://purl.org/spar/cito/",
    "biro": "http://purl.org/spar/biro/",
    "c4o": "http://purl.org/spar/c4o/",
    "frbr": "http://purl.org/vocab/frbr/core#",
    "pro": "http://purl.org/spar/pro/",
    "prov": "http://www.w3.org/ns/prov#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "kg": "https://w3id.org/crossref-kg/ontology#",
    "kgsh": KGSH,
}
SPARQL_PREFIXES = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in PREFIXES.items())
SEVERITY = {"V": "Violation", "W": "Warning", "I": "Info"}

SHAPES = load_shapes()  # parsed at import: cheap (~30 ms) and needed to parametrize tests 2 and 4


# --------------------------------------------------------------------------------------------- helpers

class _QueryText(str):
    """A query string that has not been parsed yet (see _parsed_query_cache)."""


@pytest.fixture(scope="module", autouse=True)
def _parsed_query_cache() -> Iterator[None]:
    """Memoise rdflib's SPARQL parse + algebra translation per query text for the whole module.

    rdflib's query processor (and kg.validate, which keeps a cache for one validate() call only) compute
    ``translateQuery(parseQuery(text), base, initNs)`` through the module globals of
    rdflib.plugins.sparql.processor; here parseQuery defers the parse and translateQuery returns the
    translated query cached by (text, base, namespaces). A translated query is reusable (it is what
    rdflib's prepareQuery returns), so results are unchanged.
    """
    from rdflib.plugins.sparql import processor

    parse, translate = processor.parseQuery, processor.translateQuery
    cache: dict[tuple, object] = {}

    def parse_later(q, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        return _QueryText(q) if isinstance(q, str) and not args and not kwargs else parse(q, *args, **kwargs)

    def translate_cached(q, base=None, initNs=None):  # noqa: ANN001, N803
        if not isinstance(q, _QueryText):
            return translate(q, base, initNs)
        key = (str(q), base, tuple(sorted((initNs or {}).items())))
        if key not in cache:
            cache[key] = translate(parse(str(q)), base, initNs)
        return cache[key]

    mp = pytest.MonkeyPatch()
    mp.setattr(processor, "parseQuery", parse_later)
    mp.setattr(processor, "translateQuery", translate_cached)
    yield
    mp.undo()


def curie(iri: str) -> str:
    best = max((ns for ns in PREFIXES.values() if iri.startswith(ns)), key=len, default=None)
    if best is None:
        return iri
    prefix = next(p for p, ns in PREFIXES.items() if ns == best)
    return f"{prefix}:{iri[len(best):]}"


def expand(text: str) -> str:
    prefix, _, local = text.partition(":")
    return PREFIXES[prefix] + local if prefix in PREFIXES and not local.startswith("//") else text


def short_path(path: str | None) -> str | None:
    if path is None:
        return None
    if path.startswith("^"):
        return "^" + curie(path[1:])
    return "|".join(curie(p) for p in path.split("|"))


def clone(g: Graph) -> Graph:
    out = Graph()
    for t in g:
        out.add(t)
    return out


def substitute(text: str, nodes: dict[str, str]) -> str:
    """``%name`` -> ``<iri of name>`` (SPARQL updates and queries use it to name fixture nodes)."""
    return re.sub(r"%([a-z][a-z0-9_]*)", lambda m: f"<{nodes[m.group(1)]}>", text)


def damage(g: Graph, update: str, nodes: dict[str, str]) -> Graph:
    """A copy of ``g`` with one SPARQL Update applied."""
    out = clone(g)
    out.update(SPARQL_PREFIXES + substitute(update, nodes))
    return out


def lookup(g: Graph, queries: dict[str, str]) -> dict[str, str]:
    """Name -> IRI; a value is an IRI (curie or absolute) or a SELECT of ?x that must have exactly one answer."""
    nodes: dict[str, str] = {}
    for name, q in queries.items():
        if not q.lstrip().upper().startswith("SELECT"):
            nodes[name] = q
            continue
        rows = sorted({str(r[0]) for r in g.query(SPARQL_PREFIXES + substitute(q, nodes))})
        assert len(rows) == 1, f"node {name!r}: {q} found {rows}"
        nodes[name] = rows[0]
    return nodes


def result_keys(report: ValidationReport, names: dict[str, str]) -> set[tuple]:
    """Results, with the details that explain them (sh:detail: a failing sh:node's shape's), as (shape, focus,
    path, severity, component); known nodes as %name, blank nodes as _:."""
    from kg.validate.report import flattened
    by_iri = {iri: f"%{n}" for n, iri in names.items()}
    out = set()
    for r in flattened(report.results):
        focus = "_:" if r.focus.startswith("_:") else by_iri.get(r.focus, r.focus)
        out.add((r.shape.removeprefix(KGSH), focus, short_path(r.path), r.severity,
                 r.constraint.removeprefix(PREFIXES["kgsh"]).rsplit("#", 1)[-1].removesuffix("ConstraintComponent")))
    return out


# ---------------------------------------------------------------------- the constraints of the shapes

def node_shapes() -> list[URIRef]:
    return sorted(s for s in set(SHAPES.subjects(RDF.type, SH.NodeShape)) if isinstance(s, URIRef))


def has_targets(shape: URIRef) -> bool:
    return any(SHAPES.value(shape, p) is not None
               for p in (SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf, SH.targetNode))


NODE_LEVEL = {SH["class"]: SH.ClassConstraintComponent, SH.nodeKind: SH.NodeKindConstraintComponent,
              SH["or"]: SH.OrConstraintComponent, SH["and"]: SH.AndConstraintComponent,
              SH["in"]: SH.InConstraintComponent, SH.datatype: SH.DatatypeConstraintComponent,
              SH.node: SH.NodeConstraintComponent, SH["not"]: SH.NotConstraintComponent,
              SH.pattern: SH.PatternConstraintComponent}


def all_constraints() -> dict[object, str]:
    """Every constraint of every targeted shape -> a readable label.

    Keys: a property shape node; a SPARQL constraint node; (node shape, component) for a constraint
    parameter written directly on a node shape. kgsh:DateValue has no target: it is exercised through the
    sh:node of the property shapes that use it.
    """
    out: dict[object, str] = {}
    for shape in node_shapes():
        if not has_targets(shape):
            continue
        name = shape.removeprefix(KGSH)
        for ps in SHAPES.objects(shape, SH.property):
            out[ps] = f"{name}/{SHAPES.value(ps, SH.name)}"
        for sc in SHAPES.objects(shape, SH.sparql):
            out[sc] = f"{name}/sparql:{SHAPES.value(sc, SH.message)}"
        for param, component in NODE_LEVEL.items():
            if SHAPES.value(shape, param) is not None:
                out[(shape,
                     component)] = f"{name}/node:{component.removeprefix(str(SH)).removesuffix('ConstraintComponent')}"
    return out


def constraint_of(target: str) -> object:
    """``Shape/name`` (property shape by sh:name), ``Shape/sparql:text`` (SPARQL constraint whose message
    contains text) or ``Shape/node:Class`` (a node-level parameter) -> the key used by all_constraints()."""
    shape_name, _, what = target.partition("/")
    shape = URIRef(KGSH + shape_name)
    if what.startswith("sparql:"):
        found = [sc for sc in SHAPES.objects(shape, SH.sparql) if what[7:] in str(SHAPES.value(sc, SH.message))]
    elif what.startswith("node:"):
        found = [(shape, SH[what[5:] + "ConstraintComponent"])]
    else:
        found = [ps for ps in SHAPES.objects(shape, SH.property) if str(SHAPES.value(ps, SH.name)) == what]
    assert len(found) == 1, f"{target} names {len(found)} constraints"
    return found[0]


def fired(report: ValidationReport) -> set[object]:
    """The constraints (keys as in all_constraints) that produced a result of the report."""
    rg = report.graph
    out: set[object] = set()
    for r in rg.subjects(RDF.type, SH.ValidationResult):
        component = rg.value(r, SH.sourceConstraintComponent)
        source = rg.value(r, SH.sourceShape)
        if component == SH.SPARQLConstraintComponent:
            out.add(rg.value(r, SH.sourceConstraint))
        elif (None, SH.property, source) in SHAPES:
            out.add(source)
        else:
            out.add((source, component))
    return out


# ============================================================================ 1. SHACL-SHACL

def test_shapes_conform_to_shacl_shacl() -> None:
    conforms, text = shapes_conform_to_shacl_shacl(SHAPES)
    assert conforms, text


# ============================================================================ 2. documentation, severities

def test_every_property_shape_has_name_and_message() -> None:
    props = set(SHAPES.objects(None, SH.property))
    assert len(props) > 90
    missing = [(str(next(SHAPES.subjects(SH.property, p))), str(SHAPES.value(p, SH.path)), what)
               for p in props for what, pred in (("sh:name", SH.name), ("sh:message", SH.message))
               if SHAPES.value(p, pred) is None]
    assert missing == []


def test_every_sparql_constraint_has_a_message() -> None:
    constraints = set(SHAPES.subjects(RDF.type, SH.SPARQLConstraint)) | set(SHAPES.objects(None, SH.sparql))
    assert len(constraints) >= 12
    assert [c for c in constraints if SHAPES.value(c, SH.message) is None] == []
    assert [c for c in constraints if (c, RDF.type, SH.SPARQLConstraint) not in SHAPES] == []


def test_only_standard_severities() -> None:
    shapes = (set(SHAPES.subjects(RDF.type, SH.NodeShape)) | set(SHAPES.objects(None, SH.property))
              | set(SHAPES.objects(None, SH.sparql)))
    used = {s: set(SHAPES.objects(s, SH.severity)) for s in shapes}
    assert {s: v for s, v in used.items() if not v <= {SH.Violation, SH.Warning, SH.Info} or len(v) > 1} == {}
    # every sh:severity in the file sits on a node shape, a property shape or a SPARQL constraint
    assert set(SHAPES.subjects(SH.severity, None)) <= shapes


def test_severity_is_never_written_on_a_sparql_constraint() -> None:
    """SHACL takes a result's severity from the shape, so sh:severity on a sh:SPARQLConstraint is silently
    ignored (a should-rule must get a node shape of its own, like kgsh:IssuedBeforeDepositShape)."""
    assert [str(SHAPES.value(c, SH.message)) for c in SHAPES.objects(None, SH.sparql)
            if SHAPES.value(c, SH.severity) is not None] == []


# ============================================================================ 3. real data

@pytest.fixture(scope="module")
def seed_lines() -> list[str]:
    result = build_graph([str(SEEDS)], Context.create())
    assert result.report.errors == [] and result.report.records == 4
    return result.lines


@pytest.fixture(scope="module")
def seed_graph(seed_lines: list[str]) -> Graph:
    return data_graph(seed_lines)


@pytest.fixture(scope="module")
def samples_graph() -> Graph:
    files = sorted(str(p) for p in SAMPLES.rglob("*.json"))
    assert len(files) >= 25
    result = build_graph(files, Context.create())
    assert result.report.errors == []
    return data_graph(result.lines)


@pytest.fixture(scope="module")
def seed_report(seed_graph: Graph) -> ValidationReport:
    return validate(seed_graph, SHAPES)


@pytest.fixture(scope="module")
def samples_report(samples_graph: Graph) -> ValidationReport:
    return validate(samples_graph, SHAPES)


SEED_WARNINGS = [  # (shape, focus, path): change this list only on purpose
    ("PersonShape", f"{BASE}doi/10.1109/cgo68049.2026.11395237/author/{i}/agent", "frapo:hasORCID")
    for i in (1, 2, 3)
]


def test_seed_graph_has_no_violations(seed_report: ValidationReport) -> None:
    assert [r for r in seed_report.results if r.severity == "Violation"] == []


def test_seed_graph_warnings_are_exactly_the_known_ones(seed_report: ValidationReport) -> None:
    assert all(r.severity == "Warning" for r in seed_report.results)
    got = sorted((r.shape.removeprefix(KGSH), r.focus, short_path(r.path)) for r in seed_report.results)
    assert got == sorted(SEED_WARNINGS)


def test_samples_graph_has_no_violations(samples_report: ValidationReport) -> None:
    assert [r for r in samples_report.results if r.severity == "Violation"] == []


def test_samples_graph_warnings_by_kind(samples_report: ValidationReport) -> None:
    """Persons without ORCID, references that could not be resolved, works without title (component, issue)."""
    kinds = Counter((r.shape.removeprefix(KGSH), short_path(r.path), r.severity) for r in samples_report.results)
    assert kinds == {
        ("PersonShape", "frapo:hasORCID", "Warning"): 100,
        ("ReferenceShape", "kg:resolutionMethod", "Warning"): 27,
        ("WorkShape", "dcterms:title", "Warning"): 3,
    }


# ============================================================================ hand-made valid fixture

def _date(*parts: int) -> dict:
    return {"date-parts": [list(parts)]}


def _stamp(y: int, m: int, d: int) -> dict:
    return {"date-parts": [[y, m, d]], "date-time": f"{y:04d}-{m:02d}-{d:02d}T10:00:00Z"}


CARBERRY = {"given": "Josiah", "family": "Carberry", "ORCID": "https://orcid.org/0000-0002-1825-0097"}
LOVELACE = {"given": "Ada", "family": "Lovelace", "ORCID": "https://orcid.org/0000-0001-5109-3700"}
HOPPER = {"given": "Grace", "family": "Hopper", "ORCID": "https://orcid.org/0000-0002-1694-233X"}  # X check digit
JOHNSON = {"given": "Katherine", "family": "Johnson", "ORCID": "https://orcid.org/0000-0003-1419-2405"}

#: The fixture: eight small hand-made Crossref records whose graph has no validation result at all and
#: selects every target declaration of every shape (see test_fixture_selects_every_target).
FIXTURE_RECORDS: dict[str, dict] = {
    "article": {
        "DOI": "10.5555/KG.Shapes.1", "type": "journal-article", "prefix": "10.5555", "member": "9999",
        "publisher": "Shape Test Press",
        "title": ["Profiling GPU kernels with hardware performance counters"], "subtitle": ["A validation fixture"],
        "abstract": "<jats:p>We profile GPU kernels and compilers.</jats:p>",
        "author": [
            {**CARBERRY, "authenticated-orcid": True, "sequence": "first", "affiliation": [
                {"name": "Brown University", "id": [{"id": "https://ror.org/05gq02987", "id-type": "ROR"}]}]},
            {**LOVELACE, "authenticated-orcid": False, "sequence": "additional",
             "affiliation": [{"name": "Analytical Engine Society"}]},
            {"name": "The GPU Consortium", "sequence": "additional"},
        ],
        "editor": [{**HOPPER, "sequence": "first"}],
        "container-title": ["Journal of Shape Tests"], "short-container-title": ["J. Shape Tests"],
        "ISSN": ["0317-8471", "1050-124X"],
        "issn-type": [{"value": "0317-8471", "type": "print"}, {"value": "1050-124X", "type": "electronic"}],
        "volume": "12", "issue": "3", "page": "10-20",
        "journal-issue": {"issue": "3", "published-print": _date(2024, 3)},
        "issued": _date(2024, 3, 5), "published": _date(2024, 3, 5), "published-print": _date(2024, 3, 5),
        "published-online": _date(2024, 2, 1), "accepted": _date(2024, 1, 10),
        "created": _stamp(2024, 2, 1), "deposited": _stamp(2024, 3, 6), "indexed": _stamp(2024, 3, 7),
        "reference-count": 8, "is-referenced-by-count": 2, "subject": ["Computer Science"],
        "funder": [{"name": "European Research Council", "DOI": "10.13039/501100000781",
                    "doi-asserted-by": "publisher", "award": ["ERC-123456"]}],
        "license": [{"URL": "https://creativecommons.org/licenses/by/4.0/", "content-version": "vor",
                     "delay-in-days": 0, "start": {**_date(2024, 3, 5), "date-time": "2024-03-05T00:00:00Z"}}],
        "link": [{"URL": "https://example.org/kg-shapes-1.pdf", "content-type": "application/pdf",
                  "content-version": "vor", "intended-application": "text-mining"}],
        "event": {"name": "Workshop on Shape Tests", "acronym": "WST 2024", "location": "Paris, France",
                  "start": _date(2024, 6, 1), "end": _date(2024, 6, 3)},
        "assertion": [{"name": "received", "label": "Received", "value": "2023-11-01", "order": 0,
                       "group": {"name": "publication_history", "label": "Publication History"}}],
        "relation": {"is-supplemented-by": [{"id": "10.5555/kg.data.1", "id-type": "doi", "asserted-by": "subject"}]},
        "update-to": [{"DOI": "10.5555/kg.shapes.0", "type": "correction", "label": "Correction",
                       "updated": _date(2024, 3, 5)}],
        "clinical-trial-number": [{"clinical-trial-number": "NCT01234567",
                                   "registry": "10.18810/clinical-trials-gov", "type": "preResults"}],
        "reference": [
            {"key": "ref1", "DOI": "10.1145/3352460.3358307", "doi-asserted-by": "crossref", "author": "Villa",
             "year": "2019", "article-title": "NVBit: A Dynamic Binary Instrumentation Framework for NVIDIA GPUs"},
            {"key": "ref2",
             "unstructured": "NVIDIA. 2024. Nsight Compute. https://developer.nvidia.com/nsight-compute"},
            {"key": "ref3", "DOI": "10.1000/182"},
            {"key": "ref4", "author": "Knuth D. E.", "year": "1968", "article-title": "The Art of Computer Programming",
             "volume-title": "Fundamental Algorithms"},
            {"key": "ref5",
             "unstructured": "J. Doe. 2021. Fastkern: a framework for fast decisions. arXiv preprint."},
            {"key": "ref6",
             "unstructured": "A. Dev. 2023. Quokka: A scalable profiler for serverless functions. In Proc. EuroSys."},
            {"key": "ref7",
             "unstructured": "J. Devlin, M. Chang, K. Lee, and K. Toutanova. 2019. BERT: Pre-training of deep "
                                            "bidirectional transformers for language understanding. In NAACL."},
            {"key": "ref8",
             "unstructured": "S. Che et al. 2009. Rodinia: A Benchmark Suite for Heterogeneous Computing. In IISWC."},
        ],
    },
    "book": {
        "DOI": "10.5555/kg.book.1", "type": "book", "publisher": "Shape Test Press", "member": "9999",
        "title": ["A Book of Shapes"], "ISBN": ["978-0-306-40615-7", "080442957X"],  # ISBN-13 and ISBN-10 (X)
        "editor": [{**HOPPER, "sequence": "first"}],
        "issued": _date(2020), "deposited": _stamp(2021, 1, 1),
    },
    "dataset": {
        "DOI": "10.5555/kg.data.1", "type": "dataset", "publisher": "Shape Test Press", "member": "9999",
        "title": ["Kernel timings"], "author": [{**LOVELACE, "sequence": "first"}],
        "issued": _date(2023, 7), "deposited": _stamp(2023, 8, 1),
    },
    "working-paper": {
        "DOI": "10.5555/kg.wp.1", "type": "posted-content", "subtype": "working-paper",
        "title": ["A working paper on shapes"], "author": [{**CARBERRY, "sequence": "first"}],
        "institution": [{"name": "Analytical Engine Society"}],
        "posted": _date(2023, 5, 1), "issued": _date(2023, 5, 1), "deposited": _stamp(2023, 5, 2),
    },
    "grant": {
        "DOI": "10.5555/kg.grant.1", "type": "grant", "award": "KG-42", "publisher": "Shape Test Press",
        "member": "9999", "issued": _date(2024, 1, 1), "deposited": _stamp(2024, 1, 2),
        "project": [{
            "project-title": [{"title": "Shapes for scholarly graphs"}],
            "lead-investigator": [LOVELACE], "investigator": [JOHNSON],
            "award-amount": {"amount": "250000", "currency": "EUR"},
            "award-start": _date(2024, 1, 1), "award-end": _date(2026, 12, 31),
            "funding": [{"type": "award", "funder": {"name": "European Research Council", "id": [
                {"id": "10.13039/501100000781", "id-type": "DOI", "asserted-by": "publisher"}]},
                "award-amount": {"amount": "125000.50", "currency": "EUR"}, "funding-percentage": "50"}],
        }],
    },
    "report": {
        "DOI": "10.5555/kg.report.1", "type": "report", "title": ["A technical report on shapes"],
        "author": [{**CARBERRY, "sequence": "first"}], "issued": _date(2022), "deposited": _stamp(2022, 6, 1),
    },
    "standard": {
        "DOI": "10.5555/kg.std.1", "type": "standard", "title": ["Shapes of records"],
        "standards-body": {"name": "Shape Standards Institute", "acronym": "SSI"},
        "approved": _date(2021, 5), "issued": _date(2021, 5), "deposited": _stamp(2021, 6, 1),
    },
    "review": {
        "DOI": "10.5555/kg.review.1", "type": "peer-review", "title": ["Review of: Profiling GPU kernels"],
        "author": [{**HOPPER, "sequence": "first"}], "issued": _date(2024, 1, 20), "deposited": _stamp(2024, 1, 21),
        "relation": {"is-review-of": [{"id": "10.5555/kg.shapes.1", "id-type": "doi", "asserted-by": "subject"}]},
        "review": {"type": "referee-report", "recommendation": "accept", "revision-round": "1",
                   "stage": "pre-publication"},
    },
}

A = f"{BASE}doi/10.5555/kg.shapes.1"
#: Named nodes of the fixture: an IRI, or a SELECT ?x (exactly one answer) that may use earlier names.
FIXTURE_NODES: dict[str, str] = {
    "w": "https://doi.org/10.5555/kg.shapes.1", "book": "https://doi.org/10.5555/kg.book.1",
    "data": "https://doi.org/10.5555/kg.data.1", "wp": "https://doi.org/10.5555/kg.wp.1",
    "grantw": "https://doi.org/10.5555/kg.grant.1", "report": "https://doi.org/10.5555/kg.report.1",
    "std": "https://doi.org/10.5555/kg.std.1", "review": "https://doi.org/10.5555/kg.review.1",
    "datawl": f"{BASE}work/10.5555/kg.data.1", "wpwl": f"{BASE}work/10.5555/kg.wp.1",
    "a1": f"{A}/author/1", "a2": f"{A}/author/2", "a3": f"{A}/author/3", "ed1": f"{A}/editor/1",
    "p1": f"{BASE}person/orcid/0000-0002-1825-0097", "p2": f"{BASE}person/orcid/0000-0001-5109-3700",
    "p3": f"{BASE}person/orcid/0000-0002-1694-233X", "orgauthor": f"{A}/author/3/agent",
    "ror": f"{BASE}org/ror/05gq02987", "pub": f"{BASE}publisher/member/9999",
    "funder": f"{BASE}funder/doi/10.13039/501100000781",
    "grant": f"{BASE}grant/doi/10.13039/501100000781/ERC-123456",
    "amount": f"{BASE}doi/10.5555/kg.grant.1/project/1/amount",
    "lic": f"{A}/license/1", "link": f"{A}/link/1", "rel": f"{A}/relation/1", "upd": f"{A}/update/1",
    "asrt": f"{A}/assertion/1", "trial": f"{A}/clinical-trial/1", "agent": f"{BASE}agent/crossref-kg",
    "src": "SELECT ?x { %w prov:wasDerivedFrom ?x }",
    "r1": f"{A}/reference/1", "r2": f"{A}/reference/2", "r3": f"{A}/reference/3", "r4": f"{A}/reference/4",
    "r5": f"{A}/reference/5",
    "c1": "https://doi.org/10.1145/3352460.3358307", "c3": "https://doi.org/10.1000/182",
    "c2": "SELECT ?x { %r2 biro:references ?x }", "c4": "SELECT ?x { %r4 biro:references ?x }",
    "c5": "SELECT ?x { %r5 biro:references ?x }",
    "nsight": f"{BASE}tool/nsight-compute", "nvbit": f"{BASE}tool/nvbit",
    "ev2": "SELECT ?x { %r2 kg:hasToolRecognition ?x }", "ev5": "SELECT ?x { %r5 kg:hasToolRecognition ?x }",
    "cand": "SELECT ?x { %r5 kg:suggestsTool ?x }",
    "r6": f"{A}/reference/6", "r7": f"{A}/reference/7", "r8": f"{A}/reference/8",
    "c7": "SELECT ?x { %r7 biro:references ?x }",
    "pa1": f"{A}/reference/7/author/1", "pa2": f"{A}/reference/7/author/2",
    "quokka": f"{BASE}tool/named/quokka", "bert": f"{BASE}model/named/bert", "rodinia": f"{BASE}benchmark/rodinia",
    "ev6": "SELECT ?x { %r6 kg:hasToolRecognition ?x }", "ev7": "SELECT ?x { %r7 kg:hasArtifactRecognition ?x }",
    "ta1": "SELECT ?x { %w kg:hasTopicAssignment ?x . ?x kg:isPrimary true }",
    "ta2": "SELECT ?x { %w kg:hasTopicAssignment ?x . ?x kg:isPrimary false }",
    "topic1": "SELECT ?x { %w dcterms:subject ?x }", "topic2": "SELECT ?x { %ta2 kg:topic ?x }",
    "journal": f"{BASE}venue/issn/0317-8471", "vol": f"{BASE}venue/issn/0317-8471/volume/12",
    "issue": f"{BASE}venue/issn/0317-8471/volume/12/issue/3",
    "event": "SELECT ?x { ?x schema:workFeatured %w }",
}


@pytest.fixture(scope="module")
def fixture_graph(tmp_path_factory: pytest.TempPathFactory) -> Graph:
    folder = tmp_path_factory.mktemp("shape-fixture")
    for name, record in FIXTURE_RECORDS.items():
        (folder / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")
    result = build_graph(sorted(str(p) for p in folder.glob("*.json")), Context.create())
    assert result.report.errors == [] and result.report.warnings == []
    assert result.report.records == len(FIXTURE_RECORDS)
    # the topic scheme's concepts no work points to are left out (each is validated on its own: time only)
    topics = f"<{BASE}graph/topics>"
    used = {line.rsplit(" ", 2)[0].split(" ", 2)[2] for line in result.lines if line.rsplit(" ", 2)[1] != topics}
    return data_graph([line for line in result.lines if line.rsplit(" ", 2)[1] != topics
                       or line.split(" ", 1)[0] in used or line.startswith(f"<{BASE}topic/> ")])


@pytest.fixture(scope="module")
def fixture_nodes(fixture_graph: Graph) -> dict[str, str]:
    return lookup(fixture_graph, FIXTURE_NODES)


@pytest.fixture(scope="module")
def fixture_report(fixture_graph: Graph) -> ValidationReport:
    return validate(fixture_graph, SHAPES)


def test_fixture_is_valid_without_any_result(fixture_report: ValidationReport) -> None:
    assert fixture_report.conforms, [(r.shape, r.focus, r.path, r.message) for r in fixture_report.results]
    assert fixture_report.results == []


def test_fixture_tool_and_reference_shapes(fixture_graph: Graph, fixture_nodes: dict[str, str]) -> None:
    """The fixture has what the cases rely on: the Nsight Compute reference recognised by URL, the DOI-only
    reference resolved by DOI, a tool candidate, a primary and a secondary topic."""
    n = {k: URIRef(v) for k, v in fixture_nodes.items()}
    kg = PREFIXES["kg"]
    assert (n["r2"], URIRef(kg + "citesTool"), n["nsight"]) in fixture_graph
    assert fixture_graph.value(n["ev2"], URIRef(kg + "method")) == Literal("url")
    assert fixture_graph.value(n["r3"], URIRef(kg + "resolutionMethod")) == Literal("doi")
    assert (n["r1"], URIRef(kg + "citesTool"), n["nvbit"]) in fixture_graph
    assert fixture_graph.value(n["cand"], URIRef(PREFIXES["schema"] + "name")) == Literal("Fastkern")
    assert (n["r6"], URIRef(kg + "citesTool"), n["quokka"]) in fixture_graph
    assert (n["r7"], URIRef(kg + "citesArtifact"), n["bert"]) in fixture_graph
    assert (n["r8"], URIRef(kg + "citesArtifact"), n["rodinia"]) in fixture_graph
    assert n["topic1"] != n["topic2"]


# ============================================================================ 4. no vacuous target

TARGET_KINDS = (SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf)
TARGETS = sorted((shape.removeprefix(KGSH), kind.removeprefix(str(SH)), curie(str(value)))
                 for shape in node_shapes() for kind in TARGET_KINDS for value in SHAPES.objects(shape, kind))

#: Targets that no real record (seeds, samples) selects, and the named fixture graph in which they do.
NOT_IN_REAL_DATA = {
    ("WorkLevelShape", "targetClass", "fabio:WorkingPaper"):
        "FIXTURE_RECORDS['working-paper'] (posted-content/working-paper -> fabio:WorkingPaper)",
    # every weak software mention of the seeds and samples is either confirmed by the corpus or dropped
    ("ToolCandidateShape", "targetClass", "kg:ToolCandidate"): "FIXTURE_RECORDS['article'] ref5 (Fastkern)",
    ("ToolCandidateShape", "targetObjectsOf", "kg:suggestsTool"): "FIXTURE_RECORDS['article'] ref5 (Fastkern)",
}


def selected(g: Graph, kind: str, value: str) -> int:
    term = URIRef(expand(value))
    if kind == "targetClass":
        return len(set(g.subjects(RDF.type, term)))
    if kind == "targetSubjectsOf":
        return len(set(g.subjects(term, None)))
    return len(set(g.objects(None, term)))


@pytest.fixture(scope="module")
def real_union(seed_graph: Graph, samples_graph: Graph) -> Graph:
    return seed_graph + samples_graph


def test_every_node_shape_with_constraints_has_a_target() -> None:
    untargeted = [s.removeprefix(KGSH) for s in node_shapes() if not has_targets(s)]
    assert untargeted == ["DateValue"]  # used only through sh:node
    assert len(TARGETS) >= 60


@pytest.mark.parametrize("shape, kind, value", TARGETS, ids=["-".join(t) for t in TARGETS])
def test_target_is_not_vacuous(shape: str, kind: str, value: str, real_union: Graph, fixture_graph: Graph) -> None:
    in_real = selected(real_union, kind, value)
    named = NOT_IN_REAL_DATA.get((shape, kind, value))
    if named is None:
        assert in_real > 0, f"{shape} {kind} {value} selects no node of the seeds or samples"
    else:
        assert in_real == 0, f"{value} now occurs in real data: drop it from NOT_IN_REAL_DATA"
        assert selected(fixture_graph, kind, value) > 0, f"{named} does not select it"


def test_fixture_selects_every_target(fixture_graph: Graph) -> None:
    """A valid fixture node per target class (and per targetSubjectsOf / targetObjectsOf property)."""
    assert [t for t in TARGETS if selected(fixture_graph, t[1], t[2]) == 0] == []


# ============================================================================ 5. one case per constraint

@dataclass
class Case:
    id: str
    targets: list[str]  # constraints the damage is aimed at (see constraint_of)
    update: str  # SPARQL Update; %name = a node of FIXTURE_NODES
    expected: set[tuple]  # (shape, focus, path, severity V/W, component) of every new result
    xfail: str | None = None


def C(id: str, targets: str | list[str], update: str, *expected: tuple, xfail: str | None = None) -> Case:
    return Case(id, [targets] if isinstance(targets, str) else targets, update, set(expected), xfail)


ALT_ISSN = "prism:issn|prism:eIssn|schema:issn"
ALT_ISBN = "prism:isbn|schema:isbn"
ALT_DATES = ("kg:postedDate|kg:approvedDate|dcterms:dateAccepted|kg:contentCreated|kg:contentUpdated"
             "|frapo:hasStartDate|frapo:hasEndDate")
ALT_RECORD = "kg:recordCreated|kg:recordDeposited|kg:recordIndexed"
ALT_COUNTS = "kg:referenceCount|kg:citedByCount"
ALT_CONTRIB = "schema:author|schema:editor|schema:translator|schema:contributor"
ALT_VENUE = "schema:isPartOf|frbr:partOf|schema:publisher|dcterms:publisher"
ALT_EVENT = "schema:startDate|schema:endDate"


def replace(node: str, prop: str, new: str) -> str:
    """SPARQL Update: every value of ``node prop`` becomes ``new``."""
    return f"DELETE {{ {node} {prop} ?o }} INSERT {{ {node} {prop} {new} }} WHERE {{ {node} {prop} ?o }}"


def drop(node: str, prop: str) -> str:
    return f"DELETE WHERE {{ {node} {prop} ?o }}"


def add(triples: str) -> str:
    return f"INSERT DATA {{ {triples} }}"


CASES: list[Case] = [
    # ---------------------------------------------------------------- PersonShape
    C("person-no-name", "PersonShape/name", drop("%p1", "schema:name"),
      ("PersonShape", "%p1", "schema:name", "W", "MinCount")),
    C("person-two-orcids", "PersonShape/ORCID", add('%p1 frapo:hasORCID "0000-0001-8135-3489"'),
      ("PersonShape", "%p1", "frapo:hasORCID", "V", "MaxCount")),
    C("person-orcid-without-hyphens", "PersonShape/ORCID", replace("%p1", "frapo:hasORCID", '"0000000218250097"'),
      ("PersonShape", "%p1", "frapo:hasORCID", "V", "Pattern")),
    C("person-no-orcid", "PersonShape/ORCID present", drop("%p1", "frapo:hasORCID"),
      ("PersonShape", "%p1", "frapo:hasORCID", "W", "MinCount")),
    C("person-orcid-check-digit", "PersonShape/sparql:check digit",
      replace("%p1", "frapo:hasORCID", '"0000-0002-1825-0098"'),
      ("PersonShape", "%p1", "frapo:hasORCID", "V", "SPARQL")),
    C("person-orcid-check-digit-x", "PersonShape/sparql:check digit",
      replace("%p3", "frapo:hasORCID", '"0000-0002-1694-2330"'),  # the valid one ends in X
      ("PersonShape", "%p3", "frapo:hasORCID", "V", "SPARQL")),
    C("person-only-foaf", "PersonShape/node:Class", "DELETE DATA { %p1 rdf:type schema:Person }",
      ("PersonShape", "%p1", None, "V", "Class"),
      # p1 holds author/1 of the article and author/1 of the working paper and of the report
      ("RoleShape", "%a1", "pro:isHeldBy", "V", "Or"),
      ("RoleShape", f"{BASE}doi/10.5555/kg.wp.1/author/1", "pro:isHeldBy", "V", "Or"),
      ("RoleShape", f"{BASE}doi/10.5555/kg.report.1/author/1", "pro:isHeldBy", "V", "Or"),
      ("WorkShape", "%w", ALT_CONTRIB, "V", "Or"), ("WorkShape", "%wp", ALT_CONTRIB, "V", "Or"),
      ("WorkShape", "%report", ALT_CONTRIB, "V", "Or")),
    C("person-blank-node", ["PersonShape/node:NodeKind", "TypedNodeShape/node:NodeKind"],
      add('_:b a schema:Person , foaf:Person ; schema:name "Anonymous" ; frapo:hasORCID "0000-0001-8135-3489"'),
      ("PersonShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    # ---------------------------------------------------------------- OrganizationShape
    C("org-no-name", "OrganizationShape/name", drop("%ror", "schema:name"),
      ("OrganizationShape", "%ror", "schema:name", "W", "MinCount")),
    C("org-same-as-literal", "OrganizationShape/same as", add('%ror schema:sameAs "https://ror.org/05gq02987"'),
      ("OrganizationShape", "%ror", "schema:sameAs", "V", "NodeKind")),
    C("org-only-foaf", ["OrganizationShape/node:Class", "RoleShape/affiliation"],
      "DELETE DATA { %ror rdf:type schema:Organization }",
      ("OrganizationShape", "%ror", None, "V", "Class"),
      ("RoleShape", "%a1", "pro:relatesToOrganization", "V", "Class")),
    C("org-blank-node", "OrganizationShape/node:NodeKind", add('_:o a schema:Organization ; schema:name "Anon Org"'),
      ("OrganizationShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    # ---------------------------------------------------------------- CitedWorkShape
    C("cited-two-names", "CitedWorkShape/name", add('%c4 schema:name "Another title"'),
      ("CitedWorkShape", "%c4", "schema:name", "V", "MaxCount")),
    C("cited-preprint-of-literal", "CitedWorkShape/published version", add('%c4 kg:preprintOf "10.1000/x"'),
      ("CitedWorkShape", "%c4", "kg:preprintOf", "V", "NodeKind")),
    C("cited-count-zero", "CitedWorkShape/citing input works (fact)",
      replace("%c4", "kg:citingInputWorks", '"0"^^xsd:integer'),
      ("CitedWorkShape", "%c4", "kg:citingInputWorks", "V", "MinInclusive")),
    C("cited-about-non-tool", "CitedWorkShape/what it documents", add("%c4 schema:about %pub"),
      ("CitedWorkShape", "%c4", "schema:about", "V", "Or")),
    C("cited-untyped", ["CitedWorkShape/node:Class", "WorkShape/cites"], drop("%c4", "rdf:type"),
      ("CitedWorkShape", "%c4", None, "V", "Class"), ("WorkShape", "%w", "cito:cites", "V", "Class")),
    C("cites-a-literal", ["CitedWorkShape/node:NodeKind", "WorkShape/cites"], add('%w cito:cites "Knuth 1968"'),
      ("CitedWorkShape", "Knuth 1968", None, "V", "NodeKind"), ("CitedWorkShape", "Knuth 1968", None, "V", "Class"),
      ("WorkShape", "%w", "cito:cites", "V", "NodeKind"), ("WorkShape", "%w", "cito:cites", "V", "Class"),
      ("WorkShape", "%w", "cito:cites", "V", "SPARQL")),  # ... and no reference points to it
    # ---------------------------------------------------------------- RoleShape
    C("role-unknown-pro-role", "RoleShape/role", replace("%ed1", "pro:withRole", "pro:reviewer"),
      ("RoleShape", "%ed1", "pro:withRole", "V", "In")),
    C("role-without-pro-role", "RoleShape/role", drop("%ed1", "pro:withRole"),
      ("RoleShape", "%ed1", "pro:withRole", "V", "MinCount")),
    C("role-unknown-crossref-role", "RoleShape/Crossref role", replace("%ed1", "kg:roleName", '"reviewer"'),
      ("RoleShape", "%ed1", "kg:roleName", "V", "In")),
    C("role-without-crossref-role", "RoleShape/Crossref role", drop("%ed1", "kg:roleName"),
      ("RoleShape", "%ed1", "kg:roleName", "V", "MinCount")),
    C("role-held-by-non-agent", "RoleShape/agent", replace("%a3", "pro:isHeldBy", "%lic"),
      ("RoleShape", "%a3", "pro:isHeldBy", "V", "Or")),
    C("role-held-by-two", "RoleShape/agent", add("%a1 pro:isHeldBy %p3"),
      ("RoleShape", "%a1", "pro:isHeldBy", "V", "MaxCount")),
    C("role-two-documents", "RoleShape/work", add('%a1 pro:relatesToDocument "10.5555/kg.shapes.1"'),
      ("RoleShape", "%a1", "pro:relatesToDocument", "V", "MaxCount"),
      ("RoleShape", "%a1", "pro:relatesToDocument", "V", "NodeKind")),
    C("role-position-decimal", "RoleShape/position", replace("%ed1", "kg:position", '"1"^^xsd:decimal'),
      ("RoleShape", "%ed1", "kg:position", "V", "Datatype")),
    C("role-position-zero", ["RoleShape/position", "WorkShape/sparql:Contributor positions"],
      replace("%ed1", "kg:position", "0"),
      ("RoleShape", "%ed1", "kg:position", "V", "MinInclusive"), ("WorkShape", "%w", "kg:position", "V", "SPARQL")),
    C("role-two-positions", "RoleShape/position", add("%a3 kg:position 4"),
      ("RoleShape", "%a3", "kg:position", "V", "MaxCount")),
    C("role-sequence-unknown", "RoleShape/sequence", replace("%a2", "kg:sequence", '"middle"'),
      ("RoleShape", "%a2", "kg:sequence", "W", "In")),
    C("role-orcid-authenticated-string", "RoleShape/ORCID authenticated",
      replace("%a1", "kg:orcidAuthenticated", '"yes"'),
      ("RoleShape", "%a1", "kg:orcidAuthenticated", "V", "Datatype")),
    C("role-affiliated-with-person", "RoleShape/affiliation", add("%a1 pro:relatesToOrganization %p2"),
      ("RoleShape", "%a1", "pro:relatesToOrganization", "V", "Class")),
    C("role-untyped", "RoleShape/node:Class", "DELETE DATA { %a1 rdf:type pro:RoleInTime }",
      ("RoleShape", "%a1", None, "V", "Class")),
    C("role-blank-node", "RoleShape/node:NodeKind",
      add('_:r a pro:RoleInTime ; pro:withRole pro:author ; kg:roleName "author" ; pro:isHeldBy %p1 ; '
          'pro:relatesToDocument %book ; kg:position 1'),
      ("RoleShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    # ---------------------------------------------------------------- FunderShape, GrantShape, AmountShape
    C("funder-doi-not-registry", "FunderShape/funder DOI",
      replace("%funder", "frapo:hasFunderIdentifier", '"501100000781"'),
      ("FunderShape", "%funder", "frapo:hasFunderIdentifier", "V", "Pattern")),
    C("funder-two-dois", "FunderShape/funder DOI", add('%funder frapo:hasFunderIdentifier "10.13039/100000001"'),
      ("FunderShape", "%funder", "frapo:hasFunderIdentifier", "V", "MaxCount")),
    C("funder-no-name", "FunderShape/funder name", drop("%funder", "schema:name"),
      ("FunderShape", "%funder", "schema:name", "W", "MinCount"),
      ("OrganizationShape", "%funder", "schema:name", "W", "MinCount")),  # a funder is a schema:Organization too
    C("funder-not-an-agency", ["FunderShape/node:Class", "GrantShape/funder"],
      "DELETE DATA { %funder rdf:type frapo:FundingAgency }",
      ("FunderShape", "%funder", None, "V", "Class"),
      ("GrantShape", "%grant", "frapo:isAwardedBy", "V", "Class"),
      ("GrantShape", "%grantw", "frapo:isAwardedBy", "V", "Class")),
    C("funder-blank-node", "FunderShape/node:NodeKind",
      add('%grant frapo:isAwardedBy _:f . _:f a frapo:FundingAgency ; schema:name "Anon Fund"'),
      ("FunderShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    C("grant-awarded-by-non-agency", "GrantShape/funder", add("%grant frapo:isAwardedBy %pub"),
      ("GrantShape", "%grant", "frapo:isAwardedBy", "V", "Class"),
      ("FunderShape", "%pub", None, "V", "Class")),  # every object of frapo:isAwardedBy is a FunderShape focus
    C("grant-no-number", "GrantShape/award number", drop("%grant", "frapo:hasGrantNumber"),
      ("GrantShape", "%grant", "frapo:hasGrantNumber", "W", "MinCount")),
    C("grant-only-schema-grant", "GrantShape/node:Class", "DELETE DATA { %grant rdf:type frapo:Grant }",
      ("GrantShape", "%grant", None, "V", "Class")),
    C("grant-blank-node", "GrantShape/node:NodeKind",
      add('%w frapo:isFundedBy _:g . _:g a frapo:Grant ; frapo:hasGrantNumber "X-1" ; frapo:isAwardedBy %funder'),
      ("GrantShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    C("amount-not-decimal", "AmountShape/amount", replace("%amount", "schema:value", '"lots"'),
      ("AmountShape", "%amount", "schema:value", "V", "Datatype")),
    C("amount-two-values", "AmountShape/amount", add('%amount schema:value 1.5'),
      ("AmountShape", "%amount", "schema:value", "V", "MaxCount")),
    # ---------------------------------------------------------------- LicenseStatementShape, LinkShape
    C("licence-no-document", "LicenseStatementShape/licence", drop("%lic", "kg:licenseDocument"),
      ("LicenseStatementShape", "%lic", "kg:licenseDocument", "V", "MinCount")),
    C("licence-negative-delay", "LicenseStatementShape/delay", replace("%lic", "kg:delayInDays", "-5"),
      ("LicenseStatementShape", "%lic", "kg:delayInDays", "V", "MinInclusive")),
    C("licence-two-content-versions", "LicenseStatementShape/content version", add('%lic kg:contentVersion "am"'),
      ("LicenseStatementShape", "%lic", "kg:contentVersion", "V", "MaxCount")),
    C("licence-impossible-start", "LicenseStatementShape/start",
      replace("%lic", "schema:startDate", '"2024-02-30"^^xsd:date'),
      ("LicenseStatementShape", "%lic", "schema:startDate", "V", "Or")),
    C("licence-untyped", "LicenseStatementShape/node:Class", drop("%lic", "rdf:type"),
      ("LicenseStatementShape", "%lic", None, "V", "Class")),
    C("link-no-url", "LinkShape/URL", drop("%link", "schema:contentUrl"),
      ("LinkShape", "%link", "schema:contentUrl", "V", "MinCount")),
    C("link-untyped", "LinkShape/node:Class", drop("%link", "rdf:type"),
      ("LinkShape", "%link", None, "V", "Class")),
    # ---------------------------------------------------------------- relations, updates, assertions, trials
    C("relation-no-type", "RelationShape/relation type", drop("%rel", "kg:relationType"),
      ("RelationShape", "%rel", "kg:relationType", "V", "MinCount")),
    C("relation-two-identifiers", "RelationShape/related identifier", add('%rel kg:relatedIdentifier "10.5555/other"'),
      ("RelationShape", "%rel", "kg:relatedIdentifier", "V", "MaxCount")),
    C("relation-no-identifier-type", "RelationShape/identifier type", drop("%rel", "kg:relatedIdentifierType"),
      ("RelationShape", "%rel", "kg:relatedIdentifierType", "V", "MinCount")),
    C("relation-untyped", "RelationShape/node:Class", drop("%rel", "rdf:type"),
      ("RelationShape", "%rel", None, "V", "Class")),
    C("update-of-literal", "UpdateShape/updated work", replace("%upd", "kg:updateOf", '"10.5555/kg.shapes.0"'),
      ("UpdateShape", "%upd", "kg:updateOf", "V", "NodeKind")),
    C("update-untyped", "UpdateShape/node:Class", drop("%upd", "rdf:type"),
      ("UpdateShape", "%upd", None, "V", "Class")),
    C("assertion-no-name", "AssertionShape/assertion name", drop("%asrt", "kg:assertionName"),
      ("AssertionShape", "%asrt", "kg:assertionName", "V", "MinCount")),
    C("assertion-order-string", "AssertionShape/order", replace("%asrt", "kg:assertionOrder", '"first"'),
      ("AssertionShape", "%asrt", "kg:assertionOrder", "V", "Datatype")),
    C("assertion-untyped", "AssertionShape/node:Class", drop("%asrt", "rdf:type"),
      ("AssertionShape", "%asrt", None, "V", "Class")),
    C("trial-no-number", "ClinicalTrialShape/trial number", drop("%trial", "kg:clinicalTrialNumber"),
      ("ClinicalTrialShape", "%trial", "kg:clinicalTrialNumber", "V", "MinCount")),
    C("trial-untyped", "ClinicalTrialShape/node:Class", drop("%trial", "rdf:type"),
      ("ClinicalTrialShape", "%trial", None, "V", "Class")),
    # ---------------------------------------------------------------- provenance
    C("source-short-sha256", "SourceFileShape/SHA-256", replace("%src", "kg:sha256", '"27af0884"'),
      ("SourceFileShape", "%src", "kg:sha256", "V", "Pattern")),
    C("source-no-path", "SourceFileShape/path", drop("%src", "kg:sourcePath"),
      ("SourceFileShape", "%src", "kg:sourcePath", "V", "MinCount")),
    C("source-not-a-source-file", ["SourceFileShape/node:Class", "WorkShape/source"],
      "DELETE DATA { %src rdf:type kg:SourceFile }",
      ("SourceFileShape", "%src", None, "V", "Class"), ("WorkShape", "%w", "prov:wasDerivedFrom", "V", "Class")),
    C("agent-two-versions", "AgentShape/version", add('%agent schema:softwareVersion "9.9.9"'),
      ("AgentShape", "%agent", "schema:softwareVersion", "V", "MaxCount")),
    # ---------------------------------------------------------------- tools
    C("tool-no-name", "ToolShape/tool name", drop("%nsight", "schema:name"),
      ("ToolShape", "%nsight", "schema:name", "V", "MinCount")),
    C("tool-no-category", "ToolShape/category", drop("%nsight", "schema:applicationCategory"),
      ("ToolShape", "%nsight", "schema:applicationCategory", "V", "MinCount")),
    C("tool-unknown-category", "ToolShape/known category",
      replace("%nsight", "schema:applicationCategory", '"gizmo"'),
      ("ToolShape", "%nsight", "schema:applicationCategory", "W", "In")),
    C("tool-not-a-software-application", "ToolShape/node:And",
      "DELETE DATA { %nsight rdf:type schema:SoftwareApplication }",
      ("ToolShape", "%nsight", None, "V", "And")),
    C("tool-blank-node", "ToolShape/node:NodeKind",
      add('_:t a fabio:Software , schema:SoftwareApplication ; schema:name "T" ; schema:applicationCategory "profiler" '
          '; '
          'kg:toolSource "catalogue"'),
      ("ToolShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    C("tool-no-source", "ToolShape/source", drop("%nsight", "kg:toolSource"),
      ("ToolShape", "%nsight", "kg:toolSource", "V", "MinCount")),
    C("tool-unknown-source", "ToolShape/source", replace("%nsight", "kg:toolSource", '"rumour"'),
      ("ToolShape", "%nsight", "kg:toolSource", "V", "In")),
    C("tool-named-score-above-1", "ToolShape/corpus score", replace("%quokka", "kg:score", "1.5"),
      ("ToolShape", "%quokka", "kg:score", "V", "MaxInclusive")),
    C("tool-named-without-score", "ToolShape/sparql:A tool named by references", drop("%quokka", "kg:score"),
      ("ToolShape", "%quokka", "kg:score", "V", "SPARQL")),
    C("tool-named-no-citing-work", "ToolShape/citing works", replace("%quokka", "kg:citingWorks", "0"),
      ("ToolShape", "%quokka", "kg:citingWorks", "V", "MinInclusive")),
    C("recognition-two-tools", "ToolRecognitionShape/tool", add("%ev2 kg:recognizedTool %nvbit"),
      ("ToolRecognitionShape", "%ev2", "kg:recognizedTool", "V", "MaxCount")),
    C("recognition-unknown-method", "ToolRecognitionShape/method", replace("%ev2", "kg:method", '"guess"'),
      ("ToolRecognitionShape", "%ev2", "kg:method", "V", "In")),
    C("recognition-score-above-1", "ToolRecognitionShape/score", replace("%ev2", "kg:score", "1.5"),
      ("ToolRecognitionShape", "%ev2", "kg:score", "V", "MaxInclusive")),
    C("recognition-no-matched-text", "ToolRecognitionShape/matched text", drop("%ev2", "kg:matchedText"),
      ("ToolRecognitionShape", "%ev2", "kg:matchedText", "V", "MinCount")),
    C("recognition-two-matched-texts", "ToolRecognitionShape/matched text", add('%ev2 kg:matchedText "nsight"'),
      ("ToolRecognitionShape", "%ev2", "kg:matchedText", "V", "MaxCount")),
    C("recognition-untyped", ["ToolRecognitionShape/node:Class", "ReferenceShape/tool evidence"],
      drop("%ev2", "rdf:type"),
      ("ToolRecognitionShape", "%ev2", None, "V", "Class"),
      ("ReferenceShape", "%r2", "kg:hasToolRecognition", "V", "Class")),
    C("candidate-no-name", "ToolCandidateShape/candidate name", drop("%cand", "schema:name"),
      ("ToolCandidateShape", "%cand", "schema:name", "V", "MinCount")),
    C("candidate-untyped", ["ToolCandidateShape/node:Class", "ReferenceShape/tool candidate"],
      drop("%cand", "rdf:type"),
      ("ToolCandidateShape", "%cand", None, "V", "Class"),
      ("ReferenceShape", "%r5", "kg:suggestsTool", "V", "Class")),
    # ---------------------------------------------------------------- topics
    C("candidate-no-category", "ToolCandidateShape/category", drop("%cand", "schema:applicationCategory"),
      ("ToolCandidateShape", "%cand", "schema:applicationCategory", "V", "MinCount")),
    C("candidate-no-score", "ToolCandidateShape/score", drop("%cand", "kg:score"),
      ("ToolCandidateShape", "%cand", "kg:score", "V", "MinCount")),
    C("candidate-no-citing-works", "ToolCandidateShape/citing works", drop("%cand", "kg:citingWorks"),
      ("ToolCandidateShape", "%cand", "kg:citingWorks", "V", "MinCount")),
    # ---------------------------------------------------------------- ArtifactShape, ArtifactRecognitionShape
    C("artifact-no-name", "ArtifactShape/name", drop("%bert", "schema:name"),
      ("ArtifactShape", "%bert", "schema:name", "V", "MinCount")),
    C("artifact-no-source", "ArtifactShape/source", drop("%bert", "kg:toolSource"),
      ("ArtifactShape", "%bert", "kg:toolSource", "V", "MinCount")),
    C("artifact-score-above-1", "ArtifactShape/score", replace("%bert", "kg:score", "1.5"),
      ("ArtifactShape", "%bert", "kg:score", "V", "MaxInclusive")),
    C("artifact-no-citing-work", "ArtifactShape/citing works", replace("%bert", "kg:citingWorks", "0"),
      ("ArtifactShape", "%bert", "kg:citingWorks", "V", "MinInclusive")),
    C("artifact-named-without-score", "ArtifactShape/sparql:An artifact named by references", drop("%bert", "kg:score"),
      ("ArtifactShape", "%bert", "kg:score", "V", "SPARQL")),
    C("artifact-not-a-creative-work", "ArtifactShape/node:Class", "DELETE DATA { %bert rdf:type schema:CreativeWork }",
      ("ArtifactShape", "%bert", None, "V", "Class")),
    C("artifact-of-no-kind", "ArtifactShape/node:Or", "DELETE DATA { %bert rdf:type kg:MachineLearningModel }",
      ("ArtifactShape", "%bert", None, "V", "Or"), ("CitedWorkShape", "%c7", "schema:about", "V", "Or")),
    C("artifact-blank-node", "ArtifactShape/node:NodeKind",
      add('%r7 kg:citesArtifact _:a . _:a a schema:CreativeWork , fabio:Algorithm ; schema:name "x" ; kg:toolSource '
          '"catalogue"'),
      ("ArtifactShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    C("artifact-recognition-two-artifacts", "ArtifactRecognitionShape/artifact",
      add("%ev7 kg:recognizedArtifact %rodinia"),
      ("ArtifactRecognitionShape", "%ev7", "kg:recognizedArtifact", "V", "MaxCount")),
    C("artifact-recognition-unknown-method", "ArtifactRecognitionShape/method", replace("%ev7", "kg:method", '"guess"'),
      ("ArtifactRecognitionShape", "%ev7", "kg:method", "V", "In")),
    C("artifact-recognition-score-above-1", "ArtifactRecognitionShape/score", replace("%ev7", "kg:score", "1.5"),
      ("ArtifactRecognitionShape", "%ev7", "kg:score", "V", "MaxInclusive")),
    C("artifact-recognition-no-matched-text", "ArtifactRecognitionShape/matched text", drop("%ev7", "kg:matchedText"),
      ("ArtifactRecognitionShape", "%ev7", "kg:matchedText", "V", "MinCount")),
    C("artifact-recognition-untyped", "ArtifactRecognitionShape/node:Class", drop("%ev7", "rdf:type"),
      ("ArtifactRecognitionShape", "%ev7", None, "V", "Class")),
    C("topic-assignment-tied-false", "TopicAssignmentShape/tied", add("%ta2 kg:tiedWithPrimary false"),
      ("TopicAssignmentShape", "%ta2", "kg:tiedWithPrimary", "V", "In")),
    C("topic-assignment-two-topics", "TopicAssignmentShape/topic", add("%ta2 kg:topic %topic1"),
      ("TopicAssignmentShape", "%ta2", "kg:topic", "V", "MaxCount")),
    C("topic-assignment-primary-string", "TopicAssignmentShape/primary", replace("%ta2", "kg:isPrimary", '"no"'),
      ("TopicAssignmentShape", "%ta2", "kg:isPrimary", "V", "Datatype")),
    C("topic-assignment-score-above-1", "TopicAssignmentShape/score", replace("%ta2", "kg:score", "1.5"),
      ("TopicAssignmentShape", "%ta2", "kg:score", "V", "MaxInclusive")),
    C("topic-assignment-unknown-method", "TopicAssignmentShape/method", replace("%ta2", "kg:method", '"magic"'),
      ("TopicAssignmentShape", "%ta2", "kg:method", "V", "In")),
    C("topic-primary-not-subject", "TopicAssignmentShape/sparql:primary topic assignment",
      drop("%w", "dcterms:subject"),
      ("TopicAssignmentShape", "%ta1", "kg:topic", "V", "SPARQL")),
    C("topic-assignment-untyped", "TopicAssignmentShape/node:Class", drop("%ta2", "rdf:type"),
      ("TopicAssignmentShape", "%ta2", None, "V", "Class")),
    C("concept-no-label", "ConceptShape/label", drop("%topic1", "skos:prefLabel"),
      ("ConceptShape", "%topic1", "skos:prefLabel", "V", "MinCount")),
    C("concept-no-scheme", "ConceptShape/scheme", drop("%topic1", "skos:inScheme"),
      ("ConceptShape", "%topic1", "skos:inScheme", "V", "MinCount")),
    C("concept-untyped", ["ConceptShape/node:Class", "WorkShape/primary topic", "TopicAssignmentShape/topic"],
      "DELETE DATA { %topic1 rdf:type skos:Concept }",
      ("ConceptShape", "%topic1", None, "V", "Class"),
      ("WorkShape", "%w", "dcterms:subject", "V", "Class"),
      ("TopicAssignmentShape", "%ta1", "kg:topic", "V", "Class"),
      # the peer review's title names the same topic (a secondary assignment)
      ("TopicAssignmentShape", f"{BASE}doi/10.5555/kg.review.1/topic/profiling", "kg:topic", "V", "Class")),
    C("typed-blank-node", "TypedNodeShape/node:NodeKind", add("_:x a kg:Note"),
      ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    # ---------------------------------------------------------------- venues
    C("container-untyped", "ContainerShape/class", drop("%journal", "rdf:type"),
      ("ContainerShape", "%journal", "rdf:type", "V", "MinCount")),
    C("container-two-titles", "ContainerShape/container title", add('%journal schema:name "J. of Shape Tests"'),
      ("ContainerShape", "%journal", "schema:name", "W", "MaxCount")),
    C("container-literal", ["ContainerShape/node:NodeKind", "WorkShape/venue and publisher links"],
      add('%book schema:isPartOf "Shape Series"'),
      ("ContainerShape", "Shape Series", None, "V", "NodeKind"),
      ("ContainerShape", "Shape Series", "rdf:type", "V", "MinCount"),
      ("WorkShape", "%book", ALT_VENUE, "V", "NodeKind")),
    C("volume-no-number", "JournalVolumeShape/volume number", drop("%vol", "schema:volumeNumber"),
      ("JournalVolumeShape", "%vol", "schema:volumeNumber", "W", "MinCount")),
    C("volume-two-numbers", "JournalVolumeShape/one volume number", add('%vol schema:volumeNumber "7b"'),
      ("JournalVolumeShape", "%vol", "schema:volumeNumber", "V", "MaxCount")),
    C("volume-in-two-journals", "JournalVolumeShape/journal", add("%vol frbr:partOf %book"),
      ("JournalVolumeShape", "%vol", "frbr:partOf", "V", "MaxCount")),
    C("issue-no-number", "JournalIssueShape/issue number", drop("%issue", "schema:issueNumber"),
      ("JournalIssueShape", "%issue", "schema:issueNumber", "W", "MinCount")),
    C("issue-two-numbers", "JournalIssueShape/one issue number", add('%issue schema:issueNumber "3a"'),
      ("JournalIssueShape", "%issue", "schema:issueNumber", "V", "MaxCount")),
    C("issn-without-hyphen", "ISSNShape/ISSN", replace("%journal", "prism:issn", '"03178471"'),
      ("ISSNShape", "%journal", ALT_ISSN, "V", "Pattern")),
    C("issn-language-tagged", "ISSNShape/ISSN", replace("%journal", "schema:issn", '"0317-8471"@en'),
      ("ISSNShape", "%journal", ALT_ISSN, "V", "Datatype")),
    C("issn-check-digit", "ISSNShape/sparql:ISSN", replace("%journal", "prism:issn", '"0317-8472"'),
      ("ISSNShape", "%journal", "prism:issn", "V", "SPARQL")),
    C("eissn-check-digit", "ISSNShape/sparql:ISSN", replace("%journal", "prism:eIssn", '"1050-1241"'),
      ("ISSNShape", "%journal", "prism:eIssn", "V", "SPARQL")),
    C("schema-issn-check-digit", "ISSNShape/sparql:ISSN", replace("%journal", "schema:issn", '"0317-8472"'),
      ("ISSNShape", "%journal", "schema:issn", "V", "SPARQL")),
    C("isbn-with-hyphens", "ISBNShape/ISBN", replace("%book", "prism:isbn", '"978-0-306-40615-7"'),
      ("ISBNShape", "%book", ALT_ISBN, "V", "Pattern")),
    C("isbn13-check-digit", "ISBNShape/sparql:ISBN-13",
      'DELETE DATA { %book prism:isbn "9780306406157" } ; INSERT DATA { %book prism:isbn "9780306406158" }',
      ("ISBNShape", "%book", "prism:isbn", "V", "SPARQL")),
    C("schema-isbn13-check-digit", "ISBNShape/sparql:ISBN-13",
      'DELETE DATA { %book schema:isbn "9780306406157" } ; INSERT DATA { %book schema:isbn "9780306406158" }',
      ("ISBNShape", "%book", "schema:isbn", "V", "SPARQL")),
    C("isbn10-check-digit", "ISBN10Shape/sparql:ISBN-10",
      'DELETE DATA { %book prism:isbn "080442957X" } ; INSERT DATA { %book prism:isbn "0804429570" }',
      ("ISBN10Shape", "%book", "prism:isbn", "V", "SPARQL")),
    C("event-no-name", "EventShape/node:Or",
      "DELETE WHERE { %event schema:name ?n } ; DELETE WHERE { %event schema:alternateName ?a }",
      ("EventShape", "%event", None, "V", "Or")),
    C("event-features-literal", "EventShape/works", add('%event schema:workFeatured "10.5555/kg.shapes.1"'),
      ("EventShape", "%event", "schema:workFeatured", "V", "NodeKind")),
    C("event-features-nothing", "EventShape/works", drop("%event", "schema:workFeatured"),
      ("EventShape", "%event", "schema:workFeatured", "V", "MinCount")),
    C("event-impossible-start", "EventShape/dates", replace("%event", "schema:startDate", '"2024-02-30"^^xsd:date'),
      ("EventShape", "%event", ALT_EVENT, "V", "Node"), ("DateValue", "2024-02-30", None, "V", "Or")),
    C("event-ends-before-start", "EventShape/sparql:ends",
      replace("%event", "schema:endDate", '"2024-05-31"^^xsd:date'),
      ("EventShape", "%event", "schema:startDate", "V", "SPARQL")),
    C("event-untyped", "EventShape/node:Class", drop("%event", "rdf:type"),
      ("EventShape", "%event", None, "V", "Class")),
    C("event-blank-node", "EventShape/node:NodeKind",
      add('_:e a schema:Event ; schema:name "E" ; schema:workFeatured %w'),
      ("EventShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    # ---------------------------------------------------------------- Work level
    C("realises-two-works", "RealizationShape/realises", add("%data frbr:realizationOf %wpwl"),
      ("RealizationShape", "%data", "frbr:realizationOf", "V", "MaxCount")),
    C("realises-an-expression", ["RealizationShape/realises", "WorkLevelShape/realisation"],
      replace("%data", "frbr:realizationOf", "%book"),
      ("RealizationShape", "%data", "frbr:realizationOf", "V", "QualifiedMinCount"),
      ("WorkLevelShape", "%datawl", "^frbr:realizationOf", "V", "MinCount")),
    C("realises-an-untyped-node", "RealizationShape/realises",
      replace("%data", "frbr:realizationOf", f"<{BASE}work/nowhere>"),
      ("RealizationShape", "%data", "frbr:realizationOf", "V", "QualifiedMinCount"),
      ("WorkLevelShape", "%datawl", "^frbr:realizationOf", "V", "MinCount")),
    C("realises-a-literal", "RealizationShape/realises", replace("%data", "frbr:realizationOf", '"kernel timings"'),
      ("RealizationShape", "%data", "frbr:realizationOf", "V", "NodeKind"),
      ("RealizationShape", "%data", "frbr:realizationOf", "V", "QualifiedMinCount"),
      ("WorkLevelShape", "%datawl", "^frbr:realizationOf", "V", "MinCount")),
    C("work-level-unrealised", "WorkLevelShape/realisation", "DELETE DATA { %data frbr:realizationOf %datawl }",
      ("WorkLevelShape", "%datawl", "^frbr:realizationOf", "V", "MinCount")),
    C("work-level-blank-node", "WorkLevelShape/node:NodeKind", add("_:wl a fabio:Report"),
      ("WorkLevelShape", "_:", None, "V", "NodeKind"), ("WorkLevelShape", "_:", "^frbr:realizationOf", "V", "MinCount"),
      ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    # ---------------------------------------------------------------- WorkShape: properties
    C("work-two-dois", "WorkShape/DOI", add('%w prism:doi "10.5555/kg.shapes.1x"'),
      ("WorkShape", "%w", "prism:doi", "V", "MaxCount")),
    C("work-doi-malformed", "WorkShape/DOI", replace("%w", "prism:doi", '"11.5555/kg.shapes.1"'),
      ("WorkShape", "%w", "prism:doi", "V", "Pattern")),
    C("work-doi-missing", "WorkShape/DOI", drop("%w", "prism:doi"),
      ("WorkShape", "%w", "prism:doi", "V", "MinCount")),
    C("work-doi-any-uri", "WorkShape/DOI", replace("%w", "prism:doi", '"10.5555/KG.Shapes.1"^^xsd:anyURI'),
      ("WorkShape", "%w", "prism:doi", "V", "Datatype")),
    C("work-type-unknown", "WorkShape/Crossref type", replace("%w", "kg:crossrefType", '"journal_article"'),
      ("WorkShape", "%w", "kg:crossrefType", "V", "In")),
    C("work-two-types", "WorkShape/Crossref type", add('%w kg:crossrefType "other"'),
      ("WorkShape", "%w", "kg:crossrefType", "V", "MaxCount")),
    C("work-no-rdf-type", "WorkShape/class", drop("%w", "rdf:type"),
      ("WorkShape", "%w", "rdf:type", "V", "QualifiedMinCount")),
    C("work-no-fabio-type", "WorkShape/class", "DELETE DATA { %w rdf:type fabio:JournalArticle }",
      ("WorkShape", "%w", "rdf:type", "V", "QualifiedMinCount")),
    C("work-two-titles", "WorkShape/main title", add('%w dcterms:title "A second title"'),
      ("WorkShape", "%w", "dcterms:title", "V", "MaxCount")),
    C("work-title-language-tagged", "WorkShape/main title",
      replace("%w", "dcterms:title", '"Profiling GPU kernels"@en'),
      ("WorkShape", "%w", "dcterms:title", "V", "Datatype")),
    C("work-no-title", "WorkShape/title present", drop("%w", "dcterms:title"),
      ("WorkShape", "%w", "dcterms:title", "W", "MinCount")),
    C("work-two-names", "WorkShape/name", add('%w schema:name "Another name"'),
      ("WorkShape", "%w", "schema:name", "V", "MaxCount")),
    C("work-issued-impossible", "WorkShape/issued", replace("%w", "dcterms:issued", '"2024-02-30"^^xsd:date'),
      ("WorkShape", "%w", "dcterms:issued", "V", "Node"), ("DateValue", "2024-02-30", None, "V", "Or")),
    C("work-issued-twice", "WorkShape/issued", add('%w dcterms:issued "2024"^^xsd:gYear'),
      ("WorkShape", "%w", "dcterms:issued", "V", "MaxCount")),
    C("work-issued-impossible-month", "WorkShape/issued",
      replace("%w", "dcterms:issued", '"2024-00"^^xsd:gYearMonth'),
      ("WorkShape", "%w", "dcterms:issued", "V", "Node"), ("DateValue", "2024-00", None, "V", "Or")),
    C("work-date-published-datetime", "WorkShape/date published",
      replace("%w", "schema:datePublished", '"2024-03-05T00:00:00Z"^^xsd:dateTime'),
      ("WorkShape", "%w", "schema:datePublished", "V", "Node"),
      ("DateValue", "2024-03-05T00:00:00Z", None, "V", "Or")),
    C("work-publication-date-string", "WorkShape/publication date",
      replace("%w", "prism:publicationDate", '"March 2024"'),
      ("WorkShape", "%w", "prism:publicationDate", "V", "Node"), ("DateValue", "March 2024", None, "V", "Or")),
    C("work-print-date-impossible", "WorkShape/published in print",
      replace("%w", "kg:publishedPrint", '"2024-02-30"^^xsd:date'),
      ("WorkShape", "%w", "kg:publishedPrint", "V", "Node"), ("DateValue", "2024-02-30", None, "V", "Or")),
    C("work-two-online-dates", "WorkShape/published online", add('%w kg:publishedOnline "2024-02"^^xsd:gYearMonth'),
      ("WorkShape", "%w", "kg:publishedOnline", "V", "MaxCount")),
    C("work-accepted-datetime", "WorkShape/other dates",
      replace("%w", "dcterms:dateAccepted", '"2024-01-10T00:00:00"^^xsd:dateTime'),
      ("WorkShape", "%w", ALT_DATES, "V", "Node"), ("DateValue", "2024-01-10T00:00:00", None, "V", "Or")),
    C("grant-start-string", "WorkShape/other dates", replace("%grantw", "frapo:hasStartDate", '"soon"'),
      ("WorkShape", "%grantw", ALT_DATES, "V", "Node"), ("DateValue", "soon", None, "V", "Or")),
    C("work-publication-year-month", "WorkShape/publication year",
      replace("%w", "fabio:hasPublicationYear", '"2024-03"^^xsd:gYearMonth'),
      ("WorkShape", "%w", "fabio:hasPublicationYear", "V", "Datatype")),
    C("work-created-is-a-date", "WorkShape/record dates", replace("%w", "kg:recordCreated", '"2024-02-01"^^xsd:date'),
      ("WorkShape", "%w", ALT_RECORD, "V", "Datatype")),
    C("work-negative-reference-count", "WorkShape/counts", replace("%w", "kg:referenceCount", "-1"),
      ("WorkShape", "%w", ALT_COUNTS, "V", "MinInclusive")),
    C("work-cited-by-count-string", "WorkShape/counts", replace("%w", "kg:citedByCount", '"2"'),
      ("WorkShape", "%w", ALT_COUNTS, "V", "Datatype"),
      ("WorkShape", "%w", ALT_COUNTS, "V", "MinInclusive")),  # a string is not comparable with 0: SHACL says violation
    C("work-no-source", "WorkShape/source", drop("%w", "prov:wasDerivedFrom"),
      ("WorkShape", "%w", "prov:wasDerivedFrom", "V", "MinCount")),
    C("work-attributed-to-publisher", "WorkShape/tool", replace("%w", "prov:wasAttributedTo", "%pub"),
      ("WorkShape", "%w", "prov:wasAttributedTo", "V", "Class")),
    C("work-not-attributed", "WorkShape/tool", drop("%w", "prov:wasAttributedTo"),
      ("WorkShape", "%w", "prov:wasAttributedTo", "V", "MinCount")),
    C("work-part-not-a-reference", ["WorkShape/reference", "ReferenceShape/node:Class"],
      "DELETE DATA { %r4 rdf:type biro:BibliographicReference }",
      ("WorkShape", "%w", "frbr:part", "V", "Class"), ("ReferenceShape", "%r4", None, "V", "Class")),
    C("work-contributor-not-an-agent", "WorkShape/contributor", add("%w schema:contributor %lic"),
      ("WorkShape", "%w", ALT_CONTRIB, "V", "Or")),
    C("work-author-literal", "WorkShape/contributor", add('%w schema:author "Anonymous"'),
      ("WorkShape", "%w", ALT_CONTRIB, "V", "NodeKind"), ("WorkShape", "%w", ALT_CONTRIB, "V", "Or")),
    C("work-publisher-literal", "WorkShape/venue and publisher links", add('%w dcterms:publisher "Shape Test Press"'),
      ("WorkShape", "%w", ALT_VENUE, "V", "NodeKind")),
    C("work-two-primary-topics", "WorkShape/primary topic", add("%w dcterms:subject %topic2"),
      ("WorkShape", "%w", "dcterms:subject", "V", "MaxCount")),
    C("work-blank-node", ["WorkShape/node:NodeKind"],
      add('_:x a fabio:Expression ; kg:crossrefType "other" ; prism:doi "10.5555/blank" ; dcterms:title "t" ; '
          "prov:wasDerivedFrom %src ; prov:wasAttributedTo %agent"),
      ("WorkShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind")),
    # ---------------------------------------------------------------- WorkShape: SPARQL constraints
    C("work-first-page-after-last", "WorkShape/sparql:first page", replace("%w", "prism:startingPage", '"30"'),
      ("WorkShape", "%w", "prism:startingPage", "V", "SPARQL")),
    C("work-issued-after-deposit", "IssuedBeforeDepositShape/sparql:deposited",
      replace("%w", "kg:recordDeposited", '"2024-01-01T00:00:00Z"^^xsd:dateTime'),
      ("IssuedBeforeDepositShape", "%w", "dcterms:issued", "W", "SPARQL")),
    C("work-duplicate-reference-key", "WorkShape/sparql:same key", replace("%r2", "kg:referenceKey", '"ref1"'),
      ("WorkShape", "%w", "kg:referenceKey", "V", "SPARQL")),
    C("work-reference-position-gap", "WorkShape/sparql:Reference positions", replace("%r5", "kg:position", "6"),
      ("WorkShape", "%w", "kg:position", "V", "SPARQL")),
    C("work-reference-position-duplicate", "WorkShape/sparql:Reference positions", replace("%r5", "kg:position", "4"),
      ("WorkShape", "%w", "kg:position", "V", "SPARQL")),
    C("work-cites-without-reference", "WorkShape/sparql:no reference of the work", add("%book cito:cites %c3"),
      ("WorkShape", "%book", "cito:cites", "V", "SPARQL")),
    C("work-duplicate-author-position", "WorkShape/sparql:Contributor positions", replace("%a2", "kg:position", "1"),
      ("WorkShape", "%w", "kg:position", "V", "SPARQL")),
    C("work-author-position-gap", "WorkShape/sparql:Contributor positions", replace("%a3", "kg:position", "5"),
      ("WorkShape", "%w", "kg:position", "V", "SPARQL")),
    # ---------------------------------------------------------------- ReferenceShape
    C("reference-in-two-works", "ReferenceShape/citing work", add("%book frbr:part %r1"),
      ("ReferenceShape", "%r1", "^frbr:part", "V", "MaxCount")),
    C("reference-in-no-work", ["ReferenceShape/citing work", "WorkShape/sparql:no reference of the work"],
      "DELETE DATA { %w frbr:part %r8 }",
      ("ReferenceShape", "%r8", "^frbr:part", "V", "MinCount"), ("WorkShape", "%w", "cito:cites", "V", "SPARQL")),
    C("reference-two-cited-works", "ReferenceShape/cited work", add("%r4 biro:references %c3"),
      ("ReferenceShape", "%r4", "biro:references", "V", "MaxCount")),
    C("reference-cites-nothing", ["ReferenceShape/cited work", "WorkShape/sparql:no reference of the work"],
      drop("%r3", "biro:references"),
      ("ReferenceShape", "%r3", "biro:references", "V", "MinCount"), ("WorkShape", "%w", "cito:cites", "V", "SPARQL")),
    C("reference-no-position", "ReferenceShape/position", drop("%r8", "kg:position"),
      ("ReferenceShape", "%r8", "kg:position", "V", "MinCount")),
    C("reference-position-decimal", "ReferenceShape/position", replace("%r5", "kg:position", '"5"^^xsd:decimal'),
      ("ReferenceShape", "%r5", "kg:position", "V", "Datatype")),
    C("reference-position-zero", "ReferenceShape/position", replace("%r1", "kg:position", "0"),
      ("ReferenceShape", "%r1", "kg:position", "V", "MinInclusive")),
    C("reference-two-positions", "ReferenceShape/position", add("%r1 kg:position 9"),
      ("ReferenceShape", "%r1", "kg:position", "V", "MaxCount")),
    C("reference-two-keys", "ReferenceShape/key", add('%r4 kg:referenceKey "ref4b"'),
      ("ReferenceShape", "%r4", "kg:referenceKey", "V", "MaxCount")),
    C("reference-key-integer", "ReferenceShape/key", replace("%r4", "kg:referenceKey", "4"),
      ("ReferenceShape", "%r4", "kg:referenceKey", "V", "Datatype")),
    C("reference-text-language-tagged", "ReferenceShape/text", replace("%r2", "c4o:hasContent", '"NVIDIA Nsight"@en'),
      ("ReferenceShape", "%r2", "c4o:hasContent", "V", "Datatype")),
    C("reference-two-texts", "ReferenceShape/text", add('%r2 c4o:hasContent "Another text"'),
      ("ReferenceShape", "%r2", "c4o:hasContent", "V", "MaxCount")),
    C("reference-cites-input-literal", "ReferenceShape/cites input work (fact)",
      add('%r3 kg:citesInputWork "10.1000/x"'),
      ("ReferenceShape", "%r3", "kg:citesInputWork", "V", "NodeKind")),
    C("reference-earlier-version-literal", "ReferenceShape/cites earlier version (fact)",
      add('%r3 kg:citesEarlierVersionOf "10.1000/x"'),
      ("ReferenceShape", "%r3", "kg:citesEarlierVersionOf", "V", "NodeKind")),
    C("reference-unknown-method", "ReferenceShape/resolution method",
      replace("%r4", "kg:resolutionMethod", '"guessed"'),
      ("ReferenceShape", "%r4", "kg:resolutionMethod", "V", "In")),
    C("reference-unresolved", "ReferenceShape/resolved", replace("%r4", "kg:resolutionMethod", '"unresolved"'),
      ("ReferenceShape", "%r4", "kg:resolutionMethod", "W", "Not")),
    C("reference-score-above-1", "ReferenceShape/resolution score", replace("%r4", "kg:resolutionScore", "1.5"),
      ("ReferenceShape", "%r4", "kg:resolutionScore", "V", "MaxInclusive")),
    C("reference-resolved-score-zero", "ResolutionScoreShape/sparql:only an unresolved reference scores 0",
      replace("%r4", "kg:resolutionScore", '"0"^^xsd:decimal'),
      ("ResolutionScoreShape", "%r4", "kg:resolutionScore", "V", "SPARQL")),
    C("reference-unresolved-score-zero", "ReferenceShape/resolved",  # (0 is an unresolved reference's score)
      replace("%r4", "kg:resolutionMethod", '"unresolved"') + " ; "
      + replace("%r4", "kg:resolutionScore", '"0"^^xsd:decimal'),
      ("ReferenceShape", "%r4", "kg:resolutionMethod", "W", "Not")),
    C("reference-unknown-kind", "ReferenceShape/kind", replace("%r4", "kg:referenceKind", '"blogpost"'),
      ("ReferenceShape", "%r4", "kg:referenceKind", "V", "In")),
    # ---------------------------------------------------------------- ParsedAuthorShape (each parsed author in order)
    C("parsed-author-untyped", ["ParsedAuthorShape/node:Class", "ReferenceShape/parsed author"],
      drop("%pa1", "rdf:type"),
      ("ParsedAuthorShape", "%pa1", None, "V", "Class"),
      ("ReferenceShape", "%r7", "kg:parsedAuthor", "V", "Class")),
    C("parsed-author-blank-node", ["ParsedAuthorShape/node:NodeKind", "TypedNodeShape/node:NodeKind"],
      add('%r7 kg:parsedAuthor _:b . _:b a kg:ParsedAuthor ; kg:position 9 ; schema:name "X. Blank"'),
      ("ParsedAuthorShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind"),
      ("ReferenceShape", "%r7", "kg:parsedAuthor", "V", "NodeKind")),
    C("parsed-author-of-no-reference", "ParsedAuthorShape/reference",
      add(f'<{A}/reference/7/author/9> a kg:ParsedAuthor ; kg:position 9 ; schema:name "X. Loose"'),
      ("ParsedAuthorShape", f"{A}/reference/7/author/9", "^kg:parsedAuthor", "V", "MinCount")),
    C("parsed-author-of-two-references", "ParsedAuthorShape/reference", add("%r8 kg:parsedAuthor %pa2"),
      ("ParsedAuthorShape", "%pa2", "^kg:parsedAuthor", "V", "MaxCount")),
    C("parsed-author-no-position", "ParsedAuthorShape/position", drop("%pa1", "kg:position"),
      ("ParsedAuthorShape", "%pa1", "kg:position", "V", "MinCount")),
    C("parsed-author-position-zero", "ParsedAuthorShape/position", replace("%pa1", "kg:position", "0"),
      ("ParsedAuthorShape", "%pa1", "kg:position", "V", "MinInclusive")),
    C("parsed-author-no-name", "ParsedAuthorShape/name", drop("%pa1", "schema:name"),
      ("ParsedAuthorShape", "%pa1", "schema:name", "V", "MinCount")),
    C("parsed-author-two-family-names", "ParsedAuthorShape/family name", add('%pa1 schema:familyName "Other"'),
      ("ParsedAuthorShape", "%pa1", "schema:familyName", "V", "MaxCount")),
    C("parsed-authors-share-a-place", "ParsedAuthorShape/sparql:share place",
      replace("%pa2", "kg:position", "1"),
      ("ParsedAuthorShape", "%pa1", "kg:position", "V", "SPARQL"),
      ("ParsedAuthorShape", "%pa2", "kg:position", "V", "SPARQL")),
    C("reference-parsed-year-month", "ReferenceShape/parsed year",
      replace("%r4", "kg:parsedYear", '"1968-01"^^xsd:gYearMonth'),
      ("ReferenceShape", "%r4", "kg:parsedYear", "V", "Datatype")),
    C("reference-cites-non-tool", ["ReferenceShape/tool", "ToolEvidenceShape/sparql:without recorded evidence"],
      add("%r4 kg:citesTool %pub"),
      ("ReferenceShape", "%r4", "kg:citesTool", "V", "Class"),
      ("ToolEvidenceShape", "%r4", "kg:citesTool", "V", "SPARQL"),
      ("ToolShape", "%pub", None, "V", "And"),  # every object of kg:citesTool is a ToolShape focus
      ("ToolShape", "%pub", "schema:applicationCategory", "V", "MinCount"),
      ("ToolShape", "%pub", "kg:toolSource", "V", "MinCount")),
    C("reference-two-candidates", "ReferenceShape/tool candidate",
      add(f'%r5 kg:suggestsTool <{BASE}tool-candidate/other> . <{BASE}tool-candidate/other> a kg:ToolCandidate ; '
          'schema:name "other" ; schema:applicationCategory "other" ; kg:score 0.5 ; kg:citingWorks 1'),
      ("ReferenceShape", "%r5", "kg:suggestsTool", "V", "MaxCount")),
    C("reference-tool-without-evidence", "ToolEvidenceShape/sparql:without recorded evidence",
      "DELETE DATA { %r2 kg:hasToolRecognition %ev2 }",
      ("ToolEvidenceShape", "%r2", "kg:citesTool", "V", "SPARQL")),
    C("reference-blank-node", ["ReferenceShape/node:NodeKind", "WorkShape/reference"],
      add("%book frbr:part _:r . _:r a biro:BibliographicReference ; biro:references %c3 ; kg:position 1"),
      ("ReferenceShape", "_:", None, "V", "NodeKind"), ("TypedNodeShape", "_:", None, "V", "NodeKind"),
      ("WorkShape", "%book", "frbr:part", "V", "NodeKind")),
]


def _param(case: Case):
    marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
    return pytest.param(case, id=case.id, marks=marks)


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


def test_every_constraint_has_a_case() -> None:
    """Every property shape, SPARQL constraint and node-level constraint of a targeted shape is the declared
    target of at least one case, and every declared target names an existing constraint."""
    wanted = all_constraints()
    covered = {constraint_of(t) for c in CASES for t in c.targets}
    assert covered <= set(wanted)
    assert sorted(wanted[k] for k in set(wanted) - covered) == []
    labels = Counter(f"{v}" for k, v in wanted.items() if not isinstance(k, tuple))
    assert [v for v, n in labels.items() if n > 1] == []  # sh:name unique within a node shape


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_constraint_case(case: Case, fixture_graph: Graph, fixture_nodes: dict[str, str],
                         fixture_report: ValidationReport) -> None:
    damaged = damage(fixture_graph, case.update, fixture_nodes)
    assert len(damaged ^ fixture_graph) > 0, "the damage changed nothing"
    report = validate(damaged, SHAPES)
    new = result_keys(report, fixture_nodes) - result_keys(fixture_report, fixture_nodes)
    expected = {(s, f, p, SEVERITY[sev], comp) for s, f, p, sev, comp in case.expected}
    assert new == expected
    for target in case.targets:
        assert constraint_of(target) in fired(report), f"{target} did not fire"


# ============================================================================ valid variants: no false alarm

VALID_VARIANTS = [
    ("event-one-day", replace("%event", "schema:endDate", '"2024-06-01"^^xsd:date')),
    ("event-end-less-precise", replace("%event", "schema:endDate", '"2024-06"^^xsd:gYearMonth')),
    ("event-start-year-only", replace("%event", "schema:startDate", '"2024"^^xsd:gYear')),
    ("issued-on-deposit-day", replace("%w", "dcterms:issued", '"2024-03-06"^^xsd:date')),
    ("issued-year-of-deposit", replace("%w", "dcterms:issued", '"2024"^^xsd:gYear')),
    ("pages-equal", replace("%w", "prism:startingPage", '"20"')),
    ("pages-roman", replace("%w", "prism:startingPage", '"xii"') + " ; " + replace("%w", "prism:endingPage", '"ix"')),
    ("pages-electronic", replace("%w", "prism:startingPage", '"e1023"')),
    ("start-page-only", drop("%w", "prism:endingPage")),
    ("reference-without-key", drop("%r4", "kg:referenceKey")),
    ("licence-start-year", replace("%lic", "schema:startDate", '"2024"^^xsd:gYear')),
    ("person-two-names", add('%p1 schema:name "J. Carberry"')),
    ("chair-role",
     replace("%ed1", "kg:roleName", '"chair"') + " ; " + replace("%ed1", "pro:withRole", "pro:contributor")),
    ("issn-x-check-digit-print", replace("%journal", "prism:issn", '"1050-124X"')),
    ("topic-override-method", replace("%ta2", "kg:method", '"override"')),
    ("resolved-score-near-zero", replace("%r4", "kg:resolutionScore", "0.01")),
]


@pytest.mark.parametrize("update", [pytest.param(u, id=i) for i, u in VALID_VARIANTS])
def test_valid_variant_raises_nothing(update: str, fixture_graph: Graph, fixture_nodes: dict[str, str]) -> None:
    report = validate(damage(fixture_graph, update, fixture_nodes), SHAPES)
    assert [(r.shape, r.focus, r.path, r.message) for r in report.results] == []


def test_online_first_paper_is_valid(tmp_path: Path) -> None:
    """Issued after its metadata was deposited: normal for online-first papers, so a warning only."""
    record = {"DOI": "10.5555/online.first", "type": "journal-article", "title": ["Online first"],
              "issued": _date(2024, 6, 1), "deposited": _stamp(2024, 2, 1)}
    (tmp_path / "r.json").write_text(json.dumps(record), encoding="utf-8")
    report = validate(data_graph(build_graph([str(tmp_path / "r.json")], Context.create()).lines), SHAPES)
    assert [r for r in report.results if r.severity == "Violation"] == []
    assert [(r.shape.removeprefix(KGSH), short_path(r.path), r.severity) for r in report.results] == [
        ("IssuedBeforeDepositShape", "dcterms:issued", "Warning")]


# ============================================================================ 6. mutation test on the seed graph

SEED_WORK = "10.1145/3620665.3640367"
SW = f"{BASE}doi/{SEED_WORK}"
SEED_NODES: dict[str, str] = {
    "w": f"https://doi.org/{SEED_WORK}",
    "role1": f"{SW}/author/1", "role2": f"{SW}/author/2",
    "person1": "SELECT ?x { %role1 pro:isHeldBy ?x }",
    "ref1": f"{SW}/reference/1", "ref2": f"{SW}/reference/2", "ref3": f"{SW}/reference/3",
    "cited1": "SELECT ?x { %ref1 biro:references ?x }",
    "tref": f"{SW}/reference/6",  # cites one catalogue tool
    "tool": "SELECT ?x { %tref kg:citesTool ?x }",
    "tev": "SELECT ?x { %tref kg:hasToolRecognition ?x }",
    "ta1": "SELECT ?x { %w kg:hasTopicAssignment ?x . ?x kg:isPrimary true }",
    "ta2": f"{SW}/topic/compilers",
    "src": "SELECT ?x { %w prov:wasDerivedFrom ?x }",
    "event": "SELECT ?x { ?x schema:workFeatured %w }",
    "lic": "SELECT ?x { %w kg:hasLicenseStatement ?x }",
    "grant": "SELECT ?x { %w frapo:isFundedBy ?x }",
    "funder": "SELECT ?x { %w frapo:hasFundingAgency ?x }",
    "container": "SELECT ?x { %w frbr:partOf ?x }",
    "pub": "SELECT ?x { %w dcterms:publisher ?x }",
    "asrt": "SELECT ?x { %w kg:hasAssertion ?x }",
    "named": "SELECT ?x { %w frbr:part ?r . ?r kg:citesTool ?x . ?x schema:name 'minGPT' }",
}


@dataclass
class Mutation:
    id: str
    update: str
    node: str  # the damaged node (a SEED_NODES name): it must be a focus node of the new results
    severity: str = "Violation"  # "Warning": only warnings, no violation


MUTATIONS = [
    Mutation("drop-title", drop("%w", "dcterms:title"), "w", "Warning"),
    Mutation("second-doi", add('%w prism:doi "10.1145/3620665.9999999"'), "w"),
    Mutation("orcid-check-digit",
             "DELETE { %person1 frapo:hasORCID ?o } INSERT { %person1 frapo:hasORCID ?bad } WHERE { "
             "%person1 frapo:hasORCID ?o . "
             'BIND (CONCAT(SUBSTR(?o, 1, 18), IF(SUBSTR(?o, 19, 1) = "0", "1", "0")) AS ?bad) }', "person1"),
    Mutation("orcid-malformed", replace("%person1", "frapo:hasORCID", '"https://orcid.org/0000-0002-8315-2389"'),
             "person1"),
    Mutation("duplicate-author-positions", replace("%role2", "kg:position", "1"), "w"),
    Mutation("cites-a-literal", add('%w cito:cites "Smith et al. 2020"'), "w"),
    Mutation("drop-rdf-type", drop("%w", "rdf:type"), "w"),
    Mutation("impossible-date", replace("%w", "dcterms:issued", '"2025-13-45"^^xsd:date'), "w"),
    Mutation("blank-node-author",
             "DELETE { %role1 pro:isHeldBy ?p . %w schema:author ?p } "
             'INSERT { %role1 pro:isHeldBy _:b . %w schema:author _:b . _:b a schema:Person ; schema:name "Anonymous" '
             '} '
             "WHERE { %role1 pro:isHeldBy ?p }", "w"),
    Mutation("delete-needed-reference", "DELETE WHERE { %ref3 ?p ?o } ; DELETE DATA { %w frbr:part %ref3 }", "w"),
    Mutation("duplicate-reference-key",
             "DELETE { %ref2 kg:referenceKey ?k } INSERT { %ref2 kg:referenceKey ?k1 } "
             "WHERE { %ref2 kg:referenceKey ?k . %ref1 kg:referenceKey ?k1 }", "w"),
    Mutation("remove-reference-position", drop("%ref2", "kg:position"), "ref2"),
    Mutation("reference-position-zero", replace("%ref1", "kg:position", "0"), "ref1"),
    Mutation("reference-two-cited-works",
             "INSERT { %ref1 biro:references ?c } WHERE { %ref2 biro:references ?c }", "ref1"),
    Mutation("page-start-after-end", replace("%w", "prism:startingPage", '"400"'), "w"),
    Mutation("role-two-positions", add("%role1 kg:position 99"), "role1"),
    Mutation("unknown-role-name", replace("%role1", "kg:roleName", '"reviewer"'), "role1"),
    Mutation("negative-reference-count", replace("%w", "kg:referenceCount", "-1"), "w"),
    Mutation("issn-bad-check-digit", add('%container prism:issn "0317-8472"'), "container"),
    Mutation("isbn13-bad-check-digit", add('%container prism:isbn "9780306406158"'), "container"),
    Mutation("container-without-class", drop("%container", "rdf:type"), "container"),
    Mutation("tool-without-category", drop("%tool", "schema:applicationCategory"), "tool"),
    Mutation("tool-evidence-without-text", drop("%tev", "kg:matchedText"), "tev"),
    Mutation("tool-without-evidence", drop("%tref", "kg:hasToolRecognition"), "tref"),
    Mutation("topic-score-1.5", replace("%ta2", "kg:score", "1.5"), "ta2"),
    Mutation("primary-topic-not-subject", drop("%w", "dcterms:subject"), "ta1"),
    Mutation("short-sha256", replace("%src", "kg:sha256", '"0dec60ac"'), "src"),
    Mutation("event-ends-before-start",
             add('%event schema:startDate "2024-04-27"^^xsd:date ; schema:endDate "2024-04-20"^^xsd:date'), "event"),
    Mutation("licence-negative-delay", replace("%lic", "kg:delayInDays", "-1"), "lic"),
    Mutation("second-title", add('%w dcterms:title "Another title"'), "w"),
    Mutation("two-crossref-types", add('%w kg:crossrefType "journal-article"'), "w"),
    Mutation("grant-awarded-by-non-agency", replace("%grant", "frapo:isAwardedBy", "%pub"), "grant"),
    Mutation("funder-doi-not-registry", replace("%funder", "frapo:hasFunderIdentifier", '"10.5555/nsf"'), "funder"),
    Mutation("cited-work-untyped", drop("%cited1", "rdf:type"), "cited1"),
    Mutation("assertion-without-name", drop("%asrt", "kg:assertionName"), "asrt"),
    Mutation("named-tool-without-name", drop("%named", "schema:name"), "named"),
    Mutation("named-tool-without-score", drop("%named", "kg:score"), "named"),
    Mutation("unresolved-reference", replace("%ref1", "kg:resolutionMethod", '"unresolved"'), "ref1", "Warning"),
    Mutation("person-without-name", drop("%person1", "schema:name"), "person1", "Warning"),
]


def neighbourhood(lines: list[str], work: str) -> Graph:
    """One work's named graph plus what the shared graphs say about the nodes it uses: the topic concepts
    (and scheme) it points to, the catalogue tools it cites, the cited works it references. Shared nodes it
    does not use are left out: each is validated on its own, so they only cost time."""
    own = [line for line in lines if line.rsplit(" ", 2)[1] == f"<{BASE}graph/{work}>"]
    used = {token for line in own for token in line.rsplit(" ", 2)[0].split(" ", 2)[::2] if token.startswith("<")}
    shared = {f"<{BASE}graph/{name}>" for name in ("knowledge", "tools", "topics")}
    keep = [line for line in lines if line.rsplit(" ", 2)[1] in shared
            and (line.split(" ", 1)[0] in used or line.split(" ", 1)[0] == f"<{BASE}topic/>")]
    return data_graph(own + keep)


@pytest.fixture(scope="module")
def seed_neighbourhood(seed_lines: list[str]) -> Graph:
    """The seed work's neighbourhood (see neighbourhood())."""
    return neighbourhood(seed_lines, SEED_WORK)


@pytest.fixture(scope="module")
def seed_nodes(seed_neighbourhood: Graph) -> dict[str, str]:
    return lookup(seed_neighbourhood, SEED_NODES)


@pytest.fixture(scope="module")
def seed_neighbourhood_report(seed_neighbourhood: Graph) -> ValidationReport:
    return validate(seed_neighbourhood, SHAPES)


def test_seed_neighbourhood_conforms(seed_neighbourhood_report: ValidationReport) -> None:
    assert seed_neighbourhood_report.results == []


def test_mutation_kinds() -> None:
    assert len(MUTATIONS) >= 20 and len({m.id for m in MUTATIONS}) == len(MUTATIONS)


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.id for m in MUTATIONS])
def test_seed_mutation_is_caught(mutation: Mutation, seed_neighbourhood: Graph, seed_nodes: dict[str, str],
                                 seed_neighbourhood_report: ValidationReport) -> None:
    damaged = damage(seed_neighbourhood, mutation.update, seed_nodes)
    assert len(damaged ^ seed_neighbourhood) > 0, "the damage changed nothing"
    report = validate(damaged, SHAPES)
    before = {(r.shape, r.focus, r.path, r.constraint) for r in seed_neighbourhood_report.results}
    new = [r for r in report.results if (r.shape, r.focus, r.path, r.constraint) not in before]
    node = seed_nodes[mutation.node]
    violations = [r for r in new if r.severity == "Violation"]
    if mutation.severity == "Warning":
        assert violations == []
        assert node in {r.focus for r in new if r.severity == "Warning"}, new
    else:
        assert violations, "no violation"
        assert node in {r.focus for r in violations}, [(r.shape, r.focus, r.path) for r in violations]

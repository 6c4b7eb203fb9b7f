"""The compiled SHACL Core engine (kg.validate.core) against pySHACL, the reference, on random graphs."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import RDF, RDFS, XSD, BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import SH

from kg.errors import EnginesDiffer
from kg.rdf.convert import rdflib_triples
from kg.validate import core as validate_core
from kg.validate import load_shapes
from kg.validate import sparql as validate_sparql
from kg.validate.engine import _validate_fast
from kg.validate.engine_pyshacl import validate_pyshacl

EX = Namespace("http://example.org/")
SHAPES_FILE = Path(__file__).parent / "data" / "shacl-core" / "shapes.ttl"
SHAPES = Graph().parse(SHAPES_FILE)

NODES = [EX[f"node{i}"] for i in range(4)] + [BNode("b0")]
VALUES = {
    RDF.type: [EX.Thing, EX.Sub, EX.A, EX.B],
    EX.name: [Literal("abc"), Literal("1x"), Literal("Abc", lang="en"), Literal(5), EX.node1],
    EX.size: [Literal(-1), Literal(3), Literal(12), Literal("3"), Literal("x", datatype=XSD.integer)],
    EX.weight: [Literal(0), Literal(5.5), Literal(6), Literal("heavy")],
    EX.kind: [Literal("small"), Literal("huge"), EX.Special],
    EX.link: NODES,
    EX.other: NODES,
    EX.status: [Literal("ok"), Literal("broken")],
    EX.date: [Literal("2024-02-03", datatype=XSD.date), Literal("2024", datatype=XSD.gYear),
              Literal("2024-02-30", datatype=XSD.date), Literal("2024")],
    EX.label: [Literal("x", lang="en"), Literal("y", lang="fr")],
}
TRIPLES = [(s, p, o) for s in NODES for p, os in VALUES.items() for o in os] + [(EX.Sub, RDFS.subClassOf, EX.Thing)]


def graph_of(triples: set) -> Graph:
    g = Graph()
    for t in triples:
        g.add(t)
    return g


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.sampled_from(TRIPLES), min_size=1, max_size=30))
def test_same_report_as_pyshacl(triples: set) -> None:
    data = graph_of(triples)
    fast = _validate_fast(data, SHAPES, None)
    reference = validate_pyshacl(graph_of(triples), SHAPES)
    assert fast.results == reference.results
    assert fast.conforms == reference.conforms


@settings(max_examples=40, deadline=None)
@given(st.sets(st.sampled_from(TRIPLES), min_size=1, max_size=30), st.sets(st.sampled_from(NODES[:4]), min_size=1))
def test_same_report_as_pyshacl_on_chosen_focus_nodes(triples: set, focus: set) -> None:
    fast = _validate_fast(graph_of(triples), SHAPES, None, only=set(focus))
    reference = validate_pyshacl(graph_of(triples), SHAPES, only=set(focus))
    assert fast.results == reference.results


def test_every_component_fires_somewhere() -> None:
    """The random graphs can reach every compiled component (else the comparison proves little)."""
    graphs = [set(TRIPLES), {(NODES[0], RDF.type, EX.Thing)},
              {(NODES[0], RDF.type, EX.Thing), (NODES[0], EX.link, NODES[1]), (NODES[1], EX.link, NODES[2])}]
    components = {r.constraint.removeprefix(str(SH)) for g in graphs for r in _validate_fast(graph_of(g), SHAPES,
                                                                                             None).results}
    assert {"MinCountConstraintComponent", "MaxCountConstraintComponent", "ClassConstraintComponent",
            "DatatypeConstraintComponent", "NodeKindConstraintComponent", "InConstraintComponent",
            "HasValueConstraintComponent", "PatternConstraintComponent", "MinInclusiveConstraintComponent",
            "MaxInclusiveConstraintComponent", "MinExclusiveConstraintComponent", "MaxExclusiveConstraintComponent",
            "NodeConstraintComponent", "NotConstraintComponent", "AndConstraintComponent", "OrConstraintComponent",
            "QualifiedMinCountConstraintComponent", "QualifiedMaxCountConstraintComponent",
            "LanguageInConstraintComponent"} <= components


def test_unknown_parameters_stay_with_pyshacl() -> None:
    compiled = validate_core.compiled(SHAPES)
    assert sorted(str(s.node) for s in compiled.roots) == [str(EX[n]) for n in
                                                           ("LinkedShape", "NodeTarget", "Off", "SubjectShape",
                                                            "ThingShape")]
    assert set(compiled.rest.subjects(SH.targetSubjectsOf, None)) == {EX.LanguageShape}
    assert compiled.rest_has_targets


def test_project_shapes_need_no_pyshacl() -> None:
    """Every shape of shapes/ compiles, so validation never falls back to pySHACL (or its rdflib graph)."""
    core, _checks = validate_sparql.split(load_shapes())
    compiled = validate_core.compiled(core)
    assert not compiled.rest_has_targets
    assert len(compiled.roots) == len({s for t in (SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf,
                                                   SH.targetNode) for s in core.subjects(t, None)})


def test_rdflib_triples_are_rdflib_parser_terms() -> None:
    lines = ['<http://example.org/s> <http://example.org/p> "01"^^<http://www.w3.org/2001/XMLSchema#integer> '
             '<http://g> .\n',
             '<http://example.org/s> <http://example.org/p> "caf\\u00E9 \\"x\\""@EN <http://g> .\n',
             '<http://example.org/s> <http://example.org/p> "2024-02-30"^^<http://www.w3.org/2001/XMLSchema#date> '
             '<http://g> .\n',
             '<http://example.org/s> <http://example.org/p> "plain" <http://g> .\n']
    ours = set(rdflib_triples(lines))
    theirs = set(Graph().parse(data="".join(ln.rsplit(" ", 2)[0] + " .\n" for ln in lines), format="nt"))
    assert ours == theirs
    assert {str(o) for _s, _p, o in ours} == {"1", 'café "x"', "2024-02-30", "plain"}
    assert URIRef("http://example.org/s") in {s for s, _p, _o in ours}


def _strict(term: object) -> tuple:
    return (type(term).__name__, str(term), getattr(term, "datatype", None), getattr(term, "language", None))


_LEXICAL = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_OBJECTS = st.one_of(
    _LEXICAL.map(lambda v: str(pyoxigraph.Literal(v))),
    st.tuples(_LEXICAL, st.sampled_from(["en", "EN-us", "de-CH", "x-Private"])).map(
        lambda t: f"{str(pyoxigraph.Literal(t[0]))}@{t[1]}"),
    st.tuples(_LEXICAL | st.sampled_from(["01", "-0", "2024-02-30", "true", "1.50"]), st.sampled_from(
        [XSD.integer, XSD.date, XSD.boolean, XSD.decimal, XSD.string, XSD.gYear, URIRef("http://example.org/dt")])).map(
        lambda t: str(pyoxigraph.Literal(t[0], datatype=pyoxigraph.NamedNode(str(t[1]))))),
    st.sampled_from(["<http://example.org/o>", "<http://example.org/o%20x>", "_:b1", "<http://example.org/é>",
                     '"a <b"^^<http://www.w3.org/2001/XMLSchema#string>', '"x"@EN']),  # (tokens Oxigraph would rewrite)
)


@pytest.mark.filterwarnings("ignore:Parsing weird boolean")
@settings(max_examples=300, deadline=None)
@given(st.lists(_OBJECTS, min_size=1, max_size=6))
def test_lines_give_the_terms_oxigraph_gives(tmp_path_factory, objects: list[str]) -> None:
    """The lines path of rdflib_triples (split in Python) makes exactly the terms of the file path (parsed by
    Oxigraph): same types, lexical forms, datatypes and languages, escapes and upper-case tags included."""
    lines = [f"<http://example.org/s{i}> <http://example.org/p> {o} <http://example.org/g> .\n"
             for i, o in enumerate(objects)]
    path = tmp_path_factory.mktemp("nq") / "g.nq"
    path.write_text("".join(lines), encoding="utf-8")
    assert [tuple(map(_strict, t)) for t in rdflib_triples(lines)] == \
        [tuple(map(_strict, t)) for t in rdflib_triples(path)]


def test_the_kept_reference_is_compared_every_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``KG_SHACL_REFERENCE_CACHE`` (the suite's 'both' engine): pySHACL runs once per input, its verdict is kept,
    the fast engine is still compared with it on every call (a kept verdict that disagrees fails), and inputs
    whose digest would not be stable (blank nodes) are never kept."""
    import pickle

    from kg.validate import engine

    monkeypatch.setenv("KG_SHACL_REFERENCE_CACHE", str(tmp_path))
    shapes = load_shapes()
    lines = ["<http://example.org/w> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
             "<http://purl.org/spar/fabio/JournalArticle> <http://example.org/g> .\n"]
    first = engine.validate(None, shapes, lines, engine="both")
    kept = list(tmp_path.iterdir())
    assert len(kept) == 1 and pickle.loads(kept[0].read_bytes()) == (first.conforms, first.results)
    calls: list[int] = []
    real = engine.validate_pyshacl
    monkeypatch.setattr(engine, "validate_pyshacl", lambda *a, **k: calls.append(1) or real(*a, **k))
    again = engine.validate(None, shapes, lines, engine="both")
    assert calls == [] and again.results == first.results
    engine.validate(None, shapes, lines + [lines[0].replace("/w>", "/v>")], engine="both")  # another input
    assert calls == [1] and len(list(tmp_path.iterdir())) == 2
    kept[0].write_bytes(pickle.dumps((not first.conforms, first.results)))
    with pytest.raises(EnginesDiffer, match="validation engines differ"):
        engine.validate(None, shapes, lines, engine="both")
    with_blank = Graph()
    with_blank.add((BNode("x"), RDF.type, EX.Thing))
    engine.validate(with_blank, shapes, engine="both")
    assert calls == [1, 1] and len(list(tmp_path.iterdir())) == 2

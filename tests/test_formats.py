"""Every record of the seeds and the real samples (tests/data/samples/) builds, passes the vocabulary check, and
round-trips through every output format with two independent parsers; output is byte-stable."""

from __future__ import annotations

import io
from pathlib import Path

import pyoxigraph as ox
import pytest
import vocab_check
from conftest import ROOT, SAMPLES, SEEDS, VOCAB
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Dataset, Graph
from rdflib.compare import isomorphic

from kg import export
from kg.map.context import Context
from kg.pipeline.memory import build_graph
from kg.rdf import vocab
from kg.rdf.nquads import triples_from_quads

SAMPLE_FILES = sorted(p for p in SAMPLES.rglob("*.json"))
RDFLIB_FORMATS = {"turtle": "turtle", "json-ld": "json-ld", "nt": "nt", "nquads": "nquads", "trig": "trig",
                  "xml": "xml"}
OX_FORMATS = {"turtle": ox.RdfFormat.TURTLE, "json-ld": ox.RdfFormat.JSON_LD, "nt": ox.RdfFormat.N_TRIPLES,
              "nquads": ox.RdfFormat.N_QUADS, "trig": ox.RdfFormat.TRIG, "xml": ox.RdfFormat.RDF_XML}


def _triples_graph(lines: list[str]) -> Graph:
    g = Graph()
    g.parse(data="".join(triples_from_quads(lines)), format="nt")
    return g


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    result = build_graph([str(SEEDS), *map(str, SAMPLE_FILES)], Context.create())
    assert result.report.errors == [], result.report.errors
    assert result.report.warnings == [], result.report.warnings
    return result.lines


def test_every_sample_builds_alone() -> None:
    assert len(SAMPLE_FILES) == 27
    for path in SAMPLE_FILES:
        result = build_graph([str(path)], Context.create())
        assert result.report.errors == [] and result.report.records >= 1, path
        assert any("<https://doi.org/" in line for line in result.lines), path


def test_samples_cover_every_record(corpus: list[str]) -> None:
    """25 single records + 10 list items + 2 data-file items + 4 seeds = 41 works, each typed."""
    works = {line.split(" ", 1)[0] for line in corpus if "<https://w3id.org/crossref-kg/ontology#crossrefType>" in line}
    assert len(works) == 41


@pytest.mark.parametrize("fmt", sorted(export.WRITERS))
def test_round_trip_rdflib_and_oxigraph(corpus: list[str], fmt: str) -> None:
    buf = io.StringIO()
    export.WRITERS[fmt](corpus, buf)
    text = buf.getvalue()
    expected = _triples_graph(corpus)
    if fmt in ("nquads", "trig"):
        ds = Dataset()
        ds.parse(data=text, format=RDFLIB_FORMATS[fmt])
        got = Graph()
        for s, p, o, _g in ds.quads((None, None, None, None)):
            got.add((s, p, o))
        graphs = {str(g) for *_spo, g in ds.quads((None, None, None, None))}
        shared = {f"https://w3id.org/crossref-kg/graph/{n}" for n in ("facts", "knowledge", "tools", "topics")}
        assert len(graphs - shared) == 41 and shared <= graphs  # one named graph per record, plus shared ones
    else:
        got = Graph()
        got.parse(data=text, format=RDFLIB_FORMATS[fmt])
    assert isomorphic(got, expected), f"{fmt}: rdflib reads back a different graph"
    quads = list(ox.parse(text.encode("utf-8"), format=OX_FORMATS[fmt]))
    ox_triples = {f"{q.subject} {q.predicate} {q.object} .\n" for q in quads}
    assert ox_triples == set(triples_from_quads(corpus)), f"{fmt}: pyoxigraph reads back a different graph"
    assert not any(isinstance(t, ox.BlankNode) for q in quads for t in (q.subject, q.object))


def test_jsonld_context_is_embedded_and_never_fetched(corpus: list[str]) -> None:
    buf = io.StringIO()
    export.write_jsonld(corpus, buf)
    doc = buf.getvalue()
    assert '"@context": {' in doc and "http://" not in doc.split('"@graph"')[0].split('"@context"')[0]
    g = Graph()
    g.parse(data=doc, format="json-ld")  # would fail on a remote context: no network in tests
    assert isomorphic(g, _triples_graph(corpus))


@pytest.mark.parametrize("fmt", sorted(export.WRITERS))
def test_output_is_byte_identical_across_input_orders(tmp_path: Path, fmt: str) -> None:
    inputs = [str(SEEDS), *map(str, SAMPLE_FILES[:12])]
    outputs = []
    for order in (inputs, list(reversed(inputs))):
        result = build_graph(order, Context.create())
        buf = io.StringIO()
        export.WRITERS[fmt](result.lines, buf)
        outputs.append(buf.getvalue())
    assert outputs[0] == outputs[1]


def test_vocabulary_check_passes_on_seeds_and_samples(tmp_path: Path, corpus: list[str]) -> None:
    """tests/vocab_check.py --strict (the official vocabularies of tests/data/vocab/): zero undefined terms, zero
    FRBR-level clashes, no term of a namespace nothing declares."""
    seeds = build_graph([str(SEEDS)], Context.create())
    for name, lines in (("seeds.nq", seeds.lines), ("all.nq", corpus)):
        path = tmp_path / name
        path.write_text("".join(lines), encoding="utf-8")
        report = vocab_check.check([path], VOCAB, [ROOT / "kg" / "data" / "ontology.ttl"])
        assert vocab_check.passes(report, strict=True), (name, report["undefined"], report["frbr_level_clashes"],
                                                         report["unchecked_namespaces"])
        assert vocab_check.summary(report).endswith(" 0 undefined, 0 FRBR-level clashes")


def test_no_blank_nodes_in_mapped_data(corpus: list[str]) -> None:
    assert not any(line.startswith("_:") or " _:" in line.split('"', 1)[0] for line in corpus)


def _curie_by_longest_namespace(px: vocab.Prefixer, iri: str) -> str | None:
    """The definition: the longest namespace that starts the IRI, if the rest is a valid local name."""
    for prefix, ns in sorted(px.prefixes.items(), key=lambda kv: -len(kv[1])):
        if iri.startswith(ns):
            local = iri[len(ns):]
            return f"{prefix}:{local}" if vocab._PN_LOCAL.match(local) else None
    return None


@given(st.sampled_from(sorted(vocab.PREFIXES.values()) + ["https://doi.org/", "http://example.org/a#", ""]),
       st.text(alphabet="abcXYZ019_-./#:%", max_size=12))
@settings(max_examples=400, deadline=None)
def test_curie_is_the_longest_namespace_with_a_valid_local_name(ns: str, local: str) -> None:
    """The one-lookup ``curie`` agrees with the longest-namespace definition on any IRI."""
    px = vocab.Prefixer()
    assert px.curie(ns + local) == _curie_by_longest_namespace(px, ns + local)

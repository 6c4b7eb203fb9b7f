"""Every export is the graph: each format, read back by independent parsers (Oxigraph, and pyld for JSON-LD),
holds exactly the workspace graph's triples (quads for the quad formats), on the seeds, the real samples and
generated records whose IRIs look like prefixed names, use every character an IRI allows, or are very long;
foreign graphs with blank nodes export without loss; a graph with an 8 MB+ literal is read back by kg."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pyoxigraph
import pytest
from click.testing import CliRunner
from conftest import SAMPLES, SEEDS

from kg.cli import main

pyld = pytest.importorskip("pyld")
from pyld import jsonld  # noqa: E402

EXT = {"turtle": "ttl", "json-ld": "jsonld", "nt": "nt", "nquads": "nq", "trig": "trig", "xml": "rdf"}
OX = {"turtle": pyoxigraph.RdfFormat.TURTLE, "json-ld": pyoxigraph.RdfFormat.JSON_LD,
      "nt": pyoxigraph.RdfFormat.N_TRIPLES, "nquads": pyoxigraph.RdfFormat.N_QUADS,
      "trig": pyoxigraph.RdfFormat.TRIG, "xml": pyoxigraph.RdfFormat.RDF_XML}
QUADS = ("nquads", "trig")


def kg(home: Path, *args: str) -> Any:
    r = CliRunner().invoke(main, list(args), env={"KG_HOME": str(home)}, prog_name="kg")
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output
    assert "Traceback" not in r.output
    return r


def graph_sets(home: Path) -> tuple[set[str], set[str]]:
    """(triples, quads) of the workspace graph as canonical N-Triples/N-Quads statements."""
    quads = {line for line in (home / "graph.nq").read_text(encoding="utf-8").splitlines() if line}
    triples = {line.rsplit(" ", 2)[0] + " ." for line in quads}
    return triples, quads


def ox_statements(data: bytes, fmt: str) -> set[str]:
    out = set()
    for q in pyoxigraph.parse(data, format=OX[fmt]):
        if fmt in QUADS:
            out.add(f"{q.subject} {q.predicate} {q.object} {q.graph_name} .")
        else:
            out.add(f"{q.subject} {q.predicate} {q.object} .")
    return out


def pyld_triples(data: bytes) -> set[str]:
    nq = jsonld.to_rdf(json.loads(data), {"format": "application/n-quads"})
    return {f"{q.subject} {q.predicate} {q.object} ." for q in pyoxigraph.parse(nq.encode(),
                                                                                format=pyoxigraph.RdfFormat.N_QUADS)}


def assert_every_export_is_the_graph(tmp_path: Path, home: Path) -> None:
    triples, quads = graph_sets(home)
    assert triples
    for fmt, ext in EXT.items():
        out = tmp_path / f"out.{ext}"
        r = kg(home, "export", "-f", fmt, "-o", str(out))
        assert r.exit_code == 0, r.output
        data = out.read_bytes()
        want = quads if fmt in QUADS else triples
        got = ox_statements(data, fmt)
        assert got == want, (fmt, sorted(got - want)[:3], sorted(want - got)[:3])
        if fmt == "json-ld":
            got = pyld_triples(data)
            assert got == triples, ("pyld", sorted(got - triples)[:3], sorted(triples - got)[:3])
        back = kg(home, "export", str(out), "-f", "nt", "-o", str(tmp_path / "back.nt"))
        assert back.exit_code == 0, back.output
        assert ox_statements((tmp_path / "back.nt").read_bytes(), "nt") == triples, fmt


def build(tmp_path: Path, *inputs: str) -> Path:
    home = tmp_path / "ws"
    r = kg(home, "build", "-q", *inputs)
    assert r.exit_code in (0, 1), r.output
    return home


def test_seeds(tmp_path: Path) -> None:
    assert_every_export_is_the_graph(tmp_path, build(tmp_path, str(SEEDS)))


def test_samples(tmp_path: Path) -> None:
    assert_every_export_is_the_graph(tmp_path, build(tmp_path, str(SAMPLES)))


IRI_CHARS = "-._~!$&'()*+,;=:@/?#%20" + "".join(map(chr, range(0xA0, 0xB0))) + "é中\U0001F600"


def generated() -> list[dict[str, Any]]:
    """Records whose IRIs look like prefixed names, use every character an IRI allows, or are very long."""
    base = json.loads((SAMPLES / "article_elife.01567.json").read_text(encoding="utf-8"))["message"]
    out = []
    for i, (url, licence) in enumerate([
        ("rdf:type", "fabio:JournalArticle"),
        ("schema:name", "xsd:string"),
        ("kg:asWritten", "dcterms:license"),
        ("https://example.org/" + IRI_CHARS, "https://example.org/?q=" + IRI_CHARS),
        ("https://example.org/" + "a" * 20000, "https://example.org/l/" + "é" * 5000),
        ("urn:x:" + IRI_CHARS, "mailto:someone@example.org"),
    ]):
        r = copy.deepcopy(base)
        r["DOI"] = f"10.5555/export.{i}"
        r["URL"] = url
        r["resource"] = {"primary": {"URL": url}}
        r["license"] = [{"URL": licence, "start": {"date-parts": [[2014, 2, 11]]}, "content-version": "vor",
                         "delay-in-days": 0}]
        r["link"] = [{"URL": url, "content-type": "text/html"}]
        out.append(r)
    return out


def test_generated_iris(tmp_path: Path) -> None:
    (tmp_path / "gen.jsonl").write_text("\n".join(json.dumps(r) for r in generated()) + "\n", encoding="utf-8")
    home = build(tmp_path, str(tmp_path / "gen.jsonl"))
    triples, _ = graph_sets(home)
    assert "<https://doi.org/10.5555/export.0> <https://schema.org/url> <rdf:type> ." in triples
    assert "<https://doi.org/10.5555/export.0> <http://purl.org/dc/terms/license> <fabio:JournalArticle> ." in triples
    assert_every_export_is_the_graph(tmp_path, home)


def test_foreign_graph_with_blank_nodes_exports_to_json_ld_without_loss(tmp_path: Path) -> None:
    import rdflib
    from rdflib.compare import isomorphic

    foreign = tmp_path / "foreign.ttl"
    foreign.write_text(
        "@prefix ex: <http://example.org/> . @prefix schema: <https://schema.org/> .\n"
        "ex:a schema:author _:x ; schema:url <rdf:type> .\n"
        "_:x a schema:Person ; schema:name \"X\" ; schema:knows _:y .\n"
        "_:y schema:name \"Y\" ; schema:sameAs <fabio:JournalArticle> .\n", encoding="utf-8")
    home = tmp_path / "ws"
    for fmt in EXT:
        out = tmp_path / f"foreign.{EXT[fmt]}"
        r = kg(home, "export", str(foreign), "-f", fmt, "-o", str(out))
        assert r.exit_code == 0, r.output
        want = rdflib.Graph().parse(foreign)
        nt = "".join(f"{q.subject} {q.predicate} {q.object} .\n" for q in pyoxigraph.parse(out.read_bytes(),
                                                                                           format=OX[fmt]))
        got = rdflib.Graph().parse(data=nt, format="nt")
        assert len(got) == len(want) == 7 and isomorphic(got, want), fmt
        if fmt == "json-ld":
            nq = jsonld.to_rdf(json.loads(out.read_bytes()), {"format": "application/n-quads"})
            assert isomorphic(rdflib.Graph().parse(data=nq, format="nt"), want)


def test_a_literal_at_the_value_cap_round_trips(tmp_path: Path) -> None:
    """A 9 MB abstract is cut to the cap on one value (1,048,576 characters, docs/security.md; tests/test_values.py
    checks the warning), and the literal that large round-trips through JSON-LD, N-Triples and a query."""
    r = json.loads((SAMPLES / "article_elife.01567.json").read_text(encoding="utf-8"))["message"]
    r["abstract"] = "<jats:p>" + ("Long abstract text. " * 450_000) + "</jats:p>"  # 9 MB
    (tmp_path / "big.json").write_text(json.dumps(r), encoding="utf-8")
    home = tmp_path / "ws"
    result = kg(home, "build", "-q", str(tmp_path / "big.json"), "-o", str(tmp_path / "big.jsonld"), "--validate",
                "none")
    assert result.exit_code == 0, result.output
    triples, _ = graph_sets(home)
    data = (tmp_path / "big.jsonld").read_bytes()
    assert 1_000_000 < len(data) < 4_000_000  # (the abstract cut to 1,048,576 characters, escaped in JSON-LD)
    assert pyld_triples(data) == triples
    back = kg(home, "export", str(tmp_path / "big.jsonld"), "-f", "nt", "-o", str(tmp_path / "back.nt"))
    assert back.exit_code == 0, back.output
    assert ox_statements((tmp_path / "back.nt").read_bytes(), "nt") == triples
    q = kg(home, "query", "-g", str(tmp_path / "big.jsonld"), "works")
    assert q.exit_code == 0, q.output
    assert "(1 row)" in q.output and "10.7554/eli" in q.output  # (works: one row a work, its five authors in one cell)

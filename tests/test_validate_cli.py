"""`kg validate` and build-time validation through the CLI: exit codes, formats, messages, workspace safety."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SEEDS, W3C_SHACL
from rdflib import Graph
from rdflib.namespace import SH

from kg.cli import main

RECORD = {"DOI": "10.5555/val.1", "type": "journal-article", "title": ["Validating graphs"],
          "author": [{"given": "Ana", "family": "Lima", "sequence": "first", "affiliation": [],
                      "ORCID": "https://orcid.org/0000-0002-1825-0097"}],
          "issued": {"date-parts": [[2024, 5]]}, "ISSN": ["0317-8471"], "container-title": ["J. Tests"]}


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    return lambda *args: runner.invoke(main, list(args))


def test_seeds_validate_with_warnings_only(run) -> None:  # noqa: ANN001
    r = run("build", str(SEEDS))
    assert r.exit_code == 0 and r.stderr.splitlines()[-1] == (
        "validation: valid: no violations (3 warnings: 3 persons without an ORCID iD); kg validate --severity "
        "warning lists them")
    r = run("validate")
    assert r.exit_code == 0
    # no violation: valid, in plain words, with what the warnings count; --severity picks what is shown and the
    # exit code, and the text says how to see what it counts but does not show
    assert r.stdout.splitlines() == [
        "valid: no violations (3 warnings: 3 persons without an ORCID iD); --severity warning lists them"]
    r = run("validate", "--severity", "warning")
    assert r.exit_code == 1
    # grouped by shape and what it counts, the nodes by name in their record, not a line each
    assert r.stdout.splitlines() == [
        "Warning kgsh:PersonShape frapo:hasORCID: 3 persons without an ORCID iD",
        "  The person has no ORCID iD, so the same person in other records stays a separate node.",
        "  10.1109/cgo68049.2026.11395237: Mao Lin, Hyeran Jeon, Keren Zhou",
        "valid: no violations (3 warnings: 3 persons without an ORCID iD)"]
    # (the JSON and Turtle reports keep SHACL's sh:conforms: false on warnings too)
    for severity, code in (("violation", 0), ("warning", 1)):
        r = run("validate", "-f", "json", "--severity", severity)
        doc = json.loads(r.stdout)
        assert r.exit_code == code
        assert doc["conforms"] is False and doc["counts"] == {"violation": 0, "warning": 3, "info": 0}
        assert {x["severity"] for x in doc["results"]} == ({"Warning"} if severity == "warning" else set())
    r = run("validate", "-f", "turtle")
    assert r.exit_code == 0
    g = Graph().parse(data=r.stdout, format="turtle")
    assert len(list(g.subjects(None, SH.ValidationResult))) == 3
    assert g.value(next(g.subjects(None, SH.ValidationReport)), SH.conforms).value is False


def test_damaged_graph_fails_with_exit_1_and_names_the_node(run, tmp_path: Path) -> None:  # noqa: ANN001
    (tmp_path / "r.json").write_text(json.dumps(RECORD), encoding="utf-8")
    assert run("build", "r.json", "-q").exit_code == 0
    graph = (tmp_path / "ws" / "graph.nq").read_text(encoding="utf-8")
    damaged = tmp_path / "damaged.nq"
    damaged.write_text(graph.replace('"0000-0002-1825-0097"', '"0000-0002-1825-0098"'), encoding="utf-8")
    r = run("validate", str(damaged))
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "Violation kgsh:PersonShape frapo:hasORCID: 1 result",
        "  ORCID iD 0000-0002-1825-0098 has a wrong check digit (ISO 7064 MOD 11-2).",
        "  10.5555/val.1: Ana Lima",
        "invalid: 1 violation: 1 on kgsh:PersonShape frapo:hasORCID",
    ]


def test_unreadable_graph_or_shapes_is_exit_2(run, tmp_path: Path) -> None:  # noqa: ANN001
    (tmp_path / "bad.nt").write_text("garbage\n", encoding="utf-8")
    r = run("validate", "bad.nt")
    assert r.exit_code == 2 and r.stderr.startswith("error: bad.nt: is not a readable RDF graph (")
    (tmp_path / "r.json").write_text(json.dumps(RECORD), encoding="utf-8")
    assert run("build", "r.json", "-q").exit_code == 0
    r = run("validate", "--shapes", str(tmp_path / "none"))
    assert r.exit_code == 2
    assert r.stderr == (f"error: {tmp_path / 'none'}: holds no shapes (.ttl files); "
                        "give --shapes a folder of SHACL Turtle files\n")
    (tmp_path / "shapes").mkdir()
    (tmp_path / "shapes" / "x.ttl").write_text("this is not turtle", encoding="utf-8")
    r = run("validate", "--shapes", str(tmp_path / "shapes"))
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {tmp_path / 'shapes' / 'x.ttl'}: is not valid Turtle (")
    (tmp_path / "shapes" / "x.ttl").write_text(
        '@prefix sh: <http://www.w3.org/ns/shacl#> .\n<urn:s> a sh:NodeShape ; sh:targetNode <urn:n> ; sh:pattern '
        '"([a-" .\n',
        encoding="utf-8")
    r = run("validate", "--shapes", str(tmp_path / "shapes"))
    assert r.exit_code == 2
    assert r.stderr == (f"error: {tmp_path / 'shapes' / 'x.ttl'}: has an invalid sh:pattern '([a-' (unterminated "
                        "character set at position 1); fix the regular expression\n")


def test_build_with_violations_exits_3_and_keeps_the_workspace(run, tmp_path: Path) -> None:  # noqa: ANN001
    (tmp_path / "r.json").write_text(json.dumps(RECORD), encoding="utf-8")
    assert run("build", "r.json", "-q", "-o", "out.ttl").exit_code == 0
    before = (tmp_path / "ws" / "graph.nq").read_bytes(), (tmp_path / "out.ttl").read_bytes()
    strict = tmp_path / "strict"
    strict.mkdir()
    (strict / "s.ttl").write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix schema: <https://schema.org/> .\n"
        "<urn:s> a sh:NodeShape ; sh:targetClass schema:Person ; sh:property [ sh:path schema:name ; "
        "sh:name \"name\" ; sh:maxCount 0 ; sh:message \"No names allowed here.\" ] .\n", encoding="utf-8")
    other = dict(RECORD, DOI="10.5555/val.2")
    (tmp_path / "r2.json").write_text(json.dumps(other), encoding="utf-8")
    r = run("build", "r2.json", "-o", "out.ttl", "--shapes", str(strict))
    assert r.exit_code == 3
    assert r.stderr.splitlines()[-1].startswith("error: the graph has 1 violation (first: ")
    assert "nothing was written" in r.stderr
    assert ((tmp_path / "ws" / "graph.nq").read_bytes(), (tmp_path / "out.ttl").read_bytes()) == before
    r = run("build", "r2.json", "-o", "out.ttl", "--shapes", str(strict), "--allow-invalid", "-q")
    assert r.exit_code == 0 and (tmp_path / "out.ttl").read_bytes() != before[1]
    assert run("build", "r2.json", "-q", "--validate", "none", "--shapes", str(strict)).exit_code == 0
    r = run("build", "r2.json", "--validate", "sample:x")
    assert r.exit_code == 2 and "--validate 'sample:x': use auto, full, sample:N or none" in r.stderr


def test_sharded_validation_gives_the_whole_graph_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validating record by record (in shards, in parallel) gives the same results as the whole graph, on the
    seeds and on every real sample, including nodes that several records describe. (The whole graph is
    validated by both engines, the suite's default, which must agree; the shards by the default engine.)"""
    from conftest import SAMPLES

    from kg.map.context import Context
    from kg.pipeline.memory import build_graph
    from kg.validate import data_graph, load_shapes, validate, validate_sharded

    ctx = Context.create()
    shared = {ctx.minter.node("graph", n) for n in ("facts", "knowledge", "tools", "topics")}
    shapes = load_shapes()
    for inputs in ([str(SEEDS)], [str(p) for p in sorted(SAMPLES.rglob("*.json"))]):
        lines = build_graph(inputs, ctx).lines
        full = {(r.severity, r.shape, r.focus, r.path, r.value, r.message) for r in validate(data_graph(lines),
                                                                                             shapes).results}
        monkeypatch.setenv("KG_SHACL_ENGINE", "fast")
        for size, jobs in ((1, 1), (5, 2)):
            part = validate_sharded(lines, None, shared, shard_size=size, jobs=jobs)
            assert {(r.severity, r.shape, r.focus, r.path, r.value, r.message) for r in part.results} == full
        monkeypatch.setenv("KG_SHACL_ENGINE", "both")


def test_sharded_validation_equals_the_whole_graph_under_another_base(run, tmp_path: Path,  # noqa: ANN001
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: ``kg validate --jobs 2`` takes the shared graphs (knowledge, tools, topics) under the base the
    graph was built with, not the default base, and reports what the whole graph does."""
    from conftest import SAMPLES
    samples = [str(p) for p in sorted(SAMPLES.rglob("*.json"))]
    assert run("build", str(SEEDS), *samples, "--base", "https://example.org/kg/", "-q",
               "--validate", "none").exit_code == 0
    from kg.validate.shards import shared_graphs_of
    lines = (tmp_path / "ws" / "graph.nq").read_text(encoding="utf-8").splitlines()
    shared = {f"<https://example.org/kg/graph/{name}>" for name in ("facts", "knowledge", "tools", "topics")}
    assert shared_graphs_of({line.rsplit(" ", 2)[-2] for line in lines}) == shared  # (not the default base's)
    whole = run("validate", "-f", "json", "--severity", "info")
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")  # (the shards: the default engine; the whole graph: both)
    sharded = run("validate", "-f", "json", "--severity", "info", "--jobs", "2")
    assert json.loads(whole.stdout)["results"] and sharded.exit_code == whole.exit_code
    assert json.loads(sharded.stdout) == json.loads(whole.stdout)


def test_work_without_title_is_reported_for_titled_types(run, tmp_path: Path) -> None:  # noqa: ANN001
    """Damage given to ``kg validate`` directly: a journal article and a book chapter whose title is gone."""
    chapter = dict(RECORD, DOI="10.5555/val.3", type="book-chapter", title=["A chapter"], ISBN=["978-0-306-40615-7"],
                   ISSN=[], **{"container-title": ["A Book"]})
    (tmp_path / "r.json").write_text(json.dumps(RECORD), encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps(chapter), encoding="utf-8")
    assert run("build", "r.json", "c.json", "-q").exit_code == 0
    lines = (tmp_path / "ws" / "graph.nq").read_text(encoding="utf-8").splitlines(keepends=True)
    works = tuple(f"<https://doi.org/10.5555/val.{n}> <http://purl.org/dc/terms/title> " for n in (1, 3))
    assert sum(line.startswith(works) for line in lines) == 2
    damaged = tmp_path / "damaged.nq"
    damaged.write_text("".join(line for line in lines if not line.startswith(works)), encoding="utf-8")
    doc = json.loads(run("validate", str(damaged), "-f", "json", "--severity", "info").stdout)
    untitled = sorted(r["focus"] for r in doc["results"] if r["path"] == "http://purl.org/dc/terms/title")
    assert untitled == ["https://doi.org/10.5555/val.1", "https://doi.org/10.5555/val.3"]
    assert doc["conforms"] is False
    r = run("validate", str(damaged), "--severity", "warning")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "Warning kgsh:WorkShape dcterms:title: 2 works without a title",
        "  The work has no title (normal for components, grants and journal issues).",
        "  10.5555/val.1: Validating graphs",  # (the name it keeps: schema:name)
        "  10.5555/val.3: A chapter",
        "valid: no violations (2 warnings: 2 works without a title)"]


MINUS_SHAPE = """@prefix sh: <http://www.w3.org/ns/shacl#> .
<urn:x:S> a sh:NodeShape ; sh:targetNode <urn:x:n> ;
  sh:sparql [ sh:message "m" ; sh:select "SELECT $this WHERE { $this ?p ?o . MINUS { $this ?p 1 } }" ] .
"""


def test_a_shape_pyshacl_refuses_is_one_line_exit_2(run, tmp_path: Path) -> None:  # noqa: ANN001
    (tmp_path / "g.nt").write_text("<urn:x:n> <urn:x:p> \"2\" .\n", encoding="utf-8")
    shapes = tmp_path / "shapes"
    shapes.mkdir()
    (shapes / "a.ttl").write_text("@prefix sh: <http://www.w3.org/ns/shacl#> .\n", encoding="utf-8")
    (shapes / "x.ttl").write_text(MINUS_SHAPE, encoding="utf-8")
    for fmt in ("text", "json", "turtle"):
        r = run("validate", "g.nt", "--shapes", str(shapes), "-f", fmt)
        assert r.exit_code == 2 and r.stdout == ""
        assert r.stderr == f"error: {shapes / 'x.ttl'}: a SPARQL constraint must not contain MINUS; fix the shape\n"


def test_a_graph_file_without_triples_is_exit_2(run, tmp_path: Path) -> None:  # noqa: ANN001
    (tmp_path / "record.json").write_text(json.dumps(RECORD), encoding="utf-8")
    (tmp_path / "empty.nt").write_text("# nothing\n", encoding="utf-8")
    told = ("error: record.json: is a Crossref record, not an RDF graph (no triples); run 'kg build record.json' "
            "first and use the graph it writes\n")
    for args in (("validate", "record.json"), ("query", "-e", "SELECT * { ?s ?p ?o }", "-g", "record.json"),
                 ("stats", "-g", "record.json")):
        r = run(*args)
        assert (r.exit_code, r.stdout, r.stderr) == (2, "", told), args
    r = run("validate", "empty.nt")
    assert (r.exit_code, r.stderr) == (2, "error: empty.nt: holds no triples; check the file and its format, or "
                                          "name another graph\n")


def test_relative_iris_resolve_against_the_file(run, tmp_path: Path) -> None:  # noqa: ANN001
    (tmp_path / "g.ttl").write_text("<a> <http://example.org/p> <b> .\n", encoding="utf-8")
    shapes = tmp_path / "shapes"
    shapes.mkdir()
    (shapes / "s.ttl").write_text("@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
                                  "<urn:x:S> a sh:NodeShape ; sh:targetSubjectsOf <http://example.org/p> ; "
                                  "sh:nodeKind sh:Literal .\n", encoding="utf-8")
    doc = json.loads(run("validate", "g.ttl", "--shapes", str(shapes), "-f", "json").stdout)
    assert [r["focus"] for r in doc["results"]] == [(tmp_path / "a").as_uri()]


W3C = W3C_SHACL


@pytest.mark.parametrize("case", ["core/property/property-001", "core/misc/severity-001", "core/misc/severity-002",
                                  "core/node/node-001", "core/property/node-002", "sparql/node/sparql-003",
                                  "core/validation-reports/shared"])
def test_text_json_and_turtle_agree(case: str, run, tmp_path: Path) -> None:  # noqa: ANN001
    """One engine behind every format: the same conforms, the same results counted as SHACL does (a failing
    sh:node is one result: the Turtle report nests its shape's results under sh:detail, the JSON under
    ``details``), the same exit code."""
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from test_w3c_shacl import action
    data, shapes_file = action(W3C / f"{case}.ttl")
    shapes = tmp_path / "shapes"
    shapes.mkdir()
    (shapes / shapes_file.name).symlink_to(shapes_file)
    out = {fmt: run("validate", str(data), "--shapes", str(shapes), "-f", fmt, "--severity", "info")
           for fmt in ("text", "json", "turtle")}
    assert len({r.exit_code for r in out.values()}) == 1 and out["json"].stderr == ""
    doc = json.loads(out["json"].stdout)
    g = Graph().parse(data=out["turtle"].stdout, format="turtle")
    root = next(g.subjects(None, SH.ValidationReport))
    assert g.value(root, SH.conforms).value is doc["conforms"] is False
    assert len(set(g.objects(root, SH.result))) == len(doc["results"]) >= sum(doc["counts"].values())

    def every(results: list) -> int:
        return sum(1 + every(r.get("details", [])) for r in results)
    assert len(set(g.subjects(None, SH.ValidationResult))) == every(doc["results"])
    assert out["text"].stdout.splitlines()[-1].startswith(("valid: ", "invalid: "))
    if case == "core/node/node-001":
        assert len(list(g.objects(root, SH.result))) == 1 and len(list(g.subject_objects(SH.detail))) >= 1


SAMPLES_AT_80 = [
    'Warning kgsh:PersonShape frapo:hasORCID: 100 persons without an ORCID iD',
    '  The person has no ORCID iD, so the same person in other records stays a',
    '  separate node.',
    '  10.1007/978-1-4471-1578-6: Gerold Riempp',
    '  10.1016/j.physletb.2010.10.049: Michael Atkins, Xavier Calmet',
    '  10.1037/0000120-016: Laurent Aron, Marion Botella, Todd Lubart',
    '  10.1037/e718982007-001: Lance I. Agena',
    '  10.1038/srep16696: Laura Tosatto, Mathew H. Horrocks, Alexander J. Dear,',
    '    Tuomas P. J. Knowles, Mauro Dalla Serra, Nunilo Cremades, Christopher M.',
    '    Dobson, David Klenerman',
    '  10.1063/1.3232023: B. Wojtsekhowski, Latifa Elouadrhiri, Jospeh Grames, Wally',
    '    Melnitchouk, Eric Voutier, Tony A. Forest',
    '  10.1090/conm/280/04622: Victor M. Adukov',
    '  10.1101/751156: Johanna Wiechert, Andrei Filipchyk, Max Hünnefeld, Cornelia',
    '    Gätgens, Ralf Heermann',
    '  10.1108/01443589510076070: Nicolai Juul Foss',
    '  10.1108/02689239610117807: A.J. Smith, D. Preston',
    '  10.1111/jan.15115/v3/decision1: Debra Jackson',
    '  10.1136/esmoopen-2020-000776: Ken Kato, Tetsuya Hamaguchi, Narikazu Boku,',
    '    Natsuko Okita, Aya Kuchiba, Gakuto Ogawa, Mamiko Kawasaki, Kenichi Nakamura,',
    '    Hirokazu Shoji, Yoshitaka Honma, Atsuo Takashima',
    '  10.1145/3184558.3186235: Lorenz Bühmann, Jens Lehmann, Patrick Westphal, Simon',
    '    Bin',
    '  10.1353/tfr.2012.0204: Marie-Agnès Sourieau',
    '  10.1371/journal.ppat.1008184: Christian Twittenhoff, Ann Kathrin Heroven,',
    '    Sabrina Mühlen, Guy Tran Van Nhieu',
    '  10.1515/9783110889406: Aneta Pavlenko, Adrian Blackledge, Ingrid Piller, Marya',
    '    Teutsch-Dwyer',
    '  10.2210/pdb4hhb/pdb: G. Fermi, M.F. Perutz',
    '  10.2307/j.ctv2ks6tbb: STEVEN M. GOODMAN, William L. Jungers, David W. Krause,',
    '    Olivier Langrand, Porter Peter Lowry, Paul A. Racey, Achille P.',
    '    Raselimanana, Roger J. Safford, John S. Sparks, Melanie L. J. Stiassny,',
    '    Pablo Tortosa, Aristide Andrianarimisa, Miguel Vences, Amanda H. Armstrong,',
    '    Andrew Cooke, Maarten De Wit, Jörg U. Ganzhorn, Laurent Gautier, Steven M.',
    '    Goodman, Julia P. G. Jones',
    '  10.26693/jmbs01.02.184: L.V. Senyuk',
    '  10.3892/ijo_00000353: Stravopodis',
    '  ... and 21 more; -f json lists every result',
    'Warning kgsh:ReferenceShape kg:resolutionMethod: 27 references not resolved',
    '  The reference could not be resolved (no DOI, identifier, URL or title).',
    '  10.1136/esmoopen-2020-000776: Saltz., Wiegering., Hong., Boss., Yamada.,',
    '    Nakamichi., Kiyota., Yoshino., Tahara., Takahashi., Yamashita., Tabernero.,',
    '    Kudo., Schlumberger., Li., Van Cutsem., Ott., Kato., Taylor., Makker., Van',
    '    Cutsem., Yamazaki., Price., Mayer., Grothey., Matsui., Matsui.',
    'Warning kgsh:WorkShape dcterms:title: 3 works without a title',
    '  The work has no title (normal for components, grants and journal issues).',
    '  10.1111/read.1991.25.issue-1',
    '  10.1364/oe.20.010242.m002',
    '  10.1371/journal.pmed.0030277.g001',
    'valid: no violations (130 warnings: 100 persons without an ORCID iD, 27',
    '  references not resolved, 3 works without a title)',
]


def test_samples_validation_in_plain_words_at_80_columns(run, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """On a terminal 80 columns wide: each group of results one header, its message once, its nodes by name in
    their records (20 record lines, then how many more), every line wrapped to the width; not 130 lines."""
    from conftest import SAMPLES
    samples = [str(p) for p in sorted(SAMPLES.rglob("*.json"))]
    assert run("build", *samples, "-q", "--validate", "none").exit_code == 0
    monkeypatch.setenv("KG_TERMINAL", "1")
    monkeypatch.setenv("COLUMNS", "80")
    r = run("validate", "--severity", "warning")
    assert (r.exit_code, r.stdout.splitlines()) == (1, SAMPLES_AT_80)
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    r = run("validate")
    assert (r.exit_code, r.stdout.splitlines()) == (0, SAMPLES_AT_80[-2:-1] + [
        "  references not resolved, 3 works without a title); --severity warning lists",
        "  them"])

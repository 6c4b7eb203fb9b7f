"""The stored queries' columns and the commands that say what a query can name (issue 26).

- Every column of every stored query has its ``#+ column:`` line, and docs/queries.md lists every column name with
  the queries it occurs in: one name a concept, written down.
- Labels first, IRIs last, on the seed graph's answers (the term types of each column).
- A table of cited works that have no title, only a DOI, ends with one note and the ``kg fetch`` command that
  fills the titles in; the command parses as ``kg fetch`` and ``kg build`` take it.
- ``kg topics`` and ``kg tools``: exact output, checked against the data files read here independently.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import ROOT
from rdflib import Graph, Namespace
from rdflib.namespace import RDF, SKOS

from kg import api
from kg.cli import main
from kg.query.output import render
from kg.query.results import Results
from kg.query.stored import stored_queries
from kg.report.source import ReportSource
from kg.workspace import fetch_command

NAMES = sorted(stored_queries())
GOLDEN = ROOT / "tests" / "golden" / "queries"
DOI = "https://doi.org/"
LABELS = {"title", "tool", "label", "name", "name_a", "venue", "funder", "candidate", "author"}
STARTS_WITH_IDS = {  # the graph has no words for what their rows are about (docs/queries.md)
    "references", "unresolved", "weakly-resolved", "works-citing", "internal-citations", "self-citations",
    "bibliographic-coupling", "funding", "years", "stats", "untitled-cited"}
LABEL_OF_IRI = {"tool": "tool", "venue": "venue", "funder": "funder", "topic": "label", "person": "name",
                "org": "name"}
IRI_COLUMN = re.compile(r"^(?:cited|(?P<thing>[a-z]+)_iri(?P<pair>_[ab])?)$")


def kg(home: Path, *args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"KG_HOME": str(home), "KG_TERMINAL": "0"}, prog_name="kg")


def ok(home: Path, *args: str) -> str:
    """The standard output of a ``kg`` command that must succeed quietly, line ends as written (CRLF in csv)."""
    r = kg(home, *args)
    assert (r.exit_code, r.stderr) == (0, ""), r.output
    return r.stdout_bytes.decode("utf-8")


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed workspace (``kg build`` in the project root, no inputs: seeds/); its KG_HOME."""
    home = tmp_path_factory.mktemp("columns") / "ws"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        r = kg(home, "build", "-q", "--validate", "none")
    assert r.exit_code == 0, r.output
    return home


@pytest.fixture(scope="module")
def answers(seed: Path) -> dict[str, Results]:
    """Every stored query's answer on the seed graph, with its terms (the graph loaded once)."""
    src = ReportSource([seed / "graph.nq"])
    return {name: src.query(name) for name in NAMES}


# ---------------------------------------------------------------- documented, one name a concept


def _glossary() -> dict[str, list[str]]:
    """docs/queries.md's table of columns: column name -> the queries it says the column occurs in."""
    out: dict[str, list[str]] = {}
    text = (ROOT / "docs" / "queries.md").read_text(encoding="utf-8")
    section = text.split("\n## Columns", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            for name in cells[0].split(", "):
                out[name.strip("`")] = cells[2].split(", ")
    return out


def test_every_column_of_every_stored_query_is_documented() -> None:
    used: dict[str, list[str]] = {}
    for q in stored_queries().values():
        assert len(q.docs) == len(q.returns), q.name
        for column, doc in zip(q.returns, q.docs, strict=True):
            assert doc[:1].isupper() and doc.endswith("."), (q.name, column, doc)
            used.setdefault(column, []).append(q.name)
        header = (GOLDEN / f"{q.name}.csv").read_text(encoding="utf-8").splitlines()[0]
        assert header.split(",") == list(q.returns), q.name  # the columns documented are the columns answered
    assert _glossary() == {c: sorted(qs) for c, qs in used.items()}


def test_kg_queries_shows_what_each_column_holds() -> None:
    home = Path("/nonexistent-kg-home")  # (no workspace needed)
    out = ok(home, "queries", "most-cited")
    assert out.endswith(
        "columns:\n"
        "  title         The cited work's title when the graph knows one (from its record or from what references "
        "say); empty when only its DOI is known ('kg fetch' can fill it in).\n"
        "  citing_works  How many input works cite it (distinct works).\n"
        "  cited         The cited work's IRI: https://doi.org/DOI when its DOI is known, else the node resolution "
        "made for it ({base}cited/title/..., cited/url/..., ...; docs/model.md 6.3).\n"
        "\nexample:\n  kg query most-cited -p min-citing=1\n")
    doc = {d["name"]: d for d in json.loads(ok(home, "queries", "-f", "json"))}
    for name, q in stored_queries().items():
        assert doc[name]["columns"] == [{"name": c, "description": d} for c, d in zip(q.returns, q.docs, strict=True)]


# ---------------------------------------------------------------- labels first, IRIs last


@pytest.mark.parametrize("name", NAMES)
def test_labels_first_iris_last(answers: dict[str, Results], name: str) -> None:
    res = answers[name]
    assert res.columns == list(stored_queries()[name].returns)
    holds_iris = [any(row[i] is not None and row[i][0] == "uri" for row in res.rows) for i in range(len(res.columns))]
    is_iri = [holds or (m := IRI_COLUMN.match(c)) is not None and m.group("thing") is not None
              for c, holds in zip(res.columns, holds_iris, strict=True)]
    assert is_iri == sorted(is_iri), f"{name}: a column of IRIs before others ({res.columns})"  # (False < True)
    for i, column in enumerate(res.columns):
        m = IRI_COLUMN.match(column)
        assert m or not holds_iris[i], f"{name}: {column} holds IRIs but is not named as such (cited, *_iri)"
        if m and m.group("thing"):  # only IRIs; and the label of the same thing comes first, where the query has it
            assert all(row[i] is None or row[i][0] == "uri" for row in res.rows), (name, column)
            label = LABEL_OF_IRI[m.group("thing")] + (m.group("pair") or "")
            assert label not in res.columns or res.columns.index(label) < i, (name, label, column)
    if "title" in res.columns:
        for ident in ("doi", "cited"):
            assert ident not in res.columns or res.columns.index("title") < res.columns.index(ident), name
    if name in STARTS_WITH_IDS:
        assert res.columns[0] in ("citing", "doi", "doi_a", "year", "works"), name
    else:
        assert res.columns[0] in LABELS, f"{name} starts with {res.columns[0]}, not with words"


def test_a_pair_is_a_and_b_of_one_name() -> None:
    for q in stored_queries().values():
        for column in q.returns:
            if column.endswith("_a"):
                assert column[:-2] + "_b" in q.returns, (q.name, column)


# ---------------------------------------------------------------- cited works known only by their DOI

NOTE = ("note: {n} cited works here have no title, only a DOI ({arxiv} of them arXiv DOIs, which Crossref does not "
        "hold); their Crossref records fill the titles in: ")
INPUTS_NOTE = ("kg fetch --cited-by INPUTS && kg build INPUTS fetched (INPUTS: the Crossref records the graph was "
               "built from)")
SEEDS_FETCH = "kg fetch --cited-by seeds && kg build seeds fetched"


def _untitled(csv_text: str) -> tuple[int, int]:
    found = {r["cited"] for r in csv.DictReader(io.StringIO(csv_text)) if not r["title"] and r["cited"].startswith(DOI)}
    return len(found), sum(c.startswith(DOI + "10.48550/arxiv.") for c in found)


def test_a_table_of_untitled_cited_works_ends_with_the_fetch_command(seed: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("KG_HOME", str(seed))
    graph = seed / "graph.nq"
    for name, params in (("most-cited", ["-p", "min-citing=2"]), ("cocited", [])):
        n, arxiv = _untitled(ok(seed, "query", name, *params, "-f", "csv"))
        table = render(api.query(name, dict(p.split("=") for p in params[1::2]), [graph]), "table", None)
        note = NOTE.format(n=n, arxiv=arxiv)
        assert ok(seed, "query", name, *params) == table + note + SEEDS_FETCH + "\n"
        assert ok(seed, "query", name, *params, "-g", str(graph)) == table + note + INPUTS_NOTE + "\n"
    assert _untitled((GOLDEN / "most-cited.csv").read_text(encoding="utf-8")) == (141, 22)  # (of 274 cited works)
    assert _untitled((GOLDEN / "cocited.csv").read_text(encoding="utf-8")) == (9, 2)
    # data formats carry no note; a table whose cited works all have titles neither
    for fmt in ("json", "markdown"):
        assert "note:" not in ok(seed, "query", "most-cited", "-p", "min-citing=2", "-f", fmt)
    tvm = ok(seed, "query", "most-cited", "-p", "min-citing=3")
    assert tvm.splitlines()[-1] == "(1 row)" and "note:" not in tvm


def _workspace(tmp_path: Path, inputs: list[str]) -> Path:
    home = tmp_path / "ws"
    home.mkdir()
    (home / "inputs.json").write_text(json.dumps({"inputs": inputs, "given": inputs}), encoding="utf-8")
    return home


def _parses(command: str) -> None:
    """Each part of ``kg fetch ... && kg build ...`` is a command line kg's own parser accepts (paths checked)."""
    for part in command.split(" && "):
        words = shlex.split(part)
        assert words[0] == "kg"
        main.commands[words[1]].make_context(words[1], words[2:])


@pytest.mark.parametrize(("inputs", "expected"), [
    (["a.json"], "kg fetch --cited-by a.json && kg build a.json fetched"),
    (["a.json", "more data"],
     "kg fetch --cited-by a.json --cited-by 'more data' && kg build a.json 'more data' fetched"),
    (["a.json", "fetched"], "kg fetch --cited-by a.json && kg build a.json fetched"),
    (["sub/b.jsonl.gz"], "kg fetch --cited-by sub/b.jsonl.gz && kg build sub/b.jsonl.gz fetched"),
])
def test_the_fetch_command_names_the_inputs_of_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             inputs: list[str], expected: str) -> None:
    here = tmp_path / "here"
    for p in inputs:
        (here / p).parent.mkdir(parents=True, exist_ok=True)
        (here / p).mkdir() if p in ("fetched", "more data") else (here / p).write_text("{}")
    monkeypatch.chdir(here)
    monkeypatch.setenv("KG_HOME", str(_workspace(tmp_path, [str(here / p) for p in inputs])))
    assert fetch_command() == expected
    _parses(expected)


def test_the_fetch_command_without_inputs_to_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "elsewhere" / "x.json"
    outside.parent.mkdir()
    outside.write_text("{}")
    monkeypatch.chdir(tmp_path / "elsewhere")
    cases = (([str(outside)], "kg fetch --cited-by x.json && kg build x.json fetched"), (["stdin"], INPUTS_NOTE),
             ([str(outside), "stdin"], INPUTS_NOTE), ([str(tmp_path / "gone.json")], INPUTS_NOTE), ([], INPUTS_NOTE))
    for i, (inputs, expected) in enumerate(cases):
        (tmp_path / f"case{i}").mkdir()
        monkeypatch.setenv("KG_HOME", str(_workspace(tmp_path / f"case{i}", inputs)))
        assert fetch_command() == expected, inputs
    monkeypatch.chdir(tmp_path / "case0")  # an input outside the current folder: its absolute path
    (tmp_path / "abs").mkdir()
    monkeypatch.setenv("KG_HOME", str(_workspace(tmp_path / "abs", [str(outside)])))
    assert fetch_command() == f"kg fetch --cited-by {outside} && kg build {outside} fetched"
    assert fetch_command(on_workspace=False) == INPUTS_NOTE
    monkeypatch.setenv("KG_HOME", str(tmp_path / "no-workspace"))
    assert fetch_command() == INPUTS_NOTE


# ---------------------------------------------------------------- kg topics, kg tools


def test_kg_topics_lists_the_scheme_in_tree_order(tmp_path: Path) -> None:
    g = Graph().parse(ROOT / "kg" / "data" / "topics.ttl")
    topic = Namespace("https://w3id.org/crossref-kg/topic/")
    concepts = {str(c)[len(topic):]: (str(g.value(c, SKOS.prefLabel)), str(g.value(c, SKOS.broader) or "")[len(topic):])
                for c in g.subjects(RDF.type, SKOS.Concept)}
    expected: list[list[str]] = []

    def walk(parent: str) -> None:
        for cid in sorted(c for c, (_l, b) in concepts.items() if b == parent):
            expected.append([concepts[cid][0], cid, parent])
            walk(cid)
    walk("")
    assert len(expected) == len(concepts) == 77
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows([["label", "id", "broader"], *expected])
    assert ok(tmp_path, "topics", "-f", "csv") == buf.getvalue()
    table = ok(tmp_path, "topics").splitlines()
    assert table[:4] == [
        "label                                             id                            broader",
        "------------------------------------------------- ----------------------------- -----------------------",
        "Computing                                         computing",
        "Artificial intelligence                           artificial-intelligence       computing"]
    assert table[-1] == "(77 rows)"


def _catalogue(category: str) -> list[tuple[str, str]]:
    tools = json.loads((ROOT / "kg" / "data" / "tools.json").read_text(encoding="utf-8"))["tools"]
    mine = [(t["name"], t["id"]) for t in tools if t["category"] == category and t.get("kind", "tool") == "tool"]
    return sorted(mine, key=lambda t: (t[0].lower(), t[1]))


def test_kg_tools_without_a_graph_is_the_catalogue(tmp_path: Path) -> None:
    profilers = _catalogue("profiler")
    assert len(profilers) > 40
    assert ok(tmp_path, "tools", "--category", "profiler", "-f", "csv") == \
        "tool,category,id\r\n" + "".join(f"{name},profiler,{tid}\r\n" for name, tid in profilers)
    every = ok(tmp_path, "tools", "-f", "csv").splitlines()
    assert len(every) == 1 + 1010


def test_kg_tools_counts_the_citing_works_of_the_workspace_graph(seed: Path) -> None:
    out = ok(seed, "tools", "--category", "profiler", "-f", "csv").splitlines()
    assert out[:12] == [
        "tool,category,citing_works,id",
        "Nsight Compute,profiler,3,nsight-compute",
        "CUDAAdvisor,profiler,2,cudaadvisor",
        "CUPTI,profiler,2,cupti",
        "Intel VTune Profiler,profiler,2,intel-vtune",
        "Nsight Systems,profiler,2,nsight-systems",
        "PyTorch Profiler,profiler,2,pytorch-profiler",
        "ROCProfiler,profiler,2,rocprofiler",
        "TensorFlow Profiler,profiler,2,tensorflow-profiler",
        "ValueExpert,profiler,2,valueexpert",
        "DeepContext,profiler,1,deepcontext",
        "DLProf,profiler,1,dlprof"]
    profilers = list(csv.DictReader(out))
    cited = {r["id"] for r in profilers if r["citing_works"] != "0"}
    assert [(r["tool"], r["id"]) for r in profilers if r["citing_works"] == "0"] == [
        t for t in _catalogue("profiler") if t[1] not in cited]
    # every tool of the graph, with the citing works of the stored query 'tools' (named tools too)
    golden = list(csv.DictReader(io.StringIO((GOLDEN / "tools.csv").read_text(encoding="utf-8"))))
    rows = list(csv.DictReader(io.StringIO(ok(seed, "tools", "-f", "csv"))))
    assert [r for r in rows if r["citing_works"] != "0"] == sorted(
        ({"tool": g["tool"], "category": g["category"], "citing_works": g["citing_works"],
          "id": g["tool_iri"].rsplit("/tool/", 1)[1]} for g in golden),
        key=lambda r: (-int(r["citing_works"]), r["tool"].lower(), r["id"]))
    assert any(r["id"].startswith("named/") for r in rows)


def test_kg_tools_refuses_an_unknown_category_listing_them(tmp_path: Path) -> None:
    r = kg(tmp_path, "tools", "--category", "profilers")
    categories = sorted(json.loads((ROOT / "kg" / "data" / "tools.json").read_text(encoding="utf-8"))["categories"])
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == ("error: --category 'profilers' is no tool category; did you mean 'profiler'? give one of: "
                        f"{', '.join(categories)}\n")
    r = kg(tmp_path, "tools", "--category", "zzz")
    assert r.exit_code == 2 and r.stderr == f"error: --category 'zzz' is no tool category; give one of: " \
                                            f"{', '.join(categories)}\n"

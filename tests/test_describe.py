"""``kg describe`` on the seeds' graph: a tool, a work (its DOI in three forms), a topic, a cited work, unknown
targets; and shell completion through click's ShellComplete API, in process. Exact output through CliRunner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.shell_completion import ShellComplete
from click.testing import CliRunner, Result

from kg.cli import main

SEEDS = Path(__file__).resolve().parents[1] / "seeds"
ELK = "Elk: Exploring the Efficiency of Inter-core Connected AI Chips with Deep Learning Compiler Techniques"
JOURNEY = "A Journey of a 1,000 Kernels Begins with a Single Step: A Retrospective of Deep Learning on GPUs"
PASTA = "PASTA: A Modular Program Analysis Tool Framework for Accelerators"
SNAP = "Snap & Replay: A new way to analyze uarch-scale performance bottlenecks for ML accelerators"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    where = tmp_path_factory.mktemp("describe") / "ws"
    r = CliRunner().invoke(main, ["build", str(SEEDS), "--validate", "none", "-q"], prog_name="kg",
                           env={"KG_HOME": str(where)})
    assert r.exit_code == 0, r.output
    yield where


def kg(home: Path, *args: str, terminal: bool = False, columns: int = 80) -> Result:
    r = CliRunner().invoke(main, list(args), prog_name="kg", env={
        "KG_HOME": str(home), "KG_TERMINAL": "1" if terminal else "0", "COLUMNS": str(columns)})
    assert "Traceback" not in r.output, r.output
    return r


def section(text: str, heading: str) -> list[str]:
    lines = text.splitlines()
    at = lines.index(heading)
    end = next((i for i in range(at + 1, len(lines)) if not lines[i]), len(lines))
    return lines[at + 1:end]


def test_a_tool_with_its_labelled_facts_and_recognitions(home: Path) -> None:
    r = kg(home, "describe", "tool:tvm")
    assert r.exit_code == 0, r.output
    assert r.stdout == f"""TVM (tool:tvm)
<https://w3id.org/crossref-kg/tool/tvm>

  alternate name        Apache TVM
  alternate name        TVM Unity
  alternate name        TVM compiler
  alternate name        TVM runtime
  application category  compiler
  identifier            tvm
  name                  TVM
  subject of            10.48550/arxiv.1802.04799
  tool source           catalogue
  type                  fabio:Software
  type                  schema:SoftwareApplication
  url                   <https://tvm.apache.org/>
  vendor                Apache Software Foundation

recognised in 3 references of 3 works (work, reference: method, score; matched):
  {JOURNEY} (10.1145/3620665.3640367), reference e_1_3_2_1_6_1: paper-title, 0.99; "TVM: An Automated End-to-End \
Optimizing Compiler for Deep Learning"
  {ELK} (10.1145/3725843.3756064), reference e_1_3_3_2_13_2: paper-title, 0.99; "TVM: An Automated End-to-End \
Optimizing Compiler for Deep Learning"
  {SNAP} (10.1145/3772052.3772233), reference e_1_3_2_1_11_1: paper-title, 0.99; "TVM: an automated end-to-end \
optimizing compiler for deep learning"
"""
    assert kg(home, "describe", "tvm").stdout == r.stdout  # a bare id
    assert kg(home, "describe", "<https://w3id.org/crossref-kg/tool/tvm>").stdout == r.stdout  # an IRI


def test_a_work_by_its_doi_in_any_form_with_its_topic_evidence(home: Path) -> None:
    r = kg(home, "describe", "10.1109/cgo68049.2026.11395237")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[:2] == [f"{PASTA} (10.1109/cgo68049.2026.11395237)",
                                         "<https://doi.org/10.1109/cgo68049.2026.11395237>"]
    assert section(r.stdout, "topics (method, score; evidence):") == [
        "  Profiling and tracing (topic:profiling): primary, keywords, 1; cited tools: 20 of 42 (20 profiler)",
        "  Instrumentation and dynamic analysis (topic:dynamic-analysis): secondary, keywords, 0.89; title: program "
        "analysis; cited tools: 2 of 42 (2 binary-instrumentation)",
        "  Compilers and code generation (topic:compilers): secondary, keywords, 0.84; venue: cgo, code generation and "
        "optimization; cited tools: 1 of 42 (1 compiler)",
        "  Program analysis and verification (topic:program-analysis): secondary, keywords, 0.79; title: program "
        "analysis",
        "  Distributed training (topic:distributed-training): secondary, keywords, 0.35; cited tools: 7 of 42 (7 "
        "training-runtime)"]
    tools = section(r.stdout, "tools its references cite (reference: method, score; matched):")
    assert tools[0].startswith("  ") and all(", reference " in t for t in tools)  # a recognition a line
    for other in ("https://doi.org/10.1109/CGO68049.2026.11395237", "doi:10.1109/cgo68049.2026.11395237"):
        assert kg(home, "describe", other).stdout == r.stdout
    facts = r.stdout.split("\n\n")[1].splitlines()
    assert f"  name                   {PASTA}" in facts
    assert "  in topic               Profiling and tracing (topic:profiling)" in facts
    assert max(facts.count(line) for line in facts) == 1


def test_a_topic_with_its_works(home: Path) -> None:
    r = kg(home, "describe", "topic:profiling")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[:4] == ["Profiling and tracing (topic:profiling)",
                                         "<https://w3id.org/crossref-kg/topic/profiling>", "",
                                         "  alt label      Bottleneck analysis"]
    assert "  broader        Performance analysis (topic:performance-analysis)" in r.stdout.splitlines()
    assert "  cue            ... and 25 more" in r.stdout.splitlines()
    assert section(r.stdout, "works of this topic (method, score; evidence):") == [
        f"  {PASTA} (10.1109/cgo68049.2026.11395237): primary, keywords, 1; cited tools: 20 of 42 (20 profiler)",
        f"  {SNAP} (10.1145/3772052.3772233): primary, keywords, 1; title: performance bottleneck*; cited tools: 12 "
        "of 45 (12 profiler)"]


def test_a_cited_work_with_who_cites_it(home: Path) -> None:
    r = kg(home, "describe", "10.1145/3470496.3527440")
    assert r.exit_code == 0, r.output
    assert section(r.stdout, "cited by (work, reference):") == [
        f"  {JOURNEY} (10.1145/3620665.3640367), reference e_1_3_2_1_87_1",
        f"  {ELK} (10.1145/3725843.3756064), reference e_1_3_3_2_73_2"]


def test_on_a_terminal_long_values_wrap_at_word_boundaries(home: Path) -> None:
    r = kg(home, "describe", "tool:tvm", terminal=True, columns=80)
    lines = r.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    at = lines.index("recognised in 3 references of 3 works (work, reference: method, score; matched):")
    assert [line[:4] for line in lines[at + 1:]].count("  A ") == 1 and lines[at + 2].startswith("    ")
    assert r.stdout.split() == kg(home, "describe", "tool:tvm").stdout.split()  # the same words, none broken


@pytest.mark.parametrize(("target", "line"), [
    ("tool:pytorhc", "error: tool:pytorhc: no tool of this id in the graph; did you mean tool:pytorch, "
                     "tool:pytorch-ddp? 'kg tools' lists the tools the graph cites"),
    ("topic:profilng", "error: topic:profilng: no topic of this id in the graph; did you mean topic:profiling? "
                       "'kg topics' lists the topics"),
    ("pytorhc", "error: pytorhc: no tool, topic or node of this id in the graph; did you mean pytorch, pytorch-ddp? "
                "give a DOI, tool:ID, topic:ID or an IRI ('kg tools' and 'kg topics' list the ids)"),
    ("10.1145/9999999.9999", "error: 10.1145/9999999.9999: no work or cited work of this DOI in the graph; 'kg query "
                             "works' lists the input works, 'kg query most-cited' the cited ones"),
    ("https://example.org/nothing", "error: https://example.org/nothing: nothing in the graph has this IRI; give a "
                                    "DOI, tool:ID, topic:ID or an IRI of the graph"),
    ("a b", "error: a b: no tool, topic or node of this id in the graph; give a DOI, tool:ID, topic:ID or an IRI "
            "('kg tools' and 'kg topics' list the ids)"),
])
def test_an_unknown_target_is_one_line(home: Path, target: str, line: str) -> None:
    r = kg(home, "describe", target)
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", line + "\n")


def test_no_workspace_graph_is_one_line(tmp_path: Path) -> None:
    r = kg(tmp_path / "ws", "describe", "tool:tvm")
    assert (r.exit_code, r.stderr) == (2, f"error: {tmp_path / 'ws' / 'graph.nq'}: no graph here; run 'kg build' "
                                          "first or name a graph file\n")


def complete(args: list[str], incomplete: str) -> list[str]:
    return [item.value for item in ShellComplete(main, {}, "kg", "_KG_COMPLETE").get_completions(args, incomplete)]


def test_completion_of_commands_query_names_parameters_and_ids() -> None:
    assert complete([], "de") == ["describe"]
    assert complete(["query"], "tools-cited-by-") == ["tools-cited-by-both", "tools-cited-by-profiling-and-compiler"]
    assert complete(["query", "tools-cited-by-both", "-p"], "topic") == ["topic-a=", "topic-b="]
    assert complete(["query", "tools-cited-by-both", "-p"], "topic-a=prof") == ["topic-a=profiling"]
    assert complete(["query", "works-citing", "-p"], "target=pytorch-") == [
        "target=pytorch-biggraph", "target=pytorch-ddp", "target=pytorch-fsdp", "target=pytorch-lightning",
        "target=pytorch-profiler"]
    assert complete(["query", "tools-by-category", "-p"], "category=prof") == ["category=profiler"]
    assert complete(["describe"], "topic:prof") == ["topic:profiling"]
    assert complete(["describe"], "tool:tv") == ["tool:tvm"]

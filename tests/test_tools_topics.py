"""Tool recognition (aliases, DOIs, URLs, false-positive traps, candidates), topics (evidence, override)
and the headline query on a small hand-made corpus with a known answer."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.model import Reference
from kg.refs.named import mention_of
from kg.refs.parse import parse_reference
from kg.refs.tools import Catalogue
from kg.refs.topics import concepts

CAT = Catalogue.load()


def tools_of(text: str | None = None, doi: str | None = None, **fields: str) -> list[tuple[str, str]]:
    ref = Reference(1, "k", doi, None, text, tuple((k.replace("_", "-"), v) for k, v in fields.items()))
    p = parse_reference(ref)
    return [(m.tool.id, m.method) for m in CAT.recognise(p, doi, text or "")]


def test_catalogue_is_large_and_well_formed() -> None:
    assert len(CAT.tools) >= 150
    assert set(CAT.categories) >= {"profiler", "binary-instrumentation", "compiler", "ir", "dl-framework",
                                   "inference-runtime", "training-runtime", "kernel-library", "simulator", "debugger"}
    for t in CAT.tools.values():
        assert t.category in CAT.categories and t.name and t.aliases
        for p in t.url_patterns:
            assert "://" not in p and not p.startswith("www.") and "." in p


@pytest.mark.parametrize("text, expected", [
    ("NVIDIA. 2024. NVIDIA Nsight Compute. https://developer.nvidia.com/nsight-compute", ("nsight-compute", "url")),
    ("NVIDIA Corporation. 2025. CUDA-GDB. https://developer.nvidia.com/cuda-gdb", ("cuda-gdb", "url")),
    ("Intel Corporation. 2024. Intel VTune Profiler.", ("intel-vtune", "alias")),
    ("Tianqi Chen, Thierry Moreau, and Arvind Krishnamurthy. 2018. TVM: An Automated End-to-End Optimizing "
     "Compiler for Deep Learning. In OSDI.", ("tvm", "paper-title")),
])
def test_alias_url_and_paper_title_matches(text: str, expected: tuple[str, str]) -> None:
    found = tools_of(text)
    assert any(tid == expected[0] for tid, _m in found), found
    assert dict(found)[expected[0]] in (expected[1], "url", "paper-title", "alias")


def test_doi_of_a_defining_paper_links_to_the_tool() -> None:
    assert ("gem5", "doi") in tools_of(doi="10.1145/2024716.2024718")
    assert ("nvbit", "doi") in tools_of(doi="10.1145/3352460.3358307")


def test_longer_alias_wins_over_the_tool_it_contains() -> None:
    found = dict(tools_of(article_title="Pytorch profiler", author="Team"))
    assert "pytorch" not in found and any("profiler" in t for t in found)


@pytest.mark.parametrize("text", [
    # Triton the inference server is not the Triton compiler
    "NVIDIA. 2023. Triton Inference Server. https://developer.nvidia.com/triton-inference-server",
    # JAX as a surname
    "M. Jax and P. Lee. 2019. Stochastic models of queueing in hospitals. Oper. Res. 12, 3 (2019).",
    # Spark in a title about sparks
    "K. Ito. 2015. Spark ignition timing in lean-burn engines. Combust. Flame 162 (2015), 1–9.",
    # ATLAS the algorithm / the experiment
    "A. Roy. 2012. ATLAS: an adaptive trajectory algorithm for robot swarms. In Proc. ICRA. 12–19.",
    "ATLAS Collaboration. 2012. Observation of a new particle in the search for the Standard Model Higgs boson. Phys. "
    "Lett. B 716, 1–29.",
    # OpenMP mentioned inside a paper title about something else
    "S. Lee, S. Min, and R. Eigenmann. 2009. OpenMP to GPGPU: a compiler framework for automatic translation and "
    "optimization. In PPoPP. 101–110.",
    "J. Doe. 2020. Scaling irregular OpenMP loops on NUMA machines. In IPDPS. 1–10.",
])
def test_false_positive_traps_do_not_fire(text: str) -> None:
    found = dict(tools_of(text))
    for trap in ("triton", "jax", "apache-spark", "atlas", "openmp"):
        assert trap not in found, (trap, text, found)


def test_true_positives_of_the_trap_names() -> None:
    assert "triton" in dict(tools_of("Philippe Tillet, H. T. Kung, and David Cox. 2019. Triton: an intermediate "
                                     "language "
                                     "and compiler for tiled neural network computations. In MAPL. 10–19."))
    assert "triton-inference-server" in dict(tools_of("NVIDIA. 2023. Triton Inference Server. "
                                                      "https://developer.nvidia.com/triton-inference-server"))
    assert "apache-spark" in dict(tools_of("Apache Software Foundation. 2024. Apache Spark. https://spark.apache.org/"))


def test_software_the_catalogue_does_not_know_from_repository_url_and_documentation() -> None:
    ref = Reference(1, "k", None, None, "A. Karpathy. 2020. tinytrainer. https://github.com/someone/tinytrainer")
    p = parse_reference(ref)
    assert CAT.recognise(p, None, ref.unstructured or "") == []
    m = mention_of(p, ref.unstructured or "", CAT)
    assert m is not None and (m.name, m.method, m.score) == ("tinytrainer", "repository-url", 0.75)
    ref = Reference(2, "k", None, None, "Acme Corp. 2024. Widgetizer SDK documentation.")
    m = mention_of(parse_reference(ref), ref.unstructured or "", CAT)
    assert m is not None and (m.name, m.method) == ("Widgetizer", "documentation")


def _work_record(doi: str, title: str, refs: list[dict], venue: str = "") -> dict:
    return {"DOI": doi, "type": "proceedings-article", "title": [title], "container-title": [venue] if venue else [],
            "issued": {"date-parts": [[2025]]}, "reference": refs,
            "author": [{"given": "A", "family": "Author", "sequence": "first", "affiliation": []}]}


HEADLINE_CORPUS = [
    _work_record("10.5555/prof.1", "Sampling-based profiling of performance bottlenecks in GPU kernels", [
        {"key": "p1", "unstructured": "NVIDIA. 2024. Nsight Compute. https://developer.nvidia.com/nsight-compute"},
        {"key": "p2",
         "unstructured": "Tianqi Chen and Luis Ceze. 2018. TVM: An Automated End-to-End Optimizing Compiler for Deep "
                         "Learning. In OSDI."},
        {"key": "p3", "DOI": "10.1145/2024716.2024718"},
    ]),
    _work_record("10.5555/prof.2", "A low-overhead profiler for tracing accelerator workloads", [
        {"key": "q1", "DOI": "10.1145/3352460.3358307"},
        {"key": "q2", "unstructured": "NVIDIA. 2024. Nsight Systems. https://developer.nvidia.com/nsight-systems"},
    ]),
    _work_record("10.5555/comp.1", "Operator fusion in a tensor compiler for deep learning", [
        {"key": "c1",
         "unstructured": "T. Chen et al. 2018. TVM: An Automated End-to-End Optimizing Compiler for Deep Learning. In "
                         "OSDI."},
        {"key": "c2",
         "unstructured": "NVIDIA. 2024. NVIDIA Nsight Compute. https://developer.nvidia.com/nsight-compute"},
        {"key": "c3", "DOI": "10.1109/CGO51591.2021.9370308"},
    ]),
    _work_record("10.5555/other.1", "Spark ignition in lean-burn engines", [
        {"key": "o1", "DOI": "10.1145/2024716.2024718"},
    ]),
]


def test_topics_carry_evidence_and_the_headline_query_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in HEADLINE_CORPUS), encoding="utf-8")
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["build", str(corpus), "-q"]).exit_code == 0
    topics = runner.invoke(main, ["query", "topics", "-f", "csv"])
    rows = list(csv.DictReader(io.StringIO(topics.stdout)))
    primary = {r["doi"]: r["topic_iri"].rsplit("/", 1)[-1] for r in rows if r["primary"] == "true"}
    assert primary["10.5555/prof.1"] == "profiling" and primary["10.5555/prof.2"] == "profiling"
    assert primary["10.5555/comp.1"] in ("compilers", "deep-learning-compilers")
    assert "title:" in topics.stdout  # the evidence names the field and the cues
    res = runner.invoke(main, ["query", "tools-cited-by-profiling-and-compiler", "-f", "csv"])
    assert res.exit_code == 0
    rows_ = list(csv.DictReader(io.StringIO(res.stdout)))
    assert list(rows_[0]) == ["tool", "category", "side", "title", "doi", "key", "text", "recognition_method",
                              "recognition_score", "matched", "tool_iri"]
    got = sorted((r["tool"], r["side"], r["doi"], r["key"], r["recognition_method"]) for r in rows_)
    assert got == sorted([
        ("Nsight Compute", "Performance analysis", "10.5555/prof.1", "p1", "url"),
        ("Nsight Compute", "Compilers and code generation", "10.5555/comp.1", "c2", "url"),
        ("TVM", "Performance analysis", "10.5555/prof.1", "p2", "paper-title"),
        ("TVM", "Compilers and code generation", "10.5555/comp.1", "c1", "paper-title"),
    ])
    # gem5 is cited by a profiling paper and by a paper on engines: not by a compiler paper, so absent
    both = list(csv.DictReader(io.StringIO(runner.invoke(main, ["query", "tools-cited-by-both", "-f", "csv"]).stdout)))
    assert [(r["tool"], r["side_a_papers"], r["side_a_titles"], r["side_b_papers"], r["side_b_titles"],
             r["references"]) for r in both] == [
        ("Nsight Compute", "1", "Sampling-based profiling of performance bottlenecks in GPU kernels",
         "1", "Operator fusion in a tensor compiler for deep learning", "2"),
        ("TVM", "1", "Sampling-based profiling of performance bottlenecks in GPU kernels",
         "1", "Operator fusion in a tensor compiler for deep learning", "2")]


def test_topic_override_file_replaces_the_classifier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in HEADLINE_CORPUS), encoding="utf-8")
    overrides = tmp_path / "topics.tsv"
    overrides.write_text("doi\ttopics\n10.5555/other.1\tcompilers,architecture-simulation\n", encoding="utf-8")
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["build", str(corpus), "--topics", str(overrides), "-q"]).exit_code == 0
    out = runner.invoke(main, ["query", "topics", "-f", "csv"]).stdout
    other = [r for r in csv.DictReader(io.StringIO(out)) if r["doi"] == "10.5555/other.1"]
    assert [(r["topic_iri"].rsplit("/", 1)[-1], r["primary"], r["topic_method"]) for r in other] == [
        ("compilers", "true", "override"), ("architecture-simulation", "false", "override")]
    res = runner.invoke(main, ["query", "tools-cited-by-profiling-and-compiler", "-f", "csv"]).stdout
    assert "gem5" in res  # now cited by a profiling paper and a (declared) compiler paper
    bad = tmp_path / "bad.tsv"
    bad.write_text("10.5555/other.1\tnot-a-topic\n", encoding="utf-8")
    r = runner.invoke(main, ["build", str(corpus), "--topics", str(bad)])
    assert r.exit_code == 2 and "topic 'not-a-topic' is not in the scheme" in r.stderr


def test_user_catalogue_adds_a_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = _work_record("10.5555/x.1", "Profiling with home-made tools", [
        {"key": "k1", "unstructured": "Acme. 2024. Widgetizer. https://widgetizer.example.org/docs"}])
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    extra = tmp_path / "mytools.json"
    extra.write_text(json.dumps({"categories": {"profiler": "Profilers"}, "tools": [
        {"id": "widgetizer", "name": "Widgetizer", "category": "profiler",
         "url_patterns": ["widgetizer.example.org"]}]}))
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    runner = CliRunner()
    assert runner.invoke(main, ["build", str(path), "--tools", str(extra), "-q"]).exit_code == 0
    out = runner.invoke(main, ["query", "references", "-f", "csv"]).stdout
    assert ",tool,Widgetizer," in out


def test_every_concept_has_cues_and_the_required_ids_exist() -> None:
    ids = {c.id for c in concepts()}
    assert {"performance-analysis", "profiling", "dynamic-analysis", "performance-characterization", "compilers",
            "deep-learning-compilers", "computer-architecture", "architecture-simulation", "ml-frameworks",
            "distributed-training", "inference-serving", "life-sciences", "physical-sciences", "social-sciences",
            "humanities", "engineering", "computing"} <= ids
    assert all(c.cues for c in concepts())
    # the two families of the headline question, as a researcher means them
    by = {c.id: c for c in concepts()}
    assert {c.id for c in concepts() if "performance-analysis" in c.ancestors} == {
        "profiling", "dynamic-analysis", "performance-characterization", "performance-modeling"}
    assert {c.id for c in concepts() if "compilers" in c.ancestors} == {"deep-learning-compilers", "autotuning",
                                                                        "code-generation"}
    assert by["performance-analysis"].ancestors == by["compilers"].ancestors == ("computing",)


def test_seed_headline_query_answers_right_after_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`kg build` then `kg query tools-cited-by-profiling-and-compiler`, no flags: rows with evidence."""
    from conftest import ROOT
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    monkeypatch.chdir(ROOT)
    runner = CliRunner()
    assert runner.invoke(main, ["build", "-q"]).exit_code == 0
    res = runner.invoke(main, ["query", "tools-cited-by-profiling-and-compiler", "-f", "csv"])
    assert res.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert {r["tool"] for r in rows} == {"AMOS", "FlashAttention", "Megatron-LM", "PyTorch", "Tensor Comprehensions",
                                         "TVM", "vLLM", "XLA"}
    assert {r["side"] for r in rows} == {"Performance analysis", "Compilers and code generation"}

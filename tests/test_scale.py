"""The streaming build: same bytes as the in-memory build, whatever the number of workers, runs or merge
rounds; large JSON Lines read line by line; sharded validation equal to whole-graph validation; a killed
build leaves the old workspace and output intact; a large build stays under a memory limit (slow)."""

from __future__ import annotations

import gzip
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, SAMPLES, SEEDS
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.cli import main
from kg.errors import KgError
from kg.infra import extsort
from kg.ingest import read
from kg.map.context import Context, ContextSpec
from kg.pipeline import stream
from kg.pipeline.memory import build_graph
from kg.pipeline.stream import build_stream
from kg.pipeline.tuning import Tuning
from kg.rdf.ids import DEFAULT_BASE
from kg.rdf.terms import lit
from kg.validate import data_graph, load_shapes, validate, validate_sharded

SYNTH = ROOT / "bench" / "synth.py"
SHARED_GRAPHS = {f"<{DEFAULT_BASE}graph/{g}>" for g in ("facts", "knowledge", "tools", "topics")}


def synth(n: int, out: Path) -> Path:
    subprocess.run([sys.executable, str(SYNTH), str(n), str(out)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """120 synthetic records (recurring people, venues and cited works), a duplicate DOI deposited later,
    the seeds and the real samples."""
    folder = tmp_path_factory.mktemp("corpus")
    synthetic = synth(120, folder / "synthetic.jsonl")
    later = json.loads(synthetic.read_text(encoding="utf-8").splitlines()[0])
    later["deposited"] = {"date-parts": [[2030, 1, 1]], "date-time": "2030-01-01T00:00:00Z"}
    later["title"] = ["A later deposit of the same DOI"]
    (folder / "again.jsonl").write_text(json.dumps(later) + "\n", encoding="utf-8")
    # a reference that names no tool, resolved to an input record whose title does (method cited-record)
    cited = [{"DOI": "10.5555/tool-paper.1", "type": "journal-article", "issued": {"date-parts": [[2021]]},
              "title": ["Accelergy: energy estimation for accelerator designs, revisited"]},
             {"DOI": "10.5555/citing.1", "type": "journal-article", "issued": {"date-parts": [[2024]]},
              "title": ["A paper that cites a tool paper by DOI alone"],
              "reference": [{"key": "r1", "DOI": "10.5555/tool-paper.1"}]}]
    (folder / "cited.jsonl").write_text("".join(json.dumps(r) + "\n" for r in cited), encoding="utf-8")
    return [str(synthetic), str(folder / "again.jsonl"), str(folder / "cited.jsonl"), str(SEEDS), str(SAMPLES)]


def streamed(inputs: list[str], tmp: Path, jobs: int, tuning: Tuning = Tuning()) -> tuple[list[str], object]:
    result = build_stream(inputs, ContextSpec(), tmp / f"scratch-{jobs}", jobs=jobs, tuning=tuning)
    lines = list(result.lines())
    shutil.rmtree(tmp / f"scratch-{jobs}")
    return lines, result.report


@pytest.fixture(scope="module")
def in_memory(corpus: list[str]) -> tuple[list[str], object]:
    result = build_graph(corpus, Context.create())
    return result.lines, result.report


@pytest.mark.parametrize("jobs", [1, 2])
def test_streaming_build_equals_in_memory_build(corpus: list[str], in_memory: tuple, tmp_path: Path,
                                                jobs: int) -> None:
    lines, report = streamed(corpus, tmp_path, jobs)
    expected, expected_report = in_memory
    assert any('"cited-record"' in line for line in expected)  # (a tool found through a cited input record)
    assert report.merged == expected_report.merged == 1
    assert lines == expected
    for attr in ("records", "skipped", "merged", "errors", "warnings", "notes"):
        assert getattr(report, attr) == getattr(expected_report, attr), attr


@pytest.mark.parametrize("jobs", [1, 2])
def test_lines_of_large_json_lines_files_parsed_by_the_workers_give_the_same_build(
        corpus: list[str], tmp_path: Path, jobs: int) -> None:
    """Lines of large JSON Lines files go to the workers unparsed: a line holding a list response (two
    records, one of them a duplicate DOI that is merged), a line of bad JSON and a line that is no work are
    numbered, merged and reported as when the reader parses them."""
    records = [json.loads(line) for line in Path(corpus[0]).read_text(encoding="utf-8").splitlines()[:12]]
    later = dict(records[3], deposited={"date-parts": [[2031, 1, 1]], "date-time": "2031-01-01T00:00:00Z"})
    lines = [json.dumps(r) for r in records[:5]]
    lines += ['{"message-type": "work-list", "message": {"items": ' + json.dumps([records[5], later]) + "}}",
              '{"DOI": "10.1/broken", ', "", json.dumps({"status": "ok"}), *map(json.dumps, records[6:])]
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join(lines) + "\n", encoding="utf-8")
    inputs = [str(big), str(SEEDS)]
    expected = build_graph(inputs, Context.create())
    assert any(isinstance(x, read.LazyLine) for x in read.iter_records([str(big)], lazy=True, stream_above=0))
    lines_, report = streamed(inputs, tmp_path, jobs, Tuning(stream_above=0))
    assert lines_ == expected.lines
    assert (report.records, report.skipped, report.merged) == (expected.report.records, 2, 1)
    for attr in ("records", "skipped", "merged", "errors", "warnings", "notes"):
        assert getattr(report, attr) == getattr(expected.report, attr), attr


@pytest.mark.parametrize("external", [True, False], ids=["system-sort", "python-merge"])
def test_many_small_runs_and_merge_rounds_give_the_same_bytes(corpus: list[str], in_memory: tuple, tmp_path: Path,
        external: bool) -> None:
    tuning = Tuning(external_sort=external, chunk=7, run_growth=1, fan_in=3)  # (runs of 7 records, however many)
    result = build_stream(corpus, ContextSpec(), tmp_path / "scratch", jobs=1, tuning=tuning)
    assert sum(r.name.startswith("map-") for r in result.runs) >= 20  # many small runs: merged in rounds
    assert list(result.lines()) == in_memory[0]


@pytest.mark.parametrize("external", [True, False], ids=["system-sort", "python-merge"])
def test_runs_merged_by_the_workers_give_the_same_bytes(corpus: list[str], in_memory: tuple, tmp_path: Path,
        external: bool) -> None:
    """With workers, every ``group`` runs of pass 2 are merged by a worker; the final merge gets those groups,
    the runs left over and the knowledge runs, and gives the in-memory bytes."""
    # (28 runs of this corpus: 9 groups of 3 and one run left over)
    tuning = Tuning(external_sort=external, chunk=6, group=3, run_growth=1, fan_in=4)
    result = build_stream(corpus, ContextSpec(), tmp_path / "scratch", jobs=2, tuning=tuning)
    names = [r.name for r in result.runs]
    assert sum(n.startswith("group-") for n in names) >= 5 and any(n.startswith("map-") for n in names)
    assert list(result.lines()) == in_memory[0]


def test_runs_grow_so_that_the_final_merge_takes_them_at_once(corpus: list[str], in_memory: tuple,
                                                            tmp_path: Path) -> None:
    """Where runs of ``chunk`` records would be more than the final merge takes at once, pass 2 puts more records
    in a run (at most ``run_growth * chunk``): no group merges by the workers, and the same bytes."""
    # (chunks of 3: about 50 runs of this corpus; a fan-in of 40 leaves room for 40 - 16 - 3 = 21 runs of pass 2)
    tuning = Tuning(chunk=3, group=3, fan_in=40)
    result = build_stream(corpus, ContextSpec(), tmp_path / "scratch", jobs=2, tuning=tuning)
    names = [r.name for r in result.runs]
    assert not any(n.startswith("group-") for n in names)
    assert 10 <= sum(n.startswith("map-") for n in names) <= 21
    assert list(result.lines()) == in_memory[0]


def test_records_per_run_fit_the_final_merge_within_a_bound() -> None:
    # (a fan-in of 1000 leaves room for 1000 - 16 - 64 = 920 runs)
    assert [stream.run_records(n, 1000, Tuning()) for n in (1, 58_880, 58_881, 100_000, 235_520, 10**7)] == [64, 64, 65,
        109, 256, 256]


def test_resolution_in_workers_gives_the_same_bytes(corpus: list[str], in_memory: tuple,
                                                    tmp_path: Path) -> None:
    """With workers and enough references, resolution steps 2, 3 and 5 run on hash partitions of the title
    keys and groups in worker processes: the in-memory bytes still."""
    result = build_stream(corpus, ContextSpec(), tmp_path / "scratch", jobs=2, tuning=Tuning(parallel_above=0))
    assert result.resolve_parts == 2
    assert list(result.lines()) == in_memory[0]
    assert not list((tmp_path / "scratch").glob("*-part*"))  # the partitions' files are gone


def test_the_sample_to_validate_is_gathered_by_the_workers_as_the_merged_graph_would_give_it(
        corpus: list[str], tmp_path: Path) -> None:
    """The sampled records' graphs come from the workers that map them, the shared graphs from the knowledge
    runs: the same lines as filtering the merged graph (the sampled graphs, the tools and topics graphs, the
    knowledge-graph lines about the IRIs the sampled records use, the facts about those and their subjects)."""
    result = build_stream(corpus, ContextSpec(), tmp_path / "scratch", jobs=2, sample=15)
    n = result.write_sample(tmp_path / "sample.nq")
    gathered = (tmp_path / "sample.nq").read_text(encoding="utf-8").splitlines(keepends=True)
    assert n == len(gathered) and not result.sampled  # (the sampled runs were merged into the file)
    fgraph, kgraph, tgraph, sgraph = sorted(SHARED_GRAPHS)
    kept, knowledge, facts, used, subjects = [], [], [], set(), set()
    for line in result.lines():
        body, graph, _end = line.rsplit(" ", 2)
        s, o = body.split(" ", 1)[0], body.split(" ", 2)[2]
        if graph == kgraph:
            knowledge.append(line)
        elif graph == fgraph:
            facts.append(line)
        elif graph in result.sample or graph in (tgraph, sgraph):
            kept.append(line)
            if graph in result.sample:
                subjects.add(s)
                if o.startswith("<"):
                    used.add(o)
    expected = sorted(kept + [line for line in knowledge if line.split(" ", 1)[0] in used]
                      + [line for line in facts if line.split(" ", 1)[0] in used | subjects])
    assert any(line in gathered for line in facts)
    assert len(result.sample) == 15 and len(expected) > 1000
    assert gathered == expected


def test_with_workers_the_sample_is_validated_while_the_graph_is_merged(corpus: list[str], tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """With workers, the sample is validated in a forked process during the merge: the same report as the
    validation after the merge that one worker does, and the same graph."""
    from kg import api
    from kg.infra import workers as forked
    started: list[int] = []
    real = forked.Forked.__init__

    def spy(self: object, *args: object, **kwargs: object) -> None:
        # (the jobs validate_file gets: after the function, the file, the shared graphs and the shapes)
        started.append(args[4])
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(forked.Forked, "__init__", spy)
    reports, graphs = {}, {}
    for jobs in (1, 2):
        monkeypatch.setenv("KG_HOME", str(tmp_path / f"home-{jobs}"))
        # (the sample of this corpus is small: shard it anyway)
        built, reports[jobs] = api.build(corpus, api.BuildOptions(validation="sample:40", jobs=jobs, allow_invalid=True,
                                                                  tuning=Tuning(shard_above=0)))
        graphs[jobs] = built.graph.read_bytes()
    assert started == [2]
    assert reports[2].results == reports[1].results and reports[2].conforms == reports[1].conforms
    assert reports[1].count("Warning") > 0 and graphs[2] == graphs[1]


def test_the_runs_are_deleted_once_merged_before_the_store_is_built(corpus: list[str], tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The store is loaded from the graph's file: the map runs and the fact rows (28 GB at 100k records) are
    gone from the scratch folder by then, and the graph is the same."""
    from kg import api
    from kg.pipeline import run as pipeline_run
    left: list[str] = []
    real = pipeline_run.build_disk_store

    def spy(building: Path, lines: object, scratch: Path) -> None:
        left.extend(sorted(p.name for p in Path(scratch).rglob("*") if p.is_file()))
        real(building, lines, scratch)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline_run, "build_disk_store", spy)
    monkeypatch.setenv("KG_HOME", str(tmp_path / "home"))
    built, _ = api.build(corpus, api.BuildOptions(validation="none", jobs=1, store=tmp_path / "store",
                                                  tuning=Tuning(chunk=8)))
    assert left and not [name for name in left if name.startswith(("map-", "knowledge-", "fact-rows"))], left
    monkeypatch.setenv("KG_HOME", str(tmp_path / "plain"))
    plain, _ = api.build(corpus, api.BuildOptions(validation="none", jobs=1))
    assert built.graph.read_bytes() == plain.graph.read_bytes()


# N-Quads lines whose literal holds any text but a lone surrogate (which UTF-8 cannot hold): quotes, tabs, NUL,
# line breaks (escaped), non-BMP ... Tokens end where they say, so no line is a proper prefix of another.
LINE = st.builds(lambda text, g: f"<s> <p> {lit(text)} <g{g}> .", st.text(st.characters(blacklist_categories=("Cs",)),
                                                                        max_size=12), st.integers(0, 2))
@settings(max_examples=80, deadline=None)
@given(runs=st.lists(st.lists(LINE, max_size=25), min_size=1, max_size=7), fan_in=st.integers(2, 4))
def test_the_system_sort_and_the_python_merge_give_what_sorting_in_memory_gives(
        runs: list[list[str]], fan_in: int) -> None:
    """Runs are merged by the system's sort in the C locale (byte order) when there is one: on UTF-8 lines of
    which none is a proper prefix of another (N-Quads lines) that is the code-point order of Python's sort,
    for every character a literal may hold, in one round or several."""
    expected = sorted({line + "\n" for run in runs for line in run})
    if extsort._sort_program() is None:
        pytest.skip("no sort program on this system")
    for external in (True, False):
        with tempfile.TemporaryDirectory() as tmp:
            def written(name: str) -> list[Path]:  # (merging may delete the runs it merges)
                return [extsort.write_run((line + "\n" for line in run), Path(tmp) / f"{name}-{i}.nq")
                        for i, run in enumerate(runs)]
            assert list(extsort.merge_runs(written("a"), Path(tmp), fan_in, external)) == expected, external
            grouped = extsort.merge_into(written("b"), Path(tmp) / "group.nq", fan_in, external)
            text = grouped.read_bytes().decode("utf-8")
            assert [line + "\n" for line in text.split("\n")[:-1]] == expected, external


def test_a_failing_system_sort_gives_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = extsort.write_run(["b\n", "a\n"], tmp_path / "run.nq")
    fake = tmp_path / "sort"
    fake.write_text("#!/bin/sh\necho 'sort: write failed: No space left on device' >&2\nexit 2\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))  # (the fake is the only sort there is)
    extsort._sort_program.cache_clear()
    try:
        with pytest.raises(KgError) as err:
            list(extsort.merge_bytes([run, run], tmp_path))
    finally:
        extsort._sort_program.cache_clear()
    assert str(err.value) == (f"{tmp_path}: merging the sorted runs failed (sort: write failed: No space left on "
                              "device); check the free space there and run the build again")


def test_large_json_lines_are_streamed_with_the_same_result(corpus: list[str], tmp_path: Path) -> None:
    synthetic = Path(corpus[0])
    packed = tmp_path / "synthetic.jsonl.gz"
    packed.write_bytes(gzip.compress(synthetic.read_bytes()))
    whole = [list(read.iter_file("s", p)) for p in (synthetic, packed)]
    assert all(isinstance(x, read.LazyLine)
               for x in read.iter_file("s", synthetic, lazy=True, stream_above=0))  # really streamed
    assert [list(read.iter_file("s", p, stream_above=0)) for p in (synthetic, packed)] == whole


def test_kg_build_jobs_2_writes_the_same_bytes_as_jobs_1(corpus: list[str], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    outputs = {}
    for jobs in ("1", "2"):
        home = tmp_path / f"ws{jobs}"
        monkeypatch.setenv("KG_HOME", str(home))
        r = CliRunner().invoke(main, ["build", *corpus, "--jobs", jobs, "--validate", "none", "-q",
                                      "-o", str(tmp_path / f"out{jobs}.ttl")])
        assert r.exit_code == 0, r.output
        outputs[jobs] = ((home / "graph.nq").read_bytes(), (tmp_path / f"out{jobs}.ttl").read_bytes())
        assert not list(home.glob(".build-*")), "the scratch folder is removed"
    assert outputs["1"] == outputs["2"]


def test_sharded_validation_equals_whole_graph_validation(corpus: list[str], in_memory: tuple,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    lines = in_memory[0]
    whole = validate(data_graph(lines), load_shapes(), lines)  # both engines (the suite's default): identical
    assert len(whole.results) > 100  # warnings on people without ORCID iD and more
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")  # the shards: the default engine, against the whole report
    assert validate_sharded(lines, None, SHARED_GRAPHS, shard_size=7, jobs=2).results == whole.results  # workers
    # shapes beyond the analysis of what they read from a shared node fall back to whole home graphs: the same
    # (in this process: the path of --jobs 1)
    assert validate_sharded(lines, None, SHARED_GRAPHS, shard_size=7, jobs=1,
                            reach=lambda folder: None).results == whole.results


def test_what_the_shapes_read_beyond_a_node_is_found_in_them(tmp_path: Path) -> None:
    """Nested value shapes and SPARQL constraints name the predicates the sharded validation must follow from a
    node that several records describe; classes and literals alone are not followed; anything the analysis
    cannot follow gives None."""
    from kg.validate.reach import deep_predicates
    from kg.validate.shapes import _SHAPES_BY_FOLDER
    kg, frbr, pro = "https://w3id.org/crossref-kg/ontology#", "http://purl.org/vocab/frbr/core#", "http://purl.org/spar/pro/"
    assert deep_predicates(None) == ({f"<{frbr}part>", f"<{kg}hasToolRecognition>", f"<{kg}parsedAuthor>"},
                                      {f"<{pro}relatesToDocument>", f"<{kg}hasTopicAssignment>", f"<{kg}parsedAuthor>"})
    head = ("@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .\n"
            "ex:p sh:declare [ sh:prefix \"ex\" ; sh:namespace "
            "\"http://example.org/\"^^<http://www.w3.org/2001/XMLSchema#anyURI> ] .\n")
    cases = {
        "nested": ("ex:S a sh:NodeShape ; sh:targetClass ex:A ; sh:property [ sh:path ex:has ; "
                   "sh:node [ sh:property [ sh:path ex:name ; sh:minCount 1 ] ] ] , "
                   "[ sh:path ex:kind ; sh:or ( [ sh:class ex:B ] [ sh:class ex:C ] ) ] , "
                   "[ sh:path [ sh:inversePath ex:in ] ; sh:qualifiedValueShape [ sh:path ex:size ; sh:minCount 1 ] ; "
                   "sh:qualifiedMinCount 1 ] .",
                   ({"<http://example.org/has>", "<http://example.org/name>", "<http://example.org/size>"},
                    {"<http://example.org/in>"})),
        "sparql": ("ex:S a sh:NodeShape ; sh:targetClass ex:A ; sh:sparql [ sh:prefixes ex:p ; sh:message \"m\" ; "
                   "sh:select \"SELECT $this ?value WHERE { $this ex:part ?r . ?r ex:key ?value . "
                   "?o ex:owns $this . ?o ex:size ?n . $this ex:cites ?c }\" ] .",
                   ({"<http://example.org/part>"}, {"<http://example.org/owns>"})),
        "path": ("ex:S a sh:NodeShape ; sh:targetClass ex:A ; sh:sparql [ sh:prefixes ex:p ; sh:message \"m\" ; "
                 "sh:select \"SELECT $this WHERE { $this ex:part+ ?r }\" ] .", None),
        "apart": ("ex:S a sh:NodeShape ; sh:targetClass ex:A ; sh:sparql [ sh:prefixes ex:p ; sh:message \"m\" ; "
                  "sh:select \"SELECT $this WHERE { $this ex:part ?r . ?x ex:size ?n }\" ] .", None),
        "sequence": ("ex:S a sh:NodeShape ; sh:targetClass ex:A ; sh:property [ sh:path ( ex:a ex:b ) ; "
                     "sh:node [ sh:property [ sh:path ex:name ; sh:minCount 1 ] ] ] .", None),
    }
    for name, (text, expected) in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "s.ttl").write_text(head + text, encoding="utf-8")
        try:
            assert deep_predicates(folder) == expected, name
        finally:
            _SHAPES_BY_FOLDER.pop(folder, None)


def test_a_killed_build_leaves_the_workspace_and_the_output_intact(tmp_path: Path) -> None:
    kg = str(Path(sys.executable).parent / "kg")
    env = {**os.environ, "KG_HOME": str(tmp_path / "ws")}
    out = tmp_path / "out.ttl"
    subprocess.run([kg, "build", str(SEEDS), "-o", str(out), "-q"], env=env, check=True, cwd=tmp_path)
    before = ((tmp_path / "ws" / "graph.nq").read_bytes(), out.read_bytes())
    big = synth(400, tmp_path / "big.jsonl")
    proc = subprocess.Popen([kg, "build", str(big), "-o", str(out), "--jobs", "2"], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while not list((tmp_path / "ws").glob(".build-*/map-*.nq")):  # midway: mapping has begun
        assert proc.poll() is None, "the build ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert ((tmp_path / "ws" / "graph.nq").read_bytes(), out.read_bytes()) == before
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".out.ttl")] == []
    again = subprocess.run([kg, "build", str(SEEDS), "-q"], env=env, cwd=tmp_path)
    assert again.returncode == 0
    assert list((tmp_path / "ws").glob(".build-*")) == [], "the next build removes the dead build's scratch"


def _pythons_in_group(pgid: int) -> int:
    """The processes of a process group, but the system's sort."""
    n = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
                comm, rest = fh.read().split(" (", 1)[1].rsplit(") ", 1)
        except OSError:
            continue
        n += int(rest.split()[2]) == pgid and comm != "sort"
    return n


@pytest.mark.parametrize(("moment", "processes"), [("map-*.nq", 3), ("sample.nq", 4)],
                         ids=["mapping", "validating-the-sample"])
def test_an_interrupted_build_says_so_in_one_line_and_leaves_nothing_behind(tmp_path: Path, moment: str,
                                                                            processes: int) -> None:
    """Ctrl-C (SIGINT to the whole process group) while the workers map, or while the forked process and its
    pool validate the sample during the merge: one line, exit 130, no traceback from any worker, the old graph
    and output intact, no scratch and no process left."""
    kg = str(Path(sys.executable).parent / "kg")
    env = {**os.environ, "KG_HOME": str(tmp_path / "ws")}
    out = tmp_path / "out.ttl"
    subprocess.run([kg, "build", str(SEEDS), "-o", str(out), "-q"], env=env, check=True, cwd=tmp_path)
    before = ((tmp_path / "ws" / "graph.nq").read_bytes(), out.read_bytes())
    big = synth(1500, tmp_path / "big.jsonl")  # (above 1,000 records: --validate auto validates a sample)
    proc = subprocess.Popen([kg, "build", str(big), "-o", str(out), "--jobs", "2", "-q"], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    # the moment has come, and the workers are there: the build, and two workers that map, or the process that
    # validates the sample and its two workers
    while not (list((tmp_path / "ws").glob(f".build-*/{moment}")) and _pythons_in_group(proc.pid) >= processes):
        assert proc.poll() is None, "the build ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    assert err.splitlines() == ["error: interrupted; the workspace graph and the outputs are as they were; "
                                "run the build again"]
    assert proc.returncode == 130
    assert ((tmp_path / "ws" / "graph.nq").read_bytes(), out.read_bytes()) == before
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".out.ttl")] == []
    assert list((tmp_path / "ws").glob(".build-*")) == []
    deadline = time.monotonic() + 30
    while True:  # (the workers and the validating process end with the build)
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "a process of the build outlived it"
        time.sleep(0.1)


@pytest.mark.slow
def test_a_50k_record_build_succeeds_under_a_memory_limit(tmp_path: Path) -> None:
    """Default flags, 50,000 synthetic records (~49M quads), 2 GiB of address space per process: the old
    in-memory build needed ~20 GB for this."""
    data = synth(50_000, tmp_path / "s50k.jsonl")
    limit = 2 << 30

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    kg = str(Path(sys.executable).parent / "kg")
    env = {**os.environ, "KG_HOME": str(tmp_path / "ws"), "KG_SHACL_ENGINE": "fast"}  # the default engine alone
    r = subprocess.run([kg, "build", str(data)], env=env,
                       preexec_fn=cap, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "built 50000 works" in r.stderr or "built 4999" in r.stderr


# ---------------------------------------------------------------- one record with very many references (issue 45)


def many_references(n: int, path: Path) -> Path:
    """A real record (the eLife sample) with ``n`` references: every second with a DOI, every third with its
    parts (author, year, journal, volume, page), all with a text."""
    rec = json.loads((SAMPLES / "article_elife.01567.json").read_text(encoding="utf-8"))
    rec = rec.get("message", rec)
    refs = []
    for i in range(n):
        year = 1950 + i % 70
        text = f"A. Author{i}, B. Writer. A study of things number {i}. J. Things {i % 97} ({year}) {i}-{i + 9}."
        ref: dict[str, str] = {"key": f"r{i}", "unstructured": text}
        if i % 2 == 0:
            ref["DOI"] = f"10.9999/ref.{i}"
        if i % 3 == 0:
            ref.update({"author": f"Author{i}", "year": str(year), "journal-title": f"J. Things {i % 97}",
                        "volume": str(i % 50), "first-page": str(i)})
        refs.append(ref)
    rec["reference"], rec["reference-count"] = refs, n
    path.write_text(json.dumps(rec), encoding="utf-8")
    return path


def _build_timed(record: Path, home: Path) -> tuple[dict[str, float], int]:
    """``kg build RECORD --timings`` in its own process (the routed engine alone, the default): the wall seconds
    of each stage and the peak resident memory of the build (its workers included), in bytes."""
    code = ("import resource, sys\nfrom kg.cli import main\ntry:\n    main(sys.argv[1:])\nfinally:\n"
            "    peak = max(resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))"
            "\n    print(f'peak {peak}', file=sys.stderr)\n")
    env = {**os.environ, "KG_HOME": str(home), "KG_SHACL_ENGINE": "fast"}
    r = subprocess.run([sys.executable, "-c", code, "build", str(record), "--timings"], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stderr.splitlines()
    timings = next(line for line in lines if line.startswith("timings: ")).removeprefix("timings: ")
    stages = {s.split()[0]: float(s.split()[1]) for s in timings.split(", ")}
    return stages, int(lines[-1].split()[1]) * 1024


def test_a_record_with_5000_references_validates_in_linear_time(tmp_path: Path) -> None:
    """Validating one record grows linearly with its references: 4x the references cost at most 8x the time (about
    4x when linear; a SPARQL constraint that joined every reference with every cited work made it 16x). The same
    stage against itself, so a busy machine shifts both; the 3x-the-mapping figure is the --runslow test's."""
    small, _ = _build_timed(many_references(1_250, tmp_path / "s.json"), tmp_path / "ws-s")
    large, _ = _build_timed(many_references(5_000, tmp_path / "r.json"), tmp_path / "ws")
    assert large["validate"] <= 8 * max(small["validate"], 0.05), (small, large)


def test_validation_holds_the_lines_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shard's lines are the plan's own strings (no copy, no index of every triple), and Oxigraph is given
    them in chunks (not one text of the whole record, and its bytes)."""
    import pyoxigraph as ox

    from kg.validate import sparql
    from kg.validate.shards import ShardPlan
    lines = build_graph([str(SAMPLES / "article_elife.01567.json")], Context.create()).lines
    plan = ShardPlan(lines, None, SHARED_GRAPHS)
    shard, _focus = next(plan.shards(100))
    ids = {id(line) for line in lines}
    assert shard and all(id(line) in ids for line in shard)
    loads: list[int] = []
    original = ox.Store.bulk_load

    def counted(store: ox.Store, data: bytes, **kw: object) -> None:
        loads.append(data.count(b"\n"))
        original(store, data, **kw)
    monkeypatch.setattr(sparql, "LOAD_CHUNK", 100)
    monkeypatch.setattr(ox.Store, "bulk_load", counted)
    store, _ = sparql.store_of(lines)
    assert max(loads) == 100 and sum(loads) == len(lines) and len(store) == len({line.rsplit(" <", 1)[0]
                                                                                 for line in lines})


@pytest.mark.slow
def test_a_record_with_100000_references(tmp_path: Path) -> None:
    """Issue 45's record: 100,000 references validate in at most 3x the mapping time, and no process of the build
    (the mapping worker and the validating ones included) peaks at 1 GiB (it was 2.2 GB: the record's lines held
    several times over; see test_big_record.py)."""
    stages, peak = _build_timed(many_references(100_000, tmp_path / "r.json"), tmp_path / "ws")
    print(f"\n100,000 references: {stages}, peak {peak / 2**20:.0f} MiB")
    assert stages["validate"] <= 3 * stages["map"], stages
    assert peak < 2**30, f"{peak / 2**20:.0f} MiB"


def test_the_predicates_oxigraph_is_given_include_those_of_nested_exists() -> None:
    """The lines Oxigraph indexes for the SPARQL constraints are those of the predicates of every pattern, those
    of EXISTS inside NOT EXISTS too (rdflib keeps them beside the untranslated pattern)."""
    from rdflib import URIRef, Variable

    from kg.validate.sparql import patterns_of
    query = ("PREFIX ex: <http://e/> SELECT $this ?value WHERE { $this ex:cites ?value . "
             "FILTER NOT EXISTS { ?r ex:references ?value . FILTER EXISTS { $this ex:part ?r } } }")
    assert patterns_of(query) == {(Variable("this"), URIRef("http://e/cites"), Variable("value")),
                                  (Variable("r"), URIRef("http://e/references"), Variable("value")),
                                  (Variable("this"), URIRef("http://e/part"), Variable("r"))}

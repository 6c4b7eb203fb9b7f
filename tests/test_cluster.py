"""kg build --cluster on a local Dask cluster of 2 processes: the parts it writes are, concatenated, the bytes of
the --jobs 1 graph; the manifest's counts match; URL inputs; an interrupted build leaves no finished parts."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES, SEEDS

from kg import api
from kg.api import BuildOptions
from kg.cli.summary import render_validation
from kg.errors import BuildInterrupted, KgError
from kg.infra import parts
from kg.workspace import workspace_source

pytest.importorskip("distributed")


def _local(inputs: list[str], home: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    monkeypatch.setenv("KG_HOME", str(home))
    api.build(inputs, BuildOptions(jobs=1, validation="none"))
    return (home / "graph.nq").read_bytes()


def _cluster(inputs: list[str], home: Path, monkeypatch: pytest.MonkeyPatch, **kw: object) -> tuple[bytes, dict]:
    monkeypatch.setenv("KG_HOME", str(home))
    kw.setdefault("cluster", "local:2")
    kw.setdefault("validation", "none")
    built, _ = api.build(inputs, BuildOptions(**kw))  # type: ignore[arg-type]
    folder = parts.workspace_graph(home)
    assert folder == built.graph and folder.is_dir()
    data = b"".join(gzip.open(p).read() for p in parts.part_paths(folder))
    return data, parts.read_manifest(folder)


@pytest.mark.parametrize("corpus", [SEEDS, SAMPLES], ids=["seeds", "samples"])
def test_cluster_graph_is_the_local_graph(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _local([str(corpus)], tmp_path / "one", monkeypatch)
    got, manifest = _cluster([str(corpus)], tmp_path / "two", monkeypatch)
    assert got == expected
    lines = expected.count(b"\n")
    assert manifest["lines"] == lines == sum(p["lines"] for p in manifest["parts"])
    assert len(manifest["parts"]) >= 2 and all(p["lines"] for p in manifest["parts"])
    triples = len({line.rpartition(b" <")[0] for line in expected.splitlines()})
    assert manifest["triples"] == triples == sum(p["triples"] for p in manifest["parts"])
    files = sum(1 for p in corpus.rglob("*") if p.is_file() and not p.name.startswith("."))
    # a scan and a map task per input file; per hash partition a dedupe, a names, three resolution steps, the
    # cited works' titles and the shared graphs; the facts; a task per part
    n = manifest["partitions"]
    assert n >= 4 and sum(manifest["workers"].values()) == 2 * files + 7 * n + 1 + len(manifest["parts"])
    assert manifest["inputs"] == [str(corpus)] and manifest["options"]["cluster"] == "local:2"
    assert (tmp_path / "two" / "graph.parts").read_text(encoding="utf-8").strip() == str(tmp_path / "two" / "parts")
    text = (tmp_path / "two" / "parts" / parts.MANIFEST).read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"


def test_file_url(dask_threads: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _local([str(SEEDS)], tmp_path / "one", monkeypatch)
    got, _ = _cluster([SEEDS.as_uri()], tmp_path / "two", monkeypatch, parts=tmp_path / "out", cluster=dask_threads)
    assert got == expected and parts.workspace_graph(tmp_path / "two") == tmp_path / "out"


def test_memory_inputs_scratch_and_parts(dask_threads: str, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Inputs, scratch and parts at memory:// URLs, on a scheduler given by its tcp:// address: the same bytes; the
    scratch prefix is removed, the parts folder has its manifest; the workspace refers to the URL."""
    fsspec = pytest.importorskip("fsspec")
    mem = fsspec.filesystem("memory")
    for p in sorted(SEEDS.iterdir()):
        mem.pipe(f"/seeds-test/{p.name}", p.read_bytes())
    try:
        local = _local(["memory://seeds-test"], tmp_path / "one", monkeypatch)
        assert b"memory:///seeds-test/" in local  # (the records' source is the URL they came from)
        monkeypatch.setenv("KG_HOME", str(tmp_path / "two"))
        built, _ = api.build(["memory://seeds-test"], BuildOptions(cluster=dask_threads, validation="none",
                                                                   scratch="memory://scratch", parts="memory://out/graph"))
        assert built.graph == "memory://out/graph" == workspace_source()
        assert "".join(parts.lines("memory://out/graph")).encode() == local
        manifest = parts.read_manifest("memory://out/graph")
        assert manifest["inputs"] == ["memory://seeds-test"] and manifest["lines"] == local.count(b"\n")
        assert sorted(mem.ls("/out", detail=False)) == ["/out/graph"]  # (no temporary folder is left)
        assert not mem.exists("/scratch") or not mem.ls("/scratch")
        names = {p.rsplit("/", 1)[1] for p in mem.ls("/out/graph", detail=False)}
        assert names == {parts.MANIFEST, *(p["name"] for p in manifest["parts"])}
        stats = api.stats()
        monkeypatch.setenv("KG_HOME", str(tmp_path / "one"))
        assert stats.rows == api.stats().rows
    finally:
        for folder in ("/seeds-test", "/out", "/scratch"):
            if mem.exists(folder):
                mem.rm(folder, recursive=True)


def test_duplicate_dois_and_topic_overrides(dask_threads: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Records of one DOI in several input files (dedupe runs on the DOI partitions), a file that is no JSON and a
    --topics file naming a DOI no record has: the same graph, counts, errors, notes and warnings as the local
    build."""
    corpus = tmp_path / "corpus"
    shutil.copytree(SEEDS, corpus)
    first = sorted(SEEDS.iterdir())[0]
    record = json.loads(first.read_text(encoding="utf-8"))
    doi = record["message"]["DOI"]
    for name, year, title in (("aa-earlier.json", 2001, "An earlier deposit"), ("zz-later.json", 2099, "A later one")):
        again = json.loads(first.read_text(encoding="utf-8"))
        again["message"]["deposited"] = {"date-parts": [[year, 1, 1]], "date-time": f"{year}-01-01T00:00:00Z",
                                         "timestamp": 0}
        again["message"]["title"] = [title]
        (corpus / name).write_text(json.dumps(again), encoding="utf-8")
    (corpus / "broken.json").write_text('{"message": {"DOI": "10.5555/broken", "title": [}', encoding="utf-8")
    topics = tmp_path / "topics.tsv"
    topics.write_text(f"doi\ttopics\n{doi}\tcompilers\n10.5555/not-an-input\tcompilers\n", encoding="utf-8")
    reports = []
    for home, cluster in ((tmp_path / "one", None), (tmp_path / "two", dask_threads)):
        monkeypatch.setenv("KG_HOME", str(home))
        built, _ = api.build([str(corpus)], BuildOptions(jobs=1, validation="none", topics=topics, cluster=cluster))
        reports.append(built.report)
    assert "".join(parts.lines(tmp_path / "two" / "parts")).encode() == (tmp_path / "one" / "graph.nq").read_bytes()
    one, two = reports
    assert (one.records, one.merged, one.skipped) == (two.records, two.merged, two.skipped) == (6, 2, 1)
    assert one.errors == two.errors and len(one.errors) == 1 and "broken.json" in one.errors[0]
    assert one.notes == two.notes and len([n for n in one.notes if "same DOI as" in n]) == 2
    assert one.warnings == two.warnings and any("10.5555/not-an-input" in w for w in one.warnings)
    assert b"A later one" in (tmp_path / "one" / "graph.nq").read_bytes()


def test_sampled_validation(dask_threads: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sample is validated as in the local build: its records' lines from pass 2, and the lines of the shared
    graphs it needs, picked from their runs by the workers."""
    rendered = []
    for home, cluster in ((tmp_path / "one", None), (tmp_path / "two", dask_threads)):
        monkeypatch.setenv("KG_HOME", str(home))
        _built, report = api.build([str(SAMPLES)], BuildOptions(jobs=1, validation="sample:6", cluster=cluster,
                                                                allow_invalid=True))
        assert report is not None
        rendered.append(render_validation(report, "json", "info"))
    assert rendered[0] == rendered[1] and json.loads(rendered[0])["results"]


@pytest.mark.parametrize("stage", ["read", "graph"])
def test_interrupted_build_leaves_no_manifest(stage: str, dask_threads: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("KG_FAULT", f"{stage}:INT")
    with pytest.raises(BuildInterrupted):
        api.build([str(SEEDS)], BuildOptions(cluster=dask_threads, validation="none", parts=tmp_path / "out"))
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.rglob(parts.MANIFEST)) and not (tmp_path / "ws" / "graph.parts").exists()


def test_bad_cluster_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    with pytest.raises(KgError, match="local:N"):
        api.build([str(SEEDS)], BuildOptions(cluster="local:zero", validation="none"))


@pytest.mark.slow
def test_synthetic_2000(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[1]
    (tmp_path / "synth").mkdir()
    out = tmp_path / "synth" / "s.jsonl"
    subprocess.run([sys.executable, str(root / "bench" / "synth.py"), "2000", str(out)], check=True)
    expected = _local([str(tmp_path / "synth")], tmp_path / "one", monkeypatch)
    got, manifest = _cluster([str(tmp_path / "synth")], tmp_path / "two", monkeypatch)
    assert got == expected and manifest["lines"] == expected.count(b"\n")
    shutil.rmtree(tmp_path / "synth")


# The tasks a worker dies in (KG_FAULT_ONCE, the worker processes inherit it): pass 2, and the facts, the one
# task of its stage, whose worker then held the only copy of what the driver sent the tasks: its memory manager
# set to drop extra copies at once, the scheduler kept data scattered to the workers on one of them, and a
# worker that died with it failed the build ("already forgotten").
KILLED = "map_file,fact_graph"
EVERY_TASK = ("scan,dedupe,named,resolve_titles,resolve_groups,resolve_urls,cited,map_file,shared,fact_graph,"
              "sample_lines,part")
AT_ONCE = {"distributed.scheduler.active-memory-manager.interval": "20ms"}


def _killed(corpus: Path, stages: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **kw: object) -> None:
    import dask
    expected = _local([str(corpus)], tmp_path / "one", monkeypatch)
    monkeypatch.setenv("KG_FAULT_ONCE", f"{stages}:{tmp_path / 'killed'}")
    with dask.config.set(AT_ONCE):
        got, manifest = _cluster([str(corpus)], tmp_path / "two", monkeypatch, **kw)
    died = sorted(p.suffix[1:] for p in tmp_path.glob("killed.*"))
    assert died == sorted(stages.split(","))  # a worker died once in a task of each stage; others did it again
    assert got == expected and manifest["lines"] == expected.count(b"\n")


def test_killed_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker process killed (SIGKILL, as the out-of-memory killer kills) after a task did its work: the build
    goes on and writes the bytes of --jobs 1."""
    _killed(SEEDS, KILLED, tmp_path, monkeypatch)


@pytest.mark.slow
def test_killed_worker_in_every_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same with more input files and partitions, a worker killed in every kind of task (a validation sample:
    sample_lines runs)."""
    _killed(SAMPLES, EVERY_TASK, tmp_path, monkeypatch, validation="sample:6", allow_invalid=True)


def test_task_whose_workers_all_die(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task whose workers die more often than the scheduler allows (allowed-failures, 3 by default; 0 here, so
    one death is too many): one line naming the stage and the task, no traceback, nothing in place."""
    import dask
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("KG_FAULT_ONCE", f"fact_graph:{tmp_path / 'killed'}")
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            pytest.raises(KgError, match=r"^--cluster: the reduce task fact_graph was running on each of 1 workers "
                                         r"that died \(out of memory\?\); give"):
        api.build([str(SEEDS)], BuildOptions(cluster="local:2", validation="none", parts=tmp_path / "out"))
    assert not (tmp_path / "out").exists() and not list(tmp_path.rglob(parts.MANIFEST))


@pytest.mark.parametrize("option", ["--parts", "--scratch"])
def test_cluster_options_need_cluster(option: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kg.cli import main
    r = CliRunner().invoke(main, ["build", str(SEEDS), option, str(tmp_path / "x")],
                           env={"KG_HOME": str(tmp_path / "ws")}, prog_name="kg")
    assert (r.exit_code, r.output) == (2, f"error: {option} goes with --cluster; add --cluster local:N or a scheduler "
                                          "address\n")
    assert not (tmp_path / "ws").exists()


def test_a_folder_something_still_writes_into_is_removed_once_it_stops(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An interrupted build's scratch: a cancelled task adds a file after rmtree emptied the folder, so its rmdir
    fails with ENOTEMPTY; remove() tries again, and the folder goes (the interrupt's one line is not replaced by a
    traceback)."""
    import errno
    import shutil

    from kg.infra import location
    from kg.infra.location import Location

    folder = tmp_path / "scratch"
    (folder / "tasks").mkdir(parents=True)
    real, calls = shutil.rmtree, []

    def late_writer(where: str, *args: object, **kwargs: object) -> None:
        calls.append(where)
        if len(calls) == 1:
            raise OSError(errno.ENOTEMPTY, "Directory not empty", where)
        real(where)

    monkeypatch.setattr(location.shutil, "rmtree", late_writer)
    Location(str(folder)).remove()
    assert not folder.exists() and len(calls) == 2

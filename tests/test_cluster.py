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
from kg.errors import KgError
from kg.infra import parts

pytest.importorskip("distributed")


def _local(inputs: list[str], home: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    monkeypatch.setenv("KG_HOME", str(home))
    api.build(inputs, jobs=1, validation="none")
    return (home / "graph.nq").read_bytes()


def _cluster(inputs: list[str], home: Path, monkeypatch: pytest.MonkeyPatch, **kw: object) -> tuple[bytes, dict]:
    monkeypatch.setenv("KG_HOME", str(home))
    built, _ = api.build(inputs, cluster="local:2", validation="none", **kw)  # type: ignore[arg-type]
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
    mapped = len({line.split(b'"')[1] for line in expected.splitlines() if b"sourcePath>" in line})
    # a scan task per input file, a map task per file with records kept
    assert 0 < mapped <= files and sum(manifest["workers"].values()) == files + mapped
    assert manifest["inputs"] == [str(corpus)] and manifest["options"]["cluster"] == "local:2"
    assert (tmp_path / "two" / "graph.parts").read_text(encoding="utf-8").strip() == str(tmp_path / "two" / "parts")
    text = (tmp_path / "two" / "parts" / parts.MANIFEST).read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"


def test_file_and_memory_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fsspec = pytest.importorskip("fsspec")
    expected = _local([str(SEEDS)], tmp_path / "one", monkeypatch)
    got, _ = _cluster([SEEDS.as_uri()], tmp_path / "two", monkeypatch, parts=tmp_path / "out")
    assert got == expected and parts.workspace_graph(tmp_path / "two") == tmp_path / "out"
    mem = fsspec.filesystem("memory")
    for p in sorted(SEEDS.iterdir()):
        mem.pipe(f"/seeds-test/{p.name}", p.read_bytes())
    try:
        local = _local(["memory://seeds-test"], tmp_path / "three", monkeypatch)
        assert b"memory:///seeds-test/" in local  # (the records' source is the URL they came from)
        got, manifest = _cluster(["memory://seeds-test"], tmp_path / "four", monkeypatch)
        assert got == local and manifest["inputs"] == ["memory://seeds-test"]
    finally:
        mem.rm("/seeds-test", recursive=True)


@pytest.mark.parametrize("stage", ["read", "graph"])
def test_interrupted_build_leaves_no_manifest(stage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    monkeypatch.setenv("KG_FAULT", f"{stage}:INT")
    with pytest.raises(api.Interrupted):
        api.build([str(SEEDS)], cluster="local:2", validation="none", parts=tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.rglob(parts.MANIFEST)) and not (tmp_path / "ws" / "graph.parts").exists()


def test_bad_cluster_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    with pytest.raises(KgError, match="local:N"):
        api.build([str(SEEDS)], cluster="local:zero", validation="none")


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


@pytest.mark.slow
def test_killed_worker_is_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _local([str(SAMPLES)], tmp_path / "one", monkeypatch)
    marker = tmp_path / "killed"
    monkeypatch.setenv("KG_FAULT_ONCE", f"map-task:{marker}")  # (the worker processes inherit it)
    got, manifest = _cluster([str(SAMPLES)], tmp_path / "two", monkeypatch)
    assert marker.exists()  # a worker died in a map task; Dask ran the task again elsewhere
    assert got == expected and manifest["lines"] == expected.count(b"\n")

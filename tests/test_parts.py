"""A parts folder (kg build --cluster) is a graph to every reader: kg export, kg validate, kg query -g DIR/ and
kg query --store (the store kg build --cluster --store loads) answer as on the graph of a local build; a folder
without its manifest is refused; kg export --parts DIR -f nt writes each triple once across its parts, and the
parts load into Oxigraph as the graph's triples."""

from __future__ import annotations

import gzip
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyoxigraph
import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.infra import parts
from kg.infra.location import Location

pytest.importorskip("distributed")


def kg(home: Path, *args: str) -> Any:
    r = CliRunner().invoke(main, list(args), env={"KG_HOME": str(home)}, prog_name="kg")
    assert "Traceback" not in r.output
    return r


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory, dask_threads: str) -> tuple[Path, Path]:
    """The seeds built locally and on a cluster of 2 (given by its tcp:// address), each with --store and -o."""
    root = tmp_path_factory.mktemp("parts")
    local, cluster = root / "local", root / "cluster"
    assert kg(local, "build", "--store", str(local / "store"), "-o", str(root / "local.ttl")).exit_code == 0
    assert kg(cluster, "build", "--cluster", dask_threads, "--store", str(cluster / "store"),
              "-o", str(root / "cluster.ttl")).exit_code == 0
    assert (root / "cluster.ttl").read_bytes() == (root / "local.ttl").read_bytes()  # (-o: exported from the parts)
    assert parts.workspace_graph(cluster) == cluster / "parts"
    return local, cluster


def test_export_reads_the_parts(homes: tuple[Path, Path]) -> None:
    local, cluster = homes
    nquads = kg(cluster, "export", "-f", "nquads")
    assert nquads.exit_code == 0 and nquads.stdout == (local / "graph.nq").read_text(encoding="utf-8")
    for fmt in ("nt", "turtle"):
        got = kg(cluster, "export", f"{cluster / 'parts'}/", "-f", fmt)
        assert got.exit_code == 0 and got.stdout == kg(local, "export", "-f", fmt).stdout


def test_validate_reads_the_parts(homes: tuple[Path, Path]) -> None:
    local, cluster = homes
    r = kg(cluster, "validate", "--severity", "warning", f"{cluster / 'parts'}/")
    assert (r.exit_code, r.output) == (1, kg(local, "validate", "--severity", "warning").output)
    assert r.output.startswith("Warning kgsh:PersonShape frapo:hasORCID: 3 persons without an ORCID iD\n")
    assert r.output.endswith("\nvalid: no violations (3 warnings: 3 persons without an ORCID iD)\n")


def test_query_reads_the_parts_and_the_store(homes: tuple[Path, Path]) -> None:
    local, cluster = homes
    stats = kg(cluster, "query", "-g", f"{cluster / 'parts'}/", "stats")
    assert stats.exit_code == 0 and stats.output == kg(local, "query", "stats").output
    assert stats.output.splitlines()[0].split() == ["works", "references", "cited_works", "tools", "people", "triples"]
    assert stats.output.splitlines()[2].split()[0] == "4"
    for name in ("most-cited", "tools"):
        # (csv: the rows alone; a table's note names the workspace's inputs, which a bare --store does not know)
        on_parts = kg(cluster, "query", "-f", "csv", name)  # (the workspace graph: the parts folder graph.parts names)
        from_store = kg(cluster, "query", "-f", "csv", "--store", str(cluster / "store"), name)
        expected = kg(local, "query", "-f", "csv", "--store", str(local / "store"), name)
        assert on_parts.exit_code == 0 and on_parts.output == from_store.output == expected.output
        assert len(expected.output.splitlines()) > 2


def test_a_folder_without_manifest_is_no_graph(homes: tuple[Path, Path], tmp_path: Path) -> None:
    _local, cluster = homes
    broken = tmp_path / "broken"
    shutil.copytree(cluster / "parts", broken)
    (broken / parts.MANIFEST).unlink()
    r = kg(cluster, "query", "-g", str(broken), "stats")
    assert (r.exit_code, r.output) == (2, f"error: {broken}: has no manifest.json: it is not a finished partitioned "
                                          "graph; the build that wrote it failed or was cancelled; run kg build "
                                          "again\n")


def _triples(lines: list[str]) -> list[str]:
    return [line[:line.rindex(" <")] + " .\n" for line in lines]


def test_export_nt_parts_hold_each_triple_once(homes: tuple[Path, Path], tmp_path: Path) -> None:
    local, cluster = homes
    out = tmp_path / "nt"
    r = kg(cluster, "export", "--parts", str(out), "-f", "nt")
    assert r.exit_code == 0 and r.output == ""
    manifest = parts.read_manifest(out, "N-Triples")
    quads = (local / "graph.nq").read_text(encoding="utf-8").splitlines(keepends=True)
    triples = sorted(set(_triples(quads)))
    assert len(triples) < len(quads)  # (some triples sit in several named graphs)
    names = [p["name"] for p in manifest["parts"]]
    assert names == [f"part-{i:05d}.nt.gz" for i in range(len(parts.read_manifest(cluster / "parts")["parts"]))]
    written = [gzip.open(out / n).read().decode("utf-8") for n in names]
    assert "".join(written) == "".join(triples) and manifest["triples"] == len(triples)
    store = pyoxigraph.Store()
    for n in names:  # (as a bulk loader takes them: every part on its own)
        with gzip.open(out / n) as fh:
            store.bulk_load(fh, format=pyoxigraph.RdfFormat.N_TRIPLES)
    loaded = {f"{q.subject} {q.predicate} {q.object} .\n" for q in store}
    assert loaded == set(triples) and len(store) == len(triples)
    refused = kg(cluster, "query", "-g", str(out), "stats")
    assert (refused.exit_code, refused.output) == (2, f"error: {out}: holds N-Triples parts for bulk loaders, not a "
                                                      "graph; point kg at the parts folder kg build wrote\n")
    r = kg(cluster, "export", "--parts", str(tmp_path / "other"))
    assert (r.exit_code, r.output) == (2, "error: --parts writes N-Triples parts for bulk loaders; add -f nt\n")


def test_nt_parts_across_a_part_boundary(homes: tuple[Path, Path], tmp_path: Path) -> None:
    """A triple whose lines (one a graph) end one part and start the next is written once, in the next part."""
    local, _cluster = homes
    quads = (local / "graph.nq").read_text(encoding="utf-8").splitlines(keepends=True)
    keys = _triples(quads)
    cut = next(i for i in range(1, len(keys)) if keys[i] == keys[i - 1])
    folder = tmp_path / "graph"
    tmp = Location(tmp_path / "building")
    tmp.make()
    listed = []
    for i, piece in enumerate((quads[:cut], quads[cut:])):
        with gzip.GzipFile(tmp_path / "building" / parts.part_name(i), "wb", mtime=0) as gz:
            gz.write("".join(piece).encode("utf-8"))
        listed.append({"name": parts.part_name(i), "lines": len(piece)})
    parts.commit(tmp, Location(folder), {"format": parts.FORMAT, "version": parts.VERSION, "parts": listed})
    assert kg(local, "export", str(folder), "--parts", str(tmp_path / "nt"), "-f", "nt").exit_code == 0
    first, second = (gzip.open(tmp_path / "nt" / parts.part_name(i, "nt")).read().decode() for i in (0, 1))
    assert second.startswith(keys[cut]) and keys[cut] not in first
    assert first + second == "".join(sorted(set(keys)))


def test_nt_parts_of_a_graph_file(homes: tuple[Path, Path], tmp_path: Path) -> None:
    """A graph file is cut into byte ranges of whole lines, written in parallel: cut between the lines of every
    triple of several graphs, and elsewhere, the parts still hold each triple once."""
    local, _cluster = homes
    data = (local / "graph.nq").read_bytes()
    quads = data.decode("utf-8").splitlines(keepends=True)
    keys = _triples(quads)
    offsets = [0]
    for line in quads:
        offsets.append(offsets[-1] + len(line.encode("utf-8")))
    straddles = [offsets[i] for i in range(1, len(keys)) if keys[i] == keys[i - 1]]
    cuts = sorted({0, *straddles, *offsets[100:-1:997]})
    loc = Location(local)
    pieces = [(loc, "graph.nq", a, b) for a, b in zip(cuts, [*cuts[1:], len(data)], strict=True)]
    manifest = parts.write_triples(pieces, Location(tmp_path / "nt"), {}, jobs=2)
    written = [gzip.open(tmp_path / "nt" / p["name"]).read().decode() for p in manifest["parts"]]
    assert len(written) == len(pieces) > len(straddles) > 10
    assert "".join(written) == "".join(sorted(set(keys))) and manifest["triples"] == len(set(keys))
    r = kg(local, "export", "--parts", str(tmp_path / "cli"), "-f", "nt")  # (the workspace's graph.nq)
    names = [p["name"] for p in parts.read_manifest(tmp_path / "cli", "N-Triples")["parts"]]
    assert r.exit_code == 0 and len(names) >= 2  # (a part a job at least)
    assert b"".join(gzip.open(tmp_path / "cli" / n).read() for n in names) == "".join(sorted(set(keys))).encode()


@pytest.mark.slow
def test_nt_parts_bulk_load_into_virtuoso(homes: tuple[Path, Path], tmp_path: Path) -> None:
    """The steps of docs/cluster.md: the N-Triples parts into Virtuoso with ld_dir + rdf_loader_run, every part and
    triple."""
    from test_virtuoso import start_virtuoso  # (skips this test where Virtuoso is not installed)
    _local, cluster = homes
    server = start_virtuoso(tmp_path / "virtuoso")
    try:
        folder = server.load_dir / "nt-parts"
        assert kg(cluster, "export", "--parts", str(folder), "-f", "nt").exit_code == 0
        manifest = parts.read_manifest(folder, "N-Triples")
        graph = "https://example.org/crossref-kg/parts"
        server.isql(f"ld_dir('{folder}', '*.nt.gz', '{graph}');")
        with ThreadPoolExecutor(2) as pool:  # (two loaders at once, each taking the next part not taken)
            list(pool.map(server.isql, ["rdf_loader_run();"] * 2))
        server.isql("checkpoint;")
        loaded = server.isql("SELECT COUNT(*) FROM DB.DBA.LOAD_LIST WHERE ll_error IS NULL AND ll_state = 2;")
        assert loaded.strip() == str(len(manifest["parts"]))
        assert server.sparql_count(graph) == manifest["triples"]
    finally:
        server.stop()

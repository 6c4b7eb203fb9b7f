"""One record of very many references (issue 45, item 5): no process holds its lines several times. The mapping
worker spills them sorted as it makes them, the build validates them from the graph file in shards of line
numbers (``kg.validate.filed``), and both give what holding them gave. The memory itself is measured by the
``--runslow`` test of 100,000 references in test_scale.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_scale import SHARED_GRAPHS, many_references

from kg import api
from kg.infra import extsort
from kg.map.context import Context
from kg.pipeline import run as build_run
from kg.pipeline import stream
from kg.pipeline.memory import build_graph
from kg.pipeline.tuning import Tuning
from kg.validate import data_graph, load_shapes, validate
from kg.validate import shards as validate_shards
from kg.validate.filed import FileLines, FilePlan
from kg.validate.shards import Sharding, ShardPlan, validate_file

KG = "https://w3id.org/crossref-kg/ontology#"


def _damaged(lines: list[str]) -> list[str]:
    """The lines with two violations: a reference without its position, and two references with one key (a
    SPARQL constraint of the work; its position check, with one position gone, fails too)."""
    position = next(line for line in lines if f"<{KG}position>" in line and "/reference/3>" in line)
    key = next(line for line in lines if f"<{KG}referenceKey>" in line and "/reference/5>" in line)
    return sorted({*lines, key.replace('"r4"', '"r1"')} - {position, key})


def _record_file(tmp_path: Path, n: int) -> tuple[Path, list[str]]:
    record = many_references(n, tmp_path / "r.json")
    lines = _damaged(sorted(set(build_graph([str(record)], Context.create()).lines)))
    path = tmp_path / "graph.nq"
    path.write_text("".join(lines), encoding="utf-8")
    return path, lines


def test_a_graph_file_is_validated_in_shards_of_line_numbers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sorted graph file whose nodes each belong to one record is validated from the file (its shards are
    line numbers, read again as they are iterated), with the whole graph's results, violations included."""
    path, lines = _record_file(tmp_path, 60)
    whole = validate(data_graph(lines), load_shapes(), lines)  # both engines (the suite's default): identical
    assert whole.count("Violation") >= 3, whole.results
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")
    plan = FilePlan.of(path, SHARED_GRAPHS)
    assert plan is not None and plan.lines == len(lines) and plan.count(1) == 2
    shards = list(plan.shards(1))
    assert all(isinstance(shard, FileLines) for shard, _focus in shards)
    # the shards ShardPlan cuts from the lines held (the shared graphs' lines in another order)
    held = list(ShardPlan(lines, None, SHARED_GRAPHS).shards(1))
    assert [list(shard) for shard, _focus in shards[:-1]] == [shard for shard, _focus in held[:-1]]
    assert sorted(shards[-1][0]) == sorted(held[-1][0]) and len(held[0][0]) > 1500
    monkeypatch.setattr(validate_shards, "ShardPlan", None)  # (no plan of the lines held: they are not read)
    for jobs in (1, 2):
        report = validate_file(path, SHARED_GRAPHS, None, jobs, Sharding(above=0, records=1))
        assert report.results == whole.results and report.conforms == whole.conforms


def test_a_large_shard_is_validated_by_two_workers_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With workers, a shard past ``split_above`` lines is two tasks, the compiled shapes and the SPARQL
    constraints, which together give the whole graph's results (a violation of each kind among them); the
    progress counts shards, a split one when both its tasks are done."""
    path, lines = _record_file(tmp_path, 60)
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")
    whole = validate(None, load_shapes(), lines)
    core = validate(None, load_shapes(), lines, part="core").results
    sparql = validate(None, load_shapes(), lines, part="sparql").results
    assert core and sparql and not set(core) & set(sparql)
    assert sorted(core + sparql, key=str) == sorted(whole.results, key=str)
    tasks: list[tuple[int, str | None]] = []
    real_tasks = validate_shards._tasks

    def seen(*args: object) -> object:
        for task in real_tasks(*args):  # type: ignore[arg-type]
            lines = task[0]
            tasks.append((len(lines.numbers) if isinstance(lines, FileLines) else len(lines), task[2]))
            yield task
    monkeypatch.setattr(validate_shards, "_tasks", seen)
    told: list[tuple[int, int]] = []
    report = validate_file(path, SHARED_GRAPHS, None, 2, Sharding(above=0, records=1, split_above=1000),
                           on_progress=lambda _stage, done, total, _unit: told.append((done, total)))
    assert report.results == whole.results
    assert [part for _size, part in tasks] == ["core", "sparql"] * 2  # (the record's shard, the shared graphs')
    assert tasks[0][0] > 1500 and tasks[2][0] > 1000
    assert told == [(0, 2), (1, 2), (2, 2)]
    tasks.clear()
    assert validate_file(path, SHARED_GRAPHS, None, 2, Sharding(above=0, records=1)).results == whole.results
    assert [part for _size, part in tasks] == [None, None]  # (below the default split_above)
    tasks.clear()
    assert validate_file(path, SHARED_GRAPHS, None, 1, Sharding(above=0, records=1, split_above=1000)
                         ).results == whole.results
    assert [part for _size, part in tasks] == [None, None]  # (one process: nothing to share the shard with)


def test_a_file_whose_nodes_span_records_is_validated_from_its_lines(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Two records describing one node (the seeds share people and venues), or a file out of order: no plan of
    line numbers; the lines are read and sharded as before, with the whole graph's results."""
    from conftest import SEEDS
    lines = sorted(set(build_graph([str(SEEDS)], Context.create()).lines))
    path = tmp_path / "seeds.nq"
    path.write_text("".join(lines), encoding="utf-8")
    assert FilePlan.of(path, SHARED_GRAPHS) is None
    unsorted = tmp_path / "unsorted.nq"
    unsorted.write_text("".join(reversed(_record_file(tmp_path, 5)[1])), encoding="utf-8")
    assert FilePlan.of(unsorted, SHARED_GRAPHS) is None
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")
    whole = validate(None, load_shapes(), lines)
    assert validate_file(path, SHARED_GRAPHS, None, 1, Sharding(above=0, records=1)).results == whole.results


def test_a_large_record_is_spilled_while_mapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mapping worker holds at most ``MAP_SPILL`` lines: a record of more spills sorted runs that are merged into
    its run, and the build writes the same graph as without spilling; past ``shard_above`` lines, the graph is
    validated from its file (no line gathered), with the report of the lines gathered."""
    record = str(many_references(300, tmp_path / "r.json"))
    graphs, reports = {}, {}
    spills: list[int] = []
    real_spill = extsort.Sorter.spill

    def spill(self: extsort.Sorter) -> None:
        if self.name.startswith("map-"):
            spills.append(len(self.buffer))
        real_spill(self)
    monkeypatch.setattr(extsort.Sorter, "spill", spill)
    from_file: list[Path] = []
    real_file = build_run.validate_file

    def by_file(path: Path, *args: object, **kwargs: object) -> object:
        from_file.append(path)
        return real_file(path, *args, **kwargs)  # type: ignore[arg-type]
    monkeypatch.setattr(build_run, "validate_file", by_file)
    for spill_at, shard_above in ((10**9, 10**9), (1000, 1000)):
        monkeypatch.setattr(stream, "MAP_SPILL", spill_at)
        monkeypatch.setenv("KG_HOME", str(tmp_path / f"ws-{spill_at}"))
        spills.clear()
        built, reports[spill_at] = api.build([record], api.BuildOptions(jobs=1, tuning=Tuning(shard_above=shard_above)))
        graphs[spill_at] = Path(built.graph).read_bytes()
        assert reports[spill_at] is not None
    lines = graphs[1000].count(b"/graph/10.7554/elife.01567> .\n")  # (the record's: the others are not mapped)
    assert lines > 7000 and len(spills) >= lines // 1000 and max(spills) <= 1000  # (the last spill: the rest)
    assert len(from_file) == 1
    assert graphs[1000] == graphs[10**9]
    assert reports[1000].results == reports[10**9].results and reports[1000].results  # type: ignore[union-attr]

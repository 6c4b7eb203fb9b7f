"""Robustness of reading and writing (issue 22 part B, issue 25's output and decompression bullets): deep
nesting, gzip bombs and truncated gzip, standard input and special files, outputs written through (symlinks,
FIFOs, devices, .gz), all outputs or none (checked before the build, committed together, locks, leftovers of
dead builds), workers that die with their parent, and builds killed or interrupted at every stage.

Faults are injected at a known stage with KG_FAULT=STAGE:SIGNAL (kg.infra.faults): nothing here waits on a clock.
A full or read-only disk is a small tmpfs mounted in a user namespace (``unshare``), where the system allows it.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli_errors import Kg, assert_lines, envelope, kg, no_usable, work  # noqa: F401 - kg is a fixture

from kg.ingest import read
from kg.pipeline.tuning import Tuning

KG = str(Path(sys.executable).parent / "kg")
INTERRUPTED = "error: interrupted; the workspace graph and the outputs are as they were; run the build again"
DEEP = "nested deeper than 200 levels; no Crossref record nests so deep; fix the record or leave it out"


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


def dois_in(graph: Path) -> set[str]:
    works = set()
    for line in graph.read_text(encoding="utf-8").splitlines():
        s, p, _rest = line.split(" ", 2)
        if p == "<https://w3id.org/crossref-kg/ontology#crossrefType>":
            works.add(s.removeprefix("<https://doi.org/").removesuffix(">"))
    return works


# ---------------------------------------------------------------- reading: nesting


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_deep_nesting_anywhere_is_a_one_line_skip(kg: Kg, jobs: str, streamed: bool) -> None:
    """A record nested deeper than 200 levels (in an unknown field, beyond orjson's 1,024 levels, an item of a
    list) is skipped with one line naming the line or item; the good records of the same files are kept,
    whether the file is read whole or line by line in workers."""
    lines = [json.dumps(work("10.5555/good.1")),
             json.dumps(work("10.5555/deep.1", unknown=nested(201))),
             '{"DOI": "10.5555/deep.2", "x": ' + "[" * 2000 + "]" * 2000 + "}",
             json.dumps({"message-type": "work-list", "message": {"items": [work("10.5555/good.2"),
                                                                           work("10.5555/deep.3", x=nested(300))]}}),
             json.dumps(work("10.5555/shallow.1", unknown=nested(199)))]
    kg.write("deep.jsonl", "\n".join(lines) + "\n")
    kg.write("list.json", [work("10.5555/good.3"), work("10.5555/deep.4", reference=[{"key": nested(250)}])])
    kg.write("one.json", envelope(work("10.5555/deep.5", author=[{"given": nested(400)}])))
    exit_code, stderr = _built(kg, "deep.jsonl", "list.json", "one.json", jobs=jobs, streamed=streamed)
    assert exit_code == 1
    assert_lines(stderr, [f"skipped: deep.jsonl: line 2: {DEEP}", f"skipped: deep.jsonl: line 3: {DEEP}",
                            f"skipped: deep.jsonl: line 4 item 2: {DEEP}", f"skipped: list.json: item 2: {DEEP}",
                            f"skipped: one.json: line 1: {DEEP}"])
    assert dois_in(kg.graph) == {"10.5555/good.1", "10.5555/good.2", "10.5555/good.3", "10.5555/shallow.1"}


def _built(kg: Kg, *files: str, jobs: str | None = None, streamed: bool = False) -> tuple[int, str]:
    """``kg build -q`` of ``files``: its exit code and stderr. ``streamed``: every JSON Lines file read line by
    line (``Tuning.stream_above`` 0, which the CLI has no option for), through ``api.build``, the records skipped
    written as the CLI writes them."""
    if not streamed:
        r = kg("build", *files, *(("--jobs", jobs) if jobs else ()), "-q")
        return r.exit_code, r.stderr
    from kg import api
    skipped: list[str] = []

    def problem(level: str, line: str) -> None:
        if level == "error":
            skipped.append(f"skipped: {line}\n")
    built, _report = api.build(list(files), api.BuildOptions(on_problem=problem, jobs=int(jobs) if jobs else None,
                                                             tuning=Tuning(stream_above=0)))
    return (1 if built.report.skipped else 0), "".join(skipped)


def test_too_deep_is_exactly_past_200_levels() -> None:
    assert not read.too_deep(nested(199))  # (199 lists around a number: 199 containers)
    assert not read.too_deep(nested(200))
    assert read.too_deep(nested(201))
    assert read.too_deep({"a": nested(200)})
    assert not read.too_deep("x" * 10)


# ---------------------------------------------------------------- reading: gzip


def _member(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


BOMB_READER = """
import resource, sys
limit = 768 << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from kg.ingest.read import iter_records
for item in iter_records(sys.argv[1:]):
    print(item if isinstance(item, Exception) else f"record {item[0].path} {item[0].locator} {item[1]['DOI']}")
"""


def test_a_gzip_bomb_is_skipped_in_flat_memory(tmp_path: Path) -> None:
    """Under a 768 MiB address-space limit, a 1 MB .gz document that expands to 1 GiB, and a JSON Lines .gz
    with a 128 MiB line between good ones, are skipped with one line each (the good lines kept): gzip is
    expanded as a stream, with caps on one document and one line."""
    spaces = _member(b" " * (16 << 20))
    doc = tmp_path / "bomb.json.gz"
    with open(doc, "wb") as fh:
        fh.write(_member(b'{"DOI": "10.5555/bomb.1", "title": ["'))
        for _ in range(64):
            fh.write(spaces)
        fh.write(_member(b'"]}'))
    lines = tmp_path / "bomb.jsonl.gz"
    with open(lines, "wb") as fh:
        fh.write(_member(json.dumps(work("10.5555/good.1")).encode() + b'\n{"DOI": "10.5555/bomb.2", "title": ["'))
        for _ in range(8):
            fh.write(spaces)
        fh.write(_member(b'"]}\n' + json.dumps(work("10.5555/good.2")).encode() + b"\n"))
    assert doc.stat().st_size < 2 << 20 and lines.stat().st_size < 1 << 20
    r = subprocess.run([sys.executable, "-c", BOMB_READER, str(doc), str(lines)], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        f"{doc}: expands to more than 256 MiB, more than any Crossref file holds; split it into smaller files or "
        "leave it out",
        f"record {lines} line 1 10.5555/good.1",
        f"{lines}: line 2: is longer than 64 MiB, more than any Crossref record; fix the line or leave it out",
        f"record {lines} line 3 10.5555/good.2"]


@pytest.mark.parametrize("streamed", [False, True], ids=["small", "large"])
def test_a_truncated_gzip_keeps_the_records_before_the_break(kg: Kg, streamed: bool) -> None:
    """A small .gz JSON Lines file cut midway keeps the lines before the break, as a large one (streamed)
    does, and says where it broke in one line."""
    body = b"".join(json.dumps(work(f"10.5555/cut.{i}", title=[os.urandom(3000).hex()])).encode() + b"\n"
                    for i in range(6))
    packed = gzip.compress(body, mtime=0)
    cut = packed[: len(packed) * 3 // 4]
    kg.write("cut.jsonl.gz", cut)
    import zlib
    seen = zlib.decompressobj(31).decompress(cut)
    whole_lines = seen.count(b"\n")
    assert 2 <= whole_lines < 6
    exit_code, stderr = _built(kg, "cut.jsonl.gz", streamed=streamed)
    assert exit_code == 1
    assert_lines(stderr, ["skipped: cut.jsonl.gz: is not a readable gzip file (Compressed file ended before the "
                            "end-of-stream marker was reached); re-download or re-compress it"])
    assert dois_in(kg.graph) == {f"10.5555/cut.{i}" for i in range(whole_lines)}


def test_a_gzip_file_of_several_members_is_read_whole(kg: Kg) -> None:
    kg.write("two.jsonl.gz", _member(json.dumps(work("10.5555/m.1")).encode() + b"\n")
             + _member(json.dumps(work("10.5555/m.2")).encode() + b"\n") + b"\0" * 16)
    r = kg("build", "two.jsonl.gz", "-q")
    assert (r.exit_code, r.stderr) == (0, "")
    assert dois_in(kg.graph) == {"10.5555/m.1", "10.5555/m.2"}


# ---------------------------------------------------------------- standard input and special files


@pytest.mark.parametrize("lines", [False, True], ids=["json", "json-lines"])
def test_build_dash_reads_standard_input(kg: Kg, lines: bool) -> None:
    records = [work("10.5555/in.1"), work("10.5555/in.2")]
    text = "".join(json.dumps(r) + "\n" for r in records) if lines else json.dumps(records)
    r = kg.runner.invoke(__import__("kg.cli", fromlist=["main"]).main, ["build", "-", "-q"], input=text,
                         env={"KG_HOME": str(kg.home)})
    assert (r.exit_code, r.stderr) == (0, "")
    assert dois_in(kg.graph) == {"10.5555/in.1", "10.5555/in.2"}


def test_standard_input_problems_name_stdin(kg: Kg) -> None:
    r = kg.runner.invoke(__import__("kg.cli", fromlist=["main"]).main, ["build", "-"], input="{not json",
                         env={"KG_HOME": str(kg.home)})
    assert r.exit_code == 2
    assert_lines(r.stderr, ["skipped: stdin: line 1, column 2: invalid JSON (unexpected character, expected a "
                            "string key); fix the file or leave it out", no_usable("-")])


@pytest.mark.parametrize("how", ["cat r.json | kg build /dev/stdin", "kg build <(cat r.json)",
                                 "cat r.json | kg build -"], ids=["dev-stdin", "process-substitution", "dash"])
def test_pipes_are_read_once_and_whole(tmp_path: Path, how: str) -> None:
    """A pipe cannot be read twice (the streaming build reads its inputs twice): it is spooled once."""
    (tmp_path / "r.json").write_text(json.dumps(envelope(work("10.5555/pipe.1"))), encoding="utf-8")
    env = {**os.environ, "KG_HOME": str(tmp_path / "ws"), "PATH": f"{Path(KG).parent}:{os.environ['PATH']}"}
    r = subprocess.run(["bash", "-c", how + " -q"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (0, "")
    assert dois_in(tmp_path / "ws" / "graph.nq") == {"10.5555/pipe.1"}
    assert [p.name for p in (tmp_path / "ws").iterdir() if p.name.startswith(".build-")] == []


def test_special_files_in_a_folder_are_skipped_with_a_note(kg: Kg) -> None:
    folder = kg.cwd / "in"
    folder.mkdir()
    kg.write("in/a.json", envelope(work("10.5555/f.1")))
    os.mkfifo(folder / "b-fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "c-socket"))
    try:
        r = kg("build", "in")
    finally:
        sock.close()
    assert r.exit_code == 0
    assert_lines(r.stderr, ["note: in/b-fifo: a FIFO, not a regular file; skipped while reading the folder",
                            "note: in/c-socket: a socket, not a regular file; skipped while reading the folder",
                            *kg.summary(1, 1)])


def test_a_socket_given_as_input_is_refused(kg: Kg) -> None:
    kg.write("a.json", envelope(work("10.5555/f.1")))
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(kg.cwd / "s.json"))
    try:
        r = kg("build", "a.json", "s.json", "-q")
    finally:
        sock.close()
    assert r.exit_code == 1
    assert_lines(r.stderr, ["skipped: s.json: is a socket, not a regular file; give a file, a folder or '-' for "
                            "standard input"])


# ---------------------------------------------------------------- outputs written through


def test_a_symlinked_output_is_written_through(kg: Kg) -> None:
    kg.write("a.json", envelope(work("10.5555/o.1")))
    (kg.cwd / "real").mkdir()
    (kg.cwd / "real" / "graph.nt").write_text("old\n", encoding="utf-8")
    (kg.cwd / "link.nt").symlink_to("real/graph.nt")
    r = kg("build", "a.json", "-o", "link.nt", "-q")
    assert (r.exit_code, r.stderr) == (0, "")
    assert (kg.cwd / "link.nt").is_symlink()
    assert "\n<https://doi.org/10.5555/o.1> " in (kg.cwd / "real" / "graph.nt").read_text(encoding="utf-8")
    assert sorted(p.name for p in (kg.cwd / "real").iterdir()) == ["graph.nt"]


def test_a_fifo_output_is_written_in_place(kg: Kg) -> None:
    kg.write("a.json", envelope(work("10.5555/o.1")))
    fifo = kg.cwd / "out.nt"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    r = kg("build", "a.json", "-o", "out.nt", "-q")
    reader.join()
    assert (r.exit_code, r.stderr) == (0, "")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert "\n<https://doi.org/10.5555/o.1> " in got[0].decode("utf-8")
    assert got[0] == (kg("export", "-f", "nt").stdout_bytes)


def test_a_character_device_output_is_written_in_place(kg: Kg) -> None:
    kg.write("a.json", envelope(work("10.5555/o.1")))
    r = kg("build", "a.json", "-o", "/dev/null", "-f", "nt", "-q")
    assert (r.exit_code, r.stderr) == (0, "")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_socket_output_is_refused_before_the_build(kg: Kg) -> None:
    kg.write("a.json", envelope(work("10.5555/o.1")))
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(kg.cwd / "out.ttl"))
    try:
        r = kg("build", "a.json", "-o", "out.ttl")
    finally:
        sock.close()
    assert r.exit_code == 2
    assert_lines(r.stderr, ["error: out.ttl: is a socket; give a regular file, a FIFO, a character device or '-' "
                            "to write to"])
    assert not kg.home.exists()


@pytest.mark.parametrize("fmt", ["ttl", "nt", "nq", "jsonld", "trig", "rdf"])
def test_gz_outputs_are_compressed_and_deterministic(kg: Kg, fmt: str) -> None:
    kg.write("a.json", envelope(work("10.5555/o.1")))
    assert kg("build", "a.json", "-o", f"out.{fmt}", "-q").exit_code == 0
    plain = (kg.cwd / f"out.{fmt}").read_bytes()
    assert kg("build", "a.json", "-o", f"out.{fmt}.gz", "-q").exit_code == 0
    packed = (kg.cwd / f"out.{fmt}.gz").read_bytes()
    assert packed[:2] == b"\x1f\x8b" and gzip.decompress(packed) == plain
    assert kg("export", "-o", f"again.{fmt}.gz").exit_code == 0
    assert (kg.cwd / f"again.{fmt}.gz").read_bytes() == packed  # no name or time in the gzip header
    # kg reads back what it wrote
    stats = [kg("stats", "-g", name, "-f", "tsv") for name in (f"out.{fmt}", f"out.{fmt}.gz")]
    assert stats[0].exit_code == stats[1].exit_code == 0 and stats[0].stdout == stats[1].stdout
    assert kg("export", f"out.{fmt}.gz", "-f", "nt").stdout == kg("export", f"out.{fmt}", "-f", "nt").stdout


# ---------------------------------------------------------------- all outputs or none


def _two_builds(kg: Kg, *extra: str) -> tuple[bytes, bytes]:
    kg.write("old.json", envelope(work("10.5555/old.1")))
    kg.write("new.json", envelope(work("10.5555/new.1")))
    assert kg("build", "old.json", "-o", "out.nt", *extra, "-q").exit_code == 0
    return kg.graph.read_bytes(), (kg.cwd / "out.nt").read_bytes()


def test_an_unwritable_output_is_found_before_the_build(kg: Kg) -> None:
    before = _two_builds(kg)
    r = kg("build", "new.json", "-o", "/proc/self/out.nt")
    assert r.exit_code == 2
    assert_lines(r.stderr, ["error: /proc/self/out.nt: cannot be written (No such file or directory); choose "
                            "another path"])
    assert (kg.graph.read_bytes(), (kg.cwd / "out.nt").read_bytes()) == before


def test_a_full_disk_on_the_output_names_it_and_replaces_nothing(kg: Kg, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from kg import export
    before = _two_builds(kg)
    listing = (sorted(os.listdir(kg.home)), sorted(os.listdir(kg.cwd)))

    def full(lines: object, fh: object) -> None:
        fh.write("<a> <b> <c> .\n")  # type: ignore[attr-defined]
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setitem(export.WRITERS, "nt", full)
    r = kg("build", "new.json", "-o", "out.nt")
    assert r.exit_code == 2
    assert_lines(r.stderr, ["error: out.nt: no space left on the device (No space left on device); free some space "
                            "there or choose another path, and run again; nothing was replaced: the workspace graph "
                            "and the outputs are as they were"])
    assert (kg.graph.read_bytes(), (kg.cwd / "out.nt").read_bytes()) == before
    assert (sorted(os.listdir(kg.home)), sorted(os.listdir(kg.cwd))) == listing


def test_a_store_that_cannot_be_built_replaces_nothing(kg: Kg) -> None:
    before = _two_builds(kg, "--store", "st")
    store_before = sorted(os.listdir(kg.cwd / "st"))

    # (the store is built aside, then the disk is full: KG_FAULT=store:FULL raises what a full disk raises)
    r = kg("build", "new.json", "-o", "out.nt", "--store", "st", env={"KG_FAULT": "store:FULL"})
    assert r.exit_code == 2
    assert_lines(r.stderr, ["error: st: no space left on the device (No space left on device); free some space "
                            "there or choose another path, and run again; nothing was replaced: the workspace graph "
                            "and the outputs are as they were"])
    assert (kg.graph.read_bytes(), (kg.cwd / "out.nt").read_bytes()) == before
    assert sorted(os.listdir(kg.cwd / "st")) == store_before
    assert sorted(p for p in os.listdir(kg.cwd) if p.startswith(".st.")) == [".st.lock"]


def test_a_store_path_that_is_a_file_is_refused_before_the_build(kg: Kg) -> None:
    kg.write("a.json", envelope(work("10.5555/o.1")))
    kg.write("st", "a file")
    r = kg("build", "a.json", "--store", "st")
    assert r.exit_code == 2
    assert_lines(r.stderr, ["error: st: is a file, not a store folder; choose another --store folder"])
    assert not kg.home.exists()


def test_the_next_build_removes_what_dead_builds_left(kg: Kg) -> None:
    _two_builds(kg, "--store", "st")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    left = [kg.home / f".build-abcdefgh-{dead}", kg.home / f".graph.nq.{dead}-0123abcd.tmp",
            kg.home / ".graph.nq.k2j4_x9q.tmp", kg.cwd / f".out.nt.{dead}-0123abcd.tmp",
            kg.cwd / f".st.building-{dead}-0123abcd", kg.cwd / ".st.building", kg.cwd / f".st.old-{dead}-0123abcd"]
    for p in left:
        if p.name.endswith(".tmp"):
            p.write_text("partial", encoding="utf-8")
        else:
            p.mkdir()
            (p / "file").write_text("x", encoding="utf-8")
    mine = kg.cwd / f".out.nt.{os.getpid()}-0123abcd.tmp"  # (a live owner's: kept)
    mine.write_text("partial", encoding="utf-8")
    r = kg("build", "new.json", "-o", "out.nt", "--store", "st", "-q")
    assert (r.exit_code, r.stderr) == (0, "")
    assert [p for p in left if p.exists()] == []
    assert mine.exists()


def test_builds_on_other_inputs_say_so(kg: Kg) -> None:
    _two_builds(kg)
    r = kg("build", "new.json")
    assert r.exit_code == 0
    assert_lines(r.stderr, [f"note: {kg.graph}: was built from other inputs (old.json); this build replaces it with "
                            "the graph of the inputs given", *kg.summary(1, 1)])
    r = kg("build", "new.json")  # the same inputs again: no note
    assert_lines(r.stderr, kg.summary(1, 1))


# ---------------------------------------------------------------- processes: locks, faults, workers


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "KG_HOME": str(home), **extra}


def _stopped(proc: subprocess.Popen) -> None:
    """Wait until a build that sent itself SIGSTOP (KG_FAULT=...:STOP) is stopped."""
    while True:
        with open(f"/proc/{proc.pid}/stat", encoding="utf-8") as fh:
            if fh.read().rsplit(") ", 1)[1].split()[0] == "T":
                return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)


@pytest.mark.parametrize("shared", ["workspace", "store"])
def test_a_second_build_on_a_busy_workspace_or_store_exits_2(tmp_path: Path, shared: str) -> None:
    (tmp_path / "a.json").write_text(json.dumps(envelope(work("10.5555/a.1"))), encoding="utf-8")
    first = subprocess.Popen([KG, "build", "a.json", "--store", "st", "-q"], cwd=tmp_path,
                             env=_env(tmp_path / "ws", KG_FAULT="read:STOP"), stderr=subprocess.PIPE, text=True)
    try:
        _stopped(first)
        home = tmp_path / ("ws" if shared == "workspace" else "ws2")
        second = subprocess.run([KG, "build", "a.json", "--store", "st", "-q"], cwd=tmp_path, env=_env(home),
                                capture_output=True, text=True)
        assert second.returncode == 2
        if shared == "workspace":
            assert second.stderr.splitlines() == [
                f"error: {tmp_path / 'ws'}: busy: another build (pid {first.pid}) is writing this workspace; wait "
                "for it to finish, or set KG_HOME to another folder"]
        else:
            assert second.stderr.splitlines() == [
                f"error: st: busy: another build (pid {first.pid}) is writing this store folder; wait for it to "
                "finish, or choose another --store folder"]
    finally:
        first.send_signal(signal.SIGCONT)
    assert first.wait() == 0 and first.stderr.read() == ""
    assert dois_in(tmp_path / "ws" / "graph.nq") == {"10.5555/a.1"}


STAGES = ["read", "map", "merge", "graph", "validate", "export", "store", "commit"]


def _outputs(tmp: Path) -> tuple[bytes, bytes, list[str]]:
    """The workspace graph, the export, and the works the store holds."""
    from kg.query.backends import open_disk_store
    store = open_disk_store(tmp / "st")
    works = sorted(str(row["w"]) for row in store.query(
        "SELECT ?w WHERE { ?w <https://w3id.org/crossref-kg/ontology#crossrefType> ?t }"))
    del store
    return (tmp / "ws" / "graph.nq").read_bytes(), (tmp / "out.nt").read_bytes(), works


def _leftovers(tmp: Path) -> list[str]:
    names = [p.name for p in (tmp / "ws").iterdir() if p.name.startswith(".") and p.name != ".lock"]
    names += [p.name for p in tmp.iterdir() if p.name.startswith(".") and p.name != ".st.lock"]
    return sorted(names)


@pytest.fixture(scope="module")
def fault_inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The inputs, and the outputs of a first build (workspace, export, store) for each test to start from."""
    folder = tmp_path_factory.mktemp("faults")
    (folder / "old.json").write_text(json.dumps(envelope(work("10.5555/old.1"))), encoding="utf-8")
    (folder / "new.jsonl").write_text("".join(json.dumps(work(f"10.5555/new.{i}")) + "\n" for i in range(3)),
                                      encoding="utf-8")
    subprocess.run([KG, "build", "old.json", "-o", "out.nt", "--store", "st", "-q"], cwd=folder,
                   env=_env(folder / "ws"), check=True)
    return folder


def _fresh(tmp: Path, fault_inputs: Path) -> None:
    for name in ("old.json", "new.jsonl", "out.nt"):
        shutil.copy(fault_inputs / name, tmp / name)
    for name in ("ws", "st"):
        shutil.copytree(fault_inputs / name, tmp / name)


@pytest.mark.parametrize("sig", ["INT", "KILL"])
@pytest.mark.parametrize("stage", STAGES)
def test_a_build_killed_or_interrupted_at_any_stage_leaves_all_outputs_old(tmp_path: Path, fault_inputs: Path,
                                                                          stage: str, sig: str) -> None:
    """SIGINT or SIGKILL at each stage: the workspace graph, the export and the store are all as they were;
    SIGINT says so in one line (exit 130) and leaves nothing behind; after SIGKILL the next build removes what
    the dead one left, and writes all three anew. (Workers read and map; validation only where it is the stage.)"""
    _fresh(tmp_path, fault_inputs)
    before = _outputs(tmp_path)
    cmd = [KG, "build", "new.jsonl", "-o", "out.nt", "--store", "st", "-q",
           "--jobs", "2" if stage in ("read", "map") else "1", "--validate", "full" if stage == "validate" else "none"]
    r = subprocess.run(cmd, cwd=tmp_path, env=_env(tmp_path / "ws", KG_FAULT=f"{stage}:{sig}"),
                       capture_output=True, text=True)
    assert _outputs(tmp_path) == before
    if sig == "INT":
        assert (r.returncode, r.stderr.splitlines()) == (130, [INTERRUPTED])
        assert _leftovers(tmp_path) == []
        return
    assert r.returncode == -signal.SIGKILL
    again = subprocess.run(cmd, cwd=tmp_path, env=_env(tmp_path / "ws"), capture_output=True, text=True)
    assert (again.returncode, again.stderr) == (0, "")
    assert _leftovers(tmp_path) == []
    after = _outputs(tmp_path)
    new = sorted(f"<https://doi.org/10.5555/new.{i}>" for i in range(3))
    assert after[2] == new
    assert dois_in(tmp_path / "ws" / "graph.nq") == {f"10.5555/new.{i}" for i in range(3)}
    assert "\n<https://doi.org/10.5555/new.0> " in after[1].decode("utf-8")


def test_an_interruption_after_the_commit_says_all_is_new(tmp_path: Path, fault_inputs: Path) -> None:
    shutil.copy(fault_inputs / "new.jsonl", tmp_path / "new.jsonl")
    r = subprocess.run([KG, "build", "new.jsonl", "-o", "out.nt", "-q"], cwd=tmp_path,
                       env=_env(tmp_path / "ws", KG_FAULT="committed:INT"), capture_output=True, text=True)
    assert (r.returncode, r.stderr.splitlines()) == (130, [
        "error: interrupted after every output was written; the workspace graph and the outputs are all new"])
    assert dois_in(tmp_path / "ws" / "graph.nq") == {f"10.5555/new.{i}" for i in range(3)}
    assert "\n<https://doi.org/10.5555/new.0> " in (tmp_path / "out.nt").read_text(encoding="utf-8")


def _group(pgid: int) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
                rest = fh.read().rsplit(") ", 1)[1].split()
        except OSError:
            continue
        if int(rest[2]) == pgid and rest[0] != "Z":
            found.append(int(pid))
    return found


@pytest.mark.parametrize("stage", ["read", "map"])
def test_workers_end_when_their_parent_is_killed(tmp_path: Path, fault_inputs: Path, stage: str) -> None:
    """SIGKILL to the parent of a --jobs 2 build (it sends it itself, with its workers alive): no worker is
    left (the system ends them: PR_SET_PDEATHSIG)."""
    shutil.copy(fault_inputs / "new.jsonl", tmp_path / "new.jsonl")
    proc = subprocess.Popen([KG, "build", "new.jsonl", "--jobs", "2", "-q"], cwd=tmp_path,
                            env=_env(tmp_path / "ws", KG_FAULT=f"{stage}:STOP"), start_new_session=True,
                            stderr=subprocess.DEVNULL)
    _stopped(proc)
    workers = [p for p in _group(proc.pid) if p != proc.pid]
    assert len(workers) >= 2, "the workers are there before the parent dies"
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 60
    while _group(proc.pid):
        assert time.monotonic() < deadline, f"workers outlived their parent: {_group(proc.pid)}"
        time.sleep(0.05)


# ---------------------------------------------------------------- a full or read-only disk (a tmpfs)


def _namespace_works() -> bool:
    if not shutil.which("unshare"):
        return False
    r = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                        "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d && rmdir $d"],
                       capture_output=True)
    return r.returncode == 0


needs_tmpfs = pytest.mark.skipif(not _namespace_works(), reason="no user namespaces here to mount a small tmpfs")


def _on_small_disk(tmp: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (sh) in a user and mount namespace where ``tmp/small`` is a 256 KiB tmpfs holding what
    ``tmp/seed`` holds (copied in first); ``$KG`` is the kg command."""
    (tmp / "small").mkdir(exist_ok=True)
    full = (f"mount -t tmpfs -o size=256k tmpfs {tmp}/small && cp -a {tmp}/seed/. {tmp}/small/ && " + script)
    return subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", full], cwd=tmp,
                          env=_env(tmp / "ws", KG=KG), capture_output=True, text=True)


def _seeded(tmp: Path) -> None:
    (tmp / "seed").mkdir()
    (tmp / "old.json").write_text(json.dumps(envelope(work("10.5555/old.1"))), encoding="utf-8")
    (tmp / "new.json").write_text(json.dumps(envelope(work("10.5555/new.1"))), encoding="utf-8")
    (tmp / "seed" / "out.nt").write_text("old\n", encoding="utf-8")
    # (a big file keeps the tmpfs nearly full: the export no longer fits)
    (tmp / "seed" / "ballast").write_bytes(b"\0" * (200 << 10))


@needs_tmpfs
def test_a_really_full_output_disk(tmp_path: Path) -> None:
    _seeded(tmp_path)
    subprocess.run([KG, "build", "old.json", "-q"], cwd=tmp_path, env=_env(tmp_path / "ws"), check=True)
    before = (tmp_path / "ws" / "graph.nq").read_bytes()
    r = _on_small_disk(tmp_path, '$KG build new.json -o small/out.nt -q; echo "rc=$?"; ls -A small; cat small/out.nt')
    assert r.stdout.splitlines() == ["rc=2", "ballast", "out.nt", "old"]
    assert r.stderr.splitlines() == [
        "error: small/out.nt: no space left on the device (No space left on device); free some space there or "
        "choose another path, and run again; nothing was replaced: the workspace graph and the outputs are as they "
        "were"]
    assert (tmp_path / "ws" / "graph.nq").read_bytes() == before
    assert _leftovers_ws(tmp_path) == []


def _leftovers_ws(tmp: Path) -> list[str]:
    return sorted(p.name for p in (tmp / "ws").iterdir() if p.name.startswith(".") and p.name != ".lock")


@needs_tmpfs
def test_a_really_full_store_disk(tmp_path: Path) -> None:
    _seeded(tmp_path)
    subprocess.run([KG, "build", "old.json", "-q"], cwd=tmp_path, env=_env(tmp_path / "ws"), check=True)
    before = (tmp_path / "ws" / "graph.nq").read_bytes()
    r = _on_small_disk(tmp_path, '$KG build new.json --store small/st -q; echo "rc=$?"; ls -A small')
    assert r.stdout.splitlines() == ["rc=2", ".st.lock", "ballast", "out.nt"]
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert re.fullmatch(r"error: small/st: no space left on the device \(.*\); free some space there or choose "
                        r"another path, and run again; nothing was replaced: the workspace graph and the outputs "
                        r"are as they were", r.stderr.strip()), r.stderr
    assert (tmp_path / "ws" / "graph.nq").read_bytes() == before


@needs_tmpfs
@pytest.mark.parametrize("what", ["-o", "--store", "KG_HOME"])
def test_a_read_only_folder_is_found_before_the_build(tmp_path: Path, what: str) -> None:
    _seeded(tmp_path)
    arg = {"-o": "-o small/out.nt", "--store": "--store small/st", "KG_HOME": ""}[what]
    home = "KG_HOME=small/ws " if what == "KG_HOME" else ""
    r = _on_small_disk(tmp_path, f"mount -o remount,ro small && {home}$KG build new.json {arg} -q; echo \"rc=$?\"")
    assert r.stdout.splitlines() == ["rc=2"]
    shown = {"-o": "small/out.nt", "--store": "small/st", "KG_HOME": "small/ws"}[what]
    fix = {"-o": "choose another path", "--store": "make it writable or choose another --store folder",
           "KG_HOME": "make it writable or set KG_HOME to another folder"}[what]
    assert r.stderr.splitlines() == [f"error: {shown}: cannot be written (Read-only file system); {fix}"]
    assert not (tmp_path / "ws").exists() or what == "KG_HOME"


# ---------------------------------------------------------------- property: any JSON is a record or one skip


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


_json = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                   max_size=3), max_leaves=12)


@settings(max_examples=60, deadline=None)
@given(value=_json, pad=st.integers(0, 260), lines=st.booleans())
def test_any_json_value_in_a_record_is_kept_or_one_deep_skip(tmp_path_factory: pytest.TempPathFactory,
                                                              value: object, pad: int, lines: bool) -> None:
    """A record holding any JSON value (wrapped in up to 260 more lists) in an unknown field is read as the
    record exactly when it nests at most 200 levels, else it is one 'nested deeper' skip; nothing raises,
    and the good record beside it is always read."""
    for _ in range(pad):
        value = [value]
    record = {"DOI": "10.5555/p.1", "x": value}
    folder = tmp_path_factory.mktemp("p")
    path = folder / ("r.jsonl" if lines else "r.json")
    good = {"DOI": "10.5555/good.1"}
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n" if lines else json.dumps([good, record]),
                    encoding="utf-8")
    got = list(read.iter_records([str(path)]))
    assert isinstance(got[0], tuple) and got[0][1] == good
    assert len(got) == 2
    if _depth(record) > 200:
        where = f"{path}: line 2" if lines else f"{path}: item 2"
        assert str(got[1]) == f"{where}: {DEEP}"
    else:
        assert isinstance(got[1], tuple) and got[1][1] == record


def test_a_build_killed_between_two_renames_is_rolled_forward(tmp_path: Path, fault_inputs: Path) -> None:
    """SIGKILL cannot be held back: killed after the store is in place but before the export and the workspace
    graph, the build leaves its journal; the next build that opens the workspace (here one that then finds no
    input) finishes the renames first, so the outputs are all the killed build's, never a mix."""
    _fresh(tmp_path, fault_inputs)
    before = _outputs(tmp_path)
    cmd = [KG, "build", "new.jsonl", "-o", "out.nt", "--store", "st", "-q", "--jobs", "1", "--validate", "none"]
    r = subprocess.run(cmd, cwd=tmp_path, env=_env(tmp_path / "ws", KG_FAULT="commit-half:KILL"),
                       capture_output=True, text=True)
    assert r.returncode == -signal.SIGKILL
    half = _outputs(tmp_path)
    assert half[0] == before[0] and half[1] == before[1] and half[2] != before[2]  # a mix: the store alone is new
    assert (tmp_path / "ws" / ".commit").exists()
    (tmp_path / "empty").mkdir()
    again = subprocess.run([KG, "build", "empty"], cwd=tmp_path, env=_env(tmp_path / "ws"), capture_output=True,
                           text=True)
    assert again.returncode == 2, again.stderr
    after = _outputs(tmp_path)
    assert after[2] == sorted(f"<https://doi.org/10.5555/new.{i}>" for i in range(3))
    assert dois_in(tmp_path / "ws" / "graph.nq") == {f"10.5555/new.{i}" for i in range(3)}
    assert "\n<https://doi.org/10.5555/new.0> " in after[1].decode("utf-8")
    assert _leftovers(tmp_path) == []

"""Issue 45 (trust v3), reading and writing: JSON Lines decided by their lines (a scalar line is one bad line),
a .gz file with trailing garbage, a build whose standard output is closed."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_errors import Kg, assert_lines, kg, work  # noqa: F401 - kg is a fixture
from test_robustness import _built, dois_in

KG = str(Path(sys.executable).parent / "kg")


@pytest.mark.parametrize("scalar", ["null", '"s"', "5", "true"])
@pytest.mark.parametrize("where", ["folder", "explicit", "streamed"])
def test_a_scalar_line_of_json_lines_is_one_bad_line(kg: Kg, scalar: str, where: str) -> None:
    """The first line (and a later one) holding a JSON scalar: one skipped line each, the records kept."""
    lines = [scalar, json.dumps(work("10.5555/s.1")), scalar, json.dumps(work("10.5555/s.2"))]
    kg.write("in/a.jsonl", "".join(line + "\n" for line in lines))
    if where == "folder":
        r = kg("build", "in", "-q")
        exit_code, stderr = r.exit_code, r.stderr
    else:
        exit_code, stderr = _built(kg, "in/a.jsonl", streamed=where == "streamed")
    assert exit_code == 1
    assert_lines(stderr, [f"skipped: in/a.jsonl: line {n}: is not a Crossref work, response or list; leave it out"
                          for n in (1, 3)])
    assert dois_in(kg.graph) == {"10.5555/s.1", "10.5555/s.2"}


TRAILING = ("g.json.gz: 17 bytes of trailing garbage after the gzip data ignored, as gzip -d does; re-compress the "
            "file to drop them")


@pytest.mark.parametrize("lines", [False, True], ids=["json", "json-lines"])
def test_a_gzip_file_with_trailing_garbage_keeps_its_records_with_one_warning(kg: Kg, lines: bool) -> None:
    """gzip -d reads such a file with a warning: so does kg build, in one line (a warning: exit code 0)."""
    records = [work("10.5555/g.1"), work("10.5555/g.2")]
    body = "".join(json.dumps(r) + "\n" for r in records) if lines else json.dumps(records)
    kg.write("g.json.gz", gzip.compress(body.encode(), mtime=0) + b"this is not gzip\n")
    r = kg("build", "g.json.gz")
    assert r.exit_code == 0
    assert r.stderr.splitlines()[0] == f"warning: {TRAILING}"
    assert r.stderr.splitlines()[1].startswith("built 2 works from 2 records (0 skipped, 0 merged, 1 warning): ")
    assert r.stderr.count("trailing garbage") == 1
    assert dois_in(kg.graph) == {"10.5555/g.1", "10.5555/g.2"}


def test_a_streamed_gzip_file_with_trailing_garbage_keeps_its_records_with_one_warning(kg: Kg) -> None:
    """The same for JSON Lines read line by line (a file larger than Tuning.stream_above)."""
    from kg import api
    from kg.pipeline.tuning import Tuning
    body = "".join(json.dumps(work(f"10.5555/g.{i}")) + "\n" for i in (1, 2))
    kg.write("g.json.gz", gzip.compress(body.encode(), mtime=0) + b"this is not gzip\n")
    problems: list[tuple[str, str]] = []
    built, _report = api.build(["g.json.gz"], api.BuildOptions(on_problem=lambda *p: problems.append(p),
                                                               tuning=Tuning(stream_above=0)))
    assert problems == [("warning", TRAILING)]
    assert built.report.skipped == 0 and built.report.warnings == [TRAILING] and built.report.notes == []
    assert dois_in(kg.graph) == {"10.5555/g.1", "10.5555/g.2"}


def test_standard_output_closed_is_one_line(tmp_path: Path) -> None:
    """kg build -o - >&-: one line and the exit code of an unwritable output, no traceback, nothing replaced."""
    (tmp_path / "r.json").write_text(json.dumps(work("10.5555/c.1")), encoding="utf-8")
    env = {**os.environ, "KG_HOME": str(tmp_path / "ws"), "PATH": f"{Path(KG).parent}:{os.environ['PATH']}"}
    r = subprocess.run(["bash", "-c", "kg build r.json -o - >&-"], cwd=tmp_path, env=env, capture_output=True,
                       text=True)
    assert (r.returncode, r.stderr) == (2, "error: -: cannot be written (standard output is closed); choose "
                                           "another path\n")
    assert not (tmp_path / "ws" / "graph.nq").exists()


def test_a_file_of_mostly_scalar_lines_keeps_its_records(kg: Kg) -> None:
    """Named explicitly, a JSON Lines file whose lines are mostly scalars is still read line by line."""
    kg.write("m.jsonl", "null\n5\n\"s\"\n" + json.dumps(work("10.5555/m.1")) + "\n")
    exit_code, stderr = _built(kg, "m.jsonl")
    assert exit_code == 1
    assert_lines(stderr, [f"skipped: m.jsonl: line {n}: is not a Crossref work, response or list; leave it out"
                          for n in (1, 2, 3)])
    assert dois_in(kg.graph) == {"10.5555/m.1"}


# ---------------------------------------------------------------- pipes and devices (issue 45 item 6)


def _kg_shell(tmp_path: Path, command: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "KG_HOME": str(tmp_path / "ws"), "PATH": f"{Path(KG).parent}:{os.environ['PATH']}"}
    return subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _no_copies_left(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    assert not ws.exists() or [p.name for p in ws.iterdir() if p.name.startswith(".build-")] == []


@pytest.mark.parametrize(("command", "line"), [
    ("kg build /dev/zero r.json -q", "error: /dev/zero: is not JSON text (a NUL byte at byte 1); the copy of it "
     "was removed; give Crossref JSON or JSON Lines, uncompressed or gzipped"),
    ("yes hello | kg build - -q", "error: stdin: is not JSON text (it starts with h); the copy of it was removed; "
     "give Crossref JSON or JSON Lines, uncompressed or gzipped"),
    ("{ echo '[1,'; cat /dev/zero; } | kg build - -q", "error: stdin: is not JSON text (a NUL byte at byte 5); the "
     "copy of it was removed; give Crossref JSON or JSON Lines, uncompressed or gzipped"),
], ids=["dev-zero", "text", "nul-after-json"])
def test_a_device_or_pipe_that_is_not_json_text_stops_early_in_one_line(tmp_path: Path, command: str,
                                                                        line: str) -> None:
    (tmp_path / "r.json").write_text(json.dumps(work("10.5555/d.1")), encoding="utf-8")
    r = _kg_shell(tmp_path, command, timeout=60)
    assert (r.returncode, r.stderr) == (2, line + "\n")
    _no_copies_left(tmp_path)


def test_a_large_json_lines_stream_has_no_cap(tmp_path: Path) -> None:
    """kg build - of a 20 MB JSON Lines stream (more than a file is read whole: it streams)."""
    record = work("10.5555/big.0", abstract="<jats:p>" + "word " * 2000 + "</jats:p>")
    line = json.dumps(record)
    n = 20_000_000 // len(line) + 1
    with open(tmp_path / "big.jsonl", "w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(line.replace("10.5555/big.0", f"10.5555/big.{i}") + "\n")
    r = _kg_shell(tmp_path, "cat big.jsonl | kg build - -q --validate none", timeout=600)
    assert (r.returncode, r.stderr) == (0, "")
    assert len(dois_in(tmp_path / "ws" / "graph.nq")) == n
    _no_copies_left(tmp_path)


def test_a_piped_document_or_line_past_the_bounds_stops_in_one_line(kg: Kg, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounds of a file (one document, one JSON Lines line) hold for standard input; the copy is removed."""
    from click.testing import CliRunner

    from kg.cli import main
    from kg.ingest import spool
    monkeypatch.setattr(spool, "MAX_DOCUMENT", 2 << 20)  # (the copy of standard input is bounded in spool)
    monkeypatch.setattr(spool, "MAX_LINE", 1 << 20)
    document = json.dumps([work(f"10.5555/p.{i}", abstract="x" * 100_000) for i in range(30)])
    long_line = json.dumps(work("10.5555/l.1")) + "\n" + json.dumps(work("10.5555/l.2", abstract="y" * (2 << 20)))
    for text, line in ((document, "error: stdin: expands to more than 2 MiB, more than any Crossref file holds; the "
                                  "copy of it was removed; split it into smaller files or leave it out"),
                       (long_line, "error: stdin: line 2: is longer than 1 MiB, more than any Crossref record; the "
                                   "copy of it was removed; fix the line or leave it out")):
        r = CliRunner().invoke(main, ["build", "-", "-q"], input=text, env={"KG_HOME": str(kg.home)})
        assert (r.exit_code, r.stderr) == (2, line + "\n")
        assert not kg.home.exists() or [p for p in kg.home.iterdir() if p.name.startswith(".build-")] == []

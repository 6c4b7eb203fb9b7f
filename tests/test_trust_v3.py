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


@pytest.mark.parametrize("lines", [False, True], ids=["json", "json-lines"])
def test_a_gzip_file_with_trailing_garbage_keeps_its_records_with_one_note(kg: Kg, lines: bool) -> None:
    """gzip -d reads such a file with a warning: so does kg build, in one line."""
    records = [work("10.5555/g.1"), work("10.5555/g.2")]
    body = "".join(json.dumps(r) + "\n" for r in records) if lines else json.dumps(records)
    kg.write("g.json.gz", gzip.compress(body.encode(), mtime=0) + b"this is not gzip\n")
    r = kg("build", "g.json.gz")
    assert r.exit_code == 0
    assert r.stderr.splitlines()[0] == ("note: g.json.gz: 17 bytes of trailing garbage after the gzip data ignored, "
                                        "as gzip -d does; re-compress the file to drop them")
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

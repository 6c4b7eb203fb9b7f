"""Values from a record or a graph reach the terminal without their control characters and escape sequences (issue
45 item 8: "control characters stripped from every value a table shows, whatever the source"): validation reports
and their node labels, ``kg describe``, ``kg tools``, build warnings and error lines (kg.infra.text.printable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kg.cli import main

HOSTILE = "\x1b[2J\x1b]0;pwned\x07"  # clear the screen, set the window title
CONTROLS = "\x1b\x07\x9b\x7f"


def nq_escaped(text: str) -> str:
    """``text`` as an N-Quads string literal's content (every control character as a \\u escape)."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04X}" for c in text)


def kg(*args: str, home: Path) -> Result:
    return CliRunner().invoke(main, list(args), env={"KG_HOME": str(home), "KG_TERMINAL": "0", "COLUMNS": "100"})


@pytest.fixture
def hostile_graph(tmp_path: Path) -> Path:
    """A workspace whose graph holds the hostile value in a person's name and a tool's name (as a graph from
    elsewhere can: a record's own ESC is dropped when it is read), and a C1 control (CSI) in a work's title."""
    record = {"message": {
        "DOI": "10.5555/cc1", "type": "journal-article", "title": ["Profiling \x9b31mthings"],
        "author": [{"given": "Ann", "family": "Lee"}], "issued": {"date-parts": [[2020]]},
        "reference": [{"key": "r1", "unstructured": "A. Dev. 2021. Quokkaprof: A scalable profiler for serverless "
                                                    "functions. In Proc. EuroSys. 1-14."}]}}
    (tmp_path / "r.json").write_text(json.dumps(record), encoding="utf-8")
    home = tmp_path / "ws"
    r = kg("build", str(tmp_path / "r.json"), home=home)
    assert r.exit_code == 0, r.output
    graph = home / "graph.nq"
    text = graph.read_text(encoding="utf-8")
    assert text.count('"Ann Lee"') == 1 and text.count('"Quokkaprof" <https://w3id.org/crossref-kg/graph/tools>') == 1
    text = text.replace('"Ann Lee"', f'"Ann{nq_escaped(HOSTILE)} Lee"').replace(
        '"Quokkaprof" <https', f'"Quokka{nq_escaped(HOSTILE)}prof" <https')
    graph.write_text(text, encoding="utf-8")
    return home


def test_validation_labels_show_no_escape_sequence(hostile_graph: Path) -> None:
    r = kg("validate", str(hostile_graph / "graph.nq"), "--severity", "warning", home=hostile_graph)
    assert r.exit_code == 1, r.output
    assert r.stdout == (
        "Warning kgsh:PersonShape frapo:hasORCID: 1 person without an ORCID iD\n"
        "  The person has no ORCID iD, so the same person in other records stays a separate node.\n"
        "  10.5555/cc1: Ann Lee\n"
        "valid: no violations (1 warning: 1 person without an ORCID iD)\n")


def test_describe_shows_no_escape_sequence(hostile_graph: Path) -> None:
    r = kg("describe", "10.5555/cc1", home=hostile_graph)
    assert r.exit_code == 0, r.output
    assert not any(c in r.stdout for c in CONTROLS), repr(r.stdout)
    lines = r.stdout.splitlines()
    assert lines[0] == "Profiling 31mthings (10.5555/cc1)"
    assert "  author                Ann Lee (<https://w3id.org/crossref-kg/doi/10.5555/cc1/author/1/agent>)" in lines
    r = kg("describe", "tool:named/quokkaprof", home=hostile_graph)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "Quokkaprof (<https://w3id.org/crossref-kg/tool/named/quokkaprof>)"


def test_tools_table_shows_no_escape_sequence(hostile_graph: Path) -> None:
    r = kg("tools", "--category", "profiler", home=hostile_graph)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[2].split() == ["Quokkaprof", "profiler", "1", "named/quokkaprof"]
    assert not any(c in r.stdout for c in CONTROLS), repr(r.stdout)


def test_an_error_line_shows_no_escape_sequence(hostile_graph: Path) -> None:
    r = kg("describe", f"10.5555/x{HOSTILE}y", home=hostile_graph)
    assert r.exit_code == 2
    assert r.stderr == ("error: 10.5555/xy: no work or cited work of this DOI in the graph; 'kg query works' lists "
                        "the input works, 'kg query most-cited' the cited ones\n")
    r = kg("describe", f"<https://example.org/{HOSTILE}>", home=hostile_graph)  # (no IRI: no traceback)
    assert r.exit_code == 2
    assert r.stderr == ("error: <https://example.org/>: is not a DOI, tool:ID, topic:ID, an id or an IRI; give one "
                        "of these\n")


def test_a_build_warning_quotes_a_record_value_escaped(tmp_path: Path) -> None:
    record = {"message": {"DOI": "10.5555/cc2", "type": "journal-article", "title": ["A paper"],
                          "issued": {"date-parts": [[2020]]},
                          "reference": [{"key": "r1", "DOI": f"10.1{HOSTILE}\x9b", "unstructured": "X"}]}}
    (tmp_path / "r.json").write_text(json.dumps(record), encoding="utf-8")
    r = kg("build", str(tmp_path / "r.json"), home=tmp_path / "ws")
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == (
        f"warning: {tmp_path / 'r.json'}: 10.5555/cc2: reference[0].DOI '10.1\\x1b[2J\\x1b]0;pwned\\x07\\x9b' is not "
        "a DOI; the reference is kept without it")
    assert not any(c in r.stderr for c in CONTROLS), repr(r.stderr)

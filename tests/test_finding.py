"""Finding things: options of ``kg build`` that stick, the workspace found in parent folders, ``kg -V``, ``kg --help``
with whole summaries, ``kg queries`` wrapped to the terminal. Exact output through click's CliRunner."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kg import __version__
from kg.cli import main
from kg.query.stored import stored_queries

DOI = "10.5555/kg.finding.1"
RECORD = {"DOI": DOI, "type": "journal-article", "title": ["Profiling the profilers"],
          "author": [{"given": "Ada", "family": "Lovelace", "sequence": "first",
                      "ORCID": "https://orcid.org/0000-0002-1825-0097", "authenticated-orcid": False}],
          "container-title": ["Journal of Knowledge Graphs"], "issued": {"date-parts": [[2020, 5, 17]]},
          "publisher": "Example Press", "reference": []}


def kg(*args: str, env: dict[str, str | None] | None = None, width: int | None = None) -> Result:
    result = CliRunner().invoke(main, list(args), prog_name="kg", env={"KG_SHACL_ENGINE": "fast", **(env or {})},
                                **({"terminal_width": width} if width else {}))
    assert "Traceback" not in result.output, result.output
    return result


def notes(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("note: ")]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with one record and two topics files, as the current folder; no KG_HOME (the .kg/ is found)."""
    monkeypatch.delenv("KG_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.json").write_text(json.dumps(RECORD), encoding="utf-8")
    (tmp_path / "t.tsv").write_text(f"{DOI}\tprofiling\n", encoding="utf-8")
    (tmp_path / "t2.tsv").write_text(f"{DOI}\tcompilers\n", encoding="utf-8")
    return tmp_path


def evidence(folder: Path) -> list[str]:
    return sorted(set(re.findall(r'"topics file: [^"]*"', (folder / ".kg" / "graph.nq").read_text())))


def test_topics_tools_and_base_stick_until_given_again_or_dropped(here: Path) -> None:
    r = kg("build", "r.json", "--topics", "t.tsv", "--validate", "none")
    assert r.exit_code == 0, r.output
    assert notes(r) == ["note: --topics t.tsv: later builds without --topics reuse it (--defaults drops it)"]
    assert evidence(here) == ['"topics file: t.tsv"']

    r = kg("build", "r.json", "--validate", "none")  # the plain build the issue names: the override is kept
    assert r.exit_code == 0, r.output
    assert notes(r) == ["note: reusing the options of the last build: --topics t.tsv (give one again to change "
                        "it, --defaults to drop them)"]
    assert evidence(here) == ['"topics file: t.tsv"']

    r = kg("build", "r.json", "--topics", "t2.tsv", "--base", "https://example.org/kg/", "--validate", "none")
    assert r.exit_code == 0, r.output
    assert notes(r) == [
        "note: --base https://example.org/kg/: later builds without --base reuse it (--defaults drops it)",
        "note: --topics t2.tsv replaces --topics t.tsv of the last build; later builds reuse it"]
    assert evidence(here) == ['"topics file: t2.tsv"']
    assert "<https://example.org/kg/" in (here / ".kg" / "graph.nq").read_text()

    r = kg("build", "r.json", "--defaults", "--validate", "none")
    assert r.exit_code == 0, r.output
    assert notes(r) == ["note: --defaults: the options kept from the last build are dropped (--base "
                        "https://example.org/kg/ --topics t2.tsv)"]
    assert evidence(here) == []
    assert "<https://example.org/kg/" not in (here / ".kg" / "graph.nq").read_text()

    r = kg("build", "r.json", "--validate", "none")
    assert r.exit_code == 0 and notes(r) == [], r.output


def test_a_kept_file_since_removed_is_a_one_line_error(here: Path) -> None:
    assert kg("build", "r.json", "--topics", "t.tsv", "--validate", "none").exit_code == 0
    (here / "t.tsv").unlink()
    r = kg("build", "r.json", "--validate", "none")
    assert r.exit_code == 2
    assert r.stderr == (f"error: {here / 't.tsv'}: kept from an earlier build as --topics and no longer there; give "
                        "--topics FILE again, or --defaults to build without the kept options\n")
    r = kg("build", "r.json", "--defaults", "--validate", "none")
    assert r.exit_code == 0, r.output


def test_the_workspace_is_found_in_a_parent_folder(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert kg("build", "r.json", "--validate", "none").exit_code == 0
    (here / "a" / "b").mkdir(parents=True)
    monkeypatch.chdir(here / "a" / "b")
    r = kg("stats", "-f", "csv")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "works,references,cited_works,tools,people,triples"
    assert r.stdout.splitlines()[1].startswith("1,0,0,0,1,")
    r = kg("build", "../../r.json", "--validate", "none")
    assert r.exit_code == 0, r.output
    assert notes(r) == ["note: building into ../../.kg, the workspace of a parent folder; make a .kg folder here "
                        "or set KG_HOME to build elsewhere"]
    assert r.stderr.splitlines()[-1].endswith("-> ../../.kg/graph.nq")
    assert not (here / "a" / "b" / ".kg").exists()


def test_a_workspace_in_the_current_folder_comes_first(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert kg("build", "r.json", "--validate", "none").exit_code == 0
    (here / "sub" / ".kg").mkdir(parents=True)
    monkeypatch.chdir(here / "sub")
    r = kg("stats")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: .kg/graph.nq"), r.stderr


def test_dash_v_is_the_version() -> None:
    for flag in ("-V", "--version"):
        r = kg(flag)
        assert (r.exit_code, r.stdout) == (0, f"crossref-kg {__version__}\n")


def test_help_lists_every_command_with_its_whole_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    r = kg("--help", width=80)
    assert r.exit_code == 0
    commands = r.stdout.split("Commands:\n", 1)[1]
    assert "..." not in commands
    assert commands.startswith(
        "  build     Build the graph of Crossref records (files, folders, .jsonl, .gz,\n"
        "            '-' for standard input; default: seeds/).\n")
    assert max(map(len, r.stdout.splitlines())) <= 80
    monkeypatch.setenv("COLUMNS", "200")  # a wide terminal (outside CliRunner, which forces 80): at most 120
    with main.make_context("kg", [], resilient_parsing=True) as ctx:
        wide = ctx.get_help()
    assert "  build     Build the graph of Crossref records (files, folders, .jsonl, .gz, '-' for standard input; " \
           "default:\n            seeds/).\n  describe" in wide
    assert 100 < max(map(len, wide.splitlines())) <= 120


@pytest.mark.parametrize("columns", [60, 100])
def test_queries_wraps_its_descriptions_to_the_terminal(columns: int) -> None:
    r = kg("queries", env={"KG_TERMINAL": "1", "COLUMNS": str(columns)})
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert max(map(len, lines)) <= columns
    queries = stored_queries()
    names = max(map(len, queries))
    assert r.stdout.split() == [w for name, q in queries.items() for w in (name, *q.description.split())]
    description = queries["coauthors"].description
    if columns - names - 2 >= 30:  # beside the names
        first = textwrap.wrap(description, columns - names - 2, break_long_words=False, break_on_hyphens=False)
        at = lines.index(f"{'coauthors'.ljust(names)}  {first[0]}")
        assert lines[at + 1:at + len(first)] == [" " * (names + 2) + line for line in first[1:]]
    else:  # under each name, indented
        under = textwrap.wrap(description, columns - 4, break_long_words=False, break_on_hyphens=False)
        at = lines.index("coauthors")
        assert lines[at + 1:at + 1 + len(under)] == ["    " + line for line in under]


def test_queries_off_a_terminal_keeps_one_line_a_query() -> None:
    r = kg("queries", env={"KG_TERMINAL": "0"})
    assert len(r.stdout.splitlines()) == len(stored_queries())

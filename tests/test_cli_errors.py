"""The ``kg`` command on bad input: exact exit codes, exact stderr lines, never a traceback.

Every test runs in its own temporary directory with its own KG_HOME. Records are built inline.
Exit codes (kg build --help): 0 all records mapped, 1 some records skipped, 2 usage error or fatal input.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from kg.cli import main
from kg.query.stored import stored_queries

TIME = r"\d+\.\d\d"


# ---------------------------------------------------------------- helpers


class Kg:
    """Runs ``kg`` in a temporary working directory with its own workspace (KG_HOME)."""

    def __init__(self, cwd: Path, home: Path) -> None:
        self.cwd = cwd
        self.home = home
        self.graph = home / "graph.nq"
        self.runner = CliRunner()

    def __call__(self, *args: str, env: dict[str, str] | None = None) -> Result:
        result = self.runner.invoke(main, list(args), env={"KG_HOME": str(self.home), **(env or {})},
                                    prog_name="kg")
        # never a traceback: no exception escaped the command, nothing that looks like one was printed
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"kg {' '.join(args)} raised {type(result.exception).__name__}: {result.exception}\n{result.output}")
        assert "Traceback" not in result.output and "Traceback" not in result.stderr, result.output
        return result

    def write(self, name: str, content: Any) -> str:
        """Write a file (a record/list as JSON, str or bytes as is) and return its name as given to kg."""
        path = self.cwd / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content), encoding="utf-8")
        return name

    def triples(self) -> int:
        """Distinct triples of the workspace graph (what the summary line counts)."""
        lines = self.graph.read_text(encoding="utf-8").splitlines()
        return len({line.rsplit(" ", 2)[0] for line in lines if line.strip()})

    def summary(self, works: int, records: int, skipped: int = 0, merged: int = 0, warnings: int = 0,
                output: str | None = None) -> list[re.Pattern[str]]:
        """The exact summary line of kg build (only the elapsed time varies) and the validation line after it
        (no violation, else the build would exit 3; the count of SHACL warnings is the shapes' business)."""
        w = "work" if works == 1 else "works"
        r = "record" if records == 1 else "records"
        ws = "warning" if warnings == 1 else "warnings"
        tail = f", {output}" if output else ""
        return [
            re.compile(re.escape(
                f"built {works} {w} from {records} {r} ({skipped} skipped, {merged} merged, {warnings} {ws}): "
                f"{self.triples()} triples in ") + TIME + re.escape(f" s -> {self.graph}{tail}")),
            re.compile(r"validation: valid: no violations(, no warnings|"
                       r" \([1-9]\d* warnings?: [^;]+\); kg validate --severity warning lists them)"),
        ]


@pytest.fixture
def kg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Kg:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    home = tmp_path / "kg-home"
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("KG_HOME", str(home))
    return Kg(cwd, home)


def assert_lines(text: str, expected: list[str | re.Pattern[str]]) -> None:
    """Every line of ``text`` equals (str) or fully matches (pattern) the expected line, none more."""
    lines = text.splitlines()
    assert len(lines) == len(expected), f"expected {len(expected)} lines, got:\n{text}"
    for got, want in zip(lines, expected, strict=True):
        if isinstance(want, re.Pattern):
            assert want.fullmatch(got), f"line {got!r} does not match {want.pattern!r}"
        else:
            assert got == want


def work(doi: str = "10.5555/kg.2020.001", **fields: Any) -> dict[str, Any]:
    """A realistic Crossref journal-article record; keyword arguments (with _ for -) override fields."""
    record: dict[str, Any] = {
        "DOI": doi,
        "type": "journal-article",
        "title": ["Graph-based integration of bibliographic metadata"],
        "author": [
            {"given": "Ada", "family": "Lovelace", "sequence": "first",
             "ORCID": "https://orcid.org/0000-0002-1825-0097", "authenticated-orcid": False,
             "affiliation": [{"name": "University of London"}]},
            {"given": "Charles", "family": "Babbage", "sequence": "additional", "affiliation": []},
        ],
        "container-title": ["Journal of Knowledge Graphs"],
        "ISSN": ["1234-5679"],
        "issn-type": [{"value": "1234-5679", "type": "electronic"}],
        "issued": {"date-parts": [[2020, 5, 17]]},
        "published-online": {"date-parts": [[2020, 5, 17]]},
        "deposited": {"date-parts": [[2021, 1, 2]], "date-time": "2021-01-02T10:00:00Z", "timestamp": 1609581600000},
        "volume": "12", "issue": "3", "page": "101-118",
        "publisher": "Example Press", "member": "9999", "prefix": "10.5555",
        "URL": f"https://doi.org/{doi}",
        "reference-count": 1, "is-referenced-by-count": 4,
        "reference": [{"key": "ref1", "DOI": "10.5555/cited.1", "doi-asserted-by": "crossref",
                       "unstructured": "C. Babbage, On machines, 1832."}],
    }
    for key, value in fields.items():
        key = key.replace("_", "-")
        if value is ...:
            record.pop(key, None)
        else:
            record[key] = value
    return record


def envelope(record: dict[str, Any]) -> dict[str, Any]:
    """A /works/{doi} response around one record."""
    return {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": record}


def no_usable(inputs: str) -> str:
    return f"error: no usable records in {inputs}; nothing was written"


# ---------------------------------------------------------------- unreadable input


def test_missing_file(kg: Kg) -> None:
    r = kg("build", "nosuch.json")
    assert r.exit_code == 2
    assert_lines(r.stderr, ["skipped: nosuch.json: does not exist; check the path", no_usable("nosuch.json")])
    assert r.stdout == ""
    assert not kg.home.exists()


def test_file_without_read_permission(kg: Kg) -> None:
    name = kg.write("secret.json", envelope(work()))
    path = kg.cwd / name
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as root: a mode-000 file is still readable")
        r = kg("build", name)
    finally:
        path.chmod(0o644)
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "skipped: secret.json: cannot be read (Permission denied); check the path and its permissions",
        no_usable("secret.json"),
    ])


def test_path_through_a_file_is_not_a_directory(kg: Kg) -> None:
    kg.write("good.json", envelope(work()))
    r = kg("build", "good.json/inner.json")
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "skipped: good.json/inner.json: cannot be read (Not a directory); check the path and its permissions",
        no_usable("good.json/inner.json"),
    ])


def test_empty_directory(kg: Kg) -> None:
    (kg.cwd / "empty").mkdir()
    r = kg("build", "empty")
    assert r.exit_code == 2
    assert_lines(r.stderr, [no_usable("empty")])
    assert not kg.graph.exists()


# ---------------------------------------------------------------- invalid JSON


def test_invalid_json_single_document_names_line_and_column(kg: Kg) -> None:
    text = json.dumps(work(), indent=2).replace('"type": "journal-article"', '"type": journal-article')
    line = next(i for i, t in enumerate(text.splitlines(), 1) if '"type": journal' in t)
    col = text.splitlines()[line - 1].index("journal-article") + 1
    name = kg.write("broken.json", text)
    r = kg("build", name)
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        f"skipped: broken.json: line {line}, column {col}: invalid JSON (unexpected character, expected a JSON "
        "value); fix the file or leave it out",
        no_usable("broken.json"),
    ])


def test_invalid_json_line_in_json_lines_skips_only_that_line(kg: Kg) -> None:
    lines = [json.dumps(work("10.5555/line.1")), '{"DOI": "10.5555/line.2", "type": ',
             json.dumps(work("10.5555/line.3"))]
    name = kg.write("works.jsonl", "\n".join(lines) + "\n")
    r = kg("build", name)
    assert r.exit_code == 1
    assert_lines(r.stderr, [
        f"skipped: works.jsonl: line 2, column {len(lines[1]) + 1}: invalid JSON (unexpected end of data); "
        "fix the line or leave it out",
        *kg.summary(2, 2, skipped=1),
    ])
    graph = kg.graph.read_text(encoding="utf-8")
    assert "<https://doi.org/10.5555/line.1>" in graph and "<https://doi.org/10.5555/line.3>" in graph


def test_invalid_json_on_first_line_of_json_lines_skips_only_that_line(kg: Kg) -> None:
    lines = ['{"DOI": "10.5555/line.1", "type": ', json.dumps(work("10.5555/line.2")),
             json.dumps(work("10.5555/line.3"))]
    name = kg.write("works.jsonl", "\n".join(lines) + "\n")
    r = kg("build", name)
    assert r.exit_code == 1
    assert_lines(r.stderr, [
        f"skipped: works.jsonl: line 1, column {len(lines[0]) + 1}: invalid JSON (unexpected end of data); "
        "fix the line or leave it out",
        *kg.summary(2, 2, skipped=1),
    ])


# ---------------------------------------------------------------- JSON that is no (usable) work


def test_json_that_is_not_a_crossref_work(kg: Kg) -> None:
    name = kg.write("foo.json", {"foo": 1})
    r = kg("build", name)
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "skipped: foo.json: is not a Crossref work (no DOI, type or title field); leave it out",
        no_usable("foo.json"),
    ])


def test_json_scalar_is_not_a_work(kg: Kg) -> None:
    name = kg.write("scalar.json", '"10.5555/kg.2020.001"')
    r = kg("build", name)
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "skipped: scalar.json: holds JSON that is not a Crossref work, response or list; leave it out",
        no_usable("scalar.json"),
    ])


def test_json_array_holding_a_number(kg: Kg) -> None:
    name = kg.write("list.json", [work(), 42])
    r = kg("build", name)
    assert r.exit_code == 1
    assert_lines(r.stderr, [
        "skipped: list.json: item 2: is a number, not a Crossref work object; leave it out",
        *kg.summary(1, 1, skipped=1),
    ])


@pytest.mark.parametrize(("record", "message"), [
    (work(DOI=...), "skipped: rec.json: DOI is missing; every work needs one; add it or leave the record out"),
    (work("11.5555/not-a-doi"),
     'skipped: rec.json: DOI "11.5555/not-a-doi" is malformed (expected 10.NNNN/suffix); '
     'fix it or leave the record out'),
    (work("10.5555"),
     'skipped: rec.json: DOI "10.5555" is malformed (expected 10.NNNN/suffix); fix it or leave the record out'),
    (work(DOI=5555), "skipped: rec.json: DOI should be a string, got a number; fix it or leave the record out"),
    (work(DOI=["10.5555/kg.2020.001"]),
     "skipped: rec.json: DOI should be a string, got a list; fix it or leave the record out"),
], ids=["no-doi", "malformed-doi", "prefix-only-doi", "doi-number", "doi-list"])
def test_unusable_doi_skips_the_record(kg: Kg, record: dict[str, Any], message: str) -> None:
    name = kg.write("rec.json", envelope(record))
    r = kg("build", name)
    assert r.exit_code == 2
    assert_lines(r.stderr, [message, no_usable("rec.json")])
    assert not kg.home.exists()


# ---------------------------------------------------------------- a bad field drops only that field

DOI = "10.5555/kg.2020.001"
WORK_IRI = f"<https://doi.org/{DOI}>"
FIELD_CASES = [
    (dict(title="a string"), "title should be a list of strings, got a string; the field was left out; "
     "fix it at the source", "Graph-based integration"),
    (dict(author="x"), "author should be a list, got a string; the field was left out; fix it at the source",
     "Lovelace"),
    (dict(issued={"date-parts": "2020"}), "issued.date-parts should be a list like [[2024, 5, 1]], got '2020'; "
     "the field was left out; fix it at the source", "<http://purl.org/dc/terms/issued>"),
    (dict(issued={"date-parts": [[2025, 13, 45]]}), "issued.date-parts has an impossible month 13; the field was "
     "left out; fix it at the source", "<http://purl.org/dc/terms/issued>"),
    (dict(issued={"date-parts": [[2023, 2, 29]]}), "issued.date-parts has an impossible day 2023-02-29; the field "
     "was left out; fix it at the source", "<http://purl.org/dc/terms/issued>"),
    (dict(author=[{"given": "Ada", "family": "Lovelace", "sequence": "first",
                   "ORCID": "https://orcid.org/0000-0002-1825-0098"}]),
     'author[0].ORCID "0000-0002-1825-0098" has a bad check digit; it was left out; fix or drop it',
     "0000-0002-1825-009"),
    (dict(reference={}), "reference should be a list, got an object; the field was left out; fix it at the source",
     "/reference/"),
]


@pytest.mark.parametrize(("fields", "warning", "absent"), FIELD_CASES,
                         ids=["title-string", "author-string", "date-parts-string", "impossible-month",
                              "impossible-day", "orcid-check-digit", "reference-object"])
def test_wrong_field_drops_only_that_field_with_a_warning(kg: Kg, fields: dict[str, Any], warning: str,
                                                           absent: str) -> None:
    name = kg.write("rec.json", envelope(work(DOI, **fields)))
    r = kg("build", name)
    assert r.exit_code == 0
    assert_lines(r.stderr, [f"warning: rec.json: {DOI}: {warning}", *kg.summary(1, 1, warnings=1)])
    graph = kg.graph.read_text(encoding="utf-8")
    assert f"{WORK_IRI} <http://prismstandard.org/namespaces/basic/2.0/doi> \"{DOI}\"" in graph
    assert absent not in graph  # the field is gone ...
    assert "Journal of Knowledge Graphs" in graph  # ... and nothing else


def test_quiet_hides_warnings_and_summary(kg: Kg) -> None:
    name = kg.write("rec.json", envelope(work(DOI, title="a string")))
    r = kg("build", "-q", name)
    assert r.exit_code == 0
    assert r.stderr == "" and r.stdout == ""
    assert kg.graph.exists()


def test_timings_name_every_stage_that_ran_in_order(kg: Kg) -> None:
    """--timings adds one line: the wall seconds of each stage, in the order the stages ran (also under -q)."""
    import re
    name = kg.write("rec.json", envelope(work(DOI)))
    sec = r"\d+\.\d\d s"
    r = kg("build", name, "-o", "out.ttl", "--timings")
    assert r.exit_code == 0
    assert re.fullmatch(f"timings: read {sec}, resolve {sec}, map {sec}, merge {sec}, validate {sec}, export {sec}",
                        r.stderr.splitlines()[-1]), r.stderr
    r = kg("build", name, "-q", "--validate", "none", "--timings")
    assert r.exit_code == 0
    assert re.fullmatch(f"timings: read {sec}, resolve {sec}, map {sec}, merge {sec}\n", r.stderr), r.stderr
    r = kg("build", name)
    assert not any(line.startswith("timings:") for line in r.stderr.splitlines())


def test_null_date_parts_is_no_date_and_no_warning(kg: Kg) -> None:
    name = kg.write("rec.json", envelope(work(DOI, issued={"date-parts": [[None]]})))
    r = kg("build", name)
    assert r.exit_code == 0
    assert_lines(r.stderr, [*kg.summary(1, 1)])
    graph = kg.graph.read_text(encoding="utf-8")
    assert WORK_IRI in graph and "<http://purl.org/dc/terms/issued>" not in graph


def test_summary_says_one_warning_in_the_singular(kg: Kg) -> None:
    name = kg.write("rec.json", envelope(work(DOI, title="a string")))
    r = kg("build", name)
    assert r.exit_code == 0
    summary = next(line for line in r.stderr.splitlines() if line.startswith("built "))
    assert "(0 skipped, 0 merged, 1 warning): " in summary


# ---------------------------------------------------------------- empty, corrupt, not JSON


def test_empty_file(kg: Kg) -> None:
    name = kg.write("empty.json", "  \n")
    r = kg("build", name)
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "skipped: empty.json: is empty; leave it out or give a Crossref JSON file", no_usable("empty.json"),
    ])


def test_corrupt_gzip_file(kg: Kg) -> None:
    data = gzip.compress(json.dumps(envelope(work())).encode())
    name = kg.write("works.json.gz", data[: len(data) // 2])
    r = kg("build", name)
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "skipped: works.json.gz: is not a readable gzip file (Compressed file ended before the end-of-stream "
        "marker was reached); re-download or re-compress it",
        no_usable("works.json.gz"),
    ])


def test_good_gzip_file_builds(kg: Kg) -> None:
    name = kg.write("works.json.gz", gzip.compress(json.dumps(envelope(work())).encode()))
    r = kg("build", name)
    assert r.exit_code == 0
    assert_lines(r.stderr, [*kg.summary(1, 1)])


def test_non_json_file_in_a_folder_walk_is_noted_and_ignored(kg: Kg) -> None:
    kg.write("corpus/a.json", envelope(work()))
    kg.write("corpus/README.md", "# Corpus\n\nRecords fetched from api.crossref.org.\n")
    r = kg("build", "corpus")
    assert r.exit_code == 0
    assert_lines(r.stderr, [
        "note: corpus/README.md: not JSON, ignored while reading the folder",
        *kg.summary(1, 1),
    ])


def test_non_json_file_given_explicitly_is_an_error(kg: Kg) -> None:
    name = kg.write("README.md", "# Corpus\n")
    r = kg("build", name)
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "skipped: README.md: line 1, column 1: invalid JSON (unexpected character, expected a JSON value); "
        "fix the file or leave it out",
        no_usable("README.md"),
    ])


# ---------------------------------------------------------------- partial and total failure


def test_one_good_one_bad_record(kg: Kg) -> None:
    good = kg.write("good.json", envelope(work("10.5555/good.1")))
    bad = kg.write("bad.json", envelope(work(DOI=...)))
    r = kg("build", good, bad)
    assert r.exit_code == 1
    assert_lines(r.stderr, [
        "skipped: bad.json: DOI is missing; every work needs one; add it or leave the record out",
        *kg.summary(1, 1, skipped=1),
    ])
    graph = kg.graph.read_text(encoding="utf-8")
    assert "<https://doi.org/10.5555/good.1> " in graph


@pytest.mark.parametrize("where", ["graph-file", "sqlite-tables"])
def test_a_full_disk_is_one_line_and_leaves_the_old_workspace_graph_intact(kg: Kg, monkeypatch: pytest.MonkeyPatch,
                                                                          where: str) -> None:
    """Where the build meets the full disk: writing the graph (an OSError, ENOSPC), or the resolution's
    scratch tables (SQLite's own error, SQLITE_FULL, made real by a database that fills up at once)."""
    import errno

    from kg.infra import outputs
    good = kg.write("good.json", envelope(work("10.5555/good.1")))
    assert kg("build", good).exit_code == 0
    before = kg.graph.read_bytes()
    listing = sorted(p.name for p in kg.home.iterdir())
    if where == "graph-file":
        def full(fd: int) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")
        monkeypatch.setattr(outputs.os, "fsync", full)
        why = "No space left on device"
    else:
        monkeypatch.setenv("KG_FAULT", "resolve:FULL")  # (the resolution database gets two pages: it fills up)
        why = "database or disk is full"
    kg.write("other.json", envelope(work("10.5555/other.1")))
    r = kg("build", "other.json", "-q")
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        f"error: {kg.home}: no space left on the device ({why}); free some space there, or set"
        " KG_HOME (the workspace, where builds keep their scratch files) or -o to a disk with room, and run again;"
        " files being replaced were left as they were"])
    assert kg.graph.read_bytes() == before
    assert sorted(p.name for p in kg.home.iterdir()) == listing  # no temporary file left behind


def test_all_records_bad_leaves_the_old_workspace_graph_intact(kg: Kg) -> None:
    good = kg.write("good.json", envelope(work("10.5555/good.1")))
    assert kg("build", good).exit_code == 0
    before = kg.graph.read_bytes()
    listing = sorted(p.name for p in kg.home.iterdir())
    kg.write("bad1.json", envelope(work(DOI=...)))
    kg.write("bad2.json", "{not json")
    r = kg("build", "bad1.json", "bad2.json", "-o", "out.ttl")
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "skipped: bad1.json: DOI is missing; every work needs one; add it or leave the record out",
        "skipped: bad2.json: line 1, column 2: invalid JSON (unexpected character, expected a string key); fix the "
        "file or leave it out",
        no_usable("bad1.json, bad2.json"),
    ])
    assert kg.graph.read_bytes() == before
    assert sorted(p.name for p in kg.home.iterdir()) == listing  # no temporary file left behind
    assert not (kg.cwd / "out.ttl").exists()


@pytest.mark.parametrize(("bad", "first_problem"), [
    (envelope(work(DOI=...)), "bad.json: DOI is missing; every work needs one; add it or leave the record out"),
    (envelope(work("10.5555/bad.1", title="a string")),
     "bad.json: 10.5555/bad.1: title should be a list of strings, got a string; the field was left out; "
     "fix it at the source"),
], ids=["error", "warning"])
def test_strict_stops_at_the_first_problem_and_writes_nothing(kg: Kg, bad: dict[str, Any],
                                                              first_problem: str) -> None:
    assert kg("build", kg.write("old.json", envelope(work("10.5555/old.1")))).exit_code == 0
    before = kg.graph.read_bytes()
    kg.write("a-good.json", envelope(work("10.5555/good.1")))
    kg.write("bad.json", bad)
    kg.write("z-good.json", envelope(work("10.5555/good.2")))
    r = kg("build", "--strict", "a-good.json", "bad.json", "z-good.json", "-o", "out.nt")
    assert r.exit_code == 2
    assert_lines(r.stderr, [f"error: {first_problem} (--strict: stopped, nothing written)"])
    assert r.stderr.rstrip("\n").endswith("(--strict: stopped, nothing written)")
    assert kg.graph.read_bytes() == before
    assert not (kg.cwd / "out.nt").exists()


def test_strict_ignores_a_readme_in_a_folder(kg: Kg) -> None:
    kg.write("corpus/a.json", envelope(work()))
    kg.write("corpus/README.md", "# Corpus\n")
    r = kg("build", "--strict", "corpus")
    assert r.exit_code == 0
    assert_lines(r.stderr, ["note: corpus/README.md: not JSON, ignored while reading the folder", *kg.summary(1, 1)])


# ---------------------------------------------------------------- duplicates


def test_same_doi_in_two_files_with_different_case_is_merged_order_independently(kg: Kg) -> None:
    older = work("10.5555/KG.Dup.1", title=["First deposit"],
                 deposited={"date-parts": [[2021, 1, 2]], "date-time": "2021-01-02T10:00:00Z"})
    newer = work("10.5555/kg.dup.1", title=["Second deposit"],
                 deposited={"date-parts": [[2022, 3, 4]], "date-time": "2022-03-04T10:00:00Z"})
    kg.write("older.json", envelope(older))
    kg.write("newer.json", envelope(newer))
    note = ("note: older.json: 10.5555/KG.Dup.1: same DOI as newer.json: 10.5555/kg.dup.1; merged into one work, "
            "keeping the record deposited last")
    graphs = []
    for order in (("older.json", "newer.json"), ("newer.json", "older.json")):
        r = kg("build", *order)
        assert r.exit_code == 0
        assert_lines(r.stderr, [note, *kg.summary(1, 2, merged=1)])
        text = kg.graph.read_text(encoding="utf-8")
        assert "Second deposit" in text and "First deposit" not in text
        assert len({line.split(" ", 1)[0] for line in text.splitlines()
                    if line.startswith("<https://doi.org/10.5555/kg.dup.1>")}) == 1
        graphs.append(kg.graph.read_bytes())
    assert graphs[0] == graphs[1]


# ---------------------------------------------------------------- usage errors, export, query


def test_unknown_format_is_a_usage_error(kg: Kg) -> None:
    name = kg.write("good.json", envelope(work()))
    r = kg("build", "-f", "bogus", name)
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "Usage: kg build [OPTIONS] [INPUTS]...",
        "Try 'kg build --help' for help.",
        "",
        "Error: Invalid value for '-f' / '--format': 'bogus' is not one of 'turtle', 'json-ld', 'nt', 'nquads', "
        "'trig', 'xml', 'ttl', 'jsonld', 'nq'.",
    ])
    assert not kg.home.exists()


def test_bad_base_iri(kg: Kg) -> None:
    name = kg.write("good.json", envelope(work()))
    r = kg("build", "--base", "not an iri", name)
    assert r.exit_code == 2
    assert_lines(r.stderr, ["error: --base 'not an iri/' is not an absolute IRI"])
    assert not kg.home.exists()


def test_export_without_a_workspace_graph(kg: Kg) -> None:
    r = kg("export")
    assert r.exit_code == 2
    assert_lines(r.stderr, [f"error: {kg.graph}: no graph here; run 'kg build' first or name a graph file"])
    assert r.stdout == ""


def test_export_after_build_round_trips(kg: Kg) -> None:
    assert kg("build", kg.write("good.json", envelope(work()))).exit_code == 0
    r = kg("export", "-f", "nq")
    assert r.exit_code == 0
    assert r.stdout == kg.graph.read_text(encoding="utf-8")


def test_export_of_a_foreign_nquads_file_keeps_its_triples(kg: Kg) -> None:
    kg.write("foreign.nq", '<http://example.org/s> <http://example.org/p> "hello world" .\n')
    r = kg("export", "foreign.nq", "-f", "nt")
    assert r.exit_code == 0
    assert r.stdout == '<http://example.org/s> <http://example.org/p> "hello world" .\n'


@pytest.mark.parametrize("content", ["garbage\n", "this is not RDF\n"], ids=["one-word", "four-words"])
def test_export_of_a_corrupt_nquads_file(kg: Kg, content: str) -> None:
    kg.write("broken.nq", content)
    r = kg("export", "broken.nq")
    assert r.exit_code == 2
    # the middle is the RDF parser's own message (line and columns); the frame is kg's
    assert_lines(r.stderr,
                 [re.compile(re.escape("error: broken.nq: is not a readable RDF graph (Parser error at line 1 ")
                                       + r".*" + re.escape("); check the file and its format"))])
    assert r.stdout == ""


def test_query_unknown_name(kg: Kg) -> None:
    known = ", ".join(sorted(stored_queries()))
    r = kg("query", "nosuch")
    assert r.exit_code == 2
    assert_lines(r.stderr, [f"error: unknown query 'nosuch'; run 'kg queries' to list them ({known})"])


def test_query_unknown_parameter(kg: Kg) -> None:
    assert kg("build", kg.write("good.json", envelope(work()))).exit_code == 0
    params = ", ".join(p.name for p in stored_queries()["works"].params) or "none"
    r = kg("query", "works", "-p", "nosuch=1")
    assert r.exit_code == 2
    assert_lines(r.stderr, [f"error: query 'works' has no parameter 'nosuch'; its parameters: {params}"])


def test_query_parameter_without_equals(kg: Kg) -> None:
    r = kg("query", "works", "-p", "nosuch")
    assert r.exit_code == 2
    assert_lines(r.stderr, ["error: --param 'nosuch' must look like name=value"])


def test_query_without_a_name(kg: Kg) -> None:
    r = kg("query")
    assert r.exit_code == 2
    assert_lines(r.stderr, [
        "error: give a stored query name, a .rq file, or -e 'SPARQL'; run 'kg queries' to list them"])


def test_query_without_a_workspace_graph(kg: Kg) -> None:
    r = kg("query", "works")
    assert r.exit_code == 2
    assert_lines(r.stderr, [f"error: {kg.graph}: no graph here; run 'kg build' first or pass --graph FILE"])


# ---------------------------------------------------------------- output and workspace paths that cannot be written


def test_output_is_a_directory(kg: Kg) -> None:
    name = kg.write("good.json", envelope(work()))
    (kg.cwd / "out").mkdir()
    r = kg("build", name, "-o", "out")
    assert r.exit_code == 2
    assert_lines(r.stderr, ["error: out: is a directory; give a file name to write to"])
    assert not kg.graph.exists()


def test_workspace_is_a_file(kg: Kg) -> None:
    name = kg.write("good.json", envelope(work()))
    kg.write("home-file", "not a folder")
    r = kg("build", name, env={"KG_HOME": str(kg.cwd / "home-file")})
    assert r.exit_code == 2
    assert_lines(r.stderr, [f"error: {kg.cwd / 'home-file' / 'graph.nq'}: cannot be written ({kg.cwd / 'home-file'} "
                            "is a file, not a folder); choose another path"])
    assert (kg.cwd / "home-file").read_text() == "not a folder"


def test_file_name_that_is_not_utf8(kg: Kg) -> None:
    kg.write("corpus/good.json", envelope(work("10.5555/good.1")))
    (kg.cwd / "corpus" / os.fsdecode(b"caf\xe9.json")).write_text(json.dumps(envelope(work("10.5555/good.2"))))
    r = kg("build", "corpus")
    assert r.exit_code == 0, r.stderr
    assert_lines(r.stderr, [*kg.summary(2, 2)])
    graph = kg.graph.read_text(encoding="utf-8")
    assert "<https://doi.org/10.5555/good.1> " in graph and "<https://doi.org/10.5555/good.2> " in graph
    assert '"corpus/caf\ufffd.json"' in graph  # the undecodable byte is shown as U+FFFD, never written raw


def test_file_name_with_a_control_character_gives_valid_rdf_xml(kg: Kg) -> None:
    import rdflib

    name = kg.write("odd\x01name.json", envelope(work()))
    r = kg("build", name, "-o", "out.rdf")
    assert r.exit_code == 0
    assert_lines(r.stderr, [*kg.summary(1, 1, output="out.rdf")])
    rdflib.Graph().parse(str(kg.cwd / "out.rdf"), format="xml")
    assert "\x01" not in kg.graph.read_text(encoding="utf-8")


def test_control_character_in_a_relation_type_gives_valid_rdf_xml(kg: Kg) -> None:
    import rdflib

    record = work(relation={"is-\u0000-of": [{"id-type": "doi", "id": "10.5555/other", "asserted-by": "subject"}]})
    name = kg.write("rel.json", envelope(record))
    r = kg("build", name, "-o", "out.rdf")
    assert r.exit_code == 0
    assert_lines(r.stderr, [*kg.summary(1, 1, output="out.rdf")])
    rdflib.Graph().parse(str(kg.cwd / "out.rdf"), format="xml")


@pytest.mark.parametrize("record", [
    work("10.5555/line\nbreak", title="a string"),
    work("11.5555/line\nbreak"),
], ids=["valid-prefix", "malformed"])
def test_line_break_in_a_doi_never_splits_a_message(kg: Kg, record: dict[str, Any]) -> None:
    name = kg.write("rec.json", envelope(record))
    r = kg("build", name)
    for line in r.stderr.splitlines():
        assert line.startswith(("skipped: rec.json: ", "warning: rec.json: ", "error: ", "built ",
                                "validation: ")), line


# ---------------------------------------------------------------- version and documentation


def test_version(kg: Kg) -> None:
    r = kg("--version")
    assert r.exit_code == 0
    assert r.stdout == "crossref-kg 0.1.0\n"


def _commands() -> list[str]:
    return sorted(main.commands)


@pytest.mark.parametrize("command", ["", *_commands()])
def test_every_command_is_documented_with_an_example(kg: Kg, command: str) -> None:
    for flag in ("--help", "-h"):
        r = kg(*([command] if command else []), flag)
        assert r.exit_code == 0
        assert "Example:" in r.stdout, f"kg {command} {flag} shows no example"
        assert r.stderr == ""
    if command:
        assert isinstance(main.commands[command], click.Command)
        assert (main.commands[command].help or "").strip(), f"kg {command} has no help text"

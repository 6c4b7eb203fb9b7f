"""Values kg meets in records and graphs that it must neither hide nor choke on (issue 45): ill-typed literals
(items 11), a DOI holding control characters (item 9), a literal larger than the RDF readers take (item 2).

Output on standard error is checked in whole processes: rdflib logs through the logging module, which a test
runner's capture would hide.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_errors import Kg, kg  # noqa: F401 - kg is a fixture

KG = str(Path(sys.executable).parent / "kg")
XSD = "http://www.w3.org/2001/XMLSchema#"
ILL_TYPED = (f'<https://example.org/w> <https://schema.org/datePublished> "2025-13-45"^^<{XSD}date> .\n'
             f'<https://example.org/w> <https://schema.org/position> "abc"^^<{XSD}integer> .\n'
             f'<https://example.org/w> <https://schema.org/name> "W" .\n')


def _kg(*args: str, cwd: Path, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KG_HOME": str(home or cwd / "ws")}
    return subprocess.run([KG, *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_ill_typed_literals_give_no_traceback(tmp_path: Path) -> None:
    """Validating a graph with ``"2025-13-45"^^xsd:date`` and ``"abc"^^xsd:integer`` prints kg's report alone;
    a query that compares them prints its answer and one note, never rdflib's logged tracebacks."""
    graph = tmp_path / "ill.nq"
    graph.write_text(ILL_TYPED, encoding="utf-8")
    for fmt in ("text", "json", "turtle"):
        r = _kg("validate", str(graph), "-f", fmt, cwd=tmp_path)
        assert (r.returncode, r.stderr) == (0, ""), (fmt, r.stderr)
    r = _kg("query", "--graph", str(graph), "--engine", "rdflib", "-f", "csv",
            "-e", "SELECT ?o WHERE { ?s ?p ?o FILTER(?o > 3) }", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ("note: the graph holds literals not valid for their datatype (xsd:date, xsd:integer); queries"
                        " treat them as values of no known type; fix the data that holds them ('kg validate' lists"
                        " those the shapes constrain)\n")


def test_doi_with_control_characters_is_a_skipped_record(kg: Kg, tmp_path: Path) -> None:
    """A NUL, an escape sequence, a C1 control or a tab inside ``DOI`` skips the record in one line naming the
    file, the record, the field and the character; the record is never built under the DOI without it."""
    import json
    dois = ["10.1000/a\x00b", "10.1000/c\x1b[2Jd", "10.1000/e\x9bf", "10.1000/g\th", "10.1000/ok"]
    (kg.cwd / "recs.jsonl").write_text("".join(json.dumps({"DOI": d, "type": "journal-article", "title": [d]}) + "\n"
                                               for d in dois), encoding="utf-8")
    r = kg("build", "recs.jsonl")
    assert r.exit_code == 1, r.output  # (records were skipped)
    why = "without it, it would be another DOI; fix the DOI or leave the record out"
    assert r.stderr.splitlines()[:4] == [
        f'skipped: recs.jsonl: line 1: DOI "10.1000/a\\x00b" holds a control character (U+0000); {why}',
        f'skipped: recs.jsonl: line 2: DOI "10.1000/c\\x1b[2Jd" holds a control character (U+001B); {why}',
        f'skipped: recs.jsonl: line 3: DOI "10.1000/e\\x9bf" holds a control character (U+009B); {why}',
        f'skipped: recs.jsonl: line 4: DOI "10.1000/g\\th" holds a control character (U+0009); {why}',
    ]
    graph = kg.graph.read_text(encoding="utf-8")
    assert "10.1000/ok" in graph
    assert not any(d in graph for d in ("10.1000/ab", "10.1000/c[2Jd", "10.1000/c%1B", "10.1000/e%C2%9Bf",
                                        "10.1000/gh"))


def _abstract_record(kg: Kg, chars: int, piece: str) -> tuple[str, int]:
    """A real record (the eLife sample) with an abstract of ``chars`` characters of ``piece`` repeated, written
    to ``big.json``: (its DOI, the abstract's length)."""
    import json

    from conftest import SAMPLES
    rec = json.loads((SAMPLES / "article_elife.01567.json").read_text(encoding="utf-8"))
    rec = rec.get("message", rec)
    text = (piece * (chars // len(piece) + 1))[:chars]
    rec["abstract"] = text
    (kg.cwd / "big.json").write_text(json.dumps(rec, ensure_ascii=False), encoding="utf-8")
    return rec["DOI"], len(text)


def _every_reader_takes_it(kg: Kg, doi: str, length: int) -> None:
    """Build with a store and an export, then query, validate, export and report: each works, one warning."""
    from kg.ingest.text import MAX_VALUE
    r = kg("build", "big.json", "--store", "st", "-o", "out.ttl")
    assert r.exit_code == 0, r.output
    assert [line for line in r.stderr.splitlines() if line.startswith("warning: ")] == [
        f"warning: big.json: {doi.lower()}: abstract holds {length:,} characters, more than the {MAX_VALUE:,} kg keeps"
        f" of one value; it was cut to its first {MAX_VALUE:,} characters; fix it at the source"]
    count = "SELECT (STRLEN(?a) AS ?n) WHERE { ?w <http://purl.org/dc/terms/abstract> ?a }"
    for source in ([], ["--store", "st"], ["--graph", "out.ttl"], ["--engine", "rdflib"]):
        q = kg("query", *source, "-f", "csv", "-e", count)
        assert q.exit_code == 0 and int(q.stdout.split()[1]) <= MAX_VALUE, (source, q.output)
    assert kg("stats").exit_code == 0
    assert kg("validate").exit_code == 0
    for fmt in ("jsonld", "nt", "trig"):
        assert kg("export", "-f", fmt, "-o", f"out.{fmt}").exit_code == 0
        assert kg("validate", f"out.{fmt}").exit_code == 0, fmt
    assert kg("report", "-o", "r.html").exit_code == 0


def test_a_value_over_the_limit_is_cut_and_every_reader_takes_the_graph(kg: Kg, monkeypatch: pytest.MonkeyPatch
                                                                         ) -> None:
    """Just over the limit, in characters that grow the most when written (4 UTF-8 bytes, escaped quotes and
    backslashes): the build cuts it with one warning naming the record and the field, and the workspace, the
    store and the exports read back everywhere."""
    from kg.ingest.text import MAX_VALUE
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")  # (the reference engine's patterns on 1 MiB values: minutes)
    _every_reader_takes_it(kg, *_abstract_record(kg, MAX_VALUE + 1, '\U0001d538"\\\U0001d539'))


@pytest.mark.slow
def test_a_50_mb_abstract(kg: Kg, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 45's record: a 50 MB abstract (above the 16 MiB one value Oxigraph reads) builds, and the workspace,
    the store and the exports read back."""
    monkeypatch.setenv("KG_SHACL_ENGINE", "fast")
    _every_reader_takes_it(kg, *_abstract_record(kg, 50_000_000, "Lorem ipsum dolor sit amet é 𝔸 "))

"""A record's data never blocks a build: one case per shape constraint that record data can break.

Each case takes a real record (the eLife sample), gives it a DOI of its own and one defect a shape in
shapes/ would reject, and builds it beside a good real record (the DIN standard sample). The build
exits 0 (1 when the defect makes the record unusable: a DOI that is no DOI), prints exactly the one-line
warning, keeps the good record, keeps the publisher's value where the issue asks for it (kg:asWritten, or the
page-range literal), and the graph conforms (validation runs on the whole graph: a violation would exit 3).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from kg.cli import main

GOOD = SAMPLES / "standard_2640440.json"
BASE = SAMPLES / "article_elife.01567.json"
DOI = "10.5555/defect.1"
WORK = f"<https://doi.org/{DOI}>"
AS_WRITTEN = "<https://w3id.org/crossref-kg/ontology#asWritten>"
PRISM = "http://prismstandard.org/namespaces/basic/2.0/"


def base() -> dict[str, Any]:
    record = copy.deepcopy(json.loads(BASE.read_text(encoding="utf-8"))["message"])
    record["DOI"] = DOI
    record["URL"] = f"https://doi.org/{DOI}"
    return record


def setter(**fields: Any) -> Callable[[dict[str, Any]], None]:
    def apply(r: dict[str, Any]) -> None:
        for k, v in fields.items():
            r[k.replace("_", "-")] = v
    return apply


def funder_doi(doi: str) -> Callable[[dict[str, Any]], None]:
    def apply(r: dict[str, Any]) -> None:
        r["funder"] = [{"name": "Some Funder", "DOI": doi}]
    return apply


def licence_start(dt: str) -> Callable[[dict[str, Any]], None]:
    def apply(r: dict[str, Any]) -> None:
        r["license"] = [{"URL": "https://creativecommons.org/licenses/by/4.0/",
                         "start": {"date-parts": [[2014, 2, 11]], "date-time": dt},
                         "content-version": "vor", "delay-in-days": 0}]
    return apply


def duplicate_key(r: dict[str, Any]) -> None:
    r["reference"] = [{"key": "bib1", "unstructured": "A. Author. First paper. J. Things 1 (2001)."},
                      {"key": "bib1", "unstructured": "B. Author. Second paper. J. Things 2 (2002)."}]


def event_backwards(r: dict[str, Any]) -> None:
    r["event"] = {"name": "Conference on Things", "start": {"date-parts": [[2024, 5, 10]]},
                  "end": {"date-parts": [[2024, 5, 1]]}}


def orcid(value: str) -> Callable[[dict[str, Any]], None]:
    def apply(r: dict[str, Any]) -> None:
        r["author"] = [{"given": "Ada", "family": "Lovelace", "sequence": "first", "ORCID": value}]
    return apply


def issued(*parts: Any) -> Callable[[dict[str, Any]], None]:
    return setter(issued={"date-parts": [list(parts)]})


def grant_amount(amount: str) -> Callable[[dict[str, Any]], None]:
    def apply(r: dict[str, Any]) -> None:
        r["type"] = "grant"
        r["project"] = [{"project-title": [{"title": "A project"}],
                         "award-amount": {"amount": amount, "currency": "EUR"}}]
    return apply


def assertion_order(order: Any) -> Callable[[dict[str, Any]], None]:
    def apply(r: dict[str, Any]) -> None:
        r["assertion"] = [{"name": "received", "value": "2020-01-01", "order": order}]
    return apply


def unicode_year_reference(r: dict[str, Any]) -> None:
    r["reference"] = [{"key": "bib1", "unstructured": "Smith J. (٢٠٢٠). A title of a paper. Journal of Things."},
                      {"key": "bib2", "author": "Smith", "year": "١٩٩٩", "article-title": "Another title"}]


W = f"bad.json: {DOI}: "
KEPT = "it is kept as written (kg:asWritten); fix it at the source"
LEFT = "the field was left out; fix it at the source"

# (case id, the shape constraint it breaks, defect, expected warning lines, kept values (N-Triples fragments))
CASES: list[tuple[str, str, Callable[[dict[str, Any]], None], list[str], list[str]]] = [
    ("type-unknown", "work.ttl WorkShape kg:crossrefType sh:in", setter(type="journal-articel"),
     [W + 'type "journal-articel" is not a Crossref type; the work is mapped as type \'other\', the type kept as'
          " written (kg:asWritten)"],
     [f'{AS_WRITTEN} "type: journal-articel"', '<https://w3id.org/crossref-kg/ontology#crossrefType> "other"']),
    ("type-numeric", "work.ttl WorkShape kg:crossrefType sh:in", setter(type=17),
     [W + 'type "17" is not a Crossref type; the work is mapped as type \'other\', the type kept as written'
          " (kg:asWritten)"],
     [f'{AS_WRITTEN} "type: 17"']),
    ("page-reversed", "work.ttl WorkShape SPARQL first page after last page", setter(page="200-100"),
     [W + 'page "200-100" has its first page after its last; it is kept as the page range, without start and'
          " end pages; fix it at the source"],
     [f'<{PRISM}pageRange> "200-100"']),
    ("reference-key-twice", "work.ttl WorkShape SPARQL two references with the same key", duplicate_key,
     [W + 'reference[1].key "bib1" is also the key of reference[0]; the reference is kept without it, the key'
          " kept as written (kg:asWritten); fix it at the source"],
     [f'{AS_WRITTEN} "reference[1].key: bib1"']),
    ("created-impossible", "work.ttl WorkShape record dates sh:datatype xsd:dateTime",
     setter(created={"date-parts": [[2014, 2, 30]], "date-time": "2014-02-30T10:00:00Z"}),
     [W + 'created.date-time "2014-02-30T10:00:00Z" is not a valid ISO date-time; ' + KEPT],
     [f'{AS_WRITTEN} "created.date-time: 2014-02-30T10:00:00Z"']),
    ("deposited-hour-25", "work.ttl WorkShape record dates sh:datatype xsd:dateTime",
     setter(deposited={"date-time": "2014-02-11T25:00:00Z"}),
     [W + 'deposited.date-time "2014-02-11T25:00:00Z" is not a valid ISO date-time; ' + KEPT],
     [f'{AS_WRITTEN} "deposited.date-time: 2014-02-11T25:00:00Z"']),
    ("indexed-unicode-digits", "work.ttl WorkShape record dates sh:datatype xsd:dateTime",
     setter(indexed={"date-time": "٢٠٢٤-01-01T00:00:00Z"}),
     [W + 'indexed.date-time "٢٠٢٤-01-01T00:00:00Z" is not a valid ISO date-time; ' + KEPT],
     [f'{AS_WRITTEN} "indexed.date-time: ٢٠٢٤-01-01T00:00:00Z"']),
    ("count-superscript", "work.ttl WorkShape counts xsd:integer", setter(reference_count="²"),
     [W + "reference-count should be an integer, got '²'; " + LEFT], []),
    ("count-5000-digits", "work.ttl WorkShape counts xsd:integer", setter(is_referenced_by_count="9" * 5000),
     [W + "is-referenced-by-count is too large a number (5000 digits); " + LEFT], []),
    ("count-negative", "work.ttl WorkShape counts sh:minInclusive 0", setter(is_referenced_by_count=-3),
     [W + "is-referenced-by-count is negative (-3); " + LEFT], []),
    ("issued-5000-digit-year", "work.ttl DateValue (dcterms:issued)", issued("2" * 5000, 1),
     [W + "issued.date-parts has an impossible part (5000 digits); " + LEFT], []),
    ("issued-superscript-month", "work.ttl DateValue (dcterms:issued)", issued(2020, "²"),
     [W + "issued.date-parts has a non-numeric part '²'; " + LEFT], []),
    ("issued-impossible-day", "work.ttl DateValue (dcterms:issued)", issued(2021, 2, 29),
     [W + "issued.date-parts has an impossible day 2021-02-29; " + LEFT], []),
    ("doi-unicode-prefix", "work.ttl WorkShape prism:doi sh:pattern", setter(DOI="10.٧٥٥٤/elife.01567"),
     ['bad.json: DOI "10.٧٥٥٤/elife.01567" is malformed (expected 10.NNNN/suffix); fix it or leave the record'
      " out"], []),
    ("issn-unicode-digits", "identifiers.ttl ISSNShape sh:pattern", setter(ISSN=["٢٠٥٠-084X"], issn_type=[]),
     [W + 'ISSN[0] "٢٠٥٠-084X" is not a valid ISSN; ' + LEFT], []),
    ("issn-check-digit", "identifiers.ttl ISSNShape SPARQL check digit", setter(ISSN=["2050-0840"], issn_type=[]),
     [W + 'ISSN[0] "2050-0840" has a bad check digit; ' + LEFT], []),
    ("isbn-unicode-digits", "identifiers.ttl ISBNShape sh:pattern", setter(ISBN=["٩٧٨٠٣٠٦٤٠٦١٥٧"]),
     [W + 'ISBN[0] "٩٧٨٠٣٠٦٤٠٦١٥٧" is not a valid ISBN; ' + LEFT], []),
    ("isbn-13-not-978", "identifiers.ttl ISBNShape sh:pattern 97[89]", setter(ISBN=["1234567890128"]),
     [W + 'ISBN[0] "1234567890128" is not a valid ISBN; ' + LEFT], []),
    ("isbn-13-check-digit", "identifiers.ttl ISBNShape SPARQL ISBN-13 check digit", setter(ISBN=["9780306406158"]),
     [W + 'ISBN[0] "9780306406158" has a bad check digit; ' + LEFT], []),
    ("isbn-10-check-digit", "identifiers.ttl ISBN10Shape SPARQL check digit", setter(ISBN=["0306406153"]),
     [W + 'ISBN[0] "0306406153" has a bad check digit; ' + LEFT], []),
    ("funder-doi-other-prefix", "funding.ttl FunderShape frapo:hasFunderIdentifier sh:pattern",
     funder_doi("10.5555/501100001711"),
     [W + 'funder[0].DOI "10.5555/501100001711" is not a Funder Registry DOI (10.13039/...); ' + KEPT],
     [f'{AS_WRITTEN} "funder[0].DOI: 10.5555/501100001711"']),
    ("funder-doi-space", "funding.ttl FunderShape frapo:hasFunderIdentifier sh:pattern",
     funder_doi("10.13039/5011 00001711"),
     [W + 'funder[0].DOI "10.13039/5011 00001711" is not a Funder Registry DOI (10.13039/...); ' + KEPT],
     [f'{AS_WRITTEN} "funder[0].DOI: 10.13039/5011 00001711"']),
    ("amount-unicode-digits", "funding.ttl AmountShape schema:value xsd:decimal", grant_amount("١٠٠٠"),
     [W + 'project[0].award-amount.amount "١٠٠٠" is not a decimal number; ' + KEPT],
     [f'{AS_WRITTEN} "project[0].award-amount.amount: ١٠٠٠"']),
    ("licence-start-impossible", "rights.ttl LicenseStatementShape schema:startDate datatypes",
     licence_start("2014-02-31T00:00:00Z"),
     [W + 'license[0].start.date-time "2014-02-31T00:00:00Z" is not a valid ISO date-time; ' + KEPT],
     [f'{AS_WRITTEN} "license[0].start.date-time: 2014-02-31T00:00:00Z"']),
    ("licence-delay-negative", "rights.ttl LicenseStatementShape kg:delayInDays sh:minInclusive 0",
     lambda r: (licence_start("2014-02-11T00:00:00Z")(r), r["license"][0].update({"delay-in-days": -5})),
     [W + "license[0].delay-in-days is negative (-5); " + LEFT], []),
    ("orcid-unicode-digits", "person.ttl PersonShape frapo:hasORCID sh:pattern", orcid("٠٠٠٠-0002-1825-0097"),
     [W + "author[0].ORCID '٠٠٠٠-0002-1825-0097' is not an ORCID iD; it was left out; fix or drop it"], []),
    ("event-ends-before-start", "event.ttl EventShape SPARQL ends before it starts", event_backwards,
     [W + "event.end 2024-05-01 is before the start 2024-05-10; " + KEPT],
     [f'{AS_WRITTEN} "event.end: 2024-05-01"']),
    ("assertion-order-superscript", "relations.ttl AssertionShape kg:assertionOrder xsd:integer",
     assertion_order("²"), [W + "assertion[0].order should be an integer, got '²'; " + LEFT], []),
    ("reference-unicode-year", "reference.ttl ReferenceShape kg:parsedYear xsd:gYear", unicode_year_reference,
     [], []),
]


@pytest.mark.parametrize("case, constraint, defect, warnings, kept", CASES, ids=[c[0] for c in CASES])
def test_defect_beside_good_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, constraint: str,
                                   defect: Callable[[dict[str, Any]], None], warnings: list[str],
                                   kept: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "ws"
    record = base()
    defect(record)
    (tmp_path / "bad.json").write_text(json.dumps({"message": record}, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "good.json").write_bytes(GOOD.read_bytes())
    result = CliRunner().invoke(main, ["build", "bad.json", "good.json", "--validate", "full"],
                                env={"KG_HOME": str(home)}, prog_name="kg")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    skipped = any(not w.startswith(W) for w in warnings)
    assert result.exit_code == (1 if skipped else 0), (constraint, result.output)
    lines = result.stderr.splitlines()
    problems = [line.split(": ", 1)[1] for line in lines if line.startswith(("warning: ", "skipped: "))]
    assert problems == warnings, (constraint, result.output)
    assert re.fullmatch(r"validation: valid: no violations(, no warnings| \(\d+ warnings?: [^;]+\); kg validate "
                        r"--severity warning lists them)", lines[-1]), lines[-1]
    graph = (home / "graph.nq").read_text(encoding="utf-8")
    assert "<https://doi.org/10.31030/2640440> <http://prismstandard.org/namespaces/basic/2.0/doi>" in graph
    if not skipped:
        assert f"{WORK} <{PRISM}doi>" in graph
    for fragment in kept:
        assert f"{WORK} {fragment}" in graph, fragment


def test_reversed_page_range_has_no_start_or_end_page() -> None:
    from kg.ingest.text import page_bounds
    assert page_bounds("200-100") == (None, None, True)
    assert page_bounds("0099-100") == ("0099", "100", False)
    assert page_bounds("e1234") == ("e1234", None, False)
    assert page_bounds("12, 14") == (None, None, False)
    assert page_bounds("x-1") == ("x", "1", False)
    assert page_bounds("٥-٣") == ("٥", "٣", False)  # (no ASCII digits: the shape's [0-9] check does not apply)


def test_datetime_ok_is_xsd_datetime() -> None:
    from kg.ingest.dates import datetime_ok
    assert datetime_ok("2024-02-29T23:59:59.123Z") and datetime_ok("2024-01-01T00:00:00+14:00")
    for bad in ("2023-02-29T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2024-01-01T00:00:60Z",
                "0000-01-01T00:00:00Z", "2024-01-01T00:00:00+15:00", "2024-13-01T00:00:00Z", "٢٠٢٤-01-01T00:00:00Z"):
        assert not datetime_ok(bad), bad


def test_remaining_violations_name_the_records_and_the_advice_works(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """What normalize lets through and a shape still rejects is the mapper's (here: a stricter --shapes): exit 3,
    the records named, nothing written, and the advised commands (--allow-invalid, then kg validate) work."""
    monkeypatch.chdir(tmp_path)
    env = {"KG_HOME": str(tmp_path / "ws")}
    record = base()
    (tmp_path / "bad.json").write_text(json.dumps({"message": record}), encoding="utf-8")
    (tmp_path / "good.json").write_bytes(GOOD.read_bytes())
    strict = tmp_path / "strict"
    strict.mkdir()
    (strict / "s.ttl").write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix prism: <http://prismstandard.org/namespaces/basic/2.0/> "
        ".\n"
        "<urn:s> a sh:NodeShape ; sh:targetSubjectsOf prism:doi ; sh:property [ sh:path prism:doi ; "
        "sh:name \"doi\" ; sh:pattern \"^10[.]5555/\" ; sh:message \"Only test DOIs.\" ] .\n", encoding="utf-8")
    runner = CliRunner()
    r = runner.invoke(main, ["build", "-q", "good.json", "bad.json", "--shapes", str(strict)], env=env, prog_name="kg")
    assert r.exit_code == 3
    assert r.stderr.splitlines() == [
        "error: the graph has 1 violation (first: https://doi.org/10.31030/2640440: Only test DOIs.) in 1 record"
        " (10.31030/2640440); nothing was written; this is a mapping bug (or a shape of --shapes), not a problem of"
        " the records: please report it; to list every violation, run the build again with --allow-invalid, then"
        " 'kg validate'"]
    assert not (tmp_path / "ws" / "graph.nq").exists()
    r = runner.invoke(main, ["build", "-q", "good.json", "bad.json", "--shapes", str(strict), "--allow-invalid"],
                      env=env, prog_name="kg")
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["validate", "--shapes", str(strict)], env=env, prog_name="kg")
    assert r.exit_code == 1 and "Only test DOIs." in r.output and "10.31030/2640440" in r.output

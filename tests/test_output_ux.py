"""What a person sees from ``kg query``: tables sized for where they go, paging in the SPARQL, parameters
people can type, ad-hoc SPARQL with the standard prefixes, and the W3C result formats (issue 26)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kg.cli import main

GRAPH = """\
<https://doi.org/10.1145/2024716.2024718> <https://schema.org/name> "A very long title about profiling parallel programs on many cores" .
<https://doi.org/10.1145/2024716.2024718> <https://schema.org/isPartOf> "Proceedings of the International Symposium on Code Generation" .
<https://doi.org/10.1109/cgo.2004.1281665> <https://schema.org/name> "LLVM: a compilation framework" .
<https://doi.org/10.1109/cgo.2004.1281665> <https://schema.org/isPartOf> "CGO" .
"""
TITLES = ("SELECT ?w ?title ?venue WHERE { ?w <https://schema.org/name> ?title ; <https://schema.org/isPartOf> ?venue }"
          " ORDER BY ?w")


@pytest.fixture
def graph(tmp_path: Path) -> Path:
    p = tmp_path / "g.nt"
    p.write_text(GRAPH, encoding="utf-8")
    return p


def kg(*args: str, **env: str) -> Result:
    r = CliRunner().invoke(main, list(args), env={"KG_TERMINAL": "0", **env}, prog_name="kg")
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output
    return r


# ---------------------------------------------------------------- tables that fit the reader

WHOLE = """\
w                                         title                                                              venue
----------------------------------------  -----------------------------------------------------------------  -------------------------------------------------------------
https://doi.org/10.1109/cgo.2004.1281665  LLVM: a compilation framework                                      CGO
https://doi.org/10.1145/2024716.2024718   A very long title about profiling parallel programs on many cores  Proceedings of the International Symposium on Code Generation
(2 rows)
"""


def test_a_table_off_a_terminal_is_whole(graph: Path, tmp_path: Path) -> None:
    r = kg("query", "-g", str(graph), "-e", TITLES)
    assert (r.exit_code, r.stdout, r.stderr) == (0, WHOLE, "")
    # a "terminal" of 60 columns does not matter when the output is not one
    assert kg("query", "-g", str(graph), "-e", TITLES, COLUMNS="60").stdout == WHOLE


def test_a_table_on_a_narrow_terminal_shortens_text_not_identifiers(graph: Path) -> None:
    r = kg("query", "-g", str(graph), "-e", TITLES, KG_TERMINAL="1", COLUMNS="60")
    assert r.exit_code == 0
    assert r.stdout == """\
w                                         title     venue
----------------------------------------  --------  --------
https://doi.org/10.1109/cgo.2004.1281665  LLVM: a…  CGO
https://doi.org/10.1145/2024716.2024718   A very …  Proceed…
(2 rows)
(values shortened to fit the terminal; --wide shows them whole)
"""


def test_the_widest_text_column_is_shortened_first(graph: Path) -> None:
    r = kg("query", "-g", str(graph), "-e", TITLES, KG_TERMINAL="1", COLUMNS="150")
    assert r.stdout == """\
w                                         title                                                  venue
----------------------------------------  -----------------------------------------------------  -----------------------------------------------------
https://doi.org/10.1109/cgo.2004.1281665  LLVM: a compilation framework                          CGO
https://doi.org/10.1145/2024716.2024718   A very long title about profiling parallel programs …  Proceedings of the International Symposium on Code G…
(2 rows)
(values shortened to fit the terminal; --wide shows them whole)
"""
    assert max(len(line) for line in r.stdout.splitlines()) <= 150


def test_a_table_on_a_wide_terminal_is_whole_and_wide_shows_all(graph: Path) -> None:
    assert kg("query", "-g", str(graph), "-e", TITLES, KG_TERMINAL="1", COLUMNS="200").stdout == WHOLE
    assert kg("query", "-g", str(graph), "-e", TITLES, "--wide", KG_TERMINAL="1", COLUMNS="60").stdout == WHOLE


def test_a_doi_literal_is_an_identifier_too(tmp_path: Path) -> None:
    g = tmp_path / "d.nt"
    g.write_text('<https://x.org/a> <https://schema.org/identifier> "10.1145/2024716.2024718-with-a-long-suffix" .\n'
                 '<https://x.org/a> <https://schema.org/name> "Some title of many words" .\n', encoding="utf-8")
    q = "SELECT ?doi ?title WHERE { ?w <https://schema.org/identifier> ?doi ; <https://schema.org/name> ?title }"
    assert kg("query", "-g", str(g), "-e", q, KG_TERMINAL="1", COLUMNS="40").stdout == """\
doi                                         title
------------------------------------------  --------
10.1145/2024716.2024718-with-a-long-suffix  Some ti…
(1 row)
(values shortened to fit the terminal; --wide shows them whole)
"""


# ---------------------------------------------------------------- paging in the SPARQL


def test_limit_and_offset_go_into_the_query_sent(graph: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kg import api
    sent: list[str] = []
    real = api.query_oxigraph

    def spy(store, text):  # type: ignore[no-untyped-def]
        sent.append(text)
        return real(store, text)

    monkeypatch.setattr(api, "query_oxigraph", spy)
    q = "SELECT ?w ?title WHERE { ?w <https://schema.org/name> ?title } ORDER BY ?w"
    r = kg("query", "-g", str(graph), "-e", q, "--limit", "1", "--offset", "1", "-f", "csv")
    assert r.exit_code == 0
    assert r.stdout.splitlines() == ["w,title", "https://doi.org/10.1145/2024716.2024718,"
                                     "A very long title about profiling parallel programs on many cores"]
    assert sent == [q + "\nLIMIT 1 OFFSET 1\n"]


def test_a_query_with_its_own_limit_becomes_a_subquery_of_the_page() -> None:
    from kg.queries import paged
    q = "PREFIX s: <https://schema.org/>\n# c\nSELECT ?w WHERE { ?w s:name ?t } ORDER BY ?w LIMIT 5"
    assert paged(q, 2, 3) == ("PREFIX s: <https://schema.org/>\n# c\n\nSELECT * WHERE {\n"
                              "SELECT ?w WHERE { ?w s:name ?t } ORDER BY ?w LIMIT 5\n} LIMIT 2 OFFSET 3\n")
    assert paged(q, None, None) == q
    # a LIMIT inside a string or a subquery is not the outer query's
    q2 = 'SELECT ?w WHERE { { SELECT ?w WHERE { ?w ?p "LIMIT 3" } LIMIT 3 } } ORDER BY ?w'
    assert paged(q2, 1, 0) == q2 + "\nLIMIT 1\n"


def test_limit_and_offset_page_a_stored_query(graph: Path, tmp_path: Path) -> None:
    whole = kg("query", "-g", str(graph), "-e", TITLES, "-f", "json")
    import json
    rows = json.loads(whole.stdout)["results"]["bindings"]
    page = json.loads(kg("query", "-g", str(graph), "-e", TITLES, "-f", "json", "--offset", "1").stdout)
    assert page["results"]["bindings"] == rows[1:]
    assert kg("query", "-g", str(graph), "-e", TITLES, "--limit", "-1").exit_code == 2

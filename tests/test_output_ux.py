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

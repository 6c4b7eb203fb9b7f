"""A listing sorted outside the engine (kg/query/order.py, kg.query.index._sorted_rows) against Oxigraph's own
ORDER BY and DISTINCT: the differential oracle is the engine itself, on generated values of every kind."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kg.query.index import _sorted_rows
from kg.query.order import unordered

XSD = "http://www.w3.org/2001/XMLSchema#"

_text = st.text(alphabet=st.sampled_from(list("aAbBzZ09 -_.\u00e9\u00c9\u03a3\u03c3\u0130\u00df\U0001f600\t\"\\")),
                max_size=6)


def _string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '"'


# One column of values Oxigraph orders consistently: numbers of every type, or strings, language strings, IRIs and
# blank nodes (a number against a string compares as neither: the engine's own order is not transitive there).
_number = st.one_of(
    st.integers(-2**63, 2**63 - 1).map(str),
    st.decimals(min_value=-1000, max_value=1000, places=3, allow_nan=False).map(lambda d: f'"{d:f}"^^<{XSD}decimal>'),
    st.floats(allow_nan=False, width=32).map(lambda f: f'"{f!r}"^^<{XSD}double>'.replace("inf", "INF")),
    st.integers(0, 300).map(lambda i: f'"{i}"^^<{XSD}int>'),
    st.just("UNDEF"),
)
_term = st.one_of(
    _text.map(_string),
    st.tuples(_text, st.sampled_from(["en", "de", "en-gb"])).map(lambda t: f"{_string(t[0])}@{t[1]}"),
    _text.map(lambda s: f"<http://x/{s.encode('utf-8').hex()}{s[:1].isalpha() and 'Z' or ''}>"),
    st.integers(0, 5).map(lambda i: f'"{i}"^^<{XSD}boolean>' if i < 2 else f"<urn:n:{i}>"),
    st.just("UNDEF"),
)


def _values(rows: list[tuple[str, str, str]]) -> str:
    return " ".join(f"({n} {a} {b} {c})" for n, (a, b, c) in enumerate(rows))


def _both(tmp_path: Path, text: str) -> tuple[list[str], list[str]]:
    store = ox.Store()
    engine = store.query(text)
    assert isinstance(engine, ox.QuerySolutions)
    out = tmp_path / "engine.tsv"
    engine.serialize(str(out), format=ox.QueryResultsFormat.TSV)
    want = out.read_text(encoding="utf-8").split("\n")[1:-1]
    assert unordered(text) is not None
    columns, rows = _sorted_rows(store, text, tmp_path / "work")
    return want, list(rows)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(_number, _term, _term), max_size=25))
def test_rows_sorted_on_disk_come_in_the_engines_order(tmp_path: Path, rows: list[tuple[str, str, str]]) -> None:
    text = (f"SELECT ?a ?b ?c WHERE {{ VALUES (?n ?a ?b ?c) {{ {_values(rows)} }} }} "
            "ORDER BY DESC(?a) LCASE(STR(?b)) ?b DESC (?c) ?n  # the row's own number breaks ties")
    want, got = _both(tmp_path, text)
    assert got == want


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(_number, st.sampled_from(['"x"', '"y"', "UNDEF"]), _term), max_size=25))
def test_a_distinct_listing_keeps_each_row_once_at_its_first_place(tmp_path: Path,
                                                                    rows: list[tuple[str, str, str]]) -> None:
    # (ordered by a column it does not show, as weakly-resolved is by ?position: a row comes where its first
    # occurrence sorts)
    text = (f"SELECT DISTINCT ?b (UCASE(?b) AS ?up) WHERE {{ VALUES (?n ?a ?b ?c) {{ {_values(rows)} }} }} "
            "ORDER BY ?a ?c ?n")
    want, got = _both(tmp_path, text)
    assert got == want


@pytest.mark.parametrize("text", [
    "SELECT * WHERE { ?s ?p ?o } ORDER BY ?s",  # (the key columns would change what * is)
    "SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s LIMIT 3",
    "SELECT ?s WHERE { ?s ?p ?o }",
    "ASK { ?s ?p ?o }",
])
def test_what_is_not_a_plain_ordered_select_is_left_to_the_engine(text: str) -> None:
    assert unordered(text) is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(_number, _term, _term), max_size=25), projected=st.booleans())
@example(rows=[("0", '""', "UNDEF"), (f'"0.000"^^<{XSD}decimal>', '""', "UNDEF")], projected=False)
def test_conditions_bound_at_the_end_of_the_group_are_read_through_their_binds(
        tmp_path: Path, rows: list[tuple[str, str, str]], projected: bool) -> None:
    # (as tool-citations orders by pieces of a lower-cased DOI: the BINDs dropped, the functions applied on disk.
    # The row's number breaks ties, 0 and 0.0 being equal: as a column, every condition is computed from the
    # columns; as an expression, the conditions are projected as columns of their own instead)
    text = (f"SELECT ?a ?b ?c {'' if projected else '?n'} WHERE {{ VALUES (?n ?a ?b ?c) {{ {_values(rows)} }}\n"
            "  BIND (LCASE(?b) AS ?low) BIND (SUBSTR(?low, 2, 3) AS ?piece) FILTER (true)\n"
            "  BIND (UCASE(STR(?c)) AS ?up) BIND (SUBSTR(?up, 2) AS ?tail)\n}\n"
            f"ORDER BY ?piece DESC(?tail) ?low ?a ?b ?c {'(?n + 0)' if projected else '?n'}")
    plan = unordered(text)
    assert plan is not None and "BIND" not in plan.text
    assert (plan.sources is None) == projected
    want, got = _both(tmp_path, text)
    assert got == want


# The values MIN and MAX take in a group: of kinds Oxigraph orders transitively (no number against a string).
_value = st.one_of(
    _text.map(_string),
    st.tuples(_text, st.sampled_from(["en", "de"])).map(lambda t: f"{_string(t[0])}@{t[1]}"),
    _text.map(lambda s: f"<http://x/{s.encode('utf-8').hex()}>"),
    st.just("UNDEF"),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.sampled_from(['"x"', '"y"', "<urn:z>", "UNDEF"]), st.sampled_from(['"p"', "UNDEF"]),
                               _value, _value), max_size=30))
def test_a_fold_group_by_forms_the_engines_groups_on_disk(tmp_path: Path,
                                                          rows: list[tuple[str, str, str, str]]) -> None:
    values = " ".join(f"({g} {h} {b} {c})" for g, h, b, c in rows)
    text = ("SELECT ?g ?h ?least ?most ?n WHERE {\n"
            "  { SELECT ?g ?h (MIN(?b) AS ?least) (MAX(?c) AS ?most) (COUNT(DISTINCT ?b) AS ?n)\n"
            f"    WHERE {{ VALUES (?g ?h ?b ?c) {{ {values} }} }}\n"
            "    #fold\n"
            "    GROUP BY ?g ?h\n  }\n  BIND (LCASE(STR(?g)) AS ?key)\n}\n"
            "ORDER BY DESC(?n) ?key DESC(?h) ?g ?least ?most")
    plan = unordered(text)
    assert plan is not None and plan.folds == ((2, "MIN"), (3, "MAX"), (4, "COUNT DISTINCT"))
    assert "GROUP BY" not in plan.text
    want, got = _both(tmp_path, text)
    assert got == want


@pytest.mark.parametrize(("text", "message"), [
    ("SELECT ?a ?n { { SELECT ?a (COUNT(?b) AS ?n) { ?a <p> ?b }\n#fold\nGROUP BY ?a } } ORDER BY ?a ?n",
     "MIN, MAX or COUNT\\(DISTINCT\\) of a variable only"),
    ("SELECT ?a ?m { { SELECT ?a (MIN(?b) AS ?m) { ?a <p> ?b }\n#fold\n} } ORDER BY ?a ?m", "no GROUP BY"),
    ("SELECT ?a { { SELECT ?a (MIN(?b) AS ?m) { ?a <p> ?b }\n#fold\nGROUP BY ?a } } ORDER BY ?a",
     "none of the listing's columns"),
    ("SELECT DISTINCT ?a ?m { { SELECT ?a (MIN(?b) AS ?m) { ?a <p> ?b }\n#fold\nGROUP BY ?a } } ORDER BY ?a ?m",
     "without DISTINCT"),
    # (the subquery's group closes right before another opens: the marker is in no subquery's group)
    ("SELECT ?a { { SELECT ?a (MIN(?b) AS ?m) { ?a <p> ?b } }{\n#fold\nGROUP BY ?a } } ORDER BY ?a",
     "in no subquery"),
])
def test_a_fold_the_index_cannot_form_is_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        unordered(text)

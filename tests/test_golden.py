"""Golden graphs: each case's input builds to exactly its expected.nt (isomorphic, version triple ignored).

Regenerate after an intended mapping change with ``pytest tests/test_golden.py --regen-golden`` and review
the diff of the expected.nt files before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import ROOT, SEEDS
from rdflib import Graph, URIRef
from rdflib.compare import graph_diff, isomorphic, to_isomorphic

from kg.map.context import Context
from kg.pipeline.memory import build_graph
from kg.rdf.nquads import triples_from_quads

GOLDEN = ROOT / "tests" / "golden"
VERSION = URIRef("https://schema.org/softwareVersion")
HANDMADE = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir() and any(p.glob("input*")))
SEED_CASES = sorted(f"seed-{p.stem}" for p in SEEDS.glob("*.txt"))


def _input(case: str) -> tuple[Path, str]:
    """(folder to run in, input name as given) for a case."""
    if case.startswith("seed-"):
        return SEEDS, case[len("seed-"):] + ".txt"
    folder = GOLDEN / case
    return folder, next(p.name for p in sorted(folder.iterdir()) if p.name.startswith("input"))


def _graph(nt: str) -> Graph:
    g = Graph()
    g.parse(data=nt, format="nt")
    g.remove((None, VERSION, None))
    return g


@pytest.mark.parametrize("case", SEED_CASES + HANDMADE)
def test_golden(case: str, request: pytest.FixtureRequest) -> None:
    folder, name = _input(case)
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        result = build_graph([name], Context.create())
    finally:
        os.chdir(cwd)
    assert result.report.errors == [] and result.report.records >= 1
    nt = "".join(triples_from_quads(result.lines))
    expected_file = GOLDEN / case / "expected.nt"
    if request.config.getoption("--regen-golden"):
        expected_file.parent.mkdir(parents=True, exist_ok=True)
        expected_file.write_text(nt, encoding="utf-8")
        pytest.skip("regenerated")
    assert expected_file.exists(), f"no golden for {case}; run pytest --regen-golden and review it"
    got, want = _graph(nt), _graph(expected_file.read_text(encoding="utf-8"))
    if not isomorphic(got, want):
        _both, only_got, only_want = graph_diff(to_isomorphic(got), to_isomorphic(want))
        extra = "\n".join(sorted(f"+ {t}" for t in only_got.serialize(format="nt").splitlines() if t))
        missing = "\n".join(sorted(f"- {t}" for t in only_want.serialize(format="nt").splitlines() if t))
        pytest.fail(f"{case}: graph differs from {expected_file}\n{extra[:4000]}\n{missing[:4000]}")


def test_golden_cases_cover_the_promised_shapes() -> None:
    """The hand-made cases are the shapes the foundation promises (guards against a case silently vanishing)."""
    assert {"org-authors-editors", "year-only-journal", "jats-funders-licenses", "book-isbn", "list-response",
            "json-lines", "gzip-datafile"} <= set(HANDMADE)
    assert len(SEED_CASES) == 4

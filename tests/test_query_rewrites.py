"""Rewritten stored queries give the answers of the texts they replaced (issue 27, phase 1).

tests/data/queries-before/ holds every stored query as it was before the rewrites for speed (copied from
queries/ at the commit the rewrite started from). Each stored query whose text differs from its old text must
give byte-identical ``kg query NAME -f csv`` output on the embedded store: on the seed graph (always) and on
1,000 synthetic records (bench/synth.py, behind --runslow: the old texts take a minute or two there).
The listing queries are also compared on their first page (``--limit 100``), which is what the benchmark times.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT

from kg.cli import main

BEFORE = ROOT / "tests" / "data" / "queries-before"
QUERIES = ROOT / "queries"
LISTINGS = ("references", "unresolved", "works", "works-citing", "tool-candidates", "tool-citations")
REWRITTEN = sorted(p.stem for p in QUERIES.glob("*.rq")
                   if (BEFORE / p.name).is_file() and (BEFORE / p.name).read_text() != p.read_text())


def test_every_stored_query_has_its_old_text() -> None:
    current = sorted(p.stem for p in QUERIES.glob("*.rq"))
    assert current == sorted(p.stem for p in BEFORE.glob("*.rq"))


def _answer(runner: CliRunner, home: Path, store: Path, query: str, *extra: str) -> str:
    r = runner.invoke(main, ["query", query, "--store", str(store), "-f", "csv", *extra],
                      env={"KG_HOME": str(home)}, prog_name="kg")
    assert r.exit_code == 0, r.output
    return r.stdout


def _store(tmp: Path, inputs: list[str]) -> tuple[Path, Path]:
    home, store = tmp / "ws", tmp / "store"
    r = CliRunner().invoke(main, ["build", *inputs, "-q", "--validate", "none", "--store", str(store)],
                           env={"KG_HOME": str(home)}, prog_name="kg")
    assert r.exit_code == 0, r.output
    return home, store


def _compare(home: Path, store: Path) -> None:
    runner = CliRunner()
    for name in REWRITTEN:
        pages = [(), ("--limit", "100")] if name in LISTINGS else [()]
        for extra in pages:
            new = _answer(runner, home, store, name, *extra)
            old = _answer(runner, home, store, str(BEFORE / f"{name}.rq"), *extra)
            assert new == old, f"{name} {' '.join(extra)}: the rewritten query's answer differs from the old text's"
            assert new.count("\n") > 1, f"{name}: no rows to compare"


@pytest.fixture(scope="module")
def seed_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _store(tmp_path_factory.mktemp("rewrites-seed"), [str(ROOT / "seeds")])


def test_rewritten_queries_answer_as_before_on_the_seeds(seed_store: tuple[Path, Path]) -> None:
    assert REWRITTEN, "no stored query was rewritten"
    home, store = seed_store
    runner = CliRunner()
    for name in REWRITTEN:
        new = _answer(runner, home, store, name)
        old = _answer(runner, home, store, str(BEFORE / f"{name}.rq"))
        assert new == old, f"{name}: the rewritten query's answer differs from the old text's on the seeds"


@pytest.mark.slow
def test_rewritten_queries_answer_as_before_on_1k_synthetic_records(tmp_path: Path) -> None:
    data = tmp_path / "synth1k.jsonl"
    subprocess.run([sys.executable, str(ROOT / "bench" / "synth.py"), "1000", str(data)], check=True)
    home, store = _store(tmp_path, [str(data)])
    _compare(home, store)

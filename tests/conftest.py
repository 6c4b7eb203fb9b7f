"""Shared test fixtures: paths to the seeds and to the test data of tests/data/ (the real Crossref samples, the
official vocabularies, the W3C SHACL test suite; each folder says its source and licence); the golden regeneration
flag."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SEEDS = ROOT / "seeds"
SAMPLES = DATA / "samples"
VOCAB = DATA / "vocab"
W3C_SHACL = DATA / "w3c-shacl" / "data-shapes-test-suite" / "tests"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--regen-golden", action="store_true",
                     help="rewrite tests/golden/*/expected.nt from the current code")
    parser.addoption("--runslow", action="store_true", help="also run tests marked slow (large corpora)")


def pytest_configure(config: pytest.Config) -> None:
    # Every validation the suite runs (in process, in workers and in CLI subprocesses) goes through both SHACL
    # engines, the compiled one and pySHACL, and fails unless their reports are identical.
    os.environ.setdefault("KG_SHACL_ENGINE", "both")
    # pySHACL's results are kept per input for the session (kg.validate.engine): a graph validated again is
    # compared with the reference's first answer on it rather than run through pySHACL again
    if "KG_SHACL_REFERENCE_CACHE" not in os.environ:
        os.environ["KG_SHACL_REFERENCE_CACHE"] = tempfile.mkdtemp(prefix="kg-shacl-reference-")
        config.add_cleanup(lambda: shutil.rmtree(os.environ.pop("KG_SHACL_REFERENCE_CACHE"), ignore_errors=True))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh KG_HOME and working directory for one test."""
    home = tmp_path / "ws"
    monkeypatch.setenv("KG_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return home


@pytest.fixture(scope="session")
def dask_threads() -> Iterator[str]:
    """The address (tcp://127.0.0.1:...) of a Dask cluster of 2 single-threaded workers in this process, for
    ``kg build --cluster ADDRESS``: cheaper to start than local:2, and its workers share this process's memory://."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                                  protocol="tcp", host="127.0.0.1") as cluster:
        yield cluster.scheduler_address

"""Shared test fixtures: paths to the seeds, the shared samples and vocabularies; golden regeneration flag."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SEEDS = ROOT / "seeds"
SAMPLES = SHARED / "crossref-samples"
VOCAB = SHARED / "vocab"
CHECK_VOCAB = SHARED / "tools" / "check_vocab.py"


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

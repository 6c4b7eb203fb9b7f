"""The one place that locates shapes/, queries/ and kg/data/: from the package, never the working directory."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import orjson

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"


def _project_dir(name: str) -> Path:
    """``shapes`` or ``queries``: beside the package in a checkout, or under share/crossref-kg when installed."""
    for candidate in (PACKAGE_DIR.parent / name, Path(sys.prefix) / "share" / "crossref-kg" / name):
        if candidate.is_dir():
            return candidate
    return PACKAGE_DIR.parent / name


def seeds_dir() -> Path:
    """The seed records: ./seeds when the working directory has one, else the project's seeds/."""
    return Path("seeds") if Path("seeds").is_dir() else _project_dir("seeds")


def shapes_dir() -> Path:
    return _project_dir("shapes")


def queries_dir() -> Path:
    return _project_dir("queries")


def data_file(name: str) -> Path:
    return DATA_DIR / name


@cache
def type_table() -> dict:
    """kg/data/crossref-types.json, parsed once."""
    return orjson.loads(data_file("crossref-types.json").read_bytes())

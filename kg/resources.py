"""The one place that locates shapes/, queries/ and kg/data/: from the package, never the working directory."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import orjson

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"


def project_dir(name: str, package: Path | None = None, prefix: str | None = None) -> Path:
    """``shapes`` or ``queries``: beside the package (default: this one) in a checkout, or under
    {prefix}/share/crossref-kg (default: ``sys.prefix``) when installed."""
    package = package or PACKAGE_DIR
    for candidate in (package.parent / name, Path(prefix or sys.prefix) / "share" / "crossref-kg" / name):
        if candidate.is_dir():
            return candidate
    return package.parent / name


def seeds_dir() -> Path:
    """The seed records: ./seeds when the working directory has one, else the project's seeds/."""
    return Path("seeds") if Path("seeds").is_dir() else project_dir("seeds")


def shapes_dir() -> Path:
    return project_dir("shapes")


def queries_dir() -> Path:
    return project_dir("queries")


def data_file(name: str) -> Path:
    return DATA_DIR / name


@cache
def type_table() -> dict:
    """kg/data/crossref-types.json, parsed once."""
    return orjson.loads(data_file("crossref-types.json").read_bytes())

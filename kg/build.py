"""The build pipeline: read -> normalize -> map -> merge duplicates -> canonical sorted N-Quads.

Each record is mapped on its own into its named graph; a DOI seen twice keeps the record deposited
last (ties broken by content hash, then source), so the result does not depend on input order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from .errors import InputError
from .map import map_work
from .map.context import Context
from .model import Source, Work
from .normalize import normalize
from .read import Ignored, iter_records


@dataclass
class Report:
    """What a build did: counts, and one line per problem (errors skip a record, warnings drop a field)."""

    records: int = 0
    skipped: int = 0
    merged: int = 0
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class BuildResult:
    lines: list[str]
    report: Report
    works: dict[str, Work]

    @property
    def triples(self) -> int:
        return len({line.rsplit(" ", 2)[0] for line in self.lines})


def _rank(work: Work, raw: dict[str, Any]) -> tuple[str, str, str, str, str]:
    deposited = dict(work.record_dates).get("deposited", "")
    indexed = dict(work.record_dates).get("indexed", "")
    digest = hashlib.sha256(orjson.dumps(raw, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return deposited, indexed, digest, work.source.path, work.source.locator


class StrictStop(Exception):
    """Raised inside the pipeline when --strict meets the first problem."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def build_graph(inputs: Iterable[str], ctx: Context, strict: bool = False,
                on_problem: Callable[[str, str], None] | None = None) -> BuildResult:
    """Map every record of ``inputs`` and return the canonical sorted N-Quads lines and a report."""
    report = Report()
    best: dict[str, tuple[tuple[str, ...], Work, list[str]]] = {}

    def problem(level: str, line: str) -> None:
        (report.errors if level == "error" else report.warnings).append(line)
        if on_problem:
            on_problem(level, line)
        if strict:
            raise StrictStop(line)

    for item in iter_records(inputs):
        if isinstance(item, Ignored):
            report.notes.append(str(item))
            continue
        if isinstance(item, InputError):
            report.skipped += 1
            problem("error", str(item))
            continue
        source, raw = item
        try:
            work, warnings = normalize(raw, source)
        except InputError as e:
            report.skipped += 1
            problem("error", str(e))
            continue
        for w in warnings:
            problem("warning", w)
        report.records += 1
        rank = _rank(work, raw)
        seen = best.get(work.doi)
        if seen is not None:
            report.merged += 1
            keep, drop = (work, seen[1]) if rank > seen[0] else (seen[1], work)
            report.notes.append(
                f"{drop.source.where(drop.doi_verbatim)}: same DOI as {keep.source.where(keep.doi_verbatim)}; "
                f"merged into one work, keeping the record deposited last"
            )
            if rank <= seen[0]:
                continue
        graph = ctx.minter.graph(work.doi)
        lines = [f"{s} {p} {o} {graph} .\n" for s, p, o in map_work(work, ctx)]
        best[work.doi] = (rank, work, lines)
    all_lines = sorted({line for _rank_, _w, lines in best.values() for line in lines})
    works = {doi: w for doi, (_r, w, _l) in best.items()}
    report.notes.sort()
    return BuildResult(all_lines, report, works)

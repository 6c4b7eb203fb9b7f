"""The build pipeline: read -> normalize -> map -> merge duplicates -> canonical sorted N-Quads.

Each record is mapped on its own into its named graph; a DOI seen twice keeps the record deposited
last (ties broken by content hash, then source), so the result does not depend on input order.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..errors import StrictStop
from ..ingest.read import iter_records
from ..ingest.works import each_work
from ..map import map_work
from ..map.context import Context
from ..map.shared import Used, add_shared, cited_triples, shared_lines
from ..model import Work
from ..rdf.nquads import quads, triple_key
from ..refs.enrich import enrich
from ..refs.named import decide, work_mentions
from ..refs.resolve import Resolution, resolve_works
from ..refs.topics import unused_overrides
from .dedupe import DoiMerge, Keep, rank
from .facts import facts_of


@dataclass
class BuildReport:
    """What a build did: counts, and one line per problem (errors skip a record, warnings drop a field)."""

    records: int = 0
    skipped: int = 0
    merged: int = 0
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)  # wall seconds per stage, in the order they ran

    def timed(self, stage: str, since: float) -> float:
        """Add the wall time from ``since`` to ``stage``; the time now, for the next stage."""
        now = time.perf_counter()
        self.stages[stage] = self.stages.get(stage, 0.0) + now - since
        return now

    def recorder(self, strict: bool, on_problem: Callable[[str, str], None] | None) -> Callable[[str, str], None]:
        """``problem(level, line)``: note an error (a skipped record) or a warning, tell ``on_problem``,
        and stop the build (StrictStop) when ``strict``."""
        def problem(level: str, line: str) -> None:
            (self.errors if level == "error" else self.warnings).append(line)
            if on_problem:
                on_problem(level, line)
            if strict:
                raise StrictStop(line)
        return problem

    def reader(self, problem: Callable[[str, str], None]) -> Callable[[str, str], None]:
        """The ``problem`` of ``each_work``: a note is kept; a warning reported; a record or file skipped is
        counted and reported."""
        def read_problem(level: str, line: str) -> None:
            if level == "note":
                self.notes.append(line)
            elif level == "warning":
                problem(level, line)
            else:
                self.skipped += 1
                problem(level, line)
        return read_problem


@dataclass
class BuildResult:
    lines: list[str]
    report: BuildReport
    works: dict[str, Work]

    @property
    def triples(self) -> int:
        return len({triple_key(line) for line in self.lines})




def build_graph(inputs: Iterable[str], ctx: Context, strict: bool = False,
                on_problem: Callable[[str, str], None] | None = None,
                on_progress: Callable[[str, int], None] | None = None) -> BuildResult:
    """Map every record of ``inputs`` and return the canonical sorted N-Quads lines and a report.

    ``on_progress(stage, n)`` is called now and then with the stage (read, map) and records done.
    """
    report = BuildReport()
    problem = report.recorder(strict, on_problem)
    works = _read(inputs, report, problem, on_progress)
    for line in unused_overrides(ctx.topic_lines, set(works)):
        problem("warning", line)
    resolutions, cited = resolve_works(works.values(), ctx.minter, ctx.catalogue)
    per_work: dict[str, dict[int, Resolution]] = {}
    for (citing, index), res in resolutions.items():
        per_work.setdefault(citing, {})[index] = res
    lines: set[str] = set()
    used: Used = {}
    named = decide((w.doi, m) for w in works.values() for _i, m in work_mentions(w, ctx.catalogue))
    cited_record = {doi: record_title_year(w) for doi, w in works.items()}.get
    for done, (doi, work) in enumerate(works.items(), start=1):
        if on_progress and done % 500 == 0:
            on_progress("map", done)
        enriched = enrich(work, ctx.catalogue, ctx.topic_overrides, ctx.topic_source, per_work.get(doi, {}),
                          cited_record, named.get)
        add_shared(used, work, enriched.shared, ctx.minter)
        graph = ctx.minter.graph(doi)
        lines.update(quads(map_work(work, ctx, enriched.knowledge), graph))
    kgraph = ctx.minter.shared_graph("knowledge")
    iris = {ctx.minter.doi(d) for d in works}
    lines.update(quads(cited_triples(cited, iris), kgraph))
    lines.update(shared_lines(ctx, used, bool(works)))
    lines.update(facts_of(lines, ctx.minter.shared_graph("facts")))
    report.notes.sort()
    return BuildResult(sorted(lines), report, works)


def _read(inputs: Iterable[str], report: BuildReport, problem: Callable[[str, str], None],
          on_progress: Callable[[str, int], None] | None) -> dict[str, Work]:
    """The record kept for each DOI, by DOI."""
    merge = DoiMerge(report.notes)
    kept: dict[str, Work] = {}
    for _n, work, warnings, raw in each_work(enumerate(iter_records(inputs)), report.reader(problem)):
        for w in warnings:
            problem("warning", w)
        report.records += 1
        if on_progress and report.records % 500 == 0:
            on_progress("read", report.records)
        if isinstance(merge.offer(work.doi, rank(work, raw), work.source.where(work.doi_verbatim)), Keep):
            kept[work.doi] = work
    report.merged = merge.merged
    return dict(sorted(kept.items()))


def record_title_year(work: Work) -> tuple[str | None, str | None]:
    """The title and issued year of an input record (what the tool recogniser matches a cited record by)."""
    year = next((d.lexical()[:4] for n, d in work.dates if n == "issued"), None)
    return (work.titles[0] if work.titles else None), year

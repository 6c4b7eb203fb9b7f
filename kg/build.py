"""The build pipeline: read -> normalize -> map -> merge duplicates -> canonical sorted N-Quads.

Each record is mapped on its own into its named graph; a DOI seen twice keeps the record deposited
last (ties broken by content hash, then source), so the result does not depend on input order.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from .errors import InputError
from .map import map_work
from .map.context import Context, Knowledge
from .model import Work
from .normalize import normalize
from .read import Ignored, iter_records
from collections import Counter

from .map.knowledge import tool_triples
from .refs.resolve import CitedInfo, Resolution, resolve_works
from .topics import classify, override, scheme_triples
from .ids import name_key
from .terms import XSD_GYEAR, lit
from .vocab import FABIO, KG, SDO
from .map.common import url_obj


@dataclass
class Report:
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
                on_problem: Callable[[str, str], None] | None = None,
                on_progress: Callable[[str, int], None] | None = None) -> BuildResult:
    """Map every record of ``inputs`` and return the canonical sorted N-Quads lines and a report.

    ``on_progress(stage, n)`` is called now and then with the stage (read, map) and records done.
    """
    report = Report()
    best: dict[str, tuple[tuple[str, ...], Work, list[str]]] = {}

    problem = report.recorder(strict, on_problem)
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
        if on_progress and report.records % 500 == 0:
            on_progress("read", report.records)
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
        best[work.doi] = (rank, work, [])
    works = {doi: w for doi, (_r, w, _l) in sorted(best.items())}
    resolutions, cited = resolve_works(works.values(), ctx.minter)
    per_work: dict[str, dict[int, Resolution]] = {}
    for (citing, index), res in resolutions.items():
        per_work.setdefault(citing, {})[index] = res
    lines: set[str] = set()
    used_tools: dict[str, object] = {}
    candidate_names: dict[str, Counter[str]] = {}

    def cited_record(doi: str) -> tuple[str | None, str | None] | None:
        w = works.get(doi)
        return None if w is None else record_title_year(w)

    for done, (doi, work) in enumerate(works.items(), start=1):
        if on_progress and done % 500 == 0:
            on_progress("map", done)
        triples, tools_used, names = map_with_knowledge(work, ctx, per_work.get(doi, {}), cited_record)
        used_tools.update(tools_used)
        for name in names:
            candidate_names.setdefault(name_key(name), Counter())[name] += 1
        graph = ctx.minter.graph(doi)
        lines.update(f"{s} {p} {o} {graph} .\n" for s, p, o in triples)
    kgraph = ctx.minter.node("graph", "knowledge")
    inputs = {ctx.minter.doi(d) for d in works}
    lines.update(f"{s} {p} {o} {kgraph} .\n" for s, p, o in cited_triples(cited, inputs))
    lines.update(shared_lines(ctx, used_tools, candidate_names, bool(works)))
    report.notes.sort()
    return BuildResult(sorted(lines), report, works)


def shared_lines(ctx: Context, used_tools: dict[str, Any], candidate_names: dict[str, Counter[str]],
                 any_work: bool) -> Iterator[str]:
    """The tools graph (tools cited, tool candidates) and the topic scheme."""
    tgraph = ctx.minter.node("graph", "tools")
    for tid in sorted(used_tools):
        yield from (f"{s} {p} {o} {tgraph} .\n" for s, p, o in tool_triples(ctx.minter, used_tools[tid]))
    for key, names in sorted(candidate_names.items()):
        # one name per candidate: the spelling most references use (ties: code-point order)
        name = sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        yield f"{ctx.minter.node('tool-candidate', key)} {SDO.name} {lit(name)} {tgraph} .\n"
    if any_work:
        sgraph = ctx.minter.node("graph", "topics")
        yield from (f"{s} {p} {o} {sgraph} .\n" for s, p, o in scheme_triples())


def record_title_year(work: Work) -> tuple[str | None, str | None]:
    year = next((d.lexical()[:4] for n, d in work.dates if n == "issued"), None)
    return (work.titles[0] if work.titles else None), year


def map_with_knowledge(work: Work, ctx: Context, res_by_index: dict[int, Resolution],
                       cited_record: Callable[[str], tuple[str | None, str | None] | None],
                       ) -> tuple[list[tuple[str, str, str]], dict[str, Any], list[str]]:
    """Recognise the tools the work's references cite and the work's topics, then map it: its triples,
    the tools it cites (id -> tool) and the names of tool candidates it cites."""
    tools: dict[int, list] = {}
    candidates: dict[int, object] = {}
    categories: Counter[str] = Counter()
    used: dict[str, Any] = {}
    names: list[str] = []
    catalogue = ctx.catalogue
    for ref in work.references:
        res = res_by_index.get(ref.index)
        if res is None or catalogue is None:
            continue
        text = ref.unstructured or " ".join(v for _k, v in ref.fields)
        cited_doi = res.cited[len("<https://doi.org/"):-1] if res.cited.startswith("<https://doi.org/") else None
        matches = catalogue.recognise(res.parsed, cited_doi, text)
        if not matches and cited_doi and (rec := cited_record(cited_doi)) is not None and rec[0]:
            matches = catalogue.recognise_record(rec[0], rec[1])
        if matches:
            tools[ref.index] = matches
            for m in matches:
                used[m.tool.id] = m.tool
                categories[m.tool.category] += 1
        elif res.kind in ("web", "other", "paper") and (cand := catalogue.candidate(res.parsed, text)):
            candidates[ref.index] = cand
            names.append(cand.name)
    if work.doi in ctx.topic_overrides:
        topics = override(ctx.topic_overrides[work.doi])
    else:
        topics = classify(work, categories)
    return list(map_work(work, ctx, Knowledge(res_by_index, tools, candidates, topics))), used, names


def cited_triples(cited: list[CitedInfo], inputs: set[str]) -> list[tuple[str, str, str]]:
    """What references tell about cited works no input record describes (name, URL, year), and
    preprint links; these sit in the graph ``{base}graph/knowledge`` in quad formats."""
    out = []
    for c in cited:
        if c.preprint_of:
            out.append((c.iri, KG.preprintOf, c.preprint_of))
        if c.iri in inputs:
            continue
        if c.name:
            out.append((c.iri, SDO.name, lit(c.name)))
        if c.url:
            out.append((c.iri, SDO.url, url_obj(c.url)))
        if c.year:
            out.append((c.iri, FABIO.hasPublicationYear, lit(c.year, XSD_GYEAR)))
    return out

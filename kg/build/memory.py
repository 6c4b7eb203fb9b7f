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

from ..errors import InputError
from ..map import map_work
from ..map.context import Context, Knowledge
from ..model import Work
from ..rdf.nquads import quad, quads, triple_key
from ..ingest.normalize import normalize
from ..ingest.read import Ignored, iter_records
from collections import Counter

from ..map.contributors import org_names
from ..map.knowledge import artifact_triples, candidate_triples, named_tool, tool_triples
from ..refs.named import Named, decide, mention_of, reference_text, work_mentions
from ..refs.resolve import CitedInfo, Resolution, resolve_works
from ..refs.tools import ArtifactMatch, Candidate, ToolMatch
from ..refs.topics import classify, override, scheme_triples, unused_overrides
from ..rdf.terms import XSD_GYEAR, lit
from ..rdf.vocab import FABIO, KG, SDO, SKOS
from ..map.common import url_obj


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
        return len({triple_key(line) for line in self.lines})


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
    for line in unused_overrides(ctx.topic_lines, set(works)):
        problem("warning", line)
    resolutions, cited = resolve_works(works.values(), ctx.minter, ctx.catalogue)
    per_work: dict[str, dict[int, Resolution]] = {}
    for (citing, index), res in resolutions.items():
        per_work.setdefault(citing, {})[index] = res
    lines: set[str] = set()
    used: dict[tuple[str, str], Any] = {}
    named = decide((w.doi, m) for w in works.values() for _i, m in work_mentions(w, ctx.catalogue))

    def cited_record(doi: str) -> tuple[str | None, str | None] | None:
        w = works.get(doi)
        return None if w is None else record_title_year(w)

    for done, (doi, work) in enumerate(works.items(), start=1):
        if on_progress and done % 500 == 0:
            on_progress("map", done)
        triples, shared = map_with_knowledge(work, ctx, per_work.get(doi, {}), cited_record, named.get)
        merge_shared(used, shared)
        graph = ctx.minter.graph(doi)
        lines.update(quads(triples, graph))
    kgraph = ctx.minter.shared_graph("knowledge")
    inputs = {ctx.minter.doi(d) for d in works}
    lines.update(quads(cited_triples(cited, inputs), kgraph))
    lines.update(shared_lines(ctx, used, bool(works)))
    report.notes.sort()
    return BuildResult(sorted(lines), report, works)


def shared_lines(ctx: Context, used: dict[tuple[str, str], Any], any_work: bool) -> Iterator[str]:
    """The tools graph (the tools, tool candidates and named artifacts the references cite) and the topic
    scheme. ``used`` maps (kind, key) to the catalogue ``Tool`` or the corpus's ``Named``."""
    tgraph = ctx.minter.shared_graph("tools")
    kgraph = ctx.minter.shared_graph("knowledge")
    names: dict[str, list[tuple[int, str]]] = {}
    for (kind, key), thing in sorted(used.items()):
        if kind == "org-name":
            node, name = key.split("\x1f", 1)
            names.setdefault(node, []).append((-thing, name))
            continue
        if kind == "tool":
            triples = tool_triples(ctx.minter, thing)
        elif kind == "candidate":
            triples = candidate_triples(ctx.minter, thing)
        else:
            triples = artifact_triples(ctx.minter, thing)
        yield from quads(triples, tgraph)
    for node, counted in sorted(names.items()):  # the spelling most records use (ties: code-point order)
        yield quad(node, SKOS.prefLabel, lit(min(counted)[1]), kgraph)
    if any_work:
        sgraph = ctx.minter.shared_graph("topics")
        yield from quads(scheme_triples(), sgraph)


def record_title_year(work: Work) -> tuple[str | None, str | None]:
    year = next((d.lexical()[:4] for n, d in work.dates if n == "issued"), None)
    return (work.titles[0] if work.titles else None), year


def map_with_knowledge(work: Work, ctx: Context, res_by_index: dict[int, Resolution],
                       cited_record: Callable[[str], tuple[str | None, str | None] | None],
                       named_of: Callable[[str], Named | None],
                       ) -> tuple[list[tuple[str, str, str]], dict[tuple[str, str], Any]]:
    """Recognise what the work's references cite (catalogue tools, tools named by the references, tool
    candidates, models, datasets, benchmark suites, algorithms) and the work's topics, then map it: its
    triples, and the shared things it cites by (kind, key) (a catalogue or named ``Tool``, or a ``Named``)."""
    tools: dict[int, list[ToolMatch]] = {}
    candidates: dict[int, Candidate] = {}
    artifacts: dict[int, ArtifactMatch] = {}
    categories: Counter[str] = Counter()
    used: dict[tuple[str, str], Any] = {}
    catalogue = ctx.catalogue
    for ref in work.references:
        res = res_by_index.get(ref.index)
        if res is None or catalogue is None:
            continue
        text = reference_text(ref)
        cited_doi = ctx.minter.doi_of(res.cited)
        matches = catalogue.recognise(res.parsed, cited_doi, text)
        if not matches and cited_doi and (rec := cited_record(cited_doi)) is not None and rec[0]:
            matches = catalogue.recognise_record(rec[0], rec[1])
        if not matches and (m := mention_of(res.parsed, text, catalogue)) is not None \
                and (n := named_of(m.key)) is not None:
            if n.status == "tool":
                matches = [ToolMatch(named_tool(n), m.method, n.score, m.matched)]
            elif n.status == "candidate":
                candidates[ref.index] = Candidate(n.key, n.name, n.score, m.matched, m.method)
                used[("candidate", n.key)] = n
            else:
                artifacts[ref.index] = ArtifactMatch(n, m.method, n.score, m.matched)
                used[(n.kind, n.key)] = n
        if matches:
            for match in matches:
                used[("tool", match.tool.source + " " + match.tool.id)] = match.tool
                categories[match.tool.category] += 1
            software = [m for m in matches if m.tool.kind == "tool"]
            if software:
                tools[ref.index] = software
            elif ref.index not in artifacts:  # a catalogue benchmark suite or performance model
                m = matches[0]
                artifacts[ref.index] = ArtifactMatch(m.tool, m.method, m.score, m.matched)
    if work.doi in ctx.topic_overrides:
        topics = override(ctx.topic_overrides[work.doi], ctx.topic_source)
    else:
        topics = classify(work, categories)
    for node, name in org_names(work, ctx.minter):
        used[("org-name", f"{node}\x1f{name}")] = 1
    knowledge = Knowledge(res_by_index, tools, candidates, topics, artifacts)
    return list(map_work(work, ctx, knowledge)), used


def merge_shared(into: dict[tuple[str, str], Any], new: dict[tuple[str, str], Any]) -> None:
    """Add one work's (or one chunk's) shared things to the corpus's: organisation names are counted."""
    for k, v in new.items():
        into[k] = into.get(k, 0) + v if k[0] == "org-name" else v


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

"""What cross-record stages learn about one work before it is mapped: per reference the tool, tool candidate
or named artifact it cites, and the work's topics (the catalogue, the corpus's names and the --topics file)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import orjson

from ..model import Work
from ..rdf.ids import Minter
from ..resources import data_file
from .named import Mention, Named, mention_of, reference_kind, reference_text
from .parse import fold
from .resolve import Resolution
from .tools import ArtifactMatch, Candidate, Catalogue, Tool, ToolMatch
from .topics import Assignment, classify, override

CALIBRATE = True  # bench/eval_refs.py --fit turns it off to read the recognisers' raw evidence scores


@cache
def calibration() -> tuple[dict[str, tuple[tuple[float, float], ...]], tuple[tuple[float, float], ...], float]:
    """kg/data/calibration.json: per recognition method the (raw score from, probability) steps, the steps of
    methods the table does not name, and the probability from which a recognition is a tool."""
    d = orjson.loads(data_file("calibration.json").read_bytes())
    steps = {m: tuple((float(a), float(b)) for a, b in v) for m, v in d["methods"].items()}
    return steps, tuple((float(a), float(b)) for a, b in d["default"]), float(d["threshold"])


def probability(method: str, raw: float) -> float:
    """The probability that a recognition by ``method`` with the evidence score ``raw`` is right (the fitted
    step function of kg/data/calibration.json; ``raw`` itself before the first step).

    >>> 0.0 <= probability("doi", 1.0) <= 1.0
    True
    """
    if not CALIBRATE:
        return raw
    table, default, _threshold = calibration()
    p = raw
    for start, q in table.get(method, default):
        if raw + 1e-9 >= start:
            p = q
    return p


def tool_threshold() -> float:
    """The probability from which a recognised piece of software is a tool (below: a tool candidate)."""
    return calibration()[2] if CALIBRATE else 0.7


Shared = dict[tuple[str, str], "Tool | Named"]  # (kind, key) -> what a work cites in the shared tools graph


@dataclass(frozen=True)
class Knowledge:
    """What cross-record stages inferred about one work: per reference index its resolution, tools, tool
    candidate and named artifact; the work's topics."""

    resolutions: dict[int, Resolution] = field(default_factory=dict)
    tools: dict[int, list[ToolMatch]] = field(default_factory=dict)
    candidates: dict[int, Candidate] = field(default_factory=dict)
    topics: list[Assignment] = field(default_factory=list)
    artifacts: dict[int, ArtifactMatch] = field(default_factory=dict)
    kinds: dict[int, str] = field(default_factory=dict)  # what a reference without a tool or artifact cites


@dataclass(frozen=True)
class Enriched:
    """One work's knowledge, and the shared things it cites by (kind, key): a catalogue or named ``Tool``
    under ("tool", source + " " + id), a tool candidate's or named artifact's ``Named`` under its kind."""

    knowledge: Knowledge
    shared: Shared


def named_tool(n: Named) -> Tool:
    """A tool the catalogue does not know, as the references that cite it name it."""
    return Tool(id=n.key, name=n.name, category=n.category, source="references", score=n.score, works=n.works)


def enrich(work: Work, catalogue: Catalogue | None, overrides: dict[str, list[str]], topic_source: str | None,
           resolutions: dict[int, Resolution],
           cited_record: Callable[[str], tuple[str | None, str | None] | None],
           named_of: Callable[[str], Named | None], mentions: dict[int, Mention] | None = None) -> Enriched:
    """Recognise what the work's references cite (catalogue tools, tools named by the references, tool
    candidates, models, datasets, benchmark suites, algorithms) and the work's topics (``overrides``, the
    --topics file ``topic_source`` names, wins over classification). ``mentions``: what
    ``kg.refs.named.work_mentions`` found in the work's references, by index, where it is known already (else it is
    found again here)."""
    tools: dict[int, list[ToolMatch]] = {}
    candidates: dict[int, Candidate] = {}
    artifacts: dict[int, ArtifactMatch] = {}
    categories: Counter[str] = Counter()
    kinds: dict[int, str] = {}
    used: Shared = {}
    for ref in work.references:
        res = resolutions.get(ref.index)
        if res is None or catalogue is None:
            continue
        text = reference_text(ref)
        cited_doi = Minter.doi_of(res.cited)
        matches = catalogue.recognise(res.parsed, cited_doi, text)
        if not matches and cited_doi and (rec := cited_record(cited_doi)) is not None and rec[0]:
            matches = catalogue.recognise_record(rec[0], rec[1])
        matches = [x for x in (ToolMatch(x.tool, x.method, probability(x.method, x.score), x.matched)
                                for x in matches) if x.score >= tool_threshold() or x.tool.kind != "tool"]
        if not matches and (m := mention_of(res.parsed, text, catalogue) if mentions is None else
                            mentions.get(ref.index)) is not None \
                and (n := named_of(m.key)) is not None:
            p = probability(m.method, n.score)
            known = catalogue.by_alias.get(fold(n.name), [])
            if n.status in ("tool", "candidate") and p >= tool_threshold():
                tool = known[0] if len(known) == 1 and known[0].kind == "tool" else named_tool(n)
                matches = [ToolMatch(tool, m.method, p, m.matched)]
            elif n.status in ("tool", "candidate"):
                candidates[ref.index] = Candidate(n.key, n.name, p, m.matched, m.method)
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
                first = matches[0]
                artifacts[ref.index] = ArtifactMatch(first.tool, first.method, first.score, first.matched)
        if ref.index not in tools and ref.index not in artifacts:
            kinds[ref.index] = reference_kind(res.parsed, text, res.kind)
    if work.doi in overrides:
        topics = override(overrides[work.doi], topic_source)
    else:
        topics = classify(work, categories)
    return Enriched(Knowledge(resolutions, tools, candidates, topics, artifacts, kinds), used)

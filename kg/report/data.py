"""What the report shows, gathered from the stored queries of one source (no SPARQL of its own)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from ..rdf.ids import DOI_RESOLVER
from ..refs.topics import concepts
from .source import Source

DEFAULT_PAIR = ("performance-analysis", "compilers")  # the stored headline queries' defaults
MOST_PAIRS = 4  # topic pairs offered by the selector (the default and pairs of the largest families)
TOOL_IRI = re.compile(r"/tool/(.+)$")


def tool_key(iri: str) -> str:
    """The anchor key of a tool: the end of its IRI (``.../tool/tvm`` -> ``tvm``)."""
    m = TOOL_IRI.search(iri)
    raw = m.group(1) if m else iri
    return re.sub(r"[^a-z0-9._+-]+", "-", raw.lower()).strip("-") or "tool"


def work_key(doi: str) -> str:
    return "work-" + re.sub(r"[^a-z0-9]+", "-", doi.lower()).strip("-")


@dataclass
class Recognition:
    method: str
    score: str


@dataclass
class Work:
    doi: str
    title: str = ""
    type: str = ""
    year: str = ""
    authors: list[str] = field(default_factory=list)
    venue: str = ""
    primary: list[tuple[str, str, str, str]] = field(default_factory=list)  # (topic id, label, score, evidence)
    tools: set[str] = field(default_factory=set)  # tool IRIs


@dataclass
class Tool:
    iri: str
    name: str
    category: str
    citing_works: int
    references: int
    citing: dict[str, list[tuple[str, Recognition | None]]] = field(default_factory=dict)  # doi -> [(key, how)]

    @property
    def key(self) -> str:
        return tool_key(self.iri)


@dataclass
class HeadlineRow:
    tool: str
    tool_iri: str
    category: str
    side: str  # "a" or "b"
    doi: str
    title: str
    key: str
    reference: str
    method: str
    score: str
    matched: str


@dataclass
class Pair:
    a: str
    b: str
    label_a: str
    label_b: str
    rows: list[HeadlineRow]
    both: list[str]  # the tool IRIs cited by both sides (those of tools-cited-by-both)
    papers_a: list[str]  # DOIs
    papers_b: list[str]

    @property
    def id(self) -> str:
        return f"{self.a}--{self.b}"

    @property
    def params(self) -> dict[str, str]:
        return {"topic-a": self.a, "topic-b": self.b}


@dataclass
class Corpus:
    stats: dict[str, int]
    years: list[dict[str, str]]
    works: dict[str, Work]
    tools: dict[str, Tool]  # by IRI, most cited first
    categories: list[str]  # by citing works, most first
    pairs: list[Pair]
    topics: list[dict[str, str]]
    topic_counts: Counter[str]  # concept id -> works whose primary topic is it or narrower
    direct_counts: Counter[str]  # concept id -> works whose primary topic is it
    most_cited: list[dict[str, str]]
    cited_title: dict[str, str]
    cited_by: dict[str, list[str]]  # cited work -> citing DOIs
    internal: list[dict[str, str]]
    coupling: list[dict[str, str]]
    unresolved: list[dict[str, str]]
    candidates: list[dict[str, str]]
    untitled: dict[str, list[str]]  # citing DOI -> cited DOIs without a title
    references_total: int
    unresolved_total: int


def _family(cid: str) -> str | None:
    """The family (a concept one step below a top concept) a concept belongs to, or None for a top concept."""
    by = {c.id: c for c in concepts()}
    c = by.get(cid)
    if c is None or c.depth == 0:
        return None
    return c.id if c.depth == 1 else c.ancestors[-2]


def gather(src: Source, pairs: int = MOST_PAIRS) -> Corpus:
    """Everything the page shows; ``pairs``: the topic pairs of the matrix selector (one headline query each)."""
    by_concept = {c.id: c for c in concepts()}
    stats = src.stats()
    years = src.rows("years")

    works: dict[str, Work] = {}
    for r in src.rows("works"):
        w = works.setdefault(r["doi"], Work(r["doi"], r["title"], r["type"], r["year"]))
        if r.get("venue") and not w.venue:
            w.venue = r["venue"]
        if r["author"] and r["author"] not in w.authors:
            w.authors.append(r["author"])

    topics = src.rows("topics")
    topic_counts: Counter[str] = Counter()
    direct_counts: Counter[str] = Counter()
    for r in topics:
        cid = r["topic_iri"].rsplit("/", 1)[-1]
        if r["primary"] != "true" or r["doi"] not in works:
            continue
        w = works[r["doi"]]
        w.primary.append((cid, r["label"] or cid, r["topic_score"], r["evidence"]))
        direct_counts[cid] += 1
    for w in works.values():
        under = set()
        for cid, *_ in w.primary:
            under.add(cid)
            under.update(by_concept[cid].ancestors if cid in by_concept else ())
        topic_counts.update(under)

    # the tools, and every (tool, citing work, reference key) of each category
    tools: dict[str, Tool] = {}
    by_name: dict[tuple[str, str], str] = {}
    for r in src.rows("tools"):
        tools[r["tool_iri"]] = Tool(r["tool_iri"], r["tool"], r["category"], int(r["citing_works"]),
                                    int(r["references"]))
        by_name[(r["tool"], r["category"])] = r["tool_iri"]
    cat_total: Counter[str] = Counter()
    for t in tools.values():
        cat_total[t.category] += t.citing_works
    categories = sorted(cat_total, key=lambda c: (-cat_total[c], c))

    refs = src.rows("references")
    recognised: dict[tuple[str, str, str], Recognition] = {}
    cited_of: dict[str, list[str]] = defaultdict(list)
    cited_by: dict[str, set[str]] = defaultdict(set)
    unresolved_total = 0
    for r in refs:
        if r["tool_iri"]:
            recognised[(r["citing"], r["key"], r["tool_iri"])] = Recognition(r["recognition_method"],
                                                                              r["recognition_score"])
        cited_of[r["citing"]].append(r["cited"])
        cited_by[r["cited"]].add(r["citing"])
        if r["resolution_method"] == "unresolved":
            unresolved_total += 1
    for cat in categories:
        for r in src.rows("tools-by-category", {"category": cat}):
            iri = by_name.get((r["tool"], cat))
            if iri is None:
                continue
            how = recognised.get((r["citing"], r["key"], iri))
            tools[iri].citing.setdefault(r["citing"], []).append((r["key"], how))
            if r["citing"] in works:
                works[r["citing"]].tools.add(iri)

    most_cited = src.rows("most-cited")
    cited_title = {r["cited"]: r["title"] for r in most_cited}
    untitled: dict[str, list[str]] = {}
    for citing, cited in sorted(cited_of.items()):
        missing = sorted({c[len(DOI_RESOLVER):] for c in cited
                          if c.startswith(DOI_RESOLVER) and not cited_title.get(c)})
        if missing:
            untitled[citing] = missing

    pair_list = _pairs(src, works, topic_counts, by_concept, pairs)
    return Corpus(stats, years, works, tools, categories, pair_list, topics, topic_counts, direct_counts, most_cited,
                  cited_title, {c: sorted(ws) for c, ws in cited_by.items()}, src.rows("internal-citations"),
                  src.rows("bibliographic-coupling"), src.rows("unresolved"), src.rows("tool-candidates"), untitled,
                  len(refs), unresolved_total)


def _pairs(src: Source, works: dict[str, Work], topic_counts: Counter[str], by_concept: dict,
           most: int = MOST_PAIRS) -> list[Pair]:
    families = sorted((c for c in by_concept.values() if c.depth == 1 and topic_counts[c.id]),
                      key=lambda c: (-topic_counts[c.id], c.id))
    wanted = [DEFAULT_PAIR] if all(f in by_concept for f in DEFAULT_PAIR) else []
    for a, b in combinations([f.id for f in families[:4]], 2):
        if len(wanted) >= most:
            break
        if (a, b) not in wanted and (b, a) not in wanted:
            wanted.append((a, b))
    out = []
    for a, b in wanted:
        params = {"topic-a": a, "topic-b": b}
        label = {a: by_concept[a].label, b: by_concept[b].label}
        rows = []
        for r in src.rows("tools-cited-by-profiling-and-compiler", params):
            side = "a" if r["side"] == label[a] else "b"
            rows.append(HeadlineRow(r["tool"], r["tool_iri"], r["category"], side, r["doi"], r["title"], r["key"],
                                    r["text"], r["recognition_method"], r["recognition_score"], r["matched"]))
        # (tools-cited-by-both gives one row per tool of these rows: the tools cited by both sides)
        both = sorted({r.tool_iri for r in rows})

        def members(fam: str, side: str, rows: list[HeadlineRow]) -> list[str]:
            found = {r.doi for r in rows if r.side == side}
            for w in works.values():
                for cid, *_ in w.primary:
                    if cid == fam or fam in (by_concept[cid].ancestors if cid in by_concept else ()):
                        found.add(w.doi)
            return sorted(found)

        out.append(Pair(a, b, label[a], label[b], rows, both, members(a, "a", rows), members(b, "b", rows)))
    return out

"""What the report shows, gathered from the stored queries of one source (no SPARQL of its own)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations

from ..rdf.ids import DOI_RESOLVER
from ..refs.topics import concepts
from .source import ReportSource

DEFAULT_PAIR = ("performance-analysis", "compilers")  # the stored headline queries' defaults
MOST_PAIRS = 4  # topic pairs offered by the selector (the default and pairs of the largest families)
FALLBACK_FAMILIES = 6  # an empty default pair: the best pair of this many of the largest families comes first
TOP_CITED = 15  # the most-cited works of the citation graph (the engine is asked for those only)
WEAK = "0.8"  # the curation table lists the references resolved with a score below this (weakly-resolved)
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
class WorkRow:
    doi: str
    title: str = ""
    type: str = ""
    year: str = ""
    authors: list[str] = field(default_factory=list)
    venue: str = ""
    primary: list[tuple[str, str, str, str]] = field(default_factory=list)  # (topic id, label, score, evidence)
    tools: set[str] = field(default_factory=set)  # tool IRIs


@dataclass
class ToolRow:
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
    works: dict[str, WorkRow]
    tools: dict[str, ToolRow]  # by IRI, most cited first
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
    untitled: list[dict[str, str]]  # the rows of untitled-cited
    tool_years: list[dict[str, str]]  # the rows of tools-by-year
    unresolved_total: int  # references left unresolved (the rows of unresolved whose method says so)
    pair_note: str = ""  # why the first pair is not the default pair (the default has a side without papers)
    cited_label: dict[str, str] = field(default_factory=dict)  # an untitled most-cited work -> a label read off


@cache
def _concepts_by_id() -> dict:
    return {c.id: c for c in concepts()}


def _family(cid: str) -> str | None:
    """The family (a concept one step below a top concept) a concept belongs to, or None for a top concept."""
    c = _concepts_by_id().get(cid)
    if c is None or c.depth == 0:
        return None
    return c.id if c.depth == 1 else c.ancestors[-2]


def gather(src: ReportSource, pairs: int = MOST_PAIRS) -> Corpus:
    """Everything the page shows; ``pairs``: the topic pairs of the matrix selector (all from one query)."""
    by_concept = {c.id: c for c in concepts()}
    # every query below answered ahead, a few at once, the costliest first (the page reads them in its own order)
    src.prefetch([("tool-citations", None, None), ("bibliographic-coupling", None, None), ("works", None, None),
                  ("untitled-cited", None, None), ("most-cited", {"min-citing": "2"}, TOP_CITED),
                  ("works-by-topic", None, None), ("topics", None, None), ("tool-candidates", None, None),
                  ("tools", None, None), ("internal-citations", None, None), ("unresolved", None, None),
                  ("weakly-resolved", {"threshold": WEAK}, None),
                  ("years", None, None), ("tools-by-year", None, None)])
    stats = src.stats()
    years = src.rows("years")

    works: dict[str, WorkRow] = {}
    for r in src.rows("works"):
        w = works.setdefault(r["doi"], WorkRow(r["doi"], r["title"], r["type"], r["year"]))
        if r.get("venue") and not w.venue:
            w.venue = r["venue"]
        for author in r["authors"].split("\n") if r["authors"] else ():
            if author not in w.authors:
                w.authors.append(author)

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

    # the tools, and every (tool, citing work, reference key) with how the tool was recognised there
    tools: dict[str, ToolRow] = {}
    for r in src.rows("tools"):
        tools[r["tool_iri"]] = ToolRow(r["tool_iri"], r["tool"], r["category"], int(r["citing_works"]),
                                    int(r["references"]))
    cat_total: Counter[str] = Counter()
    for t in tools.values():
        cat_total[t.category] += t.citing_works
    categories = sorted(cat_total, key=lambda c: (-cat_total[c], c))
    citations = src.rows("tool-citations")
    for r in citations:
        tool = tools.get(r["tool_iri"])
        if tool is None:
            continue
        keys = tool.citing.setdefault(r["citing"], [])
        if not keys or keys[-1][0] != r["key"]:  # (the first recognition of a reference, by method)
            keys.append((r["key"], Recognition(r["recognition_method"], r["recognition_score"])))
        if r["citing"] in works:
            works[r["citing"]].tools.add(r["tool_iri"])

    # the counts of the overview and the citation graph: the most cited works and the input works citing them
    most_cited = src.rows("most-cited", {"min-citing": "2"}, limit=TOP_CITED)
    cited_title = {r["cited"]: r["title"] for r in most_cited}
    src.prefetch([("works-citing", {"target": r["cited"]}, None) for r in most_cited])
    cited_by: dict[str, list[str]] = {}
    cited_label: dict[str, str] = {}
    for r in most_cited:  # (a look-up each: one query for all would pair every reference with its citing work)
        citing = src.rows("works-citing", {"target": r["cited"]})
        cited_by[r["cited"]] = sorted({x["citing"] for x in citing})
        if not r["title"]:
            cited_label[r["cited"]] = untitled_label(r["cited"], [x["text"] for x in citing])
    # (a few rows a work, sent whole: counting them would cost a second pass)
    left = src.rows("unresolved")
    unresolved = left + src.rows("weakly-resolved", {"threshold": WEAK})

    pair_list, pair_note = _pairs(src, works, citations, by_concept, pairs)
    return Corpus(stats, years, works, tools, categories, pair_list, topics, topic_counts, direct_counts, most_cited,
                  cited_title, cited_by, src.rows("internal-citations"),
                  src.rows("bibliographic-coupling"), unresolved, src.rows("tool-candidates"),
                  src.rows("untitled-cited"), src.rows("tools-by-year"), len(left), pair_note, cited_label)


def untitled_label(cited: str, texts: list[str]) -> str:
    """A label for a cited work without a title: its first author, year and venue as the first reference citing
    it that gives an author and a year says (parsed as the build parses references), else its DOI (else the start
    of a reference's text, else its IRI); ``texts``: the citing references' texts, in the query's order.

    >>> untitled_label("https://doi.org/10.1/x", ["https://doi.org/10.1/x", "Size Zheng, Renze Chen, and Yun Liang. "
    ...                "Amos: enabling automatic mapping for tensor computations. In ISCA, pages 874--887, 2022."])
    'Zheng et al. 2022, ISCA'
    >>> untitled_label("https://doi.org/10.1/x", ["https://doi.org/10.1/x"])
    '10.1/x'
    """
    from ..refs.fields import family_name
    from ..refs.parse import parse_text
    for text in texts:
        ref = parse_text(text)
        family = family_name(ref.authors[0]) if ref.authors else None
        if family and ref.year:
            label = f"{family}{' et al.' if len(ref.authors) > 1 else ''} {ref.year}"
            venue = (ref.venue or "").strip(" .,;")
            if venue and len(venue) <= 40 and not any(ch.isdigit() for ch in venue):
                label += f", {venue}"
            return label
    if cited.startswith(DOI_RESOLVER):
        return cited[len(DOI_RESOLVER):]
    first = next((t.strip() for t in texts if t.strip()), "")
    return (first if len(first) <= 60 else first[:59] + "…") or cited


def _pairs(src: ReportSource, works: dict[str, WorkRow], citations: list[dict[str, str]], by_concept: dict,
           most: int = MOST_PAIRS) -> tuple[list[Pair], str]:
    """The topic pairs of the matrix and, when the first is not the default pair, why: the rows of the headline
    query (tools-cited-by-profiling-and-compiler) for each pair, made from one query for all pairs: the rows of
    tool-citations of the papers of each side (works-by-topic), for the tools cited by a paper of each side (two
    papers, not one on both sides).

    The default pair comes first when each of its sides has papers; else the pair of the largest topic families
    present (FALLBACK_FAMILIES of them; topics one level down when fewer than two families have papers) whose
    sides cite the most tools in common, then whose smaller side has the most papers, then the larger families."""
    members: dict[str, list[str]] = defaultdict(list)
    for r in src.rows("works-by-topic"):
        members[r["topic_iri"].rsplit("/", 1)[-1]].append(r["doi"])
    by_citing: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in citations:
        by_citing[r["citing"]].append(r)

    def present(depth: int) -> list[str]:
        return [c.id for c in sorted((c for c in by_concept.values() if c.depth == depth and members.get(c.id)),
                                     key=lambda c: (-len(members[c.id]), c.id))]

    def make(a: str, b: str) -> Pair:
        return _pair(a, b, by_concept, members, by_citing, works)

    families = present(1)
    default = make(*DEFAULT_PAIR) if all(f in by_concept for f in DEFAULT_PAIR) else None
    out: list[Pair] = []
    note, topics = "", families
    if default is not None and default.papers_a and default.papers_b:
        out.append(default)
    else:
        level, candidates = "topic families", families
        if len(candidates) < 2:
            level, candidates = "topics one level below the families", present(2)
        topics = candidates[:FALLBACK_FAMILIES]
        tried = [make(a, b) for a, b in combinations(topics, 2)]
        empty = (f"the default pair ({_label(DEFAULT_PAIR[0], by_concept)} × {_label(DEFAULT_PAIR[1], by_concept)}) "
                 f"has {_sides(default)}" if default is not None else "the default pair is not in the topic scheme")
        if tried:
            best = sorted(tried, key=lambda p: (-len(p.both), -min(len(p.papers_a), len(p.papers_b))))[0]
            out.append(best)
            among = f"{level} present" + (f" (the {len(topics)} largest)" if len(candidates) > len(topics) else "")
            why = (f"whose papers cite the most tools in common ({_n(best.both, 'tool')})" if best.both else
                   "whose smaller side has the most papers (no pair of them has a tool cited by both sides)")
            note = (f"In this corpus {empty}, so the matrix shows first the pair of {among} {why}: {best.label_a} "
                    f"({_n(best.papers_a, 'paper')}) × {best.label_b} ({_n(best.papers_b, 'paper')}).")
        else:
            note = f"In this corpus {empty}, and no two topic families have papers: there is no pair to cross."
    wanted = [(p.a, p.b) for p in out]
    for a, b in combinations((topics if note else families)[:4], 2):  # (a fallback: more pairs of its level)
        if len(wanted) >= most:
            break
        if (a, b) not in wanted and (b, a) not in wanted:
            wanted.append((a, b))
            out.append(make(a, b))
    return out, note


def _pair(a: str, b: str, by_concept: dict, members: dict[str, list[str]],
          by_citing: dict[str, list[dict[str, str]]], works: dict[str, WorkRow]) -> Pair:
    """One topic pair: its sides' papers and the rows of the headline query for it."""
    label = {a: by_concept[a].label, b: by_concept[b].label}
    side_rows = {side: [(r, doi) for doi in members.get(topic, ()) for r in by_citing.get(doi, ())]
                 for side, topic in (("a", a), ("b", b))}
    citers: dict[str, dict[str, set[str]]] = {side: defaultdict(set) for side in ("a", "b")}
    for side, found in side_rows.items():
        for r, doi in found:
            citers[side][r["tool_iri"]].add(doi)
    both = sorted(t for t in citers["a"] if t in citers["b"] and len(citers["a"][t] | citers["b"][t]) > 1)
    keep = set(both)
    rows = [HeadlineRow(r["tool"], r["tool_iri"], r["category"], side, doi,
                        works[doi].title if doi in works else "", r["key"], r["text"], r["recognition_method"],
                        r["recognition_score"], r["matched"])
            for side in ("a", "b") for r, doi in side_rows[side] if r["tool_iri"] in keep]
    rows.sort(key=lambda h: (h.tool.lower(), h.tool, h.tool_iri, h.side, h.doi.lower(), h.key))
    return Pair(a, b, label[a], label[b], rows, both, sorted(members.get(a, ())), sorted(members.get(b, ())))


def _label(cid: str, by_concept: dict) -> str:
    return by_concept[cid].label if cid in by_concept else cid


def _n(items: list[str], what: str) -> str:
    return f"{len(items):,} {what}{'' if len(items) == 1 else 's'}"


def _sides(p: Pair) -> str:
    """What the sides of an empty pair hold: 'no papers on either side', 'no papers of Compilers ...'."""
    if not p.papers_a and not p.papers_b:
        return "no papers on either side"
    return f"no papers of {p.label_b if p.papers_a else p.label_a}"

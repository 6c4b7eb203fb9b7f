"""Reference resolution: every reference of every input work -> one cited-work node per cited thing.

Order of evidence, strongest first: a DOI (field, or found inside the text; case-insensitive), an arXiv
id (its arXiv DOI ``10.48550/arxiv.<id>``), the normalised title of a work whose DOI is known (from an input
record or from another reference that gives DOI and title) when year and first author do not contradict,
a normalised URL, then the normalised title shared with other references (exact, or a guarded fuzzy match:
same year, compatible first author, similarity >= 0.93). A preprint and its published version stay two
nodes; the link between them is recorded (``kg:preprintOf``). Every resolution carries its method, a score
and the text that matched. The result depends only on the set of references, never on their order.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..model import Reference, Work
from ..rdf.ids import Minter, name_key
from .parse import ParsedRef, fold, name_tokens, parse_reference, title_key

FUZZY_THRESHOLD = 0.93
DATA_PREFIXES = ("10.5061/", "10.6084/", "10.17632/", "10.7910/", "10.2210/", "10.15468/", "10.1594/", "10.5066/")


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where one reference points, how it was decided, how sure we are, and what the reference says."""

    cited: str  # IRI token of the cited-work node
    method: str  # doi, doi-in-text, arxiv, title, title-fuzzy, url, title-shared, unique, unresolved
    score: float
    matched: str  # the identifier or text that decided it
    kind: str  # paper, web, dataset, other (the tool recogniser may turn it into tool)
    parsed: ParsedRef


@dataclass(frozen=True, slots=True)
class CitedInfo:
    """What the graph says about a cited-work node that no input record describes."""

    iri: str
    name: str | None
    url: str | None
    year: str | None
    preprint_of: str | None = None


def normalize_url(url: str) -> str | None:
    """Scheme-less, lower-case host without www., no fragment, default port or trailing slash."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if not host or "." not in host:
        return None
    host = host[4:] if host.startswith("www.") else host
    path = parts.path.rstrip("/")
    if path.endswith(("/index.html", "/index.htm")):
        path = path.rsplit("/", 1)[0]
    return urlunsplit(("", host, path, parts.query, "")).lstrip("/")


@lru_cache(maxsize=4096)
def _numbers(text: str) -> tuple[str, ...]:
    return tuple(w for w in text.split() if w.isdigit())


@lru_cache(maxsize=4096)
def _chars(text: str) -> Counter[str]:
    return Counter(text)


def similar(a: str, b: str) -> float:
    """SequenceMatcher ratio, skipping the full computation when cheap upper bounds already fail: the
    lengths (``real_quick_ratio``), then the characters in common (``quick_ratio``, computed here from
    memoized character counts: building a SequenceMatcher only to reject the pair was most of the cost)."""
    if not a or not b:
        return 0.0
    if _numbers(a) != _numbers(b):
        return 0.0  # "... 19 October 1993" and "... 14 May 1993", "GPT-2" and "GPT-3": other works
    length = len(a) + len(b)
    if min(len(a), len(b)) * 2 / length < FUZZY_THRESHOLD:
        return 0.0
    if 2.0 * (_chars(a) & _chars(b)).total() / length < FUZZY_THRESHOLD:  # difflib's quick_ratio, same float
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def _years_ok(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def _authors_ok(a: frozenset[str], b: frozenset[str]) -> bool:
    return not a or not b or bool(a & b)


def kind_of(p: ParsedRef) -> str:
    """paper, web, dataset or other: what a reference seems to cite (the tool recogniser may add tool)."""
    if p.doi and p.doi.startswith(DATA_PREFIXES):
        return "dataset"
    words = fold(" ".join(filter(None, (p.title, p.venue))))
    if any(w in f" {words} " for w in (" dataset ", " data set ", " corpus ")):
        return "dataset"
    if p.doi or p.arxiv:
        return "paper"
    if p.urls and not (p.venue and any(v in p.venue.lower() for v in ("proc", "conference", "journal", "trans"))):
        return "web"
    if p.title and (p.venue or p.authors):
        return "paper"
    return "other"


# ---------------------------------------------------------------- compact features

@dataclass(slots=True)
class RefFeatures:
    """All that resolution needs to know of one reference: small, so millions fit on disk or in memory."""

    citing: str
    index: int
    tkey: str | None
    year: str | None
    atoks: frozenset[str]
    url: str | None  # the first normalisable URL
    ckey: str | None  # citation key (author, year, venue, volume, page) for title-less references
    title: str | None
    urls: tuple[str, ...]
    arxiv_text: bool  # the reference text says arXiv
    id_node: str | None = None  # from a DOI or arXiv id
    id_method: str | None = None
    id_matched: str | None = None
    fuzzy: bool = False
    doc_tool: str | None = None  # without URL or identifier: the catalogue tool whose main page the title names
    url_tool: str | None = None  # the catalogue tool whose main page the first URL is


@dataclass(frozen=True, slots=True)
class Resolved:
    """A resolution without the parsed reference (cheap to store)."""

    cited: str
    method: str
    score: float
    matched: str


def reference_text(ref: Reference) -> str:
    return ref.unstructured or " ".join(v for _k, v in ref.fields) or (ref.doi or "")


def record_entry(work: Work) -> tuple[str, str | None, str | None, frozenset[str]]:
    """(DOI, title key, issued year, first-author tokens) of an input work."""
    year = next((d.lexical()[:4] for n, d in work.dates if n == "issued"), None)
    first = next((c for c in work.contributors if c.role == "author" and c.position == 1), None)
    atoks = frozenset(name_tokens(first.family or first.name or "")) if first else frozenset()
    return work.doi, (title_key(work.titles[0]) if work.titles else None), year, atoks


def features(work: Work, minter: Minter, parsed: dict[int, ParsedRef] | None = None,
             catalogue: Any = None) -> list[RefFeatures]:
    """The features of every reference of ``work`` (``parsed`` collects the parsed references if given); with
    the tool ``catalogue``, which references name or point at a tool's main page."""
    out = []
    for ref in work.references:
        p = parse_reference(ref)
        if parsed is not None:
            parsed[ref.index] = p
        url = next((u for u in map(normalize_url, p.urls) if u), None)
        f = dict(ref.fields)
        atoks = p.first_author_tokens
        ckey = None
        if not p.title and atoks and p.year and p.venue and (f.get("volume") or f.get("first-page")):
            ckey = " ".join([min(atoks), p.year, fold(p.venue), f.get("volume", ""), f.get("first-page", "")])
        text = reference_text(ref)
        feat = RefFeatures(work.doi, ref.index, title_key(p.title), p.year and p.year + _year_tag(text, p.year), atoks,
                           url, ckey, p.title, p.urls, "arxiv" in text.lower())
        found = id_node(p, minter)
        if found:
            feat.id_node, feat.id_method, feat.id_matched = found
        if catalogue is not None:
            if url:
                feat.url_tool = catalogue.main_page_of_url(url)
            elif not found:
                feat.doc_tool = catalogue.main_page_of_title(p.title)
        out.append(feat)
    return out


def _year_tag(text: str, year: str) -> str:
    """The letter of "1993a": an author's own mark that two works of one year are different works (only the
    resolution sees it; the graph keeps the year)."""
    m = re.search(rf"\b{year}([a-z])\b", text)
    return m.group(1) if m else ""


def catalogue_known(catalogue: Any, minter: Minter) -> Iterator[tuple[str, str, str | None]]:
    """(title key, node, year) of every defining paper the tool catalogue gives with DOI and title: a reference
    with that title and no identifier cites that DOI (step 2)."""
    if catalogue is None:
        return
    for t in catalogue.tools.values():
        for doi, tkey, year in t.papers:
            if doi and tkey:
                yield tkey, minter.doi(doi), str(year) if year else None


def id_node(p: ParsedRef, minter: Minter) -> tuple[str, str, str] | None:
    """The node of a reference that carries a DOI or an arXiv id, the method and the matched id."""
    if p.doi and p.doi.startswith("10.48550/arxiv."):
        arxiv = p.doi[len("10.48550/arxiv."):]
        return minter.doi(f"10.48550/arxiv.{arxiv}"), "doi" if not p.doi_in_text else "doi-in-text", p.doi
    if p.doi:
        return minter.doi(p.doi), "doi-in-text" if p.doi_in_text else "doi", p.doi
    if p.arxiv:
        return minter.doi(f"10.48550/arxiv.{p.arxiv}"), "arxiv", f"arXiv:{p.arxiv}"
    return None


def id_score(method: str) -> float:
    """The score of a resolution by identifier: a DOI field is certain, a DOI or arXiv id found in the text
    nearly so."""
    return 1.0 if method == "doi" else 0.97


def id_res(f: RefFeatures) -> Resolved:
    assert f.id_node and f.id_method and f.id_matched is not None
    return Resolved(f.id_node, f.id_method, id_score(f.id_method), f.id_matched)


Known = list[tuple[str, str | None, frozenset[str], str]]  # (node, year, author tokens, source)


def first_word(tkey: str) -> str:
    return tkey.split(" ", 1)[0]


Near = Callable[[str, str], tuple[tuple[str, float], ...]]


def near_titles(block: Callable[[str, str], Iterable[str]], size: int = 4096) -> Near:
    """``near(tkey, year)``: the known title keys of the block (first word, year) of ``tkey`` that are
    near-identical to it, in block order, with their similarity. Memoized: many references share a title,
    and comparing it with every title of its block is most of the cost of resolution."""
    @lru_cache(maxsize=size)
    def near(tkey: str, year: str) -> tuple[tuple[str, float], ...]:
        return tuple((other, q) for other in block(first_word(tkey), year)
                     if (q := similar(tkey, other)) >= FUZZY_THRESHOLD)
    return near


def title_matcher(known: Callable[[str], Known], near: Near,
                  size: int = 1 << 16) -> Callable[[RefFeatures], Resolved | None]:
    """Step 2, ``match(f)``: a reference without identifier whose title names a work known by identifier.

    What depends only on the title key, year and author tokens (the candidate works, found by scanning the
    works known under that title) is computed once per such triple: a much-cited work is known through
    thousands of references and cited by thousands more, which share these."""
    @lru_cache(maxsize=size)
    def candidates(tkey: str, year: str | None, atoks: frozenset[str],
                   ) -> tuple[tuple[str, ...], str, float, frozenset[str]]:
        entries = known(tkey)
        cands = {(node, src) for node, y, a, src in entries if _years_ok(y, year) and _authors_ok(a, atoks)}
        method, ratio = "title", 1.0
        if not cands and year and len(tkey.split()) >= 4:
            for other, q in near(tkey, year):
                for node, y, a, src in known(other):
                    if y == year and _authors_ok(a, atoks):
                        cands.add((node, src))
                        method, ratio = "title-fuzzy", min(ratio, q)
        nodes = tuple(sorted({n for n, _ in cands}))
        # the candidates some work known under this very title says were issued in the reference's year
        agree = frozenset(n for n, y, _a, _s in entries if year is not None and y == year and n in nodes)
        return nodes, method, ratio, agree

    def match(f: RefFeatures) -> Resolved | None:
        assert f.tkey
        found, method, ratio, agree = candidates(f.tkey, f.year, f.atoks)
        own = Minter.doi(f.citing)
        nodes = [n for n in found if n != own]  # a work does not cite itself: that is an earlier version
        if nodes and all("/10.48550/arxiv." in n for n in nodes) and not f.arxiv_text:
            return None  # a text that does not say arXiv may cite the published version: not merged
        if len(nodes) > 1:
            arxiv_nodes = [n for n in nodes if "/10.48550/arxiv." in n]
            others = [n for n in nodes if n not in arxiv_nodes]
            nodes = arxiv_nodes if f.arxiv_text and len(arxiv_nodes) == 1 else others if len(others) == 1 else nodes
        if len(nodes) != 1:
            return None
        score = (0.9 + (0.05 if nodes[0] in agree else 0.0) + (0.04 if f.atoks else 0.0)) * ratio
        return Resolved(nodes[0], method, round(score, 2), f.title or "")

    return match


def url_candidates(f: RefFeatures, url_titles: Iterable[tuple[str, str | None, frozenset[str]]]) -> set[str]:
    """Step 3: the URL groups a URL-less reference may join through its title."""
    return {g for g, y, a in url_titles if _years_ok(y, f.year) and _authors_ok(a, f.atoks)}


def url_matcher(url_titles: Iterable[tuple[str, str | None, frozenset[str]]]) -> Callable[[RefFeatures], set[str]]:
    """``url_candidates`` for the references of one title key: each distinct URL-group title is looked at
    once, and references with the same year and authors share one answer (a much-cited work has thousands
    of references; comparing each with every other one is quadratic)."""
    titles = list(dict.fromkeys(url_titles))
    memo: dict[tuple[str | None, frozenset[str]], frozenset[str]] = {}

    def candidates(f: RefFeatures) -> set[str]:
        key = (f.year, f.atoks)
        found = memo.get(key)
        if found is None:
            found = memo[key] = frozenset(url_candidates(f, titles))
        return set(found)
    return candidates


def title_clusters(tkey: str, members: list[RefFeatures]) -> Iterator[tuple[str, list[RefFeatures]]]:
    """Step 4a: references sharing a title key, split by year (a yearless one joins the only year there
    is) and by compatible first authors, in (citing, index) order."""
    years = sorted({m.year for m in members if m.year})
    buckets = [*years] + ([None] if len(years) > 1 and any(m.year is None for m in members) else [])
    for year in buckets or [None]:
        chosen = [m for m in members if m.year == year or (m.year is None and len(years) <= 1)]
        # A reference joins the first cluster whose every member's authors are compatible with its own
        # (_authors_ok). Members without authors fit anything, and members with the same authors answer the
        # same, so each cluster keeps its distinct non-empty author sets: linear in the group, not quadratic
        # (a work cited by thousands of references).
        clusters: list[tuple[list[RefFeatures], set[frozenset[str]]]] = []
        for m in sorted(chosen, key=lambda x: (x.citing, x.index)):
            home = next((c for c in clusters if not m.atoks or all(a & m.atoks for a in c[1])), None)
            if home is None:
                clusters.append(([m], {m.atoks} if m.atoks else set()))
            else:
                home[0].append(m)
                if m.atoks:
                    home[1].add(m.atoks)
        for c, _authors in clusters:
            atok = ",".join(sorted(set().union(*(x.atoks for x in c))))
            yield f"title {tkey} {year or ''} {atok}", c


def fuzzy_block_key(first: RefFeatures) -> tuple[str, str] | None:
    """Step 4b: the block of a title group (its first member's year and first title word), if fuzzy-mergeable."""
    if first.year and first.tkey and len(first.tkey.split()) >= 4:
        return first.year, first_word(first.tkey)
    return None


def fuzzy_merges(keys: list[str], firsts: dict[str, RefFeatures], merged: dict[str, str]) -> None:
    """Step 4b: within one block (``keys`` sorted), merge groups whose titles are near-identical."""
    for i, a in enumerate(keys):
        ra = firsts[a]
        for b in keys[i + 1:]:
            rb = firsts[b]
            if ra.tkey == rb.tkey or b in merged:
                continue
            if not _authors_ok(ra.atoks, rb.atoks):
                continue
            if similar(ra.tkey or "", rb.tkey or "") >= FUZZY_THRESHOLD:
                merged[b] = merged.get(a, a)


Earlier = Callable[[str, str | None, frozenset[str], str], str | None]


def earlier_version(records: Iterable[tuple[str, str | None, frozenset[str]]], year: str | None,
                    atoks: frozenset[str], citing: str) -> str | None:
    """Step 5: the input work a group of references cites an earlier version of: a record with the group's
    title, compatible first authors, and a year at least the group's (or the citing work itself, whatever
    the year: a work does not cite itself); the first such node, or None."""
    own = Minter.doi(citing)
    hits = sorted(node for node, y, a in records
                  if _authors_ok(a, atoks) and (node == own or (year is not None and y is not None and y >= year)))
    return hits[0] if hits else None


def emit_group(gkey: str, members: list[RefFeatures], minter: Minter,
               earlier: Earlier | None = None) -> tuple[list[tuple[RefFeatures, Resolved]], CitedInfo]:
    """Step 5: one cited-work node for a group (members in (citing, index) order), a resolution per member;
    a title group that is an earlier version of an input work is linked to it (``earlier``)."""
    kind0, _, rest = gkey.partition(" ")
    if kind0 == "ref":
        r = members[0]
        node = minter.part(r.citing, "reference", str(r.index), "cited")
        has_text = bool(r.title or r.urls)
        method = "unique" if has_text else "unresolved"
        score = (0.9 if r.year else 0.75) if has_text else 0.0
        info = CitedInfo(node, r.title, None, r.year and r.year[:4])
        return [(r, Resolved(node, method, score, r.title or ""))], info
    if kind0 == "url":
        node = minter.node("cited", "url", name_key(rest))
    elif kind0 == "citation":
        node = minter.node("cited", "citation", name_key(rest))
    else:
        node = minter.node("cited", "title", name_key(rest))
    counts: dict[str, int] = defaultdict(int)
    for m in members:
        if m.title:
            counts[m.title] += 1
    titles = sorted(counts, key=lambda t: (-counts[t], t))
    years = sorted({m.year for m in members if m.year})
    urls = sorted(u for m in members for u in m.urls)
    out = []
    url_titles = {m.tkey for m in members if m.url and m.tkey}
    for m in members:
        if kind0 == "url":
            method, score, matched = ("url", 0.9, m.url or "") if m.url else \
                ("title", 0.85, m.title or "") if m.tkey in url_titles else ("tool-page", 0.85, m.title or "")
        elif m.fuzzy:
            method, score, matched = "title-fuzzy", 0.8, m.title or ""
        elif kind0 == "citation":
            method, score, matched = ("citation-shared" if len(members) > 1 else "citation"), 0.8, rest
        elif len(members) > 1:
            method, score, matched = "title-shared", 0.85 + (0.05 if m.year else 0.0), m.title or ""
        else:
            method, score, matched = "unique", 0.9 if m.year else 0.75, m.title or ""
        out.append((m, Resolved(node, method, round(score, 2), matched)))
    link = None
    if kind0 == "title" and earlier is not None and members[0].tkey:
        year = years[0] if len(years) == 1 else None
        atoks = frozenset().union(*(m.atoks for m in members))
        link = earlier(members[0].tkey, year, atoks, members[0].citing)
    return out, CitedInfo(node, titles[0] if titles else None, urls[0] if urls else None,
                          years[0][:4] if len(years) == 1 else None, preprint_of=link)


def preprint_link(nodes: Iterable[str]) -> CitedInfo | None:
    """Step 6: an arXiv node and a published node known under one title are linked (one of each)."""
    nodes = list(nodes)
    arxiv = sorted({n for n in nodes if "/10.48550/arxiv." in n})
    published = sorted({n for n in nodes if "/10.48550/arxiv." not in n})
    if len(arxiv) == 1 and len(published) == 1:
        return CitedInfo(arxiv[0], None, None, None, preprint_of=published[0])
    return None


# ---------------------------------------------------------------- the in-memory resolver

class Resolver:
    """Collects the features of all input works, then resolves them in one deterministic pass.

    ``kg.refs.resolve_disk.DiskResolver`` runs the same steps on SQLite tables for corpora that do
    not fit in memory; both use the step functions above, and tests prove them equal.
    """

    def __init__(self, minter: Minter, catalogue: Any = None) -> None:
        self.minter, self.catalogue = minter, catalogue
        self.feats: list[RefFeatures] = []
        self.records: dict[str, tuple[str | None, str | None, frozenset[str]]] = {}
        self.parsed: dict[tuple[str, int], ParsedRef] = {}

    def add_work(self, work: Work) -> None:
        doi, tkey, year, atoks = record_entry(work)
        self.records[doi] = (tkey, year, atoks)
        parsed: dict[int, ParsedRef] = {}
        self.feats.extend(features(work, self.minter, parsed, self.catalogue))
        for index, p in parsed.items():
            self.parsed[(work.doi, index)] = p

    def resolve_compact(self) -> tuple[dict[tuple[str, int], Resolved], list[CitedInfo]]:  # noqa: C901 - the resolution steps in order, sharing one result dict; splitting them is a refactor of its own
        refs = sorted(self.feats, key=lambda r: (r.citing, r.index))
        out: dict[tuple[str, int], Resolved] = {}
        # 1. identifiers
        known: dict[str, Known] = defaultdict(list)
        records: dict[str, list[tuple[str, str | None, frozenset[str]]]] = defaultdict(list)
        for doi, (tkey, year, atoks) in self.records.items():
            if tkey:
                known[tkey].append((self.minter.doi(doi), year, atoks, "input record"))
                records[tkey].append((self.minter.doi(doi), year, atoks))
        for tkey, node, year in catalogue_known(self.catalogue, self.minter):
            known[tkey].append((node, year, frozenset(), "catalogue"))
        rest: list[RefFeatures] = []
        for r in refs:
            if r.id_node is None:
                rest.append(r)
                continue
            out[(r.citing, r.index)] = id_res(r)
            if r.tkey:
                known[r.tkey].append((r.id_node, r.year, r.atoks, "reference"))
        # 2. titles of works known by identifier
        by_block: dict[tuple[str, str], list[str]] = defaultdict(list)
        for tkey, entries in known.items():
            for year in sorted({y for _n, y, _a, _s in entries if y}):
                by_block[(first_word(tkey), year)].append(tkey)
        unmatched: list[RefFeatures] = []
        near = near_titles(lambda w, y: by_block.get((w, y), ()))
        match = title_matcher(lambda t: known.get(t, []), near)
        for r in rest:
            hit = match(r) if r.tkey else None
            if hit:
                out[(r.citing, r.index)] = hit
            else:
                unmatched.append(r)
        # 3. URLs, then titles shared between references
        groups: dict[str, list[RefFeatures]] = defaultdict(list)
        tool_pages: dict[str, set[str]] = defaultdict(set)  # catalogue tool -> URL groups of its main page
        for r in unmatched:
            if r.url:
                groups[f"url {r.url}"].append(r)
                if r.url_tool:
                    tool_pages[r.url_tool].add(f"url {r.url}")
        url_titles: dict[str, list[tuple[str, str | None, frozenset[str]]]] = defaultdict(list)
        for gkey, members in groups.items():
            for m in members:
                if m.tkey:
                    url_titles[m.tkey].append((gkey, m.year, m.atoks))
        leftovers: list[RefFeatures] = []
        matchers: dict[str, Callable[[RefFeatures], set[str]]] = {}
        for r in unmatched:
            if r.url:
                continue
            tkey = r.tkey or ""
            if tkey not in matchers:
                matchers[tkey] = url_matcher(url_titles.get(tkey, ()))
            cands = matchers[tkey](r)
            if not cands and r.doc_tool:
                cands = set(tool_pages.get(r.doc_tool, ()))  # "Rocprofiler documentation" and its docs' URL
            if len(cands) == 1:
                groups[cands.pop()].append(r)
            else:
                leftovers.append(r)
        # 4. title clusters, citation keys and single references
        by_title: dict[str, list[RefFeatures]] = defaultdict(list)
        for r in leftovers:
            if r.tkey:
                by_title[r.tkey].append(r)
            elif r.ckey:
                groups[f"citation {r.ckey}"].append(r)
            else:
                groups[f"ref {r.citing} {r.index}"].append(r)
        titled: dict[str, list[RefFeatures]] = {}
        for tkey, members in by_title.items():
            titled.update(title_clusters(tkey, members))
        blocks: dict[tuple[str, str], list[str]] = defaultdict(list)
        for k in sorted(titled):
            if (b := fuzzy_block_key(titled[k][0])) is not None:
                blocks[b].append(k)
        merged: dict[str, str] = {}
        for _b, keys in sorted(blocks.items()):
            fuzzy_merges(keys, {k: titled[k][0] for k in keys}, merged)
        for gone, root in sorted(merged.items()):
            titled[root].extend(titled.pop(gone))
            for m in titled[root]:
                m.fuzzy = True
        groups.update(titled)
        # 5. one node per group
        infos: list[CitedInfo] = []
        for gkey in sorted(groups):
            members = sorted(groups[gkey], key=lambda r: (r.citing, r.index))
            pairs, info = emit_group(gkey, members, self.minter, lambda t, y, a, c: earlier_version(
                records.get(t, ()), y, a, c))
            for m, res in pairs:
                out[(m.citing, m.index)] = res
            infos.append(info)
        # 6. preprint <-> published links between identifier nodes that share a title
        for tkey in sorted(known):
            if (link := preprint_link(n for n, _y, _a, src in known[tkey] if src != "catalogue")) is not None:
                infos.append(link)
        return out, infos

    def resolve(self) -> tuple[dict[tuple[str, int], Resolution], list[CitedInfo]]:
        compact, infos = self.resolve_compact()
        out = {}
        for key, r in compact.items():
            p = self.parsed[key]
            out[key] = Resolution(r.cited, r.method, r.score, r.matched, kind_of(p), p)
        return out, infos


def resolve_works(works: Iterable[Work], minter: Minter, catalogue: Any = None,
                  ) -> tuple[dict[tuple[str, int], Resolution], list[CitedInfo]]:
    """Resolve every reference of ``works``; see the module docstring for the evidence order."""
    resolver = Resolver(minter, catalogue)
    for w in works:
        resolver.add_work(w)
    return resolver.resolve()

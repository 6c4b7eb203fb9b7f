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

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from urllib.parse import urlsplit, urlunsplit

from ..ids import Minter, name_key


def similar(a: str, b: str) -> float:
    """SequenceMatcher ratio, skipping the full computation when cheap upper bounds already fail."""
    if not a or not b or min(len(a), len(b)) * 2 / (len(a) + len(b)) < FUZZY_THRESHOLD:
        return 0.0
    sm = SequenceMatcher(None, a, b, autojunk=False)
    if sm.real_quick_ratio() < FUZZY_THRESHOLD or sm.quick_ratio() < FUZZY_THRESHOLD:
        return 0.0
    return sm.ratio()
from ..model import Work
from .parse import ParsedRef, fold, name_tokens, parse_reference, title_key

FUZZY_THRESHOLD = 0.93
LOW_SCORE = 0.8  # resolutions below this are listed for review by the `unresolved` query
DATA_PREFIXES = ("10.5061/", "10.6084/", "10.17632/", "10.7910/", "10.2210/", "10.15468/", "10.1594/", "10.5066/")


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where one reference points, how it was decided, and how sure we are."""

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


def _years_ok(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def _authors_ok(a: frozenset[str], b: frozenset[str]) -> bool:
    return not a or not b or bool(a & b)


@dataclass
class _Ref:
    citing: str
    index: int
    parsed: ParsedRef
    tkey: str | None
    url: str | None
    text: str
    fuzzy: bool = False
    ckey: str | None = None  # citation key (author, year, venue, volume, page) for title-less references


def _kind(p: ParsedRef) -> str:
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


class Resolver:
    """Collects the references and titles of all input works, then resolves them in one deterministic pass."""

    def __init__(self, minter: Minter) -> None:
        self.minter = minter
        self.refs: list[_Ref] = []
        self.records: dict[str, tuple[str | None, str | None, frozenset[str]]] = {}

    def add_work(self, work: Work) -> None:
        year = next((d.lexical()[:4] for n, d in work.dates if n == "issued"), None)
        first = next((c for c in work.contributors if c.role == "author" and c.position == 1), None)
        atoks = frozenset(name_tokens(first.family or first.name or "")) if first else frozenset()
        self.records[work.doi] = (title_key(work.titles[0]) if work.titles else None, year, atoks)
        for ref in work.references:
            p = parse_reference(ref)
            url = next((u for u in map(normalize_url, p.urls) if u), None)
            f = dict(ref.fields)
            ckey = None
            if not p.title and p.first_author_tokens and p.year and p.venue and (f.get("volume") or f.get("first-page")):
                ckey = " ".join([min(p.first_author_tokens), p.year, fold(p.venue), f.get("volume", ""),
                                 f.get("first-page", "")])
            self.refs.append(_Ref(work.doi, ref.index, p, title_key(p.title), url,
                                  ref.unstructured or " ".join(v for _k, v in ref.fields) or (ref.doi or ""), ckey=ckey))

    # ------------------------------------------------------------------ resolution

    def _id_node(self, p: ParsedRef) -> tuple[str, str, str] | None:
        if p.doi and p.doi.startswith("10.48550/arxiv."):
            arxiv = p.doi[len("10.48550/arxiv."):]
            return self.minter.doi(f"10.48550/arxiv.{arxiv}"), "doi" if not p.doi_in_text else "doi-in-text", p.doi
        if p.doi:
            return self.minter.doi(p.doi), "doi-in-text" if p.doi_in_text else "doi", p.doi
        if p.arxiv:
            return self.minter.doi(f"10.48550/arxiv.{p.arxiv}"), "arxiv", f"arXiv:{p.arxiv}"
        return None

    def resolve(self) -> tuple[dict[tuple[str, int], Resolution], list[CitedInfo]]:
        refs = sorted(self.refs, key=lambda r: (r.citing, r.index))
        out: dict[tuple[str, int], Resolution] = {}
        # 1. identifiers
        known: dict[str, list[tuple[str, str | None, frozenset[str], str]]] = defaultdict(list)
        for doi, (tkey, year, atoks) in self.records.items():
            if tkey:
                known[tkey].append((self.minter.doi(doi), year, atoks, "input record"))
        rest: list[_Ref] = []
        for r in refs:
            found = self._id_node(r.parsed)
            if found is None:
                rest.append(r)
                continue
            node, method, matched = found
            out[(r.citing, r.index)] = Resolution(node, method, 1.0 if method == "doi" else 0.97, matched,
                                                  _kind(r.parsed), r.parsed)
            if r.tkey:
                known[r.tkey].append((node, r.parsed.year, r.parsed.first_author_tokens, "reference"))
        # 2. titles of works known by identifier
        by_block: dict[tuple[str, str], list[str]] = defaultdict(list)
        for tkey, entries in known.items():
            for year in sorted({y for _n, y, _a, _s in entries if y}):
                by_block[(tkey.split(" ", 1)[0], year)].append(tkey)
        unmatched: list[_Ref] = []
        for r in rest:
            hit = self._match_known(r, known, by_block) if r.tkey else None
            if hit:
                out[(r.citing, r.index)] = hit
            else:
                unmatched.append(r)
        # 3. URLs, then titles shared between references
        groups: dict[str, list[_Ref]] = defaultdict(list)
        for r in unmatched:
            if r.url:
                groups[f"url {r.url}"].append(r)
        url_titles: dict[str, list[tuple[str, str | None, frozenset[str]]]] = defaultdict(list)
        for gkey, members in groups.items():
            for m in members:
                if m.tkey:
                    url_titles[m.tkey].append((gkey, m.parsed.year, m.parsed.first_author_tokens))
        leftovers: list[_Ref] = []
        for r in unmatched:
            if r.url:
                continue
            cands = {g for g, y, a in url_titles.get(r.tkey or "", ())
                     if _years_ok(y, r.parsed.year) and _authors_ok(a, r.parsed.first_author_tokens)}
            if len(cands) == 1:
                groups[cands.pop()].append(r)
            else:
                leftovers.append(r)
        for gkey, cluster in self._title_clusters(leftovers).items():
            groups[gkey].extend(cluster)
        infos: list[CitedInfo] = []
        for gkey in sorted(groups):
            members = sorted(groups[gkey], key=lambda r: (r.citing, r.index))
            infos.append(self._emit_group(gkey, members, out))
        # 4. preprint <-> published links between identifier nodes that share a title
        infos.extend(self._preprint_links(known))
        return out, infos

    def _match_known(self, r: _Ref, known: dict, by_block: dict) -> Resolution | None:
        p = r.parsed
        cands = {(node, src) for node, y, a, src in known.get(r.tkey, ())
                 if _years_ok(y, p.year) and _authors_ok(a, p.first_author_tokens)}
        method, ratio = "title", 1.0
        if not cands and p.year and len(r.tkey.split()) >= 4:
            for other in by_block.get((r.tkey.split(" ", 1)[0], p.year), ()):
                q = similar(r.tkey, other)
                if q >= FUZZY_THRESHOLD:
                    for node, y, a, src in known[other]:
                        if y == p.year and _authors_ok(a, p.first_author_tokens):
                            cands.add((node, src))
                            method, ratio = "title-fuzzy", min(ratio, q)
        nodes = sorted({n for n, _ in cands})
        if nodes and all("/10.48550/arxiv." in n for n in nodes) and "arxiv" not in r.text.lower():
            return None  # a text that does not say arXiv may cite the published version: not merged
        if len(nodes) > 1:
            arxiv_nodes = [n for n in nodes if "/10.48550/arxiv." in n]
            others = [n for n in nodes if n not in arxiv_nodes]
            wants_arxiv = "arxiv" in r.text.lower()
            nodes = arxiv_nodes if wants_arxiv and len(arxiv_nodes) == 1 else others if len(others) == 1 else nodes
        if len(nodes) != 1:
            return None
        years_agree = p.year is not None and any(y == p.year for n, y, _a, _s in known.get(r.tkey, ()) if n == nodes[0])
        score = (0.9 + (0.05 if years_agree else 0.0) + (0.04 if p.first_author_tokens else 0.0)) * ratio
        return Resolution(nodes[0], method, round(score, 2), p.title or "", _kind(p), p)

    @staticmethod
    def _title_clusters(refs: list[_Ref]) -> dict[str, list[_Ref]]:
        """Group references by exact normalised title and year (author-compatible), then merge groups
        whose titles are near-identical (guarded fuzzy match)."""
        by_title: dict[str, list[_Ref]] = defaultdict(list)
        singles: dict[str, list[_Ref]] = {}
        by_citation: dict[str, list[_Ref]] = defaultdict(list)
        for r in refs:
            if r.tkey:
                by_title[r.tkey].append(r)
            elif r.ckey:
                by_citation[f"citation {r.ckey}"].append(r)
            else:
                singles[f"ref {r.citing} {r.index}"] = [r]
        groups: dict[str, list[_Ref]] = {}
        for tkey, members in by_title.items():
            years = sorted({m.parsed.year for m in members if m.parsed.year})
            # references without a year join the only year there is; with several years they stay apart
            buckets = [*years] + ([None] if len(years) > 1 and any(m.parsed.year is None for m in members) else [])
            for year in buckets or [None]:
                chosen = [m for m in members if m.parsed.year == year or (m.parsed.year is None and len(years) <= 1)]
                clusters: list[list[_Ref]] = []
                for m in sorted(chosen, key=lambda x: (x.citing, x.index)):
                    home = next((c for c in clusters if all(_authors_ok(o.parsed.first_author_tokens,
                                                                         m.parsed.first_author_tokens) for o in c)), None)
                    if home is None:
                        clusters.append([m])
                    else:
                        home.append(m)
                for c in clusters:
                    atok = ",".join(sorted(set().union(*(x.parsed.first_author_tokens for x in c))))
                    groups[f"title {tkey} {year or ''} {atok}"] = c
        # guarded fuzzy merge: same year, compatible authors, similar long titles
        blocks: dict[tuple[str, str], list[str]] = defaultdict(list)
        for k in sorted(groups):
            g0 = groups[k][0]
            if g0.parsed.year and g0.tkey and len(g0.tkey.split()) >= 4:
                blocks[(g0.parsed.year, g0.tkey.split(" ", 1)[0])].append(k)
        merged: dict[str, str] = {}
        for _block, keys in sorted(blocks.items()):
            for i, a in enumerate(keys):
                ra = groups[a][0]
                for b in keys[i + 1:]:
                    rb = groups[b][0]
                    if ra.tkey == rb.tkey or b in merged:
                        continue
                    if not _authors_ok(ra.parsed.first_author_tokens, rb.parsed.first_author_tokens):
                        continue
                    if similar(ra.tkey, rb.tkey) >= FUZZY_THRESHOLD:
                        merged[b] = merged.get(a, a)
        for b, root in sorted(merged.items()):
            groups[root].extend(groups.pop(b))
            for m in groups[root]:
                m.fuzzy = True
        groups.update(singles)
        groups.update(by_citation)
        return groups

    def _emit_group(self, gkey: str, members: list[_Ref], out: dict) -> CitedInfo:
        kind0, _, rest = gkey.partition(" ")
        if kind0 == "ref":
            r = members[0]
            node = self.minter.part(r.citing, "reference", str(r.index), "cited")
            has_text = bool(r.parsed.title or r.parsed.urls)
            method = "unique" if has_text else "unresolved"
            score = (0.9 if r.parsed.year else 0.75) if has_text else 0.0
            out[(r.citing, r.index)] = Resolution(node, method, score, r.parsed.title or "", _kind(r.parsed), r.parsed)
            return CitedInfo(node, r.parsed.title, None, r.parsed.year)
        if kind0 == "url":
            node = self.minter.node("cited", "url", name_key(rest))
        elif kind0 == "citation":
            node = self.minter.node("cited", "citation", name_key(rest))
        else:
            node = self.minter.node("cited", "title", name_key(rest))
        titles = sorted((m.parsed.title for m in members if m.parsed.title), key=lambda t: (-sum(
            1 for m in members if m.parsed.title == t), t))
        years = sorted({m.parsed.year for m in members if m.parsed.year})
        urls = sorted(u for m in members for u in m.parsed.urls)
        for m in members:
            if kind0 == "url":
                method, score, matched = ("url", 0.9, m.url or "") if m.url else ("title", 0.85, m.parsed.title or "")
            elif m.fuzzy:
                method, score, matched = "title-fuzzy", 0.8, m.parsed.title or ""
            elif kind0 == "citation":
                method, score, matched = ("citation-shared" if len(members) > 1 else "citation"), 0.8, rest
            elif len(members) > 1:
                method, score, matched = "title-shared", 0.85 + (0.05 if m.parsed.year else 0.0), m.parsed.title or ""
            else:
                method, score, matched = "unique", 0.9 if m.parsed.year else 0.75, m.parsed.title or ""
            out[(m.citing, m.index)] = Resolution(node, method, round(score, 2), matched, _kind(m.parsed), m.parsed)
        return CitedInfo(node, titles[0] if titles else None, urls[0] if urls else None,
                         years[0] if len(years) == 1 else None)

    def _preprint_links(self, known: dict) -> list[CitedInfo]:
        links = []
        for tkey in sorted(known):
            entries = known[tkey]
            arxiv = sorted({n for n, *_ in entries if "/10.48550/arxiv." in n})
            published = sorted({n for n, *_ in entries if "/10.48550/arxiv." not in n})
            if len(arxiv) == 1 and len(published) == 1:
                links.append(CitedInfo(arxiv[0], None, None, None, preprint_of=published[0]))
        return links


def resolve_works(works: Iterable[Work], minter: Minter) -> tuple[dict[tuple[str, int], Resolution], list[CitedInfo]]:
    """Resolve every reference of ``works``; see the module docstring for the evidence order."""
    resolver = Resolver(minter)
    for w in works:
        resolver.add_work(w)
    return resolver.resolve()

"""Tool recognition: which software tools a reference cites, from a catalogue kept as data.

A reference cites a tool when it names the tool's defining paper (DOI or title), points at one of the
tool's URLs, or has the tool as the subject of its title (the title starts with an alias, optionally after
the vendor's name, or is little more than the alias plus words like "documentation" or "user guide").
An alias inside a longer title about something else does not count; short or common-word aliases can
be case-sensitive and need context cues; exclusion phrases veto a match. References with strong
software cues but no catalogue match become tool candidates (lower score) for a user to promote.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import orjson

from ..errors import InputError
from ..resources import data_file
from .named import Named, name_key, repository_of
from .parse import ParsedRef, fold, title_key
from .resolve import normalize_url

DOC_WORDS = (r"documentation|docs|user'?s? guide|programming guide|guide|manual|api(?: reference| guide| docs)?|"
             r"reference(?: manual)?|sdk|toolkit|library|project|website|home ?page|repository|github|overview|"
             r"tutorials?|recipes?|release notes|white ?paper|developer|software|tool|tools|framework|profiler|"
             r"runtime|compiler|container|containers|official|version|v?\d+(?:\.\d+)*")
# what may stand before the subject of a documentation title: "A guide to PyTorch's CUDA caching allocator"
LEAD_IN = re.compile(r"^\W*(?:an?\s+|the\s+)?(?:guide|introduction|tutorial|primer|overview|deep dive|walkthrough|"
                     r"notes)\s+(?:to|into|of|on|for)\s+", re.I)
# the words of a title that names a tool's main page ("Rocprofiler documentation"), not a particular document
MAIN_PAGE_WORDS = frozenset("documentation docs doc homepage home page website web site official site project product "
                            "overview".split())
# trailing path segments that only pick a language or a version of a tool's documentation ("en/docs-5.0.2")
_VERSION_SEGMENT = re.compile(r"(?:[a-z]{2}(?:-[a-z]{2})?|latest|stable|current|master|main|dev|docs?|index|"
                              r"(?:docs?|r|v|version|release)?[-_]?\d+(?:\.\d+)*(?:[-_.][\w]+)?)", re.I)
_IN_TITLE = re.compile(r"\b(?P<lead>the|using|with|via|by)\s+(?P<alias>[A-Za-z][\w.+\-]*[A-Za-z0-9+])", re.I)
# "NGC | PyTorch", "CUDA Toolkit – cuBLAS" ((?<!\s): a run of white space is tried once, from its start)
SEGMENTS = re.compile(r"(?<!\s)\s+[|·•]\s+|(?<!\s)\s+[–—]\s+")
MEMO_SIZE = 1 << 16  # remembered recognitions (cleared when full)


@dataclass(frozen=True)
class Tool:
    id: str
    name: str
    category: str
    aliases: tuple[str, ...] = ()
    vendor: str | None = None
    homepage: str | None = None
    url_patterns: tuple[str, ...] = ()
    paper_dois: frozenset[str] = frozenset()
    paper_titles: tuple[tuple[str, int | None], ...] = ()  # (title key, year)
    papers: tuple[tuple[str | None, str | None, int | None], ...] = ()  # (DOI, title key, year) of each paper
    wikidata: str | None = None
    case_sensitive: bool = False
    context: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    patterns: tuple[re.Pattern[str], ...] = field(default=(), compare=False)
    folded_context: tuple[str, ...] = field(default=(), compare=False)
    folded_exclude: tuple[str, ...] = field(default=(), compare=False)
    source: str = "catalogue"  # catalogue, or references (named by the references that cite it)
    kind: str = "tool"  # tool (software), or a named artifact cited like one: benchmark, algorithm, model, dataset
    score: float | None = None  # for a tool named by references: the corpus's confidence
    works: int = 0  # for a tool named by references: how many works cite it


@dataclass(frozen=True, slots=True)
class ToolMatch:
    tool: Tool
    method: str  # doi, url, paper-title, alias, alias-author, cited-record; named-system, repository-url, ...
    score: float
    matched: str


@dataclass(frozen=True, slots=True)
class Candidate:
    """Software a reference seems to cite, too weakly evidenced to be a tool: for a person to promote."""

    key: str
    name: str
    score: float
    matched: str
    method: str


@dataclass(frozen=True, slots=True)
class ArtifactMatch:
    """A named model, dataset, benchmark suite or algorithm a reference cites: the corpus's ``Named``, or a
    catalogue ``Tool`` of that kind."""

    artifact: Tool | Named
    method: str
    score: float
    matched: str


def _alias_pattern(alias: str, vendor: str | None, case_sensitive: bool) -> re.Pattern[str]:
    """Case matters only for one-word aliases of case-sensitive tools ("JAX", "Spark"); a longer alias
    is specific enough in any case ("Cutlass: fast linear algebra in cuda c++")."""
    esc = re.escape(alias).replace(r"\ ", r"[\s\-_]?")
    vend = rf"(?:{re.escape(vendor)}(?:'s)?[\s\-]+)?" if vendor else ""
    flags = 0 if case_sensitive and " " not in alias.strip() else re.I
    return re.compile(rf"^\W*(?:the\s+)?{vend}(?P<alias>{esc})(?![\w\-])", flags)


class Catalogue:
    """The tool catalogue: kg/data/tools.json plus any user files (same format; a user entry replaces
    a built-in one with the same id)."""

    def __init__(self, tools: dict[str, Tool], categories: dict[str, str]) -> None:
        self.tools = dict(sorted(tools.items()))
        self.categories = categories
        self.by_doi: dict[str, list[Tool]] = {}
        self.by_title: dict[str, list[Tool]] = {}
        self.by_first_word: dict[str, list[Tool]] = {}  # folded first word of an alias or of the vendor
        self.by_host: dict[str, list[tuple[str, Tool]]] = {}
        self._memo: dict[tuple[ParsedRef, str | None, str], tuple[ToolMatch, ...]] = {}
        # the names the catalogue knows (a tool the references name under one of them is another thing of
        # that name: its node is {base}tool/named/{key}, apart from the catalogue's)
        self.keys: frozenset[str] = frozenset(
            name_key(x) for t in self.tools.values() for x in (t.id, t.name, *t.aliases) if name_key(x))
        self.main_pages: dict[str, str] = {}  # normalised homepage or URL pattern -> tool id (if only one tool)
        self.by_alias: dict[str, list[Tool]] = {}  # folded alias -> tools
        clash: set[str] = set()
        for t in self.tools.values():
            for page in {*t.url_patterns, (normalize_url(t.homepage or "") or "").lower()} - {""}:
                if self.main_pages.setdefault(page, t.id) != t.id:
                    clash.add(page)
            for a in t.aliases:
                if fold(a):
                    self.by_alias.setdefault(fold(a), []).append(t)
        for page in clash:
            del self.main_pages[page]
        self.vendor_words = frozenset(w for t in self.tools.values() for w in fold(t.vendor or "").split()
                                      if len(w) > 2)
        for t in self.tools.values():
            for d in t.paper_dois:
                self.by_doi.setdefault(d, []).append(t)
            for k, _y in t.paper_titles:
                self.by_title.setdefault(k, []).append(t)
            firsts = {w.split()[0] for w in (fold(a) for a in (*t.aliases, t.vendor or "")) if w}
            for w in sorted(firsts):
                self.by_first_word.setdefault(w, []).append(t)
            for p in t.url_patterns:
                self.by_host.setdefault(p.split("/", 1)[0], []).append((p, t))

    @classmethod
    def load(cls, extra: list[Path] | None = None) -> "Catalogue":
        """The built-in catalogue plus ``extra`` ones (cached per process while the files are unchanged)."""
        paths = [data_file("tools.json"), *(extra or [])]
        stamp = []
        for p in paths:
            try:
                st = Path(p).stat()
                stamp.append((str(p), st.st_mtime_ns, st.st_size))
            except OSError:
                stamp.append((str(p), 0, -1))
        return cls._load(tuple(paths), tuple(stamp))

    @classmethod
    @lru_cache(maxsize=8)
    def _load(cls, paths: tuple[Path, ...], _stamp: tuple) -> "Catalogue":
        extra = list(paths[1:])
        tools: dict[str, Tool] = {}
        categories: dict[str, str] = {}
        for path in [data_file("tools.json"), *(extra or [])]:
            cats, found = _read_catalogue(path, categories)
            categories.update(cats)
            tools.update(found)
        return cls(tools, categories)

    # ------------------------------------------------------------------ matching

    def recognise(self, parsed: ParsedRef, cited_doi: str | None, text: str) -> list[ToolMatch]:
        """Every catalogue tool the reference cites, best evidence per tool, sorted by tool id (memoised:
        the same reference recurs across the records of a corpus)."""
        key = (parsed, cited_doi, text)
        hit = self._memo.get(key)
        if hit is None:
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            hit = self._memo[key] = self._recognise(parsed, cited_doi, text)
        return list(hit)

    def _recognise(self, parsed: ParsedRef, cited_doi: str | None, text: str) -> tuple[ToolMatch, ...]:  # noqa: C901 - the recognisers in priority order, sharing one keep()
        found: dict[str, ToolMatch] = {}

        def keep(m: ToolMatch) -> None:
            old = found.get(m.tool.id)
            if old is None or m.score > old.score:
                found[m.tool.id] = m

        folded_text = fold(text)
        for doi in filter(None, {cited_doi, parsed.doi}):
            for t in self.by_doi.get(doi, ()):
                keep(ToolMatch(t, "doi", 1.0, doi))
        tkey = title_key(parsed.title)
        if tkey:
            for t in self.by_title.get(tkey, ()):
                years = [y for k, y in t.paper_titles if k == tkey and y]
                if not years or not parsed.year or int(parsed.year) in years or abs(int(parsed.year) - years[0]) <= 1:
                    keep(ToolMatch(t, "paper-title", 0.95, parsed.title or ""))
        for url in parsed.urls:
            nu = normalize_url(url)
            if not nu:
                continue
            low = nu.lower()
            hits = [(len(p), p, t) for p, t in self.by_host.get(low.split("/", 1)[0], ())
                    if low == p or low.startswith((p + "/", p + "?", p + "#"))]
            if hits:
                longest = max(n for n, _p, _t in hits)  # a sub-tool's page does not also tag its parent
                package = repository_of(url)
                for n, pattern, t in hits:
                    if n != longest or self._vetoed(t, folded_text):
                        continue
                    if package and pattern.count("/") <= 1 and fold(package[0]) not in {fold(a) for a in t.aliases}:
                        continue  # a package's page on a site-wide pattern ("bioconductor.org/packages/X") is X
                    keep(ToolMatch(t, "url", 0.95, url))
        title = parsed.title or ""
        subjects = [title]
        if title and (lead := LEAD_IN.match(title)):
            subjects.append(title[lead.end():])
        if title and SEGMENTS.search(title):
            subjects.extend(seg for seg in SEGMENTS.split(title) if seg.strip())
        for subject in dict.fromkeys(subjects):
            if not subject:
                continue
            spans: list[tuple[int, int, Tool, str]] = []
            words = fold(subject).split()[:3]
            if words and words[0] == "the":
                words = words[1:]
            candidates = {t.id: t for w in words[:2] for t in self.by_first_word.get(w, ())}
            for _tid, t in sorted(candidates.items()):
                for pat in t.patterns:
                    m = pat.match(subject)
                    if m and self._is_subject(subject, m.end("alias"), parsed.venue is None) and \
                            self._context_ok(t, folded_text):
                        spans.append((m.start("alias"), m.end("alias"), t, m.group("alias")))
            for s, e, t, alias in spans:
                if any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, t2, _ in spans if t2.id != t.id):
                    continue  # a longer alias of another tool covers this one ("PyTorch Profiler" vs "PyTorch")
                keep(ToolMatch(t, "alias", 0.85, alias))
        if not found and title:
            self._alias_in_title(title, folded_text, keep)
        if not found and parsed.authors and not parsed.venue:
            # "PyTorch. Performance Tuning Guide. ..." - a web page whose author is the tool's project
            author = fold(parsed.authors[0])
            first = author.split()[0] if author else ""
            for t in self.by_first_word.get(first, ()):
                if any(fold(a) == author for a in t.aliases) and self._context_ok(t, folded_text):
                    keep(ToolMatch(t, "alias-author", 0.75, parsed.authors[0]))
        return tuple(found[k] for k in sorted(found))

    def _alias_in_title(self, title: str, folded_text: str, keep: Callable[[ToolMatch], None]) -> None:
        """A known alias the title is about though it does not open it: "... using Cytoscape" (the alias ends
        the title or its first sentence) and "the MAFFT multiple sequence alignment program" (a software noun
        follows within five words)."""
        from .named import cues
        c = cues()
        for m in _IN_TITLE.finditer(title):
            alias = m.group("alias")
            tools = [t for t in self.by_alias.get(fold(alias), ()) if t.kind == "tool" and len(alias) >= 3
                     and (not t.case_sensitive or alias in t.aliases) and self._context_ok(t, folded_text)]
            if len(tools) != 1:
                continue
            rest = title[m.end():]
            if m.group("lead").lower() == "the":
                words = rest.split()[:5]
                if not any(c.software.ends(fold(" ".join(words[:j]))) for j in range(1, len(words) + 1)):
                    continue
            elif not re.match(r"^\s*(?:$|[.:;(])", rest):
                continue
            keep(ToolMatch(tools[0], "alias", 0.8, alias))  # kg:method is closed (shapes/tools.ttl)
            return

    def vetoes(self, name: str, text: str) -> bool:
        """A catalogue tool named ``name`` has an exclusion phrase in ``text``: the catalogue says the text is
        about something else of that name ("Amos Tversky", "NeMo Megatron")."""
        folded = fold(text)
        return any(self._vetoed(t, folded) for t in self.by_alias.get(fold(name), ()))

    def main_page_of_url(self, url: str) -> str | None:
        """The tool whose main page (homepage or URL pattern, in any language or version of its documentation)
        a URL is, or None."""
        parts = ((normalize_url(url) if "://" in url else url) or "").lower().split("/")
        while len(parts) > 1 and _VERSION_SEGMENT.fullmatch(parts[-1]):
            parts.pop()
        return self.main_pages.get("/".join(parts))

    def _longest_alias(self) -> int:
        """The most words any alias has (at least 1)."""
        if getattr(self, "_alias_words", None) is None:
            self._alias_words = max((len(a.split()) for a in self.by_alias), default=1) or 1
        return self._alias_words

    def main_page_of_title(self, title: str | None) -> str | None:
        """The tool a title names and nothing else, as a main page does ("NVIDIA CUPTI", "Rocprofiler
        documentation", "CUDA Profiling Tools Interface (CUPTI) - CUDA Toolkit": the part before the site's
        name), or None. A particular document ("user guide", "API reference") is not the main page."""
        if not title:
            return None
        words = fold(SEGMENTS.split(title)[0].split(" - ")[0]).split()
        n = len(words)
        m = self._longest_alias()  # (spans longer than every alias match nothing: a long title costs n*m, not n*n)
        spans = {" ".join(words[i:j]) for i in range(n) for j in range(i + 1, min(n, i + m) + 1)}
        tools = sorted({t.id: t for span in spans for t in self.by_alias.get(span, ())}.items())
        fits = []
        for tid, t in tools:
            aliases = {fold(a) for a in t.aliases}
            k = max(m, *(len(a.split()) for a in aliases)) if aliases else m
            covered = [False] * n + [True]  # covered[i]: words[i:] are aliases of t and filler words
            for i in range(n - 1, -1, -1):
                filler = words[i] in MAIN_PAGE_WORDS or words[i] in self.vendor_words
                covered[i] = (filler and covered[i + 1]) or any(
                    " ".join(words[i:j]) in aliases and covered[j] for j in range(i + 1, min(n, i + k) + 1))
            if covered[0] and any(" ".join(words[i:j]) in aliases for i in range(n)
                                  for j in range(i + 1, min(n, i + k) + 1)):
                fits.append(tid)
        return fits[0] if len(fits) == 1 else None

    def recognise_record(self, title: str, year: str | None) -> list[ToolMatch]:
        """Tools a reference cites through the input record it resolved to: the record's title is a
        tool's defining paper or names the tool at its start (method ``cited-record``, score <= 0.9)."""
        parsed = ParsedRef(title=title, year=year, venue="(input record)", style="record")
        return [ToolMatch(m.tool, "cited-record", min(m.score, 0.9), m.matched)
                for m in self.recognise(parsed, None, title) if m.method in ("paper-title", "alias")]

    @staticmethod
    def _is_subject(title: str, alias_end: int, no_venue: bool = False) -> bool:
        """The alias (at the start of the title) is what the title is about: it stands alone or before a
        colon, or only documentation words follow, or (outside a journal or proceedings) a short
        description of one of its parts ("PyTorch CUDA caching allocator")."""
        rest = title[alias_end:]
        if re.match(r"^\s*(?:$|[:\-–—(,;.|/])", rest):
            return True
        words = fold(rest).split()
        if no_venue and len(words) <= 4 and not re.search(r"\b(?:for|of|on|in|with|to|via|using|and)\b", rest, re.I):
            return True
        return len(words) <= 4 and all(re.fullmatch(DOC_WORDS, w) or len(w) <= 2 for w in words) or \
            bool(re.match(rf"^\s+(?:{DOC_WORDS})\b", rest, re.I)) and len(words) <= 6

    @staticmethod
    def _vetoed(t: Tool, folded_text: str) -> bool:
        padded = f" {folded_text} "
        return any(f" {x} " in padded for x in t.folded_exclude)

    def _context_ok(self, t: Tool, folded_text: str) -> bool:
        if self._vetoed(t, folded_text):
            return False
        if not t.context:
            return True
        padded = f" {folded_text}"
        return any(f" {c}" in padded for c in t.folded_context)


def _read_catalogue(path: Path, known_categories: dict[str, str] | None = None
                    ) -> tuple[dict[str, str], dict[str, Tool]]:
    known_categories = known_categories or {}
    try:
        doc = orjson.loads(path.read_bytes())
    except OSError as e:
        raise InputError(str(path), f"cannot be read ({e.strerror or e})", "check the --tools path") from None
    except orjson.JSONDecodeError as e:
        raise InputError(str(path), f"is not valid JSON ({e})", "fix the tool catalogue") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("tools"), list):
        raise InputError(str(path), 'is not a tool catalogue (no "tools" list)',
                         "see kg/data/tools.json for the format")
    out: dict[str, Tool] = {}
    for i, t in enumerate(doc["tools"]):
        where = f"{path}: tools[{i}]"
        if not isinstance(t, dict) or not isinstance(t.get("id"), str) or not isinstance(t.get("name"), str):
            raise InputError(where, "needs an \"id\" and a \"name\"", "fix the tool entry")
        if not isinstance(t.get("category"), str):
            raise InputError(where, "needs a \"category\"", "fix the tool entry")
        if not re.fullmatch(r"[a-z0-9][a-z0-9._+-]*", t["id"]):
            raise InputError(where, f"id {t['id']!r} is not lower-case kebab-case",
                             "use letters, digits, '-', '.', '_', '+'")
        declared = doc.get("categories")
        cats_here = declared if isinstance(declared, dict) else {}
        if t["category"] not in cats_here and t["category"] not in known_categories:
            raise InputError(where, f"category {t['category']!r} is not declared", 'add it to "categories"')
        aliases = tuple(dict.fromkeys([t["name"], *(a for a in t.get("aliases", []) if isinstance(a, str))]))
        vendor = t.get("vendor") if isinstance(t.get("vendor"), str) else None
        cs = bool(t.get("case_sensitive", False))
        kind = t.get("kind", "tool")
        if kind not in ("tool", "benchmark", "algorithm", "model", "dataset"):
            raise InputError(where, f"kind {kind!r} is not one of tool, benchmark, algorithm, model, dataset",
                             "fix the entry's \"kind\"")
        papers = [p for p in t.get("papers", []) if isinstance(p, dict)]
        out[t["id"]] = Tool(
            id=t["id"], name=t["name"], category=t["category"], aliases=aliases, vendor=vendor,
            homepage=t.get("homepage"),
            url_patterns=tuple(p.lower().rstrip("/").removeprefix("www.") for p in t.get("url_patterns", [])),
            paper_dois=frozenset(p["doi"].lower() for p in papers if isinstance(p.get("doi"), str)),
            paper_titles=tuple((k, p.get("year") if isinstance(p.get("year"), int) else None)
                               for p in papers if (k := title_key(p.get("title")))),
            papers=tuple((p["doi"].lower() if isinstance(p.get("doi"), str) else None,
                          title_key(p.get("title") if isinstance(p.get("title"), str) else None),
                          p.get("year") if isinstance(p.get("year"), int) else None) for p in papers),
            wikidata=t.get("wikidata"), case_sensitive=cs, kind=kind,
            context=tuple(t.get("context", [])), exclude=tuple(t.get("exclude", [])),
            patterns=tuple(_alias_pattern(a, vendor, cs) for a in aliases),
            folded_context=tuple(fold(c) for c in t.get("context", []) if fold(c)),
            folded_exclude=tuple(fold(x) for x in t.get("exclude", []) if fold(x)),
        )
    cats = doc.get("categories", {})
    return (cats if isinstance(cats, dict) else {}), out

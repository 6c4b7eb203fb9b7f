"""Named artifacts the tool catalogue does not know: software, models, datasets, benchmark suites, algorithms.

A reference names an artifact when its title has the form "Name: a/an ... <noun> ..." (the head noun says
what the artifact is: a system, framework, compiler, profiler, library, package ... is software; a model,
network or transformer is a model; a dataset, corpus or database of records is a dataset; a benchmark
suite is a benchmark; an algorithm, method, approach or performance model is an algorithm), or
"Name: <what it does>" in a computing context (a weaker cue, helped by an identifier-like name and a
systems venue), when it points at a code repository (GitHub, GitLab, ...) or a package index (PyPI, CRAN,
Bioconductor, npm, crates.io, conda ...), when its title is a product's documentation ("X user guide"), or
when it appeared in a software venue (JOSS, SoftwareX, an "Application note"). The cues are general and
kept as data (kg/data/recognition.json); nothing here knows a name.

Each reference gives at most one ``Mention`` with the evidence of that reference alone. ``decide`` then
looks at every mention of a name across the corpus: the same name cited by several works, or with several
kinds of cue, raises its score. Confident software becomes a tool node (``{base}tool/{key}``, typed as
catalogue tools are), weak software a tool candidate for a person to promote, and the other kinds
artifact nodes of their kind. The result depends only on the set of mentions, never on their order.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import orjson

from ..model import Reference, Work
from ..resources import data_file
from .parse import ParsedRef, fold, parse_reference

TOOL_MIN = 0.7  # corpus score from which software is a tool (below: a tool candidate)
CANDIDATE_MIN = 0.45  # corpus score from which software is a tool candidate
ARTIFACT_MIN = 0.6  # corpus score from which a model, dataset, benchmark or algorithm gets its node
KINDS = ("tool", "model", "dataset", "benchmark", "algorithm")
STRONG, WEAK = 0.85, 0.5

_SEP = re.compile(r"^(?P<name>[^:–—]{1,60}?)\s*(?::|–|—|--|\s-\s|-(?=(?:A|An|The|a|an|the)\s))\s*(?P<desc>\S.*)$")
_FUNCTION_WORDS = frozenset("of in on for to the a an and or is are was with via by from at as its into how why "
                            "what when we our you your all".split())
_IDLIKE = re.compile(r"[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]|[A-Za-z][\-_.+][A-Za-z0-9]|^[A-Z]{2,}\d*$")
_HEAD_END = re.compile(r"\s(?:for|of|to|in|on|with|via|using|based|that|which|from|through|across|at|by|towards?|"
                       r"and its|enabling|supporting|implementing)\s")


@dataclass(frozen=True, slots=True)
class Mention:
    """What one reference says of a named artifact."""

    key: str  # the normalised name: the node key
    name: str  # as written
    kind: str  # tool, model, dataset, benchmark, algorithm
    category: str  # for software: the category its description suggests (other when unsure)
    method: str  # named-system, repository-url, package-index, documentation, software-venue
    score: float  # the evidence of this reference alone
    matched: str  # the text that matched


@dataclass(frozen=True, slots=True)
class Named:
    """A named artifact as the whole corpus knows it."""

    key: str
    name: str  # the spelling most references use (ties: code-point order)
    kind: str
    category: str
    score: float  # raised by more citing works and by more kinds of cue
    works: int  # citing works
    methods: tuple[str, ...]
    status: str  # tool, candidate, or the artifact kind (model, dataset, benchmark, algorithm)


class _Words:
    """A list of folded words and phrases ("x*" a prefix) compiled into one pattern (and one that must end
    the text: what the head noun of a description is)."""

    def __init__(self, words: Iterable[str]) -> None:
        alts = sorted({(fold(w.rstrip("*")), w.endswith("*")) for w in words if fold(w.rstrip("*"))},
                      key=lambda x: (-len(x[0]), x))
        body = "|".join(re.escape(w) + (r"\w*" if star else r"\b") for w, star in alts)
        self.pattern = re.compile(rf"(?<!\w)(?:{body})") if alts else None
        self.final = re.compile(rf"(?<!\w)(?:{body})$") if alts else None

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text) if self.pattern else None

    def ends(self, text: str) -> bool:
        """The text ends with one of the words (its head noun is one)."""
        return bool(self.final and self.final.search(text))

    def __contains__(self, text: str) -> bool:
        return self.search(text) is not None


@dataclass(frozen=True)
class Cues:
    software: _Words
    model: _Words
    model_objects: _Words
    model_exempt: _Words
    algorithm: _Words
    dataset: _Words
    database_software: _Words
    benchmark: _Words
    book: _Words
    systems: _Words
    hardware: _Words
    systems_venues: _Words
    software_venues: _Words
    software_venue_strong: _Words
    doc_words: frozenset[str]  # folded documentation words and phrases ("user guide")
    repository_hosts: frozenset[str]
    package_indexes: tuple[tuple[str, str], ...]
    not_names: frozenset[str]
    categories: tuple[tuple[str, _Words], ...]
    ambiguous: _Words  # head nouns that name software only in a software context ("a framework for ...")
    software_words: _Words  # words anywhere in a title or venue that describe software
    languages: _Words  # "in Python", "for R": a description that names its implementation language
    package_venues: _Words  # a venue that is a package index, a code host or a software archive
    model_venues: _Words  # venues of model-description papers: a "model" there is a code
    archive_dois: tuple[str, ...]  # DOI prefixes of software archives and software journals
    package_dois: tuple[tuple[str, str], ...]  # DOI prefixes that end with a package's name
    version: re.Pattern[str]
    kind_cues: dict[str, _Words]
    kind_blockers: dict[str, _Words]


@cache
def cues() -> Cues:
    """kg/data/recognition.json, compiled once."""
    d = orjson.loads(data_file("recognition.json").read_bytes())
    return Cues(
        software=_Words(d["software_nouns"]), model=_Words(d["model_nouns"]),
        model_objects=_Words(d["model_objects"]), model_exempt=_Words(d["model_exempt"]),
        algorithm=_Words(d["algorithm_nouns"]), dataset=_Words(d["dataset_nouns"]),
        database_software=_Words(d["database_software"]), benchmark=_Words(d["benchmark_nouns"]),
        book=_Words(d["book_nouns"]), systems=_Words(d["systems_words"]), hardware=_Words(d["hardware_words"]),
        systems_venues=_Words(d["systems_venues"]), software_venues=_Words(d["software_venues"]),
        software_venue_strong=_Words(d["software_venue_strong"]),
        doc_words=frozenset(fold(w) for w in d["doc_words"] if fold(w)),
        repository_hosts=frozenset(d["repository_hosts"]),
        package_indexes=tuple((p["host"], p["path"]) for p in d["package_indexes"]),
        not_names=frozenset(fold(w) for w in d["not_names"]),
        categories=tuple((c["category"], _Words(c["words"])) for c in d["category_cues"]),
        ambiguous=_Words(d["ambiguous_software_nouns"]), software_words=_Words(d["software_words"]),
        languages=_Words(d["implementation_languages"]), package_venues=_Words(d["package_venues"]),
        model_venues=_Words(d["model_software_venues"]), archive_dois=tuple(d["software_archive_dois"]),
        package_dois=tuple((x["prefix"], x["index"]) for x in d["package_dois"]),
        version=re.compile(d["version_pattern"], re.I),
        kind_cues={k: _Words(v) for k, v in d["kind_cues"].items()},
        kind_blockers={k: _Words(v) for k, v in d["kind_cue_blockers"].items()},
    )


def name_key(name: str) -> str:
    """``"Rl-scope"`` -> ``rl-scope``: the folded name, words joined by '-' (the node key)."""
    return "-".join(fold(name).split())


def _identifier_like(name: str) -> bool:
    """CamelCase, digits, inner dashes or dots, or all capitals: a name that is no ordinary word."""
    return bool(_IDLIKE.search(name.strip()))


def _plausible_name(name: str, c: Cues, multiword: bool) -> bool:
    """A proper name: 1-4 words, not a sentence, not a heading word; more than one word only when
    ``multiword`` (a description that says what it is) and every word is capitalised or identifier-like."""
    name = name.strip(" .,;'\"“”")
    words = name.split()
    if not words or len(words) > 4 or not name[0].isalnum() or len(name) < 2:
        return False
    folded = fold(name)
    if not folded or folded in c.not_names or any(w in c.not_names for w in folded.split()[-1:]):
        return False
    if len(words) == 1:
        return True
    if words[0].lower() == "the" and len(words) == 2:
        return True
    if not multiword or any(w.lower() in _FUNCTION_WORDS for w in words):
        return False
    return all(w[:1].isupper() or _identifier_like(w) or fold(w) in c.software or re.fullmatch(r"v?\d+(?:\.\d+)*", w)
               for w in words)


def _head(desc: str) -> str:
    """A noun-phrase description up to its first preposition, where its head noun ends it ("a modular
    program analysis tool framework for accelerators" -> "a modular program analysis tool framework"),
    with hyphenated words joined ("end-to-end" is one word); "" for a description that opens with a verb
    ("Training neural networks on ...", "Let users query ...") or an adverb: those have no head noun."""
    joined = fold(re.sub(r"(?<=\w)[-‐‑](?=\w)", "", desc))
    first = joined.split(" ", 1)[0]
    if first in _VERBS or (first.endswith(("ing", "ly")) and len(first) > 4 and first not in _ING_NOUNS):
        return ""
    m = _HEAD_END.search(f" {joined} ")
    return f" {joined} "[: m.start()].strip() if m else joined


_VERBS = frozenset("let make bring put keep get go use take give turn run build bridging beyond towards toward "
                   "when why how what where".split())
_ING_NOUNS = frozenset("string strings thing things king ring".split())


def _kind_of_head(head: str, c: Cues) -> str | None:
    """What a noun-phrase description says the artifact is, by the noun that ends its head, or None."""
    if not head:
        return None
    # the order matters: "database system" is software, "image database" data, "performance model" an algorithm
    for words, kind in ((c.book, "book"), (c.benchmark, "benchmark"), (c.database_software, "tool"),
                        (c.dataset, "dataset"), (c.algorithm, "algorithm"), (c.software, "tool")):
        if words.ends(head):
            return kind
    return "model" if c.model.ends(head) and not c.model_exempt.ends(head) else None


def category_of(text: str, c: Cues | None = None) -> str:
    """The tool category a folded description suggests (the first category whose words it has), or other."""
    c = c or cues()
    for cat, words in c.categories:
        if words.search(text):
            return cat
    return "other"


@dataclass(frozen=True, slots=True)
class _Evidence:
    """What a reference says of software apart from its title's structure."""

    software_venue: bool  # a software journal or an application note of a domain journal
    strong_venue: bool  # a venue that publishes nothing but software
    package: bool  # a package index, a code host or a software archive in the venue, text or DOI
    language: bool  # the title names an implementation language ("... in Python")
    words: bool  # the title has words that describe software ("open-source", "toolbox", ...)
    model_venue: bool  # a venue of model-description papers, where a model is a code
    version: bool  # a version string in the text
    systems_venue: bool

    @property
    def context(self) -> bool:
        """Any software context at all."""
        return self.software_venue or self.package or self.language or self.words or self.systems_venue


def _evidence(parsed: ParsedRef, folded_text: str, c: Cues) -> _Evidence:
    venue = fold(parsed.venue or "")
    title = fold(parsed.title or "")
    strong = c.software_venue_strong.search(folded_text) is not None
    doi = parsed.doi or ""
    return _Evidence(
        software_venue=strong or (bool(venue) and c.software_venues.search(venue) is not None), strong_venue=strong,
        package=c.package_venues.search(venue or folded_text) is not None or doi.startswith(c.archive_dois),
        language=c.languages.search(title) is not None, words=c.software_words.search(title) is not None,
        model_venue=bool(venue) and c.model_venues.search(venue) is not None,
        version=c.version.search(folded_text.replace(" ", "  ")) is not None or bool(
            re.search(r"\bv(?:ersion)?\s?\d+\.\d", parsed.title or "", re.I)),
        systems_venue=bool(venue) and c.systems_venues.search(venue) is not None)


def _clean_name(name: str) -> str:
    """The name without a leading "The" before an identifier ("The Exo-Striker" -> "Exo-Striker")."""
    words = name.split()
    return " ".join(words[1:]) if len(words) == 2 and words[0].lower() == "the" and _identifier_like(words[1]) \
        else name


def _strict_identifier(name: str) -> bool:
    """CamelCase, letters with digits, or three capitals or more: a name no dictionary has."""
    return bool(re.search(r"[a-z][A-Z]|[A-Za-z]\d|^[A-Z][A-Z0-9]{2,}$", name))


def _not_a_person_or_venue(name: str, parsed: ParsedRef, c: Cues) -> bool:
    """The name is none of the reference's authors (a name before a colon in author-colon styles), its venue
    or a URL word."""
    f = fold(name)
    if not f or f in c.not_names:
        return False
    people = {w for a in parsed.authors for w in fold(a).split() if len(w) > 2}
    return not (f in people or (parsed.venue and f == fold(parsed.venue)))


def _named(parsed: ParsedRef, c: Cues, ev: _Evidence) -> Mention | None:  # noqa: C901 - one cue's cases
    """The "Name: description" cue (and "Name, a ... library")."""
    title = parsed.title or ""
    m = _SEP.match(title) or _APPOS.match(title)
    if not m:
        return _the_name(parsed, c, ev)
    name, desc = _clean_name(m.group("name").strip()), fold(m.group("desc"))
    if not desc or not _not_a_person_or_venue(name, parsed, c):
        return None
    head = _head(m.group("desc"))
    kind = _kind_of_head(head, c)
    appositive = m.re is _APPOS
    if appositive and (kind != "tool" or len(name.split()) > 1):
        return None
    name_has_noun = len(name.split()) == 2 and fold(name.split()[-1]) in c.software
    if kind == "book" or not _plausible_name(name, c, multiword=kind is not None or name_has_noun):
        return None
    if kind is None and name_has_noun:
        kind = "tool"
    idlike = _identifier_like(name)
    if kind == "model" and (ev.software_venue or ev.package or ev.language or ev.model_venue):
        kind = "tool"  # "ggeffects: ... of regression models" in a software journal; a model code in GMD
    if kind is not None:
        score = STRONG if kind == "tool" else 0.8
        after = desc[len(fold(head)):] if desc.startswith(fold(head)) else desc
        if kind == "tool" and c.ambiguous.ends(head) and not (ev.context or idlike or c.systems.search(after)):
            score = WEAK  # "Name: a framework for ... knowledge": a conceptual framework as often as software
        if kind == "tool":
            score += 0.05 * ev.software_venue + 0.05 * (ev.package or ev.language)
    else:
        # "Name: <what it does>": software in a computing context or where the reference says software
        systems_words = c.systems.search(desc) is not None
        software = ev.software_venue or ev.package or ev.language or ev.words
        if not (systems_words or ev.systems_venue or software) or (len(name.split()) > 1 and
                                                                  fold(name.split()[0]) != "the"):
            return None
        model_words = c.model_objects.search(desc) is not None and c.model_exempt.search(desc) is None
        if model_words and not software:  # "BERT: Pre-training of deep bidirectional transformers ...": a model
            kind, score = "model", WEAK + 0.1
        else:
            kind = "tool"
            score = WEAK + 0.15 * systems_words + 0.1 * idlike + 0.1 * ev.systems_venue + 0.15 * ev.strong_venue \
                + 0.05 * (ev.software_venue and not ev.strong_venue) + 0.2 * ev.language + 0.2 * ev.package \
                + 0.1 * ev.words - 0.3 * (c.hardware.search(desc) is not None)
    category = category_of(f"{fold(name)} {desc}", c) if kind == "tool" else "other"
    method = "package-index" if kind == "tool" and ev.package and not ev.software_venue else "named-system"
    return Mention(name_key(name), name, kind, category, method, round(min(score, 0.95), 2), title)


_APPOS = re.compile(r"^(?P<name>[^\s,:;]{2,40}),?\s+(?P<desc>(?:an?)\s+\S.*)$")
_THE_NAME = re.compile(r"\bthe\s+(?P<name>[A-Za-z][\w.+\-]*[A-Za-z0-9+])\s+")
_TAIL_NAME = re.compile(r"\b(?:using|with|via|in)\s+(?P<name>[A-Za-z][\w.+\-]*[A-Za-z0-9])\W*$")


def _the_name(parsed: ParsedRef, c: Cues, ev: _Evidence) -> Mention | None:
    """"Recent developments in the MAFFT multiple sequence alignment program", "Overview of the PALM model system
    6.0": an identifier-like name after "the", then a few words that end with a software noun; or, in a package's
    or archive's reference, "... using bayestestR" (the name that ends the title)."""
    title = parsed.title or ""
    for m in _THE_NAME.finditer(title):
        name = m.group("name")
        if not _strict_identifier(name) or not _not_a_person_or_venue(name, parsed, c):
            continue
        rest = title[m.end():].split()[:5]
        for j in range(1, len(rest) + 1):
            phrase = fold(" ".join(rest[:j]))
            if fold(rest[j - 1]) in _FUNCTION_WORDS:
                break
            context = ev.context or ev.model_venue
            if (c.software.ends(phrase) and (context or not c.ambiguous.ends(phrase))) or \
                    (ev.model_venue and c.model.ends(phrase)):
                score = 0.7 + 0.1 * (ev.package or ev.language or ev.words or ev.software_venue)
                return Mention(name_key(name), name, "tool", category_of(fold(title), c), "named-system",
                               round(score, 2), title)
            if re.search(r"[.:;,]$", rest[j - 1]):
                break
    tail = _TAIL_NAME.search(title)
    if tail and (ev.package or ev.software_venue) and _strict_identifier(tail.group("name")) and \
            _not_a_person_or_venue(tail.group("name"), parsed, c):
        name = tail.group("name")
        return Mention(name_key(name), name, "tool", category_of(fold(title), c), "package-index", 0.75, title)
    return None


def _archive(parsed: ParsedRef, c: Cues, ev: _Evidence) -> Mention | None:
    """A package DOI that ends with the package's name (CRAN's 10.32614/CRAN.package.X), or a software
    archive's record (Zenodo, figshare) whose title is a repository ("owner/repo") or a name and a version."""
    doi = parsed.doi or ""
    for prefix, _index in c.package_dois:
        if doi.startswith(prefix) and re.fullmatch(r"[\w.\-]{2,60}", doi[len(prefix):]):
            name = doi[len(prefix):]
            title = parsed.title or ""
            spelled = next((w for w in re.findall(r"[\w.\-]+", title) if w.lower() == name), name)
            return Mention(name_key(spelled), spelled, "tool", category_of(fold(title), c), "package-index", 0.9, doi)
    if not doi.startswith(c.archive_dois) or not parsed.title:
        return None
    title = parsed.title.strip()
    m = re.match(r"^(?:[\w.\-]+)/(?P<name>[\w.\-]{2,60})(?::|\s|$)", title)
    if m:
        name = m.group("name")
        return Mention(name_key(name), name, "tool", category_of(fold(title), c), "package-index", 0.85, title)
    m = re.match(r"^(?P<name>[A-Za-z][\w.+\-]*(?:\s[A-Z][\w.+\-]*)?)\s*(?:[:,]\s*)?v?(?:ersion\s)?\d+(?:\.\d+)+\S*$",
                 title)
    if m and _plausible_name(m.group("name"), c, multiword=True):
        name = m.group("name")
        return Mention(name_key(name), name, "tool", category_of(fold(title), c), "package-index", 0.8, title)
    return None


def repository_of(url: str, c: Cues | None = None) -> tuple[str, str, str] | None:
    """(name, method, matched) for a repository or package-index URL, or None."""
    c = c or cues()
    from .resolve import normalize_url
    nu = normalize_url(url)
    if not nu:
        return None
    host, _, path = nu.partition("/")
    parts = [p for p in re.split(r"[/?&]", path) if p]
    for ihost, prefix in c.package_indexes:
        if host == ihost or host.endswith("." + ihost):
            if prefix.endswith("="):
                hit = next((p[len(prefix):] for p in parts if p.startswith(prefix)), None)
            elif prefix:
                segs = prefix.split("/")
                hit = parts[len(segs)] if parts[:len(segs)] == segs and len(parts) > len(segs) else None
            else:
                hit = parts[-1] if parts else None
            if hit and re.fullmatch(r"[\w.\-+]{2,60}", hit):
                return hit, "package-index", url
    if host in c.repository_hosts and len(parts) >= 2 and parts[0] not in ("orgs", "topics", "search", "about"):
        repo = re.sub(r"\.git$", "", parts[1])
        if re.fullmatch(r"[\w.\-+]{2,60}", repo):
            return repo, "repository-url", url
    return None


def recognise(parsed: ParsedRef, text: str) -> Mention | None:
    """The named artifact one reference cites, with the evidence of this reference alone, or None."""
    c = cues()
    folded_text = fold(text)
    ev = _evidence(parsed, folded_text, c)
    found = _named(parsed, c, ev)
    if found is not None and found.kind != "tool":
        return found
    for url in parsed.urls:
        hit = repository_of(url, c)
        if hit is None:
            continue
        name, method, matched = hit
        if found is not None and name_key(found.name) == name_key(name):
            return Mention(found.key, found.name, "tool", found.category, found.method,
                           round(min(found.score + 0.1, 0.95), 2), found.matched)
        if found is None and fold(name) not in c.not_names:
            desc = fold(parsed.title or "")
            return Mention(name_key(name), name, "tool", category_of(desc, c), method,
                           0.8 if method == "package-index" else 0.75, matched)
    if found is not None:
        return found
    return _archive(parsed, c, ev) or _documentation(parsed, c, ev.strong_venue)


def _documentation(parsed: ParsedRef, c: Cues, strong_venue: bool) -> Mention | None:
    """"X documentation", "X user guide", "X API reference" ...; a title in a software venue."""
    title = parsed.title or ""
    folded = fold(title)
    named = _doc_name(folded, c.doc_words)
    if named is not None and not _SEP.match(title):
        words = title.split()
        name = " ".join(words[: len(named.split())]) if len(words) >= len(named.split()) else ""
        if name and _plausible_name(name, c, multiword=True) and not c.book.search(folded):
            return Mention(name_key(name), name, "tool", category_of(folded, c), "documentation", 0.7, title)
    if strong_venue and title and len(title.split()) <= 3 and _plausible_name(title, c, multiword=True):
        return Mention(name_key(title), title, "tool", category_of(folded, c), "software-venue", 0.75, title)
    return None


def _doc_name(folded: str, doc_words: frozenset[str]) -> str | None:
    """The name before the documentation words that end a folded title, or None (what the pattern
    ``^(?P<name>.+?)(?: (?:doc words))+$`` matches, in time linear in the title's words).

    >>> _doc_name("pytorch user guide docs", frozenset({"user guide", "guide", "docs"}))
    'pytorch'
    """
    words = folded.split(" ")
    longest = max((w.count(" ") + 1 for w in doc_words), default=1)
    ends = [False] * len(words) + [True]  # ends[i]: words[i:] are documentation words and phrases
    for i in range(len(words) - 1, 0, -1):
        ends[i] = any(ends[i + k] and " ".join(words[i:i + k]) in doc_words
                      for k in range(1, min(longest, len(words) - i) + 1))
    first = next((i for i in range(1, len(words)) if ends[i]), None)
    return None if first is None else " ".join(words[:first])


def reference_kind(parsed: ParsedRef, text: str, base: str) -> str:
    """What a reference cites when no tool or named artifact was recognised: ``base`` (paper, web, dataset or
    other, from its identifiers and shape) corrected by general cues kept as data: a standard, regulation or
    handbook is other; a newspaper or blog web; a title whose subject is a database, atlas or data resource a
    dataset; an evaluation challenge a benchmark; a reference with a venue or a year but no title (a journal
    reference given by its fields) a paper; a web page about hardware other."""
    c = cues()
    title = fold(parsed.title or "")
    venue = fold(parsed.venue or "")
    folded = fold(text)
    subject = fold((parsed.title or "").split(":")[0])
    head = " ".join(subject.split()[:6])
    if base == "web" and c.kind_cues["hardware"].search(title):
        return "other"  # a product page or whitepaper of a piece of hardware
    if base in ("paper", "other", "web"):
        if c.kind_cues["web"].search(venue or folded) and not parsed.doi:
            return "web"
        if (c.kind_cues["other"].search(head) or c.kind_cues["other"].search(venue)) and not parsed.doi:
            return "other"
        hit = c.kind_cues["dataset"].search(head)
        if hit and not c.kind_blockers["dataset"].search(head[: hit.start()]) and \
                not c.kind_blockers["dataset"].search(head[hit.end():hit.end() + 12]):
            return "dataset"
        hit = c.kind_cues["benchmark"].search(head)
        if hit and not c.kind_blockers["benchmark"].search(title) and not parsed.doi:
            return "benchmark"
    if base == "other" and (venue or title or parsed.authors):
        return "paper"  # a journal reference given by its fields, or a truncated one: papers unless said otherwise
    return base


def decide_one(mentions: list[tuple[str, Mention]]) -> Named | None:
    """The corpus's view of one name from its (citing DOI, mention) pairs (all with one key)."""
    if not mentions:
        return None
    kinds: dict[str, float] = defaultdict(float)
    for _w, m in mentions:
        kinds[m.kind] += m.score
    kind = sorted(kinds.items(), key=lambda kv: (-round(kv[1], 6), KINDS.index(kv[0])))[0][0]
    same = [(w, m) for w, m in mentions if m.kind == kind]
    works = len({w for w, _m in same})
    methods = tuple(sorted({m.method for _w, m in same}))
    best = max(m.score for _w, m in same)
    score = round(min(0.99, best + 0.1 * (min(works, 3) - 1) + 0.05 * (len(methods) - 1)), 2)
    names = Counter(m.name for _w, m in same)
    name = sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    cats = Counter(m.category for _w, m in same if m.category != "other")
    category = sorted(cats.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] if cats else "other"
    if kind == "tool":
        status = "tool" if score >= TOOL_MIN else "candidate" if score >= CANDIDATE_MIN else ""
    else:
        status = kind if score >= ARTIFACT_MIN else ""
    if not status:
        return None
    return Named(same[0][1].key, name, kind, category, score, works, methods, status)


def decide(mentions: Iterable[tuple[str, Mention]]) -> dict[str, Named]:
    """Every name's corpus view, by key."""
    by_key: dict[str, list[tuple[str, Mention]]] = {}
    for citing, m in mentions:
        by_key.setdefault(m.key, []).append((citing, m))
    out = {}
    for key in sorted(by_key):
        named = decide_one(sorted(by_key[key], key=lambda wm: (wm[0], wm[1].score, wm[1].method, wm[1].name)))
        if named is not None:
            out[key] = named
    return out


def mention_of(parsed: ParsedRef, text: str, catalogue: object | None) -> Mention | None:
    """The mention of a reference the catalogue does not recognise by its own text, or None; also None when
    a catalogue tool of that name vetoes the text (its exclusion phrases say it is something else)."""
    if catalogue is not None and catalogue.recognise(parsed, parsed.doi, text):  # type: ignore[attr-defined]
        return None
    m = recognise(parsed, text)
    if m is None or (catalogue is not None and catalogue.vetoes(m.name, text)):  # type: ignore[attr-defined]
        return None
    return m


def work_mentions(work: Work, catalogue: object | None) -> list[tuple[int, Mention]]:
    """(reference index, mention) of every reference of ``work`` that names an artifact."""
    out = []
    for ref in work.references:
        m = mention_of(parse_reference(ref), reference_text(ref), catalogue)
        if m is not None:
            out.append((ref.index, m))
    return out


def reference_text(ref: Reference) -> str:
    """The text the recognisers read: the unstructured text, or the structured fields' values."""
    return ref.unstructured or " ".join(v for _k, v in ref.fields)

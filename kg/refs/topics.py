"""Topic classification: each input work gets one primary topic and scored secondary topics.

The SKOS scheme kg/data/topics.ttl carries, per concept, keyword cues (``kg:cue``, ``kg:strongCue``;
a trailing ``*`` is a prefix) and the tool categories that indicate it (``kg:toolCategory``). A work's
title (weight 3), subtitle and short title (2), subjects and venue (1.5) and abstract (1) are matched
against the cues; the categories of the tools its references cite add evidence. Scores are normalised
to the best concept; the best is primary, others scoring at least 0.3 are secondary. Every assignment
keeps its evidence. An override file (``--topics``) replaces the classifier for the works it names.
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import orjson
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, SKOS

from ..errors import InputError
from ..ingest.identifiers import normalize_doi
from ..model import Work
from ..rdf.terms import token_value
from ..rdf.vocab import KG, TOPIC
from ..resources import data_file
from .parse import fold

FIELD_WEIGHTS = {"title": 3.0, "title-target": 1.5, "subtitle": 2.0, "venue": 1.5, "subject": 1.5, "abstract": 1.0,
                 "cited works": 0.25}
STRONG = 3.0
TOOL_WEIGHT = 8.0  # the tool evidence of a work whose recognised tool citations are all of one concept's categories
TOOL_FULL = 6  # recognised tool citations from which that evidence counts fully (fewer: in proportion)
SECONDARY_MIN = 0.3
MAX_SECONDARY = 4


@dataclass(frozen=True)
class Concept:
    id: str
    iri: str
    label: str
    cues: tuple[tuple[re.Pattern[str], str, float, str], ...]  # (pattern, cue, weight, literal prefix)
    tool_categories: frozenset[str]
    depth: int = 0  # number of broader steps to a top concept
    ancestors: tuple[str, ...] = ()  # broader concept ids, nearest first


@dataclass(frozen=True, slots=True)
class Assignment:
    topic: str  # concept id
    iri: str
    score: float
    primary: bool
    method: str  # keywords, override
    evidence: str
    tied: bool = False  # as much evidence as the primary (the tie is in the primary's evidence too)


def _cue_pattern(cue: str) -> re.Pattern[str]:
    text = fold(cue.rstrip("*"))
    tail = r"\w*" if cue.endswith("*") else r"\b"
    return re.compile(rf"\b{re.escape(text)}{tail}")


@cache
def scheme_graph() -> Graph:
    """kg/data/topics.ttl, parsed once."""
    return Graph().parse(data_file("topics.ttl"), format="turtle")


@cache
def concepts() -> tuple[Concept, ...]:
    g = scheme_graph()
    out = []
    # (the two ignores below: rdflib types graph terms as Node, which declares no order; the terms, Identifiers, do)
    for c in sorted(g.subjects(RDF.type, SKOS.Concept)):  # type: ignore[type-var]
        cid = TOPIC.local(str(c))
        label = next((str(x) for x in g.objects(c, SKOS.prefLabel)), cid)
        cues = [(_cue_pattern(str(x)), str(x), 1.0, fold(str(x).rstrip("*")))
                for x in g.objects(c, URIRef(token_value(KG.cue)))]
        cues += [(_cue_pattern(str(x)), str(x), STRONG, fold(str(x).rstrip("*")))
                 for x in g.objects(c, URIRef(token_value(KG.strongCue)))]
        cats = frozenset(str(x) for x in g.objects(c, URIRef(token_value(KG.toolCategory))))
        ancestors: list[str] = []
        node = c
        while (up := next(iter(sorted(g.objects(node, SKOS.broader))), None)) is not None and len(ancestors) < 10:  # type: ignore[type-var]
            ancestors.append(TOPIC.local(str(up)))
            node = up
        out.append(Concept(cid, str(c), label, tuple(sorted(cues, key=lambda x: x[1])), cats, len(ancestors),
                           tuple(ancestors)))
    return tuple(out)


_WORD = re.compile(r"\w+")


@cache
def _cue_index() -> tuple[dict[str, list[tuple[int, str, re.Pattern[str], str, float]]], list[tuple], int]:
    """Every cue of every concept as (rank, concept id, pattern, cue, weight), by the first word of its text; the
    cues whose text starts with no word character apart; and the longest first word. A cue pattern opens with
    a word boundary, so it matches only where a word of the text starts with the cue's first word."""
    by_first: dict[str, list[tuple[int, str, re.Pattern[str], str, float]]] = defaultdict(list)
    anywhere: list[tuple[int, str, re.Pattern[str], str, float]] = []
    rank = 0
    for c in concepts():
        for pat, cue, w, lit in c.cues:
            first = _WORD.match(lit)
            (by_first[first.group()] if first else anywhere).append((rank, c.id, pat, cue, w))
            rank += 1
    return dict(by_first), anywhere, max(map(len, by_first), default=0)


def _cues_in(text: str) -> list[tuple[int, str, re.Pattern[str], str, float]]:
    """The cues that can match ``text`` (a superset of those that do), in the order of ``concepts()``."""
    by_first, anywhere, longest = _cue_index()
    keys = {word[:end] for word in set(_WORD.findall(text)) for end in range(1, min(len(word), longest) + 1)}
    found = list(anywhere)
    for key in keys & by_first.keys():
        found.extend(by_first[key])
    found.sort()
    return found


def _fields(work: Work) -> dict[str, str]:
    venue = " ".join([*work.container_titles, *work.short_container_titles,
                      *(x for x in ((work.event.name, work.event.acronym) if work.event else ()) if x)])
    project_titles = [t for p in work.projects for t in p.titles]
    title = fold(" ".join((work.titles or tuple(project_titles))[:1]))
    # "<what the work does> for <where it applies>": the target domain speaks for the topic at half weight
    head, sep, target = title.partition(" for ")
    if not sep or len(head.split()) < 2:
        head, target = title, ""
    return {
        "title": head,
        "title-target": target,
        "subtitle": fold(" ".join([*work.subtitles, *work.short_titles, *work.original_titles,
                                   *(project_titles[1:] if not work.titles else project_titles)])),
        "venue": fold(venue),
        "subject": fold(" ".join([*work.subjects, *([work.group_title] if work.group_title else [])])),
        "abstract": fold(" ".join(filter(None, (work.abstract, work.description,
                                                *(d for p in work.projects for d in p.descriptions))))),
    }


def _cited_text(work: Work) -> str:
    """The titles and venues of the works a work cites (their text where the reference gives no fields)."""
    parts = []
    for ref in work.references:
        fields = [v for k, v in ref.fields if k in ("article-title", "journal-title", "volume-title", "series-title")]
        parts.extend(fields or ([ref.unstructured] if ref.unstructured else []))
    return fold(" ".join(parts))


def _direct(work: Work, tool_categories: Counter[str] | None,
            fields: dict[str, str] | None = None) -> tuple[dict[str, float], dict[str, list[str]]]:
    """Each concept's own evidence: its cues in the work's fields, and the share of the work's recognised
    tool citations whose category the concept is the home of."""
    scores: dict[str, float] = defaultdict(float)
    evidence: dict[str, list[str]] = defaultdict(list)
    for name, text in (fields if fields is not None else _fields(work)).items():
        if not text:
            continue
        # every cue occurrence with its span; a cue inside a longer matching cue (of any concept) does not
        # count, so "deep learning compiler" speaks for deep-learning-compilers and not also for compilers
        found = [(m.start(), m.end(), cid, cue, w) for _rank, cid, pat, cue, w in _cues_in(text)
                 for m in [pat.search(text)] if m]
        kept = [f for f in found if not any(o[0] <= f[0] and f[1] <= o[1] and (o[1] - o[0]) > (f[1] - f[0])
                                             for o in found)]
        per_concept: dict[str, list[tuple[str, float]]] = defaultdict(list)
        for _s, _e, cid, cue, w in kept:
            per_concept[cid].append((cue, w))
        for cid, hits in per_concept.items():
            # a venue or subject heading says less than the work's own words: strong cues count as weak there
            strength = (lambda w: 1.0) if name in ("venue", "subject", "cited works") else (lambda w: w)
            scores[cid] += FIELD_WEIGHTS[name] * sum(strength(w) for _cue, w in hits)
            evidence[cid].append(f"{name}: {', '.join(sorted(cue for cue, _w in hits))}")
    cited = sum(tool_categories.values()) if tool_categories else 0
    if cited:
        assert tool_categories is not None
        sure = min(1.0, cited / TOOL_FULL)
        for c in concepts():
            n = sum(tool_categories[cat] for cat in c.tool_categories)
            if n:
                scores[c.id] += TOOL_WEIGHT * sure * n / cited
                evidence[c.id].append(f"cited tools: {n} of {cited} (" + ", ".join(
                    f"{tool_categories[cat]} {cat}" for cat in sorted(c.tool_categories) if tool_categories[cat]) + ")")
    return scores, evidence


def _totals(direct: dict[str, float]) -> dict[str, float]:
    """A concept's evidence with that of everything narrower (evidence for profiling is evidence for
    performance analysis)."""
    out: dict[str, float] = defaultdict(float)
    for c in concepts():
        if direct.get(c.id):
            for cid in (c.id, *c.ancestors):
                out[cid] += direct[c.id]
    return out


def _deepest(cid: str, direct: dict[str, float]) -> int:
    """How deep the most specific concept with evidence at or under ``cid`` lies."""
    return max((c.depth for c in concepts() if direct.get(c.id) and (c.id == cid or cid in c.ancestors)), default=-1)


def classify(work: Work, tool_categories: Counter[str] | None = None) -> list[Assignment]:
    """Primary and secondary topics of a work, with evidence; [] when nothing matches.

    The primary topic is found top-down: among the top concepts the one with the most evidence (its own
    and its narrower concepts'), then among its narrower concepts the same, as long as the best of them
    holds at least as much evidence as the concept's own. A tie on evidence is decided by the number of
    pieces of evidence, then by the most specific evidence, then by the concept id; it is never silent:
    the tied concepts get assignments marked tied, and the primary's evidence says so.
    """
    direct, evidence = _direct(work, tool_categories)
    if not direct:
        # nothing in the work's own text: its discipline from what it cites (the titles and venues of its
        # references), at a low weight; no topic only when the work has no text and cites nothing with any
        direct, evidence = _direct(work, None, {"cited works": _cited_text(work)})
    if not direct:
        return []
    total = _totals(direct)
    by_id = {c.id: c for c in concepts()}
    narrower = _narrower()

    def rank(cid: str) -> tuple:
        return (-round(total[cid], 6), -_pieces(cid), -_deepest(cid, direct), cid)

    def _pieces(cid: str) -> int:
        return sum(len(evidence[c.id]) for c in concepts() if direct.get(c.id) and (c.id == cid or cid in c.ancestors))

    def descend(node: str) -> str:
        """From ``node`` down to the narrower concept with the most evidence, while it holds at least as much
        as the concept's own."""
        while True:
            children = sorted((x for x in narrower.get(node, ()) if total.get(x)), key=rank)
            if not children or total[children[0]] < direct.get(node, 0.0):
                return node
            node = children[0]

    level = sorted((c.id for c in concepts() if c.depth == 0 and total.get(c.id)), key=rank)
    node, tied, notes = level[0], [], []
    while True:
        best = round(total[node], 6)
        rivals = [x for x in level[1:] if round(total[x], 6) == best]
        if rivals:
            ends = [descend(x) for x in rivals]
            tied.extend(ends)
            named = ", ".join(x if x == e else f"{x} ({e})" for x, e in zip(rivals, ends, strict=True))
            notes.append(f"tied with {named} at {best:.2f}; chosen by "
                         + ("more pieces of evidence" if _pieces(node) != _pieces(rivals[0]) else
                            "more specific evidence" if _deepest(node, direct) != _deepest(rivals[0], direct)
                            else "concept id"))
        children = sorted((x for x in narrower.get(node, ()) if total.get(x)), key=rank)
        if not children or total[children[0]] < direct.get(node, 0.0):
            break
        level, node = children, children[0]
    primary = node
    scale = total[primary] or 1.0
    out = [Assignment(primary, by_id[primary].iri, 1.0, True, "keywords",
                      "; ".join([*_subtree_evidence(primary, direct, evidence), *notes]))]
    seen = {primary, *by_id[primary].ancestors}
    for cid in tied:
        out.append(Assignment(cid, by_id[cid].iri, 1.0, False, "keywords",
                              "; ".join([*_subtree_evidence(cid, direct, evidence), f"tied with {primary}"]), True))
        seen.add(cid)
    others = sorted((x for x in direct if x not in seen), key=lambda x: (-round(direct[x], 6), -by_id[x].depth, x))
    for cid in others:
        norm = round(min(1.0, direct[cid] / scale), 2)
        if norm < SECONDARY_MIN or len(out) > MAX_SECONDARY:
            break
        out.append(Assignment(cid, by_id[cid].iri, norm, False, "keywords", "; ".join(evidence[cid])))
    return out


def _subtree_evidence(cid: str, direct: dict[str, float], evidence: dict[str, list[str]]) -> list[str]:
    """The evidence of a concept, then that of the narrower concepts it was chosen over."""
    own = list(evidence.get(cid, ()))
    below = [f"{c.id}: " + "; ".join(evidence[c.id]) for c in concepts()
             if c.id != cid and cid in c.ancestors and direct.get(c.id)]
    return own + (["narrower evidence: " + " | ".join(below)] if below else [])


@cache
def _narrower() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = defaultdict(list)
    for c in concepts():
        if c.ancestors:
            out[c.ancestors[0]].append(c.id)
    return {k: tuple(v) for k, v in out.items()}


def load_overrides(path: Path) -> dict[str, list[str]]:
    """DOI -> topic ids (first is primary), from JSON (``{"10.1/x": ["profiling", ...]}``) or a
    tab/comma-separated file with lines ``DOI<TAB>topic[,topic...]`` (see ``override_lines`` for where each is)."""
    return {doi: topics for doi, (topics, _where) in _read_overrides(path).items()}


def override_lines(path: Path) -> dict[str, str]:
    """DOI -> where the override file names it (``path: line N`` or ``path: DOI``)."""
    return {doi: where for doi, (_topics, where) in _read_overrides(path).items()}


def unused_overrides(lines: dict[str, str], inputs: set[str]) -> list[str]:
    """The warnings for DOIs of an override file that are not input records."""
    return [f"{where}: {doi} is not an input record, so its topics are not used; check the DOI or add the record"
            for doi, where in sorted(lines.items()) if doi not in inputs]


@cache
def _read_overrides_cached(path: Path, _stamp: tuple[int, int]) -> dict[str, tuple[list[str], str]]:
    return _parse_overrides(path)


def _read_overrides(path: Path) -> dict[str, tuple[list[str], str]]:
    try:
        st = path.stat()
    except OSError as e:
        raise InputError(str(path), f"cannot be read ({e.strerror or e})", "check the --topics path") from None
    return _read_overrides_cached(path, (st.st_mtime_ns, st.st_size))


def _parse_overrides(path: Path) -> dict[str, tuple[list[str], str]]:
    known = {c.id for c in concepts()}
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(str(path), f"cannot be read ({e.strerror or e})", "check the --topics path") from None
    rows: list[tuple[str, list[str], str]] = []
    if data.lstrip()[:1] == b"{":
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError as e:
            raise InputError(str(path), f"is not valid JSON ({e})", "fix the topics file") from None
        for doi, topics in doc.items():
            rows.append((doi, topics if isinstance(topics, list) else [topics], f"{path}: {doi}"))
    else:
        text = data.decode("utf-8", errors="replace")
        for n, row in enumerate(csv.reader(text.splitlines(), delimiter="\t" if "\t" in text else ","), start=1):
            if not row or row[0].startswith("#") or row[0].strip().lower() == "doi":
                continue
            topics = [t.strip() for cell in row[1:] for t in cell.split(",") if t.strip()]
            rows.append((row[0], topics, f"{path}: line {n}"))
    out: dict[str, tuple[list[str], str]] = {}
    for doi_raw, topics, where in rows:
        doi = normalize_doi(str(doi_raw))
        if doi is None:
            raise InputError(where, f"{doi_raw!r} is not a DOI", "fix the line")
        if not topics:
            raise InputError(where, "names no topic", "give DOI and at least one topic id")
        for t in topics:
            if t not in known:
                raise InputError(where, f"topic {t!r} is not in the scheme", f"use one of: {', '.join(sorted(known))}")
        out[doi.lower()] = (list(dict.fromkeys(topics)), where)
    return out


def override(topics: list[str], source: str | None = None) -> list[Assignment]:
    """The assignments an override file gives a work (its first topic primary), with the file as evidence."""
    by_id = {c.id: c for c in concepts()}
    evidence = f"topics file: {source}" if source else "topics file"
    return [Assignment(t, by_id[t].iri, 1.0, i == 0, "override", evidence) for i, t in enumerate(topics)]


def scheme_triples() -> list[tuple[str, str, str]]:
    """Every triple of the topic scheme, as N-Triples tokens (the scheme has no blank nodes)."""
    out = []
    for s, p, o in scheme_graph():
        out.append((s.n3(), p.n3(), o.n3() if not isinstance(o, Literal) else _lit(o)))
    return out


def _lit(o: Literal) -> str:
    from ..rdf.terms import lang_lit, lit
    if o.language:
        return lang_lit(str(o), o.language)
    return lit(str(o), f"<{o.datatype}>" if o.datatype else None)

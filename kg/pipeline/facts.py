"""Precomputed facts: what the slow stored queries would otherwise count or join over every reference.

The build writes them with the graph, into the named graph ``{base}graph/facts``, so they are never out of
date. Every fact is what a plain SPARQL pattern over the base graph gives (``tests/test_facts.py`` compares
both on the seeds and on synthetic records):

- ``<cited> kg:citingInputWorks n``: the number of distinct input works (``kg:crossrefType``) with a part
  (``frbr:part``) that ``biro:references`` the cited node; for every cited node of an input work's reference.
- ``<ref> kg:citesInputWork <w>``: the reference cites ``<w>``, itself an input work.
- ``<ref> kg:citesEarlierVersionOf <w>``: the reference cites a node ``kg:preprintOf`` the input work ``<w>``.
- ``<ref> kg:referenceRank n``: the reference's place (1, 2, ...) among every reference of the input works in the
  order of the ``references`` listing: the citing work's DOI in lower case, then ``kg:position``, then the key
  (none first), then the reference's IRI (a total order).
- ``<ref> kg:cocitationRank n``: the place of its row in the ``cocited`` listing, in the order of the cited node's
  ``kg:citingInputWorks`` (most first), its IRI, the citing work's DOI in lower case, the key: a dense rank (1, 2,
  ...), so references that make the same row (one work's references with the same key citing the same node)
  share it and every rank is a row, which lets a page be cut on the ranks (``#+ page:``).
- ``<w> kg:partCitingTool <ref>``: the reference ``<ref>`` is a part (``frbr:part``) of ``<w>`` and cites a tool
  (``kg:citesTool``): the few references of the tool queries, without a pass over every reference.
- ``<x> kg:iriRank n``: the place (1, 2, ...) of a person (object of ``schema:author``) or an organisation (object of
  ``pro:relatesToOrganization``) among all of them in the order of their IRIs (``STR``, by code point).
- ``<ev> kg:toolCitationRank n``: the dense rank (1, 2, ...; equal rows share one) of the row a tool recognition
  ``<ev>`` makes in the ``tool-citations`` listing, in its order: the tool's name in lower case, the tool's IRI, the
  citing work's DOI in lower case, the reference's key (none first), the method, the score (a number), the matched
  text; for the evidence of an input work's reference that cites the tool, the tool having a name and a category.
- ``<w> kg:workRank n``: the dense rank (1, 2, ...; equal keys share one) of an input work (``kg:crossrefType``) with a
  DOI in the order of the ``works`` listing's first key: its DOI in lower case (a work with several DOIs has the
  rank of the first). Every input work with a DOI makes at least one row of ``works`` (one per author), so the first
  N rows are all of works ranked N or less: the page is cut on the ranks, then sorted in the listing's full order.
- ``<ref> kg:unresolvedRank n``: the dense rank of the row a reference makes in the ``unresolved`` listing, in its
  order (the resolution score, none first; the citing work's DOI in lower case; the position), for every reference of
  an input work with a DOI and a position that is unresolved (``kg:resolutionMethod "unresolved"``) or scores below 1:
  the references any threshold lists. The listing's rows are distinct, and two references of one work can make one
  row (same key, method, score, kind and text): the second shares the first's rank, so every rank is a row. Only an
  unresolved reference scores 0 (the reference shape), so a threshold's references are the first ranks, and the
  first N rows are all of references ranked N or less: the page is cut on the ranks (``#+ page:``).
- ``<ev> kg:toolCandidateRank n``: the dense rank of the row a candidate's recognition ``<ev>`` makes in the
  ``tool-candidates`` listing, in its order: the candidate's citing works (``COUNT(DISTINCT ?w)`` of the works with a
  part that ``kg:suggestsTool`` it; most first), its name in lower case, the citing work's DOI in lower case, the
  reference's key (none first); for the recognition of a typed, named ``kg:ToolCandidate`` in a reference of a work
  with a DOI that suggests it, with a score and a matched text.

The lower case of the ranks is Python's ``str.lower()``, the queries' ``LCASE`` Oxigraph's (Rust's lower case): over
every code point they give the same text (a final sigma too), but for 55 upper-case letters added in Unicode 15 and 16,
which Python 3.11 (Unicode 14) leaves as they are; a DOI or a tool name with one of them could rank out of the order.

One entry point, in two halves that every build driver calls (in memory, streamed, or partitioned): ``rows``
takes any graph lines (a record's, a chunk of records', the knowledge graph's) and gives compact text rows,
and ``fact_lines`` takes all rows sorted (in memory, or by an external sort: memory stays bounded) and gives
the sorted canonical N-Quads lines of the facts graph. The rows of one reference (its ``frbr:part``
and ``biro:references`` lines, its tool recognitions, its work's type and DOI) must come in the same call of ``rows``,
as they do in one record's lines; so must a tool's ``schema:name`` and ``schema:applicationCategory`` lines, as they do
in the tools graph.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from hashlib import blake2b
from itertools import groupby
from typing import Protocol

from ..rdf.nquads import quad, split_quad
from ..rdf.terms import integer, literal_parts, token_value
from ..rdf.vocab import BIRO, C4O, FRBR, KG, PRISM, PRO, RDF, SDO

# Row tags, in the order the rows of one key sort. Every field is a whole IRI token (it ends in '>'), so no row
# is a proper prefix of another and a merge of sorted runs by the system's sort gives Python's order.
_INPUT = "0"  # "<w>\t0": <w> is an input work
_PREPRINT = "1"  # "<x>\t1\t<b>": <x> kg:preprintOf <b> (keyed by the preprint node)
_VERSION_OF = "2"  # "<b>\t2\t<x>": the same link keyed by the work it is a version of
_CITES = "3"  # "<x>\t3\t<w>\tDOI\tKEY\t<ref>": the reference <ref> of the input work <w> cites <x>
_TOOL_PART = "4"  # "<w>\t4\t<ref>": the reference <ref>, a part of <w>, cites a tool
# (DOI and KEY are sort keys, below: the citing work's DOI and the reference's key)
_LISTED = "~"  # "~\tDOI\tPOSITION\tKEY\t<ref>": a reference of the references listing (sorts after every IRI)
_NAMED = "~n"  # "~n\tIRI\t<x>": a person or an organisation, IRI its sort key (sorts after the "~" rows)
# "~t\t<tool>\t0\tNAME": a tool's name (NAME: the sort key of it in lower case; the tool has a category) and
# "~t\t<tool>\t1\tDOI\tKEY\tMETHOD\tSCORE\tMATCHED\t<ev>": the recognition <ev> of <tool> in an input work's reference
# that cites <tool> (sorts after the "~n" rows)
_TOOL_CITED = "~t"
_WORK = "~w"  # "~w\tDOI\t<w>": the input work <w> with a DOI (DOI: its sort key in lower case; sorts after "~t")
_REVIEWED = "~r"  # "~r\tSCORE\tDOI\tPOSITION\tROW\t<ref>": a reference of the unresolved listing (ROW: a digest of the
# row's values, which finds the references that make one row; sorts between "~n" and "~t")
# "~c\t<cand>\t0": <cand> is a kg:ToolCandidate; "~c\t<cand>\t1\tNAME": a name of it (NAME: the sort key of it in lower
# case); "~c\t<cand>\t2\t<w>": a part of <w> suggests it; "~c\t<cand>\t3\tDOI\tKEY\t<ev>": the recognition <ev> of it in
# such a part, of a work with a DOI (sorts before "~n")
_CANDIDATE = "~c"


def _text_key(text: str) -> str:
    """A sort key for a string that sorts as the string does (by code point) and holds no tab: its UTF-8 bytes
    in hex.

    >>> _text_key("a") < _text_key("ab") < _text_key("b")
    True
    """
    return text.encode("utf-8").hex()


def _optional_key(text: str | None) -> str:
    """A sort key for a value that may be absent, which SPARQL's ORDER BY puts first."""
    return "0" if text is None else "1" + _text_key(text)


def _number_key(n: int) -> str:
    """A sort key for an integer >= 0 that sorts as the number does: its digit count, then its digits."""
    digits = str(n)
    return f"{len(digits):02d}{digits}"


_DECIMAL = re.compile(r"\+?([0-9]*)(?:\.([0-9]*))?")


def _decimal_key(text: str) -> str | None:
    """A sort key for an xsd:decimal >= 0 that sorts as the number does (equal numbers, one key): its whole part's
    ``_number_key``, then its fraction's digits without trailing zeros; None for another text.

    >>> _decimal_key("0.05") < _decimal_key("0.5") == _decimal_key("+00.50") < _decimal_key("1") < _decimal_key("10")
    True
    """
    m = _DECIMAL.fullmatch(text)
    if m is None or not (m.group(1) or m.group(2)):
        return None
    return _number_key(int(m.group(1) or "0")) + (m.group(2) or "").rstrip("0")



class Sink(Protocol):
    """Where lines are collected to be sorted: ``InMemory``, or an external sort (``kg.infra.extsort.Sorter``)."""

    def add(self, line: str) -> None: ...

    def sorted(self) -> Iterable[str]: ...


Sinks = Callable[[str], Sink]  # a new empty sink, given a name for its files


class InMemory:
    """The sink of the in-memory build: a set, sorted at the end."""

    def __init__(self, _name: str = "") -> None:
        self.lines: set[str] = set()

    def add(self, line: str) -> None:
        self.lines.add(line)

    def sorted(self) -> list[str]:
        return sorted(self.lines)


def facts_of(lines: Iterable[str], graph: str) -> Iterator[str]:
    """The facts of a whole graph held in memory (what ``kg.pipeline.memory`` writes)."""
    return fact_lines(sorted(set(rows(lines))), graph)


def rows(lines: Iterable[str]) -> Iterator[str]:
    """The fact rows of some canonical N-Quads lines (unsorted; duplicates allowed).

    >>> list(rows(['<w> <https://w3id.org/crossref-kg/ontology#crossrefType> "x" <g> .\\n']))
    ['<w>\\t0\\n']
    """
    parts: dict[str, str] = {}  # reference -> its work
    cites: list[tuple[str, str]] = []  # (reference, cited)
    tool_refs: set[str] = set()  # references that cite a tool
    cited_tools: set[tuple[str, str]] = set()  # (reference, the tool it cites)
    tool_facts = _ToolFacts()
    review = _ReviewFacts()
    inputs: set[str] = set()
    dois: dict[str, str] = {}  # work -> the sort key of its DOI in lower case
    work_dois: list[tuple[str, str, str]] = []  # (work, the sort key of a DOI of it in lower case, the DOI), each DOI
    positions: dict[str, int] = {}  # reference -> kg:position
    keys: dict[str, str] = {}  # reference -> kg:referenceKey
    candidates: set[str] = set()  # kg:ToolCandidate nodes
    ctype, part, refs, preprint = KG.crossrefType, FRBR.part, BIRO.references, KG.preprintOf
    doi, position, key = PRISM.doi, KG.position, KG.referenceKey
    author, org, tool = SDO.author, PRO.relatesToOrganization, KG.citesTool
    rdf_type, candidate = RDF.type, KG.ToolCandidate
    collect = {**{p: tool_facts.add for p in _ToolFacts.PREDICATES}, **{p: review.add for p in _ReviewFacts.PREDICATES}}
    wanted = {ctype, part, refs, preprint, doi, position, key, author, org, tool, *collect}
    for line in lines:
        # (the predicate is the second token: cut it out and look it up, and split only the few lines that count)
        at = line.find(" ") + 1
        predicate = line[at:line.find(" ", at)]
        if predicate in wanted:
            s, p, o, _g = split_quad(line)
            if p == ctype:
                inputs.add(s)
                yield f"{s}\t{_INPUT}\n"
            elif p == part:
                parts[o] = s
            elif p == refs:
                cites.append((s, o))
            elif p == preprint:
                yield f"{s}\t{_PREPRINT}\t{o}\n"
                yield f"{o}\t{_VERSION_OF}\t{s}\n"
            elif p == doi:
                dois[s] = _text_key(literal_parts(o)[0].lower())
                work_dois.append((s, dois[s], o))
            elif p == position:
                positions[s] = int(literal_parts(o)[0])
            elif p == key:
                keys[s] = literal_parts(o)[0]
                review.add(s, p, o)
            elif p in (author, org) and o.startswith("<"):
                yield f"{_NAMED}\t{_text_key(token_value(o))}\t{o}\n"
            elif p == tool:
                tool_refs.add(s)
                cited_tools.add((s, o))
            else:
                collect[p](s, p, o)
        elif predicate == rdf_type and line.startswith(candidate, line.find(" ", at) + 1):
            candidates.add(line[:at - 1])
            yield f"{_CANDIDATE}\t{line[:at - 1]}\t0\n"
    yield from tool_facts.rows(cited_tools, parts, inputs, dois, keys)
    yield from tool_facts.candidate_rows(candidates, parts, work_dois, keys)
    yield from review.rows(parts, inputs, work_dois, positions)
    for input_work, doi_key, _doi in work_dois:
        if input_work in inputs:
            yield f"{_WORK}\t{doi_key}\t{input_work}\n"
    for ref in tool_refs:
        if (work := parts.get(ref)) is not None:
            yield f"{work}\t{_TOOL_PART}\t{ref}\n"
    for ref, cited in cites:
        work = parts.get(ref)
        if work is None:
            continue
        doi_key = dois.get(work, "") if work in inputs else ""  # (every work with parts is an input work)
        ref_key = _optional_key(keys.get(ref))
        yield f"{cited}\t{_CITES}\t{work}\t{doi_key}\t{ref_key}\t{ref}\n"
        if doi_key and ref in positions:
            yield f"{_LISTED}\t{doi_key}\t{_number_key(positions[ref])}\t{ref_key}\t{ref}\n"


class _ReviewFacts:
    """What the ``kg:unresolvedRank`` rows need from the lines of one call of ``rows``: each reference's resolution
    method and score, kind, key and text (the values of its row of the unresolved listing)."""

    METHOD, SCORE, KIND, TEXT, KEY = (KG.resolutionMethod, KG.resolutionScore, KG.referenceKind, C4O.hasContent,
                                      KG.referenceKey)
    PREDICATES = (METHOD, SCORE, KIND, TEXT)  # (and the key, which ``rows`` reads for itself too)
    UNRESOLVED = '"unresolved"'
    ONE = _number_key(1)  # (a score's key below it: the score is below 1; ``_decimal_key`` sorts as the number)

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, list[str]]] = {p: {} for p in (*self.PREDICATES, self.KEY)}

    def add(self, s: str, p: str, o: str) -> None:
        self.objects[p].setdefault(s, []).append(o)

    @staticmethod
    def _score_key(score: str) -> tuple[str | None, bool]:
        """The sort key of a score token ("0" for none, which the query's ORDER BY puts first; None for a text that
        is no number >= 0) and whether it is below 1."""
        if not score:
            return "0", False
        number = _decimal_key(literal_parts(score)[0]) if score.startswith('"') else None
        if number is None:
            return None, False
        return "1" + number, number < _ReviewFacts.ONE

    def rows(self, parts: dict[str, str], inputs: set[str], work_dois: list[tuple[str, str, str]],
             positions: dict[str, int]) -> Iterator[str]:
        """The "~r" rows: each row (every combination of its values, as the query's join gives) of a reference of an
        input work with a DOI and a position that is unresolved or scores below 1 (a score that is no number ranks
        nowhere: the shapes hold a score to a decimal from 0 to 1)."""
        of = self.objects
        methods, scores = of[self.METHOD], of[self.SCORE]
        dois_of: dict[str, list[tuple[str, str]]] = {}
        for work, doi_key, doi in work_dois:
            if work in inputs:
                dois_of.setdefault(work, []).append((doi_key, doi))
        for ref in {*methods, *scores}:
            citing = parts.get(ref)
            if citing is None or citing not in dois_of or (position := positions.get(ref)) is None:
                continue
            others = "\t".join("\n".join(sorted(of[p].get(ref, ()))) for p in (self.KEY, self.KIND, self.TEXT))
            for method in methods.get(ref) or [""]:
                for score in scores.get(ref) or [""]:
                    score_key, below = self._score_key(score)
                    if score_key is None or not (method == self.UNRESOLVED or below):
                        continue
                    for doi_key, doi in dois_of[citing]:
                        row = blake2b(f"{doi}\t{method}\t{score}\t{others}".encode(), digest_size=16).hexdigest()
                        yield f"{_REVIEWED}\t{score_key}\t{doi_key}\t{_number_key(position)}\t{row}\t{ref}\n"


class _ToolFacts:
    """What the ``kg:toolCitationRank`` rows need from the lines of one call of ``rows``: the tools' names and
    categories, and each tool recognition's reference, tool, method, score and matched text."""

    NAME, CATEGORY = str(SDO.name), str(SDO.applicationCategory)
    RECOGNITION, TOOL = str(KG.hasToolRecognition), str(KG.recognizedTool)
    METHOD, SCORE, MATCHED = str(KG.method), str(KG.score), str(KG.matchedText)
    SUGGESTS = KG.suggestsTool
    PREDICATES = (NAME, CATEGORY, RECOGNITION, TOOL, METHOD, SCORE, MATCHED, SUGGESTS)

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, list[str]]] = {p: {} for p in self.PREDICATES}  # predicate -> s -> objects

    def add(self, s: str, p: str, o: str) -> None:
        if (by_subject := self.objects.get(p)) is not None:
            by_subject.setdefault(s, []).append(o)

    def rows(self, cited_tools: set[tuple[str, str]], parts: dict[str, str], inputs: set[str], dois: dict[str, str],
             keys: dict[str, str]) -> Iterator[str]:
        """The "~t" rows: each name of a tool with a category, and each recognition of a tool in a reference of an
        input work with a DOI that cites the tool, with a method, a score and a matched text (every combination of
        their values, as the query's join gives)."""
        of = self.objects
        names = of[self.NAME]
        for tool in of[self.CATEGORY]:
            for name in names.get(tool, ()):
                if name.startswith('"'):
                    yield f"{_TOOL_CITED}\t{tool}\t0\t{_text_key(literal_parts(name)[0].lower())}\n"
        tools, methods, scores, matched = of[self.TOOL], of[self.METHOD], of[self.SCORE], of[self.MATCHED]
        for ref, evidence in of[self.RECOGNITION].items():
            work = parts.get(ref)
            if work is None or work not in inputs or work not in dois:
                continue
            citing = f"{dois[work]}\t{_optional_key(keys.get(ref))}"
            for ev in evidence:
                for tool in tools.get(ev, ()):
                    if (ref, tool) not in cited_tools:
                        continue
                    for method in methods.get(ev, ()):
                        for score in scores.get(ev, ()):
                            score_key = _decimal_key(literal_parts(score)[0]) if score.startswith('"') else None
                            if score_key is None:  # (the shapes hold a score to a decimal from 0 to 1)
                                continue
                            for text in matched.get(ev, ()):
                                yield (f"{_TOOL_CITED}\t{tool}\t1\t{citing}\t{_text_key(literal_parts(method)[0])}"
                                       f"\t{score_key}\t{_text_key(literal_parts(text)[0])}\t{ev}\n")


    def candidate_rows(self, candidates: set[str], parts: dict[str, str], work_dois: list[tuple[str, str, str]],
                       keys: dict[str, str]) -> Iterator[str]:
        """The "~c" rows but the type's: each name of a kg:ToolCandidate, each work with a part that suggests one, and
        each recognition of it in such a part of a work with a DOI, with a score and a matched text."""
        names, tools, scores, matched = (self.objects[p] for p in (self.NAME, self.TOOL, self.SCORE, self.MATCHED))
        for cand in candidates:
            for name in names.get(cand, ()):
                if name.startswith('"'):
                    yield f"{_CANDIDATE}\t{cand}\t1\t{_text_key(literal_parts(name)[0].lower())}\n"
        doi_keys: dict[str, list[str]] = {}
        for work, doi_key, _doi in work_dois:
            doi_keys.setdefault(work, []).append(doi_key)
        recognitions = self.objects[self.RECOGNITION]
        for ref, suggested in self.objects[self.SUGGESTS].items():
            if (citing := parts.get(ref)) is None:
                continue
            key = _optional_key(keys.get(ref))
            for cand in suggested:
                yield f"{_CANDIDATE}\t{cand}\t2\t{citing}\n"
                for ev in recognitions.get(ref, ()):
                    if cand in tools.get(ev, ()) and ev in scores and ev in matched:
                        for doi_key in doi_keys.get(citing, ()):
                            yield f"{_CANDIDATE}\t{cand}\t3\t{doi_key}\t{key}\t{ev}\n"


def fact_lines(sorted_rows: Iterable[str], graph: str, sinks: Sinks = InMemory) -> Iterator[str]:
    """The sorted canonical N-Quads lines of the facts graph ``graph``, from the sorted, unique ``rows`` of every
    line of the graph.

    ``sinks`` makes the further sorts (of the second join's rows, of the listings' orders, and of the facts), each
    deduplicating.
    """
    later, cocited, out = sinks("facts-versions"), sinks("facts-cocited"), sinks("facts")
    tool_cited, candidate_rows = sinks("facts-tool-citations"), sinks("facts-candidates")
    # rows of the second join: "<x>\t0\t<b>" (a valid version link) and "<x>\t3\t<ref>"
    count, on_input, on_version = str(KG.citingInputWorks), str(KG.citesInputWork), str(KG.citesEarlierVersionOf)
    tool_part = str(KG.partCitingTool)
    for key, group in _apart(_groups(sorted_rows), tool_cited, candidate_rows):
        if key in (_LISTED, _NAMED, _WORK, _REVIEWED):
            _listing_ranks(key, group, graph, sinks, out)
            continue
        is_input = is_preprint = False
        works = 0
        last_work = None
        listed: list[tuple[str, str, str]] = []  # (DOI, KEY, <ref>) of the references citing this node
        for tag, fields in group:
            if tag == _INPUT:
                is_input = True
            elif tag == _PREPRINT:
                is_preprint = True
            elif tag == _VERSION_OF:
                if is_input:
                    later.add(f"{fields[0]}\t{_INPUT}\t{key}\n")
            elif tag == _TOOL_PART:
                out.add(quad(key, tool_part, fields[0], graph))
            else:
                work, doi_key, ref_key, ref = fields
                if work != last_work:
                    works += 1
                    last_work = work
                if is_input:
                    out.add(quad(ref, on_input, key, graph))
                if is_preprint:
                    later.add(f"{key}\t{_CITES}\t{ref}\n")
                if doi_key:
                    listed.append((doi_key, ref_key, ref))
        if works:
            out.add(quad(key, count, integer(works), graph))
            # the cocited order: most citing works first (a count's complement in 12 digits), then the node's IRI
            first = f"{10 ** 12 - works:012d}\t{_text_key(token_value(key))}"
            for doi_key, ref_key, ref in listed:
                cocited.add(f"{first}\t{doi_key}\t{ref_key}\t{ref}\n")
    _dense_ranks((row.rstrip("\n").rsplit("\t", 1) for row in cocited.sorted()), str(KG.cocitationRank), graph, out)
    for _key, group in _groups(later.sorted()):
        versions: list[str] = []
        for tag, fields in group:
            if tag == _INPUT:
                versions.append(fields[0])
            else:
                for b in versions:
                    out.add(quad(fields[0], on_version, b, graph))
    _first_dense_ranks((row.rstrip("\n").rsplit("\t", 1) for row in tool_cited.sorted()), sinks("facts-tool-ranks"),
                       str(KG.toolCitationRank), graph, out)
    _first_dense_ranks((row.rstrip("\n").rsplit("\t", 1) for row in candidate_rows.sorted()),
                       sinks("facts-candidate-ranks"), KG.toolCandidateRank, graph, out)
    return iter(out.sorted())


def _listing_ranks(key: str, group: Iterator[tuple[str, list[str]]], graph: str, sinks: Sinks, out: Sink) -> None:
    """The ranks of the groups after the cited nodes', in their order: the references in the references listing's
    order ("~"), the people and organisations in the order of their IRIs ("~n"), the input works in the order of
    their DOIs in lower case ("~w"), the references of the unresolved listing in its order ("~r")."""
    if key == _LISTED:
        _ranks((fields[-1] for _tag, fields in group), str(KG.referenceRank), graph, out)
    elif key == _NAMED:
        _ranks((fields[-1] for _tag, fields in group), str(KG.iriRank), graph, out)
    elif key == _WORK:
        _first_dense_ranks(([tag, fields[-1]] for tag, fields in group), sinks("facts-work-ranks"),
                           str(KG.workRank), graph, out)
    else:
        _first_ranks(_row_ranks(group), sinks("facts-unresolved-ranks"), KG.unresolvedRank, graph, out)


def _row_ranks(group: Iterator[tuple[str, list[str]]]) -> Iterator[tuple[str, int]]:
    """(reference, n) for the "~r" rows in their order: n = 1, 2, ... one per distinct (score, DOI, position), but a
    reference whose row (its digest) an earlier reference of the same score and DOI made shares that one's n: the
    listing's rows are distinct, so every n is a row.

    >>> list(_row_ranks(iter([("s", ["d", "1", "x", "<a>"]), ("s", ["d", "2", "y", "<b>"]),
    ...                       ("s", ["d", "3", "x", "<c>"]), ("s", ["e", "1", "x", "<d>"])])))
    [('<a>', 1), ('<b>', 2), ('<c>', 1), ('<d>', 3)]
    """
    n, last, block = 0, None, None
    seen: dict[str, int] = {}
    for score, (doi, position, row, ref) in group:
        if (score, doi) != block:
            block, seen = (score, doi), {}
        if row not in seen:
            if (score, doi, position) != last:
                n, last = n + 1, (score, doi, position)
            seen[row] = n
        yield ref, seen[row]


def _apart(groups: Iterator[tuple[str, Iterator[tuple[str, list[str]]]]], tool_cited: Sink, candidates: Sink
           ) -> Iterator[tuple[str, Iterator[tuple[str, list[str]]]]]:
    """The groups of ``_groups`` but the "~t" group (the tools' names and recognitions, by tool), whose rows go to
    ``tool_cited`` (``_tool_citation_rows``), and the "~c" group (the candidates'), whose go to ``candidates``
    (``_candidate_rows``)."""
    for key, group in groups:
        if key == _TOOL_CITED:
            _tool_citation_rows(group, tool_cited)
        elif key == _CANDIDATE:
            _candidate_rows(group, candidates)
        else:
            yield key, group


def _candidate_rows(group: Iterator[tuple[str, list[str]]], into: Sink) -> None:
    """From the "~c" rows (by candidate: its type, its names, its citing works, its recognitions), each row a
    recognition makes in the tool-candidates order: "WORKS\tNAME\tDOI\tKEY\t<ev>" (WORKS: the count's complement,
    most first), one for each name of a typed candidate."""
    for _cand, rows_of_cand in groupby(group, key=lambda row: row[0]):
        typed, works = False, 0
        names: list[str] = []
        for _c, fields in rows_of_cand:
            if fields[0] == "0":
                typed = True
            elif fields[0] == "1":
                names.append(fields[1])
            elif fields[0] == "2":
                works += 1
            elif typed:
                first = f"{10 ** 12 - works:012d}"
                for name in names:
                    into.add(f"{first}\t{name}\t{fields[1]}\t{fields[2]}\t{fields[3]}\n")


def _tool_citation_rows(group: Iterator[tuple[str, list[str]]], into: Sink) -> None:
    """From the "~t" rows (by tool: its names first, then its recognitions), each row a recognition makes in the
    tool-citations order: "NAME\tIRI\tDOI\tKEY\tMETHOD\tSCORE\tMATCHED\t<ev>", one for each name of the tool."""
    for tool, rows_of_tool in groupby(group, key=lambda row: row[0]):
        iri_key = _text_key(token_value(tool))
        names: list[str] = []
        for _tool, fields in rows_of_tool:
            if fields[0] == "0":
                names.append(fields[1])
            else:
                order = "\t".join(fields[1:])
                for name in names:
                    into.add(f"{name}\t{iri_key}\t{order}\n")


def _first_dense_ranks(rows: Iterable[list[str]], ranks: Sink, predicate: str, graph: str, out: Sink) -> None:
    """``<s> predicate n`` from the ``[key, <s>]`` rows in key order: n is the dense rank of ``_dense`` (the rows of
    one row of the query share it); a subject in several rows has its first (``_first_ranks``)."""
    _first_ranks(_dense(rows), ranks, predicate, graph, out)


def _first_ranks(ranked: Iterable[tuple[str, int]], ranks: Sink, predicate: str, graph: str, out: Sink) -> None:
    """``<s> predicate n`` from (subject, n) pairs: a subject in several has its least n (``ranks`` sorts them by
    subject: kg:toolCitationRank of an evidence in several rows of tool-citations, kg:workRank of a work with two
    DOIs, kg:unresolvedRank of a reference of a work with two DOIs)."""
    for subject, rank in ranked:
        ranks.add(f"{subject}\t{_number_key(rank)}\n")
    for subject, of_subject in groupby(ranks.sorted(), key=lambda row: row.split("\t", 1)[0]):
        first = next(of_subject).rstrip("\n").split("\t", 1)[1]
        out.add(quad(subject, predicate, integer(int(first[2:])), graph))


def _ranks(refs: Iterable[str], predicate: str, graph: str, out: Sink) -> None:
    """``<ref> predicate n`` for each of ``refs`` in their order, n = 1, 2, ..."""
    for n, ref in enumerate(refs, 1):
        out.add(quad(ref, predicate, integer(n), graph))


def _dense(rows: Iterable[list[str]]) -> Iterator[tuple[str, int]]:
    """(subject, n) for each ``[key, subject]`` of ``rows`` in key order: n = 1, 2, ... one per distinct key
    (subjects with equal keys share it).

    >>> list(_dense([["a", "<x>"], ["a", "<y>"], ["b", "<z>"]]))
    [('<x>', 1), ('<y>', 1), ('<z>', 2)]
    """
    n, last = 0, None
    for key, subject in rows:
        if key != last:
            n, last = n + 1, key
        yield subject, n


def _dense_ranks(rows: Iterable[list[str]], predicate: str, graph: str, out: Sink) -> None:
    """``<ref> predicate n`` for each ``[key, ref]`` of ``rows`` in key order, the dense rank of ``_dense``."""
    for ref, n in _dense(rows):
        out.add(quad(ref, predicate, integer(n), graph))


def _groups(lines: Iterable[str]) -> Iterator[tuple[str, Iterator[tuple[str, list[str]]]]]:
    """(key, its (tag, fields) rows) of sorted rows, streamed: only one row at a time is held."""
    for key, group in groupby(lines, key=lambda row: row.split("\t", 1)[0]):
        yield key, ((fields[1], fields[2:]) for fields in (row.rstrip("\n").split("\t") for row in group))

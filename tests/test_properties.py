"""Property-based tests for the reader, normalize and the mappers/exporters.

Real Crossref records (the seeds and a few real samples) are mutated by hypothesis: fields removed,
values of the wrong type, odd unicode, huge strings, IRI-illegal characters in DOIs and URLs. For every
mutated record the library must either reject it with a clean one-line ``InputError`` or produce output
that every RDF parser accepts, in every export format, without blank nodes. Nothing else may happen.
"""

from __future__ import annotations

import copy
import gzip
import io
import json
import os
from pathlib import Path
from typing import Any

import pyoxigraph
import pytest
import rdflib
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kg.errors import InputError
from kg.export import WRITERS
from kg.ingest.normalize import normalize
from kg.ingest.read import Ignored, iter_records
from kg.map import map_work
from kg.map.context import Context
from kg.model import Source

HERE = Path(__file__).resolve()
SEEDS_DIR = HERE.parents[1] / "seeds"
SAMPLES_DIR = HERE.parent / "data" / "samples"
SAMPLE_NAMES = (  # small and varied: references with DOIs, funders, licences, relations, project, [[null]] dates
    "preprint_751156.json",
    "article_elife.01567.json",
    "grant_cpcy.proj.2019.50733_60006578.json",
    "review_jan.15115_v3_decision1.json",
    "standard_2640440.json",
    "thesis_uql.2020.791.json",
    "proceedings_1947940.json",
)
FILE_NAME = "mutated.json"

SETTINGS = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.large_base_example])


def _load() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(SEEDS_DIR.glob("*.txt")):
        out.append((path.name, json.loads(path.read_text(encoding="utf-8"))["message"]))
    for name in SAMPLE_NAMES:
        path = SAMPLES_DIR / name
        if path.exists():
            doc = json.loads(path.read_text(encoding="utf-8"))
            out.append((name, doc.get("message", doc)))
    return out


# One synthetic record that carries every field the mappers know, so each mapper meets the mutations too
# (events, projects, reviews, standards bodies, clinical trials ... are rare in the real samples).
KITCHEN_SINK: dict[str, Any] = {
    "DOI": "10.5555/Kitchen.Sink-2024(1)", "type": "journal-article", "subtype": "research-article",
    "title": ["A complete record", "Ein vollständiger Datensatz"], "subtitle": ["with every field"],
    "short-title": ["Complete"], "original-title": ["Полная запись"],
    "abstract": "<jats:title>Abstract</jats:title><jats:p>We map <jats:italic>all</jats:italic> fields &amp; "
                "more.</jats:p><jats:p>Second paragraph.</jats:p>",
    "language": "en", "URL": "https://doi.org/10.5555/kitchen.sink-2024(1)",
    "resource": {"primary": {"URL": "https://example.org/articles/kitchen-sink?id=1&v=2"}},
    "issued": {"date-parts": [[2024, 2, 29]]}, "published": {"date-parts": [[2024, 2]]},
    "published-print": {"date-parts": [[2024, 3, 1]]}, "published-online": {"date-parts": [[2024, 2, 29]]},
    "posted": {"date-parts": [[2023, 12]]}, "accepted": {"date-parts": [[2024, 1, 15]]},
    "approved": {"date-parts": [[2024]]}, "content-created": {"date-parts": [[2023, 11, 30]]},
    "content-updated": {"date-parts": [[2024, 4, 1]]}, "award-start": {"date-parts": [[2022, 1, 1]]},
    "award-end": {"date-parts": [[2025, 12, 31]]},
    "created": {"date-parts": [[2024, 1, 2]], "date-time": "2024-01-02T03:04:05Z", "timestamp": 1704164645000},
    "deposited": {"date-parts": [[2024, 4, 2]], "date-time": "2024-04-02T03:04:05Z", "timestamp": 1712027045000},
    "indexed": {"date-parts": [[2024, 5, 1]], "date-time": "2024-05-01T00:00:00.123Z", "timestamp": 1714521600123},
    "page": "e1001–e1010", "article-number": "e1001", "volume": "7", "issue": "2",
    "journal-issue": {"issue": "2", "published-print": {"date-parts": [[2024, 3]]},
                      "published-online": {"date-parts": [[2024, 2]]}},
    "container-title": ["Journal of Complete Records"], "short-container-title": ["J. Compl. Rec."],
    "ISSN": ["1234-5679", "2049-3630"], "issn-type": [{"value": "1234-5679", "type": "print"},
                                                      {"value": "2049-3630", "type": "electronic"}],
    "ISBN": ["978-3-16-148410-0"], "isbn-type": [{"value": "9783161484100", "type": "print"}],
    "publisher": "Example Press", "publisher-location": "Utrecht, NL", "member": "9999", "prefix": "10.5555",
    "subject": ["Library and Information Sciences", "Computer Science Applications"],
    "reference-count": 3, "references-count": 3, "is-referenced-by-count": 12,
    "author": [
        {"given": "Ada", "family": "Lovelace", "suffix": "Jr.", "prefix": "Dr.", "sequence": "first",
         "ORCID": "http://orcid.org/0000-0002-1825-0097", "authenticated-orcid": True,
         "affiliation": [{"name": "University of Somewhere", "place": ["Utrecht"], "department": ["Informatics"],
                          "acronym": ["UoS"], "id": [{"id": "https://ror.org/04pp8hn57", "id-type": "ROR",
                                                     "asserted-by": "publisher"}]}],
         "role": [{"role": "conceptualization", "vocabulary": "credit"}]},
        {"name": "The Complete Records Consortium", "sequence": "additional", "affiliation": []},
    ],
    "editor": [{"given": "Grace", "family": "Hopper", "sequence": "first", "affiliation": []}],
    "chair": [{"given": "Alan", "family": "Turing", "sequence": "first", "affiliation": []}],
    "translator": [{"given": "Émilie", "family": "du Châtelet", "sequence": "first", "affiliation": []}],
    "funder": [{"DOI": "10.13039/501100000780", "name": "European Commission", "doi-asserted-by": "crossref",
                "award": ["101017536", "101017536"]}, {"name": "A Foundation Without DOI"}],
    "license": [{"URL": "https://creativecommons.org/licenses/by/4.0/", "start": {"date-parts": [[2024, 2, 29]],
                 "date-time": "2024-02-29T00:00:00Z", "timestamp": 1709164800000}, "delay-in-days": 0,
                 "content-version": "vor"}],
    "link": [{"URL": "https://example.org/articles/kitchen-sink.pdf", "content-type": "application/pdf",
              "content-version": "vor", "intended-application": "text-mining"}],
    "reference": [
        {"key": "ref1", "DOI": "10.1000/xyz123", "doi-asserted-by": "crossref", "first-page": "1", "volume": "3",
         "author": "Smith", "year": "2001", "journal-title": "J. Old Results", "article-title": "Old results"},
        {"key": "ref2", "unstructured": "J. Doe, An unstructured reference, 1999."},
        {"key": "ref3", "isbn": "9780262033848", "isbn-type": "print", "volume-title": "Algorithms",
         "edition": "3", "series-title": "MIT Press Series", "component": "ch. 2",
         "standard-designator": "ISO 690", "standards-body": "ISO", "issue": "4", "issn": "1234-5679"},
    ],
    "event": {"name": "Conference on Complete Records", "acronym": "CCR", "location": "Utrecht, NL",
              "number": "5", "theme": "Completeness", "sponsor": ["ACM", "IEEE"],
              "start": {"date-parts": [[2024, 6, 1]]}, "end": {"date-parts": [[2024, 6, 3]]}},
    "assertion": [{"name": "received", "label": "Received", "value": "2023-11-30", "order": 0,
                   "group": {"name": "publication_history", "label": "Publication History"},
                   "URL": "https://example.org/history", "explanation": {"URL": "https://example.org/why"}}],
    "relation": {"is-preprint-of": [{"id-type": "doi", "id": "10.5555/preprint.1", "asserted-by": "object"}],
                 "is-supplemented-by": [{"id-type": "uri", "id": "https://data.example.org/set/1",
                                         "asserted-by": "subject"}],
                 "has-review": {"id-type": "doi", "id": "10.5555/review.1", "asserted-by": "object"}},
    "update-to": [{"DOI": "10.5555/kitchen.sink-2023", "type": "correction", "label": "Correction",
                   "updated": {"date-parts": [[2024, 2, 29]], "date-time": "2024-02-29T00:00:00Z"}}],
    "alternative-id": ["KS-2024-001"], "archive": ["Portico", "CLOCKSS"],
    "clinical-trial-number": [{"clinical-trial-number": "NCT01234567", "registry": "10.18810/clinical-trials-gov",
                               "type": "preResults"}],
    "institution": [{"name": "University of Somewhere", "place": ["Utrecht"], "department": ["Informatics"],
                     "acronym": ["UoS"], "id": [{"id": "https://ror.org/04pp8hn57", "id-type": "ROR",
                                                 "asserted-by": "publisher"}]}],
    "group-title": "Informatics", "degree": ["PhD"], "edition-number": "2", "part-number": "1",
    "component-number": "3", "standards-body": {"name": "International Organization for Standardization",
                                                "acronym": "ISO"},
    "content-domain": {"domain": ["example.org"], "crossmark-restriction": True},
    "update-policy": "https://doi.org/10.5555/crossmark-policy", "award": "GR-42",
    "project": [{"project-title": [{"title": "Complete Records", "language": "en"}],
                 "project-description": [{"description": "Maps everything.", "language": "en"}],
                 "lead-investigator": [{"given": "Ada", "family": "Lovelace",
                                        "ORCID": "https://orcid.org/0000-0002-1825-0097", "affiliation": []}],
                 "investigator": [{"given": "Charles", "family": "Babbage", "affiliation": []}],
                 "funding": [{"type": "grant", "scheme": "Horizon", "funding-percentage": "100",
                              "funder": {"name": "European Commission",
                                         "id": [{"id": "10.13039/501100000780", "id-type": "DOI",
                                                 "asserted-by": "publisher"}]},
                              "award-amount": {"amount": "1000000", "currency": "EUR"}}],
                 "award-amount": {"amount": "1000000", "currency": "EUR"},
                 "award-start": {"date-parts": [[2022, 1, 1]]}, "award-end": {"date-parts": [[2025, 12, 31]]}}],
    "review": {"type": "referee-report", "recommendation": "minor-revision", "revision-round": "1",
               "stage": "pre-publication", "running-number": "R1", "competing-interest-statement": "None",
               "language": "en"},
    "free-to-read": {"start-date": {"date-parts": [[2024, 2, 29]]}, "end-date": {"date-parts": [[2030]]}},
    "aliases": ["10.5555/kitchen.sink.alias"],
    "score": 1.0, "source": "Crossref",
}

RECORDS = _load() + [("kitchen-sink", KITCHEN_SINK)]
CTX = Context.create()


def test_real_records_are_loaded() -> None:
    assert sum(1 for n, _ in RECORDS if n.endswith(".txt")) == 4
    assert len(RECORDS) >= 6, f"expected the real samples in {SAMPLES_DIR}"


# ---------------------------------------------------------------- the property checked for every record

RDFLIB_FORMAT = {"turtle": "turtle", "json-ld": "json-ld", "nt": "nt", "nquads": "nquads", "trig": "trig",
                 "xml": "xml"}
OX_FORMAT = {"turtle": pyoxigraph.RdfFormat.TURTLE, "json-ld": pyoxigraph.RdfFormat.JSON_LD,
             "nt": pyoxigraph.RdfFormat.N_TRIPLES, "nquads": pyoxigraph.RdfFormat.N_QUADS,
             "trig": pyoxigraph.RdfFormat.TRIG, "xml": pyoxigraph.RdfFormat.RDF_XML}


def quad_lines(raw: Any, name: str = FILE_NAME) -> list[str] | None:
    """normalize + map_work like kg/pipeline/; None when the record is rejected with a clean InputError."""
    try:
        work, warnings = normalize(raw, Source(name, "0" * 64, ""))
    except InputError as e:
        text = str(e)
        assert "\n" not in text and "\r" not in text, f"InputError is not one line: {text!r}"
        assert text.startswith(f"{name}: "), f"InputError does not start with the file name: {text!r}"
        return None
    for w in warnings:
        assert "\n" not in w and "\r" not in w, f"warning is not one line: {w!r}"
        assert w.startswith(f"{name}: "), f"warning does not start with the file name: {w!r}"
    graph = CTX.minter.graph(work.doi)
    return sorted({f"{s} {p} {o} {graph} .\n" for s, p, o in map_work(work, CTX)})


def _rdflib_triples(fmt: str, data: str) -> set:
    if fmt in ("nquads", "trig"):
        ds = rdflib.Dataset()
        ds.parse(data=data, format=RDFLIB_FORMAT[fmt])
        triples = {(s, p, o) for s, p, o, _g in ds.quads((None, None, None, None))}
        names = {g for *_t, g in ds.quads((None, None, None, None))}
        assert not any(isinstance(g, rdflib.BNode) for g in names), f"{fmt}: blank graph name"
    else:
        g = rdflib.Graph()
        g.parse(data=data, format=RDFLIB_FORMAT[fmt])
        triples = set(g)
    return triples


def check_record(raw: Any, name: str = FILE_NAME) -> None:
    """Either a clean InputError, or every format parses back (rdflib, and Oxigraph) with no blank node."""
    lines = quad_lines(raw, name)
    if lines is None:
        return
    assert lines, "a mapped work has no triples"
    reference: set | None = None
    for fmt, writer in WRITERS.items():
        buf = io.StringIO()
        writer(lines, buf)
        data = buf.getvalue()
        data.encode("utf-8")  # every output must be writable as UTF-8 (no lone surrogates)
        try:
            triples = _rdflib_triples(fmt, data)
        except Exception as e:  # noqa: BLE001 - report which format broke and how
            raise AssertionError(f"rdflib cannot parse the {fmt} output: {type(e).__name__}: {e}") from None
        assert not any(isinstance(t, rdflib.BNode) for tr in triples for t in tr), f"{fmt}: blank node in output"
        if reference is None:
            reference = triples
        else:
            assert len(triples) == len(reference), f"{fmt} holds {len(triples)} triples, turtle {len(reference)}"
        try:
            quads = list(pyoxigraph.parse(data.encode("utf-8"), format=OX_FORMAT[fmt]))
        except (SyntaxError, ValueError) as e:
            raise AssertionError(f"Oxigraph cannot parse the {fmt} output: {e}") from None
        assert not any(isinstance(t, pyoxigraph.BlankNode) for q in quads
                       for t in (q.subject, q.object, q.graph_name)), f"{fmt}: blank node (Oxigraph)"


def test_unmutated_records_map_and_round_trip() -> None:
    for name, raw in RECORDS:
        lines = quad_lines(raw)
        assert lines, name
        check_record(raw)


# ---------------------------------------------------------------- strategies

NASTY_CHARS = [
    "\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x85", "\x9f", "\t", "\n", "\r",
    "\ud800", "\udfff", "\udc80", "\u200f", "\u202e", "\u2028", "\u2029", "\ufeff", "\ufffe", "\uffff",
    "\U0001f600", "\U0001f469\u200d\U0001f52c", "\u0301", "\u00a0", "\u3000", "<", ">", '"', "{", "}", "|",
    "^", "`", "\\", " ", "#", "%", "%zz", "%41", "&", "'", "]]>", "<![CDATA[", "&amp;", "@", "_:b0", "\\u0000",
    "\\n", '\\"', "\U0010ffff", "\U0001fffe",
]
odd_char = st.sampled_from(NASTY_CHARS) | st.characters(codec=None)
odd_text = st.lists(odd_char | st.text(max_size=5), min_size=1, max_size=12).map("".join)
huge_text = st.tuples(odd_text, st.sampled_from(["x", "é", "\U0001f600", "a b ", "<>", "\x01", "\ud800"]),
                      odd_text).map(lambda t: t[0] + t[1] * (100_000 // len(t[1])) + t[2])
scalar = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63, max_value=2**80)
          | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20) | odd_text)
wrong_value = (scalar
               | st.lists(scalar, max_size=3)
               | st.dictionaries(st.text(max_size=8), scalar, max_size=3)
               | st.just([[]]) | st.just([[None]]) | st.just({}) | st.just([]) | st.just(""))
IRI_ILLEGAL = [" ", "<", ">", '"', "{", "}", "|", "^", "`", "\\", "#", "%", "%2", "%zz", "?", "\n", "\t", "\x00",
               "\ud800", "\u200f", "\ufffe", "\U0001f600", "[", "]", "/", "//", ":", "@"]
iri_junk = st.lists(st.sampled_from(IRI_ILLEGAL) | st.text(max_size=3), min_size=1, max_size=8).map("".join)
odd_doi = st.builds(lambda reg, a, junk, b: f"10.{reg}/{a}{junk}{b}",
                    st.integers(1000, 99999), st.text("abcXYZ019.-_()", min_size=1, max_size=6), iri_junk,
                    st.text("abc019", max_size=3))
doi_spelling = st.sampled_from(["{}", "https://doi.org/{}", "http://dx.doi.org/{}", "doi:{}", " {} ", "DOI: {}"])
odd_url = st.builds(lambda scheme, host, junk, tail: f"{scheme}{host}/{junk}{tail}",
                    st.sampled_from(["https://", "http://", "ftp://", "urn:", "mailto:", "", "https:", "//",
                                     " https://"]),
                    st.sampled_from(["example.org", "ex ample.org", "exa<mple>.org", "[::1]", "xn--e1afmkfd.xn--p1ai",
                                     "пример.рф", "", "user:pw@host:99999", "host:port"]),
                    iri_junk, iri_junk)
odd_orcid = st.one_of(
    st.builds(lambda junk: f"https://orcid.org/0000-0002-1825-0097{junk}", iri_junk),
    st.builds(lambda junk: f"http://orcid.org/{junk}0000-0002-1825-0097", iri_junk),
    st.sampled_from(["0000-0002-1825-0097", "0000-0002-1825-009X", "0000-0002-1694-233x", "0000-0002-1825-0098",
                     "https://orcid.org/0000-0002-1825-0097/", " https://orcid.org/0000-0002-1825-0097 "]),
    odd_text,
)


def all_paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys and indexes) to a value inside obj, the root excluded."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(prefix + (k,))
            out.extend(all_paths(v, prefix + (k,)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.append(prefix + (i,))
            out.extend(all_paths(v, prefix + (i,)))
    return out


def _parent(obj: Any, path: tuple) -> Any:
    for k in path[:-1]:
        obj = obj[k]
    return obj


def _get(obj: Any, path: tuple) -> Any:
    for k in path:
        obj = obj[k]
    return obj


def _set(obj: Any, path: tuple, value: Any) -> None:
    _parent(obj, path)[path[-1]] = value


def without_known_bugs(raw: Any) -> Any:
    """Take out what triggers a bug that has its own xfail test, so the broad properties keep guarding the rest.

    KNOWN BUG (test_line_breaks_in_a_doi_never_split_a_message): a line break in the top-level DOI is copied
    into every error and warning of the record, which then spans several lines. Remove this when fixed.
    """
    if isinstance(raw, dict) and isinstance(raw.get("DOI"), str):
        raw["DOI"] = raw["DOI"].replace("\n", " ").replace("\r", " ")
    return raw


@st.composite
def base_record(draw) -> tuple[str, dict[str, Any]]:
    name, raw = draw(st.sampled_from(RECORDS))
    return name, copy.deepcopy(raw)


@st.composite
def mutated_record(draw) -> dict[str, Any]:
    """A real record with 1-6 random mutations anywhere (top level or nested)."""
    _name, raw = draw(base_record())
    for _ in range(draw(st.integers(1, 6))):
        paths = all_paths(raw)
        if not paths:
            break
        # favour the top level half of the time, so whole fields go and change type often
        top = [p for p in paths if len(p) == 1]
        path = draw(st.sampled_from(top) if top and draw(st.booleans()) else st.sampled_from(paths))
        op = draw(st.sampled_from(["delete", "wrong", "odd", "insert", "huge"]))
        parent = _parent(raw, path)
        if op == "delete":
            del parent[path[-1]]
        elif op == "wrong":
            _set(raw, path, draw(wrong_value))
        elif op == "odd":
            _set(raw, path, draw(odd_text))
        elif op == "insert":
            old = _get(raw, path)
            text = old if isinstance(old, str) else str(old)
            at = draw(st.integers(0, len(text)))
            _set(raw, path, text[:at] + draw(odd_text) + text[at:])
        else:
            _set(raw, path, draw(huge_text))
    return without_known_bugs(raw)


def _url_slots(raw: dict[str, Any]) -> list[tuple]:
    slots: list[tuple] = [("URL",), ("update-policy",)]
    for key in ("link", "license"):
        if isinstance(raw.get(key), list):
            slots += [(key, i, "URL") for i, x in enumerate(raw[key]) if isinstance(x, dict)]
    if isinstance(raw.get("assertion"), list):
        slots += [("assertion", i, "URL") for i, x in enumerate(raw["assertion"]) if isinstance(x, dict)]
    return slots


def _doi_slots(raw: dict[str, Any]) -> list[tuple]:
    slots: list[tuple] = [("DOI",)]
    for key in ("reference", "funder", "update-to"):
        if isinstance(raw.get(key), list):
            slots += [(key, i, "DOI") for i, x in enumerate(raw[key]) if isinstance(x, dict)]
    return slots


@st.composite
def iri_mutated_record(draw) -> dict[str, Any]:
    """A real record whose DOIs, reference DOIs, URLs and ORCIDs hold characters that are illegal in IRIs."""
    _name, raw = draw(base_record())
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["doi", "doi", "url", "url", "primary", "orcid", "relation", "alias"]))
        if kind == "doi":
            path = draw(st.sampled_from(_doi_slots(raw)))
            _set(raw, path, draw(doi_spelling).format(draw(odd_doi)))
        elif kind == "url":
            parent_path = draw(st.sampled_from(_url_slots(raw)))
            _set(raw, parent_path, draw(odd_url))
        elif kind == "primary":
            raw["resource"] = {"primary": {"URL": draw(odd_url)}}
        elif kind == "orcid":
            authors = raw.get("author") if isinstance(raw.get("author"), list) else []
            if not authors:
                raw["author"] = authors = [{"given": "Ada", "family": "Lovelace", "sequence": "first"}]
            i = draw(st.integers(0, len(authors) - 1))
            if isinstance(authors[i], dict):
                authors[i]["ORCID"] = draw(odd_orcid)
                authors[i]["authenticated-orcid"] = draw(st.booleans())
        elif kind == "relation":
            rel = raw.setdefault("relation", {}) if isinstance(raw.get("relation", {}), dict) else {}
            rtype = draw(st.sampled_from(["is-preprint-of", "cites", "has-review"]))
            id_type = draw(st.sampled_from(["doi", "uri", "url", "DOI", "other"]))
            ident = draw(odd_doi | odd_url)
            items = rel.get(rtype)
            items = [items] if isinstance(items, dict) else items if isinstance(items, list) else []
            rel[rtype] = items + [{"id-type": id_type, "id": ident, "asserted-by": "subject"}]
        else:
            raw["aliases"] = [draw(odd_doi) for _ in range(draw(st.integers(1, 3)))]
    return without_known_bugs(raw)


# ---------------------------------------------------------------- properties of normalize + map + export


@settings(max_examples=60, **SETTINGS)
@given(mutated_record())
def test_mutated_records_either_fail_cleanly_or_round_trip(raw: dict[str, Any]) -> None:
    check_record(raw)


@settings(max_examples=50, **SETTINGS)
@given(iri_mutated_record())
@example({"DOI": "10.1234/a b<c>\"{d}|e^f`g\\h#i%j", "type": "journal-article", "title": ["t"],
          "URL": "https://example.org/a b<c>\"{}|^`\\#%zz",
          "link": [{"URL": "http://ex ample.org/x y", "content-type": "text/html"}],
          "license": [{"URL": "https://creativecommons.org/licenses/by/4.0/ #%", "content-version": "vor"}],
          "resource": {"primary": {"URL": "https://example.org/\ud800 \ufffe"}},
          "reference": [{"key": "r1", "DOI": "10.5555/x y<z>#1%", "doi-asserted-by": "crossref"}],
          "author": [{"given": "A", "family": "B", "ORCID": "https://orcid.org/0000-0002-1825-0097",
                      "sequence": "first"}]})
def test_iri_illegal_characters_never_reach_an_iri(raw: dict[str, Any]) -> None:
    check_record(raw)


@settings(max_examples=25, **SETTINGS)
@given(base_record(), st.data())
def test_huge_and_odd_strings_in_every_string_field(rec: tuple[str, dict[str, Any]], data: st.DataObject) -> None:
    """One string field (any depth) becomes 100k characters, up to three more get odd unicode."""
    _name, raw = rec
    string_paths = [p for p in all_paths(raw) if isinstance(_get(raw, p), str) and p != ("DOI",)]
    paths = data.draw(st.lists(st.sampled_from(string_paths), min_size=1, max_size=4, unique=True))
    for i, path in enumerate(paths):
        _set(raw, path, data.draw(huge_text if i == 0 else odd_text))
    check_record(raw)


@settings(max_examples=100, **SETTINGS)
@given(st.one_of(
    wrong_value,
    st.dictionaries(st.sampled_from(["DOI", "type", "title", "URL", "foo"]), wrong_value, max_size=4),
    st.builds(lambda doi, rest: {"DOI": doi, **rest},
              st.text(max_size=12) | odd_doi | st.just("10.1234/ok"),
              st.dictionaries(st.sampled_from(["type", "title", "author", "issued", "reference", "URL", "link"]),
                              wrong_value, max_size=4)),
))
def test_arbitrary_small_values_fail_cleanly_or_round_trip(raw: Any) -> None:
    check_record(without_known_bugs(raw))


@st.composite
def key_renamed_record(draw) -> dict[str, Any]:
    """A real record where the KEYS of 1-3 objects (top level or nested) get odd characters."""
    _name, raw = draw(base_record())
    for _ in range(draw(st.integers(1, 3))):
        holders = [()] + [p for p in all_paths(raw) if isinstance(_get(raw, p), dict) and _get(raw, p)]
        path = draw(st.sampled_from(holders))
        obj = _get(raw, path) if path else raw
        key = draw(st.sampled_from(sorted(obj)))
        if path == () and key == "DOI":
            continue
        obj[key + draw(st.sampled_from(["\x00", "\x01", "\ud800", "\ufffe", "\n", " ", "<x>", "é",
                                        "\u202e"]))] = obj.pop(key)
    return raw


@settings(max_examples=20, **SETTINGS)
@given(key_renamed_record())
@example({"DOI": "10.5555/rel.1", "type": "journal-article", "title": ["t"],
          "relation": {"is-\x00-of": [{"id-type": "doi", "id": "10.5555/other", "asserted-by": "subject"}]}})
@example({"DOI": "10.5555/rel.2", "type": "journal-article", "title": ["t"],
          "relation": {"is-review-of\ud800\ufffe": [{"id-type": "doi", "id": "10.5555/other",
                                                     "asserted-by": "subject"}]}})
def test_odd_characters_in_object_keys_fail_cleanly_or_round_trip(raw: dict[str, Any]) -> None:
    check_record(without_known_bugs(raw))


@settings(max_examples=25, **SETTINGS)
@given(st.builds(lambda pre, a, brk, b: f"{pre}{a}{brk}{b}", st.sampled_from(["10.5555/", "11.5555/", "10.5555", ""]),
                 st.text("abc019.-", min_size=1, max_size=5), st.sampled_from(["\n", "\r", "\r\n", "\n\n"]),
                 st.text("abc019.-", max_size=5)),
       st.booleans())
@example("10.5555/a\nb", True)
@example("11.5555/a\nb", False)
def test_line_breaks_in_a_doi_never_split_a_message(doi: str, with_warning: bool) -> None:
    raw = {"DOI": doi, "type": "journal-article", "title": "a string" if with_warning else ["A title"]}
    check_record(raw)


@settings(max_examples=40, **SETTINGS)
@given(st.lists(st.text(st.characters(exclude_characters="/\x00", codec=None), min_size=1, max_size=4)
                | st.sampled_from(["\x01", "\x1b[31m", "\n", "\r", "\t", "\u202e", "\ufffe", "\U0001f600", " ", "<>",
                                   "#%", '"', "\\", "é", "\udce9", "\udcff", "\x7f"]), min_size=1, max_size=4)
       .map("".join).filter(lambda n: n not in (".", "..") and not n.startswith(".")), st.booleans())
@example("bad\x01name.json", False)
@example(os.fsdecode(b"caf\xe9.json"), True)
@example("line\nbreak.json", False)
def test_odd_file_names_are_shown_cleanly_and_round_trip(tmp_path_factory: pytest.TempPathFactory, name: str,
                                                         in_folder: bool) -> None:
    """A record read from a file with an odd name (control characters, undecodable bytes, RTL marks ...)."""
    folder = tmp_path_factory.mktemp("names")
    path = folder / name
    try:
        path.write_text(json.dumps({"DOI": "10.5555/name.1", "type": "journal-article", "title": "a string"}))
    except (OSError, UnicodeEncodeError, ValueError):
        return  # the file system refuses this name: nothing to read
    items = list(iter_records([str(folder if in_folder else path)]))
    assert len(items) == 1 and isinstance(items[0], tuple), items
    source, raw = items[0]
    shown = source.path
    shown.encode("utf-8")  # what kg shows and stores is valid UTF-8 ...
    assert "\n" not in shown and "\r" not in shown  # ... and one line
    check_record(raw, shown)


# ---------------------------------------------------------------- the reader


def _check_items(items: list[Any], shown: str) -> None:
    for item in items:
        if isinstance(item, Ignored):
            assert "\n" not in item and str(item).startswith(shown)
        elif isinstance(item, InputError):
            text = str(item)
            assert "\n" not in text and text.startswith(f"{shown}"), text
        else:
            assert isinstance(item, tuple) and len(item) == 2, item
            assert isinstance(item[0], Source) and item[0].path == shown


GOOD_LINE = json.dumps({"DOI": "10.1234/good.1", "type": "journal-article", "title": ["Good"]}).encode()
json_ish = st.lists(
    st.sampled_from([b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\n", b"\r\n", b" ", b"null", b"1e400",
                     b'"DOI"', b'"10.1234/x"', b'"message"', b'"message-type"', b'"work"', b'"items"', b"\xef\xbb\xbf",
                     b"\x1f\x8b", b"\xff", b"\xed\xa0\x80", b'"\\ud800"', GOOD_LINE, b"\x00"]) | st.binary(max_size=8),
    max_size=30).map(b"".join)


@settings(max_examples=100, **SETTINGS)
@given(st.binary(max_size=300) | json_ish | json_ish.map(gzip.compress)
       | st.tuples(json_ish.map(gzip.compress), st.integers(1, 40)).map(lambda t: t[0][:-t[1]]),
       st.sampled_from(["in.json", "in.jsonl", "in.json.gz", "README.md"]), st.booleans())
def test_reader_never_raises_on_arbitrary_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes,
                                                name: str, in_folder: bool) -> None:
    folder = tmp_path_factory.mktemp("reader")
    (folder / name).write_bytes(data)
    target = folder if in_folder else folder / name
    items = list(iter_records([str(target)]))
    _check_items(items, str(folder / name) if in_folder else str(target))
    for item in items:  # and whatever the reader yields, normalize fails cleanly or maps
        if isinstance(item, tuple):
            try:
                work, _warnings = normalize(item[1], item[0])
            except InputError:
                continue
            map_work(work, CTX)


@settings(max_examples=400, **SETTINGS)
@given(st.text(alphabet=st.sampled_from(list("ab  \t\n\r\x0b\x0c\x1c\x1f\x7f\x85\xa0\u2028\u3000\ufffe\ud800é~")))
       | st.text())
@example("  a  b ")
@example("a\x1fb")
@example("a\x7fb")
def test_the_fast_paths_of_clean_and_squash_give_what_the_regular_expressions_give(text: str) -> None:
    from kg.ingest.text import _BAD_CHARS, _WS, clean, squash
    assert clean(text) == _BAD_CHARS.sub("", text)
    assert squash(text) == _WS.sub(" ", _BAD_CHARS.sub("", text)).strip()

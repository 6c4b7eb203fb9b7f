"""Read the DOIs of a reference manager's library: BibTeX (``.bib``), RIS (``.ris``) or CSL-JSON.

What Zotero, Mendeley and JabRef export. BibTeX is parsed by bibtexparser 2 (LaTeX decoded by its pylatexenc
middleware, so ``10.1007/x\\_9`` is ``10.1007/x_9``), RIS by rispy; CSL-JSON is plain JSON: a list of items with
``id`` and ``type`` (told apart from other JSON by that content, whatever the file's name). An entry's DOI is its
DOI field, else a doi.org URL in its URL or note fields. DOIs under the prefixes of ``kg/data/doi-agencies.json``
(arXiv's and other DataCite DOIs) are set apart: Crossref does not hold them.

Example: ``read_library(Path("My Library.bib")).dois``
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ..errors import InputError
from ..fetch import Client, parse_doi, read_input
from ..ingest.read import display_path
from ..resources import data_file

_DOI_URL = re.compile(r"https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/[^\s\"<>{}]+)", re.I)
_TAG = re.compile(r"<[^>]+>")
_RIS_START = re.compile(r"^\s*(?:\d+\.\s*)?TY {1,2}- ", re.M)
LIBRARY_SUFFIXES = {".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris"}


@dataclass(frozen=True)
class Entry:
    """One entry of a library: its key (or position), DOI if any, and what a title search needs."""

    key: str
    doi: str | None
    title: str = ""
    authors: tuple[str, ...] = ()  # family names
    year: str = ""


@dataclass
class Library:
    """The entries of one library file, and its DOIs split into Crossref's and the others'."""

    path: Path
    format: str
    entries: list[Entry] = field(default_factory=list)

    @property
    def dois(self) -> list[str]:
        """The DOIs Crossref may hold, first-seen order, without repeats."""
        return list(dict.fromkeys(e.doi for e in self.entries if e.doi and agency(e.doi) is None))

    @property
    def without_doi(self) -> list[Entry]:
        return [e for e in self.entries if not e.doi]

    @property
    def elsewhere(self) -> list[tuple[Entry, str]]:
        """Entries whose DOI another agency registered, with that agency's name (e.g. ``DataCite (arXiv)``)."""
        return [(e, a) for e in self.entries if e.doi and (a := agency(e.doi)) is not None]


@functools.cache
def _agencies() -> dict[str, str]:
    doc = orjson.loads(data_file("doi-agencies.json").read_bytes())
    return {prefix: f"{name} ({what})" for name, prefixes in doc["agencies"].items()
            for prefix, what in prefixes.items()}


def agency(doi: str) -> str | None:
    """The registration agency of a DOI whose prefix is known not to be Crossref's, else None.

    Example:

    >>> agency("10.48550/arxiv.1706.03762")
    'DataCite (arXiv)'
    """
    return _agencies().get(doi.split("/", 1)[0])


def library_format(path: Path) -> str | None:
    """``bibtex``, ``ris`` or ``csl-json`` for a library file (by suffix, or by content), None for a DOI list."""
    if path.suffix.lower() in LIBRARY_SUFFIXES:
        return LIBRARY_SUFFIXES[path.suffix.lower()]
    try:
        head = path.read_bytes()[:4096].decode("utf-8-sig", errors="replace").lstrip()
    except OSError:
        return None
    if head.startswith(("[", "{")):
        return "csl-json"
    if _RIS_START.match(head):
        return "ris"
    if head.startswith("@"):
        return "bibtex"
    return None


def read_library(path: Path) -> Library:
    """Every entry of a BibTeX, RIS or CSL-JSON file; InputError when it cannot be read as one."""
    fmt = library_format(path) or "bibtex"
    shown = display_path(str(path))
    text = read_input(path, shown, "give a UTF-8 BibTeX, RIS or CSL-JSON file")
    reader = {"bibtex": _bibtex, "ris": _ris, "csl-json": _csl_json}[fmt]
    return Library(path, fmt, reader(text, shown))


def _doi(fields: list[object], urls: list[object]) -> str | None:
    """The first DOI field that is a DOI, else the first doi.org URL in the URL or note fields."""
    for value in fields:
        if isinstance(value, str) and value.strip() and (doi := parse_doi(value)):
            return doi
    for value in urls:
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and (m := _DOI_URL.search(text)) and (doi := parse_doi(m.group(0))):
                return doi.rstrip(".,;")
    return None


def _bibtex(text: str, shown: str) -> list[Entry]:
    import bibtexparser
    from bibtexparser import model
    from bibtexparser.middlewares import LatexDecodingMiddleware

    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    if library.failed_blocks and not library.entries:
        raise InputError(shown, "is not a BibTeX file bibtexparser can read",
                         "export the library again as BibTeX, or give one DOI a line")
    entries = []
    for block in library.blocks:  # file order
        if isinstance(block, model.Entry):
            entries.append(block)
        elif isinstance(block, model.DuplicateBlockKeyBlock):
            # An entry whose key another already has: Mendeley writes ``@misc{,`` for every item without a
            # citation key. bibtexparser sets it apart undecoded; parsed alone, it is decoded like the others.
            entries.extend(bibtexparser.parse_string(block.raw or "", append_middleware=[LatexDecodingMiddleware()])
                           .entries)
    out = []
    for n, entry in enumerate(entries, start=1):
        f = {k.lower(): str(v.value) for k, v in entry.fields_dict.items()}
        authors = tuple(a.split(",")[0].strip().strip("{}") for a in re.split(r"\s+and\s+", f.get("author", ""))
                        if a.strip())
        out.append(Entry(entry.key or f"entry {n}",
                         _doi([f.get("doi")], [f.get("url"), f.get("note"), f.get("howpublished")]),
                         _plain(f.get("title", "")), authors, f.get("year", "")[:4]))
    return out


def _ris(text: str, shown: str) -> list[Entry]:
    import rispy  # type: ignore[import-untyped]  # (rispy ships no type hints)

    try:
        records = rispy.loads(text)
    except (IOError, ValueError) as e:  # rispy raises IOError for a file without a TY line
        raise InputError(shown, f"is not a RIS file rispy can read ({e})",
                         "export the library again as RIS, or give one DOI a line") from None
    out = []
    for n, rec in enumerate(records, start=1):
        names = rec.get("authors") or rec.get("first_authors") or []
        authors = tuple(str(a).split(",")[0].strip() for a in names)
        title = rec.get("title") or rec.get("primary_title") or ""
        year = str(rec.get("year") or rec.get("publication_year") or "")[:4]
        key = str(rec.get("id") or f"entry {n}")
        out.append(Entry(key, _doi([rec.get("doi")], [rec.get("urls"), rec.get("notes"), rec.get("url")]),
                         _plain(str(title)), authors, year))
    return out


def _csl_json(text: str, shown: str) -> list[Entry]:
    try:
        items = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        raise InputError(shown, f"is not valid JSON ({str(e).split(':')[0]})",
                         "give a CSL-JSON export (a list of items), or one DOI a line") from None
    if not isinstance(items, list) or not items or not all(
            isinstance(i, dict) and ("id" in i or "type" in i) for i in items):
        raise InputError(shown, "is JSON but not CSL-JSON (a list of items with id and type)",
                         "export the library as CSL JSON, or give one DOI a line")
    out = []
    for n, item in enumerate(items, start=1):
        fields = {k.lower(): v for k, v in item.items()}
        names = fields.get("author")
        authors = tuple(str(a.get("family") or a.get("literal") or "") for a in names if isinstance(a, dict)) \
            if isinstance(names, list) else ()
        issued = fields.get("issued")
        parts = (issued.get("date-parts") if isinstance(issued, dict) else None) or [[]]
        year = str(parts[0][0]) if parts and parts[0] else ""
        out.append(Entry(str(item.get("id", f"entry {n}")), _doi([fields.get("doi")], [fields.get("url"),
                                                                                       fields.get("note")]),
                         _plain(str(fields.get("title", ""))), authors, year))
    return out


def _plain(title: str) -> str:
    """A title without markup: HTML tags (CSL-JSON) and BibTeX's protective braces removed, spaces collapsed."""
    return " ".join(_TAG.sub("", title).replace("{", "").replace("}", "").split())


# ---------------------------------------------------------------- --match-titles

MIN_SCORE = 60.0  # Crossref's relevance score of the best match, at least (exact title and authors score ~100+)
MIN_TITLE = 0.85  # and its title like the entry's: difflib's ratio of the two in lower-case letters and digits


@dataclass(frozen=True)
class Match:
    """An entry without a DOI, and the work Crossref's ``query.bibliographic`` found for it (None: not accepted)."""

    entry: Entry
    doi: str | None
    score: float = 0.0
    title: str = ""
    why: str = ""


def match_entries(entries: list[Entry], client: Client, min_score: float = MIN_SCORE) -> list[Match]:
    """Look each entry up by ``query.bibliographic`` (title, authors' family names, year); accept the best item
    when Crossref's score is at least ``min_score`` and its title is the entry's (``MIN_TITLE``)."""
    import difflib

    from .search import Search, page_problem, search_url

    def norm(text: str) -> str:
        return "".join(c for c in text.lower() if c.isalnum())

    out = []
    for entry in entries:
        if not entry.title:
            out.append(Match(entry, None, why="no title to look up"))
            continue
        text = " ".join([entry.title, *entry.authors, entry.year]).strip()
        url = search_url(client.api_url, Search({"query.bibliographic": text}), 1, None, client.mailto)
        answer = client.ask(url, check=page_problem)
        if not answer.ok:
            out.append(Match(entry, None, why=answer.problem))
            continue
        items = orjson.loads(answer.body)["message"]["items"]
        best = items[0] if items and isinstance(items[0], dict) else {}
        titles = best.get("title") or [""]
        title = str(titles[0]) if isinstance(titles, list) and titles else ""
        score = float(best.get("score") or 0.0)
        doi = parse_doi(str(best.get("DOI", "")))
        alike = difflib.SequenceMatcher(None, norm(entry.title), norm(title)).ratio()
        if doi and score >= min_score and alike >= MIN_TITLE:
            out.append(Match(entry, doi, score, title))
        else:
            why = "no work found" if not doi else (f"best match {doi} scores {score:.1f} < {min_score:g}"
                                                   if score < min_score else
                                                   f"best match {doi} has another title ({title[:60]})")
            out.append(Match(entry, None, score, title, why))
    return out

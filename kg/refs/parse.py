"""Reference parsing: a Crossref reference (structured fields and/or free text) -> ``ParsedRef`` fields.

Handles DOI-only, structured, unstructured and key-only references, and the free-text styles of ACM
("A. Author and B. Author. 2016. Title. In Venue."), IEEE ("A. Author, "Title," in Proc. X, 2020."),
Nature ("Author, A. & Author, B. Title. Journal 4, 140 (2010)."), Springer/PLOS/Vancouver
("Author A, Author B (2019) Title. Journal 4:1-9"), Elsevier ("A. Author, Title, Journal 4 (2010) 1-9.")
and Harvard/APA ("Author, A. (1990), Title, Publisher."). Pure and deterministic.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..model import Reference

DOI_IN_TEXT = re.compile(r"\b(10\.[0-9]{4,9}/[^\s\"<>]+)", re.I)
ARXIV_NEW = re.compile(r"(?:arxiv(?:\.org/(?:abs|pdf)/|\s*(?:preprint\s*)?(?::\s*)?(?:abs/)?)"
                       r"|corr\s+abs/|10\.48550/arxiv\.)"
                       r"(\d{4}\.\d{4,5})(?:v\d+)?", re.I)
ARXIV_OLD = re.compile(r"arxiv(?:\.org/abs/|:\s*)([a-z\-]+(?:\.[a-z]{2})?/\d{7})", re.I)
URL = re.compile(r"(?:https?://|www\.)[^\s<>\"]+", re.I)
YEAR = re.compile(r"(?<![\d/.-])((?:19|20)[0-9]{2})[a-z]?(?![\d/-])")
ACCESSED = re.compile(r"\b(?:last\s+)?(?:accessed|retrieved|visited)(?:\s+on)?\s*:?\s*(.+?)(?:[.\]]\s*$|$)", re.I)
_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
_TRAIL = ".,;:)]}>'\""
_ND = re.compile(r"\[n\.\s?d\.\]|\bn\.d\.", re.I)
_ACM_TAIL = r"(?P<year>(?:19|20)[0-9]{2}[a-z]?|\[n\.\s?d\.\])\.\s+(?P<rest>.+)$"  # "2016. Title. In Venue."
_ACM = re.compile(r"^(?P<authors>.*?)\.?\s" + _ACM_TAIL)
_ACM_NOAUTH = re.compile("^" + _ACM_TAIL)
_QUOTED = re.compile(r"[“\"«](?P<title>[^”\"»]{4,}?)[,.]?\s*[”\"»]")
_OPENING = re.compile(r"[“\"«]")
_CLOSING = re.compile(r"[”\"»]")
_PAREN_YEAR = re.compile(r"^(?P<authors>[^\d()]+?)\s*\((?P<year>(?:19|20)[0-9]{2})[a-z]?(?:,[^)]*)?\)"
                         r"\s*[.,:]?\s+(?P<rest>.+)$")
_NATURE_TAIL = re.compile(r"\((?P<year>(?:19|20)[0-9]{2})[a-z]?\)\.?\s*$")
_NATURE_AUTHORS = re.compile(
    r"^(?P<authors>(?:[^,.&()]{2,60}?,\s(?:[A-Z][a-z]?\.\s?-?\s?)+(?:,\s(?:Jr|Sr|II|III)\s?\.?)?(?:,\s|\s?&\s|\s)?)+"
    r"(?:et\sal\.\s*)?)(?P<rest>.+)$")
_VANCOUVER = re.compile(r"^(?P<authors>(?:[^,.()]+?\s[A-Z]{1,3}\s?,\s*)*[^,.()]+?\s[A-Z]{1,3}(?:\s?,?\s*et al)?)"
                        r"\s?[.,]?\s+"
                        r"(?:\((?P<year>(?:19|20)[0-9]{2})[a-z]?\)\s+)?(?P<rest>.+)$")
_VENUE_HINT = re.compile(r"^(?:In\s|in\s|Proc\.|Proceedings|Journal|Trans\.|IEEE|ACM|arXiv|CoRR|Adv\.|Advances)")
_TITLE_END = re.compile(r"(?<=\S)([.?!])\s+(?=[A-Z0-9(\[]|In\s|arXiv|https?://|www\.|pages?\s|pp\.|vol\.|in\s)")
_ABBREV = frozenset("vol no pp proc dr st mr ms jr sr e.g i.e vs fig eq al inc corp ltd dept univ intl conf".split())
_ENUM = re.compile(r"^\[?\d{1,3}[.\])]\s?(?=[A-Z\[])")
_WORD = re.compile(r"[^\W\d_]+|\d+", re.U)
GENERIC_AUTHORS = frozenset("""corporation corp inc incorporated team ltd llc gmbh co company group developers
    contributors community foundation project authors anonymous nvidia intel amd google microsoft meta facebook
    apple arm ibm openai""".split())


@dataclass(frozen=True, slots=True)
class ParsedRef:
    """What a reference says about the cited work, as far as its fields and text tell."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    year: str | None = None
    venue: str | None = None
    urls: tuple[str, ...] = ()
    arxiv: str | None = None
    doi: str | None = None  # lower-cased
    doi_in_text: bool = False
    accessed: str | None = None
    style: str = "empty"

    @property
    def first_author_tokens(self) -> frozenset[str]:
        """Folded name tokens of the first author (3+ letters), generic organisation words removed."""
        if not self.authors:
            return frozenset()
        return frozenset(t for t in name_tokens(self.authors[0]) if t not in GENERIC_AUTHORS)


@lru_cache(maxsize=1 << 16)
def fold(text: str) -> str:
    """Lower-case, accents stripped, punctuation to spaces, spaces collapsed."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(_WORD.findall(text.casefold()))


def name_tokens(name: str) -> list[str]:
    return [t for t in fold(name).split() if len(t) >= 3]


# "..., 2nd edition." at the end of a title; (?<!\d): a run of digits is tried once, from its start
_EDITION = re.compile(r"(?:(?<!\d)\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)"
                      r"\s+(?:edition|ed\.?)\s*[)\]]?\.?\s*$", re.I)


def _without_edition(title: str) -> str:
    """The title without a closing edition statement, and the white space, bracket or comma before it.

    >>> _without_edition("Numerical recipes (3rd ed.)")
    'Numerical recipes'
    """
    m = _EDITION.search(title)
    if m is None:
        return title
    start = m.start()
    while start and title[start - 1].isspace():
        start -= 1
    if start and title[start - 1] in "([,.":
        start -= 1
    while start and title[start - 1].isspace():
        start -= 1
    return title[:start] + title[m.end():]


def title_key(title: str | None) -> str | None:
    """The normalised title used for matching (folded, without a leading article); None if too short."""
    if not title:
        return None
    key = fold(_without_edition(title))
    key = re.sub(r"^(?:the|a|an)\s", "", key)
    return key if len(key) >= 6 else None


def clean_text(text: str) -> str:
    """Reference text with HTML entities decoded, tags removed and white space collapsed."""
    text = html.unescape(html.unescape(text))
    text = _TAG.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


def _strip_trail(s: str) -> str:
    return s.rstrip(_TRAIL + " ")


def find_doi(text: str) -> str | None:
    m = DOI_IN_TEXT.search(text)
    if not m:
        return None
    doi = _strip_trail(m.group(1))
    if doi.count("(") < doi.count(")"):
        doi = doi.rstrip(")")
    return doi.lower()


def find_arxiv(text: str, doi: str | None = None) -> str | None:
    if doi and doi.startswith("10.48550/arxiv."):
        return doi[len("10.48550/arxiv."):].split("v")[0]
    m = ARXIV_NEW.search(text) or ARXIV_OLD.search(text)
    return m.group(1).lower() if m else None


_GLUED = re.compile(r"(?<=[/.])(?:Accessed|Retrieved|Visited|Last\s*accessed|Available|Online)\b.*$")


def find_urls(text: str) -> tuple[str, ...]:
    out = []
    for m in URL.finditer(text):
        url = _strip_trail(_GLUED.sub("", m.group(0)))  # "https://x.org/docs/Accessed on: ..." (no space)
        if url.lower().startswith("www."):
            url = "https://" + url
        if len(url) > 10:
            out.append(url)
    return tuple(dict.fromkeys(out))


def _clean_title(t: str | None) -> str | None:
    if not t:
        return None
    t = URL.sub("", t)
    t = re.sub(r"^\s*(?:et\s?al\.?|and others\.?)\s+", "", t)  # the end of an author list read as the title's start
    t = re.sub(r"(?<!\s)\s*\[(?:online|electronic resource|computer software)\]\.?", "", t, flags=re.I)
    t = t.strip(" .,;:“”\"'")
    return t if len(t) >= 2 else None


_INVERTED = re.compile(r"([^,&.]+?,\s?(?:[A-Z][a-z]?\.\s?-?)+)(?:,|\s|&|and|$)")  # "Author, A. B."
_INVERTED_NATURE = re.compile(r"([^,&]+?,\s(?:[A-Z][a-z]?\.\s?-?\s?)+)")  # "Author, A. B." (Nature)
_STOPS, _STOPS_NATURE = re.compile(r"[,&.]"), re.compile(r"[,&]")  # what the name part of each cannot hold


def _find_names(pattern: re.Pattern[str], stops: re.Pattern[str], text: str) -> list[str]:
    """``pattern.findall(text)`` for a pattern that opens with ``[^stops]+?,``, in linear time: where an
    attempt fails, every later start before the next stop character fails as well (each runs on to that
    same stop), so the next attempt is made there.

    >>> _find_names(_INVERTED, _STOPS, "Knuth, D. E., Lamport, L. and more")
    ['Knuth, D. E.', ' Lamport, L. ']
    """
    out = []
    pos, end = 0, len(text)
    while pos < end:
        m = pattern.match(text, pos)
        if m:
            out.append(m.group(1))
            pos = m.end()
        elif stops.match(text, pos):
            pos += 1
        elif nxt := stops.search(text, pos + 1):
            pos = nxt.start()
        else:
            break
    return out


def _split_authors(text: str) -> tuple[str, ...]:
    text = re.sub(r"\bet\s?al\.?", "", text)
    inverted = _find_names(_INVERTED, _STOPS, text)
    if inverted and not re.match(r"^\s*[A-Z][a-z]?\.", text) and \
            sum(len(i) for i in inverted) >= 0.6 * len(text.strip()):
        return tuple(re.sub(r"^(?:and|&)\s+", "", i.strip(" ,&")) for i in inverted)
    parts = re.split(r",\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*", text)
    return tuple(p.strip(" .") for p in parts if p.strip(" .") and len(p.strip(" .")) > 1)


def _nature_authors(text: str) -> tuple[str, ...]:
    """'Spillantini, M. G., Cruz, I. & Lee, K.' -> ('Spillantini, M. G.', 'Cruz, I.', 'Lee, K.')."""
    text = re.sub(r"\bet\s?al\.?", "", text)
    found = _find_names(_INVERTED_NATURE, _STOPS_NATURE, text)
    return tuple(f.strip(" ,&") for f in found) or _split_authors(text)


def find_quoted(text: str) -> re.Match[str] | None:
    """``_QUOTED.search(text)`` in linear time: each opening quote is tried only up to the next closing one
    (the match can end nowhere else), and none after an opening quote that no closing quote follows.

    >>> find_quoted('A. Author, “A title,” in Proc. X').group("title")
    'A title'
    """
    close = -1
    for opening in _OPENING.finditer(text):
        at = opening.start()
        if close <= at:
            found = _CLOSING.search(text, at + 1)
            if found is None:
                return None
            close = found.start()
        if m := _QUOTED.match(text, at, close + 1):
            return m
    return None


def _title_and_venue(rest: str) -> tuple[str | None, str | None]:
    """'Title. In Proceedings ..., 265-283.' -> (title, venue)."""
    rest = rest.strip()
    m = _QUOTED.match(rest)
    if m:
        return m.group("title"), rest[m.end():].strip(" ,.") or None
    # a title ends at '. ' or '? ' or '! ' followed by a capital, digit, 'In ', 'arXiv' or a URL,
    # unless the word before the dot is a lone initial ("D. Knuth")
    for m in _TITLE_END.finditer(rest):
        before = rest[rest.rfind(" ", 0, m.start()) + 1: m.start()]
        if m.group(1) == "." and (len(before) == 1 and before.isupper() or before.lower() in _ABBREV):
            continue
        end = m.start() + (1 if m.group(1) in "?!" else 0)
        return rest[:end], rest[m.end():].strip() or None
    return rest, None


_PARTICLES = frozenset("de da di del della der den du la le van von ten ter dos das y bin al".split())


def _names_like(sentence: str) -> bool:
    """True for 'A. Author, B. Author, and C. Author' or 'Author One Author Two and Author Three' or 'NVIDIA'."""
    if not sentence or re.search(r"\d|:", sentence):
        return False
    words = sentence.replace(",", " ").split()
    if not words or any(not (w[0].isupper() or w in _PARTICLES or w in ("and", "&")) for w in words):
        return False
    return " and " in sentence or ", " in sentence or " & " in sentence or len(words) <= 4


def _natbib(body: str) -> tuple[tuple[str, ...], str, str | None, str | None] | None:
    """'Authors. Title. Venue, vol(issue):pages, 2021.' (ACM/natbib without a year after the authors)."""
    ends = []
    for m in _TITLE_END.finditer(body + " X"):
        before = body[body.rfind(" ", 0, m.start()) + 1: m.start()]
        if m.group(1) == "." and (len(before) == 1 and before.isupper() or before.lower() in _ABBREV):
            continue
        ends.append(m)
    if not ends:
        return None
    first = body[: ends[0].start()].strip()
    if not _names_like(first):
        return None
    rest = body[ends[0].end():]
    title, venue = _title_and_venue(rest)
    years = YEAR.findall(rest)
    year = years[-1] if years else None
    if title:
        title = re.sub(r",\s*(?:19|20)[0-9]{2}[a-z]?$", "", title.strip(" ."))
    if not title or fold(title) == fold(first):
        return None
    return _split_authors(first), title, venue, year


def parse_text(text: str) -> ParsedRef:
    """Fields of a free-text reference: the rules' where they are sure, the CRF's elsewhere (kg/refs/combine.py)."""
    from .combine import combine  # combine reads ParsedRef from here

    return combine(text)


def rule_parse(text: str) -> ParsedRef:
    """Fields of a free-text reference by the rules alone; the style that matched is kept in ``style``."""
    raw = _ENUM.sub("", clean_text(text))
    doi = find_doi(raw)
    arxiv = find_arxiv(raw, doi)
    urls = tuple(u for u in find_urls(raw) if "doi.org/" not in u.lower())
    acc = ACCESSED.search(raw)
    accessed = acc.group(1).strip(" .") if acc else None
    body = raw
    if acc:
        body = body[: acc.start()].strip()
    body = URL.sub(" ", body)
    body = re.sub(r"\b(?:doi|DOI)\s*:?\s*10\.\d{4,9}/\S+", " ", body)
    body = re.sub(r"\[Online\]\.?\s*(?:Available\s*:?)?", " ", body, flags=re.I)
    body = re.sub(r"\s+", " ", body).strip(" .,")
    title = authors = year = venue = None
    style = "unknown"

    m_q = find_quoted(body)
    if m_q and m_q.start() > 0 and not _NATURE_TAIL.search(body[: m_q.start()]):
        head = body[: m_q.start()].strip(" ,")
        title = m_q.group("title")
        tail = body[m_q.end():].strip(" ,.")
        years = YEAR.findall(tail) or YEAR.findall(head)
        year = years[-1] if years else None
        pm = _PAREN_YEAR.match(head + " x")
        if pm and not year:
            year = pm.group("year")
        head = re.sub(r"(?<!\s)\s*\((?:19|20)[0-9]{2}[a-z]?\)[.,:]?$", "", head)
        authors = _split_authors(head)
        venue = re.sub(r"^(?:in|In)\s+", "", tail) or None
        style = "ieee" if not pm else "harvard"
    elif (m := _ACM.match(body)) and len(m.group("authors")) < 600 and not re.search(r"\(\s*$", m.group("authors")):
        authors = _split_authors(m.group("authors"))
        year = None if _ND.match(m.group("year")) else m.group("year")[:4]
        title, venue = _title_and_venue(m.group("rest"))
        style = "acm"
    elif m := _ACM_NOAUTH.match(body):
        year = None if _ND.match(m.group("year")) else m.group("year")[:4]
        title, venue = _title_and_venue(m.group("rest"))
        authors = ()
        style = "acm"
    elif (nt := _NATURE_TAIL.search(body)) and (na := _NATURE_AUTHORS.match(body[: nt.start()])):
        authors = _nature_authors(na.group("authors"))
        year = nt.group("year")
        title, venue = _title_and_venue(na.group("rest"))
        style = "nature"
    elif m := _PAREN_YEAR.match(body):
        authors = _split_authors(m.group("authors"))
        year = m.group("year")
        rest = m.group("rest")
        title, venue = _title_and_venue(rest)
        if title and "," in title and venue is None:
            title, _, venue = title.partition(",")
        style = "harvard"
    elif natbib := _natbib(body):
        authors, title, venue, year = natbib
        style = "natbib"
    elif (m := _VANCOUVER.match(body)) and m.group("year"):
        authors = _split_authors(m.group("authors"))
        year = m.group("year")
        title, venue = _title_and_venue(m.group("rest"))
        style = "springer"
    else:
        parts = [p.strip() for p in re.split(r",\s+", body)]
        names = 0
        for p in parts:
            if re.fullmatch(r"(?:[A-Z][a-z]?\.\s?-?)+\s?[\w'’\-]+(?:\s[\w'’\-]+)?|[\w'’\-]+\s(?:[A-Z]\.?){1,3}", p):
                names += 1
            else:
                break
        if 0 < names < len(parts):
            authors = tuple(parts[:names])
            title = parts[names]
            venue = ", ".join(parts[names + 1:]) or None
            years = YEAR.findall(body)
            year = years[-1] if years else None
            style = "elsevier"
        else:
            title, venue = _title_and_venue(body)
            years = YEAR.findall(body)
            year = years[-1] if years else None
            authors = ()
    if title and _VENUE_HINT.match(title) and venue is None:
        venue, title = title, None
    return ParsedRef(
        title=_clean_title(title), authors=tuple(a for a in (authors or ()) if a), year=year,
        venue=_strip_trail(venue) if venue else None, urls=urls, arxiv=arxiv, doi=doi,
        doi_in_text=doi is not None, accessed=accessed, style=style if (title or authors) else "unknown",
    )


def _year_of(value: str | None) -> str | None:
    if not value:
        return None
    m = YEAR.search(value)
    return m.group(1) if m else None


def parse_reference(ref: Reference) -> ParsedRef:
    """The parsed reference (memoised: the same reference recurs across the records of a corpus)."""
    return _parse_memo(ref.doi, ref.unstructured, ref.fields)


@lru_cache(maxsize=1 << 16)
def _parse_memo(doi: str | None, unstructured: str | None, fields: tuple[tuple[str, str], ...]) -> ParsedRef:
    return _parse_reference(Reference(0, None, doi, None, unstructured, fields))


def _parse_reference(ref: Reference) -> ParsedRef:
    """Combine a reference's structured fields and its text: text wins for title and year when its style
    is recognised (publisher-derived fields are often split wrongly), fields fill what the text lacks."""
    f = dict(ref.fields)
    s_title = f.get("article-title") or f.get("volume-title") or f.get("series-title")
    s_venue = f.get("journal-title") or (f.get("volume-title") if f.get("article-title") else None) or (
        f.get("series-title") if f.get("article-title") or f.get("volume-title") else None)
    s_authors = (f["author"],) if f.get("author") else ()
    s_year = _year_of(f.get("year"))
    text = parse_text(ref.unstructured) if ref.unstructured else ParsedRef()
    doi = ref.doi or text.doi
    arxiv = find_arxiv(" ".join(filter(None, (ref.unstructured, s_title, s_venue, f.get("volume-title")))), doi)
    urls = text.urls or find_urls(" ".join(v for v in f.values()))
    title: str | None
    if text.style not in ("unknown", "empty") and text.title:
        title, year, authors, venue = text.title, text.year or s_year, text.authors or s_authors, text.venue or s_venue
        from .combine import deposited_title  # the deposited title where it is sound (docs/model.md 6.1)

        title = deposited_title(f.get("article-title"), s_venue, text, ref.unstructured) or title
    else:
        title = _clean_title(s_title) or text.title
        year, authors, venue = s_year or text.year, s_authors or text.authors, s_venue or text.venue
    if ref.unstructured:
        style = text.style if text.style != "unknown" or not f else "structured"
    elif f:
        style = "structured"
    elif ref.doi:
        style = "doi-only"
    else:
        style = "key-only"
    return ParsedRef(
        title=title, authors=authors, year=year, venue=venue, urls=urls, arxiv=arxiv, doi=doi,
        doi_in_text=ref.doi is None and text.doi is not None, accessed=text.accessed, style=style,
    )

"""Labelled tokens -> the fields of a reference: title, authors in order (family and given names), year, venue.

kg.refs.crf labels each token of a reference text; here the runs of one label become fields (trimmed of the
separators at their ends), the author run is cut into names ("Smith J, Doe AB", "Smith, J. & Doe, A. B.",
"J. Smith, A. B. Doe and C. Lee", "Martín Abadi, Paul Barham", "ZollerSD, HammersmithRL"), and a label the model
did not give leaves its field empty. Pure and linear in the text's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .crf import Token, fold_word, label, lexicon

_TRIM = " \t.,;:"
_YEAR = re.compile(r"(?<!\d)((?:18|19|20)\d{2})(?!\d)")
_INITIALS = re.compile(r"^(?:[A-Z\u00C0-\u00DE](?:[a-z]?\.)?\s?-?\s?)+$")    # "J.", "A. B.", "J.-P.", "Ch.", "AB"
# "Asafu-Adjaye J. " (no comma after); tried from the start of a word only, so a long word is read once
_DOTTED_NAMES = re.compile(r"(?<![\w'’-])[\w'’-]+(?:\s[\w'’-]+)?\s(?:[A-Z]\.\s?-?)+")
_CAPS = re.compile(r"^[A-Z\u00C0-\u00DE]{1,3}$")                            # "J", "AB", "JCR"
_GLUED = re.compile(r"^(\S*[a-z\u00DF-\u00FF'’])([A-Z]{1,3})$")              # "ZollerSD" -> Zoller, SD
_ET_AL = re.compile(r"\bet\.?\s*al\b\.?|\band\s+others\b|\[?…\]?|\.\.\.", re.I)
_SEP = re.compile(r"\s*(?:;|,?\s*&|,?\s+and\s+|,?\s+und\s+|,)\s*")


@dataclass(frozen=True, slots=True)
class Name:
    """One author as written, with the family name (and given names or initials) read from it."""

    text: str
    family: str
    given: str = ""


@dataclass(frozen=True, slots=True)
class RefFields:
    """What the sequence labeller found in a reference text, in the order a reference gives it; None or () where
    it found nothing."""

    authors: tuple[Name, ...] = ()
    year: str | None = None
    title: str | None = None
    venue: str | None = None
    volume: str | None = None
    pages: str | None = None
    publisher: str | None = None
    doi: str | None = None
    url: str | None = None


def trim(s: str) -> str:
    """A field without separators at its ends nor unbalanced brackets or quotes (in time linear in its length:
    each pass drops whole runs, and a pass that drops nothing ends it).

    >>> trim('“Deep learning,” ')
    'Deep learning'
    >>> trim('((“Tensor” programs')
    '“Tensor” programs'
    """
    prev = None
    while prev != s:
        prev = s
        s = s.strip(_TRIM)
        for o, c in _PAIRS:
            if s[:1] == o and c not in s:
                s = s.lstrip(o).lstrip(_TRIM)
            if s[-1:] == c and o not in s:
                s = s.rstrip(c).rstrip(_TRIM)
            if s[:1] == o and s[-1:] == c and s.count(o) == 1:
                s = s[1:-1]
        if s.count('"') % 2 and s[:1] == '"':
            s = s[1:]
        elif s.count('"') % 2 and s[-1:] == '"':
            s = s[:-1]
    return s


_PAIRS: tuple[tuple[str, str], ...] = (("(", ")"), ("[", "]"), ("“", "”"), ("«", "»"), ("‘", "’"))


def runs(text: str, tagged: list[tuple[Token, str]]) -> list[tuple[str, str]]:
    """(label, text) of each run of tokens of one label, a run going on over one or two separator tokens that
    lie between two tokens of its label (a quote or a dash the model gave another label)."""
    out: list[tuple[str, int, int]] = []
    n = len(tagged)
    i = 0
    while i < n:
        tok, lab = tagged[i]
        start, end = tok.start, tok.end
        j = i + 1
        while j < n:
            if tagged[j][1] == lab:
                end = tagged[j][0].end
                j += 1
                continue
            k = j
            while k < n and k < j + 2 and tagged[k][1] != lab and not tagged[k][0].text[0].isalnum():
                k += 1
            if j < k < n and tagged[k][1] == lab and lab != "other":
                j = k
                continue
            break
        out.append((lab, start, end))
        i = j
    return [(lab, text[s:e]) for lab, s, e in out]


def _family_given(part: str) -> Name | None:
    """One name: 'Smith J', 'Smith, J.', 'J. Smith', 'John A. Smith', 'van Etten J', 'ZollerSD'."""
    part = part.strip(" ,;:")
    if not part or not any(c.isalpha() for c in part):
        return None
    words = part.replace(",", " ").split()
    particles = lexicon()["particle"]
    if len(words) == 1:
        g = _GLUED.match(words[0])
        if g and not words[0].isupper():
            return Name(part, g.group(1), g.group(2))
        return Name(part, words[0].strip(".")) if words[0][0].isupper() or "-" in words[0] else None
    if "," in part:  # "Smith, J." / "Smith, John"
        family, _, given = part.partition(",")
        return Name(part, family.strip(), given.strip())
    g = _GLUED.match(words[-1])
    if g and words[0].lower() in lexicon()["particle"]:  # "von BergerL"
        return Name(part, " ".join(words[:-1] + [g.group(1)]), g.group(2))
    # trailing initials: "Smith J", "van Etten JA", "Smith J."
    k = len(words)
    while k > 1 and (_CAPS.match(words[k - 1].strip(".")) or _INITIALS.match(words[k - 1])):
        k -= 1
    if k < len(words) and not _INITIALS.match(words[0]):
        return Name(part, " ".join(words[:k]), " ".join(words[k:]))
    # leading initials or given names: "J. Smith", "A. B. Doe", "John Smith", "Ludwig van Beethoven"
    k = len(words) - 1
    while k > 0 and words[k - 1].lower() in particles:
        k -= 1
    return Name(part, " ".join(words[k:]), " ".join(words[:k]))


def _given_only(part: str) -> bool:
    """'J.', 'A. B.', 'J.-P.', 'John', 'John A.': what follows the comma of an inverted name."""
    part = part.strip()
    if _INITIALS.match(part) or _CAPS.match(part):
        return True
    words = part.split()
    return 0 < len(words) <= 2 and all(w[0].isupper() and (w[1:].islower() or _INITIALS.match(w)) for w in words) \
        and not _CAPS.match(words[-1])


def _run_of_names(part: str) -> list[str]:
    """'Tianqi Chen Thierry Moreau Ziheng Jiang' (names without commas) -> one part per name: a given name,
    its initials and lower-case or particle words, then the family name; other parts unchanged."""
    words = part.split()
    if len(words) < 5 or not all(w[0].isupper() for w in words):
        return [part]
    out: list[str] = []
    name: list[str] = []
    for w in words:
        name.append(w)
        if len(name) >= 2 and not _INITIALS.match(w) and w.lower() not in lexicon()["particle"]:
            out.append(" ".join(name))
            name = []
    if name:
        out.append(" ".join(name))
    return out


def split_names(text: str) -> tuple[Name, ...]:
    """The authors of an author field, in order.

    >>> [n.family for n in split_names("Smith J, van Etten JA, Lee C, et al.")]
    ['Smith', 'van Etten', 'Lee']
    >>> [n.text for n in split_names("Spillantini, M. G., Cruz, I. & Lee, K.")]
    ['Spillantini, M. G.', 'Cruz, I.', 'Lee, K.']
    >>> [n.family for n in split_names("J. Smith, A. B. Doe, and C. Lee")]
    ['Smith', 'Doe', 'Lee']
    >>> [n.family for n in split_names("Li JM, Di Martino A, von BergerL, WuM, WuD, Asafu-Adjaye J. Brand S.")]
    ['Li', 'Di Martino', 'von Berger', 'Wu', 'Wu', 'Asafu-Adjaye', 'Brand']
    >>> [n.text for n in split_names("Tianqi Chen Thierry Moreau Norman P. Jouppi and Arvind Krishnamurthy")]
    ['Tianqi Chen', 'Thierry Moreau', 'Norman P. Jouppi', 'Arvind Krishnamurthy']
    >>> [n.family for n in split_names("Vidal Valero, M., van der Berg, A. B. and Lee, C.")]
    ['Vidal Valero', 'van der Berg', 'Lee']
    """
    text = _ET_AL.sub(" ", text).strip(" ,;")
    parts = []
    for p in _SEP.split(text):
        p = p.strip()
        if not p.strip(" ."):
            continue
        dotted = _DOTTED_NAMES.findall(p)
        if len(dotted) > 1 and sum(map(len, dotted)) >= len(p) - 1:  # "Asafu-Adjaye J. Blomqvist L. Brand S."
            parts += [d.strip() for d in dotted]
        else:
            parts.append(p)
    parts = [q for p in parts for q in _run_of_names(p)]
    names: list[Name] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        words = part.split()
        single = len(words) <= 3 and not _INITIALS.match(part) and not _CAPS.match(words[-1]) and \
            all(w[:1].isupper() or w.lower() in lexicon()["particle"] for w in words)
        nxt = parts[i + 1] if i + 1 < len(parts) else ""
        if single and nxt and _given_only(nxt) and (len(words) == 1 or words[0].lower() in lexicon()["particle"]
                                                   or _INITIALS.match(nxt) and ("." in nxt or len(nxt) == 1)):
            name = _family_given(f"{part}, {parts[i + 1]}")
            i += 2
        else:
            name = _family_given(part)
            i += 1
        if name is not None:
            names.append(name)
    return tuple(names)


def is_name(author: str) -> bool:
    """True for a person's or an organisation's name; False for a venue, a place, a number or a sentence.

    >>> is_name("Smith J"), is_name("World Health Organization"), is_name("In: Proceedings of X"), is_name("USA")
    (True, True, False, False)
    """
    words = [fold_word(w) for w in re.findall(r"[^\W\d_]+", author)]
    if not words or len(words) > 8 or any(c.isdigit() or c in ":/@" for c in author):
        return False
    lex = lexicon()
    if any(w in lex["not_name"] for w in words) or len(words) == 1 and words[0] in lex["location"]:
        return False
    return author.strip()[:1].isupper() or words[0] in lex["particle"]


def family_name(author: str) -> str | None:
    """The family name of one author as written (None when it is not read as a name).

    >>> family_name("Spillantini, M. G."), family_name("A. B. Doe"), family_name("ZollerSD")
    ('Spillantini', 'Doe', 'Zoller')
    """
    got = _family_given(author)
    return got.family if got else None


def _first(rs: list[tuple[str, str]], lab: str) -> str | None:
    for name, text in rs:
        if name == lab:
            t = trim(text)
            if t:
                return t
    return None


def fields(text: str) -> RefFields:
    """The fields of a reference text as the model labels it.

    >>> f = fields("Smith J, Doe A (2019) Sampling profilers revisited. Softw Pract Exp 49:1-20")
    >>> (f.title, [a.family for a in f.authors], f.year)
    ('Sampling profilers revisited', ['Smith', 'Doe'], '2019')
    """
    tagged = label(text)
    rs = runs(text, tagged)
    date = _first(rs, "date")
    years = _YEAR.search(date) if date else None
    author = _first(rs, "author")
    if author and author[-1].isupper() and (len(author) == 1 or not author[-2].isalpha()):
        end = text.find(author) + len(author)
        if text[end:end + 1] == ".":  # the full stop of a last initial ("Lee, K.") belongs to the name
            author += "."
    return RefFields(title=_first(rs, "title"), authors=split_names(author) if author else (),
                  year=years.group(1) if years else None, venue=_first(rs, "container"),
                  volume=_first(rs, "volume"), pages=_first(rs, "pages"), publisher=_first(rs, "publisher"),
                  doi=_first(rs, "doi"), url=_first(rs, "url"))

"""The reference parser's sequence labeller: tokens, features and CRF decoding (python-crfsuite).

A reference text is cut into tokens (a URL, a DOI, a run of letters or digits, or one other character), each
token gets the features of the kinds GROBID, AnyStyle and ParsCit use (shape, case, punctuation, digits and
years, relative position, bracket and quote state, name and venue cue words of ``kg/data/parser-lexicon.json``,
and the same of its neighbours within two tokens), and the model ``kg/data/parser.crfsuite`` (built by
``parser/train.py``) labels every token with one of ``LABELS``. Tokenising, features and Viterbi decoding are
all linear in the length of the text.
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple

LABELS = ("author", "editor", "title", "container", "date", "volume", "issue", "pages", "publisher", "location",
          "doi", "url", "other")
TOKEN = re.compile(r"(?:https?://|www\.)[^\s<>\"]*[^\s<>\".,;:)\]]"  # a URL without its trailing punctuation
                   r"|10\.\d{4,9}/[^\s<>\"]*[^\s<>\".,;:)\]]"        # a DOI
                   r"|[^\W_]+"                                       # letters and digits
                   r"|\S", re.U)                                     # any other character
_GLUED = re.compile(r"([A-Z][a-z'’]*[a-z]{2})([A-Z]{1,3})$")
_QUOTES_OPEN = frozenset("“«‘\"")
_QUOTES_CLOSE = frozenset("”»’\"")
_DASHES = frozenset("-–—‐‑")
MODEL = "parser.crfsuite"


class Token(NamedTuple):
    """One token of a reference text: its characters and where they are (a named tuple: made fast)."""

    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """Tokens of a reference text, in order.

    >>> [t.text for t in tokenize("Smith J (2019) Title. J Biol 4:1–9. https://x.org/a.")]
    ['Smith', 'J', '(', '2019', ')', 'Title', '.', 'J', 'Biol', '4', ':', '1', '–', '9', '.', 'https://x.org/a', '.']
    >>> [t.text for t in tokenize("ZollerSD, LaTeX")]
    ['Zoller', 'SD', ',', 'LaTeX']
    """
    out = []
    glued = _GLUED.match
    for m in TOKEN.finditer(text):
        word = m.group()
        start, end = m.span()
        g = glued(word) if len(word) > 3 and word[-1].isupper() else None
        if g:  # "ZollerSD" (a family name and its initials without the space): two tokens
            k = start + g.end(1)
            out += [Token(g.group(1), start, k), Token(g.group(2), k, end)]
        else:
            out.append(Token(word, start, end))
    return out


@lru_cache(maxsize=1)
def lexicon() -> dict[str, frozenset[str]]:
    """The cue-word lists of ``kg/data/parser-lexicon.json`` (word -> lists it is in)."""
    raw = json.loads(resources.files("kg").joinpath("data", "parser-lexicon.json").read_text(encoding="utf-8"))
    return {name: frozenset(words) for name, words in raw.items() if isinstance(words, list)}


@lru_cache(maxsize=1 << 14)
def fold_word(word: str) -> str:
    if not word.isascii():
        word = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
    return word.casefold()


@lru_cache(maxsize=1 << 14)
def _shape(word: str) -> str:
    """'McDonald' -> 'XxXx', '2019' -> 'dddd', 'pp' -> 'x': character classes, runs of 2+ letters shortened."""
    out: list[str] = []
    for c in word[:12]:
        k = "X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c
        if k in "Xx" and len(out) >= 2 and out[-1] == k and out[-2] == k:
            continue
        out.append(k)
    return "".join(out)


@lru_cache(maxsize=1 << 14)
def _word_features(word: str) -> tuple[str, ...]:
    """Features of a token by itself (memoised: references share most of their words)."""
    low = fold_word(word)
    f = [f"w={low}", f"sh={_shape(word)}"]
    n = len(word)
    f.append("len=" + (str(n) if n < 4 else "4-6" if n < 7 else "7+"))
    if word.isdigit():
        f.append("digits=" + str(min(n, 5)))
        if n == 4 and 1800 <= int(word) <= 2039:
            f.append("year")
    elif word[0].isdigit() and word[-1].isalpha() and n <= 6:
        f.append("numalpha")
        if n == 5 and word[:4].isdigit() and 1800 <= int(word[:4]) <= 2039:
            f.append("year")
    elif word.isalpha():
        f.append("case=" + ("upper" if word.isupper() else "lower" if word.islower() else
                            "title" if word[0].isupper() and word[1:].islower() else "mixed"))
        if n == 1 and word.isupper():
            f.append("initial")
        elif n <= 3 and word.isupper():
            f.append("initials")
    elif word.startswith(("http", "www.")):
        f.append("url")
    elif word.startswith("10.") and "/" in word:
        f.append("doi")
    elif n == 1:
        f.append("punct=" + ("dash" if word in _DASHES else "open" if word in "([{" else
                             "close" if word in ")]}" else "quote" if word in _QUOTES_OPEN | _QUOTES_CLOSE else word))
    for name, words in lexicon().items():
        if low in words:
            f.append("lex=" + name)
    return tuple(f)


_NEIGHBOUR_KEEP = ("w=", "sh=", "punct", "initial", "year", "case=", "lex=", "url", "doi", "digits")


def _context(tokens: list[Token], own: list[tuple[str, ...]]) -> list[list[str]]:
    """Per token, the state of the text before it: inside brackets or quotes, sentence breaks, a year or a colon
    seen."""
    out: list[list[str]] = []
    n = len(tokens)
    paren = square = quote = breaks = 0
    seen_year = seen_colon = False
    for i, t in enumerate(tokens):
        flags = [name for name, on in (("in_paren", paren), ("in_square", square), ("in_quote", quote)) if on]
        flags.append(f"breaks={min(breaks, 3)}")
        flags += [name for name, on in (("after_year", seen_year), ("after_colon", seen_colon)) if on]
        out.append(flags)
        c = t.text
        if c in "([":
            paren, square = paren + (c == "("), square + (c == "[")
        elif c == ")" and paren:
            paren -= 1
        elif c == "]" and square:
            square -= 1
        elif c in _QUOTES_OPEN and not quote:
            quote = 1
        elif c in _QUOTES_CLOSE and quote:
            quote = 0
        elif c in ".?!" and 0 < i < n - 1 and t.end < tokens[i + 1].start and \
                (len(tokens[i - 1].text) >= 3 or tokens[i - 1].text.isdigit()):
            breaks += 1
        elif c == ":" and not paren:
            seen_colon = True
        seen_year = seen_year or "year" in own[i]
    return out


_OFFSETS = (-2, -1, 1, 2)
_NONE = tuple(f"{d}:none" for d in _OFFSETS)
_POS = tuple(f"pos={k}" for k in range(10))
_SPACES = ("sp=00", "sp=01", "sp=10", "sp=11")


@lru_cache(maxsize=1 << 14)
def _neighbour_features(word: str) -> tuple[tuple[str, ...], ...]:
    """A token's features as its neighbours see them: k-th, from where the token is ``_OFFSETS[k]`` tokens away
    (2 before, 1 before, 1 after, 2 after; memoised like ``_word_features``)."""
    short = [x for x in _word_features(word) if x.startswith(_NEIGHBOUR_KEEP)]
    return tuple(tuple(f"{d}:{x}" for x in short) for d in _OFFSETS)


def features(text: str, tokens: list[Token]) -> list[list[str]]:
    """The feature strings of every token: its own, its context (position, brackets, quotes, sentence breaks
    and years before it), and its neighbours' within two tokens."""
    n = len(tokens)
    words = [t.text for t in tokens]
    own: list[tuple[str, ...]] = [_word_features(w) for w in words]
    told = [_neighbour_features(w) for w in words]  # told[j][k]: token j, seen by the token _OFFSETS[k] before it
    context = _context(tokens, own)
    out: list[list[str]] = []
    for i, t in enumerate(tokens):
        f = ["bias", *own[i], _POS[10 * i // n]]
        if i == 0:
            f.append("first")
        if i == n - 1:
            f.append("last")
        space_before = i > 0 and tokens[i - 1].end < t.start
        space_after = i < n - 1 and t.end < tokens[i + 1].start
        f.append(_SPACES[2 * space_before + space_after])
        f += context[i]
        if i + 1 < n and words[i + 1] == "." and len(t.text) == 1 and t.text.isupper():
            f.append("initial_dot")
        for k, d in enumerate(_OFFSETS):
            j = i + d
            if 0 <= j < n:
                f += told[j][k]
            else:
                f.append(_NONE[k])
        if i > 0:
            f.append(f"-1|0:{fold_word(words[i - 1])}|{fold_word(t.text)}" if len(words[i - 1]) == 1 or
                     len(t.text) == 1 else "-1|0:words")
        out.append(f)
    return out


_LOCK = threading.Lock()
_TAGGER: list[Any] = []


def load(path: str | None = None) -> None:
    """Open the model at ``path`` (default: ``kg/data/parser.crfsuite``) for this process's parsing."""
    import pycrfsuite  # type: ignore[import-not-found, import-untyped, unused-ignore]

    tagger = pycrfsuite.Tagger()
    if path is None:
        with resources.as_file(resources.files("kg").joinpath("data", MODEL)) as p:
            tagger.open(str(p))
    else:
        tagger.open(path)
    with _LOCK:
        _TAGGER[:] = [tagger]


def _tagger() -> Any:
    """The CRF tagger, opened once per process."""
    if not _TAGGER:
        load()
    return _TAGGER[0]


def label(text: str) -> list[tuple[Token, str]]:
    """Each token of ``text`` with the label the model gives it (Viterbi: linear in the number of tokens)."""
    tokens = tokenize(text)
    if not tokens:
        return []
    xseq = features(text, tokens)
    tagger = _tagger()
    with _LOCK:  # a crfsuite tagger holds its state between calls: one at a time
        tags = tagger.tag(xseq)
    return list(zip(tokens, tags, strict=True))

"""Convert the labelled reference sets of parser/training/ (and the tuning half of tests/data/devset) to one format.

Output: one JSON line per reference, ``{"id": ..., "text": ..., "spans": [[start, end, label], ...]}``, the
spans (character offsets into ``text``, in order, not overlapping) carrying one of kg.refs.crf.LABELS; text
outside every span is ``other``. parser/train.py cuts the texts into tokens and gives each token its span's label.

Sources (parser/training/SOURCES.md): AnyStyle's ``core.xml`` (one ``<sequence>`` of tagged segments per
reference), GROBID's citation corpus (TEI ``<bibl>`` with tagged fields and untagged separators), and the parse
labels of the devset's ``tune`` records (only those: the ``held-out`` records are never read here), whose fields
are found again in the reference text. Deterministic: files and references in sorted order.

    python parser/convert.py OUT.jsonl [--public-only]   # --public-only: without the devset (to measure on it)
"""

from __future__ import annotations

import csv
import json
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from kg.refs.crf import tokenize  # noqa: E402
from kg.refs.parse import clean_text  # noqa: E402

ANYSTYLE = {"author": "author", "editor": "editor", "translator": "editor", "director": "editor",
            "producer": "editor", "title": "title", "container-title": "container", "journal": "container",
            "collection-title": "container", "date": "date", "volume": "volume", "pages": "pages",
            "publisher": "publisher", "location": "location", "doi": "doi", "url": "url"}
TRIM = " \t\n.,;:"


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """A span without white space and separators at its ends, nor brackets or quotes left unbalanced."""
    while True:
        s0, e0 = start, end
        while start < end and text[start] in TRIM:
            start += 1
        while end > start and text[end - 1] in TRIM:
            end -= 1
        seg = text[start:end]
        for o, c in ("()", "[]", "“”", "«»"):
            if seg[:1] == o and c not in seg:
                start += 1
            if seg[-1:] == c and o not in seg:
                end -= 1
            if seg[:1] == o and seg[-1:] == c and seg.count(o) == 1:
                start, end = start + 1, end - 1
        if seg[:1] == '"' and seg.count('"') % 2:
            start += 1
        elif seg[-1:] == '"' and seg.count('"') % 2:
            end -= 1
        if (start, end) == (s0, e0) or start >= end:
            return start, end


def _assemble(pieces: list[tuple[str, str]]) -> tuple[str, list[list[int | str]]]:
    """(segment text, label) pieces -> one text with white space collapsed, and the labelled spans in it."""
    text = ""
    spans: list[list[int | str]] = []
    for piece, lab in pieces:
        piece = re.sub(r"\s+", " ", piece)
        if text.endswith(" ") and piece.startswith(" "):
            piece = piece[1:]
        if not text and piece.startswith(" "):
            piece = piece[1:]
        start = len(text)
        text += piece
        if lab != "other":
            s, e = _trim(text, start, len(text))
            if s < e:
                spans.append([s, e, lab])
    stripped = text.rstrip()
    return stripped, [sp for sp in spans if int(sp[1]) <= len(stripped)]


def _split_volume_issue(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """AnyStyle's volume segment holds the issue too ('38(4)', 'Vol. 9, No. 2'): split it off."""
    out: list[tuple[str, str]] = []
    for text, lab in pieces:
        m = re.match(r"^(.*?\d+\s*)(\(\s*[\w\-–/ ]+\s*\)|,?\s*(?:no\.?|issue|nr\.?)\s*[\w\-–/]+)(.*)$", text, re.I) \
            if lab == "volume" else None
        if m:
            out += [(m.group(1), "volume"), (m.group(2), "issue"), (m.group(3), "other")]
        else:
            out.append((text, lab))
    return out


def anystyle(path: Path) -> list[dict[str, object]]:
    """References of AnyStyle's training XML (``<dataset><sequence><author>...</author>...``)."""
    out = []
    for n, seq in enumerate(ET.parse(path).getroot().iter("sequence")):
        pieces = [((el.text or ""), ANYSTYLE.get(el.tag, "other")) for el in seq]
        pieces = _split_volume_issue([(t + " ", lab) for t, lab in pieces])
        text, spans = _assemble(pieces)
        if text:
            out.append({"id": f"anystyle:{path.name}#{n + 1}", "text": text, "spans": spans})
    return out


def _grobid_label(el: ET.Element, has_article: bool) -> str:
    tag = el.tag.split("}")[-1]
    kind = el.get("level") or el.get("type") or el.get("unit") or ""
    if tag == "title":
        if kind == "a":
            return "title"
        if kind == "m":
            return "container" if has_article else "title"
        return "container"
    if tag == "biblScope":
        scopes = {"vol": "volume", "volume": "volume", "issue": "issue", "pp": "pages", "page": "pages"}
        return scopes.get(kind, "other")
    if tag == "idno":
        return "doi" if kind.lower() == "doi" else "other"
    if tag == "ptr":
        return "url"
    return {"author": "author", "editor": "editor", "date": "date", "publisher": "publisher",
            "orgName": "publisher", "pubPlace": "location"}.get(tag, "other")


def _grobid_pieces(bibl: ET.Element) -> list[tuple[str, str]]:
    has_article = any(el.tag.split("}")[-1] == "title" and el.get("level") == "a" for el in bibl)
    pieces = [(bibl.text or "", "other")]
    for el in bibl:
        lab = _grobid_label(el, has_article)
        inner = "".join(el.itertext()) if el.tag.split("}")[-1] != "lb" else " "
        pieces.append((inner, lab))
        pieces.append((el.tail or "", "other"))
    return pieces


def grobid(folder: Path) -> list[dict[str, object]]:
    """References of GROBID's citation corpus (``<bibl>`` elements of TEI files)."""
    out = []
    for path in sorted(folder.glob("*.xml")):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            print(f"{path.name}: skipped ({e})", file=sys.stderr)
            continue
        for n, bibl in enumerate(el for el in root.iter() if el.tag.split("}")[-1] == "bibl"):
            text, spans = _assemble(_grobid_pieces(bibl))
            if len(text) >= 10:
                out.append({"id": f"grobid:{path.name}#{n + 1}", "text": text, "spans": spans})
    return out


# ---------------------------------------------------------------- the devset's tuning half


def _fold_alnum(s: str) -> str:
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s.casefold() if c.isalnum() and not unicodedata.combining(c))


class _Aligner:
    """Finds labelled field values in a reference text, on token boundaries, after folding."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.folded = ""
        self.tok_of: list[int] = []
        self.starts: set[int] = set()
        self.ends: set[int] = set()
        for i, t in enumerate(self.tokens):
            f = _fold_alnum(t.text)
            if not f:
                continue
            self.starts.add(len(self.folded))
            self.folded += f
            self.tok_of += [i] * len(f)
            self.ends.add(len(self.folded))

    def find(self, value: str, after: int = 0, loose: bool = False) -> tuple[int, int] | None:
        """(first token, last token) of the first match at or after character ``after`` of the folded text."""
        f = _fold_alnum(value)
        if not f:
            return None
        i = self.folded.find(f, after)
        while i >= 0:
            j = i + len(f)
            if loose or (i in self.starts and j in self.ends):
                return self.tok_of[i], self.tok_of[j - 1]
            i = self.folded.find(f, i + 1)
        return None

    def char(self, tok: int) -> int:
        """Folded-text offset where token ``tok`` starts."""
        return min((k for k, t in enumerate(self.tok_of) if t >= tok), default=len(self.folded))


def devset_record(text: str, lab: dict[str, object], rid: str) -> dict[str, object] | None:
    """The spans of one labelled reference, or None when a labelled field is not found in its text."""
    al = _Aligner(text)
    taken: list[tuple[int, int, str]] = []

    def free(a: int, b: int) -> bool:
        return all(b < s or a > e for s, e, _ in taken)

    authors = lab.get("authors") or []
    assert isinstance(authors, list)
    if authors:
        first = last = None
        pos = 0
        for family, given in authors:
            hit = None
            for part in (family, given):
                if not part:
                    continue
                h = al.find(part, pos, loose=True)
                if h is None:
                    return None
                hit = (min(h[0], hit[0]), max(h[1], hit[1])) if hit else h
            if hit is None:
                return None
            first = hit[0] if first is None else min(first, hit[0])
            last = hit[1] if last is None else max(last, hit[1])
            pos = al.char(hit[1] + 1)
        assert first is not None and last is not None
        toks = al.tokens
        if lab.get("et_al"):
            k = last + 1
            while k < len(toks) and toks[k].text.lower() in {",", ".", "et", "al", "and", "others"}:
                k += 1
            last = k - 1
            while toks[last].text in ",.":
                last -= 1
        taken.append((first, last, "author"))
    order = [("title", "title"), ("venue", "container"), ("volume", "volume"), ("issue", "issue"),
             ("pages", "pages"), ("doi", "doi"), ("url", "url"), ("year", "date")]
    after = 0
    for key, name in order:
        value = lab.get(key)
        if not isinstance(value, str) or not value:
            continue
        hit = al.find(value, after if name not in ("date", "doi", "url") else 0)
        while hit is not None and not free(*hit):
            hit = al.find(value, al.char(hit[0]) + 1)
        if hit is None:
            if name in ("title", "container"):
                return None
            continue
        taken.append((hit[0], hit[1], name))
        if name in ("title", "container", "volume", "issue"):
            after = al.char(hit[1] + 1)
    spans = sorted([al.tokens[a].start, al.tokens[b].end, name] for a, b, name in taken)
    return {"id": rid, "text": text, "spans": spans}


def devset(root: Path) -> tuple[list[dict[str, object]], int]:
    """The tuning half's labelled references (and how many could not be aligned)."""
    out, missed = [], 0
    with open(root / "split.tsv", encoding="utf-8") as f:
        tune = [r for r in csv.DictReader(f, delimiter="\t") if r["half"] == "tune"]
    for row in sorted(tune, key=lambda r: (r["part"], r["stem"])):
        labels = root / row["part"] / "parse" / f"{row['stem']}.jsonl"
        if not labels.exists():
            continue
        record = json.loads((root / row["part"] / "records" / f"{row['stem']}.json").read_text(encoding="utf-8"))
        message = record.get("message", record)
        texts = {r.get("key"): r.get("unstructured") for r in message.get("reference", [])}
        for line in labels.read_text(encoding="utf-8").splitlines():
            lab = json.loads(line)
            raw = texts.get(lab["key"])
            if not raw:
                missed += 1
                continue
            rec = devset_record(clean_text(raw), lab, f"devset:{row['part']}/{row['stem']}#{lab['key']}")
            if rec is None:
                missed += 1
            else:
                out.append(rec)
    return out, missed


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--")]
    out_path = Path(args[0]) if args else HERE / "build" / "training.jsonl"
    records = anystyle(HERE / "training" / "anystyle" / "core.xml")
    n_any = len(records)
    records += grobid(HERE / "training" / "grobid" / "corpus")
    n_grobid = len(records) - n_any
    dev, missed = devset(ROOT / "tests" / "data" / "devset") if "--public-only" not in argv else ([], 0)
    records += dev
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with open(out_path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{out_path}: {n_any} AnyStyle, {n_grobid} GROBID, {len(dev)} devset tune ({missed} not aligned)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

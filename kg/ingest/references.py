"""A record's reference list: each reference's key (unique in the record), DOI and fields as deposited.
"""

from __future__ import annotations

from typing import Any

from ..model import Reference
from .fields import Fields
from .identifiers import normalize_doi
from .text import clean, clip, json_kind, short, squash

REFERENCE_FIELDS = (
    "article-title", "author", "year", "volume", "issue", "first-page", "journal-title", "volume-title",
    "series-title", "edition", "component", "standard-designator", "standards-body", "issn", "isbn",
    "issn-type", "isbn-type",
)


_REF_LOWER = {"issn": "ISSN", "isbn": "ISBN", "issn-type": "ISSN-type", "isbn-type": "ISBN-type"}
_REF_UPPER = {v: k for k, v in _REF_LOWER.items()}
_REF_KEYS = frozenset(REFERENCE_FIELDS) | frozenset(_REF_UPPER)
_REF_RANK = {name: i for i, name in enumerate(REFERENCE_FIELDS)}


def read_references(f: Fields, raw: dict[str, Any]) -> tuple[Reference, ...]:
    out = []
    keys: dict[str, int] = {}  # key -> index of the first reference that has it
    for i, item in enumerate(f.list_(raw, "reference", "reference")):
        path = f"reference[{i}]"
        if not isinstance(item, dict):
            if isinstance(item, str) and item.strip():
                out.append(Reference(i + 1, None, None, None, squash(item)))
            else:
                f.warn(path, f"should be an object, got {json_kind(item)}", "it was kept as an empty reference")
                out.append(Reference(i + 1, None, None, None, None))
            continue
        key = item.get("key")
        key = clean(str(key)) if isinstance(key, (str, int)) and not isinstance(key, bool) else None
        if key and key in keys:
            f.keep(f"{path}.key", key, f'"{clip(key)}" is also the key of reference[{keys[key]}]',
                   "the reference is kept without it, the key kept as written (kg:asWritten); fix it at the source")
            key = None
        elif key:
            keys[key] = i
        doi = None
        if item.get("DOI") is not None:
            raw_doi = item["DOI"]
            doi = normalize_doi(raw_doi) if isinstance(raw_doi, str) else None
            if doi is None:
                f.warn(f"{path}.DOI", f"{short(raw_doi)} is not a DOI", "the reference is kept without it")
        fields: list[tuple[str, str]] = []
        present: set[str] = item.keys() & _REF_KEYS
        for name in sorted({_REF_UPPER.get(k, k) for k in present}, key=_REF_RANK.__getitem__):
            v = item.get(name)
            if v is None and name in _REF_LOWER:
                v = item.get(_REF_LOWER[name])  # (ISSN, ISBN, ISSN-type, ISBN-type in some deposits)
            if v is None:
                continue
            if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                s = squash(str(v))
                if s:
                    fields.append((name, s))
            else:
                f.warn(f"{path}.{name}", f"should be a string, got {json_kind(v)}")
        unstructured = f.str_(item, "unstructured", f"{path}.unstructured")
        out.append(Reference(i + 1, key or None, doi.lower() if doi else None,
                             f.str_(item, "doi-asserted-by", f"{path}.doi-asserted-by"), unstructured,
                             tuple(fields)))
    return tuple(out)

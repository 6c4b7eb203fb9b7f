"""The floor: the fastest plausible Crossref -> RDF mapper, for the build benchmark (bench/bench_build.py).

orjson reads each JSON Lines record; hand-formatted N-Quads lines come out, the same lines crossref-kg
writes for the fields covered here (DOI, titles, type, dates, pages, volume and issue, counts, authors with
order and ORCID, references with key, text and DOI), in the record's named graph. No normalisation, no
reference parsing, no resolution, no validation, no sorting: only what any mapper must do.

    python bench/floor.py RECORDS.jsonl OUT.nq            # or --mapper rdflib (rdflib Graph.add)
"""

from __future__ import annotations

import argparse
import sys
import time
from urllib.parse import quote

import orjson

BASE = "https://w3id.org/crossref-kg/"
XSD = "http://www.w3.org/2001/XMLSchema#"
P = {
    "doi": "<http://prismstandard.org/namespaces/basic/2.0/doi>",
    "title": "<http://purl.org/dc/terms/title>",
    "name": "<https://schema.org/name>",
    "ctype": "<https://w3id.org/crossref-kg/ontology#crossrefType>",
    "prefix": "<https://w3id.org/crossref-kg/ontology#doiPrefix>",
    "refcount": "<https://w3id.org/crossref-kg/ontology#referenceCount>",
    "citedby": "<https://w3id.org/crossref-kg/ontology#citedByCount>",
    "url": "<https://schema.org/url>",
    "issued": "<http://purl.org/dc/terms/issued>",
    "year": "<http://purl.org/spar/fabio/hasPublicationYear>",
    "volume": "<http://prismstandard.org/namespaces/basic/2.0/volume>",
    "issue": "<http://prismstandard.org/namespaces/basic/2.0/issueIdentifier>",
    "pages": "<http://prismstandard.org/namespaces/basic/2.0/pageRange>",
    "created": "<https://w3id.org/crossref-kg/ontology#recordCreated>",
    "deposited": "<https://w3id.org/crossref-kg/ontology#recordDeposited>",
    "indexed": "<https://w3id.org/crossref-kg/ontology#recordIndexed>",
    "author": "<https://schema.org/author>",
    "position": "<https://w3id.org/crossref-kg/ontology#position>",
    "sequence": "<https://w3id.org/crossref-kg/ontology#sequence>",
    "withRole": "<http://purl.org/spar/pro/withRole>",
    "relatesTo": "<http://purl.org/spar/pro/relatesToDocument>",
    "heldBy": "<http://purl.org/spar/pro/isHeldBy>",
    "given": "<https://schema.org/givenName>",
    "family": "<https://schema.org/familyName>",
    "orcid": "<http://purl.org/cerif/frapo/hasORCID>",
    "sameAs": "<https://schema.org/sameAs>",
    "part": "<http://purl.org/vocab/frbr/core#part>",
    "key": "<https://w3id.org/crossref-kg/ontology#referenceKey>",
    "content": "<http://purl.org/spar/c4o/hasContent>",
    "cites": "<http://purl.org/spar/cito/cites>",
    "citation": "<https://schema.org/citation>",
    "references": "<http://purl.org/spar/biro/references>",
}
ROLE_AUTHOR = "<http://purl.org/spar/pro/author>"
_ESC = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})
PRECISION = {1: "gYear", 2: "gYearMonth", 3: "date"}


def lit(value: str, dt: str | None = None) -> str:
    body = '"' + value.translate(_ESC) + '"'
    return f"{body}^^<{XSD}{dt}>" if dt else body


def date(parts: list) -> tuple[str, str] | None:
    if not parts or not parts[0] or parts[0][0] is None:
        return None
    p = [int(x) for x in parts[0]]
    text = "-".join([f"{p[0]:04d}", *(f"{x:02d}" for x in p[1:3])])
    return text, PRECISION[min(len(p), 3)]


def map_record(rec: dict) -> list[str]:
    doi = rec["DOI"].lower()
    w = f"<https://doi.org/{quote(doi, safe='/:;()._-')}>"
    g = f" <{BASE}graph/{doi}> .\n"
    part = f"{BASE}doi/{doi}/"
    out = [f"{w} {P['doi']} {lit(doi)}{g}", f"{w} {P['ctype']} {lit(rec.get('type', ''))}{g}",
           f"{w} {P['prefix']} {lit(rec.get('prefix', doi.split('/')[0]))}{g}", f"{w} {P['url']} {w}{g}"]
    titles = rec.get("title") or []
    if titles:
        out += [f"{w} {P['title']} {lit(titles[0])}{g}", f"{w} {P['name']} {lit(titles[0])}{g}"]
    for field, pred in (("reference-count", "refcount"), ("is-referenced-by-count", "citedby")):
        if isinstance(rec.get(field), int):
            out.append(f"{w} {P[pred]} {lit(str(rec[field]), 'integer')}{g}")
    issued = date((rec.get("issued") or {}).get("date-parts") or [])
    if issued:
        out += [f"{w} {P['issued']} {lit(issued[0], issued[1])}{g}",
                f"{w} {P['year']} {lit(issued[0][:4], 'gYear')}{g}"]
    for field, pred in (("volume", "volume"), ("issue", "issue"), ("page", "pages")):
        if rec.get(field):
            out.append(f"{w} {P[pred]} {lit(rec[field])}{g}")
    for field in ("created", "deposited", "indexed"):
        stamp = (rec.get(field) or {}).get("date-time")
        if stamp:
            out.append(f"{w} {P[field]} {lit(stamp, 'dateTime')}{g}")
    for i, a in enumerate(rec.get("author") or [], start=1):
        role = f"<{part}author/{i}>"
        orcid = (a.get("ORCID") or "").rsplit("/", 1)[-1]
        agent = f"<{BASE}person/orcid/{orcid}>" if orcid else f"<{part}author/{i}/agent>"
        out += [f"{role} {P['withRole']} {ROLE_AUTHOR}{g}", f"{role} {P['position']} {lit(str(i), 'integer')}{g}",
                f"{role} {P['relatesTo']} {w}{g}", f"{role} {P['heldBy']} {agent}{g}", f"{w} {P['author']} {agent}{g}"]
        if a.get("sequence"):
            out.append(f"{role} {P['sequence']} {lit(a['sequence'])}{g}")
        if a.get("given"):
            out.append(f"{agent} {P['given']} {lit(a['given'])}{g}")
        if a.get("family"):
            out.append(f"{agent} {P['family']} {lit(a['family'])}{g}")
        if orcid:
            out += [f"{agent} {P['orcid']} {lit(orcid)}{g}", f"{agent} {P['sameAs']} <https://orcid.org/{orcid}>{g}"]
    for i, r in enumerate(rec.get("reference") or [], start=1):
        ref = f"<{part}reference/{i}>"
        out.append(f"{w} {P['part']} {ref}{g}")
        if r.get("key"):
            out.append(f"{ref} {P['key']} {lit(r['key'])}{g}")
        if r.get("unstructured"):
            out.append(f"{ref} {P['content']} {lit(r['unstructured'])}{g}")
        if r.get("DOI"):
            cited = f"<https://doi.org/{quote(r['DOI'].lower(), safe='/:;()._-')}>"
            out += [f"{w} {P['cites']} {cited}{g}", f"{w} {P['citation']} {cited}{g}",
                    f"{ref} {P['references']} {cited}{g}"]
    return out


def floor(src: str, dst: str) -> tuple[int, int]:
    records = lines = 0
    with open(src, "rb") as fh, open(dst, "w", encoding="utf-8") as out:
        for raw in fh:
            if raw.strip():
                got = map_record(orjson.loads(raw))
                out.writelines(got)
                records += 1
                lines += len(got)
    return records, lines


def rdflib_mapper(src: str) -> tuple[int, int]:
    """The same lines, added one triple at a time to an rdflib Dataset (terms parsed from the tokens)."""
    from rdflib import Dataset, Literal, URIRef

    def term(tok: str) -> object:
        if tok.startswith("<"):
            return URIRef(tok[1:-1])
        body, _, dt = tok.rpartition('"^^<') if '"^^<' in tok else (tok[:-1], "", "")
        text = body[1:].replace('\\"', '"').replace("\\n", "\n").replace("\\r", "\r").replace("\\\\", "\\")
        return Literal(text, datatype=URIRef(dt[:-1]) if dt else None)

    ds = Dataset()
    records = 0
    with open(src, "rb") as fh:
        for raw in fh:
            if raw.strip():
                records += 1
                for line in map_record(orjson.loads(raw)):
                    body, graph = line[:-3].rsplit(" ", 1)
                    s, p, o = body.split(" ", 2)
                    ds.graph(URIRef(graph[1:-1])).add((term(s), term(p), term(o)))
    return records, len(ds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst", nargs="?", default="/dev/null")
    ap.add_argument("--mapper", choices=["floor", "rdflib"], default="floor")
    a = ap.parse_args()
    t = time.perf_counter()
    records, lines = floor(a.src, a.dst) if a.mapper == "floor" else rdflib_mapper(a.src)
    print(orjson.dumps({"records": records, "triples": lines, "seconds": time.perf_counter() - t}).decode())
    sys.stdout.flush()


if __name__ == "__main__":
    main()

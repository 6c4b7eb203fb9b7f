"""Who cites a work: the OpenCitations Index API (``{base}/citations/doi:{DOI}``), walked up to ``depth`` hops.

Crossref publishes what a work cites, not who cites it; OpenCitations' Index (CC0) inverts the open references
of Crossref, DataCite, PubMed and others. Its answer is a JSON list of citations, each with ``citing`` and
``cited`` as space-separated identifiers (``omid:br/06101801781 doi:10.7717/peerj-cs.421 pmid:33817056``), the
``oci``, ``creation`` and ``timespan``. A citing work without a DOI is counted, not fetched. Requests go through
a ``kg.fetch.Client`` on the Index's host (its politeness and bounds), with the user's access token, where there
is one, in the ``authorization`` header. Where each citing DOI came from is kept in ``.citing.tsv`` in the records
folder (citing DOI, cited DOI, OCI), merged with what earlier runs found.

Example: ``walk(["10.1145/3341301.3359646"], Client("https://api.opencitations.net/index/v2"), depth=1)``
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import orjson

from ..fetch import Client, parse_doi
from ..infra.outputs import atomic_writer

DEFAULT_CITATIONS_URL = "https://api.opencitations.net/index/v2"
TOKEN_VARIABLE = "OPENCITATIONS_ACCESS_TOKEN"
CITING_FILE = ".citing.tsv"


def citations_url(base: str, doi: str) -> str:
    """``{base}/citations/doi:{DOI}``, the DOI's reserved characters percent-encoded (its slashes kept).

    Example:

    >>> citations_url("https://api.opencitations.net/index/v2/", "10.1108/jd-12-2013-0166")
    'https://api.opencitations.net/index/v2/citations/doi:10.1108/jd-12-2013-0166'
    """
    return f"{base.rstrip('/')}/citations/doi:{quote(doi, safe='/')}"


def citing_doi(ids: str) -> str | None:
    """The DOI among an OpenCitations ``citing`` value's identifiers, or None when it has none.

    Example:

    >>> citing_doi("omid:br/06101801781 doi:10.7717/peerj-cs.421 pmid:33817056")
    '10.7717/peerj-cs.421'
    """
    for token in ids.split():
        if token.lower().startswith("doi:"):
            return parse_doi(token[4:])
    return None


def answer_problem(body: bytes) -> str | None:
    """Why ``body`` is not an OpenCitations list of citations, or None."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError as e:
        return f"the answer is not valid JSON ({str(e).split(':')[0]})"
    if not isinstance(doc, list) or not all(isinstance(c, dict) and isinstance(c.get("citing"), str) for c in doc):
        return "the answer is not an OpenCitations list of citations (objects with citing)"
    return None


@dataclass
class CitingWalk:
    """What the walk found: citing DOIs in first-seen order with where each came from, and what it could not use."""

    dois: list[str] = field(default_factory=list)
    sources: dict[tuple[str, str], str] = field(default_factory=dict)  # (citing, cited) -> OCI
    asked: int = 0
    without_doi: int = 0
    failed: list[str] = field(default_factory=list)
    over_max: int = 0
    seconds: float = 0.0


def walk(seeds: list[str], client: Client, *, depth: int = 1, max_dois: int = 10_000,
         token: str | None = None) -> CitingWalk:
    """The DOIs of the works citing ``seeds`` (hop 1), of those citing them (hop 2), ... up to ``depth`` hops and
    ``max_dois`` DOIs in all; the seeds themselves are never among them."""
    started = time.perf_counter()
    found = CitingWalk()
    seen = set(seeds)
    headers = {"authorization": token} if token else {}
    level = list(dict.fromkeys(seeds))
    for _hop in range(depth):
        following: list[str] = []
        for cited in level:
            found.asked += 1
            answer = client.ask(citations_url(client.api_url, cited), check=answer_problem, headers=headers,
                                what="check --citations-url")
            if not answer.ok:
                if answer.status != 404:  # 404: OpenCitations does not know the DOI, so nothing cites it there
                    found.failed.append(f"{cited}: {answer.problem}")
                continue
            for row in orjson.loads(answer.body):
                doi = citing_doi(row["citing"])
                if doi is None:
                    found.without_doi += 1
                    continue
                found.sources.setdefault((doi, cited), str(row.get("oci", "")))
                if doi in seen:
                    continue
                seen.add(doi)
                if len(found.dois) >= max_dois:
                    found.over_max += 1
                    continue
                found.dois.append(doi)
                following.append(doi)
        level = following
    found.seconds = time.perf_counter() - started
    return found


def save_sources(out_dir: Path, found: CitingWalk) -> Path:
    """Merge the walk's (citing, cited, OCI) rows into ``out_dir/.citing.tsv``, sorted, written atomically."""
    path = out_dir / CITING_FILE
    rows: dict[tuple[str, str], str] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                citing, _, rest = line.partition("\t")
                cited, _, oci = rest.partition("\t")
                rows[(citing, cited)] = oci
    rows.update(found.sources)
    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path) as fh:
        fh.write("# citing DOI, cited DOI, OCI: who cites what, from the OpenCitations Index, written by kg fetch "
                 "--citing\n")
        fh.writelines(f"{citing}\t{cited}\t{oci}\n" for (citing, cited), oci in sorted(rows.items()))
    return path

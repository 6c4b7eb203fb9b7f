"""``kg fetch`` by search, from a library export and by who cites: against fake APIs on 127.0.0.1 only.

The fake Crossref answers ``/works?...`` searches from real records (the seeds and the golden inputs, under new
DOIs ``10.5555/search.N``), deep paging with a cursor token that stays the same from page to page, with
``total-results``, rate-limit headers, a 429 when asked, and a cursor that expires after some pages when asked;
it answers ``/works/{doi}`` from a dict. The fake OpenCitations answers ``/oc/citations/doi:{DOI}`` in the Index
API's format (a list of objects whose ``citing`` is space-separated identifiers).
"""

from __future__ import annotations

import json
import re
import threading
import tracemalloc
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import orjson
import pytest
from click.testing import CliRunner, Result

from kg.cli.fetch import fetch as fetch_cmd
from kg.fetch import Client, RateLimiter, file_name, parse_doi
from kg.sources import library, search
from kg.sources.citations import citing_doi

TESTS = Path(__file__).resolve().parent
LIBRARIES = TESTS / "data" / "libraries"
SEED_MESSAGES = [json.loads(p.read_bytes())["message"] for p in sorted((TESTS.parent / "seeds").glob("*.txt"))]
SMALL_MESSAGES = [json.loads(p.read_bytes())["message"] for p in sorted((TESTS / "golden").glob("*/input.json"))
                  if isinstance(json.loads(p.read_bytes()).get("message"), dict)
                  and "DOI" in json.loads(p.read_bytes())["message"]]
FAST = {"X-Rate-Limit-Limit": "1000", "X-Rate-Limit-Interval": "1s"}
SEARCH_LINE = re.compile(r"matched ([\d,]+); saved ([\d,]+), cached ([\d,]+), failed ([\d,]+) works in .*")


class FakeApis:
    """A fake Crossref (search and /works/{doi}) and a fake OpenCitations Index (under /oc) on one local port."""

    def __init__(self, total: int = 0, templates: list[dict] | None = None) -> None:
        self.total, self.templates = total, templates or SEED_MESSAGES
        self.works: dict[str, bytes] = {}
        self.citations: dict[str, list[dict]] = {}
        self.scrolls: dict[str, int] = {}  # cursor token -> position
        self.scrolled = 0
        self.pages_per_token: Counter[str] = Counter()
        self.expire_after: int | None = None  # pages a cursor serves before it expires (once)
        self.throttle: set[int] = set()  # the numbers of the search requests answered 429 (Retry-After: 0)
        self.requests: list[tuple[str, dict[str, list[str]], dict[str, str]]] = []
        self.search_requests = 0
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def item(self, i: int) -> dict:
        message = dict(self.templates[i % len(self.templates)])
        message["DOI"] = f"10.5555/search.{i}"
        return message

    def _search(self, q: dict[str, list[str]]) -> tuple[int, bytes, dict[str, str]]:
        with self.lock:
            self.search_requests += 1
            n = self.search_requests
        if n in self.throttle:
            return 429, b'{"status":"error"}', {"Retry-After": "0"}
        rows = int(q.get("rows", ["20"])[0])
        if "query.bibliographic" in q:
            return self._match(q["query.bibliographic"][0])
        cursor = q.get("cursor", [None])[0]
        if cursor is None:
            return 200, orjson.dumps({"status": "ok", "message-type": "work-list", "message": {
                "total-results": self.total, "items": [self.item(i) for i in range(min(rows, self.total))]}}), {}
        with self.lock:
            if cursor == "*":
                cursor = f"DnF1ZXJ5VGhlbkZldGNo{self.scrolled}"
                self.scrolled += 1
                self.scrolls[cursor] = 0
            elif cursor not in self.scrolls or (self.expire_after is not None
                                                and self.pages_per_token[cursor] >= self.expire_after):
                self.scrolls.pop(cursor, None)
                self.expire_after = None
                return 400, b'{"status":"failed","message-type":"validation-failure"}', {}
            start = self.scrolls[cursor]
            end = min(start + rows, self.total)
            self.scrolls[cursor] = end
            self.pages_per_token[cursor] += 1
        items = [self.item(i) for i in range(start, end)]
        body = orjson.dumps({"status": "ok", "message-type": "work-list", "message-version": "1.0.0", "message": {
            "facets": {}, "next-cursor": cursor, "total-results": self.total, "items": items,
            "items-per-page": rows, "query": {"start-index": 0, "search-terms": q.get("query", [None])[0]}}})
        return 200, body, {}

    def _match(self, text: str) -> tuple[int, bytes, dict[str, str]]:
        items = []
        for body in self.works.values():
            message = json.loads(body)["message"]
            title = message["title"][0]
            if title.split()[0].lower() in text.lower():
                items.append({**message, "score": 95.5 if title.lower() in text.lower() else 30.0})
        return 200, orjson.dumps({"status": "ok", "message-type": "work-list",
                                  "message": {"total-results": len(items), "items": items[:1]}}), {}

    def _answer(self, path: str, q: dict[str, list[str]]) -> tuple[int, bytes, dict[str, str]]:
        if path == "/works":
            return self._search(q)
        if path.startswith("/works/"):
            doi = unquote(path.removeprefix("/works/")).lower()
            if doi in self.works:
                return 200, self.works[doi], {}
            return 404, b'{"status":"error","message":"Resource not found."}', {}
        if path.startswith("/oc/citations/doi:"):
            doi = unquote(path.removeprefix("/oc/citations/doi:")).lower()
            if doi not in self.citations:
                return 404, b"HTTP status code 404: not found", {}
            return 200, orjson.dumps(self.citations[doi]), {}
        return 404, b"", {}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        apis = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                parts = urlsplit(self.path)
                q = parse_qs(parts.query)
                with apis.lock:
                    apis.requests.append((parts.path, q, dict(self.headers)))
                status, body, headers = apis._answer(parts.path, q)
                self.send_response(status)
                for k, v in {**FAST, "Content-Type": "application/json", **headers}.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        return Handler

    def searches(self) -> list[dict[str, list[str]]]:
        return [q for path, q, _h in self.requests if path == "/works"]


@pytest.fixture
def apis() -> Iterator[FakeApis]:
    server = FakeApis()
    thread = threading.Thread(target=server.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of record files: their fsync (kg.infra.outputs) is not what these tests are about."""
    import os
    monkeypatch.setattr(os, "fsync", lambda fd: None)


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CROSSREF_MAILTO", raising=False)
    monkeypatch.delenv("OPENCITATIONS_ACCESS_TOKEN", raising=False)
    monkeypatch.setenv("KG_HOME", str(tmp_path / "ws"))
    return tmp_path


def run(apis: FakeApis, *args: str, env: dict[str, str] | None = None) -> Result:
    base = ["--api-url", apis.url, "--citations-url", f"{apis.url}/oc", "--backoff", "0",
            "--mailto", "me@example.org"]
    result = CliRunner().invoke(fetch_cmd, [*base, *args], env=env, prog_name="kg fetch")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.stderr
    return result


def search_counts(result: Result) -> tuple[int, int, int, int]:
    m = next(m for line in result.stderr.splitlines() if (m := SEARCH_LINE.fullmatch(line)))
    return tuple(int(g.replace(",", "")) for g in m.groups())  # type: ignore[return-value]


def records(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def client(apis: FakeApis) -> Client:
    c = Client(apis.url, "me@example.org", backoff=0)
    c.limiter = RateLimiter(limit=100_000)
    return c


# ---------------------------------------------------------------- search


def test_a_search_pages_through_every_result_with_a_cursor_that_stays_the_same(apis: FakeApis, cwd: Path) -> None:
    apis.total = 250
    apis.throttle = {2}  # the second page is answered 429 (Retry-After: 0) once
    result = run(apis, "--rows", "100", "--query", "deep learning compiler", "--query-container-title", "ASPLOS",
                 "--filter", "from-pub-date:2021", "--filter", "type:proceedings-article",
                 "--sort", "published", "--order", "desc")
    assert result.exit_code == 0, result.stderr
    assert search_counts(result) == (250, 250, 0, 0)
    asked = apis.searches()
    assert [q["cursor"][0] for q in asked] == ["*", "DnF1ZXJ5VGhlbkZldGNo0", "DnF1ZXJ5VGhlbkZldGNo0",
                                                "DnF1ZXJ5VGhlbkZldGNo0"]  # the 429'd page asked twice
    first = asked[0]
    assert first["query"] == ["deep learning compiler"] and first["query.container-title"] == ["ASPLOS"]
    assert first["filter"] == ["from-pub-date:2021,type:proceedings-article"]
    assert (first["sort"], first["order"], first["rows"], first["mailto"]) == (
        ["published"], ["desc"], ["100"], ["me@example.org"])
    out = cwd / "fetched"
    assert len(records(out)) == 250 and records(out) == sorted(records(out))
    saved = json.loads((out / file_name("10.5555/search.7")).read_bytes())
    assert saved["message-type"] == "work" and saved["message"] == apis.item(7)  # the item, unchanged
    assert "rate limit: 1000 requests per 1 s (from the server's X-Rate-Limit headers)" in result.stderr
    assert "1 retry" in result.stderr


def test_a_search_saves_records_the_build_reads_as_fetch_does(apis: FakeApis, cwd: Path) -> None:
    apis.total = 3
    assert run(apis, "--query", "x").exit_code == 0
    from kg.ingest.read import iter_records
    dois = sorted(rec["DOI"] for _src, rec in iter_records(["fetched"]))  # type: ignore[misc]
    assert dois == ["10.5555/search.0", "10.5555/search.1", "10.5555/search.2"]


def test_an_interrupted_search_run_again_does_not_fetch_what_it_saved(apis: FakeApis, cwd: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    apis.total = 230
    out = cwd / "fetched"

    def ctrl_c(report: search.SearchReport) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        search.run_search(search.Search({"query": "x"}), out, client(apis), rows=100, on_page=ctrl_c)
    assert len(records(out)) == 100
    written: list[Path] = []
    real = search.write_record
    monkeypatch.setattr(search, "write_record", lambda path, body: (written.append(path), real(path, body)))
    again = run(apis, "--query", "x", "--rows", "100")
    assert again.exit_code == 0 and search_counts(again) == (230, 130, 100, 0)
    assert len(written) == 130 and len(records(out)) == 230
    assert apis.searches()[-3]["cursor"] == ["*"]  # a new scroll: no cursor kept from the first run
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []  # no state file: the records are it


def test_an_expired_cursor_starts_a_new_scroll_that_skips_what_was_seen(apis: FakeApis, cwd: Path) -> None:
    apis.total = 250
    apis.expire_after = 1
    result = run(apis, "--query", "x", "--rows", "100")
    assert result.exit_code == 0, result.stderr
    assert search_counts(result) == (250, 250, 0, 0) and len(records(cwd / "fetched")) == 250
    assert [q["cursor"][0][-1] for q in apis.searches()] == ["*", "0", "*", "1", "1"]
    assert "note: the cursor expired 1 time; a new scroll skipped the works already saved" in result.stderr


def test_max_bounds_a_search_and_rows_follow_it(apis: FakeApis, cwd: Path) -> None:
    apis.total = 250
    result = run(apis, "--query", "x", "--max", "120", "--rows", "100")
    assert search_counts(result) == (250, 120, 0, 0)
    assert [q["rows"][0] for q in apis.searches()] == ["100", "20"]
    assert "note: --max 120 reached; 130 more works matched; raise --max to fetch them" in result.stderr


def test_count_asks_for_no_rows_and_prints_total_results(apis: FakeApis, cwd: Path) -> None:
    apis.total = 123_456
    result = run(apis, "--query-title", "compiler", "--count")
    assert result.exit_code == 0 and result.stdout == "123456\n"
    assert apis.searches() == [{"query.title": ["compiler"], "rows": ["0"], "mailto": ["me@example.org"]}]
    assert not (cwd / "fetched").exists()


def test_an_unknown_filter_is_exit_2_before_any_request(apis: FakeApis, cwd: Path) -> None:
    result = run(apis, "--query", "x", "--filter", "from-pub-dat:2021")
    assert result.exit_code == 2 and apis.requests == []
    line = result.stderr.strip()
    assert line.startswith('error: --filter "from-pub-dat:2021": Crossref has no filter "from-pub-dat" (did you '
                           "mean from-pub-date?); the filters it knows: alternative-id, archive, ")
    assert "has-references" in line and "until-pub-date" in line
    assert run(apis, "--filter", "type").stderr == (
        'error: --filter "type": give it as NAME:VALUE, e.g. from-pub-date:2021\n')
    assert run(apis, "--query", "x", "10.1145/1").exit_code == 2 and apis.requests == []


def test_the_filter_names_come_with_their_sources() -> None:
    doc = search.vocabulary()
    assert {"from-pub-date", "until-pub-date", "type", "issn", "prefix", "member", "has-references"} <= set(
        doc["filters"])
    assert doc["filters"] == sorted(set(doc["filters"])) and all("what" in s for s in doc["sources"])


def _peak(total: int, out: Path) -> int:
    apis = FakeApis(total, SMALL_MESSAGES)
    thread = threading.Thread(target=apis.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        tracemalloc.start()
        report = search.run_search(search.Search({"query": "x"}), out, client(apis), max_works=total)
        _size, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        apis.server.shutdown()
        apis.server.server_close()
    assert report.saved == total and report.pages == total // 1000
    return peak


def test_a_5000_result_search_holds_memory_bounded_by_a_page(tmp_path: Path) -> None:
    """The peak of a 5,000-work search (five pages) is that of a 1,000-work one (one page), not five times it."""
    small, large = _peak(1_000, tmp_path / "a"), _peak(5_000, tmp_path / "b")
    assert large < 1.5 * small, (small, large)


# ---------------------------------------------------------------- libraries


def dois_in_file(path: Path) -> set[str]:
    """The DOIs of an export, read with regular expressions (not the parsers): DOI fields, else doi.org URLs."""
    text = path.read_text(encoding="utf-8")
    found: set[str] = set()
    if path.suffix == ".bib":
        for entry in re.split(r"\n@", text):
            m = re.search(r"\bdoi\s*=\s*\{([^}]*)\}", entry, re.I)
            url = re.search(r"\b(?:url|note)\s*=\s*\{https?://(?:dx\.)?doi\.org/([^}\s]+)\}", entry, re.I)
            if m or url:
                found.add((m or url).group(1).replace("\\_", "_").lower())  # type: ignore[union-attr]
    elif path.suffix == ".ris":
        for entry in text.split("\nER  -"):
            m = re.search(r"^DO  - (.+?)\s*$", entry, re.M)
            url = re.search(r"^UR  - https?://(?:dx\.)?doi\.org/(.+?)\s*$", entry, re.M)
            if m or url:
                found.add((m or url).group(1).lower())  # type: ignore[union-attr]
    else:
        for item in json.loads(text):
            url = re.match(r"https?://(?:dx\.)?doi\.org/(.+)", item.get("URL", ""))
            if item.get("DOI") or url:
                found.add((item.get("DOI") or url.group(1)).lower())  # type: ignore[union-attr]
    return found


def entries_in_file(path: Path) -> int:
    """How many entries an export holds, counted by their first lines (``@type{``, ``TY  -``) or JSON items."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".bib":
        return len(re.findall(r"^@(?!comment|string|preamble)\w+\s*\{", text, re.M | re.I))
    if path.suffix == ".ris":
        return len(re.findall(r"^TY  - ", text, re.M))
    return len(json.loads(text))


@pytest.mark.parametrize("name", sorted(p.name for p in LIBRARIES.iterdir() if p.name != "SOURCES.md"))
def test_the_dois_read_from_a_real_export_are_the_dois_in_the_file(name: str) -> None:
    path = LIBRARIES / name
    lib = library.read_library(path)
    assert set(lib.dois) == dois_in_file(path) and len(lib.dois) == len(set(lib.dois))
    assert lib.entries and all(parse_doi(d) == d for d in lib.dois)
    assert len(lib.entries) == entries_in_file(path)  # none dropped: an entry without a DOI is still listed


def test_the_exports_hold_entries_without_a_doi_urls_and_non_ascii() -> None:
    eucap = library.read_library(LIBRARIES / "zotero-eucap2019.ris")
    assert [e.key for e in eucap.without_doi][:2] == ["entry 1", "entry 4"]
    assert "Gómez-Díaz" in {a for e in eucap.entries for a in e.authors}
    csl = library.read_library(LIBRARIES / "zotero-bbt-pandoc-citation.csl.json")
    assert csl.format == "csl-json" and [e.key for e in csl.without_doi] == ["Adams2001", "Dunning2016",
                                                                           "Wordsworth1883"]
    assert csl.entries[1].doi == "10.1484/j.se.2.303788" and "Bücher" in csl.entries[1].title
    bib = library.read_library(LIBRARIES / "zotero-bbt-doi-escaped.bib")
    assert bib.dois == ["10.1007/978-3-030-49186-4_9"]  # \_ decoded; the DOI in the note is not the entry's
    # Mendeley writes @misc{, for each item without a citation key: all are read (bibtexparser sets all but the
    # first apart as duplicate keys), decoded, and named by position as RIS entries without an ID are
    projeto = library.read_library(LIBRARIES / "mendeley-projeto.bib")
    unnamed = {e.key: e.title for e in projeto.without_doi if e.key.startswith("entry ")}
    assert list(unnamed) == ["entry 4", "entry 5", "entry 8", "entry 9", "entry 14"]
    assert unnamed["entry 8"] == "3D printing – Additive manufacturing: An introduction."  # -- decoded
    ris = library.read_library(LIBRARIES / "mendeley-projeto.ris")  # the same library as Mendeley's RIS
    assert len(ris.without_doi) == len(projeto.without_doi) == 15 and ris.dois == projeto.dois
    assert (ris.entries[20].title, ris.entries[20].authors) == ("Controlo e automação: sistema de rega inteligente",
                                                                ("Soares", "Mariano"))
    ocean = {e.key: e for e in library.read_library(LIBRARIES / "mendeley-diagnosing.bib").entries}
    assert ocean["Boning"].doi is None and ocean["Boning"].authors == ("Böning", "Döscher", "Budich")  # B{\"{o}}ning
    assert ocean["Holland1975"].doi == "10.1175/1520-0485(1975)005<0642:otgome>2.0.co;2"  # a SICI with <>;
    url_only = library._csl_json('[{"id": "a", "type": "book", "URL": "https://doi.org/10.1000/XYZ."}]', "x")
    assert url_only[0].doi == "10.1000/xyz"


def test_a_library_gives_its_dois_and_notes_what_it_cannot_fetch(apis: FakeApis, cwd: Path) -> None:
    lib = library.read_library(LIBRARIES / "zotero-bbt-pandoc-citation.csl.json")
    for doi in lib.dois:
        apis.works[doi] = orjson.dumps({"status": "ok", "message-type": "work",
                                        "message": {**SEED_MESSAGES[0], "DOI": doi}})
    (cwd / "mine.json").write_text(json.dumps([
        {"id": "vaswani", "type": "article", "DOI": "10.48550/arXiv.1706.03762", "title": "Attention"},
        {"id": "gone", "type": "article", "DOI": "10.5555/not-registered"}]))
    result = run(apis, "--from-file", str(LIBRARIES / "zotero-bbt-pandoc-citation.csl.json"),
                 "--from-file", "mine.json")
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert ("note: mine.json: 1 DOI not in Crossref, not asked: vaswani 10.48550/arxiv.1706.03762 "
            "(DataCite (arXiv))") in lines
    assert any(ln.endswith("3 entries without a DOI; --match-titles looks them up by title: Adams2001, "
                           "Dunning2016, Wordsworth1883") for ln in lines)
    assert "missing: 10.5555/not-registered: not in Crossref" in lines  # a 404: reported, not a failure
    assert "10.48550/arxiv.1706.03762" not in {unquote(p).lower() for p, _q, _h in apis.requests}


def test_other_json_is_not_taken_for_a_library(apis: FakeApis, cwd: Path) -> None:
    (cwd / "record.json").write_text(json.dumps({"status": "ok", "message": SEED_MESSAGES[0]}))
    result = run(apis, "--from-file", "record.json")
    assert result.exit_code == 2 and result.stderr == (
        "error: record.json: is JSON but not CSL-JSON (a list of items with id and type); export the library as "
        "CSL JSON, or give one DOI a line\n")


def test_match_titles_accepts_only_a_good_match_and_reports_each(apis: FakeApis, cwd: Path) -> None:
    title = "The physical volcanology of the 1600 eruption of Huaynaputina, southern Peru"
    apis.works["10.1007/s004450000109"] = orjson.dumps({"status": "ok", "message-type": "work", "message": {
        "DOI": "10.1007/s004450000109", "title": [title], "type": "journal-article"}})
    apis.works["10.9999/samuel"] = orjson.dumps({"status": "ok", "message-type": "work", "message": {
        "DOI": "10.9999/samuel", "title": ["Samuel Beckett: a biography"], "type": "book"}})
    lib = LIBRARIES / "zotero-bbt-pandoc-citation.csl.json"
    result = run(apis, "--from-file", str(lib), "--match-titles")
    lines = result.stderr.splitlines()
    assert f'matched: Adams2001 -> 10.1007/s004450000109 (score 95.5): "{title}"' in lines
    assert not any("10.9999/samuel" in ln and ln.startswith("matched") for ln in lines)
    assert any(ln.endswith("entries without a DOI: Dunning2016, Wordsworth1883") for ln in lines)
    asked = [q["query.bibliographic"][0] for q in apis.searches()]
    assert asked[0] == f"{title} Adams DeSilva Self Salas Schubring Permenter Arbesman 2014"


# ---------------------------------------------------------------- who cites


def cite(citing: str, cited: str, n: int) -> dict[str, str]:
    return {"oci": f"0610180{n}-061803{n}", "citing": citing, "cited": f"omid:br/061803{n} doi:{cited}",
            "creation": "2021-03-10", "timespan": "P6Y0M1D", "journal_sc": "no", "author_sc": "no"}


def test_citing_values_are_read_for_their_doi() -> None:
    assert citing_doi("omid:br/06101801781 doi:10.7717/peerj-cs.421 pmid:33817056") == "10.7717/peerj-cs.421"
    assert citing_doi("omid:br/0612345 pmid:1") is None


def test_citing_fetches_the_works_that_cite_with_their_source_kept(apis: FakeApis, cwd: Path) -> None:
    seed = SEED_MESSAGES[0]["DOI"].lower()
    apis.citations[seed] = [cite("omid:br/1 doi:10.5555/C1 pmid:3", seed, 1),
                            cite("omid:br/2 doi:10.5555/c2", seed, 2),
                            cite("omid:br/3 pmid:99", seed, 3)]
    apis.citations["10.5555/c1"] = [cite("omid:br/4 doi:10.5555/c3", "10.5555/c1", 4)]
    for doi in ("10.5555/c1", "10.5555/c2", "10.5555/c3"):
        apis.works[doi] = orjson.dumps({"status": "ok", "message-type": "work",
                                        "message": {**SEED_MESSAGES[1], "DOI": doi}})
    result = run(apis, "--citing", seed, env={"OPENCITATIONS_ACCESS_TOKEN": "secret-token"})
    assert result.exit_code == 0, result.stderr
    assert records(cwd / "fetched") == [file_name("10.5555/c1"), file_name("10.5555/c2")]
    oc = [{k.lower(): v for k, v in h.items()} for path, _q, h in apis.requests if path.startswith("/oc/")]
    assert len(oc) == 1 and oc[0]["authorization"] == "secret-token" and "crossref-kg/" in oc[0]["user-agent"]
    assert any("2 citing DOIs; 1 citing work without a DOI (counted, not fetched)" in ln
               for ln in result.stderr.splitlines())
    sources = (cwd / "fetched" / ".citing.tsv").read_text().splitlines()
    assert sources[1:] == [f"10.5555/c1\t{seed}\t06101801-0618031", f"10.5555/c2\t{seed}\t06101802-0618032"]
    deeper = run(apis, "--citing", seed, "--depth", "2")
    assert deeper.exit_code == 0 and file_name("10.5555/c3") in records(cwd / "fetched")
    assert len((cwd / "fetched" / ".citing.tsv").read_text().splitlines()) == 4  # merged with the first run's


def test_citing_a_folder_of_records_asks_for_each_and_a_404_is_nothing(apis: FakeApis, cwd: Path) -> None:
    folder = cwd / "corpus"
    folder.mkdir()
    for m in SEED_MESSAGES[:2]:
        (folder / file_name(m["DOI"])).write_bytes(orjson.dumps({"message": m}))
    result = run(apis, "--citing", "corpus")
    assert result.exit_code == 0, result.stderr
    assert len([p for p, _q, _h in apis.requests if p.startswith("/oc/")]) == 2
    assert "citing: asked OpenCitations about 2 works in" in result.stderr
    assert run(apis, "--citing", "not-a-doi").exit_code == 2
